#!/bin/bash
# tests/gpu/run-all.sh OUT [ARCH] [STEP...] - GPU work for a lent machine,
# in as few calls as possible.  Steps (default: build check study ceilings
# torch report):
#   build     bootstrap, configure --with-cuda-arch=ARCH (default 90), make
#   check     make check: the GPU tests run, not skip
#   study     run --preset article --cache both, with counters, timed;
#             then the physics and ncu comparisons
#   ceilings  ewbench ceilings, timed; then tests/gpu/ceilings.sh on it
#   torch     the torch.add / torch.relu peer rows for the study
#             (python3 -m ewbench.peers.torch_ops: the study's peer-torch.csv)
#   sweep     sweep of every add variant (graph launches, warm and cold,
#             counters), timed
#   tiers     run --preset tiers --launch both, all variants
#   tune      tune the study's variants at 2^28 (graph, warm)
#   contest   the leading add kernels at 3 block sizes, cub and torch.add,
#             tier sizes and 2^28, five interleaved rounds, then
#             `python3 -m ewbench.analysis contest` over the rounds and
#             scripts/contest-goals.py on its JSON
#   repeat    the same tier points 5 times, interleaved runs, summed up by
#             `python3 -m ewbench.analysis contest`
#   trace     a traced article run (--trace), for the reference
#   userkernel tests/gpu/user-kernel.sh: a user's kernel (--kernel) beside
#             the built-in one it copies, the tail bug, the guard region,
#             compute-sanitizer, the watchdog, the compile cache
#   elementwise tests/unit/test-opgen (the generated kernels' SASS widths
#             where configure found cuobjdump), then
#             tests/gpu/elementwise.sh: add, ReLU and abs given as
#             per-element functions (--elementwise): every generated
#             kernel checked at every tail; `ewbench ceilings`; the
#             what-if at 2^28 (220 candidates each beside the built-ins,
#             cub and, for add, a user's kernel) ranked with its seconds
#             and every member predicted from those ceilings, a wrong op
#             never ranked; the tanh GELU f16, SiLU*mul f32 and bf16 FMA
#             what-ifs, each winner asserted at 90 % of the measured DRAM
#             ceiling for its byte mix; run directories, the ceilings
#             and rankings under OUT/elementwise
#   cubmatch  tests/gpu/cub-match.sh: the add what-if at 2^28 (the
#             one-stage bulk-copy members, cub's design point among them,
#             last session's best members and built-ins, blocks 64 to
#             1024) beside cub_add_f32 in CUB_MATCH_ROUNDS (default 5)
#             interleaved rounds: each candidate's median µs and its speed
#             against cub's; rounds and cub-match.csv into OUT/cub-match
#   userfaults tests/gpu/user-faults.sh: the fault examples of examples/
#             (add_chunked, add_few_blocks, add_low_occupancy, add_offset)
#             run as their headers say, after `ewbench ceilings` (stored
#             in the ceilings cache); each verdict asserted; add_chunked
#             again with --elementwise examples/op_add.cu (256Mi, block
#             256): its fix tested by the generated member that makes it;
#             their run directories and verdicts.txt into OUT/userfaults
#   report    render the study's report
#   harness   tests/gpu/harness.sh: the harness's own cost, with the
#             ewbench built from .old/ (an earlier tree) beside this one
#   writeback where DRAM writes land: read and write bytes per launch at
#             sizes around the L2, warm and cold (why cold can beat warm)
#   probes    the experiments' probes checked at every tail, misaligned,
#             at odd blocks
#   mainjob   `make report` as a user runs it, timed; the study directory
#             it writes is packed into OUT
#   mainjob2  `make report` twice: the studies' agreement (tests/gpu/repeat.py)
#   mainjob-steps `make report` of the tree in .old/ (as harness) and of
#             this one, ROUNDS times each (default 1), alternating, after
#             one untimed `import torch` (the bytecode cache warm for
#             both): the step table side by side (tests/gpu/steps.py),
#             in steps.md, and both studies packed into OUT
#   calibration issue 51's calibrated curve: tests/gpu/residency.sh (the
#             --residency cap, confirmed by both occupancies), then
#             scripts/calibrate.sh (the
#             scalar study variants and their probes at 2^28, warm, at 1 to
#             8 resident blocks per SM, ewbench run --residency N, with the
#             achieved occupancy) into a copy of the shipped reference
#             study of this GPU's model (reports/reference/nvidia-h200 on
#             an H200), its report rendered with it; calibration.tar.gz
#             (the run directories), the copy's predictions.csv and
#             model-error.csv beside the shipped ones' (calibration-*.csv)
#             into OUT
#   mainjob-calibrated `make report-calibrated` as a user runs it, timed;
#             the study directory it writes (calibration/ included) packed
#             into OUT
#   timing    tests/gpu/timing.sh: the timing protocol's properties
#   timer     tests/gpu/timer-kinds.sh: what recording the kernels costs
#             them (KERNEL and CONCURRENT_KERNEL records, with and
#             without counters, events), every study variant, probe and
#             cub add at 2^20, 2^24, 2^28; timer-kinds.csv into OUT; then
#             tests/gpu/timer.sh
#   ncurules  issue 51's ncu audit: Nsight Compute's full set on the study
#             variants the experiments test, at 2^28 warm, one timed
#             launch each; its report (ncurules/rules.ncu-rep) and its
#             rule text with each rule's "Est. Speedup" (ncurules-details.txt
#             into OUT), to set beside the gain the experiments measured
#             for the change each rule recommends
#   energy    run --energy (issue 46): the study's variants and cub at
#             256Mi (DRAM), three at 1Mi (L2-resident); each point's pJ/B
#             and watts, idle subtracted, its spread over the 3 windows
#             (flagged past 3 %), the counter's step; the DRAM run's report
#             (its Energy per byte section); energy-*.csv into OUT
#   environment tests/gpu/environment.sh: the GPU's settings, the NVML
#             readings sampled through a run and through ceilings, each
#             row's lowest clocks, against nvidia-smi; the Environment
#   readme    the README's "Your own kernel" blocks as written, from the
#             build tree and from an installed copy
#   site80    an A100 site's build on this GPU: a copy of the tree
#             configured --with-cuda-arch=80 only, its `make report`
#             (the bulk-copy variants skipped, every other one checked and
#             timed), its plan, and the bulk-copy variants run as their
#             fallback (--allow-fallback) with every element checked; run
#             first, on the clean tree
#   cuda12    a CUDA 12.8 build of this tree on this GPU (issues 44, 53):
#             the 12.8 headers and libraries (with CCCL 2.8: the cub peer)
#             from the bundle CUDA12_BUNDLE (default .cuda12/cuda12.8.tar.xz,
#             written by scripts/cuda12-toolkit.sh --pack where PyPI is),
#             this machine's CUDA 13 compiler; a copy of the tree
#             configured --with-cuda-arch=ARCH against it and built; then
#             both builds' `make report` back to back, this tree's own
#             (CUDA 13: the build step's ./ewbench, so run `build` first)
#             and the 12.8 one, each timed; the 12.8 one stopped
#             CUDA12_END_S (default 540) seconds after this script began,
#             so that a slow one still leaves the comparison time to run
#             within a 600 s call.  Then tests/gpu/steps.py (the step table of
#             both), each part's counter phases from run.json
#             (counters.wall_s: passes, decode, sessions, ranges; wall_s:
#             timing, counters), tests/gpu/verdicts.py and repeat.py.
#             OUT gets cuda12.txt (the 12.8 build's facts, its plan for an
#             RTX 5090), cuda12-*.log, cuda13-report.log, cuda12-study.tar.gz
#             and cuda13-study.tar.gz (the 12.8 one packed every 20 s while
#             make report runs, so a cut-off call returns what was
#             measured), cuda12-steps.txt, cuda12-phases.txt,
#             cuda12-verdicts.txt and cuda12-repeat.txt
#   torchtime the torch step before and after: `ewbench torch` of the
#             python/ tree in BEFORE_PY and of this one, on copies of the
#             last study's article run without its torch rows; both timed,
#             their rows side by side
# OUT receives the logs and results.tar.gz (run directories), to stay
# within what a lent machine sends back.
set -uo pipefail
out=${1:?usage: run-all.sh OUT [ARCH] [STEP...]}
arch=${2:-90}
shift $(( $# >= 2 ? 2 : $# ))
steps=${*:-build check study ceilings torch report}
work=${TMPDIR:-/tmp}/ewbench-gpu
mkdir -p "$out" "$work"
out=$(cd "$out" && pwd)		# steps run from other folders too
log() { echo "=== $* ($(date -u +%T))"; }
# The study's variants, from kernels/study.def through `ewbench list`.
study_ids() { ./ewbench list | awk '$4 == "study" { printf "%s%s", sep, $1; sep = "," }'; }
export PATH=$PATH:/usr/local/cuda/bin
# The lent machines' torch venv ships without bytecode and their
# environment sets PYTHONDONTWRITEBYTECODE, so every `import torch` compiles
# some 1,800 modules (9 s on the H100 host, most of `ewbench torch`'s time);
# a user's pip install compiles them once.  A cache of our own, filled by
# the build step, stands in (the venv itself is left as it is).
export PYTHONPYCACHEPREFIX=${PYTHONPYCACHEPREFIX:-${TMPDIR:-/tmp}/ewbench-pycache}
unset PYTHONDONTWRITEBYTECODE
export EWBENCH=$PWD/ewbench top_srcdir=$PWD
top=$PWD
jobs=$(nproc)
study=$work/study
timed() {	# timed NAME COMMAND...: run, log, record wall time
	local name=$1 start end rc
	shift
	start=$(date +%s.%N)
	"$@" >"$work/$name.log" 2>&1
	rc=$?
	end=$(date +%s.%N)
	awk "BEGIN { printf \"$name: exit $rc, %.1f s wall\\n\", $end - $start }" |
	    tee -a "$out/times.txt"
	return $rc
}

# old_tree: the tree to compare with, built once a call in $work/old
# (BEFORE_TAR, a git archive of a commit, else .old/old.tar); sets
# $before to its ewbench, empty without one.
old_tree() {
	local tree=${BEFORE_TAR:-.old/old.tar}
	before=
	[ -f "$tree" ] || { echo "no $tree: nothing to compare with"; return; }
	if [ ! -x "$work/old/ewbench" ]; then
		rm -rf "$work/old" && mkdir -p "$work/old" &&
		    tar xf "$tree" -C "$work/old" &&
		    (cd "$work/old" && ./bootstrap && ./configure \
		    --with-cuda-arch="$arch" && make -j"$jobs") \
		    >"$out/old-build.log" 2>&1 ||
		    { echo "the old tree did not build: old-build.log"; return; }
	fi
	before=$work/old/ewbench
}

# What a call returns: the logs and results.tar.gz of everything so far.
# After every step, and inside long ones, so a call cut off at its time
# limit still returns what was done.
save() {
	cp "$out"/*.log "$out"/*.txt "$work"/ 2>/dev/null
	tar czf "$out/results.tar.gz" -C "$work" . 2>/dev/null
}

for step in $steps; do
case $step in
build)
	log build
	{ ./bootstrap && ./configure --with-cuda-arch="$arch" --enable-werror &&
	  make -j"$jobs"; } >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
	./ewbench --version
	./ewbench info | tee "$work/info.txt"
	python3 -c 'import torch, torch.profiler' 2>/dev/null
	python3 -c 'import matplotlib.pyplot, numpy' 2>/dev/null
	nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv
	;;
check)
	log make check
	make -j4 check >"$out/check.log" 2>&1
	grep -E '^(PASS|FAIL|SKIP|XFAIL|ERROR):|^# ' "$out/check.log"
	mkdir -p "$work/test-logs"
	cp tests/*.log tests/gpu/*.log tests/unit/*.log "$work/test-logs"/ 2>/dev/null
	for t in tests/gpu/*.trs tests/*.trs tests/unit/*.trs; do
		grep -q -E ':test-result: (FAIL|SKIP|ERROR)' "$t" 2>/dev/null &&
		    { echo "--- ${t%.trs}.log"; tail -25 "${t%.trs}.log"; }
	done
	;;
study)
	log study run
	rm -rf "$study"
	timed study ./ewbench run --preset article --cache both -o "$study"
	grep -E ' 256Mi ' "$work/study.log" | grep -E ' warm ' 
	tail -1 "$work/study.log"
	log physics
	bash tests/gpu/physics.sh "$study" 2>&1 | tee "$work/physics.txt"
	log ncu comparison
	bash tests/gpu/ncu-compare.sh "$work/ncu" 2>&1 | tail -40
	;;
studytime)
	# The issue-3 budget: the study's variants and the cub peers, article
	# sizes, both cache states, with counters: fresh profiler objects per
	# measurement (default) and one reused object.
	ids=$(study_ids),cub_add_f32,cub_add_f16
	rm -rf "$work/st-fresh" "$work/st-reuse"
	timed studytime-fresh ./ewbench run -q --preset article --cache both -v "$ids" -o "$work/st-fresh"
	EWBENCH_CUPTI_REUSE=1 timed studytime-reuse ./ewbench run -q --preset article --cache both -v "$ids" -o "$work/st-reuse"
	;;
ceilings)
	log ceilings
	rm -rf "$work/ceilings"
	timed ceilings ./ewbench ceilings -o "$work/ceilings"
	cat "$work/ceilings.log"
	# The block rate and loaded latency on these ceilings, beside the
	# study's kernels whose blocks they bound.
	sh tests/gpu/ceilings.sh "$work/ceilings" 2>&1 | tee "$work/ceilings-test.txt"
	;;
torch)
	log torch peer rows
	# A study carried from an earlier call, if there is one.
	[ -f .carry/study/run.json ] && { rm -rf "$study"; cp -r .carry/study "$study"; }
	PYTHONPATH=$PWD/python python3 -m ewbench.peers.torch_ops "$study" 2>&1 | tail -8
	;;
warm1pass)
	# Does a one-pass metric set keep the warm L2 that multi-pass kernel
	# replay loses?  DRAM bytes read by the second of two launches.
	log warm1pass
	for m in dram__bytes_read.sum default; do
		rm -rf "$work/w1-$m"
		./ewbench run -q -v add_f32,add_f16 -s 1Mi,4Mi --cache both \
		    --metrics "$m" -o "$work/w1-$m" >/dev/null 2>&1
		echo "metrics $m: $(grep -o '"passes": [0-9]*' "$work/w1-$m/run.json")"
		grep 'dram__bytes_read.sum' "$work/w1-$m/metrics.csv" | cut -d, -f2,5,7,10
	done
	;;
reuse)
	# Fresh profiler objects per measurement (default) vs one reused.
	log reuse
	ids=add_f32,add_f16,abs_f32,relu_f32x4
	rm -rf "$work/ab-fresh" "$work/ab-reuse"
	timed ab-fresh ./ewbench run -q -v $ids -s 1Mi,16Mi --cache both --iters 10 -o "$work/ab-fresh"
	EWBENCH_CUPTI_REUSE=1 timed ab-reuse ./ewbench run -q -v $ids -s 1Mi,16Mi --cache both --iters 10 -o "$work/ab-reuse"
	python3 - "$work" <<'PY'
import csv, sys
def load(d):
    return {(r["variant"], r["n"], r["cache"], r["metric"]): float(r["value"])
            for r in csv.DictReader(open(sys.argv[1] + "/" + d + "/metrics.csv"))
            if r["source"] == "cupti"}
a, b = load("ab-fresh"), load("ab-reuse")
exact = [k for k in a if "inst_executed" in k[3] or "dram__bytes_read" in k[3]]
worst = max(abs(a[k] - b.get(k, float("nan"))) / max(a[k], 1) for k in exact)
print("reuse vs fresh: %d rows, %d in both; worst rel diff on inst/dram-read rows %.4f"
      % (len(a), len(set(a) & set(b)), worst))
PY
	;;
sweepfast)
	log sweep without counters
	rm -rf "$work/sweep-timing"
	timed sweep-timing ./ewbench sweep --no-cupti -v 'add_*,cub_add_*' -o "$work/sweep-timing"
	tail -1 "$work/sweep-timing.log"
	;;
sweep)
	log sweep
	rm -rf "$work/sweep"
	# One-pass counters: warm points keep their L2 (docs/metrics.md).
	timed sweep ./ewbench sweep -v 'add_*,cub_add_*' --metrics residency -o "$work/sweep"
	tail -2 "$work/sweep.log"
	;;
sweep2)
	log sweep of the leading add variants
	rm -rf "$work/sweep2"
	timed sweep2 ./ewbench sweep -v 'add_f32x4,add_f16x8_pack,add_f32_tma,add_f16_tma,add_f16x8_ilp2,cub_add_*' \
	    --metrics residency -o "$work/sweep2"
	tail -1 "$work/sweep2.log"
	;;
timer)
	log timer kinds
	bash tests/gpu/timer-kinds.sh "$work/timer" "${TIMER_ROUNDS:-2}" 2>&1 |
	    tee "$out/timer-kinds.txt"
	cp "$work/timer/timer-kinds.csv" "$out/" 2>/dev/null
	save
	log timer.sh
	make check TESTS=tests/gpu/timer.sh >/dev/null 2>&1; tail -20 tests/gpu/timer.log
	;;
runtest)
	log run.sh
	make check TESTS=tests/gpu/run.sh >/dev/null 2>&1; tail -8 tests/gpu/run.log
	;;
tiers)
	log tiers
	rm -rf "$work/tiers"
	timed tiers ./ewbench run --preset tiers -v 'add_*,cub_add_*' --block 256,768 --launch both --cache both --metrics residency -o "$work/tiers"
	grep -E 'graph' "$work/tiers.log" | grep -E ' warm ' | head -60
	;;
tune)
	log tune
	rm -rf "$work/tune"
	# Every check at 2^28 copies the output back and compares it on the
	# CPU (about a second): the study's 14 variants x 10 blocks fit a call.
	timed tune ./ewbench tune -s 256Mi --iters 30 --launch graph -o "$work/tune" \
	    -v "$(study_ids)"
	sed -n '/published: GB/,$p' "$work/tune.log"
	;;
contest)
	log contest
	# About 50 s a round on an H100, most of it the checks at the two
	# DRAM sizes.
	ids=add_f32x4,add_f32x4_ilp2,add_f32_tma,add_f32_tma_st
	ids=$ids,add_f16x8_pack,add_f16x8_ilp2,add_f16_tma,add_f16_tma_st,cub_add_*
	mkdir -p "$work/contest"
	for i in 1 2 3 4 5; do
		rm -rf "$work/contest/round-$i"
		timed contest-$i ./ewbench run -q --preset tiers -s 256Mi -v "$ids" \
		    --block 128,256,512,768,1024 --launch both --no-cupti -o "$work/contest/round-$i"
		PYTHONPATH=$PWD/python python3 -m ewbench.peers.torch_ops "$work/contest/round-$i" 2>&1 | tail -1
		save
	done
	PYTHONPATH=$PWD/python python3 -m ewbench.analysis contest "$work"/contest/round-? \
	    -o "$work/contest/contest.md" | head -30
	# The project's goals (docs/kernels.md), judged on the same rounds.
	PYTHONPATH=$PWD/python python3 -m ewbench.analysis contest --json "$work"/contest/round-? \
	    -o "$work/contest/contest.json" >/dev/null &&
	    python3 scripts/contest-goals.py "$work/contest/contest.json"
	;;
probe)
	# Exploratory kernels outside the project (.probe/, carried, not
	# committed), when present.
	[ -f .probe/probe.cu ] || { echo "probe: no .probe/probe.cu"; continue; }
	log probe
	nvcc -O3 -arch=sm_$arch -std=c++17 .probe/probe.cu -o "$work/probe" &&
	    "$work/probe" 268435456 5 | tee "$work/probe.txt"
	;;
repeat)
	log repeat
	for i in 1 2 3 4 5; do
		rm -rf "$work/repeat-$i"
		./ewbench run -q --preset tiers -v 'add_f32x4,add_f16x8_pack,cub_add_*' \
		    --launch graph -o "$work/repeat-$i" || echo "repeat $i failed"
	done
	# Median and spread over the runs, per point: analysis contest.
	PYTHONPATH=$PWD/python python3 -m ewbench.analysis contest "$work"/repeat-? | head -40
	;;
trace)
	log traced run
	rm -rf "$work/traced"
	timed trace ./ewbench run --preset article -q --trace "$work/trace.json" -o "$work/traced"
	python3 - "$work/traced/timing.csv" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["activity_median_ns"]]
for n in sorted({int(r["n"]) for r in rows}):
    gaps = [float(r["time_median_ns"]) - float(r["activity_median_ns"]) for r in rows if int(r["n"]) == n]
    ev = statistics.median(float(r["time_median_ns"]) for r in rows if int(r["n"]) == n)
    ac = statistics.median(float(r["activity_median_ns"]) for r in rows if int(r["n"]) == n)
    print("n=%d: median over variants: event %.2f us, activity %.2f us, gap %.2f us (min %.2f, max %.2f)"
          % (n, ev / 1e3, ac / 1e3, statistics.median(gaps) / 1e3, min(gaps) / 1e3, max(gaps) / 1e3))
PY
	gzip -f "$work/trace.json"
	log nsys
	nsys=$(command -v nsys || ls /opt/nvidia/nsight-*/*/host/target-linux-x64/nsys /usr/local/cuda/bin/nsys 2>/dev/null | head -1)
	if [ -n "$nsys" ]; then
		timeout 120 "$nsys" profile -t cuda,nvtx --capture-range=cudaProfilerApi \
		    -o "$work/nsys-window" ./ewbench run -q -v add_f32,add_f16x8_pack -s 16Mi \
		    --profile-window -o "$work/nsys-run" >"$work/nsys.log" 2>&1
		echo "nsys ($nsys) exit $?"; tail -5 "$work/nsys.log"; ls -la "$work"/nsys-window* 2>/dev/null
	else
		echo "nsys: not found"
	fi
	;;
userkernel)
	log user kernel
	timed userkernel env EWBENCH="$EWBENCH" top_srcdir="$PWD" \
	    sh tests/gpu/user-kernel.sh
	cat "$work/userkernel.log"
	;;
elementwise)
	log elementwise
	# The family's SASS widths, where configure found cuobjdump.
	make -s tests/unit/test-opgen >/dev/null && ./tests/unit/test-opgen |
	    tail -3
	timed elementwise env EWBENCH="$EWBENCH" top_srcdir="$PWD" OUT="$out" \
	    sh tests/gpu/elementwise.sh
	cat "$work/elementwise.log"
	;;
