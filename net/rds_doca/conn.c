// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca connections.
 *
 * One connection carries every message from one local address to one peer
 * address over one transport, whichever socket sent it.  It numbers the
 * messages in the order they are queued; the transport hands them to the
 * peer in that order and the core keeps each one on the retransmit list
 * until the peer acknowledges its sequence number.  Delivery on the peer
 * drops a sequence number it has already seen, so a message is delivered
 * exactly once, in order, even when a transport resends after a reset.
 *
 * Connections are created on the first send towards a peer (or by a
 * peer's request) and live in the namespace's connection table, which holds
 * one reference; every user holds one more (a socket's cache, the xmit
 * work, a control-plane walker).  At most max_conns exist per namespace:
 * one more is refused with EADDRNOTAVAIL (a send) or a reject (a peer's
 * request), counted in conn_limit.
 *
 * Idle connections are freed.  A connection is idle when only the table
 * holds it (refcount 1), its send queue and retransmit list are empty, its
 * transport owes the peer nothing (->conn_idle, e.g. an acknowledgment)
 * and no message was queued or received on it for conn_idle_secs.  The
 * per-namespace reaper (rdsd_conn_reap()) checks that, then takes the
 * table's reference away with refcount_dec_if_one() under conn_lock, so no
 * lookup can revive it, and frees it through the transport's
 * ->conn_shutdown (over IB: disconnect, drain, destroy) and ->conn_free.
 * A later send simply creates a new connection.
 *
 * Exactly once survives that.  A new connection numbers its messages from
 * 0 again and expects 0 from the peer.  Nothing of the old one is pending
 * in either direction here: the peer acknowledged all we sent (empty
 * retransmit list) and we acknowledged all we delivered (->conn_idle).  A
 * receiver that still knows the old connection would drop the new 0, 1,
 * ... as old, so the peer must learn that it talks to a new connection:
 * the loopback transport delivers on the sender's own connection object
 * (the successor starts afresh at both ends), and the IB transport gives
 * every connection object a random incarnation, exchanged in the CM
 * private data; a receiver that meets a new incarnation of its peer
 * starts counting the peer's sequence numbers at 0 (rdsd_ib_peer_learn()),
 * and a sender does not take an acknowledgment from private data that
 * names another incarnation of itself.
 *
 * A message may still arrive while the reaper decides.  The reaper marks
 * the connection dead before an RCU grace period; a transport delivers
 * nothing on a dead connection (the IB receive path, in softirq, checks
 * RDSD_CONN_DEAD: the peer, never acknowledged, sends it again to the
 * successor).  A message delivered before the transport could see the
 * mark shows in the traffic mark after the grace period; then the
 * connection is put back (rdsd_conn_revive()) and its path reset, so
 * the peer resends what it heard no acknowledgment for to the connection
 * that knows what it delivered.
 *
 * Sending is driven by rdsd_conn_xmit(): whoever holds RDSD_CONN_IN_XMIT
 * moves messages from the send queue to the transport, so at most one
 * thread feeds a connection at a time and messages leave in order.  A
 * pass ends with the transport's ->xmit_flush.  sendmsg() calls it
 * through rdsd_conn_send(), which leaves the pass to the worker while
 * messages are in flight on a transport that writes in batches (TCP):
 * the sender goes on queueing on its CPU while the worker writes, and
 * what queued meanwhile goes to the peer in one write.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "rdsd.h"
#include "cong.h"
#include "conn.h"
#include "message.h"
#include "netlink.h"
#include "send.h"
#include "stats.h"
#include "transport.h"
#include "trace.h"

static unsigned int rdsd_conn_idle_secs = 60;
module_param_named(conn_idle_secs, rdsd_conn_idle_secs, uint, 0444);
MODULE_PARM_DESC(conn_idle_secs,
		 "seconds an unused connection with nothing in flight is kept before it is freed (default 60, 0 keeps connections until the namespace goes)");

/*
 * 4096 connections are about 35 MiB (a connection and the 8 KiB
 * congestion map of its peer address each: 4000 loopback connections
 * measured 34 MB of slab), charged to the senders: enough for a host that
 * talks to a thousand peers on four addresses each, small enough that a
 * namespace cannot grow without bound.
 */
static unsigned int rdsd_max_conns = 4096;
module_param_named(max_conns, rdsd_max_conns, uint, 0444);
MODULE_PARM_DESC(max_conns,
		 "connections a network namespace may hold; a send needing one more fails with EADDRNOTAVAIL, a peer's request is refused (default 4096)");

static struct hlist_head *rdsd_conn_bucket(struct rdsd_net *rn,
					   const struct in6_addr *laddr,
					   const struct in6_addr *faddr,
					   u8 path, u8 tos)
{
	u32 key = (__force u32)(laddr->s6_addr32[0] ^ laddr->s6_addr32[1] ^
				laddr->s6_addr32[2] ^ laddr->s6_addr32[3]) ^
		  ror32((__force u32)(faddr->s6_addr32[0] ^
				      faddr->s6_addr32[1] ^
				      faddr->s6_addr32[2] ^
				      faddr->s6_addr32[3]), 16) ^
		  ((u32)path << 24) ^ ((u32)tos << 8);

	return &rn->conn_hash[hash_32(key, RDSD_CONN_HASH_BITS)];
}

static struct rdsd_conn *rdsd_conn_lookup(struct rdsd_net *rn,
					  const struct rdsd_transport_ops *trans,
					  const struct in6_addr *laddr,
					  const struct in6_addr *faddr,
					  int scope, u8 path, u8 tos)
{
	struct rdsd_conn *conn;

	hlist_for_each_entry_rcu(conn,
				 rdsd_conn_bucket(rn, laddr, faddr, path, tos),
				 hash_node, lockdep_is_held(&rn->conn_lock)) {
		if (ipv6_addr_equal(&conn->laddr, laddr) &&
		    ipv6_addr_equal(&conn->faddr, faddr) &&
		    conn->scope == scope && conn->path == path &&
		    conn->tos == tos && conn->trans == trans)
			return conn;
	}
	return NULL;
}

static void rdsd_conn_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct rdsd_conn, rcu));
}

