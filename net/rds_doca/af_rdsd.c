// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca socket family.
 *
 * Registers the address family given by the "family" module parameter
 * (AF_INET_OFFLOAD, 25, by default; 21 to stand in for Linux RDS) and
 * implements its socket calls: SOCK_SEQPACKET sockets bound to an IPv4
 * or IPv6 address that send and receive whole messages to and from any
 * peer of that family.
 * The send and receive paths live in send.c and recv.c; this file holds
 * socket creation and release, options, ioctls, poll() and module setup.
 *
 * Lifetime: a socket's struct rdsd_sock is its struct sock.  Release
 * unhooks it from everything that can find it (congestion monitors,
 * receive queue, bind table); messages it sent and that are still on
 * their way keep it alive through their socket reference, and its memory
 * is freed after an RCU grace period.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/rds_doca.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include <kunit/visibility.h>

#include "rdsd.h"
#include "bind.h"
#include "cong.h"
#include "conn.h"
#include "dma.h"
#include "info.h"
#include "message.h"
#include "mr.h"
#include "netlink.h"
#include "recv.h"
#include "send.h"
#include "stats.h"
#include "sysctl.h"
#include "transport.h"
#include "zcopy.h"

int rdsd_family __ro_after_init = AF_INET_OFFLOAD;
module_param_named(family, rdsd_family, int, 0444);
MODULE_PARM_DESC(family,
		 "address family to register (default 25, AF_INET_OFFLOAD; 21 replaces Linux RDS)");
EXPORT_SYMBOL_IF_KUNIT(rdsd_family);

unsigned int rdsd_max_msg_size __ro_after_init = RDSD_MAX_MSG_SIZE;
module_param_named(max_msg_size, rdsd_max_msg_size, uint, 0444);
MODULE_PARM_DESC(max_msg_size,
		 "largest message a socket sends until RDS_DOCA_MSG_MAX says otherwise (default 1 MiB, as Linux RDS; at most 64 MiB)");

struct workqueue_struct *rdsd_wq;
static unsigned int rdsd_net_id __read_mostly;

struct rdsd_net *rdsd_net(const struct net *net)
{
	return net_generic(net, rdsd_net_id);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_net);

static struct proto rdsd_proto = {
	.name		= "RDS_DOCA",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct rdsd_sock),
};

static int rdsd_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct rdsd_sock *rs;

	if (!sk)
		return 0;
	rs = rdsd_sk(sk);

	sock_orphan(sk);
	rdsd_cong_monitor_set(rs, false);
	xa_erase_bh(&rdsd_sk_net(rs)->socks, rs->id);
	rdsd_recv_purge(rs);		/* marks it dead: no more notices */
	rdsd_notify_purge(rs);
	rdsd_mr_drop_all(rs);
	rdsd_unbind(rs);
	if (rs->conn) {
		rdsd_conn_put(rs->conn);	/* the cache's */
		rs->conn = NULL;
	}
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static void rdsd_destruct(struct sock *sk)
{
	struct rdsd_sock *rs = rdsd_sk(sk);

	WARN_ON_ONCE(!list_empty(&rs->send_queue));
	WARN_ON_ONCE(!list_empty(&rs->recv_queue));
	WARN_ON_ONCE(!list_empty(&rs->notify_queue));
	WARN_ON_ONCE(!xa_empty(&rs->mrs));
	xa_destroy(&rs->mrs);
	/* every zero-copy message held the socket: all are reported */
	WARN_ON_ONCE(rs->zc_busy != rs->zc_ready);
	kfree(rs->zc_ring);
	mutex_destroy(&rs->zc_read);
}

/*
 * connect() sets the default destination.  As Linux RDS: AF_INET6 with
 * an address neither unicast nor IPv4-mapped, or mapping an address no
 * one can be sent to, gets EPROTOTYPE; AF_INET's 0.0.0.0 EDESTADDRREQ;
 * a link-local address without a scope id, or on another link than the
 * bound one, EINVAL.
 */
