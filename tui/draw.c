/*
 * draw.c - lrugen-top's panels: header, list (table + timeline), details,
 * status bar, help and the confirmation dialog.
 *
 * Everything is drawn into ncurses windows with wnoutrefresh(); the loop
 * calls doupdate() once per frame, so the terminal only ever receives the
 * difference. Every string goes through put(), putn() or cell(), which escape
 * it for the terminal (lru_esc.h): a memcg named with ESC, CR or LF shows
 * \x1b, \x0d or \x0a and cannot blank or move a row; widths count the
 * escaped text. Colours come from one scheme table indexed by enum top_color;
 * without colours a monochrome table of attributes stands in.
 */
#include "draw.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_esc.h"
#include "lru_units.h"
#include "lru_warn.h"
#include "keys.h"
#include "top.h"

/* the most bytes one put() draws: a line of a wide terminal, escaped */
#define TEXT_MAX 2048

struct scheme {
	short fg, bg;
	int attr;		/* with colours */
	int mono;		/* without */
};

static const struct scheme scheme[CLR_NR] = {
	[CLR_DEFAULT] = { -1, -1, 0, 0 },
	[CLR_HEADER] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[CLR_HEADER_VALUE] = { -1, -1, A_BOLD, A_BOLD },
	[CLR_METER_HOT] = { COLOR_RED, -1, A_BOLD, A_BOLD },
	[CLR_METER_COLD] = { COLOR_BLUE, -1, A_BOLD, 0 },
	[CLR_COLHDR] = { COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE },
	[CLR_COLHDR_SORT] = { COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD | A_UNDERLINE },
	[CLR_SELECTED] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
	[CLR_GROUP] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[CLR_TREE] = { COLOR_CYAN, -1, 0, 0 },
	[CLR_DIM] = { COLOR_BLUE, -1, A_BOLD, A_DIM },
	[CLR_HOT] = { COLOR_RED, -1, 0, A_BOLD },
	[CLR_COLD] = { COLOR_BLUE, -1, A_BOLD, 0 },
	[CLR_HOT_BIG] = { COLOR_RED, -1, A_BOLD, A_BOLD },
	[CLR_COLD_BIG] = { COLOR_CYAN, -1, 0, 0 },
	[CLR_MARK_T] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[CLR_NOW] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
	[CLR_STATUS] = { -1, -1, 0, 0 },
	[CLR_STATUS_KEY] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
	[CLR_STATUS_ERR] = { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
	[CLR_STATUS_INFO] = { COLOR_BLACK, COLOR_GREEN, 0, A_BOLD },
	[CLR_DIALOG] = { COLOR_WHITE, COLOR_BLUE, 0, A_REVERSE },
	[CLR_DIALOG_TITLE] = { COLOR_YELLOW, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD },
	[CLR_WARN] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
};

struct col_def {
	const char *title;
	int width;
	int prio;		/* dropped lowest first when the screen is narrow */
};

static const struct col_def cols[COL_NR] = {
	[COL_NAME] = { "MEMCG", 0, 100 },
	[COL_HOST] = { "HOST", 12, 9 },
	[COL_NODE] = { "N", 2, 9 },
	[COL_TOTAL] = { "TOTAL", 6, 9 },
	[COL_ANON] = { "ANON", 6, 4 },
	[COL_FILE] = { "FILE", 6, 3 },
	[COL_HOT] = { "HOT", 6, 8 },
	[COL_COLD] = { "COLD", 6, 8 },
	[COL_COLDPCT] = { "COLD%", 5, 7 },
	[COL_GENS] = { "G", 1, 5 },
	[COL_YOUNG] = { "YOUNG", 6, 2 },
	[COL_OLD] = { "OLDEST", 6, 6 },
	[COL_REFAULT] = { "RFLT/s", 6, 1 },
	[COL_ADV] = { "ADV", 3, 3 },
	[COL_SAVE] = { "SAVE", 6, 3 },
};

#define NAME_MIN 12
#define NAME_MAX 40

/* shades of a timeline cell, by level; [0] UTF-8, [1] ASCII */
static const char *const shade[2][TL_LEVELS] = {
	{ " ", "\u2591", "\u2592", "\u2593", "\u2588" },
	{ " ", ".", ":", "+", "#" },
};

void draw_init_colors(struct top *t)
{
	int i;

	t->colors = has_colors() && start_color() == OK;
	if (t->colors)
		use_default_colors();
	for (i = 0; i < CLR_NR; i++) {
		if (t->colors && init_pair((short)(i + 1), scheme[i].fg, scheme[i].bg) == OK)
			t->attr[i] = (int)COLOR_PAIR(i + 1) | scheme[i].attr;
		else
			t->attr[i] = scheme[i].mono;
	}
}

/* ---- geometry ---------------------------------------------------------------- */

static int table_fixed(const struct top_geom *g)
{
	int i, w = 0;

	for (i = 1; i < COL_NR; i++)
		if (g->col_on[i])
			w += cols[i].width + 1;
	return w;
}

static void compute_geometry(struct top *t)
{
	struct top_geom *g = &t->g;
	int tl_min, avail, i;

	getmaxyx(stdscr, g->lines, g->cols);
	for (i = 0; i < COL_NR; i++)
		g->col_on[i] = true;
	/* host names: a column, unless groups or labels already say them */
	g->col_on[COL_HOST] = t->view.frame.nr > 1 && t->view.group != GROUP_HOST &&
			      t->view.group != GROUP_MEMCG;
	/* refault rates only where some are known (memory.stat, two frames) */
	g->col_on[COL_REFAULT] = t->view.total.refault_bps >= 0;
	/* the store's advice (fleet mode) where it has some */
	g->col_on[COL_ADV] = g->col_on[COL_SAVE] = t->view.frame.nr_advice > 0;
	/* the timeline is the point: two fifths of a wide screen */
	tl_min = g->cols < 100 ? 20 : g->cols * 2 / 5;
	for (;;) {
		int low = -1;

		avail = g->cols - table_fixed(g) - tl_min - 2;
		if (avail >= NAME_MIN + 4)
			break;
		for (i = 1; i < COL_NR; i++)
			if (g->col_on[i] && (low < 0 || cols[i].prio < cols[low].prio))
				low = i;
		if (low < 0 || cols[low].prio >= 9)
			break;
		g->col_on[low] = false;
	}
	g->name_w = avail > NAME_MAX ? NAME_MAX : avail < NAME_MIN ? NAME_MIN : avail;
	g->tl_x = g->name_w + table_fixed(g) + 1;
	g->tl_w = g->cols - g->tl_x - 1;
	if (g->tl_w < 0)
		g->tl_w = 0;
	/* rows: header 2 lines, column titles 1, status 1 */
	g->details_h = 0;
	if (t->details) {
		g->details_h = g->lines / 2;
		if (g->details_h > 16)
			g->details_h = 16;
		if (g->lines - 4 - g->details_h < 3)
			g->details_h = g->lines - 7 > 0 ? g->lines - 7 : 0;
	}
	g->list_y = 2;
	g->list_h = g->lines - 3 - g->details_h;	/* includes the title line */
	if (g->list_h < 1)
		g->list_h = 1;
	g->details_y = g->list_y + g->list_h;
}

static WINDOW *remake(WINDOW *w, int h, int wd, int y, int x)
{
	if (w)
		delwin(w);
	if (h <= 0 || wd <= 0)
		return NULL;
	w = newwin(h, wd, y, x);
	if (w)
		leaveok(w, TRUE);
	return w;
}

void draw_layout(struct top *t)
{
	struct top_geom *g = &t->g;

	/*
	 * stdscr stays blank under the panels; a resize touches it, and getch()
	 * would then repaint it over them: copy it out first, untouched after.
	 */
	werase(stdscr);
	wnoutrefresh(stdscr);
	compute_geometry(t);
	t->w_header = remake(t->w_header, 2, g->cols, 0, 0);
	t->w_list = remake(t->w_list, g->list_h, g->cols, g->list_y, 0);
	t->w_details = remake(t->w_details, g->details_h, g->cols, g->details_y, 0);
	t->w_status = remake(t->w_status, 1, g->cols, g->lines - 1, 0);
	view_scroll_into(&t->view, (size_t)(g->list_h > 1 ? g->list_h - 1 : 1));
}

void draw_free(struct top *t)
{
	WINDOW **w[] = { &t->w_header, &t->w_list, &t->w_details, &t->w_status };
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (*w[i]) {
			delwin(*w[i]);
			*w[i] = NULL;
		}
}

/* ---- helpers ----------------------------------------------------------------- */

/* s escaped for the terminal, at most size - 1 bytes of it (never a split escape or character). */
static void put_esc(WINDOW *w, int attr, const char *s, size_t size)
{
	char buf[TEXT_MAX];

	lru_esc(buf, size < sizeof(buf) ? size : sizeof(buf), s, strlen(s), LRU_ESC_TERM);
	wattrset(w, attr);
	waddstr(w, buf);
}

static void put(WINDOW *w, int attr, const char *s)
{
	put_esc(w, attr, s, TEXT_MAX);
}

/* At most n bytes (columns, for ASCII) of s, escaped. */
static void putn(WINDOW *w, int attr, const char *s, int n)
{
	if (n <= 0)
		return;
	put_esc(w, attr, s, (size_t)n + 1);
}

static void fill_to(WINDOW *w, int attr, int x)
{
	int y, cx;

	getyx(w, y, cx);
	wattrset(w, attr);
	for (; cx < x; cx++)
		mvwaddch(w, y, cx, ' ');
}

/* ---- header ------------------------------------------------------------------ */

/*
 * The header's first line: fields side by side. Where they do not fit, the
 * least important go whole (prio 0 goes first). The source's label (what
 * the user typed) first loses the middle of its path, down to LABEL_MIN
 * columns, then goes. No field is ever shown cut.
 */
struct hfield {
	const char *name;
	char value[256];
	int prio;
};

#define LABEL_PRIO 1
#define LABEL_MIN 28	/* columns a shortened label keeps */

static int hfield_width(const struct hfield *f)
{
	return (int)(strlen(f->name) + strlen(f->value)) + 2;
}

/* "replay /a/very/long/spool" in room columns: "replay .../long/spool" */
static void hfield_shorten(struct hfield *f, int room)
{
	char *sp = strchr(f->value, ' ');
	size_t head = sp ? (size_t)(sp - f->value) + 1 : 0, len = strlen(f->value);
	int keep = room - 2 - (int)strlen(f->name) - (int)head - 3;

	if (keep < 8 || (size_t)keep >= len - head)
		return;
	memmove(f->value + head + 3, f->value + len - keep, (size_t)keep + 1);
	memcpy(f->value + head, "...", 3);
}

static void header_fields(WINDOW *w, struct top *t, struct hfield *f, size_t n, int limit)
{
	bool shown[16];
	int need = 0;

	for (size_t i = 0; i < n; i++) {
		shown[i] = true;
		need += hfield_width(&f[i]);
	}
	for (int prio = 0; need > limit && prio < 8; prio++)
		for (size_t i = n; i-- > 0 && need > limit;) {
			if (f[i].prio != prio || !shown[i])
				continue;
			if (prio == LABEL_PRIO) {	/* first shortened, then gone */
				int was = hfield_width(&f[i]), want = was - (need - limit);

				hfield_shorten(&f[i], want > LABEL_MIN ? want : LABEL_MIN);
				need += hfield_width(&f[i]) - was;
				if (need <= limit)
					break;
			}
			shown[i] = false;
			need -= hfield_width(&f[i]);
		}
	for (size_t i = 0; i < n; i++) {
		if (!shown[i])
			continue;
		putn(w, t->attr[CLR_HEADER], f[i].name, limit - getcurx(w));
		putn(w, t->attr[CLR_HEADER_VALUE], f[i].value, limit - getcurx(w));
		putn(w, t->attr[CLR_DEFAULT], "  ", limit - getcurx(w));
	}
}

/* A bar of width w: hot, then cold, then the rest of total. */
static void meter(WINDOW *win, struct top *t, uint64_t hot, uint64_t cold, uint64_t total, int w)
{
	int h, c, i;

	if (!total)
		total = hot + cold ? hot + cold : 1;
	h = (int)((double)hot * w / (double)total + 0.5);
	c = (int)((double)cold * w / (double)total + 0.5);
	if (hot && !h)
		h = 1;
	if (cold && !c)
		c = 1;
	if (h + c > w)
		c = w - h > 0 ? w - h : 0;
	put(win, t->attr[CLR_DEFAULT], "[");
	for (i = 0; i < w; i++) {
		if (i < h)
			put(win, t->attr[CLR_METER_HOT], t->utf8 ? "\u2588" : "h");
		else if (i < h + c)
			put(win, t->attr[CLR_METER_COLD], t->utf8 ? "\u2592" : "c");
		else
			put(win, t->attr[CLR_DIM], " ");
	}
	put(win, t->attr[CLR_DEFAULT], "]");
}

static void draw_header(struct top *t)
{
	WINDOW *w = t->w_header;
	const struct top_view *v = &t->view;
	char buf[256], right[96], b1[32], b2[32], b3[32];
	const struct lru_snapshot *s = v->frame.nr ? v->frame.snaps[0] : NULL;
	enum lru_iface_mode iface;
	struct hfield f[10];
	size_t i, nf = 0;
	int x, limit;
	bool wide;

	if (!w)
		return;
	werase(w);
	wattrset(w, t->attr[CLR_DEFAULT]);
	/* right: play state, then the fields left of it */
	if (v->frame.count)
		snprintf(right, sizeof(right), "%s%sframe %zu/%zu %s", t->paused ? "PAUSED" : "",
			 t->paused ? " " : "", v->frame.index + 1, v->frame.count,
			 lru_fmt_clock(v->frame.now_ms, b3, sizeof(b3)));
	else if (t->paused)
		snprintf(right, sizeof(right), "PAUSED");
	else
		snprintf(right, sizeof(right), "every %s", lru_fmt_duration_exact(t->delay_ms, b3, sizeof(b3)));
	limit = t->g.cols - (int)strlen(right) - 1;
	if (limit < t->g.cols / 2) {
		limit = t->g.cols;
	} else {
		wmove(w, 0, limit + 1);
		put(w, t->attr[CLR_DEFAULT], right);
	}
	wmove(w, 0, 0);
	wide = t->g.cols >= 110;
#define HF(n, p, ...) (f[nf].name = (n), f[nf].prio = (p), \
		       snprintf(f[nf].value, sizeof(f[nf].value), __VA_ARGS__), nf++)
	if (wide)
		HF("lrugen-top", 0, "%s", "");
	if (v->frame.nr > 1) {
		HF("hosts ", 7, "%zu", v->frame.nr);
	} else {
		HF("", 7, "%s", s && s->host.host ? s->host.host : "-");
		HF(wide ? "kernel " : "", 3, "%s", s && s->host.kernel ? s->host.kernel : "-");
		if (s && s->host.enabled && wide)
			HF("MGLRU ", 4, "%s 0x%04x", s->host.enabled & 1 ? "on" : "OFF", s->host.enabled);
		else
			HF("MGLRU ", 4, "%s", !s || !s->host.enabled ? "?" : s->host.enabled & 1 ? "on" : "OFF");
		/*
		 * the interface read: the file's name, or the mode's when narrow; a
		 * replay's snapshot says what its collector read
		 */
		iface = t->src->iface;
		if (t->src->kind == TOP_SRC_REPLAY && s)
			iface = s->source == LRU_SRC_CGROUP ? LRU_IFACE_CGROUP : LRU_IFACE_DEBUGFS;
		if (iface == LRU_IFACE_CGROUP)
			HF("", 2, "%s", wide ? LRU_CGROUP_LRU_GEN : "cgroup");
		else if (iface == LRU_IFACE_DEBUGFS)
			HF("", 2, "%s", "debugfs");
	}
	HF("T ", 6, "%s", lru_fmt_duration_exact(top_threshold(t), b1, sizeof(b1)));
	HF(wide ? "window " : "win ", 5, "%s", lru_fmt_duration_exact(tl_zooms[t->zoom], b2, sizeof(b2)));
	HF("", LABEL_PRIO, "%s", t->src->label);
#undef HF
	header_fields(w, t, f, nf, limit);

	/* line 2: node meters side by side (one host), or fleet totals */
	wmove(w, 1, 0);
	if (v->frame.nr > 1 || !v->nr_nodes) {
		snprintf(buf, sizeof(buf), "%zu lruvecs  total %s  hot ", v->nr_items,
			 top_fmt_size(v->total.total, b1, sizeof(b1)));
		put(w, t->attr[CLR_DEFAULT], buf);
		put(w, t->attr[CLR_METER_HOT], top_fmt_size(v->total.hot, b2, sizeof(b2)));
		put(w, t->attr[CLR_DEFAULT], "  cold ");
		put(w, t->attr[CLR_METER_COLD], top_fmt_size(v->total.cold, b3, sizeof(b3)));
		snprintf(buf, sizeof(buf), " (%d%%)  ",
			 v->total.total ? (int)(v->total.cold * 100 / v->total.total) : 0);
		put(w, t->attr[CLR_DEFAULT], buf);
		x = getcurx(w);
		if (t->g.cols - x > 12)
			meter(w, t, v->total.hot, v->total.cold, 0, t->g.cols - x - 3 > 30 ? 30 : t->g.cols - x - 3);
	} else {
		int per = t->g.cols / (int)v->nr_nodes;

		for (i = 0; i < v->nr_nodes; i++) {
			const struct top_node_total *nt = &v->nodes[i];
			uint64_t of = nt->mem_total ? nt->mem_total : nt->st.total;
			int bar;

			wmove(w, 1, (int)i * per);
			snprintf(buf, sizeof(buf), "N%d", nt->node);
			put(w, t->attr[CLR_HEADER], buf);
			snprintf(buf, sizeof(buf), " %s/%s", top_fmt_size(nt->st.total, b1, sizeof(b1)),
				 top_fmt_size(of, b2, sizeof(b2)));
			bar = per - 4 - (int)strlen(buf) - 3;
			if (bar > 24)
				bar = 24;
			if (bar >= 4) {
				put(w, 0, " ");
				meter(w, t, nt->st.hot, nt->st.cold, of, bar);
			}
			put(w, t->attr[CLR_DEFAULT], buf);
		}
	}
	wnoutrefresh(w);
}

