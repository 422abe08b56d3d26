/*
 * test_parse.c - lru_parse: real kernel captures, synthetic valid input, every
 * chunking of the same text, racy-read duplicates and the malformed corpus
 * (tests/corpus/malformed/NAME.txt, expectations in .../EXPECT).
 */
#include "testutil.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_parse.h"

#define NR_FIXTURE_LRUVECS 8

struct exp_gen {
	uint64_t seq;
	uint32_t age_ms;
	uint64_t anon, file;
};

struct exp_lruvec {
	uint64_t id;
	const char *path;
	int node;
	struct exp_gen gens[LRU_MAX_GENS];
	uint64_t walk[LRU_WALK_NR];	/* youngest generation of lru_gen_full */
};

/* Values copied from the fixtures (see their README for the ground truth). */
static const struct exp_lruvec exp_61[] = {
	{ 1, "/", 0, { { 3, 12384, 628, 0 }, { 4, 6172, 0, 0 }, { 5, 4108, 55, 0 }, { 6, 2060, 1, 0 } }, { 0 } },
	{ 1, "/", 1, { { 3, 12384, 0, 0 }, { 4, 6172, 1, 0 }, { 5, 4108, 1, 0 }, { 6, 2060, 0, 0 } }, { 0 } },
	{ 2, "/jobs", 0, { { 3, 9348, 0, 0 }, { 4, 6172, 0, 0 }, { 5, 4108, 0, 0 }, { 6, 2060, 0, 0 } }, { 0 } },
	{ 2, "/jobs", 1, { { 3, 9348, 0, 0 }, { 4, 6172, 0, 0 }, { 5, 4108, 0, 0 }, { 6, 2060, 0, 0 } }, { 0 } },
	{ 3, "/jobs/web", 0, { { 3, 9336, 0, 0 }, { 4, 6172, 0, 0 }, { 5, 4108, 0, 0 }, { 6, 2060, 0, 0 } }, { 0 } },
	{ 3, "/jobs/web", 1, { { 3, 9336, 21003, 0 }, { 4, 6164, 0, 0 }, { 5, 4108, 9728, 0 }, { 6, 2060, 0, 0 } }, { 0 } },
	{ 4, "/jobs/batch", 0, { { 3, 9336, 30728, 0 }, { 4, 6164, 0, 0 }, { 5, 4108, 2563, 0 }, { 6, 2056, 0, 0 } }, { 0 } },
	{ 4, "/jobs/batch", 1, { { 3, 9336, 0, 0 }, { 4, 6164, 0, 0 }, { 5, 4108, 0, 0 }, { 6, 2056, 0, 0 } }, { 0 } },
};

/* walk: L O Y N F A of the youngest generation */
static const struct exp_lruvec exp_61_full[] = {
	{ 1, "/", 0, { { 3, 12420, 628, 0 }, { 4, 6208, 0, 0 }, { 5, 4144, 55, 0 }, { 6, 2096, 1, 0 } },
	  { 1677, 712, 533, 9, 9, 1 } },
	{ 1, "/", 1, { { 3, 12428, 0, 0 }, { 4, 6216, 1, 0 }, { 5, 4152, 1, 0 }, { 6, 2104, 0, 0 } },
	  { 0, 0, 0, 9, 0, 0 } },
	{ 2, "/jobs", 0, { { 3, 9412, 0, 0 }, { 4, 6236, 0, 0 }, { 5, 4172, 0, 0 }, { 6, 2124, 0, 0 } },
	  { 0, 0, 0, 0, 0, 0 } },
	{ 2, "/jobs", 1, { { 3, 9412, 0, 0 }, { 4, 6236, 0, 0 }, { 5, 4172, 0, 0 }, { 6, 2124, 0, 0 } },
	  { 0, 0, 0, 0, 0, 0 } },
	{ 3, "/jobs/web", 0, { { 3, 9424, 0, 0 }, { 4, 6260, 0, 0 }, { 5, 4196, 0, 0 }, { 6, 2148, 0, 0 } },
	  { 3531, 78, 0, 18, 16, 0 } },
	{ 3, "/jobs/web", 1, { { 3, 9424, 21003, 0 }, { 4, 6252, 0, 0 }, { 5, 4196, 9728, 0 }, { 6, 2148, 0, 0 } },
	  { 174, 78, 96, 18, 0, 0 } },
	{ 4, "/jobs/batch", 0, { { 3, 9436, 30728, 0 }, { 4, 6264, 0, 0 }, { 5, 4208, 2563, 0 }, { 6, 2156, 0, 0 } },
	  { 3440, 614, 2136, 18, 16, 7 } },
	{ 4, "/jobs/batch", 1, { { 3, 9436, 0, 0 }, { 4, 6264, 0, 0 }, { 5, 4208, 0, 0 }, { 6, 2156, 0, 0 } },
	  { 189, 189, 0, 18, 0, 0 } },
};

static const struct exp_lruvec exp_61_idle[] = {
	{ 1, "/", 0, { { 3, 12776, 3, 0 }, { 4, 6140, 0, 0 }, { 5, 4088, 0, 0 }, { 6, 2036, 11, 0 } }, { 0 } },
	{ 1, "/", 1, { { 3, 12776, 447, 0 }, { 4, 6136, 1, 0 }, { 5, 4088, 1, 0 }, { 6, 2036, 225, 0 } }, { 0 } },
	{ 2, "/jobs", 0, { { 3, 9324, 0, 0 }, { 4, 6136, 0, 0 }, { 5, 4084, 0, 0 }, { 6, 2036, 0, 0 } }, { 0 } },
	{ 2, "/jobs", 1, { { 3, 9324, 0, 0 }, { 4, 6136, 0, 0 }, { 5, 4084, 0, 0 }, { 6, 2036, 0, 0 } }, { 0 } },
	{ 3, "/jobs/web", 0, { { 3, 9304, 0, 0 }, { 4, 6136, 0, 0 }, { 5, 4084, 0, 0 }, { 6, 2036, 0, 0 } }, { 0 } },
	{ 3, "/jobs/web", 1, { { 3, 9304, 10241, 0 }, { 4, 6136, 0, 0 }, { 5, 4080, 10, 0 }, { 6, 2036, 1, 0 } }, { 0 } },
	{ 4, "/jobs/batch", 0, { { 3, 9304, 2571, 0 }, { 4, 6136, 0, 0 }, { 5, 4080, 0, 0 }, { 6, 2036, 1, 0 } }, { 0 } },
	{ 4, "/jobs/batch", 1, { { 3, 9304, 0, 0 }, { 4, 6136, 0, 0 }, { 5, 4076, 0, 0 }, { 6, 2036, 0, 0 } }, { 0 } },
};

static const struct exp_lruvec exp_612[] = {
	{ 1, "/", 0, { { 3, 11192, 605, 0 }, { 4, 6108, 1, 0 }, { 5, 4072, 36, 0 }, { 6, 2028, 0, 0 } }, { 0 } },
	{ 1, "/", 1, { { 3, 11192, 23, 0 }, { 4, 6096, 0, 0 }, { 5, 4072, 21, 0 }, { 6, 2028, 0, 0 } }, { 0 } },
	{ 2, "/jobs", 0, { { 3, 9200, 0, 0 }, { 4, 6096, 0, 0 }, { 5, 4072, 0, 0 }, { 6, 2028, 0, 0 } }, { 0 } },
	{ 2, "/jobs", 1, { { 3, 9200, 0, 0 }, { 4, 6096, 0, 0 }, { 5, 4072, 0, 0 }, { 6, 2028, 0, 0 } }, { 0 } },
	{ 3, "/jobs/web", 0, { { 3, 9188, 20488, 0 }, { 4, 6096, 0, 0 }, { 5, 4072, 10243, 0 }, { 6, 2028, 0, 0 } }, { 0 } },
	{ 3, "/jobs/web", 1, { { 3, 9188, 0, 0 }, { 4, 6096, 0, 0 }, { 5, 4072, 0, 0 }, { 6, 2028, 0, 0 } }, { 0 } },
	{ 4, "/jobs/batch", 0, { { 3, 9188, 1, 0 }, { 4, 6092, 0, 0 }, { 5, 4072, 0, 0 }, { 6, 2028, 0, 0 } }, { 0 } },
	{ 4, "/jobs/batch", 1, { { 3, 9188, 30727, 0 }, { 4, 6092, 0, 0 }, { 5, 4072, 2563, 0 }, { 6, 2028, 0, 0 } }, { 0 } },
};