static int rdsd_connect(struct socket *sock, struct sockaddr *uaddr,
			int addr_len, int flags)
{
	struct rdsd_sock *rs = rdsd_sk(sock->sk);
	struct in6_addr addr;
	__be16 port;
	int ret, scope;

	if (addr_len < offsetofend(struct sockaddr, sa_family))
		return -EINVAL;
	if (uaddr->sa_family != AF_INET && uaddr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	ret = rdsd_sockaddr_get(uaddr, addr_len, &addr, &port, &scope);
	if (ret)
		return ret;
	if (!rdsd_addr_unicast(&addr)) {
		if (uaddr->sa_family == AF_INET6)
			return -EPROTOTYPE;
		return rdsd_addr4(&addr) == htonl(INADDR_ANY) ?
		       -EDESTADDRREQ : -EINVAL;
	}

	lock_sock(sock->sk);
	if (scope && rs->bound && rs->bound_scope &&
	    scope != rs->bound_scope) {
		ret = -EINVAL;
	} else {
		spin_lock_bh(&rs->lock);
		rs->conn_addr = addr;
		rs->conn_port = port;
		rs->conn_scope = scope;
		spin_unlock_bh(&rs->lock);
	}
	release_sock(sock->sk);
	return ret;
}

/*
 * As Linux RDS: an IPv4 socket's names are struct sockaddr_in, an IPv6
 * one's struct sockaddr_in6; an unbound socket names the family of the
 * address it is connected to, with no address, or AF_UNSPEC.
 */
static int rdsd_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_storage *ss = (struct sockaddr_storage *)uaddr;
	struct rdsd_sock *rs = rdsd_sk(sock->sk);
	int ret;

	lock_sock(sock->sk);
	if (peer) {
		ret = -ENOTCONN;
		if (!ipv6_addr_any(&rs->conn_addr))
			ret = rdsd_sockaddr_put(ss, &rs->conn_addr,
						rs->conn_port, rs->conn_scope);
	} else if (rs->bound) {
		ret = rdsd_sockaddr_put(ss, &rs->bound_addr, rs->bound_port,
					rs->bound_scope);
	} else if (!ipv6_addr_any(&rs->conn_addr)) {
		ret = rdsd_sockaddr_put(ss, &rs->conn_addr, 0, 0);
		if (ss->ss_family == AF_INET)
			((struct sockaddr_in *)ss)->sin_addr.s_addr = 0;
		else
			((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_any;
	} else {
		memset(ss, 0, sizeof(struct sockaddr_in));
		ss->ss_family = AF_UNSPEC;
		ret = sizeof(struct sockaddr_in);
	}
	release_sock(sock->sk);
	return ret;
}

static __poll_t rdsd_poll(struct file *file, struct socket *sock,
			  poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct rdsd_sock *rs = rdsd_sk(sk);
	bool seen = READ_ONCE(rs->seen_congestion);
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	if (seen)
		poll_wait(file, &rdsd_sk_net(rs)->cong_poll_waitq, wait);

	if (READ_ONCE(rs->cong_monitor)) {
		if (READ_ONCE(rs->cong_notify))
			mask |= EPOLLIN | EPOLLRDNORM;
	} else if (seen && rdsd_cong_updated_since(rs)) {
		/*
		 * A congestion update since the refused send shows as
		 * readable, as in Linux RDS, and is reported once.
		 */
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLWRBAND;
		WRITE_ONCE(rs->seen_congestion, false);
	}
	if (!list_empty_careful(&rs->recv_queue) ||
	    !list_empty_careful(&rs->notify_queue) || READ_ONCE(rs->zc_ready))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(rs->snd_bytes) < rdsd_sndbuf(rs))
		mask |= EPOLLOUT | EPOLLWRNORM;
	if (READ_ONCE(sk->sk_err) ||
	    !skb_queue_empty_lockless(&sk->sk_error_queue))
		mask |= EPOLLERR;
	return mask;
}

/*
 * Does the socket's transport take a type of service?  As Linux RDS's
 * transports: InfiniBand and TCP do, loopback does not (the ioctl is
 * then ENOTTY).  Linux maps every value to 0 over TCP; rds_doca gives
 * each a connection of its own there too.
 */
static bool rdsd_tos_taken(const struct rdsd_transport_ops *trans)
{
	return trans && (trans->type == RDS_TRANS_IB ||
			 trans->type == RDS_TRANS_TCP);
}

/*
 * SIOCRDSSETTOS and SIOCRDSGETTOS, with Linux RDS's rules: a type of
 * service is set once the socket has a transport (bind() or
 * SO_RDS_TRANSPORT) that takes one, before the socket has sent, and only
 * once.  The socket's messages then go on connections of that type of
 * service only (rdsd_conn_get_outgoing()): over IB its service level or
 * traffic class, over TCP its IP TOS byte.
 */
static int rdsd_ioctl(struct socket *sock, unsigned int cmd,
		      unsigned long arg)
{
	struct rdsd_sock *rs = rdsd_sk(sock->sk);
	rds_tos_t tos;
	int ret = 0;

	switch (cmd) {
	case SIOCRDSSETTOS:
		if (get_user(tos, (rds_tos_t __user *)arg))
			return -EFAULT;
		lock_sock(sock->sk);
		if (!rdsd_tos_taken(rs->trans))
			ret = -ENOIOCTLCMD;	/* ENOTTY, as Linux */
		else if (rs->tos || rs->conn)
			ret = -EINVAL;
		else
			WRITE_ONCE(rs->tos, tos);
		release_sock(sock->sk);
		return ret;
	case SIOCRDSGETTOS:
		tos = READ_ONCE(rs->tos);
		return put_user(tos, (rds_tos_t __user *)arg) ? -EFAULT : 0;
	default:
		/* interface ioctls go to the core */
		return -ENOIOCTLCMD;
	}
}

/**
 * rdsd_sockaddr_get - the address and port a socket address names
 * @uaddr: a struct sockaddr_in or struct sockaddr_in6; an IPv4-mapped
 *	IPv6 address (::ffff:a.b.c.d) is that IPv4 address, as in Linux RDS.
 * @len: its length.
 * @addr: set to the address, IPv4-mapped for an IPv4 one; checked no
 *	further: the caller refuses the kinds its call does not take
 *	(rdsd_addr_unicast()).
 * @port: set to the port.
 * @scope: set to the scope id of a link-local IPv6 address, else 0.
 *
 * Returns 0; -EINVAL for a short address, another family or a link-local
 * IPv6 address without a scope id; -EPROTOTYPE for an IPv6 address that
 * is neither unicast nor IPv4-mapped (::, multicast); -EAFNOSUPPORT for
 * any other IPv6 address on a kernel without IPv6.
 */
int rdsd_sockaddr_get(const struct sockaddr *uaddr, int len,
		      struct in6_addr *addr, __be16 *port, int *scope)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)uaddr;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)uaddr;
	int type;

	*scope = 0;
	if (len < (int)offsetofend(struct sockaddr, sa_family))
		return -EINVAL;
	switch (uaddr->sa_family) {
	case AF_INET:
		if (len < (int)sizeof(*sin))
			return -EINVAL;
		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, addr);
		*port = sin->sin_port;
		return 0;
	case AF_INET6:
		if (len < (int)sizeof(*sin6))
			return -EINVAL;
		type = ipv6_addr_type(&sin6->sin6_addr);
		if (!(type & IPV6_ADDR_MAPPED)) {
			if (!(type & IPV6_ADDR_UNICAST))
				return -EPROTOTYPE;
			/* a link-local address means nothing without its link */
			if (type & IPV6_ADDR_LINKLOCAL) {
				if (!sin6->sin6_scope_id)
					return -EINVAL;
				*scope = sin6->sin6_scope_id;
			}
			if (!IS_ENABLED(CONFIG_IPV6))
				return -EAFNOSUPPORT;
		}
		*addr = sin6->sin6_addr;
		*port = sin6->sin6_port;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_sockaddr_get);

