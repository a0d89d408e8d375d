# shellcheck shell=bash
# Sourced (not run) by the scripts that take engines on their command line
# (fill_stalls.sh, fill_latency.sh): what an engine argument names.
#
# engine_args SCRIPT SPEC BIN_DIR: SPEC is delsm (DeLSM's db_bench),
# leveldb (LevelDB's, db_bench_leveldb) or NAME=FLAGS (DeLSM's db_bench
# with FLAGS, split on blanks, e.g. 'ft2=--tuning=flush_threads=2'). Sets
# engine_name (delsm, leveldb or NAME), engine_binary (BIN_DIR/db_bench or
# BIN_DIR/db_bench_leveldb) and the array engine_flags (FLAGS, else empty;
# leveldb=FLAGS is leveldb, its FLAGS dropped).
# For any other SPEC prints "SCRIPT: unknown engine SPEC (...)" on stderr
# and returns 2. Whether the binary exists is for the caller to check.

# The engine_* variables are the caller's to read.
# shellcheck disable=SC2034
engine_args() {
  local script=$1 spec=$2 bin_dir=$3
  engine_name=${spec%%=*}
  engine_flags=()
  engine_binary=$bin_dir/db_bench
  if [ "$engine_name" = leveldb ]; then
    engine_binary=$bin_dir/db_bench_leveldb
  elif [ "$spec" != "$engine_name" ]; then
    read -r -a engine_flags <<< "${spec#*=}"
  elif [ "$engine_name" != delsm ]; then
    echo "$script: unknown engine $spec (delsm, leveldb or NAME=FLAGS)" >&2
    return 2
  fi
}
