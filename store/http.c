/* http.c - routing, ingest request state, queries, /metrics and /healthz over libmicrohttpd. */
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <microhttpd.h>
#include <openssl/crypto.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

#include "acache.h"
#include "auth.h"
#include "budget.h"
#include "log.h"
#include "lru_buf.h"
#include "lru_esc.h"
#include "lru_fleet.h"
#include "lru_pb.h"
#include "page.h"
#include "query.h"

struct http_server {
	struct MHD_Daemon *mhd;
	struct store_ctx *ctx;
	char *tls_cert, *tls_key;
	struct budget budget;
	struct acache answers;		/* GET /v1/advise's, for ADVISE_CACHE_MS */
};

/* how long an advice answer is served again: it costs a pass over the raw snapshots */
#define ADVISE_CACHE_MS (60 * 1000)

/* seconds a 503 asks the client to wait (Retry-After) */
#define RETRY_AFTER_S "5"
/* a SnapshotBatch may take this many times its size to decode before it is refused (413) */
#define DECODE_FACTOR 32
/* what a query may build before its answer is known: a timeline point's tree */
#define QUERY_BYTES_PER_POINT 768	/* measured: 700 (jansson tree, maps, text) */
#define TRIM_AFTER (4u << 20)
#define QUERY_HOLD (8u << 20)
/* what /v1/latest may build: this, or half the memory budget when that is less */
#define LATEST_HOLD (128u << 20)

struct request {
	enum lru_route route;		/* ROUTE_OTHER: no route */
	int64_t start_us;
	unsigned status;		/* an error decided before the body was read */
	enum reject reject;
	const char *error;		/* its message (static) */
	bool gzip;			/* the body is gzipped (ingest) */
	bool gzip_answer;		/* the answer is (/v1/latest) */
	int64_t as_of_ms;		/* /v1/latest: the store's clock at the query */
	bool submitted;
	atomic_bool done;		/* the writer finished the job */
	const struct store_token *tok;
	struct lru_buf body;
	struct ingest_job *job;
	struct MHD_Connection *conn;
	uint64_t held;			/* bytes of the memory budget taken */
	const char *location;		/* a redirect's (login) */
	bool cached;			/* the answer was kept (acache.h): Age says how long */
	int64_t age_s;
	char *set_cookie;		/* the login's cookie; owned */
};

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- the memory budget -------------------------------------------------------------- */

/* the 503 answer when requests in flight hold the whole budget */
#define BUDGET_IN_FLIGHT "the store's memory budget is spent on requests in flight: retry later"

static bool hold(struct http_server *s, struct request *rq, uint64_t bytes)
{
	if (!budget_take(&s->budget, rq->held, bytes))
		return false;
	rq->held += bytes;
	return true;
}

/* Hold what is free of want, at least min bytes: what was held, 0 when not even min. */
static size_t hold_upto(struct http_server *s, struct request *rq, size_t want, size_t min)
{
	size_t got = (size_t)budget_take_upto(&s->budget, rq->held, want, min);

	rq->held += got;
	return got;
}

static void unhold(struct http_server *s, struct request *rq, uint64_t bytes)
{
	if (bytes > rq->held)
		bytes = rq->held;
	budget_give(&s->budget, bytes);
	rq->held -= bytes;
}

/* Hold what b grew by since it had was bytes allocated; false past the budget. */
static bool hold_growth(struct http_server *s, struct request *rq, const struct lru_buf *b,
			size_t was)
{
	return b->alloc <= was || hold(s, rq, b->alloc - was);
}

/* Free a buffer and give back its bytes. */
static void drop_buf(struct http_server *s, struct request *rq, struct lru_buf *b)
{
	unhold(s, rq, b->alloc);
	lru_buf_release(b);
}

/* ---- responses ------------------------------------------------------------------ */

static enum MHD_Result reply(struct http_server *s, struct MHD_Connection *c,
			     struct request *rq, unsigned status, const char *type, char *body,
			     size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ACCEPT_ENCODING, "gzip");
	if (rq->gzip_answer && status == MHD_HTTP_OK)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	if (rq->route == LRU_ROUTE_LATEST)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	if (rq->as_of_ms && status == MHD_HTTP_OK) {
		char as_of[24];

		snprintf(as_of, sizeof(as_of), "%" PRId64, rq->as_of_ms);
		MHD_add_response_header(resp, "X-Lrugen-As-Of", as_of);
	}
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"lrugen\"");
	if (rq->route == LRU_ROUTE_PAGE || rq->route == LRU_ROUTE_LOGIN) {
		/* no script, nothing from elsewhere, not in a frame, not kept */
		MHD_add_response_header(resp, "Content-Security-Policy",
					"default-src 'none'; style-src 'unsafe-inline'; "
					"form-action 'self'; frame-ancestors 'none'");
		MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	}
	if (rq->location)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, rq->location);
	if (rq->cached) {
		char age[24];

		snprintf(age, sizeof(age), "%" PRId64, rq->age_s);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_AGE, age);
	}
	if (rq->set_cookie)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, rq->set_cookie);
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, RETRY_AFTER_S);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
					rq->route < LRU_ROUTE_NR && lru_route(rq->route)->post
					? "POST" : "GET");
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	metrics_response(s->ctx->m, rq->route, status);
	metrics_observe(&s->ctx->m->latency[rq->route], (uint64_t)(now_us() - rq->start_us));
	return ret;
}

#define BUDGET_SPENT "the store's memory budget is spent on answers being sent: retry later"

/*
 * A query's answer of len bytes: from what building it held to what sending
 * it holds. False (nothing held) when the budget is short.
 */
