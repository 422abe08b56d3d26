/* view.c - items, the memcg forest and the row list of lrugen-top. */
#include "view.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_sat.h"
#include "lru_ws.h"

/* Work arrays, one entry per memcg, reallocated per frame. */
struct scratch {
	uint32_t *stamp;		/* == v's stamp: memcg present in the current set */
	uint32_t *run_start, *run_len;	/* its items in the current set */
	uint32_t *disp_parent;		/* nearest present ancestor */
	uint32_t *child_start, *child_nr;
	uint32_t *children;
	struct top_stats *acc;		/* its items in the set, summed */
	uint32_t cur;
};

/* A thing to sort: a memcg, a unit (lruvec or merged memcg) or a group. */
struct sortent {
	const struct top_stats *st;
	const char *host, *name;
	int node;
	uint32_t idx;
};

#define GROW(v, arr, nr, alloc, need)                                              \
	((nr) + (need) <= (alloc) ? true : grow((void **)&(arr), &(alloc), (nr) + (need), \
						 sizeof(*(arr))) ? true : ((v)->oom = true, false))

static bool grow(void **arr, size_t *alloc, size_t need, size_t elem)
{
	size_t n = *alloc ? *alloc : 64;
	void *p;

	while (n < need)
		n *= 2;
	p = realloc(*arr, n * elem);
	if (!p)
		return false;
	*arr = p;
	*alloc = n;
	return true;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ 0xff) * 0x100000001b3ULL;	/* a separator */
}

static uint64_t hash_mix(uint64_t h, uint64_t x)
{
	return (h ^ x) * 0x100000001b3ULL;
}

#define HASH_SEED 0xcbf29ce484222325ULL

void view_init(struct top_view *v)
{
	memset(v, 0, sizeof(*v));
	v->tree = true;
	v->sort = COL_NAME;
	v->threshold_ms = 120000;
}

void view_release(struct top_view *v)
{
	free(v->items);
	free(v->memcgs);
	free(v->nodes);
	free(v->rows);
	free(v->refs);
	free(v->folds);
	free(v->rates);
	free(v->scratch);
	memset(v, 0, sizeof(*v));
}

const char *view_host(const struct top_view *v, uint32_t host)
{
	const char *h;

	if (host >= v->frame.nr)
		return "";
	h = v->frame.snaps[host]->host.host;
	return h ? h : "?";
}

const char *view_path(const struct top_view *v, uint32_t mc)
{
	if (mc >= v->nr_memcgs)
		return "";
	return v->memcgs[mc].m->path[0] ? v->memcgs[mc].m->path : "(no memcg)";
}

/* ---- stats ------------------------------------------------------------------ */

static void stats_zero(struct top_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->young_ms = UINT64_MAX;
	s->refault_bps = -1;
}

static void stats_add(struct top_stats *a, const struct top_stats *x)
{
	a->adv_ms = !a->nr ? x->adv_ms : a->adv_ms == x->adv_ms ? a->adv_ms : TOP_ADV_MIXED;
	a->save += x->save;
	a->total += x->total;
	a->anon += x->anon;
	a->file += x->file;
	a->hot += x->hot;
	a->cold += x->cold;
	if (x->young_ms < a->young_ms)
		a->young_ms = x->young_ms;
	if (x->old_ms > a->old_ms)
		a->old_ms = x->old_ms;
	if (x->refault_bps >= 0)
		a->refault_bps = (a->refault_bps < 0 ? 0 : a->refault_bps) + x->refault_bps;
	if (x->nr_gens > a->nr_gens)
		a->nr_gens = x->nr_gens;
	a->nr += x->nr;
	a->warnings |= x->warnings;
}

static void item_stats(const struct top_view *v, struct top_item *it)
{
	const struct lru_lruvec *lv = it->lv;
	uint64_t page = it->snap->page_size ? it->snap->page_size : 4096;
	const struct top_memcg *mc = &v->memcgs[it->mc];
	struct top_stats *s = &it->st;
	struct lru_ws ws;

	lru_ws_lruvec(it->snap, lv, v->threshold_ms, LRU_WS_STRICT, &ws);
	s->anon = lru_lruvec_pages(lv, LRU_ANON) * page;
	s->file = lru_lruvec_pages(lv, LRU_FILE) * page;
	s->total = s->anon + s->file;
	s->hot = lru_ws_hot(&ws);
	s->cold = lru_ws_cold(&ws);
	s->nr_gens = lv->nr_gens;
	s->young_ms = lv->nr_gens ? lru_lruvec_youngest(lv)->age_ms : 0;
	s->old_ms = lv->nr_gens ? lv->gens[0].age_ms : 0;
	/* memory.stat is per memcg: count its rate once, on its first lruvec */
	s->refault_bps = (uint32_t)(it - v->items) == mc->first_item ? mc->refault_bps : -1;
	s->nr = 1;
	s->warnings = lv->warnings;
	s->adv_ms = lru_advice_find(v->frame.advice, v->frame.nr_advice, mc->m->path);
	s->save = 0;
	if (s->adv_ms) {
		lru_ws_lruvec(it->snap, lv, s->adv_ms, LRU_WS_STRICT, &ws);
		s->save = lru_ws_cold(&ws);
	}
}

