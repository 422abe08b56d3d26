/* page.c - the fleet page and its login (page.h). */
#include "page.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lru_esc.h"
#include "lru_plot.h"
#include "lru_units.h"

#define REFRESH_DEFAULT 60
#define REFRESH_MIN 5
#define REFRESH_MAX 3600

static const char style[] =
	"body{font-family:DejaVu Sans,Verdana,sans-serif;margin:1.5em;color:#222;background:#fafafa}"
	"h1{font-size:1.6em;margin:0 0 .2em}h2{font-size:1.2em;margin:1.2em 0 .4em}"
	".meta{color:#555}.err{color:#a00}section{background:#fff;border:1px solid #ddd;"
	"padding:.5em 1em;margin:1em 0;max-width:1232px}svg{max-width:100%;height:auto}"
	"form{margin:2em 0}input{font-size:1em;padding:.3em}";

/* name=value pairs a query reads (query.h's arg) */
struct args {
	const char *name[4], *value[4];
};

static const char *arg_of(void *ctx, const char *name)
{
	const struct args *a = ctx;

	for (int i = 0; i < 4 && a->name[i]; i++)
		if (!strcmp(a->name[i], name))
			return a->value[i];
	return NULL;
}

static int put(struct lru_buf *b, const char *s)
{
	return lru_buf_append(b, s, strlen(s), NULL) ? -1 : 0;
}

static int put_text(struct lru_buf *b, const char *s)
{
	return lru_esc_buf(b, s, strlen(s), LRU_ESC_XML, NULL) ? -1 : 0;
}