static void rdsd_conn_xmit_worker(struct work_struct *work)
{
	struct rdsd_conn *conn = container_of(work, struct rdsd_conn,
					      xmit_work);

	rdsd_conn_xmit(conn);
	rdsd_conn_put(conn);	/* taken by rdsd_conn_kick() */
}

/* Drop every message still queued; the connection is going away. */
static void rdsd_conn_drop_all(struct rdsd_conn *conn)
{
	struct rdsd_msg *msg, *tmp;
	LIST_HEAD(list);

	spin_lock_bh(&conn->lock);
	list_splice_init(&conn->retrans, &list);
	list_splice_tail_init(&conn->send_queue, &list);
	spin_unlock_bh(&conn->lock);

	list_for_each_entry_safe(msg, tmp, &list, conn_item) {
		list_del_init(&msg->conn_item);
		clear_bit(RDSD_MSG_ON_CONN, &msg->flags);
		rdsd_msg_put(msg);
	}
}

/*
 * The last reference is gone and the connection is out of the table (or
 * never was in it): shut the transport down and free everything.
 * Process context.  A congestion change walks its map's connections under
 * RCU: the reaper takes a connection off its map a grace period before it
 * comes here; the other callers come when no socket of the namespace is
 * left to change a map (namespace exit), or for a connection never put on
 * one (a creator that lost a race).
 */
static void rdsd_conn_destroy(struct rdsd_conn *conn)
{
	struct rdsd_net *rn = conn->rn;

	if (conn->id)
		xa_erase_bh(&rn->conns, conn->id);

	rdsd_cong_map_detach(conn);
	conn->trans->conn_shutdown(conn);
	rdsd_conn_drop_all(conn);
	conn->trans->conn_free(conn);
	rdsd_cong_map_put(rn, conn->lcong);
	rdsd_cong_map_put(rn, conn->fcong);
	atomic_dec(&rn->nr_conns);
	call_rcu(&conn->rcu, rdsd_conn_free_rcu);
}

/**
 * rdsd_conn_put - drop a connection reference
 * @conn: connection.
 *
 * The last reference, which only the table's owner (the namespace
 * teardown or the reaper) or a creator that lost a race can drop, shuts
 * the transport down and frees everything.  Process context.
 */
void rdsd_conn_put(struct rdsd_conn *conn)
{
	if (refcount_dec_and_test(&conn->refs))
		rdsd_conn_destroy(conn);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_put);

static struct rdsd_conn *rdsd_conn_alloc(struct rdsd_net *rn,
					 const struct rdsd_transport_ops *trans,
					 const struct in6_addr *laddr,
					 const struct in6_addr *faddr,
					 int scope, u8 path, u8 tos, gfp_t gfp)
{
	char lname[RDSD_ADDR_STRLEN];
	struct rdsd_conn *conn;
	int ret;

	/* counted from here, so racing creators cannot overshoot either */
	if (atomic_inc_return(&rn->nr_conns) > READ_ONCE(rn->max_conns)) {
		atomic_dec(&rn->nr_conns);
		rdsd_stat_inc(rn, conn_limit);
		return ERR_PTR(-EADDRNOTAVAIL);
	}

	conn = kzalloc(sizeof(*conn), gfp);
	if (!conn) {
		atomic_dec(&rn->nr_conns);
		return ERR_PTR(-ENOMEM);
	}

	refcount_set(&conn->refs, 1);
	conn->rn = rn;
	conn->laddr = *laddr;
	conn->faddr = *faddr;
	conn->scope = scope;
	rdsd_addr_name(lname, sizeof(lname), laddr, scope);
	snprintf(conn->name, sizeof(conn->name), "%s->", lname);
	rdsd_addr_name(conn->name + strlen(conn->name),
		       sizeof(conn->name) - strlen(conn->name), faddr, scope);
	conn->path = path;
	conn->tos = tos;
	conn->npaths = 1;
	conn->trans = trans;
	spin_lock_init(&conn->lock);
	conn->state = RDSD_CONN_DOWN;
	INIT_LIST_HEAD(&conn->send_queue);
	INIT_LIST_HEAD(&conn->retrans);
	INIT_WORK(&conn->xmit_work, rdsd_conn_xmit_worker);
	INIT_HLIST_NODE(&conn->lcong_node);
	conn->idle_since = jiffies;

	conn->lcong = rdsd_cong_map_get(rn, laddr, gfp);
	conn->fcong = rdsd_cong_map_get(rn, faddr, gfp);
	if (!conn->lcong || !conn->fcong) {
		ret = -ENOMEM;
		goto err_maps;
	}

	/* reserved (NULL) until the connection is in the table */
	ret = xa_alloc_cyclic_bh(&rn->conns, &conn->id, NULL, xa_limit_31b,
				 &rn->conn_next, gfp);
	if (ret < 0)
		goto err_maps;

	ret = trans->conn_alloc(conn, gfp);
	if (ret)
		goto err_id;
	return conn;

err_id:
	xa_erase_bh(&rn->conns, conn->id);
err_maps:
	rdsd_cong_map_put(rn, conn->lcong);
	rdsd_cong_map_put(rn, conn->fcong);
	kfree(conn);
	atomic_dec(&rn->nr_conns);
	return ERR_PTR(ret);
}

