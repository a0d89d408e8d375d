#!/usr/bin/env bash
# The crash soak across modes: runs scripts/soak.sh's crash_soak for
# SEGMENTS segments of SECONDS each, cycling through four configurations
#   1 kSyncfs                       2 kDeferred, values that stay put
#   3 kFsync                        4 kSyncfs, values that stay put, 2 flush workers
# and prints one line per segment (the mode, DELSM_OPTIONS, and crash_soak's
# summary: cycles, violations, acknowledged operations, seed). A segment's
# directory is kept (under DIR, default /var/tmp/delsm-soak) when it saw a
# violation. Exit status: 0 if no segment saw a violation.
#
#   bash scripts/soak_mixed.sh [segments] [seconds]      (defaults 12, 420)
# Replay one segment: DELSM_OPTIONS=<its options> bash scripts/soak.sh
#   <seconds> --durability=<mode> --seed=<its seed>
# CRASH_SOAK=<path of a crash_soak binary> runs that binary instead of
# building one (a long soak keeps testing one build while the tree changes).
set -euo pipefail
cd "$(dirname "$0")/.."
segments=${1:-12}
seconds=${2:-420}
BUILD_DIR=${BUILD_DIR:-build}
DIR=${DIR:-/var/tmp/delsm-soak}
soak_bin=${CRASH_SOAK:-}
if [[ -z "$soak_bin" ]]; then
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD_DIR" --target crash_soak -j"$(nproc)" >/dev/null
  soak_bin="$BUILD_DIR/tests/crash_soak"
fi
[[ -x "$soak_bin" ]] || { echo "soak_mixed.sh: no crash_soak at $soak_bin" >&2; exit 2; }
mkdir -p "$DIR"
status=0
for i in $(seq 1 "$segments"); do
  case $((i % 4)) in
    1) mode=syncfs; opts="" ;;
    2) mode=deferred; opts="values_stay_put=1" ;;
    3) mode=fsync; opts="" ;;
    0) mode=syncfs; opts="values_stay_put=1;flush_threads=2" ;;
  esac
  dir="$DIR/segment$i"
  rm -rf "$dir"
  mkdir -p "$dir"
  line=$(DELSM_OPTIONS="$opts" "$soak_bin" \
           --seconds="$seconds" --durability="$mode" --dir="$dir" 2>&1 |
         grep '^crash_soak: cycles=' | tail -1 || true)
  echo "segment $i durability=$mode DELSM_OPTIONS=\"$opts\" $line"
  if [[ "$line" == *" violations=0 "* ]]; then
    rm -rf "$dir"
  else
    status=1
  fi
done
exit $status
