#include "lru_warn.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_iface.h"
#include "lru_sys.h"

struct code {
	uint32_t bit;
	const char *name;
	const char *help;
	const char *brief;	/* what it means for the figures, in a few words */
};

static const struct code lruvec_codes[] = {
	{ LRU_WARN_THP_UNAGED, "thp_unaged",
	  "a DAMON monitor clears the accessed bits of this memcg's huge pages where the "
	  "kernel's aging does not look: hot is a lower bound, cold an upper bound",
	  "hot is a lower bound (DAMON hides huge-page accesses)" },
	{ LRU_WARN_FILE_UNAGED, "file_unaged",
	  "this kernel (6.14 or later, without lrugen's series) keeps mapped page cache that "
	  "reached the oldest generation there however often it is used: hot file bytes are "
	  "a lower bound, by at most the memcg's mapped page cache",
	  "hot file is a lower bound (mapped page cache stuck as oldest)" },
};

static const struct code host_codes[] = {
	{ LRU_HOSTW_DAMON, "damon_active",
	  "a DAMON monitor runs and this kernel's aging does not see the accesses it "
	  "clears: memory in huge pages reads colder than it is",
	  "DAMON hides accesses from the aging" },
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* The codes of lruvec (host false) or host warnings. */
static const struct code *codes(bool host, size_t *n)
{
	*n = host ? NR(host_codes) : NR(lruvec_codes);
	return host ? host_codes : lruvec_codes;
}

static const struct code *by_bit(bool host, uint32_t bit)
{
	size_t n;
	const struct code *t = codes(host, &n);

	for (size_t i = 0; i < n; i++)
		if (t[i].bit == bit)
			return &t[i];
	return NULL;
}

static uint32_t by_name(bool host, const char *name)
{
	size_t n;
	const struct code *t = codes(host, &n);

	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(t[i].name, name))
			return t[i].bit;
	return 0;
}

const char *lru_warn_name(uint32_t bit)
{
	return by_bit(false, bit) ? by_bit(false, bit)->name : NULL;
}

const char *lru_hostwarn_name(uint32_t bit)
{
	return by_bit(true, bit) ? by_bit(true, bit)->name : NULL;
}

uint32_t lru_warn_bit(const char *name)
{
	return by_name(false, name);
}

uint32_t lru_hostwarn_bit(const char *name)
{
	return by_name(true, name);
}

const char *lru_warn_help(uint32_t bit)
{
	return by_bit(false, bit) ? by_bit(false, bit)->help : NULL;
}

const char *lru_hostwarn_help(uint32_t bit)
{
	return by_bit(true, bit) ? by_bit(true, bit)->help : NULL;
}

const char *lru_warn_brief(bool host, uint32_t bit)
{
	return by_bit(host, bit) ? by_bit(host, bit)->brief : NULL;
}

char *lru_warn_list(uint32_t mask, bool host, char *buf, size_t size)
{
	size_t n, used = 0;
	const struct code *t = codes(host, &n);

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < n && size; i++) {
		int w;

		if (!(mask & t[i].bit))
			continue;
		w = snprintf(buf + used, size - used, "%s%s", used ? "," : "", t[i].name);
		if (w < 0 || (size_t)w >= size - used) {
			buf[used] = '\0';	/* no partial code */
			break;
		}
		used += (size_t)w;
	}
	return buf;
}

/* A module parameter file reading "Y" (or "1"): the module is enabled. */
static bool param_on(const char *root, const char *abs)
{
	char v[16];

	return !lru_sys_read_line(root, abs, v, sizeof(v), NULL) && (v[0] == 'Y' || v[0] == '1');
}

void lru_damon_read(const char *root, struct lru_damon *d)
{
	char path[LRU_PATH_MAX], rel[LRU_PATH_MAX], v[16];
	struct dirent *de;
	DIR *dir;

	memset(d, 0, sizeof(*d));
	d->stat = param_on(root, LRU_PATH_DAMON_STAT);
	d->reclaim = param_on(root, LRU_PATH_DAMON_RECLAIM);
	d->lru_sort = param_on(root, LRU_PATH_DAMON_LRU_SORT);
	if (lru_sys_path(root, LRU_PATH_DAMON_KDAMONDS, path, sizeof(path), NULL) ||
	    !(dir = opendir(path)))
		return;
	while ((de = readdir(dir))) {
		/* kdamonds/0, 1, ...; also nr_kdamonds, which is not a directory of digits */
		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/state", LRU_PATH_DAMON_KDAMONDS, de->d_name);
		if (!lru_sys_read_line(root, rel, v, sizeof(v), NULL) && !strcmp(v, "on"))
			d->kdamonds++;
	}
	closedir(dir);
}

char *lru_damon_describe(const struct lru_damon *d, char *buf, size_t size)
{
	size_t used = 0;
	const char *names[3] = { d->stat ? "damon_stat" : NULL, d->reclaim ? "damon_reclaim" : NULL,
				 d->lru_sort ? "damon_lru_sort" : NULL };

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < 3 && size; i++) {
		int w;

		if (!names[i])
			continue;
		w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", names[i]);
		if (w < 0 || (size_t)w >= size - used) {
			buf[used] = '\0';	/* no partial name */
			return buf;
		}
		used += (size_t)w;
	}
	if (d->kdamonds && used < size)
		snprintf(buf + used, size - used, "%s%u kdamond%s (sysfs)", used ? ", " : "",
			 d->kdamonds, d->kdamonds == 1 ? "" : "s");
	return buf;
}

