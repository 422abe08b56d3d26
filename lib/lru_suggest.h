/*
 * lru_suggest.h - "did you mean": the known name closest to a mistyped one.
 *
 *	const char *near = lru_suggest("shw", names, n);	// "show", or NULL
 *
 * Closest by optimal string alignment distance (insertions, deletions,
 * substitutions and swaps of two neighbours count one each, letters
 * compared case-blind); a name within 2 edits (1 for words of 3 letters or
 * fewer) qualifies, and so does one the word is a prefix of (at least 2
 * letters). The first of equally close names wins; NULL when none is close.
 * Commands of lrugen and lrugen fleet use it for their errors.
 */
#ifndef LRU_SUGGEST_H
#define LRU_SUGGEST_H

#include <stddef.h>

const char *lru_suggest(const char *word, const char *const *names, size_t n);

/* The edit distance above, capped at 255 (for tests). */
unsigned lru_suggest_distance(const char *a, const char *b);

#endif
