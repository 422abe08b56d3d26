/*
 * page.h - the store's fleet page: GET / as one HTML document with the
 * charts of lrugen fleet plot (lru_plot.h) inline, server-rendered, no
 * script; and the login page that gets a browser there.
 *
 * The page runs the queries of capacity, rank (need=, threshold=) and
 * advise (memcg_glob=), and with memcg_glob= that job's age bands (the job
 * plot), on the caller's query (query.h) and draws each one's answer; a
 * query that fails shows its error in its section. It refreshes
 * itself every refresh= seconds (60; 5 to 3600) with a meta refresh.
 *
 * Browsers and tokens: a browser cannot send "Authorization: Bearer". The
 * login page (GET / without a valid token, or GET /login) is a form that
 * POSTs the read token to /login; a valid one is answered with a redirect
 * to / and a cookie holding it (hex-encoded; HttpOnly, SameSite=Lax, Path=/,
 * Secure over TLS), which GET / then accepts like the header. Only the page
 * takes the cookie: the JSON API keeps asking for the header.
 */
#ifndef STORE_PAGE_H
#define STORE_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "lru_buf.h"
#include "query.h"

#define PAGE_COOKIE "lrugen_token"
/* the longest token the login form and the cookie carry */
#define PAGE_TOKEN_MAX 512
/* a login POST's body may not be longer */
#define PAGE_FORM_MAX 4096

/* The page's parameters, as GET / took them (NULL: the default). */
struct page_params {
	const char *need, *threshold, *memcg_glob, *refresh;
};

/* The fleet page for q into html: 0, or -1 (out of memory; html released). */
int page_render(struct query *q, const struct page_params *p, struct lru_buf *html);

/* The login page, saying why (NULL: nothing to say yet): 0, or -1 out of memory. */
int page_login(const char *why, struct lru_buf *html);

/*
 * The token in a login form's body ("token=..." URL-encoded, among other
 * fields) into tok: 0, or -1 when there is none or it is too long.
 */
int page_form_token(const char *body, size_t len, char tok[PAGE_TOKEN_MAX + 1]);

/* The Set-Cookie value that keeps tok (secure: over TLS): 0, or -1 too long. */
int page_cookie_set(const char *tok, bool secure, char *out, size_t size);

/*
 * The token a Cookie header keeps (PAGE_COOKIE, hex) as an Authorization
 * value "Bearer TOKEN" into out: 0, or -1 when there is none.
 */
int page_cookie_bearer(const char *cookie_header, char *out, size_t size);

#endif
