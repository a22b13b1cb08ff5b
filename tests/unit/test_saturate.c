/* The saturation check's judgement and report on machines this one is
 * not, as golden pairs in tests/data/saturate/ (the way bgpd's regress
 * keeps them): NAME.in describes a scenario, a machine with measured
 * per-CPU times and steps, and NAME.ok is what the check prints for it,
 * whole. Beside them, the arithmetic that has no report of its own: the
 * default threads, the capacity, the rates' noise, the machine read from
 * hwloc, where the SMT step measures, /proc/stat differences, a job's CPU
 * rate and the scheduled check's series.
 *
 * A .in holds one setting a line; a line that starts with '#' is a
 * comment. A LIST is a CPU list ("0-3,8"), in which A-B/S takes every
 * S-th CPU from A to B.
 *
 *   topology FILE        a machine of tests/data/topologies/; without
 *                        one, each CPU is a core, all in one NUMA node
 *   cpus N | present LIST   the CPUs present (cpus N: 0 to N-1)
 *   offline LIST         present but offline: not in /proc/stat
 *   busy TICKS LIST      busy ticks of each 1000 in the run (default 0)
 *   steal TICKS LIST     stolen ticks of each 1000
 *   groups BITS          Windows' processor groups of BITS processors
 *   parked LIST          the CPUs the power manager had parked (Windows)
 *   system linux|windows whose fixes the findings give (default linux)
 *   threads N | seconds S | work NAME | threshold FRACTION
 *                        the options (default: a thread per CPU present,
 *                        5, tan, 0.9)
 *   single|run|smt-one|smt-all THREADS UNITS WALL_S CPU_S [REL_SE]
 *                        a step as measured (default single: 1 thread,
 *                        1e6 units in 1 s, on its CPU all the time; run:
 *                        the CPUs' count of threads doing half of one
 *                        thread's rate each over 5 s, on their CPUs)
 *   smt measured CPUS | given YIELD | assumed YIELD
 *   affinity LIST | cpuset LIST | cgroup NAME | cpuset-cgroup NAME |
 *   quota CPUS           the process's limits (default: none)
 *   competitor PID NAME CPUS NICE   another process and what it took
 *   governor NAME | epp NAME | driver NAME | max-freq-capped   cpufreq
 *   min-cores PERCENT    Windows' CPMINCORES
 *   ecoqos               the workers ran under EcoQoS (Windows)
 *   report text json metrics   what the .ok holds, always in that order
 *                        (default text; the metrics at a fixed time)
 *
 * After a change to the report, UPDATE_GOLDEN=1 build/tests/test_saturate
 * rewrites every .ok from what the code prints now, and writes the .ok of
 * a new .in; read the diff before committing it. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "os.h" /* memstream */
#include "saturate.h"
#include "saturate_report.h"
#include "util.h"

#define GOLDEN_DIR SRCDIR "/tests/data/saturate"
#define TOPO_DIR   SRCDIR "/tests/data/topologies"
#define TOPO(name) TOPO_DIR "/" name
#define CASCADE	   TOPO("Intel-CascadeLake-2xXeon6230.xml")
#define MANY	   TOPO("192em64t-12gr2n8c2t.xml")

/* Of a CPU's time in the run, in /proc/stat's ticks. */
#define GOLDEN_TICKS 1000
#define GOLDEN_CPUS  1024
/* The metrics' timestamp: a report is the same at every run. */
#define GOLDEN_WHEN	   1796003359
#define GOLDEN_COMPETITORS 8
#define GOLDEN_WORDS	   8 /* after a setting's key, at most */

struct scenario {
	const char *path;
	unsigned line;
	char topology[128];
	struct place_topology topo;
	struct saturate_machine machine;
	struct saturate_input in;
	hwloc_bitmap_t offline, parked;
	unsigned busy[GOLDEN_CPUS], steal[GOLDEN_CPUS];
	unsigned group_bits;
	char work[32];
	struct saturate_competitor competitors[GOLDEN_COMPETITORS];
	bool text, json, metrics;
	struct saturate_result r;
};

static void golden_fail(const struct scenario *s, const char *fmt, ...)
	__attribute__((format(OS_PRINTF, 2, 3)));

/* A .in that says something wrong: where, and what. */
static void golden_fail(const struct scenario *s, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fail_msg("%s:%u: %s", s->path, s->line, why);
}

static double golden_number(const struct scenario *s, const char *word)
{
	char *end;
	double v = strtod(word, &end);

	if (end == word || *end)
		golden_fail(s, "'%s' is no number", word);
	return v;
}

