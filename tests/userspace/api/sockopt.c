// SPDX-License-Identifier: GPL-2.0
/*
 * Socket options: buffers, the SOL_RDS options and their lengths,
 * SO_RDS_TRANSPORT, RDS_CANCEL_SENT_TO and memory registration.
 */
#include "api.h"

static int read_proc_int(const char *path)
{
	int v = -1;

	read_sysfs_int(path, &v);
	return v;
}

void test_sockopt_bufs(void)
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

void test_sockopt_generic(void)
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

void test_sockopt_recverr(void)
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

void test_sockopt_transport(void)
{
	socklen_t len;
	int fd, v, r;

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

	fd = bound_socket_cfg(false, 0, "setup");
	if (fd < 0)
		return;
	v = RDS_TRANS_TCP;
	is_err(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP),
	       EOPNOTSUPP, "set after bind -> EOPNOTSUPP");
	is_err(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, -5), EOPNOTSUPP,
	       "set after bind checks binding first -> EOPNOTSUPP");
	v = -2;
	r = get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, &v);
	ok(!r && v != RDS_TRANS_NONE, "bound socket reports a transport (%d)",
	   v);
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
void test_transport_ib(void)
{
	const char *lo_str = cfg.v6 ? "::1" : "127.0.0.1";
	union rds_sa lo = sa_str(lo_str, 0), sin;
	socklen_t len;
	int fd, b, v, r;

	fd = bound_socket_sa(&lo, "setup: bind the loopback address");
	if (fd >= 0) {
		v = -2;
		if (get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, &v))
			v = -errno;
		is_eq(v, RDS_TRANS_LOOP, "%s is still served by loopback",
		      lo_str);
		close(fd);
	}

	/* rds_set_transport(), then rds_bind() with rs_transport set */
	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	is_ok(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB),
	      "set RDS_TRANS_IB before bind");
	v = -2;
	r = get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, &v);
	ok(!r && v == RDS_TRANS_IB, "reads back RDS_TRANS_IB before bind (%d)",
	   v);
	is_err(set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB),
	       EOPNOTSUPP, "set again once chosen -> EOPNOTSUPP");
	sin = cfg_sa(false, 0);
	if (is_ok(bind_sa(fd, &sin), "bind --addr with RDS_TRANS_IB chosen")) {
		v = -2;
		r = get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, &v);
		ok(!r && v == RDS_TRANS_IB, "bound: RDS_TRANS_IB (%d)", v);
		b = bound_socket_cfg(true, 0, "setup: bind --peer");
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
	is_err(bind_sa(fd, &lo), ENOPROTOOPT,
	       "RDS_TRANS_IB chosen, bind %s -> ENOPROTOOPT", lo_str);
	memset(&sin, 0xa5, sizeof(sin));
	len = sizeof(sin);
	ok(!getsockname(fd, &sin.sa, &len) &&
	   sin.sa.sa_family == AF_UNSPEC, "and the socket is left unbound");
	close(fd);
}

void test_sockopt_cancel(void)
{
	union rds_sa to;
	struct sockaddr_in6 to6;
	socklen_t len;
	int a, b, u;

	if (!make_pair(&a, &b))
		return;
	to = sock_addr(b);

	len = sa_len(&to);

	/* rds_cancel_sent_to(): unbound is checked before the length */
	u = rds_socket();
	is_err(setsockopt(u, SOL_RDS, RDS_CANCEL_SENT_TO, &to, len),
	       ENOTCONN, "unbound socket -> ENOTCONN");
	is_err(setsockopt(u, SOL_RDS, RDS_CANCEL_SENT_TO, &to, 4), ENOTCONN,
	       "unbound socket, short optlen -> ENOTCONN");
	close(u);

	is_err(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &to,
			  sizeof(struct sockaddr_in) - 1),
	       EINVAL, "optlen 15 -> EINVAL");
	is_err(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &to, 0), EINVAL,
	       "optlen 0 -> EINVAL");
	is_err(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, NULL, len),
	       EFAULT, "NULL optval -> EFAULT");
	is_ok(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &to, len),
	      "sockaddr_in%s -> 0", cfg.v6 ? "6" : "");
	if (!cfg.v6) {
		/* the IPv4-mapped form of the same address */
		memset(&to6, 0, sizeof(to6));
		to6.sin6_family = AF_INET6;
		to6.sin6_port = to.sin.sin_port;
		to6.sin6_addr.s6_addr[10] = 0xff;
		to6.sin6_addr.s6_addr[11] = 0xff;
		memcpy(&to6.sin6_addr.s6_addr[12], &to.sin.sin_addr, 4);
		is_ok(setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &to6,
				 sizeof(to6)), "sockaddr_in6 -> 0");
	}
	marker(a, b, "the socket still sends afterwards");
	close(a);
	close(b);
}

/*
 * Memory registration's argument checks.  rds_doca registers memory over
 * its loopback transport (rds_rdma_test checks that in depth); over IB it
 * does not yet, and net/rds refuses it on loopback.
 *
 * Memory registration options on a socket whose transport registers no
 * memory (loopback): rds_get_mr(), rds_get_mr_for_dest(), rds_free_mr()
 * and __rds_rdma_map() check length, then copy, then the binding.
 */
void test_mr_refused(void)
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
	b = bound_socket_cfg(false, 0, "setup");
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

void test_sockopt_cong_monitor(void)
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

void test_sockopt_rxpath_latency(void)
{
	struct rds_rx_trace_so tr;
	union {
		struct cmsghdr cm;
		char buf[CMSG_SPACE(sizeof(struct rds_cmsg_rx_trace)) + 32];
	} cb;
	struct rds_cmsg_rx_trace t;
	struct msghdr msg;
	struct iovec iov;
	char buf[16];
	int a, b, found;

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

	msg_init(&msg, &iov, buf, sizeof(buf));
	is_eq(send_recvmsg(a, b, "traced", &msg, &cb, sizeof(cb)), 6,
	      "message received");
	found = cmsg_count(&msg, SOL_RDS, RDS_CMSG_RXPATH_LATENCY, &t,
			   sizeof(t));
	ok(found == 1 && t.rx_traces == 2 && t.rx_trace_pos[0] == 0 &&
	   t.rx_trace_pos[1] == 1, "RDS_CMSG_RXPATH_LATENCY with 2 traces");
	close(a);
	close(b);
}
