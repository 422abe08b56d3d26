/*
 * lru_gz.h - gzip into an lru_buf, whole or a piece at a time (zlib).
 *
 *	struct lru_gz gz;
 *	if (lru_gz_begin(&gz, 1, &err)) ...		// level 1..9
 *	lru_gz_write(&gz, piece, len, &out, &err);	// as often as needed
 *	lru_gz_finish(&gz, &out, &err);			// the gzip trailer
 *	lru_gz_end(&gz);				// always, once begun
 *
 * out grows as the compressed stream does and keeps its limit (out->max:
 * LRU_ERANGE past it), so a caller can bound what it builds by what it
 * would send. Request bodies (lru_client) and /v1/latest's answers
 * (lrugen-store) are made with it.
 */
#ifndef LRU_GZ_H
#define LRU_GZ_H

#include <stddef.h>

#include <zlib.h>

#include "lru_buf.h"
#include "lru_err.h"

struct lru_gz {
	z_stream z;
	int open;
};

enum lru_err lru_gz_begin(struct lru_gz *gz, int level, struct lru_error *err);
/* Compress len bytes of in onto out. LRU_ERANGE past out->max, LRU_ENOMEM. */
enum lru_err lru_gz_write(struct lru_gz *gz, const void *in, size_t len, struct lru_buf *out,
			  struct lru_error *err);
/* End the stream on out (after it, only lru_gz_end). */
enum lru_err lru_gz_finish(struct lru_gz *gz, struct lru_buf *out, struct lru_error *err);
void lru_gz_end(struct lru_gz *gz);

/* lru_gz_begin + write + finish + end: in as one gzip stream appended to out. */
enum lru_err lru_gz_all(const void *in, size_t len, int level, struct lru_buf *out,
			struct lru_error *err);

#endif
