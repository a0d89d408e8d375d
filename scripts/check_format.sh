#!/usr/bin/env bash
# Checks that every C++ source and header of the tree is formatted as the
# root .clang-format says (Google style): prints each file clang-format
# would change and exits 1 if there is one, 2 if clang-format is missing.
# Fix with: clang-format -i <file>.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "check_format: clang-format not found (apt-get install clang-format)" >&2
  exit 2
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files '*.cc' '*.h')
else
  files=$(find . -path './build*' -prune -o -path ./out -prune -o \( -name '*.cc' -o -name '*.h' \) -print)
fi
bad=0
for f in $files; do
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "check_format: $f is not formatted (clang-format -i $f)"
    bad=$((bad + 1))
  fi
done
if [ "$bad" -gt 0 ]; then
  echo "check_format: $bad file(s) to format" >&2
  exit 1
fi
echo "check_format: $(echo "$files" | wc -l) files formatted"
