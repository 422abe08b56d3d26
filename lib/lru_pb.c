/*
 * lru_pb.c - protobuf (lrugen.v1) encoding and decoding of snapshots.
 *
 * lru_pb_host_from_snapshot() builds each HostSnapshot in one allocation: the
 * counts of nodes, lruvecs, generations, tiers, walk stats and memcg stats
 * are taken first, then every message and pointer array is carved out of a
 * single block that lru_pb_host_free() releases with one free(). Strings are
 * not copied: the message borrows them from the snapshot, which must outlive
 * it. lru_pb_encode_batch() builds no messages: it writes the wire format
 * directly, byte for byte what protobuf-c packs of those messages, into one
 * malloc'd buffer of the exact size (see "direct encoding" below).
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

/* ---- messages (lru_pb_host_from_snapshot) -------------------------------- */

static const Lrugen__V1__HostSnapshot host_init = LRUGEN__V1__HOST_SNAPSHOT__INIT;
static const Lrugen__V1__AgingSettings aging_init = LRUGEN__V1__AGING_SETTINGS__INIT;
static const Lrugen__V1__NodeMemory node_init = LRUGEN__V1__NODE_MEMORY__INIT;
static const Lrugen__V1__Lruvec lruvec_init = LRUGEN__V1__LRUVEC__INIT;
static const Lrugen__V1__Generation gen_init = LRUGEN__V1__GENERATION__INIT;
static const Lrugen__V1__Tier tier_init = LRUGEN__V1__TIER__INIT;
static const Lrugen__V1__TierCounters tc_init = LRUGEN__V1__TIER_COUNTERS__INIT;
static const Lrugen__V1__WalkStats walk_init = LRUGEN__V1__WALK_STATS__INIT;
static const Lrugen__V1__MemcgStats stats_init = LRUGEN__V1__MEMCG_STATS__INIT;

/* Byte offsets of each array in the block of one HostSnapshot. */
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

	return lru_utf8_valid(s, n) ? 0 : lru_esc(NULL, 0, s, n, LRU_ESC_UTF8) + 1;
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
}

/* Point names[] at the codes of mask (static strings); returns how many. */
static size_t put_warnings(char **names, uint32_t mask, bool host)
{
	size_t n = 0;

	for (uint32_t bit = 1; bit && bit <= mask; bit <<= 1) {
		const char *name = !(mask & bit) ? NULL : host ? lru_hostwarn_name(bit)
								: lru_warn_name(bit);

		if (name)
			names[n++] = (char *)name;
	}
	return n;
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

/* Count what the message of snap needs and lay out its block. */
static enum lru_err plan(const struct lru_snapshot *snap, size_t index, struct layout *lo,
			 struct lru_error *err)
{
	size_t nr_gens = 0, nr_tiers = 0, nr_walks = 0, nr_stats = 0, nr_warn = 0, off = 0, i;
	size_t text, fix;
	unsigned g;
	bool ok;

	for (i = 0; i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];
		enum lru_err rc = check_lruvec(snap, i, index, err);

		if (rc)
			return rc;
		nr_gens += lv->nr_gens;
		nr_warn += (size_t)__builtin_popcount(lv->warnings);
		if (!lv->full)
			continue;
		for (g = 0; g < lv->nr_gens; g++) {
			nr_tiers += lv->full->has_tiers[g] ? LRU_NR_TIERS : 0;
			nr_walks += lv->full->has_walk[g];
		}
	}
	for (i = 0; i < snap->nr_memcgs; i++)
		nr_stats += snap->memcgs[i].has_stats;
	nr_warn += (size_t)__builtin_popcount(snap->host.warnings);
	text = fix_size(snap->host.host) + fix_size(snap->host.boot_id) + fix_size(snap->host.kernel);
	lo->fix_paths = false;
	for (i = 0; i < snap->nr_memcgs; i++) {
		fix = fix_size(snap->memcgs[i].path);
		lo->fix_paths |= fix != 0;
		text += fix;
	}

	ok = reserve(&off, 1, sizeof(Lrugen__V1__HostSnapshot), &lo->host) &&
	     reserve(&off, 1, sizeof(Lrugen__V1__AgingSettings), &lo->aging) &&
	     reserve(&off, snap->nr_nodes, sizeof(Lrugen__V1__NodeMemory), &lo->nodes) &&
	     reserve(&off, snap->nr_nodes, sizeof(void *), &lo->node_ptrs) &&
	     reserve(&off, snap->nr_lruvecs, sizeof(Lrugen__V1__Lruvec), &lo->lruvecs) &&
	     reserve(&off, snap->nr_lruvecs, sizeof(void *), &lo->lruvec_ptrs) &&
	     reserve(&off, nr_gens, sizeof(Lrugen__V1__Generation), &lo->gens) &&
	     reserve(&off, nr_gens, sizeof(void *), &lo->gen_ptrs) &&
	     reserve(&off, nr_tiers, sizeof(Lrugen__V1__Tier), &lo->tiers) &&
	     reserve(&off, nr_tiers, sizeof(void *), &lo->tier_ptrs) &&
	     reserve(&off, nr_tiers, 2 * sizeof(Lrugen__V1__TierCounters), &lo->counters) &&
	     reserve(&off, nr_walks, sizeof(Lrugen__V1__WalkStats), &lo->walks) &&
	     reserve(&off, nr_stats, sizeof(Lrugen__V1__MemcgStats), &lo->stats) &&
	     reserve(&off, nr_stats, sizeof(void *), &lo->stat_ptrs) &&
	     reserve(&off, nr_warn, sizeof(char *), &lo->warn_ptrs) &&
	     reserve(&off, lo->fix_paths ? snap->nr_memcgs : 0, sizeof(char *), &lo->paths) &&
	     reserve(&off, text, 1, &lo->text);
	if (!ok)
		return where_fail(err, LRU_ENOMEM, index, "", "snapshot too large to encode");
	lo->total = off;
	return LRU_OK;
}

