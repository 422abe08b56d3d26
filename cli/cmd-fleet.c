/* cmd-fleet.c - lrugen fleet: ask lrugen-store the fleet questions (hosts cold rank wss timeline capacity advise). */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fleet-plot.h"
#include "lru_advise.h"
#include "lru_buf.h"
#include "lru_client.h"
#include "lru_suggest.h"
#include "lru_units.h"

static const char usage[] =
	"usage: lrugen fleet COMMAND [--store URL] [--token-file FILE] [--json] [OPTIONS]\n"
	"\n"
	"Ask an lrugen-store about every host that sends it snapshots.\n"
	"\n"
	"commands:\n"
	"  hosts       hosts: last seen, kernel, memory, lruvecs\n"
	"  cold        cold and hot bytes at each host's latest snapshot\n"
	"              [--threshold DUR] [--by host|node|memcg] [--memcg-glob G] [--limit N]\n"
	"  rank        where a job of SIZE can land: free plus cold memory, best first\n"
	"              --need SIZE [--threshold DUR] [--per-node] [--limit N]\n"
	"  wss         working set per job (memcg path) over a window: p50/p95/p99/max\n"
	"              --memcg-glob G [--window DUR] [--percentile P] [--threshold DUR]\n"
	"  timeline    one host's generations on one wall-clock axis\n"
	"              --host H [--memcg G] [--since DUR] [--limit POINTS] [--after CURSOR]\n"
	"              (a page holds up to 50000 points; a truncated one prints the\n"
	"              --after CURSOR of the next)\n"
	"  capacity    fleet totals: memory, hot and cold per threshold\n"
	"              [--thresholds 2m,10m,1h]\n"
	"  advise      per job: how fast pages idle longer than T come back (the\n"
	"              promotion rate, in % of the working set per minute) at each\n"
	"              threshold, the smallest T that meets the SLO, and what the\n"
	"              fleet frees there\n"
	"              [--memcg-glob G] [--slo 0.2%/min] [--window 7d] [--min-samples N]\n"
	"  bands       one job's bytes in each page-age band over time, across its\n"
	"              hosts: --memcg-glob G [--window 6h] [--step DUR]\n"
	"  plot KIND   an answer as a chart (1200x600): --out FILE.svg (- for\n"
	"              standard output) or FILE.png (librsvg draws it), then the\n"
	"              options of KIND's command\n"
	"\n"
	"plot kinds:\n"
	"  capacity    capacity's cold, and cold + free, against T (every\n"
	"              precomputed threshold unless --thresholds)\n"
	"  rank        rank's hosts (or nodes), best first: a bar of free and cold\n"
	"              bytes each, a line at --need\n"
	"  advise      advise's promotion rate of each job against T (the 7 most\n"
	"              sampled jobs) and the SLO line\n"
	"  job         the bands of --memcg-glob G: a heatmap of page age by time\n"
	"\n"
	"  --store URL        the store (default $LRUGEN_STORE or http://127.0.0.1:7070)\n"
	"  --token-file FILE  the file holding a read token (without it: the token\n"
	"                     itself in $LRUGEN_TOKEN)\n"
	"  --ca-file FILE     CA certificates for an https:// store\n"
	"  --json             print the store's JSON document unchanged\n"
	"\n"
	"-T DUR is --threshold DUR and -w DUR --window DUR, as in lrugen-top.\n"
	"Thresholds (default 2m): memory idle longer is cold. The store precomputes\n"
	"1m 2m 5m 10m 30m 1h 6h 24h; another threshold uses the next larger one\n"
	"(reported as 'effective'), so cold is never overstated.\n"
	"Warnings: where a host's snapshot says its figures are bounds (thp_unaged,\n"
	"see 'lrugen wss -h'), tables mark hot bytes and working sets '>' (at least)\n"
	"and cold bytes and offers '<' (at most), and explain each code below.\n"
	"Exit codes: 2 bad options or nothing matches, 3 store unreachable or token\n"
	"refused, 1 other failures.\n"
	"\n"
	"Examples:\n"
	"  lrugen fleet capacity                       # what the fleet could free at each T\n"
	"  lrugen fleet rank --need 8G                 # where an 8 GiB job fits\n"
	"  lrugen fleet wss --memcg-glob '/jobs/web*' --window 7d   # size a job's limit\n"
	"  lrugen fleet plot rank --need 8G --out rank.svg          # ... as a chart\n"
	"  lrugen fleet advise --memcg-glob '/jobs/*'  # how far each job can go\n"
	"\n"
	"Advice is estimated from consecutive raw snapshots (raw-retention of the\n"
	"store): pages of generations cold at T that left them were used again.\n"
	"Evicted or freed pages count as used (the rate is an upper bound, the\n"
	"advice errs towards a larger T). MGLRU keeps 4 generations: thresholds\n"
	"beyond about three aging intervals are not measured, never guessed.\n";

