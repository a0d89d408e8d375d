#!/bin/sh
# Builds Release (-O2 -DNDEBUG) static libraries of the peers db_bench is
# measured against:
# - LevelDB and RocksDB from Debian's own source packages, so
#   db_bench_leveldb and db_bench_rocksdb run without the assertions Debian's
#   binary packages are compiled with;
# - PebblesDB (github.com/utsaslab/pebblesdb) and BoLT (github.com/DICL/BoLT,
#   its LevelDBBoLT tree), the two competitors the paper measured from their
#   authors' code. They are not Debian packages: pass a checkout of each.
#   The checkout is copied (PebblesDB's CMake writes config.h into its source
#   folder) and left untouched.
#
# Usage: benchmarks/peers/build.sh [leveldb] [rocksdb] [pebblesdb CHECKOUT]
#                                  [bolt CHECKOUT]      (default: leveldb rocksdb)
#   e.g. benchmarks/peers/build.sh pebblesdb /var/tmp/peers-src/pebblesdb
# Output: $DELSM_PEERS_DIR/<peer>/{include,lib}/ plus BUILD_INFO, a one-line
# description that db_bench prints in its header. DELSM_PEERS_DIR defaults to
# /var/cache/delsm-peers (outside the source tree, survives rebuilds).
# benchmarks/CMakeLists.txt links these libraries when they exist; re-run
# cmake after building them.
# JOBS sets the make parallelism (default: number of cores). Needs root for
# the deb-src entry and apt-get update (skipped when sources already exist);
# PebblesDB and BoLT need neither root nor the network.
set -eu

PEERS_DIR=${DELSM_PEERS_DIR:-/var/cache/delsm-peers}
JOBS=${JOBS:-$(nproc)}
RELEASE_FLAGS="-O2 -DNDEBUG"
SRC_LIST=/etc/apt/sources.list.d/delsm-deb-src.sources

log() { echo "peers/build.sh: $*" >&2; }

# apt-get source needs a deb-src entry for the suite the binaries came from,
# so the sources match the installed packages exactly.
ensure_deb_src() {
  if apt-get source --print-uris leveldb >/dev/null 2>&1; then
    return 0
  fi
  . /etc/os-release
  suite=${VERSION_CODENAME:?cannot tell the Debian suite}
  log "adding deb-src entry for $suite in $SRC_LIST"
  cat >"$SRC_LIST" <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  apt-get update -qq
}

# Unpacks Debian's source package $1 (with Debian's patches applied) into
# $PEERS_DIR/src and prints the unpacked directory.
fetch_source() {
  pkg=$1
  mkdir -p "$PEERS_DIR/src"
  version=$(dpkg-query -W -f='${source:Version}' "$2" 2>/dev/null || true)
  (
    cd "$PEERS_DIR/src"
    if [ -n "$version" ]; then
      apt-get source -qq "$pkg=$version" >&2 || apt-get source -qq "$pkg" >&2
    else
      apt-get source -qq "$pkg" >&2
    fi
  )
  ls -d "$PEERS_DIR/src/$pkg"-*/ | sort | tail -n 1
}

build_leveldb() {
  dest=$PEERS_DIR/leveldb
  if [ -f "$dest/BUILD_INFO" ]; then
    log "LevelDB already built: $(cat "$dest/BUILD_INFO")"
    return 0
  fi
  src=$(fetch_source leveldb libleveldb-dev)
  ver=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version 2>/dev/null || basename "$src")
  log "building LevelDB from $src"
  rm -rf "$PEERS_DIR/build-leveldb"
  cmake -S "$src" -B "$PEERS_DIR/build-leveldb" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="$RELEASE_FLAGS" -DCMAKE_CXX_FLAGS_RELEASE="$RELEASE_FLAGS" \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF \
    -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF -DLEVELDB_INSTALL=ON \
    -DCMAKE_INSTALL_PREFIX="$dest" -DCMAKE_INSTALL_LIBDIR=lib >&2
  cmake --build "$PEERS_DIR/build-leveldb" -j "$JOBS" >&2
  cmake --install "$PEERS_DIR/build-leveldb" >&2
  echo "LevelDB $ver Release peer (static, $RELEASE_FLAGS, Debian source)" >"$dest/BUILD_INFO"
  log "done: $(cat "$dest/BUILD_INFO")"
}

build_rocksdb() {
  dest=$PEERS_DIR/rocksdb
  if [ -f "$dest/BUILD_INFO" ]; then
    log "RocksDB already built: $(cat "$dest/BUILD_INFO")"
    return 0
  fi
  src=$(fetch_source rocksdb librocksdb-dev)
  ver=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version 2>/dev/null || basename "$src")
  log "building RocksDB from $src (long: about an hour per core)"
  # The build directory is kept between runs: an interrupted build (about an
  # hour per core) resumes where it stopped. Same compression libraries as Debian's package; no tools, tests or gflags.
  cmake -S "$src" -B "$PEERS_DIR/build-rocksdb" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="$RELEASE_FLAGS" -DCMAKE_CXX_FLAGS_RELEASE="$RELEASE_FLAGS" \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DPORTABLE=1 -DFAIL_ON_WARNINGS=OFF \
    -DWITH_TESTS=OFF -DWITH_BENCHMARK_TOOLS=OFF -DWITH_TOOLS=OFF -DWITH_CORE_TOOLS=OFF \
    -DWITH_GFLAGS=OFF -DWITH_LIBURING=OFF -DROCKSDB_BUILD_SHARED=OFF \
    -DWITH_SNAPPY=ON -DWITH_LZ4=ON -DWITH_ZSTD=ON -DWITH_ZLIB=ON -DWITH_BZ2=ON \
    -DCMAKE_INSTALL_PREFIX="$dest" -DCMAKE_INSTALL_LIBDIR=lib >&2
  cmake --build "$PEERS_DIR/build-rocksdb" --target rocksdb -j "$JOBS" >&2
  mkdir -p "$dest/lib" "$dest/include"
  cp "$PEERS_DIR/build-rocksdb/librocksdb.a" "$dest/lib/"
  cp -r "$src/include/rocksdb" "$dest/include/"
  echo "RocksDB $ver Release peer (static, $RELEASE_FLAGS, Debian source)" >"$dest/BUILD_INFO"
  log "done: $(cat "$dest/BUILD_INFO")"
}

