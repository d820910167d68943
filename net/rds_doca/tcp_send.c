// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca TCP transport: sending.
 *
 * A frame is a header (struct rdsd_wire_hdr) and its payload: a whole
 * message (DATA), the local congestion map (CONG) or nothing (ACK).  Our
 * hello comes before every frame.  Frames are written without waiting:
 * what the socket has no room for stays pending in the connection and
 * is written from rdsd_tcp_tx_worker() when the socket has room again
 * (rdsd_tcp_write_space()); nothing else is written before it, and the
 * core, refused with -EAGAIN meanwhile, is kicked afterwards.
 *
 * The payload is copied into the socket: a message's pages may be reused
 * once it is acknowledged (message.c keeps payload blocks), while TCP
 * could still hold pages lent to it for a retransmission.
 *
 * Acknowledgments ride on every DATA header (the highest sequence number
 * delivered).  An explicit ACK goes out when the peer asks, after
 * RDSD_TCP_ACK_EVERY messages, or from a short timer when nothing else
 * carried it (tcp_recv.c schedules rdsd_tcp_ack_worker()).
 *
 * Locking: tp->tx_mutex serializes every writer and guards tp->sock for
 * them.  ->xmit takes it too: it sleeps only on the mutex and the
 * socket's lock, never for room.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "tcp.h"
#include "cong.h"
#include "conn.h"
#include "send.h"
#include "stats.h"
#include "transport.h"

/*
 * Start a frame: @head (a header or our hello), then @lin (a map) or the
 * first @sg_len bytes of @sg (a message's payload).  tx_mutex held, no
 * frame pending.
 */
static void rdsd_tcp_frame(struct rdsd_tcp_conn *tp, const void *head,
			   u32 head_len, const void *lin, u32 lin_len,
			   struct scatterlist *sg, u32 sg_len)
{
	tp->tx_head = head;
	tp->tx_head_len = head_len;
	tp->tx_lin = lin;
	tp->tx_lin_len = lin_len;
	tp->tx_done = 0;
	tp->tx_sg = sg;
	tp->tx_sg_off = 0;
	tp->tx_sg_left = sg_len;
	tp->tx_left = head_len + lin_len + sg_len;
}

static void rdsd_tcp_bvec_lin(struct bio_vec *bv, const void *p, u32 len)
{
	bv->bv_page = virt_to_page(p);
	bv->bv_offset = offset_in_page(p);
	bv->bv_len = len;
}

/*
 * The next piece of the pending frame as at most RDSD_TCP_TX_BVECS
 * entries of tp->tx_bvec; returns how many, their bytes in *@count.
 */
static unsigned int rdsd_tcp_bvec_fill(struct rdsd_tcp_conn *tp,
				       size_t *count)
{
	u32 lin_total = tp->tx_head_len + tp->tx_lin_len;
	struct scatterlist *sg = tp->tx_sg;
	u32 off = tp->tx_sg_off, left = tp->tx_sg_left;
	unsigned int n = 0;

	*count = 0;
	if (tp->tx_done < tp->tx_head_len) {
		rdsd_tcp_bvec_lin(&tp->tx_bvec[n++],
				  tp->tx_head + tp->tx_done,
				  tp->tx_head_len - tp->tx_done);
		*count += tp->tx_head_len - tp->tx_done;
	}
	if (tp->tx_lin_len && tp->tx_done < lin_total) {
		u32 from = max(tp->tx_done, tp->tx_head_len) - tp->tx_head_len;

		rdsd_tcp_bvec_lin(&tp->tx_bvec[n++], tp->tx_lin + from,
				  tp->tx_lin_len - from);
		*count += tp->tx_lin_len - from;
	}
	while (sg && left && n < RDSD_TCP_TX_BVECS) {
		u32 len = min(sg->length - off, left);

		if (len) {
			tp->tx_bvec[n].bv_page = sg_page(sg);
			tp->tx_bvec[n].bv_offset = sg->offset + off;
			tp->tx_bvec[n].bv_len = len;
			n++;
			*count += len;
			left -= len;
		}
		sg = sg_next(sg);
		off = 0;
	}
	return n;
}

