/*
 * lru_err.h - error codes and messages of liblrugen.
 *
 * Every fallible function returns an enum lru_err (LRU_OK is 0) and, when the
 * caller passes a struct lru_error, fills it with the code and a one-line
 * message a person can act on ("line 12: expected 4 fields in a generation
 * line, got 3"). Messages are lowercase with no final full stop, so a program
 * prints them as "lrugen: <message>". The library never prints and never exits.
 *
 *	struct lru_error err;
 *	if (lru_parse_buf(snap, buf, len, &err))
 *		fprintf(stderr, "lrugen: %s\n", err.msg);
 */
#ifndef LRU_ERR_H
#define LRU_ERR_H

#include <stdarg.h>
#include <stddef.h>

enum lru_err {
	LRU_OK = 0,
	LRU_ENOMEM,	/* out of memory */
	LRU_EIO,	/* a file could not be opened, read or written */
	LRU_ENOENT,	/* a file, memcg, node or lruvec does not exist */
	LRU_EACCES,	/* permission denied (not root, lockdown) */
	LRU_EPARSE,	/* kernel text is malformed */
	LRU_ERANGE,	/* a number overflows or is out of its range */
	LRU_EINVAL,	/* an argument or a command is invalid */
	LRU_ESTALE,	/* a command was built from an outdated snapshot */
	LRU_EPROTO,	/* a protobuf message is malformed or incomplete */
	LRU_ENOTSUP,	/* the kernel lacks the feature (MGLRU off, no memcg) */
	LRU_EBUSY,	/* the kernel refused for now (memcg at or below memory.min,
			   or another aging of the lruvec in progress) */
	LRU_ERR_COUNT
};

#define LRU_ERRMSG_MAX 256

struct lru_error {
	enum lru_err code;
	int line;		/* input line number (1-based) for LRU_EPARSE, else 0 */
	char msg[LRU_ERRMSG_MAX];
};

/* A static, lowercase description of code ("malformed kernel text"). */
const char *lru_strerror(enum lru_err code);

/*
 * Record an error: sets err->code and formats err->msg (printf-style); a NULL
 * err is allowed and ignored. Returns code, so callers can write
 * "return lru_fail(err, LRU_EINVAL, "node %d is not a number", n);".
 */
enum lru_err lru_fail(struct lru_error *err, enum lru_err code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * lru_fail() for a parser: sets err->line and prefixes the message with
 * "line N: " ("line 3: expected 4 fields in a generation line, got 3").
 */
enum lru_err lru_fail_line(struct lru_error *err, enum lru_err code, long line,
			   const char *fmt, ...) __attribute__((format(printf, 4, 5), cold));
/* The same with a va_list, for a parser's own error helper. */
enum lru_err lru_vfail_line(struct lru_error *err, enum lru_err code, long line,
			    const char *fmt, va_list ap) __attribute__((format(printf, 4, 0), cold));

/*
 * Copy at most LRU_QUOTE_MAX bytes of s[0..n) into buf (LRU_QUOTE_BUF bytes)
 * for a message: bytes that are not printable ASCII become '?', a cut is
 * marked "...". Returns buf.
 */
#define LRU_QUOTE_MAX 40
#define LRU_QUOTE_BUF (LRU_QUOTE_MAX + 4)
const char *lru_quote(char *buf, const char *s, size_t n);

/* Reset err to LRU_OK with an empty message; NULL is allowed. */
void lru_error_clear(struct lru_error *err);

#endif