cubmatch)
	log cub match
	timed cubmatch env EWBENCH="$EWBENCH" top_srcdir="$PWD" OUT="$out" \
	    sh tests/gpu/cub-match.sh
	cat "$work/cubmatch.log"
	;;
userfaults)
	log user faults
	timed userfaults env EWBENCH="$EWBENCH" top_srcdir="$PWD" \
	    USER_FAULTS_OUT="$out/userfaults" sh tests/gpu/user-faults.sh
	cat "$work/userfaults.log"
	;;
report)
	log report
	for d in "$study" "$work/sweep"; do
		[ -f "$d/run.json" ] || continue
		PYTHONPATH=$PWD/python MPLBACKEND=Agg python3 -m ewbench.analysis report "$d" \
		    --ceilings "$work/ceilings" -o "$d/report" 2>&1 | tail -8
	done
	;;
harness)
	log harness
	old_tree
	bash tests/gpu/harness.sh "$work/harness" $before
	cp "$work/harness/harness.md" "$out/" 2>/dev/null
	;;
writeback)
	log writeback
	rm -rf "$work/writeback"
	./ewbench run -q -v add_f32x4,add_f16x8_pack,add_f32_tma_st,cub_add_f32 \
	    -s 1Mi,4Mi,16Mi,32Mi,64Mi,256Mi --cache both \
	    --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
	    -o "$work/writeback" || echo "writeback run failed"
	python3 - "$work/writeback" <<'PY'
