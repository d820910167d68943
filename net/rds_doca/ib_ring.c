// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca IB transport: the rings.
 *
 * A connection is one RC queue pair with a send ring and a receive ring,
 * allocated and mapped once per connection attempt: the slots when its
 * queue pair is made, the buffers once the peer answered (an attempt
 * nobody answers holds a few pages, not megabytes).  A send slot
 * holds one work request: a SEND of its 64-byte header (struct
 * rdsd_wire_hdr, from the slot's header buffer) and up to
 * RDSD_IB_FRAG_SIZE payload bytes straight from a message's pages, or
 * one piece of an RDMA operation.  The receive ring has RDSD_IB_RECV_MAX
 * slots, each a header slot and a payload buffer of RDSD_IB_FRAG_SIZE
 * bytes, reposted after every completion.  A connection starts with
 * buffers in RDSD_IB_RECV_INIT slots and RDSD_IB_PACKS_INIT pack buffers;
 * the ring doubles when the peer asks (ib_send.c), and another pack
 * buffer comes when every one is in flight, from a work item
 * (rdsd_ib_grow_worker()).  Neither shrinks before the attempt ends: a
 * posted buffer is the peer's to use until the queue pair goes.
 *
 * Only every RDSD_IB_SIGNAL_EVERY-th send (and every send when the ring
 * runs low) asks for a completion; a completion retires every older slot
 * too, as an RC send queue completes in order.  A slot holds a reference
 * on its message only while the device may read the pages.  Sends past
 * the last signaled one that hold a message or an operation, with no
 * completion due, are retired by a signaled ACK from the ack timer a
 * tick later: nothing a finished send holds (an operation's pinned pages
 * and socket) waits for unrelated traffic.
 *
 * Every function here runs under the connection's send_lock, or owns the
 * connection (allocation and release).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/memcontrol.h>
#include <linux/scatterlist.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "ib.h"
#include "message.h"
#include "stats.h"
#include "transport.h"

static_assert((RDSD_IB_SEND_RING & (RDSD_IB_SEND_RING - 1)) == 0);
static_assert((RDSD_IB_RECV_RING & (RDSD_IB_RECV_RING - 1)) == 0);
/* a largest message, plus the slot kept for an ack, fits the rings */
static_assert(RDSD_IB_SEND_RING == RDSD_IB_RECV_RING);	/* one queue size */
static_assert(RDSD_IB_MAX_FRAGS + 1 < RDSD_IB_SEND_SLOTS);
static_assert(RDSD_IB_MAX_FRAGS + 2 <= RDSD_IB_RECV_MAX);
static_assert(RDSD_IB_CONG_BYTES <= RDSD_IB_FRAG_SIZE);

/*
 * Start a fresh work request in released slot @s: nothing attached, every
 * field of the request (of any kind) zero but its completion entry and
 * scatter/gather list.  send_lock held.
 */
void rdsd_ib_slot_prep(struct rdsd_ib_send *s)
{
	s->msg = NULL;
	s->op = NULL;
	s->unmap = false;
	s->op_last = false;
	s->cong = false;
	s->pack = -1;
	s->sink = 0;
	memset(&s->atomic, 0, sizeof(s->atomic));
	static_assert(sizeof(s->atomic) >= sizeof(s->rdma));
	static_assert(sizeof(s->atomic) >= sizeof(s->reg));
	s->wr.wr_cqe = &s->cqe;
	s->wr.sg_list = s->sge;
}

/*
 * Start slot @i as a SEND of its header, already written, alone; send_lock
 * held.
 */
void rdsd_ib_hdr_set(struct rdsd_ib_conn *tp, u32 i)
{
	struct rdsd_ib_send *s = rdsd_ib_slot(tp, i);
	u32 off = (i & RDSD_IB_SEND_MASK) * RDSD_IB_HDR_STRIDE;
	struct ib_device *ibdev = tp->dev->ibdev;

	ib_dma_sync_single_for_device(ibdev, tp->send_hdrs_dma + off,
				      sizeof(struct rdsd_wire_hdr),
				      DMA_TO_DEVICE);
	rdsd_ib_slot_prep(s);
	s->sge[0].addr = tp->send_hdrs_dma + off;
	s->sge[0].length = sizeof(struct rdsd_wire_hdr);
	s->sge[0].lkey = tp->dev->pd->local_dma_lkey;
	s->wr.num_sge = 1;
	s->wr.opcode = IB_WR_SEND;
}

/* Encode slot @i's header and point sge[0] at it; send_lock held. */
void rdsd_ib_hdr_prep(struct rdsd_ib_conn *tp, u32 i,
		      const struct rdsd_wire_info *info)
{
	rdsd_wire_encode(rdsd_ib_slot_hdr(tp, i), info);
	rdsd_ib_hdr_set(tp, i);
}

/*
 * Ask for a completion now and then, and always when the ring runs low;
 * @s holds its message and operation already.  send_lock held.
 */
void rdsd_ib_signal(struct rdsd_ib_conn *tp, struct rdsd_ib_send *s,
		    bool force)
{
	if (force || ++tp->unsignaled >= RDSD_IB_SIGNAL_EVERY ||
	    rdsd_ib_send_free(tp) <= 2 * RDSD_IB_SIGNAL_EVERY) {
		s->wr.send_flags |= IB_SEND_SIGNALED;
		tp->unsignaled = 0;
		tp->tail_refs = false;	/* its completion retires them */
	} else if (s->msg || s->op) {
		tp->tail_refs = true;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_signal);

/*
 * Is a send that holds a message or an operation waiting for a completion
 * that nothing asked for?  Then only a later signaled send releases it,
 * and with it the operation's pages and socket.  send_lock held.
 */
bool rdsd_ib_tail_stuck(const struct rdsd_ib_conn *tp)
{
	return tp->tail_refs && !tp->sig_inflight;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_tail_stuck);

/*
 * Let the ack timer post a signaled ACK if the ring's tail is stuck: what
 * finished sends hold is released within a tick, whatever traffic
 * follows.  send_lock held.
 */
void rdsd_ib_tail_check(struct rdsd_ib_conn *tp)
{
	if (tp->tx_ready && rdsd_ib_tail_stuck(tp))
		queue_delayed_work(rdsd_wq, &tp->ack_work, 1);
}

/**
 * rdsd_ib_cq_quiesce - let the last completion handlers return
 *
 * Called once the queue pairs of the completion queues about to be freed
 * are destroyed, before ib_free_cq().  ib_free_cq() waits until a soft
 * interrupt poll is no longer scheduled, but ib_poll_handler() still
 * reads its completion queue after saying so (it arms the queue again
 * after irq_poll_complete()), and the handler that ran the last
 * completion, which woke the caller (a drain, a registration), may still
 * be there.  It runs with bottom halves off, a read-side section of RCU:
 * after a grace period it has returned, and with the queue pairs gone no
 * completion schedules another.  Process context.
 */
void rdsd_ib_cq_quiesce(void)
{
	synchronize_rcu();
}

/*
 * Release a completed (or never to complete) send slot; send_lock held.
 * @status: RDS_RDMA_* outcome of the slot's work request, for operations.
 */
void rdsd_ib_slot_release(struct rdsd_ib_conn *tp, struct rdsd_ib_send *s,
			  int status)
{
	struct rdsd_msg *msg = s->msg;
	struct rdsd_op *op = s->op;

	if (s->cong)
		tp->cong_busy = false;
	s->cong = false;
	if (s->pack >= 0)
		clear_bit(s->pack, &tp->pack_busy);
	s->pack = -1;
	if (s->sink)
		__set_bit(s->sink - 1, &tp->sinks_free);
	s->sink = 0;
	if (op) {
		/*
		 * Unmapped first: a read's data and an atomic's old value are
		 * the CPU's (bounce buffers copied back) before the notice
		 * tells the caller they are there.
		 */
		if (s->op_last)
			ib_dma_unmap_sg(tp->dev->ibdev, op->sg, op->nents,
					rdsd_ib_op_dir(op));
		/* a piece that failed, or the last one, decides */
		if (status != RDS_RDMA_SUCCESS || s->op_last)
			rdsd_op_complete(op, status);
		s->op = NULL;
		s->op_last = false;
		rdsd_op_put(op);
	}
	if (!msg)
		return;
	if (s->unmap)
		ib_dma_unmap_sg(tp->dev->ibdev, msg->sg, msg->nents,
				DMA_TO_DEVICE);
	s->msg = NULL;
	s->unmap = false;
	rdsd_msg_put(msg);
}

/* Post the work requests of slots send_head .. send_head + @n - 1. */
void rdsd_ib_post(struct rdsd_ib_conn *tp, u32 n)
{
	u32 i;
	int ret;

	for (i = 0; i < n; i++) {
		struct rdsd_ib_send *s = rdsd_ib_slot(tp, tp->send_head + i);

		/*
		 * iWARP completes a read when its answer is in, after later
		 * work requests (Soft-iWARP does): the one after a read waits
		 * for every read before it, so completions come in order, as
		 * releasing the older slots at a completion needs.
		 */
		if (tp->fence_next) {
			s->wr.send_flags |= IB_SEND_FENCE;
			tp->fence_next = false;
		}
		if (s->wr.opcode == IB_WR_RDMA_READ_WITH_INV)
			tp->fence_next = true;	/* iWARP sinks only */
		s->wr.next = i + 1 < n ?
			&rdsd_ib_slot(tp, tp->send_head + i + 1)->wr : NULL;
		if (s->wr.send_flags & IB_SEND_SIGNALED)
			tp->sig_inflight++;
	}
	ret = ib_post_send(tp->qp, &rdsd_ib_slot(tp, tp->send_head)->wr,
			   NULL);
	/*
	 * The slots are used either way: on failure the queue pair is
	 * broken, the reset drains it and releases every slot, and the
	 * messages are sent again on the next connection.
	 */
	tp->send_head += n;
	if (unlikely(ret)) {
		pr_warn_ratelimited("%s: post send failed: %d\n",
				    tp->conn->name, ret);
		tp->tx_ready = false;
		rdsd_ib_request_reset(tp, RDSD_RESET_POST);
	}
	rdsd_ib_tail_check(tp);
}

int rdsd_ib_recv_post(struct rdsd_ib_conn *tp, struct rdsd_ib_recv *r)
{
	u32 off = rdsd_ib_recv_index(tp, r) * RDSD_IB_HDR_STRIDE;
	struct ib_device *ibdev = tp->dev->ibdev;
	struct ib_sge sge[2];
	struct ib_recv_wr wr = {
		.wr_cqe		= &r->cqe,
		.sg_list	= sge,
		.num_sge	= 2,
	};
	int ret;

	sge[0].addr = tp->recv_hdrs_dma + off;
	sge[0].length = sizeof(struct rdsd_wire_hdr);
	sge[0].lkey = tp->dev->pd->local_dma_lkey;
	sge[1].addr = r->dma;
	sge[1].length = RDSD_IB_FRAG_SIZE;
	sge[1].lkey = tp->dev->pd->local_dma_lkey;
	ib_dma_sync_single_for_device(ibdev, sge[0].addr, sge[0].length,
				      DMA_FROM_DEVICE);
	ib_dma_sync_single_for_device(ibdev, r->dma, RDSD_IB_FRAG_SIZE,
				      DMA_FROM_DEVICE);
	r->posted = true;
	ret = ib_post_recv(tp->qp, &wr, NULL);
	if (ret)
		r->posted = false;
	return ret;
}

/**
 * rdsd_ib_recv_post_all - fill the receive queue of a new queue pair
 * @tp: connection, with its rings allocated and its queue pair created.
 */
int rdsd_ib_recv_post_all(struct rdsd_ib_conn *tp)
{
	u32 i;
	int ret;

	for (i = 0; i < tp->recv_nr; i++) {
		ret = rdsd_ib_recv_post(tp, &tp->recvs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int rdsd_ib_map(struct ib_device *ibdev, void *buf, size_t len,
		       enum dma_data_direction dir, u64 *dma)
{
	*dma = ib_dma_map_single(ibdev, buf, len, dir);
	if (ib_dma_mapping_error(ibdev, *dma)) {
		*dma = 0;
		return -ENOMEM;
	}
	return 0;
}

/**
 * rdsd_ib_rings_alloc - allocate and map the rings of a connection attempt
 * @tp: connection; tp->dev is set.
 *
 * The slots and headers only: the buffers come with rdsd_ib_bufs_alloc()
 * once a peer is there to use them.  Charged to @tp->memcg.  Process
 * context.  On failure what was allocated is left for rdsd_ib_rings_free().
 */
int rdsd_ib_rings_alloc(struct rdsd_ib_conn *tp)
{
	struct ib_device *ibdev = tp->dev->ibdev;
	struct mem_cgroup *old = set_active_memcg(tp->memcg);
	u32 i;
	int ret;

	tp->sends = kcalloc(RDSD_IB_SEND_RING, sizeof(*tp->sends),
			    GFP_KERNEL_ACCOUNT);
	tp->send_hdrs = kcalloc(RDSD_IB_SEND_RING, RDSD_IB_HDR_STRIDE,
				GFP_KERNEL_ACCOUNT);
	tp->cong_buf = kzalloc(RDSD_IB_CONG_BYTES, GFP_KERNEL_ACCOUNT);
	tp->recvs = kcalloc(RDSD_IB_RECV_RING, sizeof(*tp->recvs),
			    GFP_KERNEL_ACCOUNT);
	tp->recv_hdrs = kcalloc(RDSD_IB_RECV_RING, RDSD_IB_HDR_STRIDE,
				GFP_KERNEL_ACCOUNT);
	set_active_memcg(old);
	if (!tp->sends || !tp->send_hdrs || !tp->cong_buf || !tp->recvs ||
	    !tp->recv_hdrs)
		return -ENOMEM;

	ret = rdsd_ib_map(ibdev, tp->send_hdrs,
			  RDSD_IB_SEND_RING * RDSD_IB_HDR_STRIDE,
			  DMA_TO_DEVICE, &tp->send_hdrs_dma);
	if (ret)
		return ret;
	if (tp->dev->iwarp) {
		tp->sink_pages = min_t(u32, tp->dev->max_frmr_pages,
				       RDSD_IB_SINK_PAGES);
		for (i = 0; i < RDSD_IB_SINKS; i++) {
			struct ib_mr *mr = ib_alloc_mr(tp->dev->pd,
						       IB_MR_TYPE_MEM_REG,
						       tp->sink_pages);

			if (IS_ERR(mr))
				return PTR_ERR(mr);
			tp->sinks[i] = mr;
		}
	}
	ret = rdsd_ib_map(ibdev, tp->cong_buf, RDSD_IB_CONG_BYTES,
			  DMA_TO_DEVICE, &tp->cong_dma);
	if (ret)
		return ret;
	ret = rdsd_ib_map(ibdev, tp->recv_hdrs,
			  RDSD_IB_RECV_RING * RDSD_IB_HDR_STRIDE,
			  DMA_FROM_DEVICE, &tp->recv_hdrs_dma);
	if (ret)
		return ret;

	for (i = 0; i < RDSD_IB_SEND_RING; i++) {
		tp->sends[i].tp = tp;
		tp->sends[i].cqe.done = rdsd_ib_send_done;
		tp->sends[i].pack = -1;
	}
	for (i = 0; i < RDSD_IB_RECV_RING; i++) {
		tp->recvs[i].tp = tp;
		tp->recvs[i].cqe.done = rdsd_ib_recv_done;
	}
	spin_lock_bh(&tp->send_lock);
	tp->rx_stopped = false;
	tp->send_head = 0;
	tp->send_tail = 0;
	tp->credits.avail = 0;
	tp->credits.adv = 0;
	tp->credits.max = 0;
	tp->unsignaled = 0;
	tp->tail_refs = false;
	tp->sig_inflight = 0;
	tp->pack_open = false;
	tp->pack_busy = 0;
	tp->pack_nr = 0;
	tp->recv_nr = 0;
	tp->op_wait_head = 0;
	tp->op_wait_tail = 0;
	tp->tx_since_req = 0;
	tp->rx_unacked = 0;
	tp->tx_blocked = false;
	tp->cong_busy = false;
	tp->cong_pending = false;
	tp->sinks_free = tp->sinks[0] ? GENMASK(RDSD_IB_SINKS - 1, 0) : 0;
	tp->fence_next = false;
	spin_unlock_bh(&tp->send_lock);
	return 0;
}

static void rdsd_ib_unmap(struct ib_device *ibdev, u64 *dma, size_t len,
			  enum dma_data_direction dir)
{
	if (*dma)
		ib_dma_unmap_single(ibdev, *dma, len, dir);
	*dma = 0;
}

/* Allocate and map one RDSD_IB_FRAG_SIZE buffer, charged as the caller set. */
static int rdsd_ib_buf_alloc(struct ib_device *ibdev, void **buf, u64 *dma,
			     enum dma_data_direction dir)
{
	*buf = kmalloc(RDSD_IB_FRAG_SIZE, GFP_KERNEL_ACCOUNT);
	if (!*buf)
		return -ENOMEM;
	return rdsd_ib_map(ibdev, *buf, RDSD_IB_FRAG_SIZE, dir, dma);
}

/**
 * rdsd_ib_bufs_alloc - the first receive and pack buffers of an attempt
 * @tp: connection whose rings rdsd_ib_rings_alloc() made.
 *
 * RDSD_IB_RECV_INIT + RDSD_IB_PACKS_INIT buffers of RDSD_IB_FRAG_SIZE
 * bytes, the bulk of an idle connection's memory: made when the peer is
 * known to be there (our side accepts its request, or its answer to ours
 * arrives), so that an attempt nobody answers does not hold them.
 * Charged to @tp->memcg.  Process context; on failure what was allocated
 * is left for rdsd_ib_rings_free().
 */
int rdsd_ib_bufs_alloc(struct rdsd_ib_conn *tp)
{
	struct ib_device *ibdev = tp->dev->ibdev;
	struct mem_cgroup *old = set_active_memcg(tp->memcg);
	int ret = 0;
	u32 i;

	for (i = 0; i < RDSD_IB_PACKS_INIT && !ret; i++)
		ret = rdsd_ib_buf_alloc(ibdev, &tp->pack_buf[i],
					&tp->pack_dma[i], DMA_TO_DEVICE);
	for (i = 0; i < RDSD_IB_RECV_INIT && !ret; i++)
		ret = rdsd_ib_buf_alloc(ibdev, &tp->recvs[i].buf,
					&tp->recvs[i].dma, DMA_FROM_DEVICE);
	set_active_memcg(old);
	if (ret)
		return ret;
	/* no completion or send looks at them yet */
	tp->pack_nr = RDSD_IB_PACKS_INIT;
	tp->recv_nr = RDSD_IB_RECV_INIT;
	return 0;
}

/*
 * Double the receive ring, up to RDSD_IB_RECV_MAX: make and post the
 * buffers, then return them to the peer as credits.  cm_mutex held, the
 * queue pair up.  Returns 0 (also when the ring is as large as it goes),
 * or -ENOMEM when not even one buffer came (what came is posted).
 */
static int rdsd_ib_recv_grow(struct rdsd_ib_conn *tp)
{
	struct ib_device *ibdev = tp->dev->ibdev;
	u32 nr = tp->recv_nr, end = min(2 * nr, RDSD_IB_RECV_MAX), i;
	struct mem_cgroup *old;
	int ret = 0;

	if (nr >= RDSD_IB_RECV_MAX)
		return 0;
	old = set_active_memcg(tp->memcg);
	for (i = nr; i < end; i++) {
		struct rdsd_ib_recv *r = &tp->recvs[i];

		ret = rdsd_ib_buf_alloc(ibdev, &r->buf, &r->dma,
					DMA_FROM_DEVICE);
		if (!ret)
			ret = rdsd_ib_recv_post(tp, r);
		if (ret) {
			/* a failed post: the queue pair is going away */
			rdsd_ib_unmap(ibdev, &r->dma, RDSD_IB_FRAG_SIZE,
				      DMA_FROM_DEVICE);
			kfree(r->buf);
			r->buf = NULL;
			break;
		}
	}
	set_active_memcg(old);
	if (i > nr) {
		rdsd_ib_bufs_posted(tp, i - nr);
		rdsd_stat_inc(tp->conn->rn, ib_recv_grow);
	}
	return i > nr || ret != -ENOMEM ? 0 : -ENOMEM;
}

/*
 * Make one more pack buffer, up to RDSD_IB_PACKS.  cm_mutex held, the
 * queue pair up.  Returns 0 or -ENOMEM.
 */
static int rdsd_ib_pack_grow(struct rdsd_ib_conn *tp)
{
	struct mem_cgroup *old;
	u32 i = tp->pack_nr;	/* only we change it, under cm_mutex */
	void *buf;
	u64 dma;
	int ret;

	if (i >= RDSD_IB_PACKS)
		return 0;
	old = set_active_memcg(tp->memcg);
	ret = rdsd_ib_buf_alloc(tp->dev->ibdev, &buf, &dma, DMA_TO_DEVICE);
	set_active_memcg(old);
	if (ret) {
		kfree(buf);	/* not mapped */
		return ret;
	}
	spin_lock_bh(&tp->send_lock);
	tp->pack_buf[i] = buf;
	tp->pack_dma[i] = dma;
	tp->pack_nr = i + 1;
	spin_unlock_bh(&tp->send_lock);
	return 0;
}

/**
 * rdsd_ib_grow - have the rings grow
 * @tp: connection.
 * @what: RDSD_IB_GROW_RECV (the peer asked for more buffers) or
 *	RDSD_IB_GROW_PACK (every pack buffer is in flight).
 *
 * Any context.
 */
void rdsd_ib_grow(struct rdsd_ib_conn *tp, int what)
{
	if (!test_and_set_bit(what, &tp->grow))
		queue_delayed_work(rdsd_wq, &tp->grow_work, 0);
}

/**
 * rdsd_ib_grow_worker - grow the rings as rdsd_ib_grow() asked
 * @work: rdsd_ib_conn.grow_work.
 *
 * Under cm_mutex, so the rings and the queue pair stay; a request that
 * comes for an attempt already gone grows the next one, if up.  When
 * memory is short it tries again a second later: a peer may be waiting
 * for the ring to hold its largest message.
 */
void rdsd_ib_grow_worker(struct work_struct *work)
{
	struct rdsd_ib_conn *tp = container_of(to_delayed_work(work),
					       struct rdsd_ib_conn, grow_work);
	bool recv = test_and_clear_bit(RDSD_IB_GROW_RECV, &tp->grow);
	bool pack = test_and_clear_bit(RDSD_IB_GROW_PACK, &tp->grow);

	mutex_lock(&tp->cm_mutex);
	if (!tp->dead && tp->qp && tp->recv_nr &&
	    (tp->state == RDSD_IB_UP || tp->state == RDSD_IB_PASSIVE)) {
		/* what memory refused is asked for again */
		if (recv && rdsd_ib_recv_grow(tp))
			set_bit(RDSD_IB_GROW_RECV, &tp->grow);
		if (pack && rdsd_ib_pack_grow(tp))
			set_bit(RDSD_IB_GROW_PACK, &tp->grow);
		if (READ_ONCE(tp->grow))
			queue_delayed_work(rdsd_wq, &tp->grow_work, HZ);
	}
	mutex_unlock(&tp->cm_mutex);
}

/**
 * rdsd_ib_rings_free - release the rings of a connection attempt
 * @tp: connection whose queue pair is drained (or was never created).
 *
 * Releases the send slots no completion retired, then unmaps and frees
 * everything.  Safe on a partial allocation and when called twice.
 */
void rdsd_ib_rings_free(struct rdsd_ib_conn *tp)
{
	struct ib_device *ibdev = tp->dev->ibdev;
	u32 i;

	if (tp->sends) {
		spin_lock_bh(&tp->send_lock);
		rdsd_ib_pack_drop(tp);
		while (tp->send_tail != tp->send_head)
			rdsd_ib_slot_release(tp,
					     rdsd_ib_slot(tp, tp->send_tail++),
					     RDS_RDMA_DROPPED);
		rdsd_ib_big_drop(tp);
		spin_unlock_bh(&tp->send_lock);
	}
	if (tp->recvs) {
		for (i = 0; i < RDSD_IB_RECV_RING; i++) {
			struct rdsd_ib_recv *r = &tp->recvs[i];

			WARN_ON_ONCE(r->posted);
			rdsd_ib_unmap(ibdev, &r->dma, RDSD_IB_FRAG_SIZE,
				      DMA_FROM_DEVICE);
			kfree(r->buf);
			r->buf = NULL;
		}
	}
	for (i = 0; i < RDSD_IB_PACKS; i++) {
		rdsd_ib_unmap(ibdev, &tp->pack_dma[i], RDSD_IB_FRAG_SIZE,
			      DMA_TO_DEVICE);
		kfree(tp->pack_buf[i]);
		tp->pack_buf[i] = NULL;
	}
	/* the queue pair is gone: no read lands in a sink any more */
	for (i = 0; i < RDSD_IB_SINKS; i++) {
		if (tp->sinks[i])
			ib_dereg_mr(tp->sinks[i]);
		tp->sinks[i] = NULL;
	}
	tp->sinks_free = 0;
	rdsd_ib_unmap(ibdev, &tp->send_hdrs_dma,
		      RDSD_IB_SEND_RING * RDSD_IB_HDR_STRIDE, DMA_TO_DEVICE);
	rdsd_ib_unmap(ibdev, &tp->cong_dma, RDSD_IB_CONG_BYTES, DMA_TO_DEVICE);
	rdsd_ib_unmap(ibdev, &tp->recv_hdrs_dma,
		      RDSD_IB_RECV_RING * RDSD_IB_HDR_STRIDE, DMA_FROM_DEVICE);
	kfree(tp->sends);
	kfree(tp->send_hdrs);
	kfree(tp->cong_buf);
	kfree(tp->recvs);
	kfree(tp->recv_hdrs);
	tp->sends = NULL;
	tp->send_hdrs = NULL;
	tp->cong_buf = NULL;
	tp->recvs = NULL;
	tp->recv_hdrs = NULL;
	rdsd_ib_rx_reset(tp);
}
