/* cmd-wss.c - lrugen wss: hot and cold bytes per memcg and node at a threshold. */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "lru_sys.h"
#include "lru_units.h"
#include "lru_ws.h"

static const char usage[] =
	"usage: lrugen wss [--threshold DUR] [--memcg PATH|GLOB | --memcg-id ID] [--node N|all]\n"
	"                  [--age-first INTERVAL] [--interpolate] [--all] [--json]\n"
	"\n"
	"Estimate working sets: per memcg and node, the bytes used within the last DUR\n"
	"(hot) and the bytes idle longer than that (cold), anon and file apart.\n"
	"A page in generation s has been idle at least since generation s+1 was born,\n"
	"so cold = generations whose successor is older than DUR. This needs\n"
	"generations made on a steady pace: run lrugend, or use --age-first.\n"
	"\n"
	"  -T, --threshold DUR    idle time that makes a page cold (default 2m)\n"
	"  --age-first INTERVAL   age every lruvec, wait INTERVAL, age again, then\n"
	"                         measure (for a host nobody ages); INTERVAL should be\n"
	"                         at least the threshold\n"
	"  --interpolate          split the generation that straddles DUR linearly\n"
	"                         (default: count it hot, an upper bound on the WSS)\n"
	"  --all                  also list lruvecs holding no pages\n"
	"  --keep-damon           with --age-first: leave damon_stat running (see below)\n"
	"  --json                 an array of rows: memcg, memcg_id, node, hot_bytes,\n"
	"                         cold_bytes, hot_anon_bytes, hot_file_bytes, ...,\n"
	"                         warnings (a list of the codes below)\n"
	"\n"
	"unmapped_file_bytes: page cache that no process maps (read with read(2)).\n"
	"MGLRU files such pages in the oldest generations and tracks their reuse by\n"
	"access count (tiers), not by generation, so generation sizes call them cold\n"
	"even when they are reread often: treat that part of cold_file_bytes as\n"
	"unknown, and watch workingset_refault_file after reclaiming it.\n"
	"\n"
	"Warnings: a row whose figures are bounds, not measurements, says why; the\n"
	"table marks its hot bytes '>' (at least) and cold bytes '<' (at most).\n"
	"  thp_unaged   a DAMON monitor (damon_stat, on by default in Debian's 7.x\n"
	"               kernels; damon_reclaim; damon_lru_sort; a sysfs kdamond)\n"
	"               clears the accessed bits of this memcg's huge pages and this\n"
	"               kernel's aging does not see what it cleared, so part of the\n"
	"               hot set sits in old generations. lrugen age and lrugend turn\n"
	"               damon_stat off; lrugen's kernel series fixes the kernel.\n"
	"  file_unaged  this kernel (6.14 or later, without lrugen's series) keeps\n"
	"               mapped page cache that reached the oldest generation before\n"
	"               its first promotion there, however often it is used: the\n"
	"               hot file bytes are a lower bound, by at most the memcg's\n"
	"               mapped page cache (said when it maps 4 MiB or more).\n"
	"\n"
	"Examples:\n"
	"  lrugen wss -T 2m                            # hot and cold at T = 2m\n"
	"  lrugen wss --age-first 2m --memcg /jobs/web # age, wait 2m, age, then answer\n"
	"  lrugen wss --json | jq '.[] | {memcg, node, cold_bytes}'\n";

struct row {
	size_t lruvec;
	struct lru_ws ws;
	int64_t unmapped_file;	/* bytes; -1 when unknown */
};

/* memory.numa_stat "file" minus "file_mapped" on each node of one memcg. */
static void unmapped_file(struct cli *cli, const char *path, int64_t *per_node, size_t nr)
{
	uint64_t *file = calloc(nr, sizeof(*file)), *mapped = calloc(nr, sizeof(*mapped));
	size_t i;

	for (i = 0; i < nr; i++)
		per_node[i] = -1;
	if (file && mapped && path[0] &&
	    !lru_sys_numa_stat(cli->root, path, "file", file, nr, NULL) &&
	    !lru_sys_numa_stat(cli->root, path, "file_mapped", mapped, nr, NULL))
		for (i = 0; i < nr; i++)
			per_node[i] = file[i] > mapped[i] ? (int64_t)(file[i] - mapped[i]) : 0;
	free(file);
	free(mapped);
}

