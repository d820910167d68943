/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What several KUnit suites of rds_doca share: test addresses, and a
 * connection that exists only for a test.
 */
#ifndef _RDSD_KUNIT_UTIL_H
#define _RDSD_KUNIT_UTIL_H

#include <kunit/test.h>
#include <linux/in.h>
#include <net/net_namespace.h>

#include "rdsd.h"
#include "cong.h"
#include "conn.h"
#include "stats.h"

/* 127.77.0.n: addresses nothing else on the test machine uses */
#define TEST_ADDR4(n)	htonl(0x7f4d0000 | (n))
/* an IPv4 address as the module keeps it: IPv4-mapped */
#define TEST_IN6(v4)	((struct in6_addr){ .in6_u.u6_addr32 = \
				{ 0, 0, htonl(0xffff), (v4) } })
#define TEST_ADDR(n)	TEST_IN6(TEST_ADDR4(n))

/* A connection that exists only for the test: lists, lock, namespace. */
static inline struct rdsd_conn *fake_conn(struct kunit *test)
{
	struct rdsd_conn *conn = kunit_kzalloc(test, sizeof(*conn), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, conn);
	conn->rn = rdsd_net(&init_net);
	spin_lock_init(&conn->lock);
	INIT_LIST_HEAD(&conn->send_queue);
	INIT_LIST_HEAD(&conn->retrans);
	conn->laddr = TEST_ADDR(1);
	conn->faddr = TEST_ADDR(2);
	return conn;
}

/*
 * A namespace state of the test's own, set up by the owners of what the
 * connection code uses (counters, congestion maps, the connection table),
 * as rdsd_net_init() does; NULL if the counters could not be allocated.
 * test_net_free() after rdsd_conn_net_exit().
 */
static inline struct rdsd_net *test_net_alloc(struct kunit *test)
{
	struct rdsd_net *rn = kunit_kzalloc(test, sizeof(*rn), GFP_KERNEL);

	if (!rn || rdsd_stats_net_init(rn))
		return NULL;
	rn->net = &init_net;
	rdsd_cong_net_init(rn);
	rdsd_conn_net_init(rn);
	return rn;
}

static inline void test_net_free(struct rdsd_net *rn)
{
	rdsd_cong_net_exit(rn);
	rdsd_stats_net_exit(rn);
}

#endif /* _RDSD_KUNIT_UTIL_H */
