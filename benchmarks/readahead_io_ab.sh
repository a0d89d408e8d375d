#!/usr/bin/env bash
# Scan read-ahead: a thread pool against io_uring, and against no
# read-ahead, on the same KV files (benchmarks/readahead_io_bench.cc says what each mode does).
#
# For each value size it fills a pure-mode database (every value a KV file)
# with DeLSM's db_bench, then reads every KV file of every SST directory
# (levels in order, files in name order) ROUNDS times per mode, the modes'
# order rotating per round. Cold runs: the file system is unmounted, the
# image's pages dropped from the page cache, and mounted again, so the run
# starts with no cached data, inode or dentry of it. Warm runs: the same
# mode again straight after. Prints every run and the median per mode.
#
# Needs root (the database goes on a dedicated ext4 on a loop device that
# the script creates and removes) and readahead_io_bench (liburing-dev).
#
# Usage: benchmarks/readahead_io_ab.sh [bin dir, default build-release/benchmarks]
# Environment: NUM (100000), SIZES ("4096 1024"), ROUNDS (3), WINDOW (16,
# Tuning::read_ahead_files' default), THREADS (4, read_ahead_threads'),
# OUT (out/readahead-io-<time>), LOOP_SIZE (8G).
set -euo pipefail
cd "$(dirname "$0")/.."

bin_dir=${1:-build-release/benchmarks}
num=${NUM:-100000}
sizes=${SIZES:-"4096 1024"}
rounds=${ROUNDS:-3}
window=${WINDOW:-16}
threads=${THREADS:-4}
out=${OUT:-out/readahead-io-$(date +%Y%m%d-%H%M%S)}

if [ ! -x "$bin_dir/db_bench" ] || [ ! -x "$bin_dir/readahead_io_bench" ] ||
    [ "$(id -u)" -ne 0 ]; then
  echo "readahead_io_ab: needs root, $bin_dir/db_bench and" \
    "$bin_dir/readahead_io_bench" >&2
  exit 2
fi
mkdir -p "$out"
. benchmarks/loop_image.sh
loop_image_mount raio
db=$mnt/db

# run <mode> <log>: one readahead_io_bench run over every SST directory;
# prints its µs per file.
run() {
  local dirs=()
  for l in 0 1 2 3 4 5 6; do
    [ -d "$db/L$l" ] || continue
    for d in "$db/L$l"/*; do [ -d "$d" ] && dirs+=("$d"); done
  done
  "$bin_dir/readahead_io_bench" --mode="$1" --window="$window" \
    --threads="$threads" "${dirs[@]}" | tee -a "$2" |
    sed -n 's/.* us_per_file=\([0-9.]*\) .*/\1/p'
}

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

modes=(sync pool uring)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| value | mode | cold µs/file (runs) | warm µs/file (runs) | median cold | median warm |"
echo "|---:|---|---|---|---:|---:|"
for size in $sizes; do
  log=$out/v$size.log
  : >"$log"
  rm -rf "$db"
  "$bin_dir/db_bench" --db="$db" --num="$num" --value_size="$size" \
    --inline_threshold=0 --benchmarks=fillrandom >>"$log" 2>&1
  declare -A cold_runs=() warm_runs=()
  for ((r = 0; r < rounds; r++)); do
    for ((k = 0; k < ${#modes[@]}; k++)); do
      m=${modes[$(((k + r) % ${#modes[@]}))]}
      loop_image_drop_caches
      cold_runs[$m]="${cold_runs[$m]:-} $(run "$m" "$log")"
      warm_runs[$m]="${warm_runs[$m]:-} $(run "$m" "$log")"
    done
  done
  for m in "${modes[@]}"; do
    echo "| $size | $m |${cold_runs[$m]} |${warm_runs[$m]} |" \
      "$(echo "${cold_runs[$m]}" | median) | $(echo "${warm_runs[$m]}" | median) |"
  done
  unset cold_runs warm_runs
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$db"
