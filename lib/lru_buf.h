/*
 * lru_buf.h - a growable byte buffer (git's strbuf, for bytes).
 *
 *	struct lru_buf b;
 *	lru_buf_init(&b);			// allocates nothing
 *	if (lru_buf_append(&b, data, len, &err)) ...
 *	use(b.data, b.len);
 *	lru_buf_release(&b);			// frees, leaves an empty buffer
 *
 * b.data is NULL until something is appended. A buffer may carry a limit:
 * growing past b.max fails with LRU_ERANGE (request bodies, inflated data),
 * so that untrusted input cannot make it grow without bound.
 */
#ifndef LRU_BUF_H
#define LRU_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_err.h"

struct lru_buf {
	uint8_t *data;
	size_t len, alloc;
	size_t max;		/* 0 = no limit */
};

void lru_buf_init(struct lru_buf *b);
void lru_buf_release(struct lru_buf *b);

/* Make room for extra more bytes; LRU_ERANGE past b->max, LRU_ENOMEM. */
enum lru_err lru_buf_reserve(struct lru_buf *b, size_t extra, struct lru_error *err);
enum lru_err lru_buf_append(struct lru_buf *b, const void *data, size_t len,
			    struct lru_error *err);
/* Append printf-style text (without its NUL). LRU_ERANGE past b->max, LRU_ENOMEM. */
enum lru_err lru_buf_printf(struct lru_buf *b, struct lru_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with a va_list (ap is used up). */
enum lru_err lru_buf_vprintf(struct lru_buf *b, struct lru_error *err, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/*
 * Append a protobuf-style varint (7 bits a byte, low first) or a zigzag
 * varint of a signed value. Callers reserve LRU_BUF_VARINT_MAX bytes per
 * value first; these never fail.
 */
#define LRU_BUF_VARINT_MAX 10
static inline void lru_buf_put_varint(struct lru_buf *b, uint64_t v)
{
	uint8_t *p = b->data + b->len;

	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	b->len = (size_t)(p - b->data);
}

static inline void lru_buf_put_svarint(struct lru_buf *b, int64_t v)
{
	lru_buf_put_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/*
 * Read a varint at *p (not past end) into *v and advance *p; returns 0, or
 * -1 on a truncated or overlong varint.
 */
int lru_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);
int lru_get_svarint(const uint8_t **p, const uint8_t *end, int64_t *v);

#endif
