/*
 * policy.h - optional proactive reclaim: evict what is colder than T.
 *
 * Off by default (reclaim = false). Each tick, for every memcg matching
 * reclaim_include (and not reclaim_exclude) and every node, write
 *
 *	- MEMCG_ID NODE SEQ SWAPPINESS NR_TO_RECLAIM
 *
 * where SEQ is the youngest generation whose pages have been idle longer
 * than reclaim_older_than (never one of the two youngest); with
 * reclaim_older_than = advised, than the threshold the store advises for
 * the memcg (advice.h; a memcg without advice is left alone). Guards:
 *
 *  - pressure: nothing is written while "some avg10" of /proc/pressure/memory
 *    or /proc/pressure/io is above reclaim_psi_max percent, or while PSI
 *    cannot be read (reclaim_psi_max = 100 turns the check off);
 *  - budget: NR_TO_RECLAIM over all commands of a tick adds up to at most
 *    reclaim_max_bytes;
 *  - floor: a memcg (its resident pages summed over nodes) is never asked
 *    to go below reclaim_floor bytes.
 *
 * With the cgroup interface (lru_iface.h) the command goes to the memcg's
 * own memory.lru_gen as "- N<NODE> SEQ SWAPPINESS BYTES" (the kernel then
 * also refuses, with EBUSY, a memcg at or below memory.min).
 *
 * Every command is logged (info) and counted; reclaim_dry_run, or a
 * regular-file lru_gen (or memory.lru_gen) under --root, logs and counts
 * them as "would write" without writing.
 */
#ifndef POLICY_H
#define POLICY_H

#include <stdbool.h>

#include "advice.h"
#include "config.h"
#include "lru_iface.h"
#include "lru_model.h"
#include "stats.h"

struct policy {
	char paused[LRU_ERRMSG_MAX + 64];	/* why reclaim is paused, logged once */
	char blocked[LRU_ERRMSG_MAX];	/* why commands cannot be written */
};

/* One tick's reclaim; adv: the store's advice (used with reclaim_older_than = advised). */
void policy_run(struct policy *p, const struct config *cfg, const struct lru_iface *ifc,
		const struct advice *adv, const struct lru_snapshot *snap, struct stats *st);

#endif