/**
 * rdsd_conn_get_next - the connection with the lowest id not below *@id
 * @rn: namespace.
 * @id: in, where to start; out, the id of the connection returned.
 *
 * Returns it with a reference the caller drops with rdsd_conn_put(), or
 * NULL when there is none.  Connections whose last reference is going
 * are skipped.  Any context.
 */
struct rdsd_conn *rdsd_conn_get_next(struct rdsd_net *rn, unsigned long *id)
{
	struct rdsd_conn *conn;

	rcu_read_lock();
	for (;;) {
		conn = xa_find(&rn->conns, id, ULONG_MAX, XA_PRESENT);
		if (!conn || refcount_inc_not_zero(&conn->refs))
			break;
		(*id)++;
	}
	rcu_read_unlock();
	return conn;
}

/**
 * rdsd_conn_next_rcu - walk the connections of a namespace
 * @rn: namespace.
 * @conn: the connection returned last, or NULL to start.
 *
 * Returns the next connection of the table, or NULL after the last.  Under
 * rcu_read_lock(), held across the whole walk, and without a reference: a
 * snapshot for the RDS_INFO_* probes, in which a connection added or
 * removed meanwhile may be seen or not.
 */
struct rdsd_conn *rdsd_conn_next_rcu(struct rdsd_net *rn,
				     struct rdsd_conn *conn)
{
	struct hlist_node *n;
	unsigned int b = 0;

	if (conn) {
		n = rcu_dereference(hlist_next_rcu(&conn->hash_node));
		if (n)
			return hlist_entry(n, struct rdsd_conn, hash_node);
		b = rdsd_conn_bucket(rn, &conn->laddr, &conn->faddr,
				     conn->path, conn->tos) -
		    rn->conn_hash + 1;
	}
	for (; b < ARRAY_SIZE(rn->conn_hash); b++) {
		n = rcu_dereference(hlist_first_rcu(&rn->conn_hash[b]));
		if (n)
			return hlist_entry(n, struct rdsd_conn, hash_node);
	}
	return NULL;
}

/**
 * rdsd_conn_find_create - the connection from @laddr to @faddr over @trans
 * @rn: namespace.
 * @trans: transport.
 * @laddr: local address.
 * @faddr: peer address.
 * @scope: their link if one is link-local, else 0.
 * @path: which of the paths between the two addresses, below
 *	RDSD_MAX_PATHS; 0 on a transport with one path.
 * @tos: the type of service of its sockets (SIOCRDSSETTOS): each has
 *	connections of its own.
 * @gfp: allocation flags for a new connection: GFP_KERNEL_ACCOUNT on
 *	behalf of a socket, so its memory cgroup pays; a peer's request or a
 *	probe reply has no user to charge and is bounded by max_conns only.
 *
 * Finds the connection or creates it, without connecting it.  Returns it
 * with a reference (rdsd_conn_put()), or an ERR_PTR: -EADDRNOTAVAIL when
 * the namespace holds max_conns connections, -EINVAL for a path beyond
 * the last, -ENOMEM.  Process context.
 */
struct rdsd_conn *rdsd_conn_find_create(struct rdsd_net *rn,
					const struct rdsd_transport_ops *trans,
					const struct in6_addr *laddr,
					const struct in6_addr *faddr,
					int scope, u8 path, u8 tos, gfp_t gfp)
{
	struct rdsd_conn *conn, *new;

	if (path >= RDSD_MAX_PATHS)
		return ERR_PTR(-EINVAL);
	rcu_read_lock();
	conn = rdsd_conn_lookup(rn, trans, laddr, faddr, scope, path, tos);
	if (conn && !refcount_inc_not_zero(&conn->refs))
		conn = NULL;
	rcu_read_unlock();
	if (conn)
		return conn;

	new = rdsd_conn_alloc(rn, trans, laddr, faddr, scope, path, tos, gfp);
	if (IS_ERR(new))
		return new;

	spin_lock_bh(&rn->conn_lock);
	conn = rdsd_conn_lookup(rn, trans, laddr, faddr, scope, path, tos);
	if (conn) {
		refcount_inc(&conn->refs);
		spin_unlock_bh(&rn->conn_lock);
		/* lost the race: @new was never visible, undo it */
		rdsd_conn_put(new);
		return conn;
	}
	refcount_inc(&new->refs);	/* the table's reference */
	hlist_add_head_rcu(&new->hash_node,
			   rdsd_conn_bucket(rn, laddr, faddr, path, tos));
	spin_unlock_bh(&rn->conn_lock);
	xa_store_bh(&rn->conns, new->id, new, gfp);	/* reserved */
	/*
	 * Congestion changes reach it from now on; one made before reaches
	 * the peer with the whole map when the connection comes up.
	 */
	rdsd_cong_map_attach(new);
	rdsd_stat_inc(rn, conn_created);
	if (rdsd_conn_idle_secs && !delayed_work_pending(&rn->reap_work))
		queue_delayed_work(rdsd_wq, &rn->reap_work,
				   clamp(rdsd_conn_idle_secs * HZ / 4, HZ,
					 15 * HZ));
	return new;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_find_create);

