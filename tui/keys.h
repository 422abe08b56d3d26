/*
 * keys.h - lrugen-top's key bindings: one table, actions that return what
 * the loop must do (TOP_DRAW_*, TOP_REBUILD, TOP_REFRESH, TOP_QUIT...), and
 * the modal inputs (filter, eviction threshold, confirmation). Age and evict
 * hand over to plan.h.
 */
#ifndef TOP_KEYS_H
#define TOP_KEYS_H

#include <stddef.h>

struct top;

/* Act on key ch (a curses key code); returns the TOP_* bits of what to do. */
unsigned keys_handle(struct top *t, int ch);

/* The key table, for the help screen: lines of "keys  description". */
size_t keys_help(char lines[][96], size_t max);

#endif
