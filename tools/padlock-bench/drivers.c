// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: which drivers to compare for an algorithm, found in
 * /proc/crypto: the PadLock driver (a driver name containing "padlock"),
 * the generic baseline (aes-generic before 7.0, aes-lib after; for modes the
 * template over it, or the mode's own -lib driver when there is one) and
 * every other driver the kernel has for it.
 */
#define _GNU_SOURCE
#include <string.h>
#include <stdlib.h>
#include <kcapi.h>

#include "bench.h"

int driver_selected(const char *name)
{
	int i;

	if (!opt.ndrivers)
		return 1;
	for (i = 0; i < opt.ndrivers; i++)
		if (!strcmp(opt.drivers[i], name))
			return 1;
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static int usable(const struct calg *c, const char *cra)
{
	return !strcmp(c->name, cra) && !c->internal && c->driver[0] != '_';
}

/* the generic single-block AES cipher: aes-generic / aes-lib */
static const struct calg *generic_aes(const struct crypto_list *l)
{
	const struct calg *best = NULL;
	int i;

	for (i = 0; i < l->n; i++) {
		const struct calg *c = &l->a[i];

		if (!usable(c, "aes") || strcmp(c->type, "cipher"))
			continue;
		if (ends_with(c->driver, "-generic") || ends_with(c->driver, "-lib"))
			return c;
		if (!best || c->priority < best->priority)
			best = c;
	}
	return best;
}

static const struct calg *padlock_aes(const struct crypto_list *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (usable(&l->a[i], "aes") && is_padlock_driver(l->a[i].driver))
			return &l->a[i];
	return NULL;
}

static void add(struct drvset *s, const char *name, int padlock)
{
	int i;

	if (s->ndrv == (int)ARRAY_SIZE(s->drv))
		return;
	for (i = 0; i < s->ndrv; i++)
		if (!strcmp(s->drv[i], name))
			return;
	snprintf(s->drv[s->ndrv], sizeof(s->drv[0]), "%s", name);
	s->padlock[s->ndrv] = padlock;
	s->ndrv++;
}

/*
 * Fill s with the drivers for cra (e.g. "cbc(aes)" or "sha256").  The
 * baseline is s->drv[0].  Returns the number of drivers, 0 when --driver
 * leaves nothing to measure, -1 when the kernel lacks the algorithm.
 */
/* a driver of cra that can be pinned by its own name (no template) */
static int plain_driver(const struct calg *c, const char *cra)
{
	return usable(c, cra) && !strchr(c->driver, '(');
}

/*
 * The baseline, s->drv[0]: a native driver (sha256-generic, sha256-lib,
 * cbc-aes-lib), else the template over the generic AES, else for a hash the
 * lowest priority one.  -1 when there is none.
 */
static int add_baseline(struct drvset *s, const struct crypto_list *l, const char *cra,
			int want_hash)
{
	const struct calg *base = NULL, *g;
	char tmp[200];
	int i;

	for (i = 0; i < l->n; i++) {
		const struct calg *c = &l->a[i];

		if (!plain_driver(c, cra))
			continue;
		if (ends_with(c->driver, "-generic") ||
		    (ends_with(c->driver,
			       "-lib") && (!base || !ends_with(base->driver, "-generic"))))
			base = c;
	}
	if (!base && !want_hash) {
		g = generic_aes(l);
		if (!g)
			return -1;
		/* xts wants an ecb skcipher inside; 6.1 does not add it itself */
		if (!strncmp(cra, "xts(", 4))
			snprintf(tmp, sizeof(tmp), "xts(ecb(%s))", g->driver);
		else
			snprintf(tmp, sizeof(tmp), "%.*s(%s)", (int)strcspn(cra, "("), cra,
				 g->driver);
		add(s, tmp, 0);
		return 0;
	}
	if (!base) {
		/* no generic hash: the lowest priority one */
		for (i = 0; i < l->n; i++)
			if (plain_driver(&l->a[i], cra) &&
			    (!base || l->a[i].priority < base->priority))
				base = &l->a[i];
	}
	if (!base)
		return -1;
	add(s, base->driver, 0);
	return 0;
}

/* PadLock drivers, or the template over the PadLock AES */
static void add_padlock(struct drvset *s, const struct crypto_list *l, const char *cra,
			int want_hash)
{
	const struct calg *pc;
	char tmp[200];
	int i;

	for (i = 0; i < l->n; i++)
		if (plain_driver(&l->a[i], cra) && is_padlock_driver(l->a[i].driver))
			add(s, l->a[i].driver, 1);
	pc = want_hash ? NULL : padlock_aes(l);
	if (s->ndrv != 1 || !pc)
		return;
	/* no PadLock driver for this mode: the template over PadLock */
	if (!strncmp(cra, "xts(", 4) && crypto_find_driver(l, "ecb-aes-padlock"))
		snprintf(tmp, sizeof(tmp), "xts(ecb-aes-padlock)");
	else if (!strncmp(cra, "xts(", 4))
		snprintf(tmp, sizeof(tmp), "xts(ecb(%s))", pc->driver);
	else
		snprintf(tmp, sizeof(tmp), "%.*s(%s)", (int)strcspn(cra, "("), cra, pc->driver);
	add(s, tmp, 1);
}

/* --driver: keep the baseline as the reference, drop unselected ones */
static int apply_selection(struct drvset *s)
{
	int i, any_selected = 0;

	for (i = 0; i < s->ndrv; i++)
		any_selected |= driver_selected(s->drv[i]);
	if (!any_selected)
		return 0;
	for (i = s->ndrv - 1; i > 0; i--) {
		int tail = s->ndrv - i - 1;

		if (driver_selected(s->drv[i]))
			continue;
		memmove(&s->drv[i], &s->drv[i + 1], tail * sizeof(s->drv[0]));
		memmove(&s->padlock[i], &s->padlock[i + 1], tail * sizeof(s->padlock[0]));
		s->ndrv--;
	}
	return s->ndrv;
}

int drivers_for(const char *cra, struct drvset *s, int want_hash)
{
	struct crypto_list l = { 0 };
	int i;

	memset(s, 0, sizeof(*s));
	snprintf(s->cra, sizeof(s->cra), "%s", cra);
	crypto_read(&l);
	if (add_baseline(s, &l, cra, want_hash)) {
		crypto_free(&l);
		return -1;
	}
	s->baseline = 0;
	/* PadLock drivers first, then the others */
	add_padlock(s, &l, cra, want_hash);
	for (i = 0; i < l.n; i++)
		if (plain_driver(&l.a[i], cra))
			add(s, l.a[i].driver, 0);
	crypto_free(&l);
	return apply_selection(s);
}

/*
 * --quick, for dm-crypt and IPsec: the baseline and the PadLock drivers only,
 * or the baseline and one other driver when there is no PadLock driver.
 */
void drivers_quick_trim(struct drvset *s)
{
	int i, any_padlock = 0, kept_other = 0, n = 1;

	if (!opt.quick)
		return;
	for (i = 1; i < s->ndrv; i++)
		any_padlock |= s->padlock[i];
	for (i = 1; i < s->ndrv; i++) {
		if (!s->padlock[i] && (any_padlock || kept_other++))
			continue;
		if (i != n) {
			memcpy(s->drv[n], s->drv[i], sizeof(s->drv[0]));
			s->padlock[n] = s->padlock[i];
		}
		n++;
	}
	s->ndrv = n;
}

/* every --driver must name a driver the kernel has or can build */
void drivers_validate_option(void)
{
	struct crypto_list l = { 0 };
	int i;

	crypto_read(&l);
	for (i = 0; i < opt.ndrivers; i++) {
		struct kcapi_handle *h = NULL;
		const char *d = opt.drivers[i];

		if (crypto_find_driver(&l, d))
			continue;
		if (kcapi_cipher_init(&h, d, 0) == 0) {
			kcapi_cipher_destroy(h);
			continue;
		}
		if (kcapi_md_init(&h, d, 0) == 0) {
			kcapi_md_destroy(h);
			continue;
		}
		crypto_free(&l);
		die(EXIT_ENV,
		    "unknown driver %s: it is not in /proc/crypto and the kernel cannot build it (see --help for the names used).",
		    d);
	}
	crypto_free(&l);
}
