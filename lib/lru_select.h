/*
 * lru_select.h - choosing which memcgs of a snapshot to keep.
 *
 * A selection has include and exclude patterns, fnmatch(3) globs matched
 * against the whole memcg path without FNM_PATHNAME, so '*' also matches
 * '/': "/jobs/<star>" (a star) selects /jobs/a and /jobs/a/b, not /jobs. A memcg
 * is kept when it matches an include pattern (or there are none) and no
 * exclude pattern. By default, memcgs with no pages in any generation of any
 * node (empty) and offline memcgs (dying: the kernel prints id 0 while a
 * removed memcg still holds pages) are dropped too; an empty memcg above a
 * kept one stays, so that the tree keeps its parents. The memcg line of a
 * kernel without memcg ("" path) is never dying.
 *
 * lru_select_apply() removes the rejected memcgs and their lruvecs from a
 * snapshot in place, keeping the order of what is left.
 */
#ifndef LRU_SELECT_H
#define LRU_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "lru_model.h"

enum lru_select_why {
	LRU_SEL_KEEP = 0,
	LRU_SEL_FILTERED,	/* not included, or excluded */
	LRU_SEL_EMPTY,		/* no pages */
	LRU_SEL_DYING,		/* offline (id 0) */
	LRU_SEL_NR
};

struct lru_select {
	char *const *include;	/* NULL or nr_include patterns */
	size_t nr_include;
	char *const *exclude;
	size_t nr_exclude;
	bool keep_empty;
	bool keep_dying;
};

/* Does path pass the include and exclude patterns? */
bool lru_select_path(const struct lru_select *sel, const char *path);

/* Why memcg m (an index into snap->memcgs) would be dropped, or LRU_SEL_KEEP. */
enum lru_select_why lru_select_memcg(const struct lru_select *sel,
				     const struct lru_snapshot *snap, size_t m);

/*
 * Drop every memcg the selection rejects, with its lruvecs, from snap.
 * counts (may be NULL) receives how many memcgs went for each reason
 * (counts[LRU_SEL_KEEP] = kept).
 */
void lru_select_apply(const struct lru_select *sel, struct lru_snapshot *snap,
		      size_t counts[LRU_SEL_NR]);

#endif