enum fleet_cmd { F_HOSTS, F_COLD, F_RANK, F_WSS, F_TIMELINE, F_CAPACITY, F_ADVISE, F_BANDS, F_NR };

static const char *const cmd_names[F_NR] = {
	"hosts", "cold", "rank", "wss", "timeline", "capacity", "advise", "bands",
};

enum fleet_opt {
	O_THRESHOLD = 0x2000, O_BY, O_MEMCG_GLOB, O_LIMIT, O_NEED,
	O_PER_NODE, O_WINDOW, O_PERCENTILE, O_HOST, O_MEMCG, O_SINCE, O_THRESHOLDS, O_AFTER,
	O_OUT, O_SLO, O_MIN_SAMPLES, O_STEP,
};

/* what each plot draws: the answer of this command */
static const enum fleet_cmd plot_cmds[LRU_PLOT_NR] = { F_CAPACITY, F_RANK, F_ADVISE, F_BANDS };
/* a capacity plot without --thresholds: every precomputed one (lru_fleet.h) */
#define PLOT_THRESHOLDS "1m,2m,5m,10m,30m,1h,6h,24h"

static const enum lru_route routes[F_NR] = {
	LRU_ROUTE_HOSTS, LRU_ROUTE_COLD, LRU_ROUTE_RANK, LRU_ROUTE_WSS, LRU_ROUTE_TIMELINE,
	LRU_ROUTE_CAPACITY, LRU_ROUTE_ADVISE, LRU_ROUTE_BANDS,
};

/* each option's query parameter: a command takes it when its route does (lru_routes.h) */
static const struct fleet_param {
	int opt;
	const char *name;
} params[] = {
	{ O_THRESHOLD, "threshold" }, { O_BY, "by" }, { O_MEMCG_GLOB, "memcg_glob" },
	{ O_LIMIT, "limit" }, { O_NEED, "need" }, { O_PER_NODE, "per_node" },
	{ O_WINDOW, "window" }, { O_PERCENTILE, "percentile" }, { O_HOST, "host" },
	{ O_MEMCG, "memcg" }, { O_SINCE, "since" }, { O_AFTER, "after" },
	{ O_THRESHOLDS, "thresholds" }, { O_SLO, "slo" }, { O_MIN_SAMPLES, "min_samples" },
	{ O_STEP, "step" },
};
#define NR_PARAMS (sizeof(params) / sizeof(params[0]))

struct fleet {
	struct lru_client_param value[NR_PARAMS];	/* params[]' names, the values given */
	struct lru_client_resp resp;
};

static const char *value_of(const struct fleet *f, int opt)
{
	for (size_t i = 0; i < NR_PARAMS; i++)
		if (params[i].opt == opt)
			return f->value[i].value;
	return NULL;
}

/* ---- talking to the store ----------------------------------------------------- */

/* GET the command's route from the store cli_setup opened into f->resp; an exit code. */
static int get(struct cli *cli, struct fleet *f, enum fleet_cmd cmd)
{
	const struct lru_client_req rq = {
		.route = routes[cmd], .params = f->value, .nr_params = NR_PARAMS,
	};
	struct lru_error err;
	enum lru_err rc;

	lru_error_clear(&err);
	rc = lru_client_do(cli->client, &rq, &f->resp, &err);
	if (!rc)
		rc = lru_client_check(&f->resp, &err);
	return rc ? cli_store_failed(rc, &err) : CLI_OK;
}

/* ---- tables ----------------------------------------------------------------------- */

static uint64_t u64_of(json_t *o, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(o, key));

	return v < 0 ? 0 : (uint64_t)v;
}

