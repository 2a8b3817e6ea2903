"""ewbench {report,fleet-report,compare,contest,timeline,torch} ... (the
same as python3 -m ewbench.analysis ...): the command line of the package,
one function per command.  `torch` is handed to peers.torch_ops, whose
command line it is; the analysis itself never imports peers/.

Exit statuses (cli.py: one meaning each, across ewbench):
  0  ok
  1  unexpected failure (I/O error writing the output, ...: the message
     names the file); every output is written atomically, so a failure
     leaves the previous file whole
  2  usage: bad command line, or a path it names that does not exist
     ("no such directory")
  3  bad input data: the message says file:line and what was expected
  5  torch: no usable GPU (no PyTorch with CUDA, or not the run's GPU)
  6  compare --fail-on-slower: some point got slower beyond the noise
  130  interrupted (Ctrl-C, SIGTERM, SIGHUP), or a closed stdout (one
     line when closed from the start, quietly when its reader left):
     outputs already written are whole, the one being written is left
     as it was
"""

import argparse
import math
import os
import sys

from . import cli
from .cli import (EXIT_DATA, EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK,
                  EXIT_SLOWER, EXIT_USAGE, PROG, os_error_text, say, stopped)


def positive_int(text):
    """argparse type: an integer > 0 (decimal, or 0x.. hex)."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError("expected an integer, got %r" %
                                         text) from None
    if value <= 0:
        raise argparse.ArgumentTypeError("expected a positive integer, got "
                                         "%r" % text)
    return value


def positive_float(text):
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a number, got %r" %
                                         text) from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError("expected a positive finite "
                                         "number, got %r" % text)
    return value


def make_parser():
    from .core import study
    parser = cli.Parser(
        prog=PROG, description="Analyse ewbench run directories "
        "(docs/analysis.md).", epilog=cli.epilog(list(cli.EXITS)),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser(
        "report", help="plots, verdicts, findings: report.md + report.html",
        **cli.page("report", "Write OUTDIR/report.md, OUTDIR/report.html "
                   "(self-contained) and OUTDIR/figures/*.svg for a study "
                   "directory (as `make report` writes it; %s) or for one "
                   "run directory (with run.json); with an experiments "
                   "run, or a user's kernel with a change measured (its "
                   "block xK, its cause's fix by a generated member), "
                   "OUTDIR/predictions.csv (every change predicted "
                   "beside measured) and OUTDIR/model-error.csv (the "
                   "model's error per lever, over the study's).  OUTDIR must be new, "
                   "empty or hold a previous report: a file this command "
                   "did not write there is refused, never replaced.  "
                   "Without -o, a directory inside a shipped reference "
                   "(under %s/) is refused: ewbench keeps those as measured "
                   "and rendered." % (study.LAYOUT, study.REFERENCES)))
    p.add_argument("run_dir", metavar="STUDY_DIR|RUN_DIR")
    p.add_argument("-o", "--out", metavar="OUTDIR",
                   help="output directory (default: STUDY_DIR/report or "
                   "RUN_DIR/report)")
    p.add_argument("--ceilings", metavar="DIR",
                   help="for a run directory: take ceilings.csv from this "
                   "run directory (one written by `ewbench ceilings`) "
                   "instead of RUN_DIR (a study uses its ceilings/)")

    p = sub.add_parser(
        "fleet-report", aliases=["fleet"],
        help="the GPUs of a fleet side by side, outliers with "
        "their clocks: report.md + report.html",
        **cli.page("fleet-report", "Write OUTDIR/report.md, "
                   "OUTDIR/report.html and OUTDIR/figures/fleet_deviation.svg "
                   "for a fleet directory (one run directory per GPU, "
                   "<host>-gpu<N>/ or <host>-rank<R>/, and optionally "
                   "fleet.json) or a fleet study (ceilings/ and run/ of such "
                   "member directories).  OUTDIR must be new, empty or hold a "
                   "previous fleet report; without -o, a shipped reference "
                   "(under %s/) is refused." % study.REFERENCES))
    p.add_argument("fleet_dir", metavar="PARENT")
    p.add_argument("-o", "--out", metavar="OUTDIR",
                   help="output directory (default: PARENT/report)")

    p = sub.add_parser(
        "compare", help="two runs side by side, changes beyond the noise",
        **cli.page("compare", "Compare matching points of two runs; print "
                   "Markdown."))
    p.add_argument("run_a", metavar="RUN_A")
    p.add_argument("run_b", metavar="RUN_B")
    p.add_argument("-o", "--out", metavar="FILE",
                   help="also write the Markdown to FILE")
    p.add_argument("--fail-on-slower", action="store_true",
                   help="exit %d when any point got slower beyond the "
                   "noise" % EXIT_SLOWER)

    p = sub.add_parser(
        "contest", help="fastest add kernel per size tier over repeats, "
        "margins against cub and torch beyond the repeat-to-repeat spread",
        **cli.page("contest", "Read R run directories that are interleaved "
                   "repeats of one plan (PyTorch rows from `ewbench torch`); "
                   "print Markdown: per (dtype, n, cache, launch) the add "
                   "kernels ranked by median bandwidth over the runs against "
                   "cub and torch, the margin of the best over the faster "
                   "peer and whether it is beyond the round-to-round spread "
                   "(the noise rule, docs/analysis.md)."))
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    p.add_argument("-o", "--out", metavar="FILE",
                   help="also write the output to FILE")
    p.add_argument("--json", action="store_true",
                   help="print JSON (every number, per-run bandwidths "
                   "included) instead of Markdown, e.g. for "
                   "scripts/contest-goals.py")

    # Listed here; its command line is peers.torch_ops's (main() hands it
    # over before this parser reads anything).
    p = sub.add_parser("torch", help="time torch.add and torch.relu beside "
                       "runs (needs PyTorch and the run's GPU): "
                       "RUN_DIR/peer-torch.csv", add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)

    p = sub.add_parser(
        "timeline", help="picture of a window of an ewbench --trace file",
        **cli.page("timeline", "Draw host NVTX ranges and GPU kernels of "
                   "one point's range (first match) of a trace written by "
                   "`ewbench run --trace`."))
    p.add_argument("trace", metavar="TRACE.json[.gz]")
    p.add_argument("--point", default="", metavar="PREFIX",
                   help="NVTX range name prefix of the point, e.g. "
                   "'add_f32 n=1Mi' (default: the first range)")
    p.add_argument("--span", type=positive_float, metavar="US",
                   help="show only the first US microseconds of the range "
                   "(a positive number)")
    p.add_argument("-o", "--out", required=True, metavar="PNG",
                   help="the picture: .png, .svg or .pdf; a name without "
                   "an extension gets .png")
    # Each command's own parser, for an argument it does not take
    # (parse_command).
    parser.command_parsers = sub.choices
    return parser


def parse_command(parser, argv):
    """parser.parse_args(argv), but an argument the command does not
    take is refused with the command's usage, not the overview's (argparse
    hands a subcommand's unknown arguments to the top parser)."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        parser.command_parsers[args.command].error(
            "unrecognized arguments: %s" % " ".join(unknown))
    return args


