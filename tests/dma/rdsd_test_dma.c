// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdsd_test_dma: a software DMA_MEMCPY engine, loaded only by tests.
 *
 * The module registers one dmaengine device, "rdsd_test_dma" (a platform
 * device bound to a platform driver of the same name), with `channels`
 * private DMA_MEMCPY channels.  Consumers get a channel with
 * dma_request_chan_by_mask() and use the ordinary client API: prepare,
 * submit, issue, wait for the callback.  Each channel has a kernel thread,
 * its worker, that copies with the CPU and completes descriptors in the
 * order they were issued.  Module parameters inject faults (refused
 * preparations, failed copies, slow completions, completions out of
 * order) and count what was copied.
 *
 * Addresses.  The worker turns a bus address back into a kernel address
 * with phys_to_virt().  That holds when dma-direct maps memory one to one
 * (bus address == physical address), as on x86_64 with no IOMMU in the
 * device's path, no forced bounce buffering and no memory encryption; the
 * direct map then covers every page a consumer can map.  Probing checks it
 * (maps a page on the device and compares) and the module refuses to load
 * (-ENODEV) where it does not hold.  Consumers map their buffers on
 * chan->device->dev, the platform device; the engine takes the device's
 * DMA mask to be 64 bits, so nothing is bounced.
 *
 * A descriptor moves through its channel's lists under the channel lock:
 * prepared -> submitted (tx_submit gives it a cookie) -> issued
 * (issue_pending) -> batch (the worker takes every issued descriptor at
 * once) -> running (off every list while the worker copies it and calls
 * its callback) -> freed.  terminate_all frees every descriptor still on
 * a list, without callbacks, and tells the worker to drop the running
 * one if its callback has not started.  Descriptors belong to the
 * provider from preparation to freeing: consumers never free them, and
 * DMA_CTRL_REUSE is not supported (descriptor_reuse is false).
 *
 * Lifetimes.  The platform driver and device live from module init to
 * module exit; the driver has no bind/unbind files, so the device stays
 * bound.  struct rdsd_tdma (the dma_device and its channels) is allocated
 * by probe and freed by dmaengine's last reference on the dma_device
 * (rdsd_tdma_release()), which module exit drops in
 * dma_async_device_unregister(): a consumer holding a channel holds a
 * reference on this module, so exit runs only when no channel is held,
 * and no channel can be taken once exit started.  The workers run from
 * probe until module exit stops them, idle by then.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#define RDSD_TDMA_NAME		"rdsd_test_dma"
#define RDSD_TDMA_MAX_CHANS	8
#define RDSD_TDMA_MAX_DELAY_US	100000U
/* In reorder mode, the worker lets descriptors gather this long. */
#define RDSD_TDMA_GATHER_US	1000
/* Preparation flags a memcpy accepts. */
#define RDSD_TDMA_PREP_FLAGS	(DMA_PREP_INTERRUPT | DMA_CTRL_ACK | \
				 DMA_PREP_FENCE)
#define RDSD_TDMA_WIDTHS	(BIT(DMA_SLAVE_BUSWIDTH_1_BYTE) | \
				 BIT(DMA_SLAVE_BUSWIDTH_2_BYTES) | \
				 BIT(DMA_SLAVE_BUSWIDTH_4_BYTES) | \
				 BIT(DMA_SLAVE_BUSWIDTH_8_BYTES))

static unsigned int rdsd_tdma_nr_chans = 2;
module_param_named(channels, rdsd_tdma_nr_chans, uint, 0444);
MODULE_PARM_DESC(channels, "DMA_MEMCPY channels, 1 to 8 (default 2)");

/**
 * struct rdsd_tdma_fault - an "every Nth event fails" knob
 * @every: N; 0 turns the fault off.
 * @count: events counted since the knob was last written, only while
 *	@every is not 0.
 *
 * Writing the parameter restarts the count: after writing N, the Nth,
 * 2Nth, 3Nth... events from then on fail.
 */
struct rdsd_tdma_fault {
	unsigned int every;
	atomic_t count;
};

static struct rdsd_tdma_fault rdsd_tdma_fail_prep;
static struct rdsd_tdma_fault rdsd_tdma_fail_every;