static const char *str_of(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static const char *bytes(json_t *o, const char *key, char *buf)
{
	return lru_fmt_bytes(u64_of(o, key), buf, 32);
}

/* The lruvec warnings (LRU_WARN_*) among a row's "warnings" codes. */
static uint32_t lv_warnings(json_t *o)
{
	json_t *v;
	uint32_t mask = 0;
	size_t i;

	json_array_foreach(json_object_get(o, "warnings"), i, v)
		mask |= lru_warn_bit(json_string_value(v));
	return mask;
}

/* o's bytes at key, after mark where warned: a bound ('>' at least, '<' at most). */
static const char *bound(json_t *o, const char *key, uint32_t warned, const char *mark,
			 char buf[40])
{
	char b[32];

	snprintf(buf, 40, "%s%s", warned ? mark : "", bytes(o, key, b));
	return buf;
}

static const char *ago(int64_t now, json_t *o, const char *key, char *buf)
{
	json_t *v = json_object_get(o, key);
	int64_t t = json_integer_value(v);

	if (!json_is_integer(v))
		return "never";
	lru_fmt_duration(now > t ? (uint64_t)(now - t) : 0, buf, 32);
	strcat(buf, " ago");
	return buf;
}

static void print_threshold(json_t *doc)
{
	char a[32], b[32];
	uint64_t t = u64_of(doc, "threshold_ms"), e = u64_of(doc, "effective_threshold_ms");

	if (t == e)
		printf("threshold %s: memory idle longer than that is cold\n\n",
		       lru_fmt_duration(t, a, sizeof(a)));
	else
		printf("threshold %s (effective %s, the next precomputed one): memory idle longer "
		       "is cold\n\n", lru_fmt_duration(t, a, sizeof(a)), lru_fmt_duration(e, b, sizeof(b)));
}

/*
 * A row's "warnings" codes comma-separated into buf (host codes first, as the
 * store lists them), escaped for the terminal.
 */
static const char *codes_of(json_t *o, char *buf, size_t size)
{
	size_t i, used = 0;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(json_object_get(o, "warnings"), i, v)
		if (json_is_string(v) && used < size)
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "," : "",
						 json_string_value(v));
	return cli_esc(buf);
}

/*
 * A row's key, a (escaped), then sep and b (escaped) when b is not NULL,
 * left-aligned in width columns (the escaped text counts).
 */
static void print_key(int width, const char *a, const char *sep, const char *b)
{
	int n = printf("%s%s%s", cli_esc(a), b ? sep : "", b ? cli_esc(b) : "");

	printf("%*s", n < width ? width - n : 0, "");
}

static void print_hosts(json_t *doc)
{
	int64_t now = json_integer_value(json_object_get(doc, "now_ms"));
	json_t *rows = json_object_get(doc, "hosts"), *r, *v;
	uint32_t hw = 0, lw = 0;
	char b[4][32], codes[128];
	const char *cs;
	bool any = false;
	size_t i, j;

	json_array_foreach(rows, i, r)
		json_array_foreach(json_object_get(r, "warnings"), j, v) {
			hw |= lru_hostwarn_bit(json_string_value(v));
			lw |= lru_warn_bit(json_string_value(v));
			any = true;
		}
	printf("%-24s %-12s %-22s %10s %10s %5s %8s %7s%s\n", "HOST", "LAST SEEN", "KERNEL", "MEMORY",
	       "FREE", "NODES", "LRUVECS", "MEMCGS", any ? " WARNINGS" : "");
	json_array_foreach(rows, i, r) {
		cs = codes_of(r, codes, sizeof(codes));
		printf("%-24s %-12s %-22s %10s %10s %5" PRIu64 " %8" PRIu64 " %7" PRIu64 "%s%s\n",
		       cli_esc(str_of(r, "host")), ago(now, r, "last_seen_ms", b[0]),
		       cli_esc(str_of(r, "kernel")), bytes(r, "mem_total_bytes", b[1]),
		       bytes(r, "mem_free_bytes", b[2]), u64_of(r, "nodes"), u64_of(r, "lruvecs"),
		       u64_of(r, "memcgs"), cs[0] ? " " : "", cs);
	}
	printf("%zu hosts\n", json_array_size(rows));
	cli_warning_notes(hw, true, "!");
	cli_warning_notes(lw, false, "!");
}

