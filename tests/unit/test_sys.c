#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lru_sys.h"

static const char node0_meminfo[] =
	"Node 0 MemTotal:         508000 kB\n"
	"Node 0 MemFree:          300000 kB\n"
	"Node 0 MemUsed:          208000 kB\n"
	"Node 0 FilePages:         12000 kB\n"
	"Node 0 AnonPages:        130000 kB\n";
static const char node1_meminfo[] =
	"Node 1 MemTotal:         516096 kB\n"
	"Node 1 MemFree:          100000 kB\n"
	"Node 1 FilePages:          4000 kB\n"
	"Node 1 AnonPages:        400000 kB\n";

/* A fixture root: the 6.1 capture as debugfs, sysfs and procfs files. */
static int setup(void **state)
{
	char *root = tu_mkdtemp();
	char *text = tu_read("fixtures/linux-6.1/lru_gen.txt", NULL);
	char *full = tu_read("fixtures/linux-6.1/lru_gen_full.txt", NULL);

	tu_write(root, "sys/kernel/debug/lru_gen", text);
	tu_write(root, "sys/kernel/debug/lru_gen_full", full);
	tu_write(root, "sys/kernel/mm/lru_gen/enabled", "0x0007\n");
	tu_write(root, "sys/devices/system/node/node0/meminfo", node0_meminfo);
	tu_write(root, "sys/devices/system/node/node1/meminfo", node1_meminfo);
	tu_write(root, "sys/devices/system/node/possible", "0-1\n");
	tu_write(root, "proc/sys/kernel/osrelease", "6.1.0-57-amd64\n");
	tu_write(root, "proc/sys/kernel/hostname", "vm-a\n");
	tu_write(root, "proc/sys/kernel/random/boot_id", "4e1a3f0c-5b2d-4c8e-9f00-112233445566\n");
	tu_write(root, "sys/fs/cgroup/jobs/web/memory.current", "0\n");
	free(text);
	free(full);
	*state = root;
	return 0;
}

static int teardown(void **state)
{
	tu_rmtree(*state);
	free(*state);
	return 0;
}

/* kernel releases against a version: at least, not, or not a release */
static void test_release_at_least(void **state)
{
	(void)state;
	assert_int_equal(lru_release_at_least("6.12.117+deb12-amd64", 6, 12), 1);
	assert_int_equal(lru_release_at_least("6.1.0-57-amd64", 6, 12), 0);
	assert_int_equal(lru_release_at_least("7.3.4+deb13-amd64", 6, 16), 1);
	assert_int_equal(lru_release_at_least("5.19.0", 6, 1), 0);
	assert_int_equal(lru_release_at_least("6.16", 6, 16), 1);
	assert_int_equal(lru_release_at_least("linux", 6, 1), -1);
	assert_int_equal(lru_release_at_least(NULL, 6, 1), -1);
}

static void test_path_prefixes_root(void **state)
{
	char buf[64];
	struct lru_error err;

	(void)state;
	assert_int_equal(lru_sys_path(NULL, "/proc/x", buf, sizeof(buf), &err), LRU_OK);
	assert_string_equal(buf, "/proc/x");
	assert_int_equal(lru_sys_path("/", "/proc/x", buf, sizeof(buf), &err), LRU_OK);
	assert_string_equal(buf, "/proc/x");
	assert_int_equal(lru_sys_path("/tmp/r", "/proc/x", buf, sizeof(buf), &err), LRU_OK);
	assert_string_equal(buf, "/tmp/r/proc/x");
	assert_int_equal(lru_sys_path("/a/very/long/root/that/does/not/fit/in/the/sixty-four/byte/buffer",
				      "/proc/x", buf, sizeof(buf), &err), LRU_EINVAL);
}

static void test_read_snapshot_from_root(void **state)
{
	struct lru_snapshot s;
	struct lru_error err;
	int64_t before = lru_now_ms(), after;
	const struct lru_lruvec *lv;

	lru_snapshot_init(&s);
	assert_int_equal(lru_sys_read_snapshot(*state, LRU_SRC_DEBUGFS, &s, &err), LRU_OK);
	after = lru_now_ms();
	assert_int_equal(s.nr_lruvecs, 8);
	assert_int_equal(s.source, LRU_SRC_DEBUGFS);
	assert_true(s.read_start_ms >= before && s.read_end_ms <= after);
	assert_true(s.birth_error_ms >= LRU_AGE_GRANULARITY_MS);
	lv = lru_snapshot_find(&s, "/jobs/web", 0, 1);
	assert_non_null(lv);
	/* birth = read midpoint - age */
	assert_int_equal(lv->gens[0].birth_ms,
			 s.read_start_ms + (s.read_end_ms - s.read_start_ms) / 2 - 9336);
	assert_int_equal(lv->gens[3].birth_ms - lv->gens[0].birth_ms, 9336 - 2060);
	lru_snapshot_release(&s);

	assert_int_equal(lru_sys_read_snapshot(*state, LRU_SRC_DEBUGFS_FULL, &s, &err), LRU_OK);
	assert_int_equal(s.source, LRU_SRC_DEBUGFS_FULL);
	assert_non_null(s.lruvecs[0].full);
	lru_snapshot_release(&s);
}

