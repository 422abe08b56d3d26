/*
 * lru_fleet.h - what a fleet store derives from snapshots: cold bytes at
 * fixed thresholds, a compact packed form of a snapshot's generations, and
 * working-set histograms that merge across hosts and hours.
 *
 * Fixed thresholds. Cold bytes are precomputed at LRU_FLEET_NR_THRESHOLDS
 * thresholds (1m 2m 5m 10m 30m 1h 6h 24h) so that fleet questions at the
 * latest snapshot are index lookups. A query at another threshold T uses
 * the smallest fixed threshold >= T (lru_fleet_threshold_index): cold(T')
 * <= cold(T) and hot(T') >= hot(T), so reclaimable memory is never
 * overstated and a working set never understated. The semantics are those
 * of lru_ws.h in LRU_WS_STRICT mode: a generation is cold at T when its
 * successor is older than T; the youngest is always hot.
 *
 * Packed generations (format 2; format 1 is still read). One snapshot's
 * node memory and lruvecs as varints: memcg paths are replaced by ids the
 * caller assigns (a store's path dictionary); birth times are kept as their
 * difference from "read midpoint - age" (that saturated; the difference
 * wraps, so every birth time comes back exactly), usually 0; an lruvec's
 * accuracy warnings (lru_warn.h) follow its header only when it has some (a
 * flag bit). Format 2 writes what repeats from one lruvec to the next as a
 * difference from the lruvec before (zigzag varints that wrap, so every
 * value comes back exactly): path id, inode, memcg id (left out, a flag bit,
 * when all three are the same: a memcg's lruvec on its next node), first
 * generation seq, and each generation's age against the age at the same
 * position from the youngest (a host ages every memcg at once: usually a
 * byte); page counts are kept as they are. Measured on fleetsim's hosts
 * (100 memcgs x 2 nodes x 4 generations): 39.6 bytes an lruvec in format 1,
 * 27-29 in format 2. Format 1 (version byte 1) had each lruvec's path id,
 * inode, memcg id, node, flags, first seq and ages as plain varints. Then,
 * in both, when the collector read memory.stat, each memcg's reclaim
 * counters (path id, pgsteal, workingset_refault_anon + _file: cumulative
 * pages) after a section byte and a count, for lru_advise's estimate; a
 * memcg with both 0 is left out (2 bytes a snapshot where no reclaim ran,
 * about 8 a memcg where it did). A reader older than format 2 refuses its
 * blobs ("unknown format version"): upgrade every front-end of a ClickHouse
 * store together. Tier counters, walk stats and the other memcg stats are
 * not kept.
 * lru_fleet_pack() writes it, lru_fleet_unpack_*() read it back and validate
 * it as untrusted input.
 *
 * Warnings. Cold bytes carry the accuracy warnings of the lruvecs they sum
 * (struct lru_fleet_cold.warnings, LRU_WARN_* bits: their union), so a
 * host's, node's or memcg's total says whether its hot bytes are a lower
 * bound and its cold bytes an upper bound. struct lru_fleet_warn_counts
 * counts working-set samples per warning, for rollups that merge like the
 * histograms.
 *
 * Histograms. struct lru_hist counts values in log-linear buckets: 16 per
 * power of two (each at most 1/16 = 6.25% wide), and remembers the largest
 * value of each bucket. A percentile is answered by the nearest-rank method
 * with the largest value of the bucket that holds that rank: never below the
 * true percentile, at most 6.25% above it, and exact when the bucket holds
 * one distinct value. Histograms merge by adding counts, so per-hour and
 * per-job rollups combine into any window.
 */
#ifndef LRU_FLEET_H
#define LRU_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_buf.h"
#include "lru_model.h"
#include "lru_warn.h"

#define LRU_FLEET_NR_THRESHOLDS 8

/* The k-th fixed threshold in ms (k < LRU_FLEET_NR_THRESHOLDS), ascending. */
uint64_t lru_fleet_threshold_ms(unsigned k);
/* Its short name: "1m" "2m" "5m" "10m" "30m" "1h" "6h" "24h". */
const char *lru_fleet_threshold_name(unsigned k);
/* The smallest fixed threshold >= ms, or -1 when ms is above the largest. */
int lru_fleet_threshold_index(uint64_t ms);

/* Bytes in generations and bytes cold at each fixed threshold. */
struct lru_fleet_cold {
	uint64_t total;
	uint64_t cold[LRU_FLEET_NR_THRESHOLDS];
	uint32_t warnings;	/* LRU_WARN_* of the lruvecs summed (their union) */
};

