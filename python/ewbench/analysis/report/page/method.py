"""The sections that say how the study was measured: Method (each part's
settings, the cache states, launches, bandwidth, ceilings, PyTorch's
rows), Environment (the GPU, software, host and NVML readings of each
part) and Reproduce (the commands that wrote the runs)."""

import os
import shlex

from .. import answers as ans
from ...core import crosscheck
from ...core import document as doc
from .. import environment as env
from ...core import load
from ...core import placement
from ...core import select as sel
from ...core import sinks
from ...core import study as stu
from ...core.units import (bytes_label, clock_label, cuda_version, gbps, pct,
                           size_label)
from .common import ceiling_value, cell_text, lookup


def _timed_launches(settings):
    """How many launches a point timed, as run.json settings say."""
    timing = settings.get("timing")
    if not timing:
        return "%s timed launches" % cell_text(settings.get("iters"))
    return ("%s to %s timed ones, until the median's %s %% interval is "
            "within %s %% of it or after %s ms of timing" % (
                cell_text(timing.get("min_samples")),
                cell_text(timing.get("max_samples")),
                cell_text(timing.get("ci_confidence_pct")),
                cell_text(timing.get("target_ci_pct")),
                cell_text(timing.get("max_time_ms"))))


def method_section(study):
    blocks = [doc.Heading(2, "Method", "method")]
    items = []
    for part in stu.PARTS:
        run = study.run(part)
        if run is None:
            continue
        settings = run.manifest.get("settings") or {}
        counters = run.manifest.get("counters") or {}
        items.append("`%s/` (run %s): %s. %d points, %d sizes (%s to %s), "
                     "cache %s, %s launches; per point %s warm-up "
                     "launches, then %s; counters: %s." % (
                         part, sinks.code(run.run_id), stu.PURPOSE[part],
                         len(run.points), len(sel.sizes(run)),
                         size_label(min(sel.sizes(run))) if run.points
                         else "-", size_label(max(sel.sizes(run)))
                         if run.points else "-",
                         "/".join(settings.get("cache") or []) or "n/a",
                         "/".join(settings.get("launch") or []) or "n/a",
                         cell_text(settings.get("warmup")),
                         _timed_launches(settings),
                         "%s set, %s pass(es)" % (
                             _data(counters.get("metric_set")),
                             counters.get("passes"))
                         if counters.get("enabled") else "off"))
    if study.repeats:
        items.append("`%s/`: %s, the add kernels and cub at the article's "
                     "largest size, warm, timing only (runs %s), each with "
                     "its own torch rows: with the article as round 1, the "
                     "DRAM-tier comparison's round-to-round spread." % (
                         stu.REPEATS, ", ".join(
                             sinks.code(os.path.basename(r.path))
                             for r in study.repeats), ", ".join(
                             sinks.code(r.run_id) for r in study.repeats)))
    if study.ceilings_path:
        items.append("`ceilings/`: `ewbench ceilings` (DRAM read, write, "
                     "copy, add; L2 read; launch cost; FMA peaks); every "
                     "part uses them.")
    items += [
        "**Cache states**: `warm` = back-to-back launches on the same "
        "buffers, so whatever fits in L2 stays there (the write-ups' "
        "method); `cold` = L2 flushed before each timed launch by reading a "
        "buffer several times the L2. **Launches**: `stream` from the host "
        "one by one, `graph` replayed from a CUDA graph. **Time**: each "
        "kernel's own start and end on the GPU (CUPTI activity records), "
        "so the host's launch path is not in it; the launch interval is "
        "measured apart (docs/analysis.md, \"How a point is timed\").",
        "**Bandwidth** = bytes moved / median time, GB/s = 1e9 byte/s; "
        "bytes moved = n x (bytes read + written per element): add 3 "
        "arrays, relu 2, abs in place 1 read + 1 write. The footprint "
        "(distinct bytes touched) is the x axis of the cache-tier plot.",
        "**Ceilings**: DRAM = measured `dram_add` (add) or `dram_copy` "
        "(relu, abs), else the spec peak; launch floor = measured "
        "`launch_stream` or `launch_graph` by launch mode.",
        "**Primary block**: a variant timed at several blocks is compared "
        "with others at the one its run chose (run.json primary_blocks; "
        "before 2026-11-29 the same rule on its rows): for tune the "
        "fastest at its largest size, else its published block where it "
        "ran with it, else the first it ran with.",
        "**Roles**: the study's 14 variants (docs/study.md), ewbench's "
        "additions, and the peers cub and PyTorch.",
    ]
    items.append(_timer_text(study))
    blocks.append(doc.Bullets(tuple(items)))
    blocks += _steps_blocks(study)
    article = study.run(stu.ARTICLE)
    if article is not None and any(p.variant.startswith("torch_")
                                   for p in article.points):
        side = load.peer_sidecar(article.path, "torch") or {}
        if any(p.variant.startswith("torch_") and p.file != load.TIMING
               for p in article.points):
            how = "were measured by `ewbench torch` into " \
                "`peer-torch.csv`"
        else:
            how = "were appended to `timing.csv` by `python3 -m analysis " \
                "torch` (now `ewbench torch`, which writes " \
                "`peer-torch.csv`)"
        blocks.append(doc.Paragraph(
            "PyTorch rows (`torch_*`) %s: PyTorch %s, CUDA %s, on %s; %s." % (
                how, _data(side.get("torch")), _data(side.get("cuda")),
                _data(side.get("device")),
                sinks.markdown(side["method"]) if side.get("method") else
                "CUDA events around each launch, the host's launch path "
                "included (the method of rows measured before 2026-11-24)")))
    rows = ans.ceilings(study.ceilings)
    if rows:
        blocks.append(doc.Table(
            ("ceiling", "measured", "% of spec", "method"), tuple(
                (r.name, ceiling_value(r), pct(r.spec_pct),
                 sinks.markdown(study.ceilings[r.name].method or ""))
                for r in rows)))
    return blocks


