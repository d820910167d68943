// SPDX-License-Identifier: GPL-2.0
/*
 * Network namespaces: what an RDS socket in a new namespace may bind,
 * and which messages cross between namespaces.
 */
#include "api.h"

#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>

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

/* The loopback address of the family under test (--ipv6: ::1). */
static union rds_sa lo_sa(uint16_t port)
{
	return sa_str(cfg.v6 ? "::1" : "127.0.0.1", port);
}

void test_netns(void)
{
	union rds_sa lo = lo_sa(0), sin;
	uint16_t P, Q;
	int orig, pa, ps, cb = -1, cq = -1, cs = -1, ct, v, err;

	pa = bound_socket_sa(&lo, "setup: parent socket");
	ps = bound_socket_sa(&lo, "setup: parent sender");
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
	if (!cfg.v6 &&
	    is_ok(lo_add_addr("198.51.100.7"), "add 198.51.100.7 to lo")) {
		sin = sa_str("198.51.100.7", 0);
		ct = rds_socket();
		errno = 0;
		v = bind_sa(ct, &sin);
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

	sin = lo_sa(P);
	cb = rds_socket();
	errno = 0;
	v = bind_sa(cb, &sin);
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
	cq = bound_socket_sa(&lo, "bind a free port in the new namespace");
	cs = bound_socket_sa(&lo, "bind a sender in the new namespace");
	Q = cq >= 0 ? bound_port(cq) : 0;
	if (cq >= 0 && cs >= 0)
		marker(cs, cq, "messaging inside the new namespace");

	is_ok(setns(orig, CLONE_NEWNET), "back to the original namespace");
	close(orig);

	/* parent -> Q: nothing bound at Q in this namespace */
	if (cq >= 0) {
		while (bound_port(ps) == Q) {
			close(ps);
			ps = bound_socket_sa(&lo, "setup");
		}
		sin = lo_sa(Q);
		is_eq(send_to(ps, &sin, "cross", 5, 0), 5,
		      "send to a port bound only in the other namespace");
		marker(ps, pa, "parent messaging still works");
		quiet(cq, "the other namespace does not receive it");
	}
	/* child -> P */
	if (cs >= 0) {
		sin = lo_sa(P);
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
