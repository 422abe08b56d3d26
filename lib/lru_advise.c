/* lru_advise.c - promotion rates from consecutive snapshots (lru_advise.h). */
#include "lru_advise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lru_sat.h"

/* bytes of each type in generation g (pages marked evicted count 0) */
static void gen_bytes(const struct lru_gen *gen, uint64_t page, uint64_t out[LRU_NR_TYPES])
{
	for (int t = 0; t < LRU_NR_TYPES; t++)
		out[t] = gen->evicted & (1u << t) ? 0 : lru_sat_mul_u64(gen->pages[t], page);
}

/* How many of a's oldest generations are cold at T: each one's successor is older than T. */
static unsigned cold_gens(const struct lru_lruvec *a, uint64_t t_ms)
{
	unsigned g = 0;

	while (g + 1 < a->nr_gens && a->gens[g + 1].age_ms > t_ms)
		g++;
	return g;
}

/*
 * The bytes of each type of b in generations <= seq, and whether each type
 * still has a live generation there (one not marked evicted for it).
 */
static void bytes_upto(const struct lru_lruvec *b, uint64_t seq, uint64_t page,
		       uint64_t out[LRU_NR_TYPES], bool live[LRU_NR_TYPES])
{
	uint64_t x[LRU_NR_TYPES];

	memset(out, 0, sizeof(uint64_t) * LRU_NR_TYPES);
	memset(live, 0, sizeof(bool) * LRU_NR_TYPES);
	for (unsigned g = 0; g < b->nr_gens && b->gens[g].seq <= seq; g++) {
		gen_bytes(&b->gens[g], page, x);
		for (int t = 0; t < LRU_NR_TYPES; t++) {
			out[t] = lru_sat_add_u64(out[t], x[t]);
			live[t] |= !(b->gens[g].evicted & (1u << t));
		}
	}
}

bool lru_advise_pair(struct lru_advise_acc *acc, const struct lru_lruvec *a, int64_t ta,
		     const struct lru_lruvec *b, int64_t tb, uint32_t page_size)
{
	uint64_t page = page_size ? page_size : 4096, total = 0, x[LRU_NR_TYPES];
	int64_t dt;

	if (!a->nr_gens || !b->nr_gens || tb <= ta || lru_sat_sub_i64(tb, ta) > LRU_ADVISE_MAX_GAP_MS ||
	    lru_lruvec_max_seq(b) < lru_lruvec_max_seq(a) || b->gens[0].seq < a->gens[0].seq)
		return false;
	dt = tb - ta;
	acc->pairs_seen++;
	for (unsigned g = 0; g < a->nr_gens; g++) {
		gen_bytes(&a->gens[g], page, x);
		for (int t = 0; t < LRU_NR_TYPES; t++)
			total = lru_sat_add_u64(total, x[t]);
	}
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
		unsigned n = cold_gens(a, lru_fleet_threshold_ms(k));
		uint64_t cold_a[LRU_NR_TYPES] = { 0 }, cold_b[LRU_NR_TYPES], cold = 0;
		bool live[LRU_NR_TYPES], ok = true;
		uint64_t promoted = 0;

		if (!n)
			break;	/* nothing is cold at T, nor at any larger T */
		for (unsigned g = 0; g < n; g++) {
			gen_bytes(&a->gens[g], page, x);
			for (int t = 0; t < LRU_NR_TYPES; t++)
				cold_a[t] = lru_sat_add_u64(cold_a[t], x[t]);
		}
		bytes_upto(b, a->gens[n - 1].seq, page, cold_b, live);
		for (int t = 0; t < LRU_NR_TYPES; t++) {
			if (!live[t] && cold_a[t])
				ok = false;	/* merged away: moved, not used */
			if (cold_a[t] > cold_b[t])
				promoted = lru_sat_add_u64(promoted, cold_a[t] - cold_b[t]);
			cold = lru_sat_add_u64(cold, cold_a[t]);
		}
		if (!ok) {
			acc->merged[k]++;
			continue;
		}
		acc->promoted[k] = lru_sat_add_u64(acc->promoted[k], promoted);
		acc->cold[k] = lru_sat_add_u64(acc->cold[k], cold);
		acc->hot_ms[k] += (lru_advise_u128)(total - (cold < total ? cold : total)) * (uint64_t)dt;
		acc->ms[k] = lru_sat_add_u64(acc->ms[k], (uint64_t)dt);
		acc->pairs[k]++;
	}
	return true;
}

/* take up to want bytes off promoted[k] (within cold[k]) as evicted; what was taken */
static uint64_t take_off(struct lru_advise_acc *acc, unsigned k, uint64_t want, uint64_t *room)
{
	uint64_t off = want < *room ? want : *room;

	off = off < acc->promoted[k] ? off : acc->promoted[k];
	*room -= off;
	acc->promoted[k] -= off;
	acc->evicted[k] = lru_sat_add_u64(acc->evicted[k], off);
	return off;
}

void lru_advise_reclaim(struct lru_advise_acc *acc, uint64_t stolen, uint64_t refaulted,
			uint64_t carry[LRU_FLEET_NR_THRESHOLDS])
{
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
		uint64_t room = acc->cold[k];

		if (!acc->pairs[k]) {
			carry[k] = 0;
			continue;
		}
		take_off(acc, k, carry[k], &room);
		carry[k] = stolen - take_off(acc, k, stolen, &room);
		acc->promoted[k] = lru_sat_add_u64(acc->promoted[k], refaulted);
		acc->refaulted[k] = lru_sat_add_u64(acc->refaulted[k], refaulted);
	}
}

