/* lru_svg.c - line, bar and heatmap charts as standalone SVG documents (see lru_svg.h). */
#include "lru_svg.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lru_esc.h"
#include "lru_units.h"

/* Okabe-Ito: told apart with every common colour blindness */
static const char *const palette[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442",
};
#define NR_COLORS (sizeof(palette) / sizeof(palette[0]))

#define MAX_TICKS 16
#define LABEL_CHARS 40	/* a bar's label, cut */
#define BAR_PITCH 22

struct doc {
	struct lru_buf *b;
	struct lru_error *err;
	enum lru_err rc;
};

/* the plot area and how values map onto it */
struct frame {
	int w, h, left, right, top, bottom;	/* right, bottom: coordinates, not margins */
};

struct scale {
	double lo, hi;
	bool log;
	int from, to;			/* pixels of lo and hi */
	double tick[MAX_TICKS];
	size_t nr_ticks;
};

static void put(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct doc *d, const char *fmt, ...)
{
	va_list ap;

	if (d->rc)
		return;
	va_start(ap, fmt);
	d->rc = lru_buf_vprintf(d->b, d->err, fmt, ap);
	va_end(ap);
}

/* s escaped for XML; with max, cut to about max characters, marked "..." */
static void text(struct doc *d, const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;
	char cut[LABEL_CHARS * 8];

	if (d->rc || !n)
		return;
	if (max && lru_esc(NULL, 0, s, n, LRU_ESC_XML) > max) {
		lru_esc(cut, max < sizeof(cut) ? max : sizeof(cut), s, n, LRU_ESC_XML);
		put(d, "%s...", cut);	/* (lru_esc cuts between whole characters and escapes) */
		return;
	}
	d->rc = lru_esc_buf(d->b, s, n, LRU_ESC_XML, d->err);
}

/* ---- values in units ------------------------------------------------------------------- */

static const char *const byte_units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

/* v in the unit, for a tick (short) or a tooltip (with the exact value) */
static const char *fmt_value(char *buf, size_t size, enum lru_svg_unit unit, double v, bool exact)
{
	switch (unit) {
	case LRU_SVG_BYTES: {
		double x = fabs(v);
		int k = 0;

		while (x >= 1024 && k < 6) {
			x /= 1024;
			k++;
		}
		if (exact && k)
			snprintf(buf, size, "%.3g %s (%.0f bytes)", v < 0 ? -x : x, byte_units[k], v);
		else
			snprintf(buf, size, "%.4g %s", v < 0 ? -x : x, byte_units[k]);
		return buf;
	}
	case LRU_SVG_MS:
		if (v >= 0 && v < 1e15 && v == floor(v))
			return lru_fmt_duration_exact((uint64_t)v, buf, size);
		snprintf(buf, size, "%.3g ms", v);
		return buf;
	case LRU_SVG_COUNT:
		break;
	}
	snprintf(buf, size, exact ? "%.6g" : "%.3g", v);
	return buf;
}