/* walk: T Y F A of the youngest generation, stored as LEAF_TOTAL LEAF_YOUNG BLOOM_FOUND/ADDED */
static const struct exp_lruvec exp_612_full[] = {
	{ 1, "/", 0, { { 3, 11212, 605, 0 }, { 4, 6128, 1, 0 }, { 5, 4092, 36, 0 }, { 6, 2048, 0, 0 } },
	  { 1677, 0, 440, 0, 9, 1 } },
	{ 1, "/", 1, { { 3, 11212, 23, 0 }, { 4, 6116, 0, 0 }, { 5, 4092, 21, 0 }, { 6, 2048, 0, 0 } },
	  { 1677, 0, 93, 0, 9, 0 } },
	{ 2, "/jobs", 0, { { 3, 9228, 0, 0 }, { 4, 6124, 0, 0 }, { 5, 4100, 0, 0 }, { 6, 2056, 0, 0 } },
	  { 0, 0, 0, 0, 0, 0 } },
	{ 2, "/jobs", 1, { { 3, 9228, 0, 0 }, { 4, 6124, 0, 0 }, { 5, 4100, 0, 0 }, { 6, 2056, 0, 0 } },
	  { 0, 0, 0, 0, 0, 0 } },
	{ 3, "/jobs/web", 0, { { 3, 9236, 20488, 0 }, { 4, 6144, 0, 0 }, { 5, 4120, 10243, 0 }, { 6, 2076, 0, 0 } },
	  { 3969, 0, 2161, 0, 18, 7 } },
	{ 3, "/jobs/web", 1, { { 3, 9236, 0, 0 }, { 4, 6144, 0, 0 }, { 5, 4120, 0, 0 }, { 6, 2076, 0, 0 } },
	  { 3969, 0, 0, 0, 18, 0 } },
	{ 4, "/jobs/batch", 0, { { 3, 9248, 1, 0 }, { 4, 6152, 0, 0 }, { 5, 4132, 0, 0 }, { 6, 2088, 0, 0 } },
	  { 3984, 0, 1, 0, 18, 0 } },
	{ 4, "/jobs/batch", 1, { { 3, 9248, 30727, 0 }, { 4, 6152, 0, 0 }, { 5, 4132, 2563, 0 }, { 6, 2088, 0, 0 } },
	  { 3984, 0, 2135, 0, 18, 7 } },
};

/* present bits of a tier row: bit (type * LRU_TC_NR + counter) */
#define TC_BIT(type, c) (1u << ((type) * LRU_TC_NR + (c)))
#define REP_BITS (TC_BIT(0, LRU_TC_REFAULTED) | TC_BIT(0, LRU_TC_EVICTED) | \
		  TC_BIT(0, LRU_TC_PROTECTED) | TC_BIT(1, LRU_TC_REFAULTED) | \
		  TC_BIT(1, LRU_TC_EVICTED) | TC_BIT(1, LRU_TC_PROTECTED))
#define RT_BITS (TC_BIT(0, LRU_TC_AVG_REFAULTED) | TC_BIT(0, LRU_TC_AVG_TOTAL) | \
		 TC_BIT(1, LRU_TC_AVG_REFAULTED) | TC_BIT(1, LRU_TC_AVG_TOTAL))
#define WALK_61_BITS 0x3fu
#define WALK_612_BITS ((1u << LRU_WALK_LEAF_TOTAL) | (1u << LRU_WALK_LEAF_YOUNG) | \
		       (1u << LRU_WALK_BLOOM_FOUND) | (1u << LRU_WALK_BLOOM_ADDED))

/* --- helpers ---------------------------------------------------------------- */

static enum lru_err parse_str(struct lru_snapshot *snap, const char *s, struct lru_error *err)
{
	lru_snapshot_init(snap);
	lru_error_clear(err);
	return lru_parse_buf(snap, s, strlen(s), err);
}

static void parse_ok(struct lru_snapshot *snap, const char *s)
{
	struct lru_error err;

	if (parse_str(snap, s, &err))
		fail_msg("unexpected parse error: %s", err.msg);
}

/*
 * Parse buf with the streaming API: a first chunk of 'first' bytes (0 is
 * allowed), then chunks of 'step' bytes.
 */
static enum lru_err parse_chunked(struct lru_snapshot *snap, const char *buf, size_t len,
				  size_t first, size_t step, struct lru_error *err)
{
	struct lru_parser *p;
	size_t off = 0, n = first;
	enum lru_err rc;

	lru_snapshot_init(snap);
	lru_error_clear(err);
	rc = lru_parser_new(&p, snap, err);
	if (rc)
		return rc;
	for (;;) {
		if (n > len - off)
			n = len - off;
		rc = lru_parser_feed(p, buf + off, n, err);
		off += n;
		if (rc || off == len)
			break;
		n = step;
	}
	if (!rc)
		rc = lru_parser_finish(p, err);
	lru_parser_free(p);
	return rc;
}

static void assert_gen_equal(const struct lru_gen *a, const struct lru_gen *b)
{
	assert_int_equal(a->seq, b->seq);
	assert_int_equal(a->age_ms, b->age_ms);
	assert_int_equal(a->evicted, b->evicted);
	assert_int_equal(a->pages[LRU_ANON], b->pages[LRU_ANON]);
	assert_int_equal(a->pages[LRU_FILE], b->pages[LRU_FILE]);
	assert_int_equal(a->birth_ms, b->birth_ms);
}

static void assert_full_equal(const struct lru_full *a, const struct lru_full *b, unsigned nr_gens)
{
	unsigned g, t, i, c;

	assert_true(!a == !b);
	if (!a)
		return;
	for (g = 0; g < nr_gens; g++) {
		assert_int_equal(a->has_tiers[g], b->has_tiers[g]);
		assert_int_equal(a->has_walk[g], b->has_walk[g]);
		for (t = 0; t < LRU_NR_TIERS; t++) {
			assert_int_equal(a->tiers[g][t].present, b->tiers[g][t].present);
			for (i = 0; i < LRU_NR_TYPES; i++)
				for (c = 0; c < LRU_TC_NR; c++)
					assert_int_equal(a->tiers[g][t].v[i][c], b->tiers[g][t].v[i][c]);
		}
		assert_int_equal(a->walk[g].present, b->walk[g].present);
		for (c = 0; c < LRU_WALK_NR; c++)
			assert_int_equal(a->walk[g].v[c], b->walk[g].v[c]);
	}
}

static void assert_snap_equal(const struct lru_snapshot *a, const struct lru_snapshot *b)
{
	size_t i;
	unsigned g;

	assert_int_equal(a->nr_memcgs, b->nr_memcgs);
	assert_int_equal(a->nr_lruvecs, b->nr_lruvecs);
	assert_int_equal(a->nr_duplicates, b->nr_duplicates);
	for (i = 0; i < a->nr_memcgs; i++) {
		assert_int_equal(a->memcgs[i].id, b->memcgs[i].id);
		assert_string_equal(a->memcgs[i].path, b->memcgs[i].path);
	}
	for (i = 0; i < a->nr_lruvecs; i++) {
		const struct lru_lruvec *x = &a->lruvecs[i], *y = &b->lruvecs[i];

		assert_int_equal(x->memcg, y->memcg);
		assert_int_equal(x->node, y->node);
		assert_int_equal(x->nr_gens, y->nr_gens);
		for (g = 0; g < x->nr_gens; g++)
			assert_gen_equal(&x->gens[g], &y->gens[g]);
		assert_full_equal(x->full, y->full, x->nr_gens);
	}
}

