/* db.c - schema, the writer thread with group commit, rollups, retention, readers. */
#include "db.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "log.h"
#include "lru_buf.h"
#include "lru_bounds.h"
#include "rows.h"
#include "schema.h"
#include "lru_pb.h"
#include "lru_sat.h"
#include "map.h"

#define NR_T LRU_FLEET_NR_THRESHOLDS
#define EXPIRE_CHUNK 1000		/* snapshots deleted per transaction */

enum wstmt {
	W_BEGIN, W_COMMIT, W_ROLLBACK, W_SAVEPOINT, W_RELEASE, W_ROLLBACK_TO,
	W_HOST_SELECT, W_HOST_INSERT, W_PATH_SELECT, W_PATH_INSERT,
	W_ROLLUP_SELECT, W_ROLLUP_UPSERT, W_META_GET, W_META_SET,
	W_EXPIRE_SNAPS, W_EXPIRE_ROLLUPS, W_HOST_COUNT, W_NR
};

static const char *const wsql[W_NR] = {
	[W_BEGIN] = "BEGIN IMMEDIATE",
	[W_COMMIT] = "COMMIT",
	[W_ROLLBACK] = "ROLLBACK",
	[W_SAVEPOINT] = "SAVEPOINT job",
	[W_RELEASE] = "RELEASE job",
	[W_ROLLBACK_TO] = "ROLLBACK TO job",
	[W_HOST_SELECT] = "SELECT id, snap_id, taken_ms, nr_nodes, nr_memcgs FROM hosts "
			  "WHERE name = ?1",
	[W_HOST_INSERT] = "INSERT INTO hosts(name, first_seen_ms, ingest_ms) VALUES(?1, ?2, ?2)",
	[W_PATH_SELECT] = "SELECT id FROM paths WHERE path = ?1",
	[W_PATH_INSERT] = "INSERT INTO paths(path) VALUES(?1)",
	[W_ROLLUP_SELECT] = "SELECT samples, hist, warnings FROM wss_hourly "
			    "WHERE path_id = ?1 AND hour = ?2",
	[W_ROLLUP_UPSERT] = "INSERT OR REPLACE INTO wss_hourly(path_id, hour, samples, hist, "
			    "warnings) VALUES(?1, ?2, ?3, ?4, ?5)",
	[W_META_GET] = "SELECT value FROM meta WHERE key = ?1",
	[W_META_SET] = "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)",
	[W_EXPIRE_SNAPS] = "DELETE FROM snapshots WHERE id IN (SELECT id FROM snapshots "
			   "WHERE taken_ms < ?1 AND id <= ?2 ORDER BY taken_ms LIMIT ?3)",
	[W_EXPIRE_ROLLUPS] = "DELETE FROM wss_hourly WHERE hour < ?1",
	[W_HOST_COUNT] = "SELECT count(*) FROM hosts",
};

/* one working-set sample: hot bytes of one path at each threshold, and their warnings */
struct sample {
	uint64_t path_id;
	int64_t hour;
	uint64_t hot[NR_T];
	uint32_t warnings;	/* LRU_WARN_*: these hot bytes are lower bounds */
};

struct samples {
	struct sample *v;
	size_t n, alloc;
};

struct store_db {
	const struct store_config *cfg;
	struct metrics *m;
	sqlite3 *w;			/* the writer's connection */
	sqlite3_stmt *st[W_NR];
	struct rows_writer rows;	/* the row statements (rows.h) */
	struct map hosts, paths;	/* writer caches: name -> rows_host, path -> id */
	int64_t last_snap_id;		/* largest committed snapshot id */
	uint64_t *path_ids;
	size_t path_ids_alloc;
	struct samples pending;		/* samples of the transaction being written */

	pthread_mutex_t qlock;
	int64_t writing_since_ms;	/* ingest time of the batch being written, 0 (qlock) */
	pthread_cond_t qcond;
	struct ingest_job *head, *tail;
	uint64_t queued;
	uint64_t last_taken;		/* snapshots of the last commit (writer) */
	int64_t last_submit_ms;		/* lru_mono_ms() of the last db_submit, 0: none yet */
	double gap_ms;			/* moving average of the time between submits */
	bool closing, started;
	atomic_bool failed;
	char fail_msg[256];
	pthread_t writer;

	pthread_mutex_t rlock;		/* cells */
	struct map cells;		/* (path_id, hour) -> struct rollup_cell */
	int64_t next_flush_ms, next_maintenance_ms;

	/* checkpoints run in their own thread, off the writer's path */
	pthread_t checkpointer;
	bool ckpt_started, ckpt_stop;
	int ckpt_pages;			/* WAL pages at the last commit */
	pthread_mutex_t clock;
	pthread_cond_t ccond;

	pthread_mutex_t plock;		/* readers */
	struct db_reader *readers;
	atomic_uint_fast64_t nr_hosts;
};

static int configure(sqlite3 *d, const struct store_config *cfg, bool writer, char *errbuf,
		     size_t size);

/* ---- deriving rows (HTTP threads) --------------------------------------------- */

