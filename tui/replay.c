/*
 * replay.c - the replay backend: a SnapshotBatch file (lrugend --once
 * --output FILE) or a collector spool directory, stepped through in time.
 *
 * Every snapshot is loaded at open. Frames are the distinct read times
 * (HostSnapshot.taken_at_ms, the read midpoint) in ascending order; frame k
 * shows, for each host, its latest snapshot taken at or before time k, so a
 * fleet recording steps host by host. lru_record.h reads the file or the
 * spool (a private copy of it: lrugend may be running).
 */
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lru_pb.h"
#include "lru_record.h"
#include "lru_sat.h"

struct replay {
	struct top_source base;
	struct lru_snapshot *snaps;	/* every snapshot, sorted by read time */
	size_t nr_snaps, alloc_snaps;
	const struct lru_snapshot **frames; /* nr_frames x nr_hosts pointers (NULL = none yet) */
	int64_t *times;			/* per frame */
	size_t nr_frames, nr_hosts;
	size_t cur;
	const struct lru_snapshot **shown; /* the current frame without NULLs */
};

static int64_t read_mid(const struct lru_snapshot *s)
{
	return lru_sat_mid_i64(s->read_start_ms, s->read_end_ms);
}

/* A recording's batch (lru_record_each): decoded, its snapshots taken. */
static enum lru_err load_buf(void *arg, const uint8_t *buf, size_t len, const char *what,
			     struct lru_error *err)
{
	struct replay *r = arg;
	struct lru_snapshot *snaps;
	enum lru_err rc;
	size_t n;

	rc = lru_pb_decode_batch(buf, len, &snaps, &n, err);
	if (rc) {
		char msg[LRU_ERRMSG_MAX];

		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		return lru_fail(err, rc, "%s: %s", what, msg);
	}
	return lru_snapshots_append(&r->snaps, &r->nr_snaps, &r->alloc_snaps, snaps, n, err);
}

static int cmp_time(const void *a, const void *b)
{
	int64_t x = read_mid(a), y = read_mid(b);

	return (x > y) - (x < y);
}

static const char *host_of(const struct lru_snapshot *s)
{
	return s->host.host ? s->host.host : "";
}

/* Frames: distinct read times; per host the latest snapshot at or before each. */
static enum lru_err build_frames(struct replay *r, struct lru_error *err)
{
	const char **hosts;
	size_t *host_of_snap, i, j, f;

	qsort(r->snaps, r->nr_snaps, sizeof(*r->snaps), cmp_time);
	hosts = calloc(r->nr_snaps, sizeof(*hosts));
	host_of_snap = calloc(r->nr_snaps, sizeof(*host_of_snap));
	r->times = calloc(r->nr_snaps, sizeof(*r->times));
	if (!hosts || !host_of_snap || !r->times)
		goto nomem;
	for (i = 0; i < r->nr_snaps; i++) {
		for (j = 0; j < r->nr_hosts; j++)
			if (!strcmp(hosts[j], host_of(&r->snaps[i])))
				break;
		if (j == r->nr_hosts)
			hosts[r->nr_hosts++] = host_of(&r->snaps[i]);
		host_of_snap[i] = j;
		if (!r->nr_frames || r->times[r->nr_frames - 1] != read_mid(&r->snaps[i]))
			r->times[r->nr_frames++] = read_mid(&r->snaps[i]);
	}
	r->frames = calloc(r->nr_frames * r->nr_hosts, sizeof(*r->frames));
	r->shown = calloc(r->nr_hosts, sizeof(*r->shown));
	if (!r->frames || !r->shown)
		goto nomem;
	for (i = 0, f = 0; f < r->nr_frames; f++) {
		const struct lru_snapshot **row = r->frames + f * r->nr_hosts;

		if (f)
			memcpy(row, row - r->nr_hosts, r->nr_hosts * sizeof(*row));
		for (; i < r->nr_snaps && read_mid(&r->snaps[i]) == r->times[f]; i++)
			row[host_of_snap[i]] = &r->snaps[i];
	}
	free(hosts);
	free(host_of_snap);
	return LRU_OK;
nomem:
	free(hosts);
	free(host_of_snap);
	return lru_fail(err, LRU_ENOMEM, "out of memory");
}

static enum lru_err replay_fetch(struct top_source *src, struct top_frame *frame,
				 struct lru_error *err)
{
	struct replay *r = (struct replay *)src;
	const struct lru_snapshot **row = r->frames + r->cur * r->nr_hosts;
	size_t i, n = 0;

	(void)err;
	for (i = 0; i < r->nr_hosts; i++)
		if (row[i])
			r->shown[n++] = row[i];
	frame->snaps = r->shown;
	frame->nr = n;
	frame->advice = NULL;
	frame->nr_advice = 0;
	frame->now_ms = r->times[r->cur];
	frame->index = r->cur;
	frame->count = r->nr_frames;
	return LRU_OK;
}

static bool replay_step(struct top_source *src, long delta)
{
	struct replay *r = (struct replay *)src;
	long to = (long)r->cur + delta;

	if (to < 0)
		to = 0;
	if (to >= (long)r->nr_frames)
		to = (long)r->nr_frames - 1;
	if ((size_t)to == r->cur)
		return false;
	r->cur = (size_t)to;
	return true;
}

static void replay_free(struct top_source *src)
{
	struct replay *r = (struct replay *)src;
	size_t i;

	for (i = 0; i < r->nr_snaps; i++)
		lru_snapshot_release(&r->snaps[i]);
	free(r->snaps);
	free(r->frames);
	free(r->times);
	free(r->shown);
	free(r);
}

static const struct top_source_ops replay_ops = {
	.fetch = replay_fetch,
	.step = replay_step,
	.free = replay_free,
};

enum lru_err top_source_replay_open(const struct top_source_opts *opts,
				    struct top_source **out, struct lru_error *err)
{
	struct replay *r = calloc(1, sizeof(*r));
	struct stat st;
	enum lru_err rc;
	bool spool;

	if (!r)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	r->base.ops = &replay_ops;
	r->base.kind = TOP_SRC_REPLAY;
	if (stat(opts->replay, &st)) {
		rc = lru_fail(err, LRU_ENOENT, "cannot open '%s': %s", opts->replay,
			      strerror(errno));
		goto fail;
	}
	spool = lru_record_is_spool(opts->replay);
	rc = lru_record_each(opts->replay, load_buf, r, NULL, err);
	if (rc)
		goto fail;
	if (!r->nr_snaps) {
		rc = lru_fail(err, LRU_ENOENT, "'%s' holds no snapshots%s", opts->replay,
			      spool ? ": a spool keeps only what the store has not acknowledged "
				      "yet (to record, run lrugend --once --output FILE)" : "");
		goto fail;
	}
	rc = build_frames(r, err);
	if (rc)
		goto fail;
	r->cur = r->nr_frames - 1;
	snprintf(r->base.label, sizeof(r->base.label), "replay %s%s", opts->replay,
		 spool ? " (spool)" : "");
	*out = &r->base;
	return LRU_OK;
fail:
	replay_free(&r->base);
	return rc;
}
