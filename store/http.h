/*
 * http.h - lrugen-store's HTTP side (libmicrohttpd with a thread pool).
 *
 *	POST /v1/snapshots	ingest a SnapshotBatch (ingest or admin token)
 *	GET  /v1/hosts|cold|rank|wss|timeline|capacity	queries (read or admin)
 *	GET  /v1/latest		every host's latest snapshot as a SnapshotBatch
 *				(Content-Type application/x-protobuf; read or admin)
 *	GET  /metrics		Prometheus text (no token)
 *	GET  /healthz		liveness and database check (no token)
 *
 * Ingest: the body (Content-Type application/x-protobuf, optionally
 * Content-Encoding gzip) is read up to max-body bytes, inflated up to
 * max-body bytes, decoded and validated in the HTTP thread; the connection
 * is then suspended until the writer thread has committed the batch, and
 * only then answered 200 {"accepted": N, "duplicates": M}. Errors are JSON
 * {"error": "..."}: 400 malformed (with the reason), 401 no or unknown
 * token, 403 token not allowed (an ingest token bound to another host than
 * one of the batch's snapshots: nothing of the batch is written), 404, 405,
 * 413 too large, 415 wrong Content-Type or Content-Encoding, 500 write
 * failed, 503 writer queue full or memory budget spent (retry later, with
 * Retry-After). 401 and 403 say nothing more. Every response carries
 * "Accept-Encoding: gzip".
 *
 * Routes, methods and the query parameters each takes come from one table
 * (lru_routes.h), which the clients (lru_client.h) build requests from; an
 * unknown parameter is 400. /v1/latest takes host and memcg_glob (query.h).
 *
 * Limits (config.h): connections in all and per address, an idle timeout,
 * and a memory budget in bytes (budget.h) that every request body, its
 * decoding, the decoded snapshots waiting for the writer and every query
 * answer take from before they allocate, and give back when the answer is
 * sent. /v1/latest may build 64 MiB at most (half the budget when that is
 * less): 413 past it. Snapshots outside lru_bounds.h's table are refused 400.
 */
#ifndef STORE_HTTP_H
#define STORE_HTTP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ch.h"
#include "config.h"
#include "db.h"
#include "metrics.h"

struct store_ctx {
	const struct store_config *cfg;	/* as started: listen, db, limits, insecure-no-auth */
	/*
	 * The config whose tokens authorize requests: cfg at the start, the newest
	 * valid one after a SIGHUP (lrugen-store.c). The ones it replaces stay
	 * allocated until exit: a request in flight may hold one of their tokens.
	 */
	const struct store_config *_Atomic auth;
	struct store_db *db;		/* backend = sqlite, else NULL */
	struct ch *ch;			/* backend = clickhouse (ch.h), else NULL */
	struct metrics *m;
	int64_t started_ms;
};

struct http_server;

/* Start serving; logs the URL it listens on (the port when 0 was asked). */
int http_start(struct http_server **out, struct store_ctx *ctx, char *errbuf, size_t size);
/* Stop accepting connections (requests in flight go on). */
void http_quiesce(struct http_server *s);
void http_stop(struct http_server *s);

#endif
