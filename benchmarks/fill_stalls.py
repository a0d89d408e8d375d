#!/usr/bin/env python3
"""Where the writer of a fill waits: reads `perf sched timehist -g --state`
output (stdin or a file) of a db_bench run and prints, for the thread that
ran the benchmark, its longest waits off the CPU with the kernel stack it
left the CPU on, and its waits over a threshold summed by that stack's top
frames; then each thread's run time and waits.

    perf sched timehist -i sched.data -p PID -g --state | \
        benchmarks/fill_stalls.py [--top N] [--over MS] [--frames K]

A line of timehist is printed when a task leaves the CPU: its wait before
that run ("wait time", of which "sch delay" was spent runnable, waiting for
a CPU), the run, the state it left in and where (the call chain). So a
wait's cause is the state and chain of the task's previous line. The
benchmark's thread is the thread named db_bench (DeLSM names its own
threads delsm-*) that ran longest: db_bench's main thread only
starts it and waits.
"""

import argparse
import collections
import re
import sys

LINE = re.compile(r"^\s*(\d+\.\d+)\s+\[\d+\]\s+(.+?)\[(\d+)(?:/(\d+))?\]\s+"
                  r"([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)\s*(.*)$")


def parse(lines):
    """Yields (time, comm, tid, wait_ms, sch_ms, run_ms, state, chain)."""
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        t, comm, tid, _, wait, sch, run, state, chain = m.groups()
        yield (float(t), comm, int(tid), float(wait), float(sch), float(run),
               state, chain.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", help="timehist output (default: stdin)")
    ap.add_argument("--top", type=int, default=15, help="longest waits listed (15)")
    ap.add_argument("--over", type=float, default=2.0,
                    help="waits summed by stack when longer than this, ms (2)")
    ap.add_argument("--frames", type=int, default=5,
                    help="top frames of the stack that name a site (5)")
    ap.add_argument("--thread", default="db_bench",
                    help="whose waits are listed: the busiest thread of this "
                         "name (db_bench: the benchmark's thread)")
    args = ap.parse_args()
    src = open(args.file) if args.file else sys.stdin
    prev = {}
    waits = collections.defaultdict(list)  # tid -> [(wait, sch, state, chain, t)]
    comm = {}
    run = collections.Counter()
    switches = collections.Counter()
    for t, c, tid, wait, sch, r, state, chain in parse(src):
        comm[tid] = c
        run[tid] += r
        switches[tid] += 1
        if tid in prev:
            pstate, pchain = prev[tid]
            waits[tid].append((wait, sch, pstate, pchain, t))
        prev[tid] = (state, chain)
    if not switches:
        sys.exit("fill_stalls: no timehist lines read")
    benches = [tid for tid in switches if comm[tid] == args.thread]
    if not benches:
        sys.exit("fill_stalls: no thread named %s" % args.thread)
    # The one that ran longest: db_bench's main thread only starts the
    # benchmark's thread and waits (in a short run it may switch more).
    writer = max(benches, key=lambda tid: run[tid])

    print("threads (run s, switches, waits s of which runnable s):")
    for tid in sorted(switches, key=lambda k: -run[k]):
        if run[tid] < 10 and tid != writer:
            continue  # under 10 ms on the CPU: set-up threads
        w = sum(x[0] for x in waits[tid]) / 1000
        s = sum(x[1] for x in waits[tid]) / 1000
        print("  %-16s %7d  run %8.2f  switches %8d  waits %8.2f (%.2f runnable)%s" % (
            comm[tid], tid, run[tid] / 1000, switches[tid], w, s,
            "  <- the benchmark's thread" if tid == writer else ""))
    rows = sorted(waits[writer], reverse=True)
    print("\nlongest waits of %s[%d] (ms; runnable part; the state and stack it "
          "left the CPU in):" % (comm[writer], writer))
    for wait, sch, state, chain, t in rows[:args.top]:
        print("  %8.1f (%5.1f) at %.3f  %s %s" % (wait, sch, t, state,
                                               " <- ".join(chain.split(" <- ")[:args.frames])))
    by_site = collections.defaultdict(lambda: [0, 0.0])
    for wait, sch, state, chain, t in rows:
        if wait > args.over:
            key = state + " " + " <- ".join(chain.split(" <- ")[:args.frames])
            by_site[key][0] += 1
            by_site[key][1] += wait
    print("\nwaits over %g ms by site (count, total ms):" % args.over)
    for key, (n, total) in sorted(by_site.items(), key=lambda kv: -kv[1][1])[:args.top]:
        print("  %6d %9.0f  %s" % (n, total, key))


if __name__ == "__main__":
    main()
