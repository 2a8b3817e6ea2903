#!/bin/sh
# scripts/cuda12-toolkit.sh [--bundle FILE | --wheels DIR] [--pack FILE] PREFIX [VERSION]
#   A CUDA 12.x toolkit that ./configure --with-cuda=PREFIX builds against,
#   assembled from NVIDIA's PyPI wheels (VERSION 12.8, the default, or 12.9;
#   each pins one release of every wheel, below):
#     PREFIX/include  the 12.x headers: runtime, CUPTI (with the Profiler
#                     Host and Range Profiler APIs), NVRTC, NVTX3, CCCL
#                     (2.8 in both: cub::DeviceTransform, the cub peer),
#                     the profiler API (cuda_profiler_api.h);
#                     and the compiler's own (crt/, fatbinary_section.h)
#     PREFIX/lib64    libcudart.so.12, libcupti.so.12, libnvperf_host.so,
#                     libnvperf_target.so, libnvrtc.so.12 with its builtins
#     PREFIX/bin, PREFIX/nvvm
#                     the compiler: nvcc, cudafe++, cicc, fatbinary, nvlink,
#                     ptxas, libdevice and headers of a CUDA 13 toolkit on this
#                     machine ($CUDA13, else the one of nvcc on PATH, else
#                     /usr/local/cuda), with an nvcc.profile of PREFIX's own
#                     so that nvcc sees only PREFIX's headers
#     PREFIX/TOOLKIT.txt  which wheel gave what, and where the compiler is from
#   What the wheels lack, and why the compiler is borrowed: the 12.x
#   nvcc wheel (nvidia-cuda-nvcc-cu12) holds ptxas, libnvvm, libdevice and
#   the crt/ headers, but no nvcc driver, cudafe++, cicc, fatbinary, nvlink
#   or bin2c, and PyPI has no 12.x wheel that does (nvidia-cuda-nvcc, with
#   the driver, and nvidia-nvvm, with cicc, start at 13.0).  Its parts do
#   not mix with 13's: ptxas 12.x cannot assemble what cicc 13 writes (PTX
#   ISA 9.0), and cudafe++ 13's launch stubs need 13's crt/host_runtime.h.
#   So the whole compiler is 13.0's and that wheel is not used: the
#   kernels' machine code is 13.0's, compiled against the 12.x headers
#   (the stubs call only what libcudart.so.12 exports), and a driver that
#   predates CUDA 13 (570, 575) needs a build with NVIDIA's own 12.8 or
#   12.9 toolkit, whose nvcc is whole.  What this toolkit proves: ewbench
#   builds, links and runs against CUDA 12.x's runtime, CUPTI, NVPerf,
#   NVRTC and CCCL.
#   Nothing links libcuda (the driver's entry points are looked up at run
#   time), so no stub library is needed; nvJitLink is not used.
#   The wheels' licence (the CUDA Toolkit EULA, in each wheel's
#   dist-info/licenses) grants installing and using them; nothing here
#   redistributes them.
#
#   --wheels DIR  take the wheels from DIR (pip download's output) instead
#                 of downloading them with pip into PREFIX/wheels
#   --bundle FILE take PREFIX's 12.x part (include/, lib64/) from FILE, as
#                 --pack wrote it: for a machine without PyPI.  Only
#                 regular files and folders under include/ and lib64/,
#                 and TOOLKIT-12.txt, are taken: a bundle with any other
#                 member (a link, a device, a path that leaves them) is
#                 refused before anything is written
#   --pack FILE   then write PREFIX's 12.x part to FILE (tar, xz; no
#                 links: the libraries' development names are made again
#                 on unpacking): what a machine without PyPI needs beside
#                 its own CUDA 13
#   The toolkit is assembled in a fresh folder beside PREFIX and takes
#   PREFIX's place only once complete: a failed step (a truncated bundle,
#   a full disk) leaves PREFIX as it was.
# Exit status: 0 done, 1 a step failed (it says which), 2 bad arguments.
set -eu

usage() {
	echo "usage: scripts/cuda12-toolkit.sh [--bundle FILE | --wheels DIR] [--pack FILE] PREFIX [12.8|12.9]" >&2
	exit 2
}
fail() { echo "cuda12-toolkit: $*" >&2; exit 1; }

