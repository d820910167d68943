// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suites for rds_doca: the core (control messages, sequence numbers,
 * congestion maps, transport selection, messages, binding, the wire
 * header, RDMA cookies).  ib_test.c and window_test.c hold the suites of
 * the IB transport; all of them make up one module, rds_doca_kunit.
 *
 * Built only against a kernel with CONFIG_KUNIT; rds_doca exports its
 * internals to this module with EXPORT_SYMBOL_IF_KUNIT.  Suites that need
 * sockets create real kernel sockets of the registered family in the
 * initial namespace and use addresses in 127.77/16 that nothing else uses.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/rds_doca.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "mr.h"
#include "rdsd.h"
#include "transport.h"
#include "stats.h"
#include "cong.h"
#include "message.h"
#include "send.h"
#include "recv.h"
#include "wire.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define TEST_ADDR(n)	htonl(0x7f4d0000 | (n))	/* 127.77.0.n */

/* ---- rds_doca_cmsg: control message validation ---- */

struct cmsg_case {
	const char	*name;
	int		level;
	int		type;
	size_t		data_len;	/* payload bytes behind the header */
	int		cmsg_len_delta;	/* added to CMSG_LEN(data_len) */
	int		expected;
};

static const struct cmsg_case cmsg_cases[] = {
	{ "other level ignored", SOL_SOCKET, 1, 8, 0, 0 },
	{ "other level, unknown type ignored", SOL_IP, 99, 4, 0, 0 },
	{ "rdma args", SOL_RDS, RDS_CMSG_RDMA_ARGS,
	  sizeof(struct rds_rdma_args), 0, 0 },
	{ "rdma args short", SOL_RDS, RDS_CMSG_RDMA_ARGS,
	  sizeof(struct rds_rdma_args) - 8, 0, -EINVAL },
	{ "rdma dest", SOL_RDS, RDS_CMSG_RDMA_DEST, sizeof(u64), 0, 0 },
	{ "rdma dest short", SOL_RDS, RDS_CMSG_RDMA_DEST, 4, 0, -EINVAL },
	{ "rdma map", SOL_RDS, RDS_CMSG_RDMA_MAP,
	  sizeof(struct rds_get_mr_args), 0, 0 },
	{ "rdma map short", SOL_RDS, RDS_CMSG_RDMA_MAP,
	  sizeof(struct rds_get_mr_args) - 1, 0, -EINVAL },
	{ "fadd", SOL_RDS, RDS_CMSG_ATOMIC_FADD,
	  sizeof(struct rds_atomic_args), 0, 0 },
	{ "fadd short", SOL_RDS, RDS_CMSG_ATOMIC_FADD, 16, 0, -EINVAL },
	{ "cswp", SOL_RDS, RDS_CMSG_ATOMIC_CSWP,
	  sizeof(struct rds_atomic_args), 0, 0 },
	{ "cswp short", SOL_RDS, RDS_CMSG_ATOMIC_CSWP, 8, 0, -EINVAL },
	{ "masked fadd", SOL_RDS, RDS_CMSG_MASKED_ATOMIC_FADD,
	  sizeof(struct rds_atomic_args), 0, 0 },
	{ "masked fadd short", SOL_RDS, RDS_CMSG_MASKED_ATOMIC_FADD, 0, 0,
	  -EINVAL },
	{ "masked cswp", SOL_RDS, RDS_CMSG_MASKED_ATOMIC_CSWP,
	  sizeof(struct rds_atomic_args), 0, 0 },
	{ "masked cswp short", SOL_RDS, RDS_CMSG_MASKED_ATOMIC_CSWP, 40, 0,
	  -EINVAL },
	{ "status is receive-only", SOL_RDS, RDS_CMSG_RDMA_STATUS,
	  sizeof(struct rds_rdma_notify), 0, -EINVAL },
	{ "cong update is receive-only", SOL_RDS, RDS_CMSG_CONG_UPDATE,
	  sizeof(u64), 0, -EINVAL },
	{ "zcopy cookie without MSG_ZEROCOPY", SOL_RDS, RDS_CMSG_ZCOPY_COOKIE,
	  sizeof(u32), 0, -EINVAL },
	{ "unknown type", SOL_RDS, 99, 8, 0, -EINVAL },
	{ "cmsg_len below the header", SOL_RDS, RDS_CMSG_RDMA_ARGS, 0,
	  -(int)sizeof(struct cmsghdr), -EINVAL },
	{ "cmsg_len past the buffer", SOL_SOCKET, 1, 8, 64, -EINVAL },
};

static void cmsg_case_desc(const struct cmsg_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cmsg, cmsg_cases, cmsg_case_desc);

static void rdsd_cmsg_parse_validates(struct kunit *test)
{
	const struct cmsg_case *c = test->param_value;
	size_t space = CMSG_SPACE(c->data_len);
	struct rdsd_cmsgs cm;
	struct msghdr m = { };
	struct cmsghdr *cmsg;

	/* Arrange: one cmsg in a kernel control buffer */
	cmsg = kunit_kzalloc(test, space, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmsg);
	cmsg->cmsg_level = c->level;
	cmsg->cmsg_type = c->type;
	cmsg->cmsg_len = CMSG_LEN(c->data_len) + c->cmsg_len_delta;
	m.msg_control = cmsg;
	m.msg_controllen = space;

	/* Act + Assert */
	KUNIT_EXPECT_EQ(test, rdsd_cmsg_parse(&m, &cm), c->expected);
}

static void rdsd_cmsg_parse_empty_is_ok(struct kunit *test)
{
	struct rdsd_cmsgs cm;
	struct msghdr m = { };

	KUNIT_EXPECT_EQ(test, rdsd_cmsg_parse(&m, &cm), 0);
	KUNIT_EXPECT_FALSE(test, cm.rdma || cm.atomic || cm.map || cm.dest);
}

/* Two SOL_RDS cmsgs of @t1 and @t2, each with @len bytes of data. */
static int cmsg_parse_two(struct kunit *test, int t1, int t2, size_t len,
			  struct rdsd_cmsgs *cm)
{
	size_t one = CMSG_SPACE(len);
	struct msghdr m = { };
	struct cmsghdr *c;
	char *buf;