static void rdsd_conn_connect(struct rdsd_conn *conn, bool want)
{
	bool start = false;

	spin_lock_bh(&conn->lock);
	if (want)
		set_bit(RDSD_CONN_WANTED, &conn->flags);
	if (conn->state == RDSD_CONN_DOWN) {
		conn->state = RDSD_CONN_CONNECTING;
		start = true;
	}
	spin_unlock_bh(&conn->lock);
	if (start && conn->trans->conn_connect(conn)) {
		spin_lock_bh(&conn->lock);
		conn->state = RDSD_CONN_DOWN;
		spin_unlock_bh(&conn->lock);
	}
}

/**
 * rdsd_conn_start - connect @conn if it is down
 * @conn: connection.
 *
 * A sender calls this after queueing a message, so a path parked with
 * nothing to send (rdsd_conn_park()) connects again: both look at the
 * state under conn->lock, the park after the send queue, this after the
 * message is on it, so one of them sees the other.  (A park before the
 * message was queued released conn->lock before the sender took it, so
 * the sender's unlocked look below sees DOWN.)  Any context.
 */
void rdsd_conn_start(struct rdsd_conn *conn)
{
	if (READ_ONCE(conn->state) == RDSD_CONN_DOWN)
		rdsd_conn_connect(conn, false);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_start);

/**
 * rdsd_conn_want - the transport needs the path for something not queued
 * @conn: connection.
 *
 * For what the transport must tell the peer without a message on the send
 * queue, such as a congestion update: the connection connects if it is
 * down and is not parked until it is up again.  Any context.
 */
void rdsd_conn_want(struct rdsd_conn *conn)
{
	rdsd_conn_connect(conn, true);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_want);

/**
 * rdsd_conn_park - stop reconnecting a path that nothing waits for
 * @conn: connection, not up.
 *
 * A transport whose path failed asks this before it schedules the next
 * attempt.  With nothing queued and nothing waiting for an acknowledgment
 * there is no reason to connect: the connection goes DOWN, the reaper
 * frees it once idle, and the next message queued on it connects it
 * again (rdsd_conn_start()).  Otherwise two idle ends would revive each
 * other: one end's reaper disconnects, the other reconnects, and the new
 * incarnation restarts both idle clocks.  A peer that still waits for
 * our acknowledgment keeps its messages queued and connects itself; a
 * transport that must tell the peer something unqueued (a congestion
 * update) says so with rdsd_conn_want().
 *
 * Returns true if @conn is parked: the caller schedules no attempt.  Any
 * context.
 */
bool rdsd_conn_park(struct rdsd_conn *conn)
{
	bool park;

	spin_lock_bh(&conn->lock);
	park = conn->state != RDSD_CONN_UP &&
	       !test_bit(RDSD_CONN_WANTED, &conn->flags) &&
	       list_empty(&conn->send_queue) && list_empty(&conn->retrans);
	if (park)
		conn->state = RDSD_CONN_DOWN;
	spin_unlock_bh(&conn->lock);
	if (park)
		trace_rdsd_conn_park(conn, READ_ONCE(conn->last_error));
	return park;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_park);

/**
 * rdsd_conn_path_pick - the path a sender of hash @hash takes
 * @npaths: paths the two ends agreed on, 1..RDSD_MAX_PATHS.
 * @hash: the sender's hash (rdsd_send_conn()).
 *
 * Every sender stays on one path for as long as @npaths holds, so the
 * messages of one socket to one peer keep their order.
 */
u8 rdsd_conn_path_pick(u8 npaths, u32 hash)
{
	if (npaths <= 1 || npaths > RDSD_MAX_PATHS)
		return 0;
	return (u8)reciprocal_scale(hash_32(hash, 32), npaths);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_path_pick);

/**
 * rdsd_conn_get_outgoing - the connection a socket sends to @faddr on
 * @rn: namespace.
 * @bound: transport of the sending socket.
 * @laddr: local address.
 * @faddr: peer address.
 * @scope: their link if one is link-local, else 0.
 * @tos: the socket's type of service.
 * @hash: the sender's hash, which picks one of several paths; 0 for path
 *	0.
 * @gfp: allocation flags for a new connection.
 *
 * Finds or creates the connection and starts connecting it if it is down.
 * Path 0 always exists: it carries everything until it is up and the two
 * ends agreed on more paths (rdsd_conn.npaths); then a sender takes the
 * path its hash picks.  Returns it with a reference (rdsd_conn_put()), or
 * an ERR_PTR (see rdsd_conn_find_create()).  Process context.
 */
struct rdsd_conn *rdsd_conn_get_outgoing(struct rdsd_net *rn,
					 const struct rdsd_transport_ops *bound,
					 const struct in6_addr *laddr,
					 const struct in6_addr *faddr,
					 int scope, u8 tos, u32 hash, gfp_t gfp)
{
	const struct rdsd_transport_ops *trans;
	struct rdsd_conn *conn, *path;
	u8 p;

	trans = rdsd_trans_for_conn(rn->net, bound, laddr, faddr);
	/* the loopback transport has one lane */
	if (trans == &rdsd_loop_transport)
		tos = 0;
	conn = rdsd_conn_find_create(rn, trans, laddr, faddr, scope, 0, tos,
				     gfp);
	if (IS_ERR(conn))
		return conn;
	p = rdsd_conn_path_pick(READ_ONCE(conn->npaths), hash);
	if (p) {
		path = rdsd_conn_find_create(rn, trans, laddr, faddr, scope,
					     p, tos, gfp);
		/* without that path (max_conns), path 0 carries it */
		if (!IS_ERR(path)) {
			rdsd_conn_put(conn);
			conn = path;
		}
	}
	rdsd_conn_start(conn);
	return conn;
}

