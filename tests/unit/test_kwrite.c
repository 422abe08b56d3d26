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
	struct lru_cmd age = { '+', 3, 1, 6, 1, 1 }, evict = { '-', 3, 1, 4, 0, 256 };
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
	struct lru_cmd age = { '+', 7, 0, 9, 1, 1 };
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_regular_file_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_gets_one_command_per_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_error_names_command, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
