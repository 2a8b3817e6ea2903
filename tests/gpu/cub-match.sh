#!/bin/sh
# tests/gpu/cub-match.sh - issue 52's "≥ 1.0x cub (add)" measured: the
# add what-if at 2^28, warm, no counters, in ROUNDS interleaved rounds
# (CUB_MATCH_ROUNDS, default 5; at least 3): each round one `ewbench run
# --elementwise examples/op_add.cu` of the same candidates, round 1 of
# every candidate, then round 2, ..., so that a drift of the GPU hits all
# alike.  The candidates: the one-stage bulk-copy members (gen:add:
# bulkone_*, cub's own design point among them: bulkone_v32_k3 at block
# 256, docs/user-kernels.md), last session's best generated ones
# (bulk_v128_k1, bulk_v128_k2, tile_v64_k1, tile_v128_k1), the built-ins
# add_f32_tma_st, add_f32_tma and add_f32x4, each at blocks 64 to 1024,
# and cub_add_f32 (its own block).
#
# Prints, per candidate and block, the median over the rounds of its
# kernel's median time (µs), the rounds' fastest and slowest, and its
# speed against cub's (cub's median time / its own: above 1 is faster
# than cub), that ratio's lowest and highest over the rounds (each round's
# candidate against the same round's cub); then the best generated member
# against cub and against the best built-in.  A benchmark: it asserts no
# ratio (the goal is printed, met or not), and fails only when a run or a
# check fails.  The rounds' run directories and cub-match.csv (the table)
# go to $OUT/cub-match (else a temporary folder).  Builds nothing: the
# ewbench of the tree (EWBENCH), e.g. after `tests/gpu/run-all.sh OUT 90
# build`.  Skips without a GPU.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
use_user_kernels
rounds=${CUB_MATCH_ROUNDS:-5}
[ "$rounds" -ge 3 ] 2>/dev/null || fail "CUB_MATCH_ROUNDS=$rounds: at least 3"
dest=${OUT:-$tmpdir}/cub-match
mkdir -p "$dest"
ids='gen:add:bulkone_*,gen:add:bulk_v128_k1,gen:add:bulk_v128_k2'
ids=$ids,gen:add:tile_v64_k1,gen:add:tile_v128_k1
ids=$ids,add_f32_tma_st,add_f32_tma,add_f32x4,cub_add_f32

start=$(date +%s)
i=1
while [ "$i" -le "$rounds" ]; do
	rm -rf "$dest/round-$i"
	"$EWBENCH" run -q --elementwise "$ex/op_add.cu" -s 2^28 --cache warm \
	    --no-counters --block 64,128,256,512,1024 -v "$ids" \
	    -o "$dest/round-$i" >"$tmpdir/round-$i.log" 2>&1 ||
	    fail "round $i: exit $?: $(tail -5 "$tmpdir/round-$i.log")"
	echo "round $i: $(($(date +%s) - start)) s since the first began"
	i=$((i + 1))
done

PYTHONPATH=$top_srcdir/python "$py" - "$dest" "$rounds" <<'PY' || fail "the table: exit $?"
import csv, os, statistics, sys
from ewbench.analysis.core import load, timing

dest, rounds = sys.argv[1], int(sys.argv[2])
CUB = "cub_add_f32"
times = {}  # (variant, block) -> [µs per round]
for r in range(1, rounds + 1):
    run = load.load_run(os.path.join(dest, "round-%d" % r))
    for p in run.points:
        if p.n != 1 << 28 or p.check not in (None, "pass"):
            continue
        key = (p.variant, p.block if not p.variant.startswith("cub_")
               else None)
        times.setdefault(key, [None] * rounds)[r - 1] = \
            timing.kernel_time(p, run).median_ns / 1e3
whole = {k: v for k, v in times.items() if None not in v}
cub = whole.get((CUB, None))
if cub is None:
    print("no cub_add_f32 row in every round: nothing to compare with")
    sys.exit(1)
cub_med = statistics.median(cub)
rows = []
for (variant, block), us in whole.items():
    med = statistics.median(us)
    per_round = [c / u for c, u in zip(cub, us)]
    rows.append((med, variant, block, min(us), max(us), cub_med / med,
                 min(per_round), max(per_round)))
rows.sort()
head = ("variant", "block", "rounds", "median_us", "min_us", "max_us",
        "x_cub", "x_cub_min_round", "x_cub_max_round")
path = os.path.join(dest, "cub-match.csv")
with open(path + ".tmp", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(head)
    for med, variant, block, lo, hi, x, xlo, xhi in rows:
        w.writerow((variant, "" if block is None else block, rounds,
                    "%.2f" % med, "%.2f" % lo, "%.2f" % hi, "%.4f" % x,
                    "%.4f" % xlo, "%.4f" % xhi))
os.replace(path + ".tmp", path)
print("2^28 f32 add, warm, %d rounds: median of the rounds' kernel "
      "medians; x cub = cub's time / the candidate's" % rounds)
print("%-26s %5s %9s %17s %7s %15s" % ("candidate", "block", "median_us",
                                       "rounds min-max", "x cub",
                                       "rounds' x cub"))
for med, variant, block, lo, hi, x, xlo, xhi in rows:
    print("%-26s %5s %9.1f %8.1f-%-8.1f %7.4f %7.4f-%-7.4f" % (
        variant, "auto" if block is None else block, med, lo, hi, x, xlo,
        xhi))
gen = [r for r in rows if r[1].startswith("gen:")]
built = [r for r in rows if not r[1].startswith(("gen:", "cub_"))]
if gen and built:
    g, b = gen[0], built[0]
    print("best generated %s@%s: %.4fx cub (goal >= 1.0: %s), %.4fx the "
          "best built-in %s@%s (goal >= 0.99: %s)" % (
              g[1], g[2], g[5], "met" if g[5] >= 1.0 else "not met",
              b[0] / g[0], b[1], b[2],
              "met" if b[0] / g[0] >= 0.99 else "not met"))
PY
echo "cub-match: $rounds rounds in $(($(date +%s) - start)) s; $dest/cub-match.csv"
