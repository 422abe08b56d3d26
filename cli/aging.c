/* aging.c - create one generation in each selected lruvec, checked and retried. */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lru_cmd.h"
#include "lru_kwrite.h"

/* how long to re-read a lruvec that another aging is working on, and how often */
#define AGE_WAIT_MS 2000
#define AGE_POLL_MS 50

struct aged {
	char *path;
	uint64_t memcg_id;
	bool no_id;		/* memory.lru_gen: the kernel id is unknown */
	int node;
	uint64_t old_max;	/* max_seq our command named */
	uint64_t new_max;
	enum lru_err wrote;	/* how the last write ended */
	bool retried;
	bool by_other;		/* another process made the generation */
	bool done;
	bool failed;
	char msg[LRU_ERRMSG_MAX];
};

/*
 * Write an aging command for lv; a->wrote records how it ended and a->msg
 * why. Returns true when the failure is the host's (no access, a fixture
 * root): no point going on.
 */
static bool age_one(struct cli *cli, const struct lru_snapshot *s, const struct lru_lruvec *lv,
		    bool can_swap, bool force_scan, struct aged *a, struct lru_error *err)
{
	struct lru_cmd cmd;

	lru_error_clear(err);
	a->wrote = lru_cmd_age(s, lv, can_swap, force_scan, &cmd, err);
	if (!a->wrote)
		a->wrote = lru_kwrite_lruvec(&cli->kw, cli->root, s, lv, &cmd, err);
	if (!a->wrote)
		return false;
	snprintf(a->msg, sizeof(a->msg), "%s", err->msg);
	return lru_kwrite_host_failure(err->code);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/*
 * Take one step for a (not done) from max_seq re-read in lv, as
 * lru_cmd_age_step() decides; writes again for LRU_AGE_RETRY. Returns the
 * step, or -1 when a retry failed for the host's reason (err set).
 */
static int step_one(struct cli *cli, const struct lru_snapshot *s, const struct lru_lruvec *lv,
		    bool can_swap, bool force_scan, struct aged *a, bool timed_out,
		    struct lru_error *err)
{
	enum lru_age_step step;

	a->new_max = lru_lruvec_max_seq(lv);
	step = lru_cmd_age_step(a->wrote, a->retried, a->old_max, a->new_max);
	switch (step) {
	case LRU_AGE_BY_OTHER:
		a->by_other = true;
		/* fall through */
	case LRU_AGE_CREATED:
		a->done = true;
		break;
	case LRU_AGE_RETRY:
		a->retried = true;
		if (age_one(cli, s, lv, can_swap, force_scan, a, err))
			return -1;
		break;
	case LRU_AGE_WAIT:
		if (!timed_out)
			break;
		a->done = a->failed = true;
		if (a->wrote)	/* a->msg holds the kernel's refusal */
			snprintf(a->msg, sizeof(a->msg),
				 "memcg '%s' node %d: another aging of this lruvec was in progress, "
				 "but max_seq is still %" PRIu64 " %d s later",
				 a->path, a->node, a->new_max, AGE_WAIT_MS / 1000);
		else
			snprintf(a->msg, sizeof(a->msg),
				 "memcg '%s' node %d: max_seq is still %" PRIu64 " after two writes "
				 "and %d s", a->path, a->node, a->new_max, AGE_WAIT_MS / 1000);
		break;
	case LRU_AGE_FAILED:
		a->done = a->failed = true;
		break;
	}
	return (int)step;
}

static void report_one(const struct aged *a, bool quiet, json_t *report)
{
	if (a->failed)
		cli_err("%s", a->msg);
	else if (!quiet)
		printf("%-40s node %d: generation %" PRIu64 " created%s%s\n", cli_esc(a->path), a->node,
		       a->old_max + 1,
		       a->by_other ? " (aged by another process)"
		       : a->retried ? " (retried: the kernel did not age on the first write)" : "",
		       !a->by_other && a->new_max > a->old_max + 1 ? " (someone else aged it too)"
		       : "");
	if (report) {
		json_t *o = json_object();

		json_object_set_new(o, "memcg", json_string(a->path));
		json_object_set_new(o, "memcg_id", a->no_id ? json_null()
				    : json_integer((json_int_t)a->memcg_id));
		json_object_set_new(o, "node", json_integer(a->node));
		json_object_set_new(o, "old_max_seq", json_integer((json_int_t)a->old_max));
		json_object_set_new(o, "new_max_seq", json_integer((json_int_t)a->new_max));
		json_object_set_new(o, "created", json_boolean(!a->failed));
		json_object_set_new(o, "retried", json_boolean(a->retried));
		json_object_set_new(o, "aged_by_other", json_boolean(a->by_other));
		if (a->failed)
			json_object_set_new(o, "error", json_string(a->msg));
		json_array_append_new(report, o);
	}
}

/*
 * Write the first aging command of every selected online lruvec of s into
 * list (room for each lruvec), *n counting them. Returns an exit code: a
 * failure of the host stops it.
 */
static int age_all(struct cli *cli, const struct cli_select *sel, const struct lru_snapshot *s,
		   bool can_swap, bool force_scan, struct aged *list, size_t *n)
{
	struct lru_error err;

	for (size_t i = 0; i < s->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &s->lruvecs[i];
		const struct lru_memcg *m = lru_lruvec_memcg(s, lv);
		struct aged *a = &list[*n];

		if (!cli_selected(sel, s, lv) || lru_memcg_dying(s, m))
			continue;
		a->path = strdup(m->path);
		a->memcg_id = m->id;
		a->no_id = lru_memcg_uses_cgroup(s, m);
		a->node = lv->node;
		a->old_max = lru_lruvec_max_seq(lv);
		++*n;
		if (age_one(cli, s, lv, can_swap, force_scan, a, &err))
			return cli_fail(&err);
	}
	return CLI_OK;
}

/*
 * Re-read until every lruvec is settled. A write that succeeded without
 * aging is written once more (at once); one the kernel refused because
 * another aging was at work is never written again, only re-read until
 * that aging shows, for at most AGE_WAIT_MS. Returns an exit code.
 */
static int settle(struct cli *cli, struct lru_snapshot *s, bool can_swap, bool force_scan,
		  struct aged *list, size_t n)
{
	int64_t deadline = lru_mono_ms() + AGE_WAIT_MS;
	struct lru_error err;
	int rc;

	for (;;) {
		bool timed_out = lru_mono_ms() >= deadline, waiting = false, again = false;

		lru_snapshot_release(s);
		rc = cli_load(cli, s);
		if (rc)
			return rc;
		for (size_t i = 0; i < n; i++) {
			const struct lru_lruvec *lv;
			int step;

			if (list[i].done)
				continue;
			lv = lru_snapshot_find(s, list[i].path, 0, list[i].node);
			if (!lv) {
				list[i].done = list[i].failed = true;
				snprintf(list[i].msg, sizeof(list[i].msg), "memcg '%s' node %d disappeared",
					 list[i].path, list[i].node);
				continue;
			}
			step = step_one(cli, s, lv, can_swap, force_scan, &list[i], timed_out, &err);
			if (step < 0)
				return cli_fail(&err);
			again |= step == LRU_AGE_RETRY;
			waiting |= step == LRU_AGE_WAIT && !list[i].done;
		}
		if (!again && !waiting)
			return CLI_OK;
		if (!again)
			sleep_ms(AGE_POLL_MS);
	}
}

int cli_age(struct cli *cli, const struct cli_select *sel, bool can_swap, bool force_scan,
	    bool quiet, json_t *report)
{
	static const struct cli_setup setup = CLI_SETUP_AGE;
	struct lru_snapshot s;
	struct aged *list = NULL;
	size_t n = 0, i, failed = 0;
	int rc = cli_setup(cli, &setup, sel, &s);

	if (rc)
		goto out;
	list = calloc(s.nr_lruvecs ? s.nr_lruvecs : 1, sizeof(*list));
	if (!list) {
		cli_err("out of memory");
		rc = CLI_FAIL;
		goto out;
	}
	rc = age_all(cli, sel, &s, can_swap, force_scan, list, &n);
	if (rc)
		goto out;
	if (!n) {
		rc = cli_check_selection(sel, &s);
		if (!rc) {
			cli_err("no online memcg selected");
			rc = CLI_USAGE;
		}
		goto out;
	}
	rc = settle(cli, &s, can_swap, force_scan, list, n);
	if (rc)
		goto out;
	for (i = 0; i < n; i++) {
		failed += list[i].failed;
		report_one(&list[i], quiet, report);
	}
	rc = failed ? CLI_FAIL : CLI_OK;
out:
	for (i = 0; i < n; i++)
		free(list[i].path);
	free(list);
	lru_snapshot_release(&s);
	return rc;
}
