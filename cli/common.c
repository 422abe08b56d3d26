/* common.c - option handling, snapshot loading, kernel writes and output helpers. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lru_esc.h"
#include "lru_sys.h"

const char *cli_esc(const char *s)
{
	static struct lru_buf slots[CLI_ESC_SLOTS];
	static unsigned next;
	struct lru_buf *b = &slots[next++ % CLI_ESC_SLOTS];

	b->len = 0;
	if (!s || lru_esc_buf(b, s, strlen(s), LRU_ESC_TERM, NULL))
		return "";
	return (const char *)b->data;
}

/* prefix, then the printf'd message escaped for the terminal, on stderr */
static void message(const char *prefix, const char *fmt, va_list ap)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s%s\n", prefix, cli_esc(msg));
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("lrugen: ", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("lrugen: warning: ", fmt, ap);
	va_end(ap);
}

int cli_fail(const struct lru_error *err)
{
	cli_err("%s", err->msg[0] ? err->msg : lru_strerror(err->code));
	switch (err->code) {
	case LRU_ENOENT:
	case LRU_EACCES:
	case LRU_ENOTSUP:
		return CLI_ENV;
	case LRU_ESTALE:
		return CLI_REFUSED;
	case LRU_EINVAL:
		return CLI_REFUSED;
	default:
		return CLI_FAIL;
	}
}

int cli_common_opt(struct cli *cli, struct cli_select *sel, int opt, const char *usage)
{
	switch (opt) {
	case CLI_OPT_ROOT:
		cli->root = optarg;
		return -1;
	case CLI_OPT_JSON:
		cli->json = true;
		return -1;
	case CLI_OPT_IFACE:
		return cli_set_interface(cli, optarg, "--interface") ? CLI_USAGE : -1;
	case CLI_OPT_STORE:
		cli->store = optarg;
		return -1;
	case CLI_OPT_TOKEN_FILE:
		cli->token_file = optarg;
		return -1;
	case CLI_OPT_CA_FILE:
		cli->ca_file = optarg;
		return -1;
	case 'h':
		return cli_usage(usage, false);
	}
	if (sel) {
		switch (opt) {
		case CLI_OPT_MEMCG:
			sel->memcg = optarg;
			return -1;
		case CLI_OPT_MEMCG_ID:
			sel->have_id = true;
			return cli_parse_u64("--memcg-id", optarg, &sel->memcg_id) ? CLI_USAGE : -1;
		case CLI_OPT_NODE:
			return cli_parse_node(optarg, &sel->node) ? CLI_USAGE : -1;
		}
	}
	return cli_usage(usage, true);
}

int cli_no_more_args(const char *cmd, int argc, char **argv)
{
	if (optind >= argc)
		return 0;
	cli_err("%s: unexpected argument '%s'", cmd, argv[optind]);
	return CLI_USAGE;
}

int cli_usage(const char *usage, bool error)
{
	if (error) {
		fprintf(stderr, "%s", usage);
		return CLI_USAGE;
	}
	fputs(usage, stdout);
	return CLI_OK;
}

void cli_select_init(struct cli_select *sel)
{
	memset(sel, 0, sizeof(*sel));
	sel->node = -1;
}

int cli_parse_node(const char *arg, int *node)
{
	char *end;
	long v;

	if (!strcmp(arg, "all")) {
		*node = -1;
		return 0;
	}
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > LRU_NODE_MAX) {
		cli_err("--node '%s' is not a node number or 'all'", arg);
		return -1;
	}
	*node = (int)v;
	return 0;
}

static bool is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

bool cli_selected(const struct cli_select *sel, const struct lru_snapshot *snap,
		  const struct lru_lruvec *lv)
{
	const struct lru_memcg *m = lru_lruvec_memcg(snap, lv);

	if (sel->node >= 0 && lv->node != sel->node)
		return false;
	if (sel->have_id && m->id != sel->memcg_id)
		return false;
	if (sel->memcg) {
		if (is_pattern(sel->memcg))
			return fnmatch(sel->memcg, m->path, 0) == 0;
		return strcmp(sel->memcg, m->path) == 0;
	}
	return true;
}

