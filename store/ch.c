/* ch.c - the ClickHouse backend: schema, the writer thread, SELECTs as TabSeparated rows. */
#include "ch.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "lru_client.h"
#include "lru_fleet.h"
#include "lru_hash.h"
#include "lru_model.h"

#define SQL_MAX 2048
#define CH_MAX_WRITERS 16

struct ch {
	const struct store_config *cfg;
	struct metrics *m;
	char *password;
	char user_hdr[256], *key_hdr;		/* X-ClickHouse-User / -Key lines */
	char on_cluster[160];			/* " ON CLUSTER name" or "" */
	char quorum[24];			/* clickhouse-insert-quorum, as a setting */
	char roll_delay[24];			/* a roll-up's max_replica_delay (s), as a setting */
	char roll_spill[24], roll_memory[24];	/* clickhouse-rollup-spill, -memory: "" none */
	char roll_two_level[24];		/* half of clickhouse-rollup-spill */
	atomic_uint next_url;			/* where the next request starts */

	pthread_mutex_t lock;			/* guards the queue and the health */
	pthread_cond_t wake, maint_wake;
	struct ingest_job *head, **tail;
	uint64_t queued;
	int64_t round_at_ms;			/* when the last round of INSERTs began */
	int64_t queued_at_ms;			/* when the last job was queued */
	bool stopping, started, maint_started;
	pthread_t writer[CH_MAX_WRITERS], maint;
	int nr_writers;
	char why[256];				/* the last insert's failure, "" healthy */

	pthread_mutex_t hosts_lock;
	int64_t hosts_at_ms;
	uint64_t hosts;

	_Atomic int64_t roll_next;		/* maintenance: the next hour to roll up; -1 unknown */
	atomic_bool outdated;			/* the database was migrated past SCHEMA_VERSION */

	/* maintenance only: the partitions whose DROP was sent lately (ch_expire) */
	struct ch_drop { char key[48]; int64_t at_ms; } drops[16];
};

/* ---- requests ---------------------------------------------------------------------- */

static void wipe_free(char *s)
{
	if (s)
		memset(s, 0, strlen(s));
	free(s);
}

static bool stopping(struct ch *ch);
#define STOPPED "stopped: lrugen-store is shutting down"

/* true in the maintenance thread: its requests are cut short when the store stops */
static _Thread_local bool in_maint;

/* lru_client's abort hook: a roll-up or expiry in flight ends at once on SIGTERM (idempotent) */
static bool maint_abort(void *arg)
{
	return in_maint && stopping(arg);
}

/*
 * POST sql (in the body, or in the query parameter when data is the body)
 * to the servers in turn; settings are "name", "value" pairs. The answer
 * in out (may be NULL).
 */
static enum lru_err post_for(struct ch *ch, size_t start, size_t tries, long timeout_ms,
			     const char *sql, const void *data, size_t len,
			     const char *const *settings, struct lru_buf *out, struct lru_error *err)
{
	const struct lru_set_list *urls = &ch->cfg->ch_urls;
	const char *hdrs[] = { ch->user_hdr, ch->key_hdr, NULL };
	struct lru_client_param params[8];
	size_t np = 0;
	char last[320] = "";

	if (data)
		params[np++] = (struct lru_client_param){ "query", sql };
	for (size_t i = 0; settings && settings[i] && np < 8; i += 2)
		params[np++] = (struct lru_client_param){ settings[i], settings[i + 1] };
	for (size_t k = 0; k < tries && k < urls->n; k++) {
		size_t u = (start + k) % urls->n;
		const struct lru_client_opts o = {
			.url = urls->v[u], .agent = "lrugen-store/" LRUGEN_VERSION,
			.connect_timeout_ms = (long)ch->cfg->ch_connect_timeout_ms,
			.timeout_ms = timeout_ms,
			.abort = maint_abort, .abort_arg = ch,
		};
		const struct lru_client_req rq = {
			.route = LRU_ROUTE_NR, .path = "/", .headers = hdrs,
			.params = params, .nr_params = np,
			.body = data ? data : sql, .len = data ? len : strlen(sql),
			.content_type = "text/plain",
		};
		struct lru_client *c;
		struct lru_client_resp resp;
		enum lru_err rc;

		if (maint_abort(ch))
			return lru_fail(err, LRU_EIO, STOPPED);
		rc = lru_client_new(&o, &c, err);

		if (rc)
			return rc;
		rc = lru_client_do(c, &rq, &resp, err);
		lru_client_free(c);
		if (rc == LRU_ENOMEM) {
			lru_client_resp_release(&resp);
			return rc;
		}
		if (!rc && resp.status == 200) {
			if (tries > 1)
				atomic_store(&ch->next_url, (unsigned)u);
			if (out) {
				lru_buf_release(out);
				*out = resp.body;
			} else {
				lru_client_resp_release(&resp);
			}
			return LRU_OK;
		}
		if (!rc) {
			/* ClickHouse's own error ("Code: 62, e.displayText() = ...") is final */
			const char *body = (const char *)resp.body.data;
			const char *what = strstr(body, ", e.what() = ");
			size_t n = what ? (size_t)(what - body) : strcspn(body, "\n");
			bool final = !strncmp(body, "Code:", 5) || resp.status < 500;

			snprintf(last, sizeof(last), "%s answered %ld: %.*s", urls->v[u], resp.status,
				 (int)(n < 240 ? n : 240), body);
			lru_client_resp_release(&resp);
			if (final)
				return lru_fail(err, LRU_EPROTO, "ClickHouse at %s", last);
			continue;
		}
		snprintf(last, sizeof(last), "%s: %s", urls->v[u], resp.detail);
		lru_client_resp_release(&resp);
	}
	return lru_fail(err, LRU_EIO, "no ClickHouse server answered (last: %s)", last);
}

/* post_for() within clickhouse-timeout */
static enum lru_err post(struct ch *ch, size_t start, size_t tries, const char *sql,
			 const void *data, size_t len, const char *const *settings,
			 struct lru_buf *out, struct lru_error *err)
{
	return post_for(ch, start, tries, (long)ch->cfg->ch_timeout_ms, sql, data, len, settings,
			out, err);
}

/*
 * A statement ON CLUSTER is a task in ZooKeeper's DDL queue: 18.16's servers
 * run it when its watch fires, or else at their next pass over the queue (a
 * minute), and answer with an error of their own after
 * distributed_ddl_task_timeout (180 s). Waited for that long, not
 * clickhouse-timeout: cut short, it would be sent again to another server
 * (a second task in the queue) while the first is still to run.
 */
#define DDL_TIMEOUT_MS (200 * 1000L)

static enum lru_err post_ddl(struct ch *ch, const char *sql, const char *const *settings,
			     struct lru_buf *out, struct lru_error *err)
{
	long t = (long)ch->cfg->ch_timeout_ms;

	if (ch->on_cluster[0] && t < DDL_TIMEOUT_MS)
		t = DDL_TIMEOUT_MS;
	return post_for(ch, atomic_load(&ch->next_url), ch->cfg->ch_urls.n, t, sql, NULL, 0,
			settings, out, err);
}

static enum lru_err ch_post(struct ch *ch, const char *sql, const void *data, size_t len,
			    const char *const *settings, struct lru_buf *out, struct lru_error *err)
{
	return post(ch, atomic_load(&ch->next_url), ch->cfg->ch_urls.n, sql, data, len, settings,
		    out, err);
}

/* The first field of the first row sql gives, asked of server url only; -1 when it does not answer. */
static int64_t scalar_at(struct ch *ch, size_t url, const char *sql, struct lru_error *err)
{
	struct lru_buf out;
	struct ch_rows r;
	int64_t v = -1;

	lru_buf_init(&out);
	if (!post(ch, url, 1, sql, NULL, 0, NULL, &out, err)) {
		ch_rows_init(&r, &out);
		v = ch_rows_next(&r) ? strtoll(r.f[0], NULL, 10) : 0;
	}
	lru_buf_release(&out);
	return v;
}

/* Wait up to 60 s until every server of clickhouse-url answers sql with at least min. */
static enum lru_err wait_everywhere(struct ch *ch, const char *sql, int64_t min, const char *what,
				    struct lru_error *err)
{
	for (size_t u = 0; u < ch->cfg->ch_urls.n; u++) {
		int64_t until = lru_now_ms() + 60000;

		while (scalar_at(ch, u, sql, err) < min) {
			if (stopping(ch))
				return lru_fail(err, LRU_EIO, STOPPED);
			if (lru_now_ms() > until)
				return lru_fail(err, LRU_EIO, "%s does not see %s after 60 s",
						ch->cfg->ch_urls.v[u], what);
			nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
		}
	}
	return LRU_OK;
}

/* ClickHouse's max_query_size by default: a longer SELECT is refused unless it is raised */
#define CH_QUERY_SIZE_DEFAULT (256u << 10)

/*
 * For a statement of len bytes past CH_QUERY_SIZE_DEFAULT (a long list of
 * memcg paths), max_query_size and max_ast_elements (50,000 by default, an
 * element a path) it fits in, appended at set[n] (4 entries and the NULL;
 * size and ast hold the values): the new count.
 */
static size_t size_settings(const char **set, size_t n, size_t len, char size[24], char ast[24])
{
	if (len >= CH_QUERY_SIZE_DEFAULT) {
		snprintf(size, 24, "%zu", len + 1024);
		snprintf(ast, 24, "%zu", 50000 + len / 8);
		set[n++] = "max_query_size";
		set[n++] = size;
		set[n++] = "max_ast_elements";
		set[n++] = ast;
	}
	set[n] = NULL;
	return n;
}

enum lru_err ch_select(struct ch *ch, const char *sql, struct lru_buf *out, struct lru_error *err)
{
	/*
	 * An IN (SELECT ...) of a Distributed table reads each shard's own rows
	 * (sharded by host). A SELECT naming many memcg paths (wss over a glob that
	 * matches thousands: its path list and the dirty pairs' subquery hold them)
	 * gets a max_query_size it fits in.
	 */
	const char *settings[7] = { NULL };
	size_t n = 0;
	char size[24], ast[24];

	if (ch->on_cluster[0]) {
		settings[n++] = "distributed_product_mode";
		settings[n++] = "local";
	}
	n = size_settings(settings, n, strlen(sql), size, ast);
	return ch_post(ch, sql, NULL, 0, n ? settings : NULL, out, err);
}

const char *ch_table(const struct ch *ch, const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s.%s%s", ch->cfg->ch_database, name, ch->on_cluster[0] ? "" : "_local");
	return buf;
}

/* ---- TabSeparated -------------------------------------------------------------------- */

enum lru_err ch_quote(struct lru_buf *b, const char *s, size_t n, struct lru_error *err)
{
	if (lru_buf_append(b, "'", 1, err))
		return LRU_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char e[2] = { '\\', s[i] };

		switch (s[i]) {
		case '\\': case '\'': break;
		case '\n': e[1] = 'n'; break;
		case '\t': e[1] = 't'; break;
		case '\r': e[1] = 'r'; break;
		case '\0': e[1] = '0'; break;
		default:
			if (lru_buf_append(b, &s[i], 1, err))
				return LRU_ENOMEM;
			continue;
		}
		if (lru_buf_append(b, e, 2, err))
			return LRU_ENOMEM;
	}
	return lru_buf_append(b, "'", 1, err);
}

/* A TabSeparated field: s escaped (\\ \t \n \r \0), without quotes. */
static enum lru_err tsv_str(struct lru_buf *b, const void *v, size_t n, struct lru_error *err)
{
	const char *s = v;
	size_t from = 0;

	for (size_t i = 0; i < n; i++) {
		char e = s[i] == '\\' ? '\\' : s[i] == '\t' ? 't' : s[i] == '\n' ? 'n'
		       : s[i] == '\r' ? 'r' : s[i] == '\0' ? '0' : 0;
		char esc[2] = { '\\', e };

		if (!e)
			continue;
		if (lru_buf_append(b, s + from, i - from, err) || lru_buf_append(b, esc, 2, err))
			return LRU_ENOMEM;
		from = i + 1;
	}
	return lru_buf_append(b, s + from, n - from, err);
}

void ch_rows_init(struct ch_rows *r, struct lru_buf *tsv)
{
	memset(r, 0, sizeof(*r));
	r->p = (char *)tsv->data;
	r->end = r->p + tsv->len;
}

int ch_rows_next(struct ch_rows *r)
{
	char *w, *field;

	if (!r->p || r->p >= r->end)
		return 0;
	r->nf = 0;
	field = w = r->p;
	for (;;) {
		char c = r->p < r->end ? *r->p : '\n';

		r->p++;
		if (c == '\t' || c == '\n') {
			*w = '\0';
			if (r->nf < CH_MAX_FIELDS) {
				r->f[r->nf] = field;
				r->len[r->nf++] = (size_t)(w - field);
			}
			if (c == '\n')
				return 1;
			field = w = r->p;
			continue;
		}
		if (c == '\\' && r->p < r->end) {
			char e = *r->p++;

			c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == '0' ? '\0'
			  : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
		}
		*w++ = c;
	}
}

/* ---- schema ------------------------------------------------------------------------ */

/*
 * A table of the schema: its columns, sorting key (its rows' identity: a
 * replacing engine keeps one row per key, the one of the largest version
 * when there is a version column), and a partition key. A table with "from"
 * is filled by a materialized view of that table's inserts ("select": the
 * SELECT list, with "array_join" for one row per array element).
 */
struct ch_table_def {
	const char *name, *columns, *order, *version, *partition;
	const char *from, *select, *array_join;
	const char *shard;	/* the Distributed table's sharding key; NULL: sipHash64(host) */
	bool everywhere;	/* not sharded: one replicated table on every server */
	const char *view;	/* the view's name, for a table filled from two; NULL: NAME_mv */
	const char *fill;	/* a table of an older version: --migrate fills this one from it */
	const char *fill_select;	/* NULL: fill with select; else the SELECT's text after */
					/* "SELECT ", fill's name where it says {} */
};

#define COLD_COL "cold Array(UInt64)"
/* raw rows by UTC day of taken_ms: expired days are dropped whole (ch_expire) */
#define PARTITION_BY_DAY CH_DAY_OF_TAKEN

/* written by the writer: memcg_samples first, snapshots last (see write_jobs) */
static const struct ch_table_def tables_v1[] = {
	{ "memcg_samples",
	  "path String, host String, boot_id String, seq UInt64, taken_ms UInt64, total UInt64, "
	  COLD_COL ", warnings UInt32", "(path, host, boot_id, seq)", NULL, PARTITION_BY_DAY,
	  NULL, NULL, NULL, NULL, false, NULL, NULL, NULL },
	{ "snapshots",
	  "host String, boot_id String, seq UInt64, taken_ms UInt64, read_start_ms Int64, "
	  "read_end_ms Int64, ingest_ms Int64, kernel String, host_warnings UInt32, "
	  "page_size UInt32, nr_nodes UInt32, nr_memcgs UInt32, nr_lruvecs UInt32, "
	  "mem_total UInt64, mem_free UInt64, total UInt64, " COLD_COL ", warnings UInt32, "
	  "node Array(Int32), node_mem_total Array(UInt64), node_mem_free Array(UInt64), "
	  "node_total Array(UInt64), node_cold Array(Array(UInt64)), node_warnings Array(UInt32), "
	  "paths String, data String", "(host, boot_id, seq)", NULL, PARTITION_BY_DAY,
	  NULL, NULL, NULL, NULL, false, NULL, NULL, NULL },
	{ "hosts_latest",
	  "host String, taken_ms UInt64, ingest_ms Int64, boot_id String, seq UInt64, "
	  "kernel String, page_size UInt32, nr_nodes UInt32, nr_memcgs UInt32, "
	  "nr_lruvecs UInt32, mem_total UInt64, mem_free UInt64, total UInt64, " COLD_COL ", "
	  "host_warnings UInt32, warnings UInt32", "host", "taken_ms", NULL, "snapshots",
	  "host, taken_ms, ingest_ms, boot_id, seq, kernel, page_size, nr_nodes, nr_memcgs, "
	  "nr_lruvecs, mem_total, mem_free, total, cold, host_warnings, warnings",
	  NULL, NULL, false, NULL, NULL, NULL },
	/* the smallest ingest time wins: the version is its complement */
	{ "hosts_first", "host String, first_seen_ms Int64, ver UInt64", "host", "ver", NULL,
	  "snapshots", "host, ingest_ms AS first_seen_ms, "
	  "toUInt64(9223372036854775807 - ingest_ms) AS ver", NULL, NULL, false, NULL, NULL, NULL },
	/* named as in snapshots: an ARRAY JOIN keeps the arrays' names */
	{ "nodes_latest",
	  "host String, node Int32, taken_ms UInt64, node_mem_total UInt64, node_mem_free UInt64, "
	  "node_total UInt64, node_cold Array(UInt64), node_warnings UInt32", "(host, node)",
	  "taken_ms", NULL, "snapshots",
	  "host, node, taken_ms, node_mem_total, node_mem_free, node_total, node_cold, node_warnings",
	  "node, node_mem_total, node_mem_free, node_total, node_cold, node_warnings",
	  NULL, false, NULL, NULL, NULL },
	{ "memcgs_latest",
	  "host String, path String, taken_ms UInt64, total UInt64, " COLD_COL ", warnings UInt32",
	  "(host, path)", "taken_ms", NULL, "memcg_samples",
	  "host, path, taken_ms, total, cold, warnings", NULL, NULL, false, NULL, NULL, NULL },
};

