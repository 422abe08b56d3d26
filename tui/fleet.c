/*
 * fleet.c - the fleet backend: lrugen-store's JSON query API over libcurl.
 *
 * Each fetch asks (with "Authorization: Bearer TOKEN" when a token is set)
 *
 *	GET {store}/v1/hosts
 *		{"now_ms": N, "hosts": [{"host", "last_seen_ms", "kernel",
 *					 "page_size", "warnings", ...}, ...]}
 *	GET {store}/v1/timeline?host=H&limit=200000&since=DUR	for every host seen
 *		{"now_ms": N, "point_fields": ["taken_at_ms", "gen_seq",
 *					       "birth_ms", "anon_bytes", "file_bytes"],
 *		 "lruvecs": [{"memcg", "memcg_id", "memcg_inode", "node", "warnings",
 *			      "points": [[taken, seq, birth, anon, file], ...]}]}
 *
 * with since just long enough to reach the host's last snapshot
 * (now - last_seen_ms + 1s), so the answer holds little more than that
 * snapshot. A point is one generation of one lruvec as a snapshot taken at
 * taken_at_ms saw it; the points of each lruvec's latest taken_at_ms become
 * an lruvec of a per-host struct lru_snapshot (birth as given, age relative
 * to that read), so everything after this file treats the fleet like one big
 * host list. Points may also be objects with the point_fields as keys.
 * "warnings" are accuracy codes (lru_warn.h): a host's become its
 * snapshot's host warnings, an lruvec's its own; codes this build does not
 * know are dropped, a missing list is no warning (an older store).
 */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>

#include "lru_units.h"
#include "lru_warn.h"

#define FLEET_MAX_BODY (64u << 20)

struct fleet {
	struct top_source base;
	CURL *curl;
	char url[1024];			/* without a trailing slash */
	char auth[1024];		/* "Authorization: Bearer ..." or "" */
	struct lru_snapshot *snaps;
	size_t nr_snaps;
	const struct lru_snapshot **ptrs;
	int64_t now_ms;
};

struct body {
	char *data;
	size_t len;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t n = size * nmemb;
	char *p;

