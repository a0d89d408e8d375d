#!/bin/sh
# `compare --replot` draws the chart of DeLSM's speed relative to each peer
# from a results.csv (here benchmarks/results-100k.csv, the rows of
# RESULTS.md): a PNG next to the CSV, and a clear failure, no file, for a
# CSV in which DeLSM has no peer to be compared with.
#
# Usage: compare_replot_test.sh <compare> <results csv> <python>...
# The first python that can import matplotlib is used (Debian's
# /usr/bin/python3 has it through python3-matplotlib, which
# scripts/setup.sh installs); exit 77 (ctest: skipped) if none can.
set -u
COMPARE=$1 CSV=$2
shift 2
PY=
for p in "$@"; do
  if "$p" -c 'import matplotlib' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
  echo "SKIP: no python among '$*' can import matplotlib"
  exit 77
fi
TMP=$(mktemp -d "${DELSM_TEST_DIR:-${TMPDIR:-/tmp}}/compare_replot.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
FAILED=0

cp "$CSV" "$TMP/results.csv" || exit 1
if ! "$PY" "$COMPARE" --replot "$TMP/results.csv" >"$TMP/out.txt" 2>&1; then
  cat "$TMP/out.txt"
  echo "FAIL: --replot exited non-zero"
  FAILED=1
fi
# A PNG (its 8-byte signature) of a real chart, not an empty canvas.
magic=$(od -An -tx1 -N8 "$TMP/results.png" 2>/dev/null | tr -d ' \n')
[ "$magic" = 89504e470d0a1a0a ] || { echo "FAIL: results.png is not a PNG"; FAILED=1; }
size=0
[ -f "$TMP/results.png" ] && size=$(wc -c <"$TMP/results.png")
[ "$size" -gt 20000 ] || { echo "FAIL: results.png is only $size bytes"; FAILED=1; }

# DeLSM's rows alone: nothing to compare it with, so no chart, and it says so.
# (The engine column is found by its header; the quoted build column, which
# holds commas, comes after it.)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "engine") col = i; print; next }
         $col == "delsm"' "$CSV" >"$TMP/alone.csv"
if "$PY" "$COMPARE" --replot "$TMP/alone.csv" >"$TMP/out.txt" 2>&1; then
  echo "FAIL: --replot of DeLSM's rows alone succeeded"
  FAILED=1
fi
grep -q 'no chart' "$TMP/out.txt" || { cat "$TMP/out.txt"; echo "FAIL: no reason given"; FAILED=1; }
[ -e "$TMP/alone.png" ] && { echo "FAIL: alone.png was written"; FAILED=1; }

[ $FAILED -eq 0 ] && echo "ok: $PY drew a ${size}-byte chart"
exit $FAILED
