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

#include "ch.h"
#include "lru_advise.h"
#include "lru_esc.h"
#include "lru_fleet.h"
#include "lru_gz.h"
#include "lru_pb.h"
#include "lru_sat.h"
#include "lru_units.h"
#include "map.h"

#define NR_T LRU_FLEET_NR_THRESHOLDS
#define DEFAULT_LIMIT 100

/* statement slots of a reader (db_stmt) */
enum {
	S_HOSTS, S_COLD_HOSTS, S_COLD_NODES, S_LV_BY_PATH, S_LV_ALL, S_CAPACITY, S_PATHS_RANGE,
	S_PATHS_ALL, S_WSS_ROWS, S_HOST_ID, S_TIMELINE, S_PATH_BY_ID, S_LATEST, S_LATEST_HOST,
	S_EXPORT, S_EXPORT_ROLLUPS,
	S_RANK_HOSTS = 16, S_RANK_NODES = S_RANK_HOSTS + NR_T, S_COUNT_HOSTS = S_RANK_NODES + NR_T,
	S_COUNT_NODES = S_COUNT_HOSTS + NR_T, S_EXPORT_FIRST = S_COUNT_NODES + NR_T, S_RAW_SCAN,
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

/*
 * A row of either backend: a sqlite statement's, or a ClickHouse answer's
 * (TabSeparated fields). The queries that answer from
 * ClickHouse read their rows through these, so both give the same JSON.
 */
struct row {
	sqlite3_stmt *st;
	const struct ch_rows *cr;
};

static const char *row_str(const struct row *r, int i)
{
	if (r->st)
		return col_str(r->st, i);
	return (size_t)i < r->cr->nf ? r->cr->f[i] : "";
}

/* (the ClickHouse schema has no Nullable column) */
static bool row_null(const struct row *r, int i)
{
	return r->st && sqlite3_column_type(r->st, i) == SQLITE_NULL;
}

static int64_t row_i64(const struct row *r, int i)
{
	return r->st ? sqlite3_column_int64(r->st, i) : strtoll(row_str(r, i), NULL, 10);
}

static uint64_t row_u64(const struct row *r, int i)
{
	const char *s;

	if (r->st)
		return col_u64(r->st, i);
	s = row_str(r, i);
	return *s == '-' ? 0 : strtoull(s, NULL, 10);
}

/*
 * The rows of one query of either backend: a sqlite statement stepped, or
 * a ClickHouse answer read (iter_ch). iter_next: 1 a row in it->r, 0 done,
 * -1 a database error (for ClickHouse, q's error is set already).
 */
struct iter {
	struct ch_rows cr;
	struct row r;
	struct lru_buf answer;	/* ClickHouse's: iter_release() it */
};

static struct iter *iter_sqlite(struct iter *it, sqlite3_stmt *st)
{
	it->r = (struct row){ st, NULL };
	lru_buf_init(&it->answer);
	return st ? it : NULL;
}

static struct iter *iter_ch(struct query *q, struct iter *it, const char *sql)
{
	struct lru_error err;

