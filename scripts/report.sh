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
#     calibration/ only with CALIBRATE=yes (`make report-calibrated`):
#                residency-1/..residency-8/, the scalar study variants and
#                their probes at that size, warm, at 1 to 8 resident
#                blocks per SM, with the achieved occupancy
#                (scripts/calibrate.sh): the concurrency curve calibrated
#                with the study's own kernels
#     energy/    only with ENERGY=yes (`make report-energy`): the study's
#                variants and cub at that size and at 2^20 (L2-resident),
#                warm, timing only, with their energy per byte (run
#                --energy: about 6 s a point); a GPU whose energy counter
#                cannot measure the run refuses it (exit 5): the report
#                then has no energy section, and says nothing of it
#   then render its report.  Without one: render the shipped reference
#   results under SRCDIR/reports/reference/<gpu>/, and the fleet
#   references under SRCDIR/reports/reference/fleet-*/ (if any), into
#   OUTDIR/rendered/<name>/ (the shipped folders are left as they are).
# EWBENCH, PYTHON, ENERGY and CALIBRATE come from the environment (make
# sets them).
set -eu
srcdir=$(cd "$1" && pwd)
# Absolute: the paths it prints are usable from wherever the user is
# (`make -C CLONE report` runs it in CLONE).
mkdir -p "$2"
outdir=$(cd "$2" && pwd)
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
# The article preset's largest size (src/run/settings.c): the DRAM tier.
dram_size=2^28
# The energy part's L2-resident size: the article preset's smallest.
l2_size=2^20
# Every block the DRAM-tier comparison lets compete: each kernel's own
# and the common sizes above the study's (a kernel's best block at 2^28
# is not always its published one).
repeat_blocks=own,128,256,512,768,1024

# render_study DIR [OUT]: the study's report, in OUT (default DIR/report).
render_study() {
	analysis report "$1" -o "${2:-$1/report}" >/dev/null || return
	echo "report: ${2:-$1/report}/report.html"
}

