#!/bin/sh
# scripts/report.sh SRCDIR OUTDIR - what `make report` does.
#   With a usable GPU: measure the ceilings, run the study (--preset article
#   --cache both, with counters where allowed) into OUTDIR/<gpu>-<date>, add
#   the torch baseline where torch is installed, then render its report.
#   Without one: render the shipped reference results under
#   SRCDIR/reports/reference/<gpu>/ in place (their report/ folder, and
#   contest.md beside the rounds of a contest/ folder).
# EWBENCH and PYTHON come from the environment (make sets them).
set -eu
srcdir=$(cd "$1" && pwd)
outdir=$2
py=${PYTHON:-python3}

set +e
"$EWBENCH" info >/dev/null 2>&1
rc=$?
set -e
if [ "$rc" = 0 ]; then
	run="$outdir/$("$EWBENCH" info | sed -n '1{s/^device [0-9]*: //;s/[^A-Za-z0-9]\{1,\}/-/g;p;}' | tr 'A-Z' 'a-z')-$(date -u +%Y%m%d-%H%M%S)"
	mkdir -p "$outdir"
	"$EWBENCH" ceilings -q -o "$run-ceilings"
	"$EWBENCH" run --preset article --cache both -o "$run"
	if "$py" -c 'import torch' 2>/dev/null; then
		PYTHONPATH="$srcdir" "$py" -m analysis torch "$run" ||
		    echo "report: torch baseline skipped"
	fi
	PYTHONPATH="$srcdir${PYTHONPATH:+:$PYTHONPATH}" MPLBACKEND=Agg \
	    "$py" -m analysis report "$run" --ceilings "$run-ceilings" \
	    -o "$run/report"
	echo "report: $run/report/report.html"
	exit 0
fi
echo "report: no usable GPU here; rendering the shipped reference results"
# reports/reference/<gpu>/<run>/: every run directory with timing rows,
# with the measured ceilings of <gpu>/ceilings when they are there.
found=0
for gpu in "$srcdir"/reports/reference/*/; do
	gpu=${gpu%/}
	ceil=
	[ -f "$gpu/ceilings/ceilings.csv" ] && ceil="--ceilings $gpu/ceilings"
	for run in "$gpu"/*/; do
		run=${run%/}
		[ -f "$run/run.json" ] && [ "$(wc -l <"$run/timing.csv")" -gt 1 ] || continue
		# shellcheck disable=SC2086
		PYTHONPATH="$srcdir${PYTHONPATH:+:$PYTHONPATH}" MPLBACKEND=Agg \
		    "$py" -m analysis report "$run" $ceil -o "$run/report"
		echo "report: $run/report/report.html"
		found=1
	done
	# Interleaved rounds (tests/gpu/run-all.sh contest): who wins, by how
	# much, beyond the repeat-to-repeat spread.  Run from the folder so
	# the paths it prints are the rounds' own names.
	if [ -d "$gpu/contest/round-1" ]; then
		(cd "$gpu/contest" && PYTHONPATH="$srcdir${PYTHONPATH:+:$PYTHONPATH}" \
		    "$py" -m analysis contest round-? -o contest.md >/dev/null)
		echo "report: $gpu/contest/contest.md"
	fi
done
[ "$found" = 1 ] || { echo "report: no reference results under $srcdir/reports/reference" >&2; exit 1; }
