/* Logging for the daemon and the CLI: stderr, with syslog priority prefixes
 * when stderr is the journal. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "log.h"

static const char *log_progname = "cpupolicy";
static enum log_level log_threshold = LOG_LEVEL_INFO;
static bool log_to_journal;
static bool log_timestamps;
static FILE *log_stream; /* NULL: stderr */

static const char *const log_level_names[] = {
	[LOG_LEVEL_ERROR] = "error",
	[LOG_LEVEL_WARNING] = "warning",
	[LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_DEBUG] = "debug",
};

/* The journal reads "<N>" at the start of a line as the syslog priority. */
static const int log_syslog_priority[] = {
	[LOG_LEVEL_ERROR] = 3,
	[LOG_LEVEL_WARNING] = 4,
	[LOG_LEVEL_INFO] = 6,
	[LOG_LEVEL_DEBUG] = 7,
};

void log_init(const char *progname, enum log_level level)
{
	log_progname = progname;
	log_threshold = level;
	log_to_journal = getenv("JOURNAL_STREAM") != NULL;
}

void log_set_level(enum log_level level)
{
	log_threshold = level;
}

/* Each line starts with the local time: for a log file of its own (a
 * Windows service's), where nothing else dates the lines. */
void log_set_timestamps(bool on)
{
	log_timestamps = on;
}

/* Where the lines go: stderr, or a file of the daemon's own (a Windows
 * service has no stderr). The daemon prints its config's and rules'
 * errors there too. */
void log_set_file(FILE *f)
{
	log_stream = f;
}

FILE *log_file(void)
{
	return log_stream ? log_stream : stderr;
}

/* The local time, with a space after it; "" when it cannot be had. */
static void log_stamp(char *when, size_t size)
{
	time_t now = time(NULL);
	struct tm *tm = localtime(&now);

	when[0] = '\0';
	if (tm && strftime(when, size - 1, "%Y-%m-%d %H:%M:%S", tm))
		strcat(when, " ");
}

enum log_level log_get_level(void)
{
	return log_threshold;
}

int log_level_parse(const char *text, enum log_level *level)
{
	for (size_t i = 0;
	     i < sizeof(log_level_names) / sizeof(*log_level_names); i++) {
		if (strcasecmp(text, log_level_names[i]) == 0) {
			*level = (enum log_level)i;
			return 0;
		}
	}
	return -1;
}

static void log_emit(enum log_level level, const char *why, const char *fmt,
		     va_list ap)
{
	/* Info lines go without their level's name. */
	const char *label = level == LOG_LEVEL_ERROR ||
					    level == LOG_LEVEL_WARNING ||
					    level == LOG_LEVEL_DEBUG
				    ? log_level_names[level]
				    : "";
	char line[1024], when[40], lead[160];

	if (level > log_threshold)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	when[0] = '\0';
	if (log_timestamps)
		log_stamp(when, sizeof(when));
	if (log_to_journal)
		snprintf(lead, sizeof(lead), "<%d>",
			 log_syslog_priority[level]);
	else
		snprintf(lead, sizeof(lead), "%s: ", log_progname);
	/* One call, so one write to an unbuffered stderr: a line of a
	 * matched exec, and never half of one beside another's. */
	fprintf(log_file(), "%s%s%s%s%s%s%s\n", when, lead, label,
		label[0] ? ": " : "", line, why ? ": " : "", why ? why : "");
}

#define LOG_BODY(level, why)                                                   \
	do {                                                                   \
		va_list ap;                                                    \
		va_start(ap, fmt);                                             \
		log_emit(level, why, fmt, ap);                                 \
		va_end(ap);                                                    \
	} while (0)

void log_error(const char *fmt, ...)
{
	LOG_BODY(LOG_LEVEL_ERROR, NULL);
}

void log_warn(const char *fmt, ...)
{
	const char *why = strerror(errno);

	LOG_BODY(LOG_LEVEL_WARNING, why);
}

void log_warnx(const char *fmt, ...)
{
	LOG_BODY(LOG_LEVEL_WARNING, NULL);
}

void log_info(const char *fmt, ...)
{
	LOG_BODY(LOG_LEVEL_INFO, NULL);
}

void log_debug(const char *fmt, ...)
{
	LOG_BODY(LOG_LEVEL_DEBUG, NULL);
}

void fatal(const char *fmt, ...)
{
	const char *why = strerror(errno);

	LOG_BODY(LOG_LEVEL_ERROR, why);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	LOG_BODY(LOG_LEVEL_ERROR, NULL);
	exit(1);
}
