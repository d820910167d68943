// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca transport selection.
 *
 * The rules are Linux RDS's.  A socket bound to 127/8 uses the loopback
 * transport; any other address needs a transport that serves it: the one
 * owning the address's RDMA device, else TCP for any local address; an
 * address that is not the host's fails bind() with EADDRNOTAVAIL.
 * SO_RDS_TRANSPORT may name the transport before bind(); the address must
 * then be one it serves.  A connection between two ends of the same
 * address, or towards 127/8, goes over loopback whatever the socket's
 * transport; otherwise it uses the socket's transport.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/rds_doca.h>
#include <net/addrconf.h>
#include <net/route.h>

#include "rdsd.h"
#include "transport.h"

/*
 * Transports that serve addresses other than 127/8, in order of preference,
 * ending with NULL.
 */
static const struct rdsd_transport_ops *const rdsd_transports[] = {
	&rdsd_ib_transport,
	&rdsd_tcp_transport,
	NULL
};

/**
 * rdsd_trans_next - walk every transport, loopback first
 * @t: the last one returned, or NULL to start.
 *
 * Returns the next transport, or NULL after the last.
 */
const struct rdsd_transport_ops *rdsd_trans_next(const struct rdsd_transport_ops *t)
{
	const struct rdsd_transport_ops *const *p;

	if (!t)
		return &rdsd_loop_transport;
	if (t == &rdsd_loop_transport)
		return rdsd_transports[0];
	for (p = rdsd_transports; *p; p++)
		if (*p == t)
			return p[1];
	return NULL;
}

/**
 * rdsd_trans_by_type - the transport SO_RDS_TRANSPORT @type names, or NULL
 * @type: an RDS_TRANS_* number.
 */
const struct rdsd_transport_ops *rdsd_trans_by_type(int type)
{
	const struct rdsd_transport_ops *const *t;

	for (t = rdsd_transports; *t; t++)
		if ((*t)->type == type)
			return *t;
	return NULL;
}

/**
 * rdsd_trans_type_available - may SO_RDS_TRANSPORT select @type?
 * @type: an RDS_TRANS_* number.
 *
 * Returns 0, -EINVAL for a number that names no transport, or -ENOPROTOOPT
 * for a transport that is not available.
 */
int rdsd_trans_type_available(int type)
{
	if (type < 0 || type >= RDS_TRANS_COUNT)
		return -EINVAL;
	return rdsd_trans_by_type(type) ? 0 : -ENOPROTOOPT;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_trans_type_available);

/**
 * rdsd_addr_local - is @a an address of this host in @net?
 * @net: namespace.
 * @a: address, IPv4-mapped for an IPv4 one.
 * @scope: for a link-local @a, the interface it must be on; 0: any.
 */
bool rdsd_addr_local(struct net *net, const struct in6_addr *a, int scope)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct net_device *dev = NULL;
	bool ok;
#endif

	if (rdsd_addr_is4(a))
		return inet_addr_type(net, rdsd_addr4(a)) == RTN_LOCAL;
#if IS_ENABLED(CONFIG_IPV6)
	rcu_read_lock();
	scope = rdsd_addr_scope(a, scope);
	if (scope)
		dev = dev_get_by_index_rcu(net, scope);
	ok = (!scope || dev) && ipv6_chk_addr(net, a, dev, 0);
	rcu_read_unlock();
	return ok;
#else
	return false;
#endif
}

/*
 * @ss with the link @ifindex, if it is a link-local IPv6 address that
 * comes without one.
 */
static void rdsd_ss_link(struct sockaddr_storage *ss, int ifindex)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	if (ifindex && ss->ss_family == AF_INET6 && !sin6->sin6_scope_id &&
	    (ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL))
		sin6->sin6_scope_id = ifindex;
}

/**
 * rdsd_peer_addrs - the addresses of a connection a peer made to us
 * @local: our end's address, as the socket or rdma_cm id has it.
 * @peer: the peer's.
 * @ifindex: the interface the connection came in on, or 0: the link of a
 *	link-local address given without one (rdma_cm gives a request's
 *	addresses so; an accepted TCP socket's name has its link).
 * @laddr: set to our address.
 * @faddr: set to the peer's.
 * @scope: set to the link of a link-local pair, else 0.
 *
 * Returns 0, or -EINVAL for what no peer of ours makes: another family,
 * one of the two families each, the same address at both ends, a
 * loopback peer (which the loopback transport serves), or a link-local
 * address of no known link.
 */
