/*
 * fleet-plot.h - `lrugen fleet plot KIND`: the store's answer to a fleet
 * question drawn as an SVG chart (lru_plot.h), written to a file whole or
 * not at all (a temporary file renamed over it); "-" is standard output.
 */
#ifndef CLI_FLEET_PLOT_H
#define CLI_FLEET_PLOT_H

#include <jansson.h>

#include "lru_plot.h"

/* Draw doc (the store's answer for kind) into out; an exit code (cli_exit), errors said. */
int fleet_plot(enum lru_plot kind, json_t *doc, const char *out);

#endif
