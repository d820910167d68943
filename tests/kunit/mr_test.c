// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_mr (mr.c, rdma.c): the cookie layout, the checks an
 * operation passes to reach a region, and atomic arithmetic.
 */
#include <kunit/test.h>
#include <linux/in.h>

#include "rdsd.h"
#include "kunit_util.h"
#include "mr.h"

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
static int mr_check(const struct rdsd_mr *mr, struct in6_addr saddr,
		    __be16 sport, u64 raddr, u32 bytes, bool write, u64 *off)
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
	struct in6_addr peer = TEST_ADDR(2), other = TEST_ADDR(3);
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
	KUNIT_EXPECT_EQ(test, mr_check(&mr, TEST_ADDR(2), 0, 0, 3 * 4096,
				       false, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 512ULL);
	KUNIT_EXPECT_EQ(test, mr_check(&mr, TEST_ADDR(2), 0, 3 * 4096, 1,
				       false, &off), -EACCES);
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

static struct kunit_case rdsd_mr_cases[] = {
	KUNIT_CASE(rdsd_cookie_layout_matches_linux),
	KUNIT_CASE(rdsd_cookie_fields_are_independent),
	KUNIT_CASE(rdsd_cookie_off_make_keeps_page_offset),
	KUNIT_CASE(rdsd_mr_check_keeps_peers_inside),
	KUNIT_CASE(rdsd_mr_check_zero_based_list),
	KUNIT_CASE(rdsd_mr_check_only_through_owner),
	KUNIT_CASE_PARAM(rdsd_atomic_apply_computes, atomic_gen_params),
	{}
};

static struct kunit_suite rdsd_mr_suite = {
	.name = "rds_doca_mr",
	.test_cases = rdsd_mr_cases,
};

kunit_test_suites(&rdsd_mr_suite);