	it->r = (struct row){ NULL, &it->cr };
	lru_buf_init(&it->answer);
	if (ch_select(q->ch, sql, &it->answer, &err)) {
		bad(q, err.code == LRU_EIO ? 503 : 500, "%s", err.msg);
		return NULL;
	}
	ch_rows_init(&it->cr, &it->answer);
	return it;
}

static void iter_release(struct iter *it)
{
	lru_buf_release(&it->answer);
}

static int iter_next(struct iter *it)
{
	int rc;

	if (!it->r.st)
		return ch_rows_next(&it->cr);
	rc = sqlite3_step(it->r.st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Visit the rows of a query on either backend: ClickHouse's sql, or sqlite's
 * st (prepared and bound). visit answers 0 (go on), 1 (stop there) or -1 (a
 * failure: reported with bad(), or else a sqlite error, or out of memory on
 * ClickHouse). 0, or -1 with q's error set.
 */
static int scan_rows(struct query *q, const char *sql, sqlite3_stmt *st,
		     int (*visit)(struct query *q, void *arg, const struct row *r), void *arg)
{
	struct iter it;
	int rc;

	if (q->ch ? !iter_ch(q, &it, sql) : !iter_sqlite(&it, st))
		return q->ch ? -1 : (db_error(q), -1);
	while ((rc = iter_next(&it)) == 1 && !(rc = visit(q, arg, &it.r)))
		;
	if (st)
		sqlite3_reset(st);
	iter_release(&it);
	if (rc < 0 && !q->status)
		q->ch ? bad(q, 500, "out of memory") : db_error(q);
	return rc < 0 ? -1 : 0;
}

/* The error of a failed query: ClickHouse's is set already. */
static json_t *query_error(struct query *q)
{
	return q->ch ? NULL : db_error(q);
}

/* cold_1m .. cold_24h of a ClickHouse table (an array there) */
#define CH_COLD(t) t "cold[1], " t "cold[2], " t "cold[3], " t "cold[4], " t "cold[5], " \
	t "cold[6], " t "cold[7], " t "cold[8]"

static json_t *host_json(const struct row *r)
{
	json_t *o = json_object();

	set_str(o, "host", row_str(r, 0));
	set_int(o, "first_seen_ms", row_i64(r, 1));
	set_int(o, "last_ingest_ms", row_i64(r, 2));
	if (row_null(r, 3))
		json_object_set_new(o, "last_seen_ms", json_null());
	else
		set_int(o, "last_seen_ms", row_i64(r, 3));
	set_str(o, "boot_id", row_str(r, 4));
	set_u64(o, "seq", row_u64(r, 5));
	set_str(o, "kernel", row_str(r, 6));
	set_u64(o, "page_size", row_u64(r, 7));
	set_u64(o, "nodes", row_u64(r, 8));
	set_u64(o, "memcgs", row_u64(r, 9));
	set_u64(o, "lruvecs", row_u64(r, 10));
	set_u64(o, "mem_total_bytes", row_u64(r, 11));
	set_u64(o, "mem_free_bytes", row_u64(r, 12));
	set_u64(o, "in_generations_bytes", row_u64(r, 13));
	put_warnings(o, (uint32_t)row_i64(r, 14), (uint32_t)row_i64(r, 15));
	return o;
}

#define HOSTS_COLUMNS "first_seen_ms, ingest_ms, taken_ms, boot_id, seq, kernel, page_size, " \
	"nr_nodes, nr_memcgs, nr_lruvecs, mem_total, mem_free, total, host_warnings, warnings"

static json_t *query_hosts_ch(struct query *q, json_t *doc, json_t *rows)
{
	char sql[1024], latest[160], first[160];
	struct iter it;

	snprintf(sql, sizeof(sql), "SELECT host, " HOSTS_COLUMNS " FROM (SELECT * FROM %s FINAL) "
		 "ANY LEFT JOIN (SELECT host, min(first_seen_ms) AS first_seen_ms FROM %s "
		 "GROUP BY host) USING host ORDER BY host",
		 ch_table(q->ch, "hosts_latest", latest, sizeof(latest)),
		 ch_table(q->ch, "hosts_first", first, sizeof(first)));
	if (!iter_ch(q, &it, sql)) {
		json_decref(doc);
		return NULL;
	}
	while (iter_next(&it) == 1)
		json_array_append_new(rows, host_json(&it.r));
	iter_release(&it);
	return doc;
}

json_t *query_hosts(struct query *q)
{
	json_t *doc = json_object(), *rows = json_array();
	sqlite3_stmt *st;
	int rc;

	set_int(doc, "now_ms", q->now_ms);
	json_object_set_new(doc, "hosts", rows);
	if (q->ch)
		return query_hosts_ch(q, doc, rows);
	st = db_stmt(q->r, S_HOSTS, "SELECT name, " HOSTS_COLUMNS " FROM hosts ORDER BY name");
	if (!st) {
		json_decref(doc);
		return db_error(q);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(rows, host_json(&(struct row){ st, NULL }));
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
	bool summed;		/* v holds the first rows only; total .. lw and all are the store's */
	uint64_t all;		/* (summed) how many rows there are */
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
static int cold_scan(struct iter *it, bool by_node, unsigned k, struct cold_rows *rs)
{
	const struct row *r = &it->r;
	int rc, c = by_node ? 3 : 2;

	while ((rc = iter_next(it)) == 1) {
		struct cold_row *o = cold_push(rs, row_str(r, 0), NULL,
					       by_node ? (int)row_i64(r, 1) : -1, row_i64(r, c - 1));

		if (!o)
			return -1;
		o->total = row_u64(r, c);
		o->cold = row_u64(r, c + 1 + (int)k);
		o->lw = (uint32_t)row_i64(r, c + 1 + NR_T);
		o->hw = by_node ? 0 : (uint32_t)row_i64(r, c + 2 + NR_T);
	}
	return rc;
}

/*
 * memcg_latest rows (name, path, taken, total, cold_1m.., warnings): one row
 * per host and path; with glob, of the paths it matches only.
 */
static int cold_scan_memcgs(struct iter *it, unsigned k, const char *glob, struct cold_rows *rs)
{
	const struct row *r = &it->r;
	struct cold_row *last = NULL;
	int rc;

	while ((rc = iter_next(it)) == 1) {
		const char *host = row_str(r, 0), *path = row_str(r, 1);

		if (glob && fnmatch(glob, path, 0))
			continue;
		if (!last || strcmp(last->host, host) || strcmp(last->memcg, path)) {
			last = cold_push(rs, host, path, -1, row_i64(r, 2));
			if (!last)
				return -1;
		}
		last->total = lru_sat_add_u64(last->total, row_u64(r, 3));
		last->cold = lru_sat_add_u64(last->cold, row_u64(r, 4 + (int)k));
		last->lw |= (uint32_t)row_i64(r, 4 + NR_T);
	}
	return rc;
}

/*
 * A ClickHouse condition on path: the paths starting with glob's literal
 * prefix, as a range a key sorted by path reads alone (startsWith alone
 * reads every row in 18.16). The range ends at the prefix with its last byte
 * below 0xff incremented; a prefix of 0xff bytes only has no end.
 */
static int ch_path_prefix(struct lru_buf *sql, const char *glob)
{
	size_t n = glob ? lru_fleet_glob_prefix(glob) : 0, e = n;
	char *end;
	int rc;

	if (!n)
		return lru_buf_printf(sql, NULL, "1") ? -1 : 0;
	while (e && (unsigned char)glob[e - 1] == 0xff)
		e--;
	if (!(end = malloc(n + 1)))
		return -1;
	memcpy(end, glob, e);
	if (e)
		end[e - 1] = (char)((unsigned char)end[e - 1] + 1);
	rc = lru_buf_printf(sql, NULL, "path >= ") || ch_quote(sql, glob, n, NULL) ||
	     (e && (lru_buf_printf(sql, NULL, " AND path < ") || ch_quote(sql, end, e, NULL))) ||
	     lru_buf_printf(sql, NULL, " AND startsWith(path, ") || ch_quote(sql, glob, n, NULL) ||
	     lru_buf_printf(sql, NULL, ")") ? -1 : 0;
	free(end);
	return rc;
}

/* a saturated sum of a UInt64 column, as lru_sat_add_u64 adds */
#define CH_SAT_SUM(c) "toUInt64(least(sum(toDecimal128(" c ", 0)), 18446744073709551615))"

/* the cold bytes at threshold k: hosts_latest's cold[k + 1], node_state's node_cold_<k + 1> */
static const char *ch_cold_col(bool node, unsigned k, char buf[24])
{
	snprintf(buf, 24, node ? "node_cold_%u" : "cold[%u]", k + 1);
	return buf;
}

/*
 * The totals of cold by host or node (sat_sum of total and cold, bitwise OR
 * of the warnings) and how many rows there are, summed by the store: cold
 * then reads only the first rows (rs->summed).
 */
static int cold_ch_totals(struct query *q, const char *from, const char *c, const char *cold,
			  struct cold_rows *rs)
{
	char sql[1024];
	struct iter it;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT count(), " CH_SAT_SUM("%stotal") ", "
		 CH_SAT_SUM("%s") ", groupBitOr(%swarnings), %s FROM %s", c, cold, c,
		 *c ? "0" : "groupBitOr(host_warnings)", from);
	if (!iter_ch(q, &it, sql))
		return -1;
	if ((rc = iter_next(&it)) == 1) {
		rs->all = row_u64(&it.r, 0);
		rs->total = row_u64(&it.r, 1);
		rs->cold = row_u64(&it.r, 2);
		rs->lw = (uint32_t)row_i64(&it.r, 3);
		rs->hw = (uint32_t)row_i64(&it.r, 4);
		rs->summed = true;
		rc = 0;
	} else if (rc == 0) {	/* an aggregate without GROUP BY always has its row */
		bad(q, 502, "ClickHouse answered no totals");
		rc = -1;
	}
	iter_release(&it);
	return rc;
}

/* cold --by node reads its first rows in two steps up to this limit (cold_ch_nodes) */
#define COLD_KEYED_MAX 10000

/*
 * cold --by node's first limit rows, in two steps: the top (host, node) pairs
 * by node_cold_K, which FINAL merges with host, taken_ms and node only; then
 * the statement written to sql reads those pairs' rows, PREWHERE host IN: FINAL
 * merges their hosts' rows only, not the 10 arrays of every host (at 100,000
 * hosts, 34 ms of a shard). A host that sent a snapshot in between is read as
 * it is now (the store sorts the rows again). 1: there is no node at all.
 */
static int cold_ch_nodes(struct query *q, const char *t, const char *cold, uint64_t limit,
			 struct lru_buf *sql)
{
	struct lru_buf hosts, pairs;
	struct iter it;
	char top[512];
	int rc;

	/* taken_ms too: 18.16's FINAL wants the version column read ("Cannot find column") */
	snprintf(top, sizeof(top), "SELECT host, node, taken_ms FROM %s FINAL ARRAY JOIN node, %s "
		 "ORDER BY %s DESC, host, node LIMIT %" PRIu64, t, cold, cold, limit);
	if (!iter_ch(q, &it, top))
		return -1;
	lru_buf_init(&hosts);
	lru_buf_init(&pairs);
	while ((rc = iter_next(&it)) == 1) {
		const char *h = row_str(&it.r, 0);
		size_t n = strlen(h);

		if ((hosts.len && lru_buf_append(&hosts, ", ", 2, NULL)) ||
		    ch_quote(&hosts, h, n, NULL) ||
		    lru_buf_printf(&pairs, NULL, "%s(", pairs.len ? ", " : "") ||
		    ch_quote(&pairs, h, n, NULL) ||
		    lru_buf_printf(&pairs, NULL, ", %" PRId64 ")", row_i64(&it.r, 1))) {
			rc = -2;
			break;
		}
	}
	iter_release(&it);
	if (rc == 0 && !hosts.len)
		rc = 1;
	else if (rc == 0)
		/* node as n: 18.16 types a tuple IN's node as the table's Array(Int32) */
		rc = lru_buf_printf(sql, NULL, "SELECT host, n, taken_ms, node_total, "
				    CH_NODE_COLD_COLS ", node_warnings FROM %s FINAL ARRAY JOIN node AS n, "
				    "node_total, " CH_NODE_COLD_COLS ", node_warnings PREWHERE host IN "
				    "(%.*s) WHERE (host, n) IN (%.*s)", t, (int)hosts.len,
				    (const char *)hosts.data, (int)pairs.len,
				    (const char *)pairs.data) ? -2 : 0;
	lru_buf_release(&hosts);
	lru_buf_release(&pairs);
	if (rc == -2)
		bad(q, 500, "out of memory");
	return rc < 0 ? -1 : rc;
}

/*
 * The latest rows of hosts (mode 0), nodes (1) or memcgs (2) from ClickHouse.
 * By host or node, the store sorts them and sums them up (cold_ch_totals), and
 * only the first limit rows (0: all) come back, in the order of cmp_cold.
 */
static int cold_ch(struct query *q, int mode, unsigned k, uint64_t limit, const char *glob,
		   struct cold_rows *rs)
{
	char t[160], h[160], from[256], lim[48] = "", cold[24];
	const char *c = mode == 1 ? "node_" : "";
	struct lru_buf sql;
	struct iter it;
	int rc;

	lru_buf_init(&sql);
	ch_table(q->ch, "hosts_latest", h, sizeof(h));
	ch_cold_col(mode == 1, k, cold);
	if (limit)
		snprintf(lim, sizeof(lim), " LIMIT %" PRIu64, limit);
	if (mode == 0)
		snprintf(from, sizeof(from), "%s FINAL", h);
	else if (mode == 1)	/* the totals join the arrays they read only (see ch.h) */
		snprintf(from, sizeof(from), "%s FINAL ARRAY JOIN node_total, %s, node_warnings",
			 ch_table(q->ch, "node_state", t, sizeof(t)), cold);
	if (mode != 2 && cold_ch_totals(q, from, c, cold, rs))
		return -1;
	if (mode == 0)
		rc = lru_buf_printf(&sql, NULL, "SELECT host, taken_ms, total, " CH_COLD("") ", warnings, "
				    "host_warnings FROM %s ORDER BY %s DESC, host%s", from, cold,
				    lim) ? -1 : 0;
	else if (mode == 1 && limit && limit <= COLD_KEYED_MAX) {
		if ((rc = cold_ch_nodes(q, t, cold, limit, &sql)) != 0) {
			lru_buf_release(&sql);
			return rc < 0 ? -1 : 0;
		}
	} else if (mode == 1)
		rc = lru_buf_printf(&sql, NULL, "SELECT host, node, taken_ms, node_total, "
				    CH_NODE_COLD_COLS ", node_warnings FROM %s FINAL ARRAY JOIN node, "
				    "node_total, " CH_NODE_COLD_COLS ", node_warnings ORDER BY %s DESC, "
				    "host, node%s", t, cold, lim) ? -1 : 0;
	else if (!glob || !lru_fleet_glob_prefix(glob))	/* every path: every host's latest */
		rc = lru_buf_printf(&sql, NULL, "SELECT host, path, taken_ms, total, " CH_COLD("")
				    ", warnings FROM %s FINAL WHERE (host, taken_ms) IN (SELECT host, "
				    "taken_ms FROM %s FINAL)",
				    ch_table(q->ch, "memcgs_by_path", t, sizeof(t)), h) ? -1 : 0;
	else	/*
		 * the glob's literal prefix: a range of memcgs_by_path's key (FINAL
		 * holds), the latest snapshots of the hosts in that range only (a
		 * job's: the set each shard builds of every host's cost a third)
		 */
		rc = lru_buf_printf(&sql, NULL, "SELECT host, path, taken_ms, total, " CH_COLD("")
				    ", warnings FROM %s FINAL WHERE (host, taken_ms) IN (SELECT host, "
				    "taken_ms FROM %s FINAL WHERE host IN (SELECT host FROM %s WHERE ",
				    ch_table(q->ch, "memcgs_by_path", t, sizeof(t)), h, t) ||
		     ch_path_prefix(&sql, glob) || lru_buf_printf(&sql, NULL, ")) AND ") ||
		     ch_path_prefix(&sql, glob) ? -1 : 0;
	if (rc || lru_buf_append(&sql, "", 1, NULL)) {
		lru_buf_release(&sql);
		return bad(q, 500, "out of memory"), -1;
	}
	if (!iter_ch(q, &it, (const char *)sql.data)) {
		lru_buf_release(&sql);
		return -1;
	}
	lru_buf_release(&sql);
	rc = mode == 2 ? cold_scan_memcgs(&it, k, glob, rs) : cold_scan(&it, mode == 1, k, rs);
	iter_release(&it);
	return rc;
}

json_t *query_cold(struct query *q)
{
	const char *by = q->arg(q->ctx, "by"), *glob = q->arg(q->ctx, "memcg_glob");
	struct cold_rows rs = { 0 };
	struct path_set ps = { 0 };
	json_t *doc = NULL, *rows, *tot;
	uint64_t thr, limit;
	sqlite3_stmt *st;
	struct iter it;
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

	if (q->ch) {
		rc = cold_ch(q, mode, k, limit, glob, &rs);
	} else if (mode == 0) {
		st = db_stmt(q->r, S_COLD_HOSTS, "SELECT name, taken_ms, total, " COLD_SELECT
			     ", warnings, host_warnings FROM hosts WHERE snap_id IS NOT NULL");
		rc = iter_sqlite(&it, st) ? cold_scan(&it, false, k, &rs) : -1;
	} else if (mode == 1) {
		st = db_stmt(q->r, S_COLD_NODES, "SELECT h.name, n.node, h.taken_ms, n.total, "
			     "n.cold_1m, n.cold_2m, n.cold_5m, n.cold_10m, n.cold_30m, n.cold_1h, "
			     "n.cold_6h, n.cold_24h, n.warnings FROM host_nodes n "
			     "JOIN hosts h ON h.id = n.host_id");
		rc = iter_sqlite(&it, st) ? cold_scan(&it, true, k, &rs) : -1;
	} else if (!glob) {
		st = db_stmt(q->r, S_LV_ALL, "SELECT h.name, p.path, h.taken_ms, l.total, "
			     "l.cold_1m, l.cold_2m, l.cold_5m, l.cold_10m, l.cold_30m, l.cold_1h, "
			     "l.cold_6h, l.cold_24h, l.warnings FROM memcg_latest l "
			     "JOIN hosts h ON h.id = l.host_id JOIN paths p ON p.id = l.path_id "
			     "WHERE l.snap_id = h.snap_id ORDER BY l.host_id, l.path_id");
		rc = iter_sqlite(&it, st) ? cold_scan_memcgs(&it, k, NULL, &rs) : -1;
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
			rc = cold_scan_memcgs(iter_sqlite(&it, st), k, NULL, &rs);
		}
	}
	if (rc) {
		query_error(q);
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

		if (!rs.summed) {
			rs.total = lru_sat_add_u64(rs.total, r->total);
			rs.cold = lru_sat_add_u64(rs.cold, r->cold);
			rs.hw |= r->hw;
			rs.lw |= r->lw;
		}
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
	if (!rs.summed)
		rs.all = rs.n;
	set_u64(doc, "rows_total", rs.all);
	json_object_set_new(doc, "truncated", json_boolean(limit && rs.all > limit));
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

/*
 * Rank's rows (name, node or -1, mem_total, mem_free, cold, taken, warnings,
 * host warnings), best offer first, and how many hosts or nodes fit.
 */
static int rank_sqlite(struct query *q, bool per_node, unsigned k, uint64_t need, int64_t fresh,
		       uint64_t limit, int64_t *count, struct iter *it)
{
	char sql[512], col[32];
	sqlite3_stmt *st;

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
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)need);
	sqlite3_bind_int64(st, 2, fresh);
	if (sqlite3_step(st) != SQLITE_ROW)
		return -1;
	*count = sqlite3_column_int64(st, 0);

	/* the best: the offer index walked from the top (equal offers by name) */
	if (per_node)
		snprintf(sql, sizeof(sql), "SELECT h.name, n.node, n.mem_total, n.mem_free, n.%s, "
			 "h.taken_ms, n.warnings, 0 FROM host_nodes n JOIN hosts h ON h.id = n.host_id "
			 "WHERE n.mem_free + n.%s >= ?1 AND h.taken_ms >= ?2 "
			 "ORDER BY n.mem_free + n.%s DESC, h.name, n.node LIMIT ?3", col, col, col);
	else
		snprintf(sql, sizeof(sql), "SELECT name, -1, mem_total, mem_free, %s, taken_ms, "
			 "warnings, host_warnings FROM hosts WHERE mem_free + %s >= ?1 AND taken_ms >= ?2 "
			 "ORDER BY mem_free + %s DESC, name LIMIT ?3", col, col, col);
	st = db_stmt(q->r, (per_node ? S_RANK_NODES : S_RANK_HOSTS) + k, sql);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)need);
	sqlite3_bind_int64(st, 2, fresh);
	sqlite3_bind_int64(st, 3, limit ? (sqlite3_int64)limit : -1);
	iter_sqlite(it, st);
	return 0;
}

/*
 * Per node: node_state's arrays joined, a row per node of each host's latest
 * snapshot (their columns are node_*), only those each statement reads.
 */
static int rank_ch(struct query *q, bool per_node, unsigned k, uint64_t need, int64_t fresh,
		   uint64_t limit, int64_t *count, struct iter *it)
{
	char sql[1024], tbl[160], where[512], lim[48] = "", cold[24];
	const char *c = per_node ? "node_" : "";
	struct iter cnt;

	ch_table(q->ch, per_node ? "node_state" : "hosts_latest", tbl, sizeof(tbl));
	ch_cold_col(per_node, k, cold);
	/* offers past 2^64 saturate, as lru_sat_add_u64 does */
	snprintf(where, sizeof(where), "WHERE least(toDecimal128(%smem_free, 0) + %s, "
		 "18446744073709551615) >= %" PRIu64 " AND taken_ms >= %" PRId64, c, cold,
		 need, fresh > 0 ? fresh : 0);
	if (per_node)
		snprintf(sql, sizeof(sql), "SELECT count() FROM %s FINAL ARRAY JOIN node_mem_free, %s "
			 "%s", tbl, cold, where);
	else
		snprintf(sql, sizeof(sql), "SELECT count() FROM %s FINAL %s", tbl, where);
	if (!iter_ch(q, &cnt, sql))
		return -1;
	*count = iter_next(&cnt) == 1 ? row_i64(&cnt.r, 0) : 0;
	iter_release(&cnt);
	if (limit)
		snprintf(lim, sizeof(lim), " LIMIT %" PRIu64, limit);
	if (per_node)
		snprintf(sql, sizeof(sql), "SELECT host, node, node_mem_total, node_mem_free, %s, "
			 "taken_ms, node_warnings, 0 FROM %s FINAL ARRAY JOIN node, node_mem_total, "
			 "node_mem_free, %s, node_warnings %s ORDER BY node_mem_free + %s DESC, host, "
			 "node%s", cold, tbl, cold, where, cold, lim);
	else
		snprintf(sql, sizeof(sql), "SELECT host, -1, mem_total, mem_free, %s, taken_ms, "
			 "warnings, host_warnings FROM %s FINAL %s ORDER BY mem_free + %s DESC, "
			 "host%s", cold, tbl, where, cold, lim);
	return iter_ch(q, it, sql) ? 0 : -1;
}

json_t *query_rank(struct query *q)
{
	const char *need_s = q->arg(q->ctx, "need");
	uint64_t need, thr, limit;
	int64_t fresh = INT64_MIN, count = 0;
	struct lru_error err;
	json_t *doc, *rows;
	struct iter it;
	bool per_node;
	unsigned k;
	int rc;

	memset(&it, 0, sizeof(it));
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

	doc = json_object();
	set_u64(doc, "need_bytes", need);
	put_threshold(doc, thr, k);
	json_object_set_new(doc, "per_node", json_boolean(per_node));
	set_u64(doc, "stale_after_ms", q->cfg->stale_after_ms);
	set_int(doc, "now_ms", q->now_ms);
	rows = json_array();
	json_object_set_new(doc, "rows", rows);
	if (q->ch ? rank_ch(q, per_node, k, need, fresh, limit, &count, &it)
		  : rank_sqlite(q, per_node, k, need, fresh, limit, &count, &it)) {
		json_decref(doc);
		iter_release(&it);
		return query_error(q);
	}
	set_int(doc, "candidates", count);
	while ((rc = iter_next(&it)) == 1) {
		const struct row *r = &it.r;
		uint64_t free_b = row_u64(r, 3), cold = row_u64(r, 4);
		uint64_t from_free = need < free_b ? need : free_b;
		json_t *o = json_object();

		set_int(o, "rank", (int64_t)json_array_size(rows) + 1);
		set_str(o, "host", row_str(r, 0));
		if (per_node)
			set_int(o, "node", row_i64(r, 1));
		set_u64(o, "offer_bytes", lru_sat_add_u64(free_b, cold));
		set_u64(o, "free_bytes", free_b);
		set_u64(o, "cold_bytes", cold);
		set_u64(o, "from_free_bytes", from_free);
		set_u64(o, "from_cold_bytes", need - from_free);
		set_u64(o, "mem_total_bytes", row_u64(r, 2));
		set_int(o, "taken_at_ms", row_i64(r, 5));
		put_warnings(o, (uint32_t)row_i64(r, 7), (uint32_t)row_i64(r, 6));
		json_array_append_new(rows, o);
	}
	iter_release(&it);
	if (rc) {
		json_decref(doc);
		return query_error(q);
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
	char sql[512], h[160];
	struct iter it;
	int rc;

	memset(c, 0, sizeof(*c));
	if (q->ch) {
		snprintf(sql, sizeof(sql), "SELECT mem_total, mem_free, total, " CH_COLD("")
			 ", host_warnings, warnings FROM %s FINAL",
			 ch_table(q->ch, "hosts_latest", h, sizeof(h)));
		if (!iter_ch(q, &it, sql))
			return -1;
	} else if (!iter_sqlite(&it, db_stmt(q->r, S_CAPACITY, "SELECT mem_total, mem_free, "
					     "total, " COLD_SELECT ", host_warnings, warnings "
					     "FROM hosts WHERE snap_id IS NOT NULL"))) {
		return -1;
	}
	while ((rc = iter_next(&it)) == 1) {
		const struct row *r = &it.r;

		c->hosts++;
		c->mem_total = lru_sat_add_u64(c->mem_total, row_u64(r, 0));
		c->mem_free = lru_sat_add_u64(c->mem_free, row_u64(r, 1));
		c->total = lru_sat_add_u64(c->total, row_u64(r, 2));
		for (unsigned k = 0; k < NR_T; k++)
			c->cold[k] = lru_sat_add_u64(c->cold[k], row_u64(r, 3 + (int)k));
		for (unsigned b = 0; b < 32; b++) {
			c->host_n[b] += !!((uint32_t)row_i64(r, 3 + NR_T) & (1u << b));
			c->lv_n[b] += !!((uint32_t)row_i64(r, 4 + NR_T) & (1u << b));
		}
	}
	iter_release(&it);
	return rc;
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
		return query_error(q);
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
	uint64_t *samples;
	struct hours *hours;	/* per path: the hours with samples */
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
	if (hours_add(&a->hours[i], c->hour))
		a->oom = 1;
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

/* The hourly rollups of a's paths from sqlite (after db_begin_read_with_rollups). */
static int wss_sqlite(struct query *q, struct wss_acc *a)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < a->ps->n; i++) {
		sqlite3_stmt *st = db_stmt(q->r, S_WSS_ROWS, "SELECT samples, hist, warnings, "
					   "hour FROM wss_hourly WHERE path_id = ?1 AND hour >= ?2");

		if (!st) {
			rc = -1;
			break;
		}
		sqlite3_bind_int64(st, 1, (sqlite3_int64)a->ps->ids[i]);
		sqlite3_bind_int64(st, 2, a->from_hour);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			a->samples[i] += col_u64(st, 0);
			if (hours_add(&a->hours[i], sqlite3_column_int64(st, 3)))
				a->oom = 1;
			if (lru_hist_merge_blob(&a->h[i], a->k, sqlite3_column_blob(st, 1),
						(size_t)sqlite3_column_bytes(st, 1), NULL) ||
			    lru_fleet_warn_counts_merge_blob(&a->warn[i], sqlite3_column_blob(st, 2),
							     (size_t)sqlite3_column_bytes(st, 2), NULL)) {
				rc = SQLITE_CORRUPT;
				break;
			}
		}
		rc = rc == SQLITE_DONE ? 0 : -1;
	}
	db_end_read(q->r);
	if (rc || a->oom)
		db_error(q);
	return rc || a->oom ? -1 : 0;
}

