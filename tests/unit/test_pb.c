#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_esc.h"
#include "lru_pb.h"
#include "lru_sat.h"
#include "lru_warn.h"

/* ---- helpers -------------------------------------------------------------- */

static void assert_str_eq_null(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
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
	unsigned g, t;
	int type, c;

	if (!a || !b) {
		assert_ptr_equal(a, b);
		return;
	}
	for (g = 0; g < nr_gens; g++) {
		assert_int_equal(a->has_tiers[g], b->has_tiers[g]);
		assert_int_equal(a->has_walk[g], b->has_walk[g]);
		for (t = 0; t < LRU_NR_TIERS; t++) {
			assert_int_equal(a->tiers[g][t].present, b->tiers[g][t].present);
			for (type = 0; type < LRU_NR_TYPES; type++)
				for (c = 0; c < LRU_TC_NR; c++)
					assert_int_equal(a->tiers[g][t].v[type][c],
							 b->tiers[g][t].v[type][c]);
		}
		assert_int_equal(a->walk[g].present, b->walk[g].present);
		for (c = 0; c < LRU_WALK_NR; c++)
			assert_int_equal(a->walk[g].v[c], b->walk[g].v[c]);
	}
}

static void assert_memcg_equal(const struct lru_memcg *a, const struct lru_memcg *b)
{
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->ino, b->ino);
	assert_string_equal(a->path, b->path);
	assert_int_equal(a->has_stats, b->has_stats);
	if (!a->has_stats)
		return;
	assert_int_equal(a->stats.anon_bytes, b->stats.anon_bytes);
	assert_int_equal(a->stats.file_bytes, b->stats.file_bytes);
	assert_int_equal(a->stats.inactive_file_bytes, b->stats.inactive_file_bytes);
	assert_int_equal(a->stats.current_bytes, b->stats.current_bytes);
	assert_int_equal(a->stats.refault_anon, b->stats.refault_anon);
	assert_int_equal(a->stats.refault_file, b->stats.refault_file);
	assert_int_equal(a->stats.pgsteal, b->stats.pgsteal);
	assert_true(a->stats.some_avg10 == b->stats.some_avg10);
	assert_true(a->stats.full_avg10 == b->stats.full_avg10);
	assert_int_equal(a->stats.some_total_us, b->stats.some_total_us);
	assert_int_equal(a->stats.thp_bytes, b->stats.thp_bytes);
}

/* Every field of two snapshots, memcgs in the same order. */
static void assert_snapshot_equal(const struct lru_snapshot *a, const struct lru_snapshot *b)
{
	size_t i;
	unsigned g;

	assert_str_eq_null(a->host.host, b->host.host);
	assert_str_eq_null(a->host.boot_id, b->host.boot_id);
	assert_str_eq_null(a->host.kernel, b->host.kernel);
	assert_int_equal(a->host.seq, b->host.seq);
	assert_int_equal(a->host.enabled, b->host.enabled);
	assert_int_equal(a->host.warnings, b->host.warnings);
	assert_int_equal(a->host.aging.enabled, b->host.aging.enabled);
	assert_int_equal(a->host.aging.interval_ms, b->host.aging.interval_ms);
	assert_int_equal(a->host.aging.jitter_ms, b->host.aging.jitter_ms);
	assert_int_equal(a->host.aging.can_swap, b->host.aging.can_swap);
	assert_int_equal(a->host.aging.force_scan, b->host.aging.force_scan);
	assert_int_equal(a->source, b->source);
	assert_int_equal(a->page_size, b->page_size);
	assert_int_equal(a->read_start_ms, b->read_start_ms);
	assert_int_equal(a->read_end_ms, b->read_end_ms);
	assert_int_equal(a->birth_error_ms, b->birth_error_ms);
	assert_int_equal(a->nr_duplicates, b->nr_duplicates);

	assert_int_equal(a->nr_nodes, b->nr_nodes);
	for (i = 0; i < a->nr_nodes; i++) {
		assert_int_equal(a->nodes[i].node, b->nodes[i].node);
		assert_int_equal(a->nodes[i].total, b->nodes[i].total);
		assert_int_equal(a->nodes[i].free, b->nodes[i].free);
		assert_int_equal(a->nodes[i].file, b->nodes[i].file);
		assert_int_equal(a->nodes[i].anon, b->nodes[i].anon);
	}

	assert_int_equal(a->nr_memcgs, b->nr_memcgs);
	for (i = 0; i < a->nr_memcgs; i++)
		assert_memcg_equal(&a->memcgs[i], &b->memcgs[i]);

	assert_int_equal(a->nr_lruvecs, b->nr_lruvecs);
	for (i = 0; i < a->nr_lruvecs; i++) {
		const struct lru_lruvec *x = &a->lruvecs[i], *y = &b->lruvecs[i];

		assert_int_equal(x->memcg, y->memcg);
		assert_int_equal(x->node, y->node);
		assert_int_equal(x->warnings, y->warnings);
		assert_int_equal(x->nr_gens, y->nr_gens);
		for (g = 0; g < x->nr_gens; g++)
			assert_gen_equal(&x->gens[g], &y->gens[g]);
		assert_full_equal(x->full, y->full, x->nr_gens);
	}
}

/* Invariants every decoded snapshot must satisfy (for fuzz-like tests). */
static void assert_sane(const struct lru_snapshot *snaps, size_t n)
{
	size_t s, i;
	unsigned g;

	for (s = 0; s < n; s++) {
		const struct lru_snapshot *snap = &snaps[s];

		assert_true(snap->page_size && !(snap->page_size & (snap->page_size - 1)));
		assert_true(snap->source <= LRU_SRC_CGROUP);
		for (i = 0; i < snap->nr_memcgs; i++) {
			assert_non_null(snap->memcgs[i].path);
			assert_true(strlen(snap->memcgs[i].path) <= LRU_PATH_MAX);
		}
		for (i = 0; i < snap->nr_nodes; i++)
			assert_true(snap->nodes[i].node >= 0 && snap->nodes[i].node <= LRU_NODE_MAX);
		for (i = 0; i < snap->nr_lruvecs; i++) {
			const struct lru_lruvec *lv = &snap->lruvecs[i];

			assert_true(lv->memcg < snap->nr_memcgs);
			assert_true(lv->node >= 0 && lv->node <= LRU_NODE_MAX);
			assert_true(lv->nr_gens >= 1 && lv->nr_gens <= LRU_MAX_GENS);
			for (g = 1; g < lv->nr_gens; g++)
				assert_int_equal(lv->gens[g].seq, lv->gens[g - 1].seq + 1);
		}
	}
}

/* Encode snaps, decode them again and compare every field. */
static void roundtrip(const struct lru_snapshot *const *snaps, size_t n)
{
	struct lru_snapshot *out;
	struct lru_error err;
	uint8_t *buf;
	size_t len, n_out, i;

	lru_error_clear(&err);
	if (lru_pb_encode_batch(snaps, n, &buf, &len, &err))
		fail_msg("encode: %s", err.msg);
	assert_non_null(buf);
	if (lru_pb_decode_batch(buf, len, &out, &n_out, &err))
		fail_msg("decode: %s", err.msg);
	assert_int_equal(n_out, n);
	for (i = 0; i < n; i++)
		assert_snapshot_equal(snaps[i], &out[i]);
	assert_sane(out, n_out);
	lru_pb_free_snapshots(out, n_out);
	free(buf);
}

static void roundtrip_fixture(const char *rel, enum lru_source source)
{
	struct lru_snapshot snap;
	const struct lru_snapshot *p = &snap;

	lru_snapshot_init(&snap);
	tu_parse_file(rel, &snap);
	assert_true(snap.nr_lruvecs > 0);
	snap.source = source;
	lru_snapshot_set_times(&snap, 1733200000000, 1733200000037);
	assert_int_not_equal(snap.lruvecs[0].gens[0].birth_ms, 0);
	roundtrip(&p, 1);
	lru_snapshot_release(&snap);
}

/*
 * A synthetic snapshot that sets every field: host info, aging, nodes, two
 * memcgs with stats (one without lruvecs), an lruvec with full detail where
 * only some generations have tiers or walk stats, evicted marks.
 */
static void make_rich(struct lru_snapshot *snap)
{
	struct lru_error err;
	struct lru_lruvec *lv;
	size_t m, l;
	unsigned g, t;
	int type, c;

	lru_snapshot_init(snap);
	assert_int_equal(lru_strdup_into(&snap->host.host, "web-17.example", &err), LRU_OK);
	assert_int_equal(lru_strdup_into(&snap->host.boot_id, "3f1c1e5c-5f0e-4b8e-9d1c-6ad0c9d5b7aa",
					 &err), LRU_OK);
	assert_int_equal(lru_strdup_into(&snap->host.kernel, "6.12.117+deb12-amd64", &err), LRU_OK);
	snap->host.seq = 123456789012ULL;
	snap->host.enabled = 0x7;
	snap->host.aging.enabled = true;
	snap->host.aging.interval_ms = 30000;
	snap->host.aging.jitter_ms = 1234;
	snap->host.aging.can_swap = true;
	snap->host.aging.force_scan = false;
	snap->source = LRU_SRC_CGROUP;
	snap->page_size = 65536;
	snap->nr_duplicates = 3;

	snap->nodes = calloc(2, sizeof(*snap->nodes));
	assert_non_null(snap->nodes);
	snap->nr_nodes = 2;
	snap->nodes[0] = (struct lru_node_mem){ 0, 1ULL << 33, 1ULL << 30, 123456789, 987654321 };
	snap->nodes[1] = (struct lru_node_mem){ 3, 1ULL << 34, 5, 6, 7 };

	assert_int_equal(lru_snapshot_add_memcg(snap, 70000, "/jobs/web", 9, &m, &err), LRU_OK);
	snap->memcgs[m].ino = 4242;
	snap->memcgs[m].has_stats = true;
	snap->memcgs[m].stats = (struct lru_memcg_stats){
		.anon_bytes = 1, .file_bytes = 2, .inactive_file_bytes = 3, .current_bytes = 4,
		.refault_anon = 5, .refault_file = 6, .pgsteal = 7, .some_avg10 = 1.25, .full_avg10 = 0.5,
		.some_total_us = 7, .thp_bytes = 8,
	};
	snap->host.warnings = LRU_HOSTW_DAMON;
	assert_int_equal(lru_snapshot_add_lruvec(snap, m, 0, &l, &err), LRU_OK);
	lv = &snap->lruvecs[l];
	lv->warnings = LRU_WARN_THP_UNAGED;
	lv->nr_gens = 4;
	for (g = 0; g < 4; g++) {
		lv->gens[g].seq = 40 + g;
		lv->gens[g].age_ms = 4000 - 1000 * g;
		lv->gens[g].pages[LRU_ANON] = 100 + g;
		lv->gens[g].pages[LRU_FILE] = (1ULL << 40) + g;
	}
	lv->gens[0].evicted = 1u << LRU_ANON;
	lv->gens[1].evicted = 1u << LRU_FILE;
	lv->full = calloc(1, sizeof(*lv->full));
	assert_non_null(lv->full);
	for (g = 0; g < 4; g++) {
		if (g == 1)
			continue;	/* a generation without tiers */
		lv->full->has_tiers[g] = true;
		for (t = 0; t < LRU_NR_TIERS; t++) {
			for (type = 0; type < LRU_NR_TYPES; type++)
				for (c = 0; c < LRU_TC_NR; c++)
					lv->full->tiers[g][t].v[type][c] =
						1000u * g + 100u * t + 10u * type + c + 1;
			lv->full->tiers[g][t].present = (0x2a5u + g + t) & 0x3ff;
		}
	}
	lv->full->has_walk[3] = true;
	lv->full->walk[3] = (struct lru_walk){ { 11, 12, 13, 14, 15, 16 }, 0x35 };
	lv->full->has_walk[2] = true;	/* printed, all slots 'x' */
	lv->full->has_walk[1] = true;	/* a walk without tiers */
	lv->full->walk[1] = (struct lru_walk){ { 1, 0, 0, 0, 0, 0 }, 0x1 };

	assert_int_equal(lru_snapshot_add_lruvec(snap, m, 3, &l, &err), LRU_OK);
	lv = &snap->lruvecs[l];
	lv->nr_gens = 1;
	lv->gens[0].seq = UINT64_MAX;
	lv->gens[0].age_ms = UINT32_MAX;

	/* a memcg that only has stats: decodes with id 0 after the others */
	assert_int_equal(lru_snapshot_add_memcg(snap, 0, "/idle", 5, &m, &err), LRU_OK);
	snap->memcgs[m].ino = 77;
	snap->memcgs[m].has_stats = true;
	snap->memcgs[m].stats.current_bytes = 1ULL << 50;
	snap->memcgs[m].stats.some_avg10 = 99.5;

	lru_snapshot_set_times(snap, 1733200000000, 1733200000250);
}

