"""Energy per byte (`ewbench run --energy`): energy.csv's contract, the
energy/ part of a study, and the report's section, on rows written here
from the fixture's points with known draws (tests/energy.sh runs ewbench
itself on the stand-in GPU and NVML)."""

import csv
import json
import re
import shutil

import pytest

from ewbench.analysis.core import document as doc
from ewbench.analysis.core import study
from ewbench.analysis.core import validate
from ewbench.analysis.core.load import load_run
from ewbench.analysis.report import energy as en
from ewbench.analysis.report import page as report

IDLE_W = 80.0
SECONDS = 1.05

# (variant, n): the board's draw in each of three windows (W) and the
# windows' bandwidth (byte/s).  At 2^28 (DRAM): the fp16 packed add the
# most frugal, add_f32 the least, add_f32x4 the fastest add; at 2^20
# (L2-resident) two adds within each other's spread.
DRAWS = {
    ("add_f32", 1 << 28): ((420, 423, 418), 2.90e12),
    ("add_f32x4", 1 << 28): ((380, 382, 381), 3.05e12),
    ("add_f16x8_pack", 1 << 28): ((350, 352, 351), 3.00e12),
    ("cub_add_f32", 1 << 28): ((390, 391, 389), 3.01e12),
    ("relu_f32", 1 << 28): ((400, 401, 399), 2.95e12),
    ("relu_f32x4", 1 << 28): ((370, 371, 372), 3.02e12),
    ("add_f32", 1 << 20): ((300, 310, 290), 4.0e12),
    ("add_f32x4", 1 << 20): ((305, 306, 304), 4.1e12),
}


def _point(run, variant, n):
    return next(p for p in run.points if p.variant == variant and
                p.n == n and p.cache == "warm" and p.launch == "stream")


def energy_rows(run_dir, draws=DRAWS, idle_w=IDLE_W):
    """energy.csv rows for the fixture's points: the columns derived from
    the readings by the rule of docs/data-format.md."""
    run = load_run(str(run_dir))
    rows = []
    for (variant, n), (boards, bandwidth) in draws.items():
        p = _point(run, variant, n)
        idle_mj = round(idle_w * SECONDS * 1e3)
        for k, board in enumerate(boards, 1):
            mj = round(board * SECONDS * 1e3)
            launches = bandwidth * SECONDS / p.bytes_moved
            board_w = mj * 1e-3 / SECONDS
            idle = idle_mj * 1e-3 / SECONDS
            moved = launches * p.bytes_moved
            rows.append({
                "run_id": run.run_id, "variant": variant, "op": p.op,
                "dtype": p.dtype, "n": n, "block": p.block or "",
                "cache": "warm", "launch": "graph", "window": k,
                "grid": p.grid or "", "bytes_per_launch": p.bytes_moved,
                "launches_per_replay": 25, "launches": repr(launches),
                "seconds": SECONDS, "energy_mj": mj,
                "idle_seconds": SECONDS, "idle_energy_mj": idle_mj,
                "board_w": repr(board_w), "idle_w": repr(idle),
                "net_w": repr(board_w - idle),
                "pj_per_byte": repr((board_w - idle) * SECONDS / moved *
                                    1e12),
                "bandwidth_bytes_per_s": repr(moved / SECONDS),
                "updates": 52, "idle_updates": 53, "queue_drained": 0,
                "sm_clock_min_mhz": 1980, "memory_clock_min_mhz": 2619,
                "temperature_max_c": 61, "throttle": "",
                "power_limit_w": 700, "idle_sm_clock_min_mhz": 1980,
                "idle_temperature_max_c": 55})
    return rows


