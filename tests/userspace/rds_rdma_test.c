// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA and atomic operation tests for rds_doca over the loopback
 * transport.
 *
 * Exercises, through the socket API only, memory registration
 * (RDS_GET_MR, RDS_GET_MR_FOR_DEST, RDS_DOCA_GET_MR_LIST, RDS_FREE_MR),
 * RDMA reads and writes (RDS_CMSG_RDMA_ARGS), the four atomics, the
 * completion notices (RDS_CMSG_RDMA_STATUS) and the passing of cookies
 * (RDS_CMSG_RDMA_DEST, RDS_CMSG_RDMA_MAP), against the contract in
 * Documentation/rds_doca.rst, section "RDMA and atomic operations".
 *
 * Every test uses two fresh sockets: A owns the registered memory and
 * B initiates the operations.  Prints TAP (see tap.h).
 */
#include "rds_util.h"

#include <linux/capability.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

/* Wait this long for something that must arrive. */
#define WAIT_MS		10000
/* Watch this long for something that must not arrive. */
#define QUIET_WAIT_MS	300

#define PAGE		4096UL
#define KIB		1024UL
#define MIB		(1024UL * 1024UL)

#define NOTE_SPACE	CMSG_SPACE(sizeof(struct rds_rdma_notify))

/* Format a check name from the variadic arguments of the caller. */
#define VNAME(buf, fmt) do {					\
	va_list __ap;							\
	va_start(__ap, fmt);						\
	vsnprintf(buf, sizeof(buf), fmt, __ap);			\
	va_end(__ap);							\
} while (0)

/* A flag no RDS_RDMA_* or RDS_DOCA_* definition uses. */
#define UNKNOWN_FLAG	0x100000ULL

/* ------------------------------------------------------------------ */
/* helpers                                                             */
/* ------------------------------------------------------------------ */

/* Over the IB transport: the device does the work. */
static bool over_ib(void)
{
	return cfg.transport == RDS_TRANS_IB;
}

/* Atomic types the transport offers: no masked forms over IB. */
static unsigned int atomic_types(void)
{
	return over_ib() ? 2 : 4;
}

static inline uint64_t cookie_key(uint64_t c)
{
	return c & 0xffffffffULL;
}

static inline uint64_t cookie_off(uint64_t c)
{
	return c >> 32;
}

static inline uint64_t cookie_make(uint64_t key, uint64_t off)
{
	return (off << 32) | (key & 0xffffffffULL);
}

/* Anonymous read-write mapping, NULL on failure (a failed check). */
static void *xmap(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		tap_check(0, "setup: mmap", TAP_WHERE, "mmap(%zu): %s", len,
			  tap_errname(errno));
		return NULL;
	}
	memset(p, 0, len);
	return p;
}

/*
 * @len bytes followed by an inaccessible guard page; unmap both with
 * xunmap(p, len + PAGE).
 */
static void *xmap_guarded(size_t len)
{
	char *p = xmap(len + PAGE);

	if (p && mprotect(p + len, PAGE, PROT_NONE)) {
		tap_check(0, "setup: mprotect", TAP_WHERE, "%s",
			  tap_errname(errno));
		munmap(p, len + PAGE);
		return NULL;
	}
	return p;
}

static void xunmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

/* An address with nothing mapped at it. */
static void *unmapped_addr(void)
{
	static void *hole;

	if (!hole) {
		hole = mmap(NULL, 4 * PAGE, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (hole == MAP_FAILED)
			return (void *)16;
		munmap(hole, 4 * PAGE);
	}
	return (char *)hole + PAGE;
}

/* A and B on fresh ports. */
struct pair {
	int a, b;
	struct sockaddr_in sa, sb;
};

static bool pair_open(struct pair *p)
{
	p->b = -1;
	p->a = bound_socket_at(cfg.addr, 0, "setup: bind A");
	if (p->a < 0)
		return false;
	p->b = bound_socket_at(cfg.peer, 0, "setup: bind B");
	if (p->b < 0) {
		close(p->a);
		p->a = -1;
		return false;
	}
	p->sa = sock_addr(p->a);
	p->sb = sock_addr(p->b);
	return true;
}

static void pair_close(struct pair *p)
{
	if (p->a >= 0)
		close(p->a);
	if (p->b >= 0)
		close(p->b);
	p->a = p->b = -1;
}

static int set_int(int fd, int level, int opt, int val)
{
	return setsockopt(fd, level, opt, &val, sizeof(val));
}

static int get_mr_dest(int fd, const struct sockaddr_in *dest,
		       const void *addr, uint64_t len, uint64_t flags,
		       uint64_t *cookie)
{
	struct rds_get_mr_for_dest_args g;

	memset(&g, 0, sizeof(g));
	memcpy(&g.dest_addr, dest, sizeof(*dest));
	g.vec.addr = (uintptr_t)addr;
	g.vec.bytes = len;
	g.cookie_addr = (uintptr_t)cookie;
	g.flags = flags;
	return setsockopt(fd, SOL_RDS, RDS_GET_MR_FOR_DEST, &g, sizeof(g));
}

static int get_mr_list(int fd, const struct rds_iovec *v, uint64_t n,
		       uint64_t flags, uint64_t *cookie)
{
	struct rds_doca_get_mr_list_args g;

	memset(&g, 0, sizeof(g));
	g.vecs_addr = (uintptr_t)v;
	g.nr_vecs = n;
	g.cookie_addr = (uintptr_t)cookie;
	g.flags = flags;
	return setsockopt(fd, SOL_RDS, RDS_DOCA_GET_MR_LIST, &g, sizeof(g));
}

/* Control messages for sendmsg(). */
struct cm {
	union {
		char buf[8192];
		struct cmsghdr align;
	} u;
	size_t len;
};

static void cm_init(struct cm *c)
{
	memset(c, 0, sizeof(*c));
}

static void cm_add(struct cm *c, int type, const void *data, size_t dlen)
{
	struct cmsghdr *h = (struct cmsghdr *)(c->u.buf + c->len);

	memset(h, 0, CMSG_SPACE(dlen));
	h->cmsg_level = SOL_RDS;
	h->cmsg_type = type;
	h->cmsg_len = CMSG_LEN(dlen);
	memcpy(CMSG_DATA(h), data, dlen);
	c->len += CMSG_SPACE(dlen);
}

static const char op_payload[] = "rdma op";

/* sendmsg() of @payload with the control messages @c to @to. */
static ssize_t send_cm(int fd, const struct sockaddr_in *to,
		       const void *payload, size_t plen, const struct cm *c)
{
	struct iovec iov = { (void *)payload, plen };
	struct msghdr m = {
		.msg_name = (void *)to,
		.msg_namelen = sizeof(*to),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = c && c->len ? (void *)c->u.buf : NULL,
		.msg_controllen = c ? c->len : 0,
	};

	return sendmsg(fd, &m, 0);
}

/* One control message of @type carrying @args. */
static ssize_t send_op(int fd, const struct sockaddr_in *to, int type,
		       const void *args, size_t alen)
{
	struct cm c;

	cm_init(&c);
	cm_add(&c, type, args, alen);
	return send_cm(fd, to, op_payload, sizeof(op_payload) - 1, &c);
}

static ssize_t send_rdma(int fd, const struct sockaddr_in *to,
			 const struct rds_rdma_args *ra)
{
	return send_op(fd, to, RDS_CMSG_RDMA_ARGS, ra, sizeof(*ra));
}

static ssize_t send_atomic(int fd, const struct sockaddr_in *to, int type,
			   const struct rds_atomic_args *aa)
{
	return send_op(fd, to, type, aa, sizeof(*aa));
}

static uint64_t next_token = 1000;

static void mk_rdma(struct rds_rdma_args *ra, uint64_t cookie,
		    uint64_t raddr, uint64_t bytes, const struct rds_iovec *lv,
		    uint64_t nr, uint64_t flags)
{
	memset(ra, 0, sizeof(*ra));
	ra->cookie = cookie;
	ra->remote_vec.addr = raddr;
	ra->remote_vec.bytes = bytes;
	ra->local_vec_addr = (uintptr_t)lv;
	ra->nr_local = nr;
	ra->flags = flags;
	ra->user_token = next_token++;
}

static void mk_atomic(struct rds_atomic_args *aa, uint64_t cookie,
		      uint64_t raddr, void *local, uint64_t flags)
{
	memset(aa, 0, sizeof(*aa));
	aa->cookie = cookie;
	aa->remote_addr = raddr;
	aa->local_addr = (uintptr_t)local;
	aa->flags = flags;
	aa->user_token = next_token++;
}

/* What one recvmsg() returned. */
struct rx {
	ssize_t len;
	int msg_flags;
	unsigned int nnotes;
	struct rds_rdma_notify notes[256];
	bool has_dest;
	uint64_t dest;
	unsigned int other_cmsgs;
	struct sockaddr_in from;
	char data[256];
};

/*
 * poll() @fd for up to @timeout_ms, then one recvmsg(MSG_DONTWAIT) with
 * @ctl bytes of control buffer (0: plenty).  Returns what recvmsg
 * returned, or -1 with errno ETIME if nothing came in time.
 */
static ssize_t rx_one(int fd, struct rx *rx, size_t ctl, int timeout_ms)
{
	static union {
		char buf[65536];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov;
	struct msghdr m;
	struct pollfd pfd;
	struct cmsghdr *h;
	long long deadline = now_ms() + timeout_ms;
	int r, left;

	memset(rx, 0, sizeof(*rx));
	for (;;) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		left = (int)(deadline - now_ms());
		r = poll(&pfd, 1, left > 0 ? left : 0);
		if (r > 0)
			break;
		if (r == 0) {
			errno = ETIME;
			return -1;
		}
		if (errno != EINTR)
			return -1;
	}
	iov.iov_base = rx->data;
	iov.iov_len = sizeof(rx->data);
	memset(&m, 0, sizeof(m));
	m.msg_name = &rx->from;
	m.msg_namelen = sizeof(rx->from);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf.buf;
	m.msg_controllen = ctl ? ctl : sizeof(cbuf.buf);
	rx->len = recvmsg(fd, &m, MSG_DONTWAIT);
	if (rx->len < 0)
		return -1;
	rx->msg_flags = m.msg_flags;
	for (h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
		if (h->cmsg_level == SOL_RDS &&
		    h->cmsg_type == RDS_CMSG_RDMA_STATUS &&
		    h->cmsg_len >= CMSG_LEN(sizeof(struct rds_rdma_notify))) {
			if (rx->nnotes < sizeof(rx->notes) /
					 sizeof(rx->notes[0]))
				memcpy(&rx->notes[rx->nnotes], CMSG_DATA(h),
				       sizeof(rx->notes[0]));
			rx->nnotes++;
		} else if (h->cmsg_level == SOL_RDS &&
			   h->cmsg_type == RDS_CMSG_RDMA_DEST &&
			   h->cmsg_len >= CMSG_LEN(sizeof(uint64_t))) {
			rx->has_dest = true;
			memcpy(&rx->dest, CMSG_DATA(h), sizeof(rx->dest));
		} else {
			rx->other_cmsgs++;
		}
	}
	return rx->len;
}

static const char *rx_err(void)
{
	return errno == ETIME ? "timed out" : tap_errname(errno);
}

/*
 * Wait for one notice on @fd (a control buffer for one) and store it in
 * @n.  On failure records a failing check named @what.
 */
static bool get_notice(int fd, struct rds_rdma_notify *n, const char *what)
{
	struct rx rx;
	ssize_t r = rx_one(fd, &rx, NOTE_SPACE, WAIT_MS);

	if (r < 0)
		return ok_diag(0, what, "no notice: %s", rx_err());
	if (r != 0 || rx.nnotes != 1)
		return ok_diag(0, what,
			       "recvmsg returned %zd with %u notices (flags 0x%x), expected one notice",
			       r, rx.nnotes, rx.msg_flags);
	*n = rx.notes[0];
	return true;
}

/* One check: the next notice on @fd has @token and @status. */
static __attribute__((format(printf, 4, 5)))
bool expect_notice(int fd, uint64_t token, int status, const char *fmt, ...)
{
	struct rds_rdma_notify n = { 0, 0 };
	char what[256];

	VNAME(what, fmt);

	if (!get_notice(fd, &n, what))
		return false;
	return ok_diag(n.user_token == token && n.status == status, what,
		       "notice token %llu status %d, expected token %llu status %d",
		       (unsigned long long)n.user_token, n.status,
		       (unsigned long long)token, status);
}

/* One check: a message (no notice) arrives on @fd. */
static __attribute__((format(printf, 3, 4)))
bool expect_msg(int fd, struct rx *rx, const char *fmt, ...)
{
	struct rx local;
	char what[256];
	ssize_t r;

	VNAME(what, fmt);

	if (!rx)
		rx = &local;
	r = rx_one(fd, rx, 0, WAIT_MS);
	if (r < 0)
		return ok_diag(0, what, "no message: %s", rx_err());
	return ok_diag(rx->nnotes == 0 && r > 0, what,
		       "recvmsg returned %zd with %u notices, expected a message",
		       r, rx->nnotes);
}

/* One check: nothing arrives on @fd for @ms. */
static __attribute__((format(printf, 3, 4)))
bool expect_quiet(int fd, int ms, const char *fmt, ...)
{
	struct rx rx;
	char what[256];
	ssize_t r;

	VNAME(what, fmt);
	r = rx_one(fd, &rx, 0, ms);

	if (r < 0 && errno == ETIME)
		return ok_diag(1, what, NULL);
	if (r < 0)
		return ok_diag(0, what, "recvmsg: %s", tap_errname(errno));
	return ok_diag(0, what,
		       "got %zd bytes with %u notices (first token %llu status %d)",
		       r, rx.nnotes,
		       rx.nnotes ? (unsigned long long)rx.notes[0].user_token :
				   0ULL,
		       rx.nnotes ? rx.notes[0].status : 0);
}

/*
 * Over IB a failed operation resets the connection.  A message from A that
 * reaches B afterwards travelled on the connection that followed, so what
 * the test sends next does not meet that reset.
 */
static void ib_settle(struct pair *p, int status)
{
	struct rx rx;

	if (!over_ib() || status == RDS_RDMA_SUCCESS)
		return;
	if (send_to(p->a, &p->sb, "sync", 4, 0) == 4)
		rx_one(p->b, &rx, 0, WAIT_MS);
}

/*
 * Run one RDMA from B to A's region with NOTIFY_ME: a failed sendmsg or
 * a missing notice or message are failing checks named @what.  Returns
 * the status, or -1.
 */
/*
 * B sent an operation with @token: wait for its notice and, with @msg,
 * for the message at A.  Returns the status, or -1 after a failing check
 * named @what.
 */
static int op_outcome(struct pair *p, uint64_t token, bool msg,
		      const char *what)
{
	struct rds_rdma_notify n = { 0, 0 };
	struct rx rx;

	if (!get_notice(p->b, &n, what))
		return -1;
	if (n.user_token != token)
		return ok_diag(0, what, "notice token %llu, expected %llu",
			       (unsigned long long)n.user_token,
			       (unsigned long long)token), -1;
	if (msg && rx_one(p->a, &rx, 0, WAIT_MS) < 0)
		return ok_diag(0, what, "A got no message: %s", rx_err()), -1;
	ib_settle(p, n.status);
	return n.status;
}

/* @empty: on an empty message rather than op_payload. */
static int run_rdma_once(struct pair *p, uint64_t cookie, uint64_t raddr,
			 void *local, uint64_t len, uint64_t flags, bool empty,
			 const char *what)
{
	struct rds_iovec lv = { (uintptr_t)local, len };
	struct rds_rdma_args ra;
	struct cm c;

	mk_rdma(&ra, cookie, raddr, len, &lv, 1, flags | RDS_RDMA_NOTIFY_ME);
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	if (send_cm(p->b, &p->sa, empty ? NULL : op_payload,
		    empty ? 0 : sizeof(op_payload) - 1, &c) < 0)
		return ok_diag(0, what, "sendmsg: %s", tap_errname(errno)), -1;
	return op_outcome(p, ra.user_token, !(flags & RDS_RDMA_SILENT), what);
}

/* As run_rdma_once() for an atomic of @type. */
static int run_atomic_once(struct pair *p, int type,
			   struct rds_atomic_args *aa, const char *what)
{
	aa->flags |= RDS_RDMA_NOTIFY_ME;
	if (send_atomic(p->b, &p->sa, type, aa) < 0)
		return ok_diag(0, what, "sendmsg: %s", tap_errname(errno)), -1;
	return op_outcome(p, aa->user_token, true, what);
}

/*
 * Over IB the connection reset that follows a failed operation sometimes
 * takes the next connection with it, and an operation in flight then comes
 * back RDS_RDMA_DROPPED (Documentation/rds_doca.rst): it may not have run,
 * and is never run again by the kernel, so, as an application would, the
 * test sends it once more.  What it did is checked as before.
 */
static bool ib_retry(int status)
{
	return over_ib() && status == RDS_RDMA_DROPPED;
}

static int run_rdma_msg(struct pair *p, uint64_t cookie, uint64_t raddr,
			void *local, uint64_t len, uint64_t flags, bool empty,
			const char *what)
{
	int st = run_rdma_once(p, cookie, raddr, local, len, flags, empty,
			       what);

	if (ib_retry(st))
		st = run_rdma_once(p, cookie, raddr, local, len, flags, empty,
				   what);
	return st;
}

static int run_rdma(struct pair *p, uint64_t cookie, uint64_t raddr,
		    void *local, uint64_t len, uint64_t flags, const char *what)
{
	return run_rdma_msg(p, cookie, raddr, local, len, flags, false, what);
}

static int run_atomic(struct pair *p, int type, struct rds_atomic_args *aa,
		      const char *what)
{
	int st = run_atomic_once(p, type, aa, what);

	if (ib_retry(st))
		st = run_atomic_once(p, type, aa, what);
	return st;
}

static int run_write(struct pair *p, uint64_t cookie, uint64_t raddr,
		     void *local, uint64_t len, const char *what)
{
	return run_rdma(p, cookie, raddr, local, len, RDS_RDMA_READWRITE,
			what);
}

static int run_read(struct pair *p, uint64_t cookie, uint64_t raddr,
		    void *local, uint64_t len, const char *what)
{
	return run_rdma(p, cookie, raddr, local, len, 0, what);
}

/* One check: @len bytes at @p are pattern @seed. */
static __attribute__((format(printf, 4, 5)))
bool check_pattern(const void *p, size_t len, uint32_t seed,
		   const char *fmt, ...)
{
	long bad = pattern_check(p, len, seed);
	char what[256];

	VNAME(what, fmt);

	return ok_diag(bad < 0, what, "byte %ld of %zu differs", bad, len);
}

/* One check: @len bytes at @p are all @c. */
static __attribute__((format(printf, 4, 5)))
bool check_fill(const void *p, size_t len, int c, const char *fmt, ...)
{
	const unsigned char *q = p;
	char what[256];
	size_t i;

	VNAME(what, fmt);

	for (i = 0; i < len; i++)
		if (q[i] != (unsigned char)c)
			break;
	return ok_diag(i == len, what, "byte %zu of %zu is 0x%02x, not 0x%02x",
		       i, len, i < len ? q[i] : 0, c & 0xff);
}

/* ------------------------------------------------------------------ */
/* mr_*: registration                                                  */
/* ------------------------------------------------------------------ */

static void test_mr_errors(void)
{
	struct rds_get_mr_args g;
	uint64_t cookie = 0;
	char *buf = xmap_guarded(4 * PAGE), *big = xmap(2 * MIB);
	void *hole = unmapped_addr();
	int u = -1, b = -1;

	if (!buf || !big)
		goto out;
	u = rds_socket();
	if (!sys_ok(u, "socket"))
		goto out;
	b = bound_socket_at(cfg.addr, 0, "setup: bind");
	if (b < 0)
		goto out;

	memset(&g, 0, sizeof(g));
	g.vec.addr = (uintptr_t)buf;
	g.vec.bytes = 100;
	g.cookie_addr = (uintptr_t)&cookie;

	/* optlen, then the arguments, then the binding */
	is_err(setsockopt(u, SOL_RDS, RDS_GET_MR, &g, sizeof(g) - 1), EINVAL,
	       "unbound, short optlen -> EINVAL (optlen first)");
	is_err(setsockopt(u, SOL_RDS, RDS_GET_MR, NULL, sizeof(g)), EFAULT,
	       "unbound, NULL optval -> EFAULT (before ENOTCONN)");
	is_err(setsockopt(u, SOL_RDS, RDS_GET_MR, &g, sizeof(g)), ENOTCONN,
	       "unbound -> ENOTCONN");
	g.flags = UNKNOWN_FLAG;
	is_err(setsockopt(u, SOL_RDS, RDS_GET_MR, &g, sizeof(g)), ENOTCONN,
	       "unbound with an unknown flag -> ENOTCONN (before flags)");
	g.flags = 0;

	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR, &g, sizeof(g) - 1), EINVAL,
	       "short optlen -> EINVAL");
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR, &g, sizeof(g) + 8), EINVAL,
	       "long optlen -> EINVAL");
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR, &g, 0), EINVAL,
	       "optlen 0 -> EINVAL");
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR, hole, sizeof(g)), EFAULT,
	       "unmapped optval -> EFAULT");

	is_err(get_mr(b, buf, 100, UNKNOWN_FLAG, &cookie), EINVAL,
	       "unknown flag -> EINVAL");
	is_err(get_mr(b, buf, 100, 0x80000000ULL << 32, &cookie), EINVAL,
	       "unknown high flag -> EINVAL");
	is_err(get_mr(b, buf, 0, 0, &cookie), EINVAL, "zero length -> EINVAL");
	is_err(get_mr(b, hole, 0, 0, &cookie), EINVAL,
	       "zero length of unmapped memory -> EINVAL (before EFAULT)");
	is_err(get_mr(b, (void *)(uintptr_t)(~0ULL - 99), 200, 0, &cookie),
	       EINVAL, "wrapping range -> EINVAL");
	is_err(get_mr(b, (void *)(uintptr_t)(~0ULL - 99), 2 * MIB, 0,
		      &cookie), EINVAL,
	       "wrapping range above the limit -> EINVAL (before EMSGSIZE)");
	is_err(get_mr(b, big, RDS_DOCA_MAX_MR_SIZE + 1ULL, 0, &cookie),
	       EMSGSIZE, "RDS_DOCA_MAX_MR_SIZE + 1 -> EMSGSIZE");
	is_err(get_mr(b, big, 2 * MIB, 0, &cookie), EMSGSIZE,
	       "2 MiB -> EMSGSIZE");
	is_err(get_mr(b, hole, RDS_DOCA_MAX_MR_SIZE + 1ULL, 0, &cookie),
	       EMSGSIZE, "too big and unmapped -> EMSGSIZE (before EFAULT)");
	is_err(get_mr(b, hole, 100, 0, &cookie), EFAULT,
	       "unmapped memory -> EFAULT");
	is_err(get_mr(b, buf + 4 * PAGE - 100, 200, 0, &cookie), EFAULT,
	       "range running into an inaccessible page -> EFAULT");
	is_err(get_mr(b, buf, 100, 0, hole), EFAULT,
	       "unmapped cookie_addr -> EFAULT");
	is_eq(cookie, 0, "no cookie written by the failed calls");

	is_ok(get_mr(b, big, RDS_DOCA_MAX_MR_SIZE, 0, &cookie),
	      "RDS_DOCA_MAX_MR_SIZE exactly -> 0");
	ok(cookie != 0, "a cookie was written");
	is_ok(free_mr(b, cookie, 0), "freeing it -> 0");
	cookie = 0;
	is_ok(get_mr(b, buf + 123, 1, 0, &cookie), "1 byte -> 0");
	is_eq(cookie_off(cookie) & (PAGE - 1), 123,
	      "the cookie keeps the page offset of byte 0");
	is_ok(free_mr(b, cookie, 0), "freeing it -> 0");
