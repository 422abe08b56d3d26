/*
 * lru_hash.h - hashing and the open-addressing index behind every hash
 * table of lrugen: the parser's memcgs and lruvecs (lru_parse.c), the
 * decoder's (lru_pb.c) and the store's maps (store/map.h).
 *
 * An index maps 64-bit hashes to indices into an array the caller keeps
 * (memcgs, lruvecs, map entries); it stores no keys. One slot is 64 bits:
 * the hash's upper 32 bits (its tag, whose top bits also pick the first
 * slot) and index + 1 (0 = empty). Linear probing, at most half full,
 * growing at least twofold, so puts are amortized O(1). Tags may repeat,
 * and one hash may hold several indices: a lookup walks every index under
 * the tag and the caller compares the element it points to.
 *
 *	size_t cursor = SIZE_MAX, i;
 *	uint64_t h = lru_hash_bytes(id, path, len);
 *	while (lru_hash_next(&ix, h, &cursor, &i))
 *		if (memcgs[i].id == id && !strcmp(memcgs[i].path, path))
 *			return i;
 *	... add memcgs[n], then lru_hash_put(&ix, h, n);
 *
 * Hashes must be mixed (lru_hash_mix64, lru_hash_bytes): the tag is the
 * upper half. Indices are below LRU_HASH_MAX_INDEX. No removal: entries
 * leave only with lru_hash_release. Not thread-safe; nothing prints.
 */
#ifndef LRU_HASH_H
#define LRU_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lru_err.h"

/* largest index + 1 an index holds */
#define LRU_HASH_MAX_INDEX ((size_t)UINT32_MAX)
/* slots of the smallest table; a table never has fewer */
#define LRU_HASH_MIN_SLOTS 64

struct lru_hash {
	uint64_t *slots;
	unsigned bits;		/* 1 << bits slots, 0 = none allocated */
	size_t used;
};

/* The 64-bit finalizer of MurmurHash3: every input bit moves every output bit. */
static inline uint64_t lru_hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Hash of n bytes and a seed (an id, an inode), read 8 bytes at a time. */
static inline uint64_t lru_hash_bytes(uint64_t seed, const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL), w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (n) {
		w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
	}
	return lru_hash_mix64(h);
}

/* An empty index (no allocation); lru_hash_release frees the slots. */
void lru_hash_init(struct lru_hash *t);
void lru_hash_release(struct lru_hash *t);

/*
 * Make room for want entries (and at least one more than now) without
 * growing again; LRU_ENOMEM when out of memory (the index is unchanged).
 */
enum lru_err lru_hash_reserve(struct lru_hash *t, size_t want);

/* True when the next put grows the index (to reserve more than twofold first). */
bool lru_hash_full(const struct lru_hash *t);

/* Add index under hash (growing as needed); LRU_ENOMEM, index too large or no memory. */
enum lru_err lru_hash_put(struct lru_hash *t, uint64_t hash, size_t index);

/*
 * The indices under hash's tag, one a call: start with *cursor = SIZE_MAX;
 * false when there are no more. Puts in between invalidate the cursor.
 */
bool lru_hash_next(const struct lru_hash *t, uint64_t hash, size_t *cursor, size_t *index);

#endif
