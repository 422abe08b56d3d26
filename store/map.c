#include "map.h"

#include <stdlib.h>
#include <string.h>

/* What the index files an entry under: string keys hashed, 64-bit keys mixed. */
static uint64_t index_hash(uint64_t hash, const char *key)
{
	return key ? hash : lru_hash_mix64(hash);
}

void map_init(struct map *m)
{
	m->slots = NULL;
	m->cap = m->n = 0;
	lru_hash_init(&m->index);
}

void map_clear(struct map *m, void (*free_val)(void *))
{
	for (size_t i = 0; i < m->n; i++) {
		if (free_val)
			free_val(m->slots[i].val);
		free(m->slots[i].key);
	}
	m->n = 0;
	lru_hash_release(&m->index);
}

void map_release(struct map *m, void (*free_val)(void *))
{
	map_clear(m, free_val);
	free(m->slots);
	map_init(m);
}

/* The entry of (hash, key) (key NULL for 64-bit keys), or NULL. */
static struct map_slot *find(const struct map *m, uint64_t hash, const char *key)
{
	size_t cursor = SIZE_MAX, i;

	while (lru_hash_next(&m->index, index_hash(hash, key), &cursor, &i)) {
		struct map_slot *s = &m->slots[i];

		if (s->hash == hash && (key ? s->key && !strcmp(s->key, key) : !s->key))
			return s;
	}
	return NULL;
}

static int put(struct map *m, uint64_t hash, const char *key, void *val)
{
	struct map_slot *s = find(m, hash, key);
	char *copy = NULL;

	if (s) {
		s->val = val;
		return 0;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 32;
		struct map_slot *slots = cap <= SIZE_MAX / sizeof(*slots)
						 ? realloc(m->slots, cap * sizeof(*slots)) : NULL;

		if (!slots)
			return -1;
		m->slots = slots;
		m->cap = cap;
	}
	if ((key && !(copy = strdup(key))) || lru_hash_put(&m->index, index_hash(hash, key), m->n)) {
		free(copy);
		return -1;
	}
	m->slots[m->n++] = (struct map_slot){ hash, copy, val };
	return 0;
}

void *map_get_str(const struct map *m, const char *key)
{
	struct map_slot *s = find(m, lru_hash_bytes(0, key, strlen(key)), key);

	return s ? s->val : NULL;
}

void *map_get_u64(const struct map *m, uint64_t key)
{
	struct map_slot *s = find(m, key, NULL);

	return s ? s->val : NULL;
}

int map_put_str(struct map *m, const char *key, void *val)
{
	return put(m, lru_hash_bytes(0, key, strlen(key)), key, val);
}

int map_put_u64(struct map *m, uint64_t key, void *val)
{
	return put(m, key, NULL, val);
}

int map_next(const struct map *m, size_t *pos, const struct map_slot **slot)
{
	if (*pos >= m->n)
		return 0;
	*slot = &m->slots[(*pos)++];
	return 1;
}
