/*
 * test_fleet.c - lru_fleet (thresholds, packing, histograms, warnings), lru_buf
 * varints.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_buf.h"
#include "lru_fleet.h"
#include "lru_warn.h"
#include "lru_ws.h"

static void test_threshold_index(void **state)
{
	(void)state;
	assert_int_equal(lru_fleet_threshold_index(0), 0);
	assert_int_equal(lru_fleet_threshold_index(60000), 0);
	assert_int_equal(lru_fleet_threshold_index(60001), 1);
	assert_int_equal(lru_fleet_threshold_index(120000), 1);
	assert_int_equal(lru_fleet_threshold_index(180000), 2);
	assert_int_equal(lru_fleet_threshold_index(86400000), 7);
	assert_int_equal(lru_fleet_threshold_index(86400001), -1);
	assert_string_equal(lru_fleet_threshold_name(5), "1h");
	for (unsigned k = 1; k < LRU_FLEET_NR_THRESHOLDS; k++)
		assert_true(lru_fleet_threshold_ms(k) > lru_fleet_threshold_ms(k - 1));
}

/* The precomputed cold bytes are lru_ws_lruvec's, in STRICT mode, at every threshold. */
static void test_cold_matches_ws(void **state)
{
	struct lru_snapshot s;
	size_t mi, li;
	unsigned seed = 7;

	(void)state;
	lru_snapshot_init(&s);
	assert_int_equal(lru_snapshot_add_memcg(&s, 1, "/a", 2, &mi, NULL), LRU_OK);
	for (int round = 0; round < 500; round++) {
		struct lru_lruvec *lv;
		struct lru_fleet_cold c;
		uint32_t age = 0;

		assert_int_equal(lru_snapshot_add_lruvec(&s, mi, round, &li, NULL), LRU_OK);
		lv = &s.lruvecs[li];
		lv->nr_gens = 1 + (unsigned)(rand_r(&seed) % LRU_MAX_GENS);
		for (int g = (int)lv->nr_gens - 1; g >= 0; g--) {
			age += (uint32_t)(rand_r(&seed) % 4000000);
			lv->gens[g].seq = 10 + (unsigned)g;
			lv->gens[g].age_ms = age;
			lv->gens[g].pages[0] = (uint64_t)(rand_r(&seed) % 100000);
			lv->gens[g].pages[1] = (uint64_t)(rand_r(&seed) % 100000);
			lv->gens[g].evicted = (uint8_t)(rand_r(&seed) % 5 == 0 ? 1 : 0);
		}
		lv->warnings = round % 3 ? 0 : LRU_WARN_THP_UNAGED;
		lru_fleet_lruvec_cold(lv, 4096, &c);
		assert_int_equal(c.warnings, lv->warnings);
		for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
			struct lru_ws w;

			lru_ws_lruvec(&s, lv, lru_fleet_threshold_ms(k), LRU_WS_STRICT, &w);
			assert_int_equal(c.cold[k], lru_ws_cold(&w));
			assert_int_equal(c.total, lru_ws_cold(&w) + lru_ws_hot(&w));
		}
		if (s.nr_lruvecs > 1000)
			break;
	}
	lru_snapshot_release(&s);
}

/*
 * What test_pack_roundtrip's snapshot reads back as (taken mid): two
 * lruvecs, /jobs/web (id 42) warned with three generations and /x (id 7)
 * with an evicted one born 77 ms before mid - age.
 */
static void expect_roundtrip(struct lru_fleet_reader *r, const struct lru_node_mem *nodes,
			     int64_t mid)
{
	struct lru_fleet_lruvec out;
	struct lru_error err;

	assert_int_equal(r->nr_nodes, 1);
	assert_int_equal(nodes[0].node, 3);
	assert_int_equal(nodes[0].total, 8ULL << 30);
	assert_int_equal(nodes[0].free, 1ULL << 30);
	assert_int_equal(lru_fleet_unpack_next(r, &out, &err), 1);
	assert_int_equal(out.path_id, 42);
	assert_int_equal(out.ino, 1234567);
	assert_int_equal(out.memcg_id, 5);
	assert_int_equal(out.lv.node, 3);
	assert_int_equal(out.lv.nr_gens, 3);
	assert_int_equal(out.lv.warnings, LRU_WARN_THP_UNAGED);
	for (unsigned g = 0; g < 3; g++) {
		assert_int_equal(out.lv.gens[g].seq, 100 + g);
		assert_int_equal(out.lv.gens[g].age_ms, 9000 - g * 3000);
		assert_int_equal(out.lv.gens[g].pages[LRU_ANON], 1000 * g);
		assert_int_equal(out.lv.gens[g].pages[LRU_FILE], 7);
		assert_int_equal(out.lv.gens[g].birth_ms, mid - (9000 - g * 3000));
	}
	assert_int_equal(lru_fleet_unpack_next(r, &out, &err), 1);
	assert_int_equal(out.path_id, 7);
	assert_int_equal(out.memcg_id, 6);
	assert_int_equal(out.lv.node, 0);
	assert_int_equal(out.lv.warnings, 0);
	assert_int_equal(out.lv.gens[0].seq, 1);
	assert_int_equal(out.lv.gens[0].evicted, 2);
	assert_int_equal(out.lv.gens[0].birth_ms, mid - 5 - 77);
}

