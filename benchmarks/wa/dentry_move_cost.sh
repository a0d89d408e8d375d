#!/usr/bin/env bash
# Link + unlink against rename for moving value files one level down
# (dentry_move_cost.c), on a fresh default ext4 on a loop device (root;
# benchmarks/loop_image.sh) or, with FS=xfs|btrfs, that file system: CPU
# and wall microseconds and device bytes per value moved.
#
#   sudo bash benchmarks/wa/dentry_move_cost.sh [VALUES] [VALUE_BYTES] [ROUNDS]
#
# Defaults: 200,000 values of 4 KiB, 3 rounds (1.6 GB of values per round;
# every file stays to the end, so the image must hold 2 x ROUNDS x VALUES
# inodes: ext4's default of one per 16 KiB gives 4M at 64G). Environment:
# FS (default ext4), LOOP_SIZE (default 64G), MKFS_OPTIONS (added to
# mkfs's defaults).
set -euo pipefail
cd "$(dirname "$0")/../.."
values=${1:-200000}
value_bytes=${2:-4096}
rounds=${3:-3}
[ "$(id -u)" -eq 0 ] || { echo "dentry_move_cost: needs root (loop device)" >&2; exit 2; }
bin=$(mktemp -d /tmp/dentry-move-cost-bin.XXXXXX)
export LOOP_SIZE=${LOOP_SIZE:-64G}
source benchmarks/loop_image.sh
loop_image_mount dentry-move-cost "${FS:-ext4}"
trap 'rm -rf "$bin"; loop_image_cleanup' EXIT
cc -O2 -Wall -o "$bin/dentry_move_cost" benchmarks/wa/dentry_move_cost.c
echo "file system: ${FS:-ext4} on $dev (${LOOP_SIZE}, mkfs defaults ${MKFS_OPTIONS:-})"
"$bin/dentry_move_cost" "$mnt" "$values" "$value_bytes" "$dev" "$rounds"
