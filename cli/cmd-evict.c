/* cmd-evict.c - lrugen evict: proactive reclaim of generations idle longer than T. */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lru_cmd.h"
#include "lru_units.h"

static const char usage[] =
	"usage: lrugen evict (--memcg PATH|GLOB | --memcg-id ID) [--node N|all]\n"
	"                    --older-than DUR [--max-bytes SIZE] [--swappiness N|max]\n"
	"                    [--dry-run] [--json]\n"
	"\n"
	"Reclaim the generations whose pages have been idle longer than DUR, before\n"
	"memory pressure does it for you. A generation counts as idle since the birth\n"
	"of the next one; the two youngest generations are never evicted (the kernel\n"
	"refuses). Age on a steady pace first (lrugen age, lrugend) so that the\n"
	"generations mean something.\n"
	"\n"
	"lrugen prints the command it writes ('- MEMCG_ID NODE SEQ [SWAPPINESS\n"
	"[NR_TO_RECLAIM]]' to debugfs lru_gen, or '- N<NODE> SEQ [SWAPPINESS [BYTES]]'\n"
	"to the memcg's memory.lru_gen), the bytes it asked for, and what the kernel\n"
	"freed (generation sizes before and after).\n"
	"\n"
	"  --memcg PATH       the memcg to reclaim from (required; globs allowed)\n"
	"  --node N|all       only NUMA node N (default all nodes of the memcg)\n"
	"  --older-than DUR   idle time threshold, e.g. 10m (required)\n"
	"  --max-bytes SIZE   ask for at most SIZE per lruvec (nr_to_reclaim; the\n"
	"                     kernel may overshoot by a batch of 64 pages)\n"
	"  --swappiness N     0 evicts file pages only; 1-200 weighs anon against file;\n"
	"                     'max' evicts anon only (kernels >= 6.16). Default: the\n"
	"                     kernel's (vm.swappiness; anon needs swap to be evicted)\n"
	"  --dry-run          print the commands and bytes, write nothing\n";

struct target {
	char *path;
	size_t lruvec;		/* index in the first snapshot */
	int node;
	struct lru_cmd cmd;
	uint64_t asked;		/* pages */
	uint64_t before[LRU_NR_TYPES];
	uint64_t after[LRU_NR_TYPES];
	bool written, failed, none;
	char msg[LRU_ERRMSG_MAX];
};

static int parse_swappiness(const char *arg, int *v)
{
	uint64_t x;

	if (!strcmp(arg, "max")) {
		*v = LRU_SWAPPINESS_MAX;
		return 0;
	}
	if (cli_parse_u64("--swappiness", arg, &x))
		return -1;
	if (x > 200) {
		cli_err("--swappiness %s is out of range (0-200 or max)", arg);
		return -1;
	}
	*v = (int)x;
	return 0;
}

static json_t *target_json(const struct target *t, uint64_t page, bool dry)
{
	char text[LRU_CMD_MAX];
	json_t *o = json_object();

	json_object_set_new(o, "memcg", json_string(t->path));
	json_object_set_new(o, "memcg_id", t->cmd.cgroup ? json_null()
			    : json_integer((json_int_t)t->cmd.memcg_id));
	json_object_set_new(o, "node", json_integer(t->node));
	if (t->none) {
		json_object_set_new(o, "command", json_null());
		json_object_set_new(o, "asked_bytes", json_integer(0));
		json_object_set_new(o, "note", json_string(t->msg));
		return o;
	}
	lru_cmd_format(&t->cmd, text, sizeof(text));
	text[strcspn(text, "\n")] = '\0';
	json_object_set_new(o, "command", json_string(text));
	json_object_set_new(o, "asked_bytes", json_integer((json_int_t)(t->asked * page)));
	if (!dry && t->written) {
		int64_t fa = (int64_t)(t->before[LRU_ANON] - t->after[LRU_ANON]);
		int64_t ff = (int64_t)(t->before[LRU_FILE] - t->after[LRU_FILE]);

		json_object_set_new(o, "freed_bytes", json_integer((fa + ff) * (int64_t)page));
		json_object_set_new(o, "freed_anon_bytes", json_integer(fa * (int64_t)page));
		json_object_set_new(o, "freed_file_bytes", json_integer(ff * (int64_t)page));
	}
	if (t->failed)
		json_object_set_new(o, "error", json_string(t->msg));
	return o;
}

static void target_text(const struct target *t, uint64_t page, bool dry, uint64_t older_ms)
{
	char text[LRU_CMD_MAX], b1[32], b2[32], b3[32], b4[32];

	if (t->none) {
		printf("%s node %d: nothing to evict (%s)\n", t->path, t->node, t->msg);
		return;
	}
	lru_cmd_format(&t->cmd, text, sizeof(text));
	text[strcspn(text, "\n")] = '\0';
	printf("%s node %d: %s '%s': %s in generations <= %" PRIu64 " (idle > %s)\n", t->path,
	       t->node, dry ? "would write" : t->written ? "wrote" : "could not write", text,
	       lru_fmt_bytes(t->asked * page, b1, sizeof(b1)), t->cmd.seq,
	       lru_fmt_duration(older_ms, b2, sizeof(b2)));
	if (!dry && t->written) {
		int64_t fa = (int64_t)(t->before[LRU_ANON] - t->after[LRU_ANON]);
		int64_t ff = (int64_t)(t->before[LRU_FILE] - t->after[LRU_FILE]);
		int64_t total = (fa + ff) * (int64_t)page;

		printf("%*s  freed %s%s (anon %s, file %s)%s\n", (int)strlen(t->path), "",
		       total < 0 ? "-" : "", lru_fmt_bytes((uint64_t)(total < 0 ? -total : total), b1,
							  sizeof(b1)),
		       lru_fmt_bytes((uint64_t)(fa < 0 ? 0 : fa) * page, b3, sizeof(b3)),
		       lru_fmt_bytes((uint64_t)(ff < 0 ? 0 : ff) * page, b4, sizeof(b4)),
		       total < 0 ? " (the memcg grew meanwhile)" : "");
	}
}

