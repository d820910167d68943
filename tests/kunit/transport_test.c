// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_transport (transport.c): transport selection by
 * address.
 */
#include <kunit/test.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/rds_doca.h>
#include <net/net_namespace.h>

#include "rdsd.h"
#include "kunit_util.h"
#include "transport.h"

struct trans_bind_case {
	const char	*name;
	const char	*addr;		/* IPv6 text; IPv4 IPv4-mapped */
	int		forced;
	bool		loopback;	/* expected transport, if no error */
	int		err;
};

static const struct trans_bind_case trans_bind_cases[] = {
	{ "127.0.0.1 is loopback", "::ffff:127.0.0.1", -1, true, 0 },
	{ "127.255.255.254 is loopback", "::ffff:127.255.255.254", -1, true,
	  0 },
	{ "::1 is loopback", "::1", -1, true, 0 },
	/* not local in the test kernel: neither RDMA nor TCP serves them */
	{ "203.0.113.1 has no transport", "::ffff:203.0.113.1", -1, false,
	  -EADDRNOTAVAIL },
	{ "192.0.2.1 has no transport", "::ffff:192.0.2.1", -1, false,
	  -EADDRNOTAVAIL },
	{ "2001:db8::1 has no transport", "2001:db8::1", -1, false,
	  -EADDRNOTAVAIL },
	{ "forced IB refuses loopback", "::ffff:127.0.0.1", RDS_TRANS_IB,
	  false, -ENOPROTOOPT },
	{ "forced IB refuses ::1", "::1", RDS_TRANS_IB, false, -ENOPROTOOPT },
	{ "forced TCP refuses loopback", "::ffff:127.0.0.1", RDS_TRANS_TCP,
	  false, -ENOPROTOOPT },
	{ "forced TCP refuses ::1", "::1", RDS_TRANS_TCP, false,
	  -ENOPROTOOPT },
	{ "forced TCP refuses an address not local", "::ffff:203.0.113.1",
	  RDS_TRANS_TCP, false, -ENOPROTOOPT },
	{ "forced TCP refuses an IPv6 address not local", "2001:db8::1",
	  RDS_TRANS_TCP, false, -ENOPROTOOPT },
};

static void trans_bind_desc(const struct trans_bind_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(trans_bind, trans_bind_cases, trans_bind_desc);

static struct in6_addr test_in6(struct kunit *test, const char *text)
{
	struct in6_addr a;

	KUNIT_EXPECT_EQ(test, in6_pton(text, -1, a.s6_addr, -1, NULL), 1);
	return a;
}

static void rdsd_trans_for_bind_by_address(struct kunit *test)
{
	const struct trans_bind_case *c = test->param_value;
	struct in6_addr addr = test_in6(test, c->addr);
	const struct rdsd_transport_ops *t;
	int err = 0;

	t = rdsd_trans_for_bind(&init_net, &addr, 0, c->forced, &err);
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
	{ RDS_TRANS_TCP, 0 },
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
	static const struct {
		const char	*laddr, *faddr;
		bool		loopback;
	} cases[] = {
		{ "::ffff:203.0.113.1", "::ffff:203.0.113.1", true },
		{ "::ffff:203.0.113.1", "::ffff:127.0.0.1", true },
		{ "::ffff:203.0.113.1", "::ffff:203.0.113.2", false },
		{ "2001:db8::1", "2001:db8::1", true },
		{ "2001:db8::1", "::1", true },
		{ "2001:db8::1", "2001:db8::2", false },
	};
	/* any transport talks to its own address over loopback */
	const struct rdsd_transport_ops *bound = (void *)test;
	const struct rdsd_transport_ops *want;
	struct in6_addr l, f;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		l = test_in6(test, cases[i].laddr);
		f = test_in6(test, cases[i].faddr);
		want = bound;
		if (cases[i].loopback)
			want = &rdsd_loop_transport;
		KUNIT_EXPECT_PTR_EQ_MSG(test,
					rdsd_trans_for_conn(&init_net, bound,
							    &l, &f),
					want, "%s -> %s", cases[i].laddr,
					cases[i].faddr);
	}
}

/* ss from "addr" (IPv4 or IPv6 text) and a scope id */
static void test_ss(struct kunit *test, struct sockaddr_storage *ss,
		    const char *text, u32 scope)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (strchr(text, ':')) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(18636);
		sin6->sin6_scope_id = scope;
		KUNIT_ASSERT_EQ(test, in6_pton(text, -1, sin6->sin6_addr.s6_addr,
					       -1, NULL), 1);
	} else {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(18636);
		KUNIT_ASSERT_EQ(test, in4_pton(text, -1,
					       (u8 *)&sin->sin_addr.s_addr, -1,
					       NULL), 1);
	}
}

