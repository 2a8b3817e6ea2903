#!/bin/sh
# tests/folders.sh - holds src/'s folder order (README.md, "Layout": a
# folder includes only its own headers and those of the folders above it
# in that table) and forbids circles between files.
#
# Fails on
#   - an `#include "..."` of a folder below the including file's own;
#   - a folder of src/ the table does not place;
#   - a circle of files: a header points at the headers it includes, a .c
#     file at the .c files whose functions it calls (a function defined,
#     not static, in another file: a header shared by several, such as
#     internal.h, hides no circle); foo.c and foo.h are one node.
# Prints each offence on one line.  Then it checks itself: a made-up
# tree with one upward include and one circle must fail, naming both.
srcdir=${srcdir:-.}

# check SRC README: 0 when SRC holds README's order and has no circle.
check() {
	src=$1
	readme=$2
	order=$(sed -n 's/^| `src\/\([a-z][a-z0-9_-]*\)\/` |.*/\1/p' "$readme")
	if [ -z "$order" ]; then
		echo "folders.sh: no src/ folder in $readme's Layout table" >&2
		exit 99
	fi
	files=$(cd "$src" && find . -name '*.[ch]' -o -name '*.def' -o -name '*.cu' -o -name '*.cxx' | sed 's|^\./||' | sort)
	[ -n "$files" ] || { echo "folders.sh: no source under $src" >&2; exit 99; }

	(cd "$src" && awk -v order="$order" '
function unit(path) { sub(/\.[a-z]+$/, "", path); return path }
function folder(path) { return path ~ /\// ? substr(path, 1, index(path, "/") - 1) : "" }
BEGIN {
	n = split(order, names, "\n")
	for (i = 1; i <= n; i++) rank[names[i]] = i
}
FNR == 1 {
	f = FILENAME; present[f] = 1; d = folder(f); incomment = 0; prev = ""
	if (d != "" && !(d in rank) && !(d in warned)) {
		warned[d] = 1
		print "src/" d "/: a folder the README'"'"'s Layout table does not place"
		bad = 1
	}
}
!incomment && /^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	t = inc
	if (t !~ /\//) t = d "/" t		# beside the file
	td = folder(t)
	if (!(td in rank) || !(d in rank)) next	# config.h, kernels/, ...
	if (rank[td] > rank[d]) {
		printf "src/%s:%d: includes %s, up a floor: %s/ comes after %s/ in the Layout table\n", f, FNR, inc, td, d
		bad = 1
	}
	if (f ~ /\.h$/ && unit(t) != unit(f)) { incl[++nincl] = unit(f) SUBSEP t; why[nincl] = "includes " inc " (line " FNR ")" }
	next
}
{
	# strings and comments out, so that a name in a message or in prose
	# is no call
	line = $0
	gsub(/\\./, "", line)
	gsub(/\047[^\047]*\047/, "", line)
	if (!incomment) gsub(/"[^"]*"/, "", line)
	if (incomment) {
		if ((k = index(line, "*/")) == 0) next
		line = substr(line, k + 2); incomment = 0
	}
	while ((k = index(line, "/*")) > 0) {
		rest = substr(line, k + 2)
		if ((e = index(rest, "*/")) == 0) { line = substr(line, 1, k - 1); incomment = 1; break }
		line = substr(line, 1, k - 1) " " substr(rest, e + 2)
	}
	sub(/\/\/.*/, "", line)
}
f ~ /\.c$/ && line ~ /^[A-Za-z][A-Za-z0-9_]*\(/ && prev !~ /^static/ && prev !~ /[;{}]$/ {
	name = line; sub(/\(.*/, "", name)
	defined[name] = unit(f)
}
f ~ /\.(c|cu|cxx)$/ {
	s = line
	while (match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		name = substr(s, RSTART, RLENGTH); sub(/[ \t]*\($/, "", name)
		if (!((f, name) in called)) { called[f, name] = FNR; calls[++ncalls] = f SUBSEP name }
		s = substr(s, RSTART + RLENGTH)
	}
}
{ if (line !~ /^[ \t]*$/) prev = line }
END {
	for (i = 1; i <= nincl; i++) {
		split(incl[i], p, SUBSEP)
		# header to header: two headers that include each other
		if (p[2] in present) edge[p[1] SUBSEP unit(p[2])] = why[i]
	}
	for (i = 1; i <= ncalls; i++) {
		split(calls[i], p, SUBSEP); name = p[2]
		if (!(name in defined) || defined[name] == unit(p[1])) continue
		key = unit(p[1]) SUBSEP defined[name]
		if (!(key in edge)) edge[key] = "calls " name "() (line " called[p[1], name] ")"
	}
	for (k in edge) {
		split(k, p, SUBSEP)
		out[p[1]] = out[p[1]] " " p[2]; node[p[1]] = 1; node[p[2]] = 1
	}
	# depth-first search; a grey node met again closes a circle
	for (v in node) if (!(v in colour)) visit(v)
	exit bad
}
function visit(v,    m, i, w, ws) {
	colour[v] = 1; stack[++depth] = v
	m = split(out[v], ws, " ")
	for (i = 1; i <= m; i++) {
		w = ws[i]
		if (!(w in colour)) visit(w)
		else if (colour[w] == 1) circle(w)
	}
	colour[v] = 2; depth--
}
function circle(w,    i, j, s) {
	for (i = depth; i > 0 && stack[i] != w; i--) ;
	s = "circle:"
	for (j = i; j <= depth; j++)
		s = s " src/" stack[j] " (" edge[stack[j] SUBSEP (j < depth ? stack[j + 1] : w)] ") ->"
	print s " src/" w
	bad = 1
}
' $files)
}

check "$srcdir/src" "$srcdir/README.md" || exit 1

# The check's own check: an include up a floor and a circle, made up.
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/base" "$tmp/src/run"
printf '| `src/base/` | the floor |\n| `src/run/` | above it |\n' >"$tmp/README.md"
printf '#include "run/walk.h"\n' >"$tmp/src/base/up.c"
printf 'int\nwalk(void)\n{\n\treturn setup();\n}\n' >"$tmp/src/run/walk.c"
printf 'int\nsetup(void)\n{\n\treturn walk() + 1;\n}\n' >"$tmp/src/run/setup.c"
: >"$tmp/src/run/walk.h"
if check "$tmp/src" "$tmp/README.md" >"$tmp/out"; then
	echo "folders.sh: passed a tree with an upward include and a circle" >&2
	exit 99
fi
grep -q '^src/base/up.c:1: includes run/walk.h, up a floor' "$tmp/out" &&
    grep -q '^circle: src/run/\(setup\|walk\) ' "$tmp/out" || {
	echo "folders.sh: the made-up tree's offences not said as expected:" >&2
	cat "$tmp/out" >&2
	exit 99
}
exit 0
