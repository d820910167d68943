// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_send (send.c): control message validation, and the
 * acknowledgments that release sent messages.
 */
#include <kunit/test.h>
#include <linux/rds_doca.h>
#include <linux/socket.h>

#include "rdsd.h"
#include "kunit_util.h"
#include "message.h"
#include "mr.h"
#include "send.h"
#include "stats.h"

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
	{ "zcopy cookie", SOL_RDS, RDS_CMSG_ZCOPY_COOKIE, sizeof(u32), 0, 0 },
	{ "zcopy cookie short", SOL_RDS, RDS_CMSG_ZCOPY_COOKIE, 2, 0,
	  -EINVAL },
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

/* Which of @n messages of @charge bytes ask for an ack: a bitmap. */
static u64 ack_reqs(u32 n, u32 charge, u32 sndbuf)
{
	u32 unreq = 0, i;
	u64 asked = 0;

	for (i = 0; i < n && i < 64; i++)
		if (rdsd_send_ack_req(&unreq, charge, sndbuf))
			asked |= BIT_ULL(i);
	return asked;
}

static void rdsd_send_ack_req_quarter_buffer(struct kunit *test)
{
	/* 64 KiB messages, 4 MiB buffer: every 8th asks (512 KiB cap) */
	KUNIT_EXPECT_EQ(test, ack_reqs(32, SZ_64K, SZ_4M), 0x80808080ULL);
	/* 64 KiB messages, 1 MiB buffer: every 4th */
	KUNIT_EXPECT_EQ(test, ack_reqs(16, SZ_64K, SZ_1M), 0x8888ULL);
	/* a default buffer (106 KiB) asks for every 64 KiB message */
	KUNIT_EXPECT_EQ(test, ack_reqs(8, SZ_64K, 106496), 0xffULL);
	/* 1 KiB messages, 64 KiB buffer: every 16th */
	KUNIT_EXPECT_EQ(test, ack_reqs(48, SZ_1K, SZ_64K), 0x800080008000ULL);
}

static void rdsd_send_ack_req_large_message(struct kunit *test)
{
	u32 unreq = SZ_4K;

	/* a message of a quarter buffer or more always asks, and resets */
	KUNIT_EXPECT_TRUE(test, rdsd_send_ack_req(&unreq, SZ_1M, SZ_2M));
	KUNIT_EXPECT_EQ(test, unreq, 0U);
	/* a huge charge does not wrap the count */
	unreq = SZ_256K;
	KUNIT_EXPECT_TRUE(test, rdsd_send_ack_req(&unreq, U32_MAX, SZ_4M));
	KUNIT_EXPECT_FALSE(test, rdsd_send_ack_req(&unreq, SZ_4K, SZ_4M));
	KUNIT_EXPECT_EQ(test, unreq, (u32)SZ_4K);
}

static struct kunit_case rdsd_send_cases[] = {
	KUNIT_CASE_PARAM(rdsd_cmsg_parse_validates, cmsg_gen_params),
	KUNIT_CASE(rdsd_cmsg_parse_empty_is_ok),
	KUNIT_CASE(rdsd_cmsg_parse_second_bad_cmsg_fails),
	KUNIT_CASE(rdsd_cmsg_parse_one_op_per_message),
	KUNIT_CASE(rdsd_send_acked_releases_prefix),
	KUNIT_CASE(rdsd_send_acked_duplicate_ack_is_noop),
	KUNIT_CASE(rdsd_send_acked_old_ack_is_ignored),
	KUNIT_CASE(rdsd_send_acked_highest_sent_completes_all),
	KUNIT_CASE_PARAM(rdsd_send_acked_beyond_next_tx_seq_is_refused,
			 ack_beyond_gen_params),
	KUNIT_CASE(rdsd_send_acked_nothing_handed_out_is_refused),
	KUNIT_CASE(rdsd_send_acked_high_sequence_numbers),
	KUNIT_CASE(rdsd_send_acked_on_empty_list),
	KUNIT_CASE(rdsd_send_ack_req_quarter_buffer),
	KUNIT_CASE(rdsd_send_ack_req_large_message),
	{}
};

static struct kunit_suite rdsd_send_suite = {
	.name = "rds_doca_send",
	.test_cases = rdsd_send_cases,
};

kunit_test_suites(&rdsd_send_suite);
