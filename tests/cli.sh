#!/bin/sh
# tests/cli.sh - the command line, table driven: arguments, expected exit
# status, and a pattern the output (stdout + stderr) must contain.  None of
# these rows needs a GPU: bad input is refused before the device is opened.
# But its dry runs and `ewbench info` open one where there is one, and a
# second context on the GPU disturbs the GPU tests' timings (make -j
# check): it takes the GPU lock as they do where there is one (setup.sh).
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
gpu_lock_if_gpu
# A compile cache of its own, empty at the start (--kernel, --elementwise):
# nothing read from or written to the user's.
export XDG_CACHE_HOME=$tmpdir/cache

count=0
expect() {	# expect STATUS PATTERN ARGS...
	want=$1 pattern=$2
	shift 2
	set +e
	"$EWBENCH" "$@" >"$tmpdir/out" 2>&1
	got=$?
	set -e
	count=$((count + 1))
	[ "$got" = "$want" ] ||
	    fail "ewbench $*: exit $got, expected $want: $(head -c 400 "$tmpdir/out")"
	grep -q -e "$pattern" "$tmpdir/out" ||
	    fail "ewbench $*: output lacks '$pattern': $(head -c 400 "$tmpdir/out")"
	# Errors are one line.
	if [ "$want" = 2 ]; then
		[ "$(wc -l <"$tmpdir/out")" -eq 1 ] ||
		    fail "ewbench $*: error message is not one line"
	fi
}

# refused STATUS PATTERN ARGS...: exit STATUS with one line on stderr that
# matches PATTERN (a dry run planned for --chip says so on stdout first).
refused() {
	want=$1 pattern=$2
	shift 2
	set +e
	"$EWBENCH" "$@" >"$tmpdir/out" 2>"$tmpdir/err"
	got=$?
	set -e
	count=$((count + 1))
	[ "$got" = "$want" ] && [ "$(wc -l <"$tmpdir/err")" -eq 1 ] &&
	    grep -q -e "$pattern" "$tmpdir/err" ||
	    fail "ewbench $*: exit $got (expected $want), stderr not one line '$pattern': $(head -c 400 "$tmpdir/err")"
}

expect 0 '^usage: ewbench'		--help
expect 0 'Examples:'			--help
# Each command its own page: its synopsis, options and exit statuses.
expect 0 '^usage: ewbench run \[OPTIONS\]'	run --help
expect 0 '^usage: ewbench check'	check -h
expect 0 '^      --density N'	sweep --help
expect 0 '^usage: ewbench info'	info --help
expect 0 '^usage: ewbench list'	list --help
expect 0 '^usage: ewbench ceilings .*\[--dry-run \[--chip NAME\]\] \[-q\]$'	ceilings --help
expect 0 '^usage: ewbench tune'	help tune
expect 0 '^usage: ewbench run'	run -v add_f32 --help
expect 2 "no command 'frob'"	help frob
for command in info list run check sweep tune ceilings; do
	"$EWBENCH" "$command" --help >"$tmpdir/page"
	! grep -q -e '^Analysis commands' -e '^Commands' "$tmpdir/page" ||
	    fail "$command --help is the overview, not its page"
	[ "$(wc -l <"$tmpdir/page")" -lt 175 ] ||
	    fail "$command --help: $(wc -l <"$tmpdir/page") lines"
done
# Every page calls itself a page (metrics said "this text").
for command in info list run check sweep tune ceilings metrics; do
	"$EWBENCH" "$command" --help | grep -q '^  -h, --help  *this page$' ||
	    fail "$command --help does not list -h, --help as 'this page'"
done
! "$EWBENCH" check --help | grep -q -e '--density' -e '--iters' ||
    fail "check --help lists options check does not take"
! "$EWBENCH" info --help | grep -q '^  3 ' ||
    fail "info --help lists exit status 3"
# Every row of the options' table (src/cmd/run-options.def) is on a
# measuring command's page, under its own name: the help text of a row is
# written by hand beside its name.
for command in run check sweep tune; do
	"$EWBENCH" "$command" --help
done >"$tmpdir/pages"
for name in $(sed -n 's/^RUN_OPTION([A-Z_]*, "\([a-z-]*\)".*/\1/p' \
    "$top_srcdir/src/cmd/run-options.def"); do
	grep -q -e "--$name\b" "$tmpdir/pages" ||
	    fail "--$name (run-options.def) is on no help page"
done
[ "$(grep -c '^RUN_OPTION(' "$top_srcdir/src/cmd/run-options.def")" -gt 30 ] ||
    fail "run-options.def: its rows were not read"
expect 0 '^  5    no usable CUDA GPU'	-h
expect 0 '^ewbench [0-9]'		--version
expect 0 'GPU targets: '		--version
expect 0 'add_f16x8_pack'		list
expect 0 'cub_add_f32'			list
expect 2 'takes no arguments'		list extra
expect 2 "unknown command 'frobnicate'"	frobnicate
expect 2 'usage: ewbench'		# no command at all
expect 2 "unknown variant 'add_f3'; did you mean" run -v add_f3
expect 2 'add_f32'			run -v add_f3
expect 2 "no variant matches 'zzz_nothing\\*'"	check -v 'zzz_nothing*'
expect 2 "'12x'"			run -s 12x
expect 2 "'1.5M'"			run --size 1.5M
expect 2 'size'				run -s 0
expect 2 'size'				run -s 2^64
expect 2 "--block: '2000' is not a whole number from 1 to 1024" run --block 2000
expect 2 "--iters: 'x'"			run --iters x
expect 2 "--cache: 'lukewarm' is not warm, cold or both" run --cache lukewarm
expect 2 "unknown preset 'paper'"	run --preset paper
expect 2 "unknown option '--bogus'"	run --bogus
# A user's kernel: its options are checked before the GPU is opened.
ex=$top_srcdir/examples/add_f32x4.cu
expect 2 'describe a --kernel FILE.cu'	run --op add
expect 2 'describe a --kernel FILE.cu'	check --no-guard
printf '__global__ void f5(float *a, float *b, float *c, float *d, size_t n) {}\n' >"$tmpdir/f5.cu"
expect 2 'cannot tell what f5 computes'	run --kernel "$tmpdir/f5.cu"
printf '__global__ void f(float *c, size_t n) {}\n__global__ void g(float *c, size_t n) {}\n' >"$tmpdir/fg.cu"
expect 2 '2 __global__ functions (f, g); say which: --kernel .*fg.cu:FUNCTION'	check --kernel "$tmpdir/fg.cu"
# The article's file holds its six kernels: each named, to copy one.
expect 2 'article_add.cu: 6 __global__ functions (elementwise_add_f32_kernel, elementwise_add_f32x4_kernel, elementwise_add_f16_kernel, elementwise_add_f16x2_kernel, elementwise_add_f16x8_kernel, elementwise_add_f16x8_pack_kernel); say which' \
    run --dry-run --chip h100 --kernel "$top_srcdir/examples/article_add.cu"
expect 2 "--op: 'mul' is not add"	run --kernel "$ex" --op mul
expect 2 "--dtype: 'f64' is not f32"	run --kernel "$ex" --op add --dtype f64
expect 2 "--elems-per-thread: '0'"	run --kernel "$ex" --op add --elems-per-thread 0
expect 2 "--kernel-block: '2048'"	tune --kernel "$ex" --op add --kernel-block 2048
expect 2 'names no file'		run --kernel :add --op add
expect 2 'No such file or directory'	sweep --kernel /nonexistent/k.cu:f --op relu
expect 2 "option '--size' needs a value" run --size
expect 2 "--seed: '-1'"			run --seed -1
expect 2 "unknown option '--verbose' (info takes only --device N)"	info --verbose
expect 2 "--block: 'x' is not a whole number"	run --block 32,x
expect 2 "--launch: 'rocket' is not stream, graph or both" run --launch rocket
expect 2 "--size is run's, check's and tune's, not sweep's (see ewbench sweep --help)"	sweep -s 1Mi
expect 2 "unknown option '--frequency'"	ceilings --frequency 3

