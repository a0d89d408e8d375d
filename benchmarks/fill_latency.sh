#!/usr/bin/env bash
# Put latency of a random fill, engines interleaved: runs db_bench
# fillrandom with --histogram=1 for each engine, ROUNDS times, on a fresh
# default ext4 on a loop device (root; benchmarks/loop_image.sh), and prints
# one line per run: µs/op, P50, P99, P99.9, P99.99 and maximum latency (µs),
# and for DeLSM how many times a write waited on the flush queue or on L0
# (the LOG's "Waiting:" lines). Every run's db_bench output and LOG are kept
# in OUT.
#
#   sudo bash benchmarks/fill_latency.sh [--num N] [--value-size B]
#       [--rounds R] [--out DIR] [ENGINE[=FLAGS]]...
#
# ENGINE is delsm or leveldb (the Release builds in BIN_DIR, default
# build-release/benchmarks); NAME=FLAGS is DeLSM's db_bench with FLAGS, e.g.
# 'ft2=--tuning=flush_threads=2'. Defaults: 1M keys of 4 KiB, 2 rounds,
# engines delsm and leveldb. Environment: BIN_DIR, LOOP_SIZE (default 32G:
# a 4 KiB value in a file takes an inode, and the default ext4 has one per
# 16 KiB).
set -euo pipefail
cd "$(dirname "$0")/.."
num=1000000
value_size=4096
rounds=2
out=out/fill-latency-$(date +%Y%m%d-%H%M%S)
engines=()
while [ $# -gt 0 ]; do
  case "$1" in
    --num) num=$2; shift 2 ;;
    --value-size) value_size=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "fill_latency: unknown option $1" >&2; exit 2 ;;
    *) engines+=("$1"); shift ;;
  esac
done
[ ${#engines[@]} -gt 0 ] || engines=(delsm leveldb)
bin_dir=${BIN_DIR:-build-release/benchmarks}
source benchmarks/engine_args.sh
# Every engine named and its binary, before anything is mounted or run: a
# typo in the last engine would otherwise end a run of several rounds.
for e in "${engines[@]}"; do
  engine_args fill_latency "$e" "$bin_dir" || exit 2
  if [ ! -x "$engine_binary" ]; then
    echo "fill_latency: no $engine_binary (build a Release tree: scripts/setup.sh)" >&2
    exit 1
  fi
done
mkdir -p "$out"
export LOOP_SIZE=${LOOP_SIZE:-32G}
source benchmarks/loop_image.sh
loop_image_mount fill-latency

printf '%-10s %5s %9s %8s %8s %9s %9s %10s %8s\n' engine round 'us/op' P50 P99 P99.9 P99.99 max waits
for r in $(seq 1 "$rounds"); do
  for e in "${engines[@]}"; do
    engine_args fill_latency "$e" "$bin_dir" || exit 2
    log=$out/$engine_name-r$r
    "$engine_binary" --benchmarks=fillrandom --num="$num" --value_size="$value_size" \
      --bloom_bits=10 --histogram=1 "${engine_flags[@]}" --db="$mnt/db" \
      > "$log.out" 2> "$log.err"
    waits=-
    if [ "$engine_name" != leveldb ] && [ -f "$mnt/db/LOG" ]; then
      cp "$mnt/db/LOG" "$log.LOG"
      waits=$(grep -c 'Waiting:' "$log.LOG" || true)
    fi
    rm -rf "$mnt/db"
    sync
    awk -v e="$engine_name" -v r="$r" -v w="$waits" '
      /micros\/op/ { us = $3 }
      /^Percentiles:/ { p50 = $3; p99 = $7; p999 = $9; p9999 = $11 }
      /^Min:/ { max = $6 }
      END { printf "%-10s %5s %9.2f %8.2f %8.2f %9.2f %9.2f %10.1f %8s\n",
            e, r, us, p50, p99, p999, p9999, max, w }' "$log.out"
  done
done | tee "$out/summary.txt"
echo "fill_latency: outputs in $out"