static unsigned golden_whole(const struct scenario *s, const char *word)
{
	double v = golden_number(s, word);

	if (v < 0 || v != (unsigned)v)
		golden_fail(s, "'%s' is no whole number", word);
	return (unsigned)v;
}

/* One item of a list: A, A-B or A-B/S. */
static void golden_range(const struct scenario *s, const char *item,
			 hwloc_bitmap_t set)
{
	unsigned first, last, stride = 1;
	int used = 0;

	if (sscanf(item, "%u-%u/%u%n", &first, &last, &stride, &used) == 3 &&
	    !item[used])
		;
	else if (sscanf(item, "%u-%u%n", &first, &last, &used) == 2 &&
		 !item[used])
		stride = 1;
	else if (sscanf(item, "%u%n", &first, &used) == 1 && !item[used])
		last = first;
	else
		golden_fail(s, "'%s' is no CPU range", item);
	if (last < first || last >= GOLDEN_CPUS || !stride)
		golden_fail(s, "'%s' is out of range", item);
	for (unsigned cpu = first; cpu <= last; cpu += stride)
		hwloc_bitmap_set(set, cpu);
}

static hwloc_bitmap_t golden_list(const struct scenario *s, const char *text)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char *copy = xstrdup(text), *item = copy, *comma;

	do {
		comma = strchr(item, ',');
		if (comma)
			*comma = '\0';
		golden_range(s, item, set);
		item = comma + 1;
	} while (comma);
	free(copy);
	return set;
}

/* A setting's words after its key; rest: all of them as written. */
struct golden_args {
	char *w[GOLDEN_WORDS];
	size_t n;
	const char *rest;
};

static struct saturate_step golden_step(const struct scenario *s,
					const struct golden_args *a)
{
	return (struct saturate_step){
		.threads = golden_whole(s, a->w[0]),
		.units = golden_number(s, a->w[1]),
		.wall_s = golden_number(s, a->w[2]),
		.cpu_s = golden_number(s, a->w[3]),
		.rel_se = a->n > 4 ? golden_number(s, a->w[4]) : 0,
	};
}

static void golden_ticks(struct scenario *s, const struct golden_args *a,
			 unsigned *ticks)
{
	unsigned n = golden_whole(s, a->w[0]), cpu;
	hwloc_bitmap_t set = golden_list(s, a->w[1]);

	if (n > GOLDEN_TICKS)
		golden_fail(s, "%u ticks of %u", n, GOLDEN_TICKS);
	hwloc_bitmap_foreach_begin(cpu, set)
	{
		ticks[cpu] = n;
	}
	hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(set);
}

static void key_cpus(struct scenario *s, const struct golden_args *a)
{
	unsigned n = golden_whole(s, a->w[0]);

	if (!n || n > GOLDEN_CPUS)
		golden_fail(s, "%u CPUs", n);
	hwloc_bitmap_free(s->in.present);
	s->in.present = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(s->in.present, 0, (int)n - 1);
}

static void key_busy(struct scenario *s, const struct golden_args *a)
{
	golden_ticks(s, a, s->busy);
}

static void key_steal(struct scenario *s, const struct golden_args *a)
{
	golden_ticks(s, a, s->steal);
}

static void key_system(struct scenario *s, const struct golden_args *a)
{
	if (strcmp(a->w[0], "windows") == 0)
		s->in.system = SATURATE_SYSTEM_WINDOWS;
	else if (strcmp(a->w[0], "linux") == 0)
		s->in.system = SATURATE_SYSTEM_LINUX;
	else
		golden_fail(s, "system '%s': linux or windows", a->w[0]);
}

static void key_smt(struct scenario *s, const struct golden_args *a)
{
	struct saturate_smt *smt = &s->in.smt;

	if (strcmp(a->w[0], "measured") == 0) {
		smt->source = SATURATE_YIELD_MEASURED;
		snprintf(smt->core_cpus, sizeof(smt->core_cpus), "%s", a->w[1]);
		return;
	}
	if (strcmp(a->w[0], "given") == 0)
		smt->source = SATURATE_YIELD_GIVEN;
	else if (strcmp(a->w[0], "assumed") == 0)
		smt->source = SATURATE_YIELD_ASSUMED;
	else
		golden_fail(s, "smt: measured CPUS, given Y or assumed Y");
	smt->yield = golden_number(s, a->w[1]);
}