static enum lru_err build_host(const struct lru_snapshot *snap, size_t index,
			       Lrugen__V1__HostSnapshot **out, struct lru_error *err)
{
	Lrugen__V1__HostSnapshot *h;
	Lrugen__V1__AgingSettings *aging;
	Lrugen__V1__NodeMemory *nodes, **node_ptrs;
	Lrugen__V1__Lruvec *lvs, **lv_ptrs;
	Lrugen__V1__Generation *gens, **gen_ptrs;
	Lrugen__V1__Tier *tiers, **tier_ptrs;
	Lrugen__V1__TierCounters *tcs;
	Lrugen__V1__WalkStats *walks;
	Lrugen__V1__MemcgStats *stats, **stat_ptrs;
	char **warn_ptrs, **paths = NULL, *text;
	struct layout lo = { 0 };
	enum lru_err rc;
	char *block;
	size_t i;
	unsigned g, t;

	*out = NULL;
	switch (snap->source) {
	case LRU_SRC_DEBUGFS:
	case LRU_SRC_DEBUGFS_FULL:
	case LRU_SRC_CGROUP:
		break;
	default:
		return where_fail(err, LRU_EINVAL, index, "", "unknown source %d",
				  (int)snap->source);
	}
	rc = plan(snap, index, &lo, err);
	if (rc)
		return rc;
	block = malloc(lo.total);
	if (!block)
		return where_fail(err, LRU_ENOMEM, index, "",
				  "out of memory encoding %zu lruvecs (%zu bytes)", snap->nr_lruvecs,
				  lo.total);
	h = (Lrugen__V1__HostSnapshot *)(block + lo.host);
	aging = (Lrugen__V1__AgingSettings *)(block + lo.aging);
	nodes = (Lrugen__V1__NodeMemory *)(block + lo.nodes);
	node_ptrs = (Lrugen__V1__NodeMemory **)(block + lo.node_ptrs);
	lvs = (Lrugen__V1__Lruvec *)(block + lo.lruvecs);
	lv_ptrs = (Lrugen__V1__Lruvec **)(block + lo.lruvec_ptrs);
	gens = (Lrugen__V1__Generation *)(block + lo.gens);
	gen_ptrs = (Lrugen__V1__Generation **)(block + lo.gen_ptrs);
	tiers = (Lrugen__V1__Tier *)(block + lo.tiers);
	tier_ptrs = (Lrugen__V1__Tier **)(block + lo.tier_ptrs);
	tcs = (Lrugen__V1__TierCounters *)(block + lo.counters);
	walks = (Lrugen__V1__WalkStats *)(block + lo.walks);
	stats = (Lrugen__V1__MemcgStats *)(block + lo.stats);
	stat_ptrs = (Lrugen__V1__MemcgStats **)(block + lo.stat_ptrs);
	warn_ptrs = (char **)(block + lo.warn_ptrs);
	text = block + lo.text;
	if (lo.fix_paths) {
		paths = (char **)(block + lo.paths);
		for (i = 0; i < snap->nr_memcgs; i++)
			paths[i] = wire_str(snap->memcgs[i].path, &text);
	}

	*h = host_init;
	h->host = wire_str(snap->host.host, &text);
	h->boot_id = wire_str(snap->host.boot_id, &text);
	h->kernel_release = wire_str(snap->host.kernel, &text);
	h->seq = snap->host.seq;
	h->lru_gen_enabled = snap->host.enabled;
	h->taken_at_ms = lru_sat_mid_i64(snap->read_start_ms, snap->read_end_ms);
	h->read_start_ms = snap->read_start_ms;
	h->read_end_ms = snap->read_end_ms;
	h->birth_error_ms = snap->birth_error_ms;
	h->page_size = snap->page_size;
	h->duplicates_dropped = snap->nr_duplicates;
	h->source = (Lrugen__V1__Source)snap->source;

	*aging = aging_init;
	aging->enabled = snap->host.aging.enabled;
	aging->interval_ms = snap->host.aging.interval_ms;
	aging->jitter_ms = snap->host.aging.jitter_ms;
	aging->can_swap = snap->host.aging.can_swap;
	aging->force_scan = snap->host.aging.force_scan;
	h->aging = aging;

	for (i = 0; i < snap->nr_nodes; i++) {
		const struct lru_node_mem *nm = &snap->nodes[i];

		nodes[i] = node_init;
		nodes[i].node = nm->node;
		nodes[i].total_bytes = nm->total;
		nodes[i].free_bytes = nm->free;
		nodes[i].file_bytes = nm->file;
		nodes[i].anon_bytes = nm->anon;
		node_ptrs[i] = &nodes[i];
	}
	h->n_nodes = snap->nr_nodes;
	h->nodes = snap->nr_nodes ? node_ptrs : NULL;

	for (i = 0; i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];
		const struct lru_memcg *m = &snap->memcgs[lv->memcg];
		Lrugen__V1__Lruvec *l = &lvs[i];

		*l = lruvec_init;
		l->memcg_id = m->id;
		l->memcg_path = paths ? paths[lv->memcg] : str_or_empty(m->path);
		l->memcg_inode = m->ino;
		l->node = lv->node;
		l->warnings = warn_ptrs;
		l->n_warnings = put_warnings(warn_ptrs, lv->warnings, false);
		warn_ptrs += l->n_warnings;
		if (!l->n_warnings)
			l->warnings = NULL;
		l->n_generations = lv->nr_gens;
		l->generations = gen_ptrs;
		for (g = 0; g < lv->nr_gens; g++) {
			const struct lru_gen *src = &lv->gens[g];
			Lrugen__V1__Generation *gm = gens++;

			*gm = gen_init;
			gm->seq = src->seq;
			gm->age_ms = src->age_ms;
			gm->birth_ms = src->birth_ms;
			gm->anon_pages = src->pages[LRU_ANON];
			gm->file_pages = src->pages[LRU_FILE];
			gm->anon_evicted = !!(src->evicted & (1u << LRU_ANON));
			gm->file_evicted = !!(src->evicted & (1u << LRU_FILE));
			*gen_ptrs++ = gm;
			if (!lv->full)
				continue;
			if (lv->full->has_tiers[g]) {
				gm->n_tiers = LRU_NR_TIERS;
				gm->tiers = tier_ptrs;
				for (t = 0; t < LRU_NR_TIERS; t++) {
					const struct lru_tier *st = &lv->full->tiers[g][t];
					Lrugen__V1__Tier *tm = tiers++;

					*tm = tier_init;
					tm->tier = t;
					put_counters(tcs, st, LRU_ANON);
					tm->anon = tcs++;
					put_counters(tcs, st, LRU_FILE);
					tm->file = tcs++;
					*tier_ptrs++ = tm;
				}
			}
			if (lv->full->has_walk[g]) {
				put_walk(walks, &lv->full->walk[g]);
				gm->walk = walks++;
			}
		}
		lv_ptrs[i] = l;
	}
	h->n_lruvecs = snap->nr_lruvecs;
	h->lruvecs = snap->nr_lruvecs ? lv_ptrs : NULL;

	h->n_memcg_stats = 0;
	for (i = 0; i < snap->nr_memcgs; i++) {
		if (!snap->memcgs[i].has_stats)
			continue;
		put_stats(&stats[h->n_memcg_stats], &snap->memcgs[i],
			  paths ? paths[i] : str_or_empty(snap->memcgs[i].path));
		stat_ptrs[h->n_memcg_stats] = &stats[h->n_memcg_stats];
		h->n_memcg_stats++;
	}
	h->memcg_stats = h->n_memcg_stats ? stat_ptrs : NULL;
	h->n_warnings = put_warnings(warn_ptrs, snap->host.warnings, true);
	h->warnings = h->n_warnings ? warn_ptrs : NULL;

	*out = h;
	return LRU_OK;
}

