/* lru_settings.c - parse, format and free the values of a settings table. */
#include "lru_settings.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lru_units.h"

static void *field(void *cfg, const struct lru_set_def *d)
{
	return (char *)cfg + d->off;
}

static const void *cfield(const void *cfg, const struct lru_set_def *d)
{
	return (const char *)cfg + d->off;
}

bool lru_set_same_name(const char *a, const char *b, size_t blen)
{
	size_t i;

	for (i = 0; i < blen && a[i]; i++)
		if (a[i] != b[i] && !((a[i] == '-' || a[i] == '_') && (b[i] == '-' || b[i] == '_')))
			return false;
	return i == blen && !a[i];
}

const struct lru_set_def *lru_set_find(const struct lru_set_def *defs, size_t n, const char *name,
				       size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (defs[i].type != LRU_SET_SECTION && lru_set_same_name(defs[i].name, name, len))
			return &defs[i];
	return NULL;
}

/* bytes as the shortest exact size text: 4096, 512K, 16M */
static const char *fmt_size(uint64_t b, char *buf, size_t size)
{
	static const char *const units = "TGMK";

	for (int i = 0; b && i < 4; i++) {
		uint64_t mult = 1ULL << (10 * (4 - i));

		if (b % mult == 0) {
			snprintf(buf, size, "%" PRIu64 "%c", b / mult, units[i]);
			return buf;
		}
	}
	snprintf(buf, size, "%" PRIu64, b);
	return buf;
}

char *lru_set_trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

static void free_value(void *cfg, const struct lru_set_def *d)
{
	void *p = field(cfg, d);

	switch (d->type) {
	case LRU_SET_STRING:
		free(*(char **)p);
		*(char **)p = NULL;
		break;
	case LRU_SET_LIST: {
		struct lru_set_list *l = p;

		for (size_t i = 0; i < l->n; i++)
			free(l->v[i]);
		free(l->v);
		l->v = NULL;
		l->n = 0;
		break;
	}
	case LRU_SET_DURATIONS: {
		struct lru_set_ms_list *l = p;

		free(l->v);
		l->v = NULL;
		l->n = 0;
		break;
	}
	default:
		break;
	}
}

void lru_set_release(void *cfg, const struct lru_set_def *defs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free_value(cfg, &defs[i]);
}

static int parse_bool(const char *s, bool *v)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*v = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return -1;
}

/* Check v against d's range; formats the range with the setting's units. */
static enum lru_err check_range(const struct lru_set_def *d, int64_t v, struct lru_error *err)
{
	char lo[32], hi[32];

	if (v >= d->min && v <= d->max)
		return LRU_OK;
	if (d->type == LRU_SET_DURATION || d->type == LRU_SET_DURATIONS) {
		lru_fmt_duration_exact((uint64_t)d->min, lo, sizeof(lo));
		lru_fmt_duration_exact((uint64_t)d->max, hi, sizeof(hi));
	} else if (d->type == LRU_SET_SIZE) {
		fmt_size((uint64_t)d->min, lo, sizeof(lo));
		fmt_size((uint64_t)d->max, hi, sizeof(hi));
	} else {
		snprintf(lo, sizeof(lo), "%" PRId64, d->min);
		snprintf(hi, sizeof(hi), "%" PRId64, d->max);
	}
	return lru_fail(err, LRU_ERANGE, "out of range (%s to %s)", lo, hi);
}

static enum lru_err parse_duration(const struct lru_set_def *d, const char *s, uint64_t *ms,
				   struct lru_error *err)
{
	struct lru_error perr;

	if (lru_parse_duration_ms(s, ms, &perr))
		return lru_fail(err, perr.code, "%s", perr.msg);
	if (*ms > INT64_MAX)
		return lru_fail(err, LRU_ERANGE, "too large");
	return check_range(d, (int64_t)*ms, err);
}

/*
 * The next comma-separated item of *cur, cut in place; NULL after the last.
 * A comma inside a glob's bracket expression ("[,]", "[!,]") does not split.
 */
static char *next_item(char **cur)
{
	char *start = *cur, *p = start;

	if (!start)
		return NULL;
	while (*p && *p != ',') {
		if (*p == '[') {
			char *q = p + 1;

			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')		/* a leading ']' is a member */
				q++;
			q = strchr(q, ']');
			if (q) {
				p = q + 1;
				continue;
			}
		}
		p++;
	}
	*cur = *p ? p + 1 : NULL;
	*p = '\0';
	return start;
}

/* Append the comma-separated items of s to list d (durations or strings). */
static enum lru_err add_items(void *cfg, const struct lru_set_def *d, const char *s,
			      struct lru_error *err)
{
	char *copy = strdup(s), *cur = copy, *tok;
	enum lru_err rc = LRU_OK;

	if (!copy)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	while (!rc && (tok = next_item(&cur))) {
		char *item = lru_set_trim(tok);

		if (!*item)
			continue;
		if (d->type == LRU_SET_LIST) {
			struct lru_set_list *l = field(cfg, d);
			char **v = realloc(l->v, (l->n + 1) * sizeof(*v));

			if (!v || !(v[l->n] = strdup(item))) {
				if (v)
					l->v = v;
				rc = lru_fail(err, LRU_ENOMEM, "out of memory");
				break;
			}
			l->v = v;
			l->n++;
		} else {
			struct lru_set_ms_list *l = field(cfg, d);
			uint64_t ms, *v;

			rc = parse_duration(d, item, &ms, err);
			if (rc)
				break;
			if (!(v = realloc(l->v, (l->n + 1) * sizeof(*v)))) {
				rc = lru_fail(err, LRU_ENOMEM, "out of memory");
				break;
			}
			l->v = v;
			l->v[l->n++] = ms;
		}
	}
	free(copy);
	return rc;
}