def write_energy(run_dir, rows, method=None):
    names = [c.name for c in validate.ENERGY_COLUMNS]
    with open(run_dir / "energy.csv", "w", newline="",
              encoding="utf-8") as f:
        w = csv.DictWriter(f, names, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    manifest = json.loads((run_dir / "run.json").read_text())
    manifest["energy"] = method or {
        "counter": "nvmlDeviceGetTotalEnergyConsumption", "covers": "board",
        "window_s": 1, "windows": 3, "settle_s": 0.25, "warmup_s": 0.5,
        "replay_s": 0.025, "queued_replays": 8, "sample_s": 0.1,
        "other_processes": 0, "points": len(rows) // 3}
    (run_dir / "run.json").write_text(json.dumps(manifest, indent=2))


def test_rows_load_with_the_run(run_copy):
    write_energy(run_copy, energy_rows(run_copy))
    run = load_run(str(run_copy))
    assert len(run.energy) == 3 * len(DRAWS)
    first = run.energy[0]
    assert (first.variant, first.window, first.cache, first.launch) == (
        "add_f32", 1, "warm", "graph")
    assert first.idle_w == pytest.approx(IDLE_W)
    assert run.manifest["energy"]["window_s"] == 1
    # A run without energy.csv has none: None, not ().
    assert load_run(str(__import__("conftest").FIXTURE)).energy is None


def _refused(run_copy, change, match, method=None):
    rows = energy_rows(run_copy)
    change(rows)
    write_energy(run_copy, rows, method)
    with pytest.raises(validate.DataError, match=match):
        load_run(str(run_copy))


@pytest.mark.parametrize("change, match", [
    # a derived column that is not its readings' arithmetic
    (lambda rows: rows[1].update(pj_per_byte=float(rows[1]["pj_per_byte"])
                                 * 1.01),
     r"energy\.csv:3: expected pj_per_byte = net_w x seconds"),
    (lambda rows: rows[0].update(idle_w=81.0),
     r"energy\.csv:2: expected idle_w = idle_energy_mj / 1000"),
    (lambda rows: rows[0].update(net_w=float(rows[0]["board_w"])),
     r"energy\.csv:2: expected net_w = board_w - idle_w"),
    (lambda rows: rows[2].update(bandwidth_bytes_per_s=1e12),
     r"energy\.csv:4: expected bandwidth_bytes_per_s = launches x"),
    # energy windows are warm graph replays
    (lambda rows: rows[0].update(cache="cold"),
     r"energy\.csv:2: expected cache warm and launch graph"),
    # a board draws power: never none, never negative
    (lambda rows: rows[0].update(energy_mj=0),
     r"energy\.csv:2: column energy_mj: expected a positive integer"),
    (lambda rows: rows[0].update(board_w=-1),
     r"energy\.csv:2: column board_w: expected a positive number"),
    # one row per point and window
    (lambda rows: rows[1].update(window=1),
     r"energy\.csv:3: expected one row per point and window"),
    # a point the run timed, moving the bytes it timed
    (lambda rows: [r.update(variant="add_f32x4_ilp2") for r in rows[:3]],
     r"energy\.csv:2: expected a point of timing\.csv, got add_f32x4_ilp2"),
    (lambda rows: rows[0].update(bytes_per_launch=6 * rows[0]["n"],
                                 launches=2 * float(rows[0]["launches"])),
     r"energy\.csv:2: expected op, dtype, bytes_per_launch add, f32, "),
    (lambda rows: rows[0].update(run_id="another"),
     r"energy\.csv:2: expected run_id"),
])
def test_a_broken_row_is_refused_with_its_line(run_copy, change, match):
    _refused(run_copy, change, match)


def test_a_negative_difference_is_a_measurement(run_copy):
    """A window that drew less than the idle window (noise at a kernel
    that adds little) keeps its sign: net_w and pj_per_byte are SIGNED."""
    draws = {("add_f32", 1 << 20): ((79, 79.5, 81), 4.0e12),
             ("add_f32x4", 1 << 20): ((82, 83, 84), 4.1e12)}
    write_energy(run_copy, energy_rows(run_copy, draws))
    run = load_run(str(run_copy))
    assert min(w.net_w for w in run.energy) < 0
    assert min(w.pj_per_byte for w in run.energy) < 0


def test_run_json_energy_is_checked(run_copy):
    method = {"window_s": 0, "windows": 3}
    _refused(run_copy, lambda rows: None, r"run\.json:\d+: expected "
             r"energy\.window_s to be a positive finite number", method)


def _study(tmp_path, with_energy=True):
    from conftest import FIXTURE
    root = tmp_path / "study"
    parts = ("ceilings", "article") + (("energy",) if with_energy else ())
    for part in parts:
        shutil.copytree(FIXTURE, root / part)
        if part != "ceilings":
            (root / part / "ceilings.csv").unlink()
    if with_energy:
        write_energy(root / "energy", energy_rows(root / "energy"))
    return study.load_study(str(root))


def test_the_study_loads_its_energy_part(tmp_path):
    st = _study(tmp_path)
    assert st.energy is not None and len(st.energy.energy) == 24
    # not a measuring part: the article is still the main run
    assert stu_parts(st) == ["article"]
    assert en.source(st)[0] == "energy/"
    assert _study(tmp_path / "no", with_energy=False).energy is None


def stu_parts(st):
    return list(st.runs)


def test_tiers_by_footprint_against_the_l2():
    l2 = 50 << 20
    assert en.tier_of(12 << 20, l2) == "L2-resident"
    assert en.tier_of(25 << 20, l2) == "L2-resident"
    assert en.tier_of(26 << 20, l2) == "around the L2"
    assert en.tier_of(200 << 20, l2) == "DRAM"
    assert en.tier_of(3 << 30, None) == "around the L2"


def test_most_and_least_frugal_per_tier_and_op(tmp_path):
    st = _study(tmp_path)
    energies = en.points(st.energy)
    found = {(f.tier, f.op): f for f in en.frugal(energies)}
    assert set(found) == {("DRAM", "add"), ("DRAM", "relu"),
                          ("L2-resident", "add")}
    add = found["DRAM", "add"]
    assert (add.most.variant, add.least.variant, add.fastest.variant) == (
        "add_f16x8_pack", "add_f32", "add_f32x4")
    assert add.apart
    relu = found["DRAM", "relu"]
    assert relu.most.variant == relu.fastest.variant == "relu_f32x4"
    # the two L2-resident adds overlap: told apart by no window
    assert not found["L2-resident", "add"].apart


def _section_md(st):
    """The section's Markdown, its prose unwrapped (report.md wraps it at
    78 columns)."""
    return re.sub(r"\n +", " ", doc.render_markdown(en.section(st, {})))


def test_the_section_names_the_ends_with_numbers_and_the_idle(tmp_path):
    st = _study(tmp_path)
    md = _section_md(st)
    assert md.startswith("<a id=\"energy\"></a>") or "## Energy per byte" \
        in md
    pack = [e for e in en.points(st.energy)
            if e.variant == "add_f16x8_pack"][0]
    f32 = [e for e in en.points(st.energy)
           if e.variant == "add_f32" and e.n == 1 << 28][0]
    # pJ/B = (board - idle) x seconds / bytes: 271 W over 3.00 TB/s
    assert pack.pj == pytest.approx((351 - IDLE_W) / 3.00e12 * 1e12,
                                    rel=1e-3)
    assert ("**add, DRAM** (256Mi): most frugal `add_f16x8_pack` (block "
            "32), %.1f pJ/B (spread %.1f %%) at 3000 GB/s, board 351 W; "
            "least frugal `add_f32` (block 256), %.1f pJ/B" % (
                pack.pj, pack.pj_spread, f32.pj)) in md
    assert "idle 80 W subtracted" in md
    assert "beyond the windows' spread" in md
    assert ("The fastest, `add_f32x4` (block 64) at 3050 GB/s, is not the "
            "most frugal") in md
    assert "**relu, DRAM** (256Mi)" in md and \
        "The fastest (3020 GB/s) is also the most frugal." in md
    assert "within the windows' spread of each other" in md   # L2 adds
    # the method and its limits
    for text in ("covers the whole board", "stepped every 20 ms",
                 "idle window of the same length", "PyTorch is not "
                 "measured", "the method's measured resolution",
                 "power limit 700 W"):
        assert text in md, text


def test_the_report_has_the_section_only_with_energy(tmp_path):
    for with_energy in (True, False):
        st = _study(tmp_path / str(with_energy), with_energy)
        titles = [t for _, t in report.sections(st)]
        assert ("Energy per byte" in titles) == with_energy
        md = doc.render_markdown(report.reproduce_section(st))
        # the fixture's argv names no --out: its commands repeat as given
        assert ("make report-energy\n" in md) == with_energy
        assert md.count("ewbench ewbench run") == 2 + with_energy


def test_the_figure_is_drawn(tmp_path):
    st = _study(tmp_path)
    out = tmp_path / "figures"
    drawn = en.draw(st, str(out))
    png, svg = drawn[en.FIGURE]
    text = open(svg, encoding="utf-8").read()
    assert "DRAM" in text and "L2-resident" in text
    assert re.search(r"add_f16x8_pack 256Mi", text)
    assert en.draw(_study(tmp_path / "none", False), str(out)) == {}


# What a board can draw (issue 55, cause 3) and the windows run.json
# announces (cause 14): a counter that jumped, stepped backwards (an
# unsigned difference: a huge one) or an idle window above the load is
# refused with its line, never printed as a number.

def _with_readings(row, energy_mj=None, idle_energy_mj=None):
    """row with new counter differences and its derived columns redone."""
    if energy_mj is not None:
        row["energy_mj"] = energy_mj
    if idle_energy_mj is not None:
        row["idle_energy_mj"] = idle_energy_mj
    board = row["energy_mj"] * 1e-3 / row["seconds"]
    idle = row["idle_energy_mj"] * 1e-3 / row["idle_seconds"]
    moved = float(row["launches"]) * row["bytes_per_launch"]
    row.update(board_w=repr(board), idle_w=repr(idle),
               net_w=repr(board - idle),
               pj_per_byte=repr((board - idle) * row["seconds"] / moved *
                                1e12))


@pytest.mark.parametrize("change, match", [
    # stepped backwards: 2^64 - a little, as an unsigned difference
    (lambda rows: _with_readings(rows[4], energy_mj=(1 << 63) - 1),
     r"energy\.csv:6: expected board_w at most 1\.25 x the power limit "
     r"700 W \(918750 mJ over 1\.05 s\), got 8\.78\d*e\+15 W"),
    # jumped once, in the idle window
    (lambda rows: _with_readings(rows[0], idle_energy_mj=10 ** 9),
     r"energy\.csv:2: expected idle_w at most 1\.25 x the power limit"),
    # the board drawing far less than idle (-626010 pJ/B was 'most frugal')
    (lambda rows: _with_readings(rows[1], energy_mj=20000),
     r"energy\.csv:3: expected board_w no lower than idle_w beyond the "
     r"counter's step"),
    # a window run.json never announced
    (lambda rows: rows[2].update(window=7),
     r"energy\.csv:4: expected window 1 to 3 \(run\.json energy\.windows\), "
     r"got 7"),
])
def test_a_window_no_board_draws_is_refused(run_copy, change, match):
    _refused(run_copy, change, match)


def test_a_window_at_its_power_limit_loads(run_copy):
    """The bound is physics, not the fixture's draws: a window at the
    limit and one just below idle (within a counter step) load."""
    rows = energy_rows(run_copy)
    _with_readings(rows[0], energy_mj=round(1.2 * 700 * 1.05e3))
    _with_readings(rows[1], energy_mj=round(0.97 * IDLE_W * 1.05e3))
    write_energy(run_copy, rows)
    assert len(load_run(str(run_copy)).energy) == len(rows)


def test_a_dollar_in_a_name_is_drawn_as_it_is(tmp_path):
    """Two `$` in a variant's name started matplotlib's mathtext in the
    energy figure, which raised (issue 55, cause 8)."""
    st = _study(tmp_path)
    energy_dir = tmp_path / "study" / "energy"
    for name in ("timing.csv", "metrics.csv", "energy.csv"):
        path = energy_dir / name
        path.write_text(path.read_text().replace(
            ",add_f32x4,", ",add_$\\bogus{$_f32x4,"))
    st = study.load_study(str(tmp_path / "study"))
    drawn = en.draw(st, str(tmp_path / "figures"))
    svg = open(drawn[en.FIGURE][1], encoding="utf-8").read()
    assert "add_$\\bogus{$_f32x4 256Mi" in svg
    assert "`add_$\\bogus{$_f32x4`" in _section_md(st)
