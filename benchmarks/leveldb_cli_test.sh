#!/bin/sh
# LevelDB's db_bench command lines, as its README and db_bench.cc document
# them, run unchanged on one of this tree's db_bench builds (only --num is
# made small and --db points into a scratch folder). Fails if a flag or
# benchmark is rejected, db_bench fails, or a result line differs in form
# from LevelDB's: "%-12s : %11.3f micros/op;" then LevelDB's own messages
# ("(N of M found)", "(N ops)", "(4K per op)", "(output: X%)", "MB/s").
# Not timed: speed is never checked.
#
# Usage: leveldb_cli_test.sh <db_bench binary> [why it may be missing]
# Exit 1 on any failure. Exit 77 (ctest: skipped, listed under "did not
# run") when the binary has not been built, and also when every line passed
# on a peer binary that measures Debian's shared library rather than the
# Release peer (benchmarks/peers/build.sh, which CI does not run): the
# Release peer's build is then untested, and the summary must say so
# rather than report a pass.
set -u
BIN=$1
if [ ! -x "$BIN" ]; then
  echo "SKIP: $BIN not built${2:+: $2}"
  exit 77
fi
TMP=$(mktemp -d "${DELSM_TEST_DIR:-${TMPDIR:-/tmp}}/leveldb_cli.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
FAILED=0
BUILD=

# run <label> <expected result lines, "name=pattern" separated by spaces>
#     -- <db_bench flags...>
# Each expected line, in order, must be "name : X micros/op;" with the rest
# matching the extended regex `pattern` (after "micros/op;").
run() {
  label=$1
  expect=$2
  shift 3
  out=$TMP/out.txt
  "$BIN" --num=1000 --db="$TMP/db" "$@" >"$out" 2>"$TMP/err.txt"
  rc=$?
  # The header names the library this binary measures.
  [ -n "$BUILD" ] || BUILD=$(sed -n 's/^Build: *//p' "$out" | head -n 1)
  if [ $rc -ne 0 ]; then
    echo "FAIL [$label]: db_bench $* exited non-zero"
    cat "$out" "$TMP/err.txt"
    FAILED=1
    return
  fi
  grep -E '^[A-Za-z0-9_]+ *: +[0-9]+\.[0-9]+ micros/op;' "$out" >"$TMP/lines.txt"
  i=0
  bad=0
  for e in $expect; do
    i=$((i + 1))
    name=${e%%=*}
    pattern=$(printf '%s' "${e#*=}" | tr '_' ' ')
    line=$(sed -n "${i}p" "$TMP/lines.txt")
    want=$(printf '%-12s : ' "$name")
    case $line in
      "$want"*) ;;
      *) echo "FAIL [$label]: result $i is '$line', want $name"; bad=1; continue ;;
    esac
    rest=${line#"$want"}
    if ! printf '%s\n' "$rest" | grep -Eq "^ *[0-9]+\.[0-9]{3} micros/op;${pattern}\$"; then
      echo "FAIL [$label]: '$line' does not end like LevelDB's ($pattern)"
      bad=1
    fi
  done
  n=$(wc -l <"$TMP/lines.txt")
  [ "$n" -eq "$i" ] || { echo "FAIL [$label]: $n result lines, want $i"; bad=1; }
  if [ $bad -ne 0 ]; then
    cat "$out"
    FAILED=1
  else
    echo "ok   [$label]"
  fi
}

MBS='_+[0-9]+\.[0-9]_MB/s'
FOUND='_\(([0-9]+)_of_\1_found\)'
# The crc32c line: LevelDB's "(4K per op)", or the build says it cannot
# reach its library's crc32c (Debian's shared LevelDB hides it).
CRC="(${MBS}_\(4K_per_op\)|_\(this_.*_build_does_not_export_its_crc32c\))"

# LevelDB's README: `./db_bench`, its default list.
run default "fillseq=$MBS fillsync=${MBS}_\(1_ops\) fillrandom=$MBS \
  overwrite=$MBS readrandom=${MBS}${FOUND} readrandom=${MBS}${FOUND} \
  readseq=${MBS}${FOUND} readreverse=${MBS}${FOUND} compact= \
  readrandom=${MBS}${FOUND} readseq=${MBS}${FOUND} readreverse=${MBS}${FOUND} \
  fill100K=${MBS}_\(1_ops\) crc32c=$CRC snappycomp=${MBS}_\(output:_[0-9]+\.[0-9]%\) \
  snappyuncomp=$MBS" --

# The README's larger block cache, then a second process reading the same
# database (--use_existing_db).
run larger-cache "fillrandom=$MBS readrandom=${MBS}${FOUND}" -- \
  --benchmarks=fillrandom,readrandom --cache_size=104857600
run existing-db "readrandom=${MBS}${FOUND} readseq=${MBS}${FOUND}" -- \
  --benchmarks=readrandom,readseq --use_existing_db=1

# db_bench.cc's other flags and benchmarks.
run leveldb-flags "fillseq=$MBS open= readrandomsmall=${MBS}${FOUND} \
  fillrandom=$MBS" -- \
  --benchmarks=fillseq,open,readrandomsmall,sstables,heapprofile,stats,fillrandom \
  --block_size=4096 --max_file_size=2097152 --comparisons=0 --reuse_logs=1 \
  --reads=1000000 --histogram=0 --compression_ratio=0.5 --value_size=100 \
  --write_buffer_size=4194304 --open_files=1000 --bloom_bits=10 --threads=1
grep -q 'heap profiling not supported' "$TMP/err.txt" ||
  { echo "FAIL [leveldb-flags]: heapprofile said nothing"; FAILED=1; }

echo "build tested: ${BUILD:-unknown (no Build: line in the header)}"
[ -n "$BUILD" ] || FAILED=1
[ $FAILED -eq 0 ] || exit 1
# db_bench_leveldb and db_bench_rocksdb fall back to Debian's shared
# libraries (benchmarks/CMakeLists.txt), whose header says so.
case $BUILD in
  *"shared library"*)
    echo "SKIP (in part): every command line above passed on $BUILD, but the"
    echo "Release peer this binary measures when benchmarks/peers/build.sh has"
    echo "been run (then cmake again) was not built here, so it was not tested."
    exit 77
    ;;
esac
exit 0
