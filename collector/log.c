/* log.c - leveled one-line logging to stderr, journal-aware. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lru_esc.h"

static enum log_level min_level = LOG_LV_INFO;
static bool journal;

static const char *const names[LOG_LV_NR] = { "debug", "info", "warning", "error" };
/* syslog priorities: LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERR */
static const int priorities[LOG_LV_NR] = { 7, 6, 4, 3 };

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

void log_init(enum log_level min)
{
	min_level = min;
	journal = stderr_is_journal();
}

void log_set_level(enum log_level min)
{
	min_level = min;
}

bool log_enabled(enum log_level lv)
{
	return lv >= min_level;
}

const char *log_level_name(enum log_level lv)
{
	return lv < LOG_LV_NR ? names[lv] : "?";
}

void log_msg(enum log_level lv, const char *fmt, ...)
{
	char line[2048], msg[2048];
	size_t n = 0;
	va_list ap;
	int r;

	if (lv < min_level || lv >= LOG_LV_NR)
		return;
	if (journal) {
		r = snprintf(line, sizeof(line), "<%d>%s: ", priorities[lv], names[lv]);
	} else {
		struct timespec ts;
		struct tm tm;

		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
		r = snprintf(line + n, sizeof(line) - n, ".%03ldZ %s: ", ts.tv_nsec / 1000000, names[lv]);
	}
	n += r > 0 ? (size_t)r : 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one event, one line, nothing for a terminal to act on: memcg paths and
	 * peers' text come with their controls escaped (lru_esc.h) */
	lru_esc(line + n, sizeof(line) - n - 1, msg, strlen(msg), LRU_ESC_TERM);
	n += strlen(line + n);
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}
