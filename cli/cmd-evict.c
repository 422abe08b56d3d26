/* cmd-evict.c - lrugen evict: proactive reclaim of generations idle longer than T. */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lru_cmd.h"
#include "lru_kwrite.h"
#include "lru_sys.h"
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
	"to the memcg's memory.lru_gen), the bytes it asked for (the pages in\n"
	"generations <= SEQ), and what the kernel did with them, from the generation\n"
	"sizes before and after:\n"
	"  freed   no longer resident\n"
	"  moved   now in a younger generation: the kernel kept them, found\n"
	"          referenced (huge pages often are, on Linux 7.x) or still being\n"
	"          written back (to swap, under emulation); only aging and a later\n"
	"          eviction can take them\n"
	"  left    still in generations <= SEQ, neither freed nor moved\n"
	"Where pages were left and less than asked was freed, lrugen plans once more\n"
	"on a fresh read and writes a second pass (\"second pass: ...\") for at most\n"
	"what the first asked and did not free. It exits 1 when the kernel freed less\n"
	"than half of what was asked over all selected lruvecs, saying where the rest\n"
	"went.\n"
	"JSON: one object per lruvec with command, asked_bytes, passes, freed_bytes,\n"
	"freed_anon_bytes, freed_file_bytes, moved_bytes, left_bytes and per_pass.\n"
	"\n"
	"  --memcg PATH       the memcg to reclaim from (required; globs allowed)\n"
	"  --node N|all       only NUMA node N (default all nodes of the memcg)\n"
	"  --older-than DUR   idle time threshold, e.g. 10m (required)\n"
	"  --max-bytes SIZE   ask for at most SIZE per lruvec (nr_to_reclaim; the\n"
	"                     kernel may overshoot by a batch of 64 pages)\n"
	"  --swappiness N|max 0 evicts file pages only; 1-200 weighs anon against file;\n"
	"                     'max' evicts anon only (written as the word 'max'; Linux\n"
	"                     6.16 and later take it, older kernels answer EINVAL).\n"
	"                     Default: the kernel's (vm.swappiness; anon needs swap)\n"
	"  --dry-run          print the commands and bytes, write nothing\n"
	"\n"
	"Examples:\n"
	"  lrugen evict --memcg /jobs/batch --older-than 10m --dry-run\n"
	"  lrugen evict --memcg '/jobs/*' --older-than 30m --max-bytes 1G\n"
	"  lrugen evict --memcg /jobs/web --older-than 1h --swappiness 0   # file only\n";

/* one extra pass at most, for pages left in the old generations */
#define EVICT_MAX_PASSES 2

struct pass {
	struct lru_cmd cmd;
	uint64_t asked;			/* pages */
	bool written;
	struct lru_evict_outcome out;	/* from the reads before and after it */
};

struct target {
	char *path;
	size_t lruvec;			/* index in the snapshot last read */
	int node;
	struct lru_lruvec last;		/* generations as last read (no 'full' detail) */
	struct pass pass[EVICT_MAX_PASSES];
	unsigned planned, written;	/* passes planned, passes written */
	bool failed, none;
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

/* The passes of t added up: freed and moved summed, left as after the last pass. */
static void target_total(const struct target *t, struct lru_evict_outcome *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned p = 0; p < t->written; p++) {
		const struct lru_evict_outcome *o = &t->pass[p].out;

		for (int ty = 0; ty < LRU_NR_TYPES; ty++) {
			sum->freed[ty] += o->freed[ty];
			sum->left[ty] = o->left[ty];
		}
		sum->freed_total += o->freed_total;
		sum->moved += o->moved;
		sum->left_total = o->left_total;
	}
}

