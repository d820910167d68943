// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca congestion maps.
 *
 * A receiving socket whose queue holds more than half its SO_RCVBUF is
 * congested: its port's bit is set in the congestion map of its address,
 * and it clears again once the queue falls below a quarter (hysteresis, as
 * Linux RDS).  Senders test the bit of the destination port in the map of
 * the destination address before they queue a message: a non-blocking send
 * fails with ENOBUFS, a blocking one waits on the map's wait queue.
 *
 * Every address of a namespace that a socket is bound to, or that a
 * connection leads to, has one map.  On the loopback transport sender and
 * receiver share the map, so an update is seen at once; a transport that
 * crosses hosts carries map updates to its peer and applies the peer's to
 * its own copy of the peer's map.
 *
 * Maps are hashed by address (rn->cong_hash, RCU readers) and live as long
 * as a bound socket or a connection holds them: bounded by the bound
 * sockets and by max_conns, freed with their last reference.  Each map
 * lists the connections whose local map it is, so a change of a local
 * port reaches the transports of those connections only.
 *
 * RDS_CONG_MONITOR sockets that were refused a send to a port (mod 64) get
 * an RDS_CMSG_CONG_UPDATE notice when any such port changes state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/rds_doca.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rdsd.h"
#include "cong.h"
#include "stats.h"
#include "transport.h"

static struct hlist_head *rdsd_cong_bucket(struct rdsd_net *rn,
					   const struct in6_addr *addr)
{
	u32 key = (__force u32)(addr->s6_addr32[0] ^ addr->s6_addr32[1] ^
				addr->s6_addr32[2] ^ addr->s6_addr32[3]);

	return &rn->cong_hash[hash_32(key, RDSD_CONG_HASH_BITS)];
}

/* The map of @addr with a new reference, or NULL; RCU or cong_lock held. */
static struct rdsd_cong_map *rdsd_cong_lookup(struct rdsd_net *rn,
					      const struct in6_addr *addr)
{
	struct rdsd_cong_map *map;

	hlist_for_each_entry_rcu(map, rdsd_cong_bucket(rn, addr), node,
				 lockdep_is_held(&rn->cong_lock)) {
		/* a map whose last reference is gone is on its way out */
		if (ipv6_addr_equal(&map->addr, addr) &&
		    refcount_inc_not_zero(&map->refs))
			return map;
	}
	return NULL;
}

/**
 * rdsd_cong_net_init - set up the congestion maps and monitors of a namespace
 * @rn: namespace.
 */
void rdsd_cong_net_init(struct rdsd_net *rn)
{
	unsigned int i;

	spin_lock_init(&rn->cong_lock);
	for (i = 0; i < ARRAY_SIZE(rn->cong_hash); i++)
		INIT_HLIST_HEAD(&rn->cong_hash[i]);
	rn->nr_cong_maps = 0;
	spin_lock_init(&rn->monitor_lock);
	INIT_LIST_HEAD(&rn->cong_monitors);
	atomic_set(&rn->cong_generation, 0);
	init_waitqueue_head(&rn->cong_poll_waitq);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_cong_net_init);

/**
 * rdsd_cong_net_exit - check that a namespace's maps are gone
 * @rn: namespace whose sockets and connections, which hold the maps, are
 *	gone.
 */
void rdsd_cong_net_exit(struct rdsd_net *rn)
{
	WARN_ON_ONCE(rn->nr_cong_maps);
	WARN_ON_ONCE(!list_empty(&rn->cong_monitors));
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_cong_net_exit);

/**
 * rdsd_cong_map_get - find or create the map of @addr
 * @rn: namespace.
 * @addr: address.
 * @gfp: allocation flags for a new map: GFP_KERNEL_ACCOUNT on behalf of a
 *	socket (bind, send), so the sender's memory cgroup pays for it.
 *
 * Returns the map with a reference (rdsd_cong_map_put()), or NULL.  Any
 * context that @gfp allows; nothing is allocated when the map exists.
 */