enum lru_err lru_pb_host_from_snapshot(const struct lru_snapshot *snap,
				       Lrugen__V1__HostSnapshot **out,
				       struct lru_error *err)
{
	return build_host(snap, NO_INDEX, out, err);
}

void lru_pb_host_free(Lrugen__V1__HostSnapshot *msg)
{
	/* the host message is the first item of its block */
	free(msg);
}

/* ---- direct encoding (lru_pb_encode_batch) ------------------------------ */

/*
 * lru_pb_encode_batch() writes the wire format itself, byte for byte what
 * protobuf_c_message_pack() makes of a SnapshotBatch of the messages of
 * lru_pb_host_from_snapshot() (tests/unit/test_pb.c compares the two), with
 * no message tree. protobuf-c's rules, as they apply to lrugen.proto (proto3;
 * no packed fields, oneofs or zigzag types):
 *  - fields in field-number order, repeated elements in array order;
 *  - a scalar is left out when 0, a string when NULL or empty, a double when
 *    it compares equal to 0.0 (so -0.0 too; NaN is written);
 *  - uint32, uint64, enum and bool are varints; int32 and int64 are varints
 *    of their 64-bit two's complement (10 bytes when negative); double is
 *    fixed64, little-endian;
 *  - a submessage is written whenever its pointer is set, even with every
 *    field at its default (tag and length 0): AgingSettings always, both
 *    TierCounters of every Tier, WalkStats when has_walk.
 *
 * Two passes. *_size() add up the exact size (and check the snapshots as
 * plan() does); wr_*() then fill a buffer of that size from its end toward
 * its start: each message's fields last to first, and its contents before
 * its key and length, the length being the distance just covered. So no
 * nested size is stored or computed twice, and the output buffer is the only
 * memory the encoder allocates or writes.
 *
 * Speed: the fields are mostly zero or small, so the writers branch on zero
 * and on one- and two-byte varints (well predicted); lengths that are known
 * to be short (TierCounters, Tier, WalkStats, Generation) are sized and
 * written without a general varint. __builtin_clzll is BSR on x86-64 without
 * LZCNT, slow on AMD Zen, so it is kept off the common paths.
 */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

