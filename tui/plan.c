/*
 * plan.c - lrugen-top's age and evict plan: build the commands for the
 * selection, the confirmation text, and the kernel writes after 'y'.
 *
 * Commands are built with lru_cmd against the frame shown (memory.lru_gen or
 * debugfs form, as the snapshot's interface says); the confirmation shows
 * exactly the text that will be written, to which file, and the bytes
 * involved; 'y' writes one command per write(2) (lru_kwrite).
 */
#include "plan.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_kwrite.h"
#include "lru_units.h"
#include "top.h"

/* plan.h: readonly, replay, fleet, or a fixture's regular file refuse */
bool plan_writable(struct top *t)
{
	const struct top_row *r = view_selected(&t->view);
	char why[512], file[LRU_PATH_MAX];
	uint32_t i;

	if (t->readonly) {
		top_message(t, true, "read-only (--readonly): age and evict are disabled");
		return false;
	}
	if (!r) {
		top_message(t, true, "nothing selected");
		return false;
	}
	for (i = 0; i < r->nr_refs; i++) {
		const struct top_item *it = view_ref(&t->view, r, i);

		if (top_source_readonly_why(t->src, top_source_cmd_file(it->snap, it->lv, file,
									 sizeof(file)),
					    why, sizeof(why))) {
			top_message(t, true, "%s", why);
			return false;
		}
	}
	return true;
}

static void plan_what(struct top *t)
{
	const struct top_row *r = view_selected(&t->view);
	char label[256];

	if (r->kind == ROW_GROUP)
		snprintf(t->plan.what, sizeof(t->plan.what), "every lruvec of %s",
			 view_row_label(&t->view, r, label, sizeof(label)));
	else if (r->node >= 0)
		snprintf(t->plan.what, sizeof(t->plan.what), "%s node %d", view_path(&t->view, r->mc),
			 r->node);
	else
		snprintf(t->plan.what, sizeof(t->plan.what), "%s, every node",
			 view_path(&t->view, r->mc));
}

void plan_release(struct top_plan *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		free(p->cmds[i].memcg);
		free(p->cmds[i].file);
	}
	free(p->cmds);
	p->cmds = NULL;
	p->nr = 0;
	p->bytes = 0;
}

static bool plan_alloc(struct top *t, size_t n)
{
	plan_release(&t->plan);
	t->plan.cmds = calloc(n ? n : 1, sizeof(*t->plan.cmds));
	if (!t->plan.cmds)
		top_message(t, true, "out of memory");
	return t->plan.cmds != NULL;
}

/* Add cmd for its lruvec (room was made by plan_alloc), with its memcg and file. */
static bool plan_add(struct top *t, const struct top_item *it, const struct lru_cmd *cmd)
{
	struct top_plan_cmd *pc = &t->plan.cmds[t->plan.nr];
	char file[LRU_PATH_MAX];

	pc->cmd = *cmd;
	pc->memcg = strdup(lru_lruvec_memcg(it->snap, it->lv)->path);
	pc->file = strdup(top_source_cmd_file(it->snap, it->lv, file, sizeof(file)));
	if (!pc->memcg || !pc->file) {
		free(pc->memcg);
		free(pc->file);
		pc->memcg = pc->file = NULL;
		top_message(t, true, "out of memory");
		return false;
	}
	t->plan.nr++;
	return true;
}

bool plan_age(struct top *t)
{
	const struct top_row *r = view_selected(&t->view);
	struct lru_error err;
	uint32_t i;

	if (!r || !plan_alloc(t, r->nr_refs))
		return false;
	t->plan.op = '+';
	plan_what(t);
	lru_error_clear(&err);
	for (i = 0; i < r->nr_refs; i++) {
		const struct top_item *it = view_ref(&t->view, r, i);
		struct lru_cmd cmd;

		if (lru_cmd_age(it->snap, it->lv, 1, 1, &cmd, &err))
			continue;
		if (!plan_add(t, it, &cmd))
			return false;
		t->plan.bytes += it->st.total;
	}
	if (!t->plan.nr) {
		top_message(t, true, "cannot age %s: %s", t->plan.what, err.msg);
		return false;
	}
	return true;
}

