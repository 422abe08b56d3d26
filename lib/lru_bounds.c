/* lru_bounds.c - a snapshot from the network checked against lru_bounds.h's table. */
#include "lru_bounds.h"

#include <inttypes.h>
#include <string.h>

#include "lru_esc.h"

#define MAX_STRING 255

/* "what" for messages: a string of the snapshot, made UTF-8 and cut */
static const char *shown(const char *s, char *buf, size_t size)
{
	lru_esc(buf, size, s ? s : "", s ? strlen(s) : 0, LRU_ESC_UTF8);
	return buf;
}

static enum lru_err check_string(const char *what, const char *s, size_t max, bool required,
				 struct lru_error *err)
{
	size_t n = s ? strlen(s) : 0;
	char b[64];

	if (required && !n)
		return lru_fail(err, LRU_EPROTO, "%s is empty", what);
	if (n > max)
		return lru_fail(err, LRU_EPROTO, "%s '%s...' is longer than %zu bytes", what,
				shown(s, b, sizeof(b)), max);
	if (n && !lru_utf8_valid(s, n))
		return lru_fail(err, LRU_EPROTO, "%s '%s' is not UTF-8", what, shown(s, b, sizeof(b)));
	return LRU_OK;
}

static enum lru_err check_bytes(const char *what, int node, uint64_t v, uint64_t max,
				struct lru_error *err)
{
	if (v <= max)
		return LRU_OK;
	return lru_fail(err, LRU_ERANGE, "node %d: %s %" PRIu64 " is above %" PRIu64, node, what, v,
			max);
}

static enum lru_err check_time(const char *what, int64_t t, int64_t hi, struct lru_error *err)
{
	if (t >= LRU_BOUND_MIN_TIME_MS && t <= hi)
		return LRU_OK;
	return lru_fail(err, LRU_ERANGE, "%s %" PRId64 " ms is not between 2000-01-01 and %" PRId64
			" ms (a clock not set, or ahead of the store's)", what, t, hi);
}

static enum lru_err check_lruvec(const struct lru_snapshot *snap, const struct lru_lruvec *lv,
				 int64_t birth_hi, struct lru_error *err)
{
	const char *path = snap->memcgs[lv->memcg].path;
	uint64_t max_pages = LRU_BOUND_MAX_NODE_BYTES / snap->page_size;
	char b[96];

	for (unsigned g = 0; g < lv->nr_gens; g++) {
		const struct lru_gen *gen = &lv->gens[g];

		if (gen->pages[LRU_ANON] > max_pages || gen->pages[LRU_FILE] > max_pages)
			return lru_fail(err, LRU_ERANGE, "lruvec '%s' node %d: generation %" PRIu64
					" holds more than 4 PiB", shown(path, b, sizeof(b)), lv->node,
					gen->seq);
		if (gen->birth_ms < LRU_BOUND_MIN_TIME_MS || gen->birth_ms > birth_hi)
			return lru_fail(err, LRU_ERANGE, "lruvec '%s' node %d: generation %" PRIu64
					" birth %" PRId64 " ms is not between 2000-01-01 and the "
					"read's end", shown(path, b, sizeof(b)), lv->node, gen->seq,
					gen->birth_ms);
	}
	return LRU_OK;
}

enum lru_err lru_snapshot_check(const struct lru_snapshot *snap, int64_t now_ms,
				uint64_t max_skew_ms, struct lru_error *err)
{
	const struct lru_host *h = &snap->host;
	int64_t skew = max_skew_ms > INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)max_skew_ms;
	int64_t read_hi = now_ms > INT64_MAX / 2 ? INT64_MAX / 2 : now_ms + skew;
	uint64_t stats_max;
	enum lru_err rc;
	size_t i;

	if ((rc = check_string("host name", h->host, MAX_STRING, true, err)) ||
	    (rc = check_string("boot id", h->boot_id, MAX_STRING, false, err)) ||
	    (rc = check_string("kernel", h->kernel, MAX_STRING, false, err)))
		return rc;
	if (h->seq > INT64_MAX)
		return lru_fail(err, LRU_ERANGE, "seq %" PRIu64 " is above 2^63-1", h->seq);
	if (snap->page_size < 4096 || snap->page_size > 65536 ||
	    (snap->page_size & (snap->page_size - 1)))
		return lru_fail(err, LRU_ERANGE, "page size %" PRIu32 " is not a power of two from "
				"4 KiB to 64 KiB", snap->page_size);
	if (snap->nr_memcgs > LRU_BOUND_MAX_LRUVECS || snap->nr_lruvecs > LRU_BOUND_MAX_LRUVECS)
		return lru_fail(err, LRU_ERANGE, "%zu memcgs and %zu lruvecs: at most %u each",
				snap->nr_memcgs, snap->nr_lruvecs, LRU_BOUND_MAX_LRUVECS);
	if ((rc = check_time("read start", snap->read_start_ms, read_hi, err)) ||
	    (rc = check_time("read end", snap->read_end_ms, read_hi, err)))
		return rc;
	if (snap->read_end_ms < snap->read_start_ms ||
	    snap->read_end_ms - snap->read_start_ms > LRU_BOUND_MAX_READ_MS)
		return lru_fail(err, LRU_ERANGE, "the read took from %" PRId64 " to %" PRId64
				" ms: not 0 to 1 hour", snap->read_start_ms, snap->read_end_ms);
	for (i = 0; i < snap->nr_nodes; i++) {
		const struct lru_node_mem *n = &snap->nodes[i];

		if ((rc = check_bytes("total_bytes", n->node, n->total, LRU_BOUND_MAX_NODE_BYTES, err)) ||
		    (rc = check_bytes("free_bytes", n->node, n->free, n->total, err)) ||
		    (rc = check_bytes("file_bytes", n->node, n->file, LRU_BOUND_MAX_NODE_BYTES, err)) ||
		    (rc = check_bytes("anon_bytes", n->node, n->anon, LRU_BOUND_MAX_NODE_BYTES, err)))
			return rc;
	}
	stats_max = LRU_BOUND_MAX_NODE_BYTES * (snap->nr_nodes ? snap->nr_nodes : 1);
	for (i = 0; i < snap->nr_memcgs; i++) {
		const struct lru_memcg *m = &snap->memcgs[i];
		const struct lru_memcg_stats *st = &m->stats;
		char b[96];

		if ((rc = check_string("memcg path", m->path, LRU_PATH_MAX, false, err)))
			return rc;
		if (m->has_stats &&
		    (st->anon_bytes > stats_max || st->file_bytes > stats_max ||
		     st->inactive_file_bytes > stats_max || st->current_bytes > stats_max ||
		     st->thp_bytes > stats_max || st->file_mapped_bytes > stats_max))
			return lru_fail(err, LRU_ERANGE, "memcg '%s': memory.stat bytes above %d "
					"nodes of 4 PiB", shown(m->path, b, sizeof(b)),
					(int)(snap->nr_nodes ? snap->nr_nodes : 1));
	}
	for (i = 0; i < snap->nr_lruvecs; i++)
		if ((rc = check_lruvec(snap, &snap->lruvecs[i], snap->read_end_ms + skew, err)))
			return rc;
	return LRU_OK;
}
