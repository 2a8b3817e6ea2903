"""Where a run ran and what NVML read around it, from its run.json.

A fleet report tells GPUs apart by host, PCI bus id, NUMA node and launcher
rank, and explains a slow one by its clocks, power, temperature and clock
event (throttle) reasons.  ewbench writes them as run.json `placement`
(docs/data-format.md): hostname, pci_bus_id, numa_node, launcher, rank,
local_rank, node, and nvml {status, max_sm_clock_mhz, max_memory_clock_mhz,
start, end}, each reading {sm_clock_mhz, memory_clock_mhz, power_w,
temperature_c, clock_event_reasons (NVML's bit mask)}.  The validator has
checked the types; what is absent or null (older runs, no NVML) is None
here, and a report shows "—".
"""

import math
from dataclasses import dataclass
from typing import Optional

# NVML's clock-event (throttle) reason bits (nvml.h,
# nvmlClocksEventReason*), named as nvidia-smi names them.
THROTTLE_BITS = (
    (0x1, "gpu_idle"), (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"), (0x8, "hw_slowdown"), (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"), (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"), (0x100, "display_clock_setting"),
)
# Reasons that are not a slowdown of a busy GPU.
BENIGN_REASONS = ("gpu_idle", "none", "applications_clocks_setting",
                  "display_clock_setting")

@dataclass(frozen=True)
class Reading:
    """NVML at one moment; None = not read."""
    sm_clock_mhz: Optional[float] = None
    mem_clock_mhz: Optional[float] = None
    max_sm_clock_mhz: Optional[float] = None
    max_mem_clock_mhz: Optional[float] = None
    power_w: Optional[float] = None
    temperature_c: Optional[float] = None
    throttle_reasons: Optional[tuple] = None    # names; () = none active


@dataclass(frozen=True)
class Placement:
    hostname: Optional[str] = None
    pci_bus_id: Optional[str] = None
    numa_node: Optional[int] = None
    launcher: Optional[str] = None
    rank: Optional[object] = None
    local_rank: Optional[object] = None
    node: Optional[object] = None
    start: Reading = Reading()
    end: Reading = Reading()


def _dict(value):
    return value if isinstance(value, dict) else {}


def _number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


def _name(value):
    """A rank or node: an integer or a non-empty string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and value):
        return value
    return None


def _string(value):
    return value if isinstance(value, str) and value else None


def throttle_names(value):
    """Throttle reasons as a tuple of names, () when none is active, None
    when not read: a list of names, one name (or a comma-separated list),
    or NVML's bit mask."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        names = tuple(n for bit, n in THROTTLE_BITS if value & bit)
        unknown = value & ~sum(bit for bit, _ in THROTTLE_BITS)
        return names + (("0x%x" % unknown,) if unknown else ())
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",")]
    if isinstance(value, list):
        names = tuple(v for v in value if isinstance(v, str) and v and
                      v.lower() != "none")
        return names
    return None


def slowdowns(names):
    """The reasons in names that slow a busy GPU down (not idle, not an
    application clock setting)."""
    return tuple(n for n in names or () if n.lower() not in BENIGN_REASONS)


def _reading(raw, nvml):
    raw = _dict(raw)
    return Reading(
        sm_clock_mhz=_number(raw.get("sm_clock_mhz")),
        mem_clock_mhz=_number(raw.get("memory_clock_mhz")),
        max_sm_clock_mhz=_number(nvml.get("max_sm_clock_mhz")),
        max_mem_clock_mhz=_number(nvml.get("max_memory_clock_mhz")),
        power_w=_number(raw.get("power_w")),
        temperature_c=_number(raw.get("temperature_c")),
        throttle_reasons=throttle_names(raw.get("clock_event_reasons")))


def read(manifest):
    """Placement of a run from its run.json dict (never raises)."""
    place = _dict(_dict(manifest).get("placement"))
    nvml = _dict(place.get("nvml"))
    numa = place.get("numa_node")
    return Placement(
        hostname=_string(place.get("hostname")),
        pci_bus_id=_string(place.get("pci_bus_id")),
        numa_node=numa if isinstance(numa, int) and
        not isinstance(numa, bool) else None,
        launcher=_string(place.get("launcher")),
        rank=_name(place.get("rank")),
        local_rank=_name(place.get("local_rank")),
        node=_name(place.get("node")),
        start=_reading(nvml.get("start"), nvml),
        end=_reading(nvml.get("end"), nvml))
