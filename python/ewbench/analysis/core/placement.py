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

Since 2026-11-26 run.json also carries the GPU's settings (the driver's
release in versions.nvidia_driver; ECC, persistence, power limits and
application clocks in placement.nvml) and the readings sampled through the
run (placement.nvml.sampled: min, median, max and count of each quantity).
Runs written before lack the keys: `recorded` tells "not recorded" (the
key is absent) from "NVML did not give it" (null).
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
class Settings:
    """The GPU's settings NVML gave at a run's start; None = not given.
    recorded: False for runs written before ewbench recorded them."""
    recorded: bool = False
    driver: Optional[str] = None            # "580.65.06"
    ecc: Optional[bool] = None
    ecc_pending: Optional[bool] = None      # after the next reboot
    persistence: Optional[bool] = None
    power_limit_w: Optional[float] = None   # enforced: in force
    power_limit_default_w: Optional[float] = None
    power_limit_max_w: Optional[float] = None
    app_sm_clock_mhz: Optional[float] = None
    app_mem_clock_mhz: Optional[float] = None
    default_app_sm_clock_mhz: Optional[float] = None
    default_app_mem_clock_mhz: Optional[float] = None


@dataclass(frozen=True)
class Range:
    """One quantity read through a run."""
    min: float
    median: float
    max: float
    count: int


@dataclass(frozen=True)
class Sampled:
    """NVML's readings through a run (placement.nvml.sampled); a quantity
    NVML never gave is None."""
    samples: int
    sm_clock: Optional[Range] = None
    mem_clock: Optional[Range] = None
    power: Optional[Range] = None
    temperature: Optional[Range] = None
    reasons: tuple = ()                     # names, every reading's ORed
    throttled_samples: int = 0


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
    nvml_status: Optional[str] = None
    nvml_reason: Optional[str] = None
    settings: Settings = Settings()
    # None: not sampled (NVML unavailable, or nothing timed); see
    # sampled_recorded for runs written before the summary existed.
    sampled: Optional[Sampled] = None
    sampled_recorded: bool = False


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


def _state(value):
    return value if isinstance(value, bool) else None


# The keys of the settings (placement.nvml unless said), in Settings order.
SETTING_KEYS = ("ecc_enabled", "ecc_pending_enabled", "persistence_mode",
                "power_limit_w", "power_limit_default_w", "power_limit_max_w",
                "applications_sm_clock_mhz", "applications_memory_clock_mhz",
                "default_applications_sm_clock_mhz",
                "default_applications_memory_clock_mhz")


def _settings(manifest, nvml):
    versions = _dict(_dict(manifest).get("versions"))
    if "nvidia_driver" not in versions and \
            not any(k in nvml for k in SETTING_KEYS):
        return Settings()
    get = nvml.get
    return Settings(
        recorded=True, driver=_string(versions.get("nvidia_driver")),
        ecc=_state(get("ecc_enabled")),
        ecc_pending=_state(get("ecc_pending_enabled")),
        persistence=_state(get("persistence_mode")),
        power_limit_w=_number(get("power_limit_w")),
        power_limit_default_w=_number(get("power_limit_default_w")),
        power_limit_max_w=_number(get("power_limit_max_w")),
        app_sm_clock_mhz=_number(get("applications_sm_clock_mhz")),
        app_mem_clock_mhz=_number(get("applications_memory_clock_mhz")),
        default_app_sm_clock_mhz=_number(
            get("default_applications_sm_clock_mhz")),
        default_app_mem_clock_mhz=_number(
            get("default_applications_memory_clock_mhz")))


def _range(raw):
    raw = _dict(raw)
    values = [_number(raw.get(k)) for k in ("min", "median", "max")]
    count = raw.get("count")
    if None in values or not isinstance(count, int) or \
            isinstance(count, bool) or count < 1:
        return None
    return Range(*values, count=count)


def _sampled(raw):
    raw = _dict(raw)
    samples = raw.get("samples")
    if not isinstance(samples, int) or isinstance(samples, bool) or \
            samples < 1:
        return None
    throttled = raw.get("throttled_samples")
    return Sampled(
        samples=samples, sm_clock=_range(raw.get("sm_clock_mhz")),
        mem_clock=_range(raw.get("memory_clock_mhz")),
        power=_range(raw.get("power_w")),
        temperature=_range(raw.get("temperature_c")),
        reasons=throttle_names(raw.get("clock_event_reasons")) or (),
        throttled_samples=throttled if isinstance(throttled, int) and
        not isinstance(throttled, bool) else 0)


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
        end=_reading(nvml.get("end"), nvml),
        nvml_status=_string(nvml.get("status")),
        nvml_reason=_string(nvml.get("reason")),
        settings=_settings(manifest, nvml),
        sampled=_sampled(nvml.get("sampled")),
        sampled_recorded="sampled" in nvml)