/* the key of field f with wire type wt; one byte for fields 1 to 15 */
#define TAG(f, wt) ((uint8_t)((f) << 3 | (wt)))
/* HostSnapshot.memcg_stats (field 16) and warnings (17): two-byte keys */
#define MEMCG_STATS_KEY (16u << 3 | WT_LEN)
#define HOST_WARNINGS_KEY (17u << 3 | WT_LEN)

/* TierCounters and WalkStats number their fields after the model's counters. */
_Static_assert(LRU_TC_REFAULTED == 0 && LRU_TC_EVICTED == 1 && LRU_TC_PROTECTED == 2 &&
		       LRU_TC_AVG_REFAULTED == 3 && LRU_TC_AVG_TOTAL == 4 && LRU_TC_NR == 5,
	       "TierCounters fields 1..5 are the tier counters in order, 6 is present");
_Static_assert(LRU_WALK_LEAF_TOTAL == 0 && LRU_WALK_LEAF_OLD == 1 && LRU_WALK_LEAF_YOUNG == 2 &&
		       LRU_WALK_NONLEAF_TOTAL == 3 && LRU_WALK_BLOOM_FOUND == 4 &&
		       LRU_WALK_BLOOM_ADDED == 5 && LRU_WALK_NR == 6,
	       "WalkStats fields 1..6 are the walk counters in order, 7 is present");

/* Bytes of v as a varint: 1 + floor(log2(v)) / 7, without a loop. */
static inline size_t varint_size(uint64_t v)
{
	return (size_t)((63 - __builtin_clzll(v | 1)) * 9 + 73) / 64;
}

/* A proto3 varint field with a one-byte key; absent when 0. */
static inline size_t varint_field_size(uint64_t v)
{
	return v ? 1 + varint_size(v) : 0;
}

/* A length-delimited field of len bytes with a one-byte key. */
static inline size_t len_field_size(size_t len)
{
	return 1 + varint_size(len) + len;
}

/*
 * The largest TierCounters, Tier, WalkStats and Generation: the first three
 * always have a one-byte length, a Generation one of at most two bytes.
 */
#define VARINT_MAX 10
#define COUNTERS_MAX (LRU_TC_NR * (1 + VARINT_MAX) + 2)	/* present < 32 */
#define TIER_MAX (2 + 2 * (2 + COUNTERS_MAX))		/* index < 4 */
#define WALK_MAX (LRU_WALK_NR * (1 + VARINT_MAX) + 2)	/* present < 64 */
#define GEN_MAX (4 * (1 + VARINT_MAX) + 6 + 2 * 2 + LRU_NR_TIERS * (2 + TIER_MAX) + 2 + WALK_MAX)
_Static_assert(COUNTERS_MAX < 128 && TIER_MAX < 128 && WALK_MAX < 128,
	       "TierCounters, Tier and WalkStats have one-byte lengths");
_Static_assert(GEN_MAX < 16384, "a Generation has a length of one or two bytes");

/* A length-delimited field of len < 128 bytes. */
static inline size_t short_field_size(size_t len)
{
	return 2 + len;
}

/* A length-delimited field of len < 16384 bytes. */
static inline size_t gen_field_size(size_t len)
{
	return 2 + (len > 127) + len;
}

/* A string field: its bytes, or its LRU_ESC_UTF8 form where they are not UTF-8 (lru_pb.h). */
static inline size_t str_field_size(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n && !lru_utf8_valid(s, n))
		n = lru_esc(NULL, 0, s, n, LRU_ESC_UTF8);
	return n ? len_field_size(n) : 0;
}

/*
 * a + b, or SIZE_MAX when that overflows. Only sums that add string lengths
 * repeatedly (lruvecs, memcg stats, snapshots) can overflow; they are then
 * only compared with LRU_PB_MAX_MESSAGE.
 */
static inline size_t add_sat(size_t a, size_t b)
{
	return a + b < a ? SIZE_MAX : a + b;
}

static inline size_t tier_present(const struct lru_tier *t, enum lru_type type)
{
	return (t->present >> (type * LRU_TC_NR)) & TC_MASK;
}

