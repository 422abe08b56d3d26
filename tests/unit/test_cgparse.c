/*
 * test_cgparse.c - lru_cgparse: the memory.lru_gen fixture, every chunking of
 * it, forward-compatible extra keys, the largest values, and one case per
 * class of malformed input (kept as data below: input, code, line, message).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_cgparse.h"

#define WEB "fixtures/memory.lru_gen/jobs/web/memory.lru_gen"

/* A snapshot with one memcg, "/jobs/web", for the parser to fill. */
static void one_memcg(struct lru_snapshot *s)
{
	lru_snapshot_init(s);
	assert_int_equal(lru_snapshot_add_memcg(s, 0, "/jobs/web", 9, NULL, NULL), LRU_OK);
}

static enum lru_err parse(struct lru_snapshot *s, const char *text, struct lru_error *err)
{
	one_memcg(s);
	lru_error_clear(err);
	return lru_cgparse_buf(s, 0, text, strlen(text), err);
}

/* The web fixture, as README.md in its directory describes it. */
static void check_web(const struct lru_snapshot *s)
{
	static const uint32_t ages[4] = { 9000, 6000, 3000, 1000 };
	const struct lru_lruvec *n0, *n1;

	assert_int_equal(s->nr_memcgs, 1);
	assert_int_equal(s->nr_lruvecs, 2);
	n0 = &s->lruvecs[0];
	n1 = &s->lruvecs[1];
	assert_int_equal(n0->memcg, 0);
	assert_int_equal(n1->memcg, 0);
	assert_int_equal(n0->node, 0);
	assert_int_equal(n1->node, 1);
	assert_int_equal(n0->nr_gens, 4);
	assert_int_equal(n1->nr_gens, 4);
	for (unsigned g = 0; g < 4; g++) {
		assert_int_equal(n0->gens[g].seq, 7 + g);
		assert_int_equal(n1->gens[g].seq, 4 + g);
		assert_int_equal(n0->gens[g].age_ms, ages[g]);
		assert_int_equal(n1->gens[g].age_ms, ages[g]);
		assert_int_equal(n0->gens[g].evicted, 0);
	}
	assert_int_equal(n0->gens[0].pages[LRU_FILE], 1);
	assert_int_equal(n0->gens[3].pages[LRU_ANON], 2);
	assert_int_equal(n1->gens[0].pages[LRU_ANON], 20480);	/* 80 MiB */
	assert_int_equal(n1->gens[1].pages[LRU_ANON], 0);
	assert_int_equal(n1->gens[2].pages[LRU_ANON], 10240);	/* 40 MiB */
	assert_int_equal(n1->gens[3].pages[LRU_FILE], 256);	/* 1 MiB */
	assert_int_equal(lru_lruvec_pages(n1, LRU_ANON), 30720);
	assert_null(n0->full);
}

static void test_fixture(void **state)
{
	struct lru_snapshot s;
	struct lru_error err;
	size_t len;
	char *text = tu_read(WEB, &len);

	(void)state;
	one_memcg(&s);
	assert_int_equal(lru_cgparse_buf(&s, 0, text, len, &err), LRU_OK);
	check_web(&s);
	lru_snapshot_release(&s);
	free(text);
}

/* Byte by byte, and split at every offset: the same lruvecs. */
static void test_every_chunking(void **state)
{
	struct lru_snapshot s;
	struct lru_cgparser *p;
	struct lru_error err;
	size_t len, split, i;
	char *text = tu_read(WEB, &len);

	(void)state;
	one_memcg(&s);
	assert_int_equal(lru_cgparser_new(&p, &s, 0, &err), LRU_OK);
	for (i = 0; i < len; i++)
		assert_int_equal(lru_cgparser_feed(p, text + i, 1, &err), LRU_OK);
	assert_int_equal(lru_cgparser_finish(p, &err), LRU_OK);
	lru_cgparser_free(p);
	check_web(&s);
	lru_snapshot_release(&s);
	for (split = 0; split <= len; split++) {
		one_memcg(&s);
		assert_int_equal(lru_cgparser_new(&p, &s, 0, &err), LRU_OK);
		assert_int_equal(lru_cgparser_feed(p, text, split, &err), LRU_OK);
		assert_int_equal(lru_cgparser_feed(p, text + split, len - split, &err), LRU_OK);
		assert_int_equal(lru_cgparser_finish(p, &err), LRU_OK);
		lru_cgparser_free(p);
		check_web(&s);
		lru_snapshot_release(&s);
	}
	free(text);
}

