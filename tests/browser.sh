#!/bin/sh
# tests/browser.sh - report.html in headless Chromium (first screen,
# figures, anchors, screenshot): tests/browser/.  Skips, saying why, where
# Python, its packages or Chromium are missing.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
skip_when_collecting
require_python numpy matplotlib pytest
if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1 &&
    ! command -v chromium-browser >/dev/null 2>&1 &&
    ! command -v google-chrome >/dev/null 2>&1; then
	echo "SKIP: no Chromium (apt-get install chromium, or set CHROMIUM)"
	exit 77
fi
cd "$top_srcdir"
MPLBACKEND=Agg "$py" -m pytest -q -s -p no:cacheprovider tests/browser
