/*
 * fleetsim - a fleet of synthetic hosts against lrugen-store, over real HTTP.
 *
 *	fleetsim build [SPEC]
 *		read a small text description of snapshots (SPEC or standard
 *		input) and write them as one SnapshotBatch on standard output:
 *
 *		host NAME [boot ID] [seq N] [taken -30s|@MS] [page BYTES] [kernel R]
 *			[warn CODE,...]
 *		node N total SIZE free SIZE
 *		lruvec PATH [ino N] [id N] node N [warn CODE,...]
 *		gen SEQ AGE ANON_PAGES FILE_PAGES	(oldest first; AGE 300s)
 *		stats PATH [ino N] pgsteal PAGES refault PAGES
 *			(memory.stat's cumulative counters: refault is
 *			workingset_refault_anon; the memcg has stats)
 *
 *		Each host line starts a snapshot; "taken -30s" is 30 s before now
 *		(the default is now). "warn" sets accuracy warnings (lru_warn.h:
 *		damon_active on a host, thp_unaged on an lruvec), as lrugend
 *		would. Tests compute their expected answers from it.
 *
 *	fleetsim schema VERSION
 *		print the SQL that makes an empty store database of that schema
 *		version, as the lrugen-store that knew no later one made it
 *		(store/schema.h's migrations up to VERSION, then its
 *		user_version): for migration tests, "| sqlite3 FILE".
 *
 *	fleetsim run --store URL [--token-file F] [--hosts N] [--memcgs M]
 *		[--nodes K] [--jobs J] [--interval DUR] [--cycles C | --history DUR
 *		[--step DUR]] [--rate SNAPS/S] [--threads T] [--batch B] [--gzip]
 *		[--pregen] [--seed S] [--prefix P] [--acked FILE] [--max-errors N]
 *		[--now MS]
 *		play N synthetic hosts (synth.h) in accelerated time: every host
 *		sends its snapshots of the last C cycles (or of the last DUR, one
 *		every --step), oldest first, as fast as --rate allows (0: no limit),
 *		from T threads; --batch B puts B consecutive snapshots of one host
 *		in a request (a collector catching up). --pregen encodes every
 *		request before the clock starts. --acked appends "host boot seq"
 *		for each acknowledged snapshot (flushed before it is counted).
 *		--now MS plays the fleet as if it were MS (ms since the epoch), so
 *		that two runs send the very same snapshots.
 *		Prints one line of key=value: sent accepted duplicates errors
 *		seconds snaps_per_s p50_ms p99_ms.
 *
 *	fleetsim query --store URL [--token-file F] --path PATH [--n N]
 *		GET PATH N times (after 3 unmeasured ones); prints n p50_ms
 *		p99_ms max_ms bytes. Fails on any answer but 200.
 *
 * The token comes from --token-file or $LRUGEN_TOKEN.
 */
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lru_buf.h"
#include "lru_gz.h"
#include "schema.h"
#include "lru_model.h"
#include "lru_pb.h"
#include "synth.h"
#include "lru_units.h"
#include "lru_warn.h"

#define PROG "fleetsim"

#include "tool_die.h"

static uint64_t parse_u64(const char *opt, const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		die("%s '%s' is not a number", opt, s);
	return v;
}

static uint64_t parse_dur(const char *opt, const char *s)
{
	struct lru_error err;
	uint64_t ms;

	if (lru_parse_duration_ms(s, &ms, &err))
		die("%s: %s", opt, err.msg);
	return ms;
}

static uint64_t parse_sz(const char *opt, const char *s)
{
	struct lru_error err;
	uint64_t b;

	if (s[0] && strspn(s, "0123456789") == strlen(s))
		return parse_u64(opt, s);	/* bytes, up to 2^64-1 */
	if (lru_parse_size(s, &b, &err))
		die("%s: %s", opt, err.msg);
	return b;
}

/* ---- build ------------------------------------------------------------------- */

struct spec {
	struct lru_snapshot *snaps;
	size_t n, alloc;
	struct lru_lruvec *lv;		/* the lruvec gen lines go to */
	int line;
};