enum lru_err ingest_job_prepare(struct ingest_job *job, int64_t now_ms, uint64_t max_skew_ms,
				struct lru_error *err)
{
	job->items = calloc(job->n ? job->n : 1, sizeof(*job->items));
	if (!job->items)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	for (size_t s = 0; s < job->n; s++) {
		const struct lru_snapshot *snap = &job->snaps[s];
		struct ingest_snap *it = &job->items[s];
		struct lru_error why;

		it->snap = snap;
		if (lru_snapshot_check(snap, now_ms, max_skew_ms, &why))
			return lru_fail(err, why.code, "snapshot %zu: %s", s, why.msg);
		if (lru_fleet_rows_build(snap, &it->rows, err))
			return err ? err->code : LRU_ENOMEM;
	}
	return LRU_OK;
}

void ingest_job_free(struct ingest_job *job)
{
	if (!job)
		return;
	if (job->items)
		for (size_t s = 0; s < job->n; s++)
			lru_fleet_rows_release(&job->items[s].rows);
	free(job->items);
	lru_pb_free_snapshots(job->snaps, job->n);
	free(job);
}

/* ---- rollup samples ---------------------------------------------------------- */

static int samples_push(struct samples *s, uint64_t path_id, int64_t hour,
			const struct lru_fleet_cold *c)
{
	struct sample *x;

	if (s->n == s->alloc) {
		size_t alloc = s->alloc ? s->alloc * 2 : 256;
		struct sample *v = realloc(s->v, alloc * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->alloc = alloc;
	}
	x = &s->v[s->n++];
	x->path_id = path_id;
	x->hour = hour;
	for (unsigned k = 0; k < NR_T; k++)
		x->hot[k] = c->total - c->cold[k];
	x->warnings = c->warnings;
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return x->path_id < y->path_id ? -1 : x->path_id > y->path_id;
}

/*
 * The samples from first on are one snapshot's lruvecs (recounted from raw
 * rows): merge those of one path (its nodes, or a dying and a new cgroup of
 * the same name) into one, as rows_write() does at ingest.
 */
static void samples_merge_paths(struct samples *s, size_t first)
{
	size_t out = first;

	if (s->n - first < 2)	/* s->v is NULL until a sample was pushed */
		return;
	qsort(&s->v[first], s->n - first, sizeof(*s->v), cmp_sample);
	for (size_t i = first; i < s->n; i++) {
		if (out > first && s->v[out - 1].path_id == s->v[i].path_id) {
			for (unsigned k = 0; k < NR_T; k++)
				s->v[out - 1].hot[k] = lru_sat_add_u64(s->v[out - 1].hot[k],
								       s->v[i].hot[k]);
			s->v[out - 1].warnings |= s->v[i].warnings;
			continue;
		}
		s->v[out++] = s->v[i];
	}
	s->n = out;
}

static void cell_free(void *p)
{
	struct rollup_cell *c = p;

	for (unsigned k = 0; k < NR_T; k++)
		lru_hist_release(&c->h[k]);
	free(c);
}

static uint64_t cell_key(uint64_t path_id, int64_t hour)
{
	return path_id << 24 | ((uint64_t)hour & 0xffffff);
}

/* Count samples in the in-memory cells (rlock held). */
static int cells_add(struct store_db *db, const struct sample *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t key = cell_key(v[i].path_id, v[i].hour);
		struct rollup_cell *c = map_get_u64(&db->cells, key);

		if (!c) {
			c = calloc(1, sizeof(*c));
			if (!c || map_put_u64(&db->cells, key, c)) {
				free(c);
				return -1;
			}
			c->path_id = v[i].path_id;
			c->hour = v[i].hour;
		}
		c->samples++;
		lru_fleet_warn_count(&c->warn, v[i].warnings, 1);
		for (unsigned k = 0; k < NR_T; k++)
			if (lru_hist_add(&c->h[k], v[i].hot[k], 1, NULL))
				return -1;
	}
	return 0;
}

/* ---- sqlite helpers ----------------------------------------------------------- */

static int exec(sqlite3 *d, const char *sql, char *errbuf, size_t size)
{
	char *msg = NULL;

	if (sqlite3_exec(d, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	errorf(errbuf, size, "%s", msg ? msg : sqlite3_errmsg(d));
	sqlite3_free(msg);
	return -1;
}

/* Step a statement that returns no rows, then reset it; 0 or -1. */
static int run(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static sqlite3_int64 i64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (sqlite3_int64)v;
}

static int meta_get(struct store_db *db, const char *key, int64_t *v)
{
	sqlite3_stmt *st = db->st[W_META_GET];
	int rc;

	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

static int meta_set(struct store_db *db, const char *key, int64_t v)
{
	sqlite3_stmt *st = db->st[W_META_SET];

	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, v);
	return run(st);
}

/* ---- writing one snapshot ------------------------------------------------------ */

static struct rows_host *host_get(struct store_db *db, const char *name, int64_t now)
{
	struct rows_host *h = map_get_str(&db->hosts, name);
	sqlite3_stmt *st;
	int rc;

	if (h)
		return h;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	st = db->st[W_HOST_SELECT];
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		h->id = sqlite3_column_int64(st, 0);
		h->snap_id = sqlite3_column_int64(st, 1);
		h->taken_ms = sqlite3_column_type(st, 2) == SQLITE_NULL ? INT64_MIN
									: sqlite3_column_int64(st, 2);
		h->nr_nodes = sqlite3_column_int64(st, 3);
		h->nr_paths = sqlite3_column_int64(st, 4);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE) {
		st = db->st[W_HOST_INSERT];
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, now);
		if (run(st))
			rc = SQLITE_ERROR;
		h->id = sqlite3_last_insert_rowid(db->w);
		h->taken_ms = INT64_MIN;
		atomic_fetch_add(&db->nr_hosts, 1);
	} else if (rc != SQLITE_ROW) {
		rc = SQLITE_ERROR;
	}
	if (rc == SQLITE_ERROR || map_put_str(&db->hosts, name, h)) {
		free(h);
		return NULL;
	}
	return h;
}

