#include "lru_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 8
/* longest excerpt of the input quoted in a message */
#define QUOTE_MAX 40
#define QUOTE_BUF (QUOTE_MAX + 4)

/* Open-addressing table of 64-bit keys to indices; keys may repeat (digests). */
struct table {
	uint64_t *keys;
	size_t *vals;		/* index + 1; 0 = empty slot */
	size_t size, used;	/* size is a power of two */
};

struct lru_parser {
	struct lru_snapshot *snap;
	long line;			/* number of the line being parsed */
	char *partial;			/* a line split across feed() calls */
	size_t plen;
	bool have_memcg;		/* a memcg line was seen */
	bool memcg_has_node;		/* ... and a node line after it */
	size_t memcg;			/* current memcg index */
	bool have_lruvec;
	bool skipping;			/* current record repeats an earlier one */
	size_t lruvec;			/* current lruvec index, unless skipping */
	struct lru_lruvec scratch;	/* where a repeated record is parsed */
	struct lru_full scratch_full;
	unsigned tiers_seen;		/* tier lines of the current generation */
	bool walk_seen;
	int full_mode;			/* 0 unknown, 1 lru_gen, 2 lru_gen_full */
	struct table memcgs;		/* digest(id, path) -> memcg index */
	struct table lruvecs;		/* memcg index << 16 | node -> lruvec index */
};

struct field {
	const char *s;
	size_t n;
};

