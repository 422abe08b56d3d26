/* metrics.c - the Prometheus endpoint: a refcounted model rendered line by line. */
#include "metrics.h"

#include <inttypes.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "log.h"
#include "lru_esc.h"
#include "lru_warn.h"

#define MAX_BUCKETS 16
#define LINE_MAX_LEN (5 * LRU_PATH_MAX + 256)	/* a label value: 5 bytes a path byte at most */
#define BLOCK_SIZE (64 * 1024)
#define SMALL_MAX (24 * 1024)

/* One lruvec, as much as the metrics need. */
struct mlruvec {
	uint32_t memcg;			/* index into model->memcgs */
	int32_t node;
	uint32_t nr_gens;
	uint32_t warnings;		/* LRU_WARN_* */
	uint32_t age_ms[LRU_MAX_GENS];	/* oldest first */
	uint64_t pages[LRU_MAX_GENS][LRU_NR_TYPES];
};

/* What a scrape renders from; immutable once published, freed with its last reference. */
struct model {
	unsigned refs;
	size_t nr_buckets;
	uint64_t le_ms[MAX_BUCKETS];
	bool gens;
	uint64_t page_size;
	char **memcgs;			/* label values, escaped */
	size_t nr_memcgs;
	struct mlruvec *lv;
	size_t nr_lv;
	struct lru_node_mem *nodes;
	size_t nr_nodes;
	int64_t taken_ms;
	uint64_t seq;
	uint32_t host_warnings;		/* LRU_HOSTW_* */
};

struct metrics {
	struct MHD_Daemon *daemon;
	unsigned port;
	pthread_mutex_t lock;		/* guards model and health */
	struct model *model;
	struct stats health;
};

enum stage {
	ST_MEM_HEAD, ST_MEM, ST_WARN_HEAD, ST_WARN, ST_GEN_HEAD, ST_GEN, ST_AGE_HEAD, ST_AGE,
	ST_SMALL, ST_DONE
};
/* lruvec warning bits there are codes for (lru_warn.h) */
#define NR_WARN_BITS ((size_t)(32 - __builtin_clz(LRU_WARN_ALL)))

/* One scrape in progress. */
struct render {
	struct metrics *m;
	struct model *model;
	enum stage stage;
	size_t i, j, k;			/* lruvec, type, bucket or generation */
	char line[LINE_MAX_LEN];
	size_t line_len, line_off;	/* the line being copied out */
	char *small;			/* node, snapshot and health families */
	size_t small_len, small_off;
};

static const char *const type_names[LRU_NR_TYPES] = { "anon", "file" };

/* ---- the model ------------------------------------------------------------- */

static void model_free(struct model *mo)
{
	if (!mo)
		return;
	for (size_t i = 0; i < mo->nr_memcgs; i++)
		free(mo->memcgs[i]);
	free(mo->memcgs);
	free(mo->lv);
	free(mo->nodes);
	free(mo);
}

static void model_put(struct metrics *m, struct model *mo)
{
	bool last;

	if (!mo)
		return;
	pthread_mutex_lock(&m->lock);
	last = --mo->refs == 0;
	pthread_mutex_unlock(&m->lock);
	if (last)
		model_free(mo);
}

/* A label value in the exposition format's escaping (lru_esc.h: LRU_ESC_PROM), malloc'd. */
static char *label_value(const char *s)
{
	size_t n = strlen(s), len = lru_esc(NULL, 0, s, n, LRU_ESC_PROM);
	char *out = malloc(len + 1);

	if (out)
		lru_esc(out, len + 1, s, n, LRU_ESC_PROM);
	return out;
}

static struct model *model_build(const struct config *cfg, const struct lru_snapshot *snap)
{
	struct model *mo = calloc(1, sizeof(*mo));

