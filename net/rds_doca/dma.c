// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca copy engine.
 *
 * Payload copies of at least a threshold, one per enum rdsd_copy_dir, go
 * to a dmaengine DMA_MEMCPY channel; smaller ones, copies made while no
 * channel is held and copies the engine fails are made by the CPU.  Each
 * use point makes one call here: rdsd_dma_from_iter() (sendmsg),
 * rdsd_dma_to_iter() (recvmsg, both transports) and rdsd_dma_copy_pages()
 * (loopback RDMA).
 *
 * The rules an engine copy keeps:
 *  - Both sides' pages are owned for the whole copy: user pages are pinned
 *    here and released only once no descriptor of the copy can run (all
 *    completed, or the channel terminated); kernel pages belong to a
 *    message or an operation the caller holds.
 *  - The caller waits for the copy, so a message is queued or delivered
 *    only after its bytes are in place: completion order, whatever the
 *    engine's, never changes delivery order.
 *  - A copy the engine fails (a mapping, a descriptor that cannot be
 *    prepared or submitted, a completion with an error, a timeout) is made
 *    again whole by the CPU from the same pages, and counted as a fallback.
 *
 * Channels are taken with dma_request_chan_by_mask() while the mode is
 * "auto": at load, and, while none is held, at most once a second from a
 * work item when a copy would have used one, so a provider loaded later is
 * found.  One is taken per online NUMA node (at most RDSD_DMA_MAX_CHANS) and
 * a copy uses the one of its CPU's node if there is one.  They are released
 * when the mode is set to "off" and at unload.  dmaengine holds a reference
 * on a provider's module for each channel taken, so a provider is removed
 * after setting the mode to "off".
 *
 * Locking: rdsd_dma.lock is held for read by a copy from choosing its
 * channel to releasing its pages, and for write to take or release
 * channels, so a channel is never released under a copy.  A channel's
 * submit_lock is held for a whole engine copy, from its first descriptor
 * to its last completion or the channel's termination: a channel carries
 * one copy at a time, and a timeout's termination never drops another
 * copy's descriptors.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/workqueue.h>

#include "rdsd.h"
#include "dma.h"
#include "stats.h"

#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/static_stub.h>
#else
#define KUNIT_STATIC_STUB_REDIRECT(...)	do { } while (0)
#endif

#include "trace.h"

static char *rdsd_dma_mode = "auto";
module_param_named(dma, rdsd_dma_mode, charp, 0444);
MODULE_PARM_DESC(dma, "copy engine at load: auto (use DMA_MEMCPY channels) or off");

static unsigned int rdsd_dma_min_param[RDSD_COPY_NR] = {
	[RDSD_COPY_SEND] = 65536,
	[RDSD_COPY_RECV] = 65536,
	[RDSD_COPY_RDMA] = 65536,
};
module_param_named(dma_send_min, rdsd_dma_min_param[RDSD_COPY_SEND], uint,
		   0444);
MODULE_PARM_DESC(dma_send_min, "smallest sendmsg payload copied by the engine, bytes");
module_param_named(dma_recv_min, rdsd_dma_min_param[RDSD_COPY_RECV], uint,
		   0444);
MODULE_PARM_DESC(dma_recv_min, "smallest recvmsg payload copied by the engine, bytes");
module_param_named(dma_rdma_min, rdsd_dma_min_param[RDSD_COPY_RDMA], uint,
		   0444);
MODULE_PARM_DESC(dma_rdma_min, "smallest loopback RDMA copied by the engine, bytes");

VISIBLE_IF_KUNIT unsigned int rdsd_dma_timeout_ms = 5000;
EXPORT_SYMBOL_IF_KUNIT(rdsd_dma_timeout_ms);
module_param_named(dma_timeout_ms, rdsd_dma_timeout_ms, uint, 0444);
MODULE_PARM_DESC(dma_timeout_ms, "engine copy time after which the channel is stopped and the CPU copies");

/**
 * struct rdsd_dma_chan - a channel held
 * @chan: the channel, from its request to its release.
 * @node: NUMA node of its device.
 * @submit_lock: held for one engine copy on @chan at a time (see above).
 */
struct rdsd_dma_chan {
	struct dma_chan	*chan;
	int		node;
	struct mutex	submit_lock;	/* see above */
};

