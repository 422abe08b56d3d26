/*
 * lru_routes.h - lrugen-store's HTTP routes: one table that the store routes
 * by and its clients build requests from (lru_client.h).
 *
 * Each route has a path, a method and the query parameters it takes (a
 * request with another parameter is answered 400 "unknown parameter"); the
 * metrics label is what lrugen-store's /metrics calls it. The routes and
 * what they answer are documented in store/http.h and README ("lrugen-store").
 */
#ifndef LRU_ROUTES_H
#define LRU_ROUTES_H

#include <stdbool.h>

enum lru_route {
	LRU_ROUTE_INGEST,	/* POST /v1/snapshots: a SnapshotBatch */
	LRU_ROUTE_HOSTS,	/* GET /v1/hosts ... /v1/capacity: JSON queries */
	LRU_ROUTE_COLD,
	LRU_ROUTE_RANK,
	LRU_ROUTE_WSS,
	LRU_ROUTE_TIMELINE,
	LRU_ROUTE_CAPACITY,
	LRU_ROUTE_ADVISE,	/* GET /v1/advise: promotion rates, advised thresholds */
	LRU_ROUTE_BANDS,	/* GET /v1/bands: a job's bytes per age band over time */
	LRU_ROUTE_LATEST,	/* GET /v1/latest: a SnapshotBatch */
	LRU_ROUTE_METRICS,	/* GET /metrics, GET /healthz: no token */
	LRU_ROUTE_HEALTHZ,
	LRU_ROUTE_PAGE,		/* GET /: the fleet page (HTML; the token's cookie, store/page.h) */
	LRU_ROUTE_LOGIN,	/* POST /login: a read token from a form -> the cookie */
	LRU_ROUTE_NR
};

#define LRU_ROUTE_MAX_PARAMS 6

struct lru_route_def {
	const char *path;	/* "/v1/cold" */
	const char *name;	/* "cold": the metrics label */
	bool post;		/* POST (else GET) */
	const char *const params[LRU_ROUTE_MAX_PARAMS];	/* NULL-terminated */
};

/* The route r (r < LRU_ROUTE_NR). */
const struct lru_route_def *lru_route(enum lru_route r);
/* The route of path, or LRU_ROUTE_NR. */
enum lru_route lru_route_find(const char *path);
/* Does route r take the query parameter name? */
bool lru_route_takes(enum lru_route r, const char *name);

#endif
