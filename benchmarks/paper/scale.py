#!/usr/bin/env python3
"""How DeLSM's random fill scales with the number of keys, beside LevelDB.

The paper's headline claim is that DeLSM's advantage over LevelDB in random
writes of large values grows with the data (18.9x LevelDB's fillrandom speed
at 10M keys of 4 KiB, the paper's Figure 5b). This runner fills a fresh
database with N random keys for each engine and each N, one run at a time,
each on a file system of its own, and reports per run:

  fill    wall and CPU (user + system) microseconds per put, latency P99,
          P99.9 and maximum (db_bench --histogram=1), bytes the process wrote
          (/proc/<pid>/io write_bytes), bytes the device wrote
          (/sys/block/<loop>/stat after sync), peak RSS (VmHWM), and the
          kernel's dentry and ext4 inode caches after the fill
          (/proc/slabinfo, megabytes);
  open    wall seconds of a process that opens the filled database, prints
          its stats (db_bench --benchmarks=stats) and closes it, after every
          cache of the file system was dropped (it includes any compaction
          the Open starts and the Close waits for);
  read    random-read latency (mean, P50, P99) of --reads gets after that.

Each run gets a fresh ext4 (default mkfs.ext4 options, journal, no
discard; inode tables initialised at format time so that the kernel's lazy
initialisation does not write during the measurement) on a sparse loop
image big enough for N values and for N inodes at ext4's default one inode
per 16 KiB. Needs root. Engines: delsm (default mode), delsm-vsp
(values_stay_put=1), leveldb (db_bench_leveldb: a Release LevelDB when
benchmarks/peers/build.sh built one).

--fit CSV prints the runs as a markdown table and fits wall and CPU
microseconds per put against log10(N) for each engine, on the newest run
of each engine and N (least squares:
us/op = a + b * log10 N, i.e. a constant per level a key descends) and
projects 100M keys; it prints where the model misses a
measured point by more than 15%.

  sudo benchmarks/paper/scale.py --nums 100000,1000000 --out scale-quick
  sudo nice benchmarks/paper/scale.py --nums 100000,1000000,3000000,10000000 \\
      --engines delsm,delsm-vsp --out scale-4k
  benchmarks/paper/scale.py --fit scale-4k/scale.csv
  benchmarks/paper/scale.py --fit scale-4k/scale.csv --date 2026-11-27
  benchmarks/paper/scale.py --fit scale-4k/scale.csv --newest
"""

import argparse
import csv
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ENGINES = {
    "delsm": ("db_bench", ""),
    "delsm-vsp": ("db_bench", "values_stay_put=1"),
    "leveldb": ("db_bench_leveldb", ""),
}
FIELDS = ["engine", "num", "value_size", "fill_us_op", "fill_cpu_us_op",
          "p99_us", "p999_us", "max_us", "user_bytes", "proc_write_bytes",
          "dev_write_bytes", "dev_amp", "peak_rss_mb", "dentry_mb",
          "ext4_inode_mb", "inodes_used", "open_cold_s", "read_us",
          "read_p50_us", "read_p99_us", "read_found", "load1"]


def run(argv, **kw):
    return subprocess.run(argv, check=True, **kw)


def dev_written_bytes(dev):
    # /sys/block/<dev>/stat: field 7 is sectors written, 512 bytes each.
    with open("/sys/block/%s/stat" % dev) as f:
        return int(f.read().split()[6]) * 512


def slab_mb(names):
    out = {}
    with open("/proc/slabinfo") as f:
        for line in f:
            p = line.split()
            if p and p[0] in names:
                out[p[0]] = int(p[1]) * int(p[3]) / 1e6
    return out