/* ---- what the wire carries ------------------------------------------------------ */

/*
 * snaps encoded, and the bytes unpacked by protobuf-c alone (no validation):
 * the messages exactly as the wire carries them. Free with wire_free().
 */
static Lrugen__V1__SnapshotBatch *wire_batch(const struct lru_snapshot *const *snaps, size_t n,
					     uint8_t **bytes, size_t *len)
{
	Lrugen__V1__SnapshotBatch *batch;
	struct lru_error err;

	lru_error_clear(&err);
	if (lru_pb_encode_batch(snaps, n, bytes, len, &err))
		fail_msg("encode: %s", err.msg);
	batch = lrugen__v1__snapshot_batch__unpack(NULL, *len, *bytes);
	assert_non_null(batch);
	assert_int_equal(batch->n_snapshots, n);
	return batch;
}

static void wire_free(Lrugen__V1__SnapshotBatch *batch)
{
	lrugen__v1__snapshot_batch__free_unpacked(batch, NULL);
}

/* The HostSnapshot of snap as the wire carries it; wire_free(*batch) frees it. */
static Lrugen__V1__HostSnapshot *wire_host(const struct lru_snapshot *snap,
					   Lrugen__V1__SnapshotBatch **batch)
{
	uint8_t *bytes;
	size_t len;

	*batch = wire_batch(&snap, 1, &bytes, &len);
	free(bytes);
	return (*batch)->snapshots[0];
}

