#!/bin/sh
# scripts/manpage.sh - ewbench(1) in roff, made from `ewbench --help` and
# every command's page, so that the manual and --help cannot disagree.
#
#   manpage.sh page EWBENCH VERSION [DATAROOT]
#	the manual: the overview, then a section for each command the
#	overview lists (from "Commands" to "Options of ...": the analysis
#	commands' pages come from the Python package, argparse's).  The
#	overview's Files name the folders EWBENCH resolves; those under
#	DATAROOT (the source tree, for the build tree's ewbench) are written
#	as @pkgdatadir@, for `fill`.  A command whose --help fails (the
#	analysis's Python cannot run) gets a section that says so, and the
#	build goes on, saying it on stderr.
#   manpage.sh fill PKGDATADIR <page >manual
#	@pkgdatadir@ made PKGDATADIR, as `make` configured it for the build
#	tree's copy and as `make install` (prefix=DIR included) resolves it
#	for the installed one.
#
# In the page, unindented paragraphs are prose (one ending in ':' heads a
# section), indented lines (commands, options, exit codes, examples) are
# kept as written; `usage:` lines start a command's section, named by the
# command, its synopses (and argparse's wrapped continuation) in bold.
# tests/entry.sh checks that every help line is in the manual and that
# every command has its section.
set -eu

# roff's escapes of a line of text: backslash, '-', a leading '.' or "'".
roff_awk='
function roff(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.'"'"']/)
		s = "\\&" s
	return s
}'

fill() {
	awk -v dir="$1" "$roff_awk"'
	{
		out = ""
		while ((i = index($0, "@pkgdatadir@")) > 0) {
			out = out substr($0, 1, i - 1) roff(dir)
			$0 = substr($0, i + 12)
		}
		print out $0
	}'
}

page() {
	ewbench=$1
	version=$2
	# As ewbench prints its folders: absolute, links resolved (a VPATH
	# build, make distcheck's, names its source tree ../..).
	dataroot=${3:+$(cd "$3" && pwd -P)}
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ewbench-manpage.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# The analysis's Python writes no bytecode into the source tree.
	PYTHONDONTWRITEBYTECODE=1
	export PYTHONDONTWRITEBYTECODE
	"$ewbench" --help >"$tmp/overview"
	commands=$(awk '/^Commands/ { on = 1; next } /^Options of/ { on = 0 }
	    on && /^  [a-z]/ { print $1 }' "$tmp/overview")
	{
		cat "$tmp/overview"
		for command in $commands; do
			echo
			if "$ewbench" "$command" --help >"$tmp/page" \
			    2>"$tmp/err"; then
				cat "$tmp/page"
				continue
			fi
			why=$(tail -n 1 "$tmp/err")
			echo "manpage.sh: ewbench $command --help failed" \
			    "(${why:-no message}): its section says so" >&2
			echo "usage: ewbench $command ..."
			echo
			echo "This command's page is its own --help (ewbench" \
			    "$command --help); the build that wrote this" \
			    "manual could not run it: ${why:-no message}."
		done
	} | awk -v version="$version" -v dataroot="$dataroot" "$roff_awk"'
	BEGIN {
		print ".TH EWBENCH 1 \"\" \"ewbench " version "\" \"User Commands\""
		print ".SH NAME"
		print "ewbench \\- a profiling\\-instrumented study harness for " \
		    "elementwise GPU kernels"
	}
	NR == 1 {
		sub(/^usage: /, "")
		print ".SH SYNOPSIS"
		print ".B " roff($0)
		print ".SH DESCRIPTION"
		next
	}
	# A command: its section, named by it, and its synopses.
	/^usage: ewbench / {
		flush()
		sub(/^usage: /, "")
		split($0, word, " ")
		print ".SH \"" roff(word[1] " " word[2]) "\""
		nsyn = 1
		syn[1] = $0
		command = 1
		next
	}
	nsyn && /^ / {
		line = $0
		sub(/^ +/, "", line)
		if (line ~ /^ewbench /)
			syn[++nsyn] = line
		else
			syn[nsyn] = syn[nsyn] " " line
		next
	}
	nsyn { synopses() }
	# The overview'"'"'s Files: the folders as installed.
	!command && dataroot != "" && index($0, "  " dataroot "/") == 1 {
		$0 = "  @pkgdatadir@/" substr($0, length(dataroot) + 4)
	}
	/^$/ { flush(); next }
	/^ / {
		if (npara) flush()
		if (!pre) { print ".PP"; print ".nf"; pre = 1 }
		print roff($0)
		next
	}
	{
		if (pre) { print ".fi"; pre = 0 }
		para[++npara] = $0
		if ($0 ~ /:$/) {
			head = ""
			for (i = 1; i <= npara; i++)
				head = head (i > 1 ? " " : "") para[i]
			sub(/:$/, "", head)
			print (command ? ".SS" : ".SH") " \"" roff(head) "\""
			npara = 0
		}
	}
	function synopses(  i) {
		for (i = 1; i <= nsyn; i++) {
			if (i > 1)
				print ".br"
			print ".B " roff(syn[i])
		}
		nsyn = 0
	}
	function flush(  i) {
		if (nsyn) synopses()
		if (pre) { print ".fi"; pre = 0 }
		if (npara) {
			print ".PP"
			for (i = 1; i <= npara; i++)
				print roff(para[i])
			npara = 0
		}
	}
	END { flush() }
	'
}

mode=${1:-}
case $mode in
page)
	shift
	page "$@"
	;;
fill)
	fill "$2"
	;;
*)
	echo "usage: manpage.sh page EWBENCH VERSION [DATAROOT] | fill PKGDATADIR" >&2
	exit 2
	;;
esac