/* ---- frame -------------------------------------------------------------------- */

static int cmp_rate(const void *a, const void *b)
{
	const struct top_rate *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* Refault rates against the previous frame's counters, then remember these. */
static void update_rates(struct top_view *v)
{
	struct top_rate *next = calloc(v->nr_memcgs ? v->nr_memcgs : 1, sizeof(*next));
	size_t i, n = 0;

	for (i = 0; i < v->nr_memcgs; i++) {
		struct top_memcg *mc = &v->memcgs[i];
		const struct lru_snapshot *s = v->frame.snaps[mc->host];
		struct top_rate key = { .key = mc->key }, *prev;

		mc->refault_bps = -1;
		if (!mc->m->has_stats)
			continue;
		key.pages = mc->m->stats.refault_anon + mc->m->stats.refault_file;
		key.t_ms = lru_sat_mid_i64(s->read_start_ms, s->read_end_ms);
		prev = v->rates ? bsearch(&key, v->rates, v->nr_rates, sizeof(key), cmp_rate) : NULL;
		if (prev && key.t_ms > prev->t_ms && key.pages >= prev->pages)
			mc->refault_bps = (double)(key.pages - prev->pages) *
					  (s->page_size ? s->page_size : 4096) * 1000.0 /
					  (double)(key.t_ms - prev->t_ms);
		if (next)
			next[n++] = key;
	}
	free(v->rates);
	v->rates = next;
	v->nr_rates = n;
	if (next)
		qsort(next, n, sizeof(*next), cmp_rate);
}

/* End of string sorts first, then '/', then every other byte: a subtree follows its root. */
static int tree_rank(char c)
{
	return c == '\0' ? 0 : c == '/' ? 1 : (unsigned char)c + 1;
}

static int cmp_tree_path(const char *a, const char *b)
{
	for (; *a && *a == *b; a++, b++)
		;
	return tree_rank(*a) - tree_rank(*b);
}

static int cmp_memcg_tree(const void *a, const void *b, void *arg)
{
	const struct top_view *v = arg;
	const struct top_memcg *x = &v->memcgs[*(const uint32_t *)a];
	const struct top_memcg *y = &v->memcgs[*(const uint32_t *)b];

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return cmp_tree_path(x->m->path, y->m->path);
}

static bool is_ancestor(const char *anc, const char *path)
{
	size_t n = strlen(anc);

	if (!strcmp(anc, "/"))
		return path[0] == '/' && path[1];
	return !strncmp(anc, path, n) && path[n] == '/';
}

/*
 * Parents: in tree order each memcg's nearest listed ancestor is on a stack
 * of the path so far (a missing intermediate cgroup just is not there).
 */
static void link_parents(struct top_view *v)
{
	uint32_t *order = malloc(v->nr_memcgs * sizeof(*order) + 1);
	uint32_t *stack = malloc(v->nr_memcgs * sizeof(*stack) + 1);
	size_t i, sp = 0;

	if (!order || !stack) {
		v->oom = true;
		free(order);
		free(stack);
		return;
	}
	for (i = 0; i < v->nr_memcgs; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, v->nr_memcgs, sizeof(*order), cmp_memcg_tree, v);
	for (i = 0; i < v->nr_memcgs; i++) {
		struct top_memcg *mc = &v->memcgs[order[i]];

		while (sp && (v->memcgs[stack[sp - 1]].host != mc->host ||
			      !is_ancestor(v->memcgs[stack[sp - 1]].m->path, mc->m->path)))
			sp--;
		mc->parent = sp ? stack[sp - 1] : TOP_NONE;
		stack[sp++] = order[i];
	}
	free(order);
	free(stack);
}

static int cmp_item(const void *a, const void *b)
{
	const struct top_item *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->lv->memcg != y->lv->memcg)
		return x->lv->memcg < y->lv->memcg ? -1 : 1;
	return x->lv->node - y->lv->node;
}