static int rdsd_tdma_fault_set(const char *val, const struct kernel_param *kp)
{
	struct rdsd_tdma_fault *f = kp->arg;
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	atomic_set(&f->count, 0);
	WRITE_ONCE(f->every, n);
	return 0;
}

static int rdsd_tdma_fault_get(char *buf, const struct kernel_param *kp)
{
	const struct rdsd_tdma_fault *f = kp->arg;

	return scnprintf(buf, PAGE_SIZE, "%u\n", READ_ONCE(f->every));
}

static const struct kernel_param_ops rdsd_tdma_fault_ops = {
	.set	= rdsd_tdma_fault_set,
	.get	= rdsd_tdma_fault_get,
};

module_param_cb(fail_prep, &rdsd_tdma_fault_ops, &rdsd_tdma_fail_prep, 0644);
MODULE_PARM_DESC(fail_prep,
		 "Every Nth device_prep_dma_memcpy() returns NULL (0: never)");
module_param_cb(fail_every, &rdsd_tdma_fault_ops, &rdsd_tdma_fail_every,
		0644);
MODULE_PARM_DESC(fail_every,
		 "Every Nth descriptor run copies only its first half and completes with DMA_TRANS_WRITE_FAILED (0: never)");

/* Is this the event the knob fails?  Counts the event. */
static bool rdsd_tdma_fault_hit(struct rdsd_tdma_fault *f)
{
	unsigned int n = READ_ONCE(f->every);

	return n && (unsigned int)atomic_inc_return(&f->count) % n == 0;
}

static unsigned int rdsd_tdma_delay_us;
module_param_named(delay_us, rdsd_tdma_delay_us, uint, 0644);
MODULE_PARM_DESC(delay_us,
		 "Sleep this long before running each descriptor (0: off, at most 100000)");

static bool rdsd_tdma_reorder;
module_param_named(reorder, rdsd_tdma_reorder, bool, 0644);
MODULE_PARM_DESC(reorder,
		 "Run each batch of issued descriptors last issued first");

static atomic_long_t rdsd_tdma_stat_copies;
static atomic_long_t rdsd_tdma_stat_bytes;
static atomic_long_t rdsd_tdma_stat_failed;
static atomic_long_t rdsd_tdma_stat_prep_failed;
static atomic_long_t rdsd_tdma_stat_aborted;

static int rdsd_tdma_stat_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static int rdsd_tdma_stat_get(char *buf, const struct kernel_param *kp)
{
	atomic_long_t *stat = kp->arg;

	return scnprintf(buf, PAGE_SIZE, "%lu\n",
			 (unsigned long)atomic_long_read(stat));
}

static const struct kernel_param_ops rdsd_tdma_stat_ops = {
	.set	= rdsd_tdma_stat_set,
	.get	= rdsd_tdma_stat_get,
};

module_param_cb(stat_copies, &rdsd_tdma_stat_ops, &rdsd_tdma_stat_copies,
		0444);
MODULE_PARM_DESC(stat_copies, "Descriptors copied in full and completed");
module_param_cb(stat_bytes, &rdsd_tdma_stat_ops, &rdsd_tdma_stat_bytes, 0444);
MODULE_PARM_DESC(stat_bytes, "Bytes of the descriptors counted in stat_copies");
module_param_cb(stat_failed, &rdsd_tdma_stat_ops, &rdsd_tdma_stat_failed,
		0444);
MODULE_PARM_DESC(stat_failed,
		 "Descriptors completed with DMA_TRANS_WRITE_FAILED (fail_every)");
module_param_cb(stat_prep_failed, &rdsd_tdma_stat_ops,
		&rdsd_tdma_stat_prep_failed, 0444);
MODULE_PARM_DESC(stat_prep_failed,
		 "device_prep_dma_memcpy() calls refused by fail_prep");
module_param_cb(stat_aborted, &rdsd_tdma_stat_ops, &rdsd_tdma_stat_aborted,
		0444);
MODULE_PARM_DESC(stat_aborted,
		 "Descriptors dropped without completion by terminate_all or channel release");

