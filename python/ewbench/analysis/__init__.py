"""ewbench analysis: read a run directory, judge it, plot it, report it.

The package reads only what docs/data-format.md describes, and imports
neither torch nor peers/ (the tools that measure peer libraries write
peer-*.csv files that core/load.py reads; only the command line hands
`torch` to peers.torch_ops).  Data flows one way: core/
reads and checks the files and holds the rules every report shares;
report/, fleet/ and contest/ each judge what core/ loaded and write one
kind of report through core/document.py and core/atomic.py.  Modules:

  __main__  the command line: `python3 -m ewbench.analysis COMMAND`
  cli       what every command line shares: the exit statuses, --help's
            epilog, the message prefix, the paths checked first
  ncu_audit  Nsight Compute's estimated speedups beside the gains the
            experiments measured for the changes its rules recommend
            (`python3 -m ewbench.analysis.ncu_audit`, docs/ncu-audit.md)
  timeline  a window of an `ewbench run --trace` file
  whatif    the generated family of a user's op (`ewbench run
            --elementwise`) ranked beside the user's kernel, built-ins,
            cub, each member predicted from the measured ceilings

core/       reading and the rules every report shares
  load      run.json, timing.csv (+ peer-*.csv), metrics.csv, ceilings.csv,
            sass.csv, energy.csv as objects
  study     a study directory: the run directories of one `make report`
  select    queries over a loaded run (sizes, points, metrics)
  derived   the derived metrics, read from metrics/derived.def
  sass      the global loads and stores in a run's kernels (sass.csv)
  variants  who wrote a variant: the study, ewbench, a peer library or
            the user (`ewbench run --kernel FILE.cu`)
  generated  the family generated for a user's op: a member's id and
            what it names, the groups of a run that hold members, one
            group's ranking by kernel time
  placement host, PCI, NUMA, rank and NVML readings of a run
  timing    the time of a kernel with its 95 % CI, and launch intervals
  ceilings_cache  the measured ceilings of a run's GPU and build that
            `ewbench ceilings` cached, for a run without its own
  crosscheck  the timer cross-check: the kernel records against an
            uninstrumented graph replay, which rows it judges and flags
  noise     a point's spread, and the rules for "beyond the noise"
  compare   two runs side by side, changes beyond the noise
  units     number formatting for humans
  document  a tiny document model rendered to Markdown and HTML
  atomic    every output written whole or not at all (temp file + rename),
            into an output directory that holds nothing else
  sinks     every string from the data made safe for the place it goes:
            matplotlib text, XML, Markdown, the terminal
  workers   the figures drawn in forked processes the report owns, and
            stopped without a hang

core/validate/  the data contract checked: every file read goes through it
  contract  the tables: value sets, ceilings and their units, DataError
  files     a file's bytes and text, or a refusal naming what is there
  fields    JSON parsed strictly, and the field checkers of a JSON spec
  json_files  run.json, the peer sidecar, fleet.json, the trace
  csv_files  the CSV columns (columns.def), their fields, the rules within
            a row, across rows and files, and across contest rounds

report/     the report of a study or one run (`ewbench report`)
  answers   the first screen: ceilings, fastest adds against the peers,
            variants that fall short
  energy    energy per byte (run --energy, the energy/ part): pJ/B and
            watts per kernel, idle subtracted; the most and least frugal
            per op; the method and its limits
  experiments  each verdict at the DRAM tier tested by the change it
            predicts (probes, larger blocks, siblings), measured
  scoring   a trial's prediction scored against its measurement in the
            band of the model's own error
  user_experiments  a user's kernel's experiments: its larger blocks and
            the generated member that makes its cause's fix
  published the write-ups' published numbers beside this GPU's, each as
            a share of its own GPU's DRAM peak
  unmeasured  what the GPU's chip could not measure (counters.left_out)
            and which finding, verdict or figure that leaves undecided
  figures   the Figures section's figures in order, one spec each (name,
            title, caption, its draw, the runs it is drawn from)
  uses      what a conclusion reads from metrics.csv (Use), for the
            findings' specs and unmeasured's table
  environment  the GPU's settings and clocks per part as evidence, and
            the rows measured outside their part's clock range
  user_kernels  a user's own kernel beside the study's fastest, ewbench's,
            cub and PyTorch: the report's table and figure
  whatif    a user's op made into the family (run --elementwise): the
            what-if's ranking, the winner beside the user's kernel, why
  l2_counts  what the L2 byte counter counts: its 1.5x the bytes moved
            against the sectors that crossed the L2's partition fabric

report/findings/   the six findings of the study brief, one module each
  registry  the findings' specs in order, one line each; evaluate()
            judges them
  common    what they share: verdicts, Spec (number, claim, the counters
            it needs, judge), Finding, the study's context
  launch    1: at ~1M elements the launch sets the time
  l2        2: in L2 above DRAM speed, spilled at DRAM speed (the
            effective L2 for streaming)
  dram      3: one DRAM ceiling at the largest size, fp16 halves the time
  loads     4: bytes per load instruction of float4 and the 8-half pack
  blocks    5: 128 or 256 threads per block is safe (block sweeps)
  relu      6: vector ReLU against naive and PyTorch

report/page/   report.md and report.html, section by section
  build     the whole document in the order of its sections, and
            write_report(): draw, judge, render, write
  common    the helpers the sections share (cells, row order)
  first     the first screen: headline, the fastest add against cub and
            PyTorch, the variants that fall short
  findings  the findings table and the Findings section
  results   Results, Figures, Bottleneck verdicts, Launch-floor fits
  predictions  Predictions scored: every change of the experiments,
            predicted beside measured, the model's error; their CSVs
  method    Method, Environment, Reproduce
  threats   Threats to validity

report/model/  launch-floor fit, ceilings, bottleneck verdict rules (pure)
  fit       the launch-floor fit t = t0 + V / B per series
  ceilings  DRAM, L2, launch floor, block launch rate, DRAM latency
  curve     the measured concurrency curve, and a point's place on it
  calibration  the curve measured with the study's own kernels (its
            calibration/ runs: the scalar kernels and their probes at
            capped residencies) and its held-out error; drawn, not read
  inflight  a point's loads in flight per SM and the occupancy they are
            counted from
  blocks    resident threads at another block size: Little's law on
            blocks (the experiments' block-size predictions)
  rules     the verdict rules in order (the rule table), classify
  thresholds  the rules' thresholds, each with its why, and the
            verdicts' names
  facts     the facts of a point the rules look at, classify_run
  faults    a user's kernel's classic faults, named by their counters,
            with the gain each fix predicts
  above     rows above a measured DRAM ceiling, explained

report/plots/  every figure of a study (with fleet/plots, the only modules
            that import matplotlib)
  common    the styles, the figure with its footer, save (PNG + SVG),
            the roofs, labels placed beside points and on lines
  cache_tier  bandwidth against footprint, the L2 and DRAM marks, the
            block-launch roof
  roofline  FLOP/s against FLOP per byte counted at each memory level
  blocks    bandwidth against threads per block, the block-launch roof
  dram_share  % of the DRAM ceiling and bytes counted per level
  concurrency  the measured concurrency curve, the study placed on it
  instructions  bytes per issued and per global-load instruction
  study     plot_study: every figure the study's parts allow, drawn in
            forked processes
  timeline  a window of an `ewbench run --trace` file as a picture

fleet/      one run per GPU of a node or cluster (`ewbench fleet-report`)
  members   the member run directories of a fleet
  answers   each GPU against the fleet median: outliers, clocks
  plots     the fleet's deviation figure (matplotlib)
  page      report.md and report.html for a fleet: the document put
            together and written
  cells     a value as the report writes it (units, deviations, clocks,
            NVML readings; "—" when absent)
  first     the first screen: headline, answers table, the outlier rule,
            the members that failed
  outliers  one paragraph per outlier: what is off, the counter and NVML
            evidence, the likely causes
  sections  the figure, clocks, points, members, method, threats,
            reproduce

contest/    repeats of one plan, interleaved (`ewbench contest`)
  rank      the add kernels ranked over the rounds, margins against cub
            and torch beyond the round-to-round spread
  page      the contest as Markdown (document) and as JSON

Nothing runs at import time; `python3 -m ewbench.analysis --help` is the entry.
"""
