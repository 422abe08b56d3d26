/* import.c - lrugen-store --import-sqlite: a sqlite store's history into ClickHouse. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ch.h"
#include "db.h"
#include "import.h"
#include "log.h"
#include "lru_pb.h"
#include "lru_sys.h"
#include "query.h"

#define EXPORT_BATCH 256	/* snapshots a job */
#define RETRIES 30		/* a job the cluster cannot take: tries, a second apart */

struct importer {
	struct ch *ch;
	struct ch_import *imp;
	struct lru_error err;
	uint64_t rollups;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
};

static int put_rollup(void *arg, const char *path, const struct rollup_cell *c)
{
	struct importer *im = arg;

	im->rollups++;
	return ch_import_rollup(im->ch, &im->imp, path, c, &im->err) ? -1 : 0;
}

static void job_done(struct ingest_job *job)
{
	struct importer *im = job->ctx;

	pthread_mutex_lock(&im->lock);
	im->done = true;
	pthread_cond_signal(&im->cond);
	pthread_mutex_unlock(&im->lock);
}

/* Write one job through the ClickHouse writer, waiting for it; retried while the cluster says 503. */
static int write_job(struct importer *im, struct ingest_job *job, uint64_t *accepted,
		     uint64_t *duplicates, char *errbuf, size_t size)
{
	for (int attempt = 1;; attempt++) {
		im->done = false;
		job->ctx = im;
		job->done = job_done;
		job->status = 0;
		if (ch_submit(im->ch, job)) {
			snprintf(errbuf, size, "the ClickHouse writer refused the snapshots");
			return -1;
		}
		pthread_mutex_lock(&im->lock);
		while (!im->done)
			pthread_cond_wait(&im->cond, &im->lock);
		pthread_mutex_unlock(&im->lock);
		if (!job->status) {
			*accepted += job->accepted;
			*duplicates += job->duplicates;
			return 0;
		}
		if (attempt == RETRIES) {
			snprintf(errbuf, size, "ClickHouse did not take the snapshots in %d tries "
				 "(see the log); what was imported stays, run the import again", RETRIES);
			return -1;
		}
		log_warn("import: ClickHouse cannot take the snapshots now (status %d), retrying",
			 job->status);
		nanosleep(&(struct timespec){ 1, 0 }, NULL);
	}
}

static const char *no_arg(void *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return NULL;
}

/*
 * Whether file is an lrugen-store database, looked at read-only (db_open()
 * would create and migrate whatever it is given): 0, or -1 with errbuf
 * naming the file and what it is.
 */
static int check_source(const char *file, char *errbuf, size_t size)
{
	static const char *const sql =
		"SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
		"name IN ('hosts', 'snapshots', 'paths')";
	sqlite3_stmt *st = NULL;
	sqlite3 *d = NULL;
	int rc = sqlite3_open_v2(file, &d, SQLITE_OPEN_READONLY, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(d, sql, -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		rc = sqlite3_column_int(st, 0) == 3 ? SQLITE_OK : SQLITE_EMPTY;
	if (rc != SQLITE_OK)
		snprintf(errbuf, size, "--import-sqlite: '%s' is not an lrugen-store database (%s)",
			 file, rc == SQLITE_EMPTY ? "it has no hosts and snapshots tables"
			 : d ? sqlite3_errmsg(d) : "out of memory");
	sqlite3_finalize(st);
	sqlite3_close(d);
	return rc == SQLITE_OK ? 0 : -1;
}

int import_sqlite(const struct store_config *cfg, struct metrics *m, const char *file,
		  char *errbuf, size_t size)
{
	struct importer im = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	struct store_config src_cfg = *cfg;
	struct store_db *db = NULL;
	struct query q = { 0 };
	int64_t after = 0, from_ms = INT64_MAX, t0 = lru_now_ms();
	uint64_t snaps = 0, accepted = 0, duplicates = 0;
	int rc = -1;

	if (access(file, R_OK)) {
		snprintf(errbuf, size, "--import-sqlite: cannot read '%s': %s", file, strerror(errno));
		return -1;
	}
	if (check_source(file, errbuf, size))
		return -1;
	src_cfg.backend = BACKEND_SQLITE;
	src_cfg.db = (char *)file;
	if (db_open(&db, &src_cfg, m, true, errbuf, size))
		goto out;
	if (ch_open(&im.ch, cfg, m, false, errbuf, size))
		goto out;
	q = (struct query){ .db = db, .cfg = &src_cfg, .now_ms = t0, .arg = no_arg };
	if (!(q.r = db_reader_get(db, errbuf, size)))
		goto out;
	lru_error_clear(&im.err);
	if (query_export_rollups(&q, &from_ms, put_rollup, &im) ||
	    ch_import_flush(im.ch, &im.imp, &im.err)) {
		snprintf(errbuf, size, "importing the hourly rollups: %s",
			 im.err.code ? im.err.msg : q.error);
		goto out;
	}
	log_info("import: %" PRIu64 " hourly rollups of the hours before the first raw snapshot",
		 im.rollups);
	for (;;) {
		struct ingest_job *job;
		struct lru_snapshot *batch;
		struct lru_error err;
		size_t n;

		if (from_ms == INT64_MAX)
			break;	/* no raw snapshots */
		if (query_export(&q, &after, from_ms, EXPORT_BATCH, &batch, &n)) {
			snprintf(errbuf, size, "reading the raw snapshots: %s", q.error);
			goto out;
		}
		if (!n)
			break;
		if (!(job = calloc(1, sizeof(*job)))) {
			lru_pb_free_snapshots(batch, n);
			snprintf(errbuf, size, "out of memory");
			goto out;
		}
		job->snaps = batch;
		job->n = n;
		lru_error_clear(&err);
		if (ingest_job_prepare(job, lru_now_ms(), cfg->max_skew_ms, &err) ||
		    write_job(&im, job, &accepted, &duplicates, errbuf, size)) {
			if (err.code)
				snprintf(errbuf, size, "a stored snapshot does not pass: %s", err.msg);
			ingest_job_free(job);
			goto out;
		}
		ingest_job_free(job);
		snaps += n;
		if (snaps % (EXPORT_BATCH * 40) < n)
			log_info("import: %" PRIu64 " snapshots so far", snaps);
	}
	log_info("import: done in %.1f s: %" PRIu64 " hourly rollups and %" PRIu64 " raw snapshots "
		 "(%" PRIu64 " new, %" PRIu64 " there already) from %s",
		 (double)(lru_now_ms() - t0) / 1000, im.rollups, snaps, accepted, duplicates, file);
	rc = 0;
out:
	if (q.r)
		db_reader_put(db, q.r);
	ch_import_free(im.imp);
	ch_close(im.ch);
	db_close(db);
	return rc;
}
