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
 *
 * RDMA, enough for rds-bench's RDMA modes: RDS_GET_MR records a region of
 * this process; an RDS_CMSG_RDMA_ARGS or RDS_CMSG_ATOMIC_FADD on
 * sendmsg() travels in one datagram with the message (and a write's
 * data); the receiving process's recvmsg() runs it on the region, answers
 * with a status datagram and returns the message; the status datagram
 * becomes an RDS_CMSG_RDMA_STATUS notice (and a read's data, an atomic's
 * previous value) in the sender's recvmsg().  FAKE_RDS_NO_RDMA (a family
 * or a comma-separated list) makes RDS_GET_MR and RDMA sends of those
 * families fail with EOPNOTSUPP; FAKE_RDS_RDMA_FAIL=N completes the Nth
 * operation a process executes with RDS_RDMA_REMOTE_ERROR.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
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
static unsigned char fam_of[MAXFD];
static struct sockaddr_in bound[MAXFD];
static atomic_ulong sent_count;

/* is domain in the list s (one family or a comma-separated list)? */
static int in_list(const char *s, int domain)
{
	char *end;

	while (*s) {
		if (strtol(s, &end, 10) == domain && end != s)
			return 1;
		if (*end != ',')
			break;
		s = end + 1;
	}
	return 0;
}