/**
 * struct rdsd_tdma_desc - one memcpy
 * @tx: the descriptor the consumer holds; its cookie is -EBUSY until it
 *	is submitted.
 * @node: on its channel's prepared, submitted, issued or batch list; on
 *	none while the worker runs it.
 * @pend: on its channel's pending list from submission until it is
 *	completed or dropped.
 * @dst: destination bus address, which is its physical address.
 * @src: source bus address.
 * @len: bytes to copy, at least one.
 *
 * Allocated by rdsd_tdma_prep_memcpy().  Freed by the worker once its
 * callback returned (or once the worker dropped it), or by
 * rdsd_tdma_terminate_all() if the worker never took it.
 */
struct rdsd_tdma_desc {
	struct dma_async_tx_descriptor tx;
	struct list_head node;
	struct list_head pend;
	dma_addr_t dst;
	dma_addr_t src;
	size_t len;
};

/**
 * struct rdsd_tdma_chan - one channel and its worker
 * @chan: the dmaengine channel.  Its cookie (the last cookie given out)
 *	and completed_cookie (every cookie up to it is done) change under
 *	@lock.
 * @lock: guards everything below but @work_wq, @idle_wq and @task.  Taken
 *	with interrupts off: consumers may call in from any context.
 * @prepared: descriptors prepared, not yet submitted.
 * @submitted: submitted, waiting for issue_pending; in cookie order.
 * @issued: issued, waiting for the worker; in cookie order.
 * @batch: what the worker took from @issued in one go and has not run.
 * @batch_reverse: @batch runs last issued first (reorder was set when
 *	the worker took it).
 * @pending: every submitted descriptor not yet completed or dropped, in
 *	cookie order; the oldest bounds completed_cookie.
 * @running: the descriptor the worker is copying or completing, or NULL.
 * @running_dropped: terminate_all came while @running was not yet
 *	completed: the worker frees it without calling back.
 * @done: descriptors the worker finished with; synchronize waits for it
 *	to move.
 * @work_wq: the worker sleeps here while @issued is empty.
 * @idle_wq: synchronize sleeps here until @done moves.
 * @task: the worker, from probe until module exit.
 *
 * Part of struct rdsd_tdma, and lives as long.
 */
struct rdsd_tdma_chan {
	struct dma_chan chan;
	spinlock_t lock;		/* see @lock above */
	struct list_head prepared;
	struct list_head submitted;
	struct list_head issued;
	struct list_head batch;
	bool batch_reverse;
	struct list_head pending;
	struct rdsd_tdma_desc *running;
	bool running_dropped;
	unsigned long done;
	wait_queue_head_t work_wq;
	wait_queue_head_t idle_wq;
	struct task_struct *task;
};

/**
 * struct rdsd_tdma - the engine
 * @dma: registered with dmaengine from probe until module exit.  The
 *	core's last reference on it frees the whole structure
 *	(rdsd_tdma_release()).
 * @nr_chans: entries in @chans.
 * @chans: the channels, on the dma_device's channel list.
 */
struct rdsd_tdma {
	struct dma_device dma;
	unsigned int nr_chans;
	struct rdsd_tdma_chan chans[];
};

static struct rdsd_tdma *rdsd_tdma;
static struct platform_device *rdsd_tdma_pdev;
static int rdsd_tdma_probe_err;

static struct rdsd_tdma_chan *to_tdma_chan(struct dma_chan *chan)
{
	return container_of(chan, struct rdsd_tdma_chan, chan);
}

static struct rdsd_tdma_desc *to_tdma_desc(struct dma_async_tx_descriptor *tx)
{
	return container_of(tx, struct rdsd_tdma_desc, tx);
}

/*
 * Set completed_cookie to the cookie just before the oldest pending
 * descriptor, or to the last cookie given out if none is pending: every
 * cookie up to it is done, whatever order descriptors completed in.
 * Cookies wrap from INT_MAX to DMA_MIN_COOKIE.  Under the channel lock.
 */
static void rdsd_tdma_update_completed(struct rdsd_tdma_chan *c)
{
	struct rdsd_tdma_desc *d;
	dma_cookie_t done;

	lockdep_assert_held(&c->lock);
	d = list_first_entry_or_null(&c->pending, struct rdsd_tdma_desc, pend);
	if (!d)
		done = c->chan.cookie;
	else if (d->tx.cookie == DMA_MIN_COOKIE)
		done = INT_MAX;
	else
		done = d->tx.cookie - 1;
	c->chan.completed_cookie = done;
}

