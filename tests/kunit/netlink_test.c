// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_netlink: the control plane's attribute fill
 * functions and the resumption of socket dumps by id.
 *
 * Messages are built in plain skbs, as a dump would, and read back with
 * nla_find(); dumps run in skbs too small for every socket, so they must
 * resume, while sockets are closed and created between the parts.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/net.h>
#include <linux/rds_doca.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "rdsd.h"
#include "transport.h"
#include "message.h"
#include "netlink.h"
#include "kunit_util.h"

#define NL_ADDR4(n)	htonl(0x7f4e0000 | (n))	/* 127.78.0.n */
#define NL_ADDR(n)	TEST_IN6(NL_ADDR4(n))

/* The attributes of the one message in @skb. */
static struct nlattr *nl_attrs(struct sk_buff *skb, int *len)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)skb->data;

	*len = genlmsg_len(nlmsg_data(nlh));
	return genlmsg_data(nlmsg_data(nlh));
}

/* A message with one genetlink header, ready for a fill function. */
static struct sk_buff *nl_msg(struct kunit *test, size_t size)
{
	struct sk_buff *skb = nlmsg_new(size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_NOT_NULL(test, nlmsg_put(skb, 0, 0, 0,
					      GENL_HDRLEN, 0));
	return skb;
}

static void nl_end(struct sk_buff *skb)
{
	nlmsg_end(skb, (struct nlmsghdr *)skb->data);
}

static u32 attr_u32(struct kunit *test, struct nlattr *head, int len, int type)
{
	struct nlattr *a = nla_find(head, len, type);

	KUNIT_ASSERT_NOT_NULL_MSG(test, a, "attribute %d missing", type);
	return nla_get_u32(a);
}

static struct rdsd_conn *nl_conn(struct kunit *test)
{
	struct rdsd_conn *conn = kunit_kzalloc(test, sizeof(*conn), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, conn);
	conn->rn = rdsd_net(&init_net);
	conn->trans = &rdsd_loop_transport;
	spin_lock_init(&conn->lock);
	INIT_LIST_HEAD(&conn->send_queue);
	INIT_LIST_HEAD(&conn->retrans);
	conn->id = 42;
	conn->laddr = NL_ADDR(1);
	conn->faddr = NL_ADDR(2);
	conn->state = RDSD_CONN_CONNECTING;
	conn->next_tx_seq = 7;
	conn->tx_bytes = 1ULL << 40;
	conn->last_error = -ECONNRESET;
	return conn;
}

static void nl_conn_fill_core(struct kunit *test)
{
	struct rdsd_conn *conn = nl_conn(test);
	struct sk_buff *skb = nl_msg(test, NLMSG_GOODSIZE);
	struct rdsd_msg *msg = rdsd_msg_alloc(0, GFP_KERNEL);
	struct nlattr *head;
	int len;

	KUNIT_ASSERT_NOT_NULL(test, msg);
	list_add_tail(&msg->conn_item, &conn->retrans);
	KUNIT_ASSERT_EQ(test, rdsd_nl_conn_fill(skb, conn, NULL), 0);
	list_del(&msg->conn_item);
	rdsd_msg_put(msg);
	nl_end(skb);
	head = nl_attrs(skb, &len);

	KUNIT_EXPECT_EQ(test, attr_u32(test, head, len, RDS_DOCA_A_CONN_ID), 42);
	KUNIT_EXPECT_EQ(test, ntohl(nla_get_in_addr(nla_find(head, len,
							RDS_DOCA_A_CONN_PEER))),
			ntohl(NL_ADDR4(2)));
	KUNIT_EXPECT_EQ(test, nla_get_u8(nla_find(head, len,
						  RDS_DOCA_A_CONN_STATE)),
			RDS_DOCA_CONN_STATE_CONNECTING);
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(nla_find(head, len,
					RDS_DOCA_A_CONN_TRANSPORT)), "loopback");
	KUNIT_EXPECT_EQ(test, attr_u32(test, head, len,
				       RDS_DOCA_A_CONN_RETRANS), 1);
	KUNIT_EXPECT_EQ(test, attr_u32(test, head, len,
				       RDS_DOCA_A_CONN_SEND_QUEUE), 0);
	KUNIT_EXPECT_EQ(test, nla_get_u64(nla_find(head, len,
						   RDS_DOCA_A_CONN_TX_BYTES)),
			1ULL << 40);
	KUNIT_EXPECT_EQ(test, nla_get_s32(nla_find(head, len,
						   RDS_DOCA_A_CONN_LAST_ERROR)),
			-ECONNRESET);
	/* without the transport's view: none of its attributes */
	KUNIT_EXPECT_NULL(test, nla_find(head, len, RDS_DOCA_A_CONN_DEV));
	KUNIT_EXPECT_NULL(test, nla_find(head, len, RDS_DOCA_A_CONN_CREDITS));
	kfree_skb(skb);
}

