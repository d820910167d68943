// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl(): the interface ioctls an RDS socket passes on, those it
 * refuses, and the type of service.
 */
#include "api.h"

#include <net/if.h>
#include <sys/ioctl.h>

void test_ioctl(void)
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
		fd = bound_socket_cfg(false, 0, "setup");
		if (fd < 0)
			return;
		/* rds_loop_transport has no get_tos_map */
		is_err(ioctl(fd, SIOCRDSSETTOS, big), ENOTTY,
		       "SIOCRDSSETTOS on loopback -> ENOTTY");
		close(fd);
	}
}

/* Does @fd's namespace list a connection @l -> @f of type of service @tos? */
static bool tos_conn_listed(int fd, struct in_addr l, struct in_addr f,
			    uint8_t tos)
{
	struct rds_info_connection *c;
	socklen_t len;
	void *buf;
	bool found = false;
	int each, i;

	each = info_get(fd, RDS_INFO_CONNECTIONS, &buf, &len);
	if (each < (int)sizeof(*c))
		return false;
	for (i = 0; i + each <= (int)len; i += each) {
		c = (struct rds_info_connection *)((char *)buf + i);
		found |= c->laddr == l.s_addr && c->faddr == f.s_addr &&
			 c->tos == tos;
	}
	free(buf);
	return found;
}

/*
 * The number of connections @l -> @f @fd's namespace lists in
 * RDS6_INFO_CONNECTIONS, whose entries carry no type of service.
 */
static int conns6_listed(int fd, const struct in6_addr *l,
			 const struct in6_addr *f)
{
	struct rds6_info_connection *c;
	socklen_t len;
	void *buf;
	int each, i, n = 0;

	each = info_get(fd, RDS6_INFO_CONNECTIONS, &buf, &len);
	if (each < (int)sizeof(*c))
		return 0;
	for (i = 0; i + each <= (int)len; i += each) {
		c = (struct rds6_info_connection *)((char *)buf + i);
		n += !memcmp(&c->laddr, l, sizeof(*l)) &&
		     !memcmp(&c->faddr, f, sizeof(*f));
	}
	free(buf);
	return n;
}

/*
 * Types of service over a transport that takes them: each gets
 * connections of its own, at both ends, and messages arrive on each.
 */
void test_tos_lanes(void)
{
	static const uint8_t lanes[] = { 0, 7, 255 };
	int s[3] = { -1, -1, -1 }, p = -1, got = 0, i;
	union rds_sa to;
	rds_tos_t tos;
	char buf[16];

	p = bound_socket_cfg(true, 0, "setup: bind the receiver");
	if (p < 0)
		return;
	to = sock_addr(p);
	for (i = 0; i < 3; i++) {
		s[i] = bound_socket_cfg(false, 0, "setup: bind a sender");
		if (s[i] < 0)
			goto out;
		tos = lanes[i];
		if (tos)
			is_ok(ioctl(s[i], SIOCRDSSETTOS, &tos),
			      "SIOCRDSSETTOS %u before the first send", tos);
		tos = 1;
		is_ok(ioctl(s[i], SIOCRDSGETTOS, &tos), "SIOCRDSGETTOS");
		is_eq(tos, lanes[i], "the socket reports TOS %u", lanes[i]);
	}
	tos = 9;
	is_err(ioctl(s[1], SIOCRDSSETTOS, &tos), EINVAL,
	       "SIOCRDSSETTOS a second time -> EINVAL");
	for (i = 0; i < 3; i++)
		is_eq(send_to(s[i], &to, "lane", 4, 0), 4,
		      "a message on TOS %u", lanes[i]);
	tos = 0;
	is_err(ioctl(s[0], SIOCRDSSETTOS, &tos), EINVAL,
	       "SIOCRDSSETTOS after a send -> EINVAL");
	for (i = 0; i < 3; i++)
		got += recv_wait(p, buf, sizeof(buf), NULL, NULL, 0,
				 ARRIVE_MS) == 4;
	is_eq(got, 3, "the receiver got the three messages");
	if (cfg.v6) {
		is_eq(conns6_listed(p, &cfg.addr6, &cfg.peer6), 3,
		      "RDS6_INFO_CONNECTIONS lists a sender's connection per TOS");
		is_eq(conns6_listed(p, &cfg.peer6, &cfg.addr6), 3,
		      "... and the receiver's end of each");
	}
	for (i = 0; i < 3 && !cfg.v6; i++) {
		ok(tos_conn_listed(p, cfg.addr, cfg.peer, lanes[i]),
		   "RDS_INFO_CONNECTIONS lists the sender's TOS %u connection",
		   lanes[i]);
		ok(tos_conn_listed(p, cfg.peer, cfg.addr, lanes[i]),
		   "... and the receiver's end of it, TOS %u", lanes[i]);
	}
out:
	for (i = 0; i < 3; i++)
		if (s[i] >= 0)
			close(s[i]);
	close(p);
}
