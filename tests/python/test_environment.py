"""The GPU's environment as evidence (docs/analysis.md, "The environment as
evidence"): the settings and the readings sampled through a run in
run.json, each row's lowest clocks in timing.csv; the analysis flags a row
measured outside its part's clock range, shows what was read per part, and
says "not recorded" for runs written before.  Synthetic runs, no GPU."""

import json
import shutil

import pytest

from ewbench.analysis.core import document as doc
from ewbench.analysis.report import environment as env
from ewbench.analysis.report import findings as fnd
from ewbench.analysis.report import page as report
from ewbench.analysis.core import study
from ewbench.analysis.core import validate
from ewbench.analysis.core.load import load_run
from conftest import unwrapped

SAMPLED = {
    "samples": 40,
    "sm_clock_mhz": {"min": 1710, "median": 1980, "max": 1980, "count": 40},
    "memory_clock_mhz": {"min": 2619, "median": 2619, "max": 2619,
                         "count": 40},
    "power_w": {"min": 180.5, "median": 402.25, "max": 690.0, "count": 40},
    "temperature_c": {"min": 41, "median": 55, "max": 62, "count": 40},
    "clock_event_reasons": 4, "throttled_samples": 1, "wall_s": 0.002,
}
NVML = {
    "status": "ok", "reason": None, "max_sm_clock_mhz": 1980,
    "max_memory_clock_mhz": 2619, "ecc_enabled": True,
    "ecc_pending_enabled": True, "persistence_mode": False,
    "power_limit_w": 650, "power_limit_default_w": 700,
    "power_limit_max_w": 700, "applications_sm_clock_mhz": 1755,
    "applications_memory_clock_mhz": 2619,
    "default_applications_sm_clock_mhz": 1980,
    "default_applications_memory_clock_mhz": 2619,
    "start": None, "end": None, "sampled": SAMPLED,
}
NEW_COLUMNS = ("throttle", "sm_clock_min_mhz", "memory_clock_min_mhz")
# Row (1-based data row of the fixture's timing.csv) -> its lowest SM and
# memory clock and throttling reasons; every other row 1980 / 2619, none.
# 1980 x (1 - 2 %) = 1940.4 MHz: 1940 is below the margin, 1941 within.
ROWS = {1: ("1940", "2619", ""), 2: ("1941", "2619", ""),
        3: ("1980", "2619", "sw_power_cap"), 4: ("1980", "2500", "")}


def _with_environment(run_dir, nvml=NVML, rows=ROWS, driver="580.65.06"):
    """The fixture copy at run_dir with the environment recorded."""
    path = run_dir / "run.json"
    manifest = json.load(open(path))
    manifest["versions"]["nvidia_driver"] = driver
    manifest["placement"] = {"hostname": "box", "nvml": nvml}
    json.dump(manifest, open(path, "w"), indent=2)
    timing = run_dir / "timing.csv"
    lines = timing.read_text().rstrip("\n").split("\n")
    out = [lines[0] + "," + ",".join(NEW_COLUMNS)]
    for i, line in enumerate(lines[1:], 1):
        sm, mem, throttle = rows.get(i, ("1980", "2619", ""))
        out.append("%s,%s,%s,%s" % (line, throttle, sm, mem))
    timing.write_text("\n".join(out) + "\n")
    return run_dir


def _row(run, line):
    return next(p for p in run.points if p.line == line)


def test_a_row_below_the_margin_or_throttled_is_flagged(run_copy):
    run = load_run(str(_with_environment(run_copy)))
    flagged = {o.point.line: o.reasons for o in env.outside_rows(run)}
    # Data row i is on line i + 1 of timing.csv.
    assert set(flagged) == {2, 4, 5}, flagged
    assert flagged[2] == ("SM clock 1940 MHz, 2.0 % below the part's "
                          "median 1980 MHz",)
    assert flagged[4] == ("throttled (sw_power_cap)",)
    assert flagged[5][0].startswith("memory clock 2500 MHz, 4.5 % below")
    # 1941 MHz is within 2 % of the median: not flagged.
    assert _row(run, 3).sm_clock_min_mhz == 1941
    assert env.row_outside(_row(run, 3), None) == ()
    assert env.clocks_checkable(run)


