// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca IB transport: sending.
 *
 * Every message fragment is one SEND (ib_ring.c).  Small messages share
 * SENDs under load: while a signaled send is in flight, messages of up to
 * RDSD_IB_PACK_MAX bytes are copied into an open pack buffer, each behind
 * its own header (RDSD_WIRE_F_MORE says another header follows), and the
 * pack goes out when that send completes or the pack is full.  An idle
 * connection posts a message at once.
 *
 * Flow control is by credits: the peer says in its connection private
 * data how many buffers it posted, each send uses one, and every buffer
 * reposted is returned to the sender in the credits field of the next
 * header going the other way.  The last credit is only spent on a message
 * that returns credits itself, so two ends never wait for each other, and
 * no send ever meets a receive queue that is not ready.  Credits a peer
 * returns beyond what it posted are clamped away (rdsd_ib_credits_add()).
 * A receive ring starts small (RDSD_IB_RECV_INIT buffers): a sender short
 * of credits asks for more with RDSD_WIRE_F_MORE_BUFS, once for each ring
 * size the peer announces (every header says it, in bufs), and the peer
 * doubles its ring (ib_ring.c) and returns the new buffers as credits.
 * So a message needing more fragments than the ring holds waits for the
 * ring to grow, never forever: the peer's private data promised a ring of
 * at least the largest message posted whole (1 MiB).  A larger message
 * goes in pieces as credits return (tx_big), and nothing else is posted
 * until its last fragment went.
 *
 * Acknowledgments ride on every header (the highest sequence number
 * delivered).  An explicit ACK goes out when the peer asks for one (it
 * does when the sending socket marked the message, RDSD_MSG_ACK_REQ, and
 * every RDSD_IB_ACK_REQ_EVERY messages: rdsd_ib_ack_req()),
 * after RDSD_IB_ACK_EVERY messages, when a quarter of the ring waits to
 * be returned as credits, or from a short timer when nothing else carried
 * it.  A message stays on the connection's retransmit list until
 * acknowledged.
 *
 * Locking: send_lock nests outside rs->recv_lock, which a send completion
 * takes to queue an RDMA notice (rdsd_op_complete()), directly or through
 * the last put of a message or an operation.  A congestion change comes
 * with rs->recv_lock held, so the map update is posted from a work item.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <kunit/visibility.h>

#include "ib.h"
#include "cong.h"
#include "conn.h"
#include "message.h"
#include "send.h"
#include "stats.h"
#include "transport.h"
#include "trace.h"

/**
 * rdsd_ib_credits_ok - may @n more messages be sent now?
 * @c: the connection's credits.
 * @n: messages (fragments) to send.
 *
 * The last credit is kept for a message that also returns credits.
 */
bool rdsd_ib_credits_ok(const struct rdsd_ib_credits *c, u32 n)
{
	if (c->adv)
		return c->avail >= n;
	return c->avail > n;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_credits_ok);

/**
 * rdsd_ib_credits_take - spend @n credits and take the credits to return
 * @c: the connection's credits; rdsd_ib_credits_ok() said yes.
 * @n: messages being sent.
 * @adv: set to the credits the first message returns to the peer.
 */
void rdsd_ib_credits_take(struct rdsd_ib_credits *c, u32 n, u32 *adv)
{
	c->avail -= n;
	*adv = min_t(u32, c->adv, U16_MAX);
	c->adv -= *adv;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_credits_take);

/**
 * rdsd_ib_credits_add - take credits the peer returned, or first offered
 * @c: the connection's credits; @c->max is set.
 * @n: credits, from the wire.
 *
 * The one place credits are added.  A correct peer never returns more
 * than it posted: every credit it returns stands for a buffer one of our
 * sends used, so @c->avail never exceeds @c->max, the buffers it said it
 * posted.  More is clamped away, so a peer cannot make us overrun its
 * receive queue or wrap the counter.
 */
void rdsd_ib_credits_add(struct rdsd_ib_credits *c, u32 n)
{
	c->avail = min_t(u64, (u64)c->avail + n, c->max);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_credits_add);

/**
 * rdsd_ib_credits_short - a send found too few credits
 * @c: the connection's credits.
 *
 * Asks the peer for more receive buffers (@c->want) unless its ring is as
 * large as it said it grows, or we asked at its present size already.
 */
void rdsd_ib_credits_short(struct rdsd_ib_credits *c)
{
	if (c->peer_bufs >= c->max || c->asked == c->peer_bufs)
		return;
	c->want = true;
	c->asked = c->peer_bufs;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_credits_short);

/**
 * rdsd_ib_ack_credits - credits to return without waiting for traffic
 * @recv_nr: receive buffers posted, at least 3.
 *
 * A quarter of the ring, but at least 3: a round trip uses a buffer at
 * each end for its message and now and then one for an ACK, and returns
 * them with the next message; were 2 enough for an ACK, each ACK would
 * make the next, one each way per round trip.  At most @recv_nr - 1: a
 * peer holding its last credit, having nothing to return, is sent the
 * rest back once they arrived.  Both hold from 3 buffers on, the least
 * rdsd_ib_cm_data_check() accepts.
 */
u32 rdsd_ib_ack_credits(u32 recv_nr)
{
	return max(recv_nr / 4, min(recv_nr - 1, 3U));
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_ack_credits);

/*
 * Fill in what every header carries: the acknowledgment, our receive
 * ring's size and a request for more buffers.  send_lock held.
 */
static void rdsd_ib_fill_ack(struct rdsd_ib_conn *tp,
			     struct rdsd_wire_info *info)
{
	u64 next = READ_ONCE(tp->conn->next_rx_seq);

	info->bufs = tp->recv_nr;
	if (tp->credits.want) {
		info->flags |= RDSD_WIRE_F_MORE_BUFS;
		tp->credits.want = false;
	}

	if (next) {
		info->flags |= RDSD_WIRE_F_ACK_VALID;
		info->ack = next - 1;
	}
	tp->rx_unacked = 0;
}

/**
 * rdsd_ib_op_status - the RDS_RDMA_* outcome of an operation's completion
 * @status: the work completion's status.
 */
