/* test_gz.c - lru_gz.h: what it writes gunzips (by zlib) to what went in, whole or in pieces, within a limit. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lru_gz.h"
#include "testutil.h"

/* gunzip in (one gzip member) into a malloc'd buffer of *len bytes */
static uint8_t *gunzip(const uint8_t *in, size_t len, size_t cap, size_t *out_len)
{
	uint8_t *out = malloc(cap ? cap : 1);
	z_stream z;

	assert_non_null(out);
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.avail_in, 0);
	*out_len = z.total_out;
	inflateEnd(&z);
	return out;
}

/* 3 MB of text that compresses somewhat, as a SnapshotBatch does */
static uint8_t *sample(size_t n)
{
	uint8_t *p = malloc(n);
	uint64_t x = 88172645463325252ull;

	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		p[i] = (uint8_t)("lruvec /jobs/web gen 0123456789"[x % 31] + (i % 4096 == 0));
	}
	return p;
}

static void test_whole(void **state)
{
	size_t n = 3u << 20, got;
	uint8_t *in = sample(n), *back;
	struct lru_error err;
	struct lru_buf out;

	(void)state;
	lru_buf_init(&out);
	assert_int_equal(lru_gz_all(in, n, 1, &out, &err), LRU_OK);
	assert_true(out.len > 18 && out.len < n);
	back = gunzip(out.data, out.len, n, &got);
	assert_int_equal(got, n);
	assert_memory_equal(back, in, n);
	free(back);
	/* nothing gzips to an empty member */
	out.len = 0;
	assert_int_equal(lru_gz_all("", 0, 6, &out, &err), LRU_OK);
	back = gunzip(out.data, out.len, 16, &got);
	assert_int_equal(got, 0);
	free(back);
	lru_buf_release(&out);
	free(in);
}

/* pieces of every size from 1 byte to 200 KB: one stream, the same bytes */
static void test_pieces(void **state)
{
	size_t n = 3u << 20, off = 0, step = 1, got;
	uint8_t *in = sample(n), *back;
	struct lru_error err;
	struct lru_buf out;
	struct lru_gz gz;

	(void)state;
	lru_buf_init(&out);
	assert_int_equal(lru_gz_begin(&gz, 1, &err), LRU_OK);
	while (off < n) {
		size_t k = step < n - off ? step : n - off;

		assert_int_equal(lru_gz_write(&gz, in + off, k, &out, &err), LRU_OK);
		off += k;
		step = step * 3 + 1 > (200u << 10) ? 1 : step * 3 + 1;
	}
	assert_int_equal(lru_gz_finish(&gz, &out, &err), LRU_OK);
	lru_gz_end(&gz);
	lru_gz_end(&gz);	/* twice is harmless */
	back = gunzip(out.data, out.len, n, &got);
	assert_int_equal(got, n);
	assert_memory_equal(back, in, n);
	free(back);
	lru_buf_release(&out);
	free(in);
}

/* out->max bounds the compressed stream: LRU_ERANGE, never more than max */
static void test_limit(void **state)
{
	size_t n = 3u << 20;
	uint8_t *in = sample(n);
	struct lru_error err;
	struct lru_buf out;
	struct lru_gz gz;
	enum lru_err rc;

	(void)state;
	lru_buf_init(&out);
	out.max = 100000;
	assert_int_equal(lru_gz_begin(&gz, 1, &err), LRU_OK);
	rc = lru_gz_write(&gz, in, n, &out, &err);
	if (rc == LRU_OK)
		rc = lru_gz_finish(&gz, &out, &err);
	assert_int_equal(rc, LRU_ERANGE);
	assert_true(out.len <= out.max);
	assert_non_null(strstr(err.msg, "100000"));
	lru_gz_end(&gz);
	/* within the limit, the same call succeeds */
	out.len = 0;
	out.max = n;
	assert_int_equal(lru_gz_all(in, n, 1, &out, &err), LRU_OK);
	lru_buf_release(&out);
	free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
