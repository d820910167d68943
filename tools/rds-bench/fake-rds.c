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
 * FAKE_RDS_SENT=FILE: closing a socket that sent messages with sendto()
 * appends "PORT COUNT" to FILE, its bound port and how many it sent (to
 * test how senders spread over their sockets).
 *
 * RDMA, enough for rds-bench's RDMA modes and reqresp: RDS_GET_MR records
 * a region of this process, and so does an RDS_CMSG_RDMA_MAP on sendmsg(),
 * whose cookie travels with the message and comes out of the receiver's
 * recvmsg() as RDS_CMSG_RDMA_DEST (as does an RDS_CMSG_RDMA_DEST sent).
 * An RDS_CMSG_RDMA_ARGS or RDS_CMSG_ATOMIC_FADD on sendmsg() travels in
 * one datagram with the message (and a write's data); the receiving
 * process's recvmsg() runs it on the region (and frees an
 * RDS_RDMA_USE_ONCE region), answers with a status datagram and returns
 * the message; the status datagram brings a read's data or an atomic's
 * previous value to the sender's recvmsg() and, if the operation had
 * RDS_RDMA_NOTIFY_ME, becomes an RDS_CMSG_RDMA_STATUS notice.
 * FAKE_RDS_NO_RDMA (a family or a comma-separated list) makes RDS_GET_MR,
 * RDS_CMSG_RDMA_MAP and RDMA sends of those families fail with
 * EOPNOTSUPP; FAKE_RDS_RDMA_FAIL=N completes the Nth operation a process
 * executes with RDS_RDMA_REMOTE_ERROR (and does not run it);
 * FAKE_RDS_RDMA_CORRUPT=N runs the Nth RDMA read or write a process
 * executes, then flips a byte of the data it moved.
 *
 * MSG_ZEROCOPY, enough for rds-bench's --zerocopy: SO_ZEROCOPY is taken
 * at SOL_RDS (the AF_UNIX socket refuses it at SOL_SOCKET, as 6.1 does
 * for rds_doca's own family); a send with MSG_ZEROCOPY and
 * RDS_CMSG_ZCOPY_COOKIE copies, and its cookie comes back at once, to the
 * next recvmsg() of the sending socket with room for an
 * RDS_CMSG_ZCOPY_COMPLETION, as RDS returns completions.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#define MAXFD 4096
#define SOL_RDS_ 276

static unsigned char fake[MAXFD];
static unsigned char fam_of[MAXFD];
static struct sockaddr_in bound[MAXFD];
static atomic_ulong sent_count;
static atomic_ulong fd_sent[MAXFD];	/* sendto() calls that succeeded */

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
		atomic_store(&fd_sent[fd], 0);
	}
	return fd;
}

static void regions_close(int fd);

