#!/usr/bin/env bash
# The README's main command: installs the dependencies and builds a Release
# tree in build-release/ (through scripts/setup.sh; build/ is left alone),
# builds (once, cached) a Release LevelDB from Debian's source to compare
# against, then runs benchmarks/compare with 100,000 keys for DeLSM vs
# LevelDB and prints the table. Output (table, CSV, markdown, per-run logs) goes to
# out/bench-<timestamp>/.
#
# The databases go on a dedicated ext4 (with a journal, default format) on a
# loop device that this script creates and removes, when run as root:
# `syncfs`, which DeLSM calls once per flush, then waits only for the
# benchmark's own data, not for every other process's writes to the shared
# file system (benchmarks/fio/RESULTS.md). Without root, or with BENCH_LOOP=0, they go
# under /tmp.
#
# Extra arguments go to benchmarks/compare and override the defaults;
# "--engines all" means every engine (DeLSM, LevelDB, RocksDB, BlobDB, and
# PebblesDB and BoLT where benchmarks/peers/build.sh built them):
#   bash scripts/bench.sh --engines all --num 1000000
# Environment: BUILD_DIR (build-release), CMAKE_EXTRA (default: tests off,
# the benchmark does not need them), BENCH_LOOP (1), BENCH_LOOP_SIZE (16G),
# PYTHON (/usr/bin/python3 when present), DELSM_PEERS_DIR (/var/cache/delsm-peers).
set -euo pipefail
cd "$(dirname "$0")/.."

export BUILD_DIR=${BUILD_DIR:-build-release}
export BUILD_TYPE=Release
export CMAKE_EXTRA=${CMAKE_EXTRA:--DDELSM_BUILD_TESTS=OFF}
bash scripts/setup.sh

# The LevelDB to compare against: a Release build of Debian's own LevelDB
# source (benchmarks/peers/build.sh, about a minute once, then cached in
# $DELSM_PEERS_DIR), because Debian's binary package keeps its assertions
# on. Only if that cannot be built does the comparison fall back to
# Debian's library, and it says so.
peers_dir=${DELSM_PEERS_DIR:-/var/cache/delsm-peers}
if [ ! -f "$peers_dir/leveldb/BUILD_INFO" ]; then
  echo "bench: building a Release LevelDB from Debian's source (cached in $peers_dir)"
  if sh benchmarks/peers/build.sh leveldb; then
    bash scripts/setup.sh  # re-configure so db_bench_leveldb links it
  fi
fi
if ldd "$BUILD_DIR/benchmarks/db_bench_leveldb" | grep -q 'libleveldb\.so'; then
  cat >&2 <<'WARN'
########################################################################
bench: WARNING: comparing against Debian's LevelDB shared library, which
is built with assertions on and so slower than a Release LevelDB: the
LevelDB figures below understate it. benchmarks/peers/build.sh could not
build the Release peer (it needs root for `apt-get source`; see its log
above). Fix that and re-run for a fair comparison.
########################################################################
WARN
else
  echo "bench: LevelDB peer: $(cat "$peers_dir/leveldb/BUILD_INFO")"
fi

ALL_ENGINES=delsm,leveldb,rocksdb,blobdb,pebblesdb,bolt
# 100k keys: enough for flushes and compactions through two levels, and
# still a few minutes on 2 cores. A later --num overrides it.
args=(--engines delsm,leveldb --num 100000)
while [ $# -gt 0 ]; do
  case "$1" in
    --engines=all) args+=(--engines "$ALL_ENGINES") ;;
    --engines)
      if [ "${2:-}" = all ]; then
        args+=(--engines "$ALL_ENGINES")
        shift
      else
        args+=("$1")
      fi
      ;;
    *) args+=("$1") ;;
  esac
  shift
done

out="out/bench-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"

if [ "${BENCH_LOOP:-1}" = 1 ] && [ "$(id -u)" -eq 0 ] &&
    command -v mkfs.ext4 >/dev/null && command -v losetup >/dev/null; then
  image=$(mktemp /var/tmp/delsm-bench-XXXXXX.img)
  mnt=$(mktemp -d /tmp/delsm-bench-mnt-XXXXXX)
  cleanup() {
    umount "$mnt" 2>/dev/null || true
    rmdir "$mnt" 2>/dev/null || true
    rm -f "$image"
  }
  trap cleanup EXIT
  truncate -s "${BENCH_LOOP_SIZE:-16G}" "$image"
  mkfs.ext4 -q -F "$image"
  mount -o loop "$image" "$mnt"
  # --trim: the sparse image gives freed blocks back to the host during
  # the run, so a long one does not fill the host's disk. --device: each
  # measured run's bytes written to the loop device (after a sync) go in
  # the CSV beside the process's own counters.
  args+=(--db-root "$mnt/db" --trim)
  dev=$(findmnt -n -o SOURCE "$mnt")
  if [ -n "$dev" ] && [ -r "/sys/block/$(basename "$dev")/stat" ]; then
    args+=(--device "$(basename "$dev")")
  fi
  echo "bench: databases on a dedicated loop-mounted ext4 at $mnt${dev:+ ($dev)}"
else
  echo "bench: databases under /tmp (a shared file system; run as root for a dedicated one)"
fi
# The Python that scripts/setup.sh gave python3-matplotlib: Debian's, not
# whichever python3 comes first on PATH (a pyenv one has no matplotlib, and
# the chart would be missing). PYTHON overrides.
python=${PYTHON:-python3}
if [ -z "${PYTHON:-}" ] && [ -x /usr/bin/python3 ]; then
  python=/usr/bin/python3
fi
if ! "$python" -c 'import matplotlib' 2>/dev/null; then
  echo "bench: WARNING: $python cannot import matplotlib: no chart (results.png)" >&2
fi
# compare prints the table on stdout; keep a copy next to its CSV.
"$python" benchmarks/compare --bin-dir "$BUILD_DIR/benchmarks" --out "$out" "${args[@]}" \
  | tee "$out/table.txt"
echo "bench: results in $out/"
