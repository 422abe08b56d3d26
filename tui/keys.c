/*
 * keys.c - lrugen-top's key bindings: one table, actions that return what
 * the loop must do (TOP_DRAW_*, TOP_REBUILD, TOP_REFRESH, TOP_QUIT...), and
 * the modal inputs (filter, eviction threshold, confirmation).
 *
 * Age and evict build their commands with lru_cmd against the frame shown
 * (memory.lru_gen or debugfs form, as the snapshot's interface says), show
 * exactly the text that will be written, to which file, and the bytes
 * involved, and write only after 'y', one command per write(2) (lru_kwrite).
 */
#include "top.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_kwrite.h"
#include "lru_units.h"

#define KEY_ESC 27
#define CTRL(c) ((c) & 0x1f)

typedef unsigned (*top_action)(struct top *t);

struct binding {
	int key;
	const char *name;	/* how help shows the key */
	top_action act;
	const char *help;	/* NULL: same action as the line above, keys merged */
};

static size_t page_rows(const struct top *t)
{
	return (size_t)(t->g.list_h > 2 ? t->g.list_h - 1 : 1);
}

static unsigned moved(void)
{
	return TOP_DRAW_LIST | TOP_DRAW_DETAILS;
}

static unsigned act_up(struct top *t) { view_move(&t->view, -1, page_rows(t)); return moved(); }
static unsigned act_down(struct top *t) { view_move(&t->view, 1, page_rows(t)); return moved(); }
static unsigned act_pgup(struct top *t)
{
	view_move(&t->view, -(long)page_rows(t), page_rows(t));
	return moved();
}
static unsigned act_pgdn(struct top *t)
{
	view_move(&t->view, (long)page_rows(t), page_rows(t));
	return moved();
}
static unsigned act_home(struct top *t) { view_move(&t->view, -(long)t->view.nr_rows, page_rows(t)); return moved(); }
static unsigned act_end(struct top *t) { view_move(&t->view, (long)t->view.nr_rows, page_rows(t)); return moved(); }

static unsigned act_quit(struct top *t)
{
	(void)t;
	return TOP_QUIT;
}

static unsigned act_help(struct top *t)
{
	t->mode = MODE_HELP;
	t->help_top = 0;
	return TOP_DRAW_ALL;
}

static unsigned act_filter(struct top *t)
{
	t->mode = MODE_FILTER;
	snprintf(t->saved_filter, sizeof(t->saved_filter), "%s", t->view.filter);
	snprintf(t->input, sizeof(t->input), "%s", t->view.filter);
	t->input_len = strlen(t->input);
	return TOP_DRAW_STATUS;
}

static unsigned act_escape(struct top *t)
{
	if (t->details) {
		t->details = false;
		return TOP_LAYOUT | TOP_DRAW_ALL;
	}
	if (t->view.filter[0]) {
		t->view.filter[0] = '\0';
		return TOP_REBUILD | TOP_DRAW_ALL;
	}
	return 0;
}

/* The columns '<' and '>' step through: those on screen. */
static unsigned sort_step(struct top *t, int dir)
{
	int c = (int)t->view.sort, i;

	for (i = 0; i < COL_NR; i++) {
		c = (c + dir + COL_NR) % COL_NR;
		if (c == COL_NAME || t->g.col_on[c])
			break;
	}
	t->view.sort = (enum top_col)c;
	t->view.invert = false;
	return TOP_REBUILD | TOP_DRAW_LIST | TOP_DRAW_DETAILS;
}

static unsigned act_sort_next(struct top *t) { return sort_step(t, 1); }
static unsigned act_sort_prev(struct top *t) { return sort_step(t, -1); }

static unsigned act_invert(struct top *t)
{
	t->view.invert = !t->view.invert;
	return TOP_REBUILD | TOP_DRAW_LIST | TOP_DRAW_DETAILS;
}

