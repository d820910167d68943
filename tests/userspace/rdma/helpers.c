// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers rds_rdma_test's files share: memory, the pair of sockets and
 * the fixture, control messages, running operations, and the checks.
 */
#include "rdma.h"

/* Format a check name from the variadic arguments of the caller. */
#define VNAME(buf, fmt) do {					\
	va_list __ap;							\
	va_start(__ap, fmt);						\
	vsnprintf(buf, sizeof(buf), fmt, __ap);			\
	va_end(__ap);							\
} while (0)

/* Over the IB transport: the device does the work. */
/* --no-atomics: the RDMA device runs no atomics (iWARP) */
bool no_atomics;
/* --mr-pages N: the device maps at most N pages a region, 0: any */
unsigned long mr_pages;
/* --read-sinks N: a read lands in at most N regions (iWARP), 0: any */
unsigned long read_sinks;

/* Does a region of @len bytes at @p span more pages than the device maps? */
bool mr_too_big(const void *p, uint64_t len)
{
	uint64_t first = (uintptr_t)p / PAGE;
	uint64_t last = ((uintptr_t)p + len - 1) / PAGE;

	return mr_pages && len && last - first + 1 > mr_pages;
}

bool over_ib(void)
{
	return cfg.transport == RDS_TRANS_IB;
}

/* Anonymous read-write mapping, NULL on failure (a failed check). */
void *xmap(size_t len)
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

void xunmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

/* A read-only page, NULL if it cannot be mapped (not a check). */
void *map_read_only(void)
{
	void *ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);

	return ro == MAP_FAILED ? NULL : ro;
}

/* An address with nothing mapped at it. */
void *unmapped_addr(void)
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

bool pair_open(struct pair *p)
{
	p->b = -1;
	p->a = bound_socket_cfg(false, 0, "setup: bind A");
	if (p->a < 0)
		return false;
	p->b = bound_socket_cfg(true, 0, "setup: bind B");
	if (p->b < 0) {
		close(p->a);
		p->a = -1;
		return false;
	}
	p->sa = sock_addr(p->a);
	p->sb = sock_addr(p->b);
	return true;
}

void pair_close(struct pair *p)
{
	if (p->a >= 0)
		close(p->a);
	if (p->b >= 0)
		close(p->b);
	p->a = p->b = -1;
}

/*
 * Map the fixture's memory and open its pair; false after a failing check
 * (fixture_close() is still to be called).  Both mappings are made before
 * either is looked at, the pair only once both are there.
 */
bool fixture_open(struct rdma_fixture *f, size_t alen, size_t blen)
{
	memset(f, 0, sizeof(*f));
	f->p.a = f->p.b = -1;
	f->alen = alen;
	f->blen = blen;
	f->abuf = xmap(alen);
	if (blen)
		f->bbuf = xmap(blen);
	if (!f->abuf || (blen && !f->bbuf))
		return false;
	return pair_open(&f->p);
}

/*
 * RDS_GET_MR on A of @len bytes at @off in abuf, with @flags: one check
 * named @what.  The cookie goes to f->cookie.
 */
bool fixture_mr(struct rdma_fixture *f, size_t off, uint64_t len,
		uint64_t flags, const char *what)
{
	return is_ok(get_mr(f->p.a, f->abuf + off, len, flags, &f->cookie),
		     "%s", what);
}

/* fixture_open() and fixture_mr() of abuf's first @len bytes ("GET_MR"). */
bool fixture_open_mr(struct rdma_fixture *f, size_t alen, size_t blen,
		     uint64_t len)
{
	return fixture_open(f, alen, blen) &&
	       fixture_mr(f, 0, len, 0, "GET_MR");
}

void fixture_close(struct rdma_fixture *f)
{
	pair_close(&f->p);
	xunmap(f->abuf, f->alen);
	xunmap(f->bbuf, f->blen);
}

const char op_payload[] = OP_PAYLOAD;

/* sendmsg() of @payload with the control messages @c to @to. */
ssize_t send_cm(int fd, const union rds_sa *to, const void *payload,
		size_t plen, const struct cm *c)
{
	return cm_send(fd, to, payload, plen, c, 0);
}

/* One control message of @type carrying @args. */
static ssize_t send_op(int fd, const union rds_sa *to, int type,
		       const void *args, size_t alen)
{
	struct cm c;

	cm_init(&c);
	cm_add(&c, type, args, alen);
	return send_cm(fd, to, op_payload, sizeof(op_payload) - 1, &c);
}

ssize_t send_rdma(int fd, const union rds_sa *to,
		  const struct rds_rdma_args *ra)
{
	return send_op(fd, to, RDS_CMSG_RDMA_ARGS, ra, sizeof(*ra));
}

ssize_t send_atomic(int fd, const union rds_sa *to, int type,
		    const struct rds_atomic_args *aa)
{
	return send_op(fd, to, type, aa, sizeof(*aa));
}

uint64_t next_token = 1000;

void mk_rdma(struct rds_rdma_args *ra, uint64_t cookie, uint64_t raddr,
	     uint64_t bytes, const struct rds_iovec *lv, uint64_t nr,
	     uint64_t flags)
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

