#include "lru_sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lru_parse.h"

/* the read buffer for lru_gen: large, so one read(2) returns every record */
#define LRU_READ_CHUNK (4u << 20)

enum lru_err lru_sys_path(const char *root, const char *abs, char *buf, size_t size,
			  struct lru_error *err)
{
	int n;

	if (!root || !root[0] || !strcmp(root, "/"))
		root = "";
	n = snprintf(buf, size, "%s%s", root, abs);
	if (n < 0 || (size_t)n >= size)
		return lru_fail(err, LRU_EINVAL, "path '%s%s' is too long", root, abs);
	return LRU_OK;
}

/* An errno of open(2) or read(2) ("open"/"read" in verb) as lru_err and message. */
static enum lru_err io_error(const char *verb, const char *path, int e, struct lru_error *err)
{
	if (e == ENOENT || e == ENODEV)
		return lru_fail(err, LRU_ENOENT, "cannot %s '%s': %s", verb, path,
				e == ENOENT ? "no such file" : "it was removed");
	if (e == EACCES)
		return lru_fail(err, LRU_EACCES, "cannot %s '%s': permission denied (run as root)",
				verb, path);
	if (e == EPERM)
		return lru_fail(err, LRU_EACCES,
				"cannot %s '%s': operation not permitted (kernel lockdown refuses it)",
				verb, path);
	if (e == EOPNOTSUPP)
		return lru_fail(err, LRU_ENOTSUP,
				"cannot %s '%s': not supported (MGLRU is off: 'lrugen enable')", verb,
				path);
	return lru_fail(err, LRU_EIO, "cannot %s '%s': %s", verb, path, strerror(e));
}

static enum lru_err open_rooted(const char *root, const char *abs, int *fd, char *path,
				size_t size, struct lru_error *err)
{
	enum lru_err rc = lru_sys_path(root, abs, path, size, err);

	if (rc)
		return rc;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return io_error("open", path, errno, err);
	return LRU_OK;
}

enum lru_err lru_sys_read(const char *root, const char *abs, size_t max, char **data,
			  size_t *len, struct lru_error *err)
{
	char path[LRU_PATH_MAX];
	size_t n = 0, alloc = 4096;
	char *buf;
	int fd;
	enum lru_err rc = open_rooted(root, abs, &fd, path, sizeof(path), err);

	if (rc)
		return rc;
	buf = malloc(alloc);
	if (!buf) {
		close(fd);
		return lru_fail(err, LRU_ENOMEM, "out of memory reading '%s'", path);
	}
	for (;;) {
		ssize_t r;

		if (alloc - n < 2) {
			char *p;

			if (alloc > max) {
				rc = lru_fail(err, LRU_EIO, "'%s' is larger than %zu bytes", path, max);
				break;
			}
			p = realloc(buf, alloc * 2);
			if (!p) {
				rc = lru_fail(err, LRU_ENOMEM, "out of memory reading '%s'", path);
				break;
			}
			buf = p;
			alloc *= 2;
		}
		r = read(fd, buf + n, alloc - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = io_error("read", path, errno, err);
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			rc = lru_fail(err, LRU_EIO, "'%s' is larger than %zu bytes", path, max);
			break;
		}
	}
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*data = buf;
	if (len)
		*len = n;
	return LRU_OK;
}

enum lru_err lru_sys_read_line(const char *root, const char *abs, char *buf, size_t size,
			       struct lru_error *err)
{
	char *data;
	size_t len;
	enum lru_err rc = lru_sys_read(root, abs, 1 << 16, &data, &len, err);

	if (rc)
		return rc;
	while (len && (data[len - 1] == '\n' || data[len - 1] == ' '))
		data[--len] = '\0';
	if (len >= size) {
		free(data);
		return lru_fail(err, LRU_EINVAL, "'%s' holds more than %zu bytes", abs, size - 1);
	}
	memcpy(buf, data, len + 1);
	free(data);
	return LRU_OK;
}

enum lru_err lru_sys_read_snapshot(const char *root, enum lru_source src,
				   struct lru_snapshot *snap, struct lru_error *err)
{
	const char *abs = src == LRU_SRC_DEBUGFS_FULL ? LRU_PATH_LRU_GEN_FULL : LRU_PATH_LRU_GEN;
	char path[LRU_PATH_MAX];
	struct lru_parser *p = NULL;
	int64_t start, end;
	char *buf;
	int fd;
	enum lru_err rc;