/*
 * The text must give the same result - the same snapshot, or the same error
 * code, line and message - fed whole, one byte at a time, and split in two
 * at every offset (every 'stride'-th offset when stride > 1).
 */
static void assert_chunking_invariant(const char *buf, size_t len, size_t stride)
{
	struct lru_snapshot whole, snap;
	struct lru_error err0, err;
	enum lru_err rc0, rc;
	size_t at;

	lru_snapshot_init(&whole);
	lru_error_clear(&err0);
	rc0 = lru_parse_buf(&whole, buf, len, &err0);

	rc = parse_chunked(&snap, buf, len, 0, 1, &err);
	assert_int_equal(rc, rc0);
	if (rc) {
		assert_int_equal(err.line, err0.line);
		assert_string_equal(err.msg, err0.msg);
	} else {
		assert_snap_equal(&snap, &whole);
	}
	lru_snapshot_release(&snap);

	for (at = 0; at <= len; at += stride) {
		rc = parse_chunked(&snap, buf, len, at, len, &err);
		if (rc != rc0)
			fail_msg("split at %zu: code %d, whole: %d (%s)", at, rc, rc0, err.msg);
		if (rc) {
			assert_int_equal(err.line, err0.line);
			assert_string_equal(err.msg, err0.msg);
		} else {
			assert_snap_equal(&snap, &whole);
		}
		lru_snapshot_release(&snap);
	}
	lru_snapshot_release(&whole);
}

static const struct lru_gen *gen_by_seq(const struct lru_lruvec *lv, uint64_t seq)
{
	unsigned g;

	for (g = 0; g < lv->nr_gens; g++)
		if (lv->gens[g].seq == seq)
			return &lv->gens[g];
	fail_msg("no generation %llu", (unsigned long long)seq);
	return NULL;
}

/* --- fixtures ---------------------------------------------------------------- */

enum fixture_kind { PLAIN, FULL_61, FULL_612 };

static void check_fixture(const char *rel, const struct exp_lruvec *exp, enum fixture_kind kind)
{
	static const char *const paths[] = { "/", "/jobs", "/jobs/web", "/jobs/batch" };
	struct lru_snapshot snap;
	size_t i;
	unsigned g, t, c;

	lru_snapshot_init(&snap);
	tu_parse_file(rel, &snap);
	assert_int_equal(snap.nr_memcgs, 4);
	assert_int_equal(snap.nr_lruvecs, NR_FIXTURE_LRUVECS);
	assert_int_equal(snap.nr_duplicates, 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(snap.memcgs[i].id, i + 1);
		assert_string_equal(snap.memcgs[i].path, paths[i]);
	}
	for (i = 0; i < NR_FIXTURE_LRUVECS; i++) {
		const struct lru_lruvec *lv = &snap.lruvecs[i];
		const struct exp_lruvec *e = &exp[i];
		const struct lru_full *full = lv->full;

		assert_int_equal(lru_lruvec_memcg(&snap, lv)->id, e->id);
		assert_string_equal(lru_lruvec_memcg(&snap, lv)->path, e->path);
		assert_int_equal(lv->memcg, i / 2);
		assert_int_equal(lv->node, e->node);
		assert_int_equal(lv->nr_gens, LRU_MAX_GENS);
		for (g = 0; g < LRU_MAX_GENS; g++) {
			assert_int_equal(lv->gens[g].seq, e->gens[g].seq);
			assert_int_equal(lv->gens[g].age_ms, e->gens[g].age_ms);
			assert_int_equal(lv->gens[g].pages[LRU_ANON], e->gens[g].anon);
			assert_int_equal(lv->gens[g].pages[LRU_FILE], e->gens[g].file);
			assert_int_equal(lv->gens[g].evicted, 0);
		}
		if (kind == PLAIN) {
			assert_null(full);
			continue;
		}
		assert_non_null(full);
		for (g = 0; g < LRU_MAX_GENS; g++) {
			/* oldest row: r e p; youngest: R T; middle rows: nothing */
			uint32_t want = g == 0 ? REP_BITS : g == LRU_MAX_GENS - 1 ? RT_BITS : 0;
			uint32_t walk_bits = kind == FULL_61 ? WALK_61_BITS : WALK_612_BITS;

			assert_true(full->has_tiers[g]);
			for (t = 0; t < LRU_NR_TIERS; t++) {
				assert_int_equal(full->tiers[g][t].present, want);
				for (c = 0; c < LRU_TC_NR; c++) {
					assert_int_equal(full->tiers[g][t].v[LRU_ANON][c], 0);
					assert_int_equal(full->tiers[g][t].v[LRU_FILE][c], 0);
				}
			}
			assert_true(full->has_walk[g]);
			assert_int_equal(full->walk[g].present, g == LRU_MAX_GENS - 1 ? walk_bits : 0);
			for (c = 0; c < LRU_WALK_NR; c++)
				assert_int_equal(full->walk[g].v[c],
						 g == LRU_MAX_GENS - 1 ? e->walk[c] : 0);
		}
	}
	lru_snapshot_release(&snap);
}

static void test_fixture_61_lru_gen(void **state)
{
	struct lru_snapshot snap;
	const struct lru_lruvec *lv;

	(void)state;
	check_fixture("fixtures/linux-6.1/lru_gen.txt", exp_61, PLAIN);

	/* the README's ground truth, looked up by path and seq */
	lru_snapshot_init(&snap);
	tu_parse_file("fixtures/linux-6.1/lru_gen.txt", &snap);
	lv = lru_snapshot_find(&snap, "/jobs/web", 0, 1);
	assert_non_null(lv);
	assert_int_equal(gen_by_seq(lv, 5)->pages[LRU_ANON], 9728);
	assert_int_equal(gen_by_seq(lv, 3)->pages[LRU_ANON], 21003);
	assert_int_equal(lru_lruvec_pages(lv, LRU_ANON), 9728 + 21003);
	assert_int_equal(lru_lruvec_max_seq(lv), 6);
	lv = lru_snapshot_find(&snap, "/jobs/batch", 0, 0);
	assert_non_null(lv);
	assert_int_equal(gen_by_seq(lv, 5)->pages[LRU_ANON], 2563);
	assert_int_equal(gen_by_seq(lv, 3)->pages[LRU_ANON], 30728);
	lv = lru_snapshot_find(&snap, NULL, 4, 0);
	assert_non_null(lv);
	assert_string_equal(lru_lruvec_memcg(&snap, lv)->path, "/jobs/batch");
	assert_null(lru_snapshot_find(&snap, "/jobs/web", 0, 2));
	lru_snapshot_release(&snap);
}

static void test_fixture_61_lru_gen_full(void **state)
{
	(void)state;
	check_fixture("fixtures/linux-6.1/lru_gen_full.txt", exp_61_full, FULL_61);
}

static void test_fixture_61_idle(void **state)
{
	(void)state;
	check_fixture("fixtures/linux-6.1/lru_gen-idle.txt", exp_61_idle, PLAIN);
}

static void test_fixture_612_lru_gen(void **state)
{
	struct lru_snapshot snap;
	const struct lru_lruvec *lv;

	(void)state;
	check_fixture("fixtures/linux-6.12/lru_gen.txt", exp_612, PLAIN);

	lru_snapshot_init(&snap);
	tu_parse_file("fixtures/linux-6.12/lru_gen.txt", &snap);
	lv = lru_snapshot_find(&snap, "/jobs/web", 0, 0);
	assert_non_null(lv);
	assert_int_equal(gen_by_seq(lv, 5)->pages[LRU_ANON], 10243);
	assert_int_equal(gen_by_seq(lv, 3)->pages[LRU_ANON], 20488);
	lru_snapshot_release(&snap);
}

static void test_fixture_612_lru_gen_full(void **state)
{
	(void)state;
	check_fixture("fixtures/linux-6.12/lru_gen_full.txt", exp_612_full, FULL_612);
}

/*
 * Linux 7.3: the memcg line prints the cgroup id (the cgroup directory's
 * inode), unpadded; the 6.12 stats line. The README's ground truth.
 */