	if (!mo)
		return NULL;
	mo->refs = 1;
	mo->gens = cfg->metrics_generations;
	mo->nr_buckets = cfg->metrics_buckets.n < MAX_BUCKETS ? cfg->metrics_buckets.n : MAX_BUCKETS;
	memcpy(mo->le_ms, cfg->metrics_buckets.v, mo->nr_buckets * sizeof(uint64_t));
	mo->page_size = snap->page_size;
	mo->taken_ms = snap->read_start_ms + (snap->read_end_ms - snap->read_start_ms) / 2;
	mo->seq = snap->host.seq;
	mo->host_warnings = snap->host.warnings;
	mo->memcgs = calloc(snap->nr_memcgs + 1, sizeof(*mo->memcgs));
	mo->lv = calloc(snap->nr_lruvecs + 1, sizeof(*mo->lv));
	mo->nodes = calloc(snap->nr_nodes + 1, sizeof(*mo->nodes));
	if (!mo->memcgs || !mo->lv || !mo->nodes)
		goto fail;
	for (; mo->nr_memcgs < snap->nr_memcgs; mo->nr_memcgs++)
		if (!(mo->memcgs[mo->nr_memcgs] = label_value(snap->memcgs[mo->nr_memcgs].path)))
			goto fail;
	for (size_t i = 0; i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &snap->lruvecs[i];
		struct mlruvec *out = &mo->lv[i];

		out->memcg = (uint32_t)lv->memcg;
		out->node = lv->node;
		out->nr_gens = lv->nr_gens;
		out->warnings = lv->warnings;
		for (unsigned g = 0; g < lv->nr_gens; g++) {
			out->age_ms[g] = lv->gens[g].age_ms;
			for (int t = 0; t < LRU_NR_TYPES; t++)
				out->pages[g][t] = lv->gens[g].evicted & (1u << t) ? 0 : lv->gens[g].pages[t];
		}
	}
	mo->nr_lv = snap->nr_lruvecs;
	memcpy(mo->nodes, snap->nodes, snap->nr_nodes * sizeof(*mo->nodes));
	mo->nr_nodes = snap->nr_nodes;
	return mo;
fail:
	log_error("metrics: out of memory building the model");
	model_free(mo);
	return NULL;
}

/*
 * Pages of type t that may have been idle at most le_ms: those of every
 * generation whose successor was born at most le_ms ago (the youngest
 * always), as lru_ws_lruvec() counts hot pages in LRU_WS_STRICT mode.
 */
static uint64_t idle_at_most(const struct mlruvec *lv, int t, uint64_t le_ms)
{
	uint64_t sum = 0;

	for (uint32_t g = 0; g < lv->nr_gens; g++)
		if (g + 1 == lv->nr_gens || lv->age_ms[g + 1] <= le_ms)
			sum += lv->pages[g][t];
	return sum;
}

/* ---- rendering ------------------------------------------------------------------ */

static const char *fmt_le(uint64_t ms, char *buf, size_t size)
{
	if (ms % 1000)
		snprintf(buf, size, "%" PRIu64 ".%03" PRIu64, ms / 1000, ms % 1000);
	else
		snprintf(buf, size, "%" PRIu64, ms / 1000);
	return buf;
}

/* The "# HELP" and "# TYPE" lines of the big families, by their head stage. */
static const char *const heads[] = {
	[ST_MEM_HEAD] = "# HELP lrugen_memory_bytes Bytes that may have been idle at most age_le "
			"seconds (cumulative; a generation is idle since its successor's birth).\n"
			"# TYPE lrugen_memory_bytes gauge\n",
	[ST_WARN_HEAD] = "# HELP lrugen_warning 1 for each lruvec and accuracy warning whose "
			 "figures are bounds, not measurements (codes: lrugen wss --help).\n"
			 "# TYPE lrugen_warning gauge\n",
	[ST_GEN_HEAD] = "# HELP lrugen_generation_bytes Bytes in each generation (gen 0 is the "
			"youngest).\n# TYPE lrugen_generation_bytes gauge\n",
	[ST_AGE_HEAD] = "# HELP lrugen_generation_age_seconds Age of each generation (gen 0 is "
			"the youngest).\n# TYPE lrugen_generation_age_seconds gauge\n",
};

/* Move the (lruvec i, type j, k) cursor on: k wraps at k_end, then j at j_end. */
static void step(struct render *r, size_t k_end, size_t j_end)
{
	if (++r->k < k_end)
		return;
	r->k = 0;
	if (++r->j < j_end)
		return;
	r->j = 0;
	r->i++;
}

