/*
 * collect.h - one collection: everything a HostSnapshot holds.
 *
 * Reads ROOT/sys/kernel/debug/lru_gen (or lru_gen_full) with one large
 * read, host information (host name, boot id, kernel release, MGLRU bits),
 * per-node meminfo, then keeps the memcgs the configuration selects
 * (include/exclude globs, empty and dying memcgs left out), fills their
 * cgroup inode numbers and, unless memcg_stats is off, their memory.stat,
 * memory.current and memory.pressure essentials.
 */
#ifndef COLLECT_H
#define COLLECT_H

#include <stdbool.h>

#include "config.h"
#include "lru_model.h"
#include "stats.h"

struct collect {
	char last_error[LRU_ERRMSG_MAX];	/* logged once until it changes */
	bool warned_boot_id;
};

/*
 * Fill snap (initialised by the caller; released by the caller either way)
 * with one collection. aging describes the aging in force. Returns 0, or -1
 * after logging why the kernel's generations could not be read.
 */
int collect_snapshot(struct collect *c, const struct config *cfg, const struct lru_aging *aging,
		     struct lru_snapshot *snap, struct stats *st);

/* The host name the snapshots carry: config host, else ROOT's, else gethostname(). */
void collect_host_name(const struct config *cfg, char *buf, size_t size);

#endif
