/*
 * lrugend - the per-host MGLRU collector.
 *
 * One loop on one timer (redis's serverCron): every interval, at a per-host
 * phase, a tick reads the generations (collect.c), takes the next sequence
 * number, appends the snapshot to the durable spool (lib/lru_spool.h),
 * applies the reclaim policy (policy.c), ages every lruvec (aging.c) and
 * publishes the /metrics model. The spool drains to the store on the
 * shipping thread (shipper.c, ship.c), so that a hung send never delays a
 * tick; the loop copies its counters into /metrics every second. GET
 * /metrics is served from another thread (metrics.c). SIGTERM and SIGINT
 * end the loop after the current tick and abandon a send in flight; SIGHUP
 * reloads the config.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "aging.h"
#include "collect.h"
#include "config.h"
#include "log.h"
#include "lru_pb.h"
#include "lru_spool.h"
#include "lru_sys.h"
#include "lru_units.h"
#include "metrics.h"
#include "policy.h"
#include "ship.h"
#include "shipper.h"
#include "stats.h"

/* how often the loop copies the spool's and the shipping thread's counters into /metrics */
#define HEALTH_PERIOD_MS 1000

enum exit_code { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

struct daemon {
	struct config cfg;
	struct conf_src src;		/* config file and flags: read again at SIGHUP */
	/* run mode */
	bool once, drain;
	const char *output;
	uint64_t max_ticks;		/* --ticks N (testing): exit after N ticks */
	/* modules */
	struct lru_spool *spool;
	struct ship *ship;
	struct shipper *shipper;	/* the shipping thread, while the loop runs */
	struct metrics *metrics;
	struct collect collect;
	struct aging aging;
	struct policy policy;
	struct advice advice;		/* reclaim-older-than = advised */
	struct stats stats;
	uint32_t jitter_ms;
	int64_t next_tick;		/* wall-clock ms */
};

/* Resource figures for --ticks runs, printed at the end. */
struct sample {
	long rss_kb, anon_kb, file_kb, hwm_kb;
	long heap_kb;		/* malloc'd and not freed (heap_allocated_kb; low-water, heap_low) */
	double cpu_s;
};

static sigset_t handled;

/* lrugend's own options; conf.h adds --config, --print-config, --help, --version */
enum opt_run {
	OPT_ONCE = 0x1000,
	OPT_OUTPUT,
	OPT_DRAIN,
	OPT_TICKS,
};

static const struct option run_opts[] = {
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "drain", no_argument, NULL, OPT_DRAIN },
	{ "ticks", required_argument, NULL, OPT_TICKS },
	{ NULL, 0, NULL, 0 },
};

/* ---- small helpers ---------------------------------------------------------------- */

/* Tell systemd (Type=notify) about our state; a no-op elsewhere. */
static void sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') || (len = strlen(path)) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		log_debug("sd_notify: %s", strerror(errno));
	close(fd);
}

/* Is a shutdown signal pending? (Polled by ship.c during transfers.) */
static bool stop_pending(void)
{
	sigset_t p;

	return !sigpending(&p) && (sigismember(&p, SIGTERM) == 1 || sigismember(&p, SIGINT) == 1);
}

/* Wait for a handled signal until wake_ms (wall clock); returns it, or 0. */
static int wait_signal(int64_t wake_ms)
{
	for (;;) {
		int64_t left = wake_ms - lru_now_ms();
		struct timespec ts;
		int sig;

		if (left < 0)
			left = 0;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (long)(left % 1000) * 1000000;
		sig = sigtimedwait(&handled, NULL, &ts);
		if (sig > 0)
			return sig;
		if (errno != EINTR || left == 0)
			return 0;
	}
}

/* Bytes malloc'd and not yet freed. Under ASan mallinfo2() answers 0: its
 * allocator replaces glibc's and counts for itself (no header ships it in gcc 12). */
#ifdef __SANITIZE_ADDRESS__
size_t __sanitizer_get_current_allocated_bytes(void);
static long heap_allocated_kb(void)
{
	return (long)(__sanitizer_get_current_allocated_bytes() / 1024);
}
#else
static long heap_allocated_kb(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (long)((mi.uordblks + mi.hblkhd) / 1024);
}
#endif