struct rdsd_cong_map *rdsd_cong_map_get(struct rdsd_net *rn,
					const struct in6_addr *addr, gfp_t gfp)
{
	struct rdsd_cong_map *map, *new;

	rcu_read_lock();
	map = rdsd_cong_lookup(rn, addr);
	rcu_read_unlock();
	if (map)
		return map;

	new = kzalloc(sizeof(*new), gfp);
	if (!new)
		return NULL;
	new->bits = kvcalloc(BITS_TO_LONGS(RDSD_NR_PORTS), sizeof(long), gfp);
	if (!new->bits) {
		kfree(new);
		return NULL;
	}
	new->addr = *addr;
	refcount_set(&new->refs, 1);
	init_waitqueue_head(&new->waitq);
	spin_lock_init(&new->conns_lock);
	INIT_HLIST_HEAD(&new->conns);

	spin_lock_bh(&rn->cong_lock);
	map = rdsd_cong_lookup(rn, addr);
	if (!map) {
		hlist_add_head_rcu(&new->node, rdsd_cong_bucket(rn, addr));
		rn->nr_cong_maps++;
		map = new;
		new = NULL;
	}
	spin_unlock_bh(&rn->cong_lock);
	if (new) {	/* lost a race: never visible */
		kvfree(new->bits);
		kfree(new);
	}
	return map;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_cong_map_get);

static void rdsd_cong_map_free_rcu(struct rcu_head *head)
{
	struct rdsd_cong_map *map = container_of(head, struct rdsd_cong_map,
						 rcu);

	kvfree(map->bits);
	kfree(map);
}

/**
 * rdsd_cong_map_put - drop a reference; the last one frees the map
 * @rn: namespace.
 * @map: map, may be NULL.
 *
 * Any context.  Nobody can wait on a map without holding a reference, and
 * no connection lists itself on a map it holds no reference to; lockless
 * lookups may still look at it until an RCU grace period has passed.
 */
void rdsd_cong_map_put(struct rdsd_net *rn, struct rdsd_cong_map *map)
{
	if (!map || !refcount_dec_and_test(&map->refs))
		return;
	WARN_ON_ONCE(!hlist_empty(&map->conns));
	spin_lock_bh(&rn->cong_lock);
	hlist_del_rcu(&map->node);
	rn->nr_cong_maps--;
	spin_unlock_bh(&rn->cong_lock);
	call_rcu(&map->rcu, rdsd_cong_map_free_rcu);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_cong_map_put);

/**
 * rdsd_cong_map_attach - list @conn on its local map
 * @conn: connection whose conn->lcong is set (with a reference).
 *
 * Until rdsd_cong_map_detach(), changes of the map reach @conn's transport.
 */
void rdsd_cong_map_attach(struct rdsd_conn *conn)
{
	struct rdsd_cong_map *map = conn->lcong;

	spin_lock_bh(&map->conns_lock);
	hlist_add_head_rcu(&conn->lcong_node, &map->conns);
	spin_unlock_bh(&map->conns_lock);
}

/**
 * rdsd_cong_map_detach - take @conn off its local map's list
 * @conn: connection, listed by rdsd_cong_map_attach() or not at all.
 *
 * Walkers under RCU may still see @conn until a grace period has passed
 * (connections are freed after one).
 */
void rdsd_cong_map_detach(struct rdsd_conn *conn)
{
	struct rdsd_cong_map *map = conn->lcong;

	if (!map || hlist_unhashed(&conn->lcong_node))
		return;
	spin_lock_bh(&map->conns_lock);
	hlist_del_init_rcu(&conn->lcong_node);
	spin_unlock_bh(&map->conns_lock);
}

/*
 * A local port of @map changed: tell the transports of the connections
 * that carry @map's address, and only those.  Any context.
 */
