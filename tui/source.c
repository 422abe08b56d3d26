/* source.c - the backend dispatcher and the live backends (local kernel, --root DIR). */
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lru_sys.h"
#include "lru_warn.h"

struct live {
	struct top_source base;
	bool basic;			/* debugfs: read lru_gen only */
	struct lru_iface ifc;		/* chosen once, at open */
	bool have;			/* cur holds a snapshot */
	struct lru_snapshot cur;
	const struct lru_snapshot *ptr;
};

/*
 * Read the generations through the interface chosen at open: each memcg's
 * memory.lru_gen (no tier counters), or debugfs lru_gen_full (tiers for the
 * details pane) falling back to lru_gen where it is missing or closed; then
 * host, node and per-memcg stats, into an empty snapshot, and the accuracy
 * warnings a running DAMON monitor calls for (lru_warn.h), as lrugen does.
 */
static enum lru_err live_read(struct live *l, struct lru_snapshot *snap, struct lru_error *err)
{
	const char *root = l->base.root;
	bool cgroup = l->ifc.used == LRU_IFACE_CGROUP;
	enum lru_err rc;
	size_t i;

	l->ifc.full = !cgroup && !l->basic;
	rc = lru_iface_read(&l->ifc, root, snap, err);
	if (l->ifc.full && (rc == LRU_ENOENT || rc == LRU_EACCES)) {
		lru_snapshot_release(snap);
		lru_snapshot_init(snap);
		l->ifc.full = false;
		rc = lru_iface_read(&l->ifc, root, snap, err);
	}
	if (rc)
		return rc;
	rc = lru_sys_read_host(root, snap, err);
	if (!rc)
		rc = lru_sys_read_nodes(root, snap, err);
	if (rc)
		return rc;
	if (!cgroup)	/* the cgroup walk set them */
		lru_sys_fill_inodes(root, NULL, snap);
	for (i = 0; i < snap->nr_memcgs; i++)
		lru_sys_read_memcg_stats(root, &snap->memcgs[i]);
	lru_warn_read_apply(root, snap, NULL);
	l->base.iface = l->ifc.used;
	snprintf(l->base.note, sizeof(l->base.note), "%s", l->ifc.root_note);
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
	frame->advice = NULL;
	frame->nr_advice = 0;
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
	enum lru_err rc;

	if (!l)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	l->base.ops = &live_ops;
	l->base.kind = opts->root ? TOP_SRC_ROOT : TOP_SRC_LOCAL;
	l->base.root = opts->root;
	l->basic = opts->basic;
	/* once, as the CLI does: auto looks for memory.lru_gen below the root */
	rc = lru_iface_select(&l->ifc, opts->root, opts->iface, false, err);
	if (rc) {
		free(l);
		return rc;
	}
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

const char *top_source_cmd_file(const struct lru_snapshot *snap, const struct lru_lruvec *lv,
				char *buf, size_t size)
{
	const struct lru_memcg *m = lru_lruvec_memcg(snap, lv);

	if (lru_memcg_uses_cgroup(snap, m))
		snprintf(buf, size, "%s%s/%s", LRU_PATH_CGROUP, m->path, LRU_CGROUP_LRU_GEN);
	else
		snprintf(buf, size, "%s", LRU_PATH_LRU_GEN);
	return buf;
}

const char *top_source_readonly_why(const struct top_source *src, const char *file, char *buf,
				    size_t size)
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
		if (!file)
			file = LRU_PATH_LRU_GEN;
		if (lru_sys_path(src->root, file, path, sizeof(path), NULL))
			path[0] = '\0';
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			snprintf(buf, size, "'%s' is a regular file, not %s (a fixture root): "
				 "commands are disabled", path,
				 strcmp(file, LRU_PATH_LRU_GEN) ? "cgroupfs" : "debugfs");
			return buf;
		}
		return NULL;
	case TOP_SRC_LOCAL:
		break;
	}
	return NULL;
}
