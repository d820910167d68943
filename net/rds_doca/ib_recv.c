// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca IB transport: receiving.
 *
 * Completions are polled in softirq.  A receive buffer holds one SEND: a
 * fragment of a message, or a pack of small messages each behind its own
 * header.  Every header is checked before anything in it is used;
 * fragments are reassembled in order, and the last one delivers the
 * message.  An acknowledgment of a message never sent is a protocol
 * violation, as a malformed header is: the connection is reset.  The
 * buffer is then posted again, and the send side takes the credits and
 * acknowledgments it carried (rdsd_ib_tx_after_rx()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
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

void rdsd_ib_rx_reset(struct rdsd_ib_conn *tp)
{
	if (tp->rx_msg)
		rdsd_msg_put(tp->rx_msg);
	tp->rx_msg = NULL;
	if (tp->rx_rs)
		rdsd_recv_unreserve(tp->rx_rs, tp->rx_len);
	tp->rx_rs = NULL;
	tp->rx_active = false;
	tp->rx_skip = false;
}

/*
 * The first fragment of a message: make the message to reassemble it in,
 * or decide to skip it.  A message of up to RDSD_MAX_MSG_SIZE bytes gets
 * its pages at once, as the credits a peer holds bound what it can send;
 * a larger one only for a socket that has room for it (rdsd_recv_reserve())
 * and page by page as fragments arrive.
 */
static int rdsd_ib_rx_begin(struct rdsd_ib_conn *tp,
			    const struct rdsd_wire_info *info)
{
	struct rdsd_conn *conn = tp->conn;
	struct rdsd_msg *msg;

	tp->rx_active = true;
	tp->rx_seq = info->seq;
	tp->rx_len = info->len;
	tp->rx_off = 0;
	/* sent again after a reset, delivered before: skip it */
	tp->rx_skip = info->seq < READ_ONCE(conn->next_rx_seq);
	if (tp->rx_skip)
		return 0;
	if (info->len <= RDSD_MAX_MSG_SIZE) {
		msg = rdsd_msg_alloc(info->len, GFP_ATOMIC);
	} else {
		tp->rx_rs = rdsd_recv_reserve(conn, info->dport, info->len);
		if (!tp->rx_rs) {
			tp->rx_skip = true;
			return 0;
		}
		msg = rdsd_msg_alloc_grow(info->len, GFP_ATOMIC, &tp->rx_fill);
	}
	if (!msg)
		return -ENOMEM;
	rdsd_recv_msg_init(msg, conn, info);
	tp->rx_msg = msg;
	return 0;
}

/* The last fragment arrived: deliver the message, or let it go. */
static void rdsd_ib_rx_end(struct rdsd_ib_conn *tp,
			   const struct rdsd_wire_info *info)
{
	struct rdsd_conn *conn = tp->conn;

	rdsd_recv_rdma_used(conn, info);
	if (tp->rx_rs) {
		/* delivery counts it in the receive buffer again */
		rdsd_recv_unreserve(tp->rx_rs, tp->rx_len);
		tp->rx_rs = NULL;
	}
	/*
	 * Not on a connection the reaper took: no ack would cover it, the
	 * peer sends it again to the successor (conn.c).
	 */
	if (test_bit(RDSD_CONN_DEAD, &conn->flags)) {
		rdsd_stat_inc(conn->rn, recv_drop_old_seq);
	} else if (tp->rx_msg) {
		if (info->flags & RDSD_WIRE_F_SILENT)
			set_bit(RDSD_MSG_SILENT, &tp->rx_msg->flags);
		rdsd_recv_incoming(conn, tp->rx_msg);
	} else {
		rdsd_recv_skipped(conn, tp->rx_seq);
	}
	rdsd_ib_rx_reset(tp);
}

/* A DATA fragment arrived: reassemble, deliver the last one. */
static int rdsd_ib_recv_data(struct rdsd_ib_conn *tp, const void *payload,
			     const struct rdsd_wire_info *info)
{
	struct rdsd_msg *msg;
	int ret;

	ret = rdsd_ib_frag_check(tp->rx_active, tp->rx_seq, tp->rx_len,
				 tp->rx_off, info);
	if (ret)
		return ret;

	if (!tp->rx_active) {
		ret = rdsd_ib_rx_begin(tp, info);
		if (ret)
			return ret;
	}

	msg = tp->rx_msg;
	if (msg && info->frag_len) {
		if (tp->rx_rs) {
			ret = rdsd_msg_fill(msg, &tp->rx_fill, payload,
					    info->frag_len, GFP_ATOMIC);
			if (ret)
				return ret;
		} else {
			sg_pcopy_from_buffer(msg->sg, msg->nents, payload,
					     info->frag_len, info->frag_off);
		}
	}
	tp->rx_off += info->frag_len;

	if (info->flags & RDSD_WIRE_F_LAST_FRAG)
		rdsd_ib_rx_end(tp, info);
	return 0;
}

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
			u64 changed = rdsd_cong_unpack(conn->fcong->bits,
						       payload);

			if (changed)
				rdsd_cong_map_updated(conn->rn, conn->fcong,
						      changed);
		}
		break;
	case RDSD_WIRE_MR_REQ:
	case RDSD_WIRE_MR_ANS:
	case RDSD_WIRE_MR_REVOKE:
	case RDSD_WIRE_MR_GRANT:
		if (!first)
			return -EPROTO;
		sum->mr = *info;
		break;
	case RDSD_WIRE_RDMA_REQ:
	case RDSD_WIRE_RDMA_RESP:
		/* the TCP transport's: over IB the device runs operations */
		return -EPROTO;
	default:
		/* ACK; PING and PONG are not used on this path */
		if (!first)
			return -EPROTO;
		break;
	}
	sum->credits += info->credits;
	sum->bufs = info->bufs;
	if (info->flags & RDSD_WIRE_F_MORE_BUFS)
		sum->more_bufs = true;
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
void rdsd_ib_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdsd_ib_recv *r = container_of(wc->wr_cqe, struct rdsd_ib_recv,
					      cqe);
	struct rdsd_ib_conn *tp = r->tp;
	struct rdsd_conn *conn = tp->conn;
	struct ib_device *ibdev = tp->dev->ibdev;
	u32 off = rdsd_ib_recv_index(tp, r) * RDSD_IB_HDR_STRIDE;
	struct rdsd_ib_rx_sum sum = {};
	bool kick = false;
	int ret;

	r->posted = false;
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR ||
		    READ_ONCE(tp->tx_ready)) {
			pr_info_ratelimited("%s: receive failed: %s\n",
					    conn->name,
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
		pr_info_ratelimited("%s: bad message (%d), reconnecting\n",
				    conn->name, ret);
		rdsd_ib_request_reset(tp, RDSD_RESET_PROTOCOL);
		return;
	}

	if (unlikely(sum.mr.type) && rdsd_ib_mr_recv(tp, &sum.mr, &kick)) {
		rdsd_stat_inc(conn->rn, recv_proto_error);
		WRITE_ONCE(conn->last_error, -EPROTO);
		pr_info_ratelimited("%s: unexpected region message (type %u), reconnecting\n",
				    conn->name, sum.mr.type);
		rdsd_ib_request_reset(tp, RDSD_RESET_PROTOCOL);
		return;
	}

	/* an ack of what was never sent: counted there, reset as above */
	if (sum.ack_valid && unlikely(rdsd_send_acked(conn, sum.ack))) {
		WRITE_ONCE(conn->last_error, -EPROTO);
		pr_info_ratelimited("%s: ack %llu of a message never sent, reconnecting\n",
				    conn->name, sum.ack);
		rdsd_ib_request_reset(tp, RDSD_RESET_PROTOCOL);
		return;
	}

	kick = rdsd_ib_tx_after_rx(tp, &sum, r, kick);
	if (unlikely(sum.more_bufs))
		rdsd_ib_grow(tp, RDSD_IB_GROW_RECV);
	if (kick)
		rdsd_conn_kick(conn);
}
