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
 *
 * With --ipv6 every test whose sockets the helpers bind runs between
 * --addr6 and --peer6 instead; the tests of one family's addresses
 * (T_OWN_FAMILY) are left out, the ipv6 tests among them.
 */
#include "api.h"

struct test {
	const char *name;
	void (*fn)(void);
	unsigned int flags;
};

static const struct test tests[] = {
	{ "socket", test_socket, 0 },
	{ "unsupported_ops", test_unsupported_ops, 0 },
	{ "bind_errors", test_bind_errors, T_OWN_FAMILY },
	{ "bind_errors_ipv6", test_bind_errors_ipv6, T_OWN_FAMILY },
	{ "ipv6_from_ipv4", test_ipv6_from_ipv4, T_OWN_FAMILY },
	{ "bind_port0", test_bind_port0, 0 },
	{ "bind_inuse", test_bind_inuse, 0 },
	{ "bind_many", test_bind_many, 0 },
	{ "names", test_names, T_OWN_FAMILY },
	{ "connect_errors", test_connect_errors, T_OWN_FAMILY },
	{ "connect_errors_ipv6", test_connect_errors_ipv6, T_OWN_FAMILY },
	{ "ipv4_mapped", test_ipv4_mapped, T_OWN_FAMILY },
	{ "connect", test_connect, 0 },
	{ "send_errors", test_send_errors, 0 },
	{ "send_sizes", test_send_sizes, 0 },
	{ "send_large", test_send_large, T_DOCA },
	{ "send_largest", test_send_largest, T_DOCA },
	{ "send_zero", test_send_zero, 0 },
	{ "send_no_listener", test_send_no_listener, 0 },
	{ "send_many_senders", test_send_many_senders, 0 },
	{ "recv_basic", test_recv_basic, 0 },
	{ "recv_peek", test_recv_peek, 0 },
	{ "recv_nonblock", test_recv_nonblock, 0 },
	{ "recv_timeout", test_recv_timeout, 0 },
	{ "recv_eintr", test_recv_eintr, 0 },
	{ "recv_busy_poll", test_recv_busy_poll, T_DOCA },
	{ "zcopy", test_zcopy, T_DOCA },
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
	{ "tos_lanes", test_tos_lanes, T_DOCA | T_NOLOOPBACK },
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
	{ "ipv6", test_ipv6, T_OWN_FAMILY },
	{ "ipv6_scope", test_ipv6_scope, T_OWN_FAMILY },
	{ "ipv6_link_local", test_ipv6_link_local,
	  T_OWN_FAMILY | T_LINK_LOCAL },
};

static bool selected(const struct test *t)
{
	if ((t->flags & T_LOOPBACK) && !cfg_loopback())
		return false;
	if ((t->flags & T_NOLOOPBACK) && cfg_loopback())
		return false;
	if ((t->flags & T_SAMEADDR) && !cfg_same_addr())
		return false;
	if ((t->flags & T_OWN_FAMILY) && cfg.v6)
		return false;
	if ((t->flags & T_LINK_LOCAL) && !cfg_link_local)
		return false;
	if ((t->flags & T_IB) && cfg.transport != RDS_TRANS_IB)
		return false;
	if ((t->flags & T_DOCA) && !cfg.impl_doca)
		return false;
	if ((t->flags & T_RDS) && cfg.impl_doca)
		return false;
	return !cfg.filter || strstr(t->name, cfg.filter);
}

static const struct option extra_opts[] = {
	{ "link-local", required_argument, NULL, 0x100 },
	{ NULL, 0, NULL, 0 },
};

static int extra_opt(int opt, const char *arg)
{
	if (opt != 0x100)
		return -1;
	cfg_link_local = arg;
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_common(argc, argv, extra_opts, extra_opt,
			 " [--link-local IF]\n"
			 "  --link-local IF  fe80::1 and fe80::2 are addresses of IF,\n"
			 "               served by --transport6: run ipv6_link_local"))
		return 2;
	return run_selftests("rds_api_test", tests, selected);
}