/* @n bytes of the pending frame went into the socket. */
static void rdsd_tcp_advance(struct rdsd_tcp_conn *tp, u32 n)
{
	u32 lin_total = tp->tx_head_len + tp->tx_lin_len;

	tp->tx_left -= n;
	if (tp->tx_done < lin_total) {
		u32 take = min(n, lin_total - tp->tx_done);

		tp->tx_done += take;
		n -= take;
	}
	while (n && tp->tx_sg) {
		u32 take = min3(n, tp->tx_sg->length - tp->tx_sg_off,
				tp->tx_sg_left);

		tp->tx_sg_off += take;
		tp->tx_sg_left -= take;
		n -= take;
		if (tp->tx_sg_off == tp->tx_sg->length) {
			tp->tx_sg = sg_next(tp->tx_sg);
			tp->tx_sg_off = 0;
		}
	}
}

/* What the frame just written held is let go. */
static void rdsd_tcp_frame_done(struct rdsd_tcp_conn *tp)
{
	if (tp->tx_msg) {
		rdsd_msg_put(tp->tx_msg);
		tp->tx_msg = NULL;
	}
	if (tp->tx_op) {
		rdsd_op_put(tp->tx_op);
		tp->tx_op = NULL;
	}
	if (tp->tx_resp) {
		rdsd_tcp_resp_free(tp, tp->tx_resp);
		tp->tx_resp = NULL;
	}
}

static void rdsd_tcp_data_frame(struct rdsd_tcp_conn *tp, struct rdsd_msg *msg,
				bool post_op);

/*
 * Write what is left of the pending frame.  Returns 0 when it is all
 * written, -EAGAIN when the socket has no room (the write-space callback
 * comes back), or another negative errno when the socket failed: a reset
 * is asked for.  tx_mutex held.
 */
static int rdsd_tcp_push(struct rdsd_tcp_conn *tp)
{
	struct msghdr m = {};
	unsigned int n;
	size_t count;
	int ret;

	for (;;) {
		while (tp->tx_left) {
			n = rdsd_tcp_bvec_fill(tp, &count);
			m.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
			if (count < tp->tx_left || tp->tx_more || tp->tx_next)
				m.msg_flags |= MSG_MORE;
			iov_iter_bvec(&m.msg_iter, ITER_SOURCE, tp->tx_bvec, n,
				      count);
			ret = sock_sendmsg(tp->sock, &m);
			if (ret == -EAGAIN)
				return ret;
			if (ret <= 0) {
				ret = ret ? ret : -EPIPE;
				WRITE_ONCE(tp->conn->last_error, ret);
				rdsd_tcp_request_reset(tp, tp->gen);
				return ret;
			}
			rdsd_tcp_advance(tp, ret);
			WRITE_ONCE(tp->tx_held, m.msg_flags & MSG_MORE);
		}
		rdsd_tcp_frame_done(tp);
		if (!tp->tx_next)
			return 0;
		/* a request's message follows it */
		rdsd_tcp_data_frame(tp, tp->tx_next, true);
		tp->tx_next = NULL;	/* its reference is tx_msg's now */
	}
}

/* The ack every header carries: the highest sequence number delivered. */
static void rdsd_tcp_ack_fill(struct rdsd_tcp_conn *tp,
			      struct rdsd_wire_info *info)
{
	u64 next = READ_ONCE(tp->conn->next_rx_seq);

	if (!next)
		return;
	info->flags |= RDSD_WIRE_F_ACK_VALID;
	info->ack = next - 1;
	WRITE_ONCE(tp->tx_acked, info->ack);
	WRITE_ONCE(tp->tx_acked_valid, true);
}

/* The header of the next frame, from @info, with the ack. */
static void rdsd_tcp_frame_hdr(struct rdsd_tcp_conn *tp,
			       struct rdsd_wire_info *info)
{
	rdsd_tcp_ack_fill(tp, info);
	rdsd_wire_encode(&tp->tx_hdr, info);
}

/*
 * Start @msg's DATA frame; @msg's reference passes to the frame.  With
 * @post_op its operation's request went just before it.  tx_mutex held,
 * no frame pending.
 */
