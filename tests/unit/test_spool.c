#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lru_spool.h"

struct fx {
	char *dir;
	struct lru_spool_opts opts;
	int notes[3];
	char last_note[512];
};

static void on_note(void *arg, enum lru_spool_note kind, const char *msg)
{
	struct fx *f = arg;

	f->notes[kind]++;
	snprintf(f->last_note, sizeof(f->last_note), "%s", msg);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = tu_mkdtemp();
	f->opts.note = on_note;
	f->opts.note_arg = f;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tu_rmtree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static struct lru_spool *open_ok(struct fx *f)
{
	struct lru_spool *sp;
	struct lru_error err;

	lru_error_clear(&err);
	if (lru_spool_open(f->dir, &f->opts, &sp, &err))
		fail_msg("lru_spool_open: %s", err.msg);
	return sp;
}

/* A payload of len bytes derived from seq, so that reads can be checked. */
static void payload(uint64_t seq, char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)('a' + (seq * 7 + i) % 26);
}

static void append(struct lru_spool *sp, uint64_t seq, int64_t time_ms, size_t len)
{
	char buf[4096];
	struct lru_error err;

	assert_true(len <= sizeof(buf));
	payload(seq, buf, len);
	if (lru_spool_append(sp, seq, time_ms, buf, len, &err))
		fail_msg("append: %s", err.msg);
}

/* Read every live record; fills seqs[] and returns how many, checking payloads. */
static size_t read_all(struct lru_spool *sp, uint64_t *seqs, size_t max)
{
	struct lru_spool_pos pos;
	struct lru_spool_rec rec;
	size_t n = 0;

	lru_spool_head(sp, &pos);
	while (!lru_spool_peek(sp, &pos, &rec, NULL)) {
		char buf[4096], want[4096];

		assert_true(n < max && rec.len <= sizeof(buf));
		assert_int_equal(lru_spool_read(sp, &rec, buf, NULL), LRU_OK);
		payload(rec.seq, want, rec.len);
		assert_memory_equal(buf, want, rec.len);
		seqs[n++] = rec.seq;
		pos = rec.next;
	}
	return n;
}

