#include "lru_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const lru_err_names[LRU_ERR_COUNT] = {
	[LRU_OK] = "success",
	[LRU_ENOMEM] = "out of memory",
	[LRU_EIO] = "input/output error",
	[LRU_ENOENT] = "not found",
	[LRU_EACCES] = "permission denied",
	[LRU_EPARSE] = "malformed kernel text",
	[LRU_ERANGE] = "number out of range",
	[LRU_EINVAL] = "invalid argument",
	[LRU_ESTALE] = "stale snapshot",
	[LRU_EPROTO] = "malformed protobuf message",
	[LRU_ENOTSUP] = "not supported by this kernel",
	[LRU_EBUSY] = "refused for now (memory.min, or another aging in progress)",
};

const char *lru_strerror(enum lru_err code)
{
	if ((unsigned)code >= LRU_ERR_COUNT)
		return "unknown error";
	return lru_err_names[code];
}

void lru_error_clear(struct lru_error *err)
{
	if (!err)
		return;
	err->code = LRU_OK;
	err->line = 0;
	err->msg[0] = '\0';
}

enum lru_err lru_fail(struct lru_error *err, enum lru_err code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

enum lru_err lru_vfail_line(struct lru_error *err, enum lru_err code, long line,
			    const char *fmt, va_list ap)
{
	char msg[LRU_ERRMSG_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (err)
		err->line = (int)line;
	return lru_fail(err, code, "line %ld: %s", line, msg);
}

enum lru_err lru_fail_line(struct lru_error *err, enum lru_err code, long line,
			   const char *fmt, ...)
{
	va_list ap;
	enum lru_err rc;

	va_start(ap, fmt);
	rc = lru_vfail_line(err, code, line, fmt, ap);
	va_end(ap);
	return rc;
}

const char *lru_quote(char *buf, const char *s, size_t n)
{
	size_t i, m = n > LRU_QUOTE_MAX ? LRU_QUOTE_MAX : n;

	for (i = 0; i < m; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (m < n) {
		memcpy(buf + m, "...", 3);
		m += 3;
	}
	buf[m] = '\0';
	return buf;
}