/* FAKE_RDS_FAMILY: one family or a comma-separated list (default 25) */
static int is_fam(int domain)
{
	const char *s = getenv("FAKE_RDS_FAMILY");

	return s ? in_list(s, domain) : domain == 25;
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
		fam_of[fd] = (unsigned char)domain;
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

/* ------------------------------------------------------------------ */
/* RDMA stand-in                                                       */

#define RDS_GET_MR_		2
#define CMSG_RDMA_ARGS_		1
#define CMSG_RDMA_STATUS_	4
#define CMSG_ATOMIC_FADD_	6
#define RDMA_READWRITE_		0x0001
#define RDMA_NOTIFY_ME_		0x0020
#define RDMA_SILENT_		0x0040
#define REMOTE_ERROR_		1
#define MAXREGION		64
#define OP_MAGIC		"\177fake-rds-rdma\177"	/* 16 bytes with the NUL */

/* The RDS structures, as in <linux/rds.h>. */
struct iovec_ { uint64_t addr, bytes; };
struct get_mr_args_ { struct iovec_ vec; uint64_t cookie_addr, flags; };
struct rdma_args_ {
	uint64_t cookie;
	struct iovec_ remote_vec;
	uint64_t local_vec_addr, nr_local, flags, user_token;
};
struct atomic_args_ {
	uint64_t cookie, local_addr, remote_addr, add, unused[3], flags, user_token;
};
struct notify_ { uint64_t user_token; int32_t status; };

enum { OP_READ = 1, OP_WRITE, OP_FADD, OP_STATUS };

/* Head of an operation or status datagram; then data, then the message. */
struct op_hdr {
	char magic[16];
	uint32_t kind;
	int32_t status;
	uint64_t token, cookie, addr, bytes, add, flags;
	uint64_t local_addr, nr_local;	/* the sender's, sent back */
	uint64_t paylen;
};

static struct {
	uint32_t key;
	uint8_t *addr;
	uint64_t len;
} regions[MAXREGION];
static atomic_int nregions;
static atomic_uint next_key;
static atomic_ulong executed;
static volatile int rdma_used;	/* op datagrams may arrive: look for them */

static int no_rdma(int fd)
{
	const char *s = getenv("FAKE_RDS_NO_RDMA");

	return s && in_list(s, fam_of[fd]);
}

static int get_mr(int fd, const void *val, socklen_t len)
{
	struct get_mr_args_ a;
	uint64_t cookie;
	int i;

	if (no_rdma(fd)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (len != sizeof(a)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&a, val, sizeof(a));
	if (!a.vec.bytes) {
		errno = EINVAL;
		return -1;
	}
	i = atomic_fetch_add(&nregions, 1);
	if (i >= MAXREGION) {
		errno = ENOMEM;
		return -1;
	}
	regions[i].key = (uint32_t)getpid() << 12 ^ (atomic_fetch_add(&next_key, 1) + 1);
	regions[i].addr = (uint8_t *)(uintptr_t)a.vec.addr;
	regions[i].len = a.vec.bytes;
	cookie = regions[i].key;	/* offset 0: address 0 is the first byte */
	memcpy((void *)(uintptr_t)a.cookie_addr, &cookie, sizeof(cookie));
	rdma_used = 1;
	return 0;
}

static uint8_t *region_at(uint64_t cookie, uint64_t addr, uint64_t bytes)
{
	int i, n = atomic_load(&nregions);

	for (i = 0; i < n && i < MAXREGION; i++)
		if (regions[i].key == (uint32_t)cookie && addr <= regions[i].len &&
		    bytes <= regions[i].len - addr)
			return regions[i].addr + addr;
	return NULL;
}

/* Copy between a contiguous buffer and the iovec array of the caller. */
static void iov_copy(uint64_t vec_addr, uint64_t nr, uint8_t *buf, int to_iov)
{
	const struct iovec_ *v = (const struct iovec_ *)(uintptr_t)vec_addr;
	uint64_t i;

	for (i = 0; i < nr; i++) {
		if (to_iov)
			memcpy((void *)(uintptr_t)v[i].addr, buf, v[i].bytes);
		else
			memcpy(buf, (void *)(uintptr_t)v[i].addr, v[i].bytes);
		buf += v[i].bytes;
	}
}

ssize_t sendmsg(int fd, const struct msghdr *mh, int flags)
{
	static ssize_t (*real)(int, const struct msghdr *, int);
	static ssize_t (*real_sendto)(int, const void *, size_t, int,
				      const struct sockaddr *, socklen_t);
	struct sockaddr_un un;
	struct cmsghdr *cm;
	struct op_hdr h;
	struct msghdr m2;
	uint64_t data = 0, pay = 0, i;
	uint8_t *buf, *p;
	ssize_t r;

	if (!real) {
		real = (ssize_t (*)(int, const struct msghdr *, int))
			dlsym(RTLD_NEXT, "sendmsg");
		real_sendto = (ssize_t (*)(int, const void *, size_t, int,
					   const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "sendto");
	}
	if (!is_fake(fd) || !mh->msg_name)
		return real(fd, mh, flags);
	memset(&h, 0, sizeof(h));
	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR((struct msghdr *)mh, cm)) {
		if (cm->cmsg_level != SOL_RDS_)
			continue;
		if (cm->cmsg_type == CMSG_RDMA_ARGS_ &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct rdma_args_))) {
			struct rdma_args_ a;
			const struct iovec_ *v;

			memcpy(&a, CMSG_DATA(cm), sizeof(a));
			v = (const struct iovec_ *)(uintptr_t)a.local_vec_addr;
			for (i = 0; i < a.nr_local; i++)
				data += v[i].bytes;
			if (!a.nr_local || data != a.remote_vec.bytes) {
				errno = EINVAL;
				return -1;
			}
			h.kind = a.flags & RDMA_READWRITE_ ? OP_WRITE : OP_READ;
			h.token = a.user_token;
			h.cookie = a.cookie;
			h.addr = a.remote_vec.addr;
			h.bytes = data;
			h.flags = a.flags;
			h.local_addr = a.local_vec_addr;
			h.nr_local = a.nr_local;
			if (h.kind == OP_READ)
				data = 0;
		} else if (cm->cmsg_type == CMSG_ATOMIC_FADD_ &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(struct atomic_args_))) {
			struct atomic_args_ a;

			memcpy(&a, CMSG_DATA(cm), sizeof(a));
			if ((a.local_addr | a.remote_addr) & 7) {
				errno = EINVAL;
				return -1;
			}
			h.kind = OP_FADD;
			h.token = a.user_token;
			h.cookie = a.cookie;
			h.addr = a.remote_addr;
			h.bytes = 8;
			h.add = a.add;
			h.flags = a.flags;
			h.local_addr = a.local_addr;
		} else {
			errno = EINVAL;
			return -1;
		}
	}
	if (!h.kind) {
		m2 = *mh;
		m2.msg_name = &un;
		m2.msg_namelen = to_un((const struct sockaddr_in *)mh->msg_name, &un);
		m2.msg_control = NULL;
		m2.msg_controllen = 0;
		return real(fd, &m2, flags);
	}
	if (no_rdma(fd)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	for (i = 0; i < mh->msg_iovlen; i++)
		pay += mh->msg_iov[i].iov_len;
	buf = malloc(sizeof(h) + data + pay);
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(h.magic, OP_MAGIC, sizeof(h.magic));
	h.paylen = pay;
	memcpy(buf, &h, sizeof(h));
	p = buf + sizeof(h);
	if (data) {
		iov_copy(h.local_addr, h.nr_local, p, 0);
		p += data;
	}
	for (i = 0; i < mh->msg_iovlen; i++) {
		memcpy(p, mh->msg_iov[i].iov_base, mh->msg_iov[i].iov_len);
		p += mh->msg_iov[i].iov_len;
	}
	rdma_used = 1;
	r = real_sendto(fd, buf, sizeof(h) + data + pay, flags,
			(struct sockaddr *)&un,
			to_un((const struct sockaddr_in *)mh->msg_name, &un));
	free(buf);
	return r < 0 ? r : (ssize_t)pay;
}

/*
 * The next datagram, if it is an operation or a status: run the operation
 * and answer it, or turn the status into a notice.  Returns 1 with *ret
 * set if it handled the datagram (for the caller to return), 0 if the
 * next datagram is an ordinary message.
 */
static int rdma_recv(ssize_t (*real)(int, struct msghdr *, int), int fd,
		     struct msghdr *mh, int flags, ssize_t *ret)
{
	static ssize_t (*real_sendto)(int, const void *, size_t, int,
				      const struct sockaddr *, socklen_t);
	struct sockaddr_un un;
	struct op_hdr h;
	struct iovec iov = { .iov_base = &h, .iov_len = sizeof(h) };
	struct msghdr pm = {
		.msg_name = &un, .msg_namelen = sizeof(un),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	uint8_t *buf, *data;
	ssize_t n;

