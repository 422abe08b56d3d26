/*
 * conf.h - a program's settings, from its table to the config file, the
 * command line, --help, --print-config and SIGHUP reloads: the one way
 * lrugend and lrugen-store take settings.
 *
 * A program describes its settings once, in a table of struct lru_set_def
 * (lru_settings.h: name, type, field, default, range, metavar, help), and
 * its own needs in a struct conf_prog (hooks for what a table cannot say:
 * a default from the environment, lines that are not settings such as the
 * store's tokens, checks across settings). Everything else comes from here.
 *
 * Names are kebab-case ("spool-max-bytes"), in the file and as flags.
 *
 * Sources, weakest first: the table's defaults, the config file, the
 * command line. A list setting is replaced by its first occurrence in a
 * source; further occurrences in the same source append. Any other setting
 * may appear once in the file.
 *
 * Config file: one setting a line, "name = value"; '#' at the start of a
 * line or after a blank starts a comment; a value may be put in double
 * quotes. A line that is not a setting goes to the program's line hook
 * (the store's "admin-token = HASH"). Old spellings keep loading, each kind
 * with one warning (through warn) that names the new spelling:
 *
 *	listen 0.0.0.0:7070	the old "NAME VALUE" syntax: 'listen = 0.0.0.0:7070'
 *	skip_empty = true	'_' for '-': 'skip-empty'
 *
 * Command line: --name VALUE or --name=VALUE; booleans --name, --no-name,
 * --name=true|false. The common options are --config FILE, --print-config,
 * -h/--help and --version; a program adds its own (lrugend's --once).
 *
 * Errors are one line: "FILE:LINE: name = value: why", "FILE:LINE:
 * unknown setting 'x'", "--name value: why", or the program's check.
 *
 * Ownership: a config owns its strings and lists (and what its hooks add);
 * conf_release() frees them. A conf_src owns its flag values. Configs are
 * never copied: a reload builds a new one from the same sources.
 */
#ifndef DAEMON_CONF_H
#define DAEMON_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "log.h"
#include "lru_err.h"
#include "lru_settings.h"

/* The log-level setting of a program's table (field: int, enum log_level). */
#define CONF_LOG_LEVEL(type, field)                                                             \
	{ "log-level", LRU_SET_ENUM, offsetof(type, field), "info", 0, 0, "LEVEL",              \
	  "least important log lines written", log_level_names }

struct conf_prog {
	const char *name;		/* "lrugend": messages, --version */
	size_t size;			/* of the config struct */
	const struct lru_set_def *defs;
	size_t nr_defs;
	const char *default_file;	/* read when present and no --config; NULL: none */
	const char *usage;		/* --help before the settings: synopsis, run modes */
	const char *usage_tail;		/* --help after them; NULL: none */

	/* hooks, each optional */
	/* after the table's defaults (lrugend: $LRUGEN_INTERFACE) */
	enum lru_err (*defaults)(void *cfg, struct lru_error *err);
	/*
	 * A file line whose name is no setting (name normalised to '-'):
	 * 1 taken, 0 not the program's either (an unknown setting), -1 bad
	 * (err says why; the caller adds file and line).
	 */
	int (*line)(void *cfg, const char *name, char *value, struct lru_error *err);
	/* more file lines after the settings in --print-config (the store's tokens) */
	void (*print)(const void *cfg, FILE *out);
	/* checks across settings, after every source */
	enum lru_err (*check)(const void *cfg, struct lru_error *err);
	/* frees what the line hook added */
	void (*release)(void *cfg);
	/* where warnings go (old spellings); NULL: log_warn */
	void (*warn)(const char *msg);
};

/* One setting from the command line, applied over the file. */
struct conf_flag {
	size_t def;		/* index into the table */
	char *value;		/* owned; "true"/"false" for --name/--no-name */
};

/* Where a config comes from: kept for reloads. */
struct conf_src {
	const char *file;	/* NULL: none */
	bool required;		/* --config given: it must exist */
	struct conf_flag *flags;
	size_t nr_flags;
};

void conf_src_release(struct conf_src *src);

enum conf_action { CONF_RUN = 0, CONF_PRINT, CONF_HELP, CONF_VERSION, CONF_BAD };

/* Values of a program's own options start here; settings use those above. */
#define CONF_OPT_BASE 0x2000

struct option;

/*
 * Parse argv into src: --config, the settings' flags, and the program's own
 * options extra (NULL, or ending with a zeroed entry; val below
 * CONF_OPT_BASE), each handed to opt(arg, val, optarg, err), which returns
 * 0 or -1 with err set. Returns CONF_HELP or CONF_VERSION as soon as one is
 * seen, CONF_PRINT for --print-config, CONF_BAD with err set for a bad
 * command line (getopt has printed its own message; exit 2).
 */
enum conf_action conf_args(const struct conf_prog *p, struct conf_src *src, int argc, char **argv,
			   const struct option *extra,
			   int (*opt)(void *arg, int val, const char *optarg, struct lru_error *err),
			   void *arg, struct lru_error *err);

/*
 * Build cfg (p->size bytes) from defaults, src's file and flags, then the
 * check hook. On failure cfg is left empty and err says why (exit 2).
 */
enum lru_err conf_load(const struct conf_prog *p, void *cfg, const struct conf_src *src,
		       struct lru_error *err);
void conf_release(const struct conf_prog *p, void *cfg);

/*
 * SIGHUP: build next from the same sources and check it with check (NULL:
 * none; the run mode's own rules). On failure logs "reload: WHY; keeping
 * the old configuration" and returns -1 with next empty; else logs each
 * changed setting ("config: interval: '1h' -> '2s'", or "reload:
 * configuration unchanged") and returns how many changed.
 */
int conf_reload(const struct conf_prog *p, const struct conf_src *src, const void *cur, void *next,
		int (*check)(void *arg, const void *cfg, struct lru_error *err), void *arg);

/* --help: p->usage, every setting with its flag, default and help, p->usage_tail. */
void conf_usage(const struct conf_prog *p, FILE *out);
/* --version: "NAME VERSION". */
void conf_version(const struct conf_prog *p, FILE *out);
/* --print-config: cfg in config file syntax with help comments; reads back to itself. */
void conf_print(const struct conf_prog *p, const void *cfg, FILE *out);

#endif
