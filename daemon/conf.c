/* conf.c - settings from a table: config file, flags, --help, --print-config, reload. */
#include "conf.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* the common options, just below the settings' values */
enum {
	OPT_CONFIG = CONF_OPT_BASE - 4,
	OPT_PRINT,
	OPT_VERSION,
};

/* ---- loading ------------------------------------------------------------------- */

void conf_src_release(struct conf_src *src)
{
	for (size_t i = 0; i < src->nr_flags; i++)
		free(src->flags[i].value);
	free(src->flags);
	src->flags = NULL;
	src->nr_flags = 0;
}

void conf_release(const struct conf_prog *p, void *cfg)
{
	lru_set_release(cfg, p->defs, p->nr_defs);
	if (p->release)
		p->release(cfg);
	memset(cfg, 0, p->size);
}

static enum lru_err set_defaults(const struct conf_prog *p, void *cfg, struct lru_error *err)
{
	enum lru_err rc;

	memset(cfg, 0, p->size);
	rc = lru_set_defaults(cfg, p->defs, p->nr_defs, err);
	if (!rc && p->defaults)
		rc = p->defaults(cfg, err);
	return rc;
}

/* An old spelling met in a file: the first one, rewritten, and how many. */
struct old_spelling {
	int line, count;
	char was[160], now[160];
};

static void note_old(struct old_spelling *o, int line, const char *was, const char *now)
{
	if (!o->count++) {
		o->line = line;
		snprintf(o->was, sizeof(o->was), "%s", was);
		snprintf(o->now, sizeof(o->now), "%s", now);
	}
}

/* One warning for every old spelling of a kind in file. */
static void warn_old(const struct conf_prog *p, const char *file, const struct old_spelling *o,
		     const char *what)
{
	char msg[512], more[48] = "";

	if (!o->count)
		return;
	if (o->count > 1)
		snprintf(more, sizeof(more), " (and %d more line%s)", o->count - 1,
			 o->count > 2 ? "s" : "");
	snprintf(msg, sizeof(msg), "%s:%d: '%s' is %s: write '%s'%s", file, o->line, o->was, what,
		 o->now, more);
	if (p->warn)
		p->warn(msg);
	else
		log_warn("%s", msg);
}

/* Cut a comment off s: '#' at the start or after a blank, outside double quotes. */
static void cut_comment(char *s)
{
	bool quoted = false;

	for (char *c = s; *c; c++) {
		if (*c == '"')
			quoted = !quoted;
		else if (*c == '#' && !quoted && (c == s || c[-1] == ' ' || c[-1] == '\t'))
			*c = '\0';
		if (!*c)
			return;
	}
}

struct file_state {
	const char *file;
	int line;
	bool *seen;			/* per setting: met in this file */
	struct old_spelling syntax, names;
};

/* One line of a config file into cfg. */
static enum lru_err file_line(const struct conf_prog *p, void *cfg, struct file_state *fs, char *s,
			      struct lru_error *err)
{
	const struct lru_set_def *d;
	struct lru_error verr;
	char key[64], was[160], now[160], *val, *rest;
	size_t len, vlen;
	bool old_syntax;

