/*
 * config.h - lrugend's settings, described once in a table.
 *
 * Every setting has a name, a type, a default, a range and a help line in
 * the table in config.c (like redis's standardConfig). The config file
 * ("name = value" lines), the command-line flags (--name VALUE, --name /
 * --no-name for booleans), the defaults, --help, --print-config and SIGHUP
 * reloads come from it through the program layer (daemon/conf.h): pass
 * lrugend_conf to its functions. config.c adds what a table cannot say:
 * the default interface from $LRUGEN_INTERFACE and the checks across
 * settings ("reclaim needs reclaim-include").
 *
 * Ownership: a config owns its strings and lists; conf_release(&lrugend_conf,
 * cfg) frees them. Configs are never copied: a reload builds a new one from
 * the sources and swaps it in.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "conf.h"
#include "log.h"
#include "lru_err.h"
#include "lru_settings.h"


enum cfg_mlock { CFG_MLOCK_OFF = 0, CFG_MLOCK_ONFAULT, CFG_MLOCK_ALL };
enum cfg_damon_stat { CFG_DAMON_STAT_OFF = 0, CFG_DAMON_STAT_KEEP };
/* reclaim-older-than = advised: each memcg's threshold is the store's advice (advice.h) */
#define CFG_ADVISED LRU_SET_MS_WORD(0)

struct config {
	/* collection */
	char *root;			/* "" = / */
	char *host;			/* "" = the kernel's host name */
	uint64_t interval_ms;
	bool jitter;
	int interface;			/* enum lru_iface_mode */
	bool full;
	struct lru_set_list include, exclude;
	bool skip_empty, skip_dying;
	bool memcg_stats;
	/* aging */
	bool age;
	uint64_t age_margin_ms;
	bool can_swap, force_scan;
	int damon_stat;			/* enum cfg_damon_stat */
	/* shipping */
	char *store;			/* "" = do not ship */
	char *token_file;
	char *ca_file;
	bool tls_verify;
	bool gzip;
	uint64_t connect_timeout_ms, timeout_ms;
	uint64_t backoff_min_ms, backoff_max_ms;
	int64_t batch_max_snapshots;
	uint64_t batch_max_bytes;
	/* spool */
	char *spool;
	uint64_t spool_max_bytes, spool_max_age_ms;
	/* metrics */
	char *listen;			/* "" = no endpoint */
	struct lru_set_ms_list metrics_buckets;
	bool metrics_generations;
	/* reclaim policy */
	bool reclaim;
	bool reclaim_dry_run;
	struct lru_set_list reclaim_include, reclaim_exclude;
	uint64_t reclaim_older_than_ms;	/* or CFG_ADVISED */
	uint64_t reclaim_advice_refresh_ms;
	uint64_t reclaim_max_bytes;
	uint64_t reclaim_floor;
	double reclaim_psi_max;
	int64_t reclaim_swappiness;	/* -1 = /proc/sys/vm/swappiness, 201 = max */
	/* process */
	int mlock;			/* enum cfg_mlock */
	int log_level;			/* enum log_level */
};

/* lrugend's settings table and hooks, for the functions of conf.h */
extern const struct conf_prog lrugend_conf;

/* Parse "ADDR:PORT", "[V6ADDR]:PORT" or ":PORT" (any address). */
int config_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len,
			struct lru_error *err);


#endif
