/*
 * lru_pb.c - protobuf (lrugen.v1) encoding and decoding of snapshots.
 *
 * lru_pb_encode_batch() builds each snapshot's HostSnapshot message tree
 * (build_host(), the one place a snapshot field meets a message field) and
 * packs the batch with protobuf-c. A tree takes one allocation: plan()
 * counts the nodes, lruvecs, generations, tiers, walk stats, memcg stats and
 * warning codes, every message and pointer array is carved out of a single
 * block, and the put_*() functions fill them. Strings are borrowed from the
 * snapshot; only those that are not UTF-8 get their LRU_ESC_UTF8 form
 * written into the block (wire_str()).
 *
 * Decoding rules beyond the field mapping:
 *  - empty host, boot_id and kernel_release strings decode to NULL;
 *  - taken_at_ms is derived (the read midpoint) and not read back;
 *  - page_size 0 (an older sender that left it unset) means 4096; any other
 *    value that is not a power of two is rejected;
 *  - lruvecs with the same (memcg_id, memcg_path, memcg_inode) share one
 *    struct lru_memcg, in order of first appearance; MemcgStats attach to the
 *    first memcg with that path and inode, or to a new memcg with id 0
 *    appended after those of the lruvecs; two MemcgStats for one memcg, or
 *    two NodeMemory for one node, are rejected;
 *  - a generation with tiers or walk stats gives its lruvec a struct lru_full
 *    (has_tiers / has_walk set for that generation); tiers may be fewer than
 *    LRU_NR_TIERS (the missing ones stay zero); present bits beyond the
 *    counters this version knows are dropped.
 * Errors name the snapshot by its 0-based index in the batch (omitted by
 * lru_pb_snapshot_from_host) and the lruvec by memcg path and node.
 * Memcgs and lruvecs are looked up through lru_hash.h indices.
 */
#include "lru_pb.h"
#include "lru_esc.h"
#include "lru_hash.h"
#include "lru_sat.h"
#include "lru_warn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_INDEX SIZE_MAX
#define TC_MASK ((1u << LRU_TC_NR) - 1)
#define WALK_MASK ((1u << LRU_WALK_NR) - 1)
#define BLOCK_ALIGN _Alignof(max_align_t)

/*
 * Format "snapshot N WHAT: MSG" (each part optional) into err; index is
 * NO_INDEX outside a batch, what may be "" for the snapshot itself.
 */
static enum lru_err where_fail(struct lru_error *err, enum lru_err code, size_t index,
			       const char *what, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static enum lru_err where_vfail(struct lru_error *err, enum lru_err code, size_t index,
				const char *what, const char *fmt, va_list ap)
{
	char msg[LRU_ERRMSG_MAX], head[32] = "";

	if (!err)
		return code;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (index != NO_INDEX)
		snprintf(head, sizeof(head), "snapshot %zu", index);
	if (!*head && !*what)
		return lru_fail(err, code, "%s", msg);
	return lru_fail(err, code, "%s%s%s: %s", head, *head && *what ? " " : "", what, msg);
}

static enum lru_err where_fail(struct lru_error *err, enum lru_err code, size_t index,
			       const char *what, const char *fmt, ...)
{
	enum lru_err rc;
	va_list ap;

	va_start(ap, fmt);
	rc = where_vfail(err, code, index, what, fmt, ap);
	va_end(ap);
	return rc;
}

/* "lruvec '/jobs/web' node 1" (long paths cut) */
static void lruvec_what(char *buf, size_t size, const char *path, int node)
{
	snprintf(buf, size, "lruvec '%.80s' node %d", path, node);
}

/* ---- encoding ----------------------------------------------------------- */

static const Lrugen__V1__HostSnapshot host_init = LRUGEN__V1__HOST_SNAPSHOT__INIT;
static const Lrugen__V1__AgingSettings aging_init = LRUGEN__V1__AGING_SETTINGS__INIT;
static const Lrugen__V1__NodeMemory node_init = LRUGEN__V1__NODE_MEMORY__INIT;
static const Lrugen__V1__Lruvec lruvec_init = LRUGEN__V1__LRUVEC__INIT;
static const Lrugen__V1__Generation gen_init = LRUGEN__V1__GENERATION__INIT;
static const Lrugen__V1__Tier tier_init = LRUGEN__V1__TIER__INIT;
static const Lrugen__V1__TierCounters tc_init = LRUGEN__V1__TIER_COUNTERS__INIT;
static const Lrugen__V1__WalkStats walk_init = LRUGEN__V1__WALK_STATS__INIT;
static const Lrugen__V1__MemcgStats stats_init = LRUGEN__V1__MEMCG_STATS__INIT;

/* Byte offsets of each array in the block of one HostSnapshot tree. */
struct layout {
	size_t host, aging;
	size_t nodes, node_ptrs;
	size_t lruvecs, lruvec_ptrs;
	size_t gens, gen_ptrs;
	size_t tiers, tier_ptrs, counters;
	size_t walks;
	size_t stats, stat_ptrs;
	size_t warn_ptrs;	/* char * of every lruvec's and the host's warning codes */
	size_t paths;		/* char * of every memcg's wire path, when one needs fixing */
	size_t text;		/* the fixed strings (wire_str) */
	bool fix_paths;
	size_t total;
};

/* Where the next item of each kind goes, in the block of one tree. */
struct tree {
	Lrugen__V1__Generation *gens, **gen_ptrs;
	Lrugen__V1__Tier *tiers, **tier_ptrs;
	Lrugen__V1__TierCounters *counters;
	Lrugen__V1__WalkStats *walks;
	char **warn_ptrs;
	char **paths;		/* wire path of each memcg; NULL when all go as they are */
	char *text;
};

/* Reserve count items of size bytes at *off (aligned); false on overflow. */
static bool reserve(size_t *off, size_t count, size_t size, size_t *at)
{
	size_t start = (*off + BLOCK_ALIGN - 1) & ~(size_t)(BLOCK_ALIGN - 1);

	if (start < *off || (size && count > (SIZE_MAX - start) / size))
		return false;
	*at = start;
	*off = start + count * size;
	return true;
}

static char *str_or_empty(char *s)
{
	return s ? s : (char *)protobuf_c_empty_string;
}

/* Room the wire form of s needs in the text area: 0 for valid UTF-8 (sent as is). */
static size_t fix_size(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return !n || lru_utf8_valid(s, n) ? 0 : lru_esc(NULL, 0, s, n, LRU_ESC_UTF8) + 1;
}

/*
 * s as a proto3 string (see lru_pb.h): itself when it is valid UTF-8, else
 * its LRU_ESC_UTF8 form, written at *text (plan() counted the room).
 */
static char *wire_str(char *s, char **text)
{
	size_t size = fix_size(s);
	char *out = *text;

	if (!size)
		return str_or_empty(s);
	lru_esc(out, size, s, strlen(s), LRU_ESC_UTF8);
	*text += size;
	return out;
}

/* An lruvec the encoder can write: a valid memcg index and 1..LRU_MAX_GENS generations. */
static enum lru_err check_lruvec(const struct lru_snapshot *snap, size_t i, size_t index,
				 struct lru_error *err)
{
	const struct lru_lruvec *lv = &snap->lruvecs[i];

	if (lv->memcg >= snap->nr_memcgs)
		return where_fail(err, LRU_EINVAL, index, "", "lruvec %zu refers to memcg %zu of %zu",
				  i, lv->memcg, snap->nr_memcgs);
	if (!lv->nr_gens || lv->nr_gens > LRU_MAX_GENS) {
		char what[128];

		lruvec_what(what, sizeof(what), str_or_empty(snap->memcgs[lv->memcg].path), lv->node);
		return where_fail(err, LRU_EINVAL, index, what, "%u generations (expected 1 to %d)",
				  lv->nr_gens, LRU_MAX_GENS);
	}
	return LRU_OK;
}

/* Items of a tree beyond one per node, lruvec and memcg. */
struct counts {
	size_t gens, tiers, walks, stats, warnings, text;
};

/* Check snap's lruvecs and count what its tree holds. */
static enum lru_err count_items(const struct lru_snapshot *snap, size_t index, struct counts *c,
				bool *fix_paths, struct lru_error *err)
{
	size_t i, fix;
	unsigned g;

	*c = (struct counts){ 0 };
	for (i = 0; i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];
		enum lru_err rc = check_lruvec(snap, i, index, err);

		if (rc)
			return rc;
		c->gens += lv->nr_gens;
		c->warnings += (size_t)__builtin_popcount(lv->warnings);
		for (g = 0; lv->full && g < lv->nr_gens; g++) {
			c->tiers += lv->full->has_tiers[g] ? LRU_NR_TIERS : 0;
			c->walks += lv->full->has_walk[g];
		}
	}
	c->warnings += (size_t)__builtin_popcount(snap->host.warnings);
	c->text = fix_size(snap->host.host) + fix_size(snap->host.boot_id) +
		  fix_size(snap->host.kernel);
	*fix_paths = false;
	for (i = 0; i < snap->nr_memcgs; i++) {
		c->stats += snap->memcgs[i].has_stats;
		fix = fix_size(snap->memcgs[i].path);
		*fix_paths |= fix != 0;
		c->text += fix;
	}
	return LRU_OK;
}

