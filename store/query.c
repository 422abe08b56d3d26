/*
 * query.c - hosts, cold, rank, wss, timeline, capacity and latest over the store's tables.
 *
 * Accuracy warnings (lru_warn.h) are kept as bitmasks and become codes here:
 * every row of a host, node, memcg or lruvec says "warnings": [codes], []
 * when none. A row of a whole host lists its host codes (damon_active) and
 * those of any of its lruvecs (thp_unaged); a row of a node, memcg or
 * lruvec lists the codes of its lruvecs only.
 */
#include "query.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_esc.h"
#include "lru_fleet.h"
#include "lru_pb.h"
#include "lru_sat.h"
#include "lru_units.h"
#include "map.h"

#define HOUR_MS 3600000LL
#define NR_T LRU_FLEET_NR_THRESHOLDS
#define DEFAULT_LIMIT 100

/* statement slots of a reader (db_stmt) */
enum {
	S_HOSTS, S_COLD_HOSTS, S_COLD_NODES, S_LV_BY_PATH, S_LV_ALL, S_CAPACITY, S_PATHS_RANGE,
	S_PATHS_ALL, S_WSS_ROWS, S_HOST_ID, S_TIMELINE, S_PATH_BY_ID, S_LATEST, S_LATEST_HOST,
	S_RANK_HOSTS = 16, S_RANK_NODES = S_RANK_HOSTS + NR_T, S_COUNT_HOSTS = S_RANK_NODES + NR_T,
	S_COUNT_NODES = S_COUNT_HOSTS + NR_T,
};

#define COLD_SELECT "cold_1m, cold_2m, cold_5m, cold_10m, cold_30m, cold_1h, cold_6h, cold_24h"

static json_t *bad(struct query *q, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static json_t *bad(struct query *q, int status, const char *fmt, ...)
{
	va_list ap;

	q->status = status;
	va_start(ap, fmt);
	vsnprintf(q->error, sizeof(q->error), fmt, ap);
	va_end(ap);
	return NULL;
}

static json_t *db_error(struct query *q)
{
	return bad(q, 500, "database error: %s", sqlite3_errmsg(q->r->db));
}

static void set_int(json_t *o, const char *key, int64_t v)
{
	json_object_set_new(o, key, json_integer((json_int_t)v));
}

static void set_u64(json_t *o, const char *key, uint64_t v)
{
	json_object_set_new(o, key, json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v));
}

static void set_str(json_t *o, const char *key, const char *v)
{
	size_t n = v ? strlen(v) : 0;

	if (!n || lru_utf8_valid(v, n)) {
		json_object_set_new(o, key, json_string(v ? v : ""));
		return;
	}
	/* stored before the store checked UTF-8: the key stays, with \xNN text */
	{
		struct lru_buf b;

		lru_buf_init(&b);
		if (!lru_esc_buf(&b, v, n, LRU_ESC_UTF8, NULL))
			json_object_set_new(o, key, json_string((const char *)b.data));
		lru_buf_release(&b);
	}
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
	sqlite3_int64 v = sqlite3_column_int64(st, i);

	return v < 0 ? 0 : (uint64_t)v;
}

static const char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

static uint32_t col_mask(sqlite3_stmt *st, int i)
{
	return (uint32_t)sqlite3_column_int64(st, i);
}

/* The code of bit b of a host (host) or lruvec warning mask; NULL if unknown. */
static const char *warn_code(unsigned b, bool host)
{
	return host ? lru_hostwarn_name(1u << b) : lru_warn_name(1u << b);
}

/* "warnings": the codes of host warnings hw, then of lruvec warnings lw. */
static void put_warnings(json_t *o, uint32_t hw, uint32_t lw)
{
	json_t *arr = json_array();

	for (int host = 1; host >= 0; host--)
		for (unsigned b = 0; b < 32; b++) {
			const char *code = (host ? hw : lw) & (1u << b) ? warn_code(b, host) : NULL;

			if (code)
				json_array_append_new(arr, json_string(code));
		}
	json_object_set_new(o, "warnings", arr);
}

/* Add {code: n[b]} to o for each counted bit b < nbits of host or lruvec warnings. */
static void put_warn_counts(json_t *o, const uint64_t *n, unsigned nbits, bool host)
{
	for (unsigned b = 0; b < nbits; b++) {
		const char *code = n[b] ? warn_code(b, host) : NULL;

		if (code)
			set_u64(o, code, n[b]);
	}
}

/* ---- parameters --------------------------------------------------------------- */

static int param_duration(struct query *q, const char *name, uint64_t def, uint64_t *ms)
{
	const char *s = q->arg(q->ctx, name);
	struct lru_error err;

	*ms = def;
	if (s && lru_parse_duration_ms(s, ms, &err)) {
		bad(q, 400, "parameter '%s': %s", name, err.msg);
		return -1;
	}
	return 0;
}

/* threshold=DUR (default 2m) -> the fixed threshold index that answers it */
static int param_threshold(struct query *q, uint64_t *ms, unsigned *k)
{
	int idx;

	if (param_duration(q, "threshold", 120000, ms))
		return -1;
	idx = lru_fleet_threshold_index(*ms);
	if (idx < 0) {
		bad(q, 400, "parameter 'threshold': above the largest precomputed threshold (24h)");
		return -1;
	}
	*k = (unsigned)idx;
	return 0;
}

static int param_uint(struct query *q, const char *name, uint64_t def, uint64_t max,
		      uint64_t *v)
{
	const char *s = q->arg(q->ctx, name);
	char *end;

	*v = def;
	if (!s)
		return 0;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *v > max) {
		bad(q, 400, "parameter '%s': '%s' is not a whole number up to %" PRIu64, name, s, max);
		return -1;
	}
	return 0;
}

static int param_bool(struct query *q, const char *name, bool *v)
{
	const char *s = q->arg(q->ctx, name);

	*v = false;
	if (!s)
		return 0;
	if (!strcmp(s, "1") || !strcmp(s, "true") || !*s)
		*v = true;
	else if (strcmp(s, "0") && strcmp(s, "false")) {
		bad(q, 400, "parameter '%s' takes 1 or 0, not '%s'", name, s);
		return -1;
	}
	return 0;
}

static void put_threshold(json_t *o, uint64_t ms, unsigned k)
{
	set_u64(o, "threshold_ms", ms);
	set_u64(o, "effective_threshold_ms", lru_fleet_threshold_ms(k));
}

/* ---- hosts ---------------------------------------------------------------------- */

