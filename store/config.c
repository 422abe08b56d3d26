/* config.c - the settings table and everything generated from it. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "lru_settings.h"
#include "lru_units.h"

#define F(field) offsetof(struct store_config, field)
#define SEC 1000LL
#define MIN (60 * SEC)
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)

static const char *const sync_names[] = { "normal", "full", NULL };
static const char *const level_names[] = { "debug", "info", "warning", "error", NULL };

static const struct lru_set_def defs[] = {
	{ "db", LRU_SET_STRING, F(db), "", 0, 0, "FILE",
	  "sqlite database file, created with its schema when missing", NULL },
	{ "listen", LRU_SET_STRING, F(listen), "127.0.0.1:7070", 0, 0, "ADDR:PORT",
	  "address to serve HTTP on (port 0: any free port, logged)", NULL },
	{ "threads", LRU_SET_INT, F(threads), "4", 1, 64, "N",
	  "HTTP worker threads (libmicrohttpd thread pool)", NULL },
	{ "tls-cert", LRU_SET_STRING, F(tls_cert), "", 0, 0, "FILE",
	  "PEM certificate: serve HTTPS (with tls-key)", NULL },
	{ "tls-key", LRU_SET_STRING, F(tls_key), "", 0, 0, "FILE", "PEM private key of tls-cert", NULL },
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
	{ "raw-retention", LRU_SET_DURATION, F(raw_retention_ms), "2d", HOUR, 3650 * DAY, "DUR",
	  "keep raw snapshots (every generation) this long; hourly rollups stay longer", NULL },
	{ "rollup-retention", LRU_SET_DURATION, F(rollup_retention_ms), "400d", DAY, 36500 * DAY, "DUR",
	  "keep hourly working-set rollups this long", NULL },
	{ "rollup-flush", LRU_SET_DURATION, F(rollup_flush_ms), "1m", SEC, HOUR, "DUR",
	  "write the in-memory hourly rollups to the database this often", NULL },
	{ "maintenance-interval", LRU_SET_DURATION, F(maintenance_ms), "1m", SEC, DAY, "DUR",
	  "look for expired snapshots and rollups this often", NULL },
	{ "stale-after", LRU_SET_DURATION, F(stale_after_ms), "10m", 0, 365 * DAY, "DUR",
	  "rank leaves out hosts whose latest snapshot is older than this (0: never)", NULL },
	{ "log-level", LRU_SET_ENUM, F(log_level), "info", 0, 0, "LEVEL",
	  "least important log lines written", level_names },
	{ "insecure-no-auth", LRU_SET_BOOL, F(insecure_no_auth), "false", 0, 0, NULL,
	  "accept every request without a token (local demos only: anyone who reaches the "
	  "port can write and read)", NULL },
};

#define NR_DEFS (sizeof(defs) / sizeof(defs[0]))

static const struct {
	const char *name;
	enum token_role role;
} token_kinds[] = {
	{ "ingest-token", ROLE_INGEST }, { "read-token", ROLE_READ }, { "admin-token", ROLE_ADMIN },
};

/* "tls_cert" and "tls-cert" are the same name */
static const struct lru_set_def *find_def(const char *name, size_t len)
{
	return lru_set_find(defs, NR_DEFS, name, len);
}

/* Set d from text s; errors name the setting and the value. */
static int set_value(struct store_config *cfg, const struct lru_set_def *d, const char *s,
		     char *errbuf, size_t size)
{
	struct lru_error err;

	if (lru_set_value(cfg, d, s, true, &err))
		return errorf(errbuf, size, "'%s' %s: %s", d->name, s, err.msg);
	return 0;
}

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

