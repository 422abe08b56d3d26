/*
 * schema.h - the sqlite schema of lrugen-store and the statements
 * that write one snapshot, as text. The store runs them; bench/store runs
 * the very same statements without the server around them, so that "raw
 * sqlite inserts of the same rows" are the same rows. Data only: no code,
 * no link dependency on sqlite.
 *
 * Tables (every size in bytes, every time in ms since the epoch):
 *
 *   hosts          one row per host: its latest snapshot (largest taken_ms)
 *                  summarised: memory, bytes in generations, cold bytes at
 *                  each fixed threshold (lru_fleet.h); indexes on
 *                  mem_free + cold_T make "rank" an index range scan
 *   host_nodes     the same per (host, NUMA node), without offer indexes: each
 *                  costs a random index page per snapshot, and a per-node
 *                  rank reads the whole table (20,000 rows at 10,000 hosts,
 *                  ~15 ms) about as fast as it walks an index joined to hosts
 *   paths          memcg path dictionary (a path names a job across hosts)
 *   snapshots      every raw snapshot: identity (host, boot_id, seq) is
 *                  unique; data holds its generations packed
 *                  (lru_fleet_pack); kept for raw-retention
 *   memcg_latest   per (host, memcg path) of the latest snapshot, summed over
 *                  nodes: bytes and cold bytes at each threshold; rows of
 *                  older snapshots (snap_id < hosts.snap_id) are stale and
 *                  removed at ingest
 *   wss_hourly     per (path, hour): histograms of per-host working sets
 *                  (lru_hist_set_encode) at each threshold; kept for
 *                  rollup-retention
 *   meta           rollup_snap_id: every snapshot with id <= it is counted in
 *                  wss_hourly
 *
 * Accuracy warnings (lru_warn.h; schema version 2), small integer bitmasks,
 * mapped to their codes (lru_warn_name) only when a query answers:
 *
 *   hosts.host_warnings    LRU_HOSTW_* of the latest snapshot
 *   *.warnings             LRU_WARN_* of the lruvecs the row sums, their
 *                          union: hosts (every lruvec), host_nodes (the
 *                          node's), memcg_latest (the memcg's, every node)
 *   snapshots.data         each lruvec's own, in the packed blob
 *                          (lru_fleet_pack: only where it has some)
 *   wss_hourly.warnings    samples per warning (lru_fleet_warn_counts
 *                          blob); NULL when no sample was warned
 *
 * Migrations: SCHEMA_MIGRATIONS[i] takes a database from
 * PRAGMA user_version i to i + 1. Append, never edit.
 */
#ifndef STORE_SCHEMA_H
#define STORE_SCHEMA_H

/* the fixed thresholds of lru_fleet.h, as columns */
#define SCHEMA_COLD_COLS \
	"cold_1m, cold_2m, cold_5m, cold_10m, cold_30m, cold_1h, cold_6h, cold_24h"
#define SCHEMA_COLD_DEFS \
	"cold_1m INTEGER NOT NULL DEFAULT 0, cold_2m INTEGER NOT NULL DEFAULT 0, " \
	"cold_5m INTEGER NOT NULL DEFAULT 0, cold_10m INTEGER NOT NULL DEFAULT 0, " \
	"cold_30m INTEGER NOT NULL DEFAULT 0, cold_1h INTEGER NOT NULL DEFAULT 0, " \
	"cold_6h INTEGER NOT NULL DEFAULT 0, cold_24h INTEGER NOT NULL DEFAULT 0"
/* cold values are always bound as parameters ?21 to ?28 */
#define SCHEMA_COLD_PARAM 21
#define SCHEMA_COLD_VALUES "?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28"
#define SCHEMA_COLD_SET \
	"cold_1m = ?21, cold_2m = ?22, cold_5m = ?23, cold_10m = ?24, cold_30m = ?25, " \
	"cold_1h = ?26, cold_6h = ?27, cold_24h = ?28"