json_t *query_hosts(struct query *q)
{
	sqlite3_stmt *st = db_stmt(q->r, S_HOSTS,
		"SELECT name, first_seen_ms, ingest_ms, taken_ms, boot_id, seq, kernel, page_size, "
		"nr_nodes, nr_memcgs, nr_lruvecs, mem_total, mem_free, total, host_warnings, warnings "
		"FROM hosts ORDER BY name");
	json_t *doc = json_object(), *rows = json_array();
	int rc;

	if (!st)
		return db_error(q);
	set_int(doc, "now_ms", q->now_ms);
	json_object_set(doc, "hosts", rows);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object();

		set_str(o, "host", col_str(st, 0));
		set_int(o, "first_seen_ms", sqlite3_column_int64(st, 1));
		set_int(o, "last_ingest_ms", sqlite3_column_int64(st, 2));
		if (sqlite3_column_type(st, 3) == SQLITE_NULL)
			json_object_set_new(o, "last_seen_ms", json_null());
		else
			set_int(o, "last_seen_ms", sqlite3_column_int64(st, 3));
		set_str(o, "boot_id", col_str(st, 4));
		set_u64(o, "seq", col_u64(st, 5));
		set_str(o, "kernel", col_str(st, 6));
		set_u64(o, "page_size", col_u64(st, 7));
		set_u64(o, "nodes", col_u64(st, 8));
		set_u64(o, "memcgs", col_u64(st, 9));
		set_u64(o, "lruvecs", col_u64(st, 10));
		set_u64(o, "mem_total_bytes", col_u64(st, 11));
		set_u64(o, "mem_free_bytes", col_u64(st, 12));
		set_u64(o, "in_generations_bytes", col_u64(st, 13));
		put_warnings(o, col_mask(st, 14), col_mask(st, 15));
		json_array_append_new(rows, o);
	}
	json_decref(rows);
	if (rc != SQLITE_DONE) {
		json_decref(doc);
		return db_error(q);
	}
	return doc;
}

/* ---- memcg globs ----------------------------------------------------------------- */

struct path_set {
	uint64_t *ids;
	char **paths;
	size_t n, alloc;
	struct map index;	/* id -> position + 1 */
};

static void path_set_release(struct path_set *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->paths[i]);
	free(ps->ids);
	free(ps->paths);
	map_release(&ps->index, NULL);
}

static int path_set_add(struct path_set *ps, uint64_t id, const char *path)
{
	if (ps->n == ps->alloc) {
		size_t alloc = ps->alloc ? ps->alloc * 2 : 16;
		uint64_t *ids = realloc(ps->ids, alloc * sizeof(*ids));
		char **paths = ids ? realloc(ps->paths, alloc * sizeof(*paths)) : NULL;

		if (ids)
			ps->ids = ids;
		if (!paths)
			return -1;
		ps->paths = paths;
		ps->alloc = alloc;
	}
	ps->paths[ps->n] = strdup(path);
	if (!ps->paths[ps->n])
		return -1;
	ps->ids[ps->n++] = id;
	return map_put_u64(&ps->index, id, (void *)(uintptr_t)ps->n);
}

/*
 * Every path of the dictionary matching glob: a range scan of the literal
 * prefix in the unique index on paths, then fnmatch().
 */
static int match_paths(struct query *q, const char *glob, struct path_set *ps)
{
	size_t plen = lru_fleet_glob_prefix(glob);
	char *hi = NULL;
	sqlite3_stmt *st;
	int rc;

	memset(ps, 0, sizeof(*ps));
	map_init(&ps->index);
	if (plen) {
		size_t n = plen;

		st = db_stmt(q->r, S_PATHS_RANGE, "SELECT id, path FROM paths WHERE path >= ?1 "
			     "AND (?2 IS NULL OR path < ?2) ORDER BY path");
		if (!st)
			return -1;
		hi = malloc(plen + 1);
		if (!hi)
			return -1;
		memcpy(hi, glob, plen);
		/* the smallest string above every string with this prefix */
		while (n && (unsigned char)hi[n - 1] == 0xff)
			n--;
		if (n)
			hi[n - 1]++;
		sqlite3_bind_text(st, 1, glob, (int)plen, SQLITE_STATIC);
		if (n)
			sqlite3_bind_text(st, 2, hi, (int)n, SQLITE_STATIC);
	} else {
		st = db_stmt(q->r, S_PATHS_ALL, "SELECT id, path FROM paths ORDER BY path");
		if (!st)
			return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = col_str(st, 1);

		if (!fnmatch(glob, path, 0) && path_set_add(ps, col_u64(st, 0), path)) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_reset(st);
	free(hi);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- cold ------------------------------------------------------------------------- */

struct cold_row {
	char *host, *memcg;
	int node;
	int64_t taken_ms;
	uint64_t total, cold;
	uint32_t hw, lw;	/* host and lruvec warnings */
};

struct cold_rows {
	struct cold_row *v;
	size_t n, alloc;
	uint64_t total, cold;
	uint32_t hw, lw;	/* of every row */
};

static struct cold_row *cold_push(struct cold_rows *rs, const char *host, const char *memcg,
				  int node, int64_t taken)
{
	struct cold_row *r;

	if (rs->n == rs->alloc) {
		size_t alloc = rs->alloc ? rs->alloc * 2 : 256;
		struct cold_row *v = realloc(rs->v, alloc * sizeof(*v));

		if (!v)
			return NULL;
		rs->v = v;
		rs->alloc = alloc;
	}
	r = &rs->v[rs->n];
	memset(r, 0, sizeof(*r));
	r->host = strdup(host);
	r->memcg = memcg ? strdup(memcg) : NULL;
	if (!r->host || (memcg && !r->memcg)) {
		free(r->host);
		free(r->memcg);
		return NULL;
	}
	r->node = node;
	r->taken_ms = taken;
	rs->n++;
	return r;
}

static int cmp_cold(const void *a, const void *b)
{
	const struct cold_row *x = a, *y = b;
	int c;

	if (x->cold != y->cold)
		return x->cold > y->cold ? -1 : 1;
	c = strcmp(x->host, y->host);
	if (c)
		return c;
	if (x->memcg && y->memcg && (c = strcmp(x->memcg, y->memcg)))
		return c;
	return x->node - y->node;
}

/*
 * Rows of hosts or host_nodes: name, [node,] taken, total, cold_1m..cold_24h,
 * warnings[, host_warnings].
 */
static int cold_scan(struct query *q, sqlite3_stmt *st, bool by_node, unsigned k,
		     struct cold_rows *rs)
{
	int rc, c = by_node ? 3 : 2;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cold_row *r = cold_push(rs, col_str(st, 0), NULL,
					       by_node ? sqlite3_column_int(st, 1) : -1,
					       sqlite3_column_int64(st, c - 1));

		if (!r)
			return -1;
		r->total = col_u64(st, c);
		r->cold = col_u64(st, c + 1 + (int)k);
		r->lw = col_mask(st, c + 1 + NR_T);
		r->hw = by_node ? 0 : col_mask(st, c + 2 + NR_T);
	}
	(void)q;
	return rc == SQLITE_DONE ? 0 : -1;
}

/* memcg_latest rows (name, path, taken, total, cold_1m.., warnings): one row per host and path. */
static int cold_scan_memcgs(sqlite3_stmt *st, unsigned k, struct cold_rows *rs)
{
	struct cold_row *last = NULL;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *host = col_str(st, 0), *path = col_str(st, 1);

		if (!last || strcmp(last->host, host) || strcmp(last->memcg, path)) {
			last = cold_push(rs, host, path, -1, sqlite3_column_int64(st, 2));
			if (!last)
				return -1;
		}
		last->total = lru_sat_add_u64(last->total, col_u64(st, 3));
		last->cold = lru_sat_add_u64(last->cold, col_u64(st, 4 + (int)k));
		last->lw |= col_mask(st, 4 + NR_T);
	}
	return rc == SQLITE_DONE ? 0 : -1;
}