out:
	if (u >= 0)
		close(u);
	if (b >= 0)
		close(b);
	xunmap(buf, 5 * PAGE);
	xunmap(big, 2 * MIB);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static void test_mr_cookies(void)
{
	enum { CYCLES = 1000 };
	uint64_t c1 = 0, c2 = 0, c, *keys = calloc(CYCLES + 2, sizeof(*keys));
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	unsigned int i, n = 0, fails = 0, dups = 0;
	int st;

	if (!keys || !abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf + 10, 100, 0, &c1), "first GET_MR") ||
	    !is_ok(get_mr(p.a, abuf + 10, 100, 0, &c2), "second GET_MR"))
		goto out;
	ok_diag(cookie_key(c1) != cookie_key(c2),
		"two registrations of one buffer get different keys",
		"cookies 0x%llx and 0x%llx", (unsigned long long)c1,
		(unsigned long long)c2);
	is_eq(cookie_off(c1) & (PAGE - 1), 10, "first cookie, page offset 10");
	is_eq(cookie_off(c2) & (PAGE - 1), 10, "second cookie, page offset 10");
	pattern_fill(bbuf, 100, 1);
	st = run_write(&p, c1, 0, bbuf, 100, "write through the first");
	is_eq(st, RDS_RDMA_SUCCESS, "write through the first cookie");
	memset(bbuf, 0, 100);
	st = run_read(&p, c2, 0, bbuf, 100, "read through the second");
	is_eq(st, RDS_RDMA_SUCCESS, "read through the second cookie");
	check_pattern(bbuf, 100, 1, "read back what was written");
	is_ok(free_mr(p.a, c1, 0), "free the first");
	st = run_read(&p, c2, 0, bbuf, 100, "second after freeing first");
	is_eq(st, RDS_RDMA_SUCCESS,
	      "the second still works after the first is freed");
	is_ok(free_mr(p.a, c2, 0), "free the second");
	keys[n++] = cookie_key(c1);
	keys[n++] = cookie_key(c2);

	for (i = 0; i < CYCLES; i++) {
		c = 0;
		if (get_mr(p.a, abuf, 64, 0, &c) || free_mr(p.a, c, 0)) {
			fails++;
			continue;
		}
		keys[n++] = cookie_key(c);
	}
	is_eq(fails, 0, "1000 register/free cycles succeed");
	qsort(keys, n, sizeof(*keys), cmp_u64);
	for (i = 1; i < n; i++)
		dups += keys[i] == keys[i - 1];
	is_eq(dups, 0, "no key handed out twice in %u registrations", n);
out:
	pair_close(&p);
	free(keys);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

static void test_mr_free(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t c1 = 0, c2 = 0, c3 = 0, cb = 0;
	int st;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, 256, 0, &c1), "GET_MR") ||
	    !is_ok(get_mr(p.b, bbuf, 256, 0, &cb), "GET_MR on B"))
		goto out;
	is_err(free_mr(p.a, cookie_make(cookie_key(c1) ^ 0x40000000, 0), 0),
	       EINVAL, "unknown cookie -> EINVAL");
	is_err(free_mr(p.a, cb, 0), EINVAL, "another socket's cookie -> EINVAL");
	is_ok(free_mr(p.b, cb, 0), "which its owner can still free");
	is_err(free_mr(p.a, c1, RDS_RDMA_USE_ONCE), EINVAL,
	       "flags RDS_RDMA_USE_ONCE -> EINVAL");
	is_err(free_mr(p.a, c1, UNKNOWN_FLAG), EINVAL,
	       "unknown flag -> EINVAL");
	is_err(free_mr(p.a, c1, RDS_RDMA_INVALIDATE | UNKNOWN_FLAG), EINVAL,
	       "RDS_RDMA_INVALIDATE | unknown flag -> EINVAL");
	st = run_write(&p, c1, 0, bbuf, 64, "after refused frees");
	is_eq(st, RDS_RDMA_SUCCESS, "region still usable after refused frees");
	is_ok(free_mr(p.a, cookie_make(cookie_key(c1), 77), 0),
	      "FREE_MR ignores the cookie's offset");
	is_err(free_mr(p.a, c1, 0), EINVAL, "double free -> EINVAL");
	memset(abuf, 0x11, PAGE);
	pattern_fill(bbuf, 64, 3);
	st = run_write(&p, c1, 0, bbuf, 64, "write to a freed region");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "write to a freed region -> RDS_RDMA_REMOTE_ERROR");
	check_fill(abuf, PAGE, 0x11, "freed region's memory unchanged");

	if (!is_ok(get_mr(p.a, abuf, 256, 0, &c2), "GET_MR 2") ||
	    !is_ok(get_mr(p.a, abuf + 1024, 256, RDS_RDMA_INVALIDATE, &c3),
		   "GET_MR 3 with RDS_RDMA_INVALIDATE"))
		goto out;
	is_ok(free_mr(p.a, 0, 0), "cookie 0 without flags -> 0");
	st = run_write(&p, c2, 0, bbuf, 64, "region 2 after cookie 0");
	is_eq(st, RDS_RDMA_SUCCESS, "region 2 still usable after cookie 0");
	st = run_write(&p, c3, 0, bbuf, 64, "region 3 after cookie 0");
	is_eq(st, RDS_RDMA_SUCCESS, "region 3 still usable after cookie 0");
	check_pattern(abuf + 1024, 64, 3, "region 3 written");

	is_ok(free_mr(p.a, 0, RDS_RDMA_INVALIDATE),
	      "cookie 0 with RDS_RDMA_INVALIDATE -> 0");
	memset(abuf, 0x22, PAGE);
	st = run_write(&p, c2, 0, bbuf, 64, "region 2 after invalidate all");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "region 2 freed by cookie 0 + INVALIDATE: RDS_RDMA_REMOTE_ERROR");
	st = run_read(&p, c3, 0, bbuf, 64, "region 3 after invalidate all");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "region 3 freed by cookie 0 + INVALIDATE: RDS_RDMA_REMOTE_ERROR");
	check_fill(abuf, PAGE, 0x22, "freed regions' memory unchanged");
	is_err(free_mr(p.a, c2, 0), EINVAL, "FREE_MR of region 2 -> EINVAL");
	is_err(free_mr(p.a, c3, 0), EINVAL, "FREE_MR of region 3 -> EINVAL");
	is_ok(free_mr(p.a, 0, RDS_RDMA_INVALIDATE),
	      "cookie 0 with RDS_RDMA_INVALIDATE and no regions -> 0");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

/* Drop CAP_IPC_LOCK from the effective set, with the raw system calls. */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	return syscall(SYS_capset, &h, d);
}

enum {
	ML_DROP, ML_RLIMIT, ML_SOCKET,
	ML_16K_FIRST, ML_1MIB, ML_16K_AFTER_ENOMEM, ML_TOOBIG,
	ML_128K_UNMAPPED, ML_48K_AFTER_UNMAPPED,
	ML_BADCOOKIE0, ML_BADCOOKIE1, ML_BADCOOKIE2, ML_BADCOOKIE3,
	ML_48K_AFTER_BADCOOKIE, ML_16K, ML_RETRIES, ML_COUNT
};

static int ml_retries;

/*
 * RDS_GET_MR, retried for up to 2 s while it fails with ENOMEM: a freed
 * region's pages are released (and uncharged) by a work item, so the
 * charge of a region freed just before may still be there.  A charge
 * that is never dropped still fails.
 */
static int get_mr_settled(int fd, const void *addr, uint64_t len,
			  uint64_t *cookie)
{
	long long deadline = now_ms() + 2000;
	int r;

	for (;;) {
		r = get_mr(fd, addr, len, 0, cookie);
		if (r == 0 || errno != ENOMEM || now_ms() > deadline)
			return r;
		ml_retries++;
		sleep_ms(5);
	}
}

/*
 * The child of test_mr_memlock(): errno (0: success) of each step.  Each
 * successful registration but the last is freed at once, so every step
 * starts with nothing pinned.
 */
static void memlock_child(int wfd, char *buf)
{
	struct sockaddr_in sin = sin_make(cfg.addr, 0);
	struct rlimit rl = { 64 * KIB, 64 * KIB };
	int res[ML_COUNT], fd, i;
	uint64_t cookie = 0;

#define STEP(k, expr) (res[k] = (expr) < 0 ? errno : 0)
#define STEP_FREE(k, expr) do {						\
	cookie = 0;							\
	STEP(k, expr);							\
	if (!res[k] && free_mr(fd, cookie, 0))				\
		res[k] = 1000 + errno;					\
} while (0)
	for (i = 0; i < ML_COUNT; i++)
		res[i] = -1;
	STEP(ML_DROP, drop_ipc_lock());
	STEP(ML_RLIMIT, setrlimit(RLIMIT_MEMLOCK, &rl));
	fd = rds_socket();
	STEP(ML_SOCKET, fd < 0 ? -1 :
	     bind(fd, (struct sockaddr *)&sin, sizeof(sin)));
	STEP_FREE(ML_16K_FIRST, get_mr(fd, buf, 16 * KIB, 0, &cookie));
	STEP_FREE(ML_1MIB, get_mr(fd, buf, MIB, 0, &cookie));
	STEP_FREE(ML_16K_AFTER_ENOMEM, get_mr_settled(fd, buf, 16 * KIB,
						      &cookie));
	STEP_FREE(ML_TOOBIG, get_mr(fd, buf, MIB + 1, 0, &cookie));
	STEP_FREE(ML_128K_UNMAPPED, get_mr(fd, unmapped_addr(), 128 * KIB, 0,
					   &cookie));
	STEP_FREE(ML_48K_AFTER_UNMAPPED, get_mr_settled(fd, buf, 48 * KIB,
							&cookie));
	for (i = 0; i < 4; i++)
		STEP_FREE(ML_BADCOOKIE0 + i,
			  get_mr_settled(fd, buf, 32 * KIB, unmapped_addr()));
	STEP_FREE(ML_48K_AFTER_BADCOOKIE, get_mr_settled(fd, buf, 48 * KIB,
							 &cookie));
	STEP(ML_16K, get_mr_settled(fd, buf + 64 * KIB, 16 * KIB, &cookie));
	res[ML_RETRIES] = ml_retries;
#undef STEP_FREE
#undef STEP
	if (write(wfd, res, sizeof(res)) != sizeof(res))
		_exit(3);
	_exit(0);
}

static void test_mr_memlock(void)
{
	char *buf = xmap(MIB + PAGE);
	int pfd[2] = { -1, -1 }, res[ML_COUNT], status = 0;
	ssize_t r;
	pid_t pid;

	if (!buf || !sys_ok(pipe(pfd), "pipe"))
		goto out;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* the child reports through the pipe only, never in TAP */
		close(pfd[0]);
		memlock_child(pfd[1], buf);
	}
	if (!sys_ok(pid, "fork"))
		goto out;
	close(pfd[1]);
	pfd[1] = -1;
	r = read(pfd[0], res, sizeof(res));
	waitpid(pid, &status, 0);
	if (!ok_diag(r == sizeof(res), "child reported",
		     "read %zd, child status 0x%x", r, status))
		goto out;
	/* errno values; 1000 + errno: FREE_MR failed */
	is_eq(res[ML_DROP], 0, "capset: CAP_IPC_LOCK dropped");
	is_eq(res[ML_RLIMIT], 0, "setrlimit(RLIMIT_MEMLOCK, 64 KiB)");
	is_eq(res[ML_SOCKET], 0, "socket and bind");
	is_eq(res[ML_16K_FIRST], 0, "GET_MR of 16 KiB -> 0 (and freed)");
	is_eq(res[ML_1MIB], ENOMEM, "GET_MR of 1 MiB -> ENOMEM");
	is_eq(res[ML_16K_AFTER_ENOMEM], 0,
	      "GET_MR of 16 KiB after the ENOMEM -> 0 (and freed)");
	is_eq(res[ML_TOOBIG], EMSGSIZE,
	      "GET_MR of 1 MiB + 1 -> EMSGSIZE (before ENOMEM)");
	is_eq(res[ML_128K_UNMAPPED], ENOMEM,
	      "GET_MR of 128 KiB unmapped -> ENOMEM (before EFAULT)");
	is_eq(res[ML_48K_AFTER_UNMAPPED], 0,
	      "GET_MR of 48 KiB after that -> 0 (and freed)");
	is_eq(res[ML_BADCOOKIE0], EFAULT,
	      "GET_MR of 32 KiB, bad cookie_addr -> EFAULT");
	is_eq(res[ML_BADCOOKIE1], EFAULT, "again -> EFAULT");
	is_eq(res[ML_BADCOOKIE2], EFAULT,
	      "again -> EFAULT (not ENOMEM: nothing left pinned)");
	is_eq(res[ML_BADCOOKIE3], EFAULT, "again -> EFAULT");
	is_eq(res[ML_48K_AFTER_BADCOOKIE], 0,
	      "GET_MR of 48 KiB after them -> 0 (nothing left charged)");
	is_eq(res[ML_16K], 0, "GET_MR of 16 KiB at the end -> 0");
	if (res[ML_RETRIES])
		tap_diag("mr_memlock: %d ENOMEM retries (5 ms apart) while freed regions' charges were released",
			 res[ML_RETRIES]);
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	xunmap(buf, MIB + PAGE);
}

