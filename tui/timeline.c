/* timeline.c - axis maths and generation shading for lrugen-top. */
#include "timeline.h"

#include <stdio.h>
#include <string.h>

#include "lru_sat.h"
#include "lru_units.h"

#define SEC 1000ULL
#define MIN (60 * SEC)
#define HOUR (60 * MIN)

const uint64_t tl_zooms[] = {
	10 * SEC, 30 * SEC, 1 * MIN, 2 * MIN, 5 * MIN, 10 * MIN, 30 * MIN,
	1 * HOUR, 2 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR, 7 * 24 * HOUR,
};
const size_t tl_nr_zooms = sizeof(tl_zooms) / sizeof(tl_zooms[0]);

const uint64_t tl_thresholds[] = {
	30 * SEC, 1 * MIN, 2 * MIN, 5 * MIN, 10 * MIN, 1 * HOUR,
};
const size_t tl_nr_thresholds = sizeof(tl_thresholds) / sizeof(tl_thresholds[0]);

/*
 * An axis label: the exact form where it is a whole number of seconds
 * below a minute or of minutes ("30s", "2m", "1h"), else rounded ("22.5s",
 * "7m30s") to stay short.
 */
static const char *axis_dur(uint64_t ms, char *buf, size_t size)
{
	if (ms && (ms % MIN == 0 || (ms % SEC == 0 && ms < MIN)))
		return lru_fmt_duration_exact(ms, buf, size);
	return lru_fmt_duration(ms, buf, size);
}

size_t tl_zoom_fit(uint64_t span_ms)
{
	size_t i;

	for (i = 0; i < tl_nr_zooms; i++)
		if (tl_zooms[i] >= span_ms + span_ms / 10)
			return i;
	return tl_nr_zooms - 1;
}

unsigned tl_level(uint64_t bytes, uint64_t max_bytes)
{
	if (!bytes)
		return 0;
	if (bytes >= max_bytes / 4)
		return 4;
	if (bytes >= max_bytes / 32)
		return 3;
	if (bytes >= max_bytes / 512)
		return 2;
	return 1;
}

int tl_cell(const struct tl_axis *ax, int64_t t_ms)
{
	int64_t start = lru_sat_sub_i64(ax->now_ms, lru_sat_i64(ax->window_ms));
	int64_t c;

	if (t_ms < start)
		return -1;
	if (t_ms >= ax->now_ms)
		return ax->width;
	c = (t_ms - start) * ax->width / (int64_t)ax->window_ms;
	return c >= ax->width ? ax->width - 1 : (int)c;
}

void tl_paint(const struct tl_axis *ax, const struct lru_snapshot *snap,
	      const struct lru_lruvec *lv, uint64_t threshold_ms, uint8_t *cells,
	      uint64_t *cell_bytes)
{
	uint64_t page = snap->page_size ? snap->page_size : 4096;
	int64_t read_ms = lru_sat_mid_i64(snap->read_start_ms, snap->read_end_ms);
	unsigned g;

	if (ax->width <= 0 || !ax->window_ms)
		return;
	for (g = 0; g < lv->nr_gens; g++) {
		const struct lru_gen *gen = &lv->gens[g];
		bool last = g + 1 == lv->nr_gens;
		int64_t end = last ? read_ms : lv->gens[g + 1].birth_ms;
		uint64_t bytes = 0;
		bool cold = !last && lv->gens[g + 1].age_ms > threshold_ms;
		unsigned level;
		int c0, c1, c;

		if (!(gen->evicted & (1u << LRU_ANON)))
			bytes += gen->pages[LRU_ANON] * page;
		if (!(gen->evicted & (1u << LRU_FILE)))
			bytes += gen->pages[LRU_FILE] * page;
		c0 = tl_cell(ax, gen->birth_ms);
		c1 = tl_cell(ax, end > gen->birth_ms ? end - 1 : gen->birth_ms);
		if (c1 < 0 || c0 >= ax->width)
			continue;
		if (c0 >= 0)
			cells[c0] |= TL_BIRTH;
		if (c0 < 0)
			c0 = 0;
		if (c1 >= ax->width)
			c1 = ax->width - 1;
		level = tl_level(bytes, ax->max_bytes);
		for (c = c0; c <= c1; c++) {
			if (cell_bytes[c] > bytes || (cell_bytes[c] == bytes && TL_LEVEL(cells[c])))
				continue;
			cell_bytes[c] = bytes;
			cells[c] = (uint8_t)((cells[c] & TL_BIRTH) | level | (cold ? TL_COLD : 0));
		}
	}
}

/* Put s at column col of out (width w) if it does not overwrite a label. */
static void place(char *out, int w, int col, const char *s)
{
	int len = (int)strlen(s), i;

	if (col < 0)
		col = 0;
	if (col + len > w)
		col = w - len;
	if (col < 0)
		return;
	for (i = (col > 0 ? col - 1 : 0); i < col + len + 1 && i < w; i++)
		if (out[i] != ' ')
			return;
	memcpy(out + col, s, (size_t)len);
}

void tl_axis_labels(const struct tl_axis *ax, uint64_t threshold_ms, char *out)
{
	char buf[32], dur[24];
	int w = ax->width, i, tc;

	if (w <= 0)
		return;
	memset(out, ' ', (size_t)w);
	if (threshold_ms < ax->window_ms) {
		tc = tl_cell(ax, ax->now_ms - (int64_t)threshold_ms);
		if (tc >= 0 && tc < w)
			out[tc] = 'T';
	}
	place(out, w, w - 3, "now");
	snprintf(buf, sizeof(buf), "-%s", axis_dur(ax->window_ms, dur, sizeof(dur)));
	place(out, w, 0, buf);
	/* quarter marks where they fit */
	for (i = 1; i < 4; i++) {
		uint64_t ago = ax->window_ms * (uint64_t)(4 - i) / 4;

		snprintf(buf, sizeof(buf), "-%s", axis_dur(ago, dur, sizeof(dur)));
		place(out, w, w * i / 4 - (int)strlen(buf) / 2, buf);
	}
}
