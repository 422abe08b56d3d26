/*
 * budget.h - the store's memory budget: bytes held at once for request
 * bodies, decoded snapshots waiting for the writer and answers being sent.
 *
 * Every holder takes its bytes before it allocates them and gives them back
 * when it frees them; budget_take() refuses what would pass the limit, and
 * the HTTP side answers 503 with Retry-After. A large take (more than a
 * sixteenth of the limit) is refused past three quarters of it, so a flood
 * of large requests always leaves room for small ones: a collector's batch
 * of a few snapshots, a query's small answer. Thread-safe (C11 atomics).
 */
#ifndef STORE_BUDGET_H
#define STORE_BUDGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct budget {
	uint64_t limit;
	atomic_uint_fast64_t used;
	atomic_uint_fast64_t peak;	/* the most ever held */
	atomic_uint_fast64_t refused;	/* takes refused */
};

void budget_init(struct budget *b, uint64_t limit);
/* Take bytes; false (and nothing taken) when used + bytes would pass the limit. */
bool budget_take(struct budget *b, uint64_t bytes);
/* Take as much as is free up to want, at least least: the bytes taken, or 0. */
uint64_t budget_take_upto(struct budget *b, uint64_t want, uint64_t least);
/* Give back bytes taken before. */
void budget_give(struct budget *b, uint64_t bytes);

#endif
