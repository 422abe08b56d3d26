/*
 * lru_client.h - the one HTTP client of lrugen-store (libcurl): lrugen
 * fleet, lrugen-top --store and lrugend's shipping all talk through it.
 *
 *	struct lru_client *c;
 *	struct lru_client_resp resp;
 *	struct lru_client_param p[] = { { "host", "web1" } };
 *	struct lru_client_req rq = { .route = LRU_ROUTE_TIMELINE, .params = p, .nr_params = 1 };
 *
 *	if (lru_client_new(&opts, &c, &err) ||
 *	    lru_client_do(c, &rq, &resp, &err) || lru_client_check(&resp, &err))
 *		... err.msg ...
 *	use(resp.body.data, resp.body.len);
 *	lru_client_resp_release(&resp);
 *
 * Every request: the route's path (lru_routes.h) under the base URL, its
 * method, only the route's parameters (URL-escaped), "Authorization: Bearer
 * TOKEN" when a token is set, protocols http and https only (redirects
 * included), TLS peer and host checks for https (against ca_file, else the
 * system's CAs), the timeouts given, and Accept-Encoding for the encodings
 * libcurl decodes. A POST body may go gzip'd (Content-Encoding: gzip).
 *
 * Threads: a client is used by one thread at a time.
 */
#ifndef LRU_CLIENT_H
#define LRU_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_buf.h"
#include "lru_err.h"
#include "lru_routes.h"

struct lru_client;

struct lru_client_opts {
	const char *url;		/* http:// or https://, trailing slashes ignored */
	const char *token;		/* bearer token; NULL or "" for none */
	const char *ca_file;		/* CA certificates; NULL or "" for the system's */
	const char *agent;		/* User-Agent ("lrugen/0.1.0") */
	long connect_timeout_ms, timeout_ms;	/* 0: libcurl's defaults */
	/*
	 * Answers up to max_body bytes (0: no limit); a longer one fails the
	 * request, or with cut_body is cut there (the rest read and dropped).
	 */
	size_t max_body;
	bool cut_body;
	bool tls_no_verify;		/* lrugend's tls_verify=false only */
	/* polled about once a second during a transfer: true aborts it */
	bool (*abort)(void *arg);
	void *abort_arg;
};

struct lru_client_param {
	const char *name, *value;	/* a NULL value is left out */
};

struct lru_client_req {
	/*
	 * A route of lrugen-store; or LRU_ROUTE_NR for another server's API
	 * (the store's ClickHouse backend): then path is used, any parameter
	 * goes, and the request is a POST when it has a body.
	 */
	enum lru_route route;
	const char *path;
	const char *const *headers;	/* more header lines, NULL-terminated; or NULL */
	const struct lru_client_param *params;
	size_t nr_params;
	const char *accept;		/* Accept header, or NULL */
	/* POST routes: the body, sent gzip'd with gzip */
	const void *body;
	size_t len;
	const char *content_type;
	bool gzip;
};

struct lru_client_resp {
	long status;			/* the HTTP status; 0 when no answer came */
	struct lru_buf body;		/* the answer, NUL-terminated (not counted in len) */
	bool store_gzip;		/* it carried "Accept-Encoding: gzip" */
	int64_t as_of_ms;		/* its "X-Lrugen-As-Of" (/v1/latest), 0 without */
	char detail[256];		/* without an answer: why ("connection refused") */
};

/* One-time libcurl setup of a program (before threads), and its cleanup. */
enum lru_err lru_client_global_init(struct lru_error *err);
void lru_client_global_cleanup(void);

/*
 * A client of opts (copied: the strings need not outlive the call).
 * LRU_EINVAL for a URL that is not http:// or https://, LRU_ENOMEM.
 */
enum lru_err lru_client_new(const struct lru_client_opts *opts, struct lru_client **out,
			    struct lru_error *err);
/* Free the client (and wipe the token it kept); NULL is allowed. */
void lru_client_free(struct lru_client *c);
/* Replace the token (NULL or "": none). */
enum lru_err lru_client_set_token(struct lru_client *c, const char *token,
				  struct lru_error *err);
/*
 * A bearer token from a file: its first line (at most 4 KiB), malloc'd in
 * *token (wipe and free it). LRU_ENOENT/LRU_EACCES "cannot read token file
 * 'F': why", LRU_ENOMEM.
 */
enum lru_err lru_client_read_token(const char *file, char **token, struct lru_error *err);
/* The base URL without trailing slashes. */
const char *lru_client_url(const struct lru_client *c);

/*
 * Send a request. LRU_OK when an answer came, whatever its status (see
 * lru_client_check); LRU_EIO when none did ("store unreachable at 'URL':
 * connection refused", the reason alone in resp->detail; also when aborted
 * or the answer passed max_body), LRU_EINVAL for a parameter the route does
 * not take, LRU_ENOMEM. resp is initialised here: release it in every case.
 */
enum lru_err lru_client_do(struct lru_client *c, const struct lru_client_req *rq,
			   struct lru_client_resp *resp, struct lru_error *err);
void lru_client_resp_release(struct lru_client_resp *resp);

/*
 * The status of an answer as an error with the message a person can act on:
 * LRU_OK for 2xx; LRU_EACCES for 401 and 403 (which token to pass);
 * LRU_EINVAL for 400 and LRU_ENOENT for 404 (the store's own message, from
 * its JSON {"error": "..."}); LRU_EPROTO for any other ("the store answered
 * HTTP 500: ...").
 */
enum lru_err lru_client_check(const struct lru_client_resp *resp, struct lru_error *err);

#endif