static void test_mr_for_dest_family(void)
{
	struct rds_get_mr_for_dest_args g;
	char *buf = xmap(PAGE);
	uint64_t cookie = 0;
	int b;

	b = bound_socket_at(cfg.addr, 0, "setup: bind");
	if (!buf || b < 0)
		goto out;
	memset(&g, 0, sizeof(g));
	g.vec.addr = (uintptr_t)buf;
	g.vec.bytes = 100;
	g.cookie_addr = (uintptr_t)&cookie;
	g.dest_addr.ss_family = AF_INET6;
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &g, sizeof(g)),
	       EINVAL, "AF_INET6 dest_addr -> EINVAL");
	g.dest_addr.ss_family = AF_UNSPEC;
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &g, sizeof(g)),
	       EINVAL, "AF_UNSPEC dest_addr -> EINVAL");
	g.dest_addr.ss_family = cfg.family;
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &g, sizeof(g)),
	       EINVAL, "dest_addr of the socket's own family -> EINVAL");
	is_eq(cookie, 0, "no cookie written");
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &g,
			  sizeof(struct rds_get_mr_args)), EINVAL,
	       "optlen of struct rds_get_mr_args -> EINVAL");
	memcpy(&g.dest_addr, &(struct sockaddr_in){ .sin_family = AF_INET,
		.sin_addr = cfg.peer }, sizeof(struct sockaddr_in));
	is_ok(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &g, sizeof(g)),
	      "AF_INET dest_addr -> 0");
	ok(cookie != 0, "cookie written");
	is_ok(free_mr(b, cookie, 0), "FREE_MR of it -> 0");
out:
	if (b >= 0)
		close(b);
	xunmap(buf, PAGE);
}

/* ------------------------------------------------------------------ */
/* rdma_*: reads and writes                                            */
/* ------------------------------------------------------------------ */

static void test_rdma_write_read(void)
{
	static const struct {
		uint64_t size;
		uint64_t region_off;	/* of the region in its page */
		uint64_t raddr;		/* of the operation in the region */
		uint64_t local_off;
	} cases[] = {
		{ 1, 0, 0, 0 },
		{ 1, 4095, 0, 1 },
		{ 1, 7, 3, 0 },
		{ 4096, 0, 0, 0 },
		{ 4096, 1, 0, 3 },
		{ 4096, 100, 13, 5 },
		{ 65536, 0, 0, 0 },
		{ 65536, 4001, 1, 7 },
		{ RDS_DOCA_MAX_RDMA_SIZE, 0, 0, 0 },
		{ RDS_DOCA_MAX_RDMA_SIZE, 5, 0, 11 },
	};
	size_t maplen = RDS_DOCA_MAX_RDMA_SIZE + 4 * PAGE;
	char *abuf = xmap(maplen), *bbuf = xmap(maplen);
	struct pair p = { .a = -1, .b = -1 };
	unsigned int i;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t sz = cases[i].size, raddr = cases[i].raddr;
		uint64_t rlen = sz + raddr;
		char *region = abuf + cases[i].region_off;
		char *local = bbuf + cases[i].local_off;
		uint64_t cookie = 0;
		char n[160];
		int st;

		snprintf(n, sizeof(n),
			 "size %llu, region at page offset %llu, remote addr %llu, local offset %llu",
			 (unsigned long long)sz,
			 (unsigned long long)cases[i].region_off,
			 (unsigned long long)raddr,
			 (unsigned long long)cases[i].local_off);
		memset(abuf, 0x5a, maplen);
		if (!is_ok(get_mr(p.a, region, rlen, 0, &cookie),
			   "%s: GET_MR", n))
			continue;
		pattern_fill(local, sz, i + 1);
		st = run_write(&p, cookie, raddr, local, sz, n);
		is_eq(st, RDS_RDMA_SUCCESS, "%s: write status", n);
		check_pattern(region + raddr, sz, i + 1,
			      "%s: written data in A's region", n);
		check_fill(abuf, region + raddr - abuf, 0x5a,
			   "%s: A's bytes before untouched", n);
		check_fill(region + raddr + sz, 64, 0x5a,
			   "%s: A's bytes after untouched", n);

		pattern_fill(region + raddr, sz, i + 100);
		memset(bbuf, 0xc3, maplen);
		st = run_read(&p, cookie, raddr, local, sz, n);
		is_eq(st, RDS_RDMA_SUCCESS, "%s: read status", n);
		check_pattern(local, sz, i + 100, "%s: read data in B's buffer",
			      n);
		check_fill(bbuf, local - bbuf, 0xc3,
			   "%s: B's bytes before untouched", n);
		check_fill(local + sz, 64, 0xc3,
			   "%s: B's bytes after untouched", n);
		is_ok(free_mr(p.a, cookie, 0), "%s: FREE_MR", n);
	}
out:
	pair_close(&p);
	xunmap(abuf, maplen);
	xunmap(bbuf, maplen);
}

static void test_rdma_iovecs(void)
{
	static const uint64_t sz[3] = { 7, 1001, 3333 };
	const uint64_t total = 7 + 1001 + 3333;
	char *abuf = xmap(2 * PAGE), *bbuf = xmap(4 * PAGE);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_rdma_notify n = { 0, 0 };
	struct rds_iovec lv[3];
	struct rds_rdma_args ra;
	uint64_t cookie = 0, off;
	char *piece[3];
	unsigned int i;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	/* out of order in memory, at odd places */
	piece[0] = bbuf + 3 * PAGE + 5;
	piece[1] = bbuf + 1;
	piece[2] = bbuf + PAGE + 333;
	for (i = 0; i < 3; i++) {
		lv[i].addr = (uintptr_t)piece[i];
		lv[i].bytes = sz[i];
	}
	if (!is_ok(get_mr(p.a, abuf + 3, total + 10, 0, &cookie), "GET_MR"))
		goto out;

	pattern_fill(abuf, 2 * PAGE, 9);
	for (i = 0; i < 3; i++)
		pattern_fill(piece[i], sz[i], 20 + i);
	mk_rdma(&ra, cookie, 5, total, lv, 3,
		RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(p.b, &p.sa, &ra), "write from 3 iovecs: sendmsg");
	if (get_notice(p.b, &n, "write from 3 iovecs: notice"))
		ok_diag(n.status == RDS_RDMA_SUCCESS &&
			n.user_token == ra.user_token,
			"write from 3 iovecs: notice",
			"status %d token %llu", n.status,
			(unsigned long long)n.user_token);
	expect_msg(p.a, NULL, "write from 3 iovecs: A gets the message");
	for (i = 0, off = 3 + 5; i < 3; off += sz[i], i++)
		check_pattern(abuf + off, sz[i], 20 + i,
			      "piece %u (%llu bytes) lands in order", i,
			      (unsigned long long)sz[i]);
	check_pattern(abuf, 8, 9, "bytes before untouched");
	{
		char *want = malloc(2 * PAGE);

		if (want) {
			pattern_fill(want, 2 * PAGE, 9);
			ok(!memcmp(abuf + 8 + total, want + 8 + total,
				   2 * PAGE - 8 - total),
			   "bytes after untouched");
			free(want);
		}
	}

	memset(bbuf, 0, 4 * PAGE);
	pattern_fill(abuf + 8, total, 33);
	mk_rdma(&ra, cookie, 5, total, lv, 3, RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(p.b, &p.sa, &ra), "read into 3 iovecs: sendmsg");
	expect_notice(p.b, ra.user_token, RDS_RDMA_SUCCESS,
		      "read into 3 iovecs: notice");
	expect_msg(p.a, NULL, "read into 3 iovecs: A gets the message");
	{
		char *want = malloc(total);

		if (want) {
			pattern_fill(want, total, 33);
			for (i = 0, off = 0; i < 3; off += sz[i], i++)
				ok_diag(!memcmp(piece[i], want + off, sz[i]),
					"read: piece", "piece %u differs", i);
			free(want);
		}
	}
	check_fill(bbuf + sz[1] + 1, PAGE + 333 - sz[1] - 1, 0,
		   "read: B's bytes between pieces untouched");
out:
	pair_close(&p);
	xunmap(abuf, 2 * PAGE);
	xunmap(bbuf, 4 * PAGE);
}

/*
 * An operation of 1,024 two-byte pieces, each across a page boundary: 2,048
 * page pieces.  The copy engine takes them all; over IB they are more work
 * requests than the send ring holds, so the operation fails alone
 * (RDS_RDMA_OTHER_ERROR, the region untouched) and neither its message
 * nor the next operation on the connection waits for it.
 */
static void test_rdma_many_pieces(void)
{
	const unsigned int nr = RDS_DOCA_MAX_RDMA_IOVECS, total = 2 * nr;
	const int want = over_ib() ? RDS_RDMA_OTHER_ERROR : RDS_RDMA_SUCCESS;
	char *abuf = xmap(PAGE), *bbuf = xmap((nr + 1) * PAGE);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_iovec *lv = calloc(nr, sizeof(*lv));
	struct rds_rdma_args ra;
	uint64_t cookie = 0;
	unsigned int i;
	bool same = true;

	if (!abuf || !bbuf || !lv || !pair_open(&p))
		goto out;
	for (i = 0; i < nr; i++) {
		lv[i].addr = (uintptr_t)(bbuf + (i + 1) * PAGE - 1);
		lv[i].bytes = 2;
		bbuf[(i + 1) * PAGE - 1] = (char)i;
		bbuf[(i + 1) * PAGE] = (char)~i;
	}
	if (!is_ok(get_mr(p.a, abuf, PAGE, 0, &cookie), "GET_MR"))
		goto out;
	memset(abuf, 0x5a, PAGE);
	mk_rdma(&ra, cookie, 0, total, lv, nr,
		RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(p.b, &p.sa, &ra), "write of %u pieces: sendmsg", nr);
	expect_notice(p.b, ra.user_token, want,
		      "write of %u pieces: notice status %d", nr, want);
	expect_msg(p.a, NULL, "write of %u pieces: A gets the message", nr);
	for (i = 0; i < nr; i++)
		same &= abuf[2 * i] == (char)i && abuf[2 * i + 1] == (char)~i;
	if (over_ib())
		check_fill(abuf, PAGE, 0x5a,
			   "write of %u pieces: the region is untouched", nr);
	else
		ok(same, "write of %u pieces: every piece lands in order", nr);

	/* the connection is not held up: a plain write goes through */
	mk_rdma(&ra, cookie, 0, 2, lv, 1,
		RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(p.b, &p.sa, &ra), "then a 2-byte write: sendmsg");
	expect_notice(p.b, ra.user_token, RDS_RDMA_SUCCESS,
		      "then a 2-byte write: notice");
	expect_msg(p.a, NULL, "then a 2-byte write: A gets the message");
	ok(abuf[0] == 0 && abuf[1] == (char)~0,
	   "then a 2-byte write: it lands");
out:
	pair_close(&p);
	free(lv);
	xunmap(abuf, PAGE);
	xunmap(bbuf, (nr + 1) * PAGE);
}

static void test_rdma_visible_on_delivery(void)
{
	enum { ROUNDS = 20, LEN = 65536 };
	char *abuf = xmap(LEN), *bbuf = xmap(LEN);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_iovec lv;
	struct rds_rdma_args ra;
	uint64_t cookie = 0;
	unsigned int i, bad = 0, lost = 0, payload = 0, notes = 0;
	struct rx rx;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, LEN, 0, &cookie), "GET_MR"))
		goto out;
	lv.addr = (uintptr_t)bbuf;
	lv.bytes = LEN;
	for (i = 0; i < ROUNDS; i++) {
		pattern_fill(bbuf, LEN, 500 + i);
		mk_rdma(&ra, cookie, 0, LEN, &lv, 1,
			RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
		if (send_rdma(p.b, &p.sa, &ra) < 0) {
			ok_diag(0, "sendmsg", "round %u: %s", i,
				tap_errname(errno));
			goto out;
		}
		/* A looks at its memory as soon as the message is there */
		if (rx_one(p.a, &rx, 0, WAIT_MS) < 0) {
			lost++;
			continue;
		}
		if (pattern_check(abuf, LEN, 500 + i) >= 0)
			bad++;
		if (rx.len != sizeof(op_payload) - 1 ||
		    memcmp(rx.data, op_payload, rx.len))
			payload++;
		if (rx_one(p.b, &rx, 0, WAIT_MS) == 0 && rx.nnotes == 1 &&
		    rx.notes[0].status == RDS_RDMA_SUCCESS)
			notes++;
	}
	is_eq(lost, 0, "A received all %u messages", ROUNDS);
	is_eq(bad, 0, "the written data was in A's memory when each arrived");
	is_eq(payload, 0, "each message carries its payload");
	is_eq(notes, ROUNDS, "B got a success notice for each");
out:
	pair_close(&p);
	xunmap(abuf, LEN);
	xunmap(bbuf, LEN);
}

static void test_rdma_silent(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_iovec lv = { 0, 512 };
	struct rds_rdma_args ra;
	uint64_t cookie = 0;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, PAGE, 0, &cookie), "GET_MR"))
		goto out;
	lv.addr = (uintptr_t)bbuf;
	pattern_fill(bbuf, 512, 41);
	mk_rdma(&ra, cookie, 100, 512, &lv, 1,
		RDS_RDMA_READWRITE | RDS_RDMA_SILENT | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(p.b, &p.sa, &ra), "silent write: sendmsg");
	expect_notice(p.b, ra.user_token, RDS_RDMA_SUCCESS,
		      "silent write: success notice");
	check_pattern(abuf + 100, 512, 41, "silent write: data landed");
	expect_quiet(p.a, QUIET_WAIT_MS, "silent write: no message reaches A");

	memset(bbuf, 0, PAGE);
	pattern_fill(abuf, PAGE, 42);
	mk_rdma(&ra, cookie, 0, 512, &lv, 1,
		RDS_RDMA_SILENT | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(p.b, &p.sa, &ra), "silent read: sendmsg");
	expect_notice(p.b, ra.user_token, RDS_RDMA_SUCCESS,
		      "silent read: success notice");
	check_pattern(bbuf, 512, 42, "silent read: data read");
	expect_quiet(p.a, QUIET_WAIT_MS, "silent read: no message reaches A");

	/* a plain message afterwards still gets through */
	is_ok(send_to(p.b, &p.sa, "after", 5, 0), "plain send after silent");
	expect_msg(p.a, NULL, "plain message after silent ops arrives");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

/*
 * The refused-input cases also run against net/rds over loopback (--impl
 * rds), where RDMA is not available: there every argument check comes
 * first, and what passes them fails with EOPNOTSUPP.  LX() picks the
 * errno each implementation gives; DIFFERENCES.txt (k) says why they
 * differ where they do.
 */
#define LX(doca, rds)	(cfg.impl_doca ? (doca) : (rds))

/*
 * A cookie for the refused-input cases: a region of @fd's over rds_doca;
 * under net/rds, whose loopback transport registers nothing (EOPNOTSUPP,
 * checked), a made-up one.
 */
static bool refused_cookie(int fd, void *buf, uint64_t len, uint64_t *c)
{
	if (cfg.impl_doca)
		return is_ok(get_mr(fd, buf, len, 0, c), "GET_MR");
	is_err(get_mr(fd, buf, len, 0, c), EOPNOTSUPP,
	       "net/rds loopback: GET_MR -> EOPNOTSUPP");
	*c = 0x4567;	/* key 0x4567, offset 0 */
	return true;
}

