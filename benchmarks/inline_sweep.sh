#!/usr/bin/env bash
# The inline_threshold sweep behind DeLSM's default (benchmarks/journal/
# 2026-11-23-inline-threshold.md). For each value size and each
# threshold it runs fillseq on a fresh database (then removed), builds a
# second fresh database and runs, one process per step on it:
#   fillrandom, overwrite, readrandom, readseq, readseq with read-ahead off
#   (--read_ahead_files=0), readreverse, seekrandom
# and records per step the time (micros/op) and, for the writes, the bytes
# the device received (the ext4's session_write_kbytes, read after `sync`),
# after overwrite the disk bytes (du: allocated, each inode once) and
# inodes, and the 1-minute load average when the row started and ended (the
# machine may be shared).
# Every engine option is db_bench's default except --bloom_bits=10 (the
# filter every comparison gives every engine) and the swept knobs.
#
# Needs root: the databases go on a dedicated ext4 on a loop device that
# the script creates and removes (as scripts/bench.sh does), so the device
# counters see only the benchmark.
#
# Usage: benchmarks/inline_sweep.sh [db_bench binary]
# Environment: NUM (100000 keys), SIZES ("256 4096 1024"), THRESHOLDS
# ("0 128 256 512 1024 2048 4096"), OUT (out/inline-sweep-<time>),
# LOOP_SIZE (8G). Prints the table (markdown) and writes OUT/sweep.csv.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-build-release/benchmarks/db_bench}
num=${NUM:-100000}
sizes=${SIZES:-"256 4096 1024"}
thresholds=${THRESHOLDS:-"0 128 256 512 1024 2048 4096"}
out=${OUT:-out/inline-sweep-$(date +%Y%m%d-%H%M%S)}

if [ ! -x "$bin" ]; then
  echo "inline_sweep: no db_bench at $bin (cmake -S . -B build-release" \
    "-DCMAKE_BUILD_TYPE=Release -DDELSM_BUILD_TESTS=OFF &&" \
    "cmake --build build-release --target db_bench)" >&2
  exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "inline_sweep: needs root for the loop-mounted ext4" >&2
  exit 2
fi
mkdir -p "$out"

. benchmarks/loop_image.sh
loop_image_mount sweep
counter=/sys/fs/ext4/$dev/session_write_kbytes
if [ ! -r "$counter" ]; then
  echo "inline_sweep: no $counter" >&2
  exit 1
fi
db=$mnt/db

kbytes() {
  sync -f "$mnt"
  cat "$counter"
}

# run <log> <extra db_bench flags...>: prints "<micros/op> <device KiB>".
run() {
  local log=$1
  shift
  local before after us
  before=$(kbytes)
  "$bin" --db="$db" --num="$num" --bloom_bits=10 "$@" >>"$log" 2>&1
  after=$(kbytes)
  us=$(grep 'micros/op' "$log" | tail -n 1 |
    sed -n 's/.*: *\([0-9.]*\) micros\/op.*/\1/p')
  if [ -z "$us" ]; then
    echo "inline_sweep: no result in $log:" >&2
    tail -n 5 "$log" >&2
    exit 1
  fi
  echo "$us $((after - before))"
}

csv=$out/sweep.csv
echo "value_size,threshold,fillseq_us,fill_us,fill_dev_kib,overwrite_us,overwrite_dev_kib,readrandom_us,readseq_us,readseq_noRA_us,readreverse_us,seekrandom_us,disk_bytes,inodes,load_start,load_end" >"$csv"
echo "inline_sweep: $num keys, db_bench $bin, ext4 on $dev, results in $out" >&2
for size in $sizes; do
  for t in $thresholds; do
    log=$out/v${size}_t${t}.log
    : >"$log"
    load_start=$(cut -d' ' -f1 /proc/loadavg)
    rm -rf "$db"
    common=(--value_size="$size" --inline_threshold="$t")
    res=$(run "$log" "${common[@]}" --benchmarks=fillseq)
    read -r fs_us _ <<<"$res"
    rm -rf "$db"
    res=$(run "$log" "${common[@]}" \
      --benchmarks=fillrandom)
    read -r fill_us fill_kib <<<"$res"
    res=$(run "$log" "${common[@]}" \
      --benchmarks=overwrite --use_existing_db=1)
    read -r ow_us ow_kib <<<"$res"
    disk=$(du -s -B1 "$db" | cut -f1)
    inodes=$(find "$db" | wc -l)
    res=$(run "$log" "${common[@]}" \
      --benchmarks=readrandom --use_existing_db=1)
    read -r rr_us _ <<<"$res"
    res=$(run "$log" "${common[@]}" \
      --benchmarks=readseq --use_existing_db=1)
    read -r rs_us _ <<<"$res"
    res=$(run "$log" "${common[@]}" \
      --benchmarks=readseq --use_existing_db=1 --read_ahead_files=0)
    read -r rs0_us _ <<<"$res"
    res=$(run "$log" "${common[@]}" \
      --benchmarks=readreverse --use_existing_db=1)
    read -r rr2_us _ <<<"$res"
    res=$(run "$log" "${common[@]}" \
      --benchmarks=seekrandom --use_existing_db=1)
    read -r sr_us _ <<<"$res"
    load_end=$(cut -d' ' -f1 /proc/loadavg)
    line="$size,$t,$fs_us,$fill_us,$fill_kib,$ow_us,$ow_kib,$rr_us,$rs_us,$rs0_us,$rr2_us,$sr_us,$disk,$inodes,$load_start,$load_end"
    echo "$line" >>"$csv"
    echo "inline_sweep: $line" >&2
  done
done
rm -rf "$db"

# The table: one row per (size, threshold).
python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("Times in µs/op; load: the 1-minute load average at the row's start and end.")
print()
print("| value | threshold | fillseq | fillrandom | fill device MB "
      "| overwrite | overwrite device MB | readrandom | readseq "
      "| readseq, no read-ahead | readreverse | seekrandom | disk MB "
      "| inodes | load |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print("| {} | {} | {} | {} | {:.0f} | {} | {:.0f} | {} | {} | {} | {} | {} "
          "| {:.0f} | {} | {}-{} |".format(
        r["value_size"], r["threshold"], r["fillseq_us"], r["fill_us"],
        int(r["fill_dev_kib"]) / 1024, r["overwrite_us"],
        int(r["overwrite_dev_kib"]) / 1024, r["readrandom_us"],
        r["readseq_us"], r["readseq_noRA_us"], r["readreverse_us"],
        r["seekrandom_us"], int(r["disk_bytes"]) / 1e6, r["inodes"],
        r["load_start"], r["load_end"]))
EOF
