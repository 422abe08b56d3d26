/*
 * rows.h - write one snapshot's rows into a store database
 * (schema and statements in schema.h), with prepared statements.
 *
 * lrugen-store's writer thread and bench/store's raw-insert baseline both
 * write through this, so the benchmark compares the server against the very
 * same rows. Transactions, caches and rollups are the caller's.
 *
 *	struct rows_writer w;
 *	rows_prepare(&w, db, &err);
 *	BEGIN; rows_write(&w, &host, snap, &rows, path_ids, now, &id, &err); COMMIT;
 *	rows_release(&w);
 *
 * Linking this module needs -lsqlite3.
 */
#ifndef STORE_ROWS_H
#define STORE_ROWS_H

#include <sqlite3.h>
#include <stdint.h>

#include "lru_buf.h"
#include "lru_fleet.h"

/* What a writer remembers of a host between its snapshots (a hosts row). */
struct rows_host {
	int64_t id;		/* hosts.id */
	int64_t snap_id;	/* its latest snapshot, 0 = none yet */
	int64_t taken_ms;	/* of the latest snapshot; INT64_MIN = none */
	int64_t nr_nodes, nr_paths;	/* rows it has in host_nodes and memcg_latest */
};

enum rows_stmt {
	ROWS_SNAPSHOT, ROWS_HOST, ROWS_NODE_UPDATE, ROWS_NODE_INSERT,
	ROWS_NODE_STALE, ROWS_MEMCG_UPDATE, ROWS_MEMCG_INSERT,
	ROWS_MEMCG_STALE, ROWS_NR_STMTS
};

/* A memcg path's bytes in one snapshot, summed over its lruvecs (c.warnings: their union). */
struct rows_path_cold {
	uint64_t path_id;
	struct lru_fleet_cold c;
};

struct rows_writer {
	sqlite3 *db;
	sqlite3_stmt *st[ROWS_NR_STMTS];
	struct lru_buf blob;		/* packed generations, reused */
	/* after rows_write: the snapshot's paths, ascending id */
	struct rows_path_cold *paths;
	size_t nr_paths, alloc_paths;
};

enum lru_err rows_prepare(struct rows_writer *w, sqlite3 *db, struct lru_error *err);
void rows_release(struct rows_writer *w);

/*
 * Insert snap (rows from lru_fleet_rows_build; path_ids[i] the dictionary id
 * of snap->memcgs[i]) for host h, inside the caller's transaction. A
 * snapshot already stored (same host, boot id, seq) writes nothing and sets
 * *snap_id to 0. When snap is the host's latest, the hosts, host_nodes and
 * memcg_latest rows follow it and *h is updated. w->paths then holds the
 * snapshot's bytes per memcg path (also for a duplicate). Warnings go with
 * every row: the snapshot's host warnings and the union of its lruvecs' to
 * hosts, each node's to host_nodes, each path's to memcg_latest, each
 * lruvec's own into the packed generations. LRU_EIO with sqlite's message on
 * failure.
 */
enum lru_err rows_write(struct rows_writer *w, struct rows_host *h,
				const struct lru_snapshot *snap, const struct lru_fleet_rows *rows,
				const uint64_t *path_ids, int64_t now_ms, int64_t *snap_id,
				struct lru_error *err);

#endif
