#!/bin/sh
# scripts/py-compile.sh - what `make install` runs to byte-compile the
# Python package: automake's py-compile (build-aux/py-compile, beside this
# folder), said in one line.  py-compile prints every module's name run
# together with no separator, a line of some 3,700 characters; this says
# how many were compiled and where.  Its errors still reach stderr, and
# its exit status is this script's.
#
#   PYTHON=... scripts/py-compile.sh --destdir DIR --basedir DIR FILE...
real=$(dirname "$0")/../build-aux/py-compile
dest= base= n=0
for arg; do
	case $prev in
	--destdir) dest=$arg ;;
	--basedir) base=$arg ;;
	*)	case $arg in
		--*)	;;
		*.py)	n=$((n + 1)) ;;
		esac ;;
	esac
	prev=$arg
done
echo "Byte-compiling $n Python modules (and their optimized versions) in $dest$base"
sh "$real" "$@" >/dev/null
