/*
 * lru_svg.h - charts as standalone SVG documents: a line chart (curves of
 * points over a linear or log x axis), a bar chart (horizontal stacked
 * bars, one a label, with an optional marker line) and a heatmap (rows by
 * columns of shaded cells). What `lrugen fleet
 * plot` writes; a web page can inline them. No script, no reference to
 * anything outside the document.
 *
 * Contracts:
 * - Every text is escaped (LRU_ESC_XML): names come from hosts.
 * - Axes start at 0 (a log axis at its smallest value), end at a round tick
 *   at or above the largest value; ticks are round numbers in the axis's
 *   unit (bytes in binary units, durations, counts).
 * - Each point and each bar segment is an element of class "pt" or "seg"
 *   with data-series, data-x and data-y (bars: data-label, data-v) holding
 *   the exact value ("%.17g"), and a <title> (a tooltip) saying it in
 *   units: what a reader hovers over and what tests read back.
 * - Values that are not finite, or not > 0 on a log axis, are left out.
 *   A chart without any value says "no data" where its plot would be.
 * - 1200 x 600 unless the chart says otherwise; a bar chart grows taller
 *   when its bars need it (22 px a bar).
 */
#ifndef LRU_SVG_H
#define LRU_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "lru_buf.h"
#include "lru_err.h"

enum lru_svg_unit {
	LRU_SVG_COUNT,		/* plain numbers */
	LRU_SVG_BYTES,		/* bytes: ticks in KiB, MiB, GiB ... */
	LRU_SVG_MS,		/* durations in milliseconds: ticks 1m, 10m, 1h ... */
};

struct lru_svg_axis {
	const char *label;		/* what the axis measures ("cold memory") */
	enum lru_svg_unit unit;
	bool log;			/* a log scale (a line chart's x axis of durations only) */
};

struct lru_svg_series {
	const char *name;		/* in the legend */
	const double *x, *y;		/* n points */
	size_t n;
	bool dashed;
};

struct lru_svg_line_chart {
	const char *title, *subtitle;	/* subtitle may be NULL */
	struct lru_svg_axis x, y;
	const struct lru_svg_series *series;
	size_t nr_series;
	int width, height;		/* 0: 1200, 600 */
};

#define LRU_SVG_MAX_STACK 4

struct lru_svg_bar {
	const char *label;		/* at the bar's left (cut to 40 characters) */
	double v[LRU_SVG_MAX_STACK];	/* the stack's segments, left to right */
};

struct lru_svg_bar_chart {
	const char *title, *subtitle;
	struct lru_svg_axis x;		/* the values' axis (bars are horizontal) */
	const char *const *stack;	/* nr_stack segment names, in the legend */
	size_t nr_stack;		/* 1 .. LRU_SVG_MAX_STACK */
	const struct lru_svg_bar *bars;
	size_t nr_bars;
	bool marker;			/* a vertical line at marker_at, named marker_label */
	double marker_at;
	const char *marker_label;
	int width, height;		/* 0: 1200, and 600 or what the bars need */
};

/*
 * A heatmap: rows (bottom to top) by columns (left to right), each cell
 * shaded by its value from white (0) to the darkest at the largest value,
 * light grey where there is none (NAN). Each cell is an element of class
 * "cell" with data-row, data-col (the column's label) and data-v (the
 * exact value) and a tooltip; a scale at the right says what the shades are.
 */
struct lru_svg_heatmap {
	const char *title, *subtitle;
	const char *x_label, *y_label;	/* what the columns and the rows are */
	const char *const *rows;	/* nr_rows row names, bottom to top */
	size_t nr_rows;
	const char *const *cols;	/* nr_cols column names (ticks: every few) */
	size_t nr_cols;
	const double *v;		/* v[row * nr_cols + col] */
	enum lru_svg_unit unit;		/* of the values */
	int width, height;		/* 0: 1200, 600 */
};

/*
 * Append the chart's document to out (out->data[out->len] is a NUL, not
 * counted). LRU_EINVAL (a bad chart), LRU_ENOMEM, LRU_ERANGE.
 */
enum lru_err lru_svg_lines(struct lru_buf *out, const struct lru_svg_line_chart *c,
			   struct lru_error *err);
enum lru_err lru_svg_bars(struct lru_buf *out, const struct lru_svg_bar_chart *c,
			  struct lru_error *err);
enum lru_err lru_svg_heatmap(struct lru_buf *out, const struct lru_svg_heatmap *c,
			     struct lru_error *err);

#endif
