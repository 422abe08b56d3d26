/*
 * log.h - the log of lrugend and lrugen-store: one line per event on
 * stderr, with a level.
 *
 * A line is "2025-01-31T12:00:00.123Z [PROG: ]level: message" (PROG when
 * log_init asked for it); under systemd (JOURNAL_STREAM names our stderr)
 * it is "<PRIORITY>[PROG: ]level: message", the prefix setting the journal
 * priority and no timestamp (the journal adds its own). The message's
 * control characters are escaped (lru_esc.h, LRU_ESC_TERM): memcg paths,
 * host names and peers' text cannot act on a terminal or split a line.
 * Each line goes out in one write(2), so the lines of different threads
 * never mix; the level may change (SIGHUP) while other threads log.
 *
 * Level names, for a "log-level" setting and in every line: debug, info,
 * warning, error (log_level_names).
 */
#ifndef DAEMON_LOG_H
#define DAEMON_LOG_H

#include <stdbool.h>
#include <stddef.h>

/* LOG_LV_*, not LOG_*: <syslog.h> owns LOG_DEBUG, LOG_INFO, LOG_ERR ... */
enum log_level { LOG_LV_DEBUG = 0, LOG_LV_INFO, LOG_LV_WARN, LOG_LV_ERROR, LOG_LV_NR };

/* "debug", "info", "warning", "error", NULL: the choices of a log-level setting */
extern const char *const log_level_names[];

/*
 * Name the program (for log_fatal, and in each line when tag) and pick the
 * line format from the environment. Call once, before threads start.
 */
void log_init(const char *prog, bool tag);
/* Lines below min are not written from now on (any thread). */
void log_set_level(enum log_level min);

void log_msg(enum log_level lv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_LV_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LV_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LV_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_LV_ERROR, __VA_ARGS__)

/*
 * "PROG: message" on stderr, controls escaped, no timestamp: the one line a
 * program prints before it exits on a bad command line or configuration.
 */
void log_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Format a one-line error message into buf (for the caller to report); returns -1. */
int errorf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
