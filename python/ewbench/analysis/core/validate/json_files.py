"""The JSON files checked: run.json (with its placement and NVML
readings), the peer sidecar, fleet.json, a study's steps.json and the
trace of `ewbench run --trace`."""

from .contract import (CACHES, CEILING_UNIT, CEILING_UNITS,
                       COUNTER_STATUSES, DTYPES, LAUNCHERS, LAUNCHES,
                       NVML_STATUSES, OPS, SCHEMA_VERSIONS, STATUSES, TIERS,
                       DataError)
from .fields import (BOOLEAN, DEVICE_NAME_MAX, LIMITS, ListOf, MapOf, Mismatch,
                     NAME_MAX, Nullable, Object, Scalar, check_json, integer,
                     is_int, is_number, json_line, number, parse_json,
                     path_text, shown_value, text)


MAX_ULPS = LIMITS["TOLERANCE_MAX_ULPS"]
MAX_REL = LIMITS["TOLERANCE_MAX_REL"]
MAX_ATOL = LIMITS["TOLERANCE_MAX_ATOL"]

# run.json: the keys the documentation lists, with the types ewbench
# writes.  Quantities the analysis divides by are positive or null
# ("unknown"), never 0.
_STRING = text()
_STRINGS = ListOf(_STRING)

# Where a run ran and what NVML read at its start and end
# (docs/data-format.md, `placement`).  A fact the machine did not give is
# null; a clock or a power is never 0.
_POSITIVE = Nullable(number(positive=True))
NVML_READING = Object({
    "utc": _STRING,
    "sm_clock_mhz": _POSITIVE, "memory_clock_mhz": _POSITIVE,
    "power_w": _POSITIVE,
    "temperature_c": Nullable(Scalar("a finite number", is_number)),
    "clock_event_reasons": Nullable(integer()),
})


class Summary:
    """One quantity NVML read through a run (placement.nvml.sampled):
    {min, median, max, count}, each value `value` (a spec), count >= 1,
    min <= median <= max and count at most the run's `samples`."""

    def __init__(self, value):
        self.fields = Object({"min": value, "median": value, "max": value,
                              "count": integer(1)},
                             required=("min", "median", "max", "count"))
        self.expected = "an object of min, median, max and count"

    def check(self, value, at):
        self.fields.check(value, at)
        if not value["min"] <= value["median"] <= value["max"]:
            raise Mismatch(at + ("median",), "expected %s <= %s <= %s, got "
                           "%s, %s and %s" % tuple(
                               [path_text(at + (k,)) for k in
                                ("min", "median", "max")] +
                               [shown_value(value[k]) for k in
                                ("min", "median", "max")]))


class Sampled(Object):
    """placement.nvml.sampled: every count within the readings taken."""

    def check(self, value, at):
        super().check(value, at)
        taken = value["samples"]
        for name in self.fields:
            inner = value.get(name)
            count = inner.get("count") if isinstance(inner, dict) else \
                inner if name == "throttled_samples" else None
            if count is not None and count > taken:
                key = at + ((name, "count") if isinstance(inner, dict)
                            else (name,))
                raise Mismatch(key, "expected %s to be at most the %d "
                               "readings taken (%s), got %s" % (
                                   path_text(key), taken,
                                   path_text(at + ("samples",)),
                                   shown_value(count)))


