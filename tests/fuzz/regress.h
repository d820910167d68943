/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the regression programs (regress_*.c) share: their options, and
 * TAP checks named after the program.  Include after defining
 * _GNU_SOURCE.
 */
#ifndef _REGRESS_H
#define _REGRESS_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/**
 * struct regress_opt - one "--name value" option
 * @name: "--name".
 * @addr: where an IPv4 address goes, or NULL;
 * @num: where a number goes otherwise.
 */
struct regress_opt {
	const char	*name;
	struct in_addr	*addr;
	int		*num;
};

/*
 * Parse argv as "--name value" pairs of @opts (ended by a NULL name).
 * False on an option not in @opts or one without its value.
 */
static inline bool regress_opts(int argc, char **argv,
			 const struct regress_opt *opts)
{
	const struct regress_opt *o;
	int i;

	for (i = 1; i < argc; i += 2) {
		for (o = opts; o->name && strcmp(o->name, argv[i]); o++)
			;
		if (!o->name || i + 1 >= argc)
			return false;
		if (o->addr)
			inet_pton(AF_INET, argv[i + 1], o->addr);
		else
			*o->num = atoi(argv[i + 1]);
	}
	return true;
}

static int n_checks, n_failed;

static inline void check(bool ok, const char *what, const char *detail)
{
	printf("%sok %d - %s: %s%s%s\n", ok ? "" : "not ", ++n_checks,
	       program_invocation_short_name, what, detail[0] ? ": " : "",
	       detail);
	n_failed += !ok;
}

/* The closing line; the exit status. */
static inline int check_finish(void)
{
	printf("%d passed, %d failed\n", n_checks - n_failed, n_failed);
	return n_failed ? 1 : 0;
}

#endif /* _REGRESS_H */