/**
 * rdsd_conn_down - the transport lost the path
 * @conn: connection.
 *
 * Any context.  Nothing more is handed to the transport until
 * rdsd_conn_up().  The messages of closed sockets are dropped
 * (rdsd_send_drop_orphans()): a transport calls this for every attempt
 * that fails too.
 */
void rdsd_conn_down(struct rdsd_conn *conn)
{
	bool was_up;

	spin_lock_bh(&conn->lock);
	was_up = conn->state == RDSD_CONN_UP;
	if (was_up)
		conn->state = RDSD_CONN_CONNECTING;
	/* a message taken for the lost path waits for its turn on the next */
	WRITE_ONCE(conn->path_epoch, conn->path_epoch + 1);
	spin_unlock_bh(&conn->lock);
	if (was_up) {
		trace_rdsd_conn_down(conn, READ_ONCE(conn->last_error));
		rdsd_nl_conn_event(conn, false);
	}
	rdsd_send_drop_orphans(conn);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_down);

/**
 * rdsd_conn_requeue_unacked - send again what the peer did not acknowledge
 * @conn: connection whose transport starts a new path: nothing handed to
 *	the old one is in flight any more.
 *
 * Moves the retransmit list back to the head of the send queue, in order.
 * The receiver drops what it delivered before.
 */
void rdsd_conn_requeue_unacked(struct rdsd_conn *conn)
{
	struct rdsd_msg *msg;
	int n = 0;

	spin_lock_bh(&conn->lock);
	list_for_each_entry(msg, &conn->retrans, conn_item) {
		clear_bit(RDSD_MSG_SENT, &msg->flags);
		n++;
	}
	list_splice_init(&conn->retrans, &conn->send_queue);
	spin_unlock_bh(&conn->lock);
	if (n)
		trace_rdsd_conn_requeue(conn, n);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_requeue_unacked);

/**
 * rdsd_conn_up - the transport can carry messages now
 * @conn: connection.
 *
 * Any context.  Starts sending what was queued meanwhile.
 */
void rdsd_conn_up(struct rdsd_conn *conn)
{
	bool queued, was_up;
	int connects;

	spin_lock_bh(&conn->lock);
	was_up = conn->state == RDSD_CONN_UP;
	conn->state = RDSD_CONN_UP;
	clear_bit(RDSD_CONN_WANTED, &conn->flags);
	if (!was_up)
		conn->connects++;
	connects = conn->connects;
	queued = !list_empty(&conn->send_queue);
	spin_unlock_bh(&conn->lock);
	if (!was_up) {
		trace_rdsd_conn_up(conn, connects - 1);
		rdsd_nl_conn_event(conn, true);
	}
	if (queued)
		rdsd_conn_kick(conn);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_up);

/**
 * rdsd_conn_kick - send what is queued, from the work queue
 * @conn: connection.
 *
 * Any context.
 */
void rdsd_conn_kick(struct rdsd_conn *conn)
{
	/* a transport may kick a connection the reaper is taking down */
	if (test_bit(RDSD_CONN_DEAD, &conn->flags) ||
	    !refcount_inc_not_zero(&conn->refs))
		return;
	/* that reference is put by rdsd_conn_xmit_worker() */
	if (!queue_work(rdsd_wq, &conn->xmit_work))
		rdsd_conn_put(conn);
}

/*
 * Take the head of the send queue for transmission, or NULL.  Returns it
 * with a reference of its own: once on the retransmit list, an ack can
 * complete it and drop the connection's reference at any time, even while
 * the transport still works on it.
 */
static struct rdsd_msg *rdsd_conn_next(struct rdsd_conn *conn)
{
	struct rdsd_msg *msg = NULL;

	spin_lock_bh(&conn->lock);
	if (conn->state == RDSD_CONN_UP && !list_empty(&conn->send_queue)) {
		msg = list_first_entry(&conn->send_queue, struct rdsd_msg,
				       conn_item);
		list_move_tail(&msg->conn_item, &conn->retrans);
		set_bit(RDSD_MSG_SENT, &msg->flags);
		conn->xmit_epoch = conn->path_epoch;
		rdsd_msg_get(msg);	/* put by rdsd_conn_xmit() */
	}
	spin_unlock_bh(&conn->lock);
	return msg;
}

/*
 * The transport refused @msg for now: put it back in sequence order (a
 * path reset may have moved older messages back to the queue meanwhile).
 * Unless an ack, or RDS_CANCEL_SENT_TO after such a reset, completed it
 * meanwhile: then it is on no list of the connection any more and stays
 * off.
 */
static void rdsd_conn_requeue(struct rdsd_conn *conn, struct rdsd_msg *msg)
{
	struct rdsd_msg *pos;

	spin_lock_bh(&conn->lock);
	if (!test_bit(RDSD_MSG_ON_CONN, &msg->flags)) {
		spin_unlock_bh(&conn->lock);
		return;
	}
	clear_bit(RDSD_MSG_SENT, &msg->flags);
	list_del(&msg->conn_item);
	list_for_each_entry(pos, &conn->send_queue, conn_item)
		if (pos->seq > msg->seq)
			break;
	list_add_tail(&msg->conn_item, &pos->conn_item);
	spin_unlock_bh(&conn->lock);
}