	if (b->len + n > FLEET_MAX_BODY)
		return 0;
	p = realloc(b->data, b->len + n + 1);
	if (!p)
		return 0;
	memcpy(p + b->len, ptr, n);
	b->data = p;
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

/* GET url+path and parse the JSON answer into *out (caller decrefs). */
static enum lru_err get_json(struct fleet *f, const char *path, json_t **out,
			     struct lru_error *err)
{
	char url[2048], cerr[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = NULL;
	struct body b = { NULL, 0 };
	json_error_t jerr;
	long status = 0;
	CURLcode cc;

	snprintf(url, sizeof(url), "%s%s", f->url, path);
	curl_easy_reset(f->curl);
	curl_easy_setopt(f->curl, CURLOPT_URL, url);
	curl_easy_setopt(f->curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(f->curl, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(f->curl, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(f->curl, CURLOPT_CONNECTTIMEOUT_MS, 1500L);
	curl_easy_setopt(f->curl, CURLOPT_TIMEOUT_MS, 5000L);
	curl_easy_setopt(f->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(f->curl, CURLOPT_USERAGENT, "lrugen-top/" LRUGEN_VERSION);
	hdrs = curl_slist_append(hdrs, "Accept: application/json");
	if (f->auth[0])
		hdrs = curl_slist_append(hdrs, f->auth);
	curl_easy_setopt(f->curl, CURLOPT_HTTPHEADER, hdrs);
	cc = curl_easy_perform(f->curl);
	curl_slist_free_all(hdrs);
	if (cc != CURLE_OK) {
		free(b.data);
		return lru_fail(err, LRU_EIO, "store unreachable, retrying (%s)",
				cerr[0] ? cerr : curl_easy_strerror(cc));
	}
	curl_easy_getinfo(f->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status == 401 || status == 403) {
		free(b.data);
		return lru_fail(err, LRU_EACCES,
				"store refused the token (HTTP %ld): check --token-file or LRUGEN_TOKEN",
				status);
	}
	if (status != 200) {
		free(b.data);
		return lru_fail(err, LRU_EIO, "store answered HTTP %ld to GET %s, retrying",
				status, path);
	}
	*out = json_loadb(b.data ? b.data : "", b.len, 0, &jerr);
	free(b.data);
	if (!*out)
		return lru_fail(err, LRU_EPROTO, "store: GET %s: bad JSON: %s", path, jerr.text);
	return LRU_OK;
}

static int64_t jint(const json_t *o, const char *key, int64_t dflt)
{
	const json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v))
		return (int64_t)json_real_value(v);
	return dflt;
}

static const char *jstr(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The bits of the codes in o's "warnings": LRU_HOSTW_* (host) or LRU_WARN_*. */
static uint32_t jwarnings(const json_t *o, bool host)
{
	const json_t *v;
	uint32_t mask = 0;
	size_t i;

	json_array_foreach(json_object_get(o, "warnings"), i, v)
		mask |= host ? lru_hostwarn_bit(json_string_value(v)) : lru_warn_bit(json_string_value(v));
	return mask;
}

/* One generation as read from a point, before it is placed in an lruvec. */
struct point {
	const char *memcg;
	uint64_t memcg_id, ino;
	int node;
	int64_t seq, birth_ms, taken_ms;
	uint64_t anon, file;
	uint32_t warnings;	/* its lruvec's */
};

enum { PT_TAKEN, PT_SEQ, PT_BIRTH, PT_ANON, PT_FILE, PT_NR };

static const char *const pf_names[PT_NR] = { "taken_at_ms", "gen_seq", "birth_ms", "anon_bytes",
					     "file_bytes" };

/* Where each field sits in a point array, from "point_fields" (-1: absent). */
static void point_fields(const json_t *doc, int idx[PT_NR])
{
	const json_t *names = json_object_get(doc, "point_fields"), *n;
	size_t i;
	int f;

	for (f = 0; f < PT_NR; f++)
		idx[f] = names ? -1 : f;	/* the store's order when not said */
	json_array_foreach(names, i, n)
		for (f = 0; f < PT_NR; f++)
			if (json_is_string(n) && !strcmp(json_string_value(n), pf_names[f]))
				idx[f] = (int)i;
}

static int64_t pfield(const json_t *p, const int idx[PT_NR], int f, int64_t dflt)
{
	const json_t *v = json_is_array(p) ? (idx[f] < 0 ? NULL : json_array_get(p, (size_t)idx[f]))
					   : json_object_get(p, pf_names[f]);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v))
		return (int64_t)json_real_value(v);
	return dflt;
}

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;
	int c = strcmp(x->memcg, y->memcg);

	if (c)
		return c;
	if (x->node != y->node)
		return x->node - y->node;
	if (x->taken_ms != y->taken_ms)	/* latest first */
		return (x->taken_ms < y->taken_ms) - (x->taken_ms > y->taken_ms);
	return (x->birth_ms > y->birth_ms) - (x->birth_ms < y->birth_ms);
}

/* Collect the points of a timeline answer, each with its lruvec's identity. */
static size_t collect_points(const json_t *doc, struct point **out)
{
	const json_t *lvs = json_object_get(doc, "lruvecs"), *lv, *p;
	size_t n = 0, cap = 0, i, j;
	struct point *v;
	int idx[PT_NR];

	point_fields(doc, idx);
	json_array_foreach(lvs, i, lv)
		cap += json_array_size(json_object_get(lv, "points"));
	*out = NULL;
	if (!cap || !(v = calloc(cap, sizeof(*v))))
		return 0;
	json_array_foreach(lvs, i, lv) {
		const char *memcg = jstr(lv, "memcg");
		int node = (int)jint(lv, "node", -1);
		uint32_t warnings = jwarnings(lv, false);

		if (!memcg || node < 0 || node > LRU_NODE_MAX)
			continue;
		json_array_foreach(json_object_get(lv, "points"), j, p) {
			struct point *pt = &v[n];
			int64_t anon = pfield(p, idx, PT_ANON, 0), file = pfield(p, idx, PT_FILE, 0);

			pt->memcg = memcg;
			pt->node = node;
			pt->memcg_id = (uint64_t)jint(lv, "memcg_id", 0);
			pt->ino = (uint64_t)jint(lv, "memcg_inode", 0);
			pt->warnings = warnings;
			pt->birth_ms = pfield(p, idx, PT_BIRTH, INT64_MIN);
			pt->taken_ms = pfield(p, idx, PT_TAKEN, 0);
			pt->seq = pfield(p, idx, PT_SEQ, -1);
			pt->anon = anon > 0 ? (uint64_t)anon : 0;
			pt->file = file > 0 ? (uint64_t)file : 0;
			if (pt->birth_ms != INT64_MIN)
				n++;
		}
	}
	*out = v;
	return n;
}

/* Build one host's snapshot from its timeline points. */
static enum lru_err host_snapshot(const char *host, const json_t *hinfo, const json_t *doc,
				  int64_t now_ms, struct lru_snapshot *s, struct lru_error *err)
{
	struct point *pts;
	size_t n = collect_points(doc, &pts), i = 0, j, mc, lvi;
	uint64_t page = (uint64_t)jint(hinfo, "page_size", 4096);
	int64_t newest = 0;
	enum lru_err rc = LRU_OK;

	if (!page)
		page = 4096;
	s->page_size = (uint32_t)page;
	if (lru_strdup_into(&s->host.host, host, err) ||
	    lru_strdup_into(&s->host.kernel, hinfo ? jstr(hinfo, "kernel") : NULL, err)) {
		free(pts);
		return LRU_ENOMEM;
	}
	s->host.enabled = (uint32_t)jint(hinfo, "lru_gen_enabled", 0);
	s->host.warnings = jwarnings(hinfo, true);
	if (n > 1)	/* pts is NULL when the answer has no points */
		qsort(pts, n, sizeof(*pts), cmp_point);
	while (!rc && i < n) {
		/* points are sorted by path: a known memcg is the last one added */
		const struct lru_memcg *m = s->nr_memcgs &&
			!strcmp(s->memcgs[s->nr_memcgs - 1].path, pts[i].memcg) ?
			&s->memcgs[s->nr_memcgs - 1] : NULL;
		struct lru_lruvec *lv;
		unsigned g, k;

		/* the run of this lruvec's latest read: same memcg, node, taken_ms */
		for (j = i; j < n && !strcmp(pts[j].memcg, pts[i].memcg) && pts[j].node == pts[i].node &&
			    pts[j].taken_ms == pts[i].taken_ms; j++)
			;
		if (m) {
			mc = (size_t)(m - s->memcgs);
		} else {
			rc = lru_snapshot_add_memcg(s, pts[i].memcg_id, pts[i].memcg,
						    strlen(pts[i].memcg), &mc, err);
			if (rc)
				break;
			s->memcgs[mc].ino = pts[i].ino;
		}
		rc = lru_snapshot_add_lruvec(s, mc, pts[i].node, &lvi, err);
		if (rc)
			break;
		lv = &s->lruvecs[lvi];
		lv->warnings = pts[i].warnings;
		/* the youngest LRU_MAX_GENS, ascending birth */
		k = (unsigned)(j - i > LRU_MAX_GENS ? j - i - LRU_MAX_GENS : 0);
		for (g = 0; i + k < j; k++, g++) {
			const struct point *p = &pts[i + k];
			int64_t age = pts[i].taken_ms - p->birth_ms;

			lv->gens[g].seq = p->seq >= 0 ? (uint64_t)p->seq : (uint64_t)g + 1;
			lv->gens[g].birth_ms = p->birth_ms;
			lv->gens[g].age_ms = age < 0 ? 0 : age > UINT32_MAX ? UINT32_MAX : (uint32_t)age;
			lv->gens[g].pages[LRU_ANON] = (p->anon + page - 1) / page;
			lv->gens[g].pages[LRU_FILE] = (p->file + page - 1) / page;
		}
		lv->nr_gens = g;
		if (pts[i].taken_ms > newest)
			newest = pts[i].taken_ms;
		/* skip older reads of the same lruvec */
		for (i = j; i < n && !strcmp(pts[i].memcg, pts[j - 1].memcg) &&
			    pts[i].node == pts[j - 1].node; i++)
			;
	}
	free(pts);
	s->read_start_ms = s->read_end_ms = newest ? newest : now_ms;
	return rc;
}

static void drop_snaps(struct fleet *f)
{
	size_t i;

	for (i = 0; i < f->nr_snaps; i++)
		lru_snapshot_release(&f->snaps[i]);
	free(f->snaps);
	free(f->ptrs);
	f->snaps = NULL;
	f->ptrs = NULL;
	f->nr_snaps = 0;
}

static void url_escape(CURL *c, const char *s, char *buf, size_t size)
{
	char *e = curl_easy_escape(c, s, 0);

	snprintf(buf, size, "%s", e ? e : "");
	curl_free(e);
}

static enum lru_err fleet_load(struct fleet *f, struct lru_error *err)
{
	json_t *hosts_doc, *hosts, *h, *tl;
	struct lru_snapshot *snaps;
	char path[1024], esc[512];
	int64_t store_now;
	enum lru_err rc = LRU_OK;
	size_t i, n;

