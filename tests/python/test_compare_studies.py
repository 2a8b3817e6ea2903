"""scripts/compare-studies.py: two study directories side by side (the
CUDA 12.8 build's study against the 13.0 build's, tests/gpu/run-all.sh
cuda12): what built each, the six verdicts, per part the points beyond the
noise rule; exit 1 when a verdict differs."""

import json
import os
import shutil
import subprocess
import sys

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "scripts", "compare-studies.py")
H100 = os.path.join(ROOT, "reports", "reference", "nvidia-h100")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args),
                          capture_output=True, text=True)


def test_a_study_agrees_with_itself():
    proc = run(H100, H100)
    assert proc.returncode == 0, proc.stderr
    assert "0 of 6 verdicts differ." in proc.stdout
    assert proc.stdout.count("| yes |") == 6
    assert "| article | 234 | 0 | 0 | 0 | 0 | - |" in proc.stdout
    assert "| tool.cuda_build_version | 13000 | 13000 |" in proc.stdout


def test_a_build_without_cub_says_so_and_a_changed_verdict_fails(tmp_path):
    b = str(tmp_path / "b")
    shutil.copytree(H100, b, ignore=shutil.ignore_patterns("report"))
    path = os.path.join(b, "article", "run.json")
    with open(path) as f:
        manifest = json.load(f)
    manifest["tool"]["cuda_build_version"] = 12080
    manifest["settings"]["skipped"] = [
        {"variant": "cub_add_f32", "reason": "not in this build: CCCL 2.7"}]
    with open(path, "w") as f:
        json.dump(manifest, f)
    # Finding 6 (vector ReLU) without its vector kernel's rows cannot be
    # judged.
    for name in ("timing.csv", "metrics.csv", "sass.csv"):
        rows_path = os.path.join(b, "article", name)
        with open(rows_path) as f:
            rows = f.read().splitlines(True)
        with open(rows_path, "w") as f:
            f.writelines(r for r in rows if ",relu_f32x4," not in r)
    proc = run(H100, b)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "| tool.cuda_build_version | 13000 | 12080 |" in proc.stdout
    assert "| skipped in B | cub_add_f32 | not in this build: CCCL 2.7 |" \
        in proc.stdout
    assert "| **no** |" in proc.stdout
    assert "1 of 6 verdicts differ." in proc.stdout


def test_not_a_study():
    proc = run(ROOT, H100)
    assert proc.returncode == 3
    assert proc.stderr.startswith("compare-studies: ")
    assert run(H100).returncode == 2
