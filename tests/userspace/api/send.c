// SPDX-License-Identifier: GPL-2.0
/*
 * sendmsg(): the flags, destinations, iovecs and control messages it
 * refuses, message sizes, and sends nobody receives.
 */
#include "api.h"

/* The IPv4 destinations sendmsg() from the IPv4 socket @a refuses. */
static void send_errors_ipv4(int a, const struct sockaddr_in *to)
{
	struct iovec iov = { "x", 1 };
	struct sockaddr_in6 to6;
	union rds_sa bad;

	bad = sa_in(*to);
	bad.sin.sin_family = AF_UNIX;
	is_err(send_to(a, &bad, "x", 1, 0), EINVAL,
	       "destination family AF_UNIX -> EINVAL");
	bad.sin.sin_family = AF_INET6;
	is_err(sendto(a, "x", 1, 0, &bad.sa, sizeof(bad.sin)), EINVAL,
	       "AF_INET6 destination of sockaddr_in length -> EINVAL");
	bad = sa_str("0.0.0.0", ntohs(to->sin_port));
	is_err(send_to(a, &bad, "x", 1, 0), EINVAL,
	       "destination INADDR_ANY -> EINVAL");
	bad = sa_str("255.255.255.255", ntohs(to->sin_port));
	is_err(send_to(a, &bad, "x", 1, 0), EINVAL,
	       "destination broadcast -> EINVAL");
	bad = sa_str("224.0.0.1", ntohs(to->sin_port));
	is_err(send_to(a, &bad, "x", 1, 0), EINVAL,
	       "destination multicast -> EINVAL");

	/* IPv4 source, IPv6 destination */
	memset(&to6, 0, sizeof(to6));
	to6.sin6_family = AF_INET6;
	to6.sin6_port = to->sin_port;
	to6.sin6_addr = in6_loopback;
	{
		struct msghdr m6 = { .msg_name = &to6,
				     .msg_namelen = sizeof(to6),
				     .msg_iov = &iov, .msg_iovlen = 1 };

		is_err(sendmsg(a, &m6, 0), EOPNOTSUPP,
		       "IPv4 socket to ::1 -> EOPNOTSUPP");
	}
}