/**
 * rdsd_sockaddr_put - write a socket address for userspace
 * @ss: where, room for any.
 * @addr: the address: an IPv4-mapped one makes a struct sockaddr_in,
 *	any other a struct sockaddr_in6.
 * @port: the port.
 * @scope: the scope id of a link-local @addr.
 *
 * Returns the length written.
 */
int rdsd_sockaddr_put(struct sockaddr_storage *ss, const struct in6_addr *addr,
		      __be16 port, int scope)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	if (rdsd_addr_is4(addr)) {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = rdsd_addr4(addr);
		sin->sin_port = port;
		return sizeof(*sin);
	}
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_addr = *addr;
	sin6->sin6_port = port;
	sin6->sin6_scope_id = scope;
	return sizeof(*sin6);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_sockaddr_put);

/**
 * rdsd_addr_unicast - may @a be bound, or sent to?
 * @a: an address, IPv4-mapped for an IPv4 one.
 *
 * IPv4: not 0.0.0.0, the broadcast address or a multicast one; IPv6: a
 * unicast address (not ::), as Linux RDS.
 */
bool rdsd_addr_unicast(const struct in6_addr *a)
{
	__be32 v4;

	if (!rdsd_addr_is4(a))
		return ipv6_addr_type(a) & IPV6_ADDR_UNICAST;
	v4 = rdsd_addr4(a);
	return v4 != htonl(INADDR_ANY) && v4 != htonl(INADDR_BROADCAST) &&
	       !ipv4_is_multicast(v4);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_addr_unicast);

