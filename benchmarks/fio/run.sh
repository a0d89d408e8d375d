#!/usr/bin/env bash
# The file system's limits, measured with fio in a scratch folder:
# sequential write bandwidth, 4 KiB random-write IOPS (32 and 1 in flight),
# and file create / stat / delete rates (fio's filecreate, filestat and
# filedelete engines; one job, then two jobs in one directory).
#
#   benchmarks/fio/run.sh [dir]        # dir defaults to a new folder in /tmp
#
# Sizes (environment): FIO_SIZE (file size for the bandwidth/IOPS jobs, 1g),
# FIO_RUNTIME (seconds per random-write job, 10), FIO_NRFILES (files per
# job for the file jobs, 20000). dir must not exist or be empty; what the
# script creates in it is removed at the end. Prints a markdown table; the
# JSON of every job is kept in $FIO_OUT (default: a new /tmp/fio-out-*).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v fio >/dev/null || { echo "fio not installed (apt-get install -y fio)" >&2; exit 1; }

dir=${1:-}
made_dir=0
if [ -z "$dir" ]; then
  dir=$(mktemp -d /tmp/fio-scratch-XXXXXX)
  made_dir=1
elif [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
  echo "run.sh: $dir is not empty" >&2
  exit 1
else
  mkdir -p "$dir"
  made_dir=1
fi
out=${FIO_OUT:-$(mktemp -d /tmp/fio-out-XXXXXX)}
mkdir -p "$out"
export FIO_DIR=$dir FIO_SIZE=${FIO_SIZE:-1g} FIO_RUNTIME=${FIO_RUNTIME:-10}
export FIO_NRFILES=${FIO_NRFILES:-20000}

cleanup() {
  find "$dir" -mindepth 1 -delete 2>/dev/null || true
  if [ "$made_dir" = 1 ]; then rmdir "$dir" 2>/dev/null || true; fi
}
trap cleanup EXIT

fs=$(findmnt -n -o SOURCE,FSTYPE,OPTIONS -T "$dir")
echo "fio $(fio --version | sed 's/^fio-//') in $dir ($fs)" >&2
echo "FIO_SIZE=$FIO_SIZE FIO_RUNTIME=$FIO_RUNTIME FIO_NRFILES=$FIO_NRFILES" >&2
for job in seqwrite randwrite filecreate filestat filedelete; do
  t0=$SECONDS
  fio --output-format=json --output="$out/$job.json" "$here/$job.fio"
  t1=$SECONDS
  # Each job starts from an empty folder and a quiet disk.
  find "$dir" -mindepth 1 -delete
  sync -f "$dir"
  echo "$job.fio: fio $((t1 - t0)) s (with layout), clean-up and sync $((SECONDS - t1)) s" >&2
done

python3 "$here/summarize.py" "$out" "$dir" "$fs"
