/* http.c - routing, ingest request state, queries, /metrics and /healthz over libmicrohttpd. */
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

#include "auth.h"
#include "log.h"
#include "lru_buf.h"
#include "lru_pb.h"
#include "query.h"

struct http_server {
	struct MHD_Daemon *mhd;
	struct store_ctx *ctx;
	char *tls_cert, *tls_key;
};

struct request {
	enum route route;
	int64_t start_us;
	unsigned status;		/* an error decided before the body was read */
	enum reject reject;
	const char *error;		/* its message (static) */
	bool gzip;
	bool submitted;
	atomic_bool done;		/* the writer finished the job */
	const struct store_token *tok;
	struct lru_buf body;
	struct ingest_job *job;
	struct MHD_Connection *conn;
};

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
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
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"lrugen\"");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
					rq->route == ROUTE_INGEST ? "POST" : "GET");
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	metrics_response(s->ctx->m, rq->route, status);
	metrics_observe(&s->ctx->m->latency[rq->route], (uint64_t)(now_us() - rq->start_us));
	return ret;
}

static enum MHD_Result reply_json(struct http_server *s, struct MHD_Connection *c,
				  struct request *rq, unsigned status, json_t *doc)
{
	char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(doc);
	if (!text) {
		static const char oom[] = "{\"error\":\"out of memory\"}";

		text = strdup(oom);
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		if (!text)
			return MHD_NO;
	}
	return reply(s, c, rq, status, "application/json", text, strlen(text));
}

