/* test_advise.c - lru_advise.h: promotions out of cold generations, merges, pairs refused, picks, SLOs. */
#include <math.h>
#include <string.h>

#include "lru_advise.h"
#include "testutil.h"

#define PAGE 4096u
#define MIN 60000u

/* An lruvec of n generations from seq first: ages in seconds, anon and file pages. */
static struct lru_lruvec lv(unsigned n, uint64_t first, const unsigned *age_s, const uint64_t *anon,
			    const uint64_t *file)
{
	struct lru_lruvec v;

	memset(&v, 0, sizeof(v));
	v.nr_gens = n;
	for (unsigned g = 0; g < n; g++) {
		v.gens[g].seq = first + g;
		v.gens[g].age_ms = age_s[g] * 1000u;
		v.gens[g].pages[LRU_ANON] = anon[g];
		v.gens[g].pages[LRU_FILE] = file ? file[g] : 0;
	}
	return v;
}

/* 100 cold pages used again within a minute: promoted at every T whose cold set held them. */
static void test_promotion(void **state)
{
	const unsigned age_a[] = { 360, 240, 120, 0 }, age_b[] = { 420, 300, 180, 60 };
	const uint64_t anon_a[] = { 1000, 500, 300, 200 }, anon_b[] = { 900, 500, 300, 300 };
	struct lru_lruvec a = lv(4, 10, age_a, anon_a, NULL), b = lv(4, 10, age_b, anon_b, NULL);
	struct lru_advise_acc acc = { 0 };
	struct lru_advise_rate r[LRU_FLEET_NR_THRESHOLDS];

	(void)state;
	assert_true(lru_advise_pair(&acc, &a, 0, &b, MIN, PAGE));
	assert_int_equal(acc.pairs_seen, 1);
	/* 1m: generations 10 and 11 are cold (their successors are older than 1m) */
	assert_int_equal(acc.pairs[0], 1);
	assert_true(acc.promoted[0] == 100u * PAGE);
	assert_true(acc.hot_ms[0] == (lru_advise_u128)500u * PAGE * MIN);
	/* 2m: only 10 (11's successor is 2m old, not older) */
	assert_int_equal(acc.pairs[1], 1);
	assert_true(acc.promoted[1] == 100u * PAGE);
	assert_true(acc.hot_ms[1] == (lru_advise_u128)1000u * PAGE * MIN);
	/* 5m and up: nothing is cold, nothing measured */
	for (unsigned k = 2; k < LRU_FLEET_NR_THRESHOLDS; k++)
		assert_int_equal(acc.pairs[k], 0);

	lru_advise_rates(&acc, 1, r);
	assert_true(r[0].measured && r[1].measured && !r[2].measured);
	assert_true(fabs(r[0].pct_per_min - 20.0) < 1e-9);	/* 100 of 500 hot pages a minute */
	assert_true(fabs(r[1].pct_per_min - 10.0) < 1e-9);
	assert_true(fabs(r[1].promoted_per_min - 100.0 * PAGE) < 1e-6);
	assert_true(fabs(r[1].hot_avg - 1000.0 * PAGE) < 1e-6);
	/* min_pairs: one pair is not enough for two */
	lru_advise_rates(&acc, 2, r);
	assert_false(r[0].measured || r[1].measured);
	assert_int_equal(r[0].pairs, 1);
}

/* The oldest generation merged into the next by a new aging: moved, not used. */
/*
 * Reclaim: of the 100 pages that left the cold generations, 60 were reclaimed
 * (pgsteal), so 40 were used; 15 refaulted pages are promotions too. The
 * bytes taken off never exceed what was cold at T nor what decreased; T not
 * measured in the pair is left alone.
 */
