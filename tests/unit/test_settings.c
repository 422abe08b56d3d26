#include "testutil.h"

#include <stddef.h>
#include <string.h>

#include "lru_settings.h"

/* a config of every type, and its table */
struct demo {
	bool flag;
	int64_t count;
	uint64_t wait_ms, size, older_ms;
	double pct;
	char *name;
	struct lru_set_list globs;
	struct lru_set_ms_list buckets;
	int mode;
};

static const char *const modes[] = { "off", "on", "auto", NULL };
static const char *const words[] = { "advised", "never", NULL };

#define F(f) offsetof(struct demo, f)
static const struct lru_set_def defs[] = {
	{ "general", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "flag", LRU_SET_BOOL, F(flag), "true", 0, 0, NULL, "a flag", NULL },
	{ "count", LRU_SET_INT, F(count), "4", -1, 64, "N", "a count", NULL },
	{ "wait_ms", LRU_SET_DURATION, F(wait_ms), "2m", 1000, 86400000, "DUR", "a wait", NULL },
	{ "max-size", LRU_SET_SIZE, F(size), "16M", 4096, 1LL << 30, "SIZE", "a size", NULL },
	{ "pct", LRU_SET_PERCENT, F(pct), "10", 0, 100, "PERCENT", "a share", NULL },
	{ "name", LRU_SET_STRING, F(name), "", 0, 0, "NAME", "a name", NULL },
	{ "globs", LRU_SET_LIST, F(globs), "/a/*, /b", 0, 0, "GLOB", "globs", NULL },
	{ "buckets", LRU_SET_DURATIONS, F(buckets), "1m,1h", 1, 86400000, "DUR,...", "ages", NULL },
	{ "mode", LRU_SET_ENUM, F(mode), "auto", 0, 0, "MODE", "a mode", modes },
	{ "older", LRU_SET_DURATION, F(older_ms), "10m", 1000, 86400000, "DUR|advised", "T", words },
};
#define NR (sizeof(defs) / sizeof(defs[0]))

static const struct lru_set_def *def(const char *name)
{
	const struct lru_set_def *d = lru_set_find(defs, NR, name, strlen(name));

	assert_non_null(d);
	return d;
}

static void test_defaults_and_format(void **state)
{
	static const char *const want[][2] = {
		{ "flag", "true" }, { "count", "4" }, { "wait_ms", "2m" }, { "max-size", "16M" },
		{ "pct", "10" }, { "name", "" }, { "globs", "/a/*,/b" }, { "buckets", "1m,1h" },
		{ "mode", "auto" },
	};
	struct demo c;
	struct lru_error err;
	char buf[128];

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(lru_set_defaults(&c, defs, NR, &err), LRU_OK);
	assert_true(c.flag);
	assert_int_equal(c.wait_ms, 120000);
	assert_int_equal(c.size, 16 << 20);
	assert_int_equal(c.globs.n, 2);
	assert_string_equal(c.globs.v[0], "/a/*");
	assert_int_equal(c.mode, 2);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(lru_set_format(&c, def(want[i][0]), buf, sizeof(buf)), want[i][1]);
	lru_set_release(&c, defs, NR);
	assert_null(c.name);
	assert_null(c.globs.v);
	assert_int_equal(c.buckets.n, 0);
}

static void test_find(void **state)
{
	(void)state;
	assert_ptr_equal(lru_set_find(defs, NR, "wait-ms", 7), &defs[3]);
	assert_ptr_equal(lru_set_find(defs, NR, "max_size", 8), &defs[4]);
	/* a prefix, a longer name and a section are not settings */
	assert_null(lru_set_find(defs, NR, "wait", 4));
	assert_null(lru_set_find(defs, NR, "flags", 5));
	assert_null(lru_set_find(defs, NR, "general", 7));
	assert_true(lru_set_same_name("tls-cert", "tls_cert=x", 8));
	assert_false(lru_set_same_name("tls-cert", "tls.cert", 8));
}

static void test_errors(void **state)
{
	static const struct {
		const char *name, *value;
		enum lru_err code;
		const char *msg;
	} bad[] = {
		{ "flag", "maybe", LRU_EINVAL, "not true or false" },
		{ "count", "4x", LRU_EINVAL, "not a whole number" },
		{ "count", "65", LRU_ERANGE, "out of range (-1 to 64)" },
		{ "wait_ms", "500ms", LRU_ERANGE, "out of range (1s to 1d)" },
		{ "max-size", "1K", LRU_ERANGE, "out of range (4K to 1G)" },
		{ "pct", "101", LRU_ERANGE, "out of range (0 to 100)" },
		{ "pct", "ten", LRU_EINVAL, "not a percentage" },
		{ "buckets", "1m,2d", LRU_ERANGE, "out of range (1ms to 1d)" },
		{ "mode", "sometimes", LRU_EINVAL, "not one of off, on, auto" },
	};
	struct demo c;
	struct lru_error err;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(lru_set_defaults(&c, defs, NR, &err), LRU_OK);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		lru_error_clear(&err);
		assert_int_equal(lru_set_value(&c, def(bad[i].name), bad[i].value, true, &err),
				 bad[i].code);
		assert_string_equal(err.msg, bad[i].msg);
	}
	lru_set_release(&c, defs, NR);
}