/**
 * struct rdsd_dma - the copy engine, one per module
 * @lock: read by copies, written to take or release channels and to
 *	change @enabled.
 * @enabled: mode "auto"; read locklessly by rdsd_dma_wanted().
 * @nr: channels in @chans; read locklessly as a hint.
 * @chans: channels held.
 * @rr: round robin among the channels when none is on the copy's node.
 * @min: threshold of each direction, bytes; read locklessly.
 * @next_probe: jiffies before which no new probe is started.
 * @probe_work: takes channels when a copy found none.
 */
static struct rdsd_dma {
	struct rw_semaphore	lock;
	bool			enabled;
	unsigned int		nr;
	struct rdsd_dma_chan	chans[RDSD_DMA_MAX_CHANS];
	atomic_t		rr;
	u32			min[RDSD_COPY_NR];
	unsigned long		next_probe;
	struct work_struct	probe_work;
} rdsd_dma = {
	.lock = __RWSEM_INITIALIZER(rdsd_dma.lock),
};

/* Channels ---------------------------------------------------------------- */

/* With rdsd_dma.lock held for write. */
static void rdsd_dma_acquire(void)
{
	unsigned int want = min_t(unsigned int, num_online_nodes(),
				  RDSD_DMA_MAX_CHANS);
	dma_cap_mask_t mask;

	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	while (rdsd_dma.nr < want) {
		struct dma_chan *chan = dma_request_chan_by_mask(&mask);
		struct rdsd_dma_chan *c;

		if (IS_ERR(chan))
			break;
		c = &rdsd_dma.chans[rdsd_dma.nr];
		c->chan = chan;
		c->node = dev_to_node(chan->device->dev);
		WRITE_ONCE(rdsd_dma.nr, rdsd_dma.nr + 1);
		pr_info("copy engine: channel %s (node %d)\n",
			dma_chan_name(chan), c->node);
	}
}

/* With rdsd_dma.lock held for write: no copy is running. */
static void rdsd_dma_release(void)
{
	while (rdsd_dma.nr) {
		struct rdsd_dma_chan *c = &rdsd_dma.chans[rdsd_dma.nr - 1];

		pr_info("copy engine: releasing %s\n", dma_chan_name(c->chan));
		dma_release_channel(c->chan);
		c->chan = NULL;
		WRITE_ONCE(rdsd_dma.nr, rdsd_dma.nr - 1);
	}
}

static void rdsd_dma_probe_worker(struct work_struct *work)
{
	down_write(&rdsd_dma.lock);
	if (rdsd_dma.enabled && !rdsd_dma.nr)
		rdsd_dma_acquire();
	up_write(&rdsd_dma.lock);
}

/**
 * rdsd_dma_decide - where a copy goes
 * @enabled: the mode is "auto".
 * @nr: channels held.
 * @min: the direction's threshold, bytes.
 * @len: the copy's length; an empty copy is the CPU's.
 * @probe: set when a channel would have been used had there been one.
 *
 * Returns RDSD_COPY_ENGINE or RDSD_COPY_CPU.
 */
VISIBLE_IF_KUNIT enum rdsd_copy_path rdsd_dma_decide(bool enabled,
						     unsigned int nr, u32 min,
						     size_t len, bool *probe)
{
	*probe = false;
	if (!enabled || !len || len < min)
		return RDSD_COPY_CPU;
	if (nr)
		return RDSD_COPY_ENGINE;
	*probe = true;
	return RDSD_COPY_CPU;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_dma_decide);

/*
 * Would a copy of @len bytes in @dir go to the engine?  Lockless;
 * rdsd_dma_begin() looks again under the lock.  Without a channel for a
 * copy that would use one, starts a probe at most once a second.
 */
static bool rdsd_dma_wanted(enum rdsd_copy_dir dir, size_t len)
{
	unsigned long next;
	bool probe;

	if (rdsd_dma_decide(READ_ONCE(rdsd_dma.enabled),
			    READ_ONCE(rdsd_dma.nr),
			    READ_ONCE(rdsd_dma.min[dir]), len, &probe) ==
	    RDSD_COPY_ENGINE)
		return true;
	next = READ_ONCE(rdsd_dma.next_probe);
	if (probe && time_after_eq(jiffies, next) &&
	    cmpxchg(&rdsd_dma.next_probe, next, jiffies + HZ) == next)
		schedule_work(&rdsd_dma.probe_work);
	return false;
}