/* Check snap and lay out the block of its tree. */
static enum lru_err plan(const struct lru_snapshot *snap, size_t index, struct layout *lo,
			 struct lru_error *err)
{
	struct counts c;
	size_t off = 0;
	enum lru_err rc = count_items(snap, index, &c, &lo->fix_paths, err);
	bool ok;

	if (rc)
		return rc;
	ok = reserve(&off, 1, sizeof(Lrugen__V1__HostSnapshot), &lo->host) &&
	     reserve(&off, 1, sizeof(Lrugen__V1__AgingSettings), &lo->aging) &&
	     reserve(&off, snap->nr_nodes, sizeof(Lrugen__V1__NodeMemory), &lo->nodes) &&
	     reserve(&off, snap->nr_nodes, sizeof(void *), &lo->node_ptrs) &&
	     reserve(&off, snap->nr_lruvecs, sizeof(Lrugen__V1__Lruvec), &lo->lruvecs) &&
	     reserve(&off, snap->nr_lruvecs, sizeof(void *), &lo->lruvec_ptrs) &&
	     reserve(&off, c.gens, sizeof(Lrugen__V1__Generation), &lo->gens) &&
	     reserve(&off, c.gens, sizeof(void *), &lo->gen_ptrs) &&
	     reserve(&off, c.tiers, sizeof(Lrugen__V1__Tier), &lo->tiers) &&
	     reserve(&off, c.tiers, sizeof(void *), &lo->tier_ptrs) &&
	     reserve(&off, c.tiers, 2 * sizeof(Lrugen__V1__TierCounters), &lo->counters) &&
	     reserve(&off, c.walks, sizeof(Lrugen__V1__WalkStats), &lo->walks) &&
	     reserve(&off, c.stats, sizeof(Lrugen__V1__MemcgStats), &lo->stats) &&
	     reserve(&off, c.stats, sizeof(void *), &lo->stat_ptrs) &&
	     reserve(&off, c.warnings, sizeof(char *), &lo->warn_ptrs) &&
	     reserve(&off, lo->fix_paths ? snap->nr_memcgs : 0, sizeof(char *), &lo->paths) &&
	     reserve(&off, c.text, 1, &lo->text);
	if (!ok)
		return where_fail(err, LRU_ENOMEM, index, "", "snapshot too large to encode");
	lo->total = off;
	return LRU_OK;
}

/* The warning codes of mask (static strings) at t->warn_ptrs; how many in *n. */
static char **put_warnings(struct tree *t, uint32_t mask, bool host, size_t *n)
{
	char **names = t->warn_ptrs;

	*n = 0;
	for (uint32_t bit = 1; bit && bit <= mask; bit <<= 1) {
		const char *name = !(mask & bit) ? NULL : host ? lru_hostwarn_name(bit)
								: lru_warn_name(bit);

		if (name)
			names[(*n)++] = (char *)name;
	}
	t->warn_ptrs += *n;
	return *n ? names : NULL;
}

static void put_header(Lrugen__V1__HostSnapshot *h, Lrugen__V1__AgingSettings *aging,
		       const struct lru_snapshot *snap, struct tree *t)
{
	*h = host_init;
	h->host = wire_str(snap->host.host, &t->text);
	h->boot_id = wire_str(snap->host.boot_id, &t->text);
	h->kernel_release = wire_str(snap->host.kernel, &t->text);
	h->seq = snap->host.seq;
	h->lru_gen_enabled = snap->host.enabled;
	h->taken_at_ms = lru_sat_mid_i64(snap->read_start_ms, snap->read_end_ms);
	h->read_start_ms = snap->read_start_ms;
	h->read_end_ms = snap->read_end_ms;
	h->birth_error_ms = snap->birth_error_ms;
	h->page_size = snap->page_size;
	h->duplicates_dropped = snap->nr_duplicates;
	h->source = (Lrugen__V1__Source)snap->source;
	h->warnings = put_warnings(t, snap->host.warnings, true, &h->n_warnings);

	*aging = aging_init;
	aging->enabled = snap->host.aging.enabled;
	aging->interval_ms = snap->host.aging.interval_ms;
	aging->jitter_ms = snap->host.aging.jitter_ms;
	aging->can_swap = snap->host.aging.can_swap;
	aging->force_scan = snap->host.aging.force_scan;
	h->aging = aging;
}

