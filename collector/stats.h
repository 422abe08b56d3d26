/*
 * stats.h - lrugend's own counters, exported on /metrics.
 *
 * One struct, owned by the main loop and updated by the modules it runs;
 * the metrics endpoint gets copies (metrics_set_health), never the original.
 * The shipping counters (struct ship_stats) belong to the ship module,
 * which runs on the shipping thread: the main loop copies them in with
 * ship_stats(). "_total" fields are cumulative since start; the others are
 * gauges.
 */
#ifndef STATS_H
#define STATS_H

#include <stdint.h>

#include "lru_select.h"

struct ship_stats {
	uint64_t sent_snapshots_total, sent_batches_total, store_duplicates_total;
	uint64_t send_errors_total;
	int64_t last_send_success_ms;		/* 0 = never */
	uint64_t backoff_ms;			/* current retry delay, 0 when healthy */
	/* snapshots dropped, by reason */
	uint64_t dropped_rejected_total;	/* 400/415 for a single snapshot */
	uint64_t dropped_too_large_total;	/* 413 for a single snapshot */
	uint64_t dropped_corrupt_total;		/* failed its checksum in the spool */
};

struct stats {
	/* ticks and snapshots */
	uint64_t ticks_total, tick_errors_total;
	uint64_t snapshots_total;		/* snapshots taken (a seq handed out) */
	uint64_t last_seq;
	int64_t last_snapshot_ms;		/* wall clock of the last snapshot, 0 = none */
	double last_tick_seconds;		/* wall time of the last tick */
	uint64_t memcgs, lruvecs;		/* in the last snapshot */
	uint64_t memcgs_left_out[LRU_SEL_NR];	/* last tick, by reason */
	uint64_t kernel_duplicates_total;	/* records the kernel repeated in racy reads */
	/* aging */
	uint64_t aging_writes_total, aging_skipped_total, aging_errors_total;
	/* spool */
	uint64_t spool_records, spool_bytes;
	uint64_t spool_errors_total;
	/* snapshots dropped by the spool's bounds */
	uint64_t dropped_spool_full_total, dropped_spool_age_total;
	/* shipping, copied from the ship module */
	struct ship_stats ship;
	/* proactive reclaim */
	uint64_t reclaim_commands_total, reclaim_requested_bytes_total;
	uint64_t reclaim_paused_total;		/* ticks skipped for PSI */
	uint64_t reclaim_floor_total;		/* lruvecs left alone for the floor */
	uint64_t reclaim_errors_total;
	uint64_t reclaim_dry_run_total;		/* commands logged, not written */
};

#endif
