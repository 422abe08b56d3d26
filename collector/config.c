/* config.c - the settings table and everything generated from it. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lru_iface.h"
#include "lru_units.h"

enum cfg_type {
	CFG_SECTION,	/* a heading in --help and --print-config, not a setting */
	CFG_BOOL,	/* bool */
	CFG_INT,	/* int64_t in [min, max] */
	CFG_DURATION,	/* uint64_t ms in [min, max] */
	CFG_SIZE,	/* uint64_t bytes in [min, max] */
	CFG_PERCENT,	/* double in [min, max] */
	CFG_STRING,	/* char * */
	CFG_LIST,	/* struct cfg_list of strings */
	CFG_DURATIONS,	/* struct cfg_ms_list, each in [min, max] */
	CFG_ENUM,	/* int index into choices */
};

struct cfg_def {
	const char *name;
	enum cfg_type type;
	size_t off;
	const char *def;
	int64_t min, max;
	const char *arg;		/* metavar in --help */
	const char *help;
	const char *const *choices;	/* CFG_ENUM, NULL-terminated */
};

#define F(field) offsetof(struct config, field)
#define SEC (1000LL)
#define MIN (60 * SEC)
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)
#define KIB (1LL << 10)
#define MIB (1LL << 20)
#define GIB (1LL << 30)

static const char *const mlock_names[] = { "off", "onfault", "all", NULL };
static const char *const level_names[] = { "debug", "info", "warning", "error", NULL };
/* in the order of enum lru_iface_mode */
static const char *const iface_names[] = { "auto", "cgroup", "debugfs", NULL };