/* ClickHouse: the paths stored (raw or rolled up) matching glob (ids: their places in ps). */
static int wss_paths_ch(struct query *q, const char *glob, struct path_set *ps)
{
	struct lru_buf sql;
	char tbl[160];
	struct iter it;
	int rc;

	memset(ps, 0, sizeof(*ps));
	map_init(&ps->index);
	/* every path ever stored, raw or rolled up, as sqlite's paths table */
	lru_buf_init(&sql);
	rc = lru_buf_printf(&sql, NULL, "SELECT DISTINCT path FROM %s WHERE ",
			    ch_table(q->ch, "paths", tbl, sizeof(tbl))) || ch_path_prefix(&sql, glob) ||
	     lru_buf_printf(&sql, NULL, " ORDER BY path") || lru_buf_append(&sql, "", 1, NULL) ? -1 : 0;
	if (rc) {
		lru_buf_release(&sql);
		return bad(q, 500, "out of memory"), -1;
	}
	rc = iter_ch(q, &it, (const char *)sql.data) ? 0 : -1;
	lru_buf_release(&sql);
	if (rc)
		return -1;
	while ((rc = iter_next(&it)) == 1)
		if (!fnmatch(glob, row_str(&it.r, 0), 0) &&
		    path_set_add(ps, ps->n, row_str(&it.r, 0))) {
			rc = -1;
			bad(q, 500, "out of memory");
			break;
		}
	iter_release(&it);
	return rc;
}

/*
 * "(col >= A AND col < B OR ...)": the hours of h as ranges of col (in
 * units of scale per hour): its runs of consecutive hours, or with gaps, the
 * hours from 'from' on that h does not hold (the last range open-ended).
 * Ranges, not a list: ClickHouse skips the parts (and daily partitions)
 * outside them.
 */
static int hour_ranges(struct lru_buf *b, const char *col, int64_t scale, const struct hours *h,
		       bool gaps, int64_t from)
{
	size_t nr = 0;
	int rc = lru_buf_append(b, "(", 1, NULL) ? -1 : 0;

#define RANGE(lo, hi) (lru_buf_printf(b, NULL, "%s%s >= %" PRId64, nr++ ? " OR " : "", col, \
				      (lo) * scale) || \
		       ((hi) >= 0 && lru_buf_printf(b, NULL, " AND %s < %" PRId64, col, (hi) * scale)))
	for (size_t i = 0; !rc && i < h->n; i++) {
		size_t j = i;

		while (j + 1 < h->n && h->v[j + 1] == h->v[j] + 1)
			j++;
		if (!gaps)
			rc = RANGE(h->v[i], h->v[j] + 1) ? -1 : 0;
		else if (h->v[i] > from)
			rc = RANGE(from, h->v[i]) ? -1 : 0;
		if (gaps && h->v[j] + 1 > from)
			from = h->v[j] + 1;
		i = j;
	}
	if (!rc && gaps)
		rc = RANGE(from, -1) ? -1 : 0;
#undef RANGE
	return rc || lru_buf_printf(b, NULL, "%s)", nr ? "" : "0") ? -1 : 0;
}

/*
 * "path IN ('a', ...)" for a's paths (pin), and the (hour, path) pairs of
 * them in its window with late raw samples not rolled up (dirty: a literal
 * set, read once, ch_dirty_pairs), into the two buffers.
 */
static enum lru_err wss_pairs_ch(struct query *q, struct wss_acc *a, struct lru_buf *pin,
				 struct lru_buf *dirty, struct lru_error *err)
{
	struct lru_buf where;
	enum lru_err rc = lru_buf_printf(pin, err, "path IN (");

	for (size_t i = 0; !rc && i < a->ps->n; i++)
		if ((i && lru_buf_append(pin, ",", 1, err)) ||
		    ch_quote(pin, a->ps->paths[i], strlen(a->ps->paths[i]), err))
			rc = LRU_ENOMEM;
	lru_buf_init(&where);
	if (!rc && (lru_buf_append(pin, ")", 1, err) ||
		    lru_buf_printf(&where, err, "hour >= %" PRId64 " AND ",
				   a->from_hour > 0 ? a->from_hour : 0) ||
		    lru_buf_append(&where, pin->data, pin->len, err) || lru_buf_append(&where, "", 1, err)))
		rc = LRU_ENOMEM;
	if (!rc)
		rc = ch_dirty_pairs(q->ch, (const char *)where.data, dirty, err);
	lru_buf_release(&where);
	return rc;
}

/*
 * " WHERE path IN ('a', ...) AND (ranges)": the rows of a's paths (pin) in
 * its window in wss_samples (raw: the hours not rolled up, and the dirty
 * pairs of the others) or in wss_hourly(_n) (rollups: every row of the
 * rolled-up hours but the ROLL_PART rows of dirty pairs, and of the hours
 * only marked, the rows written directly: not those of a roll-up under way,
 * whose raw samples still count), into b.
 */
