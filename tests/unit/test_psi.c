#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "lru_psi.h"

static void test_parse_memory(void **state)
{
	struct lru_psi psi;
	struct lru_error err;

	(void)state;
	assert_int_equal(lru_psi_parse("some avg10=12.50 avg60=3.00 avg300=0.10 total=123456\n"
				       "full avg10=1.25 avg60=0.00 avg300=0.00 total=42\n",
				       &psi, &err),
			 LRU_OK);
	assert_true(psi.some.avg10 > 12.49 && psi.some.avg10 < 12.51);
	assert_true(psi.some.avg300 > 0.09 && psi.some.avg300 < 0.11);
	assert_int_equal(psi.some.total_us, 123456);
	assert_true(psi.has_full);
	assert_true(psi.full.avg10 > 1.24 && psi.full.avg10 < 1.26);
	assert_int_equal(psi.full.total_us, 42);
}

static void test_parse_cpu_without_full(void **state)
{
	struct lru_psi psi;

	(void)state;
	assert_int_equal(lru_psi_parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=0", &psi, NULL),
			 LRU_OK);
	assert_false(psi.has_full);
}

static void test_parse_errors(void **state)
{
	static const char *const bad[] = {
		"",
		"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
		"some avg10=x avg60=0.00 avg300=0.00 total=0\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1 extra\n",
		"some avg10=101.00 avg60=0.00 avg300=0.00 total=1\n",
		"some avg10=-1.00 avg60=0.00 avg300=0.00 total=1\n",
	};
	struct lru_psi psi;
	struct lru_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		lru_error_clear(&err);
		assert_int_equal(lru_psi_parse(bad[i], &psi, &err), LRU_EPARSE);
		assert_true(err.msg[0]);
	}
}

static void test_read_rooted(void **state)
{
	char *root = tu_mkdtemp();
	struct lru_psi psi;
	struct lru_error err;

	(void)state;
	assert_int_equal(lru_psi_read(root, LRU_PATH_PSI_IO, &psi, &err), LRU_ENOENT);
	tu_write(root, "proc/pressure/io", "some avg10=30.00 avg60=0.00 avg300=0.00 total=9\n");
	assert_int_equal(lru_psi_read(root, LRU_PATH_PSI_IO, &psi, &err), LRU_OK);
	assert_true(psi.some.avg10 > 29.9);
	tu_write(root, "proc/pressure/memory", "some avg10=oops\n");
	assert_int_equal(lru_psi_read(root, LRU_PATH_PSI_MEMORY, &psi, &err), LRU_EPARSE);
	assert_non_null(strstr(err.msg, "/proc/pressure/memory: malformed PSI line"));
	tu_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_memory),
		cmocka_unit_test(test_parse_cpu_without_full),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_read_rooted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