static void spec_fail(const struct spec *sp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void spec_fail(const struct spec *sp, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	die("spec line %d: %s", sp->line, msg);
}

/* "thp_unaged,..." -> LRU_WARN_* bits (host: LRU_HOSTW_*); an unknown code fails. */
static uint32_t spec_warnings(const struct spec *sp, char *list, bool host)
{
	uint32_t mask = 0, bit;
	char *save = NULL;

	for (char *code = strtok_r(list, ",", &save); code; code = strtok_r(NULL, ",", &save)) {
		bit = host ? lru_hostwarn_bit(code) : lru_warn_bit(code);
		if (!bit)
			spec_fail(sp, "unknown %s warning '%s'", host ? "host" : "lruvec", code);
		mask |= bit;
	}
	return mask;
}

static struct lru_snapshot *cur(struct spec *sp)
{
	if (!sp->n)
		spec_fail(sp, "a 'host' line must come first");
	return &sp->snaps[sp->n - 1];
}

static void spec_host(struct spec *sp, char **w, int nw)
{
	struct lru_snapshot *s;
	int64_t taken = lru_now_ms();

	if (nw < 2)
		spec_fail(sp, "host NAME [boot ID] [seq N] [taken -DUR|@MS] [page N] [kernel R] "
			  "[warn CODE,...]");
	if (sp->n == sp->alloc) {
		sp->alloc = sp->alloc ? sp->alloc * 2 : 8;
		sp->snaps = realloc(sp->snaps, sp->alloc * sizeof(*sp->snaps));
		if (!sp->snaps)
			die("out of memory");
	}
	s = &sp->snaps[sp->n++];
	lru_snapshot_init(s);
	sp->lv = NULL;
	lru_strdup_into(&s->host.host, w[1], NULL);
	lru_strdup_into(&s->host.boot_id, "boot-0", NULL);
	lru_strdup_into(&s->host.kernel, "6.1.0-test", NULL);
	s->host.seq = 1;
	for (int i = 2; i + 1 < nw; i += 2) {
		if (!strcmp(w[i], "boot"))
			lru_strdup_into(&s->host.boot_id, w[i + 1], NULL);
		else if (!strcmp(w[i], "seq"))
			s->host.seq = parse_u64("seq", w[i + 1]);
		else if (!strcmp(w[i], "page"))
			s->page_size = (uint32_t)parse_u64("page", w[i + 1]);
		else if (!strcmp(w[i], "kernel"))
			lru_strdup_into(&s->host.kernel, w[i + 1], NULL);
		else if (!strcmp(w[i], "taken") && w[i + 1][0] == '-')
			taken = lru_now_ms() - (int64_t)parse_dur("taken", w[i + 1] + 1);
		else if (!strcmp(w[i], "taken") && w[i + 1][0] == '@')
			taken = (int64_t)parse_u64("taken", w[i + 1] + 1);
		else if (!strcmp(w[i], "warn"))
			s->host.warnings = spec_warnings(sp, w[i + 1], true);
		else
			spec_fail(sp, "unknown host attribute '%s'", w[i]);
	}
	s->read_start_ms = taken - 10;
	s->read_end_ms = taken + 10;
}

/* The memcg PATH (inode ino) of s, added with id when it is not there yet. */
static size_t spec_memcg(struct lru_snapshot *s, const char *path, uint64_t ino, uint64_t id)
{
	size_t mi;

	for (mi = 0; mi < s->nr_memcgs; mi++)
		if (!strcmp(s->memcgs[mi].path, path) && s->memcgs[mi].ino == ino)
			return mi;
	if (lru_snapshot_add_memcg(s, id, path, strlen(path), &mi, NULL))
		die("out of memory");
	s->memcgs[mi].ino = ino;
	return mi;
}

static void spec_line(struct spec *sp, char **w, int nw)
{
	struct lru_snapshot *s;

	if (!strcmp(w[0], "host")) {
		spec_host(sp, w, nw);
	} else if (!strcmp(w[0], "node")) {
		struct lru_node_mem *nm;

		s = cur(sp);
		if (nw != 6 || strcmp(w[2], "total") || strcmp(w[4], "free"))
			spec_fail(sp, "node N total SIZE free SIZE");
		s->nodes = realloc(s->nodes, (s->nr_nodes + 1) * sizeof(*s->nodes));
		if (!s->nodes)
			die("out of memory");
		nm = &s->nodes[s->nr_nodes++];
		memset(nm, 0, sizeof(*nm));
		nm->node = (int)parse_u64("node", w[1]);
		nm->total = parse_sz("total", w[3]);
		nm->free = parse_sz("free", w[5]);
	} else if (!strcmp(w[0], "lruvec")) {
		uint64_t ino = 0, id = 1;
		uint32_t warnings = 0;
		int node = -1;
		size_t mi, li;

		s = cur(sp);
		if (nw < 2)
			spec_fail(sp, "lruvec PATH [ino N] [id N] node N [warn CODE,...]");
		for (int i = 2; i + 1 < nw; i += 2) {
			if (!strcmp(w[i], "ino"))
				ino = parse_u64("ino", w[i + 1]);
			else if (!strcmp(w[i], "id"))
				id = parse_u64("id", w[i + 1]);
			else if (!strcmp(w[i], "node"))
				node = (int)parse_u64("node", w[i + 1]);
			else if (!strcmp(w[i], "warn"))
				warnings = spec_warnings(sp, w[i + 1], false);
			else
				spec_fail(sp, "unknown lruvec attribute '%s'", w[i]);
		}
		if (node < 0)
			spec_fail(sp, "lruvec needs 'node N'");
		mi = spec_memcg(s, w[1], ino, id);
		if (lru_snapshot_add_lruvec(s, mi, node, &li, NULL))
			die("out of memory");
		sp->lv = &s->lruvecs[li];
		sp->lv->warnings = warnings;
	} else if (!strcmp(w[0], "gen")) {
		struct lru_gen *g;

		if (!sp->lv || sp->lv->nr_gens == LRU_MAX_GENS || nw != 5)
			spec_fail(sp, "gen SEQ AGE ANON FILE, at most 4, after an lruvec line");
		g = &sp->lv->gens[sp->lv->nr_gens++];
		g->seq = parse_u64("seq", w[1]);
		g->age_ms = (uint32_t)parse_dur("age", w[2]);
		g->pages[LRU_ANON] = parse_u64("anon", w[3]);
		g->pages[LRU_FILE] = parse_u64("file", w[4]);
	} else if (!strcmp(w[0], "stats")) {
		struct lru_memcg *m;
		uint64_t ino = 0, steal = 0, refault = 0;

		s = cur(sp);
		if (nw < 2)
			spec_fail(sp, "stats PATH [ino N] pgsteal PAGES refault PAGES");
		for (int i = 2; i + 1 < nw; i += 2) {
			if (!strcmp(w[i], "ino"))
				ino = parse_u64("ino", w[i + 1]);
			else if (!strcmp(w[i], "pgsteal"))
				steal = parse_u64("pgsteal", w[i + 1]);
			else if (!strcmp(w[i], "refault"))
				refault = parse_u64("refault", w[i + 1]);
			else
				spec_fail(sp, "unknown stats attribute '%s'", w[i]);
		}
		m = &s->memcgs[spec_memcg(s, w[1], ino, 1)];
		m->has_stats = true;
		m->stats.pgsteal = steal;
		m->stats.refault_anon = refault;
	} else {
		spec_fail(sp, "unknown line '%s'", w[0]);
	}
}

static int cmd_build(int argc, char **argv)
{
	struct spec sp = { 0 };
	const struct lru_snapshot **ptrs;
	struct lru_error err;
	char line[8192];
	uint8_t *out;
	size_t len;
	FILE *f = argc > 1 ? fopen(argv[1], "r") : stdin;

	if (!f)
		die("cannot read '%s': %s", argv[1], strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *w[32], *save = NULL, *tok;
		int nw = 0;

		sp.line++;
		line[strcspn(line, "#\n")] = '\0';
		for (tok = strtok_r(line, " \t", &save); tok && nw < 32; tok = strtok_r(NULL, " \t", &save))
			w[nw++] = tok;
		if (nw)
			spec_line(&sp, w, nw);
	}
	if (f != stdin)
		fclose(f);
	ptrs = calloc(sp.n + 1, sizeof(*ptrs));
	if (!ptrs)
		die("out of memory");
	for (size_t i = 0; i < sp.n; i++) {
		struct lru_snapshot *s = &sp.snaps[i];

		lru_snapshot_set_times(s, s->read_start_ms, s->read_end_ms);
		ptrs[i] = s;
	}
	if (lru_pb_encode_batch(ptrs, sp.n, &out, &len, &err))
		die("%s", err.msg);
	if (fwrite(out, 1, len, stdout) != len || fflush(stdout))
		die("cannot write standard output");
	free(out);
	free(ptrs);
	for (size_t i = 0; i < sp.n; i++)
		lru_snapshot_release(&sp.snaps[i]);
	free(sp.snaps);
	return 0;
}

/* ---- schema ------------------------------------------------------------------ */

static int cmd_schema(int argc, char **argv)
{
	static const char *const migrations[] = SCHEMA_MIGRATIONS;
	uint64_t version;

	if (argc != 2)
		die("usage: fleetsim schema VERSION");
	version = parse_u64("schema", argv[1]);
	if (!version || version > SCHEMA_NR_MIGRATIONS)
		die("schema: versions are 1 to %d", SCHEMA_NR_MIGRATIONS);
	printf("BEGIN;\n");
	for (uint64_t i = 0; i < version; i++)
		fputs(migrations[i], stdout);
	printf("PRAGMA user_version = %" PRIu64 ";\nCOMMIT;\n", version);
	return fflush(stdout) ? 1 : 0;
}

/* ---- HTTP -------------------------------------------------------------------- */

struct client {
	CURL *curl;
	struct curl_slist *hdrs;
	struct lru_buf resp;
};

static size_t on_body(char *buf, size_t size, size_t n, void *arg)
{
	struct lru_buf *b = arg;

	return lru_buf_append(b, buf, size * n, NULL) ? 0 : size * n;
}

static void client_init(struct client *c, const char *token, bool post, bool gz)
{
	char auth[4200];

	memset(c, 0, sizeof(*c));
	c->curl = curl_easy_init();
	if (!c->curl)
		die("cannot start libcurl");
	lru_buf_init(&c->resp);
	if (post) {
		c->hdrs = curl_slist_append(c->hdrs, "Content-Type: application/x-protobuf");
		c->hdrs = curl_slist_append(c->hdrs, "Expect:");
		if (gz)
			c->hdrs = curl_slist_append(c->hdrs, "Content-Encoding: gzip");
	}
	if (token && *token) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
		c->hdrs = curl_slist_append(c->hdrs, auth);
	}
}