#define WIRE_EQ(what, got, want)                                                              \
	do {                                                                                  \
		unsigned long long got_ = (unsigned long long)(got);                          \
		unsigned long long want_ = (unsigned long long)(want);                        \
		if (got_ != want_)                                                            \
			fail_msg("%s: %s is %llu, expected %llu", what, #got, got_, want_);   \
	} while (0)

/* A string field: s, or its LRU_ESC_UTF8 form when s is not UTF-8 (lru_pb.h). */
static void wire_str_eq(const char *what, const char *got, const char *s)
{
	struct lru_buf want;

	lru_buf_init(&want);
	if (s && lru_esc_buf(&want, s, strlen(s), LRU_ESC_UTF8, NULL))
		fail_msg("%s: escaping failed", what);
	if (strcmp(got, s ? (const char *)want.data : ""))
		fail_msg("%s: string '%.60s', expected '%.60s'", what, got,
			 s ? (const char *)want.data : "");
	assert_true(lru_utf8_valid(got, strlen(got)));
	lru_buf_release(&want);
}

/* 0.0 for -0.0 (left out), NaN for NaN */
static void wire_double_eq(const char *what, double got, double want)
{
	if (isnan(want) ? !isnan(got) : got != want)
		fail_msg("%s: %g, expected %g", what, got, want);
}

static void wire_warnings_eq(const char *what, char **names, size_t n, uint32_t mask, bool host)
{
	size_t i = 0;

	for (uint32_t bit = 1; bit && bit <= mask; bit <<= 1) {
		const char *name = !(mask & bit) ? NULL : host ? lru_hostwarn_name(bit)
								: lru_warn_name(bit);

		if (!name)
			continue;
		if (i >= n || strcmp(names[i], name))
			fail_msg("%s: warning %zu is '%s', expected '%s'", what, i,
				 i < n ? names[i] : "(none)", name);
		i++;
	}
	WIRE_EQ(what, n, i);
}

static void wire_tiers_eq(const char *what, const Lrugen__V1__Generation *gm,
			  const struct lru_tier *tiers)
{
	for (unsigned t = 0; t < LRU_NR_TIERS; t++) {
		const Lrugen__V1__Tier *tm = gm->tiers[t];

		WIRE_EQ(what, tm->tier, t);
		for (int type = 0; type < LRU_NR_TYPES; type++) {
			const Lrugen__V1__TierCounters *tc = type == LRU_ANON ? tm->anon : tm->file;
			const uint64_t *v = tiers[t].v[type];

			assert_non_null(tc);
			WIRE_EQ(what, tc->refaulted, v[LRU_TC_REFAULTED]);
			WIRE_EQ(what, tc->evicted, v[LRU_TC_EVICTED]);
			WIRE_EQ(what, tc->protected_, v[LRU_TC_PROTECTED]);
			WIRE_EQ(what, tc->avg_refaulted, v[LRU_TC_AVG_REFAULTED]);
			WIRE_EQ(what, tc->avg_total, v[LRU_TC_AVG_TOTAL]);
			WIRE_EQ(what, tc->present,
				(tiers[t].present >> (type * LRU_TC_NR)) & ((1u << LRU_TC_NR) - 1));
		}
	}
}

static void wire_gen_eq(const char *what, const Lrugen__V1__Generation *gm,
			const struct lru_lruvec *lv, unsigned g)
{
	const struct lru_gen *gen = &lv->gens[g];
	bool tiers = lv->full && lv->full->has_tiers[g], walk = lv->full && lv->full->has_walk[g];

	WIRE_EQ(what, gm->seq, gen->seq);
	WIRE_EQ(what, gm->age_ms, gen->age_ms);
	WIRE_EQ(what, gm->birth_ms, gen->birth_ms);
	WIRE_EQ(what, gm->anon_pages, gen->pages[LRU_ANON]);
	WIRE_EQ(what, gm->file_pages, gen->pages[LRU_FILE]);
	WIRE_EQ(what, gm->anon_evicted, !!(gen->evicted & (1u << LRU_ANON)));
	WIRE_EQ(what, gm->file_evicted, !!(gen->evicted & (1u << LRU_FILE)));
	WIRE_EQ(what, gm->n_tiers, tiers ? LRU_NR_TIERS : 0);
	if (tiers)
		wire_tiers_eq(what, gm, lv->full->tiers[g]);
	WIRE_EQ(what, gm->walk != NULL, walk);
	if (walk) {
		const struct lru_walk *w = &lv->full->walk[g];

		WIRE_EQ(what, gm->walk->leaf_total, w->v[LRU_WALK_LEAF_TOTAL]);
		WIRE_EQ(what, gm->walk->leaf_old, w->v[LRU_WALK_LEAF_OLD]);
		WIRE_EQ(what, gm->walk->leaf_young, w->v[LRU_WALK_LEAF_YOUNG]);
		WIRE_EQ(what, gm->walk->nonleaf_total, w->v[LRU_WALK_NONLEAF_TOTAL]);
		WIRE_EQ(what, gm->walk->bloom_found, w->v[LRU_WALK_BLOOM_FOUND]);
		WIRE_EQ(what, gm->walk->bloom_added, w->v[LRU_WALK_BLOOM_ADDED]);
		WIRE_EQ(what, gm->walk->present, w->present & ((1u << LRU_WALK_NR) - 1));
	}
}

static void wire_lruvec_eq(const char *what, const Lrugen__V1__Lruvec *lm,
			   const struct lru_snapshot *snap, const struct lru_lruvec *lv)
{
	const struct lru_memcg *m = &snap->memcgs[lv->memcg];

	WIRE_EQ(what, lm->memcg_id, m->id);
	wire_str_eq(what, lm->memcg_path, m->path);
	WIRE_EQ(what, lm->memcg_inode, m->ino);
	WIRE_EQ(what, lm->node, lv->node);
	wire_warnings_eq(what, lm->warnings, lm->n_warnings, lv->warnings, false);
	WIRE_EQ(what, lm->n_generations, lv->nr_gens);
	for (unsigned g = 0; g < lv->nr_gens; g++)
		wire_gen_eq(what, lm->generations[g], lv, g);
}

static void wire_stats_eq(const char *what, const Lrugen__V1__MemcgStats *ms,
			  const struct lru_memcg *m)
{
	wire_str_eq(what, ms->memcg_path, m->path);
	WIRE_EQ(what, ms->memcg_inode, m->ino);
	WIRE_EQ(what, ms->anon_bytes, m->stats.anon_bytes);
	WIRE_EQ(what, ms->file_bytes, m->stats.file_bytes);
	WIRE_EQ(what, ms->inactive_file_bytes, m->stats.inactive_file_bytes);
	WIRE_EQ(what, ms->memory_current_bytes, m->stats.current_bytes);
	WIRE_EQ(what, ms->workingset_refault_anon, m->stats.refault_anon);
	WIRE_EQ(what, ms->workingset_refault_file, m->stats.refault_file);
	WIRE_EQ(what, ms->pgsteal, m->stats.pgsteal);
	wire_double_eq(what, ms->pressure_some_avg10, m->stats.some_avg10);
	wire_double_eq(what, ms->pressure_full_avg10, m->stats.full_avg10);
	WIRE_EQ(what, ms->pressure_some_total_us, m->stats.some_total_us);
	WIRE_EQ(what, ms->thp_bytes, m->stats.thp_bytes);
}

/* Every field of the message against the snapshot it was made of (lrugen.proto). */
static void wire_host_eq(const char *what, const Lrugen__V1__HostSnapshot *h,
			 const struct lru_snapshot *snap)
{
	size_t i, n = 0;

	wire_str_eq(what, h->host, snap->host.host);
	wire_str_eq(what, h->boot_id, snap->host.boot_id);
	wire_str_eq(what, h->kernel_release, snap->host.kernel);
	WIRE_EQ(what, h->seq, snap->host.seq);
	WIRE_EQ(what, h->lru_gen_enabled, snap->host.enabled);
	WIRE_EQ(what, h->taken_at_ms, lru_sat_mid_i64(snap->read_start_ms, snap->read_end_ms));
	WIRE_EQ(what, h->read_start_ms, snap->read_start_ms);
	WIRE_EQ(what, h->read_end_ms, snap->read_end_ms);
	WIRE_EQ(what, h->birth_error_ms, snap->birth_error_ms);
	WIRE_EQ(what, h->page_size, snap->page_size);
	WIRE_EQ(what, h->duplicates_dropped, snap->nr_duplicates);
	WIRE_EQ(what, h->source, snap->source);
	wire_warnings_eq(what, h->warnings, h->n_warnings, snap->host.warnings, true);
	assert_non_null(h->aging);
	WIRE_EQ(what, h->aging->enabled, snap->host.aging.enabled);
	WIRE_EQ(what, h->aging->interval_ms, snap->host.aging.interval_ms);
	WIRE_EQ(what, h->aging->jitter_ms, snap->host.aging.jitter_ms);
	WIRE_EQ(what, h->aging->can_swap, snap->host.aging.can_swap);
	WIRE_EQ(what, h->aging->force_scan, snap->host.aging.force_scan);
	WIRE_EQ(what, h->n_nodes, snap->nr_nodes);
	for (i = 0; i < snap->nr_nodes; i++) {
		WIRE_EQ(what, h->nodes[i]->node, snap->nodes[i].node);
		WIRE_EQ(what, h->nodes[i]->total_bytes, snap->nodes[i].total);
		WIRE_EQ(what, h->nodes[i]->free_bytes, snap->nodes[i].free);
		WIRE_EQ(what, h->nodes[i]->file_bytes, snap->nodes[i].file);
		WIRE_EQ(what, h->nodes[i]->anon_bytes, snap->nodes[i].anon);
	}
	WIRE_EQ(what, h->n_lruvecs, snap->nr_lruvecs);
	for (i = 0; i < snap->nr_lruvecs; i++)
		wire_lruvec_eq(what, h->lruvecs[i], snap, &snap->lruvecs[i]);
	for (i = 0; i < snap->nr_memcgs; i++) {
		if (!snap->memcgs[i].has_stats)
			continue;
		assert_true(n < h->n_memcg_stats);
		wire_stats_eq(what, h->memcg_stats[n++], &snap->memcgs[i]);
	}
	WIRE_EQ(what, h->n_memcg_stats, n);
}

/*
 * Encode snaps and check what protobuf-c unpacks against every field of
 * them, and that packing the unpacked batch again gives the same bytes.
 */
static void assert_wire_matches(const struct lru_snapshot *const *snaps, size_t n,
				const char *what)
{
	Lrugen__V1__SnapshotBatch *batch;
	uint8_t *bytes, *again;
	size_t len, i;

	batch = wire_batch(snaps, n, &bytes, &len);
	for (i = 0; i < n; i++)
		wire_host_eq(what, batch->snapshots[i], snaps[i]);
	WIRE_EQ(what, lrugen__v1__snapshot_batch__get_packed_size(batch), len);
	again = malloc(len ? len : 1);
	assert_non_null(again);
	WIRE_EQ(what, lrugen__v1__snapshot_batch__pack(batch, again), len);
	if (memcmp(again, bytes, len))
		fail_msg("%s: the unpacked batch packs to other bytes", what);
	free(again);
	free(bytes);
	wire_free(batch);
}

/* ---- round trips ------------------------------------------------------------ */

static void test_roundtrip_61_lru_gen(void **state)
{
	(void)state;
	roundtrip_fixture("fixtures/linux-6.1/lru_gen.txt", LRU_SRC_DEBUGFS);
}

static void test_roundtrip_61_lru_gen_idle(void **state)
{
	(void)state;
	roundtrip_fixture("fixtures/linux-6.1/lru_gen-idle.txt", LRU_SRC_DEBUGFS);
}

static void test_roundtrip_61_lru_gen_full(void **state)
{
	(void)state;
	roundtrip_fixture("fixtures/linux-6.1/lru_gen_full.txt", LRU_SRC_DEBUGFS_FULL);
}

static void test_roundtrip_612_lru_gen(void **state)
{
	(void)state;
	roundtrip_fixture("fixtures/linux-6.12/lru_gen.txt", LRU_SRC_DEBUGFS);
}

static void test_roundtrip_612_lru_gen_full(void **state)
{
	(void)state;
	roundtrip_fixture("fixtures/linux-6.12/lru_gen_full.txt", LRU_SRC_DEBUGFS_FULL);
}

static void test_roundtrip_rich_snapshot(void **state)
{
	struct lru_snapshot snap;
	const struct lru_snapshot *p = &snap;

	(void)state;
	make_rich(&snap);
	roundtrip(&p, 1);
	lru_snapshot_release(&snap);
}

static void test_roundtrip_batch(void **state)
{
	struct lru_snapshot s[3];
	const struct lru_snapshot *p[3] = { &s[0], &s[1], &s[2] };

	(void)state;
	lru_snapshot_init(&s[0]);
	tu_parse_file("fixtures/linux-6.1/lru_gen_full.txt", &s[0]);
	s[0].source = LRU_SRC_DEBUGFS_FULL;
	make_rich(&s[1]);
	lru_snapshot_init(&s[2]);
	tu_parse_file("fixtures/linux-6.12/lru_gen.txt", &s[2]);
	s[2].host.seq = 2;
	lru_snapshot_set_times(&s[2], 5, 9);
	roundtrip(p, 3);
	lru_snapshot_release(&s[0]);
	lru_snapshot_release(&s[1]);
	lru_snapshot_release(&s[2]);
}

static void test_roundtrip_empty_batch(void **state)
{
	struct lru_snapshot *out = (struct lru_snapshot *)&out;
	struct lru_snapshot empty;
	const struct lru_snapshot *p = &empty;
	struct lru_error err;
	uint8_t *buf;
	size_t len, n = 99;

	(void)state;
	assert_int_equal(lru_pb_encode_batch(NULL, 0, &buf, &len, &err), LRU_OK);
	assert_non_null(buf);
	assert_int_equal(len, 0);
	assert_int_equal(lru_pb_decode_batch(buf, len, &out, &n, &err), LRU_OK);
	assert_int_equal(n, 0);
	assert_null(out);
	free(buf);
	assert_int_equal(lru_pb_decode_batch(NULL, 0, &out, &n, &err), LRU_OK);
	assert_int_equal(n, 0);
	lru_pb_free_snapshots(NULL, 0);

	/* a snapshot without lruvecs survives too */
	lru_snapshot_init(&empty);
	empty.host.seq = 9;
	roundtrip(&p, 1);
}

/* ---- the wire layout ------------------------------------------------------------ */

static void test_host_message_fields(void **state)
{
	Lrugen__V1__SnapshotBatch *batch;
	Lrugen__V1__HostSnapshot *msg;
	const Lrugen__V1__Generation *gm;
	const Lrugen__V1__Lruvec *lm;
	struct lru_snapshot snap;
	size_t i;

	(void)state;
	lru_snapshot_init(&snap);
	tu_parse_file("fixtures/linux-6.1/lru_gen_full.txt", &snap);
	snap.source = LRU_SRC_DEBUGFS_FULL;
	lru_snapshot_set_times(&snap, 1000, 1101);
	msg = wire_host(&snap, &batch);

	assert_int_equal(msg->taken_at_ms, 1050);
	assert_int_equal(msg->read_start_ms, 1000);
	assert_int_equal(msg->read_end_ms, 1101);
	assert_int_equal(msg->birth_error_ms, snap.birth_error_ms);
	assert_int_equal(msg->page_size, 4096);
	assert_int_equal(msg->source, LRUGEN__V1__SOURCE__SOURCE_DEBUGFS_LRU_GEN_FULL);
	assert_string_equal(msg->host, "");
	assert_non_null(msg->aging);
	assert_int_equal(msg->n_memcg_stats, 0);
	assert_int_equal(msg->n_lruvecs, 8);
	for (i = 0; i < msg->n_lruvecs; i++) {
		lm = msg->lruvecs[i];
		assert_string_equal(lm->memcg_path,
				    snap.memcgs[snap.lruvecs[i].memcg].path);
		assert_int_equal(lm->memcg_id, snap.memcgs[snap.lruvecs[i].memcg].id);
		assert_int_equal(lm->n_generations, 4);
	}
	/* memcg 3 /jobs/web node 1: 21003 pages in gen 3, 9728 in gen 5 */
	lm = msg->lruvecs[5];
	assert_string_equal(lm->memcg_path, "/jobs/web");
	assert_int_equal(lm->memcg_id, 3);
	assert_int_equal(lm->node, 1);
	assert_int_equal(lm->generations[0]->seq, 3);
	assert_int_equal(lm->generations[0]->anon_pages, 21003);
	assert_int_equal(lm->generations[2]->anon_pages, 9728);
	assert_int_equal(lm->generations[2]->age_ms, 4196);
	assert_int_equal(lm->generations[2]->birth_ms, 1050 - 4196);

	/* root node 0: the oldest gen prints r e p, the youngest R T and L O Y N F A */
	lm = msg->lruvecs[0];
	gm = lm->generations[0];
	assert_int_equal(gm->n_tiers, LRU_NR_TIERS);
	for (i = 0; i < LRU_NR_TIERS; i++) {
		assert_int_equal(gm->tiers[i]->tier, i);
		assert_int_equal(gm->tiers[i]->anon->present, 0x07);
		assert_int_equal(gm->tiers[i]->file->present, 0x07);
	}
	/* older generations print unsuffixed zeros: a walk line with nothing present */
	assert_non_null(gm->walk);
	assert_int_equal(gm->walk->present, 0);
	gm = lm->generations[3];
	assert_int_equal(gm->tiers[2]->anon->present, 0x18);
	assert_int_equal(gm->tiers[2]->file->present, 0x18);
	assert_int_equal(gm->walk->leaf_total, 1677);
	assert_int_equal(gm->walk->leaf_old, 712);
	assert_int_equal(gm->walk->leaf_young, 533);
	assert_int_equal(gm->walk->nonleaf_total, 9);
	assert_int_equal(gm->walk->bloom_found, 9);
	assert_int_equal(gm->walk->bloom_added, 1);
	assert_int_equal(gm->walk->present, 0x3f);
	wire_free(batch);
	lru_snapshot_release(&snap);

	/* lru_gen (not full): no tiers or walk; 6.12 walk prints T Y F A */
	lru_snapshot_init(&snap);
	tu_parse_file("fixtures/linux-6.12/lru_gen.txt", &snap);
	msg = wire_host(&snap, &batch);
	assert_int_equal(msg->lruvecs[0]->generations[0]->n_tiers, 0);
	assert_null(msg->lruvecs[0]->generations[0]->walk);
	wire_free(batch);
	lru_snapshot_release(&snap);

	lru_snapshot_init(&snap);
	tu_parse_file("fixtures/linux-6.12/lru_gen_full.txt", &snap);
	msg = wire_host(&snap, &batch);
	lm = msg->lruvecs[4];
	assert_string_equal(lm->memcg_path, "/jobs/web");
	assert_int_equal(lm->node, 0);
	gm = lm->generations[3];
	assert_int_equal(gm->walk->present, 0x35);
	assert_int_equal(gm->walk->leaf_total, 3969);
	assert_int_equal(gm->walk->leaf_young, 2161);
	assert_int_equal(gm->walk->bloom_found, 18);
	assert_int_equal(gm->walk->bloom_added, 7);
	assert_int_equal(lm->generations[0]->walk->present, 0);
	assert_int_equal(lm->generations[1]->tiers[0]->anon->present, 0);
	wire_free(batch);
	lru_snapshot_release(&snap);
}

static void test_host_message_rich_fields(void **state)
{
	Lrugen__V1__SnapshotBatch *batch;
	Lrugen__V1__HostSnapshot *msg;
	const Lrugen__V1__Generation *gm;
	struct lru_snapshot snap;

	(void)state;
	make_rich(&snap);
	msg = wire_host(&snap, &batch);
	assert_string_equal(msg->host, "web-17.example");
	assert_string_equal(msg->kernel_release, "6.12.117+deb12-amd64");
	assert_int_equal(msg->seq, 123456789012ULL);
	assert_int_equal(msg->lru_gen_enabled, 7);
	assert_int_equal(msg->aging->interval_ms, 30000);
	assert_int_equal(msg->aging->jitter_ms, 1234);
	assert_true(msg->aging->enabled);
	assert_true(msg->aging->can_swap);
	assert_false(msg->aging->force_scan);
	assert_int_equal(msg->source, LRUGEN__V1__SOURCE__SOURCE_CGROUP_MEMORY_LRU_GEN);
	assert_int_equal(msg->duplicates_dropped, 3);
	assert_int_equal(msg->page_size, 65536);
	assert_int_equal(msg->taken_at_ms, 1733200000125);
	assert_int_equal(msg->n_nodes, 2);
	assert_int_equal(msg->nodes[1]->node, 3);
	assert_int_equal(msg->nodes[1]->total_bytes, 1ULL << 34);
	assert_int_equal(msg->nodes[1]->free_bytes, 5);
	assert_int_equal(msg->nodes[1]->file_bytes, 6);
	assert_int_equal(msg->nodes[1]->anon_bytes, 7);

	assert_int_equal(msg->n_lruvecs, 2);
	assert_int_equal(msg->lruvecs[0]->memcg_inode, 4242);
	assert_int_equal(msg->lruvecs[1]->memcg_inode, 4242);
	assert_int_equal(msg->lruvecs[1]->memcg_id, 70000);
	gm = msg->lruvecs[0]->generations[0];
	assert_true(gm->anon_evicted);
	assert_false(gm->file_evicted);
	assert_false(msg->lruvecs[0]->generations[1]->anon_evicted);
	assert_true(msg->lruvecs[0]->generations[1]->file_evicted);
	assert_int_equal(msg->lruvecs[0]->generations[1]->n_tiers, 0);
	assert_int_equal(msg->lruvecs[0]->generations[1]->walk->present, 0x1);
	assert_null(msg->lruvecs[0]->generations[0]->walk);
	/* tier 1 of gen 0: present (0x2a5 + 1) = 0x2a6: anon bits 0..4, file 5..9 */
	assert_int_equal(gm->tiers[1]->anon->present, 0x2a6 & 0x1f);
	assert_int_equal(gm->tiers[1]->file->present, (0x2a6 >> LRU_TC_NR) & 0x1f);
	assert_int_equal(gm->tiers[1]->anon->refaulted, 101);
	assert_int_equal(gm->tiers[1]->anon->avg_total, 105);
	assert_int_equal(gm->tiers[1]->file->evicted, 112);
	assert_int_equal(gm->tiers[1]->file->protected_, 113);
	assert_int_equal(gm->tiers[1]->file->avg_refaulted, 114);
	gm = msg->lruvecs[0]->generations[3];
	assert_int_equal(gm->walk->present, 0x35);
	assert_int_equal(gm->walk->leaf_old, 12);
	assert_int_equal(gm->walk->bloom_added, 16);

	assert_int_equal(msg->n_memcg_stats, 2);
	assert_string_equal(msg->memcg_stats[0]->memcg_path, "/jobs/web");
	assert_int_equal(msg->memcg_stats[0]->memcg_inode, 4242);
	assert_int_equal(msg->memcg_stats[0]->anon_bytes, 1);
	assert_int_equal(msg->memcg_stats[0]->file_bytes, 2);
	assert_int_equal(msg->memcg_stats[0]->inactive_file_bytes, 3);
	assert_int_equal(msg->memcg_stats[0]->memory_current_bytes, 4);
	assert_int_equal(msg->memcg_stats[0]->workingset_refault_anon, 5);
	assert_int_equal(msg->memcg_stats[0]->workingset_refault_file, 6);
	assert_true(msg->memcg_stats[0]->pressure_some_avg10 == 1.25);
	assert_true(msg->memcg_stats[0]->pressure_full_avg10 == 0.5);
	assert_int_equal(msg->memcg_stats[0]->pressure_some_total_us, 7);
	assert_int_equal(msg->memcg_stats[0]->thp_bytes, 8);
	assert_string_equal(msg->memcg_stats[1]->memcg_path, "/idle");
	assert_int_equal(msg->n_warnings, 1);
	assert_string_equal(msg->warnings[0], "damon_active");
	assert_int_equal(msg->lruvecs[0]->n_warnings, 1);
	assert_string_equal(msg->lruvecs[0]->warnings[0], "thp_unaged");
	assert_int_equal(msg->lruvecs[1]->n_warnings, 0);
	wire_free(batch);
	lru_snapshot_release(&snap);
}

static void test_midpoint_does_not_overflow(void **state)
{
	Lrugen__V1__SnapshotBatch *batch;
	Lrugen__V1__HostSnapshot *msg;
	struct lru_snapshot snap;

	(void)state;
	lru_snapshot_init(&snap);
	snap.read_start_ms = INT64_MIN;
	snap.read_end_ms = INT64_MAX;
	msg = wire_host(&snap, &batch);
	assert_int_equal(msg->taken_at_ms, -1);
	wire_free(batch);
	snap.read_start_ms = 10;
	snap.read_end_ms = 4;	/* end before start: the start */
	msg = wire_host(&snap, &batch);
	assert_int_equal(msg->taken_at_ms, 10);
	wire_free(batch);
}

static void test_encode_rejects_broken_snapshot(void **state)
{
	struct lru_snapshot snap;
	const struct lru_snapshot *p = &snap;
	struct lru_error err;
	uint8_t *buf = (uint8_t *)&buf;
	size_t len = 5;

	(void)state;
	lru_snapshot_init(&snap);
	tu_parse_file("fixtures/linux-6.1/lru_gen.txt", &snap);
	snap.lruvecs[2].nr_gens = LRU_MAX_GENS + 1;
	assert_int_equal(lru_pb_encode_batch(&p, 1, &buf, &len, &err), LRU_EINVAL);
	assert_string_equal(err.msg, "snapshot 0 lruvec '/jobs' node 0: 5 generations (expected 1 to 4)");
	assert_null(buf);
	assert_int_equal(len, 0);
	snap.lruvecs[2].nr_gens = 4;
	snap.lruvecs[1].memcg = 99;
	assert_int_equal(lru_pb_encode_batch(&p, 1, &buf, &len, &err), LRU_EINVAL);
	assert_non_null(strstr(err.msg, "lruvec 1 refers to memcg 99"));
	snap.lruvecs[1].memcg = 0;
	snap.source = (enum lru_source)7;
	assert_int_equal(lru_pb_encode_batch(&p, 1, &buf, &len, &err), LRU_EINVAL);
	assert_string_equal(err.msg, "snapshot 0: unknown source 7");
	lru_snapshot_release(&snap);
}

/* ---- every field as the wire carries it ------------------------------------ */

static const char *const pb_fixtures[] = {
	"fixtures/linux-6.1/lru_gen.txt",  "fixtures/linux-6.1/lru_gen-idle.txt",
	"fixtures/linux-6.1/lru_gen_full.txt", "fixtures/linux-6.12/lru_gen.txt",
	"fixtures/linux-6.12/lru_gen_full.txt",
};

static void test_encode_fixtures_on_the_wire(void **state)
{
	struct lru_snapshot snap;
	const struct lru_snapshot *p = &snap;
	struct lru_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pb_fixtures) / sizeof(pb_fixtures[0]); i++) {
		lru_snapshot_init(&snap);
		tu_parse_file(pb_fixtures[i], &snap);
		snap.source = snap.lruvecs[0].full ? LRU_SRC_DEBUGFS_FULL : LRU_SRC_DEBUGFS;
		/* as parsed: no host strings, no times */
		assert_wire_matches(&p, 1, pb_fixtures[i]);
		/* as the collector sends it */
		lru_snapshot_set_times(&snap, 1733200000000, 1733200000037);
		assert_int_equal(lru_strdup_into(&snap.host.host, "web-17.example", &err), 0);
		assert_int_equal(lru_strdup_into(&snap.host.boot_id, "3f1c1e5c-5f0e", &err), 0);
		assert_int_equal(lru_strdup_into(&snap.host.kernel, "6.1.0-57-amd64", &err), 0);
		snap.host.seq = 77;
		snap.host.enabled = 7;
		snap.host.aging.enabled = true;
		snap.host.aging.interval_ms = 60000;
		snap.nr_duplicates = 2;
		assert_wire_matches(&p, 1, pb_fixtures[i]);
		lru_snapshot_release(&snap);
	}
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * A value for any integer field: 0, a varint length boundary (and the
 * values that are negative as int32 or int64), any magnitude, or small.
 */