int cli_check_selection(const struct cli_select *sel, const struct lru_snapshot *snap)
{
	bool memcg_found = false;
	size_t i;

	if (sel->have_id && snap->source == LRU_SRC_CGROUP) {
		cli_err("--memcg-id: the memory.lru_gen interface has no kernel memcg ids; select "
			"with --memcg PATH (or use --interface debugfs)");
		return CLI_USAGE;
	}

	for (i = 0; i < snap->nr_lruvecs; i++) {
		struct cli_select any_node = *sel;

		any_node.node = -1;
		if (cli_selected(sel, snap, &snap->lruvecs[i]))
			return CLI_OK;
		if (cli_selected(&any_node, snap, &snap->lruvecs[i]))
			memcg_found = true;
	}
	if (memcg_found) {
		if (sel->memcg)
			cli_err("memcg '%s' has no node %d (nodes without memory are not listed)",
				sel->memcg, sel->node);
		else
			cli_err("no memcg has node %d (nodes without memory are not listed)", sel->node);
		return CLI_USAGE;
	}
	if (sel->have_id)
		cli_err("no memcg with id %" PRIu64 " (see 'lrugen show')", sel->memcg_id);
	else
		cli_err("no memcg matches '%s' (see 'lrugen show' for paths)", sel->memcg);
	return CLI_USAGE;
}

/* Is debugfs mounted at path? Reads ROOT/proc/mounts; unknown counts as yes. */
static bool debugfs_mounted(struct cli *cli)
{
	char *mounts;
	bool found;

	if (lru_sys_read(cli->root, "/proc/mounts", 1 << 20, &mounts, NULL, NULL))
		return true;
	found = strstr(mounts, " /sys/kernel/debug debugfs ") != NULL;
	free(mounts);
	return found;
}

int cli_set_interface(struct cli *cli, const char *name, const char *from)
{
	struct lru_error err;

	if (!lru_iface_mode_parse(name, &cli->iface_mode, &err))
		return 0;
	cli_err("%s: %s", from, err.msg);
	return -1;
}

int cli_load(struct cli *cli, struct lru_snapshot *snap)
{
	struct lru_error err;
	char path[LRU_PATH_MAX];
	struct stat st;
	enum lru_err rc;

	lru_error_clear(&err);
	if (!cli->iface_chosen) {
		if (lru_iface_select(&cli->iface, cli->root, cli->iface_mode, cli->full, &err))
			return cli_fail(&err);
		cli->iface_chosen = true;
	}
	rc = lru_iface_read(&cli->iface, cli->root, snap, &err);
	if (rc == LRU_ENOENT && cli->iface.used == LRU_IFACE_DEBUGFS) {
		lru_sys_path(cli->root, "/sys/kernel/debug", path, sizeof(path), NULL);
		if (!cli->root && !debugfs_mounted(cli)) {
			cli_err("debugfs is not mounted at '%s' (mount -t debugfs none %s)", path, path);
			return CLI_ENV;
		}
		if (stat(path, &st)) {
			cli_err("'%s' does not exist (mount -t debugfs none /sys/kernel/debug)", path);
			return CLI_ENV;
		}
		cli_err("%s: this kernel has no MGLRU (CONFIG_LRU_GEN); see 'lrugen doctor'", err.msg);
		return CLI_ENV;
	}
	if (rc == LRU_EACCES) {
		if (strstr(err.msg, "lockdown") && !cli->full)
			cli_err("%s; lru_gen_full still reads: try --full", err.msg);
		else
			cli_err("%s", err.msg);
		return CLI_ENV;
	}
	if (rc)
		return cli_fail(&err);
	rc = lru_sys_read_host(cli->root, snap, &err);
	if (!rc)
		rc = lru_sys_read_nodes(cli->root, snap, &err);
	if (rc)
		return cli_fail(&err);
	if (snap->source != LRU_SRC_CGROUP)	/* the cgroup walk set them */
		lru_sys_fill_inodes(cli->root, NULL, snap);
	lru_warn_read_apply(cli->root, snap, &cli->damon);
	return CLI_OK;
}