/* Cold bytes of one lruvec (pages marked evicted are not counted), and its warnings. */
void lru_fleet_lruvec_cold(const struct lru_lruvec *lv, uint32_t page_size,
			   struct lru_fleet_cold *out);
/* Add x's bytes to acc's; acc's warnings become the union of both. */
void lru_fleet_cold_add(struct lru_fleet_cold *acc, const struct lru_fleet_cold *x);

/* One node of a snapshot: memory from NodeMemory, bytes from its lruvecs. */
struct lru_fleet_node {
	int node;
	uint64_t mem_total, mem_free;
	struct lru_fleet_cold cold;
};

/* What a store's rows need from one snapshot (store/schema.h). */
struct lru_fleet_rows {
	int64_t taken_ms;		/* read midpoint */
	uint64_t mem_total, mem_free;	/* summed over NodeMemory */
	struct lru_fleet_cold host;	/* summed over lruvecs */
	struct lru_fleet_cold *lv;	/* per lruvec; owned */
	struct lru_fleet_node *nodes;	/* NodeMemory nodes, then nodes only lruvecs name; owned */
	size_t nr_nodes;
};

/* Derive rows from a valid snapshot; lru_fleet_rows_release() frees them. */
enum lru_err lru_fleet_rows_build(const struct lru_snapshot *snap, struct lru_fleet_rows *rows,
				  struct lru_error *err);
void lru_fleet_rows_release(struct lru_fleet_rows *rows);

/* The read midpoint of a snapshot (what HostSnapshot.taken_at_ms carries). */
int64_t lru_fleet_taken_ms(const struct lru_snapshot *snap);

/* ---- packed generations ------------------------------------------------ */

/*
 * Append snap's nodes and lruvecs, packed, to out. path_ids[i] is the id of
 * snap->memcgs[i].path. The lruvecs must be valid (1..LRU_MAX_GENS
 * generations, contiguous seqs), as lru_pb_decode_batch() guarantees.
 */
enum lru_err lru_fleet_pack(const struct lru_snapshot *snap, const uint64_t *path_ids,
			    struct lru_buf *out, struct lru_error *err);

/* One unpacked lruvec: the memcg is an id of the caller's dictionary. */
struct lru_fleet_lruvec {
	uint64_t path_id;
	uint64_t ino;		/* cgroupfs inode, 0 unknown */
	uint64_t memcg_id;	/* kernel memcg id */
	struct lru_lruvec lv;	/* memcg index unused (0); full NULL; warnings as packed */
};

/* Format 2's deltas: what the lruvec before had (all 0 before the first). */
struct lru_fleet_prev {
	uint64_t path_id, ino, memcg_id, seq;
	uint64_t age_ms[LRU_MAX_GENS];	/* by position from the youngest */
};

struct lru_fleet_reader {
	const uint8_t *p, *end;
	unsigned version;	/* the blob's format, 1 or 2 */
	struct lru_fleet_prev prev;
	int64_t mid_ms;		/* read midpoint: birth = mid - age + delta */
	size_t nr_nodes, nr_lruvecs, next;
	size_t nr_memcgs, next_memcg;	/* memcg counters after the lruvecs */
	bool has_memcgs;	/* the blob has their section: a memcg not in it has 0 */
};

/*
 * One memcg's reclaim counters (cumulative pages, memory.stat), by path
 * only: a path's lruvecs pair only with the same inode's, so the counters
 * of a memcg made again under the path never correct a pair of another.
 */
struct lru_fleet_memcg {
	uint64_t path_id;
	uint64_t pgsteal;	/* pgsteal */
	uint64_t refaulted;	/* workingset_refault_anon + workingset_refault_file */
};

/*
 * Start reading a packed blob of a snapshot whose read midpoint was mid_ms.
 * Node memory is returned through nodes (up to max_nodes entries; the blob's
 * count in r->nr_nodes). Then call lru_fleet_unpack_next() until it returns
 * 0 (done) or an error.
 */
enum lru_err lru_fleet_unpack_begin(struct lru_fleet_reader *r, const void *blob, size_t len,
				    int64_t mid_ms, struct lru_node_mem *nodes, size_t max_nodes,
				    struct lru_error *err);
