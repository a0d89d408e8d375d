#!/usr/bin/env bash
# engine_args (benchmarks/engine_args.sh), as fill_stalls.sh and
# fill_latency.sh call it: delsm and leveldb name their db_bench in BIN_DIR
# with no flags; NAME=FLAGS names DeLSM's db_bench with FLAGS split on
# blanks, each kept whole; anything else fails with status 2 and a message
# naming the script and the engine.
#
# Usage: engine_args_test.sh ENGINE_ARGS_SH
set -u
# shellcheck source=benchmarks/engine_args.sh
source "$1" || exit 1
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# expect SPEC NAME BINARY FLAG...: engine_args on SPEC succeeds and sets
# exactly these.
expect() {
  local spec=$1 name=$2 binary=$3
  shift 3
  engine_name=unset engine_binary=unset engine_flags=(stale)
  engine_args test "$spec" /bin-dir 2>/dev/null || { fail "$spec: status $?"; return; }
  [ "$engine_name" = "$name" ] || fail "$spec: name '$engine_name', not '$name'"
  [ "$engine_binary" = "$binary" ] || fail "$spec: binary '$engine_binary', not '$binary'"
  local want got
  want=$(printf '<%s>' "$@")
  got=$(printf '<%s>' "${engine_flags[@]}")
  [ "$got" = "$want" ] || fail "$spec: flags $got, not $want"
}

expect delsm delsm /bin-dir/db_bench
expect leveldb leveldb /bin-dir/db_bench_leveldb
expect 'ft2=--tuning=flush_threads=2' ft2 /bin-dir/db_bench \
  --tuning=flush_threads=2
expect 'two=--a=1  --b=x=y *' two /bin-dir/db_bench --a=1 --b=x=y '*'
expect 'none=' none /bin-dir/db_bench

err=$(engine_args test rocksdb /bin-dir 2>&1 >/dev/null)
status=$?
[ "$status" -eq 2 ] || fail "rocksdb: status $status, not 2"
[ "$err" = "test: unknown engine rocksdb (delsm, leveldb or NAME=FLAGS)" ] ||
  fail "rocksdb: message '$err'"

[ "$failed" -eq 0 ] && echo "engine_args_test: passed"
exit "$failed"
