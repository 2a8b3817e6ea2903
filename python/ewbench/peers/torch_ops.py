"""PyTorch peer rows for a run: torch.add (fp32, fp16) and torch.relu
(fp32), timed as ewbench times its own rows, written to the run's
peer-torch.csv.  Run as `ewbench torch RUN_DIR... [--dry-run]` (or
python3 -m ewbench.analysis torch ...).

For every size and cache state of the run: allocate the operands once
(random values in [-1, 1] from the run's seed), run the op `warmup` times
untimed, then a batch of launches.  All points run inside one
torch.profiler session, which reads the GPU's own start and end of every
kernel (CUPTI activity, in this process: ewbench's CUPTI client is
another process); a one-element int16 fill before and after each batch
marks where it starts and ends in the session's record.  A batch is as
many launches as fill the run's max_time_ms (sized from the warm-up's
pace), at least min_samples, at most BATCH.  A row's time is the median
of its kernel durations, with the same 95 % interval of the median and
the same stopping rule as ewbench's rows (run.json settings.timing):
points whose interval is still wider than target_ci_pct, with samples and
time left, get another batch in another session, up to ROUNDS in all
(stop: ci, time, or cap).  PyTorch's Python launch path is never in the
time.  That path is reported apart, as the row's interval_ns: the median
start-to-start time of consecutive kernels as Python issues them.  For
cold points a buffer larger than L2 is zeroed before each launch, which
evicts the operands; its kernels are told apart by name (the first
kernel of a batch is a flush).  add writes into a preallocated
output (out=); relu has no out= form, so its output comes from PyTorch's
caching allocator, which reuses one block and adds no GPU work.  The last
output of the first batch is compared with the same op computed exactly
(see reference()), which sets the check column.

Rows follow the timing.csv schema: variant torch_add_f32, torch_add_f16,
torch_relu_f32; block and grid empty (PyTorch decides).  Points already in
timing.csv (runs from before peers/) or in peer-torch.csv are skipped.
timing.csv is never written: after each profiler session peer-torch.csv
is rewritten atomically with its old rows and the session's finished
points (peers/output.py), so an interrupted run keeps every complete row.
A sidecar peer-torch.json records the PyTorch and CUDA versions.

Only measure() and Peer touch torch; everything else is pure.

Several run directories (`ewbench torch RUN_DIR...`) are measured in one
process and one profiler session, each run's rows in its own
peer-torch.csv.  `ewbench torch --serve` keeps one process for many such
calls (serve()): it imports PyTorch once, then measures each request of
run directories read from standard input when it comes, and answers when
its rows are written; `make report` times torch.add right after each
repeat round this way, paying for the import and the CUDA context once.

Exit statuses are ewbench's (analysis/cli.py): 0 ok, 1 I/O error, 2
usage (a run directory that does not exist included), 3 bad input data
(file:line), 5 no usable GPU (no PyTorch with CUDA, or a GPU other than
the run's), 130 interrupted.
"""


import sys
import time
from dataclasses import replace

if __name__ == "__main__" and not __package__:
    # Run as a file, the package imports below cannot resolve.
    print("usage: ewbench torch RUN_DIR [--dry-run], or python3 -m "
          "ewbench.analysis torch RUN_DIR (not as a file)", file=sys.stderr)
    sys.exit(2)

import numpy as np

from ..analysis import cli
from ..analysis.core import load
from ..analysis.core.sinks import terminal
from ..analysis.core.validate import DTYPE_BYTES, DataError

from . import output
from .torch_plan import (NAME, PATH_LIMIT, ROUNDS, batch_size, distinct,
                         dry_run, nothing_to_do, plan, row_values,
                         stop_reason)

DEFAULT_FLUSH_BYTES = 256 << 20
METHOD = ("torch.profiler kernel durations (CUPTI activity), median with "
          "its 95 % interval, batches sized to the run's max_time_ms until "
          "it is within the run's target; "
          "interval_ns: Python's launch-to-launch time; add with out=; relu "
          "via the caching allocator")


class CannotRun(Exception):
    """No torch, no GPU, or the wrong GPU: nothing was measured."""


class TorchFailed(Exception):
    """PyTorch raised while it measured (a CUDA fault, out of memory):
    the rows written before it are kept."""

    def __init__(self, error):
        self.error = error
        self.out_of_memory = any(c.__name__ == "OutOfMemoryError"
                                 for c in type(error).__mro__)
        first = (str(error).strip().split("\n") or [""])[0]
        super().__init__("PyTorch failed: %s%s" % (
            type(error).__name__, ": " + first if first else ""))


# the parts that need torch and a GPU

