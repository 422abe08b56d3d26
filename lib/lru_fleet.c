#include "lru_fleet.h"

#include <stdlib.h>
#include <string.h>

#include "lru_sat.h"

#define PACK_VERSION 2		/* written */
#define PACK_VERSION_V1 1	/* still read */
#define HIST_VERSION 1
#define GEN_EVICTED 0x08	/* lruvec flag: an evicted byte follows each generation */
#define GEN_BIRTH 0x10		/* lruvec flag: a birth delta follows each generation */
#define LV_WARNINGS 0x20	/* lruvec flag: its LRU_WARN_* bits follow its first seq */
#define LV_SAME_MEMCG 0x40	/* format 2: path id, inode and memcg id as the lruvec before */
#define LV_FLAGS_V1 0x3f	/* every flag and the generation count of format 1 */
#define LV_FLAGS 0x7f		/* ... of format 2 */
#define WARN_VERSION 1
#define MEMCG_SECTION 0x4d	/* 'M': the memcgs' reclaim counters follow the lruvecs */

static const struct {
	uint64_t ms;
	const char *name;
} thresholds[LRU_FLEET_NR_THRESHOLDS] = {
	{ 60000, "1m" }, { 120000, "2m" }, { 300000, "5m" }, { 600000, "10m" },
	{ 1800000, "30m" }, { 3600000, "1h" }, { 21600000, "6h" }, { 86400000, "24h" },
};

uint64_t lru_fleet_threshold_ms(unsigned k)
{
	return k < LRU_FLEET_NR_THRESHOLDS ? thresholds[k].ms : 0;
}

const char *lru_fleet_threshold_name(unsigned k)
{
	return k < LRU_FLEET_NR_THRESHOLDS ? thresholds[k].name : "?";
}

int lru_fleet_threshold_index(uint64_t ms)
{
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++)
		if (ms <= thresholds[k].ms)
			return (int)k;
	return -1;
}

/*
 * Generation g is cold at T when its successor is older than T
 * (lru_ws_lruvec, LRU_WS_STRICT); successors get younger with g, so the
 * cold generations at T are a prefix and the loop can stop at the first hot
 * one.
 */
void lru_fleet_lruvec_cold(const struct lru_lruvec *lv, uint32_t page_size,
			   struct lru_fleet_cold *out)
{
	uint64_t page = page_size ? page_size : 4096, bytes[LRU_MAX_GENS];
	unsigned g, k;

	memset(out, 0, sizeof(*out));
	out->warnings = lv->warnings;
	for (g = 0; g < lv->nr_gens && g < LRU_MAX_GENS; g++) {
		const struct lru_gen *gen = &lv->gens[g];

		bytes[g] = 0;
		for (int t = 0; t < LRU_NR_TYPES; t++)
			if (!(gen->evicted & (1u << t)))
				bytes[g] = lru_sat_add_u64(bytes[g], lru_sat_mul_u64(gen->pages[t], page));
		out->total = lru_sat_add_u64(out->total, bytes[g]);
	}
	for (k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++)
		for (g = 0; g + 1 < lv->nr_gens && g + 1 < LRU_MAX_GENS; g++) {
			if (lv->gens[g + 1].age_ms <= thresholds[k].ms)
				break;
			out->cold[k] = lru_sat_add_u64(out->cold[k], bytes[g]);
		}
}

void lru_fleet_cold_add(struct lru_fleet_cold *acc, const struct lru_fleet_cold *x)
{
	acc->total = lru_sat_add_u64(acc->total, x->total);
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++)
		acc->cold[k] = lru_sat_add_u64(acc->cold[k], x->cold[k]);
	acc->warnings |= x->warnings;
}

int64_t lru_fleet_taken_ms(const struct lru_snapshot *snap)
{
	return lru_sat_mid_i64(snap->read_start_ms, snap->read_end_ms);
}