/*
 * Version 2: the hourly working-set rollups of raw days past raw-retention
 * (ch_expire rolls a day up, marks it in wss_days, then drops it), sharded
 * by path. Their rows are keyed by "part", a checksum of the raw rows rolled
 * up: rolling the same rows again replaces them, a day's rows that arrive
 * after it was rolled up are another part, and the parts add up.
 */
#define PARTITION_BY_HOUR_DAY CH_DAY_OF_HOUR
static const struct ch_table_def tables_v2[] = {
	/* per path, hour and threshold k: the lru_hist buckets of the hot bytes */
	{ "wss_hourly", "path String, hour Int64, part UInt64, k UInt8, bucket UInt32, "
	  "n UInt64, max UInt64", "(path, hour, k, bucket, part)", NULL, PARTITION_BY_HOUR_DAY,
	  NULL, NULL, NULL, "sipHash64(path)", false, NULL, NULL, NULL },
	/* per path and hour: samples, and how many of them had each warning bit */
	{ "wss_hourly_n", "path String, hour Int64, part UInt64, n UInt64, warn Array(UInt64)",
	  "(path, hour, part)", NULL, PARTITION_BY_HOUR_DAY, NULL, NULL, NULL,
	  "sipHash64(path)", false, NULL, NULL, NULL },
	/* the days that have rollups: part 0 written directly (put_late), else rolled up (roll_day) */
	{ "wss_days", "day UInt32, part UInt64, rolled_ms Int64", "(day, part)", NULL, NULL,
	  NULL, NULL, NULL, NULL, true, NULL, NULL, NULL },
};

/*
 * Version 3: what the queries by memcg read without scanning every host.
 * memcgs_by_path is memcgs_latest sorted by path (a job's rows are one range
 * of the primary key: cold --by memcg); paths, every memcg path stored, raw
 * or rolled up (the paths a glob matches: wss). A view does not fire on rows
 * another view writes (18.16), so they are fed from the tables written
 * directly: the writer sends memcgs_latest's own rows to memcgs_by_path too
 * (insert_into), and paths has a view of each of memcg_samples and
 * wss_hourly_n (which has every late or imported path). --migrate fills
 * them from the older tables ("fill": memcgs_latest has every raw path).
 */
static const struct ch_table_def tables_v3[] = {
	{ "memcgs_by_path",
	  "host String, path String, taken_ms UInt64, total UInt64, " COLD_COL ", warnings UInt32",
	  "(path, host)", "taken_ms", NULL, "memcg_samples",
	  "host, path, taken_ms, total, cold, warnings", NULL, NULL, false, NULL, "memcgs_latest", NULL },
	{ "paths", "path String", "path", NULL, NULL, "memcg_samples", "DISTINCT path", NULL,
	  "sipHash64(path)", false, NULL, "memcgs_latest", NULL },
	{ "paths", "path String", "path", NULL, NULL, "wss_hourly_n", "DISTINCT path", NULL,
	  "sipHash64(path)", false, "paths_rollups_mv", "wss_hourly_n", NULL },
};

/*
 * Version 4: hours rolled up soon after they end (roll_hours), not at
 * raw-retention, so that wss reads a week as rollups and at most the last
 * hour or so of raw samples. wss_hours marks the hours that have rollups:
 * part ROLL_PART, the hour's raw samples rolled up (their raw rows stay
 * until raw-retention, not counted from then on); part 0, samples written
 * as rollups directly (put_late, imports), beside the raw ones. The day
 * marks of wss_days (versions 2 and 3) keep their meaning for their days.
 */
static const struct ch_table_def tables_v4[] = {
	{ "wss_hours", "hour Int64, part UInt64, rolled_ms Int64", "(hour, part)", NULL, NULL,
	  NULL, NULL, NULL, NULL, true, NULL, NULL, NULL },
};

/*
 * Version 5: the raw samples sorted by hour first (wss_samples; hour is
 * taken_ms's, written with the row: 18.16's Distributed tables cannot
 * insert a MATERIALIZED column), so that rolling an hour up and reading
 * the hours not rolled up yet read those hours' rows only, not the whole
 * day's partition (memcg_samples' key has no time in it). --migrate fills
 * it from memcg_samples before its views exist (the latest-state tables
 * hold those rows already); memcg_samples gets no more rows and its days
 * expire as before. The views of memcg_samples come again, of wss_samples.
 */
#define MEMCG_COLS "host, path, taken_ms, total, cold, warnings"
static const struct ch_table_def tables_v5[] = {
	{ "wss_samples",
	  "hour Int64, path String, host String, boot_id String, seq UInt64, taken_ms UInt64, "
	  "total UInt64, " COLD_COL ", warnings UInt32", "(hour, path, host, boot_id, seq)", NULL,
	  PARTITION_BY_DAY, NULL, CH_HOUR_OF_TAKEN ", path, host, boot_id, seq, taken_ms, total, "
	  "cold, warnings", NULL, NULL, false, NULL, "memcg_samples", NULL },
	{ "memcgs_latest", NULL, NULL, NULL, NULL, "wss_samples", MEMCG_COLS, NULL, NULL, false,
	  "memcgs_latest_s_mv", NULL, NULL },
	{ "memcgs_by_path", NULL, NULL, NULL, NULL, "wss_samples", MEMCG_COLS, NULL, NULL, false,
	  "memcgs_by_path_s_mv", NULL, NULL },
	{ "paths", NULL, NULL, NULL, NULL, "wss_samples", "DISTINCT path", NULL, NULL, false,
	  "paths_s_mv", NULL, NULL },
};

/*
 * Version 6: late samples (of an hour rolled up, or about to be) are raw
 * samples like any other, in wss_samples, and each (hour, path) they fall in
 * is marked dirty in wss_dirty (kind 0) before they are written, and again
 * after (the mark's time then follows their INSERT). A query
 * reads a dirty pair's raw samples, not its ROLL_PART rollup rows; the
 * maintenance rolls the pair up again (rows of the same keys, their counts
 * as large or larger) and marks it clean (kind 1, at the time the roll-up
 * began). A pair is dirty until a clean mark is more than dirty_settle_ms()
 * newer than its newest dirty mark (dirty_sql). Only samples of days
 * past raw-retention still go to the rollups directly (put_late).
 */
static const struct ch_table_def tables_v6[] = {
	{ "wss_dirty", "hour Int64, path String, kind UInt8, at_ms Int64", "(hour, path, kind)",
	  "at_ms", NULL, NULL, NULL, NULL, NULL, true, NULL, NULL, NULL },
};

/*
 * Version 7: host_nodes, the nodes of each host's latest snapshot as arrays
 * (a row per host, keyed and versioned as hosts_latest), which rank
 * --per-node and cold --by node read with an ARRAY JOIN. nodes_latest (a row
 * per host and node) keeps a node the host no longer reports, so its reads
 * had to match its rows with hosts_latest's (host, taken_ms): a set of every
 * host built on each shard, two thirds of those queries' time at 100,000
 * hosts. --migrate fills it from nodes_latest: per host, the nodes of its
 * newest taken_ms there (a node row's copies once: groupUniqArray).
 */
#define V7_NODES_COLS "node, node_mem_total, node_mem_free, node_total, node_cold, node_warnings"
static const struct ch_table_def tables_v7[] = {
	{ "host_nodes",
	  "host String, taken_ms UInt64, node Array(Int32), node_mem_total Array(UInt64), "
	  "node_mem_free Array(UInt64), node_total Array(UInt64), node_cold Array(Array(UInt64)), "
	  "node_warnings Array(UInt32)", "host", "taken_ms", NULL, "snapshots",
	  "host, taken_ms, " V7_NODES_COLS, NULL, NULL, false, NULL, "nodes_latest",
	  "host, t, arrayMap(x -> x.2, r), arrayMap(x -> x.3, r), arrayMap(x -> x.4, r), "
	  "arrayMap(x -> x.5, r), arrayMap(x -> x.6, r), arrayMap(x -> x.7, r) FROM (SELECT host, "
	  "max(taken_ms) AS t, arraySort(x -> x.2, arrayFilter(x -> x.1 = t, groupUniqArray(("
	  "taken_ms, " V7_NODES_COLS ")))) AS r FROM {} FINAL GROUP BY host)" },
};

/*
 * Version 8: nodes_latest and memcgs_latest go. Nothing reads them
 * (host_nodes since version 7; memcgs_by_path since version 3, which the
 * writer writes the late samples' latest state to), and each made a part on
 * every replica in every round of INSERTs, fetched and merged like the
 * others' (2 of the 9 tables a round wrote; memcgs_latest a row per host
 * and memcg, as large as memcgs_by_path). The views first, so that no
 * INSERT fires into a table that is gone; memcg_samples stays (its days
 * expire).
 */
static const char *const drops_v8[] = {
	"nodes_latest_mv", "nodes_latest", "nodes_latest_local",
	"memcgs_latest_mv", "memcgs_latest_s_mv", "memcgs_latest", "memcgs_latest_local", NULL
};

/*
 * Version 9: node_state, host_nodes with a cold array per threshold
 * (node_cold_1 .. node_cold_8) instead of host_nodes' node_cold, an array of
 * arrays. FINAL carries the columns a query reads through its merge, and
 * 18.16 merges an Array(Array(UInt64)) row by row: at 100,000 hosts (50,000
 * a shard, 2 parts) node_cold cost 57 ms of rank --per-node's count of 71 on
 * each shard; its count over node_cold_K took 8 ms and its top 20 14 (42
 * over node_cold), cold --by node's rows 34 (50). --migrate fills it from
 * host_nodes, which goes with its view.
 */
#define NODE_COLD_OF(k) "arrayMap(c -> c[" #k "], node_cold) AS node_cold_" #k
static const struct ch_table_def tables_v9[] = {
	{ "node_state",
	  "host String, taken_ms UInt64, node Array(Int32), node_mem_total Array(UInt64), "
	  "node_mem_free Array(UInt64), node_total Array(UInt64), node_cold_1 Array(UInt64), "
	  "node_cold_2 Array(UInt64), node_cold_3 Array(UInt64), node_cold_4 Array(UInt64), "
	  "node_cold_5 Array(UInt64), node_cold_6 Array(UInt64), node_cold_7 Array(UInt64), "
	  "node_cold_8 Array(UInt64), node_warnings Array(UInt32)", "host", "taken_ms", NULL,
	  "snapshots", "host, taken_ms, node, node_mem_total, node_mem_free, node_total, "
	  NODE_COLD_OF(1) ", " NODE_COLD_OF(2) ", " NODE_COLD_OF(3) ", " NODE_COLD_OF(4) ", "
	  NODE_COLD_OF(5) ", " NODE_COLD_OF(6) ", " NODE_COLD_OF(7) ", " NODE_COLD_OF(8) ", "
	  "node_warnings", NULL, NULL, false, NULL, "host_nodes", NULL },
};
static const char *const drops_v9[] = { "host_nodes_mv", "host_nodes", "host_nodes_local", NULL };

/* each version: its new tables (and views), then what it drops */
#define TABLES_DROP(t, d) { t, sizeof(t) / sizeof(t[0]), d }
#define TABLES(t) TABLES_DROP(t, NULL)
static const struct {
	const struct ch_table_def *t;
	size_t n;
	const char *const *drop;
} schema[] = {
	TABLES(tables_v1),
	TABLES(tables_v2),
	TABLES(tables_v3),
	TABLES(tables_v4),
	TABLES(tables_v5),
	TABLES(tables_v6),
	TABLES(tables_v7),
	{ NULL, 0, drops_v8 },
	TABLES_DROP(tables_v9, drops_v9),
};

#define SCHEMA_VERSION ((int64_t)(sizeof(schema) / sizeof(schema[0])))

