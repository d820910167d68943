// SPDX-License-Identifier: GPL-2.0
/*
 * IPv6 on loopback: binding, sending, receiving and connecting with
 * sockaddr_in6, and no mixing of IPv4 and IPv6 ends.
 */
#include "api.h"

void test_ipv6(void)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 }, got, from;
	struct sockaddr_in to4;
	struct iovec iov;
	struct msghdr msg;
	socklen_t len;
	char buf[32];
	int a, b, c4;
	ssize_t r;

	s6.sin6_addr = in6_loopback;
	a = rds_socket();
	b = rds_socket();
	if (!is_ok(bind_in6(a, s6), "bind ::1") ||
	    !is_ok(bind_in6(b, s6), "bind another socket to ::1"))
		goto out;
	len = sizeof(got);
	memset(&got, 0, sizeof(got));
	ok(!getsockname(b, (struct sockaddr *)&got, &len) &&
	   len == sizeof(got) && got.sin6_family == AF_INET6 &&
	   !memcmp(&got.sin6_addr, &in6_loopback, 16) && got.sin6_port,
	   "getsockname: sockaddr_in6 ::1 with a port");

	msg_init(&msg, &iov, "six", 3);
	msg.msg_name = &got;
	msg.msg_namelen = sizeof(got);
	is_eq(sendmsg(a, &msg, 0), 3, "send ::1 -> ::1");
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
	   !memcmp(&from.sin6_addr, &in6_loopback, 16),
	   "source is a sockaddr_in6 of the sender");

	/* rds_sendmsg(): no mixing of IPv4 and IPv6 ends */
	to4 = sin_str("127.0.0.1", 4242);
	is_err(send_to(a, &to4, "x", 1, 0), EOPNOTSUPP,
	       "IPv6 socket to an IPv4 address -> EOPNOTSUPP");
	{
		struct in_addr lo;

		inet_pton(AF_INET, "127.0.0.1", &lo);
		c4 = bound_socket_at(lo, 0, "setup");
	}
	if (c4 >= 0) {
		struct sockaddr_in6 m = { .sin6_family = AF_INET6 };

		/* a v4-mapped destination is an IPv4 one */
		m.sin6_addr.s6_addr[10] = 0xff;
		m.sin6_addr.s6_addr[11] = 0xff;
		m.sin6_addr.s6_addr[12] = 127;
		m.sin6_addr.s6_addr[15] = 1;
		m.sin6_port = htons(bound_port(c4));
		msg.msg_name = &m;
		msg.msg_namelen = sizeof(m);
		iov.iov_base = "x";
		iov.iov_len = 1;
		is_err(sendmsg(a, &msg, 0), EOPNOTSUPP,
		       "IPv6 socket to ::ffff:127.0.0.1 -> EOPNOTSUPP");
		close(c4);
	}

	/* connect with a sockaddr_in6, getpeername gives it back */
	len = sizeof(got);
	getsockname(b, (struct sockaddr *)&got, &len);
	is_ok(connect_in6(a, got), "connect to [::1]:port");
	memset(&from, 0, sizeof(from));
	len = sizeof(from);
	ok(!getpeername(a, (struct sockaddr *)&from, &len) &&
	   len == sizeof(from) && from.sin6_family == AF_INET6 &&
	   from.sin6_port == got.sin6_port, "getpeername: sockaddr_in6");
	is_eq(send(a, "c6", 2, 0), 2, "send on the connected IPv6 socket");
	r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS);
	ok(r == 2 && !memcmp(buf, "c6", 2), "received");
out:
	close(a);
	close(b);
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
	b = bound_socket_at(cfg.peer, 0, "setup: bind B");
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
		struct rds_get_mr_for_dest_args args;
		uint64_t cookie = 0;

		/* rds_doca: B may use the region, through its mapped name */
		memset(&args, 0, sizeof(args));
		memcpy(&args.dest_addr, &m, sizeof(m));
		args.vec.addr = (uintptr_t)buf;
		args.vec.bytes = sizeof(buf);
		args.cookie_addr = (uintptr_t)&cookie;
		is_ok(setsockopt(a, SOL_RDS, RDS_GET_MR_FOR_DEST, &args,
				 sizeof(args)),
		      "RDS_GET_MR_FOR_DEST to ::ffff:peer");
		ok(cookie != 0, "a cookie");
		m.sin6_addr.s6_addr[10] = 0;	/* ::a.b.c.d: not mapped */
		memcpy(&args.dest_addr, &m, sizeof(m));
		is_err(setsockopt(a, SOL_RDS, RDS_GET_MR_FOR_DEST, &args,
				  sizeof(args)), EAFNOSUPPORT,
		       "RDS_GET_MR_FOR_DEST to an IPv6 address -> EAFNOSUPPORT");
	}
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}
