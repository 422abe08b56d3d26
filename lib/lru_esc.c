/*
 * lru_esc.c - escaping for terminals, Prometheus label values and protobuf
 * strings (see lru_esc.h for the rules).
 *
 * The input is taken apart in units: a run of plain ASCII (copied, and cut
 * anywhere), a valid UTF-8 character (copied whole), or one byte (or a C1
 * character's two bytes) written as an escape. A unit that does not fit ends
 * the output, so a cut text is a prefix of the whole escaped text.
 */
#include "lru_esc.h"

#include <string.h>

/* longest unit: a C1 character for the terminal, "\xc2\x9b" */
#define UNIT_MAX 8

static const char hex[] = "0123456789abcdef";

static inline bool is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/*
 * Bytes of the valid UTF-8 character at s (n > 0 bytes left): 1 to 4, or 0
 * when s[0] begins none (a stray continuation byte, a lead byte of an
 * overlong form, a surrogate or beyond U+10FFFF, or a truncated sequence).
 */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c < 0xc2)		/* continuation, or C0/C1: overlong 2-byte forms */
		return 0;
	if (c < 0xe0)
		return n >= 2 && is_cont(s[1]) ? 2 : 0;
	if (c < 0xf0) {
		if (n < 3 || !is_cont(s[1]) || !is_cont(s[2]))
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) ||	/* overlong */
		    (c == 0xed && s[1] > 0x9f))		/* U+D800..U+DFFF */
			return 0;
		return 3;
	}
	if (c < 0xf5) {
		if (n < 4 || !is_cont(s[1]) || !is_cont(s[2]) || !is_cont(s[3]))
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) ||	/* overlong */
		    (c == 0xf4 && s[1] > 0x8f))		/* above U+10FFFF */
			return 0;
		return 4;
	}
	return 0;
}

bool lru_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		size_t k;

		if (*p < 0x80) {
			p++;
			continue;
		}
		k = utf8_char(p, (size_t)(end - p));
		if (!k)
			return false;
		p += k;
	}
	return true;
}

/* Is ASCII byte c copied unchanged in mode? */
static inline bool plain(unsigned char c, enum lru_esc_mode mode)
{
	switch (mode) {
	case LRU_ESC_TERM:
		return c >= 0x20 && c < 0x7f;
	case LRU_ESC_PROM:
		return c < 0x80 && c != '\\' && c != '"' && c != '\n';
	case LRU_ESC_XML:
		return c >= 0x20 && c < 0x7f && !strchr("&<>\"'", c);
	case LRU_ESC_UTF8:
		break;
	}
	return c < 0x80;
}

/* "\xNN" of c at u (with a doubled backslash for a label value); returns its length. */
static size_t put_hex(char *u, unsigned char c, bool prom)
{
	size_t i = 0;

	u[i++] = '\\';
	if (prom)
		u[i++] = '\\';
	u[i++] = 'x';
	u[i++] = hex[c >> 4];
	u[i++] = hex[c & 15];
	return i;
}

/* The unit at s that is not plain ASCII into u; returns its length, *adv the bytes taken. */
static size_t unit(const unsigned char *s, size_t n, enum lru_esc_mode mode, char u[UNIT_MAX],
		   size_t *adv)
{
	size_t k = utf8_char(s, n);

	*adv = k ? k : 1;
	if (!k)
		return put_hex(u, s[0], mode == LRU_ESC_PROM);
	if (k == 1 && mode == LRU_ESC_PROM) {	/* '\\', '"' or LF */
		u[0] = '\\';
		u[1] = s[0] == '\n' ? 'n' : (char)s[0];
		return 2;
	}
	if (k == 1 && mode == LRU_ESC_XML && s[0] >= 0x20 && s[0] < 0x7f) {	/* markup */
		static const char *const ent[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;" };
		const char *e = ent[strchr("&<>\"'", s[0]) - "&<>\"'"];

		memcpy(u, e, strlen(e));
		return strlen(e);
	}
	if (k == 1)				/* a control or DEL, for the terminal */
		return put_hex(u, s[0], false);
	if (k == 2 && (mode == LRU_ESC_TERM || mode == LRU_ESC_XML) && s[0] == 0xc2 &&
	    s[1] < 0xa0) {	/* C1 */
		put_hex(u, s[0], false);
		put_hex(u + 4, s[1], false);
		return 8;
	}
	memcpy(u, s, k);
	return k;
}

/*
 * The escaping itself: at most size bytes of whole units into dst (when
 * not NULL), their count in *written; returns the whole text's length.
 */
static size_t escape(uint8_t *dst, size_t size, const char *s, size_t n, enum lru_esc_mode mode,
		     size_t *written)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	size_t full = 0, w = 0, len, adv;
	bool cut = !dst;
	char u[UNIT_MAX];

	while (p < end) {
		const unsigned char *run = p;

		while (p < end && plain(*p, mode))
			p++;
		len = (size_t)(p - run);
		if (!len) {
			len = unit(p, (size_t)(end - p), mode, u, &adv);
			p += adv;
			if (!cut && len <= size - w) {
				memcpy(dst + w, u, len);
				w += len;
			} else {
				cut = true;
			}
		} else if (!cut) {	/* plain ASCII: cut anywhere */
			size_t take = len < size - w ? len : size - w;

			memcpy(dst + w, run, take);
			w += take;
			cut = take < len;
		}
		full += len;
	}
	*written = w;
	return full;
}

size_t lru_esc(char *dst, size_t size, const char *s, size_t n, enum lru_esc_mode mode)
{
	size_t w, full;

	if (!size)
		return escape(NULL, 0, s, n, mode, &w);
	full = escape((uint8_t *)dst, size - 1, s, n, mode, &w);
	dst[w] = '\0';
	return full;
}

enum lru_err lru_esc_buf(struct lru_buf *b, const char *s, size_t n, enum lru_esc_mode mode,
			 struct lru_error *err)
{
	size_t len = lru_esc(NULL, 0, s, n, mode);
	enum lru_err rc;

	if (len == SIZE_MAX)
		return lru_fail(err, LRU_ERANGE, "escaped text too long");
	rc = lru_buf_reserve(b, len + 1, err);
	if (rc)
		return rc;
	lru_esc((char *)b->data + b->len, len + 1, s, n, mode);
	b->len += len;
	return LRU_OK;
}
