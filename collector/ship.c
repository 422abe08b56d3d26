/* ship.c - POST spooled snapshots to the store, with backoff and batch splitting. */
#include "ship.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "log.h"
#include "lru_model.h"

#define RESP_MAX 4096
#define TOKEN_MAX 4096

struct ship {
	CURL *curl;
	bool (*should_stop)(void);
	atomic_bool cancel;		/* ship_cancel(), from any thread */
	pthread_mutex_t lock;		/* guards st: ship_stats() reads it from another thread */
	struct ship_stats st;
	bool store_gzip;		/* the store advertised Accept-Encoding: gzip */
	bool resp_gzip;			/* ... in the response being read */
	unsigned failures;		/* consecutive failed attempts */
	int64_t retry_at;		/* no attempt before this wall-clock time */
	uint64_t max_bytes;		/* learned from 413s; 0 = batch_max_bytes */
	size_t max_records;		/* lowered by 400/415 splits; 0 = batch_max_snapshots */
	char last_error[256];		/* logged once per streak */
	char token[TOKEN_MAX];
	struct stat token_st;		/* of the token file when it was read */
	char resp[RESP_MAX];
	size_t resp_len;
	char curl_err[CURL_ERROR_SIZE];
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
	s->curl = curl_easy_init();
	if (!s->curl) {
		free(s);
		return NULL;
	}
	s->should_stop = should_stop;
	atomic_init(&s->cancel, false);
	pthread_mutex_init(&s->lock, NULL);
	s->rng = (uint64_t)lru_now_ms() ^ ((uint64_t)getpid() << 32) ^ 0x9e3779b97f4a7c15ULL;
	return s;
}

void ship_free(struct ship *s)
{
	if (!s)
		return;
	curl_easy_cleanup(s->curl);
	memset(s->token, 0, sizeof(s->token));
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
	struct stat st;
	FILE *f;
	size_t n;

	if (!file[0]) {
		s->token[0] = '\0';
		return;
	}
	if (stat(file, &st)) {
		log_error("cannot read token_file '%s': %s", file, strerror(errno));
		return;
	}
	if (st.st_ino == s->token_st.st_ino && st.st_size == s->token_st.st_size &&
	    st.st_mtim.tv_sec == s->token_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == s->token_st.st_mtim.tv_nsec)
		return;
	f = fopen(file, "r");
	if (!f) {
		log_error("cannot read token_file '%s': %s", file, strerror(errno));
		return;
	}
	n = fread(s->token, 1, sizeof(s->token) - 1, f);
	fclose(f);
	s->token[n] = '\0';
	s->token[strcspn(s->token, "\r\n")] = '\0';
	s->token_st = st;
	if (st.st_mode & 077)
		log_warn("token_file '%s' is readable by other users (chmod 600 it)", file);
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

static size_t on_header(char *buf, size_t size, size_t n, void *arg)
{
	struct ship *s = arg;
	size_t len = size * n;

	if (len > 16 && !strncasecmp(buf, "accept-encoding:", 16)) {
		char value[128];
		size_t vlen = len - 16 < sizeof(value) - 1 ? len - 16 : sizeof(value) - 1;

		memcpy(value, buf + 16, vlen);
		value[vlen] = '\0';
		if (strcasestr(value, "gzip"))
			s->resp_gzip = true;
	}
	return len;
}

static size_t on_body(char *buf, size_t size, size_t n, void *arg)
{
	struct ship *s = arg;
	size_t len = size * n, room = sizeof(s->resp) - 1 - s->resp_len;

	memcpy(s->resp + s->resp_len, buf, len < room ? len : room);
	s->resp_len += len < room ? len : room;
	s->resp[s->resp_len] = '\0';
	return len;
}

static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct ship *s = arg;

	(void)dt, (void)dn, (void)ut, (void)un;
	return stopping(s);
}

/* gzip len bytes of in; NULL on failure. The caller frees the result. */
static uint8_t *gzip_body(const uint8_t *in, size_t len, size_t *out_len)
{
	z_stream z;
	uint8_t *out = NULL;
	size_t cap;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	cap = deflateBound(&z, (uLong)len);
	out = malloc(cap);
	if (out) {
		z.next_in = (Bytef *)in;
		z.avail_in = (uInt)len;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
			free(out);
			out = NULL;
		}
		*out_len = z.total_out;
	}
	deflateEnd(&z);
	return out;
}

/*
 * POST body; returns the HTTP status, or 0 with s->curl_err set when no
 * response came (connection error, timeout, abort).
 */
static long post(struct ship *s, const struct config *cfg, const uint8_t *body, size_t len,
		 bool gz)
{
	char url[2048], auth[TOKEN_MAX + 32];
	struct curl_slist *hdrs = NULL;
	size_t base = strlen(cfg->store);
	CURL *c = s->curl;
	long status = 0;
	CURLcode cc;

	while (base && cfg->store[base - 1] == '/')
		base--;
	snprintf(url, sizeof(url), "%.*s/v1/snapshots", (int)base, cfg->store);
	hdrs = curl_slist_append(hdrs, "Content-Type: application/x-protobuf");
	hdrs = curl_slist_append(hdrs, "Expect:");
	if (gz)
		hdrs = curl_slist_append(hdrs, "Content-Encoding: gzip");
	if (s->token[0]) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", s->token);
		hdrs = curl_slist_append(hdrs, auth);
		memset(auth, 0, sizeof(auth));
	}
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "lrugend/" LRUGEN_VERSION);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)cfg->connect_timeout_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)cfg->timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, cfg->tls_verify ? 1L : 0L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, cfg->tls_verify ? 2L : 0L);
	if (cfg->ca_file[0])
		curl_easy_setopt(c, CURLOPT_CAINFO, cfg->ca_file);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, s);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, s);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, s->curl_err);
	s->curl_err[0] = '\0';
	s->resp_len = 0;
	s->resp[0] = '\0';
	s->resp_gzip = false;
	cc = curl_easy_perform(c);
	if (cc == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		s->store_gzip = s->resp_gzip;
	} else if (!s->curl_err[0]) {
		snprintf(s->curl_err, sizeof(s->curl_err), "%s", curl_easy_strerror(cc));
	}
	/* the header list held the token */
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hdrs);
	return status;
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
	json_t *doc = json_loadb(s->resp, s->resp_len, 0, NULL);
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
			 ") with an unexpected answer: %.200s", b->n, b->first_seq, b->last_seq, s->resp);
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
	size_t zlen = 0;
	uint8_t *z = gz ? gzip_body(b->body, b->len, &zlen) : NULL;
	long status;

	if (gz && !z)
		gz = false;
	status = post(s, cfg, gz ? z : b->body, gz ? zlen : b->len, gz);
	free(z);
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
		failed(s, LOG_LV_WARN, "cannot send to the store: %s", s->curl_err);
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
			  b->first_seq, status, status == 413 ? ", too large" : "", s->resp);
		pthread_mutex_lock(&s->lock);
		if (status == 413)
			s->st.dropped_too_large_total++;
		else
			s->st.dropped_rejected_total++;
		pthread_mutex_unlock(&s->lock);
		return DROP_ONE;
	}
	failed(s, LOG_LV_WARN, "the store answered HTTP %ld: %.200s", status, s->resp);
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