/* the smallest of 1, 2, 5 x 10^k at or above x > 0 */
static double nice125(double x)
{
	double p = pow(10, floor(log10(x))), m = x / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* durations a linear axis ticks at */
static const double dur_ticks[] = {
	1e3, 2e3, 5e3, 10e3, 15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1800e3, 3600e3, 7200e3,
	10800e3, 21600e3, 43200e3, 86400e3, 172800e3, 604800e3, 2592000e3,
};
#define NR_DUR (sizeof(dur_ticks) / sizeof(dur_ticks[0]))
/* ... and a log axis: the store's thresholds (1m 2m 5m 10m 30m 1h 6h 24h) among them */
static const double log_dur_ticks[] = {
	1e3, 10e3, 30e3, 60e3, 120e3, 300e3, 600e3, 1800e3, 3600e3, 7200e3, 21600e3, 43200e3,
	86400e3, 172800e3, 604800e3, 2592000e3,
};
#define NR_LOG_DUR (sizeof(log_dur_ticks) / sizeof(log_dur_ticks[0]))
/* steps of a bytes axis, in its binary unit: round in decimal, or powers of two near 1024 */
static const double byte_steps[] = { 1, 2, 5, 10, 20, 50, 100, 200, 256, 512, 1024 };

/* a linear axis from 0 (or the smallest value below it) to a round tick at or above hi */
static void linear_scale(struct scale *s, enum lru_svg_unit unit, double lo, double hi)
{
	double span, step = 0;

	lo = lo < 0 ? lo : 0;
	if (!(hi > lo))
		hi = lo + (unit == LRU_SVG_BYTES ? 1024 : unit == LRU_SVG_MS ? 60e3 : 1);
	span = hi - lo;
	if (unit == LRU_SVG_BYTES) {
		double p = 1;

		while (span / 5 >= 1024 * p && p < 1e18)
			p *= 1024;
		for (size_t i = 0; i < sizeof(byte_steps) / sizeof(byte_steps[0]) && !step; i++)
			if (byte_steps[i] * p >= span / 5)
				step = byte_steps[i] * p;
	} else if (unit == LRU_SVG_MS) {
		for (size_t i = 0; i < NR_DUR && !step; i++)
			if (dur_ticks[i] >= span / 6)
				step = dur_ticks[i];
	}
	if (!step)
		step = nice125(span / 5);
	s->lo = floor(lo / step) * step;
	s->hi = ceil(hi / step) * step;
	s->log = false;
	s->nr_ticks = 0;
	for (double t = s->lo; t <= s->hi + step / 2 && s->nr_ticks < MAX_TICKS; t += step)
		s->tick[s->nr_ticks++] = t;
}

/* a log axis of durations over [lo, hi] (both > 0), ticked at round ones */
static void log_scale(struct scale *s, double lo, double hi)
{
	size_t n = 0;

	/* a margin, so that no point sits on the y axis */
	s->lo = lo / (hi > lo ? 1.25 : 2);
	s->hi = hi * (hi > lo ? 1.25 : 2);
	lo = s->lo, hi = s->hi;
	s->log = true;
	s->nr_ticks = 0;
	for (size_t i = 0; i < NR_LOG_DUR; i++)
		n += log_dur_ticks[i] >= lo && log_dur_ticks[i] <= hi;
	/* at most 12: every other one (or third) when more are in range */
	for (size_t i = 0, k = 0; i < NR_LOG_DUR && s->nr_ticks < MAX_TICKS; i++)
		if (log_dur_ticks[i] >= lo && log_dur_ticks[i] <= hi && k++ % ((n + 11) / 12) == 0)
			s->tick[s->nr_ticks++] = log_dur_ticks[i];
}

static double to_px(const struct scale *s, double v)
{
	double f = s->log ? (log(v) - log(s->lo)) / (log(s->hi) - log(s->lo))
			  : (v - s->lo) / (s->hi - s->lo);

	return s->from + f * (s->to - s->from);
}

static bool usable(const struct scale *s, double v)
{
	return isfinite(v) && (!s->log || v > 0);
}

/* ---- the parts of a chart ------------------------------------------------------------------ */

static void open_doc(struct doc *d, const struct frame *f, const char *title, const char *subtitle)
{
	put(d, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
	    "%d\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"13\">\n<title>",
	    f->w, f->h, f->w, f->h);
	text(d, title, 0);
	put(d, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
	    "<text x=\"%d\" y=\"30\" text-anchor=\"middle\" font-size=\"19\" font-weight=\"bold\">",
	    f->w, f->h, f->w / 2);
	text(d, title, 0);
	put(d, "</text>\n");
	if (subtitle && *subtitle) {
		put(d, "<text x=\"%d\" y=\"52\" text-anchor=\"middle\" fill=\"#555555\">", f->w / 2);
		text(d, subtitle, 0);
		put(d, "</text>\n");
	}
}

/* grid lines, ticks and labels of one axis; x runs left to right, else bottom to top */
static void axis(struct doc *d, const struct frame *f, const struct scale *s,
		 const struct lru_svg_axis *a, bool x)
{
	char v[64];

	for (size_t i = 0; i < s->nr_ticks; i++) {
		double p = to_px(s, s->tick[i]);

		fmt_value(v, sizeof(v), a->unit, s->tick[i], false);
		if (x)
			put(d, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e4e4e4\"/>"
			    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			    p, f->top, p, f->bottom + 5, p, f->bottom + 22, v);
		else
			put(d, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
			    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			    f->left - 5, p, f->right, p, f->left - 9, p + 4, v);
	}
	if (x) {
		put(d, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n"
		    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">", f->left,
		    f->bottom, f->right, f->bottom, (f->left + f->right) / 2, f->bottom + 48);
	} else {
		put(d, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n"
		    "<text transform=\"translate(22,%d) rotate(-90)\" text-anchor=\"middle\" "
		    "font-weight=\"bold\">", f->left, f->top, f->left, f->bottom,
		    (f->top + f->bottom) / 2);
	}
	text(d, a->label, 0);
	put(d, "%s</text>\n", a->log ? " (log scale)" : "");
}

/* legend entry i at the right of the plot: a swatch (a line, or a box) and the name */
static void legend(struct doc *d, const struct frame *f, size_t i, const char *name, bool box,
		   bool dashed)
{
	int y = f->top + 10 + (int)i * 24;

	if (box)
		put(d, "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"12\" fill=\"%s\"/>", f->right + 20,
		    y - 6, palette[i % NR_COLORS]);
	else
		put(d, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"%s/>",
		    f->right + 20, y, f->right + 42, y, palette[i % NR_COLORS],
		    dashed ? " stroke-dasharray=\"7 4\"" : "");
	put(d, "<text x=\"%d\" y=\"%d\">", f->right + 50, y + 4);
	text(d, name, LABEL_CHARS / 2);
	put(d, "</text>\n");
}

static void no_data(struct doc *d, const struct frame *f)
{
	put(d, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"22\" fill=\"#888888\">"
	    "no data</text>\n", (f->left + f->right) / 2, (f->top + f->bottom) / 2);
}

static enum lru_err close_doc(struct doc *d)
{
	put(d, "</svg>\n");
	if (!d->rc && !(d->rc = lru_buf_append(d->b, "", 1, d->err)))
		d->b->len--;	/* a NUL after the text, not counted */
	return d->rc;
}

/* ---- the charts ------------------------------------------------------------------------------ */

enum lru_err lru_svg_lines(struct lru_buf *out, const struct lru_svg_line_chart *c,
			   struct lru_error *err)
{
	struct doc d = { out, err, LRU_OK };
	struct frame f = { .w = c->width > 0 ? c->width : 1200, .h = c->height > 0 ? c->height : 600 };
	struct scale sx, sy;
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
	size_t points = 0;

	if (c->y.log || (c->x.log && c->x.unit != LRU_SVG_MS))
		return lru_fail(err, LRU_EINVAL, "a log scale is for a line chart's x axis of "
				"durations");
	f.left = 110, f.top = 75, f.right = f.w - 230, f.bottom = f.h - 75;
	for (size_t i = 0; i < c->nr_series; i++)
		for (size_t j = 0; j < c->series[i].n; j++) {
			double x = c->series[i].x[j], y = c->series[i].y[j];

			if (!isfinite(x) || !isfinite(y) || (c->x.log && x <= 0))
				continue;
			x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, y), y1 = fmax(y1, y);
			points++;
		}
	if (!points)
		x0 = 1, x1 = 2, y0 = 0, y1 = 0;
	if (c->x.log)
		log_scale(&sx, x0, x1);
	else
		linear_scale(&sx, c->x.unit, x0, x1);
	linear_scale(&sy, c->y.unit, y0, y1);
	sx.from = f.left, sx.to = f.right, sy.from = f.bottom, sy.to = f.top;

	open_doc(&d, &f, c->title, c->subtitle);
	axis(&d, &f, &sy, &c->y, false);
	axis(&d, &f, &sx, &c->x, true);
	if (!points)
		no_data(&d, &f);
	for (size_t i = 0; i < c->nr_series; i++) {
		const struct lru_svg_series *s = &c->series[i];
		const char *color = palette[i % NR_COLORS];
		char vx[64], vy[96];

		put(&d, "<g class=\"series\" data-series=\"");
		text(&d, s->name, 0);
		put(&d, "\">\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"%s points=\"", color,
		    s->dashed ? " stroke-dasharray=\"7 4\"" : "");
		for (size_t j = 0; j < s->n; j++)
			if (usable(&sx, s->x[j]) && usable(&sy, s->y[j]))
				put(&d, "%.1f,%.1f ", to_px(&sx, s->x[j]), to_px(&sy, s->y[j]));
		put(&d, "\"/>\n");
		for (size_t j = 0; j < s->n; j++) {
			if (!usable(&sx, s->x[j]) || !usable(&sy, s->y[j]))
				continue;
			put(&d, "<circle class=\"pt\" data-series=\"");
			text(&d, s->name, 0);
			put(&d, "\" data-x=\"%.17g\" data-y=\"%.17g\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
			    "fill=\"%s\"><title>", s->x[j], s->y[j], to_px(&sx, s->x[j]),
			    to_px(&sy, s->y[j]), color);
			text(&d, s->name, 0);
			put(&d, " at %s: %s</title></circle>\n",
			    fmt_value(vx, sizeof(vx), c->x.unit, s->x[j], true),
			    fmt_value(vy, sizeof(vy), c->y.unit, s->y[j], true));
		}
		put(&d, "</g>\n");
		legend(&d, &f, i, s->name, false, s->dashed);
	}
	return close_doc(&d);
}