static const char *cmd_text(const struct lru_cmd *cmd, char *buf, size_t size)
{
	lru_cmd_format(cmd, buf, size);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* freed_bytes, freed_anon_bytes, freed_file_bytes, moved_bytes, left_bytes of o into obj. */
static void outcome_json(json_t *obj, const struct lru_evict_outcome *o, uint64_t page)
{
	json_object_set_new(obj, "freed_bytes", json_integer(o->freed_total * (int64_t)page));
	json_object_set_new(obj, "freed_anon_bytes",
			    json_integer(o->freed[LRU_ANON] * (int64_t)page));
	json_object_set_new(obj, "freed_file_bytes",
			    json_integer(o->freed[LRU_FILE] * (int64_t)page));
	json_object_set_new(obj, "moved_bytes", json_integer((json_int_t)(o->moved * page)));
	json_object_set_new(obj, "left_bytes", json_integer((json_int_t)(o->left_total * page)));
}

static json_t *target_json(const struct target *t, uint64_t page)
{
	const struct pass *first = &t->pass[0];
	char text[LRU_CMD_MAX];
	json_t *o = json_object();

	json_object_set_new(o, "memcg", json_string(t->path));
	json_object_set_new(o, "memcg_id", first->cmd.cgroup ? json_null()
			    : json_integer((json_int_t)first->cmd.memcg_id));
	json_object_set_new(o, "node", json_integer(t->node));
	if (t->none) {
		json_object_set_new(o, "command", json_null());
		json_object_set_new(o, "asked_bytes", json_integer(0));
		json_object_set_new(o, "passes", json_integer(0));
		json_object_set_new(o, "note", json_string(t->msg));
		return o;
	}
	json_object_set_new(o, "command", json_string(cmd_text(&first->cmd, text, sizeof(text))));
	json_object_set_new(o, "asked_bytes", json_integer((json_int_t)(first->asked * page)));
	json_object_set_new(o, "passes", json_integer(t->written));
	if (t->written) {
		struct lru_evict_outcome sum;
		json_t *arr = json_array();

		target_total(t, &sum);
		outcome_json(o, &sum, page);
		for (unsigned p = 0; p < t->written; p++) {
			json_t *po = json_object();

			json_object_set_new(po, "command",
					    json_string(cmd_text(&t->pass[p].cmd, text, sizeof(text))));
			json_object_set_new(po, "asked_bytes",
					    json_integer((json_int_t)(t->pass[p].asked * page)));
			outcome_json(po, &t->pass[p].out, page);
			json_array_append_new(arr, po);
		}
		json_object_set_new(o, "per_pass", arr);
	}
	if (t->failed)
		json_object_set_new(o, "error", json_string(t->msg));
	return o;
}

/* "freed X (anon A, file F)", with the memcg's growth if it grew, into buf. */
static const char *freed_text(const struct lru_evict_outcome *o, uint64_t page, char *buf,
			      size_t size)
{
	int64_t total = o->freed_total * (int64_t)page;
	char b1[32], b2[32], b3[32];

	snprintf(buf, size, "freed %s%s (anon %s, file %s)%s", total < 0 ? "-" : "",
		 lru_fmt_bytes((uint64_t)(total < 0 ? -total : total), b1, sizeof(b1)),
		 lru_fmt_bytes((uint64_t)(o->freed[LRU_ANON] < 0 ? 0 : o->freed[LRU_ANON]) * page,
			       b2, sizeof(b2)),
		 lru_fmt_bytes((uint64_t)(o->freed[LRU_FILE] < 0 ? 0 : o->freed[LRU_FILE]) * page,
			       b3, sizeof(b3)),
		 total < 0 ? " (the memcg grew meanwhile)" : "");
	return buf;
}

/* What one pass did, a line each for freed, moved and left, indented by pad. */
static void outcome_text(const struct lru_evict_outcome *o, uint64_t page, uint64_t seq, int pad)
{
	char b[128];

	printf("%*s%s\n", pad, "", freed_text(o, page, b, sizeof(b)));
	if (o->moved)
		printf("%*s%s moved into a young generation (the kernel found them referenced, or "
		       "still being written back)\n",
		       pad, "", lru_fmt_bytes(o->moved * page, b, sizeof(b)));
	if (o->left_total)
		printf("%*s%s left in generations <= %" PRIu64 "\n", pad, "",
		       lru_fmt_bytes(o->left_total * page, b, sizeof(b)), seq);
}

static void target_text(const struct target *t, uint64_t page, bool dry, uint64_t older_ms)
{
	const char *path = cli_esc(t->path);
	int pad = (int)strlen(path) + 2;
	char text[LRU_CMD_MAX], b1[128], b2[32], b3[32], b4[32];

	if (t->none) {
		printf("%s node %d: nothing to evict (%s)\n", path, t->node, cli_esc(t->msg));
		return;
	}
	printf("%s node %d: %s '%s': %s in generations <= %" PRIu64 " (idle > %s)\n", path,
	       t->node, dry ? "would write" : t->written ? "wrote" : "could not write",
	       cmd_text(&t->pass[0].cmd, text, sizeof(text)),
	       lru_fmt_bytes(t->pass[0].asked * page, b1, sizeof(b1)), t->pass[0].cmd.seq,
	       lru_fmt_duration(older_ms, b2, sizeof(b2)));
	for (unsigned p = 0; p < t->written; p++) {
		const struct pass *ps = &t->pass[p];

		if (p)
			printf("%*ssecond pass: wrote '%s': %s in generations <= %" PRIu64 "\n", pad,
			       "", cmd_text(&ps->cmd, text, sizeof(text)),
			       lru_fmt_bytes(ps->asked * page, b1, sizeof(b1)), ps->cmd.seq);
		outcome_text(&ps->out, page, ps->cmd.seq, p ? pad + 2 : pad);
	}
	if (t->written > 1) {
		struct lru_evict_outcome sum;

		target_total(t, &sum);
		printf("%*sin all: %s of the %s asked; %s moved, %s left\n", pad, "",
		       freed_text(&sum, page, b1, sizeof(b1)),
		       lru_fmt_bytes(t->pass[0].asked * page, b2, sizeof(b2)),
		       lru_fmt_bytes(sum.moved * page, b3, sizeof(b3)),
		       lru_fmt_bytes(sum.left_total * page, b4, sizeof(b4)));
	}
}

/*
 * Write pass p of every target that planned one; a failure of the host (no
 * access, a fixture root) stops everything: returns its exit code, else 0.
 * *wrote says whether anything was written.
 */
static int write_pass(struct cli *cli, const struct lru_snapshot *s, struct target *targets,
		      size_t n, unsigned p, bool *wrote)
{
	struct lru_error err;

	*wrote = false;
	for (size_t i = 0; i < n; i++) {
		struct target *t = &targets[i];

		if (t->planned <= p || t->failed)
			continue;
		lru_error_clear(&err);
		if (lru_kwrite_lruvec(&cli->kw, cli->root, s, &s->lruvecs[t->lruvec], &t->pass[p].cmd,
				      &err)) {
			if (lru_kwrite_host_failure(err.code))
				return cli_fail(&err);
			t->failed = true;
			snprintf(t->msg, sizeof(t->msg), "%s", err.msg);
			continue;
		}
		t->pass[p].written = true;
		t->written = p + 1;
		*wrote = true;
	}
	return CLI_OK;
}

/*
 * Account pass p of every target that wrote it against s, read after it,
 * and plan pass p + 1 where pages were left in the old generations: the
 * same threshold and swappiness, within what the first pass asked and has
 * not freed yet.
 */
static void account_pass(const struct lru_snapshot *s, struct target *targets, size_t n,
			 unsigned p, uint64_t older_ms, int swappiness, uint64_t max_bytes)
{
	for (size_t i = 0; i < n; i++) {
		struct target *t = &targets[i];
		struct pass *ps = &t->pass[p];
		const struct lru_lruvec *lv;
		struct lru_evict_outcome sum;
		uint64_t freed, pages;

		if (!ps->written)
			continue;
		lv = lru_snapshot_find(s, t->path, 0, t->node);
		lru_cmd_evict_outcome(&t->last, lv, &ps->cmd, ps->asked, &ps->out);
		if (!lv)
			continue;
		t->lruvec = (size_t)(lv - s->lruvecs);
		t->last = *lv;
		t->last.full = NULL;
		target_total(t, &sum);
		freed = sum.freed_total < 0 ? 0 : (uint64_t)sum.freed_total;
		if (p + 1 >= EVICT_MAX_PASSES || freed >= t->pass[0].asked ||
		    !lru_evict_outcome_second_pass(&ps->out, ps->asked))
			continue;
		if (!lru_cmd_evict_again(s, lv, older_ms, swappiness, max_bytes,
					 (t->pass[0].asked - freed) * s->page_size,
					 &t->pass[p + 1].cmd, &pages, NULL) && pages) {
			t->pass[p + 1].asked = pages;
			t->planned = p + 2;
		}
	}
}

/*
 * Fail (exit 1, one line) when the targets written freed less than half of
 * what they asked, with where the rest went.
 */
static int check_freed(const struct target *targets, size_t n, uint64_t page)
{
	uint64_t asked = 0, moved = 0, left = 0;
	int64_t freed = 0;
	char b1[32], b2[32], b3[32], b4[32], why[256] = "";

	for (size_t i = 0; i < n; i++) {
		struct lru_evict_outcome sum;

		if (!targets[i].written)
			continue;
		target_total(&targets[i], &sum);
		asked += targets[i].pass[0].asked;
		freed += sum.freed_total;
		moved += sum.moved;
		left += sum.left_total;
	}
	if (!asked || freed * 2 >= (int64_t)asked)
		return CLI_OK;
	if (moved)
		snprintf(why, sizeof(why), "; %s moved into a young generation (the kernel found "
			 "them referenced, or still being written back: age, then evict again)",
			 lru_fmt_bytes(moved * page, b3, sizeof(b3)));
	if (left)
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "; %s left in the old generations", lru_fmt_bytes(left * page, b4, sizeof(b4)));
	cli_err("the kernel freed %s%s of the %s asked, less than half%s", freed < 0 ? "-" : "",
		lru_fmt_bytes((uint64_t)(freed < 0 ? -freed : freed) * page, b1, sizeof(b1)),
		lru_fmt_bytes(asked * page, b2, sizeof(b2)), why);
	return CLI_FAIL;
}

