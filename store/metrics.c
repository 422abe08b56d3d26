#include "metrics.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const double bucket_s[METRICS_NR_BUCKETS] = {
	0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};
static const unsigned codes[METRICS_NR_CODES] = {
	200, 400, 401, 403, 404, 405, 413, 415, 500, 503, 303, 0,
};
static const char *route_name(unsigned r)
{
	return r < LRU_ROUTE_NR ? lru_route((enum lru_route)r)->name : "other";
}
static const char *const reject_names[REJ_NR] = {
	"malformed", "too_large", "unsupported", "unauthorized", "forbidden", "overloaded",
	"error",
};

void metrics_observe(struct latency *l, uint64_t us)
{
	int i;

	for (i = 0; i < METRICS_NR_BUCKETS; i++)
		if ((double)us <= bucket_s[i] * 1e6)
			break;
	atomic_fetch_add(&l->bucket[i], 1);
	atomic_fetch_add(&l->sum_us, us);
	atomic_fetch_add(&l->count, 1);
}

void metrics_response(struct metrics *m, enum lru_route r, unsigned status)
{
	int i;

	for (i = 0; i < METRICS_NR_CODES - 1 && codes[i]; i++)
		if (codes[i] == status)
			break;
	if (!codes[i])
		i = METRICS_NR_CODES - 1;	/* other */
	atomic_fetch_add(&m->responses[r][i], 1);
}

void metrics_reject(struct metrics *m, enum reject why)
{
	atomic_fetch_add(&m->rejected[why], 1);
}

struct out {
	struct lru_buf *buf;
	int rc;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->rc)
		return;
	va_start(ap, fmt);
	if (lru_buf_vprintf(o->buf, NULL, fmt, ap))
		o->rc = -1;
	va_end(ap);
}

static void put_latency(struct out *o, const char *name, const char *label,
			const struct latency *l)
{
	uint64_t cum = 0;

	for (int i = 0; i <= METRICS_NR_BUCKETS; i++) {
		cum += atomic_load(&l->bucket[i]);
		if (i < METRICS_NR_BUCKETS)
			put(o, "%s_bucket{%s%sle=\"%g\"} %" PRIu64 "\n", name, label,
			    *label ? "," : "", bucket_s[i], cum);
		else
			put(o, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", name, label,
			    *label ? "," : "", cum);
	}
	put(o, "%s_sum{%s} %.6f\n", name, label, (double)atomic_load(&l->sum_us) / 1e6);
	put(o, "%s_count{%s} %" PRIu64 "\n", name, label, (uint64_t)atomic_load(&l->count));
}

