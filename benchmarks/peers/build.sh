#!/bin/sh
# Builds Release (-O2 -DNDEBUG) static libraries of LevelDB and RocksDB from
# Debian's own source packages, so db_bench_leveldb and db_bench_rocksdb can be
# measured without the assertions Debian's binary packages are compiled with.
#
# Usage: benchmarks/peers/build.sh [leveldb] [rocksdb]     (default: both)
# Output: $DELSM_PEERS_DIR/<peer>/{include,lib}/ plus BUILD_INFO, a one-line
# description that db_bench prints in its header. DELSM_PEERS_DIR defaults to
# /var/cache/delsm-peers (outside the source tree, survives rebuilds).
# benchmarks/CMakeLists.txt links these libraries when they exist; re-run
# cmake after building them.
# JOBS sets the make parallelism (default: number of cores). Needs root for
# the deb-src entry and apt-get update (skipped when sources already exist).
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
  rm -rf "$PEERS_DIR/build-rocksdb"
  # Same compression libraries as Debian's package; no tools, tests or gflags.
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

peers=${*:-leveldb rocksdb}
ensure_deb_src
for peer in $peers; do
  case $peer in
    leveldb) build_leveldb ;;
    rocksdb) build_rocksdb ;;
    *) log "unknown peer '$peer' (want leveldb or rocksdb)"; exit 2 ;;
  esac
done
