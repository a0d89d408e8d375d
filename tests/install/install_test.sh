#!/usr/bin/env bash
# Installation: installs the build into a temporary prefix, checks
# what landed there, builds two small consumers against the installed copy
# (one with find_package(delsm), one with pkg-config) and runs them, then
# runs a program whose DT_NEEDED is libleveldb.so.1 (upstream LevelDB's
# soname) on the installed drop-in.
#
# Usage: install_test.sh <build dir> <source dir> <libdir> <so1 client>
#   libdir:     CMAKE_INSTALL_LIBDIR (relative to the prefix)
#   so1 client: dropin_client linked by soname against a libleveldb.so.1
#               that is not on any search path (tests/install/install.cmake)
# Environment: CMAKE, CC, and CONSUMER_FLAGS (compiler and linker flags for
# the consumers, e.g. the sanitizer a sanitized build was made with).
# Everything happens under one scratch folder (under $DELSM_TEST_DIR, else
# $TMPDIR, else /tmp), removed at the end.
set -u
BUILD=$1 SRC=$2 LIBDIR=$3 SO1_CLIENT=$4
CMAKE=${CMAKE:-cmake}
scratch=$(mktemp -d "${DELSM_TEST_DIR:-${TMPDIR:-/tmp}}/install_test.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
failed=0
fail() { echo "FAIL: $*"; failed=1; }

echo "-- cmake --install into $prefix"
if ! "$CMAKE" --install "$BUILD" --prefix "$prefix" >"$scratch/install.log" 2>&1; then
  cat "$scratch/install.log"
  echo "FAIL: cmake --install"
  exit 1
fi
(cd "$prefix" && find . | sort)

lib=$prefix/$LIBDIR
dropin=$lib/delsm/leveldb-dropin
for f in include/delsm/delsm.h include/delsm/c.h bin/delsm "$LIBDIR/libdelsm.a" \
         "$LIBDIR/libdelsm.so.1.23.0" "$LIBDIR/cmake/delsm/delsmConfig.cmake" \
         "$LIBDIR/cmake/delsm/delsmConfigVersion.cmake" \
         "$LIBDIR/pkgconfig/delsm.pc"; do
  [ -f "$prefix/$f" ] || fail "$f not installed"
done
link_to() {  # link_to <link> <expected target>
  [ -L "$1" ] && [ "$(readlink "$1")" = "$2" ] || fail "$1 is not a link to $2"
}
link_to "$lib/libdelsm.so.1" libdelsm.so.1.23.0
link_to "$lib/libdelsm.so" libdelsm.so.1
link_to "$dropin/libleveldb.so.1d" libleveldb.so.1.23.0
link_to "$dropin/libleveldb.so.1" libleveldb.so.1d
[ -e "$lib/libleveldb.so.1d" ] || [ -e "$lib/libleveldb.so.1" ] &&
  fail "the drop-in is in $lib itself, where it would shadow the system's LevelDB"
[ -e "$dropin/libleveldb.so" ] && fail "the drop-in folder has a libleveldb.so link"
# Nothing of the source tree's private layout in the package.
if grep -rl -e "$SRC" -e LEVELDB_COMPILE_LIBRARY "$lib/cmake/delsm" "$lib/pkgconfig"; then
  fail "the package files name the source tree or LEVELDB_COMPILE_LIBRARY"
fi

echo "-- find_package(delsm) consumer"
cbuild=$scratch/consumer-build
if "$CMAKE" -S "$SRC/tests/install/consumer" -B "$cbuild" \
      -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_FLAGS="${CONSUMER_FLAGS:-}" \
      -DCMAKE_EXE_LINKER_FLAGS="${CONSUMER_FLAGS:-}" >"$scratch/c.log" 2>&1 &&
    "$CMAKE" --build "$cbuild" >>"$scratch/c.log" 2>&1; then
  [ "$(cat "$cbuild/dropin_dir.txt")" = "$dropin" ] ||
    fail "delsm_DROPIN_DIR is '$(cat "$cbuild/dropin_dir.txt")', want $dropin"
  for c in consumer_shared consumer_static; do
    out=$("$cbuild/$c" "$scratch/db-$c" 2>&1)
    echo "$c: $out"
    case $out in "consumer: ok"*) ;; *) fail "$c did not run" ;; esac
  done
  # The shared consumer uses the installed libdelsm, not the build's.
  ldd "$cbuild/consumer_shared" | grep -q "$lib/libdelsm.so.1" ||
    fail "consumer_shared does not load $lib/libdelsm.so.1: $(ldd "$cbuild/consumer_shared")"
  readelf -d "$cbuild/consumer_static" | grep -q 'NEEDED.*libdelsm' &&
    fail "consumer_static needs libdelsm.so"
else
  cat "$scratch/c.log"
  fail "the find_package consumer did not build"
fi

echo "-- pkg-config consumer"
export PKG_CONFIG_PATH=$lib/pkgconfig
if flags=$(pkg-config --cflags --libs delsm); then
  echo "pkg-config --cflags --libs delsm: $flags"
  # shellcheck disable=SC2086
  if ${CC:-cc} ${CONSUMER_FLAGS:-} -o "$scratch/consumer_c" "$SRC/tests/install/consumer_c.c" $flags \
      2>"$scratch/cc.log"; then
    out=$(LD_LIBRARY_PATH=$lib "$scratch/consumer_c" "$scratch/db-c" 2>&1)
    echo "consumer_c: $out"
    [ "$out" = "consumer_c: ok" ] || fail "the pkg-config consumer did not run"
    LD_LIBRARY_PATH=$lib ldd "$scratch/consumer_c" | grep -q "$lib/libdelsm.so.1" ||
      fail "consumer_c does not load $lib/libdelsm.so.1"
  else
    cat "$scratch/cc.log"
    fail "the pkg-config consumer did not build"
  fi
else
  fail "pkg-config does not find delsm in $PKG_CONFIG_PATH"
fi

echo "-- a program linked against libleveldb.so.1 on the installed drop-in"
needed=$(readelf -d "$SO1_CLIENT" | sed -n 's/.*(NEEDED).*\[\(libleveldb[^]]*\)\].*/\1/p')
[ "$needed" = "libleveldb.so.1" ] || fail "$SO1_CLIENT needs '$needed', want libleveldb.so.1"
mkdir "$scratch/so1"
out=$(env -u LD_PRELOAD LD_BIND_NOW=1 LD_LIBRARY_PATH="$dropin" \
      "$SO1_CLIENT" "$scratch/so1" 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "the libleveldb.so.1 client exited $rc: $out"
libs=$(printf '%s\n' "$out" | sed -n 's/^LIB //p')
echo "loaded: $libs"
real_dropin=$(realpath "$dropin")
[ "$(printf '%s\n' "$libs" | wc -l)" = 1 ] && case $libs in "$real_dropin"/*) true ;; *) false ;; esac ||
  fail "the client loaded '$libs', want one library from $real_dropin"
printf '%s\n' "$out" | grep -q '^== end' || fail "the client did not finish: $out"

if [ $failed -ne 0 ]; then
  echo "install_test: FAILED"
  exit 1
fi
echo "install_test: passed"