int rdsd_ib_op_status(enum ib_wc_status status)
{
	switch (status) {
	case IB_WC_SUCCESS:
		return RDS_RDMA_SUCCESS;
	case IB_WC_REM_ACCESS_ERR:
	case IB_WC_REM_INV_REQ_ERR:
	case IB_WC_REM_OP_ERR:
		return RDS_RDMA_REMOTE_ERROR;
	case IB_WC_WR_FLUSH_ERR:
		return RDS_RDMA_DROPPED;
	default:
		return RDS_RDMA_OTHER_ERROR;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_op_status);

/*
 * Post the open pack, if any, in slot send_head (kept free for it);
 * send_lock held.
 */
static void rdsd_ib_pack_flush(struct rdsd_ib_conn *tp)
{
	struct ib_device *ibdev = tp->dev->ibdev;
	struct rdsd_ib_send *s;

	if (!tp->pack_open)
		return;
	tp->pack_open = false;
	if (WARN_ON_ONCE(!rdsd_ib_send_free(tp))) {
		clear_bit(tp->pack_idx, &tp->pack_busy);
		tp->tx_ready = false;
		rdsd_ib_request_reset(tp, RDSD_RESET_POST);
		return;
	}
	/* the first header may have gained RDSD_WIRE_F_MORE */
	*rdsd_ib_slot_hdr(tp, tp->send_head) = tp->pack_hdr;
	rdsd_ib_hdr_set(tp, tp->send_head);
	s = rdsd_ib_slot(tp, tp->send_head);
	s->pack = tp->pack_idx;
	if (tp->pack_len) {
		ib_dma_sync_single_for_device(ibdev, tp->pack_dma[s->pack],
					      tp->pack_len, DMA_TO_DEVICE);
		s->sge[1].addr = tp->pack_dma[s->pack];
		s->sge[1].length = tp->pack_len;
		s->sge[1].lkey = tp->dev->pd->local_dma_lkey;
		s->wr.num_sge = 2;
	}
	/* the next pack waits for this completion */
	rdsd_ib_signal(tp, s, true);
	rdsd_ib_post(tp, 1);
}

/*
 * Drop the open pack and the messages waiting for their operations, of a
 * queue pair that stops: they are sent again on the next one.  send_lock
 * held.
 */
void rdsd_ib_pack_drop(struct rdsd_ib_conn *tp)
{
	if (tp->pack_open)
		clear_bit(tp->pack_idx, &tp->pack_busy);
	tp->pack_open = false;
	while (tp->op_wait_tail != tp->op_wait_head) {
		u32 i = tp->op_wait_tail++ % RDSD_IB_OP_WAIT;

		rdsd_msg_put(tp->op_wait[i].msg); /* rdsd_ib_xmit_op_packed() */
		tp->op_wait[i].msg = NULL;
	}
}

/* Set RDSD_WIRE_F_MORE in the last header of the open pack. */
static void rdsd_ib_pack_more(struct rdsd_ib_conn *tp)
{
	u8 *flags;

	if (tp->pack_last < 0)
		flags = (u8 *)&tp->pack_hdr;
	else
		flags = tp->pack_buf[tp->pack_idx] + tp->pack_last;
	/* big-endian: the flag lives in the second byte */
	static_assert(RDSD_WIRE_F_MORE <= 0xff);
	flags[offsetof(struct rdsd_wire_hdr, flags) + 1] |= RDSD_WIRE_F_MORE;
}

/*
 * Add a small message to the open pack, opening one if needed; send_lock
 * held.  Returns 0, -EAGAIN when credits or send slots are short, or
 * -ENOSPC when every pack buffer is in flight (send it on its own).
 */
static int rdsd_ib_pack_add(struct rdsd_ib_conn *tp, struct rdsd_msg *msg,
			    struct rdsd_wire_info *info)
{
	u32 need = sizeof(struct rdsd_wire_hdr) + msg->len;
	struct rdsd_wire_hdr hdr;
	void *buf;
	u32 adv;
	int idx;

	if (tp->pack_open && tp->pack_len + need > RDSD_IB_FRAG_SIZE)
		rdsd_ib_pack_flush(tp);

	if (!tp->pack_open) {
		if (!rdsd_ib_credits_ok(&tp->credits, 1) ||
		    rdsd_ib_send_free(tp) < 2)
			return -EAGAIN;
		idx = find_first_zero_bit(&tp->pack_busy, tp->pack_nr);
		if (idx >= tp->pack_nr) {
			if (tp->pack_nr < RDSD_IB_PACKS)
				rdsd_ib_grow(tp, RDSD_IB_GROW_PACK);
			return -ENOSPC;
		}
		rdsd_ib_credits_take(&tp->credits, 1, &adv);
		rdsd_ib_fill_ack(tp, info);
		info->credits = adv;
		rdsd_wire_encode(&tp->pack_hdr, info);
		set_bit(idx, &tp->pack_busy);
		sg_copy_to_buffer(msg->sg, msg->nents, tp->pack_buf[idx],
				  msg->len);
		tp->pack_open = true;
		tp->pack_idx = idx;
		tp->pack_len = msg->len;
		tp->pack_last = -1;
		tp->pack_msgs = 1;
		return 0;
	}

	rdsd_ib_pack_more(tp);
	rdsd_ib_fill_ack(tp, info);
	info->credits = 0;
	rdsd_wire_encode(&hdr, info);
	buf = tp->pack_buf[tp->pack_idx];
	memcpy(buf + tp->pack_len, &hdr, sizeof(hdr));
	tp->pack_last = tp->pack_len;
	tp->pack_msgs++;
	tp->pack_len += sizeof(hdr);
	sg_copy_to_buffer(msg->sg, msg->nents, buf + tp->pack_len, msg->len);
	tp->pack_len += msg->len;
	return 0;
}

/*
 * Post a control message (ACK, CONG with the local map, or one of @ctl)
 * with the fields of @info if the credits and the ring allow; send_lock
 * held.  Returns true if it went out.
 */
static bool rdsd_ib_post_info(struct rdsd_ib_conn *tp,
			      const struct rdsd_wire_info *ctl)
{
	struct rdsd_wire_info info = *ctl;
	u8 type = info.type;
	struct rdsd_ib_send *s;
	u32 adv;

	if (!tp->tx_ready)
		return false;
	rdsd_ib_pack_flush(tp);		/* slots complete in post order */
	if (!rdsd_ib_send_free(tp) || !rdsd_ib_credits_ok(&tp->credits, 1))
		return false;

	rdsd_ib_credits_take(&tp->credits, 1, &adv);
	info.credits = adv;
	rdsd_ib_fill_ack(tp, &info);
	if (type == RDSD_WIRE_CONG) {
		info.len = RDSD_IB_CONG_BYTES;
		info.frag_len = RDSD_IB_CONG_BYTES;
		rdsd_cong_pack(tp->cong_buf, tp->conn->lcong->bits);
		ib_dma_sync_single_for_device(tp->dev->ibdev, tp->cong_dma,
					      RDSD_IB_CONG_BYTES,
					      DMA_TO_DEVICE);
	}
	rdsd_ib_hdr_prep(tp, tp->send_head, &info);
	s = rdsd_ib_slot(tp, tp->send_head);
	if (type == RDSD_WIRE_CONG) {
		s->sge[1].addr = tp->cong_dma;
		s->sge[1].length = RDSD_IB_CONG_BYTES;
		s->sge[1].lkey = tp->dev->pd->local_dma_lkey;
		s->wr.num_sge = 2;
		s->cong = true;
		tp->cong_busy = true;
	}
	/* a stuck tail: this completion releases what it holds */
	rdsd_ib_signal(tp, s, type == RDSD_WIRE_CONG || rdsd_ib_tail_stuck(tp));
	rdsd_ib_post(tp, 1);
	return true;
}

static bool rdsd_ib_post_ctl(struct rdsd_ib_conn *tp, u8 type)
{
	const struct rdsd_wire_info info = { .type = type };

	return rdsd_ib_post_info(tp, &info);
}

/*
 * Send what waits on @ctl, oldest first, then the revocation of every
 * grant if one is owed, as credits allow; send_lock held.
 */
void rdsd_ib_send_ctl(struct rdsd_ib_conn *tp)
{
	const struct rdsd_wire_info all = { .type = RDSD_WIRE_MR_REVOKE };

	while (tp->ctl_tail != tp->ctl_head &&
	       rdsd_ib_post_info(tp, &tp->ctl[tp->ctl_tail %
					      RDSD_IB_CTL_RING]))
		tp->ctl_tail++;
	if (tp->ctl_tail == tp->ctl_head && tp->revoke_all &&
	    rdsd_ib_post_info(tp, &all))
		tp->revoke_all = false;
}

/* Do control messages wait, which later messages may not pass? */
static bool rdsd_ib_ctl_busy(const struct rdsd_ib_conn *tp)
{
	return tp->ctl_tail != tp->ctl_head || tp->revoke_all;
}

/* Entries of @ctl of @type; send_lock held. */
u32 rdsd_ib_ctl_count(const struct rdsd_ib_conn *tp, u8 type)
{
	u32 i, n = 0;

	for (i = tp->ctl_tail; i != tp->ctl_head; i++)
		n += tp->ctl[i % RDSD_IB_CTL_RING].type == type;
	return n;
}

/* Queue @info on @ctl, which has room (see its limits); send_lock held. */
void rdsd_ib_ctl_push(struct rdsd_ib_conn *tp,
		      const struct rdsd_wire_info *info)
{
	if (WARN_ON_ONCE(tp->ctl_head - tp->ctl_tail >= RDSD_IB_CTL_RING))
		return;
	tp->ctl[tp->ctl_head++ % RDSD_IB_CTL_RING] = *info;
}

/*
 * A new queue pair: the peer has forgotten every grant and request of the
 * last one, and so do we.  send_lock held.
 */
static void rdsd_ib_ctl_reset(struct rdsd_ib_conn *tp)
{
	memset(tp->grants, 0, sizeof(tp->grants));
	tp->ctl_head = 0;
	tp->ctl_tail = 0;
	tp->revoke_all = false;
	tp->req_out = false;
	tp->req_cookie = 0;
	tp->denied = 0;
}

/* Send the congestion map if it changed and none is in flight. */
static void rdsd_ib_send_cong(struct rdsd_ib_conn *tp)
{
	if (tp->cong_pending && !tp->cong_busy &&
	    rdsd_ib_post_ctl(tp, RDSD_WIRE_CONG))
		tp->cong_pending = false;
}

/**
 * rdsd_ib_cong_changed - a port of the connection's local address changed
 * @conn: connection.
 *
 * Any context, rs->recv_lock held included: the update is sent from
 * rdsd_ib_cong_worker(), as send_lock nests outside rs->recv_lock (a
 * send completion queues an RDMA notice).  The whole map goes to the
 * peer; changes until the work runs, or while an update is in flight,
 * share one update.
 */
void rdsd_ib_cong_changed(struct rdsd_conn *conn)
{
	struct rdsd_ib_conn *tp = conn->tp;

	if (!tp->peer_local)
		queue_work(rdsd_wq, &tp->cong_work);
}

/**
 * rdsd_ib_cong_worker - send the local congestion map after a change
 * @work: rdsd_ib_conn.cong_work.
 *
 * The map is read when the update is posted, so it carries every change
 * made before the work ran.  Cancelled by ->conn_shutdown, before the
 * connect work it may queue.
 */
void rdsd_ib_cong_worker(struct work_struct *work)
{
	struct rdsd_ib_conn *tp = container_of(work, struct rdsd_ib_conn,
					       cong_work);

	spin_lock_bh(&tp->send_lock);
	tp->cong_pending = true;
	rdsd_ib_send_cong(tp);
	spin_unlock_bh(&tp->send_lock);
	/*
	 * A peer blocked on our old map has nothing queued to us: a parked
	 * path connects again, and the new connection carries the map.
	 */
	rdsd_conn_want(tp->conn);
}

/*
 * Does @msg ask the peer for an ack?  Its socket said so
 * (RDSD_MSG_ACK_REQ, rdsd_send_ack_req()), or it is the
 * RDSD_IB_ACK_REQ_EVERY-th message since the last that asked.
 */
static bool rdsd_ib_ack_req(const struct rdsd_ib_conn *tp,
			    const struct rdsd_msg *msg)
{
	return test_bit(RDSD_MSG_ACK_REQ, &msg->flags) ||
	       tp->tx_since_req + 1 >= RDSD_IB_ACK_REQ_EVERY;
}

/* A message went out, asking for an ack (@req) or not. */
static void rdsd_ib_ack_req_sent(struct rdsd_ib_conn *tp, bool req)
{
	tp->tx_since_req = req ? 0 : tp->tx_since_req + 1;
}

/*
 * Scatter/gather entries for bytes [@off, @off + @len) of a mapped list,
 * from cursor @c on.  Fragments are asked for in order, so the cursor
 * only moves forward: a message of many entries is walked once.
 */
static int rdsd_ib_frag_sges(struct rdsd_ib_conn *tp, struct rdsd_ib_sg_cur *c,
			     u32 off, u32 len, struct ib_sge *sge, int max)
{
	struct scatterlist *sg;
	int left, n = 0;

	while (c->left && off >= c->start + sg_dma_len(c->sg)) {
		c->start += sg_dma_len(c->sg);
		c->sg = sg_next(c->sg);
		c->left--;
	}
	sg = c->sg;
	left = c->left;
	off -= c->start;
	while (left) {
		u32 take = min(len, sg_dma_len(sg) - off);

		if (n == max)
			return -EINVAL;
		sge[n].addr = sg_dma_address(sg) + off;
		sge[n].length = take;
		sge[n].lkey = tp->dev->pd->local_dma_lkey;
		n++;
		len -= take;
		off = 0;
		if (!len)
			return n;
		sg = sg_next(sg);
		left--;
	}
	return -EINVAL;
}

/* Scatter/gather entries one work request of @op may carry. */
static u32 rdsd_ib_op_max_sge(const struct rdsd_ib_conn *tp,
			      const struct rdsd_op *op)
{
	return op->kind == RDSD_OP_READ ? tp->dev->max_rd_sge :
	       tp->dev->max_send_sge;
}

/*
 * iWARP: a read's response is a tagged message written to the sink's
 * steering tag, so a read lands only in a region the peer's device may
 * write (RFC 5040); the device's local DMA key is no such region.  Each
 * read is given sink regions of the connection (tp->sinks): the first
 * work request registers one over a run of its buffer, with local and
 * remote write access, the next reads into it and invalidates it when
 * done (IB_WR_RDMA_READ_WITH_INV), so the peer can reach the region
 * only while the read it answers runs.
 */
static bool rdsd_ib_sink_read(const struct rdsd_ib_conn *tp,
			      const struct rdsd_op *op)
{
	return tp->dev->iwarp && op->kind == RDSD_OP_READ;
}

/*
 * Entries, from @sg on (@left of them), that one sink region maps: a run
 * with no gap (each entry but the first starts on a page, each but the
 * last ends on one) of at most sink_pages pages; its bytes in @bytes.
 * Of the mapped entries if @dma, else of the pages as pinned.
 */
static u32 rdsd_ib_sink_run(const struct rdsd_ib_conn *tp,
			    struct scatterlist *sg, u32 left, bool dma,
			    u32 *bytes)
{
	u32 n = 0, pages = 0;

	*bytes = 0;
	for (; left; left--, sg = sg_next(sg)) {
		u64 start = dma ? sg_dma_address(sg) : sg->offset;
		u32 len = dma ? sg_dma_len(sg) : sg->length;
		u32 np = DIV_ROUND_UP(offset_in_page(start) + len, PAGE_SIZE);

		if (n && (offset_in_page(start) ||
			  pages + np > tp->sink_pages))
			break;
		n++;
		pages += np;
		*bytes += len;
		if (offset_in_page(start + len))
			break;
	}
	return n;
}

/* Sink regions a read of @count entries takes. */
VISIBLE_IF_KUNIT u32 rdsd_ib_sink_runs(const struct rdsd_ib_conn *tp,
				       struct scatterlist *sg, u32 count,
				       bool dma)
{
	u32 runs = 0, n, bytes;

	while (count) {
		n = rdsd_ib_sink_run(tp, sg, count, dma, &bytes);
		count -= n;
		while (n--)
			sg = sg_next(sg);
		runs++;
	}
	return runs;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_sink_runs);

/* Work requests (send slots) @op takes, for @count mapped entries. */
static u32 rdsd_ib_op_wrs(const struct rdsd_ib_conn *tp,
			  const struct rdsd_op *op, u32 count)
{
	if (rdsd_op_is_atomic(op->kind))
		return 1;
	/* by the pages as pinned: mapping never adds a gap */
	if (rdsd_ib_sink_read(tp, op))
		return 2 * rdsd_ib_sink_runs(tp, op->sg, op->nents, false);
	return DIV_ROUND_UP(count, rdsd_ib_op_max_sge(tp, op));
}

/*
 * Are enough sink regions free for @op, which takes @nwr work requests?
 * If not, the completion that frees one kicks the connection.  send_lock
 * held.
 */
static bool rdsd_ib_sinks_ready(struct rdsd_ib_conn *tp,
				const struct rdsd_op *op, u32 nwr)
{
	if (!rdsd_ib_sink_read(tp, op) ||
	    hweight_long(tp->sinks_free) >= nwr / 2)
		return true;
	tp->tx_blocked = true;
	return false;
}

/*
 * Fill the slots from send_head on with the work requests of iWARP read
 * @op, whose buffers are mapped (@count entries): per run, a
 * registration of a free sink region and the read into it.  Returns the
 * slots used.  send_lock held, rdsd_ib_sinks_ready() true.
 */
static u32 rdsd_ib_sink_prep(struct rdsd_ib_conn *tp, struct rdsd_op *op,
			     u32 count)
{
	struct scatterlist *sg = op->sg;
	u64 raddr = op->raddr;
	u32 i = 0, n, bytes;

	while (count) {
		struct rdsd_ib_send *reg = rdsd_ib_slot(tp, tp->send_head + i);
		struct rdsd_ib_send *s = rdsd_ib_slot(tp, tp->send_head + i + 1);
		unsigned int b = __ffs(tp->sinks_free);
		struct ib_mr *mr = tp->sinks[b];

		n = rdsd_ib_sink_run(tp, sg, count, true, &bytes);
		__clear_bit(b, &tp->sinks_free);
		/* a run is what one region maps: this cannot fail */
		WARN_ON_ONCE(ib_map_mr_sg(mr, sg, n, NULL, PAGE_SIZE) != n);
		ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
		count -= n;
		while (n--)
			sg = sg_next(sg);

		rdsd_ib_slot_prep(reg);
		reg->wr.opcode = IB_WR_REG_MR;
		reg->wr.num_sge = 0;
		reg->reg.mr = mr;
		reg->reg.key = mr->rkey;
		reg->reg.access = IB_ACCESS_LOCAL_WRITE |
				  IB_ACCESS_REMOTE_WRITE;
		if (!i && (op->flags & RDS_RDMA_FENCE))
			reg->wr.send_flags |= IB_SEND_FENCE;
		rdsd_ib_signal(tp, reg, false);

		rdsd_ib_slot_prep(s);
		kref_get(&op->refs);	/* put by rdsd_ib_slot_release() */
		s->op = op;
		s->op_last = !count;
		s->sink = b + 1;	/* freed by rdsd_ib_slot_release() */
		s->wr.opcode = IB_WR_RDMA_READ_WITH_INV;
		s->wr.ex.invalidate_rkey = mr->lkey;
		s->sge[0].addr = mr->iova;
		s->sge[0].length = bytes;
		s->sge[0].lkey = mr->lkey;
		s->wr.num_sge = 1;
		s->rdma.remote_addr = raddr;
		s->rdma.rkey = op->rkey;
		raddr += bytes;
		rdsd_ib_signal(tp, s, s->op_last);
		i += 2;
	}
	return i;
}

/*
 * Fill the slots from send_head on with @op's work requests: an atomic,
 * or RDMA reads or writes of consecutive pieces of the remote range.  The
 * last one asks for a completion, which completes the operation.  Returns
 * the slots used.  send_lock held; the local buffers are mapped (@count
 * entries).
 */
static u32 rdsd_ib_op_prep(struct rdsd_ib_conn *tp, struct rdsd_op *op,
			   int count)
{
	u32 lkey = tp->dev->pd->local_dma_lkey;
	u32 max = rdsd_ib_op_max_sge(tp, op);
	struct scatterlist *sg = op->sg;
	u64 raddr = op->raddr;
	u32 i, k, nwr;

	if (rdsd_ib_sink_read(tp, op))
		return rdsd_ib_sink_prep(tp, op, count);
	nwr = rdsd_ib_op_wrs(tp, op, count);
	for (i = 0; i < nwr; i++) {
		struct rdsd_ib_send *s = rdsd_ib_slot(tp, tp->send_head + i);
		u32 n = min_t(u32, count - i * max, max), bytes = 0;

		rdsd_ib_slot_prep(s);
		kref_get(&op->refs);	/* put by rdsd_ib_slot_release() */
		s->op = op;
		s->op_last = i + 1 == nwr;
		for (k = 0; k < n; k++, sg = sg_next(sg)) {
			s->sge[k].addr = sg_dma_address(sg);
			s->sge[k].length = sg_dma_len(sg);
			s->sge[k].lkey = lkey;
			bytes += sg_dma_len(sg);
		}
		s->wr.num_sge = n;

		switch (op->kind) {
		case RDSD_OP_READ:
		case RDSD_OP_WRITE:
			s->wr.opcode = op->kind == RDSD_OP_READ ?
				       IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
			s->rdma.remote_addr = raddr;
			s->rdma.rkey = op->rkey;
			raddr += bytes;
			break;
		default:
			s->wr.opcode = op->kind == RDSD_OP_FADD ?
				       IB_WR_ATOMIC_FETCH_AND_ADD :
				       IB_WR_ATOMIC_CMP_AND_SWP;
			s->sge[0].length = 8;
			s->atomic.remote_addr = raddr;
			s->atomic.rkey = op->rkey;
			s->atomic.compare_add = op->args[0];
			s->atomic.swap = op->args[1];
			break;
		}
		if (!i && (op->flags & RDS_RDMA_FENCE))
			s->wr.send_flags |= IB_SEND_FENCE;
		rdsd_ib_signal(tp, s, s->op_last);
	}
	return nwr;
}

/* The header fields of @msg, as rdsd_msg_rdma_info() for @post_op. */
static void rdsd_ib_msg_info(const struct rdsd_msg *msg, bool post_op,
			     struct rdsd_wire_info *info)
{
	*info = (struct rdsd_wire_info) {
		.type = RDSD_WIRE_DATA,
		.seq = msg->seq,
		.len = msg->len,
		.sport = msg->sport,
		.dport = msg->dport,
	};
	rdsd_msg_rdma_info(msg, post_op, info);
}

/*
 * Add small message @msg, whose header fields @info holds, to the open
 * pack; send_lock held.  Returns what rdsd_ib_pack_add() does, with @info
 * as it came on failure.
 */
static int rdsd_ib_pack_msg(struct rdsd_ib_conn *tp, struct rdsd_msg *msg,
			    struct rdsd_wire_info *info)
{
	bool req = rdsd_ib_ack_req(tp, msg);
	int ret;

	info->flags |= RDSD_WIRE_F_LAST_FRAG | (req ? RDSD_WIRE_F_ACK_REQ : 0);
	info->frag_len = msg->len;
	ret = rdsd_ib_pack_add(tp, msg, info);
	if (!ret) {
		rdsd_ib_ack_req_sent(tp, req);
		return 0;
	}
	info->flags &= ~(RDSD_WIRE_F_LAST_FRAG | RDSD_WIRE_F_ACK_REQ);
	info->frag_len = 0;
	return ret;
}

/* Is the oldest message waiting for its operation free to go? */
static bool rdsd_ib_op_wait_ready(const struct rdsd_ib_conn *tp)
{
	u32 i = tp->op_wait_tail % RDSD_IB_OP_WAIT;

	return tp->op_wait_tail != tp->op_wait_head &&
	       (s32)(tp->send_tail - tp->op_wait[i].end) >= 0;
}

/*
 * Move the messages whose operations completed, oldest first, to the open
 * pack; send_lock held, the queue pair taking sends.  A message that finds
 * no credit, send slot or pack buffer waits, with every later one, for
 * the next completion or credit update.
 */
static void rdsd_ib_op_wait_drain(struct rdsd_ib_conn *tp)
{
	while (rdsd_ib_op_wait_ready(tp)) {
		u32 i = tp->op_wait_tail % RDSD_IB_OP_WAIT;
		struct rdsd_msg *msg = tp->op_wait[i].msg;
		struct rdsd_wire_info info;

		/* its operation is done: the region it used, if it worked */
		rdsd_ib_msg_info(msg, false, &info);
		if (rdsd_ib_pack_msg(tp, msg, &info))
			return;
		tp->op_wait[i].msg = NULL;
		tp->op_wait_tail++;
		rdsd_msg_put(msg);	/* taken by rdsd_ib_xmit_op_packed() */
	}
}

/*
 * Post operation @op alone, at once, leaving the open pack's slot free;
 * send_lock held.  Returns 0, -EAGAIN when send slots are short, or
 * -ENOMEM when the operation's buffers could not be mapped.
 */
static int rdsd_ib_post_op(struct rdsd_ib_conn *tp, struct rdsd_op *op)
{
	u32 nwr = rdsd_ib_op_wrs(tp, op, op->nents);
	int count;

	if (rdsd_ib_send_free(tp) < nwr + 1 || !rdsd_ib_sinks_ready(tp, op, nwr))
		return -EAGAIN;
	count = ib_dma_map_sg(tp->dev->ibdev, op->sg, op->nents,
			      rdsd_ib_op_dir(op));
	if (unlikely(!count))
		return -ENOMEM;
	set_bit(RDSD_OP_POSTED, &op->state);
	trace_rdsd_op_post(op, 0);
	rdsd_ib_grant_used(tp, op);
	rdsd_ib_post(tp, rdsd_ib_op_prep(tp, op, count));
	return 0;
}

/*
 * Post the operation of @msg, a small message, at once; @msg waits in
 * op_wait until the operation completes, then joins the open pack
 * (rdsd_ib_op_wait_drain()).  So the operations of a window of such
 * messages run back to back, their messages share SENDs, and each message
 * reaches the peer after its operation is done: a read's data and an
 * atomic's old value are in place, with no fence stalling the queue pair.
 * send_lock held.  Returns 0, -EAGAIN when send slots or waiting room are
 * short, or -ENOMEM when the operation's buffers could not be mapped.
 */
static int rdsd_ib_xmit_op_packed(struct rdsd_ib_conn *tp,
				  struct rdsd_msg *msg)
{
	u32 i;
	int ret;

	if (tp->op_wait_head - tp->op_wait_tail >= RDSD_IB_OP_WAIT)
		return -EAGAIN;
	ret = rdsd_ib_post_op(tp, msg->op);
	if (ret)
		return ret;
	if (unlikely(!tp->tx_ready))
		return 0;	/* rdsd_conn_up() sends it on the next path */

	i = tp->op_wait_head++ % RDSD_IB_OP_WAIT;
	rdsd_msg_get(msg);	/* put by rdsd_ib_op_wait_drain() or _drop() */
	tp->op_wait[i].msg = msg;
	tp->op_wait[i].end = tp->send_head;
	return 0;
}

/*
 * May @msg, of @nfrags fragments, go now?  Sends what must precede it: a congestion update, and
 * revocations, which go before every message sent after them.  send_lock
 * held.  Returns 0; -EAGAIN while it waits (the queue pair is not up, or
 * tx_blocked is set for what will kick the connection); or -ECANCELED
 * when its operation may not go, the RDS_RDMA_* status in *@status for
 * the caller to complete it with outside send_lock.
 */
static int rdsd_ib_xmit_check(struct rdsd_ib_conn *tp, struct rdsd_msg *msg,
			      u32 nfrags, bool post_op, int *status)
{
	struct rdsd_op *op = msg->op;
	int ret;

	/* send_lock orders this after the path's tx_ready */
	if (!tp->tx_ready || rdsd_conn_xmit_stale(tp->conn))
		return -EAGAIN;	/* rdsd_conn_up() sends it on the next path */
	/*
	 * An operation of more pieces than the device takes in the whole
	 * ring would wait for room forever, and every later message of the
	 * connection with it: it fails, as a refused one does, and the
	 * message goes on without it.
	 */
	if (post_op && rdsd_ib_op_wrs(tp, op, op->nents) + nfrags + 1 >
		       RDSD_IB_SEND_SLOTS) {
		rdsd_stat_inc(tp->conn->rn, rdma_refused);
		*status = RDS_RDMA_OTHER_ERROR;
		return -ECANCELED;
	}
	/*
	 * sendmsg() refused atomics on a device without them
	 * (rdsd_ib_op_check()); one queued before the connection came up
	 * on such a device fails here, never posted.  So does an iWARP read
	 * into more pieces than the connection has sink regions.
	 */
	if (post_op && ((rdsd_op_is_atomic(op->kind) && !tp->dev->atomics) ||
			(rdsd_ib_sink_read(tp, op) &&
			 rdsd_ib_op_wrs(tp, op, op->nents) >
			 2 * RDSD_IB_SINKS))) {
		rdsd_stat_inc(tp->conn->rn, rdma_refused);
		*status = RDS_RDMA_OTHER_ERROR;
		return -ECANCELED;
	}
	rdsd_ib_send_cong(tp);
	rdsd_ib_send_ctl(tp);
	if (rdsd_ib_ctl_busy(tp)) {
		tp->tx_blocked = true;
		return -EAGAIN;
	}
	if (!post_op)
		return 0;
	/*
	 * The device key of the peer's region, from the peer's kernel: an
	 * operation it refuses, or that falls outside what it granted, fails
	 * here, without a device seeing it, and the message goes on alone.
	 */
	ret = rdsd_ib_op_resolve(tp, msg);
	if (ret == -EACCES) {
		*status = RDS_RDMA_REMOTE_ERROR;
		return -ECANCELED;
	}
	if (ret) {
		/* the answer kicks; a request short of credit too */
		tp->tx_blocked = true;
		return -EAGAIN;
	}
	return 0;
}

/*
 * Fragments that may be posted now, behind @nwr work requests of an
 * operation: as many as the credits allow (rdsd_ib_credits_ok()) and the
 * send ring holds, one slot kept for the open pack.  send_lock held.
 */
VISIBLE_IF_KUNIT u32 rdsd_ib_frags_room(const struct rdsd_ib_conn *tp, u32 nwr)
{
	const struct rdsd_ib_credits *c = &tp->credits;
	u32 slots = rdsd_ib_send_free(tp);
	u32 credits = c->adv ? c->avail : c->avail ? c->avail - 1 : 0;

	if (slots < nwr + 2)
		return 0;
	return min(credits, slots - nwr - 1);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_frags_room);

/*
 * Post fragments @from .. @from + @n - 1 of the @nfrags of @msg, behind
 * the @nwr work requests of its operation prepared from send_head on.
 * @base holds the message's header fields; @c walks its mapped entries.
 * send_lock held; rdsd_ib_frags_room() allows @n.
 */
static void rdsd_ib_frags_post(struct rdsd_ib_conn *tp, struct rdsd_msg *msg,
			       const struct rdsd_wire_info *base, u32 from,
			       u32 n, u32 nwr, u32 nfrags,
			       struct rdsd_ib_sg_cur *c)
{
	struct rdsd_wire_info info = *base;
	struct rdsd_op *op = msg->op;
	u16 ack_flags, last_flags;
	u32 i, adv;

	rdsd_ib_credits_take(&tp->credits, n, &adv);
	rdsd_ib_fill_ack(tp, &info);
	ack_flags = info.flags;
	last_flags = ack_flags | RDSD_WIRE_F_LAST_FRAG;
	if (from + n == nfrags) {
		/* a message sent in pieces asks, as it holds the ring long */
		if (rdsd_ib_ack_req(tp, msg) || nfrags > RDSD_IB_MAX_FRAGS)
			last_flags |= RDSD_WIRE_F_ACK_REQ;
		rdsd_ib_ack_req_sent(tp, last_flags & RDSD_WIRE_F_ACK_REQ);
	}

	for (i = 0; i < n; i++) {
		u32 frag = from + i, idx = tp->send_head + nwr + i;
		struct rdsd_ib_send *s = rdsd_ib_slot(tp, idx);
		bool last = frag + 1 == nfrags;
		int k = 0;

		info.flags = last ? last_flags : ack_flags;
		info.frag_off = frag * RDSD_IB_FRAG_SIZE;
		info.frag_len = min_t(u32, RDSD_IB_FRAG_SIZE,
				      msg->len - info.frag_off);
		info.credits = i ? 0 : adv;
		rdsd_ib_hdr_prep(tp, idx, &info);
		if (info.frag_len) {
			k = rdsd_ib_frag_sges(tp, c, info.frag_off,
					      info.frag_len, &s->sge[1],
					      tp->dev->max_send_sge - 1);
			if (WARN_ON_ONCE(k < 0))
				k = 0;	/* the peer refuses the short fragment */
		}
		s->wr.num_sge = 1 + k;
		if (!i && nwr && op->kind != RDSD_OP_WRITE)
			s->wr.send_flags |= IB_SEND_FENCE;
		rdsd_msg_get(msg);
		s->msg = msg;
		s->unmap = last && msg->len;
		rdsd_ib_signal(tp, s, false);
	}
	rdsd_ib_post(tp, nwr + n);
}

/*
 * Post more of the message being sent in pieces (tp->tx_big), as credits
 * and send slots allow; once its last fragment went, tx_big is NULL and
 * the messages held back behind it may go.  send_lock held.
 */
static void rdsd_ib_big_more(struct rdsd_ib_conn *tp)
{
	struct rdsd_msg *msg = tp->tx_big;
	u32 n;

	if (!msg || !tp->tx_ready)
		return;
	n = min(rdsd_ib_frags_room(tp, 0), tp->tx_big_nfrags - tp->tx_big_next);
	if (!n) {
		/* short of credits, not of slots: ask for a larger ring */
		if (!rdsd_ib_credits_ok(&tp->credits, 1))
			rdsd_ib_credits_short(&tp->credits);
		return;
	}
	rdsd_ib_frags_post(tp, msg, &tp->tx_big_info, tp->tx_big_next, n, 0,
			   tp->tx_big_nfrags, &tp->tx_big_cur);
	tp->tx_big_next += n;
	if (tp->tx_big_next < tp->tx_big_nfrags)
		return;
	tp->tx_big = NULL;
	rdsd_msg_put(msg);	/* not the last: the posted slots hold it */
}

/**
 * rdsd_ib_big_drop - let go of a message left half sent
 * @tp: connection whose queue pair is drained: no work request of it
 *	is in flight.
 *
 * The core sends it again, whole, on the next queue pair.  send_lock held.
 */
void rdsd_ib_big_drop(struct rdsd_ib_conn *tp)
{
	struct rdsd_msg *msg = tp->tx_big;

	if (!msg)
		return;
	ib_dma_unmap_sg(tp->dev->ibdev, msg->sg, msg->nents, DMA_TO_DEVICE);
	tp->tx_big = NULL;
	rdsd_msg_put(msg);
}

/*
 * Send @msg in fragments of its own, behind its operation if @post_op,
 * after flushing the open pack: messages leave in order.  A message of
 * up to RDSD_IB_MAX_FRAGS fragments goes whole or waits; a larger one
 * goes in pieces, the first now and the rest as credits return
 * (rdsd_ib_big_more()), while every later message waits.  send_lock held.
 * Returns 0, -EAGAIN when credits or send slots are short (tx_blocked
 * set), or -ENOMEM when a buffer could not be mapped.
 */
static int rdsd_ib_xmit_frags(struct rdsd_ib_conn *tp, struct rdsd_msg *msg,
			      struct rdsd_wire_info *info, bool post_op,
			      u32 nfrags)
{
	bool big = nfrags > RDSD_IB_MAX_FRAGS;
	struct rdsd_op *op = msg->op;
	int count = 0, op_count = 0;
	struct rdsd_ib_sg_cur c;
	u32 n, nwr = 0;

	rdsd_ib_pack_flush(tp);		/* messages leave in order */
	if (post_op) {
		nwr = rdsd_ib_op_wrs(tp, op, op->nents);
		if (!rdsd_ib_sinks_ready(tp, op, nwr))
			return -EAGAIN;
	}
	n = rdsd_ib_frags_room(tp, nwr);
	if (big ? !n : n < nfrags) {
		tp->tx_blocked = true;
		return -EAGAIN;
	}
	n = min(n, nfrags);
	if (post_op) {
		op_count = ib_dma_map_sg(tp->dev->ibdev, op->sg, op->nents,
					 rdsd_ib_op_dir(op));
		if (unlikely(!op_count))
			return -ENOMEM;
	}
	if (msg->len) {
		count = ib_dma_map_sg(tp->dev->ibdev, msg->sg, msg->nents,
				      DMA_TO_DEVICE);
		if (unlikely(!count)) {
			if (op_count)
				ib_dma_unmap_sg(tp->dev->ibdev, op->sg,
						op->nents, rdsd_ib_op_dir(op));
			return -ENOMEM;
		}
	}
	if (post_op) {
		set_bit(RDSD_OP_POSTED, &op->state);
		trace_rdsd_op_post(op, 0);
		rdsd_ib_grant_used(tp, op);
		nwr = rdsd_ib_op_prep(tp, op, op_count);
	}

	c = (struct rdsd_ib_sg_cur) { .sg = msg->sg, .left = count };
	rdsd_ib_frags_post(tp, msg, info, 0, n, nwr, nfrags, &c);
	if (n < nfrags) {
		rdsd_msg_get(msg);	/* put by rdsd_ib_big_more() or _drop() */
		tp->tx_big = msg;
		tp->tx_big_info = *info;
		tp->tx_big_next = n;
		tp->tx_big_nfrags = nfrags;
		tp->tx_big_cur = c;
	}
	return 0;
}

/**
 * rdsd_ib_xmit - send a message: ->xmit of the IB transport
 * @conn: connection.
 * @msg: message, at the tail of the connection's retransmit list.
 *
 * Posts every fragment of @msg in one chain, or none: -EAGAIN when the
 * queue pair is not up, credits or send slots are short, or a message
 * sent in pieces is not all posted yet (the completion or credit update
 * that ends the wait kicks the connection).  A message of more than
 * RDSD_IB_MAX_FRAGS fragments goes in pieces: its first now, the rest
 * from the completions (rdsd_ib_xmit_frags()).  One larger than the peer
 * takes is dropped (-EMSGSIZE).  An RDMA or
 * atomic operation riding on @msg goes first: that of a small message at
 * once, the message following at its completion; else in the same chain,
 * the message's first SEND fenced behind a read or an atomic.  Either way
 * the peer sees the message only after the operation is done.  Of a
 * rdsd_msg_op_only() message only the operation goes: RDSD_XMIT_DONE.
 */
int rdsd_ib_xmit(struct rdsd_conn *conn, struct rdsd_msg *msg)
{
	struct rdsd_ib_conn *tp = conn->tp;
	u32 nfrags = max_t(u32, 1, DIV_ROUND_UP(msg->len, RDSD_IB_FRAG_SIZE));
	struct rdsd_wire_info info;
	struct rdsd_op *op = msg->op;
	int status, ret;
	bool post_op;

	rdsd_ib_mr_grant_ahead(tp, msg);
again:
	post_op = rdsd_msg_op_pending(msg);
	rdsd_ib_msg_info(msg, post_op, &info);
	spin_lock_bh(&tp->send_lock);
	ret = rdsd_ib_xmit_check(tp, msg, nfrags, post_op, &status);
	if (ret == -ECANCELED) {
		/* the message goes on without its operation */
		spin_unlock_bh(&tp->send_lock);
		rdsd_op_complete(op, status);
		goto again;
	}
	if (ret)
		goto out;
	/*
	 * More than the peer said it takes (its private data, learnt before
	 * tx_ready): it would reset the connection.  Dropped.
	 */
	ret = -EMSGSIZE;
	if (unlikely(msg->len > be32_to_cpu(tp->peer.max_msg))) {
		pr_info_ratelimited("%s: a message of %u bytes is over the %u the peer takes, dropped\n",
				    conn->name, msg->len,
				    be32_to_cpu(tp->peer.max_msg));
		goto out;
	}
	ret = -EAGAIN;

	/* a message being sent in pieces: every later one waits for it */
	if (tp->tx_big) {
		tp->tx_blocked = true;
		goto out;
	}

	/*
	 * The operation of a small message may pass the messages waiting in
	 * the open pack or for their operations, but not a fence.  The peer
	 * cannot tell: an operation changes its memory at a time no message
	 * of the connection is ordered with, only its own message comes
	 * after it.  A message that holds nothing for the peer has no SEND:
	 * once its operation is posted (now, or on an earlier queue pair,
	 * whose end decides the outcome) the core completes it.
	 */
	if (rdsd_msg_op_only(msg)) {
		ret = post_op ? rdsd_ib_post_op(tp, op) : 0;
		if (ret == -ENOMEM)
			goto out_nomap;
		if (ret)
			tp->tx_blocked = true;
		else
			ret = RDSD_XMIT_DONE;
		goto out;
	}
	if (msg->len <= RDSD_IB_PACK_MAX && post_op &&
	    !(op->flags & RDS_RDMA_FENCE)) {
		ret = rdsd_ib_xmit_op_packed(tp, msg);
		if (ret == -ENOMEM)
			goto out_nomap;
		if (ret)
			tp->tx_blocked = true;
		goto out;
	}

	/* messages leave in order: after those waiting for operations */
	if (tp->op_wait_head != tp->op_wait_tail) {
		tp->tx_blocked = true;
		goto out;
	}

	if (msg->len <= RDSD_IB_PACK_MAX && !post_op) {
		ret = rdsd_ib_pack_msg(tp, msg, &info);
		if (ret == -EAGAIN) {
			tp->tx_blocked = true;
			goto out;
		}
		if (!ret) {
			/* idle: go now; else the next completion sends it */
			if (!tp->sig_inflight)
				rdsd_ib_pack_flush(tp);
			goto out;
		}
	}

	ret = rdsd_ib_xmit_frags(tp, msg, &info, post_op, nfrags);
	if (ret == -ENOMEM)
		goto out_nomap;
out:
	/* short of credits: ask for a larger ring, at once if an ACK can go */
	if (ret == -EAGAIN && tp->tx_ready &&
	    !rdsd_ib_credits_ok(&tp->credits, nfrags)) {
		rdsd_ib_credits_short(&tp->credits);
		if (tp->credits.want)
			rdsd_ib_post_ctl(tp, RDSD_WIRE_ACK);
	}
	spin_unlock_bh(&tp->send_lock);
	return ret;

out_nomap:
	/* retried from the ack timer */
	ret = -EAGAIN;
	tp->tx_blocked = true;
	mod_delayed_work(rdsd_wq, &tp->ack_work, 1);
	goto out;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_xmit);

/* Completion of a signaled send: retire it and every older slot. */
void rdsd_ib_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdsd_ib_send *s = container_of(wc->wr_cqe, struct rdsd_ib_send,
					      cqe);
	struct rdsd_ib_conn *tp = s->tp;
	int status = rdsd_ib_op_status(wc->status);
	u32 n, idx = s - tp->sends;
	bool kick;

	/*
	 * A flush outside teardown (tx_ready still set) means the device
	 * moved the queue pair to error on its own, e.g. its link went down.
	 */
	if (unlikely(wc->status != IB_WC_SUCCESS) &&
	    (wc->status != IB_WC_WR_FLUSH_ERR || READ_ONCE(tp->tx_ready))) {
		WRITE_ONCE(tp->conn->last_error, -EIO);
		pr_info_ratelimited("%s: send failed: %s\n",
				    tp->conn->name,
				    ib_wc_status_msg(wc->status));
		rdsd_ib_request_reset(tp, RDSD_RESET_SEND_ERROR);
	}

	spin_lock_bh(&tp->send_lock);
	/*
	 * The queue pair is in the error state: post nothing more to it, so
	 * no operation is flushed that could have run on the next one.
	 */
	if (unlikely(wc->status != IB_WC_SUCCESS))
		tp->tx_ready = false;
	n = ((idx - tp->send_tail) & RDSD_IB_SEND_MASK) + 1;
	if (!WARN_ON_ONCE(n > tp->send_head - tp->send_tail)) {
		/* older slots completed before this one, successfully */
		while (n--) {
			struct rdsd_ib_send *o = rdsd_ib_slot(tp,
							      tp->send_tail++);

			rdsd_ib_slot_release(tp, o, o == s ? status :
					     RDS_RDMA_SUCCESS);
		}
	}
	if (tp->sig_inflight)
		tp->sig_inflight--;
	if (tp->tx_ready) {
		rdsd_ib_op_wait_drain(tp);
		/* while operations run, their messages gather in fewer SENDs */
		if (tp->op_wait_head == tp->op_wait_tail ||
		    tp->pack_msgs >= RDSD_IB_PACK_BATCH)
			rdsd_ib_pack_flush(tp);
	}
	rdsd_ib_big_more(tp);
	rdsd_ib_send_cong(tp);
	rdsd_ib_send_ctl(tp);
	rdsd_ib_tail_check(tp);
	/* what waits behind a message sent in pieces waits for its end */
	kick = tp->tx_blocked && !tp->tx_big;
	if (kick)
		tp->tx_blocked = false;
	spin_unlock_bh(&tp->send_lock);

	if (kick)
		rdsd_conn_kick(tp->conn);
}

