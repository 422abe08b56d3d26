/*
 * fleet.c - the fleet backend: lrugen-store's latest snapshots, one request
 * a frame (lru_client.h).
 *
 * Each fetch asks (with "Authorization: Bearer TOKEN" when a token is set)
 *
 *	GET {store}/v1/latest?limit=256[&after=HOST][&changed_since=MS]
 *	Accept: application/x-protobuf
 *
 * (gzipped on the wire), a page of hosts at a time until a page is short,
 * and decodes each page's SnapshotBatch alone (lru_pb.h, within
 * FLEET_MAX_MEM: protobuf-c unpacks a whole message into a tree ten times
 * its size, which for 10,000 hosts at once would not fit), as a replay does: the latest snapshot of every
 * host the store keeps raw rows of, so everything after this file treats
 * the fleet like one big host list. The first fetch takes every host; the
 * next ones only the hosts whose latest snapshot the store took since the
 * last answer's X-Lrugen-As-Of (the store's clock, less FLEET_OVERLAP_MS:
 * a write stored just before that time may become visible just after it),
 * merged into what is held by host name. A frame thus costs what changed
 * (at a 2-minute collector pace and a 2 s refresh, a sixtieth of the
 * fleet), not the whole fleet. Every FLEET_FULL_MS, and whenever the store
 * names no as-of time, a fetch takes everything again, so that hosts the
 * store no longer keeps leave the list. What the store does not keep
 * (lru_gen_full detail, aging settings, memcg stats) is absent. The frame's
 * clock is this machine's. An answer that fails keeps the last frame's
 * data (the error goes to the status bar).
 *
 * Advice: every FLEET_ADVICE_MS (and on the first frame) a fetch also asks
 * GET {store}/v1/advise[?memcg_glob=G] (JSON) for the threshold the store
 * advises each job (lru_advise.h), which the ADV and SAVE columns show. It
 * costs the store a pass over its raw snapshots, hence the slow pace. A
 * failed answer keeps the last advice, silently (advice is an extra); a
 * store without the route (404) is not asked again.
 */
#include "source.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_client.h"
#include "lru_pb.h"

/*
 * Hosts a page; a page's answer (decompressed) and what decoding it may
 * take. 256 hosts of 200 lruvecs are 6.4 MB of protobuf, whose message tree
 * takes about 55 MB while it is decoded.
 */
#define FLEET_PAGE 256u
#define FLEET_MAX_BODY (256u << 20)
#define FLEET_MAX_MEM (1024u << 20)
#define FLEET_FULL_MS (5 * 60 * 1000)
#define FLEET_ADVICE_MS (60 * 1000)

struct fleet {
	struct top_source base;
	struct lru_client *client;
	struct lru_snapshot *snaps;	/* by host name; owned */
	size_t nr_snaps;
	const struct lru_snapshot **ptrs;
	int64_t as_of_ms;		/* the last answer's store clock; 0: none */
	int64_t full_ms;		/* when the last whole fetch was (this clock) */
	const char *memcg_glob;		/* --memcg-glob (the caller's), or NULL */
	struct lru_advice *advice;	/* by path; owned */
	size_t nr_advice;
	int64_t advice_ms;		/* when advice was last asked (this clock); 0: never */
	bool no_advice;			/* the store has no /v1/advise */
};

/* Ask the store's advice when it is due; what fails keeps the last advice. */
static void fleet_advice(struct fleet *f, int64_t now)
{
	struct lru_advice *a;
	struct lru_error err;
	long status;
	size_t n;

	if (f->no_advice || (f->advice_ms && now - f->advice_ms < FLEET_ADVICE_MS))
		return;
	f->advice_ms = now;
	if (!lru_advice_get(f->client, f->memcg_glob, &a, &n, &status, &err)) {
		lru_advice_free(f->advice, f->nr_advice);
		f->advice = a;
		f->nr_advice = n;
	} else if (status == 404) {
		f->no_advice = true;
	}
}

