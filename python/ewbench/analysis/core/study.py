"""A study directory: the run directories of one `make report`.

    STUDY_DIR/
      ceilings/   ewbench ceilings          (ceilings.csv)
      article/    ewbench run --preset article --cache both (+ torch rows)
      sweep/      ewbench sweep ... --metrics residency (dense sizes, graph)
      blocks/     ewbench tune ... (block sizes 32..1024 at the tier sizes)
      stalls/     ewbench run ... -s 2^28 --cache both --metrics stalls
      repeats/    round-1/..round-3/: ewbench run ... -s 2^28 --no-counters
                  --block own,128,...,1024 (the add kernels and cub; + torch
                  rows, timed right after each round); before 2026-11-26
                  round-2/, round-3/ at the published blocks
      experiments/ ewbench run -v <study variants, probes> -s 2^28 --cache
                  warm --block own,x2,x4 --no-counters: the interventions
                  the verdicts predict (report/experiments.py)
      calibration/ residency-1/..residency-N/: ewbench run -v <the scalar
                  study variants and their probes> -s 2^28 --cache warm
                  --residency N, with the achieved occupancy: the
                  concurrency curve calibrated with the study's own
                  kernels (report/model/calibration.py); only from
                  `make report-calibrated` or scripts/calibrate.sh
      energy/     ewbench run -v <study variants, cub> -s 2^20,2^28 --cache
                  warm --no-counters --energy: the energy per byte of
                  each (energy.csv; report/energy.py); only from `make
                  report-energy`
      report/     what `ewbench report STUDY_DIR` writes
      steps.json  how long each step of `make report` took (Study.steps);
                  studies measured before 2026-12 have none

Every part but one measuring run is optional; each run is loaded with the
ceilings of ceilings/.  stalls/ lends its warp stall reasons to the
article's points of the same key (with_metrics_of); the repeat rounds
(Study.rounds) make the DRAM-tier comparison's repeats; experiments/,
like them a run that is not a part, the verdicts' experiments; energy/,
another, the report's Energy per byte; calibration/'s runs, more, lent
to every run of the study (load.Run.calibration), whose model places the
calibrated kernels on them.
A single run directory is a study of one part (`article`), so the report
code has one shape to handle.
"""

import os
import re
from dataclasses import dataclass, field, replace
from typing import Optional

from . import ceilings_cache
from . import load
from . import validate

CEILINGS = "ceilings"
ARTICLE = "article"
SWEEP = "sweep"
BLOCKS = "blocks"
STALLS = "stalls"
PARTS = (ARTICLE, SWEEP, BLOCKS, STALLS)  # the measuring runs, report order
REPEATS = "repeats"                 # REPEATS/round-*/: more runs, not a part
EXPERIMENTS = "experiments"         # a run, not a part: the interventions
ENERGY = "energy"                   # a run, not a part: energy per byte
CALIBRATION = "calibration"         # CALIBRATION/residency-N/: more runs,
CALIBRATION_RUN = "residency-"      # not a part: the calibrated curve
REPORT_DIR = "report"
# The layout, as `report --help` and the refusal of a directory that is
# not one name it.
LAYOUT = "run directories: at least one of %s/, with %s/, %s/round-N/ " \
    "and %s/ where measured" % ("/, ".join(PARTS), CEILINGS, REPEATS,
                                EXPERIMENTS)
# Where ewbench's source tree keeps the reference studies it ships, one
# folder each (reports/reference/<name>/: a study, or a fleet).
REFERENCES = "reports/reference"
STEPS = "steps.json"

# What each part is for, as the report's Method section says it.
PURPOSE = {
    ARTICLE: "the study's sizes (2^20, 2^24, 2^28), warm and cold, "
             "with counters: findings 1, 3, 4 and 6, the verdicts",
    SWEEP: "dense sizes from far below to well past the L2, graph "
           "launches, one-pass residency counters: finding 2 and the "
           "cache-tier plot",
    BLOCKS: "block sizes 32 to 1024 at the tier sizes: finding 5",
    STALLS: "the study's variants at the article's largest size, warm "
            "and cold, "
            "with their warp stall reasons, which the article's points of "
            "the same variant, size, block and cache take as theirs: the "
            "bottleneck verdicts",
}


