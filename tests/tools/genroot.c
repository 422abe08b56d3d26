/*
 * genroot - write a fixture root for lrugend --root: a host of N memcgs x M
 * nodes as the kernel would show it. Deterministic.
 *
 *	genroot [--memcgs N] [--nodes M] [--dying D] [--empty E] [--ages A,B,C,D]
 *		[--age-shift MS] [--seq-shift K] [--only-lru-gen] DIR
 *
 * Writes DIR/sys/kernel/debug/lru_gen (memcg 1 "/", 2 "/jobs", then
 * /jobs/jobNNNNN; E empty memcgs /jobs/emptyNNN without pages and D dying
 * ones /jobs/deadNNN with id 0 at the end), 4 generations per lruvec with
 * ages A,B,C,D ms (oldest first; default 3600000,600000,120000,5000, each
 * memcg a little different) plus --age-shift, sequence numbers starting at
 * 10 + --seq-shift; lru_gen/enabled, host name, boot id, kernel release,
 * per-node meminfo, /proc/pressure/{memory,io} and, for every live memcg,
 * its cgroup directory with memory.stat, memory.current and memory.pressure.
 * --only-lru-gen rewrites lru_gen alone (between ticks of a running lrugend),
 * atomically (a temporary file renamed over it).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *dir;

static void die(const char *what)
{
	fprintf(stderr, "genroot: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* mkdir -p of dir/rel's parent, then open dir/rel for writing. */
static FILE *create(const char *rel)
{
	char path[4096], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			die(path);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		die(path);
	return f;
}

static void put(const char *rel, const char *text)
{
	FILE *f = create(rel);

	fputs(text, f);
	if (fclose(f))
		die(rel);
}

static uint64_t rnd(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 33;
}

