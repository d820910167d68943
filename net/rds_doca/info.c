// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca RDS_INFO_* getsockopts.
 *
 * The snapshots Linux RDS tools read (rds-info): counters, connections,
 * sockets and the messages queued on them, in Linux's packed structures
 * and with its length protocol.  The caller's buffer length is the room
 * for the snapshot; a snapshot that does not fit fails with ENOSPC and
 * *optlen set to the length needed (a length of 0 probes).  Otherwise the
 * snapshot is copied, *optlen is its length and the call returns the size
 * of one entry.
 *
 * Every object is that of the caller's network namespace.  A snapshot is
 * built in a zeroed kernel buffer under the locks of the objects it
 * reads, then copied out, so no byte leaves uninitialised (padding
 * included).
 *
 * The RDS6_INFO_* forms list every object, an IPv4 one with IPv4-mapped
 * addresses; the IPv4 forms list the IPv4 objects only, as in Linux.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rds_doca.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <linux/uaccess.h>

#include "rdsd.h"
#include "conn.h"
#include "info.h"
#include "stats.h"
#include "transport.h"

/* Largest snapshot copied out. */
#define RDSD_INFO_MAX		(16 << 20)

/**
 * struct rdsd_info - a snapshot being built
 * @data: room for @cap bytes, zeroed.
 * @cap: bytes of room.
 * @each: size of one entry.
 * @nr: entries seen; those past @cap are counted, not stored.
 * @v6: the RDS6_INFO_* form.
 */
struct rdsd_info {
	u8	*data;
	size_t	cap;
	size_t	each;
	u32	nr;
	bool	v6;
};

/* The next entry to fill, or NULL when it only counts. */
static void *rdsd_info_next(struct rdsd_info *in)
{
	void *p = NULL;

	if ((size_t)(in->nr + 1) * in->each <= in->cap)
		p = in->data + (size_t)in->nr * in->each;
	in->nr++;
	return p;
}

/*
 * Linux RDS's counters that rds_doca counts too, under Linux's names
 * (net/rds/stats.c), listed first in drop-in mode so that scripts written
 * for Linux find theirs.  Documentation/rds_doca.rst has the whole table.
 */
#define RDSD_LINUX_STAT(name, f)	{ name, RDSD_STAT_OFFSET(f) }

static const struct rdsd_stat_desc rdsd_linux_stat_descs[] = {
	RDSD_LINUX_STAT("recv_drop_old_seq", recv_drop_old_seq),
	RDSD_LINUX_STAT("recv_drop_no_sock", recv_drop_no_sock),
	RDSD_LINUX_STAT("recv_drop_dead_sock", recv_drop_dead_sock),
	/* Linux's recv_queued: queued on the socket; rds_doca's delivered */
	RDSD_LINUX_STAT("recv_queued", recv_delivered),
	RDSD_LINUX_STAT("recv_ping", recv_ping),
	RDSD_LINUX_STAT("send_queue_full", send_queue_full),
	RDSD_LINUX_STAT("send_queued", send_queued),
	RDSD_LINUX_STAT("cong_update_received", cong_update_received),
	RDSD_LINUX_STAT("cong_send_error", send_cong_error),
	RDSD_LINUX_STAT("cong_send_blocked", send_cong_blocked),
	RDSD_LINUX_STAT("recv_bytes_added_to_sock", recv_bytes),
	/* Linux counts every path reset; rds_doca those of IB paths up */
	RDSD_LINUX_STAT("conn_reset", conn_reset),
};

static void rdsd_info_counter(struct rdsd_net *rn, struct rdsd_info *in,
			      const struct rdsd_stat_desc *desc)
{
	struct rds_info_counter *c = rdsd_info_next(in);

	if (!c)
		return;
	strscpy(c->name, desc->name, sizeof(c->name));
	c->value = rdsd_stat_read(rn, desc->offset);
}

/* Is @name one of the Linux names listed first? */
static bool rdsd_info_linux_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rdsd_linux_stat_descs); i++)
		if (!strcmp(rdsd_linux_stat_descs[i].name, name))
			return true;
	return false;
}

/*
 * As family 21 (drop-in): Linux's names first, then rds_doca's own that
 * are not among them; under its own family: rds_doca's names only.
 */
static void rdsd_info_counters(struct rdsd_net *rn, struct rdsd_info *in)
{
	bool dropin = rdsd_family == AF_RDS;
	unsigned int i;

	in->each = sizeof(struct rds_info_counter);
	if (dropin)
		for (i = 0; i < ARRAY_SIZE(rdsd_linux_stat_descs); i++)
			rdsd_info_counter(rn, in, &rdsd_linux_stat_descs[i]);
	for (i = 0; i < rdsd_nr_stats; i++) {
		if (dropin && rdsd_info_linux_name(rdsd_stat_descs[i].name))
			continue;
		rdsd_info_counter(rn, in, &rdsd_stat_descs[i]);
	}
}