static struct lru_fleet_node *node_of(struct lru_fleet_rows *rows, int node)
{
	for (size_t i = 0; i < rows->nr_nodes; i++)
		if (rows->nodes[i].node == node)
			return &rows->nodes[i];
	memset(&rows->nodes[rows->nr_nodes], 0, sizeof(rows->nodes[0]));
	rows->nodes[rows->nr_nodes].node = node;
	return &rows->nodes[rows->nr_nodes++];
}

enum lru_err lru_fleet_rows_build(const struct lru_snapshot *snap, struct lru_fleet_rows *rows,
				  struct lru_error *err)
{
	memset(rows, 0, sizeof(*rows));
	rows->taken_ms = lru_fleet_taken_ms(snap);
	rows->lv = calloc(snap->nr_lruvecs ? snap->nr_lruvecs : 1, sizeof(*rows->lv));
	rows->nodes = calloc(snap->nr_nodes + snap->nr_lruvecs + 1, sizeof(*rows->nodes));
	if (!rows->lv || !rows->nodes) {
		lru_fleet_rows_release(rows);
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < snap->nr_nodes; i++) {
		struct lru_fleet_node *n = node_of(rows, snap->nodes[i].node);

		n->mem_total = snap->nodes[i].total;
		n->mem_free = snap->nodes[i].free;
		rows->mem_total = lru_sat_add_u64(rows->mem_total, n->mem_total);
		rows->mem_free = lru_sat_add_u64(rows->mem_free, n->mem_free);
	}
	for (size_t i = 0; i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];

		lru_fleet_lruvec_cold(lv, snap->page_size, &rows->lv[i]);
		lru_fleet_cold_add(&rows->host, &rows->lv[i]);
		lru_fleet_cold_add(&node_of(rows, lv->node)->cold, &rows->lv[i]);
	}
	return LRU_OK;
}

void lru_fleet_rows_release(struct lru_fleet_rows *rows)
{
	free(rows->lv);
	free(rows->nodes);
	memset(rows, 0, sizeof(*rows));
}

/* ---- packed generations ------------------------------------------------ */

/* a memcg whose reclaim counters are written: it has some (absent ones are 0) */
static bool memcg_counted(const struct lru_memcg *m)
{
	return m->has_stats && (m->stats.pgsteal || m->stats.refault_anon || m->stats.refault_file);
}

/*
 * The memcgs' reclaim counters, after the lruvecs: a section whenever some
 * memcg has stats (a memcg with stats and no entry has counters 0), none
 * when the collector read no memory.stat.
 */
static enum lru_err pack_memcgs(const struct lru_snapshot *snap, const uint64_t *path_ids,
				struct lru_buf *out, struct lru_error *err)
{
	size_t i, n = 0;
	bool any = false;
	enum lru_err rc;

	for (i = 0; i < snap->nr_memcgs; i++) {
		n += memcg_counted(&snap->memcgs[i]);
		any |= snap->memcgs[i].has_stats;
	}
	if (!any)
		return LRU_OK;
	if ((rc = lru_buf_reserve(out, 1 + LRU_BUF_VARINT_MAX + n * 3 * LRU_BUF_VARINT_MAX, err)))
		return rc;
	out->data[out->len++] = MEMCG_SECTION;
	lru_buf_put_varint(out, n);
	for (i = 0; i < snap->nr_memcgs; i++) {
		const struct lru_memcg *m = &snap->memcgs[i];

		if (!memcg_counted(m))
			continue;
		lru_buf_put_varint(out, path_ids[i]);
		lru_buf_put_varint(out, m->stats.pgsteal);
		lru_buf_put_varint(out, lru_sat_add_u64(m->stats.refault_anon, m->stats.refault_file));
	}
	return LRU_OK;
}

/* v - prev as a zigzag varint: small either way, and exact (it wraps back) */
static void put_delta(struct lru_buf *out, uint64_t v, uint64_t prev)
{
	lru_buf_put_svarint(out, (int64_t)(v - prev));
}

enum lru_err lru_fleet_pack(const struct lru_snapshot *snap, const uint64_t *path_ids,
			    struct lru_buf *out, struct lru_error *err)
{
	int64_t mid = lru_fleet_taken_ms(snap);
	struct lru_fleet_prev prev = { 0 };
	enum lru_err rc;
	size_t i;

