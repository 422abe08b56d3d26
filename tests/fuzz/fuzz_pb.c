/*
 * fuzz_pb.c - libFuzzer target for the store's ingest path, lib side (make fuzz).
 *
 * Bytes are a SnapshotBatch body: lru_pb_decode_batch() decodes them, and
 * each snapshot then goes where lrugen-store's ingest takes it before
 * sqlite: its read midpoint (lru_fleet_taken_ms), its rows
 * (lru_fleet_rows_build), its lruvecs summed per memcg path as the writer
 * does, its packed generations (lru_fleet_pack) and the working-set
 * histograms of the rollups (lru_hist_*, lru_fleet_warn_*).
 *
 * Beyond "no crash, no undefined behaviour", what must hold:
 *  - a rejected batch fails with LRU_EPROTO (or LRU_ENOMEM) and a message;
 *  - a decoded snapshot packs, and unpacking gives back every lruvec (ids,
 *    node, warnings, and per generation seq, age, pages, evicted marks and
 *    birth time) and the node memory, with the same cold bytes;
 *  - cold bytes never exceed the bytes in generations and do not grow with
 *    the threshold; sums saturate, never wrap below a part;
 *  - a decoded batch encodes (lru_pb_encode_batch) and decodes again to the
 *    same snapshots;
 *  - histograms encode and merge back to the same counts.
 * Any difference abort()s.
 *
 * tests/unit/test_pb_regress.c links this file without libFuzzer and runs
 * LLVMFuzzerTestOneInput() on every input of tests/corpus/pb-regress/ under
 * the sanitizer build of make check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "lru_bounds.h"
#include "lru_esc.h"
#include "lru_fleet.h"
#include "lru_pb.h"
#include "lru_sat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a fixed "now" for the bounds (2026-12-01): the same verdict on every run */
#define CHECK_NOW_MS 1796083200000LL

static void check_same_gen(const struct lru_gen *a, const struct lru_gen *b)
{
	CHECK(a->seq == b->seq && a->age_ms == b->age_ms && a->evicted == b->evicted);
	CHECK(a->pages[LRU_ANON] == b->pages[LRU_ANON] && a->pages[LRU_FILE] == b->pages[LRU_FILE]);
	CHECK(a->birth_ms == b->birth_ms);
}

/* b is what the wire carries of a: a's text with invalid UTF-8 as \xNN (lru_esc.h) */
static bool same_str(const char *a, const char *b)
{
	struct lru_buf w;
	bool same;

	if (!a || !b)
		return !a && !b;
	lru_buf_init(&w);
	CHECK(!lru_esc_buf(&w, a, strlen(a), LRU_ESC_UTF8, NULL));
	same = !strcmp((const char *)w.data, b);
	lru_buf_release(&w);
	return same;
}

/* Two decodings of one snapshot: equal in everything the wire carries. */
static void check_same_snapshot(const struct lru_snapshot *a, const struct lru_snapshot *b)
{
	CHECK(same_str(a->host.host, b->host.host) && same_str(a->host.boot_id, b->host.boot_id));
	CHECK(same_str(a->host.kernel, b->host.kernel));
	CHECK(a->host.seq == b->host.seq && a->host.enabled == b->host.enabled);
	CHECK(a->host.warnings == b->host.warnings);
	CHECK(a->source == b->source && a->page_size == b->page_size);
	CHECK(a->read_start_ms == b->read_start_ms && a->read_end_ms == b->read_end_ms);
	CHECK(a->birth_error_ms == b->birth_error_ms && a->nr_duplicates == b->nr_duplicates);
	CHECK(a->nr_nodes == b->nr_nodes);
	for (size_t i = 0; i < a->nr_nodes; i++) {
		const struct lru_node_mem *x = &a->nodes[i], *y = &b->nodes[i];

		CHECK(x->node == y->node && x->total == y->total && x->free == y->free);
		CHECK(x->file == y->file && x->anon == y->anon);
	}
	CHECK(a->nr_memcgs == b->nr_memcgs);
	for (size_t i = 0; i < a->nr_memcgs; i++) {
		const struct lru_memcg *x = &a->memcgs[i], *y = &b->memcgs[i];

		CHECK(x->id == y->id && x->ino == y->ino && same_str(x->path, y->path));
		CHECK(x->has_stats == y->has_stats);
		CHECK(x->stats.anon_bytes == y->stats.anon_bytes &&
		      x->stats.refault_file == y->stats.refault_file);
	}
	CHECK(a->nr_lruvecs == b->nr_lruvecs);
	for (size_t i = 0; i < a->nr_lruvecs; i++) {
		const struct lru_lruvec *x = &a->lruvecs[i], *y = &b->lruvecs[i];

		CHECK(x->memcg == y->memcg && x->node == y->node && x->nr_gens == y->nr_gens);
		CHECK(x->warnings == y->warnings && !x->full == !y->full);
		for (unsigned g = 0; g < x->nr_gens; g++) {
			check_same_gen(&x->gens[g], &y->gens[g]);
			if (x->full)
				CHECK(x->full->has_tiers[g] == y->full->has_tiers[g] &&
				      x->full->has_walk[g] == y->full->has_walk[g]);
		}
	}
}

