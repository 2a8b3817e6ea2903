#!/bin/sh
# tests/mpi.sh - two tasks under a real mpirun (Open MPI): each is one
# member of the fleet directory, with its own name from its rank.  A dry
# run prints the member directory and device before the GPU is opened,
# so this needs no GPU.  Skips (77) without Open MPI's mpirun.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"

command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun (Debian: openmpi-bin)"; exit 77; }
mpirun --version 2>/dev/null | grep -q 'Open MPI' ||
    { echo "SKIP: mpirun is not Open MPI's"; exit 77; }

# With a GPU the dry runs open it: they wait for the GPU tests.
gpu_lock_if_gpu
# Without a GPU each task exits 5 after saying where it would measure;
# a shell around it exits 0, so that mpirun does not stop the other task
# early.
export EWBENCH tmpdir
mpirun --oversubscribe --allow-run-as-root -np 2 sh -c \
    '"$EWBENCH" run --dry-run -v add_f32 -s 1Ki --out "$tmpdir/fleet"; echo "task exit $?"' \
    >"$tmpdir/out" 2>&1 || fail "mpirun failed: $(cat "$tmpdir/out")"
cat "$tmpdir/out"
names=$(sed -n 's|.*run directory '"$tmpdir"'/fleet/\([^ ]*\)$|\1|p' "$tmpdir/out" | sort -u)
[ "$(echo "$names" | wc -l)" = 2 ] || fail "expected two member names, got: $names"
echo "$names" | grep -q -- '-rank0$' && echo "$names" | grep -q -- '-rank1$' ||
    fail "members are not rank 0 and rank 1: $names"
grep -q 'openmpi rank 0 (local rank 0)' "$tmpdir/out" &&
    grep -q 'openmpi rank 1 (local rank 1)' "$tmpdir/out" ||
    fail "tasks did not read Open MPI's ranks"
[ ! -e "$tmpdir/fleet" ] || fail "a dry run wrote $tmpdir/fleet"
echo "mpi: members $(echo $names)"