# Issue 35: options given twice.  -v adds up as -s and --block do (the
# first -v was dropped); any other option with a value is refused the
# second time, --kernel and --device included; a parse error quotes the
# argument that failed, not the one before it.
expect 0 '^add_f32 .* 1Ki'	run --dry-run -v add_f32 -v add_f16 -s 1Ki
expect 0 '^add_f16 .* 1Ki'	run --dry-run -v add_f32 -v add_f16 -s 1Ki
expect 0 '^add_f16x8_pack'	check --dry-run -v add_f32,add_f16 -v 'add_f16x8*' -s 1Ki
# --block own: each variant's published block, once beside a listed one
# equal to it (add_f32x4: own 64; add_f32x4_ilp2: own 256); cub its own.
# (No TMA variant: a build without sm_90 skips those.)
expect 0 '^add_f32x4 .* 3$'	run --dry-run --no-cupti -v add_f32x4,add_f32x4_ilp2,cub_add_f32 -s 1Mi --block own,64,256,512
expect 0 '^add_f32x4_ilp2 .* 3$'	run --dry-run --no-cupti -v add_f32x4,add_f32x4_ilp2,cub_add_f32 -s 1Mi --block own,64,256,512
# cub's row, or in a build whose CCCL has no cub::DeviceTransform (CUDA
# 12.8's 2.7) its reason, the same in list, --help and the plan.
cub=yes
if "$EWBENCH" list | grep -q '^not in this build: cub_add_f32: '; then
	cub=no
	why='cub::DeviceTransform needs CCCL 2\.8 (CUDA 12\.9, or the CCCL headers)'
	expect 0 "^not in this build: cub_add_f16: $why"	list
	expect 0 "^    $why"	--help
	expect 0 "^skipped: cub_add_f32: not in this build: $why; this ewbench was built with CUDA 12\.[0-9]$" \
	    run --dry-run --no-cupti -v add_f32x4,add_f32x4_ilp2,cub_add_f32 -s 1Mi --block own,64,256,512
else
	! "$EWBENCH" --help | grep -q 'not in this build' ||
	    fail "--help says the build lacks what list does not"
	expect 0 '^cub_add_f32 .* 1$'	run --dry-run --no-cupti -v add_f32x4,add_f32x4_ilp2,cub_add_f32 -s 1Mi --block own,64,256,512
fi
# This build: its toolkit, CUPTI's API and kernel record, its driver.
expect 0 '^This build (docs/gpus.md'	--help
expect 0 '^  CUDA 1[2-9]\.[0-9] (kernels by nvcc 1[2-9]\.[0-9]), CUPTI API [0-9]* (CUpti_ActivityKernel[0-9]*)$'	--version
expect 0 '^  runs on NVIDIA drivers .* and newer$'	--version
expect 2 "--block: 'owner' is not a whole number"	run --block own,owner
# --block xK: K times each variant's own (add_f16x8 32 -> 64, 128, 256;
# add_f32 256 -> 512, 1024, and x8 past 1024 left out); cub its own,
# where this build has it
expect 0 '^add_f16x8 .* 4$'	run --dry-run --no-cupti -v add_f16x8,add_f32,cub_add_f16 -s 1Mi --block own,x2,x4,x8
expect 0 '^add_f32 .* 3$'	run --dry-run --no-cupti -v add_f16x8,add_f32,cub_add_f16 -s 1Mi --block own,x2,x4,x8
[ "$cub" = no ] ||
    expect 0 '^cub_add_f16 .* 1$'	run --dry-run --no-cupti -v add_f16x8,add_f32,cub_add_f16 -s 1Mi --block own,x2,x4,x8
expect 2 "--block's xK: '64' is not a whole number from 2 to 32"	run --block x64
# ... said, in the plan and run.json's skipped (issue 55); and when
# nothing is left, refused: never an empty run that is "complete".
expect 0 '^skipped: add_f32: --block x8 left out: 8 x its published block of 256 is 2048 threads, past the 1024 of a CUDA block$' \
    run --dry-run --no-cupti -v add_f16x8,add_f32 -s 1Mi --block own,x2,x4,x8
refused 2 '^ewbench run: nothing left to run: add_f32: --block x8 left out: 8 x its published block of 256 is 2048 threads' \
    run --dry-run --chip h100 --no-cupti -v add_f32 -s 1Mi --block x8
refused 2 'nothing left to run: add_f32: --block x8 left out: .* (and every other case likewise)$'	tune --dry-run --chip h100 -v add_f32,add_f32x4_ilp2 -s 1Mi --block x8,x16
# --residency N (issue 51's calibration): run's, a whole number, never
# beside --misalign (its scalar fallback is not the kernel capped); the
# plan shows the cap and leaves out, saying why, what it cannot pad (a
# library's, a grid-stride kernel) and a block of which an SM cannot hold
# N by threads or its block limit.  The occupancy calculator's
# confirmation runs on a GPU (tests/gpu/residency.sh).
expect 0 '^      --residency N '	run --help
expect 2 "^ewbench run: --residency: '0' is not a whole number from 1 to 1024\$"	run --residency 0
expect 2 "^ewbench run: --residency: '2x' is not a whole number from 1 to 1024\$"	run --residency 2x
expect 2 "^ewbench run: --residency given twice ('2', then '3'): give it once\$"	run --residency 2 --residency 3
expect 2 "^ewbench tune: --residency is run's, not tune's"	tune --residency 2
expect 2 "^ewbench run: --residency with --misalign: a misaligned operand runs a variant's scalar kernel" \
    run --residency 2 --misalign -v add_f32
expect 0 '^residency: at most 3 blocks per SM, each block given the dynamic shared memory that caps it' \
    run --dry-run --chip h200 --no-cupti -v add_f32,add_f32_ilp2 -s 2^28 --residency 3
expect 0 '^skipped: add_f32: --residency 3 left out at block 1024: 3072 threads, past the 2048 an SM of this GPU holds$' \
    run --dry-run --chip h200 --no-cupti -v add_f32 -s 2^28 --residency 3 --block own,x4
expect 0 '^skipped: add_f32x4_grid: --residency left out: a grid-stride kernel' \
    run --dry-run --chip h200 --no-cupti -v add_f32,add_f32x4_grid,cub_add_f32 -s 2^28 --residency 2
expect 0 '^skipped: cub_add_f32: --residency left out: it caps the study' \
    run --dry-run --chip h200 --no-cupti -v add_f32,add_f32x4_grid,cub_add_f32 -s 2^28 --residency 2
refused 2 '^ewbench run: nothing left to run: add_f32: --residency 33 left out: an SM of this GPU holds at most 32 blocks$' \
    run --dry-run --chip h200 --no-cupti -v add_f32 -s 2^28 --residency 33
# The experiments' probes: only by name, never by a pattern or default
expect 0 '^add_f32_ilp2 '	run --dry-run --no-cupti -v add_f32_ilp2 -s 1Mi
expect 2 "'add_f32_ilp\*' matches only the experiments' probes, which run only when named: add_f32_ilp2, add_f32_ilp4"	run --dry-run --no-cupti -v 'add_f32_ilp*' -s 1Mi
# --kernel without -v: its op and dtype's study variants beside it,
# never the probes (issue 55), which run only by name.
expect 0 '^user:add_f32x4_user '	run --dry-run --chip h100 --no-cupti \
    --kernel "$top_srcdir/examples/add_f32x4.cu" --elems-per-thread 4 -s 1Mi
grep -q '^add_f32x4 ' "$tmpdir/out" && ! grep -q '^add_f32_ilp' "$tmpdir/out" ||
    fail "--kernel without -v: $(cat "$tmpdir/out")"
expect 2 "--kernel given twice ('$top_srcdir/examples/add_f32x4.cu', then '$top_srcdir/examples/add_f32x4.cu'): one kernel of yours per run" \
    run --kernel "$top_srcdir/examples/add_f32x4.cu" --kernel "$top_srcdir/examples/add_f32x4.cu"
