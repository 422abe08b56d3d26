/*
 * test_iface.c - lru_iface: choosing memory.lru_gen or debugfs, reading a
 * snapshot through the cgroup tree (the root memcg from debugfs, or left out
 * with a note), and the commands built for such a snapshot.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lru_cmd.h"
#include "lru_iface.h"
#include "lru_select.h"

static const char *const cg_files[] = { "jobs", "jobs/web", "jobs/batch" };

/* Copy fixtures/memory.lru_gen/REL/memory.lru_gen to ROOT/sys/fs/cgroup/REL/. */
static void put_cgroup(const char *root, const char *rel)
{
	char src[256], dst[256], *text;

	snprintf(src, sizeof(src), "fixtures/memory.lru_gen/%s/memory.lru_gen", rel);
	snprintf(dst, sizeof(dst), "sys/fs/cgroup/%s/memory.lru_gen", rel);
	text = tu_read(src, NULL);
	tu_write(root, dst, text);
	free(text);
}

/* A root with the 6.1 debugfs capture, a cgroup tree, and (cgroup) memory.lru_gen files. */
static char *mkroot(bool cgroup, bool debugfs)
{
	char *root = tu_mkdtemp(), *text;

	tu_write(root, "sys/fs/cgroup/cgroup.controllers", "memory\n");
	tu_write(root, "sys/fs/cgroup/init.scope/cgroup.procs", "1\n");	/* no memory.lru_gen */
	tu_write(root, "sys/fs/cgroup/jobs/web/memory.stat", "anon 0\n");
	tu_write(root, "sys/fs/cgroup/jobs/batch/memory.stat", "anon 0\n");
	if (debugfs) {
		text = tu_read("fixtures/linux-6.1/lru_gen.txt", NULL);
		tu_write(root, "sys/kernel/debug/lru_gen", text);
		free(text);
	}
	for (size_t i = 0; cgroup && i < sizeof(cg_files) / sizeof(cg_files[0]); i++)
		put_cgroup(root, cg_files[i]);
	return root;
}

static int teardown(void **state)
{
	if (*state) {
		tu_rmtree(*state);
		free(*state);
	}
	return 0;
}

static void test_mode_names(void **state)
{
	enum lru_iface_mode m = LRU_IFACE_DEBUGFS;
	struct lru_error err;

	(void)state;
	assert_int_equal(lru_iface_mode_parse(NULL, &m, &err), LRU_OK);
	assert_int_equal(m, LRU_IFACE_AUTO);
	assert_int_equal(lru_iface_mode_parse("cgroup", &m, &err), LRU_OK);
	assert_int_equal(m, LRU_IFACE_CGROUP);
	assert_int_equal(lru_iface_mode_parse("", &m, &err), LRU_OK);
	assert_int_equal(m, LRU_IFACE_AUTO);
	assert_int_equal(lru_iface_mode_parse("debugfs", &m, &err), LRU_OK);
	assert_int_equal(m, LRU_IFACE_DEBUGFS);
	assert_int_equal(lru_iface_mode_parse("auto", &m, &err), LRU_OK);
	assert_int_equal(m, LRU_IFACE_AUTO);
	assert_int_equal(lru_iface_mode_parse("Cgroup", &m, &err), LRU_EINVAL);
	assert_string_equal(err.msg, "interface 'Cgroup' is not auto, cgroup or debugfs");
	assert_string_equal(lru_iface_mode_name(LRU_IFACE_CGROUP), "cgroup");
	assert_string_equal(lru_iface_mode_name(LRU_IFACE_NR), "unknown");
}

static void test_select_without_files(void **state)
{
	struct lru_iface ifc;
	struct lru_error err;

	*state = mkroot(false, true);
	assert_int_equal(lru_iface_select(&ifc, *state, LRU_IFACE_AUTO, false, &err), LRU_OK);
	assert_int_equal(ifc.used, LRU_IFACE_DEBUGFS);
	assert_string_equal(ifc.why, "memory.lru_gen not present on this kernel");
	assert_int_equal(lru_iface_select(&ifc, *state, LRU_IFACE_CGROUP, false, &err), LRU_ENOENT);
	assert_non_null(strstr(err.msg, "no memcg below '"));
	assert_non_null(strstr(err.msg, "/sys/fs/cgroup' has memory.lru_gen"));
}

