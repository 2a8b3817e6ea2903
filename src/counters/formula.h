/*
 * formula.h - arithmetic over named values: the formulas of
 * metrics/derived.def.
 *
 * Grammar: expr = term {("+" | "-") term}; term = factor {("*" | "/")
 * factor}; factor = number | name | "first(" expr "," expr ")" | "(" expr
 * ")" | "-" factor.  A name is [A-Za-z_][A-Za-z0-9_.]* (metric names as
 * CUPTI spells them, and the point's facts).  NaN means unknown: it
 * propagates, a division by zero gives it, and first(x, y) is x unless x
 * is NaN.
 */
#ifndef EWB_FORMULA_H
#define EWB_FORMULA_H

#include <stddef.h>

/* The value of name[0..len), NaN when unknown. */
typedef double (*formula_lookup)(const char *name, size_t len, void *arg);

/* 0 with *value set, or -1 and *cause (malloc'd) for a syntax error. */
int	formula_eval(const char *text, formula_lookup, void *arg,
	    double *value, char **cause);

#endif
