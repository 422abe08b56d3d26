/*
 * lru_gz.c - gzip into an lru_buf (lru_gz.h).
 */
#include "lru_gz.h"

#include <string.h>

/* the room deflate() gets on each call: enough for it never to stall */
#define GZ_STEP (64u << 10)

enum lru_err lru_gz_begin(struct lru_gz *gz, int level, struct lru_error *err)
{
	memset(gz, 0, sizeof(*gz));
	/* 15 + 16: a gzip header and trailer rather than zlib's */
	if (deflateInit2(&gz->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return lru_fail(err, LRU_ENOMEM, "cannot start gzip: out of memory");
	gz->open = 1;
	return LRU_OK;
}

/* deflate() with flush until it takes all input (and, for Z_FINISH, ends). */
static enum lru_err gz_run(struct lru_gz *gz, int flush, struct lru_buf *out,
			   struct lru_error *err)
{
	enum lru_err rc;
	size_t room;
	int zrc;

	for (;;) {
		room = GZ_STEP;
		if (out->max && out->max - out->len < room)	/* len <= max always */
			room = out->max - out->len;
		if (!room)
			return lru_fail(err, LRU_ERANGE, "more than %zu bytes gzipped", out->max);
		if ((rc = lru_buf_reserve(out, room, err)))
			return rc;
		gz->z.next_out = out->data + out->len;
		gz->z.avail_out = (uInt)room;
		zrc = deflate(&gz->z, flush);
		out->len += room - gz->z.avail_out;
		if (zrc == Z_STREAM_END)
			return LRU_OK;
		if (zrc != Z_OK && zrc != Z_BUF_ERROR)
			return lru_fail(err, LRU_ENOMEM, "gzip failed (zlib %d)", zrc);
		if (flush == Z_NO_FLUSH && !gz->z.avail_in && gz->z.avail_out)
			return LRU_OK;
	}
}

enum lru_err lru_gz_write(struct lru_gz *gz, const void *in, size_t len, struct lru_buf *out,
			  struct lru_error *err)
{
	const uint8_t *p = in;
	enum lru_err rc;

	while (len) {	/* avail_in is a uInt */
		size_t n = len > (1u << 30) ? (1u << 30) : len;

		gz->z.next_in = (Bytef *)p;
		gz->z.avail_in = (uInt)n;
		if ((rc = gz_run(gz, Z_NO_FLUSH, out, err)))
			return rc;
		p += n;
		len -= n;
	}
	return LRU_OK;
}

enum lru_err lru_gz_finish(struct lru_gz *gz, struct lru_buf *out, struct lru_error *err)
{
	gz->z.next_in = NULL;
	gz->z.avail_in = 0;
	return gz_run(gz, Z_FINISH, out, err);
}

void lru_gz_end(struct lru_gz *gz)
{
	if (gz->open)
		deflateEnd(&gz->z);
	gz->open = 0;
}

enum lru_err lru_gz_all(const void *in, size_t len, int level, struct lru_buf *out,
			struct lru_error *err)
{
	struct lru_gz gz;
	enum lru_err rc = lru_gz_begin(&gz, level, err);

	if (!rc && !(rc = lru_gz_write(&gz, in, len, out, err)))
		rc = lru_gz_finish(&gz, out, err);
	lru_gz_end(&gz);
	return rc;
}