bundle= wheels= pack=
while [ $# -gt 0 ]; do
	case $1 in
	--bundle) [ $# -ge 2 ] || usage; bundle=$2; shift 2 ;;
	--wheels) [ $# -ge 2 ] || usage; wheels=$2; shift 2 ;;
	--pack) [ $# -ge 2 ] || usage; pack=$2; shift 2 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || usage
[ -z "$bundle" ] || [ -z "$wheels" ] || usage
prefix=$1
version=${2:-12.8}

# One release of each wheel per toolkit version: the newest of each line,
# except CCCL: 12.8's own (12.8.90) is CCCL 2.7, without
# cub::DeviceTransform (the cub peer), so 12.8 takes the 12.9 wheel's CCCL
# 2.8.2, headers only, which CCCL supports with any 12.x runtime.
case $version in
12.8) pins="nvidia-cuda-runtime-cu12==12.8.90 nvidia-cuda-cupti-cu12==12.8.90
	nvidia-cuda-nvrtc-cu12==12.8.93 nvidia-cuda-cccl-cu12==12.9.27
	nvidia-nvtx-cu12==12.8.90 nvidia-cuda-profiler-api-cu12==12.8.90" ;;
12.9) pins="nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-cupti-cu12==12.9.79
	nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-cccl-cu12==12.9.27
	nvidia-nvtx-cu12==12.9.79 nvidia-cuda-profiler-api-cu12==12.9.79" ;;
*) echo "cuda12-toolkit: VERSION is 12.8 or 12.9, not '$version'" >&2; usage ;;
esac

# nvcc_home NVCC: the folder of the nvcc binary that NVCC runs, as nvcc
# itself reports it (_HERE_): an nvcc on PATH may be a script that execs
# a toolkit's nvcc elsewhere (/usr/local/bin/nvcc on some machines), and
# copying the script would borrow that toolkit's nvcc.profile, headers
# and all.
nvcc_home() {
	"$1" --dryrun -x cu -c /dev/null -o /dev/null 2>&1 |
	    sed -n 's/^#\$ _HERE_=//p' | head -n 1
}

# The CUDA 13 toolkit whose compiler PREFIX borrows.
if [ -n "${CUDA13:-}" ]; then
	cuda13=$CUDA13
elif command -v nvcc >/dev/null 2>&1; then
	here=$(nvcc_home "$(command -v nvcc)")
	[ -n "$here" ] || fail "$(command -v nvcc) --dryrun does not say where it lives: set CUDA13 to a CUDA 13 toolkit"
	cuda13=$(cd "$here/.." && pwd)
else
	cuda13=/usr/local/cuda
fi
for f in bin/nvcc bin/cudafe++ bin/fatbinary bin/nvlink bin/ptxas nvvm/bin/cicc; do
	[ -x "$cuda13/$f" ] || fail "no $cuda13/$f: set CUDA13 to a CUDA 13 toolkit (its compiler builds the kernels)"
done
major=$("$cuda13/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
[ "${major:-0}" -ge 13 ] || fail "$cuda13/bin/nvcc is CUDA ${major:-?}, not 13 or newer"

# PREFIX is this script's: new, empty, or made by it before (its mark),
# never a folder of something else (a toolkit of NVIDIA's), nor a link.
prefix=${prefix%/}
[ -n "$prefix" ] || fail "PREFIX / is no toolkit folder"
[ ! -L "$prefix" ] || fail "$prefix is a symbolic link: give the folder itself"
if [ -e "$prefix" ] && [ ! -d "$prefix" ]; then
	fail "$prefix is not a folder"
fi
if [ -d "$prefix" ] && [ -n "$(ls -A "$prefix" 2>/dev/null)" ] && [ ! -f "$prefix/.cuda12-toolkit" ]; then
	fail "$prefix holds files this script did not make: give a new or empty folder"
fi
case $prefix in */*) parent=${prefix%/*} ;; *) parent=. ;; esac
[ -n "$parent" ] || parent=/
mkdir -p "$parent" 2>/dev/null || fail "cannot make $parent, the folder PREFIX goes in"
parent=$(cd "$parent" && pwd -P)
prefix=$parent/${prefix##*/}
# The new toolkit is built in stage, beside PREFIX (the same file
# system: the swap is two renames), and removed if anything fails.
stage=$(mktemp -d "$parent/.cuda12-toolkit.XXXXXX" 2>/dev/null) ||
    fail "cannot write in $parent (read-only?): the toolkit is built beside PREFIX before it replaces it"
