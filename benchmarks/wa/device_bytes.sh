#!/usr/bin/env bash
# Bytes written to the device by one db_bench run, for each of several
# engines or DeLSM variants, each on a fresh default ext4 on a loop device
# (benchmarks/loop_image.sh): the loop device's sectors written from before
# the run to after a `sync -f` that follows it, so data, metadata and the
# journal count, and nothing of any other process. Prints one line a
# variant: its micros/op and the device megabytes.
#
#   sudo bash benchmarks/wa/device_bytes.sh [--num N] [--value-size B]
#       [--benchmark NAME] [VARIANT...]
#
# A VARIANT is delsm, leveldb, or NAME=FLAGS (DeLSM's db_bench with FLAGS,
# e.g. 'deferred=--tuning=durability=deferred'); default: delsm leveldb.
# Defaults: 100,000 keys of 256 bytes, fillrandom. Environment: BIN_DIR
# (default build-release/benchmarks), LOOP_SIZE (default 8G).
set -euo pipefail
cd "$(dirname "$0")/../.."
num=100000
value_size=256
benchmark=fillrandom
variants=()
while [ $# -gt 0 ]; do
  case $1 in
    --num) num=$2; shift 2 ;;
    --value-size) value_size=$2; shift 2 ;;
    --benchmark) benchmark=$2; shift 2 ;;
    -*) echo "device_bytes: unknown flag $1" >&2; exit 2 ;;
    *) variants+=("$1"); shift ;;
  esac
done
[ ${#variants[@]} -gt 0 ] || variants=(delsm leveldb)
[ "$(id -u)" -eq 0 ] || { echo "device_bytes: needs root (loop device)" >&2; exit 2; }
bin_dir=${BIN_DIR:-build-release/benchmarks}
source benchmarks/engine_args.sh
for spec in "${variants[@]}"; do
  engine_args device_bytes "$spec" "$bin_dir" || exit 2
  [ -x "$engine_binary" ] || { echo "device_bytes: $engine_binary not built" >&2; exit 1; }
  (
    source benchmarks/loop_image.sh
    loop_image_mount device-bytes ext4
    sync -f "$mnt"
    before=$(awk '{print $7}' "/sys/block/$dev/stat")
    out=$("$engine_binary" --benchmarks="$benchmark" --num="$num" \
      --value_size="$value_size" --bloom_bits=10 --db="$mnt/db" \
      "${engine_flags[@]}" 2>&1) ||
      { echo "$out" >&2; exit 1; }
    sync -f "$mnt"
    after=$(awk '{print $7}' "/sys/block/$dev/stat")
    # db_bench's progress lines end in carriage returns, not newlines.
    micros=$(grep -aoE "$benchmark +: +[0-9.]+" <<<"$out" | tail -n 1 |
      awk '{print $NF}')
    printf '%-12s %s %s x %s B: %8s micros/op, device %6.1f MB\n' \
      "$engine_name" "$benchmark" "$num" "$value_size" "$micros" \
      "$(awk -v s=$((after - before)) 'BEGIN {print s * 512 / 1e6}')"
  )
done
