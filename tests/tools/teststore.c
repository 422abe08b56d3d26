/*
 * teststore - a small stand-in for lrugen-store's ingest, for the collector's
 * fault tests. It speaks the ingest contract of collector/ship.h:
 *
 *	POST /v1/snapshots	SnapshotBatch (protobuf, optionally gzip) ->
 *				200 {"accepted": N, "duplicates": M} once committed
 *	GET /healthz		200 ok
 *
 * Snapshots are deduplicated by (host, boot_id, seq) and committed to --db
 * (one "HOST BOOT_ID SEQ" line each, fsync'd before the answer); a restart
 * with the same --db keeps deduplicating. Faults on demand:
 *
 *	--token T		require "Authorization: Bearer T" (else 401)
 *	--gzip			advertise and accept gzip bodies (else 415 for them)
 *	--fail-status CODE --fail-count N
 *				answer CODE to the first N POSTs (-1: all)
 *	--delay-ms MS --delay-count N
 *				commit, then wait MS before answering the first N
 *				POSTs (-1: all): a slow store, or a lost answer
 *	--hang-count N		hold the first N POSTs (-1: all) with neither an
 *				answer nor a commit until the store stops (then
 *				close them): a store that hangs
 *	--max-body BYTES	413 for larger (decompressed) bodies
 *	--reject-seq N		400 for batches holding seq N
 *	--dump FILE		append each stored snapshot as one JSON line
 *
 * --port 0 picks a free port; --port-file F receives the port once the
 * server listens. SIGTERM/SIGINT stop it and print a summary on stderr.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "lru_pb.h"
#include "lru_snapjson.h"

#define BODY_MAX (64u << 20)

struct opts {
	const char *addr, *port_file, *db, *dump, *token;
	unsigned port;
	bool gzip;
	long fail_status, fail_count, delay_ms, delay_count, hang_count;
	size_t max_body;
	long long reject_seq;
};

/* A set of "host\tboot\tseq" keys (open addressing). */
struct keyset {
	char **slots;
	size_t cap, n;
};

static struct opts o = { .addr = "127.0.0.1", .fail_count = 0, .reject_seq = -1 };
static struct keyset seen;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *db, *dump;
static long posts, accepted_total, duplicates_total, gzip_posts, failed_posts;
static atomic_bool stopping;

