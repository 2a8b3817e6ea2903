"""run.json's "placement" object (docs/data-format.md): where a run ran,
its launcher's facts and NVML readings.  Unknown facts are null, never
0; a run without the object (written before it existed) still loads."""

import json

import pytest

from ewbench.analysis.core import validate
from ewbench.analysis.core.load import load_run

READING = {"utc": "2026-11-21T20:45:12Z", "sm_clock_mhz": 1755,
           "memory_clock_mhz": 2619, "power_w": 71.3, "temperature_c": 33,
           "clock_event_reasons": 1}
PLACEMENT = {
    "hostname": "nodeA", "pci_bus_id": "0000:3B:00.0", "numa_node": 0,
    "launcher": "slurm", "rank": 3, "local_rank": 1, "node": "nodeA",
    "member": "nodeA-rank3",
    "nvml": {"status": "ok", "reason": None, "max_sm_clock_mhz": 1980,
             "max_memory_clock_mhz": 2619, "start": READING,
             "end": dict(READING, power_w=402.5, clock_event_reasons=4)},
}
UNKNOWN = {
    "hostname": "box", "pci_bus_id": None, "numa_node": None,
    "launcher": None, "rank": None, "local_rank": None, "node": None,
    "member": None,
    "nvml": {"status": "unavailable",
             "reason": "cannot load libnvidia-ml.so.1 (not found)",
             "max_sm_clock_mhz": None, "max_memory_clock_mhz": None,
             "start": None, "end": None},
}


def _with_placement(run_copy, placement):
    path = run_copy / "run.json"
    manifest = json.load(open(path))
    manifest["placement"] = placement
    json.dump(manifest, open(path, "w"), indent=2)
    return path


@pytest.mark.parametrize("placement", [PLACEMENT, UNKNOWN])
def test_placement_loads(run_copy, placement):
    _with_placement(run_copy, placement)
    run = load_run(str(run_copy))
    assert run.manifest["placement"]["hostname"] == placement["hostname"]


@pytest.mark.parametrize("edit, message", [
    (lambda p: p["nvml"]["start"].update(sm_clock_mhz=0),
     "placement.nvml.start.sm_clock_mhz to be a positive finite number"),
    (lambda p: p["nvml"].update(max_memory_clock_mhz=0),
     "placement.nvml.max_memory_clock_mhz"),
    (lambda p: p.update(numa_node=-1),
     "placement.numa_node to be a non-negative integer or null"),
    (lambda p: p["nvml"]["end"].update(power_w=0), "placement.nvml.end.power_w"),
    (lambda p: p["nvml"].update(status="maybe"), "placement.nvml.status"),
])
def test_placement_refusals(run_copy, edit, message):
    placement = json.loads(json.dumps(PLACEMENT))
    edit(placement)
    path = _with_placement(run_copy, placement)
    with pytest.raises(validate.DataError) as e:
        validate.check_manifest(str(path), open(path).read())
    assert message in str(e.value)
