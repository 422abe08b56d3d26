/* test_conf.c - the program layer's settings: file syntaxes, flags, old spellings, output. */
#include "testutil.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

/* a small program: settings of each kind, a line hook (like the store's tokens) */
struct demo {
	bool flag;
	int64_t count;
	uint64_t wait_ms;
	char *name;
	struct lru_set_list globs;
	int log_level;
	int tokens;		/* "token = ..." lines seen */
};

#define F(f) offsetof(struct demo, f)
static const struct lru_set_def defs[] = {
	{ "general", LRU_SET_SECTION, 0, NULL, 0, 0, NULL, NULL, NULL },
	{ "flag", LRU_SET_BOOL, F(flag), "true", 0, 0, NULL, "a flag", NULL },
	{ "max-count", LRU_SET_INT, F(count), "4", 0, 64, "N", "a count", NULL },
	{ "wait", LRU_SET_DURATION, F(wait_ms), "2m", 1000, 86400000, "DUR", "a wait", NULL },
	{ "name", LRU_SET_STRING, F(name), "", 0, 0, "NAME", "a name", NULL },
	{ "globs", LRU_SET_LIST, F(globs), "/a/*", 0, 0, "GLOB", "globs", NULL },
	CONF_LOG_LEVEL(struct demo, log_level),
};

static char warned[4][512];
static int nr_warned;

static void warn(const char *msg)
{
	if (nr_warned < 4)
		snprintf(warned[nr_warned], sizeof(warned[0]), "%s", msg);
	nr_warned++;
}

static int token_line(void *cfg, const char *name, char *value, struct lru_error *err)
{
	if (strcmp(name, "demo-token"))
		return 0;
	if (strcmp(value, "ok"))
		return lru_fail(err, LRU_EINVAL, "a token line needs 'ok'"), -1;
	((struct demo *)cfg)->tokens++;
	return 1;
}

static void print_tokens(const void *cfg, FILE *out)
{
	for (int i = 0; i < ((const struct demo *)cfg)->tokens; i++)
		fputs("demo-token = ok\n", out);
}

static const struct conf_prog prog = {
	.name = "demo",
	.size = sizeof(struct demo),
	.defs = defs,
	.nr_defs = sizeof(defs) / sizeof(defs[0]),
	.usage = "usage: demo [SETTINGS]\n",
	.line = token_line,
	.print = print_tokens,
	.warn = warn,
};

static char *dir;
static char path[4096];

/* Load text as the config file (and argv's flags) into c; returns conf_load's result. */
static enum lru_err load(struct demo *c, const char *text, char **argv, struct lru_error *err)
{
	struct conf_src src = { 0 };
	enum lru_err rc;
	int argc = 0;

	while (argv && argv[argc])
		argc++;
	nr_warned = 0;
	tu_write(dir, "demo.conf", text);
	snprintf(path, sizeof(path), "%s/demo.conf", dir);
	if (argv)
		assert_int_equal(conf_args(&prog, &src, argc, argv, NULL, NULL, NULL, err), CONF_RUN);
	src.file = path;
	src.required = true;
	rc = conf_load(&prog, c, &src, err);
	conf_src_release(&src);
	return rc;
}

static int setup(void **state)
{
	(void)state;
	dir = tu_mkdtemp();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmtree(dir);
	free(dir);
	return 0;
}

static void test_new_syntax(void **state)
{
	struct demo c;
	struct lru_error err;

	(void)state;
	assert_int_equal(load(&c, "# a comment\n"
				  "max-count = 8   # and one after a blank\n"
				  "name = \"web #1\"\n"
				  "globs = /x\n"
				  "globs = /y, /z\n"
				  "demo-token = ok\n"
				  "\n"
				  "wait=90s\n", NULL, &err), LRU_OK);
	assert_int_equal(c.count, 8);
	assert_string_equal(c.name, "web #1");
	assert_int_equal(c.globs.n, 3);
	assert_string_equal(c.globs.v[2], "/z");
	assert_int_equal(c.wait_ms, 90000);
	assert_int_equal(c.tokens, 1);
	assert_true(c.flag);
	assert_int_equal(nr_warned, 0);
	conf_release(&prog, &c);
}

