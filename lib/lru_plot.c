/* lru_plot.c - the store's answers as SVG charts (lru_plot.h). */
#include "lru_plot.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_svg.h"
#include "lru_units.h"

static const char *const plot_names[LRU_PLOT_NR] = { "capacity", "rank", "advise", "job" };

const char *lru_plot_name(enum lru_plot kind)
{
	return kind < LRU_PLOT_NR ? plot_names[kind] : NULL;
}

static double num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* "threshold 2m" or "threshold 3m (effective 5m)" */
static void threshold_text(json_t *doc, char *buf, size_t size)
{
	char a[32], b[32];
	uint64_t t = (uint64_t)num(doc, "threshold_ms"), e = (uint64_t)num(doc, "effective_threshold_ms");

	if (t == e)
		snprintf(buf, size, "idle longer than %s", lru_fmt_duration_exact(t, a, sizeof(a)));
	else
		snprintf(buf, size, "idle longer than %s (effective %s)",
			 lru_fmt_duration_exact(t, a, sizeof(a)), lru_fmt_duration_exact(e, b, sizeof(b)));
}

static enum lru_err plot_capacity(json_t *doc, struct lru_buf *svg, struct lru_error *err)
{
	json_t *rows = json_object_get(doc, "thresholds"), *r;
	size_t n = json_array_size(rows), i;
	double *v = calloc(n ? 3 * n : 1, sizeof(*v)), free_b = num(doc, "mem_free_bytes");
	char sub[256], b[3][32];
	enum lru_err rc;

	if (!v)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	json_array_foreach(rows, i, r) {
		v[i] = num(r, "effective_threshold_ms");
		v[n + i] = num(r, "cold_bytes");
		v[2 * n + i] = num(r, "cold_bytes") + free_b;
	}
	snprintf(sub, sizeof(sub), "%" JSON_INTEGER_FORMAT " hosts: memory %s, free %s, in MGLRU "
		 "generations %s", json_integer_value(json_object_get(doc, "hosts")),
		 lru_fmt_bytes((uint64_t)num(doc, "mem_total_bytes"), b[0], 32),
		 lru_fmt_bytes((uint64_t)free_b, b[1], 32),
		 lru_fmt_bytes((uint64_t)num(doc, "in_generations_bytes"), b[2], 32));
	{
		const struct lru_svg_series series[] = {
			{ "cold", v, v + n, n, false },
			{ "cold + free", v, v + 2 * n, n, true },
		};
		const struct lru_svg_line_chart c = {
			.title = "Fleet memory cold at each threshold T",
			.subtitle = sub,
			.x = { "threshold T: memory idle longer than T is cold", LRU_SVG_MS, true },
			.y = { "bytes", LRU_SVG_BYTES, false },
			.series = series, .nr_series = 2,
		};

		rc = lru_svg_lines(svg, &c, err);
	}
	free(v);
	return rc;
}

static enum lru_err plot_rank(json_t *doc, struct lru_buf *svg, struct lru_error *err)
{
	static const char *const stack[] = { "free", "cold" };
	json_t *rows = json_object_get(doc, "rows"), *r;
	bool per_node = json_is_true(json_object_get(doc, "per_node"));
	size_t n = json_array_size(rows), i;
	struct lru_svg_bar *bars = calloc(n ? n : 1, sizeof(*bars));
	char (*labels)[320] = calloc(n ? n : 1, sizeof(*labels));
	char title[96], sub[256], thr[96], need[32];
	enum lru_err rc;