static const struct cfg_def defs[] = {
	{ "collection", CFG_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "root", CFG_STRING, F(root), "", 0, 0, "DIR",
	  "read every kernel file under DIR instead of / (a fixture tree)", NULL },
	{ "host", CFG_STRING, F(host), "", 0, 0, "NAME",
	  "host name sent to the store (default: the kernel's host name)", NULL },
	{ "interval", CFG_DURATION, F(interval_ms), "2m", 0, DAY, "DUR",
	  "time between ticks (each tick: read, spool, reclaim, age, send)", NULL },
	{ "jitter", CFG_BOOL, F(jitter), "true", 0, 0, NULL,
	  "tick at a per-host phase of the interval (from the host name), so that a "
	  "fleet does not age in lockstep", NULL },
	{ "interface", CFG_ENUM, F(interface), "auto", 0, 0, "MODE",
	  "where generations are read and aging and eviction written: 'cgroup', each "
	  "memcg's memory.lru_gen (patched kernels; the root memcg still from debugfs); "
	  "'debugfs', /sys/kernel/debug/lru_gen; 'auto', memory.lru_gen when present. "
	  "The default comes from $LRUGEN_INTERFACE when set", iface_names },
	{ "full", CFG_BOOL, F(full), "false", 0, 0, NULL,
	  "read lru_gen_full: adds per-tier counters, and reads under kernel lockdown", NULL },
	{ "include", CFG_LIST, F(include), "", 0, 0, "GLOB",
	  "only memcgs whose path matches one of these globs (default: all)", NULL },
	{ "exclude", CFG_LIST, F(exclude), "", 0, 0, "GLOB",
	  "leave out memcgs whose path matches one of these globs", NULL },
	{ "skip_empty", CFG_BOOL, F(skip_empty), "true", 0, 0, NULL,
	  "leave out memcgs without pages", NULL },
	{ "skip_dying", CFG_BOOL, F(skip_dying), "true", 0, 0, NULL,
	  "leave out offline memcgs (id 0: removed, still holding pages)", NULL },
	{ "memcg_stats", CFG_BOOL, F(memcg_stats), "true", 0, 0, NULL,
	  "read each memcg's memory.stat, memory.current and memory.pressure", NULL },

	{ "aging", CFG_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "age", CFG_BOOL, F(age), "true", 0, 0, NULL,
	  "create a generation in every selected lruvec each tick", NULL },
	{ "age_margin", CFG_DURATION, F(age_margin_ms), "15s", 0, DAY, "DUR",
	  "do not age lruvecs whose youngest generation is younger than the interval "
	  "minus this (someone else aged them)", NULL },
	{ "can_swap", CFG_BOOL, F(can_swap), "true", 0, 0, NULL,
	  "age with can_swap=1: scan anon pages even without swap", NULL },
	{ "force_scan", CFG_BOOL, F(force_scan), "true", 0, 0, NULL,
	  "age with force_scan=1: scan every mm (needed once 4 generations exist)", NULL },

	{ "shipping", CFG_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "store", CFG_STRING, F(store), "", 0, 0, "URL",
	  "lrugen-store base URL (http:// or https://); empty: metrics only, snapshots are not kept (seq 0)", NULL },
	{ "token_file", CFG_STRING, F(token_file), "", 0, 0, "FILE",
	  "file holding the store's bearer token (re-read before each send)", NULL },
	{ "ca_file", CFG_STRING, F(ca_file), "", 0, 0, "FILE",
	  "CA certificates for the store (default: the system's)", NULL },
	{ "tls_verify", CFG_BOOL, F(tls_verify), "true", 0, 0, NULL,
	  "verify the store's TLS certificate and host name", NULL },
	{ "gzip", CFG_BOOL, F(gzip), "true", 0, 0, NULL,
	  "gzip request bodies once the store answers with 'Accept-Encoding: gzip'", NULL },
	{ "connect_timeout", CFG_DURATION, F(connect_timeout_ms), "10s", 100, 10 * MIN, "DUR",
	  "time limit to connect to the store", NULL },
	{ "timeout", CFG_DURATION, F(timeout_ms), "60s", 100, HOUR, "DUR",
	  "time limit of one request to the store", NULL },
	{ "backoff_min", CFG_DURATION, F(backoff_min_ms), "1s", 10, HOUR, "DUR",
	  "first retry delay after a failed send (doubles per failure, with jitter)", NULL },
	{ "backoff_max", CFG_DURATION, F(backoff_max_ms), "5m", 10, DAY, "DUR",
	  "longest retry delay", NULL },
	{ "batch_max_snapshots", CFG_INT, F(batch_max_snapshots), "32", 1, 10000, "N",
	  "snapshots per request at most", NULL },
	{ "batch_max_bytes", CFG_SIZE, F(batch_max_bytes), "4M", 4 * KIB, 256 * MIB, "SIZE",
	  "request body size at most (one larger snapshot still goes alone)", NULL },

	{ "spool", CFG_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "spool", CFG_STRING, F(spool), "/var/lib/lrugend", 0, 0, "DIR",
	  "spool directory: snapshots not yet acknowledged, and the sequence number", NULL },
	{ "spool_max_bytes", CFG_SIZE, F(spool_max_bytes), "256M", 64 * KIB, 1024 * GIB, "SIZE",
	  "spool size limit: the oldest snapshots are dropped beyond it", NULL },
	{ "spool_max_age", CFG_DURATION, F(spool_max_age_ms), "7d", 0, 365 * DAY, "DUR",
	  "drop snapshots older than this from the spool (0: no limit)", NULL },

	{ "metrics", CFG_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "listen", CFG_STRING, F(listen), "", 0, 0, "ADDR:PORT",
	  "serve GET /metrics (Prometheus text) here; empty: no endpoint", NULL },
	{ "metrics_buckets", CFG_DURATIONS, F(metrics_buckets), "1m,2m,5m,10m,30m,1h", 1, 365 * DAY,
	  "DUR,...", "age buckets of lrugen_memory_bytes ('+Inf' is always added)", NULL },
	{ "metrics_generations", CFG_BOOL, F(metrics_generations), "false", 0, 0, NULL,
	  "also export every generation's size and age (more series)", NULL },

	{ "proactive reclaim", CFG_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "reclaim", CFG_BOOL, F(reclaim), "false", 0, 0, NULL,
	  "evict generations idle longer than reclaim_older_than from reclaim_include", NULL },
	{ "reclaim_dry_run", CFG_BOOL, F(reclaim_dry_run), "false", 0, 0, NULL,
	  "log and count what reclaim would write, write nothing", NULL },
	{ "reclaim_include", CFG_LIST, F(reclaim_include), "", 0, 0, "GLOB",
	  "memcgs to reclaim from (required with reclaim)", NULL },
	{ "reclaim_exclude", CFG_LIST, F(reclaim_exclude), "", 0, 0, "GLOB",
	  "memcgs never to reclaim from", NULL },
	{ "reclaim_older_than", CFG_DURATION, F(reclaim_older_than_ms), "10m", SEC, 30 * DAY, "DUR",
	  "evict pages idle longer than this", NULL },
	{ "reclaim_max_bytes", CFG_SIZE, F(reclaim_max_bytes), "64M", 4 * KIB, 1024 * GIB, "SIZE",
	  "ask for at most this much per tick, over all memcgs", NULL },
	{ "reclaim_floor", CFG_SIZE, F(reclaim_floor), "64M", 0, 1024 * GIB, "SIZE",
	  "never take a memcg (its pages summed over nodes) below this", NULL },
	{ "reclaim_psi_max", CFG_PERCENT, F(reclaim_psi_max), "10", 0, 100, "PERCENT",
	  "pause while 'some avg10' of /proc/pressure/memory or io is above this "
	  "(100: never pause)", NULL },
	{ "reclaim_swappiness", CFG_INT, F(reclaim_swappiness), "-1", -1, 201, "N",
	  "-1: the kernel's vm.swappiness; 0: file pages only; 201: anon only (6.16+)", NULL },

	{ "process", CFG_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "mlock", CFG_ENUM, F(mlock), "onfault", 0, 0, "MODE",
	  "lock lrugend's memory: off; onfault (each page once touched); all "
	  "(mlockall MCL_CURRENT|MCL_FUTURE: every mapped page)", mlock_names },
	{ "log_level", CFG_ENUM, F(log_level), "info", 0, 0, "LEVEL",
	  "least important log lines written", level_names },
};

