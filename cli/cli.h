/*
 * cli.h - what the lrugen subcommands share.
 *
 * Each command lives in cmd-NAME.c and exports one "int cmd_NAME(struct cli *,
 * int argc, char **argv)" listed in the table in lrugen.c with its setup
 * (git's RUN_SETUP): which snapshot checks cli_setup() makes once the
 * command has parsed its options. Commands return an exit code (enum
 * cli_exit) and print errors through cli_err(); only main() exits.
 *
 * Files: lrugen.c (the table, global options), common.c (options, setup,
 * loading, output), aging.c (cli_age, shared by age and wss --age-first),
 * cmd-NAME.c (one command each).
 */
#ifndef CLI_H
#define CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "lru_client.h"
#include "lru_err.h"
#include "lru_iface.h"
#include "lru_kwrite.h"
#include "lru_model.h"
#include "lru_warn.h"

/* exit codes, documented in lrugen --help */
enum cli_exit {
	CLI_OK = 0,
	CLI_FAIL = 1,		/* the operation failed (I/O, kernel refused) */
	CLI_USAGE = 2,		/* bad command line */
	CLI_ENV = 3,		/* the host cannot do it: no MGLRU, debugfs, root */
	CLI_REFUSED = 4,	/* lrugen refused: stale snapshot, too-young eviction */
};

/*
 * What cli_setup() does after a command's options (struct cli_setup.flags):
 * it reads the snapshot (cli_load) first, except with CLI_NEED_STORE.
 */
enum {
	CLI_CHECK_SELECTION = 1u << 0,	/* a --memcg, --memcg-id or --node must match */
	CLI_CHECK_ID = 1u << 1,		/* only --memcg-id is checked before the work */
	CLI_MGLRU_WARN = 1u << 2,	/* warn when MGLRU is off */
	CLI_MGLRU_NEED = 1u << 3,	/* refuse (exit 3) when MGLRU is off */
	CLI_NEED_STORE = 1u << 4,	/* no snapshot: open the store (cli->client) */
};

struct cli_setup {
	unsigned flags;
	const char *mglru_off;	/* CLI_MGLRU_NEED: why it matters, for the error */
};

/* age's setup: the table's and cli_age's (wss --age-first ages too) */
#define CLI_SETUP_AGE { CLI_CHECK_ID | CLI_MGLRU_NEED, "aging would not be used by reclaim" }

struct cli {
	const char *root;	/* --root DIR, or NULL for / */
	bool json;		/* --json */
	bool full;		/* --full: read lru_gen_full */
	enum lru_iface_mode iface_mode;	/* --interface, else $LRUGEN_INTERFACE */
	bool iface_chosen;	/* iface is filled (by the first cli_load) */
	struct lru_iface iface;	/* the interface in use and why */
	struct lru_damon damon;	/* DAMON monitors seen by the last cli_load */
	struct lru_kwriter kw;	/* where commands go (lru_kwrite_lruvec); main closes it */
	const struct cli_setup *setup;	/* the running command's, from the table */
	/* CLI_STORE_OPTS: --store (else $LRUGEN_STORE), --token-file (else $LRUGEN_TOKEN), --ca-file */
	const char *store, *token_file, *ca_file;
	struct lru_client *client;	/* CLI_NEED_STORE: the store; main frees it */
};

struct cli_cmd {
	const char *name;
	int (*run)(struct cli *cli, int argc, char **argv);
	struct cli_setup setup;
	const char *summary;
};

int cmd_show(struct cli *cli, int argc, char **argv);
int cmd_age(struct cli *cli, int argc, char **argv);
int cmd_evict(struct cli *cli, int argc, char **argv);
int cmd_wss(struct cli *cli, int argc, char **argv);
int cmd_doctor(struct cli *cli, int argc, char **argv);
int cmd_enable(struct cli *cli, int argc, char **argv);
int cmd_cmd(struct cli *cli, int argc, char **argv);
int cmd_fleet(struct cli *cli, int argc, char **argv);
int cmd_dump(struct cli *cli, int argc, char **argv);