static bool hold_answer(struct http_server *s, struct request *rq, size_t len)
{
	if (rq->route == LRU_ROUTE_INGEST || !rq->held)
		return true;
	if (len <= rq->held) {
		unhold(s, rq, rq->held - len);
		return true;
	}
	if (hold(s, rq, len - rq->held))
		return true;
	unhold(s, rq, rq->held);
	return false;
}

static enum MHD_Result reply_json(struct http_server *s, struct MHD_Connection *c,
				  struct request *rq, unsigned status, json_t *doc)
{
	char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	size_t len;

	json_decref(doc);
	/* a large answer's tree is gone: give its pages back, or every worker
	 * thread's malloc arena keeps the largest tree it ever built */
	if (rq->held >= TRIM_AFTER)
		malloc_trim(0);
	if (!text) {
		static const char oom[] = "{\"error\":\"out of memory\"}";

		text = strdup(oom);
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		if (!text)
			return MHD_NO;
	}
	len = strlen(text);
	if (!hold_answer(s, rq, len)) {
		static const char busy[] = "{\"error\":\"" BUDGET_SPENT "\"}";

		free(text);
		if (!(text = strdup(busy)))
			return MHD_NO;
		status = MHD_HTTP_SERVICE_UNAVAILABLE;
		len = strlen(text);
	}
	return reply(s, c, rq, status, "application/json", text, len);
}

static enum MHD_Result reply_error(struct http_server *s, struct MHD_Connection *c,
				   struct request *rq, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static enum MHD_Result reply_error(struct http_server *s, struct MHD_Connection *c,
				   struct request *rq, unsigned status, const char *fmt, ...)
{
	char msg[512], text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* a message may quote what a client sent: JSON strings are UTF-8 */
	lru_esc(text, sizeof(text), msg, strlen(msg), LRU_ESC_UTF8);
	return reply_json(s, c, rq, status, json_pack("{ss}", "error", text));
}

/* 401/403 and the early ingest errors: a fixed message, counted as a reject */
static enum MHD_Result reply_status(struct http_server *s, struct MHD_Connection *c,
				    struct request *rq)
{
	if (rq->route == LRU_ROUTE_INGEST)
		metrics_reject(s->ctx->m, rq->reject);
	return reply_error(s, c, rq, rq->status, "%s", rq->error);
}

static void set_status(struct request *rq, unsigned status, enum reject why, const char *msg)
{
	if (rq->status)
		return;
	rq->status = status;
	rq->reject = why;
	rq->error = msg;
}

/* ---- authentication ----------------------------------------------------------------- */

/* Decide 401/403 for a role; true when the request may go on. */
static bool authorize(struct http_server *s, struct MHD_Connection *c, struct request *rq,
		      enum token_role need)
{
	const struct store_config *cfg = atomic_load(&s->ctx->auth);

	if (s->ctx->cfg->insecure_no_auth)
		return true;
	rq->tok = auth_lookup(cfg->tokens, cfg->nr_tokens,
			      MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							  MHD_HTTP_HEADER_AUTHORIZATION));
	if (!rq->tok) {
		set_status(rq, MHD_HTTP_UNAUTHORIZED, REJ_UNAUTHORIZED, "unauthorized");
		return false;
	}
	if (!(rq->tok->role & need)) {
		set_status(rq, MHD_HTTP_FORBIDDEN, REJ_FORBIDDEN, "forbidden");
		return false;
	}
	return true;
}

/* ---- ingest ------------------------------------------------------------------------------ */

static bool header_is(const char *value, const char *want)
{
	size_t n = strlen(want);

	return value && !strncasecmp(value, want, n) &&
	       (!value[n] || value[n] == ';' || value[n] == ' ');
}

/*
 * Whether an Accept-Encoding header takes gzip: "gzip" or "x-gzip" among
 * its comma-separated codings, or "*", without q=0 (RFC 9110 12.5.3).
 */
static bool takes_gzip(const char *value)
{
	while (value && *value) {
		size_t n, name;
		const char *q;

		value += strspn(value, " \t,");
		n = strcspn(value, ",");
		name = strcspn(value, ";, \t");
		if ((name == 4 && !strncasecmp(value, "gzip", 4)) ||
		    (name == 6 && !strncasecmp(value, "x-gzip", 6)) || (name == 1 && *value == '*')) {
			q = memchr(value, ';', n);
			if (!q)
				return true;
			q += strspn(q + 1, " \t") + 1;
			return !(q < value + n && !strncasecmp(q, "q=", 2) &&
				 strtod(q + 2, NULL) <= 0.0);
		}
		value += n;
	}
	return false;
}

static enum MHD_Result ingest_begin(struct http_server *s, struct MHD_Connection *c,
				    struct request *rq)
{
	const struct store_config *cfg = s->ctx->cfg;
	const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_CONTENT_TYPE);
	const char *enc = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_CONTENT_ENCODING);
	const char *clen = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_CONTENT_LENGTH);

	unsigned long long want = clen ? strtoull(clen, NULL, 10) : 0;

	lru_buf_init(&rq->body);
	rq->body.max = cfg->max_body;
	/* answered before the body is read: the connection closes after */
	if (want > cfg->max_body) {
		set_status(rq, MHD_HTTP_CONTENT_TOO_LARGE, REJ_TOO_LARGE, "request body too large");
		return reply_status(s, c, rq);
	}
	if (want && (!hold(s, rq, want) || lru_buf_reserve(&rq->body, want, NULL) ||
		     !hold_growth(s, rq, &rq->body, want))) {
		unhold(s, rq, rq->held);
		lru_buf_release(&rq->body);
		set_status(rq, MHD_HTTP_SERVICE_UNAVAILABLE, REJ_OVERLOADED,
			   BUDGET_IN_FLIGHT);
		return reply_status(s, c, rq);
	}
	authorize(s, c, rq, ROLE_INGEST);
	if (!header_is(type, "application/x-protobuf"))
		set_status(rq, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, REJ_UNSUPPORTED,
			   "Content-Type must be application/x-protobuf");
	if (enc && header_is(enc, "gzip"))
		rq->gzip = true;
	else if (enc && !header_is(enc, "identity"))
		set_status(rq, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, REJ_UNSUPPORTED,
			   "Content-Encoding must be gzip or identity");
	/* errors are answered once the body is read: a client that is still
	 * sending would otherwise see a reset instead of the answer */
	return MHD_YES;
}

