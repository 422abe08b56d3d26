/* acache.c - answers kept by request for a while (acache.h). */
#include "acache.h"

#include <stdlib.h>
#include <string.h>

void acache_init(struct acache *c, int64_t ttl_ms)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	c->ttl_ms = ttl_ms;
}

static void slot_clear(struct acache_slot *s)
{
	free(s->key);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

void acache_release(struct acache *c)
{
	for (int i = 0; i < ACACHE_SLOTS; i++)
		slot_clear(&c->slot[i]);
	pthread_mutex_destroy(&c->lock);
}

char *acache_get(struct acache *c, const char *key, int64_t now_ms, size_t *len, int64_t *age_ms)
{
	char *copy = NULL;

	pthread_mutex_lock(&c->lock);
	for (int i = 0; i < ACACHE_SLOTS; i++) {
		struct acache_slot *s = &c->slot[i];

		if (!s->key || strcmp(s->key, key))
			continue;
		if (now_ms >= s->at_ms && now_ms - s->at_ms < c->ttl_ms && (copy = malloc(s->len + 1))) {
			memcpy(copy, s->text, s->len);
			copy[s->len] = '\0';
			*len = s->len;
			*age_ms = now_ms - s->at_ms;
		}
		break;
	}
	pthread_mutex_unlock(&c->lock);
	return copy;
}

void acache_put(struct acache *c, const char *key, const char *text, size_t len, int64_t at_ms)
{
	struct acache_slot *use = NULL;
	char *k = strdup(key), *t = malloc(len + 1);

	if (!k || !t) {
		free(k);
		free(t);
		return;
	}
	memcpy(t, text, len);
	t[len] = '\0';
	pthread_mutex_lock(&c->lock);
	/* the same key, else a free slot, else the oldest answer */
	for (int i = 0; i < ACACHE_SLOTS && !use; i++)
		if (c->slot[i].key && !strcmp(c->slot[i].key, key))
			use = &c->slot[i];
	for (int i = 0; i < ACACHE_SLOTS && !use; i++)
		if (!c->slot[i].key)
			use = &c->slot[i];
	if (!use) {
		use = &c->slot[0];
		for (int i = 1; i < ACACHE_SLOTS; i++)
			if (c->slot[i].at_ms < use->at_ms)
				use = &c->slot[i];
	}
	if (use->key && use->at_ms > at_ms) {	/* a newer answer came first: keep it */
		pthread_mutex_unlock(&c->lock);
		free(k);
		free(t);
		return;
	}
	slot_clear(use);
	use->key = k;
	use->text = t;
	use->len = len;
	use->at_ms = at_ms;
	pthread_mutex_unlock(&c->lock);
}
