// SPDX-License-Identifier: GPL-2.0
/*
 * RDS socket API conformance tests.
 *
 * Exercises the socket calls of an RDS socket family (the in-tree
 * net/rds as AF_RDS, or rds_doca under its own family number or as
 * AF_RDS) against the behaviour of Linux 6.12 net/rds, and prints TAP.
 * Where the two implementations are documented to differ (see
 * DIFFERENCES.txt), --impl selects which behaviour is expected.
 *
 * The errno values asserted here are the ones net/rds returns; comments
 * name the function that decides each one.
 */
#include "rds_util.h"

#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define T_LOOPBACK	0x1	/* both ends on the loopback transport */
#define T_DOCA		0x2	/* rds_doca behaviour only */
#define T_RDS		0x4	/* net/rds behaviour only */
#define T_NOLOOPBACK	0x8	/* a transport other than loopback */
#define T_SAMEADDR	0x10	/* --addr and --peer are the same */
#define T_IB		0x20	/* --transport ib */

static const struct in6_addr in6_loopback = IN6ADDR_LOOPBACK_INIT;

/* ------------------------------------------------------------------ */
/* helpers                                                             */
/* ------------------------------------------------------------------ */

/* A bound to --addr, B bound to --peer, both on free ports. */
static bool make_pair(int *a, int *b)
{
	*a = bound_socket_at(cfg.addr, 0, "setup: bind A");
	if (*a < 0)
		return false;
	*b = bound_socket_at(cfg.peer, 0, "setup: bind B");
	if (*b < 0) {
		close(*a);
		return false;
	}
	return true;
}

static int set_int(int fd, int level, int opt, int val)
{
	return setsockopt(fd, level, opt, &val, sizeof(val));
}

static int get_int(int fd, int level, int opt, int *val)
{
	socklen_t len = sizeof(*val);

	return getsockopt(fd, level, opt, val, &len);
}

/*
 * Receive one message on @fd and check it is exactly @len bytes of
 * @want, sent from the socket @from_fd (skipped if < 0), with no
 * msg_flags.  Records one check named @what.
 */
static bool recv_expect(int fd, const void *want, size_t len, int from_fd,
			const char *what)
{
	static char buf[(1 << 20) + 64];
	struct sockaddr_in from, exp;
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
		if (from.sin_family != AF_INET ||
		    from.sin_port != exp.sin_port ||
		    from.sin_addr.s_addr != exp.sin_addr.s_addr)
			return ok_diag(0, what, "source %s, expected %s",
				       sin_fmt(&from, b1, sizeof(b1)),
				       sin_fmt(&exp, b2, sizeof(b2)));
	}
	return ok_diag(1, what, NULL);
}

/* Send @s (as a string without NUL) to the socket @to_fd. */
static ssize_t send_str(int fd, int to_fd, const char *s)
{
	struct sockaddr_in to = sock_addr(to_fd);

	return send_to(fd, &to, s, strlen(s), 0);
}

/*
 * Send a marker from @a to @b and check that it is the next message @b
 * receives.  Messages from one socket to one destination are delivered
 * in order, so anything @a sent to @b before arrived (or was dropped)
 * by then.
 */
static bool marker(int a, int b, const char *what)
{
	static unsigned int n;
	char m[32];

	snprintf(m, sizeof(m), "marker-%u", ++n);
	if (send_str(a, b, m) != (ssize_t)strlen(m))
		return ok_diag(0, what, "sending the marker: %s",
			       tap_errname(errno));
	return recv_expect(b, m, strlen(m), a, what);
}

static bool quiet(int fd, const char *what)
{
	ssize_t got;

	if (stays_quiet(fd, QUIET_MS, &got))
		return ok_diag(1, what, NULL);
	return ok_diag(0, what, "recv returned %zd (%s)", got,
		       got < 0 ? tap_errname(errno) : "a message");
}

/* Whether we run in the initial network namespace (that of pid 1). */
static bool in_init_netns(void)
{
	struct stat self, init;

	if (stat("/proc/self/ns/net", &self) || stat("/proc/1/ns/net", &init))
		return true;
	return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
}

/* ------------------------------------------------------------------ */
/* socket()                                                            */
/* ------------------------------------------------------------------ */

static void test_socket(void)
{
	int fd, v;

	fd = socket(cfg.family, SOCK_SEQPACKET, 0);
	sys_ok(fd, "SOCK_SEQPACKET, protocol 0");
	if (fd >= 0) {
		is_eq(get_int(fd, SOL_SOCKET, SO_TYPE, &v) ? -1 : v,
		      SOCK_SEQPACKET, "SO_TYPE is SOCK_SEQPACKET");
		is_eq(get_int(fd, SOL_SOCKET, SO_DOMAIN, &v) ? -1 : v,
		      cfg.family, "SO_DOMAIN is the family");
		is_eq(get_int(fd, SOL_SOCKET, SO_PROTOCOL, &v) ? -1 : v, 0,
		      "SO_PROTOCOL is 0");
		close(fd);
	}

	/* rds_create(): anything but SOCK_SEQPACKET/0 is ESOCKTNOSUPPORT */
	is_err(socket(cfg.family, SOCK_DGRAM, 0), ESOCKTNOSUPPORT,
	       "SOCK_DGRAM -> ESOCKTNOSUPPORT");
	is_err(socket(cfg.family, SOCK_STREAM, 0), ESOCKTNOSUPPORT,
	       "SOCK_STREAM -> ESOCKTNOSUPPORT");
	is_err(socket(cfg.family, SOCK_RAW, 0), ESOCKTNOSUPPORT,
	       "SOCK_RAW -> ESOCKTNOSUPPORT");
	is_err(socket(cfg.family, SOCK_RDM, 0), ESOCKTNOSUPPORT,
	       "SOCK_RDM -> ESOCKTNOSUPPORT");
	is_err(socket(cfg.family, SOCK_SEQPACKET, 1), ESOCKTNOSUPPORT,
	       "protocol 1 -> ESOCKTNOSUPPORT");
	is_err(socket(cfg.family, SOCK_SEQPACKET, IPPROTO_UDP),
	       ESOCKTNOSUPPORT, "protocol IPPROTO_UDP -> ESOCKTNOSUPPORT");

	fd = socket(cfg.family, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (sys_ok(fd, "SOCK_NONBLOCK | SOCK_CLOEXEC accepted")) {
		ok(fcntl(fd, F_GETFL) & O_NONBLOCK, "SOCK_NONBLOCK sets O_NONBLOCK");
		ok(fcntl(fd, F_GETFD) & FD_CLOEXEC, "SOCK_CLOEXEC sets FD_CLOEXEC");
		close(fd);
	}
}

/* Operations net/rds leaves to the sock_no_*() stubs. */
static void test_unsupported_ops(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd, sv[2];
	void *p;

	fd = bound_socket_at(cfg.addr, 0, "setup");
	if (fd < 0)
		return;
	is_err(listen(fd, 1), EOPNOTSUPP, "listen -> EOPNOTSUPP");
	is_err(accept(fd, (struct sockaddr *)&sin, &len), EOPNOTSUPP,
	       "accept -> EOPNOTSUPP");
	is_err(shutdown(fd, SHUT_RDWR), EOPNOTSUPP, "shutdown -> EOPNOTSUPP");
	is_err(socketpair(cfg.family, SOCK_SEQPACKET, 0, sv), EOPNOTSUPP,
	       "socketpair -> EOPNOTSUPP");
	errno = 0;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ok_diag(p == MAP_FAILED && errno == ENODEV, "mmap -> ENODEV",
		"mmap returned %p errno %s", p, tap_errname(errno));
	if (p != MAP_FAILED)
		munmap(p, 4096);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* bind()                                                              */
/* ------------------------------------------------------------------ */

static void test_bind_errors(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in sin = sin_make(cfg.addr, 0);
	struct sockaddr_in got;
	socklen_t len;
	int fd;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;

	/* rds_bind(): addr_len checks come first */
	is_err(bind(fd, (struct sockaddr *)&sin, 0), EINVAL,
	       "addr_len 0 -> EINVAL");
	is_err(bind(fd, (struct sockaddr *)&sin, 1), EINVAL,
	       "addr_len 1 -> EINVAL");
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin) - 1), EINVAL,
	       "AF_INET, addr_len 15 -> EINVAL");
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &sin, sizeof(sin));
	/* move_addr_to_kernel() */
	is_err(bind(fd, (struct sockaddr *)&ss, sizeof(ss) + 1), EINVAL,
	       "addr_len > sizeof(sockaddr_storage) -> EINVAL");

	/* any family other than AF_INET/AF_INET6 is EINVAL in rds_bind() */
	sin.sin_family = AF_UNIX;
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "AF_UNIX -> EINVAL");
	sin.sin_family = AF_UNSPEC;
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "AF_UNSPEC -> EINVAL");
	sin.sin_family = cfg.family;
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "the socket's own family number -> EINVAL");
	sin.sin_family = AF_INET6;
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "AF_INET6 with a sockaddr_in length -> EINVAL");

	sin = sin_str("0.0.0.0", 0);
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "INADDR_ANY -> EINVAL");
	sin = sin_str("255.255.255.255", 0);
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "INADDR_BROADCAST -> EINVAL");
	sin = sin_str("224.0.0.1", 0);
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "224.0.0.1 (multicast) -> EINVAL");
	sin = sin_str("239.255.1.2", 4000);
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "239.255.1.2 (multicast) -> EINVAL");

	/* rds_trans_get_preferred() finds no transport */
	sin = sin_str("203.0.113.254", 0);
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), EADDRNOTAVAIL,
	       "203.0.113.254 (not local) -> EADDRNOTAVAIL");

	/* move_addr_to_kernel() */
	is_err(bind(fd, NULL, sizeof(sin)), EFAULT, "NULL address -> EFAULT");
	is_err(bind(fd, (struct sockaddr *)8, sizeof(sin)), EFAULT,
	       "address pointer 0x8 -> EFAULT");

	/*
	 * rds_add_bound(): port 1 is RDS_FLAG_PROBE_PORT, reserved for
	 * the connection handshake probes.
	 */
	sin = sin_make(cfg.addr, 1);
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "port 1 (RDS_FLAG_PROBE_PORT) -> EINVAL");

	/* none of the failures left the socket bound */
	memset(&got, 0xa5, sizeof(got));
	len = sizeof(got);
	ok_diag(!getsockname(fd, (struct sockaddr *)&got, &len) &&
		got.sin_family == AF_UNSPEC,
		"still unbound after the failed binds",
		"getsockname family %u len %u", got.sin_family, len);
	sin = sin_make(cfg.addr, 0);
	is_ok(bind(fd, (struct sockaddr *)&sin, sizeof(sin)),
	      "a valid bind then succeeds");
	close(fd);
}

/* The IPv6 forms of the bind() checks (rds_bind(), AF_INET6 branch). */
static void test_bind_errors_ipv6(void)
{
	struct sockaddr_in6 sin6;
	int fd;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	is_err(bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EINVAL,
	       "in6addr_any -> EINVAL");
	inet_pton(AF_INET6, "ff02::1", &sin6.sin6_addr);
	is_err(bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EINVAL,
	       "ff02::1 (multicast) -> EINVAL");
	inet_pton(AF_INET6, "::ffff:0.0.0.0", &sin6.sin6_addr);
	is_err(bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EINVAL,
	       "::ffff:0.0.0.0 -> EINVAL");
	inet_pton(AF_INET6, "::ffff:224.0.0.1", &sin6.sin6_addr);
	is_err(bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EINVAL,
	       "::ffff:224.0.0.1 -> EINVAL");
	inet_pton(AF_INET6, "fe80::1", &sin6.sin6_addr);
	is_err(bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EINVAL,
	       "fe80::1 without scope id -> EINVAL");
	inet_pton(AF_INET6, "2001:db8::1", &sin6.sin6_addr);
	is_err(bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EADDRNOTAVAIL,
	       "2001:db8::1 (not local) -> EADDRNOTAVAIL");
	is_err(bind(fd, (struct sockaddr *)&sin6, sizeof(sin6) - 1), EINVAL,
	       "AF_INET6, addr_len 27 -> EINVAL");
	close(fd);
}

static void test_bind_port0(void)
{
	struct sockaddr_in sin = sin_make(cfg.addr, 0), got;
	socklen_t len = sizeof(got);
	int fd;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	is_ok(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), "bind port 0");
	memset(&got, 0xa5, sizeof(got));
	is_ok(getsockname(fd, (struct sockaddr *)&got, &len), "getsockname");
	is_eq(len, sizeof(struct sockaddr_in), "getsockname length 16");
	is_eq(got.sin_family, AF_INET, "getsockname family AF_INET");
	is_eq(ntohl(got.sin_addr.s_addr), ntohl(cfg.addr.s_addr),
	      "getsockname address is the bound one");
	ok(ntohs(got.sin_port) > 1, "a port > 1 was chosen (%u)",
	   ntohs(got.sin_port));
	ok(!memcmp(got.sin_zero, "\0\0\0\0\0\0\0\0", 8), "sin_zero cleared");
	close(fd);
}