static size_t counters_size(const struct lru_tier *t, enum lru_type type)
{
	const uint64_t *v = t->v[type];
	size_t present = tier_present(t, type), n;
	int c;

	if (!(v[0] | v[1] | v[2] | v[3] | v[4] | present))
		return 0;
	n = varint_field_size(present);
	for (c = 0; c < LRU_TC_NR; c++)
		n += varint_field_size(v[c]);
	return n;
}

static size_t tier_size(const struct lru_tier *t, unsigned index)
{
	return varint_field_size(index) + short_field_size(counters_size(t, LRU_ANON)) +
	       short_field_size(counters_size(t, LRU_FILE));
}

static size_t walk_size(const struct lru_walk *w)
{
	size_t n = varint_field_size(w->present & WALK_MASK);
	int c;

	for (c = 0; c < LRU_WALK_NR; c++)
		n += varint_field_size(w->v[c]);
	return n;
}

static size_t gen_size(const struct lru_lruvec *lv, unsigned g)
{
	const struct lru_gen *gen = &lv->gens[g];
	size_t n = varint_field_size(gen->seq) + varint_field_size(gen->age_ms) +
		   varint_field_size((uint64_t)gen->birth_ms) +
		   varint_field_size(gen->pages[LRU_ANON]) +
		   varint_field_size(gen->pages[LRU_FILE]) +
		   (gen->evicted & (1u << LRU_ANON) ? 2 : 0) +
		   (gen->evicted & (1u << LRU_FILE) ? 2 : 0);
	unsigned t;

	if (!lv->full)
		return n;
	if (lv->full->has_tiers[g])
		for (t = 0; t < LRU_NR_TIERS; t++)
			n += short_field_size(tier_size(&lv->full->tiers[g][t], t));
	if (lv->full->has_walk[g])
		n += short_field_size(walk_size(&lv->full->walk[g]));
	return n;
}

/* The repeated string of warning codes in mask, with keys of key_size bytes. */
static size_t warnings_size(uint32_t mask, bool host, size_t key_size)
{
	size_t n = 0;

	for (uint32_t bit = 1; bit && bit <= mask; bit <<= 1) {
		const char *name = !(mask & bit) ? NULL : host ? lru_hostwarn_name(bit)
								: lru_warn_name(bit);

		if (name)
			n += key_size - 1 + len_field_size(strlen(name));
	}
	return n;
}

static size_t lruvec_size(const struct lru_lruvec *lv, const struct lru_memcg *m)
{
	size_t n = varint_field_size(m->id) + str_field_size(m->path) +
		   varint_field_size(m->ino) + varint_field_size((uint64_t)(int64_t)lv->node) +
		   warnings_size(lv->warnings, false, 1);
	unsigned g;

	for (g = 0; g < lv->nr_gens; g++)
		n += gen_field_size(gen_size(lv, g));
	return n;
}

static size_t node_size(const struct lru_node_mem *nm)
{
	return varint_field_size((uint64_t)(int64_t)nm->node) + varint_field_size(nm->total) +
	       varint_field_size(nm->free) + varint_field_size(nm->file) +
	       varint_field_size(nm->anon);
}

static size_t stats_size(const struct lru_memcg *m)
{
	const struct lru_memcg_stats *s = &m->stats;

	return str_field_size(m->path) + varint_field_size(m->ino) +
	       varint_field_size(s->anon_bytes) + varint_field_size(s->file_bytes) +
	       varint_field_size(s->refault_anon) + varint_field_size(s->refault_file) +
	       varint_field_size(s->current_bytes) + varint_field_size(s->inactive_file_bytes) +
	       (s->some_avg10 != 0 ? 9 : 0) + (s->full_avg10 != 0 ? 9 : 0) +
	       varint_field_size(s->some_total_us) + varint_field_size(s->thp_bytes);
}

static size_t aging_size(const struct lru_aging *a)
{
	return (a->enabled ? 2 : 0) + varint_field_size(a->interval_ms) + (a->can_swap ? 2 : 0) +
	       (a->force_scan ? 2 : 0) + varint_field_size(a->jitter_ms);
}

/*
 * Check snap as build_host() does (same errors, same order) and set *size to
 * the bytes of its HostSnapshot (SIZE_MAX if that overflows).
 */
static enum lru_err size_host(const struct lru_snapshot *snap, size_t index, size_t *size,
			      struct lru_error *err)
{
	const struct lru_host *h = &snap->host;
	size_t n, i;

	switch (snap->source) {
	case LRU_SRC_DEBUGFS:
	case LRU_SRC_DEBUGFS_FULL:
	case LRU_SRC_CGROUP:
		break;
	default:
		return where_fail(err, LRU_EINVAL, index, "", "unknown source %d",
				  (int)snap->source);
	}
	n = str_field_size(h->host) + str_field_size(h->boot_id) + varint_field_size(h->seq) +
	    varint_field_size((uint64_t)lru_sat_mid_i64(snap->read_start_ms, snap->read_end_ms)) +
	    varint_field_size((uint64_t)snap->read_start_ms) +
	    varint_field_size((uint64_t)snap->read_end_ms) +
	    varint_field_size(snap->birth_error_ms) + str_field_size(h->kernel) +
	    varint_field_size(snap->page_size) + len_field_size(aging_size(&h->aging)) +
	    varint_field_size((uint64_t)snap->source) + varint_field_size(snap->nr_duplicates) +
	    varint_field_size(h->enabled);
	for (i = 0; i < snap->nr_nodes; i++)
		n += len_field_size(node_size(&snap->nodes[i]));
	for (i = 0; i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];
		enum lru_err rc = check_lruvec(snap, i, index, err);

