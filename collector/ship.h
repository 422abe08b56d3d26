/*
 * ship.h - sending the spool to the store (lru_client.h).
 *
 * The ingest contract (the store implements the same):
 *
 *	POST {store}/v1/snapshots
 *	Content-Type: application/x-protobuf
 *	Content-Encoding: gzip			only after the store advertised it
 *	Authorization: Bearer TOKEN		when token_file is set
 *	body: SnapshotBatch, oldest snapshot first
 *
 * 200 (any 2xx) with {"accepted": N, "duplicates": M}, sent once the batch is
 * committed: the snapshots leave the spool. Duplicates (same host, boot_id,
 * seq) are acknowledged, not stored twice, which makes resending safe.
 * Every response of the store carries "Accept-Encoding: gzip" when it takes
 * gzip bodies; lrugend compresses only after seeing it (and goes back to
 * plain bodies after a 415 to a gzip body).
 *
 *	401, 403	keep the spool, retry with backoff, log an error
 *	413		split the batch; a single snapshot still too large is
 *			dropped (counted, logged)
 *	400, 415	split the batch; a single snapshot is dropped (counted,
 *			logged): it can never succeed
 *	5xx, other, timeouts, connection errors
 *			retry with exponential backoff and jitter
 *			(backoff_min doubling to backoff_max)
 *
 * Batches hold at most batch_max_snapshots and batch_max_bytes (one larger
 * snapshot goes alone); nothing else is queued in memory: the spool is the
 * queue.
 *
 * Threads: a ship is used by one thread at a time (lrugend's shipping
 * thread, or the main one for --once and --drain); ship_cancel() and
 * ship_stats() may be called from any other.
 */
#ifndef SHIP_H
#define SHIP_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "lru_spool.h"
#include "stats.h"

struct ship;

/*
 * should_stop() is polled during transfers (about once a second while
 * nothing moves, libcurl's progress callback): true aborts them (shutdown).
 */
struct ship *ship_new(bool (*should_stop)(void));
void ship_free(struct ship *s);

/*
 * While on, a transfer in flight is aborted within about a second, as with
 * should_stop(), and ship_run() returns at once; its snapshots stay spooled.
 */
void ship_cancel(struct ship *s, bool on);

/*
 * Send spooled snapshots, oldest first, until the spool is empty, a send
 * fails, should_stop() or ship_cancel() says so, or the wall clock passes
 * deadline_ms after the first batch. Returns the wall-clock time of the next
 * attempt: 0 when the spool is empty, now when the deadline or a stop cut it
 * short, later when backing off.
 */
int64_t ship_run(struct ship *s, const struct config *cfg, struct lru_spool *sp,
		 int64_t deadline_ms);

/* Copy the shipping counters (consistent with each other). */
void ship_stats(struct ship *s, struct ship_stats *out);

/* Forget learned limits and the backoff (after a reconfiguration). */
void ship_reset(struct ship *s);

#endif