static void key_competitor(struct scenario *s, const struct golden_args *a)
{
	struct saturate_competitor *c;

	if (s->in.competitor_count == GOLDEN_COMPETITORS)
		golden_fail(s, "more than %d competitors", GOLDEN_COMPETITORS);
	c = &s->competitors[s->in.competitor_count++];
	c->pid = (pid_t)golden_whole(s, a->w[0]);
	snprintf(c->name, sizeof(c->name), "%s", a->w[1]);
	c->cpus = golden_number(s, a->w[2]);
	c->nice = (int)golden_number(s, a->w[3]);
	s->in.competitors = s->competitors;
}

static void key_min_cores(struct scenario *s, const struct golden_args *a)
{
	s->in.min_cores_known = true;
	s->in.min_cores = (int)golden_whole(s, a->w[0]);
}

static void key_report(struct scenario *s, const struct golden_args *a)
{
	s->text = s->json = s->metrics = false;
	for (size_t i = 0; i < a->n; i++) {
		if (strcmp(a->w[i], "text") == 0)
			s->text = true;
		else if (strcmp(a->w[i], "json") == 0)
			s->json = true;
		else if (strcmp(a->w[i], "metrics") == 0)
			s->metrics = true;
		else
			golden_fail(s, "report '%s': text, json or metrics",
				    a->w[i]);
	}
}

/* Most settings set one field of the scenario, by its type; the others
 * say what they do in a function of their own. */
enum golden_type {
	GOLDEN_TYPE_TEXT,   /* a char array: the first word */
	GOLDEN_TYPE_REST,   /* a char array: every word, as written */
	GOLDEN_TYPE_NUMBER, /* a double */
	GOLDEN_TYPE_WHOLE,  /* an unsigned */
	GOLDEN_TYPE_LIST,   /* an hwloc_bitmap_t */
	GOLDEN_TYPE_FLAG,   /* a bool, set */
	GOLDEN_TYPE_STEP,   /* a struct saturate_step */
	GOLDEN_TYPE_OWN,
};

#define GOLDEN_FIELD(type, member)                                             \
	GOLDEN_TYPE_##type, offsetof(struct scenario, member),                 \
		sizeof(((struct scenario *)NULL)->member), NULL
#define GOLDEN_OWN(fn) GOLDEN_TYPE_OWN, 0, 0, (fn)

static const struct golden_key {
	const char *name;
	size_t min, max; /* words after the key */
	enum golden_type type;
	size_t offset, size;
	void (*set)(struct scenario *s, const struct golden_args *a);
} golden_keys[] = {
	{"topology", 1, 1, GOLDEN_FIELD(TEXT, topology)},
	{"cpus", 1, 1, GOLDEN_OWN(key_cpus)},
	{"present", 1, 1, GOLDEN_FIELD(LIST, in.present)},
	{"offline", 1, 1, GOLDEN_FIELD(LIST, offline)},
	{"busy", 2, 2, GOLDEN_OWN(key_busy)},
	{"steal", 2, 2, GOLDEN_OWN(key_steal)},
	{"groups", 1, 1, GOLDEN_FIELD(WHOLE, group_bits)},
	{"parked", 1, 1, GOLDEN_FIELD(LIST, parked)},
	{"system", 1, 1, GOLDEN_OWN(key_system)},
	{"threads", 1, 1, GOLDEN_FIELD(WHOLE, in.threads)},
	{"seconds", 1, 1, GOLDEN_FIELD(NUMBER, in.seconds)},
	{"work", 1, 1, GOLDEN_FIELD(TEXT, work)},
	{"threshold", 1, 1, GOLDEN_FIELD(NUMBER, in.threshold)},
	{"single", 4, 5, GOLDEN_FIELD(STEP, in.single)},
	{"run", 4, 5, GOLDEN_FIELD(STEP, in.run)},
	{"smt", 2, 2, GOLDEN_OWN(key_smt)},
	{"smt-one", 4, 5, GOLDEN_FIELD(STEP, in.smt.one)},
	{"smt-all", 4, 5, GOLDEN_FIELD(STEP, in.smt.all)},
	{"affinity", 1, 1, GOLDEN_FIELD(LIST, in.affinity)},
	{"cpuset", 1, 1, GOLDEN_FIELD(LIST, in.cpuset)},
	{"cgroup", 1, GOLDEN_WORDS, GOLDEN_FIELD(REST, in.cgroup)},
	{"cpuset-cgroup", 1, GOLDEN_WORDS,
	 GOLDEN_FIELD(REST, in.cpuset_cgroup)},
	{"quota", 1, 1, GOLDEN_FIELD(NUMBER, in.quota_cpus)},
	{"competitor", 4, 4, GOLDEN_OWN(key_competitor)},
	{"governor", 1, 1, GOLDEN_FIELD(TEXT, in.governor)},
	{"epp", 1, 1, GOLDEN_FIELD(TEXT, in.epp)},
	{"driver", 1, 1, GOLDEN_FIELD(TEXT, in.driver)},
	{"max-freq-capped", 0, 0, GOLDEN_FIELD(FLAG, in.max_freq_capped)},
	{"min-cores", 1, 1, GOLDEN_OWN(key_min_cores)},
	{"ecoqos", 0, 0, GOLDEN_FIELD(FLAG, in.ecoqos)},
	{"report", 1, 3, GOLDEN_OWN(key_report)},
};

