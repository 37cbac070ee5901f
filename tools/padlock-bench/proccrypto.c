// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: /proc/crypto, the drivers the kernel has.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char *proc_crypto = "/proc/crypto";

int crypto_read(struct crypto_list *l)
{
	FILE *f = fopen(proc_crypto, "r");
	char line[512];
	struct calg *cur = NULL;
	int cap = 0;

	crypto_free(l);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon, *key, *val, *e;

		line[strcspn(line, "\n")] = 0;
		if (!line[0]) {
			cur = NULL;
			continue;
		}
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		key = line;
		val = colon + 1;
		for (e = colon - 1; e >= key && isspace((unsigned char)*e); e--)
			*e = 0;
		while (isspace((unsigned char)*val))
			val++;
		if (!strcmp(key, "name")) {
			if (l->n == cap) {
				cap = cap ? cap * 2 : 256;
				l->a = xrealloc(l->a, cap * sizeof(*l->a));
			}
			cur = &l->a[l->n++];
			memset(cur, 0, sizeof(*cur));
			snprintf(cur->name, sizeof(cur->name), "%s", val);
			cur->selftest_ok = 1;
			continue;
		}
		if (!cur)
			continue;
		if (!strcmp(key, "driver"))
			snprintf(cur->driver, sizeof(cur->driver), "%s", val);
		else if (!strcmp(key, "module"))
			snprintf(cur->module, sizeof(cur->module), "%s", val);
		else if (!strcmp(key, "type"))
			snprintf(cur->type, sizeof(cur->type), "%s", val);
		else if (!strcmp(key, "priority"))
			cur->priority = atoi(val);
		else if (!strcmp(key, "internal"))
			cur->internal = !strcmp(val, "yes");
		else if (!strcmp(key, "selftest"))
			cur->selftest_ok = !strcmp(val, "passed");
	}
	fclose(f);
	return 0;
}

void crypto_free(struct crypto_list *l)
{
	free(l->a);
	l->a = NULL;
	l->n = 0;
}

const struct calg *crypto_find_driver(const struct crypto_list *l, const char *driver)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->a[i].driver, driver))
			return &l->a[i];
	return NULL;
}

/*
 * The /proc/crypto entry that a pinned name ended up as: the same driver
 * name, or for "xts(X)" the instance "xts(ecb(X))" the template builds.
 */
const struct calg *crypto_resolve(const char *pinned, struct crypto_list *l)
{
	const struct calg *c;
	char alt[200];
	size_t n = strlen(pinned);

	crypto_read(l);
	c = crypto_find_driver(l, pinned);
	if (c)
		return c;
	if (!strncmp(pinned, "xts(", 4) && strncmp(pinned, "xts(ecb", 7) && n > 5) {
		snprintf(alt, sizeof(alt), "xts(ecb(%.*s))", (int)(n - 5), pinned + 4);
		return crypto_find_driver(l, alt);
	}
	return NULL;
}

int is_padlock_driver(const char *driver)
{
	return !!strstr(driver, "padlock");
}