# Copies checkout $2 of peer $1 to $PEERS_DIR/src-$1 (a fresh copy each
# time) and prints the copy's path; fails naming the folder when $2 does not
# look like that peer's checkout (marker file $3 missing).
copy_checkout() {
  if [ -z "$2" ] || [ ! -f "$2/$3" ]; then
    log "$1: '$2' is not a $1 checkout (no $3 in it); get one with" \
      "git clone $4"
    exit 2
  fi
  copy=$PEERS_DIR/src-$1
  rm -rf "$copy"
  mkdir -p "$copy"
  cp -a "$2/." "$copy/"
  rm -rf "$copy/.git" "$copy/build"
  echo "$copy"
}

# Describes checkout $1: its git commit when it is a git work tree.
checkout_version() {
  git -C "$1" rev-parse --short HEAD 2>/dev/null || echo "checkout $1"
}

# PebblesDB (SOSP '17): its own CMake build of libpebblesdb.a, headers under
# include/pebblesdb/ (namespace leveldb, LevelDB's API).
build_pebblesdb() {
  dest=$PEERS_DIR/pebblesdb
  ver=$(checkout_version "$1")
  src=$(copy_checkout pebblesdb "$1" src/include/pebblesdb/db.h \
    https://github.com/utsaslab/pebblesdb)
  log "building PebblesDB from $src ($ver)"
  rm -rf "$dest" "$PEERS_DIR/build-pebblesdb"
  cmake -S "$src" -B "$PEERS_DIR/build-pebblesdb" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="$RELEASE_FLAGS" -DCMAKE_CXX_FLAGS_RELEASE="$RELEASE_FLAGS" \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF \
    -DPEBBLESDB_BUILD_TESTS=OFF -DPEBBLESDB_INSTALL=ON \
    -DCMAKE_INSTALL_PREFIX="$dest" -DCMAKE_INSTALL_LIBDIR=lib >"$PEERS_DIR/pebblesdb-cmake.log" 2>&1 ||
    { tail -n 20 "$PEERS_DIR/pebblesdb-cmake.log" >&2; exit 1; }
  cmake --build "$PEERS_DIR/build-pebblesdb" --target pebblesdb -j "$JOBS" >&2
  cmake --install "$PEERS_DIR/build-pebblesdb" >&2
  echo "PebblesDB $ver Release peer (static, $RELEASE_FLAGS, utsaslab/pebblesdb)" >"$dest/BUILD_INFO"
  log "done: $(cat "$dest/BUILD_INFO")"
}

# BoLT (Middleware '20): the LevelDBBoLT tree of DICL/BoLT (BoLT on LevelDB
# 1.21; the repository's other tree is BoLT on HyperLevelDB). Headers under
# include/leveldb/, library libleveldb.a, installed as libbolt.a.
build_bolt() {
  dest=$PEERS_DIR/bolt
  ver=$(checkout_version "$1")
  src=$(copy_checkout bolt "$1" LevelDBBoLT/include/leveldb/db.h \
    https://github.com/DICL/BoLT)
  log "building BoLT (LevelDBBoLT) from $src ($ver)"
  rm -rf "$dest" "$PEERS_DIR/build-bolt"
  cmake -S "$src/LevelDBBoLT" -B "$PEERS_DIR/build-bolt" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="$RELEASE_FLAGS" -DCMAKE_CXX_FLAGS_RELEASE="$RELEASE_FLAGS" \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF \
    -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF -DLEVELDB_INSTALL=ON \
    -DCMAKE_INSTALL_PREFIX="$dest" -DCMAKE_INSTALL_LIBDIR=lib >"$PEERS_DIR/bolt-cmake.log" 2>&1 ||
    { tail -n 20 "$PEERS_DIR/bolt-cmake.log" >&2; exit 1; }
  cmake --build "$PEERS_DIR/build-bolt" --target leveldb -j "$JOBS" >&2
  cmake --install "$PEERS_DIR/build-bolt" >&2
  mv "$dest/lib/libleveldb.a" "$dest/lib/libbolt.a"
  echo "BoLT (LevelDBBoLT) $ver Release peer (static, $RELEASE_FLAGS, DICL/BoLT)" >"$dest/BUILD_INFO"
  log "done: $(cat "$dest/BUILD_INFO")"
}

set -- ${*:-leveldb rocksdb}
deb_src_ready=0
while [ $# -gt 0 ]; do
  case $1 in
    leveldb|rocksdb)
      if [ $deb_src_ready = 0 ]; then ensure_deb_src; deb_src_ready=1; fi
      build_"$1"
      ;;
    pebblesdb|bolt)
      if [ $# -lt 2 ]; then
        log "$1 needs the path of a checkout: $0 $1 /path/to/checkout"
        exit 2
      fi
      build_"$1" "$2"
      shift
      ;;
    *) log "unknown peer '$1' (want leveldb, rocksdb, pebblesdb DIR or bolt DIR)"; exit 2 ;;
  esac
  shift
done