/* ---- list ----------------------------------------------------------------------- */

/* s escaped and cut to width bytes, aligned in width columns, then a space. */
static void cell(WINDOW *w, int attr, const char *s, int width, bool right)
{
	char text[256], buf[300];

	if (width < 0)
		width = 0;
	lru_esc(text, (size_t)width < sizeof(text) ? (size_t)width + 1 : sizeof(text), s, strlen(s),
		LRU_ESC_TERM);
	snprintf(buf, sizeof(buf), right ? "%*s " : "%-*s ", width, text);
	put(w, attr, buf);
}

/*
 * A right-aligned cell whose value is a bound: '!' (in mark_attr) just
 * before it, inside the cell's width (a size takes 5 columns at most).
 */
static void cell_marked(WINDOW *w, int attr, int mark_attr, const char *s, int width)
{
	int pad = width - 1 - (int)strlen(s);

	if (pad < 0) {
		cell(w, attr, s, width, true);
		return;
	}
	wattrset(w, attr);
	wprintw(w, "%*s", pad, "");
	put(w, mark_attr, "!");
	cell(w, attr, s, width - 1 - pad, true);
}

/*
 * "! code: text  ! code: text" for the lruvec warnings in mask, into buf:
 * the whole explanation (full), or what it means for the figures (a
 * status bar).
 */
