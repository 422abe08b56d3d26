/* testutil.h - helpers shared by the cmocka unit tests. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lru_model.h"

/*
 * Read tests/<rel> (relative to the source tree: $LRUGEN_SRC or the current
 * directory) into a malloc'd, NUL-terminated buffer; fails the test if missing.
 */
char *tu_read(const char *rel, size_t *len);

/* Parse tests/<rel> into snap; fails the test on any error. */
void tu_parse_file(const char *rel, struct lru_snapshot *snap);

/* Absolute path of tests/<rel> in a static buffer. */
const char *tu_path(const char *rel);

/* Make a fresh temporary directory (removed by tu_rmtree); returns a malloc'd path. */
char *tu_mkdtemp(void);
void tu_rmtree(const char *dir);

/* Write data to dir/rel, creating parent directories. */
void tu_write(const char *dir, const char *rel, const char *data);

#endif
