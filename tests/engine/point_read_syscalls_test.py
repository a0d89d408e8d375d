#!/usr/bin/env python3
"""A point read of a value in its own KV file costs exactly three system
calls: openat with O_NOATIME, one pread of the value's known
length (plus the one byte that proves the file is not longer), close.

Runs DeLSM's db_bench under strace: a fill in pure mode (every value a KV
file), then readrandom on the existing database. Every openat of a KV file
(a name with '@') by the reading process must be followed, on that
descriptor, by one pread64 and then close, and nothing else touching it.

Usage: point_read_syscalls_test.py DB_BENCH. Exits 77 (skipped) only when
strace is not installed (scripts/setup.sh and .ci/run install it).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

VALUE_SIZE = 4096
NUM = 2000
READS = 300


def main():
    db_bench = sys.argv[1]
    strace = shutil.which("strace")
    if strace is None:
        print("strace is not installed: skipped")
        return 77
    with tempfile.TemporaryDirectory(
            prefix="point_read_syscalls.",
            dir=os.environ.get("DELSM_TEST_DIR") or None) as tmp:
        db = os.path.join(tmp, "db")
        common = [db_bench, "--db=" + db, "--num=%d" % NUM,
                  "--value_size=%d" % VALUE_SIZE, "--inline_threshold=0",
                  "--compression=0"]
        subprocess.run(common + ["--benchmarks=fillrandom"], check=True,
                       stdout=subprocess.DEVNULL)
        # The reading run's open may replay and flush the fill's WAL (that
        # writes KV files, which are not reads and are left out below).
        trace = os.path.join(tmp, "trace")
        subprocess.run([strace, "-f", "-qq", "-o", trace,
                        "-e", "trace=openat,pread64,read,close,fstat,"
                        "newfstatat,statx,lseek,mmap,fadvise64,readahead"] +
                       common + ["--benchmarks=readrandom",
                                 "--use_existing_db=1", "--reads=%d" % READS,
                                 "--threads=1"],
                       check=True, stdout=subprocess.DEVNULL)
        with open(trace) as f:
            lines = f.read().splitlines()

    call = re.compile(r"^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)")
    open_kv = re.compile(r'^\d+, "([^"]*@[^"]*)", (\S+)')
    # Per thread: the KV file descriptor open and the calls made on it.
    pending = {}
    reads = 0
    failures = []
    for line in lines:
        m = call.match(line)
        if not m:
            continue  # unfinished/resumed pairs never occur for these calls
        tid, name, args, result = m.group(1), m.group(2), m.group(3), int(
            m.group(4))
        if name == "openat":
            o = open_kv.match(args)
            # Only reads: the reopen may flush the fill's WAL, creating
            # KV files.
            if o and result >= 0 and o.group(2).startswith("O_RDONLY"):
                if "O_NOATIME" not in o.group(2):
                    failures.append("opened without O_NOATIME: " + line)
                pending[tid] = (result, o.group(1), [])
            continue
        if tid not in pending:
            continue
        fd, kv_name, calls = pending[tid]
        first_arg = args.split(",")[0].strip()
        if first_arg != str(fd) and not (name in ("fstat", "newfstatat",
                                                  "statx") and
                                         kv_name in args):
            continue
        calls.append((name, args, result))
        if name == "close":
            del pending[tid]
            reads += 1
            shape = [c[0] for c in calls]
            if shape != ["pread64", "close"]:
                failures.append("%s: %s" % (kv_name, " ".join(shape)))
                continue
            _, pargs, got = calls[0]
            parts = [p.strip() for p in pargs.rsplit(",", 2)]
            asked, offset = int(parts[1]), int(parts[2])
            if offset != 0 or got != VALUE_SIZE or asked != VALUE_SIZE + 1:
                failures.append("%s: pread of %d bytes at %d returned %d "
                                "(value %d bytes)" % (kv_name, asked, offset,
                                                      got, VALUE_SIZE))
    print("KV file reads traced: %d" % reads)
    if pending:
        failures.append("KV files opened and never closed: %d" % len(pending))
    # The value cache serves repeated keys; most of the reads go to files.
    if reads < READS // 2:
        failures.append("only %d KV file reads for %d point reads" %
                        (reads, READS))
    for f in failures[:20]:
        print("FAIL", f)
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("ok: every KV file read was openat(O_NOATIME), one pread64, close")
    return 0


if __name__ == "__main__":
    sys.exit(main())
