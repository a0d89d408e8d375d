#!/usr/bin/env bash
# Runs the default test suite N times in a row (default 10) in an existing
# build (BUILD_DIR, default build) and prints one line per run: its number,
# the load average when it started, ctest's summary and its wall time. A
# test that fails once under load is a defect: every run's failing tests
# are named, and their output is kept in LOG_DIR (default
# /var/tmp/delsm-test-repeat/<time>). Exit status: 0 if every run passed.
#
#   bash scripts/test_repeat.sh [runs] [ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
shift || true
build=${BUILD_DIR:-build}
[[ -f "$build/CTestTestfile.cmake" ]] || {
  echo "test_repeat: no built suite in $build (run scripts/test.sh first)" >&2
  exit 2
}
log_dir=${LOG_DIR:-/var/tmp/delsm-test-repeat/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$log_dir"
status=0
for i in $(seq 1 "$runs"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  start=$(date +%s)
  rc=0
  (cd "$build" && ctest --output-on-failure -j2 --timeout 900 "$@") \
    >"$log_dir/run$i.log" 2>&1 || rc=$?
  secs=$(($(date +%s) - start))
  summary=$(grep -E "tests passed|tests failed" "$log_dir/run$i.log" | tail -1)
  echo "run $i: load $load at start; ${summary:-no summary (ctest exit $rc)}; ${secs} s"
  if [[ $rc -ne 0 ]]; then
    status=1
    sed -n '/The following tests FAILED/,$p' "$log_dir/run$i.log"
  else
    rm -f "$log_dir/run$i.log"
  fi
done
exit $status