@dataclass(frozen=True)
class Step:
    """One step of `make report` (steps.json): a part measured, a peer's
    rows, or the rendering."""
    name: str
    kind: str                   # validate.STEP_KINDS
    dirs: tuple                 # the study's folders it wrote into
    start_s: float              # from the study's start
    seconds: float
    exit_code: int = 0

    @property
    def measures(self):
        return self.kind != "render"


@dataclass(frozen=True)
class Study:
    path: str
    runs: dict = field(default_factory=dict)    # part -> load.Run
    ceilings_path: Optional[str] = None         # the run directory whose
    #                                             ceilings.csv every part uses
    repeats: tuple = ()                         # load.Run of repeats/round-*
    experiments: Optional[object] = None        # load.Run of experiments/
    steps: tuple = ()                           # Step of steps.json, in order
    energy: Optional[object] = None             # load.Run of energy/
    calibration: tuple = ()                     # load.Run of calibration/
    #                                             residency-N/, by N

    def run(self, part):
        return self.runs.get(part)

    def every_run(self):
        """[(folder, load.Run)] of every run the study holds, in the order
        `make report` measures them: the parts, experiments/, each
        repeats/round-N/, energy/, calibration/residency-N/."""
        runs = [(part, self.run(part)) for part in PARTS]
        runs.append((EXPERIMENTS, self.experiments))
        runs += [("%s/%s" % (REPEATS, os.path.basename(
            os.path.normpath(r.path))), r) for r in self.repeats]
        runs.append((ENERGY, self.energy))
        runs += [("%s/%s" % (CALIBRATION, os.path.basename(
            os.path.normpath(r.path))), r) for r in self.calibration]
        return [(folder, r) for folder, r in runs if r is not None]

    @property
    def rounds(self):
        """The DRAM-tier comparison's rounds: repeats/round-1..R when the
        study has a round-1 (since 2026-11-26: every block, each round's
        torch rows timed right after it); in earlier studies (round-2 and
        round-3 only) the article is round 1.  () without repeats."""
        if not self.repeats:
            return ()
        if not self.article_is_round_one:
            return tuple(self.repeats)
        article = self.run(ARTICLE)
        return ((article,) if article else ()) + tuple(self.repeats)

    @property
    def article_is_round_one(self):
        """The older layout: repeats without a round-1, the article
        standing in for it."""
        return bool(self.repeats) and not any(
            os.path.basename(r.path.rstrip("/")) == "round-1"
            for r in self.repeats)

    @property
    def main(self):
        """The run that describes the GPU and the study's variants:
        article when present, else the first part present."""
        for part in PARTS:
            if part in self.runs:
                return self.runs[part]
        raise ValueError("a study without runs")

    @property
    def device(self):
        return self.main.device

    @property
    def ceilings(self):
        return self.main.ceilings

    @property
    def is_fixture(self):
        return any(r.is_fixture for r in self.runs.values())

    def gpus(self):
        """part -> device uuid, for every part (ceilings included) whose
        run.json names one: parts measured on different boards of one
        model are a threat the report names."""
        out = {part: run.device.get("uuid") for part, run in
               self.runs.items() if run.device.get("uuid")}
        if self.ceilings_path:
            manifest = load.load_manifest(os.path.join(self.ceilings_path,
                                                       "run.json"))
            uuid = (manifest.get("device") or {}).get("uuid")
            if uuid:
                out[CEILINGS] = uuid
        return out

    @property
    def measuring_s(self):
        """Seconds from the first measuring step's start to the last
        one's end (steps.json), or None without steps."""
        spans = [(s.start_s, s.start_s + s.seconds) for s in self.steps
                 if s.measures]
        if not spans:
            return None
        return max(end for _, end in spans) - min(start for start, _ in
                                                  spans)

    @property
    def is_single_run(self):
        return os.path.normpath(self.main.path) == \
            os.path.normpath(self.path)


