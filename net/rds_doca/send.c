// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca send path.
 *
 * sendmsg() checks the destination and the control messages, waits while
 * the destination port is congested, copies the payload into a new message
 * and queues it twice: on the socket (for send buffer accounting and
 * RDS_CANCEL_SENT_TO) and on the connection (for sequencing and
 * retransmission).  Then it lets the connection transmit.
 *
 * A message leaves both queues when the transport reports that the peer
 * acknowledged it (rdsd_send_acked()), at which point its bytes return to
 * the socket's send buffer.  An RDMA operation whose pages went past the
 * sender's RLIMIT_MEMLOCK counts them in the send buffer too, from the
 * moment its message is queued until the pages are released (rdma.c).
 * Closing the socket does not cancel anything: a message accepted by
 * sendmsg() is delivered even if its sender is gone.  The connection's
 * reference covers the socket's queue: a message is never on the socket's
 * queue without being on the connection's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/moduleparam.h>
#include <linux/rds_doca.h>
#include <linux/socket.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "rdsd.h"
#include "cong.h"
#include "conn.h"
#include "message.h"
#include "mr.h"
#include "send.h"
#include "stats.h"
#include "transport.h"
#include "wire.h"
#include "zcopy.h"

/*
 * Find the destination: the message's address, else the connected one.
 * As Linux RDS: an address no one can be sent to, or a link-local one
 * without its link, is EINVAL.
 */
static int rdsd_send_dest(struct rdsd_sock *rs, struct msghdr *m,
			  struct in6_addr *daddr, __be16 *dport, int *scope)
{
	int ret;

	if (!m->msg_namelen) {
		spin_lock_bh(&rs->lock);
		*daddr = rs->conn_addr;
		*dport = rs->conn_port;
		*scope = rs->conn_scope;
		spin_unlock_bh(&rs->lock);
		return 0;
	}
	if (m->msg_namelen < sizeof(struct sockaddr_in))
		return -EINVAL;
	ret = rdsd_sockaddr_get(m->msg_name, m->msg_namelen, daddr, dport,
				scope);
	if (ret)
		return ret == -EAFNOSUPPORT ? -EOPNOTSUPP : -EINVAL;
	if (!rdsd_addr_unicast(daddr))
		return -EINVAL;
	return 0;
}

/*
 * May a socket bound to its address send to @daddr?  As Linux RDS: not
 * across families (EOPNOTSUPP), and from a link-local address only on
 * its link (EINVAL).  Socket lock held.  Sets @scope to the link of the
 * connection.
 */
static int rdsd_send_route(struct rdsd_sock *rs, const struct in6_addr *daddr,
			   int *scope)
{
	if (rdsd_addr_is4(daddr) != rdsd_addr_is4(&rs->bound_addr))
		return -EOPNOTSUPP;
	if (*scope != rs->bound_scope) {
		if (!*scope)
			*scope = rs->bound_scope;
		else if (rs->bound_scope)
			return -EINVAL;
	}
	return 0;
}

/*
 * Validate the control messages and collect the SOL_RDS ones in @cm.
 * Every cmsg must be well formed; SOL_RDS ones must be of a known type
 * and size, and a message carries one operation (RDMA or atomic), one
 * cookie for the peer (RDMA_DEST or RDMA_MAP) and one ZCOPY_COOKIE at
 * most.  What the arguments say is checked later, by rdsd_op_parse().
 */
