#!/bin/sh
# scripts/manpage.sh EWBENCH VERSION - ewbench(1) in roff, made from
# `EWBENCH --help` and each command's page, so that the manual and --help
# cannot disagree:
# unindented paragraphs are prose (one ending in ':' heads a section),
# indented lines (commands, options, exit codes, examples) are kept as
# written.  `make` writes ewbench.1 with it; tests/manpage.sh checks it.
set -eu
ewbench=$1
version=$2
# The overview, then each command's page (help.c's, metrics's own), a
# section each, their headings subsections.
{
	"$ewbench" --help
	for command in info list run check sweep tune ceilings metrics; do
		echo
		"$ewbench" "$command" --help
	done
} | awk -v version="$version" '
function roff(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.'"'"']/)
		s = "\\&" s
	return s
}
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
NR > 1 && /^usage: ewbench / {
	flush()
	sub(/^usage: /, "")
	print ".SH \"" roff($0) "\""
	command = 1
	next
}
/^       ewbench / && command { print ".br"; print roff($0); next }
/^$/ { flush(); blank = 1; next }
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
function flush(  i) {
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
