#include "rows.h"

#include <stdlib.h>
#include <string.h>

#include "schema.h"

static const char *const sql[ROWS_NR_STMTS] = {
	[ROWS_SNAPSHOT] = SCHEMA_INSERT_SNAPSHOT,
	[ROWS_HOST] = SCHEMA_UPDATE_HOST,
	[ROWS_NODE_UPDATE] = SCHEMA_UPDATE_NODE,
	[ROWS_NODE_INSERT] = SCHEMA_INSERT_NODE,
	[ROWS_NODE_STALE] = SCHEMA_DELETE_STALE_NODES,
	[ROWS_MEMCG_UPDATE] = SCHEMA_UPDATE_MEMCG,
	[ROWS_MEMCG_INSERT] = SCHEMA_INSERT_MEMCG,
	[ROWS_MEMCG_STALE] = SCHEMA_DELETE_STALE_MEMCGS,
};

enum lru_err rows_prepare(struct rows_writer *w, sqlite3 *db, struct lru_error *err)
{
	memset(w, 0, sizeof(*w));
	w->db = db;
	lru_buf_init(&w->blob);
	for (int i = 0; i < ROWS_NR_STMTS; i++)
		if (sqlite3_prepare_v3(db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &w->st[i], NULL)) {
			enum lru_err rc = lru_fail(err, LRU_EIO, "cannot prepare a statement: %s",
						   sqlite3_errmsg(db));

			rows_release(w);
			return rc;
		}
	return LRU_OK;
}

void rows_release(struct rows_writer *w)
{
	for (int i = 0; i < ROWS_NR_STMTS; i++)
		sqlite3_finalize(w->st[i]);
	lru_buf_release(&w->blob);
	free(w->paths);
	w->paths = NULL;
	w->nr_paths = w->alloc_paths = 0;
	memset(w->st, 0, sizeof(w->st));
}

static sqlite3_int64 i64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (sqlite3_int64)v;
}

/* Cold bytes at ?21.. and the lruvecs' warnings at ?29, in every row statement. */
static void bind_cold(sqlite3_stmt *st, const struct lru_fleet_cold *c)
{
	for (int k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++)
		sqlite3_bind_int64(st, SCHEMA_COLD_PARAM + k, i64(c->cold[k]));
	sqlite3_bind_int64(st, SCHEMA_WARN_PARAM, c->warnings);
}