/**
 * rdsd_trace_addr - an address as trace events keep it
 * @sa: room for a struct sockaddr_in6, which "%pISc" prints.
 * @a: the address: an IPv4 one makes a struct sockaddr_in.
 */
void rdsd_trace_addr(u8 *sa, const struct in6_addr *a)
{
	struct sockaddr_storage ss;
	int len = rdsd_sockaddr_put(&ss, a, 0, 0);

	memset(sa, 0, sizeof(struct sockaddr_in6));
	memcpy(sa, &ss, len);
}

/**
 * rdsd_addr_name - an address as logs show it
 * @buf: where, RDSD_ADDR_STRLEN bytes are enough.
 * @len: its size.
 * @a: the address.
 * @scope: its link, for a link-local one.
 *
 * Returns what snprintf() returns.
 */
int rdsd_addr_name(char *buf, size_t len, const struct in6_addr *a,
		   int scope)
{
	if (rdsd_addr_is4(a))
		return snprintf(buf, len, "%pI4", &a->s6_addr32[3]);
	if (scope && (ipv6_addr_type(a) & IPV6_ADDR_LINKLOCAL))
		return snprintf(buf, len, "%pI6c%%%d", a, scope);
	return snprintf(buf, len, "%pI6c", a);
}

/**
 * rdsd_sockopt_int - read an int option's value
 * @optval: the caller's value.
 * @optlen: its length: at least sizeof(int), as the socket core's options.
 * @val: set to the value.
 *
 * Returns 0, -EINVAL for a short @optlen or -EFAULT.
 */
int rdsd_sockopt_int(sockptr_t optval, unsigned int optlen, int *val)
{
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(val, optval, sizeof(int)))
		return -EFAULT;
	return 0;
}

static int rdsd_set_bool(bool *opt, sockptr_t optval, unsigned int optlen)
{
	int value, ret;

	ret = rdsd_sockopt_int(optval, optlen, &value);
	if (!ret)
		*opt = !!value;
	return ret;
}

/* RDS_DOCA_MSG_MAX: the largest payload the socket sends. */
static int rdsd_set_msg_max(struct rdsd_sock *rs, sockptr_t optval,
			    unsigned int optlen)
{
	int value, ret;

	ret = rdsd_sockopt_int(optval, optlen, &value);
	if (ret)
		return ret;
	if (value <= 0 || value > RDSD_MSG_SIZE_LIMIT)
		return -EINVAL;
	WRITE_ONCE(rs->msg_max, value);
	return 0;
}

