/*
 * sha256.c - SHA-256 (FIPS 180-4), for the hashes a user kernel's run.json
 * entry and compile cache are keyed by: the same digest `sha256sum` prints,
 * so a reader can tell which source a row measured.
 */
#include <string.h>

#include "base/ewbench.h"

/* The first 32 bits of the fractional parts of the cube roots of the
 * first 64 primes (the round constants), and of the square roots of the
 * first 8 (the initial state). */
static const uint32_t round_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
	0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
	0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
	0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t initial_h[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static uint32_t
rotr(uint32_t x, unsigned n)
{
	return x >> n | x << (32 - n);
}

/* One 64-byte block into the state h. */
static void
compress(uint32_t h[8], const unsigned char *block)
{
	uint32_t	w[64], s[8], t1, t2;
	unsigned	i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)block[4 * i] << 24 |
		    (uint32_t)block[4 * i + 1] << 16 |
		    (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + w[i - 7] +
		    (rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^
		    w[i - 15] >> 3) +
		    (rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ w[i - 2] >> 10);
	memcpy(s, h, sizeof s);
	for (i = 0; i < 64; i++) {
		t1 = s[7] + (rotr(s[4], 6) ^ rotr(s[4], 11) ^ rotr(s[4], 25)) +
		    ((s[4] & s[5]) ^ (~s[4] & s[6])) + round_k[i] + w[i];
		t2 = (rotr(s[0], 2) ^ rotr(s[0], 13) ^ rotr(s[0], 22)) +
		    ((s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]));
		memmove(s + 1, s, 7 * sizeof *s);
		s[4] += t1;
		s[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += s[i];
}

void
sha256_init(struct sha256 *c)
{
	memcpy(c->h, initial_h, sizeof c->h);
	c->length = 0;
}

void
sha256_update(struct sha256 *c, const void *data, size_t len)
{
	const unsigned char	*p = data;
	size_t			 used, take;

	while (len > 0) {
		used = (size_t)(c->length % 64);
		take = 64 - used < len ? 64 - used : len;
		memcpy(c->block + used, p, take);
		c->length += take;
		p += take;
		len -= take;
		if (used + take == 64)
			compress(c->h, c->block);
	}
}

void
sha256_hex(struct sha256 *c, char hex[SHA256_HEX])
{
	static const char	digits[] = "0123456789abcdef";
	unsigned char		pad[72];
	uint64_t		bits = c->length * 8;
	size_t			npad = 64 - (size_t)((c->length + 8) % 64);
	size_t			i;

	/* 0x80, zeros to 56 mod 64, the length in bits, big-endian. */
	memset(pad, 0, sizeof pad);
	pad[0] = 0x80;
	for (i = 0; i < 8; i++)
		pad[npad + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(c, pad, npad + 8);
	for (i = 0; i < 32; i++) {
		unsigned char byte = (unsigned char)(c->h[i / 4] >>
		    (24 - 8 * (i % 4)));

		hex[2 * i] = digits[byte >> 4];
		hex[2 * i + 1] = digits[byte & 15];
	}
	hex[64] = '\0';
}