struct upload {
	char *buf;
	size_t len, cap;
	bool too_large;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* Insert key (copied); false if it was there already. */
static bool keyset_add(struct keyset *ks, const char *key)
{
	size_t i;

	if ((ks->n + 1) * 2 > ks->cap) {
		struct keyset big = { calloc(ks->cap ? ks->cap * 2 : 1024, sizeof(char *)),
				      ks->cap ? ks->cap * 2 : 1024, 0 };

		if (!big.slots)
			abort();
		for (i = 0; i < ks->cap; i++) {
			if (!ks->slots[i])
				continue;
			size_t j = hash_str(ks->slots[i]) & (big.cap - 1);

			while (big.slots[j])
				j = (j + 1) & (big.cap - 1);
			big.slots[j] = ks->slots[i];
			big.n++;
		}
		free(ks->slots);
		*ks = big;
	}
	for (i = hash_str(key) & (ks->cap - 1); ks->slots[i]; i = (i + 1) & (ks->cap - 1))
		if (!strcmp(ks->slots[i], key))
			return false;
	ks->slots[i] = strdup(key);
	ks->n++;
	return true;
}

static void keyset_free(struct keyset *ks)
{
	for (size_t i = 0; i < ks->cap; i++)
		free(ks->slots[i]);
	free(ks->slots);
}

static void key_of(const struct lru_snapshot *s, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s %" PRIu64, s->host.host ? s->host.host : "-",
		 s->host.boot_id ? s->host.boot_id : "-", s->host.seq);
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
								   MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (o.gzip)
		MHD_add_response_header(r, "Accept-Encoding", "gzip");
	MHD_add_response_header(r, "Content-Type", "application/json");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static int gunzip(const char *in, size_t len, char **out, size_t *out_len)
{
	z_stream z;
	size_t cap = len * 4 + 1024;
	char *buf = malloc(cap);
	int rc;

	memset(&z, 0, sizeof(z));
	if (!buf || inflateInit2(&z, 15 + 32) != Z_OK) {
		free(buf);
		return -1;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	for (;;) {
		z.next_out = (Bytef *)buf + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		rc = inflate(&z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			break;
		if ((rc != Z_OK && rc != Z_BUF_ERROR) || cap > BODY_MAX) {
			inflateEnd(&z);
			free(buf);
			return -1;
		}
		if (z.avail_out == 0) {
			char *p = realloc(buf, cap * 2);

			if (!p) {
				inflateEnd(&z);
				free(buf);
				return -1;
			}
			buf = p;
			cap *= 2;
		} else if (rc == Z_BUF_ERROR) {
			inflateEnd(&z);
			free(buf);
			return -1;
		}
	}
	*out = buf;
	*out_len = z.total_out;
	inflateEnd(&z);
	return 0;
}

/* Decode, deduplicate and commit one batch; fills the JSON answer. */
static unsigned ingest(const char *body, size_t len, char *msg, size_t size, long *nacc)
{
	struct lru_snapshot *snaps = NULL;
	struct lru_error err;
	size_t n = 0;
	long acc = 0, dup = 0;

	if (o.max_body && len > o.max_body) {
		snprintf(msg, size, "{\"error\": \"body of %zu bytes is over %zu\"}", len, o.max_body);
		return 413;
	}
	if (lru_pb_decode_batch((const uint8_t *)body, len, &snaps, &n, &err)) {
		snprintf(msg, size, "{\"error\": \"%s\"}", err.msg);
		return 400;
	}
	for (size_t i = 0; i < n; i++) {
		if (o.reject_seq >= 0 && snaps[i].host.seq == (uint64_t)o.reject_seq) {
			snprintf(msg, size, "{\"error\": \"seq %lld is refused\"}", o.reject_seq);
			lru_pb_free_snapshots(snaps, n);
			return 400;
		}
	}
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n; i++) {
		char key[512];

		key_of(&snaps[i], key, sizeof(key));
		if (!keyset_add(&seen, key)) {
			dup++;
			continue;
		}
		acc++;
		fprintf(db, "%s\n", key);
		if (dump) {
			json_t *j = lru_snapshot_json(&snaps[i]);

			json_dumpf(j, dump, JSON_COMPACT);
			fputc('\n', dump);
			json_decref(j);
		}
	}
	fflush(db);
	fsync(fileno(db));
	if (dump)
		fflush(dump);
	accepted_total += acc;
	duplicates_total += dup;
	pthread_mutex_unlock(&lock);
	fprintf(stderr, "teststore: batch of %zu (seq %" PRIu64 "-%" PRIu64 "): %ld accepted, %ld duplicates\n",
		n, n ? snaps[0].host.seq : 0, n ? snaps[n - 1].host.seq : 0, acc, dup);
	lru_pb_free_snapshots(snaps, n);
	snprintf(msg, size, "{\"accepted\": %ld, \"duplicates\": %ld}", acc, dup);
	*nacc = acc;
	return 200;
}

/* Which of the first-N faults applies to POST number nr (1-based)? */
static bool nth(long count, long nr)
{
	return count < 0 || nr <= count;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *data_size, void **con_cls)
{
	struct upload *up = *con_cls;
	const char *auth, *enc, *ctype;
	char msg[512], *plain = NULL;
	size_t plain_len;
	unsigned status;
	long nr, nacc = 0;

	(void)cls, (void)version;
	if (!strcmp(method, "GET"))
		return answer(c, strcmp(url, "/healthz") ? 404 : 200, "{\"ok\": true}");
	if (strcmp(method, "POST") || strcmp(url, "/v1/snapshots"))
		return answer(c, 404, "{\"error\": \"not found\"}");
	if (!up) {
		*con_cls = calloc(1, sizeof(struct upload));
		return *con_cls ? MHD_YES : MHD_NO;
	}
	if (*data_size) {
		if (up->len + *data_size > BODY_MAX) {
			up->too_large = true;
		} else {
			if (up->len + *data_size > up->cap) {
				size_t cap = (up->len + *data_size) * 2;
				char *p = realloc(up->buf, cap);

				if (!p)
					return MHD_NO;
				up->buf = p;
				up->cap = cap;
			}
			memcpy(up->buf + up->len, data, *data_size);
			up->len += *data_size;
		}
		*data_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&lock);
	nr = ++posts;
	pthread_mutex_unlock(&lock);
	if (o.hang_count && nth(o.hang_count, nr)) {
		struct timespec ts = { 0, 20 * 1000000 };

		fprintf(stderr, "teststore: POST #%ld held, no answer\n", nr);
		while (!atomic_load(&stopping))
			nanosleep(&ts, NULL);
		return MHD_NO;
	}
	auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	enc = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Encoding");
	ctype = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	if (o.token && (!auth || strncmp(auth, "Bearer ", 7) || strcmp(auth + 7, o.token))) {
		status = 401;
		snprintf(msg, sizeof(msg), "{\"error\": \"bad token\"}");
	} else if (o.fail_status && nth(o.fail_count, nr)) {
		status = (unsigned)o.fail_status;
		snprintf(msg, sizeof(msg), "{\"error\": \"failing on purpose\"}");
	} else if (!ctype || strcmp(ctype, "application/x-protobuf")) {
		status = 415;
		snprintf(msg, sizeof(msg), "{\"error\": \"Content-Type must be application/x-protobuf\"}");
	} else if (up->too_large) {
		status = 413;
		snprintf(msg, sizeof(msg), "{\"error\": \"body too large\"}");
	} else if (enc && (!o.gzip || strcasecmp(enc, "gzip"))) {
		status = 415;
		snprintf(msg, sizeof(msg), "{\"error\": \"Content-Encoding '%s' not accepted\"}", enc);
	} else if (enc && gunzip(up->buf, up->len, &plain, &plain_len)) {
		status = 400;
		snprintf(msg, sizeof(msg), "{\"error\": \"bad gzip body\"}");
	} else {
		if (enc) {
			pthread_mutex_lock(&lock);
			gzip_posts++;
			pthread_mutex_unlock(&lock);
		}
		status = ingest(plain ? plain : up->buf, plain ? plain_len : up->len, msg, sizeof(msg),
				&nacc);
	}
	free(plain);
	if (status != 200) {
		pthread_mutex_lock(&lock);
		failed_posts++;
		pthread_mutex_unlock(&lock);
		fprintf(stderr, "teststore: POST #%ld -> %u %s\n", nr, status, msg);
	}
	if (o.delay_ms && nth(o.delay_count, nr)) {
		struct timespec ts = { o.delay_ms / 1000, (o.delay_ms % 1000) * 1000000 };

		nanosleep(&ts, NULL);
	}
	return answer(c, status, msg);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode toe)
{
	struct upload *up = *con_cls;

	(void)cls, (void)c, (void)toe;
	if (up)
		free(up->buf);
	free(up);
	*con_cls = NULL;
}

/* Load the committed keys of an earlier run. */
static void load_db(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0])
			keyset_add(&seen, line);
	}
	if (f)
		fclose(f);
}

