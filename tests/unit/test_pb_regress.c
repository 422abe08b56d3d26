/*
 * test_pb_regress.c - the protobuf regression inputs (tests/corpus/pb-regress)
 * through the store's ingest path, lib side: the checks of tests/fuzz/fuzz_pb.c
 * (linked in, without libFuzzer) on every file, under make check's ASan/UBSan.
 *
 * NAME.pb files are written by tests/tools/pbregress and decode; crash-*
 * files are fuzz_pb's findings, kept as they were found (they may not
 * decode). A few answers that saturate are checked by value.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_fleet.h"
#include "lru_pb.h"
#include "testutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void test_corpus(void **state)
{
	DIR *dir = opendir(tu_path("corpus/pb-regress"));
	struct dirent *de;
	int files = 0;

	(void)state;
	assert_non_null(dir);
	while ((de = readdir(dir)) != NULL) {
		struct lru_snapshot *snaps;
		struct lru_error err;
		char rel[300];
		size_t len, n;
		char *buf;

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "corpus/pb-regress/%s", de->d_name);
		buf = tu_read(rel, &len);
		LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
		if (strncmp(de->d_name, "crash-", 6)) {
			if (lru_pb_decode_batch((const uint8_t *)buf, len, &snaps, &n, &err))
				fail_msg("%s: %s", rel, err.msg);
			assert_int_equal(n, 1);
			lru_pb_free_snapshots(snaps, n);
		}
		free(buf);
		files++;
	}
	closedir(dir);
	assert_true(files >= 8);
}

/* Decode corpus/pb-regress/name and build its rows. */
static void rows_of(const char *name, struct lru_snapshot **snaps, struct lru_fleet_rows *rows)
{
	char rel[300], *buf;
	struct lru_error err;
	size_t len, n;

	snprintf(rel, sizeof(rel), "corpus/pb-regress/%s", name);
	buf = tu_read(rel, &len);
	if (lru_pb_decode_batch((const uint8_t *)buf, len, snaps, &n, &err) ||
	    lru_fleet_rows_build(&(*snaps)[0], rows, &err))
		fail_msg("%s: %s", rel, err.msg);
	free(buf);
}

static void test_saturated(void **state)
{
	struct lru_snapshot *snaps;
	struct lru_fleet_rows rows;

	(void)state;
	/* two nodes of 2^64-1 bytes; 2^64-1 pages of 64 KiB */
	rows_of("node-total-max.pb", &snaps, &rows);
	assert_true(rows.mem_total == UINT64_MAX && rows.mem_free == UINT64_MAX);
	assert_true(rows.host.total == UINT64_MAX && rows.lv[0].total == UINT64_MAX);
	assert_true(rows.host.cold[0] == UINT64_MAX);
	lru_fleet_rows_release(&rows);
	lru_pb_free_snapshots(snaps, 1);

	/* read from INT64_MIN to INT64_MAX: the midpoint is -1, exactly */
	rows_of("read-min-max.pb", &snaps, &rows);
	assert_true(rows.taken_ms == -1);
	lru_fleet_rows_release(&rows);
	lru_pb_free_snapshots(snaps, 1);

	/* end before start: the start */
	rows_of("read-reversed.pb", &snaps, &rows);
	assert_true(rows.taken_ms == INT64_MAX);
	lru_fleet_rows_release(&rows);
	lru_pb_free_snapshots(snaps, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_saturated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