static void test_values_and_lists(void **state)
{
	struct demo c;
	struct lru_error err;
	char buf[128];

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(lru_set_defaults(&c, defs, NR, &err), LRU_OK);
	assert_int_equal(lru_set_value(&c, def("flag"), "OFF", true, &err), LRU_OK);
	assert_false(c.flag);
	assert_int_equal(lru_set_value(&c, def("pct"), "12.5%", true, &err), LRU_OK);
	assert_true(c.pct == 12.5);
	assert_int_equal(lru_set_value(&c, def("name"), "web", true, &err), LRU_OK);
	assert_int_equal(lru_set_value(&c, def("name"), "db", true, &err), LRU_OK);
	assert_string_equal(c.name, "db");
	assert_int_equal(lru_set_value(&c, def("mode"), "ON", true, &err), LRU_OK);
	assert_int_equal(c.mode, 1);
	assert_int_equal(lru_set_value(&c, def("wait_ms"), "1500ms", true, &err), LRU_OK);
	assert_string_equal(lru_set_format(&c, def("wait_ms"), buf, sizeof(buf)), "1500ms");
	/* a first occurrence replaces a list, later ones append, empty items are skipped */
	assert_int_equal(lru_set_value(&c, def("globs"), "/x", true, &err), LRU_OK);
	assert_int_equal(lru_set_value(&c, def("globs"), " /y ,, /z", false, &err), LRU_OK);
	assert_string_equal(lru_set_format(&c, def("globs"), buf, sizeof(buf)), "/x,/y,/z");
	assert_int_equal(lru_set_value(&c, def("globs"), "", true, &err), LRU_OK);
	assert_int_equal(c.globs.n, 0);
	/* a comma in a glob's brackets is part of the item */
	assert_int_equal(lru_set_value(&c, def("globs"), "/y[,]z,/a[!,]b,/c[],]d,/e[", true, &err),
			 LRU_OK);
	assert_int_equal(c.globs.n, 4);
	assert_string_equal(c.globs.v[0], "/y[,]z");
	assert_string_equal(c.globs.v[1], "/a[!,]b");
	assert_string_equal(c.globs.v[2], "/c[],]d");
	assert_string_equal(c.globs.v[3], "/e[");
	assert_string_equal(lru_set_format(&c, def("globs"), buf, sizeof(buf)), "/y[,]z,/a[!,]b,/c[],]d,/e[");
	assert_int_equal(lru_set_value(&c, def("buckets"), "30s", true, &err), LRU_OK);
	assert_int_equal(lru_set_value(&c, def("buckets"), "5m,1h", false, &err), LRU_OK);
	assert_string_equal(lru_set_format(&c, def("buckets"), buf, sizeof(buf)), "30s,5m,1h");
	lru_set_release(&c, defs, NR);
}

/* A duration that also takes words: each stored apart from every duration, formatted back. */
static void test_duration_words(void **state)
{
	struct demo c;
	struct lru_error err;
	char buf[64];

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(lru_set_defaults(&c, defs, NR, &err), LRU_OK);
	assert_int_equal(c.older_ms, 600000);
	assert_int_equal(lru_set_value(&c, def("older"), "ADVISED", true, &err), LRU_OK);
	assert_true(c.older_ms == LRU_SET_MS_WORD(0));
	assert_string_equal(lru_set_format(&c, def("older"), buf, sizeof(buf)), "advised");
	assert_int_equal(lru_set_value(&c, def("older"), "never", true, &err), LRU_OK);
	assert_true(c.older_ms == LRU_SET_MS_WORD(1));
	assert_string_equal(lru_set_format(&c, def("older"), buf, sizeof(buf)), "never");
	assert_int_equal(lru_set_value(&c, def("older"), "5m", true, &err), LRU_OK);
	assert_int_equal(c.older_ms, 300000);
	assert_string_equal(lru_set_format(&c, def("older"), buf, sizeof(buf)), "5m");
	/* other words and durations out of range are still refused */
	assert_int_not_equal(lru_set_value(&c, def("older"), "advise", true, &err), LRU_OK);
	assert_int_not_equal(lru_set_value(&c, def("older"), "2d", true, &err), LRU_OK);
	/* a duration without words takes none */
	assert_int_not_equal(lru_set_value(&c, def("wait_ms"), "advised", true, &err), LRU_OK);
	lru_set_release(&c, defs, NR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_format),
		cmocka_unit_test(test_duration_words),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_values_and_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