def output_dir(args, source, name, unclaimed):
    """-o, else source/name; None (said why) when that default lies in a
    reference folder ewbench ships (study.shipped_reference), which no
    command writes into unasked: rendering it again takes an -o; None
    (said why) too when unclaimed(outdir) says why the folder is not the
    command's to write into."""
    from .core import study
    outdir = args.out
    if not outdir:
        reference = study.shipped_reference(source)
        if reference:
            say(args.command, "will not write %s/ into %s/ by default: it "
                "is a reference ewbench ships, kept as measured and "
                "rendered; give -o OUTDIR" % (name, reference))
            return None
        outdir = os.path.join(source, name)
    why = unclaimed(outdir)
    if why:
        say(args.command, "will not write into %s: %s" % (outdir, why))
        return None
    return outdir


def needs_matplotlib(args, what, error):
    """Says that `what` needs matplotlib, whose import failed with error
    (an interruption stays one); EXIT_ERROR."""
    stopped(error)
    say(args.command, "%s needs matplotlib (%s); pip install -r "
        "requirements.txt" % (what, error))
    return EXIT_ERROR


def cmd_report(args):
    from .report import page as report
    from .core import load
    from .core import study
    try:
        from .report import plots
    except ImportError as e:
        return needs_matplotlib(args, "report", e)
    if args.ceilings and study.is_study_dir(args.run_dir):
        say(args.command, "--ceilings is for a run directory; a study "
            "directory uses its ceilings/")
        return EXIT_USAGE
    outdir = output_dir(args, args.run_dir, study.REPORT_DIR,
                        report.unclaimed)
    if outdir is None:
        return EXIT_USAGE
    from .fleet import members as fleet
    if not study.is_study_dir(args.run_dir) and (
            fleet.is_fleet_dir(args.run_dir) or
            fleet.is_fleet_study(args.run_dir)):
        raise load.DataError(args.run_dir, None, "expected a study or a run "
                             "directory, got a fleet (one run directory per "
                             "GPU): use `ewbench fleet-report %s`" %
                             args.run_dir)
    loaded = study.open_study(args.run_dir, ceilings_from=args.ceilings)
    md, html, judged = report.write_report(loaded, outdir, plots.plot_study)
    print("wrote %s" % md)
    print("wrote %s" % html)
    for f in judged:
        print("finding %d: %s" % (f.number, f.verdict))
    return EXIT_OK


