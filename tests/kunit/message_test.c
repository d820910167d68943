// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_message (message.c): payload layout, copies, the
 * pool of freed payload blocks and messages filled in pieces.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include "rdsd.h"
#include "message.h"

static const size_t msg_sizes[] = {
	0, 1, 64, 1024, 1025, 4095, 4096, 4097, 65536, 1 << 20, (2 << 20) + 3,
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

/* Are @msg's entries 32 KiB blocks? Then *@pages gets them. */
static bool msg_blocks(struct rdsd_msg *msg, struct page **pages)
{
	unsigned int i;

	for (i = 0; i < msg->nents; i++) {
		if (msg->sg[i].length != SZ_32K)
			return false;
		pages[i] = sg_page(&msg->sg[i]);
	}
	return true;
}

static bool has_page(struct rdsd_msg *msg, struct page *page)
{
	unsigned int i;

	for (i = 0; i < msg->nents; i++)
		if (sg_page(&msg->sg[i]) == page)
			return true;
	return false;
}

/* The largest message RDS_DOCA_MSG_MAX allows is carried whole. */
static void rdsd_msg_alloc_largest(struct kunit *test)
{
	const size_t len = RDSD_MSG_SIZE_LIMIT;
	struct kvec vec;
	struct iov_iter it;
	struct rdsd_msg *msg;
	size_t i, total = 0;
	u32 *buf;

	buf = vmalloc(len);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < len / sizeof(*buf); i++)
		buf[i] = i * 2654435761u;
	msg = rdsd_msg_alloc(len, GFP_KERNEL);
	if (!msg)
		vfree(buf);
	KUNIT_ASSERT_NOT_NULL(test, msg);

	vec.iov_base = buf;
	vec.iov_len = len;
	iov_iter_kvec(&it, ITER_SOURCE, &vec, 1, len);
	KUNIT_EXPECT_EQ(test, rdsd_msg_copy_from_iter(NULL, msg, &it), 0);
	memset(buf, 0, len);
	iov_iter_kvec(&it, ITER_DEST, &vec, 1, len);
	KUNIT_EXPECT_EQ(test, rdsd_msg_copy_to_iter(NULL, msg, &it, len),
			(int)len);

	KUNIT_EXPECT_EQ(test, msg->len, (u32)len);
	KUNIT_EXPECT_LE(test, msg->nents, (unsigned int)(len / PAGE_SIZE));
	for (i = 0; i < msg->nents; i++)
		total += msg->sg[i].length;
	KUNIT_EXPECT_EQ(test, total, len);
	for (i = 0; i < len / sizeof(*buf); i++)
		if (buf[i] != (u32)(i * 2654435761u))
			break;
	KUNIT_EXPECT_EQ(test, i, len / sizeof(*buf));
	rdsd_msg_put(msg);
	vfree(buf);
}

static void rdsd_msg_blocks_reused(struct kunit *test)
{
	struct rdsd_msg *msg = rdsd_msg_alloc(SZ_64K, GFP_KERNEL);
	struct page *pages[2];

	/* Arrange: a message of two blocks */
	KUNIT_ASSERT_NOT_NULL(test, msg);
	KUNIT_ASSERT_EQ(test, msg->nents, 2u);
	if (!msg_blocks(msg, pages)) {
		rdsd_msg_put(msg);
		kunit_skip(test, "the page allocator had no 32 KiB block");
	}

	/* Act: free it, and make the next one */
	rdsd_msg_put(msg);
	msg = rdsd_msg_alloc(SZ_64K, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msg);

	/* Assert: the next message has the freed blocks */
	KUNIT_EXPECT_TRUE(test, has_page(msg, pages[0]));
	KUNIT_EXPECT_TRUE(test, has_page(msg, pages[1]));
	rdsd_msg_put(msg);
}

static void rdsd_msg_block_held_not_reused(struct kunit *test)
{
	struct rdsd_msg *msg = rdsd_msg_alloc(SZ_32K, GFP_KERNEL);
	struct page *page;

	/* Arrange: a one-block message, and a reference of someone else's */
	KUNIT_ASSERT_NOT_NULL(test, msg);
	if (!msg_blocks(msg, &page)) {
		rdsd_msg_put(msg);
		kunit_skip(test, "the page allocator had no 32 KiB block");
	}
	get_page(page);

	/* Act */
	rdsd_msg_put(msg);
	msg = rdsd_msg_alloc(SZ_32K, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msg);

	/* Assert: that block went to the allocator, not to the next message */
	KUNIT_EXPECT_FALSE(test, has_page(msg, page));
	rdsd_msg_put(msg);
	put_page(page);	/* the first page, all that the free left */
}

static const size_t grow_sizes[] = {
	1, SZ_32K, SZ_1M + 1, (2 << 20) + 3, SZ_8M + 4097,
};

KUNIT_ARRAY_PARAM(grow_size, grow_sizes, msg_size_desc);

