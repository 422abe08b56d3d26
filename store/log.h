/*
 * log.h - the store's log: one line per event on stderr,
 * "2025-01-31T12:00:00.123Z lrugen-store: warning: <message>".
 */
#ifndef STORE_LOG_H
#define STORE_LOG_H

#include <stddef.h>

enum log_level { LOG_DEBUG = 0, LOG_INFO, LOG_WARN, LOG_ERROR };

void log_set_level(enum log_level level);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Format a one-line error message into buf (for the caller to report); returns -1. */
int errorf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

#endif