static void sample_now(struct sample *s)
{
	struct rusage ru;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	memset(s, 0, sizeof(*s));
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", &s->rss_kb);
		sscanf(line, "RssAnon: %ld", &s->anon_kb);
		sscanf(line, "RssFile: %ld", &s->file_kb);
		sscanf(line, "VmHWM: %ld", &s->hwm_kb);
	}
	if (f)
		fclose(f);
	s->heap_kb = heap_allocated_kb();
	getrusage(RUSAGE_SELF, &ru);
	s->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		   (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Bounded memory: no per-thread arenas, big buffers back to the kernel at free. */
static void tune_memory(void)
{
	pthread_attr_t attr;

	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	mallopt(M_TRIM_THRESHOLD, 256 * 1024);
	/*
	 * helper threads (libcurl's resolver, the shipping thread) get small
	 * stacks: locked memory stays small
	 */
	if (!pthread_attr_init(&attr)) {
		pthread_attr_setstacksize(&attr, 256 * 1024);
		pthread_setattr_default_np(&attr);
		pthread_attr_destroy(&attr);
	}
}

/* Protect ourselves from the pressure we measure: keep our pages resident. */
static void lock_memory(int mode)
{
	int flags = MCL_CURRENT | MCL_FUTURE;

	if (mode == CFG_MLOCK_OFF) {
		munlockall();
		return;
	}
	if (mode == CFG_MLOCK_ONFAULT)
		flags |= MCL_ONFAULT;
	if (mlockall(flags))
		log_warn("cannot lock memory (mlockall%s): %s; going on unlocked",
			 mode == CFG_MLOCK_ONFAULT ? " MCL_ONFAULT" : "", strerror(errno));
}

/* A per-host phase in [0, interval) from the host name (FNV-1a). */
static uint32_t host_phase(const struct config *cfg)
{
	char host[256];
	uint64_t h = 0xcbf29ce484222325ULL;

	if (!cfg->jitter || !cfg->interval_ms)
		return 0;
	collect_host_name(cfg, host, sizeof(host));
	for (const char *p = host; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return (uint32_t)(h % cfg->interval_ms);
}

/* The first time after now that is jitter_ms past a multiple of the interval. */
static int64_t next_tick_after(const struct daemon *d, int64_t now)
{
	int64_t iv = (int64_t)d->cfg.interval_ms, since;

	if (!iv)
		return now;
	since = ((now - d->jitter_ms) % iv + iv) % iv;
	return now - since + iv;
}

static void note_spool(void *arg, enum lru_spool_note kind, const char *msg)
{
	(void)arg;
	log_msg(kind == LRU_SPOOL_NOTE_INFO ? LOG_LV_INFO : LOG_LV_WARN, "%s", msg);
}

/* Open the spool: 0, or the lru_err why not (logged). */
static enum lru_err open_spool(struct daemon *d, const char *dir, struct lru_spool **out,
			       bool optional)
{
	struct lru_spool_opts o = {
		.max_bytes = d->cfg.spool_max_bytes,
		.max_age_ms = d->cfg.spool_max_age_ms,
		.note = note_spool,
	};
	struct lru_spool_stats st;
	struct lru_error err;
	enum lru_err rc;

	lru_error_clear(&err);
	if ((rc = lru_spool_open(dir, &o, out, &err))) {
		if (optional && rc != LRU_EBUSY)	/* --output: the spool only numbers it */
			log_info("%s: the snapshot's seq is this clock's ms instead", err.msg);
		else
			log_error("%s", err.msg);
		return rc;
	}
	lru_spool_stats(*out, &st);
	log_info("spool '%s': %" PRIu64 " snapshots (%" PRIu64 " bytes) waiting, next seq %" PRIu64,
		 dir, st.records, st.bytes, st.next_seq);
	return LRU_OK;
}

/* Copy the spool's and the shipping counters into the stats, and publish them. */
static void refresh_health(struct daemon *d)
{
	struct lru_spool_stats st;

	if (d->spool) {
		lru_spool_stats(d->spool, &st);
		d->stats.spool_records = st.records;
		d->stats.spool_bytes = st.bytes;
		d->stats.dropped_spool_full_total = st.dropped_full;
		d->stats.dropped_spool_age_total = st.dropped_old;
	}
	if (d->ship)
		ship_stats(d->ship, &d->stats.ship);
	metrics_set_health(d->metrics, &d->stats);
}

/* ---- one tick ------------------------------------------------------------------------ */

/* Number, encode and store one snapshot: spool, or --output. */
static int keep_snapshot(struct daemon *d, struct lru_snapshot *snap)
{
	const struct lru_snapshot *one = snap;
	int64_t taken = snap->read_start_ms + (snap->read_end_ms - snap->read_start_ms) / 2;
	struct lru_error err;
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc = -1;

	lru_error_clear(&err);
	if (d->spool && lru_spool_take_seq(d->spool, &snap->host.seq, &err)) {
		log_error("cannot take a sequence number: %s", err.msg);
		d->stats.spool_errors_total++;
		return -1;
	}
	if (!d->spool && d->output)	/* as a new spool starts: from the clock */
		snap->host.seq = (uint64_t)lru_now_ms();
	if (lru_pb_encode_batch(&one, 1, &buf, &len, &err)) {
		log_error("cannot encode snapshot seq %" PRIu64 ": %s", snap->host.seq, err.msg);
		return -1;
	}
	if (d->output) {
		if (lru_sys_write_whole(d->output, buf, len, &err))
			log_error("%s", err.msg);
		else
			rc = 0;
	} else if (d->spool && d->cfg.store[0]) {
		if (lru_spool_append(d->spool, snap->host.seq, taken, buf, len, &err)) {
			log_error("cannot spool snapshot seq %" PRIu64 ": %s", snap->host.seq, err.msg);
			d->stats.spool_errors_total++;
		} else {
			rc = 0;
		}
	} else {
		rc = 0;
	}
	free(buf);
	if (!rc) {
		d->stats.snapshots_total++;
		d->stats.last_seq = snap->host.seq;
		d->stats.last_snapshot_ms = taken;
		log_info("snapshot seq=%" PRIu64 " memcgs=%zu lruvecs=%zu bytes=%zu read=%" PRId64 "ms%s%s",
			 snap->host.seq, snap->nr_memcgs, snap->nr_lruvecs, len,
			 snap->read_end_ms - snap->read_start_ms, d->output ? " written to " : "",
			 d->output ? d->output : "");
	}
	return rc;
}

static int tick(struct daemon *d)
{
	struct lru_snapshot snap;
	struct lru_aging aging;
	int64_t start = lru_now_ms();
	int rc = -1;

	d->stats.ticks_total++;
	lru_snapshot_init(&snap);
	if (collect_select(&d->collect, &d->cfg)) {
		d->stats.tick_errors_total++;
		goto out;
	}
	aging_settings(&d->aging, &d->cfg, &d->collect.iface, d->jitter_ms, &aging);
	if (collect_snapshot(&d->collect, &d->cfg, &aging, &snap, &d->stats)) {
		d->stats.tick_errors_total++;
		goto out;
	}
	d->stats.memcgs = snap.nr_memcgs;
	d->stats.lruvecs = snap.nr_lruvecs;
	rc = keep_snapshot(d, &snap);
	/* kernel writes only after the snapshot is safe: they change what it describes */
	if (d->cfg.reclaim && d->cfg.reclaim_older_than_ms == CFG_ADVISED)
		advice_refresh(&d->advice, &d->cfg, lru_now_ms());
	policy_run(&d->policy, &d->cfg, &d->collect.iface, &d->advice, &snap, &d->stats);
	aging_run(&d->aging, &d->cfg, &d->collect.iface, &snap, &d->stats);
	metrics_update(d->metrics, &d->cfg, &snap);
out:
	lru_snapshot_release(&snap);
	d->stats.last_tick_seconds = (lru_now_ms() - start) / 1000.0;
	refresh_health(d);
	return rc;
}

/* ---- configuration -------------------------------------------------------------------- */

/* Checks of settings against the run mode (interval 0 only for tests). */
static int check_mode(void *arg, const void *cfg, struct lru_error *err)
{
	const struct daemon *d = arg;
	const struct config *c = cfg;

	if (!c->interval_ms && !d->max_ticks && !d->once)
		return lru_fail(err, LRU_EINVAL, "interval 0 is only for --once, --output and --ticks");
	if (d->drain && !c->store[0])
		return lru_fail(err, LRU_EINVAL, "--drain needs a store (--store URL)");
	return 0;
}

/* The shipping thread, when there is a store to ship to. */
static void start_shipper(struct daemon *d)
{
	if (d->ship && d->spool && d->cfg.store[0])
		d->shipper = shipper_start(d->ship, &d->cfg, d->spool);
}

/*
 * SIGHUP: build a new config from the same sources; keep the old one if it
 * is invalid. The shipping thread stops meanwhile (a send in flight is
 * abandoned, within about a second) and starts again with the new settings.
 */
static void reload(struct daemon *d)
{
	struct config nc;
	int changes;

	sd_notify("RELOADING=1");
	changes = conf_reload(&lrugend_conf, &d->src, &d->cfg, &nc, check_mode, d);
	if (changes < 0) {
		sd_notify("READY=1");
		return;
	}
	/* the shipping thread reads the config and the spool: stop it while they change */
	shipper_stop(d->shipper);
	d->shipper = NULL;
	log_set_level(nc.log_level);
	if (strcmp(nc.spool, d->cfg.spool) || (nc.store[0] && !d->spool)) {
		struct lru_spool *sp = NULL;

		if (nc.spool[0] && open_spool(d, nc.spool, &sp, false)) {
			log_error("reload: keeping spool '%s'", d->cfg.spool);
			free(nc.spool);
			nc.spool = strdup(d->cfg.spool);
		} else {
			lru_spool_close(d->spool);
			d->spool = sp;
		}
	}
	if (d->spool)
		lru_spool_set_limits(d->spool, nc.spool_max_bytes, nc.spool_max_age_ms);
	if (strcmp(nc.listen, d->cfg.listen) && !d->once && !d->output) {
		metrics_stop(d->metrics);
		d->metrics = nc.listen[0] ? metrics_start(&nc) : NULL;
	}
	if (nc.store[0] && !d->ship)
		d->ship = ship_new(stop_pending);
	if (d->ship)
		ship_reset(d->ship);
	if (nc.mlock != d->cfg.mlock)
		lock_memory(nc.mlock);
	conf_release(&lrugend_conf, &d->cfg);
	d->cfg = nc;
	d->jitter_ms = host_phase(&d->cfg);
	d->next_tick = next_tick_after(d, lru_now_ms());
	start_shipper(d);
	log_info("reload: done (%d settings changed)", changes);
	sd_notify("READY=1");
}

/* One of lrugend's own options (conf_args handles the settings). */
static int run_option(void *arg, int opt, const char *optarg, struct lru_error *err)
{
	struct daemon *d = arg;
	char *end;

	switch (opt) {
	case OPT_ONCE:
		d->once = true;
		break;
	case OPT_OUTPUT:
		d->output = optarg;
		d->once = true;
		break;
	case OPT_DRAIN:
		d->drain = true;
		break;
	case OPT_TICKS:
		errno = 0;
		d->max_ticks = strtoull(optarg, &end, 10);
		if (errno || end == optarg || *end || !d->max_ticks)
			return lru_fail(err, LRU_EINVAL, "--ticks '%s' is not a positive number", optarg);
		break;
	}
	return 0;
}

/* ---- modes -------------------------------------------------------------------------------- */

/* Send everything spooled (--drain, and the end of --once). */
static int drain(struct daemon *d, int64_t deadline)
{
	int64_t next;

	do
		next = ship_run(d->ship, &d->cfg, d->spool, deadline);
	while (next && next <= lru_now_ms() && lru_now_ms() < deadline && !stop_pending());
	refresh_health(d);
	if (d->stats.spool_records)
		log_warn("%" PRIu64 " snapshots are still in the spool", d->stats.spool_records);
	return d->stats.spool_records ? EXIT_FAIL : EXIT_OK;
}

/* The heap's low-water mark over the HEAP_WINDOW ticks from tick FROM on: a
 * batch the shipper holds at one tick is gone a few ticks later, memory that
 * stays reachable and grows is not. */
#define HEAP_WINDOW 10
static void heap_low(struct sample *s, uint64_t done, uint64_t from)
{
	long kb;

	if (done <= from || done >= from + HEAP_WINDOW)
		return;
	kb = heap_allocated_kb();
	if (kb < s->heap_kb)
		s->heap_kb = kb;
}

/* The heap's low-water mark over a second once the ticks ended: a scrape in
 * flight holds the /metrics model it began with, a second copy beside the one
 * published (351 KiB at 2,000 lruvecs: heap_kb_end 815 for 464, once in CI). The
 * tests scrape every half second, so a second has a moment with none. */
static void heap_settle(struct sample *s)
{
	struct timespec pause = { 0, 50 * 1000000L };
	long kb;
	int i;

	for (i = 0; i < 20; i++) {
		nanosleep(&pause, NULL);
		kb = heap_allocated_kb();
		if (kb < s->heap_kb)
			s->heap_kb = kb;
	}
}

static int run_loop(struct daemon *d)
{
	struct sample at100 = { 0 }, mid = { 0 }, end;
	uint64_t done = 0, half = d->max_ticks > 100 ? (100 + d->max_ticks) / 2 : 1;

	d->next_tick = lru_now_ms();
	start_shipper(d);
	for (;;) {
		int64_t next_health;
		int sig;

		if (lru_now_ms() >= d->next_tick) {
			tick(d);
			shipper_kick(d->shipper);
			done++;
			if (done == 100 || (done == 1 && d->max_ticks < 100))
				sample_now(&at100);
			if (done == half)
				sample_now(&mid);
			heap_low(&at100, done, d->max_ticks < 100 ? 1 : 100);
			heap_low(&mid, done, half);
			d->next_tick = next_tick_after(d, lru_now_ms());
		} else {
			refresh_health(d);
		}
		if (d->max_ticks && done >= d->max_ticks)
			break;
		next_health = d->shipper ? lru_now_ms() + HEALTH_PERIOD_MS : d->next_tick;
		sig = wait_signal(next_health < d->next_tick ? next_health : d->next_tick);
		if (sig == SIGHUP)
			reload(d);
		else if (sig == SIGTERM || sig == SIGINT) {
			log_info("%s: stopping", strsignal(sig));
			break;
		}
	}
	shipper_stop(d->shipper);
	d->shipper = NULL;
	if (d->max_ticks) {
		sample_now(&end);
		heap_settle(&end);
		printf("ticks=%" PRIu64 " cpu_s=%.3f cpu_ms_per_tick=%.3f rss_kb_first=%ld "
		       "rss_kb_mid=%ld rss_kb_end=%ld anon_kb_first=%ld anon_kb_mid=%ld anon_kb_end=%ld "
		       "file_kb_end=%ld "
		       "hwm_kb=%ld heap_kb_first=%ld heap_kb_mid=%ld heap_kb_end=%ld\n",
		       done, end.cpu_s,
		       done > 100 ? (end.cpu_s - at100.cpu_s) * 1000 / (double)(done - 100)
				  : end.cpu_s * 1000 / (double)done,
		       at100.rss_kb, mid.rss_kb, end.rss_kb, at100.anon_kb, mid.anon_kb, end.anon_kb,
		       end.file_kb,
		       end.hwm_kb, at100.heap_kb, mid.heap_kb, end.heap_kb);
		if (fflush(stdout))
			return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* The end of a run that could not start: one line, exit 2. */
static int bad_usage(struct daemon *d, const char *msg)
{
	log_fatal("%s", msg);
	conf_release(&lrugend_conf, &d->cfg);
	conf_src_release(&d->src);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct daemon d;
	struct lru_error err;
	enum conf_action action;
	char iv[32], ph[32];
	int rc = EXIT_OK;

	memset(&d, 0, sizeof(d));
	log_init("lrugend", false);
	action = conf_args(&lrugend_conf, &d.src, argc, argv, run_opts, run_option, &d, &err);
	if (action == CONF_HELP || action == CONF_VERSION) {
		if (action == CONF_HELP)
			conf_usage(&lrugend_conf, stdout);
		else
			conf_version(&lrugend_conf, stdout);
		conf_src_release(&d.src);
		return fflush(stdout) || ferror(stdout) ? EXIT_FAIL : EXIT_OK;
	}
	if (action == CONF_BAD)
		return bad_usage(&d, err.msg);
	if (d.drain && (d.once || d.max_ticks))
		return bad_usage(&d, "--drain takes no tick: it cannot go with --once, --output or --ticks");
	if (conf_load(&lrugend_conf, &d.cfg, &d.src, &err))
		return bad_usage(&d, err.msg);
	if (action == CONF_PRINT) {
		conf_print(&lrugend_conf, &d.cfg, stdout);
		conf_release(&lrugend_conf, &d.cfg);
		conf_src_release(&d.src);
		return fflush(stdout) || ferror(stdout) ? EXIT_FAIL : EXIT_OK;
	}
	if (check_mode(&d, &d.cfg, &err))
		return bad_usage(&d, err.msg);
	log_set_level(d.cfg.log_level);
	tune_memory();
	sigemptyset(&handled);
	sigaddset(&handled, SIGTERM);
	sigaddset(&handled, SIGINT);
	sigaddset(&handled, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &handled, NULL);
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);

	d.jitter_ms = host_phase(&d.cfg);
	/*
	 * --output needs no spool: where there is none to be had (not root, a
	 * fresh machine) seq is the clock's. One in use by a running lrugend is
	 * refused, as ever: its seq is that daemon's to hand out.
	 */
	if (d.output ? open_spool(&d, d.cfg.spool, &d.spool, true) == LRU_EBUSY
		     : d.cfg.store[0] && open_spool(&d, d.cfg.spool, &d.spool, false)) {
		rc = EXIT_FAIL;
		goto out;
	}
	if (d.cfg.store[0])
		d.ship = ship_new(stop_pending);
	if (d.cfg.listen[0] && !d.once && !d.drain && !(d.metrics = metrics_start(&d.cfg))) {
		rc = EXIT_FAIL;
		goto out;
	}
	lock_memory(d.cfg.mlock);
	if (d.drain) {
		rc = drain(&d, lru_now_ms() + (int64_t)d.cfg.timeout_ms * 4);
		goto out;
	}
	if (d.once) {
		rc = tick(&d) ? EXIT_FAIL : EXIT_OK;
		/* a send that failed is exit 1: the snapshot waits in the spool */
		if (!rc && d.ship && !d.output)
			rc = drain(&d, lru_now_ms() + (int64_t)d.cfg.timeout_ms);
		goto out;
	}
	log_info("lrugend " LRUGEN_VERSION " running: interval %s (phase %s), store %s, metrics %s",
		 lru_fmt_duration_exact(d.cfg.interval_ms, iv, sizeof(iv)),
		 lru_fmt_duration_exact(d.jitter_ms, ph, sizeof(ph)), d.cfg.store[0] ? d.cfg.store : "none",
		 d.cfg.listen[0] ? d.cfg.listen : "off");
	sd_notify("READY=1");
	rc = run_loop(&d);
	sd_notify("STOPPING=1");
out:
	metrics_stop(d.metrics);
	ship_free(d.ship);
	advice_release(&d.advice);
	lru_spool_close(d.spool);
	curl_global_cleanup();
	conf_release(&lrugend_conf, &d.cfg);
	conf_src_release(&d.src);
	return rc;
}