#define SCHEMA_OFFER_INDEXES(table) \
	"CREATE INDEX " table "_offer_1m ON " table "(mem_free + cold_1m);\n" \
	"CREATE INDEX " table "_offer_2m ON " table "(mem_free + cold_2m);\n" \
	"CREATE INDEX " table "_offer_5m ON " table "(mem_free + cold_5m);\n" \
	"CREATE INDEX " table "_offer_10m ON " table "(mem_free + cold_10m);\n" \
	"CREATE INDEX " table "_offer_30m ON " table "(mem_free + cold_30m);\n" \
	"CREATE INDEX " table "_offer_1h ON " table "(mem_free + cold_1h);\n" \
	"CREATE INDEX " table "_offer_6h ON " table "(mem_free + cold_6h);\n" \
	"CREATE INDEX " table "_offer_24h ON " table "(mem_free + cold_24h);\n"

#define SCHEMA_V1 \
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;\n" \
	"CREATE TABLE hosts(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,\n" \
	"  first_seen_ms INTEGER NOT NULL, ingest_ms INTEGER NOT NULL,\n" \
	"  snap_id INTEGER, taken_ms INTEGER, boot_id TEXT, seq INTEGER, kernel TEXT,\n" \
	"  page_size INTEGER, nr_nodes INTEGER NOT NULL DEFAULT 0,\n" \
	"  nr_memcgs INTEGER NOT NULL DEFAULT 0, nr_lruvecs INTEGER NOT NULL DEFAULT 0,\n" \
	"  mem_total INTEGER NOT NULL DEFAULT 0, mem_free INTEGER NOT NULL DEFAULT 0,\n" \
	"  total INTEGER NOT NULL DEFAULT 0, " SCHEMA_COLD_DEFS ");\n" \
	SCHEMA_OFFER_INDEXES("hosts") \
	"CREATE TABLE host_nodes(host_id INTEGER NOT NULL, node INTEGER NOT NULL,\n" \
	"  snap_id INTEGER NOT NULL, mem_total INTEGER NOT NULL, mem_free INTEGER NOT NULL,\n" \
	"  total INTEGER NOT NULL, " SCHEMA_COLD_DEFS ",\n" \
	"  PRIMARY KEY(host_id, node)) WITHOUT ROWID;\n" \
	"CREATE TABLE paths(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);\n" \
	"CREATE TABLE snapshots(id INTEGER PRIMARY KEY AUTOINCREMENT,\n" \
	"  host_id INTEGER NOT NULL, boot_id TEXT NOT NULL, seq INTEGER NOT NULL,\n" \
	"  taken_ms INTEGER NOT NULL, read_start_ms INTEGER NOT NULL,\n" \
	"  read_end_ms INTEGER NOT NULL, ingest_ms INTEGER NOT NULL,\n" \
	"  page_size INTEGER NOT NULL, nr_lruvecs INTEGER NOT NULL,\n" \
	"  mem_total INTEGER NOT NULL, mem_free INTEGER NOT NULL, total INTEGER NOT NULL,\n" \
	"  data BLOB NOT NULL);\n" \
	"CREATE UNIQUE INDEX snapshots_identity ON snapshots(host_id, boot_id, seq);\n" \
	"CREATE INDEX snapshots_host_time ON snapshots(host_id, taken_ms);\n" \
	"CREATE INDEX snapshots_time ON snapshots(taken_ms);\n" \
	"CREATE TABLE memcg_latest(host_id INTEGER NOT NULL, path_id INTEGER NOT NULL,\n" \
	"  snap_id INTEGER NOT NULL, total INTEGER NOT NULL, " SCHEMA_COLD_DEFS ",\n" \
	"  PRIMARY KEY(host_id, path_id)) WITHOUT ROWID;\n" \
	"CREATE INDEX memcg_latest_path ON memcg_latest(path_id);\n" \
	"CREATE TABLE wss_hourly(path_id INTEGER NOT NULL, hour INTEGER NOT NULL,\n" \
	"  samples INTEGER NOT NULL, hist BLOB NOT NULL,\n" \
	"  PRIMARY KEY(path_id, hour)) WITHOUT ROWID;\n" \
	"CREATE INDEX wss_hourly_hour ON wss_hourly(hour);\n" \
	"INSERT INTO meta(key, value) VALUES('rollup_snap_id', 0);\n"

/*
 * Version 2: accuracy warnings. ADD COLUMN only rewrites the schema, not the
 * rows (rows written before read the defaults: no warnings, which is what
 * their snapshots carried), so it takes as long on a big database as on a
 * small one.
 */