# --elementwise (issue 52): the op's family of 44 in the plan (36, and
# the 8 bulk-copy members on sm_90 and later: 2 in two stages, 6 in one),
# no built-in without -v; a
# file that is not a per-element op refused in one line, NVRTC's first
# error or the signature it needs.
op_dir=$top_srcdir/tests/opgen
# The family's compile cache (docs/user-kernels.md): the first dry run of
# an op compiles it and stores the entry, the second takes it from there
# in a fraction of the time and plans the same; a damaged entry is a miss,
# compiled again and rewritten as the first compile wrote it (NVRTC's
# output is the same for the same input); an edited source is another
# entry.
family_plan() {	# family_plan NAME OP.cu: stdout in $tmpdir/NAME, ms in $ms
	start=$(date +%s%N)
	"$EWBENCH" run --dry-run --chip h100 --no-cupti --elementwise "$2" \
	    -s 1Mi >"$tmpdir/$1" 2>"$tmpdir/$1.err" ||
	    fail "--elementwise $2: exit $?: $(cat "$tmpdir/$1.err")"
	ms=$((($(date +%s%N) - start) / 1000000))
	count=$((count + 1))
}
said() {	# said NAME PATTERN: NAME's line of the family's build matches
	grep -q "^ewbench: --elementwise .*: 44 kernels (2 inputs, f32) $2" \
	    "$tmpdir/$1" || fail "$1: not '$2': $(head -c 400 "$tmpdir/$1")"
}
same_plan() {	# same_plan NAME NAME: the plans alike but for that line
	grep -v '^ewbench: --elementwise ' "$tmpdir/$1" >"$tmpdir/$1.plan"
	grep -v '^ewbench: --elementwise ' "$tmpdir/$2" >"$tmpdir/$2.plan"
	cmp -s "$tmpdir/$1.plan" "$tmpdir/$2.plan" ||
	    fail "$1 and $2 plan differently: $(diff "$tmpdir/$1.plan" "$tmpdir/$2.plan" | head -5)"
}
op=$tmpdir/op_add.cu
cp "$top_srcdir/examples/op_add.cu" "$op"
family_plan miss "$op"
said miss 'compiled for sm_90 in [0-9.]* s (NVRTC'
compiled_ms=$ms
entry=$(echo "$XDG_CACHE_HOME"/ewbench/*.family)
[ -f "$entry" ] || fail "no family's entry in the cache: $(ls -l "$XDG_CACHE_HOME/ewbench")"
family_plan hit "$op"
said hit "for sm_90 from the cache ($entry)"
same_plan miss hit
[ $((ms * 3)) -lt "$compiled_ms" ] ||
    fail "a cache hit took $ms ms, a compile $compiled_ms ms: not a third"
cp "$entry" "$tmpdir/entry"
# One byte of the image changed: the digest no longer matches.
size=$(wc -c <"$entry")
printf X | dd of="$entry" bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
cmp -s "$entry" "$tmpdir/entry" && fail "the entry was not damaged"
family_plan damaged "$op"
said damaged 'compiled for sm_90 in'
same_plan miss damaged
cmp -s "$entry" "$tmpdir/entry" ||
    fail "the damaged entry not rewritten as the first compile wrote it"
family_plan rewritten "$op"
said rewritten 'for sm_90 from the cache'
printf '// edited\n' >>"$op"
family_plan edited "$op"
said edited 'compiled for sm_90 in'
[ "$(find "$XDG_CACHE_HOME/ewbench" -name "*.family" | wc -l)" -eq 2 ] ||
    fail "the edited op's entry not beside the first: $(ls "$XDG_CACHE_HOME/ewbench")"
# A header the op #includes is part of the key: edited, the op compiles
# again (a stale entry would run the old code under the new name).
mkdir "$tmpdir/inc"
printf '__device__ __forceinline__ float body(float a, float b) { return a + b; }\n' \
    >"$tmpdir/inc/body.h"
printf '#include "body.h"\n__device__ float\nadd(float a, float b)\n{\n\treturn body(a, b);\n}\n' \
    >"$tmpdir/inc/op.cu"
family_plan header "$tmpdir/inc/op.cu"
said header 'compiled for sm_90 in'
family_plan header_hit "$tmpdir/inc/op.cu"
said header_hit 'for sm_90 from the cache'
printf '// edited\n' >>"$tmpdir/inc/body.h"
family_plan header_edited "$tmpdir/inc/op.cu"
said header_edited 'compiled for sm_90 in'
expect 0 '^gen:add:bulk_v128_k2 '	run --dry-run --chip h100 --no-cupti \
    --elementwise "$top_srcdir/examples/op_add.cu" -s 1Mi
[ "$(grep -c '^gen:add:' "$tmpdir/out")" -eq 44 ] &&
    grep -q '^gen:add:bulkone_v32_k3 ' "$tmpdir/out" &&
    ! grep -q '^add_f32' "$tmpdir/out" ||
    fail "--elementwise without -v: $(cat "$tmpdir/out")"
# Without --block each member at the five blocks 64 to 1024, a built-in
# at its own; with --block, those.
expect 0 '^gen:add:tile_v32_k1 *1Mi *1Mi *5$'	run --dry-run --chip h100 \
    --no-cupti --elementwise "$top_srcdir/examples/op_add.cu" -s 1Mi -v add_f32x4
grep -q '^add_f32x4 *1Mi *1Mi *1$' "$tmpdir/out" ||
    fail "--elementwise: a built-in not at its own block: $(cat "$tmpdir/out")"
expect 0 '^gen:add:tile_v32_k1 *1Mi *1Mi *2$'	run --dry-run --chip h100 \
    --no-cupti --elementwise "$top_srcdir/examples/op_add.cu" -s 1Mi --block own,64
# -v picks among the built-ins and the members alike: members it names
# run alone (a glob, an id); a -v that names none leaves all 36; a
# pattern matching neither is refused in one line, members suggested.
expect 0 '^gen:add:tile_v128_k8 '	run --dry-run --chip h100 --no-cupti \
    --elementwise "$top_srcdir/examples/op_add.cu" -s 1Mi -v 'gen:add:tile*'
[ "$(grep -c '^gen:add:tile_' "$tmpdir/out")" -eq 12 ] &&
    ! grep -q -e '^gen:add:stride' -e '^gen:add:runs' -e '^add_f32' "$tmpdir/out" ||
    fail "-v 'gen:add:tile*': $(cat "$tmpdir/out")"
expect 0 '^gen:add:stride_v32_k1 *1Mi *1Mi *1$'	run --dry-run --chip h100 \
    --no-cupti --elementwise "$top_srcdir/examples/op_add.cu" -s 1Mi \
    --block 256 -v gen:add:stride_v32_k1,cub_add_f32
[ "$(grep -c '^gen:add:' "$tmpdir/out")" -eq 1 ] &&
    grep -q '^cub_add_f32 ' "$tmpdir/out" ||
    fail "-v a member and cub: $(cat "$tmpdir/out")"
expect 0 '^add_f32x4 '	check --dry-run --chip h100 \
    --elementwise "$top_srcdir/examples/op_add.cu" -s 7 -v add_f32x4
[ "$(grep -c '^gen:add:' "$tmpdir/out")" -eq 44 ] ||
    fail "-v of built-ins only: not the whole family: $(cat "$tmpdir/out")"
refused 2 "^ewbench run: unknown variant 'gen:add:tile_v128_k9'; did you mean gen:add:tile_v128_k1, .*(--elementwise's members: gen:add:tile_v32_k1 \\.\\.\\. gen:add:bulkone_v128_k2" \
    run --dry-run --chip h100 --no-cupti \
    --elementwise "$top_srcdir/examples/op_add.cu" -s 1Mi -v gen:add:tile_v128_k9
refused 2 "^ewbench run: --elementwise $op_dir/bad_type.cu:twice: not a per-element op NVRTC [0-9.]* compiles: ewbench: --elementwise needs T twice(T, ...)" \
    run --dry-run --chip h100 --elementwise "$op_dir/bad_type.cu"
refused 2 'bad_syntax.cu:inc: not a per-element op NVRTC [0-9.]* compiles: .*error' \
    check --dry-run --chip h100 --elementwise "$op_dir/bad_syntax.cu"
refused 2 '2 __device__ functions in it (twice, mix4...): name one' \
    check --dry-run --chip h100 --elementwise "$op_dir/mix_f16.cu"
expect 0 '^gen:mix4:tile_v16_k1 '	check --dry-run --chip h100 \
    --elementwise "$op_dir/mix_f16.cu:mix4" -s 1Mi
# bf16 arithmetic is sm_80's: a bf16 op on a T4 (sm_75) refused in one
# line that names sm_80, as --kernel's is (below); an f32 op planned there.
refused 2 "^ewbench run: --elementwise $top_srcdir/examples/op_fma_bf16.cu:fma3: needs sm_80 or newer: it does not compile for sm_75 and does for sm_80 (NVRTC" \
    run --dry-run --chip T4 --elementwise "$top_srcdir/examples/op_fma_bf16.cu" -s 7
expect 0 '^gen:add:tile_v32_k1 '	check --dry-run --chip T4 \
    --elementwise "$top_srcdir/examples/op_add.cu" -s 7
# Bulk copies are sm_90's: on a T4 the bulk and bulkone members are left
# out, saying why, and the other 36 planned.
grep -q '^skipped: gen:add:bulk_v128_k1: needs compute capability 9\.0, this GPU has 7\.5' \
    "$tmpdir/out" &&
    grep -q '^skipped: gen:add:bulkone_v32_k3: needs compute capability 9\.0, this GPU has 7\.5' \
    "$tmpdir/out" && [ "$(grep -c '^gen:add:' "$tmpdir/out")" -eq 36 ] ||
    fail "--elementwise on a T4: the bulk members not left out: $(cat "$tmpdir/out")"
expect 2 "--elementwise given twice ('a.cu', then 'b.cu'): one op of yours per run" \
    run --elementwise a.cu --elementwise b.cu
expect 2 "--elementwise"	sweep --elementwise a.cu
expect 2 "--device given twice ('0', then '1')"	run --device 0 --device 1
expect 2 "--metrics given twice ('dram', then 'sol')"	run --metrics dram --metrics sol
expect 2 "--cache given twice ('warm', then 'cold')"	run --cache warm --cache cold
expect 2 "--iters given twice ('2', then '3')"	ceilings --iters 2 --iters 3
expect 2 "--out given twice"	run -o "$tmpdir/twice-a" -o "$tmpdir/twice-b"
[ ! -e "$tmpdir/twice-a" ] && [ ! -e "$tmpdir/twice-b" ] ||
    fail "a refused second --out left a directory behind"
expect 2 "unknown option '-=' in '-q=1' for 'run'"	run -q=1 -v add_f32 --dry-run
expect 2 "unknown option '-=' in '-q=1' for 'ceilings'"	ceilings -q=1 --dry-run
expect 2 "unknown option '-x' in '-qx'"	run -qx
expect 2 "option '-qs' needs a value"	run -qs
expect 2 "--device given twice ('0', then '0'): info shows one GPU"	info --device 0 --device 0
expect 2 "unexpected argument '3' (info takes only --device N)"	info 3
# Issue 55: once-only flags once too; numbers in base 10 ("010" is ten,
# "08" eight); an option of another command refused, naming whose it is;
# an abbreviation of two options, or a value given to a flag, said as
# such (not "unknown option").
expect 2 '^ewbench run: --dry-run given twice: give it once$'	run --dry-run --dry-run
expect 2 '^ewbench check: --quiet given twice: give it once$'	check -q --quiet
expect 2 '^ewbench ceilings: --dry-run given twice: give it once$'	ceilings --dry-run --dry-run
# (metrics says its page on a second line)
"$EWBENCH" metrics --list --list 2>&1 | grep -q '^ewbench metrics: --list given twice: give it once$' ||
    fail "metrics --list --list: $("$EWBENCH" metrics --list --list 2>&1 | head -c 300)"
expect 0 '^1 sizes up to 1; '	run --dry-run --chip h100 --no-cupti -v add_f32 -s 1 --seed 08
expect 2 "^ewbench run: --seed: '0x10' is not an unsigned 64-bit number\$"	run --seed 0x10
expect 2 "^ewbench check: --iters is run's, sweep's and tune's, not check's (see ewbench check --help)\$"	check --iters 5
expect 2 "^ewbench run: --density is sweep's, not run's (see ewbench run --help)\$"	run --density 4
expect 2 "^ewbench check: --out is run's, sweep's and tune's, not check's"	check -o "$tmpdir/check-out"
[ ! -e "$tmpdir/check-out" ] || fail "check -o, refused, left its directory"
expect 2 "^ewbench check: --metrics is run's, sweep's and tune's, not check's"	check --metrics dram
expect 2 "^ewbench tune: --energy-window is run's, not tune's"	tune --energy-window 2
expect 2 "^ewbench run: option '--max' is ambiguous (--max-iters, --max-time): give more of its name\$"	run --max 3
expect 2 "^ewbench run: option '--dry-run' takes no value (given '--dry-run=1')\$"	run --dry-run=1
expect 2 "^ewbench run: option '--no-cupti' takes no value (given '--no-cu=yes')\$"	run --no-cu=yes
expect 2 "^ewbench ceilings: option '--quiet' takes no value (given '--quiet=1')\$"	ceilings --quiet=1
expect 2 "^ewbench info: option '--device' needs a value"	info --device
expect 2 "^ewbench run: unknown option '--frob=1' for 'run'"	run --frob=1

expect 2 '--out: an empty directory name'	run -o ''
expect 2 '--out: an empty directory name'	ceilings -o ''
expect 2 "--block: empty item in '64,,128'"	run --block 64,,128
expect 2 "--density: '0' is not a whole number from 1 to 12"	sweep --density 0
expect 2 "no metric group 'residncy'"	run --metrics residncy
# --energy: run's, with a window of 1 to 60 s, never beside --trace; the
# plan says what it costs.
expect 0 '^      --energy  '		run --help
! "$EWBENCH" sweep --help | grep -q -e '--energy' ||
    fail "sweep --help lists --energy, which only run takes"
expect 2 "--energy is run's, not sweep's (see ewbench sweep --help)"	sweep --energy
expect 2 "--energy is run's, not tune's"	tune --energy
expect 2 "--energy-window is the length of --energy's windows: it needs --energy"	run --energy-window 2
expect 2 "--energy-window: '0.5' is not a number from 1 to 60"	run --energy --energy-window 0.5
expect 2 '--energy with --trace'	run --energy --trace "$tmpdir/t.json"
expect 0 '^1 energy points (warm, graph): an idle window and 3 of 2 s each, about 10 s a point'	run --dry-run --chip h100 -v add_f32 -s 256Mi --energy --energy-window 2
expect 2 'groups: default'		sweep --metrics residncy

# Device lists: "all" or whole numbers, no empty item; one GPU per trace.
expect 2 "--device: empty item in '0,,1'"	run --device 0,,1
expect 2 "--device: empty item in '0,'"		ceilings --device 0,
expect 2 "--device: 'gpu0' is not a whole number"	sweep --device gpu0
expect 2 "--device: '1024' is not a whole number from 0 to 1023" tune --device 1024
expect 2 '--trace takes one GPU'		run --device all --trace "$tmpdir/t.json"
# A trace named as one of the run's own files in its --out is refused
# before anything is written (issue 54: the README once wrote
# --trace run.json); another name there is planned.
mkdir "$tmpdir/tr"
expect 2 "^ewbench run: --trace $tmpdir/tr/run.json: is the run's own run.json in --out $tmpdir/tr; name the trace otherwise" \
    run --dry-run --chip h100 --trace "$tmpdir/tr/run.json" -o "$tmpdir/tr" \
    -v add_f32 -s 1Ki
expect 0 '^add_f32 ' run --dry-run --chip h100 --trace "$tmpdir/tr/timeline.json" \
    -o "$tmpdir/tr" -v add_f32 -s 1Ki
[ -z "$(ls "$tmpdir/tr")" ] || fail "a dry run wrote into --out: $(ls "$tmpdir/tr")"
expect 2 'give -o on its own'			run --device 0,1 -qo "$tmpdir/bundled"
[ ! -e "$tmpdir/bundled" ] || fail "a refused fleet left its --out behind"

# A launcher's malformed rank is refused before anything else.
export SLURM_PROCID=x
expect 2 "SLURM_PROCID='x' is not a rank"	run -o "$tmpdir/rank-x"
unset SLURM_PROCID
[ ! -e "$tmpdir/rank-x" ] || fail "a malformed rank left its --out behind"

# A fleet's parent directory is refused when it holds a fleet, a run, or
# a member of an earlier fleet, and left untouched.
mkdir -p "$tmpdir/fleet-held" "$tmpdir/fleet-member/h-gpu0"
echo 'earlier fleet' >"$tmpdir/fleet-held/fleet.json"
echo 'earlier member' >"$tmpdir/fleet-member/h-gpu0/run.json"
for cmd in run ceilings; do
	expect 2 'already holds a run (fleet.json)' $cmd --device all -o "$tmpdir/fleet-held"
	expect 2 "already holds a fleet's member (h-gpu0/run.json)" $cmd --device 0,1 -o "$tmpdir/fleet-member"
done
[ "$(cat "$tmpdir/fleet-held/fleet.json")" = 'earlier fleet' ] &&
    [ "$(ls "$tmpdir/fleet-held")" = fleet.json ] ||
    fail "an occupied fleet directory was touched"
# ... and a run is refused in a fleet's parent directory.
expect 2 'already holds a run (fleet.json)'	run -o "$tmpdir/fleet-held"

# One task of a scheduler's fleet: --out is the fleet's directory, the
# member is <node>-rank<R>, the GPU the local rank's.  A dry run says so
# (and writes nothing), with or without a GPU.
set +e
"$EWBENCH" info >/dev/null 2>&1
gpu_rc=$?
set -e
[ "$gpu_rc" = 0 ] || gpu_rc=5
# Local rank 1 takes device 1, unless one GPU is all the task sees.
want_device=1
[ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" = 1 ] && want_device=0
export SLURM_PROCID=3 SLURM_LOCALID=1 SLURMD_NODENAME=nodeA.cluster
# A dry run plans with or without a GPU (exit 0).
expect 0 "slurm rank 3 (local rank 1) on nodeA: device $want_device, run directory $tmpdir/task/nodeA-rank3" \
    run --dry-run --out "$tmpdir/task"
[ ! -e "$tmpdir/task" ] || fail "a dry run wrote $tmpdir/task"
# mpirun inside a batch script: Open MPI's ranks, not the batch step's.
export OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_LOCAL_RANK=0
expect 0 "openmpi rank 5 (local rank 0) on .*-rank5" \
    run --dry-run --out "$tmpdir/task"
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_LOCAL_RANK
# An explicit --device makes it an ordinary run in --out itself.
set +e
"$EWBENCH" run --dry-run --device 0 --out "$tmpdir/task" >"$tmpdir/out" 2>&1
set -e
! grep -q 'run directory' "$tmpdir/out" ||
    fail "--device under Slurm still made a member: $(cat "$tmpdir/out")"
if [ "$gpu_rc" = 5 ]; then
	# Without a GPU the task fails to start: its member directory is
	# released (the shared parent may stay: other tasks may be in it).
	expect 5 'no CUDA GPU is usable here'	run --out "$tmpdir/task"
	[ ! -e "$tmpdir/task/nodeA-rank3" ] ||
	    fail "a task without a GPU left $(find "$tmpdir/task")"
fi
unset SLURM_PROCID SLURM_LOCALID SLURMD_NODENAME

# A directory that holds a run (or any part of one) is refused before the
# device is opened, with or without a GPU, and left exactly as it was.
for file in run.json timing.csv metrics.csv ceilings.csv; do
	mkdir -p "$tmpdir/held-$file"
	echo 'earlier run' >"$tmpdir/held-$file/$file"
	for cmd in run sweep tune ceilings; do
		expect 2 "already holds a run ($file)" $cmd -o "$tmpdir/held-$file"
		[ "$(ls "$tmpdir/held-$file")" = "$file" ] &&
		    [ "$(cat "$tmpdir/held-$file/$file")" = 'earlier run' ] ||
		    fail "$cmd -o held-$file: the earlier run was touched"
	done
done

# The article's kernels as pasted (int N, non-const inputs, its macros)
# compile and plan; a size whose launch an int count cannot cover is left
# out for that kernel, saying why (issue 31).
art=$top_srcdir/examples/article_add.cu
expect 0 '^user:elementwise_add_f16x8_pack_kernel 1Mi' run --dry-run --chip h100 \
    --kernel "$art:elementwise_add_f16x8_pack_kernel" --elems-per-thread 8 \
    --kernel-block 32 -v add_f16x8_pack -s 1Mi
expect 0 'skipped: user:elementwise_add_f32x4_kernel: n=2147483651, block 64: its launch covers elements 0 to 2147483903, past what its int (32-bit signed) element count holds (at most 2147483647)' \
    run --dry-run --chip h100 --kernel "$art:elementwise_add_f32x4_kernel" \
    --elems-per-thread 4 --kernel-block 64 -v add_f32x4 -s 16Mi,2147483651
grep -q '^user:elementwise_add_f32x4_kernel 16Mi *16Mi *1$' "$tmpdir/out" ||
    fail "the int-count kernel's 16Mi case: $(cat "$tmpdir/out")"

# An op taken from the signature is said in the plan (issue 41: a SiLU of
# three parameters was planned as a relu, silently), with the way out.
printf '__global__ void silu_f32(const float *x, float *y, size_t n) {\n  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i] / (1.0f + __expf(-x[i]));\n}\n' >"$tmpdir/silu_f32.cu"
expect 0 '^user:silu_f32: op relu, dtype f32, taken from its 3 parameters (const float \*a, float \*c, size_t n): if it is not a relu, give --reference REF.cu' \
    run --dry-run --chip h100 -q --kernel "$tmpdir/silu_f32.cu" -s 1Mi
expect 0 '^user:silu_f32: op relu (--op), dtype f32 (from its parameters)$' \
    run --dry-run --chip h100 -q --kernel "$tmpdir/silu_f32.cu" --op relu -s 1Mi
# A --kernel's #included header is part of its cache key too: edited,
# the kernel compiles again.
printf '__device__ __forceinline__ float twice(float x) { return x + x; }\n' \
    >"$tmpdir/inc/twice.h"
printf '#include "twice.h"\n__global__ void dbl(const float *x, float *y, size_t n) {\n  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;\n  if (i < n) y[i] = twice(x[i]);\n}\n' \
    >"$tmpdir/inc/dbl.cu"
expect 0 'dbl.cu.* compiled for sm_90' run --dry-run --chip h100 \
    --kernel "$tmpdir/inc/dbl.cu" --op relu -s 1Mi
expect 0 'dbl.cu.* for sm_90 from the cache' run --dry-run --chip h100 \
    --kernel "$tmpdir/inc/dbl.cu" --op relu -s 1Mi
printf '// edited\n' >>"$tmpdir/inc/twice.h"
expect 0 'dbl.cu.* compiled for sm_90' run --dry-run --chip h100 \
    --kernel "$tmpdir/inc/dbl.cu" --op relu -s 1Mi

# Your own op (issue 31): a 3-input bf16 kernel with its reference kernel
# compiles and plans without a GPU, beside the built-in variants that move
# as many bytes per element (8: relu and abs in f32), on four input-sized
# arrays and a fourth input; a tolerance without a reference, --op beside
# one and bf16 without one are refused.
fma=$top_srcdir/examples/fma_bf16.cu
fma_ref=$top_srcdir/examples/fma_bf16_ref.cu
expect 0 '^user:fma_bf16 *1000003 *16Mi *2$' run --dry-run --chip h100 \
    --kernel "$fma" --reference "$fma_ref" --ulps 1 --elems-per-thread 2 \
    -s 1000003,16Mi
grep -q 'its reference: .*fma_bf16_ref.cu \(compiled for sm_90\|for sm_90 from the cache\)' \
    "$tmpdir/out" || fail "the reference's build not said: $(cat "$tmpdir/out")"
grep -q '^relu_f32 ' "$tmpdir/out" && grep -q '^abs_f32 ' "$tmpdir/out" ||
    fail "not planned beside the 8-byte built-ins: $(cat "$tmpdir/out")"
if grep -q '^add_f32 \|^add_f16 \|^relu_f16 ' "$tmpdir/out"; then
	fail "planned beside built-ins of other bytes: $(cat "$tmpdir/out")"
fi
# Requirements checked per architecture (issue 54): bf16 arithmetic
# (__hfma2) is sm_80's: on a T4 (sm_75) one line names sm_80, not NVRTC's
# errors; its reference (float math) and an f32 example compile there.
# (stdout says first whose facts it plans with: the error is stderr's one
# line.)
set +e
"$EWBENCH" check --dry-run --chip T4 --kernel "$fma" --reference "$fma_ref" \
    --ulps 1 --elems-per-thread 2 -s 7 >/dev/null 2>"$tmpdir/err"
got=$?
set -e
[ "$got" = 2 ] && [ "$(wc -l <"$tmpdir/err")" -eq 1 ] &&
    grep -q "^ewbench check: $fma: needs sm_80 or newer: it does not compile for sm_75 and does for sm_80; bf16 arithmetic" "$tmpdir/err" ||
    fail "bf16 on a T4: exit $got: $(cat "$tmpdir/err")"
expect 0 '^user:fma_bf16_ref ' check --dry-run --chip T4 --kernel "$fma_ref" \
    --reference "$fma_ref" -s 7
expect 0 '^user:silu_mul_f32 *7 *7 *1$' check --dry-run --chip T4 \
    --kernel "$top_srcdir/examples/silu_mul_f32.cu" --reference \
    "$top_srcdir/examples/silu_mul_f32_ref.cu:silu_mul_f32_ref" --rel 1e-5 \
    -v add_f32 -s 7
expect 0 '^user:silu_mul_f32 *7 *7 *1$' check --dry-run --chip h100 \
    --kernel "$top_srcdir/examples/silu_mul_f32.cu" --reference \
    "$top_srcdir/examples/silu_mul_f32_ref.cu:silu_mul_f32_ref" --rel 1e-5 \
    -v add_f32 -s 7
# (NVRTC's log follows the first line.)
set +e
"$EWBENCH" run --dry-run --chip h100 --kernel "$fma" --reference \
    "$top_srcdir/examples/silu_mul_f32_ref.cu" -s 7 -q >"$tmpdir/out" 2>&1
got=$?
set -e
[ "$got" = 2 ] && head -n 1 "$tmpdir/out" | grep -q 'silu_mul_f32_ref does not have the signature of the kernel and its reference (3 inputs, --dtype bf16)' ||
    fail "a reference of another signature: exit $got: $(cat "$tmpdir/out")"
expect 2 '^ewbench run: --ulps, --rel, --atol and --rtol are the tolerance of a check against --reference' \
    run --dry-run --chip h100 --kernel "$top_srcdir/examples/add_f32x4.cu" \
    --ulps 1
# torch.testing.assert_close's rule (issue 41): --atol and --rtol, their
# ranges, once each, with --reference only; planned beside --ulps.
expect 2 '^ewbench check: --ulps, --rel, --atol and --rtol are the tolerance' \
    check --dry-run --chip h100 --kernel "$top_srcdir/examples/add_f32x4.cu" \
    --atol 1e-3
expect 2 "^ewbench check: --atol: '2' is not a number from 0 to 1\$" \
    check --dry-run --kernel "$fma" --reference "$fma_ref" --atol 2
expect 2 "^ewbench check: --rtol: 'x' is not a number from 0 to 0.25\$" \
    check --dry-run --kernel "$fma" --reference "$fma_ref" --rtol x
expect 2 "--atol given twice ('1e-3', then '1e-2')" \
    check --dry-run --kernel "$fma" --reference "$fma_ref" --atol 1e-3 --atol 1e-2
expect 0 '^user:fma_bf16 *7 *7 *1$' check --dry-run --chip h100 \
    --kernel "$fma" --reference "$fma_ref" --ulps 1 --atol 1e-3 --rtol 1e-2 \
    --elems-per-thread 2 -s 7
grep -q '^user:fma_bf16: your own op, checked against --reference .*fma_bf16_ref.cu (equal, or within 1 ulp, or |got - expected| <= 0.001 + 0.01 |expected|), in bf16 (from its parameters)$' \
    "$tmpdir/out" || fail "the plan does not say the tolerance: $(cat "$tmpdir/out")"
# --atol alone: --rtol is assert_close's for bf16.
expect 0 '(equal, or |got - expected| <= 0.001 + 0.016 |expected|), in bf16' \
    check --dry-run --chip h100 --kernel "$fma" --reference "$fma_ref" \
    --atol 1e-3 -s 7
expect 2 'leave out --op' run --dry-run --chip h100 --kernel "$fma" \
    --reference "$fma_ref" --op add
expect 2 'in bf16 needs a reference kernel' run --dry-run --chip h100 \
    --kernel "$top_srcdir/examples/add_f32x4.cu" --dtype bf16
expect 2 'one reference kernel per run' run --dry-run --chip h100 \
    --kernel "$fma" --reference "$fma_ref" --reference "$fma_ref"

# `--kernel examples/FILE.cu` from a folder without it: ewbench's own
# examples (here the source tree's; installed, share/ewbench/examples).
(cd "$tmpdir" && "$EWBENCH" run --dry-run --chip h100 --kernel \
    examples/add_f32x4.cu --elems-per-thread 4 --kernel-block 64 \
    -v add_f32x4 -s 16Mi) >"$tmpdir/out" 2>&1 ||
    fail "examples/ from elsewhere: $(cat "$tmpdir/out")"
# The path as ewbench prints it (a VPATH build's has "../.." in it).
taken=$(sed -n 's/^ewbench: user:add_f32x4_user: \([^ ]*\) .*sm_90.*/\1/p' \
    "$tmpdir/out")
[ -n "$taken" ] && [ "$(cd "$(dirname "$taken")" && pwd -P)/$(basename "$taken")" = \
    "$top_srcdir/examples/add_f32x4.cu" ] ||
    fail "examples/ not taken from the source tree: $(cat "$tmpdir/out")"
# ... and one that is in neither says where ewbench looked (issue 54).
set +e
(cd "$tmpdir" && "$EWBENCH" run --dry-run --chip h100 --kernel \
    examples/no_such_example.cu) >"$tmpdir/out" 2>&1
rc=$?
set -e
[ $rc = 2 ] && [ "$(wc -l <"$tmpdir/out")" = 1 ] &&
    grep -q "^ewbench run: examples/no_such_example.cu: No such file or directory (nor in ewbench's own examples: .*examples)\$" "$tmpdir/out" ||
    fail "a missing examples/ file: exit $rc: $(cat "$tmpdir/out")"

# The kernels' SASS (issue 41: a build without cuobjdump recorded none,
# silently): --version says whether this build holds it, and where it
# does not, the plan of a command that writes a run directory says so.
sass=$("$EWBENCH" --version | sed -n "s/^kernels' SASS (sass.csv): //p")
[ -n "$sass" ] || fail "--version does not say whether the SASS is recorded"
for cmd in run check; do
	"$EWBENCH" $cmd --dry-run --chip h100 -v add_f32 -s 1Ki >"$tmpdir/out" 2>&1 ||
	    fail "$cmd --dry-run: $(cat "$tmpdir/out")"
	said=$(sed -n 's/^sass.csv: //p' "$tmpdir/out")
	if [ "$sass" = recorded ] || [ $cmd = check ]; then
		[ -z "$said" ] || fail "$cmd --dry-run says sass.csv: $said"
	else
		[ "$said" = "$sass" ] ||
		    fail "$cmd --dry-run: sass.csv '$said', --version '$sass'"
	fi
done

# --help's Files: the folders this ewbench resolves, each there (issue
# 41: the build tree's named /usr/local/share/ewbench, which the build
# tree never uses); here the source tree's.
help_files() {	# the folders of `$1 --help`'s Files, one a line
	"$1" --help | sed -n '/^Files/,/^$/s/^  \(\/[^ ]*\)$/\1/p'
}
src=$top_srcdir
[ "$(help_files "$EWBENCH" | wc -l)" = 4 ] ||
    fail "--help's Files: $("$EWBENCH" --help | sed -n '/^Files/,/^$/p')"
for d in $(help_files "$EWBENCH"); do
	[ -d "$d" ] || fail "--help names $d, which does not exist"
done
help_files "$EWBENCH" | grep -qx "$src/examples" ||
    fail "the build tree's --help does not name $src/examples: $(help_files "$EWBENCH")"

# A build tree moved (issue 41: "no metric group 'default'", naming
# neither where it was built nor the fix): built in its source tree (a
# clone, moved), it uses the source beside it; a separate build directory
# moved uses the source tree it was configured from.  A metric group only
# the moved copy has tells where it looked.
clone=$tmpdir/clone
mkdir "$clone" "$tmpdir/build"
cp "$EWBENCH" "$top_srcdir/configure.ac" "$clone/"
cp -R "$top_srcdir/metrics" "$top_srcdir/examples" "$top_srcdir/docs" \
    "$top_srcdir/python" "$clone/"
cp "$clone/metrics/dram.txt" "$clone/metrics/moved.txt"
: >"$clone/config.status"
cp "$EWBENCH" "$tmpdir/build/"
: >"$tmpdir/build/config.status"
clone=$(cd "$clone" && pwd -P)
[ "$(help_files "$clone/ewbench" | grep -c "^$clone/")" = 4 ] ||
    fail "the moved clone's --help: $(help_files "$clone/ewbench")"
(unset EWBENCH_METRICS_DIR; cd / &&
    "$clone/ewbench" metrics --list --metrics moved >/dev/null 2>&1 &&
    "$clone/ewbench" run --dry-run --chip h100 -v add_f32 -s 1Ki >/dev/null 2>&1 &&
    "$clone/ewbench" run --dry-run --chip h100 --kernel examples/add_f32x4.cu \
    -v add_f32x4 -s 1Ki 2>&1 | grep -q "$clone/examples/add_f32x4.cu") ||
    fail "the moved clone does not use the source beside it"
[ "$(help_files "$tmpdir/build/ewbench" | grep -c "^$src/")" = 4 ] ||
    fail "a moved build directory's --help: $(help_files "$tmpdir/build/ewbench")"
(unset EWBENCH_METRICS_DIR; cd / &&
    "$tmpdir/build/ewbench" run --dry-run --chip h100 -v add_f32 -s 1Ki >/dev/null 2>&1) ||
    fail "a moved build directory does not use its source tree"
# ... and where the source is not there either, it says how it came to be
# and what to do.
set +e
(unset EWBENCH_METRICS_DIR; "$tmpdir/build/ewbench" run --dry-run --chip h100 \
    --metrics moved -v add_f32 -s 1Ki) >"$tmpdir/out" 2>&1
set -e
grep -q "no metric group 'moved' (searched .*); this ewbench is a build tree's, moved from .* (its source tree: .*): run ./configure and make in $tmpdir/build, or make install" \
    "$tmpdir/out" || fail "a moved build tree's missing group: $(cat "$tmpdir/out")"

# Plans for a GPU by name need no GPU; --chip needs --dry-run.
expect 0 'plan for the facts of --chip h200 (NVIDIA H200; '	run --dry-run --chip h200
expect 0 '^plan: ewbench ceilings on Tesla T4'	ceilings --dry-run --chip T4
expect 2 'no facts for it (known: H100 (GH100), H200'	run --dry-run --chip GX999
expect 2 'needs --dry-run'	sweep --chip GH100
expect 2 'needs --dry-run'	ceilings --chip GH100
# A dry run refuses what the run would (issues 54, 55): a size past the
# address space or past the GPU's memory (exit 4), an --out that holds a
# run (exit 2); and a fleet's needs no GPU either: planned once.
refused 4 "^ewbench run: --size 9223372036854775808 is too large to address\$" \
    run --dry-run --chip h100 -v add_f32 -s 2^63
refused 4 '^ewbench run: size 1Ti needs 16.0 TiB of GPU memory (3 arrays, the expected output and an L2 flush buffer); the NVIDIA H100 80GB HBM3 has 79.0 GiB$' \
    run --dry-run --chip h100 -v add_f32 -s 1Ti
refused 4 'size 1Ti needs'	check --dry-run --chip t4 -v add_f32 -s 1Ti
mkdir "$tmpdir/held" && : >"$tmpdir/held/run.json"
for cmd in "run -v add_f32 -s 1Ki" "sweep -v add_f32" "tune -v add_f32" ceilings; do
	expect 2 "^ewbench ${cmd%% *}: --out $tmpdir/held already holds a run (run.json); choose another directory\$" \
	    $cmd --dry-run --chip h100 -o "$tmpdir/held"
done
expect 2 "--out $tmpdir/held already holds a run"	run --dry-run -o "$tmpdir/held"
expect 0 '^plan: one member per GPU of --device all, each with this plan$' \
    run --device all --dry-run --chip H100 -v add_f32 -s 1Ki
expect 0 '^add_f32 '	run --device all --dry-run --chip H100 -v add_f32 -s 1Ki
expect 0 '^plan: ewbench ceilings on Tesla T4'	ceilings --device 0,1 --dry-run --chip T4
# ceilings' plan: each row's method whole, however long (it was cut at
# 255 characters, mid-word): every one ends as describe.c ends them.
"$EWBENCH" ceilings --dry-run --chip h100 --iters 100000 >"$tmpdir/plan"
awk 'NR > 2 && !/^[0-9]+ ceilings, / && !/; median of [0-9]+ after 3 warm-up$/' \
    "$tmpdir/plan" >"$tmpdir/cut"
[ ! -s "$tmpdir/cut" ] && [ "$(wc -l <"$tmpdir/plan")" -gt 60 ] ||
    fail "ceilings --dry-run: rows cut short: $(head -c 600 "$tmpdir/cut")"

# Without a GPU, commands that need one say so and exit 5.
set +e
"$EWBENCH" info >/dev/null 2>&1
rc=$?
set -e
if [ "$rc" = 5 ]; then
	expect 5 'no CUDA GPU is usable here'	info
	expect 5 'no CUDA GPU is usable here'	run -v add_f32 -s 1Ki
	expect 5 'no CUDA GPU is usable here'	check
	expect 5 'no CUDA GPU is usable here'	sweep -v add_f32
	expect 5 'no CUDA GPU is usable here'	tune -v add_f32
	expect 5 'no CUDA GPU is usable here'	run --preset tiers -s 256Mi
	expect 5 'no CUDA GPU is usable here'	ceilings
	# ... but plan without one: a generic estimate, said as such.
	for cmd in run sweep tune ceilings; do
		out=$("$EWBENCH" $cmd --dry-run) || fail "$cmd --dry-run without a GPU exited $?"
		echo "$out" | grep -q 'a generic estimate follows, for the facts of GH100' ||
		    fail "$cmd --dry-run without a GPU: $out"
		echo "$out" | grep -q '^plan: ewbench '"$cmd"' on NVIDIA H100' ||
		    fail "$cmd --dry-run printed no plan: $out"
	done
	# ... and leave nothing behind where they were to write.
	for cmd in run sweep tune ceilings; do
		expect 5 'no CUDA GPU is usable here' $cmd -o "$tmpdir/new/$cmd/out"
		[ ! -e "$tmpdir/new" ] || fail "$cmd without a GPU left $(find "$tmpdir/new")"
	done
	mkdir "$tmpdir/empty"
	expect 5 'no CUDA GPU is usable here'	run -o "$tmpdir/empty"
	[ -d "$tmpdir/empty" ] && [ -z "$(ls -A "$tmpdir/empty")" ] ||
	    fail "run -o an empty directory without a GPU left files in it"
	# A fleet without a GPU: exit 5, and its parent directory is
	# released as a run's directory is.
	for cmd in run ceilings; do
		expect 5 'no CUDA GPU is usable here' $cmd --device all -o "$tmpdir/fleet/$cmd"
		expect 5 'no CUDA GPU is usable here' $cmd --device 0,1 -o "$tmpdir/fleet/$cmd"
		[ ! -e "$tmpdir/fleet" ] || fail "$cmd --device all without a GPU left $(find "$tmpdir/fleet")"
	done
	# --trace without a GPU is no GPU, not a CUPTI error.
	expect 5 'no CUDA GPU is usable here'	run --trace "$tmpdir/t.json" -v add_f32 -s 1Ki
	# metrics --check goes on for GH100, saying why as every command
	# says it (issue 41: "CUDA driver version is insufficient" when no
	# driver was installed at all).
	"$EWBENCH" info >"$tmpdir/info" 2>&1 || true
	why=$(sed -n 's/^ewbench: no CUDA GPU is usable here: //p' "$tmpdir/info")
	# (A sanitizer build says it cannot load CUPTI's host library, and
	# that is all it can check.)
	if ! "$EWBENCH" metrics --check --metrics dram 2>&1 |
	    grep -q 'built with AddressSanitizer, which cannot load CUPTI'; then
		expect 0 "^ewbench metrics: no CUDA GPU is usable here${why:+: $why}; checking against chip GH100 (choose with --chip)" \
		    metrics --check --metrics dram
	fi
fi

# Issue 42: what run plans and writes, the analysis reads; every value
# echoed back is shown escaped and bounded; metric-group files fail as
# `metrics --help` says.
# (6) A kernel whose name (as user:NAME) is past the 1024 bytes the
# analysis reads is refused by run itself; one of 1024 is planned.
kernel42() {	# kernel42 FILE NAME: an add kernel called NAME
	printf 'extern "C" __global__ void %s(const float *a, const float *b, float *c, size_t n)\n{ size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n' \
	    "$2" >"$1"
}
kernel42 "$tmpdir/long.cu" "$(printf 'k%.0s' $(seq 1020))"
expect 2 'long.cu: function kkkk*\.\.\. (1020 bytes): a name too long; a run records a kernel as user:NAME in at most 1024 bytes' \
    run --dry-run --chip H100 --kernel "$tmpdir/long.cu" -s 1Ki
kernel42 "$tmpdir/fits.cu" "$(printf 'k%.0s' $(seq 1019))"
expect 0 "^user:kkkk"	run --dry-run --chip H100 --kernel "$tmpdir/fits.cu" -s 1Ki
# (10) A grid past 2^31 - 1 blocks (one thread per element, block 1, 3Gi
# elements) is left out at plan time, saying why; with nothing left, the
# plan is refused (it was planned, and the launcher refused it at run
# time).
expect 0 'skipped: add_f32: n=3221225472, block 1: a grid of 3221225472 blocks, past the 2147483647' \
    run --dry-run --chip B200 -v add_f32 -s 3Gi --block 1,256
set +e
"$EWBENCH" run --dry-run --chip B200 -v add_f32 -s 3Gi --block 1 \
    >"$tmpdir/out" 2>"$tmpdir/err"
rc=$?
set -e
[ $rc = 2 ] && grep -q '^ewbench run: nothing left to run: add_f32: n=3221225472, block 1: a grid of 3221225472 blocks' "$tmpdir/err" ||
    fail "a grid past 2^31 - 1 blocks alone: exit $rc: $(cat "$tmpdir/err")"
# (13) --chip is echoed escaped and bounded: no terminal escape, no
# newline, not 100 KB (metrics --chip: tests/chips.sh).
for cmd in "run --dry-run -v add_f32 -s 1Ki" "ceilings --dry-run"; do
	set +e
	"$EWBENCH" $cmd --chip "$(printf 'a\033[31mred\nline')" >"$tmpdir/out" 2>&1
	rc=$?
	"$EWBENCH" $cmd --chip "$(head -c 100000 /dev/zero | tr '\0' x)" \
	    >"$tmpdir/out-long" 2>&1
	rc_long=$?
	set -e
	[ $rc = 2 ] && [ $rc_long = 2 ] || fail "$cmd --chip unknown: exit $rc, $rc_long"
	[ "$(wc -l <"$tmpdir/out")" = 1 ] && ! grep -q "$(printf '\033')" "$tmpdir/out" &&
	    grep -qiF 'a\x1b[31mred\x0aline' "$tmpdir/out" ||
	    fail "$cmd --chip with an escape and a newline: $(cat -v "$tmpdir/out")"
	[ "$(wc -c <"$tmpdir/out-long")" -lt 2000 ] ||
	    fail "$cmd --chip of 100000 bytes: $(wc -c <"$tmpdir/out-long") bytes said"
done
# (11) A group file that cannot be parsed is exit 1, as metrics --help
# says; an alternative listed twice in an entry is refused; a UTF-8 byte
# order mark is no part of the text.
printf 'SHORT dup\nMETRICS\ndram__bytes_read.sum | dram__bytes_write.sum | dram__bytes_write.sum\n' >"$tmpdir/dup.txt"
expect 1 "dup.txt: line 3: metric 'dram__bytes_write.sum' listed twice" \
    metrics --list --metrics "$tmpdir/dup.txt"
printf '\357\273\277SHORT with a byte order mark\nMETRICS\ndram__bytes_read.sum\n' >"$tmpdir/bom.txt"
expect 0 '^bom: with a byte order mark' metrics --list --metrics "$tmpdir/bom.txt"
printf 'SHORT\001 x\nMETRICS\n' >"$tmpdir/ctl.txt"
expect 1 "ctl.txt: line 1: expected SHORT, METRICS or LONG, not 'SHORT\\\\x01 x'" \
    metrics --list --metrics "$tmpdir/ctl.txt"

# `make -C CLONE report` (scripts/report.sh run in CLONE with OUTDIR
# ./reports, issue 54): the paths it prints are absolute, usable from
# where the user is.  Without a GPU it renders the shipped references;
# here through a stand-in ewbench that writes each output's file.
cat >"$tmpdir/stub-ewbench" <<'STUB'
#!/bin/sh
case $1 in
info)	exit 5 ;;
list)	exit 0 ;;
esac
while [ $# -gt 1 ]; do
	[ "$1" = -o ] && out=$2
	shift
done
case $out in
*.md)	: >"$out" ;;
*)	mkdir -p "$out" && : >"$out/report.html" ;;
esac
STUB
chmod +x "$tmpdir/stub-ewbench"
mkdir "$tmpdir/make-c" "$tmpdir/user"
(cd "$tmpdir/make-c" && EWBENCH=$tmpdir/stub-ewbench \
    sh "$top_srcdir/scripts/report.sh" "$top_srcdir" ./reports) >"$tmpdir/made" ||
    fail "scripts/report.sh with a stand-in ewbench: $(cat "$tmpdir/made")"
sed -n 's/^report: \(\/.*\.\(html\|md\)\)$/\1/p' "$tmpdir/made" >"$tmpdir/paths"
[ -s "$tmpdir/paths" ] &&
    [ "$(grep -c '^report: [^n]' "$tmpdir/made")" = "$(wc -l <"$tmpdir/paths")" ] ||
    fail "make report printed a path that is not absolute: $(cat "$tmpdir/made")"
(cd "$tmpdir/user" && while read -r path; do
	[ -f "$path" ] || fail "make report printed $path, which is not there"
done) <"$tmpdir/paths"
echo "cli: $count rows passed"