static void check_fixture_73(const char *rel, bool full)
{
	static const uint64_t ids[] = { 1, 28, 67, 106 };
	static const char *const paths[] = { "/", "/jobs", "/jobs/web", "/jobs/batch" };
	struct lru_snapshot snap;
	const struct lru_lruvec *lv;
	size_t i;

	lru_snapshot_init(&snap);
	tu_parse_file(rel, &snap);
	assert_int_equal(snap.nr_memcgs, 4);
	assert_int_equal(snap.nr_lruvecs, 8);
	for (i = 0; i < 4; i++) {
		assert_int_equal(snap.memcgs[i].id, ids[i]);
		assert_string_equal(snap.memcgs[i].path, paths[i]);
	}
	lv = lru_snapshot_find(&snap, "/jobs/web", 0, 1);
	assert_non_null(lv);
	assert_int_equal(gen_by_seq(lv, 3)->pages[LRU_ANON], 20245);
	assert_int_equal(gen_by_seq(lv, 4)->pages[LRU_ANON] + gen_by_seq(lv, 5)->pages[LRU_ANON],
			 2048 + 8439);
	lv = lru_snapshot_find(&snap, NULL, 106, 0);
	assert_non_null(lv);
	assert_string_equal(lru_lruvec_memcg(&snap, lv)->path, "/jobs/batch");
	assert_int_equal(gen_by_seq(lv, 3)->pages[LRU_ANON], 30761);
	assert_int_equal(gen_by_seq(lv, 5)->pages[LRU_ANON], 2531);
	if (full) {
		assert_non_null(lv->full);
		assert_int_equal(lv->full->walk[lv->nr_gens - 1].present, WALK_612_BITS);
	} else {
		assert_null(lv->full);
	}
	lru_snapshot_release(&snap);
}

static void test_fixture_73_lru_gen(void **state)
{
	(void)state;
	check_fixture_73("fixtures/linux-7.3/lru_gen.txt", false);
}

static void test_fixture_73_lru_gen_full(void **state)
{
	(void)state;
	check_fixture_73("fixtures/linux-7.3/lru_gen_full.txt", true);
}

/* cgroup ids are 64-bit inode numbers: above 2^32 and up to UINT64_MAX */
static void test_fixture_73_wide_ids(void **state)
{
	static const struct { const char *id; uint64_t want; } cases[] = {
		{ "1099511627843", 1099511627843ULL },		/* 2^40 + 67 */
		{ "18446744073709551615", UINT64_MAX },
	};
	char *text = tu_read("fixtures/linux-7.3/lru_gen.txt", NULL);

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *buf = malloc(strlen(text) + 64), *at = strstr(text, "memcg 67 ");
		struct lru_snapshot snap;
		const struct lru_lruvec *lv;

		assert_non_null(buf);
		assert_non_null(at);
		sprintf(buf, "%.*smemcg %s %s", (int)(at - text), text, cases[c].id, at + 9);
		parse_ok(&snap, buf);
		lv = lru_snapshot_find(&snap, NULL, cases[c].want, 1);
		assert_non_null(lv);
		assert_string_equal(lru_lruvec_memcg(&snap, lv)->path, "/jobs/web");
		assert_int_equal(gen_by_seq(lv, 3)->pages[LRU_ANON], 20245);
		lru_snapshot_release(&snap);
		free(buf);
	}
	free(text);
}

/* --- synthetic valid input ------------------------------------------------------ */

static void test_path_with_spaces(void **state)
{
	struct lru_snapshot snap;

	(void)state;
	parse_ok(&snap, "memcg     5 /a b/c d\n node     0\n          1 2 3 4 \n"
			"memcg     6  leading space \n node     0\n          7 8 9 10 \n");
	assert_int_equal(snap.nr_memcgs, 2);
	assert_int_equal(snap.memcgs[0].id, 5);
	assert_string_equal(snap.memcgs[0].path, "/a b/c d");
	assert_int_equal(snap.memcgs[1].id, 6);
	assert_string_equal(snap.memcgs[1].path, " leading space ");
	assert_int_equal(snap.nr_lruvecs, 2);
	assert_int_equal(snap.lruvecs[1].memcg, 1);
	assert_int_equal(snap.lruvecs[1].gens[0].seq, 7);
	assert_int_equal(snap.lruvecs[1].gens[0].pages[LRU_FILE], 10);
	lru_snapshot_release(&snap);
}

static void test_memcg_disabled(void **state)
{
	struct lru_snapshot snap;

	(void)state;
	parse_ok(&snap, "memcg     0 \n node     0\n          0       1000        512        128 \n"
			"          1         10         64         32 \n");
	assert_int_equal(snap.nr_memcgs, 1);
	assert_int_equal(snap.memcgs[0].id, 0);
	assert_string_equal(snap.memcgs[0].path, "");
	assert_int_equal(snap.nr_lruvecs, 1);
	assert_int_equal(snap.lruvecs[0].nr_gens, 2);
	assert_int_equal(snap.lruvecs[0].gens[0].seq, 0);
	assert_int_equal(snap.lruvecs[0].gens[0].age_ms, 1000);
	assert_int_equal(snap.lruvecs[0].gens[1].pages[LRU_ANON], 64);
	lru_snapshot_release(&snap);
}

static void test_64bit_memcg_ids(void **state)
{
	struct lru_snapshot snap;

	(void)state;
	parse_ok(&snap, "memcg 18446744073709551615 /x\n node 0\n 1 2 3 4\n"
			"memcg 4294967296 /y\n node 0\n 1 2 3 4\n");
	assert_int_equal(snap.nr_memcgs, 2);
	assert_true(snap.memcgs[0].id == UINT64_MAX);
	assert_string_equal(snap.memcgs[0].path, "/x");
	assert_true(snap.memcgs[1].id == 4294967296ULL);
	lru_snapshot_release(&snap);
}

static void test_fewer_generations(void **state)
{
	struct lru_snapshot snap;

	(void)state;
	parse_ok(&snap, "memcg 1 /\n node 0\n 7 100 1 2\n node 1\n 8 200 3 4\n 9 100 5 6\n"
			" node 2\n 0 300 7 8\n 1 200 9 10\n 2 100 11 12\n");
	assert_int_equal(snap.nr_lruvecs, 3);
	assert_int_equal(snap.lruvecs[0].nr_gens, 1);
	assert_int_equal(lru_lruvec_max_seq(&snap.lruvecs[0]), 7);
	assert_int_equal(snap.lruvecs[1].nr_gens, 2);
	assert_int_equal(snap.lruvecs[1].gens[1].seq, 9);
	assert_int_equal(snap.lruvecs[1].gens[1].pages[LRU_FILE], 6);
	assert_int_equal(snap.lruvecs[2].nr_gens, 3);
	assert_int_equal(snap.lruvecs[2].gens[2].seq, 2);
	assert_int_equal(snap.lruvecs[2].gens[2].age_ms, 100);
	lru_snapshot_release(&snap);
}

static void test_node_limits(void **state)
{
	struct lru_snapshot snap;
	struct lru_error err;
	size_t size = 64 + 32 * (LRU_NODE_MAX + 2), n;
	char *buf = malloc(size);
	int node;

	(void)state;
	assert_non_null(buf);
	n = (size_t)snprintf(buf, size, "memcg 1 /\n");
	for (node = 0; node <= LRU_NODE_MAX; node++)
		n += (size_t)snprintf(buf + n, size - n, " node %5d\n %d 10 %d 0\n", node, node,
				      node * 2);
	parse_ok(&snap, buf);
	assert_int_equal(snap.nr_lruvecs, 1024);
	assert_int_equal(snap.lruvecs[1023].node, 1023);
	assert_int_equal(snap.lruvecs[1023].gens[0].seq, 1023);
	assert_int_equal(snap.lruvecs[1023].gens[0].pages[LRU_ANON], 2046);
	assert_non_null(lru_snapshot_find(&snap, "/", 0, 1023));
	lru_snapshot_release(&snap);

	snprintf(buf + n, size - n, " node  1024\n 1 10 1 0\n");
	assert_int_equal(parse_str(&snap, buf, &err), LRU_ERANGE);
	assert_int_equal(err.line, 2 + 2 * 1024);
	assert_non_null(strstr(err.msg, "node '1024' is out of range (at most 1023)"));
	lru_snapshot_release(&snap);
	free(buf);
}

