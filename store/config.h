/*
 * config.h - lrugen-store's settings, described once in a table.
 *
 * Every setting has a name, a type, a default, a range and a help line in
 * config.c (like redis's standardConfig); the config file parser, the
 * command-line flags (--NAME VALUE; --NAME alone for a boolean), the
 * defaults, the validation and --help all come from it. Sources, weakest
 * first: defaults, the --config file, the command line.
 *
 * Config file: one setting a line, "NAME VALUE" or "NAME = VALUE"; '#'
 * starts a comment. Tokens are lines of their own:
 *
 *	ingest-token SHA256HEX host=web-1	# may POST snapshots of host web-1
 *	ingest-token SHA256HEX host=*		# of any host (a shared fleet token)
 *	read-token SHA256HEX			# may run queries
 *	admin-token SHA256HEX			# both, for every host
 *
 * where SHA256HEX is the SHA-256 of the token in hex ('lrugen-store
 * --hash-token'): the file never holds a token itself.
 */
#ifndef STORE_CONFIG_H
#define STORE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum token_role { ROLE_INGEST = 1, ROLE_READ = 2, ROLE_ADMIN = ROLE_INGEST | ROLE_READ };

struct store_token {
	enum token_role role;
	uint8_t hash[32];	/* SHA-256 of the token */
	char *host;		/* ingest: the one host it may write; NULL = any */
};

enum sync_mode { SYNC_NORMAL = 0, SYNC_FULL = 1 };

struct store_config {
	char *db;
	char *listen;
	char *tls_cert, *tls_key;
	int64_t threads;
	uint64_t max_body;
	int64_t max_connections, max_conn_per_ip;
	uint64_t idle_timeout_ms, memory_budget, max_skew_ms;
	int64_t queue_max, batch_max;
	uint64_t commit_delay_ms;
	int sync;			/* enum sync_mode */
	uint64_t cache_bytes;
	uint64_t raw_retention_ms, rollup_retention_ms;
	uint64_t rollup_flush_ms, maintenance_ms;
	uint64_t stale_after_ms;
	int log_level;			/* enum log_level */
	bool insecure_no_auth;

	char *config_file;		/* --config, or NULL */
	struct store_token *tokens;
	size_t nr_tokens;
};

/* What main() should do after parsing the command line. */
enum config_action { RUN_SERVER, RUN_MIGRATE, RUN_HASH_TOKEN, RUN_HELP, RUN_VERSION };

/*
 * Parse argv (and the --config file it names) into cfg. Returns 0, or -1
 * with a one-line message in errbuf (exit 2).
 */
int config_load(struct store_config *cfg, int argc, char **argv, enum config_action *action,
		char *errbuf, size_t size);
void config_release(struct store_config *cfg);
/* Re-read only the token lines of cfg->config_file into tokens/nr_tokens. */
int config_load_tokens(const char *file, struct store_token **tokens, size_t *nr,
		       char *errbuf, size_t size);
void config_free_tokens(struct store_token *tokens, size_t nr);
void config_usage(FILE *out);

#endif
