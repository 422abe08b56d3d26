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
#include "lru_settings.h"
#include "lru_units.h"

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
/* in the order of enum cfg_damon_stat */
static const char *const damon_stat_names[] = { "off", "keep", NULL };
/* in the order of enum lru_iface_mode */
static const char *const iface_names[] = { "auto", "cgroup", "debugfs", NULL };

static const struct lru_set_def defs[] = {
	{ "collection", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "root", LRU_SET_STRING, F(root), "", 0, 0, "DIR",
	  "read every kernel file under DIR instead of / (a fixture tree)", NULL },
	{ "host", LRU_SET_STRING, F(host), "", 0, 0, "NAME",
	  "host name sent to the store (default: the kernel's host name)", NULL },
	{ "interval", LRU_SET_DURATION, F(interval_ms), "2m", 0, DAY, "DUR",
	  "time between ticks (each tick: read, spool, reclaim, age, send)", NULL },
	{ "jitter", LRU_SET_BOOL, F(jitter), "true", 0, 0, NULL,
	  "tick at a per-host phase of the interval (from the host name), so that a "
	  "fleet does not age in lockstep", NULL },
	{ "interface", LRU_SET_ENUM, F(interface), "auto", 0, 0, "MODE",
	  "where generations are read and aging and eviction written: 'cgroup', each "
	  "memcg's memory.lru_gen (patched kernels; the root memcg still from debugfs); "
	  "'debugfs', /sys/kernel/debug/lru_gen; 'auto', memory.lru_gen when present. "
	  "The default comes from $LRUGEN_INTERFACE when set", iface_names },
	{ "full", LRU_SET_BOOL, F(full), "false", 0, 0, NULL,
	  "read lru_gen_full: adds per-tier counters, and reads under kernel lockdown", NULL },
	{ "include", LRU_SET_LIST, F(include), "", 0, 0, "GLOB",
	  "only memcgs whose path matches one of these globs (default: all)", NULL },
	{ "exclude", LRU_SET_LIST, F(exclude), "", 0, 0, "GLOB",
	  "leave out memcgs whose path matches one of these globs", NULL },
	{ "skip_empty", LRU_SET_BOOL, F(skip_empty), "true", 0, 0, NULL,
	  "leave out memcgs without pages", NULL },
	{ "skip_dying", LRU_SET_BOOL, F(skip_dying), "true", 0, 0, NULL,
	  "leave out offline memcgs (id 0: removed, still holding pages)", NULL },
	{ "memcg_stats", LRU_SET_BOOL, F(memcg_stats), "true", 0, 0, NULL,
	  "read each memcg's memory.stat, memory.current and memory.pressure", NULL },

	{ "aging", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "age", LRU_SET_BOOL, F(age), "true", 0, 0, NULL,
	  "create a generation in every selected lruvec each tick", NULL },
	{ "age_margin", LRU_SET_DURATION, F(age_margin_ms), "15s", 0, DAY, "DUR",
	  "do not age lruvecs whose youngest generation is younger than the interval "
	  "minus this (someone else aged them)", NULL },
	{ "can_swap", LRU_SET_BOOL, F(can_swap), "true", 0, 0, NULL,
	  "age with can_swap=1: scan anon pages even without swap", NULL },
	{ "force_scan", LRU_SET_BOOL, F(force_scan), "true", 0, 0, NULL,
	  "age with force_scan=1: scan every mm (needed once 4 generations exist)", NULL },
	{ "damon_stat", LRU_SET_ENUM, F(damon_stat), "off", 0, 0, "off|keep",
	  "damon_stat (on at boot in Debian's 7.x kernels) clears accessed bits that the "
	  "aging of kernels without lrugen's series does not see, so memory in huge pages "
	  "reads colder than it is: 'off' turns it off (logged once), 'keep' leaves it and "
	  "marks those lruvecs thp_unaged", damon_stat_names },

	{ "shipping", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "store", LRU_SET_STRING, F(store), "", 0, 0, "URL",
	  "lrugen-store base URL (http:// or https://); empty: metrics only, snapshots are not kept (seq 0)", NULL },
	{ "token_file", LRU_SET_STRING, F(token_file), "", 0, 0, "FILE",
	  "file holding the store's bearer token (re-read before each send)", NULL },
	{ "ca_file", LRU_SET_STRING, F(ca_file), "", 0, 0, "FILE",
	  "CA certificates for the store (default: the system's)", NULL },
	{ "tls_verify", LRU_SET_BOOL, F(tls_verify), "true", 0, 0, NULL,
	  "verify the store's TLS certificate and host name", NULL },
	{ "gzip", LRU_SET_BOOL, F(gzip), "true", 0, 0, NULL,
	  "gzip request bodies once the store answers with 'Accept-Encoding: gzip'", NULL },
	{ "connect_timeout", LRU_SET_DURATION, F(connect_timeout_ms), "10s", 100, 10 * MIN, "DUR",
	  "time limit to connect to the store", NULL },
	{ "timeout", LRU_SET_DURATION, F(timeout_ms), "60s", 100, HOUR, "DUR",
	  "time limit of one request to the store", NULL },
	{ "backoff_min", LRU_SET_DURATION, F(backoff_min_ms), "1s", 10, HOUR, "DUR",
	  "first retry delay after a failed send (doubles per failure, with jitter)", NULL },
	{ "backoff_max", LRU_SET_DURATION, F(backoff_max_ms), "5m", 10, DAY, "DUR",
	  "longest retry delay", NULL },
	{ "batch_max_snapshots", LRU_SET_INT, F(batch_max_snapshots), "32", 1, 10000, "N",
	  "snapshots per request at most", NULL },
	{ "batch_max_bytes", LRU_SET_SIZE, F(batch_max_bytes), "4M", 4 * KIB, 256 * MIB, "SIZE",
	  "request body size at most (one larger snapshot still goes alone)", NULL },

	{ "spool", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "spool", LRU_SET_STRING, F(spool), "/var/lib/lrugend", 0, 0, "DIR",
	  "spool directory: snapshots not yet acknowledged, and the sequence number", NULL },
	{ "spool_max_bytes", LRU_SET_SIZE, F(spool_max_bytes), "256M", 64 * KIB, 1024 * GIB, "SIZE",
	  "spool size limit: the oldest snapshots are dropped beyond it", NULL },
	{ "spool_max_age", LRU_SET_DURATION, F(spool_max_age_ms), "7d", 0, 365 * DAY, "DUR",
	  "drop snapshots older than this from the spool (0: no limit)", NULL },

	{ "metrics", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "listen", LRU_SET_STRING, F(listen), "", 0, 0, "ADDR:PORT",
	  "serve GET /metrics (Prometheus text) here; empty: no endpoint", NULL },
	{ "metrics_buckets", LRU_SET_DURATIONS, F(metrics_buckets), "1m,2m,5m,10m,30m,1h", 1, 365 * DAY,
	  "DUR,...", "age buckets of lrugen_memory_bytes ('+Inf' is always added)", NULL },
	{ "metrics_generations", LRU_SET_BOOL, F(metrics_generations), "false", 0, 0, NULL,
	  "also export every generation's size and age (more series)", NULL },

	{ "proactive reclaim", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "reclaim", LRU_SET_BOOL, F(reclaim), "false", 0, 0, NULL,
	  "evict generations idle longer than reclaim_older_than from reclaim_include", NULL },
	{ "reclaim_dry_run", LRU_SET_BOOL, F(reclaim_dry_run), "false", 0, 0, NULL,
	  "log and count what reclaim would write, write nothing", NULL },
	{ "reclaim_include", LRU_SET_LIST, F(reclaim_include), "", 0, 0, "GLOB",
	  "memcgs to reclaim from (required with reclaim)", NULL },
	{ "reclaim_exclude", LRU_SET_LIST, F(reclaim_exclude), "", 0, 0, "GLOB",
	  "memcgs never to reclaim from", NULL },
	{ "reclaim_older_than", LRU_SET_DURATION, F(reclaim_older_than_ms), "10m", SEC, 30 * DAY, "DUR",
	  "evict pages idle longer than this", NULL },
	{ "reclaim_max_bytes", LRU_SET_SIZE, F(reclaim_max_bytes), "64M", 4 * KIB, 1024 * GIB, "SIZE",
	  "ask for at most this much per tick, over all memcgs", NULL },
	{ "reclaim_floor", LRU_SET_SIZE, F(reclaim_floor), "64M", 0, 1024 * GIB, "SIZE",
	  "never take a memcg (its pages summed over nodes) below this", NULL },
	{ "reclaim_psi_max", LRU_SET_PERCENT, F(reclaim_psi_max), "10", 0, 100, "PERCENT",
	  "pause while 'some avg10' of /proc/pressure/memory or io is above this "
	  "(100: never pause)", NULL },
	{ "reclaim_swappiness", LRU_SET_INT, F(reclaim_swappiness), "-1", -1, 201, "N",
	  "-1: the kernel's vm.swappiness; 0: file pages only; 201: anon only (6.16+)", NULL },

	{ "process", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "mlock", LRU_SET_ENUM, F(mlock), "onfault", 0, 0, "MODE",
	  "lock lrugend's memory: off; onfault (each page once touched); all "
	  "(mlockall MCL_CURRENT|MCL_FUTURE: every mapped page)", mlock_names },
	{ "log_level", LRU_SET_ENUM, F(log_level), "info", 0, 0, "LEVEL",
	  "least important log lines written", level_names },
};

