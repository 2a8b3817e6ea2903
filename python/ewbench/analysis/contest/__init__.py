"""Repeats of one plan, interleaved, `ewbench contest` (the package map:
ewbench/analysis/__init__.py)."""
