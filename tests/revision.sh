#!/bin/sh
# tests/revision.sh - the revision ewbench records (scripts/revision.sh,
# run at every make) is the source's own: a commit's hash, "-dirty" once a
# tracked file differs from it, the new hash after another commit (never
# the one an earlier configure saw), a given one only without .git, and
# "unknown" for a tree inside another clone or with nothing known.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
command -v git >/dev/null 2>&1 || { echo "SKIP: no git"; exit 77; }
script=$top_srcdir/scripts/revision.sh
rev() { sh "$script" "$@" | sed -n 's/^#define EWB_GIT_REVISION "\(.*\)"$/\1/p'; }
repo=$tmpdir/repo
mkdir -p "$repo/sub"
cd "$repo"
git init -q .
git config user.email t@example.invalid
git config user.name test
echo one >file
git add file
git commit -q -m one
first=$(git rev-parse --short=12 HEAD)
[ "$(rev "$repo" given)" = "$first" ] ||
    fail "a clean tree: '$(rev "$repo")', expected $first"
echo two >file
[ "$(rev "$repo")" = "$first-dirty" ] ||
    fail "an edited tree: '$(rev "$repo")', expected $first-dirty"
git commit -q -a -m two
second=$(git rev-parse --short=12 HEAD)
[ "$second" != "$first" ] && [ "$(rev "$repo")" = "$second" ] ||
    fail "after a commit: '$(rev "$repo")', expected $second"
# A folder inside the clone is not the clone: its HEAD is not its own.
[ "$(rev "$repo/sub")" = unknown ] ||
    fail "a tree inside another clone: '$(rev "$repo/sub")'"
plain=$tmpdir/plain
mkdir "$plain"
[ "$(rev "$plain" 'abc123"x')" = abc123x ] ||
    fail "a tree without .git, given: '$(rev "$plain" 'abc123"x')'"
[ "$(rev "$plain")" = unknown ] ||
    fail "a tree without .git: '$(rev "$plain")'"
# The binary names its build's revision, the one revision.h holds.
built=$(sed -n 's/^#define EWB_GIT_REVISION "\(.*\)"$/\1/p' \
    "$(dirname "$EWBENCH")/revision.h" 2>/dev/null || :)
if [ -n "$built" ]; then
	"$EWBENCH" --version | grep -q "(git $built)\$" ||
	    fail "ewbench --version does not name revision.h's $built"
fi
echo "revision: 7 checks passed"