#define NR_DEFS (sizeof(defs) / sizeof(defs[0]))

/* ---- small helpers ---------------------------------------------------------- */

static void *field(const struct config *cfg, const struct cfg_def *d)
{
	return (char *)cfg + d->off;
}

static const struct cfg_def *find_def(const char *name, size_t len)
{
	for (size_t i = 0; i < NR_DEFS; i++)
		if (defs[i].type != CFG_SECTION && strlen(defs[i].name) == len &&
		    !strncmp(defs[i].name, name, len))
			return &defs[i];
	return NULL;
}

const char *config_fmt_ms(uint64_t ms, char *buf, size_t size)
{
	static const struct {
		uint64_t mult;
		const char *unit;
	} units[] = { { DAY, "d" }, { HOUR, "h" }, { MIN, "m" }, { SEC, "s" } };

	for (size_t i = 0; ms && i < sizeof(units) / sizeof(units[0]); i++) {
		if (ms % units[i].mult == 0) {
			snprintf(buf, size, "%" PRIu64 "%s", ms / units[i].mult, units[i].unit);
			return buf;
		}
	}
	snprintf(buf, size, ms ? "%" PRIu64 "ms" : "%" PRIu64, ms);
	return buf;
}

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

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* ---- values: parse, format, free ---------------------------------------------- */

