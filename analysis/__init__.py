"""ewbench analysis: read a run directory, judge it, plot it, report it.

The package reads only what docs/data-format.md describes.  Modules:

  validate  the data contract checked: every file read goes through it
  load      run.json, timing.csv, metrics.csv, ceilings.csv as objects
  select    queries over a loaded run (sizes, points, metrics)
  units     number formatting for humans
  model     launch-floor fit, ceilings, bottleneck verdict rules (pure)
  findings  the six findings of the study brief, judged on one run
  plots     every figure (the only module that imports matplotlib)
  document  a tiny document model rendered to Markdown and HTML
  report    report.md and report.html for one run
  compare   two runs side by side, with a noise rule
  contest   the add kernels ranked over interleaved repeats
  timeline  a window of an `ewbench run --trace` file
  torch_baseline  PyTorch reference rows appended to a run's timing.csv

Nothing runs at import time; `python3 -m analysis --help` is the entry.
"""
