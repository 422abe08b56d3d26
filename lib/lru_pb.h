/*
 * lru_pb.h - protobuf (lrugen.v1) encoding and decoding of snapshots.
 *
 * A struct lru_snapshot maps one-to-one onto a lrugen.v1.HostSnapshot:
 * snap->host (host, boot id, kernel, seq, enabled bits, aging), the read
 * window and birth_error_ms, page size, source, duplicates, per-node memory,
 * lruvecs (memcg id, path and inode are repeated on each Lruvec), their
 * generations and, from lru_gen_full, tiers and walk stats; memcgs with
 * has_stats become MemcgStats. HostSnapshot.taken_at_ms is the read midpoint.
 *
 * Decoding validates what the parser validates (at most LRU_MAX_GENS
 * generations with contiguous seqs, tier indices, node range, path length,
 * one lruvec per memcg and node) and fails with LRU_EPROTO and a message
 * naming the snapshot and lruvec; it never trusts the sender. Beyond the
 * field mapping: empty host/boot_id/kernel strings decode to NULL;
 * taken_at_ms is derived, not read back; page_size 0 means 4096; lruvecs with
 * the same (memcg id, path, inode) share one struct lru_memcg; MemcgStats
 * attach to the memcg with that path and inode (or a new one with id 0); two
 * MemcgStats for one memcg or two NodeMemory for one node are rejected; fewer
 * than LRU_NR_TIERS tiers are accepted (the rest stay zero) and unknown
 * present bits are dropped.
 *
 * Strings on the wire are valid UTF-8, as proto3 requires (lrugen-store
 * refuses others): the encoder sends a host name, boot id, kernel release or
 * memcg path that is not UTF-8 in its LRU_ESC_UTF8 form (lru_esc.h), each
 * byte of invalid UTF-8 as the four characters \xNN; valid strings go as
 * they are. The snapshot itself keeps the kernel's bytes, which the collector
 * needs to find the memcg again. This is the only place lrugend's strings
 * are made UTF-8, so the store, its JSON and lrugend's /metrics (LRU_ESC_PROM)
 * all show such a name as the same text.
 *
 * LRU_PB_MAX_MESSAGE is the only limit before protobuf-c unpacks, so servers
 * bound request bodies well below it.
 */
#ifndef LRU_PB_H
#define LRU_PB_H

#include <stdint.h>

#include "lru_model.h"
#include "lrugen.pb-c.h"

/* largest message lru_pb_decode_batch accepts (bytes) */
#define LRU_PB_MAX_MESSAGE (256u << 20)

/*
 * Serialize n snapshots as one SnapshotBatch, packed by protobuf-c. On
 * success *out is a malloc'd buffer of exactly *len bytes that the caller
 * frees. Fails with LRU_EINVAL for a snapshot with an unknown source or an
 * lruvec that refers to a missing memcg or lacks 1 to LRU_MAX_GENS
 * generations, and with LRU_ERANGE above LRU_PB_MAX_MESSAGE bytes.
 */
enum lru_err lru_pb_encode_batch(const struct lru_snapshot *const *snaps, size_t n,
				 uint8_t **out, size_t *len, struct lru_error *err);

/*
 * Parse a SnapshotBatch. On success *snaps is a malloc'd array of *n
 * snapshots; the caller releases each (lru_snapshot_release) and frees the
 * array (or calls lru_pb_free_snapshots).
 */
enum lru_err lru_pb_decode_batch(const uint8_t *buf, size_t len,
				 struct lru_snapshot **snaps, size_t *n,
				 struct lru_error *err);
/*
 * lru_pb_decode_batch within a memory bound: the unpacked message and the
 * snapshots built from it take at most max_mem bytes of heap (an upper
 * bound counted from the message, malloc's own overhead included), else
 * LRU_ERANGE with nothing returned. On success *mem is the bound for the
 * returned snapshots alone: what a server holding them accounts until it
 * frees them. A few bytes of wire can ask for kilobytes of structures (an
 * empty Lruvec entry is two bytes), so bound by this, never by body size.
 */
enum lru_err lru_pb_decode_batch_max(const uint8_t *buf, size_t len, size_t max_mem,
				     struct lru_snapshot **snaps, size_t *n, size_t *mem,
				     struct lru_error *err);
void lru_pb_free_snapshots(struct lru_snapshot *snaps, size_t n);

/* Lower-level: fill an empty snapshot from an unpacked HostSnapshot message. */
enum lru_err lru_pb_snapshot_from_host(const Lrugen__V1__HostSnapshot *msg,
				       struct lru_snapshot *snap, struct lru_error *err);

#endif
