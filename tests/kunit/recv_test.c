// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_recv (recv.c): sequence numbers of arriving messages,
 * duplicates and gaps.
 */
#include <kunit/test.h>
#include <linux/in.h>

#include "rdsd.h"
#include "kunit_util.h"
#include "message.h"
#include "recv.h"
#include "stats.h"

/* Deliver @seq to an unbound port and report which counter moved. */
static bool delivered_as_new(struct kunit *test, struct rdsd_conn *conn,
			     u64 seq)
{
	struct rdsd_net *rn = conn->rn;
	struct rdsd_msg *msg = rdsd_msg_alloc(4, GFP_KERNEL);
	u64 old_seq, no_sock;

	KUNIT_ASSERT_NOT_NULL(test, msg);
	msg->seq = seq;
	msg->daddr = TEST_ADDR(2);
	msg->dport = htons(9);	/* nothing is bound there */
	old_seq = rdsd_stat_get(rn, recv_drop_old_seq);
	no_sock = rdsd_stat_get(rn, recv_drop_no_sock);
	rdsd_recv_incoming(conn, msg);
	rdsd_msg_put(msg);
	if (rdsd_stat_get(rn, recv_drop_no_sock) == no_sock + 1)
		return true;
	KUNIT_EXPECT_EQ(test, rdsd_stat_get(rn, recv_drop_old_seq), old_seq + 1);
	return false;
}

static void rdsd_recv_incoming_drops_duplicates(struct kunit *test)
{
	struct rdsd_conn *conn = fake_conn(test);

	KUNIT_EXPECT_TRUE(test, delivered_as_new(test, conn, 0));
	KUNIT_EXPECT_TRUE(test, delivered_as_new(test, conn, 1));
	KUNIT_EXPECT_FALSE(test, delivered_as_new(test, conn, 1));
	KUNIT_EXPECT_FALSE(test, delivered_as_new(test, conn, 0));
	KUNIT_EXPECT_EQ(test, conn->next_rx_seq, 2ULL);
}

static void rdsd_recv_incoming_gap_moves_window(struct kunit *test)
{
	struct rdsd_conn *conn = fake_conn(test);

	KUNIT_EXPECT_TRUE(test, delivered_as_new(test, conn, 5));
	KUNIT_EXPECT_EQ(test, conn->next_rx_seq, 6ULL);
	/* what the gap skipped is older than the window now */
	KUNIT_EXPECT_FALSE(test, delivered_as_new(test, conn, 3));
	KUNIT_EXPECT_TRUE(test, delivered_as_new(test, conn, 6));
}

static void rdsd_recv_incoming_replay_after_reset(struct kunit *test)
{
	struct rdsd_conn *conn = fake_conn(test);
	u64 seq;
	int fresh = 0;

	for (seq = 0; seq < 4; seq++)
		delivered_as_new(test, conn, seq);
	/* a sender resending 2..6 after a reset: only 4..6 are new */
	for (seq = 2; seq <= 6; seq++)
		fresh += delivered_as_new(test, conn, seq);
	KUNIT_EXPECT_EQ(test, fresh, 3);
}

static struct kunit_case rdsd_recv_cases[] = {
	KUNIT_CASE(rdsd_recv_incoming_drops_duplicates),
	KUNIT_CASE(rdsd_recv_incoming_gap_moves_window),
	KUNIT_CASE(rdsd_recv_incoming_replay_after_reset),
	{}
};

static struct kunit_suite rdsd_recv_suite = {
	.name = "rds_doca_recv",
	.test_cases = rdsd_recv_cases,
};

kunit_test_suites(&rdsd_recv_suite);