static uint64_t rnd_value(uint64_t *s)
{
	static const uint64_t edges[] = {
		1, 0x7f, 0x80, 0x3fff, 0x4000, 0x1fffff, 0x200000, 0xfffffff, 0x10000000,
		0x7ffffffff, 0x800000000, 0x3ffffffffff, 0x40000000000, 0x1ffffffffffff,
		0x2000000000000, 0xffffffffffffff, 0x100000000000000, INT64_MAX,
		(uint64_t)INT64_MIN, UINT64_MAX, UINT32_MAX, INT32_MAX,
		(uint64_t)(int64_t)INT32_MIN, 0xffffffff80000000ULL, 1733200000000,
		(uint64_t)-1733200000000LL,
	};
	uint64_t r = splitmix(s);

	switch (r & 3) {
	case 0:
		return 0;
	case 1:
		return edges[(r >> 2) % (sizeof(edges) / sizeof(edges[0]))];
	case 2:
		return splitmix(s) >> ((r >> 2) % 64);
	default:
		return (r >> 2) % 300;
	}
}

static double rnd_double(uint64_t *s, bool wild)
{
	static const double values[] = { 0.0, -0.0, 0.25, -1.5, 99.99, 1e300, -1e-300, 5e-324,
					 INFINITY, -INFINITY, NAN, -NAN };
	size_t n = sizeof(values) / sizeof(values[0]) - (wild ? 0 : 4);

	return values[splitmix(s) % n];
}

static char *rnd_string(uint64_t *s, const char *prefix)
{
	size_t n = strlen(prefix), len = 0, i;
	char *str;

	switch (splitmix(s) % 4) {
	case 0:
		break;
	case 1:
		len = splitmix(s) % 20;
		break;
	case 2:
		len = 100 + splitmix(s) % 60; /* around the one-byte length limit */
		break;
	default:
		len = 16370 + splitmix(s) % 30; /* around the two-byte limit of a Lruvec */
		break;
	}
	str = malloc(n + len + 1);
	assert_non_null(str);
	memcpy(str, prefix, n);
	for (i = 0; i < len; i++)
		str[n + i] = (char)('a' + splitmix(s) % 26);
	str[n + len] = '\0';
	return str;
}

static void rnd_full(uint64_t *s, struct lru_lruvec *lv, bool wild)
{
	unsigned g, t;
	int type, c;
	bool any = false;

	lv->full = calloc(1, sizeof(*lv->full));
	assert_non_null(lv->full);
	for (g = 0; g < lv->nr_gens; g++) {
		lv->full->has_tiers[g] = splitmix(s) % 3 != 0;
		lv->full->has_walk[g] = splitmix(s) % 3 != 0;
		if (lv->full->has_tiers[g] || wild) {
			for (t = 0; t < LRU_NR_TIERS; t++) {
				struct lru_tier *tier = &lv->full->tiers[g][t];

				for (type = 0; type < LRU_NR_TYPES; type++)
					for (c = 0; c < LRU_TC_NR; c++)
						tier->v[type][c] =
							splitmix(s) % 3 ? 0 : rnd_value(s);
				tier->present = (uint32_t)splitmix(s) &
						(wild ? UINT32_MAX : (1u << (2 * LRU_TC_NR)) - 1);
				if (splitmix(s) % 4 == 0)
					memset(tier, 0, sizeof(*tier));
			}
		}
		if (lv->full->has_walk[g] || wild) {
			for (c = 0; c < LRU_WALK_NR; c++)
				lv->full->walk[g].v[c] = splitmix(s) % 2 ? 0 : rnd_value(s);
			lv->full->walk[g].present = (uint32_t)splitmix(s) &
						    (wild ? UINT32_MAX : (1u << LRU_WALK_NR) - 1);
		}
		any |= lv->full->has_tiers[g] || lv->full->has_walk[g];
	}
	if (!any && !wild) {
		/* nothing would come back from a decode: no detail at all */
		free(lv->full);
		lv->full = NULL;
	}
}

/*
 * A random snapshot. wild: anything the encoder accepts (negative nodes, NULL
 * and empty strings, repeated lruvecs, NaN, unknown present and evicted
 * bits, detail without tiers or walk); otherwise one that decodes back to
 * itself (see lru_pb.h): memcgs in order of first use by the lruvecs, then
 * memcgs with stats only (id 0), distinct (path, inode), distinct nodes,
 * contiguous seqs, power-of-two page sizes, no NaN.
 */
