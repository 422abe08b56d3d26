/*
 * acache.h - a small cache of answers by request: the store keeps the
 * answers of costly queries (GET /v1/advise: a pass over the raw snapshots)
 * for ttl, so that many readers asking the same (every lrugend with
 * reclaim-older-than = advised, every lrugen-top a minute) cost one pass.
 * ACACHE_SLOTS keys at most; the oldest answer makes room. Thread-safe.
 */
#ifndef STORE_ACACHE_H
#define STORE_ACACHE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define ACACHE_SLOTS 16

struct acache {
	pthread_mutex_t lock;
	int64_t ttl_ms;
	struct acache_slot {
		char *key, *text;	/* owned; key NULL: free */
		size_t len;
		int64_t at_ms;		/* when the answer was made */
	} slot[ACACHE_SLOTS];
};

void acache_init(struct acache *c, int64_t ttl_ms);
void acache_release(struct acache *c);

/*
 * A copy (malloc'd) of key's answer when it was made within ttl of now,
 * its length and age; NULL when there is none (or out of memory).
 */
char *acache_get(struct acache *c, const char *key, int64_t now_ms, size_t *len, int64_t *age_ms);

/* Keep a copy of key's answer, made at at_ms (nothing kept when out of memory). */
void acache_put(struct acache *c, const char *key, const char *text, size_t len, int64_t at_ms);

#endif