/**
 * rdsd_tdma_tx_submit - give a prepared descriptor its cookie
 * @tx: the descriptor, prepared on its channel and not yet submitted.
 *
 * Queues it on the channel's submitted list; issue_pending hands it to the
 * worker.  Any context.
 *
 * Return: the cookie.
 */
static dma_cookie_t rdsd_tdma_tx_submit(struct dma_async_tx_descriptor *tx)
{
	struct rdsd_tdma_desc *d = to_tdma_desc(tx);
	struct rdsd_tdma_chan *c = to_tdma_chan(tx->chan);
	unsigned long flags;
	dma_cookie_t cookie;

	spin_lock_irqsave(&c->lock, flags);
	if (c->chan.cookie == INT_MAX)
		cookie = DMA_MIN_COOKIE;
	else
		cookie = c->chan.cookie + 1;
	c->chan.cookie = cookie;
	tx->cookie = cookie;
	list_move_tail(&d->node, &c->submitted);
	list_add_tail(&d->pend, &c->pending);
	spin_unlock_irqrestore(&c->lock, flags);
	return cookie;
}

/* Is [addr, addr + len) in memory the direct map covers? */
static bool rdsd_tdma_addr_ok(dma_addr_t addr, size_t len)
{
	phys_addr_t first = addr;
	phys_addr_t last = first + len - 1;

	return last >= first && pfn_valid(PHYS_PFN(first)) &&
	       pfn_valid(PHYS_PFN(last));
}

/**
 * rdsd_tdma_prep_memcpy - prepare a copy
 * @chan: the channel.
 * @dst: destination, mapped on the engine's device.
 * @src: source, mapped on the engine's device.
 * @len: bytes, at least one.
 * @flags: DMA_PREP_INTERRUPT (call back on completion), DMA_CTRL_ACK and
 *	DMA_PREP_FENCE (accepted, no effect); any other flag is refused.
 *
 * Any context.
 *
 * Return: the descriptor, or NULL: when the fail_prep knob says so, when
 * the arguments are refused, or when memory is short.
 */
static struct dma_async_tx_descriptor *
rdsd_tdma_prep_memcpy(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src,
		      size_t len, unsigned long flags)
{
	struct rdsd_tdma_chan *c = to_tdma_chan(chan);
	struct rdsd_tdma_desc *d;
	unsigned long irqflags;

	if (rdsd_tdma_fault_hit(&rdsd_tdma_fail_prep)) {
		atomic_long_inc(&rdsd_tdma_stat_prep_failed);
		return NULL;
	}
	if (!len || (flags & ~RDSD_TDMA_PREP_FLAGS) ||
	    !rdsd_tdma_addr_ok(dst, len) || !rdsd_tdma_addr_ok(src, len)) {
		dev_warn_ratelimited(chan->device->dev,
				     "%s: memcpy refused: %pad <- %pad, %zu bytes, flags %#lx\n",
				     dma_chan_name(chan), &dst, &src, len,
				     flags);
		return NULL;
	}

	d = kzalloc(sizeof(*d), GFP_NOWAIT);
	if (!d)
		return NULL;
	dma_async_tx_descriptor_init(&d->tx, chan);
	d->tx.flags = flags;
	d->tx.cookie = -EBUSY;
	d->tx.tx_submit = rdsd_tdma_tx_submit;
	INIT_LIST_HEAD(&d->pend);
	d->dst = dst;
	d->src = src;
	d->len = len;

	spin_lock_irqsave(&c->lock, irqflags);
	list_add_tail(&d->node, &c->prepared);
	spin_unlock_irqrestore(&c->lock, irqflags);
	return &d->tx;
}

/* Hand every submitted descriptor to the worker.  Any context. */
static void rdsd_tdma_issue_pending(struct dma_chan *chan)
{
	struct rdsd_tdma_chan *c = to_tdma_chan(chan);
	unsigned long flags;
	bool wake;

	spin_lock_irqsave(&c->lock, flags);
	wake = !list_empty(&c->submitted);
	list_splice_tail_init(&c->submitted, &c->issued);
	spin_unlock_irqrestore(&c->lock, flags);
	if (wake)
		wake_up(&c->work_wq);
}

