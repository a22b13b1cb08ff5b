/* Who else could have written a file the daemon obeys (trust.c), on a
 * real tree under /tmp: owners, modes, sticky parents, links, ACLs; and
 * what the config and rule loaders make of a refusal (conf.c, rules.c).
 * Needs root: the cases give files to nobody. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"

#include "conf.h"
#include "os.h"
#include "rules.h"
#include "util.h"

static char root[256];

static void run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* text with every "@" replaced by the case's root */
static char *rooted(const char *text)
{
	size_t len = 0;
	char *out;

	for (const char *p = text; *p; p++)
		len += *p == '@' ? strlen(root) : 1;
	out = xmalloc(len + 1);
	len = 0;
	for (const char *p = text; *p; p++) {
		if (*p == '@') {
			memcpy(out + len, root, strlen(root));
			len += strlen(root);
		} else {
			out[len++] = *p;
		}
	}
	out[len] = '\0';
	return out;
}

static int fresh_root(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_trust.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	return 0;
}

static int remove_root(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "chmod -R u+w %s; rm -rf %s", root, root);
	return system(cmd) == 0 ? 0 : -1;
}

struct trust_case {
	const char *name;
	const char *setup; /* run in the root; "@" is the root */
	const char *path;  /* "@" is the root */
	enum os_status status;
	const char *why; /* the whole message, "@" the root; NULL: none */
};

static const struct trust_case trust_cases[] = {
	{"root's file in root's folder", "echo x >f", "@/f", OS_OK, NULL},
	{"a file others may write", "echo x >f && chmod 0646 f", "@/f",
	 OS_DENIED, "writable by others (fix: chmod go-w @/f)"},
	{"a file its group may write", "echo x >f && chmod 0664 f", "@/f",
	 OS_DENIED, "writable by group root (fix: chmod go-w @/f)"},
	{"a file of mode 0666", "echo x >f && chmod 0666 f", "@/f", OS_DENIED,
	 "writable by group root and others (fix: chmod go-w @/f)"},
	{"a file of another user", "echo x >f && chown nobody f", "@/f",
	 OS_DENIED, "owned by nobody, not root (fix: chown root @/f)"},
	{"a file of another user that others may write",
	 "echo x >f && chown nobody f && chmod 0666 f", "@/f", OS_DENIED,
	 "owned by nobody, not root (fix: chown root @/f && chmod go-w @/f)"},
	{"a folder above others may write",
	 "mkdir d && chmod 0777 d && echo x >d/f", "@/d/f", OS_DENIED,
	 "@/d is writable by group root and others (fix: chmod go-w @/d)"},
	{"a folder above of another user",
	 "mkdir d && echo x >d/f && chown nobody d", "@/d/f", OS_DENIED,
	 "@/d is owned by nobody, not root (fix: chown root @/d)"},
	{"a sticky folder above, root's (as /tmp)",
	 "mkdir d && chmod 1777 d && echo x >d/f", "@/d/f", OS_OK, NULL},
	{"a sticky folder above, another user's",
	 "mkdir d && chmod 1777 d && chown nobody d && echo x >d/f", "@/d/f",
	 OS_DENIED, "@/d is owned by nobody, not root (fix: chown root @/d)"},
	{"a sticky folder as the path itself", "mkdir d && chmod 1777 d", "@/d",
	 OS_DENIED, "writable by group root and others (fix: chmod go-w @/d)"},
	{"a folder of root's as the path", "mkdir d", "@/d", OS_OK, NULL},
	{"a link to /dev/null (a vendor file masked)", "ln -s /dev/null f",
	 "@/f", OS_OK, NULL},
	{"a link to a file in another user's folder",
	 "mkdir u && echo x >u/f && chown nobody u && ln -s u/f f", "@/f",
	 OS_DENIED, "@/u is owned by nobody, not root (fix: chown root @/u)"},
	{"a link to a file others may write",
	 "mkdir d && echo x >d/f && chmod 0666 d/f && ln -s d/f f", "@/f",
	 OS_DENIED,
	 "@/d/f is writable by group root and others (fix: chmod go-w @/d/f)"},
	{"a link in a folder others may write",
	 "mkdir d && chmod 0777 d && echo x >f && ln -s ../f d/l", "@/d/l",
	 OS_DENIED,
	 "@/d is writable by group root and others (fix: chmod go-w @/d)"},
	{"a linked folder on the way",
	 "mkdir d && chmod 0777 d && echo x >d/f && ln -s d l", "@/l/f",
	 OS_DENIED,
	 "@/d is writable by group root and others (fix: chmod go-w @/d)"},
	{"nothing there", NULL, "@/none", OS_GONE, NULL},
};

