#include "lru_units.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct unit {
	const char *name;
	uint64_t mult;
};

/*
 * Parse "<decimal>[.<decimal>]<unit>" with a unit from the table (matched
 * case-insensitively); the empty unit must be in the table to allow a bare
 * number. Fractions are allowed; the result is rounded down.
 */
static enum lru_err parse_unit(const char *s, const struct unit *units, const char *what,
			       uint64_t *out, struct lru_error *err)
{
	const char *p = s;
	long double v = 0, scale = 1;
	bool digits = false;
	size_t i;

	if (!s || !*s)
		return lru_fail(err, LRU_EINVAL, "empty %s", what);
	for (; *p >= '0' && *p <= '9'; p++, digits = true)
		v = v * 10 + (*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits = true)
			v += (*p - '0') * (scale /= 10);
	if (!digits)
		return lru_fail(err, LRU_EINVAL, "%s '%s' does not start with a number", what, s);
	for (i = 0; units[i].name; i++) {
		if (strcasecmp(p, units[i].name))
			continue;
		v *= units[i].mult;
		if (v >= 18446744073709551615.0L)
			return lru_fail(err, LRU_ERANGE, "%s '%s' is too large", what, s);
		*out = (uint64_t)v;
		return LRU_OK;
	}
	return lru_fail(err, LRU_EINVAL, "%s '%s' has an unknown unit '%s'", what, s, p);
}

enum lru_err lru_parse_duration_ms(const char *s, uint64_t *ms, struct lru_error *err)
{
	static const struct unit units[] = {
		{ "ms", 1 }, { "", 1000 }, { "s", 1000 }, { "m", 60000 }, { "min", 60000 },
		{ "h", 3600000 }, { "d", 86400000 }, { "w", 604800000 }, { NULL, 0 },
	};

	return parse_unit(s, units, "duration", ms, err);
}

enum lru_err lru_parse_size(const char *s, uint64_t *bytes, struct lru_error *err)
{
	static const struct unit units[] = {
		{ "", 1 }, { "b", 1 },
		{ "k", 1ULL << 10 }, { "kb", 1ULL << 10 }, { "kib", 1ULL << 10 },
		{ "m", 1ULL << 20 }, { "mb", 1ULL << 20 }, { "mib", 1ULL << 20 },
		{ "g", 1ULL << 30 }, { "gb", 1ULL << 30 }, { "gib", 1ULL << 30 },
		{ "t", 1ULL << 40 }, { "tb", 1ULL << 40 }, { "tib", 1ULL << 40 },
		{ NULL, 0 },
	};

	return parse_unit(s, units, "size", bytes, err);
}

const char *lru_fmt_bytes(uint64_t bytes, char *buf, size_t size)
{
	static const char *const suffix[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int i = 0;

	while (v >= 1024 && i < 6) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, size, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, size, "%.1f %s", v, suffix[i]);
	return buf;
}

const char *lru_fmt_duration(uint64_t ms, char *buf, size_t size)
{
	uint64_t s = ms / 1000;

	if (ms < 1000)
		snprintf(buf, size, "%llums", (unsigned long long)ms);
	else if (s < 60)
		snprintf(buf, size, "%llu.%llus", (unsigned long long)s,
			 (unsigned long long)(ms % 1000 / 100));
	else if (s < 3600)
		snprintf(buf, size, "%llum%02llus", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else if (s < 86400)
		snprintf(buf, size, "%lluh%02llum", (unsigned long long)(s / 3600),
			 (unsigned long long)(s % 3600 / 60));
	else if (s % 86400 < 3600)	/* 7d, not 7d00h */
		snprintf(buf, size, "%llud", (unsigned long long)(s / 86400));
	else
		snprintf(buf, size, "%llud%02lluh", (unsigned long long)(s / 86400),
			 (unsigned long long)(s % 86400 / 3600));
	return buf;
}

const char *lru_fmt_duration_exact(uint64_t ms, char *buf, size_t size)
{
	static const struct {
		uint64_t mult;
		const char *unit;
	} units[] = { { 86400000, "d" }, { 3600000, "h" }, { 60000, "m" }, { 1000, "s" } };

	for (size_t i = 0; ms && i < sizeof(units) / sizeof(units[0]); i++) {
		if (ms % units[i].mult == 0) {
			snprintf(buf, size, "%" PRIu64 "%s", ms / units[i].mult, units[i].unit);
			return buf;
		}
	}
	snprintf(buf, size, ms ? "%" PRIu64 "ms" : "%" PRIu64, ms);
	return buf;
}

const char *lru_fmt_clock(int64_t ms, char *buf, size_t size)
{
	time_t s = (time_t)(ms / 1000);
	struct tm tm;

	if (!localtime_r(&s, &tm)) {
		snprintf(buf, size, "?");
		return buf;
	}
	snprintf(buf, size, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)(ms % 1000));
	return buf;
}

enum lru_err lru_parse_dec(const char *s, size_t n, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!n)
		return LRU_EPARSE;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return LRU_EPARSE;
	for (i = 0; i < n; i++) {
		uint64_t d = (uint64_t)(s[i] - '0');

		if (d > max || x > (max - d) / 10)
			return LRU_ERANGE;
		x = x * 10 + d;
	}
	*v = x;
	return LRU_OK;
}