/* Inflate a gzip body into out (bounded by out->max and the budget): 0, 413, 400 or 503. */
static unsigned inflate_body(struct http_server *s, struct request *rq, const struct lru_buf *in,
			     struct lru_buf *out, char *msg, size_t size)
{
	z_stream z;
	int zrc = Z_OK;
	unsigned status = 0;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK) {
		snprintf(msg, size, "cannot inflate");
		return MHD_HTTP_INTERNAL_SERVER_ERROR;
	}
	z.next_in = in->data;
	z.avail_in = (uInt)in->len;
	while (zrc != Z_STREAM_END) {
		size_t room = out->max - out->len, was = out->alloc;

		if (!room) {
			snprintf(msg, size, "request body too large after gzip decompression "
				 "(more than %zu bytes)", out->max);
			status = MHD_HTTP_CONTENT_TOO_LARGE;
			break;
		}
		if (room > 65536)
			room = 65536;
		if (lru_buf_reserve(out, room, NULL)) {
			snprintf(msg, size, "out of memory");
			status = MHD_HTTP_INTERNAL_SERVER_ERROR;
			break;
		}
		if (!hold_growth(s, rq, out, was)) {
			snprintf(msg, size, BUDGET_IN_FLIGHT);
			status = MHD_HTTP_SERVICE_UNAVAILABLE;
			break;
		}
		z.next_out = out->data + out->len;
		z.avail_out = (uInt)room;
		zrc = inflate(&z, Z_NO_FLUSH);
		out->len += room - z.avail_out;
		if (zrc == Z_STREAM_END)
			break;
		if (zrc != Z_OK || (!z.avail_in && z.avail_out)) {
			snprintf(msg, size, "gzip body is corrupt or truncated");
			status = MHD_HTTP_BAD_REQUEST;
			break;
		}
	}
	if (!status && z.avail_in) {
		snprintf(msg, size, "trailing bytes after the gzip body");
		status = MHD_HTTP_BAD_REQUEST;
	}
	inflateEnd(&z);
	return status;
}

static void job_done(struct ingest_job *job)
{
	struct request *rq = job->ctx;

	atomic_store(&rq->done, true);
	MHD_resume_connection(rq->conn);
}

/* The whole body is here: inflate, decode, check, submit (and suspend). */
static enum MHD_Result ingest_body(struct http_server *s, struct MHD_Connection *c,
				   struct request *rq)
{
	struct metrics *m = s->ctx->m;
	struct lru_buf plain, *body = &rq->body;
	struct ingest_job *job;
	struct lru_error err;
	char msg[512];
	unsigned status;
	size_t want, got, mem, rows;

