/* collect.c - read one HostSnapshot's worth of kernel state. */
#include "collect.h"

#include <string.h>
#include <unistd.h>

#include "log.h"
#include "lru_select.h"
#include "lru_sys.h"
#include "lru_warn.h"

void collect_host_name(const struct config *cfg, char *buf, size_t size)
{
	if (cfg->host[0]) {
		snprintf(buf, size, "%s", cfg->host);
		return;
	}
	if (!lru_sys_read_line(cfg->root, LRU_PATH_HOSTNAME, buf, size, NULL) && buf[0])
		return;
	if (gethostname(buf, size))
		snprintf(buf, size, "localhost");
	buf[size - 1] = '\0';
}

/* Log a failure to read generations once, until it changes or goes away. */
static int read_failed(struct collect *c, const struct lru_error *err)
{
	if (strcmp(c->last_error, err->msg)) {
		snprintf(c->last_error, sizeof(c->last_error), "%s", err->msg);
		log_error("cannot read generations: %s", err->msg);
	} else {
		log_debug("cannot read generations: %s", err->msg);
	}
	return -1;
}

int collect_select(struct collect *c, const struct config *cfg)
{
	struct lru_error err;
	char now[LRU_ERRMSG_MAX];

	lru_error_clear(&err);
	if (lru_iface_select(&c->iface, cfg->root, (enum lru_iface_mode)cfg->interface, cfg->full,
			     &err))
		return read_failed(c, &err);
	snprintf(now, sizeof(now), "%s", c->iface.why);
	if (strcmp(now, c->last_iface)) {
		log_info("interface: %s: %s",
			 c->iface.used == LRU_IFACE_CGROUP ? "memory.lru_gen" : "debugfs lru_gen",
			 now);
		snprintf(c->last_iface, sizeof(c->last_iface), "%s", now);
	}
	return 0;
}

/* DAMON: turn damon_stat off (or not), and warn the snapshot (see collect.h). */
static void collect_damon(struct collect *c, const struct config *cfg, struct lru_snapshot *snap)
{
	struct lru_warn_kernel k = { false, false };
	struct lru_error err;
	struct lru_damon d;
	char who[128];
	bool changed, before = c->damon_before;

	lru_damon_read(cfg->root, &d);
	if (lru_damon_active(&d) && lru_warn_kernel_sees_young(cfg->root))
		memset(&d, 0, sizeof(d));	/* nothing to hide from this kernel */
	if (d.stat && cfg->damon_stat == CFG_DAMON_STAT_OFF) {
		lru_error_clear(&err);
		if (!lru_damon_stat_off(cfg->root, &changed, &err)) {
			if (changed)
				log_warn("turned damon_stat off: it clears accessed bits this kernel's "
					 "aging does not see (damon_stat = keep leaves it)");
			d.stat = false;
			c->last_damon_error[0] = '\0';
		} else if (strcmp(err.msg, c->last_damon_error)) {
			log_warn("cannot turn damon_stat off: %s", err.msg);
			snprintf(c->last_damon_error, sizeof(c->last_damon_error), "%s", err.msg);
		}
	}
	lru_damon_describe(&d, who, sizeof(who));
	if (strcmp(who, c->last_damon)) {
		if (who[0])
			log_warn("DAMON monitors run (%s): lruvecs of memcgs in huge pages are marked "
				 "thp_unaged (their hot bytes are lower bounds)", who);
		else if (c->last_damon[0])
			log_info("no DAMON monitor runs any more: the next aging's generations "
				 "see every access again");
		snprintf(c->last_damon, sizeof(c->last_damon), "%s", who);
	}
	c->damon_before = lru_damon_active(&d);
	if (!lru_damon_active(&d) && before)
		d.kdamonds = 1;	/* stopped since the last aging: its generations still lie */
	k.two_sightings = lru_warn_kernel_two_sightings(cfg->root);
	if (!lru_damon_active(&d) && !k.two_sightings)
		return;
	k.sees_young = lru_warn_kernel_sees_young(cfg->root);
	for (size_t i = 0; !k.sees_young && i < snap->nr_memcgs; i++)
		if (!snap->memcgs[i].has_stats)
			lru_sys_read_memcg_stats(cfg->root, &snap->memcgs[i]);
	lru_warn_apply(snap, &d, &k);
}

int collect_snapshot(struct collect *c, const struct config *cfg, const struct lru_aging *aging,
		     struct lru_snapshot *snap, struct stats *st)
{
	struct lru_select sel = {
		.include = cfg->include.v, .nr_include = cfg->include.n,
		.exclude = cfg->exclude.v, .nr_exclude = cfg->exclude.n,
		.keep_empty = !cfg->skip_empty, .keep_dying = !cfg->skip_dying,
	};
	struct lru_error err;
	size_t counts[LRU_SEL_NR];
	char host[256];

	lru_error_clear(&err);
	if (lru_iface_read(&c->iface, cfg->root, snap, &err))
		return read_failed(c, &err);
	if (c->last_error[0]) {
		log_info("generations readable again");
		c->last_error[0] = '\0';
	}
	if (strcmp(c->iface.root_note, c->last_root_note)) {
		if (c->iface.root_missing)
			log_warn("%s", c->iface.root_note);
		snprintf(c->last_root_note, sizeof(c->last_root_note), "%s", c->iface.root_note);
	}
	if (lru_sys_read_host(cfg->root, snap, &err) || lru_sys_read_nodes(cfg->root, snap, &err)) {
		log_error("cannot read host information: %s", err.msg);
		return -1;
	}
	collect_host_name(cfg, host, sizeof(host));
	if (lru_strdup_into(&snap->host.host, host, &err))
		return -1;
	if (!snap->host.boot_id && !c->warned_boot_id) {
		log_warn("no boot id in %s: snapshots carry an empty one", LRU_PATH_BOOT_ID);
		c->warned_boot_id = true;
	}
	lru_select_apply(&sel, snap, counts);
	memcpy(st->memcgs_left_out, counts, sizeof(counts));
	st->kernel_duplicates_total += snap->nr_duplicates;
	if (snap->source != LRU_SRC_CGROUP)	/* the cgroup walk set them */
		lru_sys_fill_inodes(cfg->root, NULL, snap);
	if (cfg->memcg_stats)
		for (size_t i = 0; i < snap->nr_memcgs; i++)
			lru_sys_read_memcg_stats(cfg->root, &snap->memcgs[i]);
	collect_damon(c, cfg, snap);
	snap->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	snap->host.aging = *aging;
	return 0;
}