json_t *query_cold(struct query *q)
{
	const char *by = q->arg(q->ctx, "by"), *glob = q->arg(q->ctx, "memcg_glob");
	struct cold_rows rs = { 0 };
	struct path_set ps = { 0 };
	json_t *doc = NULL, *rows, *tot;
	uint64_t thr, limit;
	sqlite3_stmt *st;
	unsigned k;
	int mode, rc = 0;

	if (!by || !strcmp(by, "host"))
		mode = 0;
	else if (!strcmp(by, "node"))
		mode = 1;
	else if (!strcmp(by, "memcg"))
		mode = 2;
	else
		return bad(q, 400, "parameter 'by' takes host, node or memcg, not '%s'", by);
	if (glob && mode != 2)
		return bad(q, 400, "parameter 'memcg_glob' needs by=memcg");
	if (param_threshold(q, &thr, &k) || param_uint(q, "limit", DEFAULT_LIMIT, 10000000, &limit))
		return NULL;
	map_init(&ps.index);

	if (mode == 0) {
		st = db_stmt(q->r, S_COLD_HOSTS, "SELECT name, taken_ms, total, " COLD_SELECT
			     ", warnings, host_warnings FROM hosts WHERE snap_id IS NOT NULL");
		rc = st ? cold_scan(q, st, false, k, &rs) : -1;
	} else if (mode == 1) {
		st = db_stmt(q->r, S_COLD_NODES, "SELECT h.name, n.node, h.taken_ms, n.total, "
			     "n.cold_1m, n.cold_2m, n.cold_5m, n.cold_10m, n.cold_30m, n.cold_1h, "
			     "n.cold_6h, n.cold_24h, n.warnings FROM host_nodes n "
			     "JOIN hosts h ON h.id = n.host_id");
		rc = st ? cold_scan(q, st, true, k, &rs) : -1;
	} else if (!glob) {
		st = db_stmt(q->r, S_LV_ALL, "SELECT h.name, p.path, h.taken_ms, l.total, "
			     "l.cold_1m, l.cold_2m, l.cold_5m, l.cold_10m, l.cold_30m, l.cold_1h, "
			     "l.cold_6h, l.cold_24h, l.warnings FROM memcg_latest l "
			     "JOIN hosts h ON h.id = l.host_id JOIN paths p ON p.id = l.path_id "
			     "WHERE l.snap_id = h.snap_id ORDER BY l.host_id, l.path_id");
		rc = st ? cold_scan_memcgs(st, k, &rs) : -1;
	} else {
		rc = match_paths(q, glob, &ps);
		for (size_t i = 0; !rc && i < ps.n; i++) {
			st = db_stmt(q->r, S_LV_BY_PATH, "SELECT h.name, ?2, h.taken_ms, l.total, "
				     "l.cold_1m, l.cold_2m, l.cold_5m, l.cold_10m, l.cold_30m, "
				     "l.cold_1h, l.cold_6h, l.cold_24h, l.warnings FROM memcg_latest l "
				     "JOIN hosts h ON h.id = l.host_id "
				     "WHERE l.path_id = ?1 AND l.snap_id = h.snap_id");
			if (!st) {
				rc = -1;
				break;
			}
			sqlite3_bind_int64(st, 1, (sqlite3_int64)ps.ids[i]);
			sqlite3_bind_text(st, 2, ps.paths[i], -1, SQLITE_STATIC);
			rc = cold_scan_memcgs(st, k, &rs);
		}
	}
	if (rc) {
		db_error(q);
		goto out;
	}
	if (rs.n > 1)	/* rs.v is NULL when there is no row */
		qsort(rs.v, rs.n, sizeof(*rs.v), cmp_cold);
	doc = json_object();
	set_str(doc, "by", mode == 0 ? "host" : mode == 1 ? "node" : "memcg");
	put_threshold(doc, thr, k);
	if (glob)
		set_str(doc, "memcg_glob", glob);
	set_int(doc, "now_ms", q->now_ms);
	rows = json_array();
	json_object_set_new(doc, "rows", rows);
	for (size_t i = 0; i < rs.n; i++) {
		struct cold_row *r = &rs.v[i];
		json_t *o;

		rs.total = lru_sat_add_u64(rs.total, r->total);
		rs.cold = lru_sat_add_u64(rs.cold, r->cold);
		rs.hw |= r->hw;
		rs.lw |= r->lw;
		if (limit && i >= limit)
			continue;
		o = json_object();
		set_str(o, "host", r->host);
		if (mode == 1)
			set_int(o, "node", r->node);
		if (mode == 2)
			set_str(o, "memcg", r->memcg);
		set_u64(o, "hot_bytes", lru_sat_sub_u64(r->total, r->cold));
		set_u64(o, "cold_bytes", r->cold);
		set_u64(o, "total_bytes", r->total);
		set_int(o, "taken_at_ms", r->taken_ms);
		put_warnings(o, r->hw, r->lw);
		json_array_append_new(rows, o);
	}
	set_u64(doc, "rows_total", rs.n);
	json_object_set_new(doc, "truncated", json_boolean(limit && rs.n > limit));
	tot = json_object();
	set_u64(tot, "hot_bytes", lru_sat_sub_u64(rs.total, rs.cold));
	set_u64(tot, "cold_bytes", rs.cold);
	set_u64(tot, "total_bytes", rs.total);
	put_warnings(tot, rs.hw, rs.lw);
	json_object_set_new(doc, "total", tot);
out:
	for (size_t i = 0; i < rs.n; i++) {
		free(rs.v[i].host);
		free(rs.v[i].memcg);
	}
	free(rs.v);
	path_set_release(&ps);
	return doc;
}

