#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lru_kwrite.h"

static int setup(void **state)
{
	char *root = tu_mkdtemp();

	tu_write(root, "sys/kernel/debug/lru_gen_full", "");
	*state = root;
	return 0;
}

static int teardown(void **state)
{
	tu_rmtree(*state);
	free(*state);
	return 0;
}

static void lru_gen_path(const char *root, char *buf, size_t size)
{
	snprintf(buf, size, "%s/sys/kernel/debug/lru_gen", root);
}

static void test_regular_file_refused(void **state)
{
	struct lru_kwriter w;
	struct lru_error err;

	tu_write(*state, "sys/kernel/debug/lru_gen", "memcg 1 /\n");
	assert_int_equal(lru_kwrite_open(&w, *state, &err), LRU_ENOTSUP);
	assert_non_null(strstr(err.msg, "regular file"));
	assert_int_equal(w.fd, -1);
	lru_kwrite_close(&w);
}

static void test_missing_file(void **state)
{
	struct lru_kwriter w;
	struct lru_error err;

	assert_int_equal(lru_kwrite_open(&w, *state, &err), LRU_ENOENT);
	assert_non_null(strstr(err.msg, "debugfs"));
}

/* A FIFO stands in for the kernel file: one command per write, in order. */
static void test_fifo_gets_one_command_per_write(void **state)
{
	struct lru_kwriter w;
	struct lru_error err;
	struct lru_cmd age = { '+', 3, 1, 6, 1, 1, false }, evict = { '-', 3, 1, 4, 0, 256, false };
	char path[4096], buf[256];
	ssize_t n;
	int rd, kerr = -1;

	lru_gen_path(*state, path, sizeof(path));
	assert_int_equal(mkfifo(path, 0600), 0);
	/* no reader: refused at once, never blocks */
	assert_int_equal(lru_kwrite_open(&w, *state, &err), LRU_EIO);
	assert_non_null(strstr(err.msg, "no reader"));
	rd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(lru_kwrite_open(&w, *state, &err), LRU_OK);
	assert_int_equal(lru_kwrite_cmd(&w, &age, &kerr, &err), LRU_OK);
	assert_int_equal(kerr, 0);
	assert_int_equal(lru_kwrite_cmd(&w, &evict, NULL, &err), LRU_OK);
	lru_kwrite_close(&w);
	n = read(rd, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "+ 3 1 6 1 1\n- 3 1 4 0 256\n");
	close(rd);
}

/* /dev/full fails every write with ENOSPC: the error names the command. */
static void test_write_error_names_command(void **state)
{
	struct lru_kwriter w;
	struct lru_error err;
	struct lru_cmd age = { '+', 7, 0, 9, 1, 1, false };
	char path[4096];
	int kerr = 0;

	lru_gen_path(*state, path, sizeof(path));
	if (symlink("/dev/full", path))
		skip();
	assert_int_equal(lru_kwrite_open(&w, *state, &err), LRU_OK);
	assert_int_equal(lru_kwrite_cmd(&w, &age, &kerr, &err), LRU_EIO);
	assert_int_equal(kerr, ENOSPC);
	assert_non_null(strstr(err.msg, "refused '+ 7 0 9 1 1'"));
	lru_kwrite_close(&w);
	lru_kwrite_close(&w);
}

/* memory.lru_gen's errnos (the kernel series' contract) and debugfs's, as lru_err. */
static void test_errno_mapping(void **state)
{
	static const struct {
		bool cgroup;
		int e;
		enum lru_err code;
		const char *why;
	} cases[] = {
		{ true, EBUSY, LRU_EBUSY, "memcg is at or below memory.min; nothing to evict" },
		{ true, ESTALE, LRU_ESTALE, "stale sequence number" },
		{ true, EOPNOTSUPP, LRU_ENOTSUP, "MGLRU is off" },
		{ true, EACCES, LRU_EACCES, "not the owner of this cgroup" },
		{ true, EPERM, LRU_EACCES, "not the owner of this cgroup" },
		{ true, EINVAL, LRU_EINVAL, "two youngest generations" },
		{ true, ENODEV, LRU_ENOENT, "the cgroup was removed" },
		{ false, EINVAL, LRU_EINVAL, "unknown memcg or node" },
		{ false, EEXIST, LRU_EBUSY, "another aging of this lruvec is in progress" },
		{ true, EEXIST, LRU_EBUSY, "another aging of this lruvec is in progress" },
		{ false, EPERM, LRU_EACCES, "kernel lockdown" },
		{ false, ERANGE, LRU_ERANGE, "force_scan needed" },
	};
	const char *why;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(lru_kwrite_errno(cases[i].cgroup, cases[i].e, &why), cases[i].code);
		if (!strstr(why, cases[i].why))
			fail_msg("errno %d (cgroup %d): '%s' lacks '%s'", cases[i].e, cases[i].cgroup,
				 why, cases[i].why);
	}
}