static void test_reclaim(void **state)
{
	const unsigned age_a[] = { 360, 240, 120, 0 }, age_b[] = { 420, 300, 180, 60 };
	const uint64_t anon_a[] = { 1000, 500, 300, 200 }, anon_b[] = { 900, 500, 300, 300 };
	struct lru_lruvec a = lv(4, 10, age_a, anon_a, NULL), b = lv(4, 10, age_b, anon_b, NULL);
	struct lru_advise_acc acc = { 0 }, sum = { 0 };
	uint64_t carry[LRU_FLEET_NR_THRESHOLDS] = { 0 };

	(void)state;
	assert_true(lru_advise_pair(&acc, &a, 0, &b, MIN, PAGE));
	assert_true(acc.cold[0] == 1500u * PAGE && acc.cold[1] == 1000u * PAGE);
	lru_advise_reclaim(&acc, 60u * PAGE, 15u * PAGE, carry);
	for (unsigned k = 0; k < 2; k++) {
		assert_true(acc.promoted[k] == (40u + 15u) * PAGE);
		assert_true(acc.evicted[k] == 60u * PAGE && acc.refaulted[k] == 15u * PAGE);
	}
	for (unsigned k = 2; k < LRU_FLEET_NR_THRESHOLDS; k++)
		assert_true(!acc.promoted[k] && !acc.evicted[k] && !acc.refaulted[k]);
	/* more reclaimed than decreased: all of the decrease was eviction, no more */
	memset(&acc, 0, sizeof(acc));
	assert_true(lru_advise_pair(&acc, &a, 0, &b, MIN, PAGE));
	lru_advise_reclaim(&acc, 5000u * PAGE, 0, carry);
	assert_true(acc.promoted[0] == 0 && acc.evicted[0] == 100u * PAGE);
	/* summed into a job with the rest */
	lru_advise_acc_add(&sum, &acc);
	lru_advise_acc_add(&sum, &acc);
	assert_true(sum.evicted[0] == 200u * PAGE && sum.cold[0] == 3000u * PAGE && sum.pairs[0] == 2);
}

/*
 * A reclaim while a snapshot was read: pgsteal (read after the generations)
 * says 60 pages were stolen in the first pair, where nothing left the cold
 * generations yet; they leave in the second pair, which steals nothing. The
 * carry takes them off there: 40 promoted, not 100. Carried bytes are taken
 * off once and for one pair only, and never at a T the pair did not measure.
 */
static void test_reclaim_carry(void **state)
{
	const unsigned age_a[] = { 360, 240, 120, 0 }, age_b[] = { 420, 300, 180, 60 };
	const uint64_t anon_a[] = { 1000, 500, 300, 200 }, anon_b[] = { 900, 500, 300, 300 };
	struct lru_lruvec a = lv(4, 10, age_a, anon_a, NULL), b = lv(4, 10, age_b, anon_b, NULL);
	struct lru_advise_acc acc = { 0 };
	uint64_t carry[LRU_FLEET_NR_THRESHOLDS] = { 0 };

	(void)state;
	/* pair 1: a with itself a minute later, nothing moved; 60 pages stolen */
	assert_true(lru_advise_pair(&acc, &a, 0, &a, MIN, PAGE));
	lru_advise_reclaim(&acc, 60u * PAGE, 0, carry);
	assert_true(acc.promoted[0] == 0 && acc.evicted[0] == 0);
	assert_true(carry[0] == 60u * PAGE && carry[1] == 60u * PAGE);
	for (unsigned k = 2; k < LRU_FLEET_NR_THRESHOLDS; k++)
		assert_true(carry[k] == 0);	/* not measured: nothing to carry */
	/* pair 2: 100 pages left the cold generations, nothing stolen in it */
	memset(&acc, 0, sizeof(acc));
	assert_true(lru_advise_pair(&acc, &a, MIN, &b, 2 * MIN, PAGE));
	lru_advise_reclaim(&acc, 0, 0, carry);
	for (unsigned k = 0; k < 2; k++) {
		assert_true(acc.promoted[k] == 40u * PAGE && acc.evicted[k] == 60u * PAGE);
		assert_true(carry[k] == 0);
	}
	/* more carried than left: the rest is dropped, this pair's own steal carried on */
	memset(&acc, 0, sizeof(acc));
	carry[0] = 5000u * PAGE;
	assert_true(lru_advise_pair(&acc, &a, 0, &b, MIN, PAGE));
	lru_advise_reclaim(&acc, 30u * PAGE, 0, carry);
	assert_true(acc.promoted[0] == 0 && acc.evicted[0] == 100u * PAGE);
	assert_true(carry[0] == 30u * PAGE);
	/* both fit: carried first, then this pair's own */
	memset(&acc, 0, sizeof(acc));
	carry[0] = 50u * PAGE;
	assert_true(lru_advise_pair(&acc, &a, 0, &b, MIN, PAGE));
	lru_advise_reclaim(&acc, 30u * PAGE, 0, carry);
	assert_true(acc.promoted[0] == 20u * PAGE && acc.evicted[0] == 80u * PAGE && carry[0] == 0);
}