	rc = lru_buf_reserve(out, 1 + 2 * LRU_BUF_VARINT_MAX +
				  snap->nr_nodes * 5 * LRU_BUF_VARINT_MAX, err);
	if (rc)
		return rc;
	out->data[out->len++] = PACK_VERSION;
	lru_buf_put_varint(out, snap->nr_nodes);
	for (i = 0; i < snap->nr_nodes; i++) {
		const struct lru_node_mem *nm = &snap->nodes[i];

		lru_buf_put_varint(out, (uint64_t)nm->node);
		lru_buf_put_varint(out, nm->total);
		lru_buf_put_varint(out, nm->free);
		lru_buf_put_varint(out, nm->file);
		lru_buf_put_varint(out, nm->anon);
	}
	lru_buf_put_varint(out, snap->nr_lruvecs);
	for (i = 0; i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];
		const struct lru_memcg *m = &snap->memcgs[lv->memcg];
		uint8_t flags = (uint8_t)lv->nr_gens;
		unsigned g;

		if (lv->nr_gens < 1 || lv->nr_gens > LRU_MAX_GENS || lv->memcg >= snap->nr_memcgs)
			return lru_fail(err, LRU_EINVAL, "lruvec %zu is not valid", i);
		for (g = 0; g < lv->nr_gens; g++) {
			if (lv->gens[g].evicted)
				flags |= GEN_EVICTED;
			if (lv->gens[g].birth_ms != lru_sat_sub_i64(mid, lv->gens[g].age_ms))
				flags |= GEN_BIRTH;
		}
		if (lv->warnings)
			flags |= LV_WARNINGS;
		if (path_ids[lv->memcg] == prev.path_id && m->ino == prev.ino && m->id == prev.memcg_id)
			flags |= LV_SAME_MEMCG;
		rc = lru_buf_reserve(out, 7 * LRU_BUF_VARINT_MAX + 1 +
					  LRU_MAX_GENS * (4 * LRU_BUF_VARINT_MAX + 1), err);
		if (rc)
			return rc;
		out->data[out->len++] = flags;
		if (!(flags & LV_SAME_MEMCG)) {
			put_delta(out, path_ids[lv->memcg], prev.path_id);
			put_delta(out, m->ino, prev.ino);
			put_delta(out, m->id, prev.memcg_id);
		}
		lru_buf_put_varint(out, (uint64_t)lv->node);
		put_delta(out, lv->gens[0].seq, prev.seq);
		if (flags & LV_WARNINGS)
			lru_buf_put_varint(out, lv->warnings);
		for (g = 0; g < lv->nr_gens; g++) {
			const struct lru_gen *gen = &lv->gens[g];
			unsigned k = lv->nr_gens - 1 - g;	/* from the youngest */

			put_delta(out, gen->age_ms, prev.age_ms[k]);
			prev.age_ms[k] = gen->age_ms;
			lru_buf_put_varint(out, gen->pages[LRU_ANON]);
			lru_buf_put_varint(out, gen->pages[LRU_FILE]);
			if (flags & GEN_EVICTED)
				out->data[out->len++] = gen->evicted;
			if (flags & GEN_BIRTH)
				lru_buf_put_svarint(out, lru_wrap_sub_i64(gen->birth_ms,
							lru_sat_sub_i64(mid, gen->age_ms)));
		}
		prev.path_id = path_ids[lv->memcg];
		prev.ino = m->ino;
		prev.memcg_id = m->id;
		prev.seq = lv->gens[0].seq;
	}
	return pack_memcgs(snap, path_ids, out, err);
}

static enum lru_err corrupt(struct lru_error *err, const char *what)
{
	return lru_fail(err, LRU_EPROTO, "packed generations: %s", what);
}

enum lru_err lru_fleet_unpack_begin(struct lru_fleet_reader *r, const void *blob, size_t len,
				    int64_t mid_ms, struct lru_node_mem *nodes, size_t max_nodes,
				    struct lru_error *err)
{
	uint64_t n, v[5];
	size_t i;