struct memcg {
	char path[64];
	unsigned id;
	bool empty;
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "memcgs", required_argument, NULL, 'm' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "dying", required_argument, NULL, 'd' },
		{ "empty", required_argument, NULL, 'e' },
		{ "ages", required_argument, NULL, 'a' },
		{ "age-shift", required_argument, NULL, 's' },
		{ "seq-shift", required_argument, NULL, 'q' },
		{ "only-lru-gen", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long memcgs = 1000, nodes = 2, dying = 0, empty = 0, seq_shift = 0;
	unsigned long long ages[4] = { 3600000, 600000, 120000, 5000 }, age_shift = 0;
	bool fixed_ages = false, only = false;
	struct memcg *list;
	char tmp_rel[256];
	uint64_t state = 42;
	size_t n = 0;
	FILE *f;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'm': memcgs = strtoul(optarg, NULL, 10); break;
		case 'n': nodes = strtoul(optarg, NULL, 10); break;
		case 'd': dying = strtoul(optarg, NULL, 10); break;
		case 'e': empty = strtoul(optarg, NULL, 10); break;
		case 's': age_shift = strtoull(optarg, NULL, 10); break;
		case 'q': seq_shift = strtoul(optarg, NULL, 10); break;
		case 'o': only = true; break;
		case 'a':
			if (sscanf(optarg, "%llu,%llu,%llu,%llu", &ages[0], &ages[1], &ages[2],
				   &ages[3]) != 4) {
				fputs("genroot: --ages takes 4 comma-separated ms values\n", stderr);
				return 2;
			}
			fixed_ages = true;
			break;
		default:
			fputs("usage: genroot [--memcgs N] [--nodes M] [--dying D] [--empty E] "
			      "[--ages A,B,C,D] [--age-shift MS] [--seq-shift K] [--only-lru-gen] DIR\n",
			      stderr);
			return 2;
		}
	}
	if (optind + 1 != argc || memcgs < 2 || !nodes || nodes > 64) {
		fputs("genroot: need one DIR, --memcgs >= 2 and 1..64 nodes\n", stderr);
		return 2;
	}
	dir = argv[optind];
	if (mkdir(dir, 0755) && errno != EEXIST)
		die(dir);
	list = calloc(memcgs + dying + empty, sizeof(*list));
	if (!list)
		die("calloc");
	snprintf(list[n].path, sizeof(list[n].path), "/");
	list[n++].id = 1;
	snprintf(list[n].path, sizeof(list[n].path), "/jobs");
	list[n++].id = 2;
	for (unsigned long i = 2; i < memcgs; i++, n++) {
		snprintf(list[n].path, sizeof(list[n].path), "/jobs/job%05lu", i);
		list[n].id = (unsigned)(i + 1);
	}
	for (unsigned long i = 0; i < empty; i++, n++) {
		snprintf(list[n].path, sizeof(list[n].path), "/jobs/empty%03lu", i);
		list[n].id = (unsigned)(memcgs + i + 1);
		list[n].empty = true;
	}
	for (unsigned long i = 0; i < dying; i++, n++)
		snprintf(list[n].path, sizeof(list[n].path), "/jobs/dead%03lu", i);

	snprintf(tmp_rel, sizeof(tmp_rel), "sys/kernel/debug/lru_gen.tmp%d", (int)getpid());
	f = create(tmp_rel);
	for (size_t m = 0; m < n; m++) {
		fprintf(f, "memcg %5u %s\n", list[m].id, list[m].path);
		for (unsigned long nd = 0; nd < nodes; nd++) {
			fprintf(f, " node %5lu\n", nd);
			for (int g = 0; g < 4; g++) {
				unsigned long long age = ages[g] + age_shift;
				uint64_t anon = list[m].empty ? 0 : rnd(&state) % 5000;
				uint64_t file = list[m].empty ? 0 : rnd(&state) % 3000;

				if (!fixed_ages)
					age += (m * 37 + nd * 11) % 1000;
				fprintf(f, " %10lu %10llu %10" PRIu64 " %10" PRIu64 " \n", 10 + seq_shift + g,
					age, anon, file);
			}
		}
	}
	if (fclose(f))
		die("lru_gen");
	{
		char from[4096], to[4096];

		snprintf(from, sizeof(from), "%s/%s", dir, tmp_rel);
		snprintf(to, sizeof(to), "%s/sys/kernel/debug/lru_gen", dir);
		if (rename(from, to))
			die(to);
	}
	if (only) {
		free(list);
		return 0;
	}
	put("sys/kernel/mm/lru_gen/enabled", "0x0007\n");
	put("proc/sys/kernel/hostname", "genroot-host\n");
	put("proc/sys/kernel/osrelease", "6.12.0-genroot\n");
	put("proc/sys/kernel/random/boot_id", "11111111-2222-4333-8444-555555555555\n");
	put("proc/sys/vm/swappiness", "60\n");
	put("proc/pressure/memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
				    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	put("proc/pressure/io", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
				"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	for (unsigned long nd = 0; nd < nodes; nd++) {
		char rel[128], text[512];

		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%lu/meminfo", nd);
		snprintf(text, sizeof(text),
			 "Node %lu MemTotal:       16777216 kB\nNode %lu MemFree:         8388608 kB\n"
			 "Node %lu FilePages:       2097152 kB\nNode %lu AnonPages:       4194304 kB\n",
			 nd, nd, nd, nd);
		put(rel, text);
	}
	for (size_t m = 0; m < n; m++) {
		char rel[256], text[1024];
		const char *p = strcmp(list[m].path, "/") ? list[m].path : "";

		if (!list[m].id)
			continue;	/* dying: its directory is gone */
		snprintf(rel, sizeof(rel), "sys/fs/cgroup%s/memory.stat", p);
		snprintf(text, sizeof(text),
			 "anon %zu\nfile %zu\nkernel 0\nsock 0\nshmem 0\nfile_mapped 4096\n"
			 "inactive_anon 0\nactive_anon 0\ninactive_file %zu\nactive_file 0\n"
			 "workingset_refault_anon %zu\nworkingset_refault_file %zu\n",
			 (m + 1) * 4096 * 100, (m + 1) * 4096 * 50, (m + 1) * 4096 * 10, m, 2 * m);
		put(rel, text);
		snprintf(rel, sizeof(rel), "sys/fs/cgroup%s/memory.current", p);
		snprintf(text, sizeof(text), "%zu\n", (m + 1) * 4096 * 150);
		put(rel, text);
		snprintf(rel, sizeof(rel), "sys/fs/cgroup%s/memory.pressure", p);
		put(rel, "some avg10=0.50 avg60=0.10 avg300=0.00 total=1234\n"
			 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	}
	free(list);
	return 0;
}
