#!/bin/sh
# `compare --summary` counts, per value size and peer, the db_bench result
# lines DeLSM was at least as fast in, with the lowest and the median ratio
# of the peer's micros/op to DeLSM's, and lists the lines below 1.0x: the
# figures benchmarks/journal/2026-11-27-every-engine-at-1m.md quotes from a
# results.csv. Checked on rows whose ratios are known: LevelDB 2.0x, 1.0x
# and 0.5x at 128 B (2 of 3, lowest 0.50x, median 1.00x); a line DeLSM has
# no row for is not counted.
#
# Usage: compare_summary_test.sh <compare> <python>
set -u
COMPARE=$1 PY=$2
TMP=$(mktemp -d "${DELSM_TEST_DIR:-${TMPDIR:-/tmp}}/compare_summary.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
FAILED=0
cat >"$TMP/results.csv" <<'CSV'
value_size,workload,line,engine,micros_op,build
128,fillrandom,fillrandom,delsm,2.0,"this tree, Release"
128,fillrandom,fillrandom,leveldb,4.0,"LevelDB, Release"
128,readrandom,readrandom,delsm,3.0,"this tree, Release"
128,readrandom,readrandom,leveldb,3.0,"LevelDB, Release"
128,readseq,readseq,delsm,1.0,"this tree, Release"
128,readseq,readseq,leveldb,0.5,"LevelDB, Release"
128,seekrandom,seekrandom,leveldb,9.0,"LevelDB, Release"
1024,fillrandom,fillrandom,delsm,1.0,"this tree, Release"
1024,fillrandom,fillrandom,rocksdb,3.0,"RocksDB, Release"
CSV
if ! "$PY" "$COMPARE" --summary "$TMP/results.csv" >"$TMP/out.txt" 2>&1; then
  cat "$TMP/out.txt"; echo "FAIL: --summary exited non-zero"; exit 1
fi
expect() {
  grep -qF -- "$1" "$TMP/out.txt" || { echo "FAIL: no line with: $1"; FAILED=1; }
}
expect "| 128 B | 2 of 3, 0.50x / 1.00x | - |"
expect "| 1 KiB | - | 1 of 1, 3.00x / 3.00x |"
expect "- 128 B readseq vs leveldb: 0.50x"
if grep -q 'seekrandom' "$TMP/out.txt"; then
  echo "FAIL: a line without DeLSM's row was counted"; FAILED=1
fi
# No rows: a clear failure.
head -1 "$TMP/results.csv" >"$TMP/empty.csv"
if "$PY" "$COMPARE" --summary "$TMP/empty.csv" >"$TMP/out2.txt" 2>&1; then
  echo "FAIL: --summary of a CSV without rows succeeded"; FAILED=1
fi
[ $FAILED -ne 0 ] && cat "$TMP/out.txt"
[ $FAILED -eq 0 ] && echo "ok"
exit $FAILED