#define SCHEMA_V2 \
	"ALTER TABLE hosts ADD COLUMN host_warnings INTEGER NOT NULL DEFAULT 0;\n" \
	"ALTER TABLE hosts ADD COLUMN warnings INTEGER NOT NULL DEFAULT 0;\n" \
	"ALTER TABLE host_nodes ADD COLUMN warnings INTEGER NOT NULL DEFAULT 0;\n" \
	"ALTER TABLE memcg_latest ADD COLUMN warnings INTEGER NOT NULL DEFAULT 0;\n" \
	"ALTER TABLE wss_hourly ADD COLUMN warnings BLOB;\n"

#define SCHEMA_NR_MIGRATIONS 2
#define SCHEMA_MIGRATIONS { SCHEMA_V1, SCHEMA_V2 }

/* ---- the rows of one snapshot --------------------------------------------- */

/* a row's lruvec warnings (LRU_WARN_* bits, the "warnings" column) are always ?29 */
#define SCHEMA_WARN_PARAM 29

/* ?1 host_id ?2 boot_id ?3 seq ?4 taken ?5 read_start ?6 read_end ?7 ingest
 * ?8 page_size ?9 nr_lruvecs ?10 mem_total ?11 mem_free ?12 total ?13 data */
#define SCHEMA_INSERT_SNAPSHOT \
	"INSERT INTO snapshots(host_id, boot_id, seq, taken_ms, read_start_ms, read_end_ms,\n" \
	"  ingest_ms, page_size, nr_lruvecs, mem_total, mem_free, total, data)\n" \
	"VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)\n" \
	"ON CONFLICT(host_id, boot_id, seq) DO NOTHING"

/* ?1 host_id ?2 snap_id ?3 taken ?4 ingest ?5 boot_id ?6 seq ?7 kernel
 * ?8 page_size ?9 nr_nodes ?10 nr_memcgs ?11 nr_lruvecs ?12 mem_total
 * ?13 mem_free ?14 total ?15 host_warnings, cold ?21.., warnings ?29 */
#define SCHEMA_UPDATE_HOST \
	"UPDATE hosts SET snap_id = ?2, taken_ms = ?3, ingest_ms = ?4, boot_id = ?5, seq = ?6,\n" \
	"  kernel = ?7, page_size = ?8, nr_nodes = ?9, nr_memcgs = ?10, nr_lruvecs = ?11,\n" \
	"  mem_total = ?12, mem_free = ?13, total = ?14, host_warnings = ?15,\n" \
	"  " SCHEMA_COLD_SET ", warnings = ?29\n" \
	"WHERE id = ?1"

/* ?1 host_id ?2 node ?3 snap_id ?4 mem_total ?5 mem_free ?6 total, cold ?21.., warnings ?29 */
#define SCHEMA_UPDATE_NODE \
	"UPDATE host_nodes SET snap_id = ?3, mem_total = ?4, mem_free = ?5, total = ?6,\n" \
	"  " SCHEMA_COLD_SET ", warnings = ?29 WHERE host_id = ?1 AND node = ?2"
#define SCHEMA_INSERT_NODE \
	"INSERT INTO host_nodes(host_id, node, snap_id, mem_total, mem_free, total,\n" \
	"  " SCHEMA_COLD_COLS ", warnings) VALUES(?1, ?2, ?3, ?4, ?5, ?6, " \
	SCHEMA_COLD_VALUES ", ?29)"
#define SCHEMA_DELETE_STALE_NODES \
	"DELETE FROM host_nodes WHERE host_id = ?1 AND snap_id < ?2"

/* ?1 host_id ?2 path_id ?3 snap_id ?4 total, cold ?21.., warnings ?29 */
#define SCHEMA_UPDATE_MEMCG \
	"UPDATE memcg_latest SET snap_id = ?3, total = ?4, " SCHEMA_COLD_SET ",\n" \
	"  warnings = ?29 WHERE host_id = ?1 AND path_id = ?2"
#define SCHEMA_INSERT_MEMCG \
	"INSERT INTO memcg_latest(host_id, path_id, snap_id, total, " SCHEMA_COLD_COLS ",\n" \
	"  warnings) VALUES(?1, ?2, ?3, ?4, " SCHEMA_COLD_VALUES ", ?29)"
#define SCHEMA_DELETE_STALE_MEMCGS \
	"DELETE FROM memcg_latest WHERE host_id = ?1 AND snap_id < ?2"

#endif