static void test_trust_case(void **state)
{
	const struct trust_case *c = *state;
	char *path = rooted(c->path), why[4096] = "";
	enum os_status status;

	if (geteuid() != 0)
		skip();
	assert_int_equal(fresh_root(NULL), 0);
	free(path);
	path = rooted(c->path);
	if (c->setup)
		run("cd %s && %s", root, c->setup);
	status = trust_path(path, why, sizeof(why));
	if (status != c->status)
		fail_msg("%s: status %d, expected %d: %s", path, status,
			 c->status, why);
	if (c->why) {
		char *want = rooted(c->why);

		assert_string_equal(why, want);
		free(want);
	}
	free(path);
	assert_int_equal(remove_root(NULL), 0);
}

/* The kernel's ACL xattr (posix_acl_xattr.h): the owner rw, user nobody
 * rw, the group r, a mask rw, others r. The mode's group bits are the
 * mask: "writable by group" would be wrong, the ACL says who. */
static void test_trust_acl(void **state)
{
	struct {
		uint32_t version;
		struct {
			uint16_t tag, perm;
			uint32_t id;
		} e[5];
	} acl = {2,
		 {{0x01, 6, UINT32_MAX},
		  {0x02, 6, 65534},
		  {0x04, 4, UINT32_MAX},
		  {0x10, 6, UINT32_MAX},
		  {0x20, 4, UINT32_MAX}}};
	char *path = rooted("@/f"), why[4096] = "", *want;

	(void)state;
	if (geteuid() != 0)
		skip();
	run("cd %s && echo x >f", root);
	if (setxattr(path, "system.posix_acl_access", &acl, sizeof(acl), 0) < 0)
		skip(); /* no ACLs on /tmp here */
	assert_int_equal(trust_path(path, why, sizeof(why)), OS_DENIED);
	want = rooted("writable by user nobody (fix: chmod go-w @/f)");
	assert_string_equal(why, want);
	free(want);
	free(path);
}

static const char good_rules[] =
	"version = 1;\n"
	"rules = ( { name = \"a\"; match = { exe = \"/usr/bin/a\"; };\n"
	"  priority = { nice = 5; }; } );\n";

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* A rule file others may write fails the load as a syntax error would
 * (an error, not an I/O failure); the rest of its directory is read,
 * and a directory of the set others may write loads nothing of it. */
