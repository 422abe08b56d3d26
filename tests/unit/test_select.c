#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "lru_parse.h"
#include "lru_select.h"

/* root, /jobs, /jobs/web (pages), /jobs/empty (none), a dying memcg (id 0) */
static const char text[] =
	"memcg     1 /\n"
	" node     0\n"
	"          3       9000        10          0\n"
	"          4       1000         0          5\n"
	"memcg     2 /jobs\n"
	" node     0\n"
	"          3       9000         1          0\n"
	"memcg     3 /jobs/web\n"
	" node     0\n"
	"          3       9000       100         20\n"
	" node     1\n"
	"          3       9000         0         30\n"
	"memcg     4 /jobs/empty\n"
	" node     0\n"
	"          3       9000         0          0\n"
	" node     1\n"
	"          3       9000         0          0\n"
	"memcg     0 /jobs/dead\n"
	" node     0\n"
	"          3       9000        40          0\n"
	"memcg     5 /system.slice/a,b\n"
	" node     0\n"
	"          3       9000         7          0\n";

static void load(struct lru_snapshot *s)
{
	lru_snapshot_init(s);
	assert_int_equal(lru_parse_buf(s, text, strlen(text), NULL), LRU_OK);
}

static void test_defaults_drop_empty_and_dying(void **state)
{
	struct lru_select sel = { 0 };
	struct lru_snapshot s;
	size_t counts[LRU_SEL_NR];

	(void)state;
	load(&s);
	lru_select_apply(&sel, &s, counts);
	assert_int_equal(counts[LRU_SEL_KEEP], 4);
	assert_int_equal(counts[LRU_SEL_EMPTY], 1);
	assert_int_equal(counts[LRU_SEL_DYING], 1);
	assert_int_equal(counts[LRU_SEL_FILTERED], 0);
	assert_int_equal(s.nr_memcgs, 4);
	assert_int_equal(s.nr_lruvecs, 5);
	assert_null(lru_snapshot_find_memcg(&s, "/jobs/empty"));
	assert_null(lru_snapshot_find_memcg(&s, "/jobs/dead"));
	/* lruvecs still point at the right memcgs after compaction */
	assert_non_null(lru_snapshot_find(&s, "/jobs/web", 0, 1));
	assert_int_equal(lru_snapshot_find(&s, "/jobs/web", 0, 1)->gens[0].pages[LRU_FILE], 30);
	assert_int_equal(lru_snapshot_find(&s, "/system.slice/a,b", 0, 0)->gens[0].pages[LRU_ANON], 7);
	lru_snapshot_release(&s);
}

static void test_keep_flags(void **state)
{
	struct lru_select sel = { .keep_empty = true, .keep_dying = true };
	struct lru_snapshot s;
	size_t counts[LRU_SEL_NR];

	(void)state;
	load(&s);
	lru_select_apply(&sel, &s, counts);
	assert_int_equal(counts[LRU_SEL_KEEP], 6);
	assert_int_equal(s.nr_lruvecs, 8);
	lru_snapshot_release(&s);
}

static void test_include_exclude(void **state)
{
	char p1[] = "/jobs/*", p2[] = "/system.slice/a[,]b", p3[] = "*/web";
	char *inc[] = { p1, p2 }, *exc[] = { p3 };
	struct lru_select sel = { inc, 2, exc, 1, false, false };
	struct lru_snapshot s;
	size_t counts[LRU_SEL_NR];

	(void)state;
	assert_true(lru_select_path(&sel, "/jobs/a/b"));
	assert_false(lru_select_path(&sel, "/jobs"));
	assert_false(lru_select_path(&sel, "/jobs/web"));
	assert_true(lru_select_path(&sel, "/system.slice/a,b"));
	load(&s);
	lru_select_apply(&sel, &s, counts);
	/* /, /jobs, /jobs/web filtered; empty and dead dropped for their reasons */
	assert_int_equal(counts[LRU_SEL_FILTERED], 3);
	assert_int_equal(counts[LRU_SEL_EMPTY], 1);
	assert_int_equal(counts[LRU_SEL_DYING], 1);
	assert_int_equal(counts[LRU_SEL_KEEP], 1);
	assert_int_equal(s.nr_memcgs, 1);
	assert_string_equal(s.memcgs[0].path, "/system.slice/a,b");
	assert_int_equal(s.nr_lruvecs, 1);
	assert_int_equal(s.lruvecs[0].memcg, 0);
	lru_snapshot_release(&s);
}

static void test_memcg_reason(void **state)
{
	struct lru_select sel = { 0 };
	struct lru_snapshot s;

	(void)state;
	load(&s);
	assert_int_equal(lru_select_memcg(&sel, &s, 3), LRU_SEL_EMPTY);
	assert_int_equal(lru_select_memcg(&sel, &s, 4), LRU_SEL_DYING);
	assert_int_equal(lru_select_memcg(&sel, &s, 2), LRU_SEL_KEEP);
	lru_snapshot_release(&s);
}

/* empty memcgs above one with pages stay; look-alike prefixes do not */
static const char tree[] =
	"memcg     1 /\n"
	" node     0\n"
	"          3       9000         0          0\n"
	"memcg     2 /a\n"
	" node     0\n"
	"          3       9000         0          0\n"
	"memcg     3 /ab\n"
	" node     0\n"
	"          3       9000         0          0\n"
	"memcg     4 /a/bc\n"
	" node     0\n"
	"          3       9000         0          0\n"
	"memcg     5 /a/b\n"
	" node     0\n"
	"          3       9000         0          0\n"
	"memcg     6 /a/b/c\n"
	" node     0\n"
	"          3       9000         5          0\n"
	"memcg     7 /z\n"
	" node     0\n"
	"          3       9000         0          0\n";

static void test_empty_parents_stay(void **state)
{
	char inc[] = "/a/b/*";
	char *incs[] = { inc };
	struct lru_select sel = { 0 };
	struct lru_snapshot s;
	size_t counts[LRU_SEL_NR];

	(void)state;
	lru_snapshot_init(&s);
	assert_int_equal(lru_parse_buf(&s, tree, strlen(tree), NULL), LRU_OK);
	lru_select_apply(&sel, &s, counts);
	assert_int_equal(counts[LRU_SEL_KEEP], 4);
	assert_int_equal(counts[LRU_SEL_EMPTY], 3);
	assert_int_equal(s.nr_memcgs, 4);
	assert_string_equal(s.memcgs[0].path, "/");
	assert_string_equal(s.memcgs[1].path, "/a");
	assert_string_equal(s.memcgs[2].path, "/a/b");
	assert_string_equal(s.memcgs[3].path, "/a/b/c");
	assert_int_equal(s.nr_lruvecs, 4);
	assert_int_equal(s.lruvecs[3].memcg, 3);
	lru_snapshot_release(&s);

	/* a parent the patterns leave out stays out */
	sel.include = incs;
	sel.nr_include = 1;
	lru_snapshot_init(&s);
	assert_int_equal(lru_parse_buf(&s, tree, strlen(tree), NULL), LRU_OK);
	lru_select_apply(&sel, &s, counts);
	assert_int_equal(counts[LRU_SEL_KEEP], 1);
	assert_string_equal(s.memcgs[0].path, "/a/b/c");
	lru_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_drop_empty_and_dying),
		cmocka_unit_test(test_keep_flags),
		cmocka_unit_test(test_include_exclude),
		cmocka_unit_test(test_memcg_reason),
		cmocka_unit_test(test_empty_parents_stay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
