/* Smoke test of the Windows build's libraries: libconfig, inih and hwloc,
 * linked statically for x86_64-w64-mingw32 and run under Wine. TAP on
 * stdout, without the plan (run-smoke.sh adds its own test, then the plan). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <hwloc/windows.h>
#include <ini.h>
#include <libconfig.h>

static int tests;
static int failed;

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!ok)
		failed++;
	printf("%s %d - ", ok ? "ok" : "not ok", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* A rule file as rules/ has them, with a Windows path and a float: the
 * float is read in the C locale whatever the user's. */
static const char rules_text[] =
	"version = 1;\n"
	"rules = (\n"
	"  { name = \"search-engine\";\n"
	"    match = { exe = \"C:\\\\Search\\\\engine.exe\"; };\n"
	"    priority = { class = \"above-normal\"; };\n"
	"    weight = 1.5; }\n"
	");\n";

static const char rules_broken[] = "version = 1;\n"
				   "rules = (\n"
				   "  { name = ; }\n"
				   ");\n";

static void test_libconfig(void)
{
	config_t cfg;
	config_setting_t *rules, *rule;
	const char *name = NULL, *exe = NULL;
	int version = 0;
	double weight = 0;
	int ok;

	config_init(&cfg);
	ok = config_read_string(&cfg, rules_text) == CONFIG_TRUE;
	if (!ok)
		printf("# line %d: %s\n", config_error_line(&cfg),
		       config_error_text(&cfg));
	rules = config_lookup(&cfg, "rules");
	rule = rules ? config_setting_get_elem(rules, 0) : NULL;
	ok = ok && config_lookup_int(&cfg, "version", &version) && rule &&
	     config_setting_length(rules) == 1 &&
	     config_setting_lookup_string(rule, "name", &name) &&
	     config_lookup_string(&cfg, "rules.[0].match.exe", &exe) &&
	     config_setting_lookup_float(rule, "weight", &weight);
	check(ok && version == 1 && strcmp(name, "search-engine") == 0 &&
		      strcmp(exe, "C:\\Search\\engine.exe") == 0 &&
		      weight == 1.5,
	      "libconfig %d.%d.%d: a rule file read from a string",
	      LIBCONFIG_VER_MAJOR, LIBCONFIG_VER_MINOR, LIBCONFIG_VER_REVISION);
	config_destroy(&cfg);

	config_init(&cfg);
	ok = config_read_string(&cfg, rules_broken) == CONFIG_FALSE &&
	     config_error_line(&cfg) == 3;
	check(ok, "libconfig: a syntax error reported at line %d (%s)",
	      config_error_line(&cfg),
	      config_error_text(&cfg) ? config_error_text(&cfg) : "-");
	config_destroy(&cfg);
}

struct ini_seen {
	int values;
	int rescan;
	char rules_dirs[128];
	char level[16];
};

static int ini_handler_cb(void *user, const char *section, const char *name,
			  const char *value)
{
	struct ini_seen *seen = user;

	seen->values++;
	if (strcmp(section, "daemon") == 0 && strcmp(name, "rules_dirs") == 0)
		snprintf(seen->rules_dirs, sizeof(seen->rules_dirs), "%s",
			 value);
	else if (strcmp(section, "daemon") == 0 &&
		 strcmp(name, "rescan_interval") == 0)
		seen->rescan = (int)strtol(value, NULL, 10);
	else if (strcmp(section, "log") == 0 && strcmp(name, "level") == 0)
		snprintf(seen->level, sizeof(seen->level), "%s", value);
	return 1;
}

/* The daemon feeds inih one line at a time through ini_parse_stream. */
struct ini_lines {
	const char *next;
};

static char *ini_reader_cb(char *buf, int size, void *stream)
{
	struct ini_lines *in = stream;
	int n = 0;

	if (*in->next == '\0')
		return NULL;
	while (n < size - 1 && in->next[n] != '\0' && in->next[n] != '\n')
		n++;
	if (n < size - 1 && in->next[n] == '\n')
		n++;
	memcpy(buf, in->next, n);
	buf[n] = '\0';
	in->next += n;
	return buf;
}

static const char conf_text[] =
	"; cpupolicyd.conf\n"
	"[daemon]\n"
	"rules_dirs = C:\\ProgramData\\cpupolicy\\rules.d\n"
	"rescan_interval = 5 ; seconds\n"
	"\n"
	"[log]\n"
	"level = info\n";

static void test_inih(void)
{
	struct ini_seen seen = {0};
	struct ini_lines in = {"[daemon]\nrescan_interval = 5\nbroken\n"};
	int rc;

	rc = ini_parse_string(conf_text, ini_handler_cb, &seen);
	check(rc == 0 && seen.values == 3 && seen.rescan == 5 &&
		      strcmp(seen.rules_dirs,
			     "C:\\ProgramData\\cpupolicy\\rules.d") == 0 &&
		      strcmp(seen.level, "info") == 0,
	      "inih: an INI string read (%d values, rescan_interval %d)",
	      seen.values, seen.rescan);

	memset(&seen, 0, sizeof(seen));
	rc = ini_parse_stream(ini_reader_cb, &in, ini_handler_cb, &seen);
	check(rc == 3 && seen.values == 1,
	      "inih: ini_parse_stream reports the bad line (%d)", rc);
}

static void test_hwloc(void)
{
	hwloc_topology_t topo;
	hwloc_obj_t root;
	char backends[64] = "";
	const char *os;
	int pus, groups, kinds, windows = 0;
	unsigned i;

	if (hwloc_topology_init(&topo) < 0 || hwloc_topology_load(topo) < 0) {
		check(0, "hwloc: topology loaded");
		return;
	}
	root = hwloc_get_root_obj(topo);
	for (i = 0; i < root->infos_count; i++) {
		if (strcmp(root->infos[i].name, "Backend") != 0)
			continue;
		if (strcmp(root->infos[i].value, "Windows") == 0)
			windows = 1;
		snprintf(backends + strlen(backends),
			 sizeof(backends) - strlen(backends), "%s%s",
			 *backends ? "," : "", root->infos[i].value);
	}
	os = hwloc_obj_get_info_by_name(root, "OSVersion");
	check(windows,
	      "hwloc %s: topology loaded by the Windows backend "
	      "(backends %s, OS version %s)",
	      HWLOC_VERSION, backends, os ? os : "?");

	pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	groups = hwloc_windows_get_nr_processor_groups(topo, 0);
	kinds = hwloc_cpukinds_get_nr(topo, 0);
	check(pus > 0 && groups > 0,
	      "hwloc: %d PUs, %d processor groups, %d CPU kinds, %d NUMA "
	      "nodes, %d cores",
	      pus, groups, kinds,
	      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE),
	      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE));
	for (i = 0; groups > 0 && i < (unsigned)groups; i++) {
		hwloc_bitmap_t set = hwloc_bitmap_alloc();
		char *list = NULL;

		if (set &&
		    hwloc_windows_get_processor_group_cpuset(topo, i, set, 0) ==
			    0 &&
		    hwloc_bitmap_list_asprintf(&list, set) >= 0)
			printf("# processor group %u: PUs %s\n", i, list);
		free(list);
		hwloc_bitmap_free(set);
	}
	hwloc_topology_destroy(topo);
}

int main(void)
{
	test_libconfig();
	test_inih();
	test_hwloc();
	fflush(stdout);
	return failed ? 1 : 0;
}
