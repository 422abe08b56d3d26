/*
 * lru_fleet_db.h - write one snapshot's rows into a store database
 * (schema and statements in lru_fleet_sql.h), with prepared statements.
 *
 * lrugen-store's writer thread and bench/store's raw-insert baseline both
 * write through this, so the benchmark compares the server against the very
 * same rows. Transactions, caches and rollups are the caller's.
 *
 *	struct lru_fleet_db w;
 *	lru_fleet_db_prepare(&w, db, &err);
 *	BEGIN; lru_fleet_db_write(&w, &host, snap, &rows, path_ids, now, &id, &err); COMMIT;
 *	lru_fleet_db_release(&w);
 *
 * Linking this module needs -lsqlite3.
 */
#ifndef LRU_FLEET_DB_H
#define LRU_FLEET_DB_H

#include <sqlite3.h>
#include <stdint.h>

#include "lru_buf.h"
#include "lru_fleet.h"

/* What a writer remembers of a host between its snapshots (a hosts row). */
struct lru_fleet_db_host {
	int64_t id;		/* hosts.id */
	int64_t snap_id;	/* its latest snapshot, 0 = none yet */
	int64_t taken_ms;	/* of the latest snapshot; INT64_MIN = none */
	int64_t nr_nodes, nr_paths;	/* rows it has in host_nodes and memcg_latest */
};

enum lru_fleet_db_stmt {
	LRU_FLEET_DB_SNAPSHOT, LRU_FLEET_DB_HOST, LRU_FLEET_DB_NODE_UPDATE, LRU_FLEET_DB_NODE_INSERT,
	LRU_FLEET_DB_NODE_STALE, LRU_FLEET_DB_MEMCG_UPDATE, LRU_FLEET_DB_MEMCG_INSERT,
	LRU_FLEET_DB_MEMCG_STALE, LRU_FLEET_DB_NR
};

/* A memcg path's bytes in one snapshot, summed over its lruvecs (c.warnings: their union). */
struct lru_fleet_path_cold {
	uint64_t path_id;
	struct lru_fleet_cold c;
};

struct lru_fleet_db {
	sqlite3 *db;
	sqlite3_stmt *st[LRU_FLEET_DB_NR];
	struct lru_buf blob;		/* packed generations, reused */
	/* after lru_fleet_db_write: the snapshot's paths, ascending id */
	struct lru_fleet_path_cold *paths;
	size_t nr_paths, alloc_paths;
};

enum lru_err lru_fleet_db_prepare(struct lru_fleet_db *w, sqlite3 *db, struct lru_error *err);
void lru_fleet_db_release(struct lru_fleet_db *w);

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
enum lru_err lru_fleet_db_write(struct lru_fleet_db *w, struct lru_fleet_db_host *h,
				const struct lru_snapshot *snap, const struct lru_fleet_rows *rows,
				const uint64_t *path_ids, int64_t now_ms, int64_t *snap_id,
				struct lru_error *err);

#endif