void mk_atomic(struct rds_atomic_args *aa, uint64_t cookie, uint64_t raddr,
	       void *local, uint64_t flags)
{
	memset(aa, 0, sizeof(*aa));
	aa->cookie = cookie;
	aa->remote_addr = raddr;
	aa->local_addr = (uintptr_t)local;
	aa->flags = flags;
	aa->user_token = next_token++;
}

/*
 * poll() @fd for up to @timeout_ms, then one recvmsg(MSG_DONTWAIT) with
 * @ctl bytes of control buffer (0: plenty).  Returns what recvmsg
 * returned, or -1 with errno ETIME if nothing came in time.
 */
ssize_t rx_one(int fd, struct rx *rx, size_t ctl, int timeout_ms)
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

const char *rx_err(void)
{
	return errno == ETIME ? "timed out" : tap_errname(errno);
}

/*
 * Wait for one notice on @fd (a control buffer for one) and store it in
 * @n.  On failure records a failing check named @what.
 */
bool get_notice(int fd, struct rds_rdma_notify *n, const char *what)
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
 * Two checks, over rds_doca only, after operations that were refused at
 * sendmsg(): no notice for B, no message for A.  (net/rds: poll() reports
 * POLLIN here with nothing to read.)
 */
void expect_refused_quiet(struct pair *p, const char *what)
{
	if (!cfg.impl_doca)
		return;
	expect_quiet(p->b, QUIET_WAIT_MS, "no notice for any refused %s", what);
	expect_quiet(p->a, QUIET_WAIT_MS, "no message from any refused %s",
		     what);
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
 * B sent an operation with @token: wait for its notice and, with @msg,
 * for the message at A.  Returns the status, or -1 after a failing check
 * named @what.
 */
int op_outcome(struct pair *p, uint64_t token, bool msg, const char *what)
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

/*
 * Run one RDMA from B to A's region with NOTIFY_ME: a failed sendmsg or
 * a missing notice or message are failing checks named @what.  Returns
 * the status, or -1.  @empty: on an empty message rather than op_payload.
 */
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
static int run_atomic_once(struct pair *p, int type, struct rds_atomic_args *aa,
			   const char *what)
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

int run_rdma_msg(struct pair *p, uint64_t cookie, uint64_t raddr, void *local,
		 uint64_t len, uint64_t flags, bool empty, const char *what)
{
	int st = run_rdma_once(p, cookie, raddr, local, len, flags, empty,
			       what);

	if (ib_retry(st))
		st = run_rdma_once(p, cookie, raddr, local, len, flags, empty,
				   what);
	return st;
}

int run_rdma(struct pair *p, uint64_t cookie, uint64_t raddr, void *local,
	     uint64_t len, uint64_t flags, const char *what)
{
	return run_rdma_msg(p, cookie, raddr, local, len, flags, false, what);
}

int run_atomic(struct pair *p, int type, struct rds_atomic_args *aa,
	       const char *what)
{
	int st = run_atomic_once(p, type, aa, what);

	if (ib_retry(st))
		st = run_atomic_once(p, type, aa, what);
	return st;
}

int run_write(struct pair *p, uint64_t cookie, uint64_t raddr, void *local,
	      uint64_t len, const char *what)
{
	return run_rdma(p, cookie, raddr, local, len, RDS_RDMA_READWRITE,
			what);
}

int run_read(struct pair *p, uint64_t cookie, uint64_t raddr, void *local,
	     uint64_t len, const char *what)
{
	return run_rdma(p, cookie, raddr, local, len, 0, what);
}

/* One check: @len bytes at @p are pattern @seed. */
bool check_pattern(const void *p, size_t len, uint32_t seed,
		   const char *fmt, ...)
{
	long bad = pattern_check(p, len, seed);
	char what[256];

	VNAME(what, fmt);

	return ok_diag(bad < 0, what, "byte %ld of %zu differs", bad, len);
}

/* One check: @len bytes at @p are all @c. */
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

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

void sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
}

/* Sort @v; how many of its values equal the one before. */
unsigned int count_dups(uint64_t *v, size_t n)
{
	unsigned int dups = 0;
	size_t i;

	sort_u64(v, n);
	for (i = 1; i < n; i++)
		dups += v[i] == v[i - 1];
	return dups;
}

/*
 * Read counter @name of the namespace of @fd from RDS_INFO_COUNTERS into
 * @val.  On failure records a failing check named after it.
 */
bool counter_get(int fd, const char *name, uint64_t *val)
{
	return counter_read(fd, name, val) ||
	       ok_diag(0, "RDS_INFO_COUNTERS", "no counter %s", name);
}

/*
 * A cookie for the refused-input cases: a region of @fd's over rds_doca;
 * under net/rds, whose loopback transport registers nothing (EOPNOTSUPP,
 * checked), a made-up one.
 */
bool refused_cookie(int fd, void *buf, uint64_t len, uint64_t *c)
{
	if (cfg.impl_doca)
		return is_ok(get_mr(fd, buf, len, 0, c), "GET_MR");
	is_err(get_mr(fd, buf, len, 0, c), EOPNOTSUPP,
	       "net/rds loopback: GET_MR -> EOPNOTSUPP");
	*c = 0x4567;	/* key 0x4567, offset 0 */
	return true;
}
