/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca congestion maps (cong.c): which ports of an address are
 * congested, who waits for them and which connections to tell.
 */
#ifndef _RDSD_CONG_H
#define _RDSD_CONG_H

#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

struct rdsd_conn;
struct rdsd_net;
struct rdsd_sock;

/**
 * struct rdsd_cong_map - congested ports of one address
 * @node: on rdsd_net.cong_hash, protected by rdsd_net.cong_lock.
 * @refs: one per bound socket and per connection that points here.
 * @addr: the address whose ports the map describes.
 * @waitq: senders blocked until a port of this map is uncongested.
 * @conns_lock: protects @conns writers; readers use RCU.
 * @conns: connections whose local map (lcong) this is, each holding a
 *	reference: the ones a change of a port here concerns.
 * @rcu: frees the map after lockless lookups are done.
 * @bits: one bit per port, set while the port's socket is congested.
 *	Written with atomic bitops, read locklessly.  Allocated apart, so
 *	that 8 KiB of bits take 8 KiB and not the next slab size up.
 */
struct rdsd_cong_map {
	struct hlist_node	node;
	refcount_t		refs;
	struct in6_addr		addr;
	wait_queue_head_t	waitq;
	/* protects conns writers */
	spinlock_t		conns_lock;
	struct hlist_head	conns;
	struct rcu_head		rcu;
	unsigned long		*bits;
};

void rdsd_cong_net_init(struct rdsd_net *rn);
void rdsd_cong_net_exit(struct rdsd_net *rn);
struct rdsd_cong_map *rdsd_cong_map_get(struct rdsd_net *rn,
					const struct in6_addr *addr, gfp_t gfp);
void rdsd_cong_map_put(struct rdsd_net *rn, struct rdsd_cong_map *map);
void rdsd_cong_map_attach(struct rdsd_conn *conn);
void rdsd_cong_map_detach(struct rdsd_conn *conn);
void rdsd_cong_set(struct rdsd_net *rn, struct rdsd_cong_map *map,
		   __be16 port);
void rdsd_cong_clear(struct rdsd_net *rn, struct rdsd_cong_map *map,
		     __be16 port);
void rdsd_cong_pack(__le64 *wire, const unsigned long *bits);
u64 rdsd_cong_unpack(unsigned long *bits, const __le64 *wire);
void rdsd_cong_map_updated(struct rdsd_net *rn, struct rdsd_cong_map *map,
			   u64 portmask);
int rdsd_cong_wait(struct rdsd_sock *rs, struct rdsd_cong_map *map,
		   __be16 port, bool nonblock, long *timeo);
void rdsd_cong_monitor_set(struct rdsd_sock *rs, bool on);
bool rdsd_cong_updated_since(struct rdsd_sock *rs);

static inline bool rdsd_cong_test(const struct rdsd_cong_map *map,
				  __be16 port)
{
	return test_bit(be16_to_cpu(port), map->bits);
}

#endif /* _RDSD_CONG_H */
