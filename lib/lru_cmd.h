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
 * nothing (6.1-6.13), an eviction reaching one of the two youngest
 * generations, an unknown memcg or node all give EINVAL. lru_cmd_check()
 * finds each of these against a snapshot first and says which it is, so a
 * caller never writes a command the kernel would refuse or ignore.
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

/* Format cmd as the kernel's text (either form) with a trailing newline; returns its length. */
size_t lru_cmd_format(const struct lru_cmd *cmd, char *buf, size_t size);

/* Parse one command in the kernel's syntax ("+ 3 1 6 1 1"); strict decimal. */
enum lru_err lru_cmd_parse(const char *text, struct lru_cmd *cmd, struct lru_error *err);

#endif