static int rdsd_set_transport(struct rdsd_sock *rs, sockptr_t optval,
			      unsigned int optlen)
{
	int type, ret;

	if (rs->trans)
		return -EOPNOTSUPP;	/* bound, or already chosen */
	if (optlen != sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&type, optval, sizeof(type)))
		return -EFAULT;
	if (type < 0 || type >= RDS_TRANS_COUNT)
		return -EINVAL;
	/* as Linux RDS: RDMA transports serve the initial namespace only */
	if (type != RDS_TRANS_TCP && !net_eq(sock_net(&rs->sk), &init_net))
		return -EPROTOTYPE;
	ret = rdsd_trans_type_available(type);
	if (ret)
		return ret;
	rs->trans = rdsd_trans_by_type(type);
	return 0;
}

static int rdsd_set_tstamp(struct sock *sk, sockptr_t optval,
			   unsigned int optlen, int optname)
{
	int val;

	/* EFAULT for a bad length is what Linux RDS answers */
	if (optlen != sizeof(int))
		return -EFAULT;
	if (copy_from_sockptr(&val, optval, sizeof(int)))
		return -EFAULT;
	if (optname == SO_TIMESTAMP_NEW)
		sock_set_flag(sk, SOCK_TSTAMP_NEW);
	if (val)
		sock_set_flag(sk, SOCK_RCVTSTAMP);
	else
		sock_reset_flag(sk, SOCK_RCVTSTAMP);
	return 0;
}

static int rdsd_set_rx_trace(struct rdsd_sock *rs, sockptr_t optval,
			     unsigned int optlen)
{
	struct rds_rx_trace_so trace;
	int i;

	if (optlen != sizeof(trace))
		return -EFAULT;
	if (copy_from_sockptr(&trace, optval, sizeof(trace)))
		return -EFAULT;
	if (trace.rx_traces > RDS_MSG_RX_DGRAM_TRACE_MAX)
		return -EFAULT;
	for (i = 0; i < trace.rx_traces; i++)
		if (trace.rx_trace_pos[i] >= RDS_MSG_RX_DGRAM_TRACE_MAX)
			return -EFAULT;

	WRITE_ONCE(rs->rx_traces, 0);
	for (i = 0; i < trace.rx_traces; i++)
		rs->rx_trace_pos[i] = trace.rx_trace_pos[i];
	WRITE_ONCE(rs->rx_traces, trace.rx_traces);
	return 0;
}

static int rdsd_setsockopt(struct socket *sock, int level, int optname,
			   sockptr_t optval, unsigned int optlen)
{
	struct sock *sk = sock->sk;
	struct rdsd_sock *rs = rdsd_sk(sk);
	bool on;
	int ret;

	if (level == SOL_SOCKET) {
		/* only where rdsd_create() asked for SOL_SOCKET options */
		if (optname == SO_ZEROCOPY)
			return rdsd_zcopy_set(rs, optval, optlen);
		return sock_setsockopt(sock, level, optname, optval, optlen);
	}
	if (level != SOL_RDS)
		return -ENOPROTOOPT;

	switch (optname) {
	case SO_ZEROCOPY:
		return rdsd_zcopy_set(rs, optval, optlen);
	case RDS_CANCEL_SENT_TO:
		return rdsd_cancel_sent_to(rs, optval, optlen);
	case RDS_GET_MR:
	case RDS_GET_MR_FOR_DEST:
	case RDS_DOCA_GET_MR_LIST:
		return rdsd_mr_get(rs, optname, optval, optlen);
	case RDS_FREE_MR:
		return rdsd_mr_free(rs, optval, optlen);
	case RDS_RECVERR:
		ret = rdsd_set_bool(&on, optval, optlen);
		if (!ret)
			WRITE_ONCE(rs->recverr, on);
		return ret;
	case RDS_CONG_MONITOR:
		ret = rdsd_set_bool(&on, optval, optlen);
		if (!ret)
			rdsd_cong_monitor_set(rs, on);
		return ret;
	case SO_RDS_TRANSPORT:
		lock_sock(sk);
		ret = rdsd_set_transport(rs, optval, optlen);
		release_sock(sk);
		return ret;
	case SO_TIMESTAMP_OLD:
	case SO_TIMESTAMP_NEW:
		lock_sock(sk);
		ret = rdsd_set_tstamp(sk, optval, optlen, optname);
		release_sock(sk);
		return ret;
	case SO_RDS_MSG_RXPATH_LATENCY:
		return rdsd_set_rx_trace(rs, optval, optlen);
	case RDS_DOCA_MSG_MAX:
		return rdsd_set_msg_max(rs, optval, optlen);
	default:
		return -ENOPROTOOPT;
	}
}