static int path_get(struct store_db *db, const char *path, uint64_t *id)
{
	void *v = map_get_str(&db->paths, path);
	sqlite3_stmt *st;
	int rc;

	if (v) {
		*id = (uint64_t)(uintptr_t)v;
		return 0;
	}
	st = db->st[W_PATH_SELECT];
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE) {
		st = db->st[W_PATH_INSERT];
		sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
		if (run(st))
			return -1;
		*id = (uint64_t)sqlite3_last_insert_rowid(db->w);
	} else if (rc != SQLITE_ROW) {
		return -1;
	}
	return map_put_str(&db->paths, path, (void *)(uintptr_t)*id);
}

/* Write one snapshot; *dup set when it was stored before. 0, or -1 (sqlite error). */
static int write_snapshot(struct store_db *db, const struct ingest_snap *it, int64_t now,
			  bool *dup)
{
	const struct lru_snapshot *s = it->snap;
	struct rows_host *h = host_get(db, s->host.host, now);
	struct lru_error err;
	int64_t snap_id;
	size_t i;

	*dup = false;
	if (!h)
		return -1;
	if (s->nr_memcgs > db->path_ids_alloc) {
		uint64_t *p = realloc(db->path_ids, s->nr_memcgs * sizeof(*p));

		if (!p)
			return -1;
		db->path_ids = p;
		db->path_ids_alloc = s->nr_memcgs;
	}
	for (i = 0; i < s->nr_memcgs; i++)
		if (path_get(db, s->memcgs[i].path ? s->memcgs[i].path : "", &db->path_ids[i]))
			return -1;
	if (rows_write(&db->rows, h, s, &it->rows, db->path_ids, now, &snap_id, &err))
		return -1;
	if (!snap_id) {
		*dup = true;
		return 0;
	}
	for (i = 0; i < db->rows.nr_paths; i++)
		if (samples_push(&db->pending, db->rows.paths[i].path_id, it->rows.taken_ms / HOUR_MS,
				 &db->rows.paths[i].c))
			return -1;
	if (snap_id > db->last_snap_id)
		db->last_snap_id = snap_id;
	return 0;
}

/*
 * After a rollback the caches may hold rows that no longer exist: forget
 * them, and count the hosts again (those inserted were rolled back too).
 */
static void forget_caches(struct store_db *db)
{
	sqlite3_stmt *st = db->st[W_HOST_COUNT];

	map_clear(&db->hosts, free);
	map_clear(&db->paths, NULL);
	if (sqlite3_step(st) == SQLITE_ROW)
		atomic_store(&db->nr_hosts, (uint64_t)sqlite3_column_int64(st, 0));
	sqlite3_reset(st);
}

static void writer_failed(struct store_db *db, const char *what)
{
	atomic_fetch_add(&db->m->write_errors, 1);
	log_error("%s: %s", what, sqlite3_errmsg(db->w));
}

/*
 * Write a batch of jobs in one transaction, each in a savepoint. Jobs get
 * their status; done() is the caller's business.
 */
static void write_batch(struct store_db *db, struct ingest_job *jobs, int64_t now)
{
	int64_t t0 = lru_mono_ms(), last_snap = db->last_snap_id;
	struct ingest_job *j;
	size_t good_samples = 0;

	db->pending.n = 0;
	if (run(db->st[W_BEGIN])) {
		writer_failed(db, "cannot begin a transaction");
		for (j = jobs; j; j = j->next)
			j->status = 500;
		return;
	}
	for (j = jobs; j; j = j->next) {
		size_t mark = db->pending.n;
		int64_t mark_id = db->last_snap_id;
		bool dup;
		int rc = run(db->st[W_SAVEPOINT]);

		j->accepted = j->duplicates = 0;
		j->status = 0;
		for (size_t s = 0; !rc && s < j->n; s++) {
			rc = write_snapshot(db, &j->items[s], now, &dup);
			if (!rc && dup)
				j->duplicates++;
			else if (!rc)
				j->accepted++;
		}
		if (rc) {
			writer_failed(db, "cannot write snapshots");
			run(db->st[W_ROLLBACK_TO]);
			forget_caches(db);
			db->pending.n = mark;
			db->last_snap_id = mark_id;
			j->status = 500;
		}
		run(db->st[W_RELEASE]);
	}
	good_samples = db->pending.n;
	if (run(db->st[W_COMMIT])) {
		writer_failed(db, "cannot commit");
		run(db->st[W_ROLLBACK]);
		forget_caches(db);
		db->last_snap_id = last_snap;
		for (j = jobs; j; j = j->next)
			j->status = 500;
		return;
	}
	atomic_fetch_add(&db->m->transactions, 1);
	metrics_observe(&db->m->commit, (uint64_t)(lru_mono_ms() - t0) * 1000);
	pthread_mutex_lock(&db->rlock);
	if (cells_add(db, db->pending.v, good_samples))
		log_error("out of memory counting working-set samples: the next restart recounts them");
	pthread_mutex_unlock(&db->rlock);
}

