"""Where a run ran and what NVML read around it, from its run.json.

A fleet report tells GPUs apart by host, PCI bus id, NUMA node and launcher
rank, and explains a slow one by its clocks, power, temperature and
throttle reasons.  ewbench writes these (fleet runs) into run.json; the
exact keys were settled late, so this reader looks in the places a writer
may reasonably put them and gives None for anything missing, null or of an
unexpected type: a report column then shows "—", never a crash.

  placement.{hostname,pci_bus_id,numa_node,launcher,rank,local_rank,node}
      (falling back to host.hostname, device.pci_bus_id, device.numa_node,
      and a launcher object {name, rank, local_rank, node})
  nvml.{start,end} or placement.nvml.{start,end} (or device.nvml, or
      nvml_start / nvml_end beside them): readings with sm_clock_mhz,
      mem_clock_mhz, max_sm_clock_mhz, max_mem_clock_mhz, power_w,
      temperature_c, throttle_reasons (names, one name, or NVML's mask)
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

READING_KEYS = {
    "sm_clock_mhz": ("sm_clock_mhz", "clock_sm_mhz", "sm_mhz"),
    "mem_clock_mhz": ("mem_clock_mhz", "memory_clock_mhz", "clock_mem_mhz"),
    "max_sm_clock_mhz": ("max_sm_clock_mhz", "sm_clock_max_mhz"),
    "max_mem_clock_mhz": ("max_mem_clock_mhz", "mem_clock_max_mhz",
                          "max_memory_clock_mhz"),
    "power_w": ("power_w", "power_draw_w"),
    "temperature_c": ("temperature_c", "temp_c", "gpu_temperature_c"),
    "throttle_reasons": ("throttle_reasons", "clock_event_reasons",
                         "clocks_throttle_reasons", "throttle"),
}


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


def _reading(raw):
    raw = _dict(raw)
    values = {}
    for field, aliases in READING_KEYS.items():
        value = next((raw[a] for a in aliases if a in raw), None)
        values[field] = throttle_names(value) if field == \
            "throttle_reasons" else _number(value)
    return Reading(**values)


def _nvml(manifest, placement):
    """(start, end) raw NVML objects from wherever the writer put them."""
    for holder in (placement, manifest, _dict(manifest.get("device")),
                   _dict(manifest.get("host"))):
        nvml = _dict(holder.get("nvml"))
        if nvml:
            return nvml.get("start"), nvml.get("end")
        if "nvml_start" in holder or "nvml_end" in holder:
            return holder.get("nvml_start"), holder.get("nvml_end")
    return None, None


def read(manifest):
    """Placement of a run from its run.json dict (never raises)."""
    manifest = _dict(manifest)
    place = _dict(manifest.get("placement"))
    host = _dict(manifest.get("host"))
    device = _dict(manifest.get("device"))
    launcher = place.get("launcher", manifest.get("launcher"))
    launch = _dict(launcher)

    def first(*values):
        return next((v for v in values if v is not None), None)
    numa = first(place.get("numa_node"), device.get("numa_node"),
                 host.get("numa_node"))
    start, end = _nvml(manifest, place)
    return Placement(
        hostname=_string(first(place.get("hostname"), host.get("hostname"))),
        pci_bus_id=_string(first(place.get("pci_bus_id"),
                                 device.get("pci_bus_id"))),
        numa_node=numa if isinstance(numa, int) and
        not isinstance(numa, bool) else None,
        launcher=_string(launch.get("name") if launch else launcher),
        rank=_name(first(place.get("rank"), launch.get("rank"))),
        local_rank=_name(first(place.get("local_rank"),
                               launch.get("local_rank"))),
        node=_name(first(place.get("node"), launch.get("node"))),
        start=_reading(start), end=_reading(end))