/**
 * rdsd_tdma_tx_status - where is a cookie?
 * @chan: the channel.
 * @cookie: a cookie tx_submit returned on @chan.
 * @state: if not NULL, gets the channel's completed and last cookies and
 *	the residue: the whole length while the descriptor is pending (the
 *	residue granularity is a descriptor), else 0.
 *
 * Any context.
 *
 * Return: DMA_IN_PROGRESS while the descriptor is submitted and not yet
 * completed, DMA_COMPLETE once it is done: completed (whether the copy
 * succeeded or not: only its callback tells) or dropped by terminate_all.
 */
static enum dma_status rdsd_tdma_tx_status(struct dma_chan *chan,
					   dma_cookie_t cookie,
					   struct dma_tx_state *state)
{
	struct rdsd_tdma_chan *c = to_tdma_chan(chan);
	struct rdsd_tdma_desc *d;
	dma_cookie_t last, used;
	enum dma_status status;
	unsigned long flags;
	u32 residue = 0;

	spin_lock_irqsave(&c->lock, flags);
	last = chan->completed_cookie;
	used = chan->cookie;
	status = dma_async_is_complete(cookie, last, used);
	if (status != DMA_COMPLETE) {
		/* Out of order completion leaves done cookies past @last. */
		status = DMA_COMPLETE;
		list_for_each_entry(d, &c->pending, pend) {
			if (d->tx.cookie == cookie) {
				status = DMA_IN_PROGRESS;
				residue = min_t(size_t, d->len, U32_MAX);
				break;
			}
		}
	}
	spin_unlock_irqrestore(&c->lock, flags);

	dma_set_tx_state(state, last, used, residue);
	return status;
}

/**
 * rdsd_tdma_terminate_all - drop every descriptor of a channel
 * @chan: the channel.
 *
 * Frees every descriptor prepared, submitted or issued and not yet taken
 * by the worker, without calling back; none of their callbacks ever runs.
 * The descriptor the worker is running is dropped too (no callback) unless
 * its callback is already due; its copy may still be under way, so the
 * consumer's buffers are safe to reuse only after rdsd_tdma_synchronize().
 * Any context, callbacks included.
 *
 * Return: 0.
 */
static int rdsd_tdma_terminate_all(struct dma_chan *chan)
{
	struct rdsd_tdma_chan *c = to_tdma_chan(chan);
	struct rdsd_tdma_desc *d, *n;
	unsigned long flags;
	LIST_HEAD(dead);

	spin_lock_irqsave(&c->lock, flags);
	list_splice_init(&c->prepared, &dead);
	list_splice_init(&c->submitted, &dead);
	list_splice_init(&c->issued, &dead);
	list_splice_init(&c->batch, &dead);
	list_for_each_entry_safe(d, n, &c->pending, pend)
		list_del_init(&d->pend);
	if (c->running)
		c->running_dropped = true;
	rdsd_tdma_update_completed(c);
	spin_unlock_irqrestore(&c->lock, flags);

	list_for_each_entry_safe(d, n, &dead, node) {
		dma_descriptor_unmap(&d->tx);
		kfree(d);
		atomic_long_inc(&rdsd_tdma_stat_aborted);
	}
	return 0;
}

static unsigned long rdsd_tdma_done(struct rdsd_tdma_chan *c)
{
	unsigned long flags, done;

	spin_lock_irqsave(&c->lock, flags);
	done = c->done;
	spin_unlock_irqrestore(&c->lock, flags);
	return done;
}

/**
 * rdsd_tdma_synchronize - wait for the worker to let go of a descriptor
 * @chan: the channel.
 *
 * Waits until the descriptor the worker is running, if any, is finished:
 * its copy done and its callback, if it has one, returned.  After
 * rdsd_tdma_terminate_all() this means nothing of the channel's runs or
 * touches the consumer's memory any more.  Sleeps; must not be called from
 * a callback (it would wait for itself).
 */
