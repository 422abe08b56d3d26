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

static int cmp_path_idx(const void *a, const void *b, void *arg)
{
	const struct lru_snapshot *snap = arg;

	return strcmp(snap->memcgs[*(const size_t *)a].path, snap->memcgs[*(const size_t *)b].path);
}

/*
 * An empty memcg stays when a memcg kept is under it: the tree a reader
 * draws keeps its parents (/jobs, holding nothing itself, above /jobs/web).
 * The empty ones are sorted by path; each kept path's prefixes are looked up.
 */
static void keep_empty_parents(const struct lru_snapshot *snap, enum lru_select_why *why)
{
	size_t n = 0, *empty = malloc((snap->nr_memcgs ? snap->nr_memcgs : 1) * sizeof(*empty));

	if (!empty)
		return;	/* out of memory: the tree loses its empty parents, nothing else */
	for (size_t m = 0; m < snap->nr_memcgs; m++)
		if (why[m] == LRU_SEL_EMPTY)
			empty[n++] = m;
	qsort_r(empty, n, sizeof(*empty), cmp_path_idx, (void *)snap);
	for (size_t m = 0; n && m < snap->nr_memcgs; m++) {
		const char *path = snap->memcgs[m].path;

		if (why[m] != LRU_SEL_KEEP || path[0] != '/')
			continue;
		for (size_t len = strlen(path); len > 0; len--) {
			size_t lo = 0, hi = n, plen = len > 1 ? len - 1 : 1;

			if (path[len - 1] != '/' && len > 1)
				continue;
			/* the ancestor path[0, plen): "/" for the root, else without its '/' */
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				const char *e = snap->memcgs[empty[mid]].path;
				int c = strncmp(e, path, plen);

				if (!c)
					c = e[plen] ? 1 : 0;
				if (c < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < n && !strncmp(snap->memcgs[empty[lo]].path, path, plen) &&
			    !snap->memcgs[empty[lo]].path[plen])
				why[empty[lo]] = LRU_SEL_KEEP;
			if (len == 1)
				break;
		}
	}
	free(empty);
}

void lru_select_apply(const struct lru_select *sel, struct lru_snapshot *snap,
		      size_t counts[LRU_SEL_NR])
{
	struct lru_select no_empty = *sel;
	bool *nonempty = sel->keep_empty ? NULL : nonempty_memcgs(snap);
	enum lru_select_why *why;
	size_t *remap, m, kept = 0, lv_kept = 0;

	if (counts)
		memset(counts, 0, LRU_SEL_NR * sizeof(*counts));
	/* the empty test runs once over every lruvec instead of once per memcg */
	no_empty.keep_empty = true;
	remap = malloc((snap->nr_memcgs ? snap->nr_memcgs : 1) * sizeof(*remap));
	why = malloc((snap->nr_memcgs ? snap->nr_memcgs : 1) * sizeof(*why));
	if (!remap || !why || (!sel->keep_empty && !nonempty)) {
		/* out of memory: keep everything rather than report half a host */
		free(remap);
		free(why);
		free(nonempty);
		if (counts)
			counts[LRU_SEL_KEEP] = snap->nr_memcgs;
		return;
	}
	for (m = 0; m < snap->nr_memcgs; m++) {
		why[m] = lru_select_memcg(&no_empty, snap, m);
		if (!why[m] && nonempty && !nonempty[m])
			why[m] = LRU_SEL_EMPTY;
	}
	if (!sel->keep_empty)
		keep_empty_parents(snap, why);
	for (m = 0; m < snap->nr_memcgs; m++) {
		if (counts)
			counts[why[m]]++;
		if (why[m]) {
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
	free(why);
	free(nonempty);
}