static int rdsd_getsockopt(struct socket *sock, int level, int optname,
			   char __user *optval, int __user *optlen)
{
	struct rdsd_sock *rs = rdsd_sk(sock->sk);
	int len, val;

	if (level != SOL_RDS)
		return -ENOPROTOOPT;
	if (optname >= RDS_INFO_FIRST && optname <= RDS_INFO_LAST)
		return rdsd_info_getsockopt(rs, optname, optval, optlen);
	if (get_user(len, optlen))
		return -EFAULT;

	switch (optname) {
	case RDS_RECVERR:
		val = READ_ONCE(rs->recverr);
		break;
	case SO_RDS_TRANSPORT:
		val = rs->trans ? rs->trans->type : RDS_TRANS_NONE;
		break;
	case SO_ZEROCOPY:
		val = sock_flag(sock->sk, SOCK_ZEROCOPY);
		break;
	case RDS_DOCA_MSG_MAX:
		val = READ_ONCE(rs->msg_max);
		break;
	default:
		return -ENOPROTOOPT;
	}

	if (len < sizeof(int))
		return -EINVAL;
	if (put_user(val, (int __user *)optval) ||
	    put_user(sizeof(int), optlen))
		return -EFAULT;
	return 0;
}

/*
 * .family stays unset: the number is a load-time parameter, and every socket
 * carries it in sk_family.
 */
static const struct proto_ops rdsd_proto_ops = {
	.owner		= THIS_MODULE,
	.release	= rdsd_release,
	.bind		= rdsd_bind,
	.connect	= rdsd_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= rdsd_getname,
	.poll		= rdsd_poll,
	.ioctl		= rdsd_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.setsockopt	= rdsd_setsockopt,
	.getsockopt	= rdsd_getsockopt,
	.sendmsg	= rdsd_sendmsg,
	.recvmsg	= rdsd_recvmsg,
	.mmap		= sock_no_mmap,
};

/*
 * The socket's wake-ups.  Unlike sock_def_readable() and
 * sock_def_write_space() they are not synchronous: the waker is a sender
 * or a completion handler that goes on running, and telling the scheduler
 * otherwise pulls the woken task onto the waker's CPU, where the two then
 * take turns instead of running side by side.  Each carries its poll key,
 * which rdsd_sk_wake() and poll()'s own sleepers filter on.  The send
 * buffer is the module's (rs->snd_bytes), not sk_wmem_alloc.
 */
static void rdsd_sk_wake_up(struct sock *sk, __poll_t events, int band)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_poll(&wq->wait, events);
	rcu_read_unlock();
	sk_wake_async(sk, events & EPOLLIN ? SOCK_WAKE_WAITD : SOCK_WAKE_SPACE,
		      band);
}

/* A message, a notice or a congestion report was queued. */
static void rdsd_sk_data_ready(struct sock *sk)
{
	rdsd_sk_wake_up(sk, EPOLLIN | EPOLLRDNORM, POLL_IN);
}

/* Send buffer or notice room came back. */
static void rdsd_sk_write_space(struct sock *sk)
{
	rdsd_sk_wake_up(sk, EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND, POLL_OUT);
}

