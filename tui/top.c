/* top.c - the helpers every lrugen-top module shares (top.h); calls no other tui module. */
#include "top.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "lru_sys.h"

void top_message(struct top *t, bool err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
	t->msg_err = err;
	t->msg_until_ms = lru_now_ms() + (err ? 6000 : 3000);
}

uint64_t top_threshold(const struct top *t)
{
	return t->thr < tl_nr_thresholds ? tl_thresholds[t->thr] : t->custom_threshold_ms;
}

const char *top_fmt_size(uint64_t bytes, char *buf, size_t size)
{
	static const char units[] = "BKMGTPE";
	double v = (double)bytes;
	int u = 0;

	if (!bytes) {
		snprintf(buf, size, "0");
		return buf;
	}
	while (v >= 999.5 && u < 6) {
		v /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, size, "%" PRIu64 "B", bytes);
	else if (v < 99.95)
		snprintf(buf, size, "%.1f%c", v, units[u]);
	else
		snprintf(buf, size, "%.0f%c", v, units[u]);
	return buf;
}
