/*
 * pbdump - print SnapshotBatch data as JSON: an array of snapshots
 * (lru_snapjson.h), as 'lrugen dump' does, for tests that need no lrugen
 * binary. Decodes with lru_pb_decode_batch, so it checks what the store
 * will check.
 *
 *	pbdump FILE		a SnapshotBatch file (lrugend --output); '-' = stdin
 *	pbdump --spool DIR	every record of a spool (a private copy: lrugend
 *				may run), oldest first; the spool's counters go
 *				to stderr
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lru_snapjson.h"

int main(int argc, char **argv)
{
	bool spool = argc == 3 && !strcmp(argv[1], "--spool");
	struct lru_spool_stats st;
	struct lru_error err;
	json_t *arr;

	if (argc != 2 && !spool) {
		fputs("usage: pbdump FILE | --spool DIR\n", stderr);
		return 2;
	}
	if (lru_record_json(argv[argc - 1], &arr, &st, &err)) {
		fprintf(stderr, "pbdump: %s\n", err.msg);
		return 1;
	}
	if (spool)
		fprintf(stderr, "pbdump: records=%" PRIu64 " bytes=%" PRIu64 " torn=%" PRIu64
			" next_seq=%" PRIu64 "\n", st.records, st.bytes, st.torn, st.next_seq);
	json_dumpf(arr, stdout, JSON_INDENT(1));
	putchar('\n');
	json_decref(arr);
	return fflush(stdout) ? 1 : 0;
}