static void test_pack_roundtrip(void **state)
{
	struct lru_snapshot s;
	struct lru_buf b;
	struct lru_fleet_reader r;
	struct lru_fleet_lruvec out;
	struct lru_node_mem nodes[4];
	struct lru_error err;
	uint64_t ids[2] = { 42, 7 };
	size_t mi, li;

	(void)state;
	lru_snapshot_init(&s);
	lru_buf_init(&b);
	assert_int_equal(lru_snapshot_add_memcg(&s, 5, "/jobs/web", 9, &mi, NULL), LRU_OK);
	s.memcgs[mi].ino = 1234567;
	assert_int_equal(lru_snapshot_add_memcg(&s, 6, "/x", 2, &mi, NULL), LRU_OK);
	assert_int_equal(lru_snapshot_add_lruvec(&s, 0, 3, &li, NULL), LRU_OK);
	s.lruvecs[li].nr_gens = 3;
	s.lruvecs[li].warnings = LRU_WARN_THP_UNAGED;
	for (unsigned g = 0; g < 3; g++)
		s.lruvecs[li].gens[g] = (struct lru_gen){ .seq = 100 + g, .age_ms = 9000 - g * 3000,
							  .pages = { 1000 * g, 7 } };
	assert_int_equal(lru_snapshot_add_lruvec(&s, 1, 0, &li, NULL), LRU_OK);
	s.lruvecs[li].nr_gens = 1;
	s.lruvecs[li].gens[0] = (struct lru_gen){ .seq = 1, .age_ms = 5, .evicted = 2,
						  .pages = { 3, 4 } };
	s.nodes = calloc(1, sizeof(*s.nodes));
	s.nodes[0] = (struct lru_node_mem){ 3, 8ULL << 30, 1ULL << 30, 5, 6 };
	s.nr_nodes = 1;
	lru_snapshot_set_times(&s, 1700000000000, 1700000000100);
	s.lruvecs[1].gens[0].birth_ms -= 77;	/* a birth that is not mid - age */
	assert_int_equal(lru_fleet_pack(&s, ids, &b, &err), LRU_OK);

	assert_int_equal(lru_fleet_unpack_begin(&r, b.data, b.len, lru_fleet_taken_ms(&s), nodes, 4,
						&err), LRU_OK);
	expect_roundtrip(&r, nodes, lru_fleet_taken_ms(&s));
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 0);

	/* every truncation is an error, never a crash */
	for (size_t len = 0; len < b.len; len++) {
		int rc = 1;

		if (lru_fleet_unpack_begin(&r, b.data, len, 0, nodes, 4, &err))
			continue;
		while (rc > 0)
			rc = lru_fleet_unpack_next(&r, &out, &err);
		assert_int_equal(rc, -1);
		assert_int_equal(err.code, LRU_EPROTO);
	}
	lru_buf_release(&b);
	lru_snapshot_release(&s);
}

/*
 * Blobs written before format 2 (raw rows already stored) read back as they
 * were: this one is what format 1's packer wrote for test_pack_roundtrip's
 * snapshot with counters for /jobs/web (taken 1700000000050).
 */