static void test_merge(void **state)
{
	const unsigned age_a[] = { 600, 360, 240, 0 }, age_b[] = { 480, 360, 120, 0 };
	const uint64_t anon_a[] = { 700, 300, 100, 50 }, anon_b[] = { 1000, 100, 50, 10 };
	const uint64_t file_a[] = { 10, 0, 0, 0 }, file_b[] = { 10, 0, 0, 0 };
	struct lru_lruvec a = lv(4, 10, age_a, anon_a, file_a), b = lv(4, 11, age_b, anon_b, file_b);
	struct lru_advise_acc acc = { 0 };

	(void)state;
	assert_true(lru_advise_pair(&acc, &a, 0, &b, 2 * MIN, PAGE));
	/* 1m: 10 and 11 cold at a (1010 pages), all in 11 at b: nothing promoted */
	assert_int_equal(acc.pairs[0], 1);
	assert_true(acc.promoted[0] == 0);
	/* 5m: only 10 cold at a, and b has no generation <= 10: not measured */
	assert_int_equal(acc.pairs[2], 0);
	assert_int_equal(acc.merged[2], 1);
	assert_int_equal(acc.merged[0], 0);
	/* file pages that stay in a live generation count as staying */
	assert_int_equal(acc.pairs_seen, 1);
}

/* A type whose generations are all marked evicted at b is not measured there. */
static void test_evicted_marks(void **state)
{
	const unsigned age[] = { 600, 400, 0 };
	const uint64_t anon[] = { 100, 100, 100 };
	struct lru_lruvec a = lv(3, 5, age, anon, NULL), b = lv(3, 5, age, anon, NULL);
	struct lru_advise_acc acc = { 0 };

	(void)state;
	b.gens[0].evicted = b.gens[1].evicted = 1u << LRU_ANON;
	assert_true(lru_advise_pair(&acc, &a, 0, &b, MIN, PAGE));
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++)
		assert_int_equal(acc.pairs[k], 0);
	/* without the marks the same pair is measured, and nothing was promoted */
	b.gens[0].evicted = b.gens[1].evicted = 0;
	assert_true(lru_advise_pair(&acc, &a, 0, &b, MIN, PAGE));
	assert_int_equal(acc.pairs[0], 1);
	assert_true(acc.promoted[0] == 0);
}

/* Not a pair: order, gap, generations going back. */
static void test_not_pairs(void **state)
{
	const unsigned age[] = { 600, 400, 0 };
	const uint64_t anon[] = { 100, 100, 100 };
	struct lru_lruvec a = lv(3, 5, age, anon, NULL), b = lv(3, 4, age, anon, NULL);
	struct lru_advise_acc acc = { 0 };

	(void)state;
	assert_false(lru_advise_pair(&acc, &a, MIN, &a, MIN, PAGE));
	assert_false(lru_advise_pair(&acc, &a, 2 * MIN, &a, MIN, PAGE));
	assert_false(lru_advise_pair(&acc, &a, 0, &a, LRU_ADVISE_MAX_GAP_MS + 1, PAGE));
	assert_false(lru_advise_pair(&acc, &a, 0, &b, MIN, PAGE));	/* seqs went back */
	assert_int_equal(acc.pairs_seen, 0);
	assert_true(lru_advise_pair(&acc, &a, 0, &a, LRU_ADVISE_MAX_GAP_MS, PAGE));
	assert_int_equal(acc.pairs_seen, 1);
}

