// SPDX-License-Identifier: GPL-2.0
/*
 * IPv6: binding, sending, receiving and connecting with sockaddr_in6
 * between --addr6 and --peer6 (default ::1) over the transport that
 * serves them, the info snapshots of IPv6 objects, and no mixing of
 * IPv4 and IPv6 ends.
 */
#include "api.h"

#include <net/if.h>

static struct sockaddr_in6 sin6_of(const struct in6_addr *a, uint16_t port)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

	s6.sin6_addr = *a;
	s6.sin6_port = htons(port);
	return s6;
}

static const char *in6_text(const struct in6_addr *a)
{
	static char buf[2][INET6_ADDRSTRLEN];
	static int n;

	n ^= 1;
	return inet_ntop(AF_INET6, a, buf[n], sizeof(buf[n]));
}

/* Does the RDS6_INFO_SOCKETS (@v6) or RDS_INFO_SOCKETS snapshot list @ino? */
static int info_lists_sock(int fd, bool v6, uint64_t ino,
			   struct rds6_info_socket *out)
{
	socklen_t len;
	void *buf;
	int each, found = 0;
	size_t i;

	each = info_get(fd, v6 ? RDS6_INFO_SOCKETS : RDS_INFO_SOCKETS, &buf,
			&len);
	if (each < 0)
		return -1;
	for (i = 0; each && i + each <= len; i += each) {
		if (v6) {
			struct rds6_info_socket *s = (void *)((char *)buf + i);

			if (s->inum != ino)
				continue;
			*out = *s;
		} else {
			struct rds_info_socket *s = (void *)((char *)buf + i);

			if (s->inum != ino)
				continue;
		}
		found++;
	}
	free(buf);
	return found;
}

/* Connections @a -> @b in RDS6_INFO_CONNECTIONS (@v6) or the IPv4 form. */
static int info_lists_conn(int fd, bool v6, const struct in6_addr *a,
			   const struct in6_addr *b)
{
	socklen_t len;
	void *buf;
	int each, found = 0;
	size_t i;

	each = info_get(fd, v6 ? RDS6_INFO_CONNECTIONS : RDS_INFO_CONNECTIONS,
			&buf, &len);
	if (each < 0)
		return -1;
	for (i = 0; each && i + each <= len; i += each) {
		if (v6) {
			struct rds6_info_connection *c = (void *)((char *)buf + i);

			found += !memcmp(&c->laddr, a, sizeof(*a)) &&
				 !memcmp(&c->faddr, b, sizeof(*b));
		} else {
			found++;	/* every entry is an IPv4 one */
		}
	}
	free(buf);
	return found;
}

/* RDS_GET_MR_FOR_DEST of @len bytes at @buf for @dest. */
static int mr_for_dest(int fd, const struct sockaddr_in6 *dest, void *buf,
		       size_t len, uint64_t *cookie)
{
	struct rds_get_mr_for_dest_args args;

	memset(&args, 0, sizeof(args));
	memcpy(&args.dest_addr, dest, sizeof(*dest));
	args.vec.addr = (uintptr_t)buf;
	args.vec.bytes = len;
	args.cookie_addr = (uintptr_t)cookie;
	return setsockopt(fd, SOL_RDS, RDS_GET_MR_FOR_DEST, &args,
			  sizeof(args));
}

static uint64_t sock_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

