"""tests/gpu/verdicts.py STUDY_A STUDY_B [...] - do studies measured the
same way (back to back on one GPU, or on two machines of one model) reach
the same conclusions?  Each study is judged by this tree's analysis; the
script prints, against the first: the six findings' verdicts and deciding
numbers, every point verdict of the article run (variant, size, cache,
launch), and each experiment's outcome with its change's measured and
predicted bandwidth.  Exit 0 when every finding, point verdict and
experiment outcome agrees, 1 otherwise (the differences listed).

A benchmark script of the lead's GPU calls, not a test of `make check`.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "python"))

from ewbench.analysis.core import study as stu  # noqa: E402
from ewbench.analysis.core.units import gbps, size_label  # noqa: E402
from ewbench.analysis.report.findings import common, registry  # noqa: E402


def judge(path):
    study = stu.load_study(path)
    sctx = common.make_context(study)
    findings = {f.number: (f.verdict, f.deciding)
                for f in registry.evaluate(study, sctx)}
    article = sctx.parts.get(stu.ARTICLE)
    points = {}
    if article is not None:
        for p in article.run.points:
            points[(p.variant, p.n, p.cache, p.launch, p.block)] = \
                article.verdicts[p.key].name
    experiments = {v: e for v, e in sctx.experiments.items()}
    return findings, points, experiments


def main(paths):
    if len(paths) < 2:
        sys.exit("usage: verdicts.py STUDY_A STUDY_B [...]")
    judged = [judge(p) for p in paths]
    base_f, base_p, base_e = judged[0]
    differ = 0
    print("findings of %s:" % paths[0])
    for n, (verdict, deciding) in sorted(base_f.items()):
        print("  %d %-16s %s" % (n, verdict, deciding[:110]))
    print("experiments of %s:" % paths[0])
    for v, e in sorted(base_e.items()):
        own = ", ".join("%s %s%s" % (
            t.what, gbps(t.point.bandwidth),
            " (predicted %s)" % gbps(t.predicted) if t.predicted else "")
            for t in e.own)
        print("  %-16s %-20s %-18s -> %-18s %s" % (
            v, e.verdict.name, e.outcome or "-", e.final, own[:120]))
    for path, (f, p, e) in zip(paths[1:], judged[1:]):
        print("\n%s against %s:" % (path, paths[0]))
        for n in sorted(set(base_f) | set(f)):
            if base_f.get(n, ("-",))[0] != f.get(n, ("-",))[0]:
                differ += 1
                print("  finding %d: %s / %s" % (n, base_f.get(n), f.get(n)))
        keys = sorted(set(base_p) & set(p))
        diff = [k for k in keys if base_p[k] != p[k]]
        differ += len(diff)
        print("  point verdicts: %d of %d agree" % (len(keys) - len(diff),
                                                      len(keys)))
        for k in diff:
            print("    %s %s %s %s @%s: %s / %s" % (
                k[0], size_label(k[1]), k[2], k[3], k[4], base_p[k], p[k]))
        for v in sorted(set(base_e) | set(e)):
            a, b = base_e.get(v), e.get(v)
            same = a is not None and b is not None and \
                (a.outcome, a.final) == (b.outcome, b.final)
            if not same:
                differ += 1
                print("  experiment %s: %s / %s" % (
                    v, a and (a.outcome, a.final), b and (b.outcome, b.final)))
        print("  experiments: %d of %d agree" % (
            sum(1 for v in base_e if v in e and
                (base_e[v].outcome, base_e[v].final) ==
                (e[v].outcome, e[v].final)), len(set(base_e) | set(e))))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