static void to_stage(struct render *r, enum stage st)
{
	r->stage = st;
	r->i = r->j = r->k = 0;
}

/* One series line of the family of the current stage for lv at the cursor. */
static int series_line(struct render *r, const struct mlruvec *lv)
{
	const struct model *mo = r->model;
	const char *memcg = mo->memcgs[lv->memcg];
	size_t g = lv->nr_gens - 1 - r->k;	/* gen k, counted from the youngest */
	char le[32];

	switch (r->stage) {
	case ST_WARN:
		if (!(lv->warnings & (1u << r->j)) || !lru_warn_name(1u << r->j))
			return 0;
		return snprintf(r->line, sizeof(r->line),
				"lrugen_warning{memcg=\"%s\",node=\"%d\",code=\"%s\"} 1\n", memcg,
				lv->node, lru_warn_name(1u << r->j));
	case ST_MEM: {
		bool inf = r->k == mo->nr_buckets;
		uint64_t pages = idle_at_most(lv, (int)r->j, inf ? UINT64_MAX : mo->le_ms[r->k]);

		return snprintf(r->line, sizeof(r->line),
				"lrugen_memory_bytes{memcg=\"%s\",node=\"%d\",type=\"%s\",age_le=\"%s\"} "
				"%" PRIu64 "\n", memcg, lv->node, type_names[r->j],
				inf ? "+Inf" : fmt_le(mo->le_ms[r->k], le, sizeof(le)),
				pages * mo->page_size);
	}
	case ST_GEN:
		return snprintf(r->line, sizeof(r->line),
				"lrugen_generation_bytes{memcg=\"%s\",node=\"%d\",type=\"%s\",gen=\"%zu\"} "
				"%" PRIu64 "\n", memcg, lv->node, type_names[r->j], r->k,
				lv->pages[g][r->j] * mo->page_size);
	default:
		return snprintf(r->line, sizeof(r->line),
				"lrugen_generation_age_seconds{memcg=\"%s\",node=\"%d\",gen=\"%zu\"} "
				"%.3f\n", memcg, lv->node, r->k, lv->age_ms[g] / 1000.0);
	}
}

/* The next line of the big families into r->line; false when they are done. */
static bool next_line(struct render *r)
{
	const struct model *mo = r->model;
	int len = 0;

	while (len <= 0) {
		const struct mlruvec *lv = mo && r->i < mo->nr_lv ? &mo->lv[r->i] : NULL;

		switch (r->stage) {
		case ST_MEM_HEAD:
		case ST_WARN_HEAD:
		case ST_GEN_HEAD:
		case ST_AGE_HEAD:
			len = snprintf(r->line, sizeof(r->line), "%s", heads[r->stage]);
			r->stage++;
			break;
		case ST_MEM:
		case ST_WARN:
		case ST_GEN:
		case ST_AGE:
			if (!lv) {
				to_stage(r, r->stage == ST_MEM ? ST_WARN_HEAD
					    : r->stage == ST_WARN && mo && mo->gens ? ST_GEN_HEAD
					    : r->stage == ST_GEN ? ST_AGE_HEAD : ST_SMALL);
				continue;
			}
			len = series_line(r, lv);
			if (r->stage == ST_WARN)	/* j: the warning bit */
				step(r, 1, NR_WARN_BITS);
			else
				step(r, r->stage == ST_MEM ? mo->nr_buckets + 1 : lv->nr_gens,
				     r->stage == ST_AGE ? 1 : LRU_NR_TYPES);
			break;
		case ST_SMALL:
		case ST_DONE:
			return false;
		}
	}
	r->line_len = (size_t)len < sizeof(r->line) ? (size_t)len : sizeof(r->line) - 1;
	r->line_off = 0;
	return true;
}

/* Append a printf'd line to the small block (silently full at SMALL_MAX). */
static void add(struct render *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct render *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->small_len >= SMALL_MAX)
		return;
	va_start(ap, fmt);
	n = vsnprintf(r->small + r->small_len, SMALL_MAX - r->small_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		r->small_len += (size_t)n < SMALL_MAX - r->small_len ? (size_t)n
								      : SMALL_MAX - r->small_len - 1;
}