static void test_bind_inuse(void)
{
	struct sockaddr_in sin;
	uint16_t port;
	int a, b;

	a = bound_socket_at(cfg.addr, 0, "setup");
	if (a < 0)
		return;
	port = bound_port(a);
	b = rds_socket();
	sin = sin_make(cfg.addr, port);
	is_err(bind(b, (struct sockaddr *)&sin, sizeof(sin)), EADDRINUSE,
	       "same addr:port -> EADDRINUSE");
	sin = sin_make(cfg.addr, 0);
	is_ok(bind(b, (struct sockaddr *)&sin, sizeof(sin)),
	      "the socket can bind elsewhere after EADDRINUSE");
	ok(bound_port(b) != port && bound_port(b),
	   "and got a different port");
	close(b);

	/* rds_bind(): no re-binding */
	sin = sin_make(cfg.addr, 0);
	is_err(bind(a, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "second bind on a bound socket -> EINVAL");
	sin = sin_make(cfg.addr, port);
	is_err(bind(a, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "re-binding the same addr:port -> EINVAL");
	sin = sin_str("0.0.0.0", 0);
	is_err(bind(a, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "second bind to INADDR_ANY -> EINVAL");
	is_eq(bound_port(a), port, "the first binding is kept");

	/* close releases the port */
	close(a);
	b = rds_socket();
	sin = sin_make(cfg.addr, port);
	is_ok(bind(b, (struct sockaddr *)&sin, sizeof(sin)),
	      "port is free again after close");
	close(b);
}

#define MANY 1000

static void test_bind_many(void)
{
	static int fds[MANY];
	static uint16_t ports[MANY];
	struct rlimit rl;
	int i, j, n = 0, dup = 0, zero = 0, rebound = 0;

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < MANY + 64) {
		rl.rlim_cur = rl.rlim_max < MANY + 64 ? rl.rlim_max : MANY + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (i = 0; i < MANY; i++) {
		struct sockaddr_in sin = sin_make(cfg.addr, 0);

		fds[i] = rds_socket();
		if (fds[i] < 0)
			break;
		if (bind(fds[i], (struct sockaddr *)&sin, sizeof(sin))) {
			close(fds[i]);
			break;
		}
		ports[i] = bound_port(fds[i]);
		n++;
	}
	ok_diag(n == MANY, "1000 sockets bound with port 0",
		"only %d bound: %s", n, tap_errname(errno));
	for (i = 0; i < n; i++) {
		if (ports[i] < 2)
			zero++;
		for (j = i + 1; j < n; j++)
			if (ports[i] == ports[j])
				dup++;
	}
	is_eq(zero, 0, "every chosen port is > 1");
	is_eq(dup, 0, "all chosen ports are distinct");

	for (i = 0; i < n; i++)
		close(fds[i]);
	/* every port is released by close */
	for (i = 0; i < n; i++) {
		struct sockaddr_in sin = sin_make(cfg.addr, ports[i]);
		int fd = rds_socket();

		if (!bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
			rebound++;
		close(fd);
	}
	is_eq(rebound, n, "each released port can be bound again");
}

/* ------------------------------------------------------------------ */
/* getsockname / getpeername / connect                                 */
/* ------------------------------------------------------------------ */

static void test_names(void)
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

	len = sizeof(got);
	is_err(getpeername(fd, (struct sockaddr *)&got, &len), ENOTCONN,
	       "getpeername unconnected -> ENOTCONN");

	/* connected but unbound: the connected family, zero address */
	is_ok(connect(fd, (struct sockaddr *)&to, sizeof(to)),
	      "connect an unbound socket");
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

	fd = bound_socket_at(cfg.addr, 0, "setup");
	if (fd < 0)
		return;
	len = sizeof(got);
	is_err(getpeername(fd, (struct sockaddr *)&got, &len), ENOTCONN,
	       "getpeername bound, unconnected -> ENOTCONN");
	close(fd);
}

static void test_connect_errors(void)
{
	struct sockaddr_in sin = sin_make(cfg.peer, 4242), got;
	socklen_t len;
	int fd;

	fd = bound_socket_at(cfg.addr, 0, "setup");
	if (fd < 0)
		return;

	/* rds_connect() */
	is_err(connect(fd, (struct sockaddr *)&sin, 0), EINVAL,
	       "addr_len 0 -> EINVAL");
	is_err(connect(fd, (struct sockaddr *)&sin, 1), EINVAL,
	       "addr_len 1 -> EINVAL");
	is_err(connect(fd, (struct sockaddr *)&sin, sizeof(sin) - 1), EINVAL,
	       "AF_INET, addr_len 15 -> EINVAL");
	sin = sin_str("0.0.0.0", 4242);
	is_err(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), EDESTADDRREQ,
	       "INADDR_ANY -> EDESTADDRREQ");
	sin = sin_str("224.0.0.1", 4242);
	is_err(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "multicast -> EINVAL");
	sin = sin_str("255.255.255.255", 4242);
	is_err(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "broadcast -> EINVAL");
	sin = sin_make(cfg.peer, 4242);
	sin.sin_family = AF_UNIX;
	is_err(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), EAFNOSUPPORT,
	       "AF_UNIX -> EAFNOSUPPORT");
	sin.sin_family = AF_UNSPEC;
	is_err(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), EAFNOSUPPORT,
	       "AF_UNSPEC -> EAFNOSUPPORT (no disconnect)");

	is_err(connect(fd, NULL, sizeof(sin)), EFAULT, "NULL address -> EFAULT");

	len = sizeof(got);
	is_err(getpeername(fd, (struct sockaddr *)&got, &len), ENOTCONN,
	       "no failed connect set a peer");
	close(fd);
}

/*
 * rds_doca serves IPv4 only so far: every IPv6 socket address is refused,
 * with the errno Linux gives for an address family it does not know.
 */
static void test_ipv6_refused(void)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in got;
	socklen_t len;
	int fd;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	sin6.sin6_addr = in6_loopback;
	is_err(bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EINVAL,
	       "bind ::1 -> EINVAL");
	is_err(connect(fd, (struct sockaddr *)&sin6, sizeof(sin6)),
	       EAFNOSUPPORT, "connect ::1 -> EAFNOSUPPORT");
	len = sizeof(got);
	is_err(getpeername(fd, (struct sockaddr *)&got, &len), ENOTCONN,
	       "the refused connect set no peer");
	close(fd);

	fd = bound_socket_at(cfg.addr, 0, "setup");
	if (fd < 0)
		return;
	sin6.sin6_port = htons(4242);
	is_err(sendto(fd, "x", 1, 0, (struct sockaddr *)&sin6, sizeof(sin6)),
	       EOPNOTSUPP, "sendto ::1 -> EOPNOTSUPP");
	is_err(sendto(fd, "x", 1, 0, (struct sockaddr *)&sin6,
		      sizeof(sin6) - 1), EINVAL,
	       "sendto AF_INET6 with a short length -> EINVAL");
	close(fd);
}