enum lru_err lru_set_value(void *cfg, const struct lru_set_def *d, const char *s, bool clear_list,
			   struct lru_error *err)
{
	void *p = field(cfg, d);
	struct lru_error perr;
	char *end;

	switch (d->type) {
	case LRU_SET_BOOL:
		if (parse_bool(s, p))
			return lru_fail(err, LRU_EINVAL, "not true or false");
		return LRU_OK;
	case LRU_SET_INT: {
		long long v;

		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno || end == s || *end)
			return lru_fail(err, LRU_EINVAL, "not a whole number");
		*(int64_t *)p = v;
		return check_range(d, v, err);
	}
	case LRU_SET_DURATION:
		for (int i = 0; d->choices && i < LRU_SET_MS_WORDS && d->choices[i]; i++)
			if (!strcasecmp(s, d->choices[i])) {
				*(uint64_t *)p = LRU_SET_MS_WORD(i);
				return LRU_OK;
			}
		return parse_duration(d, s, p, err);
	case LRU_SET_SIZE:
		if (lru_parse_size(s, p, &perr))
			return lru_fail(err, perr.code, "%s", perr.msg);
		if (*(uint64_t *)p > INT64_MAX)
			return lru_fail(err, LRU_ERANGE, "too large");
		return check_range(d, *(int64_t *)p, err);
	case LRU_SET_PERCENT: {
		double v;

		errno = 0;
		v = strtod(s, &end);
		if (errno || end == s || (*end && strcmp(end, "%")))
			return lru_fail(err, LRU_EINVAL, "not a percentage");
		if (v < (double)d->min || v > (double)d->max)
			return lru_fail(err, LRU_ERANGE, "out of range (%" PRId64 " to %" PRId64 ")",
					d->min, d->max);
		*(double *)p = v;
		return LRU_OK;
	}
	case LRU_SET_STRING: {
		char *copy = strdup(s);

		if (!copy)
			return lru_fail(err, LRU_ENOMEM, "out of memory");
		free(*(char **)p);
		*(char **)p = copy;
		return LRU_OK;
	}
	case LRU_SET_LIST:
	case LRU_SET_DURATIONS:
		if (clear_list)
			free_value(cfg, d);
		return add_items(cfg, d, s, err);
	case LRU_SET_ENUM: {
		char all[128];
		size_t n = 0;

		for (int i = 0; d->choices[i]; i++) {
			if (!strcasecmp(s, d->choices[i])) {
				*(int *)p = i;
				return LRU_OK;
			}
			if (n < sizeof(all))
				n += (size_t)snprintf(all + n, sizeof(all) - n, "%s%s", i ? ", " : "",
						      d->choices[i]);
		}
		return lru_fail(err, LRU_EINVAL, "not one of %s", all);
	}
	case LRU_SET_SECTION:
		break;
	}
	return LRU_OK;
}

enum lru_err lru_set_defaults(void *cfg, const struct lru_set_def *defs, size_t n,
			      struct lru_error *err)
{
	for (size_t i = 0; i < n; i++) {
		enum lru_err rc;

		if (defs[i].type == LRU_SET_SECTION)
			continue;
		rc = lru_set_value(cfg, &defs[i], defs[i].def, true, err);
		if (rc)
			return rc;
	}
	return LRU_OK;
}

const char *lru_set_format(const void *cfg, const struct lru_set_def *d, char *buf, size_t size)
{
	const void *p = cfield(cfg, d);
	size_t n = 0;

	buf[0] = '\0';
	switch (d->type) {
	case LRU_SET_BOOL:
		snprintf(buf, size, "%s", *(const bool *)p ? "true" : "false");
		break;
	case LRU_SET_INT:
		snprintf(buf, size, "%" PRId64, *(const int64_t *)p);
		break;
	case LRU_SET_DURATION: {
		uint64_t ms = *(const uint64_t *)p;

		if (d->choices && ms > LRU_SET_MS_WORD(LRU_SET_MS_WORDS))
			snprintf(buf, size, "%s", d->choices[LRU_SET_MS_WORD(0) - ms]);
		else
			lru_fmt_duration_exact(ms, buf, size);
		break;
	}
	case LRU_SET_SIZE:
		fmt_size(*(const uint64_t *)p, buf, size);
		break;
	case LRU_SET_PERCENT:
		snprintf(buf, size, "%g", *(const double *)p);
		break;
	case LRU_SET_STRING:
		snprintf(buf, size, "%s", *(char *const *)p ? *(char *const *)p : "");
		break;
	case LRU_SET_LIST: {
		const struct lru_set_list *l = p;

		for (size_t i = 0; i < l->n && n < size; i++)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", l->v[i]);
		break;
	}
	case LRU_SET_DURATIONS: {
		const struct lru_set_ms_list *l = p;

		for (size_t i = 0; i < l->n && n < size; i++) {
			char one[32];

			n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "",
					      lru_fmt_duration_exact(l->v[i], one, sizeof(one)));
		}
		break;
	}
	case LRU_SET_ENUM:
		snprintf(buf, size, "%s", d->choices[*(const int *)p]);
		break;
	case LRU_SET_SECTION:
		break;
	}
	return buf;
}
