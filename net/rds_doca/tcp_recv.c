// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca TCP transport: receiving.
 *
 * The socket's data-ready callback reads what arrived in softirq
 * (tcp_read_sock()), as a stream: the peer's hello if we connected, then
 * frames, each header collected whole and checked (rdsd_wire_validate()
 * and the TCP rules below) before anything in it is used.  A DATA frame
 * carries a whole message, copied from the socket's buffers straight
 * into the message's pages; the last byte delivers it.  Every header's
 * acknowledgment is taken at once.  A frame that breaks the rules resets
 * the connection; the peer then sends again what it did not hear
 * acknowledged.
 *
 * Memory: a message is allocated when its header arrives, at most
 * RDSD_MAX_MSG_SIZE (the hello announced it) and one at a time per
 * connection; delivered messages count against their socket's receive
 * buffer as on every transport.  When an allocation fails in softirq,
 * the bytes stay in the socket (TCP's window closes on the peer) and
 * rdsd_tcp_rx_worker() tries again where it may sleep.
 *
 * Readers are serialized by the socket's lock: softirq holds it for the
 * callback, the worker with lock_sock().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <kunit/visibility.h>

#include "tcp.h"
#include "cong.h"
#include "conn.h"
#include "recv.h"
#include "send.h"
#include "stats.h"

/* One read of the socket: what it found, for after tcp_read_sock(). */
struct rdsd_tcp_rx_ctx {
	struct rdsd_tcp_conn	*tp;
	gfp_t			gfp;
	int			err;
	bool			nomem;
	u32			delivered;
	bool			ack_req;
};

/**
 * rdsd_tcp_frame_check - may a checked header come over TCP?
 * @info: the header, as rdsd_wire_validate() accepted it.
 *
 * A DATA frame holds a whole message (rdsd_wire_validate() bounds its
 * length); operations come as RDMA_REQ and RDMA_RESP frames, never as
 * the IB transport's region messages.  Returns 0 or -EPROTO.
 */
int rdsd_tcp_frame_check(const struct rdsd_wire_info *info)
{
	switch (info->type) {
	case RDSD_WIRE_DATA:
		if (info->frag_off || info->frag_len != info->len ||
		    (info->flags & RDSD_WIRE_F_MORE))
			return -EPROTO;
		return 0;
	case RDSD_WIRE_ACK:
	case RDSD_WIRE_CONG:
	case RDSD_WIRE_PING:
	case RDSD_WIRE_PONG:
	case RDSD_WIRE_RDMA_REQ:
	case RDSD_WIRE_RDMA_RESP:
		return 0;
	default:
		return -EPROTO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_tcp_frame_check);

/**
 * rdsd_tcp_rx_reset - drop what was half received
 * @tp: connection whose socket is gone or going.
 */
void rdsd_tcp_rx_reset(struct rdsd_tcp_conn *tp)
{
	if (tp->rx_msg)
		rdsd_msg_put(tp->rx_msg);
	WRITE_ONCE(tp->rx_msg, NULL);
	if (tp->rx_rs)
		rdsd_recv_unreserve(tp->rx_rs, tp->rx_info.len);
	tp->rx_rs = NULL;
	WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_DEAD);
	tp->rx_have = 0;
	tp->rx_unacked = 0;
}

/**
 * rdsd_tcp_copy_to_sg - copy bytes of the stream into pages
 * @sg: the pages' entries.
 * @nents: how many.
 * @to: byte of @sg where the copy starts.
 * @skb: where the bytes are.
 * @off: at what offset.
 * @n: how many.
 *
 * Any context.  Returns 0 or -EFAULT.
 */
int rdsd_tcp_copy_to_sg(struct scatterlist *sg, unsigned int nents, u32 to,
			const struct sk_buff *skb, unsigned int off, u32 n)
{
	struct sg_mapping_iter miter;
	int ret = 0;

	sg_miter_start(&miter, sg, nents, SG_MITER_TO_SG | SG_MITER_ATOMIC);
	if (!sg_miter_skip(&miter, to))
		ret = -EFAULT;
	while (!ret && n && sg_miter_next(&miter)) {
		u32 c = min_t(size_t, miter.length, n);

		ret = skb_copy_bits(skb, off, miter.addr, c);
		miter.consumed = c;
		off += c;
		n -= c;
	}
	sg_miter_stop(&miter);
	return ret ? ret : (n ? -EFAULT : 0);
}

/* The whole message arrived, or the skipped one passed: deliver. */
static void rdsd_tcp_rx_end(struct rdsd_tcp_rx_ctx *ctx)
{
	struct rdsd_tcp_conn *tp = ctx->tp;
	struct rdsd_conn *conn = tp->conn;
	const struct rdsd_wire_info *info = &tp->rx_info;

	rdsd_recv_rdma_used(conn, info);
	if (tp->rx_rs) {
		/* delivery counts it in the receive buffer again */
		rdsd_recv_unreserve(tp->rx_rs, tp->rx_info.len);
		tp->rx_rs = NULL;
	}
	/*
	 * Not on a connection the reaper took: no ack would cover it, the
	 * peer sends it again to the successor (conn.c).
	 */
	if (test_bit(RDSD_CONN_DEAD, &conn->flags)) {
		rdsd_stat_inc(conn->rn, recv_drop_old_seq);
	} else if (tp->rx_msg) {
		/* it only says its RDS_RDMA_SILENT operation ran */
		if (info->flags & RDSD_WIRE_F_SILENT)
			set_bit(RDSD_MSG_SILENT, &tp->rx_msg->flags);
		rdsd_recv_incoming(conn, tp->rx_msg);
	} else {
		rdsd_recv_skipped(conn, info->seq);
	}
	if (tp->rx_msg)
		rdsd_msg_put(tp->rx_msg);
	WRITE_ONCE(tp->rx_msg, NULL);
	ctx->delivered++;
	tp->rx_unacked++;
	WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_HDR);
}