static void client_release(struct client *c)
{
	curl_slist_free_all(c->hdrs);
	curl_easy_cleanup(c->curl);
	lru_buf_release(&c->resp);
}

/* One request; the HTTP status, or 0 when none came. */
static long request(struct client *c, const char *url, const uint8_t *body, size_t len)
{
	long status = 0;

	c->resp.len = 0;
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->hdrs);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &c->resp);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYPEER, 0L);
	curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYHOST, 0L);
	if (body) {
		curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	if (curl_easy_perform(c->curl) == CURLE_OK)
		curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	return status;
}

static char *read_token(const char *file)
{
	char buf[4096];
	const char *env = getenv("LRUGEN_TOKEN");
	FILE *f;
	size_t n;

	if (!file)
		return strdup(env ? env : "");
	f = fopen(file, "r");
	if (!f)
		die("cannot read token file '%s': %s", file, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return strdup(buf);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	i = (size_t)(p / 100.0 * (double)n + 0.999999);
	return v[i ? i - 1 : 0];
}

/* ---- run ---------------------------------------------------------------------- */

struct item {
	unsigned host;
	uint64_t cycle;
};

struct run {
	struct synth fleet;
	const char *url, *token;
	struct item *items;
	size_t nr_items, batch;
	bool gzip;
	double rate;		/* snapshots/s, 0 = no limit */
	uint64_t max_errors;
	FILE *acked;
	pthread_mutex_t acked_lock;
	/* pregenerated bodies, one per request */
	struct lru_buf *bodies;

	atomic_size_t next;	/* next request index */
	atomic_uint_fast64_t sent, accepted, duplicates, errors;
	double start;
	double *lat;		/* per request, seconds */
	size_t nr_requests;
};

/* The body of request r: items [r*batch, r*batch + batch). */
static void build_request(struct run *run, size_t r, struct lru_buf *out)
{
	size_t first = r * run->batch, n = run->batch;
	struct lru_snapshot snaps[64];
	const struct lru_snapshot *ptrs[64] = { NULL };
	struct lru_error err;
	uint8_t *pb;
	size_t len;

	if (first + n > run->nr_items)
		n = run->nr_items - first;
	for (size_t i = 0; i < n; i++) {
		lru_snapshot_init(&snaps[i]);
		if (synth_host(&run->fleet, run->items[first + i].host,
				   run->items[first + i].cycle, &snaps[i], &err))
			die("%s", err.msg);
		ptrs[i] = &snaps[i];
	}
	if (lru_pb_encode_batch(ptrs, n, &pb, &len, &err))
		die("%s", err.msg);
	for (size_t i = 0; i < n; i++)
		lru_snapshot_release(&snaps[i]);
	lru_buf_init(out);
	if (run->gzip) {
		if (lru_gz_all(pb, len, 1, out, &err))
			die("%s", err.msg);
		free(pb);
	} else {
		out->data = pb;
		out->len = len;
		out->alloc = out->len;
	}
}

static void record_acks(struct run *run, size_t r)
{
	size_t first = r * run->batch;

	if (!run->acked)
		return;
	pthread_mutex_lock(&run->acked_lock);
	for (size_t i = first; i < first + run->batch && i < run->nr_items; i++) {
		unsigned h = run->items[i].host;

		fprintf(run->acked, "%s%05u 00000000-0000-4000-8000-%012x %" PRIu64 "\n",
			run->fleet.prefix, h, h, run->items[i].cycle);
	}
	fflush(run->acked);
	pthread_mutex_unlock(&run->acked_lock);
}

static void *run_thread(void *arg)
{
	struct run *run = arg;
	struct client c;
	char url[1024];

	snprintf(url, sizeof(url), "%s/v1/snapshots", run->url);
	client_init(&c, run->token, true, run->gzip);
	for (;;) {
		size_t r = atomic_fetch_add(&run->next, 1), n;
		struct lru_buf own, *body;
		double t0;
		long status;

		if (r >= run->nr_requests ||
		    (run->max_errors && atomic_load(&run->errors) >= run->max_errors))
			break;
		n = run->batch;
		if (r * run->batch + n > run->nr_items)
			n = run->nr_items - r * run->batch;
		if (run->bodies) {
			body = &run->bodies[r];
		} else {
			build_request(run, r, &own);
			body = &own;
		}
		if (run->rate > 0) {
			double at = run->start + (double)(r * run->batch) / run->rate, w = at - now_s();

			if (w > 0)
				usleep((useconds_t)(w * 1e6));
		}
		t0 = now_s();
		status = request(&c, url, body->data, body->len);
		run->lat[r] = now_s() - t0;
		atomic_fetch_add(&run->sent, n);
		if (status == 200) {
			long long acc = 0, dup = 0;
			char *p;

			record_acks(run, r);
			lru_buf_append(&c.resp, "", 1, NULL);
			p = strstr((char *)c.resp.data, "\"accepted\":");
			if (p)
				acc = strtoll(p + 11, NULL, 10);
			p = strstr((char *)c.resp.data, "\"duplicates\":");
			if (p)
				dup = strtoll(p + 13, NULL, 10);
			atomic_fetch_add(&run->accepted, (uint64_t)acc);
			atomic_fetch_add(&run->duplicates, (uint64_t)dup);
		} else {
			atomic_fetch_add(&run->errors, 1);
			if (atomic_load(&run->errors) <= 3)
				fprintf(stderr, PROG ": request %zu: HTTP %ld %.*s\n", r, status,
					(int)(c.resp.len < 200 ? c.resp.len : 200), (char *)c.resp.data);
			usleep(10000);
		}
		if (!run->bodies)
			lru_buf_release(&own);
	}
	client_release(&c);
	return NULL;
}

static int cmp_item_time(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->cycle != y->cycle)
		return x->cycle < y->cycle ? -1 : 1;
	return (x->host > y->host) - (x->host < y->host);
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' }, { "token-file", required_argument, NULL, 'T' },
		{ "hosts", required_argument, NULL, 'H' }, { "memcgs", required_argument, NULL, 'm' },
		{ "nodes", required_argument, NULL, 'n' }, { "jobs", required_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'i' }, { "cycles", required_argument, NULL, 'c' },
		{ "history", required_argument, NULL, 'y' }, { "step", required_argument, NULL, 'p' },
		{ "rate", required_argument, NULL, 'r' }, { "threads", required_argument, NULL, 't' },
		{ "batch", required_argument, NULL, 'b' }, { "gzip", no_argument, NULL, 'z' },
		{ "pregen", no_argument, NULL, 'g' }, { "seed", required_argument, NULL, 'S' },
		{ "prefix", required_argument, NULL, 'P' }, { "acked", required_argument, NULL, 'a' },
		{ "max-errors", required_argument, NULL, 'e' }, { "now", required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	struct run run = { 0 };
	const char *token_file = NULL;
	uint64_t cycles = 1, history = 0, step = 0, threads = 4;
	int64_t now = lru_now_ms();
	bool pregen = false;
	pthread_t *tids;
	size_t i, k = 0;
	double secs, *lat;
	int opt;

	synth_defaults(&run.fleet);
	run.fleet.nr_hosts = 100;
	run.batch = 1;
	run.max_errors = 100;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's': run.url = optarg; break;
		case 'T': token_file = optarg; break;
		case 'H': run.fleet.nr_hosts = (unsigned)parse_u64("--hosts", optarg); break;
		case 'm': run.fleet.nr_memcgs = (unsigned)parse_u64("--memcgs", optarg); break;
		case 'n': run.fleet.nr_nodes = (unsigned)parse_u64("--nodes", optarg); break;
		case 'j': run.fleet.nr_jobs = (unsigned)parse_u64("--jobs", optarg); break;
		case 'i': run.fleet.interval_ms = parse_dur("--interval", optarg); break;
		case 'c': cycles = parse_u64("--cycles", optarg); break;
		case 'y': history = parse_dur("--history", optarg); break;
		case 'p': step = parse_dur("--step", optarg); break;
		case 'r': run.rate = strtod(optarg, NULL); break;
		case 't': threads = parse_u64("--threads", optarg); break;
		case 'b': run.batch = parse_u64("--batch", optarg); break;
		case 'z': run.gzip = true; break;
		case 'g': pregen = true; break;
		case 'S': run.fleet.seed = parse_u64("--seed", optarg); break;
		case 'P': run.fleet.prefix = optarg; break;
		case 'a':
			run.acked = fopen(optarg, "a");
			if (!run.acked)
				die("cannot open '%s': %s", optarg, strerror(errno));
			break;
		case 'e': run.max_errors = parse_u64("--max-errors", optarg); break;
		case 'N': now = (int64_t)parse_u64("--now", optarg); break;
		default: die("run: bad option (see the header of tests/tools/fleetsim.c)");
		}
	}
	if (!run.url)
		die("run needs --store URL");
	if (!run.batch || run.batch > 64 || !threads || threads > 256 || !run.fleet.nr_hosts ||
	    !run.fleet.interval_ms)
		die("run: --batch 1..64, --threads 1..256, --hosts and --interval above 0");
	if (history) {
		uint64_t every = step ? step / run.fleet.interval_ms : 1;

		cycles = history / run.fleet.interval_ms / (every ? every : 1);
		step = every ? every : 1;
	} else {
		step = 1;
	}
	if (!cycles)
		die("run: nothing to send (--cycles 0 or --history below --step)");
	run.token = read_token(token_file);
	run.nr_items = (size_t)run.fleet.nr_hosts * cycles;
	run.items = calloc(run.nr_items, sizeof(*run.items));
	if (!run.items)
		die("out of memory");
	/* host-major: a request batches consecutive snapshots of one host */
	for (unsigned h = 0; h < run.fleet.nr_hosts; h++) {
		uint64_t last = synth_cycle_at(&run.fleet, h, now);

		for (uint64_t c = 0; c < cycles; c++)
			run.items[k++] = (struct item){ h, last - (cycles - 1 - c) * step };
	}
	if (run.batch == 1)	/* live: in time order, every host in turn */
		qsort(run.items, run.nr_items, sizeof(*run.items), cmp_item_time);
	run.nr_requests = (run.nr_items + run.batch - 1) / run.batch;
	run.lat = calloc(run.nr_requests, sizeof(*run.lat));
	if (!run.lat)
		die("out of memory");
	if (pregen) {
		run.bodies = calloc(run.nr_requests, sizeof(*run.bodies));
		if (!run.bodies)
			die("out of memory");
		for (i = 0; i < run.nr_requests; i++)
			build_request(&run, i, &run.bodies[i]);
	}
	pthread_mutex_init(&run.acked_lock, NULL);
	tids = calloc(threads, sizeof(*tids));
	run.start = now_s();
	for (i = 0; i < threads; i++)
		if (pthread_create(&tids[i], NULL, run_thread, &run))
			die("cannot start a thread");
	for (i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	secs = now_s() - run.start;
	lat = run.lat;
	qsort(lat, run.nr_requests, sizeof(*lat), cmp_double);
	printf("sent=%" PRIu64 " accepted=%" PRIu64 " duplicates=%" PRIu64 " errors=%" PRIu64
	       " seconds=%.3f snaps_per_s=%.1f p50_ms=%.2f p99_ms=%.2f\n",
	       (uint64_t)run.sent, (uint64_t)run.accepted, (uint64_t)run.duplicates,
	       (uint64_t)run.errors, secs, (double)run.accepted / (secs > 0 ? secs : 1),
	       pct(lat, run.nr_requests, 50) * 1e3, pct(lat, run.nr_requests, 99) * 1e3);
	if (run.bodies)
		for (i = 0; i < run.nr_requests; i++)
			lru_buf_release(&run.bodies[i]);
	if (run.acked)
		fclose(run.acked);
	free(run.bodies);
	free(run.items);
	free(run.lat);
	free(tids);
	free((char *)run.token);
	return run.errors ? 1 : 0;
}

