/*
 * scan.c - a user's kernel source read as text, no compiler: the __global__
 * function found, its parameters' types (the op and dtype they imply), and
 * the files it #includes checked before NVRTC opens them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "userkernel/internal.h"

static bool
is_ident(int c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (!first && c >= '0' && c <= '9');
}

bool
user_identifier(const char *s)
{
	const char	*p;

	if (!is_ident((unsigned char)*s, true))
		return false;
	for (p = s; *p != '\0'; p++) {
		if (!is_ident((unsigned char)*p, false))
			return false;
	}
	return true;
}

/* A template's instance (tadd<float>): an identifier, then its arguments
 * in balanced angle brackets to the end. */
bool
user_template_instance(const char *s)
{
	const char	*p;
	int		 depth = 0;

	if (!is_ident((unsigned char)*s, true))
		return false;
	for (p = s; is_ident((unsigned char)*p, false); p++)
		;
	if (*p != '<')
		return false;
	for (; *p != '\0'; p++) {
		depth += (*p == '<') - (*p == '>');
		if (depth == 0)
			return p[1] == '\0';
	}
	return false;
}

/*
 * The next `__global__` of source at or after p that is code: comments
 * ('//', '/ *'), string and character literals are skipped, so a
 * __global__ in them is no kernel.  NULL when there is none.
 */
static const char *
next_global(const char *source, const char *p)
{
	while (*p != '\0') {
		if (p[0] == '/' && p[1] == '/') {
			while (*p != '\0' && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*" "/");
			p = end != NULL ? end + 2 : p + strlen(p);
		} else if (*p == '"' || *p == '\'') {
			char quote = *p++;
			while (*p != '\0' && *p != quote && *p != '\n')
				p += p[0] == '\\' && p[1] != '\0' ? 2 : 1;
			if (*p == quote)
				p++;
		} else if (strncmp(p, "__global__", 10) == 0 &&
		    (p == source || !is_ident((unsigned char)p[-1], false)) &&
		    !is_ident((unsigned char)p[10], false)) {
			return p;
		} else if (is_ident((unsigned char)*p, true)) {
			while (is_ident((unsigned char)*p, false))
				p++;
		} else
			p++;
	}
	return NULL;
}

/* The identifier that names the function declared after a __global__ at
 * s: the first one followed by '(' that is not an attribute; *params: that
 * parenthesis. */
static char *
declared_name(const char *s, const char **params)
{
	static const char *const attributes[] = { "__launch_bounds__",
	    "__attribute__", "__declspec", "alignas", "__cluster_dims__",
	    "__maxnreg__" };
	const char	*p = s, *start;
	size_t		 i, len;

	while (*p != '\0' && *p != ';' && *p != '{') {
		if (!is_ident((unsigned char)*p, true)) {
			p++;
			continue;
		}
		for (start = p; is_ident((unsigned char)*p, false); p++)
			;
		len = (size_t)(p - start);
		/* The next declaration's: this one names nothing (and a scan
		 * to the end from every __global__ would be quadratic). */
		if (len == 10 && strncmp(start, "__global__", 10) == 0)
			return NULL;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p != '(')
			continue;
		for (i = 0; i < sizeof attributes / sizeof *attributes; i++) {
			if (strlen(attributes[i]) == len &&
			    strncmp(start, attributes[i], len) == 0)
				break;
		}
		if (i == sizeof attributes / sizeof *attributes) {
			*params = p;
			return xasprintf("%.*s", (int)len, start);
		}
		/* An attribute's parenthesis: skip it. */
		for (int depth = 0; *p != '\0'; p++) {
			depth += (*p == '(') - (*p == ')');
			if (depth == 0) {
				p++;
				break;
			}
		}
	}
	return NULL;
}

/* Whether name is one of names[0..count). */
static bool
listed(char *const *names, size_t count, const char *name)
{
	size_t	i;

	for (i = 0; i < count; i++) {
		if (strcmp(names[i], name) == 0)
			return true;
	}
	return false;
}