enum lru_err lru_svg_bars(struct lru_buf *out, const struct lru_svg_bar_chart *c,
			  struct lru_error *err)
{
	struct doc d = { out, err, LRU_OK };
	struct frame f = { .w = c->width > 0 ? c->width : 1200 };
	struct scale sx;
	double lo = 0, hi = c->marker && isfinite(c->marker_at) ? c->marker_at : 0;
	int need = 160 + (int)c->nr_bars * BAR_PITCH;

	if (!c->nr_stack || c->nr_stack > LRU_SVG_MAX_STACK || c->x.log)
		return lru_fail(err, LRU_EINVAL, "a bar chart stacks 1 to %d segments on a linear axis",
				LRU_SVG_MAX_STACK);
	f.h = c->height > need ? c->height : need > 600 ? need : 600;
	f.left = 330, f.top = 80, f.right = f.w - 230, f.bottom = f.h - 80;
	for (size_t i = 0; i < c->nr_bars; i++) {
		double sum = 0;

		for (size_t k = 0; k < c->nr_stack; k++)
			if (isfinite(c->bars[i].v[k]) && c->bars[i].v[k] > 0)
				sum += c->bars[i].v[k];
		hi = fmax(hi, sum);
	}
	linear_scale(&sx, c->x.unit, lo, hi);
	sx.from = f.left, sx.to = f.right;