static void golden_set(struct scenario *s, const struct golden_key *key,
		       const struct golden_args *a)
{
	void *field = (char *)s + key->offset;

	switch (key->type) {
	case GOLDEN_TYPE_TEXT:
		snprintf(field, key->size, "%s", a->w[0]);
		return;
	case GOLDEN_TYPE_REST:
		snprintf(field, key->size, "%s", a->rest);
		return;
	case GOLDEN_TYPE_NUMBER:
		*(double *)field = golden_number(s, a->w[0]);
		return;
	case GOLDEN_TYPE_WHOLE:
		*(unsigned *)field = golden_whole(s, a->w[0]);
		return;
	case GOLDEN_TYPE_LIST:
		hwloc_bitmap_free(*(hwloc_bitmap_t *)field);
		*(hwloc_bitmap_t *)field = golden_list(s, a->w[0]);
		return;
	case GOLDEN_TYPE_FLAG:
		*(bool *)field = true;
		return;
	case GOLDEN_TYPE_STEP:
		*(struct saturate_step *)field = golden_step(s, a);
		return;
	case GOLDEN_TYPE_OWN:
		key->set(s, a);
		return;
	}
}

/* A line's words, split in place on blanks; max + 1: too many. */
static size_t golden_words(char *line, char **words, size_t max)
{
	size_t n = 0;

	for (char *p = strtok(line, " \t"); p; p = strtok(NULL, " \t")) {
		if (n == max)
			return max + 1;
		words[n++] = p;
	}
	return n;
}

static void golden_setting(struct scenario *s, char *line)
{
	char *words[GOLDEN_WORDS + 1];
	char rest[256];
	struct golden_args a = {.rest = rest};
	const char *after = line + strcspn(line, " \t");
	size_t n;

	snprintf(rest, sizeof(rest), "%s", after + strspn(after, " \t"));
	n = golden_words(line, words, ARRAY_SIZE(words));
	for (size_t k = 0; k < ARRAY_SIZE(golden_keys); k++) {
		const struct golden_key *key = &golden_keys[k];

		if (strcmp(words[0], key->name) != 0)
			continue;
		if (n - 1 < key->min || n - 1 > key->max)
			golden_fail(s, "%s takes %zu to %zu words", key->name,
				    key->min, key->max);
		memcpy(a.w, words + 1, (n - 1) * sizeof(*words));
		a.n = n - 1;
		golden_set(s, key, &a);
		return;
	}
	golden_fail(s, "'%s' is no setting", words[0]);
}

static void golden_parse(struct scenario *s, char *text)
{
	char *line = text, *end;

	for (s->line = 1; line && *line; s->line++, line = end) {
		end = strchr(line, '\n');
		if (end)
			*end++ = '\0';
		line += strspn(line, " \t");
		if (*line && *line != '#')
			golden_setting(s, line);
	}
}

/* /proc/stat before the run (every present CPU at 0) and after it (the
 * online ones with their ticks), and their difference, as the check
 * takes it. */
static void golden_cpu_times(struct scenario *s, hwloc_const_bitmap_t online)
{
	int n = hwloc_bitmap_weight(s->in.present), cpu;
	struct procstat before = {.cpus = xcalloc((size_t)n,
						  sizeof(*before.cpus))},
			after = {.cpus = xcalloc((size_t)n,
						 sizeof(*after.cpus))};

	hwloc_bitmap_foreach_begin(cpu, s->in.present)
	{
		unsigned busy = s->busy[cpu], steal = s->steal[cpu];

		if (busy + steal > GOLDEN_TICKS)
			fail_msg("%s: cpu%d: %u busy and %u stolen of %u",
				 s->path, cpu, busy, steal, GOLDEN_TICKS);
		before.cpus[before.count++] = (struct procstat_cpu){.cpu = cpu};
		if (!hwloc_bitmap_isset(online, (unsigned)cpu))
			continue;
		after.cpus[after.count++] = (struct procstat_cpu){
			.cpu = cpu,
			.busy = busy,
			.idle = GOLDEN_TICKS - busy - steal,
			.steal = steal,
		};
	}
	hwloc_bitmap_foreach_end();
	s->in.cpus = xcalloc((size_t)n, sizeof(*s->in.cpus));
	s->in.cpu_count = procstat_diff(&before, &after, s->in.cpus, (size_t)n);
	procstat_free(&before);
	procstat_free(&after);
}

