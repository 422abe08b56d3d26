/* lru_client.c - requests to lrugen-store over libcurl: one set of options, one error map. */
#include "lru_client.h"
#include "lru_gz.h"

#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct lru_client {
	CURL *curl;
	struct lru_client_opts o;	/* the strings below are its own */
	char *url, *token, *ca_file, *agent;
	struct lru_client_resp *resp;	/* of the transfer in flight */
	bool too_large;
};

enum lru_err lru_client_global_init(struct lru_error *err)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return lru_fail(err, LRU_EIO, "cannot initialise libcurl");
	return LRU_OK;
}

void lru_client_global_cleanup(void)
{
	curl_global_cleanup();
}

static void wipe_free(char *s)
{
	if (s)
		memset(s, 0, strlen(s));
	free(s);
}

static enum lru_err dup_opt(char **dst, const char *src, struct lru_error *err)
{
	*dst = NULL;
	if (src && *src && !(*dst = strdup(src)))
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	return LRU_OK;
}

enum lru_err lru_client_new(const struct lru_client_opts *opts, struct lru_client **out,
			    struct lru_error *err)
{
	struct lru_client *c;
	size_t len;

	*out = NULL;
	if (strncmp(opts->url, "http://", 7) && strncmp(opts->url, "https://", 8))
		return lru_fail(err, LRU_EINVAL, "'%s' is not an http:// or https:// URL", opts->url);
	c = calloc(1, sizeof(*c));
	if (!c || !(c->curl = curl_easy_init())) {
		free(c);
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	}
	c->o = *opts;
	if (dup_opt(&c->url, opts->url, err) || dup_opt(&c->token, opts->token, err) ||
	    dup_opt(&c->ca_file, opts->ca_file, err) || dup_opt(&c->agent, opts->agent, err)) {
		lru_client_free(c);
		return LRU_ENOMEM;
	}
	len = strlen(c->url);
	while (len && c->url[len - 1] == '/')
		c->url[--len] = '\0';
	*out = c;
	return LRU_OK;
}

void lru_client_free(struct lru_client *c)
{
	if (!c)
		return;
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->url);
	wipe_free(c->token);
	free(c->ca_file);
	free(c->agent);
	free(c);
}

enum lru_err lru_client_set_token(struct lru_client *c, const char *token,
				  struct lru_error *err)
{
	wipe_free(c->token);
	return dup_opt(&c->token, token, err);
}

enum lru_err lru_client_read_token(const char *file, char **token, struct lru_error *err)
{
	char buf[4096];
	FILE *fp = fopen(file, "re");
	int e = errno;
	size_t n;

	*token = NULL;
	if (!fp)
		return lru_fail(err, e == ENOENT ? LRU_ENOENT : LRU_EACCES,
				"cannot read token file '%s': %s", file, strerror(e));
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	*token = strdup(buf);
	memset(buf, 0, sizeof(buf));
	return *token ? LRU_OK : lru_fail(err, LRU_ENOMEM, "out of memory reading a token");
}

const char *lru_client_url(const struct lru_client *c)
{
	return c->url;
}

void lru_client_resp_release(struct lru_client_resp *resp)
{
	lru_buf_release(&resp->body);
}

/* ---- one transfer ------------------------------------------------------------------ */

/* The value of header line buf (len bytes) when it is name's ("name:"), NUL-terminated in value. */
static bool header_value(const char *buf, size_t len, const char *name, char *value, size_t size)
{
	size_t n = strlen(name), vlen;

	if (len <= n + 1 || strncasecmp(buf, name, n) || buf[n] != ':')
		return false;
	vlen = len - n - 1 < size - 1 ? len - n - 1 : size - 1;
	memcpy(value, buf + n + 1, vlen);
	value[vlen] = '\0';
	return true;
}

static size_t on_header(char *buf, size_t size, size_t n, void *arg)
{
	struct lru_client *c = arg;
	size_t len = size * n;
	char value[128];

	if (header_value(buf, len, "accept-encoding", value, sizeof(value)) && strcasestr(value, "gzip"))
		c->resp->store_gzip = true;
	if (header_value(buf, len, "x-lrugen-as-of", value, sizeof(value)))
		c->resp->as_of_ms = strtoll(value, NULL, 10);
	return len;
}

