/*
 * lrugen-store - the central store: authenticated ingest of snapshots into
 * sqlite, fleet queries as JSON over HTTP (see http.h, db.h, query.h).
 *
 * Threads: libmicrohttpd's pool decodes requests and runs queries; one
 * writer thread owns every write (db.c); the main thread waits for
 * SIGINT/SIGTERM and then shuts down in order: stop accepting, let the
 * writer commit and acknowledge everything queued, stop HTTP, close.
 * SIGHUP reads the config file and flags again (reload()).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "ch.h"
#include "config.h"
#include "db.h"
#include "http.h"
#include "import.h"
#include "log.h"
#include "lru_client.h"
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

/* What a run does besides serving: the store's own options. */
enum run_mode { RUN_SERVER, RUN_MIGRATE, RUN_HASH_TOKEN, RUN_IMPORT };

enum { OPT_MIGRATE = 0x1000, OPT_HASH_TOKEN, OPT_IMPORT };

static const struct option run_opts[] = {
	{ "migrate", no_argument, NULL, OPT_MIGRATE },
	{ "hash-token", no_argument, NULL, OPT_HASH_TOKEN },
	{ "import-sqlite", required_argument, NULL, OPT_IMPORT },
	{ NULL, 0, NULL, 0 },
};

struct run {
	enum run_mode mode;
	const char *import;	/* --import-sqlite FILE */
};

static int run_option(void *arg, int opt, const char *optarg, struct lru_error *err)
{
	struct run *run = arg;

	(void)err;
	run->mode = opt == OPT_MIGRATE ? RUN_MIGRATE : opt == OPT_IMPORT ? RUN_IMPORT
		    : RUN_HASH_TOKEN;
	if (opt == OPT_IMPORT)
		run->import = optarg;
	return 0;
}

/* A server's own rule, at start and on reload: tokens, unless it runs without auth. */
static int reload_check(void *arg, const void *c, struct lru_error *err)
{
	const struct store_config *cfg = c;

	(void)arg;
	if (!cfg->nr_tokens && !cfg->insecure_no_auth)
		return lru_fail(err, LRU_EINVAL, "no tokens configured: add ingest-token/read-token/"
				"admin-token lines to a --config file, or pass --insecure-no-auth "
				"for a local demo"), -1;
	return 0;
}

/* Settings and mode from the command line and the config file, checked for the mode. */
static int load(struct store_config *cfg, struct conf_src *src, int argc, char **argv,
		struct run *run, struct lru_error *err)
{
	enum run_mode *mode = &run->mode;
	enum conf_action action = conf_args(&store_conf, src, argc, argv, run_opts, run_option, run,
					    err);

	if (action == CONF_HELP || action == CONF_VERSION) {
		if (action == CONF_HELP)
			conf_usage(&store_conf, stdout);
		else
			conf_version(&store_conf, stdout);
		return fflush(stdout) || ferror(stdout) ? 1 : 0;
	}
	if (action == CONF_BAD || conf_load(&store_conf, cfg, src, err))
		return 2;
	if (action == CONF_PRINT) {
		conf_print(&store_conf, cfg, stdout);
		return fflush(stdout) || ferror(stdout) ? 1 : 0;
	}
	if (*mode == RUN_HASH_TOKEN)
		return -1;
	if (*mode == RUN_IMPORT && cfg->backend != BACKEND_CLICKHOUSE) {
		lru_fail(err, LRU_EINVAL, "--import-sqlite FILE moves a sqlite store into ClickHouse: "
			 "pass the clickhouse settings too (--backend clickhouse --clickhouse-url URL)");
		return 2;
	}
	if (cfg->backend == BACKEND_SQLITE && !cfg->db[0]) {
		lru_fail(err, LRU_EINVAL, "no database: pass --db FILE (or 'db = FILE' in the config), "
			 "or --backend clickhouse --clickhouse-url URL");
		return 2;
	}
	return *mode == RUN_SERVER && reload_check(NULL, cfg, err) ? 2 : -1;
}

/* The configs a reload replaced: kept until exit (see store_ctx.auth). */
struct retired {
	struct store_config **v;
	size_t n;
};

/*
 * SIGHUP: build a new config from the same file and flags. The tokens and the
 * log level take effect at once; every other setting at the next start (a
 * reload says which changed). An invalid file keeps the old config.
 */