/* Keys a newer kernel may add are skipped wherever they are; tabs separate too. */
static void test_unknown_keys_ignored(void **state)
{
	static const char text[] =
		"N2 tier0=5 seq=10 age_ms=50 birth_ms=7 anon=4096 file=8192 x_y=z\n"
		"N2\tseq=11\tage_ms=20 future=1,2,3 birth_ms=8 anon=0 file=4096\n";
	struct lru_snapshot s;
	struct lru_error err;

	(void)state;
	assert_int_equal(parse(&s, text, &err), LRU_OK);
	assert_int_equal(s.nr_lruvecs, 1);
	assert_int_equal(s.lruvecs[0].node, 2);
	assert_int_equal(s.lruvecs[0].nr_gens, 2);
	assert_int_equal(s.lruvecs[0].gens[0].seq, 10);
	assert_int_equal(s.lruvecs[0].gens[0].age_ms, 50);
	assert_int_equal(s.lruvecs[0].gens[0].pages[LRU_ANON], 1);
	assert_int_equal(s.lruvecs[0].gens[0].pages[LRU_FILE], 2);
	assert_int_equal(s.lruvecs[0].gens[1].seq, 11);
	assert_int_equal(s.lruvecs[0].gens[1].pages[LRU_FILE], 1);
	lru_snapshot_release(&s);
}

/* The largest value of every field parses exactly. */
static void test_huge_values(void **state)
{
	static const char text[] =
		"N1023 seq=18446744073709551614 age_ms=4294967295 birth_ms=18446744073709551615 "
		"anon=18446744073709547520 file=0\n"
		"N1023 seq=18446744073709551615 age_ms=0 birth_ms=0 anon=0 "
		"file=18446744073709547520\n";
	struct lru_snapshot s;
	struct lru_error err;

	(void)state;
	assert_int_equal(parse(&s, text, &err), LRU_OK);
	assert_int_equal(s.nr_lruvecs, 1);
	assert_int_equal(s.lruvecs[0].node, 1023);
	assert_true(s.lruvecs[0].gens[0].seq == UINT64_MAX - 1);
	assert_true(s.lruvecs[0].gens[1].seq == UINT64_MAX);
	assert_true(s.lruvecs[0].gens[0].age_ms == UINT32_MAX);
	assert_true(s.lruvecs[0].gens[0].pages[LRU_ANON] == UINT64_MAX / 4096);
	assert_true(s.lruvecs[0].gens[1].pages[LRU_FILE] == UINT64_MAX / 4096);
	lru_snapshot_release(&s);
}

/* A memcg whose file prints nothing gets no lruvecs (documented, not an error). */
static void test_empty_input(void **state)
{
	struct lru_snapshot s;
	struct lru_error err;

	(void)state;
	assert_int_equal(parse(&s, "", &err), LRU_OK);
	assert_int_equal(s.nr_lruvecs, 0);
	lru_snapshot_release(&s);
}

static void test_bad_memcg_index(void **state)
{
	struct lru_snapshot s;
	struct lru_error err;

	(void)state;
	one_memcg(&s);
	assert_int_equal(lru_cgparse_buf(&s, 1, "", 0, &err), LRU_EINVAL);
	lru_snapshot_release(&s);
}

#define NUL_LINE "N0 seq=1 age_ms=1\0 birth_ms=1 anon=0 file=0\n"
#define G(n, seq) "N" #n " seq=" #seq " age_ms=100 birth_ms=5 anon=0 file=0\n"

struct bad {
	const char *name;
	const char *text;
	size_t len;		/* 0: strlen(text) */
	enum lru_err code;
	int line;
	const char *msg;	/* a substring of the message, after "line N: " */
};

