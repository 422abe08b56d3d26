/*
 * pbdump - print SnapshotBatch data as JSON: an array of snapshots (see
 * snapjson.h). Decodes with lru_pb_decode_batch, so it checks what the store
 * will check.
 *
 *	pbdump FILE		a SnapshotBatch file (lrugend --output); '-' = stdin
 *	pbdump --spool DIR	every record of a spool (lrugend stopped), oldest
 *				first; the spool's counters go to stderr
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_pb.h"
#include "lru_spool.h"
#include "snapjson.h"

/* Append the snapshots of one SnapshotBatch to arr; -1 if it does not decode. */
static int add_batch(json_t *arr, const uint8_t *buf, size_t len)
{
	struct lru_snapshot *snaps = NULL;
	struct lru_error err;
	size_t n = 0;

	if (lru_pb_decode_batch(buf, len, &snaps, &n, &err)) {
		fprintf(stderr, "pbdump: %s\n", err.msg);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, snapjson(&snaps[i]));
	lru_pb_free_snapshots(snaps, n);
	return 0;
}

static int print(json_t *arr)
{
	json_dumpf(arr, stdout, JSON_INDENT(1));
	putchar('\n');
	json_decref(arr);
	return fflush(stdout) ? 1 : 0;
}

static int dump_spool(const char *dir)
{
	struct lru_spool_opts opts = { 0 };
	struct lru_spool_stats st;
	struct lru_spool_pos pos;
	struct lru_spool_rec rec;
	struct lru_spool *sp;
	struct lru_error err;
	json_t *arr;
	int rc = 0;

	if (lru_spool_open(dir, &opts, &sp, &err)) {
		fprintf(stderr, "pbdump: %s\n", err.msg);
		return 1;
	}
	arr = json_array();
	lru_spool_head(sp, &pos);
	while (!rc && !lru_spool_peek(sp, &pos, &rec, NULL)) {
		uint8_t *buf = malloc(rec.len ? rec.len : 1);

		if (!buf || lru_spool_read(sp, &rec, buf, &err) || add_batch(arr, buf, rec.len))
			rc = 1;
		free(buf);
		pos = rec.next;
	}
	lru_spool_stats(sp, &st);
	fprintf(stderr, "pbdump: records=%" PRIu64 " bytes=%" PRIu64 " torn=%" PRIu64
		" next_seq=%" PRIu64 "\n", st.records, st.bytes, st.torn, st.next_seq);
	lru_spool_close(sp);
	return print(arr) || rc;
}

static int dump_file(const char *path)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	json_t *arr;
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;

	if (!f) {
		perror(path);
		return 1;
	}
	for (;;) {
		size_t r;

		if (len == cap) {
			uint8_t *p = realloc(buf, cap = cap ? cap * 2 : 1 << 16);

			if (!p) {
				free(buf);
				return 1;
			}
			buf = p;
		}
		r = fread(buf + len, 1, cap - len, f);
		if (!r)
			break;
		len += r;
	}
	if (f != stdin)
		fclose(f);
	arr = json_array();
	if (add_batch(arr, buf, len)) {
		free(buf);
		json_decref(arr);
		return 1;
	}
	free(buf);
	return print(arr);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--spool"))
		return dump_spool(argv[2]);
	if (argc == 2)
		return dump_file(argv[1]);
	fputs("usage: pbdump FILE | --spool DIR\n", stderr);
	return 2;
}