/* ---- rollups and retention (writer thread) ----------------------------------------- */

/* Merge the in-memory cells into wss_hourly in one transaction. */
static void flush_rollups(struct store_db *db)
{
	const struct map_slot *slot;
	struct lru_hist tmp[NR_T];
	struct lru_fleet_warn_counts warn;
	struct lru_buf out, wout;
	size_t pos = 0;
	int rc = 0;

	pthread_mutex_lock(&db->rlock);
	if (!db->cells.n) {
		pthread_mutex_unlock(&db->rlock);
		return;
	}
	lru_buf_init(&out);
	lru_buf_init(&wout);
	rc = run(db->st[W_BEGIN]);
	while (!rc && map_next(&db->cells, &pos, &slot)) {
		const struct rollup_cell *c = slot->val;
		sqlite3_stmt *st = db->st[W_ROLLUP_SELECT];
		uint64_t samples = c->samples;
		int step;

		for (unsigned k = 0; k < NR_T; k++) {
			lru_hist_init(&tmp[k]);
			rc |= lru_hist_merge(&tmp[k], &c->h[k], NULL) ? -1 : 0;
		}
		warn = c->warn;
		sqlite3_bind_int64(st, 1, (sqlite3_int64)c->path_id);
		sqlite3_bind_int64(st, 2, c->hour);
		step = sqlite3_step(st);
		if (step == SQLITE_ROW) {
			samples += (uint64_t)sqlite3_column_int64(st, 0);
			if (lru_hist_set_merge_blob(tmp, sqlite3_column_blob(st, 1),
						    (size_t)sqlite3_column_bytes(st, 1), NULL) ||
			    lru_fleet_warn_counts_merge_blob(&warn, sqlite3_column_blob(st, 2),
							     (size_t)sqlite3_column_bytes(st, 2), NULL))
				log_warn("a corrupt rollup of path id %" PRIu64 " hour %" PRId64
					 " was replaced", c->path_id, c->hour);
		} else if (step != SQLITE_DONE) {
			rc = -1;
		}
		sqlite3_reset(st);
		out.len = wout.len = 0;
		if (!rc && (lru_hist_set_encode(tmp, &out, NULL) ||
			    lru_fleet_warn_counts_encode(&warn, &wout, NULL)))
			rc = -1;
		for (unsigned k = 0; k < NR_T; k++)
			lru_hist_release(&tmp[k]);
		if (rc)
			break;
		st = db->st[W_ROLLUP_UPSERT];
		sqlite3_bind_int64(st, 1, (sqlite3_int64)c->path_id);
		sqlite3_bind_int64(st, 2, c->hour);
		sqlite3_bind_int64(st, 3, i64(samples));
		sqlite3_bind_blob(st, 4, out.data, (int)out.len, SQLITE_STATIC);
		if (wout.len)
			sqlite3_bind_blob(st, 5, wout.data, (int)wout.len, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 5);
		rc = run(st);
	}
	if (!rc)
		rc = meta_set(db, "rollup_snap_id", db->last_snap_id);
	if (!rc)
		rc = run(db->st[W_COMMIT]);
	if (rc) {
		writer_failed(db, "cannot write hourly rollups (kept in memory, retried)");
		run(db->st[W_ROLLBACK]);
	} else {
		map_clear(&db->cells, cell_free);
		atomic_fetch_add(&db->m->rollup_flushes, 1);
	}
	pthread_mutex_unlock(&db->rlock);
	lru_buf_release(&out);
	lru_buf_release(&wout);
}

/* Delete expired raw snapshots (counted in rollups) and rollups, a chunk at a time. */
static void expire(struct store_db *db, bool (*busy)(struct store_db *))
{
	int64_t now = lru_now_ms(), counted = 0;
	sqlite3_stmt *st;
	int changes;

	if (meta_get(db, "rollup_snap_id", &counted))
		return;
	do {
		st = db->st[W_EXPIRE_SNAPS];
		sqlite3_bind_int64(st, 1, now - (int64_t)db->cfg->raw_retention_ms);
		sqlite3_bind_int64(st, 2, counted);
		sqlite3_bind_int(st, 3, EXPIRE_CHUNK);
		if (run(st)) {
			writer_failed(db, "cannot delete expired snapshots");
			return;
		}
		changes = sqlite3_changes(db->w);
		atomic_fetch_add(&db->m->expired_snapshots, (uint64_t)changes);
	} while (changes == EXPIRE_CHUNK && !busy(db));
	st = db->st[W_EXPIRE_ROLLUPS];
	sqlite3_bind_int64(st, 1, (now - (int64_t)db->cfg->rollup_retention_ms) / HOUR_MS);
	if (run(st))
		writer_failed(db, "cannot delete expired rollups");
}

