/*
 * pbregress - write the protobuf regression inputs of tests/corpus/pb-regress.
 *
 *	pbregress DIR
 *
 * Each is a SnapshotBatch that once made the sanitizer build of the store's
 * ingest path stop (issue 11): absurd but well-formed values a host, or
 * anyone holding its token, can send. test_pb_regress replays every file of
 * the directory through fuzz_pb's checks, tests/sh/store_regress.sh posts
 * them to a real lrugen-store; crashers that fuzz_pb finds are added next
 * to them as they are. Times are fixed (2023-11-14), so the files do not
 * change from one run to the next.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_model.h"
#include "lru_pb.h"

#define PROG "pbregress"

#include "tool_die.h"

#define AT_MS 1700000000000LL

/* A snapshot of host, read at AT_MS, with memcg /jobs/a on node 0 of nr_gens generations. */
static void base(struct lru_snapshot *s, const char *host, unsigned nr_gens)
{
	struct lru_error err;
	size_t m, lv;

	lru_snapshot_init(s);
	if (lru_strdup_into(&s->host.host, host, &err) ||
	    lru_strdup_into(&s->host.boot_id, "00000000-0000-4000-8000-000000000011", &err) ||
	    lru_strdup_into(&s->host.kernel, "6.1.0-test", &err))
		die("%s", err.msg);
	s->host.seq = 1;
	s->page_size = 4096;
	if (!nr_gens) {
		lru_snapshot_set_times(s, AT_MS - 2, AT_MS);
		return;
	}
	if (lru_snapshot_add_memcg(s, 7, "/jobs/a", 7, &m, &err) ||
	    lru_snapshot_add_lruvec(s, m, 0, &lv, &err))
		die("%s", err.msg);
	s->lruvecs[lv].nr_gens = nr_gens;
	for (unsigned g = 0; g < nr_gens; g++) {
		struct lru_gen *gen = &s->lruvecs[lv].gens[g];

		gen->seq = 100 + g;
		gen->age_ms = 600000u >> g;
		gen->pages[LRU_ANON] = 1000 * (g + 1);
		gen->pages[LRU_FILE] = 10;
	}
	lru_snapshot_set_times(s, AT_MS - 2, AT_MS);
}

static void add_node(struct lru_snapshot *s, int node, uint64_t total, uint64_t free_b)
{
	struct lru_node_mem *n = realloc(s->nodes, (s->nr_nodes + 1) * sizeof(*n));

	if (!n)
		die("out of memory");
	s->nodes = n;
	s->nodes[s->nr_nodes++] = (struct lru_node_mem){ node, total, free_b, 0, 0 };
}

static void write_batch(const char *dir, const char *name, struct lru_snapshot *s)
{
	const struct lru_snapshot *p = s;
	char path[4096];
	struct lru_error err;
	uint8_t *buf;
	size_t len;
	FILE *f;

	if (lru_pb_encode_batch(&p, 1, &buf, &len, &err))
		die("%s: %s", name, err.msg);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		die("cannot write '%s'", path);
	free(buf);
	lru_snapshot_release(s);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *file, *host;
		int64_t start, end;
	} reads[] = {
		/* the widest window: end - start overflows */
		{ "read-min-max.pb", "regress-read-window", INT64_MIN, INT64_MAX },
		/* read at INT64_MIN: midpoint - age overflows */
		{ "read-min.pb", "regress-read-min", INT64_MIN, INT64_MIN },
		/* end before start */
		{ "read-reversed.pb", "regress-read-max", INT64_MAX, INT64_MIN },
	};
	struct lru_snapshot s;

	if (argc != 2) {
		fputs("usage: pbregress DIR\n", stderr);
		return 2;
	}
	/* MGLRU off: node memory, no lruvecs (qsort(NULL, 0) in the writer) */
	base(&s, "regress-no-lruvecs", 0);
	add_node(&s, 0, 8ULL << 30, 1ULL << 30);
	write_batch(argv[1], "no-lruvecs.pb", &s);
	/* nothing but the header */
	base(&s, "regress-empty", 0);
	write_batch(argv[1], "empty-host.pb", &s);
	/* read times at the ends of int64_t, the births left at 2023 */
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		base(&s, reads[i].host, 3);
		s.read_start_ms = reads[i].start;
		s.read_end_ms = reads[i].end;
		write_batch(argv[1], reads[i].file, &s);
	}
	/* births at both ends: their difference from "midpoint - age" overflows */
	base(&s, "regress-birth", 4);
	s.lruvecs[0].gens[0].birth_ms = INT64_MIN;
	s.lruvecs[0].gens[1].birth_ms = INT64_MAX;
	s.lruvecs[0].gens[2].birth_ms = INT64_MIN + 1;
	write_batch(argv[1], "birth-extremes.pb", &s);
	/* 2^64-1 bytes of memory on two nodes, 2^64-1 pages of 64 KiB: sums and products wrap */
	base(&s, "regress-node-max", 2);
	add_node(&s, 0, UINT64_MAX, UINT64_MAX);
	add_node(&s, 1, UINT64_MAX, 1);
	s.page_size = 65536;
	s.lruvecs[0].gens[0].pages[LRU_ANON] = UINT64_MAX;
	s.lruvecs[0].gens[0].pages[LRU_FILE] = UINT64_MAX;
	write_batch(argv[1], "node-total-max.pb", &s);
	/* seq 2^64-1: the host's, and the youngest generation's */
	base(&s, "regress-seq-max", 4);
	s.host.seq = UINT64_MAX;
	for (unsigned g = 0; g < 4; g++)
		s.lruvecs[0].gens[g].seq = UINT64_MAX - 3 + g;
	write_batch(argv[1], "seq-max.pb", &s);
	return 0;
}