/* A channel for a copy, with rdsd_dma.lock held for read; or NULL. */
static struct rdsd_dma_chan *rdsd_dma_begin(enum rdsd_copy_dir dir,
					    size_t len)
{
	int node = numa_node_id();
	unsigned int i;

	if (!rdsd_dma_wanted(dir, len))
		return NULL;
	down_read(&rdsd_dma.lock);
	if (!rdsd_dma.enabled || !rdsd_dma.nr) {
		up_read(&rdsd_dma.lock);
		return NULL;
	}
	for (i = 0; i < rdsd_dma.nr; i++)
		if (rdsd_dma.chans[i].node == node)
			return &rdsd_dma.chans[i];
	i = (unsigned int)atomic_inc_return(&rdsd_dma.rr) % rdsd_dma.nr;
	return &rdsd_dma.chans[i];
}

static void rdsd_dma_end(void)
{
	up_read(&rdsd_dma.lock);
}

static void rdsd_dma_count(struct rdsd_net *rn, enum rdsd_copy_dir dir,
			   enum rdsd_copy_path path, size_t len)
{
	if (!rn)
		return;
	this_cpu_inc(rn->stats->copy[dir][path].ops);
	this_cpu_add(rn->stats->copy[dir][path].bytes, len);
}

/* The dmaengine calls, so that KUnit can stand in for a provider ---------- */

VISIBLE_IF_KUNIT int rdsd_dma_map(struct device *dev, struct scatterlist *sg,
				  unsigned int nents,
				  enum dma_data_direction dir)
{
	KUNIT_STATIC_STUB_REDIRECT(rdsd_dma_map, dev, sg, nents, dir);
	return dma_map_sg(dev, sg, nents, dir);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_dma_map);

VISIBLE_IF_KUNIT void rdsd_dma_unmap(struct device *dev,
				     struct scatterlist *sg,
				     unsigned int nents,
				     enum dma_data_direction dir)
{
	KUNIT_STATIC_STUB_REDIRECT(rdsd_dma_unmap, dev, sg, nents, dir);
	dma_unmap_sg(dev, sg, nents, dir);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_dma_unmap);

