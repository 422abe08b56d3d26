#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_esc.h"

#define S(lit) lit, sizeof(lit) - 1

static void test_utf8_valid(void **state)
{
	static const struct {
		const char *s;
		size_t n;
		bool valid;
	} cases[] = {
		{ S(""), true },
		{ S("/jobs/web"), true },
		{ S("caf\xc3\xa9"), true },			/* U+00E9 */
		{ S("\xe2\x82\xac"), true },			/* U+20AC */
		{ S("\xf0\x9f\x98\x80"), true },		/* U+1F600 */
		{ S("\xf4\x8f\xbf\xbf"), true },		/* U+10FFFF */
		{ S("\xef\xbf\xbf"), true },			/* U+FFFF */
		{ S("\xed\x9f\xbf"), true },			/* U+D7FF */
		{ S("\xee\x80\x80"), true },			/* U+E000 */
		{ S("\xc2\x80"), true },			/* U+0080, valid though C1 */
		{ S("\x1b]0;x\a"), true },			/* controls are valid UTF-8 */
		{ S("a\0b"), true },				/* U+0000 */
		{ S("bad\xff\xfe"), false },
		{ S("\x80"), false },				/* stray continuation */
		{ S("\xbf"), false },
		{ S("\xc0\xaf"), false },			/* overlong '/' */
		{ S("\xc1\xbf"), false },			/* overlong */
		{ S("\xe0\x80\xaf"), false },			/* overlong, 3 bytes */
		{ S("\xe0\x9f\xbf"), false },			/* overlong U+07FF */
		{ S("\xf0\x80\x80\xaf"), false },		/* overlong, 4 bytes */
		{ S("\xf0\x8f\xbf\xbf"), false },		/* overlong U+FFFF */
		{ S("\xed\xa0\x80"), false },			/* U+D800 */
		{ S("\xed\xbf\xbf"), false },			/* U+DFFF */
		{ S("\xf4\x90\x80\x80"), false },		/* U+110000 */
		{ S("\xf5\x80\x80\x80"), false },
		{ S("\xf8\x88\x80\x80\x80"), false },		/* 5-byte form */
		{ S("\xc3"), false },				/* truncated */
		{ S("\xe2\x82"), false },
		{ S("\xf0\x9f\x98"), false },
		{ S("\xe2\x82x"), false },			/* bad continuation */
		{ S("\xc3\xa9\xc3"), false },			/* truncated at the end */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (lru_utf8_valid(cases[i].s, cases[i].n) != cases[i].valid)
			fail_msg("case %zu: expected %s", i, cases[i].valid ? "valid" : "invalid");
	/* a length short of the string's end cuts a character: invalid */
	assert_false(lru_utf8_valid("\xe2\x82\xac", 2));
	assert_true(lru_utf8_valid("\xe2\x82\xac", 3));
}

/* esc(s, mode): s escaped into a static buffer, checked against the measured length. */
static const char *esc(const char *s, size_t n, enum lru_esc_mode mode)
{
	static char buf[1024];
	size_t len = lru_esc(buf, sizeof(buf), s, n, mode);

	assert_int_equal(len, strlen(buf));
	assert_int_equal(len, lru_esc(NULL, 0, s, n, mode));
	return buf;
}

static void test_terminal(void **state)
{
	(void)state;
	assert_string_equal(esc(S("/jobs/web"), LRU_ESC_TERM), "/jobs/web");
	assert_string_equal(esc(S("evil\x1b]0;pwned\a"), LRU_ESC_TERM), "evil\\x1b]0;pwned\\x07");
	assert_string_equal(esc(S("cr\rfake row"), LRU_ESC_TERM), "cr\\x0dfake row");
	assert_string_equal(esc(S("lf\nfake"), LRU_ESC_TERM), "lf\\x0afake");
	assert_string_equal(esc(S("t\tb"), LRU_ESC_TERM), "t\\x09b");
	assert_string_equal(esc(S("a\0b"), LRU_ESC_TERM), "a\\x00b");
	assert_string_equal(esc(S("del\x7f"), LRU_ESC_TERM), "del\\x7f");
	assert_string_equal(esc(S("\x01\x1f\x20\x7e"), LRU_ESC_TERM), "\\x01\\x1f ~");
	/* C1: both bytes of U+0080..U+009F, and raw 0x80..0x9f bytes */
	assert_string_equal(esc(S("csi\xc2\x9b" "2J"), LRU_ESC_TERM), "csi\\xc2\\x9b2J");
	assert_string_equal(esc(S("\xc2\x80\xc2\x9f"), LRU_ESC_TERM), "\\xc2\\x80\\xc2\\x9f");
	assert_string_equal(esc(S("raw\x9b" "2J"), LRU_ESC_TERM), "raw\\x9b2J");
	assert_string_equal(esc(S("\x80\x9f"), LRU_ESC_TERM), "\\x80\\x9f");
	/* U+00A0 and later are printable: unchanged */
	assert_string_equal(esc(S("nbsp\xc2\xa0" "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
				LRU_ESC_TERM), "nbsp\xc2\xa0" "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* invalid UTF-8: every byte */
	assert_string_equal(esc(S("bad\xff\xfe"), LRU_ESC_TERM), "bad\\xff\\xfe");
	assert_string_equal(esc(S("\xc0\xaf"), LRU_ESC_TERM), "\\xc0\\xaf");
	assert_string_equal(esc(S("\xed\xa0\x80"), LRU_ESC_TERM), "\\xed\\xa0\\x80");
	assert_string_equal(esc(S("\xe2\x82" "x"), LRU_ESC_TERM), "\\xe2\\x82x");
	assert_string_equal(esc(S("\xf4\x90\x80\x80"), LRU_ESC_TERM), "\\xf4\\x90\\x80\\x80");
	/* backslashes are not escaped */
	assert_string_equal(esc(S("a\\x1b"), LRU_ESC_TERM), "a\\x1b");
}

static void test_utf8_mode(void **state)
{
	(void)state;
	/* only invalid bytes: controls, quotes and backslashes stay */
	assert_string_equal(esc(S("bad\xff\xfe"), LRU_ESC_UTF8), "bad\\xff\\xfe");
	assert_string_equal(esc(S("e\x1b\r\n\"\\"), LRU_ESC_UTF8), "e\x1b\r\n\"\\");
	assert_string_equal(esc(S("\xc2\x9b\xc3\xa9"), LRU_ESC_UTF8), "\xc2\x9b\xc3\xa9");
	assert_string_equal(esc(S("\xe0\x80\xaf" "/x"), LRU_ESC_UTF8), "\\xe0\\x80\\xaf/x");
	assert_true(lru_utf8_valid(esc(S("\xf0\x9f\x98" "\xc3"), LRU_ESC_UTF8),
				   strlen(esc(S("\xf0\x9f\x98" "\xc3"), LRU_ESC_UTF8))));
}

static void test_prometheus(void **state)
{
	const char *out;

	(void)state;
	assert_string_equal(esc(S("/jobs/web"), LRU_ESC_PROM), "/jobs/web");
	assert_string_equal(esc(S("/jobs/odd \"name\" \\x"), LRU_ESC_PROM),
			    "/jobs/odd \\\"name\\\" \\\\x");
	assert_string_equal(esc(S("lf\nfake"), LRU_ESC_PROM), "lf\\nfake");
	/* other controls are valid in a label value and stay */
	assert_string_equal(esc(S("cr\r\x1b"), LRU_ESC_PROM), "cr\r\x1b");
	/* invalid bytes: the text \xNN, its backslash escaped */
	out = esc(S("bad\xff\xfe"), LRU_ESC_PROM);
	assert_string_equal(out, "bad\\\\xff\\\\xfe");
	assert_true(lru_utf8_valid(out, strlen(out)));
	assert_string_equal(esc(S("caf\xc3\xa9"), LRU_ESC_PROM), "caf\xc3\xa9");
}

static void test_xml(void **state)
{
	(void)state;
	assert_string_equal(esc(S("/jobs/web"), LRU_ESC_XML), "/jobs/web");
	assert_string_equal(esc(S("<script>a&b</script>"), LRU_ESC_XML),
			    "&lt;script&gt;a&amp;b&lt;/script&gt;");
	assert_string_equal(esc(S("x\" onload='y'"), LRU_ESC_XML), "x&quot; onload=&#39;y&#39;");
	/* controls, C1 controls and invalid bytes as for a terminal: XML 1.0 forbids most */
	assert_string_equal(esc(S("a\0b\x1b\n"), LRU_ESC_XML), "a\\x00b\\x1b\\x0a");
	assert_string_equal(esc(S("c1\xc2\x9b"), LRU_ESC_XML), "c1\\xc2\\x9b");
	assert_string_equal(esc(S("bad\xff"), LRU_ESC_XML), "bad\\xff");
	assert_string_equal(esc(S("caf\xc3\xa9"), LRU_ESC_XML), "caf\xc3\xa9");
}

/* Cut at every size: a prefix of the whole text, never a split character or escape. */
static void test_truncation(void **state)
{
	static const char in[] = "ab\x1b" "c\xc3\xa9\xe2\x82\xac\xff\xc2\x85" "d";
	static const char whole[] = "ab\\x1bc\xc3\xa9\xe2\x82\xac\\xff\\xc2\\x85d";
	/* the lengths at which whole units end */
	static const size_t ends[] = { 0, 1, 2, 6, 7, 9, 12, 16, 24, 25 };
	char buf[64];
	size_t size, len, k;

	(void)state;
	for (size = 0; size <= sizeof(whole); size++) {
		memset(buf, 'Z', sizeof(buf));
		len = lru_esc(size ? buf : NULL, size, in, sizeof(in) - 1, LRU_ESC_TERM);
		assert_int_equal(len, sizeof(whole) - 1);
		if (!size)
			continue;
		/* the longest whole-unit prefix that fits in size - 1 bytes */
		for (k = 0; k + 1 < sizeof(ends) / sizeof(ends[0]) && ends[k + 1] <= size - 1; k++)
			;
		if (strlen(buf) != ends[k] || memcmp(buf, whole, ends[k]))
			fail_msg("size %zu: got '%s' (%zu bytes), expected %zu bytes", size, buf,
				 strlen(buf), ends[k]);
		if (size < sizeof(buf) && buf[size] != 'Z')
			fail_msg("size %zu: wrote past the buffer", size);
	}
	/* cut at whole characters and escapes: never half an escape or a UTF-8 sequence */
	lru_esc(buf, 6, S("\xffxy"), LRU_ESC_UTF8);
	assert_string_equal(buf, "\\xffx");
	lru_esc(buf, 4, S("\xffxy"), LRU_ESC_UTF8);
	assert_string_equal(buf, "");
	lru_esc(buf, 4, S("a\xc3\xa9"), LRU_ESC_UTF8);
	assert_string_equal(buf, "a\xc3\xa9");
	lru_esc(buf, 3, S("a\xc3\xa9"), LRU_ESC_UTF8);
	assert_string_equal(buf, "a");
}

static void test_buf(void **state)
{
	struct lru_buf b;
	struct lru_error err;

	(void)state;
	lru_buf_init(&b);
	assert_int_equal(lru_esc_buf(&b, S("x\x1b"), LRU_ESC_TERM, &err), LRU_OK);
	assert_int_equal(lru_esc_buf(&b, S("\xff"), LRU_ESC_TERM, &err), LRU_OK);
	assert_int_equal(b.len, strlen("x\\x1b\\xff"));
	assert_string_equal((char *)b.data, "x\\x1b\\xff");
	lru_buf_release(&b);
	b.max = 4;
	assert_int_equal(lru_esc_buf(&b, S("\x1b"), LRU_ESC_TERM, &err), LRU_ERANGE);
	assert_int_equal(b.len, 0);
	lru_buf_release(&b);
	/* lru_buf_printf appends without the NUL, and keeps b->max */
	lru_buf_init(&b);
	assert_int_equal(lru_buf_printf(&b, &err, "%s=%d", "ab", 42), LRU_OK);
	assert_int_equal(lru_buf_printf(&b, &err, ",%u", 7u), LRU_OK);
	assert_int_equal(b.len, 7);
	assert_memory_equal(b.data, "ab=42,7", 7);
	lru_buf_release(&b);
	b.max = 4;
	assert_int_equal(lru_buf_printf(&b, &err, "%s", "toolong"), LRU_ERANGE);
	assert_int_equal(b.len, 0);
	lru_buf_release(&b);
}

/* Every 1- and 2-byte input: terminal text is printable ASCII or valid printable UTF-8. */
static void test_exhaustive(void **state)
{
	char in[2], out[32];

	(void)state;
	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++) {
			size_t len;

			in[0] = (char)a;
			in[1] = (char)b;
			len = lru_esc(out, sizeof(out), in, 2, LRU_ESC_TERM);
			assert_true(lru_utf8_valid(out, len));
			for (size_t i = 0; i < len; i++) {
				unsigned char c = (unsigned char)out[i];

				if (c < 0x20 || c == 0x7f || (c == 0xc2 && (unsigned char)out[i + 1] < 0xa0))
					fail_msg("0x%02x 0x%02x: control 0x%02x in '%s'", a, b, c, out);
			}
			len = lru_esc(out, sizeof(out), in, 2, LRU_ESC_UTF8);
			assert_true(lru_utf8_valid(out, len));
			len = lru_esc(out, sizeof(out), in, 2, LRU_ESC_PROM);
			assert_true(lru_utf8_valid(out, len));
			assert_null(memchr(out, '\n', len));
			len = lru_esc(out, sizeof(out), in, 2, LRU_ESC_XML);
			assert_true(lru_utf8_valid(out, len));
			for (size_t i = 0; i < len; i++)
				if ((unsigned char)out[i] < 0x20 || strchr("<>\"'", out[i]) ||
				    (out[i] == '&' && !strchr("lgaq#", out[i + 1])))
					fail_msg("0x%02x 0x%02x: '%s' is no XML text", a, b, out);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_valid),
		cmocka_unit_test(test_terminal),
		cmocka_unit_test(test_utf8_mode),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_xml),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_exhaustive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
