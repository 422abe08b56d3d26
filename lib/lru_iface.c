#include "lru_iface.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lru_cgparse.h"
#include "lru_sat.h"
#include "lru_sys.h"

/* largest memory.lru_gen accepted: 4 generations x 1024 nodes of ~100 bytes */
#define CG_FILE_MAX (1u << 20)

static const char *const mode_names[LRU_IFACE_NR] = {
	[LRU_IFACE_AUTO] = "auto",
	[LRU_IFACE_CGROUP] = "cgroup",
	[LRU_IFACE_DEBUGFS] = "debugfs",
};

enum lru_err lru_iface_mode_parse(const char *name, enum lru_iface_mode *mode,
				  struct lru_error *err)
{
	int m;

	if (!name || !name[0]) {
		*mode = LRU_IFACE_AUTO;
		return LRU_OK;
	}
	for (m = 0; m < LRU_IFACE_NR; m++) {
		if (!strcmp(name, mode_names[m])) {
			*mode = (enum lru_iface_mode)m;
			return LRU_OK;
		}
	}
	return lru_fail(err, LRU_EINVAL, "interface '%s' is not auto, cgroup or debugfs", name);
}

const char *lru_iface_mode_name(enum lru_iface_mode mode)
{
	return (unsigned)mode < LRU_IFACE_NR ? mode_names[mode] : "unknown";
}

/*
 * Walk state: dir is the directory of the memcg at path (the root's: ""),
 * both grown and cut back in place as the walk descends.
 */
struct walk {
	const char *root;
	char dir[LRU_PATH_MAX];
	char path[LRU_PATH_MAX];
	size_t dlen, plen;
};

static int only_dirs(const struct dirent *de)
{
	if (de->d_name[0] == '.')
		return 0;
	return de->d_type == DT_DIR || de->d_type == DT_UNKNOWN;
}

/* Descend into child name; false if the paths would not fit. */
static bool push(struct walk *w, const char *name)
{
	size_t n = strlen(name);

	if (w->dlen + n + 2 > sizeof(w->dir) || w->plen + n + 2 > sizeof(w->path))
		return false;
	w->dir[w->dlen++] = '/';
	memcpy(w->dir + w->dlen, name, n + 1);
	w->dlen += n;
	w->path[w->plen++] = '/';
	memcpy(w->path + w->plen, name, n + 1);
	w->plen += n;
	return true;
}

static void pop(struct walk *w, size_t dlen, size_t plen)
{
	w->dlen = dlen;
	w->dir[dlen] = '\0';
	w->plen = plen;
	w->path[plen] = '\0';
}

/* Does the memcg at w->path have memory.lru_gen? */
static bool has_file(const struct walk *w)
{
	char file[LRU_PATH_MAX + 32];
	struct stat st;

	snprintf(file, sizeof(file), "%s/%s", w->dir, LRU_CGROUP_LRU_GEN);
	return !stat(file, &st) && S_ISREG(st.st_mode);
}

/*
 * Visit every memcg below w's current one, depth first, siblings by name:
 * visit() returns LRU_OK to go on, anything else stops the walk (returned).
 * LRU_ERR_COUNT is a stop that is not an error.
 */
static enum lru_err walk_below(struct walk *w,
			       enum lru_err (*visit)(struct walk *w, void *arg), void *arg)
{
	struct dirent **list = NULL;
	size_t dlen = w->dlen, plen = w->plen;
	enum lru_err rc = LRU_OK;
	int n, i;

	n = scandir(w->dir, &list, only_dirs, alphasort);
	for (i = 0; i < n; i++) {
		struct stat st;

		if (!rc && push(w, list[i]->d_name)) {
			if (!stat(w->dir, &st) && S_ISDIR(st.st_mode)) {
				rc = visit(w, arg);
				if (!rc)
					rc = walk_below(w, visit, arg);
			}
			pop(w, dlen, plen);
		}
		free(list[i]);
	}
	free(list);
	return rc;
}

static enum lru_err walk_start(struct walk *w, const char *root, struct lru_error *err)
{
	enum lru_err rc = lru_sys_path(root, LRU_PATH_CGROUP, w->dir, sizeof(w->dir), err);

	w->root = root;
	w->dlen = strlen(w->dir);
	w->path[0] = '\0';
	w->plen = 0;
	return rc;
}