old=
trap 'rm -rf "$stage" ${old:+"$old"}' EXIT
trap 'exit 1' HUP INT TERM
chmod 755 "$stage"
: >"$stage/.cuda12-toolkit"
mkdir -p "$stage/include" "$stage/lib64"

# unpack_wheel WHEEL: its nvidia/<part>/{include,lib,bin...} into a
# scratch folder; copy_part moves what ewbench uses into the stage.
scratch=$stage/.unpack
mkdir -p "$scratch"

# dev_links: the development names the linker looks for, beside the
# libraries (made here, never taken from a bundle).
dev_links() {
	for l in libcudart libcupti libnvrtc; do
		[ -f "$stage/lib64/$l.so.12" ] || fail "no lib64/$l.so.12"
		ln -s "$l.so.12" "$stage/lib64/$l.so"
	done
}

# unpack_bundle FILE: FILE's members into the stage, each checked first:
# a folder or regular file under include/ or lib64/, or TOOLKIT-12.txt;
# anything else (a link, a device, an absolute path or one through ..)
# refuses the whole bundle, named, before a byte is written.
unpack_bundle() {
	python3 - "$1" "$stage" <<'EOF' || exit 1
import os, sys, tarfile
bundle, dest = sys.argv[1], sys.argv[2]
def refuse(why):
    sys.stderr.write("cuda12-toolkit: %s: %s\n" % (bundle, why))
    sys.exit(1)
def allowed(m):
    parts = m.name.split("/")
    if m.name.startswith("/") or ".." in parts or "" in parts[:-1]:
        return False
    if parts[0] == "TOOLKIT-12.txt":
        return len(parts) == 1 and m.isreg()
    return parts[0] in ("include", "lib64") and (m.isreg() or m.isdir())
try:
    with tarfile.open(bundle, "r:xz") as t:
        members = t.getmembers()
        for m in members:
            if not allowed(m):
                kind = ("a symbolic link" if m.issym() else
                        "a hard link" if m.islnk() else
                        "a folder" if m.isdir() else
                        "a file" if m.isreg() else "a special file")
                refuse("member %r is %s outside what a bundle holds "
                       "(regular files under include/ and lib64/, "
                       "TOOLKIT-12.txt): refused, nothing written"
                       % (m.name, kind))
        for m in members:	# this user's, readable by all
            m.uid, m.gid, m.uname, m.gname = os.getuid(), os.getgid(), "", ""
            m.mode = 0o755 if m.isdir() or m.mode & 0o111 else 0o644
        extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        t.extractall(dest, members=members, **extra)
except (tarfile.TarError, EOFError, OSError, ValueError) as e:
    refuse("could not unpack (truncated, or not a tar.xz of --pack?): %s"
           % e)
EOF
}

if [ -n "$bundle" ]; then
	[ -f "$bundle" ] || fail "no bundle $bundle"
	unpack_bundle "$bundle"
	[ -f "$stage/include/cuda_runtime_api.h" ] && [ -f "$stage/TOOLKIT-12.txt" ] ||
	    fail "$bundle holds no 12.x toolkit part (made by --pack?)"
	dev_links
