/*
 * tests/vm/pageidle.c - the working set of memcgs by idle page tracking
 * (/sys/kernel/mm/page_idle/bitmap, CONFIG_IDLE_PAGE_TRACKING), as an operator
 * would measure it without MGLRU or DAMON: the wss-v2 method, per memcg
 * instead of per process. Built static by tests/vm/lib.sh and run in the
 * guest (bench/peers/wss.sh).
 *
 *   pageidle --wait MS MEMCG_DIR...
 *
 * 1. /proc/kpagecgroup: every page frame charged to one of the memcgs (the
 *    inode of its cgroup v2 directory), /proc/kpageflags: on an LRU list;
 * 2. their bits set in page_idle/bitmap (the kernel clears their PTEs'
 *    accessed bits and marks each folio idle);
 * 3. MS milliseconds later the bitmap read again: a page whose bit is clear
 *    was accessed in between (a mapping's accessed bit, found by the rmap walk
 *    of the read, or the kernel clearing the idle flag).
 *
 * Prints one line per memcg: "DIR hot BYTES all BYTES" (all: the LRU pages
 * marked). Each page frame counts 4 KiB. The kernel answers for a folio's
 * head frame only (a tail frame reads as accessed, always): the frames of a
 * large folio (/proc/kpageflags' COMPOUND_TAIL) take its head's answer.
 * Errors: one line "pageidle: ..." on stderr, exit 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KPF_LRU 5
#define KPF_COMPOUND_TAIL 16
#define CHUNK 8192 /* page frames per read(2) */
#define MAX_CG 64
#define BITMAP "/sys/kernel/mm/page_idle/bitmap"

static void die(const char *what, const char *path)
{
	fprintf(stderr, "pageidle: %s '%s': %s\n", what, path, strerror(errno));
	exit(1);
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags);
	if (fd < 0)
		die("cannot open", path);
	return fd;
}

/* pread of exactly len bytes, or fewer at the end of the file; -1 on error */
static ssize_t pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, off + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int main(int argc, char **argv)
{
	if (argc < 4 || strcmp(argv[1], "--wait") != 0) {
		fprintf(stderr, "usage: pageidle --wait MS MEMCG_DIR...\n");
		return 2;
	}
	long wait_ms = strtol(argv[2], NULL, 10);
	int ncg = argc - 3;
	if (ncg > MAX_CG) {
		fprintf(stderr, "pageidle: at most %d memcgs\n", MAX_CG);
		return 2;
	}
	uint64_t ino[MAX_CG];
	for (int i = 0; i < ncg; i++) {
		struct stat st;
		if (stat(argv[3 + i], &st) != 0)
			die("cannot stat", argv[3 + i]);
		ino[i] = st.st_ino;
	}

	/* 1. which memcg each LRU page frame belongs to (-1: none of ours) */
	int cgfd = open_or_die("/proc/kpagecgroup", O_RDONLY);
	int flfd = open_or_die("/proc/kpageflags", O_RDONLY);
	size_t cap = 1 << 20, npfn = 0;
	signed char *owner = malloc(cap);
	unsigned char *tail = malloc(cap);
	uint64_t *cgs = malloc(CHUNK * sizeof(uint64_t)), *fls = malloc(CHUNK * sizeof(uint64_t));
	if (!owner || !tail || !cgs || !fls) {
		fprintf(stderr, "pageidle: out of memory\n");
		return 1;
	}
	for (;;) {
		off_t off = (off_t)(npfn * sizeof(uint64_t));
		ssize_t a = pread_full(cgfd, cgs, CHUNK * sizeof(uint64_t), off);
		ssize_t b = pread_full(flfd, fls, CHUNK * sizeof(uint64_t), off);
		if (a < 0)
			die("cannot read", "/proc/kpagecgroup");
		if (b < 0)
			die("cannot read", "/proc/kpageflags");
		size_t n = (size_t)(a < b ? a : b) / sizeof(uint64_t);
		if (n == 0)
			break;
		if (npfn + n > cap) {
			cap *= 2;
			if (!(owner = realloc(owner, cap)) || !(tail = realloc(tail, cap))) {
				fprintf(stderr, "pageidle: out of memory\n");
				return 1;
			}
		}
		for (size_t i = 0; i < n; i++) {
			signed char o = -1;
			if (fls[i] & (1ULL << KPF_LRU))
				for (int c = 0; c < ncg; c++)
					if (cgs[i] == ino[c])
						o = (signed char)c;
			owner[npfn + i] = o;
			tail[npfn + i] = (fls[i] >> KPF_COMPOUND_TAIL) & 1;
		}
		npfn += n;
	}
	close(cgfd);
	close(flfd);

	/* 2. mark them idle, 64 frames a word, only the words holding ours */
	int bm = open_or_die(BITMAP, O_RDWR);
	size_t nwords = (npfn + 63) / 64;
	uint64_t all[MAX_CG] = { 0 }, hot[MAX_CG] = { 0 };
	for (size_t w = 0; w < nwords; w++) {
		uint64_t word = 0;
		for (size_t b = 0; b < 64 && w * 64 + b < npfn; b++)
			if (owner[w * 64 + b] >= 0) {
				word |= 1ULL << b;
				all[owner[w * 64 + b]] += 4096;
			}
		/* past max_pfn the kernel answers ENXIO; a last word that max_pfn cuts
		 * is done but answered 0 bytes (and reads back as 0 bytes: its frames,
		 * fewer than 64, are left out of hot) */
		if (word && pwrite(bm, &word, sizeof(word), (off_t)(w * 8)) < 0 && errno != ENXIO)
			die("cannot write", BITMAP);
	}

	/* 3. wait, then every frame of ours whose bit went clear was accessed (a
	 * tail frame: if its head's did) */
	int head_idle = 0;
	struct timespec ts = { wait_ms / 1000, (wait_ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	for (size_t w = 0; w < nwords; w++) {
		uint64_t mine = 0, word = 0;
		for (size_t b = 0; b < 64 && w * 64 + b < npfn; b++)
			if (owner[w * 64 + b] >= 0)
				mine |= 1ULL << b;
		if (!mine)
			continue;
		if (pread(bm, &word, sizeof(word), (off_t)(w * 8)) != sizeof(word))
			continue; /* a hole: nothing tracked there */
		for (size_t b = 0; b < 64; b++) {
			if (!(mine >> b & 1))
				continue;
			int idle = tail[w * 64 + b] ? head_idle : (int)(word >> b & 1);
			if (!tail[w * 64 + b])
				head_idle = idle;
			if (!idle)
				hot[owner[w * 64 + b]] += 4096;
		}
	}
	close(bm);
	for (int c = 0; c < ncg; c++)
		printf("%s hot %llu all %llu\n", argv[3 + c], (unsigned long long)hot[c],
		       (unsigned long long)all[c]);
	free(owner);
	free(tail);
	free(cgs);
	free(fls);
	return 0;
}
