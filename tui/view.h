/*
 * view.h - lrugen-top's model of rows: what the list shows, in which order.
 *
 * Three steps, each redone only when its inputs change:
 *
 *	view_set_frame()   a new frame: one item per lruvec (sorted by host,
 *			   memcg, node), the memcg forest of each host, refault
 *			   rates against the previous frame; then view_recompute()
 *	view_recompute()   the threshold changed: hot/cold and the other
 *			   per-item numbers, per-node totals, the shade scale
 *	view_rebuild()	   filter, sort, tree, fold, node merge or grouping
 *			   changed: the row list, keeping the selected row
 *
 * Moving the cursor touches none of them. A row refers to the items it sums
 * (view->refs[row->ref .. row->ref + row->nr_refs)): one lruvec, the nodes
 * of one memcg (merged), or a whole group (host, node or memcg across hosts).
 * The view borrows the frame's snapshots: they must outlive it until the
 * next view_set_frame().
 */
#ifndef TOP_VIEW_H
#define TOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_model.h"
#include "source.h"

#define TOP_NONE UINT32_MAX
#define TOP_FILTER_MAX 128

enum top_col {
	COL_NAME, COL_HOST, COL_NODE, COL_TOTAL, COL_ANON, COL_FILE, COL_HOT, COL_COLD,
	COL_COLDPCT, COL_GENS, COL_YOUNG, COL_OLD, COL_REFAULT, COL_ADV, COL_SAVE, COL_NR
};

/* top_stats.adv_ms of a row whose lruvecs have different advice (or some none) */
#define TOP_ADV_MIXED UINT64_MAX

enum top_group { GROUP_NONE, GROUP_NODE, GROUP_HOST, GROUP_MEMCG, GROUP_NR };

enum top_row_kind { ROW_LRUVEC, ROW_MEMCG, ROW_GROUP };

enum top_fold { FOLD_LEAF, FOLD_OPEN, FOLD_CLOSED };

struct top_stats {
	uint64_t total, anon, file, hot, cold;	/* bytes */
	uint64_t young_ms, old_ms;	/* youngest generation's age (min), oldest's (max) */
	double refault_bps;		/* refaulted bytes per second; < 0 unknown */
	unsigned nr_gens;		/* most generations of any lruvec */
	unsigned nr;			/* lruvecs summed */
	uint32_t warnings;		/* LRU_WARN_* of any lruvec summed (lru_warn.h) */
	uint64_t adv_ms;		/* the store's advised threshold (fleet), 0 none,
					   TOP_ADV_MIXED: its lruvecs differ */
	uint64_t save;			/* bytes cold at the advised threshold (where advised) */
};

struct top_item {			/* one lruvec of the frame */
	const struct lru_snapshot *snap;
	const struct lru_lruvec *lv;
	uint32_t host;			/* index into frame.snaps */
	uint32_t mc;			/* index into view->memcgs */
	struct top_stats st;
};

struct top_memcg {			/* one memcg of one host */
	const struct lru_memcg *m;
	uint32_t host;
	uint32_t parent;		/* nearest ancestor listed, or TOP_NONE */
	uint32_t first_item, nr_items;
	uint64_t key;			/* hash of host and path: folds, selection */
	double refault_bps;		/* < 0 unknown */
};

struct top_row {
	uint8_t kind;			/* enum top_row_kind */
	uint8_t depth;
	uint8_t fold;			/* enum top_fold */
	bool show_name;			/* first row of its memcg (later ones are dimmed) */
	int node;			/* -1 when nodes are merged or mixed */
	uint32_t host;			/* TOP_NONE for groups across hosts */
	uint32_t mc;			/* memcg (a memcg group: one of them) or TOP_NONE */
	uint32_t ref, nr_refs;		/* the items summed */
	uint64_t key;			/* stable identity across rebuilds */
	struct top_stats st;
};

/* Per host and node totals (the header's node meters). */
struct top_node_total {
	uint32_t host;
	int node;
	uint64_t mem_total, mem_free;	/* node meminfo, 0 if unknown */
	struct top_stats st;
};

struct top_rate {			/* refault counters of the previous frame */
	uint64_t key;
	uint64_t pages;
	int64_t t_ms;
};

struct top_view {
	/* settings (change them, then call view_rebuild or view_recompute) */
	enum top_group group;
	bool tree;
	bool merge;			/* one row per memcg, nodes summed */
	enum top_col sort;
	bool invert;
	char filter[TOP_FILTER_MAX];
	uint64_t threshold_ms;

	struct top_frame frame;
	struct top_item *items;
	size_t nr_items, alloc_items;
	struct top_memcg *memcgs;
	size_t nr_memcgs, alloc_memcgs;
	struct top_node_total *nodes;
	size_t nr_nodes, alloc_nodes;
	struct top_stats total;		/* every lruvec */
	uint64_t max_gen_bytes;		/* the timeline's shade scale */
	uint64_t max_old_ms;		/* oldest generation's age at its read */
	uint64_t span_ms;		/* from the oldest birth to the frame's now */

	struct top_row *rows;
	size_t nr_rows, alloc_rows;
	uint32_t *refs;
	size_t nr_refs, alloc_refs;
	size_t sel, top;		/* selected row, first row shown */

	uint64_t *folds;		/* keys of folded rows, sorted */
	size_t nr_folds, alloc_folds;
	struct top_rate *rates;
	size_t nr_rates;

	void *scratch;			/* per-frame work arrays (view.c) */
	size_t scratch_size;
	bool oom;			/* an allocation failed: rows may be incomplete */
};

void view_init(struct top_view *v);
void view_release(struct top_view *v);

/* A new frame (its snapshots are borrowed); recomputes and rebuilds. */
void view_set_frame(struct top_view *v, const struct top_frame *frame);
void view_recompute(struct top_view *v);
void view_rebuild(struct top_view *v);

/* Move the selection by delta rows (clamped) and keep it within height rows. */
void view_move(struct top_view *v, long delta, size_t height);
void view_scroll_into(struct top_view *v, size_t height);

/* Fold (true), unfold (false) or toggle (-1 as int) the selected row; false if it has no children. */
bool view_fold(struct top_view *v, int how);

/* Names for drawing. */
const char *view_host(const struct top_view *v, uint32_t host);
const char *view_path(const struct top_view *v, uint32_t mc);
/* A row's label: memcg leaf (tree) or path, group name; into buf. */
const char *view_row_label(const struct top_view *v, const struct top_row *r, char *buf,
			   size_t size);

/* The item of a ref. */
static inline const struct top_item *view_ref(const struct top_view *v, const struct top_row *r,
					      uint32_t i)
{
	return &v->items[v->refs[r->ref + i]];
}

static inline const struct top_row *view_selected(const struct top_view *v)
{
	return v->nr_rows ? &v->rows[v->sel] : NULL;
}

#endif