	rc = get_json(f, "/v1/hosts", &hosts_doc, err);
	if (rc)
		return rc;
	hosts = json_object_get(hosts_doc, "hosts");
	store_now = jint(hosts_doc, "now_ms", lru_now_ms());
	n = json_array_size(hosts);
	snaps = calloc(n ? n : 1, sizeof(*snaps));
	if (!snaps) {
		json_decref(hosts_doc);
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	json_array_foreach(hosts, i, h) {
		const char *name = jstr(h, "host");
		int64_t seen = jint(h, "last_seen_ms", 0), now_ms;

		lru_snapshot_init(&snaps[i]);
		if (!name || !seen)
			continue;	/* no snapshot of it is kept */
		url_escape(f->curl, name, esc, sizeof(esc));
		/* just back to its last snapshot: the current state, nothing more
		 * (in one page: the largest the store gives, 50,000 lruvecs) */
		snprintf(path, sizeof(path), "/v1/timeline?host=%s&limit=200000&since=%llums", esc,
			 (unsigned long long)(store_now > seen ? store_now - seen + 1000 : 1000));
		rc = get_json(f, path, &tl, err);
		if (rc)
			break;
		now_ms = jint(tl, "now_ms", store_now);
		rc = host_snapshot(name, h, tl, now_ms, &snaps[i], err);
		if (now_ms > f->now_ms)
			f->now_ms = now_ms;
		json_decref(tl);
		if (rc)
			break;
	}
	json_decref(hosts_doc);
	if (rc) {
		for (i = 0; i < n; i++)
			lru_snapshot_release(&snaps[i]);
		free(snaps);
		return rc;
	}
	drop_snaps(f);
	f->snaps = snaps;
	f->nr_snaps = n;
	f->ptrs = calloc(n ? n : 1, sizeof(*f->ptrs));
	if (!f->ptrs)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		f->ptrs[i] = &f->snaps[i];
	return LRU_OK;
}

static enum lru_err fleet_fetch(struct top_source *src, struct top_frame *frame,
				struct lru_error *err)
{
	struct fleet *f = (struct fleet *)src;
	enum lru_err rc;

