/*
 * lru_sys.h - reading the kernel's files, under an optional root directory.
 *
 * Every path the library reads is absolute ("/sys/kernel/debug/lru_gen") and
 * is prefixed with root when root is neither NULL nor "" nor "/", so that a
 * fixture tree (tests, --root DIR) stands in for the live system.
 *
 * Errors name the file and say what to do: a missing debugfs file is
 * LRU_ENOENT, EACCES/EPERM (not root, kernel lockdown) are LRU_EACCES.
 */
#ifndef LRU_SYS_H
#define LRU_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_model.h"

#define LRU_PATH_LRU_GEN "/sys/kernel/debug/lru_gen"
#define LRU_PATH_LRU_GEN_FULL "/sys/kernel/debug/lru_gen_full"
#define LRU_PATH_ENABLED "/sys/kernel/mm/lru_gen/enabled"
#define LRU_PATH_MIN_TTL "/sys/kernel/mm/lru_gen/min_ttl_ms"
#define LRU_PATH_CGROUP "/sys/fs/cgroup"
#define LRU_PATH_NODES "/sys/devices/system/node"
#define LRU_PATH_OSRELEASE "/proc/sys/kernel/osrelease"
#define LRU_PATH_BOOT_ID "/proc/sys/kernel/random/boot_id"
#define LRU_PATH_HOSTNAME "/proc/sys/kernel/hostname"

/* f_type of sysfs (linux/magic.h): its files are S_ISREG, like a fixture's */
#define LRU_SYSFS_MAGIC 0x62656572

/* lru_gen/enabled bits */
#define LRU_ENABLED_CORE 0x1
#define LRU_ENABLED_MM_WALK 0x2
#define LRU_ENABLED_NONLEAF_YOUNG 0x4

/* root + abs into buf; LRU_EINVAL if it does not fit. */
enum lru_err lru_sys_path(const char *root, const char *abs, char *buf, size_t size,
			  struct lru_error *err);

/*
 * Read a whole file (at most max bytes; LRU_EIO past that) into a malloc'd,
 * NUL-terminated buffer the caller frees.
 */
enum lru_err lru_sys_read(const char *root, const char *abs, size_t max, char **data,
			  size_t *len, struct lru_error *err);

/* Read a one-line file, trailing newline removed, into buf. */
enum lru_err lru_sys_read_line(const char *root, const char *abs, char *buf, size_t size,
			       struct lru_error *err);

/*
 * Read lru_gen (LRU_SRC_DEBUGFS) or lru_gen_full (LRU_SRC_DEBUGFS_FULL) into
 * an empty snapshot, streaming it through the parser with a large buffer
 * (the kernel restarts its memcg walk at every read(2) chunk), and set the
 * read window and birth times. Host information is not touched.
 */
enum lru_err lru_sys_read_snapshot(const char *root, enum lru_source src,
				   struct lru_snapshot *snap, struct lru_error *err);

/*
 * Write value to a sysfs knob (abs under root) with one write(2). A
 * fixture's regular file (not on sysfs) is refused with LRU_ENOTSUP and left
 * as it is; LRU_ENOENT for a missing file, LRU_EACCES without permission,
 * LRU_EIO when the kernel refused the value.
 */
enum lru_err lru_sys_write_knob(const char *root, const char *abs, const char *value,
				struct lru_error *err);

/*
 * Write len bytes of buf to path whole or not at all: a regular file (or a
 * new one) through a temporary file beside it (path.tmp.PID, fsync'd,
 * renamed over it, removed on failure); "-" to standard output; anything
 * else that exists (/dev/null, a FIFO, /dev/stdout) written into, never
 * replaced. LRU_EIO "cannot write 'PATH': why".
 */
enum lru_err lru_sys_write_whole(const char *path, const void *buf, size_t len,
				 struct lru_error *err);

/*
 * Whether root is a fixture tree: its lru_gen/enabled (or, without one, its
 * /sys) exists and is not on sysfs, so nothing written there reaches a
 * kernel. false for / and for a missing tree.
 */
bool lru_sys_is_fixture(const char *root);

/*
 * Whether a kernel release ("6.12.117+deb12-amd64") is MAJOR.MINOR or later:
 * 1 or 0; -1 when release is NULL or does not start with MAJOR.MINOR.
 */
int lru_release_at_least(const char *release, int major, int minor);

/* /sys/kernel/mm/lru_gen/enabled as a number ("0x0007" -> 7). */
enum lru_err lru_sys_read_enabled(const char *root, unsigned *bits, struct lru_error *err);

/*
 * Fill snap->nodes from every nodeN/meminfo (MemTotal, MemFree, FilePages,
 * AnonPages). A host without the node directory gets no entries and LRU_OK.
 */
enum lru_err lru_sys_read_nodes(const char *root, struct lru_snapshot *snap,
				struct lru_error *err);

/*
 * Fill snap->host: host name, boot id, kernel release (missing files leave
 * NULL) and the enabled bits (0 if unreadable).
 */
enum lru_err lru_sys_read_host(const char *root, struct lru_snapshot *snap,
			       struct lru_error *err);

/*
 * Total swap space in bytes from ROOT/proc/swaps (the Size column, KiB);
 * LRU_ENOENT when the file cannot be read.
 */
enum lru_err lru_sys_swap_bytes(const char *root, uint64_t *bytes, struct lru_error *err);

/*
 * Set each memcg's ino from the cgroupfs directory of its path
 * (cgroup_root/PATH); memcgs whose directory is gone keep 0.
 */
void lru_sys_fill_inodes(const char *root, const char *cgroup_root, struct lru_snapshot *snap);

/*
 * One key of a memcg's memory.numa_stat ("file_mapped N0=4096 N1=0"): bytes
 * per node into per_node[0..nr-1] (nodes beyond nr are ignored, missing
 * nodes are 0). LRU_ENOENT when the file or the key is missing.
 */
enum lru_err lru_sys_numa_stat(const char *root, const char *memcg_path, const char *key,
			       uint64_t *per_node, size_t nr, struct lru_error *err);

/*
 * Fill m->stats from the memcg's memory.stat (anon, file, inactive_file,
 * workingset_refault_anon/file, anon_thp + file_thp + shmem_thp),
 * memory.current and memory.pressure; sets has_stats when memory.stat was
 * readable.
 */
void lru_sys_read_memcg_stats(const char *root, struct lru_memcg *m);

#endif