void test_ipv6(void)
{
	struct sockaddr_in6 s6, got, from, to;
	struct rds6_info_socket si;
	union rds_sa to4;
	int a = -1, b = -1, c4, i, n4, tr;
	struct iovec iov;
	struct msghdr msg;
	socklen_t len;
	char buf[32];
	ssize_t r;

	a = rds_socket();
	b = rds_socket();
	if (!sys_ok(a, "socket") || !sys_ok(b, "socket"))
		goto out;
	if (!is_ok(bind_in6(a, sin6_of(&cfg.addr6, 0)), "bind %s",
		   in6_text(&cfg.addr6)) ||
	    !is_ok(bind_in6(b, sin6_of(&cfg.peer6, 0)), "bind %s",
		   in6_text(&cfg.peer6)))
		goto out;
	len = sizeof(got);
	memset(&got, 0, sizeof(got));
	ok(!getsockname(b, (struct sockaddr *)&got, &len) &&
	   len == sizeof(got) && got.sin6_family == AF_INET6 &&
	   !memcmp(&got.sin6_addr, &cfg.peer6, 16) && got.sin6_port,
	   "getsockname: sockaddr_in6 of the bound address, a port");
	to = got;
	if (cfg.transport6 >= 0) {
		tr = -1;
		get_int(a, SOL_RDS, SO_RDS_TRANSPORT, &tr);
		is_eq(tr, cfg.transport6, "SO_RDS_TRANSPORT: the transport of %s",
		      in6_text(&cfg.addr6));
	}

	msg_init(&msg, &iov, "six", 3);
	msg.msg_name = &to;
	msg.msg_namelen = sizeof(to);
	is_eq(sendmsg(a, &msg, 0), 3, "send %s -> %s", in6_text(&cfg.addr6),
	      in6_text(&cfg.peer6));
	msg.msg_namelen = sizeof(struct sockaddr_in);
	is_err(sendmsg(a, &msg, 0), EINVAL,
	       "AF_INET6 destination with msg_namelen 16 -> EINVAL");

	memset(&from, 0, sizeof(from));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	msg.msg_name = &from;
	msg.msg_namelen = sizeof(from);
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	r = recvmsg(b, &msg, MSG_DONTWAIT);
	ok(r == 3 && !memcmp(buf, "six", 3), "received");
	len = sizeof(got);
	getsockname(a, (struct sockaddr *)&got, &len);
	ok(msg.msg_namelen == sizeof(from) && from.sin6_family == AF_INET6 &&
	   from.sin6_port == got.sin6_port &&
	   !memcmp(&from.sin6_addr, &cfg.addr6, 16),
	   "source is a sockaddr_in6 of the sender");

	/* rds_sendmsg(): no mixing of IPv4 and IPv6 ends */
	to4 = sa_str("127.0.0.1", 4242);
	is_err(send_to(a, &to4, "x", 1, 0), EOPNOTSUPP,
	       "IPv6 socket to an IPv4 address -> EOPNOTSUPP");
	{
		struct in_addr lo;

		inet_pton(AF_INET, "127.0.0.1", &lo);
		c4 = bound_socket_at(lo, 0, "setup");
	}
	if (c4 >= 0) {
		struct sockaddr_in6 m = sin6_str("::ffff:127.0.0.1",
						 bound_port(c4));

		/* a v4-mapped destination is an IPv4 one */
		msg.msg_name = &m;
		msg.msg_namelen = sizeof(m);
		iov.iov_base = "x";
		iov.iov_len = 1;
		is_err(sendmsg(a, &msg, 0), EOPNOTSUPP,
		       "IPv6 socket to ::ffff:127.0.0.1 -> EOPNOTSUPP");
		s6 = sin6_of(&cfg.peer6, ntohs(to.sin6_port));
		is_err(sendto(c4, "x", 1, 0, (struct sockaddr *)&s6,
			      sizeof(s6)), EOPNOTSUPP,
		       "IPv4 socket to an IPv6 address -> EOPNOTSUPP");
		close(c4);
	}

	/* the info snapshots: IPv6 objects in the RDS6_ forms only */
	memset(&si, 0, sizeof(si));
	is_eq(info_lists_sock(a, true, sock_ino(a), &si), 1,
	      "RDS6_INFO_SOCKETS lists the socket");
	ok(!memcmp(&si.bound_addr, &cfg.addr6, 16) &&
	   si.bound_port == got.sin6_port,
	   "with its IPv6 address and port");
	is_eq(info_lists_sock(a, false, sock_ino(a), &si), 0,
	      "RDS_INFO_SOCKETS does not list an IPv6 socket");
	ok(info_lists_conn(a, true, &cfg.addr6, &cfg.peer6) >= 1,
	   "RDS6_INFO_CONNECTIONS lists %s -> %s", in6_text(&cfg.addr6),
	   in6_text(&cfg.peer6));

	/* connect with a sockaddr_in6, getpeername gives it back */
	is_ok(connect_in6(a, to), "connect to the peer's sockaddr_in6");
	memset(&from, 0, sizeof(from));
	len = sizeof(from);
	ok(!getpeername(a, (struct sockaddr *)&from, &len) &&
	   len == sizeof(from) && from.sin6_family == AF_INET6 &&
	   !memcmp(&from.sin6_addr, &cfg.peer6, 16) &&
	   from.sin6_port == to.sin6_port, "getpeername: sockaddr_in6");
	is_eq(send(a, "c6", 2, 0), 2, "send on the connected IPv6 socket");
	r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS);
	ok(r == 2 && !memcmp(buf, "c6", 2), "received");

	/* in order, once each */
	for (i = 0; i < 200; i++) {
		snprintf(buf, sizeof(buf), "m%d", i);
		if (send(a, buf, strlen(buf), 0) < 0)
			break;
	}
	is_eq(i, 200, "200 messages sent");
	for (n4 = 0; n4 < i; n4++) {
		char want[16];

		snprintf(want, sizeof(want), "m%d", n4);
		memset(buf, 0, sizeof(buf));
		r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS);
		if (r != (ssize_t)strlen(want) || memcmp(buf, want, r))
			break;
	}
	is_eq(n4, i, "received in order, once each");
	quiet(b, "nothing more");

	is_ok(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &to, sizeof(to)),
	      "RDS_CANCEL_SENT_TO with the peer's sockaddr_in6");
	if (cfg.impl_doca) {
		uint64_t cookie = 0;

		is_ok(mr_for_dest(a, &to, buf, sizeof(buf), &cookie),
		      "RDS_GET_MR_FOR_DEST to the IPv6 peer");
		ok(cookie != 0, "a cookie");
	}
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

