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

/* 127.77.0.n: addresses nothing else on the test machine uses */
#define TEST_ADDR(n)	htonl(0x7f4d0000 | (n))

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

#endif /* _RDSD_KUNIT_UTIL_H */