/* EINVAL to an eviction with swappiness 'max' says the kernel does not take the word. */
static void test_errno_of_max_swappiness(void **state)
{
	struct lru_cmd max = { '-', 3, 1, 4, LRU_SWAPPINESS_MAX, -1, false };
	struct lru_cmd num = { '-', 3, 1, 4, 200, -1, false };
	const char *why;

	(void)state;
	assert_int_equal(lru_kwrite_cmd_errno(false, &max, EINVAL, &why), LRU_EINVAL);
	assert_non_null(strstr(why, "this kernel does not accept swappiness 'max'"));
	assert_non_null(strstr(why, "Linux 6.16 and later do"));
	max.cgroup = true;
	assert_int_equal(lru_kwrite_cmd_errno(true, &max, EINVAL, &why), LRU_EINVAL);
	assert_non_null(strstr(why, "memory.lru_gen does not accept swappiness 'max'"));
	/* other errnos, other swappiness values and no command keep their meaning */
	assert_int_equal(lru_kwrite_cmd_errno(true, &max, EBUSY, &why), LRU_EBUSY);
	assert_non_null(strstr(why, "memory.min"));
	assert_int_equal(lru_kwrite_cmd_errno(false, &num, EINVAL, &why), LRU_EINVAL);
	assert_non_null(strstr(why, "unknown memcg or node"));
	assert_int_equal(lru_kwrite_cmd_errno(false, NULL, EINVAL, &why), LRU_EINVAL);
	assert_null(strstr(why, "'max'"));
}

/*
 * A snapshot as read through memory.lru_gen: the root memcg from debugfs (id 1),
 * /jobs/web from its own file (id unknown). FIFOs stand in for both files.
 */
static void test_commands_go_to_their_file(void **state)
{
	struct lru_snapshot s;
	struct lru_kwriter w;
	struct lru_error err;
	struct lru_cmd cmd;
	size_t m, lv;
	char dbg[4096], cg[4096], buf[256];
	int rd_dbg, rd_cg;
	ssize_t n;

	lru_snapshot_init(&s);
	s.source = LRU_SRC_CGROUP;
	assert_int_equal(lru_snapshot_add_memcg(&s, 1, "/", 1, &m, NULL), LRU_OK);
	assert_int_equal(lru_snapshot_add_lruvec(&s, m, 0, &lv, NULL), LRU_OK);
	s.lruvecs[lv].nr_gens = 2;
	s.lruvecs[lv].gens[0].seq = 5;
	s.lruvecs[lv].gens[1].seq = 6;
	assert_int_equal(lru_snapshot_add_memcg(&s, 0, "/jobs/web", 9, &m, NULL), LRU_OK);
	assert_int_equal(lru_snapshot_add_lruvec(&s, m, 1, &lv, NULL), LRU_OK);
	s.lruvecs[lv].nr_gens = 2;
	s.lruvecs[lv].gens[0].seq = 6;
	s.lruvecs[lv].gens[1].seq = 7;

	lru_gen_path(*state, dbg, sizeof(dbg));
	assert_int_equal(mkfifo(dbg, 0600), 0);
	tu_write(*state, "sys/fs/cgroup/jobs/web/cgroup.procs", "");
	snprintf(cg, sizeof(cg), "%s/sys/fs/cgroup/jobs/web/memory.lru_gen", (char *)*state);
	assert_int_equal(mkfifo(cg, 0600), 0);
	rd_dbg = open(dbg, O_RDONLY | O_NONBLOCK);
	rd_cg = open(cg, O_RDONLY | O_NONBLOCK);
	assert_true(rd_dbg >= 0 && rd_cg >= 0);

	lru_kwrite_init(&w);
	for (size_t i = 0; i < 2; i++) {	/* twice: the second keeps the open file */
		assert_int_equal(lru_kwrite_open_lruvec(&w, *state, &s, &s.lruvecs[1], &err), LRU_OK);
		assert_true(w.cgroup);
		assert_string_equal(w.path, cg);
		assert_int_equal(lru_cmd_age(&s, &s.lruvecs[1], 1, 1, &cmd, &err), LRU_OK);
		assert_int_equal(lru_kwrite_cmd(&w, &cmd, NULL, &err), LRU_OK);
	}
	/* lru_kwrite_lruvec: open and write in one step, from the cgroup file to debugfs */
	assert_int_equal(lru_cmd_age(&s, &s.lruvecs[0], 1, 1, &cmd, &err), LRU_OK);
	assert_int_equal(lru_kwrite_lruvec(&w, *state, &s, &s.lruvecs[0], &cmd, &err), LRU_OK);
	assert_false(w.cgroup);
	assert_string_equal(w.path, dbg);
	/* lv NULL: debugfs lru_gen, here already open */
	assert_int_equal(lru_kwrite_lruvec(&w, *state, &s, NULL, &cmd, &err), LRU_OK);
	/* a memory.lru_gen command never goes to debugfs */
	cmd.cgroup = true;
	assert_int_equal(lru_kwrite_cmd(&w, &cmd, NULL, &err), LRU_EINVAL);
	lru_kwrite_close(&w);

	n = read(rd_cg, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "+ N1 7 1 1\n+ N1 7 1 1\n");
	n = read(rd_dbg, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "+ 1 0 6 1 1\n+ 1 0 6 1 1\n");
	close(rd_cg);
	close(rd_dbg);

	/* a fixture's regular memory.lru_gen is refused, naming cgroupfs */
	unlink(cg);
	tu_write(*state, "sys/fs/cgroup/jobs/web/memory.lru_gen", "N1 seq=6 ...\n");
	assert_int_equal(lru_kwrite_open_lruvec(&w, *state, &s, &s.lruvecs[1], &err), LRU_ENOTSUP);
	assert_non_null(strstr(err.msg, "is a regular file, not on cgroupfs"));
	assert_true(lru_kwrite_host_failure(err.code));
	assert_false(lru_kwrite_host_failure(LRU_EINVAL));
	assert_false(lru_kwrite_host_failure(LRU_EBUSY));
	lru_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_regular_file_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_gets_one_command_per_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_error_names_command, setup, teardown),
		cmocka_unit_test(test_errno_mapping),
		cmocka_unit_test(test_errno_of_max_swappiness),
		cmocka_unit_test_setup_teardown(test_commands_go_to_their_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