int
user_find_function(const char *source, const char *path, char **function,
    char **cause)
{
	const char	*p = source, *params;
	char		*name, **names = NULL, *list, *next;
	size_t		 count = 0, i;

	*function = NULL;
	while ((p = next_global(source, p)) != NULL) {
		p += 10;
		if ((name = declared_name(p, &params)) == NULL)
			continue;
		if (listed(names, count, name)) {
			free(name);	/* declared, then defined */
			continue;
		}
		names = xrealloc(names, (count + 1) * sizeof *names);
		names[count++] = name;
	}
	if (count == 1) {
		*function = names[0];
		free(names);
		return 0;
	}
	if (count == 0) {
		*cause = xasprintf("%s: no __global__ function found; name it: "
		    "--kernel %s:FUNCTION", path, path);
		free(names);
		return -1;
	}
	/* Several: each named, so that the choice can be copied. */
	list = xstrdup(names[0]);
	for (i = 1; i < count; i++) {
		next = xasprintf("%s, %s", list, names[i]);
		free(list);
		list = next;
	}
	*cause = xasprintf("%s: %zu __global__ functions (%s); say which: "
	    "--kernel %s:FUNCTION", path, count, list, path);
	free(list);
	while (count > 0)
		free(names[--count]);
	free(names);
	return -1;
}

/* Whether the word at q (within params) is `word`, standing alone or
 * after "__" or "nv_" (__half, __nv_bfloat16, nv_bfloat16). */
static bool
type_word(const char *params, const char *q, const char *word)
{
	size_t	len = strlen(word);

	return strncmp(q, word, len) == 0 &&
	    !is_ident((unsigned char)q[len], false) &&
	    (q == params || !is_ident((unsigned char)q[-1], false) ||
	    (q - params >= 2 && strncmp(q - 2, "__", 2) == 0) ||
	    (q - params >= 3 && strncmp(q - 3, "nv_", 3) == 0));
}

/* From the parameter list of function (declared after a __global__): how
 * many parameters it has and the dtype its types say (__half or half:
 * f16; __nv_bfloat16 or nv_bfloat16: bf16; else f32).  A guess from the
 * text: the compiler judges the exact signature (program_text). */
bool
user_infer_signature(const char *source, const char *function, unsigned *count,
    enum ewb_dtype *dtype, bool *declared)
{
	const char	*p = source, *params = NULL, *q;
	char		*name;
	unsigned	 commas = 0, depth = 0;
	bool		 half = false, bf16 = false;

	while (params == NULL && (p = next_global(source, p)) != NULL) {
		p += 10;
		if ((name = declared_name(p, &q)) == NULL)
			continue;
		if (strcmp(name, function) == 0)
			params = q;
		free(name);
	}
	if ((*declared = params != NULL) == false)
		return false;
	for (q = params; *q != '\0'; q++) {
		depth += (*q == '(' || *q == '<' || *q == '[') -
		    (*q == ')' || *q == '>' || *q == ']');
		if (depth == 0)
			break;
		commas += depth == 1 && *q == ',';
		half |= type_word(params, q, "half");
		bf16 |= type_word(params, q, "bfloat16");
	}
	*count = commas + 1;
	*dtype = bf16 ? EWB_BF16 : half ? EWB_F16 : EWB_F32;
	return true;
}

/*
 * The files a kernel #includes, checked before NVRTC opens them itself
 * (it would block on a FIFO until killed): every #include "NAME" of the
 * source, resolved as NVRTC resolves it (the including file's directory,
 * then each -I; NVRTC does not look in the working directory), and every
 * #include <NAME> found in a -I of --kernel-flags, must be a regular file
 * of at most SOURCE_MAX bytes, opened without blocking (read_user_file);
 * the headers they include are checked alike, each file once.  One that is
 * nowhere is left to NVRTC's own message, and one in the toolkit's headers
 * is not looked into.  A directive inside a comment or an #if 0 is checked
 * too: the scan is of lines, not of the preprocessor's output.  Each file
 * read goes into a digest (its path as found and its bytes), which the
 * compile caches key on: an edited header compiles again.
 */
struct includes {
	const char	**dirs;		/* the -I directories, in order */
	size_t		  ndirs;
	struct stat	 *seen;		/* st_dev and st_ino of files read */
	size_t		  nseen;
	struct sha256	  files;	/* the files read, in order */
};

static bool
include_seen(struct includes *inc, const struct stat *id)
{
	size_t	i;

	for (i = 0; i < inc->nseen; i++) {
		if (inc->seen[i].st_dev == id->st_dev &&
		    inc->seen[i].st_ino == id->st_ino)
			return true;
	}
	inc->seen = xrealloc(inc->seen, (inc->nseen + 1) * sizeof *inc->seen);
	inc->seen[inc->nseen++] = *id;
	return false;
}

/* The directory of path, "." for a bare name. */
static char *
dir_of(const char *path)
{
	const char	*slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xasprintf("%.*s", (int)(slash - path), path);
}

static int	check_includes(struct includes *, const char *path,
		    const char *source, char **cause);

/* candidate, where NAME may be: 1 absent, 0 a regular file (its own
 * includes checked), -1 refused. */
