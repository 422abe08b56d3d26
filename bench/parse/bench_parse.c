/*
 * bench_parse - the parse benchmark: kernel text -> snapshot -> protobuf.
 *
 *	bench_parse gen [--full] [--v612] [--memcgs N] [--nodes N] OUT
 *		write a realistic /sys/kernel/debug/lru_gen (or lru_gen_full,
 *		6.1 style or 6.12 style with --v612) of N memcgs (default 1000)
 *		x N nodes (default 2) x 4 generations; deterministic
 *	bench_parse once [--parse-only] FILE
 *		read FILE in 64 KiB pieces straight into the parser (as a
 *		collector reads debugfs), set the birth times, encode one
 *		SnapshotBatch (not with --parse-only: the parse target's
 *		measure; encoding is protobuf-c's); exit 0 (1 with a message
 *		on failure)
 *	bench_parse loop FILE ITER
 *		the same work ITER times in one process, but reading FILE whole
 *		first so that the parse and encode steps are timed apart;
 *		prints the median time per iteration (and of the parse and
 *		encode steps) and MB/s of input
 *	bench_parse spawn K FILE -- CMD [ARG...] [-- CMD [ARG...]]...
 *		posix_spawn each command K times (stdin and stdout on /dev/null),
 *		alternating the commands run by run (ABBA order) so that machine
 *		noise hits them alike; prints per command the median wall time
 *		and MB/s of FILE's size
 *
 * MB is 10^6 bytes. Output lines of loop and spawn are "key=value" words so
 * that bench/run can pick them apart.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lru_err.h"
#include "lru_model.h"
#include "lru_parse.h"
#include "lru_pb.h"

#define PROG "bench_parse"

static void usage(void) __attribute__((noreturn));

static void usage(void)
{
	fputs("usage: " PROG " gen [--full] [--v612] [--memcgs N] [--nodes N] OUT\n"
	      "       " PROG " once [--parse-only] FILE\n"
	      "       " PROG " loop FILE ITER\n"
	      "       " PROG " spawn K FILE -- CMD [ARG...] [-- CMD [ARG...]]...\n",
	      stderr);
	exit(2);
}

#include "tool_die.h"

static unsigned long parse_count(const char *s, const char *what, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > max)
		die("%s '%s' is not a number from 1 to %lu", what, s, max);
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v. */
static uint64_t median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---------------------------------------------------------------------------
 * gen: a realistic lru_gen / lru_gen_full
 */

/* splitmix64 with a fixed seed: the same file on every run and machine */
struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd_below(struct rng *r, uint64_t n)
{
	return n ? rnd(r) % n : 0;
}

