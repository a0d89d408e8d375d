#!/usr/bin/env bash
# Scan read-ahead on against off (benchmarks/journal/
# 2026-11-23-inline-threshold.md). For each value size and inline threshold it
# builds one database with DeLSM's db_bench (fillrandom, then overwrite, so
# the scan crosses several levels) and then runs readseq ROUNDS times with
# read-ahead on (Tuning defaults) and off (--read_ahead_files=0),
# alternating on/off so that neither side gets a warmer page or dentry
# cache; one process per run. Prints every run and the median per side.
# With COLD=1 every readseq starts with empty caches (the file system is
# remounted and the image's pages dropped: loop_image_drop_caches); without,
# the database is in the page cache, as after the fill.
#
# Needs root: the database goes on a dedicated ext4 on a loop device that
# the script creates and removes (as scripts/bench.sh does).
#
# Usage: benchmarks/readahead_ab.sh [db_bench binary]
# Environment: NUM (100000), SIZES ("1024 4096"), THRESHOLDS ("0"),
# ROUNDS (3), OUT (out/readahead-<time>), LOOP_SIZE (8G).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-build-release/benchmarks/db_bench}
num=${NUM:-100000}
sizes=${SIZES:-"1024 4096"}
thresholds=${THRESHOLDS:-"0"}
rounds=${ROUNDS:-3}
out=${OUT:-out/readahead-$(date +%Y%m%d-%H%M%S)}

if [ ! -x "$bin" ] || [ "$(id -u)" -ne 0 ]; then
  echo "readahead_ab: needs root and a db_bench at $bin" >&2
  exit 2
fi
mkdir -p "$out"
. benchmarks/loop_image.sh
loop_image_mount ra
db=$mnt/db

# us <log> <flags...>: runs one db_bench step, prints its micros/op.
us() {
  local log=$1
  shift
  "$bin" --db="$db" --num="$num" --bloom_bits=10 "$@" >>"$log" 2>&1
  grep 'micros/op' "$log" | tail -n 1 |
    sed -n 's/.*: *\([0-9.]*\) micros\/op.*/\1/p'
}

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "| value | threshold | readseq µs/op, read-ahead on (runs) | off (runs) | median on | median off | off/on |"
echo "|---:|---:|---|---|---:|---:|---:|"
for size in $sizes; do
  for t in $thresholds; do
    log=$out/v${size}_t${t}.log
    : >"$log"
    rm -rf "$db"
    common=(--value_size="$size" --inline_threshold="$t")
    us "$log" "${common[@]}" --benchmarks=fillrandom >/dev/null
    us "$log" "${common[@]}" --benchmarks=overwrite --use_existing_db=1 \
      >/dev/null
    on="" off=""
    for ((r = 0; r < rounds; r++)); do
      [ "${COLD:-0}" = 1 ] && loop_image_drop_caches
      on="$on $(us "$log" "${common[@]}" --benchmarks=readseq \
        --use_existing_db=1)"
      [ "${COLD:-0}" = 1 ] && loop_image_drop_caches
      off="$off $(us "$log" "${common[@]}" --benchmarks=readseq \
        --use_existing_db=1 --read_ahead_files=0)"
    done
    mon=$(echo "$on" | median)
    moff=$(echo "$off" | median)
    ratio=$(awk -v a="$moff" -v b="$mon" 'BEGIN {printf "%.2f", a / b}')
    echo "| $size | $t |$on |$off | $mon | $moff | $ratio |"
  done
done
rm -rf "$db"