	buf = kunit_kzalloc(test, 2 * one, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	c = (struct cmsghdr *)buf;
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = t1;
	c->cmsg_len = CMSG_LEN(len);
	c = (struct cmsghdr *)(buf + one);
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = t2;
	c->cmsg_len = CMSG_LEN(len);
	m.msg_control = buf;
	m.msg_controllen = 2 * one;
	return rdsd_cmsg_parse(&m, cm);
}

static void rdsd_cmsg_parse_one_op_per_message(struct kunit *test)
{
	size_t big = sizeof(struct rds_atomic_args);
	struct rdsd_cmsgs cm;

	KUNIT_EXPECT_EQ(test, cmsg_parse_two(test, RDS_CMSG_RDMA_ARGS,
					     RDS_CMSG_RDMA_ARGS, big, &cm),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cmsg_parse_two(test, RDS_CMSG_RDMA_ARGS,
					     RDS_CMSG_ATOMIC_FADD, big, &cm),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cmsg_parse_two(test, RDS_CMSG_ATOMIC_CSWP,
					     RDS_CMSG_MASKED_ATOMIC_FADD, big,
					     &cm), -EINVAL);
	KUNIT_EXPECT_EQ(test, cmsg_parse_two(test, RDS_CMSG_RDMA_DEST,
					     RDS_CMSG_RDMA_MAP, big, &cm),
			-EINVAL);
	/* an operation and a cookie for the peer go together */
	KUNIT_EXPECT_EQ(test, cmsg_parse_two(test, RDS_CMSG_ATOMIC_CSWP,
					     RDS_CMSG_RDMA_DEST, big, &cm), 0);
	KUNIT_EXPECT_EQ(test, cm.atomic, RDS_CMSG_ATOMIC_CSWP);
	KUNIT_EXPECT_TRUE(test, cm.dest);
	KUNIT_EXPECT_FALSE(test, cm.rdma);
}

static void rdsd_cmsg_parse_second_bad_cmsg_fails(struct kunit *test)
{
	size_t one = CMSG_SPACE(sizeof(u64));
	struct rdsd_cmsgs cm;
	struct msghdr m = { };
	struct cmsghdr *c1, *c2;
	char *buf;

	buf = kunit_kzalloc(test, 2 * one, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	c1 = (struct cmsghdr *)buf;
	c1->cmsg_level = SOL_SOCKET;
	c1->cmsg_type = 1;
	c1->cmsg_len = CMSG_LEN(sizeof(u64));
	c2 = (struct cmsghdr *)(buf + one);
	c2->cmsg_level = SOL_RDS;
	c2->cmsg_type = 77;
	c2->cmsg_len = CMSG_LEN(sizeof(u64));
	m.msg_control = buf;
	m.msg_controllen = 2 * one;

	KUNIT_EXPECT_EQ(test, rdsd_cmsg_parse(&m, &cm), -EINVAL);
}

static struct kunit_case rdsd_cmsg_cases[] = {
	KUNIT_CASE_PARAM(rdsd_cmsg_parse_validates, cmsg_gen_params),
	KUNIT_CASE(rdsd_cmsg_parse_empty_is_ok),
	KUNIT_CASE(rdsd_cmsg_parse_second_bad_cmsg_fails),
	KUNIT_CASE(rdsd_cmsg_parse_one_op_per_message),
	{}
};

static struct kunit_suite rdsd_cmsg_suite = {
	.name = "rds_doca_cmsg",
	.test_cases = rdsd_cmsg_cases,
};

/* ---- rds_doca_seq: acknowledgment and duplicate bookkeeping ---- */

/* A connection that exists only for the test: lists, lock, namespace. */
static struct rdsd_conn *fake_conn(struct kunit *test)
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
 * Put messages with sequence numbers @first.. on the retransmit list, as
 * if every number up to the last had been handed out.
 */
static void fake_retrans(struct kunit *test, struct rdsd_conn *conn, u64 first,
			 int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct rdsd_msg *msg = rdsd_msg_alloc(8, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, msg);
		msg->seq = first + i;
		set_bit(RDSD_MSG_ON_CONN, &msg->flags);
		set_bit(RDSD_MSG_SENT, &msg->flags);
		list_add_tail(&msg->conn_item, &conn->retrans);
	}
	conn->next_tx_seq = max(conn->next_tx_seq, first + n);
}

static int retrans_len(struct rdsd_conn *conn)
{
	struct rdsd_msg *msg;
	int n = 0;

	list_for_each_entry(msg, &conn->retrans, conn_item)
		n++;
	return n;
}

static u64 retrans_first(struct rdsd_conn *conn)
{
	return list_first_entry(&conn->retrans, struct rdsd_msg,
				conn_item)->seq;
}

/* The peer acknowledges everything handed out. */
static void drain(struct kunit *test, struct rdsd_conn *conn)
{
	if (conn->next_tx_seq)
		KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn,
						      conn->next_tx_seq - 1), 0);
}

static void rdsd_send_acked_releases_prefix(struct kunit *test)
{
	struct rdsd_conn *conn = fake_conn(test);

	fake_retrans(test, conn, 10, 5);	/* 10..14 */
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, 12), 0);
	KUNIT_EXPECT_EQ(test, retrans_len(conn), 2);
	KUNIT_EXPECT_EQ(test, retrans_first(conn), 13ULL);
	drain(test, conn);
	KUNIT_EXPECT_TRUE(test, list_empty(&conn->retrans));
}

static void rdsd_send_acked_duplicate_ack_is_noop(struct kunit *test)
{
	struct rdsd_conn *conn = fake_conn(test);

	fake_retrans(test, conn, 10, 5);
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, 11), 0);
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, 11), 0);
	/* older than anything queued */
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, 5), 0);
	KUNIT_EXPECT_EQ(test, retrans_len(conn), 3);
	KUNIT_EXPECT_EQ(test, retrans_first(conn), 12ULL);
	KUNIT_EXPECT_EQ(test, conn->last_acked, 11ULL);
	drain(test, conn);
}

static void rdsd_send_acked_old_ack_is_ignored(struct kunit *test)
{
	struct rdsd_conn *conn = fake_conn(test);
	struct rdsd_net *rn = conn->rn;
	u64 errors;

	/* Arrange: 0..9 handed out, 0..6 acknowledged */
	fake_retrans(test, conn, 0, 10);
	KUNIT_ASSERT_EQ(test, rdsd_send_acked(conn, 6), 0);
	errors = rdsd_stat_get(rn, recv_proto_error);

	/* Act: an ack from before that one */
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, 3), 0);

	/* Assert: no error, nothing moves back or completes */
	KUNIT_EXPECT_EQ(test, conn->last_acked, 6ULL);
	KUNIT_EXPECT_EQ(test, retrans_len(conn), 3);
	KUNIT_EXPECT_EQ(test, retrans_first(conn), 7ULL);
	KUNIT_EXPECT_EQ(test, rdsd_stat_get(rn, recv_proto_error), errors);
	drain(test, conn);
}

static void rdsd_send_acked_highest_sent_completes_all(struct kunit *test)
{
	struct rdsd_conn *conn = fake_conn(test);

	fake_retrans(test, conn, 0, 3);		/* 0..2, next_tx_seq 3 */

	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, 2), 0);

	KUNIT_EXPECT_TRUE(test, list_empty(&conn->retrans));
	KUNIT_EXPECT_EQ(test, conn->last_acked, 2ULL);
}

/*
 * Acks of a number never handed out: 0..4 sent and still unacknowledged
 * (next_tx_seq 5), or @queued more handed out but not on the wire yet.
 */
struct ack_beyond_case {
	const char	*name;
	u64		ack;
	int		queued;	/* numbers handed out after 4, still queued */
};

static const struct ack_beyond_case ack_beyond_cases[] = {
	{ "next_tx_seq itself", 5, 0 },
	{ "one past next_tx_seq", 6, 0 },
	{ "far beyond", 1000, 0 },
	{ "2^63", 1ULL << 63, 0 },
	{ "U64_MAX", U64_MAX, 0 },
	{ "next_tx_seq with more queued", 8, 3 },
};

static void ack_beyond_desc(const struct ack_beyond_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ack_beyond, ack_beyond_cases, ack_beyond_desc);

static void rdsd_send_acked_beyond_next_tx_seq_is_refused(struct kunit *test)
{
	const struct ack_beyond_case *c = test->param_value;
	struct rdsd_conn *conn = fake_conn(test);
	struct rdsd_net *rn = conn->rn;
	u64 errors;

	/* Arrange: 0..4 on the retransmit list, 0 acknowledged */
	fake_retrans(test, conn, 0, 5);
	conn->next_tx_seq += c->queued;
	KUNIT_ASSERT_EQ(test, rdsd_send_acked(conn, 0), 0);
	errors = rdsd_stat_get(rn, recv_proto_error);

	/* Act */
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, c->ack), -EPROTO);

	/* Assert: reported and counted, nothing completed or moved */
	KUNIT_EXPECT_EQ(test, rdsd_stat_get(rn, recv_proto_error), errors + 1);
	KUNIT_EXPECT_EQ(test, retrans_len(conn), 4);
	KUNIT_EXPECT_EQ(test, retrans_first(conn), 1ULL);
	KUNIT_EXPECT_EQ(test, conn->last_acked, 0ULL);
	drain(test, conn);
	KUNIT_EXPECT_TRUE(test, list_empty(&conn->retrans));
}

static void rdsd_send_acked_nothing_handed_out_is_refused(struct kunit *test)
{
	struct rdsd_conn *conn = fake_conn(test);
	struct rdsd_net *rn = conn->rn;
	u64 errors = rdsd_stat_get(rn, recv_proto_error);

	/* no number handed out: even an ack of 0 is made up */
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, 0), -EPROTO);
	KUNIT_EXPECT_EQ(test, rdsd_stat_get(rn, recv_proto_error), errors + 1);
}

