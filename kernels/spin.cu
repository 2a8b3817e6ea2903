/*
 * spin.cu - the GPU's clock, for the harness: the kernel that holds a
 * stream while the host queues launches
 * behind it, so that their rate is the GPU's, not the host's (measure.c,
 * the queued interval).  One thread waits for the host's release word in
 * mapped host memory, but never longer than its timeout on the GPU's
 * global timer: a host that could not queue everything (the launch queue
 * full, the host descheduled) leaves a timed-out spin, which the caller
 * sees in the same word, instead of a deadlock.
 */
#include "common.cuh"

/* *word: the host sets EWB_SPIN_RELEASE; the kernel answers with
 * EWB_SPIN_RELEASED or EWB_SPIN_TIMED_OUT. */
__global__ void
ewb_spin_kernel(volatile unsigned *word, unsigned long long timeout_ns)
{
	unsigned long long	start, now;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
	for (;;) {
		if (*word == EWB_SPIN_RELEASE) {
			*word = EWB_SPIN_RELEASED;
			break;
		}
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
		if (now - start > timeout_ns) {
			*word = EWB_SPIN_TIMED_OUT;
			break;
		}
	}
	__threadfence_system();
}

extern "C" cudaError_t
ewb_spin(unsigned *word, unsigned long long timeout_ns, cudaStream_t stream)
{
	ewb_spin_kernel<<<1, 1, 0, stream>>>(word, timeout_ns);
	return cudaGetLastError();
}

/* The smallest step the GPU's global timer takes, over `reads` reads by
 * one thread: kernel timestamps come in these steps. */
__global__ void
ewb_timer_step_kernel(unsigned long long *step, unsigned reads)
{
	unsigned long long	last, now, best = ~0ull;
	unsigned		i;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(last));
	for (i = 0; i < reads; i++) {
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
		if (now != last && now - last < best)
			best = now - last;
		last = now;
	}
	*step = best;
}

extern "C" cudaError_t
ewb_timer_step(unsigned long long *step, cudaStream_t stream)
{
	ewb_timer_step_kernel<<<1, 1, 0, stream>>>(step, 1u << 16);
	return cudaGetLastError();
}
