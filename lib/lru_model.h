/*
 * lru_model.h - the snapshot model: memcgs, lruvecs and their generations.
 *
 * One struct lru_snapshot holds one read of the kernel's MGLRU state
 * (debugfs lru_gen / lru_gen_full or, later, cgroup memory.lru_gen):
 *
 *	snapshot --< memcg (id, path, cgroup inode)
 *	         --< lruvec (memcg, node) --< generation (seq, age, anon, file)
 *
 * Sizes are in pages (snapshot->page_size bytes each), as the kernel prints
 * them. Ages are the kernel's age_in_ms. Birth times are absolute wall-clock
 * milliseconds since the Unix epoch, computed by lru_snapshot_set_times()
 * from the read window, so that snapshots of different hosts and memcgs share
 * one timeline; snapshot->birth_error_ms bounds their error.
 *
 * Ownership: the snapshot owns every memcg path, every lruvec and their
 * optional "full" detail. lru_snapshot_init() allocates nothing;
 * lru_snapshot_release() frees the contents and leaves an empty snapshot.
 */
#ifndef LRU_MODEL_H
#define LRU_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "lru_err.h"

/* MAX_NR_GENS and MAX_NR_TIERS of include/linux/mmzone.h, unchanged 6.1..6.18 */
#define LRU_MAX_GENS 4
#define LRU_NR_TIERS 4
/* generations younger than this many (the two youngest) cannot be evicted */
#define LRU_MIN_NR_GENS 2
/* longest memcg path accepted (the kernel's PATH_MAX) */
#define LRU_PATH_MAX 4096
/* highest node id accepted (the kernel's MAX_NUMNODES is at most 1024) */
#define LRU_NODE_MAX 1023
/* age_in_ms comes from jiffies: up to one jiffy (10 ms at HZ=100) too low */
#define LRU_AGE_GRANULARITY_MS 10

enum lru_type { LRU_ANON = 0, LRU_FILE = 1, LRU_NR_TYPES };

/* Where a snapshot was read from. */
enum lru_source {
	LRU_SRC_DEBUGFS = 0,	  /* /sys/kernel/debug/lru_gen */
	LRU_SRC_DEBUGFS_FULL = 1, /* /sys/kernel/debug/lru_gen_full */
	LRU_SRC_CGROUP = 2,	  /* <cgroup>/memory.lru_gen (patched kernels) */
};

/*
 * Per-tier counters of lru_gen_full, one set per type. Which ones a kernel
 * prints depends on the row: the youngest generation carries the moving
 * averages (suffixes R T), the oldest generation of each type the counters of
 * the current histogram (r e p). Bit (type * LRU_TC_NR + counter) of
 * 'present' says a value was printed; unprinted values are 0.
 */
enum lru_tier_counter {
	LRU_TC_REFAULTED = 0,	  /* 'r': pages refaulted from this tier */
	LRU_TC_EVICTED,		  /* 'e': pages evicted from this tier */
	LRU_TC_PROTECTED,	  /* 'p': pages protected (promoted) from tier-1 */
	LRU_TC_AVG_REFAULTED,	  /* 'R': moving average of refaulted */
	LRU_TC_AVG_TOTAL,	  /* 'T': moving average of total (evicted+protected) */
	LRU_TC_NR
};

struct lru_tier {
	uint64_t v[LRU_NR_TYPES][LRU_TC_NR];
	uint32_t present;
};

/*
 * The page-table walk counters of lru_gen_full (cumulative). 6.1 prints
 * L O Y N F A on the youngest generation; 6.12 prints T Y F A where T is the
 * leaf total. 'present' has bit (1 << counter) for each value printed.
 */
enum lru_walk_counter {
	LRU_WALK_LEAF_TOTAL = 0, /* 'L' (6.1) or 'T' (6.12+) */
	LRU_WALK_LEAF_OLD,	 /* 'O' */
	LRU_WALK_LEAF_YOUNG,	 /* 'Y' */
	LRU_WALK_NONLEAF_TOTAL,	 /* 'N' */
	LRU_WALK_BLOOM_FOUND,	 /* 'F': non-leaf entries found in Bloom filters */
	LRU_WALK_BLOOM_ADDED,	 /* 'A': non-leaf entries added to Bloom filters */
	LRU_WALK_NR
};

struct lru_walk {
	uint64_t v[LRU_WALK_NR];
	uint32_t present;
};

