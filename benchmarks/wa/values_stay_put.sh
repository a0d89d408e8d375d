#!/usr/bin/env bash
# The paper's mode (values move down level by level) against values that
# stay put (Tuning::values_stay_put, docs/DESIGN.md section 5): the same
# db_bench run on a fresh ext4 each time (one loop device, re-made with
# mkfs per run), the two modes alternating, ROUNDS rounds. Prints each
# run's µs/op per benchmark, the bytes the device received (the ext4's
# session_write_kbytes after sync: journal and metadata included), the
# process's write_bytes and the user bytes written.
#
#   sudo benchmarks/wa/values_stay_put.sh DB_BENCH [NUM] [VALUE_SIZE] [ROUNDS]
#
# DB_BENCH: DeLSM's db_bench (a Release build). NUM defaults to 300000,
# VALUE_SIZE to 4096, ROUNDS to 2. The image (/var/tmp/stay-put-<pid>.img,
# 16 GiB sparse) is removed afterwards; each run's output goes to
# ./stay-put-<date>/.
set -euo pipefail
db_bench=${1:?usage: values_stay_put.sh DB_BENCH [NUM] [VALUE_SIZE] [ROUNDS]}
num=${2:-300000}
value_size=${3:-4096}
rounds=${4:-2}
[ "$(id -u)" -eq 0 ] || { echo "values_stay_put: needs root (loop device)" >&2; exit 2; }
for tool in mkfs.ext4 losetup; do
  command -v "$tool" >/dev/null || { echo "values_stay_put: $tool not found" >&2; exit 2; }
done
out=$PWD/stay-put-$(date -u +%Y%m%dT%H%M%S)
mkdir "$out"
image=/var/tmp/stay-put-$$.img
mnt=$(mktemp -d /tmp/stay-put-mnt.XXXXXX)
dev=""
cleanup() {
  mountpoint -q "$mnt" && umount "$mnt"
  [ -n "$dev" ] && losetup -d "$dev"
  rm -f "$image"
  rmdir "$mnt"
}
trap cleanup EXIT
truncate -s 16G "$image"
dev=$(losetup --find --show "$image")
counter=/sys/fs/ext4/$(basename "$dev")/session_write_kbytes

for round in $(seq 1 "$rounds"); do
  for mode in default stay_put; do
    # Inode tables and journal zeroed by mkfs, so the kernel's lazy
    # initialisation does not write during the run.
    mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev"
    mount "$dev" "$mnt"
    options="values_stay_put=0"
    [ "$mode" = stay_put ] && options="values_stay_put=1"
    before=$(cat "$counter")
    echo "== round $round mode=$mode DELSM_OPTIONS=$options load=$(cut -d' ' -f1-3 /proc/loadavg)"
    DELSM_OPTIONS="$options" "$db_bench" --db="$mnt/db" --num="$num" \
        --value_size="$value_size" \
        --benchmarks=fillrandom,overwrite,readrandom,stats \
        > "$out/$mode-$round.out" 2> "$out/$mode-$round.err"
    sync
    after=$(cat "$counter")
    grep -E "^(fillrandom|overwrite|readrandom) |user bytes|process write_bytes|^(links|unlinks|kv-files-created|compactions):" \
        "$out/$mode-$round.out" || true
    echo "device bytes (session_write_kbytes after sync): $(( (after - before) * 1024 ))"
    umount "$mnt"
  done
done
echo "results in $out"