int rdsd_sk_wake(struct wait_queue_entry *wq, unsigned int mode, int sync,
		 void *key)
{
	struct rdsd_sk_waiter *w = container_of(wq, struct rdsd_sk_waiter, wq);

	if (key && !(key_to_poll(key) & (w->events | EPOLLERR | EPOLLHUP)))
		return 0;
	return woken_wake_function(wq, mode, sync, key);
}

static int rdsd_create(struct net *net, struct socket *sock, int protocol,
		       int kern)
{
	struct rdsd_sock *rs;
	struct rdsd_net *rn;
	struct sock *sk;
	int ret;

	if (sock->type != SOCK_SEQPACKET || protocol)
		return -ESOCKTNOSUPPORT;

	sk = sk_alloc(net, rdsd_family, GFP_KERNEL, &rdsd_proto, kern);
	if (!sk)
		return -ENOMEM;
	rs = rdsd_sk(sk);
	rn = rdsd_net(net);
	/* NULL until the socket is set up; readers skip it */
	ret = xa_alloc_cyclic_bh(&rn->socks, &rs->id, NULL, xa_limit_31b,
				 &rn->sock_next, GFP_KERNEL);
	if (ret < 0) {
		sk_free(sk);
		return ret == -EBUSY ? -ENFILE : ret;
	}

	sock_init_data(sock, sk);
	sock->ops = &rdsd_proto_ops;
	sk->sk_protocol = protocol;
	sk->sk_destruct = rdsd_destruct;
	sk->sk_data_ready = rdsd_sk_data_ready;
	sk->sk_write_space = rdsd_sk_write_space;
	/* the bind table is read under RCU */
	sock_set_flag(sk, SOCK_RCU_FREE);

	INIT_HLIST_NODE(&rs->bind_node);
	spin_lock_init(&rs->lock);
	INIT_LIST_HEAD(&rs->send_queue);
	spin_lock_init(&rs->recv_lock);
	INIT_LIST_HEAD(&rs->recv_queue);
	INIT_LIST_HEAD(&rs->notify_queue);
	xa_init_flags(&rs->mrs, XA_FLAGS_LOCK_BH);
	INIT_LIST_HEAD(&rs->cong_item);
	spin_lock_init(&rs->zc_lock);
	mutex_init(&rs->zc_read);
	rs->msg_max = rdsd_max_msg_size;
#ifdef SOCK_CUSTOM_SOCKOPT
	/*
	 * SOL_SOCKET options come to rdsd_setsockopt(), which takes
	 * SO_ZEROCOPY (the core takes it only for its own families) and
	 * hands the others to the core.
	 */
	set_bit(SOCK_CUSTOM_SOCKOPT, &sock->flags);
#endif

	xa_store_bh(&rn->socks, rs->id, rs, GFP_KERNEL);	/* reserved */
	return 0;
}

static struct net_proto_family rdsd_family_ops __ro_after_init = {
	.create	= rdsd_create,
	.owner	= THIS_MODULE,
};