static void test_pack_format1(void **state)
{
	static const uint8_t v1[] = {
		0x01, 0x01, 0x03, 0x80, 0x80, 0x80, 0x80, 0x20, 0x80, 0x80, 0x80, 0x80,
		0x04, 0x05, 0x06, 0x02, 0x2a, 0x87, 0xad, 0x4b, 0x05, 0x03, 0x23, 0x64,
		0x01, 0xa8, 0x46, 0x00, 0x07, 0xf0, 0x2e, 0xe8, 0x07, 0x07, 0xb8, 0x17,
		0xd0, 0x0f, 0x07, 0x07, 0x00, 0x06, 0x00, 0x19, 0x01, 0x05, 0x03, 0x04,
		0x02, 0x99, 0x01, 0x4d, 0x01, 0x2a, 0xe8, 0x07, 0xf2, 0x02,
	};
	const int64_t mid = 1700000000050;
	struct lru_fleet_reader r;
	struct lru_fleet_lruvec out;
	struct lru_fleet_memcg m;
	struct lru_node_mem nodes[2];
	struct lru_error err;

	(void)state;
	assert_int_equal(lru_fleet_unpack_begin(&r, v1, sizeof(v1), mid, nodes, 2, &err), LRU_OK);
	expect_roundtrip(&r, nodes, mid);
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 0);
	assert_true(r.has_memcgs);
	assert_int_equal(lru_fleet_unpack_memcg(&r, &m, &err), 1);
	assert_int_equal(m.path_id, 42);
	assert_int_equal(m.pgsteal, 1000);
	assert_int_equal(m.refaulted, 370);
	assert_int_equal(lru_fleet_unpack_memcg(&r, &m, &err), 0);
	/* format 1 had no flag 0x40 */
	{
		uint8_t bad[sizeof(v1)];

		memcpy(bad, v1, sizeof(v1));
		assert_int_equal(bad[22], 0x23);	/* the first lruvec's flags: 3 gens, warned */
		bad[22] |= 0x40;
		assert_int_equal(lru_fleet_unpack_begin(&r, bad, sizeof(bad), mid, NULL, 0, &err),
				 LRU_OK);
		assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), -1);
		assert_int_equal(err.code, LRU_EPROTO);
		bad[0] = 3;
		assert_int_equal(lru_fleet_unpack_begin(&r, bad, sizeof(bad), mid, NULL, 0, &err),
				 LRU_EPROTO);
		assert_string_equal(err.msg, "packed generations: unknown format version");
	}
}

static uint64_t rnd_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* a value of any size: small, near a power of two, or the extremes */
static uint64_t rnd_value(uint64_t *x)
{
	uint64_t r = rnd_next(x);

	switch (r % 5) {
	case 0: return r >> 60;
	case 1: return UINT64_MAX - (r >> 62);
	case 2: return r >> (r % 64);
	default: return (r >> 8) % 100000;
	}
}

/*
 * Format 2 keeps what repeats as differences from the lruvec before: every
 * value comes back exactly whichever way it moves (down, wrapping, by any
 * amount), and a memcg's lruvec on its next node, aged with the one before,
 * costs its flags, node, seq difference, age differences and page counts
 * only.
 */
