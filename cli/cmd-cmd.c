/* cmd-cmd.c - lrugen cmd: write raw '+'/'-' commands, checked against a fresh read. */
#include "cli.h"

#include <inttypes.h>
#include <string.h>

#include "lru_cmd.h"
#include "lru_kwrite.h"

static const char usage[] =
	"usage: lrugen cmd [--no-check] [--dry-run] 'COMMAND' ...\n"
	"\n"
	"Write commands in the kernel's own syntax to lru_gen, one write(2) each:\n"
	"  '+ MEMCG_ID NODE MAX_SEQ [CAN_SWAP [FORCE_SCAN]]'      create a generation\n"
	"  '- MEMCG_ID NODE MIN_SEQ [SWAPPINESS [NR_TO_RECLAIM]]' evict generations <= MIN_SEQ\n"
	"Each is first checked against a fresh read, and refused with the reason\n"
	"when the kernel would refuse it or silently ignore it: an unknown memcg or\n"
	"node, a stale MAX_SEQ (someone aged since), an eviction reaching the two\n"
	"youngest generations. 'lrugen age' and 'lrugen evict' build these for you.\n"
	"Commands name memcgs by kernel id, so they always go to debugfs lru_gen\n"
	"(memory.lru_gen has no ids: use 'lrugen age' and 'lrugen evict' there).\n"
	"\n"
	"  --no-check   send the command unchecked and report the kernel's answer\n"
	"  --dry-run    check only, write nothing\n"
	"\n"
	"Examples:\n"
	"  lrugen cmd --dry-run '+ 3 1 6 1 1'        # check an aging command\n"
	"  lrugen cmd '- 3 1 4 0'                      # evict gen <= 4 of memcg 3 node 1, file only\n";

/*
 * Parse our options: "- 3 1 5" looks like an option to getopt, so options
 * end at the first argument that is not one of ours. Leaves optind at the
 * first command; -1 to go on, else the exit code to return.
 */
static int cmd_options(struct cli *cli, int argc, char **argv, bool *check, bool *dry)
{
	static const struct option opts[] = {
		{ "no-check", no_argument, NULL, 'n' },
		{ "dry-run", no_argument, NULL, 'd' },
		CLI_COMMON_OPTS,
	};
	int nopt = 1, opt, rc;

	while (nopt < argc && (!strncmp(argv[nopt], "--", 2) || !strcmp(argv[nopt], "-h"))) {
		if (!strcmp(argv[nopt], "--"))
			break;
		nopt += !strcmp(argv[nopt], "--root") || !strcmp(argv[nopt], "--interface") ? 2 : 1;
	}
	if (nopt > argc)
		nopt = argc;
	while ((opt = getopt_long(nopt, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			*check = false;
			break;
		case 'd':
			*dry = true;
			break;
		default:
			rc = cli_common_opt(cli, NULL, opt, usage);
			if (rc >= 0)
				return rc;
		}
	}
	if (optind < nopt && !strcmp(argv[optind], "--"))
		optind++;
	if (optind < nopt)
		optind = nopt;
	if (optind == argc) {
		cli_err("cmd needs a command, e.g. lrugen cmd '+ 3 1 6 1 1' (see 'lrugen cmd -h')");
		return CLI_USAGE;
	}
	if (cli->iface_mode == LRU_IFACE_CGROUP) {
		cli_err("cmd writes debugfs commands by memcg id, and memory.lru_gen has no ids: "
			"use 'lrugen age' or 'lrugen evict' (or --interface debugfs)");
		return CLI_USAGE;
	}
	return -1;
}

/*
 * After '+' (text) was written where max_seq was before: read again and
 * refuse when nothing changed (kernels that ignore a stale MAX_SEQ), warn
 * when a stale one aged anyway (6.14 and later). Returns an exit code.
 */
static int check_aged(struct cli *cli, const struct lru_cmd *c, const char *text, uint64_t before)
{
	struct lru_snapshot after;
	int rc = CLI_OK;

	lru_snapshot_init(&after);
	if (!cli_load(cli, &after)) {
		const struct lru_lruvec *alv = lru_snapshot_find(&after, NULL, c->memcg_id, c->node);

		if (alv && lru_lruvec_max_seq(alv) == before) {
			cli_err("'%s' changed nothing: max_seq is still %" PRIu64
				" (the kernel ignores a stale MAX_SEQ)", text, before);
			rc = CLI_REFUSED;
		} else if (alv && c->seq < before) {
			cli_warn("'%s' names a stale MAX_SEQ (%" PRIu64 "), and the kernel "
				 "aged anyway: max_seq is now %" PRIu64, text, before,
				 lru_lruvec_max_seq(alv));
		}
	}
	lru_snapshot_release(&after);
	return rc;
}

/* Check (unless !check) and write (unless dry) one command arg; returns an exit code. */
static int cmd_one(struct cli *cli, const char *arg, bool check, bool dry, struct lru_snapshot *s,
		   json_t *report)
{
	const struct lru_lruvec *lv;
	char text[LRU_CMD_MAX];
	struct lru_error err;
	uint64_t before = 0;
	struct lru_cmd c;
	int rc = CLI_OK;

	lru_error_clear(&err);
	if (lru_cmd_parse(arg, &c, &err)) {
		cli_err("'%s': %s", arg, err.msg);
		return CLI_USAGE;
	}
	lru_cmd_format(&c, text, sizeof(text));
	lru_snapshot_release(s);
	if (check || c.op == '+') {
		rc = cli_load(cli, s);
		if (rc)
			return rc;
	}
	if (check && lru_cmd_check(s, &c, &err)) {
		rc = cli_fail(&err);
		return err.code == LRU_ENOENT ? CLI_USAGE : rc;	/* no such memcg or node */
	}
	lv = lru_snapshot_find(s, NULL, c.memcg_id, c.node);
	if (lv)
		before = lru_lruvec_max_seq(lv);
	if (!dry && lru_kwrite_lruvec(&cli->kw, cli->root, s, NULL, &c, &err)) {
		rc = cli_fail(&err);
		return rc == CLI_REFUSED ? CLI_FAIL : rc;	/* refused by the kernel, not by us */
	}
	text[strcspn(text, "\n")] = '\0';
	if (!cli->json)
		printf("%s '%s'\n", dry ? "would write" : "wrote", text);
	if (!dry && c.op == '+' && lv)
		rc = check_aged(cli, &c, text, before);
	if (report) {
		json_t *o = json_object();

		json_object_set_new(o, "command", json_string(text));
		json_object_set_new(o, "written", json_boolean(!dry));
		json_array_append_new(report, o);
	}
	return rc;
}

int cmd_cmd(struct cli *cli, int argc, char **argv)
{
	bool check = true, dry = false;
	struct lru_snapshot s;
	json_t *report = NULL;
	int rc = cmd_options(cli, argc, argv, &check, &dry);

	if (rc >= 0)
		return rc;
	cli->iface_mode = LRU_IFACE_DEBUGFS;
	if (cli->json)
		report = json_array();
	lru_snapshot_init(&s);
	rc = CLI_OK;
	for (int i = optind; i < argc && !rc; i++)
		rc = cmd_one(cli, argv[i], check, dry, &s, report);
	lru_snapshot_release(&s);
	if (report) {
		if (!rc)
			return cli_json_out(report);
		json_decref(report);
	}
	return rc;
}