/* An IPv6 connection's addresses are 16 bytes, an IPv4 one's 4. */
static void nl_conn_fill_ipv6(struct kunit *test)
{
	struct rdsd_conn *conn = nl_conn(test);
	struct sk_buff *skb = nl_msg(test, NLMSG_GOODSIZE);
	struct in6_addr l, f;
	struct nlattr *head, *a;
	int len;

	KUNIT_ASSERT_EQ(test, in6_pton("2001:db8::1", -1, l.s6_addr, -1, NULL),
			1);
	KUNIT_ASSERT_EQ(test, in6_pton("2001:db8::2", -1, f.s6_addr, -1, NULL),
			1);
	conn->laddr = l;
	conn->faddr = f;
	KUNIT_ASSERT_EQ(test, rdsd_nl_conn_fill(skb, conn, NULL), 0);
	nl_end(skb);
	head = nl_attrs(skb, &len);

	a = nla_find(head, len, RDS_DOCA_A_CONN_LADDR);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, nla_len(a), 16);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(nla_data(a), &l));
	a = nla_find(head, len, RDS_DOCA_A_CONN_PEER);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, nla_len(a), 16);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(nla_data(a), &f));
	kfree_skb(skb);

	/* and an IPv4-mapped one is an IPv4 address */
	conn->laddr = NL_ADDR(1);
	skb = nl_msg(test, NLMSG_GOODSIZE);
	KUNIT_ASSERT_EQ(test, rdsd_nl_conn_fill(skb, conn, NULL), 0);
	nl_end(skb);
	head = nl_attrs(skb, &len);
	a = nla_find(head, len, RDS_DOCA_A_CONN_LADDR);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, nla_len(a), 4);
	KUNIT_EXPECT_EQ(test, (__force u32)nla_get_in_addr(a),
			(__force u32)NL_ADDR4(1));
	kfree_skb(skb);
}

static void nl_conn_fill_transport(struct kunit *test)
{
	struct rdsd_conn_info ci = {
		.dev = "rxe9", .port = 1, .qpn = 0x11, .credits = 0,
		.has_credits = true,
	};
	struct rdsd_conn *conn = nl_conn(test);
	struct sk_buff *skb = nl_msg(test, NLMSG_GOODSIZE);
	struct nlattr *head;
	int len;

	KUNIT_ASSERT_EQ(test, rdsd_nl_conn_fill(skb, conn, &ci), 0);
	nl_end(skb);
	head = nl_attrs(skb, &len);
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(nla_find(head, len,
					RDS_DOCA_A_CONN_DEV)), "rxe9");
	KUNIT_EXPECT_EQ(test, attr_u32(test, head, len, RDS_DOCA_A_CONN_QPN),
			0x11);
	/* zero credits are still shown */
	KUNIT_EXPECT_EQ(test, attr_u32(test, head, len,
				       RDS_DOCA_A_CONN_CREDITS), 0);
	kfree_skb(skb);
}

static void nl_conn_fill_full_skb(struct kunit *test)
{
	struct rdsd_conn *conn = nl_conn(test);
	struct sk_buff *skb = nl_msg(test, NLMSG_GOODSIZE);

	/* leave room for a few attributes only */
	skb_put_zero(skb, skb_tailroom(skb) - 48);
	KUNIT_EXPECT_EQ(test, rdsd_nl_conn_fill(skb, conn, NULL), -EMSGSIZE);
	kfree_skb(skb);
}

static struct socket *nl_socket(struct kunit *test, __be32 addr, u16 port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = addr,
		.sin_port = htons(port),
	};
	struct socket *sock;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, rdsd_family,
					       SOCK_SEQPACKET, 0, &sock), 0);
	if (addr)
		KUNIT_ASSERT_EQ(test, kernel_bind(sock, (struct sockaddr *)&sin,
						  sizeof(sin)), 0);
	return sock;
}

