/* The Image File Execution Options bookkeeping against a store in
 * memory: written and put back, an administrator's values kept, a crash
 * at each step, a value changed by someone else, a failed write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include "log.h"
#include "perfopts.h"

#define MEM_MAX 8

struct mem_key {
	char name[IFEO_NAME_MAX + 1];
	struct ifeo_values values;
};

struct mem {
	struct mem_key keys[MEM_MAX];
	size_t key_count;
	struct perfopts_record records[MEM_MAX];
	size_t record_count;
	bool fail_writes;
	unsigned writes;
};

static const struct ifeo_values none = {IFEO_CPU_CLASS_UNSET,
					IFEO_IO_PRIORITY_UNSET};

static struct mem_key *mem_key(struct mem *m, const char *name, bool make)
{
	for (size_t i = 0; i < m->key_count; i++) {
		if (ifeo_name_compare(m->keys[i].name, name) == 0)
			return &m->keys[i];
	}
	if (!make || m->key_count == MEM_MAX)
		return NULL;
	snprintf(m->keys[m->key_count].name, sizeof(m->keys[0].name), "%s",
		 name);
	m->keys[m->key_count].values = none;
	return &m->keys[m->key_count++];
}

static int mem_read(void *ctx, const char *name, struct ifeo_values *now)
{
	struct mem_key *k = mem_key(ctx, name, false);

	*now = k ? k->values : none;
	return 0;
}

static int mem_write(void *ctx, const char *name, struct ifeo_values set,
		     struct ifeo_values clear)
{
	struct mem *m = ctx;
	struct mem_key *k;

	if (m->fail_writes)
		return -1;
	m->writes++;
	k = mem_key(m, name, true);
	if (set.cpu_class != IFEO_CPU_CLASS_UNSET)
		k->values.cpu_class = set.cpu_class;
	if (set.io_priority != IFEO_IO_PRIORITY_UNSET)
		k->values.io_priority = set.io_priority;
	if (clear.cpu_class != IFEO_CPU_CLASS_UNSET)
		k->values.cpu_class = IFEO_CPU_CLASS_UNSET;
	if (clear.io_priority != IFEO_IO_PRIORITY_UNSET)
		k->values.io_priority = IFEO_IO_PRIORITY_UNSET;
	return 0;
}

static int mem_records(void *ctx, struct perfopts_record **list, size_t *count)
{
	struct mem *m = ctx;

	*list = calloc(m->record_count + 1, sizeof(**list));
	memcpy(*list, m->records, m->record_count * sizeof(**list));
	*count = m->record_count;
	return 0;
}

static int mem_record_put(void *ctx, const struct perfopts_record *r)
{
	struct mem *m = ctx;

	for (size_t i = 0; i < m->record_count; i++) {
		if (ifeo_name_compare(m->records[i].name, r->name) == 0) {
			m->records[i] = *r;
			return 0;
		}
	}
	m->records[m->record_count++] = *r;
	return 0;
}

static int mem_record_drop(void *ctx, const char *name)
{
	struct mem *m = ctx;

	for (size_t i = 0; i < m->record_count; i++) {
		if (ifeo_name_compare(m->records[i].name, name) == 0) {
			m->records[i] = m->records[--m->record_count];
			return 0;
		}
	}
	return 0;
}

static struct perfopts_store mem_store(struct mem *m)
{
	return (struct perfopts_store){
		.ctx = m,
		.read = mem_read,
		.write = mem_write,
		.records = mem_records,
		.record_put = mem_record_put,
		.record_drop = mem_record_drop,
	};
}

/* A plan of one name (entries hold non-const names). */
static struct ifeo_plan plan_of(struct ifeo_entry *e, char *name,
				struct ifeo_values v)
{
	*e = (struct ifeo_entry){.name = name, .values = v};
	return (struct ifeo_plan){.entries = e, .count = 1};
}

static const struct ifeo_values high = {IFEO_CPU_CLASS_HIGH,
					IFEO_IO_PRIORITY_UNSET};
static const struct ifeo_values below = {IFEO_CPU_CLASS_BELOW_NORMAL,
					 IFEO_IO_PRIORITY_LOW};

static struct ifeo_values mem_values(struct mem *m, const char *name)
{
	struct ifeo_values v;

	mem_read(m, name, &v);
	return v;
}

static void test_written_and_removed(void **state)
{
	struct mem m = {0};
	struct perfopts_store s = mem_store(&m);
	struct perfopts_result r;
	struct ifeo_entry e;
	char name[] = "probe.exe";
	struct ifeo_plan plan = plan_of(&e, name, high);

	(void)state;
	assert_int_equal(perfopts_sync(&s, &plan, &r), 0);
	assert_int_equal(r.written, 1);
	assert_true(ifeo_values_equal(mem_values(&m, "probe.exe"), high));
	assert_int_equal(m.record_count, 1);
	/* Again: in place, nothing written. */
	m.writes = 0;
	assert_int_equal(perfopts_sync(&s, &plan, &r), 0);
	assert_int_equal(m.writes, 0);
	/* The rule goes. */
	assert_int_equal(perfopts_sync(&s, NULL, &r), 0);
	assert_int_equal(r.restored, 1);
	assert_true(ifeo_values_equal(mem_values(&m, "probe.exe"), none));
	assert_int_equal(m.record_count, 0);
}

