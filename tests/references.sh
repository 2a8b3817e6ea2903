#!/bin/sh
# tests/references.sh - the shipped references render as committed: each
# study under reports/reference/ (`ewbench report`), each fleet
# (`ewbench fleet-report`) and each contest's rounds (`ewbench contest`,
# Markdown and JSON) give, with this tree's analysis, the report.md,
# contest.md and contest.json that are committed, byte for byte (and a
# study's predictions.csv and model-error.csv), and the
# same report.html but for its embedded PNG previews and the same figure
# files (the images themselves are matplotlib's, and differ between its
# versions).  A change of the analysis that moves a reference's words or
# numbers fails here until the references are rendered again.  And every
# figure of a reference study's or fleet's report is laid out so that
# nothing covers what it must not (tests/python/figure_layout.py: no
# legend over an axes, a tick label, an axis label, a title or another
# legend, none off the figure, no axes' labels into another axes), on the
# matplotlib that renders it (CI: Debian 12's 3.6 and PyPI's newest),
# measured in the render itself as each figure is saved
# (tests/figure-layout/sitecustomize.py).
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
skip_when_collecting
py=${PYTHON:-python3}
[ "$py" != : ] || py=python3
if ! missing=$("$py" -c 'import numpy, matplotlib' 2>&1); then
	echo "SKIP: $py cannot render: $missing"
	exit 77
fi
analysis() { EWBENCH_PYTHON=$py MPLBACKEND=Agg "$EWBENCH" "$@"; }
# measured NAME ARGS...: analysis ARGS, the layout of each figure it saves
# measured into $tmpdir/layout-NAME (tests/figure-layout).
measured() {
	layout=$tmpdir/layout-$1
	shift
	mkdir -p "$layout"
	EWB_LAYOUT_DIR=$layout \
	    PYTHONPATH=$top_srcdir/tests/figure-layout:$PYTHONPATH analysis "$@"
}
# laid_out NAME RENDERED_DIR: every figure measured, none covering.
laid_out() {
	n=0
	for svg in "$2"/figures/*.svg; do
		[ -e "$svg" ] || break
		faults=$tmpdir/layout-$1/$(basename "$svg").faults
		[ -f "$faults" ] || fail "$1: $(basename "$svg") was not measured"
		[ ! -s "$faults" ] ||
		    fail "$1: $(basename "$svg"): $(cat "$faults")"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || fail "$1: no figure in $2/figures"
	laid=$((laid + n))
}
# report.html without its data: URIs (the figures' PNG previews).
text_of() { sed 's/data:image\/[a-z]*;base64,[A-Za-z0-9+\/=]*/data:/g' "$1"; }
same() {	# same WHAT COMMITTED RENDERED
	cmp -s "$2" "$3" || fail "$1: $3 differs from the committed $2:
$(diff "$2" "$3" | head -20)"
}
same_report() {	# same_report COMMITTED_DIR RENDERED_DIR
	same "report.md" "$1/report.md" "$2/report.md"
	text_of "$1/report.html" >"$tmpdir/committed.html"
	text_of "$2/report.html" >"$tmpdir/rendered.html"
	same "report.html (text)" "$tmpdir/committed.html" "$tmpdir/rendered.html"
	for csv in predictions.csv model-error.csv; do	# with experiments/
		if [ -f "$1/$csv" ] || [ -f "$2/$csv" ]; then
			same "$csv" "$1/$csv" "$2/$csv"
		fi
	done
	(cd "$1/figures" && ls) >"$tmpdir/committed.ls"
	(cd "$2/figures" && ls) >"$tmpdir/rendered.ls"
	same "figure files" "$tmpdir/committed.ls" "$tmpdir/rendered.ls"
}
count=0 laid=0
for ref in "$top_srcdir"/reports/reference/*/; do
	ref=${ref%/}
	name=$(basename "$ref")
	if [ -f "$ref/article/run.json" ] && [ -d "$ref/report" ]; then
		measured "$name" report "$ref" -o "$tmpdir/$name" >/dev/null ||
		    fail "ewbench report $ref"
		same_report "$ref/report" "$tmpdir/$name"
		laid_out "$name" "$tmpdir/$name"
		count=$((count + 1))
	fi
	case $name in
	fleet-*)
		measured "$name" fleet-report "$ref" -o "$tmpdir/$name" \
		    >/dev/null || fail "ewbench fleet-report $ref"
		same_report "$ref/report" "$tmpdir/$name"
		laid_out "$name" "$tmpdir/$name"
		count=$((count + 1)) ;;
	esac
	if [ -f "$ref/contest/contest.md" ]; then
		# From the folder, so that the rounds are named as committed.
		(cd "$ref/contest" &&
		    analysis contest round-? -o "$tmpdir/$name-contest.md" &&
		    analysis contest --json round-? -o "$tmpdir/$name-contest.json") \
		    >/dev/null || fail "ewbench contest $ref/contest"
		same "contest.md" "$ref/contest/contest.md" "$tmpdir/$name-contest.md"
		same "contest.json" "$ref/contest/contest.json" "$tmpdir/$name-contest.json"
		count=$((count + 1))
	fi
	# A what-if's ranking (python3 -m ewbench.analysis.whatif), as committed:
	# its members predicted from the ceilings measured in the same call,
	# where the reference keeps them (never from this machine's cache):
	# elementwise.sh's own, else the fault examples' of that call.
	set --
	for c in "$ref/elementwise/ceilings" "$ref/userfaults/ceilings"; do
		[ -f "$c/ceilings.csv" ] && { set -- --ceilings "$c"; break; }
	done
	for ranking in "$ref"/elementwise/*.txt; do
		[ -d "${ranking%.txt}" ] || continue
		XDG_CACHE_HOME=$tmpdir/no-cache PYTHONPATH=$top_srcdir/python \
		    "$py" -m ewbench.analysis.whatif "${ranking%.txt}" "$@" \
		    >"$tmpdir/whatif.txt" ||
		    fail "whatif ${ranking%.txt}"
		same "$(basename "$ranking")" "$ranking" "$tmpdir/whatif.txt"
		count=$((count + 1))
	done
done
[ "$count" -ge 4 ] || fail "only $count references found under reports/reference"
echo "references: $count renderings as committed, the $laid figures of their reports covering nothing"
