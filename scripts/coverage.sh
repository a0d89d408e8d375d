#!/usr/bin/env bash
# Which lines of the library the default test suite (ctest) executes:
# builds the tree with gcc's --coverage in its own folder, clears the
# counters, runs ctest there, and prints per-file line coverage of the
# library's sources (db/ table/ fs/ util/ port/ c/ compat/ tools/; not
# tests/, testing/ or benchmarks/), least covered first.
#
#   scripts/coverage.sh [ctest arguments...]      e.g. -L crash, -R repair
#   scripts/coverage_report.py BUILD_DIR --lines db/repair.cc
#       (afterwards: the lines of one file no test executed)
#
# What a line count means: gcov's executed lines, summed over every process
# the suite ran (tests that re-execute themselves included). A process
# killed with SIGKILL (the crash suites' children) writes no counts, so the
# code only such a child runs shows as not executed; the parent's recovery
# of what it left does count. Counts are for reading which error paths no
# test reaches; they are not a target.
#
# Environment: BUILD_DIR (default build-cov). The build is Debug at -O1
# (so lines map to code) without the benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-cov}

start=$(date +%s)
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS="-O1 --coverage" -DCMAKE_CXX_FLAGS="-O1 --coverage" \
  -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage \
  -DDELSM_BUILD_BENCHMARKS=OFF
cmake --build "$BUILD_DIR" -j2
built=$(date +%s)

find "$BUILD_DIR" -name '*.gcda' -delete
set +e
(cd "$BUILD_DIR" && ctest -j2 --timeout 1800 "$@") >"$BUILD_DIR/coverage-ctest.log" 2>&1
rc=$?
set -e
tail -n 3 "$BUILD_DIR/coverage-ctest.log"
end=$(date +%s)

python3 scripts/coverage_report.py "$BUILD_DIR"
echo "coverage: build $((built - start))s, ctest $((end - built))s" \
  "(ctest exit $rc; log: $BUILD_DIR/coverage-ctest.log)"
exit "$rc"
