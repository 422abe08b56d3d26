#include "lru_kwrite.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lru_sys.h"

/* How an errno of the kernel's lru_gen maps to lru_err, and what it means. */
static enum lru_err classify(int e, const char **why)
{
	switch (e) {
	case EINVAL:
		*why = "invalid argument (unknown memcg or node, a sequence number that is not "
		       "current, or generations too young to evict)";
		return LRU_EINVAL;
	case ESTALE:
	case EEXIST:
		*why = "stale sequence number (someone aged it since the read)";
		return LRU_ESTALE;
	case ERANGE:
		*why = "out of range (4 generations exist: force_scan needed)";
		return LRU_ERANGE;
	case EPERM:
		*why = "operation not permitted (kernel lockdown, or not root)";
		return LRU_EACCES;
	case EACCES:
		*why = "permission denied (run as root)";
		return LRU_EACCES;
	case ENOENT:
		*why = "no such file (debugfs not mounted, or no MGLRU)";
		return LRU_ENOENT;
	case ENXIO:
		*why = "no reader on the FIFO";
		return LRU_EIO;
	default:
		*why = strerror(e);
		return LRU_EIO;
	}
}

enum lru_err lru_kwrite_open(struct lru_kwriter *w, const char *root, struct lru_error *err)
{
	const char *why;
	struct statfs fs;
	struct stat st;
	enum lru_err rc;

	w->fd = -1;
	rc = lru_sys_path(root, LRU_PATH_LRU_GEN, w->path, sizeof(w->path), err);
	if (rc)
		return rc;
	w->fd = open(w->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (w->fd < 0) {
		int e = errno;

		rc = classify(e, &why);
		return lru_fail(err, rc, "cannot open '%s' for writing: %s", w->path, why);
	}
	/* debugfs and cgroupfs files are S_ISREG too: tell them by filesystem */
	if (!fstat(w->fd, &st) && S_ISREG(st.st_mode) && !fstatfs(w->fd, &fs) &&
	    fs.f_type != LRU_DEBUGFS_MAGIC && fs.f_type != LRU_CGROUP2_MAGIC) {
		lru_kwrite_close(w);
		return lru_fail(err, LRU_ENOTSUP,
				"'%s' is a regular file, not on debugfs (a fixture root?)", w->path);
	}
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
	do
		n = write(w->fd, text, len);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)len)
		return LRU_OK;
	e = n < 0 ? errno : EIO;
	if (kernel_errno)
		*kernel_errno = e;
	text[strcspn(text, "\n")] = '\0';
	rc = classify(e, &why);
	return lru_fail(err, rc, "the kernel refused '%s': %s", text, why);
}

void lru_kwrite_close(struct lru_kwriter *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