#define NR_DEFS (sizeof(defs) / sizeof(defs[0]))

/* ---- small helpers ---------------------------------------------------------- */

static const struct lru_set_def *find_def(const char *name, size_t len)
{
	return lru_set_find(defs, NR_DEFS, name, len);
}

/* ---- loading ----------------------------------------------------------------- */

void config_release(struct config *cfg)
{
	lru_set_release(cfg, defs, NR_DEFS);
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
		if (defs[i].type != LRU_SET_SECTION && lru_set_value(cfg, &defs[i], def, true, err))
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
		char *s = lru_set_trim(line), *eq, *key, *val;
		struct lru_error verr;
		const struct lru_set_def *d;
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
		key = lru_set_trim(s);
		val = lru_set_trim(eq + 1);
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
		if (seen[idx] && d->type != LRU_SET_LIST && d->type != LRU_SET_DURATIONS) {
			rc = lru_fail(err, LRU_EINVAL, "%s:%d: '%s' is set twice", file, lineno, key);
			break;
		}
		if (lru_set_value(cfg, d, val, !seen[idx], &verr))
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
		const struct lru_set_def *d = &defs[ov->v[i].def];
		struct lru_error verr;
		char flag[64];
		size_t j;

		snprintf(flag, sizeof(flag), "%s", d->name);
		for (j = 0; flag[j]; j++)
			if (flag[j] == '_')
				flag[j] = '-';
		if (lru_set_value(cfg, d, ov->v[i].value, !seen[ov->v[i].def], &verr))
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
		const struct lru_set_def *d = &defs[i];
		size_t len = strlen(d->name);
		char *name, *no;

		if (d->type == LRU_SET_SECTION)
			continue;
		name = malloc(len + 4);
		if (!name)
			break;
		for (size_t j = 0; j <= len; j++)
			name[j] = d->name[j] == '_' ? '-' : d->name[j];
		opts[n++] = (struct option){ name, d->type == LRU_SET_BOOL ? no_argument : required_argument,
					     NULL, CFG_OPT_BASE + 2 * (int)i };
		if (d->type != LRU_SET_BOOL)
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
	if (defs[idx].type == LRU_SET_BOOL)
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
		const struct lru_set_def *d = &defs[i];
		char flag[96], val[256];
		size_t j, n;

		if (d->type == LRU_SET_SECTION) {
			fprintf(out, "\n%s:\n", d->name);
			continue;
		}
		n = (size_t)snprintf(flag, sizeof(flag), "--%s%s", d->type == LRU_SET_BOOL ? "[no-]" : "",
				     d->name);
		for (j = 2; j < n; j++)
			if (flag[j] == '_')
				flag[j] = '-';
		if (d->arg)
			snprintf(flag + n, sizeof(flag) - n, " %s", d->arg);
		lru_set_format(&def, d, val, sizeof(val));
		print_flag(out, flag, d->help, val);
	}
	config_release(&def);
}

