// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca receive path.
 *
 * A transport hands each message it receives to rdsd_recv_incoming(),
 * which drops sequence numbers the connection already delivered, finds the
 * socket bound to the destination and appends the message to its receive
 * queue.  A message for a port nobody is bound to is dropped silently, as
 * a datagram would be, and so is one over RDSD_MAX_MSG_SIZE for a socket
 * that did not raise RDS_DOCA_MSG_MAX to hold it (counted in
 * recv_drop_large): only a receiver that asked for them gets messages
 * larger than Linux RDS carries.
 *
 * The receive queue is accounted in payload bytes, RDSD_RECV_MIN_CHARGE at
 * least per message, against half of SO_RCVBUF: past it the socket's port
 * is marked congested in its address's map, and senders hold back until it
 * drains below a quarter.  Messages already on their way are still
 * accepted, so a queue may overshoot its limit by what was in flight.
 * Probe replies (from port 0) are the exception: no sender holds them back,
 * so one that does not fit in the buffer, beside the messages and the
 * notices (rdma.c) already there, is dropped and counted in
 * recv_ping_dropped.
 *
 * recvmsg() takes the head of the queue off before it copies; a copy that
 * faults puts the message back at the head, so a bad buffer loses nothing.
 * MSG_PEEK copies the head in place.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/rds_doca.h>
#include <linux/sched/clock.h>
#include <linux/time.h>
#include <net/busy_poll.h>
#include <net/sock.h>

#include "rdsd.h"
#include "bind.h"
#include "cong.h"
#include "message.h"
#include "mr.h"
#include "recv.h"
#include "send.h"
#include "stats.h"
#include "wire.h"
#include "zcopy.h"

/*
 * Is there room for @msg, a probe reply, in the receive buffer?  Nothing
 * holds the ping responder back as congestion holds senders back, so a
 * reply is queued only if it fits.  recv_lock held.
 */
static bool rdsd_recv_pong_fits(struct rdsd_sock *rs,
				const struct rdsd_msg *msg)
{
	lockdep_assert_held(&rs->recv_lock);
	return rs->rcv_bytes + rs->notify_bytes + (int)rdsd_msg_charge(msg) <=
	       rdsd_rcvbuf(rs);
}

/* Account @delta bytes on the receive queue; recv_lock held. */
static void rdsd_rcvbuf_delta(struct rdsd_sock *rs, int delta)
{
	struct rdsd_net *rn = rdsd_sk_net(rs);
	u32 limit = rdsd_rcvbuf(rs);

	lockdep_assert_held(&rs->recv_lock);

	rs->rcv_bytes += delta;
	if (!rs->congested && rs->rcv_bytes > limit) {
		rs->congested = true;
		rdsd_cong_set(rn, rs->lcong, rs->bound_port);
	} else if (rs->congested && rs->rcv_bytes < limit / 2) {
		rs->congested = false;
		rdsd_cong_clear(rn, rs->lcong, rs->bound_port);
	}
}

/**
 * rdsd_recv_incoming - deliver a message that arrived on @conn
 * @conn: connection it arrived on.
 * @msg: the message; the caller keeps its own reference.
 *
 * The transport serializes calls per connection.  Any context.
 */
