// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: reading the JSON that fio (--output-format=json) and
 * iperf3 (--json) print, with json-c.  Members are named by JSON pointers
 * (RFC 6901): "/end/sum/bits_per_second".
 */
#define _GNU_SOURCE
#include <string.h>
#include <json-c/json.h>
#include <json-c/json_pointer.h>

#include "bench.h"

/* the document in a program's output, or NULL; json_object_put() it */
struct json_object *json_output_parse(const char *text)
{
	/* programs sometimes print a line before the document */
	const char *p = text ? strchr(text, '{') : NULL;

	return p ? json_tokener_parse(p) : NULL;
}

/* the member at ptr, or NULL (also for a NULL document) */
struct json_object *json_at(struct json_object *doc, const char *ptr)
{
	struct json_object *v = NULL;

	if (!doc || json_pointer_get(doc, ptr, &v))
		return NULL;
	return v;
}

/* the number at ptr (a boolean counts as 0 or 1), or dflt */
double json_at_num(struct json_object *doc, const char *ptr, double dflt)
{
	struct json_object *v = json_at(doc, ptr);

	if (json_object_is_type(v, json_type_double) ||
	    json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_boolean))
		return json_object_get_double(v);
	return dflt;
}

/* the string at ptr, or NULL; it lives as long as the document */
const char *json_at_str(struct json_object *doc, const char *ptr)
{
	struct json_object *v = json_at(doc, ptr);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* the length of the array at ptr; 0 when there is none */
int json_at_len(struct json_object *doc, const char *ptr)
{
	struct json_object *v = json_at(doc, ptr);

	return json_object_is_type(v, json_type_array) ? (int)json_object_array_length(v) : 0;
}