/* ---- rank ---------------------------------------------------------------------------- */

json_t *query_rank(struct query *q)
{
	char sql[512], col[32];
	const char *need_s = q->arg(q->ctx, "need");
	uint64_t need, thr, limit;
	int64_t fresh = INT64_MIN, count = 0;
	struct lru_error err;
	json_t *doc, *rows;
	sqlite3_stmt *st;
	bool per_node;
	unsigned k;
	int rc;

	if (!need_s)
		return bad(q, 400, "parameter 'need' is required (a size: 4G)");
	if (lru_parse_size(need_s, &need, &err))
		return bad(q, 400, "parameter 'need': %s", err.msg);
	if (need > INT64_MAX)
		return bad(q, 400, "parameter 'need' is too large");
	if (param_threshold(q, &thr, &k) || param_bool(q, "per_node", &per_node) ||
	    param_uint(q, "limit", 20, 100000, &limit))
		return NULL;
	if (q->cfg->stale_after_ms)
		fresh = lru_sat_sub_i64(q->now_ms, lru_sat_i64(q->cfg->stale_after_ms));
	snprintf(col, sizeof(col), "cold_%s", lru_fleet_threshold_name(k));

	/* how many fit: an index range count */
	if (per_node)
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM host_nodes n JOIN hosts h "
			 "ON h.id = n.host_id WHERE n.mem_free + n.%s >= ?1 AND h.taken_ms >= ?2", col);
	else
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM hosts WHERE mem_free + %s >= ?1 "
			 "AND taken_ms >= ?2", col);
	st = db_stmt(q->r, (per_node ? S_COUNT_NODES : S_COUNT_HOSTS) + k, sql);
	if (!st)
		return db_error(q);
	sqlite3_bind_int64(st, 1, (sqlite3_int64)need);
	sqlite3_bind_int64(st, 2, fresh);
	if (sqlite3_step(st) != SQLITE_ROW)
		return db_error(q);
	count = sqlite3_column_int64(st, 0);

	/* the best: the offer index walked from the top */
	if (per_node)
		snprintf(sql, sizeof(sql), "SELECT h.name, n.node, n.mem_total, n.mem_free, n.%s, "
			 "h.taken_ms, n.warnings, 0 FROM host_nodes n JOIN hosts h ON h.id = n.host_id "
			 "WHERE n.mem_free + n.%s >= ?1 AND h.taken_ms >= ?2 "
			 "ORDER BY n.mem_free + n.%s DESC LIMIT ?3", col, col, col);
	else
		snprintf(sql, sizeof(sql), "SELECT name, -1, mem_total, mem_free, %s, taken_ms, "
			 "warnings, host_warnings FROM hosts WHERE mem_free + %s >= ?1 AND taken_ms >= ?2 "
			 "ORDER BY mem_free + %s DESC LIMIT ?3", col, col, col);
	st = db_stmt(q->r, (per_node ? S_RANK_NODES : S_RANK_HOSTS) + k, sql);
	if (!st)
		return db_error(q);
	sqlite3_bind_int64(st, 1, (sqlite3_int64)need);
	sqlite3_bind_int64(st, 2, fresh);
	sqlite3_bind_int64(st, 3, limit ? (sqlite3_int64)limit : -1);

	doc = json_object();
	set_u64(doc, "need_bytes", need);
	put_threshold(doc, thr, k);
	json_object_set_new(doc, "per_node", json_boolean(per_node));
	set_u64(doc, "stale_after_ms", q->cfg->stale_after_ms);
	set_int(doc, "now_ms", q->now_ms);
	set_int(doc, "candidates", count);
	rows = json_array();
	json_object_set_new(doc, "rows", rows);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t free_b = col_u64(st, 3), cold = col_u64(st, 4);
		uint64_t from_free = need < free_b ? need : free_b;
		json_t *o = json_object();

		set_int(o, "rank", (int64_t)json_array_size(rows) + 1);
		set_str(o, "host", col_str(st, 0));
		if (per_node)
			set_int(o, "node", sqlite3_column_int(st, 1));
		set_u64(o, "offer_bytes", lru_sat_add_u64(free_b, cold));
		set_u64(o, "free_bytes", free_b);
		set_u64(o, "cold_bytes", cold);
		set_u64(o, "from_free_bytes", from_free);
		set_u64(o, "from_cold_bytes", need - from_free);
		set_u64(o, "mem_total_bytes", col_u64(st, 2));
		set_int(o, "taken_at_ms", sqlite3_column_int64(st, 5));
		put_warnings(o, col_mask(st, 7), col_mask(st, 6));
		json_array_append_new(rows, o);
	}
	if (rc != SQLITE_DONE) {
		json_decref(doc);
		return db_error(q);
	}
	return doc;
}

/* ---- capacity ------------------------------------------------------------------------- */

/*
 * The latest snapshots of the fleet, summed in C (sqlite's SUM() fails with
 * "integer overflow" once one host sends an absurd size): bytes saturate,
 * exact below 2^64. host_n/lv_n count the hosts that carry each warning
 * code (host codes, and lruvec codes on any of their lruvecs).
 */
struct capacity {
	uint64_t hosts, mem_total, mem_free, total, cold[NR_T];
	uint64_t host_n[32], lv_n[32];
};

static int capacity_sum(struct query *q, struct capacity *c)
{
	sqlite3_stmt *st = db_stmt(q->r, S_CAPACITY, "SELECT mem_total, mem_free, total, "
				   COLD_SELECT ", host_warnings, warnings FROM hosts "
				   "WHERE snap_id IS NOT NULL");
	int rc;

	memset(c, 0, sizeof(*c));
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		c->hosts++;
		c->mem_total = lru_sat_add_u64(c->mem_total, col_u64(st, 0));
		c->mem_free = lru_sat_add_u64(c->mem_free, col_u64(st, 1));
		c->total = lru_sat_add_u64(c->total, col_u64(st, 2));
		for (unsigned k = 0; k < NR_T; k++)
			c->cold[k] = lru_sat_add_u64(c->cold[k], col_u64(st, 3 + (int)k));
		for (unsigned b = 0; b < 32; b++) {
			c->host_n[b] += !!(col_mask(st, 3 + NR_T) & (1u << b));
			c->lv_n[b] += !!(col_mask(st, 4 + NR_T) & (1u << b));
		}
	}
	return rc == SQLITE_DONE ? 0 : -1;
}