	memset(r, 0, sizeof(*r));
	r->mid_ms = mid_ms;
	r->version = len ? *(const uint8_t *)blob : 0;	/* blob may be NULL when len is 0 */
	if (r->version != PACK_VERSION_V1 && r->version != PACK_VERSION)
		return corrupt(err, "unknown format version");
	r->p = blob;
	r->end = r->p + len;
	r->p++;
	if (lru_get_varint(&r->p, r->end, &n) || n > LRU_NODE_MAX + 1)
		return corrupt(err, "bad node count");
	r->nr_nodes = (size_t)n;
	for (i = 0; i < r->nr_nodes; i++) {
		for (int f = 0; f < 5; f++)
			if (lru_get_varint(&r->p, r->end, &v[f]))
				return corrupt(err, "truncated node memory");
		if (v[0] > LRU_NODE_MAX)
			return corrupt(err, "bad node id");
		if (i < max_nodes)
			nodes[i] = (struct lru_node_mem){ (int)v[0], v[1], v[2], v[3], v[4] };
	}
	if (lru_get_varint(&r->p, r->end, &n) || n > len)
		return corrupt(err, "bad lruvec count");
	r->nr_lruvecs = (size_t)n;
	return LRU_OK;
}

/* *v += the next zigzag varint (format 2's deltas); non-zero when truncated */
static int get_delta(struct lru_fleet_reader *r, uint64_t *v)
{
	int64_t d;

	if (lru_get_svarint(&r->p, r->end, &d))
		return -1;
	*v += (uint64_t)d;
	return 0;
}

int lru_fleet_unpack_next(struct lru_fleet_reader *r, struct lru_fleet_lruvec *out,
			  struct lru_error *err)
{
	uint64_t node, seq, age, anon, file, warnings = 0;
	unsigned g, nr;
	uint8_t flags;

	if (r->next >= r->nr_lruvecs) {
		if (r->p < r->end && *r->p == MEMCG_SECTION && !r->has_memcgs) {
			uint64_t n;

			r->p++;
			if (lru_get_varint(&r->p, r->end, &n) || n > (uint64_t)(r->end - r->p))
				return corrupt(err, "bad memcg count"), -1;
			r->nr_memcgs = (size_t)n;
			r->has_memcgs = true;
		}
		return r->has_memcgs || r->p == r->end ? 0 : (corrupt(err, "trailing bytes"), -1);
	}
	memset(out, 0, sizeof(*out));
	if (r->version == PACK_VERSION_V1) {
		if (lru_get_varint(&r->p, r->end, &out->path_id) ||
		    lru_get_varint(&r->p, r->end, &out->ino) ||
		    lru_get_varint(&r->p, r->end, &out->memcg_id) ||
		    lru_get_varint(&r->p, r->end, &node) || r->p >= r->end)
			return corrupt(err, "truncated lruvec"), -1;
		flags = *r->p++;
		if (flags & ~LV_FLAGS_V1)
			return corrupt(err, "bad lruvec header"), -1;
		if (lru_get_varint(&r->p, r->end, &seq))
			return corrupt(err, "bad sequence number"), -1;
	} else {
		if (r->p >= r->end)
			return corrupt(err, "truncated lruvec"), -1;
		flags = *r->p++;
		if (flags & ~LV_FLAGS)
			return corrupt(err, "bad lruvec header"), -1;
		out->path_id = r->prev.path_id;
		out->ino = r->prev.ino;
		out->memcg_id = r->prev.memcg_id;
		seq = r->prev.seq;
		if ((!(flags & LV_SAME_MEMCG) &&
		     (get_delta(r, &out->path_id) || get_delta(r, &out->ino) ||
		      get_delta(r, &out->memcg_id))) ||
		    lru_get_varint(&r->p, r->end, &node))
			return corrupt(err, "truncated lruvec"), -1;
		if (get_delta(r, &seq))
			return corrupt(err, "bad sequence number"), -1;
	}
	nr = flags & 0x07;
	if (node > LRU_NODE_MAX || nr < 1 || nr > LRU_MAX_GENS)
		return corrupt(err, "bad lruvec header"), -1;
	if (seq > UINT64_MAX - (nr - 1))
		return corrupt(err, "bad sequence number"), -1;
	if ((flags & LV_WARNINGS) &&
	    (lru_get_varint(&r->p, r->end, &warnings) || warnings > UINT32_MAX))
		return corrupt(err, "bad warnings"), -1;
	out->lv.warnings = (uint32_t)warnings;
	out->lv.node = (int)node;
	out->lv.nr_gens = nr;
	for (g = 0; g < nr; g++) {
		struct lru_gen *gen = &out->lv.gens[g];
		unsigned k = nr - 1 - g;
		int64_t delta = 0;

		age = r->prev.age_ms[k];
		if ((r->version == PACK_VERSION_V1 ? lru_get_varint(&r->p, r->end, &age)
						   : get_delta(r, &age)) ||
		    age > UINT32_MAX ||
		    lru_get_varint(&r->p, r->end, &anon) || lru_get_varint(&r->p, r->end, &file))
			return corrupt(err, "truncated generation"), -1;
		r->prev.age_ms[k] = age;
		if (flags & GEN_EVICTED) {
			if (r->p >= r->end || *r->p > 3)
				return corrupt(err, "bad evicted mark"), -1;
			gen->evicted = *r->p++;
		}
		if ((flags & GEN_BIRTH) && lru_get_svarint(&r->p, r->end, &delta))
			return corrupt(err, "truncated birth time"), -1;
		gen->seq = seq + g;
		gen->age_ms = (uint32_t)age;
		gen->pages[LRU_ANON] = anon;
		gen->pages[LRU_FILE] = file;
		gen->birth_ms = lru_wrap_add_i64(lru_sat_sub_i64(r->mid_ms, (int64_t)age), delta);
	}
	r->prev.path_id = out->path_id;
	r->prev.ino = out->ino;
	r->prev.memcg_id = out->memcg_id;
	r->prev.seq = seq;
	r->next++;
	return 1;
}