struct evict_opts {
	struct cli_select sel;
	uint64_t older_ms, max_bytes;
	int swappiness;		/* -1: the kernel's */
	bool dry;
};

/* Parse the options into o; -1 to go on, else the exit code to return. */
static int evict_options(struct cli *cli, int argc, char **argv, struct evict_opts *o)
{
	static const struct option opts[] = {
		CLI_SELECT_OPTS,
		{ "older-than", required_argument, NULL, 'o' },
		{ "max-bytes", required_argument, NULL, 'b' },
		{ "swappiness", required_argument, NULL, 's' },
		{ "dry-run", no_argument, NULL, 'd' },
		CLI_COMMON_OPTS,
	};
	struct lru_error err;
	bool have_older = false;
	int opt, rc;

	cli_select_init(&o->sel);
	o->swappiness = -1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (lru_parse_duration_ms(optarg, &o->older_ms, &err)) {
				cli_err("--older-than: %s", err.msg);
				return CLI_USAGE;
			}
			have_older = true;
			break;
		case 'b':
			if (lru_parse_size(optarg, &o->max_bytes, &err)) {
				cli_err("--max-bytes: %s", err.msg);
				return CLI_USAGE;
			}
			if (!o->max_bytes) {
				cli_err("--max-bytes 0 would evict nothing");
				return CLI_USAGE;
			}
			break;
		case 's':
			if (parse_swappiness(optarg, &o->swappiness))
				return CLI_USAGE;
			break;
		case 'd':
			o->dry = true;
			break;
		default:
			rc = cli_common_opt(cli, &o->sel, opt, usage);
			if (rc >= 0)
				return rc;
		}
	}
	if (cli_no_more_args("evict", argc, argv))
		return CLI_USAGE;
	if (!o->sel.memcg && !o->sel.have_id) {
		cli_err("evict needs --memcg PATH or --memcg-id ID (see 'lrugen evict -h')");
		return CLI_USAGE;
	}
	if (!have_older) {
		cli_err("evict needs --older-than DUR, e.g. --older-than 10m");
		return CLI_USAGE;
	}
	return -1;
}

