/*
 * lru_kwrite.h - writing aging and eviction commands to the kernel.
 *
 * Commands go to ROOT/sys/kernel/debug/lru_gen, one command per write(2):
 * the kernel stops at the first failing command of a write and reports only
 * its errno. A writer stays open for many commands (a collector tick ages
 * every lruvec through one descriptor).
 *
 * Under a fixture root, lru_gen is a regular file: writing commands into it
 * would corrupt the fixture, so lru_kwrite_open() refuses a regular file
 * that is not on debugfs or cgroupfs (the kernel's own files are S_ISREG
 * too: they are told apart by fstatfs) with LRU_ENOTSUP; callers skip the
 * write or tell the user. A FIFO or a character device a test puts there to
 * capture commands is written. The open does not block on a
 * FIFO without a reader: that is LRU_EIO.
 *
 * The kernel's answers, as lru_err: EINVAL (unknown memcg or node, a seq
 * that is not current, generations too young to evict) -> LRU_EINVAL;
 * ESTALE/EEXIST (stale seq) -> LRU_ESTALE; ERANGE (4 generations without
 * force_scan on old kernels) -> LRU_ERANGE; EPERM/EACCES (not root,
 * lockdown) -> LRU_EACCES; anything else -> LRU_EIO.
 */
#ifndef LRU_KWRITE_H
#define LRU_KWRITE_H

#include "lru_cmd.h"
#include "lru_err.h"
#include "lru_model.h"

/* f_type of debugfs and cgroup2 (linux/magic.h) */
#define LRU_DEBUGFS_MAGIC 0x64626720
#define LRU_CGROUP2_MAGIC 0x63677270

struct lru_kwriter {
	int fd;
	char path[LRU_PATH_MAX];
};

/* Open ROOT/sys/kernel/debug/lru_gen for writing; close with lru_kwrite_close. */
enum lru_err lru_kwrite_open(struct lru_kwriter *w, const char *root, struct lru_error *err);

/*
 * Write cmd as one write(2). *kernel_errno (may be NULL) gets the errno of
 * a failed write, else 0.
 */
enum lru_err lru_kwrite_cmd(struct lru_kwriter *w, const struct lru_cmd *cmd,
			    int *kernel_errno, struct lru_error *err);

/* Close (a closed or never-opened writer with fd -1 is fine). */
void lru_kwrite_close(struct lru_kwriter *w);

#endif