/**
 * rdsd_conn_xmit - hand queued messages to the transport
 * @conn: connection.
 *
 * Process context.  If another thread is already sending on @conn it will
 * look at the queue and the transport again before it stops, even after
 * the transport refused a message, and this returns at once: the call may
 * be a kick that says the transport has room again.
 */
void rdsd_conn_xmit(struct rdsd_conn *conn)
{
	struct rdsd_net *rn = conn->rn;
	bool blocked = false, sent = false;
	struct rdsd_msg *msg;
	int ret;

	/* after what the caller queued; all flags share one word */
	smp_mb__before_atomic();
	set_bit(RDSD_CONN_XMIT_AGAIN, &conn->flags);
again:
	if (test_and_set_bit_lock(RDSD_CONN_IN_XMIT, &conn->flags))
		return;
	clear_bit(RDSD_CONN_XMIT_AGAIN, &conn->flags);
	/* before looking at the queue: a later caller's bit stays set */
	smp_mb__after_atomic();

	while (!blocked && (msg = rdsd_conn_next(conn))) {
		sent = true;
		/*
		 * Our reference keeps @msg alive while the transport works on
		 * it and until we are done below, even if an ack completes it
		 * meanwhile (it is on the retransmit list from now on).
		 */
		ret = conn->trans->xmit(conn, msg);
		if (likely(!ret)) {
			WRITE_ONCE(conn->tx_msgs, conn->tx_msgs + 1);
			WRITE_ONCE(conn->tx_bytes, conn->tx_bytes + msg->len);
		} else if (ret == RDSD_XMIT_DONE) {
			/*
			 * Never on the wire, so no acknowledgment covers it:
			 * complete it now, unless something else did.
			 */
			rdsd_stat_inc(rn, xmit_op_only);
			rdsd_send_drop(conn, msg);
		} else if (ret == -EAGAIN) {
			rdsd_conn_requeue(conn, msg);
			rdsd_stat_inc(rn, xmit_retry);
			blocked = true;
		} else {
			/* a message the transport can never send: drop it */
			rdsd_send_drop(conn, msg);
		}
		rdsd_msg_put(msg);	/* taken by rdsd_conn_next() */
	}
	if (sent && conn->trans->xmit_flush) {
		conn->trans->xmit_flush(conn);
		sent = false;
	}

	clear_bit_unlock(RDSD_CONN_IN_XMIT, &conn->flags);
	/* a message queued after our last look must not be stranded */
	smp_mb__after_atomic();
	if (test_bit(RDSD_CONN_XMIT_AGAIN, &conn->flags)) {
		blocked = false;
		goto again;	/* a caller found us busy */
	}
	if (blocked)
		return;	/* the transport will kick us */
	if (READ_ONCE(conn->state) == RDSD_CONN_UP &&
	    !list_empty_careful(&conn->send_queue))
		goto again;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_xmit);

/**
 * rdsd_conn_lower_wins - keep our own attempt when both ends connect?
 * @laddr: our address.
 * @faddr: the peer's.
 *
 * When two hosts connect to each other at once, the attempt of the
 * numerically lower address wins, over every transport.
 */
bool rdsd_conn_lower_wins(const struct in6_addr *laddr,
			  const struct in6_addr *faddr)
{
	return memcmp(laddr, faddr, sizeof(*laddr)) < 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_lower_wins);

/**
 * rdsd_conn_backoff - the delay before a transport's next attempt
 * @backoff_ms: the connection's current backoff, 0 after a success;
 *	doubled, from RDSD_CONN_BACKOFF_MIN_MS to RDSD_CONN_BACKOFF_MAX_MS.
 *
 * Returns the delay in jiffies: none the first time, then a random one
 * between half the backoff and the backoff, so hosts that lost each
 * other at once do not meet again in step.
 */
unsigned long rdsd_conn_backoff(unsigned int *backoff_ms)
{
	unsigned int b = *backoff_ms, delay = 0;

	if (b)
		delay = b / 2 + get_random_u32() % (b / 2 + 1);
	*backoff_ms = clamp(b * 2, RDSD_CONN_BACKOFF_MIN_MS,
			    RDSD_CONN_BACKOFF_MAX_MS);
	return msecs_to_jiffies(delay);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_backoff);

/* protects every struct rdsd_attempts; nothing is taken under it */
static DEFINE_SPINLOCK(rdsd_attempt_lock);

/**
 * rdsd_attempt_get - take a place for a connection attempt
 * @at: the transport's table.
 * @rn: namespace whose conn_attempt_wait counts a refusal.
 * @uid: the user whose sends made the connection; INVALID_UID for one a
 *	peer's request made (counted together).
 * @held: the attempt's own flag, under the caller's lock (the transport's
 *	cm_mutex): set to whether it holds a place.
 *
 * Returns *@held: true with the place taken (rdsd_attempt_put() gives it
 * back when the peer answers or the attempt goes), false when @uid holds
 * RDSD_USER_ATTEMPTS or all users RDSD_MAX_ATTEMPTS.  Any context.
 */