def _timer_text(study):
    """The timer's line: what timed the warm points, how many points a
    second timer measured and their largest disagreement, and what the
    kernel records are known to do."""
    runs = study.every_run()
    old = [part for part, r in runs
           if crosscheck.instrumented_timer(r.manifest)]
    done = [(part, c) for part, r in runs
            for c in crosscheck.checks(r.points)]
    text = "**Timer cross-check**: "
    replayed = any(p.time_source == "replay" for _, r in runs
                   for p in r.points)
    if replayed:
        text += ("warm points are timed by replays of a graph of their "
                 "launches with CUPTI's kernel records paused (docs/"
                 "analysis.md, \"The timer's own cost\"); ")
    if done:
        first, second = done[0][1].timers
        judged = [(part, c) for part, c in done if c.judged]
        flagged = sum(c.flagged for _, c in judged)
        text += ("%d warm points (at up to three sizes of each run) timed "
                 "by %s and again by %s (docs/analysis.md, \"The timer "
                 "cross-check\")" % (len(done), first, second))
        if judged:
            worst_part, worst = max(judged,
                                    key=lambda pc: abs(pc[1].disagreement))
            text += ("; of the %d whose kernels take %.0f µs or more, the "
                     "largest disagreement is %+.1f %% (`%s/` %s@%s), and %s "
                     "beyond %.0f %%, a %.0f µs launch gap and the row's "
                     "own interval%s" % (
                         len(judged), crosscheck.JUDGED_MIN_NS / 1e3,
                         100 * worst.disagreement, worst_part,
                         sinks.markdown(worst.point.variant),
                         size_label(worst.point.n),
                         "none is" if not flagged else "**%d** %s" % (
                             flagged, "is" if flagged == 1 else "are"),
                         crosscheck.TOLERANCE_PCT, worst.gap_ns / 1e3,
                         " (Threats to validity lists them)" if flagged
                         else ""))
        if len(judged) < len(done):
            text += ("; the %d shorter ones are in `timing.csv` "
                     "(`crosscheck_ns`) but not judged: back to back, such "
                     "kernels overlap by as much as the effect" % (
                         len(done) - len(judged)))
    else:
        text += "none recorded (runs measured before 2026-11-29)"
    costs = []
    for part, r in runs:
        for p in r.points:
            cost = crosscheck.records_cost(p)
            if cost is not None:
                costs.append((part, p, cost))
    if costs:
        part, p, worst = max(costs, key=lambda c: c[2])
        text += ("; the kernel records, run beside the replay at those "
                 "sizes, span %+.1f to %+.1f %% of it on %d points (the "
                 "most: `%s/` %s@%s), what their instrumentation costs the "
                 "kernels that keep few bytes in flight, left out of every "
                 "time" % (100 * min(c[2] for c in costs), 100 * worst,
                           len(costs), part, sinks.markdown(p.variant),
                           size_label(p.n)))
    if old:
        text += ("; kernel times of %s come from CUPTI's CONCURRENT_KERNEL "
                 "records, whose instrumentation slowed the kernels that "
                 "keep few bytes in flight by 6-13 %% on an H200 and left "
                 "those that saturate DRAM as they were (docs/analysis.md, "
                 "\"The timer's own cost\")" % (
                     "every run here" if len(old) == len(runs) else
                     ", ".join("`%s/`" % p for p in old)))
    return text + "."