void rdsd_recv_incoming(struct rdsd_conn *conn, struct rdsd_msg *msg)
{
	struct rdsd_net *rn = conn->rn;
	struct rdsd_sock *rs;
	struct sock *sk;
	u64 now = 0;

	if (msg->seq < conn->next_rx_seq) {
		rdsd_stat_inc(rn, recv_drop_old_seq);
		return;
	}
	WRITE_ONCE(conn->next_rx_seq, msg->seq + 1);
	WRITE_ONCE(conn->rx_msgs, conn->rx_msgs + 1);
	WRITE_ONCE(conn->rx_bytes, conn->rx_bytes + msg->len);
	/* it only said its RDS_RDMA_SILENT operation is done */
	if (test_bit(RDSD_MSG_SILENT, &msg->flags))
		return;
	/* a probe (rds-ping, rdsctl ping): the kernel answers */
	if (!msg->dport) {
		rdsd_stat_inc(rn, recv_ping);
		if (msg->sport)
			rdsd_send_pong(conn, msg);
		return;
	}

	msg->scope = conn->scope;
	rs = rdsd_find_bound(rn, &msg->daddr, msg->dport,
			     rdsd_addr_scope(&msg->daddr, conn->scope));
	if (!rs) {
		rdsd_stat_inc(rn, recv_drop_no_sock);
		return;
	}
	sk = &rs->sk;
	/* over Linux's limit only for a socket that raised its own to it */
	if (unlikely(msg->len > RDSD_MAX_MSG_SIZE &&
		     msg->len > READ_ONCE(rs->msg_max))) {
		rdsd_stat_inc(rn, recv_drop_large);
		goto out;
	}

	if (unlikely(rs->rx_traces)) {
		now = local_clock();
		msg->rx_trace[RDSD_RX_HDR] = now;
		msg->rx_trace[RDSD_RX_START] = now;
	}

	spin_lock_bh(&rs->recv_lock);
	if (unlikely(rs->dead)) {
		spin_unlock_bh(&rs->recv_lock);
		rdsd_stat_inc(rn, recv_drop_dead_sock);
		goto out;
	}
	/* a reply of the ping responder: no sender is held back for it */
	if (!msg->sport && !rdsd_recv_pong_fits(rs, msg)) {
		spin_unlock_bh(&rs->recv_lock);
		rdsd_stat_inc(rn, recv_ping_dropped);
		goto out;
	}
	if (sock_flag(sk, SOCK_RCVTSTAMP))
		msg->rx_tstamp = ktime_get_real_ns();
	if (unlikely(now))
		msg->rx_trace[RDSD_RX_END] = local_clock();
	rdsd_msg_get(msg);	/* the queue's, put when taken off */
	list_add_tail(&msg->recv_item, &rs->recv_queue);
	rdsd_rcvbuf_delta(rs, (int)rdsd_msg_charge(msg));
	spin_unlock_bh(&rs->recv_lock);

	rdsd_stat_inc(rn, recv_delivered);
	rdsd_stat_add(rn, recv_bytes, msg->len);
	sk->sk_data_ready(sk);
out:
	sock_put(sk);	/* taken by rdsd_find_bound() */
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_recv_incoming);

/**
 * rdsd_recv_reserve - make room for a large message that starts arriving
 * @conn: connection it arrives on.
 * @dport: its destination port.
 * @len: its length, over RDSD_MAX_MSG_SIZE.
 *
 * A transport that receives a message of more than RDSD_MAX_MSG_SIZE
 * bytes in pieces counts it in its receiver's buffer before it holds any
 * of it, so that peers cannot make us hold more than receivers asked for.
 * The socket must have raised RDS_DOCA_MSG_MAX to @len, its buffer
 * (rdsd_rcvbuf()) must hold @len, and what is queued and reserved may
 * pass the buffer by at most the buffer again: a message that started
 * while the port was not congested always fits, and the reservation
 * makes the port congested, so other senders hold back.  Any context.
 *
 * Returns the socket, with a reference and @len counted in its receive
 * buffer until rdsd_recv_unreserve(), or NULL when the message is to be
 * dropped (counted in recv_drop_no_sock or recv_drop_large).
 */
struct rdsd_sock *rdsd_recv_reserve(struct rdsd_conn *conn, __be16 dport,
				    u32 len)
{
	struct rdsd_net *rn = conn->rn;
	struct rdsd_sock *rs;
	u64 limit;
	bool ok;

	rs = dport ? rdsd_find_bound(rn, &conn->laddr, dport,
				     rdsd_addr_scope(&conn->laddr,
						     conn->scope)) : NULL;
	if (!rs) {
		rdsd_stat_inc(rn, recv_drop_no_sock);
		return NULL;
	}
	spin_lock_bh(&rs->recv_lock);
	limit = rdsd_rcvbuf(rs);
	ok = !rs->dead && len <= READ_ONCE(rs->msg_max) && len <= limit &&
	     (u64)rs->rcv_bytes + len <= 2 * limit;
	if (ok)
		rdsd_rcvbuf_delta(rs, (int)len);
	spin_unlock_bh(&rs->recv_lock);
	if (ok)
		return rs;
	rdsd_stat_inc(rn, recv_drop_large);
	sock_put(&rs->sk);
	return NULL;
}

/**
 * rdsd_recv_msg_init - fill in a received message from its DATA header
 * @msg: the message, its payload not yet received.
 * @conn: the connection it arrives on.
 * @info: its header, checked.
 */
