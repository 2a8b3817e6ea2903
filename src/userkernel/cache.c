/*
 * cache.c - the compile cache of users' kernels: entries keyed by
 * SHA-256 of all that makes the cubin, in a directory only this user may
 * write to; a miss compiles again.  And a build's result freed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "userkernel/internal.h"

/* A cache entry: CACHE_MAGIC, the key it answers and the SHA-256 of the
 * key, a NUL and all that follows the first line (entry_digest), then a
 * line of the count's type (user_count as a digit), a space and the
 * lowered name; the cubin follows.  An entry whose key or digest does not
 * match is a miss. */
#define CACHE_MAGIC	"ewbench-cubin 3 "
/* The most bytes of a cache entry: more is a miss, never read whole. */
#define ENTRY_MAX	(64u << 20)

/*
 * The kernel cache is ewbench's private cache directory (private_cache_dir,
 * as OpenSSH treats ~/.ssh: an entry planted by another user is never
 * loaded).  NULL with the reason said once on stderr: the kernel is
 * compiled and not cached.
 */
char *
user_cache_dir(void)
{
	char	*why, *dir = private_cache_dir(&why);

	if (dir == NULL && why != NULL) {
		fprintf(stderr, "ewbench: kernel cache %s: not used (compiled, "
		    "not cached)\n", why);
		free(why);
	}
	return dir;
}

/* The digest an entry carries: the SHA-256 of the key it answers, a NUL
 * and the entry after its first line. */
static void
entry_digest(const char *key, const char *rest, size_t len,
    char hex[SHA256_HEX])
{
	struct sha256	 h;

	sha256_init(&h);
	sha256_update(&h, key, strlen(key) + 1);
	sha256_update(&h, rest, len);
	sha256_hex(&h, hex);
}

static void
key_part(struct sha256 *h, const char *s)
{
	sha256_update(h, s, strlen(s) + 1);	/* the NUL separates parts */
}

/* b->key from everything that shapes the cubin. */
void
user_cache_key(struct user_build *b, const char *program)
{
	struct sha256	 h;
	char		 version[32];
	size_t		 i;

	snprintf(version, sizeof version, "nvrtc %d.%d", b->nvrtc_major,
	    b->nvrtc_minor);
	sha256_init(&h);
	key_part(&h, CACHE_MAGIC);
	key_part(&h, version);
	key_part(&h, b->function);
	key_part(&h, program);
	for (i = 0; i < b->noptions; i++)
		key_part(&h, b->options[i]);
	sha256_hex(&h, b->key);
}

/* The cache entry for b->key: its lowered name and cubin, used only when
 * it says it answers b->key and its digest matches what it holds.  Any
 * problem is a miss. */
bool
user_cache_load(struct user_build *b)
{
	char	*text = NULL, *cause = NULL, *rest, *nl, digest[SHA256_HEX];
	size_t	 len, magic = strlen(CACHE_MAGIC), first, rest_len;

	if (b->cache_path == NULL ||
	    read_user_file(b->cache_path, ENTRY_MAX, &text, &len,
	    &cause) != 0) {
		free(cause);
		return false;
	}
	/* CACHE_MAGIC KEY SPACE DIGEST NEWLINE */
	first = magic + (SHA256_HEX - 1) * 2 + 2;
	if (len <= first || strncmp(text, CACHE_MAGIC, magic) != 0 ||
	    strncmp(text + magic, b->key, SHA256_HEX - 1) != 0 ||
	    text[magic + SHA256_HEX - 1] != ' ' || text[first - 1] != '\n')
		goto miss;
	rest = text + first;
	rest_len = len - first;
	entry_digest(b->key, rest, rest_len, digest);
	if (strncmp(text + magic + SHA256_HEX, digest, SHA256_HEX - 1) != 0)
		goto miss;
	/* COUNT SPACE LOWERED NEWLINE CUBIN */
	if ((nl = memchr(rest, '\n', rest_len)) == NULL || nl - rest < 3 ||
	    nl + 1 == text + len || rest[0] < '0' || rest[0] > '3' ||
	    rest[1] != ' ')
		goto miss;
	b->count = (enum user_count)(rest[0] - '0');
	b->lowered = xasprintf("%.*s", (int)(nl - rest - 2), rest + 2);
	b->cubin_bytes = len - (size_t)(nl + 1 - text);
	b->cubin = xmalloc(b->cubin_bytes);
	memcpy(b->cubin, nl + 1, b->cubin_bytes);
	free(text);
	b->cached = true;
	return true;
miss:
	free(text);
	return false;
}

/* Stores b in the cache (0600), atomically; a cache that cannot be
 * written is said once on stderr, never fatal. */
void
user_cache_store(const struct user_build *b)
{
	char	*data, *rest, *cause = NULL, digest[SHA256_HEX];
	size_t	 first, head;

	if (b->cache_path == NULL)
		return;
	first = strlen(CACHE_MAGIC) + (SHA256_HEX - 1) * 2 + 2;
	head = 2 + strlen(b->lowered) + 1;
	data = xmalloc(first + head + b->cubin_bytes + 1);
	rest = data + first;
	snprintf(rest, head + 1, "%d %s\n", (int)b->count, b->lowered);
	memcpy(rest + head, b->cubin, b->cubin_bytes);
	entry_digest(b->key, rest, head + b->cubin_bytes, digest);
	snprintf(data, first + 1, "%s%s %s\n", CACHE_MAGIC, b->key, digest);
	rest[0] = (char)('0' + (int)b->count);	/* snprintf's NUL overwrote it */
	if (file_write_atomic_mode(b->cache_path, data,
	    first + head + b->cubin_bytes, 0600, &cause) != 0) {
		fprintf(stderr, "ewbench: kernel cache: %s (not cached)\n",
		    cause);
		free(cause);
	}
	free(data);
}

void
user_build_free(struct user_build *b)
{
	size_t	i;

	free(b->function);
	free(b->lowered);
	free(b->cache_path);
	for (i = 0; i < b->noptions; i++)
		free(b->options[i]);
	free(b->options);
	free(b->cubin);
	free(b->log);
	memset(b, 0, sizeof *b);
}
