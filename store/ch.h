/*
 * ch.h - the store's ClickHouse backend (backend = clickhouse): the same
 * ingest contract and answers as the sqlite one (db.h), with no state in the
 * store itself, so that any number of lrugen-store front-ends serve one
 * ClickHouse server or cluster.
 *
 * Talking to ClickHouse. Its HTTP interface, through lru_client (libcurl):
 * SQL in the body or the query parameter, rows as TabSeparated, the user and
 * password in X-ClickHouse-User / X-ClickHouse-Key headers. The URLs of
 * clickhouse-url are tried in turn, starting after the last one that
 * answered; a server that does not answer (or answers 5xx without a query
 * error) passes the request to the next.
 *
 * Schema (tables_v1 .. tables_v4 in ch.c), created and upgraded by
 * --migrate: with a cluster, *_local tables are ReplicatedReplacingMergeTree
 * (ZooKeeper) on every server and the tables without the suffix are
 * Distributed over them, sharded by sipHash64(host) (the rollups by path);
 * without a cluster there is one server, the
 * *_local tables are ReplacingMergeTree and queries read them directly.
 * Migrations are versioned in a table replicated to every server.
 *
 * Writing. HTTP threads prepare a job as for sqlite (ingest_job_prepare) and
 * ch_submit() it. Writer threads (clickhouse-writers) each take the queued
 * jobs (up to batch-max snapshots; a round starts clickhouse-insert-interval
 * after the last one began at the soonest, or when no job came for 100 ms:
 * round_wait), ask which of their snapshots are stored
 * already (counted as duplicates in the answer), and INSERT them in two
 * statements: wss_samples (one row per snapshot and memcg path, sorted by
 * hour first; memcg_samples, sorted by path, before version 5), then the
 * raw snapshots. Materialized views fill the latest-state tables
 * (hosts_latest, hosts_first, since version 3 memcgs_by_path, sorted by
 * path, and paths, since version 9 node_state; host_nodes from version 7 to 8,
 * nodes_latest and memcgs_latest until version 8) from these INSERTs (a view does not fire on
 * another view's rows: the latest state of late samples, which wss_samples
 * does not get, the writer writes to memcgs_by_path itself). With a cluster
 * each INSERT goes through the Distributed table synchronously
 * (insert_distributed_sync) with insert_quorum = clickhouse-insert-quorum:
 * ClickHouse answers only once that many replicas
 * of each shard hold the rows. Only then are the jobs acknowledged (done():
 * status 0); when the cluster cannot take them, status 503 (the collector
 * keeps them and retries). A maintenance thread rolls each hour's memcg
 * samples up into hourly working-set rollups clickhouse-rollup-after the
 * hour ends (roll_hours; their raw rows stay: ch_rolled_hours), drops the
 * raw rows of days past raw-retention (whole daily partitions) and the
 * rollups past rollup-retention. Samples of hours rolled up already, or
 * about to be (late: a collector's spool replayed), are raw samples whose
 * (hour, path) pairs are marked dirty first (ch_dirty_pairs); the maintenance
 * rolls those pairs up again. Samples of days past raw-retention go to the
 * rollups directly (put_late). Each round it first
 * reads the schema version: a database migrated past this binary's
 * (--migrate while it ran) makes the front-end refuse snapshots (503) and
 * stop its maintenance, /healthz saying why, until it is upgraded.
 *
 * Exactly once. An INSERT that failed midway, a resend after a lost answer,
 * or one batch sent to two front-ends at once can write a snapshot's rows
 * twice: a snapshot stored before is even written again on purpose (an
 * earlier INSERT may have stopped between its raw row and the views). Every
 * table is a replacing engine keyed by the row's identity (a snapshot: host,
 * boot id, seq; the latest state: host [, node | memcg path], the newest
 * taken_ms wins), and every query reads with FINAL (or, for the working
 * set's raw samples, counts distinct host, boot id, seq), so each snapshot
 * counts once in every answer whatever was written twice.
 */
#ifndef STORE_CH_H
#define STORE_CH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "db.h"
#include "hours.h"
#include "lru_buf.h"
#include "lru_err.h"
#include "metrics.h"

struct ch;

/*
 * Connect to the servers of cfg (one must answer) and check that the schema
 * is current; with migrate_only, create or upgrade it instead and return
 * without starting the writer. -1 with a message in errbuf.
 */
int ch_open(struct ch **out, const struct store_config *cfg, struct metrics *m,
	    bool migrate_only, char *errbuf, size_t size);
/* As db_stop_writer: refuse new jobs, finish the queued ones, stop the writer. */
void ch_stop_writer(struct ch *ch);
void ch_close(struct ch *ch);

/* Queue a job for the writer: 0, or -1 when the queue is full or closing. */
int ch_submit(struct ch *ch, struct ingest_job *job);
uint64_t ch_queue_snapshots(struct ch *ch);
/* Hours due to be rolled up (ended clickhouse-rollup-after ago or more), not rolled up yet. */
uint64_t ch_rollup_pending(struct ch *ch);
/* Hosts known (asked of ClickHouse at most every few seconds; 0 when it does not answer). */
uint64_t ch_nr_hosts(struct ch *ch);
/* false (with a reason) when no server answers, or the last insert failed. */
bool ch_healthy(struct ch *ch, char *why, size_t size);

/*
 * Run one SELECT (the table names as ch_table() gives them) and put its
 * rows, TabSeparated, in out. LRU_EIO when no server answered, LRU_EPROTO
 * with ClickHouse's message for a query it refused.
 */
enum lru_err ch_select(struct ch *ch, const char *sql, struct lru_buf *out,
		       struct lru_error *err);