static enum MHD_Result reply_error(struct http_server *s, struct MHD_Connection *c,
				   struct request *rq, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static enum MHD_Result reply_error(struct http_server *s, struct MHD_Connection *c,
				   struct request *rq, unsigned status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return reply_json(s, c, rq, status, json_pack("{ss}", "error", msg));
}

/* 401/403 and the early ingest errors: a fixed message, counted as a reject */
static enum MHD_Result reply_status(struct http_server *s, struct MHD_Connection *c,
				    struct request *rq)
{
	if (rq->route == ROUTE_INGEST)
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
	const struct store_config *cfg = s->ctx->cfg;

	if (cfg->insecure_no_auth)
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

	lru_buf_init(&rq->body);
	rq->body.max = cfg->max_body;
	if (clen && strtoull(clen, NULL, 10) > cfg->max_body) {
		/* answered before the body is read: the connection closes after */
		set_status(rq, MHD_HTTP_CONTENT_TOO_LARGE, REJ_TOO_LARGE, "request body too large");
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

/* Inflate a gzip body into out (bounded by out->max): 0, 413 or 400. */
static unsigned inflate_body(const struct lru_buf *in, struct lru_buf *out, char *msg,
			     size_t size)
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
		size_t room = out->max - out->len;

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

	atomic_fetch_add(&m->body_bytes, rq->body.len);
	if (rq->status)
		return reply_status(s, c, rq);
	lru_buf_init(&plain);
	plain.max = s->ctx->cfg->max_body;
	if (rq->gzip) {
		status = inflate_body(&rq->body, &plain, msg, sizeof(msg));
		if (status) {
			lru_buf_release(&plain);
			metrics_reject(m, status == MHD_HTTP_CONTENT_TOO_LARGE ? REJ_TOO_LARGE
									: REJ_MALFORMED);
			return reply_error(s, c, rq, status, "%s", msg);
		}
		body = &plain;
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
	if (lru_pb_decode_batch(body->data ? body->data : (const uint8_t *)"", body->len,
				&job->snaps, &job->n, &err)) {
		lru_buf_release(&plain);
		metrics_reject(m, err.code == LRU_ENOMEM ? REJ_ERROR : REJ_MALFORMED);
		return reply_error(s, c, rq, err.code == LRU_ENOMEM ? 500 : MHD_HTTP_BAD_REQUEST,
				   "malformed SnapshotBatch: %s", err.msg);
	}
	lru_buf_release(&plain);
	lru_buf_release(&rq->body);
	if (!s->ctx->cfg->insecure_no_auth)
		for (size_t i = 0; i < job->n; i++) {
			const char *host = job->snaps[i].host.host;

			if (!auth_may_ingest(rq->tok, host ? host : "")) {
				set_status(rq, MHD_HTTP_FORBIDDEN, REJ_FORBIDDEN, "forbidden");
				return reply_status(s, c, rq);
			}
		}
	if (ingest_job_prepare(job, lru_now_ms(), &err)) {
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
	if (db_submit(s->ctx->db, job)) {
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
		if (!rq->status && lru_buf_append(&rq->body, data, *size, NULL)) {
			set_status(rq, MHD_HTTP_CONTENT_TOO_LARGE, REJ_TOO_LARGE,
				   "request body too large");
			lru_buf_release(&rq->body);
		}
		*size = 0;
		return MHD_YES;
	}
	return ingest_body(s, c, rq);
}

/* ---- queries, /metrics, /healthz ------------------------------------------------------------ */

static const struct route_def {
	const char *path;
	enum route route;
	json_t *(*run)(struct query *q);
	const char *const params[6];
} routes[] = {
	{ "/v1/hosts", ROUTE_HOSTS, query_hosts, { NULL } },
	{ "/v1/cold", ROUTE_COLD, query_cold, { "threshold", "by", "memcg_glob", "limit", NULL } },
	{ "/v1/rank", ROUTE_RANK, query_rank, { "need", "threshold", "per_node", "limit", NULL } },
	{ "/v1/wss", ROUTE_WSS, query_wss, { "memcg_glob", "window", "percentile", "threshold", NULL } },
	{ "/v1/timeline", ROUTE_TIMELINE, query_timeline, { "host", "memcg", "since", NULL } },
	{ "/v1/capacity", ROUTE_CAPACITY, query_capacity, { "thresholds", NULL } },
};

struct param_check {
	const struct route_def *route;
	const char *unknown;
};

static enum MHD_Result check_param(void *cls, enum MHD_ValueKind kind, const char *key,
				   const char *value)
{
	struct param_check *pc = cls;

	(void)kind;
	(void)value;
	for (int i = 0; pc->route->params[i]; i++)
		if (!strcmp(key, pc->route->params[i]))
			return MHD_YES;
	pc->unknown = key;
	return MHD_NO;
}

static const char *get_arg(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

static enum MHD_Result run_query(struct http_server *s, struct MHD_Connection *c,
				 struct request *rq, const struct route_def *rd)
{
	struct param_check pc = { rd, NULL };
	struct query q = { 0 };
	char msg[256];
	json_t *doc;

	if (!authorize(s, c, rq, ROLE_READ))
		return reply_status(s, c, rq);
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, check_param, &pc);
	if (pc.unknown)
		return reply_error(s, c, rq, MHD_HTTP_BAD_REQUEST, "unknown parameter '%.64s'",
				   pc.unknown);
	q.db = s->ctx->db;
	q.cfg = s->ctx->cfg;
	q.now_ms = lru_now_ms();
	q.arg = get_arg;
	q.ctx = c;
	q.r = db_reader_get(q.db, msg, sizeof(msg));
	if (!q.r)
		return reply_error(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE, "%s", msg);
	doc = rd->run(&q);
	db_reader_put(q.db, q.r);
	if (!doc)
		return reply_error(s, c, rq, q.status ? (unsigned)q.status : 500, "%s",
				   q.error[0] ? q.error : "query failed");
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
		.queue_snapshots = db_queue_snapshots(ctx->db),
		.hosts = db_nr_hosts(ctx->db),
		.db_bytes = file_size(ctx->cfg->db, ""),
		.wal_bytes = file_size(ctx->cfg->db, "-wal"),
		.uptime_s = (uint64_t)(lru_now_ms() - ctx->started_ms) / 1000,
		.auth_disabled = ctx->cfg->insecure_no_auth,
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

	if (!db_healthy(ctx->db, why, sizeof(why)))
		return reply_json(s, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE,
				  json_pack("{ssss}", "status", "error", "reason", why));
	return reply_json(s, c, rq, MHD_HTTP_OK,
			  json_pack("{sssssIsIsIss}", "status", "ok", "version", LRUGEN_VERSION,
				    "uptime_s", (json_int_t)(lru_now_ms() - ctx->started_ms) / 1000,
				    "hosts", (json_int_t)db_nr_hosts(ctx->db),
				    "queue_snapshots", (json_int_t)db_queue_snapshots(ctx->db),
				    "auth", ctx->cfg->insecure_no_auth ? "disabled" : "tokens"));
}

/* ---- dispatch -------------------------------------------------------------------------------- */

static enum MHD_Result dispatch(struct http_server *s, struct MHD_Connection *c,
				struct request *rq, const char *url, bool get)
{
	if (!strcmp(url, "/metrics"))
		rq->route = ROUTE_METRICS;
	else if (!strcmp(url, "/healthz"))
		rq->route = ROUTE_HEALTHZ;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (!strcmp(url, routes[i].path))
			rq->route = routes[i].route;
	if (rq->route == ROUTE_OTHER)
		return reply_error(s, c, rq, MHD_HTTP_NOT_FOUND, "no such endpoint");
	if (!get)
		return reply_error(s, c, rq, MHD_HTTP_METHOD_NOT_ALLOWED, "use GET");
	if (rq->route == ROUTE_METRICS)
		return serve_metrics(s, c, rq);
	if (rq->route == ROUTE_HEALTHZ)
		return serve_healthz(s, c, rq);
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (routes[i].route == rq->route)
			return run_query(s, c, rq, &routes[i]);
	return MHD_NO;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *data,
			      size_t *size, void **con_cls)
{
	struct http_server *s = cls;
	struct request *rq = *con_cls;
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET);

	(void)version;
	if (rq && rq->route == ROUTE_INGEST)
		return ingest_continue(s, c, rq, data, size);
	if (rq) {
		if (*size) {
			*size = 0;	/* a body on a GET: ignored */
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
	if (!strcmp(url, "/v1/snapshots")) {
		rq->route = ROUTE_INGEST;
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

	(void)cls;
	(void)c;
	(void)toe;
	if (!rq)
		return;
	lru_buf_release(&rq->body);
	ingest_job_free(rq->job);
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
				  MHD_OPTION_CONNECTION_TIMEOUT, 120u,
				  MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
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
	free(s);
}