import csv, sys
d = sys.argv[1]
t = {(r["variant"], int(r["n"]), r["cache"]): float(r["time_median_ns"])
     for r in csv.DictReader(open(d + "/timing.csv"))}
m = {}
for r in csv.DictReader(open(d + "/metrics.csv")):
    m[(r["variant"], int(r["n"]), r["cache"], r["metric"])] = float(r["value"])
print("%-16s %6s %-4s %10s %9s %9s %10s" % ("variant", "n", "L2", "event us",
      "read/ideal", "write/ideal", "kernel us"))
for (v, n, c), ns in sorted(t.items()):
    size = 2 if "f16" in v else 4
    rd = m.get((v, n, c, "dram__bytes_read.sum"), float("nan")) / (2 * n * size)
    wr = m.get((v, n, c, "dram__bytes_write.sum"), float("nan")) / (n * size)
    k = m.get((v, n, c, "gpu__time_duration.sum"), float("nan")) / 1e3
    print("%-16s %6s %-4s %10.2f %9.3f %9.3f %10.2f" % (v, n >> 20, c, ns / 1e3, rd, wr, k))
PY
	;;
timing)
	# The timing protocol's GPU test, kept; then the article run's
	# 1Mi rows as the protocol reads them.
	log timing protocol
	rm -rf "$work/timing"
	timed timing-test sh tests/gpu/timing.sh "$work/timing"
	cat "$work/timing-test.log"
	;;