	atomic_fetch_add(&m->body_bytes, rq->body.len);
	if (rq->status)
		return reply_status(s, c, rq);
	lru_buf_init(&plain);
	plain.max = s->ctx->cfg->max_body;
	if (rq->gzip) {
		status = inflate_body(s, rq, &rq->body, &plain, msg, sizeof(msg));
		if (status) {
			drop_buf(s, rq, &plain);
			metrics_reject(m, status == MHD_HTTP_CONTENT_TOO_LARGE ? REJ_TOO_LARGE
					  : status == MHD_HTTP_SERVICE_UNAVAILABLE ? REJ_OVERLOADED
					  : REJ_MALFORMED);
			return reply_error(s, c, rq, status, "%s", msg);
		}
		body = &plain;
		drop_buf(s, rq, &rq->body);
	}
	atomic_fetch_add(&m->inflated_bytes, body->len);
	job = calloc(1, sizeof(*job));
	if (!job) {
		lru_buf_release(&plain);
		metrics_reject(m, REJ_ERROR);
		return reply_error(s, c, rq, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}
	rq->job = job;
	job->ctx = rq;
	job->done = job_done;
	lru_error_clear(&err);
	/*
	 * Decoding may take DECODE_FACTOR times the body: what is free of that
	 * is held before, the snapshots' share kept after. Past what was held:
	 * 503 when the budget was short, 413 when even the whole would not do.
	 */
	want = body->len > (SIZE_MAX - (1u << 20)) / DECODE_FACTOR ? SIZE_MAX
	       : body->len * DECODE_FACTOR + (1u << 20);
	if (want > s->budget.limit)
		want = (size_t)s->budget.limit;
	got = hold_upto(s, rq, want, body->len + 4096);
	if (!got) {
		drop_buf(s, rq, &plain);
		metrics_reject(m, REJ_OVERLOADED);
		return reply_error(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE, BUDGET_IN_FLIGHT);
	}
	if (lru_pb_decode_batch_max(body->data ? body->data : (const uint8_t *)"", body->len,
				    got, &job->snaps, &job->n, &mem, &err)) {
		unhold(s, rq, got);
		drop_buf(s, rq, &plain);
		if (err.code == LRU_ERANGE && got < want) {
			metrics_reject(m, REJ_OVERLOADED);
			return reply_error(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE, BUDGET_IN_FLIGHT);
		}
		if (err.code == LRU_ERANGE) {
			metrics_reject(m, REJ_TOO_LARGE);
			return reply_error(s, c, rq, MHD_HTTP_CONTENT_TOO_LARGE, "%s: send smaller "
					   "batches", err.msg);
		}
		metrics_reject(m, err.code == LRU_ENOMEM ? REJ_ERROR : REJ_MALFORMED);
		return reply_error(s, c, rq, err.code == LRU_ENOMEM ? 500 : MHD_HTTP_BAD_REQUEST,
				   "malformed SnapshotBatch: %s", err.msg);
	}
	/* keep what the snapshots and their rows hold until the answer is sent */
	rows = 0;
	for (size_t i = 0; i < job->n; i++)
		rows += job->snaps[i].nr_lruvecs * sizeof(struct lru_fleet_cold) +
			(job->snaps[i].nr_nodes + job->snaps[i].nr_lruvecs + 1) *
			sizeof(struct lru_fleet_node) + 64;
	unhold(s, rq, got - (mem < got ? mem : got));
	drop_buf(s, rq, &plain);
	drop_buf(s, rq, &rq->body);
	if (!hold(s, rq, rows)) {
		metrics_reject(m, REJ_OVERLOADED);
		return reply_error(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE, BUDGET_IN_FLIGHT);
	}
	if (!s->ctx->cfg->insecure_no_auth)
		for (size_t i = 0; i < job->n; i++) {
			const char *host = job->snaps[i].host.host;

			if (!auth_may_ingest(rq->tok, host ? host : "")) {
				set_status(rq, MHD_HTTP_FORBIDDEN, REJ_FORBIDDEN, "forbidden");
				return reply_status(s, c, rq);
			}
		}
	if (ingest_job_prepare(job, lru_now_ms(), s->ctx->cfg->max_skew_ms, &err)) {
		metrics_reject(m, err.code == LRU_ENOMEM ? REJ_ERROR : REJ_MALFORMED);
		return reply_error(s, c, rq, err.code == LRU_ENOMEM ? 500 : MHD_HTTP_BAD_REQUEST,
				   "%s", err.msg);
	}
	if (!job->n)
		return reply_json(s, c, rq, MHD_HTTP_OK,
				  json_pack("{sisi}", "accepted", 0, "duplicates", 0));
	/* suspend first: the writer may finish (and resume) before submit returns */
	rq->conn = c;
	rq->submitted = true;
	MHD_suspend_connection(c);
	if (s->ctx->ch ? ch_submit(s->ctx->ch, job) : db_submit(s->ctx->db, job)) {
		job->status = MHD_HTTP_SERVICE_UNAVAILABLE;
		atomic_store(&rq->done, true);
		MHD_resume_connection(c);
	}
	return MHD_YES;
}

static enum MHD_Result ingest_finish(struct http_server *s, struct MHD_Connection *c,
				     struct request *rq)
{
	struct ingest_job *job = rq->job;