def import_torch():
    """PyTorch, imported; no GPU is touched yet (CUDA starts on first
    use: see Peer)."""
    try:
        import torch
    except ImportError as e:
        cli.stopped(e)          # a stop while torch imported: 130, not 5
        raise CannotRun("PyTorch is not installed (%s); install torch with "
                        "CUDA support to add the reference rows" % e) from None
    return torch


def check_cuda(torch):
    """The first call that touches the GPU: PyTorch must see one."""
    if not torch.cuda.is_available():
        raise CannotRun("PyTorch %s sees no CUDA GPU" % torch.__version__)


def check_device(torch, run):
    """Refuse to mix GPUs: the run's device name must match."""
    want = run.device.get("name")
    index = run.device.get("index") or 0
    if index >= torch.cuda.device_count():
        raise CannotRun("run.json names device %d, PyTorch sees %d" % (
            index, torch.cuda.device_count()))
    have = torch.cuda.get_device_name(index)
    if want and have != want:
        raise CannotRun("this GPU is %r, the run was measured on %r" % (
            have, want))
    return index


def make_operands(torch, job):
    """(inputs, launch): random inputs on the GPU and a function that runs
    the op once and returns its output."""
    dtype = {"f32": torch.float32, "f16": torch.float16}[job.dtype]
    gen = torch.Generator(device="cuda").manual_seed(job.seed)

    def rand():
        return torch.empty(job.n, dtype=dtype, device="cuda").uniform_(
            -1, 1, generator=gen)
    if job.op == "add":
        a, b = rand(), rand()
        out = torch.empty_like(a)
        return (a, b), lambda: torch.add(a, b, out=out)
    a = rand()
    return (a,), lambda: torch.relu(a)


def reference(torch, op, inputs):
    """The op's exact result, computed on the GPU in float64 and rounded
    once to the inputs' dtype: the sum of two fp32 (or fp16) values is
    exact in float64, so this is the correctly rounded result, which is
    what torch.add must return; ReLU is exact in any precision.  (The CPU
    took seconds per point at 2^28.)"""
    wide = [x.double() for x in inputs]
    exact = torch.add(*wide) if op == "add" else torch.relu(wide[0])
    return exact.to(inputs[0].dtype)


def kernel_spans(torch, prof):
    """[(name, start ns, end ns)] of the GPU activities a profiler session
    recorded (kernels, and a flush's memset), in start order."""
    spans = []
    for e in prof.profiler.kineto_results.events():
        if e.device_type() != torch.autograd.DeviceType.CUDA:
            continue
        if hasattr(e, "start_ns"):
            start, length = e.start_ns(), e.duration_ns()
        else:                   # older torch: microseconds
            start, length = e.start_us() * 1000, e.duration_us() * 1000
        spans.append((e.name(), start, start + length))
    return sorted(spans, key=lambda s: s[1])


def marker(torch):
    """A kernel no point launches, to mark a batch's ends in the record."""
    tag = torch.zeros(1, dtype=torch.int16, device="cuda")
    return lambda: tag.fill_(1)


def batches(spans, count):
    """The spans between consecutive pairs of marker kernels (the name of
    the session's first span: every session starts with one), as [[span]]
    for `count` batches.  Anything outside the pairs (warm-ups, checks)
    is left out."""
    if not spans:
        raise CannotRun("torch.profiler recorded no kernels")
    name = spans[0][0]
    marks = [i for i, s in enumerate(spans) if s[0] == name][1:]
    if len(marks) != 2 * count:
        raise CannotRun("torch.profiler recorded %d batch markers for %d "
                        "batches" % (len(marks), count))
    return [spans[a + 1:b] for a, b in zip(marks[::2], marks[1::2])]


def run_batch(job, launch, flush, count):
    """Launch the op `count` times, flushing before each when cold; the
    last output."""
    result = None
    for _ in range(count):
        if job.cache == "cold":
            flush.zero_()
        result = launch()
    return result


def warm_up(torch, job, launch, flush):
    """The untimed launches; returns their pace in ns per launch (CUDA
    events around them, the host included)."""
    start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
    start.record()
    run_batch(job, launch, flush, job.warmup)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e6 / max(job.warmup, 1)


def empty_session(torch):
    """One profiler session around no kernel (Peer.prepare)."""
    with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CUDA]):
        torch.cuda.synchronize()


