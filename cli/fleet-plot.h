/*
 * fleet-plot.h - `lrugen fleet plot KIND`: the store's answer to a fleet
 * question drawn as an SVG chart (lru_plot.h), or a PNG of it (png.h) when
 * the file's name ends in .png, written to a file whole or not at all (a
 * temporary file renamed over it); "-" is standard output (SVG).
 */
#ifndef CLI_FLEET_PLOT_H
#define CLI_FLEET_PLOT_H

#include <jansson.h>
#include <stdbool.h>

#include "lru_plot.h"

/* Does out name a PNG (*.png, any case)? */
bool fleet_plot_png(const char *out);

/* Draw doc (the store's answer for kind) into out; an exit code (cli_exit), errors said. */
int fleet_plot(enum lru_plot kind, json_t *doc, const char *out);

#endif
