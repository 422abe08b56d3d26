/* test_client.c - the route table and the store client's requests and error map (no server). */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "lru_client.h"
#include "lru_routes.h"

static void test_routes(void **state)
{
	(void)state;
	for (int r = 0; r < LRU_ROUTE_NR; r++) {
		const struct lru_route_def *d = lru_route((enum lru_route)r);

		assert_non_null(d->path);
		assert_int_equal(lru_route_find(d->path), r);
		assert_int_equal(d->post, r == LRU_ROUTE_INGEST || r == LRU_ROUTE_LOGIN);
	}
	assert_int_equal(lru_route_find("/"), LRU_ROUTE_PAGE);
	assert_int_equal(lru_route_find("/login"), LRU_ROUTE_LOGIN);
	assert_true(lru_route_takes(LRU_ROUTE_ADVISE, "min_samples"));
	assert_true(lru_route_takes(LRU_ROUTE_BANDS, "step"));
	assert_false(lru_route_takes(LRU_ROUTE_PAGE, "token"));
	assert_int_equal(lru_route_find("/v1/nothing"), LRU_ROUTE_NR);
	assert_int_equal(lru_route_find("/v1/hosts/"), LRU_ROUTE_NR);
	assert_string_equal(lru_route(LRU_ROUTE_LATEST)->path, "/v1/latest");
	assert_true(lru_route_takes(LRU_ROUTE_TIMELINE, "after"));
	assert_true(lru_route_takes(LRU_ROUTE_LATEST, "memcg_glob"));
	assert_true(lru_route_takes(LRU_ROUTE_LATEST, "limit"));
	assert_true(lru_route_takes(LRU_ROUTE_LATEST, "changed_since"));
	assert_false(lru_route_takes(LRU_ROUTE_LATEST, "since"));
	assert_false(lru_route_takes(LRU_ROUTE_HOSTS, "host"));
}

static void test_new(void **state)
{
	struct lru_client_opts o = { .url = "ftp://store" };
	struct lru_client *c;
	struct lru_error err;

	(void)state;
	assert_int_equal(lru_client_new(&o, &c, &err), LRU_EINVAL);
	assert_non_null(strstr(err.msg, "not an http:// or https:// URL"));
	o.url = "http://127.0.0.1:1///";
	o.token = "secret";
	assert_int_equal(lru_client_new(&o, &c, &err), LRU_OK);
	assert_string_equal(lru_client_url(c), "http://127.0.0.1:1");
	assert_int_equal(lru_client_set_token(c, NULL, &err), LRU_OK);
	lru_client_free(c);
	lru_client_free(NULL);
}

/* A parameter the route does not take is refused before anything is sent. */
static void test_params(void **state)
{
	const struct lru_client_opts o = { .url = "http://127.0.0.1:1" };
	const struct lru_client_param p[] = { { "host", "a" }, { "need", "3" } };
	struct lru_client_req rq = { .route = LRU_ROUTE_LATEST, .params = p, .nr_params = 2 };
	struct lru_client_resp resp;
	struct lru_client *c;
	struct lru_error err;

	(void)state;
	assert_int_equal(lru_client_new(&o, &c, &err), LRU_OK);
	assert_int_equal(lru_client_do(c, &rq, &resp, &err), LRU_EINVAL);
	assert_string_equal(err.msg, "/v1/latest takes no parameter 'need'");
	assert_int_equal(resp.status, 0);
	lru_client_resp_release(&resp);
	/* port 1: nobody listens */
	rq.nr_params = 1;
	assert_int_equal(lru_client_do(c, &rq, &resp, &err), LRU_EIO);
	assert_string_equal(resp.detail, "connection refused");
	assert_string_equal(err.msg, "store unreachable at 'http://127.0.0.1:1': connection refused");
	lru_client_resp_release(&resp);
	lru_client_free(c);
}

static void check_status(long status, const char *body, enum lru_err want, const char *msg)
{
	struct lru_client_resp resp = { .status = status };
	struct lru_error err;

	lru_buf_init(&resp.body);
	if (body)
		assert_int_equal(lru_buf_append(&resp.body, body, strlen(body) + 1, NULL), LRU_OK);
	resp.body.len = body ? strlen(body) : 0;
	lru_error_clear(&err);
	assert_int_equal(lru_client_check(&resp, &err), want);
	assert_string_equal(err.msg, msg);
	lru_client_resp_release(&resp);
}

static void test_check(void **state)
{
	(void)state;
	check_status(200, "{}", LRU_OK, "");
	check_status(204, NULL, LRU_OK, "");
	check_status(401, "{\"error\":\"unauthorized\"}", LRU_EACCES,
		     "the store refused the token (HTTP 401): pass a read token with --token-file "
		     "or LRUGEN_TOKEN");
	check_status(403, NULL, LRU_EACCES,
		     "the token may not read the store (HTTP 403): use a read or admin token");
	check_status(400, "{\"error\":\"unknown parameter 'x'\"}", LRU_EINVAL,
		     "unknown parameter 'x'");
	check_status(404, "{\"error\":\"no host 'nope' in the store\"}", LRU_ENOENT,
		     "no host 'nope' in the store");
	check_status(500, "{\"error\":\"database error: disk I/O error\"}", LRU_EPROTO,
		     "the store answered HTTP 500: database error: disk I/O error");
	check_status(502, "Bad Gateway", LRU_EPROTO, "the store answered HTTP 502: Bad Gateway");
	check_status(503, NULL, LRU_EPROTO, "the store answered HTTP 503: ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_new),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
