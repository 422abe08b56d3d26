/* budget.c - the store's memory budget (a compare-and-swap counter). */
#include "budget.h"

void budget_init(struct budget *b, uint64_t limit)
{
	b->limit = limit;
	atomic_init(&b->used, 0);
	atomic_init(&b->peak, 0);
	atomic_init(&b->refused, 0);
}

uint64_t budget_take_upto(struct budget *b, uint64_t held, uint64_t want, uint64_t least)
{
	uint_fast64_t used = atomic_load(&b->used), peak, got;
	uint64_t cap = b->limit - b->limit / 4, small = budget_small(b);

	do {
		uint64_t avail = used >= cap ? 0 : cap - used;

		/* the last quarter: for a holder while all it holds stays small */
		if (held < small && used < b->limit) {
			uint64_t room = b->limit - used;

			if (room > small - held)
				room = small - held;
			if (room > avail)
				avail = room;
		}
		got = want < avail ? want : avail;
		if (!got || got < least) {
			atomic_fetch_add(&b->refused, 1);
			return 0;
		}
	} while (!atomic_compare_exchange_weak(&b->used, &used, used + got));
	peak = atomic_load(&b->peak);
	while (used + got > peak && !atomic_compare_exchange_weak(&b->peak, &peak, used + got))
		;
	return got;
}

uint64_t budget_small(const struct budget *b)
{
	return b->limit / 64;
}

bool budget_take(struct budget *b, uint64_t held, uint64_t bytes)
{
	return !bytes || budget_take_upto(b, held, bytes, bytes) == bytes;
}

void budget_give(struct budget *b, uint64_t bytes)
{
	atomic_fetch_sub(&b->used, bytes);
}