	if (!bars || !labels) {
		free(bars);
		free(labels);
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	json_array_foreach(rows, i, r) {
		const char *host = json_string_value(json_object_get(r, "host"));

		if (per_node)
			snprintf(labels[i], sizeof(labels[i]), "%s:%" JSON_INTEGER_FORMAT, host ? host : "",
				 json_integer_value(json_object_get(r, "node")));
		else
			snprintf(labels[i], sizeof(labels[i]), "%s", host ? host : "");
		bars[i].label = labels[i];
		bars[i].v[0] = num(r, "free_bytes");
		bars[i].v[1] = num(r, "cold_bytes");
	}
	lru_fmt_bytes((uint64_t)num(doc, "need_bytes"), need, sizeof(need));
	threshold_text(doc, thr, sizeof(thr));
	snprintf(title, sizeof(title), "Where %s fits: free plus cold memory, best first", need);
	snprintf(sub, sizeof(sub), "%" JSON_INTEGER_FORMAT " %s%s can take it (cold: %s)%s",
		 json_integer_value(json_object_get(doc, "candidates")), per_node ? "node" : "host",
		 json_integer_value(json_object_get(doc, "candidates")) == 1 ? "" : "s", thr,
		 (size_t)json_integer_value(json_object_get(doc, "candidates")) > n ?
		 "; the best are drawn" : "");
	{
		char mark[48];
		const struct lru_svg_bar_chart c = {
			.title = title, .subtitle = sub,
			.x = { "bytes", LRU_SVG_BYTES, false },
			.stack = stack, .nr_stack = 2, .bars = bars, .nr_bars = n,
			.marker = true, .marker_at = num(doc, "need_bytes"), .marker_label = mark,
		};

		snprintf(mark, sizeof(mark), "need %s", need);
		rc = lru_svg_bars(svg, &c, err);
	}
	free(bars);
	free(labels);
	return rc;
}

/* jobs with more samples first, then by path */
static int cmp_samples(const void *x, const void *y)
{
	json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	double sa = num(a, "samples"), sb = num(b, "samples");

	return sa < sb ? 1 : sa > sb ? -1 :
	       strcmp(json_string_value(json_object_get(a, "memcg")),
		      json_string_value(json_object_get(b, "memcg")));
}

static enum lru_err plot_advise(json_t *doc, struct lru_buf *svg, struct lru_error *err)
{
	json_t *jobs = json_object_get(doc, "jobs"), *ts = json_object_get(doc, "thresholds_ms"), *j, *r;
	size_t nt = json_array_size(ts), nj = 0, drawn, i, k, lo = SIZE_MAX, hi = 0;
	json_t **pick = calloc(json_array_size(jobs) + 1, sizeof(*pick));
	double *v = calloc((LRU_PLOT_MAX_JOBS + 2) * (nt + 1), sizeof(*v)), slo = num(doc, "slo_pct_per_min");
	struct lru_svg_series series[LRU_PLOT_MAX_JOBS + 1];
	char sub[256], name[32], w[32];
	enum lru_err rc;

	if (!pick || !v) {
		free(pick);
		free(v);
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	/* the jobs measured at some threshold */
	json_array_foreach(jobs, i, j)
		json_array_foreach(json_object_get(j, "rates"), k, r)
			if (json_is_true(json_object_get(r, "measured"))) {
				pick[nj++] = j;
				break;
			}
	qsort(pick, nj, sizeof(*pick), cmp_samples);
	drawn = nj < LRU_PLOT_MAX_JOBS ? nj : LRU_PLOT_MAX_JOBS;
	for (k = 0; k < nt; k++)
		v[k] = json_number_value(json_array_get(ts, k));
	for (i = 0; i < drawn; i++) {
		double *y = v + (i + 1) * nt;

		for (k = 0; k < nt; k++) {
			json_t *pct = json_object_get(json_array_get(json_object_get(pick[i], "rates"), k),
						      "pct_per_min");

			y[k] = json_is_number(pct) ? json_number_value(pct) : NAN;
			if (json_is_number(pct)) {
				lo = k < lo ? k : lo;
				hi = k > hi ? k : hi;
			}
		}
		series[i] = (struct lru_svg_series){ json_string_value(json_object_get(pick[i], "memcg")),
						     v, y, nt, false };
	}
	/* the SLO: a dashed line across the thresholds some job was measured at */
	if (drawn) {
		double *y = v + (drawn + 1) * nt;

		for (k = 0; k < nt; k++)
			y[k] = slo;
		snprintf(name, sizeof(name), "SLO %g%%/min", slo);
		series[drawn] = (struct lru_svg_series){ name, v + lo, y + lo, hi - lo + 1, true };
	}
	snprintf(sub, sizeof(sub), "%zu jobs, %zu measured%s; window %s; a missing point: not "
		 "measured (no generation that old)", json_array_size(jobs), nj,
		 nj > drawn ? ", the most sampled drawn" : "",
		 lru_fmt_duration_exact((uint64_t)num(doc, "window_ms"), w, sizeof(w)));
	{
		const struct lru_svg_line_chart c = {
			.title = "Promotion rate: pages idle longer than T used again",
			.subtitle = sub,
			.x = { "threshold T", LRU_SVG_MS, true },
			.y = { "% of the working set per minute", LRU_SVG_COUNT, false },
			.series = series, .nr_series = drawn ? drawn + 1 : 0,
		};

		rc = lru_svg_lines(svg, &c, err);
	}
	free(pick);
	free(v);
	return rc;
}

#define MAX_BANDS 16

static enum lru_err plot_job(json_t *doc, struct lru_buf *svg, struct lru_error *err)
{
	json_t *edges = json_object_get(doc, "band_edges_ms"), *steps = json_object_get(doc, "steps"), *s;
	size_t nr = json_array_size(edges), nc = json_array_size(steps), r, k;
	double *v = calloc(nr * nc + 1, sizeof(*v)), now = num(doc, "now_ms");
	char (*cols)[32] = calloc(nc + 1, sizeof(*cols)), rows[MAX_BANDS][48], title[320], sub[256];
	const char *rowp[MAX_BANDS], **colp = calloc(nc + 1, sizeof(*colp));
	char a[32], b[32];
	enum lru_err rc;