static u8 rdsd_info_conn_flags(struct rdsd_conn *conn)
{
	u8 flags;

	spin_lock_bh(&conn->lock);
	flags = conn->state == RDSD_CONN_UP ?
		RDS_INFO_CONNECTION_FLAG_CONNECTED :
		conn->state == RDSD_CONN_CONNECTING ?
		RDS_INFO_CONNECTION_FLAG_CONNECTING : 0;
	spin_unlock_bh(&conn->lock);
	if (test_bit(RDSD_CONN_IN_XMIT, &conn->flags))
		flags |= RDS_INFO_CONNECTION_FLAG_SENDING;
	return flags;
}

static void rdsd_info_conn_fill(struct rdsd_info *in, struct rdsd_conn *conn)
{
	struct rds6_info_connection *c6;
	struct rds_info_connection *c;
	void *p;

	/* as Linux: the IPv4 forms list IPv4 objects only */
	if (!in->v6 && !rdsd_addr_is4(&conn->laddr))
		return;
	p = rdsd_info_next(in);
	if (!p)
		return;
	if (in->v6) {
		c6 = p;
		c6->next_tx_seq = READ_ONCE(conn->next_tx_seq);
		c6->next_rx_seq = READ_ONCE(conn->next_rx_seq);
		c6->laddr = conn->laddr;
		c6->faddr = conn->faddr;
		strscpy(c6->transport, conn->trans->name,
			sizeof(c6->transport));
		c6->flags = rdsd_info_conn_flags(conn);
		return;
	}
	c = p;
	c->next_tx_seq = READ_ONCE(conn->next_tx_seq);
	c->next_rx_seq = READ_ONCE(conn->next_rx_seq);
	c->laddr = rdsd_addr4(&conn->laddr);
	c->faddr = rdsd_addr4(&conn->faddr);
	strscpy(c->transport, conn->trans->name, sizeof(c->transport));
	c->flags = rdsd_info_conn_flags(conn);
	c->tos = conn->tos;
}

static void rdsd_info_connections(struct rdsd_net *rn, struct rdsd_info *in)
{
	struct rdsd_conn *conn = NULL;

	in->each = in->v6 ? sizeof(struct rds6_info_connection) :
		   sizeof(struct rds_info_connection);
	rcu_read_lock();
	while ((conn = rdsd_conn_next_rcu(rn, conn)))
		rdsd_info_conn_fill(in, conn);
	rcu_read_unlock();
}

/* Both forms of an IB connection share their layout from the GIDs on. */
#define RDSD_INFO_RDMA_TAIL	(sizeof(struct rds_info_rdma_connection) - \
				 offsetof(struct rds_info_rdma_connection, \
					  src_gid))
static_assert(sizeof(struct rds6_info_rdma_connection) -
	      offsetof(struct rds6_info_rdma_connection, src_gid) ==
	      RDSD_INFO_RDMA_TAIL);
static_assert(offsetof(struct rds6_info_rdma_connection, cache_allocs) -
	      offsetof(struct rds6_info_rdma_connection, src_gid) ==
	      offsetof(struct rds_info_rdma_connection, cache_allocs) -
	      offsetof(struct rds_info_rdma_connection, src_gid));
static_assert(offsetof(struct rds6_info_rdma_connection, sl) -
	      offsetof(struct rds6_info_rdma_connection, src_gid) ==
	      offsetof(struct rds_info_rdma_connection, sl) -
	      offsetof(struct rds_info_rdma_connection, src_gid));

