#!/usr/bin/env python3
"""Figure 5a-d of the paper: db_bench fillseq, fillrandom, readseq and
readrandom with 16-byte keys and 16 B to 4 KiB values, 10 million pairs at
--scale 1, every engine (micros/op, lower is better).

Runs benchmarks/compare (each engine in a fresh database; the read
workloads read a database filled by fillrandom in a separate, unmeasured
process) on a dedicated loop-mounted ext4 when root, then prints one table
per panel, the paper's printed claims beside ours, and writes fig5.csv,
fig5.md and fig5.png (matplotlib). compare's own tables and per-run logs are
in <out>/compare/.

    benchmarks/paper/fig5.py --scale 0.002     # quick pass
    benchmarks/paper/fig5.py --scale 1         # the paper's 10M pairs
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paper  # noqa: E402

PAPER_N = 10_000_000
VALUE_SIZES = [16, 64, 256, 512, 1024, 4096]
PANELS = [("a", "fillseq"), ("b", "fillrandom"), ("c", "readseq"), ("d", "readrandom")]

# The paper prints Figure 5 as bar charts without numbers; its text states
# these ratios (peer time / DeLSM time at the same workload and value size;
# above 1 = DeLSM faster). (workload, value size, our engine, ratio, source)
PAPER_CLAIMS = [
    # The paper, Section 5.2.1 on Figure 5b: DeLSM "boosts the write
    # performance of LevelDB, by up to 18.9x with fillrandom and 4KB values".
    ("fillrandom", 4096, "leveldb", 18.9, "Figure 5b, Section 5.2.1"),
    # The paper, Section 5.2.1 on Figure 5b: "fillrandom and 4KB value size
    # ... The average write time of BoLT, LDS, and PebblesDB is 14.5x, 13.0x
    # and 6.3x that of DeLSM" (LDS has no code to run).
    ("fillrandom", 4096, "bolt", 14.5, "Figure 5b, Section 5.2.1"),
    ("fillrandom", 4096, "pebblesdb", 6.3, "Figure 5b, Section 5.2.1"),
    # The paper, Section 5.2.1 on Figure 5b: "with fillrandom and 4KB values,
    # DeLSM is 52.0% slower than WiscKey": WiscKey's time / DeLSM's = 1/1.52.
    ("fillrandom", 4096, "blobdb", 1 / 1.52, "Figure 5b, Section 5.2.1 (WiscKey)"),
    # The paper, Section 5.2.4 on Figure 5d: "with readrandom and 1KB values,
    # the performance of DeLSM is 2.8x that of LevelDB".
    ("readrandom", 1024, "leveldb", 2.8, "Figure 5d, Section 5.2.4"),
]


def main():
    ap = paper.arg_parser(__doc__.split("\n\n")[0], PAPER_N)
    ap.add_argument("--value-sizes", default=",".join(str(v) for v in VALUE_SIZES))
    ap.add_argument("--reads", type=int, default=None,
                    help="reads per readseq/readrandom run (default: the pairs, "
                    "as the paper's db_bench; fewer samples the same database)")
    args = ap.parse_args()
    started = time.monotonic()
    sizes = [int(v) for v in args.value_sizes.split(",") if v]
    num, bins, engines, out = paper.setup(args, PAPER_N, "fig5")
    # One database at a time (compare removes each after its run); DeLSM
    # takes a block per KV file at worst.
    biggest = max(sizes)
    need = num * (max(biggest, 4096) + 4096) * 2 + (2 << 30)
    store = paper.Storage(args, "fig5", need, int(num * 1.5) + 100_000)
    try:
        rows = paper.run_compare(bins, os.path.join(out, "compare"), store.root,
                                 engines, [w for _, w in PANELS], sizes, num,
                                 args.seed, args.timeout, trim=store.trims,
                                 reads=args.reads)
    finally:
        store.close()

    header = ["Figure 5 of the paper (db_bench, 16-byte keys), %s pairs "
              "(--scale %g of the paper's 10M)" % (format(num, ","), args.scale)
              + ("; %s reads per read run" % format(args.reads, ",") if args.reads else ""),
              "databases on " + store.where,
              "binaries: " + bins,
              "micros/op per engine, lower is better; 'vs X' = X's time / "
              "DeLSM's (above 1: DeLSM faster); '!' = a read missed keys it "
              "should have found (see compare/results.md)",
              paper.WISCKEY_NOTE]
    for e in engines:
        build = next((r["build"] for r in rows if r["engine"] == e and r.get("build")), "?")
        header.append("%s: %s" % (paper.LABELS[e], build))
    tables, csv_rows = [], []
    for panel, w in PANELS:
        head = ["value"] + ["%s us/op" % paper.LABELS[e] for e in engines]
        peers = [e for e in engines if e != "delsm"]
        if "delsm" in engines:
            head += ["vs %s" % paper.LABELS[p] for p in peers]
        body = []
        for vs in sizes:
            cells = [paper.size_name(vs)]
            base = paper.micros(rows, "delsm", w, vs)
            for e in engines:
                m = paper.micros(rows, e, w, vs)
                bad = [r for r in rows if r["engine"] == e and r["line"] == w
                       and int(r["value_size"]) == vs and not ok_found(r)]
                cells.append(paper.fmt(m, ".3f") + (" !" if bad else ""))
                csv_rows.append({"figure": "5" + panel, "workload": w, "value_size": vs,
                                 "engine": e, "micros_op": m,
                                 "vs_delsm": m / base if m and base else None,
                                 "num": num, "scale": args.scale})
            if "delsm" in engines:
                for p in peers:
                    m = paper.micros(rows, p, w, vs)
                    cells.append(paper.fmt(m / base if m and base else None, ".2f"))
            body.append(cells)
        tables.append(("Figure 5%s: %s, micros/op" % (panel, w), head, body))

    head = ["source", "workload", "value", "peer", "paper: peer/DeLSM time",
            "here: peer/DeLSM time"]
    body = []
    for w, vs, e, ratio, source in PAPER_CLAIMS:
        base, m = paper.micros(rows, "delsm", w, vs), paper.micros(rows, e, w, vs)
        peer = paper.LABELS[e] + (" (paper: %s)" % paper.PAPER_NAME[e]
                                  if paper.PAPER_NAME.get(e) != paper.LABELS[e] else "")
        here = paper.fmt(m / base if m and base else None, ".2f",
                         none="- (not run)" if e not in engines or vs not in sizes else "-")
        body.append([source, w, paper.size_name(vs), peer, "%.2f" % ratio, here])
    tables.append(("The paper's printed figures beside ours", head, body))
    header.append("time: %s" % paper.compare.hms(time.monotonic() - started))
    paper.report(out, "fig5", header, tables)
    paper.write_csv(os.path.join(out, "fig5.csv"), csv_rows,
                    ["figure", "workload", "value_size", "engine", "micros_op",
                     "vs_delsm", "num", "scale"])
    if plot(csv_rows, engines, sizes, num, os.path.join(out, "fig5.png")):
        print("wrote %s/fig5.csv, fig5.md, fig5.png" % out)
    else:
        print("wrote %s/fig5.csv, fig5.md (no chart)" % out)


def ok_found(r):
    if not r["found"]:
        return True
    if r["expected"]:
        return r["found"] == r["expected"]
    return r["found"] == r["tried"] and int(r["tried"]) > 0


def plot(csv_rows, engines, sizes, num, path):
    plt = paper.pyplot()
    if plt is None:
        return False
    fig, axes = plt.subplots(2, 2, figsize=(13, 8))
    width = 0.8 / len(engines)
    for ax, (panel, w) in zip(axes.flat, PANELS):
        for i, e in enumerate(engines):
            xs, ys = [], []
            for x, vs in enumerate(sizes):
                m = [r["micros_op"] for r in csv_rows
                     if r["workload"] == w and r["engine"] == e and r["value_size"] == vs]
                if m and m[0] is not None:
                    xs.append(x + i * width)
                    ys.append(m[0])
            ax.bar(xs, ys, width, label=paper.LABELS[e])
        ax.set_xticks([x + width * (len(engines) - 1) / 2 for x in range(len(sizes))])
        ax.set_xticklabels([paper.size_name(v) for v in sizes])
        ax.set_xlabel("value size (16-byte keys)")
        ax.set_ylabel("micros/op")
        if w.startswith("fill"):
            ax.set_yscale("log")  # writes span orders of magnitude
        ax.set_title("(%s) %s" % (panel, w))
        ax.legend(fontsize=7)
    fig.suptitle("Figure 5 of the paper, %s pairs (lower is better)" % format(num, ","))
    fig.tight_layout()
    fig.savefig(path)
    return True


if __name__ == "__main__":
    main()
