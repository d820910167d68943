/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the regression programs (regress_*.c) share: TAP checks named
 * after the program.  Include after defining _GNU_SOURCE.
 */
#ifndef _REGRESS_H
#define _REGRESS_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

static int n_checks, n_failed;

static void check(bool ok, const char *what, const char *detail)
{
	printf("%sok %d - %s: %s%s%s\n", ok ? "" : "not ", ++n_checks,
	       program_invocation_short_name, what, detail[0] ? ": " : "",
	       detail);
	n_failed += !ok;
}

/* The closing line; the exit status. */
static int check_finish(void)
{
	printf("%d passed, %d failed\n", n_checks - n_failed, n_failed);
	return n_failed ? 1 : 0;
}

#endif /* _REGRESS_H */