	if (!real_sendto)
		real_sendto = (ssize_t (*)(int, const void *, size_t, int,
					   const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "sendto");
	n = real(fd, &pm, (flags & MSG_DONTWAIT) | MSG_PEEK | MSG_TRUNC);
	if (n < 0) {
		*ret = n;
		return 1;
	}
	if (n < (ssize_t)sizeof(h) || memcmp(h.magic, OP_MAGIC, sizeof(h.magic)))
		return 0;
	buf = malloc((size_t)n);
	if (!buf)
		abort();
	iov.iov_base = buf;
	iov.iov_len = (size_t)n;
	pm.msg_namelen = sizeof(un);
	n = real(fd, &pm, flags & MSG_DONTWAIT);
	if (n < (ssize_t)sizeof(h)) {
		free(buf);
		*ret = -1;
		errno = EIO;
		return 1;
	}
	memcpy(&h, buf, sizeof(h));
	data = buf + sizeof(h);
	if (h.kind == OP_STATUS) {
		struct notify_ nt = { .user_token = h.token, .status = h.status };
		struct cmsghdr *cm;

		if (!h.status && h.flags == OP_READ)
			iov_copy(h.local_addr, h.nr_local, data, 1);
		else if (!h.status && h.flags == OP_FADD)
			memcpy((void *)(uintptr_t)h.local_addr, data, 8);
		if (mh->msg_control && mh->msg_controllen >= CMSG_SPACE(sizeof(nt))) {
			cm = CMSG_FIRSTHDR(mh);
			cm->cmsg_level = SOL_RDS_;
			cm->cmsg_type = CMSG_RDMA_STATUS_;
			cm->cmsg_len = CMSG_LEN(sizeof(nt));
			memcpy(CMSG_DATA(cm), &nt, sizeof(nt));
			mh->msg_controllen = CMSG_SPACE(sizeof(nt));
			mh->msg_flags = 0;
		} else {
			mh->msg_controllen = 0;
			mh->msg_flags = MSG_CTRUNC;
		}
		free(buf);
		*ret = 0;
		return 1;
	} else {
		const char *f = getenv("FAKE_RDS_RDMA_FAIL");
		unsigned long nth = atomic_fetch_add(&executed, 1) + 1;
		uint8_t *at = region_at(h.cookie, h.addr, h.bytes);
		size_t rlen = sizeof(h) + (h.kind == OP_WRITE ? 0 : h.bytes);
		struct op_hdr s = h;
		uint8_t *rep = malloc(rlen);
		uint8_t *pay = data + (h.kind == OP_WRITE ? h.bytes : 0);
		struct sockaddr_in in;
		size_t k;

		if (!rep)
			abort();
		if (f && strtoul(f, NULL, 10) == nth)
			at = NULL;
		s.kind = OP_STATUS;
		s.flags = h.kind;	/* what the status is for */
		s.status = at ? 0 : REMOTE_ERROR_;
		if (at && h.kind == OP_WRITE)
			memcpy(at, data, h.bytes);
		else if (at && h.kind == OP_READ)
			memcpy(rep + sizeof(s), at, h.bytes);
		else if (at && h.kind == OP_FADD) {
			uint64_t old = __atomic_fetch_add((uint64_t *)at, h.add,
							  __ATOMIC_SEQ_CST);

			memcpy(rep + sizeof(s), &old, 8);
		}
		memcpy(rep, &s, sizeof(s));
		/* blocking: the initiator keeps reading its notices */
		real_sendto(fd, rep, rlen, 0, (struct sockaddr *)&un, pm.msg_namelen);
		free(rep);
		if (h.flags & RDMA_SILENT_) {
			/* nothing for the application, as if nothing came */
			free(buf);
			*ret = -1;
			errno = EAGAIN;
			return 1;
		}
		/* and the message the operation rode on */
		k = h.paylen < mh->msg_iov[0].iov_len ? h.paylen : mh->msg_iov[0].iov_len;
		memcpy(mh->msg_iov[0].iov_base, pay, k);
		mh->msg_flags = k < h.paylen ? MSG_TRUNC : 0;
		mh->msg_controllen = 0;
		to_in(&un, pm.msg_namelen, &in);
		memcpy(mh->msg_name, &in, mh->msg_namelen < sizeof(in) ?
		       mh->msg_namelen : sizeof(in));
		mh->msg_namelen = sizeof(in);
		free(buf);
		*ret = (ssize_t)k;
		return 1;
	}
}

int setsockopt(int fd, int level, int opt, const void *val, socklen_t len)
{
	static int (*real)(int, int, int, const void *, socklen_t);

	if (!real)
		real = (int (*)(int, int, int, const void *, socklen_t))
			dlsym(RTLD_NEXT, "setsockopt");
	if (is_fake(fd) && level == SOL_RDS_ && opt == RDS_GET_MR_)
		return get_mr(fd, val, len);
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
	if (rdma_used && rdma_recv(real, fd, mh, flags, &r))
		return r;
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