/*
 * Link-local addresses need their link (a scope id), and a socket on
 * one link sends to no other (rds_bind(), rds_sendmsg()).
 */
void test_ipv6_scope(void)
{
	struct sockaddr_in6 ll = sin6_str("fe80::1", 4242);
	int fd;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	is_err(bind_in6(fd, ll), EINVAL, "bind fe80::1 without scope id -> EINVAL");
	ll.sin6_scope_id = 1;	/* lo: no link-local address there */
	is_err(bind_in6(fd, ll), EADDRNOTAVAIL,
	       "bind fe80::1%%lo (not an address of lo) -> EADDRNOTAVAIL");
	ll.sin6_scope_id = 0;
	is_err(connect_in6(fd, ll), EINVAL,
	       "connect fe80::1 without scope id -> EINVAL");
	ll.sin6_scope_id = 1;
	is_ok(connect_in6(fd, ll), "connect fe80::1%%1");
	ll.sin6_scope_id = 2;
	is_ok(connect_in6(fd, ll), "connect again, fe80::1%%2");
	/* rds_bind(): a link-local address on another link than the peer's */
	ll.sin6_scope_id = 1;
	is_err(bind_in6(fd, ll), EINVAL,
	       "bind fe80::1%%1 when connected to fe80::1%%2 -> EINVAL");
	close(fd);

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	if (is_ok(bind_in6(fd, sin6_of(&cfg.addr6, 0)), "bind %s",
		  in6_text(&cfg.addr6))) {
		ll.sin6_scope_id = 0;
		is_err(sendto(fd, "x", 1, 0, (struct sockaddr *)&ll,
			      sizeof(ll)), EINVAL,
		       "sendto fe80::1 without scope id -> EINVAL");
	}
	close(fd);
}

/* ::ffff:@a, port @port */
static struct sockaddr_in6 mapped(struct in_addr a, uint16_t port)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

	s6.sin6_addr.s6_addr[10] = 0xff;
	s6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&s6.sin6_addr.s6_addr[12], &a, 4);
	s6.sin6_port = htons(port);
	return s6;
}