static void print_cold(json_t *doc)
{
	const char *by = str_of(doc, "by");
	json_t *rows = json_object_get(doc, "rows"), *r, *tot = json_object_get(doc, "total");
	char b[4][32], m[2][40], node[24];
	size_t i;

	print_threshold(doc);
	printf("%-40s %10s %10s %6s %10s\n", !strcmp(by, "node") ? "HOST:NODE"
					     : !strcmp(by, "memcg") ? "HOST MEMCG" : "HOST",
	       "HOT", "COLD", "COLD%", "TOTAL");
	json_array_foreach(rows, i, r) {
		uint64_t total = u64_of(r, "total_bytes");
		uint32_t w = lv_warnings(r);

		snprintf(node, sizeof(node), "%" PRIu64, u64_of(r, "node"));
		print_key(40, str_of(r, "host"), !strcmp(by, "node") ? ":" : " ",
			  !strcmp(by, "node") ? node : !strcmp(by, "memcg") ? str_of(r, "memcg") : NULL);
		printf(" %10s %10s %5.0f%% %10s\n", bound(r, "hot_bytes", w, ">", m[0]),
		       bound(r, "cold_bytes", w, "<", m[1]),
		       total ? 100.0 * (double)u64_of(r, "cold_bytes") / (double)total : 0.0,
		       bytes(r, "total_bytes", b[2]));
	}
	printf("%-40s %10s %10s %6s %10s\n", "TOTAL", bound(tot, "hot_bytes", lv_warnings(tot), ">", m[0]),
	       bound(tot, "cold_bytes", lv_warnings(tot), "<", m[1]), "", bytes(tot, "total_bytes", b[2]));
	if (json_is_true(json_object_get(doc, "truncated")))
		printf("(the %zu rows with the most cold memory of %" PRIu64 "; --limit 0 shows all)\n",
		       json_array_size(rows), u64_of(doc, "rows_total"));
	cli_warning_notes(lv_warnings(tot), false, "> <");
}

static void print_rank(json_t *doc)
{
	bool per_node = json_is_true(json_object_get(doc, "per_node"));
	json_t *rows = json_object_get(doc, "rows"), *r;
	char b[6][32], m[2][40], node[24];
	uint32_t warned = 0;
	size_t i;

	print_threshold(doc);
	printf("%4s %-32s %10s %10s %10s %10s %10s\n", "RANK", per_node ? "HOST:NODE" : "HOST",
	       "OFFER", "FREE", "COLD", "FROM FREE", "FROM COLD");
	json_array_foreach(rows, i, r) {
		uint32_t w = lv_warnings(r);

		warned |= w;
		snprintf(node, sizeof(node), "%" PRIu64, u64_of(r, "node"));
		printf("%4" PRIu64 " ", u64_of(r, "rank"));
		print_key(32, str_of(r, "host"), ":", per_node ? node : NULL);
		/* cold bytes that are an upper bound make the offer one too */
		printf(" %10s %10s %10s %10s %10s\n",
		       bound(r, "offer_bytes", w, "<", m[0]), bytes(r, "free_bytes", b[1]),
		       bound(r, "cold_bytes", w, "<", m[1]), bytes(r, "from_free_bytes", b[3]),
		       bytes(r, "from_cold_bytes", b[4]));
	}
	printf("%" PRIu64 " %s%s can take %s (free plus memory cold at the threshold)%s\n",
	       u64_of(doc, "candidates"), per_node ? "node" : "host",
	       u64_of(doc, "candidates") == 1 ? "" : "s", bytes(doc, "need_bytes", b[0]),
	       u64_of(doc, "candidates") > json_array_size(rows) ? "; the best are listed" : "");
	cli_warning_notes(warned, false, "<");
}

/* A job's row: its working sets are lower bounds ('>') where some samples were warned. */
static void print_wss_row(json_t *r, const char *name)
{
	uint32_t w = lv_warnings(r);
	char m[5][40];

	printf("%-40s %8" PRIu64 " %10s %10s %10s %10s %11s\n", cli_esc(name), u64_of(r, "samples"),
	       bound(r, "p50_bytes", w, ">", m[0]), bound(r, "p95_bytes", w, ">", m[1]),
	       bound(r, "p99_bytes", w, ">", m[2]), bound(r, "max_bytes", w, ">", m[3]),
	       bound(r, "recommended_bytes", w, ">", m[4]));
}

static void print_wss(json_t *doc)
{
	json_t *rows = json_object_get(doc, "jobs"), *r;
	char b[32], head[32];
	size_t i;

	print_threshold(doc);
	printf("working set (hot bytes per host and snapshot) over %s\n",
	       lru_fmt_duration(u64_of(doc, "window_ms"), b, sizeof(b)));
	snprintf(head, sizeof(head), "LIMIT(P%g)", json_number_value(json_object_get(doc, "percentile")));
	printf("%-40s %8s %10s %10s %10s %10s %11s\n", "MEMCG", "SAMPLES", "P50", "P95", "P99", "MAX",
	       head);
	json_array_foreach(rows, i, r)
		print_wss_row(r, str_of(r, "memcg"));
	if (json_array_size(rows) > 1)
		print_wss_row(json_object_get(doc, "all"), "ALL (pooled)");
	printf("LIMIT is a memory limit recommendation (--percentile); percentiles are\n"
	       "upper bounds within 6.25%%\n");
	cli_warning_notes(lv_warnings(json_object_get(doc, "all")), false, ">");
}

