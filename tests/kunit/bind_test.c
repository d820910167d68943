// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_bind (bind.c): port allocation, through real kernel
 * sockets of the registered family in the initial namespace; the socket
 * addresses the calls take (rdsd_sockaddr_get(), rdsd_addr_unicast()).
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "rdsd.h"
#include "kunit_util.h"

static struct socket *test_socket(struct kunit *test)
{
	struct socket *sock;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, rdsd_family,
					       SOCK_SEQPACKET, 0, &sock), 0);
	return sock;
}

static int test_bind(struct socket *sock, __be32 addr, u16 port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = addr,
		.sin_port = htons(port),
	};

	return kernel_bind(sock, (struct sockaddr *)&sin, sizeof(sin));
}

static u16 bound_port(struct kunit *test, struct socket *sock)
{
	struct sockaddr_in sin = { };

	KUNIT_EXPECT_EQ(test, kernel_getsockname(sock, (struct sockaddr *)&sin),
			(int)sizeof(sin));
	return ntohs(sin.sin_port);
}

static void rdsd_bind_port_zero_picks_free_port(struct kunit *test)
{
	struct socket *a = test_socket(test), *b = test_socket(test);
	u16 pa, pb;

	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR4(20), 0), 0);
	KUNIT_EXPECT_EQ(test, test_bind(b, TEST_ADDR4(20), 0), 0);
	pa = bound_port(test, a);
	pb = bound_port(test, b);
	KUNIT_EXPECT_GT(test, pa, RDSD_PROBE_PORT);
	KUNIT_EXPECT_GT(test, pb, RDSD_PROBE_PORT);
	KUNIT_EXPECT_NE(test, pa, pb);
	sock_release(a);
	sock_release(b);
}

static void rdsd_bind_taken_port_is_in_use(struct kunit *test)
{
	struct socket *a = test_socket(test), *b = test_socket(test);

	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR4(21), 5000), 0);
	KUNIT_EXPECT_EQ(test, test_bind(b, TEST_ADDR4(21), 5000), -EADDRINUSE);
	/* same port, other address: free */
	KUNIT_EXPECT_EQ(test, test_bind(b, TEST_ADDR4(22), 5000), 0);
	sock_release(a);
	sock_release(b);
}

static void rdsd_bind_release_frees_port(struct kunit *test)
{
	struct socket *a = test_socket(test), *b;

	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR4(23), 6000), 0);
	sock_release(a);
	b = test_socket(test);
	KUNIT_EXPECT_EQ(test, test_bind(b, TEST_ADDR4(23), 6000), 0);
	sock_release(b);
}

static void rdsd_bind_probe_port_is_reserved(struct kunit *test)
{
	struct socket *a = test_socket(test);

	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR4(24), RDSD_PROBE_PORT),
			-EINVAL);
	sock_release(a);
}

static void rdsd_bind_twice_is_invalid(struct kunit *test)
{
	struct socket *a = test_socket(test);

	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR4(25), 0), 0);
	KUNIT_EXPECT_EQ(test, test_bind(a, TEST_ADDR4(25), 0), -EINVAL);
	sock_release(a);
}

static void rdsd_bind_many_distinct_ports(struct kunit *test)
{
	enum { N = 300 };
	struct socket **socks;
	unsigned long *seen;
	int i;

	socks = kunit_kcalloc(test, N, sizeof(*socks), GFP_KERNEL);
	seen = kunit_kzalloc(test, BITS_TO_LONGS(RDSD_NR_PORTS) * sizeof(long),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, socks);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < N; i++) {
		u16 port;

		socks[i] = test_socket(test);
		KUNIT_EXPECT_EQ(test, test_bind(socks[i], TEST_ADDR4(26), 0), 0);
		port = bound_port(test, socks[i]);
		KUNIT_EXPECT_FALSE(test, test_and_set_bit(port, seen));
	}
	for (i = 0; i < N; i++)
		sock_release(socks[i]);
}

