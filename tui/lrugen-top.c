/*
 * lrugen-top - MGLRU generations of every memcg and node on one timeline.
 *
 * main() parses options, opens the source, reads the first frame (so that a
 * host without MGLRU fails with a plain message before the screen changes),
 * then runs the loop: fetch -> update the view -> draw the panels asked for
 * -> wait for a key or the next refresh. The terminal is restored on every
 * way out: normal exit, -n, fatal errors, SIGINT/SIGTERM/SIGHUP, and crashes.
 *
 * The modules call down a tree, one header each; none calls back up:
 *   lrugen-top.c  options, the loop        -> draw, keys, plan, source, view, top
 *   draw.c        the panels               -> keys (help), plan (dialog), view, timeline, top
 *   keys.c        key table, modal input   -> plan, view, source, timeline, top
 *   plan.c        age/evict plan, writes   -> source, view, top
 *   top.c         status message, T, sizes -> timeline
 *   source.c      frames: kernel, fixture  -> replay.c, fleet.c
 *   view.c, timeline.c: the model and the axis, no curses, no other module
 */
#include "draw.h"
#include "keys.h"
#include "plan.h"
#include "top.h"

#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lru_client.h"
#include "lru_esc.h"
#include "lru_sys.h"
#include "lru_units.h"

#define PROG "lrugen-top"

enum { EXIT_USAGE = 2, EXIT_ENV = 3 };

static const char usage[] =
	"usage: lrugen-top [--root DIR | --replay FILE|DIR | --store URL] [options]\n"
	"\n"
	"MGLRU's generations of every memcg and NUMA node on one wall-clock timeline,\n"
	"with hot and cold bytes at a threshold T. Sources: the local kernel (default:\n"
	"each memcg's memory.lru_gen where the kernel has it, else debugfs as root),\n"
	"a fixture tree (--root), a recording (--replay: a SnapshotBatch file from\n"
	"'lrugend --once --output FILE' or a collector spool directory; step with [\n"
	"and ]) or a store (--store: fleet mode).\n"
	"\n"
	"  --root DIR          read DIR/sys/kernel/debug/lru_gen... instead of /\n"
	"      --interface I   auto, cgroup (each memcg's memory.lru_gen) or debugfs\n"
	"                      (lru_gen); default $LRUGEN_INTERFACE, else auto: cgroup\n"
	"                      when any memcg has memory.lru_gen. Age and evict write\n"
	"                      through the same files\n"
	"  --replay FILE|DIR   show recorded snapshots\n"
	"  --store URL         fleet mode: the store's query API (http://host:port)\n"
	"  --token-file FILE   bearer token for --store (default: $LRUGEN_TOKEN)\n"
	"  --memcg-glob G      --store: only the memcgs matching G (fnmatch), e.g.\n"
	"                      '/jobs/web*': a large fleet in less memory and time\n"
	"  -d, --delay SECS    seconds between refreshes (default 2; 0.5 allowed)\n"
	"  -n, --iterations N  exit after N refreshes\n"
	"  -T, --threshold DUR threshold for hot/cold (default 2m): 30s 5m 1h...\n"
	"  -w, --window DUR    timeline span (default: fit the oldest generation)\n"
	"  -g, --group MODE    none, node, host or memcg (across hosts)\n"
	"      --flat          a flat sorted list instead of the memcg tree\n"
	"      --merge-nodes   one row per memcg, nodes summed\n"
	"      --readonly      never write aging or eviction commands\n"
	"      --ascii         ASCII shades instead of Unicode blocks\n"
	"      --basic         debugfs: read lru_gen only (no tier counters)\n"
	"  -h, --help          this text; press ? in lrugen-top for the keys\n"
	"      --version       print lrugen-top's version (lrugen's and the daemons')\n"
	"      --keys          print the keys of lrugen-top's help ('?') and exit\n"
	"\n"
	"Exit codes: 0 done, 1 failure, 2 bad command line, 3 this host or terminal\n"
	"cannot do it (no MGLRU, not root, TERM=dumb).\n";