/*
 * An IPv4-mapped IPv6 address (::ffff:a.b.c.d) in a sockaddr_in6 means
 * the IPv4 address, wherever a socket address is taken (rds_bind(),
 * rds_connect(), rds_sendmsg(), RDS_CANCEL_SENT_TO): the socket is an
 * IPv4 one, and getsockname(), getpeername() and recvmsg() answer with
 * sockaddr_in (rds_getname(), rds_recvmsg()).
 */
void test_ipv4_mapped(void)
{
	struct sockaddr_in6 m, name;
	struct sockaddr_in got;
	struct iovec iov;
	struct msghdr msg;
	socklen_t len;
	char buf[32];
	int a, b;
	ssize_t r;

	a = rds_socket();
	b = bound_socket_cfg(true, 0, "setup: bind B");
	if (!sys_ok(a, "socket") || b < 0)
		goto out;
	if (!is_ok(bind_in6(a, mapped(cfg.addr, 0)), "bind ::ffff:addr"))
		goto out;
	memset(&name, 0xa5, sizeof(name));
	len = sizeof(name);
	memcpy(&got, &name, sizeof(got));
	ok(!getsockname(a, (struct sockaddr *)&name, &len) &&
	   len == sizeof(got) && name.sin6_family == AF_INET,
	   "getsockname: a sockaddr_in");
	memcpy(&got, &name, sizeof(got));
	ok(got.sin_addr.s_addr == cfg.addr.s_addr && got.sin_port,
	   "getsockname: the IPv4 address, a port");

	/* to B through its mapped address */
	m = mapped(cfg.peer, bound_port(b));
	msg_init(&msg, &iov, "mapped", 6);
	msg.msg_name = &m;
	msg.msg_namelen = sizeof(m);
	is_eq(sendmsg(a, &msg, 0), 6, "send to ::ffff:peer");
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	memset(&name, 0, sizeof(name));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	msg.msg_name = &name;
	msg.msg_namelen = sizeof(name);
	r = recvmsg(b, &msg, MSG_DONTWAIT);
	ok(r == 6 && !memcmp(buf, "mapped", 6), "B receives it");
	memcpy(&got, &name, sizeof(got));
	ok(msg.msg_namelen == sizeof(got) && got.sin_family == AF_INET &&
	   got.sin_addr.s_addr == cfg.addr.s_addr &&
	   ntohs(got.sin_port) == bound_port(a),
	   "the source is A's sockaddr_in");

	/* connect through the mapped address, getpeername gives IPv4 */
	is_ok(connect_in6(a, m), "connect to ::ffff:peer");
	memset(&name, 0, sizeof(name));
	len = sizeof(name);
	memcpy(&got, &name, sizeof(got));
	ok(!getpeername(a, (struct sockaddr *)&name, &len) &&
	   len == sizeof(got) && name.sin6_family == AF_INET,
	   "getpeername: a sockaddr_in");
	memcpy(&got, &name, sizeof(got));
	ok(got.sin_addr.s_addr == cfg.peer.s_addr &&
	   ntohs(got.sin_port) == bound_port(b), "getpeername: B");
	is_eq(send(a, "c4", 2, 0), 2, "send on the connected socket");
	r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS);
	ok(r == 2 && !memcmp(buf, "c4", 2), "B receives it");

	is_ok(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &m, sizeof(m)),
	      "RDS_CANCEL_SENT_TO with ::ffff:peer");
	{
		struct sockaddr_in6 v6 = sin6_str("2001:db8::1", 4000);

		/* rds_cancel_sent_to() refuses no address */
		is_ok(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &v6,
				 sizeof(v6)),
		      "RDS_CANCEL_SENT_TO with an IPv6 address: nothing to cancel");
	}
	if (cfg.impl_doca) {
		uint64_t cookie = 0;

		/* rds_doca: B may use the region, through its mapped name */
		is_ok(mr_for_dest(a, &m, buf, sizeof(buf), &cookie),
		      "RDS_GET_MR_FOR_DEST to ::ffff:peer");
		ok(cookie != 0, "a cookie");
		m = sin6_str("2001:db8::1", 4000);
		is_ok(mr_for_dest(a, &m, buf, sizeof(buf), &cookie),
		      "RDS_GET_MR_FOR_DEST to an IPv6 address: a region for it");
	}
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

