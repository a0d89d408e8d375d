#!/usr/bin/env python3
"""Checks that includes point down the layers:
tools -> c -> compat -> db -> table -> fs -> util -> port.

compat/ (compat/leveldb/: LevelDB's own formats, detection, conversion and
export) sits above the engine and below the tools. c/ (the C API) includes
only the public headers (leveldb/, delsm/) and its own folder. testing/
(fault injection, power-loss models) sits above every other layer and
nothing else may include it. The allowed upward edges: table/ ->
db/dbformat.h (internal keys are the table format's vocabulary), and the
engine's door into compat/: db/ -> compat/leveldb/directory_kind.h (is a
directory LevelDB's) and compat/leveldb/conversion.h (convert it at Open,
take in LevelDB's tables at RepairDB); no other LevelDB-format header.
Folders are checked with their subfolders. Tests (*_test.cc) may include
anything. Exits non-zero listing violations.
"""
import os
import re
import sys

RANK = {"port": 0, "util": 1, "fs": 2, "table": 3, "db": 4, "compat": 5,
        "c": 6, "tools": 7, "testing": 8, "tests": 9}
PUBLIC_ONLY = {"c"}  # may include no other layer's headers
ALLOWED_UP = {("table", "db/dbformat.h"),
              ("db", "compat/leveldb/directory_kind.h"),
              ("db", "compat/leveldb/conversion.h")}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main(root):
    violations = []
    checked = 0
    for folder in [f for f in RANK if f != "tests"]:
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            violations.append(f"{folder}/: missing layer folder")
            continue
        names = []
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            rel = os.path.relpath(dirpath, base)
            names += [f if rel == "." else os.path.join(rel, f)
                      for f in sorted(filenames)]
        for name in names:
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
                    if folder in PUBLIC_ONLY and top != folder:
                        violations.append(
                            f"{folder}/{name}:{lineno}: includes {target} "
                            f"({folder}/ includes only public headers)")
                        continue
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
