/*
 * stand-in-gpu.c - a stand-in for the CUDA runtime, LD_PRELOADed into
 * ewbench by tests/faults.sh, so that every path of a run up to its CSV
 * rows and run.json runs on a machine without a GPU.
 *
 * Device memory is anonymous host memory (zeroed, so the compare kernel's
 * result reads "no mismatch"), copies and sets are memcpy and memset,
 * kernel launches do nothing, events read the host clock.  Nothing it
 * returns is a measurement: tests use it for the files a run writes, never
 * for their numbers.
 *
 * EWB_STANDIN_GPUS	devices visible (default 1)
 * EWB_STANDIN_SYNC_MS	each stream or device synchronisation sleeps this
 *			long (default 0), so a test can signal a run mid-way
 * EWB_STANDIN_OPEN_MS	cudaGetDeviceProperties sleeps this long: a run
 *			that has claimed its directory and not yet begun
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cuda_runtime_api.h>

#define STANDIN	__attribute__((visibility("default")))

static int	current;

static int
env_int(const char *name, int fallback)
{
	const char	*v = getenv(name);

	return v != NULL && *v != '\0' ? atoi(v) : fallback;
}

static void
delay(const char *variable)
{
	int		ms = env_int(variable, 0);
	struct timespec	ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	if (ms > 0)
		nanosleep(&ts, NULL);
}

static double
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Allocations: a header page before each block records its length. */
STANDIN cudaError_t
cudaMalloc(void **p, size_t size)
{
	size_t	total = size + 4096;
	char	*base = mmap(NULL, total, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (base == MAP_FAILED)
		return cudaErrorMemoryAllocation;
	*(size_t *)base = total;
	*p = base + 4096;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaFree(void *p)
{
	char	*base = (char *)p - 4096;

	if (p != NULL)
		munmap(base, *(size_t *)base);
	return cudaSuccess;
}

STANDIN cudaError_t
cudaMallocHost(void **p, size_t size)
{
	return cudaMalloc(p, size);
}

STANDIN cudaError_t
cudaFreeHost(void *p)
{
	return cudaFree(p);
}

/* Mapped host memory (the timing's spin word): the host's own. */
STANDIN cudaError_t
cudaHostAlloc(void **p, size_t size, unsigned flags)
{
	(void)flags;
	return cudaMalloc(p, size);
}

STANDIN cudaError_t
cudaHostGetDevicePointer(void **device, void *host, unsigned flags)
{
	(void)flags;
	*device = host;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
	*free_bytes = 8ULL << 30;
	*total = 16ULL << 30;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind k,
    cudaStream_t s)
{
	(void)k;
	(void)s;
	memmove(dst, src, n);
	return cudaSuccess;
}

STANDIN cudaError_t
cudaMemsetAsync(void *dst, int value, size_t n, cudaStream_t s)
{
	(void)s;
	memset(dst, value, n);
	return cudaSuccess;
}

STANDIN cudaError_t
cudaDriverGetVersion(int *v)
{
	*v = CUDART_VERSION;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaRuntimeGetVersion(int *v)
{
	*v = CUDART_VERSION;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGetDeviceCount(int *count)
{
	*count = env_int("EWB_STANDIN_GPUS", 1);
	return *count > 0 ? cudaSuccess : cudaErrorNoDevice;
}

STANDIN cudaError_t
cudaSetDevice(int d)
{
	current = d;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGetDevice(int *d)
{
	*d = current;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
	delay("EWB_STANDIN_OPEN_MS");
	memset(p, 0, sizeof *p);
	strcpy(p->name, "Stand-in GPU");
	p->uuid.bytes[0] = (char)(0x50 + d);
	p->major = 9;
	p->minor = 0;
	p->multiProcessorCount = 132;
	p->l2CacheSize = 50 << 20;
	p->totalGlobalMem = 16ULL << 30;
	p->memoryBusWidth = 5120;
	p->maxThreadsPerMultiProcessor = 2048;
	p->maxThreadsPerBlock = 1024;
	p->sharedMemPerMultiprocessor = 228 << 10;
	p->regsPerMultiprocessor = 65536;
	p->warpSize = 32;
	p->pciBusID = d + 1;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr what, int d)
{
	(void)d;
	switch (what) {
	case cudaDevAttrMemoryClockRate:	*value = 2619000; break;
	case cudaDevAttrClockRate:		*value = 1980000; break;
	case cudaDevAttrMaxBlocksPerMultiprocessor: *value = 32; break;
	case cudaDevAttrMaxThreadsPerMultiProcessor: *value = 2048; break;
	case cudaDevAttrMultiProcessorCount:	*value = 132; break;
	case cudaDevAttrWarpSize:		*value = 32; break;
	default:				*value = 0; break;
	}
	return cudaSuccess;
}

STANDIN cudaError_t
cudaDeviceGetPCIBusId(char *buf, int len, int d)
{
	snprintf(buf, (size_t)len, "0000:%02x:00.0", d + 1);
	return cudaSuccess;
}

STANDIN cudaError_t
cudaDeviceSynchronize(void)
{
	delay("EWB_STANDIN_SYNC_MS");
	return cudaSuccess;
}

STANDIN cudaError_t
cudaStreamSynchronize(cudaStream_t s)
{
	(void)s;
	delay("EWB_STANDIN_SYNC_MS");
	return cudaSuccess;
}

STANDIN cudaError_t
cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
	(void)flags;
	*s = (cudaStream_t)malloc(16);
	return cudaSuccess;
}

STANDIN cudaError_t
cudaStreamDestroy(cudaStream_t s)
{
	free(s);
	return cudaSuccess;
}

/* An event is the host time it was recorded at. */
STANDIN cudaError_t
cudaEventCreate(cudaEvent_t *e)
{
	*e = (cudaEvent_t)calloc(1, sizeof(double));
	return cudaSuccess;
}

STANDIN cudaError_t
cudaEventDestroy(cudaEvent_t e)
{
	free(e);
	return cudaSuccess;
}

STANDIN cudaError_t
cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
	(void)s;
	*(double *)(void *)e = now_ms();
	return cudaSuccess;
}

STANDIN cudaError_t
cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned flags)
{
	(void)flags;
	return cudaEventRecord(e, s);
}

STANDIN cudaError_t
cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	double	d = *(double *)(void *)b - *(double *)(void *)a;

	*ms = d > 1e-3 ? (float)d : 1e-3f;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGetLastError(void)
{
	return cudaSuccess;
}

STANDIN cudaError_t
cudaPeekAtLastError(void)
{
	return cudaSuccess;
}

STANDIN cudaError_t
cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *f)
{
	(void)f;
	memset(a, 0, sizeof *a);
	a->maxThreadsPerBlock = 1024;
	a->numRegs = 16;
	a->ptxVersion = a->binaryVersion = 90;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaFuncSetAttribute(const void *f, enum cudaFuncAttribute what, int value)
{
	(void)f;
	(void)what;
	(void)value;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *f,
    int threads, size_t shared)
{
	(void)f;
	(void)shared;
	*blocks = threads > 0 ? 2048 / threads : 0;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks,
    const void *f, int threads, size_t shared, unsigned flags)
{
	(void)flags;
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f,
	    threads, shared);
}

STANDIN cudaError_t
cudaProfilerStart(void)
{
	return cudaSuccess;
}

STANDIN cudaError_t
cudaProfilerStop(void)
{
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGetDriverEntryPointByVersion(const char *symbol, void **fn,
    unsigned version, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *status)
{
	(void)symbol;
	(void)version;
	(void)flags;
	*fn = NULL;
	if (status != NULL)
		*status = cudaDriverEntryPointSymbolNotFound;
	return cudaErrorNotSupported;
}

/* Graphs: one opaque object each; replay does nothing. */
STANDIN cudaError_t
cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
	(void)s;
	(void)mode;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g)
{
	(void)s;
	*g = (cudaGraph_t)malloc(16);
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGraphDestroy(cudaGraph_t g)
{
	free(g);
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g,
    unsigned long long flags)
{
	(void)g;
	(void)flags;
	*x = (cudaGraphExec_t)malloc(16);
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGraphExecDestroy(cudaGraphExec_t x)
{
	free(x);
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGraphUpload(cudaGraphExec_t x, cudaStream_t s)
{
	(void)x;
	(void)s;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s)
{
	(void)x;
	(void)s;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n)
{
	(void)g;
	if (nodes != NULL && *n > 0)
		nodes[0] = (cudaGraphNode_t)g;
	*n = 1;
	return cudaSuccess;
}

STANDIN cudaError_t
cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *type)
{
	(void)node;
	*type = cudaGraphNodeTypeKernel;
	return cudaSuccess;
}

/* The launch path nvcc generates for <<<...>>>. */
STANDIN unsigned
__cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared,
    struct CUstream_st *s)
{
	(void)grid;
	(void)block;
	(void)shared;
	(void)s;
	return 0;
}

STANDIN cudaError_t
__cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared,
    void *s)
{
	memset(grid, 0, sizeof *grid);
	memset(block, 0, sizeof *block);
	*shared = 0;
	*(cudaStream_t *)s = NULL;
	return cudaSuccess;
}

STANDIN cudaError_t
__cudaGetKernel(cudaKernel_t *k, const void *f)
{
	*k = (cudaKernel_t)(uintptr_t)f;
	return cudaSuccess;
}

STANDIN cudaError_t
__cudaLaunchKernel(cudaKernel_t k, dim3 grid, dim3 block, void **args,
    size_t shared, cudaStream_t s)
{
	(void)k;
	(void)grid;
	(void)block;
	(void)args;
	(void)shared;
	(void)s;
	return cudaSuccess;
}