/* The IPv6 forms of the connect() checks (rds_connect(), AF_INET6). */
static void test_connect_errors_ipv6(void)
{
	struct sockaddr_in sin = sin_make(cfg.peer, 4242), got;
	struct sockaddr_in6 sin6;
	socklen_t len;
	int fd;

	fd = bound_socket_at(cfg.addr, 0, "setup");
	if (fd < 0)
		return;
	sin.sin_family = AF_INET6;
	is_err(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), EINVAL,
	       "AF_INET6 with a sockaddr_in length -> EINVAL");
	/* non-unicast IPv6 destinations are EPROTOTYPE in rds_connect() */
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(4242);
	is_err(connect(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EPROTOTYPE,
	       "in6addr_any -> EPROTOTYPE");
	inet_pton(AF_INET6, "ff02::1", &sin6.sin6_addr);
	is_err(connect(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EPROTOTYPE,
	       "ff02::1 -> EPROTOTYPE");
	inet_pton(AF_INET6, "::ffff:0.0.0.0", &sin6.sin6_addr);
	is_err(connect(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EPROTOTYPE,
	       "::ffff:0.0.0.0 -> EPROTOTYPE");
	inet_pton(AF_INET6, "::ffff:255.255.255.255", &sin6.sin6_addr);
	is_err(connect(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EPROTOTYPE,
	       "::ffff:255.255.255.255 -> EPROTOTYPE");
	inet_pton(AF_INET6, "fe80::1", &sin6.sin6_addr);
	is_err(connect(fd, (struct sockaddr *)&sin6, sizeof(sin6)), EINVAL,
	       "fe80::1 without scope id -> EINVAL");

	len = sizeof(got);
	is_err(getpeername(fd, (struct sockaddr *)&got, &len), ENOTCONN,
	       "no failed connect set a peer");
	close(fd);
}

static void test_connect(void)
{
	struct sockaddr_in to, got;
	socklen_t len;
	int a, b, c;
	char buf[64];

	if (!make_pair(&a, &b))
		return;
	c = bound_socket_at(cfg.peer, 0, "setup: bind C");
	if (c < 0)
		goto out;

	to = sock_addr(b);
	is_ok(connect(a, (struct sockaddr *)&to, sizeof(to)), "connect A to B");
	memset(&got, 0, sizeof(got));
	len = sizeof(got);
	ok(!getpeername(a, (struct sockaddr *)&got, &len) &&
	   len == sizeof(got) && got.sin_port == to.sin_port &&
	   got.sin_addr.s_addr == to.sin_addr.s_addr,
	   "getpeername returns B");

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
	is_ok(connect(a, (struct sockaddr *)&to, sizeof(to)),
	      "connect again, to C");
	is_eq(send(a, "again", 5, 0), 5, "send() after reconnecting");
	recv_expect(c, "again", 5, a, "C receives it");
	quiet(b, "B receives nothing more");

	/* connect does not need the peer to exist */
	to = sin_make(cfg.peer, 4242);
	is_ok(connect(a, (struct sockaddr *)&to, sizeof(to)),
	      "connect to a port nobody bound");
	close(c);
out:
	close(a);
	close(b);
}

/* ------------------------------------------------------------------ */
/* sendmsg()                                                           */
/* ------------------------------------------------------------------ */

static void test_send_errors(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in to, bad;
	struct sockaddr_in6 to6;
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
	msg.msg_namelen = sizeof(to) - 1;
	is_err(sendmsg(a, &msg, 0), EINVAL, "msg_namelen 15 -> EINVAL");
	msg.msg_namelen = -1;
	is_err(sendmsg(a, &msg, 0), EINVAL, "msg_namelen -1 -> EINVAL");

	bad = to;
	bad.sin_family = AF_UNIX;
	is_err(send_to(a, &bad, "x", 1, 0), EINVAL,
	       "destination family AF_UNIX -> EINVAL");
	bad.sin_family = AF_INET6;
	is_err(send_to(a, &bad, "x", 1, 0), EINVAL,
	       "AF_INET6 destination of sockaddr_in length -> EINVAL");
	bad = sin_str("0.0.0.0", ntohs(to.sin_port));
	is_err(send_to(a, &bad, "x", 1, 0), EINVAL,
	       "destination INADDR_ANY -> EINVAL");
	bad = sin_str("255.255.255.255", ntohs(to.sin_port));
	is_err(send_to(a, &bad, "x", 1, 0), EINVAL,
	       "destination broadcast -> EINVAL");
	bad = sin_str("224.0.0.1", ntohs(to.sin_port));
	is_err(send_to(a, &bad, "x", 1, 0), EINVAL,
	       "destination multicast -> EINVAL");
	is_err(sendto(a, "x", 1, 0, (struct sockaddr *)&to, 200), EINVAL,
	       "sendto addrlen 200 -> EINVAL");

	/* IPv4 source, IPv6 destination */
	memset(&to6, 0, sizeof(to6));
	to6.sin6_family = AF_INET6;
	to6.sin6_port = to.sin_port;
	to6.sin6_addr = in6_loopback;
	{
		struct msghdr m6 = { .msg_name = &to6,
				     .msg_namelen = sizeof(to6),
				     .msg_iov = &iov, .msg_iovlen = 1 };

		is_err(sendmsg(a, &m6, 0), EOPNOTSUPP,
		       "IPv4 socket to ::1 -> EOPNOTSUPP");
	}

	/* a msg_namelen above sockaddr_storage is clamped, not refused */
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &to, sizeof(to));
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
	msg.msg_namelen = sizeof(to);
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

static void test_send_sizes(void)
{
	static char big[(1 << 20) + 2];
	struct sockaddr_in to;
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
	a = bound_socket_at(cfg.addr, 0, "setup");
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

static void test_send_zero(void)
{
	struct sockaddr_in to, from;
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
	msg.msg_namelen = sizeof(to);
	is_eq(sendmsg(a, &msg, 0), 0, "sendmsg with no iovecs returns 0");

	memset(&from, 0, sizeof(from));
	r = recv_wait(b, buf, sizeof(buf), &from, &flags, 0, ARRIVE_MS);
	is_eq(r, 0, "receiver gets a zero-length datagram");
	ok(from.sin_family == AF_INET && from.sin_port == htons(bound_port(a)),
	   "with the sender's address");
	is_eq(flags, 0, "and no msg_flags");

	/* the second, iovec-less, one is a datagram of its own */
	r = recv_wait(b, buf, sizeof(buf), &from, &flags, 0, ARRIVE_MS);
	is_eq(r, 0, "the second zero-length datagram arrives separately");
	marker(a, b, "nothing else was queued");
	close(a);
	close(b);
}

static void test_send_no_listener(void)
{
	struct sockaddr_in dead;
	uint16_t port;
	int a, b, c;

	if (!make_pair(&a, &b))
		return;
	/* a port that was just released */
	c = bound_socket_at(cfg.peer, 0, "setup");
	if (c < 0)
		goto out;
	port = bound_port(c);
	close(c);

	dead = sin_make(cfg.peer, port);
	is_eq(send_to(a, &dead, "lost", 4, 0), 4,
	      "send to a port with nothing bound succeeds");
	is_eq(send_to(a, &dead, "lost", 4, MSG_DONTWAIT), 4,
	      "also with MSG_DONTWAIT");
	marker(a, b, "a later message to a bound port arrives first");
	quiet(a, "the sender gets nothing back");

	/* the dropped messages were not kept for a later binder */
	c = bound_socket_at(cfg.peer, port, "rebinding the port");
	if (c >= 0) {
		quiet(c, "a new socket on that port receives nothing");
		marker(a, c, "but it receives what is sent now");
		close(c);
	}
out:
	close(a);
	close(b);
}

static void test_send_many_senders(void)
{
	int s[3], b, i, ok_all = 1;
	char m[16];

	b = bound_socket_at(cfg.peer, 0, "setup");
	if (b < 0)
		return;
	for (i = 0; i < 3; i++)
		s[i] = bound_socket_at(cfg.addr, 0, "setup");
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
		struct sockaddr_in from;
		char buf[16] = "";
		ssize_t r = recv_wait(b, buf, sizeof(buf) - 1, &from, NULL, 0,
				      ARRIVE_MS);
		int id = r == 6 ? buf[5] - '0' : -1;

		ok_diag(id >= 0 && id < 3 && from.sin_port ==
			htons(bound_port(s[id])),
			"message source matches its payload",
			"r %zd payload '%s' port %u", r, buf,
			ntohs(from.sin_port));
	}
	for (i = 0; i < 3; i++)
		if (s[i] >= 0)
			close(s[i]);
	close(b);
}

/* ------------------------------------------------------------------ */
/* recvmsg()                                                           */
/* ------------------------------------------------------------------ */

static void test_recv_basic(void)
{
	struct sockaddr_in from, exp;
	struct msghdr msg;
	struct iovec iov;
	char buf[256], name[128];
	int a, b;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;
	exp = sock_addr(a);
	send_str(a, b, "payload-1");

	memset(name, 0xa5, sizeof(name));
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	msg.msg_name = name;
	msg.msg_namelen = sizeof(name);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_flags = -1;
	{
		struct pollfd p = { b, POLLIN, 0 };
		long long end = now_ms() + ARRIVE_MS;

		do {
			poll(&p, 1, 100);
			r = recvmsg(b, &msg, MSG_DONTWAIT);
		} while (r < 0 && errno == EAGAIN && now_ms() < end);
	}
	is_eq(r, 9, "recvmsg returns the message length");
	ok(!memcmp(buf, "payload-1", 9), "payload intact");
	is_eq(msg.msg_namelen, sizeof(struct sockaddr_in),
	      "msg_namelen is sizeof(sockaddr_in)");
	memcpy(&from, name, sizeof(from));
	is_eq(from.sin_family, AF_INET, "source family AF_INET");
	is_eq(ntohs(from.sin_port), ntohs(exp.sin_port), "source port");
	is_eq(ntohl(from.sin_addr.s_addr), ntohl(exp.sin_addr.s_addr),
	      "source address");
	ok(!memcmp(from.sin_zero, "\0\0\0\0\0\0\0\0", 8), "sin_zero cleared");
	ok((unsigned char)name[sizeof(from)] == 0xa5,
	   "nothing written past the sockaddr_in");
	is_eq(msg.msg_flags, 0, "msg_flags 0");

	/* a short name buffer: truncated copy, full length reported */
	send_str(a, b, "payload-2");
	memset(name, 0xa5, sizeof(name));
	msg.msg_namelen = 4;
	{
		struct pollfd p = { b, POLLIN, 0 };
		long long end = now_ms() + ARRIVE_MS;

		do {
			poll(&p, 1, 100);
			r = recvmsg(b, &msg, MSG_DONTWAIT);
		} while (r < 0 && errno == EAGAIN && now_ms() < end);
	}
	is_eq(r, 9, "recvmsg with a 4-byte name buffer");
	memcpy(&from, name, sizeof(from));
	ok(msg.msg_namelen == sizeof(from) && from.sin_family == AF_INET &&
	   from.sin_port == exp.sin_port &&
	   from.sin_addr.s_addr == 0xa5a5a5a5,
	   "4 bytes of the address copied, msg_namelen 16");

	/* recvfrom() with no address buffer at all */
	send_str(a, b, "payload-3");
	r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS);
	ok(r == 9 && !memcmp(buf, "payload-3", 9),
	   "recv without a name buffer");
	close(a);
	close(b);
}

static void test_recv_peek(void)
{
	char buf[64];
	int a, b, flags = 0;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;
	send_str(a, b, "peekaboo");
	send_str(a, b, "second");
	memset(buf, 0, sizeof(buf));
	r = recv_wait(b, buf, sizeof(buf), NULL, &flags, MSG_PEEK, ARRIVE_MS);
	ok(r == 8 && !memcmp(buf, "peekaboo", 8), "MSG_PEEK returns the message");
	memset(buf, 0, sizeof(buf));
	r = recv(b, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	ok(r == 8 && !memcmp(buf, "peekaboo", 8), "a second MSG_PEEK: same");
	recv_expect(b, "peekaboo", 8, a, "a normal read then gets it");
	recv_expect(b, "second", 6, a, "and then the next one");
	is_err(recv(b, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	       "queue is empty afterwards");

	/* peeking with a short buffer does not discard anything */
	send_str(a, b, "0123456789");
	r = recv_wait(b, buf, 4, NULL, &flags, MSG_PEEK, ARRIVE_MS);
	ok(r == 4 && (flags & MSG_TRUNC), "short MSG_PEEK: 4 bytes, MSG_TRUNC");
	/* the usual idiom to learn the length of the next message */
	r = recv(b, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
	is_eq(r, 10, "MSG_PEEK | MSG_TRUNC with no buffer returns the length");
	recv_expect(b, "0123456789", 10, a, "the whole message is still there");
	close(a);
	close(b);
}

static void test_recv_nonblock(void)
{
	char buf[16];
	int b, on = 1;

	b = bound_socket_at(cfg.peer, 0, "setup");
	if (b < 0)
		return;
	is_err(recv(b, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	       "MSG_DONTWAIT on an empty queue -> EAGAIN");
	is_ok(ioctl(b, FIONBIO, &on), "FIONBIO");
	is_err(recv(b, buf, sizeof(buf), 0), EAGAIN,
	       "O_NONBLOCK socket, empty queue -> EAGAIN");
	on = 0;
	ioctl(b, FIONBIO, &on);
	close(b);

	b = socket(cfg.family, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
	is_err(recv(b, buf, sizeof(buf), 0), EAGAIN,
	       "SOCK_NONBLOCK, unbound -> EAGAIN");
	close(b);
}

static void test_recv_timeout(void)
{
	struct timeval tv = { 0, 100 * 1000 };
	char buf[16];
	int b, a;

	if (!make_pair(&a, &b))
		return;
	is_ok(setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)),
	      "SO_RCVTIMEO 100 ms");
	/*
	 * rds_recvmsg() turns an expired wait into -ETIMEDOUT, where
	 * UDP and TCP return EAGAIN.
	 */
	is_err(recv(b, buf, sizeof(buf), 0), ETIMEDOUT,
	       "blocking recv times out with ETIMEDOUT");

	/* and a message that is there is returned at once */
	tv.tv_sec = ARRIVE_MS / 1000;
	tv.tv_usec = 0;
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	send_str(a, b, "in-time");
	memset(buf, 0, sizeof(buf));
	ok(recv(b, buf, sizeof(buf), 0) == 7 && !memcmp(buf, "in-time", 7),
	   "blocking recv returns a message that arrives");
	close(a);
	close(b);
}

struct kill_arg {
	pthread_t target;
	int delay_ms;
};

static void *kill_later(void *p)
{
	struct kill_arg *k = p;

	sleep_ms(k->delay_ms);
	pthread_kill(k->target, SIGUSR1);
	return NULL;
}

static void test_recv_eintr(void)
{
	struct timeval tv = { 5, 0 };
	struct kill_arg k = { pthread_self(), 200 };
	pthread_t t;
	char buf[16];
	int b;

	b = bound_socket_at(cfg.peer, 0, "setup");
	if (b < 0)
		return;
	install_sigusr1();
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	pthread_create(&t, NULL, kill_later, &k);
	is_err(recv(b, buf, sizeof(buf), 0), EINTR,
	       "a signal interrupts a blocked recv with EINTR");
	pthread_join(t, NULL);
	close(b);
}

static void test_recv_trunc(void)
{
	char msg[100], buf[200];
	int a, b, flags = 0;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;
	pattern_fill(msg, sizeof(msg), 3);
	{
		struct sockaddr_in to = sock_addr(b);

		send_to(a, &to, msg, sizeof(msg), 0);
		send_to(a, &to, "next", 4, 0);
		send_to(a, &to, msg, sizeof(msg), 0);
		send_to(a, &to, msg, sizeof(msg), 0);
	}

	/* a short buffer: truncated, MSG_TRUNC, the rest is discarded */
	r = recv_wait(b, buf, 10, NULL, &flags, 0, ARRIVE_MS);
	is_eq(r, 10, "short buffer: 10 bytes returned");
	ok(flags & MSG_TRUNC, "MSG_TRUNC set in msg_flags");
	ok(!memcmp(buf, msg, 10), "the first 10 bytes are correct");
	recv_expect(b, "next", 4, a,
		    "the next recv gets the next message, not the rest");

	/* MSG_TRUNC in flags: the full length is returned */
	r = recv_wait(b, buf, 10, NULL, &flags, MSG_TRUNC, ARRIVE_MS);
	is_eq(r, sizeof(msg), "MSG_TRUNC flag: full length returned");
	ok(flags & MSG_TRUNC, "MSG_TRUNC set in msg_flags");
	ok(!memcmp(buf, msg, 10), "the first 10 bytes are correct");

	/* an exact fit is not truncated */
	r = recv_wait(b, buf, sizeof(msg), NULL, &flags, 0, ARRIVE_MS);
	ok(r == sizeof(msg) && !(flags & MSG_TRUNC) &&
	   !memcmp(buf, msg, sizeof(msg)), "exact-size buffer: no MSG_TRUNC");
	marker(a, b, "nothing left of the truncated messages");
	close(a);
	close(b);
}

static void test_recv_flags(void)
{
	char buf[64];
	int a, b;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;
	send_str(a, b, "oob-test");
	/* wait for it without taking it */
	r = recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	ok(r == 8, "message queued");
	/*
	 * rds_recvmsg() returns 0 for MSG_OOB without looking at the
	 * queue (it jumps to the exit with ret = 0).
	 */
	memset(buf, 0, sizeof(buf));
	is_eq(recv(b, buf, sizeof(buf), MSG_OOB | MSG_DONTWAIT), 0,
	      "MSG_OOB returns 0");
	recv_expect(b, "oob-test", 8, a, "and leaves the message queued");

	/* sock_recv_errqueue() on an empty error queue */
	is_err(recv(b, buf, sizeof(buf), MSG_ERRQUEUE | MSG_DONTWAIT), EAGAIN,
	       "MSG_ERRQUEUE -> EAGAIN");

	/* a bad buffer fails the copy and keeps the message */
	send_str(a, b, "fault");
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	is_err(recv(b, (void *)8, 64, MSG_DONTWAIT), EFAULT,
	       "buffer pointer 0x8 -> EFAULT");
	{
		struct msghdr m = { .msg_iov = (struct iovec *)8,
				    .msg_iovlen = 1 };

		is_err(recvmsg(b, &m, MSG_DONTWAIT), EFAULT,
		       "msg_iov pointer 0x8 -> EFAULT");
	}
	/* rds_recvmsg() breaks out before dequeuing when the copy fails */
	recv_expect(b, "fault", 5, a, "the message survives the EFAULT");
	close(a);
	close(b);
}

static void test_recv_timestamp(void)
{
	union {
		struct cmsghdr cm;
		char buf[CMSG_SPACE(sizeof(struct timeval)) + 64];
	} cb;
	struct timeval before, after, tv;
	struct cmsghdr *cm;
	struct msghdr msg;
	struct iovec iov;
	char buf[32];
	int a, b, found;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;

	/* rds_setsockopt(): SOL_RDS/SO_TIMESTAMP wants exactly an int */
	{
		int one = 1;

		is_err(setsockopt(b, SOL_RDS, SO_TIMESTAMP, &one, 2), EFAULT,
		       "SOL_RDS SO_TIMESTAMP with optlen 2 -> EFAULT");
	}
	is_ok(set_int(b, SOL_SOCKET, SO_TIMESTAMP, 1), "SO_TIMESTAMP on");

	gettimeofday(&before, NULL);
	send_str(a, b, "stamped");
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	gettimeofday(&after, NULL);

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = &cb;
	msg.msg_controllen = sizeof(cb);
	r = recvmsg(b, &msg, MSG_DONTWAIT);
	is_eq(r, 7, "message received");
	found = 0;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMP &&
		    cm->cmsg_len == CMSG_LEN(sizeof(tv))) {
			memcpy(&tv, CMSG_DATA(cm), sizeof(tv));
			found++;
		}
	}
	ok(found == 1, "one SCM_TIMESTAMP cmsg");
	ok(!(msg.msg_flags & MSG_CTRUNC), "no MSG_CTRUNC");
	ok(found && tv.tv_usec >= 0 && tv.tv_usec < 1000000 &&
	   tv.tv_sec >= before.tv_sec - 1 && tv.tv_sec <= after.tv_sec + 1,
	   "timestamp taken between send and receive");

	/* no control buffer at all: MSG_CTRUNC (put_cmsg) */
	send_str(a, b, "stamped");
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	msg.msg_control = NULL;
	msg.msg_controllen = 0;
	msg.msg_flags = 0;
	r = recvmsg(b, &msg, MSG_DONTWAIT);
	ok(r == 7 && !memcmp(buf, "stamped", 7),
	   "no control buffer: data still received");
	ok(msg.msg_flags & MSG_CTRUNC, "no control buffer: MSG_CTRUNC");

	/* a control buffer too small for the timestamp */
	send_str(a, b, "stamped");
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	msg.msg_control = &cb;
	msg.msg_controllen = sizeof(struct cmsghdr) + 4;
	msg.msg_flags = 0;
	r = recvmsg(b, &msg, MSG_DONTWAIT);
	ok(r == 7 && (msg.msg_flags & MSG_CTRUNC),
	   "20-byte control buffer: MSG_CTRUNC");

	/* off again: no cmsg */
	is_ok(set_int(b, SOL_SOCKET, SO_TIMESTAMP, 0), "SO_TIMESTAMP off");
	send_str(a, b, "plain");
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	msg.msg_control = &cb;
	msg.msg_controllen = sizeof(cb);
	msg.msg_flags = 0;
	r = recvmsg(b, &msg, MSG_DONTWAIT);
	ok(r == 5 && msg.msg_controllen == 0 && !msg.msg_flags,
	   "SO_TIMESTAMP off: no control message");

	/* the SOL_RDS spelling of the option does the same */
	is_ok(set_int(b, SOL_RDS, SO_TIMESTAMP, 1), "SOL_RDS SO_TIMESTAMP on");
	send_str(a, b, "stamped");
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	msg.msg_control = &cb;
	msg.msg_controllen = sizeof(cb);
	msg.msg_flags = 0;
	r = recvmsg(b, &msg, MSG_DONTWAIT);
	cm = CMSG_FIRSTHDR(&msg);
	ok(r == 7 && cm && cm->cmsg_level == SOL_SOCKET &&
	   cm->cmsg_type == SCM_TIMESTAMP, "and delivers SCM_TIMESTAMP");
	close(a);
	close(b);
}

static void test_recv_sizes(void)
{
	static const size_t sizes[] = { 0, 1, 64, 4095, 4096, 4097, 65536,
					1 << 20, 3, 1 << 20, 0, 70000 };
	const int n = sizeof(sizes) / sizeof(sizes[0]);
	static char tx[(1 << 20) + 1], rx[(1 << 20) + 1];
	struct sockaddr_in to, from;
	int a, b, i, flags = 0, good = 0;
	ssize_t r;
	long bad;

	if (!make_pair(&a, &b))
		return;
	if (!is_ok(set_int(a, SOL_SOCKET, SO_SNDBUFFORCE, 8 << 20),
		   "SO_SNDBUFFORCE 8 MiB") ||
	    !is_ok(set_int(b, SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20),
		   "SO_RCVBUFFORCE 8 MiB"))
		goto out;
	to = sock_addr(b);
	for (i = 0; i < n; i++) {
		pattern_fill(tx, sizes[i], 100 + i);
		r = send_to(a, &to, tx, sizes[i], 0);
		if (r != (ssize_t)sizes[i]) {
			ok_diag(0, "send", "size %zu: %zd %s", sizes[i], r,
				tap_errname(errno));
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "message %d: %zu bytes intact", i,
			 sizes[i]);
		memset(rx, 0x5a, sizes[i] + 1);
		r = recv_wait(b, rx, sizeof(rx), &from, &flags, 0, ARRIVE_MS);
		bad = r == (ssize_t)sizes[i] ?
			pattern_check(rx, sizes[i], 100 + i) : -2;
		if (ok_diag(bad == -1 && !flags && from.sin_port ==
			    htons(bound_port(a)), name,
			    "recv %zd (%s) flags 0x%x, first bad byte %ld",
			    r, r < 0 ? tap_errname(errno) : "-", flags, bad))
			good++;
	}
	is_eq(good, n, "all boundaries preserved");

	/* scatter on send, gather on receive */
	{
		struct iovec siov[3] = { { tx, 1000 }, { tx + 1000, 1 },
					 { tx + 1001, 68999 } };
		struct iovec riov[2] = { { rx, 33333 }, { rx + 33333, 60000 } };
		struct msghdr sm = { .msg_name = &to, .msg_namelen = sizeof(to),
				     .msg_iov = siov, .msg_iovlen = 3 };
		struct msghdr rm = { .msg_iov = riov, .msg_iovlen = 2 };

		pattern_fill(tx, 70000, 55);
		is_eq(sendmsg(a, &sm, 0), 70000, "3-iovec send of 70000 bytes");
		recv_wait(b, rx, 1, NULL, NULL, MSG_PEEK, ARRIVE_MS);
		memset(rx, 0, 70000);
		r = recvmsg(b, &rm, MSG_DONTWAIT);
		ok(r == 70000 && pattern_check(rx, 70000, 55) == -1 &&
		   !rm.msg_flags, "2-iovec receive reassembles it");
	}
out:
	close(a);
	close(b);
}

/* ------------------------------------------------------------------ */
/* poll / select / epoll                                               */
/* ------------------------------------------------------------------ */

/*
 * net/rds asserts POLLIN|POLLWRBAND once per socket after any congestion
 * map update in the system (rds_poll(), "for historical reasons"; the
 * loopback transport updates the maps when a connection comes up).  The
 * first poll of a socket may therefore see POLLIN with POLLWRBAND; it
 * resets the socket's congestion generation.
 */
static short poll_settled(int fd)
{
	struct pollfd p = { fd, POLLIN | POLLOUT | POLLWRBAND, 0 };

	poll(&p, 1, 0);
	if ((p.revents & POLLIN) && !(p.revents & POLLWRBAND))
		return p.revents;
	p.revents = 0;
	poll(&p, 1, 0);
	return p.revents;
}

static void test_poll(void)
{
	struct pollfd p;
	fd_set rd, wr;
	struct timeval tv;
	char buf[16];
	int a, b;
	short ev;

	if (!make_pair(&a, &b))
		return;
	ev = poll_settled(b);
	ok(ev & POLLOUT, "idle socket: POLLOUT");
	ok(!(ev & POLLIN), "idle socket: no POLLIN (revents 0x%x)", ev);

	send_str(a, b, "poll-me");
	p.fd = b;
	p.events = POLLIN;
	p.revents = 0;
	is_eq(poll(&p, 1, ARRIVE_MS), 1, "poll wakes for a message");
	ok(p.revents & POLLIN, "POLLIN set");
	p.revents = 0;
	ok(poll(&p, 1, 0) == 1 && (p.revents & POLLIN),
	   "POLLIN stays set until read");

	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(b, &rd);
	FD_SET(b, &wr);
	tv.tv_sec = 0;
	tv.tv_usec = 0;
	ok(select(b + 1, &rd, &wr, NULL, &tv) == 2 && FD_ISSET(b, &rd) &&
	   FD_ISSET(b, &wr), "select: readable and writable");

	recv_expect(b, "poll-me", 7, a, "message read");
	ev = poll_settled(b);
	ok(!(ev & POLLIN), "no POLLIN once the queue is empty (0x%x)", ev);
	FD_ZERO(&rd);
	FD_SET(b, &rd);
	tv.tv_sec = 0;
	tv.tv_usec = 0;
	is_eq(select(b + 1, &rd, NULL, NULL, &tv), 0,
	      "select: not readable when empty");

	/* two messages: POLLIN remains after the first is read */
	send_str(a, b, "one");
	send_str(a, b, "two");
	recv_expect(b, "one", 3, a, "first of two read");
	p.revents = 0;
	ok(poll(&p, 1, ARRIVE_MS) == 1 && (p.revents & POLLIN),
	   "POLLIN while the second is queued");
	recv(b, buf, sizeof(buf), MSG_DONTWAIT);
	close(a);
	close(b);
}

struct waiter {
	int fd;		/* epoll fd or socket */
	int ret;
	int err;
	uint32_t events;
	char buf[32];
	long long woke_at;
};

static void *epoll_waiter(void *p)
{
	struct waiter *w = p;
	struct epoll_event ev;

	w->ret = epoll_wait(w->fd, &ev, 1, ARRIVE_MS);
	w->err = errno;
	w->events = w->ret == 1 ? ev.events : 0;
	w->woke_at = now_ms();
	return NULL;
}

static void *recv_waiter(void *p)
{
	struct waiter *w = p;

	w->ret = recv(w->fd, w->buf, sizeof(w->buf), 0);
	w->err = errno;
	w->woke_at = now_ms();
	return NULL;
}

static void test_epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct waiter w;
	struct timeval tv = { ARRIVE_MS / 1000, 0 };
	long long sent_at;
	pthread_t t;
	int a, b, ep;

	if (!make_pair(&a, &b))
		return;
	ep = epoll_create1(0);
	poll_settled(b);
	is_ok(epoll_ctl(ep, EPOLL_CTL_ADD, b, &ev), "EPOLL_CTL_ADD");

	memset(&w, 0, sizeof(w));
	w.fd = ep;
	pthread_create(&t, NULL, epoll_waiter, &w);
	sleep_ms(200);
	sent_at = now_ms();
	send_str(a, b, "wake");
	pthread_join(t, NULL);
	ok(w.ret == 1 && (w.events & EPOLLIN),
	   "a blocked epoll_wait wakes with EPOLLIN");
	ok(w.woke_at >= sent_at, "only after the message was sent");
	recv_expect(b, "wake", 4, a, "the message is there");

	/* EPOLLOUT on an idle socket */
	ev.events = EPOLLOUT;
	epoll_ctl(ep, EPOLL_CTL_MOD, b, &ev);
	ok(epoll_wait(ep, &ev, 1, 0) == 1 && (ev.events & EPOLLOUT),
	   "EPOLLOUT on an idle socket");
	close(ep);

	/* a blocked recv() wakes up too */
	memset(&w, 0, sizeof(w));
	w.fd = b;
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	pthread_create(&t, NULL, recv_waiter, &w);
	sleep_ms(200);
	sent_at = now_ms();
	send_str(a, b, "wake-recv");
	pthread_join(t, NULL);
	ok(w.ret == 9 && !memcmp(w.buf, "wake-recv", 9) && w.woke_at >= sent_at,
	   "a blocked recv returns the message (ret %d %s)", w.ret,
	   w.ret < 0 ? tap_errname(w.err) : "");
	close(a);
	close(b);
}

/* ------------------------------------------------------------------ */
/* socket options                                                      */
/* ------------------------------------------------------------------ */

static int read_proc_int(const char *path)
{
	int v = -1;

	read_sysfs_int(path, &v);
	return v;
}

static void test_sockopt_bufs(void)
{
	int fd, v, wmax, rmax;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	wmax = read_proc_int("/proc/sys/net/core/wmem_max");
	rmax = read_proc_int("/proc/sys/net/core/rmem_max");

	is_ok(set_int(fd, SOL_SOCKET, SO_SNDBUF, 16384), "SO_SNDBUF 16384");
	v = 0;
	get_int(fd, SOL_SOCKET, SO_SNDBUF, &v);
	is_eq(v, 2 * (wmax > 0 && wmax < 16384 ? wmax : 16384),
	      "SO_SNDBUF reads back doubled");
	is_ok(set_int(fd, SOL_SOCKET, SO_RCVBUF, 16384), "SO_RCVBUF 16384");
	v = 0;
	get_int(fd, SOL_SOCKET, SO_RCVBUF, &v);
	is_eq(v, 2 * (rmax > 0 && rmax < 16384 ? rmax : 16384),
	      "SO_RCVBUF reads back doubled");
	is_ok(set_int(fd, SOL_SOCKET, SO_RCVBUFFORCE, 1 << 22),
	      "SO_RCVBUFFORCE 4 MiB");
	v = 0;
	get_int(fd, SOL_SOCKET, SO_RCVBUF, &v);
	is_eq(v, 1 << 23, "SO_RCVBUF reads 8 MiB");
	close(fd);
}

static void test_sockopt_generic(void)
{
	socklen_t len;
	int fd, v;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	/* rds_setsockopt()/rds_getsockopt(): other levels, unknown names */
	is_err(set_int(fd, SOL_RDS, 99, 1), ENOPROTOOPT,
	       "setsockopt SOL_RDS 99 -> ENOPROTOOPT");
	is_err(get_int(fd, SOL_RDS, 99, &v), ENOPROTOOPT,
	       "getsockopt SOL_RDS 99 -> ENOPROTOOPT");
	is_err(set_int(fd, SOL_IP, IP_TOS, 1), ENOPROTOOPT,
	       "setsockopt SOL_IP -> ENOPROTOOPT");
	is_err(get_int(fd, SOL_IP, IP_TOS, &v), ENOPROTOOPT,
	       "getsockopt SOL_IP -> ENOPROTOOPT");
	is_err(set_int(fd, IPPROTO_TCP, 1, 1), ENOPROTOOPT,
	       "setsockopt IPPROTO_TCP -> ENOPROTOOPT");
	/* 4 was RDS_BARRIER, never implemented */
	is_err(set_int(fd, SOL_RDS, 4, 1), ENOPROTOOPT,
	       "setsockopt SOL_RDS 4 (old RDS_BARRIER) -> ENOPROTOOPT");
	/* getsockopt knows only the RDS_INFO_* range and two options */
	is_err(get_int(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &v), ENOPROTOOPT,
	       "getsockopt RDS_CANCEL_SENT_TO -> ENOPROTOOPT");
	is_err(getsockopt(fd, SOL_RDS, RDS_RECVERR, &v, NULL), EFAULT,
	       "getsockopt with a NULL optlen -> EFAULT");
	len = sizeof(v);
	is_err(getsockopt(fd, SOL_RDS, RDS_RECVERR, NULL, &len), EFAULT,
	       "getsockopt with a NULL optval -> EFAULT");
	is_err(setsockopt(fd, SOL_RDS, RDS_RECVERR, NULL, sizeof(int)), EFAULT,
	       "setsockopt with a NULL optval -> EFAULT");
	close(fd);
}

static void test_sockopt_recverr(void)
{
	socklen_t len;
	int fd, v;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	v = -1;
	len = sizeof(v);
	ok(!getsockopt(fd, SOL_RDS, RDS_RECVERR, &v, &len) && v == 0 &&
	   len == sizeof(int), "RDS_RECVERR is 0 by default");
	is_ok(set_int(fd, SOL_RDS, RDS_RECVERR, 1), "set RDS_RECVERR 1");
	v = -1;
	ok(!get_int(fd, SOL_RDS, RDS_RECVERR, &v) && v == 1, "reads back 1");
	/* rds_set_bool_option(): stored as !!value */
	is_ok(set_int(fd, SOL_RDS, RDS_RECVERR, 7), "set RDS_RECVERR 7");
	v = -1;
	ok(!get_int(fd, SOL_RDS, RDS_RECVERR, &v) && v == 1,
	   "a non-zero value reads back as 1");
	is_ok(set_int(fd, SOL_RDS, RDS_RECVERR, 0), "set RDS_RECVERR 0");
	v = -1;
	ok(!get_int(fd, SOL_RDS, RDS_RECVERR, &v) && v == 0, "reads back 0");

	v = 1;
	is_err(setsockopt(fd, SOL_RDS, RDS_RECVERR, &v, 2), EINVAL,
	       "set with optlen 2 -> EINVAL");
	{
		long long big = 1;

		is_ok(setsockopt(fd, SOL_RDS, RDS_RECVERR, &big, sizeof(big)),
		      "set with optlen 8 is accepted");
	}
	len = 2;
	is_err(getsockopt(fd, SOL_RDS, RDS_RECVERR, &v, &len), EINVAL,
	       "get with optlen 2 -> EINVAL");
	{
		long long big = -1;

		len = sizeof(big);
		ok(!getsockopt(fd, SOL_RDS, RDS_RECVERR, &big, &len) &&
		   len == sizeof(int), "get with optlen 8 writes back 4");
	}
	close(fd);
}

static void test_sockopt_transport(void)
{
	socklen_t len;
	int fd, v;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	v = 0;
	len = sizeof(v);
	ok(!getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, &len) &&
	   v == RDS_TRANS_NONE && len == sizeof(int),
	   "unbound socket: RDS_TRANS_NONE");
	len = 2;
	is_err(getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, &len), EINVAL,
	       "get with optlen 2 -> EINVAL");

	/* rds_set_transport(): optlen must be exactly sizeof(int) */
	v = RDS_TRANS_TCP;
	is_err(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, 2), EINVAL,
	       "set with optlen 2 -> EINVAL");
	{
		long long big = RDS_TRANS_TCP;

		is_err(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &big,
				  sizeof(big)), EINVAL,
		       "set with optlen 8 -> EINVAL");
	}
	is_err(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_NONE), EINVAL,
	       "set RDS_TRANS_NONE -> EINVAL");
	is_err(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_COUNT), EINVAL,
	       "set RDS_TRANS_COUNT -> EINVAL");
	is_err(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, 1000), EINVAL,
	       "set 1000 -> EINVAL");
	/*
	 * Type 1 (RDS_TRANS_GAP/IWARP) has no transport and no module to
	 * load: rds_trans_get() fails.  (IB and TCP would modprobe
	 * rds_rdma/rds_tcp, so they are not tried here.)  Outside the
	 * initial namespace only TCP may be chosen.
	 */
	if (in_init_netns())
		is_err(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_GAP),
		       ENOPROTOOPT, "set RDS_TRANS_GAP (none) -> ENOPROTOOPT");
	else
		is_err(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_GAP),
		       EPROTOTYPE,
		       "set RDS_TRANS_GAP outside init_net -> EPROTOTYPE");
	v = 0;
	ok(!get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, &v) && v == RDS_TRANS_NONE,
	   "still RDS_TRANS_NONE after the failures");
	close(fd);

	fd = bound_socket_at(cfg.addr, 0, "setup");
	if (fd < 0)
		return;
	v = RDS_TRANS_TCP;
	is_err(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP),
	       EOPNOTSUPP, "set after bind -> EOPNOTSUPP");
	is_err(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, -5), EOPNOTSUPP,
	       "set after bind checks binding first -> EOPNOTSUPP");
	v = -2;
	ok(!get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, &v) && v != RDS_TRANS_NONE,
	   "bound socket reports a transport (%d)", v);
	if (cfg.transport == RDS_TRANS_LOOP)
		/* rds_loop_transport.t_type, outside the uapi numbers */
		is_eq(v, RDS_TRANS_LOOP, "loopback: RDS_TRANS_LOOP (3)");
	else if (cfg.transport >= 0)
		is_eq(v, cfg.transport, "the transport given with --transport");
	close(fd);
}

