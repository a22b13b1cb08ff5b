/* Benchmark: exec-to-applied latency, misses, daemon CPU per 1,000 execs
 * and RSS, with the real daemon (as root). Each started process (the
 * worker helper with -w) spins reading its own nice value from the first
 * line of main() and reports when it changed, or that it was already set
 * before main() ran.
 *   bench_exec DAEMON WORKER [STARTS]
 * Three runs: a few rules; the same with self_realtime = true; 20,000
 * rules keyed on exact exe paths. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static long long bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void bench_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void bench_copy(const char *from, const char *to)
{
	char *cmd = xasprintf("cp '%s' '%s'", from, to);

	if (system(cmd) != 0)
		exit(1);
	free(cmd);
}

/* CPU time the daemon has used, in ns (schedstat: precise, unlike the
 * clock ticks of /proc/PID/stat). */
static long long bench_cpu_ns(pid_t pid)
{
	char path[64];
	long long ns = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &ns) != 1)
			ns = -1;
		fclose(f);
	}
	return ns;
}

static long bench_status_kb(pid_t pid, const char *key)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, strlen(key)) == 0)
			kb = atol(line + strlen(key));
	}
	if (f)
		fclose(f);
	return kb;
}

static pid_t bench_start_daemon(const char *daemon, const char *dir)
{
	char *conf = xasprintf("%s/bench.conf", dir);
	char *rules = xasprintf("%s/rules", dir);
	char *sock = xasprintf("%s/ctl.sock", dir);
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execl(daemon, daemon, "-c", conf, "-r", rules, (char *)NULL);
		_exit(127);
	}
	/* Ready once the control socket exists. */
	for (int i = 0;; i++) {
		struct stat st;

		if (stat(sock, &st) == 0)
			break;
		if (i == 400 || waitpid(pid, NULL, WNOHANG) == pid) {
			fprintf(stderr, "bench: the daemon did not start\n");
			exit(1);
		}
		usleep(10000);
	}
	usleep(200000);
	free(conf);
	free(rules);
	free(sock);
	return pid;
}