static void drop_snaps(struct fleet *f)
{
	lru_pb_free_snapshots(f->snaps, f->nr_snaps);
	free(f->ptrs);
	f->snaps = NULL;
	f->ptrs = NULL;
	f->nr_snaps = 0;
}

static int host_cmp(const struct lru_snapshot *a, const struct lru_snapshot *b)
{
	return strcmp(a->host.host ? a->host.host : "", b->host.host ? b->host.host : "");
}

static int host_qcmp(const void *a, const void *b)
{
	return host_cmp(a, b);
}

/*
 * Merge the n snapshots of a changed-hosts answer (sorted by host name, as
 * the store sends them; their array is taken) into f's: a host's new
 * snapshot replaces its old one. The structs move, their contents stay.
 */
static enum lru_err merge(struct fleet *f, struct lru_snapshot *in, size_t n,
			  struct lru_error *err)
{
	struct lru_snapshot *out = malloc((f->nr_snaps + n ? f->nr_snaps + n : 1) * sizeof(*out));
	size_t i = 0, j = 0, k = 0;

	if (!out) {
		lru_pb_free_snapshots(in, n);
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	if (n > 1)
		qsort(in, n, sizeof(*in), host_qcmp);	/* sorted already, unless an older store */
	while (i < f->nr_snaps || j < n) {
		int c = i == f->nr_snaps ? 1 : j == n ? -1 : host_cmp(&f->snaps[i], &in[j]);

		if (c == 0)
			lru_snapshot_release(&f->snaps[i++]);
		out[k++] = c < 0 ? f->snaps[i++] : in[j++];
	}
	free(f->snaps);
	free(in);
	f->snaps = out;
	f->nr_snaps = k;
	return LRU_OK;
}

/*
 * One page of /v1/latest: FLEET_PAGE hosts after 'after' ("" first), of
 * those changed since f->as_of_ms unless whole; its snapshots appended to
 * *got (*nr, *alloc), the answer's as-of time into *as_of.
 */
static enum lru_err fleet_page(struct fleet *f, bool whole, const char *after,
			       struct lru_snapshot **got, size_t *nr, size_t *alloc,
			       size_t *page, int64_t *as_of, struct lru_error *err)
{
	char since[24], limit[24];
	const struct lru_client_param params[] = {
		{ "limit", limit }, { "after", *after ? after : NULL },
		{ "changed_since", whole ? NULL : since }, { "memcg_glob", f->memcg_glob },
	};
	const struct lru_client_req rq = {
		.route = LRU_ROUTE_LATEST, .accept = "application/x-protobuf",
		.params = params, .nr_params = sizeof(params) / sizeof(params[0]),
	};
	struct lru_client_resp resp;
	char why[LRU_ERRMSG_MAX];
	struct lru_snapshot *snaps;
	size_t n = 0, mem;
	enum lru_err rc;

	snprintf(since, sizeof(since), "%" PRId64, f->as_of_ms);
	snprintf(limit, sizeof(limit), "%u", FLEET_PAGE);
	rc = lru_client_do(f->client, &rq, &resp, err);
	if (rc == LRU_EIO)
		rc = lru_fail(err, LRU_EIO, "store unreachable, retrying (%s)", resp.detail);
	if (!rc && (rc = lru_client_check(&resp, err)) && rc != LRU_EACCES) {
		snprintf(why, sizeof(why), "%s", err->msg);
		rc = lru_fail(err, LRU_EIO, "%s, retrying", why);
	}
	if (!rc && (rc = lru_pb_decode_batch_max(resp.body.data, resp.body.len, FLEET_MAX_MEM,
						 &snaps, &n, &mem, err))) {
		snprintf(why, sizeof(why), "%s", err->msg);
		rc = lru_fail(err, rc, "store: GET /v1/latest: %s", why);
	}
	*as_of = resp.as_of_ms;
	lru_client_resp_release(&resp);
	*page = n;
	return rc ? rc : lru_snapshots_append(got, nr, alloc, snaps, n, err);
}

static enum lru_err fleet_load(struct fleet *f, struct lru_error *err)
{
	int64_t now = lru_now_ms(), as_of = 0, page_as_of;
	bool whole = f->as_of_ms <= 0 || now - f->full_ms >= FLEET_FULL_MS;
	const struct lru_snapshot **ptrs;
	struct lru_snapshot *got = NULL;
	size_t nr = 0, alloc = 0, page = 0;
	char after[1024] = "";
	enum lru_err rc;

