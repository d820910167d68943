// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_dma: the copy engine's chunking, its choice of
 * engine or CPU, and the bookkeeping of an engine copy's completions,
 * with the dmaengine calls replaced by static stubs.
 *
 * The stub engine "maps" a page at its kernel address, so a descriptor's
 * bus addresses are plain pointers; it copies when the copy is issued and
 * then calls the descriptors back in the order and with the results the
 * case asks for, or not at all.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/dmaengine.h>
#include <linux/highmem.h>
#include <linux/scatterlist.h>

#include "rdsd.h"
#include "dma.h"

/* chunking --------------------------------------------------------------- */

#define MAX_CHUNKS	16

struct chunk_log {
	struct rdsd_dma_chunk	c[MAX_CHUNKS];
	int			n;
	int			fail_at;	/* emit returns -EIO there */
};

static int chunk_emit(void *arg, const struct rdsd_dma_chunk *c)
{
	struct chunk_log *log = arg;

	if (log->n == log->fail_at || log->n == MAX_CHUNKS)
		return -EIO;
	log->c[log->n++] = *c;
	return 0;
}

/* Entries at bus addresses @addr with lengths @len. */
static void fake_sg(struct scatterlist *sg, const u64 *addr, const u32 *len,
		    int n)
{
	int i;

	sg_init_table(sg, n);
	for (i = 0; i < n; i++) {
		sg_dma_address(&sg[i]) = addr[i];
		sg_dma_len(&sg[i]) = len[i];
	}
}

static void dma_chunks_merge_contiguous(struct kunit *test)
{
	static const u64 da[] = { 0x10000, 0x11000 }, sa[] = { 0x80000 };
	static const u32 dl[] = { 0x1000, 0x1000 }, sl[] = { 0x2000 };
	struct chunk_log log = { .fail_at = -1 };
	struct scatterlist d[2], s[1];

	fake_sg(d, da, dl, 2);
	fake_sg(s, sa, sl, 1);
	KUNIT_ASSERT_EQ(test, rdsd_dma_chunks(d, 2, s, 1, 0x2000, 0x10000,
					      chunk_emit, &log), 0);
	KUNIT_ASSERT_EQ(test, log.n, 1);
	KUNIT_EXPECT_EQ(test, log.c[0].dst, 0x10000ULL);
	KUNIT_EXPECT_EQ(test, log.c[0].src, 0x80000ULL);
	KUNIT_EXPECT_EQ(test, log.c[0].len, 0x2000U);
}

static void dma_chunks_split_at_gaps(struct kunit *test)
{
	/* dst has a gap after 0x800 bytes; src one after 0x1800 */
	static const u64 da[] = { 0x10000, 0x20000 }, sa[] = { 0x80000, 0x90000 };
	static const u32 dl[] = { 0x800, 0x2000 }, sl[] = { 0x1800, 0x1000 };
	struct chunk_log log = { .fail_at = -1 };
	struct scatterlist d[2], s[2];

	fake_sg(d, da, dl, 2);
	fake_sg(s, sa, sl, 2);
	KUNIT_ASSERT_EQ(test, rdsd_dma_chunks(d, 2, s, 2, 0x2800, 0x10000,
					      chunk_emit, &log), 0);
	KUNIT_ASSERT_EQ(test, log.n, 3);
	KUNIT_EXPECT_EQ(test, log.c[0].len, 0x800U);
	KUNIT_EXPECT_EQ(test, log.c[1].dst, 0x20000ULL);
	KUNIT_EXPECT_EQ(test, log.c[1].src, 0x80800ULL);
	KUNIT_EXPECT_EQ(test, log.c[1].len, 0x1000U);
	KUNIT_EXPECT_EQ(test, log.c[2].dst, 0x21000ULL);
	KUNIT_EXPECT_EQ(test, log.c[2].src, 0x90000ULL);
	KUNIT_EXPECT_EQ(test, log.c[2].len, 0x1000U);
}

