/*
 * lru_cmd.h - building and checking the kernel's aging and eviction commands.
 *
 *	+ MEMCG_ID NODE MAX_SEQ [CAN_SWAP [FORCE_SCAN]]		create generation MAX_SEQ+1
 *	- MEMCG_ID NODE MIN_SEQ [SWAPPINESS [NR_TO_RECLAIM]]	evict generations <= MIN_SEQ
 *
 * and, for a memcg's own memory.lru_gen (lru_iface.h; cmd->cgroup set), the
 * same without the memcg, the node written N<nid>, the cap in bytes:
 *
 *	+ N<NODE> MAX_SEQ [CAN_SWAP [FORCE_SCAN]]
 *	- N<NODE> MIN_SEQ [SWAPPINESS [BYTES]]
 *
 * lru_cmd_age() and lru_cmd_evict_older_than() pick the form from the
 * snapshot (lru_memcg_uses_cgroup()); lru_cmd_parse() and lru_cmd_check()
 * handle the debugfs form only.
 *
 * The kernel is terse about mistakes: a stale MAX_SEQ in '+' silently does
 * nothing (6.1-6.13) or ages anyway (6.14 and later), an eviction reaching
 * one of the two youngest generations, an unknown memcg or node all give
 * EINVAL. lru_cmd_check() finds each of these against a snapshot first and
 * says which it is, so a caller never writes a command the kernel would
 * refuse or ignore.
 *
 * What a written command did is read back from the generations:
 * lru_cmd_age_step() decides what aging does next from a re-read, and
 * lru_cmd_evict_outcome() tells freed pages from pages the kernel moved into
 * younger generations and pages it left behind.
 *
 * Write one command per write(2): the kernel stops at the first failing
 * command of a write and reports only its error.
 */
#ifndef LRU_CMD_H
#define LRU_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_model.h"

/* swappiness value printed as "max" (anon only; kernels >= 6.16) */
#define LRU_SWAPPINESS_MAX 201
/* longest formatted command, with its newline */
#define LRU_CMD_MAX 96

struct lru_cmd {
	char op;		/* '+' age, '-' evict */
	uint64_t memcg_id;	/* debugfs form only */
	int node;
	uint64_t seq;		/* '+': the current max_seq; '-': the youngest seq to evict */
	int swap;		/* '+': can_swap 0/1; '-': swappiness 0..200 or
				   LRU_SWAPPINESS_MAX; -1 = leave to the kernel */
	int64_t extra;		/* '+': force_scan 0/1; '-': nr_to_reclaim in pages
				   (debugfs) or bytes (cgroup); -1 = leave to the
				   kernel (needs swap set) */
	bool cgroup;		/* memory.lru_gen form: no memcg id, cap in bytes
				   (last, so positional initialisers stay debugfs) */
};

/*
 * An aging command for lv: seq = its max_seq. can_swap=1 makes the walk scan
 * anon pages on hosts without swap; force_scan=1 scans every mm (needed to
 * age with 4 generations present). Fails with LRU_EINVAL for an offline
 * memcg (id 0) and when !force_scan while lv has LRU_MAX_GENS generations.
 */
enum lru_err lru_cmd_age(const struct lru_snapshot *snap, const struct lru_lruvec *lv,
			 int can_swap, int force_scan, struct lru_cmd *cmd,
			 struct lru_error *err);

/*
 * An eviction command for lv that evicts the generations last referenced more
 * than older_than_ms ago (those cold at that threshold, see lru_ws.h), never
 * one of the two youngest. max_bytes caps what is reclaimed (0 = no cap):
 * nr_to_reclaim rounded up to whole pages for debugfs, the bytes themselves
 * for memory.lru_gen; the kernel checks it between batches of 64 pages, so
 * it may overshoot a little. *pages receives what the chosen generations
 * hold, at most the cap (anon only if swappiness allows it: swappiness 0
 * evicts file pages only). LRU_ENOENT when nothing is old enough.
 */
enum lru_err lru_cmd_evict_older_than(const struct lru_snapshot *snap,
				      const struct lru_lruvec *lv, uint64_t older_than_ms,
				      int swappiness, uint64_t max_bytes,
				      struct lru_cmd *cmd, uint64_t *pages,
				      struct lru_error *err);

/*
 * Check cmd against snap: the memcg id and node exist (memcg ids are checked,
 * and an offline memcg's id 0 is refused); '+' names the current max_seq
 * (LRU_ESTALE if older, LRU_EINVAL if newer), '-' leaves the two youngest
 * generations alone and has something to evict; argument ranges.
 */