	cut_comment(s);
	s = lru_set_trim(s);
	if (!*s)
		return LRU_OK;
	len = strcspn(s, " \t=");
	rest = s + len + strspn(s + len, " \t");
	if (!len || !*rest)
		return lru_fail(err, LRU_EINVAL, "%s:%d: expected 'name = value'", fs->file, fs->line);
	old_syntax = *rest != '=';
	val = lru_set_trim(old_syntax ? rest : rest + 1);
	s[len] = '\0';
	vlen = strlen(val);
	if (vlen >= 2 && val[0] == '"' && val[vlen - 1] == '"') {
		val[vlen - 1] = '\0';
		val++;
	}
	if (len >= sizeof(key))
		return lru_fail(err, LRU_EINVAL, "%s:%d: unknown setting '%.40s...'", fs->file, fs->line, s);
	for (size_t i = 0; i <= len; i++)
		key[i] = s[i] == '_' ? '-' : s[i];
	d = lru_set_find(p->defs, p->nr_defs, key, len);
	if (d) {
		size_t idx = (size_t)(d - p->defs);

		if (fs->seen[idx] && d->type != LRU_SET_LIST && d->type != LRU_SET_DURATIONS)
			return lru_fail(err, LRU_EINVAL, "%s:%d: '%s' is set twice", fs->file, fs->line, s);
		if (lru_set_value(cfg, d, val, !fs->seen[idx], &verr))
			return lru_fail(err, verr.code, "%s:%d: %s = %s: %s", fs->file, fs->line, s, val,
					verr.msg);
		fs->seen[idx] = true;
	} else {
		int r = p->line ? p->line(cfg, key, val, &verr) : 0;

		if (r < 0)
			return lru_fail(err, verr.code, "%s:%d: %s", fs->file, fs->line, verr.msg);
		if (!r)
			return lru_fail(err, LRU_EINVAL, "%s:%d: unknown setting '%s'", fs->file, fs->line, s);
	}
	if (old_syntax) {
		snprintf(was, sizeof(was), "%s %.80s", s, val);
		snprintf(now, sizeof(now), "%s = %.80s", key, val);
		note_old(&fs->syntax, fs->line, was, now);
	}
	if (strchr(s, '_'))
		note_old(&fs->names, fs->line, s, key);
	return LRU_OK;
}

static enum lru_err load_file(const struct conf_prog *p, void *cfg, const char *file,
			      bool required, struct lru_error *err)
{
	struct file_state fs = { .file = file };
	enum lru_err rc = LRU_OK;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(file, "r");

	if (!f) {
		if (errno == ENOENT && !required)
			return LRU_OK;
		return lru_fail(err, LRU_EIO, "cannot read config file '%s': %s", file, strerror(errno));
	}
	fs.seen = calloc(p->nr_defs, sizeof(*fs.seen));
	if (!fs.seen) {
		fclose(f);
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	while (!rc && getline(&line, &cap, f) > 0) {
		fs.line++;
		rc = file_line(p, cfg, &fs, line, err);
	}
	if (!rc && ferror(f))
		rc = lru_fail(err, LRU_EIO, "cannot read config file '%s': %s", file, strerror(errno));
	warn_old(p, file, &fs.syntax, "the old 'NAME VALUE' syntax");
	warn_old(p, file, &fs.names, "an old spelling");
	free(fs.seen);
	free(line);
	fclose(f);
	return rc;
}

static enum lru_err apply_flags(const struct conf_prog *p, void *cfg, const struct conf_src *src,
				struct lru_error *err)
{
	bool *seen = calloc(p->nr_defs, sizeof(*seen));
	enum lru_err rc = LRU_OK;

	if (!seen)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < src->nr_flags; i++) {
		const struct conf_flag *fl = &src->flags[i];
		struct lru_error verr;

		if (lru_set_value(cfg, &p->defs[fl->def], fl->value, !seen[fl->def], &verr))
			rc = lru_fail(err, verr.code, "--%s %s: %s", p->defs[fl->def].name, fl->value,
				      verr.msg);
		seen[fl->def] = true;
	}
	free(seen);
	return rc;
}

enum lru_err conf_load(const struct conf_prog *p, void *cfg, const struct conf_src *src,
		       struct lru_error *err)
{
	enum lru_err rc = set_defaults(p, cfg, err);

	if (!rc && src->file)
		rc = load_file(p, cfg, src->file, src->required, err);
	if (!rc)
		rc = apply_flags(p, cfg, src, err);
	if (!rc && p->check)
		rc = p->check(cfg, err);
	if (rc)
		conf_release(p, cfg);
	return rc;
}

int conf_reload(const struct conf_prog *p, const struct conf_src *src, const void *cur, void *next,
		int (*check)(void *arg, const void *cfg, struct lru_error *err), void *arg)
{
	struct lru_error err;
	int changes = 0;

	lru_error_clear(&err);
	if (conf_load(p, next, src, &err) || (check && check(arg, next, &err))) {
		conf_release(p, next);
		log_error("reload: %s; keeping the old configuration", err.msg);
		return -1;
	}
	for (size_t i = 0; i < p->nr_defs; i++) {
		char va[4096], vb[4096];

		if (p->defs[i].type == LRU_SET_SECTION)
			continue;
		lru_set_format(cur, &p->defs[i], va, sizeof(va));
		lru_set_format(next, &p->defs[i], vb, sizeof(vb));
		if (strcmp(va, vb)) {
			log_info("config: %s: '%s' -> '%s'", p->defs[i].name, va, vb);
			changes++;
		}
	}
	if (!changes)
		log_info("reload: configuration unchanged");
	return changes;
}

