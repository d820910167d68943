/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca core types.
 *
 * Four objects carry the whole socket family:
 *
 *  - struct rdsd_net, one per network namespace (net_generic): the bind
 *    table, the connection table, the congestion maps and the counters of
 *    that namespace.  Created and destroyed by the pernet operations.
 *  - struct rdsd_sock, one per socket, embedding its struct sock.  Freed by
 *    the last sock_put() after an RCU grace period (SOCK_RCU_FREE), so the
 *    lock-free bind table lookup may look at a socket that is closing.
 *  - struct rdsd_conn, one per (namespace, local address, peer address,
 *    transport).  Created on first send (or a peer's request), kept in the
 *    connection table (which holds one reference) until it has been idle
 *    for conn_idle_secs (conn.c) or the namespace goes away; at most
 *    max_conns per namespace.
 *  - struct rdsd_msg, one per datagram: the header, the payload pages and,
 *    on the sending side, its place on the socket and connection queues.
 *    Reference counted; see message.c for who holds references.
 *
 * Lock nesting, outermost first:
 *   sk_lock (lock_sock) -> rs->recv_lock -> rn->monitor_lock -> rs->lock
 *	-> conn->lock
 *   a transport's send completion lock (IB: tp->send_lock) -> rs->recv_lock:
 *	completing an operation queues its notice (rdsd_op_complete()), and
 *	so may the last put of a message or an operation; so
 *	->cong_changed, called under rs->recv_lock, takes no such lock;
 *   rn->bind_lock, rn->conn_lock, rn->cong_lock and map->conns_lock take
 *   no other lock;
 *   the lock of rn->socks and rn->conns takes no other lock either:
 *   readers walk them under RCU and take the objects' locks after.
 * All of rs->lock, rs->recv_lock and conn->lock are taken with bottom halves
 * disabled: transports complete sends and deliver messages from softirq.
 */
#ifndef _RDSD_H
#define _RDSD_H

#include <linux/in.h>
#include <linux/inet.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/sockptr.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <kunit/visibility.h>

struct rdsd_cong_map;
struct rdsd_op;
struct rdsd_stats;
struct rdsd_transport_ops;
struct rdsd_zcopy;

#define RDSD_VERSION		"1.0"
#define RDSD_MAX_MSG_SIZE	SZ_1M		/* as Linux RDS */
/* the most RDS_DOCA_MSG_MAX may raise a socket's limit to */
#define RDSD_MSG_SIZE_LIMIT	SZ_64M
/* MSG_ZEROCOPY sends in flight plus unread completions, per socket */
#define RDSD_ZCOPY_MAX		1024
/* a MSG_ZEROCOPY send of this many bytes or more asks for a prompt ack */
#define RDSD_ZCOPY_ACK_REQ_MIN	SZ_8K
/* a message asks for a prompt ack at least once in this many bytes */
#define RDSD_ACK_REQ_MAX	SZ_512K
#define RDSD_PROBE_PORT		1		/* reserved for the ping responder */
#define RDSD_NR_PORTS		65536

/*
 * What one queued message or notice counts against its socket's receive
 * buffer at least: a message counts its payload bytes but no fewer than
 * this, a notice (RDS_CMSG_RDMA_STATUS) exactly this.  It covers what the
 * kernel keeps for it, so that empty messages (probe replies) and notices
 * are bounded by SO_RCVBUF like any data.
 */
#define RDSD_RECV_MIN_CHARGE	256

#define RDSD_BIND_HASH_BITS	10
#define RDSD_CONN_HASH_BITS	8
/* paths (connections) one pair of addresses may have */
#define RDSD_MAX_PATHS		RDS_DOCA_MAX_PATHS
#define RDSD_CONG_HASH_BITS	8

extern int rdsd_family;
extern unsigned int rdsd_max_msg_size;
extern struct workqueue_struct *rdsd_wq;

/**
 * struct rdsd_net - per network namespace state
 * @net: the namespace.
 * @bind_lock: protects @bind_hash writers and @nr_bound; readers use RCU.
 * @bind_hash: bound sockets, hashed by (address, port).
 * @conn_lock: protects @conn_hash writers; readers use RCU.
 * @conn_hash: connections, hashed by (local, peer) address.
 * @nr_conns: connections allocated, in the table or about to be.
 * @max_conns: limit of @nr_conns (module parameter max_conns).
 * @reap_work: frees idle connections (conn.c).
 * @cong_lock: protects @cong_hash writers and @nr_cong_maps; readers use
 *	RCU.
 * @cong_hash: congestion maps of this namespace, one per address, hashed
 *	by address.
 * @nr_cong_maps: maps in @cong_hash.
 * @monitor_lock: protects @cong_monitors.
 * @cong_monitors: sockets with RDS_CONG_MONITOR set.
 * @cong_generation: bumped by every congestion map update, for poll().
 * @cong_poll_waitq: poll() waiters of sockets that have seen congestion.
 * @socks: every socket of the namespace by id, from creation to release,
 *	for RDS_INFO_* (info.c) and the netlink dumps (netlink.c).  Ids
 *	are handed out cyclically (@sock_next), so a dump that resumes
 *	after the last id it showed sees every socket at most once.
 * @sock_next: next socket id to try.
 * @conns: every connection of the namespace by id, while in @conn_hash.
 * @conn_next: next connection id to try.
 * @mr_keys: registered regions by key (mr.c), XA_FLAGS_LOCK_BH.
 * @stats: per-CPU counters.
 */
struct rdsd_net {
	struct net		*net;

	/* protects bind_hash writers and nr_bound */
	spinlock_t		bind_lock;
	struct hlist_head	bind_hash[1 << RDSD_BIND_HASH_BITS];
	unsigned int		nr_bound;

	/* protects conn_hash writers */
	spinlock_t		conn_lock;
	struct hlist_head	conn_hash[1 << RDSD_CONN_HASH_BITS];
	atomic_t		nr_conns;	/* bounded by max_conns */
	unsigned int		max_conns;
	struct delayed_work	reap_work;

	/* protects cong_hash writers and nr_cong_maps */
	spinlock_t		cong_lock;
	/* bounded by the bound sockets and two per connection */
	struct hlist_head	cong_hash[1 << RDSD_CONG_HASH_BITS];
	unsigned int		nr_cong_maps;

	/* protects cong_monitors */
	spinlock_t		monitor_lock;
	struct list_head	cong_monitors;
	atomic_t		cong_generation;
	wait_queue_head_t	cong_poll_waitq;

	/* both with their own xa_lock, bottom halves off */
	struct xarray		socks;
	u32			sock_next;
	struct xarray		conns;
	u32			conn_next;

	/* regions by key; its own xa_lock protects it */
	struct xarray		mr_keys;
	/* read data answers over TCP hold (tcp_rdma.c) */
	atomic_long_t		tcp_staged;

	struct rdsd_stats __percpu *stats;
};

struct rdsd_net *rdsd_net(const struct net *net);
int rdsd_sockopt_int(sockptr_t optval, unsigned int optlen, int *val);

/*
 * Addresses.  Every address is a struct in6_addr, an IPv4 address
 * IPv4-mapped (::ffff:a.b.c.d), as in Linux RDS.  A link-local IPv6
 * address means something only on its link: the interface index goes
 * with it (its scope; 0 for every other address).
 */
static inline bool rdsd_addr_is4(const struct in6_addr *a)
{
	return ipv6_addr_v4mapped(a);
}

static inline __be32 rdsd_addr4(const struct in6_addr *a)
{
	return a->s6_addr32[3];
}

/* 127/8 or ::1 */
static inline bool rdsd_addr_loopback(const struct in6_addr *a)
{
	return rdsd_addr_is4(a) ? ipv4_is_loopback(rdsd_addr4(a)) :
				  ipv6_addr_loopback(a);
}

/* @scope if @a is link-local, else 0 */
static inline int rdsd_addr_scope(const struct in6_addr *a, int scope)
{
	/* no address type to look up for the common case: no link */
	return scope && (ipv6_addr_type(a) & IPV6_ADDR_LINKLOCAL) ? scope : 0;
}

/* a name for logs: "192.0.2.1", "2001:db8::1" or "fe80::1%2" */
#define RDSD_ADDR_STRLEN	(INET6_ADDRSTRLEN + 12)
/* "<local>-><peer>" */
#define RDSD_CONN_NAME_LEN	(2 * RDSD_ADDR_STRLEN + 2)

int rdsd_sockaddr_get(const struct sockaddr *uaddr, int len,
		      struct in6_addr *addr, __be16 *port, int *scope);
int rdsd_sockaddr_put(struct sockaddr_storage *ss, const struct in6_addr *addr,
		      __be16 port, int scope);
bool rdsd_addr_unicast(const struct in6_addr *a);
void rdsd_trace_addr(u8 *sa, const struct in6_addr *a);
int rdsd_addr_name(char *buf, size_t len, const struct in6_addr *a,
		   int scope);

enum rdsd_conn_state {
	RDSD_CONN_DOWN,
	RDSD_CONN_CONNECTING,
	RDSD_CONN_UP,
};

/* rdsd_conn.flags bits */
enum {
	RDSD_CONN_IN_XMIT,	/* one thread runs rdsd_conn_xmit() */
	RDSD_CONN_DEAD,		/* being destroyed: no new messages */
	RDSD_CONN_XMIT_AGAIN,	/* rdsd_conn_xmit() called while IN_XMIT */
	RDSD_CONN_WANTED,	/* the path is needed until up (conn->lock) */
};

/**
 * struct rdsd_conn - reliable message stream between two addresses
 * @hash_node: on rdsd_net.conn_hash, protected by rdsd_net.conn_lock.
 * @refs: the table's reference plus one per user (socket caches, work).
 * @id: its id in rdsd_net.conns, for the control plane: reserved (NULL)
 *	at allocation, pointing here once in the table, erased by the last
 *	rdsd_conn_put(); readers take a reference with refcount_inc_not_zero().
 * @rn: owning namespace.
 * @laddr: local address.
 * @faddr: peer address.
 * @scope: the link of both when they are link-local, else 0.
 * @name: "@laddr->@faddr", for logs.
 * @path: which of the paths between @laddr and @faddr it is, below
 *	RDSD_MAX_PATHS; fixed at creation.
 * @tos: the type of service of the sockets it carries (SIOCRDSSETTOS):
 *	each has connections of its own; fixed at creation.
 * @npaths: on path 0, how many paths the two ends agreed on, 1 until the
 *	transport learns it (rdsd_conn_get_outgoing()); written by the
 *	transport, read locklessly.
 * @trans: transport carrying the connection.
 * @tp: transport state, owned by @trans.
 * @lcong: congestion map of @laddr.
 * @lcong_node: on @lcong's list of connections (its conns_lock).
 * @fcong: congestion map of @faddr as last heard from the peer.
 * @lock: protects @send_queue, @retrans, @next_tx_seq and @state.
 * @state: enum rdsd_conn_state.
 * @flags: RDSD_CONN_* bits.
 * @path_epoch: paths the connection lost: rdsd_conn_down() adds one, under
 *	@lock.
 * @xmit_epoch: @path_epoch when the message being handed to the transport
 *	was taken from @send_queue; written under @lock by the holder of
 *	RDSD_CONN_IN_XMIT, read by the transport's ->xmit
 *	(rdsd_conn_xmit_stale()).
 * @next_tx_seq: sequence number of the next message queued.
 * @next_rx_seq: next sequence number expected from the peer; written only
 *	by rdsd_recv_incoming(), which the transport serializes.
 * @send_queue: messages not yet handed to the transport, in order.
 * @retrans: messages handed to the transport and not yet acknowledged.
 * @xmit_work: runs rdsd_conn_xmit() when the transport asks for a retry.
 * @rcu: frees the connection after lockless lookups are done.
 * @connects: times it came up (conn->lock).
 * @last_error: the last error that took it down, a negative errno or 0.
 * @last_acked: highest sequence number the peer acknowledged.
 * @tx_msgs: messages handed to the transport, again after a reconnect
 *	too; written under RDSD_CONN_IN_XMIT, read locklessly.
 * @tx_bytes: their payload bytes.
 * @rx_msgs: messages received and delivered or dropped by port, not
 *	duplicates; written by rdsd_recv_incoming(), read locklessly.
 * @rx_bytes: their payload bytes.
 * @pong_tokens: probe replies the connection may still send now (a token
 *	bucket of the ping_rate parameter a second, one second's worth deep).
 * @pong_stamp: when @pong_tokens was last refilled (ns, monotonic).
 *	Both written only by rdsd_send_pong() on behalf of
 *	rdsd_recv_incoming(), which the transport serializes.
 * @idle_since: jiffies when the reaper last found the connection in use
 *	or saw traffic on it (or its creation); reaper only.
 * @idle_mark: messages queued plus received when it looked; reaper only.
 */
struct rdsd_conn {
	struct hlist_node	hash_node;
	refcount_t		refs;
	u32			id;
	struct rdsd_net		*rn;
	struct in6_addr		laddr;
	struct in6_addr		faddr;
	int			scope;
	const struct rdsd_transport_ops *trans;
	void			*tp;
	struct rdsd_cong_map	*lcong;
	struct hlist_node	lcong_node;
	struct rdsd_cong_map	*fcong;

	/* protects send_queue, retrans, next_tx_seq and state */
	spinlock_t		lock;
	int			state;
	u32			path_epoch;	/* in the hole before flags */
	unsigned long		flags;
	u32			xmit_epoch;
	u64			next_tx_seq;
	u64			next_rx_seq;
	struct list_head	send_queue;
	struct list_head	retrans;

	struct work_struct	xmit_work;
	struct rcu_head		rcu;

	u32			connects;
	int			last_error;
	u64			last_acked;
	u64			tx_msgs;
	u64			tx_bytes;
	u64			rx_msgs;
	u64			rx_bytes;
	u32			pong_tokens;
	u8			path;	/* in the hole before pong_stamp */
	u8			npaths;
	u8			tos;
	u64			pong_stamp;
	unsigned long		idle_since;
	u64			idle_mark;
	char			name[RDSD_CONN_NAME_LEN];
};

/**
 * rdsd_conn_xmit_stale - was the message ->xmit holds taken for a lost path?
 * @conn: connection, its RDSD_CONN_IN_XMIT held by the caller's caller.
 *
 * The core takes a message off the send queue while the path is up and
 * hands it to the transport after: in between, the path may fail, and
 * the next one come up and have what was not acknowledged put back on the
 * queue, older messages first.  Sent at once on the new path, the message
 * would arrive ahead of those, and the receiver, which delivers in
 * sequence order, would take them for duplicates.  So ->xmit calls this
 * once it knows its path is up, under the lock that orders it with the
 * path's start (after rdsd_conn_down() of the last one), and refuses the
 * message with -EAGAIN if it returns true: the message goes again in its
 * turn.
 */
static inline bool rdsd_conn_xmit_stale(const struct rdsd_conn *conn)
{
	return READ_ONCE(conn->path_epoch) != conn->xmit_epoch;
}

/* rdsd_msg.flags bits */
enum {
	RDSD_MSG_ON_SOCK,	/* on the sender's rs->send_queue */
	RDSD_MSG_ON_CONN,	/* on conn->send_queue or conn->retrans */
	RDSD_MSG_SENT,		/* handed to the transport (on conn->retrans) */
	RDSD_MSG_SILENT,	/* RDS_RDMA_SILENT: counts, is not delivered */
	RDSD_MSG_GRANTED,	/* its cookie's key went ahead of it (ib_mr.c) */
	RDSD_MSG_ACK_REQ,	/* asks for a prompt ack (rdsd_send_ack_req()) */
};

/**
 * struct rdsd_msg - one datagram
 * @refs: see message.c.
 * @flags: RDSD_MSG_* bits.
 * @conn_item: on conn->send_queue or conn->retrans (conn->lock).
 * @sock_item: on the sender's rs->send_queue (rs->lock).
 * @recv_item: on the receiver's rs->recv_queue (rs->recv_lock).
 * @rs: sending socket while RDSD_MSG_ON_SOCK; holds a socket reference.
 * @conn: connection the message was queued on; valid while RDSD_MSG_ON_CONN
 *	(a connection outlives the messages on its queues).
 * @seq: sequence number on its connection.
 * @saddr: source address.
 * @daddr: destination address.
 * @sport: source port.
 * @dport: destination port.
 * @len: payload length.
 * @rx_tstamp: receive time (ktime, ns) if the receiver asked for it.
 * @rx_trace: receive path timestamps for SO_RDS_MSG_RXPATH_LATENCY.
 * @op: RDMA or atomic operation riding on the message (a reference), or
 *	NULL.
 * @rdma_dest: cookie of the sender's region the receiver is told of
 *	(RDS_CMSG_RDMA_DEST or RDS_CMSG_RDMA_MAP), 0 for none.
 * @zc: a MSG_ZEROCOPY send's hold on its sender's pages, which @sg
 *	points into (zcopy.c); NULL for a payload of the message's own.
 * @nents: entries in @sg.
 * @scope: the link of the connection it was delivered on, set by
 *	rdsd_recv_incoming(): a link-local sender's name carries it, whatever
 *	address the receiving socket is bound to.
 * @sg: payload; for small messages one entry pointing just past @sg.
 */
struct rdsd_msg {
	refcount_t		refs;
	unsigned long		flags;
	struct list_head	conn_item;
	struct list_head	sock_item;
	struct list_head	recv_item;
	struct rdsd_sock	*rs;
	struct rdsd_conn	*conn;
	u64			seq;
	struct in6_addr		saddr;
	struct in6_addr		daddr;
	__be16			sport;
	__be16			dport;
	u32			len;
	u64			rx_tstamp;
	u64			rx_trace[4];
	struct rdsd_op		*op;
	u64			rdma_dest;
	struct rdsd_zcopy	*zc;
	unsigned int		nents;
	int			scope;
	struct scatterlist	sg[];
};

/*
 * What @msg counts against its sender's send buffer and its receiver's
 * receive buffer: its payload, as Linux RDS counts it, but at least
 * RDSD_RECV_MIN_CHARGE, which covers the message itself, so that a flood
 * of empty messages cannot grow a queue unaccounted.
 */
static inline u32 rdsd_msg_charge(const struct rdsd_msg *msg)
{
	BUILD_BUG_ON(sizeof(*msg) + sizeof(struct scatterlist) >
		     RDSD_RECV_MIN_CHARGE);
	return max_t(u32, msg->len, RDSD_RECV_MIN_CHARGE);
}

/* Receive path trace points, as Linux RDS numbers them. */
#define RDSD_RX_HDR		0
#define RDSD_RX_START		1
#define RDSD_RX_END		2
#define RDSD_RX_CMSG		3

/**
 * struct rdsd_sock - one socket
 * @sk: the socket; first, so sk_alloc() allocates the whole structure.
 * @bound_addr: bound address, :: while unbound; set once, by bind(),
 *	before @bound.
 * @bound_scope: its link, if link-local.
 * @bound_port: bound port.
 * @bound: the socket is bound (smp_store_release() once @bound_addr and
 *	@bound_port are set): readers without the socket lock read the
 *	address after smp_load_acquire() of this.
 * @bind_node: on rdsd_net.bind_hash while bound.
 * @conn_addr: default destination set by connect(), :: if none; written
 *	under the socket lock and @lock, read under either.
 * @conn_port: default destination port, as @conn_addr.
 * @conn_scope: its link, if link-local, as @conn_addr.
 * @trans: transport of the bound address, or forced by SO_RDS_TRANSPORT.
 * @conn: cached connection of the last send (a reference); sk_lock.
 * @lcong: congestion map of @bound_addr (a reference) while bound.
 * @lock: protects @send_queue, @snd_bytes, @unreq_bytes, @cong_mask and
 *	@cong_notify.
 * @send_queue: messages sent and not yet acknowledged.
 * @snd_bytes: what the messages on @send_queue count (rdsd_msg_charge()),
 *	and the pages of their operations past RLIMIT_MEMLOCK (rdma.c).
 * @unreq_bytes: what the messages queued since the last one that asks
 *	for a prompt acknowledgment count (rdsd_send_ack_req()).
 * @msg_max: largest payload the socket sends (RDS_DOCA_MSG_MAX), at most
 *	RDSD_MSG_SIZE_LIMIT; written and read without a lock.
 * @cong_mask: ports (mod 64) this socket wants to hear about.
 * @cong_notify: ports (mod 64) that changed and were not yet reported.
 * @recv_lock: protects @recv_queue, @notify_queue, @rcv_bytes,
 *	@notify_bytes, @notice_wait, @congested and @dead.
 * @recv_queue: messages waiting for recvmsg().
 * @notify_queue: RDMA notices (struct rdsd_notifier) waiting for recvmsg().
 * @mrs: the socket's registered regions by key (mr.c), XA_FLAGS_LOCK_BH.
 * @id: its id in rdsd_net.socks: reserved (NULL) by rdsd_create(),
 *	pointing here once the socket is set up, erased by release; readers
 *	walk under RCU (SOCK_RCU_FREE) without a reference.
 * @rcv_bytes: what the messages on @recv_queue count (rdsd_msg_charge()).
 * @notify_bytes: RDSD_RECV_MIN_CHARGE for each notice on @notify_queue and
 *	each one reserved by an operation in flight (rdma.c).  With
 *	@rcv_bytes bounded by rdsd_rcvbuf(): no reservation is made past it.
 * @notice_wait: a sendmsg() found no room for a notice: the next release
 *	of receive buffer room wakes the socket's writers.
 * @congested: this socket's port is set in @lcong.
 * @dead: the socket is closing; nothing more is queued to it.
 * @cong_item: on rdsd_net.cong_monitors (monitor_lock).
 * @cong_monitor: RDS_CONG_MONITOR is set.
 * @recverr: RDS_RECVERR is set.
 * @refused: operations of this socket refused in the second that began
 *	at @refused_since (rdma.c); read and written locklessly, so the
 *	count is approximate.
 * @refused_since: jiffies when that second began.
 * @seen_congestion: a send got ENOBUFS; poll() watches congestion updates
 *	until it reported one.
 * @cong_track: congestion generation at the refused send, then as last
 *	reported by poll().
 * @rx_traces: number of receive trace points requested.
 * @rx_trace_pos: the requested trace points.
 * @zc_lock: protects @zc_ring, @zc_head, @zc_ready and @zc_busy (zcopy.c);
 *	taken with interrupts off, as the last reference of a message may
 *	go anywhere.
 * @zc_read: serializes the readers of completions.
 * @zc_ring: RDSD_ZCOPY_MAX cookies of finished MSG_ZEROCOPY sends, made
 *	by the first such send, freed by rdsd_destruct().
 * @zc_head: the first unread cookie in @zc_ring.
 * @zc_ready: unread cookies.
 * @zc_busy: MSG_ZEROCOPY sends in flight, plus cookies unread or being
 *	read: at most RDSD_ZCOPY_MAX, so a completion always has room.
 */
struct rdsd_sock {
	struct sock		sk;

	struct in6_addr		bound_addr;
	int			bound_scope;
	__be16			bound_port;
	bool			bound;
	struct hlist_node	bind_node;
	struct in6_addr		conn_addr;
	int			conn_scope;
	__be16			conn_port;
	const struct rdsd_transport_ops *trans;
	struct rdsd_conn	*conn;
	struct rdsd_cong_map	*lcong;

	/* protects the send queue and its counts, cong_mask and cong_notify */
	spinlock_t		lock;
	struct list_head	send_queue;
	u32			snd_bytes;
	u32			unreq_bytes;
	u32			msg_max;
	u64			cong_mask;
	u64			cong_notify;

	/*
	 * protects recv_queue, notify_queue, rcv_bytes, notify_bytes,
	 * notice_wait, congested and dead
	 */
	spinlock_t		recv_lock;
	struct list_head	recv_queue;	/* bounded by rdsd_rcvbuf() */
	struct list_head	notify_queue;	/* bounded by rdsd_rcvbuf() */
	u32			rcv_bytes;
	u32			notify_bytes;
	bool			notice_wait;
	bool			congested;
	bool			dead;

	/* regions by key; its own xa_lock (bottom halves off) protects it */
	struct xarray		mrs;
	u32			id;

	struct list_head	cong_item;
	bool			cong_monitor;
	bool			recverr;
	atomic_t		refused;
	unsigned long		refused_since;
	bool			seen_congestion;
	int			cong_track;
	u8			rx_traces;
	u8			rx_trace_pos[3];
	/* SIOCRDSSETTOS; written under the socket lock, fixed once non-zero */
	u8			tos;

	/* MSG_ZEROCOPY completions (zcopy.c) */
	spinlock_t		zc_lock;
	struct mutex		zc_read;	/* one reader of completions */
	u32			*zc_ring;
	u16			zc_head;
	u16			zc_ready;
	u16			zc_busy;
};

static inline struct rdsd_sock *rdsd_sk(const struct sock *sk)
{
	return container_of(sk, struct rdsd_sock, sk);
}

/* Half of SO_SNDBUF/SO_RCVBUF is usable, as Linux RDS counts it. */
static inline u32 rdsd_sndbuf(const struct rdsd_sock *rs)
{
	return READ_ONCE(rs->sk.sk_sndbuf) / 2;
}

static inline u32 rdsd_rcvbuf(const struct rdsd_sock *rs)
{
	return READ_ONCE(rs->sk.sk_rcvbuf) / 2;
}

static inline struct rdsd_net *rdsd_sk_net(const struct rdsd_sock *rs)
{
	return rdsd_net(sock_net(&rs->sk));
}

/* Is @rs bound?  Then its bound address may be read without its lock. */
static inline bool rdsd_sk_bound(const struct rdsd_sock *rs)
{
	/* pairs with the release in rdsd_add_bound() */
	return smp_load_acquire(&rs->bound);
}

/*
 * A sleeper on a socket's wait queue that only the wake-ups it waits for
 * wake: the socket's wake-ups carry what happened as a poll key
 * (rdsd_sk_data_ready(), rdsd_sk_write_space()), so a receiver is not
 * woken by every acknowledgment and a sender not by every message.  A
 * wake-up without a key wakes every sleeper.
 */
struct rdsd_sk_waiter {
	struct wait_queue_entry	wq;
	__poll_t		events;
};

int rdsd_sk_wake(struct wait_queue_entry *wq, unsigned int mode, int sync,
		 void *key);

/**
 * rdsd_sk_wait_event - wait_event_interruptible_timeout() for a socket
 * @sk: the socket, whose sk_sleep() queue is waited on.
 * @ev: the poll events (EPOLLIN, EPOLLOUT) that may make @cond true.
 * @cond: condition, evaluated as often as wait_event's.
 * @timeo: timeout in jiffies.
 *
 * Returns as wait_event_interruptible_timeout() does: 0 if @timeo went by
 * and @cond is false, the jiffies left (at least 1) once @cond is true, or
 * -ERESTARTSYS on a signal.
 */
#define rdsd_sk_wait_event(sk, ev, cond, timeo)				\
({									\
	struct rdsd_sk_waiter __w = { .events = (ev) };			\
	wait_queue_head_t *__wq = sk_sleep(sk);				\
	long __t = (timeo);						\
									\
	init_waitqueue_func_entry(&__w.wq, rdsd_sk_wake);		\
	__w.wq.private = current;					\
	add_wait_queue(__wq, &__w.wq);					\
	for (;;) {							\
		if (cond) {						\
			__t = __t ?: 1;					\
			break;						\
		}							\
		if (!__t)						\
			break;						\
		if (signal_pending(current)) {				\
			__t = -ERESTARTSYS;				\
			break;						\
		}							\
		__t = wait_woken(&__w.wq, TASK_INTERRUPTIBLE, __t);	\
	}								\
	remove_wait_queue(__wq, &__w.wq);				\
	__t;								\
})

#endif /* _RDSD_H */
