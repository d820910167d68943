// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers rds_api_test's subject areas share: bound sockets, socket
 * addresses and the ones bind() and connect() refuse, int options, and
 * messages sent and received under checks.
 */
#include "api.h"

const struct in6_addr in6_loopback = IN6ADDR_LOOPBACK_INIT;
const char *cfg_link_local;

/*
 * A bound to --addr, B bound to --peer (--addr6 and --peer6 with
 * --ipv6), both on free ports.
 */
bool make_pair(int *a, int *b)
{
	*a = bound_socket_cfg(false, 0, "setup: bind A");
	if (*a < 0)
		return false;
	*b = bound_socket_cfg(true, 0, "setup: bind B");
	if (*b < 0) {
		close(*a);
		return false;
	}
	return true;
}

/* make_pair(), and C bound to --peer too, its setup check named @what_c. */
bool make_trio(int *a, int *b, int *c, const char *what_c)
{
	if (!make_pair(a, b))
		return false;
	*c = bound_socket_cfg(true, 0, what_c);
	if (*c < 0) {
		close(*a);
		close(*b);
		return false;
	}
	return true;
}

int set_int(int fd, int level, int opt, int val)
{
	return setsockopt(fd, level, opt, &val, sizeof(val));
}

int get_int(int fd, int level, int opt, int *val)
{
	socklen_t len = sizeof(*val);

	return getsockopt(fd, level, opt, val, &len);
}

/* The IPv6 socket address [@a]:@port, with no flow label or scope. */
struct sockaddr_in6 sin6_str(const char *a, uint16_t port)
{
	struct sockaddr_in6 sin6;

	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(port);
	inet_pton(AF_INET6, a, &sin6.sin6_addr);
	return sin6;
}

/* bind() and connect() to a socket address of its own length. */
int bind_in(int fd, struct sockaddr_in sin)
{
	return bind(fd, (struct sockaddr *)&sin, sizeof(sin));
}

int bind_in6(int fd, struct sockaddr_in6 sin6)
{
	return bind(fd, (struct sockaddr *)&sin6, sizeof(sin6));
}

int connect_in(int fd, struct sockaddr_in sin)
{
	return connect(fd, (struct sockaddr *)&sin, sizeof(sin));
}

int connect_in6(int fd, struct sockaddr_in6 sin6)
{
	return connect(fd, (struct sockaddr *)&sin6, sizeof(sin6));
}

int connect_sa(int fd, const union rds_sa *a)
{
	return connect(fd, &a->sa, sa_len(a));
}

/* bind() or connect() @fd to the @len bytes at @sa. */
int addr_call(int fd, enum addr_call call, const void *sa, socklen_t len)
{
	if (call == CALL_CONNECT)
		return connect(fd, (const struct sockaddr *)sa, len);
	return bind(fd, (const struct sockaddr *)sa, len);
}

/* rds_bind() and rds_connect(): addr_len checks come first. */
void addr_lens_refused(int fd, enum addr_call call, struct sockaddr_in sin)
{
	is_err(addr_call(fd, call, &sin, 0), EINVAL, "addr_len 0 -> EINVAL");
	is_err(addr_call(fd, call, &sin, 1), EINVAL, "addr_len 1 -> EINVAL");
	is_err(addr_call(fd, call, &sin, sizeof(sin) - 1), EINVAL,
	       "AF_INET, addr_len 15 -> EINVAL");
}

/* Try each of the @n addresses @r with @call on @fd: each must fail. */
void addrs_refused(int fd, enum addr_call call, const struct refusal *r,
		   size_t n)
{
	union rds_sa a;

	for (; n; n--, r++) {
		a = sa_str(r->addr, r->port);
		is_err(addr_call(fd, call, &a, sa_len(&a)), r->err, "%s",
		       r->name);
	}
}

/* @call with @sin under @family must fail with @err: check @name. */
void family_refused(int fd, enum addr_call call, struct sockaddr_in sin,
		    int family, int err, const char *name)
{
	sin.sin_family = family;
	is_err(addr_call(fd, call, &sin, sizeof(sin)), err, "%s", name);
}

/*
 * Receive one message on @fd and check it is exactly @len bytes of
 * @want, sent from the socket @from_fd (skipped if < 0), with no
 * msg_flags.  Records one check named @what.
 */
