#!/usr/bin/env bash
# The write-amplification study (wa_study.py; --help for every option).
#
#   sudo benchmarks/wa/run.sh [options]   # databases on a fresh loop-mounted
#                                         # ext4 (/var/tmp/wa-study-<pid>.img,
#                                         # removed afterwards)
#   benchmarks/wa/run.sh --db-root DIR    # databases in DIR (e.g. root FS)
#
# Uses Debian's /usr/bin/python3 when present, whose python3-matplotlib draws
# the charts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
where=()
case " $* " in
  *" --db-root"* | *" --loop-image"*) ;;
  *) if [ "$(id -u)" -eq 0 ]; then where=(--loop-image "/var/tmp/wa-study-$$.img"); fi ;;
esac
exec "$py" "$here/wa_study.py" "${where[@]}" "$@"
