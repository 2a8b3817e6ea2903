"""ewbench.stops: a stop (SIGINT, SIGTERM, SIGHUP) deferred by one
mechanism that holds in every thread (issue 42, items 1 and 2).
tests/faults.sh sends the signals to the commands themselves."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from ewbench import stops
from conftest import ROOT


def thread_with_an_empty_mask():
    """A thread that takes any stop, as numpy's OpenBLAS threads do."""
    ready = threading.Event()

    def run():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops.STOPS)
        ready.set()
        time.sleep(5)
    threading.Thread(target=run, daemon=True).start()
    ready.wait()


def busy(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_a_stop_another_thread_takes_waits_for_the_deferred_block():
    # Item 1: the old swap blocked the stops in the main thread only; the
    # BLAS thread took the signal, CPython ran the handler in the main
    # thread anyway, and the swap was cut in half.
    thread_with_an_empty_mask()
    steps = []
    with stops.handling():
        with pytest.raises(KeyboardInterrupt):
            with stops.deferred():
                mask = signal.pthread_sigmask(signal.SIG_BLOCK, stops.STOPS)
                try:
                    os.kill(os.getpid(), signal.SIGTERM)
                    busy(0.3)       # the handler runs here, in this thread
                    steps.append("after the stop")
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                busy(0.05)
                steps.append("end of the block")
            steps.append("not reached")
    assert steps == ["after the stop", "end of the block"]


def test_a_stop_outside_a_deferred_block_is_one_keyboard_interrupt():
    with stops.handling():
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGHUP)
            busy(1)
        # A second stop while the first unwinds the command is noted only.
        os.kill(os.getpid(), signal.SIGINT)
        busy(0.2)
        assert stops.stopped() == signal.SIGHUP


def test_handling_restores_the_handlers_it_found():
    before = {s: signal.getsignal(s) for s in stops.STOPS}
    with stops.handling():
        assert stops.installed()
        with stops.handling():          # nested: nothing changes
            assert stops.installed()
        assert stops.installed()
    assert {s: signal.getsignal(s) for s in stops.STOPS} == before


def test_after_finish_no_stop_ends_the_process():
    # Item 2: a stop during the interpreter's exit killed a finished
    # report (143, 129, or 130 with nothing said).
    code = ("import os, signal, threading, time\n"
            "from ewbench import stops\n"
            "stops.install()\n"
            "def run():\n"
            "    signal.pthread_sigmask(signal.SIG_UNBLOCK, stops.STOPS)\n"
            "    time.sleep(5)\n"
            "threading.Thread(target=run, daemon=True).start()\n"
            "stops.finish()\n"
            "for s in stops.STOPS:\n"
            "    os.kill(os.getpid(), s)\n"
            "time.sleep(0.2)\n"
            "print('finished')\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == \
        (0, "finished\n", "")