static char *seg_path(const struct fx *f, int which)
{
	static char path[4096];
	struct dirent **list;
	int n = scandir(f->dir, &list, NULL, alphasort), found = 0;

	path[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strstr(list[i]->d_name, ".seg") && (which < 0 || found++ == which))
			snprintf(path, sizeof(path), "%s/%s", f->dir, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	assert_true(path[0]);
	return path;
}

static int count_segments(const struct fx *f)
{
	struct dirent *de;
	DIR *d = opendir(f->dir);
	int n = 0;

	while ((de = readdir(d)))
		n += strstr(de->d_name, ".seg") != NULL;
	closedir(d);
	return n;
}

static off_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static void test_seq_survives_reopen(void **state)
{
	struct fx *f = *state;
	int64_t before = lru_now_ms();
	struct lru_spool *sp = open_ok(f);
	uint64_t seq, first;

	/* a new spool starts at the wall clock (ms): a wiped spool cannot repeat */
	assert_int_equal(lru_spool_take_seq(sp, &first, NULL), LRU_OK);
	assert_true(first >= (uint64_t)before && first <= (uint64_t)lru_now_ms());
	for (uint64_t want = first + 1; want <= first + 2; want++) {
		assert_int_equal(lru_spool_take_seq(sp, &seq, NULL), LRU_OK);
		assert_int_equal(seq, want);
	}
	lru_spool_close(sp);
	sp = open_ok(f);
	assert_int_equal(lru_spool_take_seq(sp, &seq, NULL), LRU_OK);
	assert_int_equal(seq, first + 3);
	lru_spool_close(sp);
}

static void test_seq_recovered_from_records(void **state)
{
	struct fx *f = *state;
	struct lru_spool *sp = open_ok(f);
	char path[4096];
	uint64_t seq;

	uint64_t big = (uint64_t)lru_now_ms() + 1000000;

	/* the seq file is lost: resume after the largest seq still spooled... */
	append(sp, big, 1, 10);
	lru_spool_close(sp);
	snprintf(path, sizeof(path), "%s/seq", f->dir);
	unlink(path);
	sp = open_ok(f);
	assert_int_equal(lru_spool_take_seq(sp, &seq, NULL), LRU_OK);
	assert_int_equal(seq, big + 1);
	lru_spool_close(sp);
	/* ...or at the wall clock when that is higher (sent records are gone) */
	sp = open_ok(f);
	append(sp, 41, 1, 10);
	lru_spool_close(sp);
	unlink(path);
	sp = open_ok(f);
	assert_int_equal(lru_spool_take_seq(sp, &seq, NULL), LRU_OK);
	assert_true(seq > big);
	lru_spool_close(sp);
}

static void test_append_read_consume(void **state)
{
	struct fx *f = *state;
	struct lru_spool *sp = open_ok(f);
	struct lru_spool_stats st;
	struct lru_spool_pos pos;
	struct lru_spool_rec rec;
	uint64_t seqs[16];

	for (uint64_t s = 1; s <= 5; s++)
		append(sp, s, 1000 + (int64_t)s, 100 + s);
	lru_spool_stats(sp, &st);
	assert_int_equal(st.records, 5);
	assert_int_equal(st.bytes, 5 * LRU_SPOOL_HEADER + 515);
	assert_int_equal(read_all(sp, seqs, 16), 5);
	assert_int_equal(seqs[0], 1);
	assert_int_equal(seqs[4], 5);

	/* acknowledge the first two */
	lru_spool_head(sp, &pos);
	assert_int_equal(lru_spool_peek(sp, &pos, &rec, NULL), LRU_OK);
	assert_int_equal(rec.time_ms, 1001);
	assert_int_equal(lru_spool_peek(sp, &rec.next, &rec, NULL), LRU_OK);
	assert_int_equal(lru_spool_consume(sp, &rec.next, NULL), LRU_OK);
	lru_spool_stats(sp, &st);
	assert_int_equal(st.records, 3);
	lru_spool_close(sp);

	/* the head survives a restart */
	sp = open_ok(f);
	assert_int_equal(read_all(sp, seqs, 16), 3);
	assert_int_equal(seqs[0], 3);
	lru_spool_stats(sp, &st);
	assert_int_equal(st.records, 3);
	assert_int_equal(st.torn, 0);
	lru_spool_close(sp);
}

/* Cut the last record at every length: the earlier records always survive. */
static void test_torn_tail_every_offset(void **state)
{
	struct fx *f = *state;
	uint64_t seqs[16];
	off_t full;

	{
		struct lru_spool *sp = open_ok(f);

		append(sp, 1, 1, 40);
		append(sp, 2, 2, 40);
		append(sp, 3, 3, 40);
		lru_spool_close(sp);
	}
	full = file_size(seg_path(f, 0));
	for (off_t cut = full - 1; cut > full - (off_t)(LRU_SPOOL_HEADER + 40); cut--) {
		char path[4096];
		struct lru_spool *sp;
		struct lru_spool_stats st;

		snprintf(path, sizeof(path), "%s", seg_path(f, 0));
		assert_int_equal(truncate(path, cut), 0);
		f->notes[LRU_SPOOL_NOTE_TORN] = 0;
		sp = open_ok(f);
		lru_spool_stats(sp, &st);
		assert_int_equal(st.records, 2);
		assert_int_equal(st.torn, 1);
		assert_int_equal(st.torn_bytes, (uint64_t)(cut - (full - LRU_SPOOL_HEADER - 40)));
		assert_int_equal(f->notes[LRU_SPOOL_NOTE_TORN], 1);
		assert_non_null(strstr(f->last_note, "cut short by a crash"));
		assert_int_equal(read_all(sp, seqs, 16), 2);
		/* the torn bytes are gone: the next append lands right after record 2 */
		append(sp, 3, 3, 40);
		assert_int_equal(read_all(sp, seqs, 16), 3);
		assert_int_equal(seqs[2], 3);
		lru_spool_close(sp);
		assert_int_equal(file_size(path), full);
	}
}

static void test_garbage_and_corruption_skipped(void **state)
{
	struct fx *f = *state;
	struct lru_spool *sp = open_ok(f);
	struct lru_spool_stats st;
	uint64_t seqs[16];
	char path[4096];
	int fd;

	for (uint64_t s = 1; s <= 4; s++)
		append(sp, s, 1, 50);
	lru_spool_close(sp);
	snprintf(path, sizeof(path), "%s", seg_path(f, 0));

	/* garbage after the last record */
	fd = open(path, O_WRONLY | O_APPEND);
	assert_int_equal(write(fd, "garbage that is long enough for a header....", 44), 44);
	close(fd);
	sp = open_ok(f);
	assert_int_equal(read_all(sp, seqs, 16), 4);
	lru_spool_close(sp);

	/* a flipped payload byte in record 3: records 3 and 4 are lost, 1 and 2 kept */
	fd = open(path, O_WRONLY);
	assert_int_equal(pwrite(fd, "#", 1, 2 * (LRU_SPOOL_HEADER + 50) + LRU_SPOOL_HEADER + 7), 1);
	close(fd);
	sp = open_ok(f);
	lru_spool_stats(sp, &st);
	assert_int_equal(st.records, 2);
	assert_int_equal(st.torn, 1);
	assert_non_null(strstr(f->last_note, "checksum"));
	assert_int_equal(read_all(sp, seqs, 16), 2);
	lru_spool_close(sp);
}

static void test_corruption_after_open(void **state)
{
	struct fx *f = *state;
	struct lru_spool *sp = open_ok(f);
	struct lru_spool_pos pos;
	struct lru_spool_rec rec;
	char buf[64];
	int fd;

	append(sp, 1, 1, 50);
	append(sp, 2, 1, 50);
	/* a payload byte changes under the open spool: read reports it */
	fd = open(seg_path(f, 0), O_WRONLY);
	assert_int_equal(pwrite(fd, "#", 1, LRU_SPOOL_HEADER + 3), 1);
	close(fd);
	lru_spool_head(sp, &pos);
	assert_int_equal(lru_spool_peek(sp, &pos, &rec, NULL), LRU_OK);
	assert_int_equal(lru_spool_read(sp, &rec, buf, NULL), LRU_EPROTO);
	/* the caller drops it and goes on */
	assert_int_equal(lru_spool_consume(sp, &rec.next, NULL), LRU_OK);
	lru_spool_head(sp, &pos);
	assert_int_equal(lru_spool_peek(sp, &pos, &rec, NULL), LRU_OK);
	assert_int_equal(rec.seq, 2);
	/* a header smashed under the open spool ends the segment, never loops */
	fd = open(seg_path(f, 0), O_WRONLY);
	assert_int_equal(pwrite(fd, "XXXX", 4, LRU_SPOOL_HEADER + 50), 4);
	close(fd);
	assert_int_equal(lru_spool_peek(sp, &pos, &rec, NULL), LRU_ENOENT);
	append(sp, 3, 1, 50);
	assert_int_equal(lru_spool_peek(sp, &pos, &rec, NULL), LRU_OK);
	assert_int_equal(rec.seq, 3);
	lru_spool_close(sp);
}

static void test_max_bytes_drops_oldest(void **state)
{
	struct fx *f = *state;
	struct lru_spool *sp;
	struct lru_spool_stats st;
	struct lru_error err;
	uint64_t seqs[16];
	char big[2048] = { 0 };

	f->opts.max_bytes = 4 * (LRU_SPOOL_HEADER + 100);
	sp = open_ok(f);
	for (uint64_t s = 1; s <= 6; s++)
		append(sp, s, 1, 100);
	lru_spool_stats(sp, &st);
	assert_int_equal(st.records, 4);
	assert_int_equal(st.dropped_full, 2);
	assert_int_equal(f->notes[LRU_SPOOL_NOTE_DROPPED], 2);
	assert_non_null(strstr(f->last_note, "seq 2-2"));
	assert_int_equal(read_all(sp, seqs, 16), 4);
	assert_int_equal(seqs[0], 3);
	/* one record larger than the whole spool is refused, nothing dropped */
	assert_int_equal(lru_spool_append(sp, 7, 1, big, sizeof(big), &err), LRU_ERANGE);
	lru_spool_stats(sp, &st);
	assert_int_equal(st.records, 4);
	lru_spool_close(sp);
}

static void test_max_age_drops_old(void **state)
{
	struct fx *f = *state;
	struct lru_spool *sp;
	struct lru_spool_stats st;
	uint64_t seqs[16];
	int64_t now = lru_now_ms();

	f->opts.max_age_ms = 60000;
	sp = open_ok(f);
	append(sp, 1, now - 120000, 10);
	append(sp, 2, now - 90000, 10);
	append(sp, 3, now - 1000, 10);
	append(sp, 4, now, 10);
	lru_spool_stats(sp, &st);
	assert_int_equal(st.dropped_old, 2);
	assert_int_equal(read_all(sp, seqs, 16), 2);
	assert_int_equal(seqs[0], 3);
	assert_non_null(strstr(f->last_note, "older than 60 s"));
	lru_spool_close(sp);
}

static void test_segments_roll_and_go(void **state)
{
	struct fx *f = *state;
	struct lru_spool *sp;
	struct lru_spool_pos pos;
	struct lru_spool_rec rec;
	struct lru_spool_stats st;
	uint64_t seqs[64];

	f->opts.segment_bytes = 3 * (LRU_SPOOL_HEADER + 100);
	sp = open_ok(f);
	for (uint64_t s = 1; s <= 10; s++)
		append(sp, s, 1, 100);
	assert_int_equal(count_segments(f), 4);
	assert_int_equal(read_all(sp, seqs, 64), 10);
	/* acknowledge 7: the first two segments go */
	lru_spool_head(sp, &pos);
	for (int i = 0; i < 7; i++) {
		assert_int_equal(lru_spool_peek(sp, &pos, &rec, NULL), LRU_OK);
		pos = rec.next;
	}
	assert_int_equal(lru_spool_consume(sp, &pos, NULL), LRU_OK);
	assert_int_equal(count_segments(f), 2);
	lru_spool_stats(sp, &st);
	assert_int_equal(st.records, 3);
	lru_spool_close(sp);
	sp = open_ok(f);
	assert_int_equal(read_all(sp, seqs, 64), 3);
	assert_int_equal(seqs[0], 8);
	/* acknowledge everything: the tail segment stays for appends */
	lru_spool_head(sp, &pos);
	while (!lru_spool_peek(sp, &pos, &rec, NULL))
		pos = rec.next;
	assert_int_equal(lru_spool_consume(sp, &pos, NULL), LRU_OK);
	assert_int_equal(count_segments(f), 1);
	lru_spool_stats(sp, &st);
	assert_int_equal(st.records, 0);
	assert_int_equal(st.bytes, 0);
	lru_spool_close(sp);
}

/* consume everything; the spool's head afterwards */
static void consume_all(struct lru_spool *sp)
{
	struct lru_spool_pos pos;
	struct lru_spool_rec rec;

	lru_spool_head(sp, &pos);
	while (!lru_spool_peek(sp, &pos, &rec, NULL))
		pos = rec.next;
	assert_int_equal(lru_spool_consume(sp, &pos, NULL), LRU_OK);
}

/*
 * Once everything is acknowledged, a tail of 64 KiB or more is replaced by
 * an empty segment, so that its dead bytes go back to the disk; a smaller
 * one stays. The spool reopens and goes on appending either way.
 */
static void test_dead_tail_shed(void **state)
{
	struct fx *f = *state;
	struct lru_spool *sp;
	struct lru_spool_stats st;
	char first[4096];
	uint64_t seqs[64], s;

	sp = open_ok(f);
	for (s = 1; s <= 3; s++)
		append(sp, s, 1, 1000);
	snprintf(first, sizeof(first), "%s", seg_path(f, 0));
	consume_all(sp);
	assert_int_equal(count_segments(f), 1);
	assert_string_equal(seg_path(f, 0), first);
	assert_true(file_size(first) > 0);
	/* 3 + 70 records of 1 KiB: past 64 KiB of dead bytes once consumed */
	for (; s <= 73; s++)
		append(sp, s, 1, 1000);
	consume_all(sp);
	assert_int_equal(count_segments(f), 1);
	assert_string_not_equal(seg_path(f, 0), first);
	assert_int_equal(file_size(seg_path(f, 0)), 0);
	lru_spool_stats(sp, &st);
	assert_int_equal(st.records, 0);
	append(sp, s, 1, 100);
	lru_spool_close(sp);
	sp = open_ok(f);
	assert_int_equal(read_all(sp, seqs, 64), 1);
	assert_int_equal(seqs[0], 74);
	lru_spool_close(sp);
}

static void test_bad_head_and_lock(void **state)
{
	struct fx *f = *state;
	struct lru_spool *sp = open_ok(f), *second;
	struct lru_error err;
	uint64_t seqs[16];
	char head[4096];
	FILE *h;

	append(sp, 1, 1, 30);
	append(sp, 2, 1, 30);
	/* one process per spool */
	assert_int_equal(lru_spool_open(f->dir, &f->opts, &second, &err), LRU_EBUSY);
	assert_non_null(strstr(err.msg, "in use"));
	lru_spool_close(sp);

	/* a head inside record 1 resumes at record 2 */
	snprintf(head, sizeof(head), "%s/head", f->dir);
	h = fopen(head, "w");
	fprintf(h, "%016x 5\n", 1);
	fclose(h);
	sp = open_ok(f);
	assert_int_equal(read_all(sp, seqs, 16), 1);
	assert_int_equal(seqs[0], 2);
	lru_spool_close(sp);

	/* a lost head file replays from the start: duplicates, never losses */
	unlink(head);
	sp = open_ok(f);
	assert_int_equal(read_all(sp, seqs, 16), 2);
	lru_spool_close(sp);
}

static void test_unwritable_dir(void **state)
{
	struct fx *f = *state;
	struct lru_spool *sp;
	struct lru_error err;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/no/such/parent", f->dir);
	assert_int_not_equal(lru_spool_open(dir, &f->opts, &sp, &err), LRU_OK);
	assert_non_null(strstr(err.msg, "cannot create directory"));
}

/*
 * A record peeked, then dropped for max_bytes by an append before it is read
 * (the shipping thread meets the appending one): the read says LRU_ENOENT, and
 * consuming up to it changes nothing, since the head already passed it.
 */
static void test_dropped_between_peek_and_read(void **state)
{
	struct fx *f = *state;
	struct lru_spool *sp;
	struct lru_spool_stats st;
	struct lru_spool_pos pos;
	struct lru_spool_rec rec;
	uint64_t seqs[8];
	char buf[128];

	f->opts.max_bytes = 3 * (LRU_SPOOL_HEADER + 100);
	sp = open_ok(f);
	for (uint64_t s = 1; s <= 3; s++)
		append(sp, s, 1, 100);
	lru_spool_head(sp, &pos);
	assert_int_equal(lru_spool_peek(sp, &pos, &rec, NULL), LRU_OK);
	assert_int_equal(rec.seq, 1);
	append(sp, 4, 1, 100);
	append(sp, 5, 1, 100);
	assert_int_equal(lru_spool_read(sp, &rec, buf, NULL), LRU_ENOENT);
	assert_int_equal(lru_spool_consume(sp, &rec.next, NULL), LRU_OK);
	lru_spool_stats(sp, &st);
	assert_int_equal(st.records, 3);
	assert_int_equal(st.dropped_full, 2);
	assert_int_equal(read_all(sp, seqs, 8), 3);
	assert_int_equal(seqs[0], 3);
	lru_spool_close(sp);
}

#define THREAD_RECORDS 300

struct appender {
	struct lru_spool *sp;
	int failed;		/* read after the join */
};

/* Append THREAD_RECORDS records of varying size, as lrugend's ticks do. */
static void *append_thread(void *arg)
{
	struct appender *a = arg;
	char buf[600];

	for (uint64_t s = 1; s <= THREAD_RECORDS; s++) {
		size_t len = 50 + (size_t)(s * 37 % 500);

		payload(s, buf, len);
		if (lru_spool_append(a->sp, s, 1, buf, len, NULL))
			a->failed++;
	}
	return NULL;
}

/*
 * One thread appends while this one ships as lrugend's shipping thread does:
 * batches read from the head, then consumed. Without bounds every record is
 * read exactly once and in order; with max_bytes the appender drops records
 * the reader may be holding, and still none is read twice and the spool ends
 * empty and consistent.
 */
static void run_two_threads(struct fx *f, uint64_t max_bytes)
{
	static uint64_t got[THREAD_RECORDS * 2];
	struct appender a = { 0 };
	struct lru_spool_stats st;
	pthread_t t;
	size_t n = 0;
	bool done = false;

	f->opts.max_bytes = max_bytes;
	f->opts.segment_bytes = 4096;
	a.sp = open_ok(f);
	assert_int_equal(pthread_create(&t, NULL, append_thread, &a), 0);
	while (!done) {
		struct lru_spool_pos pos, end;
		struct lru_spool_rec rec;
		size_t batch = 0;
		char buf[600], want[600];

		done = n && got[n - 1] == THREAD_RECORDS;
		lru_spool_head(a.sp, &pos);
		end = pos;
		while (batch < 7 && !lru_spool_peek(a.sp, &pos, &rec, NULL)) {
			enum lru_err rc = lru_spool_read(a.sp, &rec, buf, NULL);

			if (rc == LRU_ENOENT)
				break;
			assert_int_equal(rc, LRU_OK);
			payload(rec.seq, want, rec.len);
			assert_memory_equal(buf, want, rec.len);
			assert_true(n < THREAD_RECORDS * 2);
			got[n++] = rec.seq;
			batch++;
			pos = end = rec.next;
		}
		assert_int_equal(lru_spool_consume(a.sp, &end, NULL), LRU_OK);
		if (!batch && !done)
			usleep(100);
	}
	pthread_join(t, NULL);
	assert_int_equal(a.failed, 0);
	for (size_t i = 1; i < n; i++)
		if (got[i] <= got[i - 1])
			fail_msg("read seq %" PRIu64 " after %" PRIu64, got[i], got[i - 1]);
	lru_spool_stats(a.sp, &st);
	assert_int_equal(st.records, 0);
	assert_int_equal(st.bytes, 0);
	if (!max_bytes)
		assert_int_equal(n, THREAD_RECORDS);
	else
		assert_true(n + st.dropped_full >= THREAD_RECORDS);
	lru_spool_close(a.sp);
	/* what is on disk agrees: nothing left after a reopen */
	a.sp = open_ok(f);
	lru_spool_stats(a.sp, &st);
	assert_int_equal(st.records, 0);
	assert_int_equal(st.torn, 0);
	lru_spool_close(a.sp);
}

static void test_two_threads(void **state)
{
	run_two_threads(*state, 0);
}

static void test_two_threads_bounded(void **state)
{
	run_two_threads(*state, 3 * (LRU_SPOOL_HEADER + 550));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_seq_survives_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seq_recovered_from_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_read_consume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_tail_every_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_and_corruption_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corruption_after_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_bytes_drops_oldest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_age_drops_old, setup, teardown),
		cmocka_unit_test_setup_teardown(test_segments_roll_and_go, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_tail_shed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_head_and_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unwritable_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropped_between_peek_and_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_threads_bounded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
