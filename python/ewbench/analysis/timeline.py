"""Reading an ewbench trace (`ewbench run --trace FILE`, docs/trace.md).

The trace is Chrome trace-event JSON, optionally gzipped: host NVTX ranges
(pid 0) and GPU kernels, copies and memsets (pid 1), times in microseconds.
This module picks a window of it for plots.timeline; it draws nothing.
"""

import gc
from contextlib import contextmanager
from operator import attrgetter
from typing import NamedTuple

from .core import validate

HOST_PID = 0
GPU_PID = 1


class Event(NamedTuple):
    # A tuple, not a dataclass: a trace holds millions, and a frozen
    # dataclass's __init__ took as long as parsing the JSON.
    name: str
    start_us: float
    dur_us: float
    pid: int
    tid: int
    category: str
    depth: int          # NVTX nesting depth (host ranges), else 0
    variant: str        # the launch's label (GPU events), else ""


@contextmanager
def collector_paused():
    """Python's cyclic garbage collector off for the while (the timeline
    command, reading and drawing): a trace makes millions of objects and
    no cycles, and each collection their allocation sets off walks all of
    them again (4 s of the 16 a 1,000,000-event trace took)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _event(e):
    args = e.get("args") or {}
    return Event(e.get("name", ""), float(e["ts"]), float(e["dur"]),
                 e["pid"], e["tid"], e.get("cat", ""),
                 args.get("depth") or 0, args.get("variant") or "")


def read_trace(path):
    """All complete ("X") events of a trace file, sorted by start time.
    The file is checked by validate.check_trace: a damaged gzip, bad JSON
    or an event without a numeric ts, dur, pid or tid is a DataError."""
    raw = validate.read_text_maybe_gzip(path)
    events = [_event(e) for e in validate.check_trace(path, raw)
              if e.get("ph") == "X"]
    events.sort(key=attrgetter("start_us"))
    return events


def point_window(events, name_prefix):
    """(start, end) in µs of the first host range whose name starts with
    name_prefix (e.g. "add_f32 n=1Mi"), or None."""
    for e in events:
        if e.pid == HOST_PID and e.name.startswith(name_prefix):
            return e.start_us, e.start_us + e.dur_us
    return None


def in_window(events, start, end):
    """Events that overlap [start, end]."""
    return [e for e in events
            if e.start_us < end and e.start_us + e.dur_us > start]
