/*
 * lru_cgparse.h - parser for a memcg's cgroup v2 file memory.lru_gen.
 *
 * Kernels with the lrugen patch series (kernel/) give every non-root memcg a
 * file memory.lru_gen, one line per generation, nodes ascending, within a
 * node generations ascending by seq (from the lower of the anon and file
 * min_seq up to max_seq), in cgroup's nested-keyed style:
 *
 *	N<nid> seq=<seq> age_ms=<ms> birth_ms=<ms since boot> anon=<bytes> file=<bytes>
 *	N0 seq=4 age_ms=1520 birth_ms=88120 anon=1048576 file=8192
 *
 * The file names no memcg: lru_cgparser_new() is told which memcg of the
 * snapshot (an index into snap->memcgs) the text belongs to, and each node
 * becomes one lruvec of it. Sizes are converted to pages of
 * snap->page_size bytes; wall-clock births are left to the caller
 * (lru_snapshot_set_births(), from age_ms, as for debugfs).
 *
 * The parser is streaming and single-pass (chunks of any size, lines may
 * be split across calls) and strict. Rules:
 *
 *  - Fields are separated by blanks (spaces or tabs); the line starts with
 *    N<nid> (decimal, at most LRU_NODE_MAX), every other field is KEY=VALUE
 *    with KEY made of [a-z0-9_].
 *  - seq, age_ms, birth_ms, anon and file are required, once each, values
 *    strictly decimal. age_ms must fit 32 bits (the model's), the others 64;
 *    anon and file must be multiples of the page size.
 *  - Unknown keys are ignored (a newer kernel may add some), as long as the
 *    field is KEY=VALUE with a non-empty value.
 *  - Nodes ascend; within a node, seqs are contiguous and ascending, at most
 *    LRU_MAX_GENS of them.
 *  - Every line ends with a newline; an empty line, a NUL or any other
 *    control character, a line longer than LRU_LINE_MAX is malformed.
 *  - Empty input is valid: the memcg gets no lruvecs.
 *
 * Errors are LRU_EPARSE (LRU_ERANGE for numbers out of range) with err->line
 * set and a message naming the line: "line 2: node 0 after node 1: nodes
 * must ascend". After an error the snapshot may hold the lruvecs parsed so
 * far: callers discard it.
 */
#ifndef LRU_CGPARSE_H
#define LRU_CGPARSE_H

#include <stddef.h>

#include "lru_model.h"
#include "lru_parse.h"	/* LRU_LINE_MAX */

struct lru_cgparser;

/* Start parsing lruvecs of snap->memcgs[memcg]; free with lru_cgparser_free. */
enum lru_err lru_cgparser_new(struct lru_cgparser **out, struct lru_snapshot *snap,
			      size_t memcg, struct lru_error *err);
/* Parse the next len bytes. */
enum lru_err lru_cgparser_feed(struct lru_cgparser *p, const char *buf, size_t len,
			       struct lru_error *err);
/* End of input: the last line must be complete. */
enum lru_err lru_cgparser_finish(struct lru_cgparser *p, struct lru_error *err);
void lru_cgparser_free(struct lru_cgparser *p);

/* new + feed + finish + free over one buffer. */
enum lru_err lru_cgparse_buf(struct lru_snapshot *snap, size_t memcg, const char *buf,
			     size_t len, struct lru_error *err);

#endif