static unsigned act_tree(struct top *t)
{
	t->view.tree = !t->view.tree;
	top_message(t, false, "%s", t->view.tree ? "tree view" : "flat list, sorted");
	return TOP_REBUILD | TOP_DRAW_ALL;
}

static unsigned act_nodes(struct top *t)
{
	t->view.merge = !t->view.merge;
	top_message(t, false, "%s", t->view.merge ? "nodes merged: one row per memcg" :
						    "nodes split: one row per lruvec");
	return TOP_REBUILD | TOP_DRAW_ALL;
}

static unsigned act_group(struct top *t)
{
	static const char *const names[GROUP_NR] = { "no grouping", "grouped by node",
						     "grouped by host", "grouped by memcg across hosts" };

	t->view.group = (enum top_group)((t->view.group + 1) % GROUP_NR);
	top_message(t, false, "%s", names[t->view.group]);
	return TOP_REBUILD | TOP_LAYOUT | TOP_DRAW_ALL;
}

static unsigned act_threshold(struct top *t)
{
	char b[32];

	if (t->thr >= tl_nr_thresholds) {
		/* leave the custom threshold for the first step above it */
		for (t->thr = 0; t->thr < tl_nr_thresholds - 1 &&
				 tl_thresholds[t->thr] <= t->custom_threshold_ms; t->thr++)
			;
	} else {
		t->thr = (t->thr + 1) % tl_nr_thresholds;
	}
	t->view.threshold_ms = top_threshold(t);
	top_message(t, false, "threshold T = %s", tl_fmt_dur(top_threshold(t), b, sizeof(b)));
	return TOP_RECOMPUTE | TOP_DRAW_ALL;
}

static unsigned zoom(struct top *t, int dir)
{
	char b[32];

	if ((dir < 0 && !t->zoom) || (dir > 0 && t->zoom + 1 >= tl_nr_zooms))
		return 0;
	t->zoom = (size_t)((long)t->zoom + dir);
	t->window_fixed = true;
	top_message(t, false, "window %s", tl_fmt_dur(tl_zooms[t->zoom], b, sizeof(b)));
	return TOP_DRAW_ALL;
}

static unsigned act_zoom_in(struct top *t) { return zoom(t, -1); }
static unsigned act_zoom_out(struct top *t) { return zoom(t, 1); }

static unsigned act_pause(struct top *t)
{
	t->paused = !t->paused;
	return TOP_DRAW_HEADER;
}

static unsigned act_refresh(struct top *t)
{
	(void)t;
	return TOP_REFRESH;
}

static unsigned act_details(struct top *t)
{
	t->details = !t->details;
	return TOP_LAYOUT | TOP_DRAW_ALL;
}

static unsigned act_fold(struct top *t) { return view_fold(&t->view, 1) ? TOP_REBUILD | TOP_DRAW_ALL : 0; }
static unsigned act_unfold(struct top *t) { return view_fold(&t->view, 0) ? TOP_REBUILD | TOP_DRAW_ALL : 0; }
static unsigned act_fold_toggle(struct top *t)
{
	return view_fold(&t->view, -1) ? TOP_REBUILD | TOP_DRAW_ALL : 0;
}

static unsigned step(struct top *t, long delta)
{
	if (t->src->kind != TOP_SRC_REPLAY) {
		top_message(t, true, "stepping in time needs --replay");
		return TOP_DRAW_STATUS;
	}
	t->paused = true;
	return top_source_step(t->src, delta) ? TOP_STEP : TOP_DRAW_HEADER;
}

static unsigned act_back(struct top *t) { return step(t, -1); }
static unsigned act_forward(struct top *t) { return step(t, 1); }
static unsigned act_back10(struct top *t) { return step(t, -10); }
static unsigned act_forward10(struct top *t) { return step(t, 10); }

/* ---- age and evict ------------------------------------------------------------ */