void test_send_errors(void)
{
	struct sockaddr_storage ss;
	union rds_sa to;
	struct iovec iov = { "x", 1 };
	struct msghdr msg;
	union {
		struct cmsghdr cm;
		char buf[CMSG_SPACE(sizeof(int))];
	} cbuf;
	int a, b, u;

	if (!make_pair(&a, &b))
		return;
	to = sock_addr(b);

	/* rds_sendmsg(): the flags are checked first */
	u = rds_socket();
	is_err(send_to(u, &to, "x", 1, MSG_OOB), EOPNOTSUPP,
	       "unbound socket, MSG_OOB -> EOPNOTSUPP (flags first)");
	is_err(send_to(u, &to, "x", 1, 0), ENOTCONN,
	       "unbound socket -> ENOTCONN");
	close(u);

	is_err(send_to(a, &to, "x", 1, MSG_OOB), EOPNOTSUPP,
	       "MSG_OOB -> EOPNOTSUPP");
	is_err(send_to(a, &to, "x", 1, MSG_MORE), EOPNOTSUPP,
	       "MSG_MORE -> EOPNOTSUPP");
	/* only MSG_DONTWAIT and MSG_ZEROCOPY are accepted */
	is_err(send_to(a, &to, "x", 1, MSG_NOSIGNAL), EOPNOTSUPP,
	       "MSG_NOSIGNAL -> EOPNOTSUPP");
	is_err(send_to(a, &to, "x", 1, MSG_EOR), EOPNOTSUPP,
	       "MSG_EOR -> EOPNOTSUPP");
	is_err(send_to(a, &to, "x", 1, MSG_CONFIRM), EOPNOTSUPP,
	       "MSG_CONFIRM -> EOPNOTSUPP");

	is_err(send_to(a, NULL, "x", 1, 0), ENOTCONN,
	       "no destination, not connected -> ENOTCONN");
	is_err(send(a, "x", 1, 0), ENOTCONN, "send() unconnected -> ENOTCONN");

	/* msg_namelen */
	memset(&msg, 0, sizeof(msg));
	msg.msg_name = &to;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_namelen = 8;
	is_err(sendmsg(a, &msg, 0), EINVAL, "msg_namelen 8 -> EINVAL");
	msg.msg_namelen = sa_len(&to) - 1;
	is_err(sendmsg(a, &msg, 0), EINVAL, "msg_namelen %u -> EINVAL",
	       msg.msg_namelen);
	msg.msg_namelen = -1;
	is_err(sendmsg(a, &msg, 0), EINVAL, "msg_namelen -1 -> EINVAL");
	is_err(sendto(a, "x", 1, 0, &to.sa, 200), EINVAL,
	       "sendto addrlen 200 -> EINVAL");
	/* the IPv4 destinations refused; ipv6 and ipv6_scope: the IPv6 ones */
	if (!cfg.v6)
		send_errors_ipv4(a, &to.sin);

	/* a msg_namelen above sockaddr_storage is clamped, not refused */
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &to, sa_len(&to));
	{
		struct msghdr mbig = { .msg_name = &ss, .msg_namelen = 4096,
				       .msg_iov = &iov, .msg_iovlen = 1 };

		is_eq(sendmsg(a, &mbig, 0), 1,
		      "msg_namelen 4096 is clamped by __copy_msghdr()");
		recv_expect(b, "x", 1, a, "and that message arrives");
	}

	/* iovecs */
	memset(&msg, 0, sizeof(msg));
	msg.msg_name = &to;
	msg.msg_namelen = sa_len(&to);
	msg.msg_iov = (struct iovec *)8;
	msg.msg_iovlen = 1;
	is_err(sendmsg(a, &msg, 0), EFAULT, "msg_iov pointer 0x8 -> EFAULT");
	iov.iov_base = (void *)8;
	iov.iov_len = 100;
	msg.msg_iov = &iov;
	is_err(sendmsg(a, &msg, 0), EFAULT, "iov_base 0x8 -> EFAULT");
	iov.iov_base = "x";
	iov.iov_len = 1;
	msg.msg_iovlen = 1025;	/* UIO_MAXIOV + 1 */
	is_err(sendmsg(a, &msg, 0), EMSGSIZE, "1025 iovecs -> EMSGSIZE");
	is_err(send_to(a, &to, NULL, 10, 0), EFAULT, "NULL buffer -> EFAULT");

	/* control messages: unknown SOL_RDS types are refused */
	msg.msg_iovlen = 1;
	memset(&cbuf, 0, sizeof(cbuf));
	cbuf.cm.cmsg_len = CMSG_LEN(sizeof(int));
	cbuf.cm.cmsg_level = SOL_RDS;
	cbuf.cm.cmsg_type = 99;
	msg.msg_control = &cbuf;
	msg.msg_controllen = sizeof(cbuf);
	is_err(sendmsg(a, &msg, 0), EINVAL,
	       "unknown SOL_RDS cmsg type -> EINVAL (rds_cmsg_send)");
	cbuf.cm.cmsg_type = RDS_CMSG_CONG_UPDATE;
	is_err(sendmsg(a, &msg, 0), EINVAL,
	       "receive-only cmsg RDS_CMSG_CONG_UPDATE -> EINVAL");
	cbuf.cm.cmsg_len = 8;	/* shorter than a cmsghdr */
	cbuf.cm.cmsg_type = 99;
	is_err(sendmsg(a, &msg, 0), EINVAL,
	       "cmsg_len below sizeof(cmsghdr) -> EINVAL");
	/* non-SOL_RDS control messages are ignored */
	cbuf.cm.cmsg_len = CMSG_LEN(sizeof(int));
	cbuf.cm.cmsg_level = SOL_IP;
	cbuf.cm.cmsg_type = 1;
	is_eq(sendmsg(a, &msg, 0), 1, "a SOL_IP cmsg is ignored");
	recv_expect(b, "x", 1, a, "that message arrives");

	/* none of the failed sends delivered anything */
	marker(a, b, "failed sends delivered nothing");
	close(a);
	close(b);
}

