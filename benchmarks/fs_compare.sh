#!/usr/bin/env bash
# benchmarks/compare on each file system in turn, each on a fresh loop image
# of its own (benchmarks/loop_image.sh: mkfs's default options plus
# $MKFS_OPTIONS), with the bytes each measured run wrote to the device
# (compare --device: /sys/block/<loop>/stat after a sync) beside the
# process's own write_bytes.
#
#   sudo benchmarks/fs_compare.sh [compare arguments]
#   e.g. FILESYSTEMS="ext4 xfs" benchmarks/fs_compare.sh --num 300000 \
#          --value-sizes 4096 --workloads fillrandom --engines delsm,leveldb
#
# FILESYSTEMS: the kinds to run (default "ext4 xfs btrfs"); LOOP_SIZE: each
# image's size (default 32G, sparse under /var/tmp); BUILD_DIR: the build
# with benchmarks/ (default build). Results: out/fs-compare-<time>/<fs>/
# (compare's results.csv, .md, logs) and summary.csv, one line per run and
# file system. Installs nothing: a missing mkfs is named and that file
# system skipped. Each image is unmounted and removed before the next.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "fs_compare: needs root (losetup, mount)" >&2
  exit 2
fi
build=$(realpath "${BUILD_DIR:-build}")
out=$(realpath -m "out/fs-compare-$(date +%Y%m%d-%H%M%S)")
mkdir -p "$out"
export LOOP_SIZE=${LOOP_SIZE:-32G}
status=0
for fs in ${FILESYSTEMS:-ext4 xfs btrfs}; do
  # Each file system in a subshell of its own: its EXIT trap removes its
  # image before the next is made.
  (
    . benchmarks/loop_image.sh
    if missing=$(loop_image_mkfs_missing "$fs"); then
      echo "fs_compare: $fs skipped: $missing" >&2
      exit 3
    fi
    loop_image_mount "fscmp-$fs" "$fs"
    echo "fs_compare: $fs: $(findmnt -n -o SOURCE,OPTIONS "$mnt")" >&2
    python3 benchmarks/compare --bin-dir "$build/benchmarks" \
      --db-root "$mnt/db" --device "$dev" --out "$out/$fs" "$@"
  ) || { rc=$?; [ "$rc" -eq 3 ] || status=$rc; }
done
# One table over the file systems.
python3 - "$out" ${FILESYSTEMS:-ext4 xfs btrfs} <<'PY'
import csv, os, sys
out, kinds = sys.argv[1], sys.argv[2:]
fields = ["fs", "value_size", "workload", "line", "engine", "micros_op",
          "user_bytes", "write_bytes", "wa", "device_bytes", "device_wa",
          "disk_bytes", "inodes"]
with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
    w.writeheader()
    for fs in kinds:
        path = os.path.join(out, fs, "results.csv")
        if not os.path.exists(path):
            continue
        for row in csv.DictReader(open(path)):
            row["fs"] = fs
            w.writerow(row)
print("fs_compare: summary in %s/summary.csv" % out)
PY
exit "$status"
