/*
 * lru_parse.h - parser for the kernel's MGLRU text.
 *
 * Reads /sys/kernel/debug/lru_gen and lru_gen_full as printed by Linux 6.1
 * and later (and the per-memcg cgroup file of patched kernels, which uses the
 * same generation lines):
 *
 *	memcg ID PATH			PATH may contain spaces; "" without memcg
 *	 node N
 *	 SEQ AGE_MS ANON[x] FILE[x]	one line per generation, ascending seq
 *	   TIER  N[rRT] N[eT] N[p] x2	lru_gen_full: 4 tier lines (anon, file)
 *	   N[LOYNFA]...			lru_gen_full: page-walk stats (6.12: TYFA)
 *
 * Counter suffixes are parsed by letter, not position ('x' and blanks mark
 * unused slots). Memcg ids are parsed as 64-bit numbers (2026 kernels print
 * the cgroup id). The parser is streaming and single-pass: feed it chunks of
 * any size; work is linear in the input. Records repeated by a racy read
 * (same memcg id, path and node) are dropped and counted in
 * snapshot->nr_duplicates.
 *
 * Fields are separated by blanks (spaces or tabs). A type's 'x' mark is
 * accepted only where the kernel prints it (seq < min_seq of that type: an
 * older generation of a marked one is marked too, and the youngest never is).
 * A file mixing lru_gen and lru_gen_full records is rejected.
 *
 * Malformed input - a truncated or overlong line, garbage, a number that
 * overflows, a NUL byte, a node before any memcg, a memcg without nodes, a
 * node without generations, non-contiguous sequence numbers, more than
 * LRU_MAX_GENS generations, a truncated lru_gen_full block - fails with
 * LRU_EPARSE (or LRU_ERANGE for numbers), err->line set and a message that
 * names the line. After an error the snapshot may hold the records parsed so
 * far: callers discard it (lru_snapshot_release).
 */
#ifndef LRU_PARSE_H
#define LRU_PARSE_H

#include "lru_model.h"

/* longest accepted line: a memcg line with a PATH_MAX path */
#define LRU_LINE_MAX (LRU_PATH_MAX + 32)

struct lru_parser;

/* Start parsing into snap (which should be empty). Caller frees with lru_parser_free. */
enum lru_err lru_parser_new(struct lru_parser **out, struct lru_snapshot *snap,
			    struct lru_error *err);
/* Parse the next len bytes; lines may be split across calls. */
enum lru_err lru_parser_feed(struct lru_parser *p, const char *buf, size_t len,
			     struct lru_error *err);
/* End of input: checks that the last line and record are complete. */
enum lru_err lru_parser_finish(struct lru_parser *p, struct lru_error *err);
void lru_parser_free(struct lru_parser *p);

/*
 * Parse a whole buffer into snap (new + feed + finish + free). Knowing the
 * length, it sizes snap's arrays about once rather than doubling them.
 */
enum lru_err lru_parse_buf(struct lru_snapshot *snap, const char *buf, size_t len,
			   struct lru_error *err);

#endif