static void make_random(struct lru_snapshot *snap, uint64_t seed, bool wild)
{
	uint64_t s = seed;
	struct lru_error err;
	size_t nr_memcgs = splitmix(&s) % 6, nr_stats_only = splitmix(&s) % 3, i, m, l;
	uint64_t id;
	unsigned g;
	int node, at;

	lru_snapshot_init(snap);
	if (wild || splitmix(&s) % 2)
		snap->host.host = rnd_string(&s, "h");
	if (wild || splitmix(&s) % 2)
		snap->host.boot_id = rnd_string(&s, wild ? "" : "b");
	if (wild || splitmix(&s) % 2)
		snap->host.kernel = rnd_string(&s, "6.");
	snap->host.seq = rnd_value(&s);
	snap->host.enabled = (uint32_t)rnd_value(&s);
	snap->host.aging.enabled = splitmix(&s) % 2;
	snap->host.aging.interval_ms = (uint32_t)rnd_value(&s);
	snap->host.aging.jitter_ms = (uint32_t)rnd_value(&s);
	snap->host.aging.can_swap = splitmix(&s) % 2;
	snap->host.aging.force_scan = splitmix(&s) % 2;
	snap->source = (enum lru_source)(splitmix(&s) % 3);
	snap->page_size = wild ? (uint32_t)rnd_value(&s) : 1u << (12 + splitmix(&s) % 5);
	snap->read_start_ms = (int64_t)rnd_value(&s);
	snap->read_end_ms = (int64_t)rnd_value(&s);
	snap->birth_error_ms = (uint32_t)rnd_value(&s);
	snap->nr_duplicates = (uint32_t)rnd_value(&s);

	snap->nr_nodes = splitmix(&s) % 4;
	if (snap->nr_nodes) {
		snap->nodes = calloc(snap->nr_nodes, sizeof(*snap->nodes));
		assert_non_null(snap->nodes);
	}
	for (i = 0; i < snap->nr_nodes; i++) {
		struct lru_node_mem *nm = &snap->nodes[i];

		nm->node = wild ? (int)(int32_t)rnd_value(&s) : (int)(i * 7 % (LRU_NODE_MAX + 1));
		nm->total = rnd_value(&s);
		nm->free = rnd_value(&s);
		nm->file = rnd_value(&s);
		nm->anon = rnd_value(&s);
	}

	for (i = 0; i < nr_memcgs + nr_stats_only; i++) {
		char prefix[32];
		char *path;
		struct lru_memcg *mc;

		snprintf(prefix, sizeof(prefix), i ? "/m%zu/" : "/", i);
		path = rnd_string(&s, prefix);
		if (!wild && strlen(path) > LRU_PATH_MAX)
			path[LRU_PATH_MAX] = '\0';
		id = i < nr_memcgs ? rnd_value(&s) : 0;
		assert_int_equal(lru_snapshot_add_memcg(snap, id, path, strlen(path), &m, &err),
				 LRU_OK);
		free(path);
		mc = &snap->memcgs[m];
		if (wild && splitmix(&s) % 5 == 0) {
			free(mc->path);
			mc->path = splitmix(&s) % 2 ? NULL : strdup("");
		}
		mc->ino = rnd_value(&s);
		mc->has_stats = i >= nr_memcgs || splitmix(&s) % 2;
		if (!mc->has_stats)
			continue;
		mc->stats.anon_bytes = rnd_value(&s);
		mc->stats.file_bytes = rnd_value(&s);
		mc->stats.inactive_file_bytes = rnd_value(&s);
		mc->stats.current_bytes = rnd_value(&s);
		mc->stats.refault_anon = rnd_value(&s);
		mc->stats.refault_file = rnd_value(&s);
		mc->stats.some_avg10 = rnd_double(&s, wild);
		mc->stats.full_avg10 = rnd_double(&s, wild);
		mc->stats.some_total_us = rnd_value(&s);
		mc->stats.thp_bytes = rnd_value(&s);
	}
	snap->host.warnings = (uint32_t)(splitmix(&s) & LRU_HOSTW_ALL);

	for (i = 0; i < nr_memcgs; i++) {
		for (node = 0; node < 4; node++) {
			struct lru_lruvec *lv;
			uint64_t base;

			if (node && splitmix(&s) % 2)
				continue;
			m = wild ? splitmix(&s) % nr_memcgs : i;
			at = wild ? (int)(int32_t)rnd_value(&s) : node;
			assert_int_equal(lru_snapshot_add_lruvec(snap, m, at, &l, &err), LRU_OK);
			lv = &snap->lruvecs[l];
			lv->nr_gens = 1 + (unsigned)(splitmix(&s) % LRU_MAX_GENS);
			lv->warnings = (uint32_t)(splitmix(&s) & LRU_WARN_ALL);
			base = rnd_value(&s);
			if (base > UINT64_MAX - LRU_MAX_GENS)
				base -= LRU_MAX_GENS;
			for (g = 0; g < lv->nr_gens; g++) {
				struct lru_gen *gen = &lv->gens[g];

				gen->seq = wild ? rnd_value(&s) : base + g;
				gen->age_ms = (uint32_t)rnd_value(&s);
				gen->birth_ms = (int64_t)rnd_value(&s);
				gen->pages[LRU_ANON] = rnd_value(&s);
				gen->pages[LRU_FILE] = rnd_value(&s);
				gen->evicted = (uint8_t)(splitmix(&s) & (wild ? 0xff : 3));
			}
			if (splitmix(&s) % 2)
				rnd_full(&s, lv, wild);
		}
	}
}

static void test_encode_random_on_the_wire(void **state)
{
	struct lru_snapshot snaps[4];
	const struct lru_snapshot *p[4] = { &snaps[0], &snaps[1], &snaps[2], &snaps[3] };
	char what[64];
	uint64_t seed;
	size_t n, i;

	(void)state;
	for (seed = 1; seed <= 400; seed++) {
		make_random(&snaps[0], seed, seed % 2);
		snprintf(what, sizeof(what), "random snapshot %llu", (unsigned long long)seed);
		assert_wire_matches(p, 1, what);
		lru_snapshot_release(&snaps[0]);
	}
	for (seed = 1; seed <= 40; seed++) {
		n = 1 + seed % 4;
		for (i = 0; i < n; i++)
			make_random(&snaps[i], seed * 1000 + i, (seed + i) % 2);
		snprintf(what, sizeof(what), "random batch %llu", (unsigned long long)seed);
		assert_wire_matches(p, n, what);
		for (i = 0; i < n; i++)
			lru_snapshot_release(&snaps[i]);
	}
}

static void test_roundtrip_random(void **state)
{
	struct lru_snapshot snaps[3];
	const struct lru_snapshot *p[3] = { &snaps[0], &snaps[1], &snaps[2] };
	uint64_t seed;
	size_t i;

	(void)state;
	for (seed = 1; seed <= 200; seed++) {
		make_random(&snaps[0], seed, false);
		roundtrip(p, 1);
		lru_snapshot_release(&snaps[0]);
	}
	for (i = 0; i < 3; i++)
		make_random(&snaps[i], 5000 + i, false);
	roundtrip(p, 3);
	for (i = 0; i < 3; i++)
		lru_snapshot_release(&snaps[i]);
}

/*
 * Hand-picked corners: empty submessages (aging, node memory, memcg stats,
 * generation, tier counters, walk), NULL and empty strings, negative int32
 * and int64 (ten bytes), -0.0 (left out, as 0.0) and NaN, present and
 * evicted bits the wire does not carry, lengths of one to four bytes.
 */
static void make_edge(struct lru_snapshot *snap)
{
	struct lru_error err;
	struct lru_lruvec *lv;
	size_t m, l, len = 3u << 20;
	char *big;
	unsigned g, t;

	lru_snapshot_init(snap);
	assert_int_equal(lru_strdup_into(&snap->host.boot_id, "", &err), LRU_OK);
	snap->host.kernel = calloc(201, 1);
	assert_non_null(snap->host.kernel);
	memset(snap->host.kernel, 'k', 200);
	snap->host.seq = UINT64_MAX;
	snap->host.enabled = UINT32_MAX;
	snap->source = LRU_SRC_CGROUP;
	snap->page_size = 0;
	snap->read_start_ms = -5;
	snap->read_end_ms = INT64_MIN;	/* before the start: taken_at is the start */
	snap->birth_error_ms = UINT32_MAX;
	snap->nr_duplicates = 1;

	snap->nodes = calloc(3, sizeof(*snap->nodes));
	assert_non_null(snap->nodes);
	snap->nr_nodes = 3;
	snap->nodes[0] = (struct lru_node_mem){ -1, 0, 0, 0, 0 };
	snap->nodes[1] = (struct lru_node_mem){ 0, 0, 0, 0, 0 };
	snap->nodes[2] = (struct lru_node_mem){ INT32_MAX, UINT64_MAX, 1, 0x80, 0x4000 };

	/* an empty MemcgStats: empty path, -0.0 */
	assert_int_equal(lru_snapshot_add_memcg(snap, 0, "", 0, &m, &err), LRU_OK);
	snap->memcgs[m].has_stats = true;
	snap->memcgs[m].stats.some_avg10 = -0.0;
	/* a NULL path, NaN and infinity */
	assert_int_equal(lru_snapshot_add_memcg(snap, UINT64_MAX, "x", 1, &m, &err), LRU_OK);
	free(snap->memcgs[m].path);
	snap->memcgs[m].path = NULL;
	snap->memcgs[m].ino = 1ULL << 63;
	snap->memcgs[m].has_stats = true;
	snap->memcgs[m].stats.some_avg10 = NAN;
	snap->memcgs[m].stats.full_avg10 = -INFINITY;
	snap->memcgs[m].stats.some_total_us = 0x80;
	/* a 3 MB path: four-byte lengths for the Lruvec and the HostSnapshot */
	big = malloc(len + 1);
	assert_non_null(big);
	memset(big, '/', len);
	big[len] = '\0';
	assert_int_equal(lru_snapshot_add_memcg(snap, 3, big, len, &m, &err), LRU_OK);
	free(big);

	/* one generation with every field 0; lru_gen_full detail without tiers or walk */
	assert_int_equal(lru_snapshot_add_lruvec(snap, 0, 0, &l, &err), LRU_OK);
	lv = &snap->lruvecs[l];
	lv->nr_gens = 1;
	lv->full = calloc(1, sizeof(*lv->full));
	assert_non_null(lv->full);

	assert_int_equal(lru_snapshot_add_lruvec(snap, 1, -7, &l, &err), LRU_OK);
	lv = &snap->lruvecs[l];
	lv->nr_gens = LRU_MAX_GENS;
	for (g = 0; g < LRU_MAX_GENS; g++) {
		lv->gens[g].seq = UINT64_MAX - 3 + g;
		lv->gens[g].age_ms = UINT32_MAX - g;
		lv->gens[g].birth_ms = g ? -(int64_t)g : INT64_MIN;
		lv->gens[g].pages[LRU_ANON] = UINT64_MAX;
		lv->gens[g].pages[LRU_FILE] = g;
		lv->gens[g].evicted = (uint8_t)(0xfc | g);
	}
	lv->full = calloc(1, sizeof(*lv->full));
	assert_non_null(lv->full);
	lv->full->has_tiers[0] = true;	/* all zero: empty TierCounters */
	lv->full->has_tiers[1] = true;
	for (t = 0; t < LRU_NR_TIERS; t++) {
		lv->full->tiers[1][t].v[LRU_FILE][t] = UINT64_MAX >> t;
		lv->full->tiers[1][t].present = 0xfffffc00u | (1u << (t + LRU_TC_NR));
	}
	lv->full->tiers[2][0].v[LRU_ANON][0] = 5; /* not printed: not encoded */
	lv->full->has_walk[2] = true;	/* all zero: an empty WalkStats */
	lv->full->has_walk[3] = true;
	lv->full->walk[3] = (struct lru_walk){ { UINT64_MAX, 0, 1, 0x7f, 0x80, 0 }, UINT32_MAX };

	/* the big path on the highest node */
	assert_int_equal(lru_snapshot_add_lruvec(snap, 2, LRU_NODE_MAX, &l, &err), LRU_OK);
	lv = &snap->lruvecs[l];
	lv->nr_gens = 2;
	lv->gens[0].seq = 9;
	lv->gens[1].seq = 10;
	/* the same lruvec again: the encoder does not judge */
	assert_int_equal(lru_snapshot_add_lruvec(snap, 1, -7, &l, &err), LRU_OK);
	snap->lruvecs[l].nr_gens = 1;
}

static void test_encode_edges_on_the_wire(void **state)
{
	struct lru_snapshot snap, empty, rich;
	const struct lru_snapshot *p[3] = { &snap, &empty, &rich };

	(void)state;
	make_edge(&snap);
	assert_wire_matches(p, 1, "edge snapshot");
	/* an aging with every field set, and then with only the last */
	snap.host.aging = (struct lru_aging){ true, UINT32_MAX, 0x80, true, true };
	assert_wire_matches(p, 1, "edge snapshot with aging");
	snap.host.aging = (struct lru_aging){ .jitter_ms = 1 };
	assert_wire_matches(p, 1, "edge snapshot with jitter");

	lru_snapshot_init(&empty);
	assert_wire_matches(&p[1], 1, "empty snapshot");
	make_rich(&rich);
	assert_wire_matches(&p[2], 1, "rich snapshot");
	assert_wire_matches(p, 3, "batch of edge, empty and rich snapshots");
	lru_snapshot_release(&snap);
	lru_snapshot_release(&rich);
}

/*
 * Strings that are not UTF-8 go on the wire in their LRU_ESC_UTF8 form, in
 * both encoders, and decode as that text; valid ones (controls included) as
 * they are. The snapshot keeps its bytes.
 */