static int
include_candidate(struct includes *inc, const char *path, const char *name,
    bool quoted, const char *candidate, char **cause)
{
	struct stat	 id;
	char		*text, *why;
	size_t		 len;
	int		 rc = 0;

	if (read_user_file_id(candidate, SOURCE_MAX, &text, &len, &id,
	    &why) != 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			free(why);
			return 1;
		}
		*cause = xasprintf("%s: #include %c%s%c: %s", path,
		    quoted ? '"' : '<', name, quoted ? '"' : '>', why);
		free(why);
		return -1;
	}
	if (!include_seen(inc, &id)) {
		/* The NUL ends the path: path and bytes stay apart. */
		sha256_update(&inc->files, candidate, strlen(candidate) + 1);
		sha256_update(&inc->files, text, len);
		if (memchr(text, '\0', len) == NULL)
			rc = check_includes(inc, candidate, text, cause);
	}
	free(text);
	return rc;
}

/* One directive's NAME, included by path (quoted: whether it was "NAME"):
 * the including file's directory (quoted only), the toolkit's headers (not
 * looked into), then each -I of --kernel-flags. */
static int
check_include(struct includes *inc, const char *path, const char *name,
    bool quoted, char **cause)
{
	char	*candidate, *dir;
	size_t	 i;
	int	 rc;

	if (name[0] == '/') {
		rc = include_candidate(inc, path, name, quoted, name, cause);
		return rc < 0 ? -1 : 0;
	}
	for (i = quoted ? 0 : 1; i <= inc->ndirs; i++) {
		if (i == 0) {
			dir = dir_of(path);
			candidate = xasprintf("%s/%s", dir, name);
			free(dir);
		} else
			candidate = xasprintf("%s/%s", inc->dirs[i - 1], name);
		if (i == 1 && access(candidate, F_OK) == 0)
			rc = 0;
		else
			rc = include_candidate(inc, path, name, quoted,
			    candidate, cause);
		free(candidate);
		if (rc <= 0)
			return rc;
	}
	return 0;
}

/* Every #include of source, the text of path (one pass over its lines). */
static int
check_includes(struct includes *inc, const char *path, const char *source,
    char **cause)
{
	const char	*p = source, *name;
	char		*copy, end;
	size_t		 n;
	int		 rc;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#') {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			if (strncmp(p, "include", 7) == 0 &&
			    (p[7] == ' ' || p[7] == '\t' || p[7] == '"' ||
			    p[7] == '<')) {
				p += 7;
				while (*p == ' ' || *p == '\t')
					p++;
				end = *p == '"' ? '"' : *p == '<' ? '>' :
				    '\0';
				if (end != '\0') {
					name = ++p;
					while (*p != '\0' && *p != '\n' &&
					    *p != end)
						p++;
					n = (size_t)(p - name);
					if (*p == end && n > 0) {
						copy = xasprintf("%.*s",
						    (int)n, name);
						rc = check_include(inc, path,
						    copy, end == '"', cause);
						free(copy);
						if (rc != 0)
							return -1;
					}
				}
			}
		}
		while (*p != '\0' && *p != '\n')
			p++;
		if (*p == '\n')
			p++;
	}
	return 0;
}

/* The -I directories of flags (-IDIR, -I DIR, --include-path=DIR,
 * --include-path DIR), after the toolkit's; then check_includes. */
int
user_includes(const char *path, const char *source, char *const *flags,
    size_t nflags, char digest[SHA256_HEX], char **cause)
{
	struct includes	 inc;
	const char	*f, *dir;
	size_t		 i;
	int		 rc;

	memset(&inc, 0, sizeof inc);
	sha256_init(&inc.files);
	inc.dirs = xmalloc((nflags + 1) * sizeof *inc.dirs);
	inc.dirs[inc.ndirs++] = EWB_CUDA_INCLUDE;
	for (i = 0; i < nflags; i++) {
		f = flags[i];
		dir = NULL;
		if (strncmp(f, "-I", 2) == 0)
			dir = f[2] != '\0' ? f + 2 : NULL;
		else if (strncmp(f, "--include-path=", 15) == 0)
			dir = f + 15;
		if (dir == NULL && (strcmp(f, "-I") == 0 ||
		    strcmp(f, "--include-path") == 0) && i + 1 < nflags)
			dir = flags[++i];
		if (dir != NULL && *dir != '\0')
			inc.dirs[inc.ndirs++] = dir;
	}
	rc = check_includes(&inc, path, source, cause);
	sha256_hex(&inc.files, digest);
	free(inc.dirs);
	free(inc.seen);
	return rc;
}
