/* fleet-plot.c - lrugen fleet plot: a chart of the store's answer, written to a file (fleet-plot.h). */
#include "fleet-plot.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "lru_buf.h"
#include "lru_sys.h"

int fleet_plot(enum lru_plot kind, json_t *doc, const char *out)
{
	struct lru_error err;
	struct lru_buf svg;
	int rc;

	lru_buf_init(&svg);
	lru_error_clear(&err);
	if (lru_plot_svg(kind, doc, &svg, &err)) {
		cli_err("plot %s: %s", lru_plot_name(kind), err.msg);
		lru_buf_release(&svg);
		return CLI_FAIL;
	}
	rc = CLI_OK;
	if (lru_sys_write_whole(out, svg.data, svg.len, &err)) {
		cli_err("%s", err.msg);
		rc = CLI_FAIL;
	} else if (strcmp(out, "-"))
		printf("wrote the %s plot (SVG, %zu bytes) to %s\n", lru_plot_name(kind), svg.len,
		       cli_esc(out));
	lru_buf_release(&svg);
	return rc;
}