static void rdsd_send_acked_high_sequence_numbers(struct kunit *test)
{
	struct rdsd_conn *conn = fake_conn(test);

	/* 64-bit sequence numbers near the top still order correctly */
	fake_retrans(test, conn, U64_MAX - 4, 4);
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, U64_MAX - 3), 0);
	KUNIT_EXPECT_EQ(test, retrans_len(conn), 2);
	KUNIT_EXPECT_EQ(test, retrans_first(conn), U64_MAX - 2);
	/* U64_MAX itself was never handed out */
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, U64_MAX), -EPROTO);
	KUNIT_EXPECT_EQ(test, retrans_len(conn), 2);
	drain(test, conn);
	KUNIT_EXPECT_TRUE(test, list_empty(&conn->retrans));
}

static void rdsd_send_acked_on_empty_list(struct kunit *test)
{
	struct rdsd_conn *conn = fake_conn(test);

	/* 0..7 were handed out and completed before */
	conn->next_tx_seq = 8;
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, 7), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&conn->retrans));
}

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

static struct kunit_case rdsd_seq_cases[] = {
	KUNIT_CASE(rdsd_send_acked_releases_prefix),
	KUNIT_CASE(rdsd_send_acked_duplicate_ack_is_noop),
	KUNIT_CASE(rdsd_send_acked_old_ack_is_ignored),
	KUNIT_CASE(rdsd_send_acked_highest_sent_completes_all),
	KUNIT_CASE_PARAM(rdsd_send_acked_beyond_next_tx_seq_is_refused,
			 ack_beyond_gen_params),
	KUNIT_CASE(rdsd_send_acked_nothing_handed_out_is_refused),
	KUNIT_CASE(rdsd_send_acked_high_sequence_numbers),
	KUNIT_CASE(rdsd_send_acked_on_empty_list),
	KUNIT_CASE(rdsd_recv_incoming_drops_duplicates),
	KUNIT_CASE(rdsd_recv_incoming_gap_moves_window),
	KUNIT_CASE(rdsd_recv_incoming_replay_after_reset),
	{}
};

static struct kunit_suite rdsd_seq_suite = {
	.name = "rds_doca_seq",
	.test_cases = rdsd_seq_cases,
};

/* ---- rds_doca_cong: congestion maps ---- */

static void rdsd_cong_map_get_shares_per_address(struct kunit *test)
{
	struct rdsd_net *rn = rdsd_net(&init_net);
	struct rdsd_cong_map *a, *b, *c;

	a = rdsd_cong_map_get(rn, TEST_ADDR(10), GFP_KERNEL);
	b = rdsd_cong_map_get(rn, TEST_ADDR(10), GFP_KERNEL);
	c = rdsd_cong_map_get(rn, TEST_ADDR(11), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_PTR_EQ(test, a, b);
	KUNIT_EXPECT_PTR_NE(test, a, c);
	KUNIT_EXPECT_EQ(test, refcount_read(&a->refs), 2);
	rdsd_cong_map_put(rn, a);
	rdsd_cong_map_put(rn, b);
	rdsd_cong_map_put(rn, c);
}

static void rdsd_cong_set_clear_port_bits(struct kunit *test)
{
	struct rdsd_net *rn = rdsd_net(&init_net);
	struct rdsd_cong_map *map = rdsd_cong_map_get(rn, TEST_ADDR(12),
						       GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, map);
	KUNIT_EXPECT_FALSE(test, rdsd_cong_test(map, htons(4000)));
	rdsd_cong_set(rn, map, htons(4000));
	KUNIT_EXPECT_TRUE(test, rdsd_cong_test(map, htons(4000)));
	KUNIT_EXPECT_FALSE(test, rdsd_cong_test(map, htons(4001)));
	KUNIT_EXPECT_FALSE(test, rdsd_cong_test(map, htons(4000 + 64)));
	rdsd_cong_set(rn, map, htons(65535));
	KUNIT_EXPECT_TRUE(test, rdsd_cong_test(map, htons(65535)));
	rdsd_cong_clear(rn, map, htons(4000));
	KUNIT_EXPECT_FALSE(test, rdsd_cong_test(map, htons(4000)));
	rdsd_cong_clear(rn, map, htons(65535));
	rdsd_cong_map_put(rn, map);
}

static void rdsd_cong_set_bumps_generation_once(struct kunit *test)
{
	struct rdsd_net *rn = rdsd_net(&init_net);
	struct rdsd_cong_map *map = rdsd_cong_map_get(rn, TEST_ADDR(13),
						       GFP_KERNEL);
	int gen;

	KUNIT_ASSERT_NOT_NULL(test, map);
	gen = atomic_read(&rn->cong_generation);
	rdsd_cong_set(rn, map, htons(7));
	rdsd_cong_set(rn, map, htons(7));	/* no change, no update */
	KUNIT_EXPECT_EQ(test, atomic_read(&rn->cong_generation), gen + 1);
	rdsd_cong_clear(rn, map, htons(7));
	rdsd_cong_clear(rn, map, htons(7));
	KUNIT_EXPECT_EQ(test, atomic_read(&rn->cong_generation), gen + 2);
	rdsd_cong_map_put(rn, map);
}

static struct kunit_case rdsd_cong_cases[] = {
	KUNIT_CASE(rdsd_cong_map_get_shares_per_address),
	KUNIT_CASE(rdsd_cong_set_clear_port_bits),
	KUNIT_CASE(rdsd_cong_set_bumps_generation_once),
	{}
};

static struct kunit_suite rdsd_cong_suite = {
	.name = "rds_doca_cong",
	.test_cases = rdsd_cong_cases,
};

/* ---- rds_doca_transport: transport selection by address ---- */

struct trans_bind_case {
	const char	*name;
	u32		addr;		/* host order */
	int		forced;
	bool		loopback;	/* expected transport, if no error */
	int		err;
};

static const struct trans_bind_case trans_bind_cases[] = {
	{ "127.0.0.1 is loopback", 0x7f000001, -1, true, 0 },
	{ "127.255.255.254 is loopback", 0x7ffffffe, -1, true, 0 },
	/* no RDMA device serves these in the test kernel */
	{ "203.0.113.1 has no transport", 0xcb007101, -1, false, -EADDRNOTAVAIL },
	{ "192.0.2.1 has no transport", 0xc0000201, -1, false, -EADDRNOTAVAIL },
	{ "forced IB refuses loopback", 0x7f000001, RDS_TRANS_IB, false,
	  -ENOPROTOOPT },
	{ "forced TCP is unavailable", 0x7f000001, RDS_TRANS_TCP, false,
	  -ENOPROTOOPT },
};

static void trans_bind_desc(const struct trans_bind_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(trans_bind, trans_bind_cases, trans_bind_desc);

static void rdsd_trans_for_bind_by_address(struct kunit *test)
{
	const struct trans_bind_case *c = test->param_value;
	const struct rdsd_transport_ops *t;
	int err = 0;

	t = rdsd_trans_for_bind(&init_net, htonl(c->addr), c->forced, &err);
	if (c->err) {
		KUNIT_EXPECT_NULL(test, t);
		KUNIT_EXPECT_EQ(test, err, c->err);
	} else {
		KUNIT_EXPECT_PTR_EQ(test, t, &rdsd_loop_transport);
	}
}

static const struct {
	int type;
	int err;
} trans_type_cases[] = {
	{ -1, -EINVAL },	/* RDS_TRANS_NONE */
	{ RDS_TRANS_COUNT, -EINVAL },
	{ RDSD_TRANS_LOOP, -EINVAL },
	{ RDS_TRANS_IB, 0 },
	{ RDS_TRANS_GAP, -ENOPROTOOPT },
	{ RDS_TRANS_TCP, -ENOPROTOOPT },
	{ 1000, -EINVAL },
};

static void rdsd_trans_type_available_checks_range(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(trans_type_cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    rdsd_trans_type_available(trans_type_cases[i].type),
				    trans_type_cases[i].err, "type %d",
				    trans_type_cases[i].type);
}

static void rdsd_trans_for_conn_same_address_is_loopback(struct kunit *test)
{
	/* any transport talks to its own address over loopback */
	const struct rdsd_transport_ops *bound = (void *)test;

	KUNIT_EXPECT_PTR_EQ(test,
			    rdsd_trans_for_conn(&init_net, bound, htonl(0xcb007101),
						htonl(0xcb007101)),
			    &rdsd_loop_transport);
	KUNIT_EXPECT_PTR_EQ(test,
			    rdsd_trans_for_conn(&init_net, bound, htonl(0xcb007101),
						htonl(0x7f000001)),
			    &rdsd_loop_transport);
	KUNIT_EXPECT_PTR_EQ(test,
			    rdsd_trans_for_conn(&init_net, bound, htonl(0xcb007101),
						htonl(0xcb007102)),
			    bound);
}

static struct kunit_case rdsd_transport_cases[] = {
	KUNIT_CASE_PARAM(rdsd_trans_for_bind_by_address, trans_bind_gen_params),
	KUNIT_CASE(rdsd_trans_type_available_checks_range),
	KUNIT_CASE(rdsd_trans_for_conn_same_address_is_loopback),
	{}
};

static struct kunit_suite rdsd_transport_suite = {
	.name = "rds_doca_transport",
	.test_cases = rdsd_transport_cases,
};

/* ---- rds_doca_message: payload layout and copies ---- */

static const size_t msg_sizes[] = {
	0, 1, 64, 1024, 1025, 4095, 4096, 4097, 65536, 1 << 20,
};

static void msg_size_desc(const size_t *size, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%zu bytes", *size);
}

KUNIT_ARRAY_PARAM(msg_size, msg_sizes, msg_size_desc);

static void rdsd_msg_copy_round_trip(struct kunit *test)
{
	size_t len = *(const size_t *)test->param_value;
	struct kvec in_vec, out_vec;
	struct iov_iter it;
	struct rdsd_msg *msg;
	u8 *in, *out;
	size_t i, total = 0;

	/* Arrange */
	in = kunit_kmalloc(test, len + 1, GFP_KERNEL);
	out = kunit_kzalloc(test, len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (i = 0; i < len; i++)
		in[i] = (u8)(i * 7 + 3);
	msg = rdsd_msg_alloc(len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msg);

	/* Act */
	in_vec.iov_base = in;
	in_vec.iov_len = len;
	iov_iter_kvec(&it, ITER_SOURCE, &in_vec, 1, len);
	KUNIT_EXPECT_EQ(test, rdsd_msg_copy_from_iter(NULL, msg, &it), 0);
	out_vec.iov_base = out;
	out_vec.iov_len = len;
	iov_iter_kvec(&it, ITER_DEST, &out_vec, 1, len);
	KUNIT_EXPECT_EQ(test, rdsd_msg_copy_to_iter(NULL, msg, &it, len),
			(int)len);

	/* Assert */
	KUNIT_EXPECT_EQ(test, msg->len, (u32)len);
	for (i = 0; i < msg->nents; i++)
		total += msg->sg[i].length;
	KUNIT_EXPECT_EQ(test, total, len);
	KUNIT_EXPECT_EQ(test, memcmp(in, out, len), 0);
	rdsd_msg_put(msg);
}

static void rdsd_msg_copy_to_iter_truncates(struct kunit *test)
{
	struct rdsd_msg *msg = rdsd_msg_alloc(8192, GFP_KERNEL);
	struct kvec vec;
	struct iov_iter it;
	u8 *out;

	KUNIT_ASSERT_NOT_NULL(test, msg);
	out = kunit_kzalloc(test, 8192, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	vec.iov_base = out;
	vec.iov_len = 100;
	iov_iter_kvec(&it, ITER_DEST, &vec, 1, 100);
	KUNIT_EXPECT_EQ(test, rdsd_msg_copy_to_iter(NULL, msg, &it, 100), 100);
	KUNIT_EXPECT_EQ(test, iov_iter_count(&it), (size_t)0);
	rdsd_msg_put(msg);
}

static void rdsd_msg_copy_from_short_iter_faults(struct kunit *test)
{
	struct rdsd_msg *msg = rdsd_msg_alloc(4096, GFP_KERNEL);
	struct kvec vec;
	struct iov_iter it;
	u8 *in;

	KUNIT_ASSERT_NOT_NULL(test, msg);
	in = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	vec.iov_base = in;
	vec.iov_len = 100;
	iov_iter_kvec(&it, ITER_SOURCE, &vec, 1, 100);
	KUNIT_EXPECT_EQ(test, rdsd_msg_copy_from_iter(NULL, msg, &it), -EFAULT);
	rdsd_msg_put(msg);
}

static struct kunit_case rdsd_message_cases[] = {
	KUNIT_CASE_PARAM(rdsd_msg_copy_round_trip, msg_size_gen_params),
	KUNIT_CASE(rdsd_msg_copy_to_iter_truncates),
	KUNIT_CASE(rdsd_msg_copy_from_short_iter_faults),
	{}
};

static struct kunit_suite rdsd_message_suite = {
	.name = "rds_doca_message",
	.test_cases = rdsd_message_cases,
};

/* ---- rds_doca_bind: port allocation, through real kernel sockets ---- */

static struct socket *test_socket(struct kunit *test)
{
	struct socket *sock;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, rdsd_family,
					       SOCK_SEQPACKET, 0, &sock), 0);
	return sock;
}

static int test_bind(struct socket *sock, __be32 addr, u16 port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = addr,
		.sin_port = htons(port),
	};

	return kernel_bind(sock, (struct sockaddr *)&sin, sizeof(sin));
}

static u16 bound_port(struct kunit *test, struct socket *sock)
{
	struct sockaddr_in sin = { };

	KUNIT_EXPECT_EQ(test, kernel_getsockname(sock, (struct sockaddr *)&sin),
			(int)sizeof(sin));
	return ntohs(sin.sin_port);
}

static void rdsd_bind_port_zero_picks_free_port(struct kunit *test)
{
	struct socket *a = test_socket(test), *b = test_socket(test);
	u16 pa, pb;

	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR(20), 0), 0);
	KUNIT_EXPECT_EQ(test, test_bind(b, TEST_ADDR(20), 0), 0);
	pa = bound_port(test, a);
	pb = bound_port(test, b);
	KUNIT_EXPECT_GT(test, pa, RDSD_PROBE_PORT);
	KUNIT_EXPECT_GT(test, pb, RDSD_PROBE_PORT);
	KUNIT_EXPECT_NE(test, pa, pb);
	sock_release(a);
	sock_release(b);
}