void rdsd_recv_msg_init(struct rdsd_msg *msg, const struct rdsd_conn *conn,
			const struct rdsd_wire_info *info)
{
	msg->seq = info->seq;
	msg->saddr = conn->faddr;
	msg->daddr = conn->laddr;
	msg->sport = info->sport;
	msg->dport = info->dport;
	msg->rdma_dest = info->rdma_cookie;
}

/**
 * rdsd_recv_rdma_used - a DATA header says its operation used a region
 * @conn: the connection it arrived on.
 * @info: the header, checked.
 *
 * With RDMA_USED, the RDS_RDMA_USE_ONCE region it names is freed if the
 * peer may use it through the port it addressed.  Any context.
 */
void rdsd_recv_rdma_used(struct rdsd_conn *conn,
			 const struct rdsd_wire_info *info)
{
	const struct rdsd_mr_peer peer = {
		.saddr = conn->faddr, .sport = info->sport,
		.daddr = conn->laddr, .dport = info->dport,
	};

	if (info->flags & RDSD_WIRE_F_RDMA_USED)
		rdsd_mr_use_key(conn->rn, info->rdma_key, &peer, conn);
}

/**
 * rdsd_recv_unreserve - give back what rdsd_recv_reserve() counted
 * @rs: the socket it returned; its reference is dropped.
 * @len: the length reserved.
 *
 * Before the message is delivered (rdsd_recv_incoming() counts it again)
 * or when it is abandoned.  A socket that closed meanwhile gave up its
 * whole count already (rdsd_recv_purge()).  Any context.
 */
void rdsd_recv_unreserve(struct rdsd_sock *rs, u32 len)
{
	spin_lock_bh(&rs->recv_lock);
	if (!rs->dead && !WARN_ON_ONCE(rs->rcv_bytes < len))
		rdsd_rcvbuf_delta(rs, -(int)len);
	spin_unlock_bh(&rs->recv_lock);
	sock_put(&rs->sk);
}

/**
 * rdsd_recv_skipped - a message arrived that is not delivered
 * @conn: connection it arrived on.
 * @seq: its sequence number.
 *
 * A message received again after a reset, or one rdsd_recv_reserve()
 * refused: acknowledged as delivered ones are, so that its sender lets
 * it go.  The transport serializes calls per connection, as for
 * rdsd_recv_incoming().
 */
void rdsd_recv_skipped(struct rdsd_conn *conn, u64 seq)
{
	if (seq < conn->next_rx_seq) {
		rdsd_stat_inc(conn->rn, recv_drop_old_seq);
		return;
	}
	WRITE_ONCE(conn->next_rx_seq, seq + 1);
	WRITE_ONCE(conn->rx_msgs, conn->rx_msgs + 1);
}

/*
 * Take the head of the receive queue, or with @peek look at it.  Returns
 * it with a reference (taken off the queue, the queue's reference moves to
 * the caller), or NULL.
 */
static struct rdsd_msg *rdsd_recv_next(struct rdsd_sock *rs, bool peek)
{
	struct rdsd_msg *msg = NULL;
	bool wake = false;

	if (list_empty_careful(&rs->recv_queue))
		return NULL;
	spin_lock_bh(&rs->recv_lock);
	if (!list_empty(&rs->recv_queue)) {
		msg = list_first_entry(&rs->recv_queue, struct rdsd_msg,
				       recv_item);
		if (peek) {
			rdsd_msg_get(msg);
		} else {
			list_del_init(&msg->recv_item);
			rdsd_rcvbuf_delta(rs, -(int)rdsd_msg_charge(msg));
			/* room for a notice a sendmsg() waits for (rdma.c) */
			wake = rs->notice_wait;
			rs->notice_wait = false;
		}
	}
	spin_unlock_bh(&rs->recv_lock);
	if (wake)
		rs->sk.sk_write_space(&rs->sk);
	return msg;
}

/* Is there something for recvmsg() to return? */
static bool rdsd_recv_ready(struct rdsd_sock *rs)
{
	return READ_ONCE(rs->cong_notify) ||
	       !list_empty_careful(&rs->recv_queue) ||
	       !list_empty_careful(&rs->notify_queue);
}

