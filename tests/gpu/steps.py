#!/usr/bin/env python3
"""tests/gpu/steps.py LABEL=LOG[:STUDY] ... - the step table of `make
report` runs side by side (tests/gpu/run-all.sh mainjob-steps): a
benchmark's report, not a test; it asserts nothing.

LOG is a run's output (scripts/report.sh prints "report: NAME in S s"
after each step, in every version); STUDY, when given and when that
version wrote one, its study directory, whose steps.json adds each step's
start, and whose parts' run.json the measuring span as the manifests
record it (first part's started_utc to the last one's finished_utc, whole
seconds).  Prints a Markdown table: each step's seconds per run, the
measuring (every step but render: their sum, and the span from
steps.json), render, and the make report wall time when the log's last
line says it ("mainjob...: exit 0, 98.5 s wall", run-all.sh's timed).
"""

import glob
import json
import os
import re
import sys
from datetime import datetime

STEP = re.compile(r"^report: (.+) in ([0-9.]+) s$")
WALL = re.compile(r"exit (\d+), ([0-9.]+) s wall")


def steps_of(log):
    """[(name, seconds)] from the log, in order."""
    out = []
    with open(log, errors="replace") as f:
        for line in f:
            m = STEP.match(line.rstrip("\n"))
            if m:
                out.append((m.group(1), float(m.group(2))))
    return out


def manifest_span(study):
    """Seconds from the first part's start to the last part's end, as
    their run.json say (whole seconds), or None."""
    starts, ends = [], []
    for path in glob.glob(os.path.join(study, "**", "run.json"),
                          recursive=True):
        try:
            doc = json.load(open(path))
            starts.append(_utc(doc["started_utc"]))
            ends.append(_utc(doc["finished_utc"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    if not starts:
        return None
    return (max(ends) - min(starts)).total_seconds()


def _utc(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


def steps_span(study):
    """The measuring span of steps.json (every step but render), or
    None."""
    try:
        doc = json.load(open(os.path.join(study, "steps.json")))
    except (OSError, ValueError):
        return None
    spans = [(s["start_s"], s["start_s"] + s["seconds"])
             for s in doc["steps"] if s["kind"] != "render"]
    return max(e for _, e in spans) - min(s for s, _ in spans) \
        if spans else None


def main(argv):
    runs = []
    for arg in argv:
        label, _, rest = arg.partition("=")
        log, _, study = rest.partition(":")
        runs.append((label, log, study or None))
    names, table = [], {}
    for label, log, _ in runs:
        for name, seconds in steps_of(log):
            if name not in names:
                names.append(name)
            table[label, name] = table.get((label, name), 0) + seconds
    labels = [label for label, _, _ in runs]
    print("| step | %s |" % " | ".join(labels))
    print("| --- | %s |" % " | ".join("---" for _ in labels))
    for name in names:
        print("| %s | %s |" % (name, " | ".join(
            "%.1f" % table[label, name] if (label, name) in table else "-"
            for label in labels)))

    def row(title, values):
        print("| %s | %s |" % (title, " | ".join(
            "-" if v is None else "%.1f" % v for v in values)))
    row("**measuring** (steps but render, summed)", [
        sum(v for (label, name), v in table.items()
            if label == lab and name != "render") for lab in labels])
    row("measuring span (steps.json)", [
        steps_span(study) if study else None for _, _, study in runs])
    row("measuring span (manifests, whole s)", [
        manifest_span(study) if study else None for _, _, study in runs])
    row("render", [table.get((label, "render")) for label in labels])
    walls = []
    for _, log, _ in runs:
        found = None
        with open(log, errors="replace") as f:
            for line in f:
                m = WALL.search(line)
                if m:
                    found = float(m.group(2))
        walls.append(found)
    row("**make report** (wall)", walls)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
