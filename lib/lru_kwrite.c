#include "lru_kwrite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lru_iface.h"
#include "lru_sys.h"

/* What an errno of a kernel file means: its lru_err and words for a person. */
struct errno_map {
	int e;
	enum lru_err code;
	const char *why;
};

/* debugfs lru_gen */
static const struct errno_map debugfs_errnos[] = {
	{ EINVAL, LRU_EINVAL, "invalid argument (unknown memcg or node, a sequence number that is "
			      "not current, or generations too young to evict)" },
	{ ESTALE, LRU_ESTALE, "stale sequence number (someone aged it since the read)" },
	/* 6.14 and later: try_to_inc_max_seq() failed, another aging got there first */
	{ EEXIST, LRU_EBUSY, "another aging of this lruvec is in progress (or has just finished)" },
	{ ERANGE, LRU_ERANGE, "out of range (4 generations exist: force_scan needed)" },
	{ EPERM, LRU_EACCES, "operation not permitted (kernel lockdown, or not root)" },
	{ EACCES, LRU_EACCES, "permission denied (run as root)" },
	{ ENOENT, LRU_ENOENT, "no such file (debugfs not mounted, or no MGLRU)" },
	{ ENXIO, LRU_EIO, "no reader on the FIFO" },
};

/* a memcg's memory.lru_gen (the lrugen kernel series); other errnos as debugfs */
static const struct errno_map cgroup_errnos[] = {
	{ EINVAL, LRU_EINVAL, "invalid argument (bad syntax or node, or one of the two youngest "
			      "generations)" },
	{ ESTALE, LRU_ESTALE, "stale sequence number (someone aged it since the read)" },
	{ EOPNOTSUPP, LRU_ENOTSUP, "MGLRU is off (turn it on with 'lrugen enable')" },
	{ EBUSY, LRU_EBUSY, "memcg is at or below memory.min; nothing to evict" },
	/* the 7.3 series: '+' while another aging of the lruvec walks for this seq */
	{ EAGAIN, LRU_EBUSY, "another aging of this lruvec is in progress" },
	{ EACCES, LRU_EACCES, "permission denied: not the owner of this cgroup (run as its "
			      "owner or root)" },
	{ EPERM, LRU_EACCES, "permission denied: not the owner of this cgroup (run as its "
			     "owner or root)" },
	{ ENOENT, LRU_ENOENT, "no such file (the cgroup was removed, or the kernel lacks "
			      "memory.lru_gen)" },
	{ ENODEV, LRU_ENOENT, "no such file (the cgroup was removed, or the kernel lacks "
			      "memory.lru_gen)" },
};

static const struct errno_map *find_errno(const struct errno_map *map, size_t n, int e)
{
	for (size_t i = 0; i < n; i++)
		if (map[i].e == e)
			return &map[i];
	return NULL;
}

enum lru_err lru_kwrite_errno(bool cgroup, int e, const char **why)
{
	const struct errno_map *m = NULL;

	if (cgroup)
		m = find_errno(cgroup_errnos, sizeof(cgroup_errnos) / sizeof(cgroup_errnos[0]), e);
	if (!m)
		m = find_errno(debugfs_errnos, sizeof(debugfs_errnos) / sizeof(debugfs_errnos[0]), e);
	if (!m) {
		*why = strerror(e);
		return LRU_EIO;
	}
	*why = m->why;
	return m->code;
}

enum lru_err lru_kwrite_cmd_errno(bool cgroup, const struct lru_cmd *cmd, int e,
				  const char **why)
{
	enum lru_err rc = lru_kwrite_errno(cgroup, e, why);

	/* lrugen checked the rest against a fresh read: the word 'max' is what is new */
	if (rc == LRU_EINVAL && cmd && cmd->op == '-' && cmd->swap == LRU_SWAPPINESS_MAX)
		*why = cgroup ? "invalid argument: this kernel's memory.lru_gen does not accept "
				"swappiness 'max' (use a number 0-200)"
			      : "invalid argument: this kernel does not accept swappiness 'max' "
				"(Linux 6.16 and later do; use a number 0-200)";
	return rc;
}

void lru_kwrite_init(struct lru_kwriter *w)
{
	w->fd = -1;
	w->cgroup = false;
	w->path[0] = '\0';
}

/* Open w->path (set by the caller) for writing, refusing a fixture's regular file. */
static enum lru_err open_path(struct lru_kwriter *w, struct lru_error *err)
{
	const char *why;
	struct statfs fs;
	struct stat st;
	enum lru_err rc;

	w->fd = open(w->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (w->fd < 0) {
		int e = errno;

		rc = lru_kwrite_errno(w->cgroup, e, &why);
		return lru_fail(err, rc, "cannot open '%s' for writing: %s", w->path, why);
	}
	/* debugfs and cgroupfs files are S_ISREG too: tell them by filesystem */
	if (!fstat(w->fd, &st) && S_ISREG(st.st_mode) && !fstatfs(w->fd, &fs) &&
	    fs.f_type != LRU_DEBUGFS_MAGIC && fs.f_type != LRU_CGROUP2_MAGIC) {
		lru_kwrite_close(w);
		return lru_fail(err, LRU_ENOTSUP, "'%s' is a regular file, not on %s (a fixture root?)",
				w->path, w->cgroup ? "cgroupfs" : "debugfs");
	}
	return LRU_OK;
}

enum lru_err lru_kwrite_open(struct lru_kwriter *w, const char *root, struct lru_error *err)
{
	enum lru_err rc;