static void test_trust_rules(void **state)
{
	char *dir = rooted("@/rules.d"), *good = rooted("@/rules.d/10-a.rules");
	char *open = rooted("@/rules.d/20-open.rules"), *want;
	struct rules rules;
	struct diag diag;
	char line[8192];

	(void)state;
	if (geteuid() != 0)
		skip();
	run("mkdir %s", dir);
	write_file(good, good_rules, 0644);
	write_file(open, "version = 1;\nrules = ();\n", 0666);

	rules_init(&rules);
	rules.trust_all = true;
	diag_init(&diag);
	assert_int_equal(rules_load_paths(&rules, &dir, 1, true, &diag), 0);
	assert_int_equal(diag.errors, 1);
	diag_format(&diag.entries[0], line, sizeof(line));
	want = rooted("@/rules.d/20-open.rules: error: writable by group root "
		      "and others (fix: chmod go-w @/rules.d/20-open.rules)");
	assert_string_equal(line, want);
	free(want);
	assert_int_equal(rules.files_read, 1);
	diag_free(&diag);
	rules_free(&rules);

	/* Not judged: an import's read-back, a draft checked by name. */
	rules_init(&rules);
	diag_init(&diag);
	assert_int_equal(rules_load_paths(&rules, &dir, 1, true, &diag), 0);
	assert_int_equal(diag.errors, 0);
	assert_int_equal(rules.files_read, 2);
	diag_free(&diag);
	rules_free(&rules);

	/* check's PATHs: judged where they are the configured directories
	 * (as the config names them, a trailing slash aside), or files
	 * directly in one. */
	for (int named = 0; named < 3; named++) {
		char *path = named == 0	  ? rooted("@/rules.d/")
			     : named == 1 ? xstrdup(open)
					  : rooted("@/rules.d/../rules.d");

		rules_init(&rules);
		rules.trust_dirs = &dir;
		rules.trust_dir_count = 1;
		diag_init(&diag);
		assert_int_equal(
			rules_load_paths(&rules, &path, 1, true, &diag), 0);
		assert_int_equal(diag.errors, named == 2 ? 0 : 1);
		diag_free(&diag);
		rules_free(&rules);
		free(path);
	}

	/* The directory itself: nothing of it is read. */
	assert_int_equal(chmod(open, 0644), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	rules_init(&rules);
	rules.trust_all = true;
	diag_init(&diag);
	assert_int_equal(rules_load_paths(&rules, &dir, 1, true, &diag), 0);
	assert_int_equal(diag.errors, 1);
	diag_format(&diag.entries[0], line, sizeof(line));
	want = rooted("@/rules.d: error: writable by group root and others "
		      "(fix: chmod go-w @/rules.d)");
	assert_string_equal(line, want);
	free(want);
	assert_int_equal(rules.files_read, 0);
	diag_free(&diag);
	rules_free(&rules);
	free(dir);
	free(good);
	free(open);
}

/* A config others may write is refused whole (its settings unread); a
 * missing one is the defaults, as before. */
static void test_trust_conf(void **state)
{
	char *path = rooted("@/c.conf"), line[8192], *want;
	struct conf conf;
	struct diag diag;

	(void)state;
	if (geteuid() != 0)
		skip();
	write_file(path, "[daemon]\nsocket_group = users\n", 0644);
	assert_int_equal(chown(path, 65534, 0), 0);
	conf_init(&conf);
	diag_init(&diag);
	assert_int_equal(conf_load_trusted(&conf, path, true, &diag), 0);
	assert_int_equal(diag.errors, 1);
	diag_format(&diag.entries[0], line, sizeof(line));
	want = rooted("@/c.conf: error: owned by nobody, not root (fix: chown "
		      "root @/c.conf)");
	assert_string_equal(line, want);
	free(want);
	assert_true(!conf.socket_group || !conf.socket_group[0]);
	diag_free(&diag);
	conf_free(&conf);

	/* conf_load_file, for those that only read it, still does. */
	conf_init(&conf);
	diag_init(&diag);
	assert_int_equal(conf_load_file(&conf, path, true, &diag), 0);
	assert_int_equal(diag.errors, 0);
	assert_string_equal(conf.socket_group, "users");
	diag_free(&diag);
	conf_free(&conf);

	unlink(path);
	conf_init(&conf);
	diag_init(&diag);
	assert_int_equal(conf_load_trusted(&conf, path, false, &diag), 0);
	assert_int_equal(diag.errors, 0);
	assert_int_equal(conf_load_trusted(&conf, path, true, &diag), -1);
	diag_free(&diag);
	conf_free(&conf);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_trust_acl, fresh_root,
						remove_root),
		cmocka_unit_test_setup_teardown(test_trust_rules, fresh_root,
						remove_root),
		cmocka_unit_test_setup_teardown(test_trust_conf, fresh_root,
						remove_root),
	};

	return unit_run("trust", UNIT_TABLE(trust_cases, test_trust_case),
			UNIT_TESTS(tests), NULL, NULL);
}
