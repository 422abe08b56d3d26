/* cmd-enable.c - lrugen enable: turn MGLRU on (lru_gen/enabled). */
#include "cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "lru_sys.h"

static const char usage[] =
	"usage: lrugen enable [--bits N] [--json]\n"
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
	"  --keep-damon  leave damon_stat running\n";

static int write_enabled(struct cli *cli, const char *value, struct lru_error *err)
{
	return lru_sys_write_knob(cli->root, LRU_PATH_ENABLED, value, err) ? -1 : 0;
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
		CLI_COMMON_OPTS,
	};
	const char *bits = NULL;
	bool keep_damon = false;
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
		if (write_enabled(cli, bits, &err))
			return cli_fail(&err);
	} else {
		if (!(before & LRU_ENABLED_CORE) && write_enabled(cli, "y", &err))
			return cli_fail(&err);
		if (major == 6 && minor < 12 && write_enabled(cli, "3", &err))
			return cli_fail(&err);
	}
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
