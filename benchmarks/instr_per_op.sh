#!/bin/bash
# Per-operation cost of one db_bench read workload on a filled database:
# user-space instructions and CPU time per operation.
#
#   benchmarks/instr_per_op.sh ENGINE VALUE_SIZE BENCHMARK [db_bench flags...]
#   e.g. benchmarks/instr_per_op.sh delsm 128 readseq
#        benchmarks/instr_per_op.sh leveldb 256 seekrandom --seek_nexts=20
#
# ENGINE is delsm ($BIN/db_bench) or leveldb ($BIN/db_bench_leveldb).
#
# What it measures, and how:
# - The database: N keys (16-byte keys, db_bench's default compression
#   ratio 0.5) filled once per engine and value size by
#   `db_bench --benchmarks=fillrandom --seed=1` into $DB, then compacted
#   whole (db_bench's compact) and opened (one read) until an open no
#   longer changes its set of tables: a fill leaves compactions pending,
#   which a measured run's open would start, and the longer run would do
#   more of (a closing database stops its compaction), so they would count
#   as reads. A later call reuses the database: the file .instr_per_op-fill
#   in it records the fill (another N or value size fills again). Every
#   measured run reads a fresh copy of it
#   (--use_existing_db=1 --seed=7), so each run starts from the same
#   tables, however earlier runs' compactions changed theirs, and the
#   same $DB can be measured with two builds (the on-disk format being
#   the same).
#   With LAYOUT=filled the database stays as the fill left it (for DeLSM
#   at 100k keys of 4 KiB, 17 L0 SSTs over one L1: every L0 SST is one
#   more place a seek positions), as benchmarks/compare's read workloads
#   find it. The measured runs then resume the fill's compactions, so
#   only the benchmark's own thread is counted (callgrind
#   --separate-threads=yes, the thread that ran db_bench's workload).
# - instr/op: user-space instructions counted by valgrind's callgrind (its
#   "Collected" total; kernel work not included, independent of machine
#   load), for the run with READS_CG operations minus the same run with 1
#   operation, over READS_CG: the open, recovery and db_bench's set-up
#   cancel out.
# - cpu us/op: `perf stat -e task-clock` (user + kernel CPU, which does
#   depend on load and cache state) likewise, with READS operations. Set
#   NO_CPU=1 to skip it (instructions only), NO_INSTR=1 to skip callgrind.
#
# Environment: BIN (default build/benchmarks), N (keys, default 100000),
# READS (default 100000), READS_CG (default 20000), LAYOUT (compacted or
# filled, default compacted), DB (default
# ${TMPDIR:-/tmp}/instr_per_op-ENGINE-VALUE_SIZE). Needs valgrind and,
# for cpu us/op, perf. Everything runs under nice.
set -euo pipefail

if [ $# -lt 3 ]; then
  awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"
  exit 2
fi
engine=$1
vsize=$2
bench=$3
shift 3

bin_dir=${BIN:-build/benchmarks}
case $engine in
  delsm) bin=$bin_dir/db_bench ;;
  leveldb) bin=$bin_dir/db_bench_leveldb ;;
  *) echo "instr_per_op.sh: engine must be delsm or leveldb, not $engine" >&2
     exit 2 ;;
esac
[ -x "$bin" ] || { echo "instr_per_op.sh: $bin not built" >&2; exit 1; }

n=${N:-100000}
reads=${READS:-100000}
reads_cg=${READS_CG:-20000}
db=${DB:-${TMPDIR:-/tmp}/instr_per_op-$engine-$vsize}
fill_note="$db/.instr_per_op-fill"
layout=${LAYOUT:-compacted}
case $layout in
  compacted|filled) ;;
  *) echo "instr_per_op.sh: LAYOUT must be compacted or filled, not $layout" >&2
     exit 2 ;;