/* ---- the command line ---------------------------------------------------------- */

/*
 * getopt_long's table: the common options, extra, and every setting as
 * --NAME (val CONF_OPT_BASE + 2 * index) and, for a boolean, --no-NAME
 * (+ 1). The caller frees it with free_options.
 */
static struct option *make_options(const struct conf_prog *p, const struct option *extra)
{
	static const struct option common[] = {
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "print-config", no_argument, NULL, OPT_PRINT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
	};
	size_t ncommon = sizeof(common) / sizeof(common[0]), nextra = 0, n;
	struct option *opts;

	while (extra && extra[nextra].name)
		nextra++;
	opts = calloc(ncommon + nextra + 2 * p->nr_defs + 1, sizeof(*opts));
	if (!opts)
		return NULL;
	memcpy(opts, common, sizeof(common));
	if (nextra)
		memcpy(opts + ncommon, extra, nextra * sizeof(*opts));
	n = ncommon + nextra;
	for (size_t i = 0; i < p->nr_defs; i++) {
		const struct lru_set_def *d = &p->defs[i];
		int val = CONF_OPT_BASE + 2 * (int)i;
		size_t size = strlen(d->name) + 4;
		char *no;

		if (d->type == LRU_SET_SECTION)
			continue;
		if (d->type != LRU_SET_BOOL) {
			opts[n++] = (struct option){ d->name, required_argument, NULL, val };
			continue;
		}
		opts[n++] = (struct option){ d->name, optional_argument, NULL, val };
		if (!(no = malloc(size)))
			break;
		snprintf(no, size, "no-%s", d->name);
		opts[n++] = (struct option){ no, no_argument, NULL, val + 1 };
	}
	return opts;
}

static void free_options(struct option *opts)
{
	for (struct option *o = opts; o && o->name; o++)
		if (o->val >= CONF_OPT_BASE && (o->val - CONF_OPT_BASE) % 2)
			free((char *)o->name);
	free(opts);
}