static void print_timeline(json_t *doc)
{
	json_t *lvs = json_object_get(doc, "lruvecs"), *lv, *p;
	char b[5][32], codes[128];
	const char *cs;
	uint32_t warned = 0;
	size_t i, j;

	printf("host %s: %zu snapshots, %" PRIu64 " generation points\n", cli_esc(str_of(doc, "host")),
	       json_array_size(json_object_get(doc, "snapshots")), u64_of(doc, "points"));
	json_array_foreach(lvs, i, lv) {
		warned |= lv_warnings(lv);
		cs = codes_of(lv, codes, sizeof(codes));
		printf("\n%s node %" PRIu64 " (inode %" PRIu64 ")%s%s\n", cli_esc(str_of(lv, "memcg")),
		       u64_of(lv, "node"), u64_of(lv, "memcg_inode"), cs[0] ? " ! " : "", cs);
		printf("  %-12s %8s %-12s %10s %10s %10s\n", "TAKEN", "GEN", "BORN", "AGE", "ANON", "FILE");
		json_array_foreach(json_object_get(lv, "points"), j, p) {
			int64_t taken = json_integer_value(json_array_get(p, 0));
			int64_t birth = json_integer_value(json_array_get(p, 2));

			printf("  %-12s %8" JSON_INTEGER_FORMAT " %-12s %10s %10s %10s\n",
			       lru_fmt_clock(taken, b[0], 32), json_integer_value(json_array_get(p, 1)),
			       lru_fmt_clock(birth, b[1], 32),
			       lru_fmt_duration(taken > birth ? (uint64_t)(taken - birth) : 0, b[2], 32),
			       lru_fmt_bytes((uint64_t)json_integer_value(json_array_get(p, 3)), b[3], 32),
			       lru_fmt_bytes((uint64_t)json_integer_value(json_array_get(p, 4)), b[4], 32));
		}
	}
	if (json_is_true(json_object_get(doc, "truncated")))
		printf("(truncated: the next page is --after %s; or narrow --since or --memcg)\n",
		       str_of(doc, "next"));
	if (warned)
		putchar('\n');
	cli_warning_notes(warned, false, "!");
}

static void print_capacity(json_t *doc)
{
	json_t *rows = json_object_get(doc, "thresholds"), *r, *n, *counts = json_object_get(doc, "warnings");
	char b[4][32], m[2][40];
	uint32_t hw = 0, lw = 0;
	const char *code;
	size_t i;

	json_object_foreach(counts, code, n) {
		hw |= lru_hostwarn_bit(code);
		lw |= lru_warn_bit(code);
	}
	printf("%" PRIu64 " hosts: memory %s, free %s, in MGLRU generations %s\n\n",
	       u64_of(doc, "hosts"), bytes(doc, "mem_total_bytes", b[0]),
	       bytes(doc, "mem_free_bytes", b[1]), bytes(doc, "in_generations_bytes", b[2]));
	printf("%-10s %-10s %12s %12s %6s\n", "THRESHOLD", "EFFECTIVE", "HOT", "COLD", "COLD%");
	json_array_foreach(rows, i, r)
		printf("%-10s %-10s %12s %12s %5.0f%%\n",
		       lru_fmt_duration(u64_of(r, "threshold_ms"), b[0], 32),
		       lru_fmt_duration(u64_of(r, "effective_threshold_ms"), b[1], 32),
		       bound(r, "hot_bytes", lw, ">", m[0]), bound(r, "cold_bytes", lw, "<", m[1]),
		       100.0 * json_number_value(json_object_get(r, "cold_fraction")));
	if (!(hw | lw))
		return;
	printf("\nhosts with warnings:");
	i = 0;
	json_object_foreach(counts, code, n)
		printf("%s %s %" JSON_INTEGER_FORMAT, i++ ? "," : "", cli_esc(code), json_integer_value(n));
	putchar('\n');
	cli_warning_notes(hw, true, "!");
	cli_warning_notes(lw, false, "> <");
}

/* a rate in % per minute, or '-' where the threshold was not measured */
static const char *rate_text(json_t *rate, char buf[16])
{
	json_t *v = json_object_get(rate, "pct_per_min");

	if (!json_is_number(v))
		return "-";
	snprintf(buf, 16, "%.*f%%", json_number_value(v) < 10 ? 2 : 1, json_number_value(v));
	return buf;
}

