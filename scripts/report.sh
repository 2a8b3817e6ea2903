#!/bin/sh
# scripts/report.sh SRCDIR OUTDIR - what `make report` does.
#   With a usable GPU: measure the whole study into one study directory,
#   OUTDIR/<gpu>-<date>/, one run directory per part:
#     ceilings/  the machine's measured ceilings (ewbench ceilings)
#     article/   every variant at the study's sizes, warm and cold, with
#                counters (and torch.add / torch.relu rows in peer-torch.csv
#                where torch is: ewbench torch)
#     sweep/     the study's variants, the cub peers and the best additions
#                at working sets from far below to well past the L2 (graph
#                launches, warm and cold, one-pass residency counters)
#     blocks/    every block size at the tier sizes for the variants whose
#                launch shape the study questions (graph launches)
#     stalls/    the study's variants at the article's largest size, warm
#                and cold, with their warp stall reasons (what decides a
#                shortfall)
#     experiments/ the study's variants at that size, warm, at their
#                published block and 2x and 4x it (more work per block),
#                beside the probes (a study variant's loads 2x and 4x per
#                thread: more bytes in flight): what each verdict predicts
#                would change, measured in one run
#     repeats/   round-1/..round-3/: the add kernels that can be the
#                fastest, at their published block and 128-1024, and cub,
#                at that size, warm, timing only; torch.add rows timed
#                right after each round (interleaved): the DRAM-tier
#                comparison with its round-to-round spread
#   then render its report.  Without one: render the shipped reference
#   results under SRCDIR/reports/reference/<gpu>/, and the fleet
#   references under SRCDIR/reports/reference/fleet-*/ (if any), into
#   OUTDIR/rendered/<name>/ (the shipped folders are left as they are).
# EWBENCH and PYTHON come from the environment (make sets them).
set -eu
srcdir=$(cd "$1" && pwd)
outdir=$2
py=${PYTHON:-python3}
# The analysis commands through ewbench itself, as a user runs them.
analysis() { EWBENCH_PYTHON=$py MPLBACKEND=Agg "$EWBENCH" "$@"; }

# The study's variants (kernels/study.def, as `ewbench list` prints them),
# its peers, and ewbench's fastest adds.
study_variants=$("$EWBENCH" list | awk '$4 == "study" { printf "%s%s", sep, $1; sep = "," }')
sweep_variants=$study_variants,cub_add_f32,cub_add_f16,add_f32_tma_st,add_f16_tma_st
# Published at small blocks (finding 5), and a scalar one to compare.
block_variants=add_f16x8,add_f16x8_pack,add_f16x2,add_f32
# The adds that can be ewbench's fastest at the DRAM tier (the vector and
# TMA ones), and cub.
repeat_variants='add_f32x4*,add_f32_tma*,add_f16x8*,add_f16_tma*,cub_add_*'
# The experiments' probes (kernels/probe.def), run only by name.
probe_variants=$("$EWBENCH" list | awk '$4 == "probe" { printf "%s%s", sep, $1; sep = "," }')
# The article preset's largest size (src/cli.c): the DRAM tier.
dram_size=2^28
# Every block the DRAM-tier comparison lets compete: each kernel's own
# and the common sizes above the study's (a kernel's best block at 2^28
# is not always its published one).
repeat_blocks=own,128,256,512,768,1024

# render_study DIR [OUT]: the study's report, in OUT (default DIR/report).
render_study() {
	analysis report "$1" -o "${2:-$1/report}" >/dev/null
	echo "report: ${2:-$1/report}/report.html"
}

