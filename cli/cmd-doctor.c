/* cmd-doctor.c - lrugen doctor: can this host do MGLRU telemetry, and how to fix what is missing. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <zlib.h>

#include "lru_iface.h"
#include "lru_kwrite.h"
#include "lru_sys.h"

static const char doctor_usage[] =
	"usage: lrugen doctor [--json]\n"
	"\n"
	"Check what MGLRU telemetry needs on this host and say how to fix what is\n"
	"missing: kernel release, CONFIG_LRU_GEN, lru_gen/enabled, the interface in\n"
	"use (memory.lru_gen of patched kernels, or debugfs lru_gen) and why, debugfs,\n"
	"kernel lockdown, cgroup v2 with the memory controller, root, swap, and DAMON\n"
	"monitors that hide accesses from MGLRU's aging ('damon'). With\n"
	"memory.lru_gen, debugfs and root matter only for the root memcg, which has\n"
	"no such file ('rootmemcg' says whether it is included). Each finding\n"
	"is 'ok', 'warn' or 'FAIL' with the command that fixes it. Exit code 3 when\n"
	"something fails.\n"
	"\n"
	"Examples:\n"
	"  lrugen doctor                               # read the findings, run the fixes\n"
	"  lrugen doctor --json | jq '.[] | select(.status != \"ok\")'\n";

enum status { ST_OK, ST_WARN, ST_FAIL, ST_INFO };
static const char *const status_names[] = { "ok", "warn", "FAIL", "info" };

struct doctor {
	struct cli *cli;
	json_t *json;
	int fails;
	unsigned enabled;
	bool have_enabled;
	bool cgroup;		/* memory.lru_gen is the interface in use */
	bool iface_failed;	/* the asked-for interface is not there */
	char why[LRU_ERRMSG_MAX]; /* why debugfs is the interface */
	int major, minor;
};