/*
 * A DATA header: make the message to fill, or decide to skip it.  A
 * message of up to RDSD_MAX_MSG_SIZE bytes gets its pages at once; a
 * larger one only for a socket that has room for it (rdsd_recv_reserve())
 * and block by block as its bytes arrive.
 */
static int rdsd_tcp_rx_data(struct rdsd_tcp_rx_ctx *ctx)
{
	struct rdsd_tcp_conn *tp = ctx->tp;
	const struct rdsd_wire_info *info = &tp->rx_info;
	struct rdsd_conn *conn = tp->conn;
	struct rdsd_msg *msg;

	/* sent again after a reset, delivered before: skip it */
	if (info->seq < READ_ONCE(conn->next_rx_seq)) {
		WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_SKIP);
		return 0;
	}
	if (info->len <= RDSD_MAX_MSG_SIZE) {
		msg = rdsd_msg_alloc(info->len, ctx->gfp);
	} else {
		if (!tp->rx_rs)
			tp->rx_rs = rdsd_recv_reserve(conn, info->dport,
						      info->len);
		if (!tp->rx_rs) {
			WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_SKIP);
			return 0;
		}
		msg = rdsd_msg_alloc_grow(info->len, ctx->gfp, &tp->rx_fill);
	}
	if (!msg)
		return -ENOMEM;	/* a reservation stays for the next try */
	rdsd_recv_msg_init(msg, conn, info);
	WRITE_ONCE(tp->rx_msg, msg);
	WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_DATA);
	return 0;
}

/*
 * A frame's header is whole: check it, take its acknowledgment and
 * start on its payload.  Returns 0, -ENOMEM (the header stays, to be
 * tried again), -EPROTO / -EBADMSG for a peer that broke the rules, or
 * -ECONNABORTED for an ack of a message never sent (counted).
 */
