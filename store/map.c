#include "map.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

void map_init(struct map *m)
{
	memset(m, 0, sizeof(*m));
}

void map_clear(struct map *m, void (*free_val)(void *))
{
	for (size_t i = 0; i < m->cap; i++) {
		struct map_slot *s = &m->slots[i];

		if (!s->val)
			continue;
		if (free_val)
			free_val(s->val);
		free(s->key);
		memset(s, 0, sizeof(*s));
	}
	m->n = 0;
}

void map_release(struct map *m, void (*free_val)(void *))
{
	map_clear(m, free_val);
	free(m->slots);
	map_init(m);
}

static struct map_slot *find(const struct map *m, uint64_t hash, const char *key)
{
	size_t mask = m->cap - 1, i;

	if (!m->cap)
		return NULL;
	for (i = mix(hash) & mask;; i = (i + 1) & mask) {
		struct map_slot *s = &m->slots[i];

		if (!s->val)
			return s;
		if (s->hash == hash && (key ? s->key && !strcmp(s->key, key) : !s->key))
			return s;
	}
}

static int grow(struct map *m)
{
	struct map old = *m;
	size_t cap = m->cap ? m->cap * 2 : 64;

	m->slots = calloc(cap, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return -1;
	}
	m->cap = cap;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].val)
			*find(m, old.slots[i].hash, old.slots[i].key) = old.slots[i];
	free(old.slots);
	return 0;
}

static int put(struct map *m, uint64_t hash, const char *key, void *val)
{
	struct map_slot *s;

	if ((m->n + 1) * 4 > m->cap * 3 && grow(m))
		return -1;
	s = find(m, hash, key);
	if (!s->val) {
		char *copy = NULL;

		if (key && !(copy = strdup(key)))
			return -1;
		s->hash = hash;
		s->key = copy;
		m->n++;
	}
	s->val = val;
	return 0;
}

void *map_get_str(const struct map *m, const char *key)
{
	struct map_slot *s = find(m, hash_str(key), key);

	return s ? s->val : NULL;
}

void *map_get_u64(const struct map *m, uint64_t key)
{
	struct map_slot *s = find(m, key, NULL);

	return s ? s->val : NULL;
}

int map_put_str(struct map *m, const char *key, void *val)
{
	return put(m, hash_str(key), key, val);
}

int map_put_u64(struct map *m, uint64_t key, void *val)
{
	return put(m, key, NULL, val);
}

int map_next(const struct map *m, size_t *pos, const struct map_slot **slot)
{
	for (; *pos < m->cap; (*pos)++) {
		if (m->slots[*pos].val) {
			*slot = &m->slots[(*pos)++];
			return 1;
		}
	}
	return 0;
}
