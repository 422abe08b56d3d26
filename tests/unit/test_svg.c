/* test_svg.c - lru_svg.h: points and bars carry their exact values, names are escaped, axes tick in units. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_svg.h"
#include "testutil.h"

/* occurrences of needle in the document */
static size_t count(const struct lru_buf *b, const char *needle)
{
	size_t n = 0;

	for (const char *p = (const char *)b->data; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static bool has(const struct lru_buf *b, const char *needle)
{
	return count(b, needle) > 0;
}

static void test_lines(void **state)
{
	const double x[] = { 60e3, 120e3, 300e3, 86400e3 }, y[] = { 3.0 * (1 << 30), 2e9, NAN, 0 };
	const double y2[] = { 4e9, 3e9, 2.5e9, 1e9 };
	const struct lru_svg_series s[] = {
		{ "cold", x, y, 4, false },
		{ "<b>&\"free\"", x, y2, 4, true },
	};
	const struct lru_svg_line_chart c = {
		.title = "T & <title>", .subtitle = "sub",
		.x = { "threshold", LRU_SVG_MS, true }, .y = { "bytes", LRU_SVG_BYTES, false },
		.series = s, .nr_series = 2,
	};
	struct lru_buf b;
	struct lru_error err;

	(void)state;
	lru_buf_init(&b);
	assert_int_equal(lru_svg_lines(&b, &c, &err), LRU_OK);
	assert_memory_equal(b.data, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" height=\"600\"", 65);
	assert_string_equal((const char *)b.data + b.len - 7, "</svg>\n");
	/* the NaN left out, every other point with its exact value */
	assert_int_equal(count(&b, "class=\"pt\""), 7);
	assert_true(has(&b, "data-series=\"cold\" data-x=\"60000\" data-y=\"3221225472\""));
	assert_true(has(&b, "data-series=\"cold\" data-x=\"86400000\" data-y=\"0\""));
	assert_false(has(&b, "data-x=\"300000\" data-y=\"nan\""));
	/* names and titles are text */
	assert_true(has(&b, "data-series=\"&lt;b&gt;&amp;&quot;free&quot;\""));
	assert_true(has(&b, "<title>T &amp; &lt;title&gt;</title>"));
	assert_false(has(&b, "<b>"));
	/* tooltips in units, exact bytes beside */
	assert_true(has(&b, "cold at 1m: 3 GiB (3221225472 bytes)</title>"));
	/* log axis ticks at the store's thresholds, bytes in binary units */
	assert_true(has(&b, ">1m</text>") && has(&b, ">5m</text>") && has(&b, ">1d</text>"));
	assert_true(has(&b, ">1 GiB</text>") && has(&b, ">0 B</text>"));
	assert_true(has(&b, "(log scale)"));
	assert_true(has(&b, "stroke-dasharray=\"7 4\""));	/* the dashed series, and its legend */
	assert_false(has(&b, "no data"));
	lru_buf_release(&b);
}

static void test_empty_and_invalid(void **state)
{
	const double x[] = { 0, -1 }, y[] = { 1, 2 };
	const struct lru_svg_series s = { "s", x, y, 2, false };
	struct lru_svg_line_chart c = {
		.title = "empty", .x = { "T", LRU_SVG_MS, true }, .y = { "bytes", LRU_SVG_BYTES, false },
		.series = &s, .nr_series = 1,
	};
	struct lru_svg_bar_chart bc = { .title = "bars", .x = { "bytes", LRU_SVG_BYTES, false } };
	struct lru_buf b;
	struct lru_error err;

	(void)state;
	lru_buf_init(&b);
	/* no value > 0 on a log axis: no point, "no data", still a whole document */
	assert_int_equal(lru_svg_lines(&b, &c, &err), LRU_OK);
	assert_int_equal(count(&b, "class=\"pt\""), 0);
	assert_true(has(&b, "no data"));
	assert_string_equal((const char *)b.data + b.len - 7, "</svg>\n");
	b.len = 0;
	c.y.log = true;
	assert_int_equal(lru_svg_lines(&b, &c, &err), LRU_EINVAL);
	assert_non_null(strstr(err.msg, "log scale"));
	assert_int_equal(lru_svg_bars(&b, &bc, &err), LRU_EINVAL);	/* no segment named */
	lru_buf_release(&b);
}

static void test_bars(void **state)
{
	static const char *const stack[] = { "free", "cold" };
	struct lru_svg_bar bars[40];
	char labels[40][64];
	struct lru_svg_bar_chart c = {
		.title = "rank", .x = { "bytes", LRU_SVG_BYTES, false }, .stack = stack, .nr_stack = 2,
		.bars = bars, .nr_bars = 2, .marker = true, .marker_at = 3.0 * (1 << 30),
		.marker_label = "need 3 GiB",
	};
	struct lru_buf b;
	struct lru_error err;

	(void)state;
	for (int i = 0; i < 40; i++) {
		snprintf(labels[i], sizeof(labels[i]), "host-%02d", i);
		bars[i] = (struct lru_svg_bar){ labels[i], { 1e9 * i, 2e9 } };
	}
	bars[1].label = "a-very-long-host-name-that-goes-on.example.com:1";
	lru_buf_init(&b);
	assert_int_equal(lru_svg_bars(&b, &c, &err), LRU_OK);
	assert_int_equal(count(&b, "class=\"seg\""), 4);
	assert_true(has(&b, "data-label=\"host-00\" data-series=\"free\" data-v=\"0\""));
	assert_true(has(&b, "data-label=\"host-00\" data-series=\"cold\" data-v=\"2000000000\""));
	/* a long label is cut where it is drawn, whole in its data */
	assert_true(has(&b, ">a-very-long-host-name-that-goes-on.exam...</text>"));
	assert_true(has(&b, "data-label=\"a-very-long-host-name-that-goes-on.example.com:1\""));
	assert_true(has(&b, "class=\"marker\" data-v=\"3221225472\""));
	assert_true(has(&b, ">need 3 GiB</text>"));
	assert_true(has(&b, "height=\"600\""));
	/* many bars: a taller chart, 22 px a bar */
	b.len = 0;
	c.nr_bars = 40;
	assert_int_equal(lru_svg_bars(&b, &c, &err), LRU_OK);
	assert_int_equal(count(&b, "class=\"seg\""), 80);
	assert_true(has(&b, "height=\"1040\""));
	lru_buf_release(&b);
}

static void test_heatmap(void **state)
{
	const char *rows[] = { "young", "<old>&" }, *cols[] = { "-2m", "-1m", "now" };
	const double v[] = { 1024, 0, NAN, 4096, 2048, 1e6 };
	struct lru_svg_heatmap c = {
		.title = "t", .x_label = "time", .y_label = "age",
		.rows = rows, .nr_rows = 2, .cols = cols, .nr_cols = 3, .v = v, .unit = LRU_SVG_BYTES,
	};
	struct lru_buf b;
	struct lru_error err;

	(void)state;
	lru_buf_init(&b);
	assert_int_equal(lru_svg_heatmap(&b, &c, &err), LRU_OK);
	assert_int_equal(count(&b, "class=\"cell\""), 6);
	assert_true(has(&b, "data-row=\"young\" data-col=\"-2m\" data-v=\"1024\""));
	assert_true(has(&b, "data-row=\"&lt;old&gt;&amp;\" data-col=\"now\" data-v=\"1000000\""));
	assert_false(has(&b, "<old>"));
	/* the largest value is the darkest; no value is grey; zero is white */
	assert_true(has(&b, "data-v=\"1000000\" x=") && has(&b, "fill=\"#08306b\""));
	assert_true(has(&b, "data-v=\"nan\"") && has(&b, "fill=\"#eeeeee\""));
	assert_true(has(&b, "data-v=\"0\"") && has(&b, "fill=\"#ffffff\""));
	assert_int_equal(count(&b, "class=\"scale\""), 5);
	assert_false(has(&b, ">no data<"));
	/* nothing to shade: "no data" */
	b.len = 0;
	c.nr_cols = 0;
	assert_int_equal(lru_svg_heatmap(&b, &c, &err), LRU_OK);
	assert_true(has(&b, ">no data<"));
	/* no rows: refused */
	c.nr_rows = 0;
	assert_int_equal(lru_svg_heatmap(&b, &c, &err), LRU_EINVAL);
	lru_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_empty_and_invalid),
		cmocka_unit_test(test_bars),
		cmocka_unit_test(test_heatmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
