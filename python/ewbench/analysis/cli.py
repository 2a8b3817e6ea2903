"""What every command line of the package shares: `ewbench report`,
`fleet-report`, `compare`, `contest`, `timeline` and `torch` (or
`python3 -m ewbench.analysis COMMAND`).

Exit statuses have one meaning across ewbench: the same numbers as the
measuring commands (src/base/ewbench.h EWB_EXIT_*, `ewbench --help`), and 6,
which only `compare --fail-on-slower` uses, so that a script that reads 5
as "no GPU here, skip" never skips a regression.  Each command's --help
ends with its own statuses and examples (epilog); every message starts
with the command as it was typed (say); a path the command line names is
checked before anything is read (absent): one that does not exist is a
usage error, not bad data.
"""

import argparse
import glob
import os
import sys
import textwrap

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_NO_MEMORY = 4          # EWB_EXIT_NOMEM: torch ran out of GPU memory
EXIT_NO_GPU = 5             # EWB_EXIT_NODEV: torch's PyTorch has no usable GPU
EXIT_SLOWER = 6             # compare --fail-on-slower
EXIT_INTERRUPTED = 130

PROG = os.environ.get("EWBENCH_PROG", "python3 -m ewbench.analysis")

EXIT_TEXT = {
    EXIT_ERROR: "failure (an output that cannot be written: the message "
                "names it; torch: PyTorch raised, a CUDA fault)",
    EXIT_USAGE: "usage: bad command line, or a path it names that does not "
                "exist (\"no such directory\")",
    EXIT_DATA: "bad input data (the message says file:line)",
    EXIT_NO_MEMORY: "PyTorch ran out of GPU memory (its complete rows are "
                    "kept)",
    EXIT_NO_GPU: "no usable GPU: PyTorch is missing, has no CUDA, sees no "
                 "GPU, or not the run's (the message says which)",
    EXIT_SLOWER: "--fail-on-slower: some point got slower beyond the noise",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C; under ewbench also SIGTERM, "
                      "SIGHUP), or a closed stdout (one line when it was "
                      "closed from the start, quietly when a reader "
                      "left): outputs already written are whole",
}
_COMMON = (EXIT_ERROR, EXIT_USAGE, EXIT_DATA, EXIT_INTERRUPTED)
# Each command's exit statuses beyond 0, for its --help.
EXITS = {
    "report": _COMMON, "fleet-report": _COMMON,
    "compare": _COMMON + (EXIT_SLOWER,), "contest": _COMMON,
    "timeline": _COMMON, "torch": _COMMON + (EXIT_NO_MEMORY, EXIT_NO_GPU),
}
# Run directories named as ewbench names them without --out
# (ewbench-<gpu>-<UTC time>, src/run/claim.c) and a study as `make report`
# names it (reports/<gpu>-<UTC time>, scripts/report.sh).
EXAMPLES = {
    "report": ("report reports/nvidia-h100-80gb-hbm3-20261121-204512",
               "report ewbench-nvidia-h100-80gb-hbm3-20261121-204512 "
               "--ceilings ewbench-ceilings-nvidia-h100-80gb-hbm3-20261121-"
               "203958 -o h100-report"),
    "fleet-report": ("fleet-report fleet -o fleet-report",),
    "compare": ("compare runs/before runs/after",
                "compare runs/before runs/after --fail-on-slower"),
    "contest": ("contest runs/round-1 runs/round-2 runs/round-3 -o c.md",),
    "timeline": ("timeline trace.json.gz --point 'add_f32 n=1Mi' -o t.png",),
    "torch": ("torch ewbench-nvidia-h100-80gb-hbm3-20261121-204512",
              "torch --dry-run h100-article"),
}


def _once(base):
    """argparse's action `base`, refusing a second use of its option: an
    option given twice (`-o a -o b`) was taken silently, the last one
    winning."""
    class Once(base):
        def __call__(self, parser, namespace, values, option_string=None):
            given = namespace.__dict__.setdefault("_given_once", set())
            if self.option_strings and self.dest in given:
                parser.error("%s given twice; it is taken once" %
                             "/".join(self.option_strings))
            given.add(self.dest)
            super().__call__(parser, namespace, values, option_string)
    return Once