static void test_encode_non_utf8_strings(void **state)
{
	static const char bad_path[] = "/jobs/bad\xff\xfe", esc_path[] = "/jobs/e\x1b]0;t\a";
	struct lru_snapshot snap, *out;
	const struct lru_snapshot *p = &snap;
	Lrugen__V1__SnapshotBatch *batch;
	Lrugen__V1__HostSnapshot *msg;
	struct lru_error err;
	struct lru_lruvec *lv;
	uint8_t *buf;
	size_t len, n, m, l, bad;

	(void)state;
	make_rich(&snap);
	free(snap.host.host);
	free(snap.host.kernel);
	snap.host.host = strdup("h\xc0\xaf-1");
	snap.host.kernel = strdup("6.1\xed\xa0\x80");
	assert_non_null(snap.host.host);
	assert_non_null(snap.host.kernel);
	assert_int_equal(lru_snapshot_add_memcg(&snap, 9, bad_path, strlen(bad_path), &m, &err), LRU_OK);
	snap.memcgs[m].has_stats = true;
	bad = m;
	assert_int_equal(lru_snapshot_add_lruvec(&snap, m, 0, &l, &err), LRU_OK);
	lv = &snap.lruvecs[l];
	lv->nr_gens = 1;
	lv->gens[0] = (struct lru_gen){ .seq = 5, .age_ms = 10, .pages = { 1, 2 } };
	assert_int_equal(lru_snapshot_add_memcg(&snap, 10, esc_path, strlen(esc_path), &m, &err), LRU_OK);
	assert_int_equal(lru_snapshot_add_lruvec(&snap, m, 1, &l, &err), LRU_OK);
	lv = &snap.lruvecs[l];
	lv->nr_gens = 1;
	lv->gens[0] = (struct lru_gen){ .seq = 7, .age_ms = 10, .pages = { 3, 4 } };

	msg = wire_host(&snap, &batch);
	assert_string_equal(msg->host, "h\\xc0\\xaf-1");
	assert_string_equal(msg->kernel_release, "6.1\\xed\\xa0\\x80");
	assert_string_equal(msg->lruvecs[msg->n_lruvecs - 2]->memcg_path, "/jobs/bad\\xff\\xfe");
	assert_string_equal(msg->lruvecs[msg->n_lruvecs - 1]->memcg_path, esc_path);
	assert_string_equal(msg->memcg_stats[msg->n_memcg_stats - 1]->memcg_path,
			    "/jobs/bad\\xff\\xfe");
	assert_string_equal(msg->lruvecs[0]->memcg_path, "/jobs/web");
	wire_free(batch);
	assert_wire_matches(&p, 1, "snapshot with non-UTF-8 strings");

	assert_int_equal(lru_pb_encode_batch(&p, 1, &buf, &len, &err), LRU_OK);
	assert_int_equal(lru_pb_decode_batch(buf, len, &out, &n, &err), LRU_OK);
	assert_int_equal(n, 1);
	assert_string_equal(out[0].host.host, "h\\xc0\\xaf-1");
	assert_string_equal(out[0].host.kernel, "6.1\\xed\\xa0\\x80");
	for (m = 0, l = 0; m < out[0].nr_memcgs; m++)
		l += !strcmp(out[0].memcgs[m].path, "/jobs/bad\\xff\\xfe") ||
		     !strcmp(out[0].memcgs[m].path, esc_path);
	assert_int_equal(l, 2);
	/* the snapshot keeps the kernel's bytes */
	assert_string_equal(snap.memcgs[bad].path, bad_path);
	lru_pb_free_snapshots(out, n);
	free(buf);
	lru_snapshot_release(&snap);
}

static void test_encode_batch_on_the_wire(void **state)
{
	struct lru_snapshot s[6];
	const struct lru_snapshot *p[6];
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		lru_snapshot_init(&s[i]);
		tu_parse_file(pb_fixtures[i], &s[i]);
		s[i].source = s[i].lruvecs[0].full ? LRU_SRC_DEBUGFS_FULL : LRU_SRC_DEBUGFS;
		s[i].host.seq = i;
		lru_snapshot_set_times(&s[i], 1733200000000 + (int64_t)i, 1733200000090);
		p[i] = &s[i];
	}
	make_rich(&s[5]);
	p[5] = &s[5];
	assert_wire_matches(p, 6, "batch of the fixtures and the rich snapshot");
	assert_wire_matches(p, 0, "empty batch");
	for (i = 0; i < 6; i++)
		lru_snapshot_release(&s[i]);
}

static void test_encode_rejects_oversize_batch(void **state)
{
	struct lru_snapshot snap;
	const struct lru_snapshot *p = &snap;
	struct lru_error err;
	uint8_t *buf = (uint8_t *)&buf;
	size_t len = 5, path_len = 1u << 20, i, l, need = 0;
	char *path = malloc(path_len + 1), tail[64] = "";

	(void)state;
	/* 300 lruvecs of one memcg with a 1 MB path: 300 MB, more than the limit */
	assert_non_null(path);
	memset(path, 'p', path_len);
	path[path_len] = '\0';
	lru_snapshot_init(&snap);
	assert_int_equal(lru_snapshot_add_memcg(&snap, 1, path, path_len, NULL, &err), LRU_OK);
	free(path);
	for (i = 0; i < 300; i++) {
		assert_int_equal(lru_snapshot_add_lruvec(&snap, 0, (int)i, &l, &err), LRU_OK);
		snap.lruvecs[l].nr_gens = 1;
	}
	assert_int_equal(lru_pb_encode_batch(&p, 1, &buf, &len, &err), LRU_ERANGE);
	/* the path 300 times, and a few bytes of fields an lruvec */
	assert_int_equal(sscanf(err.msg, "SnapshotBatch of 1 snapshots needs %zu bytes, %63[^\n]",
				&need, tail), 2);
	assert_string_equal(tail, "more than the 268435456-byte limit");
	assert_true(need > 300 * path_len && need < 300 * (path_len + 16));
	assert_null(buf);
	assert_int_equal(len, 0);
	lru_snapshot_release(&snap);
}

static void test_encode_names_broken_snapshot_in_batch(void **state)
{
	struct lru_snapshot s[2];
	const struct lru_snapshot *p[2] = { &s[0], &s[1] };
	struct lru_error err;
	uint8_t *buf = (uint8_t *)&buf;
	size_t len = 5;

	(void)state;
	make_rich(&s[0]);
	make_rich(&s[1]);
	s[1].lruvecs[1].nr_gens = 0;
	assert_int_equal(lru_pb_encode_batch(p, 2, &buf, &len, &err), LRU_EINVAL);
	assert_string_equal(err.msg,
			    "snapshot 1 lruvec '/jobs/web' node 3: 0 generations (expected 1 to 4)");
	assert_null(buf);
	assert_int_equal(len, 0);
	lru_snapshot_release(&s[0]);
	lru_snapshot_release(&s[1]);
}

/* ---- hand-built messages ------------------------------------------------------ */

#define M_LV 3
#define M_GEN 6
#define M_TIER 6

/*
 * A valid batch built with the generated structs: lruvecs '/jobs/web'
 * (id 3, inode 100) on nodes 0 and 1, generations 4..7; the first
 * generation of lruvec 0 has 4 tiers, the last a walk; node 0 memory and
 * stats of '/jobs/web'. Tests break one thing and expect LRU_EPROTO.
 */
struct msg {
	Lrugen__V1__SnapshotBatch batch;
	Lrugen__V1__HostSnapshot host[2], *hostp[2];
	Lrugen__V1__AgingSettings aging;
	Lrugen__V1__NodeMemory node[2], *nodep[2];
	Lrugen__V1__Lruvec lv[M_LV], *lvp[M_LV];
	Lrugen__V1__Generation gen[M_LV][M_GEN], *genp[M_LV][M_GEN];
	Lrugen__V1__Tier tier[M_TIER], *tierp[M_TIER];
	Lrugen__V1__TierCounters tc[M_TIER][2];
	Lrugen__V1__WalkStats walk;
	Lrugen__V1__MemcgStats stats[2], *statsp[2];
	char path[LRU_PATH_MAX + 2];
};

static struct msg *msg_new(void)
{
	struct msg *m = calloc(1, sizeof(*m));
	int l, g, t;

	assert_non_null(m);
	lrugen__v1__snapshot_batch__init(&m->batch);
	m->batch.n_snapshots = 1;
	m->batch.snapshots = m->hostp;
	for (l = 0; l < 2; l++) {
		lrugen__v1__host_snapshot__init(&m->host[l]);
		m->hostp[l] = &m->host[l];
	}
	lrugen__v1__aging_settings__init(&m->aging);
	m->host[0].aging = &m->aging;
	m->host[0].host = (char *)"h1";
	m->host[0].page_size = 4096;
	for (l = 0; l < 2; l++) {
		lrugen__v1__node_memory__init(&m->node[l]);
		m->node[l].node = l;
		m->nodep[l] = &m->node[l];
	}
	m->host[0].n_nodes = 1;
	m->host[0].nodes = m->nodep;
	for (l = 0; l < M_LV; l++) {
		lrugen__v1__lruvec__init(&m->lv[l]);
		m->lv[l].memcg_id = 3;
		m->lv[l].memcg_path = (char *)"/jobs/web";
		m->lv[l].memcg_inode = 100;
		m->lv[l].node = l;
		m->lv[l].n_generations = 4;
		m->lv[l].generations = m->genp[l];
		m->lvp[l] = &m->lv[l];
		for (g = 0; g < M_GEN; g++) {
			lrugen__v1__generation__init(&m->gen[l][g]);
			m->gen[l][g].seq = 4 + (uint64_t)g;
			m->gen[l][g].anon_pages = 10 * (uint64_t)g;
			m->genp[l][g] = &m->gen[l][g];
		}
	}
	m->host[0].n_lruvecs = 2;
	m->host[0].lruvecs = m->lvp;
	for (t = 0; t < M_TIER; t++) {
		lrugen__v1__tier__init(&m->tier[t]);
		lrugen__v1__tier_counters__init(&m->tc[t][0]);
		lrugen__v1__tier_counters__init(&m->tc[t][1]);
		m->tier[t].tier = (uint32_t)t;
		m->tier[t].anon = &m->tc[t][0];
		m->tier[t].file = &m->tc[t][1];
		m->tierp[t] = &m->tier[t];
	}
	m->gen[0][0].n_tiers = 4;
	m->gen[0][0].tiers = m->tierp;
	lrugen__v1__walk_stats__init(&m->walk);
	m->gen[0][3].walk = &m->walk;
	for (l = 0; l < 2; l++) {
		lrugen__v1__memcg_stats__init(&m->stats[l]);
		m->stats[l].memcg_path = (char *)"/jobs/web";
		m->stats[l].memcg_inode = 100;
		m->statsp[l] = &m->stats[l];
	}
	m->host[0].n_memcg_stats = 1;
	m->host[0].memcg_stats = m->statsp;
	return m;
}

static uint8_t *msg_pack(struct msg *m, size_t *len)
{
	uint8_t *buf;

	*len = lrugen__v1__snapshot_batch__get_packed_size(&m->batch);
	buf = malloc(*len ? *len : 1);
	assert_non_null(buf);
	assert_int_equal(lrugen__v1__snapshot_batch__pack(&m->batch, buf), *len);
	return buf;
}

/* Decode m; on success check it and return the snapshots. */
static enum lru_err msg_decode(struct msg *m, struct lru_snapshot **snaps, size_t *n,
			       struct lru_error *err)
{
	size_t len;
	uint8_t *buf = msg_pack(m, &len);
	enum lru_err rc;

	lru_error_clear(err);
	rc = lru_pb_decode_batch(buf, len, snaps, n, err);
	free(buf);
	if (!rc)
		assert_sane(*snaps, *n);
	return rc;
}

/* Decode m, expect LRU_EPROTO with msg containing want; frees m. */
static void expect_eproto(struct msg *m, const char *want)
{
	struct lru_snapshot *snaps = (struct lru_snapshot *)&snaps;
	struct lru_error err;
	size_t n = 77;
	enum lru_err rc = msg_decode(m, &snaps, &n, &err);

	if (rc != LRU_EPROTO)
		fail_msg("expected LRU_EPROTO with '%s', got %d '%s'", want, rc, err.msg);
	assert_int_equal(err.code, LRU_EPROTO);
	if (!strstr(err.msg, want))
		fail_msg("expected '%s' in '%s'", want, err.msg);
	assert_null(snaps);
	assert_int_equal(n, 0);
	free(m);
}