static json_t *row_json(const struct lru_snapshot *s, const struct row *r, uint64_t thr)
{
	const struct lru_lruvec *lv = &s->lruvecs[r->lruvec];
	const struct lru_memcg *m = lru_lruvec_memcg(s, lv);
	const struct lru_ws *w = &r->ws;
	json_t *o = json_object();

	json_object_set_new(o, "memcg", json_string(m->path));
	json_object_set_new(o, "memcg_id", cli_memcg_id_json(s, m));
	json_object_set_new(o, "node", json_integer(lv->node));
	json_object_set_new(o, "threshold_ms", json_integer((json_int_t)thr));
	json_object_set_new(o, "hot_bytes", json_integer((json_int_t)lru_ws_hot(w)));
	json_object_set_new(o, "cold_bytes", json_integer((json_int_t)lru_ws_cold(w)));
	json_object_set_new(o, "hot_anon_bytes", json_integer((json_int_t)w->hot[LRU_ANON]));
	json_object_set_new(o, "hot_file_bytes", json_integer((json_int_t)w->hot[LRU_FILE]));
	json_object_set_new(o, "cold_anon_bytes", json_integer((json_int_t)w->cold[LRU_ANON]));
	json_object_set_new(o, "cold_file_bytes", json_integer((json_int_t)w->cold[LRU_FILE]));
	json_object_set_new(o, "total_bytes",
			    json_integer((json_int_t)(lru_ws_hot(w) + lru_ws_cold(w))));
	json_object_set_new(o, "generations", json_integer(lv->nr_gens));
	json_object_set_new(o, "oldest_age_ms", json_integer(lv->gens[0].age_ms));
	json_object_set_new(o, "youngest_age_ms", json_integer(lru_lruvec_youngest(lv)->age_ms));
	json_object_set_new(o, "warnings", cli_warnings_json(lv->warnings, false));
	if (r->unmapped_file >= 0) {
		uint64_t um = (uint64_t)r->unmapped_file;

		json_object_set_new(o, "unmapped_file_bytes", json_integer(r->unmapped_file));
		json_object_set_new(o, "cold_unmapped_file_bytes",
				    json_integer((json_int_t)(um < w->cold[LRU_FILE] ? um
								    : w->cold[LRU_FILE])));
	} else {
		json_object_set_new(o, "unmapped_file_bytes", json_null());
	}
	return o;
}

