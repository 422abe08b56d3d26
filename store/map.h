/*
 * map.h - hash maps of the store: string keys (host names, memcg paths; the
 * map owns a copy) or 64-bit keys (rollup cells). Values are pointers the
 * caller owns; map_clear() hands each to a free function. Not thread-safe:
 * each map has one owner or a lock around it.
 *
 * Unlike the index of lib/lru_hash.h, which it is built on, a map keeps its
 * keys, replaces the value of a key put twice, and iterates its entries
 * (in the order they were first put). Entries leave only all at once.
 */
#ifndef STORE_MAP_H
#define STORE_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "lru_hash.h"

struct map_slot {
	uint64_t hash;		/* the key itself for 64-bit keys */
	char *key;		/* NULL for 64-bit keys */
	void *val;		/* never NULL */
};

struct map {
	struct map_slot *slots;	/* the entries, n of cap */
	size_t cap, n;
	struct lru_hash index;	/* hash -> entry */
};

void map_init(struct map *m);
/* Remove every entry, calling free_val (when not NULL) on each value. */
void map_clear(struct map *m, void (*free_val)(void *));
void map_release(struct map *m, void (*free_val)(void *));

void *map_get_str(const struct map *m, const char *key);
void *map_get_u64(const struct map *m, uint64_t key);
/* Insert or replace (val must not be NULL); -1 when out of memory. */
int map_put_str(struct map *m, const char *key, void *val);
int map_put_u64(struct map *m, uint64_t key, void *val);

/* Iterate: for (size_t i = 0; map_next(m, &i, &slot); ) ... */
int map_next(const struct map *m, size_t *pos, const struct map_slot **slot);

#endif
