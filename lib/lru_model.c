#include "lru_model.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lru_sat.h"

void lru_snapshot_init(struct lru_snapshot *snap)
{
	memset(snap, 0, sizeof(*snap));
	snap->page_size = 4096;
}

void lru_snapshot_release(struct lru_snapshot *snap)
{
	size_t i;

	for (i = 0; i < snap->nr_memcgs; i++)
		free(snap->memcgs[i].path);
	for (i = 0; i < snap->nr_lruvecs; i++)
		free(snap->lruvecs[i].full);
	free(snap->memcgs);
	free(snap->lruvecs);
	free(snap->host.host);
	free(snap->host.boot_id);
	free(snap->host.kernel);
	free(snap->nodes);
	lru_snapshot_init(snap);
}

/* Grow *array (of elem-sized items) so that it holds at least need items. */
static enum lru_err grow(void **array, size_t *alloc, size_t need, size_t elem,
			 struct lru_error *err)
{
	size_t n = *alloc ? *alloc : 16;
	void *p;

	if (need <= *alloc)
		return LRU_OK;
	while (n < need)
		n *= 2;
	p = realloc(*array, n * elem);
	if (!p)
		return lru_fail(err, LRU_ENOMEM, "out of memory growing a snapshot to %zu items", n);
	*array = p;
	*alloc = n;
	return LRU_OK;
}

/* Make *array (of elem-sized items) hold exactly need items, if it holds fewer. */
static enum lru_err reserve(void **array, size_t *alloc, size_t need, size_t elem,
			    struct lru_error *err)
{
	void *p;

	if (need <= *alloc)
		return LRU_OK;
	if (need > SIZE_MAX / elem || !(p = realloc(*array, need * elem)))
		return lru_fail(err, LRU_ENOMEM, "out of memory growing a snapshot to %zu items",
				need);
	*array = p;
	*alloc = need;
	return LRU_OK;
}

enum lru_err lru_snapshot_reserve(struct lru_snapshot *snap, size_t nr_memcgs,
				  size_t nr_lruvecs, struct lru_error *err)
{
	enum lru_err rc = reserve((void **)&snap->memcgs, &snap->alloc_memcgs, nr_memcgs,
				  sizeof(*snap->memcgs), err);

	if (rc)
		return rc;
	return reserve((void **)&snap->lruvecs, &snap->alloc_lruvecs, nr_lruvecs,
		       sizeof(*snap->lruvecs), err);
}

enum lru_err lru_snapshot_add_memcg(struct lru_snapshot *snap, uint64_t id,
				    const char *path, size_t path_len,
				    size_t *index, struct lru_error *err)
{
	struct lru_memcg *m;
	enum lru_err rc;

	rc = grow((void **)&snap->memcgs, &snap->alloc_memcgs, snap->nr_memcgs + 1,
		  sizeof(*snap->memcgs), err);
	if (rc)
		return rc;
	m = &snap->memcgs[snap->nr_memcgs];
	m->path = malloc(path_len + 1);
	if (!m->path)
		return lru_fail(err, LRU_ENOMEM, "out of memory copying a memcg path");
	memcpy(m->path, path, path_len);
	m->path[path_len] = '\0';
	m->id = id;
	m->ino = 0;
	m->has_stats = false;
	memset(&m->stats, 0, sizeof(m->stats));
	if (index)
		*index = snap->nr_memcgs;
	snap->nr_memcgs++;
	return LRU_OK;
}

enum lru_err lru_snapshot_add_lruvec(struct lru_snapshot *snap, size_t memcg,
				     int node, size_t *index, struct lru_error *err)
{
	struct lru_lruvec *lv;
	enum lru_err rc;

	rc = grow((void **)&snap->lruvecs, &snap->alloc_lruvecs, snap->nr_lruvecs + 1,
		  sizeof(*snap->lruvecs), err);
	if (rc)
		return rc;
	lv = &snap->lruvecs[snap->nr_lruvecs];
	memset(lv, 0, sizeof(*lv));
	lv->memcg = memcg;
	lv->node = node;
	if (index)
		*index = snap->nr_lruvecs;
	snap->nr_lruvecs++;
	return LRU_OK;
}

