dnl ewb_cuda.m4 - find the CUDA toolkit and the parts of it ewbench uses.
dnl
dnl EWB_CHECK_CUDA
dnl   --with-cuda[=DIR]: the toolkit prefix.  Default: the prefix of the nvcc
dnl   on PATH, else /usr/local/cuda.  ewbench cannot be built without CUDA,
dnl   so anything missing is an error that says what and where we looked.
dnl   Sets and substitutes: CUDA_HOME, NVCC, NVCCFLAGS (user variable),
dnl   CUDA_CPPFLAGS, CUDA_LDFLAGS (with an rpath: libcupti is found at run
dnl   time without LD_LIBRARY_PATH), CUDART_LIBS, CUPTI_LIBS, CUPTI_LIBDIR,
dnl   NVRTC_LIBS, CUDA_VERSION_STRING, EWB_NVCC_RELEASE, EWB_DRIVER_MIN_TEXT,
dnl   EWB_CCCL_TEXT, EWB_CUB_PEER; defines EWB_CUDA_INCLUDE,
dnl   EWB_CUDA_BUILD_VERSION, EWB_CUPTI_BUILD_API, EWB_CUPTI_KERNEL_RECORD
dnl   (and _NAME), EWB_DRIVER_MIN and EWB_NVCC_RELEASE.
dnl   CUDA 12.8 or newer; 12.x lacks what the build then says it lacks
dnl   (the cub peer needs CCCL 2.8: CUDA 12.9).
dnl
dnl EWB_CUDA_GENCODE(LIST)
dnl   Turns "75 80 90" into nvcc -gencode options (SASS for each, PTX for the
dnl   last) in NVCC_GENCODE, and the normalised list into EWB_CUDA_ARCH_LIST.
dnl   An NVCC_GENCODE given in the environment wins.