VISIBLE_IF_KUNIT struct dma_async_tx_descriptor *
rdsd_dma_prep(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src,
	      size_t len)
{
	KUNIT_STATIC_STUB_REDIRECT(rdsd_dma_prep, chan, dst, src, len);
	return dmaengine_prep_dma_memcpy(chan, dst, src, len,
					 DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_dma_prep);

VISIBLE_IF_KUNIT dma_cookie_t
rdsd_dma_submit(struct dma_async_tx_descriptor *tx)
{
	KUNIT_STATIC_STUB_REDIRECT(rdsd_dma_submit, tx);
	return dmaengine_submit(tx);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_dma_submit);

VISIBLE_IF_KUNIT void rdsd_dma_issue(struct dma_chan *chan)
{
	KUNIT_STATIC_STUB_REDIRECT(rdsd_dma_issue, chan);
	dma_async_issue_pending(chan);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_dma_issue);

VISIBLE_IF_KUNIT void rdsd_dma_terminate(struct dma_chan *chan)
{
	KUNIT_STATIC_STUB_REDIRECT(rdsd_dma_terminate, chan);
	dmaengine_terminate_sync(chan);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_dma_terminate);

/* Engine copies ----------------------------------------------------------- */

/**
 * rdsd_dma_chunks - cut a copy into descriptors
 * @dst: mapped destination entries (sg_dma_address, sg_dma_len).
 * @dn: their number.
 * @src: mapped source entries.
 * @sn: their number.
 * @len: bytes to copy from the start of both.
 * @max_chunk: largest descriptor, bytes.
 * @emit: called for each descriptor, in order; a non-zero return stops.
 * @arg: its argument.
 *
 * A descriptor covers bytes contiguous on both sides, as many as
 * @max_chunk allows.  Returns 0, @emit's error, or -EINVAL if the entries
 * hold fewer than @len bytes.
 */
VISIBLE_IF_KUNIT int
rdsd_dma_chunks(struct scatterlist *dst, int dn, struct scatterlist *src,
		int sn, size_t len, u32 max_chunk,
		int (*emit)(void *arg, const struct rdsd_dma_chunk *c),
		void *arg)
{
	struct rdsd_dma_chunk cur = {};
	u32 doff = 0, soff = 0;
	int di = 0, si = 0, ret;

	while (len) {
		u64 d, s;
		u32 n;

		if (di >= dn || si >= sn)
			return -EINVAL;
		d = sg_dma_address(dst) + doff;
		s = sg_dma_address(src) + soff;
		n = min_t(size_t, len, min(sg_dma_len(dst) - doff,
					   sg_dma_len(src) - soff));
		if (cur.len && cur.dst + cur.len == d && cur.src + cur.len == s &&
		    cur.len + n <= max_chunk) {
			cur.len += n;
		} else {
			n = min(n, max_chunk);
			if (cur.len) {
				ret = emit(arg, &cur);
				if (ret)
					return ret;
			}
			cur.dst = d;
			cur.src = s;
			cur.len = n;
		}
		len -= n;
		doff += n;
		soff += n;
		if (doff == sg_dma_len(dst)) {
			dst = sg_next(dst);
			di++;
			doff = 0;
		}
		if (soff == sg_dma_len(src)) {
			src = sg_next(src);
			si++;
			soff = 0;
		}
	}
	return cur.len ? emit(arg, &cur) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_dma_chunks);

/**
 * struct rdsd_dma_wait - completion bookkeeping of one engine copy
 * @done: completed when @pending reaches zero.
 * @pending: descriptors submitted and not completed, plus one held by the
 *	submitter until it has issued them all.
 * @status: 0, or -EIO once a descriptor completed with an error.
 * @chan: channel, for the submitter's loop.
 * @nr: descriptors submitted.
 *
 * On the submitter's stack: it waits for @done, or terminates the channel
 * (after which no callback runs), before it returns.
 */
struct rdsd_dma_wait {
	struct completion	done;
	atomic_t		pending;
	int			status;
	struct dma_chan		*chan;
	unsigned int		nr;
};

static void rdsd_dma_callback(void *arg, const struct dmaengine_result *res)
{
	struct rdsd_dma_wait *w = arg;

	if (res && res->result != DMA_TRANS_NOERROR)
		cmpxchg(&w->status, 0, -EIO);
	if (atomic_dec_and_test(&w->pending))
		complete(&w->done);
}

static int rdsd_dma_emit(void *arg, const struct rdsd_dma_chunk *c)
{
	struct rdsd_dma_wait *w = arg;
	struct dma_async_tx_descriptor *tx;

	tx = rdsd_dma_prep(w->chan, c->dst, c->src, c->len);
	if (!tx)
		return -ENOMEM;
	tx->callback_result = rdsd_dma_callback;
	tx->callback_param = w;
	atomic_inc(&w->pending);
	if (dma_submit_error(rdsd_dma_submit(tx))) {
		atomic_dec(&w->pending);
		return -EIO;
	}
	w->nr++;
	return 0;
}

/**
 * rdsd_dma_engine_copy - copy @len bytes from @src to @dst on @chan
 * @chan: channel held.
 * @dst: destination, owned by the caller for the call.
 * @src: source, the same.
 * @len: bytes.
 *
 * Process context; sleeps until the engine is done with every page.
 * Returns 0 once the bytes are in place, or an error after which the
 * engine no longer touches the pages and @dst holds anything.
 */
VISIBLE_IF_KUNIT int rdsd_dma_engine_copy(struct dma_chan *chan,
					  struct rdsd_dma_sgl *dst,
					  struct rdsd_dma_sgl *src, size_t len)
{
	struct device *dev = chan->device->dev;
	struct rdsd_dma_wait w = { .chan = chan };
	int dn, sn, ret;

	might_sleep();
	sn = rdsd_dma_map(dev, src->sg, src->nents, DMA_TO_DEVICE);
	if (sn <= 0)
		return -EIO;
	dn = rdsd_dma_map(dev, dst->sg, dst->nents, DMA_FROM_DEVICE);
	if (dn <= 0) {
		rdsd_dma_unmap(dev, src->sg, src->nents, DMA_TO_DEVICE);
		return -EIO;
	}
	init_completion(&w.done);
	atomic_set(&w.pending, 1);
	ret = rdsd_dma_chunks(dst->sg, dn, src->sg, sn, len,
			      dma_get_max_seg_size(dev), rdsd_dma_emit, &w);
	trace_rdsd_dma_submit(chan, len, w.nr, ret);
	if (w.nr)
		rdsd_dma_issue(chan);
	if (!atomic_dec_and_test(&w.pending) &&
	    !wait_for_completion_timeout(&w.done,
					 msecs_to_jiffies(rdsd_dma_timeout_ms))) {
		/* after this no descriptor of ours runs or calls back */
		rdsd_dma_terminate(chan);
		ret = -ETIMEDOUT;
	}
	if (!ret)
		ret = READ_ONCE(w.status);
	trace_rdsd_dma_complete(chan, len, ret);

	rdsd_dma_unmap(dev, dst->sg, dst->nents, DMA_FROM_DEVICE);
	rdsd_dma_unmap(dev, src->sg, src->nents, DMA_TO_DEVICE);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_dma_engine_copy);

/**
 * rdsd_dma_cpu_copy - the same copy by the CPU
 * @dst: destination entries.
 * @src: source entries.
 * @len: bytes.
 */
VISIBLE_IF_KUNIT void rdsd_dma_cpu_copy(struct rdsd_dma_sgl *dst,
					struct rdsd_dma_sgl *src, size_t len)
{
	struct scatterlist *ds = dst->sg, *ss = src->sg;
	u32 doff = 0, soff = 0;

	while (len && ds && ss) {
		size_t dpos = ds->offset + doff, spos = ss->offset + soff;
		struct page *dp = nth_page(sg_page(ds), dpos >> PAGE_SHIFT);
		struct page *sp = nth_page(sg_page(ss), spos >> PAGE_SHIFT);
		size_t n = min_t(size_t, len, min(ds->length - doff,
						  ss->length - soff));
		u8 *s, *d;

		n = min_t(size_t, n, PAGE_SIZE - max(offset_in_page(dpos),
						     offset_in_page(spos)));
		s = kmap_local_page(sp);
		d = kmap_local_page(dp);
		memcpy(d + offset_in_page(dpos), s + offset_in_page(spos), n);
		kunmap_local(d);
		kunmap_local(s);
		flush_dcache_page(dp);
		len -= n;
		doff += n;
		soff += n;
		if (doff == ds->length) {
			ds = sg_next(ds);
			doff = 0;
		}
		if (soff == ss->length) {
			ss = sg_next(ss);
			soff = 0;
		}
	}
	WARN_ON_ONCE(len);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_dma_cpu_copy);

/* The engine copy of a use point, its fallback and its counting. */
static void rdsd_dma_run(struct rdsd_net *rn, enum rdsd_copy_dir dir,
			 struct rdsd_dma_chan *c, struct rdsd_dma_sgl *dst,
			 struct rdsd_dma_sgl *src, size_t len)
{
	int ret;

	mutex_lock(&c->submit_lock);
	ret = rdsd_dma_engine_copy(c->chan, dst, src, len);
	mutex_unlock(&c->submit_lock);
	if (ret) {
		rdsd_dma_cpu_copy(dst, src, len);
		rdsd_dma_count(rn, dir, RDSD_COPY_FALLBACK, len);
		return;
	}
	rdsd_dma_count(rn, dir, RDSD_COPY_ENGINE, len);
}

/* Sides of a copy --------------------------------------------------------- */

/**
 * rdsd_dma_sgl_release - let go of a side's pages and entries
 * @s: side, emptied.
 *
 * Any context (without dirty pages to mark).
 */
void rdsd_dma_sgl_release(struct rdsd_dma_sgl *s)
{
	if (s->pages) {
#ifdef ITER_ALLOW_P2PDMA	/* the extraction API: pins */
		unpin_user_pages_dirty_lock(s->pages, s->npages, s->dirty);
#else
		unsigned int i;

		for (i = 0; i < s->npages; i++) {
			if (s->dirty)
				set_page_dirty_lock(s->pages[i]);
			put_page(s->pages[i]);
		}
#endif
		kvfree(s->pages);
	}
	kvfree(s->sg);
	memset(s, 0, sizeof(*s));
}

static int rdsd_dma_sgl_alloc(struct rdsd_dma_sgl *s, unsigned int nents)
{
	if (!nents)
		return -EINVAL;
	s->sg = kvmalloc_array(nents, sizeof(*s->sg), GFP_KERNEL);
	if (!s->sg)
		return -ENOMEM;
	sg_init_table(s->sg, nents);
	s->nents = nents;
	return 0;
}

/* A private copy of the entries holding the first @len bytes of @sg. */
static int rdsd_dma_sgl_clone(struct rdsd_dma_sgl *s, struct scatterlist *sg,
			      unsigned int nents, size_t len)
{
	struct scatterlist *p;
	unsigned int i, n = 0;
	size_t left = len;

	for_each_sg(sg, p, nents, i) {
		if (!left)
			break;
		left -= min_t(size_t, left, p->length);
		n++;
	}
	if (left || rdsd_dma_sgl_alloc(s, n))
		return -EINVAL;
	left = len;
	for_each_sg(sg, p, n, i) {
		sg_set_page(&s->sg[i], sg_page(p),
			    min_t(size_t, left, p->length), p->offset);
		left -= s->sg[i].length;
	}
	return 0;
}

/* Entries for @len bytes at byte @off of the page array @pages. */
static int rdsd_dma_sgl_pages(struct rdsd_dma_sgl *s, struct page **pages,
			      u64 off, size_t len)
{
	unsigned int i, n = DIV_ROUND_UP(offset_in_page(off) + len, PAGE_SIZE);
	u32 poff = offset_in_page(off);

	if (rdsd_dma_sgl_alloc(s, n))
		return -ENOMEM;
	pages += off >> PAGE_SHIFT;
	for (i = 0; i < n; i++) {
		u32 l = min_t(size_t, len, PAGE_SIZE - poff);

		sg_set_page(&s->sg[i], pages[i], l, poff);
		len -= l;
		poff = 0;
	}
	return 0;
}

/**
 * rdsd_dma_sgl_pin - pin the user pages of @len bytes of @it, described
 * @s: side to fill; released with rdsd_dma_sgl_release().
 * @it: user memory; advanced past the bytes.
 * @len: bytes, at most what @it holds.
 *
 * Also how a MSG_ZEROCOPY send holds its payload (zcopy.c).  Process
 * context.  Returns 0, -EINVAL for memory not the user's or a short @it,
 * or -EFAULT; on failure nothing stays pinned and @it is where it was.
 */
int rdsd_dma_sgl_pin(struct rdsd_dma_sgl *s, struct iov_iter *it, size_t len)
{
	size_t count = iov_iter_count(it), done = 0;
	unsigned int max, nsg = 0;

	if (!user_backed_iter(it) || count < len)
		return -EINVAL;
#ifndef ITER_ALLOW_P2PDMA
	/*
	 * Without the extraction API the pages would be held by reference,
	 * not pinned: an engine must not write them (a fork could copy a
	 * page under it), so recvmsg copies into them with the CPU.
	 */
	if (iov_iter_rw(it) == READ)
		return -EINVAL;
#endif
	iov_iter_truncate(it, len);
	max = iov_iter_npages(it, INT_MAX);
	iov_iter_reexpand(it, count);
	s->pages = kvmalloc_array(max, sizeof(*s->pages), GFP_KERNEL);
	if (!s->pages || rdsd_dma_sgl_alloc(s, max))
		goto fail;
	s->dirty = iov_iter_rw(it) == READ;
	while (done < len) {
		struct page **p = s->pages + s->npages;
		unsigned int k, got_pages;
		size_t off;
		ssize_t got;

#ifdef ITER_ALLOW_P2PDMA	/* the extraction API: pins */
		got = iov_iter_extract_pages(it, &p, len - done,
					     max - s->npages, 0, &off);
#else
		got = iov_iter_get_pages2(it, p, len - done, max - s->npages,
					  &off);
#endif
		if (got <= 0)
			goto fail;
		got_pages = DIV_ROUND_UP(off + got, PAGE_SIZE);
		s->npages += got_pages;
		done += got;
		for (k = 0; k < got_pages; k++) {
			u32 l = min_t(size_t, got, PAGE_SIZE - off);

			sg_set_page(&s->sg[nsg++], p[k], l, off);
			got -= l;
			off = 0;
		}
	}
	sg_mark_end(&s->sg[nsg - 1]);
	s->nents = nsg;
	return 0;

fail:
	iov_iter_revert(it, done);
	s->dirty = false;
	rdsd_dma_sgl_release(s);
	return -EFAULT;
}

/* Use points -------------------------------------------------------------- */

/* rdsd_dma_copy_pages() by the CPU, without entries for the region. */
static void rdsd_dma_copy_pages_cpu(struct page **pages, u64 off,
				    struct scatterlist *sg, unsigned int nents,
				    bool to_pages)
{
	struct scatterlist *p;
	unsigned int i;

	for_each_sg(sg, p, nents, i) {
		u32 done = 0;

		while (done < p->length) {
			struct page *mp = pages[off >> PAGE_SHIFT];
			u32 moff = offset_in_page(off);
			u32 n = min_t(u32, p->length - done, PAGE_SIZE - moff);
			u8 *m = kmap_local_page(mp);
			u8 *l = kmap_local_page(sg_page(p));

			if (to_pages)
				memcpy(m + moff, l + p->offset + done, n);
			else
				memcpy(l + p->offset + done, m + moff, n);
			kunmap_local(l);
			kunmap_local(m);
			flush_dcache_page(to_pages ? mp : sg_page(p));
			done += n;
			off += n;
		}
	}
}

/*
 * The engine copy between a message's entries and user memory, sendmsg's
 * (RDSD_COPY_SEND) or recvmsg's.  Returns false, with nothing consumed
 * from @it and the copy counted as the CPU's, when the caller's CPU copy
 * must make it.
 */
static bool rdsd_dma_iter(struct rdsd_net *rn, enum rdsd_copy_dir dir,
			  struct scatterlist *sg, unsigned int nents,
			  struct iov_iter *it, size_t len)
{
	struct rdsd_dma_sgl user = {}, msg = {};
	bool to_user = dir == RDSD_COPY_RECV;
	struct rdsd_dma_chan *c;
	bool done = false;

	c = rdsd_dma_begin(dir, len);
	if (c) {
		if (!rdsd_dma_sgl_pin(&user, it, len)) {
			if (!rdsd_dma_sgl_clone(&msg, sg, nents, len)) {
				rdsd_dma_run(rn, dir, c, to_user ? &user : &msg,
					     to_user ? &msg : &user, len);
				done = true;
			} else {
				/* no memory for the entries */
				iov_iter_revert(it, len);
				user.dirty = false;
			}
			rdsd_dma_sgl_release(&msg);
			rdsd_dma_sgl_release(&user);
		}
		rdsd_dma_end();
	}
	if (!done)
		rdsd_dma_count(rn, dir, RDSD_COPY_CPU, len);
	return done;
}

/**
 * rdsd_dma_from_iter - sendmsg's copy of a payload into message pages
 * @rn: namespace counted, or NULL.
 * @sg: the message's entries.
 * @nents: their number.
 * @from: user data; @len bytes are consumed.
 * @len: payload length, what @sg holds.
 *
 * Process context.  Returns 0 or -EFAULT.
 */
int rdsd_dma_from_iter(struct rdsd_net *rn, struct scatterlist *sg,
		       unsigned int nents, struct iov_iter *from, size_t len)
{
	struct scatterlist *p;
	unsigned int i;

	if (rdsd_dma_iter(rn, RDSD_COPY_SEND, sg, nents, from, len))
		return 0;
	for_each_sg(sg, p, nents, i) {
		if (copy_from_iter(sg_virt(p), p->length, from) != p->length)
			return -EFAULT;
	}
	return 0;
}

/**
 * rdsd_dma_to_iter - recvmsg's copy of the first @len bytes of a message
 * @rn: namespace counted, or NULL.
 * @sg: the message's entries; only read, other readers may copy at once.
 * @nents: their number.
 * @to: user buffer.
 * @len: bytes, at most what @sg holds and what @to has room for.
 *
 * Process context.  Returns @len or -EFAULT.
 */
int rdsd_dma_to_iter(struct rdsd_net *rn, struct scatterlist *sg,
		     unsigned int nents, struct iov_iter *to, size_t len)
{
	struct scatterlist *p;
	size_t done = 0;
	unsigned int i;

	if (rdsd_dma_iter(rn, RDSD_COPY_RECV, sg, nents, to, len))
		return len;
	for_each_sg(sg, p, nents, i) {
		size_t n = min_t(size_t, p->length, len - done);

		if (!n)
			break;
		if (copy_to_iter(sg_virt(p), n, to) != n)
			return -EFAULT;
		done += n;
	}
	return done;
}

/**
 * rdsd_dma_copy_pages - loopback RDMA between a region and local buffers
 * @rn: namespace counted.
 * @pages: the region's pinned pages.
 * @off: byte of the region's first page where the copy starts.
 * @sg: the operation's local entries, pinned.
 * @nents: their number.
 * @len: bytes, what @sg describes.
 * @to_pages: write the region (else read it).
 *
 * Process context when the engine may be used.  Returns 0.
 */
int rdsd_dma_copy_pages(struct rdsd_net *rn, struct page **pages, u64 off,
			struct scatterlist *sg, unsigned int nents,
			size_t len, bool to_pages)
{
	struct rdsd_dma_sgl region = {}, local = {};
	struct rdsd_dma_chan *c;

	c = rdsd_dma_begin(RDSD_COPY_RDMA, len);
	if (c) {
		if (!rdsd_dma_sgl_pages(&region, pages, off, len) &&
		    !rdsd_dma_sgl_clone(&local, sg, nents, len)) {
			if (to_pages)
				rdsd_dma_run(rn, RDSD_COPY_RDMA, c, &region,
					     &local, len);
			else
				rdsd_dma_run(rn, RDSD_COPY_RDMA, c, &local,
					     &region, len);
			rdsd_dma_sgl_release(&local);
			rdsd_dma_sgl_release(&region);
			rdsd_dma_end();
			return 0;
		}
		rdsd_dma_sgl_release(&region);
		rdsd_dma_end();
	}
	rdsd_dma_count(rn, RDSD_COPY_RDMA, RDSD_COPY_CPU, len);
	rdsd_dma_copy_pages_cpu(pages, off, sg, nents, to_pages);
	return 0;
}

/* Settings ---------------------------------------------------------------- */

/**
 * rdsd_dma_get_state - what the copy engine is doing
 * @st: filled in.
 */
void rdsd_dma_get_state(struct rdsd_dma_state *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	down_read(&rdsd_dma.lock);
	st->enabled = rdsd_dma.enabled;
	st->nr = rdsd_dma.nr;
	for (i = 0; i < rdsd_dma.nr; i++)
		strscpy(st->chans[i], dma_chan_name(rdsd_dma.chans[i].chan),
			sizeof(st->chans[i]));
	for (i = 0; i < RDSD_COPY_NR; i++)
		st->min[i] = READ_ONCE(rdsd_dma.min[i]);
	up_read(&rdsd_dma.lock);
}

/**
 * rdsd_dma_set - change the mode and thresholds
 * @enabled: 1 "auto", 0 "off", -1 unchanged.
 * @min: new threshold of each direction, -1 unchanged; or NULL.
 *
 * Process context; waits for running copies when channels are released.
 * Setting "auto" takes channels now.  Returns 0.
 */
int rdsd_dma_set(int enabled, const s64 *min)
{
	unsigned int i;

	down_write(&rdsd_dma.lock);
	for (i = 0; min && i < RDSD_COPY_NR; i++)
		if (min[i] >= 0)
			WRITE_ONCE(rdsd_dma.min[i], min[i]);
	if (enabled == 0 && rdsd_dma.enabled) {
		WRITE_ONCE(rdsd_dma.enabled, false);
		rdsd_dma_release();
	} else if (enabled == 1) {
		WRITE_ONCE(rdsd_dma.enabled, true);
		rdsd_dma_acquire();
	}
	up_write(&rdsd_dma.lock);
	return 0;
}

int rdsd_dma_init(void)
{
	unsigned int i;

	if (strcmp(rdsd_dma_mode, "auto") && strcmp(rdsd_dma_mode, "off")) {
		pr_err("dma=%s: must be auto or off\n", rdsd_dma_mode);
		return -EINVAL;
	}
	if (!rdsd_dma_timeout_ms) {
		pr_err("dma_timeout_ms=0: an engine copy needs time\n");
		return -EINVAL;
	}
	for (i = 0; i < RDSD_DMA_MAX_CHANS; i++)
		mutex_init(&rdsd_dma.chans[i].submit_lock);
	INIT_WORK(&rdsd_dma.probe_work, rdsd_dma_probe_worker);
	rdsd_dma.next_probe = jiffies;
	for (i = 0; i < RDSD_COPY_NR; i++)
		rdsd_dma.min[i] = rdsd_dma_min_param[i];
	return rdsd_dma_set(!strcmp(rdsd_dma_mode, "auto"), NULL);
}

void rdsd_dma_exit(void)
{
	rdsd_dma_set(0, NULL);
	cancel_work_sync(&rdsd_dma.probe_work);
	/* a probe that ran after the release took nothing: enabled is off */
}