static void free_value(struct config *cfg, const struct cfg_def *d)
{
	void *p = field(cfg, d);

	switch (d->type) {
	case CFG_STRING:
		free(*(char **)p);
		*(char **)p = NULL;
		break;
	case CFG_LIST: {
		struct cfg_list *l = p;

		for (size_t i = 0; i < l->n; i++)
			free(l->v[i]);
		free(l->v);
		l->v = NULL;
		l->n = 0;
		break;
	}
	case CFG_DURATIONS: {
		struct cfg_ms_list *l = p;

		free(l->v);
		l->v = NULL;
		l->n = 0;
		break;
	}
	default:
		break;
	}
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
static int check_range(const struct cfg_def *d, int64_t v, struct lru_error *err)
{
	char lo[32], hi[32];

	if (v >= d->min && v <= d->max)
		return 0;
	if (d->type == CFG_DURATION || d->type == CFG_DURATIONS) {
		config_fmt_ms((uint64_t)d->min, lo, sizeof(lo));
		config_fmt_ms((uint64_t)d->max, hi, sizeof(hi));
	} else if (d->type == CFG_SIZE) {
		fmt_size((uint64_t)d->min, lo, sizeof(lo));
		fmt_size((uint64_t)d->max, hi, sizeof(hi));
	} else {
		snprintf(lo, sizeof(lo), "%" PRId64, d->min);
		snprintf(hi, sizeof(hi), "%" PRId64, d->max);
	}
	return lru_fail(err, LRU_ERANGE, "out of range (%s to %s)", lo, hi);
}

static int parse_duration(const struct cfg_def *d, const char *s, uint64_t *ms,
			  struct lru_error *err)
{
	struct lru_error perr;

	if (lru_parse_duration_ms(s, ms, &perr))
		return lru_fail(err, perr.code, "%s", perr.msg);
	if (*ms > INT64_MAX)
		return lru_fail(err, LRU_ERANGE, "too large");
	return check_range(d, (int64_t)*ms, err);
}

/* Append the comma-separated items of s to list d (durations or strings). */
static int add_items(struct config *cfg, const struct cfg_def *d, const char *s, struct lru_error *err)
{
	char *copy = strdup(s), *save = NULL, *tok;
	int rc = 0;

	if (!copy)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *item = trim(tok);

		if (!*item)
			continue;
		if (d->type == CFG_LIST) {
			struct cfg_list *l = field(cfg, d);
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
			struct cfg_ms_list *l = field(cfg, d);
			uint64_t ms, *v;

			if (parse_duration(d, item, &ms, err))
				rc = -1;
			else if (!(v = realloc(l->v, (l->n + 1) * sizeof(*v))))
				rc = lru_fail(err, LRU_ENOMEM, "out of memory");
			else {
				l->v = v;
				l->v[l->n++] = ms;
			}
		}
	}
	free(copy);
	return rc;
}

/*
 * Set d from text s. A list setting is cleared first when clear_list (its
 * first occurrence in a source).
 */
static int set_value(struct config *cfg, const struct cfg_def *d, const char *s, bool clear_list,
		     struct lru_error *err)
{
	void *p = field(cfg, d);
	struct lru_error perr;
	char *end;