static void put_node(Lrugen__V1__NodeMemory *nm, const struct lru_node_mem *src)
{
	*nm = node_init;
	nm->node = src->node;
	nm->total_bytes = src->total;
	nm->free_bytes = src->free;
	nm->file_bytes = src->file;
	nm->anon_bytes = src->anon;
}

static void put_counters(Lrugen__V1__TierCounters *tc, const struct lru_tier *t,
			 enum lru_type type)
{
	*tc = tc_init;
	tc->refaulted = t->v[type][LRU_TC_REFAULTED];
	tc->evicted = t->v[type][LRU_TC_EVICTED];
	tc->protected_ = t->v[type][LRU_TC_PROTECTED];
	tc->avg_refaulted = t->v[type][LRU_TC_AVG_REFAULTED];
	tc->avg_total = t->v[type][LRU_TC_AVG_TOTAL];
	tc->present = (t->present >> (type * LRU_TC_NR)) & TC_MASK;
}

/* The LRU_NR_TIERS tiers of one generation (lru_gen_full). */
static void put_tiers(Lrugen__V1__Generation *gm, const struct lru_tier *src, struct tree *t)
{
	unsigned i;

	gm->n_tiers = LRU_NR_TIERS;
	gm->tiers = t->tier_ptrs;
	for (i = 0; i < LRU_NR_TIERS; i++) {
		Lrugen__V1__Tier *tm = t->tiers++;

		*tm = tier_init;
		tm->tier = i;
		put_counters(t->counters, &src[i], LRU_ANON);
		tm->anon = t->counters++;
		put_counters(t->counters, &src[i], LRU_FILE);
		tm->file = t->counters++;
		*t->tier_ptrs++ = tm;
	}
}

static void put_walk(Lrugen__V1__WalkStats *w, const struct lru_walk *src)
{
	*w = walk_init;
	w->leaf_total = src->v[LRU_WALK_LEAF_TOTAL];
	w->leaf_old = src->v[LRU_WALK_LEAF_OLD];
	w->leaf_young = src->v[LRU_WALK_LEAF_YOUNG];
	w->nonleaf_total = src->v[LRU_WALK_NONLEAF_TOTAL];
	w->bloom_found = src->v[LRU_WALK_BLOOM_FOUND];
	w->bloom_added = src->v[LRU_WALK_BLOOM_ADDED];
	w->present = src->present & WALK_MASK;
}

static void put_gen(const struct lru_lruvec *lv, unsigned g, struct tree *t)
{
	const struct lru_gen *src = &lv->gens[g];
	Lrugen__V1__Generation *gm = t->gens++;

	*gm = gen_init;
	gm->seq = src->seq;
	gm->age_ms = src->age_ms;
	gm->birth_ms = src->birth_ms;
	gm->anon_pages = src->pages[LRU_ANON];
	gm->file_pages = src->pages[LRU_FILE];
	gm->anon_evicted = !!(src->evicted & (1u << LRU_ANON));
	gm->file_evicted = !!(src->evicted & (1u << LRU_FILE));
	*t->gen_ptrs++ = gm;
	if (lv->full && lv->full->has_tiers[g])
		put_tiers(gm, lv->full->tiers[g], t);
	if (lv->full && lv->full->has_walk[g]) {
		put_walk(t->walks, &lv->full->walk[g]);
		gm->walk = t->walks++;
	}
}

/* The wire path of memcg i. */
static char *memcg_path(const struct lru_snapshot *snap, size_t i, const struct tree *t)
{
	return t->paths ? t->paths[i] : str_or_empty(snap->memcgs[i].path);
}

static void put_lruvec(Lrugen__V1__Lruvec *l, const struct lru_snapshot *snap, size_t i,
		       struct tree *t)
{
	const struct lru_lruvec *lv = &snap->lruvecs[i];
	const struct lru_memcg *m = &snap->memcgs[lv->memcg];
	unsigned g;

	*l = lruvec_init;
	l->memcg_id = m->id;
	l->memcg_path = memcg_path(snap, lv->memcg, t);
	l->memcg_inode = m->ino;
	l->node = lv->node;
	l->warnings = put_warnings(t, lv->warnings, false, &l->n_warnings);
	l->n_generations = lv->nr_gens;
	l->generations = t->gen_ptrs;
	for (g = 0; g < lv->nr_gens; g++)
		put_gen(lv, g, t);
}

static void put_stats(Lrugen__V1__MemcgStats *ms, const struct lru_memcg *m, char *path)
{
	*ms = stats_init;
	ms->memcg_path = path;
	ms->memcg_inode = m->ino;
	ms->anon_bytes = m->stats.anon_bytes;
	ms->file_bytes = m->stats.file_bytes;
	ms->workingset_refault_anon = m->stats.refault_anon;
	ms->workingset_refault_file = m->stats.refault_file;
	ms->memory_current_bytes = m->stats.current_bytes;
	ms->inactive_file_bytes = m->stats.inactive_file_bytes;
	ms->pressure_some_avg10 = m->stats.some_avg10;
	ms->pressure_full_avg10 = m->stats.full_avg10;
	ms->pressure_some_total_us = m->stats.some_total_us;
	ms->thp_bytes = m->stats.thp_bytes;
	ms->pgsteal = m->stats.pgsteal;
}

/* The memcgs with stats, in order. */
static void put_all_stats(Lrugen__V1__HostSnapshot *h, Lrugen__V1__MemcgStats *stats,
			  Lrugen__V1__MemcgStats **ptrs, const struct lru_snapshot *snap,
			  const struct tree *t)
{
	size_t i, n = 0;

	for (i = 0; i < snap->nr_memcgs; i++) {
		if (!snap->memcgs[i].has_stats)
			continue;
		put_stats(&stats[n], &snap->memcgs[i], memcg_path(snap, i, t));
		ptrs[n] = &stats[n];
		n++;
	}
	h->n_memcg_stats = n;
	h->memcg_stats = n ? ptrs : NULL;
}

/*
 * The HostSnapshot of snap, in one malloc'd block (free() it) whose strings
 * are borrowed from snap or written in the block (wire_str). Fails as
 * lru_pb_encode_batch() does; index names the snapshot in messages.
 */