static void rdsd_tdma_synchronize(struct dma_chan *chan)
{
	struct rdsd_tdma_chan *c = to_tdma_chan(chan);
	unsigned long flags, seq;
	bool busy;

	might_sleep();
	if (WARN_ON_ONCE(current == c->task))
		return;
	spin_lock_irqsave(&c->lock, flags);
	busy = c->running;
	seq = c->done;
	spin_unlock_irqrestore(&c->lock, flags);
	if (busy)
		wait_event(c->idle_wq, rdsd_tdma_done(c) != seq);
}

/* A consumer took the channel: cookies start afresh. */
static int rdsd_tdma_alloc_chan_resources(struct dma_chan *chan)
{
	struct rdsd_tdma_chan *c = to_tdma_chan(chan);
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	chan->cookie = DMA_MIN_COOKIE;
	chan->completed_cookie = DMA_MIN_COOKIE;
	spin_unlock_irqrestore(&c->lock, flags);
	return 0;
}

/* The consumer released the channel: drop what it left behind. */
static void rdsd_tdma_free_chan_resources(struct dma_chan *chan)
{
	rdsd_tdma_terminate_all(chan);
	rdsd_tdma_synchronize(chan);
}

static bool rdsd_tdma_has_issued(struct rdsd_tdma_chan *c)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&c->lock, flags);
	ret = !list_empty(&c->issued);
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

/* Take every issued descriptor as the next batch. */
static void rdsd_tdma_take_batch(struct rdsd_tdma_chan *c, bool reverse)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	list_splice_tail_init(&c->issued, &c->batch);
	c->batch_reverse = reverse;
	spin_unlock_irqrestore(&c->lock, flags);
}

/* Take the batch's next descriptor to run, or NULL when it is empty. */
static struct rdsd_tdma_desc *rdsd_tdma_next(struct rdsd_tdma_chan *c)
{
	struct rdsd_tdma_desc *d = NULL;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (!list_empty(&c->batch)) {
		if (c->batch_reverse)
			d = list_last_entry(&c->batch, struct rdsd_tdma_desc,
					    node);
		else
			d = list_first_entry(&c->batch, struct rdsd_tdma_desc,
					     node);
		list_del(&d->node);
		c->running = d;
		c->running_dropped = false;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return d;
}

static bool rdsd_tdma_dropped(struct rdsd_tdma_chan *c)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&c->lock, flags);
	ret = c->running_dropped;
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

/**
 * rdsd_tdma_run - copy one descriptor and complete it
 * @c: its channel.
 * @d: the descriptor, the channel's running one.
 *
 * Sleeps delay_us first.  Unless terminate_all dropped it meanwhile,
 * copies (only the first half when fail_every says so), marks the cookie
 * complete and calls back, with bottom halves off as from a real engine's
 * tasklet and with no lock held.  Then frees it.  Worker context.
 */