static enum lru_err find_first(struct walk *w, void *arg)
{
	char *example = arg;

	if (!has_file(w))
		return LRU_OK;
	snprintf(example, LRU_PATH_MAX, "%s", w->path);
	return LRU_ERR_COUNT;
}

enum lru_err lru_iface_select(struct lru_iface *ifc, const char *root, enum lru_iface_mode mode,
			      bool full, struct lru_error *err)
{
	struct walk w;
	bool found;
	enum lru_err rc;

	memset(ifc, 0, sizeof(*ifc));
	ifc->wanted = mode;
	ifc->full = full;
	if (mode == LRU_IFACE_DEBUGFS) {
		ifc->used = LRU_IFACE_DEBUGFS;
		snprintf(ifc->why, sizeof(ifc->why), "debugfs asked for (%s or --interface)",
			 LRU_IFACE_ENV);
		return LRU_OK;
	}
	rc = walk_start(&w, root, err);
	if (rc)
		return rc;
	found = walk_below(&w, find_first, ifc->example) == LRU_ERR_COUNT;
	if (mode == LRU_IFACE_CGROUP && !found)
		return lru_fail(err, LRU_ENOENT,
				"interface 'cgroup': no memcg below '%s' has %s (a kernel without the "
				"lrugen series, or no memory controller in cgroup.subtree_control)",
				w.dir, LRU_CGROUP_LRU_GEN);
	if (full && mode == LRU_IFACE_CGROUP)
		return lru_fail(err, LRU_ENOTSUP,
				"%s has no tier counters: lru_gen_full needs the debugfs interface",
				LRU_CGROUP_LRU_GEN);
	if (found && !full) {
		ifc->used = LRU_IFACE_CGROUP;
		snprintf(ifc->why, sizeof(ifc->why), "%s (e.g. '%.120s')",
			 mode == LRU_IFACE_CGROUP ? "cgroup asked for" : "present on this kernel",
			 ifc->example);
		return LRU_OK;
	}
	ifc->used = LRU_IFACE_DEBUGFS;
	if (found)
		snprintf(ifc->why, sizeof(ifc->why),
			 "lru_gen_full asked for: %s has no tier counters", LRU_CGROUP_LRU_GEN);
	else
		snprintf(ifc->why, sizeof(ifc->why), "%s not present on this kernel",
			 LRU_CGROUP_LRU_GEN);
	return LRU_OK;
}

/* Reading state: the snapshot and the widest half read window seen. */
struct reader {
	struct lru_snapshot *snap;
	struct lru_error *err;
	uint32_t half_window_ms;
	uint64_t root_ino;	/* of the cgroup2 mount's root directory */
};

/* Add memcg w->path with the lruvecs of its memory.lru_gen; skip it if it went away. */
static enum lru_err read_memcg(struct walk *w, void *arg)
{
	struct reader *r = arg;
	struct lru_snapshot *snap = r->snap;
	char abs[LRU_PATH_MAX + 64], *text = NULL, msg[LRU_ERRMSG_MAX];
	size_t len, memcg, first = snap->nr_lruvecs;
	int64_t start, end;
	struct stat st;
	enum lru_err rc;

	if (!has_file(w))
		return LRU_OK;
	snprintf(abs, sizeof(abs), "%s%s/%s", LRU_PATH_CGROUP, w->path, LRU_CGROUP_LRU_GEN);
	start = lru_now_ms();
	rc = lru_sys_read(w->root, abs, CG_FILE_MAX, &text, &len, r->err);
	end = lru_now_ms();
	if (rc == LRU_ENOENT)
		return LRU_OK;	/* removed since the directory was listed */
	if (rc)
		return rc;
	rc = lru_snapshot_add_memcg(snap, 0, w->path, w->plen, &memcg, r->err);
	if (!rc) {
		if (!stat(w->dir, &st))
			snap->memcgs[memcg].ino = (uint64_t)st.st_ino;
		rc = lru_cgparse_buf(snap, memcg, text, len, r->err);
	}
	free(text);
	if (rc == LRU_EPARSE || rc == LRU_ERANGE) {
		snprintf(msg, sizeof(msg), "%s", r->err ? r->err->msg : "");
		snprintf(abs, sizeof(abs), "%s/%s", w->dir, LRU_CGROUP_LRU_GEN);
		return lru_fail(r->err, rc, "%s: %s", abs, msg);
	}
	if (rc)
		return rc;
	lru_snapshot_set_births(snap, first, snap->nr_lruvecs, lru_sat_mid_i64(start, end));
	if ((uint32_t)((end - start + 1) / 2) > r->half_window_ms)
		r->half_window_ms = (uint32_t)((end - start + 1) / 2);
	return LRU_OK;
}