static enum lru_err build_host(const struct lru_snapshot *snap, size_t index,
			       Lrugen__V1__HostSnapshot **out, struct lru_error *err)
{
	Lrugen__V1__HostSnapshot *h;
	Lrugen__V1__NodeMemory *nodes, **node_ptrs;
	Lrugen__V1__Lruvec *lvs, **lv_ptrs;
	struct layout lo = { 0 };
	struct tree t;
	enum lru_err rc;
	char *block;
	size_t i;

	*out = NULL;
	if (snap->source != LRU_SRC_DEBUGFS && snap->source != LRU_SRC_DEBUGFS_FULL &&
	    snap->source != LRU_SRC_CGROUP)
		return where_fail(err, LRU_EINVAL, index, "", "unknown source %d",
				  (int)snap->source);
	rc = plan(snap, index, &lo, err);
	if (rc)
		return rc;
	block = malloc(lo.total);
	if (!block)
		return where_fail(err, LRU_ENOMEM, index, "",
				  "out of memory encoding %zu lruvecs (%zu bytes)", snap->nr_lruvecs,
				  lo.total);
	t = (struct tree){
		.gens = (Lrugen__V1__Generation *)(block + lo.gens),
		.gen_ptrs = (Lrugen__V1__Generation **)(block + lo.gen_ptrs),
		.tiers = (Lrugen__V1__Tier *)(block + lo.tiers),
		.tier_ptrs = (Lrugen__V1__Tier **)(block + lo.tier_ptrs),
		.counters = (Lrugen__V1__TierCounters *)(block + lo.counters),
		.walks = (Lrugen__V1__WalkStats *)(block + lo.walks),
		.warn_ptrs = (char **)(block + lo.warn_ptrs),
		.paths = lo.fix_paths ? (char **)(block + lo.paths) : NULL,
		.text = block + lo.text,
	};
	for (i = 0; t.paths && i < snap->nr_memcgs; i++)
		t.paths[i] = wire_str(snap->memcgs[i].path, &t.text);

	h = (Lrugen__V1__HostSnapshot *)(block + lo.host);
	put_header(h, (Lrugen__V1__AgingSettings *)(block + lo.aging), snap, &t);
	nodes = (Lrugen__V1__NodeMemory *)(block + lo.nodes);
	node_ptrs = (Lrugen__V1__NodeMemory **)(block + lo.node_ptrs);
	for (i = 0; i < snap->nr_nodes; i++) {
		put_node(&nodes[i], &snap->nodes[i]);
		node_ptrs[i] = &nodes[i];
	}
	h->n_nodes = snap->nr_nodes;
	h->nodes = snap->nr_nodes ? node_ptrs : NULL;
	lvs = (Lrugen__V1__Lruvec *)(block + lo.lruvecs);
	lv_ptrs = (Lrugen__V1__Lruvec **)(block + lo.lruvec_ptrs);
	for (i = 0; i < snap->nr_lruvecs; i++) {
		put_lruvec(&lvs[i], snap, i, &t);
		lv_ptrs[i] = &lvs[i];
	}
	h->n_lruvecs = snap->nr_lruvecs;
	h->lruvecs = snap->nr_lruvecs ? lv_ptrs : NULL;
	put_all_stats(h, (Lrugen__V1__MemcgStats *)(block + lo.stats),
		      (Lrugen__V1__MemcgStats **)(block + lo.stat_ptrs), snap, &t);
	*out = h;
	return LRU_OK;
}

enum lru_err lru_pb_encode_batch(const struct lru_snapshot *const *snaps, size_t n,
				 uint8_t **out, size_t *len, struct lru_error *err)
{
	Lrugen__V1__SnapshotBatch batch = LRUGEN__V1__SNAPSHOT_BATCH__INIT;
	Lrugen__V1__HostSnapshot **hosts;
	enum lru_err rc = LRU_OK;
	size_t size, i;

	*out = NULL;
	*len = 0;
	hosts = calloc(n ? n : 1, sizeof(*hosts));
	if (!hosts)
		return lru_fail(err, LRU_ENOMEM, "out of memory encoding %zu snapshots", n);
	for (i = 0; i < n && !rc; i++)
		rc = build_host(snaps[i], i, &hosts[i], err);
	if (rc)
		goto done;
	batch.n_snapshots = n;
	batch.snapshots = n ? hosts : NULL;
	size = lrugen__v1__snapshot_batch__get_packed_size(&batch);
	if (size > LRU_PB_MAX_MESSAGE) {
		rc = lru_fail(err, LRU_ERANGE,
			      "SnapshotBatch of %zu snapshots needs %zu bytes, more than the %u-byte limit",
			      n, size, LRU_PB_MAX_MESSAGE);
		goto done;
	}
	*out = malloc(size ? size : 1);
	if (!*out) {
		rc = lru_fail(err, LRU_ENOMEM, "out of memory for a %zu-byte SnapshotBatch", size);
		goto done;
	}
	*len = lrugen__v1__snapshot_batch__pack(&batch, *out);
done:
	for (i = 0; i < n; i++)
		free(hosts[i]);
	free(hosts);
	return rc;
}

/* ---- decoding ----------------------------------------------------------- */

/* Hash of a memcg's (id, path, inode); id 0 for the index by path and inode. */
static uint64_t hash_memcg(const char *path, uint64_t ino, uint64_t id)
{
	return lru_hash_bytes(lru_hash_mix64(ino) ^ id, path, strlen(path));
}

struct decoder {
	struct lru_snapshot *snap;
	struct lru_error *err;
	size_t index;			/* in the batch, or NO_INDEX */
	struct lru_hash by_id;		/* (id, path, inode) -> memcg */
	struct lru_hash by_path;	/* (path, inode) -> first memcg with them */
	struct lru_hash lruvecs;	/* (memcg, node) -> lruvec */
};

/*
 * The part of the message a decode error is about, formatted only when there
 * is an error (a batch holds thousands of lruvecs, and formatting each one's
 * name up front cost a sixth of the store's decoding).
 */
enum where_kind {
	AT_SNAPSHOT,		/* "" (the snapshot itself) */
	AT_LRUVEC_INDEX,	/* "lruvec I" */
	AT_LRUVEC_ID,		/* "lruvec I (memcg id N)" */
	AT_LRUVEC,		/* "lruvec 'PATH' node N" */
	AT_STATS_INDEX,		/* "memcg stats I" */
	AT_STATS,		/* "memcg stats of 'PATH' inode N" */
	AT_NODE,		/* "node memory I" */
};

struct where {
	enum where_kind kind;
	size_t i;
	unsigned long long n;	/* memcg id, inode */
	int node;
	const char *path;
};

static const struct where at_snapshot = { AT_SNAPSHOT, 0, 0, 0, NULL };

