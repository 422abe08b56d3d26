/* config.c - lrugen-store's settings table, its token lines and its --help text. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lru_settings.h"
#include "lru_units.h"

#define F(field) offsetof(struct store_config, field)
#define SEC 1000LL
#define MIN (60 * SEC)
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)

static const char *const sync_names[] = { "normal", "full", NULL };
static const char *const backend_names[] = { "sqlite", "clickhouse", NULL };

static const struct lru_set_def defs[] = {
	{ "serving", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "backend", LRU_SET_ENUM, F(backend), "sqlite", 0, 0, "NAME",
	  "where snapshots are kept: 'sqlite', one file (db); 'clickhouse', a ClickHouse "
	  "server or cluster (clickhouse-*): the store keeps no state of its own, so any "
	  "number of lrugen-store front-ends can serve one cluster", backend_names },
	{ "db", LRU_SET_STRING, F(db), "", 0, 0, "FILE",
	  "sqlite database file, created with its schema when missing", NULL },
	{ "listen", LRU_SET_STRING, F(listen), "127.0.0.1:7070", 0, 0, "ADDR:PORT",
	  "address to serve HTTP on (port 0: any free port, logged)", NULL },
	{ "threads", LRU_SET_INT, F(threads), "4", 1, 64, "N",
	  "HTTP worker threads (libmicrohttpd thread pool)", NULL },
	{ "tls-cert", LRU_SET_STRING, F(tls_cert), "", 0, 0, "FILE",
	  "PEM certificate: serve HTTPS (with tls-key)", NULL },
	{ "tls-key", LRU_SET_STRING, F(tls_key), "", 0, 0, "FILE", "PEM private key of tls-cert", NULL },

	{ "clickhouse", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "clickhouse-url", LRU_SET_LIST, F(ch_urls), "", 0, 0, "URL,...",
	  "HTTP URLs of ClickHouse servers (http://host:8123), tried in turn", NULL },
	{ "clickhouse-cluster", LRU_SET_STRING, F(ch_cluster), "", 0, 0, "NAME",
	  "cluster of the servers' remote_servers: replicated tables sharded by host "
	  "(needs ZooKeeper); empty: one server, plain tables", NULL },
	{ "clickhouse-database", LRU_SET_STRING, F(ch_database), "lrugen", 0, 0, "NAME",
	  "database of lrugen's tables (--migrate creates it)", NULL },
	{ "clickhouse-user", LRU_SET_STRING, F(ch_user), "default", 0, 0, "NAME",
	  "ClickHouse user", NULL },
	{ "clickhouse-password-file", LRU_SET_STRING, F(ch_password_file), "", 0, 0, "FILE",
	  "file holding the user's password (first line); empty: no password", NULL },
	{ "clickhouse-insert-quorum", LRU_SET_INT, F(ch_insert_quorum), "2", 0, 16, "N",
	  "with a cluster: a batch is acknowledged only once N replicas of its shard hold "
	  "it (insert_quorum; 0 or 1: one replica)", NULL },
	{ "clickhouse-writers", LRU_SET_INT, F(ch_writers), "1", 1, 16, "N",
	  "rounds of INSERTs in flight at once (each takes up to batch-max queued snapshots); "
	  "ClickHouse 18.16 runs one quorum INSERT into a table at a time, so more than one "
	  "helps only without a quorum", NULL },
	{ "clickhouse-insert-interval", LRU_SET_DURATION, F(ch_insert_interval_ms), "5s", 0, MIN,
	  "DUR", "a round of INSERTs starts this long after the last one began at the "
	  "soonest, or once batch-max snapshots wait or none came for 100 ms: fewer, larger "
	  "rounds cost the cluster far less (each round makes a part in every table that "
	  "the replicas fetch and merge); an answer waits up to this much longer (0: a "
	  "round starts as soon as a snapshot is queued)", NULL },
	{ "clickhouse-connect-timeout", LRU_SET_DURATION, F(ch_connect_timeout_ms), "2s", 100,
	  MIN, "DUR", "time limit to connect to one ClickHouse server (then the next)", NULL },
	{ "clickhouse-timeout", LRU_SET_DURATION, F(ch_timeout_ms), "30s", SEC, HOUR, "DUR",
	  "time limit of one ClickHouse request", NULL },
	{ "clickhouse-rollup-after", LRU_SET_DURATION, F(ch_rollup_after_ms), "30m", SEC, 3650 * DAY,
	  "DUR",
	  "roll each hour's raw working-set samples up this long after the hour ends (wss "
	  "reads a rolled-up hour as one row per job and bucket); samples that arrive more "
	  "than two thirds of it after their hour go to the rollups directly. Keep it well "
	  "above clickhouse-timeout", NULL },
	{ "clickhouse-rollup-spill", LRU_SET_SIZE, F(ch_rollup_spill), "512M", 0, 1LL << 40, "SIZE",
	  "a roll-up's GROUP BY holds this much memory on a server at most, then spills to "
	  "disk (max_bytes_before_external_group_by): an hour of any size rolls up, slower "
	  "past it. 0: never spills (an hour larger than the servers' memory limit fails to "
	  "roll up, is tried again, and counts from its raw samples meanwhile)", NULL },
	{ "clickhouse-rollup-memory", LRU_SET_SIZE, F(ch_rollup_memory), "0", 0, 1LL << 40, "SIZE",
	  "memory one roll-up may use on a server (its max_memory_usage), above "
	  "clickhouse-rollup-spill (twice it is ClickHouse's advice). 0: the servers' own limit "
	  "(the user's profile)", NULL },

	{ "limits", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "max-connections", LRU_SET_INT, F(max_connections), "4096", 16, 1000000, "N",
	  "connections open at once at most, all clients together (more are closed at once; "
	  "the open-files limit is raised to fit)", NULL },
	{ "max-connections-per-ip", LRU_SET_INT, F(max_conn_per_ip), "64", 0, 1000000, "N",
	  "connections open at once from one address at most (0: no limit, e.g. behind a "
	  "proxy that is the only client)", NULL },
	{ "idle-timeout", LRU_SET_DURATION, F(idle_timeout_ms), "30s", SEC, HOUR, "DUR",
	  "close a connection that sends nothing (headers, body) and reads nothing this long", NULL },
	{ "memory-budget", LRU_SET_SIZE, F(memory_budget), "512M", 16LL << 20, 1LL << 40, "SIZE",
	  "bytes held at once for request bodies, decoded snapshots waiting for the writer and "
	  "answers being sent (503 with Retry-After past it); the store's memory is this plus "
	  "the sqlite caches and a fixed overhead", NULL },
	{ "max-clock-skew", LRU_SET_DURATION, F(max_skew_ms), "5m", 0, DAY, "DUR",
	  "refuse (400) a snapshot read more than this ahead of the store's clock", NULL },
	{ "max-body", LRU_SET_SIZE, F(max_body), "16M", 4096, 1LL << 30, "SIZE",
	  "largest request body, before and after gzip decompression (413 past it)", NULL },
	{ "queue-max", LRU_SET_INT, F(queue_max), "20000", 1, 10000000, "N",
	  "snapshots waiting for the writer at most (503 past it: the collector retries)", NULL },

	{ "writing", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "batch-max", LRU_SET_INT, F(batch_max), "2000", 1, 1000000, "N",
	  "snapshots committed in one transaction at most (group commit)", NULL },
	{ "commit-delay", LRU_SET_DURATION, F(commit_delay_ms), "20ms", 0, 10 * SEC, "DUR",
	  "a thin commit (fewer snapshots queued than the last one took, or one) waits up "
	  "to this long after its first snapshot arrived, so that snapshots trickling in "
	  "share one fsync; not while requests come further apart than this (0: never)", NULL },
	{ "sync", LRU_SET_ENUM, F(sync), "full", 0, 0, "MODE",
	  "full: fsync the WAL at each commit (acknowledged snapshots survive power loss); "
	  "normal: not (they survive a crash or kill -9 of the store, not of the machine)",
	  sync_names },
	{ "cache", LRU_SET_SIZE, F(cache_bytes), "256M", 1 << 20, 1LL << 40, "SIZE",
	  "sqlite page cache of the writer", NULL },

	{ "retention", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "raw-retention", LRU_SET_DURATION, F(raw_retention_ms), "2d", HOUR, 3650 * DAY, "DUR",
	  "keep raw snapshots (every generation) this long; hourly rollups stay longer", NULL },
	{ "rollup-retention", LRU_SET_DURATION, F(rollup_retention_ms), "400d", DAY, 36500 * DAY, "DUR",
	  "keep hourly working-set rollups this long", NULL },
	{ "rollup-flush", LRU_SET_DURATION, F(rollup_flush_ms), "1m", SEC, HOUR, "DUR",
	  "write the in-memory hourly rollups to the database this often", NULL },
	{ "maintenance-interval", LRU_SET_DURATION, F(maintenance_ms), "1m", SEC, DAY, "DUR",
	  "look for expired snapshots and rollups this often (ClickHouse: also roll hours "
	  "up and compact the latest-state tables)", NULL },
	{ "stale-after", LRU_SET_DURATION, F(stale_after_ms), "10m", 0, 365 * DAY, "DUR",
	  "rank leaves out hosts whose latest snapshot is older than this (0: never)", NULL },

	{ "process", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	CONF_LOG_LEVEL(struct store_config, log_level),
	{ "insecure-no-auth", LRU_SET_BOOL, F(insecure_no_auth), "false", 0, 0, NULL,
	  "accept every request without a token (local demos only: anyone who reaches the "
	  "port can write and read)", NULL },
};

#define NR_DEFS (sizeof(defs) / sizeof(defs[0]))

static const char usage[] =
	"usage: lrugen-store --db FILE [--listen ADDR:PORT] [--config FILE] [SETTING FLAGS...]\n"
	"       lrugen-store --hash-token < TOKENFILE\n"
	"       lrugen-store --db FILE --migrate\n"
	"       lrugen-store --backend clickhouse --clickhouse-url URL,... [--migrate]\n"
	"       lrugen-store --backend clickhouse --clickhouse-url URL,... --import-sqlite FILE\n"
	"\n"
	"The central store of lrugen: collectors (lrugend) POST their snapshots to\n"
	"/v1/snapshots, 'lrugen fleet' asks /v1/hosts, cold, rank, wss, timeline and\n"
	"capacity. One sqlite file; no other server to run.\n"
	"\n"
	"run modes:\n"
	"  --config FILE                  settings and tokens ('name = value' lines)\n"
	"  --hash-token                   read a token on standard input, print its\n"
	"                                 SHA-256 for an 'ingest-token = HASH host=NAME',\n"
	"                                 'read-token = HASH' or 'admin-token = HASH' line\n"
	"                                 of the config file\n"
	"  --migrate                      create or upgrade the database schema, then exit\n"
	"  --import-sqlite FILE           copy the sqlite store FILE (its raw snapshots and\n"
	"                                 the hourly rollups of older hours) into the\n"
	"                                 ClickHouse database of the settings, then exit;\n"
	"                                 run again, it counts nothing twice\n"
	"  --print-config                 print the effective settings and tokens and exit\n"
	"  -h, --help, --version\n";

static const struct {
	const char *name;
	enum token_role role;
} token_kinds[] = {
	{ "ingest-token", ROLE_INGEST }, { "read-token", ROLE_READ }, { "admin-token", ROLE_ADMIN },
};

#define NR_KINDS (sizeof(token_kinds) / sizeof(token_kinds[0]))

static int parse_hex(const char *s, size_t len, uint8_t *out)
{
	if (len != 64)
		return -1;
	for (size_t i = 0; i < 32; i++) {
		int hi = isxdigit((unsigned char)s[2 * i]), lo = isxdigit((unsigned char)s[2 * i + 1]);
		char byte[3] = { s[2 * i], s[2 * i + 1], 0 };

		if (!hi || !lo)
			return -1;
		out[i] = (uint8_t)strtoul(byte, NULL, 16);
	}
	return 0;
}

/* "HASH [host=NAME]", the value of a token line */
static enum lru_err add_token(struct store_config *cfg, enum token_role role, char *value,
			      struct lru_error *err)
{
	char *save = NULL, *hash = strtok_r(value, " \t", &save), *opt;
	struct store_token t = { .role = role }, *v;
	bool have_host = false;