set +e
info=$("$EWBENCH" info 2>/dev/null)
rc=$?
set -e
if [ "$rc" = 0 ]; then
	study="$outdir/$(echo "$info" | sed -n '1{s/^device [0-9]*: //;s/[^A-Za-z0-9]\{1,\}/-/g;p;}' | tr 'A-Z' 'a-z')-$(date -u +%Y%m%d-%H%M%S)"
	mkdir -p "$outdir"
	# Every step's time, in STUDY/steps.json (docs/data-format.md,
	# "steps.json"), rewritten whole after each step through a temporary
	# file renamed over it: a reader never sees half of it, and an
	# interrupted study keeps the steps it finished.  Seconds from the
	# study's start, on this shell's clock.
	study_start=$(date +%s.%N)
	study_start_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	steps_done=
	steps_json() {
		tmp=$study/.steps.json.$$
		{
			printf '{\n  "schema": "ewbench-steps/1",\n'
			printf '  "started_utc": "%s",\n  "steps": [' "$study_start_utc"
			printf '%s' "$steps_done"
			printf '\n  ]\n}\n'
		} >"$tmp"
		mv -f "$tmp" "$study/steps.json"
	}
	# step NAME KIND DIRS COMMAND...: run it, say how long it took and
	# record it (KIND: part, peer or render; DIRS: the study's folders it
	# wrote into, relative, space-separated); its exit status.
	step() {
		name=$1 kind=$2 dirs=$3
		shift 3
		start=$(date +%s.%N)
		status=0
		"$@" || status=$?
		end=$(date +%s.%N)
		echo "report: $name in $(echo "$start $end" |
		    awk '{ printf "%.1f", $2 - $1 }') s"
		[ -d "$study" ] || return $status
		steps_done=$steps_done${steps_done:+,}$(echo "$study_start $start $end" |
		    awk -v name="$name" -v kind="$kind" -v dirs="$dirs" -v status=$status '{
			n = split(dirs, d, " "); list = ""
			for (i = 1; i <= n; i++)
				list = list (i > 1 ? ", " : "") "\"" d[i] "\""
			printf "\n    {\"name\": \"%s\", \"kind\": \"%s\", \"dirs\": [%s], " \
			    "\"start_s\": %.3f, \"seconds\": %.3f, \"exit_code\": %d}",
			    name, kind, list, $2 - $1, $3 - $2, status }')
		steps_json
		return $status
	}
	step ceilings part ceilings "$EWBENCH" ceilings -q -o "$study/ceilings"
	step article part article "$EWBENCH" run -q --preset article --cache both -o "$study/article"
	# PyTorch, for every round's torch rows: one process (`ewbench torch
	# --serve`, docs/peers.md) fed the rounds as they finish, so that the
	# import (seconds of one core's work) and the CUDA context (seconds
	# more) are paid once, not once a round.  Its requests go in on fd 3
	# and its answers come back on fd 4, through two FIFOs (removed once
	# both ends are open).  It starts now: its import overlaps the sweep
	# and the parts after it, whose times are the GPU's own clock on
	# graph launches or counters, which a busy host core cannot move; the
	# ceilings and the article time the host's own launch path (stream
	# launch intervals, the launch ceilings), which a core busy importing
	# beside them can (shared caches, memory bandwidth, clock boost), so
	# they run before it.  It touches the GPU first when asked to prepare
	# (torch_prepare, before the experiments), and runs kernels only for a
	# round's rows, between two ewbench processes, answering once they
	# are done: no PyTorch kernel runs while ewbench times.
	fifos=$(mktemp -d "${TMPDIR:-/tmp}/ewbench-torch.XXXXXX")
	mkfifo "$fifos/requests" "$fifos/answers"
	analysis torch --serve <"$fifos/requests" >"$fifos/answers" &
	torch_pid=$!
	exec 3>"$fifos/requests" 4<"$fifos/answers"
	rm -rf "$fifos"
	# torch_ask LINE...: one request to the server, its lines then an
	# empty line; fails once the server has ended.
	torch_ask() {
		( trap '' PIPE; printf '%s\n' "$@" "" >&3 ) 2>/dev/null
	}
	# torch_answer: the answer to the oldest request not yet read, its
	# lines shown as the server prints them, up to the empty line that
	# ends it; fails once the server has ended.
	torch_answer() {
		while IFS= read -r line <&4; do
			[ -n "$line" ] || return 0
			printf '%s\n' "$line"
		done
		return 1
	}
	# torch_prepare RUN_DIR: has the server do now what its first request
	# would wait for (the run's GPU made current, its flush buffer, its
	# profiler's first start: 5 to 7 s on an H200, no kernel), while
	# ewbench times the parts that follow; its answer is read by
	# torch_ready.  Only parts without counters or energy windows run
	# beside it: ewbench's replays timed beside a PyTorch process doing
	# this moved by no more than from one run of their own to the next
	# (docs/peers.md); the others were not measured so.
	torch_prepare() {
		torch_ask --prepare "$@" || return 0
		prepared=pending
	}
	# torch_ready: the answer of a prepare request still unread, waited
	# for (its lines shown); fails once the server has ended.
	torch_ready() {
		[ "${prepared:-}" = pending ] || return 0
		prepared=
		torch_answer
	}
	# torch_rows RUN_DIR...: the torch rows of these runs, measured now,
	# the server's lines shown as it prints them.  Fails once the server
	# has ended: without PyTorch it says so and exits 5 (no rows, no
	# error, and it is not asked again).
	torch_rows() {
		torch_ready && torch_ask "$@" && torch_answer
	}
	# The sweep's cold rows draw the cold line of the cache-tier figure:
	# 2 ms of samples each (an L2 flush before every one) is enough there.
	# --density 2: 8 working sets a doubling where a warm one leaves L2,
	# 1 to 4 elsewhere (docs/ceilings.md, "Sweep grid").
	step sweep part sweep "$EWBENCH" sweep -q -v "$sweep_variants" --metrics residency \
	    --density 2 --warmup 3 --max-time 2 -o "$study/sweep"
	# Graph launches: kernels back to back, as the study's loops ran them
	# (kernel times leave the host's launch path out either way).
	step blocks part blocks "$EWBENCH" tune -q -v "$block_variants" --launch graph \
	    --warmup 3 -o "$study/blocks"
	step stalls part stalls "$EWBENCH" run -q -v "$study_variants" -s "$dram_size" \
	    --cache both --metrics stalls -o "$study/stalls"
	torch_prepare "$study/article"
	# Timing only: each intervention is judged against its base point
	# of the same run, its prediction from the article's counters.
	step experiments part experiments "$EWBENCH" run -q \
	    -v "$study_variants,$probe_variants" \
	    -s "$dram_size" --cache warm --block own,x2,x4 --no-counters \
	    -o "$study/experiments"
	# The calibrated curve, only when asked for (make report-calibrated):
	# some 4 s of timed launches, 8 runs of about 3 s each.
	if [ "${CALIBRATE:-no}" = yes ]; then
		torch_ready || :
		step calibration part calibration \
		    sh "$srcdir/scripts/calibrate.sh" "$study"
	fi
	# Energy per byte, only when asked for (make report-energy): a GPU
	# whose energy counter cannot measure the run refuses it, exit 5,
	# saying why, and leaves no directory; the study goes on without.
	if [ "${ENERGY:-no}" = yes ]; then
		torch_ready || :
		step energy part energy \
		    "$EWBENCH" run -q -v "$study_variants,cub_add_f32,cub_add_f16" \
		    -s "$l2_size,$dram_size" --cache warm --no-counters --energy \
		    -o "$study/energy" || {
			rc=$?
			[ "$rc" = 5 ] || exit "$rc"
			echo "report: energy part refused (the reason is above)"
		}
	fi
	# Each round's torch rows right after it, so that a drift of the
	# machine hits cub, torch and ewbench's kernels alike; the article's
	# with round 1's.
	torch=yes
	for round in 1 2 3; do
		step "repeat $round" part "repeats/round-$round" \
		    "$EWBENCH" run -q -v "$repeat_variants" \
		    -s "$dram_size" --block "$repeat_blocks" --no-counters \
		    -o "$study/repeats/round-$round"
		[ "$torch" = yes ] || continue
		dirs=repeats/round-$round
		[ "$round" = 1 ] && dirs="article $dirs"
		set --
		for dir in $dirs; do set -- "$@" "$study/$dir"; done
		step "torch $round" peer "$dirs" torch_rows "$@" ||
		    { torch=no; echo "report: torch peer rows skipped"; }
	done
	exec 3>&- 4<&-		# the end of its input: the server exits
	wait "$torch_pid" || :
	step render render report render_study "$study"
	exit 0
fi
echo "report: no usable GPU here; rendering the shipped reference results"
# reports/reference/<gpu>/ is a study directory (article/, ceilings/,
# sweep/, ...), as written by `make report` on that GPU, with more runs
# beside it (contest/, ncu/, ...) that keep their data but no rendering.
# The shipped folders are the source's: their renderings go to
# OUTDIR/rendered/<name>/, which `make report` claims.
rendered=$outdir/rendered	# absolute: the contest runs from its folder
mkdir -p "$rendered"
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
		    analysis contest round-? -o "$rendered/$name/contest.md" >/dev/null)
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