static void golden_machine(struct scenario *s)
{
	char *xml = xasprintf("%s/%s", TOPO_DIR, s->topology);

	if (s->topology[0] && place_topology_load(&s->topo, xml, NULL) != 0)
		fail_msg("%s: %s cannot be loaded", s->path, xml);
	free(xml);
	assert_int_equal(saturate_machine_load(&s->machine,
					       s->topology[0] ? &s->topo : NULL,
					       s->in.present),
			 0);
	if (s->group_bits)
		saturate_machine_groups(&s->machine, s->group_bits);
	if (s->parked)
		saturate_machine_park(&s->machine, s->parked);
	s->in.machine = &s->machine;
}

/* A step of `threads` threads doing `rate` units a second for `wall`
 * seconds, each on a CPU `share` of the time. */
static struct saturate_step step(unsigned threads, double rate, double wall,
				 double share)
{
	return (struct saturate_step){
		.threads = threads,
		.units = rate * wall,
		.wall_s = wall,
		.cpu_s = share * threads * wall,
	};
}

/* What the .in leaves out, then the machine and its CPU times. */
static void golden_build(struct scenario *s)
{
	unsigned n;

	if (!s->in.present)
		fail_msg("%s: no CPUs: cpus N or present LIST", s->path);
	n = (unsigned)hwloc_bitmap_weight(s->in.present);
	s->in.online = hwloc_bitmap_dup(s->in.present);
	if (s->offline)
		hwloc_bitmap_andnot(s->in.online, s->in.online, s->offline);
	golden_cpu_times(s, s->in.online);
	golden_machine(s);
	if (!s->in.threads)
		s->in.threads = n;
	if (!s->in.single.threads)
		s->in.single = step(1, 1e6, 1, 1);
	if (!s->in.run.threads)
		s->in.run = step(n, 1e6 * n * 0.5, 5, 1);
	s->in.work = s->work;
}

static void golden_load(struct scenario *s, const char *path)
{
	char *text;
	size_t len;

	*s = (struct scenario){
		.path = path,
		.in = {.seconds = 5, .threshold = 0.9, .quota_cpus = -1},
		.work = "tan",
		.text = true,
	};
	if (files_read(path, 1 << 16, &text, &len) != OS_OK)
		fail_msg("%s: cannot be read", path);
	golden_parse(s, text);
	free(text);
	golden_build(s);
}

static char *golden_render(struct scenario *s, size_t *len)
{
	struct memstream ms;
	FILE *out = memstream_open(&ms);

	assert_non_null(out);
	saturate_judge(&s->in, &s->r);
	if (s->text)
		saturate_report_text(&s->in, &s->r, out);
	if (s->json)
		saturate_report_json(&s->in, &s->r, out);
	if (s->metrics)
		saturate_report_metrics(&s->in, &s->r, GOLDEN_WHEN, out);
	return memstream_close(&ms, len);
}

static void golden_free(struct scenario *s)
{
	saturate_result_free(&s->r);
	free(s->in.cpus);
	hwloc_bitmap_free(s->in.present);
	hwloc_bitmap_free(s->in.online);
	hwloc_bitmap_free(s->in.affinity);
	hwloc_bitmap_free(s->in.cpuset);
	hwloc_bitmap_free(s->offline);
	hwloc_bitmap_free(s->parked);
	saturate_machine_free(&s->machine);
	if (s->topology[0])
		place_topology_free(&s->topo);
}

static void golden_write(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		fail_msg("%s: cannot be written", path);
	fwrite(text, 1, len, f);
	if (fclose(f) != 0)
		fail_msg("%s: cannot be written", path);
}

/* The first line where the report and the stored one part, both said
 * from a little before the first character that differs (a JSON report
 * is one long line). */
