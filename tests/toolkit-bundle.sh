#!/bin/sh
# tests/toolkit-bundle.sh - scripts/cuda12-toolkit.sh --bundle never
# writes outside its PREFIX and never leaves PREFIX half-built (issue 55,
# cause 6): the toolkit is assembled in a fresh folder beside PREFIX and
# swapped in only when complete, so a truncated bundle leaves the old
# PREFIX as it was; a bundle member that is a link (symbolic or hard), a
# special file, or a path outside include/, lib64/ and TOOLKIT-12.txt
# refuses the whole bundle before anything is written (a link once let the
# script delete and write files in an outside folder and copy a private
# file into TOOLKIT.txt); a PREFIX that cannot be written gets one line and
# exit 1, not the shell's message and exit 2.  No CUDA is needed: a
# stand-in CUDA 13 compiler (a script that answers --version and
# --dryrun as nvcc does) and stand-in bundles, written here.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
script=$top_srcdir/scripts/cuda12-toolkit.sh
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 (the script needs it)"; exit 77; }

# The stand-in CUDA 13 toolkit whose compiler the script borrows.
c13=$tmpdir/cuda13
mkdir -p "$c13/bin/crt" "$c13/nvvm/bin" "$c13/nvvm/libdevice" "$c13/include/crt"
cat >"$c13/bin/nvcc" <<'EOF'
#!/bin/sh
case $1 in
--version) echo "Cuda compilation tools, release 13.0, V13.0.88" ;;
--dryrun) echo "#\$ _HERE_=$(cd "$(dirname "$0")" && pwd -P)" ;;
esac
EOF
for f in cudafe++ fatbinary nvlink ptxas; do printf '#!/bin/sh\n' >"$c13/bin/$f"; done
printf '#!/bin/sh\n' >"$c13/nvvm/bin/cicc"
chmod +x "$c13"/bin/* "$c13/nvvm/bin/cicc"
: >"$c13/include/crt/host_runtime.h"
: >"$c13/include/fatbinary_section.h"
: >"$c13/nvvm/libdevice/libdevice.10.bc"
export CUDA13="$c13"

# A bundle as --pack writes it (regular files only); `extra` adds members.
parts=$tmpdir/parts
mkdir -p "$parts/include" "$parts/lib64"
echo '#define CUDART_VERSION 12080' >"$parts/include/cuda_runtime_api.h"
for l in libcudart.so.12 libcupti.so.12 libnvrtc.so.12; do
	echo "$l" >"$parts/lib64/$l"
done
echo "nvidia-cuda-runtime-cu12 12.8.90 stand-in.whl" >"$parts/TOOLKIT-12.txt"
good=$tmpdir/good.tar.xz
tar -cJf "$good" -C "$parts" include lib64 TOOLKIT-12.txt

# bad NAME PYTHON: a copy of the good bundle plus the member(s) PYTHON
# adds to the open tarfile `t` (outside: the folder a link points to).
outside=$tmpdir/outside
mkdir -p "$outside/crt"
echo "keep me" >"$outside/crt/mine.h"
echo "a private key" >"$outside/secret"
chmod 600 "$outside/secret"
bad() {
	python3 - "$good" "$tmpdir/$1.tar.xz" "$outside" "$2" <<'EOF'
import io, sys, tarfile
good, out, outside, code = sys.argv[1:5]
with tarfile.open(good, "r:xz") as g, tarfile.open(out, "w:xz") as t:
    def member(name, kind, target="", data=b""):
        m = tarfile.TarInfo(name)
        m.type, m.linkname, m.size, m.mode = kind, target, len(data), 0o644
        t.addfile(m, io.BytesIO(data) if data else None)
    exec(code)	# first: the hostile member, before what it would reach
    replaced = {"TOOLKIT-12.txt"} if "TOOLKIT" in code else set()
    for m in g.getmembers():
        if m.name not in replaced:
            t.addfile(m, g.extractfile(m) if m.isreg() else None)
EOF
	echo "$tmpdir/$1.tar.xz"
}

snapshot() { (cd "$1" && find . -print | sort && cat TOOLKIT.txt lib64/*.12) 2>&1; }

prefix=$tmpdir/tk
run() { sh "$script" --bundle "$1" "$prefix" 12.8 >"$tmpdir/out" 2>&1; }
beside() { ls -A "$tmpdir" | grep -c '^\.cuda12-' || true; }

# 1. A good bundle: the toolkit, the linker's names made again.
run "$good" || fail "a good bundle: $(cat "$tmpdir/out")"
for f in include/cuda_runtime_api.h include/crt/host_runtime.h lib64/libcudart.so \
    lib64/libcupti.so lib64/libnvrtc.so bin/nvcc bin/nvcc.profile TOOLKIT.txt .cuda12-toolkit; do
	[ -e "$prefix/$f" ] || fail "a good bundle: no $f in PREFIX"
done
[ "$(readlink "$prefix/lib64/libcudart.so")" = libcudart.so.12 ] ||
    fail "libcudart.so is not a link to libcudart.so.12"
grep -q "CUDA 12.8 headers" "$prefix/TOOLKIT.txt" || fail "TOOLKIT.txt: $(cat "$prefix/TOOLKIT.txt")"
[ "$(beside)" = 0 ] || fail "a good bundle left folders beside PREFIX: $(ls -A "$tmpdir")"
before=$(snapshot "$prefix")

# 2. A truncated bundle over it: refused, PREFIX as it was, nothing beside.
head -c "$(( $(wc -c <"$good") / 2 ))" "$good" >"$tmpdir/cut.tar.xz"
set +e
run "$tmpdir/cut.tar.xz"; rc=$?
set -e
[ "$rc" = 1 ] || fail "a truncated bundle: exit $rc, not 1: $(cat "$tmpdir/out")"
grep -q "could not unpack" "$tmpdir/out" || fail "a truncated bundle: $(cat "$tmpdir/out")"
[ "$(snapshot "$prefix")" = "$before" ] || fail "a truncated bundle changed PREFIX"
[ "$(beside)" = 0 ] || fail "a truncated bundle left folders beside PREFIX"

# 3. Members that are links or leave the bundle's folders: each refused
# with its name, before a byte is written; PREFIX and outside untouched.
for c in \
    "dirlink|member('include/crt', tarfile.SYMTYPE, outside + '/crt')" \
    "toplink|member('include', tarfile.SYMTYPE, outside)" \
    "private|member('TOOLKIT-12.txt', tarfile.SYMTYPE, outside + '/secret')" \
    "hardlink|member('lib64/libcudart.so', tarfile.LNKTYPE, outside + '/secret')" \
    "dotdot|member('include/../../escaped.h', tarfile.REGTYPE, data=b'x')" \
    "absolute|member(outside + '/absolute.h', tarfile.REGTYPE, data=b'x')" \
    "elsewhere|member('bin/nvcc', tarfile.REGTYPE, data=b'x')" \
    "fifo|member('include/pipe', tarfile.FIFOTYPE)"; do
	name=${c%%|*}
	b=$(bad "$name" "${c#*|}")
	set +e
	run "$b"; rc=$?
	set -e
	[ "$rc" = 1 ] || fail "$name: exit $rc, not 1: $(cat "$tmpdir/out")"
	grep -q "refused, nothing written" "$tmpdir/out" || fail "$name: $(cat "$tmpdir/out")"
	[ "$(wc -l <"$tmpdir/out")" = 1 ] || fail "$name: more than one line: $(cat "$tmpdir/out")"
	[ "$(snapshot "$prefix")" = "$before" ] || fail "$name changed PREFIX"
	[ "$(beside)" = 0 ] || fail "$name left folders beside PREFIX"
	[ "$(cat "$outside/crt/mine.h")" = "keep me" ] || fail "$name reached $outside/crt"
	[ "$(ls "$outside")" = "crt
secret" ] || fail "$name wrote in $outside: $(ls "$outside")"
	[ ! -e "$tmpdir/escaped.h" ] || fail "$name wrote $tmpdir/escaped.h"
	! grep -rq "a private key" "$prefix" || fail "$name copied the private file into PREFIX"
done

# 4. The good bundle again: PREFIX replaced whole (a file planted in the
# old one is gone), nothing beside.
: >"$prefix/include/planted.h"
run "$good" || fail "a second good bundle: $(cat "$tmpdir/out")"
[ ! -e "$prefix/include/planted.h" ] || fail "the old PREFIX's files survived the swap"
[ "$(beside)" = 0 ] || fail "a second bundle left folders beside PREFIX"

# 5. --pack writes what --bundle takes: no links (the linker's names are
# made again on unpacking), and the same toolkit back.
sh "$script" --bundle "$good" --pack "$tmpdir/repacked.tar.xz" "$prefix" 12.8 \
    >"$tmpdir/out" 2>&1 || fail "--pack: $(cat "$tmpdir/out")"
links=$(tar -tvJf "$tmpdir/repacked.tar.xz" | grep -c '^[lh]' || true)
[ "$links" = 0 ] || fail "--pack wrote $links link(s)"
run "$tmpdir/repacked.tar.xz" || fail "a repacked bundle: $(cat "$tmpdir/out")"
[ "$(readlink "$prefix/lib64/libcupti.so")" = libcupti.so.12 ] ||
    fail "a repacked bundle: no libcupti.so link"

# 6. A PREFIX that cannot be written: one line, exit 1.  Its folder is a
# file (root writes anywhere else); a read-only folder too when not root.
: >"$tmpdir/afile"
set +e
sh "$script" --bundle "$good" "$tmpdir/afile/tk" 12.8 >"$tmpdir/out" 2>&1; rc=$?
set -e
[ "$rc" = 1 ] || fail "PREFIX inside a file: exit $rc, not 1: $(cat "$tmpdir/out")"
[ "$(wc -l <"$tmpdir/out")" = 1 ] && grep -q "^cuda12-toolkit: " "$tmpdir/out" ||
    fail "PREFIX inside a file: $(cat "$tmpdir/out")"
if [ "$(id -u)" != 0 ]; then
	mkdir -p "$tmpdir/ro"
	sh "$script" --bundle "$good" "$tmpdir/ro/tk" 12.8 >/dev/null 2>&1 ||
	    fail "a bundle in $tmpdir/ro"
	chmod a-w "$tmpdir/ro"
	set +e
	sh "$script" --bundle "$good" "$tmpdir/ro/tk" 12.8 >"$tmpdir/out" 2>&1; rc=$?
	set -e
	chmod u+w "$tmpdir/ro"
	[ "$rc" = 1 ] || fail "a read-only folder: exit $rc, not 1: $(cat "$tmpdir/out")"
	grep -q "read-only" "$tmpdir/out" || fail "a read-only folder: $(cat "$tmpdir/out")"
	[ -f "$tmpdir/ro/tk/TOOLKIT.txt" ] || fail "a read-only folder lost its toolkit"
else
	echo "note: as root, the read-only folder case is not run (root writes it)"
fi
echo "ok: good, truncated, 8 hostile members, replaced, repacked, unwritable PREFIX"
