/*
 * lru_snapjson.h - a decoded snapshot as JSON: lrugen dump's output, and
 * the test tools' (pbdump, teststore). The protobuf's fields by name
 * (proto/lrugen.proto), warnings by code:
 *
 *	{"host", "boot_id", "seq", "kernel", "taken_at_ms", "read_start_ms",
 *	 "read_end_ms", "birth_error_ms", "page_size", "source", "enabled",
 *	 "duplicates_dropped", "warnings", "aging": {...}, "nodes": [...],
 *	 "lruvecs": [{"memcg", "memcg_id", "memcg_inode", "node", "warnings",
 *	              "generations": [{"seq", "age_ms", "birth_ms", "anon_pages",
 *	                               "file_pages", "tiers"}]}],
 *	 "memcg_stats": [{"memcg", "memcg_inode", "anon_bytes", ...}]}
 *
 * Strings that are not UTF-8 (a kernel's memcg path may be any bytes)
 * appear in their LRU_ESC_UTF8 form (lru_esc.h), as lrugend sends them.
 */
#ifndef LRU_SNAPJSON_H
#define LRU_SNAPJSON_H

#include <jansson.h>

#include "lru_err.h"
#include "lru_model.h"
#include "lru_spool.h"

/* A new JSON object (the caller owns it), or NULL out of memory. */
json_t *lru_snapshot_json(const struct lru_snapshot *s);

/*
 * Every snapshot of a recording (a SnapshotBatch file, "-", or a spool
 * directory: lru_record.h) as one JSON array, oldest batch first; each
 * batch decoded as the store decodes it (lru_pb_decode_batch: a batch that
 * does not decode fails the whole, naming it). stats as lru_record_each's.
 */
enum lru_err lru_record_json(const char *path, json_t **out, struct lru_spool_stats *stats,
			     struct lru_error *err);

#endif
