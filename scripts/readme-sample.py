#!/usr/bin/env python3
"""scripts/readme-sample.py EWBENCH [--check README.md]

The README's "Real output" block, made from the shipped reference study
(reports/reference/nvidia-h200/article: run.json and timing.csv) in the
formats ewbench prints them (src/device/device.c device_print, src/run/printers.c),
and `ewbench list | head -3` run live (no GPU needed).  Without --check it
prints the block; with --check it exits 1 naming the first line where the
README's block differs (tests/readme.sh, in make check).
"""

import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = os.path.join("reports", "reference", "nvidia-h200", "article")
# The rows shown: (variant, n, cache), warm or cold, stream launches.
ROWS = (("add_f32", 1 << 20, "warm"), ("add_f32x4", 1 << 24, "warm"),
        ("add_f32x4", 1 << 24, "cold"), ("add_f32x4", 1 << 28, "warm"),
        ("add_f16x8_pack", 1 << 28, "warm"), ("cub_add_f16", 1 << 28, "warm"),
        ("add_f16_tma", 1 << 28, "warm"))
BEGIN = "$ ewbench info"


def size_format(n):
    """src/base/sizes.c size_format: the shortest exact spelling."""
    def family(scale, suffixes):
        for k in range(len(suffixes), 0, -1):
            if n % scale ** k == 0:
                return "%d%s" % (n // scale ** k, suffixes[k - 1])
        return str(n)
    binary = family(1024, ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"))
    decimal = family(1000, ("K", "M", "G", "T", "P", "E"))
    return min((binary, decimal, str(n)), key=len)


def bytes_format(v):
    """src/base/sizes.c bytes_format: "60.0 MiB"."""
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
    if v < 1023.5:
        return "%.0f B" % v
    unit = 0
    while True:
        v /= 1024
        unit += 1
        if v < 1023.95 or unit == len(units) - 1:
            return "%.1f %s" % (v, units[unit])


def cuda(version):
    return "%d.%d" % (version // 1000, version % 1000 // 10)


def info(run):
    d, v = run["device"], run["versions"]
    return [
        "device %d: %s" % (d["index"], d["name"]),
        "  compute capability  %s" % d["compute_capability"],
        "  SMs                 %d (max %d threads, %d blocks each)" % (
            d["sm_count"], d["max_threads_per_sm"], d["max_blocks_per_sm"]),
        "  SM clock (max)      %.0f MHz" % (d["sm_clock_khz"] / 1e3),
        "  L2 cache            %s" % bytes_format(d["l2_bytes"]),
        "  memory              %s, %d-bit bus, %.0f MHz" % (
            bytes_format(d["memory_bytes"]), d["bus_width_bits"],
            d["memory_clock_khz"] / 1e3),
        "  DRAM bandwidth      %.1f GB/s theoretical (2 x clock x bus width)"
        % (d["dram_bandwidth_bytes_per_s"] / 1e9),
        "  UUID                %s" % d["uuid"],
        "  PCI bus id          %s" % d["pci_bus_id"],
        "  driver / runtime    CUDA %s / %s" % (cuda(v["driver"]),
                                                cuda(v["runtime"])),
    ]


def rows(run, timing):
    spec = run["device"]["dram_bandwidth_bytes_per_s"]
    width = max([18] + [len(r["variant"]) for r in timing])
    out = ["%-*s %8s %5s %-4s %-6s %13s  %13s  %10s  %s" % (
        width, "variant", "n", "block", "L2", "launch", "median",
        "bandwidth", "of spec", "check")]
    for variant, n, cache in ROWS:
        r = next(r for r in timing if (r["variant"], int(r["n"]),
                                       r["cache"], r["launch"]) ==
                 (variant, n, cache, "stream"))
        t = float(r["time_median_ns"])
        bw = int(r["bytes_moved"]) / (t * 1e-9)
        block = int(r["block"] or 0)
        out.append("%-*s %8s %5s %-4s %-6s %10.3f us  %8.1f GB/s  %5.1f%% "
                   "spec  %s" % (width, variant, size_format(n),
                                 block if block else "auto", cache,
                                 r["launch"], t / 1e3, bw / 1e9,
                                 100 * bw / spec,
                                 "ok" if r["check"] == "pass" else
                                 "CHECK FAILED"))
    checks = run["checks"]
    out.append("ewbench: %d checks passed, %d failed; results in study" % (
        checks["passed"], checks["failed"]))
    return out


def block(ewbench):
    path = os.path.join(ROOT, RUN)
    with open(os.path.join(path, "run.json"), encoding="utf-8") as f:
        run = json.load(f)
    with open(os.path.join(path, "timing.csv"), encoding="utf-8") as f:
        timing = list(csv.DictReader(f))
    listing = subprocess.run([ewbench, "list"], check=True, text=True,
                             capture_output=True).stdout.splitlines()[:3]
    return ([BEGIN] + info(run) + [
        "", "$ ewbench run --preset article --cache both -o study     "
        "(excerpt)"] + rows(run, timing) +
        ["", "$ ewbench list | head -3"] + listing)


def readme_block(path):
    """The README's block: from its `$ ewbench info` line to the fence."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = lines.index(BEGIN)
    end = lines.index("```", start)
    return lines[start:end]


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--check"):
        sys.exit(__doc__.strip().splitlines()[0])
    want = block(argv[1])
    if len(argv) == 2:
        print("\n".join(want))
        return 0
    got = readme_block(argv[3])
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            print("%s: the sample's line %d is not what the shipped study "
                  "gives (scripts/readme-sample.py prints the block):\n"
                  "  README: %s\n  data:   %s" % (argv[3], i + 1, g, w))
            return 1
    if len(want) != len(got):
        print("%s: the sample has %d lines, the shipped study gives %d"
              % (argv[3], len(got), len(want)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
