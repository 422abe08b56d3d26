/*
 * source.h - where lrugen-top's snapshots come from: one interface, four
 * backends.
 *
 *	local	the running kernel under / (lru_iface.h: each memcg's memory.lru_gen
 *		or debugfs lru_gen, chosen once when the source opens)
 *	root	a fixture tree (--root DIR): the same reads under DIR
 *	replay	a SnapshotBatch file or a collector spool directory (--replay)
 *	fleet	a store's JSON query API (--store URL)
 *
 * A fetch fills a struct top_frame: one snapshot per host and the frame's
 * 'now'. The snapshots belong to the source and stay valid until the next
 * fetch or step. A failed fetch of a live source keeps the previous frame
 * and says why in err (a soft error for the status bar).
 */
#ifndef TOP_SOURCE_H
#define TOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_advise.h"
#include "lru_err.h"
#include "lru_iface.h"
#include "lru_model.h"

enum top_source_kind { TOP_SRC_LOCAL, TOP_SRC_ROOT, TOP_SRC_REPLAY, TOP_SRC_FLEET };

struct top_frame {
	const struct lru_snapshot *const *snaps;	/* one per host, owned by the source */
	size_t nr;
	int64_t now_ms;		/* the frame's 'now' on the wall clock */
	size_t index, count;	/* replay: frame index and frame count; else 0, 0 */
	/* fleet: the jobs the store advises a threshold for, sorted by path
	   (owned by the source, like snaps); else NULL, 0 */
	const struct lru_advice *advice;
	size_t nr_advice;
};

struct top_source;

struct top_source_ops {
	/* Read (live) or return (replay) the current frame. */
	enum lru_err (*fetch)(struct top_source *src, struct top_frame *frame,
			      struct lru_error *err);
	/* Replay: move delta frames (clamped); false when nothing moved. NULL elsewhere. */
	bool (*step)(struct top_source *src, long delta);
	void (*free)(struct top_source *src);
};

struct top_source {
	const struct top_source_ops *ops;
	enum top_source_kind kind;
	char label[256];	/* for the header: "root /tmp/r", "fleet http://..." */
	const char *root;	/* local/root: where commands go (NULL = /) */
	/* local/root, after a fetch: the interface read (LRU_IFACE_AUTO: none,
	   replay and fleet; a replay's header shows its snapshots' source) and why the root memcg was left out ("" if it was not) */
	enum lru_iface_mode iface;
	char note[LRU_ERRMSG_MAX];
};

/* What each backend needs to start; unused fields stay zero. */
struct top_source_opts {
	const char *root;		/* --root DIR */
	const char *replay;		/* --replay FILE|DIR */
	const char *store;		/* --store URL */
	const char *token;		/* bearer token for the store, or NULL */
	const char *memcg_glob;		/* --memcg-glob: the store's memcg_glob, or NULL */
	bool basic;			/* read lru_gen, not lru_gen_full */
	enum lru_iface_mode iface;	/* --interface or $LRUGEN_INTERFACE */
};

/*
 * Open the backend the options name (store > replay > root > local). A
 * replay file is read whole here: its errors are returned, not deferred.
 */
enum lru_err top_source_open(const struct top_source_opts *opts, struct top_source **out,
			     struct lru_error *err);

static inline enum lru_err top_source_fetch(struct top_source *src, struct top_frame *frame,
					    struct lru_error *err)
{
	return src->ops->fetch(src, frame, err);
}

static inline bool top_source_step(struct top_source *src, long delta)
{
	return src->ops->step ? src->ops->step(src, delta) : false;
}

static inline void top_source_free(struct top_source *src)
{
	if (src)
		src->ops->free(src);
}

/* The backends (source.c, replay.c, fleet.c). */
enum lru_err top_source_live_open(const struct top_source_opts *opts, struct top_source **out,
				  struct lru_error *err);
enum lru_err top_source_replay_open(const struct top_source_opts *opts,
				    struct top_source **out, struct lru_error *err);
enum lru_err top_source_fleet_open(const struct top_source_opts *opts, struct top_source **out,
				   struct lru_error *err);

/*
 * The kernel file that takes lv's commands, as lru_kwrite_open_lruvec()
 * picks it, relative to the root: "/sys/fs/cgroup/PATH/memory.lru_gen" for
 * a memcg read through memory.lru_gen, else "/sys/kernel/debug/lru_gen".
 */
const char *top_source_cmd_file(const struct lru_snapshot *snap, const struct lru_lruvec *lv,
				char *buf, size_t size);

/*
 * Why commands cannot be written through this source, or NULL when they can.
 * Replay and fleet never write; under --root, file (from top_source_cmd_file;
 * NULL: debugfs lru_gen) must not be a regular file: that is a fixture's copy,
 * while a FIFO or device a test puts there takes the commands. buf holds the
 * text.
 */
const char *top_source_readonly_why(const struct top_source *src, const char *file, char *buf,
				    size_t size);

#endif
