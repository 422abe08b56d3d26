/*
 * lru_bounds.h - what a snapshot from the network may hold: one table of
 * bounds, checked before anything is stored or summed.
 *
 * A server takes snapshots from hosts it does not control (a host-bound
 * token only says which host, not what it sends). lru_pb decoding already
 * refuses what cannot be represented (more than LRU_MAX_GENS generations,
 * nodes above LRU_NODE_MAX, paths above LRU_PATH_MAX, repeats); this refuses
 * what no real host sends, so that sums over a fleet stay exact and a
 * single host cannot rank itself first or break a fleet query:
 *
 *	host name		1 to 255 bytes of UTF-8
 *	boot id, kernel		at most 255 bytes of UTF-8
 *	memcg paths		UTF-8 (proto3 strings are)
 *	seq			0 to 2^63-1 (stored as a signed 64-bit integer)
 *	page size		a power of two, 4 KiB to 64 KiB
 *	memcgs, lruvecs		at most LRU_BOUND_MAX_LRUVECS each
 *	node memory		total at most LRU_BOUND_MAX_NODE_BYTES (4 PiB, the
 *				most 5-level paging addresses); free at most
 *				the total (rank and capacity add it up); file
 *				and anon at most 4 PiB
 *	generation		anon and file pages, times the page size, at most
 *				LRU_BOUND_MAX_NODE_BYTES each
 *	memcg statistics	byte counts at most LRU_BOUND_MAX_NODE_BYTES
 *				times the number of nodes (at least one)
 *	read times		from 2000-01-01 to now + max_skew_ms; the read
 *				takes at most an hour (end >= start)
 *	birth times		from 2000-01-01 to the read's end + max_skew_ms
 *
 * Sums of these fit: 1,024 nodes of 4 PiB are 2^62 bytes. Fleet-wide sums
 * over many hosts still saturate (lru_fleet.h).
 */
#ifndef LRU_BOUNDS_H
#define LRU_BOUNDS_H

#include <stdint.h>

#include "lru_err.h"
#include "lru_model.h"

#define LRU_BOUND_MAX_NODE_BYTES (1ULL << 52)
#define LRU_BOUND_MAX_LRUVECS (1u << 20)
#define LRU_BOUND_MIN_TIME_MS 946684800000LL	/* 2000-01-01T00:00:00Z */
#define LRU_BOUND_MAX_READ_MS 3600000LL

/*
 * LRU_OK, or LRU_ERANGE (a number out of its bounds) or LRU_EPROTO (a
 * string that is not UTF-8 or too long) with a message naming the field and
 * its bound, e.g. "node 0: total_bytes 18446744073709551615 is above 4 PiB".
 * Strings from the snapshot in the message are made UTF-8 (lru_esc.h).
 */
enum lru_err lru_snapshot_check(const struct lru_snapshot *snap, int64_t now_ms,
				uint64_t max_skew_ms, struct lru_error *err);

#endif