static void test_original_kept(void **state)
{
	struct mem m = {0};
	struct perfopts_store s = mem_store(&m);
	struct perfopts_result r;
	struct ifeo_entry e;
	char name[] = "Probe.EXE";
	struct ifeo_plan plan = plan_of(&e, name, high);
	struct ifeo_values admin = {IFEO_CPU_CLASS_BELOW_NORMAL,
				    IFEO_IO_PRIORITY_VERY_LOW};

	(void)state;
	mem_write(&m, "probe.exe", admin, none);
	assert_int_equal(perfopts_sync(&s, &plan, &r), 0);
	/* Only the class is the rule's; the I/O priority stays the
	 * administrator's throughout. */
	assert_int_equal(mem_values(&m, "probe.exe").cpu_class,
			 IFEO_CPU_CLASS_HIGH);
	assert_int_equal(mem_values(&m, "probe.exe").io_priority,
			 IFEO_IO_PRIORITY_VERY_LOW);
	assert_int_equal(perfopts_sync(&s, NULL, &r), 0);
	assert_true(ifeo_values_equal(mem_values(&m, "probe.exe"), admin));
}

static void test_changed_by_someone(void **state)
{
	struct mem m = {0};
	struct perfopts_store s = mem_store(&m);
	struct perfopts_result r;
	struct ifeo_entry e;
	char name[] = "probe.exe";
	struct ifeo_plan plan = plan_of(&e, name, high);
	struct ifeo_values other = {IFEO_CPU_CLASS_IDLE,
				    IFEO_IO_PRIORITY_UNSET};

	(void)state;
	perfopts_sync(&s, &plan, &r);
	mem_write(&m, "probe.exe", other, none);
	assert_int_equal(perfopts_sync(&s, NULL, &r), 0);
	assert_int_equal(r.left, 1);
	assert_true(ifeo_values_equal(mem_values(&m, "probe.exe"), other));
	assert_int_equal(m.record_count, 0);
}

/* The record is written first: a crash before the value finds nothing
 * to undo; after it, the value goes at the next start. */
static void test_crash(void **state)
{
	struct mem m = {0};
	struct perfopts_store s = mem_store(&m);
	struct perfopts_result r;
	struct perfopts_record rec = {
		.name = "probe.exe", .written = high, .original = none};

	(void)state;
	mem_record_put(&m, &rec);
	assert_int_equal(perfopts_sync(&s, NULL, &r), 0);
	assert_int_equal(m.writes, 0);
	assert_int_equal(m.record_count, 0);

	mem_record_put(&m, &rec);
	mem_write(&m, "probe.exe", high, none);
	assert_int_equal(perfopts_sync(&s, NULL, &r), 0);
	assert_true(ifeo_values_equal(mem_values(&m, "probe.exe"), none));
	assert_int_equal(m.record_count, 0);
}

static void test_values_change(void **state)
{
	struct mem m = {0};
	struct perfopts_store s = mem_store(&m);
	struct perfopts_result r;
	struct ifeo_entry e;
	char name[] = "probe.exe";
	struct ifeo_plan plan = plan_of(&e, name, below);

	(void)state;
	perfopts_sync(&s, &plan, &r);
	assert_true(ifeo_values_equal(mem_values(&m, "probe.exe"), below));
	plan = plan_of(&e, name, high);
	assert_int_equal(perfopts_sync(&s, &plan, &r), 0);
	/* The low I/O priority was the old rule's: gone with it. */
	assert_true(ifeo_values_equal(mem_values(&m, "probe.exe"), high));
	assert_int_equal(perfopts_sync(&s, NULL, &r), 0);
	assert_true(ifeo_values_equal(mem_values(&m, "probe.exe"), none));
}

static void test_failed_write_kept(void **state)
{
	struct mem m = {0};
	struct perfopts_store s = mem_store(&m);
	struct perfopts_result r;
	struct ifeo_entry e;
	char name[] = "probe.exe";
	struct ifeo_plan plan = plan_of(&e, name, high);

	(void)state;
	perfopts_sync(&s, &plan, &r);
	m.fail_writes = true;
	assert_int_equal(perfopts_sync(&s, NULL, &r), -1);
	assert_int_equal(m.record_count, 1);
	m.fail_writes = false;
	assert_int_equal(perfopts_sync(&s, NULL, &r), 0);
	assert_true(ifeo_values_equal(mem_values(&m, "probe.exe"), none));
	assert_int_equal(m.record_count, 0);
}

static void test_record_text(void **state)
{
	struct perfopts_record r = {.written = high,
				    .original = {IFEO_CPU_CLASS_UNSET,
						 IFEO_IO_PRIORITY_LOW}},
			       back;
	char text[128];

	(void)state;
	perfopts_record_format(&r, text, sizeof(text));
	assert_string_equal(text, "written 3 -1 original -1 1");
	assert_true(perfopts_record_parse(text, &back));
	assert_true(ifeo_values_equal(back.written, r.written));
	assert_true(ifeo_values_equal(back.original, r.original));
	assert_false(perfopts_record_parse("written 3 -1 original -1", &back));
	assert_false(
		perfopts_record_parse("written 3 -1 original -1 1 x", &back));
	assert_false(perfopts_record_parse("written -2 0 original 0 0", &back));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_written_and_removed),
		cmocka_unit_test(test_original_kept),
		cmocka_unit_test(test_changed_by_someone),
		cmocka_unit_test(test_crash),
		cmocka_unit_test(test_values_change),
		cmocka_unit_test(test_failed_write_kept),
		cmocka_unit_test(test_record_text),
	};

	log_init("test_perfopts", LOG_LEVEL_ERROR);
	return unit_run("perfopts", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