void lru_advise_acc_add(struct lru_advise_acc *dst, const struct lru_advise_acc *src)
{
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
		dst->cold[k] = lru_sat_add_u64(dst->cold[k], src->cold[k]);
		dst->evicted[k] = lru_sat_add_u64(dst->evicted[k], src->evicted[k]);
		dst->refaulted[k] = lru_sat_add_u64(dst->refaulted[k], src->refaulted[k]);
		dst->promoted[k] = lru_sat_add_u64(dst->promoted[k], src->promoted[k]);
		dst->hot_ms[k] += src->hot_ms[k];
		dst->ms[k] = lru_sat_add_u64(dst->ms[k], src->ms[k]);
		dst->pairs[k] += src->pairs[k];
		dst->merged[k] += src->merged[k];
	}
	dst->pairs_seen += src->pairs_seen;
}

void lru_advise_rates(const struct lru_advise_acc *acc, uint64_t min_pairs,
		      struct lru_advise_rate out[LRU_FLEET_NR_THRESHOLDS])
{
	for (unsigned k = 0; k < LRU_FLEET_NR_THRESHOLDS; k++) {
		struct lru_advise_rate *r = &out[k];

		memset(r, 0, sizeof(*r));
		r->pairs = acc->pairs[k];
		if (!acc->pairs[k] || !acc->ms[k])
			continue;
		r->promoted_per_min = (double)acc->promoted[k] * 60000.0 / (double)acc->ms[k];
		r->hot_avg = (double)acc->hot_ms[k] / (double)acc->ms[k];
		/* a working set under one byte is no working set to share out */
		r->measured = acc->pairs[k] >= (min_pairs ? min_pairs : 1) && r->hot_avg >= 1.0;
		if (r->measured)
			r->pct_per_min = 100.0 * 60000.0 * (double)acc->promoted[k] /
					 (double)acc->hot_ms[k];
	}
}

int lru_advise_pick(const struct lru_advise_rate r[LRU_FLEET_NR_THRESHOLDS], double slo_pct)
{
	int pick = -1;

	for (int k = LRU_FLEET_NR_THRESHOLDS - 1; k >= 0; k--) {
		if (!r[k].measured)
			continue;
		if (r[k].pct_per_min > slo_pct)
			break;
		pick = k;
	}
	return pick;
}

void lru_advice_free(struct lru_advice *a, size_t n)
{
	for (size_t i = 0; a && i < n; i++)
		free(a[i].path);
	free(a);
}

static int advice_cmp(const void *a, const void *b)
{
	return strcmp(((const struct lru_advice *)a)->path, ((const struct lru_advice *)b)->path);
}

enum lru_err lru_advice_from_doc(json_t *doc, struct lru_advice **out, size_t *nr,
				 struct lru_error *err)
{
	json_t *jobs = json_object_get(doc, "jobs"), *j;
	struct lru_advice *a = calloc(json_array_size(jobs) + 1, sizeof(*a));
	size_t i, n = 0;

	if (!a)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	json_array_foreach(jobs, i, j) {
		json_t *t = json_object_get(json_object_get(j, "advice"), "threshold_ms");
		const char *path = json_string_value(json_object_get(j, "memcg"));

		if (!path || !json_is_integer(t) || json_integer_value(t) <= 0)
			continue;
		a[n].threshold_ms = (uint64_t)json_integer_value(t);
		if (!(a[n].path = strdup(path))) {
			lru_advice_free(a, n);
			return lru_fail(err, LRU_ENOMEM, "out of memory");
		}
		n++;
	}
	if (n > 1)
		qsort(a, n, sizeof(*a), advice_cmp);
	*out = a;
	*nr = n;
	return LRU_OK;
}

enum lru_err lru_advice_get(struct lru_client *client, const char *glob, struct lru_advice **out,
			    size_t *n, long *status, struct lru_error *err)
{
	const struct lru_client_param params[] = { { "memcg_glob", glob } };
	const struct lru_client_req rq = { .route = LRU_ROUTE_ADVISE, .params = params, .nr_params = 1 };
	struct lru_client_resp resp;
	enum lru_err rc = lru_client_do(client, &rq, &resp, err);
	json_t *doc = NULL;

	*status = resp.status;
	if (!rc)
		rc = lru_client_check(&resp, err);
	if (!rc && !(doc = json_loadb((const char *)resp.body.data, resp.body.len, 0, NULL)))
		rc = lru_fail(err, LRU_EPROTO, "the store's answer to /v1/advise is not JSON");
	if (!rc)
		rc = lru_advice_from_doc(doc, out, n, err);
	json_decref(doc);
	lru_client_resp_release(&resp);
	return rc;
}

uint64_t lru_advice_find(const struct lru_advice *a, size_t n, const char *path)
{
	size_t lo = 0, hi = n;

	while (path && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(path, a[mid].path);

		if (!c)
			return a[mid].threshold_ms;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

enum lru_err lru_advise_parse_slo(const char *s, double *pct, struct lru_error *err)
{
	char *end;
	double v;

	if (!s || !*s || strspn(s, "0123456789.") == 0)
		goto bad;
	v = strtod(s, &end);
	if (*end == '%')
		end++;
	if (!strcmp(end, "/min") || !strcmp(end, "/m"))
		end += strlen(end);
	if (*end || !isfinite(v) || v <= 0 || v > 100)
		goto bad;
	*pct = v;
	return LRU_OK;
bad:
	return lru_fail(err, LRU_EINVAL, "SLO '%.32s': a share of the working set per minute, "
			"in percent above 0 and up to 100 (e.g. 0.2%%/min)", s ? s : "");
}
