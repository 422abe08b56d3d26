/*
 * lru_advise.h - promotion rates from consecutive snapshots, and the
 * cold-age threshold they advise (lrugen fleet advise, GET /v1/advise).
 *
 * The question (Google's far memory, ASPLOS'19): at a cold-age threshold T,
 * how fast do pages idle longer than T come back into use? The promotion
 * rate at T is the bytes that were cold at T and were used again, per
 * minute, as a share of the working set at T (the bytes not cold at T, what
 * stays in memory if the cold ones are taken away). An operator sets an SLO
 * (0.2%/min in the paper) and takes the smallest T that meets it.
 *
 * How it is estimated from two snapshots a (taken ta) and b (tb) of one
 * lruvec (same boot, ta < tb <= ta + LRU_ADVISE_MAX_GAP_MS):
 *
 *   cold at T at a: the oldest generations up to K, each one whose successor
 *   is older than T at a (lru_fleet.h's rule, so advice and 'cold' agree);
 *   at b, those pages are still in generations <= K unless they were used
 *   (the aging walk moves a used page to the youngest generation, > K), or
 *   evicted, or freed. MGLRU only moves unused pages one way inside
 *   generations <= K: the oldest is merged into the next when a new one is
 *   needed. So promoted(T) = sum over types of max(0, bytes(<= K at a) -
 *   bytes(<= K at b)), and hot(T) at a is the lruvec's bytes minus the cold.
 *
 * Reclaim (lru_advise_reclaim), from the memcg's memory.stat between a and
 * b: pages reclaimed (pgsteal) left the oldest generations first, so at
 * each T the bytes reclaimed, up to what was cold and what decreased, are
 * taken off the promoted ones (evicted, not used); pages refaulted
 * (workingset_refault_*) were evicted and used again, promotions from
 * memory that was given up: added at every T measured, their age not being
 * known (an upper bound).
 *
 * What it cannot know, and how the answer says so:
 *   - freed pages count as promoted (and evicted ones where the collector
 *     read no memory.stat): an upper bound where processes exited (never an
 *     understatement: the advice errs on the side of a larger T, which
 *     frees less);
 *   - pages a read(2) adds to the oldest generation hide as many promotions;
 *   - T is measured only where some generation is cold at T. MGLRU keeps at
 *     most 4 generations (MAX_NR_GENS): at an aging pace P the second-oldest
 *     is at most about 3P old, so T above that is "not measured" (never
 *     guessed); a job gets advice at large T only from a slower pace;
 *   - a pair is skipped at T when K's generations were all merged away by b
 *     (the pages moved to K + 1 without being used).
 *
 * A job's rate at T sums promoted bytes and hot-byte-minutes over every pair
 * of every lruvec of the job (all hosts, all nodes), so large lruvecs weigh
 * more. lib only: no I/O.
 */
#ifndef LRU_ADVISE_H
#define LRU_ADVISE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_client.h"
#include "lru_err.h"
#include "lru_fleet.h"
#include "lru_model.h"

/* consecutive snapshots further apart than this are not a pair */
#define LRU_ADVISE_MAX_GAP_MS (30 * 60 * 1000)
/* the default SLO: 0.2% of the working set per minute */
#define LRU_ADVISE_DEFAULT_SLO 0.2
/* pairs at T a job needs before it is advised (default of min_samples) */
#define LRU_ADVISE_DEFAULT_MIN_PAIRS 30

/* a sum of bytes x ms: 2^64 is 10 TiB held for 20 days */
__extension__ typedef unsigned __int128 lru_advise_u128;

/*
 * The sums of one job (or one lruvec) at each fixed threshold. Whole numbers,
 * so that a job's rates do not depend on the order its pairs were added in
 * (two stores with the same snapshots answer the same, to the last digit).
 */
struct lru_advise_acc {
	uint64_t promoted[LRU_FLEET_NR_THRESHOLDS];	/* bytes (saturating) */
	lru_advise_u128 hot_ms[LRU_FLEET_NR_THRESHOLDS];	/* hot bytes x ms */
	uint64_t ms[LRU_FLEET_NR_THRESHOLDS];		/* ms of the pairs measured at T */
	uint64_t pairs[LRU_FLEET_NR_THRESHOLDS];	/* pairs measured at T */
	uint64_t merged[LRU_FLEET_NR_THRESHOLDS];	/* pairs not measured at T: merged away */
	uint64_t cold[LRU_FLEET_NR_THRESHOLDS];		/* bytes cold at T at a, pairs measured */
	uint64_t evicted[LRU_FLEET_NR_THRESHOLDS];	/* bytes not promoted: reclaimed */
	uint64_t refaulted[LRU_FLEET_NR_THRESHOLDS];	/* bytes promoted: refaulted */
	uint64_t pairs_seen;				/* pairs looked at */
};

