/*
 * lru_record.h - what lrugend recorded, batch by batch: a SnapshotBatch
 * file (lrugend --once --output FILE; "-" for standard input) or a spool
 * directory (lrugend's unacknowledged snapshots).
 *
 *	enum lru_err fn(void *arg, const uint8_t *buf, size_t len, const char *what,
 *			struct lru_error *err);
 *	lru_record_each("/var/spool/lrugend", fn, arg, &stats, &err);
 *
 * fn gets each SnapshotBatch's bytes (decode them with lru_pb.h) and what
 * to call it in a message ("spool record seq 17", or the file's name); a
 * non-zero return stops the walk and is returned. A spool is never opened
 * in place: lru_spool_open() locks the directory (a running lrugend holds
 * it) and may repair a torn tail, so its head, seq and segment files are
 * copied to a private temporary directory, read from there and removed.
 * stats (may be NULL) get that copy's counters. lrugen dump and lrugen-top
 * --replay read recordings with it.
 */
#ifndef LRU_RECORD_H
#define LRU_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_err.h"
#include "lru_spool.h"

typedef enum lru_err (*lru_record_fn)(void *arg, const uint8_t *buf, size_t len,
				      const char *what, struct lru_error *err);

/* LRU_ENOENT (path missing), LRU_EIO, LRU_ERANGE (a file above LRU_PB_MAX_MESSAGE), fn's. */
enum lru_err lru_record_each(const char *path, lru_record_fn fn, void *arg,
			     struct lru_spool_stats *stats, struct lru_error *err);

/* Whether path is a directory (a spool) rather than a file. */
bool lru_record_is_spool(const char *path);

#endif
