/* test_suggest.c - lru_suggest.h: typos of a command name find it, other words find nothing. */
#include <stdlib.h>

#include "lru_suggest.h"
#include "testutil.h"

static const char *const cmds[] = { "show", "wss", "age", "evict", "doctor", "enable", "cmd", "fleet" };
#define N (sizeof(cmds) / sizeof(cmds[0]))

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(lru_suggest_distance("show", "show"), 0);
	assert_int_equal(lru_suggest_distance("shw", "show"), 1);	/* deletion */
	assert_int_equal(lru_suggest_distance("shoow", "show"), 1);	/* insertion */
	assert_int_equal(lru_suggest_distance("shiw", "show"), 1);	/* substitution */
	assert_int_equal(lru_suggest_distance("sohw", "show"), 1);	/* a swap */
	assert_int_equal(lru_suggest_distance("SHOW", "show"), 0);	/* case-blind */
	assert_int_equal(lru_suggest_distance("", "show"), 4);
	assert_int_equal(lru_suggest_distance("kitten", "sitting"), 3);
}

static void test_suggest(void **state)
{
	(void)state;
	assert_string_equal(lru_suggest("shw", cmds, N), "show");
	assert_string_equal(lru_suggest("evcit", cmds, N), "evict");
	assert_string_equal(lru_suggest("docter", cmds, N), "doctor");
	assert_string_equal(lru_suggest("fleat", cmds, N), "fleet");
	assert_string_equal(lru_suggest("ws", cmds, N), "wss");
	assert_string_equal(lru_suggest("doc", cmds, N), "doctor");	/* a prefix */
	assert_null(lru_suggest("frobnicate", cmds, N));
	assert_null(lru_suggest("x", cmds, N));
	assert_null(lru_suggest("", cmds, N));
	assert_null(lru_suggest("abc", cmds, N));
	/* the nearest: one edit from age, two from cmd */
	assert_string_equal(lru_suggest("cge", cmds, N), "age");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_suggest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
