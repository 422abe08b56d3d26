/* config.c - lrugend's settings table, its --help text, and the checks a table cannot make. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lru_iface.h"
#include "lru_settings.h"

#define F(field) offsetof(struct config, field)
#define SEC (1000LL)
#define MIN (60 * SEC)
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)
#define KIB (1LL << 10)
#define MIB (1LL << 20)
#define GIB (1LL << 30)

static const char *const mlock_names[] = { "off", "onfault", "all", NULL };
/* in the order of enum cfg_damon_stat */
static const char *const damon_stat_names[] = { "off", "keep", NULL };
/* in the order of enum lru_iface_mode */
static const char *const iface_names[] = { "auto", "cgroup", "debugfs", NULL };
static const char *const advised_word[] = { "advised", NULL };

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
	{ "skip-empty", LRU_SET_BOOL, F(skip_empty), "true", 0, 0, NULL,
	  "leave out memcgs without pages (not one above a memcg kept)", NULL },
	{ "skip-dying", LRU_SET_BOOL, F(skip_dying), "true", 0, 0, NULL,
	  "leave out offline memcgs (id 0: removed, still holding pages)", NULL },
	{ "memcg-stats", LRU_SET_BOOL, F(memcg_stats), "true", 0, 0, NULL,
	  "read each memcg's memory.stat, memory.current and memory.pressure", NULL },

	{ "aging", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "age", LRU_SET_BOOL, F(age), "true", 0, 0, NULL,
	  "create a generation in every selected lruvec each tick", NULL },
	{ "age-margin", LRU_SET_DURATION, F(age_margin_ms), "15s", 0, DAY, "DUR",
	  "do not age lruvecs whose youngest generation is younger than the interval "
	  "minus this (someone else aged them)", NULL },
	{ "can-swap", LRU_SET_BOOL, F(can_swap), "true", 0, 0, NULL,
	  "age with can_swap=1: scan anon pages even without swap", NULL },
	{ "force-scan", LRU_SET_BOOL, F(force_scan), "true", 0, 0, NULL,
	  "age with force_scan=1: scan every mm (needed once 4 generations exist)", NULL },
	{ "damon-stat", LRU_SET_ENUM, F(damon_stat), "off", 0, 0, "off|keep",
	  "damon_stat (on at boot in Debian's 7.x kernels) clears accessed bits that the "
	  "aging of kernels without lrugen's series does not see, so memory in huge pages "
	  "reads colder than it is: 'off' turns it off (logged once), 'keep' leaves it and "
	  "marks those lruvecs thp_unaged", damon_stat_names },

	{ "shipping", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "store", LRU_SET_STRING, F(store), "", 0, 0, "URL",
	  "lrugen-store base URL (http:// or https://); empty: metrics only, snapshots are not kept (seq 0)", NULL },
	{ "token-file", LRU_SET_STRING, F(token_file), "", 0, 0, "FILE",
	  "file holding the store's bearer token (re-read before each send)", NULL },
	{ "ca-file", LRU_SET_STRING, F(ca_file), "", 0, 0, "FILE",
	  "CA certificates for the store (default: the system's)", NULL },
	{ "tls-verify", LRU_SET_BOOL, F(tls_verify), "true", 0, 0, NULL,
	  "verify the store's TLS certificate and host name", NULL },
	{ "gzip", LRU_SET_BOOL, F(gzip), "true", 0, 0, NULL,
	  "gzip request bodies once the store answers with 'Accept-Encoding: gzip'", NULL },
	{ "connect-timeout", LRU_SET_DURATION, F(connect_timeout_ms), "10s", 100, 10 * MIN, "DUR",
	  "time limit to connect to the store", NULL },
	{ "timeout", LRU_SET_DURATION, F(timeout_ms), "60s", 100, HOUR, "DUR",
	  "time limit of one request to the store", NULL },
	{ "backoff-min", LRU_SET_DURATION, F(backoff_min_ms), "1s", 10, HOUR, "DUR",
	  "first retry delay after a failed send (doubles per failure, with jitter)", NULL },
	{ "backoff-max", LRU_SET_DURATION, F(backoff_max_ms), "5m", 10, DAY, "DUR",
	  "longest retry delay", NULL },
	{ "batch-max-snapshots", LRU_SET_INT, F(batch_max_snapshots), "32", 1, 10000, "N",
	  "snapshots per request at most", NULL },
	{ "batch-max-bytes", LRU_SET_SIZE, F(batch_max_bytes), "4M", 4 * KIB, 256 * MIB, "SIZE",
	  "request body size at most (one larger snapshot still goes alone)", NULL },

	{ "spool", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "spool", LRU_SET_STRING, F(spool), "/var/lib/lrugend", 0, 0, "DIR",
	  "spool directory: snapshots not yet acknowledged, and the sequence number", NULL },
	{ "spool-max-bytes", LRU_SET_SIZE, F(spool_max_bytes), "256M", 64 * KIB, 1024 * GIB, "SIZE",
	  "spool size limit: the oldest snapshots are dropped beyond it", NULL },
	{ "spool-max-age", LRU_SET_DURATION, F(spool_max_age_ms), "7d", 0, 365 * DAY, "DUR",
	  "drop snapshots older than this from the spool (0: no limit)", NULL },

	{ "metrics", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "listen", LRU_SET_STRING, F(listen), "", 0, 0, "ADDR:PORT",
	  "serve GET /metrics (Prometheus text) here; empty: no endpoint", NULL },
	{ "metrics-buckets", LRU_SET_DURATIONS, F(metrics_buckets), "1m,2m,5m,10m,30m,1h", 1, 365 * DAY,
	  "DUR,...", "age buckets of lrugen_memory_bytes ('+Inf' is always added)", NULL },
	{ "metrics-generations", LRU_SET_BOOL, F(metrics_generations), "false", 0, 0, NULL,
	  "also export every generation's size and age (more series)", NULL },

	{ "proactive reclaim", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "reclaim", LRU_SET_BOOL, F(reclaim), "false", 0, 0, NULL,
	  "evict generations idle longer than reclaim-older-than from reclaim-include", NULL },
	{ "reclaim-dry-run", LRU_SET_BOOL, F(reclaim_dry_run), "false", 0, 0, NULL,
	  "log and count what reclaim would write, write nothing", NULL },
	{ "reclaim-include", LRU_SET_LIST, F(reclaim_include), "", 0, 0, "GLOB",
	  "memcgs to reclaim from (required with reclaim)", NULL },
	{ "reclaim-exclude", LRU_SET_LIST, F(reclaim_exclude), "", 0, 0, "GLOB",
	  "memcgs never to reclaim from", NULL },
	{ "reclaim-older-than", LRU_SET_DURATION, F(reclaim_older_than_ms), "10m", SEC, 30 * DAY,
	  "DUR|advised", "evict pages idle longer than this; advised: each memcg's threshold as "
	  "the store advises it (lrugen fleet advise), none where it advises none", advised_word },
	{ "reclaim-advice-refresh", LRU_SET_DURATION, F(reclaim_advice_refresh_ms), "10m", MIN, DAY,
	  "DUR", "with reclaim-older-than = advised: ask the store this often", NULL },
	{ "reclaim-max-bytes", LRU_SET_SIZE, F(reclaim_max_bytes), "64M", 4 * KIB, 1024 * GIB, "SIZE",
	  "ask for at most this much per tick, over all memcgs", NULL },
	{ "reclaim-floor", LRU_SET_SIZE, F(reclaim_floor), "64M", 0, 1024 * GIB, "SIZE",
	  "never take a memcg (its pages summed over nodes) below this", NULL },
	{ "reclaim-psi-max", LRU_SET_PERCENT, F(reclaim_psi_max), "10", 0, 100, "PERCENT",
	  "pause while 'some avg10' of /proc/pressure/memory or io is above this "
	  "(100: never pause)", NULL },
	{ "reclaim-swappiness", LRU_SET_INT, F(reclaim_swappiness), "-1", -1, 201, "N",
	  "-1: the kernel's vm.swappiness; 0: file pages only; 201: anon only (6.16+)", NULL },

	{ "process", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "mlock", LRU_SET_ENUM, F(mlock), "onfault", 0, 0, "MODE",
	  "lock lrugend's memory: off; onfault (each page once touched); all "
	  "(mlockall MCL_CURRENT|MCL_FUTURE: every mapped page)", mlock_names },
	CONF_LOG_LEVEL(struct config, log_level),
};