def is_run_dir(path):
    return os.path.isfile(os.path.join(path, "run.json"))


def is_study_dir(path):
    """A directory without run.json holding at least one measuring part."""
    return os.path.isdir(path) and not is_run_dir(path) and any(
        is_run_dir(os.path.join(path, part)) for part in PARTS)


def shipped_reference(path):
    """'reports/reference/<name>[/...]' when path lies in one of the
    reference folders of ewbench's source tree (known by that place: a
    copy elsewhere is the user's), else None."""
    parts = os.path.realpath(path).split(os.sep)
    top = REFERENCES.split("/")
    # The last such place: a clone may lie under another reports/reference.
    for i in reversed(range(len(parts) - len(top))):
        if parts[i:i + len(top)] == top:
            return "/".join(parts[i:])
    return None


def reference_text(path, runs, what):
    """The first words of a report rendered from a shipped reference (None
    for any other directory): that it is one, of what (what: "a study of
    one NVIDIA H100 80GB HBM3"), measured when and at which commit (the
    runs' run.json), and the folder it was rendered from, so that no
    reader takes it for a measurement of the machine that rendered it."""
    folder = shipped_reference(path)
    if folder is None:
        return None
    days = sorted({str(r.manifest.get("started_utc") or "")[:10]
                   for r in runs} - {""})
    commits = sorted({str((r.manifest.get("tool") or {}).get(
        "git_revision") or "") for r in runs} - {""})
    when = ("on %s" % days[0] if len(days) == 1 else
            "from %s to %s" % (days[0], days[-1]) if days else
            "on a date its run.json files do not give")
    at = ("at commit%s %s" % ("" if len(commits) == 1 else "s",
                              ", ".join("`%s`" % c for c in commits))
          if commits else "at a commit its run.json files do not give")
    return ("Shipped reference: %s, measured %s %s, rendered from `%s/`. "
            "A reading of the data ewbench ships, not a measurement of the "
            "machine that rendered it." % (what, when, at, folder))


def load_study(path):
    """Load every part present.  DataError when path is neither a study
    nor a run directory, or when the parts name different GPUs."""
    if not is_study_dir(path):
        raise load.DataError(path, None, "expected a study directory (%s) "
                             "or a run directory (with run.json)" % LAYOUT)
    ceilings_dir = os.path.join(path, CEILINGS)
    ceilings_from = ceilings_dir if validate.present(
        os.path.join(ceilings_dir, "ceilings.csv")) else None
    runs = {}
    for part in PARTS:
        sub = os.path.join(path, part)
        if is_run_dir(sub):
            runs[part] = load.load_run(sub, ceilings_from=ceilings_from)
    if STALLS in runs and ARTICLE in runs:
        runs[ARTICLE] = with_metrics_of(runs[ARTICLE], runs[STALLS])
    rounds = os.path.join(path, REPEATS)
    repeats = tuple(
        load.load_run(os.path.join(rounds, name),
                      ceilings_from=ceilings_from)
        for name in (sorted(os.listdir(rounds), key=_round_number)
                     if os.path.isdir(rounds) else ())
        if name.startswith("round-") and
        is_run_dir(os.path.join(rounds, name)))
    experiments, energy = (
        load.load_run(sub, ceilings_from=ceilings_from)
        if is_run_dir(sub) else None
        for sub in (os.path.join(path, EXPERIMENTS),
                    os.path.join(path, ENERGY)))
    calibration = _calibration_runs(path, ceilings_from)
    names = {r.device.get("name") for r in list(runs.values()) + list(
        repeats) + list(calibration) + [r for r in (experiments, energy)
                                        if r]}
    if len(names) > 1:
        raise load.DataError(path, None, "expected every run of a study on "
                             "one GPU model, got %s" % ", ".join(
                                 sorted(str(n) for n in names)))
    if calibration:     # every run's model reads the calibrated curve
        runs = {part: replace(r, calibration=calibration)
                for part, r in runs.items()}
        repeats = tuple(replace(r, calibration=calibration)
                        for r in repeats)
        experiments, energy = (replace(r, calibration=calibration)
                               if r else None
                               for r in (experiments, energy))
    return Study(path, runs, ceilings_from, repeats, experiments,
                 load_steps(path), energy, calibration)