static void finding(struct doctor *d, const char *check, enum status st, const char *fix,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void finding(struct doctor *d, const char *check, enum status st, const char *fix,
		    const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (st == ST_FAIL)
		d->fails++;
	if (d->json) {
		json_t *o = json_object();

		json_object_set_new(o, "check", json_string(check));
		json_object_set_new(o, "status", json_string(status_names[st]));
		json_object_set_new(o, "detail", json_string(detail));
		json_object_set_new(o, "fix", fix ? json_string(fix) : json_null());
		json_array_append_new(d->json, o);
		return;
	}
	/* details name kernel strings and paths */
	printf("%-5s %-10s %s\n", status_names[st], check, cli_esc(detail));
	if (fix)
		printf("%-16s fix: %s\n", "", cli_esc(fix));
}

/* Read a whole file, possibly gzip-compressed (/proc/config.gz), into a string. */
static char *read_maybe_gz(struct cli *cli, const char *abs)
{
	char path[LRU_PATH_MAX];
	size_t n = 0, alloc = 1 << 16;
	char *buf;
	gzFile gz;
	int r;

	if (lru_sys_path(cli->root, abs, path, sizeof(path), NULL))
		return NULL;
	gz = gzopen(path, "rb");
	if (!gz)
		return NULL;
	buf = malloc(alloc);
	while (buf && (r = gzread(gz, buf + n, (unsigned)(alloc - n - 1))) > 0) {
		n += (size_t)r;
		if (alloc - n < 2) {
			char *p = n < (16u << 20) ? realloc(buf, alloc * 2) : NULL;

			if (!p) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = p;
			alloc *= 2;
		}
	}
	gzclose(gz);
	if (buf)
		buf[n] = '\0';
	return buf;
}

static void check_kernel(struct doctor *d)
{
	char rel[128];

	if (lru_sys_read_line(d->cli->root, LRU_PATH_OSRELEASE, rel, sizeof(rel), NULL)) {
		finding(d, "kernel", ST_WARN, NULL, "cannot read %s", LRU_PATH_OSRELEASE);
		return;
	}
	if (sscanf(rel, "%d.%d", &d->major, &d->minor) != 2) {
		finding(d, "kernel", ST_WARN, NULL, "release '%s' is not MAJOR.MINOR...", rel);
		return;
	}
	if (d->major < 6)
		finding(d, "kernel", ST_FAIL, "boot Linux 6.1 or later (Debian: linux-image-amd64)",
			"%s: MGLRU needs Linux 6.1 or later", rel);
	else
		finding(d, "kernel", ST_OK, NULL, "%s", rel);
}

static void check_config(struct doctor *d)
{
	char rel[128], boot[256];
	const char *where = "/proc/config.gz";
	char *text = read_maybe_gz(d->cli, where);

	if (!text && !lru_sys_read_line(d->cli->root, LRU_PATH_OSRELEASE, rel, sizeof(rel), NULL)) {
		snprintf(boot, sizeof(boot), "/boot/config-%s", rel);
		where = boot;
		text = read_maybe_gz(d->cli, where);
	}
	if (!text) {
		finding(d, "config", ST_WARN, NULL,
			"kernel config not found (/proc/config.gz, /boot/config-RELEASE); "
			"lru_gen/enabled below tells whether MGLRU is built");
		return;
	}
	if (strstr(text, "\nCONFIG_LRU_GEN=y"))
		finding(d, "config", ST_OK, NULL, "CONFIG_LRU_GEN=y%s (%s)",
			strstr(text, "\nCONFIG_LRU_GEN_ENABLED=y") ? ", on by default" :
								      ", off by default", where);
	else
		finding(d, "config", ST_FAIL, "use a kernel built with CONFIG_LRU_GEN=y",
			"CONFIG_LRU_GEN is not set (%s)", where);
	free(text);
}

static void check_enabled(struct doctor *d)
{
	char fix[160];

	if (lru_sys_read_enabled(d->cli->root, &d->enabled, NULL)) {
		finding(d, "mglru", ST_FAIL, "use a kernel built with CONFIG_LRU_GEN=y",
			"%s is missing: this kernel has no MGLRU", LRU_PATH_ENABLED);
		return;
	}
	d->have_enabled = true;
	if (!(d->enabled & LRU_ENABLED_CORE)) {
		finding(d, "mglru", ST_FAIL, "lrugen enable",
			"off (enabled=0x%04x): generations do not drive reclaim", d->enabled);
		return;
	}
	if ((d->enabled & LRU_ENABLED_NONLEAF_YOUNG) && d->major == 6 && d->minor < 12) {
		snprintf(fix, sizeof(fix), "echo 3 > %s   (or: lrugen enable)", LRU_PATH_ENABLED);
		finding(d, "mglru", ST_WARN, fix,
			"on (enabled=0x%04x); before 6.12, bit 0x0004 lets a forced aging of one "
			"node hide accesses from the next: 0x0003 is accurate", d->enabled);
		return;
	}
	finding(d, "mglru", ST_OK, NULL, "on (enabled=0x%04x)", d->enabled);
}

static bool mounted(const char *mounts, const char *where, const char *fstype)
{
	char pat[128];

	snprintf(pat, sizeof(pat), " %s %s ", where, fstype);
	return mounts && strstr(mounts, pat);
}

/*
 * Which interface lrugen uses here (lru_iface_select) and, with memory.lru_gen,
 * where the root memcg comes from. Sets d->cgroup: debugfs and root are then
 * needed only for the root memcg.
 */
static void check_interface(struct doctor *d)
{
	struct lru_snapshot snap;
	struct lru_error err;
	struct lru_iface ifc;

	lru_error_clear(&err);
	if (lru_iface_select(&ifc, d->cli->root, d->cli->iface_mode, false, &err)) {
		finding(d, "interface", ST_FAIL, "unset " LRU_IFACE_ENV " or pass --interface auto",
			"%s", err.msg);
		d->iface_failed = true;
		return;
	}
	d->cgroup = ifc.used == LRU_IFACE_CGROUP;
	snprintf(d->why, sizeof(d->why), "%s", ifc.why);
	if (!d->cgroup)
		return;	/* reported with debugfs access below */
	finding(d, "interface", ST_OK, NULL,
		"memory.lru_gen (cgroup v2, patched kernel): debugfs not needed; %s", ifc.why);
	lru_snapshot_init(&snap);
	if (lru_iface_read(&ifc, d->cli->root, &snap, &err))
		finding(d, "rootmemcg", ST_WARN, NULL, "cannot read memory.lru_gen: %s", err.msg);
	else if (ifc.root_missing)
		finding(d, "rootmemcg", ST_WARN,
			"run as root with debugfs mounted to include it (mount -t debugfs none /sys/kernel/debug)",
			"%s", ifc.root_note);
	else
		finding(d, "rootmemcg", ST_OK, NULL,
			"the root memcg (which has no memory.lru_gen) is read from debugfs lru_gen");
	lru_snapshot_release(&snap);
}

static void check_mounts_and_access(struct doctor *d)
{
	char *mounts = NULL, path[LRU_PATH_MAX], lockdown[128], *ctl = NULL;
	const char *mode = NULL;
	int fd;

	lru_sys_read(d->cli->root, "/proc/mounts", 1 << 20, &mounts, NULL, NULL);
	if (mounted(mounts, "/sys/kernel/debug", "debugfs"))
		finding(d, "debugfs", ST_OK, NULL, "mounted at /sys/kernel/debug");
	else	/* with memory.lru_gen in use, only the root memcg needs debugfs */
		finding(d, "debugfs", d->cgroup ? ST_WARN : ST_FAIL,
			"mount -t debugfs none /sys/kernel/debug", d->cgroup ?
			"not mounted at /sys/kernel/debug: only the root memcg needs it "
			"(memory.lru_gen is in use)" : "not mounted at /sys/kernel/debug");

	if (!lru_sys_read_line(d->cli->root, "/sys/kernel/security/lockdown", lockdown,
			       sizeof(lockdown), NULL)) {
		char *l = strchr(lockdown, '['), *r = l ? strchr(l, ']') : NULL;

		if (l && r) {
			*r = '\0';
			mode = l + 1;
		}
	}
	if (mode && strcmp(mode, "none") && d->cgroup)
		finding(d, "lockdown", ST_WARN, "boot with lockdown=none to include the root memcg",
			"kernel lockdown is '%s': memory.lru_gen works; debugfs lru_gen, needed "
			"only for the root memcg, cannot be opened", mode);
	else if (mode && strcmp(mode, "none"))
		finding(d, "lockdown", ST_WARN, "boot with lockdown=none, or read with 'lrugen show --full'",
			"kernel lockdown is '%s': debugfs lru_gen (writable) cannot be opened; "
			"lru_gen_full still reads, aging and eviction are impossible", mode);
	else
		finding(d, "lockdown", ST_OK, NULL, "%s", mode ? "none" : "not active");

	lru_sys_path(d->cli->root, LRU_PATH_LRU_GEN, path, sizeof(path), NULL);
	fd = d->cgroup || d->iface_failed ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	if (d->cgroup || d->iface_failed) {
		/* reported by check_interface */
	} else if (fd >= 0) {
		close(fd);
		finding(d, "interface", ST_OK, NULL,
			"debugfs %s (read and write): %s", LRU_PATH_LRU_GEN, d->why);
	} else if (errno == EACCES) {
		finding(d, "interface", ST_FAIL, "run as root (sudo lrugen ...)",
			"%s: permission denied (%s)", LRU_PATH_LRU_GEN, d->why);
	} else if (errno == EPERM) {
		finding(d, "interface", ST_FAIL, "boot with lockdown=none",
			"%s: refused by kernel lockdown (%s)", LRU_PATH_LRU_GEN, d->why);
	} else {
		finding(d, "interface", ST_FAIL, "mount debugfs and use an MGLRU kernel (see above)",
			"%s: %s (%s)", LRU_PATH_LRU_GEN, strerror(errno), d->why);
	}

	if (!mounted(mounts, "/sys/fs/cgroup", "cgroup2")) {
		finding(d, "cgroup", ST_WARN, "mount -t cgroup2 none /sys/fs/cgroup",
			"no cgroup v2 at /sys/fs/cgroup: only the root memcg is visible to jobs tools");
	} else if (lru_sys_read(d->cli->root, "/sys/fs/cgroup/cgroup.controllers", 4096, &ctl,
				NULL, NULL) || !strstr(ctl, "memory")) {
		finding(d, "cgroup", ST_FAIL, "boot without cgroup_disable=memory",
			"cgroup v2 is mounted but the memory controller is not available");
	} else {
		finding(d, "cgroup", ST_OK, NULL, "cgroup v2 with the memory controller");
	}
	free(ctl);
	free(mounts);
}

/*
 * DAMON clears accessed bits on every sample; a kernel whose aging does not
 * see what it cleared (lru_warn.h) then keeps used huge pages in old
 * generations: thp_unaged in wss and snapshots.
 */
static void check_damon(struct doctor *d)
{
	struct lru_damon dm;
	char who[128], fix[256];

	lru_damon_read(d->cli->root, &dm);
	if (!lru_damon_active(&dm)) {
		finding(d, "damon", ST_OK, NULL, "no DAMON monitor runs");
		return;
	}
	lru_damon_describe(&dm, who, sizeof(who));
	if (lru_warn_kernel_sees_young(d->cli->root)) {
		finding(d, "damon", ST_OK, NULL,
			"%s runs; this kernel's aging sees the accesses DAMON clears (lrugen's "
			"series)", who);
		return;
	}
	snprintf(fix, sizeof(fix), "%s%s",
		 dm.stat ? "echo N > " LRU_PATH_DAMON_STAT " (lrugen age, lrugen enable and "
			   "lrugend do it; at boot: damon_stat.enabled=N)"
			 : "stop the DAMON monitors (damon_reclaim, damon_lru_sort: their "
			   "'enabled' parameters; sysfs kdamonds: echo off > .../state)",
		 "; or run lrugen's patched kernel");
	finding(d, "damon", ST_WARN, fix,
		"%s runs: DAMON clears accessed bits that this kernel's MGLRU aging does not "
		"see, so memory in huge pages reads colder than it is (thp_unaged) and "
		"eviction moves it to young generations instead of freeing it", who);
}

static void check_root_and_swap(struct doctor *d)
{
	char *swaps = NULL, *nl;
	int lines = 0;

	if (geteuid() == 0)
		finding(d, "root", ST_OK, NULL, "running as root");
	else if (d->cgroup)
		finding(d, "root", ST_WARN, "run as root (sudo lrugen ...) for every memcg",
			"not root: memcgs whose cgroup you own can be aged and evicted through "
			"memory.lru_gen; the root memcg needs debugfs (root-only)");
	else
		finding(d, "root", ST_FAIL, "run as root (sudo lrugen ...)",
			"not root: debugfs and lru_gen are root-only");

	if (lru_sys_read(d->cli->root, "/proc/swaps", 1 << 16, &swaps, NULL, NULL)) {
		finding(d, "swap", ST_INFO, NULL, "cannot read /proc/swaps");
		return;
	}
	for (nl = swaps; (nl = strchr(nl, '\n')); nl++)
		lines++;
	if (lines > 1)
		finding(d, "swap", ST_OK, NULL, "%d swap device(s): anon pages can be evicted",
			lines - 1);
	else
		finding(d, "swap", ST_INFO,
			"modprobe zram && echo 1G > /sys/block/zram0/disksize && mkswap /dev/zram0 && swapon /dev/zram0",
			"no swap: anon pages are aged only with can_swap=1 (lrugen passes it) and "
			"cannot be evicted; file pages can");
	free(swaps);
}

int cmd_doctor(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = { CLI_COMMON_OPTS };
	struct doctor d = { .cli = cli };
	bool fixture;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		rc = cli_common_opt(cli, NULL, opt, doctor_usage);
		if (rc >= 0)
			return rc;
	}
	if (cli_no_more_args("doctor", argc, argv))
		return CLI_USAGE;
	if (cli->json)
		d.json = json_array();
	fixture = lru_sys_is_fixture(cli->root);
	if (fixture)
		finding(&d, "fixture", ST_INFO, NULL, "'%s' is a fixture tree, not a running kernel's "
			"files: lrugen reads it, but age, evict and enable cannot write to it",
			cli->root);
	check_kernel(&d);
	check_config(&d);
	check_enabled(&d);
	check_interface(&d);
	check_mounts_and_access(&d);
	check_root_and_swap(&d);
	check_damon(&d);
	if (d.json) {
		rc = cli_json_out(d.json);
		if (rc)
			return rc;
	} else {
		printf("\n%s\n", d.fails ? "some checks failed: see the fixes above"
				 : fixture ? "a read-only fixture: lrugen can read it (aging and eviction "
					     "need a running kernel)"
				 : "this host is ready for lrugen");
	}
	return d.fails ? CLI_ENV : CLI_OK;
}
