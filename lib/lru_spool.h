/*
 * lru_spool.h - a durable, bounded queue of records on disk (lrugend's spool).
 *
 * The collector appends every snapshot here (fsync'd) before it tries to
 * send it, and removes it only once the store has acknowledged it, so a
 * snapshot survives a store outage, a network outage and a crash of the
 * collector. A spool is a directory:
 *
 *	DIR/lock			flock(2)ed while open: one process per spool
 *	DIR/0000000000000001.seg	segments, append-only, ascending hex ids
 *	DIR/head			"SEGMENT OFFSET\n": first unacknowledged record
 *	DIR/seq				"NEXT\n": the next sequence number to hand out
 *
 * A segment is a run of records, each a 32-byte little-endian header and
 * its payload:
 *
 *	u32 magic 0x3153524c ("LRS1")	u32 payload length
 *	u64 seq				i64 time_ms (wall clock, for max_age)
 *	u32 crc32 of bytes 4..23 and the payload	u32 zero
 *
 * lrugend's payloads are SnapshotBatch messages of one HostSnapshot each; as
 * protobuf concatenation merges repeated fields, the payloads of several
 * records laid end to end are one valid SnapshotBatch.
 *
 * Crash safety: a record is written with one write(2) and fdatasync'd before
 * lru_spool_append() returns; head and seq are replaced atomically (write a
 * temporary file, fsync, rename, fsync the directory). At open, every record
 * from the head on is checked: a record cut short by a crash (a torn write)
 * or failing its checksum ends its segment's valid part; the bytes after it
 * are skipped, never fatal, and reported through the note callback; a torn
 * tail of the last segment is truncated away. A head that is lost or points
 * into the middle of a record falls back to the nearest record boundary, so
 * records may be delivered twice, never lost: receivers deduplicate by seq.
 *
 * Bounds: live records (headers included) never exceed max_bytes and are
 * never older than max_age_ms when a record is appended: the oldest are
 * dropped first, counted in the stats and reported through the note
 * callback. Memory use is constant: the spool keeps one small entry per
 * segment, not per record. Disk use: consumed segments are removed; once
 * every record is consumed, a tail segment of 64 KiB or more (any size after
 * a write found the disk full: ENOSPC, EDQUOT) is replaced by an empty one,
 * so that a full disk frees up as soon as the spool is drained.
 *
 * Sequence numbers: lru_spool_take_seq() returns the next number and
 * persists its successor before returning, so a number is never handed out
 * twice, across restarts and crashes (there may be gaps). A new spool, or
 * one whose seq file was lost, starts at the wall clock in milliseconds (or
 * after the largest seq still in its segments, if that is higher): numbers
 * increase by one per snapshot, far slower than the clock, so a spool wiped
 * and recreated within a boot never repeats a number the store already has.
 *
 * The library never prints: what a person should hear about (drops, torn
 * records) goes to opts->note.
 *
 * Threads: every call but open and close takes the spool's mutex, held for
 * that call's disk I/O only (an fdatasync at most, never longer), so one
 * thread may take sequence numbers and append while another reads from the
 * head and consumes (lrugend's shipping thread). opts->note is called with
 * the mutex held: it must not call the spool. A record peeked by one thread
 * may be dropped for the bounds by another's append before it is read:
 * lru_spool_read() then says LRU_ENOENT, and lru_spool_consume() of a
 * position the head has already passed does nothing, so a record is never
 * removed twice.
 */
#ifndef LRU_SPOOL_H
#define LRU_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_err.h"

#define LRU_SPOOL_HEADER 32u
/* largest payload accepted */
#define LRU_SPOOL_MAX_RECORD (64u << 20)
/* segment size when opts->segment_bytes is 0 */
#define LRU_SPOOL_SEGMENT_DEFAULT (4u << 20)

enum lru_spool_note {
	LRU_SPOOL_NOTE_DROPPED,	/* records dropped for max_bytes or max_age */
	LRU_SPOOL_NOTE_TORN,	/* a torn or corrupt record was skipped at open */
	LRU_SPOOL_NOTE_INFO,	/* anything else worth a log line */
};