int cli_store_failed(enum lru_err rc, const struct lru_error *err)
{
	cli_err("%s", err->msg);
	switch (rc) {
	case LRU_EIO:		/* no answer */
	case LRU_EACCES:
		return CLI_ENV;
	case LRU_EINVAL:	/* 400, 404: the store's own message */
	case LRU_ENOENT:
		return CLI_USAGE;
	default:
		return CLI_FAIL;
	}
}

/*
 * CLI_NEED_STORE: the client of --store (else $LRUGEN_STORE, else the local
 * default) with the token of --token-file (else $LRUGEN_TOKEN, else none).
 */
static int store_open(struct cli *cli)
{
	const char *env = getenv("LRUGEN_STORE");
	struct lru_client_opts opts = {
		.url = cli->store ? cli->store : env && *env ? env : "http://127.0.0.1:7070",
		.ca_file = cli->ca_file, .agent = "lrugen/" LRUGEN_VERSION,
		.connect_timeout_ms = 10000, .timeout_ms = 120000,
	};
	struct lru_error err;
	char *token = NULL;
	enum lru_err rc;

	lru_error_clear(&err);
	if (cli->token_file && (rc = lru_client_read_token(cli->token_file, &token, &err))) {
		cli_err("%s", err.msg);
		return rc == LRU_ENOENT ? CLI_USAGE : CLI_ENV;	/* a wrong path is a bad command line */
	}
	opts.token = token ? token : getenv("LRUGEN_TOKEN");
	rc = lru_client_new(&opts, &cli->client, &err);
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	return rc ? cli_store_failed(rc, &err) : CLI_OK;
}

int cli_setup(struct cli *cli, const struct cli_setup *setup, const struct cli_select *sel,
	      struct lru_snapshot *snap)
{
	bool named = sel && (sel->memcg || sel->have_id || sel->node >= 0);
	int rc;

	if (setup->flags & CLI_NEED_STORE)
		return store_open(cli);
	lru_snapshot_init(snap);
	rc = cli_load(cli, snap);
	if (!rc && named && ((setup->flags & CLI_CHECK_SELECTION) ||
			     ((setup->flags & CLI_CHECK_ID) && sel->have_id)))
		rc = cli_check_selection(sel, snap);
	if (rc)
		return rc;
	if (setup->flags & CLI_MGLRU_WARN)
		cli_mglru_on(cli, snap, false);
	if ((setup->flags & CLI_MGLRU_NEED) && !cli_mglru_on(cli, snap, true)) {
		cli_err("MGLRU is off: %s; turn it on with 'lrugen enable'", setup->mglru_off);
		return CLI_ENV;
	}
	return CLI_OK;
}

json_t *cli_warnings_json(uint32_t mask, bool host)
{
	json_t *arr = json_array();

	for (uint32_t bit = 1; bit && bit <= mask; bit <<= 1) {
		const char *name = !(mask & bit) ? NULL : host ? lru_hostwarn_name(bit)
								: lru_warn_name(bit);

		if (name)
			json_array_append_new(arr, json_string(name));
	}
	return arr;
}

void cli_warning_notes(uint32_t mask, bool host, const char *marker)
{
	for (uint32_t bit = 1; bit && bit <= mask; bit <<= 1) {
		const char *code = !(mask & bit) ? NULL : host ? lru_hostwarn_name(bit)
								: lru_warn_name(bit);
		char text[512];
		const char *p = text;
		int col;

		if (!code)
			continue;
		snprintf(text, sizeof(text), "%s%s", host ? lru_hostwarn_help(bit) : lru_warn_help(bit),
			 host ? "" : " (see 'lrugen doctor' on the host)");
		col = printf("%s %s:", marker, code);
		/* words wrapped at 80 columns, continued under the first word */
		while (*p) {
			size_t w = strcspn(p, " ");

			if (col + 1 + (int)w > 80) {
				printf("\n  ");
				col = 2;
			} else {
				putchar(' ');
				col++;
			}
			col += printf("%.*s", (int)w, p);
			p += w;
			p += strspn(p, " ");
		}
		putchar('\n');
	}
}

