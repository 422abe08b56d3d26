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
 * that is not current, generations too young to evict, swappiness 'max'
 * before 6.16) -> LRU_EINVAL; ESTALE (stale seq) -> LRU_ESTALE; EEXIST
 * ('+' on 6.14 and later: another aging of the lruvec is in progress or has
 * just made the generation; the kernel ages even a stale seq, so writing
 * again would age twice) -> LRU_EBUSY; ERANGE (4 generations without
 * force_scan on old kernels) -> LRU_ERANGE; EPERM/EACCES (not root,
 * lockdown) -> LRU_EACCES; anything else -> LRU_EIO.
 *
 * A memcg's own memory.lru_gen (patched kernels, lru_iface.h) takes the
 * commands of lru_cmd with cmd->cgroup set ("+ N0 5 1 1", "- N0 3 60 BYTES")
 * for that memcg only. Its answers: EINVAL (syntax, bad node, eviction of
 * one of the two youngest generations) -> LRU_EINVAL; ESTALE -> LRU_ESTALE;
 * EOPNOTSUPP (MGLRU off) -> LRU_ENOTSUP; EBUSY (the memcg is at or below
 * memory.min: nothing evicted) -> LRU_EBUSY; EACCES/EPERM (not the owner of
 * the cgroup) -> LRU_EACCES. The regular-file check applies alike.
 */
#ifndef LRU_KWRITE_H
#define LRU_KWRITE_H

#include <stdbool.h>

#include "lru_cmd.h"
#include "lru_err.h"
#include "lru_model.h"

/* f_type of debugfs and cgroup2 (linux/magic.h; sysfs: lru_sys.h) */
#define LRU_DEBUGFS_MAGIC 0x64626720
#define LRU_CGROUP2_MAGIC 0x63677270

struct lru_kwriter {
	int fd;
	bool cgroup;		/* fd is a memcg's memory.lru_gen */
	char path[LRU_PATH_MAX];
};

/* A writer with nothing open (lru_kwrite_close is a no-op on it). */
void lru_kwrite_init(struct lru_kwriter *w);

/* Open ROOT/sys/kernel/debug/lru_gen for writing; close with lru_kwrite_close. */
enum lru_err lru_kwrite_open(struct lru_kwriter *w, const char *root, struct lru_error *err);

/* Open ROOT/sys/fs/cgroup/MEMCG_PATH/memory.lru_gen for writing. */
enum lru_err lru_kwrite_open_memcg(struct lru_kwriter *w, const char *root,
				   const char *memcg_path, struct lru_error *err);

struct lru_iface;
/*
 * Can commands be written through ifc (lru_iface_select)? Opens and closes
 * the file that takes them: debugfs lru_gen, or the memory.lru_gen of
 * ifc->example (a memcg that has one). Errors as lru_kwrite_open.
 */
enum lru_err lru_kwrite_probe(const char *root, const struct lru_iface *ifc,
			      struct lru_error *err);

/*
 * Make w (initialised, open or not) write to the file that takes lv's
 * commands: the memcg's memory.lru_gen when lru_memcg_uses_cgroup(), else
 * debugfs lru_gen. Keeps the file open when it already is the right one, so
 * a loop over lruvecs opens each file once.
 */
enum lru_err lru_kwrite_open_lruvec(struct lru_kwriter *w, const char *root,
				    const struct lru_snapshot *snap,
				    const struct lru_lruvec *lv, struct lru_error *err);

/*
 * Write cmd as one write(2). *kernel_errno (may be NULL) gets the errno of
 * a failed write, else 0.
 */
enum lru_err lru_kwrite_cmd(struct lru_kwriter *w, const struct lru_cmd *cmd,
			    int *kernel_errno, struct lru_error *err);

/*
 * Write cmd for lv of snap: lru_kwrite_open_lruvec() (lv NULL: debugfs
 * lru_gen, as lru_kwrite_open() but keeping w open), then lru_kwrite_cmd().
 * The one step of every loop that writes to lruvecs (lrugen age, evict,
 * lrugen-top's plan, lrugend's aging and reclaim); w stays open for the
 * next lruvec and the caller closes it. Errors as those two.
 */
enum lru_err lru_kwrite_lruvec(struct lru_kwriter *w, const char *root,
			       const struct lru_snapshot *snap, const struct lru_lruvec *lv,
			       const struct lru_cmd *cmd, struct lru_error *err);

/*
 * Is a failed open or write the host's rather than the lruvec's: no access,
 * a fixture root's regular file, no such file (LRU_EACCES, LRU_ENOTSUP,
 * LRU_ENOENT)? lrugen's loops stop there: every write after it would fail
 * alike.
 */
bool lru_kwrite_host_failure(enum lru_err code);

/*
 * The lru_err of a kernel errno from debugfs lru_gen (cgroup false) or a
 * memcg's memory.lru_gen (cgroup true), as listed above; *why gets what it
 * means to a person (static text).
 */
enum lru_err lru_kwrite_errno(bool cgroup, int e, const char **why);

/*
 * lru_kwrite_errno() for the errno of writing cmd (NULL: any command): an
 * EINVAL to an eviction with swappiness 'max' says that this kernel does not
 * take the word (debugfs before 6.16, memory.lru_gen of the kernel series).
 */
enum lru_err lru_kwrite_cmd_errno(bool cgroup, const struct lru_cmd *cmd, int e,
				  const char **why);

/* Close (a closed or never-opened writer with fd -1 is fine). */
void lru_kwrite_close(struct lru_kwriter *w);

#endif
