// SPDX-License-Identifier: GPL-2.0
/*
 * bind(): the addresses refused and why, ports chosen, in use and
 * released.
 */
#include "api.h"

#include <sys/resource.h>

/* rds_bind() */
static const struct refusal bind_refusals[] = {
	{ "0.0.0.0", 0, EINVAL, "INADDR_ANY -> EINVAL" },
	{ "255.255.255.255", 0, EINVAL, "INADDR_BROADCAST -> EINVAL" },
	{ "224.0.0.1", 0, EINVAL, "224.0.0.1 (multicast) -> EINVAL" },
	{ "239.255.1.2", 4000, EINVAL, "239.255.1.2 (multicast) -> EINVAL" },
	/* rds_trans_get_preferred() finds no transport */
	{ "203.0.113.254", 0, EADDRNOTAVAIL,
	  "203.0.113.254 (not local) -> EADDRNOTAVAIL" },
};

/* The same, AF_INET6 branch. */
static const struct refusal bind_refusals_ipv6[] = {
	{ "::", 0, EINVAL, "in6addr_any -> EINVAL" },
	{ "ff02::1", 0, EINVAL, "ff02::1 (multicast) -> EINVAL" },
	{ "::ffff:0.0.0.0", 0, EINVAL, "::ffff:0.0.0.0 -> EINVAL" },
	{ "::ffff:224.0.0.1", 0, EINVAL, "::ffff:224.0.0.1 -> EINVAL" },
	{ "fe80::1", 0, EINVAL, "fe80::1 without scope id -> EINVAL" },
};

void test_bind_errors(void)
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
	addr_lens_refused(fd, CALL_BIND, sin);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &sin, sizeof(sin));
	/* move_addr_to_kernel() */
	is_err(bind(fd, (struct sockaddr *)&ss, sizeof(ss) + 1), EINVAL,
	       "addr_len > sizeof(sockaddr_storage) -> EINVAL");

	/* any family other than AF_INET/AF_INET6 is EINVAL in rds_bind() */
	family_refused(fd, CALL_BIND, sin, AF_UNIX, EINVAL,
		       "AF_UNIX -> EINVAL");
	family_refused(fd, CALL_BIND, sin, AF_UNSPEC, EINVAL,
		       "AF_UNSPEC -> EINVAL");
	family_refused(fd, CALL_BIND, sin, cfg.family, EINVAL,
		       "the socket's own family number -> EINVAL");
	family_refused(fd, CALL_BIND, sin, AF_INET6, EINVAL,
		       "AF_INET6 with a sockaddr_in length -> EINVAL");

	addrs_refused(fd, CALL_BIND, bind_refusals, ARRAY_SIZE(bind_refusals));

	/* move_addr_to_kernel() */
	is_err(bind(fd, NULL, sizeof(sin)), EFAULT, "NULL address -> EFAULT");
	is_err(bind(fd, (struct sockaddr *)8, sizeof(sin)), EFAULT,
	       "address pointer 0x8 -> EFAULT");

	/*
	 * rds_add_bound(): port 1 is RDS_FLAG_PROBE_PORT, reserved for
	 * the connection handshake probes.
	 */
	is_err(bind_in(fd, sin_make(cfg.addr, 1)), EINVAL,
	       "port 1 (RDS_FLAG_PROBE_PORT) -> EINVAL");

	/* none of the failures left the socket bound */
	memset(&got, 0xa5, sizeof(got));
	len = sizeof(got);
	ok_diag(!getsockname(fd, (struct sockaddr *)&got, &len) &&
		got.sin_family == AF_UNSPEC,
		"still unbound after the failed binds",
		"getsockname family %u len %u", got.sin_family, len);
	is_ok(bind_in(fd, sin_make(cfg.addr, 0)), "a valid bind then succeeds");
	close(fd);
}

/* The IPv6 forms of the bind() checks (rds_bind(), AF_INET6 branch). */
void test_bind_errors_ipv6(void)
{
	struct sockaddr_in6 sin6;
	int fd;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	addrs_refused(fd, CALL_BIND, bind_refusals_ipv6,
		      ARRAY_SIZE(bind_refusals_ipv6));
	sin6 = sin6_str("2001:db8::1", 0);
	is_err(bind_in6(fd, sin6), EADDRNOTAVAIL,
	       "2001:db8::1 (not local) -> EADDRNOTAVAIL");
	is_err(bind(fd, (struct sockaddr *)&sin6, sizeof(sin6) - 1), EINVAL,
	       "AF_INET6, addr_len 27 -> EINVAL");
	close(fd);
}

void test_bind_port0(void)
{
	static const char zero[8];
	union rds_sa sin = cfg_sa(false, 0), got;
	socklen_t len = sizeof(got);
	int fd;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	is_ok(bind_sa(fd, &sin), "bind port 0");
	memset(&got, 0xa5, sizeof(got));
	is_ok(getsockname(fd, &got.sa, &len), "getsockname");
	is_eq(len, sa_len(&sin), "getsockname length %u", sa_len(&sin));
	is_eq(got.sa.sa_family, cfg_af(), "getsockname family AF_INET%s",
	      cfg.v6 ? "6" : "");
	sa_set_port(&sin, sa_port(&got));
	ok(sa_same(&got, &sin), "getsockname address is the bound one");
	ok(sa_port(&got) > 1, "a port > 1 was chosen (%u)", sa_port(&got));
	if (cfg.v6)
		ok(!got.sin6.sin6_flowinfo && !got.sin6.sin6_scope_id,
		   "no flow label, no scope id");
	else
		ok(!memcmp(got.sin.sin_zero, zero, 8), "sin_zero cleared");
	close(fd);
}

void test_bind_inuse(void)
{
	union rds_sa any = cfg_sa(false, 0), at;
	union rds_sa unspec = sa_str(cfg.v6 ? "::" : "0.0.0.0", 0);
	uint16_t port;
	int a, b;

	a = bound_socket_cfg(false, 0, "setup");
	if (a < 0)
		return;
	port = bound_port(a);
	at = cfg_sa(false, port);
	b = rds_socket();
	is_err(bind_sa(b, &at), EADDRINUSE,
	       "same addr:port -> EADDRINUSE");
	is_ok(bind_sa(b, &any),
	      "the socket can bind elsewhere after EADDRINUSE");
	ok(bound_port(b) != port && bound_port(b),
	   "and got a different port");
	close(b);

	/* rds_bind(): no re-binding */
	is_err(bind_sa(a, &any), EINVAL,
	       "second bind on a bound socket -> EINVAL");
	is_err(bind_sa(a, &at), EINVAL,
	       "re-binding the same addr:port -> EINVAL");
	is_err(bind_sa(a, &unspec), EINVAL,
	       "second bind to the unspecified address -> EINVAL");
	is_eq(bound_port(a), port, "the first binding is kept");

	/* close releases the port */
	close(a);
	b = rds_socket();
	is_ok(bind_sa(b, &at),
	      "port is free again after close");
	close(b);
}

#define MANY 1000

void test_bind_many(void)
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
		union rds_sa sin = cfg_sa(false, 0);

		fds[i] = rds_socket();
		if (fds[i] < 0)
			break;
		if (bind_sa(fds[i], &sin)) {
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
		union rds_sa sin = cfg_sa(false, ports[i]);
		int fd = rds_socket();

		if (!bind_sa(fd, &sin))
			rebound++;
		close(fd);
	}
	is_eq(rebound, n, "each released port can be bound again");
}
