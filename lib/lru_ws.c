#include "lru_ws.h"

#include <string.h>

/*
 * Fraction (in 1/65536) of generation g that is cold at threshold_ms: 1 when
 * its successor is older than the threshold; for LRU_WS_INTERPOLATE, a linear
 * share for the generation that straddles it; 0 otherwise.
 */
static uint32_t cold_share(const struct lru_lruvec *lv, unsigned g, uint64_t threshold_ms,
			   enum lru_ws_mode mode)
{
	uint64_t idle_min, idle_max;

	if (g + 1 >= lv->nr_gens)
		return 0;
	idle_min = lv->gens[g + 1].age_ms;
	idle_max = lv->gens[g].age_ms;
	if (idle_min > threshold_ms)
		return 65536;
	if (mode != LRU_WS_INTERPOLATE || idle_max <= threshold_ms || idle_max <= idle_min)
		return 0;
	return (uint32_t)(((idle_max - threshold_ms) << 16) / (idle_max - idle_min));
}

void lru_ws_lruvec(const struct lru_snapshot *snap, const struct lru_lruvec *lv,
		   uint64_t threshold_ms, enum lru_ws_mode mode, struct lru_ws *out)
{
	uint64_t page = snap->page_size ? snap->page_size : 4096;
	unsigned g;
	int t;

	memset(out, 0, sizeof(*out));
	for (g = 0; g < lv->nr_gens; g++) {
		const struct lru_gen *gen = &lv->gens[g];
		uint32_t share = cold_share(lv, g, threshold_ms, mode);

		for (t = 0; t < LRU_NR_TYPES; t++) {
			uint64_t bytes, cold;

			if (gen->evicted & (1u << t))
				continue;
			bytes = gen->pages[t] * page;
			cold = share == 65536 ? bytes : (uint64_t)((unsigned __int128)bytes * share >> 16);
			out->cold[t] += cold;
			out->hot[t] += bytes - cold;
		}
	}
}

void lru_ws_add(struct lru_ws *acc, const struct lru_ws *x)
{
	int t;

	for (t = 0; t < LRU_NR_TYPES; t++) {
		acc->hot[t] += x->hot[t];
		acc->cold[t] += x->cold[t];
	}
}

static void ws_sum(const struct lru_snapshot *snap, size_t memcg, int node,
		   uint64_t threshold_ms, enum lru_ws_mode mode, struct lru_ws *out)
{
	struct lru_ws one;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];

		if (memcg != SIZE_MAX && lv->memcg != memcg)
			continue;
		if (node >= 0 && lv->node != node)
			continue;
		lru_ws_lruvec(snap, lv, threshold_ms, mode, &one);
		lru_ws_add(out, &one);
	}
}

void lru_ws_memcg(const struct lru_snapshot *snap, size_t memcg, int node,
		  uint64_t threshold_ms, enum lru_ws_mode mode, struct lru_ws *out)
{
	ws_sum(snap, memcg, node, threshold_ms, mode, out);
}

void lru_ws_host(const struct lru_snapshot *snap, int node, uint64_t threshold_ms,
		 enum lru_ws_mode mode, struct lru_ws *out)
{
	ws_sum(snap, SIZE_MAX, node, threshold_ms, mode, out);
}