static void dma_chunks_max_and_short(struct kunit *test)
{
	static const u64 a[] = { 0x100000 };
	static const u32 l[] = { 0x5000 };
	struct chunk_log log = { .fail_at = -1 };
	struct scatterlist d[1], s[1];

	fake_sg(d, a, l, 1);
	fake_sg(s, a, l, 1);
	/* at most 0x2000 a descriptor, and only the first 0x4800 bytes */
	KUNIT_ASSERT_EQ(test, rdsd_dma_chunks(d, 1, s, 1, 0x4800, 0x2000,
					      chunk_emit, &log), 0);
	KUNIT_ASSERT_EQ(test, log.n, 3);
	KUNIT_EXPECT_EQ(test, log.c[0].len, 0x2000U);
	KUNIT_EXPECT_EQ(test, log.c[1].dst, 0x102000ULL);
	KUNIT_EXPECT_EQ(test, log.c[2].len, 0x800U);

	/* more bytes than the entries hold */
	log.n = 0;
	KUNIT_EXPECT_EQ(test, rdsd_dma_chunks(d, 1, s, 1, 0x5001, 0x10000,
					      chunk_emit, &log), -EINVAL);
	/* an emit failure stops the cutting */
	log.n = 0;
	log.fail_at = 1;
	KUNIT_EXPECT_EQ(test, rdsd_dma_chunks(d, 1, s, 1, 0x4800, 0x2000,
					      chunk_emit, &log), -EIO);
	KUNIT_EXPECT_EQ(test, log.n, 1);
}

/* choice of engine or CPU ------------------------------------------------- */

static void dma_decide_thresholds(struct kunit *test)
{
	bool probe;

	KUNIT_EXPECT_EQ(test, rdsd_dma_decide(true, 1, 4096, 4096, &probe),
			RDSD_COPY_ENGINE);
	KUNIT_EXPECT_FALSE(test, probe);
	KUNIT_EXPECT_EQ(test, rdsd_dma_decide(true, 1, 4096, 4095, &probe),
			RDSD_COPY_CPU);
	KUNIT_EXPECT_FALSE(test, probe);
	KUNIT_EXPECT_EQ(test, rdsd_dma_decide(true, 2, 0, 1, &probe),
			RDSD_COPY_ENGINE);
	/* nothing to copy: never the engine */
	KUNIT_EXPECT_EQ(test, rdsd_dma_decide(true, 2, 0, 0, &probe),
			RDSD_COPY_CPU);
	KUNIT_EXPECT_FALSE(test, probe);
	/* no channel: the CPU, and look for one */
	KUNIT_EXPECT_EQ(test, rdsd_dma_decide(true, 0, 0, 1 << 20, &probe),
			RDSD_COPY_CPU);
	KUNIT_EXPECT_TRUE(test, probe);
	/* off: the CPU, and look for nothing */
	KUNIT_EXPECT_EQ(test, rdsd_dma_decide(false, 1, 0, 1 << 20, &probe),
			RDSD_COPY_CPU);
	KUNIT_EXPECT_FALSE(test, probe);
	KUNIT_EXPECT_EQ(test, rdsd_dma_decide(false, 0, 0, 1 << 20, &probe),
			RDSD_COPY_CPU);
	KUNIT_EXPECT_FALSE(test, probe);
}

/* engine copies on a stub engine ------------------------------------------ */

enum stub_order { IN_ORDER, REVERSED, NEVER };

/**
 * struct stub_engine - the stub engine of one case
 * @order: how descriptors are called back when issued.
 * @fail_desc: index of a descriptor that completes with an error, or -1.
 * @fail_prep: index of a preparation that fails, or -1.
 * @prepared: preparations so far.
 * @queued: descriptors submitted and not yet called back.
 * @nq: their number.
 * @called: callbacks made.
 * @terminated: the channel was terminated.
 * @mapped: mappings not yet unmapped.
 */
struct stub_engine {
	enum stub_order	order;
	int		fail_desc;
	int		fail_prep;
	int		prepared;
	struct stub_desc *queued[MAX_CHUNKS];
	int		nq;
	int		called;
	bool		terminated;
	int		mapped;
};

struct stub_desc {
	struct dma_async_tx_descriptor	tx;
	void				*dst;
	void				*src;
	size_t				len;
	int				index;
};

static struct stub_engine *stub_of(void)
{
	return kunit_get_current_test()->priv;
}

static int stub_map(struct device *dev, struct scatterlist *sg,
		    unsigned int nents, enum dma_data_direction dir)
{
	struct scatterlist *p;
	unsigned int i;

	for_each_sg(sg, p, nents, i) {
		sg_dma_address(p) = (dma_addr_t)(uintptr_t)sg_virt(p);
		sg_dma_len(p) = p->length;
	}
	stub_of()->mapped++;
	return nents;
}

static void stub_unmap(struct device *dev, struct scatterlist *sg,
		       unsigned int nents, enum dma_data_direction dir)
{
	stub_of()->mapped--;
}

static struct dma_async_tx_descriptor *stub_prep(struct dma_chan *chan,
						 dma_addr_t dst,
						 dma_addr_t src, size_t len)
{
	struct kunit *test = kunit_get_current_test();
	struct stub_engine *e = test->priv;
	struct stub_desc *d;

	if (e->prepared++ == e->fail_prep)
		return NULL;
	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	d->dst = (void *)(uintptr_t)dst;
	d->src = (void *)(uintptr_t)src;
	d->len = len;
	d->index = e->prepared - 1;
	d->tx.chan = chan;
	return &d->tx;
}

