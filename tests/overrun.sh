#!/bin/sh
# tests/overrun.sh - no store past a user kernel's output escapes its check
# (issue 31), without a GPU: ewbench runs on the GPU stand-in
# (tests/faults/stand-in-gpu.so), whose CPU model of a user kernel stores
# the op's result EWB_STANDIN_OVERRUN elements past the end (or before the
# start), reading its output in place for abs (the guard) and, for relu
# and add, inputs past their end that hold EWB_STANDIN_PAST bytes.  The
# kernels are tests/gpu/kernels' scalar overruns, compiled by NVRTC as on
# a GPU (tests/gpu/user-kernel.sh runs the same files there).
#
# For every op and dtype, aligned and --misalign:
#  - abs writing |guard| back over its guard (the tutorial's grid-stride
#    bug) is caught, naming element n + 0 and the guard: the old positive
#    poison 0x5a let it through;
#  - relu and add storing what their inputs past the end hold is caught
#    whatever that is: the old poison (which the old check missed), zero,
#    and each of the two passes' poisons (add storing 0xa5... escapes the
#    first pass and is caught by the second);
#  - a store before the start is caught;
#  - the same kernel with no overrun passes both passes (no false alarm).
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
# The stand-in replaces the CUDA runtime, not CUPTI: on a machine with a
# GPU, CUPTI can still open it and take its counters from a GPU test
# running beside (make -j check): hold the GPU tests' lock.
gpu_lock_if_gpu
STANDIN=$(pwd)/tests/faults/stand-in-gpu.so
[ -f "$STANDIN" ] || fail "$STANDIN missing (make check builds it)"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export XDG_CACHE_HOME=$tmpdir/cache
kern=$top_srcdir/tests/gpu/kernels
n=1003
checked=0

# ewb KERNEL OVERRUN PAST MISALIGN: `ewbench check` of the kernel on the
# stand-in; $rc, output in $tmpdir/out.
ewb() {
	set +e
	env LD_PRELOAD="$STANDIN" EWB_STANDIN_OVERRUN="$2" \
	    EWB_STANDIN_PAST="$3" "$EWBENCH" check --kernel "$kern/$1.cu" \
	    -v add_f32 -s $n $4 >"$tmpdir/out" 2>&1
	rc=$?
	set -e
	checked=$((checked + 1))
}
caught() {	# caught WHAT PATTERN
	[ "$rc" = 3 ] && grep -q -e "$2" "$tmpdir/out" ||
	    fail "$1: exit $rc, expected 3 and '$2': $(cat "$tmpdir/out")"
}

for k in abs_f32_stride_bug abs_f16_stride_bug relu_f32_off_by_one \
    relu_f16_off_by_one add_f32_off_by_one add_f16_off_by_one; do
	for m in '' --misalign; do
		what="$k${m:+ $m}"
		after="user:$k n=$n: wrote past the end of its output, the first at element $n (n + 0)"
		case $k in
		abs*)
			ewb $k 3 00 "$m"
			caught "$what: |guard| over the guard" \
			    "$after, .*guard after it, poisoned 0xa5, changed"
			;;
		*)
			for past in 5a 00 a5 c3; do
				ewb $k 3 $past "$m"
				# add stores 0xa5 + 0 = 0xa5 over the first
				# pass's poison: only the second sees it; relu
				# stores relu(0xa5...) = +0, seen at once.
				case $k:$past in
				add*:a5) pass=0xc3 ;;
				*) pass=0xa5 ;;
				esac
				caught "$what: inputs past the end hold 0x$past" \
				    "$after, .*poisoned $pass, changed"
			done
			;;
		esac
		ewb $k -2 5a "$m"
		caught "$what: before the start" \
		    "user:$k n=$n: wrote before the start of its output, 1 elements before element 0"
		ewb $k 0 5a "$m"
		[ "$rc" = 0 ] && grep -q "^user:$k *$n  ok" "$tmpdir/out" ||
		    fail "$what without an overrun: exit $rc: $(cat "$tmpdir/out")"
	done
