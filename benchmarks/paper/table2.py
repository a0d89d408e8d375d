#!/usr/bin/env python3
"""Table 2 of the paper: write amplification of write (10M) - delete (50%) -
write (10M) with 16-byte keys and 512 B or 4 KiB values, per stage and
overall, 10 million pairs per write stage at --scale 1.

One db_bench writedeletewrite process per engine and value size, in a fresh
database, with --stage_barrier: at the end of each stage db_bench prints
its /proc/self/io totals and waits while this script syncs the file system
and reads the device, so each stage is measured two ways:

  process  bytes the db_bench process (all its threads) wrote to the page
           cache: /proc/<pid>/io write_bytes - cancelled_write_bytes, which
           is what iotop accumulates per process, as the paper measured;
           the kernel's writeback of metadata and the journal (kworker,
           jbd2) is not in it.
  device   sectors written to the dedicated loop device of the run's ext4
           (/sys/block/<loop>/stat, after `sync -f`): data, metadata and
           journal. Only as root (without root there is no device of our
           own and the column is empty).

WA = bytes written / user bytes of the stage (keys and values of puts, keys
of deletes, as db_bench counts them); Overall = all bytes / all user bytes.
The last stage ends when the process has exited (its close included).
Values are not compressed (--compression=0, as benchmarks/wa/ does), so
user bytes are what must reach the disk. Writes table2.csv, table2.md and
table2.png (matplotlib).

    benchmarks/paper/table2.py --scale 0.002   # quick pass
    benchmarks/paper/table2.py --scale 1       # the paper's 10M pairs
"""

import os
import re
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paper  # noqa: E402

PAPER_N = 10_000_000
VALUE_SIZES = [512, 4096]
STAGES = ["1st Write", "Delete", "2nd Write"]

# The paper, Table 2: "The Write Amplifications of LSM-tree Variants with
# Write (10 million)-Delete (50%)-Write (10 million) Workloads", as printed
# (measured with iotop). Per value size: 1st Write, Delete, 2nd Write, Overall.
PAPER_TABLE2 = {
    "LevelDB":   {512: (11.8, 8.1, 12.6, 12.1),   4096: (15.8, 20.1, 17.0, 16.5)},
    "BoLT":      {512: (12.6, 10.6, 13.7, 13.1),  4096: (16.3, 50.6, 17.6, 17.0)},
    "WiscKey":   {512: (1.2, 185.6, 35.9, 21.0),  4096: (1.5, 1471.6, 42.3, 24.7)},
    "LDS":       {512: (12.7, 11.5, 13.0, 12.8),  4096: (18.7, 68.1, 20.0, 19.5)},
    "PebblesDB": {512: (8.0, 8.8, 7.9, 8.0),      4096: (12.3, 52.5, 12.0, 12.3)},
    "DeLSM":     {512: (2.5, 18.5, 2.9, 3.0),     4096: (2.4, 20.0, 2.6, 2.5)},
}

STAGE_RE = re.compile(r"^stage end: (\S+) write_bytes=(\d+) cancelled_write_bytes=(\d+) "
                      r"user_bytes=(\d+)$")


def run_staged(argv, log, store, timeout):
    """Runs db_bench with --stage_barrier; returns the readings at start, at
    each stage's end and at exit: dicts with proc (write_bytes -
    cancelled), write_bytes, cancelled, user and dev (device bytes or None),
    plus rc, wall_s and the result lines."""
    readings = [{"name": "start", "proc": 0, "write_bytes": 0, "cancelled": 0,
                 "user": 0, "dev": store.device_bytes_written()}]
    lines = []
    start = time.monotonic()
    with open(log + ".err", "w") as err, open(log + ".out", "w") as out:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=err, text=True, bufsize=1)
        timer = threading.Timer(timeout, proc.kill) if timeout else None
        if timer:
            timer.start()
        user_total = None
        for line in proc.stdout:
            out.write(line)
            m = STAGE_RE.match(line.rstrip("\n"))
            if m:
                wb, cancelled = int(m.group(2)), int(m.group(3))
                readings.append({"name": m.group(1), "write_bytes": wb,
                                 "cancelled": cancelled, "proc": wb - cancelled,
                                 "user": int(m.group(4)),
                                 "dev": store.device_bytes_written()})
                try:
                    proc.stdin.write("\n")
                    proc.stdin.flush()
                except BrokenPipeError:
                    pass
                continue
            lm = paper.compare.LINE_RE.match(line)
            if lm:
                lines.append((lm.group(1), float(lm.group(2))))
            elif line.startswith("user bytes written:"):
                user_total = int(line.split(":")[1])
        # Read /proc/<pid>/io before reaping: it holds every thread's totals.
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        io = paper.compare.proc_io(proc.pid)
        _, status, _ = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if timer:
            timer.cancel()
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
    wb, cancelled = io.get("write_bytes"), io.get("cancelled_write_bytes")
    readings.append({"name": "exit", "write_bytes": wb, "cancelled": cancelled,
                     "proc": None if wb is None else wb - (cancelled or 0),
                     "user": user_total, "dev": store.device_bytes_written()})
    return {"rc": proc.returncode, "wall_s": time.monotonic() - start,
            "readings": readings, "lines": lines}