static void rdsd_bind_taken_port_is_in_use(struct kunit *test)
{
	struct socket *a = test_socket(test), *b = test_socket(test);

	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR(21), 5000), 0);
	KUNIT_EXPECT_EQ(test, test_bind(b, TEST_ADDR(21), 5000), -EADDRINUSE);
	/* same port, other address: free */
	KUNIT_EXPECT_EQ(test, test_bind(b, TEST_ADDR(22), 5000), 0);
	sock_release(a);
	sock_release(b);
}

static void rdsd_bind_release_frees_port(struct kunit *test)
{
	struct socket *a = test_socket(test), *b;

	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR(23), 6000), 0);
	sock_release(a);
	b = test_socket(test);
	KUNIT_EXPECT_EQ(test, test_bind(b, TEST_ADDR(23), 6000), 0);
	sock_release(b);
}

static void rdsd_bind_probe_port_is_reserved(struct kunit *test)
{
	struct socket *a = test_socket(test);

	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR(24), RDSD_PROBE_PORT),
			-EINVAL);
	sock_release(a);
}

static void rdsd_bind_twice_is_invalid(struct kunit *test)
{
	struct socket *a = test_socket(test);

	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR(25), 0), 0);
	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR(25), 0), -EINVAL);
	sock_release(a);
}

static void rdsd_bind_many_distinct_ports(struct kunit *test)
{
	enum { N = 300 };
	struct socket **socks;
	unsigned long *seen;
	int i;

	socks = kunit_kcalloc(test, N, sizeof(*socks), GFP_KERNEL);
	seen = kunit_kzalloc(test, BITS_TO_LONGS(RDSD_NR_PORTS) * sizeof(long),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, socks);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < N; i++) {
		u16 port;

		socks[i] = test_socket(test);
		KUNIT_EXPECT_EQ(test, test_bind(socks[i], TEST_ADDR(26), 0), 0);
		port = bound_port(test, socks[i]);
		KUNIT_EXPECT_FALSE(test, test_and_set_bit(port, seen));
	}
	for (i = 0; i < N; i++)
		sock_release(socks[i]);
}