def test_the_median_decides_not_the_maximum(run_copy):
    """The part's own median is the reference: a part that ran at 1755 MHz
    throughout has its rows at 1755 MHz inside its range."""
    sampled = dict(SAMPLED, sm_clock_mhz={"min": 1755, "median": 1755,
                                          "max": 1980, "count": 40})
    rows = {i: ("1755", "2619", "") for i in range(1, 161)}
    run = load_run(str(_with_environment(
        run_copy, nvml=dict(NVML, sampled=sampled), rows=rows)))
    assert env.outside_rows(run) == ()


def _study_of(tmp_path, with_environment):
    """A study: article/ with the environment recorded (or not), sweep/
    always without (written before ewbench recorded it)."""
    from conftest import FIXTURE
    root = tmp_path / "study"
    for part in ("ceilings", "article", "sweep"):
        shutil.copytree(FIXTURE, root / part)
        if part != "ceilings":
            (root / part / "ceilings.csv").unlink()
    if with_environment:
        _with_environment(root / "article")
    return study.load_study(str(root))


def _environment_md(st):
    return unwrapped(doc.render_markdown(report.environment_section(st)))


def _threats_md(st):
    return unwrapped(doc.render_markdown(report.threats_section(
        st, fnd.make_context(st))))


def test_report_shows_settings_ranges_and_flagged_rows(tmp_path):
    st = _study_of(tmp_path, True)
    md = _environment_md(st)
    assert "CUDA 13.0 (driver; release 580.65.06)" in md
    assert ("| GPU settings, `article/` | ECC on; persistence mode off; "
            "power limit 650 W in force (default 700 W, max 700 W); "
            "application clocks SM 1755 / memory 2619 MHz (default 1980 / "
            "2619) |") in md
    assert ("| `article/` NVML through the run | SM 1710–1980 MHz (median "
            "1980); memory 2619 MHz; power 180–690 W (median 402); "
            "temperature 41–62 °C (median 55); 40 readings; throttling "
            "reasons sw_power_cap in 1 of 40 readings; 3 of 160 rows "
            "outside the clock range |") in md
    # The part written before: not recorded, said so.
    assert ("| `sweep/` NVML through the run | not recorded (absent from "
            "run.json: written before ewbench recorded it) |") in md
    assert ("| GPU settings, `sweep/` | not recorded (absent from run.json: "
            "written before ewbench recorded it) |") in md
    threats = _threats_md(st)
    assert "`article/`: **3 of 160 rows were measured outside the part's " \
        "clock range**" in threats
    assert "SM clock 1940 MHz, 2.0 % below" in threats
    assert "The clocks during each row were not recorded in `sweep/`" in \
        threats
    assert "`article/` (runs" not in threats


def test_absent_fields_render_as_not_recorded(tmp_path):
    st = _study_of(tmp_path, False)
    md = _environment_md(st)
    assert "CUDA 13.0 (driver; its release not recorded)" in md
    assert ("| GPU settings, `article/`, `sweep/` | not recorded (absent "
            "from run.json: written before ewbench recorded it) |") in md
    assert md.count("NVML through the run | not recorded") == 2
    assert "outside the part's clock range" not in _threats_md(st)


