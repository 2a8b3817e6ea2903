"""The data contract of docs/data-format.md, checked.

Every file the analysis reads comes through here: run.json, timing.csv,
metrics.csv, ceilings.csv (via load.py), the rounds of a contest, the
torch sidecar, a study's steps.json and the trace JSON of `timeline`.  A
file that breaks the contract is refused with one DataError whose text
is `path:line: expected ...`: the line of the CSV row, or for JSON the
line where the offending value starts, with the value's JSON path
(device.l2_bytes, traceEvents[12].ts) in the message.  Nothing else may
escape a reader: an unreadable file, bytes that are not UTF-8, a cut-off
gzip stream, JSON nested deeper than Python's parser recurses, NaN or
Infinity in JSON all become DataErrors.  A leading UTF-8 byte order mark
is accepted (editors on some systems add one); a UTF-16 one is named in
the refusal.

This package knows the contract (columns, value sets, run.json keys) and
the rules; load.py turns what passed into Run and Point objects.

  contract    the tables: value sets, ceilings and their units, DataError
  files       a file's bytes and text, or a refusal naming what is there
  fields      JSON parsed strictly, and the field checkers of a JSON spec
  json_files  run.json, the peer sidecar, fleet.json, steps.json, the
              trace
  csv_files   the CSV columns (columns.def), fields, and the rules within
              a row, across rows and files, and across contest rounds

The names below are those the rest of the analysis, peers/ and the tests
use as validate.NAME.
"""

from .contract import (BLOCK_RATE_BLOCKS, CACHES, CEILING_NAMES,
                       CEILING_UNIT, CEILING_UNITS, DTYPE_BYTES, DTYPES,
                       INFLIGHT_KIB, INFLIGHT_SERIES, LAUNCHES, LOAD_LEVELS,
                       DataError, block_rate_name, inflight_fixed_name,
                       inflight_name, loaded_bandwidth_name,
                       loaded_latency_name)
from .files import present, read_text, read_text_maybe_gzip
from .json_files import (STEP_KINDS, check_fleet_json, check_manifest,
                         check_sidecar, check_steps, check_trace)
from .csv_files import (CEILINGS_COLUMNS, ENERGY_COLUMNS, INTEGER,
                        METRICS_COLUMNS, NUMBER, SASS_COLUMNS,
                        TIMING_COLUMNS, Column, check_ceiling_unit,
                        check_energy_row, check_loaded_pairs,
                        check_metric_refers_to_point, check_rounds,
                        check_run_id, check_timing_row, check_unique,
                        check_unique_across, parse_field, point_key,
                        read_csv)

__all__ = [
    "BLOCK_RATE_BLOCKS", "CACHES", "CEILING_NAMES", "CEILING_UNIT",
    "CEILING_UNITS", "DTYPE_BYTES", "DTYPES", "LAUNCHES", "LOAD_LEVELS",
    "DataError", "block_rate_name", "inflight_fixed_name", "inflight_name",
    "loaded_bandwidth_name",
    "loaded_latency_name", "present", "read_text", "read_text_maybe_gzip",
    "STEP_KINDS", "check_fleet_json", "check_manifest", "check_sidecar",
    "check_steps", "check_trace",
    "CEILINGS_COLUMNS", "ENERGY_COLUMNS", "INTEGER", "METRICS_COLUMNS",
    "NUMBER", "SASS_COLUMNS", "TIMING_COLUMNS", "Column",
    "check_ceiling_unit", "check_energy_row", "check_loaded_pairs",
    "check_metric_refers_to_point", "check_rounds",
    "check_run_id", "check_timing_row", "check_unique", "check_unique_across",
    "parse_field", "point_key", "read_csv",
]