/* fe80::@n on the --link-local interface (scope @ifindex), port @port. */
static struct sockaddr_in6 ll_addr(int n, unsigned int ifindex, uint16_t port)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

	s6.sin6_addr.s6_addr[0] = 0xfe;
	s6.sin6_addr.s6_addr[1] = 0x80;
	s6.sin6_addr.s6_addr[15] = n;
	s6.sin6_scope_id = ifindex;
	s6.sin6_port = htons(port);
	return s6;
}

/*
 * @fd receives the 4 bytes @want from @from (address and port) with the
 * scope id @scope; the check is named @what.
 */
static void recv_from6(int fd, const char *want,
		       const struct sockaddr_in6 *from, unsigned int scope,
		       const char *what)
{
	struct sockaddr_in6 got;
	char buf[32];
	ssize_t r;

	memset(&got, 0, sizeof(got));
	r = recv_wait(fd, buf, sizeof(buf), (union rds_sa *)&got, NULL, 0,
		      ARRIVE_MS);
	ok_diag(r == 4 && !memcmp(buf, want, 4) &&
		got.sin6_family == AF_INET6 &&
		!memcmp(&got.sin6_addr, &from->sin6_addr, 16) &&
		got.sin6_port == from->sin6_port && got.sin6_scope_id == scope,
		what, "recv %zd, family %u, scope id %u", r, got.sin6_family,
		got.sin6_scope_id);
}

/*
 * Between fe80::1 on the link (socket @a, named @a6) and the global
 * --peer6, which the link also carries: a link-local socket may send to
 * a global address, which it reaches on its own link, and a global
 * socket to a link-local address with its scope id, as in Linux RDS.
 */
static void ll_global(int a, struct sockaddr_in6 a6, unsigned int ifx)
{
	struct sockaddr_in6 g6 = { .sin6_family = AF_INET6 }, to;
	char g[INET6_ADDRSTRLEN];
	int d = rds_socket();

	g6.sin6_addr = cfg.peer6;
	inet_ntop(AF_INET6, &cfg.peer6, g, sizeof(g));
	if (!sys_ok(d, "socket D") ||
	    !is_ok(bind_in6(d, g6), "bind D to the global %s", g))
		goto out;
	g6.sin6_port = htons(bound_port(d));

	is_eq(sendto(a, "ll-5", 4, 0, (struct sockaddr *)&g6, sizeof(g6)), 4,
	      "A (fe80::1%%%s) sends to %s", cfg_link_local, g);
	recv_from6(d, "ll-5", &a6, ifx,
		   "D receives it from fe80::1 with the link's scope id");

	to = a6;
	to.sin6_scope_id = 0;
	is_err(sendto(d, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)),
	       EINVAL, "D sends to fe80::1 without scope id -> EINVAL");
	is_eq(sendto(d, "ll-6", 4, 0, (struct sockaddr *)&a6, sizeof(a6)), 4,
	      "D answers fe80::1%%%s", cfg_link_local);
	recv_from6(a, "ll-6", &g6, 0,
		   "A receives the answer from the global address, no scope id");
out:
	if (d >= 0)
		close(d);
}

/*
 * Link-local addresses in use, between fe80::1 and fe80::2 of the
 * --link-local interface: the scope id comes back in every name, a
 * socket bound to one sends on its link only, and a connected one binds
 * on the peer's link.  With a global --peer6, on that link too, messages
 * cross between it and fe80::1 both ways.
 */
