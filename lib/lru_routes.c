/* lru_routes.c - the table of lrugen-store's routes. */
#include "lru_routes.h"

#include <string.h>

static const struct lru_route_def routes[LRU_ROUTE_NR] = {
	[LRU_ROUTE_INGEST] = { "/v1/snapshots", "ingest", true, { NULL } },
	[LRU_ROUTE_HOSTS] = { "/v1/hosts", "hosts", false, { NULL } },
	[LRU_ROUTE_COLD] = { "/v1/cold", "cold", false,
			     { "threshold", "by", "memcg_glob", "limit", NULL } },
	[LRU_ROUTE_RANK] = { "/v1/rank", "rank", false,
			     { "need", "threshold", "per_node", "limit", NULL } },
	[LRU_ROUTE_WSS] = { "/v1/wss", "wss", false,
			    { "memcg_glob", "window", "percentile", "threshold", NULL } },
	[LRU_ROUTE_TIMELINE] = { "/v1/timeline", "timeline", false,
				 { "host", "memcg", "since", "limit", "after", NULL } },
	[LRU_ROUTE_CAPACITY] = { "/v1/capacity", "capacity", false, { "thresholds", NULL } },
	[LRU_ROUTE_ADVISE] = { "/v1/advise", "advise", false,
			       { "memcg_glob", "slo", "window", "min_samples", NULL } },
	[LRU_ROUTE_BANDS] = { "/v1/bands", "bands", false, { "memcg_glob", "window", "step", NULL } },
	[LRU_ROUTE_LATEST] = { "/v1/latest", "latest", false,
				   { "host", "memcg_glob", "changed_since", "after", "limit", NULL } },
	[LRU_ROUTE_METRICS] = { "/metrics", "metrics", false, { NULL } },
	[LRU_ROUTE_HEALTHZ] = { "/healthz", "healthz", false, { NULL } },
	[LRU_ROUTE_PAGE] = { "/", "page", false, { "need", "threshold", "memcg_glob", "refresh", NULL } },
	[LRU_ROUTE_LOGIN] = { "/login", "login", true, { NULL } },
};

const struct lru_route_def *lru_route(enum lru_route r)
{
	return &routes[r];
}

enum lru_route lru_route_find(const char *path)
{
	int r;

	for (r = 0; r < LRU_ROUTE_NR; r++)
		if (!strcmp(path, routes[r].path))
			break;
	return (enum lru_route)r;
}

bool lru_route_takes(enum lru_route r, const char *name)
{
	for (int i = 0; routes[r].params[i]; i++)
		if (!strcmp(name, routes[r].params[i]))
			return true;
	return false;
}