static void print_advise(json_t *doc)
{
	json_t *jobs = json_object_get(doc, "jobs"), *hosts = json_object_get(doc, "hosts");
	json_t *ts = json_object_get(doc, "thresholds_ms"), *j, *r, *adv;
	bool shown[64] = { false };
	size_t i, k, nt = json_array_size(ts) < 64 ? json_array_size(ts) : 64, noted = 0;
	uint32_t warned = 0;
	char b[4][32];

	/* the thresholds some job was measured at, and the one above (where advice stops) */
	json_array_foreach(jobs, i, j)
		json_array_foreach(json_object_get(j, "rates"), k, r)
			if (k < nt && u64_of(r, "pairs"))
				shown[k] = shown[k + 1 < nt ? k + 1 : k] = true;
	shown[0] = true;
	printf("SLO %g%%/min of the working set, window %s (raw snapshots kept %s): %zu job%s\n\n",
	       json_number_value(json_object_get(doc, "slo_pct_per_min")),
	       lru_fmt_duration(u64_of(doc, "window_ms"), b[0], 32),
	       lru_fmt_duration(u64_of(doc, "raw_retention_ms"), b[1], 32), json_array_size(jobs),
	       json_array_size(jobs) == 1 ? "" : "s");
	printf("%-32s %5s %7s", "MEMCG", "HOSTS", "SAMPLES");
	for (k = 0; k < nt; k++)
		if (shown[k])
			printf(" %7s", lru_fmt_duration_exact((uint64_t)json_integer_value(json_array_get(ts, k)),
							b[0], 32));
	printf(" %7s %10s %10s\n", "ADVISED", "COLD NOW", "P95/HOST");
	json_array_foreach(jobs, i, j) {
		uint32_t w = lv_warnings(j);
		char rb[16];

		warned |= w;
		print_key(32, str_of(j, "memcg"), NULL, NULL);
		printf(" %5" PRIu64 " %7" PRIu64, u64_of(j, "hosts"), u64_of(j, "samples"));
		for (k = 0; k < nt; k++)
			if (shown[k])
				printf(" %7s", rate_text(json_array_get(json_object_get(j, "rates"), k), rb));
		adv = json_object_get(j, "advice");
		if (json_is_object(adv))
			printf(" %7s %10s %10s%s\n", lru_fmt_duration_exact(u64_of(adv, "threshold_ms"), b[0], 32),
			       bytes(adv, "cold_bytes_now", b[1]), bytes(adv, "cold_bytes_per_host_p95", b[2]),
			       w ? " !" : "");
		else
			printf(" %7s %10s %10s [%zu]\n", "-", "-", "-", ++noted);
	}
	noted = 0;
	json_array_foreach(jobs, i, j)
		if (!json_is_object(json_object_get(j, "advice")))
			printf("%s[%zu] %s: %s\n", noted ? "" : "\n", noted + 1, cli_esc(str_of(j, "memcg")),
			       str_of(j, "reason")), noted++;
	printf("\nAt the advised thresholds the fleet frees %s", bytes(doc, "free_bytes", b[0]));
	json_array_foreach(hosts, i, r) {
		if (i == 5) {
			printf(", ... (%zu hosts)", json_array_size(hosts));
			break;
		}
		printf("%s %s %s", i ? "," : ":", cli_esc(str_of(r, "host")), bytes(r, "free_bytes", b[0]));
	}
	putchar('\n');
	cli_warning_notes(warned, false, "!");
}

static void print_bands(json_t *doc)
{
	json_t *edges = json_object_get(doc, "band_edges_ms"), *steps = json_object_get(doc, "steps"), *s, *e;
	int64_t now = json_integer_value(json_object_get(doc, "now_ms"));
	char b[32];
	size_t i, k;

	printf("%s: bytes by page age (idle at least), across its hosts; a row every %s\n\n",
	       cli_esc(str_of(doc, "memcg_glob")), lru_fmt_duration_exact(u64_of(doc, "step_ms"), b, 32));
	printf("%-9s %5s", "AGO", "HOSTS");
	json_array_foreach(edges, k, e)
		printf(" %9s%s", lru_fmt_duration_exact((uint64_t)json_integer_value(e), b, 32),
		       k + 1 == json_array_size(edges) ? "+" : "");
	putchar('\n');
	json_array_foreach(steps, i, s) {
		int64_t t = json_integer_value(json_object_get(s, "t_ms"));
		json_t *bytes = json_object_get(s, "bytes");

		printf("-%-8s %5" PRIu64, lru_fmt_duration_exact(now > t ? (uint64_t)(now - t) : 0, b, 32),
		       u64_of(s, "hosts"));
		json_array_foreach(edges, k, e)
			printf(" %9s", json_array_size(bytes) > k ?
			       lru_fmt_bytes((uint64_t)json_integer_value(json_array_get(bytes, k)), b, 32) : "-");
		(void)e;
		putchar('\n');
	}
}

