#include "lru_lines.h"

#include <stdlib.h>
#include <string.h>

enum lru_err lru_lines_next(struct lru_lines *l, const char **buf, size_t *len,
			    const char **line, size_t *n, long *lineno, struct lru_error *err)
{
	const char *nl = *len ? memchr(*buf, '\n', *len) : NULL;
	size_t k = nl ? (size_t)(nl - *buf) : *len;

	*line = NULL;
	if (!*len)
		return LRU_OK;
	if (nl && !l->plen) {
		*line = *buf;
		*n = k;
	} else {
		if (l->plen + k > l->max)
			return lru_fail_line(err, LRU_EPARSE, ++*lineno,
					     "line is longer than %zu bytes", l->max);
		if (!l->partial && !(l->partial = malloc(l->max + 1)))
			return lru_fail(err, LRU_ENOMEM, "out of memory buffering a line");
		memcpy(l->partial + l->plen, *buf, k);
		l->plen += k;
		if (!nl) {
			*buf += k;
			*len = 0;
			return LRU_OK;
		}
		*line = l->partial;
		*n = l->plen;
		l->plen = 0;
	}
	*buf += k + 1;
	*len -= k + 1;
	return LRU_OK;
}

void lru_lines_release(struct lru_lines *l)
{
	free(l->partial);
	l->partial = NULL;
	l->plen = 0;
}
