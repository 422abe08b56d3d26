/* aging.c - create one generation in each selected lruvec, checked and retried. */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lru_cmd.h"

struct aged {
	char *path;
	uint64_t memcg_id;
	bool no_id;		/* memory.lru_gen: the kernel id is unknown */
	int node;
	uint64_t old_max;	/* max_seq before our first write */
	uint64_t new_max;
	bool retried;
	bool failed;
	char msg[LRU_ERRMSG_MAX];
};

/*
 * Write an aging command for lv; records a failure in a. Returns true when the
 * failure is the host's (no access, a fixture root): no point going on.
 */
static bool age_one(struct cli *cli, const struct lru_snapshot *s, const struct lru_lruvec *lv,
		    bool can_swap, bool force_scan, struct aged *a, struct lru_error *err)
{
	struct lru_cmd cmd;
	int kerr;

	lru_error_clear(err);
	if (lru_cmd_age(s, lv, can_swap, force_scan, &cmd, err) ||
	    cli_write_cmd(cli, s, lv, &cmd, &kerr, err)) {
		a->failed = err->code != LRU_ESTALE;	/* stale: the re-read retries it */
		snprintf(a->msg, sizeof(a->msg), "%s", err->msg);
		return err->code == LRU_EACCES || err->code == LRU_ENOTSUP || err->code == LRU_ENOENT;
	}
	return false;
}

int cli_age(struct cli *cli, const struct cli_select *sel, bool can_swap, bool force_scan,
	    bool quiet, json_t *report)
{
	struct lru_snapshot s;
	struct aged *list = NULL;
	struct lru_error err;
	size_t n = 0, i, failed = 0;
	int rc, round;

	lru_snapshot_init(&s);
	rc = cli_load(cli, &s);
	if (!rc && sel->have_id)
		rc = cli_check_selection(sel, &s);
	if (rc)
		goto out;
	if (!cli_mglru_on(cli, &s, true)) {
		cli_err("MGLRU is off: aging would not be used by reclaim; turn it on with 'lrugen enable'");
		rc = CLI_ENV;
		goto out;
	}
	list = calloc(s.nr_lruvecs ? s.nr_lruvecs : 1, sizeof(*list));
	if (!list) {
		cli_err("out of memory");
		rc = CLI_FAIL;
		goto out;
	}
	for (i = 0; i < s.nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &s.lruvecs[i];
		const struct lru_memcg *m = lru_lruvec_memcg(&s, lv);

		if (!cli_selected(sel, &s, lv) || lru_memcg_dying(&s, m))
			continue;
		list[n].path = strdup(m->path);
		list[n].memcg_id = m->id;
		list[n].no_id = lru_memcg_uses_cgroup(&s, m);
		list[n].node = lv->node;
		list[n].old_max = lru_lruvec_max_seq(lv);
		if (age_one(cli, &s, lv, can_swap, force_scan, &list[n++], &err)) {
			rc = cli_fail(&err);
			goto out;
		}
	}
	if (!n) {
		rc = cli_check_selection(sel, &s);
		if (!rc) {
			cli_err("no online memcg selected");
			rc = CLI_USAGE;
		}
		goto out;
	}
	/* re-read; retry once where max_seq did not move (we wrote a stale seq) */
	for (round = 0; round < 2; round++) {
		bool retry = false;

		lru_snapshot_release(&s);
		rc = cli_load(cli, &s);
		if (rc)
			goto out;
		for (i = 0; i < n; i++) {
			const struct lru_lruvec *lv = lru_snapshot_find(&s, list[i].path, 0, list[i].node);

			if (!lv) {
				list[i].failed = true;
				snprintf(list[i].msg, sizeof(list[i].msg), "memcg '%s' node %d disappeared",
					 list[i].path, list[i].node);
				continue;
			}
			list[i].new_max = lru_lruvec_max_seq(lv);
			if (list[i].new_max > list[i].old_max || list[i].retried || list[i].failed)
				continue;
			if (round == 0) {
				list[i].retried = true;
				list[i].old_max = list[i].new_max;
				if (age_one(cli, &s, lv, can_swap, force_scan, &list[i], &err)) {
					rc = cli_fail(&err);
					goto out;
				}
				retry = true;
			}
		}
		if (!retry)
			break;
	}
	for (i = 0; i < n; i++) {
		struct aged *a = &list[i];

		if (!a->failed && a->new_max <= a->old_max) {
			a->failed = true;
			snprintf(a->msg, sizeof(a->msg),
				 "memcg '%s' node %d: max_seq is still %" PRIu64 " after two attempts",
				 a->path, a->node, a->new_max);
		}
		if (a->failed) {
			failed++;
			cli_err("%s", a->msg);
		} else if (!quiet) {
			printf("%-40s node %d: generation %" PRIu64 " created%s%s\n", a->path, a->node,
			       a->old_max + 1, a->retried ? " (retried: the first read was stale)" : "",
			       a->new_max > a->old_max + 1 ? " (someone else aged it too)" : "");
		}
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
			if (a->failed)
				json_object_set_new(o, "error", json_string(a->msg));
			json_array_append_new(report, o);
		}
	}
	rc = failed ? CLI_FAIL : CLI_OK;
out:
	for (i = 0; i < n; i++)
		free(list[i].path);
	free(list);
	lru_snapshot_release(&s);
	return rc;
}