static void test_rdma_refused(void)
{
	enum { NV = RDS_DOCA_MAX_RDMA_IOVECS + 1 };
	size_t biglen = 2 * MIB;
	char *abuf = xmap(PAGE), *bbuf = xmap(biglen), *ro = NULL;
	struct rds_iovec *many = calloc(NV, sizeof(*many));
	struct pair p = { .a = -1, .b = -1 };
	struct rds_iovec lv[3];
	struct rds_rdma_args ra, ra2;
	struct rds_atomic_args aa;
	uint64_t cookie = 0, old = 0, one = 1;
	struct cm c;
	unsigned int i;
	const uint64_t F = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME;

	if (!abuf || !bbuf || !many || !pair_open(&p))
		goto out;
	if (!refused_cookie(p.a, abuf, PAGE, &cookie))
		goto out;
	memset(abuf, 0x77, PAGE);
	memset(bbuf, 0x99, biglen);
	lv[0].addr = (uintptr_t)bbuf;
	lv[0].bytes = 64;

	mk_rdma(&ra, cookie, 0, 64, lv, 1, F);
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra) - 8);
	is_err(send_cm(p.b, &p.sa, op_payload, 7, &c), EINVAL,
	       "RDMA_ARGS cmsg too short -> EINVAL");
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, 8);
	is_err(send_cm(p.b, &p.sa, op_payload, 7, &c), EINVAL,
	       "RDMA_ARGS cmsg of 8 bytes -> EINVAL");

	mk_rdma(&ra, cookie, 0, 64, lv, 0, F);
	is_err(send_rdma(p.b, &p.sa, &ra), EINVAL, "nr_local 0 -> EINVAL");

	for (i = 0; i < NV; i++) {
		many[i].addr = (uintptr_t)bbuf + i;
		many[i].bytes = 1;
	}
	mk_rdma(&ra, cookie, 0, NV, many, NV, F);
	is_err(send_rdma(p.b, &p.sa, &ra), EMSGSIZE,
	       "nr_local RDS_DOCA_MAX_RDMA_IOVECS + 1 -> EMSGSIZE");

	mk_rdma(&ra, cookie, 0, 64, unmapped_addr(), 1, F);
	is_err(send_rdma(p.b, &p.sa, &ra), EFAULT,
	       "unmapped local_vec_addr -> EFAULT");

	lv[0].addr = (uintptr_t)bbuf;
	lv[0].bytes = 10;
	lv[1].addr = (uintptr_t)bbuf + 100;
	lv[1].bytes = 0;
	lv[2].addr = (uintptr_t)bbuf + 200;
	lv[2].bytes = 10;
	mk_rdma(&ra, cookie, 0, 20, lv, 3, F);
	is_err(send_rdma(p.b, &p.sa, &ra), EINVAL,
	       "zero-length local iovec -> EINVAL");

	lv[0].addr = ~0ULL - 5;
	lv[0].bytes = 64;
	mk_rdma(&ra, cookie, 0, 64, lv, 1, F);
	is_err(send_rdma(p.b, &p.sa, &ra), EINVAL,
	       "wrapping local iovec -> EINVAL");

	lv[0].addr = (uintptr_t)bbuf;
	lv[0].bytes = 64;
	mk_rdma(&ra, cookie, 0, 65, lv, 1, F);
	is_err(send_rdma(p.b, &p.sa, &ra), LX(EINVAL, EOPNOTSUPP),
	       "local 64 bytes, remote 65 -> %s",
	       LX("EINVAL", "EOPNOTSUPP (net/rds: remote may be longer)"));
	mk_rdma(&ra, cookie, 0, 63, lv, 1, F);
	is_err(send_rdma(p.b, &p.sa, &ra), EINVAL,
	       "local 64 bytes, remote 63 -> EINVAL");

	lv[0].addr = (uintptr_t)bbuf;
	lv[0].bytes = 3 * MIB / 4;
	lv[1].addr = (uintptr_t)bbuf + MIB;
	lv[1].bytes = 3 * MIB / 4;
	mk_rdma(&ra, cookie, 0, 3 * MIB / 2, lv, 2, F);
	is_err(send_rdma(p.b, &p.sa, &ra), EMSGSIZE,
	       "1.5 MiB in two iovecs -> EMSGSIZE");
	lv[0].bytes = RDS_DOCA_MAX_RDMA_SIZE + 1ULL;
	mk_rdma(&ra, cookie, 0, RDS_DOCA_MAX_RDMA_SIZE + 1ULL, lv, 1, F);
	is_err(send_rdma(p.b, &p.sa, &ra), EMSGSIZE,
	       "RDS_DOCA_MAX_RDMA_SIZE + 1 -> EMSGSIZE");

	lv[0].bytes = 64;
	mk_rdma(&ra, cookie, 0, 64, lv, 1, F | UNKNOWN_FLAG);
	is_err(send_rdma(p.b, &p.sa, &ra), LX(EINVAL, EOPNOTSUPP),
	       "unknown flag -> %s",
	       LX("EINVAL", "EOPNOTSUPP (net/rds ignores unknown flags)"));

	lv[0].addr = (uintptr_t)unmapped_addr();
	mk_rdma(&ra, cookie, 0, 64, lv, 1, F);
	is_err(send_rdma(p.b, &p.sa, &ra), EFAULT,
	       "write from unmapped local memory -> EFAULT");
	mk_rdma(&ra, cookie, 0, 64, lv, 1, RDS_RDMA_NOTIFY_ME);
	is_err(send_rdma(p.b, &p.sa, &ra), EFAULT,
	       "read into unmapped local memory -> EFAULT");
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro != MAP_FAILED) {
		lv[0].addr = (uintptr_t)ro;
		mk_rdma(&ra, cookie, 0, 64, lv, 1, RDS_RDMA_NOTIFY_ME);
		is_err(send_rdma(p.b, &p.sa, &ra), EFAULT,
		       "read into read-only local memory -> EFAULT");
	} else {
		ro = NULL;
	}

	lv[0].addr = (uintptr_t)bbuf;
	mk_rdma(&ra, cookie, 0, 64, lv, 1, F);
	mk_rdma(&ra2, cookie, 64, 64, lv, 1, F);
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra2, sizeof(ra2));
	is_err(send_cm(p.b, &p.sa, op_payload, 7, &c), EINVAL,
	       "two RDMA_ARGS in one sendmsg -> EINVAL");

	mk_atomic(&aa, cookie, 0, &old, RDS_RDMA_NOTIFY_ME);
	aa.fadd.add = 1;
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	cm_add(&c, RDS_CMSG_ATOMIC_FADD, &aa, sizeof(aa));
	is_err(send_cm(p.b, &p.sa, op_payload, 7, &c), LX(EINVAL, EOPNOTSUPP),
	       "RDMA_ARGS + ATOMIC_FADD -> %s",
	       LX("EINVAL", "EOPNOTSUPP (net/rds takes both)"));
	cm_init(&c);
	cm_add(&c, RDS_CMSG_ATOMIC_FADD, &aa, sizeof(aa));
	cm_add(&c, RDS_CMSG_ATOMIC_CSWP, &aa, sizeof(aa));
	is_err(send_cm(p.b, &p.sa, op_payload, 7, &c), EINVAL,
	       "ATOMIC_FADD + ATOMIC_CSWP -> EINVAL");

	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	cm_add(&c, 77, &one, sizeof(one));
	is_err(send_cm(p.b, &p.sa, op_payload, 7, &c), EINVAL,
	       "RDMA_ARGS + unknown SOL_RDS type 77 -> EINVAL");
	cm_init(&c);
	cm_add(&c, 77, &one, sizeof(one));
	is_err(send_cm(p.b, &p.sa, op_payload, 7, &c), EINVAL,
	       "unknown SOL_RDS type 77 alone -> EINVAL");
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_STATUS, &one, sizeof(one));
	is_err(send_cm(p.b, &p.sa, op_payload, 7, &c), EINVAL,
	       "receive-only type RDS_CMSG_RDMA_STATUS -> EINVAL");

	/* net/rds: poll() reports POLLIN here with nothing to read */
	if (cfg.impl_doca) {
		expect_quiet(p.b, QUIET_WAIT_MS,
			     "no notice for any refused op");
		expect_quiet(p.a, QUIET_WAIT_MS,
			     "no message from any refused op");
	}
	check_fill(abuf, PAGE, 0x77, "A's memory untouched");
	check_fill(bbuf, biglen, 0x99, "B's memory untouched");

	/* the socket still works */
	lv[0].addr = (uintptr_t)bbuf;
	lv[0].bytes = 64;
	if (cfg.impl_doca)
		is_eq(run_write(&p, cookie, 0, bbuf, 64,
				"a valid write afterwards"),
		      RDS_RDMA_SUCCESS, "a valid write afterwards succeeds");
	else
		is_err(send_rdma(p.b, &p.sa, &ra), EOPNOTSUPP,
		       "net/rds loopback: a valid write -> EOPNOTSUPP");
out:
	pair_close(&p);
	free(many);
	if (ro)
		munmap(ro, PAGE);
	xunmap(abuf, PAGE);
	xunmap(bbuf, biglen);
}

static bool counter_get(int fd, const char *name, uint64_t *val);

/*
 * Over IB the initiating kernel asks the region's kernel for a cookie's
 * device key once per connection (rdma_resolve counts the questions):
 * twenty operations with one cookie ask once, plus once per reset of the
 * connection meanwhile.  Over loopback nothing is asked.
 */
static void test_rdma_resolve_once(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t c = 0, r0 = 0, r1 = 0, n0 = 0, n1 = 0, want;
	int i, good = 0;

	if (!abuf || !bbuf || !pair_open(&p) ||
	    !is_ok(get_mr(p.a, abuf, PAGE, 0, &c), "GET_MR") ||
	    !counter_get(p.a, "rdma_resolve", &r0) ||
	    !counter_get(p.a, "conn_reset", &n0))
		goto out;
	pattern_fill(bbuf, PAGE, 5);
	for (i = 0; i < 20; i++)
		good += run_write(&p, c, 8 * i, bbuf, 8, "a write") ==
			RDS_RDMA_SUCCESS;
	is_eq(good, 20, "20 writes with one cookie succeed");
	if (!counter_get(p.a, "rdma_resolve", &r1) ||
	    !counter_get(p.a, "conn_reset", &n1))
		goto out;
	want = over_ib() ? 1 : 0;
	ok_diag(r1 - r0 >= want && r1 - r0 <= want + (n1 - n0),
		over_ib() ? "the cookie was resolved once" :
			    "loopback resolves nothing",
		"rdma_resolve rose by %llu, conn_reset by %llu",
		(unsigned long long)(r1 - r0), (unsigned long long)(n1 - n0));
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

/* ------------------------------------------------------------------ */
/* remote_*: operations the owner's side refuses                      */
/* ------------------------------------------------------------------ */

/*
 * Every refusal below is made before a device sees the operation: over IB
 * the owner's kernel refuses the cookie, or the initiator's checks the
 * operation against what the owner granted.  The connection the pair
 * shares is never reset (conn_reset stays).
 */
static void test_remote_errors(void)
{
	char *abuf = xmap(2 * PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t c = 0, c2 = 0, c3 = 0, key, resets = 0, resets2 = 0;
	struct rx rx;
	int st;

	if (!abuf || !bbuf || !pair_open(&p) ||
	    !counter_get(p.a, "conn_reset", &resets))
		goto out;
	/* the region: abuf[100, 1100), cookie offset 100 */
	if (!is_ok(get_mr(p.a, abuf + 100, 1000, 0, &c), "GET_MR") ||
	    !is_ok(get_mr(p.a, abuf + 2048, 100, 0, &c2), "GET_MR 2"))
		goto out;
	key = cookie_key(c);
	is_ok(free_mr(p.a, c2, 0), "FREE_MR 2");
	memset(abuf, 0x33, 2 * PAGE);
	pattern_fill(bbuf, PAGE, 61);

#define REFUSED(cookie, raddr, len, write, name) do {			\
	st = run_rdma(&p, cookie, raddr, bbuf, len,			\
		      (write) ? RDS_RDMA_READWRITE : 0, name);		\
	is_eq(st, RDS_RDMA_REMOTE_ERROR, "%s -> RDS_RDMA_REMOTE_ERROR",	\
	      name);							\
	check_fill(abuf, 2 * PAGE, 0x33, "%s: A's memory unchanged", name); \
} while (0)

	REFUSED(cookie_make(key ^ 0x40000000, 100), 0, 16, 1,
		"write with an unknown cookie");
	REFUSED(cookie_make(key ^ 0x40000000, 100), 0, 16, 0,
		"read with an unknown cookie");
	REFUSED(c2, 0, 16, 1, "write with a freed cookie");
	REFUSED(c2, 0, 16, 0, "read with a freed cookie");
	REFUSED(c, 1000 - 8, 16, 1, "write running past the end");
	REFUSED(c, 1000 - 8, 16, 0, "read running past the end");
	REFUSED(c, 1000, 1, 1, "write just past the end");
	REFUSED(c, 5000, 16, 1, "write far past the end");
	REFUSED(c, ~0ULL - 7, 16, 1, "write at a remote address that wraps");
	/* a cookie whose high half was changed names no region */
	REFUSED(cookie_make(key, cookie_off(c) - 50), 0, 16, 1,
		"write before the region (high half 50 lower)");
	REFUSED(cookie_make(key, cookie_off(c) - 50), 40, 16, 0,
		"read straddling the region's start (high half 50 lower)");
	REFUSED(cookie_make(key, cookie_off(c) & ~(PAGE - 1)), 0, 1000, 1,
		"write from the page start (high half at the page)");
	REFUSED(cookie_make(key, cookie_off(c) + 4096), 0, 16, 1,
		"write after the region (high half one page higher)");
	REFUSED(c ^ (1ULL << 63), 0, 16, 1,
		"write with the cookie's top bit flipped");

	/*
	 * A cookie used, then freed: once a message A sends after the free
	 * arrives, B's side has forgotten the region (over IB, MR_REVOKE).
	 */
	if (is_ok(get_mr(p.a, abuf + 2048, 100, 0, &c3), "GET_MR 3")) {
		st = run_write(&p, c3, 0, bbuf, 16, "write to region 3");
		is_eq(st, RDS_RDMA_SUCCESS, "a write to region 3 succeeds");
		is_ok(free_mr(p.a, c3, 0), "FREE_MR 3 after that write");
		memset(abuf, 0x33, 2 * PAGE);
		is_eq(send_to(p.a, &p.sb, "freed", 5, 0), 5,
		      "A tells B of the free");
		ok(rx_one(p.b, &rx, 0, WAIT_MS) == 5, "B hears of it");
		REFUSED(c3, 0, 16, 1, "write with a cookie freed after use");
		REFUSED(c3, 0, 16, 0, "read with a cookie freed after use");
	}
#undef REFUSED

	st = run_write(&p, c, 0, bbuf, 16, "region byte 0");
	is_eq(st, RDS_RDMA_SUCCESS, "write at remote address 0 succeeds");
	check_pattern(abuf + 100, 16, 61, "it landed at the region's start");
	st = run_write(&p, c, 999, bbuf, 1, "last byte");
	is_eq(st, RDS_RDMA_SUCCESS, "write of the region's last byte succeeds");
	ok(abuf[1099] == bbuf[0] && (unsigned char)abuf[1100] == 0x33,
	   "last byte written, the one after untouched");
	if (counter_get(p.a, "conn_reset", &resets2))
		ok_diag(resets2 == resets, "no refusal reset the connection",
			"conn_reset rose by %llu",
			(unsigned long long)(resets2 - resets));
out:
	pair_close(&p);
	xunmap(abuf, 2 * PAGE);
	xunmap(bbuf, PAGE);
}

static void test_remote_read_only(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t c = 0;
	int st;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, 512, RDS_DOCA_MR_REMOTE_READ_ONLY, &c),
		   "GET_MR with RDS_DOCA_MR_REMOTE_READ_ONLY"))
		goto out;
	pattern_fill(abuf, PAGE, 71);
	pattern_fill(bbuf, PAGE, 72);
	st = run_write(&p, c, 0, bbuf, 64, "write into a read-only region");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "write into a read-only region -> RDS_RDMA_REMOTE_ERROR");
	check_pattern(abuf, PAGE, 71, "read-only region unchanged");
	memset(bbuf, 0, PAGE);
	st = run_read(&p, c, 0, bbuf, 512, "read of a read-only region");
	is_eq(st, RDS_RDMA_SUCCESS, "read of a read-only region succeeds");
	check_pattern(bbuf, 512, 71, "read returns the region's bytes");
	is_ok(free_mr(p.a, c, 0), "FREE_MR");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

static void test_remote_for_dest(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 }, q = { .a = -1, .b = -1 };
	struct sockaddr_in d;
	struct in_addr other;
	uint64_t c = 0;
	int cfd = -1, st;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	cfd = bound_socket_at(cfg.peer, 0, "setup: bind C");
	if (cfd < 0)
		goto out;
	/* C: a second initiator on another port of B's address */
	q = p;
	q.b = cfd;
	q.sb = sock_addr(cfd);
	memset(abuf, 0x44, PAGE);
	pattern_fill(bbuf, PAGE, 81);

	d = q.sb;
	if (!is_ok(get_mr_dest(p.a, &d, abuf, 256, 0, &c),
		   "GET_MR_FOR_DEST naming C's port"))
		goto out;
	st = run_write(&p, c, 0, bbuf, 64, "write from B");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "write from B (another port) -> RDS_RDMA_REMOTE_ERROR");
	check_fill(abuf, PAGE, 0x44, "A's memory unchanged");
	st = run_read(&p, c, 0, bbuf, 64, "read from B");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "read from B (another port) -> RDS_RDMA_REMOTE_ERROR");
	st = run_write(&q, c, 0, bbuf, 64, "write from C");
	is_eq(st, RDS_RDMA_SUCCESS, "write from C (the named port) succeeds");
	check_pattern(abuf, 64, 81, "C's write landed");
	is_ok(free_mr(p.a, c, 0), "FREE_MR");

	d.sin_port = 0;
	memset(abuf, 0x44, PAGE);
	if (!is_ok(get_mr_dest(p.a, &d, abuf, 256, 0, &c),
		   "GET_MR_FOR_DEST naming B's address, port 0"))
		goto out;
	st = run_write(&p, c, 0, bbuf, 64, "port 0: write from B");
	is_eq(st, RDS_RDMA_SUCCESS, "port 0: write from B succeeds");
	st = run_write(&q, c, 64, bbuf, 64, "port 0: write from C");
	is_eq(st, RDS_RDMA_SUCCESS, "port 0: write from C succeeds");
	is_ok(free_mr(p.a, c, 0), "FREE_MR");

	other.s_addr = htonl(ntohl(cfg.peer.s_addr) ^ 0x3);
	d = sin_make(other, ntohs(p.sb.sin_port));
	memset(abuf, 0x44, PAGE);
	if (!is_ok(get_mr_dest(p.a, &d, abuf, 256, 0, &c),
		   "GET_MR_FOR_DEST naming another address, B's port"))
		goto out;
	st = run_write(&p, c, 0, bbuf, 64, "another address: write from B");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "another address: write from B -> RDS_RDMA_REMOTE_ERROR");
	check_fill(abuf, PAGE, 0x44, "A's memory unchanged");
	is_ok(free_mr(p.a, c, 0), "FREE_MR");
out:
	if (cfd >= 0)
		close(cfd);
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

static void test_remote_use_once(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t c = 0;
	int st;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, 256, RDS_RDMA_USE_ONCE, &c),
		   "GET_MR with RDS_RDMA_USE_ONCE"))
		goto out;
	pattern_fill(bbuf, PAGE, 91);
	st = run_write(&p, c, 0, bbuf, 64, "first write");
	is_eq(st, RDS_RDMA_SUCCESS, "first write succeeds");
	check_pattern(abuf, 64, 91, "first write landed");
	memset(abuf, 0x55, PAGE);
	st = run_write(&p, c, 0, bbuf, 64, "second write");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "second write -> RDS_RDMA_REMOTE_ERROR");
	check_fill(abuf, PAGE, 0x55, "second write did not land");
	is_err(free_mr(p.a, c, 0), EINVAL, "FREE_MR of the used region -> EINVAL");

	if (!is_ok(get_mr(p.a, abuf, 256, RDS_RDMA_USE_ONCE, &c),
		   "GET_MR with RDS_RDMA_USE_ONCE again"))
		goto out;
	st = run_read(&p, c, 0, bbuf, 64, "first read");
	is_eq(st, RDS_RDMA_SUCCESS, "first read succeeds");
	check_fill(bbuf, 64, 0x55, "first read got the region's bytes");
	st = run_read(&p, c, 0, bbuf, 64, "second read");
	is_eq(st, RDS_RDMA_REMOTE_ERROR, "second read -> RDS_RDMA_REMOTE_ERROR");
	is_err(free_mr(p.a, c, 0), EINVAL, "FREE_MR of the used region -> EINVAL");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