json_t *query_capacity(struct query *q)
{
	const char *list = q->arg(q->ctx, "thresholds");
	char buf[512], *save = NULL, *tok;
	struct capacity c;
	json_t *doc, *arr, *o;

	snprintf(buf, sizeof(buf), "%s", list ? list : "2m,10m,1h");
	if (list && strlen(list) >= sizeof(buf))
		return bad(q, 400, "parameter 'thresholds' is too long");
	if (capacity_sum(q, &c))
		return db_error(q);
	doc = json_object();
	arr = json_array();
	set_int(doc, "now_ms", q->now_ms);
	set_u64(doc, "hosts", c.hosts);
	set_u64(doc, "mem_total_bytes", c.mem_total);
	set_u64(doc, "mem_free_bytes", c.mem_free);
	set_u64(doc, "in_generations_bytes", c.total);
	json_object_set_new(doc, "thresholds", arr);
	/* "warnings": {code: hosts}; {} for none */
	o = json_object();
	put_warn_counts(o, c.host_n, 32, true);
	put_warn_counts(o, c.lv_n, 32, false);
	json_object_set_new(doc, "warnings", o);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct lru_error err;
		uint64_t ms, cold;
		int k;

		if (lru_parse_duration_ms(tok, &ms, &err)) {
			json_decref(doc);
			return bad(q, 400, "parameter 'thresholds': %s", err.msg);
		}
		k = lru_fleet_threshold_index(ms);
		if (k < 0) {
			json_decref(doc);
			return bad(q, 400, "parameter 'thresholds': '%s' is above the largest "
				   "precomputed threshold (24h)", tok);
		}
		cold = c.cold[k];
		o = json_object();
		put_threshold(o, ms, (unsigned)k);
		set_u64(o, "hot_bytes", lru_sat_sub_u64(c.total, cold));
		set_u64(o, "cold_bytes", cold);
		json_object_set_new(o, "cold_fraction",
				    json_real(c.total ? (double)cold / (double)c.total : 0.0));
		json_array_append_new(arr, o);
	}
	if (!json_array_size(arr)) {
		json_decref(doc);
		return bad(q, 400, "parameter 'thresholds' lists no threshold");
	}
	return doc;
}

/* ---- wss ---------------------------------------------------------------------------- */

struct wss_acc {
	struct path_set *ps;
	struct lru_hist *h;	/* per path: the threshold asked for */
	uint64_t *samples, *hours;
	struct lru_fleet_warn_counts *warn;	/* per path: warned samples */
	unsigned k;
	int64_t from_hour;
	int oom;
};

static void wss_visit(void *arg, const struct rollup_cell *c)
{
	struct wss_acc *a = arg;
	size_t i = (size_t)(uintptr_t)map_get_u64(&a->ps->index, c->path_id);

	if (!i-- || c->hour < a->from_hour)
		return;
	if (lru_hist_merge(&a->h[i], &c->h[a->k], NULL))
		a->oom = 1;
	a->samples[i] += c->samples;
	lru_fleet_warn_counts_merge(&a->warn[i], &c->warn);
}

/*
 * A job's row; "warnings" lists the codes any of its samples carried and
 * "warning_samples" how many did ({code: samples}): the percentiles of a
 * job with warned samples are lower bounds.
 */
static json_t *wss_row(const char *memcg, const struct lru_hist *h, uint64_t samples,
		       uint64_t hours, const struct lru_fleet_warn_counts *warn, double p)
{
	json_t *o = json_object(), *counts = json_object();

	if (memcg)
		set_str(o, "memcg", memcg);
	else
		json_object_set_new(o, "memcg", json_null());
	set_u64(o, "samples", samples);
	if (memcg)
		set_u64(o, "hours", hours);
	set_u64(o, "p50_bytes", lru_hist_percentile(h, 50));
	set_u64(o, "p95_bytes", lru_hist_percentile(h, 95));
	set_u64(o, "p99_bytes", lru_hist_percentile(h, 99));
	set_u64(o, "max_bytes", lru_hist_max(h));
	set_u64(o, "recommended_bytes", lru_hist_percentile(h, p));
	put_warnings(o, 0, lru_fleet_warn_counts_mask(warn));
	put_warn_counts(counts, warn->n, LRU_FLEET_WARN_BITS, false);
	json_object_set_new(o, "warning_samples", counts);
	return o;
}