#define NR_DEFS (sizeof(defs) / sizeof(defs[0]))

static const char usage[] =
	"usage: lrugend [--config FILE] [--once | --output FILE | --drain] [--print-config]\n"
	"               [SETTING FLAGS...]\n"
	"\n"
	"lrugend is the per-host collector of lrugen. Every interval it ages each\n"
	"memcg's MGLRU lruvecs on a steady pace (so that generation sizes form a\n"
	"page-age histogram), reads the generations, per-node meminfo and memcg\n"
	"statistics, appends the snapshot to a durable spool and sends the spool to\n"
	"the store (POST /v1/snapshots). GET /metrics serves the histogram to\n"
	"Prometheus. It needs root (debugfs).\n"
	"\n"
	"run modes:\n"
	"  --config FILE                  settings file [/etc/lrugend.conf, if present]\n"
	"  --once                         one tick, one attempt to send, then exit\n"
	"  --output FILE                  one tick, its snapshot written to FILE as a\n"
	"                                 SnapshotBatch ('-': stdout) instead of the spool\n"
	"  --drain                        send the spool to the store and exit (no tick)\n"
	"  --print-config                 print the effective settings and exit\n"
	"  -h, --help, --version\n";

static const char usage_tail[] =
	"Signals: SIGHUP reloads the config file (an invalid one keeps the old\n"
	"settings); SIGTERM and SIGINT finish the tick and exit. Exit codes: 0 ok,\n"
	"1 failed, 2 bad usage or config.\n";