/*
 * Read counter @name of the namespace of @fd from RDS_INFO_COUNTERS into
 * @val.  On failure records a failing check named after it.
 */
static bool counter_get(int fd, const char *name, uint64_t *val)
{
	return counter_read(fd, name, val) ||
	       ok_diag(0, "RDS_INFO_COUNTERS", "no counter %s", name);
}

/*
 * An RDS_RDMA_SILENT operation on an empty message is all that goes: no
 * message follows it to A (xmit_op_only counts it), so, as in Linux, it
 * does not use up a RDS_RDMA_USE_ONCE region.  With RDS_RDMA_FENCE a
 * message goes, and does.
 */
static void test_silent_use_once(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t c = 0, n0 = 0, n1 = 0;
	int st, i;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, 256, RDS_RDMA_USE_ONCE, &c),
		   "GET_MR with RDS_RDMA_USE_ONCE") ||
	    !counter_get(p.b, "xmit_op_only", &n0))
		goto out;
	for (i = 0; i < 3; i++) {
		pattern_fill(bbuf, 64, 60 + i);
		st = run_rdma_msg(&p, c, 0, bbuf, 64,
				  RDS_RDMA_READWRITE | RDS_RDMA_SILENT, true,
				  "silent write");
		is_eq(st, RDS_RDMA_SUCCESS, "silent write %d succeeds", i + 1);
		check_pattern(abuf, 64, 60 + i, "silent write %d landed", i + 1);
	}
	st = run_rdma_msg(&p, c, 0, bbuf, 64, RDS_RDMA_SILENT, true,
			  "silent read");
	is_eq(st, RDS_RDMA_SUCCESS, "silent read succeeds");
	check_pattern(bbuf, 64, 62, "silent read got the region's bytes");
	if (counter_get(p.b, "xmit_op_only", &n1))
		is_eq((long long)(n1 - n0), 4LL,
		      "xmit_op_only counts the four operations");
	/* what a message of theirs would have done comes before this one */
	is_eq(send_to(p.b, &p.sa, "after", 5, 0), 5, "plain send after them");
	expect_msg(p.a, NULL, "plain message after silent operations arrives");
	is_ok(free_mr(p.a, c, 0),
	      "FREE_MR: silent operations did not use the region up");

	if (!is_ok(get_mr(p.a, abuf, 256, RDS_RDMA_USE_ONCE, &c),
		   "GET_MR with RDS_RDMA_USE_ONCE again"))
		goto out;
	st = run_rdma_msg(&p, c, 0, bbuf, 64,
			  RDS_RDMA_READWRITE | RDS_RDMA_SILENT | RDS_RDMA_FENCE,
			  true, "silent fenced write");
	is_eq(st, RDS_RDMA_SUCCESS, "silent fenced write succeeds");
	is_eq(send_to(p.b, &p.sa, "after", 5, 0), 5, "plain send after it");
	expect_msg(p.a, NULL, "plain message after the fenced write arrives");
	is_err(free_mr(p.a, c, 0), EINVAL,
	       "FREE_MR: the fenced write's message used the region up");
	if (counter_get(p.b, "xmit_op_only", &n0))
		is_eq((long long)(n0 - n1), 0LL,
		      "xmit_op_only does not count the fenced write");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

/* ------------------------------------------------------------------ */
/* notify_*: completion notices                                        */
/* ------------------------------------------------------------------ */

static void test_notify_tokens(void)
{
	enum { OPS = 50 };
	uint64_t first, cookie = 0;
	unsigned int seen[OPS], got = 0, extra = 0, bad = 0, i, j;
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_rdma_args ra;
	struct rds_iovec lv;
	struct rx rx;

	memset(seen, 0, sizeof(seen));
	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, PAGE, 0, &cookie), "GET_MR"))
		goto out;
	first = next_token;
	for (i = 0; i < OPS; i++) {
		lv.addr = (uintptr_t)bbuf + i;
		lv.bytes = 16;
		mk_rdma(&ra, cookie, i * 8, 16, &lv, 1,
			RDS_RDMA_NOTIFY_ME | (i & 1 ? RDS_RDMA_READWRITE : 0));
		if (send_rdma(p.b, &p.sa, &ra) < 0)
			break;
	}
	if (!ok_diag(i == OPS, "sendmsg of 50 ops with NOTIFY_ME",
		     "op %u: %s", i, tap_errname(errno)))
		goto out;
	while (got < OPS) {
		if (rx_one(p.b, &rx, 0, WAIT_MS) < 0)
			break;
		for (j = 0; j < rx.nnotes && j < 256; j++) {
			uint64_t t = rx.notes[j].user_token - first;

			if (t >= OPS) {
				extra++;
				continue;
			}
			if (rx.notes[j].status != RDS_RDMA_SUCCESS)
				bad++;
			seen[t]++;
			got++;
		}
		if (!rx.nnotes)
			extra++;
	}
	is_eq(got, OPS, "50 notices collected");
	for (i = 0, j = 0; i < OPS; i++)
		j += seen[i] == 1;
	is_eq(j, OPS, "every token seen exactly once");
	is_eq(bad, 0, "every status is RDS_RDMA_SUCCESS");
	is_eq(extra, 0, "no unexpected tokens or messages");
	expect_quiet(p.b, QUIET_WAIT_MS, "no further notice");
	for (i = 0; i < OPS; i++)
		if (rx_one(p.a, &rx, 0, WAIT_MS) < 0 || rx.nnotes)
			break;
	is_eq(i, OPS, "A received the 50 messages");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

/* Send a write of @len bytes without waiting; returns its token or 0. */
static uint64_t send_write(struct pair *p, uint64_t cookie, uint64_t raddr,
			   void *local, uint64_t len, uint64_t flags)
{
	struct rds_iovec lv = { (uintptr_t)local, len };
	struct rds_rdma_args ra;

	mk_rdma(&ra, cookie, raddr, len, &lv, 1, RDS_RDMA_READWRITE | flags);
	if (send_rdma(p->b, &p->sa, &ra) < 0) {
		ok_diag(0, "sendmsg", "%s", tap_errname(errno));
		return 0;
	}
	return ra.user_token;
}

static void test_notify_none_on_success(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_atomic_args aa;
	uint64_t c = 0, old = 0;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, PAGE, 0, &c), "GET_MR"))
		goto out;
	pattern_fill(bbuf, 128, 3);
	if (!send_write(&p, c, 0, bbuf, 128, 0))
		goto out;
	expect_msg(p.a, NULL, "A gets the message");
	check_pattern(abuf, 128, 3, "the write landed");
	expect_quiet(p.b, QUIET_WAIT_MS, "no notice without NOTIFY_ME");

	is_ok(set_int(p.b, SOL_RDS, RDS_RECVERR, 1), "RDS_RECVERR on");
	pattern_fill(bbuf, 128, 4);
	if (!send_write(&p, c, 0, bbuf, 128, 0))
		goto out;
	expect_msg(p.a, NULL, "A gets the message");
	check_pattern(abuf, 128, 4, "the write landed");
	expect_quiet(p.b, QUIET_WAIT_MS,
		     "RDS_RECVERR: still no notice for a success");

	mk_atomic(&aa, c, 256, &old, 0);
	aa.fadd.add = 1;
	is_ok(send_atomic(p.b, &p.sa, RDS_CMSG_ATOMIC_FADD, &aa),
	      "fetch-add without NOTIFY_ME");
	expect_msg(p.a, NULL, "A gets the message");
	expect_quiet(p.b, QUIET_WAIT_MS, "no notice for a successful atomic");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

static void test_notify_recverr(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_atomic_args aa;
	uint64_t c = 0, t, old = 0;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, 256, 0, &c), "GET_MR"))
		goto out;
	/* past the end: a failure */
	if (!send_write(&p, c, 250, bbuf, 16, 0))
		goto out;
	expect_msg(p.a, NULL, "failed op without NOTIFY_ME: A gets the message");
	expect_quiet(p.b, QUIET_WAIT_MS,
		     "failure without NOTIFY_ME or RDS_RECVERR: no notice");

	is_ok(set_int(p.b, SOL_RDS, RDS_RECVERR, 1), "RDS_RECVERR on");
	t = send_write(&p, c, 250, bbuf, 16, 0);
	if (!t)
		goto out;
	expect_notice(p.b, t, RDS_RDMA_REMOTE_ERROR,
		      "failure with RDS_RECVERR: RDS_RDMA_REMOTE_ERROR notice");
	expect_msg(p.a, NULL, "A gets the message");
	expect_quiet(p.b, QUIET_WAIT_MS, "only one notice");

	t = send_write(&p, c, 250, bbuf, 16, RDS_RDMA_NOTIFY_ME);
	if (!t)
		goto out;
	expect_notice(p.b, t, RDS_RDMA_REMOTE_ERROR,
		      "failure with RDS_RECVERR and NOTIFY_ME: a notice");
	expect_msg(p.a, NULL, "A gets the message");
	expect_quiet(p.b, QUIET_WAIT_MS, "only one notice for both reasons");

	mk_atomic(&aa, c, 256, &old, 0);
	aa.fadd.add = 1;
	is_ok(send_atomic(p.b, &p.sa, RDS_CMSG_ATOMIC_FADD, &aa),
	      "failing fetch-add without NOTIFY_ME");
	expect_notice(p.b, aa.user_token, RDS_RDMA_REMOTE_ERROR,
		      "failed atomic with RDS_RECVERR: a notice");
	expect_msg(p.a, NULL, "A gets the message");

	is_ok(set_int(p.b, SOL_RDS, RDS_RECVERR, 0), "RDS_RECVERR off");
	if (!send_write(&p, c, 250, bbuf, 16, 0))
		goto out;
	expect_msg(p.a, NULL, "A gets the message");
	expect_quiet(p.b, QUIET_WAIT_MS,
		     "RDS_RECVERR off again: no notice for a failure");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

static void test_notify_one_per_recv(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t c = 0, t[3];
	unsigned int i, j, found;
	struct rx rx;
	ssize_t r;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, PAGE, 0, &c), "GET_MR"))
		goto out;
	for (i = 0; i < 3; i++) {
		t[i] = send_write(&p, c, i * 64, bbuf, 64, RDS_RDMA_NOTIFY_ME);
		if (!t[i])
			goto out;
	}
	for (i = 0; i < 3; i++)
		expect_msg(p.a, NULL, "A gets message %u", i + 1);
	sleep_ms(50);
	found = 0;
	for (i = 0; i < 3; i++) {
		r = rx_one(p.b, &rx, NOTE_SPACE, WAIT_MS);
		if (!ok_diag(r == 0 && rx.nnotes == 1 &&
			     !(rx.msg_flags & MSG_CTRUNC),
			     "recvmsg with room for one notice returns one",
			     "call %u: returned %zd (%s), %u notices, flags 0x%x",
			     i + 1, r, r < 0 ? rx_err() : "-", rx.nnotes,
			     rx.msg_flags))
			continue;
		for (j = 0; j < 3; j++)
			if (rx.notes[0].user_token == t[j] &&
			    rx.notes[0].status == RDS_RDMA_SUCCESS)
				found |= 1u << j;
	}
	is_eq(found, 7, "the three calls return the three notices");
	expect_quiet(p.b, QUIET_WAIT_MS, "nothing more");

	/* room for two of three */
	for (i = 0; i < 3; i++)
		t[i] = send_write(&p, c, i * 64, bbuf, 64, RDS_RDMA_NOTIFY_ME);
	for (i = 0; i < 3; i++)
		expect_msg(p.a, NULL, "A gets message %u", i + 1);
	sleep_ms(50);
	r = rx_one(p.b, &rx, 2 * NOTE_SPACE, WAIT_MS);
	ok_diag(r == 0 && rx.nnotes == 2, "room for two: two notices",
		"returned %zd, %u notices, flags 0x%x", r, rx.nnotes,
		rx.msg_flags);
	r = rx_one(p.b, &rx, 2 * NOTE_SPACE, WAIT_MS);
	ok_diag(r == 0 && rx.nnotes == 1, "then the third",
		"returned %zd, %u notices, flags 0x%x", r, rx.nnotes,
		rx.msg_flags);
	expect_quiet(p.b, QUIET_WAIT_MS, "nothing more");

	/* no room: MSG_CTRUNC, and that notice is gone */
	for (i = 0; i < 2; i++)
		t[i] = send_write(&p, c, i * 64, bbuf, 64, RDS_RDMA_NOTIFY_ME);
	for (i = 0; i < 2; i++)
		expect_msg(p.a, NULL, "A gets message %u", i + 1);
	sleep_ms(50);
	r = rx_one(p.b, &rx, CMSG_LEN(sizeof(struct rds_rdma_notify)) - 4,
		   WAIT_MS);
	ok_diag(r == 0 && rx.nnotes == 0 && (rx.msg_flags & MSG_CTRUNC),
		"control buffer too small: returns 0 with MSG_CTRUNC",
		"returned %zd (%s), %u notices, flags 0x%x", r,
		r < 0 ? rx_err() : "-", rx.nnotes, rx.msg_flags);
	r = rx_one(p.b, &rx, NOTE_SPACE, WAIT_MS);
	ok_diag(r == 0 && rx.nnotes == 1 &&
		(rx.notes[0].user_token == t[0] ||
		 rx.notes[0].user_token == t[1]),
		"the next call returns the other notice",
		"returned %zd, %u notices", r, rx.nnotes);
	expect_quiet(p.b, QUIET_WAIT_MS, "the truncated notice is gone");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

/* ------------------------------------------------------------------ */
/* dest_*: passing cookies                                             */
/* ------------------------------------------------------------------ */

/* A sends a message with @c to B. */
static ssize_t send_a_to_b(struct pair *p, const struct cm *c)
{
	static const char msg[] = "cookie";

	return send_cm(p->a, &p->sb, msg, sizeof(msg) - 1, c);
}

static void test_dest_live(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t c = 0;
	struct cm cm;
	struct rx rx;
	int st;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf + 8, 512, 0, &c), "GET_MR"))
		goto out;
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &c, sizeof(c));
	is_ok(send_a_to_b(&p, &cm), "sendmsg with RDS_CMSG_RDMA_DEST");
	if (expect_msg(p.b, &rx, "B gets the message")) {
		ok_diag(rx.has_dest && rx.dest == c,
			"B gets the cookie in RDS_CMSG_RDMA_DEST",
			"has_dest %d, 0x%llx, expected 0x%llx", rx.has_dest,
			(unsigned long long)rx.dest, (unsigned long long)c);
		ok(rx.len == 6 && !memcmp(rx.data, "cookie", 6),
		   "with its payload");
	}
	pattern_fill(bbuf, 64, 101);
	st = run_write(&p, rx.dest, 0, bbuf, 64, "write through it");
	is_eq(st, RDS_RDMA_SUCCESS, "a write through the received cookie");
	check_pattern(abuf + 8, 64, 101, "it landed");
	/* a plain message carries no cookie */
	is_ok(send_to(p.a, &p.sb, "x", 1, 0), "plain message");
	if (expect_msg(p.b, &rx, "B gets it"))
		ok(!rx.has_dest, "a plain message carries no RDMA_DEST");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

static void test_dest_refused(void)
{
	char *abuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t c = 0, cb = 0, cf = 0, zero = 0;
	uint32_t small = 1;
	struct cm cm;

	if (!abuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, 512, 0, &c), "GET_MR") ||
	    !is_ok(get_mr(p.b, abuf, 512, 0, &cb), "GET_MR on B") ||
	    !is_ok(get_mr(p.a, abuf, 512, 0, &cf), "GET_MR to free") ||
	    !is_ok(free_mr(p.a, cf, 0), "FREE_MR"))
		goto out;
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &cb, sizeof(cb));
	is_err(send_a_to_b(&p, &cm), EINVAL, "another socket's cookie -> EINVAL");
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &cf, sizeof(cf));
	is_err(send_a_to_b(&p, &cm), EINVAL, "a freed cookie -> EINVAL");
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &zero, sizeof(zero));
	is_err(send_a_to_b(&p, &cm), EINVAL, "cookie 0 -> EINVAL");
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &small, sizeof(small));
	is_err(send_a_to_b(&p, &cm), EINVAL, "4-byte RDMA_DEST -> EINVAL");
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &c, sizeof(c));
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &c, sizeof(c));
	is_err(send_a_to_b(&p, &cm), EINVAL, "two RDMA_DEST -> EINVAL");
	expect_quiet(p.b, QUIET_WAIT_MS, "nothing reaches B");
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &c, sizeof(c));
	is_ok(send_a_to_b(&p, &cm), "A's own live cookie -> sent");
	expect_msg(p.b, NULL, "and received");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
}

