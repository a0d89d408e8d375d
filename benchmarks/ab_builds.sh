#!/usr/bin/env bash
# Two builds of DeLSM's db_bench against each other and against LevelDB, in
# one interleaved run: for an engine change whose effect is within one
# run's spread. Each round runs every binary once, in turn, as a fresh
# process on a fresh database, so load that comes and goes falls on all of
# them alike. Prints every run's micros/op per stage and, per stage, each
# DeLSM build's ratio to LevelDB (LevelDB's µs/op ÷ the build's, the
# ratio RESULTS.md uses) in every round and its median.
#
# Build the older tree in a worktree of its own, e.g.
#   git worktree add /tmp/old <commit> && cmake -S /tmp/old -B /tmp/old/b \
#     -DCMAKE_BUILD_TYPE=Release -DDELSM_BUILD_TESTS=OFF && \
#     cmake --build /tmp/old/b --target db_bench -j2
#   benchmarks/ab_builds.sh /tmp/old/b/benchmarks/db_bench \
#     build-release/benchmarks/db_bench -- --value_size=1024 --num=100000 \
#     --benchmarks=writedeletewrite,writedeleteread
#
# Needs root: the databases go on a dedicated ext4 on a loop device that the
# script creates and removes (as scripts/bench.sh does).
#
# Usage: benchmarks/ab_builds.sh A B -- db_bench flags
# Environment: ROUNDS (6), LEVELDB (build-release/benchmarks/db_bench_leveldb,
# built against the Release LevelDB peer by scripts/bench.sh), OUT
# (out/ab-<time>), LOOP_SIZE (8G), PREPARE (db_bench flags, split at
# spaces, for a process that each binary runs first on its fresh database,
# unreported: e.g. PREPARE="--value_size=128 --num=1000000 --seed=1
# --benchmarks=fillrandom" with "-- --use_existing_db=1 --seed=2
# --benchmarks=deleterandom ..." measures deletes in a database another
# process filled, as benchmarks/compare does).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 3 ] || [ "$3" != "--" ]; then
  echo "usage: benchmarks/ab_builds.sh A B -- db_bench flags" >&2
  exit 2
fi
a=$1
b=$2
shift 3
leveldb=${LEVELDB:-build-release/benchmarks/db_bench_leveldb}
rounds=${ROUNDS:-6}
out=${OUT:-out/ab-$(date +%Y%m%d-%H%M%S)}
case "$rounds" in
  '' | *[!0-9]*) echo "ab_builds: ROUNDS must be a number" >&2; exit 2 ;;
esac
if [ "$rounds" -lt 1 ] || [ "$rounds" -gt 100 ]; then
  echo "ab_builds: ROUNDS must be 1-100" >&2
  exit 2
fi
for bin in "$a" "$b" "$leveldb"; do
  if [ ! -x "$bin" ]; then
    echo "ab_builds: no executable db_bench at $bin" >&2
    exit 2
  fi
done
if [ "$(id -u)" -ne 0 ]; then
  echo "ab_builds: needs root (a loop-mounted ext4 of its own)" >&2
  exit 2
fi
mkdir -p "$out"
. benchmarks/loop_image.sh
loop_image_mount ab
csv=$out/runs.csv
echo "round,build,stage,micros_op" >"$csv"

for round in $(seq 1 "$rounds"); do
  for side in A B leveldb; do
    case $side in
      A) bin=$a ;;
      B) bin=$b ;;
      leveldb) bin=$leveldb ;;
    esac
    rm -rf "$mnt/db"
    sync
    log=$out/$side-$round.log
    if [ -n "${PREPARE:-}" ]; then
      # shellcheck disable=SC2086  # PREPARE is a list of flags
      if ! "$bin" --db="$mnt/db" $PREPARE >"$out/$side-$round.prepare.log" 2>&1; then
        echo "ab_builds: $side failed to prepare in round $round" >&2
        exit 1
      fi
      sync
    fi
    if ! "$bin" --db="$mnt/db" "$@" >"$log" 2>&1; then
      echo "ab_builds: $side failed in round $round (see $log)" >&2
      exit 1
    fi
    # db_bench's progress goes to the same log with carriage returns.
    tr '\r' '\n' <"$log" | awk -v r="$round" -v s="$side" \
      '$2 == ":" && $4 == "micros/op;" {print r "," s "," $1 "," $3}' >>"$csv"
  done
done

python3 - "$csv" <<'EOF'
import collections, csv, statistics, sys

runs = collections.defaultdict(dict)
for row in csv.DictReader(open(sys.argv[1])):
    runs[row["stage"], row["build"]][row["round"]] = float(row["micros_op"])
for stage in dict.fromkeys(s for s, _ in runs):
    base = runs.get((stage, "leveldb"), {})
    line = f"{stage}: LevelDB {statistics.median(base.values()):.3f} us" if base else stage
    for build in ("A", "B"):
        mine = runs.get((stage, build), {})
        ratios = [base[r] / mine[r] for r in mine if r in base and mine[r] > 0]
        if ratios:
            line += (f" | {build} {statistics.median(mine.values()):.3f} us, "
                     f"x{statistics.median(ratios):.2f} "
                     f"[{' '.join(f'{x:.2f}' for x in ratios)}]")
    print(line)
EOF
echo "ab_builds: runs in $csv"
