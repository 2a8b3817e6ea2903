#!/bin/sh
# scripts/report.sh SRCDIR OUTDIR - what `make report` does.
#   With a usable GPU: run the study (--preset article --cache both, with
#   counters where allowed) into OUTDIR/<gpu>-<date>, then render its report.
#   Without one: render the shipped reference results under
#   SRCDIR/reports/reference/<gpu>/ in place (their report/ folder).
# EWBENCH and PYTHON come from the environment (make sets them).
set -eu
srcdir=$1
outdir=$2
py=${PYTHON:-python3}
render() {	# render RUN_DIR REPORT_DIR
	PYTHONPATH="$srcdir${PYTHONPATH:+:$PYTHONPATH}" MPLBACKEND=Agg \
	    "$py" -m analysis report "$1" -o "$2"
	echo "report: $2/report.html"
}

set +e
"$EWBENCH" info >/dev/null 2>&1
rc=$?
set -e
if [ "$rc" = 0 ]; then
	run="$outdir/$("$EWBENCH" info | sed -n '1{s/^device [0-9]*: //;s/[^A-Za-z0-9]\{1,\}/-/g;p;}' | tr 'A-Z' 'a-z')-$(date -u +%Y%m%d-%H%M%S)"
	mkdir -p "$outdir"
	"$EWBENCH" run --preset article --cache both -o "$run"
	if "$py" -c 'import torch' 2>/dev/null; then
		PYTHONPATH="$srcdir" "$py" -m analysis torch "$run" ||
		    echo "report: torch baseline skipped"
	fi
	render "$run" "$run/report"
	exit 0
fi
echo "report: no usable GPU here; rendering the shipped reference results"
found=0
for run in "$srcdir"/reports/reference/*/; do
	[ -f "$run/run.json" ] || continue
	render "${run%/}" "${run%/}/report"
	found=1
done
[ "$found" = 1 ] || { echo "report: no reference results under $srcdir/reports/reference" >&2; exit 1; }