static void test_dest_map(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_get_mr_args g;
	uint64_t c = 0, c2 = 0;
	struct cm cm;
	struct rx rx;
	int st;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	memset(&g, 0, sizeof(g));
	g.vec.addr = (uintptr_t)abuf + 200;
	g.vec.bytes = 1000;
	g.cookie_addr = (uintptr_t)&c;
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_MAP, &g, sizeof(g));
	is_ok(send_a_to_b(&p, &cm), "sendmsg with RDS_CMSG_RDMA_MAP");
	ok(c != 0, "cookie written to cookie_addr");
	is_eq(cookie_off(c) & (PAGE - 1), 200, "cookie page offset 200");
	memset(&rx, 0, sizeof(rx));
	if (expect_msg(p.b, &rx, "B gets the message"))
		ok_diag(rx.has_dest && rx.dest == c,
			"B gets the cookie in RDS_CMSG_RDMA_DEST",
			"has_dest %d, 0x%llx, expected 0x%llx", rx.has_dest,
			(unsigned long long)rx.dest, (unsigned long long)c);
	pattern_fill(bbuf, 100, 111);
	st = run_write(&p, c, 900, bbuf, 100, "write through it");
	is_eq(st, RDS_RDMA_SUCCESS, "a write through the mapped cookie");
	check_pattern(abuf + 1100, 100, 111, "it landed");

	g.cookie_addr = (uintptr_t)&c2;
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_MAP, &g, sizeof(g));
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &c, sizeof(c));
	is_err(send_a_to_b(&p, &cm), EINVAL, "RDMA_MAP + RDMA_DEST -> EINVAL");
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &c, sizeof(c));
	cm_add(&cm, RDS_CMSG_RDMA_MAP, &g, sizeof(g));
	is_err(send_a_to_b(&p, &cm), EINVAL, "RDMA_DEST + RDMA_MAP -> EINVAL");
	g.vec.bytes = 0;
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_MAP, &g, sizeof(g));
	is_err(send_a_to_b(&p, &cm), EINVAL, "RDMA_MAP of 0 bytes -> EINVAL");
	g.vec.bytes = 100;
	g.cookie_addr = (uintptr_t)unmapped_addr();
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_MAP, &g, sizeof(g));
	is_err(send_a_to_b(&p, &cm), EFAULT,
	       "RDMA_MAP with an unmapped cookie_addr -> EFAULT");
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_MAP, &g, sizeof(g) - 8);
	is_err(send_a_to_b(&p, &cm), EINVAL, "short RDMA_MAP -> EINVAL");
	expect_quiet(p.b, QUIET_WAIT_MS, "nothing reaches B");
	is_ok(free_mr(p.a, c, 0), "FREE_MR of the mapped region");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

/* ------------------------------------------------------------------ */
/* atomic_*: the four atomics                                          */
/* ------------------------------------------------------------------ */

static uint64_t masked_cswp_ref(uint64_t old, uint64_t cmp, uint64_t swap,
				uint64_t cmp_mask, uint64_t swap_mask)
{
	if (((old ^ cmp) & cmp_mask) == 0)
		return (old & ~swap_mask) | (swap & swap_mask);
	return old;
}

static uint64_t masked_fadd_ref(uint64_t old, uint64_t add,
				uint64_t nocarry)
{
	uint64_t res = 0, carry = 0, s;
	int i;

	for (i = 0; i < 64; i++) {
		s = ((old >> i) & 1) + ((add >> i) & 1) + carry;
		res |= (s & 1) << i;
		carry = s >> 1;
		if ((nocarry >> i) & 1)
			carry = 0;
	}
	return res;
}

static uint64_t rnd64(uint32_t *s)
{
	uint64_t hi = xs32(s);

	return hi << 32 | xs32(s);
}

/* A region of 4 words at @words (8-aligned), and an aligned old-value slot. */
struct atomic_env {
	struct pair p;
	uint64_t *words;	/* A's */
	uint64_t *old;		/* B's */
	uint64_t cookie;
	char *abuf, *bbuf;
};

static bool atomic_env_open(struct atomic_env *e, uint64_t flags)
{
	memset(e, 0, sizeof(*e));
	e->p.a = e->p.b = -1;
	e->abuf = xmap(PAGE);
	e->bbuf = xmap(PAGE);
	if (!e->abuf || !e->bbuf || !pair_open(&e->p))
		return false;
	e->words = (uint64_t *)(e->abuf + 64);
	e->old = (uint64_t *)(e->bbuf + 128);
	return is_ok(get_mr(e->p.a, e->words, 32, flags, &e->cookie),
		     "GET_MR of 4 words");
}

static void atomic_env_close(struct atomic_env *e)
{
	pair_close(&e->p);
	xunmap(e->abuf, PAGE);
	xunmap(e->bbuf, PAGE);
}

/* Over IB: masked atomics are refused, and nothing reaches the region. */
static bool masked_refused_over_ib(int type)
{
	struct rds_atomic_args aa;
	struct atomic_env e;

	if (!over_ib())
		return false;
	if (atomic_env_open(&e, 0)) {
		e.words[0] = 0x1234;
		mk_atomic(&aa, e.cookie, 0, e.old, RDS_RDMA_NOTIFY_ME);
		aa.m_fadd.add = 1;
		aa.m_cswp.compare_mask = ~0ULL;
		aa.m_cswp.swap_mask = ~0ULL;
		is_err(send_atomic(e.p.b, &e.p.sa, type, &aa), EOPNOTSUPP,
		       "type %d over IB -> EOPNOTSUPP (no masked atomics)",
		       type);
		expect_quiet(e.p.b, QUIET_WAIT_MS,
			     "no notice for the refused atomic");
		ok(e.words[0] == 0x1234, "the word is unchanged");
	}
	atomic_env_close(&e);
	return true;
}

/*
 * Run one atomic of @type on word @idx and check its status, the old value
 * at local_addr and the new value.
 */
static void atomic_case(struct atomic_env *e, int type,
			struct rds_atomic_args *aa, unsigned int idx,
			uint64_t before, uint64_t after, const char *what)
{
	int st;

	e->words[idx] = before;
	*e->old = 0xdeadbeefdeadbeefULL;
	aa->cookie = e->cookie;
	aa->remote_addr = idx * 8;
	aa->local_addr = (uintptr_t)e->old;
	aa->user_token = next_token++;
	st = run_atomic(&e->p, type, aa, what);
	if (st < 0)
		return;
	ok_diag(st == RDS_RDMA_SUCCESS && *e->old == before &&
		e->words[idx] == after, what,
		"status %d, old 0x%llx (expected 0x%llx), word 0x%llx (expected 0x%llx)",
		st, (unsigned long long)*e->old, (unsigned long long)before,
		(unsigned long long)e->words[idx],
		(unsigned long long)after);
}

static void test_atomic_fadd(void)
{
	struct rds_atomic_args aa;
	struct atomic_env e;

	if (!atomic_env_open(&e, 0))
		goto out;
	e.words[0] = e.words[2] = 0x1111111111111111ULL;
	memset(&aa, 0, sizeof(aa));
	aa.fadd.add = 5;
	atomic_case(&e, RDS_CMSG_ATOMIC_FADD, &aa, 1, 10, 15, "10 + 5 = 15");
	ok(e.words[0] == 0x1111111111111111ULL &&
	   e.words[2] == 0x1111111111111111ULL, "neighbouring words untouched");
	aa.fadd.add = ~0ULL;
	atomic_case(&e, RDS_CMSG_ATOMIC_FADD, &aa, 1, 15, 14, "15 + (-1) = 14");
	aa.fadd.add = 2;
	atomic_case(&e, RDS_CMSG_ATOMIC_FADD, &aa, 3, ~0ULL, 1,
		    "~0 + 2 wraps to 1 (last word)");
	aa.fadd.add = 0x100000000ULL;
	atomic_case(&e, RDS_CMSG_ATOMIC_FADD, &aa, 0, 0xffffffffULL,
		    0x1ffffffffULL, "carry crosses the 32-bit halves");
out:
	atomic_env_close(&e);
}

static void test_atomic_cswp(void)
{
	struct rds_atomic_args aa;
	struct atomic_env e;

	if (!atomic_env_open(&e, 0))
		goto out;
	memset(&aa, 0, sizeof(aa));
	aa.cswp.compare = 100;
	aa.cswp.swap = 200;
	atomic_case(&e, RDS_CMSG_ATOMIC_CSWP, &aa, 1, 100, 200,
		    "equal: swapped");
	aa.cswp.compare = 100;
	aa.cswp.swap = 300;
	atomic_case(&e, RDS_CMSG_ATOMIC_CSWP, &aa, 1, 200, 200,
		    "not equal: unchanged, old value returned");
	aa.cswp.compare = 0x8000000000000001ULL;
	aa.cswp.swap = 0;
	atomic_case(&e, RDS_CMSG_ATOMIC_CSWP, &aa, 2, 0x8000000000000001ULL, 0,
		    "equal in all 64 bits: swapped");
	aa.cswp.compare = 0x0000000000000001ULL;
	aa.cswp.swap = 7;
	atomic_case(&e, RDS_CMSG_ATOMIC_CSWP, &aa, 2, 0x8000000000000001ULL,
		    0x8000000000000001ULL, "differs in the top bit only: unchanged");
out:
	atomic_env_close(&e);
}

static void test_atomic_masked_cswp(void)
{
	struct rds_atomic_args aa;
	struct atomic_env e;
	uint32_t seed = 12345;
	uint64_t old, want;
	unsigned int i, swapped = 0;
	char n[64];

	if (masked_refused_over_ib(RDS_CMSG_MASKED_ATOMIC_CSWP))
		return;
	if (!atomic_env_open(&e, 0))
		goto out;
	memset(&aa, 0, sizeof(aa));
	aa.m_cswp.compare = 0x00ff;
	aa.m_cswp.compare_mask = 0x00ff;
	aa.m_cswp.swap = 0xabcd0000;
	aa.m_cswp.swap_mask = 0xffff0000;
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_CSWP, &aa, 0, 0x123400ff,
		    0xabcd00ff, "masked bits equal: masked bits swapped");
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_CSWP, &aa, 0, 0x123401ff,
		    0xabcd01ff, "bits outside compare_mask ignored");
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_CSWP, &aa, 0, 0x123400fe,
		    0x123400fe, "masked bits differ: unchanged");
	for (i = 0; i < 24; i++) {
		old = rnd64(&seed);
		aa.m_cswp.compare_mask = rnd64(&seed);
		aa.m_cswp.swap_mask = rnd64(&seed);
		aa.m_cswp.swap = rnd64(&seed);
		/* half equal under the mask, half not (most likely) */
		aa.m_cswp.compare = i & 1 ? rnd64(&seed) :
			(old & aa.m_cswp.compare_mask) |
			(rnd64(&seed) & ~aa.m_cswp.compare_mask);
		want = masked_cswp_ref(old, aa.m_cswp.compare, aa.m_cswp.swap,
				       aa.m_cswp.compare_mask,
				       aa.m_cswp.swap_mask);
		swapped += want != old;
		snprintf(n, sizeof(n), "random case %u", i);
		atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_CSWP, &aa, i & 3, old,
			    want, n);
	}
	ok(swapped >= 6, "random cases include swaps (%u)", swapped);
out:
	atomic_env_close(&e);
}

static void test_atomic_masked_fadd(void)
{
	struct rds_atomic_args aa;
	struct atomic_env e;
	uint32_t seed = 777;
	uint64_t old, want;
	unsigned int i;
	char n[64];

	if (masked_refused_over_ib(RDS_CMSG_MASKED_ATOMIC_FADD))
		return;
	if (!atomic_env_open(&e, 0))
		goto out;
	memset(&aa, 0, sizeof(aa));
	aa.m_fadd.add = 0x0000000100000001ULL;
	aa.m_fadd.nocarry_mask = 0;
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, 0,
		    0x00000000ffffffffULL, 0x0000000200000000ULL,
		    "nocarry_mask 0: a plain add");
	aa.m_fadd.nocarry_mask = 0x8000000080000000ULL;
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, 1,
		    0x00000000ffffffffULL, 0x0000000100000000ULL,
		    "two 32-bit fields: the low field wraps alone");
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, 1,
		    0xffffffff00000005ULL, 0x0000000000000006ULL,
		    "two 32-bit fields: the high field wraps alone");
	aa.m_fadd.add = 0x0101010101010101ULL;
	aa.m_fadd.nocarry_mask = 0x8080808080808080ULL;
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, 2,
		    0xff00ff7f80fe01ffULL, 0x0001008081ff0200ULL,
		    "eight byte-wide counters");
	aa.m_fadd.add = 1;
	aa.m_fadd.nocarry_mask = ~0ULL;
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, 3, 0xffULL, 0xfeULL,
		    "every bit its own field: xor");
	for (i = 0; i < 24; i++) {
		old = rnd64(&seed);
		aa.m_fadd.add = rnd64(&seed);
		aa.m_fadd.nocarry_mask = rnd64(&seed) & rnd64(&seed);
		want = masked_fadd_ref(old, aa.m_fadd.add,
				       aa.m_fadd.nocarry_mask);
		snprintf(n, sizeof(n), "random case %u", i);
		atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, i & 3, old,
			    want, n);
	}
out:
	atomic_env_close(&e);
}

static void test_atomic_refused(void)
{
	static const int types[] = {
		RDS_CMSG_ATOMIC_FADD, RDS_CMSG_ATOMIC_CSWP,
		RDS_CMSG_MASKED_ATOMIC_FADD, RDS_CMSG_MASKED_ATOMIC_CSWP,
	};
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE), *ro = NULL;
	struct pair p = { .a = -1, .b = -1 };
	struct rds_atomic_args aa;
	uint64_t c0 = 0, c4 = 0, *old;
	unsigned int i;
	struct cm cm;
	char n[64];
	int st;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	old = (uint64_t *)(bbuf + 64);
	/* c0: abuf[0, 64), offset 0; c4: abuf[260, 324), offset 260 */
	if (!refused_cookie(p.a, abuf, 64, &c0) ||
	    !refused_cookie(p.a, abuf + 260, 64, &c4))
		goto out;
	if (!cfg.impl_doca)
		c4 = c0 + (260ULL << 32);	/* the offset 260 */
	memset(abuf, 0x66, PAGE);
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		ro = NULL;

	for (i = 0; i < atomic_types(); i++) {
		snprintf(n, sizeof(n), "type %d", types[i]);
		mk_atomic(&aa, c0, 4, old, RDS_RDMA_NOTIFY_ME);
		is_err(send_atomic(p.b, &p.sa, types[i], &aa),
		       LX(EINVAL, EOPNOTSUPP),
		       "%s: remote_addr 4 at cookie offset 0 -> %s", n,
		       LX("EINVAL", "EOPNOTSUPP (net/rds: not checked)"));
		mk_atomic(&aa, c4, 0, old, RDS_RDMA_NOTIFY_ME);
		is_err(send_atomic(p.b, &p.sa, types[i], &aa),
		       LX(EINVAL, EOPNOTSUPP),
		       "%s: remote_addr 0 at cookie offset 260 -> %s", n,
		       LX("EINVAL", "EOPNOTSUPP (net/rds: not checked)"));
		mk_atomic(&aa, c4, 1, old, RDS_RDMA_NOTIFY_ME);
		is_err(send_atomic(p.b, &p.sa, types[i], &aa),
		       LX(EINVAL, EOPNOTSUPP),
		       "%s: remote_addr 1 at cookie offset 260 -> %s", n,
		       LX("EINVAL", "EOPNOTSUPP (net/rds: not checked)"));
		mk_atomic(&aa, c0, 8, (char *)old + 4, RDS_RDMA_NOTIFY_ME);
		is_err(send_atomic(p.b, &p.sa, types[i], &aa), EFAULT,
		       "%s: local_addr not 8-aligned -> EFAULT", n);
		mk_atomic(&aa, c0, 8, unmapped_addr(), RDS_RDMA_NOTIFY_ME);
		is_err(send_atomic(p.b, &p.sa, types[i], &aa), EFAULT,
		       "%s: unmapped local_addr -> EFAULT", n);
		if (ro) {
			mk_atomic(&aa, c0, 8, ro, RDS_RDMA_NOTIFY_ME);
			is_err(send_atomic(p.b, &p.sa, types[i], &aa), EFAULT,
			       "%s: read-only local_addr -> EFAULT", n);
		}
		mk_atomic(&aa, c0, 8, old, RDS_RDMA_NOTIFY_ME | UNKNOWN_FLAG);
		is_err(send_atomic(p.b, &p.sa, types[i], &aa),
		       LX(EINVAL, EOPNOTSUPP), "%s: unknown flag -> %s", n,
		       LX("EINVAL",
			  "EOPNOTSUPP (net/rds ignores unknown flags)"));
		mk_atomic(&aa, c0, 8, old, RDS_RDMA_NOTIFY_ME);
		cm_init(&cm);
		cm_add(&cm, types[i], &aa, 24);
		is_err(send_cm(p.b, &p.sa, op_payload, 7, &cm), EINVAL,
		       "%s: cmsg too short -> EINVAL", n);
	}
	if (cfg.impl_doca) {
		expect_quiet(p.b, QUIET_WAIT_MS,
			     "no notice for any refused atomic");
		expect_quiet(p.a, QUIET_WAIT_MS,
			     "no message from any refused atomic");
	}
	check_fill(abuf, PAGE, 0x66, "A's memory untouched");

	/* cookie offset 260 + remote_addr 4 is aligned */
	mk_atomic(&aa, c4, 4, old, 0);
	aa.fadd.add = 1;
	if (!cfg.impl_doca) {
		is_err(send_atomic(p.b, &p.sa, RDS_CMSG_ATOMIC_FADD, &aa),
		       EOPNOTSUPP, "net/rds loopback: a valid atomic -> EOPNOTSUPP");
		goto out;
	}
	st = run_atomic(&p, RDS_CMSG_ATOMIC_FADD, &aa,
			"cookie offset 260 + remote_addr 4");
	is_eq(st, RDS_RDMA_SUCCESS,
	      "cookie offset 260 + remote_addr 4 (aligned) succeeds");
	ok(*(uint64_t *)(abuf + 264) == 0x6666666666666667ULL &&
	   *old == 0x6666666666666666ULL, "it added to abuf[264]");
out:
	pair_close(&p);
	if (ro)
		munmap(ro, PAGE);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

