#include "lru_err.h"

#include <stdarg.h>
#include <stdio.h>

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
