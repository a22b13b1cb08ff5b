/* The JSON documents the programs write (status, explain, the saturation
 * check): built as json-c objects, so that json-c escapes every string,
 * and written one way. */
#ifndef CPUPOLICY_JSONOUT_H
#define CPUPOLICY_JSONOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <json.h>

/* jsonout.c */
struct json_object *jsonout_string(const char *text);
void jsonout_add(struct json_object *obj, const char *key,
		 struct json_object *value);
void jsonout_add_string(struct json_object *obj, const char *key,
			const char *text);
void jsonout_add_int(struct json_object *obj, const char *key, long long value);
void jsonout_add_uint(struct json_object *obj, const char *key,
		      unsigned long long value);
void jsonout_add_bool(struct json_object *obj, const char *key, bool value);
struct json_object *jsonout_fixed(double value, int decimals);
void jsonout_add_fixed(struct json_object *obj, const char *key, double value,
		       int decimals);
struct json_object *jsonout_add_array(struct json_object *obj, const char *key);
struct json_object *jsonout_add_object(struct json_object *obj,
				       const char *key);
void jsonout_write(FILE *out, struct json_object *doc);

#endif
