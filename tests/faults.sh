#!/bin/sh
# tests/faults.sh - faults of the machine, without a GPU and without root:
# ewbench runs on a stand-in for the CUDA runtime (tests/faults/
# stand-in-gpu.so: every path of a run up to its files, no numbers worth
# reading) with, where a test says so, a disk that fills after N bytes
# (tests/faults/disk-full.so), signals sent at chosen phases, and claims
# raced many times; and the interpreter the analysis is handed to.  Each
# test names the symptom of issue 23 it covers.  Stops during the
# analysis's commands: tests/faults-ctrl-c.sh, tests/faults-signals.sh.
# Arrays and PIPESTATUS: bash (make check runs tests with $(SHELL)).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/tests/faults/common.sh"
# The stand-in replaces the CUDA runtime, not CUPTI: on a machine with a
# GPU, CUPTI can still open it and take its counters from a GPU test
# running beside (make -j check): hold the GPU tests' lock.
gpu_lock_if_gpu

for so in stand-in-gpu disk-full; do
	[ -f "$shims/$so.so" ] || fail "$shims/$so.so missing (make check builds it)"
done
STANDIN="$shims/stand-in-gpu.so"
FULL="$STANDIN:$shims/disk-full.so"
small='-q -v add_f32 -s 1Ki --no-cupti --iters 3 --warmup 1'

# ewb [VAR=VALUE...] -- ARGS: ewbench on the stand-in; sets $rc, output in
# $d/out.
ewb() {
	local env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	set +e
	env LD_PRELOAD="$STANDIN" "${env[@]}" "$EWBENCH" "$@" >"$d/out" 2>&1
	rc=$?
	set -e
}
# ewbt: ewb, ended after 20 s (what must not block).
ewbt() {
	local env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	set +e
	env LD_PRELOAD="$STANDIN" "${env[@]}" timeout 20 "$EWBENCH" "$@" \
	    >"$d/out" 2>&1
	rc=$?
	set -e
}
status_of() {	# the "status" of a run.json or fleet.json
	sed -n 's/^  "status": "\(.*\)",$/\1/p;s/^{"status": "\(.*\)"}$/\1/p' "$1"
}
# Every line of a CSV file complete: a newline at the end, as many fields
# as the header (ewbench's rows have no quoted commas).
whole_rows() {
	[ -z "$(tail -c 1 "$1")" ] || return 1
	awk -F, 'NR == 1 { n = NF } NF != n { exit 1 }' "$1"
}

ewb -- run $small -o "$d/plain"
want 0 '' "a run on the stand-in"
[ "$(status_of "$d/plain/run.json")" = complete ] || fail "stand-in run not complete"

# 1. A failed run.json write is exit 1 naming the file, and the claim is
# released (ceilings alike); a fleet.json that cannot be written too.
for cmd in run ceilings; do
	args=$small
	[ $cmd = ceilings ] && args='-q --iters 2'
	ewb EWB_FULL_DIR="$d/m-$cmd/.run.json" LD_PRELOAD="$FULL" -- \
	    $cmd $args -o "$d/m-$cmd"
	want 1 "run.json.*No space left on device" "1: $cmd, run.json unwritable"
	[ ! -e "$d/m-$cmd" ] || fail "1: $cmd left $(ls -A "$d/m-$cmd")"
done
ewb EWB_STANDIN_GPUS=1 EWB_FULL_DIR="$d/m-fleet/.fleet.json" \
    LD_PRELOAD="$FULL" -- run $small --device all -o "$d/m-fleet"
want 1 "fleet.json.*No space left on device" "1: fleet.json unwritable"
[ "$(status_of "$d/m-fleet/fleet.json")" != complete ] ||
    fail "1: fleet.json says complete"
