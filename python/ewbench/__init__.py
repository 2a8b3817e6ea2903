"""ewbench's Python side, one package so that no top-level name is taken:

  ewbench.analysis  read run directories, judge them, plot them, report
                    them (`ewbench report|compare|contest|fleet-report|
                    timeline`, or `python3 -m ewbench.analysis COMMAND`)
  ewbench.peers     tools that time peer libraries beside a run
                    (`ewbench torch RUN_DIR`, or
                    `python3 -m ewbench.analysis torch RUN_DIR`)
  ewbench.stops     how every command above takes SIGINT, SIGTERM and
                    SIGHUP (and how `ewbench COMMAND` starts Python)

defs/ holds the definitions ewbench's C side compiles in and the analysis
reads (src/run/columns.def, metrics/derived.def, kernels/study.def): links in
the source tree, copies once installed, so that there is one of each.
"""