static void reload(struct store_ctx *ctx, const struct conf_src *src, struct retired *old)
{
	const struct store_config *cur = atomic_load(&ctx->auth);
	struct store_config *next = calloc(1, sizeof(*next)), **grown;

	grown = next ? realloc(old->v, (old->n + 1) * sizeof(*old->v)) : NULL;
	if (!grown) {
		log_error("reload: out of memory; keeping the old configuration");
		free(next);
		return;
	}
	old->v = grown;
	if (conf_reload(&store_conf, src, cur, next, reload_check, NULL) < 0) {
		free(next);
		return;
	}
	log_set_level((enum log_level)next->log_level);
	atomic_store(&ctx->auth, next);
	old->v[old->n++] = next;
	log_info("reload: %zu tokens and log-level %s in effect; other settings take effect "
		 "at the next start", next->nr_tokens, log_level_names[next->log_level]);
}

/* What main holds after load: released at every exit. */
static int finish(struct store_config *cfg, struct conf_src *src, struct retired *old, int rc)
{
	for (size_t i = 0; i < old->n; i++) {
		conf_release(&store_conf, old->v[i]);
		free(old->v[i]);
	}
	free(old->v);
	conf_src_release(src);
	conf_release(&store_conf, cfg);
	return rc;
}

static void close_backend(struct store_db *db, struct ch *ch)
{
	if (ch) {
		ch_close(ch);
		lru_client_global_cleanup();
	}
	db_close(db);
}

int main(int argc, char **argv)
{
	static struct metrics metrics;
	struct store_config cfg = { 0 };
	struct conf_src src = { 0 };
	struct store_ctx ctx = { 0 };
	struct retired old = { 0 };
	struct http_server *http = NULL;
	struct store_db *db = NULL;
	struct ch *ch = NULL;
	struct run run = { RUN_SERVER, NULL };
	struct lru_error err;
	char msg[512];
	sigset_t sigs;
	int sig = 0, rc;

	log_init("lrugen-store", true);
	lru_error_clear(&err);
	rc = load(&cfg, &src, argc, argv, &run, &err);
	if (rc >= 0) {
		if (rc == 2)
			log_fatal("%s", err.msg);
		return finish(&cfg, &src, &old, rc);
	}
	if (run.mode == RUN_HASH_TOKEN)
		return finish(&cfg, &src, &old, hash_token());
	log_set_level((enum log_level)cfg.log_level);

	/* every thread inherits the mask: only the main thread takes signals */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (run.mode == RUN_IMPORT) {
		rc = lru_client_global_init(&err) ? -1
		     : import_sqlite(&cfg, &metrics, run.import, msg, sizeof(msg));
		if (rc)
			log_fatal("%s", err.code ? err.msg : msg);
		lru_client_global_cleanup();
		return finish(&cfg, &src, &old, rc ? 1 : 0);
	}
	if (cfg.backend == BACKEND_CLICKHOUSE) {
		rc = lru_client_global_init(&err) ? -1
		     : ch_open(&ch, &cfg, &metrics, run.mode == RUN_MIGRATE, msg, sizeof(msg));
	} else {
		rc = db_open(&db, &cfg, &metrics, run.mode == RUN_MIGRATE, msg, sizeof(msg));
	}
	if (rc || run.mode == RUN_MIGRATE) {
		if (rc)
			log_fatal("%s", err.code ? err.msg : msg);
		close_backend(db, ch);
		return finish(&cfg, &src, &old, rc ? 1 : 0);
	}
	ctx.cfg = &cfg;
	atomic_init(&ctx.auth, &cfg);
	ctx.db = db;
	ctx.ch = ch;
	ctx.m = &metrics;
	ctx.started_ms = lru_now_ms();
	if (http_start(&http, &ctx, msg, sizeof(msg))) {
		log_fatal("%s", msg);
		close_backend(db, ch);
		return finish(&cfg, &src, &old, 1);
	}
	if (ch)
		log_info("clickhouse database '%s' at %zu URLs%s%s (%zu tokens)", cfg.ch_database,
			 cfg.ch_urls.n, cfg.ch_cluster[0] ? ", cluster " : "", cfg.ch_cluster,
			 cfg.nr_tokens);
	else
		log_info("database '%s' (sync=%s, raw snapshots kept %llus, %zu tokens)", cfg.db,
			 cfg.sync == SYNC_FULL ? "full" : "normal",
			 (unsigned long long)(cfg.raw_retention_ms / 1000), cfg.nr_tokens);
	for (;;) {
		if (sigwait(&sigs, &sig))
			continue;
		if (sig != SIGHUP)
			break;
		reload(&ctx, &src, &old);
	}
	log_info("signal %d: finishing the requests in flight", sig);
	http_quiesce(http);
	if (ch)
		ch_stop_writer(ch);	/* writes and acknowledges every queued job */
	else
		db_stop_writer(db);	/* commits and acknowledges every queued job */
	http_stop(http);
	close_backend(db, ch);
	log_info("stopped");
	return finish(&cfg, &src, &old, 0);
}
