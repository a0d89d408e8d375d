#!/usr/bin/env bash
# Installs DeLSM's build and benchmark dependencies from Debian's packages
# (as root) and builds the tree into build/ (Release with debug info).
# Idempotent: re-running only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(build-essential cmake pkg-config libleveldb-dev libsnappy-dev
          libgtest-dev libgmock-dev librocksdb-dev python3
          python3-plyvel  # tests/api/dropin/plyvel_test.py
          iotop fio python3-matplotlib  # benchmarks/wa, benchmarks/fio
          liburing-dev  # benchmarks/readahead_io_bench (optional target)
          strace  # tests/engine/point_read_syscalls_test.py
          xfsprogs btrfs-progs  # scripts/test_on_fs.sh, benchmarks/fs_compare.sh
          clang ccache)  # scripts/thread_safety.sh
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: need root to install: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} ${CMAKE_EXTRA:-}
cmake --build "$BUILD_DIR" -j"$(nproc)"
