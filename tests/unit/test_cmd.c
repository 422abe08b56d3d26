#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "lru_cmd.h"
#include "lru_parse.h"

struct fx {
	struct lru_snapshot s;
	const struct lru_lruvec *web1;	/* /jobs/web node 1: ages 9336 6164 4108 2060 */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	lru_snapshot_init(&f->s);
	tu_parse_file("fixtures/linux-6.1/lru_gen.txt", &f->s);
	f->web1 = lru_snapshot_find(&f->s, "/jobs/web", 0, 1);
	assert_non_null(f->web1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	lru_snapshot_release(&f->s);
	free(f);
	return 0;
}

static const char *fmt(const struct lru_cmd *c)
{
	static char buf[LRU_CMD_MAX];

	lru_cmd_format(c, buf, sizeof(buf));
	return buf;
}

static void test_age_uses_max_seq_and_flags(void **state)
{
	struct fx *f = *state;
	struct lru_cmd c;
	struct lru_error err;

	assert_int_equal(lru_cmd_age(&f->s, f->web1, 1, 1, &c, &err), LRU_OK);
	assert_string_equal(fmt(&c), "+ 3 1 6 1 1\n");
	assert_int_equal(lru_cmd_check(&f->s, &c, &err), LRU_OK);
	assert_int_equal(lru_cmd_age(&f->s, f->web1, 0, 1, &c, &err), LRU_OK);
	assert_string_equal(fmt(&c), "+ 3 1 6 0 1\n");
	/* four generations: the kernel answers ERANGE without force_scan */
	assert_int_equal(lru_cmd_age(&f->s, f->web1, 1, 0, &c, &err), LRU_EINVAL);
	assert_non_null(strstr(err.msg, "needs force_scan"));
}

static void test_evict_older_than_picks_cold_generations(void **state)
{
	struct fx *f = *state;
	struct lru_cmd c;
	struct lru_error err;
	uint64_t pages;

	/* 3 s: gens 3 and 4 are cold (successors 6164 and 4108 ms old) */
	assert_int_equal(lru_cmd_evict_older_than(&f->s, f->web1, 3000, -1, 0, &c, &pages, &err),
			 LRU_OK);
	assert_string_equal(fmt(&c), "- 3 1 4\n");
	assert_int_equal(pages, 21003);
	assert_int_equal(lru_cmd_check(&f->s, &c, &err), LRU_OK);
	/* 5 s: only gen 3 */
	assert_int_equal(lru_cmd_evict_older_than(&f->s, f->web1, 5000, 100, 0, &c, &pages, &err),
			 LRU_OK);
	assert_string_equal(fmt(&c), "- 3 1 3 100\n");
	/* 1 s would reach gen 5, one of the two youngest: stops at 4 */
	assert_int_equal(lru_cmd_evict_older_than(&f->s, f->web1, 1000, 0, 0, &c, &pages, &err),
			 LRU_OK);
	assert_int_equal(c.seq, 4);
	assert_int_equal(pages, 0); /* swappiness 0: file only, and there is none */
	/* a cap passes nr_to_reclaim and needs a swappiness */
	assert_int_equal(lru_cmd_evict_older_than(&f->s, f->web1, 3000, -1, 1000 * 4096, &c, &pages,
						  &err), LRU_OK);
	assert_string_equal(fmt(&c), "- 3 1 4 60 1000\n");
	assert_int_equal(pages, 1000);
	assert_int_equal(lru_cmd_evict_older_than(&f->s, f->web1, 3000, LRU_SWAPPINESS_MAX, 0,
						  &c, &pages, &err), LRU_OK);
	assert_string_equal(fmt(&c), "- 3 1 4 max\n");
	/* nothing is 10 s idle */
	assert_int_equal(lru_cmd_evict_older_than(&f->s, f->web1, 10000, -1, 0, &c, &pages, &err),
			 LRU_ENOENT);
	assert_non_null(strstr(err.msg, "'/jobs/web' node 1"));
	assert_int_equal(lru_cmd_evict_older_than(&f->s, f->web1, 3000, 500, 0, &c, &pages, &err),
			 LRU_EINVAL);
}

static void check_cmd(struct fx *f, const char *text, enum lru_err code, const char *msg)
{
	struct lru_cmd c;
	struct lru_error err;

	assert_int_equal(lru_cmd_parse(text, &c, &err), LRU_OK);
	lru_error_clear(&err);
	assert_int_equal(lru_cmd_check(&f->s, &c, &err), code);
	if (msg && !strstr(err.msg, msg))
		fail_msg("'%s': message '%s' lacks '%s'", text, err.msg, msg);
}

static void test_check_finds_what_the_kernel_refuses(void **state)
{
	struct fx *f = *state;

	check_cmd(f, "+ 3 1 6 1 1", LRU_OK, NULL);
	check_cmd(f, "+ 3 1 5 1 1", LRU_ESTALE, "max_seq of memcg '/jobs/web' node 1 is 6, not 5");
	check_cmd(f, "+ 3 1 7 1 1", LRU_EINVAL, "is 6, not 7");
	check_cmd(f, "+ 3 1 6", LRU_EINVAL, "needs force_scan");
	check_cmd(f, "+ 9999 0 1", LRU_ENOENT, "no memcg with id 9999");
	check_cmd(f, "+ 1 7 5", LRU_ENOENT, "has no node 7");
	check_cmd(f, "+ 0 0 6 1 1", LRU_EINVAL, "offline");
	check_cmd(f, "- 1 0 999999", LRU_EINVAL, "two youngest");
	check_cmd(f, "- 3 1 5", LRU_EINVAL, "the two youngest generations (5 and 6)");
	check_cmd(f, "- 3 1 4", LRU_OK, NULL);
	check_cmd(f, "- 3 1 2", LRU_ESTALE, "already evicted");
	check_cmd(f, "- 3 1 4 max 10", LRU_OK, NULL);
}

static void test_parse_and_format_round_trip(void **state)
{
	static const char *const good[] = {
		"+ 1 0 3\n", "+ 1 0 3 1\n", "+ 1 0 3 1 1\n", "- 4 1 7\n", "- 4 1 7 0\n",
		"- 4 1 7 200 64\n", "- 4 1 7 max 64\n", "+ 18446744073709551615 1023 9 0 0\n",
	};
	static const char *const bad[] = {
		"", "garbage", "+", "+ 1", "+ 1 0", "+ a 0 3", "+ 1 0 3 x", "+ 1 1024 3",
		"- 1 0 3 201", "+ 1 0 3 max", "+ 1 0 3 1 1 9", "+ 1 0 0x3", "+ 1 0 -3",
		"+ 18446744073709551616 0 3", "* 1 0 3",
	};
	struct lru_cmd c;
	struct lru_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (lru_cmd_parse(good[i], &c, &err))
			fail_msg("'%s' was refused: %s", good[i], err.msg);
		assert_string_equal(fmt(&c), good[i]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (lru_cmd_parse(bad[i], &c, &err) != LRU_EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
}

static void test_offline_memcg_is_refused(void **state)
{
	static const char text[] = "memcg     0 /dying\n node     0\n          1 5 1 1 \n"
				   "          2 4 1 1 \n          3 3 1 1 \n";
	struct lru_snapshot s;
	struct lru_cmd c;
	struct lru_error err;

	(void)state;
	lru_snapshot_init(&s);
	assert_int_equal(lru_parse_buf(&s, text, strlen(text), &err), LRU_OK);
	assert_int_equal(lru_cmd_age(&s, &s.lruvecs[0], 1, 1, &c, &err), LRU_EINVAL);
	assert_non_null(strstr(err.msg, "'/dying' is offline"));
	lru_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_age_uses_max_seq_and_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evict_older_than_picks_cold_generations, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_check_finds_what_the_kernel_refuses, setup,
						teardown),
		cmocka_unit_test(test_parse_and_format_round_trip),
		cmocka_unit_test(test_offline_memcg_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