static void rdsd_send_recv_kernel_sockets(struct kunit *test)
{
	struct socket *a = test_socket(test), *b = test_socket(test);
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct msghdr m = { };
	char buf[16] = "kunit datagram";
	char got[32] = { };
	struct kvec vec;

	KUNIT_ASSERT_EQ(test, test_bind(a, TEST_ADDR(27), 0), 0);
	KUNIT_ASSERT_EQ(test, test_bind(b, TEST_ADDR(27), 0), 0);
	dst.sin_addr.s_addr = TEST_ADDR(27);
	dst.sin_port = htons(bound_port(test, b));

	m.msg_name = &dst;
	m.msg_namelen = sizeof(dst);
	vec.iov_base = buf;
	vec.iov_len = sizeof(buf);
	KUNIT_EXPECT_EQ(test, kernel_sendmsg(a, &m, &vec, 1, sizeof(buf)),
			(int)sizeof(buf));

	memset(&m, 0, sizeof(m));
	vec.iov_base = got;
	vec.iov_len = sizeof(got);
	KUNIT_EXPECT_EQ(test, kernel_recvmsg(b, &m, &vec, 1, sizeof(got),
					     MSG_DONTWAIT), (int)sizeof(buf));
	KUNIT_EXPECT_STREQ(test, got, "kunit datagram");
	sock_release(a);
	sock_release(b);
}

static struct kunit_case rdsd_bind_cases[] = {
	KUNIT_CASE(rdsd_bind_port_zero_picks_free_port),
	KUNIT_CASE(rdsd_bind_taken_port_is_in_use),
	KUNIT_CASE(rdsd_bind_release_frees_port),
	KUNIT_CASE(rdsd_bind_probe_port_is_reserved),
	KUNIT_CASE(rdsd_bind_twice_is_invalid),
	KUNIT_CASE(rdsd_bind_many_distinct_ports),
	KUNIT_CASE(rdsd_send_recv_kernel_sockets),
	{}
};

static struct kunit_suite rdsd_bind_suite = {
	.name = "rds_doca_bind",
	.test_cases = rdsd_bind_cases,
};

/* ---- rds_doca_wire: header encoding and validation ---- */

/* A valid DATA fragment: bytes 100..1099 of a 3000-byte message. */
static void good_data(struct rdsd_wire_info *i)
{
	memset(i, 0, sizeof(*i));
	i->type = RDSD_WIRE_DATA;
	i->flags = RDSD_WIRE_F_ACK_VALID;
	i->seq = 0x0102030405060708ULL;
	i->ack = 42;
	i->len = 3000;
	i->frag_off = 100;
	i->frag_len = 1000;
	i->sport = htons(4000);
	i->dport = htons(5000);
	i->credits = 7;
}

static void rdsd_wire_encode_is_big_endian(struct kunit *test)
{
	struct rdsd_wire_hdr hdr;
	struct rdsd_wire_info i;
	const u8 *b = (const u8 *)&hdr;

	good_data(&i);
	memset(&hdr, 0xaa, sizeof(hdr));
	rdsd_wire_encode(&hdr, &i);
	KUNIT_EXPECT_EQ(test, b[0], (u8)'R');
	KUNIT_EXPECT_EQ(test, b[3], (u8)'D');
	KUNIT_EXPECT_EQ(test, b[4], (u8)RDSD_WIRE_VERSION);
	KUNIT_EXPECT_EQ(test, b[8], (u8)0x01);	/* seq, most significant */
	KUNIT_EXPECT_EQ(test, b[15], (u8)0x08);
	KUNIT_EXPECT_NULL(test, memchr_inv(hdr.reserved, 0,
					   sizeof(hdr.reserved)));
}

static void rdsd_wire_round_trip(struct kunit *test)
{
	struct rdsd_wire_info in, out;
	struct rdsd_wire_hdr hdr;

	good_data(&in);
	rdsd_wire_encode(&hdr, &in);
	KUNIT_ASSERT_EQ(test, rdsd_wire_validate(&hdr, sizeof(hdr) + 1000, &out), 0);
	KUNIT_EXPECT_EQ(test, out.seq, in.seq);
	KUNIT_EXPECT_EQ(test, out.ack, in.ack);
	KUNIT_EXPECT_EQ(test, out.len, in.len);
	KUNIT_EXPECT_EQ(test, out.frag_off, in.frag_off);
	KUNIT_EXPECT_EQ(test, out.frag_len, in.frag_len);
	KUNIT_EXPECT_EQ(test, ntohs(out.sport), ntohs(in.sport));
	KUNIT_EXPECT_EQ(test, ntohs(out.dport), ntohs(in.dport));
	KUNIT_EXPECT_EQ(test, out.credits, in.credits);
	KUNIT_EXPECT_EQ(test, out.flags, in.flags);

	/* and the RDMA fields */
	in.flags |= RDSD_WIRE_F_RDMA_DEST | RDSD_WIRE_F_RDMA_USED;
	in.rdma_cookie = 0x0000012300abcdefULL;
	in.rdma_key = 0xfedcba98;
	rdsd_wire_encode(&hdr, &in);
	KUNIT_ASSERT_EQ(test, rdsd_wire_validate(&hdr, sizeof(hdr) + 1000, &out), 0);
	KUNIT_EXPECT_EQ(test, out.rdma_cookie, in.rdma_cookie);
	KUNIT_EXPECT_EQ(test, out.rdma_key, in.rdma_key);
	KUNIT_EXPECT_EQ(test, out.flags, in.flags);
}

struct wire_case {
	const char	*name;
	void		(*mutate)(struct rdsd_wire_hdr *hdr, size_t *received);
	int		expected;
};

#define WIRE_MUTATOR(fn, body) \
	static void fn(struct rdsd_wire_hdr *h, size_t *rcvd) { body; }

WIRE_MUTATOR(w_ok, (void)h)
WIRE_MUTATOR(w_magic, h->magic ^= htonl(1))
WIRE_MUTATOR(w_version, h->version = RDSD_WIRE_VERSION + 1)
WIRE_MUTATOR(w_type0, h->type = 0)
WIRE_MUTATOR(w_type_big, h->type = __RDSD_WIRE_TYPE_MAX)
WIRE_MUTATOR(w_flags, h->flags |= htons(0x8000))
WIRE_MUTATOR(w_reserved0, h->reserved[0] = 1)
WIRE_MUTATOR(w_reserved5, h->reserved[5] = 0x80)
WIRE_MUTATOR(w_short, *rcvd = sizeof(*h) - 1)
WIRE_MUTATOR(w_fewer_bytes, *rcvd -= 1)
WIRE_MUTATOR(w_more_bytes, *rcvd += 1)
WIRE_MUTATOR(w_len_big, h->len = htonl(RDSD_MAX_MSG_SIZE + 1))
WIRE_MUTATOR(w_off_past_len, h->frag_off = htonl(2500))
WIRE_MUTATOR(w_off_overflow, h->frag_off = htonl(0xfffffff0))
WIRE_MUTATOR(w_last_flag_early, h->flags |= htons(RDSD_WIRE_F_LAST_FRAG))
WIRE_MUTATOR(w_ack_without_flag, h->flags &= ~htons(RDSD_WIRE_F_ACK_VALID))
WIRE_MUTATOR(w_seq_max, h->seq = cpu_to_be64(U64_MAX))
WIRE_MUTATOR(w_seq_below_max, h->seq = cpu_to_be64(U64_MAX - 1))
WIRE_MUTATOR(w_last_frag_ok,
	     h->frag_off = htonl(2000);
	     h->flags |= htons(RDSD_WIRE_F_LAST_FRAG))
WIRE_MUTATOR(w_last_frag_unflagged, h->frag_off = htonl(2000))
WIRE_MUTATOR(w_ack_with_payload, h->type = RDSD_WIRE_ACK)
WIRE_MUTATOR(w_ack_ok,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h))
WIRE_MUTATOR(w_ack_with_seq,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; *rcvd = sizeof(*h))
WIRE_MUTATOR(w_ping_ok,
	     h->type = RDSD_WIRE_PING; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h))
