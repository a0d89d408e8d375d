#!/bin/sh
# `compare --ratios` prints RESULTS.md's tables from a results.csv: the
# peer's micros/op divided by DeLSM's per workload and value size (a
# workload of several stages is one row, its stages in the CSV's order; of
# several runs the median and range), and with --value-size every peer's ratio at one size beside DeLSM's
# micros/op. Checked on rows whose ratios are known; a cell where either
# engine has no figure stays empty rather than being guessed.
#
# Usage: compare_ratios_test.sh <compare> <python>
set -u
COMPARE=$1 PY=$2
TMP=$(mktemp -d "${DELSM_TEST_DIR:-${TMPDIR:-/tmp}}/compare_ratios.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
FAILED=0
cat >"$TMP/results.csv" <<'CSV'
value_size,workload,line,engine,micros_op,build
128,fillrandom,fillrandom,delsm,2.0,"this tree, Release"
128,fillrandom,fillrandom,leveldb,4.0,"LevelDB, Release"
128,fillrandom,fillrandom,rocksdb,1.0,"RocksDB, Release"
128,writedeleteread,writedeleteread/fill,delsm,2.0,"this tree, Release"
128,writedeleteread,writedeleteread/fill,leveldb,3.0,"LevelDB, Release"
128,writedeleteread,writedeleteread/delete,delsm,1.0,"this tree, Release"
128,writedeleteread,writedeleteread/delete,leveldb,0.5,"LevelDB, Release"
1024,fillrandom,fillrandom,delsm,1.0,"this tree, Release"
1024,fillrandom,fillrandom,leveldb,,"LevelDB, Release"
CSV
run() {
  if ! "$PY" "$COMPARE" "$@" >"$TMP/out.txt" 2>&1; then
    cat "$TMP/out.txt"; echo "FAIL: compare $* exited non-zero"; FAILED=1
  fi
}
expect() {
  grep -qxF -- "$1" "$TMP/out.txt" || { cat "$TMP/out.txt"; echo "FAIL: no line: $1"; FAILED=1; }
}
run --ratios "$TMP/results.csv"
expect "| workload | 128 B | 1 KiB |"
expect "| fillrandom | 2.00× |  |"
expect "| writedeleteread: fill / delete | 1.50 / 0.50× |  |"
run --ratios "$TMP/results.csv" --peer rocksdb
expect "| fillrandom | 0.50× |  |"
if grep -q writedeleteread "$TMP/out.txt"; then
  echo "FAIL: a workload the peer has no figure for got a row"; FAILED=1
fi
run --ratios "$TMP/results.csv" --value-size 128
expect "| 128 B workload | DeLSM µs/op | leveldb | rocksdb |"
expect "| fillrandom | 2.0 | 2.00× | 0.50× |"
expect "| writedeleteread/delete | 1.0 | 0.50× |  |"
# Two runs: the median of the two ratios and their range; a ratio is
# never formed across runs.
sed -e 's/^128,fillrandom,fillrandom,leveldb,4.0/128,fillrandom,fillrandom,leveldb,6.0/' \
  "$TMP/results.csv" >"$TMP/second.csv"
run --ratios "$TMP/results.csv" "$TMP/second.csv"
expect "| fillrandom | 2.50 (2.00–3.00) |  |"
# A peer or a value size the CSV does not have: a clear failure.
if "$PY" "$COMPARE" --ratios "$TMP/results.csv" --peer nosuch >/dev/null 2>&1; then
  echo "FAIL: --ratios with an unknown peer succeeded"; FAILED=1
fi
if "$PY" "$COMPARE" --ratios "$TMP/results.csv" --value-size 4096 >/dev/null 2>&1; then
  echo "FAIL: --ratios at a value size without DeLSM rows succeeded"; FAILED=1
fi
[ $FAILED -eq 0 ] && echo "ok"
exit $FAILED