/* One IB connection, in the form @in asks for. */
static void rdsd_info_ib_fill(struct rdsd_info *in, struct rdsd_conn *conn)
{
	struct rds_info_rdma_connection r = {};
	struct rds6_info_rdma_connection *r6;
	struct rdsd_conn_info ci = {};
	void *p;

	if (!in->v6 && !rdsd_addr_is4(&conn->laddr))
		return;
	p = rdsd_info_next(in);
	if (!p)
		return;
	conn->trans->conn_info(conn, &ci);
	r.src_addr = rdsd_addr4(&conn->laddr);
	r.dst_addr = rdsd_addr4(&conn->faddr);
	memcpy(r.src_gid, ci.sgid, sizeof(r.src_gid));
	memcpy(r.dst_gid, ci.dgid, sizeof(r.dst_gid));
	r.max_send_wr = ci.max_send_wr;
	r.max_recv_wr = ci.max_recv_wr;
	r.max_send_sge = ci.max_send_sge;
	r.rdma_mr_max = ci.mr_max;
	r.rdma_mr_size = ci.mr_size;
	r.sl = ci.sl;
	r.tos = conn->tos;
	if (!in->v6) {
		memcpy(p, &r, sizeof(r));
		return;
	}
	/* the same fields from the GIDs on, padding included */
	r6 = p;
	r6->src_addr = conn->laddr;
	r6->dst_addr = conn->faddr;
	memcpy((u8 *)r6 + offsetof(typeof(*r6), src_gid),
	       (u8 *)&r + offsetof(typeof(r), src_gid), RDSD_INFO_RDMA_TAIL);
}

/* The IB connections and what their queue pairs are made of. */
static void rdsd_info_ib_connections(struct rdsd_net *rn,
				     struct rdsd_info *in)
{
	struct rdsd_conn *conn;
	unsigned long id = 0;

	in->each = in->v6 ? sizeof(struct rds6_info_rdma_connection) :
		   sizeof(struct rds_info_rdma_connection);
	/* ->conn_info sleeps: hold each connection by reference */
	for (; (conn = rdsd_conn_get_next(rn, &id)); id++) {
		if (conn->trans->type == RDSD_TRANS_IB &&
		    conn->trans->conn_info)
			rdsd_info_ib_fill(in, conn);
		rdsd_conn_put(conn);
	}
}

/* Both forms of a TCP socket share their counters, from hdr_rem on. */
#define RDSD_INFO_TCP_TAIL	(offsetof(struct rds_info_tcp_socket, tos) - \
				 offsetof(struct rds_info_tcp_socket, hdr_rem))
static_assert(sizeof(struct rds6_info_tcp_socket) -
	      offsetof(struct rds6_info_tcp_socket, hdr_rem) ==
	      RDSD_INFO_TCP_TAIL);

/* One TCP connection's socket, in the form @in asks for. */
static void rdsd_info_tcp_fill(struct rdsd_info *in, struct rdsd_conn *conn,
			       const struct rdsd_conn_info *ci)
{
	struct rds_info_tcp_socket t = {};
	struct rds6_info_tcp_socket *t6;
	void *p;

	if (!in->v6 && !rdsd_addr_is4(&conn->laddr))
		return;
	p = rdsd_info_next(in);
	if (!p)
		return;
	t.local_addr = rdsd_addr4(&conn->laddr);
	t.local_port = ci->tcp_lport;
	t.peer_addr = rdsd_addr4(&conn->faddr);
	t.peer_port = ci->tcp_fport;
	t.hdr_rem = ci->tcp_hdr_rem;
	t.data_rem = ci->tcp_data_rem;
	t.last_sent_nxt = ci->tcp_snd_nxt;
	t.last_expected_una = ci->tcp_write_seq;
	t.last_seen_una = ci->tcp_snd_una;
	t.tos = conn->tos;
	if (!in->v6) {
		memcpy(p, &t, sizeof(t));
		return;
	}
	t6 = p;
	t6->local_addr = conn->laddr;
	t6->local_port = t.local_port;
	t6->peer_addr = conn->faddr;
	t6->peer_port = t.peer_port;
	memcpy((u8 *)t6 + offsetof(typeof(*t6), hdr_rem),
	       (u8 *)&t + offsetof(typeof(t), hdr_rem), RDSD_INFO_TCP_TAIL);
}

/* The TCP transport's connections that have a socket. */
static void rdsd_info_tcp_sockets(struct rdsd_net *rn, struct rdsd_info *in)
{
	struct rdsd_conn *conn;
	unsigned long id = 0;

	in->each = in->v6 ? sizeof(struct rds6_info_tcp_socket) :
		   sizeof(struct rds_info_tcp_socket);
	/* ->conn_info sleeps: hold each connection by reference */
	for (; (conn = rdsd_conn_get_next(rn, &id)); id++) {
		struct rdsd_conn_info ci = {};

		if (conn->trans->type == RDSD_TRANS_TCP &&
		    conn->trans->conn_info) {
			conn->trans->conn_info(conn, &ci);
			if (ci.has_tcp)
				rdsd_info_tcp_fill(in, conn, &ci);
		}
		rdsd_conn_put(conn);
	}
}

/*
 * One message; as in Linux, "local" is the sender for queued sends and
 * the receiving socket for received messages (@received).
 */
