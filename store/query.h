/*
 * query.h - the fleet questions, answered as JSON documents.
 *
 * Each query_*() reads its parameters through q->arg (already checked
 * against the route's list of names), uses one read connection, and returns
 * a new JSON document, or NULL with q->status (400 bad parameter, 404
 * nothing matches, 500) and a one-line q->error for the client.
 *
 * Thresholds: cold and hot bytes are precomputed at fixed thresholds
 * (lru_fleet.h); a query at another threshold uses the next larger one and
 * says so in "effective_threshold_ms" (cold is never overstated, a working
 * set never understated). Thresholds above 24h are refused.
 *
 * Paging: /v1/timeline answers at most 'limit' points (default
 * QUERY_TIMELINE_LIMIT, at most QUERY_TIMELINE_LIMIT_MAX) plus the rest of
 * the last lruvec's (a page ends between lruvecs); when more remain,
 * "truncated": true and "next": a cursor to pass as 'after' for the
 * following page, which starts with the snapshot the last one ended in.
 *
 * /v1/latest is the one answer that is not JSON: query_latest() rebuilds
 * the latest snapshot of every host (of 'host' only; 404 when the store has
 * no such host) from its raw row, with the lruvecs of the memcgs matching
 * 'memcg_glob' (fnmatch) only, of the hosts whose latest snapshot was
 * stored at or after 'changed_since' (ms on the store's clock). Its 200
 * answer's X-Lrugen-As-Of header names the time it is complete for
 * (db_as_of_ms(); ClickHouse: now less clickhouse-timeout, as another
 * front-end's write may take that long to be seen): a client that passes it
 * as the next changed_since gets every host that changed since (and some
 * again); hosts gone are not named. 'limit' N answers the first N hosts
 * by name, 'after' NAME those after NAME: a client pages through a large
 * fleet with after = the last host of the previous page (each page is a
 * message it can decode alone). Then it encodes them as one SnapshotBatch
 * (lru_pb.h), hosts by name, gzipped when the client takes it. The hosts
 * are encoded one by one (the answer is never a message tree, see
 * latest_put()), so what it takes is its bytes. What a raw row does not keep is left out: the
 * source (debugfs), lru_gen_enabled, aging settings, birth error, duplicates,
 * lru_gen_full detail and memcg stats. A host whose raw snapshots are all
 * past raw-retention is left out. When the answer (gzipped or not) would
 * be more than max_bytes: 413 (ask for fewer hosts or memcgs).
 */
#ifndef STORE_QUERY_H
#define STORE_QUERY_H

#include <jansson.h>
#include <stdint.h>

#include "config.h"
#include "db.h"

#define QUERY_TIMELINE_LIMIT 50000
#define QUERY_TIMELINE_LIMIT_MAX 200000

struct ch;

struct query {
	struct store_db *db;		/* the sqlite backend's, or NULL */
	struct db_reader *r;
	struct ch *ch;			/* the ClickHouse backend's (ch.h), or NULL */
	const struct store_config *cfg;
	int64_t now_ms;
	const char *(*arg)(void *ctx, const char *name);
	void *ctx;
	int status;
	char error[256];
};

json_t *query_hosts(struct query *q);
json_t *query_cold(struct query *q);
json_t *query_rank(struct query *q);
json_t *query_wss(struct query *q);
json_t *query_timeline(struct query *q);
json_t *query_capacity(struct query *q);
/* GET /v1/advise: promotion rates and the advised threshold per job (lru_advise.h) */
json_t *query_advise(struct query *q);
/* GET /v1/bands: one job's bytes per age band over time, across its hosts (the job plot) */
json_t *query_bands(struct query *q);
/* 0 with *out (malloc'd, the caller frees) of *len bytes; -1 with status and error. */
int query_latest(struct query *q, uint64_t max_bytes, bool gzip, uint8_t **out, size_t *len);

/*
 * Moving a sqlite store elsewhere (lrugen-store --import-sqlite), on a
 * sqlite query (q->db, q->r):
 *
 * query_export_rollups visits every hourly rollup (c->path_id unset) of
 * the hours before the first raw snapshot still stored (the hours whose
 * samples only the rollups hold). The raw snapshots carry the rest, but for
 * the samples of that first hour that were expired already: those are
 * lost. visit returns non-zero to stop (then -1). *from_ms: the start of
 * that hour (INT64_MAX without raw snapshots).
 *
 * query_export reads up to max raw snapshots with an id above *after taken
 * at or after from_ms, rebuilt whole (every memcg; with the host's latest
 * kernel and host warnings: sqlite keeps no older ones), into *snaps
 * (lru_pb_free_snapshots), n of them, and moves *after past them; n = 0
 * at the end. Both return 0, or -1 with q's status and error.
 */
int query_export_rollups(struct query *q, int64_t *from_ms,
			 int (*visit)(void *arg, const char *path, const struct rollup_cell *c),
			 void *arg);
int query_export(struct query *q, int64_t *after, int64_t from_ms, size_t max,
		 struct lru_snapshot **snaps, size_t *n);

#endif