def session(torch, jobs, size, flush, check):
    """One profiler session: for each job, its operands, its warm-up, a
    marked batch of size(job, warm-up pace in ns) launches and (if check)
    the comparison of the batch's last output with the exact result.
    Returns {job: (durations, intervals, check)}."""
    mark = marker(torch)
    wanted, checks = {}, {}
    with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        mark()
        for job in jobs:
            inputs, launch = make_operands(torch, job)
            wanted[job] = size(job, warm_up(torch, job, launch, flush))
            mark()
            result = run_batch(job, launch, flush, wanted[job])
            mark()
            if check:
                same = torch.equal(result, reference(torch, job.op, inputs))
                checks[job] = "pass" if same else "fail"
            # The blocks go back to PyTorch's cache, not to the driver: a
            # freed gigabyte is scrubbed by the GPU in the background, and
            # the next point's kernels would share DRAM with that.
            del inputs, launch, result
            torch.cuda.synchronize()
    out = {}
    for job, spans in zip(jobs, batches(kernel_spans(torch, prof),
                                        len(jobs))):
        if job.cache == "cold" and spans:
            # The flush comes first; the op's kernels are the others.
            spans = [s for s in spans if s[0] != spans[0][0]]
        if len(spans) != wanted[job]:
            raise CannotRun("torch.profiler recorded %d of %d %s kernels"
                            % (len(spans), wanted[job], job.variant))
        durations = [end - start for _, start, end in spans]
        intervals = [b[1] - a[1] for a, b in zip(spans, spans[1:])] \
            if job.cache == "warm" else []
        out[job] = (durations, intervals, checks.get(job))
    return out


def measure(torch, jobs, flush, done):
    """Time the jobs: a first batch for all in one profiler session, then
    further sessions for those whose interval is still too wide, up to
    ROUNDS.  After each session, calls done([(job, durations, intervals,
    stop, check)]) with the jobs it stopped."""
    samples = {job: ([], [], None) for job in jobs}
    pending = list(jobs)
    for rounds in range(1, ROUNDS + 1):
        got = session(torch, pending, lambda job, pace: batch_size(
            job, samples[job][0], pace), flush, rounds == 1)
        finished, still = [], []
        for job in pending:
            durations, intervals, check = samples[job]
            more, more_intervals, first_check = got[job]
            samples[job] = (durations + more, intervals + more_intervals,
                            check or first_check)
            stop = stop_reason(job, samples[job][0], rounds)
            if stop:
                finished.append((job, samples[job][0], samples[job][1],
                                 stop, samples[job][2]))
            else:
                still.append(job)
        done(finished)
        pending = still
        if not pending:
            break