static size_t on_body(char *buf, size_t size, size_t n, void *arg)
{
	struct lru_client *c = arg;
	struct lru_buf *b = &c->resp->body;
	size_t len = size * n, keep = len;

	if (c->o.max_body && b->len + len > c->o.max_body) {
		if (!c->o.cut_body) {
			c->too_large = true;
			return 0;
		}
		keep = c->o.max_body - b->len;
	}
	return lru_buf_append(b, buf, keep, NULL) ? 0 : len;
}

static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct lru_client *c = arg;

	(void)dt, (void)dn, (void)ut, (void)un;
	return c->o.abort(c->o.abort_arg);
}

static bool is_post(const struct lru_client_req *rq)
{
	return rq->route < LRU_ROUTE_NR ? lru_route(rq->route)->post : rq->body != NULL;
}

/* base URL + path + ?name=value&... of the given parameters */
static enum lru_err build_url(struct lru_client *c, const struct lru_client_req *rq,
			      struct lru_buf *url, struct lru_error *err)
{
	const char *path = rq->route < LRU_ROUTE_NR ? lru_route(rq->route)->path : rq->path;
	bool first = true;

	if (lru_buf_append(url, c->url, strlen(c->url), err) ||
	    lru_buf_append(url, path, strlen(path), err))
		return LRU_ENOMEM;
	for (size_t i = 0; i < rq->nr_params; i++) {
		const struct lru_client_param *p = &rq->params[i];
		char *esc;
		enum lru_err rc;

		if (!p->value)
			continue;
		if (rq->route < LRU_ROUTE_NR && !lru_route_takes(rq->route, p->name))
			return lru_fail(err, LRU_EINVAL, "%s takes no parameter '%s'", path, p->name);
		esc = curl_easy_escape(c->curl, p->value, 0);
		rc = !esc || lru_buf_append(url, first ? "?" : "&", 1, err) ||
		     lru_buf_append(url, p->name, strlen(p->name), err) ||
		     lru_buf_append(url, "=", 1, err) || lru_buf_append(url, esc, strlen(esc), err)
			? LRU_ENOMEM : LRU_OK;
		curl_free(esc);
		if (rc)
			return lru_fail(err, LRU_ENOMEM, "out of memory");
		first = false;
	}
	return lru_buf_append(url, "", 1, err);
}

/* The request's headers into *out (NULL: none); false when out of memory. */
static bool headers(struct lru_client *c, const struct lru_client_req *rq, struct curl_slist **out)
{
	struct curl_slist *h = NULL, *n;
	char line[256];
	bool ok = true;

	if (rq->accept) {
		snprintf(line, sizeof(line), "Accept: %s", rq->accept);
		ok = ok && (n = curl_slist_append(h, line)) && (h = n);
	}
	for (size_t i = 0; rq->headers && rq->headers[i]; i++)
		ok = ok && (n = curl_slist_append(h, rq->headers[i])) && (h = n);
	if (is_post(rq)) {
		snprintf(line, sizeof(line), "Content-Type: %s",
			 rq->content_type ? rq->content_type : "application/octet-stream");
		ok = ok && (n = curl_slist_append(h, line)) && (h = n);
		ok = ok && (n = curl_slist_append(h, "Expect:")) && (h = n);
		if (rq->gzip)
			ok = ok && (n = curl_slist_append(h, "Content-Encoding: gzip")) && (h = n);
	}
	if (c->token) {
		size_t size = strlen(c->token) + 32;
		char *auth = malloc(size);

		if (auth) {
			snprintf(auth, size, "Authorization: Bearer %s", c->token);
			ok = ok && (n = curl_slist_append(h, auth)) && (h = n);
			wipe_free(auth);
		} else {
			ok = false;
		}
	}
	if (!ok) {
		curl_slist_free_all(h);
		h = NULL;
	}
	*out = h;
	return ok;
}

