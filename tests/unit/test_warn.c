#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_sys.h"
#include "lru_warn.h"

/*
 * A fixture root: the 7.3 capture (/jobs/web in huge pages, measured), its
 * memory.stat, and the other memcgs' memory.stat: /jobs/batch without huge
 * pages, /jobs with both children's, / with 2 MiB of its own.
 */
static int setup(void **state)
{
	char *root = tu_mkdtemp();
	char *text = tu_read("fixtures/linux-7.3/lru_gen.txt", NULL);
	char *web = tu_read("fixtures/linux-7.3/memory.stat-jobs-web.txt", NULL);

	tu_write(root, "sys/kernel/debug/lru_gen", text);
	tu_write(root, "sys/fs/cgroup/jobs/web/memory.stat", web);
	tu_write(root, "sys/fs/cgroup/jobs/batch/memory.stat", "anon 136314880\nanon_thp 0\n");
	tu_write(root, "sys/fs/cgroup/jobs/memory.stat", "anon 262193152\nanon_thp 123731968\n");
	tu_write(root, "sys/fs/cgroup/memory.stat", "anon 270000000\nanon_thp 125829120\n");
	free(text);
	free(web);
	*state = root;
	return 0;
}

static int teardown(void **state)
{
	tu_rmtree(*state);
	free(*state);
	return 0;
}

static void load(const char *root, struct lru_snapshot *s)
{
	struct lru_error err;

	lru_snapshot_init(s);
	assert_int_equal(lru_sys_read_snapshot(root, LRU_SRC_DEBUGFS, s, &err), LRU_OK);
}

static uint32_t warnings_of(const struct lru_snapshot *s, const char *path, int node)
{
	const struct lru_lruvec *lv = lru_snapshot_find(s, path, 0, node);

	assert_non_null(lv);
	return lv->warnings;
}

static void test_codes_round_trip(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(lru_warn_name(LRU_WARN_THP_UNAGED), "thp_unaged");
	assert_int_equal(lru_warn_bit("thp_unaged"), LRU_WARN_THP_UNAGED);
	assert_string_equal(lru_hostwarn_name(LRU_HOSTW_DAMON), "damon_active");
	assert_int_equal(lru_hostwarn_bit("damon_active"), LRU_HOSTW_DAMON);
	assert_int_equal(lru_warn_bit("no_such_code"), 0);
	assert_int_equal(lru_warn_bit(NULL), 0);
	assert_null(lru_warn_name(1u << 31));
	assert_non_null(lru_warn_help(LRU_WARN_THP_UNAGED));
	assert_string_equal(lru_warn_list(LRU_WARN_THP_UNAGED | (1u << 30), false, buf, sizeof(buf)),
			    "thp_unaged");
	assert_string_equal(lru_warn_list(0, false, buf, sizeof(buf)), "");
	/* too small: never overflows, never leaves a partial code */
	assert_string_equal(lru_warn_list(LRU_WARN_THP_UNAGED, false, buf, 4), "");
}

static void test_no_damon_no_warnings(void **state)
{
	struct lru_snapshot s;
	struct lru_damon d;

	load(*state, &s);
	lru_warn_read_apply(*state, &s, &d);
	assert_false(lru_damon_active(&d));
	assert_int_equal(s.host.warnings, 0);
	for (size_t i = 0; i < s.nr_lruvecs; i++)
		assert_int_equal(s.lruvecs[i].warnings, 0);
	lru_snapshot_release(&s);
}

static void test_damon_stat_warns_huge_page_memcgs(void **state)
{
	struct lru_snapshot s;
	struct lru_damon d;
	char buf[128];

	tu_write(*state, "sys/module/damon_stat/parameters/enabled", "Y\n");
	load(*state, &s);
	lru_warn_read_apply(*state, &s, &d);
	assert_true(d.stat);
	assert_string_equal(lru_damon_describe(&d, buf, sizeof(buf)), "damon_stat");
	assert_int_equal(s.host.warnings, LRU_HOSTW_DAMON);
	/* web has huge pages on every node it has lruvecs on; batch none */
	assert_int_equal(warnings_of(&s, "/jobs/web", 0), LRU_WARN_THP_UNAGED);
	assert_int_equal(warnings_of(&s, "/jobs/web", 1), LRU_WARN_THP_UNAGED);
	assert_int_equal(warnings_of(&s, "/jobs/batch", 0), 0);
	/* /jobs holds only its children's huge pages (memory.stat is hierarchical) */
	assert_int_equal(warnings_of(&s, "/jobs", 0), 0);
	/* / has 2 MiB of its own */
	assert_int_equal(warnings_of(&s, "/", 1), LRU_WARN_THP_UNAGED);
	assert_int_equal(lru_memcg_thp_bytes(lru_snapshot_find_memcg(&s, "/jobs/web")), 123731968);
	lru_snapshot_release(&s);
}