/*
 * May the selection be aged or evicted? Not with --readonly, in replay or
 * fleet mode, nor under a fixture root where a file its commands go to
 * (debugfs lru_gen, or each memcg's memory.lru_gen) is a regular file.
 */
static bool writable(struct top *t)
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

void keys_plan_release(struct top_plan *p)
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
	keys_plan_release(&t->plan);
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

static unsigned act_age(struct top *t)
{
	const struct top_row *r;
	struct lru_error err;
	uint32_t i;

	if (!writable(t))
		return TOP_DRAW_STATUS;
	r = view_selected(&t->view);
	if (!plan_alloc(t, r->nr_refs))
		return TOP_DRAW_STATUS;
	t->plan.op = '+';
	plan_what(t);
	lru_error_clear(&err);
	for (i = 0; i < r->nr_refs; i++) {
		const struct top_item *it = view_ref(&t->view, r, i);
		struct lru_cmd cmd;

		if (lru_cmd_age(it->snap, it->lv, 1, 1, &cmd, &err))
			continue;
		if (!plan_add(t, it, &cmd))
			return TOP_DRAW_STATUS;
		t->plan.bytes += it->st.total;
	}
	if (!t->plan.nr) {
		top_message(t, true, "cannot age %s: %s", t->plan.what, err.msg);
		return TOP_DRAW_STATUS;
	}
	t->mode = MODE_CONFIRM;
	return TOP_DRAW_ALL;
}

static unsigned act_evict(struct top *t)
{
	if (!writable(t))
		return TOP_DRAW_STATUS;
	t->mode = MODE_EVICT_ASK;
	/* the shortest exact form ("2m"), which lru_parse_duration_ms reads back */
	tl_fmt_dur(top_threshold(t), t->input, sizeof(t->input));
	t->input_len = strlen(t->input);
	return TOP_DRAW_STATUS;
}

/* Enter in the eviction prompt: build the '-' commands for the selection. */
static unsigned evict_plan(struct top *t)
{
	const struct top_row *r = view_selected(&t->view);
	struct lru_error err;
	uint64_t ms, pages;
	uint32_t i;

	t->mode = MODE_MAIN;
	if (!r)
		return TOP_DRAW_STATUS;
	if (lru_parse_duration_ms(t->input, &ms, &err)) {
		top_message(t, true, "evict: %s", err.msg);
		return TOP_DRAW_STATUS;
	}
	if (!plan_alloc(t, r->nr_refs))
		return TOP_DRAW_STATUS;
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
			return TOP_DRAW_STATUS;
		t->plan.bytes += pages * page;
	}
	if (!t->plan.nr) {
		top_message(t, true, "nothing to evict in %s: %s", t->plan.what,
			    err.code == LRU_ENOENT ? "no generation older than that (the two youngest "
						     "are never evicted)" : err.msg);
		return TOP_DRAW_STATUS;
	}
	t->mode = MODE_CONFIRM;
	return TOP_DRAW_ALL;
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

/*
 * The confirmation: what, then each command after the root-relative file it
 * goes to ("/sys/fs/cgroup/jobs/web/memory.lru_gen: + N1 7 1 1",
 * "/sys/kernel/debug/lru_gen: + 3 1 7 1 1"), then the bytes.
 */
size_t keys_plan_lines(const struct top *t, char lines[][128], size_t max)
{
	const struct top_plan *p = &t->plan;
	char b1[32], b2[32];
	size_t n = 0, i;

	if (!max)
		return 0;
	if (p->op == '-')
		line(lines[n++], "Evict from %s what is idle longer than %s:", p->what,
			 tl_fmt_dur(p->older_than_ms, b1, sizeof(b1)));
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
				 draw_fmt_size(p->bytes, b2, sizeof(b2)), p->bytes);
		else
			line(lines[n++], "scans %s (%" PRIu64 " bytes) of pages",
				 draw_fmt_size(p->bytes, b2, sizeof(b2)), p->bytes);
	}
	return n;
}

