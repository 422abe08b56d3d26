/* test_budget.c - the store's memory budget: the last quarter kept for small holders. */
#include "testutil.h"

#include "budget.h"

#define MB (1ULL << 20)

/* a budget of 64 MiB: small holders hold at most 1 MiB in all */
static void test_small_threshold(void **state)
{
	struct budget b;

	(void)state;
	budget_init(&b, 64 * MB);
	assert_int_equal(budget_small(&b), 1 * MB);
	/* plain takes up to the limit while nothing is held */
	assert_true(budget_take(&b, 0, 48 * MB));
	assert_int_equal(atomic_load(&b.used), 48 * MB);
	budget_give(&b, 48 * MB);
	assert_int_equal(atomic_load(&b.used), 0);
	assert_int_equal(atomic_load(&b.peak), 48 * MB);
}

/*
 * The flood store_abuse makes: 24 holders each taking a 2 MiB body (then
 * growing it in small steps) stop at three quarters; a good client's small
 * body and its decoding still find room.
 */
static void test_flood_leaves_reserve(void **state)
{
	struct budget b;
	uint64_t held[24] = { 0 }, got;
	unsigned taken = 0;

	(void)state;
	budget_init(&b, 64 * MB);
	for (int i = 0; i < 24; i++)
		if (budget_take(&b, 0, 2 * MB)) {
			held[i] = 2 * MB;
			taken++;
		}
	assert_int_equal(taken, 24);	/* 48 MiB: the three quarters, exactly */
	/* each grows its buffer by 4 KiB steps: a holder past 1 MiB stays under three quarters */
	for (int i = 0; i < 24; i++)
		for (int k = 0; k < 64; k++)
			if (budget_take(&b, held[i], 4096))
				held[i] += 4096;
	assert_true(atomic_load(&b.used) <= 48 * MB);
	/* a new large body: refused */
	assert_false(budget_take(&b, 0, 2 * MB));
	/* the good client: 4 KiB of body, then its decoding (1 MiB wanted, 8 KiB needed) */
	assert_true(budget_take(&b, 0, 4096));
	got = budget_take_upto(&b, 4096, 1 * MB + 4096, 8192);
	assert_int_equal(got, 1 * MB - 4096);	/* the rest of its small share */
	/* once it holds its share, it takes no more from the reserve */
	assert_false(budget_take(&b, 1 * MB, 4096));
	assert_true(atomic_load(&b.refused) >= 2);
}

/* many small holders may fill the reserve; then everyone waits */
static void test_reserve_fills(void **state)
{
	struct budget b;
	int n = 0;

	(void)state;
	budget_init(&b, 64 * MB);
	assert_true(budget_take(&b, 0, 48 * MB));
	while (budget_take(&b, 0, 1 * MB))
		n++;
	assert_int_equal(n, 16);
	assert_int_equal(atomic_load(&b.used), 64 * MB);
	assert_int_equal(budget_take_upto(&b, 0, 4096, 1), 0);
	budget_give(&b, 2 * MB);
	assert_int_equal(budget_take_upto(&b, 0, 4 * MB, 1), 1 * MB);	/* a small share at most */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_threshold),
		cmocka_unit_test(test_flood_leaves_reserve),
		cmocka_unit_test(test_reserve_fills),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
