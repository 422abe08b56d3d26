/*
 * top.h - the state lrugen-top's modules share: options, the source, the
 * view, the screen's geometry and the modal state of the keyboard; and the
 * three helpers every module uses (top.c): the status message, the
 * threshold in force, compact sizes. top.c calls no other tui module.
 *
 * The loop (lrugen-top.c) is update-then-draw: a key's action returns a
 * bitmask of what must happen (TOP_REFRESH fetches a frame, TOP_RECOMPUTE
 * redoes the numbers, TOP_REBUILD the row list, TOP_LAYOUT the geometry,
 * TOP_DRAW_* which panels to draw) and the loop does exactly that, then
 * draws the panels asked for into ncurses' back buffer and calls doupdate()
 * once. Moving the cursor redraws the list and details only.
 */
#ifndef TOP_TOP_H
#define TOP_TOP_H

#include <stdbool.h>
#include <stdint.h>

#include <curses.h>

#include "plan.h"
#include "source.h"
#include "timeline.h"
#include "view.h"

/* What an action asks the loop to do. */
enum {
	TOP_DRAW_HEADER = 1u << 0,
	TOP_DRAW_LIST = 1u << 1,
	TOP_DRAW_DETAILS = 1u << 2,
	TOP_DRAW_STATUS = 1u << 3,
	TOP_DRAW_ALL = 0xfu,
	TOP_REBUILD = 1u << 4,		/* rows: filter, sort, fold, grouping */
	TOP_RECOMPUTE = 1u << 5,	/* numbers: threshold */
	TOP_LAYOUT = 1u << 6,		/* geometry: resize, details pane */
	TOP_REFRESH = 1u << 7,		/* fetch a frame now */
	TOP_QUIT = 1u << 8,
	TOP_STEP = 1u << 9,		/* replay moved: show the frame (no play step) */
};

enum top_mode {
	MODE_MAIN,
	MODE_HELP,
	MODE_FILTER,		/* typing a filter in the status line */
	MODE_EVICT_ASK,		/* typing the eviction threshold */
	MODE_CONFIRM,		/* y/n on the plan */
};

/* Semantic colours, indexed into a scheme table (draw.c). */
enum top_color {
	CLR_DEFAULT, CLR_HEADER, CLR_HEADER_VALUE, CLR_METER_HOT, CLR_METER_COLD, CLR_COLHDR,
	CLR_COLHDR_SORT, CLR_SELECTED, CLR_GROUP, CLR_TREE, CLR_DIM, CLR_HOT, CLR_COLD,
	CLR_HOT_BIG, CLR_COLD_BIG, CLR_MARK_T, CLR_NOW, CLR_STATUS, CLR_STATUS_KEY,
	CLR_STATUS_ERR, CLR_STATUS_INFO, CLR_DIALOG, CLR_DIALOG_TITLE, CLR_WARN, CLR_NR
};

struct top_geom {
	int cols, lines;
	int list_y, list_h;	/* rows of lruvecs */
	int details_y, details_h;
	int name_w;
	bool col_on[COL_NR];	/* which columns fit */
	int tl_x, tl_w;		/* the timeline's first column and width */
};

struct top {
	/* options */
	const char *root;
	bool readonly, ascii;
	unsigned max_refreshes;		/* -n, 0 = no limit */
	uint64_t delay_ms;		/* -d */
	bool window_fixed;		/* --window given or zoomed: no auto fit */

	struct top_source *src;
	struct top_frame frame;
	bool have_frame;
	struct top_view view;
	size_t zoom;			/* index into tl_zooms */
	size_t thr;			/* index into tl_thresholds, or tl_nr_thresholds: custom */
	uint64_t custom_threshold_ms;

	/* terminal */
	bool utf8, colors;
	int attr[CLR_NR];
	WINDOW *w_header, *w_list, *w_details, *w_status;
	struct top_geom g;

	/* state */
	bool paused, details;
	enum top_mode mode;
	char input[TOP_FILTER_MAX];
	size_t input_len;
	char saved_filter[TOP_FILTER_MAX];	/* restored by Esc in the filter prompt */
	struct top_plan plan;
	unsigned refreshes;
	char msg[512];			/* transient status message */
	bool msg_err;
	int64_t msg_until_ms;
	char fetch_err[512];		/* sticky until a fetch succeeds */
	int help_top;
};

/* The status bar: a message shown for a few seconds (err: in the error colour). */
void top_message(struct top *t, bool err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The threshold T in force: a step of tl_thresholds, or the custom one (-T). */
uint64_t top_threshold(const struct top *t);

/* A compact size for table cells and dialogs: "0", "512B", "82.0M", "1.2G". */
const char *top_fmt_size(uint64_t bytes, char *buf, size_t size);

#endif