struct lru_gen {
	uint64_t seq;
	uint32_t age_ms;		/* kernel age_in_ms at the read */
	uint8_t evicted;		/* bit (1 << type): 'x' mark in lru_gen_full */
	uint64_t pages[LRU_NR_TYPES];	/* anon and file pages */
	int64_t birth_ms;		/* wall clock, ms since the epoch */
};

/* lru_gen_full detail of one lruvec, per generation (same index as gens[]). */
struct lru_full {
	bool has_tiers[LRU_MAX_GENS];
	struct lru_tier tiers[LRU_MAX_GENS][LRU_NR_TIERS];
	bool has_walk[LRU_MAX_GENS];
	struct lru_walk walk[LRU_MAX_GENS];
};

/* memory.stat / memory.current / memory.pressure essentials (collector). */
struct lru_memcg_stats {
	uint64_t anon_bytes, file_bytes, inactive_file_bytes, current_bytes;
	uint64_t refault_anon, refault_file;	/* workingset_refault_*, pages */
	uint64_t pgsteal;			/* pages reclaimed (kswapd, direct, proactive) */
	uint64_t thp_bytes;			/* anon_thp + file_thp + shmem_thp */
	uint64_t file_mapped_bytes;		/* file_mapped */
	double some_avg10, full_avg10;		/* memory.pressure, percent */
	uint64_t some_total_us;
};

/*
 * id is the kernel's memcg id (16-bit up to 2026, then the cgroup id) as
 * debugfs prints it, 0 for an offline memcg. memory.lru_gen names no id:
 * in an LRU_SRC_CGROUP snapshot id is 0 ("unknown") for every memcg read
 * from it, and only the root memcg, taken from debugfs, has one. Test
 * offline-ness with lru_memcg_dying(), never with id == 0 alone.
 */
struct lru_memcg {
	uint64_t id;	/* kernel memcg id; 0 = offline (debugfs) or unknown (cgroup) */
	uint64_t ino;	/* cgroupfs inode, 0 when unknown */
	char *path;	/* "/" for the root; "" when memcg is disabled; owned */
	bool has_stats;
	struct lru_memcg_stats stats;
};

struct lru_lruvec {
	size_t memcg;			/* index into snapshot->memcgs */
	int node;
	unsigned nr_gens;		/* 1..LRU_MAX_GENS */
	struct lru_gen gens[LRU_MAX_GENS]; /* ascending seq, contiguous */
	struct lru_full *full;		/* NULL unless from lru_gen_full; owned */
	uint32_t warnings;		/* LRU_WARN_* bits (lru_warn.h) */
};

/* Per-node memory totals from /sys/devices/system/node/nodeN/meminfo, bytes. */
struct lru_node_mem {
	int node;
	uint64_t total;
	uint64_t free;
	uint64_t file;		/* FilePages */
	uint64_t anon;		/* AnonPages */
};

/* How the generations were made (HostSnapshot.aging). */
struct lru_aging {
	bool enabled;		/* the collector aged them itself */
	uint32_t interval_ms;
	uint32_t jitter_ms;
	bool can_swap;
	bool force_scan;
};

/* Who and what was read (HostSnapshot header); strings owned, may be NULL. */
struct lru_host {
	char *host;
	char *boot_id;
	char *kernel;		/* kernel release */
	uint64_t seq;		/* per-host sequence number */
	uint32_t enabled;	/* lru_gen/enabled bits */
	uint32_t warnings;	/* LRU_HOSTW_* bits (lru_warn.h) */
	struct lru_aging aging;
};

struct lru_snapshot {
	struct lru_host host;
	struct lru_memcg *memcgs;
	size_t nr_memcgs, alloc_memcgs;
	struct lru_lruvec *lruvecs;
	size_t nr_lruvecs, alloc_lruvecs;
	struct lru_node_mem *nodes;
	size_t nr_nodes;

	enum lru_source source;
	uint32_t page_size;		/* bytes; 4096 unless set */
	int64_t read_start_ms;		/* wall clock before the first read(2) */
	int64_t read_end_ms;		/* wall clock after the last read(2) */
	uint32_t birth_error_ms;	/* +/- bound of every birth_ms */
	uint32_t nr_duplicates;		/* records dropped as repeats (racy reads) */
};

void lru_snapshot_init(struct lru_snapshot *snap);
void lru_snapshot_release(struct lru_snapshot *snap);

/*
 * Move the k snapshots of more (a malloc'd array, as lru_pb_decode_batch
 * returns) to the end of the growable array *v (*n used, *alloc allocated):
 * their contents move, the array more is freed. On LRU_ENOMEM they are
 * released and freed as well; *v is as it was.
 */