/**
 * rdsd_ib_tx_after_rx - the send side's part of a completed receive
 * @tp: connection.
 * @sum: what the receive buffer said.
 * @r: the receive buffer, handled: posted again (a credit to return)
 *	unless the queue pair is being drained.
 * @kick: the connection is to be kicked already.
 *
 * Takes the credits, acknowledges when due, and sends what waited for
 * them.  Returns true when the connection is to be kicked.  Softirq.
 */
bool rdsd_ib_tx_after_rx(struct rdsd_ib_conn *tp,
			 const struct rdsd_ib_rx_sum *sum,
			 struct rdsd_ib_recv *r, bool kick)
{
	u32 credits = sum->credits;
	int ret = 0;
	bool now;

	spin_lock_bh(&tp->send_lock);
	/* under send_lock: rdsd_ib_tx_stop() orders it before the drain */
	if (!tp->rx_stopped) {
		ret = rdsd_ib_recv_post(tp, r);
		if (!ret)
			tp->credits.adv++;
	}
	if (tp->tx_wait_hello) {
		tp->tx_wait_hello = false;
		tp->tx_ready = true;
		tp->cong_pending = !tp->peer_local;
		kick = true;
	}
	rdsd_ib_credits_add(&tp->credits, credits);
	if (sum->bufs)
		tp->credits.peer_bufs = sum->bufs;
	tp->rx_unacked += sum->delivered;
	now = sum->ack_req ||
	      tp->rx_unacked >= RDSD_IB_ACK_EVERY ||
	      tp->credits.adv >= rdsd_ib_ack_credits(tp->recv_nr);
	if (now && (tp->rx_unacked || tp->credits.adv))
		rdsd_ib_post_ctl(tp, RDSD_WIRE_ACK);
	if (tp->rx_unacked && tp->tx_ready)
		queue_delayed_work(rdsd_wq, &tp->ack_work, 1);
	rdsd_ib_send_cong(tp);
	rdsd_ib_send_ctl(tp);
	if (credits && tp->tx_ready &&
	    tp->op_wait_head != tp->op_wait_tail) {
		rdsd_ib_op_wait_drain(tp);
		if (!tp->sig_inflight)
			rdsd_ib_pack_flush(tp);
	}
	if (credits)
		rdsd_ib_big_more(tp);
	if (credits && tp->tx_blocked && !tp->tx_big) {
		tp->tx_blocked = false;
		kick = true;
	}
	if (kick && tp->rx_unacked)
		rdsd_ib_post_ctl(tp, RDSD_WIRE_ACK);
	/* the ACK a stuck tail waits for may have lacked a credit */
	if (credits)
		rdsd_ib_tail_check(tp);
	spin_unlock_bh(&tp->send_lock);