def cmd_fleet(args):
    from .fleet import members as fleet
    from .fleet import answers as fleet_answers
    from .fleet import page as fleet_report
    try:
        from .fleet import plots as fleet_plots
    except ImportError as e:
        return needs_matplotlib(args, "fleet", e)
    outdir = output_dir(args, args.fleet_dir, fleet.REPORT_DIR,
                        lambda d: fleet_report.unclaimed(d, args.fleet_dir))
    if outdir is None:
        return EXIT_USAGE
    judged = fleet_answers.judge(fleet.open_fleet(args.fleet_dir))
    md, html = fleet_report.write_report(judged, outdir,
                                         fleet_plots.plot_fleet)
    print("wrote %s" % md)
    print("wrote %s" % html)
    from .core.sinks import terminal
    for m in judged.outlier_members:
        print("outlier: %s" % terminal(m.name))
    for f in judged.fleet.failed:
        print("%s: %s: %s" % (f.status, terminal(f.name), terminal(f.reason)))
    for m in judged.fleet.members:
        if m.status == fleet.INTERRUPTED:
            print("interrupted: %s: its %d complete rows are used" %
                  (terminal(m.name), len(m.run.points)))
    return EXIT_OK


def cmd_compare(args):
    from .core import atomic
    from .core import compare
    from .core import load
    from .core import study
    for path in (args.run_a, args.run_b):
        if study.is_study_dir(path):
            raise load.DataError(path, None, "expected a run directory "
                                 "(with run.json), got a study: compare "
                                 "one part of each, e.g. `ewbench compare "
                                 "%s %s`" % _same_part(args.run_a,
                                                       args.run_b))
    run_a = load.load_run(args.run_a)
    run_b = load.load_run(args.run_b)
    result = compare.compare_runs(run_a, run_b)
    text = compare.render_markdown(result, run_a, run_b)
    sys.stdout.write(text)
    if args.out:
        atomic.write_text(args.out, text)
    slower = any(c.flag == compare.SLOWER for c in result.changes)
    return EXIT_SLOWER if args.fail_on_slower and slower else EXIT_OK


def _same_part(a, b):
    """(a, b) with each study among them replaced by its first part
    (article/, sweep/, ...) that both then name as run directories, else
    by its article/."""
    from .core import study

    def part_of(path, part):
        return path if study.is_run_dir(path) else os.path.join(path, part)
    for part in study.PARTS:
        pair = (part_of(a, part), part_of(b, part))
        if all(study.is_run_dir(p) for p in pair):
            return pair
    return part_of(a, study.ARTICLE), part_of(b, study.ARTICLE)


def cmd_contest(args):
    import json

    from .core import atomic
    from .contest import rank as contest
    from .contest import page as contest_report
    from .core import load
    runs = [load.load_run(d) for d in args.run_dirs]
    _, notes, found = contest.analyse(runs)
    if args.json:
        text = json.dumps(contest_report.to_json(runs, notes, found),
                          indent=1) + "\n"
    else:
        text = contest_report.render_markdown(runs, notes, found)
    sys.stdout.write(text)
    if args.out:
        atomic.write_text(args.out, text)
    return EXIT_OK


# Picture formats `timeline -o` writes: matplotlib writes these with no
# further program (pgf needs LaTeX, for one).
PICTURE_FORMATS = ("png", "svg", "pdf")


