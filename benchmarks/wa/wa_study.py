#!/usr/bin/env python3
"""Write-amplification study: bytes written per user byte, measured three ways.

For every workload (the paper's three-stage writedeletewrite, and plain
fillrandom), value size and engine (DeLSM, LevelDB, RocksDB, BlobDB) it runs
one db_bench process in a fresh database directory and measures the bytes
written by

  iotop  iotop in batch mode (-b -o -a -k -P), accumulated writes of the
         db_bench process (all its threads) sampled every --iotop-interval (iotop
         shows write_bytes - cancelled_write_bytes);
  proc   /proc/<pid>/io write_bytes, read before the process is reaped
         (also cancelled_write_bytes: dirty pages truncated before writeback);
  ext4   with --loop-image (root only): the session_write_kbytes counter of a
         dedicated ext4 file system (journal on, default format, no discard)
         on a loop device this script creates, read after `sync -f` before
         and after each run, so journal and metadata writeback are included.

WA = measured bytes / "user bytes written:" printed by db_bench (keys and
values of puts, keys of deletes). Output in --out: wa.csv, wa.md (a table
shaped like the paper's Table 2 per workload, then every run's details),
wa-<workload>.png (matplotlib, if installed), and each run's log.

    sudo benchmarks/wa/wa_study.py --loop-image /var/tmp/wa.img --out wa-loop
    benchmarks/wa/wa_study.py --db-root /tmp/wa-db --out wa-rootfs

How iotop is read, and what it misses: iotop sums per-thread taskstats
deltas. db_bench is started behind a gate (a shell that waits for a line on
stdin, then execs db_bench under the same pid) that opens only after iotop's
first sample, so the main thread is counted from its first byte, and
exit_hold.so (LD_PRELOAD) holds it in exit() until iotop has sampled it twice
more. A thread is counted from the first sample that sees it to the last
before it ends; db_bench runs every stage in a thread of its own, so each
stage can lose up to an interval at each end. The "iotop/(proc-cancelled)"
column shows how much iotop missed. (`iotop -P -p PID` would count the main
thread only, so iotop watches all processes and the row of our pid is taken.)
"""

import argparse
import csv
import datetime
import importlib.machinery
import importlib.util
import os
import platform
import re
import select
import shutil
import socket
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

METHODS = ("iotop", "proc", "ext4")
IOTOP_ROW = re.compile(r"^\s*(\d+)\s+\S+\s+\S+\s+([0-9.]+) K\s+([0-9.]+) K")


class Iotop:
    """One `iotop -b -o -a -k -P` process; remembers the largest accumulated
    write figure it printed for each pid."""

    def __init__(self, interval):
        self.proc = subprocess.Popen(
            ["iotop", "-b", "-o", "-a", "-k", "-P", "-d", str(interval)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.samples = 0
        self.write_kb = {}
        self.first_sample = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            if line.startswith("Total DISK READ"):
                self.samples += 1
                self.first_sample.set()
                continue
            m = IOTOP_ROW.match(line)
            if m:
                pid, kb = int(m.group(1)), float(m.group(3))
                self.write_kb[pid] = max(kb, self.write_kb.get(pid, 0.0))
        self.first_sample.set()  # iotop ended: do not wait for it

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=5)
        return self.proc.stderr.read()


def iotop_problem():
    """None if iotop can report per-process writes here, else why not."""
    if shutil.which("iotop") is None:
        return "iotop is not installed (apt-get install -y iotop)"
    if os.geteuid() != 0:
        return "iotop needs root (netlink taskstats)"
    try:
        r = subprocess.run(["iotop", "-b", "-n", "1", "-d", "0.1", "-P", "-k"],
                           capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "iotop did not answer within 30 s"
    if r.returncode != 0 or "Total DISK READ" not in r.stdout:
        return "iotop failed (rc %d): %s" % (
            r.returncode, (r.stderr or r.stdout).strip().splitlines()[-1:])
    return None


def sync_fs(path):
    subprocess.run(["sync", "-f", path], check=True)


class LoopFs:
    """A dedicated ext4 file system on a sparse image, loop-mounted."""

    def __init__(self, image, size):
        if os.path.exists(image):
            sys.exit("wa_study: %s exists; pass a new path for the image" % image)
        self.image = image
        subprocess.run(["truncate", "-s", size, image], check=True)
        # Default format (journal on). Inode tables and journal are zeroed
        # now rather than by the kernel's lazy-init thread after mounting,
        # whose writes would otherwise show up in the counters below; the
        # resulting file system is the same.
        subprocess.run(["mkfs.ext4", "-q", "-F", "-E",
                        "lazy_itable_init=0,lazy_journal_init=0", image], check=True)
        self.mnt = tempfile.mkdtemp(prefix="wa-study-mnt-")
        subprocess.run(["mount", "-o", "loop", image, self.mnt], check=True)
        src = subprocess.run(["findmnt", "-n", "-o", "SOURCE", self.mnt],
                             capture_output=True, text=True, check=True).stdout.strip()
        self.dev = os.path.basename(src)
        self.counter = "/sys/fs/ext4/%s/session_write_kbytes" % self.dev
        if not os.path.exists(self.counter):
            self.close()
            sys.exit("wa_study: %s missing" % self.counter)

    def kbytes(self):
        sync_fs(self.mnt)
        with open(self.counter) as f:
            return int(f.read())

    def close(self):
        subprocess.run(["umount", self.mnt], check=False)
        os.rmdir(self.mnt)
        os.unlink(self.image)


def build_exit_hold(out_dir):
    """Compiles exit_hold.c into out_dir; returns the .so path or None."""
    so = os.path.join(out_dir, "exit_hold.so")
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    r = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", so,
                        os.path.join(HERE, "exit_hold.c")], capture_output=True, text=True)
    return so if r.returncode == 0 else None