const struct lru_memcg *lru_snapshot_find_memcg(const struct lru_snapshot *snap,
						const char *path)
{
	size_t i;

	for (i = 0; i < snap->nr_memcgs; i++)
		if (!strcmp(snap->memcgs[i].path, path))
			return &snap->memcgs[i];
	return NULL;
}

const struct lru_lruvec *lru_snapshot_find(const struct lru_snapshot *snap,
					   const char *path, uint64_t id, int node)
{
	size_t i;

	for (i = 0; i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];
		const struct lru_memcg *m = &snap->memcgs[lv->memcg];

		if (lv->node != node)
			continue;
		if (path ? !strcmp(m->path, path) : m->id == id)
			return lv;
	}
	return NULL;
}

void lru_snapshot_set_births(struct lru_snapshot *snap, size_t from, size_t to, int64_t mid_ms)
{
	size_t i;
	unsigned g;

	for (i = from; i < to && i < snap->nr_lruvecs; i++) {
		struct lru_lruvec *lv = &snap->lruvecs[i];

		for (g = 0; g < lv->nr_gens; g++)
			lv->gens[g].birth_ms = lru_sat_sub_i64(mid_ms, lv->gens[g].age_ms);
	}
}

void lru_snapshot_set_times(struct lru_snapshot *snap, int64_t start_ms, int64_t end_ms)
{
	uint64_t half;

	if (end_ms < start_ms)
		end_ms = start_ms;
	snap->read_start_ms = start_ms;
	snap->read_end_ms = end_ms;
	half = lru_sat_add_u64((uint64_t)end_ms - (uint64_t)start_ms, 1) / 2;
	snap->birth_error_ms = half > UINT32_MAX - LRU_AGE_GRANULARITY_MS
				       ? UINT32_MAX : (uint32_t)half + LRU_AGE_GRANULARITY_MS;
	lru_snapshot_set_births(snap, 0, snap->nr_lruvecs, lru_sat_mid_i64(start_ms, end_ms));
}

uint64_t lru_lruvec_pages(const struct lru_lruvec *lv, enum lru_type type)
{
	uint64_t sum = 0;
	unsigned g;

	for (g = 0; g < lv->nr_gens; g++)
		if (!(lv->gens[g].evicted & (1u << type)))
			sum += lv->gens[g].pages[type];
	return sum;
}

static int64_t clock_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t lru_now_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

int64_t lru_mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

struct timespec lru_deadline(clockid_t clock, int64_t ms)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ms = ms < 0 ? 0 : ms;
	ts.tv_sec += (time_t)(ms / 1000);
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

enum lru_err lru_strdup_into(char **dst, const char *src, struct lru_error *err)
{
	char *copy = NULL;

	if (src && !(copy = strdup(src)))
		return lru_fail(err, LRU_ENOMEM, "out of memory copying a string");
	free(*dst);
	*dst = copy;
	return LRU_OK;
}

enum lru_err lru_snapshots_append(struct lru_snapshot **v, size_t *n, size_t *alloc,
				  struct lru_snapshot *more, size_t k, struct lru_error *err)
{
	if (*n + k > *alloc) {
		size_t want = (*n + k) * 2;
		struct lru_snapshot *p = realloc(*v, want * sizeof(*p));

		if (!p) {
			for (size_t i = 0; i < k; i++)
				lru_snapshot_release(&more[i]);
			free(more);
			return lru_fail(err, LRU_ENOMEM, "out of memory");
		}
		*v = p;
		*alloc = want;
	}
	if (k)	/* a batch of no snapshots: more may be NULL */
		memcpy(*v + *n, more, k * sizeof(*more));
	*n += k;
	free(more);
	return LRU_OK;
}