energy)
	log energy per byte
	nvidia-smi --query-gpu=name,power.draw,power.limit,clocks.sm,temperature.gpu,mig.mode.current --format=csv
	nvidia-smi --query-compute-apps=pid,process_name --format=csv
	for tier in dram l2; do
		rm -rf "$work/energy-$tier"
		if [ $tier = dram ]; then
			set -- -v "$(study_ids),cub_add_f32,cub_add_f16" -s 256Mi
		else
			set -- -v add_f32,add_f16x8_pack,cub_add_f32 -s 1Mi
		fi
		timed energy-$tier ./ewbench run "$@" --cache warm --no-counters \
		    --energy -o "$work/energy-$tier"
		grep -E 'energy:|refused|ewbench:' "$work/energy-$tier.log"
		cp "$work/energy-$tier/energy.csv" "$out/energy-$tier.csv" 2>/dev/null
		save
	done
	PYTHONPATH=$PWD/python python3 - "$work"/energy-dram "$work"/energy-l2 <<'PY'
import statistics, sys
from ewbench.analysis.core import load
from ewbench.analysis.report import energy as en
from ewbench.analysis.core.units import size_label
for d in sys.argv[1:]:
    try:
        run = load.load_run(d)
    except Exception as e:              # a refused run left no directory
        print("%s: %s" % (d, e)); continue
    print("%s (run %s): window %s s" % (d, run.run_id,
                                         run.manifest["energy"]["window_s"]))
    steps = [1e3 * w.seconds / w.updates for w in run.energy]
    print("counter step %.1f ms median (%.1f-%.1f); windows %.3f-%.3f s; "
          "queue drained in %d of %d windows" % (
              statistics.median(steps), min(steps), max(steps),
              min(w.seconds for w in run.energy),
              max(w.seconds for w in run.energy),
              sum(1 for w in run.energy if w.queue_drained),
              len(run.energy)))
    print("%-16s %6s %8s %7s %7s %6s %6s %6s %7s %5s %s" % (
        "variant", "size", "pJ/B", "spread", "board W", "sprd", "idle",
        "added", "GB/s", "SMmin", "throttle"))
    for e in en.points(run):
        print("%-16s %6s %8.2f %6.2f%% %7.1f %5.2f%% %6.1f %6.1f %7.0f %5s %s%s"
              % (e.variant, size_label(e.n), e.pj,
                 e.pj_spread, e.board_w, e.board_spread, e.idle_w, e.net_w,
                 e.bandwidth / 1e9, "%.0f" % (e.lowest("sm_clock_min_mhz")
                                              or 0), e.throttle or "-",
                 "  SPREAD > 3 %" if e.pj_spread > 3 else ""))
    for f in en.frugal(en.points(run)):
        print("%s %s: most frugal %s %.2f pJ/B, least %s %.2f pJ/B, "
              "fastest %s" % (f.tier, f.op, f.most.variant, f.most.pj,
                              f.least.variant, f.least.pj, f.fastest.variant))
