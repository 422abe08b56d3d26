/*
 * collect.h - one collection: everything a HostSnapshot holds.
 *
 * Reads the generations through the interface collect_select() chose
 * (lru_iface.h: every memcg's memory.lru_gen on patched kernels, the root
 * memcg from debugfs; else ROOT/sys/kernel/debug/lru_gen or lru_gen_full
 * with one large read), host information (host name, boot id, kernel release, MGLRU bits),
 * per-node meminfo, then keeps the memcgs the configuration selects
 * (include/exclude globs, empty and dying memcgs left out), fills their
 * cgroup inode numbers and, unless memcg_stats is off, their memory.stat,
 * memory.current and memory.pressure essentials.
 *
 * DAMON (lru_warn.h): where a DAMON monitor runs and the kernel's aging does
 * not see what it clears, damon_stat is turned off (setting damon_stat =
 * off, the default; logged once) and the snapshot carries the warnings:
 * damon_active, and thp_unaged on the lruvecs of memcgs with huge pages
 * (their memory.stat is read for that even with memcg_stats off). They stay
 * one tick longer than the monitor: that tick's generations were made while
 * it ran.
 */
#ifndef COLLECT_H
#define COLLECT_H

#include <stdbool.h>

#include "config.h"
#include "lru_iface.h"
#include "lru_model.h"
#include "stats.h"

struct collect {
	char last_error[LRU_ERRMSG_MAX];	/* logged once until it changes */
	bool warned_boot_id;
	struct lru_iface iface;			/* this tick's interface */
	char last_iface[LRU_ERRMSG_MAX];	/* logged when it changes */
	char last_root_note[LRU_ERRMSG_MAX];	/* the root memcg left out: why */
	char last_damon[128];			/* DAMON monitors seen, logged on change */
	char last_damon_error[LRU_ERRMSG_MAX];	/* cannot turn damon_stat off: why */
	bool damon_before;			/* a monitor ran at the previous tick */
};

/*
 * Choose the interface for this tick (the 'interface' setting, lru_iface_select)
 * into c->iface, logging the choice and why when it changes. Returns 0, or -1
 * after logging why the asked-for interface is not there.
 */
int collect_select(struct collect *c, const struct config *cfg);

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