static const char *warn_text(uint32_t mask, bool full, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (uint32_t bit = 1; bit && bit <= mask && used < size; bit <<= 1)
		if ((mask & bit) && lru_warn_name(bit))
			used += (size_t)snprintf(buf + used, size - used, "%s! %s: %s", used ? "  " : "",
						 lru_warn_name(bit), full ? lru_warn_help(bit)
									  : lru_warn_brief(false, bit));
	return buf;
}

static void col_value(const struct top_view *v, const struct top_row *r, enum top_col c,
		      char *buf, size_t size)
{
	const struct top_stats *s = &r->st;

	buf[0] = '\0';
	switch (c) {
	case COL_HOST:
		snprintf(buf, size, "%s", r->host == TOP_NONE ? "*" : view_host(v, r->host));
		break;
	case COL_NODE:
		if (r->node >= 0)
			snprintf(buf, size, "%d", r->node);
		else
			snprintf(buf, size, "*");
		break;
	case COL_TOTAL: top_fmt_size(s->total, buf, size); break;
	case COL_ANON: top_fmt_size(s->anon, buf, size); break;
	case COL_FILE: top_fmt_size(s->file, buf, size); break;
	case COL_HOT: top_fmt_size(s->hot, buf, size); break;
	case COL_COLD: top_fmt_size(s->cold, buf, size); break;
	case COL_COLDPCT:
		snprintf(buf, size, "%d%%", s->total ? (int)(s->cold * 100 / s->total) : 0);
		break;
	case COL_GENS:
		snprintf(buf, size, "%u", s->nr_gens);
		break;
	case COL_YOUNG:
		if (s->nr)
			lru_fmt_duration(s->young_ms, buf, size);
		break;
	case COL_OLD:
		if (s->nr)
			lru_fmt_duration(s->old_ms, buf, size);
		break;
	case COL_REFAULT:
		if (s->refault_bps >= 0)
			top_fmt_size((uint64_t)s->refault_bps, buf, size);
		else
			snprintf(buf, size, "-");
		break;
	case COL_ADV:
		if (s->adv_ms == TOP_ADV_MIXED)
			snprintf(buf, size, "*");
		else if (s->adv_ms)
			lru_fmt_duration_exact(s->adv_ms, buf, size);
		else
			snprintf(buf, size, "-");
		break;
	case COL_SAVE:
		if (s->adv_ms)
			top_fmt_size(s->save, buf, size);
		else
			snprintf(buf, size, "-");
		break;
	case COL_NAME:
	case COL_NR:
		break;
	}
}

