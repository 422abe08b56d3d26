/*
 * config.h - lrugen-store's settings, described once in a table.
 *
 * Every setting has a name, a type, a default, a range and a help line in
 * config.c (like redis's standardConfig); the config file, the flags
 * (--name VALUE), the defaults, --help and --print-config come from it
 * through the program layer (daemon/conf.h): pass store_conf to its
 * functions. Sources, weakest first: defaults, the --config file, the
 * command line.
 *
 * Besides settings, the config file holds the tokens, one a line:
 *
 *	ingest-token = SHA256HEX host=web-1	# may POST snapshots of host web-1
 *	ingest-token = SHA256HEX host=*		# of any host (a shared fleet token)
 *	read-token = SHA256HEX			# may run queries
 *	admin-token = SHA256HEX			# both, for every host
 *
 * where SHA256HEX is the SHA-256 of the token in hex ('lrugen-store
 * --hash-token'): the file never holds a token itself. Old files with
 * "NAME VALUE" lines still load, with a warning.
 */
#ifndef STORE_CONFIG_H
#define STORE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf.h"
#include "lru_settings.h"

enum token_role { ROLE_INGEST = 1, ROLE_READ = 2, ROLE_ADMIN = ROLE_INGEST | ROLE_READ };

struct store_token {
	enum token_role role;
	uint8_t hash[32];	/* SHA-256 of the token */
	char *host;		/* ingest: the one host it may write; NULL = any */
};

enum sync_mode { SYNC_NORMAL = 0, SYNC_FULL = 1 };
enum store_backend { BACKEND_SQLITE = 0, BACKEND_CLICKHOUSE = 1 };

struct store_config {
	int backend;			/* enum store_backend */
	char *db;
	/* backend = clickhouse (store/ch.h) */
	struct lru_set_list ch_urls;
	char *ch_cluster, *ch_database, *ch_user, *ch_password_file;
	uint64_t ch_timeout_ms, ch_connect_timeout_ms, ch_rollup_after_ms;
	uint64_t ch_rollup_spill, ch_rollup_memory;	/* bytes; 0: none of ours */
	uint64_t ch_insert_interval_ms;
	int64_t ch_insert_quorum, ch_writers;
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

	struct store_token *tokens;	/* from the config file's token lines */
	size_t nr_tokens;
};

/* lrugen-store's settings table and hooks (tokens), for the functions of conf.h */
extern const struct conf_prog store_conf;

#endif
