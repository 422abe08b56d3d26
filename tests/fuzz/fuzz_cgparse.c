/*
 * fuzz_cgparse.c - libFuzzer target for lru_cgparse, the memory.lru_gen
 * parser (make fuzz).
 *
 * Parses the input whole (lru_cgparse_buf) and streamed, in chunks whose
 * sizes come from the input and byte by byte for short inputs: every way must
 * give the same result (the same code, line and message on error; the same
 * lruvecs on success). A success must keep the model's invariants (nodes
 * ascending, seqs contiguous, at most LRU_MAX_GENS); an error must be
 * LRU_EPARSE or LRU_ERANGE with a message that names its line. Any
 * difference abort()s.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "lru_cgparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_memcg(struct lru_snapshot *s)
{
	lru_snapshot_init(s);
	CHECK(!lru_snapshot_add_memcg(s, 0, "/fuzz", 5, NULL, NULL));
}

/* Streamed: chunks of 0..66 bytes (seeded by the input), or one byte at a time. */
static enum lru_err parse_stream(struct lru_snapshot *s, const char *buf, size_t len,
				 uint64_t seed, int bytewise, struct lru_error *err)
{
	struct lru_cgparser *p;
	uint64_t h = seed;
	size_t off = 0;
	enum lru_err rc;

	one_memcg(s);
	lru_error_clear(err);
	CHECK(!lru_cgparser_new(&p, s, 0, err));
	rc = LRU_OK;
	while (!rc && off < len) {
		size_t n = 1;

		if (!bytewise) {
			h = h * 6364136223846793005ULL + 1442695040888963407ULL;
			n = (size_t)(h >> 33) % 67;
		}
		if (n > len - off)
			n = len - off;
		rc = lru_cgparser_feed(p, buf + off, n, err);
		off += n;
	}
	if (!rc)
		rc = lru_cgparser_finish(p, err);
	lru_cgparser_free(p);
	return rc;
}

static void check_invariants(const struct lru_snapshot *s)
{
	for (size_t i = 0; i < s->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &s->lruvecs[i];

		CHECK(lv->memcg == 0);
		CHECK(lv->node >= 0 && lv->node <= LRU_NODE_MAX);
		CHECK(!i || lv->node > s->lruvecs[i - 1].node);
		CHECK(lv->nr_gens >= 1 && lv->nr_gens <= LRU_MAX_GENS);
		for (unsigned g = 1; g < lv->nr_gens; g++)
			CHECK(lv->gens[g].seq == lv->gens[g - 1].seq + 1);
	}
}

static void check_same(const struct lru_snapshot *a, const struct lru_snapshot *b)
{
	CHECK(a->nr_lruvecs == b->nr_lruvecs);
	for (size_t i = 0; i < a->nr_lruvecs; i++) {
		const struct lru_lruvec *x = &a->lruvecs[i], *y = &b->lruvecs[i];

		CHECK(x->node == y->node && x->nr_gens == y->nr_gens);
		for (unsigned g = 0; g < x->nr_gens; g++) {
			CHECK(x->gens[g].seq == y->gens[g].seq);
			CHECK(x->gens[g].age_ms == y->gens[g].age_ms);
			CHECK(x->gens[g].pages[LRU_ANON] == y->gens[g].pages[LRU_ANON]);
			CHECK(x->gens[g].pages[LRU_FILE] == y->gens[g].pages[LRU_FILE]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct lru_snapshot whole, chunked;
	struct lru_error err0, err;
	uint64_t seed = 0xcbf29ce484222325ULL;
	enum lru_err rc0, rc;

	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ULL;
	one_memcg(&whole);
	lru_error_clear(&err0);
	rc0 = lru_cgparse_buf(&whole, 0, buf, size, &err0);
	if (rc0)
		check_error(rc0, &err0);
	else
		check_invariants(&whole);
	for (int bytewise = 0; bytewise < 2; bytewise++) {
		if (bytewise && size > 4096)
			break;
		rc = parse_stream(&chunked, buf, size, seed, bytewise, &err);
		CHECK(rc == rc0);
		if (rc) {
			CHECK(err.line == err0.line);
			CHECK(!strcmp(err.msg, err0.msg));
		} else {
			check_same(&whole, &chunked);
		}
		lru_snapshot_release(&chunked);
	}
	lru_snapshot_release(&whole);
	return 0;
}
