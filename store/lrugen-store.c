/*
 * lrugen-store - the central store: authenticated ingest of snapshots into
 * sqlite, fleet queries as JSON over HTTP (see http.h, db.h, query.h).
 *
 * Threads: libmicrohttpd's pool decodes requests and runs queries; one
 * writer thread owns every write (db.c); the main thread waits for
 * SIGINT/SIGTERM and then shuts down in order: stop accepting, let the
 * writer commit and acknowledge everything queued, stop HTTP, close.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "config.h"
#include "db.h"
#include "http.h"
#include "log.h"
#include "lru_esc.h"
#include "lru_model.h"
#include "metrics.h"

/* --hash-token: the token is one line on standard input, never an argument */
static int hash_token(void)
{
	char token[4096], hex[65];
	size_t n = fread(token, 1, sizeof(token) - 1, stdin);

	token[n] = '\0';
	n = strcspn(token, "\r\n");
	if (!n) {
		fputs("lrugen-store: --hash-token reads the token on standard input "
		      "(lrugen-store --hash-token < token-file)\n", stderr);
		return 2;
	}
	auth_hash_hex(token, n, hex);
	memset(token, 0, sizeof(token));
	puts(hex);
	return fflush(stdout) ? 1 : 0;
}

/* A one-line startup error on stderr, controls escaped like every log line. */
static void fatal(const char *msg)
{
	char text[1024];

	lru_esc(text, sizeof(text), msg, strlen(msg), LRU_ESC_TERM);
	fprintf(stderr, "lrugen-store: %s\n", text);
}

int main(int argc, char **argv)
{
	static struct metrics metrics;
	struct store_config cfg;
	struct store_ctx ctx = { 0 };
	struct http_server *http = NULL;
	struct store_db *db = NULL;
	enum config_action action;
	char msg[512];
	sigset_t sigs;
	int sig = 0;

	if (config_load(&cfg, argc, argv, &action, msg, sizeof(msg))) {
		fatal(msg);
		config_release(&cfg);
		return 2;
	}
	switch (action) {
	case RUN_HELP:
		config_usage(stdout);
		config_release(&cfg);
		return 0;
	case RUN_VERSION:
		puts("lrugen-store " LRUGEN_VERSION);
		config_release(&cfg);
		return 0;
	case RUN_HASH_TOKEN:
		config_release(&cfg);
		return hash_token();
	default:
		break;
	}
	log_set_level((enum log_level)cfg.log_level);

	/* every thread inherits the mask: only the main thread takes signals */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (db_open(&db, &cfg, &metrics, action == RUN_MIGRATE, msg, sizeof(msg))) {
		fatal(msg);
		db_close(db);
		config_release(&cfg);
		return 1;
	}
	if (action == RUN_MIGRATE) {
		db_close(db);
		config_release(&cfg);
		return 0;
	}
	ctx.cfg = &cfg;
	ctx.db = db;
	ctx.m = &metrics;
	ctx.started_ms = lru_now_ms();
	if (http_start(&http, &ctx, msg, sizeof(msg))) {
		fatal(msg);
		db_close(db);
		config_release(&cfg);
		return 1;
	}
	log_info("database '%s' (sync=%s, raw snapshots kept %llus, %zu tokens)", cfg.db,
		 cfg.sync == SYNC_FULL ? "full" : "normal",
		 (unsigned long long)(cfg.raw_retention_ms / 1000), cfg.nr_tokens);
	while (sigwait(&sigs, &sig) == EINTR)
		;
	log_info("signal %d: finishing the requests in flight", sig);
	http_quiesce(http);
	db_stop_writer(db);	/* commits and acknowledges every queued job */
	http_stop(http);
	db_close(db);
	config_release(&cfg);
	log_info("stopped");
	return 0;
}
