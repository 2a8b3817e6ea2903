"""Fleet fixtures for the tests: copies of a shipped reference run (the
H200 `--preset tiers` run and its `ewbench ceilings` run) as the members of
a fleet, with placement and NVML readings added to run.json and, for a
"slow" member, every bandwidth, the DRAM ceilings, the SM clock counter and
NVML's end clocks scaled down.  Built in a temporary directory by each
test; never committed as reference results.
"""

import csv
import io
import json
import os
import shutil

from conftest import ROOT, rewrite

REFERENCE = os.path.join(ROOT, "reports", "reference", "nvidia-h200")
RUN_SOURCE = os.path.join(REFERENCE, "tiers")
CEILINGS_SOURCE = os.path.join(REFERENCE, "ceilings")

TIME_COLUMNS = ("time_median_ns", "time_min_ns", "time_max_ns",
                "time_mean_ns", "time_stddev_ns", "activity_median_ns")
RATE_COLUMNS = ("bandwidth_median_bytes_per_s", "bandwidth_max_bytes_per_s",
                "spec_dram_pct")
# metrics.csv rows scaled with the bandwidth (x factor) or the time (/)
METRIC_WITH_RATE = ("sm__cycles_elapsed.avg.per_second",
                    "derived__dram_bandwidth")
METRIC_WITH_TIME = ("gpu__time_duration.sum",)


def _scale_csv(path, columns_by_factor):
    """Multiply columns of a CSV file: {column: factor}."""
    def edit(text):
        lines = text.split("\n")
        header = lines[0].split(",")
        index = {header.index(c): f for c, f in columns_by_factor.items()
                 if c in header}
        for i, line in enumerate(lines[1:], 1):
            fields = line.split(",")
            if len(fields) != len(header):
                continue
            for c, f in index.items():
                if fields[c]:
                    fields[c] = "%.17g" % (float(fields[c]) * f)
            lines[i] = ",".join(fields)
        return "\n".join(lines)
    rewrite(path, edit)


def slow_down(run_dir, factor):
    """Every point of a run `factor` as fast (times / factor)."""
    _scale_csv(os.path.join(run_dir, "timing.csv"), dict(
        [(c, 1 / factor) for c in TIME_COLUMNS] +
        [(c, factor) for c in RATE_COLUMNS]))
    metrics = os.path.join(run_dir, "metrics.csv")
    if os.path.exists(metrics):
        def edit(text):
            out = []
            for line in text.split("\n"):
                f = line.split(",")
                if len(f) == 12 and f[8] in METRIC_WITH_RATE + \
                        METRIC_WITH_TIME:
                    scale = factor if f[8] in METRIC_WITH_RATE else 1 / factor
                    f[9] = "%.17g" % (float(f[9]) * scale)
                    line = ",".join(f)
                out.append(line)
            return "\n".join(out)
        rewrite(metrics, edit)


def slow_ceilings(ceilings_dir, factor):
    """The DRAM ceilings of a ceilings run `factor` as fast."""
    def edit(text):
        out = []
        for line in text.split("\n"):
            f = line.split(",")
            if len(f) > 2 and f[1].startswith("dram_"):
                f[2] = "%.17g" % (float(f[2]) * factor)
                line = ",".join(f)
            out.append(line)
        return "\n".join(out)
    rewrite(os.path.join(ceilings_dir, "ceilings.csv"), edit)


def set_ceiling_spread(ceilings_dir, spread_pct):
    """Every ceiling's spread_pct set to spread_pct, or the column dropped
    (None), as in files written before ewbench recorded it."""
    def edit(text):
        rows = list(csv.reader(io.StringIO(text)))
        header = rows[0]
        if "spread_pct" in header:
            at = header.index("spread_pct")
            rows = [r[:at] + r[at + 1:] for r in rows]
        if spread_pct is not None:
            rows = [rows[0] + ["spread_pct"]] + \
                [r + ["%g" % spread_pct] for r in rows[1:]]
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        return out.getvalue()
    rewrite(os.path.join(ceilings_dir, "ceilings.csv"), edit)