	switch (d->type) {
	case CFG_BOOL:
		if (parse_bool(s, p))
			return lru_fail(err, LRU_EINVAL, "not true or false");
		return 0;
	case CFG_INT: {
		long long v;

		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno || end == s || *end)
			return lru_fail(err, LRU_EINVAL, "not a whole number");
		*(int64_t *)p = v;
		return check_range(d, v, err);
	}
	case CFG_DURATION:
		return parse_duration(d, s, p, err);
	case CFG_SIZE:
		if (lru_parse_size(s, p, &perr))
			return lru_fail(err, perr.code, "%s", perr.msg);
		if (*(uint64_t *)p > INT64_MAX)
			return lru_fail(err, LRU_ERANGE, "too large");
		return check_range(d, *(int64_t *)p, err);
	case CFG_PERCENT: {
		double v;

		errno = 0;
		v = strtod(s, &end);
		if (errno || end == s || (*end && strcmp(end, "%")))
			return lru_fail(err, LRU_EINVAL, "not a percentage");
		if (v < (double)d->min || v > (double)d->max)
			return lru_fail(err, LRU_EINVAL, "out of range (%" PRId64 " to %" PRId64 ")", d->min,
				    d->max);
		*(double *)p = v;
		return 0;
	}
	case CFG_STRING: {
		char *copy = strdup(s);

		if (!copy)
			return lru_fail(err, LRU_ENOMEM, "out of memory");
		free(*(char **)p);
		*(char **)p = copy;
		return 0;
	}
	case CFG_LIST:
	case CFG_DURATIONS:
		if (clear_list)
			free_value(cfg, d);
		return add_items(cfg, d, s, err);
	case CFG_ENUM: {
		char all[128];
		size_t n = 0;

		for (int i = 0; d->choices[i]; i++) {
			if (!strcasecmp(s, d->choices[i])) {
				*(int *)p = i;
				return 0;
			}
			n += (size_t)snprintf(all + n, sizeof(all) - n, "%s%s", i ? ", " : "",
					      d->choices[i]);
		}
		return lru_fail(err, LRU_EINVAL, "not one of %s", all);
	}
	case CFG_SECTION:
		break;
	}
	return 0;
}

/* The value of d as config text; lists as comma-separated items. */
static const char *format_value(const struct config *cfg, const struct cfg_def *d, char *buf,
				size_t size)
{
	const void *p = field(cfg, d);
	size_t n = 0;

	buf[0] = '\0';
	switch (d->type) {
	case CFG_BOOL:
		snprintf(buf, size, "%s", *(const bool *)p ? "true" : "false");
		break;
	case CFG_INT:
		snprintf(buf, size, "%" PRId64, *(const int64_t *)p);
		break;
	case CFG_DURATION:
		config_fmt_ms(*(const uint64_t *)p, buf, size);
		break;
	case CFG_SIZE:
		fmt_size(*(const uint64_t *)p, buf, size);
		break;
	case CFG_PERCENT:
		snprintf(buf, size, "%g", *(const double *)p);
		break;
	case CFG_STRING:
		snprintf(buf, size, "%s", *(char *const *)p ? *(char *const *)p : "");
		break;
	case CFG_LIST: {
		const struct cfg_list *l = p;

		for (size_t i = 0; i < l->n && n < size; i++)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", l->v[i]);
		break;
	}
	case CFG_DURATIONS: {
		const struct cfg_ms_list *l = p;

		for (size_t i = 0; i < l->n && n < size; i++) {
			char one[32];

			n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "",
					      config_fmt_ms(l->v[i], one, sizeof(one)));
		}
		break;
	}
	case CFG_ENUM:
		snprintf(buf, size, "%s", d->choices[*(const int *)p]);
		break;
	case CFG_SECTION:
		break;
	}
	return buf;
}

/* ---- loading ----------------------------------------------------------------- */

void config_release(struct config *cfg)
{
	for (size_t i = 0; i < NR_DEFS; i++)
		free_value(cfg, &defs[i]);
	memset(cfg, 0, sizeof(*cfg));
}

static int set_defaults(struct config *cfg, struct lru_error *err)
{
	const char *env = getenv(LRU_IFACE_ENV);

	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < NR_DEFS; i++) {
		const char *def = defs[i].def;

		if (defs[i].off == F(interface) && defs[i].choices == iface_names && env && env[0])
			def = env;	/* the environment sets this default */
		if (defs[i].type != CFG_SECTION && set_value(cfg, &defs[i], def, true, err))
			return -1;
	}
	return 0;
}