static void test_pick(void **state)
{
	struct lru_advise_rate r[LRU_FLEET_NR_THRESHOLDS];
	const double pct[] = { 5.0, 0.1, 0.3, 0.15, 0.05, 0, 0, 0 };
	struct lru_advise_acc acc = { 0 }, sum = { 0 };

	(void)state;
	memset(r, 0, sizeof(r));
	for (unsigned k = 0; k < 5; k++)
		r[k].measured = true, r[k].pct_per_min = pct[k];
	/* 2m meets 0.2 but 5m does not: the advice is the smallest T from which every larger one meets it */
	assert_int_equal(lru_advise_pick(r, 0.2), 3);
	assert_int_equal(lru_advise_pick(r, 0.3), 1);
	assert_int_equal(lru_advise_pick(r, 0.01), -1);
	r[4].measured = false;	/* unmeasured thresholds neither meet nor fail it */
	assert_int_equal(lru_advise_pick(r, 0.2), 3);
	memset(r, 0, sizeof(r));
	assert_int_equal(lru_advise_pick(r, 100), -1);

	acc.promoted[1] = 10, acc.hot_ms[1] = 4, acc.ms[1] = 2, acc.pairs[1] = 3, acc.pairs_seen = 5;
	acc.merged[1] = 1;
	lru_advise_acc_add(&sum, &acc);
	lru_advise_acc_add(&sum, &acc);
	assert_true(sum.promoted[1] == 20 && sum.hot_ms[1] == 8 && sum.ms[1] == 4);
	assert_int_equal(sum.pairs[1], 6);
	assert_int_equal(sum.merged[1], 2);
	assert_int_equal(sum.pairs_seen, 10);
}

static void test_slo(void **state)
{
	const char *good[] = { "0.2", "0.2%", "0.2%/min", "0.2%/m", "100", "1e-3" };
	const double want[] = { 0.2, 0.2, 0.2, 0.2, 100, 0.001 };
	const char *bad[] = { "", "0", "-1", "abc", "0.2%/h", "101", "0.2 %", "nan", "inf", "%" };
	struct lru_error err;
	double v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(lru_advise_parse_slo(good[i], &v, &err), LRU_OK);
		assert_true(fabs(v - want[i]) < 1e-12);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(lru_advise_parse_slo(bad[i], &v, &err), LRU_EINVAL);
		assert_non_null(strstr(err.msg, "per minute"));
	}
}

/* A store's answer read back: only well-formed advice, sorted, found by path. */
static void test_advice_doc(void **state)
{
	const char *text =
		"{\"jobs\": [{\"memcg\": \"/b\", \"advice\": {\"threshold_ms\": 120000}},"
		" {\"memcg\": \"/a\", \"advice\": {\"threshold_ms\": 60000}},"
		" {\"memcg\": \"/none\", \"advice\": null},"
		" {\"memcg\": \"/neg\", \"advice\": {\"threshold_ms\": -5}},"
		" {\"memcg\": \"/str\", \"advice\": {\"threshold_ms\": \"2m\"}},"
		" {\"memcg\": 7, \"advice\": {\"threshold_ms\": 60000}}, 3, null]}";
	struct lru_advice *a = NULL;
	struct lru_error err;
	json_t *doc = json_loads(text, 0, NULL);
	size_t n = 99;

	(void)state;
	assert_non_null(doc);
	assert_int_equal(lru_advice_from_doc(doc, &a, &n, &err), LRU_OK);
	assert_int_equal(n, 2);
	assert_string_equal(a[0].path, "/a");
	assert_int_equal(lru_advice_find(a, n, "/a"), 60000);
	assert_int_equal(lru_advice_find(a, n, "/b"), 120000);
	assert_int_equal(lru_advice_find(a, n, "/none"), 0);
	assert_int_equal(lru_advice_find(a, n, "/c"), 0);
	assert_int_equal(lru_advice_find(a, n, NULL), 0);
	assert_int_equal(lru_advice_find(NULL, 0, "/a"), 0);
	lru_advice_free(a, n);
	json_decref(doc);
	/* not a document of the store at all: no advice, no failure */
	doc = json_loads("[1, 2]", 0, NULL);
	assert_int_equal(lru_advice_from_doc(doc, &a, &n, &err), LRU_OK);
	assert_int_equal(n, 0);
	lru_advice_free(a, n);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_promotion),
		cmocka_unit_test(test_reclaim),
		cmocka_unit_test(test_reclaim_carry),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_evicted_marks),
		cmocka_unit_test(test_not_pairs),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_slo),
		cmocka_unit_test(test_advice_doc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
