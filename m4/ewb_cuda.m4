dnl ewb_cuda.m4 - find the CUDA toolkit and the parts of it ewbench uses.
dnl
dnl EWB_CHECK_CUDA
dnl   --with-cuda[=DIR]: the toolkit prefix.  Default: the prefix of the nvcc
dnl   on PATH, else /usr/local/cuda.  ewbench cannot be built without CUDA,
dnl   so anything missing is an error that says what and where we looked.
dnl   Sets and substitutes: CUDA_HOME, NVCC, NVCCFLAGS (user variable),
dnl   CUDA_CPPFLAGS, CUDA_LDFLAGS (with an rpath: libcupti is found at run
dnl   time without LD_LIBRARY_PATH), CUDART_LIBS, CUPTI_LIBS, CUPTI_LIBDIR,
dnl   NVRTC_LIBS, CUDA_VERSION_STRING; defines EWB_CUDA_INCLUDE.
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
dnl 13.0, not older: the CUPTI Range Profiler and Profiler Host APIs the
dnl counters use first came with 12.6 (a 12.4 toolkit would need a second
dnl counter back end on the older Profiler API); the kernel records are
dnl CUpti_ActivityKernel10 (13.0); cub::DeviceTransform, the cub peer,
dnl came with CCCL 2.8 (12.9).  CUDA 13 needs an r580 driver or newer.
AS_IF([test "$ewb_cuda_version" -lt 13000],
  [AC_MSG_ERROR([CUDA >= 13.0 is needed, found $CUDA_VERSION_STRING: ewbench uses CUPTI's Range Profiler and Profiler Host APIs (CUDA 12.6 and newer), CUpti_ActivityKernel10 (13.0) and cub::DeviceTransform (12.9); a CUDA 13 build runs on NVIDIA drivers 580 and newer (docs/gpus.md)])])

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
