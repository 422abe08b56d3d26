/*
 * mkbatch - write a SnapshotBatch of several snapshots for replay tests.
 *
 *	mkbatch OUT HOST:AT_MS:FILE...
 *	mkbatch --spool DIR HOST:AT_MS:FILE...
 *
 * Each argument parses one lru_gen or lru_gen_full text FILE (a fixture)
 * as host HOST read at wall-clock AT_MS (a 2 ms read window ending there),
 * so birth = AT_MS - 1 - age: the same file at a later AT_MS is the same
 * histogram with every generation born later. Per host, snapshots get
 * sequence numbers 1, 2, ... in argument order. The kernel release is
 * "6.1.0-test", page size 4096, MGLRU bits 0x0007. With --spool, each
 * snapshot becomes one record (a SnapshotBatch of one) of a collector spool
 * in DIR, written through lru_spool like lrugend does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_model.h"
#include "lru_parse.h"
#include "lru_pb.h"
#include "lru_spool.h"
#include "lru_sys.h"

static int fail(const char *what, const char *msg)
{
	fprintf(stderr, "mkbatch: %s: %s\n", what, msg);
	return 1;
}

/* One spool record per snapshot, in order. */
static int write_spool(const char *dir, const struct lru_snapshot **snaps, size_t n)
{
	struct lru_spool_opts opts = { 0 };
	struct lru_spool *sp;
	struct lru_error err;
	uint8_t *out;
	size_t len, i;
	uint64_t seq;
	int rc = 0;

	if (lru_spool_open(dir, &opts, &sp, &err))
		return fail(dir, err.msg);
	for (i = 0; i < n && !rc; i++) {
		if (lru_pb_encode_batch(&snaps[i], 1, &out, &len, &err))
			return fail("encode", err.msg);
		if (lru_spool_take_seq(sp, &seq, &err) ||
		    lru_spool_append(sp, seq, snaps[i]->read_end_ms, out, len, &err))
			rc = fail(dir, err.msg);
		free(out);
	}
	lru_spool_close(sp);
	return rc;
}

int main(int argc, char **argv)
{
	struct lru_snapshot *snaps;
	const struct lru_snapshot **ptrs;
	struct lru_error err;
	uint8_t *out;
	size_t len, n, i, j;
	FILE *f;
	int rc = 0;
	bool spool = argc > 1 && !strcmp(argv[1], "--spool");

	if (spool) {
		argv++;
		argc--;
	}
	if (argc < 3) {
		fputs("usage: mkbatch [--spool] OUT HOST:AT_MS:FILE...\n", stderr);
		return 2;
	}
	n = (size_t)argc - 2;
	snaps = calloc(n, sizeof(*snaps));
	ptrs = calloc(n, sizeof(*ptrs));
	if (!snaps || !ptrs)
		return fail("memory", "out of memory");
	for (i = 0; i < n && !rc; i++) {
		char *spec = argv[i + 2], *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *text, *end;
		long long at;
		size_t tlen;

		lru_snapshot_init(&snaps[i]);
		ptrs[i] = &snaps[i];
		if (!c1 || !c2) {
			rc = fail(spec, "expected HOST:AT_MS:FILE");
			break;
		}
		*c1 = *c2 = '\0';
		errno = 0;
		at = strtoll(c1 + 1, &end, 10);
		if (errno || *end || at <= 0) {
			rc = fail(c1 + 1, "AT_MS is not a positive number");
			break;
		}
		if (lru_sys_read(NULL, c2 + 1, 64 << 20, &text, &tlen, &err) ||
		    lru_parse_buf(&snaps[i], text, tlen, &err)) {
			rc = fail(c2 + 1, err.msg);
			break;
		}
		free(text);
		lru_snapshot_set_times(&snaps[i], at - 2, at);
		if (lru_strdup_into(&snaps[i].host.host, spec, &err) ||
		    lru_strdup_into(&snaps[i].host.kernel, "6.1.0-test", &err) ||
		    lru_strdup_into(&snaps[i].host.boot_id, "00000000-0000-4000-8000-000000000002", &err)) {
			rc = fail("memory", err.msg);
			break;
		}
		snaps[i].host.enabled = 0x7;
		snaps[i].host.seq = 1;
		for (j = 0; j < i; j++)
			if (!strcmp(snaps[j].host.host, spec))
				snaps[i].host.seq++;
	}
	if (!rc && spool)
		rc = write_spool(argv[1], ptrs, n);
	else if (!rc && lru_pb_encode_batch(ptrs, n, &out, &len, &err))
		rc = fail("encode", err.msg);
	else if (!rc) {
		f = fopen(argv[1], "wb");
		if (!f || fwrite(out, 1, len, f) != len || fclose(f))
			rc = fail(argv[1], strerror(errno));
		free(out);
	}
	for (i = 0; i < n; i++)
		lru_snapshot_release(&snaps[i]);
	free(snaps);
	free(ptrs);
	return rc;
}