static long num(const char *opt, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end) {
		fprintf(stderr, "teststore: %s '%s' is not a number\n", opt, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "port-file", required_argument, NULL, 'P' },
		{ "db", required_argument, NULL, 'd' },
		{ "dump", required_argument, NULL, 'D' },
		{ "token", required_argument, NULL, 't' },
		{ "gzip", no_argument, NULL, 'z' },
		{ "fail-status", required_argument, NULL, 'f' },
		{ "fail-count", required_argument, NULL, 'n' },
		{ "delay-ms", required_argument, NULL, 'w' },
		{ "delay-count", required_argument, NULL, 'W' },
		{ "hang-count", required_argument, NULL, 'H' },
		{ "max-body", required_argument, NULL, 'm' },
		{ "reject-seq", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;
	sigset_t set;
	int opt, sig;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'a': o.addr = optarg; break;
		case 'p': o.port = (unsigned)num("--port", optarg); break;
		case 'P': o.port_file = optarg; break;
		case 'd': o.db = optarg; break;
		case 'D': o.dump = optarg; break;
		case 't': o.token = optarg; break;
		case 'z': o.gzip = true; break;
		case 'f': o.fail_status = num("--fail-status", optarg); break;
		case 'n': o.fail_count = num("--fail-count", optarg); break;
		case 'w': o.delay_ms = num("--delay-ms", optarg); break;
		case 'W': o.delay_count = num("--delay-count", optarg); break;
		case 'H': o.hang_count = num("--hang-count", optarg); break;
		case 'm': o.max_body = (size_t)num("--max-body", optarg); break;
		case 'r': o.reject_seq = num("--reject-seq", optarg); break;
		default:
			fputs("usage: teststore --db FILE [--port N] [--port-file F] [options]\n", stderr);
			return 2;
		}
	}
	if (!o.db) {
		fputs("teststore: --db FILE is required\n", stderr);
		return 2;
	}
	if (o.fail_status && !o.fail_count)
		o.fail_count = -1;
	if (o.delay_ms && !o.delay_count)
		o.delay_count = -1;
	load_db(o.db);
	db = fopen(o.db, "a");
	dump = o.dump ? fopen(o.dump, "a") : NULL;
	if (!db || (o.dump && !dump)) {
		perror("teststore: opening --db or --dump");
		return 1;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sa.sin_port = htons((uint16_t)o.port);
	if (inet_pton(AF_INET, o.addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "teststore: bad --addr '%s'\n", o.addr);
		return 2;
	}
	d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
				     MHD_USE_ERROR_LOG,
			     0, NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			     MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "teststore: cannot listen on %s:%u\n", o.addr, o.port);
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	fprintf(stderr, "teststore: listening on %s:%u\n", o.addr, info->port);
	if (o.port_file) {
		char tmp[4096];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", o.port_file);
		f = fopen(tmp, "w");
		if (!f || fprintf(f, "%u\n", info->port) < 0 || fclose(f) || rename(tmp, o.port_file)) {
			perror("teststore: --port-file");
			return 1;
		}
	}
	while (sigwait(&set, &sig))
		;
	atomic_store(&stopping, true);
	MHD_stop_daemon(d);
	fprintf(stderr, "teststore: posts=%ld accepted=%ld duplicates=%ld gzip=%ld failed=%ld\n",
		posts, accepted_total, duplicates_total, gzip_posts, failed_posts);
	fclose(db);
	if (dump)
		fclose(dump);
	keyset_free(&seen);
	return 0;
}
