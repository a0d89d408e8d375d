#!/usr/bin/env bash
# How much must a dentry move? The same random fill with values moved down
# two levels (the defaults at 1M keys: L0 -> L1 -> L2), one level (L1 never
# fills) and none (no compaction at all: every value stays in the L0
# directory its flush created), on a fresh loop-mounted ext4 each, with the
# device's block writes traced and classified by ext4 region
# (block_classes.py). "none" is a bound, not a usable mode: nothing merges
# meta files or frees overwritten values.
#
#   sudo benchmarks/wa/dentry_moves.sh DB_BENCH [NUM] [VALUE_SIZE]
#
# DB_BENCH: DeLSM's db_bench (a Release build). NUM defaults to 1000000,
# VALUE_SIZE to 4096. The image (/var/tmp/dentry-moves-<pid>.img, 40 GiB
# sparse) is removed afterwards; results go to ./dentry-moves-<date>/.
# Needs root, perf (linux-perf), dumpe2fs and debugfs (e2fsprogs).
set -euo pipefail
db_bench=${1:?usage: dentry_moves.sh DB_BENCH [NUM] [VALUE_SIZE]}
num=${2:-1000000}
value_size=${3:-4096}
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "dentry_moves: needs root (loop device)" >&2; exit 2; }
for tool in perf mkfs.ext4 losetup dumpe2fs debugfs; do
  command -v "$tool" >/dev/null || { echo "dentry_moves: $tool not found" >&2; exit 2; }
done
out=$PWD/dentry-moves-$(date -u +%Y%m%dT%H%M%S)
mkdir "$out"
image=/var/tmp/dentry-moves-$$.img
mnt=$(mktemp -d /tmp/dentry-moves-mnt.XXXXXX)
dev=""
cleanup() {
  mountpoint -q "$mnt" && umount "$mnt"
  [ -n "$dev" ] && losetup -d "$dev"
  rm -f "$image"
  rmdir "$mnt"
}
trap cleanup EXIT
truncate -s 40G "$image"
dev=$(losetup --find --show "$image")
devnum=$(( $(stat -c '%t' "$dev" | sed 's/^/0x/') << 20 | $(stat -c '%T' "$dev" | sed 's/^/0x/') ))
counter=/sys/fs/ext4/$(basename "$dev")/session_write_kbytes

declare -A spec
spec[two]=""
spec[one]="l1_entries=100000000000"
spec[none]="l0_compaction_entries=1000000000000;l0_compaction_dirs=100000000;l0_slowdown_dirs=100000000;l0_stop_dirs=100000000"

for moves in two one none; do
  # A fresh file system per run; inode tables and journal zeroed by mkfs, so
  # the kernel's lazy initialisation does not write during the run.
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev"
  mount "$dev" "$mnt"
  dumpe2fs "$dev" > "$out/$moves.dumpe2fs" 2>/dev/null
  debugfs -R "stat <8>" "$dev" > "$out/$moves.journal" 2>/dev/null
  before=$(cat "$counter")
  options="durability=syncfs${spec[$moves]:+;${spec[$moves]}}"
  echo "== moves=$moves DELSM_OPTIONS=$options load=$(cut -d' ' -f1-3 /proc/loadavg)"
  DELSM_OPTIONS="$options" perf record -q -m 256M -e block:block_rq_issue \
      --filter "dev == $devnum" -a -o "$out/$moves.perf.data" -- \
      "$db_bench" --db="$mnt/db" --num="$num" --value_size="$value_size" \
      --benchmarks=fillrandom > "$out/$moves.out" 2> "$out/$moves.err"
  sync
  after=$(cat "$counter")
  grep -E "^fillrandom|user bytes|process write_bytes" "$out/$moves.out"
  echo "device bytes (session_write_kbytes after sync): $(( (after - before) * 1024 ))"
  python3 "$here/block_classes.py" "$out/$moves.perf.data" \
      "$out/$moves.dumpe2fs" "$out/$moves.journal" | tee "$out/$moves.classes"
  cp "$mnt/db/LOG" "$out/$moves.LOG"
  umount "$mnt"
done
echo "results in $out"