static volatile sig_atomic_t got_signal;
static bool curses_on;
static SCREEN *screen;

static void restore_terminal(void)
{
	if (curses_on) {
		curses_on = false;
		endwin();
	}
}

static void on_quit_signal(int sig)
{
	got_signal = sig;
}

static void on_crash(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* The message (it may name memcgs, hosts, what the store said) escaped for the terminal. */
static void die(int code, const char *fmt, ...)
{
	char msg[1024], esc[4 * sizeof(msg)];
	va_list ap;

	restore_terminal();
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lru_esc(esc, sizeof(esc), msg, strlen(msg), LRU_ESC_TERM);
	fprintf(stderr, PROG ": %s\n", esc);
	exit(code);
}

static int exit_code(enum lru_err rc)
{
	return rc == LRU_ENOENT || rc == LRU_EACCES || rc == LRU_ENOTSUP ? EXIT_ENV : 1;
}

static uint64_t parse_dur(const char *opt, const char *arg)
{
	struct lru_error err;
	uint64_t ms;

	if (lru_parse_duration_ms(arg, &ms, &err) || !ms)
		die(EXIT_USAGE, "%s '%s': %s", opt, arg, ms ? err.msg : "must be above zero");
	return ms;
}

struct cmdline {
	struct top_source_opts src;
	const char *token_file;
	unsigned bench_frames;
	const char *bench_out;
};

static void parse_args(struct top *t, struct cmdline *cl, int argc, char **argv)
{
	enum { O_ROOT = 0x100, O_REPLAY, O_STORE, O_TOKEN, O_GLOB, O_FLAT, O_MERGE, O_RO, O_ASCII,
	       O_BASIC, O_IFACE, O_BENCH, O_BENCH_OUT, O_VERSION, O_KEYS };
	static const struct option opts[] = {
		{ "root", required_argument, NULL, O_ROOT },
		{ "replay", required_argument, NULL, O_REPLAY },
		{ "store", required_argument, NULL, O_STORE },
		{ "token-file", required_argument, NULL, O_TOKEN },
		{ "memcg-glob", required_argument, NULL, O_GLOB },
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "window", required_argument, NULL, 'w' },
		{ "group", required_argument, NULL, 'g' },
		{ "flat", no_argument, NULL, O_FLAT },
		{ "merge-nodes", no_argument, NULL, O_MERGE },
		{ "readonly", no_argument, NULL, O_RO },
		{ "ascii", no_argument, NULL, O_ASCII },
		{ "basic", no_argument, NULL, O_BASIC },
		{ "interface", required_argument, NULL, O_IFACE },
		{ "bench-frames", required_argument, NULL, O_BENCH },	/* bench/tui */
		{ "bench-out", required_argument, NULL, O_BENCH_OUT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ "keys", no_argument, NULL, O_KEYS },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const groups[GROUP_NR] = { "none", "node", "host", "memcg" };
	const char *iface = NULL, *iface_from = "--interface";
	struct lru_error err;
	struct stat st;
	char *end;
	double d;
	long n;
	int c, i;

	while ((c = getopt_long(argc, argv, "d:n:T:w:g:h", opts, NULL)) != -1) {
		switch (c) {
		case O_ROOT: cl->src.root = optarg; t->root = optarg; break;
		case O_REPLAY: cl->src.replay = optarg; break;
		case O_STORE: cl->src.store = optarg; break;
		case O_TOKEN: cl->token_file = optarg; break;
		case O_GLOB: cl->src.memcg_glob = optarg; break;
		case O_FLAT: t->view.tree = false; break;
		case O_MERGE: t->view.merge = true; break;
		case O_RO: t->readonly = true; break;
		case O_ASCII: t->ascii = true; break;
		case O_BASIC: cl->src.basic = true; break;
		case O_IFACE: iface = optarg; break;
		case 'd':
			errno = 0;
			d = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(d) || d < 0 || d > 86400)
				die(EXIT_USAGE, "-d '%s' is not a number of seconds (0 to 86400)", optarg);
			t->delay_ms = (uint64_t)(d * 1000 + 0.5);
			break;
		case 'n':
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 1 || n > 1000000000)
				die(EXIT_USAGE, "-n '%s' is not a positive count", optarg);
			t->max_refreshes = (unsigned)n;
			break;
		case 'T':
			t->custom_threshold_ms = parse_dur("--threshold", optarg);
			t->thr = tl_nr_thresholds;
			for (i = 0; i < (int)tl_nr_thresholds; i++)
				if (tl_thresholds[i] == t->custom_threshold_ms)
					t->thr = (size_t)i;
			break;
		case 'w':
			t->zoom = tl_zoom_fit(parse_dur("--window", optarg) * 10 / 11);
			t->window_fixed = true;
			break;
		case 'g':
			for (i = 0; i < GROUP_NR && strcmp(optarg, groups[i]); i++)
				;
			if (i == GROUP_NR)
				die(EXIT_USAGE, "--group '%s': expected none, node, host or memcg", optarg);
			t->view.group = (enum top_group)i;
			break;
		case O_BENCH:
			n = strtol(optarg, &end, 10);
			if (*end || n < 1)
				die(EXIT_USAGE, "--bench-frames '%s' is not a positive count", optarg);
			cl->bench_frames = (unsigned)n;
			break;
		case O_BENCH_OUT: cl->bench_out = optarg; break;
		case 'h':
			fputs(usage, stdout);
			exit(ferror(stdout) || fflush(stdout) ? 1 : 0);
		case O_VERSION:
			puts(PROG " " LRUGEN_VERSION);
			exit(ferror(stdout) || fflush(stdout) ? 1 : 0);
		case O_KEYS: {	/* the table of '?' in the program (keys.c) */
			char lines[64][96];
			size_t nk = keys_help(lines, 64);

			for (size_t k = 0; k < nk; k++)
				puts(lines[k]);
			exit(ferror(stdout) || fflush(stdout) ? 1 : 0);
		}
		default:
			fputs("try 'lrugen-top --help'\n", stderr);
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		die(EXIT_USAGE, "unexpected argument '%s' (try --help)", argv[optind]);
	if (!iface) {	/* the flag wins over the environment, as in lrugen */
		iface = getenv(LRU_IFACE_ENV);
		iface_from = LRU_IFACE_ENV;
	}
	if (lru_iface_mode_parse(iface, &cl->src.iface, &err))
		die(EXIT_USAGE, "%s: %s", iface_from, err.msg);
	if (cl->src.root && (stat(cl->src.root, &st) || !S_ISDIR(st.st_mode)))
		die(EXIT_USAGE, "--root '%s': %s", cl->src.root,
		    access(cl->src.root, F_OK) ? "no such directory" : "not a directory");
	if (!!cl->src.root + !!cl->src.replay + !!cl->src.store > 1)
		die(EXIT_USAGE, "--root, --replay and --store are exclusive: pick one source");
	if (cl->src.memcg_glob && !cl->src.store)
		die(EXIT_USAGE, "--memcg-glob goes with --store (locally, filter with /)");
	if (cl->src.store && cl->token_file) {
		char *token;

		if (lru_client_read_token(cl->token_file, &token, &err))	/* a wrong path: usage */
			die(err.code == LRU_ENOENT ? EXIT_USAGE : EXIT_ENV, "--token-file: %s", err.msg);
		cl->src.token = token;
	} else if (cl->src.store) {
		cl->src.token = getenv("LRUGEN_TOKEN");
	}
}

/* Refuse terminals that cannot address the cursor, before touching them. */
static void check_terminal(void)
{
	const char *term = getenv("TERM");

	if (!term || !*term || !strcmp(term, "dumb"))
		die(EXIT_ENV, "TERM is '%s': this terminal cannot draw a full-screen view; "
			      "use 'lrugen show' or 'lrugen wss' there, or set TERM (e.g. xterm-256color)",
		    term ? term : "");
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		die(EXIT_ENV, "standard input and output must be a terminal; "
			      "for scripts use 'lrugen show --json'");
}

static void start_curses(struct top *t)
{
	const char *cs;

	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		die(EXIT_ENV, "cannot use terminal type '%s' (no terminfo entry?)", getenv("TERM"));
	curses_on = true;
	set_term(screen);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	cs = nl_langinfo(CODESET);
	t->utf8 = !t->ascii && cs && !strcmp(cs, "UTF-8");
	draw_init_colors(t);
	werase(stdscr);
	wnoutrefresh(stdscr);
}

static void install_signals(void)
{
	struct sigaction sa;
	int quit[] = { SIGINT, SIGTERM, SIGHUP };
	int crash[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit_signal;	/* no SA_RESTART: wgetch returns */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(quit) / sizeof(quit[0]); i++)
		sigaction(quit[i], &sa, NULL);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
		sigaction(crash[i], &sa, NULL);
}

/* Fetch a frame into the view; soft errors go to the status bar. */
static void fetch(struct top *t)
{
	struct lru_error err;
	enum lru_err rc;

	lru_error_clear(&err);
	rc = top_source_fetch(t->src, &t->frame, &err);
	if (rc) {
		/* the source still holds the previous frame: the view keeps showing it */
		snprintf(t->fetch_err, sizeof(t->fetch_err), "%s", err.msg[0] ? err.msg : lru_strerror(rc));
		t->msg[0] = '\0';	/* the fresh error is what matters now */
		return;
	}
	t->fetch_err[0] = '\0';
	t->have_frame = true;
	view_set_frame(&t->view, &t->frame);
	/* the window follows the data (a fleet's history grows) until the user zooms */
	if (!t->window_fixed && t->view.nr_items)
		t->zoom = tl_zoom_fit(t->view.span_ms);
	if (t->view.oom)
		top_message(t, true, "out of memory: the list is incomplete");
}

/* Apply what an action asked for (data first, then geometry), then draw. */
static void update_and_draw(struct top *t, unsigned todo)
{
	if (todo & (TOP_REFRESH | TOP_STEP)) {
		fetch(t);
		todo |= TOP_DRAW_ALL | TOP_LAYOUT;
	} else if (todo & TOP_RECOMPUTE) {
		view_recompute(&t->view);
	} else if (todo & TOP_REBUILD) {
		view_rebuild(&t->view);
	}
	if (todo & TOP_LAYOUT)
		draw_layout(t);
	draw_panels(t, todo);
	doupdate();
}

static double mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * bench/tui: time n frames of each kind (a refresh's recompute + rebuild +
 * full repaint; a cursor move) and write "key=value" lines to out.
 */
static void bench(struct top *t, unsigned n, const char *out)
{
	double *refresh = calloc(n, sizeof(double)), *move = calloc(n, sizeof(double));
	double *model = calloc(n, sizeof(double)), t0;
	FILE *f;
	unsigned i;

	if (!refresh || !move || !model)
		die(1, "out of memory");
	for (i = 0; i < n; i++) {
		t0 = mono_us();
		view_recompute(&t->view);
		model[i] = mono_us() - t0;
		clearok(curscr, TRUE);	/* repaint everything: the worst case */
		update_and_draw(t, TOP_LAYOUT | TOP_DRAW_ALL);
		refresh[i] = mono_us() - t0;
	}
	for (i = 0; i < n; i++) {
		t0 = mono_us();
		update_and_draw(t, keys_handle(t, i % 40 < 20 ? KEY_DOWN : KEY_UP));
		move[i] = mono_us() - t0;
	}
	qsort(refresh, n, sizeof(double), cmp_double);
	qsort(move, n, sizeof(double), cmp_double);
	qsort(model, n, sizeof(double), cmp_double);
	restore_terminal();
	f = out ? fopen(out, "w") : stderr;
	if (!f)
		die(1, "cannot write '%s': %s", out, strerror(errno));
	fprintf(f, "frames=%u lruvecs=%zu rows=%zu cols=%d lines=%d "
		   "refresh_median_us=%.0f refresh_p99_us=%.0f refresh_max_us=%.0f "
		   "model_median_us=%.0f move_median_us=%.0f move_p99_us=%.0f\n",
		n, t->view.nr_items, t->view.nr_rows, t->g.cols, t->g.lines, refresh[n / 2],
		refresh[n * 99 / 100], refresh[n - 1], model[n / 2], move[n / 2], move[n * 99 / 100]);
	if (out && fclose(f))
		die(1, "cannot write '%s'", out);
	free(refresh);
	free(move);
	free(model);
}

static int run(struct top *t)
{
	unsigned todo = TOP_LAYOUT | TOP_DRAW_ALL | (t->have_frame ? 0 : TOP_REFRESH);
	int64_t next = lru_mono_ms() + (int64_t)t->delay_ms;

	if (t->have_frame)
		t->refreshes = 1;	/* main() read the first frame */
	for (;;) {
		int64_t now;
		int ch;

		if (todo & TOP_REFRESH) {
			t->refreshes++;
			next = lru_mono_ms() + (int64_t)t->delay_ms;
		}
		update_and_draw(t, todo);
		if (t->max_refreshes && t->refreshes >= t->max_refreshes)
			return 0;
		todo = 0;
		now = lru_mono_ms();
		if (t->paused)
			timeout(1000);	/* only to let status messages expire */
		else
			timeout(next > now ? (int)(next - now > 1000 ? 1000 : next - now) : 0);
		ch = getch();
		if (got_signal)
			return 0;
		if (ch == ERR) {
			now = lru_mono_ms();
			if (t->msg[0] && lru_now_ms() >= t->msg_until_ms) {
				t->msg[0] = '\0';
				todo |= TOP_DRAW_STATUS;
			}
			if (!t->paused && now >= next) {
				if (t->src->kind == TOP_SRC_REPLAY)
					top_source_step(t->src, 1);
				todo |= TOP_REFRESH;
			}
			continue;
		}
		todo = keys_handle(t, ch);
		if (todo & TOP_QUIT)
			return 0;
	}
}

int main(int argc, char **argv)
{
	struct top t;
	struct cmdline cl;
	struct lru_error err;
	enum lru_err rc;
	int code;

	memset(&t, 0, sizeof(t));
	memset(&cl, 0, sizeof(cl));
	view_init(&t.view);
	t.delay_ms = 2000;
	t.thr = 2;	/* 2m */
	setlocale(LC_ALL, "");
	parse_args(&t, &cl, argc, argv);
	t.view.threshold_ms = top_threshold(&t);

	lru_error_clear(&err);
	rc = top_source_open(&cl.src, &t.src, &err);
	if (rc)
		die(exit_code(rc), "%s", err.msg);
	if (t.src->kind != TOP_SRC_FLEET) {
		/* a host without MGLRU fails here, with the terminal untouched */
		rc = top_source_fetch(t.src, &t.frame, &err);
		if (rc) {
			bool local = t.src->kind == TOP_SRC_LOCAL;

			top_source_free(t.src);
			if (rc == LRU_ENOENT && local)
				die(EXIT_ENV, "%s (is debugfs mounted, and MGLRU built in? see 'lrugen doctor')",
				    err.msg);
			die(exit_code(rc), "%s", err.msg);
		}
		t.have_frame = true;
		view_set_frame(&t.view, &t.frame);
		if (!t.window_fixed)
			t.zoom = tl_zoom_fit(t.view.span_ms);
	}
	check_terminal();
	atexit(restore_terminal);
	install_signals();
	start_curses(&t);
	if (cl.bench_frames) {
		update_and_draw(&t, TOP_LAYOUT | TOP_DRAW_ALL);
		bench(&t, cl.bench_frames, cl.bench_out);
		code = 0;
	} else {
		code = run(&t);
	}
	restore_terminal();
	draw_free(&t);
	if (screen)
		delscreen(screen);
	top_source_free(t.src);
	view_release(&t.view);
	plan_release(&t.plan);
	if (cl.token_file)
		free((char *)cl.src.token);
	if (got_signal)
		code = 128 + got_signal;
	return code;
}