static void test_pack_deltas(void **state)
{
	struct lru_snapshot s;
	struct lru_buf b;
	struct lru_fleet_reader r;
	struct lru_fleet_lruvec out;
	struct lru_error err;
	uint64_t ids[64], x = 88172645463325252ULL;
	size_t mi, li, i, before;

	(void)state;
	for (int round = 0; round < 50; round++) {
		lru_snapshot_init(&s);
		lru_buf_init(&b);
		for (i = 0; i < 40; i++) {
			char path[32];
			unsigned nr = 1 + (unsigned)(rnd_next(&x) % LRU_MAX_GENS);

			snprintf(path, sizeof(path), "/m%zu", i);
			assert_int_equal(lru_snapshot_add_memcg(&s, (uint32_t)rnd_value(&x), path,
								strlen(path), &mi, NULL), LRU_OK);
			s.memcgs[mi].ino = rnd_value(&x);
			ids[mi] = rnd_next(&x) % 3 ? rnd_value(&x) : (mi ? ids[mi - 1] : 0);
			assert_int_equal(lru_snapshot_add_lruvec(&s, mi, (int)(rnd_next(&x) % 4), &li,
								 NULL), LRU_OK);
			s.lruvecs[li].nr_gens = nr;
			s.lruvecs[li].warnings = rnd_next(&x) % 4 ? 0 : LRU_WARN_THP_UNAGED;
			s.lruvecs[li].gens[0].seq = rnd_value(&x) >> 1;
			for (unsigned g = 0; g < nr; g++) {
				struct lru_gen *gen = &s.lruvecs[li].gens[g];

				gen->seq = s.lruvecs[li].gens[0].seq + g;
				gen->age_ms = (uint32_t)rnd_value(&x);
				gen->pages[LRU_ANON] = rnd_value(&x);
				gen->pages[LRU_FILE] = rnd_value(&x);
				gen->evicted = rnd_next(&x) % 7 ? 0 : 1;
			}
		}
		lru_snapshot_set_times(&s, 1700000000000, 1700000000100);
		s.lruvecs[3].gens[0].birth_ms = INT64_MIN;
		assert_int_equal(lru_fleet_pack(&s, ids, &b, &err), LRU_OK);
		assert_int_equal(lru_fleet_unpack_begin(&r, b.data, b.len, lru_fleet_taken_ms(&s),
							NULL, 0, &err), LRU_OK);
		for (i = 0; i < s.nr_lruvecs; i++) {
			const struct lru_lruvec *lv = &s.lruvecs[i];

			assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 1);
			assert_int_equal(out.path_id, ids[lv->memcg]);
			assert_int_equal(out.ino, s.memcgs[lv->memcg].ino);
			assert_int_equal(out.memcg_id, s.memcgs[lv->memcg].id);
			assert_int_equal(out.lv.node, lv->node);
			assert_int_equal(out.lv.nr_gens, lv->nr_gens);
			assert_int_equal(out.lv.warnings, lv->warnings);
			for (unsigned g = 0; g < lv->nr_gens; g++) {
				assert_int_equal(out.lv.gens[g].seq, lv->gens[g].seq);
				assert_int_equal(out.lv.gens[g].age_ms, lv->gens[g].age_ms);
				assert_int_equal(out.lv.gens[g].pages[LRU_ANON], lv->gens[g].pages[LRU_ANON]);
				assert_int_equal(out.lv.gens[g].pages[LRU_FILE], lv->gens[g].pages[LRU_FILE]);
				assert_int_equal(out.lv.gens[g].evicted, lv->gens[g].evicted);
				assert_int_equal(out.lv.gens[g].birth_ms, lv->gens[g].birth_ms);
			}
		}
		assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 0);
		lru_buf_release(&b);
		lru_snapshot_release(&s);
	}

	/* one memcg on two nodes, aged at once: the second lruvec is 1 + 1 + 1 + 2 x 3 bytes */
	lru_snapshot_init(&s);
	lru_buf_init(&b);
	assert_int_equal(lru_snapshot_add_memcg(&s, 77, "/jobs/web", 9, &mi, NULL), LRU_OK);
	s.memcgs[mi].ino = 9876543;
	ids[0] = 4000;
	for (int n = 0; n < 2; n++) {
		assert_int_equal(lru_snapshot_add_lruvec(&s, mi, n, &li, NULL), LRU_OK);
		s.lruvecs[li].nr_gens = 2;
		s.lruvecs[li].gens[0] = (struct lru_gen){ .seq = 500, .age_ms = 7200000,
							  .pages = { 10 + n, 20 } };
		s.lruvecs[li].gens[1] = (struct lru_gen){ .seq = 501, .age_ms = 1500,
							  .pages = { 30, 40 + n } };
	}
	lru_snapshot_set_times(&s, 1700000000000, 1700000000100);
	assert_int_equal(lru_fleet_pack(&s, ids, &b, &err), LRU_OK);
	before = b.len;
	lru_buf_release(&b);
	s.nr_lruvecs = 1;
	assert_int_equal(lru_fleet_pack(&s, ids, &b, &err), LRU_OK);
	assert_int_equal(before - b.len, 3 + 2 * 3);
	assert_int_equal(b.data[3], 2);	/* the first: two generations, no flag */
	lru_buf_release(&b);
	lru_snapshot_release(&s);
}

/*
 * memory.stat's reclaim counters follow the lruvecs: a memcg with some is
 * written, one with none is not (0), and a snapshot without stats has no
 * section (format 1 as it was). Every truncation is an error, except the one
 * that leaves exactly the lruvecs (a blob without counters); a byte after the
 * section is refused.
 */
