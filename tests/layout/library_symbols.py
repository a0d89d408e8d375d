#!/usr/bin/env python3
"""Checks what DeLSM's shared libraries export and what they contain.

For each library given: every defined dynamic symbol must belong to
LevelDB's C++ API (namespace leveldb), LevelDB's C API (leveldb_*), DeLSM's
namespace (delsm::) or DeLSM's C API (delsm_*, delsm/c.h); and no symbol at
all (dynamic or in the full symbol table) may come from the test
scaffolding: fault injection or power-loss models. Exits non-zero listing
what is wrong.
"""
import subprocess
import sys

ALLOWED_PREFIXES = ("leveldb::", "delsm::", "leveldb_", "delsm_",
                    "typeinfo for leveldb::",
                    "typeinfo name for leveldb::", "vtable for leveldb::",
                    "typeinfo for delsm::", "typeinfo name for delsm::",
                    "vtable for delsm::")
# Version-script nodes and linker-defined markers carry no code.
IGNORED = {"", "LEVELDB", "_init", "_fini"}
SCAFFOLDING = ("FaultInjection", "PowerLoss", "FaultPlan", "fault_injection",
               "power_loss")


def symbols(args, path):
    out = subprocess.run(["nm", "-C", *args, path], check=True,
                         capture_output=True, text=True).stdout
    result = []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3:
            result.append((parts[1], parts[2]))
    return result


def check(path):
    problems = []
    exported = [(t, n) for t, n in symbols(["-D", "--defined-only"], path)
                if t not in ("A",) and n not in IGNORED]
    for kind, name in exported:
        if not name.startswith(ALLOWED_PREFIXES):
            problems.append(f"{path}: exports {kind} {name}")
    if not any(n.startswith("leveldb::DB::Open") for _, n in exported):
        problems.append(f"{path}: does not export leveldb::DB::Open")
    if not any(n.startswith("leveldb_open") for _, n in exported):
        problems.append(f"{path}: does not export the C API (leveldb_open)")
    if not any(n.startswith("delsm_open") for _, n in exported):
        problems.append(f"{path}: does not export DeLSM's C API (delsm_open)")
    if not any(n.startswith("delsm::Open") for _, n in exported):
        problems.append(f"{path}: does not export delsm::Open")
    try:
        everything = symbols([], path)
    except subprocess.CalledProcessError:
        everything = []  # stripped: the dynamic table was checked above
    for _, name in everything + exported:
        if any(s in name for s in SCAFFOLDING):
            problems.append(f"{path}: holds test scaffolding: {name}")
    print(f"{path}: {len(exported)} exported symbols checked")
    return problems


def main(paths):
    if not paths:
        print("usage: library_symbols.py LIB...")
        return 2
    problems = [p for path in paths for p in check(path)]
    for p in problems[:200]:
        print(p)
    print(f"library_symbols: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
