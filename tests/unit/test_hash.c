/* test_hash.c - lru_hash.h: every index put comes back under its hash, and only there. */
#include <stdint.h>
#include <stdlib.h>

#include "lru_hash.h"
#include "testutil.h"

/* How many times index comes back under hash, and how many indices in all. */
static size_t lookups(const struct lru_hash *t, uint64_t hash, size_t index, size_t *all)
{
	size_t cursor = SIZE_MAX, got, n = 0;

	*all = 0;
	while (lru_hash_next(t, hash, &cursor, &got)) {
		n += got == index;
		(*all)++;
	}
	return n;
}

static void test_put_and_find(void **state)
{
	struct lru_hash t;
	size_t i, all;

	(void)state;
	lru_hash_init(&t);
	assert_false(lru_hash_next(&t, 1, &(size_t){ SIZE_MAX }, &i));
	/* growing from empty through many doublings */
	for (i = 0; i < 5000; i++)
		assert_int_equal(lru_hash_put(&t, lru_hash_mix64(i), i), LRU_OK);
	assert_int_equal(t.used, 5000);
	assert_true(((size_t)1 << t.bits) >= 2 * t.used);
	for (i = 0; i < 5000; i++) {
		assert_int_equal(lookups(&t, lru_hash_mix64(i), i, &all), 1);
		assert_true(all >= 1);
	}
	lookups(&t, lru_hash_mix64(5000), SIZE_MAX, &all);
	assert_int_equal(all, 0);
	lru_hash_release(&t);
	assert_null(t.slots);
	assert_int_equal(t.used, 0);
}

static void test_one_hash_many_indices(void **state)
{
	struct lru_hash t;
	size_t i, all;
	uint64_t h = lru_hash_mix64(42), same_tag = (h & ~0xffffffffULL) | 7;

	(void)state;
	lru_hash_init(&t);
	for (i = 0; i < 100; i++)
		assert_int_equal(lru_hash_put(&t, i % 2 ? h : same_tag, i), LRU_OK);
	/* one tag: a lookup sees all of them, the caller tells them apart */
	for (i = 0; i < 100; i++)
		assert_int_equal(lookups(&t, h, i, &all), 1);
	assert_int_equal(all, 100);
	lru_hash_release(&t);
}

static void test_reserve(void **state)
{
	struct lru_hash t;
	uint64_t *slots;
	size_t i;

	(void)state;
	lru_hash_init(&t);
	assert_true(lru_hash_full(&t));
	assert_int_equal(lru_hash_reserve(&t, 1000), LRU_OK);
	assert_int_equal((size_t)1 << t.bits, 2048);
	slots = t.slots;
	for (i = 0; i < 1000; i++)
		assert_int_equal(lru_hash_put(&t, lru_hash_mix64(i), i), LRU_OK);
	assert_ptr_equal(t.slots, slots);	/* no growth within the reserve */
	assert_int_equal(lru_hash_reserve(&t, 10), LRU_OK);
	assert_ptr_equal(t.slots, slots);
	/* least size */
	lru_hash_release(&t);
	assert_int_equal(lru_hash_reserve(&t, 0), LRU_OK);
	assert_int_equal((size_t)1 << t.bits, LRU_HASH_MIN_SLOTS);
	/* too many */
	assert_int_equal(lru_hash_reserve(&t, SIZE_MAX / 2), LRU_ENOMEM);
	assert_int_equal((size_t)1 << t.bits, LRU_HASH_MIN_SLOTS);
	assert_int_equal(lru_hash_put(&t, 1, LRU_HASH_MAX_INDEX), LRU_ENOMEM);
	lru_hash_release(&t);
}

static void test_bytes(void **state)
{
	(void)state;
	/* the seed, the length and every byte count */
	assert_true(lru_hash_bytes(0, "/jobs/web", 9) != lru_hash_bytes(1, "/jobs/web", 9));
	assert_true(lru_hash_bytes(0, "/jobs/web", 9) != lru_hash_bytes(0, "/jobs/wex", 9));
	assert_true(lru_hash_bytes(0, "/jobs/web", 9) != lru_hash_bytes(0, "/jobs/web\0", 10));
	assert_true(lru_hash_bytes(0, "", 0) != lru_hash_bytes(0, "\0", 1));
	assert_true(lru_hash_bytes(7, "abcdefgh12", 10) == lru_hash_bytes(7, "abcdefgh12", 10));
	assert_true(lru_hash_mix64(1) != lru_hash_mix64(2));
	assert_true(lru_hash_mix64(0) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_and_find),
		cmocka_unit_test(test_one_hash_many_indices),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