WIRE_MUTATOR(w_cong_ok,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(RDSD_NR_PORTS / 8);
	     h->frag_off = 0; h->frag_len = h->len; h->sport = 0; h->dport = 0;
	     *rcvd = sizeof(*h) + RDSD_NR_PORTS / 8)
WIRE_MUTATOR(w_cong_short_map,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(1000); h->frag_off = 0;
	     h->frag_len = h->len; h->sport = 0; h->dport = 0;
	     *rcvd = sizeof(*h) + 1000)
WIRE_MUTATOR(w_cong_with_ports,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(RDSD_NR_PORTS / 8);
	     h->frag_off = 0; h->frag_len = h->len;
	     *rcvd = sizeof(*h) + RDSD_NR_PORTS / 8)
WIRE_MUTATOR(w_more_whole_ok,
	     h->len = htonl(1000); h->frag_off = 0;
	     h->flags |= htons(RDSD_WIRE_F_LAST_FRAG | RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_more_first_frag,
	     h->frag_off = 0; h->flags |= htons(RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_more_later_frag, h->flags |= htons(RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_more_on_ack,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h);
	     h->flags |= htons(RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_more_on_cong,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(RDSD_NR_PORTS / 8);
	     h->frag_off = 0; h->frag_len = h->len; h->sport = 0; h->dport = 0;
	     *rcvd = sizeof(*h) + RDSD_NR_PORTS / 8;
	     h->flags |= htons(RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_reserved2, h->reserved2 = htonl(1))
WIRE_MUTATOR(w_dest_ok,
	     h->flags |= htons(RDSD_WIRE_F_RDMA_DEST);
	     h->rdma_cookie = cpu_to_be64(0x1000000abcULL))
WIRE_MUTATOR(w_dest_no_cookie, h->flags |= htons(RDSD_WIRE_F_RDMA_DEST))
WIRE_MUTATOR(w_cookie_no_flag, h->rdma_cookie = cpu_to_be64(5))
WIRE_MUTATOR(w_used_ok,
	     h->flags |= htons(RDSD_WIRE_F_RDMA_USED);
	     h->rdma_key = htonl(0x1234))
WIRE_MUTATOR(w_used_no_key, h->flags |= htons(RDSD_WIRE_F_RDMA_USED))
WIRE_MUTATOR(w_key_no_flag, h->rdma_key = htonl(7))
WIRE_MUTATOR(w_silent_ok, h->flags |= htons(RDSD_WIRE_F_SILENT))
WIRE_MUTATOR(w_silent_on_cong,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(RDSD_NR_PORTS / 8);
	     h->frag_off = 0; h->frag_len = h->len; h->sport = 0; h->dport = 0;
	     *rcvd = sizeof(*h) + RDSD_NR_PORTS / 8;
	     h->flags |= htons(RDSD_WIRE_F_SILENT))
WIRE_MUTATOR(w_used_on_ack,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h);
	     h->flags |= htons(RDSD_WIRE_F_RDMA_USED);
	     h->rdma_key = htonl(0x1234))

/* region messages: no payload, a cookie, ports as the type wants */
static void mr_base(struct rdsd_wire_hdr *h, size_t *rcvd, u8 type)
{
	h->type = type;
	h->len = 0;
	h->frag_off = 0;
	h->frag_len = 0;
	h->seq = 0;
	*rcvd = sizeof(*h);
	h->rdma_cookie = cpu_to_be64(0x123456780abcULL);
	if (type == RDSD_WIRE_MR_ANS) {
		/* a grant by default */
		h->rdma_key = htonl(0x4321);
		h->len = htonl(4096);
	}
	if (type == RDSD_WIRE_MR_REVOKE) {
		h->sport = 0;
		h->dport = 0;
	}
}

/* a refusal: no key, length or port */
static void mr_deny(struct rdsd_wire_hdr *h, size_t *rcvd)
{
	mr_base(h, rcvd, RDSD_WIRE_MR_ANS);
	h->rdma_key = 0;
	h->len = 0;
	h->sport = 0;
}

#define MR_BASE(t)	mr_base(h, rcvd, (t))
#define MR_GRANT	mr_base(h, rcvd, RDSD_WIRE_MR_ANS)
#define MR_DENY		mr_deny(h, rcvd)
#define MR_REVOKE	mr_base(h, rcvd, RDSD_WIRE_MR_REVOKE)

WIRE_MUTATOR(w_mr_req_ok, MR_BASE(RDSD_WIRE_MR_REQ))
WIRE_MUTATOR(w_mr_req_no_cookie,
	     MR_BASE(RDSD_WIRE_MR_REQ); h->rdma_cookie = 0)
WIRE_MUTATOR(w_mr_req_key, MR_BASE(RDSD_WIRE_MR_REQ); h->rdma_key = htonl(1))
WIRE_MUTATOR(w_mr_req_no_sport, MR_BASE(RDSD_WIRE_MR_REQ); h->sport = 0)
WIRE_MUTATOR(w_mr_req_no_dport, MR_BASE(RDSD_WIRE_MR_REQ); h->dport = 0)
WIRE_MUTATOR(w_mr_req_len, MR_BASE(RDSD_WIRE_MR_REQ); h->len = htonl(8))
WIRE_MUTATOR(w_mr_req_payload,
	     MR_BASE(RDSD_WIRE_MR_REQ); h->frag_len = htonl(8); *rcvd += 8)
WIRE_MUTATOR(w_mr_req_seq, MR_BASE(RDSD_WIRE_MR_REQ); h->seq = cpu_to_be64(3))
WIRE_MUTATOR(w_mr_req_packed,
	     MR_BASE(RDSD_WIRE_MR_REQ); h->flags |= htons(RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_mr_req_ro,
	     MR_BASE(RDSD_WIRE_MR_REQ); h->flags |= htons(RDSD_WIRE_F_MR_RO))
WIRE_MUTATOR(w_mr_grant_ok,
	     MR_GRANT; h->flags |= htons(RDSD_WIRE_F_MR_RO |
					 RDSD_WIRE_F_MR_ONCE))
WIRE_MUTATOR(w_mr_grant_any_port, MR_GRANT; h->sport = 0)
WIRE_MUTATOR(w_mr_grant_no_len, MR_GRANT; h->len = 0)
WIRE_MUTATOR(w_mr_grant_huge, MR_GRANT; h->len = htonl((1 << 20) + 1))
WIRE_MUTATOR(w_mr_grant_max, MR_GRANT; h->len = htonl(1 << 20))
WIRE_MUTATOR(w_mr_grant_no_cookie, MR_GRANT; h->rdma_cookie = 0)
WIRE_MUTATOR(w_mr_deny_ok, MR_DENY)
WIRE_MUTATOR(w_mr_deny_len, MR_DENY; h->len = htonl(5))
WIRE_MUTATOR(w_mr_deny_port, MR_DENY; h->sport = htons(7))
WIRE_MUTATOR(w_mr_deny_ro, MR_DENY; h->flags |= htons(RDSD_WIRE_F_MR_RO))
WIRE_MUTATOR(w_mr_revoke_ok, MR_REVOKE)
WIRE_MUTATOR(w_mr_revoke_all, MR_REVOKE; h->rdma_cookie = 0)
WIRE_MUTATOR(w_mr_revoke_port, MR_REVOKE; h->dport = htons(5))
WIRE_MUTATOR(w_mr_revoke_key, MR_REVOKE; h->rdma_key = htonl(5))
WIRE_MUTATOR(w_mr_ro_on_data, h->flags |= htons(RDSD_WIRE_F_MR_RO))
WIRE_MUTATOR(w_mr_once_on_ack,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h);
	     h->flags |= htons(RDSD_WIRE_F_MR_ONCE))
WIRE_MUTATOR(w_cookie_on_ack,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h);
	     h->rdma_cookie = cpu_to_be64(5))
WIRE_MUTATOR(w_key_on_cong,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(RDSD_NR_PORTS / 8);
	     h->frag_off = 0; h->frag_len = h->len; h->sport = 0; h->dport = 0;
	     *rcvd = sizeof(*h) + RDSD_NR_PORTS / 8; h->rdma_key = htonl(9))

static const struct wire_case wire_cases[] = {
	{ "region request", w_mr_req_ok, 0 },
	{ "region request without a cookie", w_mr_req_no_cookie, -EPROTO },
	{ "region request with a key", w_mr_req_key, -EPROTO },
	{ "region request from port 0", w_mr_req_no_sport, -EPROTO },
	{ "region request to port 0", w_mr_req_no_dport, -EPROTO },
	{ "region request with a length", w_mr_req_len, -EPROTO },
	{ "region request with payload", w_mr_req_payload, -EBADMSG },
	{ "region request with a sequence number", w_mr_req_seq, -EPROTO },
	{ "packed region request", w_mr_req_packed, -EPROTO },
	{ "region request with a grant flag", w_mr_req_ro, -EPROTO },
	{ "grant", w_mr_grant_ok, 0 },
	{ "grant for any port", w_mr_grant_any_port, 0 },
	{ "grant of an empty region", w_mr_grant_no_len, -EPROTO },
	{ "grant over 1 MiB", w_mr_grant_huge, -EPROTO },
	{ "grant of 1 MiB", w_mr_grant_max, 0 },
	{ "grant without a cookie", w_mr_grant_no_cookie, -EPROTO },
	{ "refusal", w_mr_deny_ok, 0 },
	{ "refusal with a length", w_mr_deny_len, -EPROTO },
	{ "refusal naming a port", w_mr_deny_port, -EPROTO },
	{ "refusal with a grant flag", w_mr_deny_ro, -EPROTO },
	{ "revocation", w_mr_revoke_ok, 0 },
	{ "revocation of everything", w_mr_revoke_all, 0 },
	{ "revocation naming a port", w_mr_revoke_port, -EPROTO },
	{ "revocation with a key", w_mr_revoke_key, -EPROTO },
	{ "grant flag on data", w_mr_ro_on_data, -EPROTO },
	{ "grant flag on an ack", w_mr_once_on_ack, -EPROTO },
	{ "cookie on an ack", w_cookie_on_ack, -EPROTO },
	{ "key on a congestion map", w_key_on_cong, -EPROTO },
	{ "valid data fragment", w_ok, 0 },
	{ "bad magic", w_magic, -EPROTO },
	{ "unknown version", w_version, -EPROTO },
	{ "type 0", w_type0, -EPROTO },
	{ "type past the last", w_type_big, -EPROTO },
	{ "unknown flag", w_flags, -EPROTO },
	{ "reserved byte 0 set", w_reserved0, -EPROTO },
	{ "reserved byte 5 set", w_reserved5, -EPROTO },
	{ "shorter than a header", w_short, -EBADMSG },
	{ "fewer payload bytes than frag_len", w_fewer_bytes, -EBADMSG },
	{ "more payload bytes than frag_len", w_more_bytes, -EBADMSG },
	{ "message over 1 MiB", w_len_big, -EBADMSG },
	{ "fragment past the message", w_off_past_len, -EBADMSG },
	{ "fragment offset overflow", w_off_overflow, -EBADMSG },
	{ "last-fragment flag too early", w_last_flag_early, -EBADMSG },
	{ "ack without its flag", w_ack_without_flag, -EPROTO },
	{ "data numbered U64_MAX", w_seq_max, -EPROTO },
	{ "data numbered U64_MAX - 1", w_seq_below_max, 0 },
	{ "last fragment", w_last_frag_ok, 0 },
	{ "last fragment without its flag", w_last_frag_unflagged, -EBADMSG },
	{ "ack with payload", w_ack_with_payload, -EBADMSG },
	{ "bare ack", w_ack_ok, 0 },
	{ "ack with a sequence number", w_ack_with_seq, -EPROTO },
	{ "ping", w_ping_ok, 0 },
	{ "congestion map", w_cong_ok, 0 },
	{ "congestion map of the wrong size", w_cong_short_map, -EBADMSG },
	{ "congestion map with ports", w_cong_with_ports, -EPROTO },
	{ "packed whole message", w_more_whole_ok, 0 },
	{ "packed first fragment", w_more_first_frag, -EPROTO },
	{ "packed later fragment", w_more_later_frag, -EPROTO },
	{ "packed ack", w_more_on_ack, -EPROTO },
	{ "packed congestion map", w_more_on_cong, -EPROTO },
	{ "second reserved word set", w_reserved2, -EPROTO },
	{ "RDMA_DEST cookie", w_dest_ok, 0 },
	{ "RDMA_DEST flag without a cookie", w_dest_no_cookie, -EPROTO },
	{ "cookie without the RDMA_DEST flag", w_cookie_no_flag, -EPROTO },
	{ "used region key", w_used_ok, 0 },
	{ "used flag without a key", w_used_no_key, -EPROTO },
	{ "key without the used flag", w_key_no_flag, -EPROTO },
	{ "used region on an ack", w_used_on_ack, -EPROTO },
	{ "silent data", w_silent_ok, 0 },
	{ "silent congestion map", w_silent_on_cong, -EPROTO },
};

static void wire_case_desc(const struct wire_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(wire, wire_cases, wire_case_desc);

static void rdsd_wire_validate_rejects_malformed(struct kunit *test)
{
	const struct wire_case *c = test->param_value;
	struct rdsd_wire_info i, out;
	struct rdsd_wire_hdr hdr;
	size_t received;

	/* Arrange: a valid header, then one field broken */
	good_data(&i);
	rdsd_wire_encode(&hdr, &i);
	received = sizeof(hdr) + i.frag_len;
	c->mutate(&hdr, &received);

	/* Act + Assert */
	KUNIT_EXPECT_EQ(test, rdsd_wire_validate(&hdr, received, &out),
			c->expected);
}

static struct kunit_case rdsd_wire_cases[] = {
	KUNIT_CASE(rdsd_wire_encode_is_big_endian),
	KUNIT_CASE(rdsd_wire_round_trip),
	KUNIT_CASE_PARAM(rdsd_wire_validate_rejects_malformed, wire_gen_params),
	{}
};

static struct kunit_suite rdsd_wire_suite = {
	.name = "rds_doca_wire",
	.test_cases = rdsd_wire_cases,
};

/* ---- rds_doca_cookie: RDMA cookie layout ---- */

static const struct {
	u32 key;
	u32 offset;
	u64 cookie;
} cookie_cases[] = {
	{ 0, 0, 0 },
	{ 0x12345678, 0, 0x12345678ULL },
	{ 0, 0x9abcdef0, 0x9abcdef000000000ULL },
	{ 0xffffffff, 0xffffffff, U64_MAX },
	{ 0xdeadbeef, 4096, 0x00001000deadbeefULL },
};

static void rdsd_cookie_layout_matches_linux(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cookie_cases); i++) {
		u64 c = rdsd_cookie_make(cookie_cases[i].key,
					 cookie_cases[i].offset);

		KUNIT_EXPECT_EQ_MSG(test, c, cookie_cases[i].cookie, "case %d", i);
		KUNIT_EXPECT_EQ(test, rdsd_cookie_key(c), cookie_cases[i].key);
		KUNIT_EXPECT_EQ(test, rdsd_cookie_offset(c),
				cookie_cases[i].offset);
	}
}

static void rdsd_cookie_fields_are_independent(struct kunit *test)
{
	u64 c = rdsd_cookie_make(0xffffffff, 0);

	KUNIT_EXPECT_EQ(test, rdsd_cookie_offset(c), 0U);
	c = rdsd_cookie_make(0, 0xffffffff);
	KUNIT_EXPECT_EQ(test, rdsd_cookie_key(c), 0U);
}

#define MR_OWNER_ADDR	TEST_ADDR(1)
#define MR_OWNER_PORT	htons(5000)

static void rdsd_cookie_off_make_keeps_page_offset(struct kunit *test)
{
	u32 first = rdsd_cookie_off_make(123), o;
	bool differ = false;
	int i;

	KUNIT_EXPECT_EQ(test, first & (PAGE_SIZE - 1), 123U);
	for (i = 0; i < 64; i++) {
		o = rdsd_cookie_off_make(123);
		KUNIT_EXPECT_EQ(test, o & (PAGE_SIZE - 1), 123U);
		differ |= o != first;
	}
	/* 20 random bits: 64 draws equal to the first has odds 2^-1280 */
	KUNIT_EXPECT_TRUE(test, differ);
}

/*
 * A region of @len bytes starting @pg_off into its first page, owned by
 * the socket at MR_OWNER_ADDR:MR_OWNER_PORT.
 */
static void mr_init(struct rdsd_mr *mr, u32 pg_off, u32 cookie_off, u32 len)
{
	memset(mr, 0, sizeof(*mr));
	mr->pg_off = pg_off;
	mr->cookie_off = cookie_off;
	mr->len = len;
	mr->owner_addr = MR_OWNER_ADDR;
	mr->owner_port = MR_OWNER_PORT;
}

/* rdsd_mr_check() for an operation from @saddr:@sport to the owner */
static int mr_check(const struct rdsd_mr *mr, __be32 saddr, __be16 sport,
		    u64 raddr, u32 bytes, bool write, u64 *off)
{
	const struct rdsd_mr_peer peer = {
		.saddr = saddr, .sport = sport,
		.daddr = MR_OWNER_ADDR, .dport = MR_OWNER_PORT,
	};

	return rdsd_mr_check(mr, &peer, raddr, bytes, write, off);
}

static void rdsd_mr_check_only_through_owner(struct kunit *test)
{
	struct rdsd_mr_peer peer = {
		.saddr = TEST_ADDR(2), .sport = htons(4000),
		.daddr = MR_OWNER_ADDR, .dport = MR_OWNER_PORT,
	};
	struct rdsd_mr mr;
	u64 off = 0;

	mr_init(&mr, 0, 0, 4096);
	KUNIT_EXPECT_EQ(test, rdsd_mr_check(&mr, &peer, 0, 8, true, &off), 0);
	/* sent to another port of the owner's address */
	peer.dport = htons(5001);
	KUNIT_EXPECT_EQ(test, rdsd_mr_check(&mr, &peer, 0, 8, true, &off),
			-EACCES);
	/* sent to the owner's port on another address */
	peer.dport = MR_OWNER_PORT;
	peer.daddr = TEST_ADDR(3);
	KUNIT_EXPECT_EQ(test, rdsd_mr_check(&mr, &peer, 0, 8, false, &off),
			-EACCES);
	/* sent by the owner to itself: allowed like any peer */
	peer.daddr = MR_OWNER_ADDR;
	peer.saddr = MR_OWNER_ADDR;
	peer.sport = MR_OWNER_PORT;
	KUNIT_EXPECT_EQ(test, rdsd_mr_check(&mr, &peer, 0, 8, false, &off), 0);
}

static void rdsd_mr_check_keeps_peers_inside(struct kunit *test)
{
	__be32 peer = TEST_ADDR(2), other = TEST_ADDR(3);
	__be16 port = htons(4000);
	struct rdsd_mr mr;
	u64 off = 0;

	/* 1000 bytes from offset 100 of the first page, cookie offset 100 */
	mr_init(&mr, 100, 100, 1000);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, port, 100, 1000, true,
					    &off), 0);
	KUNIT_EXPECT_EQ(test, off, 100ULL);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, port, 1099, 1, false,
					    &off), 0);
	KUNIT_EXPECT_EQ(test, off, 1099ULL);
	/* before the region, past its end, overflowing, empty */
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, port, 99, 1, false,
					    &off), -EACCES);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, port, 1100, 1, false,
					    &off), -EACCES);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, port, 100, 1001, false,
					    &off), -EACCES);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, port, U64_MAX - 1, 8,
					    false, &off), -EACCES);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, port, 100, 0, false,
					    &off), -EACCES);

	/* read only */
	mr.flags = RDSD_MR_READ_ONLY;
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, port, 100, 8, true,
					    &off), -EACCES);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, port, 100, 8, false,
					    &off), 0);

	/* for one peer, any port; then one port */
	mr.flags = 0;
	mr.dest_addr = peer;
	KUNIT_EXPECT_EQ(test, mr_check(&mr, other, port, 100, 8, false,
					    &off), -EACCES);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, htons(1), 100, 8,
					    false, &off), 0);
	mr.dest_port = port;
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, htons(1), 100, 8,
					    false, &off), -EACCES);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, port, 100, 8, false,
					    &off), 0);

	/* dead */
	mr.dead = true;
	KUNIT_EXPECT_EQ(test, mr_check(&mr, peer, port, 100, 8, false,
					    &off), -EACCES);
}