def picture_path(out):
    """The file name the timeline is written to: `out` with .png appended
    when it has no extension (what matplotlib would do unasked), or None
    when its extension is not one of PICTURE_FORMATS."""
    extension = os.path.splitext(out)[1]
    if extension in ("", "."):
        return out.rstrip(".") + ".png"
    if extension[1:].lower() not in PICTURE_FORMATS:
        return None
    return out


def cmd_timeline(args):
    from .report import plots
    from . import timeline
    out = picture_path(args.out)
    if out is None:
        say(args.command, "cannot write %r: expected a name ending in %s, "
            "or no extension (.png is added)" % (
                args.out, ", ".join("." + f for f in PICTURE_FORMATS)))
        return EXIT_USAGE
    with timeline.collector_paused():
        events = timeline.read_trace(args.trace)
        window = timeline.point_window(events, args.point)
        if window is None:
            say(args.command, "no NVTX range starts with %r" % args.point)
            return EXIT_USAGE
        if args.span is not None:
            window = (window[0], min(window[1], window[0] + args.span))
        shown = timeline.in_window(events, *window)
        plots.plot_timeline(shown, window, out, "%s: %s, %.0f µs" % (
            os.path.basename(args.trace), args.point or "first range",
            window[1] - window[0]))
    print("wrote %s" % out)
    return EXIT_OK


COMMANDS = {"report": cmd_report, "compare": cmd_compare,
            "contest": cmd_contest, "timeline": cmd_timeline}
COMMANDS["fleet"] = COMMANDS["fleet-report"] = cmd_fleet


def named_paths(args):
    """(paths, "directory" or "file"): what the command line names to read."""
    if args.command == "report":
        return [args.run_dir, args.ceilings], "directory"
    if args.command in ("fleet", "fleet-report"):
        return [args.fleet_dir], "directory"
    if args.command == "compare":
        return [args.run_a, args.run_b], "directory"
    if args.command == "contest":
        return args.run_dirs, "directory"
    return [args.trace], "file"


def take_shipped(args):
    """The paths args names, each reports/reference/... that is not here
    taken from the shipped references (cli.shipped)."""
    for name in ("run_dir", "ceilings", "fleet_dir", "run_a", "run_b",
                 "trace"):
        if getattr(args, name, None) is not None:
            setattr(args, name, cli.shipped(getattr(args, name))[0])
    if getattr(args, "run_dirs", None):
        args.run_dirs = [p for d in args.run_dirs for p in cli.shipped(d)]


def main(argv=None):
    from .. import stops
    from .core.validate import DataError
    argv = sys.argv[1:] if argv is None else list(argv)
    if sys.stdout is None and argv[:1] != ["torch"]:
        say(argv[0] if argv else "", cli.CLOSED_STDOUT)
        return EXIT_INTERRUPTED
    if argv[:1] == ["torch"]:
        # PyTorch's peer: its own command line, whatever follows.
        from ..peers import torch_ops
        return torch_ops.main(argv[1:], cli.command_name("torch"))
    from .core.workers import WorkerDied
    parser = make_parser()
    try:
        args = parse_command(parser, argv)
    except SystemExit as e:
        return EXIT_OK if e.code in (0, None) else EXIT_USAGE
    take_shipped(args)
    missing = cli.absent(*named_paths(args))
    if missing:
        say(args.command, missing)
        return EXIT_USAGE
    try:
        with stops.handling():      # SIGTERM, SIGHUP as Ctrl-C: 130
            return COMMANDS[args.command](args)
    except DataError as e:
        say(args.command, e)
        return EXIT_DATA
    except WorkerDied as e:
        say(args.command, e)
        return EXIT_ERROR
    except ModuleNotFoundError as e:
        if e.name not in ("numpy", "matplotlib"):
            raise
        stopped(e)
        say(args.command, "%s has no %s: apt-get install python3-numpy "
            "python3-matplotlib, or pip install -r requirements.txt in a "
            "virtual environment (EWBENCH_PYTHON names the interpreter)"
            % (sys.executable, e.name))
        return EXIT_ERROR
    except BrokenPipeError:
        return cli.stdout_broken()
    except OSError as e:
        say(args.command, os_error_text(e))
        return EXIT_ERROR
    except KeyboardInterrupt:
        say(args.command, "interrupted; outputs written so far are whole")
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
