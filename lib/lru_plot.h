/*
 * lru_plot.h - the answers of lrugen-store's queries drawn as SVG charts
 * (lru_svg.h): what `lrugen fleet plot KIND` writes and the store's fleet
 * page shows. The input is the query's JSON document as the store answers
 * it (README "lrugen-store and lrugen fleet").
 *
 *   capacity  fleet cold bytes against the threshold T (log axis of the
 *             store's thresholds), and cold plus free: what the fleet could
 *             offer at each T (GET /v1/capacity)
 *   rank      the hosts (or host:node) where a job of --need SIZE fits,
 *             best first, each a bar of its free and cold bytes, with a line
 *             at SIZE (GET /v1/rank)
 *   advise    each job's promotion rate (% of its working set per minute)
 *             against T, where measured, and the SLO as a dashed line; the
 *             LRU_PLOT_MAX_JOBS jobs with the most samples (GET /v1/advise)
 *   job       one job's (memcg glob's) bytes in each page-age band over time
 *             across its hosts: a heatmap of bands by time (GET /v1/bands)
 */
#ifndef LRU_PLOT_H
#define LRU_PLOT_H

#include <jansson.h>

#include "lru_buf.h"
#include "lru_err.h"

enum lru_plot { LRU_PLOT_CAPACITY, LRU_PLOT_RANK, LRU_PLOT_ADVISE, LRU_PLOT_JOB, LRU_PLOT_NR };

/* an advise plot draws at most this many jobs (a legend stays readable) */
#define LRU_PLOT_MAX_JOBS 7

/* the plot's name ("capacity"), NULL past LRU_PLOT_NR */
const char *lru_plot_name(enum lru_plot kind);

/* Append the chart of doc (the store's answer for kind) to svg: LRU_OK, LRU_ENOMEM, LRU_EINVAL. */
enum lru_err lru_plot_svg(enum lru_plot kind, json_t *doc, struct lru_buf *svg,
			  struct lru_error *err);

#endif