	if (!hash || parse_hex(hash, strlen(hash), t.hash))
		return lru_fail(err, LRU_EINVAL, "a token line needs the token's SHA-256 in hex "
				"(64 characters; 'lrugen-store --hash-token' prints it)");
	while ((opt = strtok_r(NULL, " \t", &save))) {
		if (role != ROLE_INGEST || strncmp(opt, "host=", 5) || !opt[5] || have_host) {
			free(t.host);
			return lru_fail(err, LRU_EINVAL, "unexpected '%s' on a token line (only ingest "
					"tokens take one host=NAME or host=*)", opt);
		}
		have_host = true;
		if (strcmp(opt + 5, "*") && !(t.host = strdup(opt + 5)))
			return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	if (role == ROLE_INGEST && !have_host)
		return lru_fail(err, LRU_EINVAL,
				"an ingest token needs host=NAME (or host=* for any host)");
	v = realloc(cfg->tokens, (cfg->nr_tokens + 1) * sizeof(*v));
	if (!v) {
		free(t.host);
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	v[cfg->nr_tokens++] = t;
	cfg->tokens = v;
	return LRU_OK;
}

/* conf_prog.line: the token lines */
static int token_line(void *cfg, const char *name, char *value, struct lru_error *err)
{
	for (size_t i = 0; i < NR_KINDS; i++)
		if (!strcmp(name, token_kinds[i].name))
			return add_token(cfg, token_kinds[i].role, value, err) ? -1 : 1;
	return 0;
}

/* conf_prog.print: the token lines, as they read back */
static void print_tokens(const void *cfg, FILE *out)
{
	const struct store_config *c = cfg;

	fputs("\n# --- tokens ---\n# who may do what: the SHA-256 of each token "
	      "('lrugen-store --hash-token')\n", out);
	for (size_t i = 0; i < c->nr_tokens; i++) {
		const struct store_token *t = &c->tokens[i];
		const char *kind = "admin-token";

		for (size_t k = 0; k < NR_KINDS; k++)
			if (token_kinds[k].role == t->role)
				kind = token_kinds[k].name;
		fprintf(out, "%s = ", kind);
		for (size_t b = 0; b < sizeof(t->hash); b++)
			fprintf(out, "%02x", t->hash[b]);
		if (t->role == ROLE_INGEST)
			fprintf(out, " host=%s", t->host ? t->host : "*");
		fputc('\n', out);
	}
}

static void release_tokens(void *cfg)
{
	struct store_config *c = cfg;

	for (size_t i = 0; i < c->nr_tokens; i++)
		free(c->tokens[i].host);
	free(c->tokens);
	c->tokens = NULL;
	c->nr_tokens = 0;
}

static enum lru_err validate(const void *cfg, struct lru_error *err)
{
	const struct store_config *c = cfg;

	if (!c->tls_cert[0] != !c->tls_key[0])
		return lru_fail(err, LRU_EINVAL, "TLS needs both tls-cert and tls-key");
	if (c->backend == BACKEND_CLICKHOUSE && !c->ch_urls.n)
		return lru_fail(err, LRU_EINVAL, "backend clickhouse needs clickhouse-url "
				"(http://HOST:8123, several comma-separated)");
	for (size_t i = 0; i < c->ch_urls.n; i++)
		if (strncmp(c->ch_urls.v[i], "http://", 7) && strncmp(c->ch_urls.v[i], "https://", 8))
			return lru_fail(err, LRU_EINVAL, "clickhouse-url '%s' is not an http:// "
					"or https:// URL", c->ch_urls.v[i]);
	if (c->ch_rollup_memory && c->ch_rollup_spill >= c->ch_rollup_memory) {
		char sp[32], mem[32];

		return lru_fail(err, LRU_EINVAL, "clickhouse-rollup-spill (%s) must be under "
				"clickhouse-rollup-memory (%s; half of it is ClickHouse's advice): a "
				"roll-up would fail before it spills",
				lru_fmt_bytes(c->ch_rollup_spill, sp, sizeof(sp)),
				lru_fmt_bytes(c->ch_rollup_memory, mem, sizeof(mem)));
	}
	return LRU_OK;
}

const struct conf_prog store_conf = {
	.name = "lrugen-store",
	.size = sizeof(struct store_config),
	.defs = defs,
	.nr_defs = NR_DEFS,
	.usage = usage,
	.line = token_line,
	.print = print_tokens,
	.check = validate,
	.release = release_tokens,
};
