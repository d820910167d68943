// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca bind table.
 *
 * Each network namespace has its own port space: a hash table of bound
 * sockets keyed by (address, port, and the link of a link-local
 * address).  Binding and unbinding take the namespace's bind_lock;
 * delivery looks sockets up under RCU and takes a
 * reference with refcount_inc_not_zero(), which is safe because sockets are
 * freed after a grace period (SOCK_RCU_FREE).
 *
 * Port 0 asks for a free port: the search starts at a random port and walks
 * the whole space once, skipping 0 and the probe port 1, as Linux RDS does.
 * A bound socket stays bound until it is closed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/in.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <net/net_namespace.h>

#include "rdsd.h"
#include "bind.h"
#include "cong.h"
#include "transport.h"

static struct hlist_head *rdsd_bind_bucket(struct rdsd_net *rn,
					   const struct in6_addr *addr,
					   __be16 port)
{
	u32 key = (__force u32)(addr->s6_addr32[0] ^ addr->s6_addr32[1] ^
				addr->s6_addr32[2] ^ addr->s6_addr32[3]) ^
		  ((__force u32)port << 16);

	return &rn->bind_hash[hash_32(key, RDSD_BIND_HASH_BITS)];
}

static struct rdsd_sock *__rdsd_lookup(struct rdsd_net *rn,
				       const struct in6_addr *addr,
				       __be16 port, int scope)
{
	struct rdsd_sock *rs;

	hlist_for_each_entry_rcu(rs, rdsd_bind_bucket(rn, addr, port),
				 bind_node, lockdep_is_held(&rn->bind_lock)) {
		if (ipv6_addr_equal(&rs->bound_addr, addr) &&
		    rs->bound_port == port && rs->bound_scope == scope)
			return rs;
	}
	return NULL;
}

/**
 * rdsd_find_bound - find the socket bound to @addr:@port
 * @rn: namespace.
 * @addr: address.
 * @port: port.
 * @scope: the link of a link-local @addr, else 0.
 *
 * Returns the socket with a reference (sock_put() when done), or NULL.
 * Any context.
 */
struct rdsd_sock *rdsd_find_bound(struct rdsd_net *rn,
				  const struct in6_addr *addr, __be16 port,
				  int scope)
{
	struct rdsd_sock *rs;

	rcu_read_lock();
	rs = __rdsd_lookup(rn, addr, port, scope);
	if (rs && !refcount_inc_not_zero(&rs->sk.sk_refcnt))
		rs = NULL;
	rcu_read_unlock();
	return rs;
}

/* Claim @port (host order) if free, with bind_lock held. */
static bool rdsd_try_port(struct rdsd_net *rn, struct rdsd_sock *rs,
			  const struct in6_addr *addr, int scope, u16 port)
{
	lockdep_assert_held(&rn->bind_lock);

	if (port == 0 || port == RDSD_PROBE_PORT)
		return false;
	if (__rdsd_lookup(rn, addr, htons(port), scope))
		return false;

	rs->bound_addr = *addr;
	rs->bound_scope = scope;
	rs->bound_port = htons(port);
	hlist_add_head_rcu(&rs->bind_node,
			   rdsd_bind_bucket(rn, addr, rs->bound_port));
	rn->nr_bound++;
	return true;
}

static int rdsd_add_bound(struct rdsd_net *rn, struct rdsd_sock *rs,
			  const struct in6_addr *addr, int scope, __be16 port)
{
	u16 start, p;
	int ret = -EADDRINUSE;

	spin_lock_bh(&rn->bind_lock);
	if (port) {
		if (rdsd_try_port(rn, rs, addr, scope, ntohs(port)))
			ret = 0;
		goto out;
	}
	start = get_random_u16();
	p = start;
	do {
		if (rdsd_try_port(rn, rs, addr, scope, p)) {
			ret = 0;
			break;
		}
	} while (++p != start);
out:
	spin_unlock_bh(&rn->bind_lock);
	if (!ret) {
		/* pairs with rdsd_sk_bound(): the address is set first */
		smp_store_release(&rs->bound, true);
	}
	return ret;
}

/**
 * rdsd_bind - the bind() socket call
 * @sock: socket.
 * @uaddr: a struct sockaddr_in or struct sockaddr_in6; an IPv4-mapped
 *	IPv6 address binds its IPv4 address.
 * @addr_len: its length.
 *
 * The address must be a unicast address that a transport serves here, a
 * link-local one with its link (the scope id), the connected address's
 * link if both are link-local; port 0 picks a free port.  A socket binds
 * once.  Every refused address is EINVAL, as Linux RDS, but one no
 * transport serves (EADDRNOTAVAIL).
 */
int rdsd_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sock *sk = sock->sk;
	struct rdsd_sock *rs = rdsd_sk(sk);
	struct rdsd_net *rn = rdsd_sk_net(rs);
	const struct rdsd_transport_ops *trans;
	struct rdsd_cong_map *map;
	struct in6_addr addr;
	__be16 port;
	int ret, scope;

	ret = rdsd_sockaddr_get(uaddr, addr_len, &addr, &port, &scope);
	if (ret)
		return ret == -EAFNOSUPPORT ? ret : -EINVAL;
	if (!rdsd_addr_unicast(&addr))
		return -EINVAL;
	if (port == htons(RDSD_PROBE_PORT))
		return -EINVAL;

	lock_sock(sk);
	ret = -EINVAL;
	if (rs->bound)
		goto out;
	if (scope && rs->conn_scope && scope != rs->conn_scope)
		goto out;

	trans = rdsd_trans_for_bind(sock_net(sk), &addr, scope,
				    rs->trans ? rs->trans->type : -1, &ret);
	if (!trans)
		goto out;

	map = rdsd_cong_map_get(rn, &addr, GFP_KERNEL_ACCOUNT);
	if (!map) {
		ret = -ENOMEM;
		goto out;
	}

	/* before the socket can be found: delivery may mark it congested */
	rs->lcong = map;
	ret = rdsd_add_bound(rn, rs, &addr, scope, port);
	if (ret) {
		rs->lcong = NULL;
		rdsd_cong_map_put(rn, map);
		goto out;
	}
	rs->trans = trans;
out:
	release_sock(sk);
	return ret;
}

/**
 * rdsd_unbind - remove a closing socket from the bind table
 * @rs: socket, bound or not.
 *
 * Lookups already under way may still find the socket; they see rs->dead
 * under the receive lock and drop what they carry.
 */
void rdsd_unbind(struct rdsd_sock *rs)
{
	struct rdsd_net *rn = rdsd_sk_net(rs);

	if (!rs->bound)
		return;

	spin_lock_bh(&rn->bind_lock);
	hlist_del_init_rcu(&rs->bind_node);
	rn->nr_bound--;
	spin_unlock_bh(&rn->bind_lock);

	if (rs->congested)
		rdsd_cong_clear(rn, rs->lcong, rs->bound_port);
	rdsd_cong_map_put(rn, rs->lcong);
	rs->lcong = NULL;
}

/**
 * rdsd_bind_net_init - set up the bound-address table of a namespace
 * @rn: namespace.
 */
void rdsd_bind_net_init(struct rdsd_net *rn)
{
	unsigned int i;

	spin_lock_init(&rn->bind_lock);
	for (i = 0; i < ARRAY_SIZE(rn->bind_hash); i++)
		INIT_HLIST_HEAD(&rn->bind_hash[i]);
}