static int head(struct lru_buf *b, const char *title, int refresh)
{
	return put(b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n") ||
	       (refresh > 0 && lru_buf_printf(b, NULL, "<meta http-equiv=\"refresh\" content=\"%d\">\n",
					      refresh)) ||
	       lru_buf_printf(b, NULL, "<title>%s</title>\n<style>%s</style>\n</head><body>\n", title,
			      style);
}

/* The values a chart draws: points, bar segments, heatmap cells with a value (lru_svg.h). */
static size_t count_values(const char *svg)
{
	static const char *const kinds[] = { "class=\"pt\"", "class=\"seg\"", "class=\"cell\"" };
	size_t n = 0;

	for (size_t k = 0; svg && k < 3; k++)
		for (const char *p = strstr(svg, kinds[k]); p; p = strstr(p + 1, kinds[k])) {
			const char *v = strstr(p, " data-v=\""), *end = strchr(p, '>');

			/* a cell without a value says nan */
			n += k < 2 || !v || !end || v > end || strncmp(v + 9, "nan", 3);
		}
	return n;
}

/*
 * One section: the query's answer drawn, or its error said. The section
 * says which (data-status) and how many values its chart holds
 * (data-points), for whoever checks the page.
 */
static int section(struct query *q, struct lru_buf *b, const char *id, const char *title,
		   json_t *(*run)(struct query *q), enum lru_plot kind, struct args *a, json_t **keep)
{
	struct lru_error err;
	struct lru_buf svg;
	json_t *doc;
	int rc;

	q->arg = arg_of;
	q->ctx = a;
	q->status = 0;
	q->error[0] = '\0';
	doc = run(q);
	lru_buf_init(&svg);
	if (doc && lru_plot_svg(kind, doc, &svg, &err)) {
		snprintf(q->error, sizeof(q->error), "%s", err.msg);
		json_decref(doc);
		doc = NULL;
	}
	if (!doc) {
		rc = lru_buf_printf(b, NULL, "<section id=\"%s\" data-status=\"error\"><h2>", id) ||
		     put_text(b, title) || put(b, "</h2><p class=\"err\">") ||
		     put_text(b, q->error[0] ? q->error : "the query failed") || put(b, "</p></section>\n");
	} else {
		size_t points = count_values((const char *)svg.data);

		rc = lru_buf_printf(b, NULL, "<section id=\"%s\" data-status=\"ok\" data-points=\"%zu\"><h2>",
				    id, points) ||
		     put_text(b, title) || put(b, "</h2>\n") ||
		     lru_buf_append(b, svg.data, svg.len, NULL) || put(b, "</section>\n");
	}
	lru_buf_release(&svg);
	if (doc && keep)
		*keep = doc;
	else
		json_decref(doc);
	return rc ? -1 : 0;
}

int page_render(struct query *q, const struct page_params *p, struct lru_buf *html)
{
	struct args cap = { { "thresholds" }, { "1m,2m,5m,10m,30m,1h,6h,24h" } };
	struct args rank = { { "need", "threshold", "limit" },
			     { p->need ? p->need : "1G", p->threshold, "20" } };
	struct args adv = { { "memcg_glob" }, { p->memcg_glob } };
	struct args job = { { "memcg_glob" }, { p->memcg_glob } };
	int refresh = p->refresh ? atoi(p->refresh) : REFRESH_DEFAULT;
	json_t *capacity = NULL;
	char when[64], title[96], need[32];
	time_t now = (time_t)(q->now_ms / 1000);
	struct tm tm;
	uint64_t bytes;
	int rc;

	if (refresh < REFRESH_MIN || refresh > REFRESH_MAX)
		refresh = REFRESH_DEFAULT;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	snprintf(need, sizeof(need), "%s", p->need ? p->need : "1G");
	if (!lru_parse_size(need, &bytes, NULL))
		lru_fmt_bytes(bytes, need, sizeof(need));
	snprintf(title, sizeof(title), "Where %s fits", need);
	rc = head(html, "lrugen fleet", refresh) || put(html, "<h1>lrugen fleet</h1>\n") ||
	     section(q, html, "capacity", "Capacity: what the fleet could free at each threshold",
		     query_capacity, LRU_PLOT_CAPACITY, &cap, &capacity) ||
	     section(q, html, "rank", title, query_rank, LRU_PLOT_RANK, &rank, NULL) ||
	     section(q, html, "advise", "Advice: promotion rate against the threshold", query_advise,
		     LRU_PLOT_ADVISE, &adv, NULL) ||
	     (p->memcg_glob && section(q, html, "job", "The job's page age over time", query_bands,
				       LRU_PLOT_JOB, &job, NULL)) ||
	     lru_buf_printf(html, NULL, "<p class=\"meta\" id=\"meta\">%" JSON_INTEGER_FORMAT
			    " hosts; drawn %s; refreshed every %d s (refresh=); rank: need=, "
			    "threshold=; advice and the job's page age: memcg_glob=. The same charts: "
			    "lrugen fleet plot capacity|rank|advise|job.</p>\n</body></html>\n",
			    json_integer_value(json_object_get(capacity, "hosts")), when, refresh);
	json_decref(capacity);
	if (rc)
		lru_buf_release(html);
	return rc ? -1 : 0;
}

int page_login(const char *why, struct lru_buf *html)
{
	int rc = head(html, "lrugen fleet: sign in", 0) ||
		 put(html, "<h1>lrugen fleet</h1>\n<p>This store answers with a read token.</p>\n") ||
		 (why && (put(html, "<p class=\"err\" id=\"why\">") || put_text(html, why) ||
			  put(html, "</p>\n"))) ||
		 put(html, "<form method=\"post\" action=\"/login\"><label>read token "
			   "<input type=\"password\" name=\"token\" autocomplete=\"current-password\" "
			   "autofocus></label> <input type=\"submit\" value=\"open\"></form>\n"
			   "<p class=\"meta\">The token is kept in a cookie for this store only "
			   "(HttpOnly). Programs send <code>Authorization: Bearer TOKEN</code> "
			   "instead.</p>\n</body></html>\n");

	if (rc)
		lru_buf_release(html);
	return rc ? -1 : 0;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int page_form_token(const char *body, size_t len, char tok[PAGE_TOKEN_MAX + 1])
{
	const char *p = body, *end = body + len;

	while (p < end) {
		const char *amp = memchr(p, '&', (size_t)(end - p)), *stop = amp ? amp : end;
		size_t n = 0;

		if (stop - p > 6 && !memcmp(p, "token=", 6)) {
			for (p += 6; p < stop; p++) {
				int c = (unsigned char)*p;

				if (c == '+') {
					c = ' ';
				} else if (c == '%') {
					if (stop - p < 3 || hexval(p[1]) < 0 || hexval(p[2]) < 0)
						return -1;
					c = hexval(p[1]) * 16 + hexval(p[2]);
					p += 2;
				}
				if (n == PAGE_TOKEN_MAX || !c)
					return -1;
				tok[n++] = (char)c;
			}
			tok[n] = '\0';
			return n ? 0 : -1;
		}
		p = stop + 1;
	}
	return -1;
}

int page_cookie_set(const char *tok, bool secure, char *out, size_t size)
{
	size_t n = strlen(tok), k;
	int w;

	w = snprintf(out, size, PAGE_COOKIE "=");
	if (w < 0 || (size_t)w + 2 * n + 64 > size)
		return -1;
	k = (size_t)w;
	for (size_t i = 0; i < n; i++)
		k += (size_t)snprintf(out + k, size - k, "%02x", (unsigned char)tok[i]);
	snprintf(out + k, size - k, "; Path=/; HttpOnly; SameSite=Lax%s", secure ? "; Secure" : "");
	return 0;
}

int page_cookie_bearer(const char *cookie, char *out, size_t size)
{
	const char *p = cookie;
	size_t len = strlen(PAGE_COOKIE);

	while (p && *p) {
		p += strspn(p, " ;");
		if (!strncmp(p, PAGE_COOKIE, len) && p[len] == '=') {
			size_t n = strcspn(p + len + 1, ";"), k = 7;
			const char *h = p + len + 1;

			if (!n || n % 2 || 7 + n / 2 + 1 > size)
				return -1;
			memcpy(out, "Bearer ", 7);
			for (size_t i = 0; i < n; i += 2) {
				int a = hexval(h[i]), b = hexval(h[i + 1]);

				if (a < 0 || b < 0 || !(a * 16 + b))
					return -1;
				out[k++] = (char)(a * 16 + b);
			}
			out[k] = '\0';
			return 0;
		}
		p = strchr(p, ';');
	}
	return -1;
}
