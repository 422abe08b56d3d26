/*
 * lru_sat.h - integer arithmetic that is defined for every input.
 *
 * Snapshot times, byte counts and sequence numbers come from the network:
 * a sender may put INT64_MIN in read_start_ms or 2^64-1 in a node's
 * total_bytes. Arithmetic on such values goes through these helpers, never
 * through a bare + - *, so that no input reaches signed overflow (undefined
 * behaviour) or a wrapped unsigned sum (a small total from huge parts).
 *
 * Saturating: the exact result when it fits, else the nearest bound
 * (lru_sat_add_u64(UINT64_MAX, 1) == UINT64_MAX). For normal values they are
 * exact, so sums of bytes stay exact and only absurd inputs are clamped.
 *
 * Wrapping (lru_wrap_*): the two's complement result, for an encoding that
 * stores a difference and must give back the very value: b == lru_wrap_add_i64(a,
 * lru_wrap_sub_i64(b, a)) for every a and b.
 */
#ifndef LRU_SAT_H
#define LRU_SAT_H

#include <stdint.h>

static inline uint64_t lru_sat_add_u64(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline uint64_t lru_sat_mul_u64(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* a - b, or 0 when b > a */
static inline uint64_t lru_sat_sub_u64(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static inline int64_t lru_sat_add_i64(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t lru_sat_sub_i64(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* v as an int64_t, INT64_MAX when larger (a duration or size before a subtraction) */
static inline int64_t lru_sat_i64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The midpoint of [start, end], rounded towards start; start when end < start. Exact. */
static inline int64_t lru_sat_mid_i64(int64_t start, int64_t end)
{
	if (end < start)
		return start;
	return (int64_t)((uint64_t)start + ((uint64_t)end - (uint64_t)start) / 2);
}

static inline int64_t lru_wrap_add_i64(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t lru_wrap_sub_i64(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

#endif
