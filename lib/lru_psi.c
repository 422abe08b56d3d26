#include "lru_psi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_sys.h"

/* "avg10=1.00 avg60=2.00 avg300=3.00 total=4" after the "some"/"full" word. */
static bool parse_line(const char *s, struct lru_psi_line *l)
{
	unsigned long long total;
	int used = 0;

	if (sscanf(s, " avg10=%lf avg60=%lf avg300=%lf total=%llu%n", &l->avg10, &l->avg60,
		   &l->avg300, &total, &used) != 4 || !used)
		return false;
	if (s[used] && s[used] != '\n')
		return false;
	if (l->avg10 < 0 || l->avg60 < 0 || l->avg300 < 0 || l->avg10 > 100 ||
	    l->avg60 > 100 || l->avg300 > 100)
		return false;
	l->total_us = total;
	return true;
}

enum lru_err lru_psi_parse(const char *text, struct lru_psi *psi, struct lru_error *err)
{
	bool some = false;
	const char *line;

	memset(psi, 0, sizeof(*psi));
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "some ", 5)) {
			if (!parse_line(line + 4, &psi->some))
				return lru_fail(err, LRU_EPARSE, "malformed PSI line '%.*s'",
						(int)strcspn(line, "\n"), line);
			some = true;
		} else if (!strncmp(line, "full ", 5)) {
			if (!parse_line(line + 4, &psi->full))
				return lru_fail(err, LRU_EPARSE, "malformed PSI line '%.*s'",
						(int)strcspn(line, "\n"), line);
			psi->has_full = true;
		}
	}
	if (!some)
		return lru_fail(err, LRU_EPARSE, "PSI text has no 'some' line");
	return LRU_OK;
}

enum lru_err lru_psi_read(const char *root, const char *abs, struct lru_psi *psi,
			  struct lru_error *err)
{
	char *text;
	enum lru_err rc = lru_sys_read(root, abs, 1 << 12, &text, NULL, err);

	if (rc)
		return rc;
	rc = lru_psi_parse(text, psi, err);
	free(text);
	if (rc) {
		char msg[LRU_ERRMSG_MAX];

		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		return lru_fail(err, rc, "%s: %s", abs, msg);
	}
	return LRU_OK;
}