	if (unlikely(ret)) {
		pr_info_ratelimited("%s: post receive failed: %d\n",
				    tp->conn->name, ret);
		rdsd_ib_request_reset(tp, RDSD_RESET_POST);
	}
	return kick;
}

/**
 * rdsd_ib_ack_worker - acknowledge what no other message did
 * @work: rdsd_ib_conn.ack_work.
 *
 * Also retries a send that could not map its pages, and retires a stuck
 * tail of the send ring (rdsd_ib_tail_stuck()) with a signaled ACK: a
 * finished operation does not wait for unrelated traffic to release its
 * pages and its socket.
 */
void rdsd_ib_ack_worker(struct work_struct *work)
{
	struct rdsd_ib_conn *tp = container_of(to_delayed_work(work),
					       struct rdsd_ib_conn, ack_work);
	bool kick;

	spin_lock_bh(&tp->send_lock);
	if (tp->rx_unacked || rdsd_ib_tail_stuck(tp))
		rdsd_ib_post_ctl(tp, RDSD_WIRE_ACK);
	kick = tp->tx_blocked && tp->tx_ready && !tp->tx_big;
	spin_unlock_bh(&tp->send_lock);
	if (kick)
		rdsd_conn_kick(tp->conn);
}

/* Take the credits the peer's private data offers; send_lock held. */
static void rdsd_ib_credits_init(struct rdsd_ib_conn *tp,
				 const struct rdsd_ib_cm_data *peer)
{
	struct rdsd_ib_credits *c = &tp->credits;

	c->max = be32_to_cpu(peer->recv_max);
	c->peer_bufs = be32_to_cpu(peer->credits);
	c->asked = 0;
	c->want = false;
	rdsd_ib_credits_add(c, c->peer_bufs);
}