static void where_text(const struct where *w, char *buf, size_t size)
{
	switch (w->kind) {
	case AT_SNAPSHOT:
		*buf = '\0';
		break;
	case AT_LRUVEC_INDEX:
		snprintf(buf, size, "lruvec %zu", w->i);
		break;
	case AT_LRUVEC_ID:
		snprintf(buf, size, "lruvec %zu (memcg id %llu)", w->i, w->n);
		break;
	case AT_LRUVEC:
		lruvec_what(buf, size, w->path, w->node);
		break;
	case AT_STATS_INDEX:
		snprintf(buf, size, "memcg stats %zu", w->i);
		break;
	case AT_STATS:
		snprintf(buf, size, "memcg stats of '%.80s' inode %llu", w->path, w->n);
		break;
	case AT_NODE:
		snprintf(buf, size, "node memory %zu", w->i);
		break;
	}
}

static enum lru_err dfail_code(struct decoder *d, enum lru_err code, const struct where *w,
			       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum lru_err dfail_code(struct decoder *d, enum lru_err code, const struct where *w,
			       const char *fmt, ...)
{
	char what[128];
	enum lru_err rc;
	va_list ap;

	where_text(w, what, sizeof(what));
	va_start(ap, fmt);
	rc = where_vfail(d->err, code, d->index, what, fmt, ap);
	va_end(ap);
	return rc;
}

#define dfail(d, w, ...) dfail_code((d), LRU_EPROTO, (w), __VA_ARGS__)

static const char *str_or_blank(const char *s)
{
	return s ? s : "";
}

static enum lru_err copy_string(struct decoder *d, char **dst, const char *src)
{
	if (!src || !*src)
		return LRU_OK;
	*dst = strdup(src);
	if (!*dst)
		return where_fail(d->err, LRU_ENOMEM, d->index, "", "out of memory copying a string");
	return LRU_OK;
}

static enum lru_err check_path(struct decoder *d, const char *path, const struct where *what)
{
	size_t n = strnlen(path, LRU_PATH_MAX + 1);

	if (n > LRU_PATH_MAX)
		return dfail(d, what, "memcg path '%.40s...' is longer than %d bytes", path,
			     LRU_PATH_MAX);
	return LRU_OK;
}

static bool node_ok(int32_t node)
{
	return node >= 0 && node <= LRU_NODE_MAX;
}

/* The memcg of (path, inode) or SIZE_MAX. */
static size_t find_by_path(struct decoder *d, const char *path, uint64_t ino)
{
	size_t cursor = SIZE_MAX, idx;
	uint64_t h = hash_memcg(path, ino, 0);

	while (lru_hash_next(&d->by_path, h, &cursor, &idx)) {
		const struct lru_memcg *m = &d->snap->memcgs[idx];

		if (m->ino == ino && !strcmp(m->path, path))
			return idx;
	}
	return SIZE_MAX;
}

static enum lru_err new_memcg(struct decoder *d, uint64_t id, const char *path, uint64_t ino,
			      size_t *out)
{
	enum lru_err rc;

	rc = lru_snapshot_add_memcg(d->snap, id, path, strlen(path), out, d->err);
	if (rc)
		return rc;
	d->snap->memcgs[*out].ino = ino;
	if (lru_hash_put(&d->by_id, hash_memcg(path, ino, id), *out) ||
	    (find_by_path(d, path, ino) == SIZE_MAX &&
	     lru_hash_put(&d->by_path, hash_memcg(path, ino, 0), *out)))
		return where_fail(d->err, LRU_ENOMEM, d->index, "", "out of memory indexing memcgs");
	return LRU_OK;
}

/* The memcg of (id, path, inode), added if new. */
static enum lru_err get_memcg(struct decoder *d, uint64_t id, const char *path, uint64_t ino,
			      size_t *out)
{
	size_t cursor = SIZE_MAX, idx;
	uint64_t h = hash_memcg(path, ino, id);

	while (lru_hash_next(&d->by_id, h, &cursor, &idx)) {
		const struct lru_memcg *m = &d->snap->memcgs[idx];

		if (m->id == id && m->ino == ino && !strcmp(m->path, path)) {
			*out = idx;
			return LRU_OK;
		}
	}
	return new_memcg(d, id, path, ino, out);
}

static void get_counters(struct lru_tier *t, const Lrugen__V1__TierCounters *tc,
			 enum lru_type type)
{
	if (!tc)
		return;
	t->v[type][LRU_TC_REFAULTED] = tc->refaulted;
	t->v[type][LRU_TC_EVICTED] = tc->evicted;
	t->v[type][LRU_TC_PROTECTED] = tc->protected_;
	t->v[type][LRU_TC_AVG_REFAULTED] = tc->avg_refaulted;
	t->v[type][LRU_TC_AVG_TOTAL] = tc->avg_total;
	t->present |= (tc->present & TC_MASK) << (type * LRU_TC_NR);
}

static void get_walk(struct lru_walk *w, const Lrugen__V1__WalkStats *src)
{
	w->v[LRU_WALK_LEAF_TOTAL] = src->leaf_total;
	w->v[LRU_WALK_LEAF_OLD] = src->leaf_old;
	w->v[LRU_WALK_LEAF_YOUNG] = src->leaf_young;
	w->v[LRU_WALK_NONLEAF_TOTAL] = src->nonleaf_total;
	w->v[LRU_WALK_BLOOM_FOUND] = src->bloom_found;
	w->v[LRU_WALK_BLOOM_ADDED] = src->bloom_added;
	w->present = src->present & WALK_MASK;
}

static enum lru_err decode_tiers(struct decoder *d, struct lru_lruvec *lv, unsigned g,
				 const Lrugen__V1__Generation *gm, const struct where *what)
{
	unsigned seen = 0;
	size_t i;

	if (gm->n_tiers > LRU_NR_TIERS)
		return dfail(d, what, "generation %llu has %zu tiers (at most %d)",
			     (unsigned long long)gm->seq, gm->n_tiers, LRU_NR_TIERS);
	for (i = 0; i < gm->n_tiers; i++) {
		const Lrugen__V1__Tier *tm = gm->tiers[i];
		struct lru_tier *t;

		if (!tm)
			return dfail(d, what, "tier entry %zu of generation %llu is missing", i,
				     (unsigned long long)gm->seq);
		if (tm->tier >= LRU_NR_TIERS)
			return dfail(d, what, "tier %u of generation %llu is out of range (0..%d)",
				     tm->tier, (unsigned long long)gm->seq, LRU_NR_TIERS - 1);
		if (seen & (1u << tm->tier))
			return dfail(d, what, "tier %u of generation %llu is repeated", tm->tier,
				     (unsigned long long)gm->seq);
		seen |= 1u << tm->tier;
		t = &lv->full->tiers[g][tm->tier];
		get_counters(t, tm->anon, LRU_ANON);
		get_counters(t, tm->file, LRU_FILE);
	}
	lv->full->has_tiers[g] = gm->n_tiers > 0;
	return LRU_OK;
}

static enum lru_err decode_gens(struct decoder *d, struct lru_lruvec *lv,
				const Lrugen__V1__Lruvec *lm, const struct where *what)
{
	enum lru_err rc;
	unsigned g;

	if (!lm->n_generations)
		return dfail(d, what, "no generations");
	if (lm->n_generations > LRU_MAX_GENS)
		return dfail(d, what, "%zu generations (at most %d)", lm->n_generations,
			     LRU_MAX_GENS);
	for (g = 0; g < lm->n_generations; g++) {
		const Lrugen__V1__Generation *gm = lm->generations[g];
		struct lru_gen *gen = &lv->gens[g];

		if (!gm)
			return dfail(d, what, "generation entry %u is missing", g);
		if (g && (lv->gens[g - 1].seq == UINT64_MAX || gm->seq != lv->gens[g - 1].seq + 1))
			return dfail(d, what, "generation seq %llu follows %llu",
				     (unsigned long long)gm->seq,
				     (unsigned long long)lv->gens[g - 1].seq);
		gen->seq = gm->seq;
		gen->age_ms = gm->age_ms;
		gen->birth_ms = gm->birth_ms;
		gen->pages[LRU_ANON] = gm->anon_pages;
		gen->pages[LRU_FILE] = gm->file_pages;
		gen->evicted = (uint8_t)((gm->anon_evicted ? 1u << LRU_ANON : 0) |
					 (gm->file_evicted ? 1u << LRU_FILE : 0));
		lv->nr_gens = g + 1;
		if (!gm->n_tiers && !gm->walk)
			continue;
		if (!lv->full && !(lv->full = calloc(1, sizeof(*lv->full))))
			return dfail_code(d, LRU_ENOMEM, what, "out of memory for lru_gen_full detail");
		rc = decode_tiers(d, lv, g, gm, what);
		if (rc)
			return rc;
		if (gm->walk) {
			get_walk(&lv->full->walk[g], gm->walk);
			lv->full->has_walk[g] = true;
		}
	}
	return LRU_OK;
}

static enum lru_err decode_lruvec(struct decoder *d, size_t i, const Lrugen__V1__Lruvec *lm)
{
	struct lru_snapshot *snap = d->snap;
	struct lru_lruvec *lv;
	const char *path;
	struct where what = { AT_LRUVEC_INDEX, i, 0, 0, NULL };
	size_t memcg, cursor = SIZE_MAX, other;
	uint64_t key;
	enum lru_err rc;

	if (!lm)
		return dfail(d, &what, "entry is missing");
	path = str_or_blank(lm->memcg_path);
	what = (struct where){ AT_LRUVEC_ID, i, lm->memcg_id, 0, NULL };
	rc = check_path(d, path, &what);
	if (rc)
		return rc;
	what = (struct where){ AT_LRUVEC, i, 0, lm->node, path };
	if (!node_ok(lm->node))
		return dfail(d, &what, "node is out of range (0..%d)", LRU_NODE_MAX);
	rc = get_memcg(d, lm->memcg_id, path, lm->memcg_inode, &memcg);
	if (rc)
		return rc;
	key = lru_hash_mix64((uint64_t)memcg << 16 | (uint64_t)lm->node);
	while (lru_hash_next(&d->lruvecs, key, &cursor, &other))
		if (snap->lruvecs[other].memcg == memcg && snap->lruvecs[other].node == lm->node)
			return dfail(d, &what, "repeats lruvec %zu (memcg id %llu, inode %llu)",
				     other, (unsigned long long)lm->memcg_id,
				     (unsigned long long)lm->memcg_inode);
	if (lru_hash_put(&d->lruvecs, key, snap->nr_lruvecs))
		return dfail_code(d, LRU_ENOMEM, &what, "out of memory indexing lruvecs");

	lv = &snap->lruvecs[snap->nr_lruvecs++];
	memset(lv, 0, sizeof(*lv));
	lv->memcg = memcg;
	lv->node = lm->node;
	for (size_t w = 0; w < lm->n_warnings; w++)
		lv->warnings |= lru_warn_bit(lm->warnings[w]);
	return decode_gens(d, lv, lm, &what);
}

static enum lru_err decode_stats(struct decoder *d, size_t i, const Lrugen__V1__MemcgStats *ms)
{
	struct lru_memcg *m;
	const char *path;
	struct where what = { AT_STATS_INDEX, i, 0, 0, NULL };
	size_t idx;
	enum lru_err rc;

	if (!ms)
		return dfail(d, &what, "entry is missing");
	path = str_or_blank(ms->memcg_path);
	rc = check_path(d, path, &what);
	if (rc)
		return rc;
	what = (struct where){ AT_STATS, i, ms->memcg_inode, 0, path };
	idx = find_by_path(d, path, ms->memcg_inode);
	if (idx == SIZE_MAX) {
		rc = new_memcg(d, 0, path, ms->memcg_inode, &idx);
		if (rc)
			return rc;
	}
	m = &d->snap->memcgs[idx];
	if (m->has_stats)
		return dfail(d, &what, "repeated");
	m->has_stats = true;
	m->stats.anon_bytes = ms->anon_bytes;
	m->stats.file_bytes = ms->file_bytes;
	m->stats.inactive_file_bytes = ms->inactive_file_bytes;
	m->stats.current_bytes = ms->memory_current_bytes;
	m->stats.refault_anon = ms->workingset_refault_anon;
	m->stats.refault_file = ms->workingset_refault_file;
	m->stats.some_avg10 = ms->pressure_some_avg10;
	m->stats.full_avg10 = ms->pressure_full_avg10;
	m->stats.some_total_us = ms->pressure_some_total_us;
	m->stats.thp_bytes = ms->thp_bytes;
	m->stats.pgsteal = ms->pgsteal;
	return LRU_OK;
}

static enum lru_err decode_nodes(struct decoder *d, const Lrugen__V1__HostSnapshot *msg)
{
	uint64_t seen[(LRU_NODE_MAX + 64) / 64] = { 0 };
	struct lru_snapshot *snap = d->snap;
	size_t i;

	if (!msg->n_nodes)
		return LRU_OK;
	snap->nodes = calloc(msg->n_nodes, sizeof(*snap->nodes));
	if (!snap->nodes)
		return where_fail(d->err, LRU_ENOMEM, d->index, "",
				  "out of memory for %zu nodes", msg->n_nodes);
	for (i = 0; i < msg->n_nodes; i++) {
		const Lrugen__V1__NodeMemory *nm = msg->nodes[i];
		struct lru_node_mem *out = &snap->nodes[i];
		const struct where what = { AT_NODE, i, 0, 0, NULL };

		if (!nm)
			return dfail(d, &what, "entry is missing");
		if (!node_ok(nm->node))
			return dfail(d, &what, "node %d is out of range (0..%d)", nm->node,
				     LRU_NODE_MAX);
		if (seen[nm->node / 64] & (1ULL << (nm->node % 64)))
			return dfail(d, &what, "node %d is repeated", nm->node);
		seen[nm->node / 64] |= 1ULL << (nm->node % 64);
		out->node = nm->node;
		out->total = nm->total_bytes;
		out->free = nm->free_bytes;
		out->file = nm->file_bytes;
		out->anon = nm->anon_bytes;
		snap->nr_nodes = i + 1;
	}
	return LRU_OK;
}

static enum lru_err decode_header(struct decoder *d, const Lrugen__V1__HostSnapshot *msg)
{
	struct lru_snapshot *snap = d->snap;
	enum lru_err rc;

	switch (msg->source) {
	case LRUGEN__V1__SOURCE__SOURCE_DEBUGFS_LRU_GEN:
		snap->source = LRU_SRC_DEBUGFS;
		break;
	case LRUGEN__V1__SOURCE__SOURCE_DEBUGFS_LRU_GEN_FULL:
		snap->source = LRU_SRC_DEBUGFS_FULL;
		break;
	case LRUGEN__V1__SOURCE__SOURCE_CGROUP_MEMORY_LRU_GEN:
		snap->source = LRU_SRC_CGROUP;
		break;
	default:
		return dfail(d, &at_snapshot, "unknown source %d", (int)msg->source);
	}
	if (msg->page_size & (msg->page_size - 1))
		return dfail(d, &at_snapshot, "page size %u is not a power of two", msg->page_size);
	snap->page_size = msg->page_size ? msg->page_size : 4096;

	rc = copy_string(d, &snap->host.host, msg->host);
	if (!rc)
		rc = copy_string(d, &snap->host.boot_id, msg->boot_id);
	if (!rc)
		rc = copy_string(d, &snap->host.kernel, msg->kernel_release);
	if (rc)
		return rc;
	snap->host.seq = msg->seq;
	snap->host.enabled = msg->lru_gen_enabled;
	for (size_t w = 0; w < msg->n_warnings; w++)
		snap->host.warnings |= lru_hostwarn_bit(msg->warnings[w]);
	if (msg->aging) {
		snap->host.aging.enabled = msg->aging->enabled;
		snap->host.aging.interval_ms = msg->aging->interval_ms;
		snap->host.aging.jitter_ms = msg->aging->jitter_ms;
		snap->host.aging.can_swap = msg->aging->can_swap;
		snap->host.aging.force_scan = msg->aging->force_scan;
	}
	snap->read_start_ms = msg->read_start_ms;
	snap->read_end_ms = msg->read_end_ms;
	snap->birth_error_ms = msg->birth_error_ms;
	snap->nr_duplicates = msg->duplicates_dropped;
	return LRU_OK;
}

static enum lru_err decode_host(const Lrugen__V1__HostSnapshot *msg, struct lru_snapshot *snap,
				size_t index, struct lru_error *err)
{
	struct decoder d = { .snap = snap, .err = err, .index = index };
	size_t i, max_memcgs;
	enum lru_err rc;

	lru_snapshot_init(snap);
	if (!msg)
		return dfail(&d, &at_snapshot, "message is missing");
	rc = decode_header(&d, msg);
	if (!rc)
		rc = decode_nodes(&d, msg);
	if (rc)
		goto out;

	max_memcgs = msg->n_lruvecs + msg->n_memcg_stats;
	if (max_memcgs && (lru_hash_reserve(&d.by_id, max_memcgs) ||
			   lru_hash_reserve(&d.by_path, max_memcgs) ||
			   lru_hash_reserve(&d.lruvecs, msg->n_lruvecs))) {
		rc = where_fail(err, LRU_ENOMEM, index, "", "out of memory indexing %zu lruvecs",
				msg->n_lruvecs);
		goto out;
	}
	if (msg->n_lruvecs) {
		if (msg->n_lruvecs <= SIZE_MAX / sizeof(*snap->lruvecs))
			snap->lruvecs = malloc(msg->n_lruvecs * sizeof(*snap->lruvecs));
		if (!snap->lruvecs) {
			rc = where_fail(err, LRU_ENOMEM, index, "", "out of memory for %zu lruvecs",
					msg->n_lruvecs);
			goto out;
		}
		snap->alloc_lruvecs = msg->n_lruvecs;
	}
	for (i = 0; i < msg->n_lruvecs && !rc; i++)
		rc = decode_lruvec(&d, i, msg->lruvecs[i]);
	for (i = 0; i < msg->n_memcg_stats && !rc; i++)
		rc = decode_stats(&d, i, msg->memcg_stats[i]);
out:
	lru_hash_release(&d.by_id);
	lru_hash_release(&d.by_path);
	lru_hash_release(&d.lruvecs);
	if (rc)
		lru_snapshot_release(snap);
	return rc;
}

enum lru_err lru_pb_snapshot_from_host(const Lrugen__V1__HostSnapshot *msg,
				       struct lru_snapshot *snap, struct lru_error *err)
{
	return decode_host(msg, snap, NO_INDEX, err);
}

void lru_pb_free_snapshots(struct lru_snapshot *snaps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		lru_snapshot_release(&snaps[i]);
	free(snaps);
}

/*
 * protobuf-c's unpack allocates every submessage and repeated array on its
 * own: a batch of one 200-lruvec host is about 1,200 malloc() and as many
 * free(), which cost the store more than the unpacking itself. An arena
 * serves them from a few large chunks instead and frees them at once;
 * protobuf-c's free is then a no-op and free_unpacked() is not needed.
 */
struct arena {
	struct arena_chunk {
		struct arena_chunk *next;
		size_t used, size;
		max_align_t data[];
	} *head;
	size_t next_size;
	size_t total, limit;	/* bytes of all chunks; at most this many */
	bool failed, over;
};

static void *arena_alloc(void *data, size_t size)
{
	struct arena *a = data;
	struct arena_chunk *c = a->head;
	size_t need = (size + BLOCK_ALIGN - 1) & ~(size_t)(BLOCK_ALIGN - 1);

	if (need < size)
		return NULL;
	if (!c || c->size - c->used < need) {
		size_t csize = a->next_size > need ? a->next_size : need;

		if (csize > a->limit - a->total || a->limit - a->total - csize < sizeof(*c)) {
			if (need <= a->limit - a->total && a->limit - a->total - need >= sizeof(*c))
				csize = need;	/* the last room: exactly what is asked */
			else {
				a->over = true;
				return NULL;
			}
		}
		if (!(c = malloc(sizeof(*c) + csize))) {
			a->failed = true;
			return NULL;
		}
		a->total += sizeof(*c) + csize;
		c->size = csize;
		c->used = 0;
		c->next = a->head;
		a->head = c;
		if (a->next_size <= SIZE_MAX / 2)
			a->next_size *= 2;
	}
	c->used += need;
	return (char *)c->data + c->used - need;
}

static void arena_free(void *data, void *ptr)
{
	(void)data, (void)ptr;
}

static void arena_release(struct arena *a)
{
	while (a->head) {
		struct arena_chunk *next = a->head->next;

		free(a->head);
		a->head = next;
	}
}

/* malloc's overhead counted for each block (glibc: 8 to 16 bytes a chunk) */
#define MALLOC_SLACK 16

static size_t str_cost(const char *s)
{
	return s && *s ? strlen(s) + 1 + MALLOC_SLACK : 0;
}

/*
 * Bytes decode_host() allocates for msg at most, what it keeps and what it
 * frees at its end (the index tables) alike. Saturates at SIZE_MAX.
 */
static size_t decoded_bound(const Lrugen__V1__HostSnapshot *msg)
{
	size_t nm, b, keep = sizeof(struct lru_snapshot), i;
	double total;

	if (!msg)
		return keep;
	nm = msg->n_lruvecs + msg->n_memcg_stats;
	/* header strings, node array, lruvec array */
	total = (double)keep + (double)str_cost(msg->host) + (double)str_cost(msg->boot_id) +
		(double)str_cost(msg->kernel_release) +
		(double)msg->n_nodes * sizeof(struct lru_node_mem) + MALLOC_SLACK +
		(double)msg->n_lruvecs * sizeof(struct lru_lruvec) + MALLOC_SLACK;
	/* memcgs: the array doubles (twice the entries at most) and each path is copied */
	total += 2.0 * (double)nm * sizeof(struct lru_memcg) + MALLOC_SLACK;
	/* three indices of at most 4 slots an entry, or their least size (lru_hash.h) */
	total += 3.0 * (4.0 * (double)nm + LRU_HASH_MIN_SLOTS) * sizeof(uint64_t) +
		 3 * MALLOC_SLACK;
	for (i = 0; i < msg->n_lruvecs; i++) {
		const Lrugen__V1__Lruvec *lm = msg->lruvecs[i];
		bool full = false;

		if (!lm)
			continue;
		total += (double)str_cost(lm->memcg_path);
		for (size_t g = 0; g < lm->n_generations && !full; g++)
			full = lm->generations[g] &&
			       (lm->generations[g]->n_tiers || lm->generations[g]->walk);
		if (full)
			total += sizeof(struct lru_full) + MALLOC_SLACK;
	}
	for (i = 0; i < msg->n_memcg_stats; i++)
		if (msg->memcg_stats[i])
			total += (double)str_cost(msg->memcg_stats[i]->memcg_path);
	b = total >= (double)SIZE_MAX ? SIZE_MAX : (size_t)total;
	return b;
}

enum lru_err lru_pb_decode_batch(const uint8_t *buf, size_t len,
				 struct lru_snapshot **snaps, size_t *n,
				 struct lru_error *err)
{
	size_t mem;

	return lru_pb_decode_batch_max(buf, len, SIZE_MAX, snaps, n, &mem, err);
}

enum lru_err lru_pb_decode_batch_max(const uint8_t *buf, size_t len, size_t max_mem,
				     struct lru_snapshot **snaps, size_t *n, size_t *mem,
				     struct lru_error *err)
{
	struct arena arena = { NULL, 0, 0, max_mem, false, false };
	ProtobufCAllocator alloc = { arena_alloc, arena_free, &arena };
	Lrugen__V1__SnapshotBatch *batch;
	struct lru_snapshot *out = NULL;
	enum lru_err rc = LRU_OK;
	size_t i;

	*snaps = NULL;
	*n = 0;
	*mem = 0;
	if (len > LRU_PB_MAX_MESSAGE)
		return lru_fail(err, LRU_EPROTO, "SnapshotBatch of %zu bytes is larger than %u bytes",
				len, LRU_PB_MAX_MESSAGE);
	if (!buf && len)
		return lru_fail(err, LRU_EINVAL, "no buffer for a %zu-byte SnapshotBatch", len);
	/* the unpacked tree takes about 4 times the wire size */
	arena.next_size = len < 4096 ? 16384 : 4 * len;
	batch = lrugen__v1__snapshot_batch__unpack(&alloc, len, buf);
	if (!batch) {
		rc = arena.over ? lru_fail(err, LRU_ERANGE, "a SnapshotBatch of %zu bytes needs "
					   "more than %zu bytes of memory to unpack", len, max_mem)
		     : arena.failed ? lru_fail(err, LRU_ENOMEM, "out of memory unpacking a "
					       "SnapshotBatch of %zu bytes", len)
		     : lru_fail(err, LRU_EPROTO, "malformed SnapshotBatch (%zu bytes)", len);
		arena_release(&arena);
		return rc;
	}
	{
		/* the snapshots' bound, then the transient peak: arena and snapshots */
		double keep = (double)batch->n_snapshots * sizeof(*out) + MALLOC_SLACK;

		for (i = 0; i < batch->n_snapshots; i++)
			keep += (double)decoded_bound(batch->snapshots[i]);
		if (keep + (double)arena.total > (double)max_mem) {
			rc = lru_fail(err, LRU_ERANGE, "a SnapshotBatch of %zu bytes (%zu snapshots) "
				      "needs more than %zu bytes of memory to decode", len,
				      batch->n_snapshots, max_mem);
			goto done;
		}
		*mem = (size_t)keep;
	}
	if (batch->n_snapshots) {
		out = calloc(batch->n_snapshots, sizeof(*out));
		if (!out) {
			rc = lru_fail(err, LRU_ENOMEM, "out of memory for %zu snapshots",
				      batch->n_snapshots);
			goto done;
		}
	}
	for (i = 0; i < batch->n_snapshots; i++) {
		rc = decode_host(batch->snapshots[i], &out[i], i, err);
		if (rc) {
			lru_pb_free_snapshots(out, i);
			goto done;
		}
	}
	*snaps = out;
	*n = batch->n_snapshots;
done:
	arena_release(&arena);
	return rc;
}