static int __net_init rdsd_net_init(struct net *net)
{
	struct rdsd_net *rn = rdsd_net(net);
	int ret;

	/* each part sets up what it owns; only the first can fail */
	ret = rdsd_stats_net_init(rn);
	if (ret)
		return ret;
	rn->net = net;
	rdsd_mr_net_init(rn);
	xa_init_flags(&rn->socks, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	rdsd_bind_net_init(rn);
	rdsd_cong_net_init(rn);
	rdsd_conn_net_init(rn);
	return 0;
}

static void __net_exit rdsd_net_exit(struct net *net)
{
	struct rdsd_net *rn = rdsd_net(net);

	/* init in reverse; sockets hold their namespace: none is left */
	rdsd_conn_net_exit(rn);
	WARN_ON_ONCE(!xa_empty(&rn->conns));
	rdsd_cong_net_exit(rn);
	WARN_ON_ONCE(!xa_empty(&rn->socks));
	rdsd_mr_net_exit(rn);
	rdsd_stats_net_exit(rn);
}

static struct pernet_operations rdsd_net_ops = {
	.init	= rdsd_net_init,
	.exit	= rdsd_net_exit,
	.id	= &rdsd_net_id,
	.size	= sizeof(struct rdsd_net),
};

static int __init rdsd_init(void)
{
	int ret;

	BUILD_BUG_ON(RDSD_MSG_SIZE_LIMIT != RDS_DOCA_MSG_SIZE_LIMIT);
	if (rdsd_family <= AF_UNSPEC || rdsd_family >= NPROTO) {
		pr_err("family=%d is not an address family number (1..%d)\n",
		       rdsd_family, NPROTO - 1);
		return -EINVAL;
	}
	if (!rdsd_max_msg_size || rdsd_max_msg_size > RDSD_MSG_SIZE_LIMIT) {
		pr_err("max_msg_size=%u is out of range (1..%u)\n",
		       rdsd_max_msg_size, RDSD_MSG_SIZE_LIMIT);
		return -EINVAL;
	}
	rdsd_family_ops.family = rdsd_family;

	rdsd_wq = alloc_workqueue("rds_doca", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!rdsd_wq)
		return -ENOMEM;

	ret = rdsd_dma_init();
	if (ret)
		goto err_wq;

	ret = proto_register(&rdsd_proto, 1);
	if (ret)
		goto err_dma;

	ret = register_pernet_subsys(&rdsd_net_ops);
	if (ret)
		goto err_proto;

	ret = rdsd_trans_init();
	if (ret)
		goto err_pernet;

	ret = sock_register(&rdsd_family_ops);
	if (ret) {
		if (ret == -EEXIST)
			pr_err("address family %d is already registered%s; unload its owner or load rds_doca with another family=\n",
			       rdsd_family,
			       rdsd_family == AF_RDS ? " (by rds.ko)" : "");
		else
			pr_err("cannot register address family %d: %d\n",
			       rdsd_family, ret);
		goto err_trans;
	}
	ret = rdsd_sysctl_init();
	if (ret) {
		pr_err("cannot register the sysctl files: %d\n", ret);
		goto err_sock;
	}
	ret = rdsd_nl_init();
	if (ret) {
		pr_err("cannot register the generic netlink family: %d\n", ret);
		goto err_sysctl;
	}
	pr_info("address family %d registered\n", rdsd_family);
	return 0;

err_sysctl:
	rdsd_sysctl_exit();
err_sock:
	sock_unregister(rdsd_family);
err_trans:
	/* as at unload: what a peer connected meanwhile goes first */
	rdsd_trans_stop();
	unregister_pernet_subsys(&rdsd_net_ops);
	rdsd_trans_exit();
	rcu_barrier();	/* connections are freed after a grace period */
	goto err_proto;
err_pernet:
	unregister_pernet_subsys(&rdsd_net_ops);
err_proto:
	proto_unregister(&rdsd_proto);
	rdsd_msg_pool_drain();
err_dma:
	rdsd_dma_exit();
err_wq:
	destroy_workqueue(rdsd_wq);
	return ret;
}

static void __exit rdsd_exit(void)
{
	rdsd_nl_exit();
	rdsd_sysctl_exit();
	sock_unregister(rdsd_family);
	rdsd_trans_stop();
	unregister_pernet_subsys(&rdsd_net_ops);	/* every connection */
	rdsd_trans_exit();
	rdsd_dma_exit();	/* no socket is left to copy */
	rcu_barrier();	/* connections are freed after a grace period */
	proto_unregister(&rdsd_proto);
	rdsd_msg_pool_drain();	/* no message is left */
	destroy_workqueue(rdsd_wq);
}

module_init(rdsd_init);
module_exit(rdsd_exit);

MODULE_DESCRIPTION("Reliable datagram sockets over RDMA");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDSD_VERSION);
/*
 * No MODULE_ALIAS_NETPROTO(): a socket() call must not load the module for
 * any user.  An administrator loads it (modprobe, modules-load.d), as
 * distributions do for rds.ko.
 */
