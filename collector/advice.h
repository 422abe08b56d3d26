/*
 * advice.h - the store's advised thresholds for lrugend's reclaim policy
 * (reclaim-older-than = advised).
 *
 * Every reclaim-advice-refresh (10m; and on the first tick) advice_refresh
 * asks the store GET /v1/advise?memcg_glob=G for each reclaim-include glob G,
 * with the token of token-file (an ingest token may read /v1/advise, and
 * nothing else of the store's queries), and keeps the jobs it advises a
 * threshold for (lru_advise.h). What fails (the store unreachable, a refusal,
 * a malformed answer) keeps the advice held before and is logged once per
 * streak; a memcg the store advises nothing for is not reclaimed from.
 * The request waits timeout (the shipping setting) at most, in the tick.
 */
#ifndef ADVICE_H
#define ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "lru_advise.h"

struct advice {
	struct lru_advice *v;	/* every glob's jobs, sorted by path; owned */
	size_t n;
	int64_t asked_ms;	/* the last attempt (wall clock); 0: never */
	bool have;		/* an answer came once */
	char last_error[256];
};

/* Ask the store again when reclaim-advice-refresh has passed since the last attempt. */
void advice_refresh(struct advice *a, const struct config *cfg, int64_t now_ms);

/* The threshold the store advises for path, 0 when none. */
uint64_t advice_for(const struct advice *a, const char *path);

void advice_release(struct advice *a);

#endif
