#!/bin/sh
# readahead_io_bench reads the same bytes in every mode: each of sync, pool
# and uring, at several windows and pool sizes, must report the same file
# count, the byte count stat gives, and the same sum of the bytes read, over
# KV files of 0 to 9000 bytes (a file that is not a KV file is not read).
# Usage: readahead_io_bench_test.sh READAHEAD_IO_BENCH
set -eu
bench=$1
dir=$(mktemp -d "${DELSM_TEST_DIR:-${TMPDIR:-/tmp}}/readahead_io_bench_test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
i=0
expected_bytes=0
while [ $i -lt 200 ]; do
  size=$(( (i * 2749) % 9001 ))
  [ $i -eq 3 ] && size=0
  head -c "$size" /dev/urandom >"$dir/k$i@$((i + 7))"
  expected_bytes=$((expected_bytes + size))
  i=$((i + 1))
done
head -c 5000 /dev/urandom >"$dir/000001.meta"
first=""
for args in "--mode=sync" "--mode=pool --window=1 --threads=1" \
    "--mode=pool --window=7 --threads=3" "--mode=uring --window=1" \
    "--mode=uring --window=7" "--mode=uring --window=300"; do
  # shellcheck disable=SC2086
  line=$("$bench" $args "$dir" "$dir")
  echo "$line"
  got=$(echo "$line" | sed 's/.* \(files=[0-9]* bytes=[0-9]*\) .* \(sum=[0-9]*\)$/\1 \2/')
  [ -z "$first" ] && first=$got
  if [ "$got" != "$first" ]; then
    echo "FAIL: $args read '$got', sync read '$first'"
    exit 1
  fi
done
want="files=400 bytes=$((2 * expected_bytes))"
case "$first" in
  "$want "*) echo "ok: every mode read $first" ;;
  *) echo "FAIL: read '$first', the files hold '$want'"; exit 1 ;;
esac