static int load_file(struct config *cfg, const char *file, bool required, struct lru_error *err)
{
	bool seen[NR_DEFS] = { false };
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;
	FILE *f = fopen(file, "r");

	if (!f) {
		if (errno == ENOENT && !required)
			return 0;
		return lru_fail(err, LRU_EIO, "cannot read config file '%s': %s", file, strerror(errno));
	}
	while (!rc && getline(&line, &cap, f) > 0) {
		char *s = trim(line), *eq, *key, *val;
		struct lru_error verr;
		const struct cfg_def *d;
		size_t idx, vlen;

		lineno++;
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			rc = lru_fail(err, LRU_EINVAL, "%s:%d: expected 'name = value'", file, lineno);
			break;
		}
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		vlen = strlen(val);
		if (vlen >= 2 && val[0] == '"' && val[vlen - 1] == '"') {
			val[vlen - 1] = '\0';
			val++;
		}
		d = find_def(key, strlen(key));
		if (!d) {
			rc = lru_fail(err, LRU_EINVAL, "%s:%d: unknown setting '%s'", file, lineno, key);
			break;
		}
		idx = (size_t)(d - defs);
		if (seen[idx] && d->type != CFG_LIST && d->type != CFG_DURATIONS) {
			rc = lru_fail(err, LRU_EINVAL, "%s:%d: '%s' is set twice", file, lineno, key);
			break;
		}
		if (set_value(cfg, d, val, !seen[idx], &verr))
			rc = lru_fail(err, verr.code, "%s:%d: %s = %s: %s", file, lineno, key, val, verr.msg);
		seen[idx] = true;
	}
	if (!rc && ferror(f))
		rc = lru_fail(err, LRU_EIO, "cannot read config file '%s': %s", file, strerror(errno));
	free(line);
	fclose(f);
	return rc;
}

static int apply_overrides(struct config *cfg, const struct cfg_overrides *ov, struct lru_error *err)
{
	bool seen[NR_DEFS] = { false };

	for (size_t i = 0; ov && i < ov->n; i++) {
		const struct cfg_def *d = &defs[ov->v[i].def];
		struct lru_error verr;
		char flag[64];
		size_t j;

		snprintf(flag, sizeof(flag), "%s", d->name);
		for (j = 0; flag[j]; j++)
			if (flag[j] == '_')
				flag[j] = '-';
		if (set_value(cfg, d, ov->v[i].value, !seen[ov->v[i].def], &verr))
			return lru_fail(err, verr.code, "--%s %s: %s", flag, ov->v[i].value, verr.msg);
		seen[ov->v[i].def] = true;
	}
	return 0;
}

/* Checks that involve more than one setting, or the outside world. */
static int validate(const struct config *c, struct lru_error *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct lru_error lerr;

	if (c->store[0] && strncmp(c->store, "http://", 7) && strncmp(c->store, "https://", 8))
		return lru_fail(err, LRU_EINVAL, "store '%s' is not an http:// or https:// URL", c->store);
	if (c->store[0] && !c->spool[0])
		return lru_fail(err, LRU_EINVAL, "shipping to a store needs a spool directory");
	if (c->token_file[0] && access(c->token_file, R_OK))
		return lru_fail(err, LRU_EINVAL, "cannot read token_file '%s': %s", c->token_file,
			    strerror(errno));
	if (c->ca_file[0] && access(c->ca_file, R_OK))
		return lru_fail(err, LRU_EINVAL, "cannot read ca_file '%s': %s", c->ca_file, strerror(errno));
	if (c->backoff_min_ms > c->backoff_max_ms)
		return lru_fail(err, LRU_EINVAL, "backoff_min is longer than backoff_max");
	if (c->listen[0] && config_parse_listen(c->listen, &ss, &len, &lerr))
		return lru_fail(err, LRU_EINVAL, "listen: %s", lerr.msg);
	if (!c->metrics_buckets.n || c->metrics_buckets.n > 16)
		return lru_fail(err, LRU_EINVAL, "metrics_buckets needs 1 to 16 durations");
	for (size_t i = 1; i < c->metrics_buckets.n; i++)
		if (c->metrics_buckets.v[i] <= c->metrics_buckets.v[i - 1])
			return lru_fail(err, LRU_EINVAL, "metrics_buckets must be in ascending order");
	if (c->reclaim && !c->reclaim_include.n)
		return lru_fail(err, LRU_EINVAL,
				"reclaim needs reclaim_include: the memcgs to reclaim from (globs)");
	return 0;
}

