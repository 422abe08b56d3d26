/*
 * lru_ws.h - working-set maths: hot and cold bytes at a threshold T.
 *
 * Semantics (the kernel's own): a page in generation s was last seen
 * referenced while s was the youngest generation, so it has been idle at least
 * since the birth of generation s+1, i.e. for at least age(s+1), where age is
 * the kernel's age_in_ms at the read. Hence, for one lruvec:
 *
 *	cold(T) = pages of generations s whose successor s+1 is older than T
 *	hot(T)  = everything else (the youngest generation is always hot)
 *
 * LRU_WS_STRICT (the default) uses exactly that: cold is a lower bound and hot
 * an upper bound, which is the safe side for sizing memory limits.
 *
 * LRU_WS_INTERPOLATE also splits the one generation that straddles T. Its
 * pages were last referenced somewhere between the birth of s+1 and the birth
 * of s (idle between age(s+1) and age(s)); assuming those last references are
 * spread uniformly over that interval, the fraction idle longer than T is
 * (age(s) - T) / (age(s) - age(s+1)). The oldest generation may hold pages
 * idle for longer than age(s) (folded in by forced aging); that only makes
 * the estimate conservative.
 *
 * Pages of a type marked evicted ('x' in lru_gen_full) are not counted.
 * Page cache read only with read(2) enters the oldest generations and is
 * promoted by tiers, not generations: generation sizes call it cold even when
 * it is reread; see the tier counters for that.
 */
#ifndef LRU_WS_H
#define LRU_WS_H

#include <stdint.h>

#include "lru_model.h"

enum lru_ws_mode { LRU_WS_STRICT = 0, LRU_WS_INTERPOLATE = 1 };

/* Bytes, per type (LRU_ANON, LRU_FILE). */
struct lru_ws {
	uint64_t hot[LRU_NR_TYPES];
	uint64_t cold[LRU_NR_TYPES];
};

/* Hot and cold bytes of one lruvec at threshold_ms (relative to the read). */
void lru_ws_lruvec(const struct lru_snapshot *snap, const struct lru_lruvec *lv,
		   uint64_t threshold_ms, enum lru_ws_mode mode, struct lru_ws *out);

/*
 * Sums over lruvecs: of one memcg (index into snap->memcgs) on every node,
 * of one node over every memcg, or of the whole host. node < 0 means all
 * nodes. Memcg histograms are per lruvec, not hierarchical, so a host total
 * is the plain sum over every memcg.
 */
void lru_ws_memcg(const struct lru_snapshot *snap, size_t memcg, int node,
		  uint64_t threshold_ms, enum lru_ws_mode mode, struct lru_ws *out);
void lru_ws_host(const struct lru_snapshot *snap, int node, uint64_t threshold_ms,
		 enum lru_ws_mode mode, struct lru_ws *out);

void lru_ws_add(struct lru_ws *acc, const struct lru_ws *x);

static inline uint64_t lru_ws_hot(const struct lru_ws *w)
{
	return w->hot[LRU_ANON] + w->hot[LRU_FILE];
}

static inline uint64_t lru_ws_cold(const struct lru_ws *w)
{
	return w->cold[LRU_ANON] + w->cold[LRU_FILE];
}

#endif
