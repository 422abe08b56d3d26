/* Rollups are hourly, retention counts UTC days: the lengths in ms. */
#define HOUR_MS ((int64_t)3600000)
#define DAY_MS ((int64_t)86400000)

/*
 * db.h - the store's sqlite database: one writer thread with group commit,
 * a pool of read connections, hourly working-set rollups, retention.
 *
 * Writing. HTTP threads decode a request, derive what the rows need
 * (ingest_job_prepare: cold bytes of every lruvec at the fixed thresholds,
 * host and node totals) and db_submit() the job. The one writer thread takes
 * every queued job (up to batch-max snapshots), writes them in ONE
 * transaction (each job in a savepoint, so one job's failure does not fail
 * the others), commits, and only then calls each job's done() callback: an
 * acknowledgement always follows a commit. A snapshot already stored (same
 * host, boot id and sequence number) counts as a duplicate and is not
 * written again.
 *
 * Durability. The database is in WAL mode. With sync=full (the default)
 * every commit fsyncs the WAL: an acknowledged snapshot survives a crash of
 * the machine. With sync=normal a commit has written the WAL with write(2)
 * but not fsynced it: the data is in the kernel's page cache, so it
 * survives kill -9 or a crash of the store, but not a power loss or kernel
 * crash, which may lose the last commits (never corrupt the database).
 *
 * Rollups. Each accepted snapshot gives one working-set sample per memcg
 * path (hot bytes summed over nodes, at each fixed threshold) for the hour
 * it was taken in. Samples gather in memory (struct rollup_cell) and are
 * merged into wss_hourly every rollup-flush, together with meta
 * 'rollup_snap_id', the last snapshot counted, in one transaction. After a
 * crash the samples of later snapshots are recomputed from their raw rows at
 * start, so a snapshot is counted exactly once. Raw snapshots are deleted
 * after raw-retention, but never before they are counted. A sample whose
 * lruvecs carried accuracy warnings (lru_warn.h: its hot bytes are a lower
 * bound) is counted per warning too, in memory and in wss_hourly.warnings;
 * the raw rows keep each lruvec's warnings, so a recount finds them again.
 */
#ifndef STORE_DB_H
#define STORE_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "lru_fleet.h"
#include "lru_model.h"
#include "metrics.h"

struct store_db;

/* One snapshot of a job and what its rows need (derived in the HTTP thread). */
struct ingest_snap {
	const struct lru_snapshot *snap;
	struct lru_fleet_rows rows;
};

struct ingest_job {
	struct lru_snapshot *snaps;		/* owned (lru_pb_free_snapshots) */
	size_t n;
	struct ingest_snap *items;		/* owned */
	/* set by the writer before done() */
	size_t accepted, duplicates;
	int status;				/* 0 committed; 500 write failed; 503 closing */
	/* called by the writer thread after the job's transaction ended */
	void (*done)(struct ingest_job *job);
	void *ctx;
	struct ingest_job *next;
	int64_t queued_ms;			/* db_submit's monotonic clock */
};

/*
 * Check the decoded snapshots of job against lru_bounds.h's table (a read
 * time at most max_skew_ms ahead of now_ms among them) and derive their
 * rows' data. LRU_ERANGE or LRU_EPROTO with a message for the client
 * ("snapshot I: ...") on invalid input, LRU_ENOMEM.
 */
enum lru_err ingest_job_prepare(struct ingest_job *job, int64_t now_ms, uint64_t max_skew_ms,
				struct lru_error *err);
/* Free everything the job owns, and the job. */
void ingest_job_free(struct ingest_job *job);

/*
 * Open (create, migrate) the database of cfg. With migrate_only, return
 * after the schema is current without starting the writer.
 */
int db_open(struct store_db **out, const struct store_config *cfg, struct metrics *m,
	    bool migrate_only, char *errbuf, size_t size);
/*
 * Refuse new jobs (db_submit fails), finish every queued one (done() is
 * called for each), flush rollups and stop the writer thread. Readers go on.
 */
void db_stop_writer(struct store_db *db);
/* Stop the writer if running, close every connection, free db. */
void db_close(struct store_db *db);

/* Queue a job for the writer: 0, or -1 when the queue is full or closing. */
int db_submit(struct store_db *db, struct ingest_job *job);

uint64_t db_queue_snapshots(struct store_db *db);
uint64_t db_nr_hosts(struct store_db *db);
/* false (with a reason) once the writer has given up (the disk failed). */
bool db_healthy(struct store_db *db, char *why, size_t size);

/* ---- reading ---------------------------------------------------------------- */

#define DB_READER_STMTS 64

struct db_reader {
	sqlite3 *db;
	sqlite3_stmt *st[DB_READER_STMTS];
	struct db_reader *next;
};

/* A read connection of the pool (created on demand), or NULL with errbuf. */
/*
 * The time (ms, this clock) a read that starts now is complete for: every
 * snapshot stored with an ingest time at or after it is either visible to
 * that read or committed after it. The ingest time of the batch being
 * written, if any, or now (both under the queue's lock, so that a batch
 * started after the call has an ingest time at or after its answer).
 */
int64_t db_as_of_ms(struct store_db *db);

struct db_reader *db_reader_get(struct store_db *db, char *errbuf, size_t size);
void db_reader_put(struct store_db *db, struct db_reader *r);
/*
 * The prepared statement slot id of r (id < DB_READER_STMTS), prepared from
 * sql on first use and reset for reuse; NULL on a prepare error.
 */
sqlite3_stmt *db_stmt(struct db_reader *r, unsigned id, const char *sql);

/* Working-set samples of one path and hour that wss_hourly does not hold yet. */
struct rollup_cell {
	uint64_t path_id;
	int64_t hour;		/* ms / 3600000 */
	uint64_t samples;
	struct lru_hist h[LRU_FLEET_NR_THRESHOLDS];
	struct lru_fleet_warn_counts warn;	/* samples per lruvec warning */
};

/*
 * Begin a read transaction on r that is consistent with the rollup cells
 * not yet flushed, and show each of those cells to visit() (under a lock:
 * copy what is needed, quickly). The caller reads wss_hourly, then ends the
 * transaction with db_end_read().
 */
int db_begin_read_with_rollups(struct store_db *db, struct db_reader *r,
			       void (*visit)(void *arg, const struct rollup_cell *c), void *arg);
void db_end_read(struct db_reader *r);

#endif