static int wss_where_ch(struct wss_acc *a, bool raw, const struct hours *rolled,
			const struct hours *marked_only, const struct lru_buf *pin,
			const struct lru_buf *dirty, struct lru_buf *b)
{
	int64_t from_hour = a->from_hour > 0 ? a->from_hour : 0;

	if (lru_buf_append(b, " WHERE ", 7, NULL) || lru_buf_append(b, pin->data, pin->len, NULL) ||
	    lru_buf_append(b, " AND ", 5, NULL))
		return -1;
	if (raw)	/* the hours of wss_samples' key, and taken_ms for the daily partitions */
		return lru_buf_append(b, "((", 2, NULL) ||
		       hour_ranges(b, "hour", 1, rolled, true, from_hour) ||
		       lru_buf_append(b, " AND ", 5, NULL) ||
		       hour_ranges(b, "taken_ms", HOUR_MS, rolled, true, from_hour) ||
		       lru_buf_printf(b, NULL, ") OR (hour >= %" PRId64 " AND taken_ms >= %" PRId64
				      " AND (hour, path) IN ", from_hour, from_hour * HOUR_MS) ||
		       lru_buf_append(b, dirty->data, dirty->len, NULL) ||
		       lru_buf_append(b, "))", 2, NULL) ? -1 : 0;
	return lru_buf_append(b, "(", 1, NULL) || hour_ranges(b, "hour", 1, rolled, false, 0) ||
	       lru_buf_append(b, " OR ", 4, NULL) || hour_ranges(b, "hour", 1, marked_only, false, 0) ||
	       lru_buf_printf(b, NULL, " AND part != %d) AND NOT (part = %d AND (hour, path) IN ",
			      CH_ROLL_PART, CH_ROLL_PART) ||
	       lru_buf_append(b, dirty->data, dirty->len, NULL) ||
	       lru_buf_append(b, ")", 1, NULL) ? -1 : 0;
}

/*
 * The query of wss_ch into sql, one scan: rows of (kind, path, largest hot
 * bytes, samples, their hours, samples with each warning bit). Kind 0, per
 * path and lru_hist bucket of the hot bytes at threshold a->k, from
 * wss_samples for the hours not rolled up: all of it. From the rollups of
 * the marked hours (ch_rolled_hours), UNION ALL: kind 1, wss_hourly's buckets
 * (the histogram), and kind 2, per path, wss_hourly_n (the samples, hours
 * and warnings). No sample is counted in both. A raw sample stored twice (a
 * snapshot sent again) is one sample: its copies are alike, so a count of
 * distinct (host, boot_id, seq) and a max count it once, without the cost
 * of FINAL (its merge of every part's rows, 4x slower for one job's week).
 * Rollup rows of one key are alike too (a late snapshot sent again), or a
 * rolled-up hour's rows rolled again with more samples (larger counts, and
 * warning counts each as large): the max of each column per key is the row
 * FINAL would keep, grouped in parallel (one job's day: 41 -> 26 ms).
 */
#define CH_SAMPLE "host, boot_id, seq"
enum { WSS_RAW, WSS_HOURLY, WSS_HOURLY_N };

static int wss_sql_ch(struct query *q, struct wss_acc *a, const struct hours *rolled,
		      const struct hours *marked_only, const struct lru_buf *pin,
		      const struct lru_buf *dirty, struct lru_buf *sql)
{
	char raw[160], hourly[160], hourly_n[160];
	int rc;

	ch_table(q->ch, "wss_samples", raw, sizeof(raw));
	ch_table(q->ch, "wss_hourly", hourly, sizeof(hourly));
	ch_table(q->ch, "wss_hourly_n", hourly_n, sizeof(hourly_n));
	rc = lru_buf_printf(sql, NULL, "SELECT toUInt8(%d), path, max(hot), uniqExact(" CH_SAMPLE
			    "), groupUniqArray(hour)", WSS_RAW) ? -1 : 0;
	for (unsigned b = 0; !rc && b < LRU_FLEET_WARN_BITS; b++)
		rc = lru_buf_printf(sql, NULL, ", uniqExactIf(" CH_SAMPLE ", bitAnd(warnings, %u) != 0)",
				    1u << b) ? -1 : 0;
	rc = rc || lru_buf_printf(sql, NULL, " FROM (SELECT path, " CH_SAMPLE ", warnings, hour, "
				  "toUInt64(total - cold[%u]) AS hot, " CH_HOT_BUCKET " FROM %s",
				  a->k + 1, raw) ||
	     wss_where_ch(a, true, rolled, NULL, pin, dirty, sql) ||
	     lru_buf_printf(sql, NULL, ") GROUP BY path, bucket") ? -1 : 0;
	/* the rollups: a row per key (FINAL's answer: see above), then per bucket or path */
	if (!rc && (rolled->n || marked_only->n)) {
		rc = lru_buf_printf(sql, NULL, " UNION ALL SELECT toUInt8(%d), path, max(mx), sum(nn), "
				    "emptyArrayInt64()", WSS_HOURLY) ? -1 : 0;
		for (unsigned b = 0; !rc && b < LRU_FLEET_WARN_BITS; b++)
			rc = lru_buf_printf(sql, NULL, ", toUInt64(0)") ? -1 : 0;
		rc = rc || lru_buf_printf(sql, NULL, " FROM (SELECT path, bucket, max(max) AS mx, "
					  "max(n) AS nn FROM %s", hourly) ||
		     wss_where_ch(a, false, rolled, marked_only, pin, dirty, sql) ||
		     lru_buf_printf(sql, NULL, " AND k = %u GROUP BY path, hour, bucket, part) GROUP BY "
				    "path, bucket UNION ALL SELECT toUInt8(%d), path, toUInt64(0), sum(nn), "
				    "groupUniqArray(hour)", a->k, WSS_HOURLY_N) ? -1 : 0;
		for (unsigned b = 0; !rc && b < LRU_FLEET_WARN_BITS; b++)
			rc = lru_buf_printf(sql, NULL, ", sum(w[%u])", b + 1) ? -1 : 0;
		rc = rc || lru_buf_printf(sql, NULL, " FROM (SELECT path, hour, max(n) AS nn, max(warn) "
					  "AS w FROM %s", hourly_n) ||
		     wss_where_ch(a, false, rolled, marked_only, pin, dirty, sql) ||
		     lru_buf_printf(sql, NULL, " GROUP BY path, hour, part) GROUP BY path") ? -1 : 0;
	}
	return rc || lru_buf_append(sql, "", 1, NULL) ? -1 : 0;
}

/* the hours of a row of wss_ch (a TSV array) into s */
static int hours_add_array(struct hours *s, const char *array)
{
	const char *p = array + (*array == '[');

	while (*p && *p != ']') {
		char *end;
		int64_t h = strtoll(p, &end, 10);

		if (end == p)
			return 0;	/* not a number: ClickHouse sent none */
		if (hours_add(s, h))
			return -1;
		p = end + (*end == ',');
	}
	return 0;
}

/* ps holds the paths sorted (wss_paths_ch): their place, or ps->n */
static size_t path_place(const struct path_set *ps, const char *path)
{
	size_t lo = 0, hi = ps->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ps->paths[mid], path);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return ps->n;
}

/*
 * ClickHouse: every sample of a's paths in the window (one per snapshot and
 * path, as sqlite's rollups count them), as per-path counts and the buckets
 * of lru_hist with their count and largest value, so the histograms are the
 * very ones sqlite merges.
 */
static int wss_ch(struct query *q, struct wss_acc *a)
{
	struct hours rolled = { 0 }, marked = { 0 };
	size_t only = 0;
	struct lru_buf sql, pin, dirty;
	struct lru_error err;
	struct iter it;
	int rc = -1;

	lru_buf_init(&sql);
	lru_buf_init(&pin);
	lru_buf_init(&dirty);
	if (ch_rolled_hours(q->ch, a->from_hour > 0 ? a->from_hour * HOUR_MS : 0, &rolled, &marked,
			    &err)) {
		bad(q, err.code == LRU_EIO ? 503 : 500, "%s", err.msg);
		goto out;
	}
	/* the hours only marked: of marked, those not in rolled (both sorted) */
	for (size_t i = 0, j = 0; i < marked.n; i++) {
		while (j < rolled.n && rolled.v[j] < marked.v[i])
			j++;
		if (j == rolled.n || rolled.v[j] != marked.v[i])
			marked.v[only++] = marked.v[i];
	}
	marked.n = only;
	if (wss_pairs_ch(q, a, &pin, &dirty, &err)) {
		bad(q, err.code == LRU_EIO ? 503 : 500, "%s", err.msg);
		goto out;
	}
	if (wss_sql_ch(q, a, &rolled, &marked, &pin, &dirty, &sql)) {
		bad(q, 500, "out of memory");
		goto out;
	}
	if (!iter_ch(q, &it, (const char *)sql.data))
		goto out;
	while ((rc = iter_next(&it)) == 1) {
		const struct row *r = &it.r;
		int64_t kind = row_i64(r, 0);
		size_t i = path_place(a->ps, row_str(r, 1));
		int e = 0;

		if (i == a->ps->n)
			continue;
		if (kind != WSS_HOURLY) {
			a->samples[i] += row_u64(r, 3);
			for (unsigned b = 0; b < LRU_FLEET_WARN_BITS; b++)
				a->warn[i].n[b] += row_u64(r, 5 + (int)b);
			e = hours_add_array(&a->hours[i], row_str(r, 4));
		}
		if (!e && kind != WSS_HOURLY_N)
			e = lru_hist_add(&a->h[i], row_u64(r, 2), row_u64(r, 3), NULL) ? -1 : 0;
		if (e) {
			rc = -1;
			bad(q, 500, "out of memory");
			break;
		}
	}
	iter_release(&it);
out:
	lru_buf_release(&sql);
	lru_buf_release(&pin);
	lru_buf_release(&dirty);
	hours_release(&rolled);
	hours_release(&marked);
	return rc ? -1 : 0;
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
	if (q->ch ? wss_paths_ch(q, glob, &ps) : match_paths(q, glob, &ps)) {
		path_set_release(&ps);
		return query_error(q);
	}
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
	if (q->ch) {
		if (wss_ch(q, &a))
			goto out;
	} else if (db_begin_read_with_rollups(q->db, q->r, wss_visit, &a)) {
		db_error(q);
		goto out;
	} else if (wss_sqlite(q, &a)) {
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
		json_array_append_new(jobs, wss_row(ps.paths[i], &a.h[i], a.samples[i],
						    hours_sort(&a.hours[i]), &a.warn[i], p));
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
	for (size_t i = 0; a.hours && i < ps.n; i++)
		hours_release(&a.hours[i]);
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

/*
 * The memcg paths of a ClickHouse raw row (NUL-separated in one field), by
 * the place the packed lruvecs name them by; *paths is malloc'd.
 */
static int row_paths(const struct row *r, int i, const char ***paths, size_t *n)
{
	const char *f = r->cr->f[i], *end = f + r->cr->len[i];
	size_t k = 0;

	*n = r->cr->len[i] ? 1 : 0;
	for (const char *p = f; p < end; p++)
		*n += !*p;
	*paths = calloc(*n ? *n : 1, sizeof(**paths));
	if (!*paths)
		return -1;
	for (const char *p = f; *n && k < *n; p += strlen(p) + 1)
		(*paths)[k++] = p;
	return 0;
}

static const void *row_blob(const struct row *r, int i, size_t *len)
{
	if (r->st) {
		*len = (size_t)sqlite3_column_bytes(r->st, i);
		return sqlite3_column_blob(r->st, i);
	}
	*len = (size_t)i < r->cr->nf ? r->cr->len[i] : 0;
	return row_str(r, i);
}


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

/*
 * The memcg of an unpacked lruvec (or memcg counters): by the dictionary id
 * of a sqlite raw row, or by its place in a ClickHouse raw row's paths (then
 * *path_id becomes an id that names the path for the whole query).
 */
static struct tl_path *path_of(struct query *q, struct map *cache, uint64_t *path_id,
			       const char *const *paths, size_t nr_paths, const char *glob)
{
	const char *path = *path_id < nr_paths ? paths[*path_id] : "?";
	struct tl_path *t;

	if (!q->ch)
		return tl_path(q, cache, *path_id, glob);
	t = map_get_str(cache, path);
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t || !(t->path = strdup(path)) || map_put_str(cache, t->path, t)) {
			if (t)
				free(t->path);
			free(t);
			return NULL;
		}
		t->match = !glob || !fnmatch(glob, t->path, 0);
	}
	*path_id = (uint64_t)(uintptr_t)t;
	return t;
}