static void draw_titles(struct top *t, WINDOW *w)
{
	const struct top_geom *g = &t->g;
	struct tl_axis ax = { t->view.frame.now_ms, tl_zooms[t->zoom], g->tl_w, 0 };
	char axis[1024];
	int i;

	wmove(w, 0, 0);
	for (i = 0; i < COL_NR; i++) {
		int a = t->attr[i == (int)t->view.sort ? CLR_COLHDR_SORT : CLR_COLHDR];

		if (i == COL_NAME) {
			const char *title = t->view.group == GROUP_MEMCG ? "MEMCG / HOST" :
					    t->view.group == GROUP_HOST ? "HOST / MEMCG" :
					    t->view.group == GROUP_NODE ? "NODE / MEMCG" : "MEMCG";

			cell(w, a, title, g->name_w, false);
		} else if (g->col_on[i]) {
			cell(w, a, cols[i].title, cols[i].width, true);
		}
	}
	if (g->tl_w > 0 && g->tl_w < (int)sizeof(axis)) {
		tl_axis_labels(&ax, top_threshold(t), axis);
		axis[g->tl_w] = '\0';
		putn(w, t->attr[CLR_COLHDR], axis, g->tl_w);
	}
	fill_to(w, t->attr[CLR_COLHDR], g->cols);
}