static enum lru_err run_ddl(struct ch *ch, struct lru_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum lru_err run_ddl(struct ch *ch, struct lru_error *err, const char *fmt, ...)
{
	char sql[SQL_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(sql))
		return lru_fail(err, LRU_ERANGE, "a schema statement is too long");
	log_debug("clickhouse: %s", sql);
	return post_ddl(ch, sql, NULL, NULL, err);
}

/*
 * DB.NAME_local on every server, one replicated table spanning them all (not
 * sharded): each server holds all its rows. For the few rows every server
 * must see (schema versions, rolled-up days).
 */
static enum lru_err create_everywhere(struct ch *ch, const char *name, const char *columns,
				      const char *order, const char *version, struct lru_error *err)
{
	const char *db = ch->cfg->ch_database;
	char engine[256];

	if (ch->on_cluster[0])
		snprintf(engine, sizeof(engine), "ReplicatedReplacingMergeTree("
			 "'/clickhouse/lrugen/%s/%s', '{replica}'%s%s)", db, name, version ? ", " : "",
			 version ? version : "");
	else
		snprintf(engine, sizeof(engine), "ReplacingMergeTree(%s)", version ? version : "");
	return run_ddl(ch, err, "CREATE TABLE IF NOT EXISTS %s.%s_local%s (%s) ENGINE = %s "
		       "ORDER BY %s", db, name, ch->on_cluster, columns, engine, order);
}

/*
 * A table new in this schema version, its view there already: the rows its
 * view would have written from t->fill's. Not read FINAL (18.16 cannot
 * when the SELECT leaves out the key): a copy not merged yet is replaced in
 * the new table as in the old. Synchronous on a cluster (--migrate ends
 * when the rows are on their shards); run again, it writes the same rows,
 * which the replacing engines keep once.
 */
static enum lru_err fill_table(struct ch *ch, const struct ch_table_def *t, struct lru_error *err)
{
	static const char *const sync[] = { "insert_distributed_sync", "1", NULL };
	char to[160], from[160], sql[SQL_MAX];
	const char *at = t->fill_select ? strstr(t->fill_select, "{}") : NULL;
	int64_t t0 = lru_now_ms();
	enum lru_err rc;

	ch_table(ch, t->name, to, sizeof(to));
	ch_table(ch, t->fill, from, sizeof(from));
	if (at)
		snprintf(sql, sizeof(sql), "INSERT INTO %s SELECT %.*s%s%s", to,
			 (int)(at - t->fill_select), t->fill_select, from, at + 2);
	else
		snprintf(sql, sizeof(sql), "INSERT INTO %s SELECT %s FROM %s", to, t->select, from);
	log_info("clickhouse: filling %s from %s", to, from);
	rc = post_ddl(ch, sql, ch->on_cluster[0] ? sync : NULL, NULL, err);	/* --migrate: rare, long */
	if (!rc)
		log_info("clickhouse: %s filled from %s in %" PRId64 " ms", to, from, lru_now_ms() - t0);
	return rc;
}

/* The materialized view that fills t's local table from t->from's. */
static enum lru_err create_view(struct ch *ch, const struct ch_table_def *t, struct lru_error *err)
{
	const char *db = ch->cfg->ch_database;

	return run_ddl(ch, err, "CREATE MATERIALIZED VIEW IF NOT EXISTS %s.%s%s%s TO %s.%s_local "
		       "AS SELECT %s FROM %s.%s_local%s%s", db, t->view ? t->view : t->name,
		       t->view ? "" : "_mv", ch->on_cluster, db, t->name, t->select, db, t->from,
		       t->array_join ? " ARRAY JOIN " : "", t->array_join ? t->array_join : "");
}

static enum lru_err create_table(struct ch *ch, const struct ch_table_def *t, struct lru_error *err)
{
	const char *db = ch->cfg->ch_database, *cl = ch->cfg->ch_cluster;
	char engine[512], part[160] = "";
	enum lru_err rc;

	if (t->everywhere)
		return create_everywhere(ch, t->name, t->columns, t->order, t->version, err);
	if (!t->columns)	/* a table of an older version: only a view into it */
		return create_view(ch, t, err);
	if (t->partition)
		snprintf(part, sizeof(part), " PARTITION BY %s", t->partition);
	if (ch->on_cluster[0])
		snprintf(engine, sizeof(engine),
			 "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/%s/%s', '{replica}'%s%s)",
			 db, t->name, t->version ? ", " : "", t->version ? t->version : "");
	else
		snprintf(engine, sizeof(engine), "ReplacingMergeTree(%s)", t->version ? t->version : "");
	rc = run_ddl(ch, err, "CREATE TABLE IF NOT EXISTS %s.%s_local%s (%s) ENGINE = %s%s ORDER BY %s",
		     db, t->name, ch->on_cluster, t->columns, engine, part, t->order);
	if (!rc && t->from)
		rc = create_view(ch, t, err);
	if (!rc && ch->on_cluster[0])
		rc = run_ddl(ch, err, "CREATE TABLE IF NOT EXISTS %s.%s%s AS %s.%s_local "
			     "ENGINE = Distributed(%s, %s, %s_local, %s)", db, t->name, ch->on_cluster,
			     db, t->name, cl, db, t->name, t->shard ? t->shard : "sipHash64(host)");
	return rc || !t->fill ? rc : fill_table(ch, t, err);
}

/* "SELECT max(version) ...": the schema version a server sees */
#define VERSION_SQL "SELECT max(version) FROM %s.migrations_local"

static int64_t schema_version(struct ch *ch, size_t url, struct lru_error *err)
{
	char sql[256];

	snprintf(sql, sizeof(sql), VERSION_SQL, ch->cfg->ch_database);
	return scalar_at(ch, url, sql, err);
}

/*
 * The tables of schema version v (1-based), what it drops, then the row that
 * says it is there. Run again after a failure, each step is a no-op or
 * finishes what the last run began (IF NOT EXISTS, IF EXISTS).
 */
static enum lru_err migrate_to(struct ch *ch, int64_t v, struct lru_error *err)
{
	enum lru_err rc = LRU_OK;

	for (size_t i = 0; !rc && i < schema[v - 1].n; i++)
		rc = create_table(ch, &schema[v - 1].t[i], err);
	for (const char *const *d = schema[v - 1].drop; !rc && d && *d; d++)
		rc = run_ddl(ch, err, "DROP TABLE IF EXISTS %s.%s%s", ch->cfg->ch_database, *d,
			     ch->on_cluster);
	if (!rc)
		rc = run_ddl(ch, err, "INSERT INTO %s.migrations_local VALUES (%" PRId64 ", %" PRId64
			     ")", ch->cfg->ch_database, v, lru_now_ms());
	if (!rc)
		log_info("clickhouse: schema version %" PRId64 " created in database %s", v,
			 ch->cfg->ch_database);
	return rc;
}

static enum lru_err migrate(struct ch *ch, struct lru_error *err)
{
	char sql[256], what[64];
	enum lru_err rc;
	int64_t have;

	rc = run_ddl(ch, err, "CREATE DATABASE IF NOT EXISTS %s%s", ch->cfg->ch_database,
		     ch->on_cluster);
	if (!rc)
		rc = create_everywhere(ch, "migrations", "version UInt32, applied_ms Int64",
				       "version", NULL, err);
	if (rc)
		return rc;
	have = schema_version(ch, atomic_load(&ch->next_url), err);
	if (have < 0)
		return err->code;
	if (have >= SCHEMA_VERSION)
		log_info("clickhouse: schema version %" PRId64 " is current", have);
	while (have < SCHEMA_VERSION)
		if ((rc = migrate_to(ch, ++have, err)))
			return rc;
	/* the version rows replicate: wait until every server of clickhouse-url sees them */
	snprintf(sql, sizeof(sql), VERSION_SQL, ch->cfg->ch_database);
	snprintf(what, sizeof(what), "schema version %" PRId64, SCHEMA_VERSION);
	return wait_everywhere(ch, sql, SCHEMA_VERSION, what, err);
}

/* ---- writing ----------------------------------------------------------------------- */

/*
 * What one round writes, in this order: the marks of the hours that get
 * samples as rollups and of the (hour, path) pairs that get late raw
 * samples (see put_snapshot), rows of wss_samples and of the rollups (and of
 * memcgs_by_path for those samples), then of snapshots (the views fill the
 * rest). The marks go first: no row is ever left without its mark.
 */
enum { T_MARKS, T_DIRTY, T_SAMPLES, T_HOURLY, T_HOURLY_N, T_MEMCGS, T_SNAPS, T_NR };

/* the table of each kind of rows (T_MEMCGS: memcgs_latest's too before version 8) */
static const char *const insert_into[T_NR] = {
	"wss_hours_local", "wss_dirty_local", "wss_samples", "wss_hourly", "wss_hourly_n",
	"memcgs_by_path", "snapshots"
};

/* the tables of one replicated table on every server, written on one (no quorum) */
#define EVERYWHERE(k) ((k) == T_MARKS || (k) == T_DIRTY)

#define MAX_LATE_HOURS 64

struct batch {
	struct lru_buf t[T_NR];
	int64_t late_before;		/* samples taken before this are late */
	int64_t direct_before;		/* late samples taken before this go to the rollups */
	int64_t hours[MAX_LATE_HOURS];	/* the hours marked in t[T_MARKS] (the first ones) */
	size_t nr_hours;
	/* the (hour, path) pairs marked dirty in t[T_DIRTY], found by hash */
	struct dirty { int64_t hour; const char *path; } *dirty;
	size_t nr_dirty, alloc_dirty;
	struct lru_hash dirty_ix;
};

/* "[a,b,...]": the cold bytes at each threshold, an Array(UInt64) field */
static enum lru_err put_array(struct lru_buf *b, const uint64_t *v, size_t n, struct lru_error *err)
{
	enum lru_err rc = lru_buf_append(b, "[", 1, err);

	for (size_t k = 0; !rc && k < n; k++)
		rc = lru_buf_printf(b, err, "%s%" PRIu64, k ? "," : "", v[k]);
	return rc ? rc : lru_buf_append(b, "]", 1, err);
}

/* "\tTOTAL\t[cold...]\tWARNINGS\n": the end of a wss_samples row */
static enum lru_err put_cold(struct lru_buf *b, const struct lru_fleet_cold *c,
			     struct lru_error *err)
{
	return lru_buf_printf(b, err, "\t%" PRIu64 "\t", c->total) ||
	       put_array(b, c->cold, LRU_FLEET_NR_THRESHOLDS, err) ||
	       lru_buf_printf(b, err, "\t%u\n", (unsigned)c->warnings) ? LRU_ENOMEM : LRU_OK;
}

/* The node columns of a snapshots row: node, its memory, its bytes, cold and warnings. */
static enum lru_err put_nodes(struct lru_buf *b, const struct lru_fleet_rows *rows,
			      struct lru_error *err)
{
	enum lru_err rc = LRU_OK;

	for (int col = 0; !rc && col < 6; col++) {
		rc = lru_buf_append(b, col == 0 ? "[" : "\t[", col == 0 ? 1 : 2, err);
		for (size_t i = 0; !rc && i < rows->nr_nodes; i++) {
			const struct lru_fleet_node *n = &rows->nodes[i];

			if (i && (rc = lru_buf_append(b, ",", 1, err)))
				break;
			switch (col) {
			case 0: rc = lru_buf_printf(b, err, "%d", n->node); break;
			case 1: rc = lru_buf_printf(b, err, "%" PRIu64, n->mem_total); break;
			case 2: rc = lru_buf_printf(b, err, "%" PRIu64, n->mem_free); break;
			case 3: rc = lru_buf_printf(b, err, "%" PRIu64, n->cold.total); break;
			case 4: rc = put_array(b, n->cold.cold, LRU_FLEET_NR_THRESHOLDS, err); break;
			default: rc = lru_buf_printf(b, err, "%u", (unsigned)n->cold.warnings); break;
			}
		}
		rc = rc ? rc : lru_buf_append(b, "]", 1, err);
	}
	return rc;
}

/*
 * The snapshot's memcg paths, NUL-separated (a path has no NUL), as one
 * field: the packed lruvecs name their memcg by its place in it.
 */
static enum lru_err put_paths(struct lru_buf *b, const struct lru_snapshot *s,
			      struct lru_error *err)
{
	for (size_t m = 0; m < s->nr_memcgs; m++)
		if ((m && tsv_str(b, "", 1, err)) ||
		    tsv_str(b, s->memcgs[m].path, strlen(s->memcgs[m].path), err))
			return LRU_ENOMEM;
	return LRU_OK;
}

/* A memcg path's bytes in one snapshot: its lruvecs summed (nodes, and cgroups of one name). */
struct path_sum {
	const char *path;
	struct lru_fleet_cold c;
};

static int cmp_path_sum(const void *a, const void *b)
{
	return strcmp(((const struct path_sum *)a)->path, ((const struct path_sum *)b)->path);
}

/* The snapshot's path sums in *out (malloc'd), by path; SIZE_MAX out of memory. */
static size_t path_sums(const struct lru_snapshot *s, const struct lru_fleet_rows *rows,
			struct path_sum **out)
{
	struct path_sum *v = malloc((s->nr_lruvecs ? s->nr_lruvecs : 1) * sizeof(*v));
	size_t n = 0;

	*out = v;
	if (!v)
		return SIZE_MAX;
	for (size_t i = 0; i < s->nr_lruvecs; i++)
		v[i] = (struct path_sum){ s->memcgs[s->lruvecs[i].memcg].path, rows->lv[i] };
	if (s->nr_lruvecs > 1)
		qsort(v, s->nr_lruvecs, sizeof(*v), cmp_path_sum);
	for (size_t i = 0; i < s->nr_lruvecs; i++) {
		if (n && !strcmp(v[n - 1].path, v[i].path))
			lru_fleet_cold_add(&v[n - 1].c, &v[i].c);
		else
			v[n++] = v[i];
	}
	return n;
}

/* One snapshot's rows of every table, appended to b. */
static uint64_t ident_hash(const char *host, const char *boot, uint64_t seq);

/*
 * Retention counts whole UTC days: the rows taken before the start of the
 * day of now - keep are past it (ch_expire). The writer sends the samples
 * of days that will be past raw-retention within ROLL_MARGIN_MS to the
 * rollups directly, so that no raw sample is written to a day that
 * ch_expire may be rolling up and dropping (a front-end's clock may be
 * that much ahead of another's).
 */
#define ROLL_MARGIN_MS HOUR_MS

static int64_t day_cutoff(int64_t now, uint64_t keep)
{
	int64_t c = ((now - (int64_t)keep) / DAY_MS) * DAY_MS;

	return c > 0 ? c : 0;
}

/*
 * The hours rolled up soon after they end (roll_hours): hour h once
 * clickhouse-rollup-after has passed since its end, so every hour before
 * roll_bound(now). The writer sends the samples of an hour that ended more
 * than two thirds of that ago to the rollups directly (those taken before
 * late_bound(now)): a raw sample is written at least a third of it (10 min
 * by default) before its hour is rolled up, time for its INSERT to finish
 * and for the front-ends' clocks to differ.
 */
#define ROLL_PART CH_ROLL_PART

static int64_t roll_bound(const struct ch *ch, int64_t now)
{
	int64_t b = (now - (int64_t)ch->cfg->ch_rollup_after_ms) / HOUR_MS;

	return b > 0 ? b : 0;
}

static int64_t late_bound(const struct ch *ch, int64_t now)
{
	int64_t b = (now - (int64_t)(ch->cfg->ch_rollup_after_ms * 2 / 3)) / HOUR_MS * HOUR_MS;

	return b > 0 ? b : 0;
}

/* Mark hour in b (once) as an hour with rollups written directly (part 0). */
static enum lru_err mark_hour(struct batch *b, int64_t hour, int64_t now, struct lru_error *err)
{
	size_t h;

	for (h = 0; h < b->nr_hours && b->hours[h] != hour; h++)
		;
	if (h < b->nr_hours)
		return LRU_OK;
	if (h < MAX_LATE_HOURS)
		b->hours[b->nr_hours++] = hour;
	return lru_buf_printf(&b->t[T_MARKS], err, "%" PRId64 "\t0\t%" PRId64 "\n", hour, now);
}

/* Mark (hour, path) dirty in b, once a round (path must outlive b): see put_dirty. */
static enum lru_err mark_dirty(struct batch *b, int64_t hour, const char *path,
			       struct lru_error *err)
{
	uint64_t hash = lru_hash_bytes((uint64_t)hour, path, strlen(path));
	size_t cursor = SIZE_MAX, i;

	while (lru_hash_next(&b->dirty_ix, hash, &cursor, &i))
		if (b->dirty[i].hour == hour && !strcmp(b->dirty[i].path, path))
			return LRU_OK;
	if (b->nr_dirty == b->alloc_dirty) {
		size_t alloc = b->alloc_dirty ? b->alloc_dirty * 2 : 64;
		struct dirty *v = realloc(b->dirty, alloc * sizeof(*v));

		if (!v)
			return lru_fail(err, LRU_ENOMEM, "out of memory");
		b->dirty = v;
		b->alloc_dirty = alloc;
	}
	if (lru_hash_put(&b->dirty_ix, hash, b->nr_dirty))
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	b->dirty[b->nr_dirty++] = (struct dirty){ hour, path };
	return LRU_OK;
}

/*
 * The rows of wss_dirty for the pairs of b: kind 0, at now. A round writes
 * them before its samples (a query reads the pairs raw at once) and again
 * after (their time is then after every sample's INSERT ended: a roll-up
 * that begins dirty_settle_ms() later counts them all).
 */
static enum lru_err put_dirty(struct batch *b, struct lru_error *err)
{
	struct lru_buf *o = &b->t[T_DIRTY];
	int64_t now = lru_now_ms();
	enum lru_err rc = LRU_OK;

	o->len = 0;
	for (size_t i = 0; !rc && i < b->nr_dirty; i++)
		rc = lru_buf_printf(o, err, "%" PRId64 "\t", b->dirty[i].hour) ||
		     tsv_str(o, b->dirty[i].path, strlen(b->dirty[i].path), err) ||
		     lru_buf_printf(o, err, "\t0\t%" PRId64 "\n", now) ? LRU_ENOMEM : LRU_OK;
	return rc;
}

/* A row of wss_hourly_n: path, hour, part, samples, samples per warning bit. */
static enum lru_err put_hourly_n(struct batch *b, const char *path, int64_t hour, uint64_t part,
				 uint64_t samples, const uint64_t *warn, struct lru_error *err)
{
	struct lru_buf *o = &b->t[T_HOURLY_N];
	enum lru_err rc = tsv_str(o, path, strlen(path), err) ||
			  lru_buf_printf(o, err, "\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\t[", hour,
					 part, samples) ? LRU_ENOMEM : LRU_OK;

	for (unsigned w = 0; !rc && w < LRU_FLEET_WARN_BITS; w++)
		rc = lru_buf_printf(o, err, "%s%" PRIu64, w ? "," : "", warn[w]);
	return rc || lru_buf_append(o, "]\n", 2, err) ? LRU_ENOMEM : LRU_OK;
}

/*
 * The samples of a snapshot of a day past raw-retention, or about to be
 * (taken before b->direct_before): rows of wss_hourly(_n) as roll_hour would
 * make of them, as a part of their own (the snapshot's identity, never
 * ROLL_PART: a resend replaces it), after a mark of the hour (marked first,
 * so that no rollup row is ever left without one).
 */
static enum lru_err put_late(struct batch *b, const struct path_sum *sums, size_t n,
			     uint64_t part, int64_t taken, int64_t now, struct lru_error *err)
{
	int64_t hour = taken / HOUR_MS;
	enum lru_err rc = mark_hour(b, hour, now, err);

	for (size_t i = 0; !rc && i < n; i++) {
		const struct lru_fleet_cold *c = &sums[i].c;
		uint64_t warn[LRU_FLEET_WARN_BITS];

		for (unsigned k = 0; !rc && k < LRU_FLEET_NR_THRESHOLDS; k++) {
			uint64_t hot = c->total - c->cold[k];

			rc = tsv_str(&b->t[T_HOURLY], sums[i].path, strlen(sums[i].path), err) ||
			     lru_buf_printf(&b->t[T_HOURLY], err, "\t%" PRId64 "\t%" PRIu64 "\t%u\t%u"
					    "\t1\t%" PRIu64 "\n", hour, part, k,
					    lru_hist_bucket_of(hot), hot) ? LRU_ENOMEM : LRU_OK;
		}
		for (unsigned w = 0; w < LRU_FLEET_WARN_BITS; w++)
			warn[w] = (c->warnings >> w) & 1u;
		rc = rc || put_hourly_n(b, sums[i].path, hour, part, 1, warn, err) ? LRU_ENOMEM : LRU_OK;
	}
	return rc;
}

/*
 * The rows of one snapshot. Its memcg samples go to wss_samples; when its
 * hour is rolled up, or about to be (taken before b->late_before), after a
 * dirty mark of each (hour, path) (mark_dirty); when its day is past
 * raw-retention, or about to be (before b->direct_before), to the rollups
 * directly (put_late). A late snapshot stored already (counted, raw or
 * rolled up) gets no samples written again.
 */
static enum lru_err put_snapshot(struct batch *b, const struct ingest_snap *is, int64_t now,
				 bool stored, struct lru_error *err)
{
	const struct lru_snapshot *s = is->snap;
	const struct lru_fleet_rows *rows = &is->rows;
	const char *host = s->host.host ? s->host.host : "", *boot = s->host.boot_id ? s->host.boot_id : "";
	const char *kernel = s->host.kernel ? s->host.kernel : "";
	uint64_t taken = rows->taken_ms > 0 ? (uint64_t)rows->taken_ms : 0;
	uint64_t *ids = calloc(s->nr_memcgs ? s->nr_memcgs : 1, sizeof(*ids));
	struct lru_buf *sm = &b->t[T_SAMPLES], *sn = &b->t[T_SNAPS], blob;
	struct path_sum *sums = NULL;
	size_t nr_sums = ids ? path_sums(s, rows, &sums) : SIZE_MAX;
	enum lru_err rc = nr_sums == SIZE_MAX ? lru_fail(err, LRU_ENOMEM, "out of memory") : LRU_OK;

	lru_buf_init(&blob);
	for (size_t m = 0; m < s->nr_memcgs && ids; m++)
		ids[m] = m;	/* the packed lruvecs name their memcg by its place in paths */
#define STR(buf, v) tsv_str(buf, v, strlen(v), err)
	for (size_t i = 0; !rc && !stored && rows->taken_ms < b->late_before &&
			   rows->taken_ms >= b->direct_before && i < nr_sums; i++)
		rc = mark_dirty(b, rows->taken_ms / HOUR_MS, sums[i].path, err);
	if (!rc && rows->taken_ms < b->late_before && (stored || rows->taken_ms < b->direct_before)) {
		if (!stored)
			rc = put_late(b, sums, nr_sums, ident_hash(host, boot, s->host.seq) | 2,
				      rows->taken_ms, now, err);
		/* the latest state as wss_samples' views would write it (the newest wins) */
		for (size_t i = 0; !rc && i < nr_sums; i++)
			rc = STR(&b->t[T_MEMCGS], host) || lru_buf_append(&b->t[T_MEMCGS], "\t", 1, err) ||
			     STR(&b->t[T_MEMCGS], sums[i].path) ||
			     lru_buf_printf(&b->t[T_MEMCGS], err, "\t%" PRIu64, taken) ||
			     put_cold(&b->t[T_MEMCGS], &sums[i].c, err) ? LRU_ENOMEM : LRU_OK;
		nr_sums = 0;
	}
	/* wss_samples: hour, path, host, boot_id, seq, taken_ms, total, cold, warnings */
	for (size_t i = 0; !rc && i < nr_sums; i++)
		rc = lru_buf_printf(sm, err, "%" PRIu64 "\t", taken / HOUR_MS) ||
		     STR(sm, sums[i].path) || lru_buf_append(sm, "\t", 1, err) ||
		     STR(sm, host) || lru_buf_append(sm, "\t", 1, err) || STR(sm, boot) ||
		     lru_buf_printf(sm, err, "\t%" PRIu64 "\t%" PRIu64, s->host.seq, taken) ||
		     put_cold(sm, &sums[i].c, err) ? LRU_ENOMEM : LRU_OK;
	if (!rc)
		rc = lru_fleet_pack(s, ids, &blob, err);
	/* snapshots: in the column order of tables_v1 */
	if (!rc)
		rc = STR(sn, host) || lru_buf_append(sn, "\t", 1, err) || STR(sn, boot) ||
		     lru_buf_printf(sn, err, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64 "\t%" PRId64
				    "\t%" PRId64 "\t", s->host.seq, taken, s->read_start_ms,
				    s->read_end_ms, now) ||
		     STR(sn, kernel) ||
		     lru_buf_printf(sn, err, "\t%u\t%u\t%zu\t%zu\t%zu\t%" PRIu64 "\t%" PRIu64
				    "\t%" PRIu64 "\t", (unsigned)s->host.warnings,
				    s->page_size ? s->page_size : 4096, rows->nr_nodes, s->nr_memcgs,
				    s->nr_lruvecs, rows->mem_total, rows->mem_free, rows->host.total) ||
		     put_array(sn, rows->host.cold, LRU_FLEET_NR_THRESHOLDS, err) ||
		     lru_buf_printf(sn, err, "\t%u\t", (unsigned)rows->host.warnings) ||
		     put_nodes(sn, rows, err) || lru_buf_append(sn, "\t", 1, err) ||
		     put_paths(sn, s, err) || lru_buf_append(sn, "\t", 1, err) ||
		     tsv_str(sn, blob.data, blob.len, err) || lru_buf_append(sn, "\n", 1, err)
		     ? LRU_ENOMEM : LRU_OK;
#undef STR
	lru_buf_release(&blob);
	free(sums);
	free(ids);
	return rc;
}

/* Snapshot identities, found by hash (lru_hash.h). */
struct idents {
	struct ident { const char *host, *boot; uint64_t seq; } *v;
	size_t n, alloc;
	struct lru_hash ix;
};

static uint64_t ident_hash(const char *host, const char *boot, uint64_t seq)
{
	return lru_hash_bytes(lru_hash_bytes(seq, host, strlen(host)), boot, strlen(boot));
}

static bool idents_has(const struct idents *ids, const char *host, const char *boot, uint64_t seq)
{
	size_t cursor = SIZE_MAX, i;

	while (lru_hash_next(&ids->ix, ident_hash(host, boot, seq), &cursor, &i))
		if (ids->v[i].seq == seq && !strcmp(ids->v[i].host, host) &&
		    !strcmp(ids->v[i].boot, boot))
			return true;
	return false;
}

/* Add an identity (the strings must outlive ids); -1 out of memory. */
static int idents_add(struct idents *ids, const char *host, const char *boot, uint64_t seq)
{
	if (ids->n == ids->alloc) {
		size_t alloc = ids->alloc ? ids->alloc * 2 : 64;
		struct ident *v = realloc(ids->v, alloc * sizeof(*v));

		if (!v)
			return -1;
		ids->v = v;
		ids->alloc = alloc;
	}
	if (lru_hash_put(&ids->ix, ident_hash(host, boot, seq), ids->n))
		return -1;
	ids->v[ids->n++] = (struct ident){ host, boot, seq };
	return 0;
}

/*
 * The rows of wss_samples in hours [from, to), as a condition: on the key's
 * hour, and on taken_ms for the daily partitions (hour is no partition key).
 */
static void raw_hours(char *buf, size_t size, int64_t from, int64_t to)
{
	snprintf(buf, size, "hour >= %" PRId64 " AND hour < %" PRId64 " AND taken_ms >= %" PRId64
		 " AND taken_ms < %" PRId64, from, to, from * HOUR_MS, to * HOUR_MS);
}

static void idents_release(struct idents *ids)
{
	free(ids->v);
	lru_hash_release(&ids->ix);
}

/*
 * Which snapshots of the jobs table holds: their identities, one a line,
 * into out (nothing asked, out left empty, when none is to be looked up).
 * With skip, only those taken before late_before and not in skip are looked
 * up, and only among the rows taken when they were.
 */
static enum lru_err stored_in(struct ch *ch, const char *table, struct ingest_job *jobs,
			      const struct idents *skip, int64_t late_before, struct lru_buf *out,
			      struct lru_error *err)
{
	struct lru_buf in;
	char tbl[160];
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	enum lru_err rc = LRU_OK;

	lru_buf_init(&in);
	for (struct ingest_job *j = jobs; j && !rc; j = j->next)
		for (size_t i = 0; i < j->n && !rc; i++) {
			const struct lru_snapshot *s = j->items[i].snap;
			const char *h = s->host.host ? s->host.host : "";
			const char *b = s->host.boot_id ? s->host.boot_id : "";
			int64_t taken = j->items[i].rows.taken_ms > 0 ? j->items[i].rows.taken_ms : 0;

			if (skip && (j->items[i].rows.taken_ms >= late_before ||
				     idents_has(skip, h, b, s->host.seq)))
				continue;
			lo = taken < lo ? taken : lo;
			hi = taken > hi ? taken : hi;
			rc = lru_buf_append(&in, in.len ? ",(" : "(", in.len ? 2 : 1, err) ||
			     ch_quote(&in, h, strlen(h), err) || lru_buf_append(&in, ",", 1, err) ||
			     ch_quote(&in, b, strlen(b), err) ||
			     lru_buf_printf(&in, err, ",%" PRIu64 ")", s->host.seq) ? LRU_ENOMEM : LRU_OK;
		}
	if (!rc && in.len) {
		struct lru_buf sql;

		lru_buf_init(&sql);
		rc = lru_buf_printf(&sql, err, "SELECT DISTINCT host, boot_id, seq FROM %s WHERE ",
				    ch_table(ch, table, tbl, sizeof(tbl)));
		if (!rc && skip) {	/* wss_samples: only the hours of those looked up */
			char where[128];

			raw_hours(where, sizeof(where), lo / HOUR_MS, hi / HOUR_MS + 1);
			rc = lru_buf_printf(&sql, err, "%s AND ", where);
		}
		if (!rc)
			rc = lru_buf_printf(&sql, err, "(host, boot_id, seq) IN (") ||
			     lru_buf_append(&sql, in.data, in.len, err) ||
			     lru_buf_append(&sql, ")", 2, err) ? LRU_ENOMEM : LRU_OK;	/* with the NUL */
		if (!rc)
			rc = ch_post(ch, (const char *)sql.data, NULL, 0, NULL, out, err);
		lru_buf_release(&sql);
	}
	lru_buf_release(&in);
	return rc;
}

/* Add the identities of a stored_in answer to ids (they point into out: keep it). */
static enum lru_err idents_read(struct idents *ids, struct lru_buf *out, struct lru_error *err)
{
	struct ch_rows r;

	ch_rows_init(&r, out);
	while (ch_rows_next(&r))
		if (r.nf == 3 && idents_add(ids, r.f[0], r.f[1], strtoull(r.f[2], NULL, 10)))
			return lru_fail(err, LRU_ENOMEM, "out of memory");
	return LRU_OK;
}

/*
 * Which snapshots of the jobs are stored already, into stored (pointing
 * into known[0..1]): those in snapshots, and of those about to go to the
 * rollups directly (taken before late_before), those whose samples are in
 * wss_samples: a round whose samples were written and whose snapshots
 * INSERT failed. Their samples count already (raw, or in their hour's
 * roll-up): written again as rollups, they would count twice.
 */
static enum lru_err stored_already(struct ch *ch, struct ingest_job *jobs, int64_t late_before,
				   struct idents *stored, struct lru_buf known[2],
				   struct lru_error *err)
{
	enum lru_err rc = stored_in(ch, "snapshots", jobs, NULL, 0, &known[0], err);

	rc = rc ? rc : idents_read(stored, &known[0], err);
	rc = rc ? rc : stored_in(ch, "wss_samples", jobs, stored, late_before, &known[1], err);
	return rc ? rc : idents_read(stored, &known[1], err);
}

/* how long an INSERT waits for another front-end's quorum INSERT into the same table */
#define QUORUM_WAIT_MS 10000
/* how long ClickHouse waits for the replicas of a quorum INSERT (its default: 10 minutes) */
#define QUORUM_TIMEOUT_MS "5000"

/*
 * One INSERT of rows. ClickHouse 18.16 takes one quorum INSERT into a table
 * (of a shard) at a time, until the replicas hold its part: "Code: 286 ...
 * Another quorum insert has been already started" or "Quorum for previous
 * write has not been satisfied yet" while another front-end's (or another
 * writer's) is under way. Wait and try again, QUORUM_WAIT_MS at most: past
 * it (a replica is down, so the quorum cannot be met) the round fails and
 * the collectors retry later. Other errors fail the round at once.
 */
/*
 * The settings of an INSERT through the Distributed tables, in set (8
 * entries): synchronous, and with insert_quorum past 1 acknowledged only
 * once that many replicas of each shard hold the rows. NULL without a cluster.
 */
static const char *const *insert_settings(struct ch *ch, const char *set[8])
{
	size_t n = 0;

	if (!ch->on_cluster[0])
		return NULL;
	set[n++] = "insert_distributed_sync";
	set[n++] = "1";
	if (ch->cfg->ch_insert_quorum > 1) {
		set[n++] = "insert_quorum_timeout";
		set[n++] = QUORUM_TIMEOUT_MS;
		set[n++] = "insert_quorum";
		set[n++] = ch->quorum;
	}
	set[n] = NULL;
	return set;
}

#define ROLL_SETTINGS 20	/* insert_settings' 6, 12 of its own, the NULL */

/*
 * The settings of a roll-up's INSERT ... SELECT, in set (ROLL_SETTINGS entries):
 * insert_settings', and its SELECT reads only replicas whose replication
 * lags less than a third of clickhouse-rollup-after (ch->roll_delay), never
 * a staler one (the roll fails and is tried again): a raw sample is written
 * that long before its hour is rolled up (late_bound), so every replica
 * read holds it, also with insert_quorum under the number of replicas.
 * Its GROUP BY spills to disk past clickhouse-rollup-spill bytes, on each
 * shard's server, and the initiator merges the shards' answers a bucket at
 * a time (distributed_aggregation_memory_efficient) rather than whole; it
 * may use clickhouse-rollup-memory at most (max_memory_usage). ClickHouse
 * spills only a two-level GROUP BY, which it becomes once its state holds
 * group_by_two_level_threshold_bytes (100 MB by default; many keys also
 * make it one, and a roll-up has few: paths x 8 x buckets): half the spill,
 * so that a small spill happens early. An hour of 300,000 samples took
 * 229 MB whole; spilling past 16 MiB, 116 MB with the default threshold and
 * 93 MB with half the spill (some 85 MB of it reading the hour, whatever
 * the spill).
 *
 * The GROUP BY holds a set of (host, boot_id, seq) per path, threshold and
 * bucket: 16 bytes and the hash table's room a sample and threshold. An
 * hour of 10 million samples (100,000 hosts at a snapshot an hour, or 3,300
 * hosts at one every 2 minutes) went past the 1.86 GiB max_memory_usage of
 * our test servers (ClickHouse's default is 10 GB); spilling past 512 MiB it
 * rolled up in 36 s.
 */
static const char *const *roll_settings(struct ch *ch, const char *set[ROLL_SETTINGS])
{
	size_t n = 0;

	if (insert_settings(ch, set)) {
		while (set[n])
			n++;
		set[n++] = "max_replica_delay_for_distributed_queries";
		set[n++] = ch->roll_delay;
		set[n++] = "fallback_to_stale_replicas_for_distributed_queries";
		set[n++] = "0";
		set[n++] = "distributed_aggregation_memory_efficient";
		set[n++] = "1";
	}
	if (ch->roll_spill[0]) {
		set[n++] = "max_bytes_before_external_group_by";
		set[n++] = ch->roll_spill;
		set[n++] = "group_by_two_level_threshold_bytes";
		set[n++] = ch->roll_two_level;
	}
	if (ch->roll_memory[0]) {
		set[n++] = "max_memory_usage";
		set[n++] = ch->roll_memory;
	}
	set[n] = NULL;
	return set;
}

/*
 * The dirty pairs (tables_v6): how long after a pair's newest dirty mark a
 * roll-up may begin and count every sample written before the mark: a
 * third of clickhouse-rollup-after, as for the first roll-up of an hour
 * (late_bound, roll_settings' replica delay); also how long a roll-up's
 * INSERT ... SELECT may take (roll_hour()).
 */
static int64_t dirty_settle_ms(const struct ch *ch)
{
	return (int64_t)(ch->cfg->ch_rollup_after_ms / 3);
}

/*
 * INSERT rows (NULL: an INSERT ... SELECT) with settings, each try up to
 * timeout_ms; retried while another quorum INSERT holds the table (Code
 * 286) for up to QUORUM_WAIT_MS.
 */
static enum lru_err insert(struct ch *ch, const char *sql, const struct lru_buf *rows,
			   const char *const *settings, long timeout_ms, struct lru_error *err)
{
	int64_t until = lru_now_ms() + QUORUM_WAIT_MS;
	unsigned delay_ms = 20;
	enum lru_err rc;

	for (;;) {
		rc = post_for(ch, atomic_load(&ch->next_url), ch->cfg->ch_urls.n, timeout_ms, sql,
			      rows ? rows->data : NULL, rows ? rows->len : 0, settings, NULL, err);
		if (rc != LRU_EPROTO || !strstr(err->msg, "Code: 286,") ||
		    lru_now_ms() + delay_ms > until)
			return rc;
		nanosleep(&(struct timespec){ 0, (long)delay_ms * 1000000 }, NULL);
		delay_ms = delay_ms < 320 ? delay_ms * 2 : delay_ms;
	}
}

/* how long the marks of a round wait for every server (marks_settings) */
#define MARKS_QUORUM_TIMEOUT_MS "10000"

/*
 * The settings of the first INSERT of marks (tables one on every server),
 * in set (5 entries; n holds the number as text), with insert_quorum the
 * number of replicas the table has: every server. A query reads the marks
 * once, on the server its front-end asks (ch_rolled_hours,
 * ch_dirty_pairs), and that may not be the one they were written to: were
 * the round's samples acknowledged before that server saw their marks,
 * its answers would leave them out (their hours or pairs read from the
 * rollups only) until the marks replicated. So the round waits until
 * every server holds them, MARKS_QUORUM_TIMEOUT_MS at most, else fails
 * (503: the collectors send it again), and while a server is down or does
 * not fetch, rounds with marks fail (those of late snapshots, replayed
 * spools). *out NULL: no quorum (no cluster, insert_quorum 1, one replica).
 */
static enum lru_err marks_settings(struct ch *ch, const char *table, const char *set[5],
				   char n[24], const char *const **out, struct lru_error *err)
{
	struct lru_buf sql, ans;
	struct ch_rows r;
	int64_t replicas = 0;
	enum lru_err rc;

	*out = NULL;
	if (!ch->on_cluster[0] || ch->cfg->ch_insert_quorum <= 1)
		return LRU_OK;
	lru_buf_init(&sql);
	lru_buf_init(&ans);
	rc = lru_buf_printf(&sql, err, "SELECT total_replicas FROM system.replicas WHERE database = ") ||
	     ch_quote(&sql, ch->cfg->ch_database, strlen(ch->cfg->ch_database), err) ||
	     lru_buf_printf(&sql, err, " AND table = '%s'", table) || lru_buf_append(&sql, "", 1, err)
	     ? LRU_ENOMEM : ch_post(ch, (const char *)sql.data, NULL, 0, NULL, &ans, err);
	if (!rc) {
		ch_rows_init(&r, &ans);
		replicas = ch_rows_next(&r) ? strtoll(r.f[0], NULL, 10) : 0;
	}
	lru_buf_release(&sql);
	lru_buf_release(&ans);
	if (rc || replicas <= 1)
		return rc;
	snprintf(n, 24, "%" PRId64, replicas);
	set[0] = "insert_quorum";
	set[1] = n;
	set[2] = "insert_quorum_timeout";
	set[3] = MARKS_QUORUM_TIMEOUT_MS;
	set[4] = NULL;
	*out = set;
	return LRU_OK;
}

/*
 * Write the jobs' snapshots; set each job's accepted and duplicates (those
 * stored before, and repeats within the round). A snapshot stored before
 * is written again all the same: an earlier INSERT may have stopped between
 * its raw row and the views it feeds, and the replacing engines keep one row
 * of each anyway.
 */
/* INSERT the rows of b, table by table in the order of insert_into. */
static enum lru_err write_batch(struct ch *ch, struct batch *b, struct lru_error *err)
{
	/* a quorum not met in QUORUM_TIMEOUT_MS fails the INSERT (a replica is down: 503) */
	const char *set[8], *const *settings = insert_settings(ch, set), *mset[5];
	const char *const *marks;
	enum lru_err rc = LRU_OK;
	char tbl[160], sql[256], n[24], why[LRU_ERRMSG_MAX];

	/* T_NR: the dirty marks again, once the samples are in */
	for (int kk = 0; !rc && kk <= T_NR; kk++) {
		int k = kk == T_NR ? T_DIRTY : kk;

		if (k == T_DIRTY && b->nr_dirty && (rc = put_dirty(b, err)))
			break;
		if (!rc && b->t[k].len) {
			int64_t t0 = lru_now_ms();

			if (EVERYWHERE(k))	/* one table on every server */
				snprintf(tbl, sizeof(tbl), "%s.%s", ch->cfg->ch_database, insert_into[k]);
			else
				ch_table(ch, insert_into[k], tbl, sizeof(tbl));
			snprintf(sql, sizeof(sql), "INSERT INTO %s FORMAT TabSeparated", tbl);
			if (!EVERYWHERE(k)) {
				rc = insert(ch, sql, &b->t[k], settings, (long)ch->cfg->ch_timeout_ms, err);
			} else if (kk == T_NR) {
				rc = insert(ch, sql, &b->t[k], NULL, (long)ch->cfg->ch_timeout_ms, err);
			} else {	/* the marks first, on every server (marks_settings) */
				rc = marks_settings(ch, insert_into[k], mset, n, &marks, err);
				rc = rc ? rc : insert(ch, sql, &b->t[k], marks, (long)ch->cfg->ch_timeout_ms, err);
				if (rc) {
					snprintf(why, sizeof(why), "%s", err->msg);
					lru_fail(err, rc, "the marks of its %s did not reach every server "
						 "(one down or behind?): %s", k == T_DIRTY ?
						 "late samples" : "rollups", why);
				}
			}
			log_debug("clickhouse: %s: %zu bytes in %" PRId64 " ms", insert_into[k],
				  b->t[k].len, lru_now_ms() - t0);
		}
	}
	return rc;
}

static void batch_release(struct batch *b)
{
	for (int k = 0; k < T_NR; k++)
		lru_buf_release(&b->t[k]);
	free(b->dirty);
	lru_hash_release(&b->dirty_ix);
	memset(b, 0, sizeof(*b));
}

/* ---- importing --------------------------------------------------------------------- */

/* the part of imported rollups: rows of another store, imported again, replace themselves */
#define IMPORT_PART 0x6c727567656e2d69ULL	/* "lrugen-i" */
#define IMPORT_FLUSH_BYTES (4u << 20)

struct ch_import {
	struct batch b;
};

enum lru_err ch_import_rollup(struct ch *ch, struct ch_import **imp, const char *path,
			      const struct rollup_cell *c, struct lru_error *err)
{
	struct batch *b;
	enum lru_err rc = LRU_OK;

	if (!*imp && !(*imp = calloc(1, sizeof(**imp))))
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	b = &(*imp)->b;
	if (!c->samples)
		return LRU_OK;
	rc = mark_hour(b, c->hour, lru_now_ms(), err);
	for (unsigned k = 0; !rc && k < LRU_FLEET_NR_THRESHOLDS; k++)
		for (size_t i = 0; !rc && i < c->h[k].n; i++)
			rc = tsv_str(&b->t[T_HOURLY], path, strlen(path), err) ||
			     lru_buf_printf(&b->t[T_HOURLY], err, "\t%" PRId64 "\t%llu\t%u\t%u\t%"
					    PRIu64 "\t%" PRIu64 "\n", c->hour, IMPORT_PART, k,
					    c->h[k].b[i].index, c->h[k].b[i].count, c->h[k].b[i].max)
			     ? LRU_ENOMEM : LRU_OK;
	rc = rc || put_hourly_n(b, path, c->hour, IMPORT_PART, c->samples, c->warn.n, err);
	if (!rc && b->t[T_HOURLY].len > IMPORT_FLUSH_BYTES)
		rc = ch_import_flush(ch, imp, err);
	return rc;
}

enum lru_err ch_import_flush(struct ch *ch, struct ch_import **imp, struct lru_error *err)
{
	enum lru_err rc;

	if (!*imp)
		return LRU_OK;
	rc = write_batch(ch, &(*imp)->b, err);
	batch_release(&(*imp)->b);
	return rc;
}

void ch_import_free(struct ch_import *imp)
{
	if (imp)
		batch_release(&imp->b);
	free(imp);
}

static enum lru_err write_jobs(struct ch *ch, struct ingest_job *jobs, struct lru_error *err)
{
	/* a quorum not met in QUORUM_TIMEOUT_MS fails the INSERT (a replica is down: 503) */
	struct idents stored = { 0 }, round = { 0 };
	struct lru_buf known[2];
	struct batch b;
	int64_t now = lru_now_ms();
	enum lru_err rc;

	memset(&b, 0, sizeof(b));
	b.direct_before = day_cutoff(now + ROLL_MARGIN_MS, ch->cfg->raw_retention_ms);
	b.late_before = late_bound(ch, now);
	if (b.late_before < b.direct_before)
		b.late_before = b.direct_before;
	lru_buf_init(&known[0]);
	lru_buf_init(&known[1]);
	rc = stored_already(ch, jobs, b.late_before, &stored, known, err);
	log_debug("clickhouse: duplicates check in %" PRId64 " ms", lru_now_ms() - now);
	for (struct ingest_job *j = jobs; j && !rc; j = j->next) {
		j->accepted = j->duplicates = 0;
		for (size_t i = 0; i < j->n && !rc; i++) {
			const struct lru_snapshot *s = j->items[i].snap;
			const char *h = s->host.host ? s->host.host : "";
			const char *bt = s->host.boot_id ? s->host.boot_id : "";
			bool known_already;

			if (idents_has(&round, h, bt, s->host.seq)) {
				j->duplicates++;
				continue;
			}
			known_already = idents_has(&stored, h, bt, s->host.seq);
			if (known_already)
				j->duplicates++;
			else
				j->accepted++;
			rc = put_snapshot(&b, &j->items[i], now, known_already, err);
			if (!rc && idents_add(&round, h, bt, s->host.seq))
				rc = lru_fail(err, LRU_ENOMEM, "out of memory");
		}
	}
	if (!rc)
		rc = write_batch(ch, &b, err);
	batch_release(&b);
	lru_buf_release(&known[0]);
	lru_buf_release(&known[1]);
	idents_release(&stored);
	idents_release(&round);
	return rc;
}


static bool stopping(struct ch *ch)
{
	bool stop;

	pthread_mutex_lock(&ch->lock);
	stop = ch->stopping;
	pthread_mutex_unlock(&ch->lock);
	return stop;
}


/* The hours from .. to-1 marked rolled up (on the server that answers), a bit each: to - from <= 64. */
static enum lru_err rolled_mask(struct ch *ch, int64_t from, int64_t to, uint64_t *mask,
				struct lru_error *err)
{
	char sql[256];
	struct lru_buf out;
	struct ch_rows r;
	enum lru_err rc;

	snprintf(sql, sizeof(sql), "SELECT DISTINCT hour FROM %s.wss_hours_local WHERE part = %d AND "
		 "hour >= %" PRId64 " AND hour < %" PRId64, ch->cfg->ch_database, ROLL_PART, from, to);
	lru_buf_init(&out);
	*mask = 0;
	rc = ch_select(ch, sql, &out, err);
	ch_rows_init(&r, &out);
	while (!rc && ch_rows_next(&r)) {
		int64_t h = strtoll(r.f[0], NULL, 10);

		if (h >= from && h < to)
			*mask |= 1ULL << (h - from);
	}
	lru_buf_release(&out);
	return rc;
}

/*
 * The (hour, path) pairs with late raw samples not rolled up yet (see
 * tables_v6), as a subquery of this server's marks appended to b:
 * "(SELECT COLS FROM DB.wss_dirty_local WHERE WHERE GROUP BY hour, path
 * HAVING <dirty>)"; with settled_before (ms), only those whose newest dirty
 * mark is older. Run on one server only (dirty_rows, dirty_hours, each
 * server in roll_day_dirty), never inside a Distributed read (see
 * ch_dirty_pairs). -1 out of memory.
 */
static int dirty_sql(const struct ch *ch, struct lru_buf *b, const char *cols, const char *where,
			int64_t settled_before)
{
	if (lru_buf_printf(b, NULL, "(SELECT %s FROM %s.wss_dirty_local WHERE %s GROUP BY hour, path "
			   "HAVING maxIf(at_ms, kind = 0) + %" PRId64 " >= maxIf(at_ms, kind = 1)", cols,
			   ch->cfg->ch_database, where, dirty_settle_ms(ch)))
		return -1;
	if (settled_before && lru_buf_printf(b, NULL, " AND maxIf(at_ms, kind = 0) < %" PRId64,
					     settled_before))
		return -1;
	return lru_buf_append(b, ")", 1, NULL) ? -1 : 0;
}

/*
 * The rows of dirty_sql(where) ("hour, path"), read once on the server
 * the front-end asks, each through add(arg, hour, path, its length).
 */
static enum lru_err dirty_rows(struct ch *ch, const char *where, int64_t settled_before,
			       enum lru_err (*add)(void *arg, int64_t hour, const char *path, size_t n,
						   struct lru_error *err),
			       void *arg, struct lru_error *err)
{
	struct lru_buf sql, out;
	struct ch_rows r;
	enum lru_err rc = LRU_OK;

	lru_buf_init(&sql);
	lru_buf_init(&out);
	if (lru_buf_append(&sql, "SELECT hour, path FROM ", 23, err) ||
	    dirty_sql(ch, &sql, "hour, path", where, settled_before) || lru_buf_append(&sql, "", 1, err))
		rc = lru_fail(err, LRU_ENOMEM, "out of memory");
	if (!rc)
		rc = ch_select(ch, (const char *)sql.data, &out, err);
	ch_rows_init(&r, &out);
	while (!rc && ch_rows_next(&r))
		if (r.nf == 2)
			rc = add(arg, strtoll(r.f[0], NULL, 10), r.f[1], r.len[1], err);
	lru_buf_release(&sql);
	lru_buf_release(&out);
	return rc;
}

static enum lru_err add_pair(void *arg, int64_t hour, const char *path, size_t n, struct lru_error *err)
{
	struct lru_buf *b = arg;

	return lru_buf_printf(b, err, ", (%" PRId64 ", ", hour) || ch_quote(b, path, n, err) ||
	       lru_buf_append(b, ")", 1, err) ? LRU_ENOMEM : LRU_OK;
}

enum lru_err ch_dirty_pairs(struct ch *ch, const char *where, struct lru_buf *b, struct lru_error *err)
{
	enum lru_err rc = lru_buf_append(b, "((-1, '')", 9, err);

	rc = rc ? rc : dirty_rows(ch, where, 0, add_pair, b, err);
	return rc || lru_buf_append(b, ")", 1, err) ? (rc ? rc : LRU_ENOMEM) : LRU_OK;
}

/* A settled dirty pair of the hour a roll-up takes: its path listed, its clean mark (TSV). */
struct settled {
	struct lru_buf list, marks;
	int64_t at_ms;
	size_t n;
};

static enum lru_err add_settled(void *arg, int64_t hour, const char *path, size_t n,
				struct lru_error *err)
{
	struct settled *st = arg;
	bool first = !st->n++;

	return lru_buf_append(&st->list, first ? " AND path IN (" : ", ", first ? 14 : 2, err) ||
	       ch_quote(&st->list, path, n, err) ||
	       lru_buf_printf(&st->marks, err, "%" PRId64 "\t", hour) || tsv_str(&st->marks, path, n, err) ||
	       lru_buf_printf(&st->marks, err, "\t1\t%" PRId64 "\n", st->at_ms) ? LRU_ENOMEM : LRU_OK;
}

/*
 * Roll the raw samples of hour h up into wss_hourly(_n) as part ROLL_PART
 * and mark the hour so in wss_hours: from then on queries count the hour
 * from the rollups only (a server that does not see the mark yet counts
 * its raw samples, the same answer). Each sample counts once: distinct
 * (host, boot_id, seq), a snapshot stored twice being two alike rows.
 * Rolling an hour again (a failure before the mark, another front-end's
 * maintenance) writes rows of the same keys, which replace the first ones;
 * an hour without raw samples gets its mark all the same.
 *
 * With settled_before, the dirty pairs of the hour whose newest dirty mark
 * is older than it (see dirty_sql), read once before the roll-up, get
 * clean marks at the time the roll-up began: their samples are in it. With
 * pairs_only, only their paths' samples are rolled up (again: as large or
 * larger than before, raw samples only come until the day is dropped), and
 * the hour gets no mark. The paths go to the shards as a list, not as a
 * subquery each shard's server would run by its own replica of the marks
 * (see ch_dirty_pairs).
 */
static enum lru_err roll_hour(struct ch *ch, int64_t h, bool pairs_only, int64_t settled_before,
			      struct lru_error *err)
{
	/* and max_query_size, max_ast_elements for a long list of paths (size_settings) */
	const char *set[ROLL_SETTINGS + 4];
	size_t nset = 0;
	/*
	 * a roll-up of a large hour takes minutes: it waits up to
	 * dirty_settle_ms() (its settling margin), not cut short at
	 * clickhouse-timeout and sent to the next server while the first one
	 * still runs it (18.16 goes on with an INSERT whose client left)
	 */
	long t = (long)(dirty_settle_ms(ch) > (int64_t)ch->cfg->ch_timeout_ms ?
			dirty_settle_ms(ch) : (int64_t)ch->cfg->ch_timeout_ms);
	struct settled st = { .at_ms = lru_now_ms() };
	char raw[160], tbl[160], where[256], size[24], ast[24];
	const char *w;
	struct lru_buf warn, sql;
	enum lru_err rc = LRU_OK;

	for (roll_settings(ch, set); set[nset]; nset++)
		;
	ch_table(ch, "wss_samples", raw, sizeof(raw));
	raw_hours(where, sizeof(where), h, h + 1);
	lru_buf_init(&st.list);
	lru_buf_init(&st.marks);
	lru_buf_init(&warn);
	lru_buf_init(&sql);
	if (settled_before) {
		char pair[64];

		snprintf(pair, sizeof(pair), "hour = %" PRId64, h);
		rc = dirty_rows(ch, pair, settled_before, add_settled, &st, err);
		if (!rc && st.n && lru_buf_append(&st.list, ")", 1, err))
			rc = LRU_ENOMEM;
	}
	if (rc || (pairs_only && !st.n))	/* (another front-end rolled them up) */
		goto out;
	w = pairs_only ? (const char *)st.list.data : "";
	for (unsigned b = 0; !rc && b < LRU_FLEET_WARN_BITS; b++)
		rc = lru_buf_printf(&warn, err, "%suniqExactIf(host, boot_id, seq, bitAnd(warnings, %u) "
				    "!= 0)", b ? ", " : "", 1u << b);
	rc = rc || lru_buf_printf(&sql, err, "INSERT INTO %s (path, hour, part, k, bucket, n, max) "
		 "SELECT path, toInt64(%" PRId64 "), toUInt64(%d), k, bucket, uniqExact(host, boot_id, "
		 "seq), max(hot) FROM (SELECT path, host, boot_id, seq, toUInt8(i - 1) AS k, "
		 "toUInt64(total - c) AS hot, " CH_HOT_BUCKET " FROM %s ARRAY JOIN cold AS c, "
		 "arrayEnumerate(cold) AS i WHERE %s%.*s) GROUP BY path, k, bucket",
		 ch_table(ch, "wss_hourly", tbl, sizeof(tbl)), h, ROLL_PART, raw, where,
		 pairs_only ? (int)st.list.len : 0, w) || lru_buf_append(&sql, "", 1, err) ? LRU_ENOMEM : LRU_OK;
	size_settings(set, nset, sql.len, size, ast);
	if (!rc)
		rc = insert(ch, (const char *)sql.data, NULL, set, t, err);
	sql.len = 0;
	rc = rc || lru_buf_printf(&sql, err, "INSERT INTO %s (path, hour, part, n, warn) SELECT "
			    "path, toInt64(%" PRId64 "), toUInt64(%d), uniqExact(host, boot_id, seq), "
			    "[%.*s] FROM %s WHERE %s%.*s GROUP BY path",
			    ch_table(ch, "wss_hourly_n", tbl, sizeof(tbl)), h, ROLL_PART, (int)warn.len,
			    (const char *)warn.data, raw, where, pairs_only ? (int)st.list.len : 0, w) ||
	     lru_buf_append(&sql, "", 1, err) ? (rc ? rc : LRU_ENOMEM) : LRU_OK;
	size_settings(set, nset, sql.len, size, ast);
	if (!rc)
		rc = insert(ch, (const char *)sql.data, NULL, set, t, err);
	if (!rc && !pairs_only)
		rc = run_ddl(ch, err, "INSERT INTO %s.wss_hours_local VALUES (%" PRId64 ", %d, %" PRId64
			     ")", ch->cfg->ch_database, h, ROLL_PART, lru_now_ms());
	if (!rc && st.n) {
		snprintf(tbl, sizeof(tbl), "INSERT INTO %s.wss_dirty_local (hour, path, kind, at_ms) "
			 "FORMAT TabSeparated", ch->cfg->ch_database);
		rc = insert(ch, tbl, &st.marks, NULL, (long)ch->cfg->ch_timeout_ms, err);
	}
out:
	lru_buf_release(&st.list);
	lru_buf_release(&st.marks);
	lru_buf_release(&warn);
	lru_buf_release(&sql);
	return rc;
}

/*
 * The hours from hour 'from' to 'to' (exclusive) with dirty pairs whose
 * newest dirty mark is older than settled_before, into hs (at most
 * MAX_DIRTY_HOURS, the oldest first).
 */
#define MAX_DIRTY_HOURS 256
static enum lru_err dirty_hours(struct ch *ch, int64_t from, int64_t to, int64_t settled_before,
				struct hours *hs, struct lru_error *err)
{
	char where[128];
	struct lru_buf sql, out;
	struct ch_rows r;
	enum lru_err rc;

	snprintf(where, sizeof(where), "hour >= %" PRId64 " AND hour < %" PRId64, from, to);
	lru_buf_init(&sql);
	lru_buf_init(&out);
	hs->n = 0;
	rc = lru_buf_printf(&sql, err, "SELECT DISTINCT hour FROM ") ||
	     dirty_sql(ch, &sql, "hour, path", where, settled_before) ||
	     lru_buf_printf(&sql, err, " ORDER BY hour LIMIT %d", MAX_DIRTY_HOURS) ? LRU_ENOMEM : LRU_OK;
	if (!rc)
		rc = ch_select(ch, (const char *)sql.data, &out, err);
	ch_rows_init(&r, &out);
	while (!rc && ch_rows_next(&r))
		if (hours_add(hs, strtoll(r.f[0], NULL, 10)))
			rc = lru_fail(err, LRU_ENOMEM, "out of memory");
	lru_buf_release(&sql);
	lru_buf_release(&out);
	return rc;
}

/*
 * Roll up again the dirty pairs of the hours hs (dirty_hours). An hour not
 * rolled up at all (before the first hour the maintenance rolled up when it
 * began: a spool replayed into hours no one rolled up) is rolled up whole,
 * so that its samples are read as rollups from then on.
 */
static enum lru_err roll_dirty(struct ch *ch, const struct hours *hs, int64_t settled_before,
			       struct lru_error *err)
{
	for (size_t i = 0; i < hs->n && !stopping(ch); i++) {
		int64_t t0 = lru_now_ms();
		uint64_t rolled;
		enum lru_err rc = rolled_mask(ch, hs->v[i], hs->v[i] + 1, &rolled, err);

		if (!rc)
			rc = roll_hour(ch, hs->v[i], rolled != 0, settled_before, err);

		if (rc) {
			log_warn("clickhouse: rolling up the late samples of hour %" PRId64 " again "
				 "(their raw samples count until then): %s", hs->v[i], err->msg);
			return rc;
		}
		log_info("clickhouse: rolled up the late samples of hour %" PRId64 " again in %"
			 PRId64 " ms", hs->v[i], lru_now_ms() - t0);
		atomic_fetch_add(&ch->m->rerolled_hours, 1);
	}
	return LRU_OK;
}

/*
 * The maintenance's second roll-up: the dirty pairs of the hours within
 * raw-retention whose late samples settled (their newest dirty mark a
 * dirty_settle_ms() old), so that queries read them as rollups again.
 */
static void reroll_hours(struct ch *ch)
{
	int64_t now = lru_now_ms();
	struct hours hs = { 0 };
	struct lru_error err;

	if (dirty_hours(ch, day_cutoff(now, ch->cfg->raw_retention_ms) / HOUR_MS, roll_bound(ch, now),
			now - dirty_settle_ms(ch), &hs, &err))
		log_warn("clickhouse: looking for hours with late samples: %s", err.msg);
	else
		roll_dirty(ch, &hs, now - dirty_settle_ms(ch), &err);
	hours_release(&hs);
}

/* The first hour (since the epoch) of UTC day YYYYMMDD; -1 if it is not one. */
static int64_t day_first_hour(const char *day)
{
	struct tm tm = { 0 };
	unsigned long d;
	char *end;

	d = strtoul(day, &end, 10);
	if (*end || d < 19700101 || d > 99991231)
		return -1;
	tm.tm_year = (int)(d / 10000) - 1900;
	tm.tm_mon = (int)(d / 100 % 100) - 1;
	tm.tm_mday = (int)(d % 100);
	return (int64_t)timegm(&tm) / 3600;
}

/*
 * The first hour of the oldest day from hour start (the first of a day) on
 * with raw samples on any shard, or bound if none before it; -1 on error.
 * A probe a day through the Distributed table (LIMIT 1 in the day's
 * partition): a server's own parts would miss a day only another shard
 * holds, or that its replica has not fetched yet.
 */
static int64_t oldest_raw_day(struct ch *ch, int64_t start, int64_t bound, struct lru_error *err)
{
	char sql[512], raw[160];

	ch_table(ch, "wss_samples", raw, sizeof(raw));
	for (int64_t h = start; h < bound; h += 24) {
		int64_t any;

		/*
		 * taken_ms only (the day's partition), not raw_hours: 18.16 fails this
		 * SELECT 1 through a Distributed table with conditions on two columns
		 * (seen with the local replica's table empty: "Cannot find column
		 * `greaterOrEquals(taken_ms, ...)` in source stream"), which
		 * clickhouse_store.sh's lagging replica makes
		 */
		snprintf(sql, sizeof(sql), "SELECT count() FROM (SELECT 1 FROM %s WHERE taken_ms >= %"
			 PRId64 " AND taken_ms < %" PRId64 " LIMIT 1)", raw, h * HOUR_MS,
			 (h + 24) * HOUR_MS);
		if ((any = scalar_at(ch, atomic_load(&ch->next_url), sql, err)) < 0)
			return -1;
		if (any)
			return h;
	}
	return bound;
}

/*
 * The maintenance's roll-up: every hour from ch->roll_next up to roll_bound,
 * in order; an hour marked already (another front-end) is not rolled again.
 * Usually one hour an hour. At first, roll_next is the hour after the newest
 * one rolled up, or else the first of the oldest day with raw samples on
 * any shard (oldest_raw_day) and not before raw-retention, or without raw
 * samples roll_bound; the hours before it (a database of version 3) are
 * rolled up when their day expires (roll_day).
 */
static void roll_hours(struct ch *ch)
{
	int64_t bound = roll_bound(ch, lru_now_ms());
	struct lru_error err;

	if (atomic_load(&ch->roll_next) < 0) {
		char sql[512];
		int64_t start = day_cutoff(lru_now_ms(), ch->cfg->raw_retention_ms) / HOUR_MS;
		int64_t newest, oldest;

		snprintf(sql, sizeof(sql), "SELECT max(hour) FROM %s.wss_hours_local WHERE part = %d",
			 ch->cfg->ch_database, ROLL_PART);
		if ((newest = scalar_at(ch, atomic_load(&ch->next_url), sql, &err)) < 0) {
			log_warn("clickhouse: looking for the hours rolled up: %s", err.msg);
			return;
		}
		if (newest > 0) {
			atomic_store(&ch->roll_next, newest + 1 > start ? newest + 1 : start);
		} else {
			if ((oldest = oldest_raw_day(ch, start, bound, &err)) < 0) {
				log_warn("clickhouse: looking for the oldest raw samples: %s", err.msg);
				return;
			}
			/* no raw samples: any for an hour before bound are late (dirty pairs) */
			atomic_store(&ch->roll_next, oldest);
		}
		{
			time_t t = (time_t)(atomic_load(&ch->roll_next) * 3600);
			char when[32];
			struct tm tm;

			strftime(when, sizeof(when), "%Y-%m-%d %H:00 UTC", gmtime_r(&t, &tm));
			log_info("clickhouse: rolling up the hours from %s (hour %" PRId64 ") on", when,
				 atomic_load(&ch->roll_next));
		}
	}
	while (atomic_load(&ch->roll_next) < bound && !stopping(ch)) {
		int64_t from = atomic_load(&ch->roll_next), to = bound - from > 64 ? from + 64 : bound;
		uint64_t mask;

		if (rolled_mask(ch, from, to, &mask, &err)) {
			log_warn("clickhouse: looking for the hours rolled up: %s", err.msg);
			return;
		}
		for (int64_t h = from; h < to && !stopping(ch); h++) {
			if (!(mask >> (h - from) & 1)) {
				int64_t t0 = lru_now_ms();

				if (roll_hour(ch, h, false, lru_now_ms() - dirty_settle_ms(ch), &err)) {
					log_warn("clickhouse: rolling up hour %" PRId64 " (its raw samples "
						 "count until then): %s", h, err.msg);
					return;
				}
				log_info("clickhouse: rolled up the working-set samples of hour %" PRId64
					 " in %" PRId64 " ms", h, lru_now_ms() - t0);
				atomic_fetch_add(&ch->m->rolled_hours, 1);
			}
			atomic_store(&ch->roll_next, h + 1);
		}
	}
}

/*
 * Before the raw samples of a day are dropped: roll its dirty pairs up again,
 * then wait until every server sees none left. A pair marked dirty less than
 * dirty_settle_ms() ago (late samples arrive until ROLL_MARGIN_MS before the day
 * is dropped) keeps the whole day until a later round.
 */
static enum lru_err roll_day_dirty(struct ch *ch, const char *day, int64_t first,
				   struct lru_error *err)
{
	int64_t now = lru_now_ms();
	struct hours hs = { 0 };
	struct lru_buf sql;
	char where[128];
	enum lru_err rc;

	rc = dirty_hours(ch, first, first + 24, now - dirty_settle_ms(ch), &hs, err);
	rc = rc ? rc : roll_dirty(ch, &hs, now - dirty_settle_ms(ch), err);
	hours_release(&hs);
	if (rc)
		return rc;
	snprintf(where, sizeof(where), "hour >= %" PRId64 " AND hour < %" PRId64, first, first + 24);
	lru_buf_init(&sql);
	rc = lru_buf_printf(&sql, err, "SELECT count() = 0 FROM ") ||
	     dirty_sql(ch, &sql, "hour, path", where, 0) ||
	     lru_buf_append(&sql, "", 1, err) ? LRU_ENOMEM : LRU_OK;
	if (!rc && scalar_at(ch, atomic_load(&ch->next_url), (const char *)sql.data, err) == 0)
		rc = lru_fail(err, LRU_EBUSY, "late samples of day %s arrived less than %" PRId64
			      " s ago: rolled up later", day, dirty_settle_ms(ch) / 1000);
	if (!rc)
		rc = wait_everywhere(ch, (const char *)sql.data, 1, "the day's late samples rolled up",
				     err);
	lru_buf_release(&sql);
	return rc;
}

/*
 * Before the raw samples of day (YYYYMMDD) are dropped: roll up every hour
 * of it not rolled up yet (a day of an older version's rows, or of a
 * roll-up that failed), unless the whole day was rolled up at once
 * (versions 2 and 3 did, marking it in wss_days); then wait until every
 * server sees the marks, so that no query counts the day from its raw rows
 * once they are gone.
 */
static enum lru_err roll_day(struct ch *ch, const char *day, struct lru_error *err)
{
	int64_t first = day_first_hour(day);
	char sql[256];
	uint64_t mask;
	enum lru_err rc;

	if (first < 0)
		return lru_fail(err, LRU_EINVAL, "'%s' is not a day", day);
	snprintf(sql, sizeof(sql), "SELECT count() FROM %s.wss_days_local WHERE day = %s AND part != 0",
		 ch->cfg->ch_database, day);
	switch (scalar_at(ch, atomic_load(&ch->next_url), sql, err)) {
	case -1:
		return err->code;	/* not known: roll nothing (a day rolled whole would count twice) */
	case 0:
		break;
	default:
		return LRU_OK;
	}
	if ((rc = rolled_mask(ch, first, first + 24, &mask, err)))
		return rc;
	for (int64_t h = first; h < first + 24 && !rc; h++)
		if (!(mask >> (h - first) & 1))
			rc = roll_hour(ch, h, false, lru_now_ms() - dirty_settle_ms(ch), err);
	if (rc)
		return rc;
	if ((rc = roll_day_dirty(ch, day, first, err)))
		return rc;
	if (mask != (1ULL << 24) - 1)
		log_info("clickhouse: rolled up the working-set samples of day %s", day);
	snprintf(sql, sizeof(sql), "SELECT uniqExact(hour) FROM %s.wss_hours_local WHERE part = %d AND "
		 "hour >= %" PRId64 " AND hour < %" PRId64, ch->cfg->ch_database, ROLL_PART, first,
		 first + 24);
	return wait_everywhere(ch, sql, 24, "the rolled-up day", err);
}

enum lru_err ch_rolled_hours(struct ch *ch, int64_t from_ms, struct hours *rolled,
			     struct hours *marked, struct lru_error *err)
{
	const char *db = ch->cfg->ch_database;
	int64_t from = (from_ms > 0 ? from_ms : 0) / HOUR_MS;
	char sql[512];
	struct lru_buf out;
	struct ch_rows r;
	enum lru_err rc;

	/* kind 0: the days of wss_days (versions 2, 3), kind 1: the hours of wss_hours */
	snprintf(sql, sizeof(sql), "SELECT 0, toInt64(day), max(part != 0) FROM %s.wss_days_local "
		 "WHERE day >= toYYYYMMDD(toDateTime(%" PRId64 ", 'UTC')) GROUP BY day UNION ALL "
		 "SELECT 1, hour, max(part != 0) FROM %s.wss_hours_local WHERE hour >= %" PRId64
		 " GROUP BY hour", db, from * 3600, db, from);
	lru_buf_init(&out);
	rolled->n = marked->n = 0;
	rc = ch_select(ch, sql, &out, err);
	ch_rows_init(&r, &out);
	while (!rc && ch_rows_next(&r)) {
		bool day = r.nf == 3 && !strcmp(r.f[0], "0"), was_rolled = r.nf == 3 && !strcmp(r.f[2], "1");
		int64_t first = r.nf != 3 ? -1 : day ? day_first_hour(r.f[1]) : strtoll(r.f[1], NULL, 10);

		if (first < 0)
			continue;
		for (int64_t h = first; h < first + (day ? 24 : 1) && !rc; h++)
			if (h >= from && (hours_add(marked, h) || (was_rolled && hours_add(rolled, h))))
				rc = lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	lru_buf_release(&out);
	hours_sort(rolled);
	hours_sort(marked);
	return rc;
}

/*
 * Retention, in whole UTC days (daily partitions, so a row is kept up to a
 * day longer than its setting). The raw rows (wss_samples, snapshots) of
 * the days that ended more than raw-retention ago are dropped, the samples
 * once rolled up (roll_day); the rollups past rollup-retention too. The days
 * come from the rows themselves (one cheap query: the partition key prunes);
 * most rounds find none and change nothing. Dropping a partition that is
 * gone already does nothing, so every front-end may do it.
 */
static const struct expiry {
	const char *table, *day, *time;
	bool rollups, roll;	/* rollup-retention and hours (else raw-retention and ms); roll_day first */
} expiries[] = {
	{ "wss_samples", PARTITION_BY_DAY, "taken_ms", false, true },
	{ "memcg_samples", PARTITION_BY_DAY, "taken_ms", false, false },	/* before version 5 */
	{ "snapshots", PARTITION_BY_DAY, "taken_ms", false, false },
	{ "wss_hourly", PARTITION_BY_HOUR_DAY, "hour", true, false },
	{ "wss_hourly_n", PARTITION_BY_HOUR_DAY, "hour", true, false },
};

/*
 * A DROP PARTITION ON CLUSTER (when some shard has no server in
 * clickhouse-url: drop_partition) is a task in ZooKeeper's DDL queue that
 * every server runs in turn; on a loaded cluster it can fail or time out
 * while its task is still queued. Sent again every round, such tasks pile
 * up and every ON CLUSTER statement (--migrate's too) waits behind them. So
 * a day's DROP of a table that failed (either way) is not sent again for
 * DROP_RETRY_MS (18.16's distributed_ddl_task_timeout). One that succeeded is sent again at the
 * next round if the day still shows (a part a replica fetched after it): it
 * costs a moment. drop_note(ch, table, day, false): whether one failed less
 * than that ago; drop_note(..., true): one failed now (the oldest note makes
 * way).
 */
#define DROP_RETRY_MS (180 * 1000)

static bool drop_note(struct ch *ch, const char *table, const char *day, bool sent)
{
	int64_t now = lru_now_ms();
	struct ch_drop *d, *oldest = &ch->drops[0];
	char key[sizeof(oldest->key)];

	snprintf(key, sizeof(key), "%s/%s", table, day);
	for (d = ch->drops; d < ch->drops + sizeof(ch->drops) / sizeof(ch->drops[0]); d++) {
		if (!strcmp(d->key, key)) {
			oldest = d;
			break;
		}
		if (d->at_ms < oldest->at_ms)
			oldest = d;
	}
	if (!sent)
		return !strcmp(oldest->key, key) && now - oldest->at_ms < DROP_RETRY_MS;
	snprintf(oldest->key, sizeof(oldest->key), "%s", key);
	oldest->at_ms = now;
	return true;
}

/*
 * Where a partition is dropped: on one server of each shard, not ON CLUSTER.
 * A replicated table's DROP PARTITION on one replica reaches the others by
 * the replication log; ON CLUSTER is a task of the DDL queue that every
 * server's worker must run, and 18.16's worker can die (a replicated ALTER
 * ON CLUSTER whose shard lock a ZooKeeper restart took: "Unexpected
 * ZooKeeper error ... Node exists", it terminates): from then on every ON
 * CLUSTER statement waits 180 s for that server and fails, until it
 * restarts. shard_urls sets shard[u] to the shard (1-based) of clickhouse-url's
 * server u, 0 for one that does not answer, and returns how many shards
 * the cluster has; 0 when one of them has no server answering (or past
 * max): ON CLUSTER then.
 */
static size_t shard_urls(struct ch *ch, size_t *shard, size_t max)
{
	struct lru_error err;
	struct lru_buf sql, out;
	size_t shards = 0, found = 0;

	lru_buf_init(&sql);
	lru_buf_init(&out);
	/* its own shard (0: it is in no shard of the cluster) and the cluster's shards */
	if (lru_buf_printf(&sql, NULL, "SELECT maxIf(shard_num, is_local), max(shard_num) "
			   "FROM system.clusters WHERE cluster = ") ||
	    ch_quote(&sql, ch->cfg->ch_cluster, strlen(ch->cfg->ch_cluster), NULL) ||
	    lru_buf_append(&sql, "", 1, NULL))
		goto out;
	for (size_t u = 0; u < ch->cfg->ch_urls.n && !stopping(ch); u++) {
		struct ch_rows r;
		unsigned long s, n;

		shard[u] = 0;
		if (post(ch, u, 1, (const char *)sql.data, NULL, 0, NULL, &out, &err))
			continue;	/* not answering: another server of its shard may */
		ch_rows_init(&r, &out);
		if (!ch_rows_next(&r) || r.nf < 2)
			continue;
		s = strtoul(r.f[0], NULL, 10);
		n = strtoul(r.f[1], NULL, 10);
		if (!s)
			continue;
		if (n > max || s > n) {
			shards = 0;
			goto out;
		}
		shards = n;
		shard[u] = s;
	}
	/* every shard has a server that answered */
	for (size_t s = 1; s <= shards; s++) {
		size_t u = 0;

		while (u < ch->cfg->ch_urls.n && shard[u] != s)
			u++;
		found += u < ch->cfg->ch_urls.n;
	}
out:
	lru_buf_release(&sql);
	lru_buf_release(&out);
	return shards && found == shards ? shards : 0;
}

#define MAX_SHARDS 64

/*
 * DROP PARTITION day of table's local tables: on a server of each shard
 * (shard[], from shard_urls), each of the shard's in turn until one takes it
 * (a replica that is not the leader passes it on, and 18.16 refuses that
 * while a leader is being elected: "Leader was suddenly changed"); or ON
 * CLUSTER when shards is 0.
 */
static enum lru_err drop_partition(struct ch *ch, const char *table, const char *day,
				   const size_t *shard, size_t shards, struct lru_error *err)
{
	char sql[256];
	enum lru_err rc = LRU_OK;

	if (!shards)
		return run_ddl(ch, err, "ALTER TABLE %s.%s_local%s DROP PARTITION %s",
			       ch->cfg->ch_database, table, ch->on_cluster, day);
	snprintf(sql, sizeof(sql), "ALTER TABLE %s.%s_local DROP PARTITION %s", ch->cfg->ch_database,
		 table, day);
	for (size_t s = 1; !rc && s <= shards; s++) {
		rc = lru_fail(err, LRU_EIO, "no server of shard %zu answers", s);
		for (size_t u = 0; rc && u < ch->cfg->ch_urls.n; u++)
			if (shard[u] == s)
				rc = post(ch, u, 1, sql, NULL, 0, NULL, NULL, err);
	}
	return rc;
}

static void ch_expire(struct ch *ch)
{
	struct lru_error err;
	struct lru_buf out;
	struct ch_rows r;
	char sql[512], tbl[160];
	size_t *shard = calloc(ch->cfg->ch_urls.n + 1, sizeof(*shard)), shards = 0;
	bool located = !ch->on_cluster[0];	/* one server: no shards to find */

	lru_buf_init(&out);
	for (size_t i = 0; i < sizeof(expiries) / sizeof(expiries[0]) && !stopping(ch); i++) {
		const struct expiry *e = &expiries[i];
		int64_t cutoff = day_cutoff(lru_now_ms(), e->rollups ? ch->cfg->rollup_retention_ms
							: ch->cfg->raw_retention_ms);

		snprintf(sql, sizeof(sql), "SELECT DISTINCT %s FROM %s WHERE %s < %" PRId64, e->day,
			 ch_table(ch, e->table, tbl, sizeof(tbl)), e->time,
			 e->rollups ? cutoff / HOUR_MS : cutoff);
		if (ch_select(ch, sql, &out, &err)) {
			log_warn("clickhouse: looking for expired rows of %s: %s", e->table, err.msg);
			break;
		}
		ch_rows_init(&r, &out);
		while (ch_rows_next(&r) && !stopping(ch)) {
			if (strspn(r.f[0], "0123456789") != 8 || r.len[0] != 8)
				continue;
			if (drop_note(ch, e->table, r.f[0], false))
				continue;	/* its task may still be in the queue */
			if (e->roll && roll_day(ch, r.f[0], &err)) {
				log_warn("clickhouse: rolling up day %s (its raw rows are kept until "
					 "then): %s", r.f[0], err.msg);
				break;
			}
			if (!located) {
				shards = shard ? shard_urls(ch, shard, MAX_SHARDS) : 0;
				located = true;
				if (!shards)
					log_warn("clickhouse: a shard of cluster %s has no server of "
						 "clickhouse-url that answers: expired days are "
						 "dropped ON CLUSTER", ch->cfg->ch_cluster);
			}
			if (drop_partition(ch, e->table, r.f[0], shard, shards, &err)) {
				if (!shards)	/* (its task may still be queued; not a direct drop's) */
					drop_note(ch, e->table, r.f[0], true);
				log_warn("clickhouse: expiring the %s of day %s (asked again in %d s if "
					 "it is still there): %s", e->table, r.f[0],
					 shards ? (int)(ch->cfg->maintenance_ms / 1000) :
					 DROP_RETRY_MS / 1000, err.msg);
				break;
			}
			log_info("clickhouse: dropped the %s of day %s (%s)", e->table, r.f[0],
				 e->rollups ? "rollup-retention" : "raw-retention");
		}
	}
	lru_buf_release(&out);
	free(shard);
}

/*
 * The latest-state tables, read FINAL (rank, cold, hosts): FINAL merges the
 * rows of every part on each read, so their parts cost every query. A round
 * of INSERTs leaves a part in each, and 18.16's merges leave a tail of small
 * parts when ingest stops (a big part and 3-10 small ones, for good). So
 * each maintenance round compacts them: on a server of each shard (its
 * leader for the table, which runs the merge and answers when it is done),
 * an OPTIMIZE without FINAL, which merges what its selector may (it leaves
 * out the small parts at the right of a range: one more part a time), while
 * the table has more than COMPACT_PARTS parts there and the last OPTIMIZE
 * took one away, COMPACT_STEPS times at most. Two stay on a replicated
 * cluster: 18.16 never merges the part last inserted with insert_quorum
 * ("the most recent part with a satisfied quorum"; OPTIMIZE ... FINAL fails
 * on it with "Unknown log entry type: 0"). At 100,000 hosts (50,000 a
 * shard), a compacted memcgs_by_path (10 parts to 2, 200 MiB a shard, 3-4 s
 * a shard) halved cold --by memcg of a job (p50 100-118 -> 55 ms), and
 * hosts_latest rank's (50-60 -> 28-42 ms); host_nodes' reads (per node) were
 * the cost of FINAL over its nested arrays more than of its parts (version 9).
 * Only a table quiet on the shard is compacted: its newest part there (an
 * INSERT's, a merge's or a fetch's) a maintenance-interval old or more.
 * Under ingest its merges run anyway, and a compaction would compete with
 * them and with the INSERTs for the same cores (at 100,000 hosts, a burst
 * took 1.33 ms of server CPU a snapshot with a compaction every round, 1.20
 * without; memcgs_by_path held twice the rows until quiet).
 */
static const char *const compacted[] = { "hosts_latest", "node_state", "memcgs_by_path" };
#define COMPACT_PARTS 2
#define COMPACT_STEPS 4

/*
 * table's active parts on server u (-1: no answer), whether u leads its
 * replicas, and how many seconds ago its newest part there was made (an
 * INSERT's, a merge's or a fetch's; with no part, a large number)
 */
static int64_t parts_at(struct ch *ch, size_t u, const char *table, bool *leader, int64_t *age_s)
{
	struct lru_error err;
	struct lru_buf sql, out;
	struct ch_rows r;
	int64_t n = -1;
	int rc;

	lru_buf_init(&sql);
	lru_buf_init(&out);
	rc = lru_buf_printf(&sql, NULL, "SELECT count(), toInt64(now()) - toInt64(max("
			    "modification_time)), (SELECT count() FROM system.replicas WHERE "
			    "is_leader AND database = ") ||
	     ch_quote(&sql, ch->cfg->ch_database, strlen(ch->cfg->ch_database), NULL) ||
	     lru_buf_printf(&sql, NULL, " AND table = '%s_local') FROM system.parts WHERE active "
			    "AND database = ", table) ||
	     ch_quote(&sql, ch->cfg->ch_database, strlen(ch->cfg->ch_database), NULL) ||
	     lru_buf_printf(&sql, NULL, " AND table = '%s_local'", table) ||
	     lru_buf_append(&sql, "", 1, NULL);
	if (!rc && !post(ch, u, 1, (const char *)sql.data, NULL, 0, NULL, &out, &err)) {
		ch_rows_init(&r, &out);
		if (ch_rows_next(&r) && r.nf >= 3) {
			n = strtoll(r.f[0], NULL, 10);
			*age_s = strtoll(r.f[1], NULL, 10);
			*leader = strtoll(r.f[2], NULL, 10) > 0;
		}
	}
	lru_buf_release(&sql);
	lru_buf_release(&out);
	return n;
}

/* compact table on server u, which holds parts of it now (see compacted[]) */
static void compact_at(struct ch *ch, size_t u, const char *table, int64_t parts)
{
	struct lru_error err;
	int64_t before = INT64_MAX;
	char sql[256];
	int64_t age_s;
	bool leader;

	snprintf(sql, sizeof(sql), "OPTIMIZE TABLE %s.%s_local", ch->cfg->ch_database, table);
	for (int step = 0; step < COMPACT_STEPS && !stopping(ch); step++) {
		if (step)
			parts = parts_at(ch, u, table, &leader, &age_s);
		if (parts <= COMPACT_PARTS || parts >= before)
			return;
		before = parts;
		log_debug("clickhouse: %s: %s (%" PRId64 " parts there)", ch->cfg->ch_urls.v[u], sql,
			  parts);
		if (post(ch, u, 1, sql, NULL, 0, NULL, NULL, &err)) {
			log_warn("clickhouse: compacting %s at %s (%" PRId64 " parts; asked again "
				 "next round): %s", table, ch->cfg->ch_urls.v[u], parts, err.msg);
			return;
		}
	}
}

static void ch_compact(struct ch *ch)
{
	size_t n = ch->cfg->ch_urls.n, *shard = calloc(n + 1, sizeof(*shard));
	int64_t quiet_s = (int64_t)(ch->cfg->maintenance_ms / 1000);
	bool cluster = ch->on_cluster[0];

	if (!shard)
		return;
	if (cluster)	/* shard[u]: u's shard, 0 if it does not answer; one server: all 0 */
		shard_urls(ch, shard, MAX_SHARDS);
	for (size_t i = 0; i < sizeof(compacted) / sizeof(compacted[0]) && !stopping(ch); i++) {
		bool done[MAX_SHARDS + 1] = { false };

		for (size_t u = 0; u < n && !stopping(ch); u++) {
			size_t s = shard[u], pick = n;
			int64_t parts = -1, p, age_s = 0, a;
			bool leader = false;

			if ((cluster && !s) || s > MAX_SHARDS || done[s])
				continue;
			done[s] = true;
			/* the shard's leader for the table, else its first server that answers */
			for (size_t v = u; v < n && !leader; v++)
				if (shard[v] == s && (p = parts_at(ch, v, compacted[i], &leader, &a)) >= 0 &&
				    (leader || pick == n)) {
					pick = v;
					parts = p;
					age_s = a;
				}
			/* only once the table is quiet there (see compacted[]) */
			if (pick < n && age_s >= quiet_s)
				compact_at(ch, pick, compacted[i], parts);
		}
	}
	free(shard);
}

/*
 * Whether the database is still at this binary's schema version. One that
 * --migrate took past it while this front-end ran (README: stop them first)
 * would get rows into tables the new version no longer reads: from the
 * next maintenance round on, the front-end takes no snapshots (503, the
 * collectors keep them), rolls nothing up, and /healthz says why.
 */
static bool version_current(struct ch *ch)
{
	struct lru_error err;
	int64_t v = schema_version(ch, atomic_load(&ch->next_url), &err);

	if (v <= SCHEMA_VERSION)	/* (or not known now: the writers find out) */
		return !atomic_load(&ch->outdated);
	if (!atomic_exchange(&ch->outdated, true)) {
		pthread_mutex_lock(&ch->lock);
		snprintf(ch->why, sizeof(ch->why), "ClickHouse database '%s' was migrated to schema "
			 "version %" PRId64 ", this lrugen-store writes version %" PRId64 ": upgrade it",
			 ch->cfg->ch_database, v, (int64_t)SCHEMA_VERSION);
		log_error("clickhouse: %s; it takes no snapshots until then", ch->why);
		pthread_mutex_unlock(&ch->lock);
	}
	return false;
}

/* The maintenance thread: roll_hours, ch_expire and ch_compact every maintenance-interval, until stopping. */
static void *maint_main(void *arg)
{
	struct ch *ch = arg;

	in_maint = true;
	pthread_mutex_lock(&ch->lock);
	while (!ch->stopping) {
		struct timespec ts;

		pthread_mutex_unlock(&ch->lock);
		if (version_current(ch)) {
			roll_hours(ch);
			reroll_hours(ch);
			ch_expire(ch);
			ch_compact(ch);
		}
		pthread_mutex_lock(&ch->lock);
		ts = lru_deadline(CLOCK_REALTIME, (int64_t)ch->cfg->maintenance_ms);
		while (!ch->stopping &&
		       pthread_cond_timedwait(&ch->maint_wake, &ch->lock, &ts) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&ch->lock);
	return NULL;
}

/*
 * clickhouse-insert-interval: with ch->lock held and snapshots queued, wait
 * until the interval has passed since the last round began, batch-max
 * snapshots are queued, no snapshot has come for ROUND_QUIET_MS, or the
 * writer stops. A round costs the cluster about the same whatever its size
 * (a part in every table on every replica, fetched, merged), so while
 * collectors keep sending (each on its own pace), fewer rounds of more
 * snapshots take far less of it. Clients that wait for their answers before
 * sending more (a spool replayed, a bench) all have theirs queued when the
 * snapshots stop coming: waiting longer would only slow them.
 */
#define ROUND_QUIET_MS 100

static void round_wait(struct ch *ch)
{
	int64_t due = ch->round_at_ms + (int64_t)ch->cfg->ch_insert_interval_ms, now, until;

	while (ch->cfg->ch_insert_interval_ms && ch->head && !ch->stopping &&
	       ch->queued < (uint64_t)ch->cfg->batch_max && (now = lru_now_ms()) < due &&
	       now < ch->queued_at_ms + ROUND_QUIET_MS) {
		struct timespec ts;

		until = ch->queued_at_ms + ROUND_QUIET_MS < due ? ch->queued_at_ms + ROUND_QUIET_MS : due;
		ts = lru_deadline(CLOCK_REALTIME, until - now);
		pthread_cond_timedwait(&ch->wake, &ch->lock, &ts);
	}
}

static void *writer_main(void *arg)
{
	struct ch *ch = arg;

	pthread_mutex_lock(&ch->lock);
	for (;;) {
		struct ingest_job *jobs, *next;
		struct lru_error err;
		enum lru_err rc;
		uint64_t n = 0;
		int64_t t0;

		while (!ch->head && !ch->stopping)
			pthread_cond_wait(&ch->wake, &ch->lock);
		if (!ch->head)
			break;
		round_wait(ch);
		if (!ch->head)
			continue;	/* another writer took them while this one waited */
		/* up to batch-max snapshots (one job at least) */
		jobs = ch->head;
		for (struct ingest_job **pp = &ch->head; *pp; pp = &(*pp)->next) {
			if (n && n + (*pp)->n > (uint64_t)ch->cfg->batch_max) {
				ch->head = *pp;
				*pp = NULL;
				break;
			}
			n += (*pp)->n;
			if (!(*pp)->next) {
				ch->head = NULL;
				ch->tail = &ch->head;
				break;
			}
		}
		ch->queued -= n;
		ch->round_at_ms = lru_now_ms();
		pthread_mutex_unlock(&ch->lock);

		lru_error_clear(&err);
		t0 = lru_now_ms();
		if (atomic_load(&ch->outdated)) {	/* (logged once, by version_current) */
			pthread_mutex_lock(&ch->lock);
			rc = lru_fail(&err, LRU_EIO, "%s", ch->why);
			pthread_mutex_unlock(&ch->lock);
		} else if ((rc = write_jobs(ch, jobs, &err))) {
			log_error("clickhouse: %zu snapshots not written: %s", (size_t)n, err.msg);
		} else {	/* a round is the store's transaction */
			atomic_fetch_add(&ch->m->transactions, 1);
			metrics_observe(&ch->m->commit, (uint64_t)(lru_now_ms() - t0) * 1000);
		}
		pthread_mutex_lock(&ch->lock);
		snprintf(ch->why, sizeof(ch->why), "%s", rc ? err.msg : "");
		pthread_mutex_unlock(&ch->lock);
		for (struct ingest_job *j = jobs; j; j = next) {
			next = j->next;
			j->next = NULL;
			j->status = rc == LRU_ENOMEM ? 500 : rc ? 503 : 0;
			if (!rc) {
				atomic_fetch_add(&ch->m->accepted, j->accepted);
				atomic_fetch_add(&ch->m->duplicates, j->duplicates);
			}
			j->done(j);
		}
		pthread_mutex_lock(&ch->lock);
	}
	pthread_mutex_unlock(&ch->lock);
	return NULL;
}

int ch_submit(struct ch *ch, struct ingest_job *job)
{
	int rc = -1;

	pthread_mutex_lock(&ch->lock);
	if (!ch->stopping && ch->queued + job->n <= (uint64_t)ch->cfg->queue_max) {
		job->next = NULL;
		job->queued_ms = lru_now_ms();
		ch->queued_at_ms = job->queued_ms;
		*ch->tail = job;
		ch->tail = &job->next;
		ch->queued += job->n;
		pthread_cond_signal(&ch->wake);
		rc = 0;
	}
	pthread_mutex_unlock(&ch->lock);
	return rc;
}

uint64_t ch_rollup_pending(struct ch *ch)
{
	int64_t next = atomic_load(&ch->roll_next), bound = roll_bound(ch, lru_now_ms());

	return next >= 0 && bound > next ? (uint64_t)(bound - next) : 0;
}

uint64_t ch_queue_snapshots(struct ch *ch)
{
	uint64_t n;

	pthread_mutex_lock(&ch->lock);
	n = ch->queued;
	pthread_mutex_unlock(&ch->lock);
	return n;
}

uint64_t ch_nr_hosts(struct ch *ch)
{
	int64_t now = lru_now_ms();
	uint64_t n;

	pthread_mutex_lock(&ch->hosts_lock);
	if (now - ch->hosts_at_ms > 5000) {
		struct lru_buf out;
		struct lru_error err;
		struct ch_rows r;
		char sql[256], tbl[160];

		lru_buf_init(&out);
		snprintf(sql, sizeof(sql), "SELECT uniqExact(host) FROM %s",
			 ch_table(ch, "hosts_first", tbl, sizeof(tbl)));
		if (!ch_select(ch, sql, &out, &err)) {
			ch_rows_init(&r, &out);
			if (ch_rows_next(&r))
				ch->hosts = strtoull(r.f[0], NULL, 10);
		}
		ch->hosts_at_ms = now;
		lru_buf_release(&out);
	}
	n = ch->hosts;
	pthread_mutex_unlock(&ch->hosts_lock);
	return n;
}

bool ch_healthy(struct ch *ch, char *why, size_t size)
{
	struct lru_error err;
	bool ok;

	if (ch_select(ch, "SELECT 1", NULL, &err)) {
		snprintf(why, size, "%s", err.msg);
		return false;
	}
	pthread_mutex_lock(&ch->lock);
	ok = !ch->why[0];
	snprintf(why, size, "%s", ch->why);
	pthread_mutex_unlock(&ch->lock);
	return ok;
}

/* ---- open and close ---------------------------------------------------------------- */

static int read_password(struct ch *ch, char *errbuf, size_t size)
{
	struct lru_error err;
	size_t len;

	if (ch->cfg->ch_password_file[0] &&
	    lru_client_read_token(ch->cfg->ch_password_file, &ch->password, &err)) {
		snprintf(errbuf, size, "clickhouse-password-file: %s", err.msg);
		return -1;
	}
	len = strlen(ch->password ? ch->password : "") + 32;
	ch->key_hdr = malloc(len);
	if (!ch->key_hdr) {
		snprintf(errbuf, size, "out of memory");
		return -1;
	}
	snprintf(ch->key_hdr, len, "X-ClickHouse-Key: %s", ch->password ? ch->password : "");
	snprintf(ch->user_hdr, sizeof(ch->user_hdr), "X-ClickHouse-User: %s", ch->cfg->ch_user);
	return 0;
}

int ch_open(struct ch **out, const struct store_config *cfg, struct metrics *m,
	    bool migrate_only, char *errbuf, size_t size)
{
	struct ch *ch = calloc(1, sizeof(*ch));
	struct lru_error err;
	int64_t have;

	*out = ch;
	if (!ch) {
		snprintf(errbuf, size, "out of memory");
		return -1;
	}
	ch->cfg = cfg;
	ch->m = m;
	ch->tail = &ch->head;
	atomic_init(&ch->roll_next, -1);
	pthread_mutex_init(&ch->lock, NULL);
	pthread_mutex_init(&ch->hosts_lock, NULL);
	pthread_cond_init(&ch->wake, NULL);
	pthread_cond_init(&ch->maint_wake, NULL);
	if (cfg->ch_cluster[0])
		snprintf(ch->on_cluster, sizeof(ch->on_cluster), " ON CLUSTER %s", cfg->ch_cluster);
	snprintf(ch->quorum, sizeof(ch->quorum), "%" PRId64, cfg->ch_insert_quorum);
	snprintf(ch->roll_delay, sizeof(ch->roll_delay), "%" PRIu64,
		 cfg->ch_rollup_after_ms / 3000 ? cfg->ch_rollup_after_ms / 3000 : 1);
	if (cfg->ch_rollup_spill) {
		snprintf(ch->roll_spill, sizeof(ch->roll_spill), "%" PRIu64, cfg->ch_rollup_spill);
		snprintf(ch->roll_two_level, sizeof(ch->roll_two_level), "%" PRIu64,
			 cfg->ch_rollup_spill / 2 ? cfg->ch_rollup_spill / 2 : 1);
	}
	if (cfg->ch_rollup_memory)
		snprintf(ch->roll_memory, sizeof(ch->roll_memory), "%" PRIu64, cfg->ch_rollup_memory);
	if (read_password(ch, errbuf, size))
		return -1;
	lru_error_clear(&err);
	if (migrate_only) {
		if (migrate(ch, &err)) {
			snprintf(errbuf, size, "--migrate: %s", err.msg);
			return -1;
		}
		return 0;
	}
	have = schema_version(ch, 0, &err);
	for (size_t u = 1; have < 0 && u < cfg->ch_urls.n; u++)
		have = schema_version(ch, u, &err);
	if (have < 0) {
		snprintf(errbuf, size, "%s%s", err.msg, err.code == LRU_EPROTO ?
			 " (a new database? run lrugen-store --migrate with the same settings)" : "");
		return -1;
	}
	if (have != SCHEMA_VERSION) {
		snprintf(errbuf, size, "ClickHouse database '%s' has schema version %" PRId64
			 ", this lrugen-store needs %" PRId64 ": run lrugen-store --migrate", cfg->ch_database,
			 have, SCHEMA_VERSION);
		return -1;
	}
	/* settings that would let a raw sample miss its hour's roll-up, or drop what it counts */
	if (cfg->ch_rollup_after_ms / 3 < cfg->ch_timeout_ms)
		log_warn("clickhouse-rollup-after (%" PRIu64 " s) is under 3 x clickhouse-timeout (%"
			 PRIu64 " s): a raw sample whose INSERT takes that long may miss its hour's "
			 "roll-up and not be counted", cfg->ch_rollup_after_ms / 1000,
			 cfg->ch_timeout_ms / 1000);
	if (cfg->rollup_retention_ms < cfg->raw_retention_ms)
		log_warn("rollup-retention is under raw-retention: with clickhouse, hours rolled up "
			 "are counted from their rollups only, so wss forgets them at rollup-retention");
	for (int i = 0; i < cfg->ch_writers && i < CH_MAX_WRITERS; i++) {
		if (pthread_create(&ch->writer[i], NULL, writer_main, ch)) {
			snprintf(errbuf, size, "cannot start the writer threads");
			return -1;
		}
		ch->nr_writers++;
		ch->started = true;
	}
	if (pthread_create(&ch->maint, NULL, maint_main, ch)) {
		snprintf(errbuf, size, "cannot start the maintenance thread");
		return -1;
	}
	ch->maint_started = true;
	return 0;
}

void ch_stop_writer(struct ch *ch)
{
	if (!ch || !ch->started)
		return;
	pthread_mutex_lock(&ch->lock);
	ch->stopping = true;
	pthread_cond_broadcast(&ch->wake);
	pthread_cond_broadcast(&ch->maint_wake);
	pthread_mutex_unlock(&ch->lock);
	for (int i = 0; i < ch->nr_writers; i++)
		pthread_join(ch->writer[i], NULL);
	ch->nr_writers = 0;
	if (ch->maint_started)
		pthread_join(ch->maint, NULL);
	ch->started = ch->maint_started = false;
}

void ch_close(struct ch *ch)
{
	if (!ch)
		return;
	ch_stop_writer(ch);
	pthread_mutex_destroy(&ch->lock);
	pthread_mutex_destroy(&ch->hosts_lock);
	pthread_cond_destroy(&ch->wake);
	pthread_cond_destroy(&ch->maint_wake);
	wipe_free(ch->password);
	wipe_free(ch->key_hdr);
	free(ch);
}
