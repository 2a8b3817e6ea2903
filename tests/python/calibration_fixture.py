"""A synthetic calibration/ beside a shipped study (tests only).

The scalar study kernels and their probes, each row copied from the
study's experiments/ run at the kernel's published block, at residencies
1..8 blocks per SM.  Every family (a kernel and its probes) follows a
known curve `truth(family, kib)`: each row's time is set so that it
streams truth at its loads in flight, and metrics.csv gives it the
article point's achieved occupancy x N / 8 (the calculator's theoretical
occupancy N / 8) -- so a study point's loads in flight land on the
curve exactly where the article's own counters put them."""

import csv
import json
import os

from ewbench.analysis.core import load
from ewbench.analysis.report import model

CALIBRATED = ("add_f32", "add_f16", "relu_f32", "abs_f32")
LEVELS = tuple(range(1, 9))
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
THEORETICAL = "sm__maximum_warps_per_active_cycle_pct"
TIMES = ("time_median_ns", "time_min_ns", "time_max_ns", "time_mean_ns",
         "time_stddev_ns", "activity_median_ns", "time_ci_low_ns",
         "time_ci_high_ns", "time_iqr_ns", "interval_ns", "interval_ci_ns",
         "queued_interval_ns", "queued_interval_ci_ns", "graph_interval_ns",
         "graph_interval_ci_ns", "batch_ns", "crosscheck_ns")
RATES = ("bandwidth_median_bytes_per_s", "bandwidth_max_bytes_per_s",
         "spec_dram_pct")
KEY = ("run_id", "variant", "op", "dtype", "n", "block", "cache", "launch")


def family_of(variant):
    base = variant.split("_ilp")[0]
    return base if base in CALIBRATED else None


def loads_of(variant):
    return int(variant[-1]) if "_ilp" in variant else 1


def anchors(reference):
    """family -> (its article point's loads in flight per SM at 2^28
    warm, that point's achieved occupancy, its experiments' base
    bandwidth, its op's DRAM ceiling)."""
    article = load.load_run(os.path.join(reference, "article"),
                            ceilings_from=os.path.join(reference,
                                                       "ceilings"))
    exp = load.load_run(os.path.join(reference, "experiments"))
    most = article.device["max_threads_per_sm"]
    out = {}
    for base in CALIBRATED:
        a = next(p for p in article.points if p.variant == base and
                 p.n == 1 << 28 and p.cache == "warm")
        occ = model.occupancy(article, a)[0]
        b = next(p for p in exp.points if p.variant == base and
                 p.block == a.block)
        out[base] = (model.kib_in_flight_per_sm(a, occ, most), occ,
                     b.bandwidth,
                     model.run_dram_ceiling(article, a.op).value)
    return out


def make_study(reference, where, truth):
    """A study directory at `where`: reference's parts linked, and
    calibration/residency-N/ for N in LEVELS whose rows follow
    truth(family, kib) (byte/s)."""
    os.makedirs(where)
    for name in os.listdir(reference):
        if name != "report":
            os.symlink(os.path.join(reference, name),
                       os.path.join(where, name))
    kb = anchors(reference)
    src = os.path.join(reference, "experiments")
    with open(os.path.join(src, "run.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    with open(os.path.join(src, "timing.csv"), encoding="utf-8") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    own = [r for r in rows if family_of(r["variant"]) and
           int(r["block"]) == 256]
    for n in LEVELS:
        run = os.path.join(where, "calibration", "residency-%d" % n)
        os.makedirs(run)
        m = dict(manifest, settings=dict(manifest["settings"],
                                         residency=n))
        m["counters"] = dict(manifest["counters"], enabled=True,
                             status="ok", metric_set=OCCUPANCY,
                             metrics=[OCCUPANCY])
        with open(os.path.join(run, "run.json"), "w",
                  encoding="utf-8") as f:
            json.dump(m, f)
        with open(os.path.join(run, "timing.csv"), "w", newline="",
                  encoding="utf-8") as t, \
                open(os.path.join(run, "metrics.csv"), "w", newline="",
                     encoding="utf-8") as mf:
            tw = csv.DictWriter(t, fields, lineterminator="\n")
            tw.writeheader()
            mw = csv.writer(mf, lineterminator="\n")
            mw.writerow(KEY + ("metric", "value", "unit", "source"))
            for r in own:
                base = family_of(r["variant"])
                kib0, occ, _, _ = kb[base]
                kib = loads_of(r["variant"]) * kib0 * n / 8.0
                slower = float(r["bandwidth_median_bytes_per_s"]) / \
                    truth(base, kib)
                r = dict(r)
                for k in TIMES:
                    if r[k]:
                        r[k] = repr(float(r[k]) * slower)
                for k in RATES:
                    if r[k]:
                        r[k] = repr(float(r[k]) / slower)
                tw.writerow(r)
                key = tuple(r[k] for k in KEY)
                mw.writerow(key + (OCCUPANCY, repr(occ * n / 8.0), "%",
                                   "cupti"))
                mw.writerow(key + (THEORETICAL, repr(100.0 * n / 8.0), "%",
                                   "occupancy_api"))
    return where


def knee_truth(reference):
    """A curve per family through its experiments' base at the article's
    loads in flight: in proportion to them up to there (Little's law),
    half as steep past it, up to its op's DRAM ceiling."""
    kb = anchors(reference)

    def truth(base, kib):
        k0, _, b0, dram = kb[base]
        x = kib / k0
        return min(dram, b0 * (x if x <= 1 else 1 + 0.5 * (x - 1)))
    return truth
