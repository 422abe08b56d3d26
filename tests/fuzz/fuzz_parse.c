/*
 * fuzz_parse.c - libFuzzer target for lru_parse (make fuzz).
 *
 * Parses the input whole (lru_parse_buf) and streamed in chunks whose sizes
 * are derived from the input (lru_parser_feed: varying chunks, two halves,
 * one byte at a time for short inputs), and whole with a tab put before each
 * line that starts with a space, which no fixed-width fast path of the parser
 * takes (so the general path parses those lines). Every way must give the
 * same result: the same code, line and message on error, the same snapshot
 * on success.
 * A successful snapshot must also keep the model's invariants, and an error
 * must be LRU_EPARSE or LRU_ERANGE with a message that names its line.
 * Any difference abort()s.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "lru_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Parse buf streamed: mode 0 in chunks of 0..66 bytes from a generator seeded
 * by the input, 1 in two pieces split at seed % (len + 1), 2 byte by byte.
 */
static enum lru_err parse_stream(struct lru_snapshot *snap, const char *buf, size_t len,
				 uint64_t seed, int mode, struct lru_error *err)
{
	struct lru_parser *p;
	size_t off = 0, n;
	uint64_t h = seed;
	bool first = true;
	enum lru_err rc;

	lru_snapshot_init(snap);
	lru_error_clear(err);
	rc = lru_parser_new(&p, snap, err);
	if (rc)
		return rc;
	while (!rc && off < len) {
		switch (mode) {
		case 0:		/* varying sizes, 0 included: an empty feed */
			h = h * 6364136223846793005ULL + 1442695040888963407ULL;
			n = (size_t)(h >> 33) % 67;
			break;
		case 1:		/* two pieces, split where the seed says */
			n = first ? (size_t)(seed % (len + 1)) : len - off;
			break;
		default:	/* one byte at a time */
			n = 1;
			break;
		}
		if (n > len - off)
			n = len - off;
		rc = lru_parser_feed(p, buf + off, n, err);
		off += n;
		first = false;
	}
	if (!rc)
		rc = lru_parser_finish(p, err);
	lru_parser_free(p);
	return rc;
}

/*
 * buf with a tab before each line that starts with a space and is shorter
 * than LRU_LINE_MAX: the parser skips leading blanks alike, but neither the
 * first byte nor the length of such a line is the kernel's fixed-width one.
 */
static char *tab_lines(const char *buf, size_t len, size_t *out_len)
{
	char *out = malloc(2 * len + 1);
	size_t i, start = 0, n = 0;

	CHECK(out);
	for (i = 0; i < len; i++) {
		if (i == start) {
			const char *nl = memchr(buf + i, '\n', len - i);
			size_t line = nl ? (size_t)(nl - (buf + i)) : len - i;

			if (buf[i] == ' ' && line < LRU_LINE_MAX)
				out[n++] = '\t';
			start = i + line + 1;
		}
		out[n++] = buf[i];
	}
	*out_len = n;
	return out;
}

static void check_invariants(const struct lru_snapshot *s)
{
	size_t i;
	unsigned g;

	CHECK(s->nr_memcgs >= 1);
	CHECK(s->nr_lruvecs >= s->nr_memcgs);
	for (i = 0; i < s->nr_memcgs; i++)
		CHECK(s->memcgs[i].path && strlen(s->memcgs[i].path) <= LRU_PATH_MAX);
	for (i = 0; i < s->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &s->lruvecs[i];

		CHECK(lv->memcg < s->nr_memcgs);
		CHECK(lv->node >= 0 && lv->node <= LRU_NODE_MAX);
		CHECK(lv->nr_gens >= 1 && lv->nr_gens <= LRU_MAX_GENS);
		CHECK(!lv->gens[lv->nr_gens - 1].evicted);
		for (g = 1; g < lv->nr_gens; g++) {
			CHECK(lv->gens[g].seq == lv->gens[g - 1].seq + 1);
			CHECK(!(lv->gens[g].evicted & ~lv->gens[g - 1].evicted));
		}
		if (lv->full) {
			CHECK(!!s->lruvecs[0].full);
			for (g = 0; g < lv->nr_gens; g++)
				CHECK(lv->full->has_tiers[g]);
		} else {
			CHECK(!s->lruvecs[0].full);
		}
	}
}