int lru_fleet_unpack_memcg(struct lru_fleet_reader *r, struct lru_fleet_memcg *out,
			   struct lru_error *err)
{
	if (r->next < r->nr_lruvecs || (!r->has_memcgs && r->p != r->end))
		return corrupt(err, "memcg counters read before the lruvecs"), -1;
	if (r->next_memcg >= r->nr_memcgs)
		return r->p == r->end ? 0 : (corrupt(err, "trailing bytes"), -1);
	memset(out, 0, sizeof(*out));
	if (lru_get_varint(&r->p, r->end, &out->path_id) ||
	    lru_get_varint(&r->p, r->end, &out->pgsteal) ||
	    lru_get_varint(&r->p, r->end, &out->refaulted))
		return corrupt(err, "truncated memcg counters"), -1;
	r->next_memcg++;
	return 1;
}

/* ---- histograms ----------------------------------------------------------- */

void lru_hist_init(struct lru_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void lru_hist_release(struct lru_hist *h)
{
	free(h->b);
	lru_hist_init(h);
}

uint32_t lru_hist_bucket_of(uint64_t value)
{
	unsigned msb;

	if (value < 16)
		return (uint32_t)value;
	msb = 63u - (unsigned)__builtin_clzll(value);
	return 16 + (msb - 4) * 16 + (uint32_t)((value >> (msb - 4)) & 15);
}

/* Position of bucket index in h (insert point when absent). */
static size_t hist_find(const struct lru_hist *h, uint32_t index)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->b[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static enum lru_err hist_put(struct lru_hist *h, uint32_t index, uint64_t count, uint64_t max,
			     struct lru_error *err)
{
	size_t i = hist_find(h, index);

	if (!count)
		return LRU_OK;
	if (i == h->n || h->b[i].index != index) {
		if (h->n == h->alloc) {
			size_t alloc = h->alloc ? h->alloc * 2 : 8;
			struct lru_hist_bucket *b = realloc(h->b, alloc * sizeof(*b));

			if (!b)
				return lru_fail(err, LRU_ENOMEM, "out of memory growing a histogram");
			h->b = b;
			h->alloc = alloc;
		}
		memmove(&h->b[i + 1], &h->b[i], (h->n - i) * sizeof(*h->b));
		h->b[i] = (struct lru_hist_bucket){ index, 0, 0 };
		h->n++;
	}
	h->b[i].count += count;
	if (max > h->b[i].max)
		h->b[i].max = max;
	h->count += count;
	return LRU_OK;
}

enum lru_err lru_hist_add(struct lru_hist *h, uint64_t value, uint64_t count,
			  struct lru_error *err)
{
	return hist_put(h, lru_hist_bucket_of(value), count, value, err);
}

enum lru_err lru_hist_merge(struct lru_hist *dst, const struct lru_hist *src,
			    struct lru_error *err)
{
	for (size_t i = 0; i < src->n; i++) {
		enum lru_err rc = hist_put(dst, src->b[i].index, src->b[i].count, src->b[i].max, err);

		if (rc)
			return rc;
	}
	return LRU_OK;
}

uint64_t lru_hist_percentile(const struct lru_hist *h, double p)
{
	long double want;
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	want = (long double)p * (long double)h->count / 100.0L;
	rank = (uint64_t)want;
	if ((long double)rank < want)
		rank++;
	if (rank < 1)
		rank = 1;
	for (size_t i = 0; i < h->n; i++) {
		seen += h->b[i].count;
		if (seen >= rank)
			return h->b[i].max;
	}
	return h->b[h->n - 1].max;
}

uint64_t lru_hist_max(const struct lru_hist *h)
{
	return h->n ? h->b[h->n - 1].max : 0;
}

enum lru_err lru_hist_set_encode(const struct lru_hist *hs, struct lru_buf *out,
				 struct lru_error *err)
{
	enum lru_err rc = lru_buf_reserve(out, 1, err);

	if (rc)
		return rc;
	out->data[out->len++] = HIST_VERSION;
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
		const struct lru_hist *h = &hs[k];
		uint32_t prev = 0;

		rc = lru_buf_reserve(out, (1 + 3 * h->n) * LRU_BUF_VARINT_MAX, err);
		if (rc)
			return rc;
		lru_buf_put_varint(out, h->n);
		for (size_t i = 0; i < h->n; i++) {
			lru_buf_put_varint(out, h->b[i].index - prev);
			lru_buf_put_varint(out, h->b[i].count);
			lru_buf_put_varint(out, h->b[i].max);
			prev = h->b[i].index;
		}
	}
	return LRU_OK;
}

/* Decode a histogram set; add threshold k's into out[0], or all (k < 0) into out[t]. */
static enum lru_err merge_blob(struct lru_hist *out, int k, const void *blob, size_t len,
			       struct lru_error *err)
{
	const uint8_t *p = blob, *end;
	uint64_t n, delta, count, max;
	enum lru_err rc;

	if (!len || *p++ != HIST_VERSION)	/* blob may be NULL when len is 0 */
		return lru_fail(err, LRU_EPROTO, "histogram: unknown format version");
	end = p - 1 + len;
	for (unsigned t = 0; t < LRU_FLEET_NR_THRESHOLDS; t++) {
		uint64_t index = 0;

		if (lru_get_varint(&p, end, &n) || n > len)
			return lru_fail(err, LRU_EPROTO, "histogram: bad bucket count");
		for (uint64_t i = 0; i < n; i++) {
			if (lru_get_varint(&p, end, &delta) || lru_get_varint(&p, end, &count) ||
			    lru_get_varint(&p, end, &max))
				return lru_fail(err, LRU_EPROTO, "histogram: truncated");
			index += delta;
			if ((i && !delta) || index > lru_hist_bucket_of(UINT64_MAX) ||
			    lru_hist_bucket_of(max) != index)
				return lru_fail(err, LRU_EPROTO, "histogram: bad bucket");
			if (k >= 0 && (unsigned)k != t)
				continue;
			rc = hist_put(&out[k < 0 ? t : 0], (uint32_t)index, count, max, err);
			if (rc)
				return rc;
		}
	}
	return p == end ? LRU_OK : lru_fail(err, LRU_EPROTO, "histogram: trailing bytes");
}

enum lru_err lru_hist_set_merge_blob(struct lru_hist *hs, const void *blob, size_t len,
				     struct lru_error *err)
{
	return merge_blob(hs, -1, blob, len, err);
}

enum lru_err lru_hist_merge_blob(struct lru_hist *h, unsigned k, const void *blob, size_t len,
				 struct lru_error *err)
{
	if (k >= LRU_FLEET_NR_THRESHOLDS)
		return lru_fail(err, LRU_EINVAL, "no threshold %u", k);
	return merge_blob(h, (int)k, blob, len, err);
}

/* ---- warning counts ------------------------------------------------------- */

void lru_fleet_warn_count(struct lru_fleet_warn_counts *c, uint32_t mask, uint64_t count)
{
	for (unsigned b = 0; b < LRU_FLEET_WARN_BITS; b++)
		if (mask & (1u << b))
			c->n[b] += count;
}

void lru_fleet_warn_counts_merge(struct lru_fleet_warn_counts *dst,
				 const struct lru_fleet_warn_counts *src)
{
	for (unsigned b = 0; b < LRU_FLEET_WARN_BITS; b++)
		dst->n[b] += src->n[b];
}

uint32_t lru_fleet_warn_counts_mask(const struct lru_fleet_warn_counts *c)
{
	uint32_t mask = 0;

	for (unsigned b = 0; b < LRU_FLEET_WARN_BITS; b++)
		if (c->n[b])
			mask |= 1u << b;
	return mask;
}

enum lru_err lru_fleet_warn_counts_encode(const struct lru_fleet_warn_counts *c,
					  struct lru_buf *out, struct lru_error *err)
{
	enum lru_err rc;

	if (!lru_fleet_warn_counts_mask(c))
		return LRU_OK;
	rc = lru_buf_reserve(out, 1 + 2 * LRU_FLEET_WARN_BITS * LRU_BUF_VARINT_MAX, err);
	if (rc)
		return rc;
	out->data[out->len++] = WARN_VERSION;
	for (unsigned b = 0; b < LRU_FLEET_WARN_BITS; b++)
		if (c->n[b]) {
			lru_buf_put_varint(out, b);
			lru_buf_put_varint(out, c->n[b]);
		}
	return LRU_OK;
}

/*
 * Bits ascend, each at most once; a bit of a newer build (below 32 but not
 * counted here) is skipped, so its counts are lost, not misread.
 */
enum lru_err lru_fleet_warn_counts_merge_blob(struct lru_fleet_warn_counts *c, const void *blob,
					      size_t len, struct lru_error *err)
{
	const uint8_t *p = blob, *end;
	struct lru_fleet_warn_counts add = { { 0 } };
	uint64_t bit, n;
	int64_t prev = -1;

	if (!len)	/* blob may be NULL then (sqlite's NULL or empty blob) */
		return LRU_OK;
	end = p + len;
	if (*p++ != WARN_VERSION)
		return lru_fail(err, LRU_EPROTO, "warning counts: unknown format version");
	while (p < end) {
		if (lru_get_varint(&p, end, &bit) || lru_get_varint(&p, end, &n))
			return lru_fail(err, LRU_EPROTO, "warning counts: truncated");
		if (bit >= 32 || (int64_t)bit <= prev || !n)
			return lru_fail(err, LRU_EPROTO, "warning counts: bad entry");
		prev = (int64_t)bit;
		if (bit < LRU_FLEET_WARN_BITS)
			add.n[bit] = n;
	}
	lru_fleet_warn_counts_merge(c, &add);
	return LRU_OK;
}

/* ---- globs ------------------------------------------------------------------ */

size_t lru_fleet_glob_prefix(const char *glob)
{
	return strcspn(glob, "*?[\\");
}