struct lru_spool_opts {
	uint64_t max_bytes;	/* bound on live records, headers included; 0 = none */
	uint64_t max_age_ms;	/* drop records older than this at append; 0 = none */
	uint64_t segment_bytes;	/* start a new segment past this size; 0 = default */
	void (*note)(void *arg, enum lru_spool_note kind, const char *msg);
	void *note_arg;
};

struct lru_spool_stats {
	uint64_t records;		/* live (unacknowledged) records */
	uint64_t bytes;			/* their size, headers included */
	uint64_t segments;
	uint64_t dropped_full;		/* records dropped for max_bytes since open */
	uint64_t dropped_old;		/* records dropped for max_age_ms since open */
	uint64_t torn;			/* torn or corrupt regions skipped at open */
	uint64_t torn_bytes;
	uint64_t next_seq;
};

/* A place in the spool: a record boundary. */
struct lru_spool_pos {
	uint64_t seg;		/* segment id */
	uint64_t off;		/* byte offset in the segment */
};

/* One record's header, as returned by lru_spool_peek(). */
struct lru_spool_rec {
	uint64_t seq;
	int64_t time_ms;
	uint32_t len;			/* payload bytes */
	uint32_t crc;
	struct lru_spool_pos pos;	/* where it starts */
	struct lru_spool_pos next;	/* where the record after it starts */
};

struct lru_spool;

/*
 * Open (creating it if needed) the spool in dir, lock it, check its records
 * and prepare the tail for appends. LRU_EBUSY when another process holds
 * the spool; LRU_EACCES (or LRU_EIO, LRU_ENOENT) when dir cannot be created
 * or written. Free with lru_spool_close.
 */
enum lru_err lru_spool_open(const char *dir, const struct lru_spool_opts *opts,
			    struct lru_spool **out, struct lru_error *err);
void lru_spool_close(struct lru_spool *sp);

/* Change the bounds (applied at the next append). */
void lru_spool_set_limits(struct lru_spool *sp, uint64_t max_bytes, uint64_t max_age_ms);

/* Hand out the next sequence number, persisting its successor first. */
enum lru_err lru_spool_take_seq(struct lru_spool *sp, uint64_t *seq, struct lru_error *err);

/*
 * Append one record and fdatasync it. Drops the oldest records first where
 * the bounds require it. LRU_ERANGE when the record alone exceeds
 * LRU_SPOOL_MAX_RECORD or max_bytes.
 */
enum lru_err lru_spool_append(struct lru_spool *sp, uint64_t seq, int64_t time_ms,
			      const void *data, size_t len, struct lru_error *err);

/* The position of the oldest live record (the head). */
void lru_spool_head(struct lru_spool *sp, struct lru_spool_pos *pos);

/*
 * Read the header of the record at pos (a position from lru_spool_head or a
 * previous rec->next). LRU_ENOENT when pos is the end of the spool.
 */
enum lru_err lru_spool_peek(struct lru_spool *sp, const struct lru_spool_pos *pos,
			    struct lru_spool_rec *rec, struct lru_error *err);

/*
 * Read rec's payload (rec->len bytes) into buf and check its checksum:
 * LRU_EPROTO when the bytes on disk changed since the spool was opened (the
 * caller drops the record with lru_spool_consume); LRU_ENOENT when an append
 * dropped it for the bounds since it was peeked (the caller starts again
 * from the head).
 */
enum lru_err lru_spool_read(struct lru_spool *sp, const struct lru_spool_rec *rec, void *buf,
			    struct lru_error *err);

/*
 * Remove every record before upto (acknowledged, or dropped by the caller):
 * the head moves there, is persisted, and segments wholly before it are
 * deleted.
 */
enum lru_err lru_spool_consume(struct lru_spool *sp, const struct lru_spool_pos *upto,
			       struct lru_error *err);

void lru_spool_stats(struct lru_spool *sp, struct lru_spool_stats *st);

#endif