class LoopFs:
    """A fresh ext4 on a sparse loop image; removed on exit."""

    def __init__(self, size_bytes, image_dir):
        self.image = tempfile.mktemp(prefix="delsm-scale-", suffix=".img",
                                     dir=image_dir)
        self.mnt = tempfile.mkdtemp(prefix="delsm-scale-mnt-")
        self.size = size_bytes
        self.dev = None

    def __enter__(self):
        with open(self.image, "wb") as f:
            f.truncate(self.size)
        run(["mkfs.ext4", "-q", "-F", "-E",
             "lazy_itable_init=0,lazy_journal_init=0", self.image])
        self.mount()
        return self

    def mount(self):
        run(["mount", "-o", "loop", self.image, self.mnt])
        src = subprocess.run(["findmnt", "-n", "-o", "SOURCE", self.mnt],
                             check=True, capture_output=True,
                             text=True).stdout.strip()
        self.dev = os.path.basename(src)

    def drop_caches(self):
        """Unmount (writes everything back), drop the image's host pages,
        mount again: the file system starts with no cached inode, dentry or
        page."""
        run(["umount", self.mnt])
        fd = os.open(self.image, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
        self.mount()

    def __exit__(self, *exc):
        subprocess.run(["umount", self.mnt])
        os.rmdir(self.mnt)
        os.unlink(self.image)


def db_bench(binary, options, args, log):
    """Runs one db_bench; returns (stdout, wall s, cpu s)."""
    env = dict(os.environ)
    env["DELSM_OPTIONS"] = options
    start = time.monotonic()
    with open(log, "w") as out:
        proc = subprocess.Popen([binary] + args, stdout=out,
                                stderr=subprocess.STDOUT, env=env)
        _, status, ru = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    rc = os.waitstatus_to_exitcode(status)
    with open(log) as f:
        text = f.read()
    if rc != 0:
        sys.exit("scale: %s exited %d; see %s" % (binary, rc, log))
    return text, wall, ru.ru_utime + ru.ru_stime


def grab(pattern, text, conv=float, default=None):
    m = re.search(pattern, text, re.M)
    return conv(m.group(1)) if m else default


def percentiles(text, name):
    """P50/P99/P99.9 and Max of the histogram printed after `name`."""
    part = text[text.find(name + " "):] if name + " " in text else text
    return {
        "p50": grab(r"P50: ([\d.]+)", part),
        "p99": grab(r"P99: ([\d.]+)", part),
        "p999": grab(r"P99\.9: ([\d.]+)", part),
        "max": grab(r"Max: ([\d.]+)", part),
        "avg": grab(r"Average: ([\d.]+)", part),
    }


def one_run(engine, num, args, out_dir):
    binary, options = ENGINES[engine]
    binary = os.path.join(args.bin_dir, binary)
    vs = args.value_size
    # Room for the values as the engine stores them, with LevelDB's
    # compaction headroom (2.2x), and for DeLSM one inode per value at
    # ext4's default ratio (one inode per 16 KiB), whichever is larger.
    # LevelDB keeps a few thousand table files and stores db_bench's values
    # compressed to half (--compression_ratio 0.5, snappy on), so its image
    # is sized for that: an image sized for DeLSM's inodes lets ext4 spread
    # LevelDB's rewrites over 200 GB of a sparse file at 10M keys, more
    # than the host holds.
    stored = vs // 2 if engine == "leveldb" else vs
    size = max(16 << 30, int(num * (stored + 64) * 2.2) + (8 << 30))
    if engine != "leveldb":
        size = max(size, int(num * 1.25 * 16384))
    size = (size + (1 << 20) - 1) >> 20 << 20
    # The image is sparse: it takes host space only as the run writes, so
    # the host's file system must have room for what the run will write,
    # whatever else is using it (a host that fills up fails the run with
    # ENOSPC inside the image, hours in). Each value takes at least one
    # 4 KiB block in DeLSM; LevelDB's rewrites can touch its whole image.
    if engine == "leveldb":
        need = size + (2 << 30)
    else:
        need = int(num * max(vs + 64, 4096) * 1.3) + (4 << 30)
    free = shutil.disk_usage(args.image_dir).free
    if free < need:
        sys.exit("scale: %s N=%d needs about %.1f GB free in %s, has %.1f GB"
                 % (engine, num, need / 1e9, args.image_dir, free / 1e9))
    tag = "%s-%d" % (engine, num)
    row = {"engine": engine, "num": num, "value_size": vs,
           "load1": "%.1f" % os.getloadavg()[0]}
    with LoopFs(size, args.image_dir) as fs:
        db = os.path.join(fs.mnt, "db")
        common = ["--db=" + db, "--num=%d" % num, "--value_size=%d" % vs,
                  "--bloom_bits=10"]
        run(["sync"])
        dev0 = dev_written_bytes(fs.dev)
        text, wall, cpu = db_bench(
            binary, options,
            common + ["--benchmarks=fillrandom", "--histogram=1"],
            os.path.join(out_dir, tag + "-fill.log"))
        run(["sync"])
        dev1 = dev_written_bytes(fs.dev)
        slabs = slab_mb({"dentry", "ext4_inode_cache"})
        st = os.statvfs(fs.mnt)
        pct = percentiles(text, "fillrandom")
        user = grab(r"user bytes written: (\d+)", text, int, 0)
        row.update({
            "fill_us_op": grab(r"fillrandom\s*:\s*([\d.]+) micros/op", text),
            "fill_cpu_us_op": "%.2f" % (cpu * 1e6 / num),
            "p99_us": pct["p99"], "p999_us": pct["p999"], "max_us": pct["max"],
            "user_bytes": user,
            "proc_write_bytes": grab(r"process write_bytes: (\d+)", text, int),
            "dev_write_bytes": dev1 - dev0,
            "dev_amp": "%.2f" % ((dev1 - dev0) / user) if user else "",
            "peak_rss_mb": "%.1f" % (grab(r"VmHWM\): (\d+) kB", text, int, 0)
                                     / 1024),
            "dentry_mb": "%.1f" % slabs.get("dentry", 0),
            "ext4_inode_mb": "%.1f" % slabs.get("ext4_inode_cache", 0),
            "inodes_used": st.f_files - st.f_ffree,
        })
        fs.drop_caches()
        db = os.path.join(fs.mnt, "db")
        common[0] = "--db=" + db
        _, open_wall, _ = db_bench(
            binary, options, common + ["--use_existing_db=1", "--benchmarks=stats"],
            os.path.join(out_dir, tag + "-open.log"))
        reads = min(num, args.reads)
        text, _, _ = db_bench(
            binary, options,
            common + ["--use_existing_db=1", "--benchmarks=readrandom",
                      "--reads=%d" % reads, "--histogram=1"],
            os.path.join(out_dir, tag + "-read.log"))
        pct = percentiles(text, "readrandom")
        row.update({
            "open_cold_s": "%.3f" % open_wall,
            "read_us": grab(r"readrandom\s*:\s*([\d.]+) micros/op", text),
            "read_p50_us": pct["p50"], "read_p99_us": pct["p99"],
            "read_found": grab(r"\((\d+) of \d+ found\)", text, int),
        })
    return row


def table(csv_path, newest=False):
    """The runs of csv_path (with `newest`, the newest run of each engine
    and N) as a markdown table, and each engine's ratio to LevelDB's wall
    time at the same N and date where both ran."""
    rows = list(csv.DictReader(open(csv_path)))
    if newest:
        rows = latest_runs(rows)
    cols = [("engine", "engine"), ("num", "N"), ("date", "date"),
            ("fill_us_op", "µs/put"),
            ("fill_cpu_us_op", "CPU µs/put"), ("p999_us", "P99.9 µs"),
            ("max_us", "max µs"), ("dev_amp", "device ÷ user"),
            ("peak_rss_mb", "RSS MB"), ("dentry_mb", "dentry MB"),
            ("ext4_inode_mb", "inode cache MB"), ("open_cold_s", "cold Open s"),
            ("read_us", "read µs"), ("read_p50_us", "read P50 µs"),
            ("load1", "load")]
    print("| " + " | ".join(h for _, h in cols) + " | vs LevelDB |")
    print("|" + "---|" * (len(cols) + 1))
    # A ratio pairs runs of one N and one date (one session's load).
    level = {(r["num"], r.get("date")): float(r["fill_us_op"]) for r in rows
             if r["engine"] == "leveldb" and r["fill_us_op"]}
    for r in sorted(rows, key=lambda r: (int(r["num"]), r.get("date") or "",
                                         r["engine"])):
        vs = ""
        key = (r["num"], r.get("date"))
        if r["engine"] != "leveldb" and key in level:
            vs = "%.2f×" % (level[key] / float(r["fill_us_op"]))
        cells = []
        for k, _ in cols:
            v = r[k]
            try:
                f = float(v)
                v = "{:,}".format(int(f)) if k == "num" else (
                    "%.0f" % f if f >= 100 else "%.1f" % f)
            except ValueError:
                pass
            cells.append(v)
        print("| " + " | ".join(cells) + " | " + vs + " |")


def latest_runs(rows):
    """The newest run of each (engine, N): rows in file order, a later date
    replacing an earlier one (an older row measured an older engine, often
    at another load)."""
    newest = {}
    for r in rows:
        key = (r["engine"], r["num"])
        if key not in newest or (r.get("date") or "") >= \
                (newest[key].get("date") or ""):
            newest[key] = r
    return list(newest.values())


def fit(csv_path, date=None):
    rows = list(csv.DictReader(open(csv_path)))
    if date:
        rows = [r for r in rows if r.get("date") == date]
    rows = latest_runs(rows)
    print("Fitted to the newest run of each engine and N%s."
          % (" of " + date if date else ""))
    # Wall time moves with the machine's load; CPU time per put depends
    # on it less, so both are fitted.
    for column, what in (("fill_us_op", "wall us/put"),
                         ("fill_cpu_us_op", "CPU us/put")):
        for engine in sorted(set(r["engine"] for r in rows)):
            fit_one(rows, engine, column, what)


def fit_one(rows, engine, column, what):
    pts = [(math.log10(int(r["num"])), float(r[column]))
           for r in rows if r["engine"] == engine and r[column]]
    if len(pts) < 2:
        print("%s: fewer than two points, no fit" % engine)
        return
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    b = sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else 0.0
    a = my - b * mx
    print("%s, %s = %.2f + %.2f * log10(N); projected at 100M: %.1f"
          % (engine, what, a, b, a + b * 8))
    for x, y in pts:
        model = a + b * x
        flag = "  <-- misses by %+.0f%%" % ((y - model) / model * 100) \
            if abs(y - model) > 0.15 * model else ""
        print("   N=%-10d measured %8.2f  model %8.2f%s"
              % (round(10 ** x), y, model, flag))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--engines", default="delsm,delsm-vsp,leveldb")
    ap.add_argument("--nums", default="100000,1000000")
    ap.add_argument("--value-size", type=int, default=4096)
    ap.add_argument("--reads", type=int, default=100000)
    ap.add_argument("--bin-dir", default="build-release/benchmarks")
    ap.add_argument("--image-dir", default="/var/tmp")
    ap.add_argument("--out", default="scale-" + time.strftime("%Y%m%d-%H%M%S"))
    ap.add_argument("--fit", metavar="CSV",
                    help="print the table, fit and project; run nothing")
    ap.add_argument("--newest", action="store_true",
                    help="with --fit: tabulate only the newest run of each "
                    "engine and N")
    ap.add_argument("--date", metavar="YYYY-MM-DD",
                    help="with --fit: fit only the runs of that date (one "
                    "session's engines and load)")
    args = ap.parse_args()
    if args.fit:
        table(args.fit, args.newest)
        print()
        fit(args.fit, args.date)
        return
    if os.geteuid() != 0:
        sys.exit("scale: needs root (loop devices and mounts)")
    engines = args.engines.split(",")
    for e in engines:
        if e not in ENGINES:
            sys.exit("scale: unknown engine %r (know: %s)"
                     % (e, ",".join(ENGINES)))
        if not os.access(os.path.join(args.bin_dir, ENGINES[e][0]), os.X_OK):
            sys.exit("scale: no %s in %s" % (ENGINES[e][0], args.bin_dir))
    os.makedirs(args.out, exist_ok=True)
    csv_path = os.path.join(args.out, "scale.csv")
    new = not os.path.exists(csv_path)
    with open(csv_path, "a", newline="") as f:
        w = csv.DictWriter(f, FIELDS, lineterminator="\n")
        if new:
            w.writeheader()
        # Smaller N first for every engine, engines interleaved per N.
        for num in [int(x) for x in args.nums.split(",")]:
            for e in engines:
                print("scale: %s N=%d ..." % (e, num), flush=True)
                row = one_run(e, num, args, args.out)
                w.writerow(row)
                f.flush()
                print("  " + ", ".join("%s=%s" % (k, row[k]) for k in FIELDS
                                       if k not in ("engine", "num")),
                      flush=True)
    fit(csv_path)


if __name__ == "__main__":
    main()
