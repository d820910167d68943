// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_transport (transport.c): transport selection by
 * address.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/rds_doca.h>
#include <net/net_namespace.h>

#include "rdsd.h"
#include "kunit_util.h"
#include "transport.h"

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
	/* not local in the test kernel: neither RDMA nor TCP serves them */
	{ "203.0.113.1 has no transport", 0xcb007101, -1, false, -EADDRNOTAVAIL },
	{ "192.0.2.1 has no transport", 0xc0000201, -1, false, -EADDRNOTAVAIL },
	{ "forced IB refuses loopback", 0x7f000001, RDS_TRANS_IB, false,
	  -ENOPROTOOPT },
	{ "forced TCP refuses loopback", 0x7f000001, RDS_TRANS_TCP, false,
	  -ENOPROTOOPT },
	{ "forced TCP refuses an address not local", 0xcb007101,
	  RDS_TRANS_TCP, false, -ENOPROTOOPT },
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

kunit_test_suites(&rdsd_transport_suite);
