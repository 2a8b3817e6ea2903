"""workers.run_all: the figures' worker processes, and how they stop."""

import os
import signal
import threading
import time

import pytest

from ewbench.analysis.core import workers


def square(x):
    return x * x


def fail_on_three(x):
    if x == 3:
        raise ValueError("three")
    return x


def test_results_come_back_in_job_order():
    assert workers.run_all(square, list(range(40)), 4) == \
        [x * x for x in range(40)]
    # one worker: no fork at all
    assert workers.run_all(square, [7], 4) == [49]


def test_a_failing_job_raises_its_own_exception_after_every_worker_ended():
    with pytest.raises(ValueError, match="three"):
        workers.run_all(fail_on_three, list(range(8)), 3)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)      # no child left to reap


def sleep_long(x):
    time.sleep(60)
    return x


def test_a_stop_ends_every_worker_at_once():
    """Ctrl-C while the workers draw: KeyboardInterrupt here within a
    second or two (a worker ignoring SIGTERM would be killed after
    STOP_WAIT_S), no worker left, no hang (a Pool's terminate() once
    hung here for good)."""
    # Ctrl-C as a terminal delivers it, whatever this process inherited
    # (a shell's background job starts with SIGINT ignored).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            workers.run_all(sleep_long, list(range(4)), 4)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 0.5 + workers.STOP_WAIT_S + 1
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)