static void golden_differs(const char *path, const char *want, const char *got)
{
	unsigned line = 1;
	size_t w, g, column = 0, from;

	for (;;) {
		w = strcspn(want, "\n");
		g = strcspn(got, "\n");
		if (w != g || memcmp(want, got, w) != 0 || !want[w] || !got[g])
			break;
		want += w + 1;
		got += g + 1;
		line++;
	}
	while (column < w && column < g && want[column] == got[column])
		column++;
	from = column > 40 ? column - 40 : 0;
	fail_msg("%s:%u:%zu: the report differs (UPDATE_GOLDEN=1 rewrites "
		 "it)\n  stored: %.*s\n  now:    %.*s",
		 path, line, column + 1, (int)(w - from < 120 ? w - from : 120),
		 want + from, (int)(g - from < 120 ? g - from : 120),
		 got + from);
}

static void golden_compare(const char *path, const char *got, size_t len)
{
	char *want;
	size_t want_len;

	if (getenv("UPDATE_GOLDEN")) {
		golden_write(path, got, len);
		return;
	}
	if (files_read(path, 1 << 22, &want, &want_len) != OS_OK)
		fail_msg("%s: cannot be read (UPDATE_GOLDEN=1 writes it)",
			 path);
	if (want_len != len || memcmp(want, got, len) != 0)
		golden_differs(path, want, got);
	free(want);
}

struct golden_case {
	const char *name;
	char stem[64];
	char title[80];
};

static void test_golden_case(void **state)
{
	const struct golden_case *c = *state;
	char *in = xasprintf("%s/%s.in", GOLDEN_DIR, c->stem);
	char *ok = xasprintf("%s/%s.ok", GOLDEN_DIR, c->stem);
	struct scenario *s = xcalloc(1, sizeof(*s));
	char *got;
	size_t len;

	golden_load(s, in);
	got = golden_render(s, &len);
	golden_compare(ok, got, len);
	free(got);
	golden_free(s);
	free(s);
	free(in);
	free(ok);
}

static int golden_case_order(const void *a, const void *b)
{
	const struct golden_case *x = a, *y = b;

	return strcmp(x->stem, y->stem);
}

/* Every NAME.in of the directory, by name. */
static size_t golden_cases(struct golden_case **out)
{
	DIR *dir = opendir(GOLDEN_DIR);
	struct dirent *d;
	size_t n = 0;

	*out = NULL;
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		size_t len = strlen(d->d_name);
		struct golden_case *c;

		if (len < 4 || len - 3 >= sizeof(c->stem) ||
		    strcmp(d->d_name + len - 3, ".in") != 0)
			continue;
		*out = xreallocarray(*out, n + 1, sizeof(**out));
		c = &(*out)[n++];
		snprintf(c->stem, sizeof(c->stem), "%.*s", (int)(len - 3),
			 d->d_name);
	}
	closedir(dir);
	if (n)
		qsort(*out, n, sizeof(**out), golden_case_order);
	for (size_t i = 0; i < n; i++) {
		snprintf((*out)[i].title, sizeof((*out)[i].title), "golden: %s",
			 (*out)[i].stem);
		(*out)[i].name = (*out)[i].title;
	}
	return n;
}

/* The machine of `xml` (NULL: n CPUs, each a core), all n CPUs present. */
static void machine_of(const char *xml, unsigned n, struct place_topology *topo,
		       struct saturate_machine *m)
{
	hwloc_bitmap_t present = hwloc_bitmap_alloc();

	hwloc_bitmap_set_range(present, 0, (int)n - 1);
	if (xml)
		assert_int_equal(place_topology_load(topo, xml, NULL), 0);
	assert_int_equal(saturate_machine_load(m, xml ? topo : NULL, present),
			 0);
	hwloc_bitmap_free(present);
}

static void machine_free(const char *xml, struct place_topology *topo,
			 struct saturate_machine *m)
{
	saturate_machine_free(m);
	if (xml)
		place_topology_free(topo);
}

static void expect_near(double got, double want, double tolerance)
{
	if (!(fabs(got - want) <= tolerance))
		fail_msg("%.6f, not %.6f (+- %g)", got, want, tolerance);
}

/* The default number of threads: the machine's CPUs, parked or not. */
struct threads_case {
	const char *name;
	unsigned present, online, max, want;
};

static const struct threads_case threads_cases[] = {
	{"threads: cpu1 of 2 parked: still 2", 2, 1, 1024, 2},
	{"threads: all online", 2, 2, 1024, 2},
	{"threads: present unknown: the online ones", 0, 4, 1024, 4},
	{"threads: 2048 CPUs: at most the workers' limit", 2048, 2048, 1024,
	 1024},
	{"threads: nothing known: one", 0, 0, 1024, 1},
};

