/*
 * fleet.c - the fleet backend: lrugen-store's latest snapshots, one request
 * a frame (lru_client.h).
 *
 * Each fetch asks (with "Authorization: Bearer TOKEN" when a token is set)
 *
 *	GET {store}/v1/latest		Accept: application/x-protobuf
 *
 * and decodes the SnapshotBatch it answers (lru_pb.h, within
 * FLEET_MAX_MEM), as a replay does: the latest snapshot of every host the
 * store keeps raw rows of, so everything after this file treats the fleet
 * like one big host list. What the store does not keep (lru_gen_full
 * detail, aging settings, memcg stats) is absent. The frame's clock is this
 * machine's. An answer that fails keeps the last frame's data (the error
 * goes to the status bar).
 */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_client.h"
#include "lru_pb.h"

#define FLEET_MAX_BODY (64u << 20)
#define FLEET_MAX_MEM (1024u << 20)

struct fleet {
	struct top_source base;
	struct lru_client *client;
	struct lru_snapshot *snaps;
	size_t nr_snaps;
	const struct lru_snapshot **ptrs;
};

static void drop_snaps(struct fleet *f)
{
	lru_pb_free_snapshots(f->snaps, f->nr_snaps);
	free(f->ptrs);
	f->snaps = NULL;
	f->ptrs = NULL;
	f->nr_snaps = 0;
}

static enum lru_err fleet_load(struct fleet *f, struct lru_error *err)
{
	static const struct lru_client_req rq = {
		.route = LRU_ROUTE_LATEST, .accept = "application/x-protobuf",
	};
	struct lru_client_resp resp;
	const struct lru_snapshot **ptrs;
	char why[LRU_ERRMSG_MAX];
	struct lru_snapshot *snaps;
	size_t n, mem;
	enum lru_err rc;

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
	lru_client_resp_release(&resp);
	if (rc)
		return rc;
	ptrs = calloc(n ? n : 1, sizeof(*ptrs));
	if (!ptrs) {
		lru_pb_free_snapshots(snaps, n);
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	drop_snaps(f);
	f->snaps = snaps;
	f->nr_snaps = n;
	f->ptrs = ptrs;
	for (size_t i = 0; i < n; i++)
		f->ptrs[i] = &f->snaps[i];
	return LRU_OK;
}

static enum lru_err fleet_fetch(struct top_source *src, struct top_frame *frame,
				struct lru_error *err)
{
	struct fleet *f = (struct fleet *)src;
	enum lru_err rc = fleet_load(f, err);

	frame->snaps = f->ptrs;
	frame->nr = f->nr_snaps;
	frame->now_ms = lru_now_ms();
	frame->index = frame->count = 0;
	return rc;
}

static void fleet_free(struct top_source *src)
{
	struct fleet *f = (struct fleet *)src;

	drop_snaps(f);
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
		.connect_timeout_ms = 1500, .timeout_ms = 5000, .max_body = FLEET_MAX_BODY,
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
	snprintf(f->base.label, sizeof(f->base.label), "fleet %.240s", lru_client_url(f->client));
	*out = &f->base;
	return LRU_OK;
}
