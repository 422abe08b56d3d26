/*
 * aging.h - steady-pace aging: one new generation per lruvec per tick.
 *
 * With generations created every interval, their sizes form a page-age
 * histogram on a timeline shared by the fleet. Each tick writes
 * "+ MEMCG_ID NODE MAX_SEQ CAN_SWAP FORCE_SCAN" for every lruvec of the
 * tick's snapshot (already filtered), one command per write(2), except:
 *
 *  - lruvecs whose youngest generation is younger than interval - margin:
 *    someone else (another tool, or the kernel under pressure) aged them
 *    recently, and another generation now would only split that one;
 *  - offline memcgs (id 0 in debugfs), which the kernel refuses;
 *  - everything, when MGLRU is off (lru_gen/enabled & 1 is 0: aging would
 *    work but reclaim would not use the generations) or the interface's file
 *    cannot be written: a regular file under --root (a fixture), no
 *    permission, lockdown. Each of these is logged once, when it starts.
 *
 * Commands go where lru_kwrite_open_lruvec() says: each memcg's own
 * memory.lru_gen ("+ N0 SEQ 1 1") with the cgroup interface, the root memcg
 * and everything else to debugfs lru_gen. With memory.lru_gen a memcg that
 * cannot be written (removed, not ours, the root under lockdown) is counted
 * as failed and the others go on.
 *
 * A stale max_seq (someone aged between our read and our write) is silently
 * ignored by kernels before 6.14; later kernels age anyway, and refuse with
 * EEXIST (LRU_EBUSY) only while another aging of the same lruvec is making
 * the generation: that lruvec counts as skipped (someone else aged it). No
 * command is retried: the next tick sees the generation and goes on.
 */
#ifndef AGING_H
#define AGING_H

#include <stdbool.h>

#include "config.h"
#include "lru_iface.h"
#include "lru_model.h"
#include "stats.h"

struct aging {
	char blocked[LRU_ERRMSG_MAX];	/* why aging is not possible, logged once */
};

/*
 * The AgingSettings the next snapshot reports: enabled when this tick will
 * age (age on, MGLRU on, lru_gen writable).
 */
void aging_settings(struct aging *a, const struct config *cfg, const struct lru_iface *ifc,
		    uint32_t jitter_ms, struct lru_aging *out);

/* Age the lruvecs of snap (see above); counts into st. */
void aging_run(struct aging *a, const struct config *cfg, const struct lru_iface *ifc,
	       const struct lru_snapshot *snap, struct stats *st);

#endif
