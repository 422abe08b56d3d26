#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lru_esc.h"

static enum log_level min_level = LOG_INFO;

void log_set_level(enum log_level level)
{
	min_level = level;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const names[] = { "debug", "info", "warning", "error" };
	char line[2048], msg[2048];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n;

	if (level < min_level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = (int)strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
	n += snprintf(line + n, sizeof(line) - (size_t)n, ".%03ldZ lrugen-store: %s: ",
		      ts.tv_nsec / 1000000, names[level]);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* host names and paths from the network: controls escaped (lru_esc.h) */
	lru_esc(line + n, sizeof(line) - (size_t)n - 1, msg, strlen(msg), LRU_ESC_TERM);
	n = (int)strlen(line);
	line[n++] = '\n';
	/* one write(2) per line: lines of different threads never interleave */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

int errorf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return -1;
}