static void test_pack_memcgs(void **state)
{
	struct lru_snapshot s;
	struct lru_buf plain, with;
	struct lru_fleet_reader r;
	struct lru_fleet_lruvec out;
	struct lru_fleet_memcg m;
	struct lru_error err;
	uint64_t ids[2] = { 9, 11 };
	size_t mi, mj, li;

	(void)state;
	lru_snapshot_init(&s);
	lru_buf_init(&plain);
	lru_buf_init(&with);
	assert_int_equal(lru_snapshot_add_memcg(&s, 5, "/jobs/web", 9, &mi, NULL), LRU_OK);
	assert_int_equal(lru_snapshot_add_memcg(&s, 6, "/jobs/db", 8, &mj, NULL), LRU_OK);
	s.memcgs[mi].ino = 300;
	assert_int_equal(lru_snapshot_add_lruvec(&s, mi, 0, &li, NULL), LRU_OK);
	s.lruvecs[li].nr_gens = 1;
	s.lruvecs[li].gens[0] = (struct lru_gen){ .seq = 7, .age_ms = 9000, .pages = { 20, 0 } };
	lru_snapshot_set_times(&s, 1700000000000, 1700000000002);
	assert_int_equal(lru_fleet_pack(&s, ids, &plain, &err), LRU_OK);
	s.memcgs[mi].has_stats = s.memcgs[mj].has_stats = true;
	s.memcgs[mi].stats.pgsteal = 1000;
	s.memcgs[mi].stats.refault_anon = 70;
	s.memcgs[mi].stats.refault_file = 300;
	assert_int_equal(lru_fleet_pack(&s, ids, &with, &err), LRU_OK);
	assert_true(with.len > plain.len + 2);
	assert_memory_equal(with.data, plain.data, plain.len);

	assert_int_equal(lru_fleet_unpack_begin(&r, plain.data, plain.len, 0, NULL, 0, &err), LRU_OK);
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 1);
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 0);
	assert_false(r.has_memcgs);
	assert_int_equal(lru_fleet_unpack_memcg(&r, &m, &err), 0);

	assert_int_equal(lru_fleet_unpack_begin(&r, with.data, with.len, 0, NULL, 0, &err), LRU_OK);
	assert_int_equal(lru_fleet_unpack_memcg(&r, &m, &err), -1);	/* lruvecs first */
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 1);
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 0);
	assert_true(r.has_memcgs);
	assert_int_equal(lru_fleet_unpack_memcg(&r, &m, &err), 1);
	assert_int_equal(m.path_id, 9);
	assert_int_equal(m.pgsteal, 1000);
	assert_int_equal(m.refaulted, 370);
	assert_int_equal(lru_fleet_unpack_memcg(&r, &m, &err), 0);	/* /jobs/db: all 0, left out */

	for (size_t len = plain.len + 1; len < with.len; len++) {
		int rc = 1;

		assert_int_equal(lru_fleet_unpack_begin(&r, with.data, len, 0, NULL, 0, &err), LRU_OK);
		while (rc > 0)
			rc = lru_fleet_unpack_next(&r, &out, &err);
		while (!rc && (rc = lru_fleet_unpack_memcg(&r, &m, &err)) > 0)
			;
		assert_int_equal(rc, -1);
		assert_int_equal(err.code, LRU_EPROTO);
	}
	assert_int_equal(lru_buf_append(&with, "x", 1, &err), LRU_OK);
	assert_int_equal(lru_fleet_unpack_begin(&r, with.data, with.len, 0, NULL, 0, &err), LRU_OK);
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 1);
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 0);
	assert_int_equal(lru_fleet_unpack_memcg(&r, &m, &err), 1);
	assert_int_equal(lru_fleet_unpack_memcg(&r, &m, &err), -1);
	assert_string_equal(err.msg, "packed generations: trailing bytes");
	lru_buf_release(&plain);
	lru_buf_release(&with);
	lru_snapshot_release(&s);
}

/*
 * Warnings cost nothing where there are none (a flag bit): a warned lruvec
 * adds one varint. A flag this build does not know is refused.
 */
