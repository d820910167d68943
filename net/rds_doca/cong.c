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
 * RDS_CONG_MONITOR sockets that were refused a send to a port (mod 64) get
 * an RDS_CMSG_CONG_UPDATE notice when any such port changes state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rds_doca.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rdsd.h"

/**
 * rdsd_cong_map_get - find or create the map of @addr
 * @rn: namespace.
 * @addr: address.
 *
 * Returns the map with a reference (rdsd_cong_map_put()), or NULL.
 * Process context.
 */
struct rdsd_cong_map *rdsd_cong_map_get(struct rdsd_net *rn, __be32 addr)
{
	struct rdsd_cong_map *map, *new;

	new = kvzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return NULL;
	new->addr = addr;
	refcount_set(&new->refs, 1);
	init_waitqueue_head(&new->waitq);

	spin_lock_bh(&rn->cong_lock);
	list_for_each_entry(map, &rn->cong_maps, node) {
		if (map->addr == addr) {
			refcount_inc(&map->refs);
			spin_unlock_bh(&rn->cong_lock);
			kvfree(new);
			return map;
		}
	}
	list_add(&new->node, &rn->cong_maps);
	spin_unlock_bh(&rn->cong_lock);
	return new;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_cong_map_get);

/**
 * rdsd_cong_map_put - drop a reference; the last one frees the map
 * @rn: namespace.
 * @map: map, may be NULL.
 *
 * Process context.  Nobody can wait on a map without holding a reference.
 */
void rdsd_cong_map_put(struct rdsd_net *rn, struct rdsd_cong_map *map)
{
	if (!map)
		return;
	spin_lock_bh(&rn->cong_lock);
	if (!refcount_dec_and_test(&map->refs)) {
		spin_unlock_bh(&rn->cong_lock);
		return;
	}
	list_del(&map->node);
	spin_unlock_bh(&rn->cong_lock);
	kvfree(map);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_cong_map_put);

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
		rdsd_conn_cong_changed(rn, map->addr);
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
		rdsd_conn_cong_changed(rn, map->addr);
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