static void rdsd_tcp_data_frame(struct rdsd_tcp_conn *tp, struct rdsd_msg *msg,
				bool post_op)
{
	struct rdsd_wire_info info = {
		.type = RDSD_WIRE_DATA,
		.flags = RDSD_WIRE_F_LAST_FRAG,
		.seq = msg->seq,
		.len = msg->len,
		.frag_len = msg->len,
		.sport = msg->sport,
		.dport = msg->dport,
	};

	rdsd_msg_rdma_info(msg, post_op, &info);
	if (test_bit(RDSD_MSG_ACK_REQ, &msg->flags) ||
	    tp->tx_since_req + 1 >= RDSD_TCP_ACK_REQ_EVERY) {
		info.flags |= RDSD_WIRE_F_ACK_REQ;
		tp->tx_since_req = 0;
	} else {
		tp->tx_since_req++;
	}
	rdsd_tcp_frame_hdr(tp, &info);
	rdsd_tcp_frame(tp, &tp->tx_hdr, sizeof(tp->tx_hdr), NULL, 0,
		       msg->len ? msg->sg : NULL, msg->len);
	tp->tx_msg = msg;
}

/*
 * Start the RDMA_REQ frame of @msg's operation (tcp_rdma.c): the
 * descriptor, and a write's data straight from the asker's pages, which
 * the frame holds with a reference.  With @after, @msg waits for the
 * answer.  tx_mutex held, no frame pending, rdsd_tcp_op_room() said yes.
 */
static void rdsd_tcp_req_frame(struct rdsd_tcp_conn *tp, struct rdsd_msg *msg,
			       bool after)
{
	struct rdsd_op *op = msg->op;
	u32 data = op->kind == RDSD_OP_WRITE ? op->bytes : 0;
	struct rdsd_wire_info info = {
		.type = RDSD_WIRE_RDMA_REQ,
		.len = sizeof(tp->tx_desc.req) + data,
		.frag_len = sizeof(tp->tx_desc.req) + data,
		.sport = msg->sport,
		.dport = msg->dport,
	};

	rdsd_tcp_op_req(tp, op, &tp->tx_desc.req, after);
	rdsd_tcp_frame_hdr(tp, &info);
	rdsd_tcp_frame(tp, &tp->tx_hdr, sizeof(tp->tx_hdr), &tp->tx_desc.req,
		       sizeof(tp->tx_desc.req), data ? op->sg : NULL, data);
	kref_get(&op->refs);	/* the frame's, put when it is written */
	tp->tx_op = op;
}

/*
 * Write the answers to the peer's requests that are ready, in order: the
 * descriptor, then what a read staged.  tx_mutex held, no frame pending.
 */