	if (!atomic_load(&rq->done))
		return MHD_YES;		/* a spurious wake-up */
	if (job->status == MHD_HTTP_SERVICE_UNAVAILABLE) {
		metrics_reject(s->ctx->m, REJ_OVERLOADED);
		return reply_error(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE,
				   "the store is busy or shutting down: retry later");
	}
	if (job->status) {
		metrics_reject(s->ctx->m, REJ_ERROR);
		return reply_error(s, c, rq, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "the snapshots could not be written: retry later");
	}
	return reply_json(s, c, rq, MHD_HTTP_OK,
			  json_pack("{sIsI}", "accepted", (json_int_t)job->accepted, "duplicates",
				    (json_int_t)job->duplicates));
}

static enum MHD_Result ingest_continue(struct http_server *s, struct MHD_Connection *c,
				       struct request *rq, const char *data, size_t *size)
{
	if (rq->submitted)
		return ingest_finish(s, c, rq);
	if (*size) {
		size_t was = rq->body.alloc;

		if (!rq->status && lru_buf_append(&rq->body, data, *size, NULL)) {
			set_status(rq, MHD_HTTP_CONTENT_TOO_LARGE, REJ_TOO_LARGE,
				   "request body too large");
			drop_buf(s, rq, &rq->body);
		} else if (!rq->status && !hold_growth(s, rq, &rq->body, was)) {
			set_status(rq, MHD_HTTP_SERVICE_UNAVAILABLE, REJ_OVERLOADED,
				   BUDGET_IN_FLIGHT);
			unhold(s, rq, was);
			lru_buf_release(&rq->body);
		}
		*size = 0;
		return MHD_YES;
	}
	return ingest_body(s, c, rq);
}

/* ---- queries, /metrics, /healthz ------------------------------------------------------------ */

/* the JSON queries by route (lru_routes.h); /v1/latest is reply_latest() */
static json_t *(*const queries[LRU_ROUTE_NR])(struct query *q) = {
	[LRU_ROUTE_HOSTS] = query_hosts,
	[LRU_ROUTE_COLD] = query_cold,
	[LRU_ROUTE_RANK] = query_rank,
	[LRU_ROUTE_WSS] = query_wss,
	[LRU_ROUTE_TIMELINE] = query_timeline,
	[LRU_ROUTE_CAPACITY] = query_capacity,
	[LRU_ROUTE_ADVISE] = query_advise,
	[LRU_ROUTE_BANDS] = query_bands,
};

struct param_check {
	enum lru_route route;
	const char *unknown;
};

static enum MHD_Result check_param(void *cls, enum MHD_ValueKind kind, const char *key,
				   const char *value)
{
	struct param_check *pc = cls;

	(void)kind;
	(void)value;
	if (lru_route_takes(pc->route, key))
		return MHD_YES;
	pc->unknown = key;
	return MHD_NO;
}

static const char *get_arg(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

/* The most a query's answer takes in memory while it is built. */
static uint64_t query_hold(struct http_server *s, enum lru_route route, const char *limit)
{
	unsigned long long points = QUERY_TIMELINE_LIMIT;

	if (route == LRU_ROUTE_LATEST)
		return s->budget.limit / 2 < LATEST_HOLD ? s->budget.limit / 2 : LATEST_HOLD;
	if (route != LRU_ROUTE_TIMELINE)
		return QUERY_HOLD;
	if (limit) {
		points = strtoull(limit, NULL, 10);	/* checked by the query */
		if (!points || points > QUERY_TIMELINE_LIMIT_MAX)
			points = QUERY_TIMELINE_LIMIT_MAX;
	}
	/* a page passes the limit by one lruvec's points at most */
	return (points + LRU_MAX_GENS) * QUERY_BYTES_PER_POINT + (1u << 20);
}

/* /v1/latest's SnapshotBatch (query_latest) as the answer. */
static enum MHD_Result reply_latest(struct http_server *s, struct MHD_Connection *c,
				   struct request *rq, struct query *q)
{
	uint8_t *pb = NULL;
	size_t len = 0;
	int rc;

	rq->gzip_answer = takes_gzip(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								 MHD_HTTP_HEADER_ACCEPT_ENCODING));
	/* ClickHouse: a write of any front-end may take clickhouse-timeout to be seen */
	rq->as_of_ms = q->ch ? q->now_ms - (int64_t)q->cfg->ch_timeout_ms : db_as_of_ms(q->db);
	rc = query_latest(q, rq->held, rq->gzip_answer, &pb, &len);

	if (q->r)
		db_reader_put(q->db, q->r);
	if (rq->held >= TRIM_AFTER)
		malloc_trim(0);	/* see reply_json() */
	if (rc)
		return reply_error(s, c, rq, q->status ? (unsigned)q->status : 500, "%s",
				   q->error[0] ? q->error : "query failed");
	if (!hold_answer(s, rq, len)) {
		free(pb);
		return reply_error(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE, BUDGET_SPENT);
	}
	return reply(s, c, rq, MHD_HTTP_OK, "application/x-protobuf", (char *)pb, len);
}

static enum MHD_Result run_query(struct http_server *s, struct MHD_Connection *c,
				 struct request *rq)
{
	struct param_check pc = { rq->route, NULL };
	struct query q = { 0 };
	char msg[256], key[1024] = "";
	json_t *doc;

	/* advice is also for collectors (reclaim-older-than = advised): ingest tokens read it */
	if (!authorize(s, c, rq, rq->route == LRU_ROUTE_ADVISE ? ROLE_READ | ROLE_INGEST : ROLE_READ))
		return reply_status(s, c, rq);
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, check_param, &pc);
	if (pc.unknown)
		return reply_error(s, c, rq, MHD_HTTP_BAD_REQUEST, "unknown parameter '%.64s'",
				   pc.unknown);
	/* what building the answer may take, held until it is known (hold_answer) */
	if (!hold(s, rq, query_hold(s, rq->route, get_arg(c, "limit"))))
		return reply_error(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE, BUDGET_SPENT);
	q.db = s->ctx->db;
	q.ch = s->ctx->ch;
	q.cfg = s->ctx->cfg;
	q.now_ms = lru_now_ms();
	q.arg = get_arg;
	q.ctx = c;
	if (!q.ch && !(q.r = db_reader_get(q.db, msg, sizeof(msg))))
		return reply_error(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE, "%s", msg);
	if (rq->route == LRU_ROUTE_LATEST)
		return reply_latest(s, c, rq, &q);
	if (rq->route == LRU_ROUTE_ADVISE) {
		const char *const names[] = { "memcg_glob", "slo", "window", "min_samples" };
		int64_t age;
		size_t len, k = 0;
		char *text;

		for (int i = 0; i < 4; i++) {
			const char *v = get_arg(c, names[i]);

			/* a length before each value: no two requests share a key */
			k += (size_t)snprintf(key + k, k < sizeof(key) ? sizeof(key) - k : 0, "%zd:%s|",
					      v ? (ssize_t)strlen(v) : -1, v ? v : "");
		}
		if (k >= sizeof(key))
			key[0] = '\0';	/* too long to keep: asked afresh */
		if (key[0] && (text = acache_get(&s->answers, key, q.now_ms, &len, &age))) {
			if (q.r)
				db_reader_put(q.db, q.r);
			rq->age_s = age / 1000;
			rq->cached = true;
			return reply(s, c, rq, MHD_HTTP_OK, "application/json", text, len);
		}
	}
	doc = queries[rq->route](&q);
	if (q.r)
		db_reader_put(q.db, q.r);
	if (!doc)
		return reply_error(s, c, rq, q.status ? (unsigned)q.status : 500, "%s",
				   q.error[0] ? q.error : "query failed");
	if (rq->route == LRU_ROUTE_ADVISE && key[0]) {
		char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);

		if (text)
			acache_put(&s->answers, key, text, strlen(text), q.now_ms);
		free(text);
	}
	return reply_json(s, c, rq, MHD_HTTP_OK, doc);
}