static void rdsd_cong_map_changed(struct rdsd_cong_map *map)
{
	struct rdsd_conn *conn;

	rcu_read_lock();
	hlist_for_each_entry_rcu(conn, &map->conns, lcong_node) {
		if (conn->trans->cong_changed &&
		    !test_bit(RDSD_CONN_DEAD, &conn->flags))
			conn->trans->cong_changed(conn);
	}
	rcu_read_unlock();
}

/**
 * rdsd_cong_map_updated - ports of @map changed state
 * @rn: namespace.
 * @map: the map.
 * @portmask: RDS_CONG_MONITOR_MASK() of every port that changed.
 *
 * Wakes blocked senders and pollers and notifies monitoring sockets.  Any
 * context.
 */
void rdsd_cong_map_updated(struct rdsd_net *rn, struct rdsd_cong_map *map,
			   u64 portmask)
{
	struct rdsd_sock *rs;

	rdsd_stat_inc(rn, cong_update_received);
	atomic_inc(&rn->cong_generation);
	smp_mb__after_atomic();	/* pairs with rdsd_cong_wait() */
	if (wq_has_sleeper(&map->waitq))
		wake_up_all(&map->waitq);
	if (wq_has_sleeper(&rn->cong_poll_waitq))
		wake_up_all(&rn->cong_poll_waitq);

	if (!portmask || list_empty_careful(&rn->cong_monitors))
		return;

	spin_lock_bh(&rn->monitor_lock);
	list_for_each_entry(rs, &rn->cong_monitors, cong_item) {
		bool wake;

		spin_lock(&rs->lock);
		rs->cong_notify |= rs->cong_mask & portmask;
		rs->cong_mask &= ~portmask;
		wake = rs->cong_notify != 0;
		spin_unlock(&rs->lock);
		if (wake)
			rs->sk.sk_data_ready(&rs->sk);
	}
	spin_unlock_bh(&rn->monitor_lock);
}

/**
 * rdsd_cong_pack - a map in its wire form
 * @wire: RDSD_NR_PORTS / 8 bytes: port p is bit p % 64 of little-endian
 *	word p / 64, so bit p % 8 of byte p / 8.
 * @bits: the map.
 */
void rdsd_cong_pack(__le64 *wire, const unsigned long *bits)
{
	unsigned int w, b;

	for (w = 0; w < RDSD_NR_PORTS / 64; w++) {
		u64 v = 0;

		for (b = 0; b < 64; b += BITS_PER_LONG)
			v |= (u64)READ_ONCE(bits[(w * 64 + b) / BITS_PER_LONG])
				<< b;
		wire[w] = cpu_to_le64(v);
	}
}

/**
 * rdsd_cong_unpack - apply a peer's map to our copy of it
 * @bits: our copy.
 * @wire: the map as received (rdsd_cong_pack()).
 *
 * Returns the ports that changed, folded mod 64 (RDS_CONG_MONITOR_MASK()).
 */
u64 rdsd_cong_unpack(unsigned long *bits, const __le64 *wire)
{
	unsigned int w, b;
	u64 changed = 0;

	for (w = 0; w < RDSD_NR_PORTS / 64; w++) {
		u64 new = le64_to_cpu(wire[w]), old = 0;

		for (b = 0; b < 64; b += BITS_PER_LONG)
			old |= (u64)bits[(w * 64 + b) / BITS_PER_LONG] << b;
		if (old == new)
			continue;
		changed |= old ^ new;
		for (b = 0; b < 64; b += BITS_PER_LONG)
			WRITE_ONCE(bits[(w * 64 + b) / BITS_PER_LONG],
				   (unsigned long)(new >> b));
	}
	return changed;
}

/**
 * rdsd_cong_set - mark a local port congested
 * @rn: namespace.
 * @map: map of the port's address.
 * @port: the port.
 */