enum lru_err lru_snapshots_append(struct lru_snapshot **v, size_t *n, size_t *alloc,
				  struct lru_snapshot *more, size_t k, struct lru_error *err);

/*
 * Append a memcg (the path is copied) or an lruvec (zeroed, nr_gens 0).
 * On success *index receives the new element's index.
 */
enum lru_err lru_snapshot_add_memcg(struct lru_snapshot *snap, uint64_t id,
				    const char *path, size_t path_len,
				    size_t *index, struct lru_error *err);
enum lru_err lru_snapshot_add_lruvec(struct lru_snapshot *snap, size_t memcg,
				     int node, size_t *index, struct lru_error *err);
/*
 * Make room for nr_memcgs memcgs and nr_lruvecs lruvecs in all, so that
 * adding up to that many allocates nothing more; smaller counts (0 included)
 * change nothing. A hint: the add functions still grow the arrays as needed.
 */
enum lru_err lru_snapshot_reserve(struct lru_snapshot *snap, size_t nr_memcgs,
				  size_t nr_lruvecs, struct lru_error *err);

/* The lruvec of a memcg path (or of an id when path is NULL) on a node, or NULL. */
const struct lru_lruvec *lru_snapshot_find(const struct lru_snapshot *snap,
					   const char *path, uint64_t id, int node);
/* The memcg of a path, or NULL. */
const struct lru_memcg *lru_snapshot_find_memcg(const struct lru_snapshot *snap,
						const char *path);

static inline const struct lru_memcg *
lru_lruvec_memcg(const struct lru_snapshot *snap, const struct lru_lruvec *lv)
{
	return &snap->memcgs[lv->memcg];
}

static inline const struct lru_gen *lru_lruvec_youngest(const struct lru_lruvec *lv)
{
	return &lv->gens[lv->nr_gens - 1];
}

static inline uint64_t lru_lruvec_max_seq(const struct lru_lruvec *lv)
{
	return lv->gens[lv->nr_gens - 1].seq;
}

/*
 * Is memcg m offline? Debugfs prints id 0 for a memcg removed but still
 * holding pages; the cgroup tree lists only online memcgs, so nothing in an
 * LRU_SRC_CGROUP snapshot is dying. The "" memcg of a kernel without memcg
 * never is.
 */
static inline bool lru_memcg_dying(const struct lru_snapshot *snap, const struct lru_memcg *m)
{
	return snap->source != LRU_SRC_CGROUP && m->id == 0 && m->path[0];
}

/*
 * Is memcg m addressed through its own memory.lru_gen (aging, eviction)?
 * True for every memcg of an LRU_SRC_CGROUP snapshot but the root, which has
 * no such file and is read and written through debugfs by its id.
 */
static inline bool lru_memcg_uses_cgroup(const struct lru_snapshot *snap,
					 const struct lru_memcg *m)
{
	return snap->source == LRU_SRC_CGROUP && m->path[0] && strcmp(m->path, "/") != 0;
}

/*
 * Set birth_ms = mid_ms - age_ms for every generation of lruvecs
 * [from, to): those printed by one read whose window's midpoint is mid_ms.
 */
void lru_snapshot_set_births(struct lru_snapshot *snap, size_t from, size_t to, int64_t mid_ms);

/*
 * Set read_start_ms/read_end_ms and derive every generation's birth_ms:
 * each record was printed at some instant within the read window, so
 * birth = midpoint - age_in_ms, wrong by at most half the window plus the
 * kernel's jiffy granularity; that bound goes to birth_error_ms.
 */
void lru_snapshot_set_times(struct lru_snapshot *snap, int64_t start_ms, int64_t end_ms);

/* Total resident pages of one lruvec for a type (evicted 'x' slots skipped). */
uint64_t lru_lruvec_pages(const struct lru_lruvec *lv, enum lru_type type);

/* Replace *dst with a copy of src (NULL allowed); LRU_ENOMEM on failure. */
enum lru_err lru_strdup_into(char **dst, const char *src, struct lru_error *err);

/* Wall-clock time in ms since the epoch (CLOCK_REALTIME). */
int64_t lru_now_ms(void);

/* Time in ms on CLOCK_MONOTONIC: for intervals, which a clock change must not bend. */
int64_t lru_mono_ms(void);

/*
 * The moment ms milliseconds from now on clock, for pthread_cond_timedwait:
 * CLOCK_REALTIME for a condition variable's default clock, CLOCK_MONOTONIC
 * for one made with pthread_condattr_setclock(CLOCK_MONOTONIC).
 */
struct timespec lru_deadline(clockid_t clock, int64_t ms);

#endif