static int rdsd_tcp_rx_frame(struct rdsd_tcp_rx_ctx *ctx)
{
	struct rdsd_tcp_conn *tp = ctx->tp;
	struct rdsd_conn *conn = tp->conn;
	const struct rdsd_wire_hdr *hdr = &tp->rx_raw.hdr;
	struct rdsd_wire_info *info = &tp->rx_info;
	int ret;

	ret = rdsd_wire_validate(hdr, sizeof(*hdr) +
				 (size_t)be32_to_cpu(hdr->frag_len), info);
	if (!ret)
		ret = rdsd_tcp_frame_check(info);
	if (ret)
		return ret;

	if (info->type == RDSD_WIRE_DATA) {
		ret = rdsd_tcp_rx_data(ctx);
		if (ret)
			return ret;
	} else if (info->type == RDSD_WIRE_CONG) {
		if (!tp->rx_map) {
			tp->rx_map = kmalloc(RDSD_NR_PORTS / 8, ctx->gfp);
			if (!tp->rx_map)
				return -ENOMEM;
		}
		WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_CONG);
	} else if (info->type == RDSD_WIRE_RDMA_REQ) {
		WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_REQ);
	} else if (info->type == RDSD_WIRE_RDMA_RESP) {
		WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_RESP);
	}
	tp->rx_off = 0;
	tp->rx_have = 0;

	/* a correct peer's acks only grow; each is checked */
	if ((info->flags & RDSD_WIRE_F_ACK_VALID) &&
	    rdsd_send_acked(conn, info->ack)) {
		pr_info_ratelimited("%s: ack %llu of a message never sent, reconnecting\n",
				    conn->name, info->ack);
		return -ECONNABORTED;	/* counted there */
	}
	if (info->flags & RDSD_WIRE_F_ACK_REQ)
		ctx->ack_req = true;
	/* an empty message ends with its header */
	if (info->type == RDSD_WIRE_DATA && !info->len)
		rdsd_tcp_rx_end(ctx);
	return 0;
}

/* Collect @want bytes into @buf; returns bytes taken from the skb. */
static size_t rdsd_tcp_collect(void *buf, u32 *have, u32 want,
			       const struct sk_buff *skb, unsigned int off,
			       size_t len)
{
	size_t n = min_t(size_t, len, want - *have);

	if (skb_copy_bits(skb, off, (u8 *)buf + *have, n))
		return 0;
	*have += n;
	return n;
}

/* Bytes of a frame's payload: into the message, the map, or nowhere. */
static int rdsd_tcp_rx_payload(struct rdsd_tcp_rx_ctx *ctx,
			       const struct sk_buff *skb, unsigned int off,
			       size_t len, size_t *used)
{
	struct rdsd_tcp_conn *tp = ctx->tp;
	struct rdsd_conn *conn = tp->conn;
	u32 n = min_t(size_t, len, tp->rx_info.frag_len - tp->rx_off);
	int ret = 0;

	switch (tp->rx_state) {
	case RDSD_TCP_RX_DATA:
		if (tp->rx_rs) {
			u32 before = tp->rx_fill.filled;

			/* blocks as the bytes come; what was copied counts */
			ret = rdsd_msg_fill_skb(tp->rx_msg, &tp->rx_fill, skb,
						off, n, ctx->gfp);
			if (ret == -ENOMEM) {
				*used = tp->rx_fill.filled - before;
				tp->rx_off += *used;
				return ret;
			}
		} else {
			ret = rdsd_tcp_copy_to_sg(tp->rx_msg->sg,
						  tp->rx_msg->nents, tp->rx_off,
						  skb, off, n);
		}
		break;
	case RDSD_TCP_RX_CONG:
		ret = skb_copy_bits(skb, off, (u8 *)tp->rx_map + tp->rx_off, n);
		break;
	case RDSD_TCP_RX_WDATA:
		ret = rdsd_tcp_rx_wdata(tp, skb, off, n);
		break;
	case RDSD_TCP_RX_RDATA:
		ret = rdsd_tcp_rx_rdata(tp, skb, off, n);
		break;
	default:
		break;
	}
	if (ret)
		return ret;
	*used = n;
	tp->rx_off += n;
	if (tp->rx_off < tp->rx_info.frag_len)
		return 0;

	switch (tp->rx_state) {
	case RDSD_TCP_RX_CONG:
		if (!tp->peer_local) {
			u64 changed = rdsd_cong_unpack(conn->fcong->bits,
						       tp->rx_map);

			if (changed)
				rdsd_cong_map_updated(conn->rn, conn->fcong,
						      changed);
		}
		WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_HDR);
		break;
	case RDSD_TCP_RX_WDATA:
		rdsd_tcp_rx_req_end(tp);
		break;
	case RDSD_TCP_RX_RDATA:
		rdsd_tcp_rx_resp_end(tp);
		break;
	default:
		rdsd_tcp_rx_end(ctx);
		break;
	}
	return 0;
}