/* The table to read: "DB.hosts_latest" with a cluster (Distributed), else "DB.hosts_latest_local". */
const char *ch_table(const struct ch *ch, const char *name, char *buf, size_t size);

/*
 * node_state (schema version 9): a row per host, the nodes of its latest
 * snapshot as arrays (node, node_mem_total, node_mem_free, node_total,
 * node_cold_1 .. node_cold_8, node_warnings); "FROM DB.node_state FINAL
 * ARRAY JOIN node, ..." reads a row per host and node. node_cold_K is the
 * cold bytes at the K-th threshold (lru_fleet's, K = 1 .. 8). Join only
 * the arrays a query reads: FINAL carries every column read through its
 * merge.
 */
#define CH_NODE_COLD_COLS "node_cold_1, node_cold_2, node_cold_3, node_cold_4, node_cold_5, " \
	"node_cold_6, node_cold_7, node_cold_8"
/* the hour (since the epoch) of taken_ms, as Int64 like the rollups' (wss_samples' hour) */
#define CH_HOUR_OF_TAKEN "toInt64(intDiv(taken_ms, 3600000))"
/*
 * The UTC day (YYYYMMDD) of a raw row (taken_ms), and of a rollup row (hour):
 * the partition keys, by which raw days are rolled up and dropped.
 */
#define CH_DAY_OF_TAKEN "toYYYYMMDD(toDateTime(intDiv(taken_ms, 1000), 'UTC'))"
#define CH_DAY_OF_HOUR "toYYYYMMDD(toDateTime(hour * 3600, 'UTC'))"
/*
 * Select-list items over a UInt64 column "hot": "bucket", the index
 * lru_hist_bucket_of(hot) gives (16 buckets per power of two), so that
 * counts and maxima grouped by it are lru_hist's own buckets.
 */
#define CH_HOT_BUCKET "toUInt32(floor(log2(hot))) AS m0, m0 - (bitShiftRight(hot, m0) = 0) + " \
	"(bitShiftRight(hot, m0 + 1) > 0) AS msb, toUInt32(if(hot < 16, toInt64(hot), 16 + (msb - 4) * 16 " \
	"+ bitAnd(bitShiftRight(hot, msb - 4), 15))) AS bucket"

/*
 * The hours from from_ms on that have rollups (wss_hourly(_n)), sorted, each
 * once: into rolled those whose raw samples were rolled up (by the
 * maintenance thread, soon after the hour ended: clickhouse-rollup-after;
 * or, by versions 2 and 3, a whole day at raw-retention), into marked those
 * and the hours that got samples as rollups directly (arrivals past
 * raw-retention, see put_late in ch.c; imports). A query counts the raw samples of the hours
 * not rolled up and the rollups of the marked hours: no sample is counted
 * twice. (hours_release frees them.)
 */
/* the part of a rolled-up hour's rollup rows and mark (rows written directly have others) */
#define CH_ROLL_PART 1

/*
 * The (hour, path) pairs of where (SQL over hour and path) with late raw
 * samples not rolled up yet (schema version 6, see tables_v6 in ch.c): a
 * pair is dirty until a clean mark is more than a third of
 * clickhouse-rollup-after newer than its newest dirty mark. A query reads a
 * dirty pair's raw samples in wss_samples and not its CH_ROLL_PART rollup
 * rows. The pairs are read once on the server the front-end asks, as a
 * literal set appended to b: "((-1, ''), (HOUR, 'PATH'), ...)" (the first
 * matches nothing: a set of one would read as a tuple). A query takes the
 * pairs so, not as a subquery of the marks: a subquery is run by each
 * shard's server apart, at its own moment and by its own replica of the
 * marks, and a pair's rollup rows and raw samples lie on different shards
 * (rollups by path, samples by host): a pair one shard read dirty and
 * another clean counted its late samples twice, or not at all, until every
 * server saw the same marks (seen as a roll-up wrote its clean marks).
 * LRU_EIO when no server answered.
 */
enum lru_err ch_dirty_pairs(struct ch *ch, const char *where, struct lru_buf *b,
			    struct lru_error *err);
enum lru_err ch_rolled_hours(struct ch *ch, int64_t from_ms, struct hours *rolled,
			     struct hours *marked, struct lru_error *err);

/*
 * Importing another store's hourly rollups (lrugen-store --import-sqlite):
 * ch_import_rollup buffers the rows of one (c's path_id is unused), written
 * a few MiB at a time and by ch_import_flush; ch_import_free when done.
 * Imported again, the rows replace themselves (one part for every import).
 */
struct ch_import;

enum lru_err ch_import_rollup(struct ch *ch, struct ch_import **imp, const char *path,
			      const struct rollup_cell *c, struct lru_error *err);
enum lru_err ch_import_flush(struct ch *ch, struct ch_import **imp, struct lru_error *err);
void ch_import_free(struct ch_import *imp);

/* Rows of a TabSeparated answer, read in place (the buffer is modified). */
#define CH_MAX_FIELDS 48
struct ch_rows {
	char *p, *end;
	char *f[CH_MAX_FIELDS];
	size_t len[CH_MAX_FIELDS];
	size_t nf;
};

void ch_rows_init(struct ch_rows *r, struct lru_buf *tsv);
/* 1: the next row's fields are in f/len (unescaped, NUL-terminated); 0: no more. */
int ch_rows_next(struct ch_rows *r);

/* Append s as a ClickHouse string literal ('...', escaped) to b. */
enum lru_err ch_quote(struct lru_buf *b, const char *s, size_t n, struct lru_error *err);

#endif
