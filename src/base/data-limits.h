/*
 * data-limits.h - the limits ewbench keeps in what it writes and the analysis
 * checks in what it reads: one definition for both.  The analysis reads
 * this file (python/ewbench/defs/data-limits.h, a link here; a copy once
 * installed: core/validate/fields.py), each `#define NAME VALUE` line; a
 * value past one is not one ewbench wrote, and is refused naming its file
 * and field.
 */
#ifndef EWB_DATA_LIMITS_H
#define EWB_DATA_LIMITS_H

/* The longest name a run records (bytes): a variant id (a user kernel's
 * "user:FUNCTION" included) and a metric name.  The report lays them out;
 * a 10 MB one took it minutes. */
#define EWB_NAME_MAX		1024
/* The longest device name (bytes): CUDA's cudaDeviceProp::name. */
#define EWB_DEVICE_NAME_MAX	256

/* A user's op checked against its reference kernel (tolerance.h): the
 * widest --ulps, --rel and --rtol, and --atol.  They keep the two guard
 * poisons apart (no expected value lies within the tolerance of both:
 * guard.c). */
#define TOLERANCE_MAX_ULPS	1024u
#define TOLERANCE_MAX_REL	0.25
#define TOLERANCE_MAX_ATOL	1.0

#endif
