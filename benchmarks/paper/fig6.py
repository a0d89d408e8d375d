#!/usr/bin/env python3
"""Figure 6a-b of the paper: write-delete-write and write-delete-read with
16-byte keys and 512-byte values, 1 million pairs at --scale 1, deleting
10, 30, 50, 70 and 90% of them (micros/op, lower is better).

db_bench's writedeletewrite and writedeleteread run the paper's three
stages in one process, each stage its own line: fill N keys in random
order; delete --delete_ratio of them; write N new keys (6a) or read the N
keys of the first stage (6b, which must find exactly the ones not deleted).
Figure 6a shows the delete and second-write stages, 6b the read stage; the
fill stage is in the CSV. Runs benchmarks/compare once per ratio on a
dedicated loop-mounted ext4 when root; writes fig6.csv, fig6.md, fig6.png.

    benchmarks/paper/fig6.py --scale 0.01      # quick pass
    benchmarks/paper/fig6.py --scale 1         # the paper's 1M pairs
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paper  # noqa: E402

PAPER_N = 1_000_000
VALUE_SIZE = 512
RATIOS = [10, 30, 50, 70, 90]
# (figure, compare line, what the stage is)
STAGES = [
    ("6 (first stage)", "writedeletewrite/fill", "fill"),
    ("6a", "writedeletewrite/delete", "delete"),
    ("6a", "writedeletewrite/write", "2nd write"),
    ("6b", "writedeleteread/read", "read"),
]

# The paper prints Figure 6 as charts; its text (Section 5.2.2) states these
# ratios of WiscKey's time to DeLSM's. (stage line, ratio %, our engine,
# WiscKey/DeLSM time, source)
PAPER_CLAIMS = [
    # The paper, Section 5.2.2 on Figure 6a: "with 30% and 70% deletions, the
    # average deletion time of WiscKey is 3.2x and 2.9x that of DeLSM".
    ("writedeletewrite/delete", 30, "blobdb", 3.2, "Figure 6a, Section 5.2.2"),
    ("writedeletewrite/delete", 70, "blobdb", 2.9, "Figure 6a, Section 5.2.2"),
    # The paper, Section 5.2.2 on Figure 6a: "In the subsequent writing of new
    # KV pairs after 30% and 70% deletions, the average write time of WiscKey
    # is 1.5x and 2.7x that of DeLSM".
    ("writedeletewrite/write", 30, "blobdb", 1.5, "Figure 6a, Section 5.2.2"),
    ("writedeletewrite/write", 70, "blobdb", 2.7, "Figure 6a, Section 5.2.2"),
]


def main():
    ap = paper.arg_parser(__doc__.split("\n\n")[0], PAPER_N)
    ap.add_argument("--ratios", default=",".join(str(r) for r in RATIOS),
                    help="percentages deleted (10,30,50,70,90)")
    args = ap.parse_args()
    started = time.monotonic()
    ratios = [int(r) for r in args.ratios.split(",") if r]
    num, bins, engines, out = paper.setup(args, PAPER_N, "fig6")
    need = 2 * num * (4096 + 4096) * 2 + (2 << 30)
    store = paper.Storage(args, "fig6", need, int(num * 3) + 100_000)
    rows = {}
    try:
        for ratio in ratios:
            rows[ratio] = paper.run_compare(
                bins, os.path.join(out, "compare-delete%d" % ratio), store.root, engines,
                ["writedeletewrite", "writedeleteread"], [VALUE_SIZE], num,
                args.seed, args.timeout, extra="--delete_ratio=%g" % (ratio / 100.0),
                trim=store.trims)
    finally:
        store.close()

    header = ["Figure 6 of the paper: write-delete-write / write-delete-read, "
              "16-byte keys, 512 B values, %s pairs per stage (--scale %g of "
              "the paper's 1M)" % (format(num, ","), args.scale),
              "databases on " + store.where,
              "binaries: " + bins,
              "micros/op per engine and stage, lower is better; 'vs X' = X's "
              "time / DeLSM's (above 1: DeLSM faster); '!' = the read stage did "
              "not find exactly the keys that were not deleted",
              paper.WISCKEY_NOTE]
    tables, csv_rows = [], []
    peers = [e for e in engines if e != "delsm"]
    for fig, line, what in STAGES:
        head = ["deleted"] + ["%s us/op" % paper.LABELS[e] for e in engines]
        if "delsm" in engines:
            head += ["vs %s" % paper.LABELS[p] for p in peers]
        body = []
        for ratio in ratios:
            cells = ["%d%%" % ratio]
            base = paper.micros(rows[ratio], "delsm", line, VALUE_SIZE)
            for e in engines:
                m = paper.micros(rows[ratio], e, line, VALUE_SIZE)
                r = next((r for r in rows[ratio] if r["engine"] == e and r["line"] == line), None)
                bad = bool(r and r["expected"] and r["found"] != r["expected"])
                cells.append(paper.fmt(m, ".3f") + (" !" if bad else ""))
                csv_rows.append({"figure": fig, "stage": what, "line": line,
                                 "deleted_pct": ratio, "engine": e, "micros_op": m,
                                 "vs_delsm": m / base if m and base else None,
                                 "found": r and r["found"], "expected": r and r["expected"],
                                 "num": num, "scale": args.scale})
            if "delsm" in engines:
                for p in peers:
                    m = paper.micros(rows[ratio], p, line, VALUE_SIZE)
                    cells.append(paper.fmt(m / base if m and base else None, ".2f"))
            body.append(cells)
        tables.append(("Figure %s: %s stage (%s), micros/op" % (fig, what, line), head, body))

    head = ["source", "stage", "deleted", "peer", "paper: peer/DeLSM time",
            "here: peer/DeLSM time"]
    body = []
    for line, ratio, e, claim, source in PAPER_CLAIMS:
        here = None
        if ratio in rows:
            base = paper.micros(rows[ratio], "delsm", line, VALUE_SIZE)
            m = paper.micros(rows[ratio], e, line, VALUE_SIZE)
            here = m / base if m and base else None
        body.append([source, line, "%d%%" % ratio,
                     "%s (paper: %s)" % (paper.LABELS[e], paper.PAPER_NAME[e]),
                     "%.1f" % claim,
                     paper.fmt(here, ".2f", none="- (not run)" if e not in engines
                               or ratio not in rows else "-")])
    tables.append(("The paper's printed figures beside ours", head, body))
    header.append("time: %s" % paper.compare.hms(time.monotonic() - started))
    paper.report(out, "fig6", header, tables)
    paper.write_csv(os.path.join(out, "fig6.csv"), csv_rows,
                    ["figure", "stage", "line", "deleted_pct", "engine", "micros_op",
                     "vs_delsm", "found", "expected", "num", "scale"])
    charted = plot(csv_rows, engines, ratios, num, os.path.join(out, "fig6.png"))
    print("wrote %s/fig6.csv, fig6.md%s" % (out, ", fig6.png" if charted else " (no chart)"))


def plot(csv_rows, engines, ratios, num, path):
    plt = paper.pyplot()
    if plt is None:
        return False
    panels = [s for s in STAGES if s[2] != "fill"]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.5))
    for ax, (fig_name, line, what) in zip(axes, panels):
        for e in engines:
            pts = [(r["deleted_pct"], r["micros_op"]) for r in csv_rows
                   if r["line"] == line and r["engine"] == e and r["micros_op"] is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                        label=paper.LABELS[e])
        ax.set_xticks(ratios)
        ax.set_xlabel("KV pairs deleted in the second stage (%)")
        ax.set_ylabel("micros/op")
        ax.set_title("Figure %s: %s" % (fig_name, what))
        ax.legend(fontsize=7)
    fig.suptitle("Figure 6 of the paper, 512 B values, %s pairs per stage (lower "
                 "is better)" % format(num, ","))
    fig.tight_layout()
    fig.savefig(path)
    return True


if __name__ == "__main__":
    main()