/*
 * "lrugen: <message>" on stderr, the message escaped for the terminal (see
 * cli_esc): errors name memcg paths, kernel strings and what the store said.
 */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "lrugen: warning: <message>" on stderr, escaped like cli_err's. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * s escaped for the terminal (lru_esc.h, LRU_ESC_TERM: controls, DEL, C1 and
 * invalid UTF-8 as \xNN). Every string from the kernel, the store or the
 * network goes through it before it is printed, and column widths count
 * what it returns. The text is in one of CLI_ESC_SLOTS buffers used in turn:
 * valid until that many more calls (enough for one printf's arguments).
 * NULL gives "".
 */
#define CLI_ESC_SLOTS 8
const char *cli_esc(const char *s);
/* Print err's message and return the exit code for its class. */
int cli_fail(const struct lru_error *err);

/*
 * Options every command takes: --root DIR, --interface auto|cgroup|debugfs,
 * --json, -h/--help; commands that
 * select lruvecs add CLI_SELECT_OPTS (--memcg, --memcg-id, --node), commands
 * that ask the store CLI_STORE_OPTS (--store, --token-file, --ca-file). Commands
 * put them in their struct option[], CLI_COMMON_OPTS last (it ends the
 * array), and pass options they do not know to
 * cli_common_opt(), which returns -1 when it handled the option (go on), or
 * the exit code to return: 0 after printing usage for -h, 2 after an error.
 * sel may be NULL for commands without CLI_SELECT_OPTS.
 */
#define CLI_OPT_ROOT 0x1000
#define CLI_OPT_JSON 0x1001
#define CLI_OPT_MEMCG 0x1002
#define CLI_OPT_MEMCG_ID 0x1003
#define CLI_OPT_NODE 0x1004
#define CLI_OPT_IFACE 0x1005
#define CLI_OPT_STORE 0x1006
#define CLI_OPT_TOKEN_FILE 0x1007
#define CLI_OPT_CA_FILE 0x1008
#define CLI_COMMON_OPTS                                             \
	{ "root", required_argument, NULL, CLI_OPT_ROOT },          \
	{ "interface", required_argument, NULL, CLI_OPT_IFACE },    \
	{ "json", no_argument, NULL, CLI_OPT_JSON },                \
	{ "help", no_argument, NULL, 'h' },                         \
	{ NULL, 0, NULL, 0 }
#define CLI_SELECT_OPTS                                             \
	{ "memcg", required_argument, NULL, CLI_OPT_MEMCG },        \
	{ "memcg-id", required_argument, NULL, CLI_OPT_MEMCG_ID },  \
	{ "node", required_argument, NULL, CLI_OPT_NODE }
/* for commands with CLI_NEED_STORE */
#define CLI_STORE_OPTS                                                  \
	{ "store", required_argument, NULL, CLI_OPT_STORE },            \
	{ "token-file", required_argument, NULL, CLI_OPT_TOKEN_FILE },  \
	{ "ca-file", required_argument, NULL, CLI_OPT_CA_FILE }
struct cli_select;
int cli_common_opt(struct cli *cli, struct cli_select *sel, int opt, const char *usage);
/* After getopt: CLI_USAGE with a message if arguments are left, else 0. */
int cli_no_more_args(const char *cmd, int argc, char **argv);
/* Print usage to stdout (for -h) or stderr with a hint (for errors). */
int cli_usage(const char *usage, bool error);

/* Which lruvecs a command works on: --memcg PATH|GLOB, --memcg-id ID, --node N|all. */
struct cli_select {
	const char *memcg;	/* exact path or fnmatch() pattern; NULL = all */
	bool have_id;
	uint64_t memcg_id;
	int node;		/* -1 = all */
};
void cli_select_init(struct cli_select *sel);
/* Parse the --node argument ("all" or a number). */
int cli_parse_node(const char *arg, int *node);
bool cli_selected(const struct cli_select *sel, const struct lru_snapshot *snap,
		  const struct lru_lruvec *lv);
/*
 * Fail with a clear message when the selection matches nothing in snap, or
 * selects by --memcg-id where the interface has no ids (memory.lru_gen).
 */
int cli_check_selection(const struct cli_select *sel, const struct lru_snapshot *snap);

/* Set cli->iface_mode from "auto|cgroup|debugfs" (an error and -1 if not one). */
int cli_set_interface(struct cli *cli, const char *name, const char *from);

/*
 * Read the kernel's generations through the interface lru_iface_select()
 * picks for cli->iface_mode (memory.lru_gen, or debugfs lru_gen, or
 * lru_gen_full with cli->full) plus host info, with errors that say what to
 * do (debugfs not mounted, not root, lockdown, no MGLRU). The choice is made
 * once and kept in cli->iface. Returns an exit code.
 */
int cli_load(struct cli *cli, struct lru_snapshot *snap);

/*
 * The setup of a command, as setup's flags say: with CLI_NEED_STORE open the
 * store into cli->client (sel and snap unused, may be NULL); else initialise
 * snap and cli_load() it, check the selection sel (may be NULL), warn about
 * or refuse MGLRU off. Returns an exit code; the caller releases snap
 * whatever it is.
 */
/* The exit code of a store client's error, after printing err's message. */
int cli_store_failed(enum lru_err rc, const struct lru_error *err);
int cli_setup(struct cli *cli, const struct cli_setup *setup, const struct cli_select *sel,
	      struct lru_snapshot *snap);

/*
 * Accuracy warnings (lru_warn.h): cli_load() sets them on the snapshot.
 * cli_warnings_json() is a JSON array of codes ([] for none);
 * cli_warning_notes() prints one footnote per code in mask (lruvec codes,
 * or host codes), with marker (what the table marks a bound with) in front.
 */
json_t *cli_warnings_json(uint32_t mask, bool host);
void cli_warning_notes(uint32_t mask, bool host, const char *marker);

/*
 * Before lrugen ages: where damon_stat runs and this kernel's aging cannot
 * see the accesses it clears, turn it off (lru_damon_stat_off), saying so on
 * stderr, unless keep; with keep, or when it cannot be turned off, warn.
 * Other DAMON monitors are the operator's: only warned about.
 */
void cli_before_aging(struct cli *cli, bool keep);

/* A memcg's kernel id as JSON: null where the interface has none (memory.lru_gen). */
json_t *cli_memcg_id_json(const struct lru_snapshot *snap, const struct lru_memcg *m);
/* Warn on stderr when MGLRU is off; returns true when it is on. */
bool cli_mglru_on(struct cli *cli, const struct lru_snapshot *snap, bool quiet);

/* Parse an unsigned decimal option value; prints an error and returns -1 if bad. */
int cli_parse_u64(const char *opt, const char *arg, uint64_t *v);

/*
 * Age every selected lruvec once (aging.c): write "+ id node max_seq
 * can_swap force_scan", re-read, and write once more only where the write
 * succeeded and max_seq did not move (older kernels that did not age). Where
 * the kernel refused because another aging of the lruvec was in progress
 * (EEXIST, 6.14 and later) nothing is written again: it re-reads for up to
 * 2 s until max_seq moves ("aged by another process") and fails the lruvec
 * if it never does, so a read-back never makes two generations. Offline
 * memcgs (id 0) are skipped. Prints one line per lruvec unless quiet;
 * appends one object per lruvec to report when not NULL. Returns an exit
 * code.
 */
int cli_age(struct cli *cli, const struct cli_select *sel, bool can_swap, bool force_scan,
	    bool quiet, json_t *report);

/* Emit a JSON document on stdout (steals the reference); returns an exit code. */
int cli_json_out(json_t *doc);
/* Flush stdout and fail (exit 1) if writing it failed. */
int cli_finish(int rc);

/* Depth of a memcg path ("/" 0, "/a" 1, "/a/b" 2) and its last component. */
int cli_path_depth(const char *path);
const char *cli_path_leaf(const char *path);

const char *cli_source_name(enum lru_source src);

#endif