json_t *query_wss(struct query *q)
{
	const char *glob = q->arg(q->ctx, "memcg_glob"), *ps_s = q->arg(q->ctx, "percentile");
	struct path_set ps = { 0 };
	struct wss_acc a = { 0 };
	struct lru_hist all;
	struct lru_fleet_warn_counts all_warn = { { 0 } };
	uint64_t thr, window, all_samples = 0;
	double p = 95;
	json_t *doc = NULL, *jobs;
	unsigned k;
	int rc = 0;

	if (!glob || !*glob)
		return bad(q, 400, "parameter 'memcg_glob' is required (a memcg path pattern)");
	if (ps_s) {
		char *end;

		errno = 0;
		p = strtod(ps_s, &end);
		if (errno || end == ps_s || *end || !(p > 0 && p <= 100))
			return bad(q, 400, "parameter 'percentile' takes a number above 0 and at "
				   "most 100, not '%s'", ps_s);
	}
	if (param_threshold(q, &thr, &k) || param_duration(q, "window", 7 * 86400000ULL, &window))
		return NULL;
	if (!window)
		return bad(q, 400, "parameter 'window' must be above 0");
	if (match_paths(q, glob, &ps))
		return db_error(q);
	if (!ps.n) {
		path_set_release(&ps);
		return bad(q, 404, "no memcg path matches '%s'", glob);
	}
	lru_hist_init(&all);
	a.ps = &ps;
	a.k = k;
	a.from_hour = lru_sat_sub_i64(q->now_ms, lru_sat_i64(window)) / HOUR_MS;
	a.h = calloc(ps.n, sizeof(*a.h));
	a.samples = calloc(ps.n, sizeof(*a.samples));
	a.hours = calloc(ps.n, sizeof(*a.hours));
	a.warn = calloc(ps.n, sizeof(*a.warn));
	if (!a.h || !a.samples || !a.hours || !a.warn) {
		bad(q, 500, "out of memory");
		goto out;
	}
	if (db_begin_read_with_rollups(q->db, q->r, wss_visit, &a)) {
		db_error(q);
		goto out;
	}
	for (size_t i = 0; !rc && i < ps.n; i++) {
		sqlite3_stmt *st = db_stmt(q->r, S_WSS_ROWS, "SELECT samples, hist, warnings "
					   "FROM wss_hourly WHERE path_id = ?1 AND hour >= ?2");

		if (!st) {
			rc = -1;
			break;
		}
		sqlite3_bind_int64(st, 1, (sqlite3_int64)ps.ids[i]);
		sqlite3_bind_int64(st, 2, a.from_hour);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			a.samples[i] += col_u64(st, 0);
			a.hours[i]++;
			if (lru_hist_merge_blob(&a.h[i], k, sqlite3_column_blob(st, 1),
						(size_t)sqlite3_column_bytes(st, 1), NULL) ||
			    lru_fleet_warn_counts_merge_blob(&a.warn[i], sqlite3_column_blob(st, 2),
							     (size_t)sqlite3_column_bytes(st, 2), NULL)) {
				rc = SQLITE_CORRUPT;
				break;
			}
		}
		rc = rc == SQLITE_DONE ? 0 : -1;
	}
	db_end_read(q->r);
	if (rc || a.oom) {
		db_error(q);
		goto out;
	}
	doc = json_object();
	set_str(doc, "memcg_glob", glob);
	put_threshold(doc, thr, k);
	set_u64(doc, "window_ms", window);
	json_object_set_new(doc, "percentile", json_real(p));
	set_int(doc, "now_ms", q->now_ms);
	jobs = json_array();
	json_object_set_new(doc, "jobs", jobs);
	for (size_t i = 0; i < ps.n; i++) {
		json_array_append_new(jobs, wss_row(ps.paths[i], &a.h[i], a.samples[i], a.hours[i],
						    &a.warn[i], p));
		lru_hist_merge(&all, &a.h[i], NULL);
		all_samples += a.samples[i];
		lru_fleet_warn_counts_merge(&all_warn, &a.warn[i]);
	}
	json_object_set_new(doc, "all", wss_row(NULL, &all, all_samples, 0, &all_warn, p));
out:
	if (a.h)
		for (size_t i = 0; i < ps.n; i++)
			lru_hist_release(&a.h[i]);
	lru_hist_release(&all);
	free(a.h);
	free(a.samples);
	free(a.hours);
	free(a.warn);
	path_set_release(&ps);
	return doc;
}

/* ---- timeline -------------------------------------------------------------------------- */

struct tl_path {
	char *path;
	bool match;
};

struct tl_lruvec {
	json_t *obj, *points;	/* borrowed: the document holds them */
	uint32_t warnings;	/* of any of its snapshots in the window */
};

static void tl_path_free(void *p)
{
	struct tl_path *t = p;

	free(t->path);
	free(t);
}

static struct tl_path *tl_path(struct query *q, struct map *cache, uint64_t id, const char *glob)
{
	struct tl_path *t = map_get_u64(cache, id);
	sqlite3_stmt *st;

	if (t)
		return t;
	st = db_stmt(q->r, S_PATH_BY_ID, "SELECT path FROM paths WHERE id = ?1");
	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->path = strdup(sqlite3_step(st) == SQLITE_ROW ? col_str(st, 0) : "?");
	sqlite3_reset(st);
	if (!t->path || map_put_u64(cache, id, t)) {
		tl_path_free(t);
		return NULL;
	}
	t->match = !glob || !fnmatch(glob, t->path, 0);
	return t;
}

/* The id of a host by name: 0, or -1 with 404 or a database error. */
static int host_id(struct query *q, const char *host, int64_t *id)
{
	sqlite3_stmt *st = db_stmt(q->r, S_HOST_ID, "SELECT id FROM hosts WHERE name = ?1");
	int rc;

	if (!st)
		return db_error(q), -1;
	sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return (rc == SQLITE_DONE ? bad(q, 404, "no host '%s' in the store", host)
					  : db_error(q)), -1;
	*id = sqlite3_column_int64(st, 0);
	return 0;
}

/* A timeline request: its parameters and the page being built. */
struct timeline {
	const char *host, *glob;
	int64_t host_id, since_ms;
	uint64_t limit, points;
	long long after_taken, after_id, after_skip;	/* the 'after' cursor */
	bool truncated;
	int64_t next_taken, next_id, next_skip;		/* the 'next' one */
	struct map paths, lruvecs;
	json_t *doc, *snaps, *lvs;
};

/* Check the parameters into t: 0, or -1 with the error set. */
static int tl_params(struct query *q, struct timeline *t)
{
	const char *after = q->arg(q->ctx, "after");
	uint64_t since;

	t->host = q->arg(q->ctx, "host");
	t->glob = q->arg(q->ctx, "memcg");
	t->after_taken = t->after_id = INT64_MIN;
	if (!t->host || !*t->host)
		return bad(q, 400, "parameter 'host' is required"), -1;
	if (param_duration(q, "since", 3600000, &since) ||
	    param_uint(q, "limit", QUERY_TIMELINE_LIMIT, QUERY_TIMELINE_LIMIT_MAX, &t->limit))
		return -1;
	if (!t->limit)
		return bad(q, 400, "parameter 'limit': at least 1 point"), -1;
	if (after) {
		int used = 0;

		if (sscanf(after, "%lld.%lld.%lld%n", &t->after_taken, &t->after_id,
			   &t->after_skip, &used) != 3 || after[used] || t->after_skip < 0)
			return bad(q, 400, "parameter 'after': '%.64s' is not a cursor from a "
				   "previous answer's 'next'", after), -1;
	}
	t->since_ms = lru_sat_sub_i64(q->now_ms, lru_sat_i64(since));
	return host_id(q, t->host, &t->host_id);
}

/* The answer's frame: what was asked, the point fields, empty lists. */
static void tl_doc(struct query *q, struct timeline *t)
{
	t->doc = json_object();
	set_str(t->doc, "host", t->host);
	if (t->glob)
		set_str(t->doc, "memcg", t->glob);
	set_int(t->doc, "since_ms", t->since_ms);
	set_int(t->doc, "now_ms", q->now_ms);
	json_object_set_new(t->doc, "point_fields",
			    json_pack("[sssss]", "taken_at_ms", "gen_seq", "birth_ms", "anon_bytes",
				      "file_bytes"));
	t->snaps = json_array();
	t->lvs = json_array();
	json_object_set_new(t->doc, "snapshots", t->snaps);
	json_object_set_new(t->doc, "lruvecs", t->lvs);
}