/* Decode m, expect success with one snapshot; returns it (caller frees). */
static struct lru_snapshot *expect_ok(struct msg *m)
{
	struct lru_snapshot *snaps;
	struct lru_error err;
	size_t n;

	if (msg_decode(m, &snaps, &n, &err))
		fail_msg("unexpected error: %s", err.msg);
	assert_int_equal(n, m->batch.n_snapshots);
	free(m);
	return snaps;
}

static void test_msg_baseline_decodes(void **state)
{
	struct lru_snapshot *s;

	(void)state;
	s = expect_ok(msg_new());
	assert_string_equal(s->host.host, "h1");
	assert_null(s->host.boot_id);
	assert_int_equal(s->nr_lruvecs, 2);
	assert_int_equal(s->nr_memcgs, 1);
	assert_int_equal(s->nr_nodes, 1);
	assert_true(s->memcgs[0].has_stats);
	assert_non_null(s->lruvecs[0].full);
	assert_true(s->lruvecs[0].full->has_tiers[0]);
	assert_false(s->lruvecs[0].full->has_tiers[1]);
	assert_true(s->lruvecs[0].full->has_walk[3]);
	assert_false(s->lruvecs[0].full->has_tiers[3]);
	assert_false(s->lruvecs[0].full->has_walk[0]);
	assert_null(s->lruvecs[1].full);
	assert_int_equal(s->lruvecs[1].gens[3].seq, 7);
	assert_int_equal(s->lruvecs[1].gens[3].pages[LRU_ANON], 30);
	lru_pb_free_snapshots(s, 1);
}

static void test_decode_maps_counters(void **state)
{
	struct msg *m = msg_new();
	struct lru_snapshot *s;
	const struct lru_tier *t;
	const struct lru_walk *w;

	(void)state;
	m->tc[2][0] = (Lrugen__V1__TierCounters)LRUGEN__V1__TIER_COUNTERS__INIT;
	m->tc[2][0].refaulted = 1;
	m->tc[2][0].evicted = 2;
	m->tc[2][0].protected_ = 3;
	m->tc[2][0].avg_refaulted = 4;
	m->tc[2][0].avg_total = 5;
	m->tc[2][0].present = 0xff;	/* unknown bits 5..7 are dropped */
	m->tc[2][1].refaulted = 6;
	m->tc[2][1].avg_total = 7;
	m->tc[2][1].present = 0x11;
	m->tier[3].file = NULL;		/* absent counters are zero */
	m->tc[3][0].evicted = 8;
	m->tc[3][0].present = 0x2;
	/* tiers in any order */
	m->tierp[0] = &m->tier[3];
	m->tierp[3] = &m->tier[0];
	m->walk.leaf_total = 11;
	m->walk.leaf_old = 12;
	m->walk.leaf_young = 13;
	m->walk.nonleaf_total = 14;
	m->walk.bloom_found = 15;
	m->walk.bloom_added = 16;
	m->walk.present = 0xffff;
	m->gen[0][1].anon_evicted = true;
	m->gen[0][2].file_evicted = true;
	m->gen[0][2].birth_ms = -5;
	m->gen[0][2].age_ms = 77;
	s = expect_ok(m);

	t = &s->lruvecs[0].full->tiers[0][2];
	assert_int_equal(t->v[LRU_ANON][LRU_TC_REFAULTED], 1);
	assert_int_equal(t->v[LRU_ANON][LRU_TC_EVICTED], 2);
	assert_int_equal(t->v[LRU_ANON][LRU_TC_PROTECTED], 3);
	assert_int_equal(t->v[LRU_ANON][LRU_TC_AVG_REFAULTED], 4);
	assert_int_equal(t->v[LRU_ANON][LRU_TC_AVG_TOTAL], 5);
	assert_int_equal(t->v[LRU_FILE][LRU_TC_REFAULTED], 6);
	assert_int_equal(t->v[LRU_FILE][LRU_TC_AVG_TOTAL], 7);
	assert_int_equal(t->present, 0x1f | 0x11u << LRU_TC_NR);
	t = &s->lruvecs[0].full->tiers[0][3];
	assert_int_equal(t->v[LRU_ANON][LRU_TC_EVICTED], 8);
	assert_int_equal(t->v[LRU_FILE][LRU_TC_EVICTED], 0);
	assert_int_equal(t->present, 0x2);
	w = &s->lruvecs[0].full->walk[3];
	assert_int_equal(w->v[LRU_WALK_LEAF_TOTAL], 11);
	assert_int_equal(w->v[LRU_WALK_LEAF_OLD], 12);
	assert_int_equal(w->v[LRU_WALK_LEAF_YOUNG], 13);
	assert_int_equal(w->v[LRU_WALK_NONLEAF_TOTAL], 14);
	assert_int_equal(w->v[LRU_WALK_BLOOM_FOUND], 15);
	assert_int_equal(w->v[LRU_WALK_BLOOM_ADDED], 16);
	assert_int_equal(w->present, 0x3f);
	assert_int_equal(s->lruvecs[0].gens[1].evicted, 1u << LRU_ANON);
	assert_int_equal(s->lruvecs[0].gens[2].evicted, 1u << LRU_FILE);
	assert_int_equal(s->lruvecs[0].gens[2].birth_ms, -5);
	assert_int_equal(s->lruvecs[0].gens[2].age_ms, 77);
	lru_pb_free_snapshots(s, 1);
}

static void test_decode_dedups_memcgs(void **state)
{
	struct msg *m = msg_new();
	struct lru_snapshot *s;

	(void)state;
	/* lruvec 2: same path, other inode -> another memcg */
	m->host[0].n_lruvecs = 3;
	m->lv[2].node = 0;
	m->lv[2].memcg_inode = 101;
	/* stats of (/jobs/web, 100) attach to memcg 0; (/gone, 5) adds a memcg */
	m->host[0].n_memcg_stats = 2;
	m->stats[0].file_bytes = 1234;
	m->stats[1].memcg_path = (char *)"/gone";
	m->stats[1].memcg_inode = 5;
	m->stats[1].anon_bytes = 99;
	s = expect_ok(m);

	assert_int_equal(s->nr_memcgs, 3);
	assert_int_equal(s->lruvecs[0].memcg, 0);
	assert_int_equal(s->lruvecs[1].memcg, 0);
	assert_int_equal(s->lruvecs[2].memcg, 1);
	assert_string_equal(s->memcgs[0].path, "/jobs/web");
	assert_int_equal(s->memcgs[0].id, 3);
	assert_int_equal(s->memcgs[0].ino, 100);
	assert_true(s->memcgs[0].has_stats);
	assert_int_equal(s->memcgs[0].stats.file_bytes, 1234);
	assert_int_equal(s->memcgs[1].ino, 101);
	assert_false(s->memcgs[1].has_stats);
	assert_string_equal(s->memcgs[2].path, "/gone");
	assert_int_equal(s->memcgs[2].id, 0);
	assert_int_equal(s->memcgs[2].ino, 5);
	assert_true(s->memcgs[2].has_stats);
	assert_int_equal(s->memcgs[2].stats.anon_bytes, 99);
	lru_pb_free_snapshots(s, 1);

	/* same path and inode, other id: two memcgs; stats go to the first */
	m = msg_new();
	m->host[0].n_lruvecs = 3;
	m->lv[2].node = 0;
	m->lv[2].memcg_id = 0;
	s = expect_ok(m);
	assert_int_equal(s->nr_memcgs, 2);
	assert_int_equal(s->lruvecs[2].memcg, 1);
	assert_int_equal(s->memcgs[1].id, 0);
	assert_true(s->memcgs[0].has_stats);
	assert_false(s->memcgs[1].has_stats);
	lru_pb_free_snapshots(s, 1);
}

static void test_snapshot_from_host_direct(void **state)
{
	struct msg *m = msg_new();
	struct lru_snapshot snap;
	struct lru_error err;

	(void)state;
	assert_int_equal(lru_pb_snapshot_from_host(&m->host[0], &snap, &err), LRU_OK);
	assert_int_equal(snap.nr_lruvecs, 2);
	assert_string_equal(snap.host.host, "h1");
	lru_snapshot_release(&snap);

	/* errors name no snapshot index and leave the snapshot empty */
	m->gen[1][2].seq = 9;
	assert_int_equal(lru_pb_snapshot_from_host(&m->host[0], &snap, &err), LRU_EPROTO);
	assert_string_equal(err.msg, "lruvec '/jobs/web' node 1: generation seq 9 follows 5");
	assert_int_equal(snap.nr_lruvecs, 0);
	assert_int_equal(snap.nr_memcgs, 0);
	assert_null(snap.host.host);
	assert_null(snap.lruvecs);
	free(m);
}

/* ---- untrusted input ---------------------------------------------------------- */

static void test_decode_every_prefix(void **state)
{
	struct lru_snapshot snap, *out;
	const struct lru_snapshot *p[2] = { &snap, &snap };
	struct lru_error err;
	uint8_t *buf, *copy;
	size_t len, cut, n, failed = 0;
	enum lru_err rc;

	(void)state;
	make_rich(&snap);
	assert_int_equal(lru_pb_encode_batch(p, 2, &buf, &len, &err), LRU_OK);
	assert_true(len > 100);
	for (cut = 0; cut <= len; cut++) {
		/* an exact-size copy so that ASan sees any read past the end */
		copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, buf, cut);
		rc = lru_pb_decode_batch(copy, cut, &out, &n, &err);
		if (rc) {
			assert_int_equal(rc, LRU_EPROTO);
			assert_null(out);
			assert_int_equal(n, 0);
			failed++;
		} else {
			assert_true(n <= 2);
			assert_sane(out, n);
			lru_pb_free_snapshots(out, n);
		}
		free(copy);
	}
	/* the whole message decodes; most cuts land inside a field */
	assert_int_equal(rc, LRU_OK);
	assert_int_equal(n, 2);
	assert_true(failed > len / 2);
	free(buf);
	lru_snapshot_release(&snap);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void decode_any(const uint8_t *buf, size_t len, size_t *ok)
{
	struct lru_snapshot *out;
	struct lru_error err;
	size_t n;
	enum lru_err rc = lru_pb_decode_batch(buf, len, &out, &n, &err);

	if (rc) {
		assert_int_equal(rc, LRU_EPROTO);
		assert_true(err.msg[0] != '\0');
		return;
	}
	assert_sane(out, n);
	lru_pb_free_snapshots(out, n);
	(*ok)++;
}

static void test_decode_garbage(void **state)
{
	struct lru_snapshot snap;
	const struct lru_snapshot *p = &snap;
	struct lru_error err;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	uint8_t *valid, *buf;
	size_t vlen, len, i, j, ok = 0, ok_mutated = 0;

	(void)state;
	for (i = 0; i < 3000; i++) {
		len = xorshift(&seed) % 200;
		buf = malloc(len ? len : 1);
		assert_non_null(buf);
		for (j = 0; j < len; j++)
			buf[j] = (uint8_t)xorshift(&seed);
		decode_any(buf, len, &ok);
		free(buf);
	}

	/* flip bytes of a valid encoding */
	make_rich(&snap);
	assert_int_equal(lru_pb_encode_batch(&p, 1, &valid, &vlen, &err), LRU_OK);
	buf = malloc(vlen);
	assert_non_null(buf);
	for (i = 0; i < 3000; i++) {
		memcpy(buf, valid, vlen);
		for (j = 0; j < 1 + i % 4; j++)
			buf[xorshift(&seed) % vlen] = (uint8_t)xorshift(&seed);
		decode_any(buf, vlen, &ok_mutated);
	}
	/* some mutations only change a value and still decode */
	assert_true(ok_mutated > 0);
	assert_true(ok_mutated < 3000);
	free(buf);
	free(valid);
	lru_snapshot_release(&snap);
}

static void test_reject_unpack_failure(void **state)
{
	static const uint8_t bad[] = { 0x0a, 0x05, 0x01 };	/* field 1, 5 bytes, 1 given */
	struct lru_snapshot *out;
	struct lru_error err;
	size_t n;

	(void)state;
	assert_int_equal(lru_pb_decode_batch(bad, sizeof(bad), &out, &n, &err), LRU_EPROTO);
	assert_string_equal(err.msg, "malformed SnapshotBatch (3 bytes)");
	assert_null(out);
	assert_int_equal(n, 0);
	assert_int_equal(lru_pb_decode_batch(bad, sizeof(bad), &out, &n, NULL), LRU_EPROTO);
}

