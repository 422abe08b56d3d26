/* fleet-plot.c - lrugen fleet plot: a chart of the store's answer, written to a file (fleet-plot.h). */
#include "fleet-plot.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "lru_buf.h"
#include "lru_sys.h"
#include "png.h"

bool fleet_plot_png(const char *out)
{
	size_t n = strlen(out);

	return n > 4 && !strcasecmp(out + n - 4, ".png");
}

int fleet_plot(enum lru_plot kind, json_t *doc, const char *out)
{
	struct lru_error err;
	struct lru_buf svg, png;
	const struct lru_buf *file = &svg;
	int rc = CLI_FAIL;

	lru_buf_init(&svg);
	lru_buf_init(&png);
	lru_error_clear(&err);
	if (lru_plot_svg(kind, doc, &svg, &err)) {
		cli_err("plot %s: %s", lru_plot_name(kind), err.msg);
		goto out;
	}
	if (fleet_plot_png(out)) {
		if (png_from_svg(svg.data, svg.len, &png, &err)) {
			cli_err("plot %s: %s", lru_plot_name(kind), err.msg);
			goto out;
		}
		file = &png;
	}
	if (lru_sys_write_whole(out, file->data, file->len, &err)) {
		cli_err("%s", err.msg);
		goto out;
	}
	if (strcmp(out, "-"))
		printf("wrote the %s plot (%s, %zu bytes) to %s\n", lru_plot_name(kind),
		       file == &png ? "PNG" : "SVG", file->len, cli_esc(out));
	rc = CLI_OK;
out:
	lru_buf_release(&svg);
	lru_buf_release(&png);
	return rc;
}
