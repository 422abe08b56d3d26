#include "lru_spool.h"

#include "lru_model.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define SPOOL_MAGIC 0x3153524cu	/* "LRS1" little-endian */
#define SEG_NAME_LEN 20		/* 16 hex digits + ".seg" */
#define SEG_MIN (64u << 10)
#define SCAN_CHUNK (64u << 10)

struct seg {
	uint64_t id;
	uint64_t size;		/* bytes of valid records */
};

struct lru_spool {
	pthread_mutex_t lock;	/* every public call holds it (see the header) */
	char *dir;
	int dirfd, lockfd;
	struct seg *segs;	/* ascending ids; the last one takes appends */
	size_t nsegs, alloc;
	int tail_fd;
	int rd_fd;		/* cached read descriptor of segment rd_seg */
	uint64_t rd_seg;
	struct lru_spool_pos head;
	uint64_t next_seq;
	struct lru_spool_opts opts;
	struct lru_spool_stats st;	/* records, bytes and counters */
	bool disk_full;		/* a write failed with ENOSPC or EDQUOT since the
				   tail was last started */
};

/* ---- helpers ------------------------------------------------------------ */

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void note(struct lru_spool *sp, enum lru_spool_note kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct lru_spool *sp, enum lru_spool_note kind, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!sp->opts.note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sp->opts.note(sp->opts.note_arg, kind, msg);
}

static enum lru_err sys_fail(struct lru_spool *sp, struct lru_error *err, const char *what,
			     const char *name)
{
	int e = errno;

	if (e == ENOSPC || e == EDQUOT)
		sp->disk_full = true;
	return lru_fail(err, e == EACCES || e == EPERM || e == EROFS ? LRU_EACCES : LRU_EIO,
			"spool '%s': cannot %s '%s': %s", sp->dir, what, name, strerror(e));
}

static void seg_name(uint64_t id, char *buf, size_t size)
{
	snprintf(buf, size, "%016" PRIx64 ".seg", id);
}

static int pos_cmp(const struct lru_spool_pos *a, const struct lru_spool_pos *b)
{
	if (a->seg != b->seg)
		return a->seg < b->seg ? -1 : 1;
	return (a->off > b->off) - (a->off < b->off);
}

static struct seg *find_seg(struct lru_spool *sp, uint64_t id)
{
	for (size_t i = 0; i < sp->nsegs; i++)
		if (sp->segs[i].id == id)
			return &sp->segs[i];
	return NULL;
}

static struct seg *tail_seg(struct lru_spool *sp)
{
	return &sp->segs[sp->nsegs - 1];
}


static uint32_t record_crc(const uint8_t *hdr, const void *payload, size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	crc = crc32(crc, hdr + 4, 20);
	return (uint32_t)crc32(crc, payload, (uInt)len);
}

static void fill_header(uint8_t *hdr, uint64_t seq, int64_t time_ms, const void *data, size_t len)
{
	put32(hdr, SPOOL_MAGIC);
	put32(hdr + 4, (uint32_t)len);
	put64(hdr + 8, seq);
	put64(hdr + 16, (uint64_t)time_ms);
	put32(hdr + 24, record_crc(hdr, data, len));
	put32(hdr + 28, 0);
}

static bool parse_header(const uint8_t *hdr, struct lru_spool_rec *rec)
{
	if (get32(hdr) != SPOOL_MAGIC || get32(hdr + 28) != 0)
		return false;
	rec->len = get32(hdr + 4);
	rec->seq = get64(hdr + 8);
	rec->time_ms = (int64_t)get64(hdr + 16);
	rec->crc = get32(hdr + 24);
	return rec->len <= LRU_SPOOL_MAX_RECORD;
}

static ssize_t pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