static void rdsd_info_msg_fill(struct rdsd_info *in,
			       const struct rdsd_msg *msg, bool received)
{
	const struct in6_addr *laddr = received ? &msg->daddr : &msg->saddr;
	const struct in6_addr *faddr = received ? &msg->saddr : &msg->daddr;
	__be16 lport = received ? msg->dport : msg->sport;
	__be16 fport = received ? msg->sport : msg->dport;
	struct rds6_info_message *m6;
	struct rds_info_message *m;
	void *p;

	if (!in->v6 && !rdsd_addr_is4(laddr))
		return;
	p = rdsd_info_next(in);
	if (!p)
		return;
	if (in->v6) {
		m6 = p;
		m6->seq = msg->seq;
		m6->len = msg->len;
		m6->laddr = *laddr;
		m6->faddr = *faddr;
		m6->lport = lport;
		m6->fport = fport;
		return;
	}
	m = p;
	m->seq = msg->seq;
	m->len = msg->len;
	m->laddr = rdsd_addr4(laddr);
	m->faddr = rdsd_addr4(faddr);
	m->lport = lport;
	m->fport = fport;
}

/* Messages waiting on each connection for the peer's acknowledgment. */
static void rdsd_info_retrans(struct rdsd_net *rn, struct rdsd_info *in)
{
	struct rdsd_conn *conn = NULL;
	struct rdsd_msg *msg;

	in->each = in->v6 ? sizeof(struct rds6_info_message) :
		   sizeof(struct rds_info_message);
	rcu_read_lock();
	while ((conn = rdsd_conn_next_rcu(rn, conn))) {
		spin_lock_bh(&conn->lock);
		list_for_each_entry(msg, &conn->retrans, conn_item)
			rdsd_info_msg_fill(in, msg, false);
		spin_unlock_bh(&conn->lock);
	}
	rcu_read_unlock();
}

static void rdsd_info_sock_fill(struct rdsd_info *in, struct rdsd_sock *rs)
{
	struct in6_addr bound = {}, peer;
	struct rds6_info_socket *s6;
	struct rds_info_socket *s;
	__be16 bport = 0, pport;
	void *p;

	if (rdsd_sk_bound(rs)) {
		bound = rs->bound_addr;
		bport = rs->bound_port;
	}
	spin_lock_bh(&rs->lock);
	peer = rs->conn_addr;
	pport = rs->conn_port;
	spin_unlock_bh(&rs->lock);
	/* the IPv4 form lists the sockets that are not IPv6 ones */
	if (!in->v6 && !ipv6_addr_any(&bound) && !rdsd_addr_is4(&bound))
		return;
	p = rdsd_info_next(in);
	if (!p)
		return;
	if (in->v6) {
		s6 = p;
		s6->sndbuf = rdsd_sndbuf(rs);
		s6->rcvbuf = rdsd_rcvbuf(rs);
		s6->bound_addr = bound;
		s6->bound_port = bport;
		s6->connected_addr = peer;
		s6->connected_port = pport;
		s6->inum = sock_i_ino(&rs->sk);
		return;
	}
	s = p;
	s->sndbuf = rdsd_sndbuf(rs);
	s->rcvbuf = rdsd_rcvbuf(rs);
	s->bound_addr = rdsd_addr4(&bound);
	s->bound_port = bport;
	s->connected_addr = rdsd_addr_is4(&peer) ? rdsd_addr4(&peer) : 0;
	s->connected_port = pport;
	s->inum = sock_i_ino(&rs->sk);
}

/*
 * Sockets, or the messages on their send or receive queues; @what is
 * the IPv4 form of the snapshot.
 */
static void rdsd_info_sockets(struct rdsd_net *rn, struct rdsd_info *in,
			      int what)
{
	struct rdsd_sock *rs;
	struct rdsd_msg *msg;
	unsigned long id;

	if (what == RDS_INFO_SOCKETS)
		in->each = in->v6 ? sizeof(struct rds6_info_socket) :
			   sizeof(struct rds_info_socket);
	else
		in->each = in->v6 ? sizeof(struct rds6_info_message) :
			   sizeof(struct rds_info_message);
	/* a socket is freed a grace period after it left the table */
	rcu_read_lock();
	xa_for_each(&rn->socks, id, rs) {
		switch (what) {
		case RDS_INFO_SOCKETS:
			rdsd_info_sock_fill(in, rs);
			break;
		case RDS_INFO_SEND_MESSAGES:
			spin_lock_bh(&rs->lock);
			list_for_each_entry(msg, &rs->send_queue, sock_item)
				rdsd_info_msg_fill(in, msg, false);
			spin_unlock_bh(&rs->lock);
			break;
		default:	/* RDS_INFO_RECV_MESSAGES */
			spin_lock_bh(&rs->recv_lock);
			list_for_each_entry(msg, &rs->recv_queue, recv_item)
				rdsd_info_msg_fill(in, msg, true);
			spin_unlock_bh(&rs->recv_lock);
			break;
		}
	}
	rcu_read_unlock();
}