/* Step a statement that returns no rows and reset it: 0, or -1. */
static int run(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The UPDATE just run changed no row: run the INSERT, bound alike. */
static bool missed(struct rows_writer *w)
{
	return !sqlite3_changes(w->db);
}

static void bind_node(sqlite3_stmt *st, int64_t host, int64_t snap_id, const struct lru_fleet_node *n)
{
	sqlite3_bind_int64(st, 1, host);
	sqlite3_bind_int(st, 2, n->node);
	sqlite3_bind_int64(st, 3, snap_id);
	sqlite3_bind_int64(st, 4, i64(n->mem_total));
	sqlite3_bind_int64(st, 5, i64(n->mem_free));
	sqlite3_bind_int64(st, 6, i64(n->cold.total));
	bind_cold(st, &n->cold);
}

static void bind_memcg(sqlite3_stmt *st, int64_t host, int64_t snap_id,
		       const struct rows_path_cold *p)
{
	sqlite3_bind_int64(st, 1, host);
	sqlite3_bind_int64(st, 2, i64(p->path_id));
	sqlite3_bind_int64(st, 3, snap_id);
	sqlite3_bind_int64(st, 4, i64(p->c.total));
	bind_cold(st, &p->c);
}

static int cmp_path(const void *a, const void *b)
{
	const struct rows_path_cold *x = a, *y = b;

	return x->path_id < y->path_id ? -1 : x->path_id > y->path_id;
}

/*
 * w->paths: the snapshot's lruvecs summed per path id (nodes, and cgroups of
 * one name), with the union of their warnings.
 */
static int sum_paths(struct rows_writer *w, const struct lru_snapshot *s,
		     const struct lru_fleet_rows *rows, const uint64_t *path_ids)
{
	size_t i, out = 0;

	if (s->nr_lruvecs > w->alloc_paths) {
		struct rows_path_cold *p = realloc(w->paths, s->nr_lruvecs * sizeof(*p));

		if (!p)
			return -1;
		w->paths = p;
		w->alloc_paths = s->nr_lruvecs;
	}
	for (i = 0; i < s->nr_lruvecs; i++) {
		w->paths[i].path_id = path_ids[s->lruvecs[i].memcg];
		w->paths[i].c = rows->lv[i];
	}
	if (s->nr_lruvecs > 1)	/* w->paths is NULL until a snapshot has lruvecs */
		qsort(w->paths, s->nr_lruvecs, sizeof(*w->paths), cmp_path);
	for (i = 0; i < s->nr_lruvecs; i++) {
		if (out && w->paths[out - 1].path_id == w->paths[i].path_id)
			lru_fleet_cold_add(&w->paths[out - 1].c, &w->paths[i].c);
		else
			w->paths[out++] = w->paths[i];
	}
	w->nr_paths = out;
	return 0;
}

/* Delete the rows of host older than snap_id (stmt: a *_STALE statement). */
static int delete_stale(sqlite3_stmt *st, int64_t host, int64_t snap_id)
{
	sqlite3_bind_int64(st, 1, host);
	sqlite3_bind_int64(st, 2, snap_id);
	return run(st);
}

/* snap is the host's latest: its hosts, host_nodes and memcg_latest rows. */
static int write_latest(struct rows_writer *w, struct rows_host *h,
			const struct lru_snapshot *s, const struct lru_fleet_rows *rows,
			int64_t snap_id, int64_t now)
{
	sqlite3_stmt *st = w->st[ROWS_HOST];
	bool inserted = false;
	size_t i;

	sqlite3_bind_int64(st, 1, h->id);
	sqlite3_bind_int64(st, 2, snap_id);
	sqlite3_bind_int64(st, 3, rows->taken_ms);
	sqlite3_bind_int64(st, 4, now);
	sqlite3_bind_text(st, 5, s->host.boot_id ? s->host.boot_id : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, i64(s->host.seq));
	sqlite3_bind_text(st, 7, s->host.kernel ? s->host.kernel : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, s->page_size ? s->page_size : 4096);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)rows->nr_nodes);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)s->nr_memcgs);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)s->nr_lruvecs);
	sqlite3_bind_int64(st, 12, i64(rows->mem_total));
	sqlite3_bind_int64(st, 13, i64(rows->mem_free));
	sqlite3_bind_int64(st, 14, i64(rows->host.total));
	sqlite3_bind_int64(st, 15, s->host.warnings);
	bind_cold(st, &rows->host);
	if (run(st))
		return -1;

	for (i = 0; i < rows->nr_nodes; i++) {
		bind_node(w->st[ROWS_NODE_UPDATE], h->id, snap_id, &rows->nodes[i]);
		if (run(w->st[ROWS_NODE_UPDATE]))
			return -1;
		if (!missed(w))
			continue;
		inserted = true;
		bind_node(w->st[ROWS_NODE_INSERT], h->id, snap_id, &rows->nodes[i]);
		if (run(w->st[ROWS_NODE_INSERT]))
			return -1;
	}
	/* every row updated and as many as before: none can be stale */
	if ((inserted || (int64_t)rows->nr_nodes != h->nr_nodes) && h->snap_id &&
	    delete_stale(w->st[ROWS_NODE_STALE], h->id, snap_id))
		return -1;

	inserted = false;
	for (i = 0; i < w->nr_paths; i++) {
		bind_memcg(w->st[ROWS_MEMCG_UPDATE], h->id, snap_id, &w->paths[i]);
		if (run(w->st[ROWS_MEMCG_UPDATE]))
			return -1;
		if (!missed(w))
			continue;
		inserted = true;
		bind_memcg(w->st[ROWS_MEMCG_INSERT], h->id, snap_id, &w->paths[i]);
		if (run(w->st[ROWS_MEMCG_INSERT]))
			return -1;
	}
	if ((inserted || (int64_t)w->nr_paths != h->nr_paths) && h->snap_id &&
	    delete_stale(w->st[ROWS_MEMCG_STALE], h->id, snap_id))
		return -1;
	h->snap_id = snap_id;
	h->taken_ms = rows->taken_ms;
	h->nr_nodes = (int64_t)rows->nr_nodes;
	h->nr_paths = (int64_t)w->nr_paths;
	return 0;
}

enum lru_err rows_write(struct rows_writer *w, struct rows_host *h,
				const struct lru_snapshot *s, const struct lru_fleet_rows *rows,
				const uint64_t *path_ids, int64_t now_ms, int64_t *snap_id,
				struct lru_error *err)
{
	sqlite3_stmt *st = w->st[ROWS_SNAPSHOT];
	enum lru_err rc;

	*snap_id = 0;
	w->blob.len = 0;
	if (sum_paths(w, s, rows, path_ids))
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	rc = lru_fleet_pack(s, path_ids, &w->blob, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, h->id);
	sqlite3_bind_text(st, 2, s->host.boot_id ? s->host.boot_id : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, i64(s->host.seq));
	sqlite3_bind_int64(st, 4, rows->taken_ms);
	sqlite3_bind_int64(st, 5, s->read_start_ms);
	sqlite3_bind_int64(st, 6, s->read_end_ms);
	sqlite3_bind_int64(st, 7, now_ms);
	sqlite3_bind_int64(st, 8, s->page_size ? s->page_size : 4096);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)s->nr_lruvecs);
	sqlite3_bind_int64(st, 10, i64(rows->mem_total));
	sqlite3_bind_int64(st, 11, i64(rows->mem_free));
	sqlite3_bind_int64(st, 12, i64(rows->host.total));
	sqlite3_bind_blob(st, 13, w->blob.data, (int)w->blob.len, SQLITE_STATIC);
	if (run(st))
		goto fail;
	if (!sqlite3_changes(w->db))
		return LRU_OK;		/* stored before */
	*snap_id = sqlite3_last_insert_rowid(w->db);
	if (rows->taken_ms >= h->taken_ms &&
	    write_latest(w, h, s, rows, *snap_id, now_ms))
		goto fail;
	return LRU_OK;
fail:
	return lru_fail(err, LRU_EIO, "%s", sqlite3_errmsg(w->db));
}