	open_doc(&d, &f, c->title, c->subtitle);
	axis(&d, &f, &sx, &c->x, true);
	if (!c->nr_bars)
		no_data(&d, &f);
	for (size_t i = 0; i < c->nr_bars; i++) {
		const struct lru_svg_bar *b = &c->bars[i];
		int y = f.top + 8 + (int)i * BAR_PITCH;
		double at = 0;

		put(&d, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", f.left - 8, y + 13);
		text(&d, b->label, LABEL_CHARS);
		put(&d, "</text>\n");
		for (size_t k = 0; k < c->nr_stack; k++) {
			double v = isfinite(b->v[k]) && b->v[k] > 0 ? b->v[k] : 0;
			char vv[96];

			put(&d, "<rect class=\"seg\" data-label=\"");
			text(&d, b->label, 0);
			put(&d, "\" data-series=\"");
			text(&d, c->stack[k], 0);
			put(&d, "\" data-v=\"%.17g\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"16\" "
			    "fill=\"%s\"><title>", v, to_px(&sx, at), y, to_px(&sx, at + v) - to_px(&sx, at),
			    palette[k % NR_COLORS]);
			text(&d, b->label, 0);
			put(&d, ": ");
			text(&d, c->stack[k], 0);
			put(&d, " %s</title></rect>\n", fmt_value(vv, sizeof(vv), c->x.unit, v, true));
			at += v;
		}
	}
	if (c->marker && isfinite(c->marker_at)) {
		double x = to_px(&sx, c->marker_at);

		put(&d, "<line class=\"marker\" data-v=\"%.17g\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
		    "y2=\"%d\" stroke=\"#cc0000\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>"
		    "<text x=\"%.1f\" y=\"%d\" fill=\"#cc0000\" text-anchor=\"middle\">", c->marker_at,
		    x, f.top - 6, x, f.bottom, x, f.top - 10);
		text(&d, c->marker_label, 0);
		put(&d, "</text>\n");
	}
	for (size_t k = 0; k < c->nr_stack; k++)
		legend(&d, &f, k, c->stack[k], true, false);
	return close_doc(&d);
}

/* a shade from white (f = 0) to the first palette colour's darkest (f = 1) */
static void shade(char buf[8], double f)
{
	static const int dark[3] = { 0x08, 0x30, 0x6b };
	int rgb[3];

	f = f < 0 ? 0 : f > 1 ? 1 : f;
	for (int i = 0; i < 3; i++)
		rgb[i] = (int)lround(255 - f * (255 - dark[i]));
	snprintf(buf, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

enum lru_err lru_svg_heatmap(struct lru_buf *out, const struct lru_svg_heatmap *c,
			     struct lru_error *err)
{
	struct doc d = { out, err, LRU_OK };
	struct frame f = { .w = c->width > 0 ? c->width : 1200, .h = c->height > 0 ? c->height : 600 };
	double hi = 0, cw, rh;
	size_t any = 0, every;
	char col[8], v1[96], v2[64];

	if (!c->nr_rows || !c->rows || (c->nr_cols && (!c->cols || !c->v)))
		return lru_fail(err, LRU_EINVAL, "a heatmap needs its rows, columns and values");
	f.left = 150, f.top = 75, f.right = f.w - 180, f.bottom = f.h - 75;
	for (size_t i = 0; i < c->nr_rows * c->nr_cols; i++)
		if (isfinite(c->v[i])) {
			hi = fmax(hi, c->v[i]);
			any++;
		}
	cw = c->nr_cols ? (double)(f.right - f.left) / (double)c->nr_cols : 0;
	rh = (double)(f.bottom - f.top) / (double)c->nr_rows;
	open_doc(&d, &f, c->title, c->subtitle);
	for (size_t r = 0; r < c->nr_rows; r++) {
		double y = f.bottom - (double)(r + 1) * rh;

		put(&d, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", f.left - 8, y + rh / 2 + 4);
		text(&d, c->rows[r], LABEL_CHARS / 2);
		put(&d, "</text>\n");
		for (size_t k = 0; k < c->nr_cols; k++) {
			double v = c->v[r * c->nr_cols + k];

			if (isfinite(v))
				shade(col, hi > 0 ? v / hi : 0);
			else
				snprintf(col, sizeof(col), "#eeeeee");
			put(&d, "<rect class=\"cell\" data-row=\"");
			text(&d, c->rows[r], 0);
			put(&d, "\" data-col=\"");
			text(&d, c->cols[k], 0);
			put(&d, "\" data-v=\"%.17g\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "fill=\"%s\"><title>", v, f.left + (double)k * cw, y, cw + 0.3, rh + 0.3, col);
			text(&d, c->rows[r], 0);
			put(&d, " at ");
			text(&d, c->cols[k], 0);
			put(&d, ": %s</title></rect>\n",
			    isfinite(v) ? fmt_value(v1, sizeof(v1), c->unit, v, true) : "no data");
		}
	}
	/* about eight column labels */
	every = c->nr_cols > 8 ? (c->nr_cols + 7) / 8 : 1;
	for (size_t k = 0; k < c->nr_cols; k += every) {
		put(&d, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", f.left + ((double)k + 0.5) * cw,
		    f.bottom + 22);
		text(&d, c->cols[k], LABEL_CHARS / 2);
		put(&d, "</text>\n");
	}
	put(&d, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333333\"/>\n"
	    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">", f.left, f.top,
	    f.right - f.left, f.bottom - f.top, (f.left + f.right) / 2, f.bottom + 48);
	text(&d, c->x_label, 0);
	put(&d, "</text>\n<text transform=\"translate(22,%d) rotate(-90)\" text-anchor=\"middle\" "
	    "font-weight=\"bold\">", (f.top + f.bottom) / 2);
	text(&d, c->y_label, 0);
	put(&d, "</text>\n");
	if (!any)
		no_data(&d, &f);
	/* the scale: five shades and what they stand for */
	for (int i = 0; i <= 4; i++) {
		int y = f.top + 10 + (4 - i) * 28;

		shade(col, i / 4.0);
		put(&d, "<rect class=\"scale\" x=\"%d\" y=\"%d\" width=\"22\" height=\"20\" fill=\"%s\" "
		    "stroke=\"#999999\"/><text x=\"%d\" y=\"%d\">%s</text>\n", f.right + 20, y, col,
		    f.right + 50, y + 15, fmt_value(v2, sizeof(v2), c->unit, hi * i / 4.0, false));
	}
	return close_doc(&d);
}
