#!/bin/sh
# tests/faults.sh - faults of the machine, without a GPU and without root:
# ewbench runs on a stand-in for the CUDA runtime (tests/faults/
# stand-in-gpu.so: every path of a run up to its files, no numbers worth
# reading) with, where a test says so, a disk that fills after N bytes
# (tests/faults/disk-full.so), signals sent at chosen phases, and claims
# raced many times.  Each test names the symptom of issue 23 it covers.
# Arrays and PIPESTATUS: bash (make check runs tests with $(SHELL)).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
# The stand-in replaces the CUDA runtime, not CUPTI: on a machine with a
# GPU, CUPTI can still open it and take its counters from a GPU test
# running beside (make -j check): hold the GPU tests' lock.
gpu_lock

# FAULTS_ALL=1 goes on past a failure, to list every symptom an older
# ewbench shows.
if [ -n "${FAULTS_ALL:-}" ]; then
	failures=0
	fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
fi

shims=$(pwd)/tests/faults
for so in stand-in-gpu disk-full; do
	[ -f "$shims/$so.so" ] || fail "$shims/$so.so missing (make check builds it)"
done
# An ASan build wants its runtime first; the shims are not instrumented.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
STANDIN="$shims/stand-in-gpu.so"
FULL="$STANDIN:$shims/disk-full.so"
d=$tmpdir
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
want() {	# want STATUS PATTERN WHAT
	[ "$rc" = "$1" ] || fail "$3: exit $rc, expected $1: $(head -c 600 "$d/out")"
	[ -z "$2" ] || grep -q -e "$2" "$d/out" ||
	    fail "$3: output lacks '$2': $(head -c 600 "$d/out")"
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

# A stop that arrives while numpy's C extension imports comes back as an
# ImportError, not KeyboardInterrupt (seen once in 50 Ctrl-C tries under
# make -j2 check): still exit 130, one line, no traceback.  A numpy that
# does what numpy does, stopped while it imports, stands in for it.
py=${PYTHON:-python3}
[ "$py" != : ] || py=python3
mkdir -p "$d/stopped-numpy/numpy"
# `ewbench report` of the fixture, with $d/stopped-numpy's numpy.
report_with_stopped_numpy() {
	set +e
	EWBENCH_PYTHON=$py PYTHONPATH="$d/stopped-numpy:$PYTHONPATH" \
	    "$EWBENCH" report "$top_srcdir/tests/fixtures/h100-fixture" \
	    -o "$d/stopped" >"$d/out" 2>&1
	rc=$?
	set -e
}
cat >"$d/stopped-numpy/numpy/__init__.py" <<'PY'
import os, signal, time
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
except KeyboardInterrupt as e:
    raise ImportError("PyCapsule_Import could not import module "
                      "\"datetime\"") from e
PY
report_with_stopped_numpy
want 130 'interrupted' "35: a stop while numpy imports"
! grep -q Traceback "$d/out" && [ "$(wc -l <"$d/out")" = 1 ] ||
    fail "35: a stop while numpy imports: $(cat "$d/out")"

# The same stop, printed first: a C extension's import_array() (numpy's
# header) calls PyErr_Print when numpy's import fails, which printed the
# KeyboardInterrupt's traceback (CI, 1 in about 100 Ctrl-C tries) before
# the ImportError came up.  PyRun_SimpleString, which prints its error
# with PyErr_Print, stands in.
cat >"$d/stopped-numpy/numpy/__init__.py" <<'PY'
import ctypes, os, signal, time
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
except KeyboardInterrupt:
    ctypes.pythonapi.PyRun_SimpleString(b"raise KeyboardInterrupt")
    raise ImportError("numpy.core.multiarray failed to import")
PY
rm -rf "$d/stopped"
report_with_stopped_numpy
want 130 'interrupted' "35: a stop printed by PyErr_Print while numpy imports"
! grep -q -e Traceback -e KeyboardInterrupt "$d/out" &&
    [ "$(wc -l <"$d/out")" = 1 ] ||
    fail "35: a stop printed by PyErr_Print: $(cat "$d/out")"

# The processes of a group still alive, a second allowed for the last to
# go.  A zombie is not one: a pyenv shim's shell leaves one behind when it
# execs Python, which init reaps once Python is gone (seen as "[bash]
# <defunct>" in 1 of 50 tries).
left_in_group() {
	local tries=10 out
	while :; do
		out=$(ps -eo pgid=,pid=,stat=,args= |
		    awk -v g="$1" '$1 == g && $3 !~ /^Z/')
		[ -n "$out" ] && [ $((tries -= 1)) -gt 0 ] || break
		sleep 0.1
	done
	echo "$out"
}

# Issue 35: Ctrl-C (SIGINT to the process group, as a shell sends it)
# during `ewbench report` exits 130 within a second, with one line, no
# traceback, no process of the group left and no temporary file, however
# it falls: before Python has started, while it imports, loads or draws
# the figures in its worker processes.  INT_TRIES tries (default 50) at
# random moments of the report of the fixture.  The median time to exit
# must be within INT_MEDIAN_MS (default 1000); a single try may take up to
# INT_BOUND_MS (default 5000: a 2-core CI machine running make -j2 check
# saw 769 ms), and one that has not exited 10 s after the signal is a hang
# (its group is killed).  The median and worst times are printed.
py=${PYTHON:-python3}
[ "$py" != : ] || py=python3
if ! command -v setsid >/dev/null 2>&1; then
	echo "faults: 35's Ctrl-C loop not run: no setsid"
elif ! "$py" -c 'import numpy, matplotlib' 2>/dev/null; then
	echo "faults: 35's Ctrl-C loop not run: $py has no numpy and matplotlib"
else
	fixture=${top_srcdir}/tests/fixtures/h100-fixture
	tries=${INT_TRIES:-50} bound=${INT_BOUND_MS:-5000}
	median_bound=${INT_MEDIAN_MS:-1000}
	worst=0 interrupted=0 early=0 started=$(date +%s%N) times=
	now_ms() { echo $(($(date +%s%N) / 1000000)); }
	# `ewbench report` of the fixture in a session of its own, in the
	# background; $pgid its group, once it has run a random 0 to 2 s.
	# setsid execs (the subshell's child leads no group): the pid
	# written is ewbench's, then Python's, and the group's.
	report_in_group() {
		rm -rf "$d/int" "$d/int.rc" "$d/int.pid"
		( set +e; EWBENCH_PYTHON=$py setsid sh -c \
		    'echo $$ >"$0"; exec "$@"' "$d/int.pid" "$EWBENCH" \
		    report "$fixture" -o "$d/int" >"$d/int.out" 2>&1
		  echo $? >"$d/int.rc" ) &
		while [ ! -s "$d/int.pid" ]; do sleep 0.005; done
		pgid=$(cat "$d/int.pid")
		sleep "0.$(printf '%03d' $((RANDOM % 1000)))"
		[ $((RANDOM % 2)) = 0 ] || sleep 1
	}
	for i in $(seq "$tries"); do
		report_in_group
		sent=$(now_ms)
		kill -INT -- "-$pgid" 2>/dev/null || true
		while [ ! -s "$d/int.rc" ] && [ $(($(now_ms) - sent)) -lt 10000 ]; do
			sleep 0.01
		done
		took=$(($(now_ms) - sent))
		if [ ! -s "$d/int.rc" ]; then
			kill -KILL -- "-$pgid" 2>/dev/null || true
			wait
			fail "35: Ctrl-C try $i: no exit 10 s after SIGINT (a hang): $(cat "$d/int.out")"
			continue
		fi
		wait
		rc=$(cat "$d/int.rc")
		[ "$took" -le "$worst" ] || worst=$took
		left=$(left_in_group "$pgid")
		[ -z "$left" ] || fail "35: Ctrl-C try $i left $left"
		! grep -q -e Traceback -e KeyboardInterrupt "$d/int.out" ||
		    fail "35: Ctrl-C try $i: a traceback: $(cat "$d/int.out")"
		[ -z "$(find "$d/int" -name '*.tmp' 2>/dev/null)" ] ||
		    fail "35: Ctrl-C try $i left $(find "$d/int" -name '*.tmp')"
		case $rc in
		130)	interrupted=$((interrupted + 1)) times="$times $took"
			# One line; or none, when the signal came before
			# ewbench's main() (its default action, as for any
			# program: seen under AddressSanitizer, whose start
			# is slow).
			[ ! -s "$d/int.out" ] && early=$((early + 1)) ||
			[ "$(grep -c interrupted "$d/int.out")" = 1 ] ||
			    fail "35: Ctrl-C try $i: not one line: $(cat "$d/int.out")"
			[ "$took" -le "$bound" ] ||
			    fail "35: Ctrl-C try $i: exit $took ms after SIGINT (bound $bound ms)" ;;
		0)	[ -s "$d/int/report.html" ] ||
			    fail "35: Ctrl-C try $i: exit 0 and no report.html" ;;
		*)	fail "35: Ctrl-C try $i: exit $rc, expected 130: $(cat "$d/int.out")" ;;
		esac
	done
	# Issue 32: SIGTERM and SIGHUP to ewbench (its pid alone, as kill
	# sends them) are Ctrl-C: exit 130, one line, no temporary file, no
	# plot worker left writing once ewbench has gone (SIGTERM was 143,
	# with the workers drawing on).
	for sig in TERM HUP TERM HUP TERM HUP; do
		report_in_group
		kill -$sig "$pgid" 2>/dev/null || true
		wait
		rc=$(cat "$d/int.rc")
		sleep 0.3
		left=$(left_in_group "$pgid")
		[ -z "$left" ] || { kill -KILL -- "-$pgid"; fail "32: SIG$sig to report left $left"; }
		[ -z "$(find "$d/int" -name '*.tmp' 2>/dev/null)" ] ||
		    fail "32: SIG$sig to report left $(find "$d/int" -name '*.tmp')"
		! grep -q -e Traceback "$d/int.out" ||
		    fail "32: SIG$sig to report: a traceback: $(cat "$d/int.out")"
		# Killed by the signal itself, saying nothing, only when it
		# came before ewbench's main() (as the Ctrl-C loop above).
		case $rc in
		130)	[ "$(grep -c interrupted "$d/int.out")" = 1 ] ||
			    fail "32: SIG$sig: not one line: $(cat "$d/int.out")" ;;
		0)	[ -s "$d/int/report.html" ] ||
			    fail "32: SIG$sig: exit 0 and no report.html" ;;
		129|143) [ ! -s "$d/int.out" ] ||
			    fail "32: SIG$sig to report: exit $rc, expected 130: $(cat "$d/int.out")" ;;
		*)	fail "32: SIG$sig to report: exit $rc, expected 130: $(cat "$d/int.out")" ;;
		esac
	done
	# A closed stdout is a quiet 130 (it was exit 1 and tracebacks).
	set +e
	EWBENCH_PYTHON=$py "$EWBENCH" report "$fixture" -o "$d/pipe-report" \
	    2>"$d/out" | true
	rc=${PIPESTATUS[0]}
	set -e
	[ "$rc" = 130 ] && [ ! -s "$d/out" ] ||
	    fail "32: report | true: exit $rc: $(cat "$d/out")"
	median=$(echo $times | tr ' ' '\n' | sort -n |
	    awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }')
	[ "$median" -le "$median_bound" ] ||
	    fail "35: Ctrl-C: median exit $median ms after SIGINT (bound $median_bound ms)"
	echo "faults: 35: $tries tries of Ctrl-C during ewbench report," \
	    "$interrupted interrupted ($early before ewbench's main; the rest" \
	    "had finished), exit" \
	    "${median} ms (median) and ${worst} ms (worst) after SIGINT," \
	    "$((($(date +%s%N) - started) / 1000000000)) s in all"