static void (*const printers[F_NR])(json_t *doc) = {
	print_hosts, print_cold, print_rank, print_wss, print_timeline, print_capacity,
	print_advise, print_bands,
};

/* ---- the command ------------------------------------------------------------------- */

/* Check a value before the store sees it: one clear line instead of an HTTP 400. */
static int check_value(int opt, const char *v)
{
	struct lru_error err;
	uint64_t x;

	switch (opt) {
	case O_THRESHOLD:
	case O_WINDOW:
	case O_SINCE:
	case O_STEP:
		if (lru_parse_duration_ms(v, &x, &err)) {
			cli_err("%s", err.msg);
			return -1;
		}
		return 0;
	case O_NEED:
		if (lru_parse_size(v, &x, &err)) {
			cli_err("--need: %s", err.msg);
			return -1;
		}
		return 0;
	case O_LIMIT:
		return cli_parse_u64("--limit", v, &x);
	case O_MIN_SAMPLES:
		return cli_parse_u64("--min-samples", v, &x);
	case O_SLO: {
		double pct;

		if (lru_advise_parse_slo(v, &pct, &err)) {
			cli_err("--slo: %s", err.msg);
			return -1;
		}
		return 0;
	}
	case O_BY:
		if (strcmp(v, "host") && strcmp(v, "node") && strcmp(v, "memcg")) {
			cli_err("--by takes host, node or memcg, not '%s'", v);
			return -1;
		}
		return 0;
	default:
		return 0;
	}
}

