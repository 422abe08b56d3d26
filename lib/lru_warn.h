/*
 * lru_warn.h - when generations are not the truth: accuracy warnings, and
 * the DAMON monitors that cause them.
 *
 * MGLRU's aging promotes a page when its page-table walk finds the page's
 * accessed bit set. Whatever else clears accessed bits hides accesses from
 * it. DAMON does, on every sample: damon_stat (built in and on by default in
 * Debian's 7.x kernels), damon_reclaim, damon_lru_sort and kdamonds started
 * through /sys/kernel/mm/damon/admin. It keeps what it cleared in the page's
 * PG_young flag, which reclaim's rmap walk honours and the aging's walk does
 * not (lrugen's kernel series fixes that for huge pages). A sample on a
 * PMD-mapped transparent huge page clears the bit of all 2 MiB of it, so a
 * memcg whose memory is in huge pages loses most of its hot set to the
 * oldest generation (measured on Debian's 7.3: a 32 MiB hot set read as
 * 14 MiB; with damon_stat off, exact). Eviction is hit too: the cold huge
 * pages DAMON sampled carry PG_young, look referenced to reclaim and move
 * into a young generation instead of being freed.
 *
 * Since 6.14 the aging promotes a folio on its second sighting (the first
 * sets PG_referenced). A folio that reaches the oldest generation before
 * its first promotion never gets the second: each aging ends by folding
 * the oldest generation, which clears PG_referenced. Mapped page cache gets
 * there (read with read(2) first, or on another node than its task: on
 * Debian's 7.3, 16 MiB used every 100 ms read as 0 hot), and so do huge
 * pages DAMON kept from being seen. lrugen's series fixes both (its first
 * two patches); other kernels from 6.14 on are warned.
 *
 * Warning codes are a contract (JSON, snapshots, /metrics, the store):
 *
 *   thp_unaged    (lruvec) a DAMON monitor runs, this kernel's aging does
 *                 not see what it clears, and the memcg has huge pages: the
 *                 hot bytes are a lower bound, the cold bytes an upper bound
 *   file_unaged   (lruvec) a 6.14+ kernel without the fix, and the memcg
 *                 maps page cache (memory.stat file_mapped of its own, at
 *                 least LRU_WARN_FILE_MAPPED_MIN): hot file bytes are a
 *                 lower bound, by at most that much
 *   damon_active  (host) a DAMON monitor runs on a kernel whose aging does
 *                 not see what it clears
 *
 * Every function takes the usual root (lru_sys.h): a fixture tree stands in
 * for the live system. Nothing here prints.
 */
#ifndef LRU_WARN_H
#define LRU_WARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_model.h"

/* lruvec warnings (struct lru_lruvec.warnings) */
#define LRU_WARN_THP_UNAGED (1u << 0)
#define LRU_WARN_FILE_UNAGED (1u << 1)
#define LRU_WARN_ALL (LRU_WARN_THP_UNAGED | LRU_WARN_FILE_UNAGED)
/* own mapped page cache that makes file_unaged worth saying */
#define LRU_WARN_FILE_MAPPED_MIN (4u << 20)

/* host warnings (struct lru_host.warnings) */
#define LRU_HOSTW_DAMON (1u << 0)
#define LRU_HOSTW_ALL LRU_HOSTW_DAMON

#define LRU_PATH_DAMON_STAT "/sys/module/damon_stat/parameters/enabled"
#define LRU_PATH_DAMON_RECLAIM "/sys/module/damon_reclaim/parameters/enabled"
#define LRU_PATH_DAMON_LRU_SORT "/sys/module/damon_lru_sort/parameters/enabled"
#define LRU_PATH_DAMON_KDAMONDS "/sys/kernel/mm/damon/admin/kdamonds"

/* The code of one lruvec (host) warning bit, "thp_unaged"; NULL if unknown. */
const char *lru_warn_name(uint32_t bit);
const char *lru_hostwarn_name(uint32_t bit);
/* The bit of a code; 0 if unknown (decoders drop codes they do not know). */
uint32_t lru_warn_bit(const char *name);
uint32_t lru_hostwarn_bit(const char *name);
/* One sentence a person can act on, for --help, footnotes and doctor. */
const char *lru_warn_help(uint32_t bit);
const char *lru_hostwarn_help(uint32_t bit);
/* What a code means for the figures, in a few words (a status bar). */
const char *lru_warn_brief(bool host, uint32_t bit);

