/*
 * tests/tools/common/tool_die.h - the one-line fatal error and the clock of the test
 * tools and benchmarks (header only: define PROG, then include).
 *
 *	die(fmt, ...)	"PROG: message" on stderr, exit 1
 *	now_s()		CLOCK_MONOTONIC in seconds
 */
#ifndef TOOL_DIE_H
#define TOOL_DIE_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef PROG
#error "define PROG before including tool_die.h"
#endif

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn, unused));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double now_s(void) __attribute__((unused));

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
