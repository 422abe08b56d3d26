/* aging.c - write one "+" command per lruvec per tick, unless aged recently. */
#include "aging.h"

#include <inttypes.h>
#include <string.h>

#include "log.h"
#include "lru_cmd.h"
#include "lru_kwrite.h"
#include "lru_sys.h"

/* Record why aging cannot happen; log it when the reason changes. */
static void block(struct aging *a, const char *why)
{
	if (strcmp(a->blocked, why))
		log_warn("aging skipped: %s", why);
	snprintf(a->blocked, sizeof(a->blocked), "%s", why);
}

static void unblock(struct aging *a)
{
	if (a->blocked[0])
		log_info("aging resumed");
	a->blocked[0] = '\0';
}

/* Can we age now? MGLRU on and the interface's file writable. */
static bool can_age(struct aging *a, const struct config *cfg, const struct lru_iface *ifc)
{
	struct lru_error err;
	unsigned bits;

	if (!cfg->age)
		return false;
	if (!lru_sys_read_enabled(cfg->root, &bits, NULL) && !(bits & LRU_ENABLED_CORE)) {
		block(a, "MGLRU is off (lru_gen/enabled & 1 is 0): enable it with 'lrugen enable'");
		return false;
	}
	lru_error_clear(&err);
	if (lru_kwrite_probe(cfg->root, ifc, &err)) {
		block(a, err.msg);
		return false;
	}
	return true;
}

void aging_settings(struct aging *a, const struct config *cfg, const struct lru_iface *ifc,
		    uint32_t jitter_ms, struct lru_aging *out)
{
	out->enabled = can_age(a, cfg, ifc);
	out->interval_ms = (uint32_t)cfg->interval_ms;
	out->jitter_ms = jitter_ms;
	out->can_swap = cfg->can_swap;
	out->force_scan = cfg->force_scan;
}

void aging_run(struct aging *a, const struct config *cfg, const struct lru_iface *ifc,
	       const struct lru_snapshot *snap, struct stats *st)
{
	uint64_t min_age = cfg->interval_ms > cfg->age_margin_ms
				   ? cfg->interval_ms - cfg->age_margin_ms : 0;
	uint64_t written = 0, skipped = 0, failed = 0;
	struct lru_kwriter w;
	struct lru_error err;

	if (!can_age(a, cfg, ifc))
		return;
	lru_kwrite_init(&w);
	for (size_t i = 0; i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];
		const struct lru_memcg *m = lru_lruvec_memcg(snap, lv);
		struct lru_cmd cmd;

		if (lru_memcg_dying(snap, m))
			continue;
		if (lru_lruvec_youngest(lv)->age_ms < min_age) {
			skipped++;
			continue;
		}
		lru_error_clear(&err);
		if (lru_cmd_age(snap, lv, cfg->can_swap, cfg->force_scan, &cmd, &err) ||
		    lru_kwrite_lruvec(&w, cfg->root, snap, lv, &cmd, &err)) {
			/* EEXIST (6.14+): another aging of this lruvec is making the generation */
			if (err.code == LRU_EBUSY) {
				skipped++;
				log_debug("aging '%s' node %d: %s", m->path, lv->node, err.msg);
				continue;
			}
			failed++;
			/* one debugfs file for all: no point going on; memory.lru_gen: per memcg */
			if (err.code == LRU_ENOTSUP ||
			    (snap->source != LRU_SRC_CGROUP &&
			     (err.code == LRU_EACCES || err.code == LRU_EIO))) {
				block(a, err.msg);
				break;
			}
			log_debug("aging '%s' node %d: %s", m->path, lv->node, err.msg);
			continue;
		}
		written++;
		unblock(a);
	}
	lru_kwrite_close(&w);
	st->aging_writes_total += written;
	st->aging_skipped_total += skipped;
	st->aging_errors_total += failed;
	log_info("aging: %" PRIu64 " written, %" PRIu64 " skipped (aged within the interval), "
		 "%" PRIu64 " failed", written, skipped, failed);
}