def run_measured(argv, log, iotop_interval, timeout, exit_hold=None):
    """Runs argv (db_bench) and measures it; returns compare-style results
    plus iotop_write_bytes (None without iotop). With exit_hold (the .so),
    the process is held in exit() until iotop has sampled it twice more."""
    iot = Iotop(iotop_interval) if iotop_interval else None
    env, pass_fds, ours = None, (), None
    if iot and exit_hold:
        ours, theirs = socket.socketpair()
        env = dict(os.environ, LD_PRELOAD=exit_hold, WA_EXIT_HOLD_FD=str(theirs.fileno()))
        pass_fds = (theirs.fileno(),)
    start = time.monotonic()
    held = False
    with open(log + ".out", "w") as out, open(log + ".err", "w") as err:
        proc = subprocess.Popen(["/bin/sh", "-c", 'read _; exec "$@" </dev/null',
                                 "wa-gate"] + argv, env=env, pass_fds=pass_fds,
                                stdin=subprocess.PIPE, stdout=out, stderr=err)
        if ours:
            theirs.close()
        if iot:
            iot.first_sample.wait(timeout=60)
        proc.stdin.write(b"go\n")
        proc.stdin.close()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if ours and not held and select.select([ours], [], [], 0.01)[0]:
                if ours.recv(1):
                    # In exit(): let iotop take two more samples, then go.
                    seen = iot.samples
                    limit = time.monotonic() + 10 * iotop_interval + 5
                    while iot.samples < seen + 2 and time.monotonic() < limit:
                        time.sleep(0.02)
                    held = True
                    try:
                        ours.send(b"g")
                    except OSError:
                        pass
            flags = os.WEXITED | os.WNOWAIT | os.WNOHANG
            if os.waitid(os.P_PID, proc.pid, flags) is not None:
                break
            if deadline is not None and time.monotonic() > deadline:
                proc.kill()
            if not ours or held:
                time.sleep(0.01)
        io = compare.proc_io(proc.pid)
        _, status, _ = os.wait4(proc.pid, 0)
        rc = os.waitstatus_to_exitcode(status)
        proc.returncode = rc
        if ours:
            ours.close()
    wall = time.monotonic() - start
    iotop_bytes, iotop_err = None, ""
    if iot:
        iotop_err = iot.stop()
        kb = iot.write_kb.get(proc.pid)
        # A process that wrote nothing is not listed by -o: 0, not unknown.
        iotop_bytes = None if iot.samples == 0 else int((kb or 0) * 1024)
    res = {"rc": rc, "wall_s": wall, "write_bytes": io.get("write_bytes"),
           "cancelled_write_bytes": io.get("cancelled_write_bytes"),
           "iotop_write_bytes": iotop_bytes, "iotop_err": iotop_err.strip(),
           "held_at_exit": held, "lines": [], "user_bytes": None, "build": ""}
    with open(log + ".out") as f:
        for line in f:
            m = compare.LINE_RE.match(line)
            if m:
                res["lines"].append((m.group(1), float(m.group(2))))
            elif line.startswith("user bytes written:"):
                res["user_bytes"] = int(line.split(":")[1])
            elif line.startswith("Build:"):
                res["build"] = line.split(":", 1)[1].strip()
    return res


def ratio(a, b):
    return None if a is None or not b else a / b