bool plan_evict(struct top *t, const char *older_than)
{
	const struct top_row *r = view_selected(&t->view);
	struct lru_error err;
	uint64_t ms, pages;
	uint32_t i;

	if (!r)
		return false;
	if (lru_parse_duration_ms(older_than, &ms, &err)) {
		top_message(t, true, "evict: %s", err.msg);
		return false;
	}
	if (!plan_alloc(t, r->nr_refs))
		return false;
	t->plan.op = '-';
	t->plan.older_than_ms = ms;
	plan_what(t);
	lru_error_clear(&err);
	for (i = 0; i < r->nr_refs; i++) {
		const struct top_item *it = view_ref(&t->view, r, i);
		uint64_t page = it->snap->page_size ? it->snap->page_size : 4096;
		struct lru_cmd cmd;

		if (lru_cmd_evict_older_than(it->snap, it->lv, ms, -1, 0, &cmd, &pages, &err))
			continue;
		if (!plan_add(t, it, &cmd))
			return false;
		t->plan.bytes += pages * page;
	}
	if (!t->plan.nr) {
		top_message(t, true, "nothing to evict in %s: %s", t->plan.what,
			    err.code == LRU_ENOENT ? "no generation older than that (the two youngest "
						     "are never evicted)" : err.msg);
		return false;
	}
	return true;
}

/* One line of the dialog (long paths are cut at the line's size). */
static void line(char *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(char *dst, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, 128, fmt, ap);
	va_end(ap);
}

/* plan.h: what, each command after its file, the bytes */
size_t plan_lines(const struct top *t, char lines[][128], size_t max)
{
	const struct top_plan *p = &t->plan;
	char b1[32], b2[32];
	size_t n = 0, i;

	if (!max)
		return 0;
	if (p->op == '-')
		line(lines[n++], "Evict from %s what is idle longer than %s:", p->what,
			 lru_fmt_duration_exact(p->older_than_ms, b1, sizeof(b1)));
	else
		line(lines[n++], "Age %s (create a generation):", p->what);
	if (n < max)
		line(lines[n++], "will write one command per write(2)%s%s:", t->root ? " under " : "",
		     t->root ? t->root : "");
	for (i = 0; i < p->nr && n + 1 < max; i++) {
		char text[LRU_CMD_MAX];
		size_t len;

		if (i + 1 < p->nr && n + 2 >= max) {
			line(lines[n++], "  ... and %zu more", p->nr - i);
			break;
		}
		len = lru_cmd_format(&p->cmds[i].cmd, text, sizeof(text));
		if (len && text[len - 1] == '\n')
			text[len - 1] = '\0';
		line(lines[n++], "  %s: %s", p->cmds[i].file, text);
	}
	if (n < max) {
		if (p->op == '-')
			line(lines[n++], "up to %s (%" PRIu64 " bytes) in the generations named",
				 top_fmt_size(p->bytes, b2, sizeof(b2)), p->bytes);
		else
			line(lines[n++], "scans %s (%" PRIu64 " bytes) of pages",
				 top_fmt_size(p->bytes, b2, sizeof(b2)), p->bytes);
	}
	return n;
}

/* plan.h: one write(2) per command; the first failure stops the rest */
void plan_write(struct top *t)
{
	const struct lru_snapshot *snap = t->frame.nr ? t->frame.snaps[0] : NULL;
	struct lru_kwriter w;
	struct lru_error err;
	size_t i, done = 0, files = 0;
	enum lru_err rc = LRU_OK;

	lru_error_clear(&err);
	lru_kwrite_init(&w);
	for (i = 0; !rc && i < t->plan.nr; i++) {
		const struct top_plan_cmd *pc = &t->plan.cmds[i];
		const struct lru_lruvec *lv =
			snap ? lru_snapshot_find(snap, pc->memcg, 0, pc->cmd.node) : NULL;

		if (!lv)
			rc = lru_fail(&err, LRU_ENOENT, "memcg '%s' has no node %d any more", pc->memcg,
				      pc->cmd.node);
		if (!rc)
			rc = lru_kwrite_lruvec(&w, t->root, snap, lv, &pc->cmd, &err);
		if (!rc) {
			done++;
			files += !i || strcmp(pc->file, t->plan.cmds[i - 1].file);
		}
	}
	lru_kwrite_close(&w);
	if (rc)
		top_message(t, true, "%zu of %zu written: %s", done, t->plan.nr, err.msg);
	else if (files == 1)
		top_message(t, false, "wrote %zu command%s to %s", done, done == 1 ? "" : "s", w.path);
	else
		top_message(t, false, "wrote %zu commands to %zu files", done, files);
}
