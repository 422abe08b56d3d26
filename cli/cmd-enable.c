/* cmd-enable.c - lrugen enable: turn MGLRU on (lru_gen/enabled). */
#include "cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "lru_sys.h"

static const char usage[] =
	"usage: lrugen enable [--bits N] [--keep-damon] [--dry-run] [--json]\n"
	"\n"
	"Turn MGLRU on by writing /sys/kernel/mm/lru_gen/enabled. Without --bits it\n"
	"writes 'y' and then, on kernels before 6.12, clears 0x0004 (non-leaf PMD\n"
	"young bits): with it, a forced aging of one node can hide accesses from the\n"
	"next node's aging, so 0x0003 is the accurate setting for telemetry there.\n"
	"Turning the core bit on moves every page and may take a moment.\n"
	"It also turns damon_stat off where this kernel's aging cannot see the\n"
	"accesses DAMON clears (Debian's 7.x kernels turn it on at boot; see 'lrugen\n"
	"doctor'), unless --keep-damon.\n"
	"\n"
	"  --bits N      write exactly N (e.g. 0x0007, 3, or n to turn MGLRU off)\n"
	"  --keep-damon  leave damon_stat running\n"
	"  --dry-run     print what would be written, write nothing\n"
	"\n"
	"Examples:\n"
	"  lrugen enable --dry-run      # what it would write on this kernel\n"
	"  lrugen enable                # on, and accurate for telemetry\n"
	"  lrugen enable --bits n       # off again\n";

static int write_enabled(struct cli *cli, const char *value, struct lru_error *err)
{
	return lru_sys_write_knob(cli->root, LRU_PATH_ENABLED, value, err) ? -1 : 0;
}

/* --dry-run: the writes planned (in order), nothing written. */
static int dry_run(struct cli *cli, unsigned before, const char *const *writes, size_t n)
{
	if (cli->json) {
		json_t *o = json_object(), *arr = json_array();

		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, json_string(writes[i]));
		json_object_set_new(o, "before", json_integer(before));
		json_object_set_new(o, "would_write", arr);
		return cli_json_out(o);
	}
	if (!n)
		printf("MGLRU is on (lru_gen/enabled 0x%04x): nothing to write\n", before);
	for (size_t i = 0; i < n; i++)
		printf("would write '%s' to %s (now 0x%04x)\n", writes[i], LRU_PATH_ENABLED, before);
	return CLI_OK;
}

/* What lru_gen/enabled takes (mm/vmscan.c enabled_store): y, n or an unsigned number, base 0. */
static bool bits_valid(const char *bits)
{
	unsigned long long v;
	char *end;

	if (!strcasecmp(bits, "y") || !strcasecmp(bits, "n"))
		return true;
	errno = 0;
	v = strtoull(bits, &end, 0);
	return *bits >= '0' && *bits <= '9' && !errno && end != bits && !*end && v <= UINT32_MAX;
}

int cmd_enable(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bits", required_argument, NULL, 'b' },
		{ "keep-damon", no_argument, NULL, 'K' },
		{ "dry-run", no_argument, NULL, 'd' },
		CLI_COMMON_OPTS,
	};
	const char *bits = NULL, *writes[2];
	size_t nr_writes = 0;
	bool keep_damon = false, dry = false;
	struct lru_error err;
	unsigned before = 0, after = 0;
	char rel[128];
	int opt, rc, major = 0, minor = 0;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'b') {
			bits = optarg;
			continue;
		}
		if (opt == 'K') {
			keep_damon = true;
			continue;
		}
		if (opt == 'd') {
			dry = true;
			continue;
		}
		rc = cli_common_opt(cli, NULL, opt, usage);
		if (rc >= 0)
			return rc;
	}
	if (cli_no_more_args("enable", argc, argv))
		return CLI_USAGE;
	if (bits && !bits_valid(bits)) {
		cli_err("enable: --bits '%s' is not y, n or a number such as 0x0007", bits);
		return CLI_USAGE;
	}
	lru_error_clear(&err);
	if (lru_sys_read_enabled(cli->root, &before, &err)) {
		cli_err("%s: this kernel has no MGLRU (CONFIG_LRU_GEN)", err.msg);
		return CLI_ENV;
	}
	if (!lru_sys_read_line(cli->root, LRU_PATH_OSRELEASE, rel, sizeof(rel), NULL))
		sscanf(rel, "%d.%d", &major, &minor);
	if (bits) {
		writes[nr_writes++] = bits;
	} else {
		if (!(before & LRU_ENABLED_CORE))
			writes[nr_writes++] = "y";
		if (major == 6 && minor < 12)
			writes[nr_writes++] = "3";
	}
	if (dry)
		return dry_run(cli, before, writes, nr_writes);
	for (size_t i = 0; i < nr_writes; i++)
		if (write_enabled(cli, writes[i], &err))
			return cli_fail(&err);
	if (lru_sys_read_enabled(cli->root, &after, &err))
		return cli_fail(&err);
	if (after & LRU_ENABLED_CORE)
		cli_before_aging(cli, keep_damon);
	if (cli->json) {
		json_t *o = json_object();

		json_object_set_new(o, "before", json_integer(before));
		json_object_set_new(o, "after", json_integer(after));
		json_object_set_new(o, "enabled", json_boolean(after & LRU_ENABLED_CORE));
		return cli_json_out(o);
	}
	printf("MGLRU %s: lru_gen/enabled 0x%04x (was 0x%04x)\n",
	       after & LRU_ENABLED_CORE ? "on" : "off", after, before);
	return CLI_OK;
}