static void setup(struct lru_client *c, const struct lru_client_req *rq, const char *url,
		  struct curl_slist *hdrs, const struct lru_buf *zbody, char *cerr)
{
	CURL *h = c->curl;

	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	if (c->agent)
		curl_easy_setopt(h, CURLOPT_USERAGENT, c->agent);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	if (c->o.connect_timeout_ms)
		curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->o.connect_timeout_ms);
	if (c->o.timeout_ms)
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->o.timeout_ms);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, c->o.tls_no_verify ? 0L : 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, c->o.tls_no_verify ? 0L : 2L);
	if (c->ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
	if (is_post(rq)) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq->gzip ? zbody->data : rq->body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(rq->gzip ? zbody->len : rq->len));
	}
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, c);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
	if (c->o.abort) {
		curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(h, CURLOPT_XFERINFODATA, c);
	}
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
}

enum lru_err lru_client_do(struct lru_client *c, const struct lru_client_req *rq,
			   struct lru_client_resp *resp, struct lru_error *err)
{
	char cerr[CURL_ERROR_SIZE] = "";
	struct lru_buf url, zbody;
	struct curl_slist *hdrs = NULL;
	enum lru_err rc;
	CURLcode cc;

	memset(resp, 0, sizeof(*resp));
	lru_buf_init(&resp->body);
	lru_buf_init(&url);
	lru_buf_init(&zbody);
	rc = build_url(c, rq, &url, err);
	if (!rc && rq->gzip)
		rc = lru_gz_all(rq->body, rq->len, 1, &zbody, err);
	if (!rc && !headers(c, rq, &hdrs))
		rc = lru_fail(err, LRU_ENOMEM, "out of memory");
	if (rc)
		goto out;
	setup(c, rq, (const char *)url.data, hdrs, &zbody, cerr);
	c->resp = resp;
	c->too_large = false;
	cc = curl_easy_perform(c->curl);
	/* the header list held the token */
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, NULL);
	c->resp = NULL;
	if (cc == CURLE_OK) {
		curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &resp->status);
		if (lru_buf_append(&resp->body, "", 1, err)) {
			rc = LRU_ENOMEM;
			goto out;
		}
		resp->body.len--;	/* NUL-terminated, not counted */
		goto out;
	}
	if (c->too_large)
		snprintf(resp->detail, sizeof(resp->detail), "the answer is larger than %zu bytes",
			 c->o.max_body);
	else
		snprintf(resp->detail, sizeof(resp->detail), "%s",
			 cc == CURLE_COULDNT_CONNECT ? "connection refused"
			 : cerr[0] ? cerr : curl_easy_strerror(cc));
	rc = lru_fail(err, LRU_EIO, "store unreachable at '%s': %s", c->url, resp->detail);
out:
	curl_slist_free_all(hdrs);
	lru_buf_release(&url);
	lru_buf_release(&zbody);
	return rc;
}

/* ---- statuses ---------------------------------------------------------------------- */

/* The message of a JSON error document, or the start of the body itself. */
static const char *error_of(const struct lru_buf *body, char *buf, size_t size)
{
	json_t *doc = json_loadb((const char *)body->data, body->len, 0, NULL);
	const char *msg = json_string_value(json_object_get(doc, "error"));

	snprintf(buf, size, "%.*s", msg ? 400 : (int)(body->len < 200 ? body->len : 200),
		 msg ? msg : body->data ? (const char *)body->data : "");
	json_decref(doc);
	return buf;
}

enum lru_err lru_client_check(const struct lru_client_resp *resp, struct lru_error *err)
{
	char msg[512];

	if (resp->status >= 200 && resp->status < 300)
		return LRU_OK;
	switch (resp->status) {
	case 401:
		return lru_fail(err, LRU_EACCES, "the store refused the token (HTTP 401): pass a "
				"read token with --token-file or LRUGEN_TOKEN");
	case 403:
		return lru_fail(err, LRU_EACCES, "the token may not read the store (HTTP 403): "
				"use a read or admin token");
	case 400:
		return lru_fail(err, LRU_EINVAL, "%s", error_of(&resp->body, msg, sizeof(msg)));
	case 404:
		return lru_fail(err, LRU_ENOENT, "%s", error_of(&resp->body, msg, sizeof(msg)));
	default:
		return lru_fail(err, LRU_EPROTO, "the store answered HTTP %ld: %s", resp->status,
				error_of(&resp->body, msg, sizeof(msg)));
	}
}