/* The answer's entry of an lruvec (memcg path, inode, node), made on first sight. */
static struct tl_lruvec *tl_lruvec(struct timeline *t, const struct tl_path *tp,
				   const struct lru_fleet_lruvec *lv)
{
	struct tl_lruvec *tv;
	char key[96];
	json_t *o;

	snprintf(key, sizeof(key), "%" PRIu64 "/%" PRIu64 "/%d", lv->path_id, lv->ino, lv->lv.node);
	tv = map_get_str(&t->lruvecs, key);
	if (tv)
		return tv;
	o = json_object();
	tv = calloc(1, sizeof(*tv));
	if (!tv || map_put_str(&t->lruvecs, key, tv)) {
		free(tv);
		json_decref(o);
		return NULL;
	}
	tv->obj = o;
	tv->points = json_array();
	set_str(o, "memcg", tp->path);
	set_u64(o, "memcg_inode", lv->ino);
	set_u64(o, "memcg_id", lv->memcg_id);
	set_int(o, "node", lv->lv.node);
	put_warnings(o, 0, 0);
	json_object_set_new(o, "points", tv->points);
	json_array_append_new(t->lvs, o);
	return tv;
}

/* An lruvec's generations as points of the snapshot taken at taken. */
static void tl_points(struct timeline *t, struct tl_lruvec *tv, const struct lru_lruvec *lv,
		      int64_t taken, uint64_t page)
{
	if (lv->warnings & ~tv->warnings) {
		tv->warnings |= lv->warnings;
		put_warnings(tv->obj, 0, tv->warnings);
	}
	for (unsigned g = 0; g < lv->nr_gens; g++) {
		const struct lru_gen *gen = &lv->gens[g];

		t->points++;
		json_array_append_new(tv->points, json_pack("[IIIII]", (json_int_t)taken,
			(json_int_t)gen->seq, (json_int_t)gen->birth_ms,
			(json_int_t)lru_sat_i64(lru_sat_mul_u64(gen->pages[LRU_ANON], page)),
			(json_int_t)lru_sat_i64(lru_sat_mul_u64(gen->pages[LRU_FILE], page))));
	}
}

/*
 * One raw snapshot row's lruvecs into the page, from the cursor's skip on,
 * until the limit: a page ends between lruvecs once limit points are in (an
 * lruvec has LRU_MAX_GENS points at most); the cursor "TAKEN.ID.K" names
 * the snapshot to go on with and how many of its lruvecs were sent.
 * 0, or -1 out of memory or on a database error.
 */
static int tl_snapshot(struct query *q, struct timeline *t, sqlite3_stmt *st)
{
	int64_t taken = sqlite3_column_int64(st, 1), id = sqlite3_column_int64(st, 4);
	int64_t skip = taken == t->after_taken && id == t->after_id ? t->after_skip : 0, k = 0;
	uint64_t page = col_u64(st, 2);
	struct lru_fleet_reader r;
	struct lru_fleet_lruvec lv;
	struct lru_error err;

	if (t->points >= t->limit) {
		t->truncated = true;
		t->next_taken = taken, t->next_id = id, t->next_skip = 0;
		return 0;
	}
	json_array_append_new(t->snaps, json_pack("{sIsI}", "taken_at_ms", (json_int_t)taken,
						  "seq", (json_int_t)col_u64(st, 0)));
	if (lru_fleet_unpack_begin(&r, sqlite3_column_blob(st, 3),
				   (size_t)sqlite3_column_bytes(st, 3), taken, NULL, 0, &err))
		return 0;
	while (lru_fleet_unpack_next(&r, &lv, &err) > 0) {
		struct tl_path *tp;
		struct tl_lruvec *tv;

		if (k++ < skip)
			continue;
		if (t->points >= t->limit) {
			t->truncated = true;
			t->next_taken = taken, t->next_id = id, t->next_skip = k - 1;
			return 0;
		}
		tp = tl_path(q, &t->paths, lv.path_id, t->glob);
		if (!tp)
			return -1;
		if (!tp->match)
			continue;
		tv = tl_lruvec(t, tp, &lv);
		if (!tv)
			return -1;
		tl_points(t, tv, &lv.lv, taken, page);
	}
	return 0;
}

/* Every raw snapshot of the host in the window, from the cursor on, into the page. */
static int tl_scan(struct query *q, struct timeline *t)
{
	sqlite3_stmt *st = db_stmt(q->r, S_TIMELINE,
		"SELECT seq, taken_ms, page_size, data, id FROM snapshots "
		"WHERE host_id = ?1 AND taken_ms >= ?2 AND (taken_ms, id) >= (?3, ?4) "
		"ORDER BY taken_ms, id");
	int rc = SQLITE_DONE;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, t->host_id);
	sqlite3_bind_int64(st, 2, t->since_ms);
	sqlite3_bind_int64(st, 3, t->after_taken);
	sqlite3_bind_int64(st, 4, t->after_id);
	while (!t->truncated && (rc = sqlite3_step(st)) == SQLITE_ROW)
		if (tl_snapshot(q, t, st))
			return -1;
	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

json_t *query_timeline(struct query *q)
{
	struct timeline t = { 0 };
	json_t *doc;

	if (tl_params(q, &t))
		return NULL;
	map_init(&t.paths);
	map_init(&t.lruvecs);
	tl_doc(q, &t);
	doc = t.doc;
	if (tl_scan(q, &t)) {
		json_decref(doc);
		doc = db_error(q);
	} else {
		set_u64(doc, "points", t.points);
		json_object_set_new(doc, "truncated", json_boolean(t.truncated));
		if (t.truncated) {
			char next[64];

			snprintf(next, sizeof(next), "%" PRId64 ".%" PRId64 ".%" PRId64, t.next_taken,
				 t.next_id, t.next_skip);
			set_str(doc, "next", next);
		}
	}
	map_release(&t.paths, tl_path_free);
	map_release(&t.lruvecs, free);
	return doc;
}

/* ---- latest ------------------------------------------------------------------------------ */

/* what the snapshots of an answer take (their arrays, the encoder's tree and its output) per byte */
#define LATEST_FACTOR 3

struct latest {
	const char *glob;
	struct lru_snapshot *snaps;
	size_t n, alloc;
	uint64_t bytes;		/* what the snapshots take, about */
	struct map paths;	/* path id -> struct tl_path */
	struct map memcgs;	/* "path id/inode/memcg id" -> memcg index + 1, of one snapshot */
};

