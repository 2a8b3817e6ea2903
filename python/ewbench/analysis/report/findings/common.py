"""What every finding shares: the verdicts, the Spec each finding's
module declares (its number, claims, counter needs and judge), the
Finding a judge returns, the context of a study it judges (one Context
per part, computed once) and the helpers several findings use.  Each
finding is a module beside this one; registry.FINDINGS lists their specs
in order.  Nothing here looks a finding up: a judge makes its Finding
through its own spec."""

from dataclasses import dataclass, field, replace
from typing import Callable

from .. import experiments, model
from ...core import select as sel
from ...core import study as stu

HOLDS = "holds"
FAILS = "does not hold"
UNTESTABLE = "not testable with this data"
# A deciding number within the noise of its threshold: the finding says
# so, and what would decide it, rather than a verdict another machine
# could flip.
BORDERLINE = "borderline"
TORCH_PREFIX = "torch_"


@dataclass(frozen=True)
class Finding:
    number: int
    claim: str
    verdict: str
    numbers: tuple          # ((label, value text), ...)
    explanation: str
    deciding: str = ""      # the number that decides it, one line
    part: str = ""          # the study part it was judged on
    regimes: str = ""       # where the answer differs by regime: which
    #                         holds and which does not, for the verdict cell
    short_claim: str = ""   # the claim in a table cell


@dataclass(frozen=True)
class Spec:
    """A finding as the registry lists it, declared once in its module."""
    number: int
    claim: str
    short_claim: str        # the claim in a table cell
    needs: tuple            # (uses.Use, ...): what it reads of metrics.csv,
    #                         for unmeasured.USES
    judge: Callable         # StudyContext -> Finding

    def finding(self, verdict, numbers, explanation, deciding="", part="",
                regimes=""):
        """The Finding of this spec's judge."""
        return Finding(self.number, self.claim, verdict, tuple(numbers),
                       explanation, deciding, part, regimes,
                       self.short_claim)


@dataclass(frozen=True)
class Context:
    """What every judge needs of one run, computed once."""
    run: object
    points: tuple           # primary-block points with a passing check
    fits: dict
    verdicts: dict          # point key -> model.Verdict


@dataclass(frozen=True)
class StudyContext:
    study: object
    parts: dict             # part name -> Context
    experiments: dict = field(default_factory=dict)  # variant ->
    #   experiments.Experiment, whose outcome the article's verdicts carry

    def part(self, *names):
        """(name, Context) of the first of names present, or (None, None)."""
        for name in names:
            if name in self.parts:
                return name, self.parts[name]
        return None, None

    @property
    def main(self):
        return self.part(*stu.PARTS)[1]


def run_context(run, fixed_fits=None):
    """The Context of one run; fixed_fits: the fits of the study's sweep,
    for the fixed cost of a series this run has too few sizes to fit."""
    fits = model.fit_series(run.points, run.l2_bytes,
                            run.spec_dram_bandwidth)
    verdicts = {p.key: v for p, v in model.classify_run(run, fits,
                                                        fixed_fits)}
    points = tuple(p for p in sel.primary_points(run) if p.check != "fail")
    return Context(run, points, fits, verdicts)


def make_context(study):
    """A StudyContext of a Study, or of one loaded run; the article's
    verdicts at the largest size as its experiments left them
    (report/experiments.py)."""
    if not isinstance(study, stu.Study):
        study = stu.single_run_study(study)
    parts = {}
    if stu.SWEEP in study.runs:
        parts[stu.SWEEP] = run_context(study.runs[stu.SWEEP])
    sweep_fits = parts[stu.SWEEP].fits if parts else None
    for name, run in study.runs.items():
        if name not in parts:
            parts[name] = run_context(run, sweep_fits)
    tested = experiments.study_experiments(StudyContext(study, parts))
    if tested:
        article = parts[stu.ARTICLE]
        verdicts = dict(article.verdicts)
        for e in tested.values():
            key = next(p.key for p in article.points
                       if p.variant == e.variant and p.n == e.base.n and
                       p.cache == e.base.cache and
                       p.launch == e.base.launch and
                       p.block == e.base.block)
            verdicts[key] = experiments.tested_verdict(e)
        parts[stu.ARTICLE] = replace(article, verdicts=verdicts)
    return StudyContext(study, parts, tested)


def and_list(items):
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return items[0] if len(items) == 1 else \
        ", ".join(items[:-1]) + " and " + items[-1]


def at_size(ctx, n, **where):
    """Points at size n in the preferred cache state, and that state."""
    at_n = sel.select(ctx.points, n=n, **where)
    cache = sel.preferred_cache(at_n)
    return sel.select(at_n, cache=cache), cache


def counter_story(run, p):
    """One clause of counter evidence for a point, or ''."""
    parts = []
    occ, kind = model.occupancy(run, p)
    if occ is not None:
        parts.append("%s occupancy %.0f%%" % (kind, occ))
    kib = model.kib_in_flight_per_sm(p, occ,
                                     run.device.get("max_threads_per_sm"))
    if kib is not None:
        # One definition (model.kib_in_flight_per_sm): at the achieved
        # occupancy; from the theoretical one it is an upper bound.
        parts.append("~%.0f KiB of loads in flight per SM%s" % (
            kib, " (at theoretical occupancy: an upper bound)"
            if kind == "theoretical" else ""))
    bpi = sel.metric(run, p, sel.M_BYTES_PER_INST)
    if bpi is not None:
        parts.append("%.1f B per issued instruction" % bpi)
    regs = sel.metric(run, p, sel.M_REGISTERS)
    if regs is not None:
        parts.append("%d registers/thread" % regs)
    return ", ".join(parts)
