/*
 * cache.c - the compile cache: entries keyed by SHA-256 of all that makes
 * the compiled code, in a directory only this user may write to, checked
 * before use; a miss compiles again.  --kernel's builds (here) and
 * --elementwise's family (src/opgen/compile.c) alike.  And a build's
 * result freed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "userkernel/internal.h"

/* A cache entry: its magic (the kind of build and the version of its
 * layout), the key it answers and the SHA-256 of the key, a NUL and all
 * that follows the first line (entry_digest), one line; then the payload,
 * the kind's own.  An entry whose magic, key or digest does not match is a
 * miss. */
/* --kernel's payload: a line of the count's type (user_count as a digit),
 * a space and the lowered name; the cubin follows. */
#define CACHE_MAGIC	"ewbench-cubin 3 "
/* The most bytes of a cache entry: more is a miss, never read whole. */
#define ENTRY_MAX	(64u << 20)

/*
 * The compile cache is ewbench's private cache directory (private_cache_dir,
 * as OpenSSH treats ~/.ssh: an entry planted by another user is never
 * loaded).  NULL with the reason said once on stderr: the build is
 * compiled and not cached.
 */
char *
user_cache_path(const char *key, const char *suffix)
{
	char	*why, *dir = private_cache_dir(&why), *path;

	if (dir == NULL) {
		if (why != NULL)
			fprintf(stderr, "ewbench: kernel cache %s: not used "
			    "(compiled, not cached)\n", why);
		free(why);
		return NULL;
	}
	path = xasprintf("%s/%s%s", dir, key, suffix);
	free(dir);
	return path;
}

/* The digest an entry carries: the SHA-256 of the key it answers, a NUL
 * and the entry after its first line (its text, then its bytes). */
static void
entry_digest(const char *key, const char *text, size_t text_len,
    const void *bytes, size_t bytes_len, char hex[SHA256_HEX])
{
	struct sha256	 h;

	sha256_init(&h);
	sha256_update(&h, key, strlen(key) + 1);
	sha256_update(&h, text, text_len);
	sha256_update(&h, bytes, bytes_len);
	sha256_hex(&h, hex);
}

void
user_cache_key_part(struct sha256 *h, const char *s)
{
	sha256_update(h, s, strlen(s) + 1);	/* the NUL separates parts */
}

/* b->key from everything that shapes the cubin: the files the kernel
 * #includes too (their digest), so that an edited header compiles again. */
void
user_cache_key(struct user_build *b, const char *program)
{
	struct sha256	 h;
	char		 version[32];
	size_t		 i;

	snprintf(version, sizeof version, "nvrtc %d.%d", b->nvrtc_major,
	    b->nvrtc_minor);
	sha256_init(&h);
	user_cache_key_part(&h, CACHE_MAGIC);
	user_cache_key_part(&h, version);
	user_cache_key_part(&h, b->function);
	user_cache_key_part(&h, program);
	for (i = 0; i < b->noptions; i++)
		user_cache_key_part(&h, b->options[i]);
	user_cache_key_part(&h, b->includes_sha256);
	sha256_hex(&h, b->key);
}

bool
user_cache_entry_load(const char *path, const char *magic, const char *key,
    char **payload, size_t *payload_len)
{
	char	*text = NULL, *cause = NULL, digest[SHA256_HEX];
	size_t	 len, mlen = strlen(magic), first;

	*payload = NULL;
	*payload_len = 0;
	if (path == NULL ||
	    read_user_file(path, ENTRY_MAX, &text, &len, &cause) != 0) {
		free(cause);
		return false;
	}
	/* MAGIC KEY SPACE DIGEST NEWLINE */
	first = mlen + (SHA256_HEX - 1) * 2 + 2;
	if (len <= first || strncmp(text, magic, mlen) != 0 ||
	    strncmp(text + mlen, key, SHA256_HEX - 1) != 0 ||
	    text[mlen + SHA256_HEX - 1] != ' ' || text[first - 1] != '\n')
		goto miss;
	entry_digest(key, text + first, len - first, NULL, 0, digest);
	if (strncmp(text + mlen + SHA256_HEX, digest, SHA256_HEX - 1) != 0)
		goto miss;
	*payload_len = len - first;
	*payload = xmalloc(*payload_len + 1);
	memcpy(*payload, text + first, *payload_len);
	(*payload)[*payload_len] = '\0';
	free(text);
	return true;
miss:
	free(text);
	return false;
}

void
user_cache_entry_store(const char *path, const char *magic, const char *key,
    const char *head, const void *body, size_t body_len)
{
	char	*data, *cause = NULL, digest[SHA256_HEX];
	size_t	 first, head_len = strlen(head);

	if (path == NULL)
		return;
	first = strlen(magic) + (SHA256_HEX - 1) * 2 + 2;
	data = xmalloc(first + head_len + body_len + 1);
	entry_digest(key, head, head_len, body, body_len, digest);
	snprintf(data, first + 1, "%s%s %s\n", magic, key, digest);
	memcpy(data + first, head, head_len);
	memcpy(data + first + head_len, body, body_len);
	if (file_write_atomic_mode(path, data, first + head_len + body_len,
	    0600, &cause) != 0) {
		fprintf(stderr, "ewbench: kernel cache: %s (not cached)\n",
		    cause);
		free(cause);
	}
	free(data);
}

/* The cache entry for b->key: its lowered name and cubin, used only when
 * it says it answers b->key and its digest matches what it holds.  Any
 * problem is a miss. */
bool
user_cache_load(struct user_build *b)
{
	char	*rest, *nl;
	size_t	 len;

	if (!user_cache_entry_load(b->cache_path, CACHE_MAGIC, b->key, &rest,
	    &len))
		return false;
	/* COUNT SPACE LOWERED NEWLINE CUBIN */
	if ((nl = memchr(rest, '\n', len)) == NULL || nl - rest < 3 ||
	    nl + 1 == rest + len || rest[0] < '0' || rest[0] > '3' ||
	    rest[1] != ' ') {
		free(rest);
		return false;
	}
	b->count = (enum user_count)(rest[0] - '0');
	b->lowered = xasprintf("%.*s", (int)(nl - rest - 2), rest + 2);
	b->cubin_bytes = len - (size_t)(nl + 1 - rest);
	b->cubin = xmalloc(b->cubin_bytes);
	memcpy(b->cubin, nl + 1, b->cubin_bytes);
	free(rest);
	b->cached = true;
	return true;
}

/* Stores b in the cache (0600), atomically; a cache that cannot be
 * written is said once on stderr, never fatal. */
void
user_cache_store(const struct user_build *b)
{
	char	*head;

	if (b->cache_path == NULL)
		return;
	head = xasprintf("%d %s\n", (int)b->count, b->lowered);
	user_cache_entry_store(b->cache_path, CACHE_MAGIC, b->key, head,
	    b->cubin, b->cubin_bytes);
	free(head);
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