PY
	[ -f "$work/energy-dram/run.json" ] &&
	    PYTHONPATH=$PWD/python MPLBACKEND=Agg python3 -m ewbench.analysis report \
	    "$work/energy-dram" -o "$work/energy-dram/report" 2>&1 | tail -2 &&
	    sed -n '/^## Energy per byte/,/^### How/p' "$work/energy-dram/report/report.md" | head -12
	;;
environment)
	log environment as evidence
	timed environment sh tests/gpu/environment.sh "$work/environment"
	cat "$work/environment.log"
	;;
probes)
	# The experiments' probes (run only by name) checked like every
	# variant: tails, misaligned operands, odd blocks; then the curve.
	log probes
	ids=$(./ewbench list | awk '$4 == "probe" { printf "%s%s", sep, $1; sep = "," }')
	timed probes-check ./ewbench check -q -v "$ids" -s 1,3,7,8,33,1000003,16777221 &&
	timed probes-misalign ./ewbench check -q --misalign -v "$ids" -s 1,3,33,1000003 &&
	timed probes-blocks ./ewbench check -q --block 32,96,1024 -v "$ids" -s 3,1000003
	tail -n 2 "$work"/probes-*.log
	;;
calibration)
	log calibration
	make check TESTS=tests/gpu/residency.sh >/dev/null 2>&1
	tail -n 12 tests/gpu/residency.log | tee "$out/residency.txt"
	name=$(./ewbench info 2>/dev/null | sed -n '1{s/^device [0-9]*: //;s/[^A-Za-z0-9]\{1,\}/-/g;p;}' | tr 'A-Z' 'a-z')
	ref=
	for d in reports/reference/nvidia-*/; do
		d=${d%/}
		[ -f "$d/article/run.json" ] && case $name in
		    "$(basename "$d")"*) ref=$d; break ;; esac
	done
	rm -rf "$work/calibrated" && mkdir -p "$work/calibrated"
	if [ -n "$ref" ]; then
		for part in "$ref"/*; do
			[ "$(basename "$part")" = report ] ||
			    ln -s "$top/$part" "$work/calibrated/"
		done
	fi
	timed calibration sh scripts/calibrate.sh "$work/calibrated" &&
	    tar czf "$out/calibration.tar.gz" -C "$work/calibrated" calibration
	tail -n 3 "$work/calibration.log"
	if [ -n "$ref" ] && [ -d "$work/calibrated/calibration" ]; then
		timed calibration-report env EWBENCH_PYTHON=python3 MPLBACKEND=Agg \
		    ./ewbench report "$work/calibrated" -o "$work/calibrated/report" &&
		for f in predictions model-error; do
			cp "$ref/report/$f.csv" "$out/calibration-$f-shipped.csv"
			cp "$work/calibrated/report/$f.csv" "$out/calibration-$f.csv"
		done
		cat "$out/calibration-model-error-shipped.csv" "$out/calibration-model-error.csv"
	else
		echo "calibration: no shipped reference of this GPU model to render it with"
	fi
	;;
mainjob-calibrated)
	log make report-calibrated
	rm -rf reports/nvidia-*
	timed mainjob-calibrated make report-calibrated
	tail -15 "$work/mainjob-calibrated.log"
	for d in reports/nvidia-*/; do
		[ -d "$d" ] && tar czf "$out/study-$(basename "$d").tar.gz" -C reports "$(basename "$d")"
	done
	;;