/* ClickHouse: does the store know host? 0, or -1 with 404 or the error. */
static int host_known_ch(struct query *q, const char *host)
{
	char tbl[160];
	struct lru_buf sql;
	struct iter it;
	int rc = -1;

	lru_buf_init(&sql);
	if (lru_buf_printf(&sql, NULL, "SELECT count() FROM %s WHERE host = ",
			   ch_table(q->ch, "hosts_first", tbl, sizeof(tbl))) ||
	    ch_quote(&sql, host, strlen(host), NULL) || lru_buf_append(&sql, "", 1, NULL)) {
		bad(q, 500, "out of memory");
	} else if (iter_ch(q, &it, (const char *)sql.data)) {
		rc = iter_next(&it) == 1 && row_u64(&it.r, 0) ? 0
		     : (bad(q, 404, "no host '%s' in the store", host), -1);
		iter_release(&it);
	}
	lru_buf_release(&sql);
	return rc;
}

/* The id of a host by name: 0, or -1 with 404 or a database error. */
static int host_id(struct query *q, const char *host, int64_t *id)
{
	sqlite3_stmt *st;
	int rc;

	if (q->ch)
		return *id = 0, host_known_ch(q, host);
	st = db_stmt(q->r, S_HOST_ID, "SELECT id FROM hosts WHERE name = ?1");

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
static int tl_snapshot(struct query *q, struct timeline *t, const struct row *row)
{
	int64_t taken = row_i64(row, 1), id = row_i64(row, 4);
	int64_t skip = taken == t->after_taken && id == t->after_id ? t->after_skip : 0, k = 0;
	uint64_t page = row_u64(row, 2);
	const char **paths = NULL;
	struct lru_fleet_reader r;
	struct lru_fleet_lruvec lv;
	struct lru_error err;
	size_t nr_paths = 0, len;
	const void *blob = row_blob(row, 3, &len);
	int rc = 0;

	if (t->points >= t->limit) {
		t->truncated = true;
		t->next_taken = taken, t->next_id = id, t->next_skip = 0;
		return 0;
	}
	json_array_append_new(t->snaps, json_pack("{sIsI}", "taken_at_ms", (json_int_t)taken,
						  "seq", (json_int_t)row_u64(row, 0)));
	if (lru_fleet_unpack_begin(&r, blob, len, taken, NULL, 0, &err))
		return 0;
	if (q->ch && row_paths(row, 5, &paths, &nr_paths))
		return -1;
	while (lru_fleet_unpack_next(&r, &lv, &err) > 0) {
		struct tl_path *tp;
		struct tl_lruvec *tv;

		if (k++ < skip)
			continue;
		if (t->points >= t->limit) {
			t->truncated = true;
			t->next_taken = taken, t->next_id = id, t->next_skip = k - 1;
			break;
		}
		tp = path_of(q, &t->paths, &lv.path_id, paths, nr_paths, t->glob);
		if (!tp) {
			rc = -1;
			break;
		}
		if (!tp->match)
			continue;
		tv = tl_lruvec(t, tp, &lv);
		if (!tv) {
			rc = -1;
			break;
		}
		tl_points(t, tv, &lv.lv, taken, page);
	}
	free(paths);
	return rc;
}

/*
 * Every raw snapshot of the host in the window, from the cursor on, into
 * the page. A cursor's id is the snapshot's row id in sqlite, its seq in
 * ClickHouse: either orders the snapshots taken in the same millisecond.
 */
static int tl_visit(struct query *q, void *arg, const struct row *r)
{
	struct timeline *t = arg;

	return tl_snapshot(q, t, r) ? -1 : t->truncated;
}

static int tl_scan(struct query *q, struct timeline *t)
{
	sqlite3_stmt *st = NULL;
	struct lru_buf sql;
	char tbl[160];
	int rc;

	lru_buf_init(&sql);
	if (q->ch) {
		int64_t at = t->after_taken > 0 ? t->after_taken : 0;

		if (lru_buf_printf(&sql, NULL, "SELECT seq, taken_ms, page_size, data, seq, paths "
				   "FROM %s FINAL WHERE host = ",
				   ch_table(q->ch, "snapshots", tbl, sizeof(tbl))) ||
		    ch_quote(&sql, t->host, strlen(t->host), NULL) ||
		    lru_buf_printf(&sql, NULL, " AND taken_ms >= %" PRId64 " AND (taken_ms > %"
				   PRId64 " OR (taken_ms = %" PRId64 " AND seq >= %" PRId64 ")) "
				   "ORDER BY taken_ms, seq", t->since_ms > 0 ? t->since_ms : 0,
				   at, at, t->after_id > 0 ? (int64_t)t->after_id : 0) ||
		    lru_buf_append(&sql, "", 1, NULL)) {
			lru_buf_release(&sql);
			return bad(q, 500, "out of memory"), -1;
		}
	} else {
		st = db_stmt(q->r, S_TIMELINE,
			"SELECT seq, taken_ms, page_size, data, id FROM snapshots "
			"WHERE host_id = ?1 AND taken_ms >= ?2 AND (taken_ms, id) >= (?3, ?4) "
			"ORDER BY taken_ms, id");
		if (!st)
			return db_error(q), -1;
		sqlite3_bind_int64(st, 1, t->host_id);
		sqlite3_bind_int64(st, 2, t->since_ms);
		sqlite3_bind_int64(st, 3, t->after_taken);
		sqlite3_bind_int64(st, 4, t->after_id);
	}
	rc = scan_rows(q, (const char *)sql.data, st, tl_visit, t);
	lru_buf_release(&sql);
	return rc;
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
		doc = NULL;
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

/* ---- advise ------------------------------------------------------------------------------ */

/* One job (memcg path) of an advise scan. */
struct adv_job {
	const char *path;		/* the tl_path's */
	struct lru_advise_acc acc;
	uint64_t hosts, samples;	/* hosts with a snapshot of it; host snapshots */
	struct lru_hist cold[NR_T];	/* per host snapshot: its cold bytes at each T */
	uint64_t row;			/* the scan's row being summed (0: none yet) */
	size_t row_host;		/* that row's host (index into advise.hosts) */
	uint64_t row_cold[NR_T];
	struct lru_advise_acc row_acc;	/* the pairs of the row, until memory.stat is read */
	uint64_t row_stolen, row_refaulted;	/* the row's reclaim, bytes (adv_memcg) */
	uint64_t carry[NR_T], carry_row;	/* stolen bytes row carry_row left (lru_advise_reclaim) */
	struct adv_host_cold { size_t host; uint64_t cold[NR_T]; } *latest;	/* per host */
	size_t nr_latest, alloc_latest;
	int pick;			/* the advised threshold, -1 none */
	uint32_t warnings;		/* LRU_WARN_* of its lruvecs in the window */
	/* host-time measured at each T: the pairs of rows (host snapshots) in
	   which some lruvec of the job was measured, each counted once */
	uint64_t host_ms[NR_T], host_row[NR_T];
};

/* The previous snapshot of one lruvec of the host being scanned. */
struct adv_prev {
	struct lru_lruvec lv;
	int64_t taken;
};

/* The previous counters of one memcg of the host being scanned (pages). */
struct adv_prev_memcg {
	uint64_t pgsteal, refaulted;
	uint64_t row;
};

struct advise {
	const char *glob;
	double slo;
	uint64_t min_pairs;
	int64_t since_ms;
	struct map paths;	/* path id -> struct tl_path */
	struct map jobs;	/* path -> struct adv_job */
	struct map prev;	/* "path id/inode/node" -> struct adv_prev, of one host and boot */
	char **hosts;		/* the hosts scanned, in order */
	size_t nr_hosts, alloc_hosts;
	char boot[64];		/* the boot the prev map holds */
	uint64_t rows;
	uint64_t counted_row;	/* the host and boot's last row with memcg counters (0: none) */
	bool prev_counted;	/* ... and the row before the current one had them */
};

static void adv_job_free(void *p)
{
	struct adv_job *j = p;

	for (unsigned k = 0; k < NR_T; k++)
		lru_hist_release(&j->cold[k]);
	free(j->latest);
	free(j);
}

/*
 * The job's row is complete: its pairs, corrected by its memcg's reclaim,
 * to the job's sums; count it; the last row of a host is its latest.
 */
static int adv_row_end(struct adv_job *j)
{
	struct adv_host_cold *l;

	if (j->carry_row + 1 != j->row)	/* not the host snapshot right before: nothing carried */
		memset(j->carry, 0, sizeof(j->carry));
	lru_advise_reclaim(&j->row_acc, j->row_stolen, j->row_refaulted, j->carry);
	j->carry_row = j->row;
	lru_advise_acc_add(&j->acc, &j->row_acc);
	memset(&j->row_acc, 0, sizeof(j->row_acc));
	j->row_stolen = j->row_refaulted = 0;
	j->samples++;
	for (unsigned k = 0; k < NR_T; k++)
		if (lru_hist_add(&j->cold[k], j->row_cold[k], 1, NULL))
			return -1;
	if (j->nr_latest && j->latest[j->nr_latest - 1].host == j->row_host) {
		l = &j->latest[j->nr_latest - 1];
	} else {
		if (j->nr_latest == j->alloc_latest) {
			size_t n = j->alloc_latest ? 2 * j->alloc_latest : 4;
			void *p = realloc(j->latest, n * sizeof(*j->latest));

			if (!p)
				return -1;
			j->latest = p, j->alloc_latest = n;
		}
		l = &j->latest[j->nr_latest++];
		l->host = j->row_host;
		j->hosts++;
	}
	memcpy(l->cold, j->row_cold, sizeof(l->cold));
	return 0;
}

static struct adv_job *adv_job(struct advise *a, const struct tl_path *tp)
{
	struct adv_job *j = map_get_str(&a->jobs, tp->path);

	if (j)
		return j;
	j = calloc(1, sizeof(*j));
	if (!j || map_put_str(&a->jobs, tp->path, j)) {
		free(j);
		return NULL;
	}
	j->path = tp->path;
	for (unsigned k = 0; k < NR_T; k++)
		lru_hist_init(&j->cold[k]);
	return j;
}

/* One lruvec of the scan's current row: its cold bytes, and the pair with its previous snapshot. */
static int adv_lruvec(struct advise *a, struct adv_job *j, const struct lru_fleet_lruvec *lv,
		      int64_t taken, uint32_t page)
{
	struct lru_fleet_cold c;
	struct adv_prev *p;
	char key[96];

	if (j->row != a->rows) {
		if (j->row && adv_row_end(j))
			return -1;
		j->row = a->rows;
		j->row_host = a->nr_hosts - 1;
		memset(j->row_cold, 0, sizeof(j->row_cold));
	}
	lru_fleet_lruvec_cold(&lv->lv, page, &c);
	j->warnings |= lv->lv.warnings;
	for (unsigned k = 0; k < NR_T; k++)
		j->row_cold[k] = lru_sat_add_u64(j->row_cold[k], c.cold[k]);

	snprintf(key, sizeof(key), "%" PRIu64 "/%" PRIu64 "/%d", lv->path_id, lv->ino, lv->lv.node);
	p = map_get_str(&a->prev, key);
	if (p) {
		uint64_t before[NR_T];

		memcpy(before, j->row_acc.pairs, sizeof(before));
		lru_advise_pair(&j->row_acc, &p->lv, p->taken, &lv->lv, taken, page);
		/* the host's time measured at T: once a row, whatever its lruvecs (nodes) */
		for (unsigned k = 0; k < NR_T; k++)
			if (j->row_acc.pairs[k] != before[k] && j->host_row[k] != a->rows) {
				j->host_row[k] = a->rows;
				j->host_ms[k] += (uint64_t)(taken - p->taken);
			}
	} else {
		p = calloc(1, sizeof(*p));
		if (!p || map_put_str(&a->prev, key, p)) {
			free(p);
			return -1;
		}
	}
	p->lv = lv->lv;
	p->lv.full = NULL;
	p->taken = taken;
	return 0;
}

/* What raw_lruvecs() hands on: each lruvec, then (mfn not NULL) each memcg's counters. */
struct raw_fns {
	int (*fn)(void *arg, const struct tl_path *tp, const struct lru_fleet_lruvec *lv,
		  int64_t taken, uint32_t page);
	/* after the lruvecs, when the blob has memcg counters: each memcg's (nonzero) */
	int (*mfn)(void *arg, const struct tl_path *tp, const struct lru_fleet_memcg *m,
		   uint32_t page);
	void (*counted)(void *arg);	/* the blob has memcg counters (before mfn's calls) */
};

/*
 * Each lruvec of a raw row (host, boot_id, taken_ms, page_size, data[, paths],
 * as raw_scan() reads them) whose memcg matches glob, to fns->fn with the
 * row's time and page size; then the memcgs' counters (fns->mfn). A corrupt
 * blob (refused at ingest) is skipped, as the other queries do. 0, or -1 out
 * of memory or what a function answered.
 */
static int raw_lruvecs(struct query *q, const struct row *row, struct map *cache, const char *glob,
		       const struct raw_fns *fns, void *arg)
{
	int64_t taken = row_i64(row, 2);
	uint32_t page = (uint32_t)row_u64(row, 3);
	const char **paths = NULL;
	struct lru_fleet_reader r;
	struct lru_fleet_lruvec lv;
	struct lru_fleet_memcg m;
	struct lru_error err;
	size_t nr_paths = 0, len;
	const void *blob = row_blob(row, 4, &len);
	int rc = 0, more;

	if (lru_fleet_unpack_begin(&r, blob, len, taken, NULL, 0, &err))
		return 0;
	if (q->ch && row_paths(row, 5, &paths, &nr_paths))
		return -1;
	while (!rc && (more = lru_fleet_unpack_next(&r, &lv, &err)) > 0) {
		struct tl_path *tp = path_of(q, cache, &lv.path_id, paths, nr_paths, glob);

		rc = !tp ? -1 : tp->match ? fns->fn(arg, tp, &lv, taken, page) : 0;
	}
	if (!rc && !more && fns->mfn && r.has_memcgs) {
		fns->counted(arg);
		while (!rc && lru_fleet_unpack_memcg(&r, &m, &err) > 0) {
			struct tl_path *tp = path_of(q, cache, &m.path_id, paths, nr_paths, glob);

			rc = !tp ? -1 : tp->match ? fns->mfn(arg, tp, &m, page) : 0;
		}
	}
	free(paths);
	return rc;
}

static int adv_each(void *arg, const struct tl_path *tp, const struct lru_fleet_lruvec *lv,
		    int64_t taken, uint32_t page)
{
	struct advise *a = arg;
	struct adv_job *j = adv_job(a, tp);

	return !j || adv_lruvec(a, j, lv, taken, page) ? -1 : 0;
}

/*
 * A memcg's counters in the scan's current row: their increase since the
 * host's previous row, when that row had counters too (a memcg not in them
 * had 0), to its job's row (only its lruvecs' pairs, which are of one inode).
 * Counters that went down (another memcg made under the path) count nothing.
 */
static int adv_memcg(void *arg, const struct tl_path *tp, const struct lru_fleet_memcg *m,
		     uint32_t page)
{
	struct advise *a = arg;
	struct adv_job *j = map_get_str(&a->jobs, tp->path);
	uint64_t was_stolen = 0, was_refaulted = 0;
	struct adv_prev_memcg *p;
	char key[96];

	snprintf(key, sizeof(key), "m/%" PRIu64, m->path_id);
	p = map_get_str(&a->prev, key);
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p || map_put_str(&a->prev, key, p)) {
			free(p);
			return -1;
		}
	}
	if (p->row && p->row + 1 == a->rows)
		was_stolen = p->pgsteal, was_refaulted = p->refaulted;
	if (j && j->row == a->rows && a->prev_counted && m->pgsteal >= was_stolen &&
	    m->refaulted >= was_refaulted) {
		j->row_stolen = lru_sat_add_u64(j->row_stolen,
						lru_sat_mul_u64(m->pgsteal - was_stolen, page));
		j->row_refaulted = lru_sat_add_u64(j->row_refaulted,
						   lru_sat_mul_u64(m->refaulted - was_refaulted, page));
	}
	p->pgsteal = m->pgsteal;
	p->refaulted = m->refaulted;
	p->row = a->rows;
	return 0;
}