/* FAKE_RDS_SENT: one line for a socket that sent, as it is closed */
static void log_sent(int fd, int (*real_close)(int))
{
	const char *f = getenv("FAKE_RDS_SENT");
	unsigned long n = atomic_exchange(&fd_sent[fd], 0);
	char line[64];
	int lf, len;

	if (!f || !n)
		return;
	lf = open(f, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (lf < 0)
		return;
	len = snprintf(line, sizeof(line), "%u %lu\n",
		       ntohs(bound[fd].sin_port), n);
	if (write(lf, line, (size_t)len) != len)
		perror("fake-rds: FAKE_RDS_SENT");
	real_close(lf);
}

int close(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (is_fake(fd)) {
		regions_close(fd);
		log_sent(fd, real);
	}
	if (fd >= 0 && fd < MAXFD)
		fake[fd] = 0;
	return real(fd);
}

/* ------------------------------------------------------------------ */
/* RDMA stand-in                                                       */

#define RDS_GET_MR_		2
#define CMSG_RDMA_ARGS_		1
#define CMSG_RDMA_DEST_		2
#define CMSG_RDMA_MAP_		3
#define CMSG_RDMA_STATUS_	4
#define CMSG_ATOMIC_FADD_	6
#define CMSG_ZCOPY_COOKIE_	12
#define CMSG_ZCOPY_COMPLETION_	13
#define MAX_ZCOOKIES_		8
#define ZC_QUEUE		1024	/* completions held per socket */
#define RDMA_READWRITE_		0x0001
#define RDMA_USE_ONCE_		0x0008
#define RDMA_NOTIFY_ME_		0x0020
#define RDMA_SILENT_		0x0040
#define REMOTE_ERROR_		1
#define MAXREGION		4096	/* live at once, per process */
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

/* OP_MSG: no operation, a message that brings a cookie */
enum { OP_READ = 1, OP_WRITE, OP_FADD, OP_STATUS, OP_MSG };

/* Head of an operation or status datagram; then data, then the message. */
struct op_hdr {
	char magic[16];
	uint32_t kind;
	int32_t status;
	uint64_t token, cookie, addr, bytes, add, flags;
	uint64_t local_addr, nr_local;	/* the sender's, sent back */
	uint64_t paylen;
	uint64_t dest;		/* the cookie for the receiver, if has_dest */
	uint32_t has_dest;
	uint32_t notify;	/* a status: the operation asked for a notice */
};

/*
 * A slot is claimed (FREE -> SETUP) by whoever registers, filled, then
 * published (LIVE); lookups read only LIVE slots.  A region is freed by
 * the thread that runs its use-once operation or closes its socket.
 */
enum { R_FREE, R_SETUP, R_LIVE };

static struct {
	atomic_int state;
	int fd;
	uint64_t key;		/* the cookie: unique in this process */
	uint64_t flags;
	uint8_t *addr;
	uint64_t len;
} regions[MAXREGION];
static atomic_int nregions;	/* slots ever used: lookups stop there */
static atomic_uint next_key;
static atomic_ulong executed, executed_rw;
/*
 * Op datagrams may arrive: look for them.  Shared with the processes this
 * one forks (a page mapped when the library loads), since the process
 * that receives operations need not have done RDMA itself: a reqresp
 * client registers the regions its server's operations reach.
 */
static volatile int rdma_used_here;
static volatile int *rdma_used = &rdma_used_here;

__attribute__((constructor)) static void fake_init(void)
{
	void *p = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		rdma_used = p;
}

static int no_rdma(int fd)
{
	const char *s = getenv("FAKE_RDS_NO_RDMA");

	return s && in_list(s, fam_of[fd]);
}

/* Register a region of fd's (RDS_GET_MR, RDS_CMSG_RDMA_MAP): its cookie. */
static int map_region(int fd, const struct get_mr_args_ *a, uint64_t *cookie)
{
	int i, want = R_FREE, n;

	if (no_rdma(fd)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (!a->vec.bytes) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < MAXREGION; i++, want = R_FREE)
		if (atomic_compare_exchange_strong(&regions[i].state, &want, R_SETUP))
			break;
	if (i == MAXREGION) {
		errno = ENOMEM;
		return -1;
	}
	n = atomic_load(&nregions);
	while (n < i + 1 && !atomic_compare_exchange_weak(&nregions, &n, i + 1))
		;
	/* the pid keeps cookies of different processes apart */
	regions[i].key = (uint64_t)getpid() << 32 | (atomic_fetch_add(&next_key, 1) + 1);
	regions[i].fd = fd;
	regions[i].flags = a->flags;
	regions[i].addr = (uint8_t *)(uintptr_t)a->vec.addr;
	regions[i].len = a->vec.bytes;
	*cookie = regions[i].key;	/* offset 0: address 0 is the first byte */
	atomic_store(&regions[i].state, R_LIVE);
	*rdma_used = 1;
	return 0;
}

static int get_mr(int fd, const void *val, socklen_t len)
{
	struct get_mr_args_ a;
	uint64_t cookie;

	if (len != sizeof(a)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&a, val, sizeof(a));
	if (map_region(fd, &a, &cookie) < 0)
		return -1;
	memcpy((void *)(uintptr_t)a.cookie_addr, &cookie, sizeof(cookie));
	return 0;
}

/* The live region of cookie, or -1. */
static int region_of(uint64_t cookie)
{
	int i, n = atomic_load(&nregions);

	for (i = 0; i < n && i < MAXREGION; i++)
		if (atomic_load(&regions[i].state) == R_LIVE &&
		    regions[i].key == cookie)
			return i;
	return -1;
}

static uint8_t *region_at(uint64_t cookie, uint64_t addr, uint64_t bytes)
{
	int i = region_of(cookie);

	if (i < 0 || addr > regions[i].len || bytes > regions[i].len - addr)
		return NULL;
	return regions[i].addr + addr;
}

/* An operation named cookie: a use-once region is gone. */
static void region_used(uint64_t cookie)
{
	int i = region_of(cookie);

	if (i >= 0 && (regions[i].flags & RDMA_USE_ONCE_))
		atomic_store(&regions[i].state, R_FREE);
}

/* fd closes: its regions go with it. */
static void regions_close(int fd)
{
	int i, n = atomic_load(&nregions);

	for (i = 0; i < n && i < MAXREGION; i++)
		if (atomic_load(&regions[i].state) == R_LIVE && regions[i].fd == fd)
			atomic_store(&regions[i].state, R_FREE);
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

static void put_cmsg_(struct msghdr *mh, int type, const void *v, size_t len);

/* Zero-copy completions not yet read, per socket. */
static struct {
	uint32_t cookie[ZC_QUEUE];
	unsigned int n;
} zc_q[MAXFD];
static pthread_mutex_t zc_lock = PTHREAD_MUTEX_INITIALIZER;

static void zc_complete(int fd, uint32_t cookie)
{
	pthread_mutex_lock(&zc_lock);
	if (zc_q[fd].n < ZC_QUEUE)
		zc_q[fd].cookie[zc_q[fd].n++] = cookie;
	pthread_mutex_unlock(&zc_lock);
}

/* Up to 8 completions of fd into mh, as RDS gives them: 0, or -1. */
static int zc_recv(int fd, struct msghdr *mh)
{
	struct { uint32_t num, cookies[MAX_ZCOOKIES_]; } z = { 0 };
	unsigned int i;

	if (!mh->msg_control ||
	    mh->msg_controllen < CMSG_SPACE(sizeof(z)))
		return -1;
	pthread_mutex_lock(&zc_lock);
	z.num = zc_q[fd].n < MAX_ZCOOKIES_ ? zc_q[fd].n : MAX_ZCOOKIES_;
	for (i = 0; i < z.num; i++)
		z.cookies[i] = zc_q[fd].cookie[--zc_q[fd].n];
	pthread_mutex_unlock(&zc_lock);
	if (!z.num)
		return -1;
	mh->msg_flags = 0;
	put_cmsg_(mh, CMSG_ZCOPY_COMPLETION_, &z, sizeof(z));
	return 0;
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
	struct get_mr_args_ map;
	uint64_t data = 0, pay = 0, i;
	bool mapping = false, zc = false;
	uint32_t cookie = 0;
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
		if (cm->cmsg_type == CMSG_ZCOPY_COOKIE_ && !zc &&
		    (flags & MSG_ZEROCOPY) &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(cookie))) {
			memcpy(&cookie, CMSG_DATA(cm), sizeof(cookie));
			zc = true;
		} else if (cm->cmsg_type == CMSG_RDMA_ARGS_ &&
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
		} else if (cm->cmsg_type == CMSG_RDMA_MAP_ && !h.has_dest &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(map))) {
			memcpy(&map, CMSG_DATA(cm), sizeof(map));
			mapping = true;
			h.has_dest = 1;
		} else if (cm->cmsg_type == CMSG_RDMA_DEST_ && !h.has_dest &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(h.dest))) {
			int k;

			memcpy(&h.dest, CMSG_DATA(cm), sizeof(h.dest));
			k = region_of(h.dest);
			if (k < 0 || regions[k].fd != fd) {
				errno = EINVAL;	/* not a region of this socket */
				return -1;
			}
			h.has_dest = 1;
		} else {
			errno = EINVAL;
			return -1;
		}
	}
	if (!h.kind && !h.has_dest) {
		m2 = *mh;
		m2.msg_name = &un;
		m2.msg_namelen = to_un((const struct sockaddr_in *)mh->msg_name, &un);
		m2.msg_control = NULL;
		m2.msg_controllen = 0;
		r = real(fd, &m2, flags & ~MSG_ZEROCOPY);
		if (r >= 0 && zc)
			zc_complete(fd, cookie);
		return r;
	}
	if (zc) {
		errno = EOPNOTSUPP;	/* not with RDMA here */
		return -1;
	}
	if (no_rdma(fd)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (!h.kind)
		h.kind = OP_MSG;
	for (i = 0; i < mh->msg_iovlen; i++)
		pay += mh->msg_iov[i].iov_len;
	buf = malloc(sizeof(h) + data + pay);
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	if (mapping && map_region(fd, &map, &h.dest) < 0) {
		free(buf);
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
	*rdma_used = 1;
	r = real_sendto(fd, buf, sizeof(h) + data + pay, flags,
			(struct sockaddr *)&un,
			to_un((const struct sockaddr_in *)mh->msg_name, &un));
	free(buf);
	if (mapping && r < 0) {
		/* as RDS: the region of a send that failed is gone */
		int e = errno, k = region_of(h.dest);

		if (k >= 0)
			atomic_store(&regions[k].state, R_FREE);
		errno = e;
	}
	if (mapping)
		memcpy((void *)(uintptr_t)map.cookie_addr, &h.dest, sizeof(h.dest));
	return r < 0 ? r : (ssize_t)pay;
}

/* Put one SOL_RDS control message into mh (MSG_CTRUNC if it has no room). */
static void put_cmsg_(struct msghdr *mh, int type, const void *v, size_t len)
{
	struct cmsghdr *cm;

	if (mh->msg_control && mh->msg_controllen >= CMSG_SPACE(len)) {
		cm = CMSG_FIRSTHDR(mh);
		cm->cmsg_level = SOL_RDS_;
		cm->cmsg_type = type;
		cm->cmsg_len = CMSG_LEN(len);
		memcpy(CMSG_DATA(cm), v, len);
		mh->msg_controllen = CMSG_SPACE(len);
	} else {
		mh->msg_controllen = 0;
		mh->msg_flags |= MSG_CTRUNC;
	}
}

/*
 * Run the operation h (data: what a write brings) on this process's
 * region, and answer the initiator, at un, with a status datagram.
 */
static void run_op(int fd, const struct op_hdr *h, const uint8_t *data,
		   const struct sockaddr_un *un, socklen_t unlen)
{
	static ssize_t (*real_sendto)(int, const void *, size_t, int,
				      const struct sockaddr *, socklen_t);
	const char *f = getenv("FAKE_RDS_RDMA_FAIL");
	const char *c = getenv("FAKE_RDS_RDMA_CORRUPT");
	unsigned long nth = atomic_fetch_add(&executed, 1) + 1, nth_rw = 0;
	uint8_t *at = region_at(h->cookie, h->addr, h->bytes);
	size_t rlen = sizeof(*h) + (h->kind == OP_WRITE ? 0 : h->bytes);
	struct op_hdr s = *h;
	uint8_t *rep = malloc(rlen);

	if (!real_sendto)
		real_sendto = (ssize_t (*)(int, const void *, size_t, int,
					   const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "sendto");
	if (!rep)
		abort();
	if (h->kind != OP_FADD)
		nth_rw = atomic_fetch_add(&executed_rw, 1) + 1;
	if (f && strtoul(f, NULL, 10) == nth)
		at = NULL;
	s.kind = OP_STATUS;
	s.flags = h->kind;	/* what the status is for */
	s.status = at ? 0 : REMOTE_ERROR_;
	s.notify = !!(h->flags & RDMA_NOTIFY_ME_);
	if (at && h->kind == OP_WRITE)
		memcpy(at, data, h->bytes);
	else if (at && h->kind == OP_READ)
		memcpy(rep + sizeof(s), at, h->bytes);
	else if (at && h->kind == OP_FADD) {
		uint64_t old = __atomic_fetch_add((uint64_t *)at, h->add,
						  __ATOMIC_SEQ_CST);

		memcpy(rep + sizeof(s), &old, 8);
	}
	if (at && nth_rw && c && strtoul(c, NULL, 10) == nth_rw)
		(h->kind == OP_WRITE ? at : rep + sizeof(s))[h->bytes / 2] ^= 0x5a;
	/* the message arrives after its operation: use-once is used */
	region_used(h->cookie);
	memcpy(rep, &s, sizeof(s));
	/*
	 * Blocking: the initiator keeps reading its notices.  A write
	 * nobody is to hear of needs no status.
	 */
	if (s.notify || h->kind != OP_WRITE)
		real_sendto(fd, rep, rlen, 0, (const struct sockaddr *)un, unlen);
	free(rep);
}

/*
 * The next datagram, if it is an operation, a status or a message with a
 * cookie: run the operation and answer it, turn the status into a notice.
 * Returns 1 with *ret set if it handled the datagram (for the caller to
 * return), 2 if it consumed one with nothing for the caller (for the
 * caller to look at the next), 0 if the next datagram is an ordinary
 * message.
 */
static int rdma_recv(ssize_t (*real)(int, struct msghdr *, int), int fd,
		     struct msghdr *mh, int flags, ssize_t *ret)
{
	struct sockaddr_un un;
	struct op_hdr h;
	struct iovec iov = { .iov_base = &h, .iov_len = sizeof(h) };
	struct msghdr pm = {
		.msg_name = &un, .msg_namelen = sizeof(un),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	uint8_t *buf, *data;
	ssize_t n;

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

		if (!h.status && h.flags == OP_READ)
			iov_copy(h.local_addr, h.nr_local, data, 1);
		else if (!h.status && h.flags == OP_FADD)
			memcpy((void *)(uintptr_t)h.local_addr, data, 8);
		free(buf);
		if (!h.notify)
			return 2;	/* it only brought the data */
		mh->msg_flags = 0;
		put_cmsg_(mh, CMSG_RDMA_STATUS_, &nt, sizeof(nt));
		*ret = 0;
		return 1;
	} else {
		uint8_t *pay = data + (h.kind == OP_WRITE ? h.bytes : 0);
		struct sockaddr_in in;
		size_t k;

		if (h.kind != OP_MSG)
			run_op(fd, &h, data, &un, pm.msg_namelen);
		if (h.flags & RDMA_SILENT_) {
			/* nothing for the application, as if nothing came */
			free(buf);
			return 2;
		}
		/* and the message the operation rode on */
		k = h.paylen < mh->msg_iov[0].iov_len ? h.paylen : mh->msg_iov[0].iov_len;
		memcpy(mh->msg_iov[0].iov_base, pay, k);
		mh->msg_flags = k < h.paylen ? MSG_TRUNC : 0;
		if (h.has_dest)
			put_cmsg_(mh, CMSG_RDMA_DEST_, &h.dest, sizeof(h.dest));
		else
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
	ssize_t r;

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
	    (atomic_fetch_add(&sent_count, 1) + 1) % (unsigned long)atoi(d) == 0) {
		atomic_fetch_add(&fd_sent[fd], 1);
		return (ssize_t)n;	/* "sent", never delivered */
	}
	r = real(fd, buf, n, flags, (struct sockaddr *)&un,
		 to_un((const struct sockaddr_in *)sa, &un));
	if (r >= 0)
		atomic_fetch_add(&fd_sent[fd], 1);
	return r;
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
	if (is_fake(fd) && !zc_recv(fd, mh))
		return 0;
	if (!is_fake(fd) || !mh->msg_name)
		return real(fd, mh, flags);
	while (*rdma_used) {
		int k = rdma_recv(real, fd, mh, flags, &r);

		if (k == 1)
			return r;
		if (k == 0)
			break;
	}
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