mainjob)
	log make report
	rm -rf reports/nvidia-*
	timed mainjob make report
	tail -15 "$work/mainjob.log"
	for d in reports/nvidia-*/; do
		[ -d "$d" ] && tar czf "$out/study-$(basename "$d").tar.gz" -C reports "$(basename "$d")"
	done
	;;
torchtime)
	log torch step before and after
	set -- reports/nvidia-*/
	for which in before after; do
		rm -rf "$work/torch-$which"
		cp -r "$1/article" "$work/torch-$which"
		rm -f "$work/torch-$which"/peer-torch.*
	done
	PYTHONPATH=${BEFORE_PY:?} timed torch-before \
	    python3 -m ewbench.peers.torch_ops "$work/torch-before"
	PYTHONPATH=$PWD/python timed torch-after \
	    python3 -m ewbench.peers.torch_ops "$work/torch-after"
	python3 - "$work/torch-before" "$work/torch-after" <<-'EOF' | tee "$out/torchtime.txt"
	import csv, sys
	rows = [{(r["variant"], r["n"], r["cache"]): r for r in
	         csv.DictReader(open(d + "/peer-torch.csv"))} for d in sys.argv[1:]]
	print("variant n cache before_ns iters after_ns iters stop diff_pct")
	for k, b in rows[0].items():
	    a = rows[1][k]
	    tb, ta = float(b["time_median_ns"]), float(a["time_median_ns"])
	    print(*k, "%.0f" % tb, b["iters"], "%.0f" % ta, a["iters"], a["stop"],
	          "%+.2f" % (100 * (ta / tb - 1)))
	EOF
	;;
mainjob-steps)
	log make report, before and after
	old_tree
	python3 -c 'import torch, torch.profiler' >/dev/null 2>&1
	args=
	for round in $(seq 1 "${ROUNDS:-1}"); do
		for which in before after; do
			[ "$which" = after ] && tree=$PWD || tree=$work/old
			[ "$which" = before ] && [ -z "$before" ] && continue
			rm -rf "$tree"/reports/nvidia-*
			( cd "$tree" && timed "steps-$which-$round" make report )
			tail -1 "$out/times.txt" >>"$work/steps-$which-$round.log"
			study=$(ls -d "$tree"/reports/nvidia-*/ | head -1)
			rm -rf "$work/study-$which-$round"
			cp -r "$study" "$work/study-$which-$round"
			args="$args $which-$round=$work/steps-$which-$round.log:$work/study-$which-$round"
			save
		done
	done
	"$EWBENCH" info | head -1
	python3 tests/gpu/steps.py $args | tee "$out/steps.md"
	;;
