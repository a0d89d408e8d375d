#!/usr/bin/env python3
"""The large comparison behind RESULTS.md, resumable and useful when cut short.

Uses benchmarks/compare's measurement (one db_bench process per run,
/proc/<pid>/io write bytes, disk usage, VmHWM) but differs in two ways that
matter at --num=1000000 on a small machine:

* fillrandom and readrandom share one database: the fillrandom process is
  measured (compare runs it unmeasured as readrandom's set-up), and
  readrandom opens its result in a second process with --use_existing_db=1
  and a fresh key-order seed. This halves the number of 1M-key fills.
* Results are appended to results.csv and results.md is re-rendered after
  every run, so a run stopped at a deadline still leaves its finished rows.

Phases run in order over all value sizes: fillrandom+readrandom, then
fillseq, then writedeletewrite, so the essential rows finish first.

    benchmarks/results_run.py --bin-dir build-release/benchmarks \
        --num 1000000 --reads 200000 --out out/results-1m
"""

import argparse
import csv
import importlib.machinery
import importlib.util
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader("compare", os.path.join(HERE, "compare"))
_spec = importlib.util.spec_from_loader("compare", _loader)
compare = importlib.util.module_from_spec(_spec)
_loader.exec_module(compare)

# compare's engines (delsm-pure among them: every value a KV file, the
# paper's design), plus the default mode under a name that fixes it:
ENGINES = dict(compare.ENGINES)
# DeLSM with inline_threshold=2048 (the default) named explicitly, so that
# the row means the same whatever the binary's default, and a run can show
# pure mode and inline values side by side.
ENGINES["delsm-inline2048"] = ("db_bench", ["--inline_threshold=2048"])

FIELDS = ["value_size", "workload", "line", "engine", "micros_op", "found", "tried",
          "expected", "write_bytes", "user_bytes", "wa", "disk_bytes", "inodes",
          "peak_rss_kb", "wall_s", "rc", "build", "device_bytes", "device_wa",
          "bloom_bits"]


def filter_note(bloom_bits):
    """The line results.md opens with: which Bloom filter each engine had.
    Read figures are only comparable between runs with the same note."""
    if bloom_bits >= 0:
        return ("Bloom filter: %d bits per key for every engine (--bloom_bits=%d; "
                "DeLSM always builds 10)" % (bloom_bits, bloom_bits))
    return ("Bloom filter: NONE for LevelDB and RocksDB (--bloom_bits=-1, db_bench's "
            "default), while DeLSM always builds 10 bits per key: reads are NOT an "
            "equal-filter comparison")


def read_device_kbytes(path):
    """The file system's write counter, after writing back everything dirty
    (so the bytes a run leaves in the page cache are charged to it)."""
    os.sync()
    with open(path) as f:
        return int(f.read().strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--num", type=int, default=1000000)
    ap.add_argument("--reads", type=int, default=200000)
    ap.add_argument("--value-sizes", default="256,1024,4096")
    ap.add_argument("--engines", default="delsm,leveldb,rocksdb,blobdb")
    ap.add_argument("--phases", default="fillrandom+readrandom,fillseq,writedeletewrite")
    ap.add_argument("--bloom-bits", type=int, default=10,
                    help="--bloom_bits for every engine (DeLSM always builds a "
                         "10-bit filter; -1 gives the peers none, labelled so)")
    ap.add_argument("--db-root", default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--device-counter", default=None,
                    help="a write counter in KiB of the file system under --db-root, "
                         "e.g. /sys/fs/ext4/loop0/session_write_kbytes: each run's "
                         "device bytes (journal and metadata included) are recorded")
    args = ap.parse_args()

    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    db_root = args.db_root or tempfile.mkdtemp(prefix="delsm-results-")
    sizes = [int(v) for v in args.value_sizes.split(",")]
    engines = args.engines.split(",")
    rows = []
    csv_path = os.path.join(args.out, "results.csv")
    with open(csv_path, "w", newline="") as f:
        csv.DictWriter(f, fieldnames=FIELDS).writeheader()

    def record(r, workload, vs, engine, du, inodes, device_bytes):
        wa = None
        if r["user_bytes"] and r["write_bytes"] is not None:
            wa = r["write_bytes"] / r["user_bytes"]
        device_wa = None
        if r["user_bytes"] and device_bytes is not None:
            device_wa = device_bytes / r["user_bytes"]
        for line in r["lines"]:
            row = dict(line, value_size=vs, workload=workload, line=line["name"],
                       engine=engine, rc=r["rc"], wall_s=r["wall_s"],
                       write_bytes=r["write_bytes"], user_bytes=r["user_bytes"], wa=wa,
                       disk_bytes=du, inodes=inodes, build=r["build"],
                       peak_rss_kb=r["vmhwm_kb"] or r["maxrss_kb"],
                       device_bytes=device_bytes, device_wa=device_wa,
                       bloom_bits=args.bloom_bits)
            rows.append(row)
            with open(csv_path, "a", newline="") as f:
                csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore").writerow(row)
        tables = compare.build_tables(rows, engines, sizes)
        with open(os.path.join(args.out, "results.md"), "w") as f:
            f.write("- " + filter_note(args.bloom_bits) + "\n\n")
            f.write(compare.render_markdown(tables))
        print("%-36s rc=%d %7.1fs %s" % (
            "%s-%d-%s" % (workload, vs, engine), r["rc"], r["wall_s"],
            " ".join("%s=%.3f" % (l["name"], l["micros_op"]) for l in r["lines"])
            + ("" if device_bytes is None else " device_MB=%.0f" % (device_bytes / 1e6))),
            flush=True)

    for phase in args.phases.split(","):
        steps = phase.split("+")
        for vs in sizes:
            for e in engines:
                binary, flags = ENGINES[e]
                db = os.path.join(db_root, "%s-%d-%s" % (steps[0], vs, e))
                shutil.rmtree(db, ignore_errors=True)
                base = [os.path.join(args.bin_dir, binary), "--db=" + db,
                        "--value_size=%d" % vs, "--num=%d" % args.num,
                        "--reads=%d" % args.reads,
                        "--bloom_bits=%d" % args.bloom_bits] + flags
                for i, step in enumerate(steps):
                    argv = base + ["--benchmarks=" + step]
                    if i > 0:
                        argv.append("--use_existing_db=1")
                    log = os.path.join(args.out, "logs", "%s-%d-%s" % (step, vs, e))
                    before = (read_device_kbytes(args.device_counter)
                              if args.device_counter else None)
                    r = compare.run_db_bench(argv, log, None)
                    device_bytes = None
                    if args.device_counter:
                        device_bytes = 1024 * (read_device_kbytes(args.device_counter) - before)
                    du, inodes = compare.disk_usage(db) if os.path.isdir(db) else (None, None)
                    record(r, step, vs, e, du, inodes, device_bytes)
                    if r["rc"] != 0:
                        break
                shutil.rmtree(db, ignore_errors=True)
    if not args.db_root:
        shutil.rmtree(db_root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