		if (rc)
			return rc;
		n = add_sat(n, len_field_size(lruvec_size(lv, &snap->memcgs[lv->memcg])));
	}
	for (i = 0; i < snap->nr_memcgs; i++)
		if (snap->memcgs[i].has_stats) /* + 1: a two-byte key */
			n = add_sat(n, 1 + len_field_size(stats_size(&snap->memcgs[i])));
	n = add_sat(n, warnings_size(h->warnings, true, 2));
	*size = n;
	return LRU_OK;
}

/*
 * The writers fill the buffer backward: each writes in front of p and
 * returns the new start.
 */
static inline uint8_t *wr_varint(uint8_t *p, uint64_t v)
{
	uint8_t *start;

	if (v < 0x80) {
		*--p = (uint8_t)v;
		return p;
	}
	if (v < 0x4000) {
		p[-2] = (uint8_t)(v | 0x80);
		p[-1] = (uint8_t)(v >> 7);
		return p - 2;
	}
	/* 3 to 10 bytes; compares for the common sizes */
	start = p -= v >> 35 ? varint_size(v) : 3u + (v > 0x1fffff) + (v > 0xfffffff);
	for (; v >= 0x80; v >>= 7)
		*p++ = (uint8_t)(v | 0x80);
	*p = (uint8_t)v;
	return start;
}

static inline uint8_t *wr_varint_field(uint8_t *p, uint8_t key, uint64_t v)
{
	if (!v)
		return p;
	p = wr_varint(p, v);
	*--p = key;
	return p;
}

static inline uint8_t *wr_bool_field(uint8_t *p, uint8_t key, bool v)
{
	if (v) {
		*--p = 1;
		*--p = key;
	}
	return p;
}

static inline uint8_t *wr_double_field(uint8_t *p, uint8_t key, double d)
{
	uint64_t bits;
	int i;

	if (d == 0)
		return p;
	memcpy(&bits, &d, sizeof(bits));
	p -= 8;
	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(bits >> (8 * i));
	*--p = key;
	return p;
}

static inline uint8_t *wr_str_field(uint8_t *p, uint8_t key, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n)
		return p;
	if (lru_utf8_valid(s, n)) {
		p -= n;
		memcpy(p, s, n);
	} else {
		size_t len = lru_esc(NULL, 0, s, n, LRU_ESC_UTF8);

		p -= len;
		n = lru_esc_bytes(p, len, s, n, LRU_ESC_UTF8);
	}
	p = wr_varint(p, n);
	*--p = key;
	return p;
}

/* The key and length of a message whose contents run from p to end. */
static inline uint8_t *wr_len_key(uint8_t *p, uint8_t key, const uint8_t *end)
{
	p = wr_varint(p, (uint64_t)(end - p));
	*--p = key;
	return p;
}

/* The key and length of a TierCounters, Tier or WalkStats from p to end. */
static inline uint8_t *wr_short_len_key(uint8_t *p, uint8_t key, const uint8_t *end)
{
	p[-1] = (uint8_t)(end - p);
	p[-2] = key;
	return p - 2;
}

/* The key and length of a Generation from p to end (one or two bytes, no branch). */
static inline uint8_t *wr_gen_len_key(uint8_t *p, uint8_t key, const uint8_t *end)
{
	size_t len = (size_t)(end - p), two = len > 127;

	p[-1] = (uint8_t)(two ? len >> 7 : len);
	p[-2] = (uint8_t)(len | 0x80);
	p -= 1 + two;
	p[-1] = key;
	return p - 1;
}

static uint8_t *wr_counters(uint8_t *p, uint8_t key, const struct lru_tier *t,
			     enum lru_type type)
{
	const uint64_t *v = t->v[type];
	size_t present = tier_present(t, type);
	uint8_t *end = p;
	int c;

	if (!(v[0] | v[1] | v[2] | v[3] | v[4] | present))
		return wr_short_len_key(p, key, end); /* most of them */
	p = wr_varint_field(p, TAG(LRU_TC_NR + 1, WT_VARINT), present);
	for (c = LRU_TC_NR - 1; c >= 0; c--)
		p = wr_varint_field(p, TAG(c + 1, WT_VARINT), v[c]);
	return wr_short_len_key(p, key, end);
}