void test_send_sizes(void)
{
	static char big[(1 << 20) + 2];
	union rds_sa to;
	int a, b, v, lim;

	if (!make_pair(&a, &b))
		return;
	to = sock_addr(b);
	pattern_fill(big, sizeof(big), 7);

	/* RDS_MAX_MSG_SIZE is checked before the send buffer */
	if (is_ok(set_int(a, SOL_SOCKET, SO_SNDBUFFORCE, 4 << 20),
		  "SO_SNDBUFFORCE 4 MiB")) {
		is_err(send_to(a, &to, big, (1 << 20) + 1, 0), EMSGSIZE,
		       "1 MiB + 1 -> EMSGSIZE");
		is_err(send_to(a, &to, big, (1 << 20) + 1, MSG_DONTWAIT),
		       EMSGSIZE, "1 MiB + 1, MSG_DONTWAIT -> EMSGSIZE");
	}
	close(a);

	/* rds_sendmsg(): payload_len > rds_sk_sndbuf() = sk_sndbuf / 2 */
	a = bound_socket_cfg(false, 0, "setup");
	if (a < 0)
		goto out;
	is_err(send_to(a, &to, big, (1 << 20), 0), EMSGSIZE,
	       "1 MiB with the default SO_SNDBUF -> EMSGSIZE");
	set_int(a, SOL_SOCKET, SO_SNDBUF, 8192);
	v = 0;
	get_int(a, SOL_SOCKET, SO_SNDBUF, &v);
	lim = v / 2;
	ok_diag(lim >= 4096, "SO_SNDBUF 8192 reads back doubled",
		"SO_SNDBUF reads %d", v);
	is_err(send_to(a, &to, big, lim + 1, 0), EMSGSIZE,
	       "SO_SNDBUF/2 + 1 bytes -> EMSGSIZE");
	is_eq(send_to(a, &to, big, lim, 0), lim, "SO_SNDBUF/2 bytes is sent");
	recv_expect(b, big, lim, a, "and received intact");
	marker(a, b, "the refused message was not delivered");
out:
	if (a >= 0)
		close(a);
	close(b);
}

/* Receive one message of @len bytes of pattern @seed on @fd into @buf. */
static void recv_large(int fd, unsigned char *buf, size_t cap, size_t len,
		       uint32_t seed, const char *what)
{
	int flags = 0;
	ssize_t r;
	long bad;

	/*
	 * A 64 MiB message crosses Soft-RoCE in seconds under emulation, in
	 * a minute under KASAN: only a lost one waits this long.
	 */
	r = recv_wait(fd, buf, cap, NULL, &flags, 0,
		      ARRIVE_MS * (1 + len / (1 << 20)));
	if (r < 0) {
		ok_diag(0, what, "no message: %s", tap_errname(errno));
		return;
	}
	bad = (size_t)r == len ? pattern_check(buf, len, seed) : -1;
	ok_diag((size_t)r == len && bad < 0 && !flags, what,
		"%zd bytes (expected %zu), flags 0x%x, first bad byte %ld",
		r, len, flags, bad);
}

static void large_done(void *tx, void *rx, int a, int b)
{
	free(tx);
	free(rx);
	close(a);
	close(b);
}

/*
 * RDS_DOCA_MSG_MAX: the socket's own limit, 1 to 64 MiB, starting at the
 * module parameter max_msg_size.  A larger message needs a send buffer
 * of twice its size, and a receiver that raised its own limit to hold it
 * (else it is dropped there and counted in recv_drop_large).  Every
 * transport carries up to 64 MiB: loopback hands the message over, IB
 * sends it in pieces as credits return, into a receive buffer that must
 * hold it.
 */
