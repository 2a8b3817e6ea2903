/*
 * fuzz-driver.c - runs fuzz-parsers.c's target without libFuzzer: every
 * input of the seed corpus (tests/fuzz/corpus, or the directory given),
 * then random mutations of them - bytes flipped, inserted, deleted,
 * spliced from another input, runs of separators - from a fixed seed, for
 * a bounded number of inputs (FUZZ_RUNS, default 2000000) or seconds
 * (FUZZ_SECONDS, default 5), whichever ends first.  The sanitizer build
 * (./configure --enable-sanitizers) catches memory errors; the target
 * aborts on a broken contract.  Prints the seed and counts, so a failure
 * can be replayed (FUZZ_SEED).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/ewbench.h"

int	LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define FUZZ_MAX_INPUT	512

struct input {
	unsigned char	data[FUZZ_MAX_INPUT];
	size_t		size;
};

static uint64_t	rng_state;

static uint64_t
rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t
load_corpus(const char *dir, struct input **inputs)
{
	DIR		*d = opendir(dir);
	struct dirent	*e;
	size_t		 n = 0;
	FILE		*f;
	char		*path;

	if (d == NULL) {
		fprintf(stderr, "fuzz-driver: no corpus at %s\n", dir);
		exit(1);
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if ((f = fopen(path, "rb")) != NULL) {
			*inputs = xrealloc(*inputs, (n + 1) * sizeof **inputs);
			(*inputs)[n].size = fread((*inputs)[n].data, 1,
			    FUZZ_MAX_INPUT, f);
			fclose(f);
			n++;
		}
		free(path);
	}
	closedir(d);
	return n;
}

static void
mutate(struct input *in, const struct input *other)
{
	static const char	 tokens[] = ",,*?[]\\^KMGTiKi0123456789 \t#\n_.";
	size_t			 k, at, len, i, edits = 1 + rng() % 4;

	for (k = 0; k < edits; k++) {
		at = in->size > 0 ? rng() % (in->size + 1) : 0;
		switch (rng() % 6) {
		case 0:	/* flip a byte */
			if (at < in->size)
				in->data[at] ^= (unsigned char)(1u << rng() % 8);
			break;
		case 1:	/* a random byte in */
		case 2:	/* a telling character in */
			if (in->size < FUZZ_MAX_INPUT) {
				memmove(in->data + at + 1, in->data + at,
				    in->size - at);
				in->data[at] = rng() % 6 == 1 ?
				    (unsigned char)rng() :
				    (unsigned char)tokens[rng() %
				    (sizeof tokens - 1)];
				in->size++;
			}
			break;
		case 3:	/* a run out */
			len = rng() % 8;
			if (at + len > in->size)
				len = in->size - at;
			memmove(in->data + at, in->data + at + len,
			    in->size - at - len);
			in->size -= len;
			break;
		case 4:	/* spliced from another input */
			len = other->size > 0 ? rng() % other->size : 0;
			if (in->size + len > FUZZ_MAX_INPUT)
				len = FUZZ_MAX_INPUT - in->size;
			memmove(in->data + at + len, in->data + at,
			    in->size - at);
			memcpy(in->data + at, other->data, len);
			in->size += len;
			break;
		case 5:	/* one byte repeated */
			len = rng() % 64;
			if (in->size + len > FUZZ_MAX_INPUT)
				len = FUZZ_MAX_INPUT - in->size;
			memmove(in->data + at + len, in->data + at,
			    in->size - at);
			for (i = 0; i < len; i++)
				in->data[at + i] = at < in->size ?
				    in->data[at + len] : ',';
			in->size += len;
			break;
		}
	}
}

int
main(int argc, char **argv)
{
	const char	*top = getenv("top_srcdir");
	const char	*env;
	char		*dir;
	struct input	*inputs = NULL, in;
	size_t		 n, i, runs = 2000000;
	double		 seconds = 5, start;
	uint64_t	 seed = (uint64_t)time(NULL);

	dir = argc > 1 ? xstrdup(argv[1]) :
	    xasprintf("%s/tests/fuzz/corpus", top != NULL ? top : ".");
	if ((env = getenv("FUZZ_RUNS")) != NULL)
		runs = strtoull(env, NULL, 10);
	if ((env = getenv("FUZZ_SECONDS")) != NULL)
		seconds = strtod(env, NULL);
	if ((env = getenv("FUZZ_SEED")) != NULL)
		seed = strtoull(env, NULL, 0);
	rng_state = seed;
	n = load_corpus(dir, &inputs);
	if (n == 0) {
		fprintf(stderr, "fuzz-driver: empty corpus %s\n", dir);
		return 1;
	}
	printf("fuzz-driver: seed %llu, %zu corpus inputs\n",
	    (unsigned long long)seed, n);
	fflush(stdout);
	for (i = 0; i < n; i++)
		LLVMFuzzerTestOneInput(inputs[i].data, inputs[i].size);
	start = monotonic_seconds();
	for (i = 0; i < runs; i++) {
		if (i % 1024 == 0 && monotonic_seconds() - start > seconds)
			break;
		in = inputs[rng() % n];
		mutate(&in, &inputs[rng() % n]);
		LLVMFuzzerTestOneInput(in.data, in.size);
	}
	printf("fuzz-driver: %zu mutated inputs in %.1f s, no failure\n", i,
	    monotonic_seconds() - start);
	free(inputs);
	free(dir);
	return 0;
}
