/*
 * lru_units.h - durations and sizes as people type and read them.
 *
 * Durations: a decimal number with a unit, "500ms", "30s", "2m", "1h", "7d";
 * a bare number means seconds. Sizes: "4096", "512K", "4G", "1.5GiB" (binary
 * units: K = 1024). Parsing is strict: no trailing garbage, no overflow, no
 * negative values.
 */
#ifndef LRU_UNITS_H
#define LRU_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "lru_err.h"

enum lru_err lru_parse_duration_ms(const char *s, uint64_t *ms, struct lru_error *err);
enum lru_err lru_parse_size(const char *s, uint64_t *bytes, struct lru_error *err);

/*
 * Strict decimal s[0..n) (digits only, no sign, no blanks) at most max into
 * *v: LRU_EPARSE if it is not a number, LRU_ERANGE above max. No message:
 * callers say which field it was.
 */
enum lru_err lru_parse_dec(const char *s, size_t n, uint64_t max, uint64_t *v);

/* "38.0 MiB", "4.0 KiB", "512 B" into buf; returns buf. */
const char *lru_fmt_bytes(uint64_t bytes, char *buf, size_t size);
/* "2m00s", "1h05m", "3d04h", "850ms" into buf (rounded, for reading); returns buf. */
const char *lru_fmt_duration(uint64_t ms, char *buf, size_t size);
/*
 * ms as the shortest exact text lru_parse_duration_ms() reads back: "0",
 * "250ms", "1500ms", "90s", "2m", "1h", "7d" (settings, prompts, headers).
 */
const char *lru_fmt_duration_exact(uint64_t ms, char *buf, size_t size);
/* Local wall-clock time "HH:MM:SS.mmm" of ms since the epoch ("?" if unknown). */
const char *lru_fmt_clock(int64_t ms, char *buf, size_t size);

#endif
