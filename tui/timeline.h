/*
 * timeline.h - the shared wall-clock axis of lrugen-top and the shading of
 * generations on it.
 *
 * The axis covers [now - window, now) in 'width' cells, oldest on the left;
 * 'now' is the frame's time (the read for live sources, the frame's time in
 * replay). Every row places its generations by their absolute birth_ms, so
 * rows of different memcgs, nodes and hosts line up: generation s spans
 * [birth(s), birth(s+1)) - the interval in which its pages were last seen
 * referenced - and the youngest spans [birth, its snapshot's read time).
 *
 * A cell takes the largest generation that covers it. Sizes map to shades on
 * a log scale relative to the largest generation on screen, so one scale
 * serves every row. A generation is cold at threshold T when its successor
 * was born more than T before its read (lru_ws.h, strict mode).
 */
#ifndef TOP_TIMELINE_H
#define TOP_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_model.h"

#define TL_LEVELS 5		/* shade 0 (nothing) .. 4 (largest) */
#define TL_COLD 0x08		/* cell flag: the generation drawn is cold */
#define TL_BIRTH 0x10		/* cell flag: a generation is born in this cell */
#define TL_LEVEL(c) ((c) & 0x07)

struct tl_axis {
	int64_t now_ms;		/* right edge */
	uint64_t window_ms;	/* span of the axis */
	int width;		/* cells */
	uint64_t max_bytes;	/* largest generation: the top of the shade scale */
};

/* zoom steps and threshold steps: ascending durations in ms */
extern const uint64_t tl_zooms[];
extern const size_t tl_nr_zooms;
extern const uint64_t tl_thresholds[];
extern const size_t tl_nr_thresholds;

/* The zoom step that fits span_ms (the smallest at least 10% larger). */
size_t tl_zoom_fit(uint64_t span_ms);

/* Shade level 0..4 of a generation of 'bytes' against the scale's top. */
unsigned tl_level(uint64_t bytes, uint64_t max_bytes);

/* The cell of time t_ms, or -1 left of the axis / width right of it. */
int tl_cell(const struct tl_axis *ax, int64_t t_ms);

/*
 * Paint the generations of one lruvec into cells[0..width-1], keeping in
 * each cell the largest generation seen so far (cells are shared by every
 * lruvec of a row: call it once per lruvec on zeroed cells).
 */
void tl_paint(const struct tl_axis *ax, const struct lru_snapshot *snap,
	      const struct lru_lruvec *lv, uint64_t threshold_ms, uint8_t *cells,
	      uint64_t *cell_bytes);

/*
 * Axis labels for a header line of 'width' cells: writes width bytes (no
 * NUL) into out, with "-<window>" on the left, "now" on the right, "T" at
 * the threshold and relative times in between where they fit.
 */
void tl_axis_labels(const struct tl_axis *ax, uint64_t threshold_ms, char *out);

#endif