set +e
info=$("$EWBENCH" info 2>/dev/null)
rc=$?
set -e
if [ "$rc" = 0 ]; then
	study="$outdir/$(echo "$info" | sed -n '1{s/^device [0-9]*: //;s/[^A-Za-z0-9]\{1,\}/-/g;p;}' | tr 'A-Z' 'a-z')-$(date -u +%Y%m%d-%H%M%S)"
	mkdir -p "$outdir"
	step() {	# step NAME COMMAND...: run it, say how long it took
		name=$1
		shift
		start=$(date +%s.%N)
		"$@"
		echo "report: $name in $(echo "$start $(date +%s.%N)" |
		    awk '{ printf "%.1f", $2 - $1 }') s"
	}
	step ceilings "$EWBENCH" ceilings -q -o "$study/ceilings"
	step article "$EWBENCH" run -q --preset article --cache both -o "$study/article"
	# The sweep's cold rows draw the cold line of the cache-tier figure:
	# 2 ms of samples each (an L2 flush before every one) is enough there.
	step sweep "$EWBENCH" sweep -q -v "$sweep_variants" --metrics residency \
	    --density 2 --warmup 3 --max-time 2 -o "$study/sweep"
	# Graph launches: kernels back to back, as the study's loops ran them
	# (kernel times leave the host's launch path out either way).
	step blocks "$EWBENCH" tune -q -v "$block_variants" --launch graph \
	    --warmup 3 -o "$study/blocks"
	step stalls "$EWBENCH" run -q -v "$study_variants" -s "$dram_size" \
	    --cache both --metrics stalls -o "$study/stalls"
	# Timing only: each intervention is judged against its base point
	# of the same run, its prediction from the article's counters.
	step experiments "$EWBENCH" run -q -v "$study_variants,$probe_variants" \
	    -s "$dram_size" --cache warm --block own,x2,x4 --no-counters \
	    -o "$study/experiments"
	# Each round's torch rows right after it, so that a drift of the
	# machine hits cub, torch and ewbench's kernels alike; the article's
	# with round 1's.  Without PyTorch `ewbench torch` says so (exit 5):
	# no rows, no error, and it is not asked again.
	torch=yes
	for round in 1 2 3; do
		step "repeat $round" "$EWBENCH" run -q -v "$repeat_variants" \
		    -s "$dram_size" --block "$repeat_blocks" --no-counters \
		    -o "$study/repeats/round-$round"
		[ "$torch" = yes ] || continue
		set -- "$study/repeats/round-$round"
		[ "$round" = 1 ] && set -- "$study/article" "$@"
		step "torch $round" analysis torch "$@" ||
		    { torch=no; echo "report: torch peer rows skipped"; }
	done
	step render render_study "$study"
	exit 0
fi
echo "report: no usable GPU here; rendering the shipped reference results"
# reports/reference/<gpu>/ is a study directory (article/, ceilings/,
# sweep/, ...), as written by `make report` on that GPU, with more runs
# beside it (contest/, ncu/, ...) that keep their data but no rendering.
# The shipped folders are the source's: their renderings go to
# OUTDIR/rendered/<name>/, which `make report` claims.
rendered=$outdir/rendered
mkdir -p "$rendered"
rendered_abs=$(cd "$rendered" && pwd)	# for the contest, run from its folder
found=0
for gpu in "$srcdir"/reports/reference/*/; do
	gpu=${gpu%/}
	name=$(basename "$gpu")
	if [ -f "$gpu/article/run.json" ]; then
		render_study "$gpu" "$rendered/$name/report"
		found=1
	fi
	# Interleaved rounds (tests/gpu/run-all.sh contest): who wins, by how
	# much, beyond the repeat-to-repeat spread.  Run from the folder so
	# the paths it prints are the rounds' own names.
	if [ -d "$gpu/contest/round-1" ]; then
		mkdir -p "$rendered/$name"
		(cd "$gpu/contest" &&
		    analysis contest round-? -o "$rendered_abs/$name/contest.md" >/dev/null)
		echo "report: $rendered/$name/contest.md"
	fi
done
# Committed fleet references (`ewbench fleet-report`): one run per GPU
# of a node or a cluster.  There may be none: the pattern then stays as
# written and names no directory.
for fleet in "$srcdir"/reports/reference/fleet-*/; do
	[ -d "$fleet" ] || continue
	fleet=${fleet%/}
	analysis fleet-report "$fleet" -o "$rendered/$(basename "$fleet")/report" >/dev/null
	echo "report: $rendered/$(basename "$fleet")/report/report.html"
done
[ "$found" = 1 ] || { echo "report: no reference results under $srcdir/reports/reference" >&2; exit 1; }