static int bench_compare(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

struct bench_result {
	long long p50, p99, max; /* main() to applied, 0 when before */
	long long to_main_p50;	 /* execve() to main() */
	int before_main, misses, starts;
	double cpu_ms_per_1000_matching, cpu_ms_per_1000_paced;
	long rss_kb, hwm_kb;
};

/* One start: fork, note the time, exec the probe, read its report. */
static int bench_one(const char *probe, long long *to_main, long long *latency,
		     int *before_main)
{
	int fds[2];
	char buf[128] = "";
	ssize_t n;
	int status;
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char when[32];

		dup2(fds[1], 1);
		close(fds[0]);
		snprintf(when, sizeof(when), "%lld", bench_now_ns());
		execl(probe, probe, "-w", "7", "-T", "1000", "-e", when,
		      (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%lld %lld %d", to_main, latency, before_main) == 3
		       ? 0
		       : -1;
}

/* /bin/true (no rule matches it) at 1,000 starts a second. */
static void bench_paced_execs(int count)
{
	long long next = bench_now_ns();

	for (int i = 0; i < count; i++) {
		long long wait;
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
		next += 1000000;
		wait = next - bench_now_ns();
		if (wait > 0)
			nanosleep(&(struct timespec){0, (long)wait}, NULL);
	}
}

static void bench_run(const char *daemon, const char *dir, const char *probe,
		      int starts, struct bench_result *r)
{
	long long *lat = xcalloc((size_t)starts, sizeof(*lat));
	long long *to_main = xcalloc((size_t)starts, sizeof(*to_main));
	pid_t d = bench_start_daemon(daemon, dir);
	long long cpu0, cpu1, cpu2;
	int n = 0;

	*r = (struct bench_result){.starts = starts};
	cpu0 = bench_cpu_ns(d);
	for (int i = 0; i < starts; i++) {
		int before;

		if (bench_one(probe, &to_main[n], &lat[n], &before) < 0) {
			r->misses++;
			continue;
		}
		r->before_main += before;
		n++;
	}
	cpu1 = bench_cpu_ns(d);
	bench_paced_execs(starts);
	cpu2 = bench_cpu_ns(d);
	r->cpu_ms_per_1000_matching =
		(double)(cpu1 - cpu0) / 1e6 * 1000.0 / starts;
	r->cpu_ms_per_1000_paced =
		(double)(cpu2 - cpu1) / 1e6 * 1000.0 / starts;
	r->rss_kb = bench_status_kb(d, "VmRSS:");
	r->hwm_kb = bench_status_kb(d, "VmHWM:");
	kill(d, SIGTERM);
	waitpid(d, NULL, 0);
	qsort(lat, (size_t)n, sizeof(*lat), bench_compare);
	qsort(to_main, (size_t)n, sizeof(*to_main), bench_compare);
	if (n) {
		r->to_main_p50 = to_main[n / 2];
		r->p50 = lat[n / 2];
		r->p99 = lat[(size_t)((double)n * 0.99)];
		r->max = lat[n - 1];
	}
	free(lat);
	free(to_main);
}

static void bench_print(const char *what, const struct bench_result *r)
{
	printf("%-26s %6.0f %6.1f%% %7.0f %7.0f %8.0f %5d %9.2f %9.2f %6.1f "
	       "%6.1f\n",
	       what, (double)r->to_main_p50 / 1e3,
	       100.0 * r->before_main / (r->starts ? r->starts : 1),
	       (double)r->p50 / 1e3, (double)r->p99 / 1e3, (double)r->max / 1e3,
	       r->misses, r->cpu_ms_per_1000_matching, r->cpu_ms_per_1000_paced,
	       (double)r->rss_kb / 1024.0, (double)r->hwm_kb / 1024.0);
}

static void bench_config(const char *dir, bool realtime, int batch_ms)
{
	char *path = xasprintf("%s/bench.conf", dir);
	char *text = xasprintf("[daemon]\nsocket = %s/ctl.sock\nstate_dir = "
			       "%s\nlog_level = warning\nself_realtime = %s\n"
			       "batch_ms = %d\n",
			       dir, dir, realtime ? "true" : "false", batch_ms);

	bench_write(path, text);
	free(text);
	free(path);
}

static void bench_many_rules(const char *dir, int count)
{
	char *path = xasprintf("%s/rules/50-many.rules", dir);
	FILE *f = fopen(path, "w");

	if (!f)
		exit(1);
	fprintf(f, "rules = (\n");
	for (int i = 0; i < count; i++)
		fprintf(f,
			"{ name = \"many-%d\"; match = { exe = \"/opt/bench/"
			"app%d/bin/server\"; }; priority = { nice = %d; }; "
			"}%s\n",
			i, i, i % 20, i + 1 < count ? "," : "");
	fprintf(f, ");\n");
	fclose(f);
	free(path);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/cpupolicy-bench-exec-XXXXXX";
	struct bench_result r;
	char *probe, *rules_dir, *rule, *text;
	int starts = argc > 3 ? atoi(argv[3]) : 2000;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_exec DAEMON WORKER [STARTS]\n");
		return 2;
	}
	if (geteuid() != 0) {
		printf("exec: skipped (needs root to run the daemon)\n");
		return 0;
	}
	if (!mkdtemp(dir))
		return 1;
	probe = xasprintf("%s/probe", dir);
	rules_dir = xasprintf("%s/rules", dir);
	rule = xasprintf("%s/rules/10-probe.rules", dir);
	bench_copy(argv[2], probe);
	mkdir(rules_dir, 0755);
	text = xasprintf("rules = ( { name = \"probe\"; match = { exe = "
			 "\"%s\"; }; priority = { nice = 7; }; } );\n",
			 probe);
	bench_write(rule, text);
	printf("exec: %d sequential starts per run, each spinning on its own "
	       "nice value from the first line of main()\n",
	       starts);
	printf("%-26s %6s %7s %7s %7s %8s %5s %9s %9s %6s %6s\n", "run", "main",
	       "<main", "p50", "p99", "max", "miss", "cpu/1k m", "cpu/1k p",
	       "RSS", "peak");
	bench_config(dir, true, 0);
	bench_run(argv[1], dir, probe, starts, &r);
	bench_print("1 rule (defaults)", &r);
	bench_config(dir, false, 0);
	bench_run(argv[1], dir, probe, starts, &r);
	bench_print("1 rule, self_realtime off", &r);
	bench_config(dir, true, 20);
	bench_run(argv[1], dir, probe, starts, &r);
	bench_print("1 rule, batch_ms = 20", &r);
	bench_config(dir, true, 0);
	bench_many_rules(dir, 20000);
	bench_run(argv[1], dir, probe, starts, &r);
	bench_print("20,001 rules (defaults)", &r);
	printf("(main: us from execve() to main(), p50; <main: starts with "
	       "the policy in place when main() began; p50/p99/max: us from "
	       "main() to the policy, 0 when before; cpu/1k: daemon CPU ms "
	       "per 1,000 execs, m = the matching starts above, p = "
	       "/bin/true paced at 1,000 a second; RSS and peak in MiB)\n");
	free(text);
	free(rule);
	free(rules_dir);
	free(probe);
	text = xasprintf("rm -rf %s", dir);
	if (system(text) != 0)
		return 1;
	free(text);
	return 0;
}