static void rdsd_send_recv_kernel_sockets(struct kunit *test)
{
	struct socket *a = test_socket(test), *b = test_socket(test);
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct msghdr m = { };
	char buf[16] = "kunit datagram";
	char got[32] = { };
	struct kvec vec;

	KUNIT_ASSERT_EQ(test, test_bind(a, TEST_ADDR4(27), 0), 0);
	KUNIT_ASSERT_EQ(test, test_bind(b, TEST_ADDR4(27), 0), 0);
	dst.sin_addr.s_addr = TEST_ADDR4(27);
	dst.sin_port = htons(bound_port(test, b));

	m.msg_name = &dst;
	m.msg_namelen = sizeof(dst);
	vec.iov_base = buf;
	vec.iov_len = sizeof(buf);
	KUNIT_EXPECT_EQ(test, kernel_sendmsg(a, &m, &vec, 1, sizeof(buf)),
			(int)sizeof(buf));

	memset(&m, 0, sizeof(m));
	vec.iov_base = got;
	vec.iov_len = sizeof(got);
	KUNIT_EXPECT_EQ(test, kernel_recvmsg(b, &m, &vec, 1, sizeof(got),
					     MSG_DONTWAIT), (int)sizeof(buf));
	KUNIT_EXPECT_STREQ(test, got, "kunit datagram");
	sock_release(a);
	sock_release(b);
}

/* ---- socket addresses: IPv4, IPv4-mapped IPv6 and IPv6 ---- */

struct sockaddr_case {
	const char	*name;
	sa_family_t	family;
	const char	*addr;	/* in6 if family is AF_INET6, else in4 */
	u32		scope;
	int		len;	/* 0: the family's */
	int		ret;
	const char	*want;	/* the address found (IPv6 text), if ret is 0 */
	int		want_scope;
	int		put_len;	/* what rdsd_sockaddr_put() writes back */
};

#define SIN_LEN		((int)sizeof(struct sockaddr_in))
#define SIN6_LEN	((int)sizeof(struct sockaddr_in6))

static const struct sockaddr_case sockaddr_cases[] = {
	{ "IPv4", AF_INET, "192.0.2.1", 0, 0, 0, "::ffff:192.0.2.1", 0,
	  SIN_LEN },
	{ "IPv4, short", AF_INET, "192.0.2.1", 0, 15, -EINVAL },
	{ "IPv4-mapped", AF_INET6, "::ffff:192.0.2.1", 0, 0, 0,
	  "::ffff:192.0.2.1", 0, SIN_LEN },
	{ "IPv4-mapped, a scope id: not its", AF_INET6, "::ffff:192.0.2.1", 3,
	  0, 0, "::ffff:192.0.2.1", 0, SIN_LEN },
	{ "IPv4-mapped, short", AF_INET6, "::ffff:192.0.2.1", 0, 27, -EINVAL },
	{ "IPv4-mapped 0.0.0.0: the caller's to refuse", AF_INET6,
	  "::ffff:0.0.0.0", 0, 0, 0, "::ffff:0.0.0.0", 0, SIN_LEN },
	{ "::", AF_INET6, "::", 0, 0, -EPROTOTYPE },
	{ "ff02::1", AF_INET6, "ff02::1", 0, 0, -EPROTOTYPE },
	{ "fe80::1 without scope", AF_INET6, "fe80::1", 0, 0, -EINVAL },
	{ "fe80::1 with scope", AF_INET6, "fe80::1", 2, 0, 0, "fe80::1", 2,
	  SIN6_LEN },
	{ "2001:db8::1", AF_INET6, "2001:db8::1", 0, 0, 0, "2001:db8::1", 0,
	  SIN6_LEN },
	{ "2001:db8::1, a scope id: not its", AF_INET6, "2001:db8::1", 5, 0, 0,
	  "2001:db8::1", 0, SIN6_LEN },
	{ "::1", AF_INET6, "::1", 0, 0, 0, "::1", 0, SIN6_LEN },
	{ "AF_UNIX", AF_UNIX, "192.0.2.1", 0, 0, -EINVAL },
	{ "no family", AF_INET, "192.0.2.1", 0, 1, -EINVAL },
};

static void sockaddr_desc(const struct sockaddr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sockaddr, sockaddr_cases, sockaddr_desc);

/*
 * Every call that takes a socket address reads it with
 * rdsd_sockaddr_get(): an IPv4 address is IPv4-mapped, a link-local one
 * keeps its scope id, other kinds are refused; rdsd_sockaddr_put() gives
 * back the family it came in (an IPv4-mapped one as IPv4).
 */