mainjob2)
	# `make report` twice, back to back: how the two studies agree
	# (tests/gpu/repeat.py; FLOOR: the floor measured elsewhere).
	log make report twice
	rm -rf reports/nvidia-*
	timed mainjob-1 make report
	timed mainjob-2 make report
	grep -h "report:" "$work"/mainjob-?.log
	set -- reports/nvidia-*/
	python3 tests/gpu/repeat.py "$1" "$2" ${FLOOR:+--floor "$FLOOR"} |
	    tee "$out/repeat.txt"
	# The conclusions: findings, point verdicts, experiments' outcomes.
	python3 tests/gpu/verdicts.py "$1" "$2" | tee "$out/verdicts.txt"
	# Both studies: the noise model is fitted from the pair's rows
	# (tests/gpu/repeat.py --by-duration).
	pair=${TMPDIR:-/tmp}/ewbench-pair; rm -rf "$pair"; mkdir -p "$pair"
	cp -r "$1" "$pair/study-1" && cp -r "$2" "$pair/study-2"
	tar czf "$out/studies.tar.gz" -C "$pair" study-1 study-2
	;;
readme)
	# The README's "Your own kernel" blocks as written, in an empty
	# folder: with the build tree's ewbench, then an installed one.
	log README kernel blocks
	blocks=$(awk '/^##/ { on = /^### Your own kernel/ }
	    on && /^```sh$/ { inb = 1; next } inb && /^```$/ { inb = 0; next }
	    on && inb' README.md)
	echo "$blocks"
	make install prefix="$work/inst" >"$out/install.log" 2>&1 || tail -20 "$out/install.log"
	for bin in "$PWD" "$work/inst/bin"; do
		dir=$(mktemp -d)
		( cd "$dir" && PATH=$bin:$PATH timed "readme-$(basename "$bin")" sh -ec "$blocks" )
		echo "ewbench from $bin: $(tail -3 "$work/readme-$(basename "$bin").log")"
	done
	;;
site80)
	log build for compute capability 8.0 only
	rm -rf "$work/site80"
	mkdir -p "$work/site80"
	tar cf - --exclude=./.git . | tar xf - -C "$work/site80"
	( cd "$work/site80" && ./bootstrap && ./configure --with-cuda-arch=80 \
	  --enable-werror && make -j"$jobs" ) >"$out/site80-build.log" 2>&1 ||
	    { tail -30 "$out/site80-build.log"; exit 1; }
	s80=$work/site80
	"$s80/ewbench" --version | grep targets
	"$s80/ewbench" run --dry-run -v '*_tma*,add_f32' -s 1Mi | tee "$work/site80-plan.txt"
	log "site80: make report"
	( cd "$s80" && rm -rf reports/nvidia-* && timed site80-report make report )
	tail -12 "$work/site80-report.log"
	for d in "$s80"/reports/nvidia-*/; do
		[ -d "$d" ] || continue
		for part in article sweep blocks stalls; do
			python3 - "$d/$part/run.json" <<-'PY' | tee -a "$out/site80.txt"
			import json, sys
			r = json.load(open(sys.argv[1]))
			s, c = r["settings"], r["checks"]
			print(sys.argv[1].split("/")[-2], "checks passed", c["passed"],
			      "failed", c["failed"], "skipped", len(s["skipped"]),
			      "cuda_arch", r["tool"]["cuda_arch"])
			for k in s["skipped"][:1]:
			    print("  e.g.", k["variant"], "-", k["reason"])
			PY
		done
		tar czf "$out/site80-study.tar.gz" -C "$s80/reports" "$(basename "$d")"
	done
	log "site80: bulk-copy variants as their fallback, every element checked"
	timed site80-fallback "$s80/ewbench" run -v '*_tma*' -s '1Mi,1000003,2^28' \
	    --allow-fallback --cache both -o "$work/site80-fallback"
	tail -3 "$work/site80-fallback.log"
	grep -o '"checks": {[^]]*' "$work/site80-fallback/run.json" | head -c 300; echo
	save
	;;
