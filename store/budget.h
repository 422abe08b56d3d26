/*
 * budget.h - the store's memory budget: bytes held at once for request
 * bodies, decoded snapshots waiting for the writer and answers being sent.
 *
 * Every holder takes its bytes before it allocates them and gives them back
 * when it frees them; budget_take() refuses what would pass the limit, and
 * the HTTP side answers 503 with Retry-After. The last quarter of the
 * limit is kept for small holders: a take is refused past three quarters
 * when the holder's bytes (what it held before and this take) would pass
 * budget_small(), a sixty-fourth of the limit. So a flood of large requests,
 * each taking its body and its decoding in small steps, still leaves room for
 * small ones: a collector's batch of a few snapshots, /healthz. Thread-safe
 * (C11 atomics).
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
/*
 * Take bytes for a holder that already has held bytes; false (and nothing
 * taken) when that would pass the limit, or three quarters of it for a
 * holder past budget_small().
 */
bool budget_take(struct budget *b, uint64_t held, uint64_t bytes);
/* Take as much as is free for a holder of held bytes up to want, at least least: the bytes taken, or 0. */
uint64_t budget_take_upto(struct budget *b, uint64_t held, uint64_t want, uint64_t least);
/* The most a holder may hold in all and still take from the last quarter. */
uint64_t budget_small(const struct budget *b);
/* Give back bytes taken before. */
void budget_give(struct budget *b, uint64_t bytes);

#endif