static void test_tabs_as_separators(void **state)
{
	struct lru_snapshot snap;

	(void)state;
	parse_ok(&snap, "memcg\t7\t/t p\n\tnode\t3\n\t10\t20\t30\t40\n \t11 \t5\t1\t2\t\n"
			"\tmemcg 8 /u\n node 0\n 1 1 1 1\n");
	assert_int_equal(snap.nr_memcgs, 2);
	assert_int_equal(snap.memcgs[0].id, 7);
	assert_string_equal(snap.memcgs[0].path, "/t p");
	assert_string_equal(snap.memcgs[1].path, "/u");
	assert_int_equal(snap.lruvecs[0].node, 3);
	assert_int_equal(snap.lruvecs[0].nr_gens, 2);
	assert_int_equal(snap.lruvecs[0].gens[0].seq, 10);
	assert_int_equal(snap.lruvecs[0].gens[0].age_ms, 20);
	assert_int_equal(snap.lruvecs[0].gens[0].pages[LRU_ANON], 30);
	assert_int_equal(snap.lruvecs[0].gens[0].pages[LRU_FILE], 40);
	assert_int_equal(snap.lruvecs[0].gens[1].pages[LRU_FILE], 2);
	lru_snapshot_release(&snap);
}

#define TIERS_BLANK \
	"                     0          0           0           0           0           0           0 \n" \
	"                     1          0           0           0           0           0           0 \n" \
	"                     2          0           0           0           0           0           0 \n" \
	"                     3          0           0           0           0           0           0 \n"
#define WALK_BLANK \
	"                                0           0           0           0           0           0 \n"

/* lru_gen_full with nonzero counters, 'x' marks and letters out of their usual slots */
static const char full_text[] =
	"memcg     1 /\n"
	" node     0\n"
	"          3        400          5x          6x\n"
	"                     0          1r          2e          0p          3r          4e          0p\n"
	"                     1          5r          6e          7p          8r          9e         10p\n"
	"                     2         11e         12r         13p         14r         15e         16p\n"
	"                     3          0r          0e          0p         99r         98e         97p\n"
	WALK_BLANK
	"          4        300          7x           8 \n"
	TIERS_BLANK
	WALK_BLANK
	"          5        200          9          10 \n"
	TIERS_BLANK
	"                                1l          2o          3y          4n          5f          6a\n"
	"          6        100         11          12 \n"
	"                     0         21R         22T          0          23R         24T          0 \n"
	"                     1         25R         26T          0x         27R         28T          0x\n"
	"                     2          0R          0T          0           0R          0T          0 \n"
	"                     3          0R          0T          0           0R          0T         31R\n"
	"                             1677L        712O        533Y          9N          9F          1A\n";

static void test_full_counters(void **state)
{
	struct lru_snapshot snap;
	const struct lru_lruvec *lv;
	const struct lru_full *f;

	(void)state;
	parse_ok(&snap, full_text);
	assert_int_equal(snap.nr_lruvecs, 1);
	lv = &snap.lruvecs[0];
	f = lv->full;
	assert_non_null(f);
	assert_int_equal(lv->nr_gens, 4);

	/* 'x' marks -> evicted bits, skipped by lru_lruvec_pages */
	assert_int_equal(lv->gens[0].evicted, (1u << LRU_ANON) | (1u << LRU_FILE));
	assert_int_equal(lv->gens[0].pages[LRU_ANON], 5);
	assert_int_equal(lv->gens[1].evicted, 1u << LRU_ANON);
	assert_int_equal(lv->gens[2].evicted, 0);
	assert_int_equal(lv->gens[3].evicted, 0);
	assert_int_equal(lru_lruvec_pages(lv, LRU_ANON), 9 + 11);
	assert_int_equal(lru_lruvec_pages(lv, LRU_FILE), 8 + 10 + 12);

	/* oldest generation: r e p by letter */
	assert_int_equal(f->tiers[0][0].v[LRU_ANON][LRU_TC_REFAULTED], 1);
	assert_int_equal(f->tiers[0][0].v[LRU_ANON][LRU_TC_EVICTED], 2);
	assert_int_equal(f->tiers[0][0].v[LRU_FILE][LRU_TC_REFAULTED], 3);
	assert_int_equal(f->tiers[0][0].v[LRU_FILE][LRU_TC_EVICTED], 4);
	assert_int_equal(f->tiers[0][1].v[LRU_ANON][LRU_TC_PROTECTED], 7);
	assert_int_equal(f->tiers[0][1].v[LRU_FILE][LRU_TC_PROTECTED], 10);
	assert_int_equal(f->tiers[0][2].v[LRU_ANON][LRU_TC_EVICTED], 11);
	assert_int_equal(f->tiers[0][2].v[LRU_ANON][LRU_TC_REFAULTED], 12);
	assert_int_equal(f->tiers[0][3].v[LRU_FILE][LRU_TC_PROTECTED], 97);
	assert_int_equal(f->tiers[0][3].present, REP_BITS);
	assert_int_equal(f->tiers[1][2].present, 0);
	assert_true(f->has_walk[1]);
	assert_int_equal(f->walk[1].present, 0);

	/* lowercase l o y n f a on a non-youngest generation */
	assert_int_equal(f->walk[2].present, 0x3f);
	assert_int_equal(f->walk[2].v[LRU_WALK_LEAF_TOTAL], 1);
	assert_int_equal(f->walk[2].v[LRU_WALK_NONLEAF_TOTAL], 4);
	assert_int_equal(f->walk[2].v[LRU_WALK_BLOOM_ADDED], 6);

	/* youngest generation: R T, 'x' and blank slots not present */
	assert_int_equal(f->tiers[3][0].v[LRU_ANON][LRU_TC_AVG_REFAULTED], 21);
	assert_int_equal(f->tiers[3][0].v[LRU_ANON][LRU_TC_AVG_TOTAL], 22);
	assert_int_equal(f->tiers[3][0].v[LRU_FILE][LRU_TC_AVG_REFAULTED], 23);
	assert_int_equal(f->tiers[3][1].v[LRU_FILE][LRU_TC_AVG_TOTAL], 28);
	assert_int_equal(f->tiers[3][1].present, RT_BITS);
	/* the third file slot carries R: it overrides the second R of that type */
	assert_int_equal(f->tiers[3][3].v[LRU_FILE][LRU_TC_AVG_REFAULTED], 31);
	assert_int_equal(f->walk[3].present, WALK_61_BITS);
	assert_int_equal(f->walk[3].v[LRU_WALK_LEAF_OLD], 712);
	assert_int_equal(f->walk[3].v[LRU_WALK_LEAF_YOUNG], 533);
	lru_snapshot_release(&snap);
}

static void test_full_without_walk_line(void **state)
{
	struct lru_snapshot snap;

	(void)state;
	/* kernels without page-table walks print no stats line */
	parse_ok(&snap, "memcg 1 /\n node 0\n 5 20 1 2\n" TIERS_BLANK " 6 10 3 4\n" TIERS_BLANK);
	assert_int_equal(snap.lruvecs[0].nr_gens, 2);
	assert_non_null(snap.lruvecs[0].full);
	assert_true(snap.lruvecs[0].full->has_tiers[1]);
	assert_false(snap.lruvecs[0].full->has_walk[0]);
	assert_false(snap.lruvecs[0].full->has_walk[1]);
	lru_snapshot_release(&snap);
}