/* The glyphs of one frame's timeline: [cold][big] shades, the T mark and the now edge. */
struct tl_glyphs {
	cchar_t shade[2][TL_LEVELS], shade_t[2][TL_LEVELS], blank, mark, now;
};

static void glyph(cchar_t *cc, const char *utf8, int attr)
{
	wchar_t wc[2] = { 0, 0 };

	if (mbtowc(&wc[0], utf8, strlen(utf8)) < 0)
		wc[0] = L'?';
	setcchar(cc, wc, (attr_t)(attr & ~A_COLOR), (short)PAIR_NUMBER(attr), NULL);
}

static void glyphs_init(struct top *t, struct tl_glyphs *gl)
{
	const char *const *sh = shade[t->utf8 ? 0 : 1];
	int cold, l, a;

	for (cold = 0; cold < 2; cold++)
		for (l = 0; l < TL_LEVELS; l++) {
			a = t->attr[l >= 4 ? (cold ? CLR_COLD_BIG : CLR_HOT_BIG) : (cold ? CLR_COLD : CLR_HOT)];
			glyph(&gl->shade[cold][l], sh[l], a);
			glyph(&gl->shade_t[cold][l], sh[l], a | A_UNDERLINE);
		}
	glyph(&gl->blank, " ", t->attr[CLR_DEFAULT]);
	glyph(&gl->mark, t->utf8 ? "\u250a" : "|", t->attr[CLR_MARK_T]);
	glyph(&gl->now, t->utf8 ? "\u2502" : "|", t->attr[CLR_NOW]);
}

static void draw_timeline(struct top *t, WINDOW *w, const struct top_row *r, uint8_t *cells,
			  uint64_t *cell_bytes, const struct tl_glyphs *gl)
{
	const struct top_view *v = &t->view;
	const struct top_geom *g = &t->g;
	struct tl_axis ax = { v->frame.now_ms, tl_zooms[t->zoom], g->tl_w, v->max_gen_bytes };
	uint64_t thr = top_threshold(t);
	int tcol = thr < ax.window_ms ? tl_cell(&ax, ax.now_ms - (int64_t)thr) : -1;
	uint32_t i;
	int c;

	memset(cells, 0, (size_t)g->tl_w);
	memset(cell_bytes, 0, (size_t)g->tl_w * sizeof(*cell_bytes));
	for (i = 0; i < r->nr_refs; i++) {
		const struct top_item *it = view_ref(v, r, i);

		tl_paint(&ax, it->snap, it->lv, thr, cells, cell_bytes);
	}
	for (c = 0; c < g->tl_w; c++) {
		unsigned lvl = TL_LEVEL(cells[c]);
		int cold = !!(cells[c] & TL_COLD);

		if (!lvl)
			wadd_wch(w, c == tcol ? &gl->mark : &gl->blank);
		else
			wadd_wch(w, c == tcol ? &gl->shade_t[cold][lvl] : &gl->shade[cold][lvl]);
	}
	wadd_wch(w, &gl->now);
}

static void draw_row(struct top *t, WINDOW *w, int y, const struct top_row *r, bool selected,
		     uint8_t *cells, uint64_t *cell_bytes, const struct tl_glyphs *gl)
{
	const struct top_view *v = &t->view;
	const struct top_geom *g = &t->g;
	int base = selected ? t->attr[CLR_SELECTED] : t->attr[CLR_DEFAULT];
	char label[LRU_PATH_MAX], buf[64];
	int indent = 0, x, i;
	const char *mark = "";

	wmove(w, y, 0);
	if (v->tree || v->group != GROUP_NONE)
		indent = r->depth * 2 > g->name_w / 2 ? g->name_w / 2 : r->depth * 2;
	view_row_label(v, r, label, sizeof(label));
	if (r->fold == FOLD_OPEN && r->show_name)
		mark = t->utf8 ? "\u25be " : "- ";
	else if (r->fold == FOLD_CLOSED && r->show_name)
		mark = t->utf8 ? "\u25b8 " : "+ ";
	for (x = 0; x < indent; x++)
		put(w, base, " ");
	if (*mark || ((v->tree || v->group != GROUP_NONE) && r->kind != ROW_GROUP)) {
		/* the fold mark's column is kept in trees, so names line up */
		put(w, selected ? base : t->attr[CLR_TREE], *mark ? mark : "  ");
		x += 2;
	}
	/* later nodes of a memcg repeat its name, dimmed */
	putn(w, selected ? base : r->kind == ROW_GROUP ? t->attr[CLR_GROUP] :
		 !r->show_name ? t->attr[CLR_DIM] : base, label, g->name_w - x);
	fill_to(w, base, g->name_w + 1);
	for (i = 1; i < COL_NR; i++) {
		int a = base | (r->kind == ROW_GROUP ? A_BOLD : 0);

		if (!g->col_on[i])
			continue;
		col_value(v, r, (enum top_col)i, buf, sizeof(buf));
		/* a warned row: its hot bytes are a lower bound (and cold an upper one) */
		if (i == COL_HOT && r->st.warnings)
			cell_marked(w, a, selected ? a | (int)A_BOLD : t->attr[CLR_WARN], buf, cols[i].width);
		else
			cell(w, a, buf, cols[i].width, true);
	}
	if (g->tl_w > 0)
		draw_timeline(t, w, r, cells, cell_bytes, gl);
}

