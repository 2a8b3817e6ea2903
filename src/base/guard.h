/*
 * guard.h - the poison of a user kernel's guard regions and how the check
 * reads them (checker.c), kept apart from the GPU so that a unit test
 * (tests/unit/test-guard.c) can model the check on the CPU and prove it
 * strict.
 *
 * The check of a user's kernel runs twice (GUARD_PASSES), the guard regions
 * poisoned with guard_poison[0] in the first pass and guard_poison[1] in the
 * second; after each launch every guard byte must still be that pass's
 * poison.  Why no store into a guard escapes both passes (but one that
 * writes back exactly the bytes it found there): guard.c.
 */
#ifndef EWB_GUARD_H
#define EWB_GUARD_H

#include <stddef.h>

#define GUARD_PASSES	2

/* The byte each pass fills the guards with: one byte repeated, so every
 * element of every width at every offset reads the same. */
extern const unsigned char guard_poison[GUARD_PASSES];

/* How many of bytes[0..len) are not poison; *first and *last: the first
 * and last such byte (SIZE_MAX when none). */
size_t	guard_scan(const unsigned char *bytes, size_t len,
	    unsigned char poison, size_t *first, size_t *last);

#endif