done
# The article's kernel as pasted (int N): launched with a 4-byte count,
# recorded as such.
set +e
env LD_PRELOAD="$STANDIN" "$EWBENCH" run -q --kernel \
    "$top_srcdir/examples/article_add.cu:elementwise_add_f32_kernel" \
    -v add_f32 -s $n --no-cupti --iters 3 --warmup 1 -o "$tmpdir/article" \
    >"$tmpdir/out" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] && grep -q '"count": "int32"' "$tmpdir/article/run.json" ||
    fail "the article's kernel on the stand-in: exit $rc: $(cat "$tmpdir/out")"
# Its op and dtype were taken from its parameters: run.json says so.
grep -q '^ *"op_from": "parameters",$' "$tmpdir/article/run.json" &&
    grep -q '^ *"dtype_from": "parameters",$' "$tmpdir/article/run.json" ||
    fail "run.json does not say where the op came from: $(grep -A4 '"op"' "$tmpdir/article/run.json")"
# Without the build's SASS (no cuobjdump), a run says so on stderr, as
# run.json does (issue 41: silent).
sass=$("$EWBENCH" --version | sed -n "s/^kernels' SASS (sass.csv): //p")
set +e
env LD_PRELOAD="$STANDIN" "$EWBENCH" run -v add_f32 -s $n --no-cupti \
    --iters 3 --warmup 1 -o "$tmpdir/sass" >"$tmpdir/out" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || fail "a run on the stand-in: exit $rc: $(cat "$tmpdir/out")"
if [ "$sass" != recorded ]; then
	grep -q -F "\"sass\": \"$sass\"" "$tmpdir/sass/run.json" ||
	    fail "run.json's sass is not --version's '$sass': $(grep '"sass"' "$tmpdir/sass/run.json")"
	grep -q -F "ewbench: sass.csv not written: ${sass#not recorded: }" \
	    "$tmpdir/out" || fail "the run did not say sass.csv is not written: $(cat "$tmpdir/out")"
fi

# A kernel that faults (an illegal address, as the stand-in's
# EWB_STANDIN_FAULT makes its launch) ends the run with exit 1 naming the
# point at work, its size and block, and the compute-sanitizer command
# that finds the access (issue 41: it said only "cudaDeviceSynchronize:
# an illegal memory access was encountered"); run.json says failed, and
# why, in the kernel's "stopped".
set +e
env LD_PRELOAD="$STANDIN" EWB_STANDIN_FAULT=1 "$EWBENCH" run -q --kernel \
    "$kern/add_f32_off_by_one.cu" --elems-per-thread 2 --kernel-block 128 \
    --kernel-flags '-DUNUSED=1' -v add_f32 -s $n --no-cupti --iters 3 \
    --warmup 1 -o "$tmpdir/fault" >"$tmpdir/out" 2>&1
rc=$?
set -e
sanitize="compute-sanitizer --tool memcheck ewbench check --kernel $kern/add_f32_off_by_one.cu:add_f32_off_by_one --elems-per-thread 2 --kernel-flags=-DUNUSED=1 --kernel-block 128 -s $n --no-guard"
[ "$rc" = 1 ] && grep -q -F "ewbench: user:add_f32_off_by_one n=$n block 128 (check) faulted on the GPU: an illegal memory access was encountered (cudaErrorIllegalAddress). The GPU context is lost: the run stops here, its complete rows kept in $tmpdir/fault. To find the access, run it under compute-sanitizer (docs/user-kernels.md): $sanitize" \
    "$tmpdir/out" || fail "a faulting kernel: exit $rc: $(cat "$tmpdir/out")"
grep -q '^  "status": "failed",$' "$tmpdir/fault/run.json" &&
    grep -q -F "\"stopped\": \"user:add_f32_off_by_one n=$n block 128 (check) faulted on the GPU: an illegal memory access was encountered (cudaErrorIllegalAddress); find the access with: $sanitize\"" \
    "$tmpdir/fault/run.json" ||
    fail "a faulting kernel's run.json: $(grep -e '"status"' -e stopped "$tmpdir/fault/run.json")"
echo "overrun: $checked checks on the stand-in, every overrun caught; a fault named"