	f->now_ms = 0;
	rc = fleet_load(f, err);
	if (!f->now_ms)
		f->now_ms = lru_now_ms();
	frame->snaps = f->ptrs;
	frame->nr = f->nr_snaps;
	frame->now_ms = f->now_ms;
	frame->index = frame->count = 0;
	return rc;
}

static void fleet_free(struct top_source *src)
{
	struct fleet *f = (struct fleet *)src;

	drop_snaps(f);
	if (f->curl)
		curl_easy_cleanup(f->curl);
	curl_global_cleanup();
	free(f);
}

static const struct top_source_ops fleet_ops = {
	.fetch = fleet_fetch,
	.step = NULL,
	.free = fleet_free,
};

enum lru_err top_source_fleet_open(const struct top_source_opts *opts, struct top_source **out,
				   struct lru_error *err)
{
	struct fleet *f;
	size_t len = strlen(opts->store);

	if (strncmp(opts->store, "http://", 7) && strncmp(opts->store, "https://", 8))
		return lru_fail(err, LRU_EINVAL, "--store '%s' is not an http:// or https:// URL",
				opts->store);
	if (len >= sizeof(f->url))
		return lru_fail(err, LRU_EINVAL, "--store URL is too long");
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return lru_fail(err, LRU_EIO, "cannot initialise libcurl");
	f = calloc(1, sizeof(*f));
	if (!f || !(f->curl = curl_easy_init())) {
		free(f);
		curl_global_cleanup();
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	f->base.ops = &fleet_ops;
	f->base.kind = TOP_SRC_FLEET;
	memcpy(f->url, opts->store, len + 1);
	while (len && f->url[len - 1] == '/')
		f->url[--len] = '\0';
	if (opts->token && opts->token[0])
		snprintf(f->auth, sizeof(f->auth), "Authorization: Bearer %s", opts->token);
	snprintf(f->base.label, sizeof(f->base.label), "fleet %.240s", f->url);
	*out = &f->base;
	return LRU_OK;
}
