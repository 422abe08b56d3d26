/* advice.c - the store's advised thresholds for the reclaim policy (advice.h). */
#include "advice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "lru_client.h"

/* an answer of the store may be this long */
#define ADVICE_MAX_BODY (16u << 20)

static int cmp_advice(const void *a, const void *b)
{
	return strcmp(((const struct lru_advice *)a)->path, ((const struct lru_advice *)b)->path);
}

/* Every glob's advice, merged (a path two globs match: once), into *out. */
static enum lru_err ask_all(const struct config *cfg, struct lru_advice **out, size_t *nr,
			    struct lru_error *err)
{
	struct lru_client_opts o = {
		.url = cfg->store, .ca_file = cfg->ca_file, .agent = "lrugend/" LRUGEN_VERSION,
		.connect_timeout_ms = (long)cfg->connect_timeout_ms, .timeout_ms = (long)cfg->timeout_ms,
		.max_body = ADVICE_MAX_BODY, .tls_no_verify = !cfg->tls_verify,
	};
	struct lru_advice *all = NULL;
	struct lru_client *client = NULL;
	char *token = NULL;
	size_t n = 0;
	enum lru_err rc = LRU_OK;

	if (cfg->token_file[0] && (rc = lru_client_read_token(cfg->token_file, &token, err)))
		return rc;
	o.token = token;
	rc = lru_client_new(&o, &client, err);
	for (size_t g = 0; !rc && g < cfg->reclaim_include.n; g++) {
		struct lru_advice *a = NULL, *grown;
		size_t k = 0;
		long status;

		rc = lru_advice_get(client, cfg->reclaim_include.v[g], &a, &k, &status, err);
		if (rc)
			break;
		grown = realloc(all, (n + k + 1) * sizeof(*all));
		if (!grown) {
			lru_advice_free(a, k);
			rc = lru_fail(err, LRU_ENOMEM, "out of memory");
			break;
		}
		all = grown;
		memcpy(all + n, a, k * sizeof(*a));
		n += k;
		free(a);	/* its paths moved to all */
	}
	lru_client_free(client);
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	if (rc) {
		lru_advice_free(all, n);
		return rc;
	}
	if (n > 1)
		qsort(all, n, sizeof(*all), cmp_advice);
	/* a path matched by two globs: the same advice twice, kept once */
	*nr = 0;
	for (size_t i = 0; i < n; i++) {
		if (*nr && !strcmp(all[i].path, all[*nr - 1].path))
			free(all[i].path);
		else
			all[(*nr)++] = all[i];
	}
	*out = all;
	return LRU_OK;
}

void advice_refresh(struct advice *a, const struct config *cfg, int64_t now_ms)
{
	struct lru_advice *v = NULL;
	struct lru_error err;
	size_t n = 0;

	if (a->asked_ms && now_ms - a->asked_ms < (int64_t)cfg->reclaim_advice_refresh_ms &&
	    now_ms >= a->asked_ms)
		return;
	a->asked_ms = now_ms;
	lru_error_clear(&err);
	if (ask_all(cfg, &v, &n, &err)) {
		if (strcmp(err.msg, a->last_error))
			log_warn("reclaim: cannot read the store's advice (%s); %s", err.msg,
				 a->have ? "the last advice stays" : "no memcg is reclaimed from until it comes");
		snprintf(a->last_error, sizeof(a->last_error), "%s", err.msg);
		return;
	}
	if (a->last_error[0] || !a->have)
		log_info("reclaim: the store advises a threshold for %zu memcg%s", n, n == 1 ? "" : "s");
	a->last_error[0] = '\0';
	lru_advice_free(a->v, a->n);
	a->v = v;
	a->n = n;
	a->have = true;
}

uint64_t advice_for(const struct advice *a, const char *path)
{
	return lru_advice_find(a->v, a->n, path);
}

void advice_release(struct advice *a)
{
	lru_advice_free(a->v, a->n);
	memset(a, 0, sizeof(*a));
}