enum lru_err lru_damon_stat_off(const char *root, bool *changed, struct lru_error *err)
{
	*changed = false;
	if (!param_on(root, LRU_PATH_DAMON_STAT))
		return LRU_OK;
	if (lru_sys_write_knob(root, LRU_PATH_DAMON_STAT, "N", err))
		return err ? err->code : LRU_EIO;
	if (param_on(root, LRU_PATH_DAMON_STAT))
		return lru_fail(err, LRU_EIO, "damon_stat is still enabled after writing 'N' to '%s'",
				LRU_PATH_DAMON_STAT);
	*changed = true;
	return LRU_OK;
}

bool lru_warn_kernel_sees_young(const char *root)
{
	struct lru_iface ifc;

	return !lru_iface_select(&ifc, root, LRU_IFACE_AUTO, false, NULL) &&
	       ifc.used == LRU_IFACE_CGROUP;
}

/*
 * Index of the nearest ancestor of memcg m in snap (memcgs a selection left
 * out are skipped), or SIZE_MAX.
 */
static size_t parent_of(const struct lru_snapshot *snap, size_t m)
{
	const char *path = snap->memcgs[m].path;
	size_t len = strlen(path);

	while (len > 1) {
		while (len > 0 && path[len - 1] != '/')	/* "/a/b" -> "/a/" */
			len--;
		if (len > 1)
			len--;				/* "/a/" -> "/a"; "/" stays */
		if (!len)
			break;
		for (size_t i = 0; i < snap->nr_memcgs; i++) {
			const char *p = snap->memcgs[i].path;

			if (i != m && strlen(p) == len && !strncmp(p, path, len))
				return i;
		}
	}
	return SIZE_MAX;
}

/*
 * Each memcg's own part of a hierarchical memory.stat figure (get()):
 * its value minus that of its nearest listed descendants; unknown[] marks
 * memcgs without stats and their ancestors.
 */
static void own_values(const struct lru_snapshot *snap, uint64_t (*get)(const struct lru_memcg *),
		       uint64_t *own, bool *unknown)
{
	size_t n = snap->nr_memcgs, i;

	for (i = 0; i < n; i++) {
		own[i] = get(&snap->memcgs[i]);
		unknown[i] = !snap->memcgs[i].has_stats;
	}
	for (i = 0; i < n; i++) {
		size_t p = parent_of(snap, i);
		uint64_t v = get(&snap->memcgs[i]);

		if (p == SIZE_MAX)
			continue;
		if (unknown[i])
			unknown[p] = true;
		else if (!unknown[p])
			own[p] -= own[p] < v ? own[p] : v;
	}
}

static uint64_t thp_of(const struct lru_memcg *m)
{
	return lru_memcg_thp_bytes(m);
}

static uint64_t mapped_of(const struct lru_memcg *m)
{
	return m->has_stats ? m->stats.file_mapped_bytes : 0;
}

/* OR bit into the lruvecs of memcgs whose own figure is above min (or unknown). */
static void warn_by(struct lru_snapshot *snap, uint64_t (*get)(const struct lru_memcg *),
		    uint64_t min, uint32_t bit)
{
	size_t n = snap->nr_memcgs ? snap->nr_memcgs : 1, i;
	uint64_t *own = calloc(n, sizeof(*own));
	bool *unknown = calloc(n, sizeof(*unknown));

	if (!own || !unknown) {
		/* no memory to tell: a bound is never presented as exact */
		for (i = 0; i < snap->nr_lruvecs; i++)
			snap->lruvecs[i].warnings |= bit;
	} else {
		own_values(snap, get, own, unknown);
		for (i = 0; i < snap->nr_lruvecs; i++) {
			struct lru_lruvec *lv = &snap->lruvecs[i];

			if (unknown[lv->memcg] || own[lv->memcg] > min)
				lv->warnings |= bit;
		}
	}
	free(own);
	free(unknown);
}

void lru_warn_apply(struct lru_snapshot *snap, const struct lru_damon *d,
		    const struct lru_warn_kernel *k)
{
	if (k->sees_young)
		return;
	if (lru_damon_active(d)) {
		snap->host.warnings |= LRU_HOSTW_DAMON;
		warn_by(snap, thp_of, 0, LRU_WARN_THP_UNAGED);
	}
	if (k->two_sightings)
		warn_by(snap, mapped_of, LRU_WARN_FILE_MAPPED_MIN - 1, LRU_WARN_FILE_UNAGED);
}

bool lru_warn_kernel_two_sightings(const char *root)
{
	char rel[128];

	return !lru_sys_read_line(root, LRU_PATH_OSRELEASE, rel, sizeof(rel), NULL) &&
	       lru_release_at_least(rel, 6, 14) == 1;
}

void lru_warn_read_apply(const char *root, struct lru_snapshot *snap, struct lru_damon *out)
{
	struct lru_warn_kernel k = { false, false };
	struct lru_damon d;

	lru_damon_read(root, &d);
	if (out)
		*out = d;
	k.two_sightings = lru_warn_kernel_two_sightings(root);
	if (!lru_damon_active(&d) && !k.two_sightings)
		return;
	k.sees_young = lru_warn_kernel_sees_young(root);
	if (k.sees_young)
		return;
	for (size_t i = 0; i < snap->nr_memcgs; i++)
		if (!snap->memcgs[i].has_stats)
			lru_sys_read_memcg_stats(root, &snap->memcgs[i]);
	lru_warn_apply(snap, &d, &k);
}
