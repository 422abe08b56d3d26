/*
 * keys.c - lrugen-top's key bindings: one table, actions that return what
 * the loop must do (TOP_DRAW_*, TOP_REBUILD, TOP_REFRESH, TOP_QUIT...), and
 * the modal inputs (filter, eviction threshold, confirmation). Age and
 * evict: plan.c builds the commands, their confirmation text and writes.
 */
#include "keys.h"

#include <stdio.h>
#include <string.h>

#include "lru_units.h"
#include "plan.h"
#include "top.h"

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
	top_message(t, false, "threshold T = %s", lru_fmt_duration_exact(top_threshold(t), b, sizeof(b)));
	return TOP_RECOMPUTE | TOP_DRAW_ALL;
}

static unsigned zoom(struct top *t, int dir)
{
	char b[32];

	if ((dir < 0 && !t->zoom) || (dir > 0 && t->zoom + 1 >= tl_nr_zooms))
		return 0;
	t->zoom = (size_t)((long)t->zoom + dir);
	t->window_fixed = true;
	top_message(t, false, "window %s", lru_fmt_duration_exact(tl_zooms[t->zoom], b, sizeof(b)));
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

/* ---- age and evict: plan.c builds, shows and writes ------------------------------ */

static unsigned act_age(struct top *t)
{
	if (!plan_writable(t) || !plan_age(t))
		return TOP_DRAW_STATUS;
	t->mode = MODE_CONFIRM;
	return TOP_DRAW_ALL;
}

static unsigned act_evict(struct top *t)
{
	if (!plan_writable(t))
		return TOP_DRAW_STATUS;
	t->mode = MODE_EVICT_ASK;
	/* the shortest exact form ("2m"), which lru_parse_duration_ms reads back */
	lru_fmt_duration_exact(top_threshold(t), t->input, sizeof(t->input));
	t->input_len = strlen(t->input);
	return TOP_DRAW_STATUS;
}

/* Enter in the eviction prompt: plan the '-' commands for the selection. */
static unsigned evict_plan(struct top *t)
{
	t->mode = MODE_MAIN;
	if (!plan_evict(t, t->input))
		return TOP_DRAW_STATUS;
	t->mode = MODE_CONFIRM;
	return TOP_DRAW_ALL;
}

/* 'y' on the plan */
static unsigned plan_confirmed(struct top *t)
{
	t->mode = MODE_MAIN;
	plan_write(t);
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
		t->mode = MODE_MAIN;	/* q too: it closes the help, as in htop and less */
		return TOP_DRAW_ALL;
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
			return plan_confirmed(t);
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
