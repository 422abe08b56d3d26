/* ship.c - POST spooled snapshots to the store, with backoff and batch splitting. */
#include "ship.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "lru_client.h"
#include "lru_model.h"

#define RESP_MAX 4096

struct ship {
	struct lru_client *client;	/* made by ship_run from the config, dropped by ship_reset */
	bool (*should_stop)(void);
	atomic_bool cancel;		/* ship_cancel(), from any thread */
	pthread_mutex_t lock;		/* guards st: ship_stats() reads it from another thread */
	struct ship_stats st;
	bool store_gzip;		/* the store advertised Accept-Encoding: gzip */
	unsigned failures;		/* consecutive failed attempts */
	int64_t retry_at;		/* no attempt before this wall-clock time */
	uint64_t max_bytes;		/* learned from 413s; 0 = batch_max_bytes */
	size_t max_records;		/* lowered by 400/415 splits; 0 = batch_max_snapshots */
	char last_error[256];		/* logged once per streak */
	char *token;			/* of the token file, or NULL */
	struct stat token_st;		/* of the token file when it was read */
	struct lru_client_resp resp;	/* of the last request */
	uint64_t rng;
};

struct batch {
	uint8_t *body;
	size_t len, cap, n;
	uint64_t first_seq, last_seq;
	struct lru_spool_pos end;	/* after the last record */
	struct lru_spool_pos first_end;	/* after the first record */
};

/* what to do after a request */
enum outcome {
	SENT,		/* acknowledged: consume the batch */
	SPLIT,		/* 400/415 for several: halve the batch */
	SPLIT_SIZE,	/* 413 for several: halve the batch, remember the size */
	RESEND,		/* try the same batch again now (plain instead of gzip) */
	DROP_ONE,	/* a single snapshot that can never succeed */
	RETRY,		/* back off, then retry */
	ABANDON,	/* stopping: aborted in flight, stays spooled */
};

struct ship *ship_new(bool (*should_stop)(void))
{
	struct ship *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->should_stop = should_stop;
	atomic_init(&s->cancel, false);
	pthread_mutex_init(&s->lock, NULL);
	s->rng = (uint64_t)lru_now_ms() ^ ((uint64_t)getpid() << 32) ^ 0x9e3779b97f4a7c15ULL;
	return s;
}

static void wipe_token(struct ship *s)
{
	if (s->token)
		memset(s->token, 0, strlen(s->token));
	free(s->token);
	s->token = NULL;
}