static bool scratch_alloc(struct top_view *v)
{
	size_t n = v->nr_memcgs + 1;
	size_t size = sizeof(struct scratch) + n * (7 * sizeof(uint32_t) + sizeof(struct top_stats));
	struct scratch *s;
	char *p;

	if (size > v->scratch_size) {
		free(v->scratch);
		v->scratch = malloc(size);
		v->scratch_size = v->scratch ? size : 0;
		if (!v->scratch) {
			v->oom = true;
			return false;
		}
	}
	s = v->scratch;
	p = (char *)(s + 1);
	s->acc = (struct top_stats *)p;
	p += n * sizeof(struct top_stats);
	s->stamp = (uint32_t *)p;
	s->run_start = s->stamp + n;
	s->run_len = s->run_start + n;
	s->disp_parent = s->run_len + n;
	s->child_start = s->disp_parent + n;
	s->child_nr = s->child_start + n;
	s->children = s->child_nr + n;
	memset(s->stamp, 0, n * sizeof(uint32_t));
	s->cur = 0;
	return true;
}

void view_set_frame(struct top_view *v, const struct top_frame *frame)
{
	size_t h, i, n = 0, nm = 0;

	v->frame = *frame;
	v->oom = false;
	for (h = 0; h < frame->nr; h++) {
		n += frame->snaps[h]->nr_lruvecs;
		nm += frame->snaps[h]->nr_memcgs;
	}
	v->nr_items = v->nr_memcgs = 0;
	if (!GROW(v, v->items, 0, v->alloc_items, n) || !GROW(v, v->memcgs, 0, v->alloc_memcgs, nm))
		return;
	/* memcgs: per host, the snapshot's own order (indices match lv->memcg) */
	for (h = 0; h < frame->nr; h++) {
		const struct lru_snapshot *s = frame->snaps[h];
		uint64_t hk = hash_str(HASH_SEED, s->host.host ? s->host.host : "");
		size_t base = v->nr_memcgs;

		for (i = 0; i < s->nr_memcgs; i++) {
			struct top_memcg *mc = &v->memcgs[v->nr_memcgs++];

			memset(mc, 0, sizeof(*mc));
			mc->m = &s->memcgs[i];
			mc->host = (uint32_t)h;
			mc->key = hash_str(hk, mc->m->path);
			mc->first_item = TOP_NONE;
		}
		for (i = 0; i < s->nr_lruvecs; i++) {
			struct top_item *it = &v->items[v->nr_items++];

			it->snap = s;
			it->lv = &s->lruvecs[i];
			it->host = (uint32_t)h;
			it->mc = (uint32_t)(base + s->lruvecs[i].memcg);
		}
	}
	if (v->nr_items > 1)	/* v->items is NULL while no host had an lruvec */
		qsort(v->items, v->nr_items, sizeof(*v->items), cmp_item);
	for (i = 0; i < v->nr_items; i++) {
		struct top_memcg *mc = &v->memcgs[v->items[i].mc];

		if (mc->first_item == TOP_NONE)
			mc->first_item = (uint32_t)i;
		mc->nr_items++;
	}
	link_parents(v);
	update_rates(v);
	if (!scratch_alloc(v))
		return;
	view_recompute(v);
}

static struct top_node_total *node_total(struct top_view *v, uint32_t host, int node)
{
	const struct lru_snapshot *s = v->frame.snaps[host];
	struct top_node_total *t;
	size_t i;

	/* items come by host (view_set_frame): a host's totals are the last ones */
	for (i = v->nr_nodes; i-- > 0 && v->nodes[i].host == host;)
		if (v->nodes[i].node == node)
			return &v->nodes[i];
	if (!GROW(v, v->nodes, v->nr_nodes, v->alloc_nodes, 1))
		return NULL;
	t = &v->nodes[v->nr_nodes++];
	memset(t, 0, sizeof(*t));
	t->host = host;
	t->node = node;
	stats_zero(&t->st);
	for (i = 0; i < s->nr_nodes; i++)
		if (s->nodes[i].node == node) {
			t->mem_total = s->nodes[i].total;
			t->mem_free = s->nodes[i].free;
		}
	return t;
}