int rdsd_peer_addrs(const struct sockaddr_storage *local,
		    const struct sockaddr_storage *peer, int ifindex,
		    struct in6_addr *laddr, struct in6_addr *faddr, int *scope)
{
	struct sockaddr_storage l = *local, p = *peer;
	__be16 port;
	int fscope;

	rdsd_ss_link(&l, ifindex);
	rdsd_ss_link(&p, ifindex);
	if (rdsd_sockaddr_get((const struct sockaddr *)&l, sizeof(l), laddr,
			      &port, scope) ||
	    rdsd_sockaddr_get((const struct sockaddr *)&p, sizeof(p), faddr,
			      &port, &fscope))
		return -EINVAL;
	if (rdsd_addr_is4(laddr) != rdsd_addr_is4(faddr) ||
	    ipv6_addr_equal(laddr, faddr) || rdsd_addr_loopback(faddr) ||
	    !rdsd_addr_unicast(faddr))
		return -EINVAL;
	if (!*scope)
		*scope = fscope;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_peer_addrs);

/**
 * rdsd_trans_for_bind - the transport serving a socket bound to @addr
 * @net: namespace.
 * @addr: address being bound.
 * @scope: its link, if link-local.
 * @forced_type: transport set with SO_RDS_TRANSPORT, or -1.
 * @err: set to the errno when no transport fits.
 */
const struct rdsd_transport_ops *rdsd_trans_for_bind(struct net *net,
						     const struct in6_addr *addr,
						     int scope,
						     int forced_type,
						     int *err)
{
	const struct rdsd_transport_ops *const *t;
	const struct rdsd_transport_ops *trans;

	if (forced_type >= 0) {
		trans = rdsd_trans_by_type(forced_type);
		if (!trans || trans->laddr_check(net, addr, scope)) {
			*err = -ENOPROTOOPT;
			return NULL;
		}
		return trans;
	}

	if (!rdsd_loop_transport.laddr_check(net, addr, scope))
		return &rdsd_loop_transport;

	for (t = rdsd_transports; *t; t++)
		if (!(*t)->laddr_check(net, addr, scope))
			return *t;
	*err = -EADDRNOTAVAIL;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_trans_for_bind);

/**
 * rdsd_trans_for_conn - the transport for a connection @laddr -> @faddr
 * @net: namespace.
 * @bound: transport of the sending socket.
 * @laddr: local address.
 * @faddr: peer address.
 */
const struct rdsd_transport_ops *rdsd_trans_for_conn(struct net *net,
						     const struct rdsd_transport_ops *bound,
						     const struct in6_addr *laddr,
						     const struct in6_addr *faddr)
{
	if (ipv6_addr_equal(laddr, faddr) || rdsd_addr_loopback(faddr))
		return &rdsd_loop_transport;
	return bound;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_trans_for_conn);

/**
 * rdsd_trans_init - set every transport up, at module load
 *
 * Returns 0, or the first error, with the transports set up before it
 * torn down again.
 */
int rdsd_trans_init(void)
{
	const struct rdsd_transport_ops *const *t;
	int ret;

	for (t = rdsd_transports; *t; t++) {
		ret = (*t)->init ? (*t)->init() : 0;
		if (ret)
			goto unwind;
	}
	return 0;

unwind:
	while (t-- != rdsd_transports) {
		if ((*t)->stop)
			(*t)->stop();
		if ((*t)->exit)
			(*t)->exit();
	}
	return ret;
}

/**
 * rdsd_trans_stop - no transport takes a new peer; first step of unload
 */
void rdsd_trans_stop(void)
{
	const struct rdsd_transport_ops *const *t;

	for (t = rdsd_transports; *t; t++)
		if ((*t)->stop)
			(*t)->stop();
}

/**
 * rdsd_trans_exit - tear every transport down, in reverse order
 *
 * Every connection is gone.
 */
void rdsd_trans_exit(void)
{
	const struct rdsd_transport_ops *const *t;

	for (t = rdsd_transports; *t; t++)
		;
	while (t-- != rdsd_transports)
		if ((*t)->exit)
			(*t)->exit();
}

/**
 * rdsd_trans_listen_port - the port transport @type takes peers on
 * @type: an RDS_TRANS_* number.
 *
 * Returns it, or 0 for a transport that listens on none or is not built.
 */
u16 rdsd_trans_listen_port(int type)
{
	const struct rdsd_transport_ops *t = rdsd_trans_by_type(type);

	return t && t->listen_port ? t->listen_port() : 0;
}
