"""Calls run in forked worker processes, and stopped without a hang.

The report draws its figures (seconds each, in matplotlib) in parallel.
multiprocessing.Pool did it until a Ctrl-C once left `ewbench report`
hanging for good, silent (1 of about 150 tries in tests/faults.sh): the
pool's terminate() joins threads and takes locks the workers share, and a
worker stopped at the wrong moment can hold one.  Here the parent owns
everything it waits on:

- the jobs are indices written to one pipe that every worker reads
  (4-byte reads of 4-byte writes: atomic); a worker writes each result
  back on a pipe of its own, length-prefixed and pickled;
- workers are forked with SIGINT, SIGTERM and SIGHUP blocked (the
  parent defers a stop meanwhile: stops.deferred), then ignore SIGINT
  and SIGHUP (Ctrl-C and a hangup are the parent's to handle) and end at
  once on SIGTERM, removing the temporary file of a figure being written
  (atomic.remove_temporaries);
- when the parent is stopped (or anything fails) it sends SIGTERM to every
  worker, waits for them at most STOP_WAIT_S, SIGKILLs any left and reaps
  them all before the exception goes on up: none is left behind, and
  nothing can wait for good;
- a worker that dies without giving its jobs' results (the kernel's
  out-of-memory killer, a kill -9) is one line naming how it ended
  (WorkerDied), never a traceback.
"""

import os
import pickle
import select
import signal
import struct
import time
import traceback

from ... import stops
from . import atomic

STOP_WAIT_S = 2.0
_INDEX = struct.Struct("=I")
_LENGTH = struct.Struct("=Q")


def run_all(call, jobs, processes):
    """[call(job) for job in jobs], in up to `processes` forked workers
    (one by one when fewer than two would run).  A job that raises in a
    worker raises here (the first by index), after every worker has
    ended."""
    processes = min(processes, len(jobs))
    if processes < 2:
        return [call(job) for job in jobs]
    children = {}       # pid -> the read end of its result pipe (None
    #                     once closed)
    try:
        with stops.deferred():
            # Blocked in this thread, the one a fork copies: each worker
            # starts with them blocked, until it has taken them.
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, stops.STOPS)
            job_r, job_w = os.pipe()
            try:
                for _ in range(processes):
                    result_r, result_w = os.pipe()
                    pid = os.fork()
                    if pid == 0:
                        os.close(job_w)
                        os.close(result_r)
                        for fd in children.values():
                            os.close(fd)
                        _work(call, jobs, job_r, result_w)
                    os.close(result_w)
                    children[pid] = result_r
                # Every index before anyone waits on a result: the
                # workers read as the pipe fills, so no count of jobs can
                # block here.
                _write_all(job_w, b"".join(_INDEX.pack(i)
                                           for i in range(len(jobs))))
            finally:
                os.close(job_r)
                os.close(job_w)
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        results = _collect(children, len(jobs))
    except BaseException:
        _stop(children)
        raise
    failed = [i for i, (ok, _) in sorted(results.items()) if not ok]
    if failed:
        raise results[failed[0]][1]
    return [results[i][1] for i in range(len(jobs))]


def _work(call, jobs, job_r, result_w):
    """A worker: jobs from job_r until it is empty, each result to
    result_w; never returns."""
    code = 0
    try:
        stops.in_worker(_terminated)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops.STOPS)
        while True:
            raw = os.read(job_r, _INDEX.size)
            if len(raw) < _INDEX.size:
                break
            (i,) = _INDEX.unpack(raw)
            try:
                out = (i, True, call(jobs[i]))
            except Exception as e:
                out = (i, False, e)
            try:
                data = pickle.dumps(out)
            except Exception:
                data = pickle.dumps((i, False, RuntimeError(
                    "a figure's worker: %s" % traceback.format_exc())))
            _write_all(result_w, _LENGTH.pack(len(data)) + data)
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _terminated(signum):
    atomic.remove_temporaries()
    os._exit(128 + signum)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _collect(children, count):
    """{index: (ok, value)} from the workers' pipes until each is closed;
    then the workers reaped.  A worker that ended without giving its jobs'
    results leaves them missing: an error."""
    owner = {fd: pid for pid, fd in children.items()}
    ended = {}          # pid -> its wait status
    buffers = {fd: b"" for fd in owner}
    results = {}
    while buffers:
        ready, _, _ = select.select(list(buffers), [], [])
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                children[owner[fd]] = None      # closed: not again
                os.close(fd)
                del buffers[fd]
                continue
            data = buffers[fd] + chunk
            while len(data) >= _LENGTH.size:
                (size,) = _LENGTH.unpack_from(data)
                if len(data) < _LENGTH.size + size:
                    break
                i, ok, value = pickle.loads(
                    data[_LENGTH.size:_LENGTH.size + size])
                results[i] = (ok, value)
                data = data[_LENGTH.size + size:]
            buffers[fd] = data
    for pid in list(children):
        ended[pid] = os.waitpid(pid, 0)[1]
        del children[pid]
    if len(results) < count:
        raise WorkerDied(count - len(results), count, ended)
    return results


class WorkerDied(Exception):
    """Jobs whose worker ended without giving their results: the message
    is one line, saying how it ended."""

    def __init__(self, missing, count, ended):
        how = [_how_it_ended(status) for status in ended.values()
               if status != 0]
        super().__init__("%d of %d figures were not drawn: their worker "
                         "process %s" % (missing, count, "; ".join(how) or
                                         "ended without a word"))


def _how_it_ended(status):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = "signal %d" % sig
        why = " (the kernel's out-of-memory killer, or a kill -9)" \
            if sig == signal.SIGKILL else ""
        return "was killed by %s%s" % (name, why)
    return "exited with status %d" % os.WEXITSTATUS(status)


def _stop(children):
    """SIGTERM every worker, SIGKILL those alive after STOP_WAIT_S, reap
    them all; stops deferred meanwhile."""
    with stops.deferred():
        for fd in children.values():
            if fd is not None:
                os.close(fd)
        for pid in children:
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT_S
        alive = set(children)
        while alive:
            for pid in list(alive):
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    alive.discard(pid)
            if not alive:
                break
            if time.monotonic() > deadline:
                for pid in alive:
                    _signal(pid, signal.SIGKILL)
                for pid in alive:
                    os.waitpid(pid, 0)
                break
            time.sleep(0.01)
        children.clear()


def _signal(pid, sig):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