int config_load(struct config *cfg, const char *file, bool required,
		const struct cfg_overrides *ov, struct lru_error *err)
{
	if (set_defaults(cfg, err) ||
	    (file && load_file(cfg, file, required, err)) ||
	    apply_overrides(cfg, ov, err) || validate(cfg, err)) {
		config_release(cfg);
		return -1;
	}
	return 0;
}

/* ---- the command line ---------------------------------------------------------- */

struct option *config_options(const struct option *extra)
{
	size_t nextra = 0, n = 0;
	struct option *opts;

	while (extra[nextra].name)
		nextra++;
	opts = calloc(nextra + 2 * NR_DEFS + 1, sizeof(*opts));
	if (!opts)
		return NULL;
	memcpy(opts, extra, nextra * sizeof(*opts));
	n = nextra;
	for (size_t i = 0; i < NR_DEFS; i++) {
		const struct cfg_def *d = &defs[i];
		size_t len = strlen(d->name);
		char *name, *no;

		if (d->type == CFG_SECTION)
			continue;
		name = malloc(len + 4);
		if (!name)
			break;
		for (size_t j = 0; j <= len; j++)
			name[j] = d->name[j] == '_' ? '-' : d->name[j];
		opts[n++] = (struct option){ name, d->type == CFG_BOOL ? no_argument : required_argument,
					     NULL, CFG_OPT_BASE + 2 * (int)i };
		if (d->type != CFG_BOOL)
			continue;
		no = malloc(len + 4);
		if (!no)
			break;
		snprintf(no, len + 4, "no-%s", name);
		opts[n++] = (struct option){ no, no_argument, NULL, CFG_OPT_BASE + 2 * (int)i + 1 };
	}
	return opts;
}

void config_free_options(struct option *opts)
{
	if (!opts)
		return;
	for (struct option *o = opts; o->name; o++)
		if (o->val >= CFG_OPT_BASE)
			free((char *)o->name);
	free(opts);
}

