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

/* The one lruvec of an lru_gen text (kept in snap). */
static const struct lru_lruvec *one_lruvec(struct lru_snapshot *snap, const char *text)
{
	struct lru_error err;

	lru_snapshot_init(snap);
	if (lru_parse_buf(snap, text, strlen(text), &err))
		fail_msg("%s", err.msg);
	assert_int_equal(snap->nr_lruvecs, 1);
	return &snap->lruvecs[0];
}

/*
 * Linux 7.3 with huge pages, as measured: asked 145.1 MiB (37146 pages in
 * generations <= 4), freed 9.1 MiB (2330), most of the rest moved into the
 * youngest generation, 4000 pages left in generation 4.
 */
static void test_evict_outcome_tells_freed_moved_left(void **state)
{
	static const char before_txt[] = "memcg 3 /jobs/web\n node 1\n"
					 " 3 9000 20000 0\n 4 6000 17146 0\n"
					 " 5 4000 1000 7\n 6 2000 500 0\n";
	static const char after_txt[] = "memcg 3 /jobs/web\n node 1\n"
					" 4 6100 4000 0\n 5 4100 1000 7\n 6 2100 31316 0\n";
	struct lru_snapshot b, a;
	const struct lru_lruvec *before = one_lruvec(&b, before_txt);
	const struct lru_lruvec *after = one_lruvec(&a, after_txt);
	struct lru_evict_outcome o;
	struct lru_cmd c;
	uint64_t asked;

	(void)state;
	assert_int_equal(lru_cmd_evict_older_than(&b, before, 3000, -1, 0, &c, &asked, NULL), LRU_OK);
	assert_int_equal(c.seq, 4);
	assert_int_equal(asked, 37146);
	lru_cmd_evict_outcome(before, after, &c, asked, &o);
	assert_int_equal(o.freed_total, 2330);
	assert_int_equal(o.freed[LRU_ANON], 2330);
	assert_int_equal(o.freed[LRU_FILE], 0);
	assert_int_equal(o.moved, 30816);
	assert_int_equal(o.left_total, 4000);
	assert_int_equal(o.left[LRU_ANON], 4000);
	assert_true(lru_evict_outcome_second_pass(&o, asked));

	/* younger generations that grew by more than went unfreed: moved is capped */
	lru_cmd_evict_outcome(before, after, &c, 10000, &o);
	assert_int_equal(o.moved, 10000 - 2330);
	/* swappiness 0 evicts file only: the anon pages are neither moved nor left */
	c.swap = 0;
	lru_cmd_evict_outcome(before, after, &c, 0, &o);
	assert_int_equal(o.moved, 0);
	assert_int_equal(o.left_total, 0);
	assert_int_equal(o.freed_total, 2330);	/* freed counts every type */
	assert_false(lru_evict_outcome_second_pass(&o, 0));
	/* the lruvec is gone: all of it freed */
	c.swap = -1;
	lru_cmd_evict_outcome(before, NULL, &c, asked, &o);
	assert_int_equal(o.freed_total, 38646 + 7);
	assert_int_equal(o.moved + o.left_total, 0);
	/* all asked freed and nothing left: no second pass */
	lru_cmd_evict_outcome(before, after, &c, 2330, &o);
	assert_false(lru_evict_outcome_second_pass(&o, 2330));
	lru_snapshot_release(&b);
	lru_snapshot_release(&a);
}

/* The memcg grew meanwhile: freed is negative, and growth is not "moved" beyond asked. */
static void test_evict_outcome_memcg_grew(void **state)
{
	static const char before_txt[] = "memcg 3 /jobs/web\n node 1\n"
					 " 3 9000 100 0\n 4 6000 0 0\n 5 4000 0 0\n 6 2000 0 0\n";
	static const char after_txt[] = "memcg 3 /jobs/web\n node 1\n"
					" 4 6100 0 0\n 5 4100 0 0\n 6 2100 5000 0\n";
	struct lru_snapshot b, a;
	const struct lru_lruvec *before = one_lruvec(&b, before_txt);
	const struct lru_lruvec *after = one_lruvec(&a, after_txt);
	struct lru_cmd c = { '-', 3, 1, 3, -1, -1, false };
	struct lru_evict_outcome o;

	(void)state;
	lru_cmd_evict_outcome(before, after, &c, 100, &o);
	assert_int_equal(o.freed_total, -4900);
	assert_int_equal(o.moved, 100);
	assert_int_equal(o.left_total, 0);
	assert_false(lru_evict_outcome_second_pass(&o, 100));
	lru_snapshot_release(&b);
	lru_snapshot_release(&a);
}

