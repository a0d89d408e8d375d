#!/usr/bin/env bash
# The README's test command: set up (install, build), then run the default
# test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j2 --timeout 900 "$@"
