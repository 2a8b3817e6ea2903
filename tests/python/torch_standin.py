"""PyTorch and the GPU stood in for, around the real ewbench.peers.torch_ops:
plans, rows, files, the command line and `--serve`'s protocol are the
real code; only import_torch (a FakeTorch), the device check and the
measuring (every point one median, no kernel) are faked.

    python3 tests/python/torch_standin.py [--log FILE] [--no-torch] ARGS...

is `ewbench torch ARGS...` with the stand-in.  --log appends one line per
event to FILE ("torch import", "torch gpu", "torch measure begin DIRS",
"torch measure end", "torch release", "torch profiler": a prepare
request's empty session), O_APPEND writes that interleave in order with the
lines other processes append (tests/python/test_report_steps.py's
stand-in ewbench); --no-torch is a machine without PyTorch."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                "python"))

from ewbench.peers import torch_ops as tj  # noqa: E402

MEDIAN_NS = 4000.0
LOG = None


def note(text):
    """One line on the event log, if there is one."""
    if LOG:
        fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (text + "\n").encode())
        finally:
            os.close(fd)


class FakeCuda:
    def is_available(self):
        note("torch gpu")
        return True

    def set_device(self, index):
        pass

    def mem_get_info(self):
        return 1 << 40, 1 << 40

    def memory_reserved(self):
        return 0

    def memory_allocated(self):
        return 0

    def synchronize(self):
        pass

    def empty_cache(self):
        note("torch release")

    def get_device_name(self, index):
        return "NVIDIA H100 80GB HBM3"


class FakeTorch:
    __version__ = "2.5.1"
    uint8 = "uint8"
    imports = 0

    class version:
        cuda = "12.4"

    cuda = FakeCuda()

    def __init__(self):
        FakeTorch.imports += 1
        note("torch import")

    def empty(self, n, dtype, device):
        return None


def fake_measure(torch, jobs, flush, done):
    """measure() without a GPU: every job one batch of three samples."""
    note("torch measure begin %s" % " ".join(
        sorted({os.path.basename(j.run_dir) for j in jobs})))
    done([(job, [MEDIAN_NS * 0.99, MEDIAN_NS, MEDIAN_NS * 1.01],
           [20e3, 21e3], "ci", "pass") for job in jobs])
    note("torch measure end")


def no_torch():
    note("torch import failed")
    raise tj.CannotRun("PyTorch is not installed (stand-in)")


def install(setattr_, torch=True):
    """Fake the GPU parts of torch_ops with setattr_ (pytest's
    monkeypatch.setattr, or setattr)."""
    setattr_(tj, "import_torch", FakeTorch if torch else no_torch)
    setattr_(tj, "check_device", lambda torch, run: 0)
    setattr_(tj, "measure", fake_measure)
    setattr_(tj, "empty_session", lambda torch: note("torch profiler"))


def main(argv):
    global LOG
    torch = True
    while argv and argv[0] in ("--log", "--no-torch"):
        if argv[0] == "--log":
            LOG = argv[1]
            argv = argv[2:]
        else:
            torch = False
            argv = argv[1:]
    install(setattr, torch)
    return tj.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