bool rdsd_attempt_get(struct rdsd_attempts *at, struct rdsd_net *rn,
		      kuid_t uid, bool *held)
{
	unsigned int i, slot = RDSD_MAX_ATTEMPTS;
	bool ok = false;

	spin_lock_bh(&rdsd_attempt_lock);
	if (at->total >= RDSD_MAX_ATTEMPTS)
		goto out;
	for (i = 0; i < RDSD_MAX_ATTEMPTS; i++) {
		if (!at->users[i].held) {
			if (slot == RDSD_MAX_ATTEMPTS)
				slot = i;
		} else if (uid_eq(at->users[i].uid, uid)) {
			slot = i;
			break;
		}
	}
	/* fewer than RDSD_MAX_ATTEMPTS held: a slot is free */
	if (at->users[slot].held >= RDSD_USER_ATTEMPTS)
		goto out;
	at->users[slot].uid = uid;
	at->users[slot].held++;
	at->total++;
	ok = true;
out:
	spin_unlock_bh(&rdsd_attempt_lock);
	if (!ok)
		rdsd_stat_inc(rn, conn_attempt_wait);
	*held = ok;
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_attempt_get);

/**
 * rdsd_attempt_put - give back the place of an attempt, if it holds one
 * @at: the transport's table.
 * @uid: as given to rdsd_attempt_get().
 * @held: the attempt's flag, as rdsd_attempt_get() set it; cleared.
 */
void rdsd_attempt_put(struct rdsd_attempts *at, kuid_t uid, bool *held)
{
	unsigned int i;

	if (!*held)
		return;
	*held = false;
	spin_lock_bh(&rdsd_attempt_lock);
	for (i = 0; i < RDSD_MAX_ATTEMPTS; i++) {
		if (at->users[i].held && uid_eq(at->users[i].uid, uid)) {
			at->users[i].held--;
			at->total--;
			break;
		}
	}
	spin_unlock_bh(&rdsd_attempt_lock);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_attempt_put);

/**
 * rdsd_conn_send - send what a caller just queued on @conn
 * @conn: connection.
 *
 * Process context.  The caller sends itself (rdsd_conn_xmit()), the
 * shortest way to the peer, unless the transport writes in batches
 * (RDSD_TRANS_F_BATCH) and messages are in flight: then the worker
 * sends, on another CPU, while the caller may queue more, and it sends
 * them together.  A connection with nothing in flight (a request that
 * waits for its answer) is never delayed.
 */
void rdsd_conn_send(struct rdsd_conn *conn)
{
	if ((conn->trans->features & RDSD_TRANS_F_BATCH) &&
	    !list_empty_careful(&conn->retrans))
		rdsd_conn_kick(conn);
	else
		rdsd_conn_xmit(conn);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_send);

/* Messages queued and received so far: traffic changes it. */
static u64 rdsd_conn_mark(const struct rdsd_conn *conn)
{
	return READ_ONCE(conn->next_tx_seq) + READ_ONCE(conn->rx_msgs) +
	       READ_ONCE(conn->next_rx_seq);
}

/*
 * Is @conn unused now?  Only the table holds it, nothing is queued or
 * waits for an acknowledgment, and its transport owes the peer nothing.
 */
static bool rdsd_conn_unused(struct rdsd_conn *conn)
{
	bool empty;

	if (refcount_read(&conn->refs) != 1)
		return false;
	spin_lock_bh(&conn->lock);
	empty = list_empty(&conn->send_queue) && list_empty(&conn->retrans);
	spin_unlock_bh(&conn->lock);
	return empty && (!conn->trans->conn_idle || conn->trans->conn_idle(conn));
}

/*
 * Take @conn out of the table if the table's reference is the only one;
 * then no lookup can find or revive it (they take references with
 * refcount_inc_not_zero()) and it is ours to destroy.
 */
static bool rdsd_conn_unhash_idle(struct rdsd_net *rn, struct rdsd_conn *conn)
{
	bool gone = false;

	spin_lock_bh(&rn->conn_lock);
	if (!hlist_unhashed(&conn->hash_node) &&
	    refcount_dec_if_one(&conn->refs)) {
		/* counted before any table stops showing it */
		rdsd_stat_inc(rn, conn_reaped);
		set_bit(RDSD_CONN_DEAD, &conn->flags);
		hlist_del_init_rcu(&conn->hash_node);
		gone = true;
	}
	spin_unlock_bh(&rn->conn_lock);
	return gone;
}

/*
 * A message was delivered on @conn between the reaper's last look and the
 * moment the transport saw it dead: its acknowledgment may never leave,
 * and the peer would send it again to a successor, which would deliver it
 * twice.  Put @conn back in the table instead (unless a new connection
 * took its place meanwhile) and reset its path, so that the peer sends
 * again what it heard no acknowledgment for, to this connection, which
 * drops what it delivered, and gets the whole congestion map again.
 * If a local send made a successor within the same grace period, the
 * successor stays and the old connection goes: the one case, a send and
 * a peer's message within microseconds after conn_idle_secs of silence,
 * where a message may be delivered twice.
 */