VISIBLE_IF_KUNIT int rdsd_cmsg_parse(struct msghdr *m, struct rdsd_cmsgs *cm)
{
	struct cmsghdr *cmsg;

	memset(cm, 0, sizeof(*cm));
	for_each_cmsghdr(cmsg, m) {
		size_t len;

		if (!CMSG_OK(m, cmsg))
			return -EINVAL;
		if (cmsg->cmsg_level != SOL_RDS)
			continue;
		len = cmsg->cmsg_len - CMSG_LEN(0);

		switch (cmsg->cmsg_type) {
		case RDS_CMSG_RDMA_ARGS:
			if (len < sizeof(cm->rdma_args) || cm->rdma ||
			    cm->atomic)
				return -EINVAL;
			memcpy(&cm->rdma_args, CMSG_DATA(cmsg),
			       sizeof(cm->rdma_args));
			cm->rdma = true;
			break;
		case RDS_CMSG_RDMA_DEST:
			if (len < sizeof(cm->dest_cookie) || cm->dest ||
			    cm->map)
				return -EINVAL;
			memcpy(&cm->dest_cookie, CMSG_DATA(cmsg),
			       sizeof(cm->dest_cookie));
			cm->dest = true;
			break;
		case RDS_CMSG_RDMA_MAP:
			if (len < sizeof(cm->map_args) || cm->dest || cm->map)
				return -EINVAL;
			memcpy(&cm->map_args, CMSG_DATA(cmsg),
			       sizeof(cm->map_args));
			cm->map = true;
			break;
		case RDS_CMSG_ATOMIC_FADD:
		case RDS_CMSG_ATOMIC_CSWP:
		case RDS_CMSG_MASKED_ATOMIC_FADD:
		case RDS_CMSG_MASKED_ATOMIC_CSWP:
			if (len < sizeof(cm->atomic_args) || cm->rdma ||
			    cm->atomic)
				return -EINVAL;
			memcpy(&cm->atomic_args, CMSG_DATA(cmsg),
			       sizeof(cm->atomic_args));
			cm->atomic = cmsg->cmsg_type;
			break;
		case RDS_CMSG_ZCOPY_COOKIE:
			/* whether the send is zero-copy is sendmsg()'s to say */
			if (len < sizeof(cm->zcopy_cookie) || cm->zcookie)
				return -EINVAL;
			memcpy(&cm->zcopy_cookie, CMSG_DATA(cmsg),
			       sizeof(cm->zcopy_cookie));
			cm->zcookie = true;
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_cmsg_parse);

/*
 * Give @msg the connection's next sequence number and queue it there,
 * with the reference the caller hands over; conn->lock held.
 */
static void rdsd_conn_enqueue(struct rdsd_conn *conn, struct rdsd_msg *msg)
{
	msg->conn = conn;
	msg->seq = conn->next_tx_seq++;
	list_add_tail(&msg->conn_item, &conn->send_queue);
	set_bit(RDSD_MSG_ON_CONN, &msg->flags);
}

/**
 * rdsd_send_ack_req - does the next message ask for a prompt ack?
 * @unreq: bytes queued since the last message that asked; updated.
 * @charge: what the next message counts in the send buffer.
 * @sndbuf: the socket's send buffer.
 *
 * A message's bytes stay in its sender's buffer until acknowledged, and a
 * receiver acknowledges on its own schedule unless asked (after a batch
 * of messages, when it has credits to return, or from a short timer).
 * One message in every quarter of the buffer, and at least one in every
 * RDSD_ACK_REQ_MAX bytes, asks: a sender filling its buffer hears acks
 * before it must wait, and a stream of large messages brings back one ack
 * per quarter buffer rather than one per message.  Transports that
 * acknowledge read the answer in RDSD_MSG_ACK_REQ, which a zero-copy send
 * of RDSD_ZCOPY_ACK_REQ_MIN bytes or more also sets (rdsd_send_queue()).
 */
bool rdsd_send_ack_req(u32 *unreq, u32 charge, u32 sndbuf)
{
	u32 every = min_t(u32, sndbuf / 4, RDSD_ACK_REQ_MAX);

	*unreq += min(charge, every);
	if (*unreq < every)
		return false;
	*unreq = 0;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_send_ack_req);

/*
 * Queue @msg on the socket and the connection if the send buffer allows.
 * Its payload counts there until the message is acknowledged; the pages of
 * its operation, if they went past RLIMIT_MEMLOCK, until they are
 * released (rdma.c), which may be sooner or later.
 */
static bool rdsd_send_queue(struct rdsd_sock *rs, struct rdsd_conn *conn,
			    struct rdsd_msg *msg)
{
	u32 charge = rdsd_msg_charge(msg), sndbuf = rdsd_sndbuf(rs);
	struct rdsd_op *op = msg->op;
	bool queued = false, req;

	spin_lock_bh(&rs->lock);
	/*
	 * Compare the bytes queued before this message, so the last message
	 * may overshoot the buffer: otherwise poll() could report room that
	 * no message fits into.
	 */
	if (rs->snd_bytes < sndbuf) {
		rs->snd_bytes += charge;
		req = rdsd_send_ack_req(&rs->unreq_bytes, charge, sndbuf);
		/* a zero-copy send's pages wait for the ack: a large one asks */
		if (!req && msg->zc && msg->len >= RDSD_ZCOPY_ACK_REQ_MIN) {
			rs->unreq_bytes = 0;
			req = true;
		}
		if (req)
			set_bit(RDSD_MSG_ACK_REQ, &msg->flags);
		if (op && op->sndbuf) {
			/* given back by rdsd_op_release_pages() */
			rs->snd_bytes += op->sndbuf;
			set_bit(RDSD_OP_SNDBUF, &op->state);
		}
		list_add_tail(&msg->sock_item, &rs->send_queue);
		set_bit(RDSD_MSG_ON_SOCK, &msg->flags);
		sock_hold(&rs->sk);	/* put by rdsd_send_unlink_sock() */
		msg->rs = rs;

		rdsd_msg_get(msg);	/* the connection's, put on completion */
		spin_lock(&conn->lock);
		rdsd_conn_enqueue(conn, msg);
		spin_unlock(&conn->lock);
		queued = true;
	}
	spin_unlock_bh(&rs->lock);
	return queued;
}

/*
 * Queue @msg if its operation's notice has room in the receive buffer
 * (rdma.c) and the send buffer has room for it.  Returns 0 once queued,
 * -ENOBUFS while there is no room for the notice, -EAGAIN while the send
 * buffer is full.  The notice's room stays reserved across calls.
 */
static int rdsd_send_try(struct rdsd_sock *rs, struct rdsd_conn *conn,
			 struct rdsd_msg *msg)
{
	if (!rdsd_op_notice_reserve(rs, msg->op))
		return -ENOBUFS;
	return rdsd_send_queue(rs, conn, msg) ? 0 : -EAGAIN;
}

static void rdsd_write_space(struct rdsd_sock *rs)
{
	rs->sk.sk_write_space(&rs->sk);
}

/* Take @msg off its sender's queue and return its bytes to the buffer. */
static void rdsd_send_unlink_sock(struct rdsd_msg *msg)
{
	struct rdsd_sock *rs = msg->rs;

	if (!rs)
		return;
	spin_lock_bh(&rs->lock);
	if (test_and_clear_bit(RDSD_MSG_ON_SOCK, &msg->flags)) {
		list_del_init(&msg->sock_item);
		rs->snd_bytes -= rdsd_msg_charge(msg);
	}
	spin_unlock_bh(&rs->lock);
	msg->rs = NULL;
	rdsd_write_space(rs);
	sock_put(&rs->sk);	/* taken by rdsd_send_queue() */
}

static void rdsd_send_complete_list(struct list_head *done)
{
	struct rdsd_msg *msg, *tmp;

	list_for_each_entry_safe(msg, tmp, done, conn_item) {
		list_del_init(&msg->conn_item);
		rdsd_send_unlink_sock(msg);
		rdsd_msg_put(msg);	/* the connection's reference */
	}
}

/**
 * rdsd_send_acked - the peer acknowledged every message up to @seq
 * @conn: connection.
 * @seq: highest sequence number the peer says it delivered, as the wire
 *	(or the transport's connection handshake) carried it.
 *
 * Completes the messages on the retransmit list numbered @seq or lower.
 *
 * Sequence numbers are handed out by rdsd_conn_enqueue() from
 * conn->next_tx_seq, which only grows for the life of @conn: a reconnect
 * does not renumber (what was not acknowledged is sent again under its
 * number), and a message that never reaches the wire, as a
 * rdsd_msg_op_only() one, still uses its number, which the peer then
 * never acknowledges on its own.  So a correct peer acknowledges at most
 * conn->next_tx_seq - 1, and nothing while no number was handed out.  An
 * ack of conn->next_tx_seq or beyond is a protocol violation: it completes
 * nothing, changes nothing, is counted in recv_proto_error, and the caller
 * resets the connection as it does for a malformed message (only the
 * transport knows how to drop its path).  Checked here, under conn->lock,
 * so every transport and every source of acks gets the same rule.
 *
 * An ack below conn->last_acked is stale, not an error: last_acked does
 * not go back, and it completes only messages an earlier ack covered
 * already (resent after a reconnect meanwhile), which is harmless.
 *
 * Any context.  Returns 0, or -EPROTO for an ack beyond the highest
 * sequence number handed out.
 */
int rdsd_send_acked(struct rdsd_conn *conn, u64 seq)
{
	struct rdsd_msg *msg, *tmp;
	LIST_HEAD(done);

	spin_lock_bh(&conn->lock);
	if (unlikely(seq >= conn->next_tx_seq)) {
		spin_unlock_bh(&conn->lock);
		rdsd_stat_inc(conn->rn, recv_proto_error);
		return -EPROTO;
	}
	if (seq > conn->last_acked)
		WRITE_ONCE(conn->last_acked, seq);
	list_for_each_entry_safe(msg, tmp, &conn->retrans, conn_item) {
		if (msg->seq > seq)
			break;
		list_move_tail(&msg->conn_item, &done);
		clear_bit(RDSD_MSG_ON_CONN, &msg->flags);
	}
	spin_unlock_bh(&conn->lock);

	rdsd_send_complete_list(&done);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_send_acked);

static unsigned int rdsd_ping_rate __ro_after_init = 1000;
module_param_named(ping_rate, rdsd_ping_rate, uint, 0444);
MODULE_PARM_DESC(ping_rate,
		 "probes a connection answers per second, in bursts of up to as many; more are dropped and counted in recv_ping_dropped (default 1000, 0 for no limit)");

/*
 * May @conn answer one more probe?  A token bucket of rdsd_ping_rate
 * tokens a second, as deep as one second's worth, so a peer's probe flood
 * makes this host send no more than that.  Serialized with
 * rdsd_recv_incoming() by the transport.
 */
static bool rdsd_pong_allowed(struct rdsd_conn *conn)
{
	u32 rate = rdsd_ping_rate;
	u64 now, elapsed, add;

	if (!rate)
		return true;
	now = ktime_get_mono_fast_ns();
	elapsed = min_t(u64, now - conn->pong_stamp, NSEC_PER_SEC);
	add = div_u64(elapsed * rate, NSEC_PER_SEC);
	if (add) {
		/* what is left of a token waits for the next call */
		conn->pong_tokens = min_t(u64, conn->pong_tokens + add, rate);
		conn->pong_stamp = now;
	}
	if (!conn->pong_tokens)
		return false;
	conn->pong_tokens--;
	return true;
}

/**
 * rdsd_send_pong - answer a probe that came to port 0
 * @conn: connection the probe came on.
 * @probe: the probe.
 *
 * Queues an empty message from port 0 of the probed address back to the
 * prober, in sequence with everything else on the connection that leads
 * there; no socket owns it.  That is @conn (any context), except on the
 * loopback transport between two addresses, which delivers on the
 * sender's connection: then the connection back is looked up or made,
 * which needs process context, where that transport delivers.  A probe
 * that finds no memory goes unanswered, as a lost one would; so does one
 * past the connection's rate (the ping_rate parameter), counted in
 * recv_ping_dropped.  The prober's end queues the reply only if its
 * receive buffer has room (recv.c).
 */
void rdsd_send_pong(struct rdsd_conn *conn, const struct rdsd_msg *probe)
{
	struct rdsd_conn *back = conn;
	struct rdsd_msg *msg;

	if (!rdsd_pong_allowed(conn)) {
		rdsd_stat_inc(conn->rn, recv_ping_dropped);
		return;
	}
	if (!ipv6_addr_equal(&conn->laddr, &probe->daddr)) {
		/* for a peer: no user to charge, max_conns bounds it */
		back = rdsd_conn_get_outgoing(conn->rn, conn->trans,
					      &probe->daddr, &probe->saddr,
					      conn->scope, conn->tos, 0,
					      GFP_ATOMIC);
		if (IS_ERR(back))
			return;
	}
	msg = rdsd_msg_alloc(0, GFP_ATOMIC);
	if (!msg)
		goto out;
	msg->saddr = probe->daddr;
	msg->daddr = probe->saddr;
	msg->dport = probe->sport;

	spin_lock_bh(&back->lock);
	if (test_bit(RDSD_CONN_DEAD, &back->flags)) {
		spin_unlock_bh(&back->lock);
		rdsd_msg_put(msg);
		goto out;
	}
	/* the allocation's reference becomes the connection's */
	rdsd_conn_enqueue(back, msg);
	spin_unlock_bh(&back->lock);
	rdsd_conn_start(back);
	rdsd_conn_kick(back);
out:
	if (back != conn)
		rdsd_conn_put(back);
}

/**
 * rdsd_send_drop - complete one message the transport can never send
 * @conn: connection.
 * @msg: message on @conn's retransmit list.
 */
void rdsd_send_drop(struct rdsd_conn *conn, struct rdsd_msg *msg)
{
	LIST_HEAD(done);

	spin_lock_bh(&conn->lock);
	if (test_and_clear_bit(RDSD_MSG_ON_CONN, &msg->flags))
		list_move_tail(&msg->conn_item, &done);
	spin_unlock_bh(&conn->lock);

	rdsd_send_complete_list(&done);
}

/*
 * Move the messages of closed sockets on @list, one of a connection's, to
 * @done; conn->lock held.  A socket's messages name it (msg->rs) for as
 * long as they are on a connection; the module's own (probe replies)
 * name none.
 */
static void rdsd_send_pick_orphans(struct list_head *list,
				   struct list_head *done)
{
	struct rdsd_msg *msg, *tmp;

	list_for_each_entry_safe(msg, tmp, list, conn_item) {
		if (!msg->rs || !sock_flag(&msg->rs->sk, SOCK_DEAD))
			continue;
		list_move_tail(&msg->conn_item, done);
		clear_bit(RDSD_MSG_ON_CONN, &msg->flags);
		rdsd_stat_inc(msg->conn->rn, send_drop_closed);
	}
}

/**
 * rdsd_send_drop_orphans - drop what closed sockets left on a path that failed
 * @conn: connection whose path is down, or cannot be tried now.
 *
 * A closed socket's messages stay on their connection to be delivered,
 * and each holds the socket, and with it the module.  A working path
 * delivers them soon; one that failed may never come back, and nobody
 * waits for them: they are dropped, and counted in send_drop_closed.
 * Any context.
 */
void rdsd_send_drop_orphans(struct rdsd_conn *conn)
{
	LIST_HEAD(done);

	spin_lock_bh(&conn->lock);
	rdsd_send_pick_orphans(&conn->retrans, &done);
	rdsd_send_pick_orphans(&conn->send_queue, &done);
	spin_unlock_bh(&conn->lock);

	rdsd_send_complete_list(&done);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_send_drop_orphans);

/**
 * rdsd_cancel_sent_to - the RDS_CANCEL_SENT_TO socket option
 * @rs: socket.
 * @optval: a struct sockaddr_in naming the destination address and port,
 *	or a struct sockaddr_in6.
 * @optlen: its length.
 *
 * Drops the socket's messages to that destination that no transport has
 * taken yet.  Messages already handed to a transport are on the wire and
 * complete normally.  As in Linux RDS, the family of an address shorter
 * than a struct sockaddr_in6 is not looked at, and no address is refused:
 * one that names no destination cancels nothing.
 */
int rdsd_cancel_sent_to(struct rdsd_sock *rs, sockptr_t optval,
			unsigned int optlen)
{
	struct rdsd_msg *msg, *tmp;
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;
	struct in6_addr daddr;
	__be16 dport;
	int scope;
	LIST_HEAD(done);

	if (!rdsd_sk_bound(rs))
		return -ENOTCONN;
	if (optlen < sizeof(sin))
		return -EINVAL;
	if (copy_from_sockptr(&sin, optval, sizeof(sin)))
		return -EFAULT;
	ipv6_addr_set_v4mapped(sin.sin_addr.s_addr, &daddr);
	dport = sin.sin_port;
	if (sin.sin_family == AF_INET6 && optlen >= sizeof(sin6)) {
		if (copy_from_sockptr(&sin6, optval, sizeof(sin6)))
			return -EFAULT;
		/* not checked further, as Linux RDS: nothing is sent there */
		if (rdsd_sockaddr_get((struct sockaddr *)&sin6, sizeof(sin6),
				      &daddr, &dport, &scope))
			return 0;
	}

	spin_lock_bh(&rs->lock);
	list_for_each_entry_safe(msg, tmp, &rs->send_queue, sock_item) {
		struct rdsd_conn *conn = msg->conn;

		if (!ipv6_addr_equal(&msg->daddr, &daddr) ||
		    msg->dport != dport)
			continue;
		/* on the socket's queue means on its connection's too */
		spin_lock(&conn->lock);
		if (!list_empty(&msg->conn_item) &&
		    !test_bit(RDSD_MSG_SENT, &msg->flags)) {
			list_move_tail(&msg->conn_item, &done);
			clear_bit(RDSD_MSG_ON_CONN, &msg->flags);
		}
		spin_unlock(&conn->lock);
	}
	spin_unlock_bh(&rs->lock);

	rdsd_send_complete_list(&done);
	return 0;
}

/*
 * Get the connection to @daddr, through the socket's cache; sk_lock held.
 * Of several paths to @daddr, the socket's bound port picks one, and the
 * cache keeps it there while it sends to @daddr: its messages to one
 * peer take one path, in order, even if the number of paths changes.
 * A socket that first sent before path 0 learned of more paths moves to
 * its own once nothing it sent is unacknowledged: what it sent before has
 * reached the peer's socket then, so nothing is overtaken.
 */
static bool rdsd_send_conn_keep(struct rdsd_sock *rs, struct rdsd_conn *conn)
{
	u8 npaths = READ_ONCE(conn->npaths);

	return npaths <= 1 || conn->path ||
	       !rdsd_conn_path_pick(npaths, ntohs(rs->bound_port)) ||
	       !list_empty_careful(&rs->send_queue);
}

static struct rdsd_conn *rdsd_send_conn(struct rdsd_sock *rs,
					const struct in6_addr *daddr,
					int scope)
{
	struct rdsd_conn *conn = rs->conn;

	if (conn && ipv6_addr_equal(&conn->faddr, daddr) &&
	    conn->scope == scope && rdsd_send_conn_keep(rs, conn)) {
		refcount_inc(&conn->refs);
		return conn;
	}
	/* made for this sender: its memory cgroup pays (max_conns bounds) */
	conn = rdsd_conn_get_outgoing(rdsd_sk_net(rs), rs->trans,
				      &rs->bound_addr, daddr, scope,
				      READ_ONCE(rs->tos),
				      ntohs(rs->bound_port),
				      GFP_KERNEL_ACCOUNT);
	if (IS_ERR(conn))
		return conn;

	/*
	 * Messages queued through the old connection stay on it; the cache
	 * only changes what new sends use.
	 */
	if (rs->conn)
		rdsd_conn_put(rs->conn);
	refcount_inc(&conn->refs);	/* the cache's, put on change or close */
	rs->conn = conn;
	return conn;
}

/**
 * rdsd_sendmsg - the sendmsg() socket call
 * @sock: socket.
 * @m: message header.
 * @payload_len: payload length.
 *
 * Returns @payload_len once the message is queued for delivery.
 */
int rdsd_sendmsg(struct socket *sock, struct msghdr *m, size_t payload_len)
{
	struct sock *sk = sock->sk;
	struct rdsd_sock *rs = rdsd_sk(sk);
	struct rdsd_net *rn = rdsd_sk_net(rs);
	bool nonblock = m->msg_flags & MSG_DONTWAIT;
	struct rdsd_cmsgs cm;
	long timeo = sock_sndtimeo(sk, nonblock);
	struct rdsd_conn *conn;
	struct rdsd_msg *msg;
	struct in6_addr daddr;
	__be16 dport, sport;
	bool zcopy;
	int ret, scope;

	if (m->msg_flags & ~(MSG_DONTWAIT | MSG_CMSG_COMPAT | MSG_ZEROCOPY))
		return -EOPNOTSUPP;

	ret = rdsd_send_dest(rs, m, &daddr, &dport, &scope);
	if (ret)
		return ret;

	lock_sock(sk);
	sport = rs->bound_port;
	if (!rs->bound || ipv6_addr_any(&daddr)) {
		release_sock(sk);
		return -ENOTCONN;
	}
	ret = rdsd_send_route(rs, &daddr, &scope);
	if (ret) {
		release_sock(sk);
		return ret;
	}
	conn = rdsd_send_conn(rs, &daddr, scope);
	release_sock(sk);
	if (IS_ERR(conn))
		return PTR_ERR(conn);

	ret = rdsd_cmsg_parse(m, &cm);
	if (ret)
		goto out_conn;

	ret = -EMSGSIZE;
	if (payload_len > READ_ONCE(rs->msg_max) ||
	    payload_len > conn->trans->max_msg ||
	    payload_len > rdsd_sndbuf(rs))
		goto out_conn;

	/*
	 * As Linux RDS: MSG_ZEROCOPY without SO_ZEROCOPY copies, an empty
	 * payload has no pages to hold, and a cookie needs a zero-copy send.
	 */
	zcopy = (m->msg_flags & MSG_ZEROCOPY) && sock_flag(sk, SOCK_ZEROCOPY) &&
		payload_len;
	ret = -EINVAL;
	if (cm.zcookie && !zcopy)
		goto out_conn;

	ret = rdsd_cong_wait(rs, conn->fcong, dport, nonblock, &timeo);
	if (ret)
		goto out_conn;

	if (zcopy) {
		msg = rdsd_zcopy_msg_alloc(rs, &m->msg_iter, payload_len,
					   cm.zcopy_cookie);
		if (IS_ERR(msg)) {
			ret = PTR_ERR(msg);
			if (ret == -ENOBUFS)
				rdsd_stat_inc(rn, send_zcopy_full);
			goto out_conn;
		}
	} else {
		ret = -ENOMEM;
		msg = rdsd_msg_alloc(payload_len, sk->sk_allocation);
		if (!msg)
			goto out_conn;
		ret = rdsd_msg_copy_from_iter(rn, msg, &m->msg_iter);
		if (ret)
			goto out_msg;
	}
	ret = rdsd_op_parse(rs, conn, &cm, msg);
	if (ret)
		goto out_op;
	msg->saddr = rs->bound_addr;
	msg->sport = sport;
	msg->daddr = daddr;
	msg->dport = dport;

	while ((ret = rdsd_send_try(rs, conn, msg))) {
		long t;

		if (ret == -ENOBUFS)
			rdsd_stat_inc(rn, notify_full);
		else
			rdsd_stat_inc(rn, send_queue_full);
		ret = -EAGAIN;
		if (nonblock)
			goto out_unsent;
		ret = sock_intr_errno(timeo);
		if (signal_pending(current))
			goto out_unsent;
		t = rdsd_sk_wait_event(sk, EPOLLOUT,
				       !rdsd_send_try(rs, conn, msg), timeo);
		if (t > 0)
			break;	/* the condition queued the message */
		/* as Linux RDS: a send timeout is ETIMEDOUT, not EAGAIN */
		ret = t ? sock_intr_errno(timeo) : -ETIMEDOUT;
		goto out_unsent;
	}

	rdsd_stat_inc(rn, send_queued);
	rdsd_stat_add(rn, send_bytes, payload_len);
	if (zcopy)
		rdsd_stat_inc(rn, send_zcopy);
	rdsd_conn_start(conn);	/* a parked path connects again */
	rdsd_conn_send(conn);
	ret = payload_len;
	goto out_msg;

out_unsent:
	/* nothing of a refused message stays behind */
	if (cm.map)
		rdsd_mr_unmap(rs, msg->rdma_dest);
out_op:
	rdsd_op_unsent(rs, msg->op);
	rdsd_zcopy_unsent(msg);
out_msg:
	rdsd_msg_put(msg);	/* this call's reference */
out_conn:
	rdsd_conn_put(conn);
	return ret;
}

/**
 * rdsd_msg_rdma_info - tell the peer of the cookie and region @msg carries
 * @msg: a message going out.
 * @post_op: its operation goes with it, just before it.
 * @info: its DATA header, completed with RDMA_DEST, SILENT and RDMA_USED.
 *
 * RDMA_USED names the region the operation used (a RDS_RDMA_USE_ONCE one
 * is freed on arrival); an operation that failed leaves the region alone.
 * Shared by the transports that cross hosts.
 */
void rdsd_msg_rdma_info(const struct rdsd_msg *msg, bool post_op,
			struct rdsd_wire_info *info)
{
	const struct rdsd_op *op = msg->op;

	if (msg->rdma_dest) {
		info->flags |= RDSD_WIRE_F_RDMA_DEST;
		info->rdma_cookie = msg->rdma_dest;
	}
	if (op && (op->flags & RDS_RDMA_SILENT))
		info->flags |= RDSD_WIRE_F_SILENT;
	if (op && op->key &&
	    (post_op || (test_bit(RDSD_OP_DONE, &op->state) &&
			 op->status == RDS_RDMA_SUCCESS))) {
		info->flags |= RDSD_WIRE_F_RDMA_USED;
		info->rdma_key = op->key;
	}
}
