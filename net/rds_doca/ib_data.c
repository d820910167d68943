// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca IB transport: the data path.
 *
 * A connection is one RC queue pair with a send ring and a receive ring.
 * Every message fragment is one SEND: a 64-byte header (struct
 * rdsd_wire_hdr) from the send slot's header buffer, then up to
 * RDSD_IB_FRAG_SIZE payload bytes straight from the message's pages.  The
 * receive ring holds RDSD_IB_RECV_RING buffers, each a header slot and a
 * payload buffer of RDSD_IB_FRAG_SIZE bytes, mapped once when the
 * connection is set up and reposted after every completion.
 *
 * Small messages share SENDs under load: while a signaled send is in
 * flight, messages of up to RDSD_IB_PACK_MAX bytes are copied into an open
 * pack buffer, each behind its own header (RDSD_WIRE_F_MORE says another
 * header follows), and the pack goes out when that send completes or the
 * pack is full.  An idle connection posts a message at once.
 *
 * Flow control is by credits: the peer says in its connection private
 * data how many buffers it posted, each send uses one, and every buffer
 * reposted is returned to the sender in the credits field of the next
 * header going the other way.  The last credit is only spent on a message
 * that returns credits itself, so two ends never wait for each other, and
 * no send ever meets a receive queue that is not ready.  Credits a peer
 * returns beyond what it posted are clamped away (rdsd_ib_credits_add()).
 *
 * Acknowledgments ride on every header (the highest sequence number
 * delivered); one of a message never sent is a protocol violation, as a
 * malformed header is: the connection is reset.  An explicit ACK goes out
 * when the peer asks for one (it does for large messages and every
 * RDSD_IB_ACK_REQ_EVERY messages), after RDSD_IB_ACK_EVERY messages, when
 * a quarter of the ring waits to be returned as credits, or from a short
 * timer when nothing else carried it.
 *
 * Completions are polled in softirq.  Only every RDSD_IB_SIGNAL_EVERY-th
 * send (and every send when the ring runs low) asks for one; a completion
 * retires every older slot too, as an RC send queue completes in order.
 * A message stays on the connection's retransmit list until acknowledged;
 * a send slot only holds a reference while the device may read the pages.
 * Sends past the last signaled one that hold a message or an operation,
 * with no completion due, are retired by a signaled ACK from the ack
 * timer a tick later: nothing a finished send holds (an operation's
 * pinned pages and socket) waits for unrelated traffic.
 *
 * Locking: send_lock nests outside rs->recv_lock, which a send completion
 * takes to queue an RDMA notice (rdsd_op_complete()), directly or through
 * the last put of a message or an operation.  A congestion change comes
 * with rs->recv_lock held, so the map update is posted from a work item.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "ib.h"
#include "cong.h"
#include "conn.h"
#include "message.h"
#include "mr.h"
#include "recv.h"
#include "send.h"
#include "stats.h"
#include "transport.h"
#include "trace.h"

#define RDSD_IB_SEND_MASK	(RDSD_IB_SEND_RING - 1)
#define RDSD_IB_CONG_BYTES	(RDSD_NR_PORTS / 8)

static_assert((RDSD_IB_SEND_RING & (RDSD_IB_SEND_RING - 1)) == 0);
static_assert((RDSD_IB_RECV_RING & (RDSD_IB_RECV_RING - 1)) == 0);
/* a largest message, plus the slot kept for an ack, fits the rings */
static_assert(RDSD_IB_MAX_FRAGS + 1 < RDSD_IB_SEND_RING);
static_assert(RDSD_IB_MAX_FRAGS + 1 < RDSD_IB_RECV_RING);
static_assert(RDSD_IB_CONG_BYTES <= RDSD_IB_FRAG_SIZE);

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
 * rdsd_ib_frag_check - does a DATA fragment continue what is being received?
 * @active: a message is being received.
 * @seq: its sequence number.
 * @len: its length.
 * @off: bytes of it received so far.
 * @info: the fragment's header.
 *
 * Fragments of one message arrive back to back and in order on a queue
 * pair, and every one but the last carries RDSD_IB_FRAG_SIZE bytes;
 * anything else is a protocol error (-EPROTO).
 */
int rdsd_ib_frag_check(bool active, u64 seq, u32 len, u32 off,
		       const struct rdsd_wire_info *info)
{
	if (info->frag_off + info->frag_len != info->len &&
	    info->frag_len != RDSD_IB_FRAG_SIZE)
		return -EPROTO;
	if (!active)
		return info->frag_off ? -EPROTO : 0;
	if (info->seq != seq || info->len != len || info->frag_off != off)
		return -EPROTO;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_frag_check);

static struct rdsd_ib_send *rdsd_ib_slot(struct rdsd_ib_conn *tp, u32 i)
{
	return &tp->sends[i & RDSD_IB_SEND_MASK];
}

static u32 rdsd_ib_send_free(const struct rdsd_ib_conn *tp)
{
	return RDSD_IB_SEND_RING - (tp->send_head - tp->send_tail);
}

/*
 * Start a fresh work request in released slot @s: nothing attached, every
 * field of the request (of any kind) zero but its completion entry and
 * scatter/gather list.  send_lock held.
 */
static void rdsd_ib_slot_prep(struct rdsd_ib_send *s)
{
	s->msg = NULL;
	s->op = NULL;
	s->unmap = false;
	s->op_last = false;
	s->cong = false;
	s->pack = -1;
	memset(&s->atomic, 0, sizeof(s->atomic));
	static_assert(sizeof(s->atomic) >= sizeof(s->rdma));
	s->wr.wr_cqe = &s->cqe;
	s->wr.sg_list = s->sge;
}

/* Header of send slot @i. */
static struct rdsd_wire_hdr *rdsd_ib_slot_hdr(struct rdsd_ib_conn *tp, u32 i)
{
	return tp->send_hdrs + (i & RDSD_IB_SEND_MASK) * RDSD_IB_HDR_STRIDE;
}

/*
 * Start slot @i as a SEND of its header, already written, alone; send_lock
 * held.
 */