static void print_rows(const struct lru_snapshot *s, const struct row *rows, size_t n,
		       uint64_t thr)
{
	char b[8][32], hot[40], cold[40];
	struct lru_ws total = { { 0 }, { 0 } };
	uint64_t unmapped_cold = 0;
	uint32_t warned = 0;
	size_t i;

	printf("threshold %s: memory idle longer than that is cold\n\n",
	       lru_fmt_duration(thr, b[0], sizeof(b[0])));
	printf("%-32s %4s %10s %10s %10s %10s %6s %10s\n", "MEMCG", "NODE", "HOT", "HOT ANON",
	       "HOT FILE", "COLD", "COLD%", "UNMAPPED*");
	for (i = 0; i < n; i++) {
		const struct lru_lruvec *lv = &s->lruvecs[rows[i].lruvec];
		const struct lru_memcg *m = lru_lruvec_memcg(s, lv);
		const struct lru_ws *w = &rows[i].ws;
		uint64_t all = lru_ws_hot(w) + lru_ws_cold(w);

		lru_ws_add(&total, w);
		warned |= lv->warnings;
		/* a bound is marked: at least this hot, at most this cold */
		snprintf(hot, sizeof(hot), "%s%s", lv->warnings ? ">" : "",
			 lru_fmt_bytes(lru_ws_hot(w), b[0], 32));
		snprintf(cold, sizeof(cold), "%s%s", lv->warnings ? "<" : "",
			 lru_fmt_bytes(lru_ws_cold(w), b[3], 32));
		if (rows[i].unmapped_file > 0)
			unmapped_cold += (uint64_t)rows[i].unmapped_file < w->cold[LRU_FILE]
						 ? (uint64_t)rows[i].unmapped_file : w->cold[LRU_FILE];
		printf("%-32s %4d %10s %10s %10s %10s %5.0f%% %10s\n",
		       m->path[0] ? cli_esc(m->path) : "(none)", lv->node, hot, lru_fmt_bytes(w->hot[LRU_ANON], b[1], 32),
		       lru_fmt_bytes(w->hot[LRU_FILE], b[2], 32), cold,
		       all ? 100.0 * (double)lru_ws_cold(w) / (double)all : 0.0,
		       rows[i].unmapped_file < 0 ? "-" :
		       lru_fmt_bytes((uint64_t)rows[i].unmapped_file, b[4], 32));
	}
	printf("%-32s %4s %10s %10s %10s %10s\n", "TOTAL", "",
	       lru_fmt_bytes(lru_ws_hot(&total), b[0], 32),
	       lru_fmt_bytes(total.hot[LRU_ANON], b[1], 32),
	       lru_fmt_bytes(total.hot[LRU_FILE], b[2], 32),
	       lru_fmt_bytes(lru_ws_cold(&total), b[3], 32));
	printf("\n* UNMAPPED: page cache no process maps. MGLRU tracks its reuse by tiers, not\n"
	       "  generations%s", unmapped_cold ? "" : ".\n");
	if (unmapped_cold)	/* the warning only where there is something to warn of */
		printf(", so up to %s of the cold file bytes above may be reread often.\n",
		       lru_fmt_bytes(unmapped_cold, b[5], 32));
	cli_warning_notes(warned, false, "> <");
}

struct wss_opts {
	struct cli_select sel;
	uint64_t thr, age_first;
	enum lru_ws_mode mode;
	bool all, keep_damon;
};

/* Parse the options into o; -1 to go on, else the exit code to return. */
static int wss_options(struct cli *cli, int argc, char **argv, struct wss_opts *o)
{
	static const struct option opts[] = {
		{ "threshold", required_argument, NULL, 't' },
		CLI_SELECT_OPTS,
		{ "age-first", required_argument, NULL, 'a' },
		{ "interpolate", no_argument, NULL, 'I' },
		{ "all", no_argument, NULL, 'A' },
		{ "keep-damon", no_argument, NULL, 'K' },
		CLI_COMMON_OPTS,
	};
	struct lru_error err;
	int opt, rc;

	cli_select_init(&o->sel);
	o->thr = 120000;
	o->mode = LRU_WS_STRICT;
	while ((opt = getopt_long(argc, argv, "hT:", opts, NULL)) != -1) {
		switch (opt) {
		case 'T':
		case 't':
			if (lru_parse_duration_ms(optarg, &o->thr, &err)) {
				cli_err("--threshold: %s", err.msg);
				return CLI_USAGE;
			}
			break;
		case 'a':
			if (lru_parse_duration_ms(optarg, &o->age_first, &err) || !o->age_first) {
				cli_err("--age-first: %s",
					o->age_first ? err.msg : "the interval must be > 0");
				return CLI_USAGE;
			}
			break;
		case 'I':
			o->mode = LRU_WS_INTERPOLATE;
			break;
		case 'A':
			o->all = true;
			break;
		case 'K':
			o->keep_damon = true;
			break;
		default:
			rc = cli_common_opt(cli, &o->sel, opt, usage);
			if (rc >= 0)
				return rc;
		}
	}
	return cli_no_more_args("wss", argc, argv) ? CLI_USAGE : -1;
}