/*
 * 'y': write each command, one write(2) each, to the file
 * lru_kwrite_open_lruvec() picks for its lruvec in the frame shown (the
 * memcg's memory.lru_gen, or debugfs lru_gen), as lrugen does. The first
 * failure stops the rest and goes to the status bar with the library's words.
 */
static unsigned plan_write(struct top *t)
{
	const struct lru_snapshot *snap = t->frame.nr ? t->frame.snaps[0] : NULL;
	struct lru_kwriter w;
	struct lru_error err;
	size_t i, done = 0, files = 0;
	enum lru_err rc = LRU_OK;

	t->mode = MODE_MAIN;
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
			rc = lru_kwrite_open_lruvec(&w, t->root, snap, lv, &err);
		if (!rc)
			rc = lru_kwrite_cmd(&w, &pc->cmd, NULL, &err);
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
	return TOP_REFRESH | TOP_DRAW_ALL;
}

/* ---- the table ------------------------------------------------------------------ */

static const struct binding bindings[] = {
	{ '?', "?", act_help, "help" },
	{ 'h', "h", act_help, NULL },
	{ KEY_F(1), "F1", act_help, NULL },
	{ 'q', "q", act_quit, "quit" },
	{ KEY_F(10), "F10", act_quit, NULL },
	{ KEY_UP, "Up", act_up, "move up" },
	{ 'k', "k", act_up, NULL },
	{ KEY_DOWN, "Down", act_down, "move down" },
	{ 'j', "j", act_down, NULL },
	{ KEY_PPAGE, "PgUp", act_pgup, "page up" },
	{ KEY_NPAGE, "PgDn", act_pgdn, "page down" },
	{ KEY_HOME, "Home", act_home, "first row" },
	{ KEY_END, "End", act_end, "last row" },
	{ KEY_LEFT, "Left", act_fold, "fold the memcg or group (tree)" },
	{ KEY_RIGHT, "Right", act_unfold, "unfold it" },
	{ 'f', "f", act_fold_toggle, "fold or unfold" },
	{ '\n', "Enter", act_details, "details: generations, tiers, memory.stat" },
	{ KEY_ENTER, "Enter", act_details, NULL },
	{ KEY_ESC, "Esc", act_escape, "close details, clear the filter" },
	{ '/', "/", act_filter, "filter memcg paths (and hosts); globs allowed" },
	{ '>', ">", act_sort_next, "sort by the next column" },
	{ '.', ".", act_sort_next, NULL },
	{ '<', "<", act_sort_prev, "sort by the previous column" },
	{ ',', ",", act_sort_prev, NULL },
	{ 'I', "I", act_invert, "invert the sort order" },
	{ 't', "t", act_tree, "tree view or flat sorted list" },
	{ 'n', "n", act_nodes, "split nodes (a row per lruvec) or merge them (per memcg)" },
	{ 'g', "g", act_group, "group: none, node, host, memcg across hosts" },
	{ 'T', "T", act_threshold, "next threshold T (30s 1m 2m 5m 10m 1h)" },
	{ '+', "+", act_zoom_in, "zoom the timeline in" },
	{ '=', "=", act_zoom_in, NULL },
	{ '-', "-", act_zoom_out, "zoom the timeline out" },
	{ ' ', "Space", act_pause, "pause or resume refreshing (replay: playing)" },
	{ 'r', "r", act_refresh, "refresh now" },
	{ CTRL('l'), "^L", act_refresh, NULL },
	{ '[', "[", act_back, "replay: one frame back" },
	{ ']', "]", act_forward, "replay: one frame forward" },
	{ '{', "{", act_back10, "replay: ten frames back" },
	{ '}', "}", act_forward10, "replay: ten frames forward" },
	{ 'a', "a", act_age, "age the selection: one new generation each (asks first)" },
	{ 'e', "e", act_evict, "evict what is idle longer than a threshold (asks first)" },
};