_FINITE = Scalar("a finite number", is_number)
_MHZ = Nullable(Summary(number(positive=True)))
NVML_SAMPLED = Sampled({
    "samples": integer(1),
    "sm_clock_mhz": _MHZ, "memory_clock_mhz": _MHZ,
    "power_w": _MHZ, "temperature_c": Nullable(Summary(_FINITE)),
    "clock_event_reasons": integer(), "throttled_samples": integer(),
    "wall_s": number(),
}, required=("samples",))
NVML = Object({"status": text(NVML_STATUSES), "reason": Nullable(_STRING),
               "max_sm_clock_mhz": _POSITIVE,
               "max_memory_clock_mhz": _POSITIVE,
               # The GPU's settings at the run's start (since 2026-11-26;
               # absent before: not recorded).
               "ecc_enabled": Nullable(BOOLEAN),
               "ecc_pending_enabled": Nullable(BOOLEAN),
               "persistence_mode": Nullable(BOOLEAN),
               "power_limit_w": _POSITIVE,
               "power_limit_default_w": _POSITIVE,
               "power_limit_max_w": _POSITIVE,
               "applications_sm_clock_mhz": _POSITIVE,
               "applications_memory_clock_mhz": _POSITIVE,
               "default_applications_sm_clock_mhz": _POSITIVE,
               "default_applications_memory_clock_mhz": _POSITIVE,
               "start": Nullable(NVML_READING),
               "end": Nullable(NVML_READING),
               "sampled": Nullable(NVML_SAMPLED)})
PLACEMENT = Object({
    "hostname": Nullable(_STRING), "pci_bus_id": Nullable(_STRING),
    "numa_node": Nullable(integer()),
    "launcher": Nullable(text(LAUNCHERS)),
    "rank": Nullable(integer()), "local_rank": Nullable(integer()),
    "node": Nullable(_STRING), "member": Nullable(_STRING),
    "nvml": Nullable(NVML),
})

# run --energy's method (src/run/energy.h), beside energy.csv.
ENERGY = Object({
    "counter": _STRING, "covers": _STRING,
    "window_s": number(positive=True), "windows": integer(1),
    "settle_s": number(), "warmup_s": number(),
    "replay_s": number(positive=True), "queued_replays": integer(1),
    "sample_s": number(positive=True),
    "other_processes": Nullable(integer()), "points": integer(),
}, required=("window_s", "windows"))

