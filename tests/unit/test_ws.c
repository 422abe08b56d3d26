#include "testutil.h"

#include <string.h>

#include "lru_parse.h"
#include "lru_ws.h"

#define MiB (1024.0 * 1024.0)

static double mib(uint64_t bytes)
{
	return (double)bytes / MiB;
}

static const struct lru_lruvec *find(const struct lru_snapshot *s, const char *path, int node)
{
	const struct lru_lruvec *lv = lru_snapshot_find(s, path, 0, node);

	if (!lv)
		fail_msg("no lruvec %s node %d", path, node);
	return lv;
}

/*
 * Ground truth of the fixtures (tests/fixtures/linux-6.x/README.md): /jobs/web has
 * 40 MiB hot and 80 MiB cold anon, /jobs/batch 10 MiB hot and 120 MiB cold.
 * The generations were made 2 s apart, so T = 3 s separates them.
 */
static void check_truth(const char *fixture, int web_node, int batch_node)
{
	struct lru_snapshot s;
	struct lru_ws w;

	lru_snapshot_init(&s);
	tu_parse_file(fixture, &s);

	lru_ws_lruvec(&s, find(&s, "/jobs/web", web_node), 3000, LRU_WS_STRICT, &w);
	assert_true(mib(w.hot[LRU_ANON]) > 38.0 * 0.95 && mib(w.hot[LRU_ANON]) <= 40.0 * 1.05);
	assert_true(mib(w.cold[LRU_ANON]) >= 80.0 * 0.95 && mib(w.cold[LRU_ANON]) <= 82.1 * 1.05);
	assert_int_equal(w.hot[LRU_FILE] + w.cold[LRU_FILE], 0);

	lru_ws_lruvec(&s, find(&s, "/jobs/batch", batch_node), 3000, LRU_WS_STRICT, &w);
	assert_true(mib(w.hot[LRU_ANON]) >= 10.0 * 0.95 && mib(w.hot[LRU_ANON]) <= 10.0 * 1.05);
	assert_true(mib(w.cold[LRU_ANON]) >= 120.0 * 0.95 && mib(w.cold[LRU_ANON]) <= 120.0 * 1.05);

	/* the other node holds none of these jobs' memory */
	lru_ws_lruvec(&s, find(&s, "/jobs/web", !web_node), 3000, LRU_WS_STRICT, &w);
	assert_int_equal(lru_ws_hot(&w) + lru_ws_cold(&w), 0);
	lru_snapshot_release(&s);
}

static void test_fixture_61_hot_cold_split(void **state)
{
	struct lru_snapshot s;
	struct lru_ws w;

	(void)state;
	check_truth("fixtures/linux-6.1/lru_gen.txt", 1, 0);
	check_truth("fixtures/linux-6.1/lru_gen_full.txt", 1, 0);

	/* exact page counts of the 6.1 capture: 9728 hot, 21003 cold */
	lru_snapshot_init(&s);
	tu_parse_file("fixtures/linux-6.1/lru_gen.txt", &s);
	lru_ws_lruvec(&s, find(&s, "/jobs/web", 1), 3000, LRU_WS_STRICT, &w);
	assert_int_equal(w.hot[LRU_ANON], 9728ULL * 4096);
	assert_int_equal(w.cold[LRU_ANON], 21003ULL * 4096);
	lru_snapshot_release(&s);
}

static void test_fixture_612_hot_cold_split(void **state)
{
	(void)state;
	check_truth("fixtures/linux-6.12/lru_gen.txt", 0, 1);
	check_truth("fixtures/linux-6.12/lru_gen_full.txt", 0, 1);
}

static void test_thresholds_move_the_split(void **state)
{
	struct lru_snapshot s;
	const struct lru_lruvec *lv;
	struct lru_ws w;

	(void)state;
	lru_snapshot_init(&s);
	tu_parse_file("fixtures/linux-6.1/lru_gen.txt", &s);
	lv = find(&s, "/", 0); /* ages 12384 6172 4108 2060; anon 628 0 55 1 */

	/* below the youngest's age: all but the youngest is cold */
	lru_ws_lruvec(&s, lv, 1000, LRU_WS_STRICT, &w);
	assert_int_equal(w.hot[LRU_ANON], 1 * 4096);
	assert_int_equal(w.cold[LRU_ANON], (628 + 0 + 55) * 4096);
	/* exactly at a successor's age counts as not yet older: hot */
	lru_ws_lruvec(&s, lv, 2060, LRU_WS_STRICT, &w);
	assert_int_equal(w.cold[LRU_ANON], (628 + 0) * 4096);
	assert_int_equal(w.hot[LRU_ANON], (55 + 1) * 4096);
	/* older than every successor: all hot */
	lru_ws_lruvec(&s, lv, 6172, LRU_WS_STRICT, &w);
	assert_int_equal(w.cold[LRU_ANON], 0);
	assert_int_equal(w.hot[LRU_ANON], 684 * 4096);
	/* 2 minutes on a capture 12 s old: nothing is cold */
	lru_ws_lruvec(&s, lv, 120000, LRU_WS_STRICT, &w);
	assert_int_equal(lru_ws_cold(&w), 0);
	lru_snapshot_release(&s);
}

