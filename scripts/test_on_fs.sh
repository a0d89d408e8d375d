#!/usr/bin/env bash
# Runs the test suite with its databases on a fresh file system of the
# given kind: a sparse loop image under /var/tmp, formatted with mkfs's
# default options (plus $MKFS_OPTIONS), mounted, named to the tests by
# $DELSM_TEST_DIR; unmounted and removed on exit, however the run ends.
#
#   sudo scripts/test_on_fs.sh xfs|btrfs|ext4 [ctest arguments]
#
# ctest arguments default to `-j2 --timeout 900` (the whole default suite);
# e.g. `scripts/test_on_fs.sh btrfs -R dentry --output-on-failure`. ctest
# runs niced, in $BUILD_DIR (default build/, already built). LOOP_SIZE sets
# the image's size (default 8G; sparse, so only what the tests write takes
# room under /var/tmp). Installs nothing: says what is missing and exits 2.
# Exits with ctest's status.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: $0 xfs|btrfs|ext4 [ctest arguments]" >&2
  exit 2
fi
fs=$1
shift
build=$(realpath "${BUILD_DIR:-build}")
. benchmarks/loop_image.sh
if missing=$(loop_image_mkfs_missing "$fs"); then
  echo "test_on_fs: $missing" >&2
  exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "test_on_fs: needs root (losetup, mount)" >&2
  exit 2
fi
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "test_on_fs: no test suite in $build (build it first)" >&2
  exit 2
fi
[ $# -gt 0 ] || set -- -j2 --timeout 900

loop_image_mount "test-$fs" "$fs"
export DELSM_TEST_DIR=$mnt/tests
mkdir "$DELSM_TEST_DIR"
echo "test_on_fs: $(findmnt -n -o FSTYPE,SOURCE,OPTIONS "$mnt") at $mnt;" \
  "DELSM_TEST_DIR=$DELSM_TEST_DIR"
status=0
(cd "$build" && nice ctest "$@") || status=$?
left=$(find "$DELSM_TEST_DIR" -mindepth 1 -maxdepth 1 -printf '%f ')
echo "test_on_fs: ctest exited $status on $fs; left in DELSM_TEST_DIR" \
  "(removed with the image): ${left:-nothing}"
exit "$status"