/*
 * With an RDMA transport available: the address still decides the
 * transport (127.0.0.0/8 stays on loopback), and SO_RDS_TRANSPORT set
 * before bind() chooses one, which must serve the bound address.
 */
static void test_transport_ib(void)
{
	struct in_addr lo;
	struct sockaddr_in sin;
	socklen_t len;
	int fd, b, v;

	inet_pton(AF_INET, "127.0.0.1", &lo);
	fd = bound_socket_at(lo, 0, "setup: bind 127.0.0.1");
	if (fd >= 0) {
		v = -2;
		ok(!get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, &v) &&
		   v == RDS_TRANS_LOOP,
		   "127.0.0.1 is still served by loopback (%d)", v);
		close(fd);
	}

	/* rds_set_transport(), then rds_bind() with rs_transport set */
	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	is_ok(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB),
	      "set RDS_TRANS_IB before bind");
	v = -2;
	ok(!get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, &v) && v == RDS_TRANS_IB,
	   "reads back RDS_TRANS_IB before bind (%d)", v);
	is_err(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB),
	       EOPNOTSUPP, "set again once chosen -> EOPNOTSUPP");
	sin = sin_make(cfg.addr, 0);
	if (is_ok(bind(fd, (struct sockaddr *)&sin, sizeof(sin)),
		  "bind --addr with RDS_TRANS_IB chosen")) {
		v = -2;
		ok(!get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, &v) &&
		   v == RDS_TRANS_IB, "bound: RDS_TRANS_IB (%d)", v);
		b = bound_socket_at(cfg.peer, 0, "setup: bind --peer");
		if (b >= 0) {
			marker(fd, b, "the socket sends to --peer");
			marker(b, fd, "and receives from it");
			close(b);
		}
	}
	close(fd);

	/* the laddr_check of the chosen transport refuses 127.0.0.1 */
	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB);
	sin = sin_make(lo, 0);
	is_err(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), ENOPROTOOPT,
	       "RDS_TRANS_IB chosen, bind 127.0.0.1 -> ENOPROTOOPT");
	memset(&sin, 0xa5, sizeof(sin));
	len = sizeof(sin);
	ok(!getsockname(fd, (struct sockaddr *)&sin, &len) &&
	   sin.sin_family == AF_UNSPEC, "and the socket is left unbound");
	close(fd);
}