/* tcp_read_sock()'s actor: take what the stream holds, in order. */
static int rdsd_tcp_recv_actor(read_descriptor_t *desc, struct sk_buff *skb,
			       unsigned int offset, size_t len)
{
	struct rdsd_tcp_rx_ctx *ctx = desc->arg.data;
	struct rdsd_tcp_conn *tp = ctx->tp;
	size_t done = 0, n;
	int ret = 0;

	/* stopped: tcp_read_sock() may still offer what is left of an skb */
	if (!desc->count)
		return 0;
	while (!ret && done < len) {
		n = 0;
		switch (tp->rx_state) {
		case RDSD_TCP_RX_HELLO:
			n = rdsd_tcp_collect(&tp->rx_raw.hello, &tp->rx_have,
					     sizeof(tp->rx_raw.hello), skb,
					     offset + done, len - done);
			if (tp->rx_have < sizeof(tp->rx_raw.hello))
				break;
			ret = rdsd_tcp_hello_check(&tp->rx_raw.hello);
			/* the answer is for the path and lane we asked */
			if (!ret && (tp->rx_raw.hello.path != tp->conn->path ||
				     tp->rx_raw.hello.tos != tp->conn->tos))
				ret = -EPROTO;
			if (ret)
				break;
			rdsd_tcp_hello_heard(tp, &tp->rx_raw.hello);
			tp->rx_have = 0;
			WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_HDR);
			break;
		case RDSD_TCP_RX_HDR:
			n = rdsd_tcp_collect(&tp->rx_raw.hdr, &tp->rx_have,
					     sizeof(tp->rx_raw.hdr), skb,
					     offset + done, len - done);
			if (tp->rx_have == sizeof(tp->rx_raw.hdr))
				ret = rdsd_tcp_rx_frame(ctx);
			break;
		case RDSD_TCP_RX_REQ:
			n = rdsd_tcp_collect(&tp->rx_raw.req, &tp->rx_have,
					     sizeof(tp->rx_raw.req), skb,
					     offset + done, len - done);
			if (tp->rx_have < sizeof(tp->rx_raw.req))
				break;
			tp->rx_off = sizeof(tp->rx_raw.req);
			ret = rdsd_tcp_rx_req(tp, ctx->gfp);
			break;
		case RDSD_TCP_RX_RESP:
			n = rdsd_tcp_collect(&tp->rx_raw.resp, &tp->rx_have,
					     sizeof(tp->rx_raw.resp), skb,
					     offset + done, len - done);
			if (tp->rx_have == sizeof(tp->rx_raw.resp))
				ret = rdsd_tcp_rx_resp(tp);
			break;
		case RDSD_TCP_RX_DATA:
		case RDSD_TCP_RX_SKIP:
		case RDSD_TCP_RX_CONG:
		case RDSD_TCP_RX_WDATA:
		case RDSD_TCP_RX_RDATA:
			ret = rdsd_tcp_rx_payload(ctx, skb, offset + done,
						  len - done, &n);
			break;
		default:
			ret = -EPIPE;
			break;
		}
		done += n;
		if (!n && !ret)
			ret = -EFAULT;	/* skb_copy_bits() failed */
	}
	/* the receive work takes over: it may sleep */
	if (ret == -ENOMEM || ret == -EINPROGRESS) {
		ctx->nomem = true;
		desc->count = 0;
	} else if (ret) {
		ctx->err = ret;
		WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_DEAD);
		desc->count = 0;
	}
	return done;
}

