/*
 * lru_lines.h - cutting streamed input into lines, for the streaming parsers.
 *
 * Input arrives in chunks of any size; a line may straddle chunks. A
 * struct lru_lines carries the start of such a line over to the next chunk:
 *
 *	struct lru_lines l = { .max = LRU_LINE_MAX };
 *	for (;;) {
 *		if ((rc = lru_lines_next(&l, &buf, &len, &line, &n, &lineno, err)))
 *			return rc;		// a carried-over line too long, ENOMEM
 *		if (!line)
 *			break;			// chunk used up: feed the next one
 *		lineno++;
 *		parse(line, n);			// n bytes, newline excluded
 *	}
 *	lru_lines_release(&l);
 *
 * A line that lies whole in one chunk is returned in place (no copy, no
 * length check: the caller checks); a line carried over is copied into l's
 * buffer (l.max + 1 bytes, allocated on first use) and is refused past l.max
 * bytes with LRU_EPARSE, "line N: line is longer than MAX bytes" (N is
 * *lineno + 1, which *lineno becomes). A returned line stays valid until the
 * next call. l.plen > 0 says a partial line is pending (at the end of the
 * input: truncated).
 */
#ifndef LRU_LINES_H
#define LRU_LINES_H

#include <stddef.h>

#include "lru_err.h"

struct lru_lines {
	size_t max;		/* longest line carried over */
	char *partial;		/* the carried-over start of a line; owned */
	size_t plen;
};

/* Take the next line from *buf, *len (advanced past it and its newline), or *line = NULL. */
enum lru_err lru_lines_next(struct lru_lines *l, const char **buf, size_t *len,
			    const char **line, size_t *n, long *lineno, struct lru_error *err);
void lru_lines_release(struct lru_lines *l);

#endif
