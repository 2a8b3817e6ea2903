"""The report of a study or one run, `ewbench report` (the package map:
ewbench/analysis/__init__.py)."""