/**
 * rdsd_tcp_rx_read - take what the socket holds
 * @tp: the connection.
 * @sk: its socket, locked (softirq's lock or lock_sock()).
 * @gfp: how messages may be allocated.
 */
static void rdsd_tcp_rx_read(struct rdsd_tcp_conn *tp, struct sock *sk,
			     gfp_t gfp)
{
	struct rdsd_tcp_rx_ctx ctx = { .tp = tp, .gfp = gfp };
	read_descriptor_t desc = { .arg.data = &ctx, .count = 1 };
	struct rdsd_conn *conn = tp->conn;

	if (tp->rx_state == RDSD_TCP_RX_DEAD)
		return;
	/*
	 * A header left whole by a failed allocation goes first, and so
	 * does a request that waited for the receive work.
	 */
	if (tp->rx_state == RDSD_TCP_RX_HDR &&
	    tp->rx_have == sizeof(tp->rx_raw.hdr))
		ctx.err = rdsd_tcp_rx_frame(&ctx);
	else if (tp->rx_state == RDSD_TCP_RX_REQ &&
		 tp->rx_have == sizeof(tp->rx_raw.req))
		ctx.err = rdsd_tcp_rx_req(tp, gfp);
	if (ctx.err == -ENOMEM || ctx.err == -EINPROGRESS) {
		ctx.err = 0;
		ctx.nomem = true;
	}
	if (!ctx.err && !ctx.nomem)
		tcp_read_sock(sk, &desc, rdsd_tcp_recv_actor);

	if (unlikely(ctx.err)) {
		/* -EPIPE: broken before; -ECONNABORTED: counted already */
		if (ctx.err != -EPIPE) {
			if (ctx.err != -ECONNABORTED)
				rdsd_stat_inc(conn->rn, recv_proto_error);
			WRITE_ONCE(conn->last_error, ctx.err);
			pr_info_ratelimited("%s: bad frame (%d), reconnecting\n",
					    conn->name,
					    ctx.err);
		}
		rdsd_tcp_request_reset(tp, tp->gen);
		return;
	}
	if (ctx.nomem)
		queue_work(rdsd_wq, &tp->rx_work);
	if (ctx.ack_req || tp->rx_unacked >= RDSD_TCP_ACK_EVERY) {
		tp->rx_unacked = 0;
		mod_delayed_work(rdsd_wq, &tp->ack_work, 0);
	} else if (ctx.delivered) {
		queue_delayed_work(rdsd_wq, &tp->ack_work, 1);
	}
}

/**
 * rdsd_tcp_data_ready - the socket has bytes for us
 * @sk: a connection's socket.
 */
void rdsd_tcp_data_ready(struct sock *sk)
{
	struct rdsd_tcp_conn *tp;

	read_lock_bh(&sk->sk_callback_lock);
	tp = sk->sk_user_data;
	if (tp)
		rdsd_tcp_rx_read(tp, sk, GFP_ATOMIC);
	read_unlock_bh(&sk->sk_callback_lock);
}

/**
 * rdsd_tcp_rx_worker - read where memory may be waited for
 * @work: rdsd_tcp_conn.rx_work.
 *
 * Queued when an allocation failed in softirq, and for what an accepted
 * socket held before its callbacks were ours.  Cancelled by teardown
 * before the socket goes.
 */
void rdsd_tcp_rx_worker(struct work_struct *work)
{
	struct rdsd_tcp_conn *tp = container_of(work, struct rdsd_tcp_conn,
						rx_work);
	struct socket *sock = READ_ONCE(tp->sock);

	if (!sock)
		return;
	lock_sock(sock->sk);
	rdsd_tcp_rx_read(tp, sock->sk, GFP_KERNEL);
	release_sock(sock->sk);
}
