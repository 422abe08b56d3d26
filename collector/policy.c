/* policy.c - proactive reclaim of generations idle longer than a threshold. */
#include "policy.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "lru_cmd.h"
#include "lru_kwrite.h"
#include "lru_psi.h"
#include "lru_select.h"
#include "lru_sys.h"
#include "lru_units.h"

/* Set or clear the pause reason, logging transitions only. */
static void set_paused(struct policy *p, const char *why)
{
	if (why && strcmp(p->paused, why))
		log_warn("reclaim paused: %s", why);
	else if (!why && p->paused[0])
		log_info("reclaim resumed");
	snprintf(p->paused, sizeof(p->paused), "%s", why ? why : "");
}

/* Is memory or I/O pressure too high (or unknown) to reclaim now? */
static bool under_pressure(struct policy *p, const struct config *cfg)
{
	static const struct {
		const char *path, *what;
	} files[] = { { LRU_PATH_PSI_MEMORY, "memory" }, { LRU_PATH_PSI_IO, "io" } };
	char why[LRU_ERRMSG_MAX + 64];

	if (cfg->reclaim_psi_max >= 100)
		return false;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct lru_error err;
		struct lru_psi psi;

		if (lru_psi_read(cfg->root, files[i].path, &psi, &err)) {
			snprintf(why, sizeof(why), "cannot read PSI (%s): pressure cannot be watched",
				 err.msg);
			set_paused(p, why);
			return true;
		}
		if (psi.some.avg10 > cfg->reclaim_psi_max) {
			snprintf(why, sizeof(why), "%s pressure 'some avg10' is %.2f%%, above %g%%",
				 files[i].what, psi.some.avg10, cfg->reclaim_psi_max);
			set_paused(p, why);
			return true;
		}
	}
	set_paused(p, NULL);
	return false;
}

static int swappiness(const struct config *cfg)
{
	char line[32];

	if (cfg->reclaim_swappiness >= 0)
		return (int)cfg->reclaim_swappiness;
	if (lru_sys_read_line(cfg->root, "/proc/sys/vm/swappiness", line, sizeof(line), NULL))
		return 60;
	return atoi(line) < 0 || atoi(line) > 200 ? 60 : atoi(line);
}

/* Resident pages per memcg (index into snap->memcgs), summed over nodes. */
static uint64_t *memcg_pages(const struct lru_snapshot *snap)
{
	uint64_t *pages = calloc(snap->nr_memcgs ? snap->nr_memcgs : 1, sizeof(*pages));

	for (size_t i = 0; pages && i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];

		pages[lv->memcg] += lru_lruvec_pages(lv, LRU_ANON) + lru_lruvec_pages(lv, LRU_FILE);
	}
	return pages;
}

/* Can the kernel file be written, or should we only log (dry run, fixture root)? */
static bool can_write(struct policy *p, const struct config *cfg, const struct lru_iface *ifc,
		      bool *dry)
{
	struct lru_error err;

	*dry = cfg->reclaim_dry_run;
	if (*dry)
		return true;
	lru_error_clear(&err);
	if (!lru_kwrite_probe(cfg->root, ifc, &err)) {
		p->blocked[0] = '\0';
		return true;
	}
	if (strcmp(p->blocked, err.msg))
		log_warn("reclaim: %s%s", err.msg,
			 err.code == LRU_ENOTSUP ? ": logging commands without writing them" : "");
	snprintf(p->blocked, sizeof(p->blocked), "%s", err.msg);
	*dry = err.code == LRU_ENOTSUP;
	return *dry;
}

void policy_run(struct policy *p, const struct config *cfg, const struct lru_iface *ifc,
		const struct advice *adv, const struct lru_snapshot *snap, struct stats *st)
{
	struct lru_select sel = {
		.include = cfg->reclaim_include.v, .nr_include = cfg->reclaim_include.n,
		.exclude = cfg->reclaim_exclude.v, .nr_exclude = cfg->reclaim_exclude.n,
	};
	uint64_t page = snap->page_size ? snap->page_size : 4096;
	uint64_t budget = cfg->reclaim_max_bytes / page, floor = cfg->reclaim_floor / page;
	uint64_t *pages;
	struct lru_kwriter w;
	int swp;
	bool dry;

	if (!cfg->reclaim)
		return;
	if (under_pressure(p, cfg)) {
		st->reclaim_paused_total++;
		return;
	}
	if (!can_write(p, cfg, ifc, &dry))
		return;
	lru_kwrite_init(&w);
	pages = memcg_pages(snap);
	swp = swappiness(cfg);
	for (size_t i = 0; pages && budget && i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];
		const struct lru_memcg *m = lru_lruvec_memcg(snap, lv);
		uint64_t room = pages[lv->memcg] > floor ? pages[lv->memcg] - floor : 0, asked;
		char text[LRU_CMD_MAX], b1[32], b2[32];
		struct lru_error err;
		struct lru_cmd cmd;

		uint64_t older = cfg->reclaim_older_than_ms;

		if (!lru_select_path(&sel, m->path) || lru_memcg_dying(snap, m))
			continue;
		if (older == CFG_ADVISED && !(older = advice_for(adv, m->path))) {
			log_debug("reclaim '%s' node %d: the store advises no threshold", m->path,
				  lv->node);
			continue;
		}
		lru_error_clear(&err);
		if (lru_cmd_evict_older_than(snap, lv, older, swp,
					     (budget < room ? budget : room) * page, &cmd, &asked,
					     &err)) {
			if (err.code != LRU_ENOENT)
				log_debug("reclaim '%s' node %d: %s", m->path, lv->node, err.msg);
			continue;
		}
		if (!asked)
			continue;
		if (!room) {
			st->reclaim_floor_total++;
			log_debug("reclaim '%s' node %d: at its floor of %s", m->path, lv->node,
				  lru_fmt_bytes(cfg->reclaim_floor, b1, sizeof(b1)));
			continue;
		}
		lru_cmd_format(&cmd, text, sizeof(text));
		text[strcspn(text, "\n")] = '\0';
		if (!dry && lru_kwrite_lruvec(&w, cfg->root, snap, lv, &cmd, &err)) {
			st->reclaim_errors_total++;
			log_warn("reclaim '%s' node %d: %s", m->path, lv->node, err.msg);
			continue;
		}
		if (dry)
			st->reclaim_dry_run_total++;
		else
			st->reclaim_commands_total++;
		st->reclaim_requested_bytes_total += asked * page;
		log_info("reclaim '%s' node %d: %s '%s': %s idle longer than %s%s", m->path, lv->node,
			 dry ? "would write" : "wrote", text, lru_fmt_bytes(asked * page, b1, sizeof(b1)),
			 lru_fmt_duration_exact(older, b2, sizeof(b2)),
			 cfg->reclaim_older_than_ms == CFG_ADVISED ? " (advised)" : "");
		budget -= asked;
		pages[lv->memcg] -= asked;
		if (!budget)
			log_info("reclaim: the per-tick budget of %s is used up",
				 lru_fmt_bytes(cfg->reclaim_max_bytes, b1, sizeof(b1)));
	}
	free(pages);
	lru_kwrite_close(&w);
}