static uint64_t file_size(const char *path, const char *suffix)
{
	char name[4096];
	struct stat st;

	snprintf(name, sizeof(name), "%s%s", path, suffix);
	return stat(name, &st) ? 0 : (uint64_t)st.st_size;
}

static enum MHD_Result serve_metrics(struct http_server *s, struct MHD_Connection *c,
				     struct request *rq)
{
	struct store_ctx *ctx = s->ctx;
	struct metrics_gauges g = {
		.queue_snapshots = ctx->ch ? ch_queue_snapshots(ctx->ch) : db_queue_snapshots(ctx->db),
		.hosts = ctx->ch ? ch_nr_hosts(ctx->ch) : db_nr_hosts(ctx->db),
		.rollup_pending = ctx->ch ? ch_rollup_pending(ctx->ch) : 0,
		.db_bytes = ctx->ch ? 0 : file_size(ctx->cfg->db, ""),
		.wal_bytes = ctx->ch ? 0 : file_size(ctx->cfg->db, "-wal"),
		.uptime_s = (uint64_t)(lru_now_ms() - ctx->started_ms) / 1000,
		.auth_disabled = ctx->cfg->insecure_no_auth,
		.mem_held = atomic_load(&s->budget.used),
		.mem_peak = atomic_load(&s->budget.peak),
		.mem_budget = s->budget.limit,
		.mem_refused = atomic_load(&s->budget.refused),
	};
	struct lru_buf out;

	lru_buf_init(&out);
	if (metrics_render(ctx->m, &g, &out)) {
		lru_buf_release(&out);
		return reply_error(s, c, rq, 500, "out of memory");
	}
	return reply(s, c, rq, MHD_HTTP_OK, "text/plain; version=0.0.4", (char *)out.data, out.len);
}

static enum MHD_Result serve_healthz(struct http_server *s, struct MHD_Connection *c,
				     struct request *rq)
{
	struct store_ctx *ctx = s->ctx;
	char why[256];

	if (ctx->ch ? !ch_healthy(ctx->ch, why, sizeof(why)) : !db_healthy(ctx->db, why, sizeof(why)))
		return reply_json(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE,
				  json_pack("{ssss}", "status", "error", "reason", why));
	return reply_json(s, c, rq, MHD_HTTP_OK,
			  json_pack("{sssssIsIsIsIsIss}", "status", "ok", "version", LRUGEN_VERSION,
				    "uptime_s", (json_int_t)(lru_now_ms() - ctx->started_ms) / 1000,
				    "hosts", (json_int_t)(ctx->ch ? ch_nr_hosts(ctx->ch)
							  : db_nr_hosts(ctx->db)),
				    "queue_snapshots", (json_int_t)(ctx->ch ? ch_queue_snapshots(ctx->ch)
								    : db_queue_snapshots(ctx->db)),
				    "memory_held_bytes", (json_int_t)atomic_load(&s->budget.used),
				    "memory_budget_bytes", (json_int_t)s->budget.limit,
				    "auth", ctx->cfg->insecure_no_auth ? "disabled" : "tokens"));
}

/* ---- the fleet page and its login (page.h) ----------------------------------------------------- */

static enum MHD_Result reply_html(struct http_server *s, struct MHD_Connection *c,
				  struct request *rq, unsigned status, struct lru_buf *html)
{
	return reply(s, c, rq, status, "text/html; charset=utf-8", (char *)html->data, html->len);
}

/* The login page, with why: status 401 (or 403, 200). */
static enum MHD_Result reply_login(struct http_server *s, struct MHD_Connection *c,
				   struct request *rq, unsigned status, const char *why)
{
	struct lru_buf html;

	lru_buf_init(&html);
	if (page_login(why, &html))
		return reply_error(s, c, rq, 500, "out of memory");
	return reply_html(s, c, rq, status, &html);
}

/* The read token of a page request: the Authorization header, or the login's cookie. */
static const struct store_token *page_token(struct http_server *s, struct MHD_Connection *c)
{
	const struct store_config *cfg = atomic_load(&s->ctx->auth);
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	const struct store_token *t;
	char bearer[8 + 2 * PAGE_TOKEN_MAX];

	if (h)
		return auth_lookup(cfg->tokens, cfg->nr_tokens, h);
	if (page_cookie_bearer(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_COOKIE),
			       bearer, sizeof(bearer)))
		return NULL;
	t = auth_lookup(cfg->tokens, cfg->nr_tokens, bearer);
	OPENSSL_cleanse(bearer, sizeof(bearer));
	return t;
}

static enum MHD_Result serve_page(struct http_server *s, struct MHD_Connection *c,
				  struct request *rq)
{
	struct param_check pc = { rq->route, NULL };
	const struct page_params p = {
		get_arg(c, "need"), get_arg(c, "threshold"), get_arg(c, "memcg_glob"),
		get_arg(c, "refresh"),
	};
	struct query q = { 0 };
	struct lru_buf html;
	char msg[256];
	int rc;

