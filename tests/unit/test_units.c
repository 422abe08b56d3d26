#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lru_units.h"

static void test_durations(void **state)
{
	static const struct {
		const char *s;
		uint64_t ms;
	} ok[] = {
		{ "500ms", 500 }, { "30", 30000 }, { "30s", 30000 }, { "2m", 120000 },
		{ "1.5m", 90000 }, { "1h", 3600000 }, { "7d", 604800000 }, { "1w", 604800000 },
		{ "2M", 120000 }, { "10min", 600000 }, { "0", 0 },
	};
	static const char *const bad[] = { "", "m", "-1s", "2x", "2m3", "1e3", "s2", " 2m" };
	struct lru_error err;
	uint64_t ms;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(lru_parse_duration_ms(ok[i].s, &ms, &err), LRU_OK);
		assert_int_equal(ms, ok[i].ms);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (lru_parse_duration_ms(bad[i], &ms, &err) == LRU_OK)
			fail_msg("duration '%s' was accepted", bad[i]);
	assert_int_equal(lru_parse_duration_ms("99999999999999999999d", &ms, &err), LRU_ERANGE);
	assert_int_equal(lru_parse_duration_ms("2q", &ms, &err), LRU_EINVAL);
	assert_string_equal(err.msg, "duration '2q' has an unknown unit 'q'");
}

static void test_sizes(void **state)
{
	static const struct {
		const char *s;
		uint64_t b;
	} ok[] = {
		{ "4096", 4096 }, { "4K", 4096 }, { "4k", 4096 }, { "512M", 512ULL << 20 },
		{ "4G", 4ULL << 30 }, { "4GiB", 4ULL << 30 }, { "1.5G", 3ULL << 29 },
		{ "2T", 2ULL << 40 }, { "0", 0 },
	};
	struct lru_error err;
	uint64_t b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(lru_parse_size(ok[i].s, &b, &err), LRU_OK);
		assert_int_equal(b, ok[i].b);
	}
	assert_int_equal(lru_parse_size("4X", &b, &err), LRU_EINVAL);
	assert_int_equal(lru_parse_size("-4G", &b, &err), LRU_EINVAL);
	assert_int_equal(lru_parse_size("99999999999T", &b, &err), LRU_ERANGE);
}

static void test_formatting(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(lru_fmt_bytes(512, buf, sizeof(buf)), "512 B");
	assert_string_equal(lru_fmt_bytes(4096, buf, sizeof(buf)), "4.0 KiB");
	assert_string_equal(lru_fmt_bytes(9728ULL * 4096, buf, sizeof(buf)), "38.0 MiB");
	assert_string_equal(lru_fmt_bytes(3ULL << 29, buf, sizeof(buf)), "1.5 GiB");
	assert_string_equal(lru_fmt_duration(850, buf, sizeof(buf)), "850ms");
	assert_string_equal(lru_fmt_duration(9336, buf, sizeof(buf)), "9.3s");
	assert_string_equal(lru_fmt_duration(120000, buf, sizeof(buf)), "2m00s");
	assert_string_equal(lru_fmt_duration(3900000, buf, sizeof(buf)), "1h05m");
	assert_string_equal(lru_fmt_duration(273600000, buf, sizeof(buf)), "3d04h");
	assert_string_equal(lru_fmt_duration(7 * 86400000ull, buf, sizeof(buf)), "7d");
	assert_string_equal(lru_fmt_duration(7 * 86400000ull + 3599999, buf, sizeof(buf)), "7d");
	assert_string_equal(lru_fmt_duration(7 * 86400000ull + 3600000, buf, sizeof(buf)), "7d01h");
}

/* the exact form reads back as the same duration, and is the shortest */
static void test_exact_durations(void **state)
{
	static const struct {
		uint64_t ms;
		const char *s;
	} cases[] = {
		{ 0, "0" }, { 250, "250ms" }, { 1500, "1500ms" }, { 30000, "30s" }, { 90000, "90s" },
		{ 120000, "2m" }, { 3600000, "1h" }, { 86400000, "1d" }, { 604800000, "7d" },
		{ 125000, "125s" },
	};
	struct lru_error err;
	char buf[32];
	uint64_t ms;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(lru_fmt_duration_exact(cases[i].ms, buf, sizeof(buf)), cases[i].s);
		assert_int_equal(lru_parse_duration_ms(buf, &ms, &err), LRU_OK);
		assert_int_equal(ms, cases[i].ms);
	}
}

static void test_clock(void **state)
{
	char buf[32];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	/* 2026-01-02 03:04:05.678 UTC */
	assert_string_equal(lru_fmt_clock(1767323045678LL, buf, sizeof(buf)), "03:04:05.678");
	assert_string_equal(lru_fmt_clock(0, buf, sizeof(buf)), "00:00:00.000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_formatting),
		cmocka_unit_test(test_exact_durations),
		cmocka_unit_test(test_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
