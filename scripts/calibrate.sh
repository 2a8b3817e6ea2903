#!/bin/sh
# scripts/calibrate.sh STUDY_DIR - the concurrency curve calibrated with
#   the study's own kernels (docs/analysis.md, "Calibrating the
#   concurrency curve"): the scalar study variants and their probes (the
#   same loads, 2x and 4x per thread) at the article's largest size, warm,
#   stream launches, with at most N of their blocks resident per SM
#   (ewbench run --residency N) for N = 1 to 8, each with the achieved
#   occupancy counter, into STUDY_DIR/calibration/residency-N/.  A probe
#   whose registers hold fewer than N blocks is left out of level N
#   (run.json says so).  `make report-calibrated` runs it as a step of
#   the study; run on a study directory of this GPU's model, it adds the
#   part, which `ewbench report STUDY_DIR` then reads.
# EWBENCH comes from the environment (default: ewbench on PATH).
set -eu
study=${1:?usage: scripts/calibrate.sh STUDY_DIR}
ewbench=${EWBENCH:-ewbench}
# The scalar study variants whose probes multiply their loads.
bases="add_f32 add_f16 relu_f32 abs_f32"
variants=$("$ewbench" list | awk -v bases="$bases" '
	BEGIN { n = split(bases, b, " "); for (i = 1; i <= n; i++) want[b[i]] = 1 }
	$4 == "study" && want[$1] { print $1 }
	$4 == "probe" { base = $1; sub(/_ilp[0-9]+$/, "", base); if (want[base]) print $1 }' |
    paste -sd, -)
# The article preset's largest size: the DRAM tier, as experiments/.
size=2^28
# 1 to 8 blocks per SM: the scalar kernels' own 256-thread blocks fill an
# SM of 2048 threads (Hopper, Ampere) at 8.
levels="1 2 3 4 5 6 7 8"
mkdir -p "$study/calibration"
for n in $levels; do
	"$ewbench" run -q -v "$variants" -s "$size" --cache warm \
	    --residency "$n" \
	    --metrics sm__warps_active.avg.pct_of_peak_sustained_active \
	    -o "$study/calibration/residency-$n"
done
