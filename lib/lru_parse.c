#include "lru_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_hash.h"
#include "lru_lines.h"

#define MAX_FIELDS 8

struct lru_parser {
	struct lru_snapshot *snap;
	long line;			/* number of the line being parsed */
	size_t consumed;		/* input bytes of the lines before it */
	size_t size_hint;		/* whole input length when known, else 0 */
	struct lru_lines lines;		/* a line split across feed() calls */
	bool have_memcg;		/* a memcg line was seen */
	bool memcg_has_node;		/* ... and a node line after it */
	size_t memcg;			/* current memcg index */
	bool have_lruvec;
	bool skipping;			/* current record repeats an earlier one */
	struct lru_lruvec *lv;		/* current lruvec: in snap, or scratch if skipping */
	struct lru_lruvec scratch;	/* where a repeated record is parsed */
	struct lru_full scratch_full;
	unsigned tiers_seen;		/* tier lines of the current generation */
	bool walk_seen;
	int full_mode;			/* 0 unknown, 1 lru_gen, 2 lru_gen_full */
	struct lru_hash memcgs;		/* hash(id, path) -> memcg index */
	/*
	 * Repeated records come from racy reads and are rare, so lruvecs are
	 * only indexed (hash(memcg, node) -> lruvec index) from the first
	 * repeated memcg line on. Until then every memcg record is the first
	 * of its memcg, its lruvecs are the ones added since its memcg line
	 * and fresh_nodes holds their nodes.
	 */
	bool lruvecs_indexed;
	struct lru_hash lruvecs;
	uint64_t fresh_nodes[(LRU_NODE_MAX + 64) / 64];
};

struct field {
	const char *s;
	size_t n;
};

static enum lru_err perr(struct lru_parser *p, struct lru_error *err, enum lru_err code,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5), cold));

static enum lru_err perr(struct lru_parser *p, struct lru_error *err, enum lru_err code,
			 const char *fmt, ...)
{
	va_list ap;
	enum lru_err rc;

	va_start(ap, fmt);
	rc = lru_vfail_line(err, code, p->line, fmt, ap);
	va_end(ap);
	return rc;
}

static uint64_t lruvec_hash(size_t memcg, unsigned node)
{
	return lru_hash_mix64((uint64_t)memcg << 16 | node);
}

/*
 * How many items (memcgs, lruvecs) to make room for when nr of them, made
 * from the input before the current line, fill their array: with the input
 * length known (lru_parse_buf), nr extrapolated to the whole input plus an
 * eighth, so that the array is allocated about once, at its final size.
 * At most one per 64 bytes of input (the kernel prints more than 100 bytes
 * per lruvec); 0 when nothing is known, leaving growth to doubling.
 */
static size_t extrapolate(const struct lru_parser *p, size_t nr)
{
	double est;
	size_t cap = p->size_hint / 64 + 16;

	if (!p->size_hint || !p->consumed || p->consumed >= p->size_hint)
		return 0;
	est = (double)nr * ((double)p->size_hint / (double)p->consumed) * 1.125 + 16;
	return est >= (double)cap ? cap : (size_t)est;
}

enum lru_err lru_parser_new(struct lru_parser **out, struct lru_snapshot *snap,
			    struct lru_error *err)
{
	struct lru_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return lru_fail(err, LRU_ENOMEM, "out of memory starting the parser");
	p->snap = snap;
	p->lines.max = LRU_LINE_MAX;
	*out = p;
	return LRU_OK;
}

void lru_parser_free(struct lru_parser *p)
{
	if (!p)
		return;
	lru_hash_release(&p->memcgs);
	lru_hash_release(&p->lruvecs);
	lru_lines_release(&p->lines);
	free(p);
}

static struct lru_lruvec *cur_lruvec(struct lru_parser *p)
{
	return p->lv;
}