static void test_select_with_files(void **state)
{
	struct lru_iface ifc;
	struct lru_error err;

	*state = mkroot(true, true);
	assert_int_equal(lru_iface_select(&ifc, *state, LRU_IFACE_AUTO, false, &err), LRU_OK);
	assert_int_equal(ifc.used, LRU_IFACE_CGROUP);
	assert_int_equal(ifc.wanted, LRU_IFACE_AUTO);
	assert_string_equal(ifc.example, "/jobs");	/* init.scope sorts first, has none */
	assert_string_equal(ifc.why, "present on this kernel (e.g. '/jobs')");
	assert_int_equal(lru_iface_select(&ifc, *state, LRU_IFACE_CGROUP, false, &err), LRU_OK);
	assert_int_equal(ifc.used, LRU_IFACE_CGROUP);
	assert_string_equal(ifc.why, "cgroup asked for (e.g. '/jobs')");
	assert_int_equal(lru_iface_select(&ifc, *state, LRU_IFACE_DEBUGFS, false, &err), LRU_OK);
	assert_int_equal(ifc.used, LRU_IFACE_DEBUGFS);
	/* lru_gen_full has the tier counters memory.lru_gen lacks */
	assert_int_equal(lru_iface_select(&ifc, *state, LRU_IFACE_AUTO, true, &err), LRU_OK);
	assert_int_equal(ifc.used, LRU_IFACE_DEBUGFS);
	assert_non_null(strstr(ifc.why, "lru_gen_full"));
	assert_int_equal(lru_iface_select(&ifc, *state, LRU_IFACE_CGROUP, true, &err), LRU_ENOTSUP);
}

/* The memcg at path, its index into s->memcgs (fails the test if absent). */
static size_t memcg_at(const struct lru_snapshot *s, const char *path)
{
	for (size_t i = 0; i < s->nr_memcgs; i++)
		if (!strcmp(s->memcgs[i].path, path))
			return i;
	fail_msg("no memcg '%s'", path);
	return 0;
}

static void read_cgroup(const char *root, struct lru_iface *ifc, struct lru_snapshot *s)
{
	struct lru_error err;

	lru_snapshot_init(s);
	assert_int_equal(lru_iface_select(ifc, root, LRU_IFACE_AUTO, false, &err), LRU_OK);
	if (lru_iface_read(ifc, root, s, &err))
		fail_msg("lru_iface_read: %s", err.msg);
}