RUN_JSON = Object({
    "run_id": text(nonempty=True),
    "status": Nullable(text(STATUSES)),
    "command": Nullable(_STRING),
    "argv": ListOf(_STRING),
    "started_utc": Nullable(_STRING),
    "finished_utc": Nullable(_STRING),
    "fixture": BOOLEAN,
    # "recorded for sm_NN" (sass.csv) or "not recorded: why"
    "sass": Nullable(_STRING),
    "tool": Object({"name": _STRING, "version": _STRING,
                    "git_revision": Nullable(_STRING),
                    "cuda_arch": Nullable(_STRING),
                    "cuda_build_version": Nullable(integer()),
                    "nvcc_release": Nullable(_STRING),
                    "nvcc_flags": Nullable(_STRING),
                    "cupti_build_api": Nullable(integer()),
                    "cupti_kernel_record": Nullable(_STRING),
                    "driver_min": Nullable(_STRING)}),
    "host": Object({"hostname": _STRING, "os": _STRING, "cpu": _STRING}),
    "versions": Object({"driver": Nullable(integer()),
                        "runtime": Nullable(integer()),
                        "cupti_api": Nullable(integer()),
                        "nvidia_driver": Nullable(text(nonempty=True))}),
    "device": Object({
        "index": integer(),
        "name": Nullable(text(most=DEVICE_NAME_MAX)),
        "uuid": Nullable(_STRING),
        "pci_bus_id": Nullable(_STRING),
        "compute_capability": Nullable(_STRING),
        "sm_count": Nullable(integer(1)),
        "l2_bytes": Nullable(integer(1)),
        "memory_bytes": Nullable(integer(1)),
        "bus_width_bits": Nullable(integer()),
        "memory_clock_khz": Nullable(integer()),
        "sm_clock_khz": Nullable(integer()),
        "dram_bandwidth_bytes_per_s": Nullable(number(positive=True)),
        "max_threads_per_sm": Nullable(integer(1)),
        "max_blocks_per_sm": Nullable(integer(1)),
        "shared_memory_per_sm_bytes": Nullable(integer()),
        "registers_per_sm": Nullable(integer(1)),
        "fp32_lanes_per_sm": Nullable(integer(1)),
        "numa_node": Nullable(Scalar("an integer", is_int)),
    }),
    "settings": Object({
        "variants": ListOf(text(most=NAME_MAX)),
        "sizes": ListOf(integer(1)),
        "blocks": ListOf(integer(0)),     # 0: "own", the published shape
        "block_times": ListOf(integer(1)),  # --block xK: K x its own
        # Each variant's primary block, as the plan resolved it (since
        # 2026-11-29): null for a library's.
        "primary_blocks": MapOf(Nullable(integer(1))),
        "residency": integer(1),    # --residency N: resident blocks
        #                             per SM, capped
        "iters": integer(1),
        "warmup": integer(),
        "cache": ListOf(text(CACHES)),
        "seed": integer(),
        "flush_bytes": integer(),
        "timer": _STRING,
        "timing": Object({
            "min_samples": integer(1),
            "max_samples": integer(1),
            "max_time_ms": number(positive=True),
            "target_ci_pct": number(positive=True),
            "ci_confidence_pct": number(positive=True),
            "timer_step_ns": Nullable(number(positive=True)),
        }),
        "launch": ListOf(text(LAUNCHES)),
        "preset": Nullable(_STRING),
        "sweep": BOOLEAN,
        "check_only": BOOLEAN,
        "misalign": BOOLEAN,
        "size_choices": ListOf(Object({
            "footprint_bytes_per_element": integer(1),
            "tier": text(TIERS),
            "n": integer(1),
            "reason": _STRING,
        }, required=("footprint_bytes_per_element", "tier", "n"))),
    }),
    "counters": Object({
        "enabled": BOOLEAN,
        "status": text(COUNTER_STATUSES),
        "reason": Nullable(_STRING),
        "metric_set": Nullable(_STRING),
        "metrics": ListOf(text(most=NAME_MAX)),
        # Per chip (metrics/*.txt entries by meaning): the CUPTI name each
        # entry was collected under, and the entries the chip has no name
        # for, each with why.  Absent in runs before them: none left out.
        "collected": MapOf(text(nonempty=True)),
        "left_out": ListOf(Object({
            "metric": text(nonempty=True),
            "reason": Nullable(_STRING),
        }, required=("metric",))),
        "passes": Nullable(integer(1)),
        "chip": Nullable(_STRING),
        "replay": _STRING,
        "range": _STRING,
    }),
    "checks": Object({
        "passed": integer(),
        "failed": integer(),
        # One per variant and size whose check failed: which element,
        # what it held and what was expected (null: NaN), how many were
        # wrong (one at least).
        "failures": ListOf(Object({
            "variant": text(most=NAME_MAX), "n": integer(1),
            "index": integer(),
            "got": Nullable(Scalar("a finite number", is_number)),
            "expected": Nullable(Scalar("a finite number", is_number)),
            "bad_count": integer(1),
            "outside": text(("after", "before")),
        }, required=("variant", "n", "index", "got", "expected",
                     "bad_count"))),
    }),
    "user_kernels": ListOf(Object({
        "variant": text(nonempty=True), "file": _STRING,
        "function": _STRING, "symbol": _STRING, "op": text(OPS),
        "dtype": text(DTYPES),
        # How the op and dtype were chosen (absent before issue 41).
        "op_from": text(("--op", "--reference", "parameters")),
        "dtype_from": text(("--dtype", "parameters")),
        "source_sha256": _STRING,
        "cache_key": _STRING, "cached": BOOLEAN, "arch": _STRING,
        "nvrtc": _STRING, "options": _STRINGS,
        "count": text(("uint64", "int64", "uint32", "int32")),
        "elems_per_thread": integer(1), "default_block": integer(1),
        "timeout_s": integer(1), "guard": BOOLEAN,
        "stopped": Nullable(_STRING),
        "inputs": integer(), "in_place": BOOLEAN,
        "bytes_per_element": integer(1),
        "reference": Nullable(Object({
            "file": _STRING, "function": _STRING, "symbol": _STRING,
            "source_sha256": _STRING, "cache_key": _STRING,
            "cached": BOOLEAN,
            "count": text(("uint64", "int64", "uint32", "int32")),
            # Within what `run` takes (data-limits.h).
            "ulps": Scalar("a whole number from 0 to %d" % MAX_ULPS,
                           lambda v: is_int(v) and 0 <= v <= MAX_ULPS),
            "rel": Scalar("a number from 0 to %g" % MAX_REL,
                          lambda v: is_number(v) and 0 <= v <= MAX_REL),
            # torch.testing.assert_close's rule (absent before issue 41).
            "atol": Scalar("a number from 0 to %g" % MAX_ATOL,
                           lambda v: is_number(v) and 0 <= v <= MAX_ATOL),
            "rtol": Scalar("a number from 0 to %g" % MAX_REL,
                           lambda v: is_number(v) and 0 <= v <= MAX_REL),
        })),
    }, required=("variant",))),
    "ceilings": Scalar("an object", lambda v: isinstance(v, dict)),
    "placement": Nullable(PLACEMENT),
    "nvml": Nullable(NVML),
    "energy": ENERGY,
}, required=("run_id",))