static void test_atomic_remote_errors(void)
{
	static const int types[] = {
		RDS_CMSG_ATOMIC_FADD, RDS_CMSG_ATOMIC_CSWP,
		RDS_CMSG_MASKED_ATOMIC_FADD, RDS_CMSG_MASKED_ATOMIC_CSWP,
	};
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_atomic_args aa;
	uint64_t cro = 0, c = 0, *old;
	unsigned int i;
	char n[64];
	int st;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	old = (uint64_t *)bbuf;
	if (!is_ok(get_mr(p.a, abuf, 64, RDS_DOCA_MR_REMOTE_READ_ONLY, &cro),
		   "GET_MR read-only") ||
	    !is_ok(get_mr(p.a, abuf + 128, 16, 0, &c), "GET_MR of 16 bytes"))
		goto out;
	memset(abuf, 0x12, PAGE);
	for (i = 0; i < atomic_types(); i++) {
		snprintf(n, sizeof(n), "type %d", types[i]);
		mk_atomic(&aa, cro, 8, old, 0);
		/* would change the word were it allowed */
		aa.m_cswp.compare = 0x1212121212121212ULL;
		aa.m_cswp.swap = 1;
		aa.m_cswp.compare_mask = 0;
		aa.m_cswp.swap_mask = ~0ULL;
		if (types[i] == RDS_CMSG_ATOMIC_FADD ||
		    types[i] == RDS_CMSG_MASKED_ATOMIC_FADD) {
			aa.fadd.add = 1;
			aa.m_fadd.nocarry_mask = 0;
		}
		st = run_atomic(&p, types[i], &aa, n);
		is_eq(st, RDS_RDMA_REMOTE_ERROR,
		      "%s: into a read-only region -> RDS_RDMA_REMOTE_ERROR", n);
		mk_atomic(&aa, c, 16, old, 0);
		aa.fadd.add = 1;
		st = run_atomic(&p, types[i], &aa, n);
		is_eq(st, RDS_RDMA_REMOTE_ERROR,
		      "%s: past the region's end -> RDS_RDMA_REMOTE_ERROR", n);
		mk_atomic(&aa, cookie_make(cookie_key(c) ^ 0x40000000, 0), 0,
			  old, 0);
		aa.fadd.add = 1;
		st = run_atomic(&p, types[i], &aa, n);
		is_eq(st, RDS_RDMA_REMOTE_ERROR,
		      "%s: unknown cookie -> RDS_RDMA_REMOTE_ERROR", n);
	}
	check_fill(abuf, PAGE, 0x12, "A's memory unchanged");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

struct fadd_thread {
	int fd;
	struct sockaddr_in to;
	uint64_t cookie;
	uint64_t *olds;
	unsigned int n, sent;
	int err;
};

static void *fadd_sender(void *arg)
{
	struct fadd_thread *t = arg;
	struct rds_atomic_args aa;
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		memset(&aa, 0, sizeof(aa));
		aa.cookie = t->cookie;
		aa.remote_addr = 0;
		aa.local_addr = (uintptr_t)&t->olds[i];
		aa.fadd.add = 1;
		aa.user_token = i;
		if (send_atomic(t->fd, &t->to, RDS_CMSG_ATOMIC_FADD, &aa) < 0) {
			t->err = errno;
			break;
		}
		t->sent++;
	}
	return NULL;
}

static void test_atomic_concurrent(void)
{
	enum { N = 1000 };
	const uint64_t start = 0x123456789ULL;
	struct fadd_thread t[2];
	pthread_t th[2];
	char *abuf = xmap(PAGE);
	uint64_t *olds = calloc(2 * N, sizeof(*olds)), c = 0;
	unsigned int i, got = 0, started = 0, dups = 0;
	int a = -1, b2 = -1, b1 = -1;
	struct rx rx;

	if (!abuf || !olds)
		goto out;
	a = bound_socket_at(cfg.addr, 0, "setup: bind A");
	b1 = bound_socket_at(cfg.peer, 0, "setup: bind B1");
	b2 = bound_socket_at(cfg.peer, 0, "setup: bind B2");
	if (a < 0 || b1 < 0 || b2 < 0)
		goto out;
	if (!is_ok(get_mr(a, abuf, 8, 0, &c), "GET_MR of one word"))
		goto out;
	*(uint64_t *)abuf = start;
	for (i = 0; i < 2; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].fd = i ? b2 : b1;
		t[i].to = sock_addr(a);
		t[i].cookie = c;
		t[i].olds = olds + i * N;
		t[i].n = N;
		if (pthread_create(&th[i], NULL, fadd_sender, &t[i]))
			break;
		started++;
	}
	for (got = 0; got < 2 * N; got++)
		if (rx_one(a, &rx, 0, WAIT_MS) < 0)
			break;
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	is_eq(started, 2, "two sender threads started");
	ok_diag(t[0].sent == N && t[1].sent == N, "2000 fetch-adds sent",
		"sent %u (%s) and %u (%s)", t[0].sent, tap_errname(t[0].err),
		t[1].sent, tap_errname(t[1].err));
	is_eq(got, 2 * N, "A received 2000 messages");
	is_eq(*(uint64_t *)abuf - start, 2 * N, "the word went up by 2000");
	qsort(olds, 2 * N, sizeof(*olds), cmp_u64);
	for (i = 0; i < 2 * N; i++)
		dups += olds[i] != start + i;
	is_eq(dups, 0, "the old values are start .. start + 1999, each once");
	expect_quiet(b1, 100, "no notices on B1");
	expect_quiet(b2, 100, "no notices on B2");
out:
	if (a >= 0)
		close(a);
	if (b1 >= 0)
		close(b1);
	if (b2 >= 0)
		close(b2);
	free(olds);
	xunmap(abuf, PAGE);
}

/* ------------------------------------------------------------------ */
/* life_*: closing and unmapping                                       */
/* ------------------------------------------------------------------ */

static void test_life_close_owner(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_rdma_args ra;
	struct rds_iovec lv;
	uint64_t c1 = 0, c2 = 0;
	uint16_t aport;
	int a2 = -1, st;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, 256, 0, &c1), "GET_MR 1") ||
	    !is_ok(get_mr(p.a, abuf + 1024, 256, 0, &c2), "GET_MR 2"))
		goto out;
	st = run_write(&p, c1, 0, bbuf, 64, "write before close");
	is_eq(st, RDS_RDMA_SUCCESS, "a write before A closes succeeds");
	aport = ntohs(p.sa.sin_port);
	close(p.a);
	p.a = -1;
	memset(abuf, 0x21, PAGE);
	pattern_fill(bbuf, 64, 5);

	/* nobody at A's port now: the notice still comes */
	lv.addr = (uintptr_t)bbuf;
	lv.bytes = 64;
	mk_rdma(&ra, c1, 0, 64, &lv, 1,
		RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(p.b, &p.sa, &ra), "write to the closed port: sendmsg");
	expect_notice(p.b, ra.user_token, RDS_RDMA_REMOTE_ERROR,
		      "write to the closed owner's region -> RDS_RDMA_REMOTE_ERROR");
	check_fill(abuf, PAGE, 0x21, "A's old buffer unchanged");

	/* a new socket on A's port does not inherit the regions */
	a2 = bound_socket_at(cfg.addr, aport, "setup: rebind A's port");
	if (a2 < 0)
		goto out;
	p.a = a2;
	st = run_write(&p, c1, 0, bbuf, 64, "region 1 via the new socket");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "region 1 at a new socket on A's port -> RDS_RDMA_REMOTE_ERROR");
	st = run_read(&p, c2, 0, bbuf, 64, "region 2 via the new socket");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "region 2 at a new socket on A's port -> RDS_RDMA_REMOTE_ERROR");
	check_fill(abuf, PAGE, 0x21, "A's old buffer still unchanged");
	is_err(free_mr(a2, c1, 0), EINVAL,
	       "the new socket cannot free the old region -> EINVAL");
out:
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

static void test_life_close_initiator(void)
{
	enum { ROUNDS = 20, LEN = 65536 };
	char *abuf = xmap(LEN), *bbuf = xmap(LEN);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_iovec lv = { 0, LEN };
	struct rds_rdma_args ra;
	unsigned int i, sent = 0, arrived = 0, landed = 0, quiet = 0;
	uint64_t c = 0;
	uint16_t bport;
	struct rx rx;
	int b2;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, LEN, 0, &c), "GET_MR"))
		goto out;
	/*
	 * Over IB the reset after the failures of the case before may take
	 * the next connection too (run_rdma() sends again once): the rounds
	 * below must not meet it, their writes would be dropped.
	 */
	if (!is_eq(run_write(&p, c, 0, bbuf, 64, "write before the rounds"),
		   RDS_RDMA_SUCCESS, "a write before the rounds succeeds"))
		goto out;
	lv.addr = (uintptr_t)bbuf;
	for (i = 0; i < ROUNDS; i++) {
		if (p.b < 0) {
			p.b = bound_socket_at(cfg.peer, 0, "setup: bind B");
			if (p.b < 0)
				break;
		}
		bport = ntohs(sock_addr(p.b).sin_port);
		pattern_fill(bbuf, LEN, 900 + i);
		mk_rdma(&ra, c, 0, LEN, &lv, 1,
			RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
		if (send_rdma(p.b, &p.sa, &ra) >= 0)
			sent++;
		close(p.b);
		p.b = -1;
		if (rx_one(p.a, &rx, 0, WAIT_MS) >= 0) {
			arrived++;
			/* the op completed all the same */
			landed += pattern_check(abuf, LEN, 900 + i) < 0;
		}
		b2 = bound_socket_at(cfg.peer, bport,
				     "setup: rebind B's port");
		if (b2 < 0)
			continue;
		if (rx_one(b2, &rx, 0, i == ROUNDS - 1 ? QUIET_WAIT_MS : 20) < 0 &&
		    errno == ETIME)
			quiet++;
		close(b2);
	}
	is_eq(sent, ROUNDS, "sendmsg then close, %u times", ROUNDS);
	is_eq(arrived, ROUNDS, "A got every message");
	is_eq(landed, ROUNDS, "every write landed before its message");
	is_eq(quiet, ROUNDS, "no notice at a new socket on B's port");
out:
	pair_close(&p);
	xunmap(abuf, LEN);
	xunmap(bbuf, LEN);
}

static void test_life_munmap_owner(void)
{
	char *abuf = xmap(4 * PAGE), *bbuf = xmap(4 * PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t c = 0;
	int st;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf + 10, 3 * PAGE, 0, &c), "GET_MR"))
		goto out;
	munmap(abuf, 4 * PAGE);
	abuf = NULL;
	pattern_fill(bbuf, 3 * PAGE, 8);
	st = run_write(&p, c, 0, bbuf, 3 * PAGE, "write after munmap");
	ok_diag(st == RDS_RDMA_SUCCESS || st == RDS_RDMA_REMOTE_ERROR,
		"write to an unmapped region completes (SUCCESS or REMOTE_ERROR)",
		"status %d", st);
	memset(bbuf, 0, 4 * PAGE);
	st = run_read(&p, c, 0, bbuf, 3 * PAGE, "read after munmap");
	ok_diag(st == RDS_RDMA_SUCCESS || st == RDS_RDMA_REMOTE_ERROR,
		"read of an unmapped region completes (SUCCESS or REMOTE_ERROR)",
		"status %d", st);
	if (st == RDS_RDMA_SUCCESS)
		check_pattern(bbuf, 3 * PAGE, 8,
			      "the pinned pages still hold the written data");
	/* new memory at the same address is not the region */
	abuf = xmap(4 * PAGE);
	is_ok(free_mr(p.a, c, 0), "FREE_MR of the unmapped region -> 0");
	st = run_write(&p, c, 0, bbuf, 64, "write after free");
	is_eq(st, RDS_RDMA_REMOTE_ERROR, "after FREE_MR: RDS_RDMA_REMOTE_ERROR");
out:
	pair_close(&p);
	xunmap(abuf, 4 * PAGE);
	xunmap(bbuf, 4 * PAGE);
}

static void test_life_munmap_local(void)
{
	enum { LEN = 256 * 1024 };
	char *abuf = xmap(LEN), *bbuf;
	struct pair p = { .a = -1, .b = -1 };
	struct rds_iovec lv = { 0, LEN };
	struct rds_rdma_args ra;
	uint64_t c = 0;
	unsigned int i;

	if (!abuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, LEN, 0, &c), "GET_MR"))
		goto out;
	pattern_fill(abuf, LEN, 13);
	for (i = 0; i < 2; i++) {
		const char *what = i ? "write" : "read";

		bbuf = xmap(LEN);
		if (!bbuf)
			break;
		pattern_fill(bbuf, LEN, 13);
		lv.addr = (uintptr_t)bbuf;
		mk_rdma(&ra, c, 0, LEN, &lv, 1,
			RDS_RDMA_NOTIFY_ME | (i ? RDS_RDMA_READWRITE : 0));
		is_ok(send_rdma(p.b, &p.sa, &ra), "%s: sendmsg", what);
		munmap(bbuf, LEN);
		expect_notice(p.b, ra.user_token, RDS_RDMA_SUCCESS,
			      "%s: B's buffer unmapped after sendmsg, the notice still comes",
			      what);
		expect_msg(p.a, NULL, "%s: A gets the message", what);
	}
	check_pattern(abuf, LEN, 13, "A's region intact");
out:
	pair_close(&p);
	xunmap(abuf, LEN);
}

/* ------------------------------------------------------------------ */
/* mrlist_*: RDS_DOCA_GET_MR_LIST                                      */
/* ------------------------------------------------------------------ */

static void test_mrlist_basic(void)
{
	/* pages 0, 2-3 and 5 of a 7-page area: 1, 2, 1 pages, not adjacent */
	char *area = xmap(7 * PAGE), *bbuf = xmap(5 * PAGE);
	struct pair p = { .a = -1, .b = -1 };
	struct rds_iovec v[3];
	uint64_t c = 0;
	char *want = malloc(16 * KIB);
	int st;

	if (!area || !bbuf || !want || !pair_open(&p))
		goto out;
	v[0].addr = (uintptr_t)area;
	v[0].bytes = PAGE;
	v[1].addr = (uintptr_t)area + 2 * PAGE;
	v[1].bytes = 2 * PAGE;
	v[2].addr = (uintptr_t)area + 5 * PAGE;
	v[2].bytes = PAGE;
	memset(area, 0x3c, 7 * PAGE);
	if (!is_ok(get_mr_list(p.a, v, 3, 0, &c), "GET_MR_LIST of 1, 2, 1 pages"))
		goto out;
	ok(c != 0, "a cookie was written");
	is_eq(cookie_off(c) & (PAGE - 1), 0,
	      "the cookie's page offset is 0 (zero-based)");

	pattern_fill(bbuf, 16 * KIB, 17);
	memcpy(want, bbuf, 16 * KIB);
	st = run_write(&p, c, 0, bbuf, 16 * KIB, "16 KiB write");
	is_eq(st, RDS_RDMA_SUCCESS, "a 16 KiB write succeeds");
	ok(!memcmp(area, want, PAGE), "bytes 0-4095 in buffer 1");
	ok(!memcmp(area + 2 * PAGE, want + PAGE, 2 * PAGE),
	   "bytes 4096-12287 in buffer 2");
	ok(!memcmp(area + 5 * PAGE, want + 3 * PAGE, PAGE),
	   "bytes 12288-16383 in buffer 3");
	check_fill(area + PAGE, PAGE, 0x3c, "the gap after buffer 1 untouched");
	check_fill(area + 4 * PAGE, PAGE, 0x3c,
		   "the gap after buffer 2 untouched");
	check_fill(area + 6 * PAGE, PAGE, 0x3c, "the page after untouched");

	memset(bbuf, 0, 5 * PAGE);
	st = run_read(&p, c, 0, bbuf, 16 * KIB, "16 KiB read");
	is_eq(st, RDS_RDMA_SUCCESS, "a 16 KiB read succeeds");
	ok(!memcmp(bbuf, want, 16 * KIB), "it reads back the same bytes");

	pattern_fill(bbuf, 200, 18);
	st = run_write(&p, c, 12288 - 100, bbuf, 200,
		       "write across buffers 2 and 3");
	is_eq(st, RDS_RDMA_SUCCESS, "a write across buffers 2 and 3");
	pattern_fill(want, 200, 18);
	ok(!memcmp(area + 4 * PAGE - 100, want, 100) &&
	   !memcmp(area + 5 * PAGE, want + 100, 100),
	   "it is split at the buffer boundary");
	st = run_write(&p, c, 16 * KIB - 8, bbuf, 16, "past the end");
	is_eq(st, RDS_RDMA_REMOTE_ERROR, "past the end: RDS_RDMA_REMOTE_ERROR");
	is_ok(free_mr(p.a, c, 0), "FREE_MR");

	/* the first may start and the last may end anywhere */
	v[0].addr = (uintptr_t)area + 100;
	v[0].bytes = PAGE - 100;
	v[2].bytes = 1000;
	memset(area, 0x3c, 7 * PAGE);
	if (over_ib()) {
		/* a device maps byte 0 at its offset in the page */
		is_err(get_mr_list(p.a, v, 3, 0, &c), EINVAL,
		       "over IB: an unaligned first start -> EINVAL");
		goto out;
	}
	if (!is_ok(get_mr_list(p.a, v, 3, 0, &c),
		   "GET_MR_LIST with an unaligned first start and last end"))
		goto out;
	is_eq(cookie_off(c) & (PAGE - 1), 0,
	      "the cookie's page offset is 0 (zero-based)");
	pattern_fill(bbuf, PAGE - 100 + 2 * PAGE + 1000, 19);
	st = run_write(&p, c, 0, bbuf, PAGE - 100 + 2 * PAGE + 1000,
		       "write of the whole region");
	is_eq(st, RDS_RDMA_SUCCESS, "a write of the whole region");
	ok(!memcmp(area + 100, bbuf, PAGE - 100) &&
	   !memcmp(area + 2 * PAGE, bbuf + PAGE - 100, 2 * PAGE) &&
	   !memcmp(area + 5 * PAGE, bbuf + 3 * PAGE - 100, 1000),
	   "byte 0 is vecs[0]'s first byte, each buffer follows the previous");
	check_fill(area, 100, 0x3c, "bytes before vecs[0] untouched");
	check_fill(area + 5 * PAGE + 1000, PAGE - 1000, 0x3c,
		   "bytes after the last buffer untouched");
	st = run_write(&p, c, PAGE - 100 + 2 * PAGE + 1000 - 4, bbuf, 8,
		       "past the end");
	is_eq(st, RDS_RDMA_REMOTE_ERROR, "past the end: RDS_RDMA_REMOTE_ERROR");
	is_ok(free_mr(p.a, c, 0), "FREE_MR");
out:
	pair_close(&p);
	free(want);
	xunmap(area, 7 * PAGE);
	xunmap(bbuf, 5 * PAGE);
}