else
	if [ -z "$wheels" ]; then
		wheels=$stage/wheels
		mkdir -p "$wheels"
		# shellcheck disable=SC2086
		python3 -m pip download -q --no-deps --only-binary=:all: \
		    -d "$wheels" $pins ||
		    fail "pip download of the $version wheels failed (PyPI reachable?)"
	fi
	: >"$stage/TOOLKIT-12.txt"
	for pin in $pins; do
		name=${pin%%==*}
		release=${pin#*==}
		file=$(ls "$wheels"/"$(echo "$name" | tr - _)"-"$release"-*.whl 2>/dev/null | head -1)
		[ -n "$file" ] || fail "no $name $release wheel in $wheels"
		python3 -m zipfile -e "$file" "$scratch" || fail "could not unpack $file"
		echo "$name $release $(basename "$file")" >>"$stage/TOOLKIT-12.txt"
	done
	n=$scratch/nvidia
	# Headers: every wheel's include/ into one (as a toolkit's include/).
	for inc in "$n"/*/include; do
		cp -R "$inc/." "$stage/include/"
	done
	find "$stage/include" -name __init__.py -delete
	lib() {	# lib PART FILE
		[ -f "$n/$1/lib/$2" ] || fail "the $1 wheel lacks lib/$2"
		cp "$n/$1/lib/$2" "$stage/lib64/"
	}
	lib cuda_runtime libcudart.so.12
	lib cuda_cupti libcupti.so.12
	lib cuda_cupti libnvperf_host.so
	lib cuda_cupti libnvperf_target.so
	lib cuda_nvrtc libnvrtc.so.12
	lib cuda_nvrtc "libnvrtc-builtins.so.$version"
	dev_links
fi
rm -rf "$scratch"

# The compiler, CUDA 13's (see above), with PREFIX's own nvcc.profile:
# nvcc reads the profile beside its binary, so the binary is copied.  Its
# headers come with it: crt/ (the launch stubs cudafe++ writes expand its
# macros) and fatbinary_section.h.
mkdir -p "$stage/bin/crt" "$stage/nvvm/bin"
rm -rf "$stage/include/crt"
cp -R "$cuda13/include/crt" "$stage/include/crt"
cp "$cuda13/include/fatbinary_section.h" "$stage/include/"
# cuobjdump and nvdisasm too, where that toolkit has them: the SASS of
# the kernels (sass.csv) is read with the compiler's own.
for f in nvcc cudafe++ fatbinary nvlink ptxas bin2c cuobjdump nvdisasm; do
	if [ -x "$cuda13/bin/$f" ]; then cp "$cuda13/bin/$f" "$stage/bin/"; fi
done
cp "$cuda13"/bin/crt/*.stub "$stage/bin/crt/" 2>/dev/null || true
cp "$cuda13/nvvm/bin/cicc" "$stage/nvvm/bin/"
cp -R "$cuda13/nvvm/libdevice" "$stage/nvvm/"
cat >"$stage/bin/nvcc.profile" <<'EOF'

TOP              = $(_HERE_)/..

CICC_PATH        = $(TOP)/nvvm/bin
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice

LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(CICC_PATH):$(_HERE_):

INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)

LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64"

CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
# The copied nvcc must be the compiler itself, reading the profile above:
# a wrapper script would run another toolkit's nvcc with its headers.
[ "$(nvcc_home "$stage/bin/nvcc")" = "$stage/bin" ] ||
    fail "$cuda13/bin/nvcc is not the compiler itself (a script?): its copy does not read its own nvcc.profile; set CUDA13 to the toolkit that holds the nvcc binary"
# The version the headers say (a bundle's may not be VERSION's).
cudart=$(sed -n 's/^#define CUDART_VERSION  *\([0-9]*\).*/\1/p' "$stage/include/cuda_runtime_api.h")
version=$((cudart / 1000)).$((cudart % 1000 / 10))
{
	echo "CUDA $version headers and libraries from these wheels (TOOLKIT-12.txt):"
	sed 's/^/  /' "$stage/TOOLKIT-12.txt"
	echo "compiler (bin/, nvvm/) from $cuda13: $("$cuda13/bin/nvcc" --version | tail -1)"
} >"$stage/TOOLKIT.txt"

# Complete: the stage takes PREFIX's place (the old one set aside first,
# put back if the second rename fails, removed after).
if [ -d "$prefix" ]; then
	old=$(mktemp -d "$parent/.cuda12-old.XXXXXX") ||
	    fail "cannot write in $parent to set the old $prefix aside"
	mv "$prefix" "$old/prefix" 2>/dev/null ||
	    fail "cannot move the old $prefix aside (read-only?); it is left as it was"
fi
if ! mv "$stage" "$prefix" 2>/dev/null; then
	[ -z "$old" ] || mv "$old/prefix" "$prefix"
	fail "cannot put the new toolkit in $prefix; the old one is left as it was"
fi
stage=
if [ -n "$old" ]; then
	chmod -R u+w "$old" 2>/dev/null || true
	rm -rf "$old" 2>/dev/null ||
	    echo "cuda12-toolkit: the old toolkit, set aside in $old, could not all be removed" >&2
	old=
fi

if [ -n "$pack" ]; then
	# Regular files and folders only (what --bundle takes).
	(cd "$prefix" && find include lib64 TOOLKIT-12.txt ! -type l -print) |
	    tar -cJf "$pack.tmp" -C "$prefix" --no-recursion -T - ||
	    fail "could not write $pack"
	mv "$pack.tmp" "$pack"
	echo "cuda12-toolkit: $pack ($(du -h "$pack" | cut -f1))"
fi
echo "cuda12-toolkit: CUDA $version in $prefix (./configure --with-cuda=$prefix)"