	if (src != LRU_SRC_DEBUGFS && src != LRU_SRC_DEBUGFS_FULL)
		return lru_fail(err, LRU_ENOTSUP, "source %d is not read through debugfs", (int)src);
	rc = open_rooted(root, abs, &fd, path, sizeof(path), err);
	if (rc)
		return rc;
	buf = malloc(LRU_READ_CHUNK);
	if (!buf || lru_parser_new(&p, snap, err)) {
		free(buf);
		close(fd);
		return lru_fail(err, LRU_ENOMEM, "out of memory reading '%s'", path);
	}
	snap->source = src;
	start = lru_now_ms();
	for (;;) {
		ssize_t r = read(fd, buf, LRU_READ_CHUNK);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = io_error("read", path, errno, err);
			break;
		}
		if (r == 0) {
			rc = lru_parser_finish(p, err);
			break;
		}
		rc = lru_parser_feed(p, buf, (size_t)r, err);
		if (rc)
			break;
	}
	end = lru_now_ms();
	close(fd);
	free(buf);
	lru_parser_free(p);
	if (rc == LRU_EPARSE || rc == LRU_ERANGE) {
		char msg[LRU_ERRMSG_MAX];

		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		return lru_fail(err, rc, "%s: %s", path, msg);
	}
	if (rc)
		return rc;
	lru_snapshot_set_times(snap, start, end);
	return LRU_OK;
}

enum lru_err lru_sys_read_enabled(const char *root, unsigned *bits, struct lru_error *err)
{
	char line[64], *end;
	unsigned long v;
	enum lru_err rc = lru_sys_read_line(root, LRU_PATH_ENABLED, line, sizeof(line), err);

	if (rc)
		return rc;
	errno = 0;
	v = strtoul(line, &end, 0);
	if (errno || end == line || *end || v > 0xffff)
		return lru_fail(err, LRU_EPARSE, "'%s' holds '%s', not a number", LRU_PATH_ENABLED,
				line);
	*bits = (unsigned)v;
	return LRU_OK;
}

/* "Node 0 MemTotal:       508000 kB" -> bytes of the named field, or false. */
static bool meminfo_field(const char *text, const char *name, uint64_t *bytes)
{
	size_t nlen = strlen(name);
	const char *s;

	for (s = text; (s = strstr(s, name)); s += nlen) {
		unsigned long long kb;

		if ((s != text && s[-1] != ' ') || s[nlen] != ':')
			continue;
		if (sscanf(s + nlen + 1, "%llu", &kb) != 1)
			return false;
		*bytes = (uint64_t)kb * 1024;
		return true;
	}
	return false;
}

static int node_cmp(const void *a, const void *b)
{
	const struct lru_node_mem *x = a, *y = b;

	return (x->node > y->node) - (x->node < y->node);
}

enum lru_err lru_sys_read_nodes(const char *root, struct lru_snapshot *snap,
				struct lru_error *err)
{
	char path[LRU_PATH_MAX];
	struct dirent *de;
	DIR *dir;
	enum lru_err rc = lru_sys_path(root, LRU_PATH_NODES, path, sizeof(path), err);

	if (rc)
		return rc;
	dir = opendir(path);
	if (!dir)
		return LRU_OK;
	free(snap->nodes);
	snap->nodes = NULL;
	snap->nr_nodes = 0;
	while ((de = readdir(dir))) {
		char rel[LRU_PATH_MAX], *text, *end;
		struct lru_node_mem nm = { 0 }, *p;
		long id;

		if (strncmp(de->d_name, "node", 4))
			continue;
		id = strtol(de->d_name + 4, &end, 10);
		if (end == de->d_name + 4 || *end || id < 0 || id > LRU_NODE_MAX)
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/meminfo", LRU_PATH_NODES, de->d_name);
		if (lru_sys_read(root, rel, 1 << 20, &text, NULL, NULL))
			continue;
		nm.node = (int)id;
		meminfo_field(text, "MemTotal", &nm.total);
		meminfo_field(text, "MemFree", &nm.free);
		meminfo_field(text, "FilePages", &nm.file);
		meminfo_field(text, "AnonPages", &nm.anon);
		free(text);
		p = realloc(snap->nodes, (snap->nr_nodes + 1) * sizeof(*p));
		if (!p) {
			closedir(dir);
			return lru_fail(err, LRU_ENOMEM, "out of memory reading node meminfo");
		}
		snap->nodes = p;
		snap->nodes[snap->nr_nodes++] = nm;
	}
	closedir(dir);
	if (snap->nr_nodes > 1)	/* snap->nodes is NULL when no node has a meminfo */
		qsort(snap->nodes, snap->nr_nodes, sizeof(*snap->nodes), node_cmp);
	return LRU_OK;
}

