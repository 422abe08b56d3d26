/*
 * lrugen - look at and steer Linux's multi-generational LRU (MGLRU).
 *
 * git-style: "lrugen [--root DIR] COMMAND [ARGS]"; every command is one file
 * (cmd-*.c) registered in the table below.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lru_suggest.h"

/* name, run, setup (cli_setup: checks on the snapshot it reads), summary */
static const struct cli_cmd commands[] = {
	{ "show", cmd_show, { CLI_CHECK_SELECTION | CLI_MGLRU_WARN, NULL },
	  "list every memcg's generations per node: birth time, age, size" },
	{ "wss", cmd_wss, { CLI_CHECK_SELECTION | CLI_MGLRU_WARN, NULL },
	  "working set: hot and cold bytes per memcg and node at a threshold" },
	{ "age", cmd_age, CLI_SETUP_AGE,
	  "create a new generation (a steady pace turns sizes into page ages)" },
	{ "evict", cmd_evict, { CLI_CHECK_SELECTION | CLI_MGLRU_NEED, "its generations are empty" },
	  "proactively reclaim generations idle longer than a duration" },
	/* these read no snapshot, or their own way; fleet asks the store */
	{ "doctor", cmd_doctor, { 0, NULL },
	  "check this host for MGLRU, debugfs, cgroup v2, root and swap" },
	{ "enable", cmd_enable, { 0, NULL }, "turn MGLRU on (lru_gen/enabled)" },
	{ "cmd", cmd_cmd, { 0, NULL },
	  "write raw '+'/'-' commands, checked first against a fresh read" },
	{ "fleet", cmd_fleet, { CLI_NEED_STORE, NULL },
	  "ask lrugen-store: hosts, cold, rank, wss, timeline, capacity" },
	{ "dump", cmd_dump, { 0, NULL },
	  "print a SnapshotBatch file or a collector spool as JSON" },
};

static const char usage_head[] =
	"usage: lrugen [--root DIR] [--interface auto|cgroup|debugfs] COMMAND [OPTIONS]\n"
	"\n"
	"lrugen reads the generations of Linux's multi-generational LRU (MGLRU). The\n"
	"kernel sorts each memcg's pages, per NUMA node, into up to four generations;\n"
	"each has a birth time and a size. A page in a generation was last used while\n"
	"that generation was the youngest, so when generations are created on a steady\n"
	"pace ('lrugen age', or the lrugend collector) their sizes are a page-age\n"
	"histogram: memory idle longer than T is cold, the rest is the working set.\n"
	"\n"
	"commands:\n";

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char usage_tail[] =
	"\n"
	"options for every command:\n"
	"  --root DIR   read DIR/sys/kernel/debug/lru_gen etc. instead of / (fixture trees)\n"
	"  --interface auto|cgroup|debugfs\n"
	"               where generations are read and commands written: each memcg's\n"
	"               memory.lru_gen (patched kernels) or debugfs lru_gen; auto (the\n"
	"               default, or $LRUGEN_INTERFACE) prefers memory.lru_gen when present\n"
	"  --json       print one JSON document on stdout\n"
	"  -h, --help   help for the command ('lrugen COMMAND -h')\n"
	"\n"
	"exit codes:\n"
	"  0  success\n"
	"  1  the operation failed (I/O error, the kernel refused a command)\n"
	"  2  bad command line, or the selected memcg or node does not exist\n"
	"  3  this host cannot do it: no MGLRU, debugfs not mounted, not root, lockdown\n"
	"  4  refused by lrugen: a stale snapshot, or an eviction of the two youngest\n"
	"     generations that the kernel would refuse\n"
	"\n"
	"Most commands need root: debugfs is root-only. Start with 'lrugen doctor'.\n"
	"Durations: 500ms 30s 2m 1h 7d. Sizes: 4096 512K 4G.\n";

static int usage(FILE *out)
{
	size_t i;

	fputs(usage_head, out);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  %-8s %s\n", "help", "'lrugen help COMMAND': that command's help");
	fputs(usage_tail, out);
	return out == stdout ? CLI_OK : CLI_USAGE;
}

/* The command of argv[0] (or, for "help CMD", CMD's --help), or a usage error. */
static int run(struct cli *cli, int argc, char **argv)
{
	static char help_opt[] = "--help";
	char *help[] = { argv[argc > 1], help_opt, NULL };
	const char *names[NR_COMMANDS], *near;
	size_t c;
	int rc;

	if (!strcmp(argv[0], "help")) {
		if (argc == 1)
			return usage(stdout);
		if (argc > 2) {
			cli_err("help: one command at a time ('lrugen help show')");
			return CLI_USAGE;
		}
		argc = 2;	/* CMD --help */
		argv = help;
	}
	for (c = 0; c < NR_COMMANDS; c++) {
		names[c] = commands[c].name;
		if (!strcmp(argv[0], commands[c].name)) {
			optind = 1;
			cli->setup = &commands[c].setup;
			rc = commands[c].run(cli, argc, argv);
			lru_kwrite_close(&cli->kw);
			lru_client_free(cli->client);
			return rc;
		}
	}
	near = lru_suggest(argv[0], names, NR_COMMANDS);
	if (near)
		cli_err("'%s' is not a command; did you mean '%s'? (see 'lrugen --help')", argv[0],
			near);
	else
		cli_err("'%s' is not a command (see 'lrugen --help')", argv[0]);
	return CLI_USAGE;
}

int main(int argc, char **argv)
{
	struct cli cli = { 0 };
	struct stat st;
	int i = 1, bad_root;

	lru_kwrite_init(&cli.kw);
	if (cli_set_interface(&cli, getenv(LRU_IFACE_ENV), LRU_IFACE_ENV))
		return CLI_USAGE;
	/* global options before the command */
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return cli_finish(usage(stdout));
		if (!strcmp(argv[i], "--version")) {
			puts("lrugen " LRUGEN_VERSION);
			return cli_finish(CLI_OK);
		}
		if (!strcmp(argv[i], "--json")) {
			cli.json = true;
			i++;
		} else if (!strcmp(argv[i], "--root") && i + 1 < argc) {
			cli.root = argv[i + 1];
			i += 2;
		} else if (!strncmp(argv[i], "--root=", 7)) {
			cli.root = argv[i] + 7;
			i++;
		} else if (!strcmp(argv[i], "--interface") && i + 1 < argc) {
			if (cli_set_interface(&cli, argv[i + 1], "--interface"))
				return CLI_USAGE;
			i += 2;
		} else if (!strncmp(argv[i], "--interface=", 12)) {
			if (cli_set_interface(&cli, argv[i] + 12, "--interface"))
				return CLI_USAGE;
			i++;
		} else {
			cli_err("unknown option '%s' (see 'lrugen --help')", argv[i]);
			return CLI_USAGE;
		}
	}
	if (i == argc) {
		usage(stderr);
		return CLI_USAGE;
	}
	/* a wrong --root is named as such, not taken for a kernel without debugfs */
	bad_root = !cli.root ? 0 : stat(cli.root, &st) ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
	if (bad_root) {
		cli_err("--root '%s': %s", cli.root, bad_root == ENOENT ? "no such directory"
			: bad_root == ENOTDIR ? "not a directory" : strerror(bad_root));
		return CLI_USAGE;
	}
	return cli_finish(run(&cli, argc - i, argv + i));
}

