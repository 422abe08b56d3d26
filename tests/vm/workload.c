/*
 * tests/vm/workload.c - memory workloads with a known hot and cold set, for the
 * real-kernel (QEMU) tests. Built static by tests/vm/lib.sh and run in the guest.
 *
 *   workload anon     --hot MB --cold MB [common options]
 *   workload file     --path F --hot MB --cold MB [common options]
 *   workload readfile --path F --mb MB [common options]
 *
 * Common options:
 *   --cgroup DIR   join the cgroup v2 directory DIR (e.g. /sys/fs/cgroup/jobs/web)
 *                  before touching any memory, so every page is charged there
 *   --node N       bind all allocations to NUMA node N (set_mempolicy MPOL_BIND)
 *   --period MS    touch the hot set every MS milliseconds (default 100), each
 *                  time after a TLB flush of the process (see flush_tlb)
 *   --seconds S    exit 0 after S seconds (default: run until killed)
 *   --thp          allow transparent huge pages for anon memory (default: the
 *                  region is madvised MADV_NOHUGEPAGE so aging sees 4 KiB pages);
 *                  the region is then 2 MiB-aligned and madvised MADV_HUGEPAGE,
 *                  so that hot and cold sets are whole huge pages (sizes in
 *                  MB should be even) of whatever size the kernel's
 *                  transparent_hugepage settings give (PMD or mTHP)
 *   --thp-malloc   transparent huge pages as a large malloc() gets them: no
 *                  madvise, the region page-aligned, not 2 MiB-aligned (the
 *                  kernel's THP policy decides; hot and cold share the huge
 *                  page at their boundary, and the first one starts on the
 *                  first 2 MiB boundary)
 *   --cpu N        run on CPU N only (sched_setaffinity)
 *
 * Modes:
 *   anon      anonymous private memory: [hot | cold]. The cold part is written
 *             once; every page of the hot part is written every period.
 *   file      F is created or extended to hot+cold MB and mapped MAP_SHARED:
 *             [hot | cold]. Both parts are written once; one byte of every hot
 *             page is read every period.
 *   readfile  F is created or extended to MB with write(2), then read entirely
 *             with read(2) every period; it is never mapped.
 *
 * Once the memory is populated the program prints "ready MODE pid=PID" on stdout
 * and flushes, so a script can wait for that line instead of sleeping. Errors
 * print one line "workload: ..." on stderr and exit 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MPOL_BIND 2
#define MIB (1024UL * 1024UL)

struct opts {
	const char *mode;
	const char *cgroup;
	const char *path;
	long node;   /* -1: no binding */
	long period; /* ms */
	long seconds;
	long hot_mb, cold_mb, mb; /* -1: not given */
	int thp;	/* 0 none (MADV_NOHUGEPAGE), 1 aligned, 2 as malloc gets them */
	long cpu; /* -1: any */
};

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("workload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void usage(void)
{
	fputs("usage: workload anon --hot MB --cold MB [options]\n"
	      "       workload file --path F --hot MB --cold MB [options]\n"
	      "       workload readfile --path F --mb MB [options]\n"
	      "options: --cgroup DIR --node N --period MS --seconds S --thp --thp-malloc\n"
	      "         --cpu N\n",
	      stderr);
	exit(1);
}

static long parse_num(const char *name, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		die("%s wants a non-negative integer, got '%s'", name, s);
	return v;
}

static void join_cgroup(const char *dir)
{
	char path[4096], buf[32];
	int fd, n;

	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= (int)sizeof(path))
		die("cgroup path too long: '%s'", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die("cannot open '%s': %s", path, strerror(errno));
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write(fd, buf, (size_t)n) != n)
		die("cannot join cgroup '%s': %s", dir, strerror(errno));
	close(fd);
}

static void bind_node(long node)
{
	unsigned long mask;

	if (node >= (long)(8 * sizeof(mask)))
		die("node %ld is out of range", node);
	mask = 1UL << node;
	/* maxnode counts one more than the bits the kernel reads, as libnuma does */
	if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, 8 * sizeof(mask) + 1) != 0)
		die("cannot bind memory to node %ld: %s", node, strerror(errno));
}

