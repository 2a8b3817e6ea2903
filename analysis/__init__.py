"""ewbench analysis: read a run directory, judge it, plot it, report it.

The package reads only what docs/data-format.md describes.  Modules:

  validate  the data contract checked: every file read goes through it
  load      run.json, timing.csv, metrics.csv, ceilings.csv as objects
  select    queries over a loaded run (sizes, points, metrics)
  units     number formatting for humans
  model     launch-floor fit, ceilings, bottleneck verdict rules (pure)
  findings  the six findings of the study brief, judged on one run
  plots     every figure of a study (with fleet_plots, the only modules
            that import matplotlib)
  document  a tiny document model rendered to Markdown and HTML
  report    report.md and report.html for one run
  compare   two runs side by side, with a noise rule
  fleet     the member run directories of a fleet (one per GPU)
  placement host, PCI, NUMA, rank and NVML readings of a run
  fleet_answers  each GPU against the fleet median: outliers, clocks
  fleet_report   report.md and report.html for a fleet
  fleet_plots    the fleet's deviation figure (matplotlib)
  contest   the add kernels ranked over interleaved repeats
  timeline  a window of an `ewbench run --trace` file
  torch_baseline  PyTorch reference rows appended to a run's timing.csv

Nothing runs at import time; `python3 -m analysis --help` is the entry.
"""
