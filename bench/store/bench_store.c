/*
 * bench_store - the raw-sqlite baseline of bench/store: the store's rows,
 * inserted with no server around them.
 *
 *	bench_store raw --db FILE [--hosts N] [--memcgs M] [--nodes K]
 *		[--now MS] [--cycles C] [--warm-cycles W] [--batch B]
 *		[--sync full|normal] [--seed S]
 *
 * FILE must already have the store's schema ('lrugen-store --db FILE
 * --migrate'). The snapshots are those fleetsim sends with the same options
 * (synth.h): host h's last C cycles at --now. First the W cycles before
 * them are written untimed, as the store had them before its burst (hosts,
 * paths and latest rows exist). Then the C cycles' rows are derived
 * (lru_fleet_rows_build, untimed) and written with rows_write()
 * (the store's own prepared statements) in one transaction per B
 * snapshots, in time order, with the store's pragmas. Prints key=value:
 * snapshots seconds snaps_per_s lruvec_rows_per_s.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lru_fleet.h"
#include "rows.h"
#include "synth.h"

#define PROG "bench_store"

#include "tool_die.h"

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg))
		die("%s: %s", sql, msg ? msg : sqlite3_errmsg(db));
}

/* the path dictionary: a small open-addressing table of path -> id */
struct paths {
	char **key;
	uint64_t *id;
	size_t cap, n;
	sqlite3_stmt *insert;
};

static uint64_t path_id(struct paths *p, sqlite3 *db, const char *path)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (const char *c = path; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	for (i = h & (p->cap - 1); p->key[i]; i = (i + 1) & (p->cap - 1))
		if (!strcmp(p->key[i], path))
			return p->id[i];
	if (++p->n * 2 > p->cap)
		die("too many memcg paths");
	sqlite3_bind_text(p->insert, 1, path, -1, SQLITE_STATIC);
	if (sqlite3_step(p->insert) != SQLITE_DONE)
		die("insert path: %s", sqlite3_errmsg(db));
	sqlite3_reset(p->insert);
	p->key[i] = strdup(path);
	p->id[i] = (uint64_t)sqlite3_last_insert_rowid(db);
	return p->id[i];
}

struct snap {
	struct lru_snapshot s;
	struct lru_fleet_rows rows;
	uint64_t *path_ids;
	unsigned host;
};

static void make_snap(const struct synth *fleet, unsigned host, uint64_t cycle,
		      struct paths *paths, sqlite3 *db, struct snap *out)
{
	struct lru_error err;

	lru_snapshot_init(&out->s);
	out->host = host;
	if (synth_host(fleet, host, cycle, &out->s, &err) ||
	    lru_fleet_rows_build(&out->s, &out->rows, &err))
		die("%s", err.msg);
	out->path_ids = calloc(out->s.nr_memcgs, sizeof(*out->path_ids));
	if (!out->path_ids)
		die("out of memory");
	for (size_t i = 0; i < out->s.nr_memcgs; i++)
		out->path_ids[i] = path_id(paths, db, out->s.memcgs[i].path);
}

static void free_snap(struct snap *sn)
{
	lru_fleet_rows_release(&sn->rows);
	lru_snapshot_release(&sn->s);
	free(sn->path_ids);
}

static void write_snaps(struct rows_writer *w, struct rows_host *hosts, struct snap *v,
			size_t n, size_t batch)
{
	int64_t now = lru_now_ms(), id;
	struct lru_error err;

	for (size_t i = 0; i < n; i += batch) {
		exec(w->db, "BEGIN IMMEDIATE");
		for (size_t j = i; j < i + batch && j < n; j++)
			if (rows_write(w, &hosts[v[j].host], &v[j].s, &v[j].rows, v[j].path_ids,
					       now, &id, &err))
				die("%s", err.msg);
		exec(w->db, "COMMIT");
	}
}