/* The absolute time `ms` milliseconds after `t`. */
static struct timespec after_ms(struct timespec t, long ms)
{
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static void ready(const struct opts *o)
{
	printf("ready %s pid=%d\n", o->mode, (int)getpid());
	if (fflush(stdout) != 0)
		die("cannot write to stdout: %s", strerror(errno));
}

/* Fill every page of [p, p+len) with a non-zero, page-specific word. */
static void write_pages(char *p, size_t len, size_t ps)
{
	for (size_t off = 0; off < len; off += ps)
		*(volatile uint64_t *)(p + off) = (uint64_t)(uintptr_t)(p + off) | 1;
}

/*
 * Make the next touches miss the TLB, as they would on a real machine. MGLRU's
 * aging clears accessed bits without flushing the TLB: on x86 that is safe
 * because a real TLB is small, misses soon and the page walk sets the bit again.
 * QEMU's software TLB grows to a million entries and a small hot set never
 * leaves it, so a page touched after its bit was cleared would stay "idle"
 * forever and aging would stop promoting the hot set (seen in the fleet demo:
 * a whole job's hot set left in an old generation). Unmapping more than
 * tlb_single_page_flush_ceiling (33) present pages makes the kernel flush this
 * mm's TLB; read-only anonymous pages are the shared zero page, so this
 * allocates nothing.
 *
 * It zaps them with MADV_DONTNEED and reads them back in, both under the mm's
 * lock for read, never mmap()/munmap(), which take it for write: an aging
 * walk that finds this lock taken (mmap_read_trylock in walk_mm) skips the
 * whole process for that generation, and its hot set ages as if idle (once
 * in the evict scenario and the fleet demo on 6.1: all of a job's hot set
 * counted cold; a TLB shootdown under TCG holds the lock for milliseconds).
 */
static void flush_tlb(void)
{
	static char *p;
	static size_t len, ps;

	if (!p) {
		ps = (size_t)sysconf(_SC_PAGESIZE);
		len = 64 * ps;
		p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("cannot map the TLB-flush pages: %s", strerror(errno));
	} else if (madvise(p, len, MADV_DONTNEED) != 0) {
		die("madvise(MADV_DONTNEED): %s", strerror(errno));
	}
	for (size_t off = 0; off < len; off += ps)
		(void)*(volatile char *)(p + off);
}

/* Call `touch(arg)` every period until --seconds elapse (or forever). */
static void run_periodic(const struct opts *o, void (*touch)(void *), void *arg)
{
	struct timespec start, next;

	clock_gettime(CLOCK_MONOTONIC, &start);
	next = start;
	for (;;) {
		next = after_ms(next, o->period);
		if (o->seconds && next.tv_sec - start.tv_sec >= o->seconds)
			exit(0);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		flush_tlb();
		touch(arg);
	}
}

struct region {
	char *p;
	size_t len, ps;
};

static void touch_write(void *arg)
{
	struct region *r = arg;

	for (size_t off = 0; off < r->len; off += r->ps)
		(*(volatile char *)(r->p + off))++;
}

static void touch_read(void *arg)
{
	struct region *r = arg;
	volatile char sink;

	for (size_t off = 0; off < r->len; off += r->ps)
		sink = *(volatile char *)(r->p + off);
	(void)sink;
}

static void run_anon(const struct opts *o, size_t ps)
{
	size_t hot = (size_t)o->hot_mb * MIB, cold = (size_t)o->cold_mb * MIB;
	size_t huge = 2 * MIB, len = hot + cold + ps + (o->thp == 1 ? huge : 0);
	struct region r;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("cannot map %zu bytes: %s", hot + cold, strerror(errno));
	if (!o->thp && madvise(p, len, MADV_NOHUGEPAGE) != 0)
		die("madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
	if (o->thp == 1) {
		/* whole huge pages: hot and cold do not share one */
		p = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
		if (madvise(p, hot + cold, MADV_HUGEPAGE) != 0)
			die("madvise(MADV_HUGEPAGE): %s", strerror(errno));
	}
	write_pages(p + hot, cold, ps);
	write_pages(p, hot, ps);
	ready(o);
	r = (struct region){ p, hot, ps };
	run_periodic(o, touch_write, &r);
}

/* Open `path` read-write, creating it, and return its fd; size it >= `len`. */
static int open_sized(const char *path, size_t len, int by_write)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT, 0644);

	if (fd < 0)
		die("cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) != 0)
		die("cannot stat '%s': %s", path, strerror(errno));
	if ((size_t)st.st_size >= len)
		return fd;
	if (!by_write) {
		if (ftruncate(fd, (off_t)len) != 0)
			die("cannot extend '%s' to %zu bytes: %s", path, len, strerror(errno));
		return fd;
	}
	/* real data, so the file has blocks and read(2) finds them */
	static char buf[1 << 20];
	memset(buf, 0x5a, sizeof(buf));
	if (lseek(fd, st.st_size, SEEK_SET) < 0)
		die("cannot seek in '%s': %s", path, strerror(errno));
	for (size_t done = (size_t)st.st_size; done < len;) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);
		ssize_t w = write(fd, buf, n);