/* The current row has memcg counters (adv_memcg compares with the previous row's). */
static void adv_counted(void *arg)
{
	struct advise *a = arg;

	a->prev_counted = a->counted_row && a->counted_row + 1 == a->rows;
	a->counted_row = a->rows;
}

/* One raw snapshot row: a new host or boot starts pairs afresh. */
static int adv_snapshot(struct query *q, struct advise *a, const struct row *row)
{
	static const struct raw_fns fns = { adv_each, adv_memcg, adv_counted };
	const char *host = row_str(row, 0), *boot = row_str(row, 1);

	if (!a->nr_hosts || strcmp(a->hosts[a->nr_hosts - 1], host)) {
		if (a->nr_hosts == a->alloc_hosts) {
			size_t n = a->alloc_hosts ? 2 * a->alloc_hosts : 64;
			char **h = realloc(a->hosts, n * sizeof(*h));

			if (!h)
				return -1;
			a->hosts = h, a->alloc_hosts = n;
		}
		if (!(a->hosts[a->nr_hosts] = strdup(host)))
			return -1;
		a->nr_hosts++;
		a->boot[0] = 0;
	}
	if (strncmp(a->boot, boot, sizeof(a->boot) - 1)) {
		/* another host or boot: its lruvecs pair with nothing before */
		map_clear(&a->prev, free);
		snprintf(a->boot, sizeof(a->boot), "%s", boot);
		a->counted_row = 0;
		a->prev_counted = false;
	}
	a->rows++;
	return raw_lruvecs(q, row, &a->paths, a->glob, &fns, a);
}

static int adv_visit(struct query *q, void *arg, const struct row *r)
{
	return adv_snapshot(q, arg, r) ? -1 : 0;
}

/*
 * Every raw snapshot taken since since_ms, host by host in time order, to
 * visit: rows of host, boot_id, taken_ms, page_size, data[, paths].
 */
static int raw_scan(struct query *q, int64_t since_ms,
		    int (*visit)(struct query *q, void *arg, const struct row *r), void *arg)
{
	sqlite3_stmt *st = NULL;
	struct lru_buf sql;
	char tbl[160];
	int rc;

	lru_buf_init(&sql);
	if (q->ch) {
		if (lru_buf_printf(&sql, NULL, "SELECT host, boot_id, taken_ms, page_size, data, paths "
				   "FROM %s FINAL WHERE taken_ms >= %" PRId64 " ORDER BY host, taken_ms, "
				   "boot_id, seq", ch_table(q->ch, "snapshots", tbl, sizeof(tbl)),
				   since_ms > 0 ? since_ms : 0) ||
		    lru_buf_append(&sql, "", 1, NULL)) {
			lru_buf_release(&sql);
			return bad(q, 500, "out of memory"), -1;
		}
	} else {
		st = db_stmt(q->r, S_RAW_SCAN,
			"SELECT h.name, s.boot_id, s.taken_ms, s.page_size, s.data FROM snapshots s "
			"JOIN hosts h ON h.id = s.host_id WHERE s.taken_ms >= ?1 "
			"ORDER BY s.host_id, s.taken_ms, s.id");
		if (!st)
			return db_error(q), -1;
		sqlite3_bind_int64(st, 1, since_ms);
	}
	rc = scan_rows(q, (const char *)sql.data, st, visit, arg);
	lru_buf_release(&sql);
	return rc;
}

/* Why a job has no advice, in words. */
static void adv_reason(struct advise *a, const struct adv_job *j,
		       const struct lru_advise_rate *r, char *buf, size_t size)
{
	int last = -1;
	char t[32];

	for (unsigned k = 0; k < NR_T; k++)
		if (r[k].measured)
			last = (int)k;
	if (!j->acc.pairs_seen) {
		snprintf(buf, size, "no two snapshots of one host at most %s apart in the window",
			 lru_fmt_duration(LRU_ADVISE_MAX_GAP_MS, t, sizeof(t)));
	} else if (!r[0].pairs && j->acc.merged[0]) {
		snprintf(buf, size, "not measured: in %" PRIu64 " pair(s) of snapshots the generations "
			 "cold at 1m were merged away before the next snapshot (take snapshots at least "
			 "as often as the memcg is aged)", j->acc.merged[0]);
	} else if (!r[0].pairs) {
		snprintf(buf, size, "nothing was cold at 1m in the window: no page to promote, "
			 "no memory to free");
	} else if (last < 0) {
		snprintf(buf, size, "not enough data: %" PRIu64 " pair(s) of snapshots at 1m, "
			 "min_samples asks for %" PRIu64, r[0].pairs, a->min_pairs);
	} else {
		snprintf(buf, size, "no measured threshold meets the SLO: at %s, the largest measured, "
			 "%.3g%%/min; larger thresholds were not measured (generations this old did "
			 "not exist: age more slowly to measure them)",
			 lru_fleet_threshold_name((unsigned)last), r[last].pct_per_min);
	}
}

static int cmp_job(const void *x, const void *y)
{
	return strcmp((*(struct adv_job *const *)x)->path, (*(struct adv_job *const *)y)->path);
}

static int cmp_free(const void *x, const void *y)
{
	const json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	json_int_t fa = json_integer_value(json_object_get(a, "free_bytes"));
	json_int_t fb = json_integer_value(json_object_get(b, "free_bytes"));

	return fa < fb ? 1 : fa > fb ? -1 :
	       strcmp(json_string_value(json_object_get(a, "host")),
		      json_string_value(json_object_get(b, "host")));
}

/* The answer: per job its rates and advice, then what each host and the fleet would free. */
static json_t *adv_doc(struct query *q, struct advise *a, uint64_t window)
{
	json_t *doc = json_object(), *jobs = json_array(), *hosts = json_array(), *names = json_array();
	uint64_t *free_of = calloc(a->nr_hosts ? a->nr_hosts : 1, sizeof(*free_of)), total = 0;
	struct adv_job **sorted = calloc(a->jobs.n ? a->jobs.n : 1, sizeof(*sorted));
	const struct map_slot *slot;
	json_t **order = NULL;
	size_t pos = 0, n = 0;

	if (!free_of || !sorted)
		goto oom;
	/* jobs by path: the scan's order is the backend's */
	while (map_next(&a->jobs, &pos, &slot))
		sorted[n++] = slot->val;
	qsort(sorted, n, sizeof(*sorted), cmp_job);
	if (a->glob)
		set_str(doc, "memcg_glob", a->glob);
	json_object_set_new(doc, "slo_pct_per_min", json_real(a->slo));
	set_u64(doc, "window_ms", window);
	set_int(doc, "since_ms", a->since_ms);
	set_int(doc, "now_ms", q->now_ms);
	set_u64(doc, "raw_retention_ms", q->cfg->raw_retention_ms);
	set_u64(doc, "min_samples", a->min_pairs);
	set_u64(doc, "max_pair_gap_ms", LRU_ADVISE_MAX_GAP_MS);
	for (unsigned k = 0; k < NR_T; k++)
		json_array_append_new(names, json_integer((json_int_t)lru_fleet_threshold_ms(k)));
	json_object_set_new(doc, "thresholds_ms", names);
	json_object_set_new(doc, "jobs", jobs);
	for (size_t i = 0; i < n; i++) {
		struct adv_job *j = sorted[i];
		struct lru_advise_rate r[NR_T];
		json_t *o = json_object(), *rates = json_array();
		char why[400];

		if (j->row && adv_row_end(j))
			goto oom;
		j->row = 0;
		lru_advise_rates(&j->acc, a->min_pairs, r);
		j->pick = lru_advise_pick(r, a->slo);
		set_str(o, "memcg", j->path);
		set_u64(o, "hosts", j->hosts);
		set_u64(o, "samples", j->samples);
		set_u64(o, "pairs", j->acc.pairs_seen);
		put_warnings(o, 0, j->warnings);
		for (unsigned k = 0; k < NR_T; k++) {
			json_t *x = json_object();

			set_u64(x, "threshold_ms", lru_fleet_threshold_ms(k));
			set_u64(x, "pairs", r[k].pairs);
			json_object_set_new(x, "measured", json_boolean(r[k].measured));
			if (r[k].pairs && j->host_ms[k]) {
				/* per host running the job: its lruvecs summed, over host-time */
				json_object_set_new(x, "promoted_bytes_per_min", json_real(
					(double)j->acc.promoted[k] * 60000.0 / (double)j->host_ms[k]));
				set_u64(x, "working_set_bytes",
					(uint64_t)((double)j->acc.hot_ms[k] / (double)j->host_ms[k]));
				/* memory.stat: reclaimed (not promoted), refaulted (promoted) */
				set_u64(x, "evicted_bytes", j->acc.evicted[k]);
				set_u64(x, "refaulted_bytes", j->acc.refaulted[k]);
			}
			if (r[k].measured)
				json_object_set_new(x, "pct_per_min", json_real(r[k].pct_per_min));
			json_array_append_new(rates, x);
		}
		json_object_set_new(o, "rates", rates);
		if (j->pick >= 0) {
			unsigned k = (unsigned)j->pick;
			json_t *adv = json_object();
			uint64_t now = 0;

			for (size_t h = 0; h < j->nr_latest; h++) {
				const struct adv_host_cold *l = &j->latest[h];

				now = lru_sat_add_u64(now, l->cold[k]);
				free_of[l->host] = lru_sat_add_u64(free_of[l->host], l->cold[k]);
			}
			total = lru_sat_add_u64(total, now);
			set_u64(adv, "threshold_ms", lru_fleet_threshold_ms(k));
			json_object_set_new(adv, "pct_per_min", json_real(r[k].pct_per_min));
			set_u64(adv, "pairs", r[k].pairs);
			set_u64(adv, "cold_bytes_now", now);
			set_u64(adv, "cold_bytes_per_host_p50", lru_hist_percentile(&j->cold[k], 50));
			set_u64(adv, "cold_bytes_per_host_p95", lru_hist_percentile(&j->cold[k], 95));
			json_object_set_new(o, "advice", adv);
		} else {
			adv_reason(a, j, r, why, sizeof(why));
			json_object_set_new(o, "advice", json_null());
			set_str(o, "reason", why);
		}
		json_array_append_new(jobs, o);
	}
	n = 0;
	for (size_t i = 0; i < a->nr_hosts; i++)
		n += free_of[i] > 0;
	order = calloc(n ? n : 1, sizeof(*order));
	if (!order)
		goto oom;
	n = 0;
	for (size_t i = 0; i < a->nr_hosts; i++)
		if (free_of[i])
			order[n++] = json_pack("{sssI}", "host", a->hosts[i], "free_bytes",
					       (json_int_t)lru_sat_i64(free_of[i]));
	qsort(order, n, sizeof(*order), cmp_free);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(hosts, order[i]);
	json_object_set_new(doc, "hosts", hosts);
	set_u64(doc, "free_bytes", total);
	free(order);
	free(sorted);
	free(free_of);
	return doc;
oom:
	free(sorted);
	free(free_of);
	json_decref(hosts);
	json_decref(doc);
	return bad(q, 500, "out of memory");
}

