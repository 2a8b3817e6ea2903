/*
 * guard.c - the guard regions' poison, and why the two-pass check sees
 * every store into a guard.
 *
 * A store into a guard goes unseen only if every byte it stores is the
 * poison of that pass.  The bytes a store writes come either from
 * elsewhere or from the guard element it overwrites:
 *
 *  1. From elsewhere (an out-of-place add or relu past the end computes
 *     from a and b, which are other buffers; or any constant): the inputs
 *     are the same in both passes (nothing rewrites them between the two
 *     launches), so the store writes the same bytes in both.  The two
 *     poisons differ in every byte (0xa5 and 0xc3), so any stored byte
 *     differs from the poison of at least one pass: seen.
 *
 *  2. From the element it overwrites, by the op (the in-place abs, which
 *     reads its output; or a relu that reads what it writes): every
 *     element of either poison is a negative, finite, normal number in
 *     every IEEE width (fp32 0xa5a5a5a5 = -2.9e-16, 0xc3c3c3c3 = -391.5;
 *     fp16 0xa5a5 = -0.0221, 0xc3c3 = -3.88; bf16 and fp64 alike: the sign
 *     bit is the top bit of the high byte, and the exponent is neither all
 *     ones nor zero), at any alignment, since the poison is one byte
 *     repeated.  |x| clears the sign bit of a negative number and relu
 *     makes it +0: either changes the bytes: seen, in both passes.
 *
 * A user's own op (--reference) computes what its author wrote: a store
 * past the end computed from the guard it overwrites goes unseen only if
 * the op leaves both poisons' values as they are (f(x) = x at -2.9e-16
 * and at -391.5 in fp32; at -0.0221 and -3.88 in fp16; bf16 likewise), a
 * store computed from elsewhere is case 1.  Its output is poisoned with
 * the pass's poison too (checker.c), since its check lets NaN pass
 * against NaN: an element it leaves unwritten then holds two different
 * finite values in the two passes, and no expected value lies within the
 * largest tolerance of both (tolerance.h; test-guard tries every bf16 and
 * fp16 value).
 *
 * The old single poison 0x5a read as positive numbers in both widths
 * (0x5a5a5a5a = 1.5e16), which |x| and relu leave as they are: the
 * tutorial's grid-stride abs wrote |guard| over its guard unseen.
 *
 * What no comparison of memory can see is a store of exactly the bytes
 * that were there (c[i] = c[i]); compute-sanitizer with --no-guard sees
 * every access (docs/user-kernels.md).
 */
#include <stdint.h>

#include "base/guard.h"

const unsigned char guard_poison[GUARD_PASSES] = { 0xa5, 0xc3 };

size_t
guard_scan(const unsigned char *bytes, size_t len, unsigned char poison,
    size_t *first, size_t *last)
{
	size_t	k, changed = 0;

	*first = *last = SIZE_MAX;
	for (k = 0; k < len; k++) {
		if (bytes[k] == poison)
			continue;
		if (changed++ == 0)
			*first = k;
		*last = k;
	}
	return changed;
}