enum lru_err lru_sys_read_host(const char *root, struct lru_snapshot *snap,
			       struct lru_error *err)
{
	static const struct {
		const char *path;
		size_t offset;
	} files[] = {
		{ LRU_PATH_HOSTNAME, offsetof(struct lru_host, host) },
		{ LRU_PATH_BOOT_ID, offsetof(struct lru_host, boot_id) },
		{ LRU_PATH_OSRELEASE, offsetof(struct lru_host, kernel) },
	};
	char line[256];
	unsigned bits;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char **dst = (char **)((char *)&snap->host + files[i].offset);
		enum lru_err rc;

		if (lru_sys_read_line(root, files[i].path, line, sizeof(line), NULL))
			continue;
		rc = lru_strdup_into(dst, line, err);
		if (rc)
			return rc;
	}
	if (!lru_sys_read_enabled(root, &bits, NULL))
		snap->host.enabled = bits;
	return LRU_OK;
}

void lru_sys_fill_inodes(const char *root, const char *cgroup_root, struct lru_snapshot *snap)
{
	char base[LRU_PATH_MAX], path[LRU_PATH_MAX + LRU_PATH_MAX];
	struct stat st;
	size_t i;

	if (lru_sys_path(root, cgroup_root ? cgroup_root : LRU_PATH_CGROUP, base, sizeof(base),
			 NULL))
		return;
	for (i = 0; i < snap->nr_memcgs; i++) {
		struct lru_memcg *m = &snap->memcgs[i];

		if (!m->path[0])
			continue;
		snprintf(path, sizeof(path), "%s%s", base, m->path);
		if (!stat(path, &st) && S_ISDIR(st.st_mode))
			m->ino = (uint64_t)st.st_ino;
	}
}

static enum lru_err memcg_file(const char *root, const char *memcg_path, const char *name,
			       char **text, struct lru_error *err)
{
	char rel[LRU_PATH_MAX + 64];

	snprintf(rel, sizeof(rel), "%s%s/%s", LRU_PATH_CGROUP,
		 strcmp(memcg_path, "/") ? memcg_path : "", name);
	return lru_sys_read(root, rel, 1 << 20, text, NULL, err);
}

enum lru_err lru_sys_numa_stat(const char *root, const char *memcg_path, const char *key,
			       uint64_t *per_node, size_t nr, struct lru_error *err)
{
	size_t klen = strlen(key);
	char *text, *line;
	enum lru_err rc = memcg_file(root, memcg_path, "memory.numa_stat", &text, err);

	if (rc)
		return rc;
	memset(per_node, 0, nr * sizeof(*per_node));
	for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char *p;

		if (strncmp(line, key, klen) || line[klen] != ' ')
			continue;
		for (p = line + klen; *p == ' ';) {
			unsigned long node;
			unsigned long long v;
			int used;

			if (sscanf(p, " N%lu=%llu%n", &node, &v, &used) != 2)
				break;
			if (node < nr)
				per_node[node] = v;
			p += used;
		}
		free(text);
		return LRU_OK;
	}
	free(text);
	return lru_fail(err, LRU_ENOENT, "memory.numa_stat of '%s' has no '%s'", memcg_path, key);
}

/* The value of "key N" in a flat-keyed file (memory.stat), or false. */
static bool flat_key(const char *text, const char *key, uint64_t *val)
{
	size_t klen = strlen(key);
	const char *line;

	for (line = text; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		unsigned long long v;

		if (!strncmp(line, key, klen) && line[klen] == ' ' &&
		    sscanf(line + klen, "%llu", &v) == 1) {
			*val = v;
			return true;
		}
	}
	return false;
}

enum lru_err lru_sys_swap_bytes(const char *root, uint64_t *bytes, struct lru_error *err)
{
	char *text, *line;
	enum lru_err rc = lru_sys_read(root, "/proc/swaps", 1 << 20, &text, NULL, err);

	*bytes = 0;
	if (rc)
		return rc == LRU_EIO ? rc : lru_fail(err, LRU_ENOENT, "cannot read /proc/swaps");
	/* "Filename Type Size Used Priority", then one line per device */
	for (line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		char name[256], type[32];
		unsigned long long size;

		if (sscanf(line + 1, "%255s %31s %llu", name, type, &size) == 3)
			*bytes += size * 1024;
	}
	free(text);
	return LRU_OK;
}

int lru_release_at_least(const char *release, int major, int minor)
{
	int ma, mi;

	if (!release || sscanf(release, "%d.%d", &ma, &mi) != 2)
		return -1;
	return ma > major || (ma == major && mi >= minor);
}