static dma_cookie_t stub_submit(struct dma_async_tx_descriptor *tx)
{
	struct stub_engine *e = stub_of();

	if (e->nq == MAX_CHUNKS)
		return -ENOSPC;
	e->queued[e->nq++] = container_of(tx, struct stub_desc, tx);
	return e->nq;
}

static void stub_call(struct stub_engine *e, struct stub_desc *d)
{
	struct dmaengine_result res = { .result = DMA_TRANS_NOERROR };

	if (d->index == e->fail_desc) {
		memcpy(d->dst, d->src, d->len / 2);
		res.result = DMA_TRANS_WRITE_FAILED;
		res.residue = d->len - d->len / 2;
	} else {
		memcpy(d->dst, d->src, d->len);
	}
	e->called++;
	d->tx.callback_result(d->tx.callback_param, &res);
}

static void stub_issue(struct dma_chan *chan)
{
	struct stub_engine *e = stub_of();
	int i, n = e->nq;

	if (e->order == NEVER)
		return;
	e->nq = 0;
	for (i = 0; i < n; i++)
		stub_call(e, e->queued[e->order == REVERSED ? n - 1 - i : i]);
}

static void stub_terminate(struct dma_chan *chan)
{
	struct stub_engine *e = stub_of();

	e->terminated = true;
	e->nq = 0;	/* dropped without a call */
}

/**
 * struct copy_case - buffers of one engine copy
 * @src: source page, a pattern.
 * @dst: destination pages, zeroed.
 * @ssg: the source page cut in 3 entries.
 * @dsg: 2 entries with a gap between them, the second across both pages.
 * @s: source side.
 * @d: destination side.
 * @chan: a channel for the stubs.
 * @ddev: its device.
 * @dev: the device's struct device (no DMA parameters: 64 KiB segments).
 */
struct copy_case {
	struct page		*src;
	struct page		*dst;
	struct scatterlist	ssg[3];
	struct scatterlist	dsg[2];
	struct rdsd_dma_sgl	s;
	struct rdsd_dma_sgl	d;
	struct dma_chan		chan;
	struct dma_device	ddev;
	struct device		dev;
};

#define COPY_LEN	PAGE_SIZE

static struct copy_case *copy_case_new(struct kunit *test,
				       struct stub_engine *e)
{
	struct copy_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	u8 *p;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->src = alloc_page(GFP_KERNEL);
	c->dst = alloc_pages(GFP_KERNEL | __GFP_ZERO, 1);
	KUNIT_ASSERT_NOT_NULL(test, c->src);
	KUNIT_ASSERT_NOT_NULL(test, c->dst);
	p = page_address(c->src);
	for (i = 0; i < PAGE_SIZE; i++)
		p[i] = i * 7 + 1;

	sg_init_table(c->ssg, 3);
	sg_set_page(&c->ssg[0], c->src, 100, 0);
	sg_set_page(&c->ssg[1], c->src, 1000, 100);
	sg_set_page(&c->ssg[2], c->src, PAGE_SIZE - 1100, 1100);
	sg_init_table(c->dsg, 2);
	sg_set_page(&c->dsg[0], c->dst, 3000, 10);
	sg_set_page(&c->dsg[1], c->dst, PAGE_SIZE - 3000, 5000);
	c->s = (struct rdsd_dma_sgl){ .sg = c->ssg, .nents = 3 };
	c->d = (struct rdsd_dma_sgl){ .sg = c->dsg, .nents = 2 };
	c->ddev.dev = &c->dev;
	c->chan.device = &c->ddev;

	e->fail_desc = -1;
	e->fail_prep = -1;
	test->priv = e;
	kunit_activate_static_stub(test, rdsd_dma_map, stub_map);
	kunit_activate_static_stub(test, rdsd_dma_unmap, stub_unmap);
	kunit_activate_static_stub(test, rdsd_dma_prep, stub_prep);
	kunit_activate_static_stub(test, rdsd_dma_submit, stub_submit);
	kunit_activate_static_stub(test, rdsd_dma_issue, stub_issue);
	kunit_activate_static_stub(test, rdsd_dma_terminate, stub_terminate);
	return c;
}

static void copy_case_free(struct copy_case *c)
{
	__free_page(c->src);
	__free_pages(c->dst, 1);
}

