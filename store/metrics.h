/*
 * metrics.h - the store's counters, rendered as Prometheus text for
 * GET /metrics. Counters are C11 atomics: any thread adds, /metrics reads.
 */
#ifndef STORE_METRICS_H
#define STORE_METRICS_H

#include <stdatomic.h>
#include <stdint.h>

#include "lru_buf.h"
#include "lru_routes.h"

#define METRICS_NR_BUCKETS 14

struct latency {
	atomic_uint_fast64_t bucket[METRICS_NR_BUCKETS + 1];	/* last: +Inf */
	atomic_uint_fast64_t sum_us, count;
};

/* responses by route: those of lru_routes.h (labelled by name), then any other URL */
#define ROUTE_OTHER LRU_ROUTE_NR
#define ROUTE_NR (LRU_ROUTE_NR + 1)

enum reject { REJ_MALFORMED, REJ_TOO_LARGE, REJ_UNSUPPORTED, REJ_UNAUTHORIZED, REJ_FORBIDDEN,
	      REJ_OVERLOADED, REJ_ERROR, REJ_NR };

#define METRICS_NR_CODES 12

struct metrics {
	atomic_uint_fast64_t responses[ROUTE_NR][METRICS_NR_CODES];
	struct latency latency[ROUTE_NR];	/* request start to response queued */
	atomic_uint_fast64_t accepted, duplicates, rejected[REJ_NR];
	atomic_uint_fast64_t body_bytes, inflated_bytes;
	struct latency commit;			/* one write transaction */
	atomic_uint_fast64_t transactions, rollup_flushes, expired_snapshots;
	atomic_uint_fast64_t write_errors;
	atomic_uint_fast64_t rolled_hours;	/* ClickHouse: hours rolled up by this front-end */
	atomic_uint_fast64_t rerolled_hours;	/* ClickHouse: hours whose late samples it rolled up again */
};

void metrics_observe(struct latency *l, uint64_t us);
void metrics_response(struct metrics *m, enum lru_route r, unsigned status);
void metrics_reject(struct metrics *m, enum reject why);

/* Gauges sampled when /metrics is read. */
struct metrics_gauges {
	uint64_t queue_snapshots, hosts, db_bytes, wal_bytes, uptime_s;
	uint64_t rollup_pending;	/* ClickHouse: hours due to be rolled up */
	uint64_t mem_held, mem_peak, mem_budget, mem_refused;	/* the memory budget */
	int auth_disabled;
};

/* Append the Prometheus text of m and g to out. */
int metrics_render(const struct metrics *m, const struct metrics_gauges *g, struct lru_buf *out);

#endif