static void rdsd_mr_check_zero_based_list(struct kunit *test)
{
	struct rdsd_mr mr;
	u64 off = 0;

	/* an MR list whose byte 0 is 512 bytes into its first page */
	mr_init(&mr, 512, 0, 3 * 4096);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, 0, 0, 0, 3 * 4096, false,
					    &off), 0);
	KUNIT_EXPECT_EQ(test, off, 512ULL);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, 0, 0, 3 * 4096, 1, false,
					    &off), -EACCES);
}

struct atomic_case {
	const char	*name;
	int		kind;
	u64		args[4];
	u64		old;
	bool		writes;
	u64		new;
};

static const struct atomic_case atomic_cases[] = {
	{ "fadd", RDSD_OP_FADD, { 5 }, 10, true, 15 },
	{ "fadd wraps", RDSD_OP_FADD, { 1 }, U64_MAX, true, 0 },
	{ "cswp equal", RDSD_OP_CSWP, { 7, 9 }, 7, true, 9 },
	{ "cswp differs", RDSD_OP_CSWP, { 7, 9 }, 8, false, 0 },
	/* two 32-bit fields: the low one's carry does not reach the high */
	{ "masked fadd, fields", RDSD_OP_MASKED_FADD,
	  { 0x0000000100000001ULL, 0x0000000080000000ULL },
	  0x00000001ffffffffULL, true, 0x0000000200000000ULL },
	{ "masked fadd, no mask", RDSD_OP_MASKED_FADD, { 1, 0 }, 0xffULL,
	  true, 0x100ULL },
	{ "masked fadd, every bit", RDSD_OP_MASKED_FADD, { 0xffULL, U64_MAX },
	  0x0fULL, true, 0xf0ULL },
	{ "masked cswp, masked compare", RDSD_OP_MASKED_CSWP,
	  { 0x12, 0xab00, 0xff, 0xff00 }, 0x3412, true, 0xab12 },
	{ "masked cswp, compare fails", RDSD_OP_MASKED_CSWP,
	  { 0x12, 0xab00, 0xff, 0xff00 }, 0x3413, false, 0 },
	{ "masked cswp, nothing compared", RDSD_OP_MASKED_CSWP,
	  { 0, U64_MAX, 0, 0x0f }, 0xf0, true, 0xff },
};