static void test_pack_warnings(void **state)
{
	struct lru_snapshot s;
	struct lru_buf plain, warned;
	struct lru_fleet_reader r;
	struct lru_fleet_lruvec out;
	struct lru_error err;
	uint64_t ids[1] = { 9 };
	size_t mi, li, at;

	(void)state;
	lru_snapshot_init(&s);
	lru_buf_init(&plain);
	lru_buf_init(&warned);
	assert_int_equal(lru_snapshot_add_memcg(&s, 5, "/jobs/web", 9, &mi, NULL), LRU_OK);
	assert_int_equal(lru_snapshot_add_lruvec(&s, mi, 1, &li, NULL), LRU_OK);
	s.lruvecs[li].nr_gens = 2;
	s.lruvecs[li].gens[0] = (struct lru_gen){ .seq = 7, .age_ms = 9000, .pages = { 20245, 0 } };
	s.lruvecs[li].gens[1] = (struct lru_gen){ .seq = 8, .age_ms = 100, .pages = { 8439, 0 } };
	lru_snapshot_set_times(&s, 1700000000000, 1700000000002);
	assert_int_equal(lru_fleet_pack(&s, ids, &plain, &err), LRU_OK);
	s.lruvecs[li].warnings = LRU_WARN_THP_UNAGED;
	assert_int_equal(lru_fleet_pack(&s, ids, &warned, &err), LRU_OK);
	assert_int_equal(warned.len, plain.len + 1);

	/* version, nodes 0, lruvecs 1, then the lruvec's flags first (format 2) */
	at = 3;
	assert_int_equal(plain.data[0], 2);
	assert_int_equal(plain.data[at], 2);		/* two generations, no flag */
	assert_int_equal(warned.data[at], 2 | 0x20);
	assert_int_equal(lru_fleet_unpack_begin(&r, plain.data, plain.len, lru_fleet_taken_ms(&s),
						NULL, 0, &err), LRU_OK);
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 1);
	assert_int_equal(out.lv.warnings, 0);
	assert_int_equal(lru_fleet_unpack_begin(&r, warned.data, warned.len, lru_fleet_taken_ms(&s),
						NULL, 0, &err), LRU_OK);
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 1);
	assert_int_equal(out.lv.warnings, LRU_WARN_THP_UNAGED);
	assert_int_equal(out.lv.gens[1].pages[LRU_ANON], 8439);
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), 0);

	warned.data[at] |= 0x80;
	assert_int_equal(lru_fleet_unpack_begin(&r, warned.data, warned.len, 0, NULL, 0, &err), LRU_OK);
	assert_int_equal(lru_fleet_unpack_next(&r, &out, &err), -1);
	assert_int_equal(err.code, LRU_EPROTO);
	lru_buf_release(&plain);
	lru_buf_release(&warned);
	lru_snapshot_release(&s);
}

/* A host's row has the union of its lruvecs' warnings, a node's those of its own. */
static void test_rows_warnings(void **state)
{
	struct lru_snapshot s;
	struct lru_fleet_rows rows;
	struct lru_fleet_cold acc = { 0 };
	size_t mi, li;

	(void)state;
	lru_snapshot_init(&s);
	assert_int_equal(lru_snapshot_add_memcg(&s, 1, "/a", 2, &mi, NULL), LRU_OK);
	for (int node = 0; node < 3; node++) {
		assert_int_equal(lru_snapshot_add_lruvec(&s, mi, node, &li, NULL), LRU_OK);
		s.lruvecs[li].nr_gens = 1;
		s.lruvecs[li].gens[0] = (struct lru_gen){ .seq = 1, .age_ms = 1, .pages = { 1, 1 } };
		s.lruvecs[li].warnings = node == 1 ? LRU_WARN_THP_UNAGED : 0;
	}
	s.host.warnings = LRU_HOSTW_DAMON;
	lru_snapshot_set_times(&s, 1700000000000, 1700000000002);
	assert_int_equal(lru_fleet_rows_build(&s, &rows, NULL), LRU_OK);
	assert_int_equal(rows.host.warnings, LRU_WARN_THP_UNAGED);
	assert_int_equal(rows.nr_nodes, 3);
	for (size_t i = 0; i < rows.nr_nodes; i++)
		assert_int_equal(rows.nodes[i].cold.warnings,
				 rows.nodes[i].node == 1 ? LRU_WARN_THP_UNAGED : 0);
	lru_fleet_cold_add(&acc, &rows.lv[0]);
	assert_int_equal(acc.warnings, 0);
	lru_fleet_cold_add(&acc, &rows.lv[1]);
	lru_fleet_cold_add(&acc, &rows.lv[2]);
	assert_int_equal(acc.warnings, LRU_WARN_THP_UNAGED);
	assert_int_equal(acc.total, rows.host.total);
	lru_fleet_rows_release(&rows);
	lru_snapshot_release(&s);
}