static void test_old_syntax(void **state)
{
	struct demo c;
	struct lru_error err;

	(void)state;
	assert_int_equal(load(&c, "max-count 8\nname web\ndemo-token ok\n", NULL, &err), LRU_OK);
	assert_int_equal(c.count, 8);
	assert_string_equal(c.name, "web");
	assert_int_equal(c.tokens, 1);
	/* one warning for the file, naming the new spelling of the first line */
	assert_int_equal(nr_warned, 1);
	assert_non_null(strstr(warned[0], "demo.conf:1: 'max-count 8' is the old 'NAME VALUE' "
				       "syntax: write 'max-count = 8' (and 2 more lines)"));
	conf_release(&prog, &c);
}

static void test_old_names(void **state)
{
	struct demo c;
	struct lru_error err;

	(void)state;
	assert_int_equal(load(&c, "max_count = 9\nlog_level = debug\n", NULL, &err), LRU_OK);
	assert_int_equal(c.count, 9);
	assert_int_equal(c.log_level, LOG_LV_DEBUG);
	assert_int_equal(nr_warned, 1);
	assert_non_null(strstr(warned[0], "demo.conf:1: 'max_count' is an old spelling: write "
				       "'max-count' (and 1 more line)"));
	conf_release(&prog, &c);
	/* both at once: two warnings */
	assert_int_equal(load(&c, "max_count 9\n", NULL, &err), LRU_OK);
	assert_int_equal(nr_warned, 2);
	conf_release(&prog, &c);
}

static void test_booleans(void **state)
{
	char a0[] = "demo", no[] = "--no-flag", yes[] = "--flag", off[] = "--flag=false",
	     on[] = "--flag=yes", bad[] = "--flag=maybe";
	char *argv_no[] = { a0, no, NULL }, *argv_yes[] = { a0, no, yes, NULL },
	     *argv_off[] = { a0, off, NULL }, *argv_on[] = { a0, on, NULL },
	     *argv_bad[] = { a0, bad, NULL };
	struct demo c;
	struct lru_error err;

	(void)state;
	assert_int_equal(load(&c, "flag = off\n", NULL, &err), LRU_OK);
	assert_false(c.flag);
	conf_release(&prog, &c);
	assert_int_equal(load(&c, "", argv_no, &err), LRU_OK);
	assert_false(c.flag);
	conf_release(&prog, &c);
	assert_int_equal(load(&c, "flag = false\n", argv_yes, &err), LRU_OK);
	assert_true(c.flag);	/* the last flag wins, flags over the file */
	conf_release(&prog, &c);
	assert_int_equal(load(&c, "", argv_off, &err), LRU_OK);
	assert_false(c.flag);
	conf_release(&prog, &c);
	assert_int_equal(load(&c, "flag = no\n", argv_on, &err), LRU_OK);
	assert_true(c.flag);
	conf_release(&prog, &c);
	assert_int_equal(load(&c, "", argv_bad, &err), LRU_EINVAL);
	assert_string_equal(err.msg, "--flag maybe: not true or false");
	assert_int_equal(load(&c, "flag = maybe\n", NULL, &err), LRU_EINVAL);
	assert_non_null(strstr(err.msg, "demo.conf:1: flag = maybe: not true or false"));
}