/* Copy the root memcg ("/") and its lruvecs from a debugfs read into snap. */
static enum lru_err add_root(struct lru_iface *ifc, const char *root, struct reader *r)
{
	struct lru_snapshot dbg;
	struct lru_error derr;
	size_t i, memcg = SIZE_MAX;
	enum lru_err rc;

	lru_snapshot_init(&dbg);
	lru_error_clear(&derr);
	rc = lru_sys_read_snapshot(root, LRU_SRC_DEBUGFS, &dbg, &derr);
	if (rc == LRU_ENOMEM) {
		lru_snapshot_release(&dbg);
		return lru_fail(r->err, rc, "%s", derr.msg);
	}
	if (rc) {
		ifc->root_missing = true;
		snprintf(ifc->root_note, sizeof(ifc->root_note),
			 "root memcg left out: it has no %s and debugfs lru_gen is not readable (%.160s)",
			 LRU_CGROUP_LRU_GEN, derr.msg);
		lru_snapshot_release(&dbg);
		return LRU_OK;
	}
	for (i = 0; !rc && i < dbg.nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &dbg.lruvecs[i];
		const struct lru_memcg *m = lru_lruvec_memcg(&dbg, lv);
		size_t idx;

		if (strcmp(m->path, "/"))
			continue;
		if (memcg == SIZE_MAX) {
			rc = lru_snapshot_add_memcg(r->snap, m->id, "/", 1, &memcg, r->err);
			if (!rc)
				r->snap->memcgs[memcg].ino = r->root_ino;
		}
		if (!rc)
			rc = lru_snapshot_add_lruvec(r->snap, memcg, lv->node, &idx, r->err);
		if (!rc) {
			memcpy(r->snap->lruvecs[idx].gens, lv->gens, sizeof(lv->gens));
			r->snap->lruvecs[idx].nr_gens = lv->nr_gens;
		}
	}
	if (!rc && memcg == SIZE_MAX) {
		ifc->root_missing = true;
		snprintf(ifc->root_note, sizeof(ifc->root_note),
			 "root memcg left out: debugfs lru_gen does not list '/'");
	}
	if (dbg.birth_error_ms > LRU_AGE_GRANULARITY_MS)
		r->half_window_ms = dbg.birth_error_ms - LRU_AGE_GRANULARITY_MS;
	lru_snapshot_release(&dbg);
	return rc;
}

enum lru_err lru_iface_read(struct lru_iface *ifc, const char *root, struct lru_snapshot *snap,
			    struct lru_error *err)
{
	struct reader r = { .snap = snap, .err = err };
	struct walk w;
	struct stat st;
	int64_t start;
	enum lru_err rc;

	ifc->root_missing = false;
	ifc->root_note[0] = '\0';
	if (ifc->used != LRU_IFACE_CGROUP)
		return lru_sys_read_snapshot(root, ifc->full ? LRU_SRC_DEBUGFS_FULL : LRU_SRC_DEBUGFS,
					     snap, err);
	snap->source = LRU_SRC_CGROUP;
	if (sysconf(_SC_PAGESIZE) > 0)	/* memory.lru_gen gives bytes: pages of this size */
		snap->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	start = lru_now_ms();
	rc = walk_start(&w, root, err);
	if (!rc && !stat(w.dir, &st))
		r.root_ino = (uint64_t)st.st_ino;
	if (!rc)
		rc = add_root(ifc, root, &r);
	if (!rc)
		rc = walk_below(&w, read_memcg, &r);
	if (rc)
		return rc;
	snap->read_start_ms = start;
	snap->read_end_ms = lru_now_ms();
	snap->birth_error_ms = r.half_window_ms + LRU_AGE_GRANULARITY_MS;
	return LRU_OK;
}