void view_recompute(struct top_view *v)
{
	size_t i;
	unsigned g;

	stats_zero(&v->total);
	v->nr_nodes = 0;
	v->max_gen_bytes = 0;
	v->max_old_ms = 0;
	v->span_ms = 0;
	for (i = 0; i < v->nr_items; i++) {
		struct top_item *it = &v->items[i];
		uint64_t page = it->snap->page_size ? it->snap->page_size : 4096;
		struct top_node_total *nt;

		item_stats(v, it);
		stats_add(&v->total, &it->st);
		nt = node_total(v, it->host, it->lv->node);
		if (nt)
			stats_add(&nt->st, &it->st);
		for (g = 0; g < it->lv->nr_gens; g++) {
			const struct lru_gen *gen = &it->lv->gens[g];
			uint64_t b = (gen->pages[LRU_ANON] + gen->pages[LRU_FILE]) * page;

			if (b > v->max_gen_bytes)
				v->max_gen_bytes = b;
		}
		if (it->st.old_ms > v->max_old_ms)
			v->max_old_ms = it->st.old_ms;
		if (it->lv->nr_gens && v->frame.now_ms > it->lv->gens[0].birth_ms &&
		    (uint64_t)(v->frame.now_ms - it->lv->gens[0].birth_ms) > v->span_ms)
			v->span_ms = (uint64_t)(v->frame.now_ms - it->lv->gens[0].birth_ms);
	}
	view_rebuild(v);
}

/* ---- sorting ------------------------------------------------------------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_sortent(const void *a, const void *b, void *arg)
{
	const struct top_view *v = arg;
	const struct sortent *x = a, *y = b;
	const struct top_stats *p = x->st, *q = y->st;
	int c = 0;

	switch (v->sort) {
	case COL_NAME:
		break;
	case COL_HOST:
		c = strcmp(x->host, y->host);
		break;
	case COL_NODE:
		c = x->node - y->node;
		break;
	case COL_TOTAL: c = -cmp_u64(p->total, q->total); break;
	case COL_ANON: c = -cmp_u64(p->anon, q->anon); break;
	case COL_FILE: c = -cmp_u64(p->file, q->file); break;
	case COL_HOT: c = -cmp_u64(p->hot, q->hot); break;
	case COL_COLD: c = -cmp_u64(p->cold, q->cold); break;
	case COL_COLDPCT:
		c = -cmp_u64(p->total ? p->cold * 10000 / p->total : 0,
			     q->total ? q->cold * 10000 / q->total : 0);
		break;
	case COL_GENS: c = -cmp_u64(p->nr_gens, q->nr_gens); break;
	case COL_YOUNG: c = cmp_u64(p->young_ms, q->young_ms); break;
	case COL_OLD: c = -cmp_u64(p->old_ms, q->old_ms); break;
	case COL_REFAULT:
		c = (p->refault_bps < q->refault_bps) - (p->refault_bps > q->refault_bps);
		break;
	case COL_ADV:	/* the smallest first, none last */
		c = cmp_u64(p->adv_ms ? p->adv_ms : TOP_ADV_MIXED, q->adv_ms ? q->adv_ms : TOP_ADV_MIXED);
		break;
	case COL_SAVE: c = -cmp_u64(p->save, q->save); break;
	case COL_NR:
		break;
	}
	if (!c)
		c = strcmp(x->host, y->host);
	if (!c)
		c = cmp_tree_path(x->name, y->name);
	if (!c)
		c = x->node - y->node;
	return v->invert ? -c : c;
}

static void sort_ents(struct top_view *v, struct sortent *e, size_t n)
{
	qsort_r(e, n, sizeof(*e), cmp_sortent, v);
}

/* ---- rows ----------------------------------------------------------------------- */

