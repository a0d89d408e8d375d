#!/usr/bin/env bash
# Clang's thread-safety analysis over the library, the delsm tool, the test
# scaffolding (testing/) and every test, as errors: a field read or written
# without the mutex its GUARDED_BY names, a function called without the
# mutex its EXCLUSIVE_LOCKS_REQUIRED names (or with one its LOCKS_EXCLUDED
# names), a lock not released on some path. See port/thread_annotations.h.
#
# Builds in its own folder (BUILD_DIR, default build-tsa/) with clang++ at
# -O0 and no debug info, since only the compiler's diagnostics matter; the
# benchmarks are not built (they add DeLSM nothing the library build does
# not check, and most of their time is spent compiling peers' adapters).
# Nothing is run. Uses ccache when it is installed.
# Exit status: 0 when everything compiles without a thread-safety warning.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build-tsa}
CXX_BIN=${CLANGXX:-clang++}
C_BIN=${CLANG:-clang}
if ! command -v "$CXX_BIN" >/dev/null; then
  echo "thread_safety: $CXX_BIN not found (apt-get install clang)" >&2
  exit 1
fi
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

start=$(date +%s)
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_COMPILER="$CXX_BIN" -DCMAKE_C_COMPILER="$C_BIN" \
  -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g0" \
  -DCMAKE_CXX_FLAGS="-Wthread-safety -Werror=thread-safety" \
  -DDELSM_BUILD_TESTS=ON -DDELSM_BUILD_BENCHMARKS=OFF -DDELSM_INSTALL=OFF \
  "${launcher[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j"${JOBS:-$(nproc)}"
echo "thread_safety: no thread-safety warnings; built in" \
  "$(($(date +%s) - start))s ($BUILD_DIR)"