static void test_sockopt_cancel(void)
{
	struct sockaddr_in to;
	struct sockaddr_in6 to6;
	int a, b, u;

	if (!make_pair(&a, &b))
		return;
	to = sock_addr(b);

	/* rds_cancel_sent_to(): unbound is checked before the length */
	u = rds_socket();
	is_err(setsockopt(u, SOL_RDS, RDS_CANCEL_SENT_TO, &to, sizeof(to)),
	       ENOTCONN, "unbound socket -> ENOTCONN");
	is_err(setsockopt(u, SOL_RDS, RDS_CANCEL_SENT_TO, &to, 4), ENOTCONN,
	       "unbound socket, short optlen -> ENOTCONN");
	close(u);

	is_err(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &to, sizeof(to) - 1),
	       EINVAL, "optlen 15 -> EINVAL");
	is_err(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &to, 0), EINVAL,
	       "optlen 0 -> EINVAL");
	is_err(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, NULL, sizeof(to)),
	       EFAULT, "NULL optval -> EFAULT");
	is_ok(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &to, sizeof(to)),
	      "sockaddr_in -> 0");
	memset(&to6, 0, sizeof(to6));
	to6.sin6_family = AF_INET6;
	to6.sin6_port = to.sin_port;
	to6.sin6_addr.s6_addr[10] = 0xff;
	to6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&to6.sin6_addr.s6_addr[12], &to.sin_addr, 4);
	is_ok(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &to6, sizeof(to6)),
	      "sockaddr_in6 -> 0");
	marker(a, b, "the socket still sends afterwards");
	close(a);
	close(b);
}

/*
 * Memory registration options on a socket whose transport registers no
 * memory (loopback): rds_get_mr(), rds_get_mr_for_dest(), rds_free_mr()
 * and __rds_rdma_map() check length, then copy, then the binding.
 */
/* @a is the IPv4-mapped form of @v4. */
static bool mapped_is(struct in6_addr a, in_addr_t v4)
{
	return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr32[3] == v4;
}

/*
 * The RDS6_INFO_* forms list IPv4 objects too, with mapped addresses:
 * A's socket, its connection to B and the message waiting at B.
 */
static void test_info_v6(int a, const struct sockaddr_in *sa,
			 const struct sockaddr_in *sb, ino_t ino_a)
{
	bool found = false;
	socklen_t len;
	void *buf;
	size_t i;
	int r;

	r = info_get(a, RDS6_INFO_SOCKETS, &buf, &len);
	is_eq(r, (int)sizeof(struct rds6_info_socket),
	      "RDS6_INFO_SOCKETS returns the entry size");
	for (i = 0; r > 0 && i < len / r; i++) {
		struct rds6_info_socket *s = (struct rds6_info_socket *)buf + i;

		if (s->inum == ino_a && s->bound_port == sa->sin_port &&
		    mapped_is(s->bound_addr, sa->sin_addr.s_addr))
			found = true;
	}
	ok(found, "RDS6_INFO_SOCKETS lists A with its IPv4-mapped address");
	free(buf);

	found = false;
	r = info_get(a, RDS6_INFO_CONNECTIONS, &buf, &len);
	is_eq(r, (int)sizeof(struct rds6_info_connection),
	      "RDS6_INFO_CONNECTIONS returns the entry size");
	for (i = 0; r > 0 && i < len / r; i++) {
		struct rds6_info_connection *c =
			(struct rds6_info_connection *)buf + i;

		if (mapped_is(c->laddr, sa->sin_addr.s_addr) &&
		    mapped_is(c->faddr, sb->sin_addr.s_addr) &&
		    c->next_tx_seq > 0 &&
		    memchr(c->transport, 0, sizeof(c->transport)))
			found = true;
	}
	ok(found, "RDS6_INFO_CONNECTIONS lists A -> B, mapped");
	free(buf);

	r = info_get(a, RDS6_INFO_SEND_MESSAGES, &buf, &len);
	is_eq(r, (int)sizeof(struct rds6_info_message),
	      "RDS6_INFO_SEND_MESSAGES returns the entry size");
	free(buf);
	r = info_get(a, RDS6_INFO_RETRANS_MESSAGES, &buf, &len);
	is_eq(r, (int)sizeof(struct rds6_info_message),
	      "RDS6_INFO_RETRANS_MESSAGES returns the entry size");
	free(buf);
	found = false;
	r = info_get(a, RDS6_INFO_RECV_MESSAGES, &buf, &len);
	for (i = 0; r > 0 && i < len / r; i++) {
		struct rds6_info_message *m =
			(struct rds6_info_message *)buf + i;

		if (m->len == 4 && m->lport == sb->sin_port &&
		    mapped_is(m->laddr, sb->sin_addr.s_addr) &&
		    mapped_is(m->faddr, sa->sin_addr.s_addr) &&
		    m->fport == sa->sin_port)
			found = true;
	}
	is_eq(r, (int)sizeof(struct rds6_info_message),
	      "RDS6_INFO_RECV_MESSAGES returns the entry size");
	ok(found, "RDS6_INFO_RECV_MESSAGES lists the waiting message, mapped");
	free(buf);
}

/*
 * RDS_INFO_IB_CONNECTIONS lists the IB connection A -> B with its GIDs
 * and queue pair sizes over IB, and nothing over loopback.
 */
static void test_info_ib(int a, const struct sockaddr_in *sa,
			 const struct sockaddr_in *sb)
{
	static const uint8_t zero[RDS_IB_GID_LEN];
	bool ib = cfg.transport == RDS_TRANS_IB;
	size_t i, n, hits = 0, hits6 = 0;
	socklen_t len;
	void *buf;
	int r;

	r = info_get(a, RDS_INFO_IB_CONNECTIONS, &buf, &len);
	is_eq(r, (int)sizeof(struct rds_info_rdma_connection),
	      "RDS_INFO_IB_CONNECTIONS returns the entry size");
	n = r > 0 ? len / r : 0;
	for (i = 0; i < n; i++) {
		struct rds_info_rdma_connection *c =
			(struct rds_info_rdma_connection *)buf + i;

		if (c->src_addr == sa->sin_addr.s_addr &&
		    c->dst_addr == sb->sin_addr.s_addr &&
		    memcmp(c->src_gid, zero, sizeof(zero)) &&
		    memcmp(c->dst_gid, zero, sizeof(zero)) &&
		    c->max_send_wr > 0 && c->max_recv_wr > 0 &&
		    c->max_send_sge > 0 && c->rdma_mr_size > 0 &&
		    !c->cache_allocs)
			hits++;
	}
	if (ib)
		ok_diag(hits == 1, "RDS_INFO_IB_CONNECTIONS lists A -> B: GIDs, queue sizes",
			"%zu entries, %zu match", n, hits);
	else
		ok_diag(n == 0, "RDS_INFO_IB_CONNECTIONS lists no loopback connection",
			"%zu entries", n);
	free(buf);

	r = info_get(a, RDS6_INFO_IB_CONNECTIONS, &buf, &len);
	is_eq(r, (int)sizeof(struct rds6_info_rdma_connection),
	      "RDS6_INFO_IB_CONNECTIONS returns the entry size");
	for (i = 0; r > 0 && i < len / r; i++) {
		struct rds6_info_rdma_connection *c =
			(struct rds6_info_rdma_connection *)buf + i;

		if (mapped_is(c->src_addr, sa->sin_addr.s_addr) &&
		    mapped_is(c->dst_addr, sb->sin_addr.s_addr) &&
		    memcmp(c->src_gid, zero, sizeof(zero)) &&
		    c->max_send_wr > 0)
			hits6++;
	}
	ok_diag(hits6 == (ib ? 1 : 0),
		"RDS6_INFO_IB_CONNECTIONS agrees, with mapped addresses",
		"%zu match", hits6);
	free(buf);
}

