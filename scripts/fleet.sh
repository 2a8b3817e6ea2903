#!/bin/sh
# scripts/fleet.sh [PARENT] - every GPU of this node at once, then their
# comparison: what `make fleet` does.
#   PARENT/ceilings/  ewbench ceilings --device all: one member per GPU
#   PARENT/run/       ewbench run --device all: the study's variants,
#                     ewbench's fastest adds and cub's at the tier sizes (a working set far below the L2, one
#                     about half the L2, one 16x past it: DRAM), warm, with
#                     counters; under a minute per GPU
#   then `ewbench fleet-report PARENT`, where the analysis runs.
# PARENT defaults to reports/fleet-<host>-<UTC date>.  EWBENCH and PYTHON
# come from the environment (make sets them); a member that fails does
# not stop the others, and the exit status is the first failure's.
set -eu
ewbench=${EWBENCH:-ewbench}
py=${PYTHON:-python3}
parent=${1:-reports/fleet-$(hostname | sed 's/\..*//')-$(date -u +%Y%m%d-%H%M%S)}

# The study's own variants (origin "study" in `ewbench list`), ewbench's
# fastest adds and the cub peers: the numbers the fleet report compares.
variants=$("$ewbench" list | awk '$4 == "study" { print $1 }' | paste -sd, -)
variants=$variants,add_f32_tma_st,add_f16_tma_st,cub_add_f32,cub_add_f16

set +e
probe=$("$ewbench" info 2>&1)
rc=$?
set -e
if [ "$rc" != 0 ]; then
	echo "fleet: no usable GPU here (ewbench info: $probe)" >&2
	exit "$rc"
fi

status=0
step() {	# step NAME COMMAND...: run it, say how long it took
	name=$1
	shift
	start=$(date +%s)
	set +e
	"$@"
	rc=$?
	set -e
	echo "fleet: $name in $(( $(date +%s) - start )) s (exit $rc)"
	[ "$status" != 0 ] || status=$rc
	[ "$rc" != 130 ] || exit 130
}
step ceilings "$ewbench" ceilings -q --device all --out "$parent/ceilings"
step run "$ewbench" run -q --device all --preset tiers -v "$variants" \
    --iters 50 --warmup 5 --out "$parent/run"

if EWBENCH_PYTHON=$py "$ewbench" fleet-report --help >/dev/null 2>&1; then
	step render env EWBENCH_PYTHON="$py" MPLBACKEND=Agg "$ewbench" fleet-report "$parent"
else
	echo "fleet: no analysis here ($py); not rendered (the runs are in $parent)"
fi
exit "$status"
