#!/bin/sh
# tests/faults-signals.sh - a stop at a chosen moment of every analysis
# command (issue 42), without a GPU: during the swap of a report, the
# rename of -o, and the exit of a finished command, whichever thread
# takes it (tests/faults/slow.so holds each moment open).  No GPU is
# touched: no lock.
# Arrays and PIPESTATUS: bash (make check runs tests with $(SHELL)).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/tests/faults/common.sh"

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
	# $threads how many threads it had then.  send42 sends it SIG$sig
	# (the wait ends once the signal is delivered: EWB_SLOW_SENT);
	# wait42 sets $rc.
	analysis42() {
		local env=()
		while [ "$1" != -- ]; do env+=("$1"); shift; done
		shift
		rm -f "$d/a42.mark" "$d/a42.sent" "$d/a42.rc"
		( set +e; env EWBENCH_PYTHON="$py" MPLBACKEND=Agg \
		    OPENBLAS_NUM_THREADS=2 PYTHONPATH="$d/site42:$PYTHONPATH" \
		    LD_PRELOAD="$SLOW" EWB_SLOW_MARK="$d/a42.mark" \
		    EWB_SLOW_SENT="$d/a42.sent" EWB_SLOW_MS=3000 \
		    "${env[@]}" "$EWBENCH" "$@" \
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
	send42() {
		kill -$sig "$pid"
		: >"$d/a42.sent"
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
		send42
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
	# A signal while a finished command exits (after Python's
	# finalization): exit 0, its output as written, nothing on stderr
	# (fleet-report was killed: 143, 129, or 130 without a word).  First,
	# so that the swaps below start from the reports written here; each
	# stop with the signal it has always had (the swaps' and -o's five
	# stops, TERM, HUP, INT, TERM, HUP, came first).
	sig=INT
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
		send42
		wait42
		[ "$rc" = 0 ] && [ ! -s "$d/a42.err" ] ||
		    fail "42: SIG$sig while a finished $cmd exits: exit $rc: $(cat "$d/a42.err")"
		[ -s "$d/a42.out" ] || fail "42: $cmd printed nothing"
		next_sig
	done
	sig=TERM
	# A signal during the swap of a report: exit 130 and the new report
	# whole (the swap, once begun, ends), or else the previous one; never
	# some of each (fleet-report's was: report.md and the figure new,
	# report.html old).  The previous report: the one the same command
	# wrote above, run to its end under the same shims (a render of the
	# same files is the same, byte for byte).
	for cmd in report fleet-report; do
		src=$fixture prev=$d/exit42-r
		[ $cmd = report ] || src=$fleet prev=$d/exit42-f
		out=$d/swap42-$cmd
		cp -R "$prev" "$out"
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
	echo "faults: 42: signals during the swap, the write and the exit of" \
	    "report, fleet-report, compare, contest and timeline: handled"
fi

faults_passed faults-signals