/* Did @c's destination receive the source, and nothing else? */
static bool copy_case_ok(struct copy_case *c)
{
	u8 *s = page_address(c->src), *d = page_address(c->dst);

	return !memcmp(d + 10, s, 3000) &&
	       !memcmp(d + 5000, s + 3000, PAGE_SIZE - 3000) &&
	       !memchr_inv(d, 0, 10) &&
	       !memchr_inv(d + 3010, 0, 5000 - 3010);
}

static void dma_copy_completes(struct kunit *test)
{
	static const enum stub_order orders[] = { IN_ORDER, REVERSED };
	int i;

	for (i = 0; i < ARRAY_SIZE(orders); i++) {
		struct stub_engine e = { .order = orders[i] };
		struct copy_case *c = copy_case_new(test, &e);

		KUNIT_EXPECT_EQ(test, rdsd_dma_engine_copy(&c->chan, &c->d,
							   &c->s, COPY_LEN), 0);
		KUNIT_EXPECT_TRUE(test, copy_case_ok(c));
		/* 2 descriptors: the source is one run, the destination two */
		KUNIT_EXPECT_EQ(test, e.called, 2);
		KUNIT_EXPECT_EQ(test, e.mapped, 0);
		KUNIT_EXPECT_FALSE(test, e.terminated);
		copy_case_free(c);
	}
}

static void dma_copy_failed_descriptor(struct kunit *test)
{
	struct stub_engine e = { .order = REVERSED };
	struct copy_case *c = copy_case_new(test, &e);

	e.fail_desc = 1;
	KUNIT_EXPECT_EQ(test, rdsd_dma_engine_copy(&c->chan, &c->d, &c->s,
						   COPY_LEN), -EIO);
	KUNIT_EXPECT_EQ(test, e.called, 2);
	KUNIT_EXPECT_EQ(test, e.mapped, 0);
	KUNIT_EXPECT_FALSE(test, copy_case_ok(c));
	/* the CPU makes it again whole */
	rdsd_dma_cpu_copy(&c->d, &c->s, COPY_LEN);
	KUNIT_EXPECT_TRUE(test, copy_case_ok(c));
	copy_case_free(c);
}

static void dma_copy_failed_prep(struct kunit *test)
{
	struct stub_engine e = { .order = IN_ORDER };
	struct copy_case *c = copy_case_new(test, &e);

	e.fail_prep = 1;
	KUNIT_EXPECT_EQ(test, rdsd_dma_engine_copy(&c->chan, &c->d, &c->s,
						   COPY_LEN), -ENOMEM);
	/* what was submitted was issued and waited for */
	KUNIT_EXPECT_EQ(test, e.called, 1);
	KUNIT_EXPECT_EQ(test, e.nq, 0);
	KUNIT_EXPECT_EQ(test, e.mapped, 0);
	copy_case_free(c);
}

static void dma_copy_times_out(struct kunit *test)
{
	unsigned int saved = rdsd_dma_timeout_ms;
	struct stub_engine e = { .order = NEVER };
	struct copy_case *c = copy_case_new(test, &e);

	rdsd_dma_timeout_ms = 20;
	KUNIT_EXPECT_EQ(test, rdsd_dma_engine_copy(&c->chan, &c->d, &c->s,
						   COPY_LEN), -ETIMEDOUT);
	rdsd_dma_timeout_ms = saved;
	KUNIT_EXPECT_TRUE(test, e.terminated);
	KUNIT_EXPECT_EQ(test, e.called, 0);
	KUNIT_EXPECT_EQ(test, e.mapped, 0);
	copy_case_free(c);
}

static void dma_cpu_copy_boundaries(struct kunit *test)
{
	struct stub_engine e = { .order = IN_ORDER };
	struct copy_case *c = copy_case_new(test, &e);

	rdsd_dma_cpu_copy(&c->d, &c->s, COPY_LEN);
	KUNIT_EXPECT_TRUE(test, copy_case_ok(c));
	copy_case_free(c);
}

static struct kunit_case rdsd_dma_cases[] = {
	KUNIT_CASE(dma_chunks_merge_contiguous),
	KUNIT_CASE(dma_chunks_split_at_gaps),
	KUNIT_CASE(dma_chunks_max_and_short),
	KUNIT_CASE(dma_decide_thresholds),
	KUNIT_CASE(dma_copy_completes),
	KUNIT_CASE(dma_copy_failed_descriptor),
	KUNIT_CASE(dma_copy_failed_prep),
	KUNIT_CASE(dma_copy_times_out),
	KUNIT_CASE(dma_cpu_copy_boundaries),
	{}
};

static struct kunit_suite rdsd_dma_suite = {
	.name = "rds_doca_dma",
	.test_cases = rdsd_dma_cases,
};

kunit_test_suites(&rdsd_dma_suite);
