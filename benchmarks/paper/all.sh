#!/usr/bin/env bash
# Runs every figure and table of the paper's evaluation that we reproduce,
# one after another, at one scale:
#   fig5.py    Figure 5a-d  db_bench fillseq/fillrandom/readseq/readrandom,
#                           values 16 B - 4 KiB, 10M pairs x scale
#   fig6.py    Figure 6a-b  write-delete-write / write-delete-read, 512 B,
#                           10-90% deleted, 1M pairs x scale
#   table2.py  Table 2      write amplification per stage of
#                           write(10M)-delete(50%)-write(10M) x scale,
#                           per process and at the device
#
# Usage: benchmarks/paper/all.sh [--scale S] [more flags for every script]
#   --scale 0.002 (default) is the quick pass: about 25 minutes on 2 cores
#   with all six engines built (each script prints its own time);
#   --scale 1 is the paper's size (days on 2 cores, and more disk than a
#   small machine has: DeLSM's 10M 4 KiB values take a block each).
#
# Builds (incrementally) the Release db_bench binaries in $BUILD_DIR
# (build-release) first: db_bench, db_bench_leveldb, db_bench_rocksdb, and
# db_bench_pebblesdb / db_bench_bolt where benchmarks/peers/build.sh has
# built those peers (otherwise each script says it skips them). As root each
# script puts its databases on a dedicated loop-mounted ext4 of its own
# (BENCH_LOOP=0: under /var/tmp instead). Output: out/paper-<time>/{fig5,
# fig6,table2}/ with each script's table (.md), CSV and chart (.png), and
# all.log, the whole run's output.
# Environment: BUILD_DIR, PYTHON (default /usr/bin/python3, which has
# Debian's matplotlib), NICE (default 0: e.g. NICE=19 to run niced).
set -euo pipefail
cd "$(dirname "$0")/../.."

scale=0.002
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale=$2; shift ;;
    --scale=*) scale=${1#--scale=} ;;
    *) args+=("$1") ;;
  esac
  shift
done

BUILD_DIR=${BUILD_DIR:-build-release}
python=${PYTHON:-python3}
if [ -z "${PYTHON:-}" ] && [ -x /usr/bin/python3 ]; then
  python=/usr/bin/python3
fi
nice_cmd=(nice -n "${NICE:-0}")

if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DDELSM_BUILD_TESTS=OFF >/dev/null
else
  cmake "$BUILD_DIR" >/dev/null  # picks up peers built since the last configure
fi
# Only the db_bench binaries; the peers' ones exist only when configured.
known=$(cmake --build "$BUILD_DIR" --target help)
targets=()
for t in db_bench db_bench_leveldb db_bench_rocksdb db_bench_pebblesdb db_bench_bolt; do
  if grep -qx "\.\.\. $t" <<<"$known"; then
    targets+=(--target "$t")
  fi
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "paper: $BUILD_DIR has no db_bench targets" >&2
  exit 1
fi
"${nice_cmd[@]}" cmake --build "$BUILD_DIR" -j"$(nproc)" "${targets[@]}"

out="out/paper-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
echo "paper: scale $scale, output in $out/" | tee "$out/all.log"
start=$(date +%s)
status=0
for script in fig5 fig6 table2; do
  t0=$(date +%s)
  if ! "${nice_cmd[@]}" "$python" "benchmarks/paper/$script.py" --scale "$scale" \
      --bin-dir "$BUILD_DIR/benchmarks" --out "$out/$script" ${args[@]+"${args[@]}"} \
      2>&1 | tee -a "$out/all.log"; then
    echo "paper: $script FAILED (see $out/all.log)" | tee -a "$out/all.log"
    status=1
  fi
  echo "paper: $script took $(( $(date +%s) - t0 )) s" | tee -a "$out/all.log"
done
echo "paper: all done in $(( $(date +%s) - start )) s; results in $out/" | tee -a "$out/all.log"
exit $status