static void rdsd_ib_hdr_set(struct rdsd_ib_conn *tp, u32 i)
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
static void rdsd_ib_hdr_prep(struct rdsd_ib_conn *tp, u32 i,
			     const struct rdsd_wire_info *info)
{
	rdsd_wire_encode(rdsd_ib_slot_hdr(tp, i), info);
	rdsd_ib_hdr_set(tp, i);
}

/*
 * Ask for a completion now and then, and always when the ring runs low;
 * @s holds its message and operation already.  send_lock held.
 */
VISIBLE_IF_KUNIT void rdsd_ib_signal(struct rdsd_ib_conn *tp,
				     struct rdsd_ib_send *s, bool force)
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
VISIBLE_IF_KUNIT bool rdsd_ib_tail_stuck(const struct rdsd_ib_conn *tp)
{
	return tp->tail_refs && !tp->sig_inflight;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_tail_stuck);

/*
 * Let the ack timer post a signaled ACK if the ring's tail is stuck: what
 * finished sends hold is released within a tick, whatever traffic
 * follows.  send_lock held.
 */
static void rdsd_ib_tail_check(struct rdsd_ib_conn *tp)
{
	if (tp->tx_ready && rdsd_ib_tail_stuck(tp))
		queue_delayed_work(rdsd_wq, &tp->ack_work, 1);
}

/* Fill in the acknowledgment every header carries; send_lock held. */
static void rdsd_ib_fill_ack(struct rdsd_ib_conn *tp,
			     struct rdsd_wire_info *info)
{
	u64 next = READ_ONCE(tp->conn->next_rx_seq);

	if (next) {
		info->flags |= RDSD_WIRE_F_ACK_VALID;
		info->ack = next - 1;
	}
	tp->rx_unacked = 0;
}

/* DMA direction of an operation's local buffers. */
static enum dma_data_direction rdsd_ib_op_dir(const struct rdsd_op *op)
{
	return op->kind == RDSD_OP_WRITE ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
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
 * Release a completed (or never to complete) send slot; send_lock held.
 * @status: RDS_RDMA_* outcome of the slot's work request, for operations.
 */
static void rdsd_ib_slot_release(struct rdsd_ib_conn *tp,
				 struct rdsd_ib_send *s, int status)
{
	struct rdsd_msg *msg = s->msg;
	struct rdsd_op *op = s->op;