/* The current memcg's path, quoted for a message into buf (LRU_QUOTE_BUF bytes). */
static const char *cur_path(struct lru_parser *p, char *buf)
{
	const char *path = p->snap->memcgs[p->memcg].path;

	return lru_quote(buf, path, strlen(path));
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Split s[i..n) on blanks into at most MAX_FIELDS fields; returns the count
 * or -1. Runs of 8 spaces (the kernel's column padding) are skipped at once.
 */
static int split(const char *s, size_t i, size_t n, struct field *f)
{
	int nf = 0;

	while (i < n) {
		size_t start;

		while (i + 8 <= n && !memcmp(s + i, "        ", 8))
			i += 8;
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
 * none). Returns LRU_EPARSE for a non-number, LRU_ERANGE when above max -
 * or when the digits before a non-digit already are above max, as a
 * digit-by-digit overflow check would find first.
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
	/* 19 digits cannot overflow 64 bits: compare with max once at the end */
	for (i = 0; i < n && i < 19; i++) {
		unsigned d = (unsigned char)f->s[i] - '0';

		if (d > 9)
			return v > max ? LRU_ERANGE : LRU_EPARSE;
		v = v * 10 + d;
	}
	if (v > max)
		return LRU_ERANGE;
	for (; i < n; i++) {
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
	char q[LRU_QUOTE_BUF];

	if (rc == LRU_ERANGE)
		return perr(p, err, LRU_ERANGE, "%s '%s' is out of range (at most %llu)", what,
			    lru_quote(q, f->s, f->n), (unsigned long long)max);
	if (rc)
		return perr(p, err, LRU_EPARSE, "%s '%s' is not a number", what,
			    lru_quote(q, f->s, f->n));
	return LRU_OK;
}

static enum lru_err plain_number(struct lru_parser *p, const struct field *f, uint64_t max,
				 const char *what, uint64_t *val, struct lru_error *err)
{
	char sfx, q[LRU_QUOTE_BUF];
	enum lru_err rc = field_number(p, f, max, what, val, &sfx, err);

	if (!rc && sfx)
		return perr(p, err, LRU_EPARSE, "%s '%s' is not a number", what,
			    lru_quote(q, f->s, f->n));
	return rc;
}

/* Checks that end the current generation: a full block needs its 4 tier lines. */
static enum lru_err close_gen(struct lru_parser *p, struct lru_error *err)
{
	struct lru_lruvec *lv;
	char q[LRU_QUOTE_BUF];

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
	char q[LRU_QUOTE_BUF];
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
	char q[LRU_QUOTE_BUF];
	enum lru_err rc = close_lruvec(p, err);

	if (rc)
		return rc;
	if (p->have_memcg && !p->memcg_has_node)
		return perr(p, err, LRU_EPARSE, "memcg '%s' has no node lines", cur_path(p, q));
	return LRU_OK;
}

/* Index every lruvec so far: from now on repeated records are looked up. */
static enum lru_err index_lruvecs(struct lru_parser *p)
{
	const struct lru_snapshot *s = p->snap;
	size_t i, want = extrapolate(p, s->nr_lruvecs);

	if (lru_hash_reserve(&p->lruvecs, want > s->nr_lruvecs ? want : s->nr_lruvecs))
		return LRU_ENOMEM;
	for (i = 0; i < s->nr_lruvecs; i++)
		if (lru_hash_put(&p->lruvecs, lruvec_hash(s->lruvecs[i].memcg,
						       (unsigned)s->lruvecs[i].node), i))
			return LRU_ENOMEM;
	p->lruvecs_indexed = true;
	return LRU_OK;
}

/* "memcg ID PATH": the path is the rest of the line after one blank. */
static enum lru_err memcg_line(struct lru_parser *p, const char *s, size_t n,
			       struct lru_error *err)
{
	struct lru_snapshot *snap = p->snap;
	struct field id_field;
	uint64_t id, hash;
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

	hash = lru_hash_bytes(id, path, plen);
	while (lru_hash_next(&p->memcgs, hash, &cursor, &idx)) {
		const struct lru_memcg *m = &snap->memcgs[idx];

		if (m->id == id && !strncmp(m->path, path, plen) && !m->path[plen]) {
			/* a repeated record: its lruvecs may be anywhere before */
			if (!p->lruvecs_indexed && index_lruvecs(p))
				return lru_fail(err, LRU_ENOMEM, "out of memory indexing lruvecs");
			p->memcg = idx;
			p->have_memcg = true;
			p->memcg_has_node = false;
			return LRU_OK;
		}
	}
	if (snap->nr_memcgs == snap->alloc_memcgs)
		lru_snapshot_reserve(snap, extrapolate(p, snap->nr_memcgs), 0, NULL);
	rc = lru_snapshot_add_memcg(snap, id, path, plen, &idx, err);
	if (rc)
		return rc;
	if (lru_hash_full(&p->memcgs))
		lru_hash_reserve(&p->memcgs, extrapolate(p, idx));
	if (lru_hash_put(&p->memcgs, hash, idx))
		return lru_fail(err, LRU_ENOMEM, "out of memory indexing memcgs");
	p->memcg = idx;
	p->have_memcg = true;
	p->memcg_has_node = false;
	memset(p->fresh_nodes, 0, sizeof(p->fresh_nodes));
	return LRU_OK;
}

/* A node line with a valid node number: start (or skip) its lruvec. */
static enum lru_err node_begin(struct lru_parser *p, unsigned node, struct lru_error *err)
{
	struct lru_snapshot *snap = p->snap;
	uint64_t hash = 0;
	size_t cursor = SIZE_MAX, idx;
	bool seen = false;
	enum lru_err rc;

	rc = close_lruvec(p, err);
	if (rc)
		return rc;
	p->memcg_has_node = true;
	p->tiers_seen = 0;
	p->walk_seen = false;

	if (p->lruvecs_indexed) {
		hash = lruvec_hash(p->memcg, node);
		while (!seen && lru_hash_next(&p->lruvecs, hash, &cursor, &idx))
			seen = snap->lruvecs[idx].memcg == p->memcg &&
			       snap->lruvecs[idx].node == (int)node;
	} else {
		seen = p->fresh_nodes[node / 64] >> (node % 64) & 1;
	}
	if (seen) {
		p->skipping = true;
		snap->nr_duplicates++;
		memset(&p->scratch, 0, sizeof(p->scratch));
		p->scratch.memcg = p->memcg;
		p->scratch.node = (int)node;
		p->lv = &p->scratch;
		p->have_lruvec = true;
		return LRU_OK;
	}
	p->skipping = false;
	if (snap->nr_lruvecs == snap->alloc_lruvecs)
		lru_snapshot_reserve(snap, 0, extrapolate(p, snap->nr_lruvecs), NULL);
	rc = lru_snapshot_add_lruvec(snap, p->memcg, (int)node, &idx, err);
	if (rc)
		return rc;
	p->lv = &snap->lruvecs[idx];
	p->have_lruvec = true;
	if (!p->lruvecs_indexed) {
		p->fresh_nodes[node / 64] |= 1ULL << (node % 64);
		return LRU_OK;
	}
	if (lru_hash_full(&p->lruvecs))
		lru_hash_reserve(&p->lruvecs, extrapolate(p, idx));
	if (lru_hash_put(&p->lruvecs, hash, idx))
		return lru_fail(err, LRU_ENOMEM, "out of memory indexing lruvecs");
	return LRU_OK;
}

static enum lru_err node_line(struct lru_parser *p, const struct field *f, int nf,
			      struct lru_error *err)
{
	uint64_t node;
	enum lru_err rc;

	if (nf != 2)
		return perr(p, err, LRU_EPARSE, "expected 'node N', got %d fields", nf);
	if (!p->have_memcg)
		return perr(p, err, LRU_EPARSE, "node line before any memcg line");
	rc = plain_number(p, &f[1], LRU_NODE_MAX, "node", &node, err);
	if (rc)
		return rc;
	return node_begin(p, (unsigned)node, err);
}

/* Checks before a generation line's numbers. */
static enum lru_err gen_begin(struct lru_parser *p, struct lru_error *err)
{
	if (!p->have_lruvec)
		return perr(p, err, LRU_EPARSE, "generation line before any node line");
	return close_gen(p, err);
}

/* Append generation g (its numbers parsed) to the current lruvec. */
static enum lru_err gen_end(struct lru_parser *p, const struct lru_gen *g,
			    struct lru_error *err)
{
	struct lru_lruvec *lv = cur_lruvec(p);
	const struct lru_gen *prev;
	struct lru_gen *d;
	char q[LRU_QUOTE_BUF];

	if (lv->nr_gens == LRU_MAX_GENS)
		return perr(p, err, LRU_EPARSE, "memcg '%s' node %d has more than %d generations",
			    cur_path(p, q), lv->node, LRU_MAX_GENS);
	prev = lv->nr_gens ? &lv->gens[lv->nr_gens - 1] : NULL;
	if (prev && (prev->seq == UINT64_MAX || g->seq != prev->seq + 1))
		return perr(p, err, LRU_EPARSE, "generation %llu follows %llu (not contiguous)",
			    (unsigned long long)g->seq, (unsigned long long)prev->seq);
	/* 'x' marks seq < min_seq[type]: only the oldest generations have it */
	if (prev && (g->evicted & ~prev->evicted))
		return perr(p, err, LRU_EPARSE,
			    "generation %llu is marked evicted ('x') but the older %llu is not",
			    (unsigned long long)g->seq, (unsigned long long)prev->seq);
	/* field by field: a struct copy would reload g's fields, just stored, as wider words */
	d = &lv->gens[lv->nr_gens++];
	d->seq = g->seq;
	d->age_ms = g->age_ms;
	d->evicted = g->evicted;
	d->pages[LRU_ANON] = g->pages[LRU_ANON];
	d->pages[LRU_FILE] = g->pages[LRU_FILE];
	d->birth_ms = g->birth_ms;
	p->tiers_seen = 0;
	p->walk_seen = false;
	return LRU_OK;
}

static enum lru_err gen_line(struct lru_parser *p, const struct field *f,
			     struct lru_error *err)
{
	struct lru_gen g = { 0 };
	uint64_t v;
	char sfx, q[LRU_QUOTE_BUF];
	int t;
	enum lru_err rc;

	rc = gen_begin(p, err);
	if (rc)
		return rc;
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
				    lru_quote(q, &sfx, 1));
	}
	return gen_end(p, &g, err);
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

/*
 * Counter slots of the mark letters of tier and page-walk stats lines:
 * 0 for an unknown mark, 1 for an unused slot ('x', or the space the kernel
 * prints for no mark), else 2 + the counter.
 */
static const unsigned char tier_slot[256] = {
	[' '] = 1, ['x'] = 1,
	['r'] = 2 + LRU_TC_REFAULTED, ['e'] = 2 + LRU_TC_EVICTED,
	['p'] = 2 + LRU_TC_PROTECTED, ['R'] = 2 + LRU_TC_AVG_REFAULTED,
	['T'] = 2 + LRU_TC_AVG_TOTAL,
};

static const unsigned char walk_slot[256] = {
	[' '] = 1, ['x'] = 1,
	['L'] = 2 + LRU_WALK_LEAF_TOTAL, ['l'] = 2 + LRU_WALK_LEAF_TOTAL,
	['T'] = 2 + LRU_WALK_LEAF_TOTAL, ['t'] = 2 + LRU_WALK_LEAF_TOTAL,
	['O'] = 2 + LRU_WALK_LEAF_OLD, ['o'] = 2 + LRU_WALK_LEAF_OLD,
	['Y'] = 2 + LRU_WALK_LEAF_YOUNG, ['y'] = 2 + LRU_WALK_LEAF_YOUNG,
	['N'] = 2 + LRU_WALK_NONLEAF_TOTAL, ['n'] = 2 + LRU_WALK_NONLEAF_TOTAL,
	['F'] = 2 + LRU_WALK_BLOOM_FOUND, ['f'] = 2 + LRU_WALK_BLOOM_FOUND,
	['A'] = 2 + LRU_WALK_BLOOM_ADDED, ['a'] = 2 + LRU_WALK_BLOOM_ADDED,
};

/*
 * Store counter v by the slot of its mark (nonzero) into vals[slot - 2] and
 * bit (bit0 + slot - 2) of *present; an unused slot stores nothing. Tier and
 * page-walk detail starts zeroed (ensure_full) and tier_begin and
 * walk_begin let each tier and page-walk line of a generation through once,
 * so unprinted counters stay 0 without clearing them. No branch on the mark
 * (the kernel's marks change from row to row): an unused value goes to junk.
 */
static inline void store_counter(uint64_t *vals, uint32_t *present, unsigned bit0,
				 unsigned slot, uint64_t v)
{
	uint64_t junk;
	unsigned used = slot >= 2, c = used ? slot - 2 : 0;

	*(used ? &vals[c] : &junk) = v;
	*present |= used << (bit0 + c);
}

/* The slot of a parsed suffix (0 = none) in one of the tables above. */
static unsigned suffix_slot(const unsigned char *table, char sfx)
{
	return sfx ? table[(unsigned char)sfx] : 1;
}

/* Checks of a tier line before its index. */
static enum lru_err tier_check(struct lru_parser *p, struct lru_error *err)
{
	if (!p->have_lruvec || !cur_lruvec(p)->nr_gens)
		return perr(p, err, LRU_EPARSE, "tier line before any generation line");
	return LRU_OK;
}

/* Checks of a tier line with a valid index; *out is where its counters go. */
static enum lru_err tier_begin(struct lru_parser *p, unsigned idx, struct lru_tier **out,
			       struct lru_error *err)
{
	struct lru_lruvec *lv = cur_lruvec(p);
	enum lru_err rc;

	if (p->walk_seen)
		return perr(p, err, LRU_EPARSE,
			    "tier line after the page-walk stats line of generation %llu",
			    (unsigned long long)lru_lruvec_max_seq(lv));
	if (p->tiers_seen == LRU_NR_TIERS)
		return perr(p, err, LRU_EPARSE, "generation %llu already has %d tier lines",
			    (unsigned long long)lru_lruvec_max_seq(lv), LRU_NR_TIERS);
	if (idx != p->tiers_seen)
		return perr(p, err, LRU_EPARSE, "tier %u out of order (expected tier %u)", idx,
			    p->tiers_seen);
	rc = ensure_full(p, lv, err);
	if (rc)
		return rc;
	*out = &lv->full->tiers[lv->nr_gens - 1][idx];
	return LRU_OK;
}

static void tier_end(struct lru_parser *p)
{
	struct lru_lruvec *lv = cur_lruvec(p);

	lv->full->has_tiers[lv->nr_gens - 1] = true;
	p->tiers_seen++;
}

static enum lru_err tier_line(struct lru_parser *p, const struct field *f,
			      struct lru_error *err)
{
	struct lru_tier *tier;
	uint64_t idx, v;
	char sfx, q[LRU_QUOTE_BUF];
	unsigned slot;
	int i;
	enum lru_err rc;

	rc = tier_check(p, err);
	if (!rc)
		rc = plain_number(p, &f[0], LRU_NR_TIERS - 1, "tier", &idx, err);
	if (!rc)
		rc = tier_begin(p, (unsigned)idx, &tier, err);
	if (rc)
		return rc;
	for (i = 0; i < 6; i++) {
		rc = field_number(p, &f[1 + i], UINT64_MAX, "tier counter", &v, &sfx, err);
		if (rc)
			return rc;
		slot = suffix_slot(tier_slot, sfx);
		if (!slot)
			return perr(p, err, LRU_EPARSE, "unknown tier counter suffix '%s'",
				    lru_quote(q, &sfx, 1));
		store_counter(tier->v[i / 3], &tier->present, i / 3 * LRU_TC_NR, slot, v);
	}
	tier_end(p);
	return LRU_OK;
}

/* Checks of a page-walk stats line before its counters; *out is where they go. */
static enum lru_err walk_begin(struct lru_parser *p, struct lru_walk **out,
			       struct lru_error *err)
{
	struct lru_lruvec *lv;

	if (!p->have_lruvec || !cur_lruvec(p)->nr_gens || !cur_lruvec(p)->full)
		return perr(p, err, LRU_EPARSE, "page-walk stats line before any tier line");
	lv = cur_lruvec(p);
	if (p->walk_seen)
		return perr(p, err, LRU_EPARSE, "second page-walk stats line for generation %llu",
			    (unsigned long long)lru_lruvec_max_seq(lv));
	if (p->tiers_seen != LRU_NR_TIERS)
		return perr(p, err, LRU_EPARSE, "page-walk stats line after %u of %d tier lines",
			    p->tiers_seen, LRU_NR_TIERS);
	*out = &lv->full->walk[lv->nr_gens - 1];
	return LRU_OK;
}

static void walk_end(struct lru_parser *p)
{
	struct lru_lruvec *lv = cur_lruvec(p);

	lv->full->has_walk[lv->nr_gens - 1] = true;
	p->walk_seen = true;
}

static enum lru_err walk_line(struct lru_parser *p, const struct field *f, int nf,
			      struct lru_error *err)
{
	struct lru_walk *w;
	uint64_t v;
	char sfx, q[LRU_QUOTE_BUF];
	unsigned slot;
	int i;
	enum lru_err rc;

	rc = walk_begin(p, &w, err);
	if (rc)
		return rc;
	for (i = 0; i < nf; i++) {
		rc = field_number(p, &f[i], UINT64_MAX, "page-walk counter", &v, &sfx, err);
		if (rc)
			return rc;
		slot = suffix_slot(walk_slot, sfx);
		if (!slot)
			return perr(p, err, LRU_EPARSE, "unknown page-walk counter suffix '%s'",
				    lru_quote(q, &sfx, 1));
		store_counter(w->v, &w->present, 0, slot, v);
	}
	walk_end(p);
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

/* ---------------------------------------------------------------------------
 * Fast paths for the kernel's fixed-width lines (mm/vmscan.c,
 * lru_gen_seq_show() and lru_gen_seq_show_full(), 6.1 to 6.18):
 *
 *	node		" node %5d"					11 bytes
 *	generation	" %10lu %10u" then " %10lu%c" per type		46 bytes
 *	tier		"            %10d" then " %10lu%c" x 6		94 bytes
 *	page-walk	22 spaces then " %10lu%c" x 6 (6.1)		94 bytes
 *			22 spaces then " %10lu%c" x 4 (6.8+)		70 bytes
 *
 * %c is a mark letter or a space. A line of one of these lengths whose bytes
 * have exactly that shape - spaces, right-aligned digits, known marks - has
 * the fields the general path would split it into, so its values are read
 * straight from the columns. Anything else (a tab, a number wider than its
 * column, an unknown mark, a value out of range) takes the general path,
 * which also finds every error: a fast path never reports one of its own
 * beyond the record-structure checks it shares with the general path.
 * Validated bytes hold no NUL and no newline.
 */
#define GEN_LINE_LEN 46
#define TIER_LINE_LEN 94
#define WALK6_LINE_LEN 94
#define WALK4_LINE_LEN 70
#define NODE_LINE_LEN 11
/* the counters of tier and page-walk lines: " %10lu%c" from byte 22 on */
#define COUNTERS_AT 22
#define COUNTER_LEN 12

#define ONES 0x0101010101010101ULL

/* 8 bytes of s in memory order: byte i in bits 8i..8i+7 (little-endian loads). */
static uint64_t load8(const char *s)
{
	uint64_t w;

	memcpy(&w, s, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* The first two bytes of a "%10lu" column of a number above 99999999. */
static uint64_t col10_head(const char *c, uint64_t m, uint64_t *bad)
{
	unsigned h0 = (unsigned char)c[0] - '0', h1 = (unsigned char)c[1] - '0';

	/* the last 8 bytes are all digits, then one digit or two */
	*bad |= m | (h1 > 9) | (h0 > 9 && c[0] != ' ');
	return (h0 > 9 ? 0 : h0) * 1000000000ULL + h1 * 100000000ULL;
}

/*
 * A "%10lu" column: 0 to 9 spaces, then digits to the end of its 10 bytes.
 * Returns its value; sets *bad nonzero when the bytes have any other shape.
 * The last 8 bytes are checked and converted at once, without a loop or a
 * branch per byte (a space reads as digit 0: ' ' & 0xf == 0); the first two
 * are spaces unless the number has 9 or 10 digits.
 */
static inline __attribute__((always_inline)) uint64_t col10(const char *c, uint64_t *bad)
{
	uint64_t w = load8(c + 2), t, m;

	/*
	 * m: 0xff in each byte that is not a digit (t above 9, or a carry from
	 * such a byte: then that byte is no space, and the column is bad anyway)
	 */
	t = w ^ (ONES * '0');
	m = (((t + ONES * 0x76) | t) & (ONES * 0x80)) >> 7;
	m *= 0xff;
	*bad |= (m & (m + 1)) |			/* non-digits only before the digits */
		((w ^ (ONES * ' ')) & m) |	/* ... and they are spaces */
		(m >> 56);			/* the last byte is a digit */
	w &= ONES * 0x0f;
	w = (w * (10 * 256 + 1)) >> 8 & 0x00ff00ff00ff00ffULL;
	w = (w * (100 * 65536 + 1)) >> 16 & 0x0000ffff0000ffffULL;
	w = (w * (10000 * 4294967296ULL + 1)) >> 32;
	if (__builtin_expect(c[0] != ' ' || c[1] != ' ', 0))
		w += col10_head(c, m, bad);
	return w;
}

/* True when the n bytes at s are spaces (n >= 8). */
static bool spaces(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i + 8 < n; i += 8)
		if (load8(s + i) != ONES * ' ')
			return false;
	return load8(s + n - 8) == ONES * ' ';
}

/* " node %5d" */
static bool node_fixed(const char *s, unsigned *node)
{
	unsigned v = 0, i = 6;

	if (memcmp(s, " node ", 6))
		return false;
	while (i < 10 && s[i] == ' ')
		i++;
	for (; i < NODE_LINE_LEN; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return false;
		v = v * 10 + d;
	}
	*node = v;
	return v <= LRU_NODE_MAX;
}

/* " %10lu %10u %10lu%c %10lu%c", %c ' ' or 'x' */
static inline __attribute__((always_inline)) bool gen_fixed(const char *s, struct lru_gen *g)
{
	uint64_t bad = (s[0] != ' ') | (s[11] != ' ') | (s[22] != ' ') | (s[34] != ' '), age;
	char a = s[33], f = s[45];

	g->seq = col10(s + 1, &bad);
	age = col10(s + 12, &bad);
	g->pages[LRU_ANON] = col10(s + 23, &bad);
	g->pages[LRU_FILE] = col10(s + 35, &bad);
	g->age_ms = (uint32_t)age;
	g->evicted = (uint8_t)((a == 'x') | (f == 'x') << 1);
	g->birth_ms = 0;
	bad |= (age > UINT32_MAX) | (a != ' ' && a != 'x') | (f != ' ' && f != 'x');
	return !bad;
}

/*
 * nr counters " %10lu%c" from s + COUNTERS_AT: values into v, the slots of
 * their marks (tier_slot or walk_slot) into slot. False unless all are of
 * that shape with known marks.
 */
static bool counters_fixed(const char *s, int nr, const unsigned char *table, uint64_t *v,
			   unsigned *slot)
{
	uint64_t bad = 0;
	int i;

	for (i = 0; i < nr; i++) {
		const char *c = s + COUNTERS_AT + COUNTER_LEN * i;

		v[i] = col10(c + 1, &bad);
		slot[i] = table[(unsigned char)c[11]];
		bad |= (c[0] != ' ') | !slot[i];
	}
	return !bad;
}

/* "            %10d" then 6 counters, the index a single digit 0..3 */
static bool tier_fixed(struct lru_parser *p, const char *s, enum lru_err *rc,
		       struct lru_error *err)
{
	uint64_t v[6];
	unsigned slot[6], idx = (unsigned char)s[21] - '0';
	struct lru_tier *tier;
	int i;

	if (!spaces(s, 21) || idx >= LRU_NR_TIERS || !counters_fixed(s, 6, tier_slot, v, slot))
		return false;
	p->line++;
	*rc = tier_check(p, err);
	if (!*rc)
		*rc = tier_begin(p, idx, &tier, err);
	if (*rc)
		return true;
	for (i = 0; i < 6; i++)
		store_counter(tier->v[i / 3], &tier->present, i / 3 * LRU_TC_NR, slot[i], v[i]);
	tier_end(p);
	return true;
}

/* 22 spaces then nr counters: 6 (6.1), or 4 that all carry a letter (6.8+) */
static bool walk_fixed(struct lru_parser *p, const char *s, int nr, enum lru_err *rc,
		       struct lru_error *err)
{
	uint64_t v[6];
	unsigned slot[6];
	struct lru_walk *w;
	int i;

	if (!spaces(s, COUNTERS_AT) || !counters_fixed(s, nr, walk_slot, v, slot))
		return false;
	for (i = 0; nr == 4 && i < nr; i++)
		if (s[COUNTERS_AT + COUNTER_LEN * i + 11] == ' ')
			return false;	/* not a page-walk line (is_walk) */
	p->line++;
	*rc = walk_begin(p, &w, err);
	if (*rc)
		return true;
	for (i = 0; i < nr; i++)
		store_counter(w->v, &w->present, 0, slot[i], v[i]);
	walk_end(p);
	return true;
}

/*
 * Parse line s (n bytes, no newline) if it is one of the fixed-width lines:
 * returns true with *rc set, or false when the general path must parse it.
 * Before the first memcg line the general path parses everything (and
 * reports the error).
 */
static bool fixed_line(struct lru_parser *p, const char *s, size_t n, enum lru_err *rc,
		       struct lru_error *err)
{
	struct lru_gen g;
	unsigned node;

	switch (n) {
	case NODE_LINE_LEN:
		if (!p->have_memcg || !node_fixed(s, &node))
			return false;
		p->line++;
		*rc = node_begin(p, node, err);
		return true;
	case GEN_LINE_LEN:
		if (!p->have_memcg || !gen_fixed(s, &g))
			return false;
		p->line++;
		*rc = gen_begin(p, err);
		if (!*rc)
			*rc = gen_end(p, &g, err);
		return true;
	case TIER_LINE_LEN: /* == WALK6_LINE_LEN */
		if (!p->have_memcg)
			return false;
		if (s[21] != ' ')
			return tier_fixed(p, s, rc, err);
		return walk_fixed(p, s, 6, rc, err);
	case WALK4_LINE_LEN:
		return p->have_memcg && walk_fixed(p, s, 4, rc, err);
	default:
		return false;
	}
}

static enum lru_err parse_line(struct lru_parser *p, const char *s, size_t n,
			       struct lru_error *err)
{
	struct field f[MAX_FIELDS];
	char q[LRU_QUOTE_BUF];
	size_t i;
	int nf;
	enum lru_err rc;

	if (fixed_line(p, s, n, &rc, err))
		return rc;
	p->line++;
	if (n > LRU_LINE_MAX)
		return perr(p, err, LRU_EPARSE, "line is longer than %d bytes", LRU_LINE_MAX);
	if (memchr(s, '\0', n))
		return perr(p, err, LRU_EPARSE, "NUL byte in the input");
	for (i = 0; i < n && is_blank(s[i]); i++)
		;
	if (n - i >= 5 && !memcmp(s + i, "memcg", 5) && (n - i == 5 || is_blank(s[i + 5])))
		return memcg_line(p, s + i, n - i, err);
	nf = split(s, i, n, f);
	if (nf < 0)
		return perr(p, err, LRU_EPARSE, "more than %d fields: '%s'", MAX_FIELDS,
			    lru_quote(q, s + i, n - i));
	if (nf == 0)
		return perr(p, err, LRU_EPARSE, "empty line");
	if (f[0].n == 4 && !memcmp(f[0].s, "node", 4))
		return node_line(p, f, nf, err);
	if (!p->have_memcg)
		return perr(p, err, LRU_EPARSE, "expected a 'memcg ID PATH' line, got '%s'",
			    lru_quote(q, s + i, n - i));
	if (is_walk(f, nf))
		return walk_line(p, f, nf, err);
	if (nf == 4)
		return gen_line(p, f, err);
	if (nf == 7)
		return tier_line(p, f, err);
	return perr(p, err, LRU_EPARSE,
		    "expected a generation, tier or page-walk stats line, got %d fields: '%s'",
		    nf, lru_quote(q, s + i, n - i));
}

/*
 * The length of the line at buf if it may be one of the fixed-width lines
 * (fixed_line() checks that it is), or 0: a newline at that distance.
 */
static size_t fixed_len(const char *buf, size_t len)
{
	if (len > GEN_LINE_LEN && buf[GEN_LINE_LEN] == '\n')
		return GEN_LINE_LEN;
	if (len > TIER_LINE_LEN && buf[TIER_LINE_LEN] == '\n')
		return TIER_LINE_LEN;
	if (len > WALK4_LINE_LEN && buf[WALK4_LINE_LEN] == '\n')
		return WALK4_LINE_LEN;
	if (len > NODE_LINE_LEN && buf[NODE_LINE_LEN] == '\n')
		return NODE_LINE_LEN;
	return 0;
}

enum lru_err lru_parser_feed(struct lru_parser *p, const char *buf, size_t len,
			     struct lru_error *err)
{
	enum lru_err rc;

	while (len) {
		const char *line;
		size_t n;

		/*
		 * Most lines are fixed-width: try a newline at their lengths
		 * first. fixed_line() checks every byte before it (none is a
		 * newline), so the line needs no memchr().
		 */
		n = p->lines.plen ? 0 : fixed_len(buf, len);
		if (n && fixed_line(p, buf, n, &rc, err)) {
			if (rc)
				return rc;
			p->consumed += n + 1;
			buf += n + 1;
			len -= n + 1;
			continue;
		}
		rc = lru_lines_next(&p->lines, &buf, &len, &line, &n, &p->line, err);
		if (rc || !line)
			return rc;
		rc = parse_line(p, line, n, err);
		p->consumed += n + 1;
		if (rc)
			return rc;
	}
	return LRU_OK;
}

enum lru_err lru_parser_finish(struct lru_parser *p, struct lru_error *err)
{
	if (p->lines.plen) {
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
	struct lru_parser *p = NULL;
	enum lru_err rc = lru_parser_new(&p, snap, err);

	if (rc)
		return rc;
	p->size_hint = len;
	rc = lru_parser_feed(p, buf, len, err);
	if (!rc)
		rc = lru_parser_finish(p, err);
	lru_parser_free(p);
	return rc;
}