	if (!s->ctx->cfg->insecure_no_auth) {
		const struct store_token *t = page_token(s, c);

		if (!t)
			return reply_login(s, c, rq, MHD_HTTP_UNAUTHORIZED,
					   MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								       MHD_HTTP_HEADER_COOKIE) ?
					   "The token is no longer valid: sign in again." : NULL);
		if (!(t->role & ROLE_READ))
			return reply_login(s, c, rq, MHD_HTTP_FORBIDDEN,
					   "This token may not read the store: use a read token.");
	}
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, check_param, &pc);
	if (pc.unknown)
		return reply_error(s, c, rq, MHD_HTTP_BAD_REQUEST, "unknown parameter '%.64s'",
				   pc.unknown);
	/* three queries, one after the other, and the page */
	if (!hold(s, rq, 2 * QUERY_HOLD))
		return reply_error(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE, BUDGET_SPENT);
	q.db = s->ctx->db;
	q.ch = s->ctx->ch;
	q.cfg = s->ctx->cfg;
	q.now_ms = lru_now_ms();
	if (!q.ch && !(q.r = db_reader_get(q.db, msg, sizeof(msg))))
		return reply_error(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE, "%s", msg);
	lru_buf_init(&html);
	rc = page_render(&q, &p, &html);
	if (q.r)
		db_reader_put(q.db, q.r);
	if (rc)
		return reply_error(s, c, rq, 500, "out of memory");
	return reply_html(s, c, rq, MHD_HTTP_OK, &html);
}

/* POST /login: a read token from the form -> 303 to / with its cookie; else the form again. */
static enum MHD_Result serve_login(struct http_server *s, struct MHD_Connection *c,
				   struct request *rq)
{
	const struct store_config *cfg = atomic_load(&s->ctx->auth);
	char tok[PAGE_TOKEN_MAX + 1], bearer[8 + PAGE_TOKEN_MAX];
	const struct store_token *t;
	char *cookie;
	int bad;

	if (rq->body.len > PAGE_FORM_MAX)
		return reply_login(s, c, rq, MHD_HTTP_CONTENT_TOO_LARGE, "The form was too long.");
	if (page_form_token((const char *)rq->body.data, rq->body.len, tok))
		return reply_login(s, c, rq, MHD_HTTP_BAD_REQUEST, "Give a read token.");
	snprintf(bearer, sizeof(bearer), "Bearer %s", tok);
	t = auth_lookup(cfg->tokens, cfg->nr_tokens, bearer);
	OPENSSL_cleanse(bearer, sizeof(bearer));
	if (!t || !(t->role & ROLE_READ)) {
		OPENSSL_cleanse(tok, sizeof(tok));
		return reply_login(s, c, rq, t ? MHD_HTTP_FORBIDDEN : MHD_HTTP_UNAUTHORIZED,
				   t ? "This token may not read the store: use a read token."
				     : "The store does not know this token.");
	}
	cookie = malloc(2 * PAGE_TOKEN_MAX + 128);
	bad = !cookie || page_cookie_set(tok, s->tls_cert != NULL, cookie, 2 * PAGE_TOKEN_MAX + 128);
	OPENSSL_cleanse(tok, sizeof(tok));
	if (bad) {
		free(cookie);
		return reply_error(s, c, rq, 500, "out of memory");
	}
	rq->set_cookie = cookie;
	rq->location = "/";
	return reply(s, c, rq, MHD_HTTP_SEE_OTHER, "text/plain", strdup("signed in\n"),
		     strlen("signed in\n"));
}

/* ---- dispatch -------------------------------------------------------------------------------- */

static enum MHD_Result dispatch(struct http_server *s, struct MHD_Connection *c,
				struct request *rq, const char *url, bool get)
{
	rq->route = lru_route_find(url);
	if (rq->route == ROUTE_OTHER)
		return reply_error(s, c, rq, MHD_HTTP_NOT_FOUND, "no such endpoint");
	if (rq->route == LRU_ROUTE_LOGIN)
		return get ? reply_login(s, c, rq, MHD_HTTP_OK, NULL) : serve_login(s, c, rq);
	if (!get)
		return reply_error(s, c, rq, MHD_HTTP_METHOD_NOT_ALLOWED, "use GET");
	if (rq->route == LRU_ROUTE_METRICS)
		return serve_metrics(s, c, rq);
	if (rq->route == LRU_ROUTE_HEALTHZ)
		return serve_healthz(s, c, rq);
	if (rq->route == LRU_ROUTE_PAGE)
		return serve_page(s, c, rq);
	return run_query(s, c, rq);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *data,
			      size_t *size, void **con_cls)
{
	struct http_server *s = cls;
	struct request *rq = *con_cls;
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET);

	(void)version;
	if (rq && rq->route == LRU_ROUTE_INGEST)
		return ingest_continue(s, c, rq, data, size);
	if (rq) {
		if (*size) {
			/* a login form's body, up to a bound (past it: refused); others' ignored */
			if (lru_route_find(url) == LRU_ROUTE_LOGIN && rq->body.len <= PAGE_FORM_MAX)
				lru_buf_append(&rq->body, data, *size, NULL);
			*size = 0;
			return MHD_YES;
		}
		return dispatch(s, c, rq, url, get);
	}
	rq = calloc(1, sizeof(*rq));
	if (!rq)
		return MHD_NO;
	rq->start_us = now_us();
	rq->route = ROUTE_OTHER;
	*con_cls = rq;
	if (lru_route_find(url) == LRU_ROUTE_INGEST) {
		rq->route = LRU_ROUTE_INGEST;
		if (strcmp(method, MHD_HTTP_METHOD_POST))
			return reply_error(s, c, rq, MHD_HTTP_METHOD_NOT_ALLOWED,
					   "use POST with a SnapshotBatch body");
		return ingest_begin(s, c, rq);
	}
	/* answered on the next call: a response queued on the first one closes the connection */
	return MHD_YES;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct request *rq = *con_cls;

	(void)c;
	(void)toe;
	if (!rq)
		return;
	lru_buf_release(&rq->body);
	free(rq->set_cookie);
	ingest_job_free(rq->job);
	budget_give(&((struct http_server *)cls)->budget, rq->held);
	if (rq->held >= TRIM_AFTER)
		malloc_trim(0);	/* see reply_json() */
	free(rq);
	*con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	log_debug("libmicrohttpd: %s", msg);
}

