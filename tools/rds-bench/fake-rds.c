// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fake-rds.so: LD_PRELOAD stand-in for an RDS address family, used only by
 * selftest.sh to exercise rds-bench's own logic (processes, port exchange,
 * stop handling, message checks, JSON) on a machine without an RDS module.
 *
 * socket(FAMILY, SOCK_SEQPACKET, 0) for a family in FAKE_RDS_FAMILY (a
 * number or a comma-separated list; default 25) becomes an AF_UNIX
 * datagram socket; an IPv4 address:port is mapped to the abstract name
 * "\0fake-rds:<hex addr>:<port>" (the families share that namespace).
 * Like RDS, a full receiver pushes back on the sender (EAGAIN) instead of
 * dropping.
 *
 * FAKE_RDS_DROP=N drops every Nth message sent (to test loss detection).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#define MAXFD 4096
#define SOL_RDS_ 276

static unsigned char fake[MAXFD];
static struct sockaddr_in bound[MAXFD];
static atomic_ulong sent_count;

/* FAKE_RDS_FAMILY: one family or a comma-separated list (default 25) */
static int is_fam(int domain)
{
	const char *s = getenv("FAKE_RDS_FAMILY");
	char *end;

	if (!s)
		return domain == 25;
	while (*s) {
		if (strtol(s, &end, 10) == domain && end != s)
			return 1;
		if (*end != ',')
			break;
		s = end + 1;
	}
	return 0;
}

static int is_fake(int fd)
{
	return fd >= 0 && fd < MAXFD && fake[fd];
}

static socklen_t to_un(const struct sockaddr_in *in, struct sockaddr_un *un)
{
	int n;

	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	n = snprintf(un->sun_path + 1, sizeof(un->sun_path) - 1,
		     "fake-rds:%08x:%u", ntohl(in->sin_addr.s_addr),
		     ntohs(in->sin_port));
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static void to_in(const struct sockaddr_un *un, socklen_t len,
		  struct sockaddr_in *in)
{
	size_t off = offsetof(struct sockaddr_un, sun_path) + 1;
	char name[sizeof(un->sun_path)];
	unsigned a = 0, p = 0;

	memset(in, 0, sizeof(*in));
	in->sin_family = AF_INET;
	if (len <= off || len > sizeof(*un))
		return;
	/* abstract names are not NUL-terminated */
	memcpy(name, un->sun_path + 1, len - off);
	name[len - off] = 0;
	if (sscanf(name, "fake-rds:%8x:%u", &a, &p) == 2) {
		in->sin_addr.s_addr = htonl(a);
		in->sin_port = htons((unsigned short)p);
	}
}

int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);
	int fd;

	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	if (!is_fam(domain) || (type & 0xf) != SOCK_SEQPACKET)
		return real(domain, type, protocol);
	fd = real(AF_UNIX, SOCK_DGRAM | (type & ~0xf), 0);
	if (fd >= 0 && fd < MAXFD) {
		fake[fd] = 1;
		memset(&bound[fd], 0, sizeof(bound[fd]));
	}
	return fd;
}

int close(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (fd >= 0 && fd < MAXFD)
		fake[fd] = 0;
	return real(fd);
}

int setsockopt(int fd, int level, int opt, const void *val, socklen_t len)
{
	static int (*real)(int, int, int, const void *, socklen_t);

	if (!real)
		real = (int (*)(int, int, int, const void *, socklen_t))
			dlsym(RTLD_NEXT, "setsockopt");
	if (is_fake(fd) && level == SOL_RDS_)
		return 0;
	return real(fd, level, opt, val, len);
}

int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	static int (*real)(int, const struct sockaddr *, socklen_t);
	struct sockaddr_in in;
	struct sockaddr_un un;
	int tries;

	if (!real)
		real = (int (*)(int, const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "bind");
	if (!is_fake(fd))
		return real(fd, sa, len);
	if (len < sizeof(in) || sa->sa_family != AF_INET) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&in, sa, sizeof(in));
	for (tries = 0; tries < 1000; tries++) {
		struct sockaddr_in b = in;

		if (!in.sin_port)
			b.sin_port = htons((unsigned short)(1024 +
					   (unsigned)(rand() ^ getpid()) % 60000));
		if (real(fd, (struct sockaddr *)&un, to_un(&b, &un)) == 0) {
			bound[fd] = b;
			return 0;
		}
		if (errno != EADDRINUSE || in.sin_port)
			return -1;
	}
	return -1;
}

int getsockname(int fd, struct sockaddr *sa, socklen_t *len)
{
	static int (*real)(int, struct sockaddr *, socklen_t *);

	if (!real)
		real = (int (*)(int, struct sockaddr *, socklen_t *))
			dlsym(RTLD_NEXT, "getsockname");
	if (!is_fake(fd))
		return real(fd, sa, len);
	memcpy(sa, &bound[fd], *len < sizeof(bound[fd]) ? *len : sizeof(bound[fd]));
	*len = sizeof(bound[fd]);
	return 0;
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags,
	       const struct sockaddr *sa, socklen_t len)
{
	static ssize_t (*real)(int, const void *, size_t, int,
			       const struct sockaddr *, socklen_t);
	struct sockaddr_un un;
	const char *d;

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, int,
				    const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "sendto");
	if (!is_fake(fd) || !sa)
		return real(fd, buf, n, flags, sa, len);
	if (n > (1u << 20)) {
		errno = EMSGSIZE;
		return -1;
	}
	d = getenv("FAKE_RDS_DROP");
	if (d && atoi(d) > 0 &&
	    (atomic_fetch_add(&sent_count, 1) + 1) % (unsigned long)atoi(d) == 0)
		return (ssize_t)n;	/* "sent", never delivered */
	return real(fd, buf, n, flags, (struct sockaddr *)&un,
		    to_un((const struct sockaddr_in *)sa, &un));
}

ssize_t recvmsg(int fd, struct msghdr *mh, int flags)
{
	static ssize_t (*real)(int, struct msghdr *, int);
	struct sockaddr_un un;
	void *name;
	socklen_t nlen;
	ssize_t r;

	if (!real)
		real = (ssize_t (*)(int, struct msghdr *, int))
			dlsym(RTLD_NEXT, "recvmsg");
	if (!is_fake(fd) || !mh->msg_name)
		return real(fd, mh, flags);
	name = mh->msg_name;
	nlen = mh->msg_namelen;
	mh->msg_name = &un;
	mh->msg_namelen = sizeof(un);
	mh->msg_controllen = 0;
	r = real(fd, mh, flags);
	if (r >= 0) {
		struct sockaddr_in in;

		to_in(&un, mh->msg_namelen, &in);
		memcpy(name, &in, nlen < sizeof(in) ? nlen : sizeof(in));
		nlen = sizeof(in);
	}
	mh->msg_name = name;
	mh->msg_namelen = nlen;
	return r;
}