static void check_cold(const struct lru_fleet_cold *c)
{
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
		CHECK(c->cold[k] <= c->total);
		if (k)
			CHECK(c->cold[k] <= c->cold[k - 1]);
	}
}

static void check_same_cold(const struct lru_fleet_cold *a, const struct lru_fleet_cold *b)
{
	CHECK(a->total == b->total && a->warnings == b->warnings);
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++)
		CHECK(a->cold[k] == b->cold[k]);
}

/* The rows the store writes: sums that saturate, every lruvec's node among the nodes. */
static void check_rows(const struct lru_snapshot *s, const struct lru_fleet_rows *rows)
{
	struct lru_fleet_cold sum = { 0 };

	CHECK(rows->taken_ms == lru_fleet_taken_ms(s));
	if (s->read_end_ms >= s->read_start_ms)
		CHECK(rows->taken_ms >= s->read_start_ms && rows->taken_ms <= s->read_end_ms);
	else
		CHECK(rows->taken_ms == s->read_start_ms);
	for (size_t i = 0; i < s->nr_nodes; i++)
		CHECK(rows->mem_total >= s->nodes[i].total && rows->mem_free >= s->nodes[i].free);
	check_cold(&rows->host);
	for (size_t i = 0; i < s->nr_lruvecs; i++) {
		size_t n;

		check_cold(&rows->lv[i]);
		CHECK(rows->host.total >= rows->lv[i].total);
		lru_fleet_cold_add(&sum, &rows->lv[i]);
		for (n = 0; n < rows->nr_nodes; n++)
			if (rows->nodes[n].node == s->lruvecs[i].node)
				break;
		CHECK(n < rows->nr_nodes);
		CHECK(rows->nodes[n].cold.total >= rows->lv[i].total);
	}
	check_same_cold(&sum, &rows->host);
	CHECK(rows->nr_nodes <= s->nr_nodes + s->nr_lruvecs);
}

/* Pack s with memcg i as path id i + 7, unpack, and compare. */
static void check_pack(const struct lru_snapshot *s, const struct lru_fleet_rows *rows)
{
	uint64_t *ids = malloc((s->nr_memcgs + 1) * sizeof(*ids));
	struct lru_node_mem nodes[8];
	struct lru_fleet_reader r;
	struct lru_fleet_lruvec lv;
	struct lru_error err;
	struct lru_buf blob;
	size_t i;

	CHECK(ids);
	for (i = 0; i < s->nr_memcgs; i++)
		ids[i] = i + 7;
	lru_buf_init(&blob);
	CHECK(!lru_fleet_pack(s, ids, &blob, &err));
	CHECK(!lru_fleet_unpack_begin(&r, blob.data, blob.len, rows->taken_ms, nodes, 8, &err));
	CHECK(r.nr_nodes == s->nr_nodes && r.nr_lruvecs == s->nr_lruvecs);
	for (i = 0; i < s->nr_nodes && i < 8; i++) {
		CHECK(nodes[i].node == s->nodes[i].node && nodes[i].total == s->nodes[i].total);
		CHECK(nodes[i].free == s->nodes[i].free && nodes[i].file == s->nodes[i].file);
		CHECK(nodes[i].anon == s->nodes[i].anon);
	}
	for (i = 0; i < s->nr_lruvecs; i++) {
		const struct lru_lruvec *want = &s->lruvecs[i];
		const struct lru_memcg *m = &s->memcgs[want->memcg];
		struct lru_fleet_cold c;

		CHECK(lru_fleet_unpack_next(&r, &lv, &err) == 1);
		CHECK(lv.path_id == want->memcg + 7 && lv.ino == m->ino && lv.memcg_id == m->id);
		CHECK(lv.lv.node == want->node && lv.lv.nr_gens == want->nr_gens);
		CHECK(lv.lv.warnings == want->warnings);
		for (unsigned g = 0; g < want->nr_gens; g++)
			check_same_gen(&lv.lv.gens[g], &want->gens[g]);
		lru_fleet_lruvec_cold(&lv.lv, s->page_size, &c);
		check_same_cold(&c, &rows->lv[i]);
	}
	CHECK(lru_fleet_unpack_next(&r, &lv, &err) == 0);
	/* the memcgs' reclaim counters: those with any, in order; a section iff some has stats */
	{
		struct lru_fleet_memcg m;
		bool any = false;

		for (i = 0; i < s->nr_memcgs; i++) {
			const struct lru_memcg *want = &s->memcgs[i];

			any |= want->has_stats;
			if (!want->has_stats || !(want->stats.pgsteal || want->stats.refault_anon ||
						  want->stats.refault_file))
				continue;
			CHECK(lru_fleet_unpack_memcg(&r, &m, &err) == 1);
			CHECK(m.path_id == i + 7 && m.pgsteal == want->stats.pgsteal);
			CHECK(m.refaulted == lru_sat_add_u64(want->stats.refault_anon,
							     want->stats.refault_file));
		}
		CHECK(r.has_memcgs == any);
		CHECK(lru_fleet_unpack_memcg(&r, &m, &err) == 0);
	}
	lru_buf_release(&blob);
	free(ids);
}