AC_DEFUN([EWB_CHECK_CUDA], [
AC_ARG_WITH([cuda],
  [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
    [CUDA toolkit prefix (default: from nvcc on PATH, then /usr/local/cuda)])],
  [], [with_cuda=check])
AC_ARG_VAR([NVCC], [CUDA compiler])
AC_ARG_VAR([NVCCFLAGS], [extra flags for nvcc])

AS_CASE([$with_cuda],
  [no], [AC_MSG_ERROR([ewbench needs the CUDA toolkit; --without-cuda is not supported])],
  [yes|check], [
    AS_IF([test -z "$NVCC"], [AC_PATH_PROG([NVCC], [nvcc], [], [$PATH:/usr/local/cuda/bin])])
    AS_IF([test -n "$NVCC"],
      [CUDA_HOME=`dirname "$NVCC"`; CUDA_HOME=`dirname "$CUDA_HOME"`],
      [CUDA_HOME=/usr/local/cuda])],
  [CUDA_HOME=$with_cuda
   AS_IF([test -z "$NVCC"], [AC_PATH_PROG([NVCC], [nvcc], [], [$CUDA_HOME/bin])])])

AS_IF([test -z "$NVCC" || test ! -x "$NVCC"],
  [AC_MSG_ERROR([nvcc not found (looked in ${with_cuda:-PATH} and /usr/local/cuda/bin); use --with-cuda=DIR or NVCC=...])])

dnl Library directory: lib64 (Linux runfile and packages), else lib.
ewb_cuda_libdir=$CUDA_HOME/lib64
AS_IF([test -d "$ewb_cuda_libdir"], [], [ewb_cuda_libdir=$CUDA_HOME/lib])

dnl CUPTI lives in include/ and lib64/ in CUDA 13, in extras/CUPTI in older kits.
ewb_cupti_incdir=$CUDA_HOME/include
CUPTI_LIBDIR=$ewb_cuda_libdir
AS_IF([test -f "$CUDA_HOME/extras/CUPTI/include/cupti.h" && test ! -f "$CUDA_HOME/include/cupti.h"],
  [ewb_cupti_incdir=$CUDA_HOME/extras/CUPTI/include
   CUPTI_LIBDIR=$CUDA_HOME/extras/CUPTI/lib64])

CUDA_CPPFLAGS="-I$CUDA_HOME/include"
AS_IF([test "$ewb_cupti_incdir" != "$CUDA_HOME/include"],
  [CUDA_CPPFLAGS="$CUDA_CPPFLAGS -I$ewb_cupti_incdir"])
CUDA_LDFLAGS="-L$ewb_cuda_libdir -Wl,-rpath,$ewb_cuda_libdir"
AS_IF([test "$CUPTI_LIBDIR" != "$ewb_cuda_libdir"],
  [CUDA_LDFLAGS="$CUDA_LDFLAGS -L$CUPTI_LIBDIR -Wl,-rpath,$CUPTI_LIBDIR"])

ewb_save_CPPFLAGS=$CPPFLAGS
ewb_save_LDFLAGS=$LDFLAGS
ewb_save_LIBS=$LIBS
CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"
LDFLAGS="$LDFLAGS $CUDA_LDFLAGS"

AC_CHECK_HEADER([cuda_runtime_api.h], [],
  [AC_MSG_ERROR([cuda_runtime_api.h not found under $CUDA_HOME/include])])
AC_CHECK_HEADER([cupti.h], [],
  [AC_MSG_ERROR([cupti.h not found under $ewb_cupti_incdir; ewbench needs CUPTI for its counters])])
AC_CHECK_HEADER([nvtx3/nvToolsExt.h], [],
  [AC_MSG_ERROR([NVTX3 headers (nvtx3/nvToolsExt.h) not found under $CUDA_HOME/include])])

dnl cudart is linked dynamically so that one libcudart serves ewbench and CUPTI.
AC_CHECK_LIB([cudart], [cudaGetDeviceCount], [CUDART_LIBS=-lcudart],
  [AC_MSG_ERROR([libcudart not found in $ewb_cuda_libdir])])
AC_CHECK_LIB([cupti], [cuptiGetVersion], [CUPTI_LIBS=-lcupti],
  [AC_MSG_ERROR([libcupti not found in $CUPTI_LIBDIR])])

dnl NVRTC compiles a user's kernel (--kernel FILE.cu) at run time; its
dnl headers (cuda_fp16.h) come from the toolkit's include directory.
AC_CHECK_HEADER([nvrtc.h], [],
  [AC_MSG_ERROR([nvrtc.h not found under $CUDA_HOME/include (NVRTC is part of the toolkit)])])
AC_CHECK_LIB([nvrtc], [nvrtcCompileProgram], [NVRTC_LIBS=-lnvrtc],
  [AC_MSG_ERROR([libnvrtc not found in $ewb_cuda_libdir])])

AC_MSG_CHECKING([CUDA toolkit version])
AC_COMPUTE_INT([ewb_cuda_version], [CUDART_VERSION], [#include <cuda_runtime_api.h>],
  [AC_MSG_ERROR([cannot read CUDART_VERSION])])
CUDA_VERSION_STRING="$(( ewb_cuda_version / 1000 )).$(( ewb_cuda_version % 1000 / 10 ))"
AC_MSG_RESULT([$CUDA_VERSION_STRING])
dnl 12.8 or newer: the counters use CUPTI's Profiler Host API (12.6) and
dnl Range Profiler API (12.6 Update 2), and 12.8 is the first toolkit that
dnl builds for the RTX 50 series (sm_120) and the oldest built and tested
dnl (CI).  Each toolkit needs its driver (EWB_DRIVER_MIN, below).
AS_IF([test "$ewb_cuda_version" -lt 12080],
  [AC_MSG_ERROR([CUDA >= 12.8 is needed, found $CUDA_VERSION_STRING: ewbench's counters use CUPTI's Profiler Host and Range Profiler APIs (CUDA 12.6 Update 2 and newer), and 12.8 is the oldest toolkit it is built and tested with, the first for the RTX 50 series (sm_120); CUDA 12.8 runs on NVIDIA drivers 570 and newer, 12.9 on 575, 13.0 on 580 (docs/gpus.md)])])
dnl (C++ headers: looked for, not compiled.)
for ewb_h in cupti_profiler_host.h cupti_range_profiler.h; do
  AC_MSG_CHECKING([for $ewb_h])
  AS_IF([test -f "$ewb_cupti_incdir/$ewb_h"], [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([$ewb_h not found under $ewb_cupti_incdir: ewbench's counters need CUPTI's Profiler Host and Range Profiler APIs (CUDA 12.6 Update 2 and newer)])])
done

dnl CUPTI's API version, as its headers say (12.8: 26, 12.9: 28, 13.0:
dnl 130001; from 13.0 on major*10000 + minor*100 + patch).
AC_MSG_CHECKING([CUPTI API version])
AC_COMPUTE_INT([ewb_cupti_api], [CUPTI_API_VERSION], [#include <cupti_version.h>],
  [AC_MSG_ERROR([cannot read CUPTI_API_VERSION from cupti_version.h])])
AC_MSG_RESULT([$ewb_cupti_api])

dnl CUPTI fills only the newest kernel record of its version (12.x
dnl CUpti_ActivityKernel9, 13.0 Kernel10, 13.1 Kernel11, ...): the
dnl highest-numbered one the headers declare.  Every field ewbench reads
dnl (start, end, ids, grid, block, registers) is in each since Kernel9.
AC_MSG_CHECKING([CUPTI's kernel activity record])
EWB_CUPTI_KERNEL_RECORD=
for ewb_n in 20 19 18 17 16 15 14 13 12 11 10 9; do
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <cupti.h>]],
      [[CUpti_ActivityKernel$ewb_n r; r.start = r.end = 0; (void)r.gridX; (void)r.correlationId; return (int)r.start;]])],
    [EWB_CUPTI_KERNEL_RECORD=CUpti_ActivityKernel$ewb_n; break])