static void test_read_cgroup(void **state)
{
	const char *order[] = { "/", "/jobs", "/jobs/batch", "/jobs/web" };
	struct lru_snapshot s;
	struct lru_iface ifc;
	const struct lru_lruvec *lv;
	char dir[4200];
	struct stat st;
	size_t web;

	*state = mkroot(true, true);
	read_cgroup(*state, &ifc, &s);
	assert_int_equal(s.source, LRU_SRC_CGROUP);
	assert_false(ifc.root_missing);
	assert_int_equal(s.nr_memcgs, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(s.memcgs[i].path, order[i]);
	assert_int_equal(s.nr_lruvecs, 8);
	/* the root from debugfs, with its kernel id; the others have none */
	assert_int_equal(s.memcgs[0].id, 1);
	assert_false(lru_memcg_uses_cgroup(&s, &s.memcgs[0]));
	for (size_t i = 1; i < 4; i++) {
		assert_int_equal(s.memcgs[i].id, 0);
		assert_true(lru_memcg_uses_cgroup(&s, &s.memcgs[i]));
		assert_false(lru_memcg_dying(&s, &s.memcgs[i]));
	}
	lv = lru_snapshot_find(&s, "/", 0, 0);
	assert_non_null(lv);
	assert_int_equal(lv->gens[0].seq, 3);
	assert_int_equal(lv->gens[0].pages[LRU_ANON], 628);
	lv = lru_snapshot_find(&s, "/jobs/batch", 0, 0);
	assert_non_null(lv);
	assert_int_equal(lv->nr_gens, 3);
	assert_int_equal(lv->gens[0].pages[LRU_ANON], 30720);
	assert_int_equal(lv->gens[2].pages[LRU_ANON], 2560);
	/* births from each file's read: birth = read time - age, within the error bound */
	lv = lru_snapshot_find(&s, "/jobs/web", 0, 1);
	assert_non_null(lv);
	assert_true(lv->gens[0].birth_ms + 9000 >= s.read_start_ms);
	assert_true(lv->gens[0].birth_ms + 9000 <= s.read_end_ms);
	assert_int_equal(lv->gens[1].birth_ms - lv->gens[0].birth_ms, 3000);
	assert_true(s.birth_error_ms >= 10);
	/* inodes from the cgroup directories */
	web = memcg_at(&s, "/jobs/web");
	snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/jobs/web", (char *)*state);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(s.memcgs[web].ino, st.st_ino);
	snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup", (char *)*state);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(s.memcgs[0].ino, st.st_ino);
	lru_snapshot_release(&s);
}

/* Memcgs read from memory.lru_gen have id 0 and are not dropped as dying. */
static void test_select_keeps_cgroup_memcgs(void **state)
{
	struct lru_select sel = { 0 };
	size_t counts[LRU_SEL_NR];
	struct lru_snapshot s;
	struct lru_iface ifc;

	*state = mkroot(true, true);
	read_cgroup(*state, &ifc, &s);
	lru_select_apply(&sel, &s, counts);
	assert_int_equal(counts[LRU_SEL_DYING], 0);
	/* /jobs holds nothing, but memcgs under it do: it stays, their parent */
	assert_int_equal(counts[LRU_SEL_EMPTY], 0);
	assert_int_equal(counts[LRU_SEL_KEEP], 4);
	assert_non_null(lru_snapshot_find_memcg(&s, "/jobs"));
	lru_snapshot_release(&s);
}

static void test_root_missing_without_debugfs(void **state)
{
	struct lru_snapshot s;
	struct lru_iface ifc;

	*state = mkroot(true, false);
	read_cgroup(*state, &ifc, &s);
	assert_true(ifc.root_missing);
	assert_non_null(strstr(ifc.root_note, "root memcg left out: it has no memory.lru_gen and "
					      "debugfs lru_gen is not readable (cannot open '"));
	assert_int_equal(s.nr_memcgs, 3);
	assert_string_equal(s.memcgs[0].path, "/jobs");
	lru_snapshot_release(&s);
}

static void test_parse_error_names_file_and_line(void **state)
{
	struct lru_snapshot s;
	struct lru_iface ifc;
	struct lru_error err;

	*state = mkroot(true, true);
	tu_write(*state, "sys/fs/cgroup/jobs/web/memory.lru_gen",
		 "N0 seq=1 age_ms=1 birth_ms=1 anon=0 file=0\nN0 seq=2 age_ms=1\n");
	lru_snapshot_init(&s);
	assert_int_equal(lru_iface_select(&ifc, *state, LRU_IFACE_AUTO, false, &err), LRU_OK);
	assert_int_equal(lru_iface_read(&ifc, *state, &s, &err), LRU_EPARSE);
	assert_non_null(strstr(err.msg, "/sys/fs/cgroup/jobs/web/memory.lru_gen: line 2: node 0: "
					"key 'birth_ms' is missing"));
	assert_int_equal(err.line, 2);
	lru_snapshot_release(&s);
}

/* Through debugfs, as before: every memcg with its id. */
static void test_read_debugfs(void **state)
{
	struct lru_snapshot s;
	struct lru_iface ifc;
	struct lru_error err;

	*state = mkroot(true, true);
	lru_snapshot_init(&s);
	assert_int_equal(lru_iface_select(&ifc, *state, LRU_IFACE_DEBUGFS, false, &err), LRU_OK);
	assert_int_equal(lru_iface_read(&ifc, *state, &s, &err), LRU_OK);
	assert_int_equal(s.source, LRU_SRC_DEBUGFS);
	assert_int_equal(s.nr_memcgs, 4);
	assert_int_equal(s.memcgs[memcg_at(&s, "/jobs/web")].id, 3);
	assert_false(lru_memcg_uses_cgroup(&s, &s.memcgs[memcg_at(&s, "/jobs/web")]));
	lru_snapshot_release(&s);
}

static const char *fmt(const struct lru_cmd *c)
{
	static char buf[LRU_CMD_MAX];

	lru_cmd_format(c, buf, sizeof(buf));
	return buf;
}

/* Commands for memory.lru_gen: N<node>, no memcg id, the cap in bytes; the root's for debugfs. */
static void test_commands(void **state)
{
	struct lru_snapshot s;
	struct lru_iface ifc;
	struct lru_error err;
	struct lru_cmd c;
	uint64_t pages;

	*state = mkroot(true, true);
	read_cgroup(*state, &ifc, &s);
	assert_int_equal(lru_cmd_age(&s, lru_snapshot_find(&s, "/jobs/web", 0, 1), 1, 1, &c, &err),
			 LRU_OK);
	assert_true(c.cgroup);
	assert_string_equal(fmt(&c), "+ N1 7 1 1\n");
	assert_int_equal(lru_cmd_age(&s, lru_snapshot_find(&s, "/", 0, 0), 1, 1, &c, &err), LRU_OK);
	assert_false(c.cgroup);
	assert_string_equal(fmt(&c), "+ 1 0 6 1 1\n");
	assert_int_equal(lru_cmd_evict_older_than(&s, lru_snapshot_find(&s, "/jobs/web", 0, 1), 5000,
						  100, 4 << 20, &c, &pages, &err), LRU_OK);
	assert_string_equal(fmt(&c), "- N1 4 100 4194304\n");
	assert_int_equal(pages, 1024);
	/* a cap that is not whole pages: bytes as given, pages rounded up */
	assert_int_equal(lru_cmd_evict_older_than(&s, lru_snapshot_find(&s, "/jobs/batch", 0, 0),
						  5000, -1, 1000, &c, &pages, &err), LRU_OK);
	assert_string_equal(fmt(&c), "- N0 2 60 1000\n");
	assert_int_equal(pages, 1);
	assert_int_equal(lru_cmd_evict_older_than(&s, lru_snapshot_find(&s, "/jobs/batch", 0, 0),
						  5000, -1, 0, &c, &pages, &err), LRU_OK);
	assert_string_equal(fmt(&c), "- N0 2\n");
	assert_int_equal(pages, 30720);
	lru_snapshot_release(&s);
}

#define T(f) cmocka_unit_test_setup_teardown(f, NULL, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode_names),
		T(test_select_without_files),
		T(test_select_with_files),
		T(test_read_cgroup),
		T(test_select_keeps_cgroup_memcgs),
		T(test_root_missing_without_debugfs),
		T(test_parse_error_names_file_and_line),
		T(test_read_debugfs),
		T(test_commands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