static void test_threads_case(void **state)
{
	const struct threads_case *c = *state;

	assert_int_equal(
		saturate_default_threads(c->present, c->online, c->max),
		c->want);
}

/* What n threads can get from the cores, in one thread's rates. */
struct capacity_case {
	const char *name;
	const char *xml; /* NULL: cpus CPUs, each a core */
	unsigned cpus, threads;
	double yield, want;
};

static const struct capacity_case capacity_cases[] = {
	{"capacity: 2 cores, 2 threads", NULL, 2, 2, 0, 2},
	{"capacity: 2 cores, 1 thread", NULL, 2, 1, 0, 1},
	{"capacity: 2 cores, 3 threads: still 2", NULL, 2, 3, 0, 2},
	{"capacity: 40 cores x 2, 40 threads: one a core", CASCADE, 80, 40,
	 0.25, 40},
	{"capacity: 40 cores x 2, 60 threads", CASCADE, 80, 60, 0.25, 45},
	{"capacity: 40 cores x 2, 80 threads", CASCADE, 80, 80, 0.25, 50},
	{"capacity: 40 cores x 2, 100 threads", CASCADE, 80, 100, 0.25, 50},
	{"capacity: a negative yield counts as none", CASCADE, 80, 80, -0.1,
	 40},
	/* 6 P-cores with two threads, 8 E-cores with one. */
	{"capacity: hybrid 6x2 + 8, 20 threads",
	 TOPO("Intel-RaptorLake-Corei7-1370P.xml"), 20, 20, 0.3, 15.8},
	{"capacity: hybrid, 14 threads: one a core",
	 TOPO("Intel-RaptorLake-Corei7-1370P.xml"), 20, 14, 0.3, 14},
};

static void test_capacity_case(void **state)
{
	const struct capacity_case *c = *state;
	struct place_topology topo;
	struct saturate_machine m;

	machine_of(c->xml, c->cpus, &topo, &m);
	expect_near(saturate_capacity(&m, c->threads, c->yield), c->want, 1e-9);
	machine_free(c->xml, &topo, &m);
}

/* The rates of 100 ms intervals: their standard error, relative. */
static void test_rel_se(void **state)
{
	const double flat[] = {5, 5, 5, 5};
	const double wobbly[] = {0.9, 1.1, 0.9, 1.1};

	(void)state;
	expect_near(saturate_rel_se(flat, 4), 0, 1e-15);
	/* sd = sqrt(4 * 0.01 / 3) = 0.115470, over mean 1 and sqrt(4). */
	expect_near(saturate_rel_se(wobbly, 4), 0.0577350, 1e-7);
	expect_near(saturate_rel_se(wobbly, 1), 0, 0);
}

/* A step's rates and share: per second of wall-clock time, per second of
 * CPU time, and the CPU its threads had. */
static void test_step_rates(void **state)
{
	struct saturate_step s = step(1, 0.8e6, 1, 0.8);

	(void)state;
	expect_near(saturate_step_rate(&s), 0.8e6, 1e-6);
	expect_near(saturate_step_rate_cpu(&s), 1e6, 1e-6);
	expect_near(saturate_step_share(&s), 0.8, 1e-12);
}

/* The machine from hwloc: present CPUs, their cores and nodes. */
static void test_machine(void **state)
{
	struct place_topology topo;
	struct saturate_machine m;

	(void)state;
	machine_of(CASCADE, 80, &topo, &m);
	assert_int_equal(m.cpu_count, 80);
	assert_int_equal(m.core_count, 40);
	assert_int_equal(m.cpus[0].core, m.cpus[40].core);
	assert_int_not_equal(m.cpus[0].core, m.cpus[1].core);
	assert_true(saturate_machine_smt(&m));
	machine_free(CASCADE, &topo, &m);
	machine_of(MANY, 384, &topo, &m);
	assert_int_equal(m.core_count, 192);
	assert_int_equal(m.numa_count, 24);
	assert_int_equal(m.cpus[0].core, m.cpus[192].core);
	assert_int_equal(m.cpus[199].numa, 0);
	assert_int_equal(m.cpus[8].numa, 1);
	machine_free(MANY, &topo, &m);
	machine_of(NULL, 2, &topo, &m);
	assert_int_equal(m.core_count, 2);
	assert_false(saturate_machine_smt(&m));
	machine_free(NULL, &topo, &m);
}