static void atomic_case_desc(const struct atomic_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(atomic, atomic_cases, atomic_case_desc);

static void rdsd_atomic_apply_computes(struct kunit *test)
{
	const struct atomic_case *c = test->param_value;
	u64 new = 0;

	KUNIT_EXPECT_EQ(test, rdsd_atomic_apply(c->kind, c->args, c->old,
						&new), c->writes);
	if (c->writes)
		KUNIT_EXPECT_EQ(test, new, c->new);
}

static struct kunit_case rdsd_cookie_cases[] = {
	KUNIT_CASE(rdsd_cookie_layout_matches_linux),
	KUNIT_CASE(rdsd_cookie_fields_are_independent),
	KUNIT_CASE(rdsd_cookie_off_make_keeps_page_offset),
	KUNIT_CASE(rdsd_mr_check_keeps_peers_inside),
	KUNIT_CASE(rdsd_mr_check_zero_based_list),
	KUNIT_CASE(rdsd_mr_check_only_through_owner),
	KUNIT_CASE_PARAM(rdsd_atomic_apply_computes, atomic_gen_params),
	{}
};

static struct kunit_suite rdsd_cookie_suite = {
	.name = "rds_doca_cookie",
	.test_cases = rdsd_cookie_cases,
};

kunit_test_suites(&rdsd_cookie_suite, &rdsd_wire_suite, &rdsd_cmsg_suite,
		  &rdsd_seq_suite, &rdsd_cong_suite, &rdsd_transport_suite,
		  &rdsd_message_suite, &rdsd_bind_suite);

MODULE_DESCRIPTION("KUnit suites for rds_doca");
MODULE_LICENSE("GPL");