int cmd_evict(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_SELECT_OPTS,
		{ "older-than", required_argument, NULL, 'o' },
		{ "max-bytes", required_argument, NULL, 'b' },
		{ "swappiness", required_argument, NULL, 's' },
		{ "dry-run", no_argument, NULL, 'd' },
		CLI_COMMON_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_select sel;
	struct lru_snapshot s;
	struct lru_error err;
	struct target *targets = NULL;
	uint64_t older_ms = 0, max_bytes = 0, page;
	bool have_older = false, dry = false;
	int swappiness = -1, opt, rc;
	size_t n = 0, i, failed = 0;

	cli_select_init(&sel);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (lru_parse_duration_ms(optarg, &older_ms, &err)) {
				cli_err("--older-than: %s", err.msg);
				return CLI_USAGE;
			}
			have_older = true;
			break;
		case 'b':
			if (lru_parse_size(optarg, &max_bytes, &err)) {
				cli_err("--max-bytes: %s", err.msg);
				return CLI_USAGE;
			}
			if (!max_bytes) {
				cli_err("--max-bytes 0 would evict nothing");
				return CLI_USAGE;
			}
			break;
		case 's':
			if (parse_swappiness(optarg, &swappiness))
				return CLI_USAGE;
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
	if (cli_no_more_args("evict", argc, argv))
		return CLI_USAGE;
	if (!sel.memcg && !sel.have_id) {
		cli_err("evict needs --memcg PATH or --memcg-id ID (see 'lrugen evict -h')");
		return CLI_USAGE;
	}
	if (!have_older) {
		cli_err("evict needs --older-than DUR, e.g. --older-than 10m");
		return CLI_USAGE;
	}

	lru_snapshot_init(&s);
	rc = cli_load(cli, &s);
	if (!rc)
		rc = cli_check_selection(&sel, &s);
	if (rc)
		goto out;
	if (!cli_mglru_on(cli, &s, true)) {
		cli_err("MGLRU is off: its generations are empty; turn it on with 'lrugen enable'");
		rc = CLI_ENV;
		goto out;
	}
	page = s.page_size;
	targets = calloc(s.nr_lruvecs, sizeof(*targets));
	if (!targets) {
		rc = CLI_FAIL;
		goto out;
	}
	for (i = 0; i < s.nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &s.lruvecs[i];
		struct target *t = &targets[n];
		enum lru_err e;

		if (!cli_selected(&sel, &s, lv))
			continue;
		n++;
		t->path = strdup(lru_lruvec_memcg(&s, lv)->path);
		t->lruvec = i;
		t->node = lv->node;
		t->cmd.memcg_id = lru_lruvec_memcg(&s, lv)->id;
		t->cmd.cgroup = lru_memcg_uses_cgroup(&s, lru_lruvec_memcg(&s, lv));
		t->before[LRU_ANON] = lru_lruvec_pages(lv, LRU_ANON);
		t->before[LRU_FILE] = lru_lruvec_pages(lv, LRU_FILE);
		lru_error_clear(&err);
		e = lru_cmd_evict_older_than(&s, lv, older_ms, swappiness, max_bytes, &t->cmd,
					     &t->asked, &err);
		if (e == LRU_ENOENT) {
			t->none = true;
			snprintf(t->msg, sizeof(t->msg), "no evictable generation is idle that long");
		} else if (!e && !t->asked) {
			t->none = true;
			snprintf(t->msg, sizeof(t->msg),
				 "the generations idle that long hold no pages of the types evicted");
		} else if (e) {
			rc = cli_fail(&err);
			goto out;
		}
	}
	if (!dry) {
		for (i = 0; i < n; i++) {
			int kerr;

			if (targets[i].none)
				continue;
			lru_error_clear(&err);
			if (cli_write_cmd(cli, &s, &s.lruvecs[targets[i].lruvec], &targets[i].cmd,
					  &kerr, &err)) {
				if (err.code == LRU_EACCES || err.code == LRU_ENOTSUP ||
				    err.code == LRU_ENOENT) {
					rc = cli_fail(&err);
					goto out;
				}
				targets[i].failed = true;
				snprintf(targets[i].msg, sizeof(targets[i].msg), "%s", err.msg);
				continue;
			}
			targets[i].written = true;
		}
		lru_snapshot_release(&s);
		rc = cli_load(cli, &s);
		if (rc)
			goto out;
		for (i = 0; i < n; i++) {
			const struct lru_lruvec *lv = lru_snapshot_find(&s, targets[i].path, 0,
									targets[i].node);

			if (lv) {
				targets[i].after[LRU_ANON] = lru_lruvec_pages(lv, LRU_ANON);
				targets[i].after[LRU_FILE] = lru_lruvec_pages(lv, LRU_FILE);
			}
		}
	}
	if (cli->json) {
		json_t *arr = json_array();

		for (i = 0; i < n; i++)
			json_array_append_new(arr, target_json(&targets[i], page, dry));
		rc = cli_json_out(arr);
	} else {
		for (i = 0; i < n; i++)
			target_text(&targets[i], page, dry, older_ms);
	}
	for (i = 0; i < n; i++) {
		if (targets[i].failed) {
			cli_err("%s", targets[i].msg);
			failed++;
		}
	}
	if (failed)
		rc = CLI_FAIL;
out:
	for (i = 0; i < n; i++)
		free(targets[i].path);
	free(targets);
	lru_snapshot_release(&s);
	return rc;
}
