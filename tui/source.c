/* source.c - the backend dispatcher and the live backends (local kernel, --root DIR). */
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lru_sys.h"

struct live {
	struct top_source base;
	bool basic;			/* read lru_gen only */
	bool have;			/* cur holds a snapshot */
	struct lru_snapshot cur;
	const struct lru_snapshot *ptr;
};

/*
 * Read lru_gen_full (tiers for the details pane) or, where it is missing,
 * lru_gen; then host, node and per-memcg stats into an empty snapshot.
 */
static enum lru_err live_read(struct live *l, struct lru_snapshot *snap, struct lru_error *err)
{
	const char *root = l->base.root;
	enum lru_err rc = LRU_ENOENT;
	size_t i;

	if (!l->basic) {
		rc = lru_sys_read_snapshot(root, LRU_SRC_DEBUGFS_FULL, snap, err);
		if (rc == LRU_ENOENT || rc == LRU_EACCES) {
			lru_snapshot_release(snap);
			lru_snapshot_init(snap);
		}
	}
	if (l->basic || rc == LRU_ENOENT || rc == LRU_EACCES)
		rc = lru_sys_read_snapshot(root, LRU_SRC_DEBUGFS, snap, err);
	if (rc)
		return rc;
	rc = lru_sys_read_host(root, snap, err);
	if (!rc)
		rc = lru_sys_read_nodes(root, snap, err);
	if (rc)
		return rc;
	lru_sys_fill_inodes(root, NULL, snap);
	for (i = 0; i < snap->nr_memcgs; i++)
		lru_sys_read_memcg_stats(root, &snap->memcgs[i]);
	return LRU_OK;
}

static enum lru_err live_fetch(struct top_source *src, struct top_frame *frame,
			       struct lru_error *err)
{
	struct live *l = (struct live *)src;
	struct lru_snapshot next;
	enum lru_err rc;

	lru_snapshot_init(&next);
	rc = live_read(l, &next, err);
	if (rc) {
		lru_snapshot_release(&next);
		if (!l->have)
			return rc;
	} else {
		if (l->have)
			lru_snapshot_release(&l->cur);
		l->cur = next;
		l->have = true;
	}
	l->ptr = &l->cur;
	frame->snaps = &l->ptr;
	frame->nr = 1;
	frame->now_ms = l->cur.read_end_ms;
	frame->index = frame->count = 0;
	return rc;
}

static void live_free(struct top_source *src)
{
	struct live *l = (struct live *)src;

	if (l->have)
		lru_snapshot_release(&l->cur);
	free(l);
}

static const struct top_source_ops live_ops = {
	.fetch = live_fetch,
	.step = NULL,
	.free = live_free,
};

enum lru_err top_source_live_open(const struct top_source_opts *opts, struct top_source **out,
				  struct lru_error *err)
{
	struct live *l = calloc(1, sizeof(*l));

	if (!l)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	l->base.ops = &live_ops;
	l->base.kind = opts->root ? TOP_SRC_ROOT : TOP_SRC_LOCAL;
	l->base.root = opts->root;
	l->basic = opts->basic;
	if (opts->root)
		snprintf(l->base.label, sizeof(l->base.label), "root %s", opts->root);
	else
		snprintf(l->base.label, sizeof(l->base.label), "local");
	*out = &l->base;
	return LRU_OK;
}

enum lru_err top_source_open(const struct top_source_opts *opts, struct top_source **out,
			     struct lru_error *err)
{
	*out = NULL;
	if (opts->store)
		return top_source_fleet_open(opts, out, err);
	if (opts->replay)
		return top_source_replay_open(opts, out, err);
	return top_source_live_open(opts, out, err);
}

const char *top_source_readonly_why(const struct top_source *src, char *buf, size_t size)
{
	char path[LRU_PATH_MAX];
	struct stat st;

	switch (src->kind) {
	case TOP_SRC_REPLAY:
		snprintf(buf, size, "replay shows recorded snapshots: there is no kernel to write to");
		return buf;
	case TOP_SRC_FLEET:
		snprintf(buf, size, "fleet mode is read-only: age and evict on the host itself");
		return buf;
	case TOP_SRC_ROOT:
		if (lru_sys_path(src->root, LRU_PATH_LRU_GEN, path, sizeof(path), NULL))
			path[0] = '\0';
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			snprintf(buf, size, "'%s' is a regular file, not debugfs (a fixture root): "
				 "commands are disabled", path);
			return buf;
		}
		return NULL;
	case TOP_SRC_LOCAL:
		break;
	}
	return NULL;
}