/* "HASH [host=NAME]" after a token keyword */
static int add_token(struct store_token **tokens, size_t *nr, enum token_role role, char *rest,
		     char *errbuf, size_t size)
{
	char *save = NULL, *hash = strtok_r(rest, " \t", &save), *opt;
	struct store_token t = { .role = role }, *v;
	bool have_host = false;

	if (!hash || parse_hex(hash, strlen(hash), t.hash))
		return errorf(errbuf, size, "a token line needs the token's SHA-256 in hex "
			    "(64 characters; 'lrugen-store --hash-token' prints it)");
	while ((opt = strtok_r(NULL, " \t", &save))) {
		if (role != ROLE_INGEST || strncmp(opt, "host=", 5) || !opt[5] || have_host) {
			free(t.host);
			return errorf(errbuf, size, "unexpected '%s' on a token line (only ingest tokens "
				    "take one host=NAME or host=*)", opt);
		}
		have_host = true;
		if (strcmp(opt + 5, "*") && !(t.host = strdup(opt + 5)))
			return errorf(errbuf, size, "out of memory");
	}
	if (role == ROLE_INGEST && !have_host)
		return errorf(errbuf, size, "an ingest token needs host=NAME (or host=* for any host)");
	v = realloc(*tokens, (*nr + 1) * sizeof(*v));
	if (!v) {
		free(t.host);
		return errorf(errbuf, size, "out of memory");
	}
	v[(*nr)++] = t;
	*tokens = v;
	return 0;
}

/*
 * Read a config file: settings into cfg (when not NULL) and token lines
 * into tokens.
 */
static int read_file(const char *file, struct store_config *cfg, struct store_token **tokens,
		     size_t *nr, char *errbuf, size_t size)
{
	char line[4096], msg[512];
	FILE *f = fopen(file, "r");
	int lineno = 0, rc = 0;

	if (!f)
		return errorf(errbuf, size, "cannot read config '%s': %s", file, strerror(errno));
	while (!rc && fgets(line, sizeof(line), f)) {
		char *s, *name, *value;
		size_t len;
		bool is_token = false;

		lineno++;
		s = line + strcspn(line, "#");
		*s = '\0';
		s = lru_set_trim(line);
		if (!*s)
			continue;
		name = s;
		len = strcspn(s, " \t=");
		value = s + len;
		value += strspn(value, " \t");
		if (*value == '=')
			value = lru_set_trim(value + 1);
		for (size_t i = 0; i < sizeof(token_kinds) / sizeof(token_kinds[0]); i++) {
			if (lru_set_same_name(token_kinds[i].name, name, len)) {
				is_token = true;
				rc = add_token(tokens, nr, token_kinds[i].role, value, msg, sizeof(msg));
			}
		}
		if (!is_token && cfg) {
			const struct lru_set_def *d = find_def(name, len);

			if (!d)
				rc = errorf(msg, sizeof(msg), "unknown setting '%.*s'", (int)len, name);
			else
				rc = set_value(cfg, d, value, msg, sizeof(msg));
		}
		if (rc)
			errorf(errbuf, size, "config '%s' line %d: %s", file, lineno, msg);
	}
	if (!rc && ferror(f))
		rc = errorf(errbuf, size, "cannot read config '%s'", file);
	fclose(f);
	return rc;
}

int config_load_tokens(const char *file, struct store_token **tokens, size_t *nr,
		       char *errbuf, size_t size)
{
	*tokens = NULL;
	*nr = 0;
	if (read_file(file, NULL, tokens, nr, errbuf, size)) {
		config_free_tokens(*tokens, *nr);
		*tokens = NULL;
		*nr = 0;
		return -1;
	}
	return 0;
}

void config_free_tokens(struct store_token *tokens, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(tokens[i].host);
	free(tokens);
}

#define OPT_CONFIG 1000
#define OPT_MIGRATE 1001
#define OPT_HASH 1002
#define OPT_VERSION 1003
#define OPT_SETTING 2000

