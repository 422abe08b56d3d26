/*
 * log.h - lrugend's log: one line per event on stderr, with a level.
 *
 * Under systemd (JOURNAL_STREAM names our stderr) a line is
 * "<PRIORITY>level: message", the prefix setting the journal priority and
 * no timestamp (the journal adds its own); elsewhere it is
 * "2025-01-31T12:00:00.123Z level: message". Each line goes out in one
 * write(2), so lines of the metrics thread and the main loop never mix.
 */
#ifndef LOG_H
#define LOG_H

#include <stdbool.h>

enum log_level { LOG_LV_DEBUG = 0, LOG_LV_INFO, LOG_LV_WARN, LOG_LV_ERROR, LOG_LV_NR };

/* Pick the format from the environment; lines below min are not written. */
void log_init(enum log_level min);
void log_set_level(enum log_level min);
bool log_enabled(enum log_level lv);
const char *log_level_name(enum log_level lv);

void log_msg(enum log_level lv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_LV_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LV_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LV_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_LV_ERROR, __VA_ARGS__)

#endif