int metrics_render(const struct metrics *m, const struct metrics_gauges *g, struct lru_buf *out)
{
	struct out o = { out, 0 };
	char label[64];
	int r, i;

	put(&o, "# HELP lrugen_store_snapshots_total Snapshots acknowledged, by result.\n"
		"# TYPE lrugen_store_snapshots_total counter\n");
	put(&o, "lrugen_store_snapshots_total{result=\"accepted\"} %" PRIu64 "\n",
	    (uint64_t)atomic_load(&m->accepted));
	put(&o, "lrugen_store_snapshots_total{result=\"duplicate\"} %" PRIu64 "\n",
	    (uint64_t)atomic_load(&m->duplicates));
	put(&o, "# HELP lrugen_store_ingest_rejected_total Ingest requests refused, by reason.\n"
		"# TYPE lrugen_store_ingest_rejected_total counter\n");
	for (i = 0; i < REJ_NR; i++)
		put(&o, "lrugen_store_ingest_rejected_total{reason=\"%s\"} %" PRIu64 "\n",
		    reject_names[i], (uint64_t)atomic_load(&m->rejected[i]));
	put(&o, "# HELP lrugen_store_ingest_bytes_total Request body bytes received (wire) and "
		"after gzip decompression.\n# TYPE lrugen_store_ingest_bytes_total counter\n");
	put(&o, "lrugen_store_ingest_bytes_total{stage=\"wire\"} %" PRIu64 "\n",
	    (uint64_t)atomic_load(&m->body_bytes));
	put(&o, "lrugen_store_ingest_bytes_total{stage=\"inflated\"} %" PRIu64 "\n",
	    (uint64_t)atomic_load(&m->inflated_bytes));
	put(&o, "# HELP lrugen_store_http_responses_total Responses by route and status.\n"
		"# TYPE lrugen_store_http_responses_total counter\n");
	for (r = 0; r < ROUTE_NR; r++)
		for (i = 0; i < METRICS_NR_CODES; i++) {
			uint64_t v = atomic_load(&m->responses[r][i]);

			if (!v)
				continue;
			if (codes[i])
				put(&o, "lrugen_store_http_responses_total{route=\"%s\",code=\"%u\"} %"
				    PRIu64 "\n", route_name(r), codes[i], v);
			else
				put(&o, "lrugen_store_http_responses_total{route=\"%s\",code=\"other\"} %"
				    PRIu64 "\n", route_name(r), v);
		}
	put(&o, "# HELP lrugen_store_request_seconds Time from request to response, by route "
		"(ingest: until the batch committed).\n"
		"# TYPE lrugen_store_request_seconds histogram\n");
	for (r = 0; r < ROUTE_NR; r++) {
		if (!atomic_load(&m->latency[r].count))
			continue;
		snprintf(label, sizeof(label), "route=\"%s\"", route_name(r));
		put_latency(&o, "lrugen_store_request_seconds", label, &m->latency[r]);
	}
	put(&o, "# HELP lrugen_store_commit_seconds Duration of one write transaction.\n"
		"# TYPE lrugen_store_commit_seconds histogram\n");
	put_latency(&o, "lrugen_store_commit_seconds", "", &m->commit);
	put(&o, "# HELP lrugen_store_transactions_total Write transactions committed.\n"
		"# TYPE lrugen_store_transactions_total counter\n"
		"lrugen_store_transactions_total %" PRIu64 "\n",
	    (uint64_t)atomic_load(&m->transactions));
	put(&o, "# HELP lrugen_store_write_errors_total Write transactions that failed (their "
		"snapshots were answered 500 and are resent).\n"
		"# TYPE lrugen_store_write_errors_total counter\n"
		"lrugen_store_write_errors_total %" PRIu64 "\n",
	    (uint64_t)atomic_load(&m->write_errors));
	put(&o, "# HELP lrugen_store_rollup_flushes_total Hourly rollups written to the database.\n"
		"# TYPE lrugen_store_rollup_flushes_total counter\n"
		"lrugen_store_rollup_flushes_total %" PRIu64 "\n",
	    (uint64_t)atomic_load(&m->rollup_flushes));
	put(&o, "# HELP lrugen_store_expired_snapshots_total Raw snapshots deleted by retention.\n"
		"# TYPE lrugen_store_expired_snapshots_total counter\n"
		"lrugen_store_expired_snapshots_total %" PRIu64 "\n",
	    (uint64_t)atomic_load(&m->expired_snapshots));
	put(&o, "# HELP lrugen_store_clickhouse_rollups_total ClickHouse: hours of working-set samples "
		"this front-end rolled up.\n# TYPE lrugen_store_clickhouse_rollups_total counter\n"
		"lrugen_store_clickhouse_rollups_total %" PRIu64 "\n",
	    (uint64_t)atomic_load(&m->rolled_hours));
	put(&o, "# HELP lrugen_store_clickhouse_rerollups_total ClickHouse: hours whose late samples "
		"(a collector's spool replayed after the hour was rolled up) this front-end rolled up "
		"again.\n# TYPE lrugen_store_clickhouse_rerollups_total counter\n"
		"lrugen_store_clickhouse_rerollups_total %" PRIu64 "\n",
	    (uint64_t)atomic_load(&m->rerolled_hours));
	put(&o, "# HELP lrugen_store_clickhouse_rollups_pending ClickHouse: hours that ended more than "
		"clickhouse-rollup-after ago, not rolled up yet (above 1 for long: the roll-up fails "
		"or falls behind).\n# TYPE lrugen_store_clickhouse_rollups_pending gauge\n"
		"lrugen_store_clickhouse_rollups_pending %" PRIu64 "\n", g->rollup_pending);
	put(&o, "# HELP lrugen_store_queue_snapshots Snapshots waiting for the writer.\n"
		"# TYPE lrugen_store_queue_snapshots gauge\nlrugen_store_queue_snapshots %" PRIu64
		"\n", g->queue_snapshots);
	put(&o, "# HELP lrugen_store_hosts Hosts in the store.\n"
		"# TYPE lrugen_store_hosts gauge\nlrugen_store_hosts %" PRIu64 "\n", g->hosts);
	put(&o, "# HELP lrugen_store_db_bytes Size of the database file and its write-ahead log.\n"
		"# TYPE lrugen_store_db_bytes gauge\n");
	put(&o, "lrugen_store_db_bytes{file=\"db\"} %" PRIu64 "\n", g->db_bytes);
	put(&o, "lrugen_store_db_bytes{file=\"wal\"} %" PRIu64 "\n", g->wal_bytes);
	put(&o, "# HELP lrugen_store_uptime_seconds Seconds since the store started.\n"
		"# TYPE lrugen_store_uptime_seconds gauge\nlrugen_store_uptime_seconds %" PRIu64
		"\n", g->uptime_s);
	put(&o, "# HELP lrugen_store_memory_bytes The memory budget (memory-budget) and what "
		"request bodies, decoded snapshots and answers hold of it, now and at most.\n"
		"# TYPE lrugen_store_memory_bytes gauge\n"
		"lrugen_store_memory_bytes{kind=\"budget\"} %" PRIu64 "\n"
		"lrugen_store_memory_bytes{kind=\"held\"} %" PRIu64 "\n"
		"lrugen_store_memory_bytes{kind=\"peak\"} %" PRIu64 "\n",
	    g->mem_budget, g->mem_held, g->mem_peak);
	put(&o, "# HELP lrugen_store_memory_refused_total Requests refused (503) because the "
		"memory budget was spent.\n# TYPE lrugen_store_memory_refused_total counter\n"
		"lrugen_store_memory_refused_total %" PRIu64 "\n", g->mem_refused);
	put(&o, "# HELP lrugen_store_auth_disabled 1 when started with --insecure-no-auth.\n"
		"# TYPE lrugen_store_auth_disabled gauge\nlrugen_store_auth_disabled %d\n",
	    g->auth_disabled);
	return o.rc;
}