class Parser(argparse.ArgumentParser):
    """The parser of every command line of the package (its subcommands'
    too): every option is taken once."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _once(argparse._StoreAction))
        self.register("action", "store", _once(argparse._StoreAction))
        self.register("action", "store_true",
                      _once(argparse._StoreTrueAction))


WIDTH = 79                  # of a --help page's own paragraphs


def wrap(text):
    """A --help page's description, wrapped (the pages keep their epilog's
    layout, so argparse does not wrap it)."""
    return textwrap.fill(text, WIDTH)


def page(command, about):
    """The keyword arguments of a command's parser: its description and,
    after the options, its exit statuses and examples."""
    return {"description": wrap(about), "epilog": epilog([command]),
            "formatter_class": argparse.RawDescriptionHelpFormatter}


def command_name(command):
    """The command as it was typed: `ewbench report`, or `python3 -m
    ewbench.analysis report` when the package is run directly."""
    return "%s %s" % (PROG, command)


def say(command, text):
    """One line on stderr, prefixed with the command as it was typed
    (sinks.terminal: whatever the data put in it, escaped and bounded)."""
    from .core.sinks import terminal
    print("%s: %s" % (command_name(command), terminal(text, 2000)),
          file=sys.stderr)


def epilog(commands):
    """The end of a --help page: the exit statuses and examples of the
    given commands."""
    codes = sorted({c for n in commands for c in EXITS[n]})
    lines = ["exit status:", "  0    ok"]
    lines += [textwrap.fill(EXIT_TEXT[c], WIDTH, initial_indent="  %-4d " % c,
                            subsequent_indent=" " * 7) for c in codes]
    lines += ["", "examples:"]
    lines += ["  %s %s" % (PROG, e) for n in commands for e in EXAMPLES[n]]
    return "\n".join(lines) + "\n"


# Where the shipped references are: beside the package's python/ folder,
# in the source tree (reports/reference/) and in an installation alike
# ($(pkgdatadir)/reports/reference/, what `make install` copies of them).
SHIPPED_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
SHIPPED = "reports/reference/"


def shipped(path):
    """[path] when it exists (or is no shipped reference's name), else the
    shipped reference it names, reports/reference/... taken from beside
    the package, a shell pattern (round-?) expanded there; so the
    examples of --help and the README run from an installed copy, outside
    the clone."""
    if path is None or os.path.exists(path) or \
            not path.startswith(SHIPPED) or glob.glob(path):
        return [path]
    found = sorted(glob.glob(os.path.join(SHIPPED_ROOT, path)))
    return found or [path]


def absent(paths, what="directory"):
    """'PATH: no such directory' (or 'not a directory') for the first of
    paths that is not one, None when all are: a command line that names a
    missing path is a usage error (exit 2), checked before anything is
    read.  what="file": only that it exists (the file's readers say what
    else is wrong with it)."""
    for path in paths:
        if path is None:
            continue
        if not os.path.exists(path):
            return "%s: no such %s" % (path, what)
        if what == "directory" and not os.path.isdir(path):
            return "%s: not a directory" % path
    return None


def stopped(error):
    """Re-raise an import that failed because ewbench was stopped while
    it ran (a C extension stopped half-way says ImportError, not
    KeyboardInterrupt) as the interruption it is."""
    from .. import stops
    if stops.stopped() is not None:
        raise KeyboardInterrupt from error


CLOSED_STDOUT = "standard output is closed (>&-): give it a file or " \
    "/dev/null; nothing done"


def stdout_broken():
    """Standard output's reader left (`| head`): EXIT_INTERRUPTED,
    quietly, and what is still buffered for it goes to /dev/null (not a
    second error at the interpreter's exit, nor a traceback)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_INTERRUPTED


def os_error_text(e):
    """`path: what went wrong` for an OSError, without Python's [Errno N]."""
    what = e.strerror or str(e)
    if getattr(e, "filename2", None):
        return "%s -> %s: %s" % (e.filename, e.filename2, what)
    if getattr(e, "filename", None):
        return "%s: %s" % (e.filename, what)
    return what