cuda12)
	log "cuda12: a CUDA 12.8 build"
	[ -x ./ewbench ] || { echo "cuda12: no ./ewbench: run the build step first (its make report is the CUDA 13 one)"; continue; }
	bundle=${CUDA12_BUNDLE:-$PWD/.cuda12/cuda12.8.tar.xz}
	# Outside $work: save() packs $work, and the toolkit is 350 MB.
	c12=${TMPDIR:-/tmp}/ewbench-cuda12
	rm -rf "$c12"
	mkdir -p "$c12/src"
	tar cf - --exclude=./.git --exclude=./.cuda12 --exclude='./reports/nvidia-*' . | tar xf - -C "$c12/src"
	# Only the sources: a build of this tree (the build step's) must not
	# stand in for the 12.8 one.
	[ -f "$c12/src/Makefile" ] && make -C "$c12/src" distclean >/dev/null 2>&1
	rev=$(./ewbench --version 2>/dev/null | sed -n 's/.*(git \(.*\))$/\1/p')
	{ sh scripts/cuda12-toolkit.sh --bundle "$bundle" "$c12/toolkit" 12.8 &&
	  cd "$c12/src" && ./bootstrap &&
	  ./configure --with-cuda="$c12/toolkit" --with-cuda-arch="$arch" \
	      --enable-werror EWB_GIT_REVISION="${rev:-unknown}-cuda12" &&
	  make -j"$jobs"; } >"$out/cuda12-build.log" 2>&1 ||
	    { tail -30 "$out/cuda12-build.log"; save; cd "$top"; continue; }
	cd "$top"
	e12=$c12/src/ewbench
	{
		"$e12" --version
		ldd "$e12" | grep -E 'cudart|cupti|nvrtc'
		echo "headers of the machine's CUDA 13 read by the build (none expected):"
		grep -l -e /usr/local/cuda -e /usr/local/include \
		    "$c12"/src/kernels/*.d "$c12"/src/src/*/.deps/*.Po 2>/dev/null || echo none
		grep -e 'CCCL:' "$out/cuda12-build.log"
		"$e12" list | grep -e '^cub_' || echo "no cub rows"
		"$e12" info
		"$e12" run --dry-run --chip "RTX 5090" --preset article --cache both
	} >"$out/cuda12.txt" 2>&1
	head -16 "$out/cuda12.txt"
	save
	# Both builds' make report back to back: this tree's (CUDA 13) first.
	log "cuda12: make report, CUDA 13 build"
	old13=$(ls -d reports/nvidia-*/ 2>/dev/null)
	timed cuda13-report make report
	tail -3 "$work/cuda13-report.log"
	s13=
	for d in reports/nvidia-*/; do
		[ -d "$d" ] && ! echo "$old13" | grep -qxF "$d" && s13=$PWD/${d%/}
	done
	[ -n "$s13" ] && tar czf "$out/cuda13-study.tar.gz" -C reports "$(basename "$s13")"
	save
	log "cuda12: make report, CUDA 12.8 build"
	left=$(( ${CUDA12_END_S:-540} - SECONDS ))
	[ "$left" -gt 30 ] || left=30
	echo "the 12.8 make report gets at most $left s (CUDA12_END_S ${CUDA12_END_S:-540})"
	( while sleep 20; do
		for d in "$c12"/src/reports/nvidia-*/; do
			[ -d "$d" ] && tar czf "$out/cuda12-study.tar.gz.tmp" -C "$c12/src/reports" "$(basename "$d")" &&
			    mv "$out/cuda12-study.tar.gz.tmp" "$out/cuda12-study.tar.gz"
		done
	  done ) &
	packer=$!
	( cd "$c12/src" && timed cuda12-report timeout "$left" make report )
	kill "$packer" 2>/dev/null
	wait "$packer" 2>/dev/null
	tail -3 "$work/cuda12-report.log"
	s12=
	for d in "$c12"/src/reports/nvidia-*/; do
		[ -d "$d" ] || continue
		s12=${d%/}
		tar czf "$out/cuda12-study.tar.gz" -C "$c12/src/reports" "$(basename "$d")"
	done
	python3 tests/gpu/steps.py "cuda13=$work/cuda13-report.log${s13:+:$s13}" \
	    "cuda12.8=$work/cuda12-report.log${s12:+:$s12}" >"$out/cuda12-steps.txt" 2>&1
	cat "$out/cuda12-steps.txt"
	# Where each part's time went, per build: issue 53's cold points
	# (counters.wall_s: sessions and ranges tell a re-collection apart).
	python3 - "$s13" "$s12" >"$out/cuda12-phases.txt" 2>&1 <<'EOF'
import glob, json, os, sys
print("%-8s %-12s %7s %7s %8s %7s %7s %8s %6s %5s" % ("build", "part", "total",
      "timing", "counters", "passes", "decode", "sessions", "ranges", "range"))
for label, study in zip(("cuda13", "cuda12.8"), sys.argv[1:]):
    for run in sorted(glob.glob(os.path.join(study or "/nonexistent", "*", "run.json"))):
        d = json.load(open(run))
        w, c = d.get("wall_s") or {}, d.get("counters") or {}
        cw = c.get("wall_s") or {}
        print("%-8s %-12s %7.1f %7.1f %8.1f %7.1f %7.2f %8s %6s %5s" % (
            label, os.path.basename(os.path.dirname(run)), w.get("total", 0),
            w.get("timing", 0), w.get("counters", 0), cw.get("passes", 0),
            cw.get("decode", 0), cw.get("sessions", "-"), cw.get("ranges", "-"),
            c.get("range", "-")))
EOF
	cat "$out/cuda12-phases.txt"
	if [ -n "$s12" ] && [ -n "$s13" ]; then
		python3 tests/gpu/verdicts.py "$s13" "$s12" >"$out/cuda12-verdicts.txt" 2>&1
		echo "verdicts.py: exit $?"
		python3 tests/gpu/repeat.py "$s13" "$s12" >"$out/cuda12-repeat.txt" 2>&1
		cat "$out/cuda12-verdicts.txt" "$out/cuda12-repeat.txt" | cut -c1-200 | tail -60
	fi
	;;
ncurules)
	log ncu rules
	command -v ncu >/dev/null || { echo "no ncu on PATH"; save; continue; }
	rm -rf "$work/ncurules" && mkdir -p "$work/ncurules"
	ids=add_f32,add_f16,add_f16x2,add_f16x8,add_f16x8_pack,add_f32x4,add_f32x4_grid,relu_f32,relu_f32x4,abs_f32,abs_f32_grid,abs_f32_unroll
	# --no-cupti: ncu owns the counters; the check launch and the timed
	# one are both profiled (the audit reads the second).
	timed ncurules ncu --set full -k 'regex:^ewb_(add|relu|abs)' \
	    -o "$work/ncurules/rules" ./ewbench run -q -v "$ids" -s 256Mi \
	    --cache warm --iters 1 --warmup 0 --no-cupti -o "$work/ncurules/run"
	tail -3 "$work/ncurules.log"
	rep=$work/ncurules/rules.ncu-rep
	ncu --import "$rep" --page details --print-details all \
	    >"$out/ncurules-details.txt" 2>&1 ||
	    ncu --import "$rep" --page details >"$out/ncurules-details.txt" 2>&1
	ncu --import "$rep" --page details --csv >"$out/ncurules-details.csv" 2>&1
	echo "rules with an estimated speedup: $(grep -c 'Est. Speedup' "$out/ncurules-details.txt")"
	;;
*)	echo "unknown step $step"; exit 2 ;;
esac
save
done
ls -la "$out"