/* Where the SMT step measures: a core with all its threads usable. */
static void test_smt_core(void **state)
{
	hwloc_bitmap_t usable = hwloc_bitmap_alloc();
	struct place_topology topo;
	struct saturate_machine m;
	int cpus[8];
	unsigned n;

	(void)state;
	machine_of(CASCADE, 80, &topo, &m);
	hwloc_bitmap_set_range(usable, 0, 79);
	assert_true(saturate_machine_smt_core(&m, usable, cpus, &n, 8));
	assert_int_equal(n, 2);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 40);
	/* cpu40 parked: the next core whose two threads both run. */
	hwloc_bitmap_clr(usable, 40);
	assert_true(saturate_machine_smt_core(&m, usable, cpus, &n, 8));
	assert_int_not_equal(cpus[0], 0);
	/* One thread a core usable: nowhere to measure. */
	hwloc_bitmap_clr_range(usable, 40, 79);
	assert_false(saturate_machine_smt_core(&m, usable, cpus, &n, 8));
	hwloc_bitmap_free(usable);
	machine_free(CASCADE, &topo, &m);
}

/* Counters that go backwards (a CPU offlined and back) count nothing. */
static void test_procstat_diff(void **state)
{
	struct procstat_cpu before[] = {{0, 10, 90, 0}, {1, 50, 50, 0}};
	struct procstat_cpu after[] = {
		{0, 60, 90, 0}, {1, 10, 20, 0}, {2, 5, 2, 1}};
	struct procstat a = {before, 2}, b = {after, 3};
	struct procstat_share s[4];

	(void)state;
	assert_int_equal(procstat_diff(&a, &b, s, 4), 2);
	assert_true(s[0].busy > 0.99);
	assert_int_equal(s[1].cpu, 1);
	assert_true(s[1].busy == 0 && s[1].idle == 1);
	/* --if-idle: (1 + 0) / 2 */
	expect_near(procstat_mean_busy(s, 2), 0.5, 1e-12);
}

/* A job object's CPU rate: what limits, in CPUs. */
static void test_job_quota(void **state)
{
	const unsigned on = SATURATE_JOB_RATE_ENABLE;

	(void)state;
	assert_true(saturate_job_quota(0, 2500, 0, 8) < 0);
	assert_true(saturate_job_quota(on, 2500, 0, 8) < 0); /* soft */
	assert_true(saturate_job_quota(on | SATURATE_JOB_RATE_WEIGHT, 5, 0, 8) <
		    0);
	assert_float_equal(
		saturate_job_quota(on | SATURATE_JOB_RATE_HARD_CAP, 2500, 0, 8),
		2.0, 1e-9);
	assert_float_equal(saturate_job_quota(on | SATURATE_JOB_RATE_MIN_MAX,
					      100, 5000, 8),
			   4.0, 1e-9);
	assert_true(saturate_job_quota(on | SATURATE_JOB_RATE_HARD_CAP, 10000,
				       0, 8) < 0);
}

/* A scheduled check that skipped a busy machine, as series. */
static void test_attempt(void **state)
{
	struct memstream ms;
	FILE *out = memstream_open(&ms);
	char *text;

	(void)state;
	saturate_report_attempt(true, 0.374, 0.1, 1796003360, out);
	text = memstream_close(&ms, NULL);
	if (!strstr(text, "\ncpupolicy_saturate_skipped 1\n") ||
	    !strstr(text, "\ncpupolicy_saturate_attempt_busy 0.3740\n"))
		fail_msg("%s", text);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rel_se),
		cmocka_unit_test(test_step_rates),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_smt_core),
		cmocka_unit_test(test_procstat_diff),
		cmocka_unit_test(test_job_quota),
		cmocka_unit_test(test_attempt),
	};
	struct golden_case *golden;
	size_t golden_count = golden_cases(&golden);
	int failed;

	failed = unit_run("saturate",
			  UNIT_TABLE(threads_cases, test_threads_case),
			  UNIT_TESTS(tests), NULL, NULL);
	failed |= unit_run("saturate: capacity",
			   UNIT_TABLE(capacity_cases, test_capacity_case), NULL,
			   0, NULL, NULL);
	if (!golden_count) {
		fprintf(stderr, "saturate: no golden cases in %s\n",
			GOLDEN_DIR);
		return 1;
	}
	failed |=
		unit_run("saturate: golden",
			 (struct unit_table){golden, golden_count,
					     sizeof(*golden), test_golden_case},
			 NULL, 0, NULL, NULL);
	free(golden);
	return failed;
}