done
AS_IF([test -z "$EWB_CUPTI_KERNEL_RECORD"],
  [AC_MSG_ERROR([no CUpti_ActivityKernel9 or newer in cupti_activity.h (CUDA 12.0 and newer have it)])])
AC_MSG_RESULT([$EWB_CUPTI_KERNEL_RECORD])

CPPFLAGS=$ewb_save_CPPFLAGS
LDFLAGS=$ewb_save_LDFLAGS
LIBS=$ewb_save_LIBS

dnl Prove nvcc can compile a kernel.
AC_MSG_CHECKING([whether $NVCC compiles a kernel])
cat > conftest.cu <<'EWB_EOF'
__global__ void k(float *x) { x@<:@threadIdx.x@:>@ += 1.0f; }
int main(void) { return 0; }
EWB_EOF
AS_IF([$NVCC -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
  [AC_MSG_RESULT([yes])],
  [AC_MSG_RESULT([no]); AC_MSG_ERROR([$NVCC cannot compile a kernel; see config.log])])
rm -f conftest.cu conftest.$OBJEXT

dnl The compiler's own release: a toolkit assembled from PyPI wheels
dnl (scripts/cuda12-toolkit.sh) borrows CUDA 13's nvcc for 12.x headers.
AC_MSG_CHECKING([nvcc release])
EWB_NVCC_RELEASE=`$NVCC --version | sed -n 's/.*release \(@<:@0-9.@:>@*\),.*/\1/p'`
AS_IF([test -z "$EWB_NVCC_RELEASE"], [EWB_NVCC_RELEASE=unknown])
AC_MSG_RESULT([$EWB_NVCC_RELEASE])
AS_IF([test "$EWB_NVCC_RELEASE" != "$CUDA_VERSION_STRING"],
  [AC_MSG_WARN([nvcc $EWB_NVCC_RELEASE compiles the kernels against CUDA $CUDA_VERSION_STRING's headers and libraries: the kernels' machine code needs the driver nvcc $EWB_NVCC_RELEASE needs (a toolkit of scripts/cuda12-toolkit.sh; a 570 or 575 driver needs NVIDIA's own 12.8 or 12.9 toolkit)])])

dnl The oldest NVIDIA Linux driver (the toolkits' release notes) for the
dnl newer of the runtime and the compiler: what the built ewbench needs,
dnl said by configure, --help and the docs.
ewb_nvcc_version=`echo "$EWB_NVCC_RELEASE" | awk -F. '{ print $[1] * 1000 + $[2] * 10 }'`
ewb_driver_for=$ewb_cuda_version
AS_IF([test "${ewb_nvcc_version:-0}" -gt "$ewb_driver_for"], [ewb_driver_for=$ewb_nvcc_version])
AS_CASE([$ewb_driver_for],
  [1208?], [EWB_DRIVER_MIN_TEXT=570.26],
  [1209?], [EWB_DRIVER_MIN_TEXT=575.51],
  [1300?], [EWB_DRIVER_MIN_TEXT=580.65],
  [EWB_DRIVER_MIN_TEXT="the one CUDA $(( ewb_driver_for / 1000 )).$(( ewb_driver_for % 1000 / 10 ))'s release notes name"])

dnl CCCL, as the kernels see it (NVCCFLAGS=-I... puts newer CCCL headers
dnl first): cub::DeviceTransform, the cub peer, came with CCCL 2.8 (CUDA
dnl 12.9); without it the cub rows are skipped, saying why.
AC_MSG_CHECKING([CCCL version])
echo '#include <cuda/std/version>' >conftest.cu
EWB_CCCL_VERSION=`$NVCC $NVCCFLAGS -E -Xcompiler -dM -x cu conftest.cu 2>&AS_MESSAGE_LOG_FD | sed -n 's/^#define CCCL_VERSION  *\(@<:@0-9@:>@*\).*/\1/p' | head -n 1`
rm -f conftest.cu
AS_IF([test -z "$EWB_CCCL_VERSION"], [AC_MSG_ERROR([cannot read CCCL_VERSION through $NVCC (<cuda/std/version>)])])
EWB_CCCL_TEXT="$(( EWB_CCCL_VERSION / 1000000 )).$(( EWB_CCCL_VERSION / 1000 % 1000 )).$(( EWB_CCCL_VERSION % 1000 ))"
AS_IF([test "$EWB_CCCL_VERSION" -ge 2008000],
  [EWB_CUB_PEER="yes (cub::DeviceTransform)"],
  [EWB_CUB_PEER="no: cub::DeviceTransform needs CCCL 2.8 (CUDA 12.9, or the CCCL headers); the cub rows are skipped"])
AC_MSG_RESULT([$EWB_CCCL_TEXT])

AC_SUBST([CUDA_HOME])
AC_SUBST([CUDA_CPPFLAGS])
AC_SUBST([CUDA_LDFLAGS])
AC_SUBST([CUDART_LIBS])
AC_SUBST([CUPTI_LIBS])
AC_SUBST([NVRTC_LIBS])
AC_SUBST([CUPTI_LIBDIR])
AC_SUBST([CUDA_VERSION_STRING])
AC_DEFINE_UNQUOTED([EWB_CUDA_INCLUDE], ["$CUDA_HOME/include"], [the toolkit's headers, for NVRTC])
AC_DEFINE_UNQUOTED([EWB_CUDA_BUILD_VERSION], [$ewb_cuda_version], [CUDA toolkit version built against])
AC_DEFINE_UNQUOTED([EWB_CUPTI_BUILD_API], [$ewb_cupti_api], [CUPTI_API_VERSION of the headers built against])
AC_DEFINE_UNQUOTED([EWB_CUPTI_KERNEL_RECORD], [$EWB_CUPTI_KERNEL_RECORD], [the newest CUPTI kernel activity record of these headers])
AC_DEFINE_UNQUOTED([EWB_CUPTI_KERNEL_RECORD_NAME], ["$EWB_CUPTI_KERNEL_RECORD"], [its name])
AC_DEFINE_UNQUOTED([EWB_DRIVER_MIN], ["$EWB_DRIVER_MIN_TEXT"], [the oldest NVIDIA driver of this toolkit])
AC_DEFINE_UNQUOTED([EWB_NVCC_RELEASE], ["$EWB_NVCC_RELEASE"], [the release of the nvcc that compiled the kernels])
AC_SUBST([EWB_DRIVER_MIN_TEXT])
AC_SUBST([EWB_CCCL_TEXT])
AC_SUBST([EWB_CUB_PEER])
AC_SUBST([EWB_NVCC_RELEASE])
])

AC_DEFUN([EWB_CUDA_GENCODE], [
EWB_CUDA_ARCH_LIST=`echo "$1" | tr ',' ' ' | tr -s ' ' | sed 's/^ //; s/ $//; s/sm_//g; s/compute_//g; s/\.//g'`
AS_IF([test -z "$EWB_CUDA_ARCH_LIST"], [AC_MSG_ERROR([--with-cuda-arch: empty list])])
ewb_gencode=
ewb_last=
for ewb_a in $EWB_CUDA_ARCH_LIST; do
  AS_CASE([$ewb_a], [[[1-9][0-9]] | [[1-9][0-9][0-9]] | [[1-9][0-9][a-z]] | [[1-9][0-9][0-9][a-z]]], [],
    [AC_MSG_ERROR([--with-cuda-arch: '$ewb_a' is not a compute capability such as 90 or 120])])
  ewb_gencode="$ewb_gencode -gencode=arch=compute_$ewb_a,code=sm_$ewb_a"
  ewb_last=$ewb_a
done
ewb_gencode="$ewb_gencode -gencode=arch=compute_$ewb_last,code=compute_$ewb_last"
AC_MSG_CHECKING([nvcc GPU targets])
AS_IF([test -z "$NVCC_GENCODE"], [NVCC_GENCODE=$ewb_gencode])
AC_MSG_RESULT([$NVCC_GENCODE])
AC_ARG_VAR([NVCC_GENCODE], [nvcc -gencode options (overrides --with-cuda-arch)])
AC_SUBST([EWB_CUDA_ARCH_LIST])
])
