/* log.c - leveled one-line logging to stderr, journal-aware. */
#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lru_esc.h"

const char *const log_level_names[] = { "debug", "info", "warning", "error", NULL };
/* syslog priorities debug, info, warning, err (not <syslog.h>: its names collide) */
static const int priorities[LOG_LV_NR] = { 7, 6, 4, 3 };

static atomic_int min_level = LOG_LV_INFO;
/* set by log_init before any thread starts, read-only afterwards */
static bool journal;
static const char *program = "lrugen";
static bool tagged;

/* JOURNAL_STREAM is "DEV:INO" of the journal's stream: is it our stderr? */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!env || sscanf(env, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st))
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_init(const char *prog, bool tag)
{
	program = prog;
	tagged = tag;
	journal = stderr_is_journal();
}

void log_set_level(enum log_level min)
{
	atomic_store_explicit(&min_level, (int)min, memory_order_relaxed);
}

/* prefix, then msg with its controls escaped, then '\n', in one write(2) */
static void emit(char *line, size_t size, size_t n, const char *msg)
{
	if (n >= size - 1)
		n = size - 2;
	lru_esc(line + n, size - n - 1, msg, strlen(msg), LRU_ESC_TERM);
	n += strlen(line + n);
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

void log_msg(enum log_level lv, const char *fmt, ...)
{
	char line[2048], msg[2048];
	const char *tag = tagged ? program : "", *sep = tagged ? ": " : "";
	size_t n = 0;
	va_list ap;
	int r;

	if ((int)lv < atomic_load_explicit(&min_level, memory_order_relaxed) || lv >= LOG_LV_NR)
		return;
	if (journal) {
		r = snprintf(line, sizeof(line), "<%d>%s%s%s: ", priorities[lv], tag, sep,
			     log_level_names[lv]);
	} else {
		struct timespec ts;
		struct tm tm;

		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
		r = snprintf(line + n, sizeof(line) - n, ".%03ldZ %s%s%s: ", ts.tv_nsec / 1000000, tag,
			     sep, log_level_names[lv]);
	}
	n += r > 0 ? (size_t)r : 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(line, sizeof(line), n, msg);
}

void log_fatal(const char *fmt, ...)
{
	char line[2048], msg[1024];
	int r = snprintf(line, sizeof(line), "%s: ", program);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(line, sizeof(line), r > 0 ? (size_t)r : 0, msg);
}

int errorf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return -1;
}