json_t *query_advise(struct query *q)
{
	struct advise a = { .glob = q->arg(q->ctx, "memcg_glob") };
	const char *slo = q->arg(q->ctx, "slo");
	struct lru_error err;
	uint64_t window;
	json_t *doc = NULL;

	a.slo = LRU_ADVISE_DEFAULT_SLO;
	if (slo && lru_advise_parse_slo(slo, &a.slo, &err))
		return bad(q, 400, "parameter 'slo': %s", err.msg);
	if (param_duration(q, "window", 7 * 86400000ull, &window) ||
	    param_uint(q, "min_samples", LRU_ADVISE_DEFAULT_MIN_PAIRS, 1000000000, &a.min_pairs))
		return NULL;
	if (!window)
		return bad(q, 400, "parameter 'window': at least 1ms");
	a.since_ms = lru_sat_sub_i64(q->now_ms, lru_sat_i64(window));
	map_init(&a.paths);
	map_init(&a.jobs);
	map_init(&a.prev);
	if (!raw_scan(q, a.since_ms, adv_visit, &a))
		doc = adv_doc(q, &a, window);
	map_release(&a.prev, free);
	map_release(&a.jobs, adv_job_free);
	map_release(&a.paths, tl_path_free);
	for (size_t i = 0; i < a.nr_hosts; i++)
		free(a.hosts[i]);
	free(a.hosts);
	return doc;
}

/* ---- bands ------------------------------------------------------------------------------- */

/* age bands: [0, 1m), [1m, 2m) ... [24h, inf): the fixed thresholds' edges */
#define NR_BANDS (NR_T + 1)
#define BANDS_MAX_STEPS 1000

struct bands {
	const char *glob;
	int64_t since_ms;
	uint64_t step_ms;
	size_t nr_steps;
	struct band_step {
		uint64_t bytes[NR_BANDS];	/* summed over the step's host snapshots */
		uint64_t samples;		/* host snapshots with the job */
		uint64_t hosts;			/* distinct hosts */
		size_t last_host;		/* the last host counted (+1) */
	} *steps;
	size_t host;			/* hosts seen (the scan goes host by host) */
	char last[256];
	struct map paths;
};

/* the bytes of each band in one lruvec, added to sum */
static int bands_each(void *arg, const struct tl_path *tp, const struct lru_fleet_lruvec *lv,
		      int64_t taken, uint32_t page)
{
	uint64_t *sum = arg, above;
	struct lru_fleet_cold c;

	(void)tp;
	(void)taken;
	lru_fleet_lruvec_cold(&lv->lv, page, &c);
	above = c.total;
	for (unsigned k = 0; k < NR_T; k++) {
		uint64_t cold = c.cold[k] < above ? c.cold[k] : above;

		sum[k] = lru_sat_add_u64(sum[k], above - cold);
		above = cold;
	}
	sum[NR_T] = lru_sat_add_u64(sum[NR_T], above);
	sum[NR_BANDS] = 1;	/* the job is in this snapshot */
	return 0;
}

static int bands_visit(struct query *q, void *arg, const struct row *row)
{
	static const struct raw_fns fns = { .fn = bands_each };
	struct bands *b = arg;
	const char *host = row_str(row, 0);
	int64_t taken = row_i64(row, 2);
	uint64_t sum[NR_BANDS + 1] = { 0 };
	struct band_step *st;
	size_t s;

	if (taken < b->since_ms)
		return 0;
	s = (size_t)((uint64_t)(taken - b->since_ms) / b->step_ms);
	if (s >= b->nr_steps)
		return 0;
	if (strncmp(b->last, host, sizeof(b->last) - 1)) {
		snprintf(b->last, sizeof(b->last), "%s", host);
		b->host++;
	}
	if (raw_lruvecs(q, row, &b->paths, b->glob, &fns, sum))
		return -1;
	if (!sum[NR_BANDS])
		return 0;
	st = &b->steps[s];
	for (unsigned k = 0; k < NR_BANDS; k++)
		st->bytes[k] = lru_sat_add_u64(st->bytes[k], sum[k]);
	st->samples++;
	if (st->last_host != b->host) {
		st->last_host = b->host;
		st->hosts++;
	}
	return 0;
}

json_t *query_bands(struct query *q)
{
	struct bands b = { .glob = q->arg(q->ctx, "memcg_glob") };
	json_t *doc, *steps, *edges;
	uint64_t window, step;

	if (!b.glob || !*b.glob)
		return bad(q, 400, "parameter 'memcg_glob' is required (a memcg path pattern)");
	if (param_duration(q, "window", 6 * 3600000ull, &window) ||
	    param_duration(q, "step", 0, &step))
		return NULL;
	if (!window)
		return bad(q, 400, "parameter 'window': at least 1ms");
	if (!step)
		step = window / 60 < 60000 ? 60000 : window / 60;
	if (window / step > BANDS_MAX_STEPS)
		return bad(q, 400, "parameter 'step': at most %d steps a window", BANDS_MAX_STEPS);
	b.step_ms = step;
	b.nr_steps = (size_t)((window + step - 1) / step);
	b.since_ms = lru_sat_sub_i64(q->now_ms, lru_sat_i64(b.nr_steps * step));
	b.steps = calloc(b.nr_steps, sizeof(*b.steps));
	if (!b.steps)
		return bad(q, 500, "out of memory");
	map_init(&b.paths);
	doc = NULL;
	if (!raw_scan(q, b.since_ms, bands_visit, &b)) {
		doc = json_object();
		set_str(doc, "memcg_glob", b.glob);
		set_u64(doc, "window_ms", window);
		set_u64(doc, "step_ms", step);
		set_int(doc, "since_ms", b.since_ms);
		set_int(doc, "now_ms", q->now_ms);
		edges = json_array();
		json_array_append_new(edges, json_integer(0));
		for (unsigned k = 0; k < NR_T; k++)
			json_array_append_new(edges, json_integer((json_int_t)lru_fleet_threshold_ms(k)));
		json_object_set_new(doc, "band_edges_ms", edges);
		steps = json_array();
		for (size_t i = 0; i < b.nr_steps; i++) {
			const struct band_step *st = &b.steps[i];
			json_t *o = json_object(), *bytes = json_array();

			set_int(o, "t_ms", b.since_ms + (int64_t)(i * step));
			set_u64(o, "hosts", st->hosts);
			set_u64(o, "samples", st->samples);
			/* the job's bytes across its hosts: the mean of a host snapshot, times hosts */
			for (unsigned k = 0; st->samples && k < NR_BANDS; k++)
				json_array_append_new(bytes, json_integer((json_int_t)lru_sat_i64(
					(uint64_t)((double)st->bytes[k] / (double)st->samples *
						   (double)st->hosts))));
			json_object_set_new(o, "bytes", bytes);
			json_array_append_new(steps, o);
		}
		json_object_set_new(doc, "steps", steps);
	}
	map_release(&b.paths, tl_path_free);
	free(b.steps);
	return doc;
}

/* ---- latest ------------------------------------------------------------------------------ */

struct latest {
	const char *glob;
	struct lru_snapshot *snaps;
	size_t n, alloc;
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
	}
	if (lru_snapshot_add_lruvec(s, mc, lv->lv.node, &lvi, NULL))
		return -1;
	s->lruvecs[lvi] = lv->lv;
	s->lruvecs[lvi].memcg = mc;
	return 0;
}

/*
 * A host's latest snapshot from its hosts row and raw row (columns: name,
 * kernel, host_warnings, boot_id, seq, taken_ms, read_start_ms, read_end_ms,
 * page_size, data), its lruvecs limited to the memcgs matching the glob.
 */
static int latest_host(struct query *q, struct latest *l, const struct row *row,
		       struct lru_snapshot *s)
{
	size_t len, nr_paths = 0;
	const void *blob = row_blob(row, 9, &len);
	int64_t taken = row_i64(row, 5);
	const char **paths = NULL;
	struct lru_fleet_reader r;
	struct lru_fleet_lruvec lv;
	struct lru_error err;
	int more, rc = 0;

	if (lru_strdup_into(&s->host.host, row_str(row, 0), NULL) ||
	    lru_strdup_into(&s->host.kernel, row_str(row, 1), NULL) ||
	    lru_strdup_into(&s->host.boot_id, row_str(row, 3), NULL))
		return -1;
	s->host.warnings = (uint32_t)row_i64(row, 2);
	s->host.seq = row_u64(row, 4);
	s->read_start_ms = row_i64(row, 6);
	s->read_end_ms = row_i64(row, 7);
	s->page_size = (uint32_t)row_u64(row, 8);
	/* first the node count, then the nodes: a blob the store wrote is valid */
	if (lru_fleet_unpack_begin(&r, blob, len, taken, NULL, 0, &err))
		return 0;	/* as the timeline does: a snapshot without lruvecs */
	if (r.nr_nodes && !(s->nodes = calloc(r.nr_nodes, sizeof(*s->nodes))))
		return -1;
	s->nr_nodes = r.nr_nodes;
	if (lru_fleet_unpack_begin(&r, blob, len, taken, s->nodes, s->nr_nodes, &err))
		return 0;
	if (q->ch && row_paths(row, 10, &paths, &nr_paths))
		return -1;
	map_clear(&l->memcgs, NULL);
	while ((more = lru_fleet_unpack_next(&r, &lv, &err)) > 0) {
		struct tl_path *tp = path_of(q, &l->paths, &lv.path_id, paths, nr_paths, l->glob);

		if (!tp || (tp->match && latest_lruvec(l, s, tp, &lv))) {
			rc = -1;
			break;
		}
	}
	free(paths);
	return rc;
}

/* Which hosts /v1/latest answers for (query.h). */
struct latest_sel {
	const char *host;	/* one host, or NULL */
	int64_t since;		/* stored at or after (ms, the store's clock); INT64_MIN: all */
	const char *after;	/* names after this one, or NULL */
	uint64_t limit;		/* at most this many hosts; 0: no limit */
};