/* A second pass asks for no more than the first pass asked and did not free. */
static void test_evict_again_stays_within_budget(void **state)
{
	struct fx *f = *state;
	struct lru_cmd c;
	struct lru_error err;
	uint64_t pages;

	/* gens 3 and 4 hold 21003 pages; a budget above that needs no cap */
	assert_int_equal(lru_cmd_evict_again(&f->s, f->web1, 3000, -1, 0, 30000 * 4096ull, &c,
					     &pages, &err), LRU_OK);
	assert_string_equal(fmt(&c), "- 3 1 4\n");
	assert_int_equal(pages, 21003);
	/* a smaller budget becomes nr_to_reclaim */
	assert_int_equal(lru_cmd_evict_again(&f->s, f->web1, 3000, -1, 0, 500 * 4096ull, &c,
					     &pages, &err), LRU_OK);
	assert_string_equal(fmt(&c), "- 3 1 4 60 500\n");
	assert_int_equal(pages, 500);
	/* the caller's cap stays a cap, and the smaller of the two wins */
	assert_int_equal(lru_cmd_evict_again(&f->s, f->web1, 3000, 100, 800 * 4096ull,
					     30000 * 4096ull, &c, &pages, &err), LRU_OK);
	assert_string_equal(fmt(&c), "- 3 1 4 100 800\n");
	assert_int_equal(lru_cmd_evict_again(&f->s, f->web1, 3000, LRU_SWAPPINESS_MAX,
					     800 * 4096ull, 200 * 4096ull, &c, &pages, &err), LRU_OK);
	assert_string_equal(fmt(&c), "- 3 1 4 max 200\n");
	assert_int_equal(pages, 200);
	/* nothing left of the budget */
	assert_int_equal(lru_cmd_evict_again(&f->s, f->web1, 3000, -1, 0, 0, &c, &pages, &err),
			 LRU_ENOENT);
}

/* lrugen age's next step: never a second write after the kernel said another aging runs. */
static void test_age_step(void **state)
{
	static const struct {
		enum lru_err wrote;
		bool retried;
		uint64_t seq, max_seq;
		enum lru_age_step want;
	} cases[] = {
		/* our write aged */
		{ LRU_OK, false, 6, 7, LRU_AGE_CREATED },
		{ LRU_OK, true, 6, 8, LRU_AGE_CREATED },
		/* success without aging (6.4-6.13 while another walker runs): one retry, then wait */
		{ LRU_OK, false, 6, 6, LRU_AGE_RETRY },
		{ LRU_OK, true, 6, 6, LRU_AGE_WAIT },
		/* EEXIST (6.14+) and memory.lru_gen's ESTALE: re-read only, never write again */
		{ LRU_EBUSY, false, 6, 6, LRU_AGE_WAIT },
		{ LRU_EBUSY, false, 6, 7, LRU_AGE_BY_OTHER },
		{ LRU_EBUSY, true, 6, 6, LRU_AGE_WAIT },
		{ LRU_ESTALE, false, 6, 7, LRU_AGE_BY_OTHER },
		{ LRU_ESTALE, false, 6, 6, LRU_AGE_WAIT },
		/* anything else failed, whatever the read says */
		{ LRU_EINVAL, false, 6, 6, LRU_AGE_FAILED },
		{ LRU_EIO, false, 6, 7, LRU_AGE_FAILED },
		{ LRU_ERANGE, true, 6, 6, LRU_AGE_FAILED },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (lru_cmd_age_step(cases[i].wrote, cases[i].retried, cases[i].seq,
				     cases[i].max_seq) != cases[i].want)
			fail_msg("case %zu: step %d, want %d", i,
				 (int)lru_cmd_age_step(cases[i].wrote, cases[i].retried, cases[i].seq,
						       cases[i].max_seq), (int)cases[i].want);
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
		cmocka_unit_test(test_evict_outcome_tells_freed_moved_left),
		cmocka_unit_test(test_evict_outcome_memcg_grew),
		cmocka_unit_test_setup_teardown(test_evict_again_stays_within_budget, setup,
						teardown),
		cmocka_unit_test(test_age_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
