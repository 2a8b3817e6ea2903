"""Run directories holding a user's kernel, made from a shipped reference's
real rows (tests/python/test_user_verdicts.py, test_labels.py).

as_user() copies a reference part (its timing.csv, metrics.csv and
run.json, never its ceilings) and adds every row of one study variant again
as the user's kernel `user:NAME`: the same measurements, under the id a
`ewbench run --kernel` gives a kernel (what a user who pasted the study's
kernel would have measured, to the noise).  Such rows are real.

construct() goes further and edits the copies: times scaled, counters
scaled, a grid replaced, each edit named by the caller.  Those rows are NOT
measurements: they have a measured row's shape with the numbers the
geometry of a fault gives (sectors per request of a stride, a grid of one
block per SM), to exercise the rules where no shipped reference holds
such a kernel.  Every test that uses one says so.
"""

import csv
import io
import json
import os
import shutil

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                   os.pardir)
REFERENCE = os.path.join(TOP, "reports", "reference")
# The row key metrics.csv shares with timing.csv (a graph point reads the
# counters of its stream launch: the launch mode is not in it).
KEY = ("run_id", "variant", "op", "dtype", "n", "block", "cache")


def reference(name, part=None):
    path = os.path.join(REFERENCE, name)
    return os.path.join(path, part) if part else path


def _rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    reader = csv.DictReader(io.StringIO(text))
    return reader.fieldnames, list(reader)


def _write(path, header, rows):
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=header, lineterminator="\r\n")
    w.writeheader()
    w.writerows(rows)
    with open(path, "w", newline="", encoding="utf-8") as f:
        f.write(out.getvalue())


def construct(source, target, variant, name, timing=None, metrics=None,
              where=None, entry=None):
    """Copies the run directory source to target (without ceilings.csv)
    and adds each row of `variant` (where(row) true, on its timing row)
    again as `user:name`; timing(row) and metrics(row, metric, value) ->
    value may edit the copies (None: real rows, unchanged).  A timing edit
    empties the bandwidth cells (the analysis computes them from bytes and
    time).  entry: more fields of its run.json user_kernels entry
    (default_block).  Returns the user's variant id."""
    os.makedirs(target)
    for f in ("timing.csv", "metrics.csv", "run.json"):
        shutil.copy(os.path.join(source, f), os.path.join(target, f))
    user = "user:" + name
    header, rows = _rows(os.path.join(target, "timing.csv"))
    picked = set()
    extra = []
    for r in rows:
        if r["variant"] != variant or (where and not where(r)):
            continue
        picked.add(tuple(r[k] for k in KEY))
        c = dict(r, variant=user)
        if timing is not None:
            timing(c)
            for k in header:
                if k.startswith("bandwidth_") or k == "spec_dram_pct":
                    c[k] = ""
        extra.append(c)
    assert extra, "no %s rows in %s" % (variant, source)
    _write(os.path.join(target, "timing.csv"), header, rows + extra)
    header, rows = _rows(os.path.join(target, "metrics.csv"))
    extra = []
    for r in rows:
        if tuple(r[k] for k in KEY) not in picked:
            continue
        c = dict(r, variant=user)
        if metrics is not None:
            value = metrics(c, c["metric"], float(c["value"]))
            c["value"] = repr(float(value))
        extra.append(c)
    _write(os.path.join(target, "metrics.csv"), header, rows + extra)
    path = os.path.join(target, "run.json")
    with open(path, encoding="utf-8") as f:
        m = json.load(f)
    m["settings"]["variants"].append(user)
    first = next(r for r in rows if r["variant"] == variant) if rows \
        else None
    m["user_kernels"] = [{
        "variant": user, "file": name + ".cu", "function": name,
        "symbol": name, "op": first["op"] if first else "add",
        "dtype": first["dtype"] if first else "f32",
        "source_sha256": "ab" * 32, "cache_key": "cd" * 32,
        "cached": False, "arch": "sm_90", "nvrtc": "13.0",
        "options": ["--gpu-architecture=sm_90"], **(entry or {})}]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(m, f, indent=2)
    return user


def as_user(source, target, variant, name, entry=None):
    """construct() without edits: real rows under a user's id."""
    return construct(source, target, variant, name, entry=entry)


def add_rows(source, target, variant, user, where):
    """Appends source's timing rows of variant (where(row) true) to
    target's timing.csv as the user's rows of target's run (its run_id):
    another run of the same session on the same GPU, measured, without
    counters (tests of a change timed in the study's experiments run)."""
    _, rows = _rows(os.path.join(source, "timing.csv"))
    header, mine = _rows(os.path.join(target, "timing.csv"))
    run_id = mine[0]["run_id"]
    extra = [dict(r, variant=user, run_id=run_id) for r in rows
             if r["variant"] == variant and where(r)]
    assert extra, "no %s rows in %s" % (variant, source)
    _write(os.path.join(target, "timing.csv"), header, mine + extra)