class Peer:
    """PyTorch in this process, set up once for every measure_runs() call
    that follows: `ewbench torch --serve` measures a study's rounds one by
    one with it, paying for the import and the CUDA context once.
    start() imports torch and touches no GPU; the first call with points
    to measure creates the CUDA context on the runs' GPU and the L2 flush
    buffer, which later calls reuse (a larger buffer replaces it when a
    run asks for more).  A point's tensors go back to PyTorch's cache,
    never to the driver (session()); release() gives the cache back
    between calls."""

    def __init__(self):
        self.torch = None
        self.index = None           # the CUDA device, once chosen
        self.flush = None           # the flush buffer, flush_bytes long
        self.flush_bytes = 0

    def start(self):
        """Import PyTorch (CannotRun without it); no GPU work."""
        if self.torch is None:
            self.torch = import_torch()
        return self.torch

    def _gpu(self, runs):
        """The GPU of the runs, made current, and a flush buffer large
        enough for each of them."""
        torch = self.start()
        if self.index is None:
            check_cuda(torch)
        for run in runs:
            index = check_device(torch, run)
            if self.index is not None and index != self.index:
                raise CannotRun("%s was measured on device %d, this "
                                "process measures on device %d" % (
                                    run.path, index, self.index))
        if self.index is None:
            torch.cuda.set_device(index)
            self.index = index
        want = max(
            int((r.manifest.get("settings") or {}).get("flush_bytes") or
                max(2 * (r.l2_bytes or 0), DEFAULT_FLUSH_BYTES))
            for r in runs)
        if want > self.flush_bytes:
            self.flush = None       # back to the cache before the new one
            self.flush = torch.empty(want, dtype=torch.uint8, device="cuda")
            self.flush_bytes = want

    def release(self):
        """After a call, before ewbench measures again: PyTorch's cached
        blocks back to the driver (the context and the flush buffer
        stay), so that ewbench finds the memory it had when each round's
        torch process exited.  The driver scrubs them in the background,
        as it did then, while the next ewbench process starts up."""
        if self.index is not None:
            try:
                self.torch.cuda.synchronize()
                self.torch.cuda.empty_cache()
            except RuntimeError as e:   # a fault the last call left
                raise TorchFailed(e) from e

    def available_bytes(self):
        """What the next points may allocate: the driver's free memory
        and the blocks PyTorch's cache holds unused (an earlier call's
        points left them there)."""
        cuda = self.torch.cuda
        free, _ = cuda.mem_get_info()
        return free + cuda.memory_reserved() - cuda.memory_allocated()

    def prepare(self, run_dirs):
        """Everything before the first point, done ahead (a `--serve`
        request `PREPARE`): the runs' GPU made current, the flush buffer,
        and one profiler session around no kernel.  The first session of a
        process starts CUPTI and Kineto: 5 to 7 s on an H200 (2026-11-29),
        which the first request would otherwise wait for.  No kernel of
        PyTorch's runs; ewbench's replays timed beside it moved by no more
        than between two runs of their own (docs/peers.md)."""
        runs = [load.load_run(d) for d in distinct(run_dirs)]
        try:
            self._gpu(runs)
            empty_session(self.torch)
        except RuntimeError as e:
            raise TorchFailed(e) from e

    def measure_runs(self, run_dirs, say=print):
        """Measure the missing points of every run directory, all in each
        profiler session of measure() (the runs in the order given, each
        run's points in plan order), and add them to each run's
        peer-torch.csv.
        Returns {run_dir: rows written}; raises CannotRun (nothing
        measured), TorchFailed (PyTorch raised; rows written before it
        are kept) or DataError."""
        run_dirs = distinct(run_dirs)
        runs = {d: load.load_run(d) for d in run_dirs}
        jobs = [replace(job, run_dir=d) for d in run_dirs for job in
                plan(runs[d])]
        written = {d: 0 for d in run_dirs}
        for d in run_dirs:
            if not any(job.run_dir == d for job in jobs):
                say(nothing_to_do(d))
        if not jobs:
            return written
        try:
            self._measure(runs, jobs, written, say)
        except RuntimeError as e:
            raise TorchFailed(e) from e
        return written

    def _measure(self, runs, jobs, written, say):
        """measure_runs' work on the GPU: each run's rows added to its
        peer-torch.csv as they finish (written counts them)."""
        run_dirs = list(runs)
        self._gpu(list(runs.values()))
        torch = self.torch
        fitting = []
        free = self.available_bytes()   # before any point allocates
        for job in jobs:
            need = (3 if job.op == "add" else 2) * job.n * \
                DTYPE_BYTES[job.dtype]
            if need > 0.9 * free:
                say("skip %s n=%d %s: needs %d bytes, %d free" % (
                    job.variant, job.n, job.cache, need, free))
            else:
                fitting.append(job)

        def done(finished):
            for d in run_dirs:
                rows = [row_values(runs[d], job, durations, intervals, stop,
                                   check)
                        for job, durations, intervals, stop, check in
                        finished if job.run_dir == d]
                if rows:
                    output.add_rows(load.peer_paths(d, NAME)[0], rows)
                    written[d] += len(rows)
            for job, durations, _, stop, check in finished:
                say("%s n=%d %s: kernel median %.2f us (%d, %s), %s" % (
                    job.variant, job.n, job.cache,
                    np.median(durations) / 1e3, len(durations), stop,
                    check))
        measure(torch, fitting, self.flush, done)
        for d in run_dirs:
            if written[d]:
                output.write_sidecar(load.peer_paths(d, NAME)[1], {
                    "torch": torch.__version__, "cuda": torch.version.cuda,
                    "device": torch.cuda.get_device_name(self.index),
                    "written_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                 time.gmtime()),
                    "rows": written[d], "flush_bytes": self.flush_bytes,
                    "method": METHOD})
                load.load_run(d)    # what we wrote must load with the run


def measure_runs(run_dirs, say=print):
    """Peer.measure_runs in a Peer of its own: `ewbench torch RUN_DIR...`.
    PyTorch is imported only when there is something to measure."""
    return Peer().measure_runs(run_dirs, say)


# serving a study's rounds: `ewbench torch --serve`

def requests(lines):
    """The run directories of each request read from lines (an iterable
    of text lines): one directory a line, a request ended by an empty
    line or by the end of the input.  An empty request is one too (its
    reply says only that it is done)."""
    dirs = []
    for line in lines:
        line = line.rstrip("\n")
        if line:
            dirs.append(line)
            continue
        yield dirs
        dirs = []
    if dirs:
        yield dirs


# A request whose first line is this asks for Peer.prepare of the run
# directories on the lines after it (no run directory is named so).
PREPARE = "--prepare"