	if (!v || !cols || !colp) {
		rc = lru_fail(err, LRU_ENOMEM, "out of memory");
		goto out;
	}
	if (!nr || nr > MAX_BANDS) {
		rc = lru_fail(err, LRU_EINVAL, "the answer has no age bands");
		goto out;
	}
	/* band r: from edge r to edge r + 1 (the last: and older) */
	for (r = 0; r < nr; r++) {
		uint64_t lo = (uint64_t)json_integer_value(json_array_get(edges, r));

		if (r + 1 == nr)
			snprintf(rows[r], sizeof(rows[r]), "over %s", lru_fmt_duration_exact(lo, a, 32));
		else
			snprintf(rows[r], sizeof(rows[r]), "%s to %s", lru_fmt_duration_exact(lo, a, 32),
				 lru_fmt_duration_exact((uint64_t)json_integer_value(json_array_get(edges, r + 1)),
							b, 32));
		rowp[r] = rows[r];
	}
	json_array_foreach(steps, k, s) {
		json_t *bytes = json_object_get(s, "bytes");
		double t = num(s, "t_ms");

		snprintf(cols[k], sizeof(cols[k]), "-%s",
			 lru_fmt_duration_exact(now > t ? (uint64_t)(now - t) : 0, a, 32));
		colp[k] = cols[k];
		for (r = 0; r < nr; r++)
			v[r * nc + k] = json_array_size(bytes) == nr ?
					json_number_value(json_array_get(bytes, r)) : NAN;
	}
	snprintf(title, sizeof(title), "Page age of %s across its hosts",
		 json_string_value(json_object_get(doc, "memcg_glob")) ?
		 json_string_value(json_object_get(doc, "memcg_glob")) : "?");
	snprintf(sub, sizeof(sub), "bytes in each age band, a column every %s over %s (each: the mean "
		 "host snapshot x its hosts); grey: no snapshot",
		 lru_fmt_duration_exact((uint64_t)num(doc, "step_ms"), a, 32),
		 lru_fmt_duration_exact((uint64_t)num(doc, "window_ms"), b, 32));
	{
		const struct lru_svg_heatmap c = {
			.title = title, .subtitle = sub,
			.x_label = "time (before now)", .y_label = "page age (idle time)",
			.rows = rowp, .nr_rows = nr, .cols = colp, .nr_cols = nc, .v = v,
			.unit = LRU_SVG_BYTES,
		};

		rc = lru_svg_heatmap(svg, &c, err);
	}
out:
	free(v);
	free(cols);
	free(colp);
	return rc;
}

static enum lru_err (*const plotters[LRU_PLOT_NR])(json_t *, struct lru_buf *, struct lru_error *) = {
	plot_capacity, plot_rank, plot_advise, plot_job,
};

enum lru_err lru_plot_svg(enum lru_plot kind, json_t *doc, struct lru_buf *svg, struct lru_error *err)
{
	if (kind >= LRU_PLOT_NR)
		return lru_fail(err, LRU_EINVAL, "no such plot");
	return plotters[kind](doc, svg, err);
}
