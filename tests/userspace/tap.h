/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP producer for the RDS socket selftests.
 *
 * Output is plan-less TAP:
 *
 *	ok 1 - bind: port 0 picks a free port
 *	not ok 2 - bind: INADDR_ANY -> EINVAL
 *	# bind_test.c:123: got 0, expected -1/EINVAL
 *
 * and tap_finish() closes the run with a line of the form
 *
 *	12 passed, 1 failed
 *
 * alone on a line.  Its return value is the process exit status: 0 only
 * if nothing failed and at least one check ran.
 *
 * All functions may be called from several threads.
 */
#ifndef RDS_SELFTEST_TAP_H
#define RDS_SELFTEST_TAP_H

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The run's state, one for the program: defined in selftest.c. */
extern pthread_mutex_t tap_lock;
extern unsigned int tap_count;
extern unsigned int tap_passed;
extern unsigned int tap_failed;
/* Prepended to every test name, e.g. "bind: ". */
extern char tap_prefix[256];

static inline const char *tap_errname(int err)
{
	const char *n = err ? strerrorname_np(err) : "0";

	return n ? n : "E?";
}

static inline void tap_vdiag(const char *fmt, va_list ap)
{
	char buf[1024];
	char *line, *save = NULL;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
	fflush(stdout);
}

/* A diagnostic line; never counts as a check. */
static inline __attribute__((format(printf, 1, 2)))
void tap_diag(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&tap_lock);
	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&tap_lock);
}

/*
 * Record one check.  @diag (printf style, may be NULL) is printed as a
 * diagnostic below a failing check.  Returns @cond so callers can bail
 * out of a test whose premise failed.
 */
static inline __attribute__((format(printf, 4, 5)))
int tap_check(int cond, const char *name, const char *where,
	      const char *diag, ...)
{
	va_list ap;

	pthread_mutex_lock(&tap_lock);
	tap_count++;
	if (cond)
		tap_passed++;
	else
		tap_failed++;
	printf("%sok %u - %s%s\n", cond ? "" : "not ", tap_count,
	       tap_prefix, name);
	if (!cond) {
		printf("# at %s\n", where);
		if (diag) {
			va_start(ap, diag);
			tap_vdiag(diag, ap);
			va_end(ap);
		}
	}
	fflush(stdout);
	pthread_mutex_unlock(&tap_lock);
	return cond;
}

static inline void tap_set_prefix(const char *prefix)
{
	pthread_mutex_lock(&tap_lock);
	snprintf(tap_prefix, sizeof(tap_prefix), "%s", prefix ? prefix : "");
	pthread_mutex_unlock(&tap_lock);
}

static inline unsigned int tap_failures(void)
{
	unsigned int n;

	pthread_mutex_lock(&tap_lock);
	n = tap_failed;
	pthread_mutex_unlock(&tap_lock);
	return n;
}

/* Print the closing line; returns the exit status for main(). */
static inline int tap_finish(void)
{
	int ret;

	pthread_mutex_lock(&tap_lock);
	printf("%u passed, %u failed\n", tap_passed, tap_failed);
	fflush(stdout);
	ret = (tap_failed || !tap_count) ? 1 : 0;
	pthread_mutex_unlock(&tap_lock);
	return ret;
}

#define TAP_STR2(x) #x
#define TAP_STR(x) TAP_STR2(x)
#define TAP_WHERE __FILE__ ":" TAP_STR(__LINE__)

/* ok(cond, "name %d", ...) */
#define ok(cond, ...) ({						\
	char __n[256];							\
	snprintf(__n, sizeof(__n), __VA_ARGS__);			\
	tap_check(!!(cond), __n, TAP_WHERE, "%s", "condition: " #cond);	\
})

/* Like ok() with an explanatory diagnostic on failure. */
#define ok_diag(cond, name, ...) ({					\
	tap_check(!!(cond), name, TAP_WHERE, __VA_ARGS__);		\
})

/* A long long comparison with both values shown on failure. */
#define is_eq(got, want, ...) ({					\
	long long __g, __w;						\
	int __e;							\
	char __n[256];							\
	errno = 0;							\
	__g = (long long)(got);						\
	__e = errno;							\
	__w = (long long)(want);					\
	snprintf(__n, sizeof(__n), __VA_ARGS__);			\
	tap_check(__g == __w, __n, TAP_WHERE,				\
		  "%s = %lld (errno %s), expected %lld", #got, __g,	\
		  tap_errname(__e), __w);				\
})

/*
 * is_err(expr, EXPECTED, "name"): @expr must fail with -1 and set errno
 * to EXPECTED.
 */
#define is_err(expr, want_errno, ...) ({				\
	long __r;							\
	int __e;							\
	char __n[256];							\
	errno = 0;							\
	__r = (long)(expr);						\
	__e = errno;							\
	snprintf(__n, sizeof(__n), __VA_ARGS__);			\
	tap_check(__r == -1 && __e == (want_errno), __n, TAP_WHERE,	\
		  "%s returned %ld errno %s, expected -1/%s", #expr,	\
		  __r, __r == -1 ? tap_errname(__e) : "-",		\
		  tap_errname(want_errno));				\
})

/*
 * is_ok(expr, "name"): @expr must not fail (return >= 0).  @expr is
 * evaluated here, so errno describes it; to check a value computed
 * earlier, with errno still intact, use sys_ok().
 */
#define is_ok(expr, ...) ({						\
	long __r;							\
	int __e;							\
	char __n[256];							\
	errno = 0;							\
	__r = (long)(expr);						\
	__e = errno;							\
	snprintf(__n, sizeof(__n), __VA_ARGS__);			\
	tap_check(__r >= 0, __n, TAP_WHERE,				\
		  "%s returned %ld errno %s", #expr, __r,		\
		  tap_errname(__e));					\
})

#define sys_ok(ret, ...) ({						\
	long __r = (long)(ret);						\
	int __e = errno;						\
	char __n[256];							\
	snprintf(__n, sizeof(__n), __VA_ARGS__);			\
	tap_check(__r >= 0, __n, TAP_WHERE,				\
		  "%s = %ld errno %s", #ret, __r,			\
		  __r < 0 ? tap_errname(__e) : "-");			\
})

#endif /* RDS_SELFTEST_TAP_H */