def _steps_blocks(study):
    """How long each step of `make report` took (steps.json), when the
    study recorded it."""
    if not study.steps:
        return []
    rendering = sum(s.seconds for s in study.steps if not s.measures)
    text = ("**Steps** (`steps.json`, as `make report` timed them): "
            "%.1f s of measuring, from the first part's start to the last "
            "measuring step's end" % study.measuring_s
            if study.measuring_s is not None else
            "**Steps** (`steps.json`, as `make report` timed them)")
    if rendering:
        text += "; its first rendering took %.1f s" % rendering
    return [doc.Paragraph(text + "."), doc.Table(
        ("step", "wrote", "started at", "took"), tuple(
            (s.name + ("" if s.exit_code == 0 else
                       " (exit %d)" % s.exit_code),
             ", ".join("`%s/`" % d for d in s.dirs) or "-",
             "%.1f s" % s.start_s, "%.1f s" % s.seconds)
            for s in study.steps))]


def environment_section(study):
    run = study.main
    m = run.manifest
    dev = run.device
    versions = m.get("versions") or {}
    rows = [
        ("GPU", _data(dev.get("name"))),
        ("compute capability", _data(dev.get("compute_capability"))),
        ("SMs, clock (max)", "%s at %s" % (cell_text(dev.get("sm_count")),
                                           clock_label(dev.get(
                                               "sm_clock_khz")))),
        ("L2", bytes_label(dev.get("l2_bytes"))),
        ("memory", "%s, %s-bit bus at %s" % (
            bytes_label(dev.get("memory_bytes")),
            cell_text(dev.get("bus_width_bits")),
            clock_label(dev.get("memory_clock_khz")))),
        ("DRAM spec bandwidth", gbps(dev.get("dram_bandwidth_bytes_per_s"))),
        ("threads / blocks per SM", "%s / %s" % (
            cell_text(dev.get("max_threads_per_sm")),
            cell_text(dev.get("max_blocks_per_sm")))),
        ("driver, runtime", "%s (driver; %s), %s (runtime)" % (
            cuda_version(versions.get("driver")),
            env.driver_text(placement.read(m)),
            cuda_version(versions.get("runtime")))),
        ("CUPTI API version", cell_text(versions.get("cupti_api"))),
        ("ewbench", "%s (git %s)" % (
            _data(lookup(m, "tool", "version")),
            _data(lookup(m, "tool", "git_revision")))),
        ("built with", "%s; GPU targets sm_%s; nvcc %s" % (
            cuda_version(lookup(m, "tool", "cuda_build_version")),
            _data(lookup(m, "tool", "cuda_arch")),
            _data(lookup(m, "tool", "nvcc_flags")))),
        ("host", "%s; %s; %s" % (_data(lookup(m, "host", "hostname")),
                                 _data(lookup(m, "host", "os")),
                                 _data(lookup(m, "host", "cpu")))),
    ]
    for part, r in study.runs.items():
        rows.append(("`%s/`" % part, "%s to %s (UTC), %s; git %s" % (
            _data(r.manifest.get("started_utc")),
            _data(r.manifest.get("finished_utc")),
            cell_text(r.manifest.get("status")),
            _data(lookup(r.manifest, "tool", "git_revision")))))
        rows.append(("`%s/` NVML start → end" % part,
                     _nvml_text(placement.read(r.manifest))))
        rows.append(("`%s/` NVML through the run" % part,
                     env.sampled_text(placement.read(r.manifest), r)))
    # The GPU's settings, once for the parts that agree.
    settings = {}
    for part, r in study.runs.items():
        settings.setdefault(env.settings_text(placement.read(r.manifest)),
                            []).append("`%s/`" % part)
    for text, parts in settings.items():
        rows.append(("GPU settings, %s" % ", ".join(parts), text))
    return [doc.Heading(2, "Environment", "environment"),
            doc.Table(("item", "value"),
                      tuple((k, cell_text(v)) for k, v in rows))]