/*
 * Add what lruvec a (at ta) and b (its next snapshot, at tb) say to acc.
 * Both are valid lruvecs (lru_model.h) of the same memcg and node and boot;
 * false when they are no pair (out of order, too far apart, or b's
 * generations older than a's: another lruvec under the same name).
 */
bool lru_advise_pair(struct lru_advise_acc *acc, const struct lru_lruvec *a, int64_t ta,
		     const struct lru_lruvec *b, int64_t tb, uint32_t page_size);

/*
 * What memory.stat says happened between the snapshots of the pairs in acc:
 * those of one memcg's lruvecs (every node) in one pair of host snapshots,
 * acc holding nothing else. stolen: bytes reclaimed (pgsteal's increase x
 * page size); refaulted: bytes refaulted (workingset_refault_anon + _file).
 * At each T measured in acc, min(stolen, cold, promoted) moves from
 * promoted to evicted, then refaulted is added to promoted.
 *
 * carry (per T): in, what the memcg's previous pair of host snapshots (the
 * one right before, same host and boot) stole and could not take off; out,
 * what this pair stole and could not take off (0 at T not measured). A
 * snapshot reads the generations before memory.stat (lrugend), so pages a
 * reclaim takes while it reads are in pgsteal at that snapshot but leave the
 * generations only by the next one. The carry is taken off first; what is
 * left of it is dropped, so a byte stolen is taken off at most once and
 * never more than one pair later.
 */
void lru_advise_reclaim(struct lru_advise_acc *acc, uint64_t stolen, uint64_t refaulted,
			uint64_t carry[LRU_FLEET_NR_THRESHOLDS]);

void lru_advise_acc_add(struct lru_advise_acc *dst, const struct lru_advise_acc *src);

/* The rate at one threshold. */
struct lru_advise_rate {
	bool measured;		/* enough pairs (min_pairs) with a working set */
	uint64_t pairs;
	double promoted_per_min;	/* bytes per minute */
	double hot_avg;			/* time-weighted working set at T, bytes */
	double pct_per_min;		/* promoted_per_min / hot_avg * 100 */
};

void lru_advise_rates(const struct lru_advise_acc *acc, uint64_t min_pairs,
		      struct lru_advise_rate out[LRU_FLEET_NR_THRESHOLDS]);

/*
 * The advised threshold: the smallest measured one that meets slo (% per
 * minute), and every larger measured one meets it too; -1 when none does.
 */
int lru_advise_pick(const struct lru_advise_rate r[LRU_FLEET_NR_THRESHOLDS], double slo_pct);

/*
 * An SLO as people write it: "0.2", "0.2%", "0.2%/min" or "0.2%/m", in
 * percent of the working set per minute, 0 < slo <= 100.
 */
enum lru_err lru_advise_parse_slo(const char *s, double *pct, struct lru_error *err);

/* ---- what a store advises (GET /v1/advise), for its readers ---------------------- */

/* One job the store advises a threshold for. */
struct lru_advice {
	char *path;		/* memcg path */
	uint64_t threshold_ms;
};

/*
 * The jobs with advice in a /v1/advise document (untrusted: what is not
 * as documented is left out), sorted by path, into *out (malloc'd; free
 * with lru_advice_free). LRU_ENOMEM.
 */
enum lru_err lru_advice_from_doc(json_t *doc, struct lru_advice **out, size_t *n,
				 struct lru_error *err);
/*
 * Ask a store (GET /v1/advise?memcg_glob=glob; glob NULL: every job) through
 * client and read its answer into *out as lru_advice_from_doc does.
 * *status is the HTTP status (0: no answer). LRU_OK, or the error said.
 */
enum lru_err lru_advice_get(struct lru_client *client, const char *glob, struct lru_advice **out,
			    size_t *n, long *status, struct lru_error *err);

/* The advised threshold of path among a (sorted), 0 when none. */
uint64_t lru_advice_find(const struct lru_advice *a, size_t n, const char *path);
void lru_advice_free(struct lru_advice *a, size_t n);

#endif
