/*
 * fleet-plot.h - `lrugen fleet plot KIND`: the store's answer to a fleet
 * question drawn as an SVG chart (lru_svg.h), written to a file.
 *
 *   capacity  fleet cold bytes against the threshold T (log axis of the
 *             store's thresholds), and cold plus free: what the fleet could
 *             offer at each T (from GET /v1/capacity)
 *   rank      the hosts (or host:node) where a job of --need SIZE fits,
 *             best first, each a bar of its free and cold bytes, with a line
 *             at SIZE (from GET /v1/rank)
 *   advise    each job's promotion rate (% of its working set per minute)
 *             against T, where measured, and the SLO as a dashed line; the
 *             FLEET_PLOT_MAX_JOBS jobs with the most samples (GET /v1/advise)
 *
 * The file is written whole or not at all (a temporary file renamed over
 * it); "-" is standard output.
 */
#ifndef CLI_FLEET_PLOT_H
#define CLI_FLEET_PLOT_H

#include <jansson.h>

enum fleet_plot { PLOT_CAPACITY, PLOT_RANK, PLOT_ADVISE, PLOT_NR };

/* an advise plot draws at most this many jobs (a legend stays readable) */
#define FLEET_PLOT_MAX_JOBS 7

/* the plot's name on the command line, NULL past PLOT_NR */
const char *fleet_plot_name(enum fleet_plot kind);

/* Draw doc (the store's answer for kind) into out; an exit code (cli_exit), errors said. */
int fleet_plot(enum fleet_plot kind, json_t *doc, const char *out);

#endif
