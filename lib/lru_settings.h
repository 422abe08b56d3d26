/*
 * lru_settings.h - settings described once in a table: the value side that
 * lrugend's and lrugen-store's configs share.
 *
 * A program describes each setting in a struct lru_set_def (name, type,
 * offset of its field in the program's config struct, default as text,
 * range, metavar, help) and keeps its own sources (file syntax, flags,
 * checks across settings). This module parses a value into its field,
 * formats it back, finds a setting by name and frees what a config owns.
 *
 * Field types, by setting type:
 *   BOOL bool; INT int64_t; DURATION uint64_t ms; SIZE uint64_t bytes;
 *   PERCENT double; STRING char * (owned); LIST struct lru_set_list (owned
 *   strings); DURATIONS struct lru_set_ms_list (owned); ENUM int, the index
 *   in choices. A SECTION is a heading for --help, with no field. A
 *   DURATION with choices also takes those words: choice i is stored as
 *   LRU_SET_MS_WORD(i) (outside any range) and formatted back as the word.
 *
 * Values: booleans true/yes/on/1 and false/no/off/0 (any case); durations
 * as lru_parse_duration_ms (30s, 2m, 1h, 7d); sizes as lru_parse_size (512K,
 * 16M); a list value holds comma-separated items (empty items are skipped;
 * a comma inside a glob's brackets, "[,]", is part of its item), which a
 * first occurrence replaces and further ones append.
 *
 * Errors name the problem, not the setting ("out of range (1s to 1d)", "not
 * one of off, onfault, all"): the caller adds where it came from.
 */
#ifndef LRU_SETTINGS_H
#define LRU_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_err.h"

enum lru_set_type {
	LRU_SET_SECTION,	/* a heading in --help and --print-config, not a setting */
	LRU_SET_BOOL,		/* bool */
	LRU_SET_INT,		/* int64_t in [min, max] */
	LRU_SET_DURATION,	/* uint64_t ms in [min, max] */
	LRU_SET_SIZE,		/* uint64_t bytes in [min, max] */
	LRU_SET_PERCENT,	/* double in [min, max] */
	LRU_SET_STRING,		/* char * */
	LRU_SET_LIST,		/* struct lru_set_list of strings */
	LRU_SET_DURATIONS,	/* struct lru_set_ms_list, each in [min, max] */
	LRU_SET_ENUM,		/* int index into choices */
};

/* a DURATION's word choices[i], as its field holds it */
#define LRU_SET_MS_WORD(i) (UINT64_MAX - (uint64_t)(i))
#define LRU_SET_MS_WORDS 16

struct lru_set_def {
	const char *name;
	enum lru_set_type type;
	size_t off;			/* of the field in the config struct */
	const char *def;		/* default, as text */
	int64_t min, max;
	const char *arg;		/* metavar in --help, NULL for booleans */
	const char *help;
	const char *const *choices;	/* LRU_SET_ENUM, NULL-terminated */
};

struct lru_set_list {
	char **v;
	size_t n;
};

struct lru_set_ms_list {
	uint64_t *v;
	size_t n;
};

/* a (NUL-terminated) and b (blen bytes) name the same thing, '-' and '_' alike */
bool lru_set_same_name(const char *a, const char *b, size_t blen);

/*
 * The setting called name (len bytes, not NUL-terminated) of defs[0..n),
 * '-' and '_' alike; sections are not found. NULL if there is none.
 */
const struct lru_set_def *lru_set_find(const struct lru_set_def *defs, size_t n, const char *name,
				       size_t len);

/*
 * Set d's field in cfg from text s. A list is emptied first when
 * clear_list (its first occurrence in a source). On error the field may
 * hold the parsed value or part of a list; cfg stays releasable.
 */
enum lru_err lru_set_value(void *cfg, const struct lru_set_def *d, const char *s, bool clear_list,
			   struct lru_error *err);

/* Every setting of defs[0..n) to its default (cfg zeroed first). */
enum lru_err lru_set_defaults(void *cfg, const struct lru_set_def *defs, size_t n,
			      struct lru_error *err);

/* The value of d in cfg as setting text; lists as comma-separated items. */
const char *lru_set_format(const void *cfg, const struct lru_set_def *d, char *buf, size_t size);

/* Free what the settings of defs[0..n) own in cfg (strings, lists). */
void lru_set_release(void *cfg, const struct lru_set_def *defs, size_t n);

/* s without the blanks (space, tab, CR, LF) around it; cuts s in place */
char *lru_set_trim(char *s);

#endif