/*
 * Busy polling: with SO_BUSY_POLL (or net.core.busy_read) set, a blocking
 * recvmsg() that finds its queue empty watches it for up to that many
 * microseconds before it sleeps, so a message that comes soon is taken
 * without a wake-up.  The spin yields to anything else that wants the CPU
 * (cond_resched()) and ends on a signal.  Messages are delivered by the
 * transport's own context as always (the sender, or the softirq of a
 * completion), so it is the queue that is watched.  poll() and select()
 * spin the same way by themselves: the socket layer marks the socket as
 * able to (POLL_BUSY_LOOP) while SO_BUSY_POLL is set, and with
 * net.core.busy_poll they call rdsd_poll() again until it reports
 * something or the time is up.  Returns true when there is something to
 * receive.
 */
static bool rdsd_recv_busy_wait(struct rdsd_sock *rs)
{
	struct sock *sk = &rs->sk;
	unsigned long start;

	if (!sk_can_busy_loop(sk))
		return false;
	start = busy_loop_current_time();
	do {
		if (rdsd_recv_ready(rs)) {
			rdsd_stat_inc(rdsd_sk_net(rs), recv_busy_poll);
			return true;
		}
		if (signal_pending(current))
			return false;
		cond_resched();
		cpu_relax();
	} while (!sk_busy_loop_timeout(sk, start));
	return false;
}

/* A copy to the user failed: put @msg back where it was, at the head. */
static void rdsd_recv_requeue(struct rdsd_sock *rs, struct rdsd_msg *msg)
{
	spin_lock_bh(&rs->recv_lock);
	if (!rs->dead) {
		list_add(&msg->recv_item, &rs->recv_queue);
		rdsd_rcvbuf_delta(rs, (int)rdsd_msg_charge(msg));
		msg = NULL;
	}
	spin_unlock_bh(&rs->recv_lock);
	rdsd_msg_put(msg);	/* the socket closed meanwhile */
}

static int rdsd_cmsg_recv(struct rdsd_sock *rs, struct rdsd_msg *msg,
			  struct msghdr *m)
{
	struct sock *sk = &rs->sk;
	int ret;

	if (msg->rx_tstamp && sock_flag(sk, SOCK_RCVTSTAMP)) {
		struct __kernel_old_timeval tv =
			ns_to_kernel_old_timeval(msg->rx_tstamp);

		if (!sock_flag(sk, SOCK_TSTAMP_NEW)) {
			ret = put_cmsg(m, SOL_SOCKET, SO_TIMESTAMP_OLD,
				       sizeof(tv), &tv);
		} else {
			struct __kernel_sock_timeval stv = {
				.tv_sec = tv.tv_sec,
				.tv_usec = tv.tv_usec,
			};

			ret = put_cmsg(m, SOL_SOCKET, SO_TIMESTAMP_NEW,
				       sizeof(stv), &stv);
		}
		if (ret)
			return ret;
	}

	if (msg->rdma_dest) {
		ret = put_cmsg(m, SOL_RDS, RDS_CMSG_RDMA_DEST,
			       sizeof(msg->rdma_dest), &msg->rdma_dest);
		if (ret)
			return ret;
	}

	if (rs->rx_traces) {
		struct rds_cmsg_rx_trace t;
		int i;

		memset(&t, 0, sizeof(t));
		msg->rx_trace[RDSD_RX_CMSG] = local_clock();
		t.rx_traces = rs->rx_traces;
		for (i = 0; i < rs->rx_traces; i++) {
			int j = rs->rx_trace_pos[i];

			t.rx_trace_pos[i] = j;
			t.rx_trace[i] = msg->rx_trace[j + 1] - msg->rx_trace[j];
		}
		ret = put_cmsg(m, SOL_RDS, RDS_CMSG_RXPATH_LATENCY,
			       sizeof(t), &t);
		if (ret)
			return ret;
	}
	return 0;
}

/* Report congestion changes to a monitoring socket. */
static int rdsd_notify_cong(struct rdsd_sock *rs, struct msghdr *m)
{
	u64 notify = READ_ONCE(rs->cong_notify);
	int ret;

	ret = put_cmsg(m, SOL_RDS, RDS_CMSG_CONG_UPDATE, sizeof(notify),
		       &notify);
	if (ret)
		return ret;

	spin_lock_bh(&rs->lock);
	rs->cong_notify &= ~notify;
	spin_unlock_bh(&rs->lock);
	return 0;
}