static void rdsd_sockaddr_get_reads_both_forms(struct kunit *test)
{
	const struct sockaddr_case *c = test->param_value;
	struct sockaddr_storage ss = { .ss_family = c->family }, back;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct in6_addr addr = {}, want = {};
	int len = c->len, scope = -1;
	__be16 port = 0;

	if (c->family == AF_INET6) {
		KUNIT_ASSERT_EQ(test, in6_pton(c->addr, -1,
					       sin6->sin6_addr.s6_addr, -1,
					       NULL), 1);
		sin6->sin6_port = htons(4000);
		sin6->sin6_scope_id = c->scope;
		len = len ?: sizeof(*sin6);
	} else {
		KUNIT_ASSERT_EQ(test, in4_pton(c->addr, -1,
					       (u8 *)&sin->sin_addr.s_addr,
					       -1, NULL), 1);
		sin->sin_port = htons(4000);
		len = len ?: sizeof(*sin);
	}
	KUNIT_EXPECT_EQ(test, rdsd_sockaddr_get((struct sockaddr *)&ss, len,
						&addr, &port, &scope), c->ret);
	if (c->ret)
		return;
	KUNIT_ASSERT_EQ(test, in6_pton(c->want, -1, want.s6_addr, -1, NULL),
			1);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&addr, &want));
	KUNIT_EXPECT_EQ(test, scope, c->want_scope);
	KUNIT_EXPECT_EQ(test, ntohs(port), 4000);

	KUNIT_EXPECT_EQ(test, rdsd_sockaddr_put(&back, &addr, port, scope),
			c->put_len);
	KUNIT_EXPECT_EQ(test, back.ss_family,
			c->put_len == SIN_LEN ? AF_INET : AF_INET6);
	if (c->put_len == SIN_LEN) {
		KUNIT_EXPECT_EQ(test,
				(__force u32)((struct sockaddr_in *)&back)->sin_addr.s_addr,
				(__force u32)want.s6_addr32[3]);
	} else {
		sin6 = (struct sockaddr_in6 *)&back;
		KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&sin6->sin6_addr,
							&want));
		KUNIT_EXPECT_EQ(test, (int)sin6->sin6_scope_id, c->want_scope);
	}
}

struct unicast_case {
	const char	*addr;
	bool		unicast;
};

static const struct unicast_case unicast_cases[] = {
	{ "::ffff:192.0.2.1", true },
	{ "::ffff:0.0.0.0", false },
	{ "::ffff:255.255.255.255", false },
	{ "::ffff:224.0.0.1", false },
	{ "::ffff:127.0.0.1", true },
	{ "2001:db8::1", true },
	{ "::1", true },
	{ "fe80::1", true },
	{ "::", false },
	{ "ff02::1", false },
};

static void unicast_desc(const struct unicast_case *c, char *desc)
{
	strscpy(desc, c->addr, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(unicast, unicast_cases, unicast_desc);

/* What bind(), connect() and sendmsg() take as an address at all. */
static void rdsd_addr_unicast_by_kind(struct kunit *test)
{
	const struct unicast_case *c = test->param_value;
	struct in6_addr a;

	KUNIT_ASSERT_EQ(test, in6_pton(c->addr, -1, a.s6_addr, -1, NULL), 1);
	KUNIT_EXPECT_EQ(test, rdsd_addr_unicast(&a), c->unicast);
}

static struct kunit_case rdsd_bind_cases[] = {
	KUNIT_CASE_PARAM(rdsd_sockaddr_get_reads_both_forms,
			 sockaddr_gen_params),
	KUNIT_CASE_PARAM(rdsd_addr_unicast_by_kind, unicast_gen_params),
	KUNIT_CASE(rdsd_bind_port_zero_picks_free_port),
	KUNIT_CASE(rdsd_bind_taken_port_is_in_use),
	KUNIT_CASE(rdsd_bind_release_frees_port),
	KUNIT_CASE(rdsd_bind_probe_port_is_reserved),
	KUNIT_CASE(rdsd_bind_twice_is_invalid),
	KUNIT_CASE(rdsd_bind_many_distinct_ports),
	KUNIT_CASE(rdsd_send_recv_kernel_sockets),
	{}
};

static struct kunit_suite rdsd_bind_suite = {
	.name = "rds_doca_bind",
	.test_cases = rdsd_bind_cases,
};

kunit_test_suites(&rdsd_bind_suite);
