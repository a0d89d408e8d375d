#!/usr/bin/env bash
# Runs the default test suite (ctest) under a sanitizer, in its own build:
#   scripts/sanitize.sh address   ASan + UBSan (and LeakSanitizer) in build-asan/
#   scripts/sanitize.sh thread    TSan in build-tsan/
# Extra arguments go to ctest (e.g. -R api_test). Exit status is ctest's;
# the last line printed is a one-line summary. Any sanitizer report makes the
# test that produced it fail (the options below halt on the first one).
#
# Not run: the bench_* ctests. They are defined by benchmarks/CMakeLists.txt
# and so only exist with DELSM_BUILD_BENCHMARKS=ON, which is off here: they
# mostly drive Debian's uninstrumented LevelDB/RocksDB shared libraries
# (TSan cannot see their synchronisation and would report false races), and
# the DeLSM paths db_bench uses are the ones the suite's own tests cover.
#
# Not run either: plyvel_dropin (tests/extra.cmake), which loads the
# library into Debian's uninstrumented python3 by dlopen, too late for a
# sanitizer runtime.
#
# Tests that re-execute themselves (test_support.h SpawnSelf) run the same
# sanitized binary with the same options; a report in the child fails the
# parent test. dropin_test runs: the sanitized libleveldb.so.1d loads into
# the unsanitized dropin_client (its runtime comes in as a dependency), so
# the C and C++ API calls the client makes are checked too.
#
# Environment: BUILD_DIR overrides the build folder; ASAN_OPTIONS,
# UBSAN_OPTIONS and TSAN_OPTIONS already set are appended to (and so
# override) the defaults below.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  address) default_dir=build-asan ;;
  thread) default_dir=build-tsan ;;
  *)
    echo "usage: $0 <address|thread> [ctest arguments...]" >&2
    exit 2
    ;;
esac
shift
BUILD_DIR=${BUILD_DIR:-$default_dir}

start=$(date +%s)
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DDELSM_SANITIZE="$mode" -DDELSM_BUILD_BENCHMARKS=OFF
cmake --build "$BUILD_DIR" -j2
built=$(date +%s)

# halt_on_error: the first report ends the process, so the test fails.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:print_stacktrace=1:check_initialization_order=1:strict_init_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"

log="$BUILD_DIR/sanitize-ctest.log"
set +e
(cd "$BUILD_DIR" && ctest -j2 --output-on-failure "$@") 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
end=$(date +%s)

# Per-test result lines look like "  12/292 Test  #12: name ....   Passed".
results=$(grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$log" || true)
count() { if [ -z "$results" ]; then echo 0; else grep -cE "$1" <<<"$results" || true; fi; }
total=$(count '.')
passed=$(count ' Passed ')
skipped=$(count '\*\*\*Skipped')
# A DISABLED_ test gets a result line ("***Not Run (Disabled)") but does
# not run: counted apart, not as a failure.
disabled=$(count 'Not Run \(Disabled\)')
failed=$((total - passed - skipped - disabled))
echo "sanitize $mode: $total tests listed, $passed passed, $failed failed," \
  "$skipped skipped, $disabled disabled; build $((built - start))s," \
  "ctest $((end - built))s (log: $log)"
exit "$rc"