	lru_kwrite_init(w);
	rc = lru_sys_path(root, LRU_PATH_LRU_GEN, w->path, sizeof(w->path), err);
	return rc ? rc : open_path(w, err);
}

enum lru_err lru_kwrite_open_memcg(struct lru_kwriter *w, const char *root,
				   const char *memcg_path, struct lru_error *err)
{
	char abs[LRU_PATH_MAX];
	int n;

	lru_kwrite_init(w);
	w->cgroup = true;
	n = snprintf(abs, sizeof(abs), "%s%s/%s", LRU_PATH_CGROUP, memcg_path, LRU_CGROUP_LRU_GEN);
	if (n < 0 || (size_t)n >= sizeof(abs))
		return lru_fail(err, LRU_EINVAL, "memcg path '%s' is too long", memcg_path);
	if (lru_sys_path(root, abs, w->path, sizeof(w->path), err))
		return LRU_EINVAL;
	return open_path(w, err);
}

enum lru_err lru_kwrite_probe(const char *root, const struct lru_iface *ifc,
			      struct lru_error *err)
{
	struct lru_kwriter w;
	enum lru_err rc = ifc->used == LRU_IFACE_CGROUP
				  ? lru_kwrite_open_memcg(&w, root, ifc->example, err)
				  : lru_kwrite_open(&w, root, err);

	lru_kwrite_close(&w);
	return rc;
}

enum lru_err lru_kwrite_open_lruvec(struct lru_kwriter *w, const char *root,
				    const struct lru_snapshot *snap,
				    const struct lru_lruvec *lv, struct lru_error *err)
{
	const struct lru_memcg *m = lru_lruvec_memcg(snap, lv);
	struct lru_kwriter next;
	enum lru_err rc;

	if (lru_memcg_uses_cgroup(snap, m)) {
		char abs[LRU_PATH_MAX], want[LRU_PATH_MAX];

		snprintf(abs, sizeof(abs), "%s%s/%s", LRU_PATH_CGROUP, m->path, LRU_CGROUP_LRU_GEN);
		if (w->fd >= 0 && w->cgroup && !lru_sys_path(root, abs, want, sizeof(want), NULL) &&
		    !strcmp(want, w->path))
			return LRU_OK;
		rc = lru_kwrite_open_memcg(&next, root, m->path, err);
	} else {
		if (w->fd >= 0 && !w->cgroup)
			return LRU_OK;
		rc = lru_kwrite_open(&next, root, err);
	}
	if (rc)
		return rc;
	lru_kwrite_close(w);
	*w = next;
	return LRU_OK;
}

enum lru_err lru_kwrite_cmd(struct lru_kwriter *w, const struct lru_cmd *cmd,
			    int *kernel_errno, struct lru_error *err)
{
	char text[LRU_CMD_MAX];
	size_t len = lru_cmd_format(cmd, text, sizeof(text));
	const char *why;
	enum lru_err rc;
	ssize_t n;
	int e;

	if (kernel_errno)
		*kernel_errno = 0;
	if (w->fd < 0)
		return lru_fail(err, LRU_EINVAL, "'%s' is not open for writing", w->path);
	if (cmd->cgroup != w->cgroup)
		return lru_fail(err, LRU_EINVAL, "'%s' does not take %s commands", w->path,
				cmd->cgroup ? "memory.lru_gen" : "debugfs");
	do
		n = write(w->fd, text, len);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)len)
		return LRU_OK;
	e = n < 0 ? errno : EIO;
	if (kernel_errno)
		*kernel_errno = e;
	text[strcspn(text, "\n")] = '\0';
	rc = lru_kwrite_cmd_errno(w->cgroup, cmd, e, &why);
	if (w->cgroup)
		return lru_fail(err, rc, "the kernel refused '%s' on '%s': %s", text, w->path, why);
	return lru_fail(err, rc, "the kernel refused '%s': %s", text, why);
}

enum lru_err lru_kwrite_lruvec(struct lru_kwriter *w, const char *root,
			       const struct lru_snapshot *snap, const struct lru_lruvec *lv,
			       const struct lru_cmd *cmd, struct lru_error *err)
{
	enum lru_err rc = LRU_OK;

	if (lv)
		rc = lru_kwrite_open_lruvec(w, root, snap, lv, err);
	else if (w->fd < 0 || w->cgroup) {
		lru_kwrite_close(w);
		rc = lru_kwrite_open(w, root, err);
	}
	return rc ? rc : lru_kwrite_cmd(w, cmd, NULL, err);
}

bool lru_kwrite_host_failure(enum lru_err code)
{
	return code == LRU_EACCES || code == LRU_ENOTSUP || code == LRU_ENOENT;
}

void lru_kwrite_close(struct lru_kwriter *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