def test_nulls_are_not_given_not_zero(run_copy):
    """NVML that gave nothing: null settings read "not given", never 0."""
    nvml = dict(NVML, sampled=None, **{k: None for k in (
        "ecc_enabled", "ecc_pending_enabled", "persistence_mode",
        "power_limit_w", "power_limit_default_w", "power_limit_max_w",
        "applications_sm_clock_mhz", "applications_memory_clock_mhz",
        "default_applications_sm_clock_mhz",
        "default_applications_memory_clock_mhz")})
    run = load_run(str(_with_environment(run_copy, nvml=nvml,
                                         driver=None)))
    from ewbench.analysis.core import placement
    place = placement.read(run.manifest)
    text = env.settings_text(place)
    assert text.startswith("ECC not given by NVML; persistence mode not "
                           "given by NVML; power limit not given in force")
    assert " 0 " not in text
    assert env.driver_text(place) == "its release not given by NVML"
    assert env.sampled_text(place, run).startswith("not sampled")
    assert not env.clocks_checkable(run)


def _refused(run_dir, edit, where):
    """Load run_dir after edit(manifest); the DataError names run.json,
    the line of the offending value and its path."""
    path = run_dir / "run.json"
    manifest = json.load(open(path))
    edit(manifest)
    json.dump(manifest, open(path, "w"), indent=2)
    with pytest.raises(validate.DataError) as e:
        load_run(str(run_dir))
    text = str(e.value)
    assert text.startswith(str(path) + ":"), text
    line = int(text[len(str(path)) + 1:].split(":")[0])
    assert where in path.read_text().split("\n")[line - 1], (line, text)
    return text


@pytest.mark.parametrize("edit, where, words", [
    (lambda m: m["placement"]["nvml"].update(power_limit_w=0),
     '"power_limit_w"', "placement.nvml.power_limit_w to be a positive"),
    (lambda m: m["placement"]["nvml"].update(ecc_enabled="yes"),
     '"ecc_enabled"', "true or false or null"),
    (lambda m: m["placement"]["nvml"]["sampled"]["sm_clock_mhz"].update(
        median=2000), '"median"', "min <= placement.nvml.sampled."
     "sm_clock_mhz.median <= "),
    (lambda m: m["placement"]["nvml"]["sampled"]["power_w"].update(
        count=41), '"count"', "at most the 40 readings taken"),
    (lambda m: m["placement"]["nvml"]["sampled"].update(
        throttled_samples=41), '"throttled_samples"', "at most the 40"),
    (lambda m: m["placement"]["nvml"]["sampled"].update(samples=0),
     '"samples"', "a positive integer"),
    (lambda m: m["versions"].update(nvidia_driver=""), '"nvidia_driver"',
     "versions.nvidia_driver to be a non-empty string"),
])
def test_bad_values_are_refused_with_file_and_line(run_copy, edit, where,
                                                   words):
    _with_environment(run_copy)
    assert words in _refused(run_copy, edit, where)


def test_a_zero_clock_in_a_row_is_refused(run_copy):
    _with_environment(run_copy, rows={**ROWS, 7: ("0", "2619", "")})
    with pytest.raises(validate.DataError) as e:
        load_run(str(run_copy))
    assert str(e.value).startswith(str(run_copy / "timing.csv") + ":8:")
    assert "sm_clock_min_mhz" in str(e.value)


def test_steady_sampled_clocks_name_the_run_to_run_floor(tmp_path):
    # Every reading at the maximum with no reason set: the clocks threat
    # says drift is left to the noise model's floor, and names it.
    from conftest import FIXTURE
    root = tmp_path / "study"
    for part in ("ceilings", "article"):
        shutil.copytree(FIXTURE, root / part)
    (root / "article" / "ceilings.csv").unlink()
    steady = dict(SAMPLED, sm_clock_mhz={"min": 1980, "median": 1980,
                                         "max": 1980, "count": 40},
                  clock_event_reasons=0, throttled_samples=0)
    for part in ("ceilings", "article"):
        _with_environment(root / part, dict(NVML, sampled=steady), rows={})
    threats = _threats_md(study.load_study(str(root)))
    assert "once a round of timed launches through it" in threats
    assert "run-to-run floor of the noise rule (" in threats