/*
 * Plan the first pass of every selected lruvec of s into targets (room for
 * each lruvec), *n counting them. Returns an exit code.
 */
static int plan_first(const struct lru_snapshot *s, const struct evict_opts *o,
		      struct target *targets, size_t *n)
{
	struct lru_error err;

	for (size_t i = 0; i < s->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &s->lruvecs[i];
		const struct lru_memcg *m = lru_lruvec_memcg(s, lv);
		struct target *t = &targets[*n];
		struct pass *first = &t->pass[0];
		enum lru_err e;

		if (!cli_selected(&o->sel, s, lv))
			continue;
		++*n;
		t->path = strdup(m->path);
		t->lruvec = i;
		t->node = lv->node;
		t->last = *lv;
		t->last.full = NULL;
		first->cmd.memcg_id = m->id;
		first->cmd.cgroup = lru_memcg_uses_cgroup(s, m);
		lru_error_clear(&err);
		e = lru_cmd_evict_older_than(s, lv, o->older_ms, o->swappiness, o->max_bytes,
					     &first->cmd, &first->asked, &err);
		if (e == LRU_ENOENT) {
			t->none = true;
			snprintf(t->msg, sizeof(t->msg), "no evictable generation is idle that long");
		} else if (!e && !first->asked) {
			t->none = true;
			snprintf(t->msg, sizeof(t->msg),
				 "the generations idle that long hold no pages of the types evicted");
		} else if (e) {
			return cli_fail(&err);
		} else {
			t->planned = 1;
		}
	}
	return CLI_OK;
}

