#include "lru_cgparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_lines.h"
#include "lru_units.h"

enum cg_key { K_SEQ, K_AGE, K_BIRTH, K_ANON, K_FILE, K_NR };

/* The required keys, with the largest value each may hold. */
static const struct {
	const char *name;
	uint64_t max;
} cg_keys[K_NR] = {
	[K_SEQ] = { "seq", UINT64_MAX },
	[K_AGE] = { "age_ms", UINT32_MAX },
	[K_BIRTH] = { "birth_ms", UINT64_MAX },
	[K_ANON] = { "anon", UINT64_MAX },
	[K_FILE] = { "file", UINT64_MAX },
};

struct lru_cgparser {
	struct lru_snapshot *snap;
	size_t memcg;
	long line;
	struct lru_lines lines;	/* a line split across feeds */
	bool have_lruvec;
	size_t lruvec;		/* index of the current node's lruvec */
};

enum lru_err lru_cgparser_new(struct lru_cgparser **out, struct lru_snapshot *snap,
			      size_t memcg, struct lru_error *err)
{
	struct lru_cgparser *p;

	if (memcg >= snap->nr_memcgs)
		return lru_fail(err, LRU_EINVAL, "memcg index %zu is not in the snapshot", memcg);
	p = calloc(1, sizeof(*p));
	if (!p)
		return lru_fail(err, LRU_ENOMEM, "out of memory starting the parser");
	p->snap = snap;
	p->memcg = memcg;
	p->lines.max = LRU_LINE_MAX;
	*out = p;
	return LRU_OK;
}

