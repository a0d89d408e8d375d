"""What the scripts reproducing the paper's evaluation share (fig5.py,
fig6.py, table2.py): the --scale and common flags, the engines and their
labels, a dedicated loop-mounted ext4 for the databases when run as root,
tables with the paper's printed figures beside ours, CSV and charts.

Engines are those of benchmarks/compare (DeLSM, LevelDB, RocksDB, BlobDB,
PebblesDB, BoLT); an engine whose db_bench is not built is skipped with a
line saying so. The paper's other competitors have no code to run: WiscKey
and LDS were the authors' own implementations. RocksDB's BlobDB separates
values into blob files with garbage collection, as WiscKey does, and is the
nearest engine we have; where the paper prints a WiscKey figure we show it
beside BlobDB's and say so, as orientation, not as a like-for-like check.
"""

import argparse
import csv
import datetime
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

_loader = importlib.machinery.SourceFileLoader(
    "compare", os.path.join(REPO, "benchmarks", "compare"))
_spec = importlib.util.spec_from_loader("compare", _loader)
compare = importlib.util.module_from_spec(_spec)
_loader.exec_module(compare)

# The engines the paper's figures are drawn for, in column order.
PAPER_ENGINES = "delsm,delsm-pure,leveldb,rocksdb,blobdb,pebblesdb,bolt"
LABELS = {
    "delsm": "DeLSM",
    "delsm-pure": "DeLSM, every value a file",
    "leveldb": "LevelDB",
    "rocksdb": "RocksDB",
    "blobdb": "BlobDB",
    "blobdb-nogc": "BlobDB (no GC)",
    "pebblesdb": "PebblesDB",
    "bolt": "BoLT",
}
# Our engine -> the paper's row or bar it is set beside. BlobDB stands in
# for WiscKey (see the module comment).
PAPER_NAME = {
    "delsm": "DeLSM",
    "delsm-pure": "DeLSM",
    "leveldb": "LevelDB",
    "pebblesdb": "PebblesDB",
    "bolt": "BoLT",
    "blobdb": "WiscKey",
}
WISCKEY_NOTE = ("BlobDB (RocksDB's key-value separation with blob GC) stands in "
                "for the paper's WiscKey, the authors' own implementation; its "
                "figures are set beside WiscKey's for orientation only.")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def arg_parser(description, paper_n):
    """Flags every script takes. paper_n: the paper's number of pairs."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--scale", type=float, default=0.002,
                    help="fraction of the paper's %s pairs (default 0.002, the "
                         "quick pass; 1 = the paper's size)" % format(paper_n, ","))
    ap.add_argument("--engines", default=PAPER_ENGINES,
                    help="subset of " + ",".join(compare.ENGINES))
    ap.add_argument("--bin-dir", help="folder with the db_bench* binaries "
                    "(default: build-release/benchmarks, else the newest build*)")
    ap.add_argument("--out", help="output folder (default: out/paper-<name>-<time>)")
    ap.add_argument("--db-root", help="put the databases here instead of on a "
                    "dedicated loop-mounted ext4 (the default when root)")
    ap.add_argument("--loop-size", help="size of the loop image (default: from "
                    "the scale, at least 4G)")
    ap.add_argument("--timeout", type=float, help="seconds per db_bench run")
    ap.add_argument("--seed", type=int, default=0, help="db_bench --seed (0: fresh)")
    return ap


def scaled(paper_n, scale, floor=1000):
    return max(floor, int(round(paper_n * scale)))


def bin_dir(args):
    if args.bin_dir:
        return args.bin_dir
    release = os.path.join(REPO, "build-release", "benchmarks")
    if os.access(os.path.join(release, "db_bench"), os.X_OK):
        return release
    found = compare.find_bin_dir(REPO)
    if not found:
        sys.exit("paper: no build*/benchmarks with db_bench binaries; build them "
                 "(benchmarks/paper/all.sh does) or pass --bin-dir")
    return found


def engines(args, bins):
    """The requested engines whose binary is built; a line for each other."""
    out = []
    for e in [e for e in args.engines.split(",") if e]:
        if e not in compare.ENGINES:
            sys.exit("paper: unknown engine %r (know: %s)" % (e, ",".join(compare.ENGINES)))
        binary = os.path.join(bins, compare.ENGINES[e][0])
        if os.access(binary, os.X_OK):
            out.append(e)
        else:
            how = compare.HOW_TO_BUILD.get(e)
            log("paper: skipping %s: %s not built%s" % (
                e, binary, "; to build it: " + how if how else ""))
    if not out:
        sys.exit("paper: no engine binary found in " + bins)
    return out


def setup(args, paper_n, name):
    """What every figure's script starts from: the scaled number of pairs,
    the binaries' folder, the engines that are built, and the output
    folder."""
    bins = bin_dir(args)
    return scaled(paper_n, args.scale), bins, engines(args, bins), out_dir(args, name)


def out_dir(args, name):
    d = args.out or os.path.join(
        REPO, "out", "paper-%s-%s" % (name, datetime.datetime.now().strftime("%Y%m%d-%H%M%S")))
    os.makedirs(d, exist_ok=True)
    return d


class Storage:
    """Where the databases go. As root (unless --db-root, or BENCH_LOOP=0):
    a dedicated ext4 (default format, journal on) on a loop device made for
    this run, so its device counters see only the benchmark; inode tables
    and journal are zeroed by mkfs rather than by the kernel's lazy-init
    thread after mounting, whose writes would otherwise be counted. Else
    --db-root or a folder under /var/tmp, with no device counters."""

    # Seconds between the trims of a mounted loop image (see _trim_while_mounted).
    TRIM_SECONDS = 30

    def __init__(self, args, name, size_bytes, inodes):
        self.image = self.mnt = self.dev = None
        self._tmp = None
        self._trimmer = None
        self._stop = threading.Event()
        use_loop = (not args.db_root and os.environ.get("BENCH_LOOP", "1") == "1"
                    and os.geteuid() == 0 and shutil.which("mkfs.ext4")
                    and shutil.which("losetup"))
        if use_loop:
            size = args.loop_size or "%dM" % max(4096, size_bytes // 1048576 + 1)
            fd, self.image = tempfile.mkstemp(prefix="delsm-paper-%s-" % name,
                                              suffix=".img", dir="/var/tmp")
            os.close(fd)
            subprocess.run(["truncate", "-s", size, self.image], check=True)
            mkfs = ["mkfs.ext4", "-q", "-F", "-E",
                    "lazy_itable_init=0,lazy_journal_init=0"]
            if inodes:
                mkfs += ["-N", str(inodes)]
            try:
                subprocess.run(mkfs + [self.image], check=True)
                self.mnt = tempfile.mkdtemp(prefix="delsm-paper-%s-mnt-" % name)
                subprocess.run(["mount", "-o", "loop", self.image, self.mnt], check=True)
            except subprocess.CalledProcessError:
                self.close()
                raise
            src = subprocess.run(["findmnt", "-n", "-o", "SOURCE", self.mnt],
                                 capture_output=True, text=True, check=True).stdout.strip()
            self.dev = os.path.basename(src)
            self.root = os.path.join(self.mnt, "db")
            os.makedirs(self.root)
            self.where = ("a dedicated ext4 of %s on /dev/%s (image %s), mounted at %s"
                          % (size, self.dev, self.image, self.mnt))
            self._trimmer = threading.Thread(target=self._trim_while_mounted,
                                             daemon=True)
            self._trimmer.start()
        else:
            if args.db_root:
                self.root = args.db_root
                os.makedirs(self.root, exist_ok=True)
            else:
                self._tmp = tempfile.mkdtemp(prefix="delsm-paper-%s-" % name, dir="/var/tmp")
                self.root = self._tmp
            why = ("--db-root" if args.db_root else "not root" if os.geteuid() != 0
                   else "BENCH_LOOP=0" if os.environ.get("BENCH_LOOP", "1") != "1"
                   else "no mkfs.ext4/losetup")
            self.where = ("%s (a shared file system: %s; no device counters)"
                          % (self.root, why))
        log("paper: databases on " + self.where)

    @property
    def trims(self):
        """Whether the databases are on a loop image whose freed blocks
        should go back to the host (trim) after each database is removed."""
        return self.dev is not None

    def trim(self):
        """fstrim of the loop image's file system after a database was
        removed: the sparse image shrinks on its host (a run at the paper's
        scale writes and removes several times the host's free space).
        Discards are not counted as sectors written. No-op without a loop
        image."""
        if self.dev:
            subprocess.run(["fstrim", self.mnt], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)

    def _trim_while_mounted(self):
        """fstrim every TRIM_SECONDS while a run goes on. ext4 takes new
        blocks before it reuses freed ones, so an engine that writes and
        deletes files (a LevelDB fill of 3M x 4 KiB writes about 12 times its
        data) grows the sparse image toward its full size within one run,
        past the host's free space: one such run failed with the host's disk
        full. Discards are not sectors written, so the device counters do
        not see the trims."""
        while not self._stop.wait(self.TRIM_SECONDS):
            self.trim()

    def device_bytes_written(self):
        """Bytes written to the loop device so far, after syncing the file
        system (data, metadata and journal all written back); None without
        a dedicated device."""
        if not self.dev:
            return None
        subprocess.run(["sync", "-f", self.mnt], check=True)
        with open("/sys/block/%s/stat" % self.dev) as f:
            fields = f.read().split()
        return int(fields[6]) * 512  # sectors written, in 512-byte units

    def close(self):
        self._stop.set()
        if self._trimmer:
            self._trimmer.join()
            self._trimmer = None
        if self.mnt:
            subprocess.run(["umount", self.mnt], check=False)
            try:
                os.rmdir(self.mnt)
            except OSError:
                pass
        if self.image and os.path.exists(self.image):
            os.unlink(self.image)
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)
        self.mnt = self.image = self._tmp = None


def fmt(v, spec=".2f", none="-"):
    return none if v is None else format(v, spec)


def size_name(vs):
    return "%d KiB" % (vs // 1024) if vs >= 1024 and vs % 1024 == 0 else "%d B" % vs


def write_csv(path, rows, fields):
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    os.replace(path + ".tmp", path)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def report(out, name, header, tables):
    """Prints header lines and tables ((title, head, body), ...) and writes
    them to out/<name>.md; returns the text."""
    text = "\n".join(header) + "\n\n" + compare.render_text(tables)
    with open(os.path.join(out, name + ".md"), "w") as f:
        f.write("\n".join("- " + h for h in header) + "\n\n" +
                compare.render_markdown(tables))
    print(text)
    return text


def pyplot():
    """matplotlib.pyplot, or None (with a line saying why)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError as e:
        log("paper: no chart: %s cannot import matplotlib (%s); Debian: apt-get "
            "install python3-matplotlib, and run with /usr/bin/python3" % (sys.executable, e))
        return None


def run_compare(bins, out, db_root, engines_, workloads, value_sizes, num, seed,
                timeout, extra="", trim=False, reads=None):
    """Runs benchmarks/compare and returns the rows of its results.csv;
    `trim`: compare's --trim (Storage.trims); `reads`: compare's --reads
    (reads per read run; None: as many as the pairs, db_bench's default)."""
    argv = [sys.executable, os.path.join(REPO, "benchmarks", "compare"),
            "--bin-dir", bins, "--out", out, "--db-root", db_root,
            "--engines", ",".join(engines_), "--workloads", ",".join(workloads),
            "--value-sizes", ",".join(str(v) for v in value_sizes),
            "--num", str(num), "--seed", str(seed)]
    if extra:
        argv.append("--extra=" + extra)  # "--extra X" would read X as a flag
    if timeout:
        argv += ["--timeout", str(timeout)]
    if trim:
        argv.append("--trim")
    if reads:
        argv += ["--reads", str(reads)]
    start = time.monotonic()
    with open(os.path.join(out + ".log"), "w") as f:
        r = subprocess.run(argv, stdout=f)
    log("paper: compare finished in %s (rc %d; its table: %s.log)" % (
        compare.hms(time.monotonic() - start), r.returncode, out))
    path = os.path.join(out, "results.csv")
    if not os.path.exists(path):
        sys.exit("paper: compare wrote no %s (see %s.log)" % (path, out))
    return read_csv(path)


def micros(rows, engine, line, value_size):
    """micros/op of one compare row, or None."""
    for r in rows:
        if (r["engine"] == engine and r["line"] == line
                and int(r["value_size"]) == value_size and r["micros_op"]):
            return float(r["micros_op"])
    return None