def fmt(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def size_name(vs):
    return "%d KiB" % (vs // 1024) if vs % 1024 == 0 else "%d B" % vs


def tables_md(rows, engines, sizes, workloads, methods):
    out = []
    for w in workloads:
        sub = [r for r in rows if r["workload"] == w]
        if not sub:
            continue
        out.append("### %s: write amplification (bytes written / user bytes)" % w)
        out.append("")
        head = ["engine"]
        for vs in sizes:
            head += ["%s %s" % (size_name(vs), m) for m in methods]
        out.append("| " + " | ".join(head) + " |")
        out.append("|---" + "|---:" * (len(head) - 1) + "|")
        for e in engines:
            cells = [e]
            for vs in sizes:
                r = next((r for r in sub if r["engine"] == e and r["value_size"] == vs), None)
                for m in methods:
                    cells.append(fmt(r and r["wa_" + m]))
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    head = ["workload", "value", "engine", "user MB", "iotop MB", "proc MB",
            "cancelled MB", "proc-cancelled MB", "ext4 MB", "iotop/(proc-cancelled)",
            "disk MB", "inodes", "wall s", "stage micros/op"]
    out.append("### Every run")
    out.append("")
    out.append("| " + " | ".join(head) + " |")
    out.append("|---|---:|---" + "|---:" * (len(head) - 3) + "|")
    mb = lambda v: None if v is None else v / 1e6
    for r in rows:
        out.append("| " + " | ".join([
            r["workload"], str(r["value_size"]), r["engine"], fmt(mb(r["user_bytes"]), ".1f"),
            fmt(mb(r["iotop_bytes"]), ".1f"), fmt(mb(r["proc_bytes"]), ".1f"),
            fmt(mb(r["cancelled_bytes"]), ".1f"), fmt(mb(r["net_bytes"]), ".1f"),
            fmt(mb(r["ext4_bytes"]), ".1f"), fmt(ratio(r["iotop_bytes"], r["net_bytes"]), ".3f"),
            fmt(mb(r["disk_bytes"]), ".1f"), fmt(r["inodes"], "d"), fmt(r["wall_s"], ".1f"),
            r["stages"]]) + " |")
    out.append("")
    return "\n".join(out)


def plot(rows, engines, sizes, workload, methods, path):
    try:
        import matplotlib
    except ImportError:
        # Debian's python3-matplotlib when another python3 comes first in PATH.
        sys.path.append("/usr/lib/python3/dist-packages")
        try:
            import matplotlib
        except ImportError:
            return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sub = [r for r in rows if r["workload"] == workload]
    fig, axes = plt.subplots(1, len(methods), squeeze=False, sharey=True,
                             figsize=(4.5 * len(methods), 4))
    width = 0.8 / max(1, len(engines))
    for ax, m in zip(axes[0], methods):
        for i, e in enumerate(engines):
            vals = []
            for vs in sizes:
                r = next((r for r in sub if r["engine"] == e and r["value_size"] == vs), None)
                vals.append((r and r["wa_" + m]) or 0)
            ax.bar([x + i * width for x in range(len(sizes))], vals, width, label=e)
        ax.set_xticks([x + width * (len(engines) - 1) / 2 for x in range(len(sizes))])
        ax.set_xticklabels([size_name(v) for v in sizes])
        ax.set_title("%s: WA by %s" % (workload, m))
        ax.set_xlabel("value size")
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("bytes written / user bytes")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num", type=int, default=100000, help="keys per stage (100000)")
    ap.add_argument("--value-sizes", default="256,1024,4096")
    ap.add_argument("--engines", default="delsm,leveldb,rocksdb,blobdb")
    ap.add_argument("--workloads", default="writedeletewrite,fillrandom")
    ap.add_argument("--delete-ratio", type=float, default=0.5)
    ap.add_argument("--compression", type=int, default=0,
                    help="db_bench --compression (default 0: values stored as written)")
    ap.add_argument("--seed", type=int, default=1, help="db_bench --seed (same order for all)")
    ap.add_argument("--bin-dir", help="db_bench* folder (default: newest build*/benchmarks)")
    ap.add_argument("--delsm-bin", help="DeLSM's db_bench if not in --bin-dir")
    ap.add_argument("--db-root", help="databases here (e.g. on the root file system)")
    ap.add_argument("--loop-image", help="create this sparse image, mkfs.ext4 it, "
                    "loop-mount it and put the databases there (root only)")
    ap.add_argument("--loop-size", default="8G", help="image size (8G)")
    ap.add_argument("--iotop-interval", type=float, default=0.1,
                    help="iotop -d seconds; 0 disables iotop")
    ap.add_argument("--no-exit-hold", action="store_true",
                    help="do not hold db_bench in exit() for iotop's last samples")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per run")
    ap.add_argument("--extra", default="", help="more db_bench flags, space separated")
    ap.add_argument("--out", help="output folder (default: wa-<time>)")
    args = ap.parse_args()

    if args.db_root and args.loop_image:
        sys.exit("wa_study: pass --db-root or --loop-image, not both")
    if args.loop_image and os.geteuid() != 0:
        sys.exit("wa_study: --loop-image needs root (mkfs, mount)")
    bin_dir = args.bin_dir or compare.find_bin_dir(REPO)
    engines, binaries = [], {}
    for e in [e for e in args.engines.split(",") if e]:
        if e not in compare.ENGINES:
            sys.exit("wa_study: unknown engine %r" % e)
        name, flags = compare.ENGINES[e]
        path = args.delsm_bin if (e == "delsm" and args.delsm_bin) else (
            os.path.join(bin_dir, name) if bin_dir else name)
        if os.access(path, os.X_OK):
            engines.append(e)
            binaries[e] = [path] + flags
        else:
            print("wa_study: skipping %s: %s not found" % (e, path), file=sys.stderr)
    if not engines:
        sys.exit("wa_study: no db_bench binary found; pass --bin-dir")
    sizes = [int(v) for v in args.value_sizes.split(",") if v]
    workloads = [w for w in args.workloads.split(",") if w]

    problem = None
    if args.iotop_interval > 0:
        problem = iotop_problem()
        if problem:
            print("wa_study: NOT MEASURED by iotop: " + problem, file=sys.stderr)
    use_iotop = args.iotop_interval if args.iotop_interval > 0 and not problem else 0
    methods = [m for m in METHODS if (m != "iotop" or use_iotop)
               and (m != "ext4" or args.loop_image)]

    out_dir = args.out or "wa-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    os.makedirs(os.path.join(out_dir, "logs"), exist_ok=True)
    exit_hold = build_exit_hold(out_dir) if use_iotop and not args.no_exit_hold else None
    loop = LoopFs(args.loop_image, args.loop_size) if args.loop_image else None
    made_root = False
    if loop:
        db_root = os.path.join(loop.mnt, "db")
    elif args.db_root:
        db_root = args.db_root
    else:
        db_root, made_root = tempfile.mkdtemp(prefix="wa-study-"), True
    os.makedirs(db_root, exist_ok=True)
    fs_type = subprocess.run(["findmnt", "-n", "-o", "FSTYPE,OPTIONS,SOURCE", "-T", db_root],
                             capture_output=True, text=True).stdout.strip()
    common = ["--num=%d" % args.num, "--seed=%d" % args.seed,
              "--delete_ratio=%g" % args.delete_ratio,
              "--compression=%d" % args.compression] + args.extra.split()

    rows, notes, builds = [], [], {}
    started = time.monotonic()
    try:
        if loop:
            a = loop.kbytes()
            time.sleep(5)
            idle = loop.kbytes() - a
            notes.append("ext4 counter while idle: %d KiB over 5 s (sync -f each side)" % idle)
        if use_iotop:
            # Calibration: a known 32 MiB written and fdatasync'ed by dd.
            calib = os.path.join(db_root, "wa-calibration")
            r = run_measured(["dd", "if=/dev/zero", "of=" + calib, "bs=1M", "count=32",
                              "conv=fdatasync"], os.path.join(out_dir, "logs", "calibration"),
                             use_iotop, 120, exit_hold)
            os.unlink(calib)
            notes.append("calibration, dd of 32 MiB: iotop %s MiB, proc %s MiB" % (
                fmt(r["iotop_write_bytes"] and r["iotop_write_bytes"] / 1048576.0, ".1f"),
                fmt(r["write_bytes"] and r["write_bytes"] / 1048576.0, ".1f")))
        for w in workloads:
            for vs in sizes:
                for e in engines:
                    tag = "%s-%d-%s" % (w, vs, e)
                    db = os.path.join(db_root, tag)
                    shutil.rmtree(db, ignore_errors=True)
                    argv = binaries[e] + ["--db=" + db, "--benchmarks=" + w,
                                          "--value_size=%d" % vs] + common
                    before = loop.kbytes() if loop else None
                    r = run_measured(argv, os.path.join(out_dir, "logs", tag),
                                     use_iotop, args.timeout, exit_hold)
                    ext4 = (loop.kbytes() - before) * 1024 if loop else None
                    du, inodes = compare.disk_usage(db) if os.path.isdir(db) else (None, None)
                    shutil.rmtree(db, ignore_errors=True)
                    sync_fs(db_root)  # the deletion's writeback stays out of the next run
                    builds[e] = r["build"] or builds.get(e, "")
                    if r["iotop_err"] and not any(r["iotop_err"][:200] in n for n in notes):
                        notes.append("iotop said (first seen in %s): %s" % (tag, r["iotop_err"][:200]))
                    if r["rc"] != 0 or not r["lines"]:
                        notes.append("%s FAILED rc=%d (see logs/%s.err)" % (tag, r["rc"], tag))
                        print("%-32s FAILED rc=%d" % (tag, r["rc"]), file=sys.stderr)
                        continue
                    row = {"workload": w, "value_size": vs, "engine": e,
                           "user_bytes": r["user_bytes"], "iotop_bytes": r["iotop_write_bytes"],
                           "proc_bytes": r["write_bytes"],
                           "cancelled_bytes": r["cancelled_write_bytes"], "ext4_bytes": ext4,
                           "net_bytes": (None if r["write_bytes"] is None else
                                         r["write_bytes"] - (r["cancelled_write_bytes"] or 0)),
                           "disk_bytes": du, "inodes": inodes, "wall_s": r["wall_s"],
                           "stages": "; ".join("%s %.2f" % l for l in r["lines"])}
                    for m, key in (("iotop", "iotop_bytes"), ("proc", "proc_bytes"),
                                   ("ext4", "ext4_bytes")):
                        row["wa_" + m] = ratio(row[key], row["user_bytes"])
                    rows.append(row)
                    print("%-32s %6.1fs  WA iotop %s proc %s ext4 %s" % (
                        tag, r["wall_s"], fmt(row["wa_iotop"]), fmt(row["wa_proc"]),
                        fmt(row["wa_ext4"])), file=sys.stderr, flush=True)
    finally:
        if made_root:
            shutil.rmtree(db_root, ignore_errors=True)
        if loop:
            loop.close()

    header = [
        "DeLSM write-amplification study, %s" % datetime.datetime.now().isoformat(timespec="seconds"),
        "machine: %s, %d CPUs, %s" % (platform.node(), os.cpu_count(), platform.platform()),
        "command: %s" % " ".join(sys.argv),
        "db_bench flags: %s" % " ".join(common),
        "databases on: %s (%s)" % (db_root, fs_type) + (
            "; a fresh ext4 on %s (image %s, %s)" % (loop.dev, args.loop_image, args.loop_size)
            if loop else ""),
    ]
    for e in engines:
        header.append("%s: %s; build: %s" % (e, " ".join(binaries[e]), builds.get(e, "?")))
    if problem:
        header.append("iotop: NOT MEASURED: " + problem)
    elif use_iotop:
        header.append("iotop: iotop -b -o -a -k -P -d %g over all processes, the row of "
                      "db_bench's pid. iotop shows write_bytes - cancelled_write_bytes (dirty pages "
                      "of files truncated or deleted before writeback), /proc write_bytes does not; %s" % (use_iotop, (
                          "db_bench held in exit() (exit_hold.so) until iotop sampled it "
                          "twice more; threads that ended earlier count up to their last "
                          "sample" if exit_hold else
                          "NOT held at exit: reads low by up to one interval's writes")))
    if not loop:
        header.append("ext4: not measured (needs --loop-image: a shared file system's "
                      "device counters include everyone's writes)")
    header += notes
    md = "\n".join("- " + h for h in header) + "\n\n" + tables_md(
        rows, engines, sizes, workloads, methods)
    print(md)
    with open(os.path.join(out_dir, "wa.md"), "w") as f:
        f.write(md)
    fields = ["workload", "value_size", "engine", "user_bytes", "iotop_bytes", "proc_bytes",
              "cancelled_bytes", "net_bytes", "ext4_bytes", "wa_iotop", "wa_proc", "wa_ext4",
              "disk_bytes", "inodes", "wall_s", "stages"]
    with open(os.path.join(out_dir, "wa.csv"), "w", newline="") as f:
        cw = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        cw.writeheader()
        cw.writerows(rows)
    charts = [w for w in workloads
              if plot(rows, engines, sizes, w, methods, os.path.join(out_dir, "wa-%s.png" % w))]
    print("wrote %s/wa.csv, wa.md%s (%.0f s)" % (
        out_dir, "".join(", wa-%s.png" % w for w in charts), time.monotonic() - started))
    return 1 if any("FAILED" in n for n in notes) else 0


if __name__ == "__main__":
    sys.exit(main())