_MANIFEST_CEILING = Object({
    "value": number(positive=True),
    "unit": text(CEILING_UNITS),
    "spec_value": Nullable(number(positive=True)),
    "method": Nullable(_STRING),
    "spread_pct": Nullable(number()),
}, required=("value", "unit"))


def check_manifest(path, text_):
    """Parse and check run.json text; return it as a dict."""
    manifest = parse_json(path, text_)
    if not isinstance(manifest, dict):
        raise DataError(path, 1, "expected a JSON object, got %s" %
                        shown_value(manifest))
    if manifest.get("status") == "claimed" and len(manifest) == 1:
        raise DataError(path, 1, "expected a run, got only the claim of "
                        "one: the ewbench that claimed this directory "
                        "stopped before it measured anything (or still "
                        "runs); no data")
    version = manifest.get("schema_version")
    if version not in SCHEMA_VERSIONS or isinstance(version, bool):
        known = " or ".join(str(v) for v in SCHEMA_VERSIONS)
        raise DataError(path, json_line(text_, ("schema_version",)),
                        "expected schema_version %s, got %s (this analysis "
                        "reads schema %s; use the analysis of the "
                        "ewbench that wrote the run)" % (
                            known, shown_value(version)
                            if "schema_version" in manifest
                            else "no schema_version", known))
    check_json(path, text_, manifest, RUN_JSON)
    for name, ceiling in (manifest.get("ceilings") or {}).items():
        if name not in CEILING_UNIT:
            continue                    # a ceiling this analysis does not know
        try:
            _MANIFEST_CEILING.check(ceiling, ("ceilings", name))
        except Mismatch as e:
            raise DataError(path, json_line(text_, e.at), e.message) from None
    return manifest


# peer-torch.json, the sidecar of `ewbench torch` (named
# torch-baseline.json in runs measured before peers/)
SIDECAR = Object({
    "torch": Nullable(_STRING), "cuda": Nullable(_STRING),
    "device": Nullable(_STRING), "written_utc": Nullable(_STRING),
    "rows": integer(), "flush_bytes": integer(), "method": _STRING,
})


def check_sidecar(path, text_):
    doc = parse_json(path, text_)
    check_json(path, text_, doc, SIDECAR)
    return doc


# fleet.json of `ewbench run --device all`: the members it started and how
# each ended (a failed one may have no run directory).  Only the list of
# members is required; a status other than "ok" means no usable run.
FLEET_SCHEMA = "ewbench-fleet/1"
FLEET_JSON = Object({
    "schema": _STRING, "command": Nullable(_STRING),
    "started_utc": Nullable(_STRING), "finished_utc": Nullable(_STRING),
    "launcher": Nullable(_STRING),
    "members": ListOf(Object({
        "name": text(nonempty=True), "dir": Nullable(_STRING),
        "host": Nullable(_STRING), "device": Nullable(integer()),
        "status": Nullable(_STRING),
        "exit_code": Nullable(Scalar("an integer", is_int)),
        "reason": Nullable(_STRING),
    }, required=("name",))),
}, required=("members",))


