#!/usr/bin/env python3
"""Compare ewbench's CUPTI counters with Nsight Compute's for the same launches.

usage: ncu-compare.py EWBENCH_METRICS_CSV NCU_DETAILS_CSV

EWBENCH_METRICS_CSV is metrics.csv of `ewbench run --cache cold --iters 1
--warmup 0`; NCU_DETAILS_CSV is `ncu --csv --page details --print-units base`
of the same command with --no-cupti.  ewbench launches, per size (ascending)
and dtype (f32, then f16), each selected variant in registry order: once for
the check and once timed; ncu's kernel filter drops the L2 flushes, so the
timed (cold) launch is the second of each pair.  Exits 1 on disagreement.
"""
import csv
import json
import os
import sys

# metric -> relative tolerance
TOLERANCE = {
    "smsp__inst_executed.sum": 0.01,
    "smsp__inst_issued.sum": 0.01,
    "smsp__sass_inst_executed_op_global_ld.sum": 0.01,
    "smsp__sass_inst_executed_op_global_st.sum": 0.01,
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 0.01,
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 0.01,
    "dram__bytes_read.sum": 0.01,
    "gpu__time_duration.sum": 0.05,
}


def read_ncu(path):
    """Kernel launches in order: list of (kernel name, {metric: value})."""
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]
    launches = {}
    for row in csv.DictReader(lines):
        launch = launches.setdefault(int(row["ID"]), (row["Kernel Name"], {}))
        value = row["Metric Value"].replace(",", "")
        launch[1][row["Metric Name"]] = float(value) if value else float("nan")
    return [launches[k] for k in sorted(launches)]


def read_ewbench(path):
    """{(variant, n): {metric: value}} of the cold cupti rows, and the run order."""
    points = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["source"] == "cupti" and row["cache"] == "cold":
                key = (row["variant"], int(row["n"]))
                points.setdefault(key, {"dtype": row["dtype"]})[row["metric"]] = float(row["value"])
    manifest = json.load(open(os.path.join(os.path.dirname(path), "run.json")))
    settings = manifest["settings"]
    order = []
    for n in settings["sizes"]:
        for dtype in ("f32", "f16"):
            for v in settings["variants"]:
                if (v, n) in points and points[(v, n)]["dtype"] == dtype:
                    order.append((v, n))
    return points, order


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    points, order = read_ewbench(argv[1])
    launches = read_ncu(argv[2])
    if len(launches) != 2 * len(order):
        print("ncu saw %d launches, expected %d (2 per point)" % (len(launches), 2 * len(order)))
        return 1
    failures = 0
    print("%-16s %10s  %-45s %16s %16s %8s" % ("variant", "n", "metric", "ewbench", "ncu", "diff %"))
    for i, key in enumerate(order):
        name, ncu = launches[2 * i + 1]
        ours = points[key]
        for metric, tol in TOLERANCE.items():
            if metric not in ours or metric not in ncu:
                continue
            a, b = ours[metric], ncu[metric]
            diff = abs(a - b) / max(abs(b), 1e-30)
            bad = diff > tol
            failures += bad
            print("%-16s %10d  %-45s %16.6g %16.6g %8.3f%s" % (
                key[0], key[1], metric, a, b, 100 * diff, "  FAIL" if bad else ""))
    print("ncu comparison: %d points, %d disagreements" % (len(order), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
