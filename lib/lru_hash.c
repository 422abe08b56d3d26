#include "lru_hash.h"

#include <stdlib.h>

#define MIN_BITS 6
_Static_assert(LRU_HASH_MIN_SLOTS == 1 << MIN_BITS, "the least table has 1 << MIN_BITS slots");

static uint32_t slot_tag(uint64_t slot)
{
	return (uint32_t)(slot >> 32);
}

/* The first slot of a tag: its top bits. */
static size_t home(const struct lru_hash *t, uint32_t tag)
{
	return (size_t)(tag >> (32 - t->bits));
}

static size_t nr_slots(const struct lru_hash *t)
{
	return t->bits ? (size_t)1 << t->bits : 0;
}

void lru_hash_init(struct lru_hash *t)
{
	t->slots = NULL;
	t->bits = 0;
	t->used = 0;
}

void lru_hash_release(struct lru_hash *t)
{
	free(t->slots);
	lru_hash_init(t);
}

/* Store slot in the first empty slot of its probe sequence. */
static void place(struct lru_hash *t, uint64_t slot)
{
	size_t mask = nr_slots(t) - 1, i;

	for (i = home(t, slot_tag(slot)); t->slots[i]; i = (i + 1) & mask)
		;
	t->slots[i] = slot;
}

enum lru_err lru_hash_reserve(struct lru_hash *t, size_t want)
{
	struct lru_hash n = { NULL, 0, 0 };
	size_t size = nr_slots(t), j;

	if (want < t->used + 1)
		want = t->used + 1;
	if (want <= size / 2)
		return LRU_OK;
	if (want > LRU_HASH_MAX_INDEX)
		return LRU_ENOMEM;
	n.bits = t->bits ? t->bits + 1 : MIN_BITS;
	while (((size_t)1 << n.bits) < want * 2)
		n.bits++;
	if (n.bits > 32)
		return LRU_ENOMEM;
	n.slots = calloc((size_t)1 << n.bits, sizeof(*n.slots));
	if (!n.slots)
		return LRU_ENOMEM;
	for (j = 0; j < size; j++)
		if (t->slots[j])
			place(&n, t->slots[j]);
	n.used = t->used;
	free(t->slots);
	*t = n;
	return LRU_OK;
}

bool lru_hash_full(const struct lru_hash *t)
{
	return (t->used + 1) * 2 > nr_slots(t);
}

enum lru_err lru_hash_put(struct lru_hash *t, uint64_t hash, size_t index)
{
	if (index >= LRU_HASH_MAX_INDEX || lru_hash_reserve(t, 0))
		return LRU_ENOMEM;
	place(t, (hash >> 32) << 32 | (index + 1));
	t->used++;
	return LRU_OK;
}

bool lru_hash_next(const struct lru_hash *t, uint64_t hash, size_t *cursor, size_t *index)
{
	uint32_t tag = (uint32_t)(hash >> 32);
	size_t i, mask;

	if (!t->bits)
		return false;
	mask = nr_slots(t) - 1;
	i = *cursor == SIZE_MAX ? home(t, tag) : (*cursor + 1) & mask;
	for (; t->slots[i]; i = (i + 1) & mask) {
		if (slot_tag(t->slots[i]) == tag) {
			*cursor = i;
			*index = (size_t)(uint32_t)t->slots[i] - 1;
			return true;
		}
	}
	return false;
}
