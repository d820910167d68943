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
 * Connections are created on the first send towards a peer and live in the
 * namespace's connection table until the namespace is dismantled; the table
 * holds one reference and every cached user holds one more.
 *
 * Sending is driven by rdsd_conn_xmit(): whoever holds RDSD_CONN_IN_XMIT
 * moves messages from the send queue to the transport, so at most one
 * thread feeds a connection at a time and messages leave in order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "rdsd.h"

static struct hlist_head *rdsd_conn_bucket(struct rdsd_net *rn, __be32 laddr,
					   __be32 faddr)
{
	u32 key = (__force u32)laddr ^ ror32((__force u32)faddr, 16);

	return &rn->conn_hash[hash_32(key, RDSD_CONN_HASH_BITS)];
}

static struct rdsd_conn *rdsd_conn_lookup(struct rdsd_net *rn,
					  const struct rdsd_transport_ops *trans,
					  __be32 laddr, __be32 faddr)
{
	struct rdsd_conn *conn;

	hlist_for_each_entry_rcu(conn, rdsd_conn_bucket(rn, laddr, faddr),
				 hash_node, lockdep_is_held(&rn->conn_lock)) {
		if (conn->laddr == laddr && conn->faddr == faddr &&
		    conn->trans == trans)
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

/**
 * rdsd_conn_put - drop a connection reference
 * @conn: connection.
 *
 * The last reference, which only the table teardown can drop, shuts the
 * transport down and frees everything.  Process context.
 */
void rdsd_conn_put(struct rdsd_conn *conn)
{
	struct rdsd_net *rn = conn->rn;

	if (!refcount_dec_and_test(&conn->refs))
		return;

	if (conn->id)
		xa_erase_bh(&rn->conns, conn->id);

	conn->trans->conn_shutdown(conn);
	rdsd_conn_drop_all(conn);
	conn->trans->conn_free(conn);
	rdsd_cong_map_put(rn, conn->lcong);
	rdsd_cong_map_put(rn, conn->fcong);
	call_rcu(&conn->rcu, rdsd_conn_free_rcu);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_put);

static struct rdsd_conn *rdsd_conn_alloc(struct rdsd_net *rn,
					 const struct rdsd_transport_ops *trans,
					 __be32 laddr, __be32 faddr, gfp_t gfp)
{
	struct rdsd_conn *conn;
	int ret;

	conn = kzalloc(sizeof(*conn), gfp);
	if (!conn)
		return ERR_PTR(-ENOMEM);

	refcount_set(&conn->refs, 1);
	conn->rn = rn;
	conn->laddr = laddr;
	conn->faddr = faddr;
	conn->trans = trans;
	spin_lock_init(&conn->lock);
	conn->state = RDSD_CONN_DOWN;
	INIT_LIST_HEAD(&conn->send_queue);
	INIT_LIST_HEAD(&conn->retrans);
	INIT_WORK(&conn->xmit_work, rdsd_conn_xmit_worker);

	conn->lcong = rdsd_cong_map_get(rn, laddr);
	conn->fcong = rdsd_cong_map_get(rn, faddr);
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
 * rdsd_conn_find_create - the connection from @laddr to @faddr over @trans
 * @rn: namespace.
 * @trans: transport.
 * @laddr: local address.
 * @faddr: peer address.
 * @gfp: allocation flags for a new connection.
 *
 * Finds the connection or creates it, without connecting it.  Returns it
 * with a reference (rdsd_conn_put()), or an ERR_PTR.  Process context.
 */
struct rdsd_conn *rdsd_conn_find_create(struct rdsd_net *rn,
					const struct rdsd_transport_ops *trans,
					__be32 laddr, __be32 faddr, gfp_t gfp)
{
	struct rdsd_conn *conn, *new;

	rcu_read_lock();
	conn = rdsd_conn_lookup(rn, trans, laddr, faddr);
	if (conn && !refcount_inc_not_zero(&conn->refs))
		conn = NULL;
	rcu_read_unlock();
	if (conn)
		return conn;

	new = rdsd_conn_alloc(rn, trans, laddr, faddr, gfp);
	if (IS_ERR(new))
		return new;

	spin_lock_bh(&rn->conn_lock);
	conn = rdsd_conn_lookup(rn, trans, laddr, faddr);
	if (conn) {
		refcount_inc(&conn->refs);
		spin_unlock_bh(&rn->conn_lock);
		/* lost the race: @new was never visible, undo it */
		rdsd_conn_put(new);
		return conn;
	}
	refcount_inc(&new->refs);	/* the table's reference */
	hlist_add_head_rcu(&new->hash_node,
			   rdsd_conn_bucket(rn, laddr, faddr));
	spin_unlock_bh(&rn->conn_lock);
	xa_store_bh(&rn->conns, new->id, new, gfp);	/* reserved */
	rdsd_stat_inc(rn, conn_created);
	return new;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_find_create);

/**
 * rdsd_conn_get_outgoing - the connection a socket sends to @faddr on
 * @rn: namespace.
 * @bound: transport of the sending socket.
 * @laddr: local address.
 * @faddr: peer address.
 * @gfp: allocation flags for a new connection.
 *
 * Finds or creates the connection and starts connecting it if it is down.
 * Returns it with a reference (rdsd_conn_put()), or an ERR_PTR.  Process
 * context.
 */
struct rdsd_conn *rdsd_conn_get_outgoing(struct rdsd_net *rn,
					 const struct rdsd_transport_ops *bound,
					 __be32 laddr, __be32 faddr, gfp_t gfp)
{
	const struct rdsd_transport_ops *trans;
	struct rdsd_conn *conn;
	bool start = false;

	trans = rdsd_trans_for_conn(rn->net, bound, laddr, faddr);
	conn = rdsd_conn_find_create(rn, trans, laddr, faddr, gfp);
	if (IS_ERR(conn))
		return conn;

	spin_lock_bh(&conn->lock);
	if (conn->state == RDSD_CONN_DOWN) {
		conn->state = RDSD_CONN_CONNECTING;
		start = true;
	}
	spin_unlock_bh(&conn->lock);
	if (start && trans->conn_connect(conn)) {
		spin_lock_bh(&conn->lock);
		conn->state = RDSD_CONN_DOWN;
		spin_unlock_bh(&conn->lock);
	}
	return conn;
}

/**
 * rdsd_conn_down - the transport lost the path; it is reconnecting
 * @conn: connection.
 *
 * Any context.  Nothing more is handed to the transport until
 * rdsd_conn_up().
 */
void rdsd_conn_down(struct rdsd_conn *conn)
{
	bool was_up;

	spin_lock_bh(&conn->lock);
	was_up = conn->state == RDSD_CONN_UP;
	if (was_up)
		conn->state = RDSD_CONN_CONNECTING;
	spin_unlock_bh(&conn->lock);
	if (was_up)
		rdsd_nl_conn_event(conn, false);
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

	spin_lock_bh(&conn->lock);
	list_for_each_entry(msg, &conn->retrans, conn_item)
		clear_bit(RDSD_MSG_SENT, &msg->flags);
	list_splice_init(&conn->retrans, &conn->send_queue);
	spin_unlock_bh(&conn->lock);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_requeue_unacked);

/**
 * rdsd_conn_cong_changed - tell the transports a local map changed
 * @rn: namespace.
 * @laddr: address whose map changed.
 *
 * Any context.
 */
void rdsd_conn_cong_changed(struct rdsd_net *rn, __be32 laddr)
{
	struct rdsd_conn *conn;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(rn->conn_hash); i++) {
		hlist_for_each_entry_rcu(conn, &rn->conn_hash[i], hash_node) {
			if (conn->laddr == laddr && conn->trans->cong_changed &&
			    !test_bit(RDSD_CONN_DEAD, &conn->flags))
				conn->trans->cong_changed(conn);
		}
	}
	rcu_read_unlock();
}

/**
 * rdsd_conn_up - the transport can carry messages now
 * @conn: connection.
 *
 * Any context.  Starts sending what was queued meanwhile.
 */
void rdsd_conn_up(struct rdsd_conn *conn)
{
	bool queued, was_up;

	spin_lock_bh(&conn->lock);
	was_up = conn->state == RDSD_CONN_UP;
	conn->state = RDSD_CONN_UP;
	if (!was_up)
		conn->connects++;
	queued = !list_empty(&conn->send_queue);
	spin_unlock_bh(&conn->lock);
	if (!was_up)
		rdsd_nl_conn_event(conn, true);
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
	if (test_bit(RDSD_CONN_DEAD, &conn->flags))
		return;
	refcount_inc(&conn->refs);	/* put by rdsd_conn_xmit_worker() */
	if (!queue_work(rdsd_wq, &conn->xmit_work))
		rdsd_conn_put(conn);
}

/* Take the head of the send queue for transmission, or NULL. */
static struct rdsd_msg *rdsd_conn_next(struct rdsd_conn *conn)
{
	struct rdsd_msg *msg = NULL;

	spin_lock_bh(&conn->lock);
	if (conn->state == RDSD_CONN_UP && !list_empty(&conn->send_queue)) {
		msg = list_first_entry(&conn->send_queue, struct rdsd_msg,
				       conn_item);
		list_move_tail(&msg->conn_item, &conn->retrans);
		set_bit(RDSD_MSG_SENT, &msg->flags);
	}
	spin_unlock_bh(&conn->lock);
	return msg;
}

/*
 * The transport refused @msg for now: put it back in sequence order (a
 * path reset may have moved older messages back to the queue meanwhile).
 */
static void rdsd_conn_requeue(struct rdsd_conn *conn, struct rdsd_msg *msg)
{
	struct rdsd_msg *pos;

	spin_lock_bh(&conn->lock);
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

	while ((msg = rdsd_conn_next(conn))) {
		/* once handed over, @msg may be acknowledged and freed */
		u32 len = msg->len;

		ret = conn->trans->xmit(conn, msg);
		if (likely(!ret)) {
			WRITE_ONCE(conn->tx_msgs, conn->tx_msgs + 1);
			WRITE_ONCE(conn->tx_bytes, conn->tx_bytes + len);
			continue;
		}
		if (ret == RDSD_XMIT_DONE) {
			/*
			 * Never on the wire, so no acknowledgment covers it:
			 * @msg is still the retransmit list's.
			 */
			rdsd_stat_inc(rn, xmit_op_only);
			rdsd_send_drop(conn, msg);
			continue;
		}
		if (ret == -EAGAIN) {
			rdsd_conn_requeue(conn, msg);
			rdsd_stat_inc(rn, xmit_retry);
			break;
		}
		/* a message the transport can never send: drop it */
		rdsd_send_drop(conn, msg);
	}

	clear_bit_unlock(RDSD_CONN_IN_XMIT, &conn->flags);
	/* a message queued after our last look must not be stranded */
	smp_mb__after_atomic();
	if (test_bit(RDSD_CONN_XMIT_AGAIN, &conn->flags))
		goto again;	/* a caller found us busy */
	if (msg)
		return;	/* the transport will kick us */
	if (READ_ONCE(conn->state) == RDSD_CONN_UP &&
	    !list_empty_careful(&conn->send_queue))
		goto again;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_conn_xmit);

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
