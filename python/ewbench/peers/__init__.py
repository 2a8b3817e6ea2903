"""Peers measured beside an ewbench run: libraries ewbench is compared with
(PyTorch so far), timed by tools that are not part of the analysis.

A peer tool reads a run directory and writes its own peer-<name>.csv beside
timing.csv, with exactly timing.csv's columns (analysis.core.validate reads
them from src/run/columns.def), and a sidecar peer-<name>.json with the
versions it ran with.  It never modifies a file ewbench wrote: the analysis
merges every peer-*.csv into the run's points (analysis/core/load.py), so that
measuring stays out of the package that judges.  Modules:

  output     peer-<name>.csv and its sidecar, written atomically
  torch_ops  torch.add and torch.relu timed like ewbench's stream rows
             (`ewbench torch RUN_DIR`, python3 -m ewbench.analysis torch)
  torch_plan  the points a torch run times (and --dry-run says), the
             stopping rule, a row's statistics and columns: no torch

analysis/ never imports this package (its command line only hands `torch`
to torch_ops); this package imports analysis for the contract (columns,
loading, checks) and the command line's exit statuses (analysis/cli.py).
"""