/* "# HELP" and "# TYPE" lines, then the value of an unlabelled family. */
static void family(struct render *r, const char *name, const char *type, const char *help)
{
	add(r, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void simple(struct render *r, const char *name, const char *type, const char *help,
		   double v)
{
	family(r, name, type, help);
	if (v == (double)(int64_t)v)
		add(r, "%s %" PRId64 "\n", name, (int64_t)v);
	else
		add(r, "%s %.6f\n", name, v);
}

#define STAT(field) offsetof(struct stats, field)

/* lrugend's unlabelled uint64_t counters and gauges, straight from struct stats. */
static const struct health_metric {
	const char *name, *type, *help;
	size_t off;
} health_metrics[] = {
	{ "lrugend_ticks_total", "counter", "Ticks run.", STAT(ticks_total) },
	{ "lrugend_tick_errors_total", "counter", "Ticks that could not read the generations.",
	  STAT(tick_errors_total) },
	{ "lrugend_snapshots_total", "counter", "Snapshots taken (a sequence number each).",
	  STAT(snapshots_total) },
	{ "lrugend_snapshot_seq", "gauge", "Sequence number of the last snapshot.", STAT(last_seq) },
	{ "lrugend_memcgs", "gauge", "Memcgs in the last snapshot.", STAT(memcgs) },
	{ "lrugend_lruvecs", "gauge", "Lruvecs in the last snapshot.", STAT(lruvecs) },
	{ "lrugend_kernel_duplicates_total", "counter",
	  "Records the kernel repeated during racy reads, dropped.", STAT(kernel_duplicates_total) },
	{ "lrugend_aging_writes_total", "counter", "Aging commands written.",
	  STAT(aging_writes_total) },
	{ "lrugend_aging_skipped_total", "counter",
	  "Lruvecs not aged because someone else aged them within the interval.",
	  STAT(aging_skipped_total) },
	{ "lrugend_aging_errors_total", "counter", "Aging commands refused or not written.",
	  STAT(aging_errors_total) },
	{ "lrugend_spool_records", "gauge", "Snapshots in the spool, not yet acknowledged.",
	  STAT(spool_records) },
	{ "lrugend_spool_bytes", "gauge", "Bytes of those snapshots.", STAT(spool_bytes) },
	{ "lrugend_spool_errors_total", "counter", "Snapshots that could not be spooled.",
	  STAT(spool_errors_total) },
	{ "lrugend_sent_snapshots_total", "counter", "Snapshots the store acknowledged.",
	  STAT(ship.sent_snapshots_total) },
	{ "lrugend_sent_batches_total", "counter", "Batches the store acknowledged.",
	  STAT(ship.sent_batches_total) },
	{ "lrugend_store_duplicates_total", "counter",
	  "Snapshots the store already had (resent after a lost answer).",
	  STAT(ship.store_duplicates_total) },
	{ "lrugend_send_errors_total", "counter", "Failed requests to the store.",
	  STAT(ship.send_errors_total) },
	{ "lrugend_reclaim_requested_bytes_total", "counter",
	  "Bytes asked for by eviction commands (nr_to_reclaim).",
	  STAT(reclaim_requested_bytes_total) },
	{ "lrugend_reclaim_paused_total", "counter", "Ticks without reclaim for pressure.",
	  STAT(reclaim_paused_total) },
	{ "lrugend_reclaim_floor_total", "counter", "Lruvecs left alone at their floor.",
	  STAT(reclaim_floor_total) },
	{ "lrugend_reclaim_errors_total", "counter", "Eviction commands refused.",
	  STAT(reclaim_errors_total) },
};

/* One family with one label: label values and the uint64_t fields of struct stats. */
static const struct labelled_metric {
	const char *name, *type, *help, *label;
	const char *values[6];
	size_t offs[6];
} labelled_metrics[] = {
	{ "lrugend_memcgs_left_out", "gauge", "Memcgs left out of the last snapshot.", "reason",
	  { "filtered", "empty", "dying" },
	  { STAT(memcgs_left_out[LRU_SEL_FILTERED]), STAT(memcgs_left_out[LRU_SEL_EMPTY]),
	    STAT(memcgs_left_out[LRU_SEL_DYING]) } },
	{ "lrugend_snapshots_dropped_total", "counter", "Snapshots dropped, by reason.", "reason",
	  { "spool_full", "spool_age", "rejected", "too_large", "corrupt" },
	  { STAT(dropped_spool_full_total), STAT(dropped_spool_age_total),
	    STAT(ship.dropped_rejected_total), STAT(ship.dropped_too_large_total),
	    STAT(ship.dropped_corrupt_total) } },
	{ "lrugend_reclaim_commands_total", "counter", "Eviction commands, by mode.", "mode",
	  { "written", "dry_run" },
	  { STAT(reclaim_commands_total), STAT(reclaim_dry_run_total) } },
};

static uint64_t stat_at(const struct stats *st, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)st + off, sizeof(v));
	return v;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double resident_bytes(void)
{
	long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%*d %ld", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return (double)pages * (double)sysconf(_SC_PAGESIZE);
}

static void render_small(struct render *r)
{
	const struct model *mo = r->model;
	const struct stats *h = &r->m->health;
	static const char *const kinds[] = { "total", "free", "file", "anon" };

	if (mo) {
		family(r, "lrugen_node_memory_bytes", "gauge",
		       "Per-node memory from /sys/devices/system/node/nodeN/meminfo.");
		for (size_t i = 0; i < mo->nr_nodes; i++) {
			const struct lru_node_mem *nm = &mo->nodes[i];
			const uint64_t v[] = { nm->total, nm->free, nm->file, nm->anon };

			for (size_t k = 0; k < 4; k++)
				add(r, "lrugen_node_memory_bytes{node=\"%d\",kind=\"%s\"} %" PRIu64 "\n",
				    nm->node, kinds[k], v[k]);
		}
		simple(r, "lrugen_snapshot_timestamp_seconds", "gauge",
		       "Wall-clock time of the snapshot these series come from.", mo->taken_ms / 1000.0);
		family(r, "lrugen_host_warning", "gauge",
		       "1 for each host-level accuracy warning (damon_active: a DAMON monitor "
		       "hides accesses from this kernel's aging).");
		for (uint32_t bit = 1; bit && bit <= mo->host_warnings; bit <<= 1)
			if ((mo->host_warnings & bit) && lru_hostwarn_name(bit))
				add(r, "lrugen_host_warning{code=\"%s\"} 1\n", lru_hostwarn_name(bit));
	}
	for (size_t i = 0; i < sizeof(health_metrics) / sizeof(health_metrics[0]); i++) {
		const struct health_metric *hm = &health_metrics[i];

		simple(r, hm->name, hm->type, hm->help, (double)stat_at(h, hm->off));
	}
	for (size_t i = 0; i < sizeof(labelled_metrics) / sizeof(labelled_metrics[0]); i++) {
		const struct labelled_metric *lm = &labelled_metrics[i];

		family(r, lm->name, lm->type, lm->help);
		for (size_t k = 0; k < 6 && lm->values[k]; k++)
			add(r, "%s{%s=\"%s\"} %" PRIu64 "\n", lm->name, lm->label, lm->values[k],
			    stat_at(h, lm->offs[k]));
	}
	simple(r, "lrugend_tick_duration_seconds", "gauge", "Wall time of the last tick.",
	       h->last_tick_seconds);
	simple(r, "lrugend_last_send_success_timestamp_seconds", "gauge",
	       "Wall-clock time of the last acknowledged batch (0: never).",
	       h->ship.last_send_success_ms / 1000.0);
	simple(r, "lrugend_send_backoff_seconds", "gauge", "Current retry delay (0: healthy).",
	       h->ship.backoff_ms / 1000.0);
	simple(r, "lrugend_cpu_seconds_total", "counter", "User and system CPU time of lrugend.",
	       cpu_seconds());
	simple(r, "lrugend_resident_memory_bytes", "gauge", "Resident set size of lrugend.",
	       resident_bytes());
	family(r, "lrugend_build_info", "gauge", "lrugend's version.");
	add(r, "lrugend_build_info{version=\"%s\"} 1\n", LRUGEN_VERSION);
}

/* Copy what is left of src[*off..len) into buf[*out..max); true if anything was left. */
static bool copy_out(char *buf, size_t *out, size_t max, const char *src, size_t len,
		     size_t *off)
{
	size_t n = len - *off < max - *out ? len - *off : max - *out;

	if (*off >= len)
		return false;
	memcpy(buf + *out, src + *off, n);
	*off += n;
	*out += n;
	return true;
}

static ssize_t on_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct render *r = cls;
	size_t out = 0;

	(void)pos;
	while (out < max) {
		if (copy_out(buf, &out, max, r->line, r->line_len, &r->line_off))
			continue;
		if (r->stage < ST_SMALL && next_line(r))
			continue;
		if (r->stage == ST_SMALL &&
		    copy_out(buf, &out, max, r->small, r->small_len, &r->small_off))
			continue;
		r->stage = ST_DONE;
		break;
	}
	return out ? (ssize_t)out : MHD_CONTENT_READER_END_OF_STREAM;
}

