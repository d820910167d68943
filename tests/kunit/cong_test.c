// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_cong (cong.c): congestion maps.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <net/net_namespace.h>

#include "rdsd.h"
#include "kunit_util.h"
#include "cong.h"

static void rdsd_cong_map_get_shares_per_address(struct kunit *test)
{
	struct rdsd_net *rn = rdsd_net(&init_net);
	struct rdsd_cong_map *a, *b, *c;

	a = rdsd_cong_map_get(rn, &TEST_ADDR(10), GFP_KERNEL);
	b = rdsd_cong_map_get(rn, &TEST_ADDR(10), GFP_KERNEL);
	c = rdsd_cong_map_get(rn, &TEST_ADDR(11), GFP_KERNEL);
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
	struct rdsd_cong_map *map = rdsd_cong_map_get(rn, &TEST_ADDR(12),
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
	struct rdsd_cong_map *map = rdsd_cong_map_get(rn, &TEST_ADDR(13),
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

kunit_test_suites(&rdsd_cong_suite);
