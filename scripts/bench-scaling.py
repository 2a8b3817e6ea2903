#!/usr/bin/env python3
"""scripts/bench-scaling.py - how the analysis's cost grows with its input
(issue 32): `ewbench report` of a run of one add variant at ROWS distinct
warm sizes (20,000 and 200,000 by default: the rows of the fixture's run,
tests/fixtures/h100-fixture, multiplied), and `ewbench timeline` of a
trace of one NVTX range over EVENTS kernels (1,000,000).  A benchmark, not
a test: it prints seconds per size, for the note of a change that touches
the cost; linear growth is about 10x the time for 10x the input.

  PYTHONPATH=python python3 scripts/bench-scaling.py [ROWS...] [--events N...]

A count of 0 leaves that part out (`0 --events 10000 100000` times the
timeline alone).
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "h100-fixture")


def run_of(rows, directory):
    """A copy of the fixture whose timing.csv holds rows rows of add_f32,
    warm, stream, at distinct sizes (the bandwidth of the fixture's first
    row), and no counter rows."""
    shutil.copytree(FIXTURE, directory)
    with open(os.path.join(FIXTURE, "timing.csv")) as f:
        header = f.readline()
        first = f.readline().rstrip("\n").split(",")
    columns = header.rstrip("\n").split(",")
    col = {c: i for i, c in enumerate(columns)}
    bandwidth = float(first[col["bandwidth_median_bytes_per_s"]])
    spec = bandwidth * 100 / float(first[col["spec_dram_pct"]])
    with open(os.path.join(directory, "timing.csv"), "w") as f:
        f.write(header)
        for i in range(rows):
            n = 1024 + 4 * i
            row = list(first)
            row[col["n"]] = str(n)
            row[col["grid"]] = str((n + 255) // 256)
            for c in ("footprint_bytes", "bytes_moved"):
                row[col[c]] = str(12 * n)
            row[col["flops"]] = str(n)
            t = 12 * n / bandwidth * 1e9 + 2000.0
            for c in ("time_median_ns", "time_min_ns", "time_max_ns",
                      "time_mean_ns"):
                row[col[c]] = repr(t)
            row[col["time_stddev_ns"]] = "1.0"
            bw = 12 * n / t * 1e9
            row[col["bandwidth_median_bytes_per_s"]] = repr(bw)
            row[col["bandwidth_max_bytes_per_s"]] = repr(bw)
            row[col["spec_dram_pct"]] = repr(100 * bw / spec)
            f.write(",".join(row) + "\n")
    with open(os.path.join(directory, "metrics.csv")) as f:
        metrics_header = f.readline()
    with open(os.path.join(directory, "metrics.csv"), "w") as f:
        f.write(metrics_header)


def trace_of(events, path):
    """A trace (ewbench run --trace's format) of one NVTX range over
    events kernels."""
    from ewbench.analysis.timeline import GPU_PID, HOST_PID
    out = [{"name": "add_f32 n=1Mi warm stream", "ph": "X", "pid": HOST_PID,
            "tid": 1, "ts": 0.0, "dur": 4.0 * events + 10}]
    for i in range(events):
        out.append({"name": "add_f32", "ph": "X", "pid": GPU_PID, "tid": 7,
                    "ts": 1.0 + 4.0 * i, "dur": 3.5, "args": {}})
    with open(path, "w") as f:
        json.dump({"traceEvents": out}, f)


def seconds(call):
    t0 = time.perf_counter()
    status = call()
    took = time.perf_counter() - t0
    if status != 0:
        sys.exit("scripts/bench-scaling.py: exit %s" % status)
    return took


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="*", type=int, default=[20000, 200000])
    parser.add_argument("--events", type=int, nargs="+", default=[1000000])
    args = parser.parse_args()
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from ewbench.analysis.__main__ import main as analysis
    work = tempfile.mkdtemp(prefix="ewbench-bench-")
    try:
        print("| input | seconds |")
        print("|---|---|")
        for rows in filter(None, args.rows):
            run = os.path.join(work, "run-%d" % rows)
            run_of(rows, run)
            took = seconds(lambda: analysis(["report", run, "-o",
                                             run + "-report"]))
            print("| report, %d rows of one variant | %.1f |" % (rows, took),
                  flush=True)
        for events in filter(None, args.events):
            trace = os.path.join(work, "trace.json")
            trace_of(events, trace)
            took = seconds(lambda: analysis(["timeline", trace, "-o",
                                             os.path.join(work, "t.png")]))
            print("| timeline, %d kernels in one range | %.1f |" % (
                events, took), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