static void draw_list(struct top *t)
{
	struct top_view *v = &t->view;
	WINDOW *w = t->w_list;
	int h = t->g.list_h - 1, y;
	struct tl_glyphs gl;
	uint8_t *cells;
	uint64_t *cell_bytes;

	if (!w)
		return;
	werase(w);
	draw_titles(t, w);
	glyphs_init(t, &gl);
	view_scroll_into(v, (size_t)(h > 0 ? h : 1));
	cells = malloc((size_t)t->g.tl_w + 1);
	cell_bytes = malloc(((size_t)t->g.tl_w + 1) * sizeof(*cell_bytes));
	for (y = 0; cells && cell_bytes && y < h && v->top + (size_t)y < v->nr_rows; y++) {
		size_t i = v->top + (size_t)y;

		draw_row(t, w, y + 1, &v->rows[i], i == v->sel, cells, cell_bytes, &gl);
	}
	free(cells);
	free(cell_bytes);
	if (!v->nr_rows) {
		wattrset(w, t->attr[CLR_DIM]);
		mvwaddstr(w, 2, 2, !t->have_frame ? "waiting for data..." :
				   v->filter[0] ? "no lruvec matches the filter (/ to change, Esc to clear)" :
						  "no lruvecs");
	}
	wnoutrefresh(w);
}

/* ---- details ----------------------------------------------------------------------- */

static void tier_text(const struct lru_lruvec *lv, unsigned g, char *buf, size_t size)
{
	static const char letters[LRU_TC_NR] = { 'r', 'e', 'p', 'R', 'T' };
	size_t len = 0;
	int i, type, c;

	buf[0] = '\0';
	if (!lv->full || !lv->full->has_tiers[g])
		return;
	for (type = 0; type < LRU_NR_TYPES; type++) {
		uint64_t sum[LRU_TC_NR] = { 0 };
		uint32_t present = 0;

		for (i = 0; i < LRU_NR_TIERS; i++)
			for (c = 0; c < LRU_TC_NR; c++)
				if (lv->full->tiers[g][i].present & (1u << (type * LRU_TC_NR + c))) {
					sum[c] += lv->full->tiers[g][i].v[type][c];
					present |= 1u << c;
				}
		if (!present)
			continue;
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s", len ? "  " : "",
					type ? "file" : "anon");
		for (c = 0; c < LRU_TC_NR; c++)
			if (present & (1u << c))
				len += (size_t)snprintf(buf + len, len < size ? size - len : 0, " %c%" PRIu64,
							letters[c], sum[c]);
	}
}

static int details_lruvec(struct top *t, WINDOW *w, int y, int h, const struct top_item *it)
{
	const struct lru_lruvec *lv = it->lv;
	uint64_t page = it->snap->page_size ? it->snap->page_size : 4096;
	uint64_t thr = top_threshold(t);
	char b1[32], b2[32], b3[32], b4[32], b5[32], tiers[160], line[512];
	unsigned gi;

	if (y < h) {
		wattrset(w, t->attr[CLR_HEADER]);
		snprintf(line, sizeof(line), "  node %d  %-6s %-12s %7s %7s %7s %7s %-5s %s", lv->node,
			 "SEQ", "BORN", "AGE", "ANON", "FILE", "TOTAL", "AT T",
			 it->snap->source == LRU_SRC_CGROUP
				 ? "TIERS not available through " LRU_CGROUP_LRU_GEN
				 : "TIERS (sum r e p / R T)");
		wmove(w, y++, 0);
		putn(w, t->attr[CLR_HEADER], line, t->g.cols);
	}
	for (gi = lv->nr_gens; gi-- > 0 && y < h;) {
		const struct lru_gen *gen = &lv->gens[gi];
		bool cold = gi + 1 < lv->nr_gens && lv->gens[gi + 1].age_ms > thr;

		tier_text(lv, gi, tiers, sizeof(tiers));
		snprintf(line, sizeof(line), "          %-6" PRIu64 " %-12s %7s %7s%c %6s%c %7s ",
			 gen->seq, lru_fmt_clock(gen->birth_ms, b1, sizeof(b1)),
			 lru_fmt_duration(gen->age_ms, b2, sizeof(b2)),
			 top_fmt_size(gen->pages[LRU_ANON] * page, b3, sizeof(b3)),
			 gen->evicted & 1 ? 'x' : ' ',
			 top_fmt_size(gen->pages[LRU_FILE] * page, b4, sizeof(b4)),
			 gen->evicted & 2 ? 'x' : ' ',
			 top_fmt_size((gen->pages[LRU_ANON] + gen->pages[LRU_FILE]) * page, b5,
				       sizeof(b5)));
		wmove(w, y, 0);
		putn(w, t->attr[CLR_DEFAULT], line, t->g.cols);
		putn(w, t->attr[cold ? CLR_COLD : CLR_HOT], cold ? "cold " : "hot  ", 5);
		put(w, t->attr[CLR_DEFAULT], " ");
		putn(w, t->attr[CLR_DIM], tiers, t->g.cols - getcurx(w));
		y++;
	}
	return y;
}

/*
 * The row's warnings explained from line y, each word on the line it fits
 * (continued under the code); returns the next free line.
 */
static int details_warnings(struct top *t, WINDOW *w, int y, uint32_t mask)
{
	char text[512];
	const char *p;

	for (uint32_t bit = 1; bit && bit <= mask && y < t->g.details_h; bit <<= 1) {
		if (!(mask & bit) || !lru_warn_name(bit))
			continue;
		wmove(w, y, 2);
		for (p = warn_text(bit, true, text, sizeof(text)); *p && y < t->g.details_h; p += strspn(p, " ")) {
			int len = (int)strcspn(p, " ");

			if (getcurx(w) > 4 && getcurx(w) + 1 + len >= t->g.cols)
				wmove(w, ++y, 4);
			else if (getcurx(w) > 2)
				put(w, t->attr[CLR_WARN], " ");
			if (y < t->g.details_h)
				putn(w, t->attr[CLR_WARN], p, len < t->g.cols - 4 ? len : t->g.cols - 4);
			p += len;
		}
		y++;
	}
	return y < t->g.details_h ? y : t->g.details_h;
}