	if (s->cong)
		tp->cong_busy = false;
	s->cong = false;
	if (s->pack >= 0)
		clear_bit(s->pack, &tp->pack_busy);
	s->pack = -1;
	if (op) {
		/* a piece that failed, or the last one, decides */
		if (status != RDS_RDMA_SUCCESS || s->op_last)
			rdsd_op_complete(op, status);
		if (s->op_last)
			ib_dma_unmap_sg(tp->dev->ibdev, op->sg, op->nents,
					rdsd_ib_op_dir(op));
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
static void rdsd_ib_post(struct rdsd_ib_conn *tp, u32 n)
{
	u32 i;
	int ret;

	for (i = 0; i < n; i++) {
		struct rdsd_ib_send *s = rdsd_ib_slot(tp, tp->send_head + i);

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
		pr_warn_ratelimited("%pI4->%pI4: post send failed: %d\n",
				    &tp->conn->laddr, &tp->conn->faddr, ret);
		tp->tx_ready = false;
		rdsd_ib_request_reset(tp, RDSD_RESET_POST);
	}
	rdsd_ib_tail_check(tp);
}

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
static void rdsd_ib_pack_drop(struct rdsd_ib_conn *tp)
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
		idx = find_first_zero_bit(&tp->pack_busy, RDSD_IB_PACKS);
		if (idx >= RDSD_IB_PACKS)
			return -ENOSPC;
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

/* Pack the local congestion map, port p as bit p % 8 of byte p / 8. */
static void rdsd_ib_cong_pack(__le64 *wire, const unsigned long *bits)
{
	unsigned int w, b;

	for (w = 0; w < RDSD_NR_PORTS / 64; w++) {
		u64 v = 0;

		for (b = 0; b < 64; b += BITS_PER_LONG)
			v |= (u64)READ_ONCE(bits[(w * 64 + b) / BITS_PER_LONG])
				<< b;
		wire[w] = cpu_to_le64(v);
	}
}

/* Apply a peer's map to our copy; returns the changed ports (mod 64). */
static u64 rdsd_ib_cong_unpack(unsigned long *bits, const __le64 *wire)
{
	unsigned int w, b;
	u64 changed = 0;

	for (w = 0; w < RDSD_NR_PORTS / 64; w++) {
		u64 new = le64_to_cpu(wire[w]), old = 0;

		for (b = 0; b < 64; b += BITS_PER_LONG)
			old |= (u64)bits[(w * 64 + b) / BITS_PER_LONG] << b;
		if (old == new)
			continue;
		changed |= old ^ new;
		for (b = 0; b < 64; b += BITS_PER_LONG)
			WRITE_ONCE(bits[(w * 64 + b) / BITS_PER_LONG],
				   (unsigned long)(new >> b));
	}
	return changed;
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
		rdsd_ib_cong_pack(tp->cong_buf, tp->conn->lcong->bits);
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
static void rdsd_ib_send_ctl(struct rdsd_ib_conn *tp)
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
static u32 rdsd_ib_ctl_count(const struct rdsd_ib_conn *tp, u8 type)
{
	u32 i, n = 0;

	for (i = tp->ctl_tail; i != tp->ctl_head; i++)
		n += tp->ctl[i % RDSD_IB_CTL_RING].type == type;
	return n;
}

/* Queue @info on @ctl, which has room (see its limits); send_lock held. */
static void rdsd_ib_ctl_push(struct rdsd_ib_conn *tp,
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

static struct rdsd_ib_grant *rdsd_ib_grant_slot(struct rdsd_ib_conn *tp,
						u64 cookie)
{
	return &tp->grants[hash_64(cookie, ilog2(RDSD_IB_GRANTS))];
}

/**
 * rdsd_ib_grant_check - may this operation use what the peer granted?
 * @g: the peer's answer for the operation's cookie.
 * @op: the operation.
 * @sport: the port of the socket that sends it.
 * @dport: the port it is addressed to.
 *
 * The peer's kernel gave the device key for one owner, one range, its
 * rights, and perhaps one asking port; no operation that falls outside
 * reaches the device.  Returns 0 or -EACCES.
 */
int rdsd_ib_grant_check(const struct rdsd_ib_grant *g,
			const struct rdsd_op *op, __be16 sport, __be16 dport)
{
	u64 idx;

	if (g->dport != dport || (g->sport && g->sport != sport))
		return -EACCES;
	if (op->kind != RDSD_OP_READ && (g->flags & RDSD_WIRE_F_MR_RO))
		return -EACCES;
	/* the range rule of rdsd_mr_check(), on what the owner told */
	if (!rdsd_mr_range_ok(rdsd_cookie_offset(op->cookie), g->len,
			      op->raddr, op->bytes, &idx))
		return -EACCES;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_grant_check);

/*
 * Find the device key for @msg's operation: 0 with op->rkey set, -EAGAIN
 * while the peer is asked (its answer kicks the connection), or -EACCES
 * when the operation may not go: the peer refused the cookie (and counted
 * it), or the operation falls outside what it granted (counted here).
 * send_lock held, the queue pair taking sends.
 */
static int rdsd_ib_op_resolve(struct rdsd_ib_conn *tp, struct rdsd_msg *msg)
{
	struct rdsd_op *op = msg->op;
	struct rdsd_ib_grant *g = rdsd_ib_grant_slot(tp, op->cookie);
	struct rdsd_wire_info req = {
		.type = RDSD_WIRE_MR_REQ,
		.sport = msg->sport,
		.dport = msg->dport,
		.rdma_cookie = op->cookie,
	};

	if (g->cookie == op->cookie) {
		if (rdsd_ib_grant_check(g, op, msg->sport, msg->dport)) {
			rdsd_stat_inc(tp->conn->rn, rdma_refused);
			return -EACCES;
		}
		op->rkey = g->rkey;
		return 0;
	}
	if (tp->denied == op->cookie) {
		tp->denied = 0;
		return -EACCES;
	}
	if (tp->req_out)
		return -EAGAIN;
	/* a cookie is never 0; a port-0 (probe) socket sends no operation */
	tp->req_out = true;
	tp->req_cookie = op->cookie;
	tp->req_dport = msg->dport;
	trace_rdsd_mr_request(tp->conn, op->cookie, ntohs(msg->dport), false);
	rdsd_ib_ctl_push(tp, &req);
	rdsd_stat_inc(tp->conn->rn, rdma_resolve);
	rdsd_ib_send_ctl(tp);
	return -EAGAIN;
}

/* @op was posted: a grant good for one operation is used up. */
static void rdsd_ib_grant_used(struct rdsd_ib_conn *tp,
			       const struct rdsd_op *op)
{
	struct rdsd_ib_grant *g = rdsd_ib_grant_slot(tp, op->cookie);

	if (g->cookie == op->cookie && (g->flags & RDSD_WIRE_F_MR_ONCE))
		g->cookie = 0;
}

/**
 * rdsd_ib_mr_revoke - tell the peer to forget a region's device key
 * @tp: a connection from the region's address.
 * @mr: the region, dead, granted to some peer.
 *
 * Queued behind any grant this connection gave, and before any message
 * sent after this call: a peer that learns of the free from a message has
 * forgotten the key by then.  When @ctl has no room (two entries stay
 * free for an answer and a request), one MR_REVOKE of cookie 0, sent
 * after everything queued, makes the peer forget every grant it had.
 * Any context but under send_lock.
 */
void rdsd_ib_mr_revoke(struct rdsd_ib_conn *tp, struct rdsd_mr *mr)
{
	const struct rdsd_wire_info info = {
		.type = RDSD_WIRE_MR_REVOKE,
		.rdma_cookie = rdsd_cookie_make(mr->key, mr->cookie_off),
	};

	spin_lock_bh(&tp->send_lock);
	/* a queue pair that is not up forgets every grant anyway */
	if (tp->tx_ready) {
		if (tp->ctl_head - tp->ctl_tail < RDSD_IB_CTL_RING - 2) {
			rdsd_ib_ctl_push(tp, &info);
			trace_rdsd_mr_revoke(tp->conn, info.rdma_cookie, 0,
					     false);
		} else {
			tp->revoke_all = true;
			trace_rdsd_mr_revoke(tp->conn, 0, 0, false);
		}
		rdsd_ib_send_ctl(tp);
	}
	spin_unlock_bh(&tp->send_lock);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_mr_revoke);

/*
 * The peer asks which device key cookie @req->rdma_cookie stands for:
 * answer, through @ctl, with the key if the region may be used by the
 * asking socket through the socket addressed (rdsd_ib_mr_grant()), else
 * with a refusal, counted in rdma_refused.  Returns 0, or -EPROTO if the
 * peer asked again before it had the answer.  Softirq.
 */
static int rdsd_ib_mr_answer(struct rdsd_ib_conn *tp,
			     const struct rdsd_wire_info *req)
{
	struct rdsd_conn *conn = tp->conn;
	const struct rdsd_mr_peer peer = {
		.saddr = conn->faddr, .sport = req->sport,
		.daddr = conn->laddr, .dport = req->dport,
	};
	struct rdsd_wire_info ans = {
		.type = RDSD_WIRE_MR_ANS,
		.rdma_cookie = req->rdma_cookie,
		.dport = req->dport,
	};
	struct rdsd_mr *mr = rdsd_mr_find(conn->rn, req->rdma_cookie);
	bool ok = mr && rdsd_ib_mr_grant(tp, mr, &peer, &ans);
	int ret = 0;

	spin_lock_bh(&tp->send_lock);
	if (rdsd_ib_ctl_count(tp, RDSD_WIRE_MR_ANS)) {
		ret = -EPROTO;
		goto out;
	}
	if (ok) {
		/* rdsd_ib_mr_revoke() sees this, or we see the region dead */
		WRITE_ONCE(mr->granted, true);
		ok = !READ_ONCE(mr->dead);
	}
	if (!ok) {
		ans.rdma_key = 0;
		ans.len = 0;
		ans.sport = 0;
		ans.flags = 0;
		rdsd_stat_inc(conn->rn, rdma_refused);
	}
	trace_rdsd_mr_answer(conn, req->rdma_cookie, ntohs(req->dport), ok);
	rdsd_ib_ctl_push(tp, &ans);
	rdsd_ib_send_ctl(tp);
out:
	spin_unlock_bh(&tp->send_lock);
	rdsd_mr_put(mr);
	return ret;
}

/*
 * The peer answered our MR_REQ, or revoked grants: remember, or forget.
 * Returns 0, true in *@kick when an operation waits for the answer, or
 * -EPROTO for an answer nobody asked for.  send_lock held.
 */
static int rdsd_ib_mr_heard(struct rdsd_ib_conn *tp,
			    const struct rdsd_wire_info *info, bool *kick)
{
	struct rdsd_ib_grant *g;

	if (info->type == RDSD_WIRE_MR_REVOKE) {
		trace_rdsd_mr_revoked(tp->conn, info->rdma_cookie, 0, false);
		if (!info->rdma_cookie) {
			memset(tp->grants, 0, sizeof(tp->grants));
			return 0;
		}
		g = rdsd_ib_grant_slot(tp, info->rdma_cookie);
		if (g->cookie == info->rdma_cookie)
			g->cookie = 0;
		return 0;
	}
	if (!tp->req_out || info->rdma_cookie != tp->req_cookie ||
	    info->dport != tp->req_dport)
		return -EPROTO;
	tp->req_out = false;
	*kick = true;
	trace_rdsd_mr_answered(tp->conn, info->rdma_cookie, ntohs(info->dport),
			       info->rdma_key);
	if (!info->rdma_key) {
		tp->denied = info->rdma_cookie;
		return 0;
	}
	g = rdsd_ib_grant_slot(tp, info->rdma_cookie);
	*g = (struct rdsd_ib_grant) {
		.cookie = info->rdma_cookie,
		.rkey = info->rdma_key,
		.len = info->len,
		.dport = info->dport,
		.sport = info->sport,
		.flags = info->flags & (RDSD_WIRE_F_MR_RO | RDSD_WIRE_F_MR_ONCE),
	};
	return 0;
}

/*
 * An MR_REQ, MR_ANS or MR_REVOKE came; true in *@kick when an operation
 * waited for it.  Returns 0, or -EPROTO when the peer broke the rules.
 * Softirq.
 */
static int rdsd_ib_mr_recv(struct rdsd_ib_conn *tp,
			   const struct rdsd_wire_info *info, bool *kick)
{
	int ret;

	if (info->type == RDSD_WIRE_MR_REQ)
		return rdsd_ib_mr_answer(tp, info);
	spin_lock_bh(&tp->send_lock);
	ret = rdsd_ib_mr_heard(tp, info, kick);
	spin_unlock_bh(&tp->send_lock);
	return ret;
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
 * made before the work ran.  Cancelled by ->conn_shutdown.
 */
void rdsd_ib_cong_worker(struct work_struct *work)
{
	struct rdsd_ib_conn *tp = container_of(work, struct rdsd_ib_conn,
					       cong_work);

	spin_lock_bh(&tp->send_lock);
	tp->cong_pending = true;
	rdsd_ib_send_cong(tp);
	spin_unlock_bh(&tp->send_lock);
}

/* Does the next message of @len bytes ask the peer for an ack? */
static bool rdsd_ib_ack_req(const struct rdsd_ib_conn *tp, u32 len)
{
	return len >= RDSD_IB_ACK_REQ_BYTES ||
	       tp->tx_since_req + 1 >= RDSD_IB_ACK_REQ_EVERY;
}

/* A message went out, asking for an ack (@req) or not. */
static void rdsd_ib_ack_req_sent(struct rdsd_ib_conn *tp, bool req)
{
	tp->tx_since_req = req ? 0 : tp->tx_since_req + 1;
}

/* Scatter/gather entries for bytes [@off, @off + @len) of a mapped list. */
static int rdsd_ib_frag_sges(struct rdsd_ib_conn *tp, struct rdsd_msg *msg,
			     int count, u32 off, u32 len, struct ib_sge *sge,
			     int max)
{
	struct scatterlist *sg;
	int i, n = 0;

	for_each_sg(msg->sg, sg, count, i) {
		u32 slen = sg_dma_len(sg), take;

		if (off >= slen) {
			off -= slen;
			continue;
		}
		if (n == max)
			return -EINVAL;
		take = min(len, slen - off);
		sge[n].addr = sg_dma_address(sg) + off;
		sge[n].length = take;
		sge[n].lkey = tp->dev->pd->local_dma_lkey;
		n++;
		len -= take;
		off = 0;
		if (!len)
			return n;
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

/* Work requests (send slots) @op takes, for @count mapped entries. */
static u32 rdsd_ib_op_wrs(const struct rdsd_ib_conn *tp,
			  const struct rdsd_op *op, u32 count)
{
	if (rdsd_op_is_atomic(op->kind))
		return 1;
	return DIV_ROUND_UP(count, rdsd_ib_op_max_sge(tp, op));
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
	u32 nwr = rdsd_ib_op_wrs(tp, op, count);
	struct scatterlist *sg = op->sg;
	u64 raddr = op->raddr;
	u32 i, k;

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

/*
 * Is @msg's operation to be posted now?  Once at most: an operation handed
 * to an earlier queue pair is final (completed, or dropped with it).
 */
static bool rdsd_ib_op_pending(const struct rdsd_msg *msg)
{
	return msg->op && !test_bit(RDSD_OP_DONE, &msg->op->state) &&
	       !test_bit(RDSD_OP_POSTED, &msg->op->state);
}

/* Tell the peer of the cookie and the used region @msg carries. */
static void rdsd_ib_rdma_info(const struct rdsd_msg *msg, bool post_op,
			      struct rdsd_wire_info *info)
{
	const struct rdsd_op *op = msg->op;

	if (msg->rdma_dest) {
		info->flags |= RDSD_WIRE_F_RDMA_DEST;
		info->rdma_cookie = msg->rdma_dest;
	}
	if (op && (op->flags & RDS_RDMA_SILENT))
		info->flags |= RDSD_WIRE_F_SILENT;
	/* an operation that failed leaves the region alone */
	if (op && op->key &&
	    (post_op || (test_bit(RDSD_OP_DONE, &op->state) &&
			 op->status == RDS_RDMA_SUCCESS))) {
		info->flags |= RDSD_WIRE_F_RDMA_USED;
		info->rdma_key = op->key;
	}
}

/* The header fields of @msg, as rdsd_ib_rdma_info() for @post_op. */
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
	rdsd_ib_rdma_info(msg, post_op, info);
}

/*
 * Add small message @msg, whose header fields @info holds, to the open
 * pack; send_lock held.  Returns what rdsd_ib_pack_add() does, with @info
 * as it came on failure.
 */
static int rdsd_ib_pack_msg(struct rdsd_ib_conn *tp, struct rdsd_msg *msg,
			    struct rdsd_wire_info *info)
{
	bool req = rdsd_ib_ack_req(tp, msg->len);
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

	if (rdsd_ib_send_free(tp) < nwr + 1)
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

	if (!tp->tx_ready)
		return -EAGAIN;	/* rdsd_conn_up() sends it on the next path */
	/*
	 * An operation of more pieces than the device takes in the whole
	 * ring would wait for room forever, and every later message of the
	 * connection with it: it fails, as a refused one does, and the
	 * message goes on without it.
	 */
	if (post_op && rdsd_ib_op_wrs(tp, op, op->nents) + nfrags + 1 >
		       RDSD_IB_SEND_RING) {
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
 * Send @msg in fragments of its own, behind its operation if @post_op,
 * after flushing the open pack: messages leave in order.  send_lock held.
 * Returns 0, -EAGAIN when credits or send slots are short (tx_blocked
 * set), or -ENOMEM when a buffer could not be mapped.
 */
static int rdsd_ib_xmit_frags(struct rdsd_ib_conn *tp, struct rdsd_msg *msg,
			      struct rdsd_wire_info *info, bool post_op,
			      u32 nfrags)
{
	struct rdsd_op *op = msg->op;
	int count = 0, op_count = 0;
	u16 ack_flags, last_flags;
	u32 i, adv, nwr = 0;

	rdsd_ib_pack_flush(tp);		/* messages leave in order */
	if (post_op)
		nwr = rdsd_ib_op_wrs(tp, op, op->nents);
	if (!rdsd_ib_credits_ok(&tp->credits, nfrags) ||
	    rdsd_ib_send_free(tp) < nwr + nfrags + 1) {
		tp->tx_blocked = true;
		return -EAGAIN;
	}
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

	rdsd_ib_credits_take(&tp->credits, nfrags, &adv);
	rdsd_ib_fill_ack(tp, info);
	ack_flags = info->flags;
	last_flags = ack_flags | RDSD_WIRE_F_LAST_FRAG;
	if (rdsd_ib_ack_req(tp, msg->len))
		last_flags |= RDSD_WIRE_F_ACK_REQ;
	rdsd_ib_ack_req_sent(tp, last_flags & RDSD_WIRE_F_ACK_REQ);

	for (i = 0; i < nfrags; i++) {
		u32 idx = tp->send_head + nwr + i;
		struct rdsd_ib_send *s = rdsd_ib_slot(tp, idx);
		bool last = i + 1 == nfrags;
		int n = 0;

		info->flags = last ? last_flags : ack_flags;
		info->frag_off = i * RDSD_IB_FRAG_SIZE;
		info->frag_len = min_t(u32, RDSD_IB_FRAG_SIZE,
				       msg->len - info->frag_off);
		info->credits = i ? 0 : adv;
		rdsd_ib_hdr_prep(tp, idx, info);
		if (info->frag_len) {
			n = rdsd_ib_frag_sges(tp, msg, count, info->frag_off,
					      info->frag_len, &s->sge[1],
					      tp->dev->max_send_sge - 1);
			if (WARN_ON_ONCE(n < 0))
				n = 0;	/* the peer refuses the short fragment */
		}
		s->wr.num_sge = 1 + n;
		if (!i && nwr && op->kind != RDSD_OP_WRITE)
			s->wr.send_flags |= IB_SEND_FENCE;
		rdsd_msg_get(msg);
		s->msg = msg;
		s->unmap = last && msg->len;
		rdsd_ib_signal(tp, s, false);
	}
	rdsd_ib_post(tp, nwr + nfrags);
	return 0;
}

/**
 * rdsd_ib_xmit - send a message: ->xmit of the IB transport
 * @conn: connection.
 * @msg: message, at the tail of the connection's retransmit list.
 *
 * Posts every fragment of @msg in one chain, or none: -EAGAIN when the
 * queue pair is not up or credits or send slots are short (the completion
 * or credit update that ends the wait kicks the connection).  An RDMA or
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

again:
	post_op = rdsd_ib_op_pending(msg);
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
	ret = -EAGAIN;

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
static void rdsd_ib_send_done(struct ib_cq *cq, struct ib_wc *wc)
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
		pr_info_ratelimited("%pI4->%pI4: send failed: %s\n",
				    &tp->conn->laddr, &tp->conn->faddr,
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
	rdsd_ib_send_cong(tp);
	rdsd_ib_send_ctl(tp);
	rdsd_ib_tail_check(tp);
	kick = tp->tx_blocked;
	tp->tx_blocked = false;
	spin_unlock_bh(&tp->send_lock);

	if (kick)
		rdsd_conn_kick(tp->conn);
}

static u32 rdsd_ib_recv_index(struct rdsd_ib_conn *tp, struct rdsd_ib_recv *r)
{
	return r - tp->recvs;
}

static int rdsd_ib_recv_post(struct rdsd_ib_conn *tp, struct rdsd_ib_recv *r)
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

	for (i = 0; i < RDSD_IB_RECV_RING; i++) {
		ret = rdsd_ib_recv_post(tp, &tp->recvs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static void rdsd_ib_rx_reset(struct rdsd_ib_conn *tp)
{
	if (tp->rx_msg)
		rdsd_msg_put(tp->rx_msg);
	tp->rx_msg = NULL;
	tp->rx_active = false;
	tp->rx_skip = false;
}

/* A DATA fragment arrived: reassemble, deliver the last one. */
static int rdsd_ib_recv_data(struct rdsd_ib_conn *tp, const void *payload,
			     const struct rdsd_wire_info *info)
{
	struct rdsd_conn *conn = tp->conn;
	struct rdsd_msg *msg;
	int ret;

	ret = rdsd_ib_frag_check(tp->rx_active, tp->rx_seq, tp->rx_len,
				 tp->rx_off, info);
	if (ret)
		return ret;

	if (!tp->rx_active) {
		tp->rx_active = true;
		tp->rx_seq = info->seq;
		tp->rx_len = info->len;
		tp->rx_off = 0;
		/* sent again after a reset, delivered before: skip it */
		tp->rx_skip = info->seq < READ_ONCE(conn->next_rx_seq);
		if (!tp->rx_skip) {
			msg = rdsd_msg_alloc(info->len, GFP_ATOMIC);
			if (!msg)
				return -ENOMEM;
			msg->seq = info->seq;
			msg->saddr = conn->faddr;
			msg->daddr = conn->laddr;
			msg->sport = info->sport;
			msg->dport = info->dport;
			msg->rdma_dest = info->rdma_cookie;
			tp->rx_msg = msg;
		}
	}

	if (tp->rx_msg && info->frag_len)
		sg_pcopy_from_buffer(tp->rx_msg->sg, tp->rx_msg->nents, payload,
				     info->frag_len, info->frag_off);
	tp->rx_off += info->frag_len;

	if (info->flags & RDSD_WIRE_F_LAST_FRAG) {
		/* the operation that rode on the message is done */
		if (info->flags & RDSD_WIRE_F_RDMA_USED) {
			const struct rdsd_mr_peer peer = {
				.saddr = conn->faddr, .sport = info->sport,
				.daddr = conn->laddr, .dport = info->dport,
			};

			rdsd_mr_use_key(conn->rn, info->rdma_key, &peer);
		}
		if (tp->rx_msg && (info->flags & RDSD_WIRE_F_SILENT))
			set_bit(RDSD_MSG_SILENT, &tp->rx_msg->flags);
		/*
		 * Not on a connection the reaper took: no ack would cover
		 * it, the peer sends it again to the successor (conn.c).
		 */
		if (tp->rx_msg && !test_bit(RDSD_CONN_DEAD, &conn->flags))
			rdsd_recv_incoming(conn, tp->rx_msg);
		else
			rdsd_stat_inc(conn->rn, recv_drop_old_seq);
		rdsd_ib_rx_reset(tp);
	}
	return 0;
}

/**
 * struct rdsd_ib_rx_sum - what one receive buffer said
 * @credits: credits returned.
 * @ack: highest acknowledgment, valid with @ack_valid.
 * @ack_valid: an acknowledgment came.
 * @ack_req: the peer asked for an ack.
 * @delivered: whole messages received.
 * @mr: an MR_REQ, MR_ANS or MR_REVOKE that came, or type 0.
 */
struct rdsd_ib_rx_sum {
	u32			credits;
	u64			ack;
	bool			ack_valid;
	bool			ack_req;
	u32			delivered;
	struct rdsd_wire_info	mr;
};

/* Process one message of a receive buffer. */
static int rdsd_ib_recv_one(struct rdsd_ib_conn *tp, const void *payload,
			    bool first, const struct rdsd_wire_info *info,
			    struct rdsd_ib_rx_sum *sum)
{
	struct rdsd_conn *conn = tp->conn;
	int ret = 0;

	switch (info->type) {
	case RDSD_WIRE_DATA:
		ret = rdsd_ib_recv_data(tp, payload, info);
		if (info->flags & RDSD_WIRE_F_LAST_FRAG)
			sum->delivered++;
		break;
	case RDSD_WIRE_CONG:
		if (!first)
			return -EPROTO;
		if (!tp->peer_local) {
			u64 changed = rdsd_ib_cong_unpack(conn->fcong->bits,
							  payload);

			if (changed)
				rdsd_cong_map_updated(conn->rn, conn->fcong,
						      changed);
		}
		break;
	case RDSD_WIRE_MR_REQ:
	case RDSD_WIRE_MR_ANS:
	case RDSD_WIRE_MR_REVOKE:
		if (!first)
			return -EPROTO;
		sum->mr = *info;
		break;
	default:
		/* ACK; PING and PONG are not used on this path */
		if (!first)
			return -EPROTO;
		break;
	}
	sum->credits += info->credits;
	/*
	 * A correct peer's acks only grow, so the highest is the last; take
	 * the highest, so that rdsd_send_acked() checks every ack received.
	 */
	if (info->flags & RDSD_WIRE_F_ACK_VALID) {
		sum->ack = sum->ack_valid ? max(sum->ack, info->ack) :
			   info->ack;
		sum->ack_valid = true;
	}
	if (info->flags & RDSD_WIRE_F_ACK_REQ)
		sum->ack_req = true;
	return ret;
}

/*
 * Walk the messages of receive buffer @r: the first header is in the
 * header slot, the rest of the SEND (payload, then header and payload
 * of every message packed behind it) in the buffer.
 */
static int rdsd_ib_recv_parse(struct rdsd_ib_conn *tp, struct rdsd_ib_recv *r,
			      u32 byte_len, struct rdsd_ib_rx_sum *sum)
{
	u32 off = rdsd_ib_recv_index(tp, r) * RDSD_IB_HDR_STRIDE;
	const struct rdsd_wire_hdr *hdr = tp->recv_hdrs + off;
	struct rdsd_wire_info info;
	struct rdsd_wire_hdr next;
	u32 pos = 0, left, flen;
	bool more;
	int ret;

	if (byte_len < sizeof(*hdr))
		return -EBADMSG;
	left = byte_len - sizeof(*hdr);
	for (;;) {
		flen = be32_to_cpu(hdr->frag_len);
		more = be16_to_cpu(hdr->flags) & RDSD_WIRE_F_MORE;
		if (flen > left)
			return -EBADMSG;
		ret = rdsd_wire_validate(hdr, sizeof(*hdr) + (more ? flen : left),
					 &info);
		if (ret)
			return ret;
		ret = rdsd_ib_recv_one(tp, r->buf + pos, !pos, &info, sum);
		if (ret)
			return ret;
		pos += flen;
		left -= flen;
		if (!more)
			return 0;
		if (left < sizeof(next))
			return -EBADMSG;
		memcpy(&next, r->buf + pos, sizeof(next));
		hdr = &next;
		pos += sizeof(next);
		left -= sizeof(next);
	}
}

/* A receive completed: process it, repost the buffer, answer if due. */
static void rdsd_ib_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdsd_ib_recv *r = container_of(wc->wr_cqe, struct rdsd_ib_recv,
					      cqe);
	struct rdsd_ib_conn *tp = r->tp;
	struct rdsd_conn *conn = tp->conn;
	struct ib_device *ibdev = tp->dev->ibdev;
	u32 off = rdsd_ib_recv_index(tp, r) * RDSD_IB_HDR_STRIDE;
	struct rdsd_ib_rx_sum sum = {};
	bool kick = false, now;
	int ret;

	r->posted = false;
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR ||
		    READ_ONCE(tp->tx_ready)) {
			pr_info_ratelimited("%pI4->%pI4: receive failed: %s\n",
					    &conn->laddr, &conn->faddr,
					    ib_wc_status_msg(wc->status));
			/*
			 * Not flushed: the peer's SEND did not fit the
			 * buffer, or broke the queue pair's rules.
			 */
			if (wc->status != IB_WC_WR_FLUSH_ERR)
				rdsd_stat_inc(conn->rn, recv_proto_error);
			rdsd_ib_request_reset(tp, RDSD_RESET_RECV_ERROR);
		}
		/* as for a failed send */
		spin_lock_bh(&tp->send_lock);
		tp->tx_ready = false;
		spin_unlock_bh(&tp->send_lock);
		return;
	}

	ib_dma_sync_single_for_cpu(ibdev, tp->recv_hdrs_dma + off,
				   sizeof(struct rdsd_wire_hdr),
				   DMA_FROM_DEVICE);
	ib_dma_sync_single_for_cpu(ibdev, r->dma, RDSD_IB_FRAG_SIZE,
				   DMA_FROM_DEVICE);
	ret = rdsd_ib_recv_parse(tp, r, wc->byte_len, &sum);
	if (unlikely(ret)) {
		/* -ENOMEM is ours, the rest the peer's */
		if (ret == -EPROTO || ret == -EBADMSG) {
			rdsd_stat_inc(conn->rn, recv_proto_error);
			WRITE_ONCE(conn->last_error, ret);
		}
		pr_info_ratelimited("%pI4->%pI4: bad message (%d), reconnecting\n",
				    &conn->laddr, &conn->faddr, ret);
		rdsd_ib_request_reset(tp, RDSD_RESET_PROTOCOL);
		return;
	}

	if (unlikely(sum.mr.type) && rdsd_ib_mr_recv(tp, &sum.mr, &kick)) {
		rdsd_stat_inc(conn->rn, recv_proto_error);
		WRITE_ONCE(conn->last_error, -EPROTO);
		pr_info_ratelimited("%pI4->%pI4: unexpected region message (type %u), reconnecting\n",
				    &conn->laddr, &conn->faddr, sum.mr.type);
		rdsd_ib_request_reset(tp, RDSD_RESET_PROTOCOL);
		return;
	}

	/* an ack of what was never sent: counted there, reset as above */
	if (sum.ack_valid && unlikely(rdsd_send_acked(conn, sum.ack))) {
		WRITE_ONCE(conn->last_error, -EPROTO);
		pr_info_ratelimited("%pI4->%pI4: ack %llu of a message never sent, reconnecting\n",
				    &conn->laddr, &conn->faddr, sum.ack);
		rdsd_ib_request_reset(tp, RDSD_RESET_PROTOCOL);
		return;
	}

	ret = rdsd_ib_recv_post(tp, r);

	spin_lock_bh(&tp->send_lock);
	if (tp->tx_wait_hello) {
		tp->tx_wait_hello = false;
		tp->tx_ready = true;
		tp->cong_pending = !tp->peer_local;
		kick = true;
	}
	rdsd_ib_credits_add(&tp->credits, sum.credits);
	if (!ret)
		tp->credits.adv++;
	tp->rx_unacked += sum.delivered;
	now = sum.ack_req ||
	      tp->rx_unacked >= RDSD_IB_ACK_EVERY ||
	      tp->credits.adv >= RDSD_IB_RECV_RING / 4;
	if (now && (tp->rx_unacked || tp->credits.adv))
		rdsd_ib_post_ctl(tp, RDSD_WIRE_ACK);
	if (tp->rx_unacked && tp->tx_ready)
		queue_delayed_work(rdsd_wq, &tp->ack_work, 1);
	rdsd_ib_send_cong(tp);
	rdsd_ib_send_ctl(tp);
	if (sum.credits && tp->tx_ready &&
	    tp->op_wait_head != tp->op_wait_tail) {
		rdsd_ib_op_wait_drain(tp);
		if (!tp->sig_inflight)
			rdsd_ib_pack_flush(tp);
	}
	if (sum.credits && tp->tx_blocked) {
		tp->tx_blocked = false;
		kick = true;
	}
	if (kick && tp->rx_unacked)
		rdsd_ib_post_ctl(tp, RDSD_WIRE_ACK);
	/* the ACK a stuck tail waits for may have lacked a credit */
	if (sum.credits)
		rdsd_ib_tail_check(tp);
	spin_unlock_bh(&tp->send_lock);

	if (unlikely(ret)) {
		pr_info_ratelimited("%pI4->%pI4: post receive failed: %d\n",
				    &conn->laddr, &conn->faddr, ret);
		rdsd_ib_request_reset(tp, RDSD_RESET_POST);
	}
	if (kick)
		rdsd_conn_kick(conn);
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
	kick = tp->tx_blocked && tp->tx_ready;
	spin_unlock_bh(&tp->send_lock);
	if (kick)
		rdsd_conn_kick(tp->conn);
}

/**
 * rdsd_ib_tx_start - our request was accepted: let sends go
 * @tp: connection.
 * @credits: receive buffers the peer posted.
 *
 * The first message (an ack, if nothing else is queued) tells the peer we
 * are ready to receive.
 */
void rdsd_ib_tx_start(struct rdsd_ib_conn *tp, u32 credits)
{
	spin_lock_bh(&tp->send_lock);
	rdsd_ib_ctl_reset(tp);
	tp->credits.max = credits;
	rdsd_ib_credits_add(&tp->credits, credits);
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
 * @credits: receive buffers the peer posted.
 *
 * Sends start with the peer's first message: only then is it sure to
 * have learnt who we are (see rdsd_ib_peer_learn()).
 */
void rdsd_ib_tx_arm(struct rdsd_ib_conn *tp, u32 credits)
{
	spin_lock_bh(&tp->send_lock);
	rdsd_ib_ctl_reset(tp);
	tp->credits.max = credits;
	rdsd_ib_credits_add(&tp->credits, credits);
	tp->tx_wait_hello = true;
	spin_unlock_bh(&tp->send_lock);
}

/**
 * rdsd_ib_tx_stop - no more sends on this queue pair
 * @tp: connection.
 */
void rdsd_ib_tx_stop(struct rdsd_ib_conn *tp)
{
	spin_lock_bh(&tp->send_lock);
	tp->tx_ready = false;
	tp->tx_wait_hello = false;
	if (tp->sends)
		rdsd_ib_pack_drop(tp);
	spin_unlock_bh(&tp->send_lock);
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
 * Process context.  On failure what was allocated is left for
 * rdsd_ib_rings_free().
 */
int rdsd_ib_rings_alloc(struct rdsd_ib_conn *tp)
{
	struct ib_device *ibdev = tp->dev->ibdev;
	u32 i;
	int ret;

	tp->sends = kcalloc(RDSD_IB_SEND_RING, sizeof(*tp->sends), GFP_KERNEL);
	tp->send_hdrs = kcalloc(RDSD_IB_SEND_RING, RDSD_IB_HDR_STRIDE,
				GFP_KERNEL);
	tp->cong_buf = kzalloc(RDSD_IB_CONG_BYTES, GFP_KERNEL);
	tp->recvs = kcalloc(RDSD_IB_RECV_RING, sizeof(*tp->recvs), GFP_KERNEL);
	tp->recv_hdrs = kcalloc(RDSD_IB_RECV_RING, RDSD_IB_HDR_STRIDE,
				GFP_KERNEL);
	if (!tp->sends || !tp->send_hdrs || !tp->cong_buf || !tp->recvs ||
	    !tp->recv_hdrs)
		return -ENOMEM;

	ret = rdsd_ib_map(ibdev, tp->send_hdrs,
			  RDSD_IB_SEND_RING * RDSD_IB_HDR_STRIDE,
			  DMA_TO_DEVICE, &tp->send_hdrs_dma);
	if (ret)
		return ret;
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
	for (i = 0; i < RDSD_IB_PACKS; i++) {
		tp->pack_buf[i] = kmalloc(RDSD_IB_FRAG_SIZE, GFP_KERNEL);
		if (!tp->pack_buf[i])
			return -ENOMEM;
		ret = rdsd_ib_map(ibdev, tp->pack_buf[i], RDSD_IB_FRAG_SIZE,
				  DMA_TO_DEVICE, &tp->pack_dma[i]);
		if (ret)
			return ret;
	}
	for (i = 0; i < RDSD_IB_RECV_RING; i++) {
		struct rdsd_ib_recv *r = &tp->recvs[i];

		r->tp = tp;
		r->cqe.done = rdsd_ib_recv_done;
		r->buf = kmalloc(RDSD_IB_FRAG_SIZE, GFP_KERNEL);
		if (!r->buf)
			return -ENOMEM;
		ret = rdsd_ib_map(ibdev, r->buf, RDSD_IB_FRAG_SIZE,
				  DMA_FROM_DEVICE, &r->dma);
		if (ret)
			return ret;
	}
	spin_lock_bh(&tp->send_lock);
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
	tp->op_wait_head = 0;
	tp->op_wait_tail = 0;
	tp->tx_since_req = 0;
	tp->rx_unacked = 0;
	tp->tx_blocked = false;
	tp->cong_busy = false;
	tp->cong_pending = false;
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
		spin_unlock_bh(&tp->send_lock);
	}
	if (tp->recvs) {
		for (i = 0; i < RDSD_IB_RECV_RING; i++) {
			struct rdsd_ib_recv *r = &tp->recvs[i];

			WARN_ON_ONCE(r->posted);
			rdsd_ib_unmap(ibdev, &r->dma, RDSD_IB_FRAG_SIZE,
				      DMA_FROM_DEVICE);
			kfree(r->buf);
		}
	}
	for (i = 0; i < RDSD_IB_PACKS; i++) {
		rdsd_ib_unmap(ibdev, &tp->pack_dma[i], RDSD_IB_FRAG_SIZE,
			      DMA_TO_DEVICE);
		kfree(tp->pack_buf[i]);
		tp->pack_buf[i] = NULL;
	}
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