void test_send_large(void)
{
	/* 64 MiB itself: send_largest */
	static const size_t sizes[] = { (1 << 20) + 1, 2 << 20, 16 << 20 };
	const size_t cap = RDS_DOCA_MSG_SIZE_LIMIT + 64;
	unsigned char *tx = NULL, *rx = NULL;
	uint64_t c0 = 0, c1 = 0;
	int flags = 0;
	ssize_t r;
	int a, b, v, def = -1;
	union rds_sa to;
	unsigned int i;

	if (!make_pair(&a, &b))
		return;
	to = sock_addr(b);

	/* the starting limit is the module parameter's */
	read_sysfs_int("/sys/module/rds_doca/parameters/max_msg_size", &def);
	v = 0;
	is_ok(get_int(a, SOL_RDS, RDS_DOCA_MSG_MAX, &v),
	      "getsockopt(RDS_DOCA_MSG_MAX)");
	ok_diag(v == def && def > 0, "it starts at max_msg_size",
		"%d, max_msg_size %d", v, def);

	/* refused values leave it alone */
	is_err(set_int(a, SOL_RDS, RDS_DOCA_MSG_MAX, 0), EINVAL, "0 -> EINVAL");
	is_err(set_int(a, SOL_RDS, RDS_DOCA_MSG_MAX, -1), EINVAL,
	       "-1 -> EINVAL");
	is_err(set_int(a, SOL_RDS, RDS_DOCA_MSG_MAX,
		       RDS_DOCA_MSG_SIZE_LIMIT + 1), EINVAL,
	       "64 MiB + 1 -> EINVAL");
	v = RDS_DOCA_MSG_SIZE_LIMIT;
	is_err(setsockopt(a, SOL_RDS, RDS_DOCA_MSG_MAX, &v, 2), EINVAL,
	       "optlen 2 -> EINVAL");
	is_err(setsockopt(a, SOL_RDS, RDS_DOCA_MSG_MAX, NULL, sizeof(int)),
	       EFAULT, "NULL value -> EFAULT");
	v = 0;
	get_int(a, SOL_RDS, RDS_DOCA_MSG_MAX, &v);
	is_eq(v, def, "the limit is unchanged");

	tx = malloc(cap);
	rx = malloc(cap);
	if (!tx || !rx) {
		ok_diag(0, "setup: 2 x 64 MiB buffers", "%s", strerror(errno));
		goto out;
	}
	pattern_fill(tx, RDS_DOCA_MSG_SIZE_LIMIT + 1, 11);
	if (!is_ok(set_int(a, SOL_SOCKET, SO_SNDBUFFORCE, 160 << 20),
		   "SO_SNDBUFFORCE 160 MiB") ||
	    !is_ok(set_int(b, SOL_SOCKET, SO_RCVBUFFORCE, 160 << 20),
		   "SO_RCVBUFFORCE 160 MiB"))
		goto out;

	/* lowered: the socket's limit holds even below 1 MiB */
	is_ok(set_int(a, SOL_RDS, RDS_DOCA_MSG_MAX, 4096), "limit 4096");
	is_err(send_to(a, &to, tx, 4097, 0), EMSGSIZE, "4097 bytes -> EMSGSIZE");
	is_eq(send_to(a, &to, tx, 4096, 0), 4096, "4096 bytes are sent");
	recv_large(b, rx, cap, 4096, 11, "and received intact");

	/* raised to 64 MiB */
	is_ok(set_int(a, SOL_RDS, RDS_DOCA_MSG_MAX, RDS_DOCA_MSG_SIZE_LIMIT),
	      "limit 64 MiB");
	v = 0;
	get_int(a, SOL_RDS, RDS_DOCA_MSG_MAX, &v);
	is_eq(v, RDS_DOCA_MSG_SIZE_LIMIT, "reads back 64 MiB");
	is_err(send_to(a, &to, tx, RDS_DOCA_MSG_SIZE_LIMIT + 1, 0), EMSGSIZE,
	       "64 MiB + 1 -> EMSGSIZE");

	/* a receiver that did not raise its limit drops it, and counts */
	counter_read(b, "recv_drop_large", &c0);
	is_eq(send_to(a, &to, tx, 2 << 20, 0), 2 << 20,
	      "2 MiB to a receiver at the 1 MiB limit is sent");
	marker(a, b, "but not delivered: the next message is");
	ok_diag(counter_read(b, "recv_drop_large", &c1) && c1 == c0 + 1,
		"recv_drop_large rose by 1", "%llu -> %llu",
		(unsigned long long)c0, (unsigned long long)c1);
	is_eq(send_to(a, &to, tx, 1 << 20, 0), 1 << 20,
	      "1 MiB needs no raised limit");
	recv_large(b, rx, cap, 1 << 20, 11, "and is received intact");

	is_ok(set_int(b, SOL_RDS, RDS_DOCA_MSG_MAX, RDS_DOCA_MSG_SIZE_LIMIT),
	      "the receiver raises its limit to 64 MiB");
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		char what[64];

		snprintf(what, sizeof(what), "%zu bytes are sent", sizes[i]);
		is_eq(send_to(a, &to, tx, sizes[i], 0), (ssize_t)sizes[i],
		      "%s", what);
		snprintf(what, sizeof(what), "and received intact (%zu)",
			 sizes[i]);
		recv_large(b, rx, cap, sizes[i], 11, what);
	}

	/* a short buffer: truncated, the rest dropped */
	is_eq(send_to(a, &to, tx, 2 << 20, 0), 2 << 20, "2 MiB again");
	r = recv_wait(b, rx, 100, NULL, &flags, 0, ARRIVE_MS);
	ok_diag(r == 100 && (flags & MSG_TRUNC) &&
		pattern_check(rx, 100, 11) < 0,
		"a 100-byte read: 100 bytes, MSG_TRUNC", "%zd, flags 0x%x",
		r, flags);
	marker(a, b, "nothing else was delivered");
out:
	large_done(tx, rx, a, b);
}