static bool queue_busy(struct store_db *db)
{
	bool busy;

	pthread_mutex_lock(&db->qlock);
	busy = db->head != NULL;
	pthread_mutex_unlock(&db->qlock);
	return busy;
}

/* ---- checkpoints ------------------------------------------------------------------------ */

#define CKPT_PAGES 8192		/* checkpoint once the WAL holds this many pages (32 MiB) */
#define CKPT_WRITER_PAGES 262144	/* the writer checkpoints itself past this (1 GiB) */

/* sqlite3_wal_hook on the writer: after each commit, wake the checkpointer when due. */
static int wal_hook(void *arg, sqlite3 *d, const char *name, int pages)
{
	struct store_db *db = arg;

	(void)name;
	pthread_mutex_lock(&db->clock);
	db->ckpt_pages = pages;
	if (pages >= CKPT_PAGES)
		pthread_cond_signal(&db->ccond);
	pthread_mutex_unlock(&db->clock);
	/* the checkpointer fell far behind a long burst: wait for it, bounding the WAL */
	if (pages >= CKPT_WRITER_PAGES)
		sqlite3_wal_checkpoint_v2(d, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;
}

/*
 * PASSIVE checkpoints from a connection of their own: the writer never waits
 * for the database file to be written and fsynced (its commits only append
 * to the WAL), and readers are never blocked.
 */
static void *checkpointer_main(void *arg)
{
	struct store_db *db = arg;
	char msg[256];
	sqlite3 *c = NULL;

	pthread_setname_np(pthread_self(), "store-ckpt");
	if (sqlite3_open_v2(db->cfg->db, &c, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) ||
	    configure(c, db->cfg, false, msg, sizeof(msg))) {
		log_error("cannot open the checkpoint connection: %s", sqlite3_errmsg(c));
		sqlite3_close(c);
		return NULL;
	}
	sqlite3_exec(c, "PRAGMA query_only = 0", NULL, NULL, NULL);
	pthread_mutex_lock(&db->clock);
	while (!db->ckpt_stop) {
		if (db->ckpt_pages < CKPT_PAGES) {
			struct timespec ts = lru_deadline(CLOCK_MONOTONIC, 1000);

			pthread_cond_timedwait(&db->ccond, &db->clock, &ts);
		}
		if (db->ckpt_stop)
			break;
		db->ckpt_pages = 0;
		pthread_mutex_unlock(&db->clock);
		if (sqlite3_wal_checkpoint_v2(c, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL) != SQLITE_OK)
			log_warn("checkpoint: %s", sqlite3_errmsg(c));
		pthread_mutex_lock(&db->clock);
	}
	pthread_mutex_unlock(&db->clock);
	sqlite3_close(c);
	return NULL;
}

/* ---- the writer thread ------------------------------------------------------------------ */

/* Wait on qcond (qlock held) for at most wait ms. */
static void timed_wait(struct store_db *db, int64_t wait)
{
	struct timespec ts = lru_deadline(CLOCK_MONOTONIC, wait);

	pthread_cond_timedwait(&db->qcond, &db->qlock, &ts);
}

static void *writer_main(void *arg)
{
	struct store_db *db = arg;

	pthread_setname_np(pthread_self(), "store-writer");
	for (;;) {
		struct ingest_job *batch = NULL, **tail = &batch, *j, *next;
		uint64_t taken = 0;
		int64_t now = lru_mono_ms(), due = db->next_flush_ms < db->next_maintenance_ms
						       ? db->next_flush_ms : db->next_maintenance_ms;
		bool closing;

		pthread_mutex_lock(&db->qlock);
		while (!db->head && !db->closing && now < due) {
			timed_wait(db, due - now);
			now = lru_mono_ms();
		}
		/*
		 * group commit: everything queued, up to batch-max snapshots. A thin
		 * commit first waits up to commit-delay from its oldest snapshot for
		 * as many as the last commit took (at least 2): hosts that trickle in
		 * then share an fsync, while clients that wait for their answer
		 * (fewer than the last commit took) do not wait for the delay. When
		 * requests come further apart than the delay, waiting would gain
		 * nothing and is skipped.
		 */
		while (db->head && !db->closing && db->gap_ms < (double)db->cfg->commit_delay_ms &&
		       db->queued < (uint64_t)(db->last_taken > 2 ? db->last_taken : 2) &&
		       db->queued < (uint64_t)db->cfg->batch_max &&
		       (now = lru_mono_ms()) < db->head->queued_ms + (int64_t)db->cfg->commit_delay_ms)
			timed_wait(db, db->head->queued_ms + (int64_t)db->cfg->commit_delay_ms - now);
		while (db->head && (!taken || taken + db->head->n <= (uint64_t)db->cfg->batch_max)) {
			j = db->head;
			db->head = j->next;
			j->next = NULL;
			*tail = j;
			tail = &j->next;
			taken += j->n;
		}
		if (!db->head)
			db->tail = NULL;
		db->queued -= taken;
		if (taken)
			db->last_taken = taken;
		closing = db->closing && !db->head;
		pthread_mutex_unlock(&db->qlock);

		if (batch) {
			/* the batch's ingest time, and until it is committed, the as-of bound */
			pthread_mutex_lock(&db->qlock);
			db->writing_since_ms = lru_now_ms();
			pthread_mutex_unlock(&db->qlock);
			write_batch(db, batch, db->writing_since_ms);
			pthread_mutex_lock(&db->qlock);
			db->writing_since_ms = 0;
			pthread_mutex_unlock(&db->qlock);
			for (j = batch; j; j = next) {
				next = j->next;
				j->next = NULL;
				atomic_fetch_add(&db->m->accepted, j->accepted);
				atomic_fetch_add(&db->m->duplicates, j->duplicates);
				j->done(j);
			}
		}
		now = lru_mono_ms();
		if (now >= db->next_flush_ms || closing) {
			flush_rollups(db);
			db->next_flush_ms = now + (int64_t)db->cfg->rollup_flush_ms;
		}
		if (now >= db->next_maintenance_ms && !closing) {
			expire(db, queue_busy);
			db->next_maintenance_ms = now + (int64_t)db->cfg->maintenance_ms;
		}
		if (closing)
			return NULL;
	}
}

int db_submit(struct store_db *db, struct ingest_job *job)
{
	int rc = 0;

	pthread_mutex_lock(&db->qlock);
	if (db->closing || (db->queued && db->queued + job->n > (uint64_t)db->cfg->queue_max)) {
		rc = -1;
	} else {
		job->next = NULL;
		job->queued_ms = lru_mono_ms();
		if (db->last_submit_ms) {
			double gap = (double)(job->queued_ms - db->last_submit_ms);

			db->gap_ms += ((gap < 60000 ? gap : 60000) - db->gap_ms) / 8;
		}
		db->last_submit_ms = job->queued_ms;
		if (db->tail)
			db->tail->next = job;
		else
			db->head = job;
		db->tail = job;
		db->queued += job->n;
		pthread_cond_signal(&db->qcond);
	}
	pthread_mutex_unlock(&db->qlock);
	return rc;
}

uint64_t db_queue_snapshots(struct store_db *db)
{
	uint64_t n;

	pthread_mutex_lock(&db->qlock);
	n = db->queued;
	pthread_mutex_unlock(&db->qlock);
	return n;
}

uint64_t db_nr_hosts(struct store_db *db)
{
	return atomic_load(&db->nr_hosts);
}

bool db_healthy(struct store_db *db, char *why, size_t size)
{
	sqlite3 *probe = NULL;
	bool ok = sqlite3_open_v2(db->cfg->db, &probe, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK;

	if (!ok)
		snprintf(why, size, "cannot open the database: %s", sqlite3_errmsg(probe));
	sqlite3_close(probe);
	return ok;
}

/* ---- opening ---------------------------------------------------------------------------- */

static int configure(sqlite3 *d, const struct store_config *cfg, bool writer, char *errbuf,
		     size_t size)
{
	char sql[256];

	sqlite3_busy_timeout(d, 10000);
	if (writer) {
		snprintf(sql, sizeof(sql),
			 "PRAGMA journal_mode = WAL; PRAGMA synchronous = %s; "
			 "PRAGMA cache_size = -%" PRIu64 "; PRAGMA temp_store = MEMORY; "
			 "PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864;",
			 cfg->sync == SYNC_FULL ? "FULL" : "NORMAL", cfg->cache_bytes / 1024);
	} else {
		snprintf(sql, sizeof(sql), "PRAGMA query_only = 1; PRAGMA cache_size = -65536; "
			 "PRAGMA mmap_size = 1073741824; PRAGMA temp_store = MEMORY;");
	}
	return exec(d, sql, errbuf, size);
}

static int migrate(sqlite3 *d, const char *file, char *errbuf, size_t size)
{
	static const char *const migrations[] = SCHEMA_MIGRATIONS;
	sqlite3_stmt *st;
	int version = -1;
	char sql[64], msg[256];

	if (sqlite3_prepare_v2(d, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version < 0)
		return errorf(errbuf, size, "'%s' is not a database: %s", file, sqlite3_errmsg(d));
	if (version > SCHEMA_NR_MIGRATIONS)
		return errorf(errbuf, size, "'%s' has schema version %d, newer than this "
			    "lrugen-store knows (%d): upgrade lrugen-store", file, version,
			    SCHEMA_NR_MIGRATIONS);
	for (; version < SCHEMA_NR_MIGRATIONS; version++) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version + 1);
		if (exec(d, "BEGIN IMMEDIATE", msg, sizeof(msg)) ||
		    exec(d, migrations[version], msg, sizeof(msg)) ||
		    exec(d, sql, msg, sizeof(msg)) || exec(d, "COMMIT", msg, sizeof(msg))) {
			exec(d, "ROLLBACK", sql, sizeof(sql));
			return errorf(errbuf, size, "cannot migrate '%s' to schema version %d: %s", file,
				    version + 1, msg);
		}
		log_info("database '%s' migrated to schema version %d", file, version + 1);
	}
	return 0;
}

/* Recount the samples of snapshots committed after the last rollup flush. */
static int recover_rollups(struct store_db *db, char *errbuf, size_t size)
{
	sqlite3_stmt *st;
	int64_t counted = 0, n = 0;
	struct lru_error err;
	int rc;

	if (meta_get(db, "rollup_snap_id", &counted))
		return errorf(errbuf, size, "cannot read the rollup state: %s", sqlite3_errmsg(db->w));
	if (sqlite3_prepare_v2(db->w, "SELECT id, taken_ms, page_size, data FROM snapshots "
			       "WHERE id > ?1 ORDER BY id", -1, &st, NULL))
		return errorf(errbuf, size, "%s", sqlite3_errmsg(db->w));
	sqlite3_bind_int64(st, 1, counted);
	db->pending.n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lru_fleet_reader r;
		struct lru_fleet_lruvec lv;
		int64_t taken = sqlite3_column_int64(st, 1);
		size_t first = db->pending.n;
		int more;

		if (lru_fleet_unpack_begin(&r, sqlite3_column_blob(st, 3),
					   (size_t)sqlite3_column_bytes(st, 3), taken, NULL, 0, &err)) {
			log_warn("snapshot %lld: %s", sqlite3_column_int64(st, 0), err.msg);
			continue;
		}
		while ((more = lru_fleet_unpack_next(&r, &lv, &err)) > 0) {
			struct lru_fleet_cold c;

			lru_fleet_lruvec_cold(&lv.lv, (uint32_t)sqlite3_column_int(st, 2), &c);
			if (samples_push(&db->pending, lv.path_id, taken / HOUR_MS, &c))
				break;
		}
		if (more < 0)
			log_warn("snapshot %lld: %s", sqlite3_column_int64(st, 0), err.msg);
		samples_merge_paths(&db->pending, first);
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return errorf(errbuf, size, "cannot read snapshots: %s", sqlite3_errmsg(db->w));
	if (cells_add(db, db->pending.v, db->pending.n))
		return errorf(errbuf, size, "out of memory");
	db->pending.n = 0;
	if (n)
		log_info("recounted the working-set samples of %" PRId64 " snapshots not yet in "
			 "hourly rollups", n);
	return 0;
}

/* " (no directory 'DIR': create it)" when file's directory is missing, else "" */
static const char *missing_dir_hint(const char *file, char *buf, size_t size)
{
	const char *slash = strrchr(file, '/');
	struct stat st;
	char dir[4096];

	buf[0] = '\0';
	if (!slash || slash == file || (size_t)(slash - file) >= sizeof(dir))
		return buf;
	memcpy(dir, file, (size_t)(slash - file));
	dir[slash - file] = '\0';
	if (stat(dir, &st) && errno == ENOENT)
		snprintf(buf, size, " (no directory '%s': create it)", dir);
	return buf;
}

static int open_conn(const char *file, sqlite3 **out, int flags, char *errbuf, size_t size)
{
	if (sqlite3_open_v2(file, out, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		char hint[4200];

		errorf(errbuf, size, "cannot open database '%s': %s%s", file,
		       *out ? sqlite3_errmsg(*out) : "out of memory",
		       missing_dir_hint(file, hint, sizeof(hint)));
		sqlite3_close(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int db_open(struct store_db **out, const struct store_config *cfg, struct metrics *m,
	    bool migrate_only, char *errbuf, size_t size)
{
	struct store_db *db = calloc(1, sizeof(*db));
	sqlite3_stmt *st;

	*out = NULL;
	if (!db)
		return errorf(errbuf, size, "out of memory");
	db->cfg = cfg;
	db->m = m;
	map_init(&db->hosts);
	map_init(&db->paths);
	map_init(&db->cells);
	pthread_mutex_init(&db->qlock, NULL);
	pthread_mutex_init(&db->rlock, NULL);
	pthread_mutex_init(&db->plock, NULL);
	pthread_mutex_init(&db->clock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&db->qcond, &ca);
		pthread_cond_init(&db->ccond, &ca);
		pthread_condattr_destroy(&ca);
	}
	*out = db;
	if (open_conn(cfg->db, &db->w, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, errbuf, size) ||
	    configure(db->w, cfg, true, errbuf, size) || migrate(db->w, cfg->db, errbuf, size))
		return -1;
	if (migrate_only)
		return 0;
	for (int i = 0; i < W_NR; i++)
		if (sqlite3_prepare_v3(db->w, wsql[i], -1, SQLITE_PREPARE_PERSISTENT, &db->st[i], NULL))
			return errorf(errbuf, size, "cannot prepare a statement: %s",
				    sqlite3_errmsg(db->w));
	{
		struct lru_error err;

		if (rows_prepare(&db->rows, db->w, &err))
			return errorf(errbuf, size, "%s", err.msg);
	}
	if (sqlite3_prepare_v2(db->w, "SELECT (SELECT count(*) FROM hosts), "
			       "(SELECT coalesce(max(id), 0) FROM snapshots)", -1, &st, NULL) ||
	    sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return errorf(errbuf, size, "cannot read the database: %s", sqlite3_errmsg(db->w));
	}
	atomic_store(&db->nr_hosts, (uint64_t)sqlite3_column_int64(st, 0));
	db->last_snap_id = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	if (recover_rollups(db, errbuf, size))
		return -1;
	db->next_flush_ms = lru_mono_ms() + (int64_t)cfg->rollup_flush_ms;
	db->next_maintenance_ms = lru_mono_ms();
	sqlite3_wal_hook(db->w, wal_hook, db);
	if (pthread_create(&db->checkpointer, NULL, checkpointer_main, db))
		return errorf(errbuf, size, "cannot start the checkpoint thread");
	db->ckpt_started = true;
	if (pthread_create(&db->writer, NULL, writer_main, db))
		return errorf(errbuf, size, "cannot start the writer thread");
	db->started = true;
	return 0;
}

void db_stop_writer(struct store_db *db)
{
	if (!db || !db->started)
		return;
	pthread_mutex_lock(&db->qlock);
	db->closing = true;
	pthread_cond_signal(&db->qcond);
	pthread_mutex_unlock(&db->qlock);
	pthread_join(db->writer, NULL);
	db->started = false;
}

void db_close(struct store_db *db)
{
	struct db_reader *r, *next;

	if (!db)
		return;
	db_stop_writer(db);
	if (db->ckpt_started) {
		pthread_mutex_lock(&db->clock);
		db->ckpt_stop = true;
		pthread_cond_signal(&db->ccond);
		pthread_mutex_unlock(&db->clock);
		pthread_join(db->checkpointer, NULL);
	}
	for (int i = 0; i < W_NR; i++)
		sqlite3_finalize(db->st[i]);
	rows_release(&db->rows);
	for (r = db->readers; r; r = next) {
		next = r->next;
		for (int i = 0; i < DB_READER_STMTS; i++)
			sqlite3_finalize(r->st[i]);
		sqlite3_close(r->db);
		free(r);
	}
	if (db->w) {
		char msg[128];

		exec(db->w, "PRAGMA wal_checkpoint(TRUNCATE)", msg, sizeof(msg));
		sqlite3_close(db->w);
	}
	map_release(&db->hosts, free);
	map_release(&db->paths, NULL);
	map_release(&db->cells, cell_free);
	free(db->path_ids);
	free(db->pending.v);
	pthread_mutex_destroy(&db->qlock);
	pthread_mutex_destroy(&db->rlock);
	pthread_mutex_destroy(&db->plock);
	pthread_mutex_destroy(&db->clock);
	pthread_cond_destroy(&db->qcond);
	pthread_cond_destroy(&db->ccond);
	free(db);
}

/* ---- readers ------------------------------------------------------------------------------ */

int64_t db_as_of_ms(struct store_db *db)
{
	int64_t now, since;

	pthread_mutex_lock(&db->qlock);
	now = lru_now_ms();
	since = db->writing_since_ms;
	pthread_mutex_unlock(&db->qlock);
	return since && since < now ? since : now;
}

struct db_reader *db_reader_get(struct store_db *db, char *errbuf, size_t size)
{
	struct db_reader *r;

	pthread_mutex_lock(&db->plock);
	r = db->readers;
	if (r)
		db->readers = r->next;
	pthread_mutex_unlock(&db->plock);
	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r) {
		errorf(errbuf, size, "out of memory");
		return NULL;
	}
	if (open_conn(db->cfg->db, &r->db, SQLITE_OPEN_READWRITE, errbuf, size) ||
	    configure(r->db, db->cfg, false, errbuf, size)) {
		sqlite3_close(r->db);
		free(r);
		return NULL;
	}
	return r;
}

void db_reader_put(struct store_db *db, struct db_reader *r)
{
	if (!r)
		return;
	/* a statement left on a row would keep its read transaction (an old snapshot) open */
	for (int i = 0; i < DB_READER_STMTS; i++)
		if (r->st[i])
			sqlite3_reset(r->st[i]);
	if (!sqlite3_get_autocommit(r->db))
		sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
	pthread_mutex_lock(&db->plock);
	r->next = db->readers;
	db->readers = r;
	pthread_mutex_unlock(&db->plock);
}

sqlite3_stmt *db_stmt(struct db_reader *r, unsigned id, const char *sql)
{
	if (id >= DB_READER_STMTS)
		return NULL;
	if (!r->st[id]) {
		if (sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &r->st[id], NULL)) {
			log_error("cannot prepare a query: %s", sqlite3_errmsg(r->db));
			return NULL;
		}
	} else {
		sqlite3_reset(r->st[id]);
		sqlite3_clear_bindings(r->st[id]);
	}
	return r->st[id];
}

int db_begin_read_with_rollups(struct store_db *db, struct db_reader *r,
			       void (*visit)(void *arg, const struct rollup_cell *c), void *arg)
{
	const struct map_slot *slot;
	size_t pos = 0;
	int rc;

	pthread_mutex_lock(&db->rlock);
	/* the first read pins the snapshot the transaction sees */
	rc = sqlite3_exec(r->db, "BEGIN; SELECT value FROM meta LIMIT 1;", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		while (map_next(&db->cells, &pos, &slot))
			visit(arg, slot->val);
	pthread_mutex_unlock(&db->rlock);
	return rc == SQLITE_OK ? 0 : -1;
}

void db_end_read(struct db_reader *r)
{
	sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL);
}