void rdsd_cong_set(struct rdsd_net *rn, struct rdsd_cong_map *map,
		   __be16 port)
{
	if (!test_and_set_bit(be16_to_cpu(port), map->bits)) {
		rdsd_cong_map_updated(rn, map, RDS_CONG_MONITOR_MASK(ntohs(port)));
		rdsd_cong_map_changed(map);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_cong_set);

/**
 * rdsd_cong_clear - mark a local port uncongested
 * @rn: namespace.
 * @map: map of the port's address.
 * @port: the port.
 */
void rdsd_cong_clear(struct rdsd_net *rn, struct rdsd_cong_map *map,
		     __be16 port)
{
	if (test_and_clear_bit(be16_to_cpu(port), map->bits)) {
		rdsd_cong_map_updated(rn, map, RDS_CONG_MONITOR_MASK(ntohs(port)));
		rdsd_cong_map_changed(map);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_cong_clear);

/**
 * rdsd_cong_wait - wait until @port of @map is not congested
 * @rs: sending socket.
 * @map: map of the destination address.
 * @port: destination port.
 * @nonblock: fail with -ENOBUFS instead of waiting.
 * @timeo: remaining send timeout, updated.
 *
 * Returns 0 when the port is free, -ENOBUFS, -ETIMEDOUT when the send
 * timeout ran out, or -ERESTARTSYS/-EINTR on a signal.  Process context.
 */
int rdsd_cong_wait(struct rdsd_sock *rs, struct rdsd_cong_map *map,
		   __be16 port, bool nonblock, long *timeo)
{
	struct rdsd_net *rn = rdsd_sk_net(rs);
	long t;

	if (!rdsd_cong_test(map, port))
		return 0;

	if (nonblock) {
		/* poll() reports map updates from this generation on */
		int gen = atomic_read(&rn->cong_generation);

		smp_rmb();	/* read the generation before the bit */
		if (!rdsd_cong_test(map, port))
			return 0;
		if (READ_ONCE(rs->cong_monitor)) {
			spin_lock_bh(&rs->lock);
			rs->cong_mask |= RDS_CONG_MONITOR_MASK(ntohs(port));
			spin_unlock_bh(&rs->lock);
			/* an update may have come in meanwhile */
			if (!rdsd_cong_test(map, port))
				return 0;
		}
		WRITE_ONCE(rs->cong_track, gen);
		WRITE_ONCE(rs->seen_congestion, true);
		rdsd_stat_inc(rn, send_cong_error);
		return -ENOBUFS;
	}

	rdsd_stat_inc(rn, send_cong_blocked);
	t = wait_event_interruptible_timeout(map->waitq,
					     !rdsd_cong_test(map, port),
					     *timeo);
	if (t < 0)
		return sock_intr_errno(*timeo);
	if (t == 0)
		return -ETIMEDOUT;
	*timeo = t;
	return 0;
}

/**
 * rdsd_cong_monitor_set - turn RDS_CONG_MONITOR on or off
 * @rs: socket.
 * @on: new state.
 */
void rdsd_cong_monitor_set(struct rdsd_sock *rs, bool on)
{
	struct rdsd_net *rn = rdsd_sk_net(rs);

	spin_lock_bh(&rn->monitor_lock);
	if (on && !rs->cong_monitor)
		list_add_tail(&rs->cong_item, &rn->cong_monitors);
	else if (!on && rs->cong_monitor)
		list_del_init(&rs->cong_item);
	WRITE_ONCE(rs->cong_monitor, on);
	spin_unlock_bh(&rn->monitor_lock);

	if (!on) {
		spin_lock_bh(&rs->lock);
		rs->cong_mask = 0;
		rs->cong_notify = 0;
		spin_unlock_bh(&rs->lock);
	}
}

/**
 * rdsd_cong_updated_since - has any map changed since the last call?
 * @rs: socket; its cong_track remembers the generation last seen.
 */
bool rdsd_cong_updated_since(struct rdsd_sock *rs)
{
	int gen = atomic_read(&rdsd_sk_net(rs)->cong_generation);

	if (likely(READ_ONCE(rs->cong_track) == gen))
		return false;
	WRITE_ONCE(rs->cong_track, gen);
	return true;
}
