#!/bin/sh
# scripts/report.sh SRCDIR OUTDIR - what `make report` does.
#
# With a usable GPU: one study directory OUTDIR/<gpu>-<UTC date>/ holding
#   ceilings/  ewbench ceilings
#   article/   ewbench run --preset article --cache both (default counters),
#              then the PyTorch rows where torch imports
#   sweep/     ewbench sweep of the study's variants, the cub peers and the
#              leading additions, one-pass residency counters (graph
#              launches, warm and cold, sizes from far below to well past
#              the L2, chosen by ewbench from the L2 size)
#   blocks/    ewbench tune of the variants whose published block is in
#              question (blocks 32..1024 at the tier sizes, graph launches)
#   report/    python3 -m analysis report over all of them
# Without one: render the committed reference studies
# SRCDIR/reports/reference/<gpu>/ (the same layout) into their report/,
# and contest.md beside the rounds of a contest/ folder.
# EWBENCH and PYTHON come from the environment (make sets them).
set -eu
srcdir=$(cd "$1" && pwd)
outdir=$2
py=${PYTHON:-python3}
analysis() {
	PYTHONPATH="$srcdir${PYTHONPATH:+:$PYTHONPATH}" MPLBACKEND=Agg \
	    "$py" -m analysis "$@"
}

# The study's 14 variants (docs/study.md), NVIDIA's cub peers, and the
# additions that led the contests (reports/reference/*/README.md).
SWEEP_VARIANTS='add_f32,add_f32x4,add_f32x4_grid,add_f16,add_f16x2,add_f16x8,add_f16x8_pack,relu_f32,relu_f32x4,abs_f32,abs_f32_unroll,abs_f32_grid,abs_f32x4,abs_f32_functor,cub_add_*,add_f32_tma_st,add_f16_tma_st,add_f16x8_ilp2'
# Published at small blocks (add_f16x8, add_f16x8_pack: 32; add_f32x4,
# add_f32x4_grid: 64; add_f16x2: 128) and a scalar one at 256.
BLOCK_VARIANTS='add_f16x8,add_f16x8_pack,add_f16x2,add_f32x4,add_f32x4_grid,add_f32'

set +e
"$EWBENCH" info >/dev/null 2>&1
rc=$?
set -e
if [ "$rc" = 0 ]; then
	slug=$("$EWBENCH" info | sed -n '1{s/^device [0-9]*: //;s/[^A-Za-z0-9]\{1,\}/-/g;p;}' | tr 'A-Z' 'a-z')
	study="$outdir/$slug-$(date -u +%Y%m%d-%H%M%S)"
	mkdir -p "$study"
	echo "report: study $study"
	echo "report: ceilings"
	"$EWBENCH" ceilings -q -o "$study/ceilings"
	echo "report: article (the study's sizes, with counters)"
	"$EWBENCH" run -q --preset article --cache both -o "$study/article"
	if "$py" -c 'import torch' 2>/dev/null; then
		analysis torch "$study/article" ||
		    echo "report: torch baseline skipped"
	else
		echo "report: no PyTorch here; torch baseline skipped"
	fi
	echo "report: sweep (sizes around the L2, residency counters)"
	"$EWBENCH" sweep -q -v "$SWEEP_VARIANTS" --metrics residency \
	    -o "$study/sweep"
	echo "report: blocks (block sizes 32..1024 at the tier sizes)"
	"$EWBENCH" tune -q -v "$BLOCK_VARIANTS" --launch graph \
	    -o "$study/blocks"
	analysis report "$study" -o "$study/report"
	echo "report: $study/report/report.html"
	exit 0
fi
echo "report: no usable GPU here; rendering the shipped reference studies"
found=0
for gpu in "$srcdir"/reports/reference/*/; do
	gpu=${gpu%/}
	if [ -f "$gpu/article/run.json" ] || [ -f "$gpu/sweep/run.json" ] ||
	    [ -f "$gpu/blocks/run.json" ]; then
		analysis report "$gpu" -o "$gpu/report"
		echo "report: $gpu/report/report.html"
		found=1
	fi
	# Interleaved rounds (tests/gpu/run-all.sh contest): who wins, by how
	# much, beyond the repeat-to-repeat spread.  Run from the folder so
	# the paths it prints are the rounds' own names.
	if [ -d "$gpu/contest/round-1" ]; then
		(cd "$gpu/contest" && analysis contest round-? -o contest.md \
		    >/dev/null)
		echo "report: $gpu/contest/contest.md"
	fi
done
[ "$found" = 1 ] || { echo "report: no reference studies under $srcdir/reports/reference" >&2; exit 1; }