static void on_free(void *cls)
{
	struct render *r = cls;

	model_put(r->m, r->model);
	free(r->small);
	free(r);
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *text)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", "text/plain; charset=utf-8");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct metrics *m = cls;
	struct MHD_Response *resp;
	struct render *r;
	enum MHD_Result ret;

	(void)version, (void)upload, (void)con_cls;
	if (*upload_size)
		return reply(conn, MHD_HTTP_BAD_REQUEST, "no request bodies here\n");
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET\n");
	if (!strcmp(url, "/healthz"))
		return reply(conn, MHD_HTTP_OK, "ok\n");
	if (strcmp(url, "/metrics"))
		return reply(conn, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n");
	r = calloc(1, sizeof(*r));
	if (!r || !(r->small = malloc(SMALL_MAX))) {
		free(r);
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	}
	r->m = m;
	pthread_mutex_lock(&m->lock);
	r->model = m->model;
	if (r->model)
		r->model->refs++;
	render_small(r);
	pthread_mutex_unlock(&m->lock);
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, BLOCK_SIZE, on_read, r, on_free);
	if (!resp) {
		on_free(r);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_warn("metrics: %s", msg);
}

struct metrics *metrics_start(const struct config *cfg)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct lru_error err;
	const union MHD_DaemonInfo *info;
	struct metrics *m;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;

	if (config_parse_listen(cfg->listen, &ss, &len, &err)) {
		log_error("metrics: listen %s", err.msg);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	pthread_mutex_init(&m->lock, NULL);
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	m->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, m,
				     MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				     MHD_OPTION_CONNECTION_LIMIT, 16U,
				     MHD_OPTION_CONNECTION_TIMEOUT, 10U,
				     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024),
				     MHD_OPTION_THREAD_STACK_SIZE, (size_t)(256 * 1024),
				     MHD_OPTION_END);
	if (!m->daemon) {
		log_error("metrics: cannot listen on '%s' (address in use, or not permitted)",
			  cfg->listen);
		pthread_mutex_destroy(&m->lock);
		free(m);
		return NULL;
	}
	info = MHD_get_daemon_info(m->daemon, MHD_DAEMON_INFO_BIND_PORT);
	m->port = info ? info->port : 0;
	log_info("metrics: serving http://%s/metrics (port %u)", cfg->listen, m->port);
	return m;
}

void metrics_stop(struct metrics *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->daemon);
	model_put(m, m->model);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

unsigned metrics_port(const struct metrics *m)
{
	return m ? m->port : 0;
}

void metrics_update(struct metrics *m, const struct config *cfg, const struct lru_snapshot *snap)
{
	struct model *mo, *old;

	if (!m || !(mo = model_build(cfg, snap)))
		return;
	pthread_mutex_lock(&m->lock);
	old = m->model;
	m->model = mo;
	pthread_mutex_unlock(&m->lock);
	model_put(m, old);
}

void metrics_set_health(struct metrics *m, const struct stats *st)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->health = *st;
	pthread_mutex_unlock(&m->lock);
}
