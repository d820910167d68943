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
 * reads, then copied out, so no byte leaves uninitialised.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rds_doca.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rdsd.h"

/* Largest snapshot copied out. */
#define RDSD_INFO_MAX		(16 << 20)

/**
 * struct rdsd_info - a snapshot being built
 * @data: room for @cap bytes, zeroed.
 * @cap: bytes of room.
 * @each: size of one entry.
 * @nr: entries seen; those past @cap are counted, not stored.
 */
struct rdsd_info {
	u8	*data;
	size_t	cap;
	size_t	each;
	u32	nr;
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

static void rdsd_info_counters(struct rdsd_net *rn, struct rdsd_info *in)
{
	unsigned int i;

	in->each = sizeof(struct rds_info_counter);
	for (i = 0; i < rdsd_nr_stats; i++) {
		struct rds_info_counter *c = rdsd_info_next(in);

		if (!c)
			continue;
		strscpy(c->name, rdsd_stat_descs[i].name, sizeof(c->name));
		c->value = rdsd_stat_read(rn, rdsd_stat_descs[i].offset);
	}
}

static void rdsd_info_connections(struct rdsd_net *rn, struct rdsd_info *in)
{
	struct rdsd_conn *conn;
	unsigned int b;

	in->each = sizeof(struct rds_info_connection);
	rcu_read_lock();
	for (b = 0; b < ARRAY_SIZE(rn->conn_hash); b++) {
		hlist_for_each_entry_rcu(conn, &rn->conn_hash[b], hash_node) {
			struct rds_info_connection *c = rdsd_info_next(in);

			if (!c)
				continue;
			spin_lock_bh(&conn->lock);
			c->next_tx_seq = conn->next_tx_seq;
			c->flags = conn->state == RDSD_CONN_UP ?
				   RDS_INFO_CONNECTION_FLAG_CONNECTED :
				   conn->state == RDSD_CONN_CONNECTING ?
				   RDS_INFO_CONNECTION_FLAG_CONNECTING : 0;
			spin_unlock_bh(&conn->lock);
			if (test_bit(RDSD_CONN_IN_XMIT, &conn->flags))
				c->flags |= RDS_INFO_CONNECTION_FLAG_SENDING;
			c->next_rx_seq = READ_ONCE(conn->next_rx_seq);
			c->laddr = conn->laddr;
			c->faddr = conn->faddr;
			strscpy(c->transport, conn->trans->name,
				sizeof(c->transport));
		}
	}
	rcu_read_unlock();
}

/*
 * One message; as in Linux, "local" is the sender for queued sends and
 * the receiving socket for received messages (@received).
 */
static void rdsd_info_msg_fill(struct rds_info_message *m,
			       const struct rdsd_msg *msg, bool received)
{
	m->seq = msg->seq;
	m->len = msg->len;
	m->laddr = received ? msg->daddr : msg->saddr;
	m->faddr = received ? msg->saddr : msg->daddr;
	m->lport = received ? msg->dport : msg->sport;
	m->fport = received ? msg->sport : msg->dport;
}

/* Messages waiting on each connection for the peer's acknowledgment. */
static void rdsd_info_retrans(struct rdsd_net *rn, struct rdsd_info *in)
{
	struct rdsd_conn *conn;
	struct rdsd_msg *msg;
	unsigned int b;

	in->each = sizeof(struct rds_info_message);
	rcu_read_lock();
	for (b = 0; b < ARRAY_SIZE(rn->conn_hash); b++) {
		hlist_for_each_entry_rcu(conn, &rn->conn_hash[b], hash_node) {
			spin_lock_bh(&conn->lock);
			list_for_each_entry(msg, &conn->retrans, conn_item) {
				struct rds_info_message *m =
					rdsd_info_next(in);

				if (m)
					rdsd_info_msg_fill(m, msg, false);
			}
			spin_unlock_bh(&conn->lock);
		}
	}
	rcu_read_unlock();
}

/* Sockets, or the messages on their send or receive queues. */
static void rdsd_info_sockets(struct rdsd_net *rn, struct rdsd_info *in,
			      int what)
{
	struct rdsd_sock *rs;
	struct rdsd_msg *msg;
	unsigned long id;

	in->each = what == RDS_INFO_SOCKETS ? sizeof(struct rds_info_socket) :
		   sizeof(struct rds_info_message);
	/* a socket is freed a grace period after it left the table */
	rcu_read_lock();
	xa_for_each(&rn->socks, id, rs) {
		struct rds_info_socket *s;

		switch (what) {
		case RDS_INFO_SOCKETS:
			s = rdsd_info_next(in);
			if (!s)
				break;
			s->sndbuf = rdsd_sndbuf(rs);
			s->rcvbuf = rdsd_rcvbuf(rs);
			s->bound_addr = READ_ONCE(rs->bound_addr);
			s->bound_port = READ_ONCE(rs->bound_port);
			s->connected_addr = READ_ONCE(rs->conn_addr);
			s->connected_port = READ_ONCE(rs->conn_port);
			s->inum = sock_i_ino(&rs->sk);
			break;
		case RDS_INFO_SEND_MESSAGES:
			spin_lock_bh(&rs->lock);
			list_for_each_entry(msg, &rs->send_queue, sock_item) {
				struct rds_info_message *m =
					rdsd_info_next(in);

				if (m)
					rdsd_info_msg_fill(m, msg, false);
			}
			spin_unlock_bh(&rs->lock);
			break;
		default:	/* RDS_INFO_RECV_MESSAGES */
			spin_lock_bh(&rs->recv_lock);
			list_for_each_entry(msg, &rs->recv_queue, recv_item) {
				struct rds_info_message *m =
					rdsd_info_next(in);

				if (m)
					rdsd_info_msg_fill(m, msg, true);
			}
			spin_unlock_bh(&rs->recv_lock);
			break;
		}
	}
	rcu_read_unlock();
}

/**
 * rdsd_info_getsockopt - getsockopt(SOL_RDS, RDS_INFO_*)
 * @rs: the calling socket; its namespace is the one shown.
 * @optname: RDS_INFO_FIRST .. RDS_INFO_LAST.
 * @optval: the caller's buffer.
 * @optlen: in, its length; out, the snapshot's.
 *
 * Returns the size of one entry, -ENOSPC with *optlen the length needed,
 * -ENOPROTOOPT for a snapshot rds_doca does not provide (IPv6 and
 * transport specific ones), -EINVAL for a negative length, -EFAULT or
 * -ENOMEM.
 */
int rdsd_info_getsockopt(struct rdsd_sock *rs, int optname,
			 char __user *optval, int __user *optlen)
{
	struct rdsd_net *rn = rdsd_sk_net(rs);
	struct rdsd_info in = {};
	size_t total;
	int len, ret;

	switch (optname) {
	case RDS_INFO_COUNTERS:
	case RDS_INFO_CONNECTIONS:
	case RDS_INFO_SEND_MESSAGES:
	case RDS_INFO_RETRANS_MESSAGES:
	case RDS_INFO_RECV_MESSAGES:
	case RDS_INFO_SOCKETS:
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