static int rdsd_tcp_send_resps(struct rdsd_tcp_conn *tp)
{
	struct rdsd_wire_info info = { .type = RDSD_WIRE_RDMA_RESP };
	struct rdsd_tcp_resp *r;
	int ret;

	while (tp->tx_ready && (r = rdsd_tcp_resp_next(tp))) {
		info.flags = 0;
		info.ack = 0;
		info.len = sizeof(r->desc) + r->bytes;
		info.frag_len = info.len;
		tp->tx_desc.resp = r->desc;
		rdsd_tcp_frame_hdr(tp, &info);
		rdsd_tcp_frame(tp, &tp->tx_hdr, sizeof(tp->tx_hdr),
			       &tp->tx_desc.resp, sizeof(tp->tx_desc.resp),
			       r->bytes ? r->sg : NULL, r->bytes);
		tp->tx_resp = r;	/* freed when written */
		ret = rdsd_tcp_push(tp);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Make the socket ready for the next frame: our hello first, then what
 * is pending.  Returns 0 when a frame may start, else as rdsd_tcp_push().
 * tx_mutex held.
 */
static int rdsd_tcp_tx_clear(struct rdsd_tcp_conn *tp)
{
	int ret;

	if (!tp->sock)
		return -ENOTCONN;
	ret = rdsd_tcp_push(tp);
	if (ret)
		return ret;
	if (tp->hello_due) {
		if (READ_ONCE(tp->sock->sk->sk_state) != TCP_ESTABLISHED)
			return -EAGAIN;	/* the state change brings us back */
		tp->hello_due = false;
		rdsd_tcp_hello_fill(tp, &tp->tx_hello);
		/* the hello acknowledges what was delivered, as a header would */
		if (tp->tx_hello.rx_next) {
			WRITE_ONCE(tp->tx_acked,
				   be64_to_cpu(tp->tx_hello.rx_next) - 1);
			WRITE_ONCE(tp->tx_acked_valid, true);
		}
		rdsd_tcp_frame(tp, &tp->tx_hello, sizeof(tp->tx_hello), NULL, 0,
			       NULL, 0);
		ret = rdsd_tcp_push(tp);
		if (ret)
			return ret;
	}
	/* the peer's requests are answered before anything of ours goes */
	ret = rdsd_tcp_send_resps(tp);
	if (ret || !tp->tx_after || !rdsd_tcp_op_answered(tp))
		return ret;
	/* the message of a read or an atomic whose answer came */
	rdsd_tcp_data_frame(tp, tp->tx_after, true);
	tp->tx_after = NULL;	/* its reference is tx_msg's now */
	return rdsd_tcp_push(tp);
}

/* Send the local congestion map if it is due; tx_mutex held, clear. */
static int rdsd_tcp_send_cong(struct rdsd_tcp_conn *tp)
{
	struct rdsd_wire_info info = {
		.type = RDSD_WIRE_CONG,
		.flags = RDSD_WIRE_F_LAST_FRAG,
		.len = RDSD_NR_PORTS / 8,
		.frag_len = RDSD_NR_PORTS / 8,
	};

	if (!tp->cong_pending || !tp->tx_ready)
		return 0;
	if (!tp->tx_buf) {
		tp->tx_buf = kmalloc(RDSD_NR_PORTS / 8, GFP_KERNEL);
		if (!tp->tx_buf)
			return -ENOMEM;	/* the next change tries again */
	}
	tp->cong_pending = false;
	rdsd_cong_pack(tp->tx_buf, tp->conn->lcong->bits);
	rdsd_tcp_frame_hdr(tp, &info);
	rdsd_tcp_frame(tp, &tp->tx_hdr, sizeof(tp->tx_hdr), tp->tx_buf,
		       RDSD_NR_PORTS / 8, NULL, 0);
	return rdsd_tcp_push(tp);
}

/* Send an ACK if something delivered is not acknowledged; tx_mutex held. */
static int rdsd_tcp_send_ack(struct rdsd_tcp_conn *tp)
{
	struct rdsd_wire_info info = { .type = RDSD_WIRE_ACK };
	u64 next = READ_ONCE(tp->conn->next_rx_seq);

	if (!tp->tx_ready || !next ||
	    (tp->tx_acked_valid && tp->tx_acked == next - 1))
		return 0;
	rdsd_tcp_frame_hdr(tp, &info);
	rdsd_tcp_frame(tp, &tp->tx_hdr, sizeof(tp->tx_hdr), NULL, 0, NULL, 0);
	return rdsd_tcp_push(tp);
}

/*
 * rdsd_tcp_xmit - ->xmit of the TCP transport
 *
 * Writes @msg's frame; what the socket takes not at once is written later,
 * in order, and the message counts as on its way.  Returns 0, or -EAGAIN
 * while an earlier frame is still pending or the path is not up.
 */
int rdsd_tcp_xmit(struct rdsd_conn *conn, struct rdsd_msg *msg)
{
	struct rdsd_tcp_conn *tp = conn->tp;
	bool post_op = rdsd_msg_op_pending(msg);
	bool op_only = rdsd_msg_op_only(msg);
	bool after;
	int ret;

	/* an operation that already ran, or never will: nothing to send */
	if (op_only && !post_op)
		return RDSD_XMIT_DONE;

	mutex_lock(&tp->tx_mutex);
	/* tx_mutex orders this after rdsd_tcp_tx_start() of the path */
	if (!tp->tx_ready || rdsd_conn_xmit_stale(conn)) {
		ret = -EAGAIN;	/* rdsd_conn_up() kicks us */
		goto out;
	}
	/*
	 * More than the peer said it takes (its hello, learnt before
	 * tx_ready): it would reset the connection.  Dropped.
	 */
	if (unlikely(msg->len > be32_to_cpu(tp->peer_hello.max_msg))) {
		pr_info_ratelimited("%s: a message of %u bytes is over the %u the peer takes, dropped\n",
				    conn->name, msg->len,
				    be32_to_cpu(tp->peer_hello.max_msg));
		ret = -EMSGSIZE;
		goto out;
	}
	ret = rdsd_tcp_tx_clear(tp);
	/* behind a message waiting for its answer; the answer kicks */
	if (!ret && tp->tx_after)
		ret = -EAGAIN;
	if (!ret && post_op)
		ret = rdsd_tcp_op_room(tp, msg->op);	/* an answer kicks */
	if (ret) {
		tp->tx_blocked = true;
		ret = -EAGAIN;
		goto out;
	}

	/*
	 * The operation's request first, then the message, if it goes: at
	 * once behind a write, once the answer came for a read or an
	 * atomic (their results are in the asker's buffers then, as over
	 * IB).
	 */
	after = post_op && !op_only && msg->op->kind != RDSD_OP_WRITE;
	if (post_op)
		rdsd_tcp_req_frame(tp, msg, after);
	if (!op_only) {
		rdsd_msg_get(msg);	/* put when its frame is written */
		if (after)
			tp->tx_after = msg;
		else if (post_op)
			tp->tx_next = msg;
		else
			rdsd_tcp_data_frame(tp, msg, false);
	}
	/*
	 * With more queued, this pass's next message joins this one's
	 * segment (the flush at the pass's end pushes what is left over).
	 * The last one pushes: a lone message pays no second socket lock.
	 */
	tp->tx_more = !list_empty_careful(&conn->send_queue);
	rdsd_tcp_push(tp);
	tp->tx_more = false;
	/*
	 * What the socket did not take the worker writes; if it failed, its
	 * reset sends the message again (and drops the operation): either
	 * way the message is on its way.
	 */
	ret = op_only ? RDSD_XMIT_DONE : 0;
out:
	mutex_unlock(&tp->tx_mutex);
	return ret;
}

/**
 * rdsd_tcp_xmit_flush - ->xmit_flush of the TCP transport
 * @conn: connection whose pass ended.
 *
 * Sends what the messages' MSG_MORE left in the socket: together, in as
 * few segments as they fill.
 */
void rdsd_tcp_xmit_flush(struct rdsd_conn *conn)
{
	struct rdsd_tcp_conn *tp = conn->tp;

	/* only ->xmit, in this pass, leaves bytes held */
	if (!READ_ONCE(tp->tx_held))
		return;
	mutex_lock(&tp->tx_mutex);
	if (tp->tx_held && tp->sock) {
		tp->tx_held = false;
		/* TCP_NODELAY is on: this pushes what is queued */
		tcp_sock_set_cork(tp->sock->sk, false);
	}
	mutex_unlock(&tp->tx_mutex);
}

/**
 * rdsd_tcp_tx_worker - write what waits, once the socket can take it
 * @work: rdsd_tcp_conn.tx_work.
 *
 * Queued when our connect went through (the hello), when the socket has
 * room again, and when the path comes up.
 */
void rdsd_tcp_tx_worker(struct work_struct *work)
{
	struct rdsd_tcp_conn *tp = container_of(work, struct rdsd_tcp_conn,
						tx_work);
	bool kick = false;

	mutex_lock(&tp->tx_mutex);
	if (rdsd_tcp_tx_clear(tp))
		goto out;
	if (rdsd_tcp_send_cong(tp) || rdsd_tcp_send_ack(tp))
		goto out;
	kick = tp->tx_ready && tp->tx_blocked;
	tp->tx_blocked = false;
out:
	mutex_unlock(&tp->tx_mutex);
	if (kick)
		rdsd_conn_kick(tp->conn);
}

/**
 * rdsd_tcp_ack_worker - acknowledge what no DATA header did
 * @work: rdsd_tcp_conn.ack_work.
 */
void rdsd_tcp_ack_worker(struct work_struct *work)
{
	struct rdsd_tcp_conn *tp = container_of(to_delayed_work(work),
						struct rdsd_tcp_conn,
						ack_work);

	mutex_lock(&tp->tx_mutex);
	if (!rdsd_tcp_tx_clear(tp))
		rdsd_tcp_send_ack(tp);
	mutex_unlock(&tp->tx_mutex);
}

/**
 * rdsd_tcp_cong_worker - send the local congestion map after a change
 * @work: rdsd_tcp_conn.cong_work.
 *
 * The map is read when the frame is made, so it carries every change
 * made before.
 */
void rdsd_tcp_cong_worker(struct work_struct *work)
{
	struct rdsd_tcp_conn *tp = container_of(work, struct rdsd_tcp_conn,
						cong_work);
	bool ready;

	mutex_lock(&tp->tx_mutex);
	tp->cong_pending = true;
	ready = tp->tx_ready;
	if (ready && !rdsd_tcp_tx_clear(tp))
		rdsd_tcp_send_cong(tp);
	mutex_unlock(&tp->tx_mutex);
	/*
	 * A peer blocked on our old map has nothing queued to us: a parked
	 * path connects again, and the new connection carries the map.
	 */
	if (!ready)
		rdsd_conn_want(tp->conn);
}

/**
 * rdsd_tcp_cong_changed - ->cong_changed of the TCP transport
 * @conn: connection whose local address changed a port's state.
 *
 * Any context, rs->recv_lock held included: the map is sent from
 * rdsd_tcp_cong_worker().
 */
void rdsd_tcp_cong_changed(struct rdsd_conn *conn)
{
	struct rdsd_tcp_conn *tp = conn->tp;

	if (!tp->peer_local)
		queue_work(rdsd_wq, &tp->cong_work);
}

/**
 * rdsd_tcp_write_space - the socket has room again
 * @sk: a connection's socket.
 */
void rdsd_tcp_write_space(struct sock *sk)
{
	struct rdsd_tcp_conn *tp;

	read_lock_bh(&sk->sk_callback_lock);
	tp = sk->sk_user_data;
	if (tp && sk_stream_is_writeable(sk)) {
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		queue_work(rdsd_wq, &tp->tx_work);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/**
 * rdsd_tcp_tx_start - frames may go: the hellos are exchanged
 * @tp: connection; cm_mutex held.
 */
void rdsd_tcp_tx_start(struct rdsd_tcp_conn *tp)
{
	mutex_lock(&tp->tx_mutex);
	tp->tx_ready = true;
	tp->tx_blocked = false;
	tp->tx_since_req = 0;
	/* the peer's copy of our map may be older than the path */
	tp->cong_pending = !tp->peer_local;
	mutex_unlock(&tp->tx_mutex);
	queue_work(rdsd_wq, &tp->tx_work);
}

/**
 * rdsd_tcp_tx_stop - nothing more is written on the socket
 * @tp: connection; cm_mutex held, the socket's callbacks detached.
 *
 * Drops a half-written frame; its message is on the retransmit list and
 * goes again on the next path.
 */
void rdsd_tcp_tx_stop(struct rdsd_tcp_conn *tp)
{
	mutex_lock(&tp->tx_mutex);
	tp->tx_ready = false;
	tp->hello_due = false;
	tp->sock = NULL;
	tp->gen++;	/* what was asked of the old socket is forgotten */
	tp->tx_left = 0;
	tp->tx_held = false;
	rdsd_tcp_frame_done(tp);
	if (tp->tx_next)
		rdsd_msg_put(tp->tx_next);
	tp->tx_next = NULL;
	if (tp->tx_after)
		rdsd_msg_put(tp->tx_after);
	tp->tx_after = NULL;
	mutex_unlock(&tp->tx_mutex);
	cancel_work_sync(&tp->tx_work);
	cancel_delayed_work_sync(&tp->ack_work);
}
