// SPDX-License-Identifier: GPL-2.0
/*
 * socket(): the types and protocols an RDS socket may have, and the
 * operations net/rds leaves to the sock_no_*() stubs.
 */
#include "api.h"

#include <sys/mman.h>

void test_socket(void)
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
void test_unsupported_ops(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd, sv[2];
	void *p;

	fd = bound_socket_cfg(false, 0, "setup");
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