/*
 * Write the codes of the bits in mask, comma-separated ("thp_unaged"), into
 * buf; "" for none. Returns buf.
 */
char *lru_warn_list(uint32_t mask, bool host, char *buf, size_t size);

/* The DAMON monitors running on a host. */
struct lru_damon {
	bool stat;		/* damon_stat enabled */
	bool reclaim;		/* damon_reclaim enabled */
	bool lru_sort;		/* damon_lru_sort enabled */
	unsigned kdamonds;	/* sysfs kdamonds in state "on" */
};

/* Read them; a missing file or directory means "not running". Never fails. */
void lru_damon_read(const char *root, struct lru_damon *d);
static inline bool lru_damon_active(const struct lru_damon *d)
{
	return d->stat || d->reclaim || d->lru_sort || d->kdamonds;
}
/* "damon_stat, 1 kdamond (sysfs)" into buf; "" when none runs. Returns buf. */
char *lru_damon_describe(const struct lru_damon *d, char *buf, size_t size);

/*
 * Turn damon_stat off (write "N" to its enabled parameter), the one DAMON
 * monitor a distribution turns on by itself. *changed says whether it was on.
 * LRU_OK when it is off afterwards or absent; LRU_EACCES without permission;
 * LRU_EIO when the write failed (the message names the file). A fixture's
 * regular file is left alone: LRU_ENOTSUP ("not a kernel file").
 */
enum lru_err lru_damon_stat_off(const char *root, bool *changed, struct lru_error *err);

/*
 * Does this kernel's aging see what DAMON and idle page tracking clear, and
 * promote a folio seen in the oldest generation? lrugen's kernel series
 * (the one that adds memory.lru_gen) makes it so, so the answer is
 * "memory.lru_gen exists below ROOT/sys/fs/cgroup".
 */
bool lru_warn_kernel_sees_young(const char *root);

/*
 * Does this kernel promote on the second sighting (Linux 6.14 and later,
 * from ROOT/proc/sys/kernel/osrelease)? Without the series, such a kernel
 * keeps a folio that reached the oldest generation unpromoted there.
 */
bool lru_warn_kernel_two_sightings(const char *root);

/* Huge-page bytes of a memcg: memory.stat anon_thp + file_thp + shmem_thp. */
static inline uint64_t lru_memcg_thp_bytes(const struct lru_memcg *m)
{
	return m->has_stats ? m->stats.thp_bytes : 0;
}

/* The kernel as lru_warn_apply() needs to know it. */
struct lru_warn_kernel {
	bool sees_young;	/* lru_warn_kernel_sees_young() */
	bool two_sightings;	/* lru_warn_kernel_two_sightings() */
};

/*
 * Set snap->host.warnings and every lruvec's warnings: damon_active when a
 * DAMON monitor in d runs and the kernel does not see what it clears;
 * thp_unaged on the lruvecs of memcgs with huge pages on such a host;
 * file_unaged on those of memcgs mapping at least LRU_WARN_FILE_MAPPED_MIN
 * of page cache of their own on a two-sightings kernel without the fix.
 * memory.stat is hierarchical: a memcg's own figure is its own minus its
 * nearest listed descendants'. A memcg without stats (has_stats false) is
 * warned where a warning could apply: a bound is never presented as exact.
 * Warnings already set are kept.
 */
void lru_warn_apply(struct lru_snapshot *snap, const struct lru_damon *d,
		    const struct lru_warn_kernel *k);

/*
 * Everything in one call for a live (or fixture) host: read DAMON's state
 * and the kernel's, and where a warning could apply each memcg's
 * memory.stat, then lru_warn_apply(). *d receives what was read (may be
 * NULL).
 */
void lru_warn_read_apply(const char *root, struct lru_snapshot *snap, struct lru_damon *d);

#endif
