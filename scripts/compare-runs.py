#!/usr/bin/env python3
"""Compares a run against a reference run of the same experiment (e.g. packet fast-forward
against the full packet run): iteration-time and makespan error, per-flow FCT error (mean,
p99, max; over all flows and over flows of at least --large bytes), events.

Flows are paired by what they are: their ends, bytes and flows.csv's `transfer` column (a
collective's communicator, sequence, channel and step, or a point-to-point send), so that a
transfer that starts earlier or later in one run (the schedule moved) is still compared with
itself. Flows with the same key (and every flow of a flows.csv without `transfer`) are paired
by start order.

usage: compare-runs.py REFERENCE_DIR RUN_DIR [--large BYTES]
"""
import argparse
import csv
import json
import sys
from collections import defaultdict


def flows(directory):
    groups = defaultdict(list)
    with open(f"{directory}/flows.csv", newline="") as f:
        for row in csv.DictReader(f):
            key = (row["src_rank"], row["dst_rank"], row["src_node"], row["dst_node"], int(row["size_bytes"]),
                   row.get("transfer", ""))
            groups[key].append((float(row["start_ns"]), float(row["fct_ns"])))
    for rows in groups.values():
        rows.sort()
    return groups


def summary(directory):
    with open(f"{directory}/summary.json") as f:
        return json.load(f)


def percentile(values, p):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def describe(name, errors):
    if not errors:
        return f"{name}: no flows"
    mean = sum(errors) / len(errors)
    return (f"{name} ({len(errors)}): mean {100 * mean:.4f}%, p99 {100 * percentile(errors, 0.99):.4f}%, "
            f"max {100 * max(errors):.4f}%")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reference")
    parser.add_argument("run")
    parser.add_argument("--large", type=int, default=1 << 20, help="bytes from which a flow counts as large")
    args = parser.parse_args()
    ref_flows, run_flows = flows(args.reference), flows(args.run)
    if any(k[5] for k in ref_flows) != any(k[5] for k in run_flows):
        sys.exit("only one of the two flows.csv names its transfers: rerun the older one")
    if set(ref_flows) != set(run_flows) or any(len(ref_flows[k]) != len(run_flows[k]) for k in ref_flows):
        sys.exit("the two runs' flows.csv hold different transfers: not runs of one experiment")
    every, large = [], []
    for key, ref_rows in ref_flows.items():
        for (_, ref_fct), (_, run_fct) in zip(ref_rows, run_flows[key]):
            error = abs(run_fct / ref_fct - 1) if ref_fct > 0 else 0.0
            every.append(error)
            if key[4] >= args.large:
                large.append(error)
    ref, run = summary(args.reference), summary(args.run)
    ref_iterations, run_iterations = ref["metrics"]["iteration_us"], run["metrics"]["iteration_us"]
    for i, (a, b) in enumerate(zip(ref_iterations, run_iterations)):
        print(f"iteration {i}: {a:.3f} us -> {b:.3f} us ({100 * (b / a - 1):+.4f}%)")
    a, b = ref["totals"]["makespan_us"], run["totals"]["makespan_us"]
    print(f"makespan: {a:.3f} us -> {b:.3f} us ({100 * (b / a - 1):+.4f}%)")
    print(describe("FCT error, all flows", every))
    print(describe(f"FCT error, flows >= {args.large} B", large))
    a, b = ref["totals"]["events"], run["totals"]["events"]
    print(f"events: {a:,} -> {b:,} ({a / b:.1f}x)")


if __name__ == "__main__":
    main()
