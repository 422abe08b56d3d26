/* fuzz_check.h - what the parser fuzz targets share: a fatal check, the error contract. */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru_err.h"

/* abort() (a finding for libFuzzer) when cond is false, naming it. */
#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                                \
			abort();                                                 \
		}                                                                \
	} while (0)

/* A parser error is LRU_EPARSE or LRU_ERANGE with a message naming its line. */
static inline void check_error(enum lru_err rc, const struct lru_error *err)
{
	char prefix[32];

	CHECK(rc == LRU_EPARSE || rc == LRU_ERANGE);
	CHECK(err->code == rc);
	CHECK(err->line >= 1);
	snprintf(prefix, sizeof(prefix), "line %d: ", err->line);
	CHECK(!strncmp(err->msg, prefix, strlen(prefix)));
	CHECK(strlen(err->msg) > strlen(prefix));
}

#endif