def wa(readings, a, b, key):
    x, y = readings[a][key], readings[b][key]
    ux, uy = readings[a]["user"], readings[b]["user"]
    if x is None or y is None or ux is None or uy is None or uy <= ux:
        return None
    return (y - x) / (uy - ux)


def main():
    ap = paper.arg_parser(__doc__.split("\n\n")[0], PAPER_N)
    ap.add_argument("--value-sizes", default=",".join(str(v) for v in VALUE_SIZES))
    ap.add_argument("--compression", type=int, default=0,
                    help="db_bench --compression (0, so user bytes are what is stored)")
    args = ap.parse_args()
    started = time.monotonic()
    sizes = [int(v) for v in args.value_sizes.split(",") if v]
    num, bins, engines, out = paper.setup(args, PAPER_N, "table2")
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    need = 2 * num * (max(sizes) + 4096) * 2 + (2 << 30)
    store = paper.Storage(args, "table2", need, int(num * 2.5) + 100_000)
    results, failures, builds = [], [], {}
    plan = [(vs, e) for vs in sizes for e in engines]
    try:
        for i, (vs, e) in enumerate(plan):
            binary, flags = paper.compare.ENGINES[e]
            tag = "writedeletewrite-%d-%s" % (vs, e)
            db = os.path.join(store.root, tag)
            shutil.rmtree(db, ignore_errors=True)
            argv = [os.path.join(bins, binary), "--db=" + db, "--value_size=%d" % vs,
                    "--num=%d" % num, "--delete_ratio=0.5", "--seed=%d" % args.seed,
                    "--bloom_bits=10", "--compression=%d" % args.compression,
                    "--stage_barrier=1", "--benchmarks=writedeletewrite"] + flags
            paper.log("[%d of %d] %s (elapsed %s)" % (
                i + 1, len(plan), tag, paper.compare.hms(time.monotonic() - started)))
            try:
                r = run_staged(argv, os.path.join(out, "logs", tag), store, args.timeout)
                du, inodes = (paper.compare.disk_usage(db) if os.path.isdir(db)
                              else (None, None))
            finally:
                shutil.rmtree(db, ignore_errors=True)
                store.trim()
            with open(os.path.join(out, "logs", tag + ".out")) as f:
                for line in f:
                    if line.startswith("Build:"):
                        builds[e] = line.split(":", 1)[1].strip()
            rd = r["readings"]
            if r["rc"] != 0 or len(rd) != 5:
                failures.append("%s exited %d with %d stage readings (see logs/%s.err)"
                                % (tag, r["rc"], len(rd) - 2, tag))
                continue
            row = {"value_size": vs, "engine": e, "num": num, "scale": args.scale,
                   "user_bytes": rd[4]["user"], "process_bytes": rd[4]["proc"],
                   "write_bytes": rd[4]["write_bytes"],
                   "cancelled_write_bytes": rd[4]["cancelled"],
                   "device_bytes": (None if rd[0]["dev"] is None
                                    else rd[4]["dev"] - rd[0]["dev"]),
                   "disk_bytes": du, "inodes": inodes, "wall_s": r["wall_s"],
                   "stage_micros_op": "; ".join("%s %.3f" % l for l in r["lines"])}
            # Stage k spans readings k-1..k; the last one ends at exit (4).
            for key, method in (("proc", "process"), ("dev", "device")):
                for k, stage in enumerate(STAGES):
                    row["%s %s" % (method, stage)] = wa(rd, k, 4 if k == 2 else k + 1, key)
                row["%s Overall" % method] = wa(rd, 0, 4, key)
            results.append(row)
            paper.log("[%d of %d] %s done in %.1fs" % (i + 1, len(plan), tag, r["wall_s"]))
    finally:
        store.close()

    header = ["Table 2 of the paper: write amplification of write (%s) - delete "
              "(50%%) - write (%s), 16-byte keys (--scale %g of the paper's 10M)"
              % (format(num, ","), format(num, ","), args.scale),
              "databases on " + store.where,
              "binaries: " + bins + "; db_bench --compression=%d --bloom_bits=10"
              % args.compression,
              "process = /proc/<pid>/io write_bytes - cancelled_write_bytes per "
              "stage (what iotop accumulates, as the paper measured); device = "
              "sectors written to the loop device after sync -f (data, metadata, "
              "journal). Each cell: ours (the paper's Table 2 figure).",
              paper.WISCKEY_NOTE]
    for e in engines:
        header.append("%s: %s" % (paper.LABELS[e], builds.get(e, "?")))
    tables = []
    head = ["LSM-tree"] + ["%s %s" % (paper.size_name(vs), s)
                           for vs in (512, 4096) for s in STAGES + ["Overall"]]
    body = [[name] + ["%.1fx" % v for vs in (512, 4096) for v in PAPER_TABLE2[name][vs]]
            for name in PAPER_TABLE2]
    tables.append(("The paper's Table 2 as printed (iotop)", head, body))
    for method in ("process", "device"):
        head = ["engine"] + ["%s %s" % (paper.size_name(vs), s)
                             for vs in sizes for s in STAGES + ["Overall"]]
        body = []
        for e in engines:
            cells = [paper.LABELS[e]]
            pname = paper.PAPER_NAME.get(e)
            for vs in sizes:
                row = next((r for r in results if r["engine"] == e and r["value_size"] == vs), None)
                for j, s in enumerate(STAGES + ["Overall"]):
                    v = row and row["%s %s" % (method, s)]
                    p = PAPER_TABLE2.get(pname, {}).get(vs)
                    cells.append(paper.fmt(v, ".2f") + "x" * (v is not None) +
                                 (" (%.1f)" % p[j] if p else ""))
            body.append(cells)
        tables.append(("Write amplification, %s" % method, head, body))
    head = ["value", "engine", "user MB", "process MB", "write_bytes MB",
            "cancelled MB", "device MB", "disk MB", "inodes", "wall s", "stage micros/op"]
    body = [[paper.size_name(r["value_size"]), paper.LABELS[r["engine"]]] +
            [paper.fmt(r[k] and r[k] / 1048576.0, ".1f") for k in
             ("user_bytes", "process_bytes", "write_bytes", "cancelled_write_bytes",
              "device_bytes", "disk_bytes")] +
            [paper.fmt(r["inodes"], "d"), paper.fmt(r["wall_s"], ".1f"), r["stage_micros_op"]]
            for r in results]
    tables.append(("Per run", head, body))
    header.append("time: %s" % paper.compare.hms(time.monotonic() - started))
    paper.report(out, "table2", header, tables)
    fields = ["value_size", "engine", "num", "scale"] + [
        "%s %s" % (m, s) for m in ("process", "device") for s in STAGES + ["Overall"]] + [
        "user_bytes", "process_bytes", "write_bytes", "cancelled_write_bytes",
        "device_bytes", "disk_bytes", "inodes", "wall_s", "stage_micros_op"]
    paper.write_csv(os.path.join(out, "table2.csv"), results, fields)
    charted = plot(results, engines, sizes, num, os.path.join(out, "table2.png"))
    print("wrote %s/table2.csv, table2.md%s" % (out, ", table2.png" if charted else " (no chart)"))
    if failures:
        print("PROBLEMS:\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)


def plot(results, engines, sizes, num, path):
    plt = paper.pyplot()
    if plt is None or not results:
        return False
    methods = ["process"] + (["device"] if any(r["device Overall"] is not None
                                               for r in results) else [])
    cols = STAGES + ["Overall"]
    fig, axes = plt.subplots(len(methods), len(sizes), squeeze=False,
                             figsize=(6.5 * len(sizes), 4 * len(methods)))
    width = 0.8 / len(engines)
    for mi, method in enumerate(methods):
        for si, vs in enumerate(sizes):
            ax = axes[mi][si]
            labelled = False
            for i, e in enumerate(engines):
                row = next((r for r in results if r["engine"] == e and r["value_size"] == vs), None)
                if not row:
                    continue
                xs = [x + i * width for x in range(len(cols))]
                ys = [row["%s %s" % (method, c)] or 0 for c in cols]
                ax.bar(xs, ys, width, label=paper.LABELS[e])
                p = PAPER_TABLE2.get(paper.PAPER_NAME.get(e), {}).get(vs)
                if p:
                    ax.plot(xs, p, "k_", markersize=9,
                            label=None if labelled else "the paper")
                    labelled = True
            ax.set_xticks([x + width * (len(engines) - 1) / 2 for x in range(len(cols))])
            ax.set_xticklabels(cols)
            ax.set_yscale("log")
            ax.set_ylabel("bytes written / user bytes")
            ax.set_title("%s values, %s" % (paper.size_name(vs), method))
            ax.legend(fontsize=7)
    fig.suptitle("Table 2 of the paper: write amplification, %s pairs per write "
                 "stage (black dashes: the paper's figures)" % format(num, ","))
    fig.tight_layout()
    fig.savefig(path)
    return True


if __name__ == "__main__":
    main()