/* Samples per warning: counted, merged, and through a blob and back; bad blobs refused. */
static void test_warn_counts(void **state)
{
	struct lru_fleet_warn_counts a = { { 0 } }, b = { { 0 } };
	struct lru_buf blob;
	struct lru_error err;
	static const uint8_t bad_version[] = { 2, 0, 1 };
	static const uint8_t truncated[] = { 1, 0 };
	static const uint8_t unordered[] = { 1, 0, 1, 0, 2 };
	static const uint8_t zero[] = { 1, 0, 0 };
	static const uint8_t too_high[] = { 1, 32, 1 };
	static const uint8_t newer_bit[] = { 1, 0, 3, 9, 4 };	/* bit 9: not counted here */
	const struct { const uint8_t *p; size_t len; } bad[] = {
		{ bad_version, sizeof(bad_version) }, { truncated, sizeof(truncated) },
		{ unordered, sizeof(unordered) }, { zero, sizeof(zero) },
		{ too_high, sizeof(too_high) },
	};

	(void)state;
	lru_buf_init(&blob);
	assert_int_equal(lru_fleet_warn_counts_encode(&a, &blob, &err), LRU_OK);
	assert_int_equal(blob.len, 0);		/* nothing warned: nothing stored */
	assert_int_equal(lru_fleet_warn_counts_merge_blob(&a, NULL, 0, &err), LRU_OK);
	assert_int_equal(lru_fleet_warn_counts_mask(&a), 0);

	lru_fleet_warn_count(&a, 0, 5);
	lru_fleet_warn_count(&a, LRU_WARN_THP_UNAGED, 3);
	lru_fleet_warn_count(&a, LRU_WARN_THP_UNAGED | 1u << 2, 1);
	assert_int_equal(a.n[0], 4);
	assert_int_equal(a.n[2], 1);
	assert_int_equal(lru_fleet_warn_counts_mask(&a), LRU_WARN_THP_UNAGED | 1u << 2);
	assert_int_equal(lru_fleet_warn_counts_encode(&a, &blob, &err), LRU_OK);
	assert_int_equal(lru_fleet_warn_counts_merge_blob(&b, blob.data, blob.len, &err), LRU_OK);
	assert_memory_equal(&a, &b, sizeof(a));
	lru_fleet_warn_counts_merge(&b, &a);
	assert_int_equal(b.n[0], 8);
	assert_int_equal(b.n[2], 2);

	memset(&b, 0, sizeof(b));
	assert_int_equal(lru_fleet_warn_counts_merge_blob(&b, newer_bit, sizeof(newer_bit), &err),
			 LRU_OK);
	assert_int_equal(b.n[0], 3);
	assert_int_equal(lru_fleet_warn_counts_mask(&b), 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&b, 0, sizeof(b));
		assert_int_equal(lru_fleet_warn_counts_merge_blob(&b, bad[i].p, bad[i].len, &err),
				 LRU_EPROTO);
		assert_int_equal(lru_fleet_warn_counts_mask(&b), 0);	/* nothing half-added */
	}
	lru_buf_release(&blob);
}

static void test_hist_buckets(void **state)
{
	(void)state;
	for (uint64_t v = 0; v < 16; v++)
		assert_int_equal(lru_hist_bucket_of(v), v);
	/* monotonic, and a bucket is at most 1/16 of its values wide */
	for (uint64_t v = 16; v < (1ULL << 40); v = v * 17 / 16 + 1) {
		uint32_t b = lru_hist_bucket_of(v);

		assert_true(lru_hist_bucket_of(v + 1) >= b);
		assert_true(lru_hist_bucket_of(v + v / 16 + 1) > b);
	}
	assert_int_equal(lru_hist_bucket_of(UINT64_MAX), 16 + 59 * 16 + 15);
}