esac
fill_want="fillrandom num=$n value_size=$vsize seed=1 layout=$layout"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The tables of the database at $1 (DeLSM's SST directories and meta
# files, LevelDB's table files), one name a line.
tables() {
  (cd "$1" && find . -name '*.ldb' -o -name '*.sst' -o -name 'META*' | sort)
}

if [ ! -f "$fill_note" ] || [ "$(cat "$fill_note")" != "$fill_want" ]; then
  rm -rf "$db"
  nice "$bin" --benchmarks=fillrandom --num="$n" --value_size="$vsize" \
    --db="$db" --seed=1 >"$tmp/fill.out" 2>&1 ||
    { cat "$tmp/fill.out" >&2; exit 1; }
  if [ "$layout" = compacted ]; then
    nice "$bin" --use_existing_db=1 --db="$db" --num="$n" \
      --value_size="$vsize" --benchmarks=compact >"$tmp/fill.out" 2>&1 ||
      { cat "$tmp/fill.out" >&2; exit 1; }
    settled=
    for _ in 1 2 3 4 5; do
      before=$(tables "$db")
      nice "$bin" --use_existing_db=1 --db="$db" --num="$n" \
        --value_size="$vsize" --benchmarks=readseq --reads=1 >/dev/null 2>&1
      if [ "$before" = "$(tables "$db")" ]; then settled=1; break; fi
    done
    [ -n "$settled" ] ||
      echo "instr_per_op.sh: $db still changes its tables when opened" >&2
  fi
  echo "$fill_want" > "$fill_note"
fi

common=(--use_existing_db=1 --db="$tmp/db" --num="$n" --value_size="$vsize"
        --seed=7 --benchmarks="$bench")
# A fresh copy of the filled database for one run.
fresh_copy() {
  rm -rf "$tmp/db"
  cp -a "$db" "$tmp/db"
}

# Instructions of one run with $1 operations (callgrind's total).
instructions() {
  local ops=$1
  shift
  fresh_copy
  local total=""
  if [ "$layout" = filled ]; then
    rm -f "$tmp"/cg.out*
    nice valgrind --tool=callgrind --separate-threads=yes \
      --callgrind-out-file="$tmp/cg.out" \
      "$bin" "${common[@]}" --reads="$ops" "$@" >/dev/null 2>"$tmp/cg.err"
    local thread
    # Thread 1 is db_bench's main thread (open, recovery, set-up); the
    # workload runs on a thread of its own, the only other one that calls
    # into db_bench's Workloads.
    thread=$(grep -l 'Workloads::' "$tmp"/cg.out-* | grep -v 'cg.out-01$' |
      head -1)
    [ -n "$thread" ] && total=$(awk '/^summary:/ {print $2}' "$thread")
  else
    nice valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
      "$bin" "${common[@]}" --reads="$ops" "$@" >/dev/null 2>"$tmp/cg.err"
    total=$(grep -o 'Collected : [0-9]*' "$tmp/cg.err" | awk '{print $3}')
  fi
  [ -n "$total" ] || { cat "$tmp/cg.err" >&2; exit 1; }
  echo "$total"
}

# CPU milliseconds of one run with $1 operations (perf's task-clock).
cpu_ms() {
  local ops=$1
  shift
  fresh_copy
  nice perf stat -x, -e task-clock -o "$tmp/perf.out" \
    "$bin" "${common[@]}" --reads="$ops" "$@" >/dev/null 2>"$tmp/perf.err"
  local ms
  ms=$(awk -F, '$3 == "task-clock" {print $1}' "$tmp/perf.out")
  [ -n "$ms" ] || { cat "$tmp/perf.err" "$tmp/perf.out" >&2; exit 1; }
  echo "$ms"
}

instr=-
if [ -z "${NO_INSTR:-}" ]; then
  many=$(instructions "$reads_cg" "$@")
  one=$(instructions 1 "$@")
  instr=$(( (many - one) / reads_cg ))
fi
cpu=-
if [ -z "${NO_CPU:-}" ]; then
  many=$(cpu_ms "$reads" "$@")
  one=$(cpu_ms 1 "$@")
  cpu=$(awk -v a="$many" -v b="$one" -v ops="$reads" \
    'BEGIN {printf "%.2f", (a - b) * 1000 / ops}')
fi
printf '%-44s instr/op %8s  cpu us/op %6s\n' "$engine $vsize $bench $*" \
  "$instr" "$cpu"