/*
 * rdsd_peer_addrs(): the addresses of a connection a peer made (TCP's
 * accepted socket, IB's rdma_cm request) are taken when they are of one
 * family, two, and the peer is no loopback or multicast address; a
 * link-local address without its link takes the interface's.
 */
static void rdsd_peer_addrs_checks_pairs(struct kunit *test)
{
	static const struct {
		const char	*local, *peer;
		u32		lscope, pscope;
		int		ifindex, ret, scope;
		const char	*laddr;	/* as kept, if taken */
	} cases[] = {
		{ "192.0.2.1", "192.0.2.2", 0, 0, 0, 0, 0, "::ffff:192.0.2.1" },
		{ "2001:db8::1", "2001:db8::2", 0, 0, 0, 0, 0, "2001:db8::1" },
		{ "fe80::1", "fe80::2", 3, 3, 0, 0, 3, "fe80::1" },
		{ "2001:db8::1", "fe80::2", 0, 4, 0, 0, 4, "2001:db8::1" },
		{ "::ffff:192.0.2.1", "::ffff:192.0.2.2", 0, 0, 0, 0, 0,
		  "::ffff:192.0.2.1" },
		/* rdma_cm's request: link-local addresses without a link */
		{ "fe80::1", "fe80::2", 0, 0, 5, 0, 5, "fe80::1" },
		{ "2001:db8::1", "fe80::2", 0, 0, 6, 0, 6, "2001:db8::1" },
		{ "fe80::1", "fe80::2", 3, 3, 5, 0, 3, "fe80::1" },
		{ "192.0.2.1", "192.0.2.2", 0, 0, 5, 0, 0, "::ffff:192.0.2.1" },
		{ "2001:db8::1", "2001:db8::2", 0, 0, 5, 0, 0, "2001:db8::1" },
		{ "fe80::1", "fe80::2", 0, 0, 0, -EINVAL },
		{ "192.0.2.1", "2001:db8::2", 0, 0, 0, -EINVAL },
		{ "192.0.2.1", "192.0.2.1", 0, 0, 0, -EINVAL },
		{ "2001:db8::1", "2001:db8::1", 0, 0, 0, -EINVAL },
		{ "192.0.2.1", "127.0.0.1", 0, 0, 0, -EINVAL },
		{ "2001:db8::1", "::1", 0, 0, 0, -EINVAL },
		{ "2001:db8::1", "ff02::1", 0, 0, 0, -EINVAL },
		{ "192.0.2.1", "224.0.0.1", 0, 0, 0, -EINVAL },
	};
	struct sockaddr_storage l, p;
	struct in6_addr la, fa, want;
	int i, scope;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		test_ss(test, &l, cases[i].local, cases[i].lscope);
		test_ss(test, &p, cases[i].peer, cases[i].pscope);
		scope = -1;
		KUNIT_EXPECT_EQ_MSG(test, rdsd_peer_addrs(&l, &p,
							  cases[i].ifindex,
							  &la, &fa, &scope),
				    cases[i].ret, "%s <- %s, interface %d",
				    cases[i].local, cases[i].peer,
				    cases[i].ifindex);
		if (cases[i].ret)
			continue;
		want = test_in6(test, cases[i].laddr);
		KUNIT_EXPECT_TRUE_MSG(test, ipv6_addr_equal(&la, &want),
				      "%s <- %s", cases[i].local,
				      cases[i].peer);
		KUNIT_EXPECT_EQ_MSG(test, scope, cases[i].scope,
				    "%s <- %s, interface %d", cases[i].local,
				    cases[i].peer, cases[i].ifindex);
	}
}

static struct kunit_case rdsd_transport_cases[] = {
	KUNIT_CASE(rdsd_peer_addrs_checks_pairs),
	KUNIT_CASE_PARAM(rdsd_trans_for_bind_by_address, trans_bind_gen_params),
	KUNIT_CASE(rdsd_trans_type_available_checks_range),
	KUNIT_CASE(rdsd_trans_for_conn_same_address_is_loopback),
	{}
};

static struct kunit_suite rdsd_transport_suite = {
	.name = "rds_doca_transport",
	.test_cases = rdsd_transport_cases,
};

kunit_test_suites(&rdsd_transport_suite);