/* The rows latest_host() reads of the hosts sel names, by host name. */
static struct iter *latest_rows(struct query *q, struct iter *it, const struct latest_sel *sel)
{
	static const char *const sql =
		"SELECT h.name, h.kernel, h.host_warnings, s.boot_id, s.seq, s.taken_ms, "
		"s.read_start_ms, s.read_end_ms, s.page_size, s.data "
		"FROM hosts h JOIN snapshots s ON s.id = h.snap_id WHERE h.ingest_ms >= ?1 ";
	char text[512], snaps[160], hosts[160], since[48] = "1", limit[48] = "";
	struct lru_buf chsql, name = { 0 };
	const char *cond = "1";
	sqlite3_stmt *st;
	struct iter *ok = NULL;

	if (!q->ch) {
		snprintf(text, sizeof(text), "%s%s", sql, sel->host ? "AND h.name = ?2"
			 : "AND h.name > ?2 ORDER BY h.name LIMIT ?3");
		st = db_stmt(q->r, sel->host ? S_LATEST_HOST : S_LATEST, text);
		if (!st)
			return db_error(q), NULL;
		sqlite3_bind_int64(st, 1, sel->since);
		sqlite3_bind_text(st, 2, sel->host ? sel->host : sel->after ? sel->after : "", -1,
				  SQLITE_STATIC);
		if (!sel->host)
			sqlite3_bind_int64(st, 3, sel->limit ? (sqlite3_int64)sel->limit : -1);
		return iter_sqlite(it, st);
	}
	/*
	 * The page's hosts chosen first, in the subquery: the raw rows read are
	 * theirs only. On a cluster each shard runs it on its own hosts
	 * (ch_select()), so the outer query takes the first 'limit' again of what
	 * the shards send. ingest_ms is compared after FINAL: a late snapshot
	 * (older, stored later) must not stand for its host's latest. The raw
	 * rows are read without FINAL (which reads every row of the table: 1.1 s
	 * against 0.25 s a page of 256 at 10,000 hosts): copies of one snapshot
	 * not merged yet are the same row, LIMIT 1 BY keeps one.
	 */
	if (sel->host || sel->after) {
		lru_buf_init(&name);
		if (lru_buf_printf(&name, NULL, sel->host ? "host = " : "host > ") ||
		    ch_quote(&name, sel->host ? sel->host : sel->after,
			     strlen(sel->host ? sel->host : sel->after), NULL) ||
		    lru_buf_append(&name, "", 1, NULL)) {
			lru_buf_release(&name);
			return bad(q, 500, "out of memory"), NULL;
		}
		cond = (const char *)name.data;
	}
	if (sel->since != INT64_MIN)
		snprintf(since, sizeof(since), "ingest_ms >= %" PRId64, sel->since);
	if (sel->limit)
		snprintf(limit, sizeof(limit), " LIMIT %" PRIu64, sel->limit);
	lru_buf_init(&chsql);
	if (lru_buf_printf(&chsql, NULL, "SELECT host, kernel, host_warnings, boot_id, seq, "
			   "taken_ms, read_start_ms, read_end_ms, page_size, data, paths FROM %s "
			   "WHERE (host, boot_id, seq) IN (SELECT host, boot_id, seq FROM "
			   "(SELECT host, boot_id, seq, ingest_ms FROM %s FINAL WHERE %s) "
			   "WHERE %s ORDER BY host%s) AND %s ORDER BY host LIMIT 1 BY host, boot_id, "
			   "seq%s",
			   ch_table(q->ch, "snapshots", snaps, sizeof(snaps)),
			   ch_table(q->ch, "hosts_latest", hosts, sizeof(hosts)), cond, since, limit,
			   cond, limit) ||
	    lru_buf_append(&chsql, "", 1, NULL))
		bad(q, 500, "out of memory");
	else
		ok = iter_ch(q, it, (const char *)chsql.data);
	lru_buf_release(&chsql);
	lru_buf_release(&name);
	return ok;
}

/*
 * Where /v1/latest's answer goes, one host at a time: each host's snapshot is
 * packed as a SnapshotBatch of its own and appended (gzipped or not) to out.
 * Concatenated, those are the SnapshotBatch of them all: a parser merges
 * the repeated field of consecutive encodings of a message by appending
 * (the protobuf encoding's rule for repeated fields), so the whole answer
 * never exists as a message tree, only as its bytes.
 */
struct latest_out {
	struct lru_buf buf;	/* max: what may be sent */
	struct lru_gz gz;
	bool gzip;
};

static int latest_put(struct query *q, struct latest_out *o, const struct lru_snapshot *s)
{
	struct lru_error err;
	uint8_t *pb;
	size_t len;
	enum lru_err rc;

	if (lru_pb_encode_batch(&s, 1, &pb, &len, &err))
		return bad(q, 500, "cannot encode the snapshots: %s", err.msg), -1;
	rc = o->gzip ? lru_gz_write(&o->gz, pb, len, &o->buf, &err)
		     : lru_buf_append(&o->buf, pb, len, &err);
	free(pb);
	if (rc == LRU_ERANGE)
		return bad(q, 413, "the latest snapshots take more than %zu MiB to send%s: ask for "
			   "fewer with 'host' or 'memcg_glob'", o->buf.max >> 20,
			   o->gzip ? " gzipped" : " (gzip would take more)"), -1;
	return rc ? (bad(q, 500, "out of memory"), -1) : 0;
}

/* The latest snapshot of every host sel names, one by one, onto o. */
static int latest_scan(struct query *q, struct latest *l, const struct latest_sel *sel,
		       struct latest_out *o)
{
	struct lru_snapshot s;
	struct iter it;
	int rc, bad_host = 0;

	if (!latest_rows(q, &it, sel))
		return -1;
	while ((rc = iter_next(&it)) == 1) {
		lru_snapshot_init(&s);
		bad_host = latest_host(q, l, &it.r, &s) ? (bad(q, 500, "out of memory"), -1)
							 : latest_put(q, o, &s);
		lru_snapshot_release(&s);
		if (bad_host)
			break;
	}
	if (it.r.st)
		sqlite3_reset(it.r.st);
	iter_release(&it);
	if (bad_host)
		return -1;
	if (rc)
		return rc == 1 ? (bad(q, 500, "out of memory"), -1) : (query_error(q), -1);
	return 0;
}

int query_latest(struct query *q, uint64_t max_bytes, bool gzip, uint8_t **out, size_t *len)
{
	struct latest_sel sel = {
		.host = q->arg(q->ctx, "host"), .after = q->arg(q->ctx, "after"), .since = INT64_MIN,
	};
	struct latest l = { .glob = q->arg(q->ctx, "memcg_glob") };
	struct latest_out o = { .gzip = gzip };
	struct lru_error err;
	uint64_t since;
	int64_t id;
	int rc = -1;

	if (sel.host && !*sel.host)
		return bad(q, 400, "parameter 'host' is empty"), -1;
	if (param_uint(q, "changed_since", 0, INT64_MAX, &since) ||
	    param_uint(q, "limit", 0, UINT32_MAX, &sel.limit))
		return -1;
	if (q->arg(q->ctx, "changed_since"))
		sel.since = (int64_t)since;
	if (sel.host && (sel.after || sel.limit))
		return bad(q, 400, "parameter 'host' names one host: 'after' and 'limit' page "
			   "through all of them"), -1;
	if (sel.host && host_id(q, sel.host, &id))
		return -1;
	lru_buf_init(&o.buf);
	o.buf.max = max_bytes;
	if (gzip && lru_gz_begin(&o.gz, 1, &err))
		return bad(q, 500, "%s", err.msg), -1;
	map_init(&l.paths);
	map_init(&l.memcgs);
	if (latest_scan(q, &l, &sel, &o))
		goto out;
	if (gzip && lru_gz_finish(&o.gz, &o.buf, &err)) {
		bad(q, 413, "the latest snapshots take more than %zu MiB to send gzipped: ask for "
		    "fewer with 'host' or 'memcg_glob'", o.buf.max >> 20);
		goto out;
	}
	*out = o.buf.data;
	*len = o.buf.len;
	o.buf.data = NULL;
	rc = 0;
out:
	lru_gz_end(&o.gz);
	lru_buf_release(&o.buf);
	map_release(&l.paths, tl_path_free);
	map_release(&l.memcgs, NULL);
	return rc;
}

/* ---- export (sqlite) ------------------------------------------------------------------- */

int query_export(struct query *q, int64_t *after, int64_t from_ms, size_t max,
		 struct lru_snapshot **snaps, size_t *n)
{
	struct latest l = { 0 };
	struct iter it;
	sqlite3_stmt *st;
	int rc = 0;

	*snaps = NULL;
	*n = 0;
	st = db_stmt(q->r, S_EXPORT, "SELECT h.name, h.kernel, h.host_warnings, s.boot_id, s.seq, "
		     "s.taken_ms, s.read_start_ms, s.read_end_ms, s.page_size, s.data, s.id "
		     "FROM snapshots s JOIN hosts h ON h.id = s.host_id "
		     "WHERE s.id > ?1 AND s.taken_ms >= ?2 ORDER BY s.id LIMIT ?3");
	if (!st)
		return db_error(q), -1;
	sqlite3_bind_int64(st, 1, *after);
	sqlite3_bind_int64(st, 2, from_ms);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)max);
	if (!(l.snaps = calloc(max ? max : 1, sizeof(*l.snaps))))
		return bad(q, 500, "out of memory"), -1;
	map_init(&l.paths);
	map_init(&l.memcgs);
	iter_sqlite(&it, st);
	while (l.n < max && (rc = iter_next(&it)) == 1) {
		lru_snapshot_init(&l.snaps[l.n]);
		if (latest_host(q, &l, &it.r, &l.snaps[l.n++])) {
			rc = -1;
			bad(q, 500, "out of memory");
			break;
		}
		*after = row_i64(&it.r, 10);
	}
	sqlite3_reset(st);
	map_release(&l.paths, tl_path_free);
	map_release(&l.memcgs, NULL);
	if (rc < 0) {
		if (!q->status)
			db_error(q);
		lru_pb_free_snapshots(l.snaps, l.n);
		return -1;
	}
	if (!l.n) {
		free(l.snaps);
		return 0;
	}
	*snaps = l.snaps;
	*n = l.n;
	return 0;
}

int query_export_rollups(struct query *q, int64_t *from_ms,
			 int (*visit)(void *arg, const char *path, const struct rollup_cell *c),
			 void *arg)
{
	struct rollup_cell c;
	sqlite3_stmt *st;
	int64_t first_hour = INT64_MAX;
	int step;

	st = db_stmt(q->r, S_EXPORT_FIRST, "SELECT min(taken_ms) FROM snapshots");
	if (!st)
		return db_error(q), -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		first_hour = sqlite3_column_int64(st, 0) / HOUR_MS;
	sqlite3_reset(st);
	*from_ms = first_hour == INT64_MAX ? INT64_MAX : first_hour * HOUR_MS;
	st = db_stmt(q->r, S_EXPORT_ROLLUPS, "SELECT p.path, w.hour, w.samples, w.hist, w.warnings "
		     "FROM wss_hourly w JOIN paths p ON p.id = w.path_id WHERE w.hour < ?1 "
		     "ORDER BY w.hour, p.path");
	if (!st)
		return db_error(q), -1;
	sqlite3_bind_int64(st, 1, first_hour);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = col_str(st, 0);
		struct lru_error err;
		int bad_blob;

		memset(&c, 0, sizeof(c));
		for (unsigned k = 0; k < NR_T; k++)
			lru_hist_init(&c.h[k]);
		c.hour = sqlite3_column_int64(st, 1);
		c.samples = (uint64_t)sqlite3_column_int64(st, 2);
		bad_blob = lru_hist_set_merge_blob(c.h, sqlite3_column_blob(st, 3),
						   (size_t)sqlite3_column_bytes(st, 3), &err) ||
			   (sqlite3_column_type(st, 4) != SQLITE_NULL &&
			    lru_fleet_warn_counts_merge_blob(&c.warn, sqlite3_column_blob(st, 4),
							     (size_t)sqlite3_column_bytes(st, 4), &err));
		if (bad_blob)
			bad(q, 500, "the rollup of %s hour %" PRId64 " is corrupt: %s", path, c.hour,
			    err.msg);
		step = bad_blob ? -1 : visit(arg, path, &c);
		for (unsigned k = 0; k < NR_T; k++)
			lru_hist_release(&c.h[k]);
		if (step) {
			sqlite3_reset(st);
			return -1;
		}
	}
	sqlite3_reset(st);
	return step == SQLITE_DONE ? 0 : (db_error(q), -1);
}
