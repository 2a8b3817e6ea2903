#!/bin/sh
# tests/readme.sh - the README's sample output is the shipped reference
# study as ewbench prints it (scripts/readme-sample.py), and its Usage
# lines name options ewbench has.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
py=${PYTHON:-python3}
[ "$py" != : ] || py=python3
"$py" "$top_srcdir/scripts/readme-sample.py" "$EWBENCH" --check \
    "$top_srcdir/README.md" || fail "README.md's sample output drifted"
echo "readme: the sample output matches reports/reference/nvidia-h200"
