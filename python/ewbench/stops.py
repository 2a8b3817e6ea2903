"""How ewbench's Python commands take a stop (SIGINT, SIGTERM, SIGHUP):
exit 130 with one line, never a traceback, never a half-swapped output,
never a finished command killed on its way out.

One mechanism, the same in every thread.  A stop's handler is Python's
own, which CPython runs in the main thread whichever thread the kernel
delivered the signal to; so blocking the stops in the main thread
(pthread_sigmask) holds nothing off once another thread runs with an
empty signal mask, as numpy's OpenBLAS threads do.  Here the handler
itself decides:

- outside `deferred()` it raises KeyboardInterrupt, once: the first stop
  unwinds the command (its workers stopped, its staging removed) and
  later ones only wait behind it;
- inside `deferred()` (an output being swapped in, a worker being
  forked) it only notes the stop, and the block's end raises it;
- after `finish()` (the command has ended) the stops are ignored, a
  disposition of the process, so that no thread takes one during the
  interpreter's exit (CPython puts the default disposition back for a
  Python handler there, and a stop then killed a finished report with
  143, 129 or a silent 130).

run_command() is what `ewbench COMMAND` runs (src/cmd/cmd-analysis.c execs
Python with the stops blocked and hands over here).  The analysis'
main() takes the stops in the same way when run as
`python3 -m ewbench.analysis` (handling()).
"""

import os
import signal
import sys

STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
INTERRUPTED = 130

_deferring = 0          # depth of deferred() blocks
_pending = False        # a stop came while deferring, not yet raised
_raised = False         # a KeyboardInterrupt for a stop is on its way up
_noted = None           # the first stop's number, or None
_action = None          # what a stop does outside deferred(): None raises


def _raise(signum):
    raise KeyboardInterrupt


def _take(signum):
    """Act on a stop (outside deferred(), none acted on yet)."""
    global _raised
    _raised = True
    (_action or _raise)(signum)


def _on_stop(signum, frame):
    global _noted, _pending
    if _noted is None:
        _noted = signum
    if _deferring:
        _pending = True
    elif not _raised:
        _take(signum)


def _again(signum, frame):
    """SIGALRM, armed by _swallowed: the stop whose KeyboardInterrupt
    was printed instead of raised, raised again outside the code that
    printed it."""
    if _noted is not None:
        _on_stop(_noted, frame)


def _swallowed(exc):
    """True when exc is a stop's KeyboardInterrupt that was printed where
    Python could not raise it (a weakref callback, a __del__, importlib's
    module locks: the unraisable hook) or by C code that prints an error
    and goes on (numpy's import_array() calls PyErr_Print, which calls
    sys.excepthook): the stop is raised again 2 ms later, from SIGALRM,
    as often as it lands there (a signal sent to itself from here came
    back here: 1 in 400 tries)."""
    global _raised
    try:
        if _noted is None or not isinstance(exc, KeyboardInterrupt):
            return False
        _raised = False
        signal.setitimer(signal.ITIMER_REAL, 0.002)
    except KeyboardInterrupt:
        _raised = False
        signal.setitimer(signal.ITIMER_REAL, 0.002)
    return True


def _unraisable(u):
    if not _swallowed(u.exc_value):
        sys.__unraisablehook__(u)


def _excepthook(kind, value, tb):
    if not _swallowed(value):
        sys.__excepthook__(kind, value, tb)


class _Deferred:
    """The stops noted, not acted on, until the outermost block ends."""

    def __enter__(self):
        global _deferring
        _deferring += 1

    def __exit__(self, *exc):
        global _deferring, _pending
        _deferring -= 1
        if not _deferring and _pending and not _raised:
            _pending = False
            _take(_noted)


_DEFERRED = _Deferred()


def deferred():
    """`with deferred():` a block no stop cuts short (re-entrant); a stop
    that came meanwhile is acted on when the outermost block ends."""
    return _DEFERRED


def installed():
    return all(signal.getsignal(s) is _on_stop for s in STOPS)


def install():
    """Take the stops (main thread only): returns what to restore(), or
    None when they were taken already."""
    global _deferring, _pending, _raised, _noted, _action
    if installed():
        return None
    saved = {s: signal.getsignal(s) for s in STOPS + (signal.SIGALRM,)}
    saved["hooks"] = sys.unraisablehook, sys.excepthook
    _deferring, _pending, _raised, _noted, _action = 0, False, False, None, \
        None
    for s in STOPS:
        signal.signal(s, _on_stop)
    signal.signal(signal.SIGALRM, _again)
    sys.unraisablehook, sys.excepthook = _unraisable, _excepthook
    return saved


def restore(saved):
    if saved is None:
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    sys.unraisablehook, sys.excepthook = saved.pop("hooks")
    for s, handler in saved.items():
        signal.signal(s, handler)


class handling:
    """`with handling():` the stops taken for the block (nothing changes
    when they are taken already, as under run_command)."""

    def __enter__(self):
        self.saved = install() if _in_main_thread() else None

    def __exit__(self, *exc):
        restore(self.saved)


def _in_main_thread():
    import threading
    return threading.current_thread() is threading.main_thread()


def in_worker(action):
    """In a forked worker: SIGTERM is the one stop, acted on by
    action(signum) (which ends the process) outside deferred(); nothing
    of the parent's state carries over."""
    global _deferring, _pending, _raised, _noted, _action
    _deferring, _pending, _raised, _noted, _action = 0, False, False, None, \
        action
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_stop)


def stopped():
    """The first stop's signal number, or None."""
    return _noted


def finish():
    """The command has ended: from here every stop is ignored, in every
    thread, through the interpreter's exit."""
    for s in STOPS + (signal.SIGALRM,):
        signal.signal(s, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 0)


def run_command(module):
    """Run module as `python -m module` runs it, for `ewbench COMMAND`
    (the stops blocked until here): a stop is exit 130 and one line; so
    is whatever a stop turned into on its way up (numpy's C extension
    stopped while it imports raises ImportError); a closed stdout is a
    quiet 130, another failure to write it exit 1 with its reason; an
    interrupted Python ends at once, without the shutdown that a C
    extension stopped half-way through its initialisation can abort.
    Every step after the module's own is inside the try that turns a
    stop into 130, up to finish(): no stop is left to land outside it."""
    import runpy
    install()
    code, closed = 0, False
    try:
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK,
                                   STOPS + (signal.SIGALRM,))
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as e:
            code = e.code
        except BrokenPipeError:
            closed = True
        except KeyboardInterrupt:
            raise
        except BaseException:
            if _noted is None:
                raise
            raise KeyboardInterrupt from None
        finish()
    except KeyboardInterrupt:
        finish()
        sys.stderr.write("ewbench: interrupted\n")
        code = INTERRUPTED
    if not closed and sys.stdout is not None:   # None: closed from the start
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            closed = True
        except OSError as e:
            sys.stderr.write("ewbench: standard output: %s\n" % e.strerror)
            code = code or 1
    if closed:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        sys.exit(INTERRUPTED)
    if _noted is not None and code == INTERRUPTED:
        sys.stderr.flush()
        os._exit(INTERRUPTED)
    sys.exit(code)