static void draw_details(struct top *t)
{
	const struct top_view *v = &t->view;
	const struct top_row *r = view_selected(v);
	WINDOW *w = t->w_details;
	int h = t->g.details_h, y = 1;
	char label[LRU_PATH_MAX], line[1024], b1[32], b2[32], b3[32], b4[32], b5[32];
	const struct lru_memcg *m;
	uint32_t i;

	if (!w)
		return;
	werase(w);
	wattrset(w, t->attr[CLR_COLHDR]);
	if (!r) {
		mvwaddnstr(w, 0, 0, " details: nothing selected", t->g.cols);
		fill_to(w, t->attr[CLR_COLHDR], t->g.cols);
		wnoutrefresh(w);
		return;
	}
	if (r->kind == ROW_GROUP) {
		snprintf(line, sizeof(line), " %s: %u lruvecs", view_row_label(v, r, label, sizeof(label)),
			 r->st.nr);
	} else {
		char id[32];

		m = v->memcgs[r->mc].m;
		/* memory.lru_gen names no memcg id: say so rather than show 0 */
		if (lru_memcg_uses_cgroup(view_ref(v, r, 0)->snap, m))
			snprintf(id, sizeof(id), "- (%s)", LRU_CGROUP_LRU_GEN);
		else
			snprintf(id, sizeof(id), "%" PRIu64, m->id);
		snprintf(line, sizeof(line), " %s  memcg id %s  inode %" PRIu64 "%s%s%s",
			 view_path(v, r->mc), id, m->ino, r->node >= 0 ? "" : "  all nodes",
			 v->frame.nr > 1 ? "  host " : "", v->frame.nr > 1 ? view_host(v, r->host) : "");
	}
	wmove(w, 0, 0);
	putn(w, t->attr[CLR_COLHDR], line, t->g.cols);
	fill_to(w, t->attr[CLR_COLHDR], t->g.cols);
	if (r->kind == ROW_GROUP) {
		snprintf(line, sizeof(line), "  total %s  anon %s  file %s  hot %s  cold %s at T",
			 top_fmt_size(r->st.total, b1, sizeof(b1)), top_fmt_size(r->st.anon, b2, sizeof(b2)),
			 top_fmt_size(r->st.file, b3, sizeof(b3)), top_fmt_size(r->st.hot, b4, sizeof(b4)),
			 top_fmt_size(r->st.cold, b5, sizeof(b5)));
		wmove(w, y++, 0);
		putn(w, t->attr[CLR_DEFAULT], line, t->g.cols);
		details_warnings(t, w, y, r->st.warnings);
		wnoutrefresh(w);
		return;
	}
	/* memory.stat essentials of the memcg */
	m = v->memcgs[r->mc].m;
	wmove(w, y, 0);
	if (m->has_stats) {
		const struct lru_memcg_stats *st = &m->stats;

		snprintf(line, sizeof(line),
			 "  memory.stat  anon %s  file %s  inactive_file %s  current %s  "
			 "refaults anon %" PRIu64 " file %" PRIu64 "  psi some %.2f full %.2f",
			 top_fmt_size(st->anon_bytes, b1, sizeof(b1)),
			 top_fmt_size(st->file_bytes, b2, sizeof(b2)),
			 top_fmt_size(st->inactive_file_bytes, b3, sizeof(b3)),
			 top_fmt_size(st->current_bytes, b4, sizeof(b4)), st->refault_anon,
			 st->refault_file, st->some_avg10, st->full_avg10);
		putn(w, t->attr[CLR_DEFAULT], line, t->g.cols);
	} else {
		putn(w, t->attr[CLR_DIM], "  memory.stat  not known for this memcg and source", t->g.cols);
	}
	y++;
	y = details_warnings(t, w, y, r->st.warnings);
	for (i = 0; i < r->nr_refs && y < h; i++)
		y = details_lruvec(t, w, y, h, view_ref(v, r, i));
	wnoutrefresh(w);
}

/* ---- status bar -------------------------------------------------------------------- */

static void draw_status(struct top *t)
{
	static const char *const hints[][2] = {
		{ "F1", "Help" }, { "/", "Filter" }, { "<>", "Sort" }, { "t", "Tree" },
		{ "n", "Nodes" }, { "g", "Group" }, { "T", "Thresh" }, { "+-", "Zoom" },
		{ "Enter", "Details" }, { "a", "Age" }, { "e", "Evict" }, { "q", "Quit" },
	};
	WINDOW *w = t->w_status;
	bool msg = t->msg[0] && lru_now_ms() < t->msg_until_ms;
	char buf[600];
	size_t i;

	if (!w)
		return;
	werase(w);
	wmove(w, 0, 0);
	if (t->mode == MODE_FILTER || t->mode == MODE_EVICT_ASK) {
		put(w, t->attr[CLR_STATUS_KEY], t->mode == MODE_FILTER ? "Filter:" : "Evict older than:");
		put(w, t->attr[CLR_DEFAULT], " ");
		put(w, t->attr[CLR_HEADER_VALUE], t->input);
		put(w, t->attr[CLR_DEFAULT] | A_BLINK, "_");
		put(w, t->attr[CLR_DIM], t->mode == MODE_FILTER ? "  Enter keep  Esc clear" :
								  "  Enter plan  Esc cancel");
	} else if (msg && t->msg_err) {
		putn(w, t->attr[CLR_STATUS_ERR], t->msg, t->g.cols);
	} else if (t->fetch_err[0]) {	/* outranks a passing info message */
		putn(w, t->attr[CLR_STATUS_ERR], t->fetch_err, t->g.cols);
	} else if (msg) {
		putn(w, t->attr[CLR_STATUS_INFO], t->msg, t->g.cols);
	} else if (t->view.total.warnings) {	/* what the rows' '!' means; hints are in F1 */
		putn(w, t->attr[CLR_WARN], warn_text(t->view.total.warnings, false, buf, sizeof(buf)),
		     t->g.cols);
	} else if (t->src->note[0]) {	/* e.g. the root memcg left out: the hints are in F1 */
		putn(w, t->attr[CLR_STATUS_INFO], t->src->note, t->g.cols);
	} else {
		for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
			if (getcurx(w) + (int)strlen(hints[i][0]) + (int)strlen(hints[i][1]) + 1 >= t->g.cols)
				break;
			put(w, t->attr[CLR_STATUS_KEY], hints[i][0]);
			snprintf(buf, sizeof(buf), "%s ", hints[i][1]);
			put(w, t->attr[CLR_STATUS], buf);
		}
	}
	wnoutrefresh(w);
}

