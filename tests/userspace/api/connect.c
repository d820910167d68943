// SPDX-License-Identifier: GPL-2.0
/*
 * getsockname(), getpeername() and connect(): the names a socket
 * reports, the destinations connect() refuses, and what it changes.
 */
#include "api.h"

#include <sys/uio.h>

/* getpeername() of @fd fails with ENOTCONN: a check named @what. */
static void no_peer(int fd, const char *what)
{
	struct sockaddr_in got;
	socklen_t len = sizeof(got);

	is_err(getpeername(fd, (struct sockaddr *)&got, &len), ENOTCONN, "%s",
	       what);
}

void test_names(void)
{
	struct sockaddr_in got, to = sin_make(cfg.peer, 4242);
	socklen_t len;
	int fd;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;

	/* rds_getname(): unbound, unconnected: AF_UNSPEC, sockaddr_in size */
	memset(&got, 0xa5, sizeof(got));
	len = sizeof(got);
	is_ok(getsockname(fd, (struct sockaddr *)&got, &len),
	      "getsockname on a fresh socket");
	is_eq(len, sizeof(got), "fresh socket: length 16");
	ok(got.sin_family == AF_UNSPEC && got.sin_port == 0 &&
	   got.sin_addr.s_addr == 0, "fresh socket: AF_UNSPEC, all zero");

	no_peer(fd, "getpeername unconnected -> ENOTCONN");

	/* connected but unbound: the connected family, zero address */
	is_ok(connect_in(fd, to), "connect an unbound socket");
	memset(&got, 0xa5, sizeof(got));
	len = sizeof(got);
	is_ok(getsockname(fd, (struct sockaddr *)&got, &len),
	      "getsockname connected, unbound");
	ok(len == sizeof(got) && got.sin_family == AF_INET &&
	   got.sin_port == 0 && got.sin_addr.s_addr == 0,
	   "connected, unbound: AF_INET, zero address and port");
	memset(&got, 0xa5, sizeof(got));
	len = sizeof(got);
	is_ok(getpeername(fd, (struct sockaddr *)&got, &len),
	      "getpeername connected");
	ok(len == sizeof(got) && got.sin_family == AF_INET &&
	   got.sin_port == to.sin_port &&
	   got.sin_addr.s_addr == to.sin_addr.s_addr &&
	   !memcmp(got.sin_zero, "\0\0\0\0\0\0\0\0", 8),
	   "getpeername returns the connected address");

	/* a short buffer gets a truncated address and the real length */
	memset(&got, 0xa5, sizeof(got));
	len = 4;
	is_ok(getpeername(fd, (struct sockaddr *)&got, &len),
	      "getpeername with a 4-byte buffer");
	ok(len == sizeof(got) && got.sin_family == AF_INET &&
	   got.sin_port == to.sin_port &&
	   got.sin_addr.s_addr == 0xa5a5a5a5,
	   "4 bytes copied, length 16 reported");
	close(fd);

	fd = bound_socket_cfg(false, 0, "setup");
	if (fd < 0)
		return;
	no_peer(fd, "getpeername bound, unconnected -> ENOTCONN");
	close(fd);
}

/* rds_connect() */
static const struct refusal connect_refusals[] = {
	{ "0.0.0.0", 4242, EDESTADDRREQ, "INADDR_ANY -> EDESTADDRREQ" },
	{ "224.0.0.1", 4242, EINVAL, "multicast -> EINVAL" },
	{ "255.255.255.255", 4242, EINVAL, "broadcast -> EINVAL" },
};

/* non-unicast IPv6 destinations are EPROTOTYPE in rds_connect() */
static const struct refusal connect_refusals_ipv6[] = {
	{ "::", 4242, EPROTOTYPE, "in6addr_any -> EPROTOTYPE" },
	{ "ff02::1", 4242, EPROTOTYPE, "ff02::1 -> EPROTOTYPE" },
	{ "::ffff:0.0.0.0", 4242, EPROTOTYPE, "::ffff:0.0.0.0 -> EPROTOTYPE" },
	{ "::ffff:255.255.255.255", 4242, EPROTOTYPE,
	  "::ffff:255.255.255.255 -> EPROTOTYPE" },
	{ "fe80::1", 4242, EINVAL, "fe80::1 without scope id -> EINVAL" },
};

void test_connect_errors(void)
{
	struct sockaddr_in sin = sin_make(cfg.peer, 4242);
	int fd;

	fd = bound_socket_cfg(false, 0, "setup");
	if (fd < 0)
		return;

	/* rds_connect() */
	addr_lens_refused(fd, CALL_CONNECT, sin);
	addrs_refused(fd, CALL_CONNECT, connect_refusals,
		      ARRAY_SIZE(connect_refusals));
	family_refused(fd, CALL_CONNECT, sin, AF_UNIX, EAFNOSUPPORT,
		       "AF_UNIX -> EAFNOSUPPORT");
	family_refused(fd, CALL_CONNECT, sin, AF_UNSPEC, EAFNOSUPPORT,
		       "AF_UNSPEC -> EAFNOSUPPORT (no disconnect)");

	is_err(connect(fd, NULL, sizeof(sin)), EFAULT, "NULL address -> EFAULT");

	no_peer(fd, "no failed connect set a peer");
	close(fd);
}

