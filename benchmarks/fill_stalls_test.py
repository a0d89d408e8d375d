#!/usr/bin/env python3
"""fill_stalls.py on a small perf sched timehist excerpt: the benchmark's
thread is the db_bench-named thread that ran longest (not the main
thread, not DeLSM's named threads); each wait is attributed to the state
and stack the thread left the CPU on in its previous line, not to the line
that reports the wait; sums by stack count only waits over --over.

    fill_stalls_test.py FILL_STALLS_PY
"""

import subprocess
import sys

# time cpu task wait sch run state chain: as `perf sched timehist -g
# --state` prints them. Thread 11 is db_bench's main thread, 12 the
# benchmark's, 13 a flush worker.
TIMEHIST = """\
           time    cpu  task name                       wait time  sch delay   run time  state
                        [tid/pid]                          (msec)     (msec)     (msec)
--------------- ------  ------------------------------  ---------  ---------  ---------  -----
    100.000000 [0000]  db_bench[11]                       0.000      0.000      1.000      S    futex_wait <- do_futex
    100.001000 [0001]  db_bench[12/11]                    0.000      0.000      0.500      D    jbd2_log_wait_commit <- jbd2_log_do_checkpoint <- start_this_handle
    100.100000 [0001]  db_bench[12/11]                   90.000      0.100      0.200      S    do_nanosleep <- hrtimer_nanosleep
    100.200000 [0001]  db_bench[12/11]                    1.000      0.500      0.300      R    irqentry_exit_to_user_mode
    100.300000 [0001]  db_bench[12/11]                   30.000     30.000      0.100      S    futex_wait <- do_futex
    100.400000 [0001]  db_bench[12/11]                    5.000      0.000      0.100      S    futex_wait <- do_futex
    100.400100 [0000]  delsm-flush[13/11]                 0.000      0.000     50.000      D    io_schedule <- folio_wait_bit
    100.500000 [0000]  delsm-flush[13/11]                 1.000      0.000     60.000      R    irqentry_exit_to_user_mode
"""


def main():
    out = subprocess.run([sys.executable, sys.argv[1], "--over", "2"], input=TIMEHIST,
                         capture_output=True, text=True, check=True).stdout
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    expect("db_bench[12]" in out, "the benchmark's thread is 12")
    lines = out.splitlines()
    longest = [l for l in lines if l.startswith("      ") and " at " in l]
    expect(longest and "90.0" in longest[0] and "jbd2_log_wait_commit" in longest[0],
           "the 90 ms wait is the checkpoint's (the line before it), listed first")
    expect(any("30.0" in l and "irqentry_exit_to_user_mode" in l and " R " in l
               for l in longest),
           "the 30 ms wait was spent runnable after a preemption")
    expect(any("5.0" in l and "futex_wait" in l for l in longest),
           "the 5 ms wait follows the futex switch")
    sums = lines[lines.index(next(l for l in lines if l.startswith("waits over"))) + 1:]
    expect(not any("do_nanosleep" in l for l in sums),
           "the 1 ms wait after the sleep is under --over")
    expect("delsm-flush" in out, "the flush worker is listed among the threads")
    if failures:
        print(out)
        for f in failures:
            print("FAILED:", f)
        return 1
    print("fill_stalls_test: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