def reading(sm=1980, mem=3201, power=120.0, temp=35.0, reasons=0):
    """An NVML reading as ewbench writes it (reasons: NVML's bit mask)."""
    return {"utc": "2026-11-22T18:00:00Z", "sm_clock_mhz": sm,
            "memory_clock_mhz": mem, "power_w": power,
            "temperature_c": temp, "clock_event_reasons": reasons}


def place(run_dir, name, index, factor=1.0, nvml=True):
    """Add placement and NVML readings to run.json."""
    path = os.path.join(run_dir, "run.json")
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    host = name.rsplit("-", 1)[0]
    manifest["fixture"] = True
    manifest["host"]["hostname"] = host
    manifest["device"]["pci_bus_id"] = "0000:%02X:00.0" % (0x18 + 0x20 *
                                                           index)
    manifest["placement"] = {
        "hostname": host, "pci_bus_id": manifest["device"]["pci_bus_id"],
        "numa_node": index // 2, "launcher": "ewbench", "rank": None,
        "local_rank": None, "node": host, "member": name}
    if nvml:
        slow = factor < 1
        manifest["placement"]["nvml"] = {
            "status": "ok", "reason": None, "max_sm_clock_mhz": 1980,
            "max_memory_clock_mhz": 3201,
            "start": reading(),
            "end": reading(sm=round(1980 * factor), power=690.0 if slow
                           else 640.0, temp=87.0 if slow else 61.0,
                           reasons=0x20 if slow else 0)}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)


def _member(phase_dir, source, name, index, factor, nvml):
    target = os.path.join(phase_dir, name)
    shutil.copytree(source, target)
    place(target, name, index, factor, nvml)
    return target


def write_fleet_json(directory, names, failed):
    members = [{"name": n, "dir": n, "host": n.rsplit("-", 1)[0],
                "device": i, "status": "ok", "exit_code": 0, "reason": None}
               for i, n in enumerate(names)]
    members += [{"name": n, "dir": n, "host": n.rsplit("-", 1)[0],
                 "device": len(names) + i, "status": "failed",
                 "exit_code": 1, "reason": reason}
                for i, (n, reason) in enumerate(sorted(failed.items()))]
    doc = {"schema": "ewbench-fleet/1", "command": "ewbench run --device "
           "all -o %s" % directory, "started_utc": "2026-12-01T10:00:00Z",
           "finished_utc": "2026-12-01T10:01:00Z", "launcher": "ewbench",
           "members": members}
    with open(os.path.join(directory, "fleet.json"), "w",
              encoding="utf-8") as f:
        json.dump(doc, f, indent=1)


def make_fleet_study(root, names, slow=None, failed=None, nvml=True):
    """root/ceilings/<name>/ and root/run/<name>/ for each name; members
    in slow ({name: factor}) slowed down; failed ({name: reason}) listed
    in run/fleet.json as failed, without a directory."""
    slow, failed = slow or {}, failed or {}
    for phase, source in (("ceilings", CEILINGS_SOURCE),
                          ("run", RUN_SOURCE)):
        phase_dir = os.path.join(root, phase)
        os.makedirs(phase_dir)
        for i, name in enumerate(names):
            factor = slow.get(name, 1.0)
            target = _member(phase_dir, source, name, i, factor, nvml)
            if factor != 1.0:
                if phase == "ceilings":
                    slow_ceilings(target, factor)
                else:
                    slow_down(target, factor)
        if phase == "run" and failed:
            write_fleet_json(phase_dir, names, failed)
    return root


def make_fleet_dir(root, names, slow=None, failed=None, nvml=True):
    """A plain fleet directory: root/<name>/ copies of the run (no
    ceilings), with root/fleet.json when some member failed."""
    slow, failed = slow or {}, failed or {}
    os.makedirs(root)
    for i, name in enumerate(names):
        factor = slow.get(name, 1.0)
        target = _member(root, RUN_SOURCE, name, i, factor, nvml)
        if factor != 1.0:
            slow_down(target, factor)
    if failed:
        write_fleet_json(root, names, failed)
    return root