int cmd_fleet(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threshold", required_argument, NULL, O_THRESHOLD },
		{ "by", required_argument, NULL, O_BY },
		{ "memcg-glob", required_argument, NULL, O_MEMCG_GLOB },
		{ "limit", required_argument, NULL, O_LIMIT },
		{ "need", required_argument, NULL, O_NEED },
		{ "per-node", no_argument, NULL, O_PER_NODE },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "percentile", required_argument, NULL, O_PERCENTILE },
		{ "host", required_argument, NULL, O_HOST },
		{ "memcg", required_argument, NULL, O_MEMCG },
		{ "since", required_argument, NULL, O_SINCE },
		{ "thresholds", required_argument, NULL, O_THRESHOLDS },
		{ "after", required_argument, NULL, O_AFTER },
		{ "out", required_argument, NULL, O_OUT },
		{ "slo", required_argument, NULL, O_SLO },
		{ "min-samples", required_argument, NULL, O_MIN_SAMPLES },
		{ "step", required_argument, NULL, O_STEP },
		CLI_STORE_OPTS,
		CLI_COMMON_OPTS,
	};
	struct fleet f = { 0 };
	const struct lru_buf *body = &f.resp.body;
	int cmd = -1, plot = -1, opt, rc;
	const char *out = NULL;
	json_t *doc;

	for (size_t i = 0; i < NR_PARAMS; i++)
		f.value[i].name = params[i].name;

	/* "+": stop at the command; the same options are parsed again after it */
	for (int pass = 0; pass < 2; pass++) {
		while ((opt = getopt_long(argc, argv, "+hT:w:", opts, NULL)) != -1) {
			size_t i;

			/* the short flags lrugen-top and lrugen wss use too */
			opt = opt == 'T' ? O_THRESHOLD : opt == 'w' ? O_WINDOW : opt;
			if (opt == O_OUT) {
				if (plot < 0) {
					cli_err("fleet %s: --out is for 'lrugen fleet plot KIND'",
						cmd < 0 ? "" : cmd_names[cmd]);
					return CLI_USAGE;
				}
				out = optarg;
				continue;
			}

			for (i = 0; i < NR_PARAMS && params[i].opt != opt; i++)
				;
			if (i < NR_PARAMS) {
				if (cmd < 0 || !lru_route_takes(routes[cmd], params[i].name)) {
					cli_err("fleet %s: option '%s' does not apply (see 'lrugen fleet -h')",
						cmd < 0 ? "" : cmd_names[cmd], argv[optind - 1]);
					return CLI_USAGE;
				}
				if (check_value(opt, optarg ? optarg : ""))
					return CLI_USAGE;
				f.value[i].value = opt == O_PER_NODE ? "1" : optarg;
				continue;
			}
			rc = cli_common_opt(cli, NULL, opt, usage);
			if (rc >= 0)
				return rc;
		}
		if (pass)
			break;
		if (optind >= argc) {
			cli_err("fleet: which command? hosts, cold, rank, wss, timeline, capacity, advise, "
				"bands or plot");
			return cli_usage(usage, true);
		}
		if (!strcmp(argv[optind], "plot")) {
			const char *names[LRU_PLOT_NR];

			for (int k = 0; k < LRU_PLOT_NR; k++)
				if (optind + 1 < argc && !strcmp(argv[optind + 1], lru_plot_name(k)))
					plot = k;
			for (int k = 0; k < LRU_PLOT_NR; k++)
				names[k] = lru_plot_name(k);
			if (plot < 0) {
				const char *near = optind + 1 < argc ?
					lru_suggest(argv[optind + 1], names, LRU_PLOT_NR) : NULL;

				if (near)
					cli_err("fleet plot: '%s' is not a plot; did you mean '%s'?",
						argv[optind + 1], near);
				else
					cli_err("fleet plot: which plot? capacity, rank, advise or job");
				return CLI_USAGE;
			}
			optind++;	/* the command is the plot's: its options apply */
		}
		for (int c = 0; c < F_NR; c++)
			if (!strcmp(argv[optind], cmd_names[c]))
				cmd = c;
		if (plot >= 0)
			cmd = plot_cmds[plot];
		if (cmd < 0) {
			const char *near = lru_suggest(argv[optind], cmd_names, F_NR);

			if (near)
				cli_err("fleet: '%s' is not a command; did you mean '%s'?", argv[optind],
					near);
			else
				cli_err("fleet: '%s' is not a command (hosts, cold, rank, wss, timeline, "
					"capacity, advise, bands, plot)", argv[optind]);
			return CLI_USAGE;
		}
		argc -= optind;
		argv += optind;
		optind = 1;
	}
	if (optind < argc) {
		cli_err("fleet %s: unexpected argument '%s'", cmd_names[cmd], argv[optind]);
		return CLI_USAGE;
	}
	if ((cmd == F_RANK && !value_of(&f, O_NEED)) ||
	    ((cmd == F_WSS || cmd == F_BANDS) && !value_of(&f, O_MEMCG_GLOB)) ||
	    (cmd == F_TIMELINE && !value_of(&f, O_HOST))) {
		cli_err("fleet %s%s needs %s", plot >= 0 ? "plot " : "",
			plot >= 0 ? lru_plot_name((enum lru_plot)plot) : cmd_names[cmd],
			cmd == F_RANK ? "--need SIZE" : cmd == F_TIMELINE ? "--host H" : "--memcg-glob G");
		return CLI_USAGE;
	}
	if (plot >= 0 && (!out || !*out || cli->json)) {
		cli_err(cli->json ? "fleet plot writes SVG or PNG: --json does not apply" :
			"fleet plot %s needs --out FILE.svg or FILE.png (- for SVG on standard output)", lru_plot_name(plot));
		return CLI_USAGE;
	}
	if (plot == LRU_PLOT_CAPACITY && !value_of(&f, O_THRESHOLDS))
		for (size_t i = 0; i < NR_PARAMS; i++)
			if (params[i].opt == O_THRESHOLDS)
				f.value[i].value = PLOT_THRESHOLDS;
	rc = cli_setup(cli, cli->setup, NULL, NULL);
	if (!rc)
		rc = get(cli, &f, (enum fleet_cmd)cmd);
	if (!rc && plot >= 0) {
		doc = json_loadb((const char *)body->data, body->len, 0, NULL);
		if (!doc) {
			cli_err("the store's answer is not JSON");
			rc = CLI_FAIL;
		} else {
			rc = fleet_plot((enum lru_plot)plot, doc, out);
			json_decref(doc);
		}
	} else if (!rc && cli->json) {
		if (fwrite(body->data, 1, body->len, stdout) != body->len ||
		    (body->len && body->data[body->len - 1] != '\n' && putchar('\n') == EOF))
			rc = CLI_FAIL;
	} else if (!rc) {
		doc = json_loadb((const char *)body->data, body->len, 0, NULL);
		if (!doc) {
			cli_err("the store's answer is not JSON");
			rc = CLI_FAIL;
		} else {
			printers[cmd](doc);
			json_decref(doc);
		}
	}
	lru_client_resp_release(&f.resp);
	return rc;
}
