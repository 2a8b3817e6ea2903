#!/bin/sh
# scripts/revision.sh SRCDIR [GIVEN] - print revision.h: the git revision
# `ewbench --version` and every run.json record, taken when make builds
# (the Makefile runs this on every make and replaces revision.h only when
# the line changed), so that a binary never names a commit it was not
# built from:
#   - SRCDIR the top of its own git work tree: HEAD's 12-digit hash, with
#     "-dirty" when a tracked file differs from HEAD;
#   - else GIVEN (./configure EWB_GIT_REVISION=..., for a copy of the tree
#     without .git: the builder's word, which nothing here can check);
#   - else "unknown" (a release tarball, or a tree inside another clone
#     whose HEAD is not its own).
srcdir=$1
given=$(printf '%s' "${2:-}" | tr -cd 'A-Za-z0-9._+-')
here=$(cd "$srcdir" && pwd -P) || exit 1
top=$(cd "$srcdir" && git rev-parse --show-toplevel 2>/dev/null) &&
    top=$(cd "$top" && pwd -P)
if [ -n "$top" ] && [ "$top" = "$here" ] &&
    rev=$(cd "$srcdir" && git rev-parse --short=12 HEAD 2>/dev/null); then
	(cd "$srcdir" && git diff --quiet HEAD -- 2>/dev/null) ||
	    rev=$rev-dirty
elif [ -n "$given" ]; then
	rev=$given
else
	rev=unknown
fi
printf '/* revision.h - written by scripts/revision.sh at build time */\n'
printf '#define EWB_GIT_REVISION "%s"\n' "$rev"
