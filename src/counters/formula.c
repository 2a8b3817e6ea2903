/*
 * formula.c - a recursive-descent evaluator for formula.h's grammar.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"
#include "counters/formula.h"

struct parser {
	const char	*text;
	const char	*p;
	formula_lookup	 lookup;
	void		*arg;
	char		*cause;		/* first syntax error */
};

static double	expr(struct parser *);

static void
skip_space(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static double
fail(struct parser *ps, const char *what)
{
	if (ps->cause == NULL)
		ps->cause = xasprintf("formula '%s': %s at offset %zu",
		    ps->text, what, (size_t)(ps->p - ps->text));
	return NAN;
}

static int
accept(struct parser *ps, char c)
{
	skip_space(ps);
	if (*ps->p != c)
		return 0;
	ps->p++;
	return 1;
}

static int
is_name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static int
is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

static double
first(struct parser *ps)
{
	double	x, y;

	x = expr(ps);
	if (!accept(ps, ','))
		return fail(ps, "expected ',' in first(x, y)");
	y = expr(ps);
	if (!accept(ps, ')'))
		return fail(ps, "expected ')' after first(x, y)");
	return isnan(x) ? y : x;
}

static double
factor(struct parser *ps)
{
	const char	*start;
	char		*end;
	double		 v;

	skip_space(ps);
	start = ps->p;
	if (accept(ps, '-'))
		return -factor(ps);
	if (accept(ps, '(')) {
		v = expr(ps);
		if (!accept(ps, ')'))
			return fail(ps, "expected ')'");
		return v;
	}
	if (isdigit((unsigned char)*start) || *start == '.') {
		v = strtod(start, &end);
		if (end == start)
			return fail(ps, "bad number");
		ps->p = end;
		return v;
	}
	if (!is_name_start(*start))
		return fail(ps, "expected a number, a name or '('");
	while (is_name_char(*ps->p))
		ps->p++;
	if ((size_t)(ps->p - start) == 5 && strncmp(start, "first", 5) == 0 &&
	    accept(ps, '('))
		return first(ps);
	return ps->lookup(start, (size_t)(ps->p - start), ps->arg);
}

static double
term(struct parser *ps)
{
	double	v = factor(ps), d;

	for (;;) {
		if (accept(ps, '*'))
			v *= factor(ps);
		else if (accept(ps, '/')) {
			d = factor(ps);
			v = d == 0 ? NAN : v / d;
		} else
			return v;
	}
}

static double
expr(struct parser *ps)
{
	double	v = term(ps);

	for (;;) {
		if (accept(ps, '+'))
			v += term(ps);
		else if (accept(ps, '-'))
			v -= term(ps);
		else
			return v;
	}
}

int
formula_eval(const char *text, formula_lookup lookup, void *arg,
    double *value, char **cause)
{
	struct parser	ps = { text, text, lookup, arg, NULL };

	*value = expr(&ps);
	skip_space(&ps);
	if (ps.cause == NULL && *ps.p != '\0')
		fail(&ps, "unexpected text");
	if (ps.cause != NULL) {
		*cause = ps.cause;
		*value = NAN;
		return -1;
	}
	return 0;
}