static void test_read_snapshot_errors_name_the_file(void **state)
{
	struct lru_snapshot s;
	struct lru_error err;
	char *root = tu_mkdtemp();

	(void)state;
	lru_snapshot_init(&s);
	assert_int_equal(lru_sys_read_snapshot(root, LRU_SRC_DEBUGFS, &s, &err), LRU_ENOENT);
	assert_non_null(strstr(err.msg, "/sys/kernel/debug/lru_gen': no such file"));

	tu_write(root, "sys/kernel/debug/lru_gen", "memcg     1 /\n node     0\n          3  12 4\n");
	assert_int_equal(lru_sys_read_snapshot(root, LRU_SRC_DEBUGFS, &s, &err), LRU_EPARSE);
	assert_non_null(strstr(err.msg, "/sys/kernel/debug/lru_gen: line 3:"));
	assert_int_equal(err.line, 3);
	lru_snapshot_release(&s);

	assert_int_equal(lru_sys_read_snapshot(root, LRU_SRC_CGROUP, &s, &err), LRU_ENOTSUP);
	tu_rmtree(root);
	free(root);
}

static void test_read_limits_and_lines(void **state)
{
	char *data, line[8];
	size_t len;
	struct lru_error err;

	assert_int_equal(lru_sys_read(*state, "/sys/kernel/debug/lru_gen", 1 << 20, &data, &len, &err),
			 LRU_OK);
	assert_int_equal(len, strlen(data));
	assert_memory_equal(data, "memcg     1 /\n", 14);
	free(data);
	assert_int_equal(lru_sys_read(*state, "/sys/kernel/debug/lru_gen", 100, &data, &len, &err),
			 LRU_EIO);
	assert_non_null(strstr(err.msg, "is larger than 100 bytes"));
	assert_int_equal(lru_sys_read_line(*state, LRU_PATH_OSRELEASE, line, sizeof(line), &err),
			 LRU_EINVAL);
	assert_int_equal(lru_sys_read_line(*state, LRU_PATH_ENABLED, line, sizeof(line), &err),
			 LRU_OK);
	assert_string_equal(line, "0x0007");
}

static void test_enabled_bits(void **state)
{
	unsigned bits = 0;
	struct lru_error err;
	char *root = tu_mkdtemp();

	assert_int_equal(lru_sys_read_enabled(*state, &bits, &err), LRU_OK);
	assert_int_equal(bits, 7);
	tu_write(root, "sys/kernel/mm/lru_gen/enabled", "yes\n");
	assert_int_equal(lru_sys_read_enabled(root, &bits, &err), LRU_EPARSE);
	assert_non_null(strstr(err.msg, "holds 'yes', not a number"));
	tu_write(root, "sys/kernel/mm/lru_gen/enabled", "0x0003\n");
	assert_int_equal(lru_sys_read_enabled(root, &bits, &err), LRU_OK);
	assert_int_equal(bits, 3);
	tu_rmtree(root);
	free(root);
}

static void test_nodes_host_and_inodes(void **state)
{
	struct lru_snapshot s;
	struct lru_error err;
	char path[4096];
	struct stat st;
	const struct lru_memcg *web;

	lru_snapshot_init(&s);
	assert_int_equal(lru_sys_read_snapshot(*state, LRU_SRC_DEBUGFS, &s, &err), LRU_OK);
	assert_int_equal(lru_sys_read_nodes(*state, &s, &err), LRU_OK);
	assert_int_equal(s.nr_nodes, 2);
	assert_int_equal(s.nodes[0].node, 0);
	assert_int_equal(s.nodes[0].total, 508000ULL * 1024);
	assert_int_equal(s.nodes[0].free, 300000ULL * 1024);
	assert_int_equal(s.nodes[0].file, 12000ULL * 1024);
	assert_int_equal(s.nodes[0].anon, 130000ULL * 1024);
	assert_int_equal(s.nodes[1].node, 1);
	assert_int_equal(s.nodes[1].total, 516096ULL * 1024);

	assert_int_equal(lru_sys_read_host(*state, &s, &err), LRU_OK);
	assert_string_equal(s.host.host, "vm-a");
	assert_string_equal(s.host.kernel, "6.1.0-57-amd64");
	assert_string_equal(s.host.boot_id, "4e1a3f0c-5b2d-4c8e-9f00-112233445566");
	assert_int_equal(s.host.enabled, 7);

	lru_sys_fill_inodes(*state, NULL, &s);
	web = lru_snapshot_find_memcg(&s, "/jobs/web");
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/jobs/web", (char *)*state);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(web->ino, st.st_ino);
	assert_int_equal(lru_snapshot_find_memcg(&s, "/jobs/batch")->ino, 0);
	lru_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_at_least),
		cmocka_unit_test(test_path_prefixes_root),
		cmocka_unit_test(test_read_snapshot_from_root),
		cmocka_unit_test(test_read_snapshot_errors_name_the_file),
		cmocka_unit_test(test_read_limits_and_lines),
		cmocka_unit_test(test_enabled_bits),
		cmocka_unit_test(test_nodes_host_and_inodes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