static bool rdsd_conn_revive(struct rdsd_net *rn, struct rdsd_conn *conn)
{
	bool back = false;

	spin_lock_bh(&rn->conn_lock);
	if (!rdsd_conn_lookup(rn, conn->trans, &conn->laddr, &conn->faddr,
			      conn->scope, conn->path, conn->tos)) {
		refcount_set(&conn->refs, 1);	/* the table's again */
		clear_bit(RDSD_CONN_DEAD, &conn->flags);
		hlist_add_head_rcu(&conn->hash_node,
				   rdsd_conn_bucket(rn, &conn->laddr,
						    &conn->faddr, conn->path,
						    conn->tos));
		back = true;
	}
	spin_unlock_bh(&rn->conn_lock);
	if (!back)
		return false;
	rdsd_stat_add(rn, conn_reaped, -1);
	conn->idle_since = jiffies;
	conn->idle_mark = rdsd_conn_mark(conn);
	if (conn->trans->conn_drop)
		conn->trans->conn_drop(conn);
	if (conn->trans->cong_changed)
		conn->trans->cong_changed(conn);
	return true;
}

/**
 * rdsd_conn_reap - free the connections that have been idle long enough
 * @rn: namespace.
 * @idle: how long (jiffies) a connection must have been unused, with no
 *	message queued or received, before it is freed.
 *
 * A connection found in use, or with traffic since the last look, starts
 * its idle time again.  Returns the number freed.  Process context; walks
 * the namespace's connections by id under RCU, takes conn_lock only to
 * remove one.
 */
unsigned int rdsd_conn_reap(struct rdsd_net *rn, unsigned long idle)
{
	struct rdsd_conn *conn, *dead[32];
	unsigned long id = 0, now = jiffies;
	unsigned int i, k, n, reaped = 0;
	bool more;
	u64 mark;

	do {
		n = 0;
		more = false;
		rcu_read_lock();
		xa_for_each_start(&rn->conns, id, conn, id) {
			if (n == ARRAY_SIZE(dead)) {
				more = true;	/* from @id on */
				break;
			}
			mark = rdsd_conn_mark(conn);
			if (mark != conn->idle_mark || !rdsd_conn_unused(conn)) {
				conn->idle_mark = mark;
				conn->idle_since = now;
				continue;
			}
			if (time_before(now, conn->idle_since + idle))
				continue;
			if (rdsd_conn_unhash_idle(rn, conn))
				dead[n++] = conn;
		}
		rcu_read_unlock();

		/*
		 * Lookups may still see them, and a transport may still be
		 * delivering a message it took before it could see them dead;
		 * after this one delivers on a dead connection any more.
		 */
		if (n)
			synchronize_rcu();
		for (i = 0, k = 0; i < n; i++) {
			conn = dead[i];
			if (rdsd_conn_mark(conn) != conn->idle_mark &&
			    rdsd_conn_revive(rn, conn))
				continue;
			rdsd_cong_map_detach(conn);
			dead[k++] = conn;
		}
		/*
		 * A congestion change may still be walking the map's list and
		 * about to call the transport of a connection just taken off
		 * it: its state must outlive that walk.
		 */
		if (k)
			synchronize_rcu();
		while (k) {
			rdsd_conn_destroy(dead[--k]);
			reaped++;
		}
		cond_resched();
	} while (more);
	return reaped;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_reap);

static void rdsd_conn_reap_worker(struct work_struct *work)
{
	struct rdsd_net *rn = container_of(to_delayed_work(work),
					   struct rdsd_net, reap_work);
	unsigned long idle = rdsd_conn_idle_secs * HZ;

	rdsd_conn_reap(rn, idle);
	if (atomic_read(&rn->nr_conns))
		queue_delayed_work(rdsd_wq, &rn->reap_work,
				   clamp(idle / 4, HZ, 15 * HZ));
}

/**
 * rdsd_conn_net_init - set up the connection table of a namespace
 * @rn: namespace.
 */
void rdsd_conn_net_init(struct rdsd_net *rn)
{
	unsigned int i;

	spin_lock_init(&rn->conn_lock);
	for (i = 0; i < ARRAY_SIZE(rn->conn_hash); i++)
		INIT_HLIST_HEAD(&rn->conn_hash[i]);
	xa_init_flags(&rn->conns, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	atomic_set(&rn->nr_conns, 0);
	rn->max_conns = rdsd_max_conns;
	INIT_DELAYED_WORK(&rn->reap_work, rdsd_conn_reap_worker);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_net_init);

/**
 * rdsd_conn_net_exit - destroy every connection of a namespace
 * @rn: namespace; no socket of it is left.
 */
void rdsd_conn_net_exit(struct rdsd_net *rn)
{
	struct rdsd_conn *conn;
	struct hlist_node *tmp;
	unsigned int i;
	HLIST_HEAD(dead);

	/* no connection is made any more: the reaper stays stopped */
	cancel_delayed_work_sync(&rn->reap_work);

	spin_lock_bh(&rn->conn_lock);
	for (i = 0; i < ARRAY_SIZE(rn->conn_hash); i++) {
		hlist_for_each_entry_safe(conn, tmp, &rn->conn_hash[i],
					  hash_node) {
			hlist_del_init_rcu(&conn->hash_node);
			set_bit(RDSD_CONN_DEAD, &conn->flags);
			hlist_add_head(&conn->hash_node, &dead);
		}
	}
	spin_unlock_bh(&rn->conn_lock);

	/* lockless lookups may still walk the old chains */
	synchronize_rcu();

	hlist_for_each_entry_safe(conn, tmp, &dead, hash_node) {
		hlist_del(&conn->hash_node);
		/* transport callbacks may hold references: stop them first */
		conn->trans->conn_shutdown(conn);
		if (cancel_work_sync(&conn->xmit_work))
			rdsd_conn_put(conn);	/* the work's reference */
		rdsd_conn_put(conn);	/* the table's reference */
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_net_exit);