/* Generation.tiers (8) */
static uint8_t *wr_tier(uint8_t *p, const struct lru_tier *t, unsigned index)
{
	uint8_t *end = p;

	p = wr_counters(p, TAG(3, WT_LEN), t, LRU_FILE);
	p = wr_counters(p, TAG(2, WT_LEN), t, LRU_ANON);
	p = wr_varint_field(p, TAG(1, WT_VARINT), index);
	return wr_short_len_key(p, TAG(8, WT_LEN), end);
}

/* Generation.walk (9) */
static uint8_t *wr_walk(uint8_t *p, const struct lru_walk *w)
{
	uint8_t *end = p;
	int c;

	p = wr_varint_field(p, TAG(LRU_WALK_NR + 1, WT_VARINT), w->present & WALK_MASK);
	for (c = LRU_WALK_NR - 1; c >= 0; c--)
		p = wr_varint_field(p, TAG(c + 1, WT_VARINT), w->v[c]);
	return wr_short_len_key(p, TAG(9, WT_LEN), end);
}

/* Lruvec.generations (5) */
static uint8_t *wr_gen(uint8_t *p, const struct lru_lruvec *lv, unsigned g)
{
	const struct lru_gen *gen = &lv->gens[g];
	uint8_t *end = p;
	unsigned t;

	if (lv->full && lv->full->has_walk[g])
		p = wr_walk(p, &lv->full->walk[g]);
	if (lv->full && lv->full->has_tiers[g])
		for (t = LRU_NR_TIERS; t-- > 0;)
			p = wr_tier(p, &lv->full->tiers[g][t], t);
	p = wr_bool_field(p, TAG(7, WT_VARINT), gen->evicted & (1u << LRU_FILE));
	p = wr_bool_field(p, TAG(6, WT_VARINT), gen->evicted & (1u << LRU_ANON));
	p = wr_varint_field(p, TAG(5, WT_VARINT), gen->pages[LRU_FILE]);
	p = wr_varint_field(p, TAG(4, WT_VARINT), gen->pages[LRU_ANON]);
	p = wr_varint_field(p, TAG(3, WT_VARINT), (uint64_t)gen->birth_ms);
	p = wr_varint_field(p, TAG(2, WT_VARINT), gen->age_ms);
	p = wr_varint_field(p, TAG(1, WT_VARINT), gen->seq);
	return wr_gen_len_key(p, TAG(5, WT_LEN), end);
}

/* A repeated string of the warning codes in mask, last first; key as wr_varint writes it. */
static uint8_t *wr_warnings(uint8_t *p, uint64_t key, uint32_t mask, bool host)
{
	for (int b = 31; b >= 0; b--) {
		uint32_t bit = 1u << b;
		const char *name = !(mask & bit) ? NULL : host ? lru_hostwarn_name(bit)
								: lru_warn_name(bit);
		size_t n = name ? strlen(name) : 0;

		if (!n)
			continue;
		p -= n;
		memcpy(p, name, n);
		p = wr_varint(p, n);
		p = wr_varint(p, key);
	}
	return p;
}

/* HostSnapshot.lruvecs (12) */
static uint8_t *wr_lruvec(uint8_t *p, const struct lru_lruvec *lv, const struct lru_memcg *m)
{
	uint8_t *end = p;
	unsigned g;

	p = wr_warnings(p, TAG(6, WT_LEN), lv->warnings, false);
	for (g = lv->nr_gens; g-- > 0;)
		p = wr_gen(p, lv, g);
	p = wr_varint_field(p, TAG(4, WT_VARINT), (uint64_t)(int64_t)lv->node);
	p = wr_varint_field(p, TAG(3, WT_VARINT), m->ino);
	p = wr_str_field(p, TAG(2, WT_LEN), m->path);
	p = wr_varint_field(p, TAG(1, WT_VARINT), m->id);
	return wr_len_key(p, TAG(12, WT_LEN), end);
}

/* HostSnapshot.nodes (10) */
static uint8_t *wr_node(uint8_t *p, const struct lru_node_mem *nm)
{
	uint8_t *end = p;

	p = wr_varint_field(p, TAG(5, WT_VARINT), nm->anon);
	p = wr_varint_field(p, TAG(4, WT_VARINT), nm->file);
	p = wr_varint_field(p, TAG(3, WT_VARINT), nm->free);
	p = wr_varint_field(p, TAG(2, WT_VARINT), nm->total);
	p = wr_varint_field(p, TAG(1, WT_VARINT), (uint64_t)(int64_t)nm->node);
	return wr_len_key(p, TAG(10, WT_LEN), end);
}

