#include "testutil.h"

#include <string.h>

#include "lru_err.h"

static void test_strerror_covers_every_code(void **state)
{
	int c;

	(void)state;
	for (c = 0; c < LRU_ERR_COUNT; c++) {
		assert_non_null(lru_strerror((enum lru_err)c));
		assert_string_not_equal(lru_strerror((enum lru_err)c), "unknown error");
	}
	assert_string_equal(lru_strerror(LRU_ERR_COUNT), "unknown error");
	assert_string_equal(lru_strerror((enum lru_err)-1), "unknown error");
}

static void test_fail_formats_and_returns_code(void **state)
{
	struct lru_error err;

	(void)state;
	lru_error_clear(&err);
	assert_int_equal(lru_fail(&err, LRU_EINVAL, "node %d of '%s'", 3, "/jobs"), LRU_EINVAL);
	assert_int_equal(err.code, LRU_EINVAL);
	assert_string_equal(err.msg, "node 3 of '/jobs'");
	assert_int_equal(lru_fail(NULL, LRU_EIO, "ignored"), LRU_EIO);
	lru_error_clear(&err);
	assert_int_equal(err.code, LRU_OK);
	assert_string_equal(err.msg, "");
}

static void test_fail_truncates_long_messages(void **state)
{
	struct lru_error err;
	char big[1000];

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	lru_fail(&err, LRU_EPARSE, "%s", big);
	assert_int_equal(strlen(err.msg), LRU_ERRMSG_MAX - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strerror_covers_every_code),
		cmocka_unit_test(test_fail_formats_and_returns_code),
		cmocka_unit_test(test_fail_truncates_long_messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