/* The IPv4 snapshot an RDS6_INFO_* one lists in its own structures. */
static int rdsd_info_v4_form(int optname)
{
	switch (optname) {
	case RDS6_INFO_CONNECTIONS:
		return RDS_INFO_CONNECTIONS;
	case RDS6_INFO_SEND_MESSAGES:
		return RDS_INFO_SEND_MESSAGES;
	case RDS6_INFO_RETRANS_MESSAGES:
		return RDS_INFO_RETRANS_MESSAGES;
	case RDS6_INFO_RECV_MESSAGES:
		return RDS_INFO_RECV_MESSAGES;
	case RDS6_INFO_SOCKETS:
		return RDS_INFO_SOCKETS;
	case RDS6_INFO_TCP_SOCKETS:
		return RDS_INFO_TCP_SOCKETS;
	default:
		return RDS_INFO_IB_CONNECTIONS;
	}
}

/**
 * rdsd_info_getsockopt - getsockopt(SOL_RDS, RDS_INFO_*)
 * @rs: the calling socket; its namespace is the one shown.
 * @optname: RDS_INFO_FIRST .. RDS_INFO_LAST.
 * @optval: the caller's buffer.
 * @optlen: in, its length; out, the snapshot's.
 *
 * Returns the size of one entry, -ENOSPC with *optlen the length needed,
 * -ENOPROTOOPT for a snapshot rds_doca does not provide (that of the
 * iWARP transport, the per-connection statistics), -EINVAL for
 * a negative length, -EFAULT or -ENOMEM.
 */
int rdsd_info_getsockopt(struct rdsd_sock *rs, int optname,
			 char __user *optval, int __user *optlen)
{
	struct rdsd_net *rn = rdsd_sk_net(rs);
	struct rdsd_info in = {};
	size_t total;
	int len, ret;

	switch (optname) {
	case RDS6_INFO_CONNECTIONS:
	case RDS6_INFO_SEND_MESSAGES:
	case RDS6_INFO_RETRANS_MESSAGES:
	case RDS6_INFO_RECV_MESSAGES:
	case RDS6_INFO_SOCKETS:
	case RDS6_INFO_IB_CONNECTIONS:
	case RDS6_INFO_TCP_SOCKETS:
		in.v6 = true;
		optname = rdsd_info_v4_form(optname);
		break;
	case RDS_INFO_COUNTERS:
	case RDS_INFO_CONNECTIONS:
	case RDS_INFO_SEND_MESSAGES:
	case RDS_INFO_RETRANS_MESSAGES:
	case RDS_INFO_RECV_MESSAGES:
	case RDS_INFO_SOCKETS:
	case RDS_INFO_IB_CONNECTIONS:
	case RDS_INFO_TCP_SOCKETS:
		break;
	default:
		return -ENOPROTOOPT;
	}
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	in.cap = min(len, RDSD_INFO_MAX);
	if (in.cap) {
		in.data = kvzalloc(in.cap, GFP_KERNEL);
		if (!in.data)
			return -ENOMEM;
	}

	switch (optname) {
	case RDS_INFO_COUNTERS:
		rdsd_info_counters(rn, &in);
		break;
	case RDS_INFO_CONNECTIONS:
		rdsd_info_connections(rn, &in);
		break;
	case RDS_INFO_RETRANS_MESSAGES:
		rdsd_info_retrans(rn, &in);
		break;
	case RDS_INFO_IB_CONNECTIONS:
		rdsd_info_ib_connections(rn, &in);
		break;
	case RDS_INFO_TCP_SOCKETS:
		rdsd_info_tcp_sockets(rn, &in);
		break;
	default:
		rdsd_info_sockets(rn, &in, optname);
		break;
	}

	total = (size_t)in.nr * in.each;
	if (total > in.cap) {
		ret = total > INT_MAX ? -ENOMEM : -ENOSPC;
	} else {
		ret = in.each;
		if (total && copy_to_user(optval, in.data, total))
			ret = -EFAULT;
	}
	if (ret != -ENOMEM && put_user((int)min_t(size_t, total, INT_MAX),
				       optlen))
		ret = -EFAULT;
	kvfree(in.data);
	return ret;
}