void ship_free(struct ship *s)
{
	if (!s)
		return;
	lru_client_free(s->client);
	lru_client_resp_release(&s->resp);
	wipe_token(s);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

void ship_cancel(struct ship *s, bool on)
{
	atomic_store(&s->cancel, on);
}

void ship_stats(struct ship *s, struct ship_stats *out)
{
	pthread_mutex_lock(&s->lock);
	*out = s->st;
	pthread_mutex_unlock(&s->lock);
}

static bool stopping(struct ship *s)
{
	return atomic_load(&s->cancel) || (s->should_stop && s->should_stop());
}

void ship_reset(struct ship *s)
{
	s->failures = 0;
	s->retry_at = 0;
	s->max_bytes = 0;
	s->max_records = 0;
	s->token_st.st_ino = 0;
	s->token_st.st_mtim.tv_sec = 0;
	lru_client_free(s->client);
	s->client = NULL;
}

static uint64_t next_random(struct ship *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

/* (Re)read the token when the file changed; keep the old one if it became unreadable. */
static void load_token(struct ship *s, const char *file)
{
	struct lru_error err;
	struct stat st;
	char *token;

	if (!file[0] || stat(file, &st)) {
		if (file[0])
			log_error("cannot read token file '%s': %s", file, strerror(errno));
		return;
	}
	if (st.st_ino == s->token_st.st_ino && st.st_size == s->token_st.st_size &&
	    st.st_mtim.tv_sec == s->token_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == s->token_st.st_mtim.tv_nsec)
		return;
	if (lru_client_read_token(file, &token, &err)) {
		log_error("%s", err.msg);
		return;
	}
	wipe_token(s);
	s->token = token;
	s->token_st = st;
	if (s->client && lru_client_set_token(s->client, s->token, NULL))
		log_error("out of memory setting the token");
	if (st.st_mode & 077)
		log_warn("token file '%s' is readable by other users (chmod 600 it)", file);
}

/* ---- building a batch from the spool ---------------------------------------------- */

/*
 * Read up to the batch limits from the head of the spool. A record failing
 * its checksum at the head is dropped (counted, logged); later ones end the
 * batch, and so does one that an append dropped for the spool's bounds
 * meanwhile (at the head: start again from the new head). Returns -1 on an
 * I/O error.
 */
static int build_batch(struct ship *s, const struct config *cfg, struct lru_spool *sp,
		       struct batch *b)
{
	size_t max_n = s->max_records ? s->max_records : (size_t)cfg->batch_max_snapshots;
	uint64_t max_bytes = s->max_bytes ? s->max_bytes : cfg->batch_max_bytes;
	struct lru_spool_pos pos;
	struct lru_spool_rec rec;
	struct lru_error err;

	memset(b, 0, sizeof(*b));
	lru_spool_head(sp, &pos);
	while (b->n < max_n && !lru_spool_peek(sp, &pos, &rec, NULL)) {
		enum lru_err rc;

		if (b->n && b->len + rec.len > max_bytes)
			break;
		if (b->len + rec.len > b->cap) {
			size_t cap = b->len + rec.len;
			uint8_t *p = realloc(b->body, cap);

			if (!p) {
				log_error("out of memory building a %zu-byte batch", cap);
				return -1;
			}
			b->body = p;
			b->cap = cap;
		}
		lru_error_clear(&err);
		rc = lru_spool_read(sp, &rec, b->body + b->len, &err);
		if (rc == LRU_EPROTO && !b->n) {
			log_error("dropping snapshot seq %" PRIu64 " from the spool: %s", rec.seq, err.msg);
			pthread_mutex_lock(&s->lock);
			s->st.dropped_corrupt_total++;
			pthread_mutex_unlock(&s->lock);
			lru_spool_consume(sp, &rec.next, NULL);
			pos = rec.next;
			continue;
		}
		if (rc == LRU_ENOENT && !b->n) {
			lru_spool_head(sp, &pos);
			continue;
		}
		if (rc == LRU_EPROTO || rc == LRU_ENOENT)
			break;
		if (rc) {
			log_error("cannot read the spool: %s", err.msg);
			return -1;
		}
		if (!b->n++) {
			b->first_seq = rec.seq;
			b->first_end = rec.next;
		}
		b->last_seq = rec.seq;
		b->len += rec.len;
		b->end = rec.next;
		pos = rec.next;
	}
	return 0;
}

/* ---- one request ----------------------------------------------------------------------- */

static bool abort_send(void *arg)
{
	return stopping(arg);
}

/*
 * POST body (gzip'd with gz) into s->resp, with the client of cfg (made on
 * first use); returns the HTTP status, or 0 with s->resp.detail set when no
 * response came (connection error, timeout, abort, a bad store URL).
 */
static long post(struct ship *s, const struct config *cfg, const uint8_t *body, size_t len,
		 bool gz)
{
	const struct lru_client_opts o = {
		.url = cfg->store, .token = s->token, .ca_file = cfg->ca_file,
		.agent = "lrugend/" LRUGEN_VERSION,
		.connect_timeout_ms = (long)cfg->connect_timeout_ms, .timeout_ms = (long)cfg->timeout_ms,
		.max_body = RESP_MAX - 1, .cut_body = true, .tls_no_verify = !cfg->tls_verify,
		.abort = abort_send, .abort_arg = s,
	};
	const struct lru_client_req rq = {
		.route = LRU_ROUTE_INGEST, .body = body, .len = len,
		.content_type = "application/x-protobuf", .gzip = gz,
	};
	struct lru_error err;
	enum lru_err rc = LRU_OK;

	lru_client_resp_release(&s->resp);
	memset(&s->resp, 0, sizeof(s->resp));
	if (!s->client)
		rc = lru_client_new(&o, &s->client, &err);
	if (!rc)
		rc = lru_client_do(s->client, &rq, &s->resp, &err);
	if (rc && !s->resp.detail[0])
		snprintf(s->resp.detail, sizeof(s->resp.detail), "%s", err.msg);
	if (s->resp.status)
		s->store_gzip = s->resp.store_gzip;
	return s->resp.status;
}

/* Log a failed attempt: the first of a streak and changes loudly, repeats quietly. */
static void failed(struct ship *s, enum log_level lv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void failed(struct ship *s, enum log_level lv, const char *fmt, ...)
{
	char msg[sizeof(s->last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (lv == LOG_LV_ERROR || strcmp(msg, s->last_error))
		log_msg(lv, "%s", msg);
	else
		log_debug("%s", msg);
	snprintf(s->last_error, sizeof(s->last_error), "%s", msg);
}

/* A 2xx: check the store's count against what was sent. */
static void acknowledged(struct ship *s, const struct batch *b)
{
	const char *resp = s->resp.body.data ? (const char *)s->resp.body.data : "";
	json_t *doc = json_loadb(resp, s->resp.body.len, 0, NULL);
	json_int_t acc = -1, dup = 0;

	if (doc) {
		json_t *a = json_object_get(doc, "accepted"), *d = json_object_get(doc, "duplicates");

		if (json_is_integer(a))
			acc = json_integer_value(a);
		if (json_is_integer(d))
			dup = json_integer_value(d);
		json_decref(doc);
	}
	if (acc < 0 || dup < 0 || (size_t)(acc + dup) != b->n)
		log_warn("store acknowledged %zu snapshots (seq %" PRIu64 "-%" PRIu64
			 ") with an unexpected answer: %.200s", b->n, b->first_seq, b->last_seq, resp);
	log_info("sent %zu snapshots (seq %" PRIu64 "-%" PRIu64 "): %lld accepted, %lld duplicates",
		 b->n, b->first_seq, b->last_seq, (long long)acc, (long long)dup);
	if (s->failures)
		log_info("store reachable again after %u failed attempts", s->failures);
	s->failures = 0;
	s->last_error[0] = '\0';
	pthread_mutex_lock(&s->lock);
	if (dup > 0)
		s->st.store_duplicates_total += (uint64_t)dup;
	s->st.sent_snapshots_total += b->n;
	s->st.sent_batches_total++;
	s->st.last_send_success_ms = lru_now_ms();
	s->st.backoff_ms = 0;
	pthread_mutex_unlock(&s->lock);
}

/* Send one batch and decide what happens to it. */
static enum outcome send_batch(struct ship *s, const struct config *cfg, const struct batch *b)
{
	bool gz = cfg->gzip && s->store_gzip;
	long status = post(s, cfg, b->body, b->len, gz);
	const char *resp = s->resp.body.data ? (const char *)s->resp.body.data : "";
	if (status >= 200 && status < 300) {
		acknowledged(s, b);
		return SENT;
	}
	if (!status && stopping(s)) {
		log_info("stopping: abandoned the send of seq %" PRIu64 "-%" PRIu64
			 " in flight; it stays in the spool", b->first_seq, b->last_seq);
		return ABANDON;
	}
	pthread_mutex_lock(&s->lock);
	s->st.send_errors_total++;
	pthread_mutex_unlock(&s->lock);
	if (!status) {
		failed(s, LOG_LV_WARN, "cannot send to the store: %s", s->resp.detail);
		return RETRY;
	}
	if (status == 401 || status == 403) {
		failed(s, LOG_LV_ERROR,
		       "the store refused our credentials (HTTP %ld): check token_file '%s'; "
		       "snapshots stay in the spool", status, cfg->token_file);
		return RETRY;
	}
	if (status == 415 && gz) {
		log_info("the store refused a gzip body (HTTP 415): sending plain bodies");
		s->store_gzip = false;
		return RESEND;
	}
	if (status == 413 || status == 400 || status == 415) {
		if (b->n > 1)
			return status == 413 ? SPLIT_SIZE : SPLIT;
		log_error("the store refused snapshot seq %" PRIu64 " (HTTP %ld%s): dropping it: %.200s",
			  b->first_seq, status, status == 413 ? ", too large" : "", resp);
		pthread_mutex_lock(&s->lock);
		if (status == 413)
			s->st.dropped_too_large_total++;
		else
			s->st.dropped_rejected_total++;
		pthread_mutex_unlock(&s->lock);
		return DROP_ONE;
	}
	failed(s, LOG_LV_WARN, "the store answered HTTP %ld: %.200s", status, resp);
	return RETRY;
}

static int64_t backoff(struct ship *s, const struct config *cfg)
{
	uint64_t d = cfg->backoff_min_ms;

	s->failures++;
	for (unsigned i = 1; i < s->failures && d < cfg->backoff_max_ms; i++)
		d *= 2;
	if (d > cfg->backoff_max_ms)
		d = cfg->backoff_max_ms;
	/* equal jitter: between half and all of the delay */
	d = d / 2 + next_random(s) % (d / 2 + 1);
	pthread_mutex_lock(&s->lock);
	s->st.backoff_ms = d;
	pthread_mutex_unlock(&s->lock);
	s->retry_at = lru_now_ms() + (int64_t)d;
	log_debug("next attempt in %" PRIu64 " ms (attempt %u)", d, s->failures + 1);
	return s->retry_at;
}

int64_t ship_run(struct ship *s, const struct config *cfg, struct lru_spool *sp,
		 int64_t deadline_ms)
{
	int64_t now = lru_now_ms();

	if (!cfg->store[0] || !sp)
		return 0;
	if (s->retry_at > now)
		return s->retry_at;
	load_token(s, cfg->token_file);
	for (bool first = true;; first = false) {
		struct batch b;
		enum outcome out;
		int rc;

		/* one batch at least, however late: interval 0 still ships */
		now = lru_now_ms();
		if (stopping(s) || (!first && now >= deadline_ms))
			return now;
		rc = build_batch(s, cfg, sp, &b);
		if (rc || !b.n) {
			free(b.body);
			return rc ? backoff(s, cfg) : 0;
		}
		out = send_batch(s, cfg, &b);
		free(b.body);
		switch (out) {
		case SENT:
			lru_spool_consume(sp, &b.end, NULL);
			s->max_records = 0;
			break;
		case SPLIT_SIZE:
			if (!s->max_bytes || b.len / 2 < s->max_bytes)
				s->max_bytes = b.len / 2 ? b.len / 2 : 1;
			/* fall through */
		case SPLIT:
			s->max_records = b.n / 2;
			log_info("splitting a batch of %zu snapshots (%zu bytes)", b.n, b.len);
			break;
		case RESEND:
			break;
		case DROP_ONE:
			lru_spool_consume(sp, &b.first_end, NULL);
			break;
		case RETRY:
			return backoff(s, cfg);
		case ABANDON:
			return lru_now_ms();
		}
	}
}