static const struct bad bad_cases[] = {
	{ "missing key", "N0 seq=1 age_ms=1 birth_ms=1 anon=0\n", 0, LRU_EPARSE, 1,
	  "node 0: key 'file' is missing" },
	{ "missing birth", "N0 seq=1 age_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "key 'birth_ms' is missing" },
	{ "only a node", "N0\n", 0, LRU_EPARSE, 1, "key 'seq' is missing" },
	{ "duplicate key", "N0 seq=1 seq=1 age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "key 'seq' appears twice" },
	{ "no newline at the end", G(0, 1) "N0 seq=2 age_ms=1 birth_ms=1 anon=0 file=0", 0,
	  LRU_EPARSE, 2, "truncated: no newline" },
	{ "empty line", G(0, 1) "\n" G(0, 2), 0, LRU_EPARSE, 2, "empty line" },
	{ "blank line", "  \t\n", 0, LRU_EPARSE, 1, "empty line" },
	{ "no node first", "seq=1 N0 age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "expected 'N<node>' first, got 'seq=1'" },
	{ "lowercase node", "n0 seq=1 age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "expected 'N<node>' first" },
	{ "node without number", "N seq=1 age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "expected 'N<node>' first, got 'N'" },
	{ "node not a number", "N0x1 seq=1 age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "node 'N0x1' is not N followed by a number" },
	{ "node out of range", "N1024 seq=1 age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_ERANGE, 1,
	  "node 'N1024' is out of range (at most 1023)" },
	{ "field without =", "N0 seq 1 age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "expected KEY=VALUE, got 'seq'" },
	{ "empty value", "N0 seq= age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "expected KEY=VALUE, got 'seq='" },
	{ "empty key", "N0 =1 seq=1 age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "expected KEY=VALUE, got '=1'" },
	{ "uppercase key", "N0 SEQ=1 seq=1 age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "expected KEY=VALUE, got 'SEQ=1'" },
	{ "unknown key without value", "N0 seq=1 age_ms=1 birth_ms=1 anon=0 file=0 new=\n", 0,
	  LRU_EPARSE, 1, "expected KEY=VALUE, got 'new='" },
	{ "negative seq", "N0 seq=-1 age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "seq '-1' is not a decimal number" },
	{ "hex seq", "N0 seq=0x10 age_ms=1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "seq '0x10' is not a decimal number" },
	{ "plus sign", "N0 seq=1 age_ms=+1 birth_ms=1 anon=0 file=0\n", 0, LRU_EPARSE, 1,
	  "age_ms '+1' is not a decimal number" },
	{ "seq overflow", "N0 seq=18446744073709551616 age_ms=1 birth_ms=1 anon=0 file=0\n", 0,
	  LRU_ERANGE, 1, "seq '18446744073709551616' is out of range" },
	{ "age over 32 bits", "N0 seq=1 age_ms=4294967296 birth_ms=1 anon=0 file=0\n", 0,
	  LRU_ERANGE, 1, "age_ms '4294967296' is out of range (at most 4294967295)" },
	{ "birth overflow", "N0 seq=1 age_ms=1 birth_ms=99999999999999999999 anon=0 file=0\n", 0,
	  LRU_ERANGE, 1, "birth_ms '99999999999999999999' is out of range" },
	{ "bytes overflow", "N0 seq=1 age_ms=1 birth_ms=1 anon=18446744073709551616 file=0\n", 0,
	  LRU_ERANGE, 1, "anon '18446744073709551616' is out of range" },
	{ "bytes not whole pages", "N0 seq=1 age_ms=1 birth_ms=1 anon=0 file=1000\n", 0, LRU_EPARSE,
	  1, "file=1000 is not a multiple of the page size (4096)" },
	{ "nodes descending", G(1, 1) G(0, 1), 0, LRU_EPARSE, 2,
	  "node 0 after node 1: nodes must ascend" },
	{ "node back again", G(0, 1) G(1, 1) G(0, 2), 0, LRU_EPARSE, 3,
	  "node 0 after node 1" },
	{ "seq gap", G(0, 1) G(0, 3), 0, LRU_EPARSE, 2,
	  "node 0: seq 3 after 1: generations must be contiguous" },
	{ "seq descending", G(0, 2) G(0, 1), 0, LRU_EPARSE, 2, "seq 1 after 2" },
	{ "seq repeated", G(0, 2) G(0, 2), 0, LRU_EPARSE, 2, "seq 2 after 2" },
	{ "seq wraps", G(0, 18446744073709551615) G(0, 0), 0, LRU_EPARSE, 2,
	  "seq 0 after 18446744073709551615" },
	{ "five generations", G(3, 1) G(3, 2) G(3, 3) G(3, 4) G(3, 5), 0, LRU_EPARSE, 5,
	  "node 3 has more than 4 generations" },
	{ "crlf", "N0 seq=1 age_ms=1 birth_ms=1 anon=0 file=0\r\n", 0, LRU_EPARSE, 1,
	  "control character 0x0d" },
	{ "nul", NUL_LINE, sizeof(NUL_LINE) - 1, LRU_EPARSE, 1,
	  "control character 0x00" },
	{ "escape in unknown key", G(0, 1) "N0 seq=2 age_ms=1 birth_ms=1 anon=0 file=0 k=\033\n", 0,
	  LRU_EPARSE, 2, "control character 0x1b" },
	{ "garbage line", G(0, 1) "garbage\n" G(0, 2), 0, LRU_EPARSE, 2,
	  "expected 'N<node>' first, got 'garbage'" },
};

static void test_malformed(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad *b = &bad_cases[i];
		size_t len = b->len ? b->len : strlen(b->text);
		struct lru_snapshot s;
		struct lru_error err;
		char prefix[32];
		enum lru_err rc;

		one_memcg(&s);
		lru_error_clear(&err);
		rc = lru_cgparse_buf(&s, 0, b->text, len, &err);
		if (rc != b->code || err.line != b->line || !strstr(err.msg, b->msg))
			fail_msg("case '%s': got code %d line %d '%s'; want code %d line %d '...%s...'",
				 b->name, rc, err.line, err.msg, b->code, b->line, b->msg);
		snprintf(prefix, sizeof(prefix), "line %d: ", b->line);
		if (strncmp(err.msg, prefix, strlen(prefix)))
			fail_msg("case '%s': message '%s' does not start with '%s'", b->name, err.msg,
				 prefix);
		lru_snapshot_release(&s);
	}
}

/* A line longer than LRU_LINE_MAX, whole or arriving in pieces. */
static void test_overlong_line(void **state)
{
	size_t n = LRU_LINE_MAX + 10;
	char *text = malloc(n + 1);
	struct lru_snapshot s;
	struct lru_cgparser *p;
	struct lru_error err;

	(void)state;
	assert_non_null(text);
	memset(text, 'a', n);
	memcpy(text, "N0 k=", 5);
	text[n - 1] = '\n';
	text[n] = '\0';
	assert_int_equal(parse(&s, text, &err), LRU_EPARSE);
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.msg, "longer than"));
	lru_snapshot_release(&s);
	one_memcg(&s);
	assert_int_equal(lru_cgparser_new(&p, &s, 0, &err), LRU_OK);
	assert_int_equal(lru_cgparser_feed(p, text, 100, &err), LRU_OK);
	assert_int_equal(lru_cgparser_feed(p, text + 100, n - 100, &err), LRU_EPARSE);
	assert_non_null(strstr(err.msg, "line 1: line is longer than"));
	lru_cgparser_free(p);
	lru_snapshot_release(&s);
	free(text);
}

#define BIG_PAGES "N0 seq=1 age_ms=1 birth_ms=1 anon=32768 file=16384\n"
#define SMALL_PAGE "N0 seq=1 age_ms=1 birth_ms=1 anon=4096 file=0\n"

/* The page size of the snapshot decides the conversion (and the multiple check). */
static void test_page_size(void **state)
{
	struct lru_snapshot s;
	struct lru_error err;

	(void)state;
	one_memcg(&s);
	s.page_size = 16384;
	assert_int_equal(lru_cgparse_buf(&s, 0, BIG_PAGES, strlen(BIG_PAGES), &err), LRU_OK);
	assert_int_equal(s.lruvecs[0].gens[0].pages[LRU_ANON], 2);
	assert_int_equal(s.lruvecs[0].gens[0].pages[LRU_FILE], 1);
	lru_snapshot_release(&s);
	one_memcg(&s);
	s.page_size = 16384;
	assert_int_equal(lru_cgparse_buf(&s, 0, SMALL_PAGE, strlen(SMALL_PAGE), &err), LRU_EPARSE);
	assert_non_null(strstr(err.msg, "page size (16384)"));
	lru_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_every_chunking),
		cmocka_unit_test(test_unknown_keys_ignored),
		cmocka_unit_test(test_huge_values),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_bad_memcg_index),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_overlong_line),
		cmocka_unit_test(test_page_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
