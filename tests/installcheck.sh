#!/bin/sh
# tests/installcheck.sh PREFIX SRCDIR - what `make installcheck` checks of
# an installation in PREFIX (made by it): run from /, with nothing of the
# source or build tree on any path, the installed ewbench lists its
# variants and metric groups, plans a run without a GPU, finds its
# installed examples (the README's user-kernel lines) and docs (every
# link of them leading to an installed file), has its manual, and runs
# the README's analysis examples as written (reports/reference/..., the
# installed references' data) through the installed Python package.
# PYTHON is configure's interpreter.
set -eu
prefix=$1
srcdir=$2
ewbench=$prefix/bin/ewbench
unset EWBENCH_METRICS_DIR PYTHONPATH
cd /

fail() {
	echo "installcheck: FAIL: $*" >&2
	exit 1
}
step() {
	echo "installcheck: $*"
}

step "$ewbench list"
"$ewbench" list | grep -q '^add_f32 ' || fail "ewbench list shows no add_f32"
step "$ewbench metrics --list --metrics GROUP (each of metrics/*.txt)"
for f in "$srcdir"/metrics/*.txt; do
	g=$(basename "$f" .txt)
	[ -f "$prefix/share/ewbench/metrics/$g.txt" ] ||
	    fail "metric group $g not installed in $prefix/share/ewbench/metrics"
	out=$("$ewbench" metrics --list --metrics "$g" 2>&1) ||
	    fail "the installed ewbench does not find metric group $g: $out"
done
step "$ewbench run --dry-run"
out=$("$ewbench" run --dry-run 2>&1) || fail "run --dry-run exited $?: $out"
echo "$out" | grep -q 'points' || fail "run --dry-run printed no plan: $out"
# The README's "Your own kernel" lines, from /: the installed examples,
# found from the binary, compiled (NVRTC needs no GPU) and planned.
step "$ewbench run --kernel examples/add_f32x4.cu ... --dry-run (installed examples)"
for f in "$srcdir"/examples/*.cu; do
	[ -f "$prefix/share/ewbench/examples/$(basename "$f")" ] ||
	    fail "$(basename "$f") not installed in $prefix/share/ewbench/examples"
done
for f in README.md docs/user-kernels.md docs/data-format.md; do
	[ -f "$prefix/share/ewbench/$f" ] ||
	    fail "$f not installed in $prefix/share/ewbench"
done
# Every relative link of the installed README and docs leads to an
# installed file (issue 54: all 17 of the README's were dead).
step "the installed README's and docs' links"
for f in "$prefix/share/ewbench/README.md" "$prefix/share/ewbench/docs/"*.md; do
	for link in $(grep -o '](\([^)#]*\)' "$f" | sed 's/^](//' |
	    grep -v '^[a-z]*:' | sort -u); do
		[ -e "$(dirname "$f")/$link" ] ||
		    fail "$f links $link, which is not installed"
	done
done
out=$(XDG_CACHE_HOME=$prefix/cache "$ewbench" run --kernel \
    examples/add_f32x4.cu --elems-per-thread 4 --kernel-block 64 \
    -v add_f32x4 -s 16Mi,256Mi --cache both --dry-run 2>&1) ||
    fail "the installed example: exit $?: $out"
echo "$out" | grep -q "share/ewbench/examples/add_f32x4.cu compiled for sm_" &&
    echo "$out" | grep -q '^user:add_f32x4_user ' ||
    fail "the installed example not found or not planned: $out"
out=$(XDG_CACHE_HOME=$prefix/cache "$ewbench" check --kernel \
    examples/article_add.cu:elementwise_add_f16x8_pack_kernel \
    --elems-per-thread 8 --kernel-block 32 --dry-run 2>&1) ||
    fail "the installed article kernels: exit $?: $out"
step "$prefix/share/man/man1/ewbench.1"
[ -s "$prefix/share/man/man1/ewbench.1" ] || fail "no manual"

# --help's Files and the manual's name this installation's folders, each
# of which exists (issue 41: both named /usr/local/share/ewbench after
# `make install prefix=DIR`, which is how this one was made); moved, the
# installation's --help names the folders where it is now.
help_files() {	# the folders of `$1 --help`'s Files, one a line
	"$1" --help | sed -n '/^Files/,/^$/s/^  \(\/[^ ]*\)$/\1/p'
}
man_files() {	# the same of a manual
	sed -n '/^\.SH "Files/,/^\.SH "Env/p' "$1" | sed 's/\\-/-/g' |
	    sed -n 's/^  \(\/[^ ]*\)$/\1/p'
}
files_in() {	# files_in WHAT ROOT: every folder of stdin exists, under ROOT
	n=0
	root=$(cd "$2" && pwd -P)	# as resolved: TMPDIR may be a link
	while read -r dir; do
		case $dir in
		"$2"/* | "$root"/*) ;;
		*) fail "$1 names $dir, not a folder of $2" ;;
		esac
		[ -d "$dir" ] || fail "$1 names $dir, which does not exist"
		n=$((n + 1))
	done
	[ "$n" = 4 ] || fail "$1 names $n folders, not 4 (examples, docs, metrics, python)"
}
step "$ewbench --help and ewbench(1): Files"
help_files "$ewbench" | files_in "--help" "$prefix/share/ewbench"
man_files "$prefix/share/man/man1/ewbench.1" | files_in "ewbench(1)" "$prefix/share/ewbench"
mkdir "$prefix/moved"
cp -R "$prefix/bin" "$prefix/share" "$prefix/moved/"
help_files "$prefix/moved/bin/ewbench" |
    files_in "the moved installation's --help" "$prefix/moved/share/ewbench"
out=$("$prefix/moved/bin/ewbench" run --dry-run 2>&1) ||
    fail "the moved installation's run --dry-run: exit $?: $out"
rm -rf "$prefix/moved"

# Every module of the source package is installed.
(cd "$srcdir/python" && find ewbench -name '*.py' | sort) >"$prefix/want"
(cd "$prefix/share/ewbench/python" && find ewbench -name '*.py' | sort) \
    >"$prefix/have"
missing=$(comm -23 "$prefix/want" "$prefix/have")
[ -z "$missing" ] || fail "not installed (python/local.mk): $missing"

py=${PYTHON:-python3}
if [ "$py" = ":" ] || ! "$py" -c 'import numpy, matplotlib' 2>/dev/null; then
	step "SKIP ewbench report: $py has no numpy and matplotlib"
	exit 0
fi
# The README's and --help's analysis examples as written, from / (no
# reports/reference/ here): the installed references' data is read.
readme() {	# readme LOG ARGS...: one example, its output in LOG
	log=$prefix/$1
	shift
	step "ewbench $*"
	EWBENCH_PYTHON=$py "$ewbench" "$@" >"$log" 2>&1 ||
	    fail "ewbench $*: exit $?: $(cat "$log")"
}
readme compare.log compare reports/reference/nvidia-h100/article \
    reports/reference/nvidia-h200/article
readme contest.log contest 'reports/reference/nvidia-h200/contest/round-?'
grep -q 'round-5' "$prefix/contest.log" ||
    fail "contest did not read the five installed rounds: $(cat "$prefix/contest.log")"
readme fleet.log fleet-report reports/reference/fleet-nvidia-h200x2 \
    -o "$prefix/fleet-report"
readme report.log report reports/reference/nvidia-h200 -o "$prefix/r"
[ -s "$prefix/r/report.html" ] || fail "ewbench report wrote no report.html"
step "ok"
