#!/usr/bin/env python3
"""Interrupting benchmarks/compare (Ctrl-C = SIGINT) leaves results.csv and
results.md holding exactly the runs that finished, marked partial, and no
database, no db_bench process and none of the spinning processes of --busy
behind. The rows record the load and the --busy count they ran beside.

Usage: compare_interrupt_test.py <compare script> <bin dir>
The databases go to compare's default place, a new folder under $TMPDIR,
which this test points into its own scratch folder so it can see that
nothing is left there.
"""

import csv
import os
import shutil
import signal
import subprocess
import sys
import tempfile


def main():
    compare, bin_dir = sys.argv[1], sys.argv[2]
    if not os.access(os.path.join(bin_dir, "db_bench"), os.X_OK):
        print("SKIP: db_bench not built")
        return 77
    scratch = tempfile.mkdtemp(prefix="compare_interrupt.",
                               dir=os.environ.get("DELSM_TEST_DIR") or None)
    try:
        return run(compare, bin_dir, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run(compare, bin_dir, scratch):
    tmp = os.path.join(scratch, "tmp")
    out = os.path.join(scratch, "out")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    argv = [sys.executable, compare, "--bin-dir", bin_dir, "--engines", "delsm",
            "--num", "20000", "--value-sizes", "256,1024",
            "--workloads", "fillrandom,overwrite,readrandom,fillseq", "--out", out,
            "--busy", "1"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    seen, finished = [], 0
    # Interrupt once the first run is done and the second has started.
    for line in proc.stderr:
        seen.append(line.rstrip("\n"))
        if " done in " in line:
            finished += 1
        if line.startswith("[2 of "):
            # What is on disk now is the first run's report.
            with open(os.path.join(out, "results.csv")) as f:
                rows_before = list(csv.DictReader(f))
            proc.send_signal(signal.SIGINT)
            break
    else:
        print("FAIL: compare ended before its second run:\n" + "\n".join(seen))
        return 1
    rest = proc.stderr.read()
    rc = proc.wait()
    seen += rest.splitlines()
    finished += rest.count(" done in ")
    log = "\n".join(seen)
    failed = False

    def fail(msg):
        nonlocal failed
        failed = True
        print("FAIL: " + msg)

    if rc != 130:
        fail("exit status %d, want 130 (interrupted)" % rc)
    if "Traceback" in log:
        fail("a traceback:\n" + log)
    if "interrupted" not in log:
        fail("no word of the interruption on stderr:\n" + log)
    # Progress lines: "[i of N] tag (elapsed ..., ~... left)".
    if "[1 of 8] fillrandom-256-delsm (elapsed" not in log or "left)" not in log:
        fail("no 'i of N, elapsed, estimate' progress:\n" + log)
    with open(os.path.join(out, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    runs = sorted(set((r["workload"], r["value_size"], r["engine"]) for r in rows))
    if len(runs) != finished:
        fail("results.csv holds %d runs, %d finished: %s" % (len(runs), finished, runs))
    if ("fillrandom", "256", "delsm") not in runs:
        fail("results.csv lacks the first run: %s" % runs)
    if not rows_before or rows_before[0]["workload"] != "fillrandom":
        fail("the first run's row was not on disk when the second began")
    if any(not r["micros_op"] for r in rows):
        fail("a row without micros/op: %s" % rows)
    if any(r["busy"] != "1" or float(r["load1"]) < 0 for r in rows):
        fail("a row without its load or --busy count: %s" % rows)
    with open(os.path.join(out, "results.md")) as f:
        md = f.read()
    if "PARTIAL RESULTS: interrupted" not in md or "fillrandom" not in md:
        fail("results.md is not the partial report:\n" + md)
    if "1 spinning processes beside the run" not in md:
        fail("results.md does not say the run was busy:\n" + md)
    leftovers = [os.path.join(d, n) for d, dirs, files in os.walk(tmp) for n in dirs + files]
    if leftovers:
        fail("left behind: %s" % leftovers)
    for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if tmp.encode() in cmd:
            fail("a process still runs on the scratch folder: %s" % cmd)
        # A spinner of --busy inherited compare's environment, TMPDIR too.
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if b"TMPDIR=" + tmp.encode() in environ:
            fail("a process started by compare still runs: %s" % cmd)
    if failed:
        return 1
    print("ok: interrupted after %d finished run(s); CSV and markdown kept, "
          "nothing left in %s" % (finished, tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