static bool folded(const struct top_view *v, uint64_t key)
{
	size_t lo = 0, hi = v->nr_folds;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v->folds[mid] == key)
			return true;
		if (v->folds[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static struct top_row *add_row(struct top_view *v, enum top_row_kind kind, int depth,
			       uint32_t ref, uint32_t nr_refs)
{
	struct top_row *r;
	uint32_t i;

	if (!GROW(v, v->rows, v->nr_rows, v->alloc_rows, 1))
		return NULL;
	r = &v->rows[v->nr_rows++];
	memset(r, 0, sizeof(*r));
	r->kind = (uint8_t)kind;
	r->depth = (uint8_t)(depth > 255 ? 255 : depth);
	r->ref = ref;
	r->nr_refs = nr_refs;
	r->node = -1;
	r->host = r->mc = TOP_NONE;
	stats_zero(&r->st);
	for (i = 0; i < nr_refs; i++)
		stats_add(&r->st, &v->items[v->refs[ref + i]].st);
	if (nr_refs) {
		const struct top_item *first = &v->items[v->refs[ref]];

		r->host = first->host;
		r->mc = first->mc;
		r->node = first->lv->node;
		for (i = 1; i < nr_refs; i++) {
			const struct top_item *it = &v->items[v->refs[ref + i]];

			if (it->host != r->host)
				r->host = TOP_NONE;
			if (it->lv->node != r->node)
				r->node = -1;
		}
	}
	return r;
}

/* Rows of one memcg's run of items: merged, or one per node. */
static void emit_memcg(struct top_view *v, uint32_t mc, uint32_t start, uint32_t len,
		       int depth, enum top_fold fold)
{
	struct top_row *r;
	uint32_t i;

	if (v->merge) {
		r = add_row(v, ROW_MEMCG, depth, start, len);
		if (r) {
			r->key = v->memcgs[mc].key;
			r->fold = (uint8_t)fold;
			r->show_name = true;
		}
		return;
	}
	for (i = 0; i < len; i++) {
		r = add_row(v, ROW_LRUVEC, depth, start + i, 1);
		if (!r)
			return;
		r->key = hash_mix(v->memcgs[mc].key, (uint64_t)v->items[v->refs[start + i]].lv->node);
		r->show_name = i == 0;
		r->fold = (uint8_t)(i == 0 ? fold : FOLD_LEAF);
	}
}

static bool item_matches(const struct top_view *v, const struct top_item *it)
{
	const char *path = it->lv ? v->memcgs[it->mc].m->path : "";
	const char *f = v->filter;

	if (!f[0])
		return true;
	if (strpbrk(f, "*?["))
		return !fnmatch(f, path, 0) || !fnmatch(f, view_host(v, it->host), 0);
	return strstr(path, f) || strstr(view_host(v, it->host), f);
}

/* Sort the memcgs of ids[0..n) by their summed stats in the current set. */
static void sort_memcgs(struct top_view *v, uint32_t *ids, size_t n)
{
	struct scratch *s = v->scratch;
	struct sortent *e = malloc((n ? n : 1) * sizeof(*e));
	size_t i;

	if (!e) {
		v->oom = true;
		return;
	}
	for (i = 0; i < n; i++) {
		e[i].st = &s->acc[ids[i]];
		e[i].host = view_host(v, v->memcgs[ids[i]].host);
		e[i].name = v->memcgs[ids[i]].m->path;
		e[i].node = -1;
		e[i].idx = ids[i];
	}
	sort_ents(v, e, n);
	for (i = 0; i < n; i++)
		ids[i] = e[i].idx;
	free(e);
}

static void emit_tree(struct top_view *v, uint32_t mc, int depth)
{
	struct scratch *s = v->scratch;
	bool has_children = s->child_nr[mc] > 0;
	bool closed = has_children && folded(v, v->memcgs[mc].key);
	uint32_t i;

	emit_memcg(v, mc, s->run_start[mc], s->run_len[mc], depth,
		   !has_children ? FOLD_LEAF : closed ? FOLD_CLOSED : FOLD_OPEN);
	if (closed)
		return;
	for (i = 0; i < s->child_nr[mc]; i++)
		emit_tree(v, s->children[s->child_start[mc] + i], depth + 1);
}

/*
 * Emit the items refs[start .. start+n) (sorted by host, memcg, node) as a
 * tree of memcgs, or as a flat sorted list of units.
 */
static void emit_set(struct top_view *v, uint32_t start, uint32_t n, int depth, bool tree)
{
	struct scratch *s = v->scratch;
	uint32_t *present, nr_present = 0, i, j, nr_roots = 0;

	if (!s || !n)
		return;
	present = malloc(n * sizeof(*present));
	if (!present) {
		v->oom = true;
		return;
	}
	s->cur++;
	for (i = 0; i < n; i = j) {
		uint32_t mc = v->items[v->refs[start + i]].mc;

		for (j = i; j < n && v->items[v->refs[start + j]].mc == mc; j++)
			;
		s->stamp[mc] = s->cur;
		s->run_start[mc] = start + i;
		s->run_len[mc] = j - i;
		s->child_nr[mc] = 0;
		stats_zero(&s->acc[mc]);
		for (uint32_t k = i; k < j; k++)
			stats_add(&s->acc[mc], &v->items[v->refs[start + k]].st);
		present[nr_present++] = mc;
	}
	if (!tree) {
		struct sortent *e = malloc((v->merge ? nr_present : n) * sizeof(*e) + 1);
		size_t ne = 0;

		if (!e) {
			v->oom = true;
			free(present);
			return;
		}
		if (v->merge) {
			for (i = 0; i < nr_present; i++)
				e[ne++] = (struct sortent){ &s->acc[present[i]],
							    view_host(v, v->memcgs[present[i]].host),
							    v->memcgs[present[i]].m->path, -1, present[i] };
		} else {
			for (i = 0; i < n; i++) {
				const struct top_item *it = &v->items[v->refs[start + i]];

				e[ne++] = (struct sortent){ &it->st, view_host(v, it->host),
							    v->memcgs[it->mc].m->path, it->lv->node,
							    start + i };
			}
		}
		sort_ents(v, e, ne);
		for (i = 0; i < ne; i++) {
			struct top_row *r;

			if (v->merge) {
				emit_memcg(v, e[i].idx, s->run_start[e[i].idx], s->run_len[e[i].idx],
					   depth, FOLD_LEAF);
				continue;
			}
			r = add_row(v, ROW_LRUVEC, depth, e[i].idx, 1);
			if (!r)
				break;
			r->key = hash_mix(v->memcgs[v->items[v->refs[e[i].idx]].mc].key,
					  (uint64_t)e[i].node);
			r->show_name = true;
		}
		free(e);
		free(present);
		return;
	}
	/* displayed parent: nearest ancestor present in this set */
	for (i = 0; i < nr_present; i++) {
		uint32_t p = v->memcgs[present[i]].parent;

		while (p != TOP_NONE && s->stamp[p] != s->cur)
			p = v->memcgs[p].parent;
		s->disp_parent[present[i]] = p;
		if (p != TOP_NONE)
			s->child_nr[p]++;
		else
			nr_roots++;
	}
	/* children slices (counting sort); roots move to the front of present[] */
	{
		uint32_t off = 0;

		for (i = 0; i < nr_present; i++) {
			s->child_start[present[i]] = off;
			off += s->child_nr[present[i]];
			s->child_nr[present[i]] = 0;
		}
		for (i = 0, j = 0; i < nr_present; i++) {
			uint32_t mc = present[i], p = s->disp_parent[mc];

			if (p != TOP_NONE)
				s->children[s->child_start[p] + s->child_nr[p]++] = mc;
			else
				present[j++] = mc;	/* j <= i: in place */
		}
		nr_roots = j;
	}
	/* sort every sibling list, then walk */
	sort_memcgs(v, present, nr_roots);
	for (i = 0; i < v->nr_memcgs; i++)
		if (s->stamp[i] == s->cur && s->child_nr[i] > 1)
			sort_memcgs(v, s->children + s->child_start[i], s->child_nr[i]);
	for (i = 0; i < nr_roots; i++)
		emit_tree(v, present[i], depth);
	free(present);
}

/* Append the items [from, to) that pass the filter (and node, unless < 0) to refs. */
static uint32_t push_items(struct top_view *v, size_t from, size_t to, int node)
{
	uint32_t n = 0;
	size_t i;

	if (!GROW(v, v->refs, v->nr_refs, v->alloc_refs, to - from))
		return 0;
	for (i = from; i < to; i++) {
		const struct top_item *it = &v->items[i];

		if ((node < 0 || it->lv->node == node) && item_matches(v, it)) {
			v->refs[v->nr_refs++] = (uint32_t)i;
			n++;
		}
	}
	return n;
}

/* The items of host h: [*from, *to) (items are sorted by host first). */
static void host_range(const struct top_view *v, uint32_t h, size_t *from, size_t *to)
{
	size_t lo = 0, hi = v->nr_items;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v->items[mid].host < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	*from = lo;
	for (hi = lo; hi < v->nr_items && v->items[hi].host == h; hi++)
		;
	*to = hi;
}

struct group_ent {
	uint32_t host;
	int node;
	uint32_t mc;		/* a memcg with the path (GROUP_MEMCG) */
	uint32_t start, n;
	struct top_stats st;
};

static int cmp_mc_path(const void *a, const void *b, void *arg)
{
	const struct top_view *v = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(v->memcgs[x].m->path, v->memcgs[y].m->path);

	return c ? c : (x > y) - (x < y);
}

/* Push the items of group g (its host, node or path) to refs; returns their count. */
static uint32_t push_group(struct top_view *v, struct group_ent *g, const uint32_t *ids,
			   size_t nr_ids)
{
	size_t from, to, i;
	uint32_t n = 0;

	g->start = (uint32_t)v->nr_refs;
	switch (v->group) {
	case GROUP_HOST:
	case GROUP_NODE:
		host_range(v, g->host, &from, &to);
		return push_items(v, from, to, v->group == GROUP_NODE ? g->node : -1);
	default:
		for (i = 0; i < nr_ids; i++) {
			const struct top_memcg *mc = &v->memcgs[ids[i]];

			if (mc->nr_items)
				n += push_items(v, mc->first_item, mc->first_item + mc->nr_items, -1);
		}
		return n;
	}
}

/* The distinct groups of the current mode, with their item sets in refs. */
static size_t build_groups(struct top_view *v, struct group_ent **out)
{
	struct group_ent *g = NULL;
	size_t n = 0, alloc = 0, i, nr_ids = 0;
	uint32_t *ids = NULL;

	if (v->group == GROUP_MEMCG) {
		ids = malloc((v->nr_memcgs ? v->nr_memcgs : 1) * sizeof(*ids));
		if (!ids) {
			v->oom = true;
			*out = NULL;
			return 0;
		}
		for (i = 0; i < v->nr_memcgs; i++)
			ids[i] = (uint32_t)i;
		qsort_r(ids, v->nr_memcgs, sizeof(*ids), cmp_mc_path, v);
	}
	for (i = 0;; i += nr_ids ? nr_ids : 1) {
		struct group_ent key = { 0 };

		nr_ids = 0;
		if (v->group == GROUP_HOST) {
			if (i >= v->frame.nr)
				break;
			key.host = (uint32_t)i;
		} else if (v->group == GROUP_NODE) {
			if (i >= v->nr_nodes)
				break;
			key.host = v->nodes[i].host;
			key.node = v->nodes[i].node;
		} else {
			if (i >= v->nr_memcgs)
				break;
			key.mc = ids[i];
			for (nr_ids = 1; i + nr_ids < v->nr_memcgs &&
					 !strcmp(v->memcgs[ids[i + nr_ids]].m->path,
						 v->memcgs[ids[i]].m->path); nr_ids++)
				;
		}
		if (!grow((void **)&g, &alloc, n + 1, sizeof(*g))) {
			v->oom = true;
			break;
		}
		g[n] = key;
		g[n].n = push_group(v, &g[n], ids ? ids + i : NULL, nr_ids);
		if (!g[n].n)
			continue;
		stats_zero(&g[n].st);
		for (uint32_t k = 0; k < g[n].n; k++)
			stats_add(&g[n].st, &v->items[v->refs[g[n].start + k]].st);
		n++;
	}
	free(ids);
	*out = g;
	return n;
}

static uint64_t group_key(const struct top_view *v, const struct group_ent *g)
{
	uint64_t h = hash_mix(HASH_SEED, (uint64_t)v->group);

	switch (v->group) {
	case GROUP_HOST:
		return hash_str(h, view_host(v, g->host));
	case GROUP_NODE:
		return hash_mix(hash_str(h, view_host(v, g->host)), (uint64_t)g->node);
	default:
		return hash_str(h, v->memcgs[g->mc].m->path);
	}
}

static void rebuild_groups(struct top_view *v)
{
	struct group_ent *g;
	struct sortent *e;
	size_t n = build_groups(v, &g), i;

	e = malloc((n ? n : 1) * sizeof(*e));
	if (!e) {
		v->oom = true;
		free(g);
		return;
	}
	for (i = 0; i < n; i++) {
		e[i].st = &g[i].st;
		e[i].host = v->group == GROUP_MEMCG ? "" : view_host(v, g[i].host);
		e[i].name = v->group == GROUP_MEMCG ? v->memcgs[g[i].mc].m->path : "";
		e[i].node = v->group == GROUP_NODE ? g[i].node : -1;
		e[i].idx = (uint32_t)i;
	}
	sort_ents(v, e, n);
	for (i = 0; i < n; i++) {
		const struct group_ent *ge = &g[e[i].idx];
		uint64_t key = group_key(v, ge);
		bool closed = folded(v, key);
		struct top_row *r = add_row(v, ROW_GROUP, 0, ge->start, ge->n);

		if (!r)
			break;
		r->key = key;
		r->fold = (uint8_t)(closed ? FOLD_CLOSED : FOLD_OPEN);
		r->show_name = true;
		if (v->group == GROUP_NODE) {
			r->node = ge->node;
			r->host = ge->host;
		}
		if (v->group == GROUP_MEMCG)
			r->mc = ge->mc;
		if (!closed) {
			bool merge = v->merge;

			if (v->group == GROUP_NODE)
				v->merge = false;
			emit_set(v, ge->start, ge->n, 1, v->tree && v->group != GROUP_MEMCG);
			v->merge = merge;
		}
	}
	free(e);
	free(g);
}

void view_rebuild(struct top_view *v)
{
	uint64_t sel_key = 0;
	size_t i, old_sel = v->sel;
	uint32_t start, n;

	if (v->nr_rows && v->sel < v->nr_rows)
		sel_key = v->rows[v->sel].key;
	v->nr_rows = v->nr_refs = 0;
	if (v->group == GROUP_NONE) {
		start = 0;
		n = push_items(v, 0, v->nr_items, -1);
		emit_set(v, start, n, 0, v->tree);
	} else {
		rebuild_groups(v);
	}
	v->sel = old_sel < v->nr_rows ? old_sel : v->nr_rows ? v->nr_rows - 1 : 0;
	for (i = 0; sel_key && i < v->nr_rows; i++)
		if (v->rows[i].key == sel_key) {
			v->sel = i;
			break;
		}
	if (v->top > v->sel)
		v->top = v->sel;
}

/* ---- cursor and folds ------------------------------------------------------------ */

void view_scroll_into(struct top_view *v, size_t height)
{
	if (!height)
		return;
	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + height)
		v->top = v->sel - height + 1;
	if (v->nr_rows <= height)
		v->top = 0;
	else if (v->top + height > v->nr_rows)
		v->top = v->nr_rows - height;
}

void view_move(struct top_view *v, long delta, size_t height)
{
	long to = (long)v->sel + delta;

	if (!v->nr_rows)
		return;
	if (to < 0)
		to = 0;
	if (to >= (long)v->nr_rows)
		to = (long)v->nr_rows - 1;
	v->sel = (size_t)to;
	view_scroll_into(v, height);
}

bool view_fold(struct top_view *v, int how)
{
	const struct top_row *r = view_selected(v);
	uint64_t key;
	size_t i;
	bool closed;

	if (!r || r->fold == FOLD_LEAF)
		return false;
	/* a memcg folds as a whole, whichever of its node rows is selected */
	key = r->kind == ROW_GROUP ? r->key : v->memcgs[r->mc].key;
	closed = r->fold == FOLD_CLOSED;
	if (how < 0)
		how = !closed;
	if ((bool)how == closed)
		return false;
	if (how) {
		if (!GROW(v, v->folds, v->nr_folds, v->alloc_folds, 1))
			return false;
		for (i = v->nr_folds; i > 0 && v->folds[i - 1] > key; i--)
			v->folds[i] = v->folds[i - 1];
		v->folds[i] = key;
		v->nr_folds++;
	} else {
		for (i = 0; i < v->nr_folds && v->folds[i] != key; i++)
			;
		if (i < v->nr_folds) {
			memmove(v->folds + i, v->folds + i + 1, (v->nr_folds - i - 1) * sizeof(*v->folds));
			v->nr_folds--;
		}
	}
	return true;
}

const char *view_row_label(const struct top_view *v, const struct top_row *r, char *buf,
			   size_t size)
{
	const char *path;

	if (r->kind == ROW_GROUP) {
		switch (v->group) {
		case GROUP_HOST:
			snprintf(buf, size, "%s", view_host(v, r->host));
			break;
		case GROUP_NODE:
			if (v->frame.nr > 1)
				snprintf(buf, size, "%s node %d", view_host(v, r->host), r->node);
			else
				snprintf(buf, size, "node %d", r->node);
			break;
		default:
			snprintf(buf, size, "%s", view_path(v, r->mc));
			break;
		}
		return buf;
	}
	path = view_path(v, r->mc);
	if (v->group == GROUP_MEMCG) {
		snprintf(buf, size, "%s", view_host(v, r->host));
	} else if (v->tree && v->group != GROUP_MEMCG && r->depth) {
		const char *leaf = strrchr(path, '/');

		snprintf(buf, size, "%s", leaf && leaf[1] ? leaf + 1 : path);
	} else {
		snprintf(buf, size, "%s", path);
	}
	return buf;
}