def check_fleet_json(path, text_):
    """Parse and check fleet.json; return it as a dict."""
    doc = parse_json(path, text_)
    check_json(path, text_, doc, FLEET_JSON)
    schema = doc.get("schema")
    if schema is not None and schema != FLEET_SCHEMA:
        raise DataError(path, json_line(text_, ("schema",)), "expected "
                        "schema %r, got %s (this analysis reads %s only)" %
                        (FLEET_SCHEMA, shown_value(schema), FLEET_SCHEMA))
    return doc


# steps.json of a study directory (scripts/report.sh, `make report`): how
# long each step took, in the order they ran; seconds from the study's
# start.  Studies measured before 2026-12 have none.
STEPS_SCHEMA = "ewbench-steps/1"
# The longest a study's steps may reach from its start: no `make report`
# runs a year (a step of 1e308 s summed to "inf s of measuring").
MAX_STUDY_S = 366 * 24 * 3600
STEP_KINDS = ("part", "peer", "render")
STEPS_JSON = Object({
    "schema": _STRING, "started_utc": Nullable(_STRING),
    "steps": ListOf(Object({
        "name": text(nonempty=True), "kind": text(choices=STEP_KINDS),
        "dirs": _STRINGS, "start_s": number(), "seconds": number(),
        "exit_code": integer(),
    }, required=("name", "kind", "start_s", "seconds"))),
}, required=("schema", "steps"))


def check_steps(path, text_):
    """Parse and check steps.json; return it as a dict."""
    doc = parse_json(path, text_)
    check_json(path, text_, doc, STEPS_JSON)
    if doc["schema"] != STEPS_SCHEMA:
        raise DataError(path, json_line(text_, ("schema",)), "expected "
                        "schema %r, got %s (this analysis reads %s only)" %
                        (STEPS_SCHEMA, shown_value(doc["schema"]),
                         STEPS_SCHEMA))
    for i, step in enumerate(doc["steps"]):
        for key, reach in (("start_s", step["start_s"]),
                           ("seconds", step["start_s"] + step["seconds"])):
            if reach > MAX_STUDY_S:
                raise DataError(path, json_line(text_, ("steps", i, key)),
                                "expected steps[%d].%s within a study's "
                                "length (start_s + seconds at most %d s, "
                                "366 days), got %s" % (
                                    i, key, MAX_STUDY_S,
                                    shown_value(step[key])))
    return doc


# Chrome trace JSON of `ewbench run --trace` (docs/trace.md).  Complete
# events ("ph": "X") are the ones drawn; others need only be objects.
TRACE_EVENT = Object({
    "ph": _STRING,
    "name": _STRING,
    "cat": _STRING,
})
TRACE_COMPLETE_EVENT = Object({
    "name": _STRING,
    "cat": _STRING,
    "ts": number(),
    "dur": number(),
    "pid": integer(),
    "tid": integer(),
    "args": Nullable(Object({"depth": Nullable(integer()),
                             "variant": Nullable(_STRING)})),
}, required=("ts", "dur", "pid", "tid"))


def check_trace(path, text_):
    """Parse a trace; return its list of events (checked)."""
    doc = parse_json(path, text_)
    spec = Object({"traceEvents": ListOf(TRACE_EVENT)},
                  required=("traceEvents",))
    check_json(path, text_, doc, spec)
    events = doc["traceEvents"]
    for index, event in enumerate(events):
        if event.get("ph") == "X":
            try:
                TRACE_COMPLETE_EVENT.check(event, ("traceEvents", index))
            except Mismatch as e:
                raise DataError(path, json_line(text_, e.at),
                                e.message) from None
    return events
