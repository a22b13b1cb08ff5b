/* Logging for the daemon and the CLI: stderr, with syslog priority prefixes
 * when stderr is the journal. */
#ifndef CPUPOLICY_LOG_H
#define CPUPOLICY_LOG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdnoreturn.h>

#include "ostypes.h" /* OS_PRINTF */

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARNING,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

/* log.c */
void log_init(const char *progname, enum log_level level);
void log_set_level(enum log_level level);
void log_set_timestamps(bool on);
void log_set_file(FILE *f);
FILE *log_file(void);
enum log_level log_get_level(void);
int log_level_parse(const char *text, enum log_level *level);
void log_error(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));
noreturn void fatal(const char *fmt, ...)
	__attribute__((format(OS_PRINTF, 1, 2)));
noreturn void fatalx(const char *fmt, ...)
	__attribute__((format(OS_PRINTF, 1, 2)));

/* A knob that fails keeps failing: say it once, not once per process. */
#define log_once(logger, ...)                                                  \
	do {                                                                   \
		static bool log_once_done_;                                    \
		if (!log_once_done_) {                                         \
			log_once_done_ = true;                                 \
			logger(__VA_ARGS__);                                   \
		}                                                              \
	} while (0)

#endif