/* ---- start and stop --------------------------------------------------------------------------- */

static char *read_file(const char *path, char *errbuf, size_t size)
{
	struct lru_buf b;
	char chunk[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f) {
		snprintf(errbuf, size, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	lru_buf_init(&b);
	b.max = 1 << 20;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (lru_buf_append(&b, chunk, n, NULL))
			break;
	fclose(f);
	if (lru_buf_append(&b, "", 1, NULL)) {
		snprintf(errbuf, size, "'%s' is too large", path);
		lru_buf_release(&b);
		return NULL;
	}
	return (char *)b.data;
}

/* "ADDR:PORT" or "[V6ADDR]:PORT" */
static int parse_listen(const char *s, struct sockaddr_storage *ss, char *errbuf, size_t size)
{
	const char *colon = strrchr(s, ':');
	char host[128];
	char *end;
	long port;

	memset(ss, 0, sizeof(*ss));
	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host))
		goto bad;
	port = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port < 0 || port > 65535)
		goto bad;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		host[strlen(host) - 1] = '\0';
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) == 1)
			return 0;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) == 1)
			return 0;
	}
bad:
	snprintf(errbuf, size, "listen '%s' is not ADDR:PORT (127.0.0.1:7070, [::1]:7070)", s);
	return -1;
}

/*
 * Room for max-connections sockets plus the database and log files: raise
 * the soft open-files limit up to the hard one. The connection limit that
 * fits in what the hard limit allows.
 */
static unsigned fit_connections(unsigned want)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)want + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return want;
	if (rl.rlim_cur < need) {
		rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need ? rl.rlim_max : need;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur < need) {
		unsigned fit = rl.rlim_cur > 128 ? (unsigned)(rl.rlim_cur - 64) : 64;

		log_warn("max-connections %u lowered to %u: the open-files limit is %llu "
			 "(raise LimitNOFILE= or ulimit -n)", want, fit,
			 (unsigned long long)rl.rlim_cur);
		return fit;
	}
	return want;
}

int http_start(struct http_server **out, struct store_ctx *ctx, char *errbuf, size_t size)
{
	const struct store_config *cfg = ctx->cfg;
	struct http_server *s = calloc(1, sizeof(*s));
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
			 MHD_USE_ERROR_LOG;
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	bool tls = cfg->tls_cert[0];

	*out = NULL;
	if (!s) {
		snprintf(errbuf, size, "out of memory");
		return -1;
	}
	s->ctx = ctx;
	budget_init(&s->budget, cfg->memory_budget);
	acache_init(&s->answers, ADVISE_CACHE_MS);
	if (parse_listen(cfg->listen, &ss, errbuf, size))
		goto fail;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (tls) {
		if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
			snprintf(errbuf, size, "this libmicrohttpd has no TLS support");
			goto fail;
		}
		s->tls_cert = read_file(cfg->tls_cert, errbuf, size);
		s->tls_key = s->tls_cert ? read_file(cfg->tls_key, errbuf, size) : NULL;
		if (!s->tls_key)
			goto fail;
		flags |= MHD_USE_TLS;
	}
	s->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, s,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_THREAD_POOL_SIZE, (unsigned)cfg->threads,
				  MHD_OPTION_CONNECTION_TIMEOUT,
				  (unsigned)((cfg->idle_timeout_ms + 999) / 1000),
				  MHD_OPTION_CONNECTION_LIMIT, fit_connections((unsigned)cfg->max_connections),
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)cfg->max_conn_per_ip,
				  MHD_OPTION_NOTIFY_COMPLETED, completed, s,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, s->tls_cert,
				  MHD_OPTION_HTTPS_MEM_KEY, s->tls_key,
				  MHD_OPTION_END);
	if (!s->mhd) {
		snprintf(errbuf, size, "cannot listen on %s%s (in use? a bad TLS certificate or key?)",
			 cfg->listen, tls ? " with TLS" : "");
		goto fail;
	}
	info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
	{
		char addr[128] = "";
		unsigned port = info ? info->port : 0;

		if (ss.ss_family == AF_INET6)
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof(addr));
		else
			inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof(addr));
		log_info("listening on %s://%s%s%s:%u (%" PRId64 " threads)", tls ? "https" : "http",
			 ss.ss_family == AF_INET6 ? "[" : "", addr, ss.ss_family == AF_INET6 ? "]" : "",
			 port, cfg->threads);
		if (cfg->insecure_no_auth)
			log_warn("*** --insecure-no-auth: EVERY REQUEST IS ACCEPTED WITHOUT A TOKEN. "
				 "Anyone who can reach %s%s%s:%u can write and read this store. Use it "
				 "for local demos only. ***", ss.ss_family == AF_INET6 ? "[" : "", addr,
				 ss.ss_family == AF_INET6 ? "]" : "", port);
	}
	*out = s;
	return 0;
fail:
	free(s->tls_cert);
	free(s->tls_key);
	acache_release(&s->answers);
	free(s);
	return -1;
}

void http_quiesce(struct http_server *s)
{
	if (s && s->mhd)
		MHD_quiesce_daemon(s->mhd);
}

void http_stop(struct http_server *s)
{
	if (!s)
		return;
	if (s->mhd)
		MHD_stop_daemon(s->mhd);
	free(s->tls_cert);
	free(s->tls_key);
	acache_release(&s->answers);
	free(s);
}