void cli_before_aging(struct cli *cli, bool keep)
{
	struct lru_error err;
	struct lru_damon d;
	char who[128];
	bool changed;

	lru_damon_read(cli->root, &d);
	if (!lru_damon_active(&d) || lru_warn_kernel_sees_young(cli->root))
		return;
	if (d.stat && !keep) {
		lru_error_clear(&err);
		if (!lru_damon_stat_off(cli->root, &changed, &err)) {
			if (changed)
				fprintf(stderr, "lrugen: turned damon_stat off: it clears accessed bits "
					"this kernel's aging does not see (--keep-damon to leave it; "
					"see 'lrugen doctor')\n");
			d.stat = false;
		} else {
			cli_warn("cannot turn damon_stat off: %s", err.msg);
		}
	}
	if (lru_damon_active(&d))
		cli_warn("%s runs: memory in huge pages will read colder than it is "
			 "(thp_unaged; see 'lrugen doctor')", lru_damon_describe(&d, who, sizeof(who)));
}

bool cli_mglru_on(struct cli *cli, const struct lru_snapshot *snap, bool quiet)
{
	unsigned bits;

	if (lru_sys_read_enabled(cli->root, &bits, NULL))
		return true;	/* unknown: let the kernel decide */
	(void)snap;
	if (bits & LRU_ENABLED_CORE)
		return true;
	if (!quiet)
		cli_warn("MGLRU is off (lru_gen/enabled is 0x%04x): its generations do not drive "
			 "reclaim and show little; turn it on with 'lrugen enable'", bits);
	return false;
}

json_t *cli_memcg_id_json(const struct lru_snapshot *snap, const struct lru_memcg *m)
{
	/* cgroup ids (7.x) are 64-bit: a 32-bit index and a wrap count above it,
	 * far from INT64_MAX; a larger one is not printed negative */
	if (lru_memcg_uses_cgroup(snap, m) || m->id > INT64_MAX)
		return json_null();
	return json_integer((json_int_t)m->id);
}

int cli_json_out(json_t *doc)
{
	int rc;

	if (!doc) {
		cli_err("out of memory building JSON");
		return CLI_FAIL;
	}
	rc = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (rc || fputc('\n', stdout) == EOF) {
		cli_err("cannot write to standard output");
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cli_finish(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("cannot write to standard output: %s", strerror(errno));
		return rc ? rc : CLI_FAIL;
	}
	return rc;
}

int cli_path_depth(const char *path)
{
	int depth = 0;

	if (!path[0] || !strcmp(path, "/"))
		return 0;
	for (; *path; path++)
		depth += *path == '/';
	return depth;
}

const char *cli_path_leaf(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!path[0])
		return "(no memcg)";
	if (!slash || !slash[1])
		return path;
	return slash + 1;
}

const char *cli_source_name(enum lru_source src)
{
	switch (src) {
	case LRU_SRC_DEBUGFS: return "lru_gen";
	case LRU_SRC_DEBUGFS_FULL: return "lru_gen_full";
	case LRU_SRC_CGROUP: return "memory.lru_gen";
	}
	return "unknown";
}

int cli_parse_u64(const char *opt, const char *arg, uint64_t *v)
{
	char *end;

	errno = 0;
	if (*arg < '0' || *arg > '9' || (*v = strtoull(arg, &end, 10), errno) || *end) {
		cli_err("%s '%s' is not a number", opt, arg);
		return -1;
	}
	return 0;
}