/* ---- overlays ------------------------------------------------------------------------ */

static void draw_help(struct top *t)
{
	char lines[64][96];
	size_t n = keys_help(lines, 64), i;
	WINDOW *w = newwin(t->g.lines - 1, t->g.cols, 0, 0);
	const char *legend[] = {
		"",
		"Each row draws its generations on one wall-clock axis: generation s spans",
		"from its birth to the birth of s+1 (when its pages were last referenced).",
		t->utf8 ? "Shade = size (log scale): \u2591 \u2592 \u2593 \u2588 largest on screen"
			: "Shade = size (log scale): . : + # largest on screen",
		NULL,	/* the colour key, drawn in the colours it names */
		t->utf8 ? "\u250a marks now - T, \u2502 is now." : "| marks now - T and now.",
		"! before HOT: the row's figures are bounds (hot at least, cold at most);",
		"the status bar and Enter say why.",
	};
	int y = 2;

	if (!w)
		return;
	wattrset(w, t->attr[CLR_HEADER] | A_BOLD);
	mvwaddstr(w, 0, 1, "lrugen-top " LRUGEN_VERSION " - keys (j k scroll, q or any other key returns)");
	for (i = (size_t)t->help_top; i < n && y < t->g.lines - 2; i++) {
		wmove(w, y++, 2);
		putn(w, t->attr[CLR_DEFAULT], lines[i], t->g.cols - 3);
	}
	for (i = 0; i < sizeof(legend) / sizeof(legend[0]) && y < t->g.lines - 2; i++) {
		wmove(w, y++, 2);
		if (legend[i]) {
			putn(w, t->attr[CLR_DEFAULT], legend[i], t->g.cols - 3);
			continue;
		}
		put(w, t->attr[CLR_DEFAULT], "Colour: ");
		put(w, t->attr[CLR_HOT], t->colors ? "red = hot" : "bold = hot");
		put(w, t->attr[CLR_DEFAULT], " (young), ");
		put(w, t->attr[CLR_COLD], t->colors ? "blue = cold" : "plain = cold");
		put(w, t->attr[CLR_DEFAULT], " (idle longer than T, strict).");
	}
	wnoutrefresh(w);
	delwin(w);
}

/* A border of explicit glyphs (ACS line drawing is unreliable in UTF-8 terminals). */
static void frame(struct top *t, WINDOW *w, int h, int wd)
{
	static const char *const g[2][6] = {
		{ "\u250c", "\u2510", "\u2514", "\u2518", "\u2500", "\u2502" },
		{ "+", "+", "+", "+", "-", "|" },
	};
	const char *const *c = g[t->utf8 ? 0 : 1];
	int x, y;

	wattrset(w, t->attr[CLR_DIALOG]);
	for (x = 1; x < wd - 1; x++) {
		mvwaddstr(w, 0, x, c[4]);
		mvwaddstr(w, h - 1, x, c[4]);
	}
	for (y = 1; y < h - 1; y++) {
		mvwaddstr(w, y, 0, c[5]);
		mvwaddstr(w, y, wd - 1, c[5]);
	}
	mvwaddstr(w, 0, 0, c[0]);
	mvwaddstr(w, 0, wd - 1, c[1]);
	mvwaddstr(w, h - 1, 0, c[2]);
	mvwaddstr(w, h - 1, wd - 1, c[3]);
}

static void draw_confirm(struct top *t)
{
	char lines[24][128];
	size_t n = plan_lines(t, lines, 24), i;
	int wd = 0, h, y0, x0;
	WINDOW *w;

	for (i = 0; i < n; i++) {	/* the lines name memcgs: their escaped width */
		size_t len = lru_esc(NULL, 0, lines[i], strlen(lines[i]), LRU_ESC_TERM);

		if (len > (size_t)wd)
			wd = len > (size_t)t->g.cols ? t->g.cols : (int)len;
	}
	wd += 4;
	if (wd > t->g.cols)
		wd = t->g.cols;
	h = (int)n + 4;
	if (h > t->g.lines)
		h = t->g.lines;
	y0 = (t->g.lines - h) / 2;
	x0 = (t->g.cols - wd) / 2;
	w = newwin(h, wd, y0 > 0 ? y0 : 0, x0 > 0 ? x0 : 0);
	if (!w)
		return;
	wbkgd(w, (chtype)t->attr[CLR_DIALOG]);
	werase(w);
	frame(t, w, h, wd);
	wattrset(w, t->attr[CLR_DIALOG_TITLE]);
	mvwaddstr(w, 0, 2, t->plan.op == '-' ? " Evict? " : " Age? ");
	for (i = 0; i < n && (int)i + 1 < h - 2; i++) {
		wmove(w, (int)i + 1, 2);
		putn(w, t->attr[CLR_DIALOG], lines[i], wd - 4);
	}
	wattrset(w, t->attr[CLR_DIALOG_TITLE]);
	mvwaddnstr(w, h - 2, 2, "y: write   any other key: cancel", wd - 4);
	wnoutrefresh(w);
	delwin(w);
}

void draw_panels(struct top *t, unsigned what)
{
	if (t->mode == MODE_HELP) {
		draw_help(t);
		draw_status(t);
		return;
	}
	if (what & TOP_DRAW_HEADER)
		draw_header(t);
	if (what & TOP_DRAW_LIST)
		draw_list(t);
	if ((what & TOP_DRAW_DETAILS) && t->details)
		draw_details(t);
	if (what & TOP_DRAW_STATUS)
		draw_status(t);
	if (t->mode == MODE_CONFIRM)
		draw_confirm(t);
}
