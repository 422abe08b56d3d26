/*
 * lru_record.c - a recording's SnapshotBatches, a file or a spool copy (lru_record.h).
 */
#include "lru_record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lru_buf.h"
#include "lru_pb.h"
#include "lru_sys.h"

bool lru_record_is_spool(const char *path)
{
	struct stat st;

	return strcmp(path, "-") && !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool spool_file(const char *name)
{
	size_t len = strlen(name);

	return !strcmp(name, "head") || !strcmp(name, "seq") ||
	       (len > 4 && !strcmp(name + len - 4, ".seg"));
}

static int copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n = 0;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (close(out) || n < 0)
		return -1;
	return 0;
}

/* Remove the private copy (files first, then the directory). */
static void remove_tree(const char *dir)
{
	char path[LRU_PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
				unlink(path);
			}
		closedir(d);
	}
	rmdir(dir);
}

static enum lru_err read_spool(const char *dir, lru_record_fn fn, void *arg,
			       struct lru_spool_stats *stats, struct lru_error *err)
{
	struct lru_spool_opts opts = { 0 };
	struct lru_spool_pos pos;
	struct lru_spool_rec rec;
	struct lru_spool *sp;
	char what[64];
	enum lru_err rc;
	uint8_t *buf;

	rc = lru_spool_open(dir, &opts, &sp, err);
	if (rc)
		return rc;
	lru_spool_head(sp, &pos);
	while (!(rc = lru_spool_peek(sp, &pos, &rec, err))) {
		buf = malloc(rec.len ? rec.len : 1);
		if (!buf) {
			rc = lru_fail(err, LRU_ENOMEM, "out of memory");
			break;
		}
		rc = lru_spool_read(sp, &rec, buf, err);
		if (!rc) {
			snprintf(what, sizeof(what), "spool record seq %llu",
				 (unsigned long long)rec.seq);
			rc = fn(arg, buf, rec.len, what, err);
		}
		free(buf);
		if (rc)
			break;
		pos = rec.next;
	}
	if (stats)
		lru_spool_stats(sp, stats);
	lru_spool_close(sp);
	if (rc == LRU_ENOENT) {	/* past the last record */
		lru_error_clear(err);
		rc = LRU_OK;
	}
	return rc;
}

/* Copy the spool's files into a private directory and read them from there. */
static enum lru_err each_spool(const char *dir, lru_record_fn fn, void *arg,
			       struct lru_spool_stats *stats, struct lru_error *err)
{
	char tmpl[] = "/tmp/lrugen-spool.XXXXXX", from[LRU_PATH_MAX], to[LRU_PATH_MAX];
	struct dirent *de;
	enum lru_err rc = LRU_OK;
	DIR *d = opendir(dir);

	if (!d)
		return lru_fail(err, errno == ENOENT ? LRU_ENOENT : LRU_EIO,
				"cannot read spool '%s': %s", dir, strerror(errno));
	if (!mkdtemp(tmpl)) {
		closedir(d);
		return lru_fail(err, LRU_EIO, "cannot create a temporary directory: %s",
				strerror(errno));
	}
	while (!rc && (de = readdir(d))) {
		if (!spool_file(de->d_name))
			continue;
		snprintf(from, sizeof(from), "%s/%s", dir, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", tmpl, de->d_name);
		if (copy_file(from, to))
			rc = lru_fail(err, LRU_EIO, "cannot copy '%s': %s", from, strerror(errno));
	}
	closedir(d);
	if (!rc)
		rc = read_spool(tmpl, fn, arg, stats, err);
	remove_tree(tmpl);
	return rc;
}

/* Standard input whole, within LRU_PB_MAX_MESSAGE. */
static enum lru_err read_stdin(struct lru_buf *b, struct lru_error *err)
{
	enum lru_err rc;
	size_t n;

	b->max = LRU_PB_MAX_MESSAGE;
	do {
		if ((rc = lru_buf_reserve(b, 1 << 16, err)))
			return rc == LRU_ERANGE ? lru_fail(err, rc, "standard input is larger than "
							   "%u bytes", LRU_PB_MAX_MESSAGE) : rc;
		n = fread(b->data + b->len, 1, b->alloc - b->len, stdin);
		b->len += n;
	} while (n);
	return ferror(stdin) ? lru_fail(err, LRU_EIO, "cannot read standard input") : LRU_OK;
}

enum lru_err lru_record_each(const char *path, lru_record_fn fn, void *arg,
			     struct lru_spool_stats *stats, struct lru_error *err)
{
	struct lru_buf b;
	enum lru_err rc;
	char *data;
	size_t len;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (lru_record_is_spool(path))
		return each_spool(path, fn, arg, stats, err);
	if (!strcmp(path, "-")) {
		lru_buf_init(&b);
		rc = read_stdin(&b, err);
		if (!rc)
			rc = fn(arg, b.data ? b.data : (const uint8_t *)"", b.len, "standard input", err);
		lru_buf_release(&b);
		return rc;
	}
	rc = lru_sys_read(NULL, path, LRU_PB_MAX_MESSAGE, &data, &len, err);
	if (rc)
		return rc;
	rc = fn(arg, (const uint8_t *)data, len, path, err);
	free(data);
	return rc;
}