enum lru_err lru_cmd_check(const struct lru_snapshot *snap, const struct lru_cmd *cmd,
			   struct lru_error *err);

/*
 * The second pass of an eviction: lv of the snapshot read after the first
 * pass, planned as lru_cmd_evict_older_than() does with the same threshold
 * and swappiness, asking for at most budget_bytes (what the first pass asked
 * minus what it freed, so that both passes together never ask for more than
 * the first did). max_bytes is the caller's own cap (0 = none). A cap goes
 * into the command only where one is needed: max_bytes was given, or the
 * generations hold more than the budget. Errors as lru_cmd_evict_older_than().
 */
enum lru_err lru_cmd_evict_again(const struct lru_snapshot *snap, const struct lru_lruvec *lv,
				 uint64_t older_than_ms, int swappiness, uint64_t max_bytes,
				 uint64_t budget_bytes, struct lru_cmd *cmd, uint64_t *pages,
				 struct lru_error *err);

/*
 * What an eviction command did to one lruvec, in pages, from its generations
 * read before and after the write. On Linux 7.x the kernel finds many pages
 * of the generations it was asked to evict referenced (huge pages above all)
 * and moves them into a young generation instead of freeing them.
 */
struct lru_evict_outcome {
	int64_t freed[LRU_NR_TYPES];	/* resident before - after, every generation and
					   type (< 0: the lruvec grew meanwhile) */
	int64_t freed_total;
	uint64_t moved;			/* growth of the generations newer than the
					   command's seq, types evicted only, at most
					   what was asked and not freed: moved there */
	uint64_t left[LRU_NR_TYPES];	/* pages of the types evicted still resident in
					   generations <= seq */
	uint64_t left_total;
};

/*
 * Account cmd ('-', its seq and swappiness), which asked for asked pages,
 * from before and after, the same lruvec read before and after the write
 * (after NULL: the lruvec is gone, all freed). Pure: no I/O.
 */
void lru_cmd_evict_outcome(const struct lru_lruvec *before, const struct lru_lruvec *after,
			   const struct lru_cmd *cmd, uint64_t asked,
			   struct lru_evict_outcome *out);

/*
 * Is a second pass worth it: pages left in the generations evicted (neither
 * freed nor moved) while less than asked was freed? Pages moved into a young
 * generation are not chased: only aging makes them evictable.
 */
bool lru_evict_outcome_second_pass(const struct lru_evict_outcome *o, uint64_t asked);

/*
 * What lrugen age does next with one lruvec, from how its aging command's
 * write(2) ended (write_rc: LRU_OK or the lru_err of lru_kwrite_cmd) and
 * max_seq read after it; seq is the max_seq the command named, retried says
 * it was written a second time already. By the kernel's behaviour, not its
 * version:
 *
 *  - success and max_seq past seq: created (LRU_AGE_CREATED);
 *  - success and max_seq unchanged: the kernel did not age (6.4-6.13 return
 *    0 without aging while another walker ages the lruvec): written once
 *    more (LRU_AGE_RETRY), which cannot make a second generation there, as
 *    those kernels silently ignore a seq that is no longer max_seq; after
 *    the retry, waited for (LRU_AGE_WAIT);
 *  - LRU_EBUSY (debugfs EEXIST, 6.14 and later: another aging of the lruvec
 *    is in progress or just done; a write after it would age a second time)
 *    and LRU_ESTALE (memory.lru_gen: seq is not max_seq): never written
 *    again; max_seq past seq means another process aged it
 *    (LRU_AGE_BY_OTHER), else re-read later (LRU_AGE_WAIT);
 *  - any other error: LRU_AGE_FAILED.
 *
 * The caller bounds the waiting (re-reads with short sleeps) and fails the
 * lruvec when max_seq never moves.
 */
enum lru_age_step {
	LRU_AGE_CREATED,
	LRU_AGE_BY_OTHER,
	LRU_AGE_RETRY,
	LRU_AGE_WAIT,
	LRU_AGE_FAILED,
};
enum lru_age_step lru_cmd_age_step(enum lru_err write_rc, bool retried, uint64_t seq,
				   uint64_t max_seq);

/* Format cmd as the kernel's text (either form) with a trailing newline; returns its length. */
size_t lru_cmd_format(const struct lru_cmd *cmd, char *buf, size_t size);

/* Parse one command in the kernel's syntax ("+ 3 1 6 1 1"); strict decimal. */
enum lru_err lru_cmd_parse(const char *text, struct lru_cmd *cmd, struct lru_error *err);

#endif
