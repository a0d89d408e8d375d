#!/usr/bin/env bash
# The crash soak: builds the crash_soak target (tests/crash/soak/) in
# build/ and runs it for the given number of seconds (default 600). Its last
# line is the summary:
#   crash_soak: cycles=<n> violations=<m> ops_acked=<k> seconds=<s> seed=<x>
# The exit status is crash_soak's: 0 with no violation, 1 with some, 2 on a
# harness failure.
#
#   bash scripts/soak.sh [seconds] [crash_soak flags...]
#   bash scripts/soak.sh 600 --durability=deferred --seed=42
# Environment: BUILD_DIR (default build).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-600}
[ $# -gt 0 ] && shift
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" --target crash_soak -j"$(nproc)" >/dev/null
exec "$BUILD_DIR/tests/crash_soak" --seconds="$seconds" "$@"
