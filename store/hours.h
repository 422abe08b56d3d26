/*
 * hours.h - sets of hours (since the epoch, or any int64): appended in any
 * order with repeats, then sorted with the repeats dropped. The hours with
 * samples of a job (wss, both backends) and the rolled-up hours of
 * ClickHouse (ch_rolled_hours).
 */
#ifndef STORE_HOURS_H
#define STORE_HOURS_H

#include <stddef.h>
#include <stdint.h>

struct hours {
	int64_t *v;
	size_t n, alloc;
};

/* Append h: 0, or -1 out of memory (the set unchanged). */
int hours_add(struct hours *s, int64_t h);
/* Sort the set and drop repeats; returns how many hours it holds. */
size_t hours_sort(struct hours *s);
void hours_release(struct hours *s);

#endif
