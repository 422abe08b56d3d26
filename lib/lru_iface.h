/*
 * lru_iface.h - which kernel interface lrugen reads and writes, in one place.
 *
 * Two interfaces give MGLRU's generations:
 *
 *  - cgroup: ROOT/sys/fs/cgroup/PATH/memory.lru_gen, one file per non-root
 *    memcg, on kernels with the lrugen patch series (kernel/). Readable by
 *    anyone the file mode allows, writable by the cgroup's owner (delegation),
 *    works under kernel lockdown, sizes in bytes, no memcg ids
 *    (lru_cgparse.h). The root memcg has no such file: its lruvecs are taken
 *    from debugfs lru_gen when that is readable, else the root memcg is left
 *    out and root_note says why.
 *  - debugfs: ROOT/sys/kernel/debug/lru_gen (or lru_gen_full), every memcg in
 *    one root-only file, as on every MGLRU kernel (lru_parse.h).
 *
 * The mode is auto (the default), cgroup or debugfs; callers take it from
 * the LRUGEN_INTERFACE environment variable or a --interface flag
 * (lru_iface_mode_parse accepts NULL and "" as auto). auto picks cgroup when
 * any memcg below ROOT/sys/fs/cgroup has memory.lru_gen, else debugfs; and
 * debugfs whenever lru_gen_full is wanted (memory.lru_gen has no tier
 * counters). lru_iface_select() says which and why, in words fit for
 * 'lrugen doctor'; lru_iface_read() reads a snapshot through it.
 *
 * Writes go where lru_memcg_uses_cgroup() (lru_model.h) says: see
 * lru_kwrite_open_lruvec() in lru_kwrite.h.
 */
#ifndef LRU_IFACE_H
#define LRU_IFACE_H

#include <stdbool.h>

#include "lru_model.h"

#define LRU_IFACE_ENV "LRUGEN_INTERFACE"
#define LRU_CGROUP_LRU_GEN "memory.lru_gen"

enum lru_iface_mode {
	LRU_IFACE_AUTO = 0,
	LRU_IFACE_CGROUP,	/* memory.lru_gen of each memcg */
	LRU_IFACE_DEBUGFS,	/* /sys/kernel/debug/lru_gen */
	LRU_IFACE_NR
};

struct lru_iface {
	enum lru_iface_mode wanted;	/* what the caller asked for */
	enum lru_iface_mode used;	/* LRU_IFACE_CGROUP or LRU_IFACE_DEBUGFS */
	bool full;			/* lru_gen_full (debugfs only) */
	char why[LRU_ERRMSG_MAX];	/* why 'used' was chosen */
	char example[LRU_PATH_MAX];	/* cgroup: a memcg path that has the file */
	/* after lru_iface_read() through cgroup: */
	bool root_missing;		/* the root memcg was left out */
	char root_note[LRU_ERRMSG_MAX];	/* why (debugfs lru_gen unreadable: ...) */
};

/* "auto", "cgroup" or "debugfs" (NULL and "" are auto); LRU_EINVAL otherwise. */
enum lru_err lru_iface_mode_parse(const char *name, enum lru_iface_mode *mode,
				  struct lru_error *err);
const char *lru_iface_mode_name(enum lru_iface_mode mode);

/*
 * Decide the interface for mode under root (see above) and fill *ifc. A
 * forced cgroup mode fails with LRU_ENOENT when no memcg has the file, and
 * with LRU_ENOTSUP when full is asked for.
 */
enum lru_err lru_iface_select(struct lru_iface *ifc, const char *root, enum lru_iface_mode mode,
			      bool full, struct lru_error *err);

/*
 * Read an empty snapshot through the selected interface. Through debugfs
 * this is lru_sys_read_snapshot(). Through cgroup: the root memcg from
 * debugfs lru_gen if readable (else root_missing and root_note), then every
 * memcg with memory.lru_gen, depth first, siblings in name order; each
 * memcg's id is 0 (unknown), its ino the directory's; births come from each
 * file's own read window; snap->source is LRU_SRC_CGROUP and
 * snap->page_size the system's (sizes arrive in bytes). A memcg removed
 * during the walk is skipped. Errors name the file: LRU_ENOTSUP when MGLRU
 * is off (EOPNOTSUPP), LRU_EACCES, LRU_EPARSE/LRU_ERANGE with the line.
 */
enum lru_err lru_iface_read(struct lru_iface *ifc, const char *root, struct lru_snapshot *snap,
			    struct lru_error *err);

#endif