/* RDS_INFO_* getsockopts: Linux's structures and length protocol. */
static void test_info(void)
{
	struct sockaddr_in sa, sb;
	struct stat st_a, st_b;
	socklen_t len, sl = sizeof(sa);
	bool found_a = false, found_b = false, found = false;
	int a, b, r, v, tries, sndbuf = 0, rcvbuf = 0;
	void *buf = NULL;
	size_t i, n;

	if (!make_pair(&a, &b))
		return;
	getsockname(a, (struct sockaddr *)&sa, &sl);
	sl = sizeof(sb);
	getsockname(b, (struct sockaddr *)&sb, &sl);
	fstat(a, &st_a);
	fstat(b, &st_b);
	sl = sizeof(sndbuf);
	getsockopt(a, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl);
	sl = sizeof(rcvbuf);
	getsockopt(a, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &sl);

	/* counters: probe, too small, negative, then the snapshot */
	len = 0;
	r = getsockopt(a, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len);
	ok_diag(r < 0 && errno == ENOSPC && len > 0 &&
		len % sizeof(struct rds_info_counter) == 0,
		"RDS_INFO_COUNTERS, length 0 -> ENOSPC and the length needed",
		"returned %d (%s), length %u", r, tap_errname(errno), len);
	v = len;
	len = sizeof(struct rds_info_counter);
	buf = calloc(1, len);
	r = getsockopt(a, SOL_RDS, RDS_INFO_COUNTERS, buf, &len);
	ok_diag(r < 0 && errno == ENOSPC && (int)len == v,
		"room for one counter -> ENOSPC and the whole length",
		"returned %d (%s), length %u", r, tap_errname(errno), len);
	free(buf);
	len = -1;
	is_err(getsockopt(a, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len), EINVAL,
	       "negative length -> EINVAL");
	if (!cfg.impl_doca) {
		/* no IB module answers here (run.sh checks none is loaded) */
		len = 0;
		is_err(getsockopt(a, SOL_RDS, RDS_INFO_IB_CONNECTIONS, NULL,
				  &len), ENOPROTOOPT,
		       "RDS_INFO_IB_CONNECTIONS -> ENOPROTOOPT");
	}
	if (cfg.impl_doca) {
		len = 0;
		is_err(getsockopt(a, SOL_RDS, RDS_INFO_TCP_SOCKETS, NULL, &len),
		       ENOPROTOOPT, "RDS_INFO_TCP_SOCKETS (no TCP transport) -> ENOPROTOOPT");
		/* net/rds pins the buffer first and answers EAGAIN */
		len = 4096;
		is_err(getsockopt(a, SOL_RDS, RDS_INFO_COUNTERS, (void *)8,
				  &len), EFAULT,
		       "unwritable buffer -> EFAULT");
	}
	r = info_get(a, RDS_INFO_COUNTERS, &buf, &len);
	is_eq(r, (int)sizeof(struct rds_info_counter),
	      "RDS_INFO_COUNTERS returns the entry size");
	n = r > 0 ? len / r : 0;
	for (i = 0; i < n; i++) {
		struct rds_info_counter *c = (struct rds_info_counter *)buf + i;

		if (!c->name[0] || !memchr(c->name, 0, sizeof(c->name)))
			break;
	}
	ok_diag(n > 0 && i == n, "every counter has a NUL-terminated name",
		"%zu counters, entry %zu is not", n, i);
	free(buf);

	/* a message waiting at B (over IB, once it has arrived) */
	is_eq(send_str(a, b, "info"), 4, "send a message to B");
	{
		struct pollfd pfd = { .fd = b, .events = POLLIN };

		is_eq(poll(&pfd, 1, ARRIVE_MS), 1, "it arrives at B");
	}
	/*
	 * net/rds has been seen, rarely, to leave a message it reports
	 * readable out of one snapshot: look up to five times, 50 ms apart.
	 */
	for (tries = 0; !found && tries < 5; tries++) {
		if (tries) {
			free(buf);
			usleep(50000);
		}
		r = info_get(b, RDS_INFO_RECV_MESSAGES, &buf, &len);
		for (i = 0; r > 0 && i < len / r; i++) {
			struct rds_info_message *m =
				(struct rds_info_message *)buf + i;

			/* received: "local" is the receiving socket */
			if (m->len == 4 && m->laddr == sb.sin_addr.s_addr &&
			    m->lport == sb.sin_port &&
			    m->faddr == sa.sin_addr.s_addr &&
			    m->fport == sa.sin_port)
				found = true;
		}
	}
	is_eq(r, (int)sizeof(struct rds_info_message),
	      "RDS_INFO_RECV_MESSAGES returns the entry size");
	if (tries > 1)
		tap_diag("the message was listed after %d snapshots", tries);
	if (!ok(found, "the waiting message is listed, from A to B")) {
		for (i = 0; r > 0 && i < len / r; i++) {
			struct rds_info_message *m =
				(struct rds_info_message *)buf + i;

			tap_diag("entry %zu: len %u, local %08x:%u, peer %08x:%u",
				 i, m->len, ntohl(m->laddr), ntohs(m->lport),
				 ntohl(m->faddr), ntohs(m->fport));
		}
		tap_diag("A %08x:%u, B %08x:%u", ntohl(sa.sin_addr.s_addr),
			 ntohs(sa.sin_port), ntohl(sb.sin_addr.s_addr),
			 ntohs(sb.sin_port));
	}
	free(buf);

	r = info_get(a, RDS_INFO_SOCKETS, &buf, &len);
	is_eq(r, (int)sizeof(struct rds_info_socket),
	      "RDS_INFO_SOCKETS returns the entry size");
	for (i = 0; r > 0 && i < len / r; i++) {
		struct rds_info_socket *s = (struct rds_info_socket *)buf + i;

		if (s->inum == st_a.st_ino && s->bound_port == sa.sin_port &&
		    s->bound_addr == sa.sin_addr.s_addr &&
		    (int)s->sndbuf == sndbuf / 2 && (int)s->rcvbuf == rcvbuf / 2)
			found_a = true;
		if (s->inum == st_b.st_ino && s->bound_port == sb.sin_port)
			found_b = true;
	}
	ok(found_a, "socket A is listed: inode, address, port, buffers");
	ok(found_b, "socket B is listed");
	free(buf);

	found = false;
	r = info_get(a, RDS_INFO_CONNECTIONS, &buf, &len);
	is_eq(r, (int)sizeof(struct rds_info_connection),
	      "RDS_INFO_CONNECTIONS returns the entry size");
	for (i = 0; r > 0 && i < len / r; i++) {
		struct rds_info_connection *c =
			(struct rds_info_connection *)buf + i;

		if (c->laddr == sa.sin_addr.s_addr &&
		    c->faddr == sb.sin_addr.s_addr && c->next_tx_seq > 0 &&
		    c->transport[0] &&
		    memchr(c->transport, 0, sizeof(c->transport)))
			found = true;
	}
	ok(found, "the connection from A to B is listed, with its transport");
	free(buf);

	r = info_get(a, RDS_INFO_SEND_MESSAGES, &buf, &len);
	is_eq(r, (int)sizeof(struct rds_info_message),
	      "RDS_INFO_SEND_MESSAGES returns the entry size");
	free(buf);
	r = info_get(a, RDS_INFO_RETRANS_MESSAGES, &buf, &len);
	is_eq(r, (int)sizeof(struct rds_info_message),
	      "RDS_INFO_RETRANS_MESSAGES returns the entry size");
	free(buf);

	test_info_v6(a, &sa, &sb, st_a.st_ino);
	if (cfg.impl_doca)
		test_info_ib(a, &sa, &sb);

	recv_expect(b, "info", 4, a, "the message is still delivered");
	close(a);
	close(b);
}

/*
 * Over IB: once A has sent to B, RDS_INFO_IB_CONNECTIONS and its IPv6
 * form list the connection with its GIDs and queue pair sizes.
 */
static void test_info_ib_conn(void)
{
	struct sockaddr_in sa, sb;
	socklen_t sl = sizeof(sa);
	int a, b;

	if (!make_pair(&a, &b))
		return;
	getsockname(a, (struct sockaddr *)&sa, &sl);
	sl = sizeof(sb);
	getsockname(b, (struct sockaddr *)&sb, &sl);
	is_eq(send_str(a, b, "ib"), 2, "send a message to B");
	recv_expect(b, "ib", 2, a, "B receives it: the connection is up");
	test_info_ib(a, &sa, &sb);
	close(a);
	close(b);
}

/*
 * Memory registration's argument checks.  rds_doca registers memory over
 * its loopback transport (rds_rdma_test checks that in depth); over IB it
 * does not yet, and net/rds refuses it on loopback.
 */
static void test_mr_refused(void)
{
	bool rdma = cfg.impl_doca && cfg.transport == RDS_TRANS_LOOP;
	struct rds_get_mr_for_dest_args dargs;
	struct rds_get_mr_args args;
	struct rds_free_mr_args fargs;
	char buf[64];
	uint64_t cookie = 0;
	int u, b;

	memset(&args, 0, sizeof(args));
	args.vec.addr = (uintptr_t)buf;
	args.vec.bytes = sizeof(buf);
	args.cookie_addr = (uintptr_t)&cookie;
	memset(&dargs, 0, sizeof(dargs));
	dargs.vec = args.vec;
	dargs.cookie_addr = args.cookie_addr;
	((struct sockaddr_in *)&dargs.dest_addr)->sin_family = AF_INET;
	memset(&fargs, 0, sizeof(fargs));

	u = rds_socket();
	b = bound_socket_at(cfg.addr, 0, "setup");
	if (!sys_ok(u, "socket") || b < 0)
		goto out;

	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR, &args, sizeof(args) - 1),
	       EINVAL, "RDS_GET_MR short optlen -> EINVAL");
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR, NULL, sizeof(args)), EFAULT,
	       "RDS_GET_MR NULL optval -> EFAULT");
	is_err(setsockopt(u, SOL_RDS, RDS_GET_MR, &args, sizeof(args)),
	       ENOTCONN, "RDS_GET_MR unbound -> ENOTCONN");
	if (rdma) {
		is_ok(setsockopt(b, SOL_RDS, RDS_GET_MR, &args, sizeof(args)),
		      "RDS_GET_MR on loopback registers (rds_rdma_test has more)");
		ok(cookie != 0, "a cookie is written");
		fargs.cookie = cookie;
		is_ok(setsockopt(b, SOL_RDS, RDS_FREE_MR, &fargs,
				 sizeof(fargs)), "RDS_FREE_MR frees it");
		fargs.cookie = 0;
	} else {
		is_err(setsockopt(b, SOL_RDS, RDS_GET_MR, &args, sizeof(args)),
		       EOPNOTSUPP, cfg.transport == RDS_TRANS_LOOP ?
		       "RDS_GET_MR on loopback -> EOPNOTSUPP" :
		       "RDS_GET_MR over IB -> EOPNOTSUPP (not yet available)");
		is_eq(cookie, 0, "no cookie written");
	}

	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &dargs,
			  sizeof(args)), EINVAL,
	       "RDS_GET_MR_FOR_DEST with a get_mr length -> EINVAL");
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, NULL, sizeof(dargs)),
	       EFAULT, "RDS_GET_MR_FOR_DEST NULL optval -> EFAULT");
	is_err(setsockopt(u, SOL_RDS, RDS_GET_MR_FOR_DEST, &dargs,
			  sizeof(dargs)), ENOTCONN,
	       "RDS_GET_MR_FOR_DEST unbound -> ENOTCONN");
	if (rdma) {
		is_ok(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &dargs,
				 sizeof(dargs)),
		      "RDS_GET_MR_FOR_DEST on loopback registers");
	} else {
		is_err(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &dargs,
				  sizeof(dargs)), EOPNOTSUPP,
		       "RDS_GET_MR_FOR_DEST without RDMA -> EOPNOTSUPP");
	}

	is_err(setsockopt(b, SOL_RDS, RDS_FREE_MR, &fargs, sizeof(fargs) + 1),
	       EINVAL, "RDS_FREE_MR long optlen -> EINVAL");
	is_err(setsockopt(b, SOL_RDS, RDS_FREE_MR, NULL, sizeof(fargs)),
	       EFAULT, "RDS_FREE_MR NULL optval -> EFAULT");
	if (rdma)
		is_ok(setsockopt(b, SOL_RDS, RDS_FREE_MR, &fargs,
				 sizeof(fargs)),
		      "RDS_FREE_MR cookie 0 (flush) -> 0, nothing to flush");
	else
		is_err(setsockopt(b, SOL_RDS, RDS_FREE_MR, &fargs,
				  sizeof(fargs)), EINVAL,
		       "RDS_FREE_MR cookie 0 (flush) without RDMA -> EINVAL");
	fargs.cookie = 0x100000001ULL;
	fargs.flags = RDS_RDMA_INVALIDATE;
	is_err(setsockopt(b, SOL_RDS, RDS_FREE_MR, &fargs, sizeof(fargs)),
	       EINVAL, "RDS_FREE_MR unknown cookie -> EINVAL");
out:
	if (u >= 0)
		close(u);
	if (b >= 0)
		close(b);
}

static void test_sockopt_cong_monitor(void)
{
	socklen_t len;
	int fd, v = 1;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	is_ok(set_int(fd, SOL_RDS, RDS_CONG_MONITOR, 1), "set 1");
	is_ok(set_int(fd, SOL_RDS, RDS_CONG_MONITOR, 0), "set 0");
	is_ok(set_int(fd, SOL_RDS, RDS_CONG_MONITOR, 5), "set 5");
	is_err(setsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &v, 3), EINVAL,
	       "optlen 3 -> EINVAL");
	/* rds_getsockopt() has no case for it */
	len = sizeof(v);
	is_err(getsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &v, &len), ENOPROTOOPT,
	       "getsockopt -> ENOPROTOOPT");
	close(fd);
}

static void test_sockopt_rxpath_latency(void)
{
	struct rds_rx_trace_so tr;
	union {
		struct cmsghdr cm;
		char buf[CMSG_SPACE(sizeof(struct rds_cmsg_rx_trace)) + 32];
	} cb;
	struct rds_cmsg_rx_trace t;
	struct cmsghdr *cm;
	struct msghdr msg;
	struct iovec iov;
	char buf[16];
	int a, b, found = 0;

	if (!make_pair(&a, &b))
		return;
	/* rds_recv_track_latency(): all its errors are EFAULT */
	memset(&tr, 0, sizeof(tr));
	tr.rx_traces = 2;
	tr.rx_trace_pos[0] = 0;
	tr.rx_trace_pos[1] = 1;
	is_err(setsockopt(b, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr,
			  sizeof(tr) - 1), EFAULT, "short optlen -> EFAULT");
	tr.rx_traces = RDS_MSG_RX_DGRAM_TRACE_MAX + 1;
	is_err(setsockopt(b, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr,
			  sizeof(tr)), EFAULT, "too many traces -> EFAULT");
	tr.rx_traces = 2;
	tr.rx_trace_pos[1] = RDS_MSG_RX_DGRAM_TRACE_MAX;
	is_err(setsockopt(b, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr,
			  sizeof(tr)), EFAULT, "bad trace position -> EFAULT");
	tr.rx_trace_pos[1] = 1;
	is_ok(setsockopt(b, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr,
			 sizeof(tr)), "two trace points -> 0");

	send_str(a, b, "traced");
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = &cb;
	msg.msg_controllen = sizeof(cb);
	is_eq(recvmsg(b, &msg, MSG_DONTWAIT), 6, "message received");
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level != SOL_RDS ||
		    cm->cmsg_type != RDS_CMSG_RXPATH_LATENCY ||
		    cm->cmsg_len != CMSG_LEN(sizeof(t)))
			continue;
		memcpy(&t, CMSG_DATA(cm), sizeof(t));
		found++;
	}
	ok(found == 1 && t.rx_traces == 2 && t.rx_trace_pos[0] == 0 &&
	   t.rx_trace_pos[1] == 1, "RDS_CMSG_RXPATH_LATENCY with 2 traces");
	close(a);
	close(b);
}

/* ------------------------------------------------------------------ */
/* ioctl                                                               */
/* ------------------------------------------------------------------ */