static void check_same(const struct lru_snapshot *a, const struct lru_snapshot *b)
{
	size_t i;
	unsigned g, t, c;

	CHECK(a->nr_memcgs == b->nr_memcgs);
	CHECK(a->nr_lruvecs == b->nr_lruvecs);
	CHECK(a->nr_duplicates == b->nr_duplicates);
	for (i = 0; i < a->nr_memcgs; i++) {
		CHECK(a->memcgs[i].id == b->memcgs[i].id);
		CHECK(!strcmp(a->memcgs[i].path, b->memcgs[i].path));
	}
	for (i = 0; i < a->nr_lruvecs; i++) {
		const struct lru_lruvec *x = &a->lruvecs[i], *y = &b->lruvecs[i];

		CHECK(x->memcg == y->memcg && x->node == y->node && x->nr_gens == y->nr_gens);
		for (g = 0; g < x->nr_gens; g++) {
			CHECK(x->gens[g].seq == y->gens[g].seq);
			CHECK(x->gens[g].age_ms == y->gens[g].age_ms);
			CHECK(x->gens[g].evicted == y->gens[g].evicted);
			CHECK(x->gens[g].pages[LRU_ANON] == y->gens[g].pages[LRU_ANON]);
			CHECK(x->gens[g].pages[LRU_FILE] == y->gens[g].pages[LRU_FILE]);
		}
		CHECK(!x->full == !y->full);
		if (!x->full)
			continue;
		for (g = 0; g < x->nr_gens; g++) {
			const struct lru_full *f = x->full, *h = y->full;

			CHECK(f->has_tiers[g] == h->has_tiers[g] && f->has_walk[g] == h->has_walk[g]);
			for (t = 0; t < LRU_NR_TIERS; t++) {
				CHECK(f->tiers[g][t].present == h->tiers[g][t].present);
				for (c = 0; c < LRU_TC_NR; c++) {
					CHECK(f->tiers[g][t].v[0][c] == h->tiers[g][t].v[0][c]);
					CHECK(f->tiers[g][t].v[1][c] == h->tiers[g][t].v[1][c]);
				}
			}
			CHECK(f->walk[g].present == h->walk[g].present);
			for (c = 0; c < LRU_WALK_NR; c++)
				CHECK(f->walk[g].v[c] == h->walk[g].v[c]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct lru_snapshot whole, chunked;
	struct lru_error err0, err;
	enum lru_err rc0, rc;
	uint64_t seed = 0xcbf29ce484222325ULL;
	size_t i, tabbed_len;
	char *tabbed;
	int mode;

	for (i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ULL;

	lru_snapshot_init(&whole);
	lru_error_clear(&err0);
	rc0 = lru_parse_buf(&whole, buf, size, &err0);
	if (rc0)
		check_error(rc0, &err0);
	else
		check_invariants(&whole);

	for (mode = 0; mode < 3; mode++) {
		if (mode == 2 && size > 4096)
			break;
		rc = parse_stream(&chunked, buf, size, seed, mode, &err);
		CHECK(rc == rc0);
		if (rc) {
			CHECK(err.line == err0.line);
			CHECK(!strcmp(err.msg, err0.msg));
		} else {
			check_same(&whole, &chunked);
		}
		lru_snapshot_release(&chunked);
	}

	tabbed = tab_lines(buf, size, &tabbed_len);
	lru_snapshot_init(&chunked);
	lru_error_clear(&err);
	rc = lru_parse_buf(&chunked, tabbed, tabbed_len, &err);
	CHECK(rc == rc0);
	if (rc) {
		CHECK(err.line == err0.line);
		CHECK(!strcmp(err.msg, err0.msg));
	} else {
		check_same(&whole, &chunked);
	}
	lru_snapshot_release(&chunked);
	free(tabbed);
	lru_snapshot_release(&whole);
	return 0;
}