/* Each pass: write, read s again, account; a second pass where pages were left. */
static int run_passes(struct cli *cli, struct lru_snapshot *s, const struct evict_opts *o,
		      struct target *targets, size_t n)
{
	int rc = CLI_OK;

	for (unsigned p = 0; p < EVICT_MAX_PASSES; p++) {
		bool wrote;

		rc = write_pass(cli, s, targets, n, p, &wrote);
		if (rc || !wrote)
			break;
		lru_snapshot_release(s);
		rc = cli_load(cli, s);
		if (rc)
			break;
		account_pass(s, targets, n, p, o->older_ms, o->swappiness, o->max_bytes);
	}
	return rc;
}

/* Print the targets (text or JSON) and the failures; returns the exit code. */
static int report(struct cli *cli, const struct target *targets, size_t n, uint64_t page,
		  const struct evict_opts *o)
{
	size_t i, failed = 0;
	int rc = CLI_OK;

	if (cli->json) {
		json_t *arr = json_array();

		for (i = 0; i < n; i++)
			json_array_append_new(arr, target_json(&targets[i], page));
		rc = cli_json_out(arr);
	} else {
		for (i = 0; i < n; i++)
			target_text(&targets[i], page, o->dry, o->older_ms);
	}
	for (i = 0; i < n; i++) {
		if (targets[i].failed) {
			cli_err("%s", targets[i].msg);
			failed++;
		}
	}
	if (!o->dry && check_freed(targets, n, page))
		rc = CLI_FAIL;
	return failed ? CLI_FAIL : rc;
}

/* Whether the kernel takes swappiness 'max' (lru_kwrite.h): debugfs of Linux 6.16 and later. */
static bool takes_max(const struct lru_snapshot *s)
{
	/* a release not known: let the kernel answer */
	return s->source != LRU_SRC_CGROUP && lru_release_at_least(s->host.kernel, 6, 16) != 0;
}

int cmd_evict(struct cli *cli, int argc, char **argv)
{
	struct evict_opts o = { 0 };
	struct lru_snapshot s;
	struct target *targets = NULL;
	uint64_t page, swap;
	size_t n = 0, i;
	int rc = evict_options(cli, argc, argv, &o);

	if (rc >= 0)
		return rc;
	rc = cli_setup(cli, cli->setup, &o.sel, &s);
	if (rc)
		goto out;
	page = s.page_size;
	/* the kernel evicts no anon without swap: neither ask for it nor count it */
	if (o.swappiness != 0 && !lru_sys_swap_bytes(cli->root, &swap, NULL) && !swap) {
		if (o.swappiness == LRU_SWAPPINESS_MAX) {
			cli_err("evict: --swappiness max evicts anon pages only, and this host has "
				"no swap: nothing could be evicted (add swap, or choose 0)");
			rc = CLI_ENV;
			goto out;
		}
		if (!cli->json)
			printf("no swap: file pages only, anon pages cannot be evicted%s\n",
			       o.swappiness > 0 ? " (--swappiness ignored)" : "");
		o.swappiness = 0;
	}
	if (o.swappiness == LRU_SWAPPINESS_MAX && !takes_max(&s))
		cli_warn("--swappiness max: this kernel (%s, %s) answers EINVAL to it: Linux 6.16 "
			 "and later take it through debugfs", s.host.kernel ? s.host.kernel : "?",
			 s.source == LRU_SRC_CGROUP ? "memory.lru_gen" : "debugfs");
	targets = calloc(s.nr_lruvecs ? s.nr_lruvecs : 1, sizeof(*targets));
	if (!targets) {
		cli_err("out of memory");
		rc = CLI_FAIL;
		goto out;
	}
	rc = plan_first(&s, &o, targets, &n);
	if (!rc && !o.dry)
		rc = run_passes(cli, &s, &o, targets, n);
	if (!rc)
		rc = report(cli, targets, n, page, &o);
out:
	for (i = 0; i < n; i++)
		free(targets[i].path);
	free(targets);
	lru_snapshot_release(&s);
	return rc;
}