static void test_interpolation_splits_straddling_generation(void **state)
{
	static const char text[] =
		"memcg     7 /x\n"
		" node     0\n"
		"          1      10000       1000        400 \n"
		"          2       4000          0          0 \n"
		"          3       1000        100          0 \n";
	struct lru_snapshot s;
	struct lru_ws w;
	struct lru_error err;

	(void)state;
	lru_snapshot_init(&s);
	assert_int_equal(lru_parse_buf(&s, text, strlen(text), &err), LRU_OK);
	s.page_size = 1000;
	/* gen 1 idle between 4000 and 10000 ms: at T = 7000 half of it is cold */
	lru_ws_lruvec(&s, &s.lruvecs[0], 7000, LRU_WS_INTERPOLATE, &w);
	assert_int_equal(w.cold[LRU_ANON], 500 * 1000);
	assert_int_equal(w.hot[LRU_ANON], (500 + 100) * 1000);
	assert_int_equal(w.cold[LRU_FILE], 200 * 1000);
	assert_int_equal(w.hot[LRU_FILE], 200 * 1000);
	/* strict mode keeps it hot */
	lru_ws_lruvec(&s, &s.lruvecs[0], 7000, LRU_WS_STRICT, &w);
	assert_int_equal(lru_ws_cold(&w), 0);
	/* below the successor's age both modes agree */
	lru_ws_lruvec(&s, &s.lruvecs[0], 3000, LRU_WS_INTERPOLATE, &w);
	assert_int_equal(w.cold[LRU_ANON], 1000 * 1000);
	lru_snapshot_release(&s);
}

static void test_evicted_types_are_not_counted(void **state)
{
	static const char text[] =
		"memcg     7 /x\n"
		" node     0\n"
		"          1      10000        50x        400 \n"
		"          2       4000          0          0 \n"
		"          3       1000          0          0 \n";
	struct lru_snapshot s;
	struct lru_ws w;
	struct lru_error err;

	(void)state;
	lru_snapshot_init(&s);
	assert_int_equal(lru_parse_buf(&s, text, strlen(text), &err), LRU_OK);
	lru_ws_lruvec(&s, &s.lruvecs[0], 2000, LRU_WS_STRICT, &w);
	assert_int_equal(w.cold[LRU_ANON], 0);
	assert_int_equal(w.cold[LRU_FILE], 400 * 4096);
	assert_int_equal(lru_lruvec_pages(&s.lruvecs[0], LRU_ANON), 0);
	assert_int_equal(lru_lruvec_pages(&s.lruvecs[0], LRU_FILE), 400);
	lru_snapshot_release(&s);
}

static void test_memcg_node_and_host_sums(void **state)
{
	struct lru_snapshot s;
	struct lru_ws sum = { { 0 }, { 0 } }, one, w;
	const struct lru_memcg *web;
	size_t i;

	(void)state;
	lru_snapshot_init(&s);
	tu_parse_file("fixtures/linux-6.1/lru_gen.txt", &s);
	for (i = 0; i < s.nr_lruvecs; i++) {
		lru_ws_lruvec(&s, &s.lruvecs[i], 3000, LRU_WS_STRICT, &one);
		lru_ws_add(&sum, &one);
	}
	lru_ws_host(&s, -1, 3000, LRU_WS_STRICT, &w);
	assert_memory_equal(&w, &sum, sizeof(w));
	/* root node 1 has one anon page in generation 4 */
	assert_int_equal(lru_ws_cold(&w), (628ULL + 1 + 21003 + 30728) * 4096);

	web = lru_snapshot_find_memcg(&s, "/jobs/web");
	assert_non_null(web);
	lru_ws_memcg(&s, (size_t)(web - s.memcgs), -1, 3000, LRU_WS_STRICT, &w);
	assert_int_equal(lru_ws_cold(&w), 21003ULL * 4096);
	assert_int_equal(lru_ws_hot(&w), 9728ULL * 4096);
	lru_ws_memcg(&s, (size_t)(web - s.memcgs), 0, 3000, LRU_WS_STRICT, &w);
	assert_int_equal(lru_ws_hot(&w) + lru_ws_cold(&w), 0);

	lru_ws_host(&s, 0, 3000, LRU_WS_STRICT, &w);
	assert_int_equal(lru_ws_cold(&w), (628ULL + 30728) * 4096);
	lru_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_61_hot_cold_split),
		cmocka_unit_test(test_fixture_612_hot_cold_split),
		cmocka_unit_test(test_thresholds_move_the_split),
		cmocka_unit_test(test_interpolation_splits_straddling_generation),
		cmocka_unit_test(test_evicted_types_are_not_counted),
		cmocka_unit_test(test_memcg_node_and_host_sums),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