		if (w <= 0)
			die("cannot write '%s': %s", path, w < 0 ? strerror(errno) : "short write");
		done += (size_t)w;
	}
	return fd;
}

static void run_file(const struct opts *o, size_t ps)
{
	size_t hot = (size_t)o->hot_mb * MIB, cold = (size_t)o->cold_mb * MIB;
	struct region r;
	int fd = open_sized(o->path, hot + cold, 0);
	char *p;

	p = mmap(NULL, hot + cold, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("cannot map '%s': %s", o->path, strerror(errno));
	write_pages(p + hot, cold, ps);
	write_pages(p, hot, ps);
	ready(o);
	r = (struct region){ p, hot, ps };
	run_periodic(o, touch_read, &r);
}

struct reader {
	int fd;
	const char *path;
};

static void read_all(void *arg)
{
	static char buf[1 << 20];
	struct reader *rd = arg;
	ssize_t n;

	if (lseek(rd->fd, 0, SEEK_SET) < 0)
		die("cannot seek in '%s': %s", rd->path, strerror(errno));
	while ((n = read(rd->fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		die("cannot read '%s': %s", rd->path, strerror(errno));
}

static void run_readfile(const struct opts *o)
{
	struct reader rd = { open_sized(o->path, (size_t)o->mb * MIB, 1), o->path };

	read_all(&rd);
	ready(o);
	run_periodic(o, read_all, &rd);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cgroup", required_argument, NULL, 'g' },
		{ "node", required_argument, NULL, 'n' },
		{ "period", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "hot", required_argument, NULL, 'H' },
		{ "cold", required_argument, NULL, 'C' },
		{ "mb", required_argument, NULL, 'm' },
		{ "path", required_argument, NULL, 'f' },
		{ "thp", no_argument, NULL, 't' },
		{ "thp-malloc", no_argument, NULL, 'M' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .node = -1, .period = 100, .hot_mb = -1, .cold_mb = -1, .mb = -1,
			  .cpu = -1 };
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	int c;

	if (argc < 2 || argv[1][0] == '-')
		usage();
	o.mode = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'g': o.cgroup = optarg; break;
		case 'n': o.node = parse_num("--node", optarg); break;
		case 'p': o.period = parse_num("--period", optarg); break;
		case 's': o.seconds = parse_num("--seconds", optarg); break;
		case 'H': o.hot_mb = parse_num("--hot", optarg); break;
		case 'C': o.cold_mb = parse_num("--cold", optarg); break;
		case 'm': o.mb = parse_num("--mb", optarg); break;
		case 'f': o.path = optarg; break;
		case 't': o.thp = 1; break;
		case 'M': o.thp = 2; break;
		case 'c': o.cpu = parse_num("--cpu", optarg); break;
		default: usage();
		}
	}
	if (optind != argc)
		die("unexpected argument '%s'", argv[optind]);
	if (o.period == 0)
		die("--period must be at least 1 ms");

	int anon = !strcmp(o.mode, "anon"), file = !strcmp(o.mode, "file");
	int readfile = !strcmp(o.mode, "readfile");
	if (!anon && !file && !readfile)
		die("unknown mode '%s' (want anon, file or readfile)", o.mode);
	if ((anon || file) && (o.hot_mb < 0 || o.cold_mb < 0))
		die("%s needs --hot MB and --cold MB", o.mode);
	if ((anon || file) && o.hot_mb + o.cold_mb == 0)
		die("%s needs a non-empty --hot or --cold", o.mode);
	if (readfile && o.mb <= 0)
		die("readfile needs --mb MB (at least 1)");
	if ((file || readfile) && !o.path)
		die("%s needs --path FILE", o.mode);

	if (o.cpu >= 0) {
		cpu_set_t set;

		if (o.cpu >= CPU_SETSIZE)
			die("cpu %ld is out of range", o.cpu);
		CPU_ZERO(&set);
		CPU_SET((int)o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0)
			die("cannot run on cpu %ld: %s", o.cpu, strerror(errno));
	}
	/* before any allocation, so every page lands in the right memcg and node */
	if (o.cgroup)
		join_cgroup(o.cgroup);
	if (o.node >= 0)
		bind_node(o.node);

	if (anon)
		run_anon(&o, ps);
	else if (file)
		run_file(&o, ps);
	else
		run_readfile(&o);
	return 0;
}