/**
 * rdsd_ib_bufs_posted - receive buffers were added to the ring
 * @tp: connection.
 * @n: buffers, posted already.
 *
 * They are returned to the peer as credits at once, with the ring's new
 * size.  Process context.
 */
void rdsd_ib_bufs_posted(struct rdsd_ib_conn *tp, u32 n)
{
	spin_lock_bh(&tp->send_lock);
	tp->recv_nr += n;
	tp->credits.adv += n;
	rdsd_ib_post_ctl(tp, RDSD_WIRE_ACK);
	spin_unlock_bh(&tp->send_lock);
}

/**
 * rdsd_ib_tx_start - our request was accepted: let sends go
 * @tp: connection.
 * @peer: the peer's private data, checked.
 *
 * The first message (an ack, if nothing else is queued) tells the peer we
 * are ready to receive.
 */
void rdsd_ib_tx_start(struct rdsd_ib_conn *tp,
		      const struct rdsd_ib_cm_data *peer)
{
	spin_lock_bh(&tp->send_lock);
	rdsd_ib_ctl_reset(tp);
	rdsd_ib_credits_init(tp, peer);
	tp->cong_pending = !tp->peer_local;
	tp->tx_ready = true;
	rdsd_ib_send_cong(tp);
	if (!tp->cong_busy)
		rdsd_ib_post_ctl(tp, RDSD_WIRE_ACK);
	spin_unlock_bh(&tp->send_lock);
}

/**
 * rdsd_ib_tx_arm - we accepted the peer's request
 * @tp: connection.
 * @peer: the peer's private data, checked.
 *
 * Sends start with the peer's first message: only then is it sure to
 * have learnt who we are (see rdsd_ib_peer_learn()).
 */
void rdsd_ib_tx_arm(struct rdsd_ib_conn *tp,
		    const struct rdsd_ib_cm_data *peer)
{
	spin_lock_bh(&tp->send_lock);
	rdsd_ib_ctl_reset(tp);
	rdsd_ib_credits_init(tp, peer);
	tp->tx_wait_hello = true;
	spin_unlock_bh(&tp->send_lock);
}

/**
 * rdsd_ib_tx_stop - no more sends on this queue pair, no more receives posted
 * @tp: connection, about to be drained.
 */
void rdsd_ib_tx_stop(struct rdsd_ib_conn *tp)
{
	spin_lock_bh(&tp->send_lock);
	tp->tx_ready = false;
	tp->rx_stopped = true;
	tp->tx_wait_hello = false;
	if (tp->sends)
		rdsd_ib_pack_drop(tp);
	spin_unlock_bh(&tp->send_lock);
}