def serve(peer, requests_in, replies):
    """Answer each request of requests_in (a text stream, requests())
    with the rows of its runs, measured by peer, as `ewbench torch
    RUN_DIR...` measures them: the lines it prints, then an empty line,
    written to replies and flushed, once every row is on disk, the GPU
    idle and PyTorch's cache given back (Peer.release).  PyTorch is
    imported before the first request is read and the GPU is first
    touched when the first request with points to measure, or a PREPARE
    request, comes, so a client can start the server while it times its
    own kernels.  A PREPARE request's answer is the empty line alone, once
    Peer.prepare is done.  Returns at the end of the input; a failure (CannotRun,
    DataError, OSError) ends it with its exception, as it ends `ewbench
    torch RUN_DIR...`."""
    def say(text):
        replies.write(text + "\n")
        replies.flush()
    peer.start()
    for run_dirs in requests(iter(requests_in.readline, "")):
        if run_dirs[:1] == [PREPARE]:
            peer.prepare(run_dirs[1:])
        elif run_dirs:
            say_written(peer.measure_runs(run_dirs, say), say)
            peer.release()
        say("")


def say_written(written, say):
    for d, rows in written.items():
        if rows:
            say("wrote %d rows to %s" % (rows, terminal(
                load.peer_paths(d, NAME)[0], PATH_LIMIT)))


# the command

DESCRIPTION = (
    "Time the kernels of torch.add (fp32, fp16) and torch.relu (fp32) at "
    "the run's sizes and cache states, with torch.profiler, as ewbench "
    "times its own, into RUN_DIR/peer-torch.csv (timing.csv is not "
    "touched).  Needs PyTorch with CUDA and the GPU the run was measured "
    "on.  Several run directories are measured in one process, in the "
    "order given.")


def make_parser(prog):
    parser = cli.Parser(prog=prog, **cli.page("torch",
                                                           DESCRIPTION))
    parser.add_argument("run_dirs", metavar="RUN_DIR", nargs="*")
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would be measured and where it "
                        "would be written; measure nothing (needs neither "
                        "PyTorch nor a GPU)")
    parser.add_argument("--serve", action="store_true",
                        help="no RUN_DIR: import PyTorch once, then read "
                        "run directories from standard input, one a line, "
                        "an empty line ending a request; measure each "
                        "request's runs when it ends and answer with the "
                        "lines RUN_DIR... would print and an empty line "
                        "(a request led by the line --prepare only readies "
                        "the GPU; docs/peers.md)")
    return parser


def parse_args(prog, argv):
    """The arguments, or SystemExit as argparse raises it."""
    parser = make_parser(prog)
    args = parser.parse_args(argv)
    if args.serve and (args.run_dirs or args.dry_run):
        parser.error("--serve reads its run directories from standard "
                     "input: no RUN_DIR, no --dry-run")
    if not args.serve and not args.run_dirs:
        parser.error("the following arguments are required: RUN_DIR")
    return args


def main(argv=None, prog="python3 -m ewbench.peers.torch_ops"):
    """The command line; prog is the command as it was typed (`ewbench
    torch` when ewbench.analysis hands it over)."""
    def say(text):
        print("%s: %s" % (prog, terminal(text, 2000)), file=sys.stderr)
    if sys.stdout is None:
        say(cli.CLOSED_STDOUT)
        return cli.EXIT_INTERRUPTED
    try:
        args = parse_args(prog, argv)
    except SystemExit as e:
        return cli.EXIT_OK if e.code in (0, None) else cli.EXIT_USAGE
    missing = cli.absent(args.run_dirs)
    if missing:
        say(missing)
        return cli.EXIT_USAGE
    try:
        if args.dry_run:
            dry_run(args.run_dirs)
            return cli.EXIT_OK
        if args.serve:
            # run directories are named in bytes, as on the command line
            sys.stdin.reconfigure(errors="surrogateescape")
            serve(Peer(), sys.stdin, sys.stdout)
            return cli.EXIT_OK
        say_written(measure_runs(args.run_dirs), print)
    except CannotRun as e:
        say("cannot run here: %s" % e)
        return cli.EXIT_NO_GPU
    except TorchFailed as e:
        say("%s; peer-torch.csv keeps its complete rows" % e)
        return cli.EXIT_NO_MEMORY if e.out_of_memory else cli.EXIT_ERROR
    except DataError as e:
        say(e)
        return cli.EXIT_DATA
    except BrokenPipeError:
        return cli.stdout_broken()
    except OSError as e:
        say(cli.os_error_text(e))
        return cli.EXIT_ERROR
    except KeyboardInterrupt:
        say("interrupted; peer-torch.csv keeps its complete rows")
        return cli.EXIT_INTERRUPTED
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