static void nl_sock_fill(struct kunit *test)
{
	struct socket *bound = nl_socket(test, NL_ADDR4(3), 4242);
	struct socket *unbound = nl_socket(test, 0, 0);
	struct sk_buff *skb = nl_msg(test, NLMSG_GOODSIZE);
	struct rdsd_sock *rs = rdsd_sk(bound->sk);
	struct nlattr *head;
	int len;

	/* as if two notices were owed: what the dump shows, not a count */
	spin_lock_bh(&rs->recv_lock);
	rs->notify_bytes += 2 * RDSD_RECV_MIN_CHARGE;
	spin_unlock_bh(&rs->recv_lock);
	KUNIT_ASSERT_EQ(test, rdsd_nl_sock_fill(skb, rs, &init_user_ns), 0);
	spin_lock_bh(&rs->recv_lock);
	rs->notify_bytes -= 2 * RDSD_RECV_MIN_CHARGE;
	spin_unlock_bh(&rs->recv_lock);
	nl_end(skb);
	head = nl_attrs(skb, &len);
	KUNIT_EXPECT_EQ(test, attr_u32(test, head, len, RDS_DOCA_A_SOCK_ID),
			rs->id);
	KUNIT_EXPECT_EQ(test, ntohl(nla_get_in_addr(nla_find(head, len,
							RDS_DOCA_A_SOCK_ADDR))),
			ntohl(NL_ADDR4(3)));
	KUNIT_EXPECT_EQ(test, nla_get_u16(nla_find(head, len,
						   RDS_DOCA_A_SOCK_PORT)),
			4242);
	KUNIT_EXPECT_EQ(test, attr_u32(test, head, len, RDS_DOCA_A_SOCK_MRS),
			0);
	KUNIT_EXPECT_EQ(test,
			attr_u32(test, head, len, RDS_DOCA_A_SOCK_NOTIFY_BYTES),
			2 * RDSD_RECV_MIN_CHARGE);
	KUNIT_EXPECT_NULL(test, nla_find(head, len, RDS_DOCA_A_SOCK_PEER));
	kfree_skb(skb);

	skb = nl_msg(test, NLMSG_GOODSIZE);
	KUNIT_ASSERT_EQ(test, rdsd_nl_sock_fill(skb, rdsd_sk(unbound->sk),
						&init_user_ns), 0);
	nl_end(skb);
	head = nl_attrs(skb, &len);
	KUNIT_EXPECT_NULL(test, nla_find(head, len, RDS_DOCA_A_SOCK_ADDR));
	KUNIT_EXPECT_NULL(test, nla_find(head, len, RDS_DOCA_A_SOCK_PORT));
	KUNIT_EXPECT_NULL(test, nla_find(head, len, RDS_DOCA_A_SOCK_TRANSPORT));
	kfree_skb(skb);
	sock_release(bound);
	sock_release(unbound);
}

#define NL_SOCKS	24

/* Count, per socket of @socks, how often the dump messages in @skb name it. */
static void nl_count(struct sk_buff *skb, struct socket **socks, int *seen)
{
	struct nlmsghdr *nlh;
	int rem = skb->len;

	nlmsg_for_each_msg(nlh, (struct nlmsghdr *)skb->data, skb->len, rem) {
		struct nlattr *a = nla_find(genlmsg_data(nlmsg_data(nlh)),
					    genlmsg_len(nlmsg_data(nlh)),
					    RDS_DOCA_A_SOCK_ID);
		int i;

		for (i = 0; a && i < NL_SOCKS; i++)
			if (socks[i] && rdsd_sk(socks[i]->sk)->id ==
			    nla_get_u32(a))
				seen[i]++;
	}
}

/*
 * A dump in parts of a few sockets each: between the parts, sockets
 * already sent and sockets not yet sent are closed, and new ones come.
 * Every socket open for the whole dump is sent exactly once.
 */
static void nl_sock_dump_resumes(struct kunit *test)
{
	struct rdsd_net *rn = rdsd_net(&init_net);
	struct socket *socks[NL_SOCKS] = {}, *late[4] = {};
	int seen[NL_SOCKS] = {}, parts = 0, i, err;
	unsigned long next = 0;

	for (i = 0; i < NL_SOCKS; i++)
		socks[i] = nl_socket(test, NL_ADDR4(10), 5000 + i);

	do {
		/* room for a few sockets only */
		struct sk_buff *skb = alloc_skb(600, GFP_KERNEL);
		unsigned long before = next;

		KUNIT_ASSERT_NOT_NULL(test, skb);
		err = rdsd_nl_sock_dump_from(rn, skb, &next, 0, 0,
					     &init_user_ns);
		KUNIT_ASSERT_TRUE(test, !err || err == -EMSGSIZE);
		KUNIT_ASSERT_TRUE_MSG(test, !err || next > before,
				      "a part made no progress");
		nl_count(skb, socks, seen);
		kfree_skb(skb);

		if (++parts == 2) {
			/* one sent, one not yet: both leave */
			sock_release(socks[0]);
			socks[0] = NULL;
			sock_release(socks[NL_SOCKS - 1]);
			socks[NL_SOCKS - 1] = NULL;
			for (i = 0; i < ARRAY_SIZE(late); i++)
				late[i] = nl_socket(test, NL_ADDR4(11), 6000 + i);
		}
	} while (err == -EMSGSIZE && parts < 1000);

	KUNIT_EXPECT_GT(test, parts, 3);
	for (i = 1; i < NL_SOCKS - 1; i++)
		KUNIT_EXPECT_EQ_MSG(test, seen[i], 1, "socket %d", i);
	for (i = 0; i < NL_SOCKS; i++)
		if (socks[i])
			sock_release(socks[i]);
	for (i = 0; i < ARRAY_SIZE(late); i++)
		sock_release(late[i]);
}

static struct kunit_case rdsd_netlink_cases[] = {
	KUNIT_CASE(nl_conn_fill_core),
	KUNIT_CASE(nl_conn_fill_ipv6),
	KUNIT_CASE(nl_conn_fill_transport),
	KUNIT_CASE(nl_conn_fill_full_skb),
	KUNIT_CASE(nl_sock_fill),
	KUNIT_CASE(nl_sock_dump_resumes),
	{}
};

static struct kunit_suite rdsd_netlink_suite = {
	.name = "rds_doca_netlink",
	.test_cases = rdsd_netlink_cases,
};

kunit_test_suites(&rdsd_netlink_suite);
