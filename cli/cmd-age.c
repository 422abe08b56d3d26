/* cmd-age.c - lrugen age: create a new generation in each selected lruvec. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

#include "lru_cmd.h"

static const char usage[] =
	"usage: lrugen age [--memcg PATH|GLOB | --memcg-id ID] [--node N|all]\n"
	"                  [--no-swap] [--no-force] [--dry-run] [--json]\n"
	"\n"
	"Create a new generation in every selected lruvec (default: all). The kernel\n"
	"walks the page tables of the memcg's processes and moves every page used\n"
	"since the last aging into the generation that was youngest. Aging at a\n"
	"steady interval makes generation sizes a page-age histogram.\n"
	"\n"
	"lrugen reads max_seq first, writes '+ MEMCG_ID NODE MAX_SEQ 1 1', reads again\n"
	"and reports what it created. It writes once more only where the write\n"
	"succeeded but max_seq did not move (kernels before 6.14 ignore a stale seq);\n"
	"where the kernel answered that another aging of the lruvec is in progress\n"
	"(EEXIST, 6.14 and later, which age even a stale seq) it only re-reads, for\n"
	"up to 2 s, and reports 'aged by another process' (JSON: aged_by_other), so\n"
	"that a read-back never makes two generations.\n"
	"\n"
	"  --memcg PATH    only this memcg (globs allowed); --memcg-id ID by kernel id\n"
	"  --node N|all    only NUMA node N (default all)\n"
	"  --no-swap       can_swap=0: do not scan anon pages (the kernel's default on\n"
	"                  hosts without swap, which leaves anon pages unaged)\n"
	"  --no-force      force_scan=0: let the kernel skip mm's it thinks unchanged\n"
	"                  (fails on lruvecs that already have 4 generations)\n"
	"  --keep-damon    leave damon_stat running (see below)\n"
	"  --dry-run       print the command each lruvec would get, write nothing\n"
	"                  (and leave damon_stat as it is)\n"
	"  --json          report as a JSON array of {memcg, node, old_max_seq, ...}\n"
	"\n"
	"DAMON's sampling clears accessed bits, and kernels without lrugen's series\n"
	"do not see what it cleared when they age: memory in huge pages then stays in\n"
	"old generations although it is used. damon_stat, which Debian's 7.x kernels\n"
	"turn on at boot, is therefore turned off before aging (said on stderr);\n"
	"other DAMON monitors are left alone and warned about. See 'lrugen doctor'.\n"
	"\n"
	"Examples:\n"
	"  lrugen age --dry-run                 # what would be written, where\n"
	"  lrugen age --memcg '/jobs/*' --node 0\n"
	"  lrugen age --json | jq '.[] | select(.created | not)'\n";

/* --dry-run: the command each selected lruvec would get, as text or JSON. */
static int dry_run(struct cli *cli, const struct cli_select *sel, bool can_swap, bool force)
{
	static const struct cli_setup setup = CLI_SETUP_AGE;
	json_t *arr = cli->json ? json_array() : NULL;
	struct lru_snapshot s;
	struct lru_error err;
	struct lru_cmd cmd;
	char text[128];
	size_t n = 0;
	int rc = cli_setup(cli, &setup, sel, &s);

	for (size_t i = 0; !rc && i < s.nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &s.lruvecs[i];
		const struct lru_memcg *m = lru_lruvec_memcg(&s, lv);

		if (!cli_selected(sel, &s, lv) || lru_memcg_dying(&s, m))
			continue;
		lru_error_clear(&err);
		if (lru_cmd_age(&s, lv, can_swap, force, &cmd, &err)) {
			rc = cli_fail(&err);
			break;
		}
		text[lru_cmd_format(&cmd, text, sizeof(text)) - 1] = '\0';	/* no newline */
		n++;
		if (arr) {
			json_t *o = json_object();

			json_object_set_new(o, "memcg", json_string(m->path));
			json_object_set_new(o, "node", json_integer(lv->node));
			json_object_set_new(o, "max_seq", json_integer((json_int_t)lru_lruvec_max_seq(lv)));
			json_object_set_new(o, "command", json_string(text));
			json_array_append_new(arr, o);
		} else {
			printf("%s node %d: would write '%s' (max_seq %llu -> %llu)\n", cli_esc(m->path),
			       lv->node, text, (unsigned long long)lru_lruvec_max_seq(lv),
			       (unsigned long long)lru_lruvec_max_seq(lv) + 1);
		}
	}
	if (!rc && !n && !(rc = cli_check_selection(sel, &s))) {
		cli_err("no online memcg selected");
		rc = CLI_USAGE;
	}
	lru_snapshot_release(&s);
	if (arr && !rc)
		return cli_json_out(arr);
	json_decref(arr);
	return rc;
}

int cmd_age(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_SELECT_OPTS,
		{ "no-swap", no_argument, NULL, 's' },
		{ "no-force", no_argument, NULL, 'f' },
		{ "keep-damon", no_argument, NULL, 'K' },
		{ "dry-run", no_argument, NULL, 'd' },
		CLI_COMMON_OPTS,
	};
	struct cli_select sel;
	bool can_swap = true, force = true, keep_damon = false, dry = false;
	json_t *report = NULL;
	int opt, rc;

	cli_select_init(&sel);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			can_swap = false;
			break;
		case 'f':
			force = false;
			break;
		case 'K':
			keep_damon = true;
			break;
		case 'd':
			dry = true;
			break;
		default:
			rc = cli_common_opt(cli, &sel, opt, usage);
			if (rc >= 0)
				return rc;
		}
	}
	if (cli_no_more_args("age", argc, argv))
		return CLI_USAGE;
	if (dry)
		return dry_run(cli, &sel, can_swap, force);
	cli_before_aging(cli, keep_damon);
	if (cli->json)
		report = json_array();
	rc = cli_age(cli, &sel, can_swap, force, cli->json, report);
	if (report) {
		if (json_array_size(report))
			rc = cli_json_out(report) ? CLI_FAIL : rc;
		else
			json_decref(report);
	}
	return rc;
}