def _data(value):
    """A value from the data as a cell's or a sentence's text."""
    return sinks.markdown(cell_text(value))


def _nvml_text(place):
    """SM / memory clock, power, temperature and throttle reasons at a
    run's start and end (placement.py), '-' for what was not read."""
    def one(r):
        def num(v, fmt):
            return fmt % v if v is not None else "-"
        return "SM %s / memory %s MHz, %s W, %s °C, %s" % (
            num(r.sm_clock_mhz, "%.0f"), num(r.mem_clock_mhz, "%.0f"),
            num(r.power_w, "%.0f"), num(r.temperature_c, "%.0f"),
            ", ".join(sinks.markdown(t) for t in r.throttle_reasons)
            if r.throttle_reasons
            else "no clock-event reason")
    maxima = place.start
    return "%s → %s (max SM %s / memory %s MHz)" % (
        one(place.start), one(place.end),
        "%.0f" % maxima.max_sm_clock_mhz
        if maxima.max_sm_clock_mhz is not None else "-",
        "%.0f" % maxima.max_mem_clock_mhz
        if maxima.max_mem_clock_mhz is not None else "-")


def _command(run, out):
    """The run's command line with its output directory replaced."""
    argv = [str(a) for a in run.manifest.get("argv") or []]
    for i, a in enumerate(argv[:-1]):
        if a in ("-o", "--out"):
            argv[i + 1] = out
    return "ewbench " + " ".join(shlex.quote(a) for a in argv)


def reproduce_section(study):
    lines = ["# all of it, on a machine with the GPU (writes "
             "reports/<gpu>-<date>/):", "make report-energy"
             if study.energy is not None else "make report", ""]
    if study.is_single_run:
        run = study.main
        lines += ["# this run", _command(run, "RUN_DIR")]
        if study.ceilings_path:
            lines.append("ewbench ceilings -q -o CEILINGS_DIR")
        if any(p.variant.startswith("torch_") for p in run.points):
            lines.append("ewbench torch RUN_DIR")
        lines.append("ewbench report RUN_DIR%s -o OUT" % (
            " --ceilings CEILINGS_DIR" if study.ceilings_path else ""))
    else:
        lines.append("# step by step, STUDY = the study directory")
        if study.ceilings_path:
            try:
                from ...core.load import load_manifest
                ceil = load_manifest(os.path.join(study.ceilings_path,
                                                  "run.json"))
                argv = [str(a) for a in ceil.get("argv") or ["ceilings"]]
            except Exception:       # noqa: BLE001 - only for the text
                argv = ["ceilings"]
            argv = [a for i, a in enumerate(argv)
                    if a not in ("-o", "--out") and
                    (i == 0 or argv[i - 1] not in ("-o", "--out"))]
            lines.append("ewbench %s -o STUDY/ceilings" % " ".join(argv))
        # Every part the study holds, in the order make report runs them.
        for where, run in study.every_run():
            lines.append(_command(run, "STUDY/%s" % where))
            if any(p.variant.startswith("torch_") for p in run.points):
                lines.append("ewbench torch STUDY/%s" % where)
        lines.append("ewbench report STUDY -o STUDY/report")
    return [doc.Heading(2, "Reproduce", "reproduce"),
            doc.Paragraph("The commands that wrote these runs, from their "
                          "run.json, with the output directories named as "
                          "in a study directory (docs/analysis.md)."),
            doc.Code("\n".join(lines))]
