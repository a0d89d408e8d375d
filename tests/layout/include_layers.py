#!/usr/bin/env python3
"""Checks that includes point down the layers: db -> table -> fs -> util -> port.

testing/ (fault injection, power-loss models) sits above every library layer
and nothing in the library may include it. The one allowed upward edge is
table/ -> db/dbformat.h (internal keys are the table format's vocabulary).
Tests (*_test.cc) may include anything. Exits non-zero listing violations.
"""
import os
import re
import sys

RANK = {"port": 0, "util": 1, "fs": 2, "table": 3, "db": 4, "testing": 5,
        "tests": 6}
ALLOWED_UP = {("table", "db/dbformat.h")}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main(root):
    violations = []
    checked = 0
    for folder in [f for f in RANK if f != "tests"]:
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            violations.append(f"{folder}/: missing layer folder")
            continue
        for name in sorted(os.listdir(base)):
            if not name.endswith((".h", ".cc")) or name.endswith("_test.cc"):
                continue
            path = os.path.join(base, name)
            checked += 1
            with open(path, encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    top = target.split("/", 1)[0]
                    if top not in RANK:
                        continue  # leveldb/ and delsm/ public headers, system
                    if RANK[top] <= RANK[folder]:
                        continue
                    if (folder, target) in ALLOWED_UP:
                        continue
                    violations.append(
                        f"{folder}/{name}:{lineno}: includes {target} "
                        f"(layer {top} is above {folder})")
    for v in violations:
        print(v)
    print(f"include_layers: {checked} files checked, "
          f"{len(violations)} violation(s)")
    return 1 if violations or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else
                  os.path.join(os.path.dirname(__file__), "..", "..")))
