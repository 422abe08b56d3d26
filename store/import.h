/*
 * import.h - lrugen-store --import-sqlite FILE: move a sqlite store's
 * history into the ClickHouse backend of cfg.
 *
 * The hourly working-set rollups of the hours before FILE's first raw
 * snapshot go straight into the rollup tables (ch_import_rollup); every raw
 * snapshot still in FILE is rebuilt (query_export) and written through the
 * ClickHouse writer as if a collector had sent it: the same rows, views and
 * exactly-once rules, so an import run twice, or stopped and run again,
 * counts each snapshot once. What is lost: in the hour of the first raw
 * snapshot, the samples of snapshots sqlite expired already; the kernel and
 * host warnings of older snapshots (sqlite keeps the latest only).
 *
 * FILE is only read (a running store may keep serving it). Progress and the
 * outcome are logged. 0, or -1 with a message in errbuf.
 */
#ifndef STORE_IMPORT_H
#define STORE_IMPORT_H

#include <stddef.h>

#include "config.h"
#include "metrics.h"

int import_sqlite(const struct store_config *cfg, struct metrics *m, const char *file,
		  char *errbuf, size_t size);

#endif