static void test_hist_percentiles(void **state)
{
	struct lru_hist h, m;
	struct lru_hist set[LRU_FLEET_NR_THRESHOLDS], back[LRU_FLEET_NR_THRESHOLDS];
	struct lru_buf b;
	struct lru_error err;

	(void)state;
	lru_hist_init(&h);
	assert_int_equal(lru_hist_percentile(&h, 50), 0);
	for (uint64_t i = 1; i <= 100; i++)
		assert_int_equal(lru_hist_add(&h, i << 20, 1, NULL), LRU_OK);	/* 1..100 MiB */
	assert_int_equal(h.count, 100);
	/* nearest rank, answered with the bucket's largest value: an upper bound within 1/16 */
	for (unsigned p = 1; p <= 100; p++) {
		assert_true(lru_hist_percentile(&h, p) >= (uint64_t)p << 20);
		assert_true(lru_hist_percentile(&h, p) <= ((uint64_t)p << 20) * 17 / 16);
	}
	assert_int_equal(lru_hist_percentile(&h, 1), 1ULL << 20);
	assert_int_equal(lru_hist_max(&h), 100ULL << 20);
	assert_int_equal(lru_hist_percentile(&h, 100), 100ULL << 20);
	/* exact when every value has a bucket of its own */
	lru_hist_release(&h);
	for (unsigned i = 0; i < 20; i++)
		assert_int_equal(lru_hist_add(&h, 1000ULL << i, 1, NULL), LRU_OK);
	assert_int_equal(lru_hist_percentile(&h, 50), 1000ULL << 9);
	assert_int_equal(lru_hist_percentile(&h, 95), 1000ULL << 18);
	assert_int_equal(lru_hist_percentile(&h, 99), 1000ULL << 19);

	lru_hist_init(&m);
	assert_int_equal(lru_hist_add(&m, 7, 3, NULL), LRU_OK);
	assert_int_equal(lru_hist_merge(&m, &h, NULL), LRU_OK);
	assert_int_equal(m.count, 23);
	assert_int_equal(lru_hist_percentile(&m, 1), 7);

	/* a set of 8 encodes, decodes and merges */
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
		lru_hist_init(&set[k]);
		lru_hist_init(&back[k]);
		assert_int_equal(lru_hist_add(&set[k], 1000 * (k + 1), k + 1, NULL), LRU_OK);
	}
	lru_buf_init(&b);
	assert_int_equal(lru_hist_set_encode(set, &b, &err), LRU_OK);
	assert_int_equal(lru_hist_set_merge_blob(back, b.data, b.len, &err), LRU_OK);
	assert_int_equal(lru_hist_set_merge_blob(back, b.data, b.len, &err), LRU_OK);
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
		assert_int_equal(back[k].count, 2 * (k + 1));
		assert_int_equal(lru_hist_max(&back[k]), 1000 * (k + 1));
	}
	lru_hist_release(&m);
	lru_hist_init(&m);
	assert_int_equal(lru_hist_merge_blob(&m, 6, b.data, b.len, &err), LRU_OK);
	assert_int_equal(m.count, 7);
	/* corrupt blobs are refused */
	assert_int_equal(lru_hist_merge_blob(&m, 6, b.data, b.len - 1, &err), LRU_EPROTO);
	b.data[0] = 9;
	assert_int_equal(lru_hist_set_merge_blob(back, b.data, b.len, &err), LRU_EPROTO);
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
		lru_hist_release(&set[k]);
		lru_hist_release(&back[k]);
	}
	lru_buf_release(&b);
	lru_hist_release(&m);
	lru_hist_release(&h);
}

static void test_varints_and_buf(void **state)
{
	static const uint64_t v[] = { 0, 1, 127, 128, 300, 1ULL << 35, UINT64_MAX };
	struct lru_buf b;
	const uint8_t *p;
	uint64_t x;
	int64_t sx;

	(void)state;
	lru_buf_init(&b);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(lru_buf_reserve(&b, 2 * LRU_BUF_VARINT_MAX, NULL), LRU_OK);
		lru_buf_put_varint(&b, v[i]);
		lru_buf_put_svarint(&b, -(int64_t)(v[i] >> 2));
	}
	p = b.data;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(lru_get_varint(&p, b.data + b.len, &x), 0);
		assert_int_equal(x, v[i]);
		assert_int_equal(lru_get_svarint(&p, b.data + b.len, &sx), 0);
		assert_int_equal(sx, -(int64_t)(v[i] >> 2));
	}
	assert_int_equal(lru_get_varint(&p, b.data + b.len, &x), -1);
	lru_buf_release(&b);
	b.max = 10;
	assert_int_equal(lru_buf_append(&b, "0123456789", 10, NULL), LRU_OK);
	assert_int_equal(lru_buf_append(&b, "x", 1, NULL), LRU_ERANGE);
	lru_buf_release(&b);
	assert_int_equal(lru_fleet_glob_prefix("/jobs/web*"), 9);
	assert_int_equal(lru_fleet_glob_prefix("*"), 0);
	assert_int_equal(lru_fleet_glob_prefix("/a/[bc]"), 3);
	assert_int_equal(lru_fleet_glob_prefix("/plain"), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threshold_index),
		cmocka_unit_test(test_cold_matches_ws),
		cmocka_unit_test(test_pack_roundtrip),
		cmocka_unit_test(test_pack_warnings),
		cmocka_unit_test(test_pack_format1),
		cmocka_unit_test(test_pack_deltas),
		cmocka_unit_test(test_pack_memcgs),
		cmocka_unit_test(test_rows_warnings),
		cmocka_unit_test(test_warn_counts),
		cmocka_unit_test(test_hist_buckets),
		cmocka_unit_test(test_hist_percentiles),
		cmocka_unit_test(test_varints_and_buf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