static void test_kdamonds_and_modules(void **state)
{
	struct lru_damon d;
	char buf[128];

	tu_write(*state, "sys/module/damon_reclaim/parameters/enabled", "Y\n");
	tu_write(*state, "sys/module/damon_lru_sort/parameters/enabled", "N\n");
	tu_write(*state, "sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "3\n");
	tu_write(*state, "sys/kernel/mm/damon/admin/kdamonds/0/state", "on\n");
	tu_write(*state, "sys/kernel/mm/damon/admin/kdamonds/1/state", "off\n");
	tu_write(*state, "sys/kernel/mm/damon/admin/kdamonds/2/state", "on\n");
	lru_damon_read(*state, &d);
	assert_false(d.stat);
	assert_true(d.reclaim);
	assert_false(d.lru_sort);
	assert_int_equal(d.kdamonds, 2);
	assert_true(lru_damon_active(&d));
	assert_string_equal(lru_damon_describe(&d, buf, sizeof(buf)),
			    "damon_reclaim, 2 kdamonds (sysfs)");
}

static void test_unknown_stats_are_warned(void **state)
{
	struct lru_snapshot s;
	struct lru_damon d = { .kdamonds = 1 };

	load(*state, &s);
	/* no stats read: nothing is known about huge pages, so all are bounds */
	lru_warn_apply(&s, &d, &(struct lru_warn_kernel){ false, false });
	for (size_t i = 0; i < s.nr_lruvecs; i++)
		assert_int_equal(s.lruvecs[i].warnings, LRU_WARN_THP_UNAGED);
	lru_snapshot_release(&s);
}

static void test_file_unaged(void **state)
{
	struct lru_snapshot s;
	struct lru_damon none = { 0 };
	struct lru_memcg *m;

	load(*state, &s);
	for (size_t i = 0; i < s.nr_memcgs; i++)
		s.memcgs[i].has_stats = true;
	/* batch maps 8 MiB; /jobs only its children's; / maps 1 MiB of its own */
	((struct lru_memcg *)lru_snapshot_find_memcg(&s, "/jobs/batch"))->stats.file_mapped_bytes = 8 << 20;
	((struct lru_memcg *)lru_snapshot_find_memcg(&s, "/jobs"))->stats.file_mapped_bytes = 8 << 20;
	m = (struct lru_memcg *)lru_snapshot_find_memcg(&s, "/");
	m->stats.file_mapped_bytes = 9 << 20;
	/* a kernel that promotes on first sighting: nothing */
	lru_warn_apply(&s, &none, &(struct lru_warn_kernel){ false, false });
	assert_int_equal(warnings_of(&s, "/jobs/batch", 0), 0);
	/* 6.14+ without the fix: batch, not /jobs nor / (1 MiB of its own) */
	lru_warn_apply(&s, &none, &(struct lru_warn_kernel){ false, true });
	assert_int_equal(warnings_of(&s, "/jobs/batch", 0), LRU_WARN_FILE_UNAGED);
	assert_int_equal(warnings_of(&s, "/jobs", 0), 0);
	assert_int_equal(warnings_of(&s, "/", 0), 0);
	assert_int_equal(warnings_of(&s, "/jobs/web", 1), 0);
	assert_int_equal(s.host.warnings, 0);
	lru_snapshot_release(&s);
	/* the kernel's release decides */
	tu_write(*state, "proc/sys/kernel/osrelease", "7.3.4+deb13-amd64\n");
	assert_true(lru_warn_kernel_two_sightings(*state));
	tu_write(*state, "proc/sys/kernel/osrelease", "6.14.0\n");
	assert_true(lru_warn_kernel_two_sightings(*state));
	tu_write(*state, "proc/sys/kernel/osrelease", "6.12.118+deb12-amd64\n");
	assert_false(lru_warn_kernel_two_sightings(*state));
}

static void test_kernel_that_sees_young_is_not_warned(void **state)
{
	struct lru_snapshot s;
	struct lru_damon d = { .stat = true };

	load(*state, &s);
	lru_warn_apply(&s, &d, &(struct lru_warn_kernel){ true, true });
	assert_int_equal(s.host.warnings, 0);
	for (size_t i = 0; i < s.nr_lruvecs; i++)
		assert_int_equal(s.lruvecs[i].warnings, 0);
	lru_snapshot_release(&s);
	/* lrugen's series is told by its memory.lru_gen */
	assert_false(lru_warn_kernel_sees_young(*state));
	tu_write(*state, "sys/fs/cgroup/jobs/web/memory.lru_gen", "N0 seq=3 age_ms=1 birth_ms=1 anon=0 file=0\n");
	assert_true(lru_warn_kernel_sees_young(*state));
}

static void test_damon_stat_off_refuses_fixture_file(void **state)
{
	struct lru_error err;
	bool changed = true;

	/* off already: nothing to do, nothing written */
	tu_write(*state, "sys/module/damon_stat/parameters/enabled", "N\n");
	assert_int_equal(lru_damon_stat_off(*state, &changed, &err), LRU_OK);
	assert_false(changed);
	/* on, but a regular file of a fixture: refused, left as it was */
	tu_write(*state, "sys/module/damon_stat/parameters/enabled", "Y\n");
	assert_int_equal(lru_damon_stat_off(*state, &changed, &err), LRU_ENOTSUP);
	assert_false(changed);
	assert_non_null(strstr(err.msg, "regular file"));
	{
		char path[4096], v[8] = "";
		FILE *f;

		snprintf(path, sizeof(path), "%s/sys/module/damon_stat/parameters/enabled",
			 (const char *)*state);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(v, sizeof(v), f));
		fclose(f);
		assert_string_equal(v, "Y\n");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes_round_trip),
		cmocka_unit_test_setup_teardown(test_no_damon_no_warnings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damon_stat_warns_huge_page_memcgs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kdamonds_and_modules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_stats_are_warned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_unaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_that_sees_young_is_not_warned, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_damon_stat_off_refuses_fixture_file, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
