// SPDX-License-Identifier: GPL-2.0
/*
 * Regression test for what rds_fuzz found over Soft-RoCE (seed 2,
 * --transport ib): an RDMA operation sent to port 0 of a peer resets the
 * IB/RoCE connection between the two addresses, for every socket that
 * uses it.
 *
 * Port 0 is a valid destination (Documentation/rds_doca.rst, "Addresses":
 * "Nothing refuses a destination port 0 or 1"; a message to port 0 is a
 * probe).  An operation on a cookie the sender has no grant for makes the
 * sending kernel ask the region's kernel for the key with an MR_REQ frame
 * naming the port the operation is addressed to (rdsd_ib_op_resolve(),
 * whose comment assumes "a port-0 (probe) socket sends no operation").
 * The receiving kernel refuses an MR_REQ whose destination port is 0 as a
 * protocol violation (rdsd_wire_validate(): -EPROTO), counts it in
 * recv_proto_error and resets the connection.  An unprivileged user so
 * resets, at will, a connection other users' sockets share; their RDMA
 * operations in flight complete with RDS_RDMA_DROPPED.  The documented
 * outcome is that the operation fails on its own: it is not addressed to
 * the region's owner, RDS_RDMA_REMOTE_ERROR.
 *
 * The sequence: a socket bound to --peer registers 64 KiB (RDS_GET_MR);
 * a socket bound to --addr sends an empty message with an RDMA write of 8
 * bytes on that cookie, RDS_RDMA_NOTIFY_ME, to --peer port 0.  The
 * checks, after --settle seconds (3): the namespace's recv_proto_error
 * and conn_reset counters (RDS_INFO_COUNTERS) did not move, and the
 * operation's notice arrived with RDS_RDMA_REMOTE_ERROR.  Prints TAP.
 *
 *   regress_ib_rdma_port0 --addr 192.0.2.1 --peer 192.0.2.2 [--family N]
 *                         [--settle S]
 *
 * Run as an unprivileged user in a VM with rds_doca loaded and the rxe
 * device of tests/userspace/run.sh (tests/fuzz/README).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>

#include <rds_doca_user.h>
#include "regress.h"

int main(int argc, char **argv)
{
	struct in_addr addr = { 0 }, peer = { 0 };
	int family = -1, settle = 3, i, a, b;
	struct sockaddr_in sa, sb, to;
	long long proto0, reset0, proto1, reset1;
	char *region;
	uint64_t cookie = 0, word = 0;
	struct rds_get_mr_args mr;
	struct rds_rdma_args op;
	struct rds_iovec local;
	struct rds_rdma_notify nt;
	char detail[160], ctl[256];
	struct msghdr mh;
	struct cmsghdr *cm;
	struct pollfd pfd;
	const char *failed;
	bool got = false;
	ssize_t n;
	const struct regress_opt opts[] = {
		{ .name = "--addr", .addr = &addr },
		{ .name = "--peer", .addr = &peer },
		{ .name = "--family", .num = &family },
		{ .name = "--settle", .num = &settle },
		{}
	};

	if (!regress_opts(argc, argv, opts) || !addr.s_addr || !peer.s_addr) {
		fprintf(stderr, "usage: %s --addr A --peer B [--family N]",
			argv[0]);
		fprintf(stderr, " [--settle S]\n");
		return 2;
	}
	if (family < 0)
		family = rds_doca_family();
	printf("1..3\n");

	/* the region's owner, on the peer address */
	b = rds_doca_bound_socket(family, peer, &sb, &failed);
	a = b < 0 ? -1 : rds_doca_bound_socket(family, addr, &sa, &failed);
	if (a < 0) {
		snprintf(detail, sizeof(detail), "%s: %s", failed,
			 strerror(errno));
		check(false, "two sockets", detail);
		return check_finish();
	}
	region = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(&mr, 0, sizeof(mr));
	mr.vec.addr = (uintptr_t)region;
	mr.vec.bytes = 65536;
	mr.cookie_addr = (uintptr_t)&cookie;
	if (setsockopt(b, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr))) {
		snprintf(detail, sizeof(detail), "RDS_GET_MR: %s",
			 strerror(errno));
		check(false, "a region on the peer", detail);
		return check_finish();
	}
	proto0 = rds_doca_counter(a, "recv_proto_error");
	reset0 = rds_doca_counter(a, "conn_reset");

	/* an RDMA write of 8 bytes on it, to port 0 of the peer address */
	local.addr = (uintptr_t)&word;
	local.bytes = sizeof(word);
	memset(&op, 0, sizeof(op));
	op.cookie = cookie;
	op.remote_vec.addr = 0;
	op.remote_vec.bytes = sizeof(word);
	op.local_vec_addr = (uintptr_t)&local;
	op.nr_local = 1;
	op.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME;
	op.user_token = 0x5eed;
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr = peer;
	to.sin_port = htons(0);
	n = rds_doca_send_cmsg(a, &to, NULL, 0, RDS_CMSG_RDMA_ARGS, &op,
			       sizeof(op), MSG_DONTWAIT);
	printf("# %s sends an RDMA write on %s's cookie %#llx to %s: %zd%s%s\n",
	       rds_doca_sin_name(&sa), rds_doca_sin_name(&sb),
	       (unsigned long long)cookie, "port 0", n, n < 0 ? " " : "",
	       n < 0 ? strerror(errno) : "");

	/* its notice, within --settle seconds */
	pfd.fd = a;
	pfd.events = POLLIN;
	for (i = 0; i < settle * 10 && !got; i++) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		memset(&mh, 0, sizeof(mh));
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		if (recvmsg(a, &mh, MSG_DONTWAIT) < 0)
			continue;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_RDS ||
			    cm->cmsg_type != RDS_CMSG_RDMA_STATUS)
				continue;
			memcpy(&nt, CMSG_DATA(cm), sizeof(nt));
			got = true;
		}
	}
	while (i++ < settle * 10)
		usleep(100000);
	proto1 = rds_doca_counter(a, "recv_proto_error");
	reset1 = rds_doca_counter(a, "conn_reset");

	snprintf(detail, sizeof(detail), "%lld before, %lld %d s after",
		 proto0, proto1, settle);
	check(proto1 == proto0 && proto0 >= 0,
	      "the peer saw no protocol violation (recv_proto_error)", detail);
	snprintf(detail, sizeof(detail), "%lld before, %lld %d s after",
		 reset0, reset1, settle);
	check(reset1 == reset0 && reset0 >= 0,
	      "no connection was reset (conn_reset)", detail);
	snprintf(detail, sizeof(detail), "%s",
		 got ? rds_doca_status_name(nt.status) : "no notice");
	check(got && nt.status == RDS_RDMA_REMOTE_ERROR,
	      "the operation failed on its own (RDS_RDMA_REMOTE_ERROR)",
	      detail);
	close(a);
	close(b);
	return check_finish();
}
