#!/usr/bin/env bash
# Where the writer of a random fill waits: runs DeLSM's (or LevelDB's)
# db_bench fillrandom with --histogram=1 on a fresh default ext4 on a loop
# device under `perf sched record -g` (every switch of every thread, with
# its kernel stack), then prints the benchmark thread's longest waits off
# the CPU with the stack it left on, its waits summed by stack, and each
# thread's run and wait time (benchmarks/fill_stalls.py). DeLSM's threads
# are named delsm-flush, delsm-compact, delsm-sync and delsm-readahead.
# perf's own cost slows the fill (about 20%): read the causes, not the
# speed.
#
#   sudo bash benchmarks/fill_stalls.sh [--num N] [--value-size B]
#       [--benchmarks LIST] [--out DIR] [delsm|leveldb|NAME=FLAGS]
#
# Defaults: 1M keys of 4 KiB, fillrandom, delsm. With several stages
# (e.g. writedeleteread) db_bench runs each on a thread of its own; the
# report follows the one that ran longest, and timehist (kept in OUT) has
# the others. Environment: BIN_DIR (default
# build-release/benchmarks), LOOP_SIZE (default 32G), MKFS_OPTIONS.
# Needs root and perf (linux-perf). OUT keeps db_bench's output, the LOG,
# perf's sched.data, its timehist (timehist.txt) and the report (report.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
num=1000000
value_size=4096
benchmarks=fillrandom
out=out/fill-stalls-$(date +%Y%m%d-%H%M%S)
engine=delsm
while [ $# -gt 0 ]; do
  case "$1" in
    --num) num=$2; shift 2 ;;
    --value-size) value_size=$2; shift 2 ;;
    --benchmarks) benchmarks=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    -*) echo "fill_stalls: unknown option $1" >&2; exit 2 ;;
    *) engine=$1; shift ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "fill_stalls: needs root (loop device, perf sched)" >&2; exit 2; }
command -v perf >/dev/null || { echo "fill_stalls: perf not found (Debian: linux-perf)" >&2; exit 2; }
bin_dir=${BIN_DIR:-build-release/benchmarks}
source benchmarks/engine_args.sh
engine_args fill_stalls "$engine" "$bin_dir" || exit 2
[ -x "$engine_binary" ] || { echo "fill_stalls: no $engine_binary (build a Release tree: scripts/setup.sh)" >&2; exit 1; }
mkdir -p "$out"
export LOOP_SIZE=${LOOP_SIZE:-32G}
source benchmarks/loop_image.sh
loop_image_mount fill-stalls

# The shell records its pid, which db_bench keeps by exec.
perf sched record -g -o "$out/sched.data" -- \
  sh -c 'echo $$ > "$0"; exec "$@"' "$out/pid" \
  "$engine_binary" --benchmarks="$benchmarks" --num="$num" --value_size="$value_size" \
  --bloom_bits=10 --histogram=1 "${engine_flags[@]}" --db="$mnt/db" \
  > "$out/db_bench.out" 2> "$out/perf.err"
[ -f "$mnt/db/LOG" ] && cp "$mnt/db/LOG" "$out/LOG"
pid=$(cat "$out/pid")
{
  grep -E 'micros/op|^Percentiles|^Min:' "$out/db_bench.out" || true
  echo
  perf sched timehist -i "$out/sched.data" -p "$pid" -g --state 2>/dev/null |
    tee "$out/timehist.txt" | python3 benchmarks/fill_stalls.py
} | tee "$out/report.txt"
echo "fill_stalls: outputs in $out"