def _calibration_runs(path, ceilings_from):
    """The runs of STUDY/calibration/residency-N/, by N; () without."""
    folder = os.path.join(path, CALIBRATION)
    if not os.path.isdir(folder):
        return ()
    names = [name for name in os.listdir(folder)
             if re.fullmatch(CALIBRATION_RUN + "[0-9]+", name) and
             is_run_dir(os.path.join(folder, name))]
    return tuple(load.load_run(os.path.join(folder, name),
                               ceilings_from=ceilings_from)
                 for name in sorted(names, key=lambda n: int(
                     n[len(CALIBRATION_RUN):])))


def load_steps(path):
    """The steps of STUDY/steps.json, () when it is not there."""
    steps_path = os.path.join(path, STEPS)
    if not validate.present(steps_path):
        return ()
    doc = validate.check_steps(steps_path, validate.read_text(steps_path))
    return tuple(Step(s["name"], s["kind"], tuple(s.get("dirs") or ()),
                      float(s["start_s"]), float(s["seconds"]),
                      int(s.get("exit_code") or 0)) for s in doc["steps"])


def _round_number(name):
    """Sort key of a round's folder: round-N by N (ASCII digits: str.isdigit
    also takes '²', which int() refuses), any other round-* after them,
    by name."""
    tail = name[len("round-"):]
    return (0, int(tail)) if re.fullmatch("[0-9]+", tail) else (1, name)


def with_metrics_of(run, other):
    """run with the metrics `other` measured for points run also has (same
    variant, size, block, cache and launch) and run did not measure: one
    process cannot afford every counter for every point, so a study takes
    the costly ones (warp stall reasons) in a part of their own.  The
    merged rows are attached to run's points in every launch mode again
    (load.attach_launch_modes): a graph point reads what its stream key
    gained."""
    if not other.metrics:
        return run
    keys = {p.key for p in run.points}
    merged = {key: dict(values) for key, values in (run.metrics or {}).items()}
    for key, values in other.metrics.items():
        if key in keys:
            mine = merged.setdefault(key, {})
            for name, value in values.items():
                mine.setdefault(name, value)
    load.attach_launch_modes(merged, run.points)
    return replace(run, metrics=merged)


def single_run_study(run):
    """A loaded run directory as a study of one part."""
    ceilings = os.path.dirname(run.ceilings_path) if run.ceilings_path \
        else None
    return Study(run.path, {ARTICLE: run}, ceilings)


def open_study(path, ceilings_from=None):
    """A study directory, or a run directory (with ceilings from another
    run directory, as `report --ceilings` gives; else its own; else those
    of its GPU and build in the ceilings cache, ceilings_cache.py) as a
    one-part study."""
    if is_run_dir(path):
        if ceilings_from is None and \
                not validate.present(os.path.join(path, "ceilings.csv")):
            ceilings_from = cached_ceilings(path)
        return single_run_study(load.load_run(path,
                                              ceilings_from=ceilings_from))
    return load_study(path)


def cached_ceilings(path):
    """The ceilings cache's entry for the run directory at path, or None
    (also when its run.json cannot be read: load_run says why)."""
    try:
        manifest = load.load_manifest(os.path.join(path, "run.json"))
    except load.DataError:
        return None
    return ceilings_cache.lookup(manifest)
