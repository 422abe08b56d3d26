/* test_sat.c - lru_sat.h: exact when the result fits, the nearest bound when not. */
#include <stdint.h>

#include "lru_sat.h"
#include "testutil.h"

static void test_unsigned(void **state)
{
	(void)state;
	assert_true(lru_sat_add_u64(2, 3) == 5);
	assert_true(lru_sat_add_u64(UINT64_MAX - 1, 1) == UINT64_MAX);
	assert_true(lru_sat_add_u64(UINT64_MAX, 1) == UINT64_MAX);
	assert_true(lru_sat_add_u64(UINT64_MAX, UINT64_MAX) == UINT64_MAX);
	assert_true(lru_sat_mul_u64(1ULL << 32, (1ULL << 32) - 1) == (1ULL << 32) * ((1ULL << 32) - 1));
	assert_true(lru_sat_mul_u64(1ULL << 32, 1ULL << 32) == UINT64_MAX);
	assert_true(lru_sat_mul_u64(UINT64_MAX, 0) == 0);
	assert_true(lru_sat_sub_u64(5, 3) == 2);
	assert_true(lru_sat_sub_u64(3, 5) == 0);
}

static void test_signed(void **state)
{
	(void)state;
	assert_true(lru_sat_add_i64(-2, 3) == 1);
	assert_true(lru_sat_add_i64(INT64_MAX, 1) == INT64_MAX);
	assert_true(lru_sat_add_i64(INT64_MIN, -1) == INT64_MIN);
	assert_true(lru_sat_add_i64(INT64_MIN, INT64_MAX) == -1);
	assert_true(lru_sat_sub_i64(INT64_MIN, 600000) == INT64_MIN);
	assert_true(lru_sat_sub_i64(INT64_MAX, -1) == INT64_MAX);
	assert_true(lru_sat_sub_i64(0, INT64_MIN) == INT64_MAX);
	assert_true(lru_sat_sub_i64(-1, INT64_MIN) == INT64_MAX);
	assert_true(lru_sat_sub_i64(1700000000000, 60000) == 1699999940000);
	assert_true(lru_sat_i64(UINT64_MAX) == INT64_MAX);
	assert_true(lru_sat_i64(42) == 42);
}

static void test_midpoint(void **state)
{
	(void)state;
	assert_true(lru_sat_mid_i64(10, 20) == 15);
	assert_true(lru_sat_mid_i64(10, 13) == 11);
	assert_true(lru_sat_mid_i64(-13, -10) == -12);
	assert_true(lru_sat_mid_i64(INT64_MIN, INT64_MAX) == -1);
	assert_true(lru_sat_mid_i64(INT64_MAX - 1, INT64_MAX) == INT64_MAX - 1);
	assert_true(lru_sat_mid_i64(INT64_MIN, INT64_MIN) == INT64_MIN);
	assert_true(lru_sat_mid_i64(INT64_MAX, INT64_MIN) == INT64_MAX);	/* end before start */
}

/* A wrapped difference gives back the very value for any pair. */
static void test_wrap(void **state)
{
	static const int64_t v[] = { INT64_MIN, INT64_MIN + 1, -1, 0, 1, 1700000000000,
				     INT64_MAX - 1, INT64_MAX };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++)
			assert_true(lru_wrap_add_i64(v[i], lru_wrap_sub_i64(v[j], v[i])) == v[j]);
	assert_true(lru_wrap_sub_i64(5, 7) == -2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unsigned),
		cmocka_unit_test(test_signed),
		cmocka_unit_test(test_midpoint),
		cmocka_unit_test(test_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
