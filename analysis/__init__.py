"""ewbench analysis: read a run directory, judge it, plot it, report it.

The package reads only what docs/data-format.md describes.  Modules:

  load      parse and validate run.json, timing.csv, metrics.csv, ceilings.csv
  select    queries over a loaded run (sizes, points, metrics)
  units     number formatting for humans
  model     launch-floor fit, ceilings, bottleneck verdict rules (pure)
  findings  the six findings of the study brief, judged on one run
  plots     every figure (the only module that imports matplotlib)
  document  a tiny document model rendered to Markdown and HTML
  report    report.md and report.html for one run
  compare   two runs side by side, with a noise rule
  torch_baseline  PyTorch reference rows appended to a run's timing.csv

Nothing runs at import time; `python3 -m analysis --help` is the entry.
"""

SCHEMA_VERSION = 1
