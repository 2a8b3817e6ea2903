# tests/setup.sh - sourced by every shell test: strict shell, C locale, a
# private temporary directory removed on exit, and the GPU probe.
set -eu
LC_ALL=C
export LC_ALL
: "${EWBENCH:?EWBENCH must name the ewbench binary (make check sets it)}"
# Absolute and links resolved, as ewbench prints its folders: make
# distcheck's is ../.., and tests change directory.
top_srcdir=$(cd "${top_srcdir:-$(dirname "$0")/..}" && pwd -P)
# The Python package (ewbench.analysis) of this source tree.
PYTHONPATH=$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONPATH
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/ewbench-test.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Exit 77 (Automake's SKIP) with the reason when no GPU is usable.  GPU
# tests then hold a lock for the rest of their life: make -j check runs
# them one at a time, since two CUPTI profilers on one GPU fail
# (CUPTI_ERROR_HARDWARE_BUSY) and two timing runs disturb each other.
require_gpu() {
	set +e
	probe=$("$EWBENCH" info 2>&1)
	rc=$?
	set -e
	case $rc in
	0)	;;
	5)	echo "SKIP: no usable GPU: $probe"; exit 77 ;;
	*)	fail "ewbench info exited $rc: $probe" ;;
	esac
	gpu_lock
}

# The GPU for the rest of this test's life (make -j check): every test
# that touches the GPU takes it, require_gpu's and those that only open
# it (mpi.sh's dry runs, tests/gpu/test-compare, which takes the same
# file in C).  A CPU busy with other tests is fine; a second context on
# the GPU is not: kernel times and CUPTI's counters are disturbed.
GPU_LOCK=${TMPDIR:-/tmp}/ewbench-gpu-tests.lock
gpu_lock() {
	if command -v flock >/dev/null 2>&1; then
		exec 9>"$GPU_LOCK"
		flock 9
	fi
}

# gpu_lock_if_gpu: gpu_lock where ewbench finds a usable GPU, for a test
# that may touch one without needing it (the stand-in tests, cli.sh,
# mpi.sh).  Without one there is nothing to share, and such tests run
# beside each other under make -j (they waited in line for a lock that
# kept nothing apart).
gpu_lock_if_gpu() {
	set +e
	"$EWBENCH" info >/dev/null 2>&1
	probe_rc=$?
	set -e
	[ "$probe_rc" = 5 ] || gpu_lock
}

# skip_when_collecting: exit 77 under EWB_PYTHON_TESTS=collect (make
# distcheck's check of the tarball: configure.ac), for a test that only
# runs Python over files the README's test command's make check has just
# tested in the tree, with the same Python.
skip_when_collecting() {
	if [ "${EWB_PYTHON_TESTS:-run}" = collect ]; then
		echo "SKIP: EWB_PYTHON_TESTS=collect (make distcheck): make check ran it on the tree"
		exit 77
	fi
}

# require_python MODULE...: $py, the Python configure found (PYTHON) or
# python3, where it imports every MODULE; else exit 77, saying why.
require_python() {
	py=${PYTHON:-python3}
	[ "$py" != ":" ] && command -v "$py" >/dev/null 2>&1 || {
		echo "SKIP: no python3 (configure found none)"; exit 77; }
	if ! missing=$("$py" -c "import $(IFS=,; echo "$*")" 2>&1); then
		echo "SKIP: python packages missing (README, Install): $missing"
		exit 77
	fi
}

# use_user_kernels: a test of `ewbench run --kernel` on the GPU
# (require_gpu): $ex (examples/), $kern (tests/gpu/kernels/), $py, and a
# private NVRTC cache (XDG_CACHE_HOME under $tmpdir).
use_user_kernels() {
	require_gpu
	ex=$top_srcdir/examples
	kern=$top_srcdir/tests/gpu/kernels
	XDG_CACHE_HOME=$tmpdir/cache
	export XDG_CACHE_HOME
	py=${PYTHON:-python3}
}

# use_standins: a test of ewbench on the stand-in CUDA runtime and NVML
# (tests/faults/, built by make check), checked with numpy: the GPU lock
# (the stand-in replaces the CUDA runtime, not CUPTI), $py, and $shims,
# the folder of the stand-ins.
use_standins() {
	gpu_lock_if_gpu
	py=${PYTHON:-python3}
	"$py" -c 'import numpy' 2>/dev/null ||
	    { echo "SKIP: python packages missing (pip install -r requirements.txt)"; exit 77; }
	shims=$(pwd)/tests/faults
	for so in stand-in-gpu.so nvml/libnvidia-ml.so.1; do
		[ -f "$shims/$so" ] || fail "$shims/$so missing (make check builds it)"
	done
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
}

# on_standins DIR [VAR=VALUE...] -- ARGS...: ewbench run ARGS -o DIR on
# both stand-ins (use_standins), each VAR=VALUE in its environment after
# theirs (LD_LIBRARY_PATH=EMPTY_DIR: no NVML at all); $rc its status, its
# output in $tmpdir/out.
on_standins() {
	standin_dir=$1
	shift
	set +e
	(
		export LD_PRELOAD="$shims/stand-in-gpu.so"
		export LD_LIBRARY_PATH="$shims/nvml${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		while [ $# -gt 0 ] && [ "$1" != -- ]; do
			export "${1?}"
			shift
		done
		[ $# -gt 0 ] && shift
		exec "$EWBENCH" run "$@" -o "$standin_dir"
	) >"$tmpdir/out" 2>&1
	rc=$?
	set -e
}