static enum lru_err add_flag(const struct conf_prog *p, struct conf_src *src, int val,
			     const char *arg, struct lru_error *err)
{
	size_t idx = (size_t)(val - CONF_OPT_BASE) / 2;
	struct conf_flag *v;
	char *value;

	if (p->defs[idx].type == LRU_SET_BOOL && !arg)
		arg = (val - CONF_OPT_BASE) % 2 ? "false" : "true";
	value = strdup(arg);
	v = realloc(src->flags, (src->nr_flags + 1) * sizeof(*v));
	if (v)
		src->flags = v;
	if (!value || !v) {
		free(value);
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	src->flags[src->nr_flags++] = (struct conf_flag){ idx, value };
	return LRU_OK;
}

enum conf_action conf_args(const struct conf_prog *p, struct conf_src *src, int argc, char **argv,
			   const struct option *extra,
			   int (*opt)(void *arg, int val, const char *optarg, struct lru_error *err),
			   void *arg, struct lru_error *err)
{
	struct option *opts = make_options(p, extra);
	enum conf_action action = CONF_RUN;
	int o;

	if (!opts) {
		lru_fail(err, LRU_ENOMEM, "out of memory");
		return CONF_BAD;
	}
	if (!src->file) {
		src->file = p->default_file;
		src->required = false;
	}
	optind = 0;	/* a full restart of getopt, also for a second call */
	opterr = 1;
	while (action != CONF_BAD && (o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (o == 'h' || o == OPT_VERSION) {
			free_options(opts);
			return o == 'h' ? CONF_HELP : CONF_VERSION;
		}
		if (o == OPT_CONFIG) {
			src->file = optarg;
			src->required = true;
		} else if (o == OPT_PRINT) {
			action = CONF_PRINT;
		} else if (o >= CONF_OPT_BASE) {
			if (add_flag(p, src, o, optarg, err))
				action = CONF_BAD;
		} else if (o == '?' || o == ':' || !opt) {
			lru_fail(err, LRU_EINVAL, "bad usage (see '%s --help')", p->name);
			action = CONF_BAD;
		} else if (opt(arg, o, optarg, err)) {
			action = CONF_BAD;
		}
	}
	free_options(opts);
	if (action != CONF_BAD && optind < argc) {
		lru_fail(err, LRU_EINVAL, "unexpected argument '%s' (see '%s --help')", argv[optind],
			 p->name);
		action = CONF_BAD;
	}
	return action;
}

/* ---- output ----------------------------------------------------------------------- */

/*
 * Words of text, each after a space, wrapped at 79 columns: the first line
 * goes on from column col, the others start with indent.
 */
static void wrap(FILE *out, int col, const char *indent, const char *text)
{
	int min = (int)strlen(indent);

	while (*text) {
		size_t word = strcspn(text, " ");

		if (col + 1 + (int)word > 79 && col > min) {
			fputc('\n', out);
			col = fprintf(out, "%s", indent);
		}
		col += fprintf(out, " %.*s", (int)word, text);
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

/* "  --flag ARG   help text [default]" */
static void print_flag(FILE *out, const char *flag, const char *help, const char *def)
{
	char text[1024];
	int col;

	if (def[0])
		snprintf(text, sizeof(text), "%s [%s]", help, def);
	else
		snprintf(text, sizeof(text), "%s", help);
	col = fprintf(out, "  %-30s", flag);
	if (col > 33) {
		fputc('\n', out);
		col = fprintf(out, "  %-30s", "");
	}
	wrap(out, col, "                                ", text);
}

void conf_usage(const struct conf_prog *p, FILE *out)
{
	void *def = calloc(1, p->size);
	struct lru_error err;

	fputs(p->usage, out);
	fputs("\nsettings (config file 'name = value', or --name VALUE; flags win over the file):\n",
	      out);
	if (def && !set_defaults(p, def, &err)) {
		for (size_t i = 0; i < p->nr_defs; i++) {
			const struct lru_set_def *d = &p->defs[i];
			char flag[96], val[256];

			if (d->type == LRU_SET_SECTION) {
				fprintf(out, "\n%s:\n", d->name);
				continue;
			}
			snprintf(flag, sizeof(flag), "--%s%s%s%s", d->type == LRU_SET_BOOL ? "[no-]" : "",
				 d->name, d->arg ? " " : "", d->arg ? d->arg : "");
			print_flag(out, flag, d->help, lru_set_format(def, d, val, sizeof(val)));
		}
	}
	if (def)
		conf_release(p, def);
	free(def);
	fputs("\nDurations: 500ms 30s 2m 1h 7d. Sizes: 4096 512K 16M 4G. Booleans: true, false\n"
	      "(also yes/no, on/off, 1/0).\n", out);
	if (p->usage_tail)
		fputs(p->usage_tail, out);
}

void conf_version(const struct conf_prog *p, FILE *out)
{
	fprintf(out, "%s %s\n", p->name, LRUGEN_VERSION);
}

void conf_print(const struct conf_prog *p, const void *cfg, FILE *out)
{
	for (size_t i = 0; i < p->nr_defs; i++) {
		const struct lru_set_def *d = &p->defs[i];
		const struct lru_set_list *l = (const void *)((const char *)cfg + d->off);
		char val[4096];

		if (d->type == LRU_SET_SECTION) {
			fprintf(out, "%s# --- %s ---\n", i ? "\n" : "", d->name);
			continue;
		}
		wrap(out, fprintf(out, "#"), "#", d->help);
		if (d->type == LRU_SET_LIST && l->n) {
			/* one item per line: the first replaces, the others append */
			for (size_t j = 0; j < l->n; j++)
				fprintf(out, "%s = %s\n", d->name, l->v[j]);
			continue;
		}
		lru_set_format(cfg, d, val, sizeof(val));
		fprintf(out, "%s =%s%s\n", d->name, val[0] ? " " : "", val);
	}
	if (p->print)
		p->print(cfg, out);
}