/* The largest message there is: 64 MiB, through a 160 MiB buffer. */
void test_send_largest(void)
{
	const size_t len = RDS_DOCA_MSG_SIZE_LIMIT;
	unsigned char *tx = NULL, *rx = NULL;
	union rds_sa to;
	int a, b;

	if (!make_pair(&a, &b))
		return;
	to = sock_addr(b);
	tx = malloc(len);
	rx = malloc(len + 64);
	if (!tx || !rx) {
		ok_diag(0, "setup: 2 x 64 MiB buffers", "%s", strerror(errno));
		goto out;
	}
	pattern_fill(tx, len, 12);
	if (!is_ok(set_int(a, SOL_SOCKET, SO_SNDBUFFORCE, 160 << 20),
		   "SO_SNDBUFFORCE 160 MiB") ||
	    !is_ok(set_int(b, SOL_SOCKET, SO_RCVBUFFORCE, 160 << 20),
		   "SO_RCVBUFFORCE 160 MiB") ||
	    !is_ok(set_int(a, SOL_RDS, RDS_DOCA_MSG_MAX, len),
		   "the sender's limit 64 MiB") ||
	    !is_ok(set_int(b, SOL_RDS, RDS_DOCA_MSG_MAX, len),
		   "the receiver's limit 64 MiB"))
		goto out;
	is_eq(send_to(a, &to, tx, len, 0), (ssize_t)len, "64 MiB are sent");
	recv_large(b, rx, len + 64, len, 12, "and received intact");
	marker(a, b, "nothing else was delivered");
out:
	large_done(tx, rx, a, b);
}

void test_send_zero(void)
{
	union rds_sa to, from;
	struct msghdr msg;
	char buf[16];
	int a, b, flags = 0;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;
	to = sock_addr(b);
	is_eq(send_to(a, &to, NULL, 0, 0), 0, "zero-length send returns 0");
	memset(&msg, 0, sizeof(msg));
	msg.msg_name = &to;
	msg.msg_namelen = sa_len(&to);
	is_eq(sendmsg(a, &msg, 0), 0, "sendmsg with no iovecs returns 0");

	memset(&from, 0, sizeof(from));
	r = recv_wait(b, buf, sizeof(buf), &from, &flags, 0, ARRIVE_MS);
	is_eq(r, 0, "receiver gets a zero-length datagram");
	ok(from.sa.sa_family == cfg_af() && sa_port(&from) == bound_port(a),
	   "with the sender's address");
	is_eq(flags, 0, "and no msg_flags");

	/* the second, iovec-less, one is a datagram of its own */
	r = recv_wait(b, buf, sizeof(buf), &from, &flags, 0, ARRIVE_MS);
	is_eq(r, 0, "the second zero-length datagram arrives separately");
	marker(a, b, "nothing else was queued");
	close(a);
	close(b);
}

void test_send_no_listener(void)
{
	union rds_sa dead;
	uint16_t port;
	int a, b, c;

	if (!make_trio(&a, &b, &c, "setup"))
		return;
	/* a port that was just released */
	port = bound_port(c);
	close(c);

	dead = cfg_sa(true, port);
	is_eq(send_to(a, &dead, "lost", 4, 0), 4,
	      "send to a port with nothing bound succeeds");
	is_eq(send_to(a, &dead, "lost", 4, MSG_DONTWAIT), 4,
	      "also with MSG_DONTWAIT");
	marker(a, b, "a later message to a bound port arrives first");
	quiet(a, "the sender gets nothing back");

	/* the dropped messages were not kept for a later binder */
	c = bound_socket_cfg(true, port, "rebinding the port");
	if (c >= 0) {
		quiet(c, "a new socket on that port receives nothing");
		marker(a, c, "but it receives what is sent now");
		close(c);
	}
	close(a);
	close(b);
}

void test_send_many_senders(void)
{
	int s[3], b, i, ok_all = 1;
	char m[16];

	b = bound_socket_cfg(true, 0, "setup");
	if (b < 0)
		return;
	for (i = 0; i < 3; i++)
		s[i] = bound_socket_cfg(false, 0, "setup");
	for (i = 0; i < 3; i++) {
		if (s[i] < 0) {
			ok_all = 0;
			continue;
		}
		snprintf(m, sizeof(m), "from-%d", i);
		is_eq(send_str(s[i], b, m), (ssize_t)strlen(m), "sender %d", i);
	}
	/* one at a time: each message names its sender */
	for (i = 0; i < 3 && ok_all; i++) {
		union rds_sa from;
		char buf[16] = "";
		ssize_t r = recv_wait(b, buf, sizeof(buf) - 1, &from, NULL, 0,
				      ARRIVE_MS);
		int id = r == 6 ? buf[5] - '0' : -1;

		ok_diag(id >= 0 && id < 3 &&
			sa_port(&from) == bound_port(s[id]),
			"message source matches its payload",
			"r %zd payload '%s' port %u", r, buf,
			sa_port(&from));
	}
	for (i = 0; i < 3; i++)
		if (s[i] >= 0)
			close(s[i]);
	close(b);
}