bool lru_sys_is_fixture(const char *root)
{
	static const char *const probes[] = { LRU_PATH_ENABLED, "/sys" };
	char path[4096];
	struct statfs fs;

	if (!root || !*root || !strcmp(root, "/"))
		return false;
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (!lru_sys_path(root, probes[i], path, sizeof(path), NULL) && !statfs(path, &fs))
			return fs.f_type != LRU_SYSFS_MAGIC;
	return false;
}

enum lru_err lru_sys_write_knob(const char *root, const char *abs, const char *value,
				struct lru_error *err)
{
	char path[LRU_PATH_MAX];
	struct statfs fs;
	struct stat st;
	size_t len = strlen(value);
	ssize_t n;
	int fd, e;

	if (lru_sys_path(root, abs, path, sizeof(path), err))
		return LRU_EINVAL;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		return lru_fail(err, e == ENOENT ? LRU_ENOENT : e == EACCES || e == EPERM ? LRU_EACCES
				: LRU_EIO, "cannot open '%s': %s%s", path, strerror(e),
				e == EACCES ? " (run as root)" : "");
	}
	/* sysfs files are S_ISREG too: a fixture root's regular file is not one */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && !fstatfs(fd, &fs) &&
	    fs.f_type != LRU_SYSFS_MAGIC) {
		close(fd);
		return lru_fail(err, LRU_ENOTSUP, "'%s' is a regular file, not on sysfs (a fixture root?)",
				path);
	}
	n = write(fd, value, len);
	e = errno;
	close(fd);
	if (n != (ssize_t)len)
		return lru_fail(err, n < 0 && (e == EACCES || e == EPERM) ? LRU_EACCES : LRU_EIO,
				"writing '%s' to '%s': %s", value, path,
				n < 0 ? strerror(e) : "short write");
	return LRU_OK;
}

void lru_sys_read_memcg_stats(const char *root, struct lru_memcg *m)
{
	struct lru_memcg_stats *st = &m->stats;
	char *text, *p;

	if (!m->path[0] || memcg_file(root, m->path, "memory.stat", &text, NULL))
		return;
	memset(st, 0, sizeof(*st));
	flat_key(text, "anon", &st->anon_bytes);
	flat_key(text, "file", &st->file_bytes);
	flat_key(text, "inactive_file", &st->inactive_file_bytes);
	flat_key(text, "workingset_refault_anon", &st->refault_anon);
	flat_key(text, "workingset_refault_file", &st->refault_file);
	flat_key(text, "pgsteal", &st->pgsteal);
	flat_key(text, "file_mapped", &st->file_mapped_bytes);
	for (size_t i = 0; i < 3; i++) {
		static const char *const thp[] = { "anon_thp", "file_thp", "shmem_thp" };
		uint64_t v = 0;

		if (flat_key(text, thp[i], &v))
			st->thp_bytes += v;
	}
	free(text);
	m->has_stats = true;
	if (!memcg_file(root, m->path, "memory.current", &text, NULL)) {
		st->current_bytes = strtoull(text, NULL, 10);
		free(text);
	}
	if (!memcg_file(root, m->path, "memory.pressure", &text, NULL)) {
		/* some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=... */
		if ((p = strstr(text, "some avg10=")))
			st->some_avg10 = strtod(p + 11, NULL);
		if ((p = strstr(text, "some ")) && (p = strstr(p, "total=")))
			st->some_total_us = strtoull(p + 6, NULL, 10);
		if ((p = strstr(text, "full avg10=")))
			st->full_avg10 = strtod(p + 11, NULL);
		free(text);
	}
}

enum lru_err lru_sys_write_whole(const char *path, const void *buf, size_t len,
				 struct lru_error *err)
{
	char tmp[4096];
	struct stat st;
	bool in_place = !strcmp(path, "-") || (!stat(path, &st) && !S_ISREG(st.st_mode));
	FILE *f = !strcmp(path, "-") ? stdout : NULL;
	int e = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= sizeof(tmp))
		return lru_fail(err, LRU_EIO, "cannot write '%s': the name is too long", path);
	if (!f && !(f = fopen(in_place ? path : tmp, "wb")))
		return lru_fail(err, LRU_EIO, "cannot write '%s': %s", path, strerror(errno));
	errno = 0;
	if (fwrite(buf, 1, len, f) != len || fflush(f) || (!in_place && fsync(fileno(f))))
		e = errno ? errno : EIO;
	if (f != stdout && fclose(f) && !e)
		e = errno;
	if (!e && !in_place && rename(tmp, path))
		e = errno;
	if (e && !in_place)
		unlink(tmp);
	return e ? lru_fail(err, LRU_EIO, "cannot write '%s': %s", path, strerror(e)) : LRU_OK;
}