int config_load(struct store_config *cfg, int argc, char **argv, enum config_action *action,
		char *errbuf, size_t size)
{
	struct option opts[NR_DEFS + 6];
	size_t i;
	int opt, pass;

	memset(cfg, 0, sizeof(*cfg));
	*action = RUN_SERVER;
	for (i = 0; i < NR_DEFS; i++) {
		if (set_value(cfg, &defs[i], defs[i].def, errbuf, size))
			return -1;
		opts[i] = (struct option){ defs[i].name,
					   defs[i].type == LRU_SET_BOOL ? optional_argument
								    : required_argument,
					   NULL, OPT_SETTING + (int)i };
	}
	opts[i++] = (struct option){ "config", required_argument, NULL, OPT_CONFIG };
	opts[i++] = (struct option){ "migrate", no_argument, NULL, OPT_MIGRATE };
	opts[i++] = (struct option){ "hash-token", no_argument, NULL, OPT_HASH };
	opts[i++] = (struct option){ "version", no_argument, NULL, OPT_VERSION };
	opts[i++] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[i] = (struct option){ NULL, 0, NULL, 0 };

	/* pass 0 finds --config and the actions, pass 1 applies settings over the file */
	for (pass = 0; pass < 2; pass++) {
		optind = 0;
		opterr = 0;
		while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
			if (opt == '?' || opt == ':') {
				if (optopt)
					return errorf(errbuf, size, "unknown option '-%c' (see --help)",
						    optopt);
				return errorf(errbuf, size, "unknown option or missing value '%s' "
					    "(see --help)", argv[optind - 1]);
			}
			if (pass == 1) {
				const struct lru_set_def *d;

				if (opt < OPT_SETTING)
					continue;
				d = &defs[opt - OPT_SETTING];
				if (set_value(cfg, d, optarg ? optarg : "true", errbuf, size))
					return -1;
				continue;
			}
			switch (opt) {
			case 'h':
				*action = RUN_HELP;
				return 0;
			case OPT_VERSION:
				*action = RUN_VERSION;
				return 0;
			case OPT_HASH:
				*action = RUN_HASH_TOKEN;
				break;
			case OPT_MIGRATE:
				*action = RUN_MIGRATE;
				break;
			case OPT_CONFIG:
				free(cfg->config_file);
				cfg->config_file = strdup(optarg);
				if (!cfg->config_file)
					return errorf(errbuf, size, "out of memory");
				break;
			}
		}
		if (optind < argc)
			return errorf(errbuf, size, "unexpected argument '%s' (see --help)", argv[optind]);
		if (pass == 0 && cfg->config_file &&
		    read_file(cfg->config_file, cfg, &cfg->tokens, &cfg->nr_tokens, errbuf, size))
			return -1;
	}
	if (*action == RUN_HASH_TOKEN)
		return 0;
	if (!cfg->db[0])
		return errorf(errbuf, size, "no database: pass --db FILE (or 'db FILE' in the config)");
	if (!cfg->tls_cert[0] != !cfg->tls_key[0])
		return errorf(errbuf, size, "TLS needs both tls-cert and tls-key");
	if (*action == RUN_SERVER && !cfg->nr_tokens && !cfg->insecure_no_auth)
		return errorf(errbuf, size, "no tokens configured: add ingest-token/read-token/"
			    "admin-token lines to a --config file, or pass --insecure-no-auth "
			    "for a local demo");
	return 0;
}

void config_release(struct store_config *cfg)
{
	lru_set_release(cfg, defs, NR_DEFS);
	free(cfg->config_file);
	config_free_tokens(cfg->tokens, cfg->nr_tokens);
	memset(cfg, 0, sizeof(*cfg));
}

void config_usage(FILE *out)
{
	fputs("usage: lrugen-store --db FILE [--listen ADDR:PORT] [--config FILE] [OPTIONS]\n"
	      "       lrugen-store --hash-token < TOKENFILE\n"
	      "       lrugen-store --db FILE --migrate\n"
	      "\n"
	      "The central store of lrugen: collectors (lrugend) POST their snapshots to\n"
	      "/v1/snapshots, 'lrugen fleet' asks /v1/hosts, cold, rank, wss, timeline and\n"
	      "capacity. One sqlite file; no other server to run.\n"
	      "\n"
	      "  --config FILE       settings and tokens, one per line ('NAME VALUE');\n"
	      "                      the command line overrides the file\n"
	      "  --hash-token        read a token on standard input, print its SHA-256 for\n"
	      "                      an 'ingest-token HASH host=NAME', 'read-token HASH' or\n"
	      "                      'admin-token HASH' line of the config file\n"
	      "  --migrate           create or upgrade the database schema, then exit\n"
	      "  --version, -h/--help\n"
	      "\n"
	      "settings (--NAME VALUE on the command line, 'NAME VALUE' in the file):\n", out);
	for (size_t i = 0; i < NR_DEFS; i++) {
		const struct lru_set_def *d = &defs[i];
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", d->name, d->arg ? " " : "",
			 d->arg ? d->arg : "");
		fprintf(out, "  %-26s %s", left, d->help);
		if (d->def[0])
			fprintf(out, " (default %s)", d->def);
		fputc('\n', out);
	}
	fputs("\nDurations: 30s 2m 1h 7d. Sizes: 4096 512K 16M 1G.\n", out);
}
