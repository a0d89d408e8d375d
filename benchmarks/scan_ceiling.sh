#!/usr/bin/env bash
# How close a DeLSM scan of values in files comes to what the file system
# allows, measured on the same database in the same run.
#
# Fills a default-mode database with NUM random keys of SIZE-byte values
# (every value above the inline threshold is a KV file), then, ROUNDS times
# and in rotating order, measures cold (file system unmounted, the image's
# pages dropped, mounted again) and warm (straight after):
#   readseq, readreverse   DeLSM's db_bench over the whole database, µs per
#                          value (the process opens the database first; the
#                          Open is not in the figure);
#   fs-1t, fs-2t           the file system's ceiling: readahead_io_bench
#                          opens, reads and closes every KV file of the
#                          database (SST directories level by level, files in
#                          name order), with one thread (--mode=sync) and
#                          with two threads taking files in order
#                          (--mode=pool --threads=2), µs per file;
#   fs-2t-rev              the same two threads over the files in reverse
#                          order, as readreverse reads them (a file system
#                          that lays files out in creation order reads them
#                          backwards far slower when cold).
# Prints every run, the medians, and each scan as a share of the two-thread
# ceiling in the scan's own order (100% = the scan goes as fast as two
# threads of open+read+close taking the same files in the same direction:
# readseq against fs-2t, readreverse against fs-2t-rev).
#
# Needs root (dedicated ext4 on a loop device, benchmarks/loop_image.sh),
# db_bench and readahead_io_bench (liburing-dev) in the bin dir.
#
# Usage: benchmarks/scan_ceiling.sh [bin dir, default build-release/benchmarks]
# Environment: NUM (100000), SIZE (4096), ROUNDS (3), OUT
# (out/scan-ceiling-<time>), LOOP_SIZE (8G).
set -euo pipefail
cd "$(dirname "$0")/.."

bin_dir=${1:-build-release/benchmarks}
num=${NUM:-100000}
size=${SIZE:-4096}
rounds=${ROUNDS:-3}
out=${OUT:-out/scan-ceiling-$(date +%Y%m%d-%H%M%S)}

if [ ! -x "$bin_dir/db_bench" ] || [ ! -x "$bin_dir/readahead_io_bench" ] ||
    [ "$(id -u)" -ne 0 ]; then
  echo "scan_ceiling: needs root, $bin_dir/db_bench and" \
    "$bin_dir/readahead_io_bench" >&2
  exit 2
fi
mkdir -p "$out"
. benchmarks/loop_image.sh
loop_image_mount scan
db=$mnt/db
log=$out/runs.log
: >"$log"

# fs_read <mode args...>: the file system's open+read+close of every KV file
# of the database; prints µs per file.
fs_read() {
  local dirs=()
  for l in 0 1 2 3 4 5 6; do
    [ -d "$db/L$l" ] || continue
    for d in "$db/L$l"/*; do [ -d "$d" ] && dirs+=("$d"); done
  done
  "$bin_dir/readahead_io_bench" "$@" "${dirs[@]}" | tee -a "$log" |
    sed -n 's/.* us_per_file=\([0-9.]*\) .*/\1/p'
}

# scan <workload>: DeLSM's scan of the whole database; prints µs per value.
scan() {
  "$bin_dir/db_bench" --db="$db" --num="$num" --value_size="$size" \
    --use_existing_db=1 --benchmarks="$1" 2>>"$log" | tee -a "$log" |
    sed -n "s/^$1 *: *\([0-9.]*\) micros\/op.*/\1/p"
}

measure() {
  case $1 in
    readseq | readreverse) scan "$1" ;;
    fs-1t) fs_read --mode=sync ;;
    fs-2t) fs_read --mode=pool --threads=2 --window=16 ;;
    fs-2t-rev) fs_read --mode=pool --threads=2 --window=16 --reverse ;;
  esac
}

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

"$bin_dir/db_bench" --db="$db" --num="$num" --value_size="$size" \
  --benchmarks=fillrandom >>"$log" 2>&1
# The first Open after the fill flushes what the write-ahead log still
# holds; after it every value of the database is a KV file.
"$bin_dir/db_bench" --db="$db" --num="$num" --value_size="$size" \
  --use_existing_db=1 --benchmarks=stats >>"$log" 2>&1
files=$(find "$db" -name '*@*' -type f | wc -l)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $num keys of $size B, $files KV files"
kinds=(readseq readreverse fs-1t fs-2t fs-2t-rev)
declare -A cold=() warm=()
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < ${#kinds[@]}; k++)); do
    m=${kinds[$(((k + r) % ${#kinds[@]}))]}
    loop_image_drop_caches
    cold[$m]="${cold[$m]:-} $(measure "$m")"
    warm[$m]="${warm[$m]:-} $(measure "$m")"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A cm=() wm=()
for m in "${kinds[@]}"; do
  cm[$m]=$(echo "${cold[$m]}" | median)
  wm[$m]=$(echo "${warm[$m]}" | median)
done
echo "| what | cold µs (runs) | warm µs (runs) | median cold | median warm | cold vs fs-2t in its order | warm vs fs-2t in its order |"
echo "|---|---|---|---:|---:|---:|---:|"
for m in "${kinds[@]}"; do
  ceiling=fs-2t
  case $m in readreverse | fs-2t-rev) ceiling=fs-2t-rev ;; esac
  echo "| $m |${cold[$m]} |${warm[$m]} | ${cm[$m]} | ${wm[$m]} |" \
    "$(awk -v a="${cm[$ceiling]}" -v b="${cm[$m]}" 'BEGIN{printf "%.0f%%", 100*a/b}') |" \
    "$(awk -v a="${wm[$ceiling]}" -v b="${wm[$m]}" 'BEGIN{printf "%.0f%%", 100*a/b}') |"
done | tee "$out/table.md"