	do {
		rc = fleet_page(f, whole, after, &got, &nr, &alloc, &page, &page_as_of, err);
		if (!as_of)
			as_of = page_as_of;	/* the first page's: the earliest */
		if (!rc && page == FLEET_PAGE) {
			const char *last = got[nr - 1].host.host;

			if (!last || strlen(last) >= sizeof(after) || !strcmp(last, after)) {
				rc = lru_fail(err, LRU_EPROTO, "store: GET /v1/latest: the pages "
					      "do not move on (host '%.64s')", last ? last : "");
				break;
			}
			strcpy(after, last);
		}
	} while (!rc && page == FLEET_PAGE);
	if (rc) {
		lru_pb_free_snapshots(got, nr);
		return rc;
	}
	f->as_of_ms = as_of;
	if (whole) {
		f->full_ms = now;
		drop_snaps(f);
	}
	/* room for every pointer first: a failure leaves the frame as it was */
	ptrs = realloc(f->ptrs, (f->nr_snaps + nr ? f->nr_snaps + nr : 1) * sizeof(*ptrs));
	if (!ptrs) {
		lru_pb_free_snapshots(got, nr);
		f->as_of_ms = 0;
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	f->ptrs = ptrs;
	if ((rc = merge(f, got, nr, err))) {
		f->as_of_ms = 0;
		return rc;
	}
	for (size_t i = 0; i < f->nr_snaps; i++)
		f->ptrs[i] = &f->snaps[i];
	return LRU_OK;
}

static enum lru_err fleet_fetch(struct top_source *src, struct top_frame *frame,
				struct lru_error *err)
{
	struct fleet *f = (struct fleet *)src;
	enum lru_err rc = fleet_load(f, err);

	if (!rc)
		fleet_advice(f, lru_now_ms());
	frame->snaps = f->ptrs;
	frame->nr = f->nr_snaps;
	frame->now_ms = lru_now_ms();
	frame->index = frame->count = 0;
	frame->advice = f->advice;
	frame->nr_advice = f->nr_advice;
	return rc;
}

static void fleet_free(struct top_source *src)
{
	struct fleet *f = (struct fleet *)src;

	drop_snaps(f);
	lru_advice_free(f->advice, f->nr_advice);
	lru_client_free(f->client);
	lru_client_global_cleanup();
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
	const struct lru_client_opts co = {
		.url = opts->store, .token = opts->token, .agent = "lrugen-top/" LRUGEN_VERSION,
		.connect_timeout_ms = 1500, .timeout_ms = 60000, .max_body = FLEET_MAX_BODY,
	};
	struct fleet *f;
	enum lru_err rc;

	if (strncmp(opts->store, "http://", 7) && strncmp(opts->store, "https://", 8))
		return lru_fail(err, LRU_EINVAL, "--store '%s' is not an http:// or https:// URL",
				opts->store);
	if (strlen(opts->store) >= 1024)
		return lru_fail(err, LRU_EINVAL, "--store URL is too long");
	rc = lru_client_global_init(err);
	if (rc)
		return rc;
	f = calloc(1, sizeof(*f));
	if (!f) {
		lru_client_global_cleanup();
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	rc = lru_client_new(&co, &f->client, err);
	if (rc) {
		free(f);
		lru_client_global_cleanup();
		return rc;
	}
	f->base.ops = &fleet_ops;
	f->base.kind = TOP_SRC_FLEET;
	f->memcg_glob = opts->memcg_glob;
	snprintf(f->base.label, sizeof(f->base.label), "fleet %.180s%s%.60s", lru_client_url(f->client),
		 f->memcg_glob ? " memcgs " : "", f->memcg_glob ? f->memcg_glob : "");
	*out = &f->base;
	return LRU_OK;
}