/* 1: *out holds the next lruvec; 0: no more; -1: corrupt (err set). */
int lru_fleet_unpack_next(struct lru_fleet_reader *r, struct lru_fleet_lruvec *out,
			  struct lru_error *err);
/*
 * Once lru_fleet_unpack_next() has returned 0 (r->has_memcgs says whether
 * the blob has counters): 1, *out holds the next memcg's counters; 0: no
 * more (the blob read to its end); -1: corrupt (err set).
 */
int lru_fleet_unpack_memcg(struct lru_fleet_reader *r, struct lru_fleet_memcg *out,
			   struct lru_error *err);

/* ---- histograms ----------------------------------------------------------- */

struct lru_hist_bucket {
	uint32_t index;
	uint64_t count;
	uint64_t max;		/* largest value counted in this bucket */
};

struct lru_hist {
	struct lru_hist_bucket *b;	/* ascending index; owned */
	size_t n, alloc;
	uint64_t count;
};

void lru_hist_init(struct lru_hist *h);
void lru_hist_release(struct lru_hist *h);

/* The bucket of a value: 0 for 0, then 16 per power of two. */
uint32_t lru_hist_bucket_of(uint64_t value);

enum lru_err lru_hist_add(struct lru_hist *h, uint64_t value, uint64_t count,
			  struct lru_error *err);
enum lru_err lru_hist_merge(struct lru_hist *dst, const struct lru_hist *src,
			    struct lru_error *err);
/*
 * Nearest-rank percentile (0 < p <= 100): the largest value of the bucket
 * holding rank ceil(p/100 * count). 0 for an empty histogram.
 */
uint64_t lru_hist_percentile(const struct lru_hist *h, double p);
uint64_t lru_hist_max(const struct lru_hist *h);

/*
 * A set of LRU_FLEET_NR_THRESHOLDS histograms, hs[0..NR-1] (the working set
 * of one job at each fixed threshold), as one blob: encode appends it to out;
 * set_merge_blob decodes a blob (untrusted) and adds each threshold's
 * histogram to hs[k]; merge_blob adds only threshold k's, to h.
 */
enum lru_err lru_hist_set_encode(const struct lru_hist *hs, struct lru_buf *out,
				 struct lru_error *err);
enum lru_err lru_hist_set_merge_blob(struct lru_hist *hs, const void *blob, size_t len,
				     struct lru_error *err);
enum lru_err lru_hist_merge_blob(struct lru_hist *h, unsigned k, const void *blob, size_t len,
				 struct lru_error *err);

/* ---- warning counts ------------------------------------------------------- */

/*
 * How many working-set samples carried each lruvec warning: n[b] counts
 * LRU_WARN_* bit (1 << b). Bits at or above LRU_FLEET_WARN_BITS are not
 * counted (there are none yet: checked at compile time).
 */
#define LRU_FLEET_WARN_BITS 8
_Static_assert(LRU_WARN_ALL < (1u << LRU_FLEET_WARN_BITS), "more warning bits than counters");

struct lru_fleet_warn_counts {
	uint64_t n[LRU_FLEET_WARN_BITS];
};

/* Count count samples whose warnings are mask. */
void lru_fleet_warn_count(struct lru_fleet_warn_counts *c, uint32_t mask, uint64_t count);
void lru_fleet_warn_counts_merge(struct lru_fleet_warn_counts *dst,
				 const struct lru_fleet_warn_counts *src);
/* The bits counted at least once. */
uint32_t lru_fleet_warn_counts_mask(const struct lru_fleet_warn_counts *c);
/*
 * As a blob: encode appends nothing when no sample was warned (a store keeps
 * NULL then), else a version byte and (bit, count) varint pairs; merge_blob
 * decodes a blob (untrusted; len 0 is "none") and adds its counts to c,
 * skipping bits this build does not count.
 */
enum lru_err lru_fleet_warn_counts_encode(const struct lru_fleet_warn_counts *c,
					  struct lru_buf *out, struct lru_error *err);
enum lru_err lru_fleet_warn_counts_merge_blob(struct lru_fleet_warn_counts *c, const void *blob,
					      size_t len, struct lru_error *err);

/* ---- globs ------------------------------------------------------------------ */

/*
 * Length of the literal prefix of an fnmatch() pattern (before the first
 * '*', '?', '[' or '\\'): every match starts with it, so a sorted index can
 * be range-scanned with [prefix, prefix + 1).
 */
size_t lru_fleet_glob_prefix(const char *glob);

#endif