static void test_duplicate_memcg_record(void **state)
{
	struct lru_snapshot snap;

	(void)state;
	parse_ok(&snap, "memcg 1 /\n node 0\n 3 100 10 20\n 4 50 11 21\n node 1\n 3 100 12 22\n"
			"memcg 2 /a\n node 0\n 7 9 1 2\n"
			"memcg 1 /\n node 0\n 3 99 999 999\n 4 49 999 999\n node 1\n 3 99 999 999\n"
			"memcg 3 /b\n node 0\n 8 9 1 2\n");
	assert_int_equal(snap.nr_memcgs, 3);
	assert_int_equal(snap.nr_lruvecs, 4);
	assert_int_equal(snap.nr_duplicates, 2);
	assert_string_equal(snap.memcgs[2].path, "/b");
	assert_int_equal(snap.lruvecs[0].nr_gens, 2);
	assert_int_equal(snap.lruvecs[0].gens[0].age_ms, 100);
	assert_int_equal(snap.lruvecs[0].gens[1].pages[LRU_ANON], 11);
	assert_int_equal(snap.lruvecs[1].node, 1);
	assert_int_equal(snap.lruvecs[1].gens[0].pages[LRU_FILE], 22);
	assert_int_equal(snap.lruvecs[3].memcg, 2);
	assert_int_equal(snap.lruvecs[3].gens[0].seq, 8);
	lru_snapshot_release(&snap);
}

static void test_duplicate_node_record(void **state)
{
	struct lru_snapshot snap;

	(void)state;
	parse_ok(&snap, "memcg 1 /\n node 0\n 3 100 10 20\n node 0\n 3 100 99 99\n 4 1 1 1\n"
			" node 1\n 5 1 2 3\n");
	assert_int_equal(snap.nr_lruvecs, 2);
	assert_int_equal(snap.nr_duplicates, 1);
	assert_int_equal(snap.lruvecs[0].nr_gens, 1);
	assert_int_equal(snap.lruvecs[0].gens[0].pages[LRU_ANON], 10);
	assert_int_equal(snap.lruvecs[1].node, 1);
	assert_int_equal(snap.lruvecs[1].gens[0].pages[LRU_FILE], 3);
	lru_snapshot_release(&snap);

	/* a repeated lru_gen_full record: the first copy's detail is kept */
	parse_ok(&snap, "memcg 1 /\n node 0\n 6 10 1 2\n"
			"  0 1R 2T 0 3R 4T 0\n  1 0R 0T 0 0R 0T 0\n"
			"  2 0R 0T 0 0R 0T 0\n  3 0R 0T 0 0R 0T 0\n 5L 0O 0Y 0N 0F 0A\n"
			" node 0\n 6 10 8 8\n"
			"  0 9R 9T 0 9R 9T 0\n  1 0R 0T 0 0R 0T 0\n"
			"  2 0R 0T 0 0R 0T 0\n  3 0R 0T 0 0R 0T 0\n 9L 0O 0Y 0N 0F 0A\n");
	assert_int_equal(snap.nr_lruvecs, 1);
	assert_int_equal(snap.nr_duplicates, 1);
	assert_int_equal(snap.lruvecs[0].gens[0].pages[LRU_ANON], 1);
	assert_int_equal(snap.lruvecs[0].full->tiers[0][0].v[LRU_ANON][LRU_TC_AVG_TOTAL], 2);
	assert_int_equal(snap.lruvecs[0].full->walk[0].v[LRU_WALK_LEAF_TOTAL], 5);
	lru_snapshot_release(&snap);
}

static void test_same_id_other_path_is_not_duplicate(void **state)
{
	struct lru_snapshot snap;

	(void)state;
	parse_ok(&snap, "memcg 5 /a\n node 0\n 1 1 1 1\nmemcg 5 /b\n node 0\n 1 1 2 2\n"
			"memcg 6 /a\n node 0\n 1 1 3 3\n");
	assert_int_equal(snap.nr_memcgs, 3);
	assert_int_equal(snap.nr_lruvecs, 3);
	assert_int_equal(snap.nr_duplicates, 0);
	assert_int_equal(snap.lruvecs[2].gens[0].pages[LRU_ANON], 3);
	lru_snapshot_release(&snap);
}

/* Many memcgs, then the whole text again (a racy read that restarted). */
static void test_many_memcgs_repeated(void **state)
{
	enum { N = 3000 };
	size_t size = (size_t)N * 96 * 2 + 1, n = 0;
	char *buf = malloc(size);
	struct lru_snapshot snap;
	int i, round;

	(void)state;
	assert_non_null(buf);
	for (round = 0; round < 2; round++)
		for (i = 0; i < N; i++)
			n += (size_t)snprintf(buf + n, size - n,
					      "memcg %5d /m%d\n node 0\n 1 5 %d 0\n node 1\n 2 5 0 %d\n",
					      i + 1, i, round ? 0 : i, round ? 0 : i);
	parse_ok(&snap, buf);
	assert_int_equal(snap.nr_memcgs, N);
	assert_int_equal(snap.nr_lruvecs, 2 * N);
	assert_int_equal(snap.nr_duplicates, 2 * N);
	assert_string_equal(snap.memcgs[N - 1].path, "/m2999");
	assert_int_equal(snap.lruvecs[2 * N - 2].gens[0].pages[LRU_ANON], N - 1);
	assert_int_equal(snap.lruvecs[2 * N - 1].gens[0].pages[LRU_FILE], N - 1);
	lru_snapshot_release(&snap);
	free(buf);
}

static void test_streaming_api(void **state)
{
	struct lru_snapshot snap;
	struct lru_error err;
	struct lru_parser *p;

	(void)state;
	lru_snapshot_init(&snap);
	lru_error_clear(&err);
	assert_int_equal(lru_parser_new(&p, &snap, &err), LRU_OK);
	assert_int_equal(lru_parser_feed(p, "memcg 1 /x\n no", 14, &err), LRU_OK);
	assert_int_equal(snap.nr_memcgs, 1);
	assert_int_equal(lru_parser_feed(p, "de 2\n 4 5 6", 11, &err), LRU_OK);
	assert_int_equal(snap.nr_lruvecs, 1);
	assert_int_equal(snap.lruvecs[0].nr_gens, 0);
	assert_int_equal(lru_parser_feed(p, "", 0, &err), LRU_OK);
	assert_int_equal(lru_parser_feed(p, " 7\n", 3, &err), LRU_OK);
	assert_int_equal(lru_parser_finish(p, &err), LRU_OK);
	lru_parser_free(p);
	assert_int_equal(snap.lruvecs[0].node, 2);
	assert_int_equal(snap.lruvecs[0].gens[0].pages[LRU_FILE], 7);
	lru_snapshot_release(&snap);
	lru_parser_free(NULL);

	/* a NULL error is allowed */
	lru_snapshot_init(&snap);
	assert_int_equal(lru_parse_buf(&snap, "garbage\n", 8, NULL), LRU_EPARSE);
	lru_snapshot_release(&snap);
}

/* --- chunking ------------------------------------------------------------------ */

static void check_file_chunking(const char *rel)
{
	size_t len;
	char *buf = tu_read(rel, &len);

	assert_chunking_invariant(buf, len, 1);
	free(buf);
}

static void test_chunking_fixtures(void **state)
{
	(void)state;
	check_file_chunking("fixtures/linux-6.1/lru_gen.txt");
	check_file_chunking("fixtures/linux-6.1/lru_gen-idle.txt");
	check_file_chunking("fixtures/linux-6.12/lru_gen.txt");
	check_file_chunking("fixtures/linux-6.1/lru_gen_full.txt");
	check_file_chunking("fixtures/linux-6.12/lru_gen_full.txt");
	check_file_chunking("fixtures/linux-7.3/lru_gen.txt");
	check_file_chunking("fixtures/linux-7.3/lru_gen_full.txt");
}

