/*
 * lru_esc.h - strings from the kernel, the store or the network, made safe
 * for a terminal, a Prometheus label value or a protobuf string field.
 *
 * Memcg paths are cgroup directory names, and those are chosen by tenants
 * wherever cgroups are delegated: any byte but '/' and NUL, so ESC, CR, LF
 * and bytes that are not UTF-8. Host names and kernel strings come from
 * files a host's owner controls, and everything the store answers from a
 * host's snapshots. None of it may reach a terminal or an exposition raw.
 *
 *	char buf[256];
 *	lru_esc(buf, sizeof(buf), path, strlen(path), LRU_ESC_TERM);
 *	printf("%-32s ...", buf);	// widths count the escaped form
 *
 * Every escape is "\xNN" (two lowercase hex digits) of one input byte, so
 * escaped text is printable ASCII plus the valid, printable UTF-8 of the
 * input. A name that contains the text "\x1b" itself reads the same as one
 * with an ESC in it: the backslash is not escaped (the escapes are for
 * safety, not a reversible encoding).
 *
 * Lengths are in bytes, not display columns: a multi-byte character counts
 * its bytes. Text cut to fit a buffer ends before the first character or
 * escape that does not fit whole, so a cut never splits a UTF-8 sequence or
 * an escape. Nothing here allocates except lru_esc_buf(), nothing prints,
 * and there is no state.
 */
#ifndef LRU_ESC_H
#define LRU_ESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_buf.h"
#include "lru_err.h"

/*
 * Strict UTF-8 (RFC 3629): no overlong forms, no surrogates (U+D800 to
 * U+DFFF), nothing above U+10FFFF, no truncated sequence. Any NUL among the
 * n bytes counts as valid (U+0000).
 */
bool lru_utf8_valid(const char *s, size_t n);

enum lru_esc_mode {
	/*
	 * Only the bytes of invalid UTF-8, each as the text "\xNN"; valid
	 * UTF-8 (controls included) is unchanged. What lrugen puts in protobuf
	 * string fields (lru_pb.h): proto3 strings must be UTF-8.
	 */
	LRU_ESC_UTF8,
	/*
	 * For a terminal: C0 controls (ESC, CR, LF, TAB ...), DEL and C1
	 * controls (U+0080 to U+009F: both bytes of their UTF-8, "\xc2\x9b")
	 * and every byte of invalid UTF-8 (stray 0x80 to 0x9f included) as
	 * "\xNN"; valid printable UTF-8 is unchanged.
	 */
	LRU_ESC_TERM,
	/*
	 * A Prometheus label value (text exposition 0.0.4), without the quotes:
	 * '\' as "\\", '"' as "\"", LF as "\n", and each byte of invalid UTF-8
	 * as "\\xNN", which a scraper reads as the text \xNN: the exposition
	 * stays valid UTF-8 and the value is the one LRU_ESC_UTF8 sends to the
	 * store for the same name.
	 */
	LRU_ESC_PROM,
	/*
	 * XML text and attribute values (SVG, HTML): '&' '<' '>' '"' and '\''
	 * as entities; controls, DEL, C1 controls and invalid UTF-8 as the text
	 * "\xNN", as for a terminal (XML 1.0 forbids most C0 controls): what a
	 * name shows in a plot is what lrugen prints for it.
	 */
	LRU_ESC_XML,
};

/*
 * snprintf-style: the n bytes at s escaped for mode into dst, at most
 * size - 1 bytes of whole characters and escapes, then a NUL (nothing at all
 * when size is 0; dst may then be NULL). Returns the length of the whole
 * escaped text, so a return >= size means it was cut, and
 * lru_esc(NULL, 0, s, n, mode) measures it. s may hold NUL bytes; they are
 * C0 controls for LRU_ESC_TERM and copied by the other modes.
 */
size_t lru_esc(char *dst, size_t size, const char *s, size_t n, enum lru_esc_mode mode);

/*
 * Append the escaped text to b, whole; b->data[b->len] is a NUL (not
 * counted) afterwards. LRU_ERANGE past b->max, LRU_ENOMEM.
 */
enum lru_err lru_esc_buf(struct lru_buf *b, const char *s, size_t n, enum lru_esc_mode mode,
			 struct lru_error *err);

#endif
