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
 * the socket's send buffer.  Closing the socket does not cancel anything:
 * a message accepted by sendmsg() is delivered even if its sender is gone.
 * The connection's reference covers the socket's queue: a message is never
 * on the socket's queue without being on the connection's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/rds_doca.h>
#include <linux/socket.h>

#include "rdsd.h"

/* Find the destination: the message's address, else the connected one. */
static int rdsd_send_dest(struct rdsd_sock *rs, struct msghdr *m,
			  __be32 *daddr, __be16 *dport)
{
	DECLARE_SOCKADDR(struct sockaddr_in *, usin, m->msg_name);
	__be32 addr;

	if (!m->msg_namelen) {
		*daddr = READ_ONCE(rs->conn_addr);
		*dport = READ_ONCE(rs->conn_port);
		return 0;
	}
	if (m->msg_namelen < sizeof(*usin))
		return -EINVAL;
	switch (usin->sin_family) {
	case AF_INET:
		addr = usin->sin_addr.s_addr;
		if (addr == htonl(INADDR_ANY) ||
		    addr == htonl(INADDR_BROADCAST) || ipv4_is_multicast(addr))
			return -EINVAL;
		*daddr = addr;
		*dport = usin->sin_port;
		return 0;
	case AF_INET6:
		/* IPv6 peers are not supported yet. */
		if (m->msg_namelen < sizeof(struct sockaddr_in6))
			return -EINVAL;
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

/*
 * Validate the control messages and collect the SOL_RDS ones in @cm.
 * Every cmsg must be well formed; SOL_RDS ones must be of a known type
 * and size, and a message carries one operation (RDMA or atomic) and one
 * cookie for the peer (RDMA_DEST or RDMA_MAP) at most.  What the
 * arguments say is checked later, by rdsd_op_parse().
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
		default:
			/* RDS_CMSG_ZCOPY_COOKIE needs MSG_ZEROCOPY, refused */
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

/* Queue @msg on the socket and the connection if the send buffer allows. */
static bool rdsd_send_queue(struct rdsd_sock *rs, struct rdsd_conn *conn,
			    struct rdsd_msg *msg)
{
	bool queued = false;

	spin_lock_bh(&rs->lock);
	/*
	 * Compare the bytes queued before this message, so the last message
	 * may overshoot the buffer: otherwise poll() could report room that
	 * no message fits into.
	 */
	if (rs->snd_bytes < rdsd_sndbuf(rs)) {
		rs->snd_bytes += msg->len;
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
		rs->snd_bytes -= msg->len;
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
 * @seq: highest acknowledged sequence number.
 *
 * Any context.
 */
void rdsd_send_acked(struct rdsd_conn *conn, u64 seq)
{
	struct rdsd_msg *msg, *tmp;
	LIST_HEAD(done);

	spin_lock_bh(&conn->lock);
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
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_send_acked);

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
 * that finds no memory goes unanswered, as a lost one would.
 */
void rdsd_send_pong(struct rdsd_conn *conn, const struct rdsd_msg *probe)
{
	struct rdsd_conn *back = conn;
	struct rdsd_msg *msg;

	if (conn->laddr != probe->daddr) {
		back = rdsd_conn_get_outgoing(conn->rn, conn->trans,
					      probe->daddr, probe->saddr,
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

/**
 * rdsd_cancel_sent_to - the RDS_CANCEL_SENT_TO socket option
 * @rs: socket.
 * @optval: a struct sockaddr_in naming the destination address and port.
 * @optlen: its length.
 *
 * Drops the socket's messages to that destination that no transport has
 * taken yet.  Messages already handed to a transport are on the wire and
 * complete normally.
 */
int rdsd_cancel_sent_to(struct rdsd_sock *rs, sockptr_t optval,
			unsigned int optlen)
{
	struct rdsd_msg *msg, *tmp;
	struct sockaddr_in sin;
	LIST_HEAD(done);

	if (!READ_ONCE(rs->bound_addr))
		return -ENOTCONN;
	if (optlen < sizeof(sin))
		return -EINVAL;
	if (copy_from_sockptr(&sin, optval, sizeof(sin)))
		return -EFAULT;

	spin_lock_bh(&rs->lock);
	list_for_each_entry_safe(msg, tmp, &rs->send_queue, sock_item) {
		struct rdsd_conn *conn = msg->conn;

		if (msg->daddr != sin.sin_addr.s_addr ||
		    msg->dport != sin.sin_port)
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

/* Get the connection to @daddr, through the socket's cache; sk_lock held. */
static struct rdsd_conn *rdsd_send_conn(struct rdsd_sock *rs, __be32 daddr)
{
	struct rdsd_conn *conn = rs->conn;

	if (conn && conn->faddr == daddr) {
		refcount_inc(&conn->refs);
		return conn;
	}
	conn = rdsd_conn_get_outgoing(rdsd_sk_net(rs), rs->trans,
				      rs->bound_addr, daddr, GFP_KERNEL);
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
	__be32 daddr, saddr;
	__be16 dport, sport;
	int ret;

	if (m->msg_flags & ~(MSG_DONTWAIT | MSG_CMSG_COMPAT | MSG_ZEROCOPY))
		return -EOPNOTSUPP;

	ret = rdsd_send_dest(rs, m, &daddr, &dport);
	if (ret)
		return ret;

	lock_sock(sk);
	saddr = rs->bound_addr;
	sport = rs->bound_port;
	if (!saddr || !daddr) {
		release_sock(sk);
		return -ENOTCONN;
	}
	conn = rdsd_send_conn(rs, daddr);
	release_sock(sk);
	if (IS_ERR(conn))
		return PTR_ERR(conn);

	ret = rdsd_cmsg_parse(m, &cm);
	if (ret)
		goto out_conn;

	ret = -EMSGSIZE;
	if (payload_len > RDSD_MAX_MSG_SIZE || payload_len > rdsd_sndbuf(rs))
		goto out_conn;

	ret = -EOPNOTSUPP;	/* no transport sends from user pages yet */
	if ((m->msg_flags & MSG_ZEROCOPY) && sock_flag(sk, SOCK_ZEROCOPY))
		goto out_conn;

	ret = rdsd_cong_wait(rs, conn->fcong, dport, nonblock, &timeo);
	if (ret)
		goto out_conn;

	ret = -ENOMEM;
	msg = rdsd_msg_alloc(payload_len, sk->sk_allocation);
	if (!msg)
		goto out_conn;
	ret = rdsd_msg_copy_from_iter(rn, msg, &m->msg_iter);
	if (ret)
		goto out_msg;
	ret = rdsd_op_parse(rs, conn, &cm, msg);
	if (ret)
		goto out_msg;
	msg->saddr = saddr;
	msg->sport = sport;
	msg->daddr = daddr;
	msg->dport = dport;

	while (!rdsd_send_queue(rs, conn, msg)) {
		long t;

		rdsd_stat_inc(rn, send_queue_full);
		ret = -EAGAIN;
		if (nonblock)
			goto out_msg;
		ret = sock_intr_errno(timeo);
		if (signal_pending(current))
			goto out_msg;
		t = wait_event_interruptible_timeout(*sk_sleep(sk),
						     rdsd_send_queue(rs, conn,
								     msg),
						     timeo);
		if (t > 0)
			break;	/* the condition queued the message */
		/* as Linux RDS: a send timeout is ETIMEDOUT, not EAGAIN */
		ret = t ? sock_intr_errno(timeo) : -ETIMEDOUT;
		goto out_msg;
	}

	rdsd_stat_inc(rn, send_queued);
	rdsd_stat_add(rn, send_bytes, payload_len);
	rdsd_conn_xmit(conn);
	ret = payload_len;
out_msg:
	rdsd_msg_put(msg);	/* this call's reference */
out_conn:
	rdsd_conn_put(conn);
	return ret;
}