static void rdsd_tdma_run(struct rdsd_tdma_chan *c, struct rdsd_tdma_desc *d)
{
	struct dma_async_tx_descriptor *tx = &d->tx;
	struct dmaengine_result res = { .result = DMA_TRANS_NOERROR };
	unsigned int us = min(READ_ONCE(rdsd_tdma_delay_us),
			      RDSD_TDMA_MAX_DELAY_US);
	size_t copy = d->len;
	unsigned long flags;
	bool dropped;

	if (us)
		usleep_range(us, us + us / 8 + 1);

	if (!rdsd_tdma_dropped(c)) {
		if (rdsd_tdma_fault_hit(&rdsd_tdma_fail_every)) {
			copy = d->len / 2;
			res.result = DMA_TRANS_WRITE_FAILED;
			res.residue = min_t(size_t, d->len - copy, U32_MAX);
		}
		memcpy(phys_to_virt((phys_addr_t)d->dst),
		       phys_to_virt((phys_addr_t)d->src), copy);
	}

	spin_lock_irqsave(&c->lock, flags);
	dropped = c->running_dropped;
	if (!dropped) {
		list_del_init(&d->pend);
		rdsd_tdma_update_completed(c);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	dma_descriptor_unmap(tx);

	if (dropped) {
		atomic_long_inc(&rdsd_tdma_stat_aborted);
	} else if (res.result == DMA_TRANS_NOERROR) {
		atomic_long_inc(&rdsd_tdma_stat_copies);
		atomic_long_add(d->len, &rdsd_tdma_stat_bytes);
	} else {
		atomic_long_inc(&rdsd_tdma_stat_failed);
	}

	if (!dropped && (tx->flags & DMA_PREP_INTERRUPT)) {
		local_bh_disable();
		if (tx->callback_result)
			tx->callback_result(tx->callback_param, &res);
		else if (tx->callback)
			tx->callback(tx->callback_param);
		local_bh_enable();
	}

	spin_lock_irqsave(&c->lock, flags);
	c->running = NULL;
	c->running_dropped = false;
	c->done++;
	spin_unlock_irqrestore(&c->lock, flags);
	wake_up_all(&c->idle_wq);
	kfree(d);
}

/**
 * rdsd_tdma_worker - a channel's worker thread
 * @arg: the channel.
 *
 * Sleeps until descriptors are issued, takes all of them as a batch and
 * runs it: in issue order, or last issued first when reorder is set as it
 * takes the batch (it then waits a millisecond first, so that descriptors
 * issued together land in one batch).  Runs from probe until module exit.
 *
 * Return: 0.
 */
static int rdsd_tdma_worker(void *arg)
{
	struct rdsd_tdma_chan *c = arg;
	struct rdsd_tdma_desc *d;
	bool reverse;

	while (!kthread_should_stop()) {
		wait_event_idle(c->work_wq,
				rdsd_tdma_has_issued(c) || kthread_should_stop());
		reverse = READ_ONCE(rdsd_tdma_reorder);
		if (reverse)
			usleep_range(RDSD_TDMA_GATHER_US,
				     2 * RDSD_TDMA_GATHER_US);
		rdsd_tdma_take_batch(c, reverse);
		while ((d = rdsd_tdma_next(c))) {
			rdsd_tdma_run(c, d);
			cond_resched();
		}
	}
	return 0;
}

/* dmaengine's last reference on the device is gone. */
static void rdsd_tdma_release(struct dma_device *dma)
{
	kfree(container_of(dma, struct rdsd_tdma, dma));
}

static void rdsd_tdma_stop_workers(struct rdsd_tdma *td)
{
	unsigned int i;

	for (i = 0; i < td->nr_chans; i++) {
		if (td->chans[i].task)
			kthread_stop(td->chans[i].task);
		td->chans[i].task = NULL;
	}
}

/*
 * Does a bus address of @dev give back its page's kernel address through
 * phys_to_virt()?  The worker relies on it.
 */
static int __init rdsd_tdma_self_check(struct device *dev)
{
	struct page *page;
	dma_addr_t addr;
	bool ok;

	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	addr = dma_map_page(dev, page, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, addr)) {
		__free_page(page);
		pr_err("self-check: cannot map a page\n");
		return -ENODEV;
	}
	ok = phys_to_virt((phys_addr_t)addr) == page_address(page);
	dma_unmap_page(dev, addr, PAGE_SIZE, DMA_BIDIRECTIONAL);
	__free_page(page);
	if (!ok) {
		pr_err("self-check: bus addresses are not physical addresses here (IOMMU, bounce buffers or memory encryption)\n");
		return -ENODEV;
	}
	return 0;
}

static void __init rdsd_tdma_chan_init(struct rdsd_tdma *td,
				       struct rdsd_tdma_chan *c)
{
	c->chan.device = &td->dma;
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->prepared);
	INIT_LIST_HEAD(&c->submitted);
	INIT_LIST_HEAD(&c->issued);
	INIT_LIST_HEAD(&c->batch);
	INIT_LIST_HEAD(&c->pending);
	init_waitqueue_head(&c->work_wq);
	init_waitqueue_head(&c->idle_wq);
	list_add_tail(&c->chan.device_node, &td->dma.channels);
}

/**
 * rdsd_tdma_probe - build and register the engine
 * @pdev: the platform device, bound to our driver.
 *
 * Runs once, from module init (platform_create_bundle()).  Also records
 * its error for module init, which would otherwise see -ENODEV.
 *
 * Return: 0 or an error.
 */