/* Sleep ms; on a terminal, the time left on one line of stderr, updated each second. */
static void wait_with_progress(uint64_t ms)
{
	bool tty = isatty(STDERR_FILENO);
	char b[32];

	while (ms) {
		uint64_t step = tty && ms > 1000 ? (ms % 1000 ? ms % 1000 : 1000) : ms;
		struct timespec ts = { (time_t)(step / 1000), (long)(step % 1000) * 1000000 };

		if (tty)
			fprintf(stderr, "\rlrugen: waiting, %s left   ", lru_fmt_duration(ms, b, sizeof(b)));
		while (nanosleep(&ts, &ts))
			;
		ms -= step;
	}
	if (tty)
		fputs("\r\033[K", stderr);	/* the line cleared for what follows */
}

/* --age-first: age every selected lruvec, wait the interval, age again. */
static int age_first(struct cli *cli, const struct wss_opts *o)
{
	char b[32];
	int rc;

	if (o->age_first < o->thr)
		cli_warn("--age-first %s is shorter than the threshold: nothing can be cold yet",
			 lru_fmt_duration(o->age_first, b, sizeof(b)));
	cli_before_aging(cli, o->keep_damon);
	fprintf(stderr, "lrugen: aging every lruvec, waiting %s, aging again\n",
		lru_fmt_duration(o->age_first, b, sizeof(b)));
	rc = cli_age(cli, &o->sel, true, true, true, NULL);
	if (rc)
		return rc;
	wait_with_progress(o->age_first);
	return cli_age(cli, &o->sel, true, true, true, NULL);
}

/*
 * The rows of the selected lruvecs into rows (room for every lruvec of s);
 * returns how many, or -1 out of memory. Without --all (or a --memcg, or
 * --json) lruvecs holding no pages are left out.
 */
static ssize_t wss_rows(struct cli *cli, const struct lru_snapshot *s, const struct wss_opts *o,
			struct row *rows)
{
	size_t n = 0, last_memcg = SIZE_MAX, nr_nodes = LRU_NODE_MAX + 1;
	int64_t *unmapped = calloc(nr_nodes, sizeof(*unmapped));

	if (!unmapped)
		return -1;
	for (size_t i = 0; i < s->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &s->lruvecs[i];
		struct row *r = &rows[n];

		if (!cli_selected(&o->sel, s, lv))
			continue;
		r->lruvec = i;
		lru_ws_lruvec(s, lv, o->thr, o->mode, &r->ws);
		if (!o->all && !cli->json && !o->sel.memcg && !lru_ws_hot(&r->ws) &&
		    !lru_ws_cold(&r->ws))
			continue;
		if (lv->memcg != last_memcg) {
			unmapped_file(cli, lru_lruvec_memcg(s, lv)->path, unmapped, nr_nodes);
			last_memcg = lv->memcg;
		}
		r->unmapped_file = unmapped[lv->node];
		n++;
	}
	free(unmapped);
	return (ssize_t)n;
}

int cmd_wss(struct cli *cli, int argc, char **argv)
{
	struct wss_opts o = { 0 };
	struct lru_snapshot s;
	struct row *rows = NULL;
	ssize_t n = 0;
	int rc = wss_options(cli, argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (o.age_first) {
		rc = age_first(cli, &o);
		if (rc)
			return rc;
	}
	rc = cli_setup(cli, cli->setup, &o.sel, &s);
	if (rc)
		goto out;
	rows = calloc(s.nr_lruvecs ? s.nr_lruvecs : 1, sizeof(*rows));
	n = rows ? wss_rows(cli, &s, &o, rows) : -1;
	if (n < 0) {
		cli_err("out of memory");
		rc = CLI_FAIL;
		goto out;
	}
	if (cli->json) {
		json_t *arr = json_array();

		for (ssize_t i = 0; i < n; i++)
			json_array_append_new(arr, row_json(&s, &rows[i], o.thr));
		rc = cli_json_out(arr);
	} else {
		print_rows(&s, rows, (size_t)n, o.thr);
	}
out:
	free(rows);
	lru_snapshot_release(&s);
	return rc;
}