void config_print(const struct config *cfg, FILE *out)
{
	for (size_t i = 0; i < NR_DEFS; i++) {
		const struct lru_set_def *d = &defs[i];
		char val[4096];

		if (d->type == LRU_SET_SECTION) {
			fprintf(out, "%s# --- %s ---\n", i ? "\n" : "", d->name);
			continue;
		}
		wrap(out, fprintf(out, "#"), "#", d->help);
		if (d->type == LRU_SET_LIST &&
		    ((const struct lru_set_list *)((const char *)cfg + d->off))->n) {
			const struct lru_set_list *l = (const void *)((const char *)cfg + d->off);

			/* one item per line: the first replaces, the others append */
			for (size_t j = 0; j < l->n; j++)
				fprintf(out, "%s = %s\n", d->name, l->v[j]);
			continue;
		}
		lru_set_format(cfg, d, val, sizeof(val));
		fprintf(out, "%s =%s%s\n", d->name, val[0] ? " " : "", val);
	}
}

void config_diff(const struct config *a, const struct config *b,
		 void (*fn)(void *arg, const char *name, const char *old, const char *new),
		 void *arg)
{
	for (size_t i = 0; i < NR_DEFS; i++) {
		char va[4096], vb[4096];

		if (defs[i].type == LRU_SET_SECTION)
			continue;
		lru_set_format(a, &defs[i], va, sizeof(va));
		lru_set_format(b, &defs[i], vb, sizeof(vb));
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
