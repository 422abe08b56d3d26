#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "lru_model.h"

static void test_add_find_release(void **state)
{
	struct lru_snapshot s;
	struct lru_error err;
	size_t m, lv, i;
	char name[32];

	(void)state;
	lru_snapshot_init(&s);
	assert_int_equal(s.page_size, 4096);
	/* enough to make the arrays grow several times */
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "/m%zu", i);
		assert_int_equal(lru_snapshot_add_memcg(&s, i + 1, name, strlen(name), &m, &err),
				 LRU_OK);
		assert_int_equal(m, i);
		assert_int_equal(lru_snapshot_add_lruvec(&s, m, 0, &lv, &err), LRU_OK);
		assert_int_equal(lru_snapshot_add_lruvec(&s, m, 1, &lv, &err), LRU_OK);
		s.lruvecs[lv].nr_gens = 1;
		s.lruvecs[lv].gens[0].seq = i;
	}
	assert_int_equal(s.nr_memcgs, 100);
	assert_int_equal(s.nr_lruvecs, 200);
	assert_int_equal(lru_snapshot_find(&s, "/m42", 0, 1)->gens[0].seq, 42);
	assert_int_equal(lru_snapshot_find(&s, NULL, 43, 1)->gens[0].seq, 42);
	assert_null(lru_snapshot_find(&s, "/m42", 0, 2));
	assert_null(lru_snapshot_find(&s, "/nope", 0, 0));
	assert_string_equal(lru_snapshot_find_memcg(&s, "/m7")->path, "/m7");
	assert_int_equal(lru_strdup_into(&s.host.host, "h", &err), LRU_OK);
	assert_int_equal(lru_strdup_into(&s.host.host, "host-2", &err), LRU_OK);
	assert_string_equal(s.host.host, "host-2");
	lru_snapshot_release(&s);
	assert_int_equal(s.nr_memcgs, 0);
	assert_null(s.memcgs);
	assert_null(s.host.host);
}

static void test_birth_times_and_error_bound(void **state)
{
	struct lru_snapshot s;
	struct lru_error err;
	size_t m, lv;

	(void)state;
	lru_snapshot_init(&s);
	assert_int_equal(lru_snapshot_add_memcg(&s, 1, "/", 1, &m, &err), LRU_OK);
	assert_int_equal(lru_snapshot_add_lruvec(&s, m, 0, &lv, &err), LRU_OK);
	s.lruvecs[lv].nr_gens = 2;
	s.lruvecs[lv].gens[0].age_ms = 5000;
	s.lruvecs[lv].gens[1].age_ms = 1000;
	lru_snapshot_set_times(&s, 1700000000000, 1700000000040);
	assert_int_equal(s.lruvecs[lv].gens[0].birth_ms, 1700000000020 - 5000);
	assert_int_equal(s.lruvecs[lv].gens[1].birth_ms, 1700000000020 - 1000);
	assert_int_equal(s.birth_error_ms, 20 + LRU_AGE_GRANULARITY_MS);
	/* a clock that stepped back yields an empty window, not a negative one */
	lru_snapshot_set_times(&s, 1700000000040, 1700000000000);
	assert_int_equal(s.read_end_ms, s.read_start_ms);
	assert_int_equal(s.birth_error_ms, LRU_AGE_GRANULARITY_MS);
	lru_snapshot_release(&s);
}

static void test_lruvec_pages_skip_evicted(void **state)
{
	struct lru_lruvec lv;

	(void)state;
	memset(&lv, 0, sizeof(lv));
	lv.nr_gens = 3;
	lv.gens[0].pages[LRU_ANON] = 100;
	lv.gens[0].pages[LRU_FILE] = 7;
	lv.gens[0].evicted = 1u << LRU_ANON;
	lv.gens[1].pages[LRU_ANON] = 10;
	lv.gens[2].pages[LRU_ANON] = 1;
	lv.gens[2].pages[LRU_FILE] = 3;
	assert_int_equal(lru_lruvec_pages(&lv, LRU_ANON), 11);
	assert_int_equal(lru_lruvec_pages(&lv, LRU_FILE), 10);
	assert_int_equal(lru_lruvec_max_seq(&lv), lv.gens[2].seq);
}

static void test_reserve(void **state)
{
	struct lru_snapshot snap;
	struct lru_error err;
	const struct lru_lruvec *lv;
	size_t i, idx;

	(void)state;
	lru_snapshot_init(&snap);
	assert_int_equal(lru_snapshot_reserve(&snap, 0, 0, &err), LRU_OK);
	assert_null(snap.memcgs);
	assert_int_equal(lru_snapshot_reserve(&snap, 3, 100, &err), LRU_OK);
	assert_int_equal(snap.alloc_memcgs, 3);
	assert_int_equal(snap.alloc_lruvecs, 100);
	assert_int_equal(lru_snapshot_add_memcg(&snap, 1, "/", 1, &idx, &err), LRU_OK);
	lv = snap.lruvecs;
	for (i = 0; i < 100; i++)
		assert_int_equal(lru_snapshot_add_lruvec(&snap, 0, (int)i, &idx, &err), LRU_OK);
	assert_ptr_equal(snap.lruvecs, lv);	/* room was made once */
	/* fewer than there is room for: nothing changes */
	assert_int_equal(lru_snapshot_reserve(&snap, 1, 50, &err), LRU_OK);
	assert_int_equal(snap.alloc_lruvecs, 100);
	/* more grow on demand past a reservation */
	assert_int_equal(lru_snapshot_add_lruvec(&snap, 0, 100, &idx, &err), LRU_OK);
	assert_int_equal(idx, 100);
	assert_true(snap.alloc_lruvecs > 100);
	assert_int_equal(snap.lruvecs[42].node, 42);
	assert_int_equal(lru_snapshot_reserve(&snap, 0, SIZE_MAX, &err), LRU_ENOMEM);
	assert_int_equal(err.code, LRU_ENOMEM);
	assert_int_equal(snap.nr_lruvecs, 101);
	lru_snapshot_release(&snap);
}

/* ms from a to b */
static int64_t ts_diff_ms(struct timespec a, struct timespec b)
{
	return ((int64_t)b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}

/* a deadline is the clock's now plus ms, normalized; a past one is now */
static void test_deadline(void **state)
{
	static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC };
	static const int64_t ms[] = { 0, 1, 999, 1000, 1999, 61001, -5 };

	(void)state;
	for (size_t c = 0; c < 2; c++)
		for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
			struct timespec before, after, d;
			int64_t want = ms[i] < 0 ? 0 : ms[i];

			clock_gettime(clocks[c], &before);
			d = lru_deadline(clocks[c], ms[i]);
			clock_gettime(clocks[c], &after);
			assert_true(d.tv_nsec >= 0 && d.tv_nsec < 1000000000);
			assert_true(ts_diff_ms(before, d) >= want);
			assert_true(ts_diff_ms(after, d) <= want);
		}
	/* lru_mono_ms and lru_now_ms count the same milliseconds */
	int64_t m0 = lru_mono_ms(), n0 = lru_now_ms();
	struct timespec sleep = { 0, 20 * 1000000 };

	nanosleep(&sleep, NULL);
	assert_in_range(lru_mono_ms() - m0, 20, 20 + 5000);
	assert_in_range(lru_now_ms() - n0, 0, 20 + 5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find_release),
		cmocka_unit_test(test_birth_times_and_error_bound),
		cmocka_unit_test(test_lruvec_pages_skip_evicted),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_deadline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