bool recv_expect(int fd, const void *want, size_t len, int from_fd,
		 const char *what)
{
	static char buf[(1 << 20) + 64];
	union rds_sa from, exp;
	int flags = 0;
	ssize_t r;
	long bad;
	char b1[64], b2[64];

	memset(&from, 0xa5, sizeof(from));
	r = recv_wait(fd, buf, sizeof(buf), &from, &flags, 0, ARRIVE_MS);
	if (r < 0)
		return ok_diag(0, what, "no message: %s",
			       errno == ETIME ? "timed out" :
			       tap_errname(errno));
	if ((size_t)r != len)
		return ok_diag(0, what, "got %zd bytes, expected %zu", r, len);
	bad = -1;
	if (len && memcmp(buf, want, len)) {
		for (bad = 0; buf[bad] == ((const char *)want)[bad]; bad++)
			;
	}
	if (bad >= 0)
		return ok_diag(0, what, "payload differs at byte %ld", bad);
	if (flags)
		return ok_diag(0, what, "msg_flags 0x%x", flags);
	if (from_fd >= 0) {
		exp = sock_addr(from_fd);
		if (!sa_same(&from, &exp))
			return ok_diag(0, what, "source %s, expected %s",
				       sa_fmt(&from, b1, sizeof(b1)),
				       sa_fmt(&exp, b2, sizeof(b2)));
	}
	return ok_diag(1, what, NULL);
}

/* Send @s (as a string without NUL) to the socket @to_fd. */
ssize_t send_str(int fd, int to_fd, const char *s)
{
	union rds_sa to = sock_addr(to_fd);

	return send_to(fd, &to, s, strlen(s), 0);
}

/*
 * Send a marker from @a to @b and check that it is the next message @b
 * receives.  Messages from one socket to one destination are delivered
 * in order, so anything @a sent to @b before arrived (or was dropped)
 * by then.
 */
bool marker(int a, int b, const char *what)
{
	static unsigned int n;
	char m[32];

	snprintf(m, sizeof(m), "marker-%u", ++n);
	if (send_str(a, b, m) != (ssize_t)strlen(m))
		return ok_diag(0, what, "sending the marker: %s",
			       tap_errname(errno));
	return recv_expect(b, m, strlen(m), a, what);
}

bool quiet(int fd, const char *what)
{
	ssize_t got;

	if (stays_quiet(fd, QUIET_MS, &got))
		return ok_diag(1, what, NULL);
	return ok_diag(0, what, "recv returned %zd (%s)", got,
		       got < 0 ? tap_errname(errno) : "a message");
}

/* Clear @msg and give it the one buffer @buf of @len bytes, by @iov. */
void msg_init(struct msghdr *msg, struct iovec *iov, void *buf, size_t len)
{
	memset(msg, 0, sizeof(*msg));
	iov->iov_base = buf;
	iov->iov_len = len;
	msg->msg_iov = iov;
	msg->msg_iovlen = 1;
}

/*
 * Send @s from @a to @b and, once it is there, receive it on @b with
 * recvmsg(MSG_DONTWAIT) into @msg, whose control buffer becomes @ctl of
 * @ctllen bytes and whose msg_flags are cleared first.
 */
ssize_t send_recvmsg(int a, int b, const char *s, struct msghdr *msg,
		     void *ctl, size_t ctllen)
{
	send_str(a, b, s);
	recv_wait(b, msg->msg_iov->iov_base, msg->msg_iov->iov_len, NULL, NULL,
		  MSG_PEEK, ARRIVE_MS);
	msg->msg_control = ctl;
	msg->msg_controllen = ctllen;
	msg->msg_flags = 0;
	return recvmsg(b, msg, MSG_DONTWAIT);
}

/*
 * The number of control messages of @level and @type in @msg that carry
 * @len bytes; the data of the last goes to @data.
 */
int cmsg_count(struct msghdr *msg, int level, int type, void *data,
	       size_t len)
{
	struct cmsghdr *cm;
	int n = 0;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level == level && cm->cmsg_type == type &&
		    cm->cmsg_len == CMSG_LEN(len)) {
			memcpy(data, CMSG_DATA(cm), len);
			n++;
		}
	}
	return n;
}

/* Whether we run in the initial network namespace (that of pid 1). */
bool in_init_netns(void)
{
	struct stat self, init;

	if (stat("/proc/self/ns/net", &self) || stat("/proc/1/ns/net", &init))
		return true;
	return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
}
