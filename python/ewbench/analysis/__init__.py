"""ewbench analysis: read a run directory, judge it, plot it, report it.

The package reads only what docs/data-format.md describes, and imports
neither torch nor peers/ (the tools that measure peer libraries write
peer-*.csv files that load.py reads).  Modules:

  __main__  the command line: `python3 -m ewbench.analysis COMMAND`
  validate  the data contract checked: every file read goes through it
  load      run.json, timing.csv (+ peer-*.csv), metrics.csv, ceilings.csv,
            sass.csv as objects
  atomic    every output written whole or not at all (temp file + rename)
  study     a study directory: the run directories of one `make report`
  select    queries over a loaded run (sizes, points, metrics)
  units     number formatting for humans
  variants  who wrote a variant: the study, ewbench, a peer library or
            the user (`ewbench run --kernel FILE.cu`)
  derived   the derived metrics, read from metrics/derived.def
  sass      the global loads and stores in a run's kernels (sass.csv)
  timing    the time of a kernel with its 95 % CI, and launch intervals
  noise     a point's spread, and the rules for "beyond the noise"
  model     launch-floor fit, ceilings, bottleneck verdict rules (pure)
  findings  the six findings of the study brief, judged on one run
  unmeasured  what the GPU's chip could not measure (counters.left_out)
            and which finding, verdict or figure that leaves undecided
  published the write-ups' published numbers beside this GPU's, each as
            a share of its own GPU's DRAM peak
  answers   the first screen: ceilings, fastest adds against the peers,
            variants that fall short
  plots     every figure of a study (with fleet_plots, the only modules
            that import matplotlib)
  workers   the figures drawn in forked processes the report owns, and
            stopped without a hang
  document  a tiny document model rendered to Markdown and HTML
  report    report.md and report.html for one run
  user_kernels  a user's own kernel beside the study's fastest, ewbench's,
            cub and PyTorch: the report's table and figure
  compare   two runs side by side, changes beyond the noise
  fleet     the member run directories of a fleet (one per GPU)
  placement host, PCI, NUMA, rank and NVML readings of a run
  environment  the GPU's settings and clocks per part as evidence, and
            the rows measured outside their part's clock range
  fleet_answers  each GPU against the fleet median: outliers, clocks
  fleet_report   report.md and report.html for a fleet
  fleet_plots    the fleet's deviation figure (matplotlib)
  contest   the add kernels ranked over interleaved repeats, margins
            against cub and torch beyond the round-to-round spread
  contest_report  the contest as Markdown (document) and as JSON
  timeline  a window of an `ewbench run --trace` file

Nothing runs at import time; `python3 -m ewbench.analysis --help` is the entry.
"""