static enum lru_err perr(struct lru_parser *p, struct lru_error *err, enum lru_err code,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum lru_err perr(struct lru_parser *p, struct lru_error *err, enum lru_err code,
			 const char *fmt, ...)
{
	char msg[LRU_ERRMSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err)
		err->line = (int)p->line;
	return lru_fail(err, code, "line %ld: %s", p->line, msg);
}

/*
 * Copy at most QUOTE_MAX bytes of s into buf (QUOTE_BUF bytes) for a message:
 * bytes that are not printable ASCII become '?', a cut is marked "...".
 */
static const char *quote(char *buf, const char *s, size_t n)
{
	size_t i, m = n > QUOTE_MAX ? QUOTE_MAX : n;

	for (i = 0; i < m; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (m < n) {
		memcpy(buf + m, "...", 3);
		m += 3;
	}
	buf[m] = '\0';
	return buf;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t memcg_digest(uint64_t id, const char *path, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ mix64(id);
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)path[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static enum lru_err table_put(struct table *t, uint64_t key, size_t val)
{
	size_t i;

	if ((t->used + 1) * 2 > t->size) {
		struct table n = { 0 };
		size_t j;

		n.size = t->size ? t->size * 2 : 64;
		n.keys = malloc(n.size * sizeof(*n.keys));
		n.vals = calloc(n.size, sizeof(*n.vals));
		if (!n.keys || !n.vals) {
			free(n.keys);
			free(n.vals);
			return LRU_ENOMEM;
		}
		for (j = 0; j < t->size; j++) {
			if (!t->vals[j])
				continue;
			for (i = mix64(t->keys[j]) & (n.size - 1); n.vals[i]; i = (i + 1) & (n.size - 1))
				;
			n.keys[i] = t->keys[j];
			n.vals[i] = t->vals[j];
		}
		n.used = t->used;
		free(t->keys);
		free(t->vals);
		*t = n;
	}
	for (i = mix64(key) & (t->size - 1); t->vals[i]; i = (i + 1) & (t->size - 1))
		;
	t->keys[i] = key;
	t->vals[i] = val + 1;
	t->used++;
	return LRU_OK;
}

/*
 * Iterate over the values stored under key: start with *cursor = SIZE_MAX;
 * returns false when there are no more.
 */
static bool table_next(const struct table *t, uint64_t key, size_t *cursor, size_t *val)
{
	size_t i;

	if (!t->size)
		return false;
	i = *cursor == SIZE_MAX ? mix64(key) & (t->size - 1) : (*cursor + 1) & (t->size - 1);
	for (; t->vals[i]; i = (i + 1) & (t->size - 1)) {
		if (t->keys[i] == key) {
			*cursor = i;
			*val = t->vals[i] - 1;
			return true;
		}
	}
	return false;
}

static void table_free(struct table *t)
{
	free(t->keys);
	free(t->vals);
}

enum lru_err lru_parser_new(struct lru_parser **out, struct lru_snapshot *snap,
			    struct lru_error *err)
{
	struct lru_parser *p = calloc(1, sizeof(*p));

	if (!p || !(p->partial = malloc(LRU_LINE_MAX + 1))) {
		free(p);
		return lru_fail(err, LRU_ENOMEM, "out of memory starting the parser");
	}
	p->snap = snap;
	*out = p;
	return LRU_OK;
}

void lru_parser_free(struct lru_parser *p)
{
	if (!p)
		return;
	table_free(&p->memcgs);
	table_free(&p->lruvecs);
	free(p->partial);
	free(p);
}

static struct lru_lruvec *cur_lruvec(struct lru_parser *p)
{
	return p->skipping ? &p->scratch : &p->snap->lruvecs[p->lruvec];
}

/* The current memcg's path, quoted for a message into buf (QUOTE_BUF bytes). */
static const char *cur_path(struct lru_parser *p, char *buf)
{
	const char *path = p->snap->memcgs[p->memcg].path;

	return quote(buf, path, strlen(path));
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Split a line on blanks into at most MAX_FIELDS fields; returns the count or -1. */
static int split(const char *s, size_t n, struct field *f)
{
	size_t i = 0;
	int nf = 0;

	while (i < n) {
		size_t start;

		while (i < n && is_blank(s[i]))
			i++;
		if (i == n)
			break;
		if (nf == MAX_FIELDS)
			return -1;
		start = i;
		while (i < n && !is_blank(s[i]))
			i++;
		f[nf].s = s + start;
		f[nf].n = i - start;
		nf++;
	}
	return nf;
}

/*
 * Parse a decimal number with at most one trailing letter (*suffix, 0 if
 * none). Returns LRU_EPARSE for a non-number, LRU_ERANGE when above max.
 */
static enum lru_err number(const struct field *f, uint64_t max, uint64_t *val, char *suffix)
{
	uint64_t v = 0;
	size_t i, n = f->n;

	*suffix = 0;
	if (n && !(f->s[n - 1] >= '0' && f->s[n - 1] <= '9')) {
		*suffix = f->s[n - 1];
		n--;
	}
	if (!n)
		return LRU_EPARSE;
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned char)f->s[i] - '0';

		if (d > 9)
			return LRU_EPARSE;
		if (d > max || v > (max - d) / 10)
			return LRU_ERANGE;
		v = v * 10 + d;
	}
	*val = v;
	return LRU_OK;
}

static enum lru_err field_number(struct lru_parser *p, const struct field *f, uint64_t max,
				 const char *what, uint64_t *val, char *suffix,
				 struct lru_error *err)
{
	enum lru_err rc = number(f, max, val, suffix);
	char q[QUOTE_BUF];

	if (rc == LRU_ERANGE)
		return perr(p, err, LRU_ERANGE, "%s '%s' is out of range (at most %llu)", what,
			    quote(q, f->s, f->n), (unsigned long long)max);
	if (rc)
		return perr(p, err, LRU_EPARSE, "%s '%s' is not a number", what,
			    quote(q, f->s, f->n));
	return LRU_OK;
}

static enum lru_err plain_number(struct lru_parser *p, const struct field *f, uint64_t max,
				 const char *what, uint64_t *val, struct lru_error *err)
{
	char sfx, q[QUOTE_BUF];
	enum lru_err rc = field_number(p, f, max, what, val, &sfx, err);

	if (!rc && sfx)
		return perr(p, err, LRU_EPARSE, "%s '%s' is not a number", what,
			    quote(q, f->s, f->n));
	return rc;
}

/* Checks that end the current generation: a full block needs its 4 tier lines. */
static enum lru_err close_gen(struct lru_parser *p, struct lru_error *err)
{
	struct lru_lruvec *lv;
	char q[QUOTE_BUF];

	if (!p->have_lruvec)
		return LRU_OK;
	lv = cur_lruvec(p);
	if (lv->nr_gens && lv->full && p->tiers_seen != LRU_NR_TIERS)
		return perr(p, err, LRU_EPARSE,
			    "generation %llu of memcg '%s' node %d has %u of %d tier lines",
			    (unsigned long long)lv->gens[lv->nr_gens - 1].seq, cur_path(p, q),
			    lv->node, p->tiers_seen, LRU_NR_TIERS);
	return LRU_OK;
}

/*
 * Checks that end the current lruvec: it has generations, the youngest is not
 * marked evicted (the kernel keeps min_seq below max_seq), and it is of the
 * same kind (lru_gen or lru_gen_full) as the records before it.
 */
static enum lru_err close_lruvec(struct lru_parser *p, struct lru_error *err)
{
	struct lru_lruvec *lv;
	char q[QUOTE_BUF];
	int mode;
	enum lru_err rc;

	if (!p->have_lruvec)
		return LRU_OK;
	rc = close_gen(p, err);
	if (rc)
		return rc;
	lv = cur_lruvec(p);
	if (!lv->nr_gens)
		return perr(p, err, LRU_EPARSE, "node %d of memcg '%s' has no generation lines",
			    lv->node, cur_path(p, q));
	if (lru_lruvec_youngest(lv)->evicted)
		return perr(p, err, LRU_EPARSE,
			    "youngest generation %llu of memcg '%s' node %d is marked evicted ('x')",
			    (unsigned long long)lru_lruvec_max_seq(lv), cur_path(p, q), lv->node);
	mode = lv->full ? 2 : 1;
	if (p->full_mode && p->full_mode != mode)
		return perr(p, err, LRU_EPARSE,
			    "node %d of memcg '%s' %s tier lines, unlike the records before it",
			    lv->node, cur_path(p, q), lv->full ? "has" : "has no");
	p->full_mode = mode;
	p->have_lruvec = false;
	return LRU_OK;
}

static enum lru_err close_memcg(struct lru_parser *p, struct lru_error *err)
{
	char q[QUOTE_BUF];
	enum lru_err rc = close_lruvec(p, err);

	if (rc)
		return rc;
	if (p->have_memcg && !p->memcg_has_node)
		return perr(p, err, LRU_EPARSE, "memcg '%s' has no node lines", cur_path(p, q));
	return LRU_OK;
}

/* "memcg ID PATH": the path is the rest of the line after one blank. */
static enum lru_err memcg_line(struct lru_parser *p, const char *s, size_t n,
			       struct lru_error *err)
{
	struct field id_field;
	uint64_t id, digest;
	size_t i = 5, cursor = SIZE_MAX, idx;
	const char *path;
	size_t plen;
	enum lru_err rc;

	rc = close_memcg(p, err);
	if (rc)
		return rc;
	while (i < n && is_blank(s[i]))
		i++;
	id_field.s = s + i;
	while (i < n && !is_blank(s[i]))
		i++;
	id_field.n = (size_t)(s + i - id_field.s);
	if (!id_field.n)
		return perr(p, err, LRU_EPARSE, "memcg line has no id");
	rc = plain_number(p, &id_field, UINT64_MAX, "memcg id", &id, err);
	if (rc)
		return rc;
	if (i == n)
		return perr(p, err, LRU_EPARSE, "memcg line has no path after id %llu",
			    (unsigned long long)id);
	path = s + i + 1;
	plen = n - i - 1;
	if (plen > LRU_PATH_MAX)
		return perr(p, err, LRU_EPARSE, "memcg path is longer than %d bytes", LRU_PATH_MAX);

	digest = memcg_digest(id, path, plen);
	while (table_next(&p->memcgs, digest, &cursor, &idx)) {
		const struct lru_memcg *m = &p->snap->memcgs[idx];

		if (m->id == id && strlen(m->path) == plen && !memcmp(m->path, path, plen)) {
			p->memcg = idx;
			p->have_memcg = true;
			p->memcg_has_node = false;
			return LRU_OK;
		}
	}
	rc = lru_snapshot_add_memcg(p->snap, id, path, plen, &idx, err);
	if (rc)
		return rc;
	if (table_put(&p->memcgs, digest, idx))
		return lru_fail(err, LRU_ENOMEM, "out of memory indexing memcgs");
	p->memcg = idx;
	p->have_memcg = true;
	p->memcg_has_node = false;
	return LRU_OK;
}

static enum lru_err node_line(struct lru_parser *p, const struct field *f, int nf,
			      struct lru_error *err)
{
	uint64_t node, key;
	size_t cursor = SIZE_MAX, idx;
	enum lru_err rc;

	if (nf != 2)
		return perr(p, err, LRU_EPARSE, "expected 'node N', got %d fields", nf);
	if (!p->have_memcg)
		return perr(p, err, LRU_EPARSE, "node line before any memcg line");
	rc = plain_number(p, &f[1], LRU_NODE_MAX, "node", &node, err);
	if (rc)
		return rc;
	rc = close_lruvec(p, err);
	if (rc)
		return rc;
	p->memcg_has_node = true;
	p->have_lruvec = true;
	p->tiers_seen = 0;
	p->walk_seen = false;

	key = (uint64_t)p->memcg << 16 | node;
	if (table_next(&p->lruvecs, key, &cursor, &idx)) {
		p->skipping = true;
		p->snap->nr_duplicates++;
		memset(&p->scratch, 0, sizeof(p->scratch));
		p->scratch.memcg = p->memcg;
		p->scratch.node = (int)node;
		return LRU_OK;
	}
	p->skipping = false;
	rc = lru_snapshot_add_lruvec(p->snap, p->memcg, (int)node, &p->lruvec, err);
	if (rc)
		return rc;
	if (table_put(&p->lruvecs, key, p->lruvec))
		return lru_fail(err, LRU_ENOMEM, "out of memory indexing lruvecs");
	return LRU_OK;
}

static enum lru_err gen_line(struct lru_parser *p, const struct field *f,
			     struct lru_error *err)
{
	struct lru_lruvec *lv;
	struct lru_gen g = { 0 };
	const struct lru_gen *prev;
	uint64_t v;
	char sfx, q[QUOTE_BUF];
	int t;
	enum lru_err rc;

	if (!p->have_lruvec)
		return perr(p, err, LRU_EPARSE, "generation line before any node line");
	rc = close_gen(p, err);
	if (rc)
		return rc;
	lv = cur_lruvec(p);
	rc = plain_number(p, &f[0], UINT64_MAX, "sequence number", &g.seq, err);
	if (!rc)
		rc = plain_number(p, &f[1], UINT32_MAX, "age_in_ms", &v, err);
	if (rc)
		return rc;
	g.age_ms = (uint32_t)v;
	for (t = 0; t < LRU_NR_TYPES; t++) {
		rc = field_number(p, &f[2 + t], UINT64_MAX, t ? "file page count" : "anon page count",
				  &g.pages[t], &sfx, err);
		if (rc)
			return rc;
		if (sfx == 'x')
			g.evicted |= 1u << t;
		else if (sfx)
			return perr(p, err, LRU_EPARSE, "unexpected mark '%s' after a page count",
				    quote(q, &sfx, 1));
	}
	if (lv->nr_gens == LRU_MAX_GENS)
		return perr(p, err, LRU_EPARSE, "memcg '%s' node %d has more than %d generations",
			    cur_path(p, q), lv->node, LRU_MAX_GENS);
	prev = lv->nr_gens ? &lv->gens[lv->nr_gens - 1] : NULL;
	if (prev && (prev->seq == UINT64_MAX || g.seq != prev->seq + 1))
		return perr(p, err, LRU_EPARSE, "generation %llu follows %llu (not contiguous)",
			    (unsigned long long)g.seq, (unsigned long long)prev->seq);
	/* 'x' marks seq < min_seq[type]: only the oldest generations have it */
	if (prev && (g.evicted & ~prev->evicted))
		return perr(p, err, LRU_EPARSE,
			    "generation %llu is marked evicted ('x') but the older %llu is not",
			    (unsigned long long)g.seq, (unsigned long long)prev->seq);
	lv->gens[lv->nr_gens++] = g;
	p->tiers_seen = 0;
	p->walk_seen = false;
	return LRU_OK;
}

static enum lru_err ensure_full(struct lru_parser *p, struct lru_lruvec *lv,
				struct lru_error *err)
{
	if (lv->full)
		return LRU_OK;
	if (lv->nr_gens != 1)
		return perr(p, err, LRU_EPARSE,
			    "tier line for generation %llu, but earlier generations had none",
			    (unsigned long long)lv->gens[lv->nr_gens - 1].seq);
	if (p->skipping) {
		memset(&p->scratch_full, 0, sizeof(p->scratch_full));
		lv->full = &p->scratch_full;
		return LRU_OK;
	}
	lv->full = calloc(1, sizeof(*lv->full));
	if (!lv->full)
		return lru_fail(err, LRU_ENOMEM, "out of memory for lru_gen_full detail");
	return LRU_OK;
}

/* The counter of a tier-line suffix: -1 for an unused slot, -2 if unknown. */
static int tier_counter(char sfx)
{
	switch (sfx) {
	case 'r': return LRU_TC_REFAULTED;
	case 'e': return LRU_TC_EVICTED;
	case 'p': return LRU_TC_PROTECTED;
	case 'R': return LRU_TC_AVG_REFAULTED;
	case 'T': return LRU_TC_AVG_TOTAL;
	case 0:
	case 'x': return -1;
	default: return -2;
	}
}

static enum lru_err tier_line(struct lru_parser *p, const struct field *f,
			      struct lru_error *err)
{
	struct lru_lruvec *lv;
	struct lru_tier *tier;
	uint64_t idx, v;
	char sfx, q[QUOTE_BUF];
	int i, c;
	enum lru_err rc;

	if (!p->have_lruvec || !cur_lruvec(p)->nr_gens)
		return perr(p, err, LRU_EPARSE, "tier line before any generation line");
	lv = cur_lruvec(p);
	rc = plain_number(p, &f[0], LRU_NR_TIERS - 1, "tier", &idx, err);
	if (rc)
		return rc;
	if (p->walk_seen)
		return perr(p, err, LRU_EPARSE,
			    "tier line after the page-walk stats line of generation %llu",
			    (unsigned long long)lru_lruvec_max_seq(lv));
	if (p->tiers_seen == LRU_NR_TIERS)
		return perr(p, err, LRU_EPARSE, "generation %llu already has %d tier lines",
			    (unsigned long long)lru_lruvec_max_seq(lv), LRU_NR_TIERS);
	if (idx != p->tiers_seen)
		return perr(p, err, LRU_EPARSE, "tier %llu out of order (expected tier %u)",
			    (unsigned long long)idx, p->tiers_seen);
	rc = ensure_full(p, lv, err);
	if (rc)
		return rc;
	tier = &lv->full->tiers[lv->nr_gens - 1][idx];
	memset(tier, 0, sizeof(*tier));
	for (i = 0; i < 6; i++) {
		rc = field_number(p, &f[1 + i], UINT64_MAX, "tier counter", &v, &sfx, err);
		if (rc)
			return rc;
		c = tier_counter(sfx);
		if (c == -2)
			return perr(p, err, LRU_EPARSE, "unknown tier counter suffix '%s'",
				    quote(q, &sfx, 1));
		if (c < 0)
			continue;
		tier->v[i / 3][c] = v;
		tier->present |= 1u << (i / 3 * LRU_TC_NR + c);
	}
	lv->full->has_tiers[lv->nr_gens - 1] = true;
	p->tiers_seen++;
	return LRU_OK;
}

static int walk_counter(char sfx)
{
	switch (sfx) {
	case 'L': case 'l': case 'T': case 't': return LRU_WALK_LEAF_TOTAL;
	case 'O': case 'o': return LRU_WALK_LEAF_OLD;
	case 'Y': case 'y': return LRU_WALK_LEAF_YOUNG;
	case 'N': case 'n': return LRU_WALK_NONLEAF_TOTAL;
	case 'F': case 'f': return LRU_WALK_BLOOM_FOUND;
	case 'A': case 'a': return LRU_WALK_BLOOM_ADDED;
	case 0: case 'x': return -1;
	default: return -2;
	}
}

static enum lru_err walk_line(struct lru_parser *p, const struct field *f, int nf,
			      struct lru_error *err)
{
	struct lru_lruvec *lv;
	struct lru_walk *w;
	uint64_t v;
	char sfx, q[QUOTE_BUF];
	int i, c;
	enum lru_err rc;

	if (!p->have_lruvec || !cur_lruvec(p)->nr_gens || !cur_lruvec(p)->full)
		return perr(p, err, LRU_EPARSE, "page-walk stats line before any tier line");
	lv = cur_lruvec(p);
	if (p->walk_seen)
		return perr(p, err, LRU_EPARSE, "second page-walk stats line for generation %llu",
			    (unsigned long long)lru_lruvec_max_seq(lv));
	if (p->tiers_seen != LRU_NR_TIERS)
		return perr(p, err, LRU_EPARSE, "page-walk stats line after %u of %d tier lines",
			    p->tiers_seen, LRU_NR_TIERS);
	w = &lv->full->walk[lv->nr_gens - 1];
	memset(w, 0, sizeof(*w));
	for (i = 0; i < nf; i++) {
		rc = field_number(p, &f[i], UINT64_MAX, "page-walk counter", &v, &sfx, err);
		if (rc)
			return rc;
		c = walk_counter(sfx);
		if (c == -2)
			return perr(p, err, LRU_EPARSE, "unknown page-walk counter suffix '%s'",
				    quote(q, &sfx, 1));
		if (c < 0)
			continue;
		w->v[c] = v;
		w->present |= 1u << c;
	}
	lv->full->has_walk[lv->nr_gens - 1] = true;
	p->walk_seen = true;
	return LRU_OK;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_plain(const struct field *f)
{
	return f->n && is_digit(f->s[f->n - 1]);
}

/* Digits with at most one letter after them: a counter as the kernel prints it. */
static bool is_counter(const struct field *f)
{
	size_t i, n = f->n;
	char c = n ? f->s[n - 1] : 0;

	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		n--;
	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!is_digit(f->s[i]))
			return false;
	return true;
}

/*
 * A page-walk stats line: 6 counters (6.1: L O Y N F A, or unmarked) or 4
 * counters that all carry a letter (6.8+: T Y F A or x) - unlike a
 * generation line, whose first two fields are plain numbers.
 */
static bool is_walk(const struct field *f, int nf)
{
	int i;

	if (nf != 4 && nf != 6)
		return false;
	for (i = 0; i < nf; i++)
		if (!is_counter(&f[i]) || (nf == 4 && is_plain(&f[i])))
			return false;
	return true;
}

static enum lru_err parse_line(struct lru_parser *p, const char *s, size_t n,
			       struct lru_error *err)
{
	struct field f[MAX_FIELDS];
	char q[QUOTE_BUF];
	size_t i;
	int nf;

	p->line++;
	if (n > LRU_LINE_MAX)
		return perr(p, err, LRU_EPARSE, "line is longer than %d bytes", LRU_LINE_MAX);
	if (memchr(s, '\0', n))
		return perr(p, err, LRU_EPARSE, "NUL byte in the input");
	for (i = 0; i < n && is_blank(s[i]); i++)
		;
	if (n - i >= 5 && !memcmp(s + i, "memcg", 5) && (n - i == 5 || is_blank(s[i + 5])))
		return memcg_line(p, s + i, n - i, err);
	nf = split(s, n, f);
	if (nf < 0)
		return perr(p, err, LRU_EPARSE, "more than %d fields: '%s'", MAX_FIELDS,
			    quote(q, s + i, n - i));
	if (nf == 0)
		return perr(p, err, LRU_EPARSE, "empty line");
	if (f[0].n == 4 && !memcmp(f[0].s, "node", 4))
		return node_line(p, f, nf, err);
	if (!p->have_memcg)
		return perr(p, err, LRU_EPARSE, "expected a 'memcg ID PATH' line, got '%s'",
			    quote(q, s + i, n - i));
	if (is_walk(f, nf))
		return walk_line(p, f, nf, err);
	if (nf == 4)
		return gen_line(p, f, err);
	if (nf == 7)
		return tier_line(p, f, err);
	return perr(p, err, LRU_EPARSE,
		    "expected a generation, tier or page-walk stats line, got %d fields: '%s'",
		    nf, quote(q, s + i, n - i));
}

enum lru_err lru_parser_feed(struct lru_parser *p, const char *buf, size_t len,
			     struct lru_error *err)
{
	enum lru_err rc;

	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;

		if (!nl || p->plen) {
			if (p->plen + n > LRU_LINE_MAX) {
				p->line++;
				return perr(p, err, LRU_EPARSE, "line is longer than %d bytes",
					    LRU_LINE_MAX);
			}
			memcpy(p->partial + p->plen, buf, n);
			p->plen += n;
			if (!nl)
				return LRU_OK;
			rc = parse_line(p, p->partial, p->plen, err);
			p->plen = 0;
		} else {
			rc = parse_line(p, buf, n, err);
		}
		if (rc)
			return rc;
		buf += n + 1;
		len -= n + 1;
	}
	return LRU_OK;
}

enum lru_err lru_parser_finish(struct lru_parser *p, struct lru_error *err)
{
	if (p->plen) {
		p->line++;
		return perr(p, err, LRU_EPARSE, "truncated: no newline at the end of the input");
	}
	if (!p->have_memcg) {
		p->line++;
		return perr(p, err, LRU_EPARSE, "empty input: no memcg records");
	}
	p->line++;	/* errors found here are at the end of the input */
	return close_memcg(p, err);
}

enum lru_err lru_parse_buf(struct lru_snapshot *snap, const char *buf, size_t len,
			   struct lru_error *err)
{
	struct lru_parser *p;
	enum lru_err rc = lru_parser_new(&p, snap, err);

	if (rc)
		return rc;
	rc = lru_parser_feed(p, buf, len, err);
	if (!rc)
		rc = lru_parser_finish(p, err);
	lru_parser_free(p);
	return rc;
}