void test_ipv6_link_local(void)
{
	unsigned int ifx = if_nametoindex(cfg_link_local);
	struct sockaddr_in6 a6, b6, got, to;
	int a = -1, b = -1, c = -1;
	char buf[32];
	socklen_t len;
	ssize_t r;

	if (!ok_diag(ifx > 0, "the --link-local interface exists",
		     "%s: %s", cfg_link_local, tap_errname(errno)))
		return;
	a = rds_socket();
	b = rds_socket();
	c = rds_socket();
	if (!sys_ok(a, "socket A") || !sys_ok(b, "socket B") ||
	    !sys_ok(c, "socket C"))
		goto out;
	a6 = ll_addr(1, ifx, 0);
	b6 = ll_addr(2, ifx, 0);
	if (!is_ok(bind_in6(a, a6), "bind fe80::1%%%s", cfg_link_local) ||
	    !is_ok(bind_in6(b, b6), "bind fe80::2%%%s", cfg_link_local))
		goto out;
	len = sizeof(got);
	memset(&got, 0, sizeof(got));
	getsockname(a, (struct sockaddr *)&got, &len);
	ok(len == sizeof(got) && got.sin6_family == AF_INET6 &&
	   !memcmp(&got.sin6_addr, &a6.sin6_addr, 16) &&
	   got.sin6_scope_id == ifx && got.sin6_port,
	   "getsockname: fe80::1 with the link's scope id");
	a6.sin6_port = got.sin6_port;
	b6.sin6_port = htons(bound_port(b));

	/* A -> B, the source naming A's link */
	is_eq(sendto(a, "ll-1", 4, 0, (struct sockaddr *)&b6, sizeof(b6)), 4,
	      "send to fe80::2%%%s", cfg_link_local);
	recv_from6(b, "ll-1", &a6, ifx,
		   "B receives it from fe80::1 with the link's scope id");

	/*
	 * rds_sendmsg(): a link-local destination needs its scope id, even
	 * from a socket bound on that link; another link is refused
	 */
	to = b6;
	to.sin6_scope_id = 0;
	is_err(sendto(a, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)),
	       EINVAL, "send to fe80::2 without scope id -> EINVAL");
	to.sin6_scope_id = if_nametoindex("lo");
	is_err(sendto(a, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)),
	       EINVAL, "send to fe80::2%%lo from fe80::1%%%s -> EINVAL",
	       cfg_link_local);

	/* and back, to the name B received */
	is_eq(sendto(b, "ll-3", 4, 0, (struct sockaddr *)&a6, sizeof(a6)), 4,
	      "B answers fe80::1%%%s", cfg_link_local);
	r = recv_wait(a, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS);
	ok(r == 4 && !memcmp(buf, "ll-3", 4), "A receives the answer");
	ok(info_lists_conn(a, true, &a6.sin6_addr, &b6.sin6_addr) >= 1,
	   "RDS6_INFO_CONNECTIONS lists fe80::1 -> fe80::2");

	/* rds_bind() after rds_connect(): on the peer's link only */
	is_ok(connect_in6(c, b6), "connect C to fe80::2%%%s", cfg_link_local);
	to = ll_addr(1, if_nametoindex("lo"), 0);
	is_err(bind_in6(c, to), EINVAL,
	       "then bind fe80::1%%lo -> EINVAL (the peer's link is %s)",
	       cfg_link_local);
	if (is_ok(bind_in6(c, ll_addr(1, ifx, 0)), "bind fe80::1%%%s",
		  cfg_link_local)) {
		is_eq(send(c, "ll-4", 4, 0), 4, "send() on the connected C");
		r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS);
		ok(r == 4 && !memcmp(buf, "ll-4", 4), "B receives it");
	}
	if (!IN6_IS_ADDR_LOOPBACK(&cfg.peer6) &&
	    !IN6_IS_ADDR_UNSPECIFIED(&cfg.peer6) &&
	    !IN6_IS_ADDR_LINKLOCAL(&cfg.peer6))
		ll_global(a, a6, ifx);
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	if (c >= 0)
		close(c);
}
