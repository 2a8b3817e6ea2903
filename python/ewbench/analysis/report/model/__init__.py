"""The performance model: launch-floor fit, ceilings, bottleneck verdicts.

Everything here is a pure function of its arguments.  Modules:

  fit       the launch-floor fit t = t0 + V / B per series (LaunchFit)
  ceilings  DRAM, L2, launch floor, a streaming launch's fixed cost, block
            launch rate, DRAM latency (Bound)
  curve     the measured concurrency curve, and a point's place on it
  calibration  the curve measured with the study's own kernels, held out
  inflight  a point's loads in flight per SM, and its occupancy
  rules     the verdict rules in order (the rule table), classify
  thresholds  the rules' thresholds and the verdicts' names (Verdict)
  facts     the PointFacts of a point from a run, classify_run
  above     the bytes a timed window moved (late_writes), rows above a
            measured DRAM ceiling with their explanation
  blocks    resident threads at another block size (Little's law on
            blocks), for the experiments' block-size predictions

The names the rest of the package and the tests use as model.NAME are
imported here.
"""

from .above import (BEATS_CEILING, SPEC_EXCESS_PCT, UNEXPLAINED,
                    WRITES_IN_L2, Window, above_dram_ceiling, beyond_dram,
                    impossible, late_writes, output_bytes)
from .ceilings import (Bound, block_rate, block_rate_ceiling, dram_ceiling,
                       fitted_launch_floor, l2_ceiling, launch_floor,
                       measured_block_rate, measured_launch_floor, pct_of,
                       run_dram_ceiling, spec_dram, stream_fixed_cost)
from .curve import OnCurve, Series, curves, impossible_levels, place
from .facts import (PointFacts, block_slots, classify_run, fit_holds,
                    fixed_cost,
                    kib_in_flight_per_sm, occupancy, point_facts,
                    sibling_groups, sibling_key, warm_slower_kernels,
                    warm_slower_than_cold)
from .fit import fit_launch_model, fit_series, served_by_l2
from .rules import (classify, rule_dram, rule_fixed_cost, rule_issue,
                    rule_l2, rule_latency, rule_launch, rule_occupancy,
                    rule_writes_deferred)
from .thresholds import (BLOCK_LAUNCH_BOUND, BLOCK_LAUNCH_SHARE,
                         CEILING_BEATEN_PCT, CURVE_ENOUGH, CURVE_TOLERANCE,
                         DRAM_BOUND, DRAM_FRACTION, FAULTS, FIXED_COST_BOUND,
                         FIXED_COST_SHARE, FIXED_SHARE, GRID_LIMITED,
                         ISSUE_BAND, ISSUE_BOUND, ISSUE_BYTES_PER_INST,
                         ISSUE_MARGIN, L2_BOUND, L2_DRAM_FRACTION, L2_SHARE,
                         LATENCY_BOUND, LATENCY_STALLS, LAUNCH_BAND,
                         LAUNCH_BOUND, LAUNCH_FACTOR, MATERIAL_PCT,
                         MISALIGNED, OCCUPANCY_BOUND, OCCUPANCY_PCT,
                         SIBLING_BAND, SIBLING_FRACTION, STALL_DOMINANT,
                         UNCOALESCED, UNKNOWN, VERDICTS, WRITES_DEFERRED,
                         Verdict)