static void test_errors(void **state)
{
	char a0[] = "demo", bogus[] = "--bogus", stray[] = "stray", count[] = "--max-count=65";
	char *argv_bogus[] = { a0, bogus, NULL }, *argv_stray[] = { a0, stray, NULL },
	     *argv_count[] = { a0, count, NULL };
	struct conf_src src = { 0 };
	struct demo c;
	struct lru_error err;

	(void)state;
	/* unknown names: one line naming file, line and name */
	assert_int_equal(load(&c, "max-count = 1\nfrobnicate = 1\n", NULL, &err), LRU_EINVAL);
	assert_non_null(strstr(err.msg, "demo.conf:2: unknown setting 'frobnicate'"));
	assert_null(strchr(err.msg, '\n'));
	assert_int_equal(load(&c, "frob 1\n", NULL, &err), LRU_EINVAL);
	assert_non_null(strstr(err.msg, "demo.conf:1: unknown setting 'frob'"));
	assert_int_equal(load(&c, "max-count = 1\nmax-count = 2\n", NULL, &err), LRU_EINVAL);
	assert_non_null(strstr(err.msg, "demo.conf:2: 'max-count' is set twice"));
	assert_int_equal(load(&c, "name\n", NULL, &err), LRU_EINVAL);
	assert_non_null(strstr(err.msg, "demo.conf:1: expected 'name = value'"));
	assert_int_equal(load(&c, "demo-token = no\n", NULL, &err), LRU_EINVAL);
	assert_non_null(strstr(err.msg, "demo.conf:1: a token line needs 'ok'"));
	assert_int_equal(load(&c, "", argv_count, &err), LRU_ERANGE);
	assert_string_equal(err.msg, "--max-count 65: out of range (0 to 64)");
	/* a failed load leaves the config empty */
	assert_null(c.name);
	/* the command line: unknown flags and stray arguments */
	assert_int_equal(conf_args(&prog, &src, 2, argv_bogus, NULL, NULL, NULL, &err), CONF_BAD);
	assert_string_equal(err.msg, "bad usage (see 'demo --help')");
	assert_int_equal(conf_args(&prog, &src, 2, argv_stray, NULL, NULL, NULL, &err), CONF_BAD);
	assert_string_equal(err.msg, "unexpected argument 'stray' (see 'demo --help')");
	conf_src_release(&src);
	/* a missing file is an error only when required */
	src.file = "/nonexistent/demo.conf";
	assert_int_equal(conf_load(&prog, &c, &src, &err), LRU_OK);
	conf_release(&prog, &c);
	src.required = true;
	assert_int_equal(conf_load(&prog, &c, &src, &err), LRU_EIO);
	assert_non_null(strstr(err.msg, "cannot read config file '/nonexistent/demo.conf'"));
}

static void test_print_and_help(void **state)
{
	struct demo c, back;
	struct lru_error err;
	char *text = NULL, *again = NULL, *help = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	assert_int_equal(load(&c, "globs = /x\nglobs = /y\ndemo-token = ok\nname = db\n", NULL, &err),
			 LRU_OK);
	out = open_memstream(&text, &len);
	conf_print(&prog, &c, out);
	fclose(out);
	assert_non_null(strstr(text, "# --- general ---\n# a flag\nflag = true\n"));
	assert_non_null(strstr(text, "globs = /x\nglobs = /y\n"));
	assert_non_null(strstr(text, "\nlog-level = info\n"));
	assert_non_null(strstr(text, "\ndemo-token = ok\n"));
	/* it reads back to itself */
	assert_int_equal(load(&back, text, NULL, &err), LRU_OK);
	out = open_memstream(&again, &len);
	conf_print(&prog, &back, out);
	fclose(out);
	assert_string_equal(text, again);
	/* --help: every setting with its flag, its default and its help */
	out = open_memstream(&help, &len);
	conf_usage(&prog, out);
	fclose(out);
	assert_non_null(strstr(help, "usage: demo [SETTINGS]\n"));
	assert_non_null(strstr(help, "  --[no-]flag                    a flag [true]\n"));
	assert_non_null(strstr(help, "  --wait DUR                     a wait [2m]\n"));
	assert_non_null(strstr(help, "  --log-level LEVEL              least important log lines "
				     "written [info]\n"));
	conf_release(&prog, &c);
	conf_release(&prog, &back);
	free(text);
	free(again);
	free(help);
}

static void test_reload(void **state)
{
	struct demo cur, next;
	struct conf_src src = { 0 };
	struct lru_error err;

	(void)state;
	assert_int_equal(load(&cur, "wait = 1h\n", NULL, &err), LRU_OK);
	src.file = path;
	tu_write(dir, "demo.conf", "wait = 2s\nname = x\n");
	assert_int_equal(conf_reload(&prog, &src, &cur, &next, NULL, NULL), 2);
	assert_int_equal(next.wait_ms, 2000);
	conf_release(&prog, &next);
	/* an invalid file: -1, the caller keeps its config */
	tu_write(dir, "demo.conf", "wait = soon\n");
	assert_int_equal(conf_reload(&prog, &src, &cur, &next, NULL, NULL), -1);
	assert_null(next.name);
	assert_int_equal(cur.wait_ms, 3600000);
	conf_release(&prog, &cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_syntax),
		cmocka_unit_test(test_old_syntax),
		cmocka_unit_test(test_old_names),
		cmocka_unit_test(test_booleans),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_print_and_help),
		cmocka_unit_test(test_reload),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
