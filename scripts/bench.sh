#!/usr/bin/env bash
# The README's main command: installs the dependencies and builds a Release
# tree in build-release/ (through scripts/setup.sh; build/ is left alone),
# then runs benchmarks/compare at its small default for DeLSM vs LevelDB and
# prints the table. Output (table, CSV, markdown, per-run logs) goes to
# out/bench-<timestamp>/.
#
# Extra arguments go to benchmarks/compare and override the defaults;
# "--engines all" means every engine (DeLSM, LevelDB, RocksDB, BlobDB):
#   bash scripts/bench.sh --engines all --num 1000000
# Environment: BUILD_DIR (build-release), CMAKE_EXTRA (default: tests off,
# the benchmark does not need them).
set -euo pipefail
cd "$(dirname "$0")/.."

export BUILD_DIR=${BUILD_DIR:-build-release}
export BUILD_TYPE=Release
export CMAKE_EXTRA=${CMAKE_EXTRA:--DDELSM_BUILD_TESTS=OFF}
bash scripts/setup.sh

ALL_ENGINES=delsm,leveldb,rocksdb,blobdb
args=(--engines delsm,leveldb)
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
# compare prints the table on stdout; keep a copy next to its CSV.
python3 benchmarks/compare --bin-dir "$BUILD_DIR/benchmarks" --out "$out" "${args[@]}" \
  | tee "$out/table.txt"
echo "bench: results in $out/"