static void test_ioctl(void)
{
	struct ifreq rq[64], uq[64];
	struct ifconf rc = { .ifc_len = sizeof(rq), .ifc_req = rq };
	struct ifconf uc = { .ifc_len = sizeof(uq), .ifc_req = uq };
	struct ifreq r, u;
	int fd, udp, i, has_lo = 0, v;
	char big[64];

	fd = rds_socket();
	udp = socket(AF_INET, SOCK_DGRAM, 0);
	if (!sys_ok(fd, "socket") || !sys_ok(udp, "UDP socket"))
		return;

	/* generic interface ioctls reach dev_ioctl() via sock_do_ioctl() */
	is_ok(ioctl(fd, SIOCGIFCONF, &rc), "SIOCGIFCONF");
	ioctl(udp, SIOCGIFCONF, &uc);
	is_eq(rc.ifc_len, uc.ifc_len, "SIOCGIFCONF: same length as UDP");
	for (i = 0; i < (int)(rc.ifc_len / sizeof(rq[0])); i++)
		if (!strcmp(rq[i].ifr_name, "lo"))
			has_lo = 1;
	ok(has_lo, "SIOCGIFCONF lists lo");

	memset(&r, 0, sizeof(r));
	strcpy(r.ifr_name, "lo");
	u = r;
	is_ok(ioctl(fd, SIOCGIFMTU, &r), "SIOCGIFMTU lo");
	ioctl(udp, SIOCGIFMTU, &u);
	ok(r.ifr_mtu == u.ifr_mtu && r.ifr_mtu > 0,
	   "SIOCGIFMTU: %d, as on UDP", r.ifr_mtu);

	memset(&r, 0, sizeof(r));
	strcpy(r.ifr_name, "lo");
	u = r;
	is_ok(ioctl(fd, SIOCGIFFLAGS, &r), "SIOCGIFFLAGS lo");
	ioctl(udp, SIOCGIFFLAGS, &u);
	ok(r.ifr_flags == u.ifr_flags && (r.ifr_flags & IFF_LOOPBACK),
	   "SIOCGIFFLAGS: IFF_LOOPBACK, as on UDP");

	memset(&r, 0, sizeof(r));
	strcpy(r.ifr_name, "lo");
	is_ok(ioctl(fd, SIOCGIFINDEX, &r), "SIOCGIFINDEX lo");
	is_eq(r.ifr_ifindex, if_nametoindex("lo"),
	      "SIOCGIFINDEX matches if_nametoindex");

	memset(&r, 0, sizeof(r));
	strcpy(r.ifr_name, "nosuchif0");
	is_err(ioctl(fd, SIOCGIFMTU, &r), ENODEV,
	       "SIOCGIFMTU on a missing interface -> ENODEV");

	/* sock_do_ioctl(): non-socket ioctls that rds_ioctl() refuses */
	is_err(ioctl(fd, FIONREAD, &v), ENOTTY, "FIONREAD -> ENOTTY");
	is_err(ioctl(fd, TIOCOUTQ, &v), ENOTTY, "TIOCOUTQ -> ENOTTY");
	is_err(ioctl(fd, _IOR('x', 0x42, int), &v), ENOTTY,
	       "unknown ioctl -> ENOTTY");
	/* a socket ioctl number dev_ioctl() does not know */
	memset(big, 0, sizeof(big));
	is_err(ioctl(fd, SIOCGIFMEM, big), ENOTTY, "SIOCGIFMEM -> ENOTTY");

	/* type of service */
	big[0] = 0x5a;
	is_ok(ioctl(fd, SIOCRDSGETTOS, big), "SIOCRDSGETTOS");
	is_eq(big[0], 0, "TOS 0 by default");
	/* no transport yet: -ENOIOCTLCMD, then dev_ioctl() says ENOTTY */
	memset(big, 0, sizeof(big));
	big[0] = 1;
	is_err(ioctl(fd, SIOCRDSSETTOS, big), ENOTTY,
	       "SIOCRDSSETTOS on an unbound socket -> ENOTTY");
	is_err(ioctl(fd, SIOCRDSGETTOS, (void *)8), EFAULT,
	       "SIOCRDSGETTOS to address 0x8 -> EFAULT");
	close(fd);
	close(udp);

	if (cfg_loopback()) {
		fd = bound_socket_at(cfg.addr, 0, "setup");
		if (fd < 0)
			return;
		/* rds_loop_transport has no get_tos_map */
		is_err(ioctl(fd, SIOCRDSSETTOS, big), ENOTTY,
		       "SIOCRDSSETTOS on loopback -> ENOTTY");
		close(fd);
	}
}

/* ------------------------------------------------------------------ */
/* close                                                               */
/* ------------------------------------------------------------------ */

static void test_close_pending(void)
{
	struct sockaddr_in to;
	uint16_t port;
	int a, b, i, sent = 0;
	char buf[64];

	if (!make_pair(&a, &b))
		return;
	port = bound_port(b);
	to = sock_addr(b);
	pattern_fill(buf, sizeof(buf), 9);
	for (i = 0; i < 20; i++)
		if (send_to(a, &to, buf, sizeof(buf), 0) == sizeof(buf))
			sent++;
	is_eq(sent, 20, "20 messages sent");
	/* wait until they are queued on B */
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	sleep_ms(50);
	is_ok(close(b), "close with 20 messages queued");

	b = bound_socket_at(cfg.peer, port, "the port can be bound again");
	if (b < 0) {
		close(a);
		return;
	}
	quiet(b, "the new socket inherits none of the old messages");
	marker(a, b, "and receives new ones");
	close(b);

	/* close with messages queued while a sender keeps sending */
	b = bound_socket_at(cfg.peer, 0, "setup");
	to = sock_addr(b);
	for (i = 0; i < 50; i++)
		send_to(a, &to, buf, sizeof(buf), MSG_DONTWAIT);
	close(b);
	for (i = 0; i < 50; i++)
		send_to(a, &to, buf, sizeof(buf), MSG_DONTWAIT);
	b = bound_socket_at(cfg.peer, 0, "sockets still work afterwards");
	if (b >= 0) {
		marker(a, b, "messaging still works afterwards");
		close(b);
	}
	close(a);
}

/* ------------------------------------------------------------------ */
/* congestion                                                          */
/* ------------------------------------------------------------------ */

#define CONG_MSG 1024

/*
 * net/rds: rds_recv_rcvbuf_delta() returns early for the loopback
 * transport, so a receiver that is over its SO_RCVBUF never congests a
 * loopback sender.
 */
static void test_cong_loopback_none(void)
{
	struct sockaddr_in to;
	char buf[CONG_MSG];
	int a, b, v = 0, i, n, sent = 0, enobufs = 0, good = 0;
	long long end;

	if (!make_pair(&a, &b))
		return;
	set_int(b, SOL_SOCKET, SO_RCVBUF, 4096);
	get_int(b, SOL_SOCKET, SO_RCVBUF, &v);
	set_int(a, SOL_RDS, RDS_CONG_MONITOR, 1);
	to = sock_addr(b);
	/* eight times the receive buffer */
	n = 8 * v / CONG_MSG;
	end = now_ms() + ARRIVE_MS;
	for (i = 0; i < n && now_ms() < end;) {
		pattern_fill(buf, sizeof(buf), i);
		if (send_to(a, &to, buf, sizeof(buf), MSG_DONTWAIT) ==
		    sizeof(buf)) {
			sent++;
			i++;
		} else if (errno == ENOBUFS) {
			enobufs++;
			break;
		} else if (errno == EAGAIN) {
			struct pollfd p = { a, POLLOUT, 0 };

			poll(&p, 1, 10);
		} else {
			break;
		}
	}
	is_eq(enobufs, 0, "no ENOBUFS while the receiver is over SO_RCVBUF");
	is_eq(sent, n, "%d x %d bytes sent to a %d-byte SO_RCVBUF", n,
	      CONG_MSG, v);
	for (i = 0; i < sent; i++) {
		ssize_t r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0,
				      ARRIVE_MS);

		if (r != CONG_MSG || pattern_check(buf, r, i) != -1)
			break;
		good++;
	}
	is_eq(good, sent, "all of them received in order");
	quiet(a, "no congestion notification");
	close(a);
	close(b);
}

struct blocked_send {
	int fd;
	struct sockaddr_in to;
	char buf[CONG_MSG];
	volatile int done;
	ssize_t ret;
	int err;
};

static void *blocking_sender(void *p)
{
	struct blocked_send *s = p;

	s->ret = send_to(s->fd, &s->to, s->buf, sizeof(s->buf), 0);
	s->err = errno;
	__atomic_store_n(&s->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * How many CONG_MSG messages @a may send to a receiver with @limit usable
 * receive buffer before ENOBUFS must have come: over a network transport
 * the congestion update travels back to the sender while what its send
 * buffer holds is still in flight.
 */
static int congest_cap(int a, int limit)
{
	int sndbuf = 0;

	get_int(a, SOL_SOCKET, SO_SNDBUF, &sndbuf);
	return (4 * limit + sndbuf) / CONG_MSG + 64;
}

/*
 * Fill @b until a nonblocking send from @a fails with ENOBUFS.  Returns
 * the number of messages sent, -1 if ENOBUFS never came.
 */
static int congest(int a, int b, int limit, int seed0)
{
	struct sockaddr_in to = sock_addr(b);
	char buf[CONG_MSG];
	int i, max = congest_cap(a, limit);
	long long end = now_ms() + ARRIVE_MS;

	for (i = 0; i < max && now_ms() < end;) {
		pattern_fill(buf, sizeof(buf), seed0 + i);
		if (send_to(a, &to, buf, sizeof(buf), MSG_DONTWAIT) ==
		    sizeof(buf)) {
			i++;
			continue;
		}
		if (errno == ENOBUFS)
			return i;
		if (errno != EAGAIN)
			return -1;
		/* the send queue is full: wait for it to drain */
		{
			struct pollfd p = { a, POLLOUT, 0 };

			poll(&p, 1, 10);
		}
	}
	return -1;
}

/* rds_doca: the loopback transport applies congestion like the others. */
/*
 * rds_doca counts a queued message as at least its own size, so a receiver
 * that never reads cannot be filled without bound by empty messages.
 */
static void test_cong_empty_messages(void)
{
	struct sockaddr_in to;
	int a, b, i, v, limit, err = 0;
	long long end;
	char got[8];

	a = bound_socket_at(cfg.addr, 0, "sender");
	b = bound_socket_at(cfg.peer, 0, "receiver");
	if (a < 0 || b < 0)
		goto out;
	set_int(b, SOL_SOCKET, SO_RCVBUF, 8192);
	get_int(b, SOL_SOCKET, SO_RCVBUF, &v);
	limit = v / 2;
	to = sock_addr(b);
	end = now_ms() + ARRIVE_MS;
	for (i = 0; i < 100000 && now_ms() < end;) {
		if (send_to(a, &to, "", 0, MSG_DONTWAIT) == 0) {
			i++;
			continue;
		}
		err = errno;
		if (err != EAGAIN)
			break;
		/*
		 * Each empty message counts in the send buffer too: over a
		 * transport whose acknowledgments lag, it may fill before
		 * the congestion update comes back.  Wait for it to drain.
		 */
		poll(&(struct pollfd){ a, POLLOUT, 0 }, 1, 10);
	}
	ok_diag(err == ENOBUFS, "empty messages congest a receiver that never reads",
		"stopped after %d empty messages with errno %d", i, err);
	/*
	 * Only loopback congests the receiver before sendmsg() returns;
	 * elsewhere the messages in flight until the congestion update
	 * reaches the sender come on top.
	 */
	if (cfg.transport == RDS_TRANS_LOOP)
		ok_diag(i > 0 && i <= limit / 16,
			"each empty message counts for at least 16 bytes",
			"%d empty messages fit a %d-byte receive buffer", i,
			limit);
	else
		tap_diag("ENOBUFS after %d empty messages to a %d-byte "
			 "receive buffer", i, limit);
	is_eq(recv(b, got, sizeof(got), MSG_DONTWAIT), (ssize_t)0,
	       "an empty message reads as 0 bytes");
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

static void test_cong_enobufs(void)
{
	union {
		struct cmsghdr cm;
		char buf[CMSG_SPACE(sizeof(uint64_t)) + 32];
	} cb;
	struct blocked_send bs;
	struct pollfd p;
	struct msghdr msg;
	struct iovec iov;
	struct cmsghdr *cm;
	char buf[CONG_MSG];
	uint64_t mask = 0;
	uint16_t bport;
	pthread_t t;
	int a, b, v = 0, limit, sent, i, good, notified;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;
	bport = bound_port(b);
	set_int(b, SOL_SOCKET, SO_RCVBUF, 8192);
	get_int(b, SOL_SOCKET, SO_RCVBUF, &v);
	/* rds_sk_rcvbuf(): half of sk_rcvbuf, i.e. the value set */
	limit = v / 2;
	is_ok(set_int(a, SOL_RDS, RDS_CONG_MONITOR, 1), "RDS_CONG_MONITOR on");

	sent = congest(a, b, limit, 0);
	ok_diag(sent >= 0, "nonblocking send to a full receiver -> ENOBUFS",
		"no ENOBUFS within %d ms and %d x %d bytes to a %d-byte "
		"receive buffer", ARRIVE_MS, congest_cap(a, limit), CONG_MSG,
		limit);
	if (sent < 0)
		goto out;
	/* congested only once more than rcvbuf bytes are queued */
	ok_diag(sent * CONG_MSG > limit,
		"ENOBUFS only after the queue exceeded the receive buffer",
		"ENOBUFS after %d x %d bytes, receive buffer %d", sent,
		CONG_MSG, limit);
	is_err(send_to(a, &(struct sockaddr_in){ .sin_family = AF_INET,
		       .sin_addr = cfg.peer, .sin_port = htons(bport) },
		       "x", 1, MSG_DONTWAIT), ENOBUFS,
	       "still ENOBUFS while nothing is read");

	/* a blocking sender waits */
	memset(&bs, 0, sizeof(bs));
	bs.fd = a;
	bs.to = sock_addr(b);
	pattern_fill(bs.buf, sizeof(bs.buf), sent);
	pthread_create(&t, NULL, blocking_sender, &bs);
	sleep_ms(300);
	ok(!__atomic_load_n(&bs.done, __ATOMIC_SEQ_CST),
	   "a blocking send waits while the receiver is congested");

	/* drain: the blocked send proceeds, everything arrives in order */
	good = 0;
	for (i = 0; i <= sent; i++) {
		r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS);
		if (r != CONG_MSG || pattern_check(buf, r, i) != -1)
			break;
		good++;
	}
	is_eq(good, sent + 1,
	      "the receiver gets every message, the blocked one last");
	if (!__atomic_load_n(&bs.done, __ATOMIC_SEQ_CST)) {
		pthread_kill(t, SIGUSR1);
		sleep_ms(100);
	}
	pthread_join(t, NULL);
	is_eq(bs.ret, CONG_MSG, "the blocked send completed");

	/* RDS_CONG_MONITOR: a notification for the port */
	p.fd = a;
	p.events = POLLIN;
	p.revents = 0;
	ok(poll(&p, 1, ARRIVE_MS) == 1 && (p.revents & POLLIN),
	   "sender polls POLLIN for the congestion update");
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_name = &(struct sockaddr_in){ 0 };
	msg.msg_namelen = sizeof(struct sockaddr_in);
	msg.msg_control = &cb;
	msg.msg_controllen = sizeof(cb);
	r = recvmsg(a, &msg, MSG_DONTWAIT);
	is_eq(r, 0, "recvmsg returns 0 for the notification");
	is_eq(msg.msg_namelen, 0, "with no source address");
	notified = 0;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level == SOL_RDS &&
		    cm->cmsg_type == RDS_CMSG_CONG_UPDATE &&
		    cm->cmsg_len == CMSG_LEN(sizeof(mask))) {
			memcpy(&mask, CMSG_DATA(cm), sizeof(mask));
			notified++;
		}
	}
	ok_diag(notified == 1 && (mask & RDS_CONG_MONITOR_MASK(bport)),
		"RDS_CMSG_CONG_UPDATE carries the receiver's port bit",
		"%d cmsgs, mask 0x%llx, port %u", notified,
		(unsigned long long)mask, bport);
	is_err(recv(a, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	       "the notification is consumed");

	/* again, reading the notification without a control buffer */
	sent = congest(a, b, limit, 1000);
	ok(sent >= 0, "congested again");
	for (i = 0; i < sent; i++)
		if (recv_wait(b, buf, sizeof(buf), NULL, NULL, 0,
			      ARRIVE_MS) != CONG_MSG)
			break;
	is_eq(i, sent, "drained again");
	p.revents = 0;
	poll(&p, 1, ARRIVE_MS);
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	r = recvmsg(a, &msg, MSG_DONTWAIT);
	ok(r == 0 && (msg.msg_flags & MSG_CTRUNC),
	   "no control buffer: returns 0 with MSG_CTRUNC");
	is_err(recv(a, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	       "the truncated notification is consumed too");
out:
	close(a);
	close(b);
}

/* ------------------------------------------------------------------ */
/* delivery after the sender closes                                    */
/* ------------------------------------------------------------------ */

#define DLV_ROUNDS 10
#define DLV_MSGS 50

static void test_delivery_close(void)
{
	struct sockaddr_in to;
	uint32_t next[DLV_ROUNDS] = { 0 };
	char buf[2048];
	int b, r, i, sent = 0, got = 0, bad = 0;

	b = bound_socket_at(cfg.peer, 0, "setup");
	if (b < 0)
		return;
	set_int(b, SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20);
	to = sock_addr(b);
	for (r = 0; r < DLV_ROUNDS; r++) {
		struct in_addr src = cfg.addr;
		int a;

		/* on loopback, a new source address each round */
		if (cfg_loopback())
			src.s_addr = htonl(ntohl(inet_addr("127.0.0.0")) +
					   10 + r);
		a = bound_socket_at(src, 0, "setup: sender");
		if (a < 0)
			break;
		for (i = 0; i < DLV_MSGS; i++) {
			size_t len = 8 + (i * 37) % 1500;

			memcpy(buf, &r, 4);
			memcpy(buf + 4, &i, 4);
			pattern_fill(buf + 8, len - 8, r * 1000 + i);
			if (send_to(a, &to, buf, len, 0) == (ssize_t)len)
				sent++;
		}
		close(a);
	}
	is_eq(sent, DLV_ROUNDS * DLV_MSGS, "all sends succeeded");
	for (;;) {
		ssize_t n = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0,
				      got == sent ? QUIET_MS : ARRIVE_MS);
		int rr, ii;

		if (n < 0)
			break;
		got++;
		if (n < 8) {
			bad++;
			continue;
		}
		memcpy(&rr, buf, 4);
		memcpy(&ii, buf + 4, 4);
		if (rr < 0 || rr >= DLV_ROUNDS || (uint32_t)ii != next[rr] ||
		    n != 8 + (ii * 37) % 1500 ||
		    pattern_check(buf + 8, n - 8, rr * 1000 + ii) != -1)
			bad++;
		else
			next[rr]++;
	}
	is_eq(got, sent,
	      "every message arrives although its sender closed at once");
	is_eq(bad, 0, "in order and intact");
	close(b);
}

/* ------------------------------------------------------------------ */
/* network namespaces                                                  */
/* ------------------------------------------------------------------ */

static int lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (!ret) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return ret;
}