fi

# Issue 42: a stop never half-swaps an output and never kills a finished
# command, for every analysis command, whichever thread takes the signal.
# numpy's OpenBLAS starts threads whose signal mask is empty (kept alive
# here with OPENBLAS_NUM_THREADS=2); a thread of the same kind is started
# in every analysis process as well (a sitecustomize on PYTHONPATH), since
# a report's forked plot workers stop OpenBLAS's threads in the parent and
# a machine of one core has none.  tests/faults/slow.so widens each window
# deterministically: the rename of one output waits (the swap of a report,
# the write of -o), or the process's exit waits after Python's
# finalization; the signal is sent once the wait has begun.
if ! "$py" -c 'import numpy, matplotlib' 2>/dev/null; then
	echo "faults: 42's signals to the analysis not sent: $py has no numpy and matplotlib"
else
	SLOW=$shims/slow.so
	[ -f "$SLOW" ] || fail "$SLOW missing (make check builds it)"
	mkdir -p "$d/site42"
	cat >"$d/site42/sitecustomize.py" <<'PY'
import signal, threading, time
def _empty_mask():
    signal.pthread_sigmask(signal.SIG_UNBLOCK,
                           [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
    while True:
        time.sleep(60)
threading.Thread(target=_empty_mask, daemon=True).start()
PY
	fixture=${top_srcdir}/tests/fixtures/h100-fixture
	fleet=${top_srcdir}/reports/reference/fleet-nvidia-h200x2
	# A trace as `run --trace` writes one (the stand-in GPU has no CUPTI
	# activity to trace).
	cat >"$d/t42.json" <<'JSON'
{"traceEvents": [
 {"name": "run", "ph": "X", "pid": 0, "tid": 1, "ts": 0.0, "dur": 100.0,
  "cat": "ewbench", "args": {"depth": 0}},
 {"name": "add_f32 n=1Ki block=256 warm", "ph": "X", "pid": 0, "tid": 1,
  "ts": 10.0, "dur": 40.0, "cat": "ewbench", "args": {"depth": 1}},
 {"name": "ewb_add_f32", "ph": "X", "pid": 1, "tid": 13, "ts": 12.0,
  "dur": 3.0, "cat": "kernel", "args": {"variant": "add_f32"}}],
 "displayTimeUnit": "ns"}
JSON
	# analysis42 SLOW-ENV... -- ARGS: ewbench ARGS on the slow shim, in
	# the background; $pid its process once the wait began ($d/a42.mark),
	# $threads how many threads it had then.  wait42 sets $rc.
	analysis42() {
		local env=()
		while [ "$1" != -- ]; do env+=("$1"); shift; done
		shift
		rm -f "$d/a42.mark" "$d/a42.rc"
		( set +e; env EWBENCH_PYTHON="$py" MPLBACKEND=Agg \
		    OPENBLAS_NUM_THREADS=2 PYTHONPATH="$d/site42:$PYTHONPATH" \
		    LD_PRELOAD="$SLOW" EWB_SLOW_MARK="$d/a42.mark" \
		    EWB_SLOW_MS=3000 "${env[@]}" "$EWBENCH" "$@" \
		    >"$d/a42.out" 2>"$d/a42.err" &
		  echo $! >"$d/a42.pid"; wait $!; echo $? >"$d/a42.rc" ) &
		local i
		for i in $(seq 1200); do
			[ -e "$d/a42.mark" ] || [ -s "$d/a42.rc" ] && break
			sleep 0.05
		done
		pid=$(cat "$d/a42.pid")
		threads=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
	}
	wait42() {
		wait
		rc=$(cat "$d/a42.rc")
	}
	# stop42 WHAT DIR FILE ARGS...: ewbench ARGS with FILE's rename
	# slowed, and SIG$sig sent while it renames it: exit 130, one line,
	# nothing left behind in DIR (tidy42).
	stop42() {
		local what=$1 dir=$2 file=$3
		shift 3
		analysis42 EWB_SLOW_RENAME="$file" -- "$@"
		[ -e "$d/a42.mark" ] || fail "42: $what: $file never renamed: $(cat "$d/a42.err")"
		[ "$threads" -ge 2 ] || fail "42: $what: $threads thread(s) at the rename"
		kill -$sig "$pid"
		wait42
		[ "$rc" = 130 ] || fail "42: SIG$sig during $what: exit $rc: $(cat "$d/a42.err")"
		tidy42 "SIG$sig during $what" "$dir"
	}
	# The files of an output, each with a hash, in one list.
	state42() { (cd "$1" && find . -type f | sort | xargs -r md5sum); }
	sig=TERM
	next_sig() { case $sig in TERM) sig=HUP ;; HUP) sig=INT ;; *) sig=TERM ;; esac; }
	# One line, no traceback, no temporary file.
	tidy42() {	# tidy42 WHAT DIR
		[ "$(wc -l <"$d/a42.err")" = 1 ] && grep -q interrupted "$d/a42.err" &&
		    ! grep -q Traceback "$d/a42.err" ||
		    fail "42: $1: not one line: $(cat "$d/a42.err")"
		[ -z "$(find "$2" -name '*.tmp' 2>/dev/null)" ] ||
		    fail "42: $1 left $(find "$2" -name '*.tmp')"
	}
	# A signal during the swap of a report: exit 130 and the new report
	# whole (the swap, once begun, ends), or else the previous one; never
	# some of each (fleet-report's was: report.md and the figure new,
	# report.html old).
	for cmd in report fleet-report; do
		src=$fixture
		[ $cmd = report ] || src=$fleet
		out=$d/swap42-$cmd
		EWBENCH_PYTHON=$py MPLBACKEND=Agg "$EWBENCH" $cmd "$src" -o "$out" \
		    >/dev/null 2>&1 || fail "42: $cmd of $src"
		new=$(state42 "$out")
		for f in "$out"/report.md "$out"/report.html "$out"/figures/*.svg; do
			echo '<!-- previous -->' >>"$f"
		done
		old=$(state42 "$out")
		stop42 "$cmd's swap" "$out" "$out/report.md" $cmd "$src" -o "$out"
		now=$(state42 "$out")
		[ "$now" = "$new" ] || [ "$now" = "$old" ] ||
		    fail "42: SIG$sig during $cmd's swap left a mixed report: $(grep -l previous "$out"/report.* "$out"/figures/* | tr '\n' ' ')"
		[ "$(ls -A "$out" | tr '\n' ' ')" = 'figures report.html report.md ' ] ||
		    fail "42: $cmd's swap left $(ls -A "$out")"
		next_sig
	done
	# A signal while -o is renamed into place: exit 130, the file whole.
	for cmd in compare contest timeline; do
		case $cmd in
		compare)  out=$d/c42.md; args="$fixture $fixture -o $out" ;;
		contest)  out=$d/k42.md; args="$fixture -o $out" ;;
		timeline) out=$d/t42.png; args="$d/t42.json -o $out" ;;
		esac
		echo previous >"$d/previous42"
		cp "$d/previous42" "$out"
		stop42 "$cmd -o" "$d" "$out" $cmd $args
		! cmp -s "$out" "$d/previous42" && [ -s "$out" ] ||
		    fail "42: SIG$sig during $cmd -o: $out is not the new one"
		next_sig
	done
	# A signal while a finished command exits (after Python's
	# finalization): exit 0, its output as written, nothing on stderr
	# (fleet-report was killed: 143, 129, or 130 without a word).
	for cmd in fleet-report fleet-report fleet-report report compare contest timeline; do
		case $cmd in
		report)       args="$fixture -o $d/exit42-r" ;;
		fleet-report) args="$fleet -o $d/exit42-f" ;;
		compare)      args="$fixture $fixture" ;;
		contest)      args="$fixture" ;;
		timeline)     args="$d/t42.json -o $d/exit42.png" ;;
		esac
		analysis42 EWB_SLOW_EXIT=ewbench.analysis -- $cmd $args
		[ -e "$d/a42.mark" ] || fail "42: $cmd never reached its exit: $(cat "$d/a42.err")"
		[ "$threads" -ge 2 ] || fail "42: $cmd had $threads thread(s) at its exit"
		kill -$sig "$pid"
		wait42
		[ "$rc" = 0 ] && [ ! -s "$d/a42.err" ] ||
		    fail "42: SIG$sig while a finished $cmd exits: exit $rc: $(cat "$d/a42.err")"
		[ -s "$d/a42.out" ] || fail "42: $cmd printed nothing"
		next_sig
	done
	echo "faults: 42: signals during the swap, the write and the exit of" \
	    "report, fleet-report, compare, contest and timeline: handled"
fi

[ "${failures:-0}" = 0 ] || exit 1
echo "faults: every symptom's test passed"