static int __init rdsd_tdma_probe(struct platform_device *pdev)
{
	unsigned int i, nr = rdsd_tdma_nr_chans;
	struct device *dev = &pdev->dev;
	struct task_struct *task;
	struct dma_device *dma;
	struct rdsd_tdma *td;
	int ret;

	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		goto out;
	ret = rdsd_tdma_self_check(dev);
	if (ret)
		goto out;

	td = kzalloc(struct_size(td, chans, nr), GFP_KERNEL);
	if (!td) {
		ret = -ENOMEM;
		goto out;
	}
	td->nr_chans = nr;
	dma = &td->dma;
	dma->dev = dev;
	INIT_LIST_HEAD(&dma->channels);
	dma_cap_set(DMA_MEMCPY, dma->cap_mask);
	dma_cap_set(DMA_PRIVATE, dma->cap_mask);
	dma->copy_align = DMAENGINE_ALIGN_1_BYTE;
	dma->directions = BIT(DMA_MEM_TO_MEM);
	dma->src_addr_widths = RDSD_TDMA_WIDTHS;
	dma->dst_addr_widths = RDSD_TDMA_WIDTHS;
	dma->residue_granularity = DMA_RESIDUE_GRANULARITY_DESCRIPTOR;
	dma->descriptor_reuse = false;
	dma->device_alloc_chan_resources = rdsd_tdma_alloc_chan_resources;
	dma->device_free_chan_resources = rdsd_tdma_free_chan_resources;
	dma->device_prep_dma_memcpy = rdsd_tdma_prep_memcpy;
	dma->device_issue_pending = rdsd_tdma_issue_pending;
	dma->device_tx_status = rdsd_tdma_tx_status;
	dma->device_terminate_all = rdsd_tdma_terminate_all;
	dma->device_synchronize = rdsd_tdma_synchronize;
	dma->device_release = rdsd_tdma_release;

	for (i = 0; i < nr; i++)
		rdsd_tdma_chan_init(td, &td->chans[i]);
	for (i = 0; i < nr; i++) {
		task = kthread_run(rdsd_tdma_worker, &td->chans[i],
				   "rdsd_tdma/%u", i);
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			goto err_stop;
		}
		td->chans[i].task = task;
	}

	ret = dma_async_device_register(dma);
	if (ret)
		goto err_stop;
	platform_set_drvdata(pdev, td);
	rdsd_tdma = td;
	dev_info(dev, "%u DMA_MEMCPY channel(s)\n", nr);
	return 0;

err_stop:
	rdsd_tdma_stop_workers(td);
	kfree(td);
out:
	rdsd_tdma_probe_err = ret;
	return ret;
}

/* Bound by platform_create_bundle(), which also takes away bind/unbind. */
static struct platform_driver rdsd_tdma_driver = {
	.driver = {
		.name	= RDSD_TDMA_NAME,
	},
};

static int __init rdsd_tdma_init(void)
{
	struct platform_device *pdev;

	if (rdsd_tdma_nr_chans < 1 ||
	    rdsd_tdma_nr_chans > RDSD_TDMA_MAX_CHANS) {
		pr_err("channels=%u: must be 1 to %u\n", rdsd_tdma_nr_chans,
		       RDSD_TDMA_MAX_CHANS);
		return -EINVAL;
	}
	pdev = platform_create_bundle(&rdsd_tdma_driver, rdsd_tdma_probe,
				      NULL, 0, NULL, 0);
	if (IS_ERR(pdev))
		return rdsd_tdma_probe_err ?: PTR_ERR(pdev);
	rdsd_tdma_pdev = pdev;
	return 0;
}

/*
 * No consumer holds a channel (each holds a module reference), and none
 * can take one now that the module is going: the workers are idle.  Stop
 * them, then unregister, which frees the engine.
 */
static void __exit rdsd_tdma_exit(void)
{
	rdsd_tdma_stop_workers(rdsd_tdma);
	dma_async_device_unregister(&rdsd_tdma->dma);
	rdsd_tdma = NULL;
	platform_device_unregister(rdsd_tdma_pdev);
	platform_driver_unregister(&rdsd_tdma_driver);
}

module_init(rdsd_tdma_init);
module_exit(rdsd_tdma_exit);

MODULE_DESCRIPTION("rds_doca tests: a software DMA_MEMCPY engine");
MODULE_LICENSE("GPL");