/* Add an unpacked lruvec (and its memcg, on first sight) to snapshot s. */
static int latest_lruvec(struct latest *l, struct lru_snapshot *s, const struct tl_path *tp,
			 const struct lru_fleet_lruvec *lv)
{
	uintptr_t known;
	size_t mc, lvi;
	char key[96];

	snprintf(key, sizeof(key), "%" PRIu64 "/%" PRIu64 "/%" PRIu64, lv->path_id, lv->ino,
		 lv->memcg_id);
	known = (uintptr_t)map_get_str(&l->memcgs, key);
	if (known) {
		mc = known - 1;
	} else {
		if (lru_snapshot_add_memcg(s, lv->memcg_id, tp->path, strlen(tp->path), &mc, NULL) ||
		    map_put_str(&l->memcgs, key, (void *)(uintptr_t)(mc + 1)))
			return -1;
		s->memcgs[mc].ino = lv->ino;
		l->bytes += sizeof(struct lru_memcg) + strlen(tp->path) + 1;
	}
	if (lru_snapshot_add_lruvec(s, mc, lv->lv.node, &lvi, NULL))
		return -1;
	s->lruvecs[lvi] = lv->lv;
	s->lruvecs[lvi].memcg = mc;
	l->bytes += sizeof(struct lru_lruvec);
	return 0;
}

/*
 * A host's latest snapshot from its hosts row and raw row (columns: name,
 * kernel, host_warnings, boot_id, seq, taken_ms, read_start_ms, read_end_ms,
 * page_size, data), its lruvecs limited to the memcgs matching the glob.
 */
static int latest_host(struct query *q, struct latest *l, sqlite3_stmt *st, struct lru_snapshot *s)
{
	const void *blob = sqlite3_column_blob(st, 9);
	size_t len = (size_t)sqlite3_column_bytes(st, 9);
	int64_t taken = sqlite3_column_int64(st, 5);
	struct lru_fleet_reader r;
	struct lru_fleet_lruvec lv;
	struct lru_error err;
	int more;

	if (lru_strdup_into(&s->host.host, col_str(st, 0), NULL) ||
	    lru_strdup_into(&s->host.kernel, col_str(st, 1), NULL) ||
	    lru_strdup_into(&s->host.boot_id, col_str(st, 3), NULL))
		return -1;
	s->host.warnings = col_mask(st, 2);
	s->host.seq = col_u64(st, 4);
	s->read_start_ms = sqlite3_column_int64(st, 6);
	s->read_end_ms = sqlite3_column_int64(st, 7);
	s->page_size = (uint32_t)col_u64(st, 8);
	/* first the node count, then the nodes: a blob the store wrote is valid */
	if (lru_fleet_unpack_begin(&r, blob, len, taken, NULL, 0, &err))
		return 0;	/* as the timeline does: a snapshot without lruvecs */
	if (r.nr_nodes && !(s->nodes = calloc(r.nr_nodes, sizeof(*s->nodes))))
		return -1;
	s->nr_nodes = r.nr_nodes;
	l->bytes += s->nr_nodes * sizeof(*s->nodes);
	if (lru_fleet_unpack_begin(&r, blob, len, taken, s->nodes, s->nr_nodes, &err))
		return 0;
	map_clear(&l->memcgs, NULL);
	while ((more = lru_fleet_unpack_next(&r, &lv, &err)) > 0) {
		struct tl_path *tp = tl_path(q, &l->paths, lv.path_id, l->glob);

		if (!tp || (tp->match && latest_lruvec(l, s, tp, &lv)))
			return -1;
	}
	return 0;
}

/* Every host's (or one's) latest snapshot into l, within max_bytes. */
static int latest_scan(struct query *q, struct latest *l, const char *host, uint64_t max_bytes)
{
	static const char *const sql =
		"SELECT h.name, h.kernel, h.host_warnings, s.boot_id, s.seq, s.taken_ms, "
		"s.read_start_ms, s.read_end_ms, s.page_size, s.data "
		"FROM hosts h JOIN snapshots s ON s.id = h.snap_id ";
	char text[512];
	sqlite3_stmt *st;
	int rc;

	snprintf(text, sizeof(text), "%s%s", sql, host ? "WHERE h.name = ?1" : "ORDER BY h.name");
	st = db_stmt(q->r, host ? S_LATEST_HOST : S_LATEST, text);
	if (!st)
		return db_error(q), -1;
	if (host)
		sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (l->n == l->alloc) {
			size_t alloc = l->alloc ? l->alloc * 2 : 16;
			struct lru_snapshot *p = realloc(l->snaps, alloc * sizeof(*p));

			if (!p)
				break;
			l->snaps = p;
			l->alloc = alloc;
		}
		lru_snapshot_init(&l->snaps[l->n]);
		l->bytes += sizeof(*l->snaps) + 256;
		if (latest_host(q, l, st, &l->snaps[l->n++]))
			break;
		if (l->bytes * LATEST_FACTOR > max_bytes) {
			sqlite3_reset(st);
			return bad(q, 413, "the latest snapshots take more than %" PRIu64 " MiB to "
				   "send: ask for fewer with 'host' or 'memcg_glob'", max_bytes >> 20), -1;
		}
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_ROW ? (bad(q, 500, "out of memory"), -1) : (db_error(q), -1);
	return 0;
}

int query_latest(struct query *q, uint64_t max_bytes, uint8_t **out, size_t *len)
{
	const char *host = q->arg(q->ctx, "host");
	struct latest l = { .glob = q->arg(q->ctx, "memcg_glob") };
	const struct lru_snapshot **ptrs = NULL;
	struct lru_error err;
	int64_t id;
	int rc = -1;

	if (host && !*host)
		return bad(q, 400, "parameter 'host' is empty"), -1;
	if (host && host_id(q, host, &id))
		return -1;
	map_init(&l.paths);
	map_init(&l.memcgs);
	if (latest_scan(q, &l, host, max_bytes))
		goto out;
	ptrs = calloc(l.n ? l.n : 1, sizeof(*ptrs));
	if (!ptrs) {
		bad(q, 500, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < l.n; i++)
		ptrs[i] = &l.snaps[i];
	if (lru_pb_encode_batch(ptrs, l.n, out, len, &err)) {
		bad(q, 500, "cannot encode the snapshots: %s", err.msg);
		goto out;
	}
	rc = 0;
out:
	free(ptrs);
	for (size_t i = 0; i < l.n; i++)
		lru_snapshot_release(&l.snaps[i]);
	free(l.snaps);
	map_release(&l.paths, tl_path_free);
	map_release(&l.memcgs, NULL);
	return rc;
}