static void test_chunking_synthetic(void **state)
{
	static const char *const texts[] = {
		full_text,
		"memcg     5 /a b/c d\n node     0\n 1 2 3 4\nmemcg 0 \n node 1\n 1 2 3 4\n",
		"memcg\t7\t/t\n\tnode\t3\n\t10\t20\t30\t40\n",
		"memcg 1 /\n node 0\n 3 1 1 1\n node 0\n 3 2 2 2\nmemcg 1 /\n node 0\n 3 1 1 1\n",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		assert_chunking_invariant(texts[i], strlen(texts[i]), 1);
}

/* --- fixed-width fast paths ------------------------------------------------------ */

/*
 * The text must give the same result as-is and with a tab put before every
 * line that starts with a space (and is not overlong): leading blanks are
 * skipped alike, but no fixed-width fast path takes such a line - its first
 * byte and its length are not the kernel's - so the second parse checks the
 * fast paths against the general one.
 */
static void assert_same_as_general(const char *buf, size_t len)
{
	struct lru_snapshot fast, general;
	struct lru_error err0, err;
	char *tabbed = malloc(2 * len + 1);
	enum lru_err rc0, rc;
	size_t i, start = 0, n = 0;

	assert_non_null(tabbed);
	for (i = 0; i < len; i++) {
		if (i == start) {
			const char *nl = memchr(buf + i, '\n', len - i);
			size_t line = nl ? (size_t)(nl - (buf + i)) : len - i;

			if (buf[i] == ' ' && line < LRU_LINE_MAX)
				tabbed[n++] = '\t';
			start = i + line + 1;
		}
		tabbed[n++] = buf[i];
	}
	lru_snapshot_init(&fast);
	lru_snapshot_init(&general);
	lru_error_clear(&err0);
	lru_error_clear(&err);
	rc0 = lru_parse_buf(&fast, buf, len, &err0);
	rc = lru_parse_buf(&general, tabbed, n, &err);
	assert_int_equal(rc, rc0);
	if (rc) {
		assert_int_equal(err.line, err0.line);
		assert_string_equal(err.msg, err0.msg);
	} else {
		assert_snap_equal(&fast, &general);
	}
	lru_snapshot_release(&fast);
	lru_snapshot_release(&general);
	free(tabbed);
}

static void check_file_same_as_general(const char *dir, const char *name)
{
	char rel[300];
	size_t len;
	char *buf;

	snprintf(rel, sizeof(rel), "%s/%s", dir, name);
	buf = tu_read(rel, &len);
	assert_same_as_general(buf, len);
	free(buf);
}

/* Append one line printed with the kernel's format (fixed-width columns). */
static size_t add(char *buf, size_t size, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t add(char *buf, size_t size, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
	assert_true(r > 0 && (size_t)r < size - n);
	return n + (size_t)r;
}

#define GEN " %10llu %10llu %10llu%c %10llu%c\n"
#define TIER "            %10d %10llu%c %10llu%c %10llu%c %10llu%c %10llu%c %10llu%c\n"
/* a tier line after its index column, which full_memcg() prints (TIER_INDEX) */
#define TIER_INDEX "            %10d"
#define TIER_REST " %10llu%c %10llu%c %10llu%c %10llu%c %10llu%c %10llu%c\n"
#define WALK6 "                       %10llu%c %10llu%c %10llu%c %10llu%c %10llu%c %10llu%c\n"
#define WALK4 "                       %10llu%c %10llu%c %10llu%c %10llu%c\n"

/*
 * A memcg of lru_gen_full text whose youngest generation has the given lines
 * (tier: each tier's line after its index).
 */
static size_t full_memcg(char *buf, size_t size, size_t n, const char *gen, const char *tier,
			 const char *walk)
{
	int t;

	n = add(buf, size, n, "memcg     1 /\n node     0\n");
	n = add(buf, size, n, GEN, 3ULL, 9ULL, 1ULL, 'x', 2ULL, ' ');
	for (t = 0; t < LRU_NR_TIERS; t++)
		n = add(buf, size, n, TIER, t, 1ULL, 'r', 2ULL, 'e', 3ULL, 'p', 4ULL, ' ', 5ULL,
			' ', 6ULL, ' ');
	n = add(buf, size, n, WALK6, 0ULL, ' ', 0ULL, ' ', 0ULL, ' ', 0ULL, ' ', 0ULL, ' ', 0ULL,
		' ');
	n = add(buf, size, n, "%s", gen);
	for (t = 0; t < LRU_NR_TIERS; t++)
		n = add(buf, size, n, TIER_INDEX "%s", t, tier);
	return add(buf, size, n, "%s", walk);
}

static void test_fixed_width_matches_general(void **state)
{
	static const char *const dirs[] = { "corpus/parse", "corpus/malformed" };
	static const char *const fixtures[] = {
		"linux-6.1/lru_gen.txt", "linux-6.1/lru_gen-idle.txt", "linux-6.1/lru_gen_full.txt",
		"linux-6.12/lru_gen.txt", "linux-6.12/lru_gen_full.txt",
		"linux-7.3/lru_gen.txt", "linux-7.3/lru_gen_full.txt",
	};
	/* widths at and past the columns, values at and past their limits */
	static const unsigned long long values[] = {
		0, 7, 99999999, 100000000, 999999999, 1000000000, 4294967295ULL, 4294967296ULL,
		9999999999ULL, 10000000000ULL, 18446744073709551615ULL,
	};
	static const char marks[] = " xXryT";
	enum { SIZE = 8192 };
	char *buf = malloc(SIZE), gen[128], tier[160], walk[160];
	size_t i, j, k, n, nv = sizeof(values) / sizeof(values[0]);
	struct lru_snapshot snap;
	struct dirent *de;
	DIR *dir;

	(void)state;
	assert_non_null(buf);
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		check_file_same_as_general("fixtures", fixtures[i]);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		dir = opendir(tu_path(dirs[i]));
		assert_non_null(dir);
		while ((de = readdir(dir)) != NULL)
			if (de->d_name[0] != '.' && strcmp(de->d_name, "EXPECT"))
				check_file_same_as_general(dirs[i], de->d_name);
		closedir(dir);
	}

	/* generation lines: every value in every column, with every mark */
	for (i = 0; i < nv; i++) {
		for (j = 0; j < 4; j++) {
			unsigned long long v[4] = { 4, 8, 16, 32 };
			char m = marks[i % (sizeof(marks) - 1)];

			v[j] = values[i];
			n = add(buf, SIZE, 0, "memcg     1 /\n node     0\n");
			n = add(buf, SIZE, n, GEN, v[0] - 1, v[1], 1ULL, 'x', 1ULL, ' ');
			n = add(buf, SIZE, n, GEN, v[0], v[1], v[2], j == 2 ? m : ' ', v[3],
				j == 3 ? m : ' ');
			assert_same_as_general(buf, n);
		}
	}
	/* tier and page-walk lines of 6.1 and 6.12 */
	for (i = 0; i < nv; i++) {
		for (k = 0; k < 3; k++) {
			unsigned long long v = values[i];
			char m = marks[(i + k) % (sizeof(marks) - 1)];

			snprintf(gen, sizeof(gen), GEN, 4ULL, 5ULL, 6ULL, ' ', 7ULL, ' ');
			snprintf(tier, sizeof(tier), TIER_REST, v, 'R', 1ULL, 'T', 2ULL, k ? m : ' ',
				 3ULL, 'R', v, 'T', 4ULL, 'x');
			snprintf(walk, sizeof(walk), WALK6, v, 'L', 1ULL, 'O', 2ULL, 'Y', 3ULL, 'N',
				 4ULL, k ? m : 'F', v, 'A');
			assert_same_as_general(buf, full_memcg(buf, SIZE, 0, gen, tier, walk));
			snprintf(walk, sizeof(walk), WALK4, v, 'T', 1ULL, 'Y', 2ULL, k ? m : 'F',
				 v, 'A');
			assert_same_as_general(buf, full_memcg(buf, SIZE, 0, gen, tier, walk));
		}
	}
	/*
	 * every byte of the youngest generation's lines (6.1 and 6.12 style)
	 * changed to a byte that breaks their shape, or not
	 */
	for (k = 0; k < 2; k++) {
		static const char subst[] = " \tx90aZ-\n";
		size_t at, len;
		char *copy = malloc(SIZE);

		assert_non_null(copy);
		snprintf(gen, sizeof(gen), GEN, 4ULL, 123456789ULL, 6ULL, ' ', 1234567890ULL, ' ');
		snprintf(tier, sizeof(tier), TIER_REST, 1ULL, 'R', 12ULL, 'T', 0ULL, ' ',
			 9999999999ULL, 'R', 0ULL, 'T', 0ULL, ' ');
		if (k)
			snprintf(walk, sizeof(walk), WALK4, 1ULL, 'T', 12ULL, 'Y', 123ULL, 'F',
				 1234ULL, 'A');
		else
			snprintf(walk, sizeof(walk), WALK6, 1ULL, 'L', 12ULL, 'O', 123ULL, 'Y',
				 1234ULL, 'N', 0ULL, 'F', 100000000ULL, 'A');
		len = full_memcg(buf, SIZE, 0, gen, tier, walk);
		/* the youngest generation's lines: TIER_INDEX prints 22 bytes */
		at = len - strlen(walk) - LRU_NR_TIERS * (strlen(tier) + 22) - strlen(gen);
		assert_memory_equal(buf + at, gen, strlen(gen));
		parse_ok(&snap, buf);	/* unchanged, the text is valid */
		lru_snapshot_release(&snap);
		for (i = at; i < len; i++) {
			for (j = 0; j < sizeof(subst) - 1; j++) {
				memcpy(copy, buf, len);
				copy[i] = subst[j];
				assert_same_as_general(copy, len);
			}
		}
		free(copy);
	}
	/* a tier index past the last tier, lines before any memcg */
	n = add(buf, SIZE, 0, "memcg     1 /\n node     0\n");
	n = add(buf, SIZE, n, GEN, 3ULL, 9ULL, 1ULL, ' ', 2ULL, ' ');
	n = add(buf, SIZE, n, TIER, 4, 1ULL, 'r', 2ULL, 'e', 3ULL, 'p', 4ULL, ' ', 5ULL, ' ',
		6ULL, ' ');
	assert_same_as_general(buf, n);
	n = add(buf, SIZE, 0, " node     0\n");
	assert_same_as_general(buf, n);
	n = add(buf, SIZE, 0, GEN, 3ULL, 9ULL, 1ULL, ' ', 2ULL, ' ');
	assert_same_as_general(buf, n);
	free(buf);
}

/* --- malformed corpus -------------------------------------------------------------- */

struct expect {
	char name[128];
	long line;
	enum lru_err code;
	char substr[256];
};

static bool parse_expect_line(char *s, struct expect *e)
{
	char code[32];
	int used = 0;

	if (sscanf(s, "%127s %ld %31s %n", e->name, &e->line, code, &used) != 3 || !used)
		return false;
	if (!strcmp(code, "EPARSE"))
		e->code = LRU_EPARSE;
	else if (!strcmp(code, "ERANGE"))
		e->code = LRU_ERANGE;
	else
		return false;
	snprintf(e->substr, sizeof(e->substr), "%s", s + used);
	return e->substr[0] != '\0';
}

/* Is NAME.txt listed in EXPECT (a line starting with "NAME ")? */
static bool listed(const char *expect, const char *file)
{
	size_t n = strlen(file) - 4;	/* without ".txt" */
	const char *s;

	for (s = expect; *s; s++)
		if ((s == expect || s[-1] == '\n') && !strncmp(s, file, n) && s[n] == ' ')
			return true;
	return false;
}

static void test_malformed_corpus(void **state)
{
	char *expect = tu_read("corpus/malformed/EXPECT", NULL);
	char *copy = strdup(expect), *line, *save = NULL;
	int cases = 0, failures = 0, lineno = 0;
	DIR *dir;
	struct dirent *de;

	(void)state;
	assert_non_null(copy);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct expect e;
		struct lru_snapshot snap;
		struct lru_error err;
		char rel[256];
		size_t len;
		char *buf;
		enum lru_err rc;

		lineno++;
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (!parse_expect_line(line, &e))
			fail_msg("EXPECT line %d is not 'NAME LINE CODE substring': %s", lineno, line);
		snprintf(rel, sizeof(rel), "corpus/malformed/%s.txt", e.name);
		buf = tu_read(rel, &len);

		lru_snapshot_init(&snap);
		lru_error_clear(&err);
		rc = lru_parse_buf(&snap, buf, len, &err);
		lru_snapshot_release(&snap);
		/* messages name the line */
		snprintf(rel, sizeof(rel), "line %ld: ", e.line);
		if (rc != e.code || err.code != e.code || err.line != e.line ||
		    !strstr(err.msg, e.substr) || strncmp(err.msg, rel, strlen(rel))) {
			print_error("%s: code %d line %d '%s', expected code %d line %ld '%s'\n",
				    e.name, rc, err.line, err.msg, e.code, e.line, e.substr);
			failures++;
		}

		assert_chunking_invariant(buf, len, len > 1024 ? 61 : 1);
		free(buf);
		cases++;
	}
	assert_int_equal(failures, 0);
	assert_true(cases >= 25);

	/* every corpus file has its expectation */
	dir = opendir(tu_path("corpus/malformed"));
	assert_non_null(dir);
	while ((de = readdir(dir)) != NULL) {
		size_t n = strlen(de->d_name);

		if (n < 5 || strcmp(de->d_name + n - 4, ".txt"))
			continue;
		if (!listed(expect, de->d_name))
			fail_msg("corpus/malformed/%s has no line in EXPECT", de->d_name);
	}
	closedir(dir);
	free(copy);
	free(expect);
}