/*
 * An IPv4 socket sends to no IPv6 address (EOPNOTSUPP, rds_sendmsg()),
 * and what is no destination at all is refused first (EINVAL).
 */
void test_ipv6_from_ipv4(void)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	int fd;

	fd = bound_socket_cfg(false, 0, "setup");
	if (fd < 0)
		return;
	sin6.sin6_addr = in6_loopback;
	sin6.sin6_port = htons(4242);
	is_err(sendto(fd, "x", 1, 0, (struct sockaddr *)&sin6, sizeof(sin6)),
	       EOPNOTSUPP, "sendto ::1 -> EOPNOTSUPP");
	is_err(sendto(fd, "x", 1, 0, (struct sockaddr *)&sin6,
		      sizeof(sin6) - 1), EINVAL,
	       "sendto AF_INET6 with a short length -> EINVAL");
	sin6.sin6_addr = in6addr_any;
	is_err(sendto(fd, "x", 1, 0, (struct sockaddr *)&sin6, sizeof(sin6)),
	       EINVAL, "sendto :: -> EINVAL");
	sin6 = sin6_str("fe80::1", 4242);
	is_err(sendto(fd, "x", 1, 0, (struct sockaddr *)&sin6, sizeof(sin6)),
	       EINVAL, "sendto fe80::1 without scope id -> EINVAL");
	sin6.sin6_scope_id = 1;
	is_err(sendto(fd, "x", 1, 0, (struct sockaddr *)&sin6, sizeof(sin6)),
	       EOPNOTSUPP, "sendto fe80::1%%1 -> EOPNOTSUPP");
	close(fd);
}

/* The IPv6 forms of the connect() checks (rds_connect(), AF_INET6). */
void test_connect_errors_ipv6(void)
{
	struct sockaddr_in sin = sin_make(cfg.peer, 4242);
	int fd;

	fd = bound_socket_cfg(false, 0, "setup");
	if (fd < 0)
		return;
	family_refused(fd, CALL_CONNECT, sin, AF_INET6, EINVAL,
		       "AF_INET6 with a sockaddr_in length -> EINVAL");
	addrs_refused(fd, CALL_CONNECT, connect_refusals_ipv6,
		      ARRAY_SIZE(connect_refusals_ipv6));

	no_peer(fd, "no failed connect set a peer");
	close(fd);
}

void test_connect(void)
{
	union rds_sa to, got;
	socklen_t len;
	int a, b, c;
	char buf[64];

	if (!make_trio(&a, &b, &c, "setup: bind C"))
		return;

	to = sock_addr(b);
	is_ok(connect_sa(a, &to), "connect A to B");
	memset(&got, 0, sizeof(got));
	len = sizeof(got);
	ok(!getpeername(a, &got.sa, &len) && len == sa_len(&to) &&
	   sa_same(&got, &to), "getpeername returns B");

	is_eq(send(a, "hello", 5, 0), 5, "send() without address");
	recv_expect(b, "hello", 5, a, "B receives it from A");
	/*
	 * sock_write_iter() adds MSG_EOR for SOCK_SEQPACKET sockets, a
	 * flag rds_sendmsg() refuses: write() cannot send on RDS.
	 */
	is_err(write(a, "write", 5), EOPNOTSUPP,
	       "write() -> EOPNOTSUPP (MSG_EOR from sock_write_iter)");
	{
		struct iovec wv = { "writev", 6 };

		is_err(writev(a, &wv, 1), EOPNOTSUPP, "writev() -> EOPNOTSUPP");
	}
	/* read() is a plain recvmsg() */
	is_eq(send(a, "read", 4, 0), 4, "send() for read()");
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	memset(buf, 0, sizeof(buf));
	ok(read(b, buf, sizeof(buf)) == 4 && !memcmp(buf, "read", 4),
	   "read() receives a message");
	marker(a, b, "nothing from the failed write()s arrived");

	/* an explicit destination overrides the connected one */
	is_eq(send_str(a, c, "to-c"), 4, "sendmsg with an address");
	recv_expect(c, "to-c", 4, a, "it goes to the given address");

	/* connecting again replaces the destination */
	to = sock_addr(c);
	is_ok(connect_sa(a, &to), "connect again, to C");
	is_eq(send(a, "again", 5, 0), 5, "send() after reconnecting");
	recv_expect(c, "again", 5, a, "C receives it");
	quiet(b, "B receives nothing more");

	/* connect does not need the peer to exist */
	to = cfg_sa(true, 4242);
	is_ok(connect_sa(a, &to), "connect to a port nobody bound");
	close(c);
	close(a);
	close(b);
}