/*
 * The rollups: one working-set sample per lruvec at each threshold (the
 * store sums a path's lruvecs first; here each counts), encoded and merged
 * back.
 */
static void check_hist(const struct lru_snapshot *s, const struct lru_fleet_rows *rows)
{
	struct lru_hist h[LRU_FLEET_NR_THRESHOLDS], back[LRU_FLEET_NR_THRESHOLDS];
	struct lru_fleet_warn_counts warn = { { 0 } }, wback = { { 0 } };
	struct lru_buf out, wout;
	struct lru_error err;
	unsigned k;

	lru_buf_init(&out);
	lru_buf_init(&wout);
	for (k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
		lru_hist_init(&h[k]);
		lru_hist_init(&back[k]);
	}
	for (size_t i = 0; i < s->nr_lruvecs; i++) {
		for (k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++)
			CHECK(!lru_hist_add(&h[k], rows->lv[i].total - rows->lv[i].cold[k], 1, &err));
		lru_fleet_warn_count(&warn, rows->lv[i].warnings, 1);
	}
	CHECK(!lru_hist_set_encode(h, &out, &err));
	CHECK(!lru_hist_set_merge_blob(back, out.data, out.len, &err));
	CHECK(!lru_fleet_warn_counts_encode(&warn, &wout, &err));
	CHECK(!lru_fleet_warn_counts_merge_blob(&wback, wout.data, wout.len, &err));
	for (k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
		CHECK(back[k].count == s->nr_lruvecs && h[k].count == s->nr_lruvecs);
		CHECK(lru_hist_max(&back[k]) == lru_hist_max(&h[k]));
		CHECK(lru_hist_percentile(&back[k], 50) == lru_hist_percentile(&h[k], 50));
		if (k)
			CHECK(lru_hist_max(&h[k]) >= lru_hist_max(&h[k - 1]));
		lru_hist_release(&h[k]);
		lru_hist_release(&back[k]);
	}
	CHECK(!memcmp(&warn, &wback, sizeof(warn)));
	lru_buf_release(&out);
	lru_buf_release(&wout);
}

/* Encode the decoded batch and decode it again: the same snapshots. */
static void check_reencode(const struct lru_snapshot *snaps, size_t n)
{
	const struct lru_snapshot **ptrs = malloc((n + 1) * sizeof(*ptrs));
	struct lru_snapshot *again;
	struct lru_error err;
	uint8_t *buf;
	size_t len, m;

	CHECK(ptrs);
	for (size_t i = 0; i < n; i++)
		ptrs[i] = &snaps[i];
	CHECK(!lru_pb_encode_batch(ptrs, n, &buf, &len, &err));
	CHECK(!lru_pb_decode_batch(buf, len, &again, &m, &err));
	CHECK(m == n);
	for (size_t i = 0; i < n; i++)
		check_same_snapshot(&snaps[i], &again[i]);
	lru_pb_free_snapshots(again, m);
	free(buf);
	free(ptrs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lru_snapshot *snaps;
	struct lru_error err;
	enum lru_err rc;
	size_t n;

	size_t mem;

	lru_error_clear(&err);
	/* as the store decodes: within a memory bound of about 32 times the body */
	rc = lru_pb_decode_batch_max(data, size, size * 32 + (1u << 20), &snaps, &n, &mem, &err);
	if (rc) {
		CHECK(rc == LRU_EPROTO || rc == LRU_ENOMEM || rc == LRU_ERANGE);
		CHECK(err.code == rc && err.msg[0]);
		CHECK(!snaps && !n);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct lru_snapshot *s = &snaps[i];
		struct lru_fleet_rows rows;

		/* the store's bounds: a verdict with a reason, for any snapshot */
		rc = lru_snapshot_check(s, CHECK_NOW_MS, 300000, &err);
		CHECK(!rc || ((rc == LRU_ERANGE || rc == LRU_EPROTO) && err.msg[0]));
		CHECK(!lru_fleet_rows_build(s, &rows, &err));
		check_rows(s, &rows);
		check_pack(s, &rows);
		check_hist(s, &rows);
		lru_fleet_rows_release(&rows);
	}
	check_reencode(snaps, n);
	lru_pb_free_snapshots(snaps, n);
	return 0;
}