/*
 * The sender's name: a struct sockaddr_in, or _in6 for an IPv6 socket,
 * with the connection's link for a link-local sender (a socket bound to a
 * global address hears from link-local ones too)
 */
static void rdsd_recv_name(const struct rdsd_msg *msg, struct msghdr *m)
{
	struct sockaddr_storage ss;
	int len;

	if (!m->msg_name)
		return;
	len = rdsd_sockaddr_put(&ss, &msg->saddr, msg->sport,
				rdsd_addr_scope(&msg->saddr, msg->scope));
	memcpy(m->msg_name, &ss, len);
	m->msg_namelen = len;
}

/**
 * rdsd_recvmsg - the recvmsg() socket call
 * @sock: socket.
 * @m: message header.
 * @size: room in @m's buffers.
 * @flags: MSG_* flags.
 *
 * Returns the bytes copied (or the whole length with MSG_TRUNC), 0 for a
 * notification or MSG_ZEROCOPY completions carried in a control message,
 * or a negative errno.
 */
int rdsd_recvmsg(struct socket *sock, struct msghdr *m, size_t size,
		 int flags)
{
	struct sock *sk = sock->sk;
	struct rdsd_sock *rs = rdsd_sk(sk);
	bool nonblock = flags & MSG_DONTWAIT;
	bool peek = flags & MSG_PEEK;
	long timeo = sock_rcvtimeo(sk, nonblock);
	struct rdsd_msg *msg;
	int ret;

	/* Linux RDS answers MSG_OOB with 0 and no data; so do we */
	if (flags & MSG_OOB)
		return 0;
	if (flags & MSG_ERRQUEUE)
		return sock_recv_errqueue(sk, m, size, SOL_IP, IP_RECVERR);

	for (;;) {
		/* pending notifications first, and nothing else */
		if (!list_empty_careful(&rs->notify_queue))
			return rdsd_notify_recv(rs, m);
		if (READ_ONCE(rs->cong_notify))
			return rdsd_notify_cong(rs, m);

		msg = rdsd_recv_next(rs, peek);
		if (msg)
			break;
		if (nonblock)
			/* as Linux RDS: completions alone, if any */
			return rdsd_zcopy_recv(rs, m) ? 0 : -EAGAIN;
		if (rdsd_recv_busy_wait(rs))
			continue;
		timeo = rdsd_sk_wait_event(sk, EPOLLIN, rdsd_recv_ready(rs),
					   timeo);
		if (timeo <= 0)
			/* as Linux RDS: a receive timeout is ETIMEDOUT */
			return timeo ? timeo : -ETIMEDOUT;
	}

	ret = rdsd_msg_copy_to_iter(rdsd_sk_net(rs), msg, &m->msg_iter,
				    min_t(size_t, size, msg->len));
	if (ret < 0) {
		/* as Linux RDS: the message stays queued */
		if (!peek) {
			rdsd_recv_requeue(rs, msg);
			return ret;
		}
		goto out;
	}
	if (ret < msg->len) {
		if (flags & MSG_TRUNC)
			ret = msg->len;
		m->msg_flags |= MSG_TRUNC;
	}
	if (rdsd_cmsg_recv(rs, msg, m)) {
		ret = -EFAULT;
	} else {
		rdsd_recv_name(msg, m);
		rdsd_zcopy_recv(rs, m);
	}
out:
	rdsd_msg_put(msg);	/* taken by rdsd_recv_next() */
	return ret;
}

/**
 * rdsd_recv_purge - free the receive queue of a closing socket
 * @rs: socket.
 *
 * After this nothing is queued to @rs any more, and no room is reserved
 * in its buffer (rdsd_recv_reserve()): reservations still held are given
 * up with the queue's count.
 */
void rdsd_recv_purge(struct rdsd_sock *rs)
{
	struct rdsd_msg *msg, *tmp;
	LIST_HEAD(list);

	spin_lock_bh(&rs->recv_lock);
	rs->dead = true;
	list_splice_init(&rs->recv_queue, &list);
	if (rs->rcv_bytes)
		rdsd_rcvbuf_delta(rs, -(int)rs->rcv_bytes);
	spin_unlock_bh(&rs->recv_lock);

	list_for_each_entry_safe(msg, tmp, &list, recv_item) {
		list_del_init(&msg->recv_item);
		rdsd_msg_put(msg);
	}
}
