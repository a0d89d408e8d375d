#!/usr/bin/env python3
"""Line coverage of the library's sources from a --coverage build's counters
(scripts/coverage.sh makes the build and runs the suite).

    scripts/coverage_report.py BUILD_DIR                  per-file table
    scripts/coverage_report.py BUILD_DIR --lines FILE     FILE's lines no
                                                          test executed

A line counts as executed if any object file compiled from its source
executed it. Sources are those of the library's folders (LIBRARY_DIRS);
headers count where their code was compiled in. Reads gcov's JSON output
(gcc 9 or later); exits 1 with a message if the build has no counters.
"""

import argparse
import collections
import gzip
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY_DIRS = ("db/", "table/", "fs/", "util/", "port/", "c/", "compat/", "tools/")


def gcda_files(build_dir):
    out = []
    for root, _, files in os.walk(build_dir):
        out.extend(os.path.join(root, f) for f in files if f.endswith(".gcda"))
    return sorted(out)


def library_source(path, cwd):
    """The repository-relative path of a library source, else None."""
    full = os.path.realpath(os.path.join(cwd, path))
    rel = os.path.relpath(full, REPO)
    if rel.startswith("..") or not rel.startswith(LIBRARY_DIRS):
        return None
    if rel.endswith("_test.cc") or "/testing/" in rel:
        return None
    return rel


def collect(build_dir):
    """{source: {line: count}} over every counter file of the build."""
    lines = collections.defaultdict(dict)
    gcdas = gcda_files(build_dir)
    if not gcdas:
        sys.exit("coverage_report: no .gcda files under %s (run the suite in a "
                 "--coverage build first: scripts/coverage.sh)" % build_dir)
    with tempfile.TemporaryDirectory() as tmp:
        # gcov writes FILE.gcov.json.gz into its working directory, one per
        # counter file; several counter files per call keep it fast.
        for i in range(0, len(gcdas), 64):
            batch = gcdas[i:i + 64]
            subprocess.run(["gcov", "--json-format", "--preserve-paths"] +
                           [os.path.abspath(g) for g in batch], cwd=tmp,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=False)
            for name in os.listdir(tmp):
                if not name.endswith(".gcov.json.gz"):
                    continue
                path = os.path.join(tmp, name)
                with gzip.open(path, "rt") as f:
                    doc = json.load(f)
                os.remove(path)
                cwd = doc.get("current_working_directory", REPO)
                for entry in doc.get("files", []):
                    src = library_source(entry["file"], cwd)
                    if src is None:
                        continue
                    counts = lines[src]
                    for ln in entry.get("lines", []):
                        n = ln["line_number"]
                        counts[n] = max(counts.get(n, 0), ln["count"])
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("--lines", metavar="FILE",
                    help="print FILE's lines that no test executed, with their text")
    args = ap.parse_args()
    lines = collect(args.build_dir)
    if args.lines:
        counts = lines.get(args.lines)
        if counts is None:
            sys.exit("coverage_report: no counters for %s" % args.lines)
        with open(os.path.join(REPO, args.lines)) as f:
            text = f.read().split("\n")
        for n in sorted(counts):
            if counts[n] == 0:
                print("%s:%d: %s" % (args.lines, n, text[n - 1].strip()))
        return
    rows = []
    for src, counts in lines.items():
        total = len(counts)
        hit = sum(1 for c in counts.values() if c > 0)
        if total:
            rows.append((hit / total, src, hit, total))
    rows.sort()
    all_hit = sum(r[2] for r in rows)
    all_total = sum(r[3] for r in rows)
    print("%-44s %8s %8s %7s" % ("source", "executed", "lines", "share"))
    for share, src, hit, total in rows:
        print("%-44s %8d %8d %6.1f%%" % (src, hit, total, 100 * share))
    if all_total:
        print("%-44s %8d %8d %6.1f%%" % ("all", all_hit, all_total,
                                          100.0 * all_hit / all_total))


if __name__ == "__main__":
    main()