/* Replace dir/name with text atomically: temporary file, fsync, rename, fsync dir. */
static enum lru_err write_small(struct lru_spool *sp, const char *name, const char *text,
				struct lru_error *err)
{
	char tmp[64];
	size_t len = strlen(text);
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	fd = openat(sp->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return sys_fail(sp, err, "create", tmp);
	if (write(fd, text, len) != (ssize_t)len || fsync(fd)) {
		enum lru_err rc = sys_fail(sp, err, "write", tmp);

		close(fd);
		unlinkat(sp->dirfd, tmp, 0);
		return rc;
	}
	close(fd);
	if (renameat(sp->dirfd, tmp, sp->dirfd, name))
		return sys_fail(sp, err, "rename to", name);
	if (fsync(sp->dirfd))
		return sys_fail(sp, err, "sync", ".");
	return LRU_OK;
}

/* Read a small file of the spool into buf; false if it is missing or unreadable. */
static bool read_small(struct lru_spool *sp, const char *name, char *buf, size_t size)
{
	int fd = openat(sp->dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

static enum lru_err add_seg(struct lru_spool *sp, uint64_t id, uint64_t size,
			    struct lru_error *err)
{
	if (sp->nsegs == sp->alloc) {
		size_t n = sp->alloc ? sp->alloc * 2 : 8;
		struct seg *p = realloc(sp->segs, n * sizeof(*p));

		if (!p)
			return lru_fail(err, LRU_ENOMEM, "out of memory listing spool segments");
		sp->segs = p;
		sp->alloc = n;
	}
	sp->segs[sp->nsegs].id = id;
	sp->segs[sp->nsegs].size = size;
	sp->nsegs++;
	return LRU_OK;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* A descriptor to read segment id, cached between calls. */
static int read_fd(struct lru_spool *sp, uint64_t id, struct lru_error *err)
{
	char name[32];

	if (sp->rd_fd >= 0 && sp->rd_seg == id)
		return sp->rd_fd;
	if (sp->rd_fd >= 0)
		close(sp->rd_fd);
	seg_name(id, name, sizeof(name));
	sp->rd_fd = openat(sp->dirfd, name, O_RDONLY | O_CLOEXEC);
	sp->rd_seg = id;
	if (sp->rd_fd < 0)
		sys_fail(sp, err, "open", name);
	return sp->rd_fd;
}

static void remove_seg_file(struct lru_spool *sp, uint64_t id)
{
	char name[32];

	if (sp->rd_fd >= 0 && sp->rd_seg == id) {
		close(sp->rd_fd);
		sp->rd_fd = -1;
	}
	seg_name(id, name, sizeof(name));
	unlinkat(sp->dirfd, name, 0);
}

/* ---- opening: list, scan and repair -------------------------------------- */

/* Collect segment files; remove leftover temporary files. */
static enum lru_err list_segments(struct lru_spool *sp, struct lru_error *err)
{
	int fd = dup(sp->dirfd);
	struct dirent *de;
	DIR *d;
	enum lru_err rc = LRU_OK;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return sys_fail(sp, err, "list", ".");
	}
	rewinddir(d);
	while (!rc && (de = readdir(d))) {
		const char *n = de->d_name;
		size_t len = strlen(n);
		char *end;
		uint64_t id;

		if (len > 4 && !strcmp(n + len - 4, ".tmp")) {
			unlinkat(sp->dirfd, n, 0);
			continue;
		}
		if (len != SEG_NAME_LEN || strcmp(n + 16, ".seg"))
			continue;
		errno = 0;
		id = strtoull(n, &end, 16);
		if (errno || end != n + 16)
			continue;
		rc = add_seg(sp, id, 0, err);
	}
	closedir(d);
	if (sp->nsegs)
		qsort(sp->segs, sp->nsegs, sizeof(*sp->segs), seg_cmp);
	return rc;
}

/*
 * Check every record of segment s; its valid size ends at the first torn or
 * corrupt record, and what follows is cut off (reported). Records at or
 * after from count as live. *max_seq gets the largest seq seen.
 */
static enum lru_err scan_segment(struct lru_spool *sp, struct seg *s, uint64_t from,
				 uint64_t *boundary, uint64_t *max_seq, struct lru_error *err)
{
	char name[32];
	uint8_t hdr[LRU_SPOOL_HEADER];
	struct stat st;
	uint8_t *chunk;
	uint64_t off = 0, fsize;
	const char *why = NULL;
	int fd;

	seg_name(s->id, name, sizeof(name));
	fd = openat(sp->dirfd, name, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		enum lru_err rc = sys_fail(sp, err, "open", name);

		if (fd >= 0)
			close(fd);
		return rc;
	}
	chunk = malloc(SCAN_CHUNK);
	if (!chunk) {
		close(fd);
		return lru_fail(err, LRU_ENOMEM, "out of memory scanning the spool");
	}
	fsize = (uint64_t)st.st_size;
	*boundary = UINT64_MAX;
	while (off < fsize) {
		struct lru_spool_rec rec;
		uLong crc;
		uint64_t done;

		if (fsize - off < LRU_SPOOL_HEADER) {
			why = "a torn record header";
			break;
		}
		if (pread_full(fd, hdr, sizeof(hdr), off) != (ssize_t)sizeof(hdr) ||
		    !parse_header(hdr, &rec)) {
			why = "a corrupt record header";
			break;
		}
		if (rec.len > fsize - off - LRU_SPOOL_HEADER) {
			why = "a torn record";
			break;
		}
		crc = crc32(crc32(0L, Z_NULL, 0), hdr + 4, 20);
		for (done = 0; done < rec.len;) {
			size_t want = rec.len - done < SCAN_CHUNK ? rec.len - done : SCAN_CHUNK;
			ssize_t r = pread_full(fd, chunk, want, off + LRU_SPOOL_HEADER + done);

			if (r != (ssize_t)want)
				break;
			crc = crc32(crc, chunk, (uInt)want);
			done += want;
		}
		if (done != rec.len || (uint32_t)crc != rec.crc) {
			why = "a record failing its checksum";
			break;
		}
		if (off >= from) {
			if (*boundary == UINT64_MAX)
				*boundary = off;
			sp->st.records++;
			sp->st.bytes += LRU_SPOOL_HEADER + rec.len;
		}
		if (rec.seq > *max_seq)
			*max_seq = rec.seq;
		off += LRU_SPOOL_HEADER + rec.len;
	}
	free(chunk);
	s->size = off;
	if (*boundary == UINT64_MAX)
		*boundary = off;
	if (why) {
		sp->st.torn++;
		sp->st.torn_bytes += fsize - off;
		note(sp, LRU_SPOOL_NOTE_TORN,
		     "spool '%s': segment %s: %s at offset %" PRIu64 "; skipped %" PRIu64
		     " bytes (a write cut short by a crash)", sp->dir, name, why, off, fsize - off);
		if (ftruncate(fd, (off_t)off) || fsync(fd))
			note(sp, LRU_SPOOL_NOTE_INFO, "spool '%s': cannot truncate %s: %s", sp->dir,
			     name, strerror(errno));
	}
	close(fd);
	return LRU_OK;
}

static bool parse_pos(const char *text, struct lru_spool_pos *pos)
{
	unsigned long long seg, off;

	if (sscanf(text, "%llx %llu", &seg, &off) != 2)
		return false;
	pos->seg = seg;
	pos->off = off;
	return true;
}

static enum lru_err write_head(struct lru_spool *sp, struct lru_error *err)
{
	char text[64];

	snprintf(text, sizeof(text), "%016" PRIx64 " %" PRIu64 "\n", sp->head.seg, sp->head.off);
	return write_small(sp, "head", text, err);
}

static enum lru_err open_tail(struct lru_spool *sp, struct lru_error *err)
{
	char name[32];

	if (sp->tail_fd >= 0)
		close(sp->tail_fd);
	seg_name(tail_seg(sp)->id, name, sizeof(name));
	sp->tail_fd = openat(sp->dirfd, name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (sp->tail_fd < 0)
		return sys_fail(sp, err, "open", name);
	return LRU_OK;
}

/* Start segment id as the new tail. */
static enum lru_err new_segment(struct lru_spool *sp, uint64_t id, struct lru_error *err)
{
	enum lru_err rc = add_seg(sp, id, 0, err);

	if (!rc)
		rc = open_tail(sp, err);
	if (!rc && fsync(sp->dirfd))
		rc = sys_fail(sp, err, "sync", ".");
	return rc;
}

/* Scan from the head on; fix a head that is lost or not at a record boundary. */
static enum lru_err recover(struct lru_spool *sp, struct lru_error *err)
{
	char text[128];
	uint64_t max_seq = 0, next = 0;
	bool have_head = read_small(sp, "head", text, sizeof(text)) && parse_pos(text, &sp->head);
	size_t i, keep = 0;
	enum lru_err rc;

	if (!have_head)
		sp->head = (struct lru_spool_pos){ sp->nsegs ? sp->segs[0].id : 1, 0 };
	/* segments before the head were acknowledged: a crash kept them */
	for (i = 0; i < sp->nsegs; i++) {
		if (sp->segs[i].id < sp->head.seg)
			remove_seg_file(sp, sp->segs[i].id);
		else
			sp->segs[keep++] = sp->segs[i];
	}
	sp->nsegs = keep;
	if (sp->nsegs && sp->segs[0].id != sp->head.seg)
		sp->head = (struct lru_spool_pos){ sp->segs[0].id, 0 };
	for (i = 0; i < sp->nsegs; i++) {
		uint64_t from = sp->segs[i].id == sp->head.seg ? sp->head.off : 0, boundary = 0;

		rc = scan_segment(sp, &sp->segs[i], from, &boundary, &max_seq, err);
		if (rc)
			return rc;
		if (sp->segs[i].id == sp->head.seg && boundary != sp->head.off) {
			note(sp, LRU_SPOOL_NOTE_INFO,
			     "spool '%s': head offset %" PRIu64 " is not a record boundary; "
			     "resuming at %" PRIu64, sp->dir, sp->head.off, boundary);
			sp->head.off = boundary;
		}
	}
	if (!sp->nsegs) {
		sp->head.off = 0;
		rc = new_segment(sp, sp->head.seg, err);
	} else {
		rc = open_tail(sp, err);
	}
	if (rc)
		return rc;
	if (read_small(sp, "seq", text, sizeof(text)))
		next = strtoull(text, NULL, 10);
	else	/* new or lost: numbers already sent may be gone from the segments */
		next = (uint64_t)lru_now_ms();
	if (next <= max_seq)
		next = max_seq + 1;
	sp->next_seq = next ? next : 1;
	return write_head(sp, err);
}

enum lru_err lru_spool_open(const char *dir, const struct lru_spool_opts *opts,
			    struct lru_spool **out, struct lru_error *err)
{
	struct lru_spool *sp = calloc(1, sizeof(*sp));
	enum lru_err rc;

	*out = NULL;
	if (!sp || !(sp->dir = strdup(dir))) {
		free(sp);
		return lru_fail(err, LRU_ENOMEM, "out of memory opening a spool");
	}
	pthread_mutex_init(&sp->lock, NULL);
	sp->dirfd = sp->lockfd = sp->tail_fd = sp->rd_fd = -1;
	if (opts)
		sp->opts = *opts;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		rc = sys_fail(sp, err, "create directory", dir);
		goto fail;
	}
	sp->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sp->dirfd < 0) {
		rc = sys_fail(sp, err, "open directory", dir);
		goto fail;
	}
	sp->lockfd = openat(sp->dirfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (sp->lockfd < 0) {
		rc = sys_fail(sp, err, "create", "lock");
		goto fail;
	}
	if (flock(sp->lockfd, LOCK_EX | LOCK_NB)) {
		rc = lru_fail(err, LRU_EBUSY, "spool '%s' is in use by another process", dir);
		goto fail;
	}
	rc = list_segments(sp, err);
	if (!rc)
		rc = recover(sp, err);
	if (rc)
		goto fail;
	*out = sp;
	return LRU_OK;
fail:
	lru_spool_close(sp);
	return rc;
}

void lru_spool_close(struct lru_spool *sp)
{
	if (!sp)
		return;
	if (sp->tail_fd >= 0)
		close(sp->tail_fd);
	if (sp->rd_fd >= 0)
		close(sp->rd_fd);
	if (sp->lockfd >= 0)
		close(sp->lockfd);
	if (sp->dirfd >= 0)
		close(sp->dirfd);
	free(sp->segs);
	free(sp->dir);
	pthread_mutex_destroy(&sp->lock);
	free(sp);
}

void lru_spool_set_limits(struct lru_spool *sp, uint64_t max_bytes, uint64_t max_age_ms)
{
	pthread_mutex_lock(&sp->lock);
	sp->opts.max_bytes = max_bytes;
	sp->opts.max_age_ms = max_age_ms;
	pthread_mutex_unlock(&sp->lock);
}

/* ---- sequence numbers ------------------------------------------------------ */

enum lru_err lru_spool_take_seq(struct lru_spool *sp, uint64_t *seq, struct lru_error *err)
{
	char text[32];
	enum lru_err rc;

	pthread_mutex_lock(&sp->lock);
	snprintf(text, sizeof(text), "%" PRIu64 "\n", sp->next_seq + 1);
	rc = write_small(sp, "seq", text, err);
	if (!rc)
		*seq = sp->next_seq++;
	pthread_mutex_unlock(&sp->lock);
	return rc;
}

/* ---- reading and consuming ------------------------------------------------ */

void lru_spool_head(struct lru_spool *sp, struct lru_spool_pos *pos)
{
	pthread_mutex_lock(&sp->lock);
	*pos = sp->head;
	pthread_mutex_unlock(&sp->lock);
}

/* Move pos past the ends of non-tail segments; false at the end of the spool. */
static bool normalize(struct lru_spool *sp, struct lru_spool_pos *pos)
{
	for (size_t i = 0; i < sp->nsegs; i++) {
		const struct seg *s = &sp->segs[i];

		if (s->id < pos->seg)
			continue;
		if (s->id > pos->seg)
			*pos = (struct lru_spool_pos){ s->id, 0 };
		if (pos->off < s->size)
			return true;
		if (i + 1 == sp->nsegs)
			return false;
		*pos = (struct lru_spool_pos){ sp->segs[i + 1].id, 0 };
	}
	return false;
}

/* Read and check the header of the record at p (a normalized position). */
static bool peek_raw(struct lru_spool *sp, const struct lru_spool_pos *p,
		     struct lru_spool_rec *rec)
{
	uint8_t hdr[LRU_SPOOL_HEADER];
	int fd = read_fd(sp, p->seg, NULL);

	if (fd < 0 || pread_full(fd, hdr, sizeof(hdr), p->off) != (ssize_t)sizeof(hdr) ||
	    !parse_header(hdr, rec) || rec->len > find_seg(sp, p->seg)->size - p->off - sizeof(hdr))
		return false;
	rec->pos = *p;
	rec->next = (struct lru_spool_pos){ p->seg, p->off + LRU_SPOOL_HEADER + rec->len };
	return true;
}

/* The bytes of segment id changed after the open: it ends at off from now on. */
static void cut_segment(struct lru_spool *sp, const struct lru_spool_pos *p)
{
	struct seg *s = find_seg(sp, p->seg);

	note(sp, LRU_SPOOL_NOTE_TORN,
	     "spool '%s': segment %016" PRIx64 " changed on disk at offset %" PRIu64
	     "; skipped %" PRIu64 " bytes", sp->dir, p->seg, p->off, s->size - p->off);
	sp->st.torn++;
	sp->st.torn_bytes += s->size - p->off;
	s->size = p->off;
	/* appends go to the end of the file: cut it there too, or move on */
	if (s == tail_seg(sp) && ftruncate(sp->tail_fd, (off_t)p->off))
		new_segment(sp, s->id + 1, NULL);
}

/* Count the live records again (after a cut). */
static void recount(struct lru_spool *sp)
{
	struct lru_spool_pos p = sp->head;
	struct lru_spool_rec rec;

	sp->st.records = sp->st.bytes = 0;
	while (normalize(sp, &p)) {
		if (!peek_raw(sp, &p, &rec)) {
			cut_segment(sp, &p);
			continue;
		}
		sp->st.records++;
		sp->st.bytes += LRU_SPOOL_HEADER + rec.len;
		p = rec.next;
	}
}

/* lru_spool_peek() with the lock held. */
static enum lru_err peek(struct lru_spool *sp, const struct lru_spool_pos *pos,
			 struct lru_spool_rec *rec, struct lru_error *err)
{
	struct lru_spool_pos p = *pos;

	if (pos_cmp(&p, &sp->head) < 0)
		p = sp->head;
	while (normalize(sp, &p)) {
		if (peek_raw(sp, &p, rec))
			return LRU_OK;
		cut_segment(sp, &p);
		recount(sp);
	}
	return lru_fail(err, LRU_ENOENT, "end of spool");
}

enum lru_err lru_spool_peek(struct lru_spool *sp, const struct lru_spool_pos *pos,
			    struct lru_spool_rec *rec, struct lru_error *err)
{
	enum lru_err rc;

	pthread_mutex_lock(&sp->lock);
	rc = peek(sp, pos, rec, err);
	pthread_mutex_unlock(&sp->lock);
	return rc;
}

/* lru_spool_read() with the lock held. */
static enum lru_err read_rec(struct lru_spool *sp, const struct lru_spool_rec *rec, void *buf,
			     struct lru_error *err)
{
	uint8_t hdr[LRU_SPOOL_HEADER];
	int fd;

	/* dropped for the bounds (by an append) since it was peeked */
	if (pos_cmp(&rec->pos, &sp->head) < 0)
		return lru_fail(err, LRU_ENOENT, "spool '%s': record seq %" PRIu64
				" was dropped meanwhile", sp->dir, rec->seq);
	fd = read_fd(sp, rec->pos.seg, err);
	if (fd < 0)
		return LRU_EIO;
	if (pread_full(fd, buf, rec->len, rec->pos.off + LRU_SPOOL_HEADER) != (ssize_t)rec->len)
		return lru_fail(err, LRU_EPROTO, "spool '%s': record seq %" PRIu64 " is cut short",
				sp->dir, rec->seq);
	put32(hdr + 4, rec->len);
	put64(hdr + 8, rec->seq);
	put64(hdr + 16, (uint64_t)rec->time_ms);
	if (record_crc(hdr, buf, rec->len) != rec->crc)
		return lru_fail(err, LRU_EPROTO,
				"spool '%s': record seq %" PRIu64 " fails its checksum", sp->dir,
				rec->seq);
	return LRU_OK;
}

enum lru_err lru_spool_read(struct lru_spool *sp, const struct lru_spool_rec *rec, void *buf,
			    struct lru_error *err)
{
	enum lru_err rc;

	pthread_mutex_lock(&sp->lock);
	rc = read_rec(sp, rec, buf, err);
	pthread_mutex_unlock(&sp->lock);
	return rc;
}

/* Delete the segments wholly before the head. */
static void drop_segments(struct lru_spool *sp)
{
	size_t i, keep = 0;

	normalize(sp, &sp->head);
	for (i = 0; i < sp->nsegs; i++) {
		if (sp->segs[i].id < sp->head.seg && i + 1 < sp->nsegs)
			remove_seg_file(sp, sp->segs[i].id);
		else
			sp->segs[keep++] = sp->segs[i];
	}
	sp->nsegs = keep;
}

/* Advance the head by one record; false at the end. */
static bool pop_head(struct lru_spool *sp, struct lru_spool_rec *rec)
{
	if (peek(sp, &sp->head, rec, NULL))
		return false;
	sp->head = rec->next;
	sp->st.records--;
	sp->st.bytes -= LRU_SPOOL_HEADER + rec->len;
	return true;
}

/*
 * Once every record is consumed, the tail segment holds only dead bytes,
 * and appends would go on growing it up to its limit. Start a new, empty
 * tail and move the head there, so that drop_segments() gives the old one's
 * space back: when it holds SEG_MIN or more, and always after a write found
 * the disk full (the space is what the next append needs).
 * A crash before the head is written is harmless: the head then names a
 * removed segment, and open falls back to the first one left.
 */
static void shed_dead_tail(struct lru_spool *sp)
{
	struct seg *t = tail_seg(sp);

	if (sp->st.records || !t->size || (t->size < SEG_MIN && !sp->disk_full))
		return;
	if (new_segment(sp, t->id + 1, NULL))
		return;
	sp->head = (struct lru_spool_pos){ tail_seg(sp)->id, 0 };
	sp->disk_full = false;
}

enum lru_err lru_spool_consume(struct lru_spool *sp, const struct lru_spool_pos *upto,
			       struct lru_error *err)
{
	struct lru_spool_rec rec;
	enum lru_err rc;

	pthread_mutex_lock(&sp->lock);
	while (pos_cmp(&sp->head, upto) < 0 && pop_head(sp, &rec))
		;
	shed_dead_tail(sp);
	drop_segments(sp);
	rc = write_head(sp, err);
	pthread_mutex_unlock(&sp->lock);
	return rc;
}

/* ---- appending ----------------------------------------------------------------- */

/* Drop the oldest records while the bounds demand it, with one note per reason. */
static enum lru_err enforce_limits(struct lru_spool *sp, uint64_t need, struct lru_error *err)
{
	int64_t oldest_ok = sp->opts.max_age_ms ? lru_now_ms() - (int64_t)sp->opts.max_age_ms : INT64_MIN;
	enum lru_err rc;

	for (int pass = 0; pass < 2; pass++) {
		struct lru_spool_rec rec;
		uint64_t n = 0, bytes = 0, first = 0, last = 0;

		for (;;) {
			if (peek(sp, &sp->head, &rec, NULL))
				break;
			if (pass == 0 ? rec.time_ms >= oldest_ok
				      : !sp->opts.max_bytes || sp->st.bytes + need <= sp->opts.max_bytes)
				break;
			pop_head(sp, &rec);
			if (!n++)
				first = rec.seq;
			last = rec.seq;
			bytes += LRU_SPOOL_HEADER + rec.len;
		}
		if (!n)
			continue;
		if (pass == 0) {
			sp->st.dropped_old += n;
			note(sp, LRU_SPOOL_NOTE_DROPPED,
			     "spool '%s': dropped %" PRIu64 " snapshots older than %" PRIu64
			     " s (seq %" PRIu64 "-%" PRIu64 ", %" PRIu64 " bytes)", sp->dir, n,
			     sp->opts.max_age_ms / 1000, first, last, bytes);
		} else {
			sp->st.dropped_full += n;
			note(sp, LRU_SPOOL_NOTE_DROPPED,
			     "spool '%s': full (%" PRIu64 " bytes): dropped the %" PRIu64
			     " oldest snapshots (seq %" PRIu64 "-%" PRIu64 ", %" PRIu64 " bytes)",
			     sp->dir, sp->opts.max_bytes, n, first, last, bytes);
		}
		drop_segments(sp);
		rc = write_head(sp, err);
		if (rc)
			return rc;
	}
	return LRU_OK;
}

static uint64_t segment_limit(const struct lru_spool *sp)
{
	uint64_t lim = sp->opts.segment_bytes;

	if (!lim) {
		lim = LRU_SPOOL_SEGMENT_DEFAULT;
		if (sp->opts.max_bytes && sp->opts.max_bytes / 4 < lim)
			lim = sp->opts.max_bytes / 4;
	}
	return lim < SEG_MIN && !sp->opts.segment_bytes ? SEG_MIN : lim;
}

/* lru_spool_append() with the lock held. */
static enum lru_err append(struct lru_spool *sp, uint64_t seq, int64_t time_ms, const void *data,
			   size_t len, struct lru_error *err)
{
	uint8_t hdr[LRU_SPOOL_HEADER];
	uint64_t need = LRU_SPOOL_HEADER + (uint64_t)len;
	struct iovec iov[2];
	struct seg *t;
	ssize_t n;
	enum lru_err rc;

	if (len > LRU_SPOOL_MAX_RECORD || (sp->opts.max_bytes && need > sp->opts.max_bytes))
		return lru_fail(err, LRU_ERANGE,
				"a %zu-byte record does not fit the spool (limit %" PRIu64 " bytes)",
				len, sp->opts.max_bytes && sp->opts.max_bytes < LRU_SPOOL_MAX_RECORD
					     ? sp->opts.max_bytes : (uint64_t)LRU_SPOOL_MAX_RECORD);
	rc = enforce_limits(sp, need, err);
	if (rc)
		return rc;
	t = tail_seg(sp);
	if (t->size && t->size + need > segment_limit(sp)) {
		rc = new_segment(sp, t->id + 1, err);
		if (rc)
			return rc;
		t = tail_seg(sp);
	}
	fill_header(hdr, seq, time_ms, data, len);
	iov[0] = (struct iovec){ hdr, sizeof(hdr) };
	iov[1] = (struct iovec){ (void *)data, len };
	do
		n = writev(sp->tail_fd, iov, 2);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)need || fdatasync(sp->tail_fd)) {
		char name[32];

		seg_name(t->id, name, sizeof(name));
		rc = sys_fail(sp, err, "append to", name);
		if (n > 0 && ftruncate(sp->tail_fd, (off_t)t->size)) {
			note(sp, LRU_SPOOL_NOTE_INFO, "spool '%s': cannot truncate %s: %s", sp->dir,
			     name, strerror(errno));
			new_segment(sp, t->id + 1, NULL);
		}
		return rc;
	}
	t->size += need;
	sp->st.records++;
	sp->st.bytes += need;
	return LRU_OK;
}

enum lru_err lru_spool_append(struct lru_spool *sp, uint64_t seq, int64_t time_ms,
			      const void *data, size_t len, struct lru_error *err)
{
	enum lru_err rc;

	pthread_mutex_lock(&sp->lock);
	rc = append(sp, seq, time_ms, data, len, err);
	pthread_mutex_unlock(&sp->lock);
	return rc;
}

void lru_spool_stats(struct lru_spool *sp, struct lru_spool_stats *st)
{
	pthread_mutex_lock(&sp->lock);
	*st = sp->st;
	st->segments = sp->nsegs;
	st->next_seq = sp->next_seq;
	pthread_mutex_unlock(&sp->lock);
}