static void test_reject_oversize_message(void **state)
{
	static const uint8_t tiny[1];
	struct lru_snapshot *out;
	struct lru_error err;
	size_t n;

	(void)state;
	/* the length is checked before a byte is read */
	assert_int_equal(lru_pb_decode_batch(tiny, (size_t)LRU_PB_MAX_MESSAGE + 1, &out, &n, &err),
			 LRU_EPROTO);
	assert_non_null(strstr(err.msg, "268435457 bytes is larger than 268435456"));
	assert_null(out);
	assert_int_equal(n, 0);
}

static void test_reject_too_many_generations(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->lv[1].n_generations = LRU_MAX_GENS + 1;
	expect_eproto(m, "snapshot 0 lruvec '/jobs/web' node 1: 5 generations (at most 4)");
}

static void test_reject_zero_generations(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->lv[0].n_generations = 0;
	m->lv[0].generations = NULL;
	expect_eproto(m, "snapshot 0 lruvec '/jobs/web' node 0: no generations");
}

static void test_reject_seq_gap(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->gen[1][2].seq = 7;
	m->gen[1][3].seq = 8;
	expect_eproto(m, "snapshot 0 lruvec '/jobs/web' node 1: generation seq 7 follows 5");
}

static void test_reject_descending_seqs(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->gen[0][1].seq = 3;
	expect_eproto(m, "lruvec '/jobs/web' node 0: generation seq 3 follows 4");
}

static void test_reject_repeated_seq(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->gen[0][3].seq = 6;
	expect_eproto(m, "generation seq 6 follows 6");
}

static void test_reject_seq_wraparound(void **state)
{
	struct msg *m = msg_new();
	struct lru_snapshot *s;

	(void)state;
	m->lv[0].n_generations = 2;
	m->gen[0][0].seq = UINT64_MAX;
	m->gen[0][1].seq = 0;
	expect_eproto(m, "generation seq 0 follows 18446744073709551615");

	m = msg_new();
	m->lv[0].n_generations = 1;
	m->gen[0][0].seq = UINT64_MAX;
	s = expect_ok(m);
	assert_int_equal(s->lruvecs[0].gens[0].seq, UINT64_MAX);
	lru_pb_free_snapshots(s, 1);
}

static void test_reject_tier_out_of_range(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->tier[2].tier = LRU_NR_TIERS;
	expect_eproto(m, "snapshot 0 lruvec '/jobs/web' node 0: "
			 "tier 4 of generation 4 is out of range (0..3)");
}

static void test_reject_repeated_tier(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->gen[0][0].n_tiers = 2;
	m->tier[1].tier = 0;
	expect_eproto(m, "lruvec '/jobs/web' node 0: tier 0 of generation 4 is repeated");
}

static void test_reject_too_many_tiers(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->gen[0][0].n_tiers = LRU_NR_TIERS + 1;
	m->tier[4].tier = 1;
	expect_eproto(m, "lruvec '/jobs/web' node 0: generation 4 has 5 tiers (at most 4)");
}

static void test_fewer_tiers_accepted(void **state)
{
	struct msg *m = msg_new();
	struct lru_snapshot *s;

	(void)state;
	m->gen[0][2].n_tiers = 1;
	m->gen[0][2].tiers = &m->tierp[3];
	m->tc[3][1].avg_total = 42;
	s = expect_ok(m);
	assert_true(s->lruvecs[0].full->has_tiers[2]);
	assert_int_equal(s->lruvecs[0].full->tiers[2][3].v[LRU_FILE][LRU_TC_AVG_TOTAL], 42);
	assert_int_equal(s->lruvecs[0].full->tiers[2][0].v[LRU_FILE][LRU_TC_AVG_TOTAL], 0);
	lru_pb_free_snapshots(s, 1);
}

static void test_reject_negative_node(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->lv[1].node = -1;
	expect_eproto(m, "snapshot 0 lruvec '/jobs/web' node -1: node is out of range (0..1023)");
}

static void test_reject_node_too_high(void **state)
{
	struct msg *m = msg_new();
	struct lru_snapshot *s;

	(void)state;
	m->lv[1].node = LRU_NODE_MAX + 1;
	expect_eproto(m, "lruvec '/jobs/web' node 1024: node is out of range (0..1023)");

	m = msg_new();
	m->lv[1].node = LRU_NODE_MAX;
	m->node[0].node = LRU_NODE_MAX;
	s = expect_ok(m);
	assert_int_equal(s->lruvecs[1].node, LRU_NODE_MAX);
	assert_int_equal(s->nodes[0].node, LRU_NODE_MAX);
	lru_pb_free_snapshots(s, 1);
}

static void test_reject_node_memory_out_of_range(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->host[0].n_nodes = 2;
	m->node[1].node = -3;
	expect_eproto(m, "snapshot 0 node memory 1: node -3 is out of range (0..1023)");
	m = msg_new();
	m->node[0].node = 5000;
	expect_eproto(m, "node 5000 is out of range");
}

static void test_reject_repeated_node_memory(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->host[0].n_nodes = 2;
	m->node[1].node = 0;
	expect_eproto(m, "snapshot 0 node memory 1: node 0 is repeated");
}

static void test_reject_long_path(void **state)
{
	struct msg *m = msg_new();
	struct lru_snapshot *s;

	(void)state;
	m->path[0] = '/';
	memset(m->path + 1, 'a', LRU_PATH_MAX);
	m->lv[0].memcg_path = m->path;
	m->lv[1].memcg_path = m->path;
	expect_eproto(m, "snapshot 0 lruvec 0 (memcg id 3): memcg path '/aaa");

	/* exactly LRU_PATH_MAX bytes is fine */
	m = msg_new();
	m->path[0] = '/';
	memset(m->path + 1, 'a', LRU_PATH_MAX - 1);
	m->lv[0].memcg_path = m->path;
	s = expect_ok(m);
	assert_int_equal(strlen(s->memcgs[0].path), LRU_PATH_MAX);
	lru_pb_free_snapshots(s, 1);
}

static void test_reject_long_stats_path(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	memset(m->path, 'b', LRU_PATH_MAX + 1);
	m->stats[0].memcg_path = m->path;
	expect_eproto(m, "memcg stats 0: memcg path 'bbbb");
}

static void test_reject_duplicate_lruvec(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->host[0].n_lruvecs = 3;
	m->lv[2].node = 1;
	expect_eproto(m, "snapshot 0 lruvec '/jobs/web' node 1: repeats lruvec 1");
}

static void test_reject_page_size(void **state)
{
	struct msg *m = msg_new();
	struct lru_snapshot *s;

	(void)state;
	m->host[0].page_size = 3000;
	expect_eproto(m, "snapshot 0: page size 3000 is not a power of two");

	m = msg_new();
	m->host[0].page_size = 0;	/* unset by an older sender */
	s = expect_ok(m);
	assert_int_equal(s->page_size, 4096);
	lru_pb_free_snapshots(s, 1);

	m = msg_new();
	m->host[0].page_size = 1u << 16;
	s = expect_ok(m);
	assert_int_equal(s->page_size, 65536);
	lru_pb_free_snapshots(s, 1);
}

static void test_reject_unknown_source(void **state)
{
	struct msg *m = msg_new();
	struct lru_snapshot *s;

	(void)state;
	m->host[0].source = (Lrugen__V1__Source)3;
	expect_eproto(m, "snapshot 0: unknown source 3");
	m = msg_new();
	m->host[0].source = (Lrugen__V1__Source)-1;
	expect_eproto(m, "unknown source -1");

	m = msg_new();
	m->host[0].source = LRUGEN__V1__SOURCE__SOURCE_CGROUP_MEMORY_LRU_GEN;
	s = expect_ok(m);
	assert_int_equal(s->source, LRU_SRC_CGROUP);
	lru_pb_free_snapshots(s, 1);
}

static void test_reject_repeated_memcg_stats(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	m->host[0].n_memcg_stats = 2;
	expect_eproto(m, "snapshot 0 memcg stats of '/jobs/web' inode 100: repeated");
}

static void test_error_in_later_snapshot_frees_all(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	/* snapshot 0 is valid (and decoded first), snapshot 1 is not */
	m->batch.n_snapshots = 2;
	m->host[1] = m->host[0];
	m->host[1].n_lruvecs = 3;
	m->lv[2].node = 0;
	expect_eproto(m, "snapshot 1 lruvec '/jobs/web' node 0: repeats lruvec 0");
}

static void test_error_late_in_snapshot_frees_all(void **state)
{
	struct msg *m = msg_new();

	(void)state;
	/* everything but the last stats entry decodes: tiers, walks, memcgs */
	m->host[0].n_nodes = 2;
	m->host[0].n_lruvecs = 3;
	m->lv[2].memcg_path = (char *)"/x";
	m->gen[2][0].n_tiers = 3;
	m->gen[2][0].tiers = m->tierp;
	m->host[0].n_memcg_stats = 2;
	m->stats[1] = m->stats[0];
	expect_eproto(m, "memcg stats of '/jobs/web' inode 100: repeated");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_61_lru_gen),
		cmocka_unit_test(test_roundtrip_61_lru_gen_idle),
		cmocka_unit_test(test_roundtrip_61_lru_gen_full),
		cmocka_unit_test(test_roundtrip_612_lru_gen),
		cmocka_unit_test(test_roundtrip_612_lru_gen_full),
		cmocka_unit_test(test_roundtrip_rich_snapshot),
		cmocka_unit_test(test_roundtrip_batch),
		cmocka_unit_test(test_roundtrip_empty_batch),
		cmocka_unit_test(test_host_message_fields),
		cmocka_unit_test(test_host_message_rich_fields),
		cmocka_unit_test(test_midpoint_does_not_overflow),
		cmocka_unit_test(test_encode_rejects_broken_snapshot),
		cmocka_unit_test(test_encode_fixtures_on_the_wire),
		cmocka_unit_test(test_encode_random_on_the_wire),
		cmocka_unit_test(test_encode_edges_on_the_wire),
		cmocka_unit_test(test_encode_non_utf8_strings),
		cmocka_unit_test(test_encode_batch_on_the_wire),
		cmocka_unit_test(test_encode_rejects_oversize_batch),
		cmocka_unit_test(test_encode_names_broken_snapshot_in_batch),
		cmocka_unit_test(test_roundtrip_random),
		cmocka_unit_test(test_msg_baseline_decodes),
		cmocka_unit_test(test_decode_maps_counters),
		cmocka_unit_test(test_decode_dedups_memcgs),
		cmocka_unit_test(test_snapshot_from_host_direct),
		cmocka_unit_test(test_decode_every_prefix),
		cmocka_unit_test(test_decode_garbage),
		cmocka_unit_test(test_reject_unpack_failure),
		cmocka_unit_test(test_reject_oversize_message),
		cmocka_unit_test(test_reject_too_many_generations),
		cmocka_unit_test(test_reject_zero_generations),
		cmocka_unit_test(test_reject_seq_gap),
		cmocka_unit_test(test_reject_descending_seqs),
		cmocka_unit_test(test_reject_repeated_seq),
		cmocka_unit_test(test_reject_seq_wraparound),
		cmocka_unit_test(test_reject_tier_out_of_range),
		cmocka_unit_test(test_reject_repeated_tier),
		cmocka_unit_test(test_reject_too_many_tiers),
		cmocka_unit_test(test_fewer_tiers_accepted),
		cmocka_unit_test(test_reject_negative_node),
		cmocka_unit_test(test_reject_node_too_high),
		cmocka_unit_test(test_reject_node_memory_out_of_range),
		cmocka_unit_test(test_reject_repeated_node_memory),
		cmocka_unit_test(test_reject_long_path),
		cmocka_unit_test(test_reject_long_stats_path),
		cmocka_unit_test(test_reject_duplicate_lruvec),
		cmocka_unit_test(test_reject_page_size),
		cmocka_unit_test(test_reject_unknown_source),
		cmocka_unit_test(test_reject_repeated_memcg_stats),
		cmocka_unit_test(test_error_in_later_snapshot_frees_all),
		cmocka_unit_test(test_error_late_in_snapshot_frees_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