# An --out too long for the files in it is refused before anything:
# 4080 characters, in names of 200.
long=$d
while [ ${#long} -lt 3870 ]; do long=$long/$(printf 'x%.0s' $(seq 199)); done
long=$long/$(printf 'y%.0s' $(seq $((4080 - ${#long} - 1))))
[ ${#long} = 4080 ] || fail "1: the long --out has ${#long} characters"
ewb -- run $small -o "$long"
want 2 'leaves no room for its files' "1: a 4080-character --out"
[ ! -e "$long" ] || fail "1: the long --out was created"

# 2. The disk fills during timing.csv: exit 1, the file cut back to its
# last complete row.
for budget in 700 900 1100; do
	ewb EWB_FULL_DIR="$d/half-$budget/timing.csv" \
	    EWB_FULL_AFTER=$budget LD_PRELOAD="$FULL" -- \
	    run -q -v 'add_f32*' -s 1Ki,2Ki --no-cupti --iters 2 --warmup 1 \
	    -o "$d/half-$budget"
	want 1 "timing.csv: write: No space left on device" "2: timing.csv full"
	whole_rows "$d/half-$budget/timing.csv" ||
	    fail "2: timing.csv ends in a half row: $(tail -c 80 "$d/half-$budget/timing.csv")"
	[ "$(status_of "$d/half-$budget/run.json")" != complete ] ||
	    fail "2: run.json says complete"
done

# 3. An unwritable --trace is refused before the run (exit 2).  The
# missing folder is made missing here: /nonexistent exists wherever a
# program once ran with HOME=/nonexistent (Debian's home for nobody).
missing=$d/no-such-folder
[ ! -e "$missing" ] || fail "3: $missing exists before the test"
for trace in '' "$missing/t.json" /tmp "$d/plain/run.json/t.json"; do
	ewb -- run $small --trace "$trace" -o "$d/trace"
	want 2 '--trace' "3: --trace '$trace'"
	[ ! -e "$d/trace" ] || fail "3: --trace '$trace' left --out behind"
done

# 5. Two claims of one directory never both win: a fleet and a run, two
# runs, a fleet and a ceilings run, started together many times.
race() {	# race NAME ARGS-A -- ARGS-B
	local name=$1 a=() b=() i won
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	for i in $(seq 15); do
		rm -rf "$d/race" "$d/rc-a" "$d/rc-b"
		( set +e; EWB_STANDIN_GPUS=1 LD_PRELOAD="$STANDIN" "$EWBENCH" \
		    "${a[@]}" -o "$d/race" >"$d/out-a" 2>&1; echo $? >"$d/rc-a" ) &
		( set +e; LD_PRELOAD="$STANDIN" "$EWBENCH" "${b[@]}" \
		    -o "$d/race" >"$d/out-b" 2>&1; echo $? >"$d/rc-b" ) &
		wait
		won=0
		[ "$(cat "$d/rc-a")" = 0 ] && won=$((won + 1))
		[ "$(cat "$d/rc-b")" = 0 ] && won=$((won + 1))
		[ "$won" -le 1 ] || fail "5: $name: both claims of one --out won (trial $i): $(cat "$d/out-a" "$d/out-b"; ls -A "$d/race")"
		[ ! -e "$d/race/fleet.json" ] || [ ! -e "$d/race/run.json" ] ||
		    fail "5: $name: --out holds fleet.json and run.json (trial $i)"
	done
}
race 'fleet and run' run $small --device all -- run $small
race 'run and run' run $small -- run $small
race 'fleet and ceilings' run $small --device all -- ceilings -q --iters 2

# 8. SIGHUP and SIGPIPE end a run as SIGTERM does; a signal before the
# run has begun releases its claim; a fleet passes HUP on.
wait_for() {	# wait_for FILE PATTERN: until FILE holds PATTERN (10 s)
	local i
	for i in $(seq 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "8: $1 never held '$2'"
}
slow='-q -v add_f32* -s 1Ki,2Ki,4Ki --no-cupti --iters 3 --warmup 1'
for sig in HUP TERM INT; do
	EWB_STANDIN_SYNC_MS=40 LD_PRELOAD="$STANDIN" "$EWBENCH" run $slow \
	    -o "$d/sig-$sig" >/dev/null 2>&1 &
	pid=$!
	wait_for "$d/sig-$sig/run.json" '"running"'
	sleep 0.3
	kill -$sig $pid
	set +e; wait $pid; rc=$?; set -e
	[ $rc = 130 ] || fail "8: SIG$sig mid-run: exit $rc, expected 130"
	[ "$(status_of "$d/sig-$sig/run.json")" = interrupted ] ||
	    fail "8: SIG$sig mid-run: run.json says $(status_of "$d/sig-$sig/run.json")"
	whole_rows "$d/sig-$sig/timing.csv" || fail "8: SIG$sig left a half row"
done
set +e
EWB_STANDIN_SYNC_MS=40 LD_PRELOAD="$STANDIN" "$EWBENCH" run \
    -v 'add_f32*' -s 1Ki,2Ki,4Ki --no-cupti --iters 3 -o "$d/pipe" 2>/dev/null |
    head -n 3 >/dev/null
rc=${PIPESTATUS[0]}
set -e
[ $rc = 130 ] || fail "8: stdout closed (| head): exit $rc, expected 130"
[ "$(status_of "$d/pipe/run.json")" = interrupted ] ||
    fail "8: stdout closed: run.json says $(status_of "$d/pipe/run.json")"
EWB_STANDIN_OPEN_MS=1500 LD_PRELOAD="$STANDIN" "$EWBENCH" run $small \
    -o "$d/early/run" >/dev/null 2>&1 &
pid=$!
wait_for "$d/early/run/run.json" claimed
kill -TERM $pid
set +e; wait $pid; rc=$?; set -e
[ $rc = 130 ] || fail "8: TERM before the run began: exit $rc, expected 130"
[ ! -e "$d/early" ] || fail "8: TERM before the run began left $(find "$d/early")"
EWB_STANDIN_GPUS=2 EWB_STANDIN_SYNC_MS=40 LD_PRELOAD="$STANDIN" "$EWBENCH" \
    run $slow --device all -o "$d/fleet-hup" >/dev/null 2>&1 &
pid=$!
wait_for "$d/fleet-hup/fleet.json" '"running"'
sleep 0.5
kill -HUP $pid
set +e; wait $pid; rc=$?; set -e
[ $rc = 130 ] || fail "8: SIGHUP to a fleet: exit $rc, expected 130"
[ "$(status_of "$d/fleet-hup/fleet.json")" = interrupted ] ||
    fail "8: SIGHUP to a fleet: fleet.json says $(status_of "$d/fleet-hup/fleet.json")"
! grep -q '"status": "running"' "$d/fleet-hup/fleet.json" ||
    fail "8: SIGHUP to a fleet: fleet.json still lists a member running"

# 11. A full disk under a fresh --out is an I/O error (exit 1) naming
# errno, and leaves nothing; an over-long name is a usage error that
# leaves none of the parents it made.
ewb EWB_FULL_DIR="$d/full" LD_PRELOAD="$FULL" -- run $small -o "$d/full/a/b/r"
want 1 'No space left on device' "11: full disk under --out"
[ ! -e "$d/full" ] || fail "11: a full disk left $(find "$d/full")"
mkdir "$d/fullish"
ewb EWB_FULL_DIR="$d/fullish/a/b/r/" LD_PRELOAD="$FULL" -- \
    run $small -o "$d/fullish/a/b/r"
want 1 'No space left on device' "11: disk full at the claim"
[ -z "$(ls -A "$d/fullish")" ] || fail "11: a failed claim left $(find "$d/fullish")"
name=$(printf 'n%.0s' $(seq 300))
ewb -- run $small -o "$d/deep/1/2/3/4/5/6/7/8/9/$name/r"
want 2 'File name too long' "11: over-long component"
[ ! -e "$d/deep" ] || fail "11: an over-long --out left $(find "$d/deep")"

# 14. What can be refused without a GPU is refused before any GPU work.
ewb -- run $small --metrics no__such_metric.sum -o "$d/m14"	# $small: --no-cupti
want 0 '' "14: --no-cupti ignores --metrics"
rm -rf "$d/m14"
# (Not under the sanitizers: CUPTI's host library is loaded with
# RTLD_DEEPBIND, which ASan refuses; see Makefile.am's HOST_TESTS.)
if "$EWBENCH" metrics --check --chip GH100 --metrics dram__bytes_read.sum \
    >/dev/null 2>&1; then
	ewb -- run -q -v add_f32 -s 1Ki --metrics dram__bytes_red.sum -o "$d/m14"
	want 2 'dram__bytes_red.sum unknown on every chip' "14: misspelt metric"
	grep -q 'did you mean' "$d/out" ||
	    fail "14: no nearest name: $(cat "$d/out")"
	[ ! -e "$d/m14" ] || fail "14: a misspelt metric left --out behind"
else
	echo "faults: 14's metric name not checked: CUPTI's host library" \
	    "cannot be loaded in this build"
fi
ewb -- run $small --seed ' -1' -o "$d/s14"
want 2 "--seed: ' -1'" "14: --seed ' -1'"
ewb -- run $small --preset article --preset tiers -o "$d/s14"
want 2 '--preset given twice' "14: --preset twice"
ewb SLURM_PROCID=garbage -- run $small --device 0 -o "$d/slurm14"
want 0 '' "14: SLURM_PROCID=garbage with --device 0"
ewb -- run -q -v add_f32 -s 2^63 --no-cupti -o "$d/big14"
want 4 'too large' "14: -s 2^63"
[ ! -e "$d/big14" ] || fail "14: exit 4 kept its claim: $(ls -A "$d/big14")"

# Issue 55 (10, 12, 14): the run's seed read in base 10; a --block xK
# past 1024 threads said, and with nothing left refused (it was an empty
# run, "complete", exit 0); check on many GPUs (its members are given no
# --out, which check refuses); the dry run refuses -s 2^63 as the run does.
ewb -- run $small --seed 010 -o "$d/seed55"
want 0 '' "55: --seed 010"
grep -q '"seed": 10,' "$d/seed55/run.json" ||
    fail "55: --seed 010 recorded as $(grep '"seed"' "$d/seed55/run.json")"
ewb -- run -q -v add_f32 -s 1Ki --no-cupti --iters 3 --block x8 -o "$d/x855"
want 2 'nothing left to run: add_f32: --block x8 left out' "55: --block x8 alone"
[ ! -e "$d/x855" ] || fail "55: a refused --block x8 left $(ls -A "$d/x855")"
ewb -- run -q -v add_f32,add_f16x2 -s 1Ki --no-cupti --iters 3 --warmup 1 \
    --block x8 -o "$d/x8b55"
want 0 'skipped add_f32: --block x8 left out' "55: --block x8 beside a block it fits"
grep -q '"reason": "--block x8 left out: ' "$d/x8b55/run.json" ||
    fail "55: run.json does not say why --block x8 left add_f32 out"
ewb -- check -q -v add_f32 -s 1003 --device all
want 0 '' "55: check --device all"
ewb -- run -q -v add_f32 -s 2^63 --no-cupti --dry-run
want 4 'too large to address' "55: --dry-run -s 2^63"

# Issue 35: every -v runs (the first was dropped).
ewb -- run -q -v add_f32 -v add_f16 -s 1Ki --no-cupti --iters 3 \
    --warmup 1 -o "$d/v35"
want 0 '' "35: -v add_f32 -v add_f16"
[ "$(cut -d, -f2 "$d/v35/timing.csv" | sed 1d | sort -u | tr '\n' ' ')" = \
    'add_f16 add_f32 ' ] ||
    fail "35: -v add_f32 -v add_f16 ran $(cut -d, -f2 "$d/v35/timing.csv" | sed 1d | sort -u | tr '\n' ' ')"

# Issue 32: the compile cache holds only its owner's entries, each proving
# the key it answers and what it holds; nothing the user names blocks.
kernel=${top_srcdir}/tests/gpu/kernels/add_overrun.cu
other=${top_srcdir}/tests/gpu/kernels/add_f32_off_by_one.cu
uk='-q -v add_f32 -s 1Ki --no-cupti --iters 3 --warmup 1'
cached_of() {	# "true"/"false": was the user kernel of run.json cached
	sed -n 's/^ *"cached": \(true\|false\),*$/\1/p' "$1/run.json"
}
ukrun() {	# ukrun NAME CACHE [KERNEL]: a run of a user kernel, $rc
	rm -rf "$d/$1"
	ewb XDG_CACHE_HOME="$2" -- run $uk --kernel "${3:-$kernel}" -o "$d/$1"
}
# Made 0700 and 0600 whatever the umask (it was 777 and 666 under 000).
(umask 000; ukrun c32 "$d/xdg")
want 0 '' "32: a user kernel compiled into a fresh cache"
[ "$(cached_of "$d/c32")" = false ] || fail "32: a fresh cache said cached"
entry=$(ls "$d/xdg/ewbench/"*.cubin)
[ "$(stat -c %a "$d/xdg/ewbench")" = 700 ] ||
    fail "32: the cache directory is $(stat -c %a "$d/xdg/ewbench"), not 700"
[ "$(stat -c %a "$entry")" = 600 ] ||
    fail "32: a cache entry is $(stat -c %a "$entry"), not 600"
ukrun c32 "$d/xdg"
want 0 '' "32: a user kernel from the cache"
[ "$(cached_of "$d/c32")" = true ] || fail "32: the cache was not used"
# Truncated in place, swapped for another key's entry, or a FIFO: compiled
# again, never loaded (and a FIFO never blocks).
good=$d/entry.good
cp "$entry" "$good"
head -c $(($(stat -c %s "$entry") - 100)) "$good" >"$entry"
ukrun c32 "$d/xdg"
want 0 '' "32: a truncated entry"
[ "$(cached_of "$d/c32")" = false ] || fail "32: a truncated entry was loaded"
cmp -s "$entry" "$good" || fail "32: a truncated entry was not written again"
ukrun c32o "$d/xdg" "$other"
oentry=$(ls -t "$d/xdg/ewbench/"*.cubin | head -n 1)
cp "$oentry" "$entry"
ukrun c32 "$d/xdg"
want 0 '' "32: another kernel's entry under the key"
[ "$(cached_of "$d/c32")" = false ] || fail "32: a swapped entry was loaded"
rm "$entry"
mkfifo "$entry"
ewbt XDG_CACHE_HOME="$d/xdg" -- run $uk \
    --kernel "$kernel" -o "$d/c32f"
want 0 '' "32: a FIFO under the key"
[ "$(cached_of "$d/c32f")" = false ] || fail "32: a FIFO entry said cached"
rm -f "$entry"
# A cache directory writable by others, or made by another user first
# (with an entry planted under the key), is not used: compiled, said why.
cp "$good" "$entry"
chmod 777 "$d/xdg/ewbench"
ukrun c32 "$d/xdg"
want 0 'writable by others.*not used' "32: a world-writable cache"
[ "$(cached_of "$d/c32")" = false ] || fail "32: a world-writable cache was used"
chmod 700 "$d/xdg/ewbench"
if [ "$(id -u)" != 0 ]; then
	echo "faults: 32's second-user cache not tried: not root (setpriv needs it)"
elif ! command -v setpriv >/dev/null 2>&1; then
	echo "faults: 32's second-user cache not tried: no setpriv"
else
	chmod 711 "$d"
	mkdir -m 1777 "$d/shared"
	cp "$good" "$d/shared/planted"
	chmod 644 "$d/shared/planted"
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
	    'umask 000; mkdir -p "$1/ewbench" && cp "$1/planted" "$1/ewbench/$2"' \
	    sh "$d/shared" "$(basename "$entry")" ||
	    fail "32: uid 65534 could not plant an entry"
	ukrun c32 "$d/shared"
	want 0 'owned by uid 65534.*not used' "32: another user's cache"
	[ "$(cached_of "$d/c32")" = false ] ||
	    fail "32: another user's planted entry was loaded"
fi
# A FIFO as the kernel, as a metric group: refused at once.
mkfifo "$d/fifo.cu"
ewbt -- run $uk --kernel "$d/fifo.cu" -o "$d/c32k"
want 2 'fifo.cu: not a regular file (a FIFO)' "32: a FIFO as --kernel"
# A FIFO #include'd by the kernel (NVRTC opens it itself, and blocked until
# killed): refused at once, by the kernel's directory or by a -I of
# --kernel-flags, and from a header the kernel includes; a missing one is
# NVRTC's to name.
mkdir -p "$d/inc/sub" "$d/inc/flagdir"
mkfifo "$d/inc/fifo.h" "$d/inc/flagdir/pipe.h"
printf '#include "../fifo.h"\n' >"$d/inc/sub/via.h"
n=0
for h in 'fifo.h' 'sub/via.h' 'pipe.h'; do
	n=$((n + 1))
	{ printf '#include "%s"\n' "$h"; cat "$kernel"; } >"$d/inc/k.cu"
	ewbt -- run $uk --kernel "$d/inc/k.cu" \
	    --kernel-flags "-I $d/inc/flagdir" -o "$d/c32i-$n"
	want 2 '#include "[a-z./]*": .*\(fifo\|pipe\).h: not a regular file (a FIFO)' \
	    "32: a FIFO #include'd ($h)"
	[ "$(wc -l <"$d/out")" = 1 ] ||
	    fail "32: a FIFO #include'd ($h) said more than one line: $(cat "$d/out")"
done
{ printf '#include "nosuch.h"\n'; cat "$kernel"; } >"$d/inc/k.cu"
ewbt XDG_CACHE_HOME="$d/xdg" -- run $uk --kernel "$d/inc/k.cu" -o "$d/c32i-m"
want 2 'cannot open source file "nosuch.h"' "32: a missing #include"
mkdir "$d/groups"
mkfifo "$d/groups/g.txt"
ewbt EWBENCH_METRICS_DIR="$d/groups" -- run -q \
    -v add_f32 -s 1Ki --metrics g -o "$d/c32m"
want 2 'g.txt: not a regular file (a FIFO)' "32: a FIFO as a metric group"
head -c $((17 << 20)) /dev/zero | tr '\0' ' ' >"$d/huge.cu"
ewb -- run $uk --kernel "$d/huge.cu" -o "$d/c32h"
want 2 'huge.cu: 17825792 bytes, more than the 16777216' "32: a 17 MiB .cu"

# Issue 32: what --kernel FILE:FUNCTION names, and what counts as a
# kernel.  A function the file lacks is named so (it was "cannot tell what
# nosuch computes"); a template's instance (tadd<float>) is refused as
# one, not read as part of the file's name; a __global__ in a comment or a string is no
# kernel; 400,000 __global__ tokens are scanned at once (quadratic, it
# took minutes).
cat >"$d/one.cu" <<'EOF'
// the first try: __global__ void old_add(float *c, size_t n)
/* and the second: __global__ void old_relu(float *c, size_t n) */
__device__ const char note[] = "__global__ void in_a_string(float *c)";
extern "C" __global__ void addk(const float *a, const float *b, float *c,
    size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i] + 0 * note[0];
}
EOF
cat >"$d/t.cu" <<'EOF'
template <typename T>
__global__ void tadd(const T *a, const T *b, T *c, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}
template __global__ void tadd<float>(const float *, const float *, float *,
    size_t);
EOF
ukc='check -q -v add_f32 -s 1003'
ewb XDG_CACHE_HOME="$d/xdg" -- $ukc --kernel "$d/one.cu"
want 0 '' "32: a __global__ in a comment or a string is no kernel"
ewb XDG_CACHE_HOME="$d/xdg" -- $ukc --kernel "$d/one.cu:nosuch"
want 2 'one.cu: no __global__ function nosuch in it' "32: FILE:nosuch"
ewb XDG_CACHE_HOME="$d/xdg" -- $ukc --kernel "$d/t.cu:tadd<float>"
want 2 "tadd<float> is a template's instance; FUNCTION is a C identifier" \
    "32: FILE:tadd<float>"
awk 'BEGIN { for (i = 0; i < 400000; i++) printf "__global__ "; print "" }' \
    >"$d/many.cu"
ewbt -- $ukc --kernel "$d/many.cu"
want 2 'many.cu: no __global__ function found' "32: 400,000 __global__ tokens"

# Issue 32: a file-size limit (ulimit -f) fails a write with EFBIG, as a
# full disk does: exit 1, complete rows, run.json not "running" (SIGXFSZ
# killed the run, exit 153); a compile-cache write runs uncached.
ulimited() {	# ulimited KIB ARGS: ewbench on the stand-in, $rc
	set +e
	(ulimit -f "$1"; shift; LD_PRELOAD="$STANDIN" exec "$EWBENCH" "$@") \
	    >"$d/out" 2>&1
	rc=$?
	set -e
}
ulimited 8 run -q -v 'add_f32*' -s 1Ki,2Ki,4Ki,8Ki --no-cupti --iters 2 \
    --warmup 1 -o "$d/xfsz"
want 1 'timing.csv: write: File too large' "32: ulimit -f during timing.csv"
whole_rows "$d/xfsz/timing.csv" || fail "32: ulimit -f left a half row"
[ "$(status_of "$d/xfsz/run.json")" = failed ] ||
    fail "32: ulimit -f: run.json says $(status_of "$d/xfsz/run.json")"
XDG_CACHE_HOME=$d/xdg-xfsz ulimited 6 run $uk --kernel "$kernel" \
    -o "$d/xfsz-cache"
want 0 'kernel cache: .*File too large (not cached)' "32: ulimit -f, cache write"
[ "$(cached_of "$d/xfsz-cache")" = false ] || fail "32: ulimit -f: cached"
# Output lost to a full stdout is exit 1, not 0.
set +e
"$EWBENCH" list >/dev/full 2>"$d/out"; rc=$?
set -e
want 1 'standard output: No space left on device' "32: list >/dev/full"
set +e
LD_PRELOAD="$STANDIN" "$EWBENCH" run --dry-run -v add_f32 -s 1Ki \
    >/dev/full 2>"$d/out"; rc=$?
set -e
want 1 'standard output: No space left on device' "32: run --dry-run >/dev/full"

# Issue 32: the interpreter is checked before the analysis is handed to
# it: not a Python (it exited 0 or 1 without a word, no report), a Python
# too old (a hostile ewbench/ in the working directory never runs under
# it), each said with its name.
for fake in /bin/true /bin/false; do
	ewb EWBENCH_PYTHON=$fake -- report "${top_srcdir}/tests/fixtures/h100-fixture" \
	    -o "$d/py32"
	want 1 "$fake is not a Python the analysis can run" "32: EWBENCH_PYTHON=$fake"
	[ ! -e "$d/py32" ] || fail "32: EWBENCH_PYTHON=$fake wrote $d/py32"
done
# A Python too old: a real one where this machine has one, else a stand-in
# that answers the version probe as Python 3.7 would.
old_pys=
for v in 2.7 3.6 3.7; do
	for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v"*/bin/"python$v" \
	    "$(command -v "python$v" 2>/dev/null)"; do
		! "$p" -c pass 2>/dev/null || { old_pys="$old_pys $p"; break; }
	done
done
if [ -z "$old_pys" ]; then
	printf '#!/bin/sh\necho ewbench-python 3.7\n' >"$d/python3.7"
	chmod +x "$d/python3.7"
	old_pys=$d/python3.7
	echo "faults: 32's old Python: a stand-in (no python2.7, 3.6 or 3.7 here)"
fi
mkdir -p "$d/hostile/ewbench/analysis"
echo "open('$d/hostile-ran', 'w')" >"$d/hostile/ewbench/__init__.py"
cp "$d/hostile/ewbench/__init__.py" "$d/hostile/ewbench/analysis/__main__.py"
for p in $old_pys; do
	set +e
	(cd "$d/hostile" && EWBENCH_PYTHON=$p "$EWBENCH" report \
	    "${top_srcdir}/tests/fixtures/h100-fixture" -o "$d/py32") \
	    >"$d/out" 2>&1
	rc=$?
	set -e
	want 1 "$p is Python [0-9.]*; the analysis needs Python 3.8 or later" \
	    "32: EWBENCH_PYTHON=$p"
	[ ! -e "$d/hostile-ran" ] || fail "32: $p ran the working directory's ewbench/"
	[ ! -e "$d/py32" ] || fail "32: EWBENCH_PYTHON=$p wrote $d/py32"
done

faults_passed faults