/* Add @a/32 to lo under the label lo:1. */
static int lo_add_addr(const char *a)
{
	struct ifreq ifr;
	struct sockaddr_in sin = sin_str(a, 0);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo:1");
	memcpy(&ifr.ifr_addr, &sin, sizeof(sin));
	ret = ioctl(fd, SIOCSIFADDR, &ifr);
	close(fd);
	return ret;
}

static void test_netns(void)
{
	struct in_addr lo;
	uint16_t P, Q;
	int orig, pa, ps, cb = -1, cq = -1, cs = -1, ct, v, err;
	struct sockaddr_in sin;

	inet_pton(AF_INET, "127.0.0.1", &lo);
	pa = bound_socket_at(lo, 0, "setup: parent socket");
	ps = bound_socket_at(lo, 0, "setup: parent sender");
	if (pa < 0 || ps < 0)
		return;
	P = bound_port(pa);

	orig = open("/proc/thread-self/ns/net", O_RDONLY);
	if (!sys_ok(orig, "open the current network namespace"))
		return;
	if (!is_ok(unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")) {
		close(orig);
		return;
	}
	is_ok(lo_up(), "bring lo up in the new namespace");

	/*
	 * A local address outside 127/8.  With only the loopback
	 * transport, net/rds has nothing that serves it.
	 */
	if (is_ok(lo_add_addr("198.51.100.7"), "add 198.51.100.7 to lo")) {
		sin = sin_str("198.51.100.7", 0);
		ct = rds_socket();
		errno = 0;
		v = bind(ct, (struct sockaddr *)&sin, sizeof(sin));
		err = errno;
		if (!cfg.impl_doca && access("/sys/module/rds_tcp", F_OK) &&
		    access("/sys/module/rds_rdma", F_OK))
			ok_diag(v == -1 && err == EADDRNOTAVAIL,
				"local 198.51.100.7, loopback transport only "
				"-> EADDRNOTAVAIL", "bind returned %d %s", v,
				tap_errname(err));
		else
			tap_diag("bind to local 198.51.100.7 returned %d %s",
				 v, v ? tap_errname(err) : "");
		close(ct);
	}

	ct = rds_socket();
	sys_ok(ct, "socket() in the new namespace");
	/* rds_set_transport(): only TCP outside init_net */
	is_err(set_int(ct, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB),
	       EPROTOTYPE, "SO_RDS_TRANSPORT IB outside init_net -> EPROTOTYPE");
	close(ct);

	sin = sin_make(lo, P);
	cb = rds_socket();
	errno = 0;
	v = bind(cb, (struct sockaddr *)&sin, sizeof(sin));
	err = errno;
	if (cfg.impl_doca) {
		ok_diag(v == 0,
			"a port bound in the parent namespace is free here",
			"bind: %s", tap_errname(err));
	} else {
		/*
		 * net/rds keys its bind table by address and port only
		 * (rds_add_bound()), so ports are shared by all
		 * namespaces.
		 */
		ok_diag(v == -1 && err == EADDRINUSE,
			"port bound in the parent namespace -> EADDRINUSE "
			"(one port space)", "bind returned %d %s", v,
			tap_errname(err));
	}
	if (v) {
		close(cb);
		cb = -1;
	}
	cq = bound_socket_at(lo, 0, "bind a free port in the new namespace");
	cs = bound_socket_at(lo, 0, "bind a sender in the new namespace");
	Q = cq >= 0 ? bound_port(cq) : 0;
	if (cq >= 0 && cs >= 0)
		marker(cs, cq, "messaging inside the new namespace");

	is_ok(setns(orig, CLONE_NEWNET), "back to the original namespace");
	close(orig);

	/* parent -> Q: nothing bound at Q in this namespace */
	if (cq >= 0) {
		while (bound_port(ps) == Q) {
			close(ps);
			ps = bound_socket_at(lo, 0, "setup");
		}
		sin = sin_make(lo, Q);
		is_eq(send_to(ps, &sin, "cross", 5, 0), 5,
		      "send to a port bound only in the other namespace");
		marker(ps, pa, "parent messaging still works");
		quiet(cq, "the other namespace does not receive it");
	}
	/* child -> P */
	if (cs >= 0) {
		sin = sin_make(lo, P);
		is_eq(send_to(cs, &sin, "from-child", 10, 0), 10,
		      "the new namespace sends to the parent's port");
		if (cb >= 0)
			recv_expect(cb, "from-child", 10, cs,
				    "its own socket on that port receives it");
		quiet(pa, "the parent's socket on that port does not");
	}
	if (cb >= 0)
		close(cb);
	if (cq >= 0)
		close(cq);
	if (cs >= 0)
		close(cs);
	close(pa);
	close(ps);
}

/* ------------------------------------------------------------------ */
/* IPv6 on loopback                                                    */
/* ------------------------------------------------------------------ */

static void test_ipv6(void)
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
	if (!is_ok(bind(a, (struct sockaddr *)&s6, sizeof(s6)), "bind ::1") ||
	    !is_ok(bind(b, (struct sockaddr *)&s6, sizeof(s6)),
		   "bind another socket to ::1"))
		goto out;
	len = sizeof(got);
	memset(&got, 0, sizeof(got));
	ok(!getsockname(b, (struct sockaddr *)&got, &len) &&
	   len == sizeof(got) && got.sin6_family == AF_INET6 &&
	   !memcmp(&got.sin6_addr, &in6_loopback, 16) && got.sin6_port,
	   "getsockname: sockaddr_in6 ::1 with a port");

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = "six";
	iov.iov_len = 3;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
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
	is_ok(connect(a, (struct sockaddr *)&got, sizeof(got)),
	      "connect to [::1]:port");
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

/* ------------------------------------------------------------------ */

struct test {
	const char *name;
	void (*fn)(void);
	unsigned int flags;
};

static const struct test tests[] = {
	{ "socket", test_socket, 0 },
	{ "unsupported_ops", test_unsupported_ops, 0 },
	{ "bind_errors", test_bind_errors, 0 },
	{ "bind_errors_ipv6", test_bind_errors_ipv6, T_RDS },
	{ "ipv6_refused", test_ipv6_refused, T_DOCA },
	{ "bind_port0", test_bind_port0, 0 },
	{ "bind_inuse", test_bind_inuse, 0 },
	{ "bind_many", test_bind_many, 0 },
	{ "names", test_names, 0 },
	{ "connect_errors", test_connect_errors, 0 },
	{ "connect_errors_ipv6", test_connect_errors_ipv6, T_RDS },
	{ "connect", test_connect, 0 },
	{ "send_errors", test_send_errors, 0 },
	{ "send_sizes", test_send_sizes, 0 },
	{ "send_zero", test_send_zero, 0 },
	{ "send_no_listener", test_send_no_listener, 0 },
	{ "send_many_senders", test_send_many_senders, 0 },
	{ "recv_basic", test_recv_basic, 0 },
	{ "recv_peek", test_recv_peek, 0 },
	{ "recv_nonblock", test_recv_nonblock, 0 },
	{ "recv_timeout", test_recv_timeout, 0 },
	{ "recv_eintr", test_recv_eintr, 0 },
	{ "recv_trunc", test_recv_trunc, 0 },
	{ "recv_flags", test_recv_flags, 0 },
	{ "recv_timestamp", test_recv_timestamp, 0 },
	{ "recv_sizes", test_recv_sizes, 0 },
	{ "poll", test_poll, 0 },
	{ "epoll", test_epoll, 0 },
	{ "sockopt_bufs", test_sockopt_bufs, 0 },
	{ "sockopt_generic", test_sockopt_generic, 0 },
	{ "sockopt_recverr", test_sockopt_recverr, 0 },
	{ "sockopt_transport", test_sockopt_transport, 0 },
	{ "transport_ib", test_transport_ib, T_IB },
	{ "sockopt_cancel_sent_to", test_sockopt_cancel, 0 },
	{ "sockopt_cong_monitor", test_sockopt_cong_monitor, 0 },
	{ "sockopt_rxpath_latency", test_sockopt_rxpath_latency, 0 },
	{ "ioctl", test_ioctl, 0 },
	{ "close_pending", test_close_pending, 0 },
	/* DIFFERENCES.txt (a) */
	{ "cong_loopback_none", test_cong_loopback_none, T_RDS | T_LOOPBACK },
	{ "mr_refused", test_mr_refused, T_LOOPBACK },
	{ "info", test_info, T_LOOPBACK },
	{ "info_ib", test_info_ib_conn, T_IB | T_DOCA },
	{ "cong_enobufs", test_cong_enobufs, T_DOCA },
	{ "cong_empty_messages", test_cong_empty_messages, T_DOCA },
	/*
	 * net/rds between two local addresses uses a loopback connection
	 * and marks congestion in the map of the wrong address, so only a
	 * socket talking to its own address sees it.
	 */
	{ "cong_enobufs", test_cong_enobufs,
	  T_RDS | T_NOLOOPBACK | T_SAMEADDR },
	/* DIFFERENCES.txt (b) */
	{ "delivery_close", test_delivery_close, T_DOCA },
	{ "netns", test_netns, T_LOOPBACK },
	{ "ipv6", test_ipv6, T_LOOPBACK | T_RDS },
};

static bool selected(const struct test *t)
{
	if ((t->flags & T_LOOPBACK) && !cfg_loopback())
		return false;
	if ((t->flags & T_NOLOOPBACK) && cfg_loopback())
		return false;
	if ((t->flags & T_SAMEADDR) && cfg.addr.s_addr != cfg.peer.s_addr)
		return false;
	if ((t->flags & T_IB) && cfg.transport != RDS_TRANS_IB)
		return false;
	if ((t->flags & T_DOCA) && !cfg.impl_doca)
		return false;
	if ((t->flags & T_RDS) && cfg.impl_doca)
		return false;
	return !cfg.filter || strstr(t->name, cfg.filter);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_common(argc, argv, NULL, NULL, NULL))
		return 2;
	return run_selftests("rds_api_test", tests, selected);
}