int config_override(struct cfg_overrides *ov, int val, const char *arg, struct lru_error *err)
{
	size_t idx = (size_t)(val - CFG_OPT_BASE) / 2;
	bool no = (val - CFG_OPT_BASE) % 2;
	struct cfg_override *v;
	char *value;

	if (val < CFG_OPT_BASE || idx >= NR_DEFS)
		return lru_fail(err, LRU_EINVAL, "unknown option");
	if (defs[idx].type == CFG_BOOL)
		arg = no ? "false" : "true";
	value = strdup(arg ? arg : "");
	v = realloc(ov->v, (ov->n + 1) * sizeof(*v));
	if (!value || !v) {
		free(value);
		if (v)
			ov->v = v;
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	ov->v = v;
	ov->v[ov->n++] = (struct cfg_override){ idx, value };
	return 0;
}

void config_free_overrides(struct cfg_overrides *ov)
{
	for (size_t i = 0; i < ov->n; i++)
		free(ov->v[i].value);
	free(ov->v);
	ov->v = NULL;
	ov->n = 0;
}

/* ---- output ----------------------------------------------------------------------- */

/*
 * Words of text, each after a space, wrapped at 79 columns: the first line
 * goes on from column col, the others start with indent.
 */
static void wrap(FILE *out, int col, const char *indent, const char *text)
{
	int min = (int)strlen(indent);

	while (*text) {
		size_t word = strcspn(text, " ");

		if (col + 1 + (int)word > 79 && col > min) {
			fputc('\n', out);
			col = fprintf(out, "%s", indent);
		}
		col += fprintf(out, " %.*s", (int)word, text);
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

/* "  --flag ARG   help text [default]" */
static void print_flag(FILE *out, const char *flag, const char *help, const char *def)
{
	char text[1024];
	int col;

	snprintf(text, sizeof(text), def[0] ? "%s [%s]" : "%s", help, def);
	col = fprintf(out, "  %-30s", flag);
	if (col > 33) {
		fputc('\n', out);
		col = fprintf(out, "  %-30s", "");
	}
	wrap(out, col, "                                ", text);
}

void config_usage(FILE *out)
{
	struct config def;
	struct lru_error err;

	if (set_defaults(&def, &err))
		return;
	for (size_t i = 0; i < NR_DEFS; i++) {
		const struct cfg_def *d = &defs[i];
		char flag[96], val[256];
		size_t j, n;

		if (d->type == CFG_SECTION) {
			fprintf(out, "\n%s:\n", d->name);
			continue;
		}
		n = (size_t)snprintf(flag, sizeof(flag), "--%s%s", d->type == CFG_BOOL ? "[no-]" : "",
				     d->name);
		for (j = 2; j < n; j++)
			if (flag[j] == '_')
				flag[j] = '-';
		if (d->arg)
			snprintf(flag + n, sizeof(flag) - n, " %s", d->arg);
		format_value(&def, d, val, sizeof(val));
		print_flag(out, flag, d->help, val);
	}
	config_release(&def);
}

void config_print(const struct config *cfg, FILE *out)
{
	for (size_t i = 0; i < NR_DEFS; i++) {
		const struct cfg_def *d = &defs[i];
		char val[4096];

		if (d->type == CFG_SECTION) {
			fprintf(out, "%s# --- %s ---\n", i ? "\n" : "", d->name);
			continue;
		}
		wrap(out, fprintf(out, "#"), "#", d->help);
		if (d->type == CFG_LIST && ((const struct cfg_list *)field(cfg, d))->n) {
			const struct cfg_list *l = field(cfg, d);

			/* one item per line: the first replaces, the others append */
			for (size_t j = 0; j < l->n; j++)
				fprintf(out, "%s = %s\n", d->name, l->v[j]);
			continue;
		}
		format_value(cfg, d, val, sizeof(val));
		fprintf(out, "%s =%s%s\n", d->name, val[0] ? " " : "", val);
	}
}

void config_diff(const struct config *a, const struct config *b,
		 void (*fn)(void *arg, const char *name, const char *old, const char *new),
		 void *arg)
{
	for (size_t i = 0; i < NR_DEFS; i++) {
		char va[4096], vb[4096];

		if (defs[i].type == CFG_SECTION)
			continue;
		format_value(a, &defs[i], va, sizeof(va));
		format_value(b, &defs[i], vb, sizeof(vb));
		if (strcmp(va, vb))
			fn(arg, defs[i].name, va, vb);
	}
}

int config_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len,
			struct lru_error *err)
{
	char host[128];
	const char *colon, *port_s;
	unsigned long port;
	char *end;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':' || (size_t)(close - s - 1) >= sizeof(host))
			return lru_fail(err, LRU_EINVAL, "'%s' is not [IPV6]:PORT", s);
		memcpy(host, s + 1, (size_t)(close - s - 1));
		host[close - s - 1] = '\0';
		port_s = close + 2;
	} else {
		colon = strrchr(s, ':');
		if (!colon || (size_t)(colon - s) >= sizeof(host))
			return lru_fail(err, LRU_EINVAL, "'%s' is not ADDR:PORT", s);
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = '\0';
		port_s = colon + 1;
	}
	errno = 0;
	port = strtoul(port_s, &end, 10);
	if (errno || end == port_s || *end || port > 65535)
		return lru_fail(err, LRU_EINVAL, "'%s' has no valid port", s);
	if (s[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return lru_fail(err, LRU_EINVAL, "'%s' is not an IPv6 address", host);
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		a->sin_addr.s_addr = htonl(INADDR_ANY);
		if (host[0] && inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return lru_fail(err, LRU_EINVAL, "'%s' is not an IPv4 address (use [ADDR] for IPv6)",
				    host);
		*len = sizeof(*a);
	}
	return 0;
}
