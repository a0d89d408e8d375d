"""Markdown tables of ratios from results.csv files of benchmarks/compare.

A ratio is the peer's micros/op divided by DeLSM's, from the same run:
above 1, DeLSM is faster. RESULTS.md's tables are these functions' output,
so each one is regenerated from the CSVs beside it:

    benchmarks/compare --ratios benchmarks/results-1m.csv
    benchmarks/compare --ratios benchmarks/results-100k.csv --value-size 4096

Given several runs (one CSV each), a cell is the median of the runs'
ratios with the lowest and highest in brackets; a ratio is only ever taken
within one run. A workload of several stages (writedeleteread: fill,
delete, read) is one row whose cell lists the stages' ratios in the order
the CSV has them. A cell is empty where DeLSM or the peer has no figure in
some run.
"""

import csv

BASE_ENGINE = "delsm"


def load(csv_paths):
    """The runs, one {(value_size, line, engine): micros_op} per CSV (rows
    with a figure only), and the workloads with their lines in the order
    the CSVs first name them."""
    runs = []
    lines = {}  # workload -> its lines, first appearance first
    for path in csv_paths:
        figures = {}
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                try:
                    micros = float(r["micros_op"])
                except (KeyError, TypeError, ValueError):
                    continue
                if micros <= 0:
                    continue
                figures[(int(r["value_size"]), r["line"], r["engine"])] = micros
                stages = lines.setdefault(r["workload"], [])
                if r["line"] not in stages:
                    stages.append(r["line"])
        runs.append(figures)
    return runs, lines


def ratios(runs, value_size, line, peer):
    """The peer's ratio in each run, or None if a run lacks either figure."""
    out = []
    for figures in runs:
        base = figures.get((value_size, line, BASE_ENGINE))
        other = figures.get((value_size, line, peer))
        if base is None or other is None:
            return None
        out.append(other / base)
    return out


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def fmt(xs):
    if len(xs) == 1:
        return "%.2f" % xs[0]
    return "%.2f (%.2f–%.2f)" % (median(xs), min(xs), max(xs))


def unit(runs):
    """The × after a cell of one run; a median with its range goes bare."""
    return "×" if len(runs) == 1 else ""


def size_label(vs):
    return "%d KiB" % (vs // 1024) if vs >= 1024 and vs % 1024 == 0 else "%d B" % vs


def row_label(workload, stages):
    if len(stages) == 1 and stages[0] == workload:
        return workload
    return "%s: %s" % (workload, " / ".join(s.split("/", 1)[-1] for s in stages))


def cell(runs, value_size, stages, peer):
    per_stage = [ratios(runs, value_size, s, peer) for s in stages]
    if any(r is None for r in per_stage):
        return ""
    return " / ".join(fmt(r) for r in per_stage) + unit(runs)


def by_value_size(runs, lines, peer):
    """One row per workload, one column per value size: the peer's ratios."""
    sizes = sorted(set(k[0] for f in runs for k in f if k[2] == BASE_ENGINE))
    out = ["| workload | " + " | ".join(size_label(v) for v in sizes) + " |",
           "|---|" + "---:|" * len(sizes)]
    for workload, stages in lines.items():
        cells = [cell(runs, v, stages, peer) for v in sizes]
        if any(cells):
            out.append("| %s | %s |" % (row_label(workload, stages), " | ".join(cells)))
    return out


def by_peer(runs, lines, value_size, peers):
    """One row per result line at one value size: DeLSM's micros/op (the
    median of the runs), then one column per peer with its ratio."""
    peers = [p for p in peers
             if any(k[0] == value_size and k[2] == p for f in runs for k in f)]
    out = ["| %s workload | DeLSM µs/op | %s |" % (size_label(value_size), " | ".join(peers)),
           "|---|---:|" + "---:|" * len(peers)]
    for stages in lines.values():
        for line in stages:
            base = [f.get((value_size, line, BASE_ENGINE)) for f in runs]
            if any(b is None for b in base):
                continue
            cells = []
            for p in peers:
                r = ratios(runs, value_size, line, p)
                cells.append("" if r is None else fmt(r) + unit(runs))
            out.append("| %s | %.1f | %s |" % (line, median(base), " | ".join(cells)))
    return out