static double rnd_unit(struct rng *r)
{
	return (double)(rnd(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* about log-uniform in [lo, hi] (1 <= lo <= hi): lo * 2^e * [1, 2), no libm */
static uint64_t rnd_log(struct rng *r, uint64_t lo, uint64_t hi)
{
	unsigned bits = 0;
	uint64_t v;

	while (bits < 62 && (lo << (bits + 1)) <= hi)
		bits++;
	v = lo << rnd_below(r, bits + 1);
	v += (uint64_t)((double)v * rnd_unit(r));
	return v < lo ? lo : v > hi ? hi : v;
}

struct paths {
	char **v;
	size_t n, max;
};

static bool add_path(struct paths *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool add_path(struct paths *p, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (p->n == p->max)
		return false;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	p->v[p->n++] = s;
	return true;
}

static void hex(struct rng *r, char *out, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = digits[rnd(r) & 15];
	out[n] = '\0';
}

static void uuid(struct rng *r, char out[37])
{
	hex(r, out, 36);
	out[8] = out[13] = out[18] = out[23] = '-';
	out[14] = '4';
}

/* One pod (cgroupfs driver): pod<uuid>, then its pause container and 1-3 containers. */
static bool add_pod(struct paths *p, struct rng *r, const char *parent)
{
	char id[37], cid[65];
	unsigned i, nc = 1 + (unsigned)rnd_below(r, 3);

	uuid(r, id);
	if (!add_path(p, "%s/pod%s", parent, id))
		return false;
	for (i = 0; i <= nc; i++) { /* i == 0: the pause container */
		hex(r, cid, 64);
		if (!add_path(p, "%s/pod%s/%s", parent, id, cid))
			return false;
	}
	return true;
}

/*
 * Cgroup paths in the order the kernel walks them (pre-order, children in
 * creation order): systemd slices, a user session, a few batch jobs with
 * blanks in their names, then Kubernetes pods (cgroupfs driver) filling the
 * rest.
 */
static void make_paths(struct paths *p, struct rng *r)
{
	static const char *const services[] = {
		"systemd-journald.service", "systemd-udevd.service", "auditd.service",
		"systemd-networkd.service", "systemd-resolved.service",
		"systemd-timesyncd.service", "dbus.service", "systemd-logind.service",
		"cron.service", "rsyslog.service", "ssh.service", "chrony.service",
		"irqbalance.service", "multipathd.service", "polkit.service",
		"unattended-upgrades.service", "containerd.service", "docker.service",
		"kubelet.service", "node-exporter.service", "fluent-bit.service",
		"falcon-sensor.service", "google-guest-agent.service",
		"systemd-journal-flush.service", "lrugend.service",
	};
	static const char *const user_units[] = {
		"session-3.scope",
		"user@1000.service",
		"user@1000.service/init.scope",
		"user@1000.service/app.slice",
		"user@1000.service/app.slice/dbus.socket",
		"user@1000.service/app.slice/app-Visual Studio Code-4242.scope",
		"user@1000.service/app.slice/tmux-spawn-6a1c2f0e.scope",
		"session-17.scope",
	};
	size_t i, rest, quota;

	if (!add_path(p, "/") || !add_path(p, "/init.scope") || !add_path(p, "/system.slice"))
		return;
	for (i = 0; i < sizeof(services) / sizeof(services[0]); i++)
		if (!add_path(p, "/system.slice/%s", services[i]))
			return;
	if (!add_path(p, "/system.slice/system-getty.slice") ||
	    !add_path(p, "/system.slice/system-getty.slice/getty@tty1.service") ||
	    !add_path(p, "/system.slice/system-serial\\x2dgetty.slice") ||
	    !add_path(p, "/system.slice/system-serial\\x2dgetty.slice/serial-getty@ttyS0.service") ||
	    !add_path(p, "/user.slice") || !add_path(p, "/user.slice/user-1000.slice"))
		return;
	for (i = 0; i < sizeof(user_units) / sizeof(user_units[0]); i++)
		if (!add_path(p, "/user.slice/user-1000.slice/%s", user_units[i]))
			return;
	if (!add_path(p, "/batch") || !add_path(p, "/batch/nightly report") ||
	    !add_path(p, "/batch/nightly report/step 1 - extract") ||
	    !add_path(p, "/batch/ml-training") || !add_path(p, "/kubepods"))
		return;

	/* pods: 15% of what is left best-effort, 60% burstable, the rest guaranteed */
	rest = p->max - p->n;
	if (!add_path(p, "/kubepods/besteffort"))
		return;
	quota = p->n + rest * 15 / 100;
	while (p->n < quota)
		if (!add_pod(p, r, "/kubepods/besteffort"))
			return;
	if (!add_path(p, "/kubepods/burstable"))
		return;
	quota = p->n + rest * 60 / 100;
	while (p->n < quota)
		if (!add_pod(p, r, "/kubepods/burstable"))
			return;
	while (add_pod(p, r, "/kubepods"))
		;
}

struct gen_opts {
	bool full, v612;
	unsigned long memcgs, nodes;
};

static void put_counter(FILE *f, uint64_t v, char c)
{
	fprintf(f, " %10" PRIu64 "%c", v, c);
}

/* Split total into n parts by weights (sum of parts == total). */
static void split_pages(uint64_t total, const double *w, unsigned n, uint64_t *out)
{
	double sum = 0;
	uint64_t left = total;
	unsigned i;

	for (i = 0; i < n; i++)
		sum += w[i];
	for (i = 0; i + 1 < n; i++) {
		out[i] = sum > 0 ? (uint64_t)((double)total * w[i] / sum) : 0;
		if (out[i] > left)
			out[i] = left;
		left -= out[i];
	}
	out[n - 1] = left;
}

static void write_full_detail(FILE *f, struct rng *r, const struct gen_opts *o,
			      uint64_t seq, uint64_t max_seq, const uint64_t *min_seq,
			      uint64_t activity)
{
	int tier, type, i;

	for (tier = 0; tier < LRU_NR_TIERS; tier++) {
		fprintf(f, "            %10d", tier);
		for (type = 0; type < LRU_NR_TYPES; type++) {
			const char *s = o->v612 ? "xxx" : "   ";
			uint64_t n[3] = { 0, 0, 0 };

			if (seq == max_seq) {
				s = o->v612 ? "RTx" : "RT ";
				n[1] = activity ? rnd_below(r, (activity >> (2 * tier)) + 1) : 0;
				n[0] = rnd_below(r, n[1] / 4 + 1);
			} else if (seq == min_seq[type]) {
				s = "rep";
				n[1] = activity ? rnd_below(r, (activity * 8 >> (2 * tier)) + 1) : 0;
				n[0] = rnd_below(r, n[1] / 3 + 1);
				if (tier)
					n[2] = rnd_below(r, n[1] / 2 + 1);
			}
			for (i = 0; i < 3; i++)
				put_counter(f, n[i], s[i]);
		}
		fputc('\n', f);
	}

	fputs("                      ", f);
	if (o->v612) {
		uint64_t n[4] = { 0, 0, 0, 0 };
		const char *s = "xxxx";

		if (seq == max_seq) {
			s = "TYFA";
			n[0] = activity ? rnd_below(r, activity * 64) : 0;
			n[1] = rnd_below(r, n[0] / 2 + 1);
			n[2] = rnd_below(r, n[0] / 100 + 10);
			n[3] = rnd_below(r, n[2] / 2 + 2);
		}
		for (i = 0; i < 4; i++)
			put_counter(f, n[i], s[i]);
	} else {
		uint64_t n[6] = { 0, 0, 0, 0, 0, 0 };
		const char *s = "      ";

		if (seq == max_seq) {
			s = "LOYNFA";
			n[0] = activity ? rnd_below(r, activity * 64) : 0;
			n[1] = rnd_below(r, n[0] / 2 + 1);
			n[2] = rnd_below(r, (n[0] - n[1]) / 2 + 1);
			n[3] = rnd_below(r, n[0] / 50 + 10);
			n[4] = rnd_below(r, n[3] / 2 + 1);
			n[5] = rnd_below(r, n[3] / 4 + 1);
		}
		for (i = 0; i < 6; i++)
			put_counter(f, n[i], s[i]);
	}
	fputc('\n', f);
}

static uint64_t memcg_scale(struct rng *r, const char *path)
{
	const char *last = strrchr(path, '/');

	if (!strcmp(path, "/"))
		return rnd_log(r, 1u << 20, 1u << 22);
	if (rnd_below(r, 100) < 8)
		return 0; /* empty: a fresh or idle cgroup */
	if (last && strlen(last + 1) == 64)
		return rnd_log(r, 32, 1u << 19); /* a container */
	return rnd_log(r, 16, 1u << 17);
}

static void write_memcg(FILE *f, struct rng *r, const struct gen_opts *o, uint64_t id,
			const char *path)
{
	uint64_t scale = memcg_scale(r, path);
	uint64_t base_seq = rnd_log(r, 3, 40000);
	uint64_t interval = rnd_log(r, 500, 600000); /* ms between agings */
	uint64_t activity = rnd_below(r, 10) < 3 ? 0 : rnd_log(r, 1, 200000);
	double anon_frac = rnd_unit(r);
	unsigned long node;

	fprintf(f, "memcg %5" PRIu64 " %s\n", id, path);
	for (node = 0; node < o->nodes; node++) {
		uint64_t max_seq = base_seq + rnd_below(r, 3);
		uint64_t min_seq[LRU_NR_TYPES], seq, ages[LRU_MAX_GENS];
		uint64_t pages[LRU_NR_TYPES][LRU_MAX_GENS];
		double share = 0.2 + rnd_unit(r) * 1.6 / (double)o->nodes;
		double w[LRU_MAX_GENS];
		unsigned g;
		int type;

		/* no swap: anon stays behind; file may be one generation ahead */
		min_seq[LRU_ANON] = max_seq - (LRU_MAX_GENS - 1);
		min_seq[LRU_FILE] = min_seq[LRU_ANON] + (rnd_below(r, 4) == 0);

		/* ages in ms, oldest first, decreasing toward the youngest */
		ages[3] = rnd_below(r, interval);
		ages[2] = ages[3] + interval / 2 + rnd_below(r, interval);
		ages[1] = ages[2] + interval + rnd_below(r, 2 * interval);
		ages[0] = ages[1] + interval * (1 + rnd_below(r, 40));
		for (g = 0; g < LRU_MAX_GENS; g++)
			if (ages[g] > 4000000000u)
				ages[g] = 4000000000u - (LRU_MAX_GENS - g) * 1000u;

		for (type = 0; type < LRU_NR_TYPES; type++) {
			double frac = type == LRU_ANON ? anon_frac : 1 - anon_frac;
			uint64_t total = (uint64_t)((double)scale * frac * share);

			/* most pages are cold (oldest), few in the youngest */
			w[0] = 0.4 + rnd_unit(r);
			w[1] = rnd_unit(r) * 0.4;
			w[2] = rnd_unit(r) * 0.3;
			w[3] = rnd_unit(r) * 0.1;
			if (min_seq[type] > max_seq - (LRU_MAX_GENS - 1))
				w[0] = 0; /* the oldest generation of this type is gone */
			split_pages(total, w, LRU_MAX_GENS, pages[type]);
		}

		fprintf(f, " node %5d\n", (int)node);
		for (seq = max_seq - (LRU_MAX_GENS - 1), g = 0; seq <= max_seq; seq++, g++) {
			fprintf(f, " %10" PRIu64 " %10u", seq, (unsigned)ages[g]);
			for (type = 0; type < LRU_NR_TYPES; type++)
				put_counter(f, pages[type][g],
					    o->full && seq < min_seq[type] ? 'x' : ' ');
			fputc('\n', f);
			if (o->full)
				write_full_detail(f, r, o, seq, max_seq, min_seq, activity);
		}
	}
}

static int mode_gen(int argc, char **argv)
{
	struct gen_opts o = { .memcgs = 1000, .nodes = 2 };
	struct rng r = { 0x6c727567656e2031ULL };
	struct paths p = { 0 };
	const char *out = NULL;
	uint64_t id = 1;
	FILE *f;
	size_t i;
	int a;

	for (a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--full"))
			o.full = true;
		else if (!strcmp(argv[a], "--v612"))
			o.v612 = true;
		else if (!strcmp(argv[a], "--memcgs") && a + 1 < argc)
			o.memcgs = parse_count(argv[++a], "--memcgs", 10000000);
		else if (!strcmp(argv[a], "--nodes") && a + 1 < argc)
			o.nodes = parse_count(argv[++a], "--nodes", LRU_NODE_MAX + 1);
		else if (argv[a][0] == '-' || out)
			usage();
		else
			out = argv[a];
	}
	if (!out)
		usage();

	p.max = o.memcgs;
	p.v = calloc(p.max, sizeof(*p.v));
	if (!p.v)
		die("out of memory");
	make_paths(&p, &r);

	f = fopen(out, "w");
	if (!f)
		die("%s: %s", out, strerror(errno));
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	for (i = 0; i < p.n; i++) {
		/*
		 * Ids grow with creation order, with gaps where cgroups were
		 * removed (pod churn). Past 65535 they are printed in full,
		 * as kernels that print the 64-bit cgroup id do.
		 */
		write_memcg(f, &r, &o, id, p.v[i]);
		id += 1 + (rnd_below(&r, 4) == 0 ? rnd_below(&r, 3) : 0);
		free(p.v[i]);
	}
	free(p.v);
	if (fclose(f))
		die("%s: %s", out, strerror(errno));
	return 0;
}

/* ---------------------------------------------------------------------------
 * once / loop: read, parse, set times, encode
 */

static void read_file(const char *path, char **buf, size_t *len)
{
	struct stat st;
	size_t cap, n = 0;
	char *b;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", path, strerror(errno));
	cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 65536; /* +1: see EOF in one read */
	b = malloc(cap);
	if (!b)
		die("out of memory reading %s", path);
	for (;;) {
		ssize_t got;

		if (n == cap) {
			char *nb = realloc(b, cap *= 2);

			if (!nb)
				die("out of memory reading %s", path);
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			die("%s: %s", path, strerror(errno));
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	close(fd);
	*buf = b;
	*len = n;
}

struct run_times {
	uint64_t parse_ns, pb_ns;
	size_t pb_len, nr_memcgs, nr_lruvecs;
};

/*
 * After the parse: birth times from the read window, the host header, one
 * SnapshotBatch in *out (*len bytes, malloc'd).
 */
static void encode(const char *path, struct lru_snapshot *snap, int64_t start_ms,
		   int64_t end_ms, uint8_t **out, size_t *len)
{
	const struct lru_snapshot *snaps[1] = { snap };
	struct lru_error err;

	lru_snapshot_set_times(snap, start_ms, end_ms);
	snap->source = snap->nr_lruvecs && snap->lruvecs[0].full ? LRU_SRC_DEBUGFS_FULL
								 : LRU_SRC_DEBUGFS;
	snap->host.seq = 1;
	snap->host.enabled = 7;
	if (lru_strdup_into(&snap->host.host, "bench-host-0001.example.net", &err) ||
	    lru_strdup_into(&snap->host.boot_id, "0f6c5e2e-6d2c-4a55-9a4e-2f3a64b1c0de", &err) ||
	    lru_strdup_into(&snap->host.kernel, "6.1.0-57-amd64", &err))
		die("%s", err.msg);
	if (lru_pb_encode_batch(snaps, 1, out, len, &err))
		die("%s: encoding: %s", path, err.msg);
}

/* The work of loop: read the whole file, then parse and encode it, timed apart. */
static void run_once(const char *path, struct run_times *t)
{
	struct lru_snapshot snap;
	struct lru_error err;
	int64_t start_ms, end_ms;
	uint64_t t0, t1, t2;
	uint8_t *out = NULL;
	size_t len = 0, out_len = 0;
	char *buf;

	lru_snapshot_init(&snap);
	start_ms = lru_now_ms();
	read_file(path, &buf, &len);
	end_ms = lru_now_ms();

	t0 = now_ns();
	if (lru_parse_buf(&snap, buf, len, &err))
		die("%s: %s", path, err.msg);
	t1 = now_ns();
	encode(path, &snap, start_ms, end_ms, &out, &out_len);
	t2 = now_ns();

	t->parse_ns = t1 - t0;
	t->pb_ns = t2 - t1;
	t->pb_len = out_len;
	t->nr_memcgs = snap.nr_memcgs;
	t->nr_lruvecs = snap.nr_lruvecs;
	free(out);
	free(buf);
	lru_snapshot_release(&snap);
}

/*
 * once: what a collector does - read the file in pieces of STREAM_CHUNK
 * bytes straight into the parser (no copy of the whole text), then encode
 * (not with --parse-only).
 */
#define STREAM_CHUNK (64 * 1024)

static int mode_once(int argc, char **argv)
{
	char chunk[STREAM_CHUNK];
	struct lru_snapshot snap;
	struct lru_parser *parser;
	struct lru_error err;
	int64_t start_ms, end_ms;
	const char *path;
	uint8_t *out = NULL;
	size_t out_len = 0;
	bool parse_only = argc == 4 && !strcmp(argv[2], "--parse-only");
	int fd;

	if (argc != 3 + parse_only)
		usage();
	path = argv[2 + parse_only];
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	lru_snapshot_init(&snap);
	if (lru_parser_new(&parser, &snap, &err))
		die("%s", err.msg);
	start_ms = lru_now_ms();
	for (;;) {
		ssize_t got = read(fd, chunk, sizeof(chunk));

		if (got < 0) {
			if (errno == EINTR)
				continue;
			die("%s: %s", path, strerror(errno));
		}
		if (!got)
			break;
		if (lru_parser_feed(parser, chunk, (size_t)got, &err))
			die("%s: %s", path, err.msg);
	}
	end_ms = lru_now_ms();
	close(fd);
	if (lru_parser_finish(parser, &err))
		die("%s: %s", path, err.msg);
	lru_parser_free(parser);
	if (parse_only)
		lru_snapshot_set_times(&snap, start_ms, end_ms);
	else
		encode(path, &snap, start_ms, end_ms, &out, &out_len);
	free(out);
	lru_snapshot_release(&snap);
	return 0;
}

static int mode_loop(int argc, char **argv)
{
	unsigned long iter, i;
	uint64_t *total, *parse, *pb;
	struct run_times t;
	struct stat st;
	double med_us, parse_us, pb_us, bytes;

	if (argc != 4)
		usage();
	iter = parse_count(argv[3], "ITER", 100000000);
	if (stat(argv[2], &st))
		die("%s: %s", argv[2], strerror(errno));
	total = calloc(iter, sizeof(*total));
	parse = calloc(iter, sizeof(*parse));
	pb = calloc(iter, sizeof(*pb));
	if (!total || !parse || !pb)
		die("out of memory");

	run_once(argv[2], &t); /* warm up: page cache, allocator, branch predictors */
	for (i = 0; i < iter; i++) {
		uint64_t t0 = now_ns();

		run_once(argv[2], &t);
		total[i] = now_ns() - t0;
		parse[i] = t.parse_ns;
		pb[i] = t.pb_ns;
	}
	bytes = (double)st.st_size;
	med_us = (double)median(total, iter) / 1e3;
	parse_us = (double)median(parse, iter) / 1e3;
	pb_us = (double)median(pb, iter) / 1e3;
	printf("loop iter=%lu bytes=%.0f memcgs=%zu lruvecs=%zu pb_bytes=%zu median_us=%.1f "
	       "parse_us=%.1f pb_us=%.1f mbps=%.2f parse_mbps=%.2f\n",
	       iter, bytes, t.nr_memcgs, t.nr_lruvecs, t.pb_len, med_us, parse_us, pb_us,
	       bytes / med_us, bytes / parse_us);
	free(total);
	free(parse);
	free(pb);
	return 0;
}

/* ---------------------------------------------------------------------------
 * spawn: time commands as whole processes
 */

#define MAX_CMDS 8

static uint64_t spawn_wait(char *const *argv, const posix_spawn_file_actions_t *fa)
{
	uint64_t t0 = now_ns(), t1;
	pid_t pid;
	int rc, status;

	if (strchr(argv[0], '/'))
		rc = posix_spawn(&pid, argv[0], fa, NULL, argv, environ);
	else
		rc = posix_spawnp(&pid, argv[0], fa, NULL, argv, environ);
	if (rc)
		die("%s: %s", argv[0], strerror(rc));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	t1 = now_ns();
	if (WIFSIGNALED(status))
		die("%s: killed by signal %d", argv[0], WTERMSIG(status));
	if (WEXITSTATUS(status))
		die("%s: exit status %d", argv[0], WEXITSTATUS(status));
	return t1 - t0;
}

static int mode_spawn(int argc, char **argv)
{
	char **cmds[MAX_CMDS];
	uint64_t *times[MAX_CMDS];
	posix_spawn_file_actions_t fa;
	unsigned long k, run;
	struct stat st;
	int ncmd = 0, a, c, w;

	if (argc < 6 || strcmp(argv[4], "--"))
		usage();
	k = parse_count(argv[2], "K", 10000000);
	if (stat(argv[3], &st))
		die("%s: %s", argv[3], strerror(errno));
	/* split "-- CMD... -- CMD..." in place: each "--" becomes a NULL */
	for (a = 4; a < argc; a++) {
		if (strcmp(argv[a], "--"))
			continue;
		argv[a] = NULL;
		if (a + 1 >= argc || !strcmp(argv[a + 1], "--"))
			usage();
		if (ncmd == MAX_CMDS)
			die("at most %d commands", MAX_CMDS);
		cmds[ncmd++] = &argv[a + 1];
	}
	for (c = 0; c < ncmd; c++) {
		times[c] = calloc(k, sizeof(*times[c]));
		if (!times[c])
			die("out of memory");
	}

	posix_spawn_file_actions_init(&fa);
	if (posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) ||
	    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0))
		die("posix_spawn_file_actions: out of memory");

	/* warm up: page cache, dynamic loader caches, CPU frequency */
	for (w = 0; w < 3; w++)
		for (c = 0; c < ncmd; c++)
			spawn_wait(cmds[c], &fa);
	/* ABBA: forward order on even runs, backward on odd ones */
	for (run = 0; run < k; run++)
		for (w = 0; w < ncmd; w++) {
			c = run % 2 ? ncmd - 1 - w : w;
			times[c][run] = spawn_wait(cmds[c], &fa);
		}
	posix_spawn_file_actions_destroy(&fa);

	for (c = 0; c < ncmd; c++) {
		double med_us = (double)median(times[c], k) / 1e3;
		char *const *arg;

		printf("cmd%d runs=%lu bytes=%jd median_us=%.1f min_us=%.1f p90_us=%.1f mbps=%.2f :",
		       c, k, (intmax_t)st.st_size, med_us, (double)times[c][0] / 1e3,
		       (double)times[c][k * 9 / 10] / 1e3, (double)st.st_size / med_us);
		for (arg = cmds[c]; *arg; arg++)
			printf(" %s", *arg);
		putchar('\n');
		free(times[c]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "gen"))
		return mode_gen(argc, argv);
	if (!strcmp(argv[1], "once"))
		return mode_once(argc, argv);
	if (!strcmp(argv[1], "loop"))
		return mode_loop(argc, argv);
	if (!strcmp(argv[1], "spawn"))
		return mode_spawn(argc, argv);
	usage();
}
