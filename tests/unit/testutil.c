#include "testutil.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lru_parse.h"

const char *tu_path(const char *rel)
{
	static char buf[4096];
	const char *src = getenv("LRUGEN_SRC");

	snprintf(buf, sizeof(buf), "%s/tests/%s", src ? src : ".", rel);
	return buf;
}

char *tu_read(const char *rel, size_t *len)
{
	const char *path = tu_path(rel);
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot open '%s': %s", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

void tu_parse_file(const char *rel, struct lru_snapshot *snap)
{
	struct lru_error err;
	size_t len;
	char *buf = tu_read(rel, &len);

	lru_error_clear(&err);
	if (lru_parse_buf(snap, buf, len, &err))
		fail_msg("parsing '%s': %s", rel, err.msg);
	free(buf);
}

char *tu_mkdtemp(void)
{
	char tmpl[] = "/tmp/lrugen-test-XXXXXX";
	char *dir = mkdtemp(tmpl);

	assert_non_null(dir);
	return strdup(dir);
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tu_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void tu_write(const char *dir, const char *rel, const char *data)
{
	char path[4096];
	char *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		fail_msg("cannot create '%s': %s", path, strerror(errno));
	fputs(data, f);
	fclose(f);
}
