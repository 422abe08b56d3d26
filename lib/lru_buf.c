#include "lru_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lru_buf_init(struct lru_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void lru_buf_release(struct lru_buf *b)
{
	size_t max = b->max;

	free(b->data);
	lru_buf_init(b);
	b->max = max;
}

enum lru_err lru_buf_reserve(struct lru_buf *b, size_t extra, struct lru_error *err)
{
	size_t want, alloc;
	uint8_t *p;

	if (extra > SIZE_MAX - b->len)
		return lru_fail(err, LRU_ERANGE, "buffer size overflows");
	want = b->len + extra;
	if (b->max && want > b->max)
		return lru_fail(err, LRU_ERANGE, "more than %zu bytes", b->max);
	if (want <= b->alloc)
		return LRU_OK;
	alloc = b->alloc ? b->alloc : 256;
	while (alloc < want)
		alloc = alloc > SIZE_MAX / 2 ? want : alloc * 2;
	p = realloc(b->data, alloc);
	if (!p)
		return lru_fail(err, LRU_ENOMEM, "out of memory growing a buffer to %zu bytes", alloc);
	b->data = p;
	b->alloc = alloc;
	return LRU_OK;
}

enum lru_err lru_buf_append(struct lru_buf *b, const void *data, size_t len,
			    struct lru_error *err)
{
	enum lru_err rc;

	rc = lru_buf_reserve(b, len, err);
	if (rc)
		return rc;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	return LRU_OK;
}

enum lru_err lru_buf_printf(struct lru_buf *b, struct lru_error *err, const char *fmt, ...)
{
	enum lru_err rc;
	va_list ap;

	va_start(ap, fmt);
	rc = lru_buf_vprintf(b, err, fmt, ap);
	va_end(ap);
	return rc;
}

enum lru_err lru_buf_vprintf(struct lru_buf *b, struct lru_error *err, const char *fmt, va_list ap)
{
	enum lru_err rc;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0) {
		va_end(again);
		return lru_fail(err, LRU_EINVAL, "cannot format text");
	}
	rc = lru_buf_reserve(b, (size_t)n + 1, err);
	if (!rc) {
		vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, again);
		b->len += (size_t)n;
	}
	va_end(again);
	return rc;
}

int lru_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;
	unsigned shift;

	for (shift = 0; shift < 64; shift += 7) {
		if (q >= end)
			return -1;
		x |= (uint64_t)(*q & 0x7f) << shift;
		if (!(*q++ & 0x80)) {
			*p = q;
			*v = x;
			return 0;
		}
	}
	return -1;
}

int lru_get_svarint(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	uint64_t u;

	if (lru_get_varint(p, end, &u))
		return -1;
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return 0;
}