static void test_mrlist_errors(void)
{
	char *area = xmap(MIB + 4 * PAGE);
	struct rds_doca_get_mr_list_args g;
	struct rds_iovec v[3];
	uint64_t c = 0;
	int b = -1, u = -1;

	if (!area)
		goto out;
	b = bound_socket_at(cfg.addr, 0, "setup: bind");
	u = rds_socket();
	if (b < 0 || !sys_ok(u, "socket"))
		goto out;
	v[0].addr = (uintptr_t)area;
	v[0].bytes = PAGE;
	v[1].addr = (uintptr_t)area + 2 * PAGE;
	v[1].bytes = 2 * PAGE;
	v[2].addr = (uintptr_t)area + 5 * PAGE;
	v[2].bytes = PAGE;
	memset(&g, 0, sizeof(g));
	g.vecs_addr = (uintptr_t)v;
	g.nr_vecs = 3;
	g.cookie_addr = (uintptr_t)&c;

	is_err(setsockopt(b, SOL_RDS, RDS_DOCA_GET_MR_LIST, &g, sizeof(g) - 1),
	       EINVAL, "short optlen -> EINVAL");
	is_err(setsockopt(u, SOL_RDS, RDS_DOCA_GET_MR_LIST, &g, sizeof(g)),
	       ENOTCONN, "unbound -> ENOTCONN");
	is_err(get_mr_list(b, v, 0, 0, &c), EINVAL, "nr_vecs 0 -> EINVAL");
	is_err(get_mr_list(b, v, 3, UNKNOWN_FLAG, &c), EINVAL,
	       "unknown flag -> EINVAL");
	is_err(get_mr_list(b, unmapped_addr(), 3, 0, &c), EFAULT,
	       "unmapped vecs_addr -> EFAULT");

	v[1].addr += 8;
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "middle buffer not starting on a page -> EINVAL");
	v[1].addr -= 8;
	v[1].bytes -= 8;
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "middle buffer not ending on a page -> EINVAL");
	v[1].bytes += 8;
	v[0].bytes -= 1;
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "first buffer not ending on a page -> EINVAL");
	v[0].bytes += 1;
	v[2].addr += 1;
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "last buffer not starting on a page -> EINVAL");
	v[2].addr -= 1;
	v[1].bytes = 0;
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "a zero-length buffer -> EINVAL");
	v[1].bytes = 2 * PAGE;
	v[1].addr = ~0ULL & ~(PAGE - 1);
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "a buffer that wraps around -> EINVAL");
	v[1].addr = (uintptr_t)area + 2 * PAGE;
	is_eq(c, 0, "no cookie written so far");

	v[0].addr = (uintptr_t)area;
	v[0].bytes = MIB;
	v[1].addr = (uintptr_t)area + MIB;
	v[1].bytes = PAGE;
	is_err(get_mr_list(b, v, 2, 0, &c), EMSGSIZE,
	       "1 MiB + 4 KiB in all -> EMSGSIZE");
	v[0].bytes = MIB - PAGE;
	v[1].addr = (uintptr_t)area + MIB - PAGE;
	is_ok(get_mr_list(b, v, 2, 0, &c), "exactly 1 MiB in all -> 0");
	is_ok(free_mr(b, c, 0), "FREE_MR");
	v[1].addr = (uintptr_t)unmapped_addr();
	is_err(get_mr_list(b, v, 2, 0, &c), EFAULT,
	       "an unmapped buffer -> EFAULT");
	v[1].addr = (uintptr_t)area + MIB - PAGE;
	is_err(get_mr_list(b, v, 2, 0, unmapped_addr()), EFAULT,
	       "unmapped cookie_addr -> EFAULT");
out:
	if (b >= 0)
		close(b);
	if (u >= 0)
		close(u);
	xunmap(area, MIB + 4 * PAGE);
}

/*
 * Cookies are capabilities bound to their owner.  Root registers a region
 * on socket V; user nobody, in a child, (1) uses V's cookie through its
 * own sockets, which must not reach V's region, and (2) guesses cookies
 * near V's, and sequential ones from 1, at V's own port: every attempt
 * ends in RDS_RDMA_REMOTE_ERROR, V's memory is unchanged, and each
 * refusal is counted.  Over IB the device checks the key, and the owner
 * check is not made there yet (Documentation/security.rst).
 */
enum {
	ISO_SETUID, ISO_OWN_READ, ISO_OWN_WRITE, ISO_GUESSES, ISO_GUESS_OK,
	ISO_GUESS_REFUSED, ISO_THROTTLED, ISO_FAILED_CHECKS, ISO_COUNT
};

/*
 * One silent operation with @cookie from p->b to p->sa, whose outcome only
 * the notice tells.  A socket whose operations were refused too often in
 * the last second gets EAGAIN (counted in *@throttled): wait and send it
 * again.  Returns the status, or -1 after a failing check.
 */
static int guess(struct pair *p, uint64_t cookie, void *buf, uint64_t flags,
		 int *throttled)
{
	struct rds_iovec lv = { (uintptr_t)buf, 64 };
	struct rds_rdma_args ra;
	struct cm c;

	mk_rdma(&ra, cookie, 0, 64, &lv, 1,
		flags | RDS_RDMA_SILENT | RDS_RDMA_NOTIFY_ME);
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	while (send_cm(p->b, &p->sa, op_payload, sizeof(op_payload) - 1,
		       &c) < 0) {
		if (errno != EAGAIN)
			return ok_diag(0, "guess", "sendmsg: %s",
				       tap_errname(errno)), -1;
		(*throttled)++;
		sleep_ms(50);
	}
	return op_outcome(p, ra.user_token, false, "guess");
}

static void iso_child(int wfd, uint64_t victim_cookie,
		      const struct sockaddr_in *victim)
{
	char *buf = xmap(PAGE);
	struct pair q = { .a = -1, .b = -1 }, g;
	int res[ISO_COUNT] = { 0 }, st;
	uint64_t key = cookie_key(victim_cookie);
	uint64_t off = cookie_off(victim_cookie), c;
	unsigned int i, j;

	res[ISO_SETUID] = setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			  setresuid(65534, 65534, 65534) ? errno : 0;
	if (res[ISO_SETUID] || !buf || !pair_open(&q))
		goto out;
	res[ISO_OWN_READ] = run_read(&q, victim_cookie, 0, buf, 64,
				     "nobody: V's cookie through its own port");
	pattern_fill(buf, PAGE, 5);
	res[ISO_OWN_WRITE] = run_write(&q, victim_cookie, 0, buf, 64,
				       "nobody: V's cookie, write, own port");

	/* guesses sent to V itself: silent, so only the notice comes back */
	g = q;
	g.sa = *victim;
	for (i = 0; i < 600; i++) {
		j = i % 200 + 1;
		switch (i / 200) {
		case 0:		/* the keys next to V's */
			c = cookie_make((key + (i & 1 ? j : -j)) & 0xffffffff,
					off);
			break;
		case 1:		/* V's key, other high halves */
			c = cookie_make(key, off + (i & 1 ? j : -j) * PAGE);
			break;
		default:	/* keys handed out in sequence */
			c = cookie_make(j, off & (PAGE - 1));
			break;
		}
		st = guess(&g, c, buf, i & 2 ? RDS_RDMA_READWRITE : 0,
			   &res[ISO_THROTTLED]);
		res[ISO_GUESSES]++;
		res[ISO_GUESS_OK] += st == RDS_RDMA_SUCCESS;
		res[ISO_GUESS_REFUSED] += st == RDS_RDMA_REMOTE_ERROR;
	}
out:
	res[ISO_FAILED_CHECKS] = tap_failures();
	if (write(wfd, res, sizeof(res)) != sizeof(res))
		_exit(3);
	_exit(0);
}

static void test_sec_cookie_owner(void)
{
	char *vbuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t cv = 0, before = 0, after = 0;
	int res[ISO_COUNT], fds[2] = { -1, -1 }, status, st;
	pid_t pid;

	if (!vbuf || !bbuf || !pair_open(&p))
		goto out;
	memset(vbuf, 0x5a, PAGE);
	if (!is_ok(get_mr(p.a, vbuf, PAGE, 0, &cv), "V: GET_MR") ||
	    !counter_get(p.a, "rdma_refused", &before) ||
	    !is_ok(pipe(fds), "pipe"))
		goto out;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		iso_child(fds[1], cv, &p.sa);
	}
	close(fds[1]);
	fds[1] = -1;
	memset(res, 0xff, sizeof(res));
	ok(pid > 0 && read(fds[0], res, sizeof(res)) == sizeof(res),
	   "the unprivileged child reported");
	if (pid > 0)
		waitpid(pid, &status, 0);
	is_eq(res[ISO_SETUID], 0, "the child runs as nobody");
	is_eq(res[ISO_FAILED_CHECKS], 0, "the child's own checks passed");
	is_eq(res[ISO_OWN_READ], RDS_RDMA_REMOTE_ERROR,
	      "V's cookie sent to another socket cannot read V's region");
	is_eq(res[ISO_OWN_WRITE], RDS_RDMA_REMOTE_ERROR,
	      "nor write it");
	is_eq(res[ISO_GUESSES], 600, "600 guessed cookies tried at V's port");
	is_eq(res[ISO_GUESS_OK], 0, "none of them reached a region");
	is_eq(res[ISO_GUESS_REFUSED], 600,
	      "each ended in RDS_RDMA_REMOTE_ERROR");
	tap_diag("sec_cookie_owner: sendmsg() refused %d times while throttled",
		 res[ISO_THROTTLED]);
	check_fill(vbuf, PAGE, 0x5a, "V's memory is unchanged");
	if (counter_get(p.a, "rdma_refused", &after))
		ok_diag(after - before >= 602, "each refusal is counted",
			"rdma_refused rose by %llu",
			(unsigned long long)(after - before));

	/* handed over, the cookie works for anyone who sends it to V */
	pattern_fill(bbuf, PAGE, 77);
	st = run_write(&p, cv, 0, bbuf, 64, "a peer given V's cookie");
	is_eq(st, RDS_RDMA_SUCCESS,
	      "a peer given V's cookie writes V's region through V's port");
	check_pattern(vbuf, 64, 77, "the write landed");
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	pair_close(&p);
	xunmap(vbuf, PAGE);
	xunmap(bbuf, PAGE);
}

/*
 * Refused operations are rate-limited per socket: a socket that keeps
 * sending operations with a wrong cookie soon gets EAGAIN from sendmsg()
 * (counted in rdma_throttled), while another socket is not held back and
 * a good cookie still works once the second is over.
 */
static void test_sec_refusals_throttled(void)
{
	char *abuf = xmap(PAGE), *bbuf = xmap(PAGE);
	struct pair p = { .a = -1, .b = -1 };
	uint64_t c = 0, before = 0, after = 0;
	struct rds_iovec lv;
	struct rds_rdma_args ra;
	unsigned int sent = 0;
	int err = 0, other = -1, st;

	if (!abuf || !bbuf || !pair_open(&p))
		goto out;
	if (!is_ok(get_mr(p.a, abuf, PAGE, 0, &c), "GET_MR") ||
	    !counter_get(p.a, "rdma_throttled", &before))
		goto out;
	lv.addr = (uintptr_t)bbuf;
	lv.bytes = 64;
	/* silent, on empty messages, no notice: only the refusals count */
	while (sent < 20000) {
		mk_rdma(&ra, c ^ (1ULL << 62), 0, 64, &lv, 1, RDS_RDMA_SILENT);
		if (send_rdma(p.b, &p.sa, &ra) < 0) {
			err = errno;
			break;
		}
		sent++;
	}
	tap_diag("sec_refusals_throttled: %u refused operations before the first refusal at sendmsg()",
		 sent);
	is_eq(err, EAGAIN, "a socket sending bad cookies soon gets EAGAIN");
	ok(sent >= 64, "but not before 64 refusals (%u)", sent);
	if (counter_get(p.a, "rdma_throttled", &after))
		ok(after > before, "rdma_throttled counts it");
	other = bound_socket_at(cfg.peer, 0, "setup: another socket");
	if (other >= 0) {
		struct pair q = p;

		q.b = other;
		pattern_fill(bbuf, PAGE, 9);
		st = run_write(&q, c, 0, bbuf, 64, "another socket");
		is_eq(st, RDS_RDMA_SUCCESS,
		      "another socket of the same user is not held back");
		check_pattern(abuf, 64, 9, "its write landed");
	}
	sleep_ms(1100);
	st = run_write(&p, c, 64, bbuf, 64, "after a second");
	is_eq(st, RDS_RDMA_SUCCESS,
	      "a second later the throttled socket's good cookie works");
out:
	if (other >= 0)
		close(other);
	pair_close(&p);
	xunmap(abuf, PAGE);
	xunmap(bbuf, PAGE);
}

/*
 * Cookies cannot be guessed: over 1000 registrations no two share a key,
 * consecutive keys are not neighbours, and every random bit (0-31 and
 * 44-63, mr.h) takes both values about equally often, over IB too: the
 * device's key is not in the cookie.
 */
static void test_sec_cookie_random(void)
{
	enum { N = 1000 };
	uint64_t *c = calloc(N, sizeof(*c)), keys[N];
	char *buf = xmap(PAGE);
	unsigned int i, b, fails = 0, near = 0, dups = 0, lopsided = 0;
	int fd = -1;

	if (!c || !buf)
		goto out;
	fd = bound_socket_at(cfg.addr, 0, "setup: bind");
	if (fd < 0)
		goto out;
	for (i = 0; i < N; i++) {
		if (get_mr(fd, buf + 16, 64, 0, &c[i]) || free_mr(fd, c[i], 0))
			fails++;
		keys[i] = cookie_key(c[i]);
		if (i && (keys[i] - keys[i - 1] + 256) % (1ULL << 32) < 512)
			near++;
	}
	is_eq(fails, 0, "1000 register/free cycles succeed");
	qsort(keys, N, sizeof(*keys), cmp_u64);
	for (i = 1; i < N; i++)
		dups += keys[i] == keys[i - 1];
	is_eq(dups, 0, "no key handed out twice");
	/* by chance: about 1000 * 512 / 2^32 */
	is_eq(near, 0, "no key lies within 256 of the one before");
	for (b = 0; b < 64; b++) {
		unsigned int ones = 0;

		if (b >= 32 && b < 44)
			continue;	/* the page offset */
		for (i = 0; i < N; i++)
			ones += (c[i] >> b) & 1;
		/* 300 and 700 are 12.6 standard deviations from 500 */
		if (ones < 300 || ones > 700)
			lopsided++;
	}
	is_eq(lopsided, 0, "each random bit is set in 30-70%% of cookies");
	ok(cookie_off(c[0]) % PAGE == 16, "the page offset is kept");
out:
	if (fd >= 0)
		close(fd);
	free(c);
	xunmap(buf, PAGE);
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static const struct selftest tests[] = {
	{ "mr_errors", test_mr_errors },
	{ "mr_cookies", test_mr_cookies },
	{ "mr_free", test_mr_free },
	{ "mr_memlock", test_mr_memlock },
	{ "mr_for_dest_family", test_mr_for_dest_family },
	{ "rdma_write_read", test_rdma_write_read },
	{ "rdma_iovecs", test_rdma_iovecs },
	{ "rdma_many_pieces", test_rdma_many_pieces },
	{ "rdma_visible_on_delivery", test_rdma_visible_on_delivery },
	{ "rdma_silent", test_rdma_silent },
	{ "rdma_refused", test_rdma_refused },
	{ "rdma_resolve_once", test_rdma_resolve_once },
	{ "remote_errors", test_remote_errors },
	{ "remote_read_only", test_remote_read_only },
	{ "remote_for_dest", test_remote_for_dest },
	{ "remote_use_once", test_remote_use_once },
	{ "silent_use_once", test_silent_use_once },
	{ "notify_tokens", test_notify_tokens },
	{ "notify_none_on_success", test_notify_none_on_success },
	{ "notify_recverr", test_notify_recverr },
	{ "notify_one_per_recv", test_notify_one_per_recv },
	{ "dest_live", test_dest_live },
	{ "dest_refused", test_dest_refused },
	{ "dest_map", test_dest_map },
	{ "atomic_fadd", test_atomic_fadd },
	{ "atomic_cswp", test_atomic_cswp },
	{ "atomic_masked_cswp", test_atomic_masked_cswp },
	{ "atomic_masked_fadd", test_atomic_masked_fadd },
	{ "atomic_refused", test_atomic_refused },
	{ "atomic_remote_errors", test_atomic_remote_errors },
	{ "atomic_concurrent", test_atomic_concurrent },
	{ "life_close_owner", test_life_close_owner },
	{ "life_close_initiator", test_life_close_initiator },
	{ "life_munmap_owner", test_life_munmap_owner },
	{ "life_munmap_local", test_life_munmap_local },
	{ "mrlist_basic", test_mrlist_basic },
	{ "mrlist_errors", test_mrlist_errors },
	{ "sec_cookie_owner", test_sec_cookie_owner },
	{ "sec_cookie_random", test_sec_cookie_random },
	{ "sec_refusals_throttled", test_sec_refusals_throttled },
};

/* With --impl rds: the cases that compare argument checks with net/rds. */
static const struct selftest rds_tests[] = {
	{ "rdma_refused", test_rdma_refused },
	{ "atomic_refused", test_atomic_refused },
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_common(argc, argv, NULL, NULL, NULL))
		return 2;
	if (!cfg.impl_doca) {
		if (!cfg_loopback()) {
			fprintf(stderr,
				"%s: --impl rds runs the refused-input cases over the\n"
				"loopback transport only\n", argv[0]);
			return 2;
		}
		return run_selftests("rds_rdma_test", rds_tests,
				     selftest_by_filter);
	}
	if (cfg_loopback() ? cfg.transport != RDS_TRANS_LOOP :
			     cfg.transport != RDS_TRANS_IB) {
		fprintf(stderr,
			"%s: run over the loopback transport (--addr and --peer in\n"
			"127.0.0.0/8, --transport loop) or over IB (--addr and --peer on\n"
			"an RDMA device, --transport ib)\n", argv[0]);
		return 2;
	}
	return run_selftests("rds_rdma_test", tests, selftest_by_filter);
}