void lru_cgparser_free(struct lru_cgparser *p)
{
	if (!p)
		return;
	lru_lines_release(&p->lines);
	free(p);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Add generation g of node to the memcg: a new lruvec, or the next seq of the current one. */
static enum lru_err add_gen(struct lru_cgparser *p, unsigned node, const struct lru_gen *g,
			    struct lru_error *err)
{
	struct lru_lruvec *lv = p->have_lruvec ? &p->snap->lruvecs[p->lruvec] : NULL;
	enum lru_err rc;

	if (lv && (unsigned)lv->node > node)
		return lru_fail_line(err, LRU_EPARSE, p->line,
				     "node %u after node %d: nodes must ascend", node, lv->node);
	if (!lv || (unsigned)lv->node != node) {
		rc = lru_snapshot_add_lruvec(p->snap, p->memcg, (int)node, &p->lruvec, err);
		if (rc)
			return rc;
		p->have_lruvec = true;
		lv = &p->snap->lruvecs[p->lruvec];
	} else {
		uint64_t last = lru_lruvec_max_seq(lv);

		if (last == UINT64_MAX || g->seq != last + 1)
			return lru_fail_line(err, LRU_EPARSE, p->line,
					     "node %u: seq %llu after %llu: generations must be "
					     "contiguous and ascend", node,
					     (unsigned long long)g->seq, (unsigned long long)last);
		if (lv->nr_gens >= LRU_MAX_GENS)
			return lru_fail_line(err, LRU_EPARSE, p->line,
					     "node %u has more than %d generations", node,
					     LRU_MAX_GENS);
	}
	lv->gens[lv->nr_gens++] = *g;
	return LRU_OK;
}

/* The node field "N<nid>". */
static enum lru_err node_field(struct lru_cgparser *p, const char *s, size_t n, unsigned *node,
			       struct lru_error *err)
{
	char q[LRU_QUOTE_BUF];
	uint64_t v;
	enum lru_err rc;

	if (n < 2 || s[0] != 'N')
		return lru_fail_line(err, LRU_EPARSE, p->line, "expected 'N<node>' first, got '%s'",
				     lru_quote(q, s, n));
	rc = lru_parse_dec(s + 1, n - 1, LRU_NODE_MAX, &v);
	if (rc == LRU_ERANGE)
		return lru_fail_line(err, LRU_ERANGE, p->line, "node '%s' is out of range (at most %d)",
				     lru_quote(q, s, n), LRU_NODE_MAX);
	if (rc)
		return lru_fail_line(err, LRU_EPARSE, p->line, "node '%s' is not N followed by a number",
				     lru_quote(q, s, n));
	*node = (unsigned)v;
	return LRU_OK;
}

/* One KEY=VALUE field: a required key into vals (once), an unknown one skipped. */
static enum lru_err key_field(struct lru_cgparser *p, const char *s, size_t n, uint64_t *vals,
			      unsigned *seen, struct lru_error *err)
{
	const char *eq = memchr(s, '=', n);
	size_t klen = eq ? (size_t)(eq - s) : 0, i;
	char q[LRU_QUOTE_BUF];
	enum lru_err rc;
	int k;

	for (i = 0; i < klen && is_key_char(s[i]); i++)
		;
	if (!eq || !klen || i < klen || klen + 1 == n)
		return lru_fail_line(err, LRU_EPARSE, p->line, "expected KEY=VALUE, got '%s'",
				     lru_quote(q, s, n));
	for (k = 0; k < K_NR; k++)
		if (strlen(cg_keys[k].name) == klen && !memcmp(cg_keys[k].name, s, klen))
			break;
	if (k == K_NR)
		return LRU_OK;	/* a key from a newer kernel */
	if (*seen & (1u << k))
		return lru_fail_line(err, LRU_EPARSE, p->line, "key '%s' appears twice",
				     cg_keys[k].name);
	*seen |= 1u << k;
	rc = lru_parse_dec(eq + 1, n - klen - 1, cg_keys[k].max, &vals[k]);
	if (rc == LRU_ERANGE)
		return lru_fail_line(err, LRU_ERANGE, p->line, "%s '%s' is out of range (at most %llu)",
				     cg_keys[k].name, lru_quote(q, eq + 1, n - klen - 1),
				     (unsigned long long)cg_keys[k].max);
	if (rc)
		return lru_fail_line(err, LRU_EPARSE, p->line, "%s '%s' is not a decimal number",
				     cg_keys[k].name, lru_quote(q, eq + 1, n - klen - 1));
	return LRU_OK;
}

static enum lru_err parse_line(struct lru_cgparser *p, const char *s, size_t n,
			       struct lru_error *err)
{
	uint64_t vals[K_NR] = { 0 };
	unsigned seen = 0, node = 0, nf = 0;
	uint32_t page = p->snap->page_size ? p->snap->page_size : 4096;
	struct lru_gen g = { 0 };
	size_t i = 0;
	int k;

	p->line++;
	if (n > LRU_LINE_MAX)
		return lru_fail_line(err, LRU_EPARSE, p->line, "line is longer than %d bytes",
				     LRU_LINE_MAX);
	for (size_t j = 0; j < n; j++)
		if ((unsigned char)s[j] < 0x20 && s[j] != '\t')
			return lru_fail_line(err, LRU_EPARSE, p->line,
					     "control character 0x%02x in the line",
					     (unsigned char)s[j]);
	while (i < n) {
		size_t start;
		enum lru_err rc;

		while (i < n && is_blank(s[i]))
			i++;
		if (i == n)
			break;
		start = i;
		while (i < n && !is_blank(s[i]))
			i++;
		rc = nf++ ? key_field(p, s + start, i - start, vals, &seen, err)
			  : node_field(p, s + start, i - start, &node, err);
		if (rc)
			return rc;
	}
	if (!nf)
		return lru_fail_line(err, LRU_EPARSE, p->line, "empty line");
	for (k = 0; k < K_NR; k++)
		if (!(seen & (1u << k)))
			return lru_fail_line(err, LRU_EPARSE, p->line, "node %u: key '%s' is missing",
					     node, cg_keys[k].name);
	for (k = K_ANON; k <= K_FILE; k++)
		if (vals[k] % page)
			return lru_fail_line(err, LRU_EPARSE, p->line,
					     "%s=%llu is not a multiple of the page size (%u)",
					     cg_keys[k].name, (unsigned long long)vals[k], page);
	g.seq = vals[K_SEQ];
	g.age_ms = (uint32_t)vals[K_AGE];
	g.pages[LRU_ANON] = vals[K_ANON] / page;
	g.pages[LRU_FILE] = vals[K_FILE] / page;
	return add_gen(p, node, &g, err);
}

enum lru_err lru_cgparser_feed(struct lru_cgparser *p, const char *buf, size_t len,
			       struct lru_error *err)
{
	for (;;) {
		const char *line;
		size_t n;
		enum lru_err rc = lru_lines_next(&p->lines, &buf, &len, &line, &n, &p->line, err);

		if (rc || !line)
			return rc;
		rc = parse_line(p, line, n, err);
		if (rc)
			return rc;
	}
}

enum lru_err lru_cgparser_finish(struct lru_cgparser *p, struct lru_error *err)
{
	if (p->lines.plen) {
		p->line++;
		return lru_fail_line(err, LRU_EPARSE, p->line,
				     "truncated: no newline at the end of the input");
	}
	return LRU_OK;
}

enum lru_err lru_cgparse_buf(struct lru_snapshot *snap, size_t memcg, const char *buf,
			     size_t len, struct lru_error *err)
{
	struct lru_cgparser *p = NULL;
	enum lru_err rc = lru_cgparser_new(&p, snap, memcg, err);

	if (rc)
		return rc;
	rc = lru_cgparser_feed(p, buf, len, err);
	if (!rc)
		rc = lru_cgparser_finish(p, err);
	lru_cgparser_free(p);
	return rc;
}