/* HostSnapshot.memcg_stats (16) */
static uint8_t *wr_stats(uint8_t *p, const struct lru_memcg *m)
{
	const struct lru_memcg_stats *s = &m->stats;
	uint8_t *end = p;

	p = wr_varint_field(p, TAG(12, WT_VARINT), s->thp_bytes);
	p = wr_varint_field(p, TAG(11, WT_VARINT), s->some_total_us);
	p = wr_double_field(p, TAG(10, WT_I64), s->full_avg10);
	p = wr_double_field(p, TAG(9, WT_I64), s->some_avg10);
	p = wr_varint_field(p, TAG(8, WT_VARINT), s->inactive_file_bytes);
	p = wr_varint_field(p, TAG(7, WT_VARINT), s->current_bytes);
	p = wr_varint_field(p, TAG(6, WT_VARINT), s->refault_file);
	p = wr_varint_field(p, TAG(5, WT_VARINT), s->refault_anon);
	p = wr_varint_field(p, TAG(4, WT_VARINT), s->file_bytes);
	p = wr_varint_field(p, TAG(3, WT_VARINT), s->anon_bytes);
	p = wr_varint_field(p, TAG(2, WT_VARINT), m->ino);
	p = wr_str_field(p, TAG(1, WT_LEN), m->path);
	p = wr_varint(p, (uint64_t)(end - p));
	return wr_varint(p, MEMCG_STATS_KEY);
}

/* HostSnapshot.aging (11): always present */
static uint8_t *wr_aging(uint8_t *p, const struct lru_aging *a)
{
	uint8_t *end = p;

	p = wr_varint_field(p, TAG(5, WT_VARINT), a->jitter_ms);
	p = wr_bool_field(p, TAG(4, WT_VARINT), a->force_scan);
	p = wr_bool_field(p, TAG(3, WT_VARINT), a->can_swap);
	p = wr_varint_field(p, TAG(2, WT_VARINT), a->interval_ms);
	p = wr_bool_field(p, TAG(1, WT_VARINT), a->enabled);
	return wr_len_key(p, TAG(11, WT_LEN), end);
}

/* SnapshotBatch.snapshots (1); snap was checked by size_host() */
static uint8_t *wr_host(uint8_t *p, const struct lru_snapshot *snap)
{
	const struct lru_host *h = &snap->host;
	uint8_t *end = p;
	size_t i;

	p = wr_warnings(p, HOST_WARNINGS_KEY, h->warnings, true);
	for (i = snap->nr_memcgs; i-- > 0;)
		if (snap->memcgs[i].has_stats)
			p = wr_stats(p, &snap->memcgs[i]);
	p = wr_varint_field(p, TAG(15, WT_VARINT), h->enabled);
	p = wr_varint_field(p, TAG(14, WT_VARINT), snap->nr_duplicates);
	p = wr_varint_field(p, TAG(13, WT_VARINT), (uint64_t)snap->source);
	for (i = snap->nr_lruvecs; i-- > 0;) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];

		p = wr_lruvec(p, lv, &snap->memcgs[lv->memcg]);
	}
	p = wr_aging(p, &h->aging);
	for (i = snap->nr_nodes; i-- > 0;)
		p = wr_node(p, &snap->nodes[i]);
	p = wr_varint_field(p, TAG(9, WT_VARINT), snap->page_size);
	p = wr_str_field(p, TAG(8, WT_LEN), h->kernel);
	p = wr_varint_field(p, TAG(7, WT_VARINT), snap->birth_error_ms);
	p = wr_varint_field(p, TAG(6, WT_VARINT), (uint64_t)snap->read_end_ms);
	p = wr_varint_field(p, TAG(5, WT_VARINT), (uint64_t)snap->read_start_ms);
	p = wr_varint_field(p, TAG(4, WT_VARINT),
			     (uint64_t)lru_sat_mid_i64(snap->read_start_ms, snap->read_end_ms));
	p = wr_varint_field(p, TAG(3, WT_VARINT), h->seq);
	p = wr_str_field(p, TAG(2, WT_LEN), h->boot_id);
	p = wr_str_field(p, TAG(1, WT_LEN), h->host);
	return wr_len_key(p, TAG(1, WT_LEN), end);
}

enum lru_err lru_pb_encode_batch(const struct lru_snapshot *const *snaps, size_t n,
				 uint8_t **out, size_t *len, struct lru_error *err)
{
	size_t size = 0, host = 0, i;
	enum lru_err rc;
	uint8_t *buf, *p;

	*out = NULL;
	*len = 0;
	for (i = 0; i < n; i++) {
		rc = size_host(snaps[i], i, &host, err);
		if (rc)
			return rc;
		size = add_sat(size, add_sat(host, 1 + varint_size(host)));
	}
	if (size > LRU_PB_MAX_MESSAGE)
		return lru_fail(err, LRU_ERANGE,
				"SnapshotBatch of %zu snapshots needs %zu bytes, more than the %u-byte limit",
				n, size, LRU_PB_MAX_MESSAGE);
	buf = malloc(size ? size : 1);
	if (!buf)
		return lru_fail(err, LRU_ENOMEM, "out of memory for a %zu-byte SnapshotBatch", size);
	p = buf + size;
	for (i = n; i-- > 0;)
		p = wr_host(p, snaps[i]);
	if (p != buf) {
		/* the passes disagree (a bug): fail rather than send a garbled message */
		ptrdiff_t short_by = p - buf;

		free(buf);
		return lru_fail(err, LRU_EINVAL,
				"internal error: %zu-byte SnapshotBatch encoded %td short",
				size, short_by);
	}
	*out = buf;
	*len = size;
	return LRU_OK;
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
