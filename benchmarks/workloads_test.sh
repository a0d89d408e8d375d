#!/bin/sh
# Runs every db_bench workload at a tiny --num on one engine and fails if a
# workload is missing from the output, db_bench fails, or a read workload
# did not find what it must: "all" = found every key it tried, "none" =
# found nothing, "exp" = found exactly the count db_bench expects (printed
# as "expected E"). Not timed: speed is never checked.
#
# Usage: workloads_test.sh <db_bench binary> [extra db_bench flags...]
# Exit 77 (ctest: skipped) when the binary has not been built.
set -u
BIN=$1
shift
if [ ! -x "$BIN" ]; then
  echo "SKIP: $BIN not built"
  exit 77
fi
TMP=$(mktemp -d "${DELSM_TEST_DIR:-${TMPDIR:-/tmp}}/bench_workloads.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
NUM=${BENCH_TEST_NUM:-200}
FAILED=0

# check <label> <expectations> <db_bench flags...>
check() {
  label=$1
  expect=$2
  shift 2
  out=$TMP/out.txt
  if ! "$BIN" --num="$NUM" --db="$TMP/db" "$@" >"$out" 2>"$TMP/err.txt"; then
    echo "FAIL [$label]: db_bench exited non-zero"
    cat "$out" "$TMP/err.txt"
    FAILED=1
    return
  fi
  list=$(for a in "$@"; do case $a in --benchmarks=*) echo "${a#--benchmarks=}" ;; esac; done)
  if ! awk -v expect="$expect" -v list="$list" -v label="$label" '
    BEGIN { n = split(expect, want, " "); nb = split(list, names, ","); r = 0; bad = 0 }
    / : / {
      split($0, parts, " : "); name = parts[1]; sub(/ +$/, "", name); seen[name] = 1
      sub(/\/.*/, "", name); seen[name] = 1
      if (match($0, /\([0-9]+ of [0-9]+ found(, expected [0-9]+)?\)/)) {
        f = substr($0, RSTART + 1, RLENGTH - 2); split(f, w, /[ ,]+/)
        found = w[1] + 0; tried = w[3] + 0; wexp = (w[5] == "expected") ? w[6] + 0 : -1
        r++; wish = want[r]
        ok = (wish == "all" && tried > 0 && found == tried) ||
             (wish == "none" && tried > 0 && found == 0) ||
             (wish == "exp" && wexp > 0 && found == wexp)
        if (!ok) { printf "FAIL [%s]: %s wanted %s: %s\n", label, parts[1], wish, $0; bad = 1 }
      }
    }
    END {
      if (r != n) { printf "FAIL [%s]: %d read results, wanted %d\n", label, r, n; bad = 1 }
      for (i = 1; i <= nb; i++)
        if (names[i] != "stats" && !(names[i] in seen)) {
          printf "FAIL [%s]: no result line for %s\n", label, names[i]; bad = 1
        }
      exit bad
    }' "$out"; then
    cat "$out"
    FAILED=1
  else
    echo "ok   [$label]"
  fi
}

# All checks, with the flags given to this function added to every run.
all_checks() {
  check fill-and-read "all all all all all none" \
    --benchmarks=fillseq,readseq,readreverse,readrandom,readhot,seekrandom,readmissing "$@"
  check overwrite "all all all all" \
    --benchmarks=fillrandom,overwrite,readrandom,seekrandom,fillbatch,readseq,readrandom "$@"
  check deleterandom "none none none" \
    --benchmarks=fillrandom,deleterandom,readrandom,readseq,seekrandom "$@"
  check deleteseq "none none" --benchmarks=fillseq,deleteseq,readrandom,readreverse "$@"
  check sync-100K-compact "all" --benchmarks=fillsync,fill100K,compact,readseq,stats \
    --reads=1 "$@"
  check compact-read "all all all none" \
    --benchmarks=fillrandom,compact,readrandom,readreverse,seekrandom,readmissing "$@"
  check three-stage-fsmeta "exp exp exp" \
    --benchmarks=writedeletewrite,writedeleteread,fsmeta "$@"
  # A second process on the same database, with a fresh seed, finds every key.
  check reopen-fill "" --benchmarks=fillrandom "$@"
  check reopen-read "all all all" --use_existing_db=1 \
    --benchmarks=readrandom,readseq,readreverse "$@"
  check threads "all all exp exp exp" --threads=2 \
    --benchmarks=fillrandom,readrandom,readseq,writedeleteread,fsmeta "$@"
}

# Pass 1: default buffers (small runs stay in the memtable and WAL).
all_checks "$@"
# Pass 2: tiny memtables and more keys, so flushes and compactions run and
# reads are served from the engine's tables.
NUM=$((NUM * 10))
echo "-- with --write_buffer_size=8192 --num=$NUM"
all_checks --write_buffer_size=8192 "$@"

if [ "$FAILED" -ne 0 ]; then
  echo "FAILED: $BIN $*"
  exit 1
fi
echo "PASSED: $BIN $*"
