/*
 * config.h - lrugend's settings, described once in a table.
 *
 * Every setting has a name, a type, a default, a range and a help line in
 * the table in config.c (like redis's standardConfig). From that table come
 * the config file parser ("name = value" lines), the command-line flags
 * (--name VALUE, and --name / --no-name for booleans, '_' written '-'),
 * validation, the defaults, --help and --print-config.
 *
 * Sources, weakest first: defaults, the config file, the command line. A
 * list setting (include, exclude, ...) is replaced by its first occurrence
 * in a source; further occurrences in the same source append. A value of a
 * list may hold several items separated by commas (a pattern that needs a
 * literal comma writes it as the glob "[,]"); an empty value clears it.
 *
 * Ownership: a config owns its strings and lists; config_release() frees
 * them. Configs are never copied: a reload builds a new one from the
 * sources and swaps it in.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "log.h"
#include "lru_err.h"
#include "lru_settings.h"


enum cfg_mlock { CFG_MLOCK_OFF = 0, CFG_MLOCK_ONFAULT, CFG_MLOCK_ALL };
enum cfg_damon_stat { CFG_DAMON_STAT_OFF = 0, CFG_DAMON_STAT_KEEP };

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
	uint64_t reclaim_older_than_ms;
	uint64_t reclaim_max_bytes;
	uint64_t reclaim_floor;
	double reclaim_psi_max;
	int64_t reclaim_swappiness;	/* -1 = /proc/sys/vm/swappiness, 201 = max */
	/* process */
	int mlock;			/* enum cfg_mlock */
	int log_level;			/* enum log_level */
};

/* One "--name value" from the command line, applied over the config file. */
struct cfg_override {
	size_t def;		/* index into the table */
	char *value;		/* owned; "true"/"false" for booleans */
};

struct cfg_overrides {
	struct cfg_override *v;
	size_t n;
};

/*
 * Build cfg from defaults, file (NULL = none; a missing file is an error
 * only when required) and overrides, then validate. On failure returns -1
 * with err set ("FILE:LINE: name = value: why", "--flag value: why") and cfg
 * left empty.
 */
int config_load(struct config *cfg, const char *file, bool required,
		const struct cfg_overrides *ov, struct lru_error *err);
void config_release(struct config *cfg);

/*
 * The command-line options of every setting, for getopt_long: val is
 * CFG_OPT_BASE + 2 * index (+ 1 for "--no-NAME"). Caller frees with
 * config_free_options. extra (ending with a zeroed entry) goes first.
 */
#define CFG_OPT_BASE 0x2000
struct option;
struct option *config_options(const struct option *extra);
void config_free_options(struct option *opts);
/* Record a getopt result val (>= CFG_OPT_BASE) with its argument. */
int config_override(struct cfg_overrides *ov, int val, const char *arg, struct lru_error *err);
void config_free_overrides(struct cfg_overrides *ov);

/* The flags of every setting with their help, for --help. */
void config_usage(FILE *out);
/* The effective configuration in config file syntax, with help comments. */
void config_print(const struct config *cfg, FILE *out);
/* Call fn for each setting whose value differs between a and b. */
void config_diff(const struct config *a, const struct config *b,
		 void (*fn)(void *arg, const char *name, const char *old, const char *new),
		 void *arg);

/* Parse "ADDR:PORT", "[V6ADDR]:PORT" or ":PORT" (any address). */
int config_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len,
			struct lru_error *err);


#endif
