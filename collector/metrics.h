/*
 * metrics.h - GET /metrics: the page-age histogram and lrugend's health
 * in the Prometheus text format (libmicrohttpd, one internal thread).
 *
 *	lrugen_memory_bytes{memcg,node,type,age_le}
 *		bytes of type anon|file that may have been idle at most age_le
 *		seconds, cumulative like a histogram's buckets (age_le="+Inf" is
 *		everything resident). A generation counts as idle since its
 *		successor was born (see lib/lru_ws.h: this is its hot bytes at
 *		threshold age_le).
 *	lrugen_generation_bytes{memcg,node,type,gen}, lrugen_generation_age_seconds
 *		{memcg,node,gen}: every generation (gen 0 = the youngest), only
 *		with metrics_generations (more series)
 *	lrugen_node_memory_bytes{node,kind}, lrugen_snapshot_*
 *	lrugend_*: ticks, spool depth, sends, drops, aging, reclaim, CPU
 *
 * The main loop publishes a model after each tick (metrics_update) and its
 * counters after each tick and send (metrics_set_health). The endpoint
 * thread renders a scrape from a reference to the current model, line by
 * line into libmicrohttpd's buffer, so a scrape costs no memory in
 * proportion to the number of series and never blocks the main loop for
 * longer than a pointer swap.
 */
#ifndef METRICS_H
#define METRICS_H

#include "config.h"
#include "lru_model.h"
#include "stats.h"

struct metrics;

/* Listen on cfg->listen; NULL after logging why not. */
struct metrics *metrics_start(const struct config *cfg);
void metrics_stop(struct metrics *m);

/* The port actually bound (for listen addresses with port 0). */
unsigned metrics_port(const struct metrics *m);

/* Publish the histogram of a tick's snapshot. */
void metrics_update(struct metrics *m, const struct config *cfg, const struct lru_snapshot *snap);
/* Publish lrugend's counters. */
void metrics_set_health(struct metrics *m, const struct stats *st);

#endif