/*
 * A message filled in pieces, as a transport receives one, holds every
 * byte in order, in a chain of tables once it needs more entries than the
 * first table has, and reads back whole.
 */
static void rdsd_msg_grow_fills_in_pieces(struct kunit *test)
{
	size_t len = *(const size_t *)test->param_value;
	struct rdsd_msg_fill f;
	struct scatterlist *sg;
	struct rdsd_msg *msg;
	struct iov_iter it;
	struct kvec vec;
	size_t i, total = 0;
	u8 *in, *out;
	u32 piece;

	/* Arrange */
	in = vmalloc(len);
	out = vzalloc(len);
	if (!in || !out) {
		vfree(in);
		vfree(out);
		kunit_skip(test, "no memory for the buffers");
	}
	for (i = 0; i < len; i++)
		in[i] = (u8)(i * 13 + 5);
	msg = rdsd_msg_alloc_grow(len, GFP_KERNEL, &f);
	KUNIT_ASSERT_NOT_NULL(test, msg);
	KUNIT_EXPECT_EQ(test, msg->nents, 0u);

	/* Act: pieces of 16 KiB, the last one short */
	for (i = 0; i < len; i += piece) {
		piece = min_t(size_t, SZ_16K, len - i);
		KUNIT_ASSERT_EQ(test, rdsd_msg_fill(msg, &f, in + i, piece,
						    GFP_KERNEL), 0);
	}
	vec.iov_base = out;
	vec.iov_len = len;
	iov_iter_kvec(&it, ITER_DEST, &vec, 1, len);
	KUNIT_EXPECT_EQ(test, rdsd_msg_copy_to_iter(NULL, msg, &it, len),
			(int)len);

	/* Assert */
	KUNIT_EXPECT_EQ(test, memcmp(in, out, len), 0);
	KUNIT_EXPECT_EQ(test, f.filled, (u32)len);
	for_each_sg(msg->sg, sg, msg->nents, i)
		total += sg->length;
	KUNIT_EXPECT_EQ(test, total, len);
	/* the walk ends where the entries do */
	KUNIT_EXPECT_EQ(test, sg_nents(msg->sg), (int)msg->nents);
	KUNIT_EXPECT_EQ(test, sg_is_chain(&msg->sg[RDSD_MSG_GROW_SG - 1]),
			msg->nents >= RDSD_MSG_GROW_SG);
	/* a byte more than the length is refused */
	KUNIT_EXPECT_EQ(test, rdsd_msg_fill(msg, &f, in, 1, GFP_KERNEL),
			-EINVAL);
	rdsd_msg_put(msg);
	vfree(in);
	vfree(out);
}

/*
 * A message abandoned half filled (a connection reset) frees what it
 * holds; kmemleak and KASAN watch the chained tables.  A piece that would
 * pass the length is refused before anything is copied.
 */
static void rdsd_msg_grow_abandoned(struct kunit *test)
{
	const size_t len = SZ_4M;
	static u8 piece[SZ_16K];
	struct rdsd_msg_fill f;
	struct rdsd_msg *msg;
	size_t i;

	msg = rdsd_msg_alloc_grow(len, GFP_KERNEL, &f);
	KUNIT_ASSERT_NOT_NULL(test, msg);
	for (i = 0; i < SZ_2M + SZ_16K; i += SZ_16K)
		KUNIT_ASSERT_EQ(test, rdsd_msg_fill(msg, &f, piece, SZ_16K,
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_GE(test, msg->nents, (unsigned int)RDSD_MSG_GROW_SG);
	KUNIT_EXPECT_EQ(test, rdsd_msg_fill(msg, &f, piece,
					    len - f.filled + 1, GFP_KERNEL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, f.filled, (u32)(SZ_2M + SZ_16K));
	rdsd_msg_put(msg);

	/* nothing, or more than the limit, is no message */
	KUNIT_EXPECT_NULL(test, rdsd_msg_alloc_grow(0, GFP_KERNEL, &f));
	KUNIT_EXPECT_NULL(test, rdsd_msg_alloc_grow(RDSD_MSG_SIZE_LIMIT + 1,
						    GFP_KERNEL, &f));
}

static struct kunit_case rdsd_message_cases[] = {
	KUNIT_CASE_PARAM(rdsd_msg_copy_round_trip, msg_size_gen_params),
	KUNIT_CASE(rdsd_msg_copy_to_iter_truncates),
	KUNIT_CASE(rdsd_msg_copy_from_short_iter_faults),
	KUNIT_CASE(rdsd_msg_alloc_largest),
	KUNIT_CASE(rdsd_msg_blocks_reused),
	KUNIT_CASE(rdsd_msg_block_held_not_reused),
	KUNIT_CASE_PARAM(rdsd_msg_grow_fills_in_pieces, grow_size_gen_params),
	KUNIT_CASE(rdsd_msg_grow_abandoned),
	{}
};

static struct kunit_suite rdsd_message_suite = {
	.name = "rds_doca_message",
	.test_cases = rdsd_message_cases,
};

kunit_test_suites(&rdsd_message_suite);