static uint64_t arg_u64(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		die("'%s' is not a number", s);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' }, { "hosts", required_argument, NULL, 'H' },
		{ "memcgs", required_argument, NULL, 'm' }, { "nodes", required_argument, NULL, 'n' },
		{ "now", required_argument, NULL, 'N' }, { "cycles", required_argument, NULL, 'c' },
		{ "warm-cycles", required_argument, NULL, 'w' }, { "batch", required_argument, NULL, 'b' },
		{ "sync", required_argument, NULL, 's' }, { "seed", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct synth fleet;
	struct rows_writer w;
	struct rows_host *hosts;
	struct paths paths = { 0 };
	struct lru_error err;
	const char *file = NULL, *sync = "full";
	uint64_t cycles = 2, warm = 2, batch = 1000;
	int64_t now = lru_now_ms();
	sqlite3 *db;
	sqlite3_stmt *st;
	struct snap *v;
	size_t n = 0, lruvecs = 0;
	char pragma[256];
	double t0, secs;
	int opt;

	synth_defaults(&fleet);
	if (argc < 2 || strcmp(argv[1], "raw"))
		die("usage: " PROG " raw --db FILE [--hosts N] [--memcgs M] [--nodes K] [--now MS] "
		    "[--cycles C] [--warm-cycles W] [--batch B] [--sync full|normal]");
	optind = 2;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': file = optarg; break;
		case 'H': fleet.nr_hosts = (unsigned)arg_u64(optarg); break;
		case 'm': fleet.nr_memcgs = (unsigned)arg_u64(optarg); break;
		case 'n': fleet.nr_nodes = (unsigned)arg_u64(optarg); break;
		case 'N': now = (int64_t)arg_u64(optarg); break;
		case 'c': cycles = arg_u64(optarg); break;
		case 'w': warm = arg_u64(optarg); break;
		case 'b': batch = arg_u64(optarg); break;
		case 's': sync = optarg; break;
		case 'S': fleet.seed = arg_u64(optarg); break;
		default: die("bad option");
		}
	}
	if (!file || !batch || !cycles || (strcmp(sync, "full") && strcmp(sync, "normal")))
		die("raw needs --db FILE, --batch and --cycles above 0, --sync full|normal");
	if (sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL))
		die("cannot open '%s': %s", file, sqlite3_errmsg(db));
	/* the store's pragmas (store/db.c) */
	snprintf(pragma, sizeof(pragma), "PRAGMA journal_mode = WAL; PRAGMA synchronous = %s; "
		 "PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY;", sync);
	exec(db, pragma);
	if (rows_prepare(&w, db, &err))
		die("%s", err.msg);
	paths.cap = 1 << 16;
	paths.key = calloc(paths.cap, sizeof(*paths.key));
	paths.id = calloc(paths.cap, sizeof(*paths.id));
	hosts = calloc(fleet.nr_hosts, sizeof(*hosts));
	v = calloc((size_t)fleet.nr_hosts * cycles, sizeof(*v));
	if (!paths.key || !paths.id || !hosts || !v)
		die("out of memory");
	if (sqlite3_prepare_v2(db, "INSERT INTO paths(path) VALUES(?1)", -1, &paths.insert, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO hosts(name, first_seen_ms, ingest_ms) "
			       "VALUES(?1, ?2, ?2)", -1, &st, NULL))
		die("%s", sqlite3_errmsg(db));

	/* untimed: hosts, then the warm-up cycles */
	exec(db, "BEGIN");
	for (unsigned h = 0; h < fleet.nr_hosts; h++) {
		char name[64];

		snprintf(name, sizeof(name), "%s%05u", fleet.prefix, h);
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, now);
		if (sqlite3_step(st) != SQLITE_DONE)
			die("insert host: %s", sqlite3_errmsg(db));
		sqlite3_reset(st);
		hosts[h] = (struct rows_host){ sqlite3_last_insert_rowid(db), 0, INT64_MIN, 0, 0 };
	}
	exec(db, "COMMIT");
	sqlite3_finalize(st);
	for (uint64_t c = cycles + warm; c > cycles; c--) {
		for (unsigned h = 0; h < fleet.nr_hosts; h++) {
			uint64_t cycle = synth_cycle_at(&fleet, h, now) - (c - 1);

			make_snap(&fleet, h, cycle, &paths, db, &v[h]);
		}
		write_snaps(&w, hosts, v, fleet.nr_hosts, batch);
		for (unsigned h = 0; h < fleet.nr_hosts; h++)
			free_snap(&v[h]);
	}

	/* untimed: the rows of the measured cycles, in time order (cycle, then host) */
	for (uint64_t c = cycles; c > 0; c--)
		for (unsigned h = 0; h < fleet.nr_hosts; h++) {
			make_snap(&fleet, h, synth_cycle_at(&fleet, h, now) - (c - 1), &paths, db,
				  &v[n]);
			lruvecs += v[n++].s.nr_lruvecs;
		}
	t0 = now_s();
	write_snaps(&w, hosts, v, n, batch);
	secs = now_s() - t0;
	printf("snapshots=%zu seconds=%.3f snaps_per_s=%.1f lruvec_rows_per_s=%.0f\n", n, secs,
	       (double)n / secs, (double)lruvecs / secs);
	for (size_t i = 0; i < n; i++)
		free_snap(&v[i]);
	for (size_t i = 0; i < paths.cap; i++)
		free(paths.key[i]);
	free(paths.key);
	free(paths.id);
	free(v);
	free(hosts);
	sqlite3_finalize(paths.insert);
	rows_release(&w);
	sqlite3_close(db);
	return 0;
}
