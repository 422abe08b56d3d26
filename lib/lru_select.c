#include "lru_select.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static bool any_match(char *const *pats, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!fnmatch(pats[i], path, 0))
			return true;
	return false;
}

bool lru_select_path(const struct lru_select *sel, const char *path)
{
	if (sel->nr_include && !any_match(sel->include, sel->nr_include, path))
		return false;
	return !any_match(sel->exclude, sel->nr_exclude, path);
}

enum lru_select_why lru_select_memcg(const struct lru_select *sel,
				     const struct lru_snapshot *snap, size_t m)
{
	const struct lru_memcg *mc = &snap->memcgs[m];

	if (!lru_select_path(sel, mc->path))
		return LRU_SEL_FILTERED;
	if (!sel->keep_dying && lru_memcg_dying(snap, mc))
		return LRU_SEL_DYING;
	if (!sel->keep_empty) {
		for (size_t i = 0; i < snap->nr_lruvecs; i++) {
			const struct lru_lruvec *lv = &snap->lruvecs[i];

			if (lv->memcg == m &&
			    (lru_lruvec_pages(lv, LRU_ANON) || lru_lruvec_pages(lv, LRU_FILE)))
				return LRU_SEL_KEEP;
		}
		return LRU_SEL_EMPTY;
	}
	return LRU_SEL_KEEP;
}

/* Memcgs whose lruvecs hold pages, as a flag per memcg (one pass over lruvecs). */
static bool *nonempty_memcgs(const struct lru_snapshot *snap)
{
	bool *used = calloc(snap->nr_memcgs ? snap->nr_memcgs : 1, sizeof(*used));

	for (size_t i = 0; used && i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];

		if (lru_lruvec_pages(lv, LRU_ANON) || lru_lruvec_pages(lv, LRU_FILE))
			used[lv->memcg] = true;
	}
	return used;
}

void lru_select_apply(const struct lru_select *sel, struct lru_snapshot *snap,
		      size_t counts[LRU_SEL_NR])
{
	struct lru_select no_empty = *sel;
	bool *nonempty = sel->keep_empty ? NULL : nonempty_memcgs(snap);
	size_t *remap, m, kept = 0, lv_kept = 0;

	if (counts)
		memset(counts, 0, LRU_SEL_NR * sizeof(*counts));
	/* the empty test runs once over every lruvec instead of once per memcg */
	no_empty.keep_empty = true;
	remap = malloc((snap->nr_memcgs ? snap->nr_memcgs : 1) * sizeof(*remap));
	if (!remap || (!sel->keep_empty && !nonempty)) {
		/* out of memory: keep everything rather than report half a host */
		free(remap);
		free(nonempty);
		if (counts)
			counts[LRU_SEL_KEEP] = snap->nr_memcgs;
		return;
	}
	for (m = 0; m < snap->nr_memcgs; m++) {
		enum lru_select_why why = lru_select_memcg(&no_empty, snap, m);

		if (!why && nonempty && !nonempty[m])
			why = LRU_SEL_EMPTY;
		if (counts)
			counts[why]++;
		if (why) {
			free(snap->memcgs[m].path);
			remap[m] = SIZE_MAX;
			continue;
		}
		remap[m] = kept;
		snap->memcgs[kept++] = snap->memcgs[m];
	}
	snap->nr_memcgs = kept;
	for (size_t i = 0; i < snap->nr_lruvecs; i++) {
		struct lru_lruvec *lv = &snap->lruvecs[i];

		if (remap[lv->memcg] == SIZE_MAX) {
			free(lv->full);
			continue;
		}
		lv->memcg = remap[lv->memcg];
		snap->lruvecs[lv_kept++] = *lv;
	}
	snap->nr_lruvecs = lv_kept;
	free(remap);
	free(nonempty);
}