size_t keys_help(char lines[][96], size_t max)
{
	size_t n = 0, i = 0, j;

	while (i < sizeof(bindings) / sizeof(bindings[0]) && n < max) {
		char keys[40] = "";
		size_t len = 0;

		for (j = i; j < sizeof(bindings) / sizeof(bindings[0]) &&
			    (j == i || !bindings[j].help); j++)
			if (!strstr(keys, bindings[j].name) || j == i)
				len += (size_t)snprintf(keys + len, len < sizeof(keys) ? sizeof(keys) - len : 0,
							"%s%s", j == i ? "" : " ", bindings[j].name);
		snprintf(lines[n++], 96, "%-16s %s", keys, bindings[i].help);
		i = j;
	}
	return n;
}

/* ---- modal input ------------------------------------------------------------------ */

/* Line editing shared by the filter and eviction prompts; true when text changed. */
static bool edit(struct top *t, int ch)
{
	if (ch == KEY_BACKSPACE || ch == 127 || ch == CTRL('h')) {
		if (!t->input_len)
			return false;
		t->input[--t->input_len] = '\0';
		return true;
	}
	if (ch == CTRL('u')) {
		t->input_len = 0;
		t->input[0] = '\0';
		return true;
	}
	if (ch >= 32 && ch < 127 && t->input_len + 1 < sizeof(t->input)) {
		t->input[t->input_len++] = (char)ch;
		t->input[t->input_len] = '\0';
		return true;
	}
	return false;
}

static unsigned modal(struct top *t, int ch)
{
	switch (t->mode) {
	case MODE_HELP:
		if (ch == KEY_DOWN || ch == 'j') {
			t->help_top++;
			return TOP_DRAW_ALL;
		}
		if ((ch == KEY_UP || ch == 'k') && t->help_top > 0) {
			t->help_top--;
			return TOP_DRAW_ALL;
		}
		t->mode = MODE_MAIN;
		return ch == 'q' ? TOP_QUIT : TOP_DRAW_ALL;
	case MODE_FILTER:
		if (ch == KEY_ESC) {
			t->mode = MODE_MAIN;
			t->view.filter[0] = '\0';
			return TOP_REBUILD | TOP_DRAW_ALL;
		}
		if (ch == '\n' || ch == KEY_ENTER) {
			t->mode = MODE_MAIN;
			return TOP_DRAW_STATUS;
		}
		if (!edit(t, ch))
			return 0;
		/* incremental: the list follows every keystroke */
		snprintf(t->view.filter, sizeof(t->view.filter), "%s", t->input);
		return TOP_REBUILD | TOP_DRAW_LIST | TOP_DRAW_DETAILS | TOP_DRAW_STATUS;
	case MODE_EVICT_ASK:
		if (ch == KEY_ESC) {
			t->mode = MODE_MAIN;
			top_message(t, false, "evict cancelled");
			return TOP_DRAW_STATUS;
		}
		if (ch == '\n' || ch == KEY_ENTER)
			return evict_plan(t);
		return edit(t, ch) ? TOP_DRAW_STATUS : 0;
	case MODE_CONFIRM:
		if (ch == 'y' || ch == 'Y')
			return plan_write(t);
		t->mode = MODE_MAIN;
		top_message(t, false, "cancelled: nothing written");
		return TOP_DRAW_ALL;
	case MODE_MAIN:
		break;
	}
	return 0;
}

unsigned keys_handle(struct top *t, int ch)
{
	size_t i;

	if (ch == KEY_RESIZE)
		return TOP_LAYOUT | TOP_DRAW_ALL;
	if (ch == '\r')
		ch = '\n';
	if (t->mode != MODE_MAIN)
		return modal(t, ch);
	for (i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++)
		if (bindings[i].key == ch)
			return bindings[i].act(t);
	return 0;
}