/* ---- query --------------------------------------------------------------------- */

static int cmd_query(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' }, { "token-file", required_argument, NULL, 'T' },
		{ "path", required_argument, NULL, 'p' }, { "n", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const char *store = NULL, *path = NULL, *token_file = NULL;
	uint64_t n = 100;
	struct client c;
	char url[4096], *token;
	double *lat;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's': store = optarg; break;
		case 'T': token_file = optarg; break;
		case 'p': path = optarg; break;
		case 'n': n = parse_u64("--n", optarg); break;
		default: die("query: bad option");
		}
	}
	if (!store || !path || !n)
		die("query needs --store URL --path PATH [--n N]");
	token = read_token(token_file);
	client_init(&c, token, false, false);
	snprintf(url, sizeof(url), "%s%s", store, path);
	lat = calloc(n, sizeof(*lat));
	if (!lat)
		die("out of memory");
	for (uint64_t i = 0; i < n + 3; i++) {
		double t0 = now_s();
		long status = request(&c, url, NULL, 0);

		if (status != 200)
			die("GET %s: HTTP %ld %.*s", path, status, (int)(c.resp.len < 300 ? c.resp.len : 300),
			    (char *)c.resp.data);
		if (i >= 3)
			lat[i - 3] = now_s() - t0;
	}
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("n=%" PRIu64 " p50_ms=%.2f p99_ms=%.2f max_ms=%.2f bytes=%zu\n", n,
	       pct(lat, n, 50) * 1e3, pct(lat, n, 99) * 1e3, lat[n - 1] * 1e3, c.resp.len);
	client_release(&c);
	free(lat);
	free(token);
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 2)
		die("usage: fleetsim build [SPEC] | schema VERSION | run --store URL ... | "
		    "query --store URL --path P");
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!strcmp(argv[1], "build"))
		rc = cmd_build(argc - 1, argv + 1);
	else if (!strcmp(argv[1], "run"))
		rc = cmd_run(argc - 1, argv + 1);
	else if (!strcmp(argv[1], "query"))
		rc = cmd_query(argc - 1, argv + 1);
	else if (!strcmp(argv[1], "schema"))
		rc = cmd_schema(argc - 1, argv + 1);
	else
		die("unknown command '%s'", argv[1]);
	curl_global_cleanup();
	return rc;
}