/* $LRUGEN_INTERFACE, when set, is the default interface */
static enum lru_err env_defaults(void *cfg, struct lru_error *err)
{
	const char *env = getenv(LRU_IFACE_ENV);
	const struct lru_set_def *d = lru_set_find(defs, NR_DEFS, "interface", strlen("interface"));
	struct lru_error verr;

	if (env && env[0] && lru_set_value(cfg, d, env, true, &verr))
		return lru_fail(err, verr.code, "$%s %s: %s", LRU_IFACE_ENV, env, verr.msg);
	return LRU_OK;
}

/* Checks that involve more than one setting, or the outside world. */
static enum lru_err validate(const void *cfg, struct lru_error *err)
{
	const struct config *c = cfg;
	struct sockaddr_storage ss;
	socklen_t len;
	struct lru_error lerr;

	if (c->store[0] && strncmp(c->store, "http://", 7) && strncmp(c->store, "https://", 8))
		return lru_fail(err, LRU_EINVAL, "store '%s' is not an http:// or https:// URL", c->store);
	if (c->store[0] && !c->spool[0])
		return lru_fail(err, LRU_EINVAL, "shipping to a store needs a spool directory");
	if (c->token_file[0] && access(c->token_file, R_OK))
		return lru_fail(err, LRU_EINVAL, "cannot read token-file '%s': %s", c->token_file,
				strerror(errno));
	if (c->ca_file[0] && access(c->ca_file, R_OK))
		return lru_fail(err, LRU_EINVAL, "cannot read ca-file '%s': %s", c->ca_file,
				strerror(errno));
	if (c->backoff_min_ms > c->backoff_max_ms)
		return lru_fail(err, LRU_EINVAL, "backoff-min is longer than backoff-max");
	if (c->listen[0] && config_parse_listen(c->listen, &ss, &len, &lerr))
		return lru_fail(err, LRU_EINVAL, "listen: %s", lerr.msg);
	if (!c->metrics_buckets.n || c->metrics_buckets.n > 16)
		return lru_fail(err, LRU_EINVAL, "metrics-buckets needs 1 to 16 durations");
	for (size_t i = 1; i < c->metrics_buckets.n; i++)
		if (c->metrics_buckets.v[i] <= c->metrics_buckets.v[i - 1])
			return lru_fail(err, LRU_EINVAL, "metrics-buckets must be in ascending order");
	if (c->reclaim && !c->reclaim_include.n)
		return lru_fail(err, LRU_EINVAL,
				"reclaim needs reclaim-include: the memcgs to reclaim from (globs)");
	if (c->reclaim && c->reclaim_older_than_ms == CFG_ADVISED && !c->store[0])
		return lru_fail(err, LRU_EINVAL,
				"reclaim-older-than = advised needs store: the advice comes from it");
	return LRU_OK;
}

const struct conf_prog lrugend_conf = {
	.name = "lrugend",
	.size = sizeof(struct config),
	.defs = defs,
	.nr_defs = NR_DEFS,
	.default_file = "/etc/lrugend.conf",
	.usage = usage,
	.usage_tail = usage_tail,
	.defaults = env_defaults,
	.check = validate,
};

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