/* The fuzzer's seeds: NAME.txt parses, bad_NAME.txt fails as malformed text. */
static void test_seed_corpus(void **state)
{
	DIR *dir = opendir(tu_path("corpus/parse"));
	struct dirent *de;
	int valid = 0, bad = 0;

	(void)state;
	assert_non_null(dir);
	while ((de = readdir(dir)) != NULL) {
		struct lru_snapshot snap;
		struct lru_error err;
		char rel[300];
		size_t len;
		char *buf;
		enum lru_err rc;

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "corpus/parse/%s", de->d_name);
		buf = tu_read(rel, &len);
		lru_snapshot_init(&snap);
		lru_error_clear(&err);
		rc = lru_parse_buf(&snap, buf, len, &err);
		if (!strncmp(de->d_name, "bad_", 4)) {
			if (rc != LRU_EPARSE && rc != LRU_ERANGE)
				fail_msg("%s: code %d, expected a parse error", rel, rc);
			bad++;
		} else {
			if (rc)
				fail_msg("%s: %s", rel, err.msg);
			assert_true(snap.nr_lruvecs >= 1);
			valid++;
		}
		lru_snapshot_release(&snap);
		assert_chunking_invariant(buf, len, 1);
		free(buf);
	}
	closedir(dir);
	assert_true(valid >= 3);
	assert_true(bad >= 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_61_lru_gen),
		cmocka_unit_test(test_fixture_61_lru_gen_full),
		cmocka_unit_test(test_fixture_61_idle),
		cmocka_unit_test(test_fixture_612_lru_gen),
		cmocka_unit_test(test_fixture_612_lru_gen_full),
		cmocka_unit_test(test_fixture_73_lru_gen),
		cmocka_unit_test(test_fixture_73_lru_gen_full),
		cmocka_unit_test(test_fixture_73_wide_ids),
		cmocka_unit_test(test_path_with_spaces),
		cmocka_unit_test(test_memcg_disabled),
		cmocka_unit_test(test_64bit_memcg_ids),
		cmocka_unit_test(test_fewer_generations),
		cmocka_unit_test(test_node_limits),
		cmocka_unit_test(test_tabs_as_separators),
		cmocka_unit_test(test_full_counters),
		cmocka_unit_test(test_full_without_walk_line),
		cmocka_unit_test(test_duplicate_memcg_record),
		cmocka_unit_test(test_duplicate_node_record),
		cmocka_unit_test(test_same_id_other_path_is_not_duplicate),
		cmocka_unit_test(test_many_memcgs_repeated),
		cmocka_unit_test(test_streaming_api),
		cmocka_unit_test(test_chunking_fixtures),
		cmocka_unit_test(test_chunking_synthetic),
		cmocka_unit_test(test_fixed_width_matches_general),
		cmocka_unit_test(test_malformed_corpus),
		cmocka_unit_test(test_seed_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
