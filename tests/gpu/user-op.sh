#!/bin/sh
# tests/gpu/user-op.sh - a user's own op (--kernel K.cu --reference R.cu)
# on the GPU (issue 31):
#  1. the right ones checked at every tail (1, 3, 7, 8, 33, 1000003, 2^20,
#     2^24 + 5), aligned and --misalign: the 3-input bf16 fused op
#     examples/fma_bf16.cu (--ulps 1) and examples/silu_mul_f32.cu
#     (--rel 1e-5); an in-place f32 op whose reference computes NaN
#     (sqrt of the negative inputs), NaN passing against NaN;
#  2. the wrong ones caught: a wrong formula (examples/silu_mul_wrong.cu)
#     with its first wrong index, an overrun at odd n
#     (examples/fma_bf16_overrun.cu) with the guard named, silu_mul_f32
#     without its tolerance (the intrinsics are a few ulps off expf), and
#     a kernel that leaves the NaN results unwritten (the poison there is
#     finite, so it cannot pass as the reference's NaN);
#  3. the fused bf16 op measured beside relu_f32 and abs_f32 (8 bytes an
#     element, as it moves), counters and all; its report's table places
#     it beside them and the DRAM ceiling; its table printed (time, GB/s,
#     % of the DRAM ceiling, counters).
# Skips without a GPU.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
use_user_kernels

fma="--kernel $ex/fma_bf16.cu --reference $ex/fma_bf16_ref.cu --ulps 1 --elems-per-thread 2"
silu="--kernel $ex/silu_mul_f32.cu --reference $ex/silu_mul_f32_ref.cu --rel 1e-5 --elems-per-thread 4"
sq="--kernel $kern/sqrt_inplace.cu --reference $kern/sqrt_inplace_ref.cu"

# 1. Right ones pass at every tail, aligned and misaligned.
for spec in "$fma" "$silu" "$sq"; do
	for mis in "" --misalign; do
		# shellcheck disable=SC2086
		"$EWBENCH" check $spec $mis -v add_f32 >"$tmpdir/ok.log" 2>&1 ||
		    fail "$spec $mis: exit $?: $(tail -5 "$tmpdir/ok.log")"
		ok=$(grep -c '^user:.* ok$' "$tmpdir/ok.log") || true
		[ "$ok" -ge 8 ] ||
		    fail "$spec $mis: $ok sizes passed: $(cat "$tmpdir/ok.log")"
		echo "passes at $ok sizes: $spec $mis"
	done
done

# 2. Wrong ones caught, each with its first wrong index or the guard.
expect_caught() {	# expect_caught PATTERN ARGS...
	want=$1
	shift
	set +e
	"$EWBENCH" check "$@" -v add_f32 -s 1000003 >"$tmpdir/bad.log" 2>&1
	rc=$?
	set -e
	[ "$rc" = 3 ] && grep -q "CHECK FAILED: $want" "$tmpdir/bad.log" ||
	    fail "$*: exit $rc, not caught as '$want': $(cat "$tmpdir/bad.log")"
	echo "caught: $(grep -o 'CHECK FAILED: .*' "$tmpdir/bad.log" | head -c 200)"
}
expect_caught 'user:silu_mul_wrong n=1000003: element [0-9]* is ' \
    --kernel "$ex/silu_mul_wrong.cu" --reference "$ex/silu_mul_f32_ref.cu" \
    --rel 1e-5
expect_caught 'user:fma_bf16_overrun n=1000003: wrote past the end of its output, the first at element 1000003 (n + 0)' \
    --kernel "$ex/fma_bf16_overrun.cu" --reference "$ex/fma_bf16_ref.cu" \
    --ulps 1 --elems-per-thread 2
expect_caught 'user:silu_mul_f32 n=1000003: element [0-9]* is .*, expected ' \
    --kernel "$ex/silu_mul_f32.cu" --reference "$ex/silu_mul_f32_ref.cu" \
    --elems-per-thread 4
expect_caught 'user:sqrt_skip_nan n=1000003: element [0-9]* is -.*, expected nan' \
    --kernel "$kern/sqrt_skip_nan.cu" --reference "$kern/sqrt_ref.cu"

# 3. The fused op measured beside the kernels of its bytes per element.
# shellcheck disable=SC2086
"$EWBENCH" run -q $fma -v relu_f32,abs_f32 -s 1000003,16Mi,256Mi \
    --cache both -o "$tmpdir/fma" >"$tmpdir/fma.log" 2>&1 ||
    fail "fma_bf16 run: exit $?: $(tail -5 "$tmpdir/fma.log")"
"$py" - "$tmpdir/fma" <<'PY' || fail "the fused op's rows or counters"
import sys
from ewbench.analysis.core import study
from ewbench.analysis.report import user_kernels as uk
from ewbench.analysis.core.load import load_run
run = load_run(sys.argv[1])
user = [p for p in run.points if p.variant == "user:fma_bf16"]
assert len(user) == 6, "%d user points" % len(user)
for p in user:
    assert p.op == "custom" and p.dtype == "bf16" and p.check == "pass"
    assert p.bytes_moved == 8 * p.n, p.bytes_moved
rows = uk.beside(study.single_run_study(run))
assert rows and all(b.study is not None for b in rows)
print("%-8s %-5s %10s %9s  %-28s %s" % ("n", "cache", "time us", "GB/s",
                                       "DRAM ceiling", "counters"))
for p in sorted(user, key=lambda p: (p.n, p.cache)):
    m = (run.metrics or {}).get(p.key) or {}
    shown = ", ".join("%s=%.4g" % (k, v.value) for k, v in sorted(m.items())
                      if v.value is not None and ("dram__bytes" in k or
                      "throughput" in k or "derived__" in k))[:400]
    print("%-8d %-5s %10.2f %9.1f  %-28s %s" % (
        p.n, p.cache, p.time_median_ns / 1e3, p.bandwidth / 1e9,
        uk.of_ceiling(run, p), shown or "(no counters)"))
assert any((run.metrics or {}).get(p.key) for p in user), "no counters"
PY
"$EWBENCH" report "$tmpdir/fma" -o "$tmpdir/fma-report" >"$tmpdir/rep.log" 2>&1 ||
    fail "report: exit $?: $(tail -5 "$tmpdir/rep.log")"
# report.md wraps its prose: the sentence read as one line
tr '\n' ' ' <"$tmpdir/fma-report/report.md" | tr -s ' ' |
    grep -q 'checked against `fma_bf16_ref`' &&
    grep -q '| DRAM ceiling |' "$tmpdir/fma-report/report.md" ||
    fail "the report lacks the fused op's section"

echo "user-op: fma_bf16, silu_mul_f32 and an in-place NaN op pass at every tail; a wrong formula, an overrun, a missing tolerance and unwritten NaNs caught; the fused op measured and reported"
