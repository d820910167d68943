// SPDX-License-Identifier: GPL-2.0
/*
 * rds_failnth: walk every allocation and user copy rds_doca makes in a
 * system call, failing one at a time, as syzkaller's fault injection does.
 *
 * Mechanism.  Writing N to /proc/thread-self/fail-nth makes the N-th fault
 * site the calling thread reaches fail; reading it back gives 0 once the
 * failure was injected, and N minus the sites passed if the call ended
 * first.  A site is a slab allocation (failslab), a page allocation
 * (fail_page_alloc) or a user copy (fail_usercopy) whose attribute's stack
 * trace filter matches.  tests/fuzz/failnth.sh sets the filters to
 * rds_doca's text, so only what is allocated or copied under one of the
 * module's frames counts (the core's socket and netlink allocations do
 * not), and leaves page allocations out unless asked (see failnth.sh).
 * Only the thread's own calls count: work items and softirqs never fail.
 *
 * Paths.  A path is a sequence of socket calls, e.g. socket, bind, a first
 * sendmsg() to a new peer, recvmsg(); some of its calls are walked.  For a
 * walked call K and N = 1, 2, 3 ... the walker makes a fresh context
 * (sockets, buffers, regions), runs the calls before K normally, makes
 * call K with fail-nth N, and then:
 *
 *  - if the failure was injected, the call must have succeeded (the
 *    module retried or fell back) or failed with a clean errno: ENOMEM,
 *    ENOBUFS, EAGAIN, EFAULT (a user copy), EINTR; for a netlink request
 *    EMSGSIZE, ENOMEM or ENOBUFS.  A failed call must leave no page pinned
 *    (VmPin does not rise), and made again without injection it must
 *    succeed, as an application retrying would;
 *  - the rest of the path runs without injection and must succeed;
 *  - nothing is lost: every message the path sent carries a sequence
 *    number; after a marker each way, the receiver must have got exactly
 *    the messages whose sendmsg() succeeded, once each and in order, and
 *    none whose sendmsg() failed.  Every RDMA or atomic operation whose
 *    sendmsg() succeeded reports RDS_RDMA_SUCCESS once, and did what it
 *    should (the region's bytes, the atomic word); one whose sendmsg()
 *    failed reports nothing and did nothing.  A region made by
 *    RDS_CMSG_RDMA_MAP for a send that failed names nothing;
 *  - a probe to port 0 is answered at most once, and once when no failure
 *    was injected;
 *  - every socket closes, and the pages pinned for regions and operations
 *    are released (VmPin back to what it was).
 *
 * A call that succeeds although its failure was injected is counted as
 * "succeeded": the failure was absorbed, by the module or by the kernel
 * below it (kmemleak's metadata falls back to a pool; an xarray tries a
 * node with GFP_NOWAIT first, then again with the caller's flags).  Only
 * one site fails per call, so a fallback is never failed itself.
 *
 * The paths: socket; bind; sockopt (buffer sizes, SO_RDS_TRANSPORT);
 * connect (the first sendmsg() to a new peer, which sets up the
 * connection); send (64 B and 256 KiB messages and their recvmsg()); mr
 * (RDS_GET_MR, RDS_GET_MR_FOR_DEST, RDS_DOCA_GET_MR_LIST, RDS_FREE_MR);
 * rdma (RDMA write and read with notices, the notices' recvmsg()); map
 * (RDS_CMSG_RDMA_MAP, and the RDS_CMSG_RDMA_DEST its receiver gets);
 * atomic (FADD and CSWP with notices); info (every RDS_INFO_* and
 * RDS6_INFO_*); cancel (RDS_CANCEL_SENT_TO); ping (a probe to port 0, which
 * the module answers from the prober's own call over loopback); poll;
 * close-recv and close-send (close() with messages queued or in flight);
 * netlink (the family lookup, every dump, INFO_GET, STATS_GET: the
 * netlink core's own allocations do not count, rds_doca's handlers' do).
 *
 * The walk of K ends at the first N whose call completes without reaching
 * the N-th site: N - 1 sites were walked.  Each walked call is one TAP
 * check, "<path>: <call>: N sites walked, every failure clean, nothing
 * lost", with what went wrong and how to run that one case again below a
 * failing one.  A table of sites and outcomes per call closes the run.
 *
 * The paths run over the loopback transport (default addresses 127.0.0.1
 * and 127.0.0.2) or over IB/RoCE (--transport ib: 192.0.2.1 and
 * 192.0.2.2).  A first send to a new peer sets up a connection: over
 * loopback each run of that path takes a peer address of its own in
 * 127.200/16, over IB/RoCE it waits until the module freed the connection
 * between the two addresses (it must be loaded with a small
 * conn_idle_secs, as failnth.sh does).
 *
 * Every wait has a deadline, and an alarm ends the program should a call
 * never return.  Run as root (buffer sizes beyond the sysctl limits);
 * tests/fuzz/failnth.sh configures the kernel and runs it.
 *
 *   rds_failnth [--transport loop|ib] [--addr A] [--peer B] [--family N]
 *               [--filter S[,S...]] [--list] [--cap N]
 *               [--path NAME [--call NAME|K [--nth N]]]
 */
#include "rds_util.h"

#include <sys/mman.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

/* Walk a call for at most this many sites. */
#define CAP_DEFAULT	500
/* Deadline for anything that must arrive; IB set-up under KASAN is slow. */
#define RECV_MS		15000
/* Deadline for pinned pages to be released. */
#define PIN_MS		10000
/* Deadline for the module to free an idle IB connection. */
#define REAP_MS		30000
/* A single case that takes this long is hung. */
#define CASE_ALARM_S	180

#define SMALL_LEN	64
#define LARGE_LEN	(256 << 10)
/* SO_SNDBUFFORCE/SO_RCVBUFFORCE: half is usable, room for a few large */
#define BUF_FORCE	(8 << 20)
/* The buffer size the sockopt path walks. */
#define BUF_SET		(1 << 20)
/* RDS_INFO_* buffer: one page, kvzalloc() stays a slab allocation */
#define INFO_LEN	4096

/* B's region: writes land at 0, reads come from READ_OFF. */
#define REG_LEN		(64 << 10)
#define OP_LEN		8192
#define READ_OFF	(32 << 10)
#define MAP_LEN		(16 << 10)
#define PAGE		4096

#define WRITE_SEED	0x57
#define READ_SEED	0x52
#define BACK_SEED	0x42
#define DEST_SEED	0x44
#define WORD_START	1000ULL

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define MAGIC_DATA	0x46544e44u	/* "DNTF" */
#define MAGIC_MARK	0x46544e4du	/* "MNTF" */

#define MAX_MSGS	64
#define MAX_OPS		32
#define MAX_PROBLEMS	8
/* A walk stops after this many cases with problems. */
#define MAX_BAD_CASES	3

/* Where a path or call applies. */
#define T_LOOP		1
#define T_IB		2
#define T_ALL		(T_LOOP | T_IB)

/* Call flags. */
#define C_WALK		1	/* walked, else only run */
#define C_NETLINK	2	/* a netlink request: its errnos */
#define C_NORETRY	4	/* close(): not made again after a failure */

struct fn_hdr {
	uint32_t magic;
	uint32_t seq;
	uint32_t len;		/* the whole payload */
	uint32_t pad;
};

/* What became of a message sendmsg() was asked to send. */
enum { M_SENT, M_FAILED, M_MAYBE };

struct out_msg {
	uint32_t seq;
	int state;
};

enum op_kind { OP_WRITE, OP_READ, OP_FADD, OP_CSWP };

static const char *const op_names[] = {
	[OP_WRITE] = "RDMA write", [OP_READ] = "RDMA read",
	[OP_FADD] = "FADD", [OP_CSWP] = "CSWP",
};

/* An RDMA or atomic operation; its token is its message's sequence. */
struct op {
	uint64_t token;
	int kind;
	char owner;		/* 'A' or 'B': whose notices */
	bool sent;
	const char *what;	/* reads and writes: the bytes they change */
	char *target;
	int seed;		/* and the pattern they put there */
	uint64_t before;	/* atomics: the word's value before */
	unsigned int slot;	/* atomics: where its result lands */
	unsigned int notices;
	int status;
};

/* One run of a path. */
struct ctx {
	int a, b, nl;
	bool a_setup, b_setup;
	bool a_closed, b_closed;
	struct in_addr b_addr;	/* where B binds */
	union rds_sa a_sin, b_sin;
	uint32_t seq;

	struct out_msg out[MAX_MSGS];	/* A to B, in sendmsg() order */
	unsigned int nout;
	uint32_t in[MAX_MSGS * 2];	/* what B received, in order */
	unsigned int nin;
	unsigned int a_msgs;		/* data messages A received */
	uint32_t b_mark, a_mark;	/* markers received */
	unsigned int bad_payload, junk, stray;
	unsigned int probes, pongs;	/* probes sent, replies A got */
	bool injected;			/* the walked call met its failure */

	struct op ops[MAX_OPS];
	unsigned int nops;
	uint64_t model;			/* what the atomic word must hold */
	unsigned int nres;

	uint64_t cookie, cookie2, cookie3, wcookie;	/* B's regions */
	bool cookie_freed;
	uint64_t map_cookie;		/* A's, from RDS_CMSG_RDMA_MAP */
	uint64_t map_slot;		/* where sendmsg() writes it */
	uint64_t map_dead[4];		/* of sends that failed */
	unsigned int nmap_dead;
	bool map_sent;
	uint64_t dest_cookie;		/* RDS_CMSG_RDMA_DEST B received */

	uint16_t nl_family;
	uint32_t nl_seq;
	int nl_objs;
};

struct call {
	const char *name;
	int (*prep)(struct ctx *c);	/* before fail-nth is armed */
	int (*fn)(struct ctx *c);	/* the call: 0 or -errno */
	unsigned int flags;
	unsigned int where;
};

struct path {
	const char *name;
	unsigned int where;
	/* a fresh peer, or a freed connection; -errno if it cannot be had */
	int (*begin)(struct ctx *c, unsigned int n);
	/* checks of the path's own, before the generic ones */
	void (*extra)(struct ctx *c);
	const struct call *calls;
	unsigned int ncalls;
};

/* The walk of one call: its outcomes and problems. */
struct walk {
	const struct path *p;
	const struct call *k;
	unsigned int n;			/* the case being run */
	unsigned int sites;
	bool finished;
	unsigned int cases_bad;
	bool case_bad;
	unsigned int nproblems;
	char problems[MAX_PROBLEMS][240];
	unsigned int errs[256];		/* failed calls by errno */
	unsigned int succeeded;		/* injected, yet the call succeeded */
	unsigned int flaky;		/* site counts that changed */
	long long ms;
};

static struct walk *cur;
static int cap = CAP_DEFAULT;
static const char *only_path, *only_call;
static unsigned int only_nth;
static bool is_ib;
static long pin_base;
static unsigned int fresh_peer;
static int conn_idle_secs = -1;

/* Buffers, made once; their contents are set again for every case. */
static char *big, *rxbuf;
static char *reg, *reg2, *reg3, *loc, *rbuf, *map, *backbuf;
static uint64_t *word, *res;
static char nlbuf[65536];

/* For the alarm: what was running. */
static char running[160];

/* ------------------------------------------------------------------ */
/* problems and the alarm                                              */
/* ------------------------------------------------------------------ */

/* problem("fmt", ...): the printf() that is never made checks the format */
#define problem(...)							\
	do {								\
		if (0)							\
			printf(__VA_ARGS__);				\
		add_problem(__VA_ARGS__);				\
	} while (0)

static void add_problem(const char *fmt, ...)
{
	va_list ap;
	int len;

	if (!cur)
		return;
	cur->case_bad = true;
	if (cur->nproblems >= MAX_PROBLEMS) {
		cur->nproblems++;
		return;
	}
	len = snprintf(cur->problems[cur->nproblems], 32, "n=%u: ", cur->n);
	va_start(ap, fmt);
	vsnprintf(cur->problems[cur->nproblems] + len,
		  sizeof(cur->problems[0]) - len, fmt, ap);
	va_end(ap);
	cur->nproblems++;
}

static void on_alarm(int sig)
{
	static const char pre[] = "# hung for " TAP_STR(CASE_ALARM_S) " s in ";
	ssize_t r;

	(void)sig;
	r = write(1, pre, sizeof(pre) - 1);
	r = write(1, running, strnlen(running, sizeof(running)));
	r = write(1, "\n", 1);
	(void)r;
	_exit(3);
}

/* ------------------------------------------------------------------ */
/* fail-nth                                                            */
/* ------------------------------------------------------------------ */

/* Make the @n-th fault site of this thread fail; returns the fd, or -1. */
static int fail_arm(unsigned int n)
{
	char buf[16];
	int fd, len;

	fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%u", n);
	if (write(fd, buf, len) != len) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Disarm: returns what fail-nth counted down to (0: the failure was
 * injected), or -1 if it cannot be read.
 */
static long fail_disarm(int fd)
{
	char buf[16] = "";
	ssize_t r;
	long left;

	r = pread(fd, buf, sizeof(buf) - 1, 0);
	left = r > 0 ? strtol(buf, NULL, 10) : -1;
	if (pwrite(fd, "0", 1, 0) != 1)
		left = -1;
	close(fd);
	return left;
}

/* ------------------------------------------------------------------ */
/* memory                                                              */
/* ------------------------------------------------------------------ */

/*
 * Wait up to PIN_MS for VmPin to be @kb, or at most @kb with @or_less;
 * returns the last value.
 */
static long vm_pin_settle(long kb, bool or_less)
{
	long long deadline = now_ms() + PIN_MS;
	long v;

	while ((v = vm_pin_kb()) != kb && !(or_less && v < kb) &&
	       now_ms() < deadline)
		sleep_ms(5);
	return v;
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static bool buffers_make(void)
{
	big = map_anon(LARGE_LEN);
	rxbuf = map_anon(LARGE_LEN + PAGE);
	reg = map_anon(REG_LEN);
	reg2 = map_anon(REG_LEN);
	reg3 = map_anon(OP_LEN);
	loc = map_anon(OP_LEN);
	rbuf = map_anon(OP_LEN);
	map = map_anon(MAP_LEN);
	backbuf = map_anon(OP_LEN);
	word = map_anon(PAGE);
	res = map_anon(PAGE);
	return big && rxbuf && reg && reg2 && reg3 && loc && rbuf && map &&
	       backbuf && word && res;
}

/* The contents every case starts from; the pages are touched here. */
static void buffers_reset(void)
{
	memset(reg, 0, REG_LEN);
	pattern_fill(reg + READ_OFF, OP_LEN, READ_SEED);
	memset(reg2, 0, REG_LEN);
	memset(reg3, 0, OP_LEN);
	pattern_fill(loc, OP_LEN, WRITE_SEED);
	memset(rbuf, 0, OP_LEN);
	memset(map, 0, MAP_LEN);
	pattern_fill(backbuf, OP_LEN, BACK_SEED);
	memset(word, 0, PAGE);
	word[0] = WORD_START;
	memset(res, 0xff, PAGE);
	memset(rxbuf, 0, PAGE);
}

/* ------------------------------------------------------------------ */
/* sockets and messages                                                */
/* ------------------------------------------------------------------ */

/* Deadlines and buffer room for a new RDS socket. */
static void sock_setup(int fd)
{
	struct timeval tv = { 10, 0 };
	int v = BUF_FORCE;

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v));
}

/* After every call, outside fail-nth: set up new sockets, learn names. */
static void ctx_learn(struct ctx *c)
{
	if (c->a >= 0 && !c->a_setup) {
		sock_setup(c->a);
		c->a_setup = true;
	}
	if (c->b >= 0 && !c->b_setup) {
		sock_setup(c->b);
		c->b_setup = true;
	}
	if (c->a >= 0 && !sa_port(&c->a_sin))
		c->a_sin = sock_addr(c->a);
	if (c->b >= 0 && !sa_port(&c->b_sin))
		c->b_sin = sock_addr(c->b);
}

static void ctx_init(struct ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->a = c->b = c->nl = -1;
	c->b_addr = cfg.peer;
	c->seq = 1;
	c->model = WORD_START;
	buffers_reset();
}

/*
 * One message of @len bytes (at least the header) from @fd to @to,
 * numbered @seq, with control messages @m; 0 or -errno.
 */
static int send_msg(int fd, const union rds_sa *to, uint32_t magic,
		    uint32_t seq, size_t len, const struct cm *m)
{
	struct fn_hdr *h = (struct fn_hdr *)big;

	h->magic = magic;
	h->seq = seq;
	h->len = len;
	h->pad = 0;
	pattern_fill(big + sizeof(*h), len - sizeof(*h), seq);
	return cm_send(fd, to, big, len, m, 0) < 0 ? -errno : 0;
}

static void out_add(struct ctx *c, uint32_t seq, bool sent)
{
	if (c->nout < MAX_MSGS)
		c->out[c->nout++] = (struct out_msg){ seq, sent ? M_SENT :
						      M_FAILED };
}

static struct op *op_add(struct ctx *c, int kind, char owner, uint64_t token)
{
	struct op *o;

	if (c->nops >= MAX_OPS)
		return NULL;
	o = &c->ops[c->nops++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->owner = owner;
	o->token = token;
	return o;
}

static struct op *op_find(struct ctx *c, char owner, uint64_t token)
{
	unsigned int i;

	for (i = 0; i < c->nops; i++)
		if (c->ops[i].owner == owner && c->ops[i].token == token)
			return &c->ops[i];
	return NULL;
}

/*
 * One recvmsg() on @fd (A's or B's, @who) without waiting; records what
 * came: data and markers, notices, a RDMA_DEST cookie.  0 or -errno.
 */
static int rx_one(struct ctx *c, int fd, char who)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct rds_rdma_notify)) * 32 +
			 CMSG_SPACE(sizeof(uint64_t)) * 4];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { rxbuf, LARGE_LEN + PAGE };
	struct msghdr m = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf.buf,
		.msg_controllen = sizeof(cbuf.buf),
	};
	struct fn_hdr *h = (struct fn_hdr *)rxbuf;
	struct sockaddr_in from;
	uint64_t dest = 0;
	struct cmsghdr *ch;
	bool note = false;
	ssize_t r;

	memset(&from, 0, sizeof(from));
	m.msg_name = &from;
	m.msg_namelen = sizeof(from);
	r = recvmsg(fd, &m, MSG_DONTWAIT);
	if (r < 0)
		return -errno;
	for (ch = CMSG_FIRSTHDR(&m); ch; ch = CMSG_NXTHDR(&m, ch)) {
		struct rds_rdma_notify n;
		struct op *o;

		if (ch->cmsg_level != SOL_RDS)
			continue;
		if (ch->cmsg_type == RDS_CMSG_RDMA_DEST) {
			memcpy(&dest, CMSG_DATA(ch), sizeof(dest));
			continue;
		}
		if (ch->cmsg_type != RDS_CMSG_RDMA_STATUS)
			continue;
		note = true;
		memcpy(&n, CMSG_DATA(ch), sizeof(n));
		o = op_find(c, who, n.user_token);
		if (!o) {
			c->stray++;
			continue;
		}
		if (!o->notices++ || n.status != RDS_RDMA_SUCCESS)
			o->status = n.status;
	}
	if (note)
		return 0;
	/* the module's reply to a probe: empty, from port 0 */
	if (r == 0 && !from.sin_port && who == 'A') {
		c->pongs++;
		return 0;
	}
	if (r < (ssize_t)sizeof(*h) || h->len != (uint32_t)r ||
	    (h->magic != MAGIC_DATA && h->magic != MAGIC_MARK)) {
		c->junk++;
		return 0;
	}
	if (pattern_check(rxbuf + sizeof(*h), r - sizeof(*h), h->seq) >= 0)
		c->bad_payload++;
	if (h->magic == MAGIC_MARK) {
		if (who == 'B')
			c->b_mark = h->seq;
		else
			c->a_mark = h->seq;
		return 0;
	}
	if (who == 'A') {
		c->a_msgs++;
		return 0;
	}
	if (c->nin < ARRAY_SIZE(c->in))
		c->in[c->nin++] = h->seq;
	if (dest)
		c->dest_cookie = dest;
	return 0;
}

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) > 0;
}

/* Wait up to RECV_MS for @fd to be readable; 0 or -ETIME. */
static int wait_readable(int fd)
{
	return readable(fd, RECV_MS) ? 0 : -ETIME;
}

/* Are the notices @who is owed all there? */
static bool notices_in(struct ctx *c, char who)
{
	unsigned int i;

	for (i = 0; i < c->nops; i++)
		if (c->ops[i].owner == who && c->ops[i].sent &&
		    !c->ops[i].notices)
			return false;
	return true;
}

/*
 * Receive on @fd (@who's) until its marker @mark came (0: none expected)
 * and its notices, or RECV_MS passed.  Returns whether all came.
 */
static bool collect(struct ctx *c, int fd, char who, uint32_t mark)
{
	long long deadline = now_ms() + RECV_MS;

	for (;;) {
		uint32_t got = who == 'A' ? c->a_mark : c->b_mark;

		if ((!mark || got == mark) && notices_in(c, who))
			return true;
		if (now_ms() >= deadline)
			return false;
		if (!readable(fd, 100))
			continue;
		while (rx_one(c, fd, who) == 0)
			;
	}
}

/* A bound RDS socket at @a:0, set up; -errno. */
static int new_bound(struct in_addr a)
{
	struct sockaddr_in sin = sin_make(a, 0);
	int fd = rds_socket(), e;

	if (fd < 0)
		return -errno;
	sock_setup(fd);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* ------------------------------------------------------------------ */
/* the calls                                                           */
/* ------------------------------------------------------------------ */

static int ret0(int r)
{
	return r < 0 ? -errno : 0;
}

static int c_socket_a(struct ctx *c)
{
	c->a = rds_socket();
	return ret0(c->a);
}

static int c_socket_b(struct ctx *c)
{
	c->b = rds_socket();
	return ret0(c->b);
}

static int c_bind_a(struct ctx *c)
{
	struct sockaddr_in sin = sin_make(cfg.addr, 0);

	return ret0(bind(c->a, (struct sockaddr *)&sin, sizeof(sin)));
}

static int c_bind_b(struct ctx *c)
{
	struct sockaddr_in sin = sin_make(c->b_addr, 0);

	return ret0(bind(c->b, (struct sockaddr *)&sin, sizeof(sin)));
}

static int c_sndbuf(struct ctx *c)
{
	int v = BUF_SET;

	return ret0(setsockopt(c->a, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)));
}

static int c_rcvbuf(struct ctx *c)
{
	int v = BUF_SET;

	return ret0(setsockopt(c->a, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)));
}

static int c_set_trans(struct ctx *c)
{
	int v = RDS_TRANS_IB;

	return ret0(setsockopt(c->a, SOL_RDS, SO_RDS_TRANSPORT, &v,
			       sizeof(v)));
}

static int c_get_trans(struct ctx *c)
{
	socklen_t l = sizeof(int);
	int v = -1;

	return ret0(getsockopt(c->a, SOL_RDS, SO_RDS_TRANSPORT, &v, &l));
}

/* A data message of @len bytes from A to B. */
static int send_data(struct ctx *c, size_t len)
{
	uint32_t seq = c->seq++;
	int r = send_msg(c->a, &c->b_sin, MAGIC_DATA, seq, len, NULL);

	out_add(c, seq, !r);
	return r;
}

static int c_send_small(struct ctx *c)
{
	return send_data(c, SMALL_LEN);
}

static int c_send_large(struct ctx *c)
{
	return send_data(c, LARGE_LEN);
}

static int p_wait_b(struct ctx *c)
{
	return wait_readable(c->b);
}

static int p_wait_a(struct ctx *c)
{
	return wait_readable(c->a);
}

static int c_recv_b(struct ctx *c)
{
	return rx_one(c, c->b, 'B');
}

static int c_recv_a(struct ctx *c)
{
	return rx_one(c, c->a, 'A');
}

static int get_mr_at(int fd, void *addr, size_t len, uint64_t *cookie)
{
	return ret0(get_mr(fd, addr, len, 0, cookie));
}

static int c_get_mr(struct ctx *c)
{
	c->cookie_freed = false;
	return get_mr_at(c->b, reg, REG_LEN, &c->cookie);
}

static int c_get_mr_dest(struct ctx *c)
{
	struct rds_get_mr_for_dest_args g;

	memset(&g, 0, sizeof(g));
	memcpy(&g.dest_addr, &c->a_sin, sizeof(c->a_sin));
	g.vec.addr = (uintptr_t)reg2;
	g.vec.bytes = REG_LEN;
	g.cookie_addr = (uintptr_t)&c->cookie2;
	return ret0(setsockopt(c->b, SOL_RDS, RDS_GET_MR_FOR_DEST, &g,
			       sizeof(g)));
}

/* rds_doca's own: a region of two buffers, here the two pages of reg3 */
static int c_get_mr_list(struct ctx *c)
{
	struct rds_iovec v[2] = {
		{ (uintptr_t)reg3, PAGE }, { (uintptr_t)reg3 + PAGE, PAGE },
	};
	struct rds_doca_get_mr_list_args g = {
		.vecs_addr = (uintptr_t)v,
		.nr_vecs = 2,
		.cookie_addr = (uintptr_t)&c->cookie3,
	};

	return ret0(setsockopt(c->b, SOL_RDS, RDS_DOCA_GET_MR_LIST, &g,
			       sizeof(g)));
}

static int c_free_mr(struct ctx *c)
{
	int r = ret0(free_mr(c->b, c->cookie, 0));

	if (!r)
		c->cookie_freed = true;
	return r;
}

static int c_get_word_mr(struct ctx *c)
{
	return get_mr_at(c->b, word, 8, &c->wcookie);
}

/* Where a read or write acts, for the checks. */
struct rdma_target {
	const char *what;
	char *bytes;		/* the bytes it changes */
	int seed;		/* the pattern it puts there */
};

/*
 * An RDMA read or write between @local and @off in the region of @cookie,
 * with notice, riding on a header-only message; @from sends it to @to,
 * @owner names whose notices these are.
 */
static int send_rdma(struct ctx *c, int from, const union rds_sa *to,
		     char owner, int kind, uint64_t cookie, void *local,
		     uint64_t off, const struct rdma_target *t)
{
	struct rds_iovec lv = { (uintptr_t)local, OP_LEN };
	struct rds_rdma_args ra;
	uint32_t seq = c->seq++;
	struct cm m;
	struct op *o;
	int r;

	memset(&ra, 0, sizeof(ra));
	ra.cookie = cookie;
	ra.remote_vec.addr = off;
	ra.remote_vec.bytes = OP_LEN;
	ra.local_vec_addr = (uintptr_t)&lv;
	ra.nr_local = 1;
	ra.flags = RDS_RDMA_NOTIFY_ME |
		   (kind == OP_WRITE ? RDS_RDMA_READWRITE : 0);
	ra.user_token = seq;
	cm_init(&m);
	cm_add(&m, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	r = send_msg(from, to, MAGIC_DATA, seq, sizeof(struct fn_hdr), &m);
	o = op_add(c, kind, owner, seq);
	if (o) {
		o->sent = !r;
		o->what = t->what;
		o->target = t->bytes;
		o->seed = t->seed;
	}
	if (owner == 'A')
		out_add(c, seq, !r);
	return r;
}

static const struct rdma_target to_reg = {
	"B's region after A's RDMA write", NULL, WRITE_SEED,
};
static const struct rdma_target to_reg2 = {
	"B's RDS_GET_MR_FOR_DEST region after A's RDMA write", NULL,
	WRITE_SEED,
};
static const struct rdma_target to_reg3 = {
	"B's RDS_DOCA_GET_MR_LIST region after A's RDMA write", NULL,
	WRITE_SEED,
};
static const struct rdma_target to_rbuf = {
	"A's buffer after its RDMA read", NULL, READ_SEED,
};
static const struct rdma_target to_map = {
	"A's mapped region after B's RDMA write", NULL, BACK_SEED,
};

/* The bytes are only known once the buffers are mapped. */
static struct rdma_target target(const struct rdma_target *t, char *bytes)
{
	struct rdma_target r = *t;

	r.bytes = bytes;
	return r;
}

static int c_rdma_write(struct ctx *c)
{
	struct rdma_target t = target(&to_reg, reg);

	return send_rdma(c, c->a, &c->b_sin, 'A', OP_WRITE, c->cookie, loc,
			 0, &t);
}

static int c_rdma_read(struct ctx *c)
{
	struct rdma_target t = target(&to_rbuf, rbuf);

	return send_rdma(c, c->a, &c->b_sin, 'A', OP_READ, c->cookie, rbuf,
			 READ_OFF, &t);
}

/* An atomic on B's word; the model follows what a success does. */
static int send_atomic(struct ctx *c, int kind)
{
	struct rds_atomic_args aa;
	uint32_t seq = c->seq++;
	unsigned int slot = c->nres++ % (PAGE / 8);
	struct cm m;
	struct op *o;
	int r;

	memset(&aa, 0, sizeof(aa));
	aa.cookie = c->wcookie;
	aa.local_addr = (uintptr_t)&res[slot];
	aa.remote_addr = 0;
	if (kind == OP_FADD) {
		aa.fadd.add = 1;
	} else {
		aa.cswp.compare = c->model;
		aa.cswp.swap = c->model + 100;
	}
	aa.flags = RDS_RDMA_NOTIFY_ME;
	aa.user_token = seq;
	cm_init(&m);
	cm_add(&m, kind == OP_FADD ? RDS_CMSG_ATOMIC_FADD :
	       RDS_CMSG_ATOMIC_CSWP, &aa, sizeof(aa));
	r = send_msg(c->a, &c->b_sin, MAGIC_DATA, seq,
		     sizeof(struct fn_hdr), &m);
	o = op_add(c, kind, 'A', seq);
	if (o) {
		o->sent = !r;
		o->before = c->model;
		o->slot = slot;
	}
	if (!r)
		c->model += kind == OP_FADD ? 1 : 100;
	out_add(c, seq, !r);
	return r;
}

static int c_fadd(struct ctx *c)
{
	return send_atomic(c, OP_FADD);
}

static int c_cswp(struct ctx *c)
{
	return send_atomic(c, OP_CSWP);
}

/* A message that maps A's region for B: RDS_CMSG_RDMA_MAP. */
static int c_rdma_map(struct ctx *c)
{
	struct rds_get_mr_args g;
	uint32_t seq = c->seq++;
	struct cm m;
	int r;

	memset(&g, 0, sizeof(g));
	g.vec.addr = (uintptr_t)map;
	g.vec.bytes = MAP_LEN;
	g.cookie_addr = (uintptr_t)&c->map_slot;
	c->map_slot = 0;
	cm_init(&m);
	cm_add(&m, RDS_CMSG_RDMA_MAP, &g, sizeof(g));
	r = send_msg(c->a, &c->b_sin, MAGIC_DATA, seq, SMALL_LEN, &m);
	out_add(c, seq, !r);
	if (!r) {
		c->map_cookie = c->map_slot;
		c->map_sent = true;
	} else if (c->map_slot && c->nmap_dead < ARRAY_SIZE(c->map_dead)) {
		c->map_dead[c->nmap_dead++] = c->map_slot;
	}
	return r;
}

static int info_get_opt(struct ctx *c, int opt)
{
	static char buf[INFO_LEN];
	socklen_t l = sizeof(buf);

	return ret0(getsockopt(c->a, SOL_RDS, opt, buf, &l));
}

#define INFO_CALL(name, opt)						\
static int c_##name(struct ctx *c)					\
{									\
	return info_get_opt(c, opt);					\
}
INFO_CALL(info_counters, RDS_INFO_COUNTERS)
INFO_CALL(info_conns, RDS_INFO_CONNECTIONS)
INFO_CALL(info_send, RDS_INFO_SEND_MESSAGES)
INFO_CALL(info_retrans, RDS_INFO_RETRANS_MESSAGES)
INFO_CALL(info_recv, RDS_INFO_RECV_MESSAGES)
INFO_CALL(info_socks, RDS_INFO_SOCKETS)
INFO_CALL(info_ib, RDS_INFO_IB_CONNECTIONS)
INFO_CALL(info6_conns, RDS6_INFO_CONNECTIONS)
INFO_CALL(info6_send, RDS6_INFO_SEND_MESSAGES)
INFO_CALL(info6_retrans, RDS6_INFO_RETRANS_MESSAGES)
INFO_CALL(info6_recv, RDS6_INFO_RECV_MESSAGES)
INFO_CALL(info6_socks, RDS6_INFO_SOCKETS)
INFO_CALL(info6_ib, RDS6_INFO_IB_CONNECTIONS)

static int c_cancel(struct ctx *c)
{
	unsigned int i;
	int r;

	r = ret0(setsockopt(c->a, SOL_RDS, RDS_CANCEL_SENT_TO, &c->b_sin,
			    sizeof(c->b_sin)));
	/* what was sent before may now be dropped, never doubled */
	for (i = 0; !r && i < c->nout; i++)
		if (c->out[i].state == M_SENT)
			c->out[i].state = M_MAYBE;
	return r;
}

/* A probe: an empty message to port 0 of B's address. */
static int c_ping(struct ctx *c)
{
	union rds_sa to = sa_in(sin_make(c->b_addr, 0));
	int r = ret0(cm_send(c->a, &to, NULL, 0, NULL, 0));

	if (!r)
		c->probes++;
	return r;
}

static int c_poll_b(struct ctx *c)
{
	struct pollfd p = { .fd = c->b, .events = POLLIN };

	return ret0(poll(&p, 1, 0));
}

static int c_poll_a(struct ctx *c)
{
	struct pollfd p = { .fd = c->a, .events = POLLOUT };

	return ret0(poll(&p, 1, 0));
}

static int c_close_a(struct ctx *c)
{
	int r = ret0(close(c->a));

	c->a = -1;
	c->a_closed = true;
	return r;
}

static int c_close_b(struct ctx *c)
{
	int r = ret0(close(c->b));

	c->b = -1;
	c->b_closed = true;
	return r;
}

/* ------------------------------------------------------------------ */
/* generic netlink                                                     */
/* ------------------------------------------------------------------ */

static int c_nl_socket(struct ctx *c)
{
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK };
	struct timeval tv = { 5, 0 };

	c->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (c->nl < 0)
		return -errno;
	setsockopt(c->nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return ret0(bind(c->nl, (struct sockaddr *)&snl, sizeof(snl)));
}

/*
 * One request: a dump or a "do" with an acknowledgment, answers read
 * until the end.  Counts the objects in c->nl_objs; learns the family id
 * from a CTRL_CMD_GETFAMILY answer.  0 or -errno; -ETIME if the answer
 * stopped coming.
 */
static int nl_request(struct ctx *c, uint16_t type, uint8_t cmd, bool dump)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char attrs[64];
	} req;
	uint32_t seq = ++c->nl_seq;
	struct nlattr *na;
	size_t nlen;

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK);
	req.n.nlmsg_seq = seq;
	req.g.cmd = cmd;
	req.g.version = type == GENL_ID_CTRL ? 1 : RDS_DOCA_GENL_VERSION;
	if (type == GENL_ID_CTRL) {
		nlen = strlen(RDS_DOCA_GENL_NAME) + 1;
		na = (struct nlattr *)req.attrs;
		na->nla_type = CTRL_ATTR_FAMILY_NAME;
		na->nla_len = NLA_HDRLEN + nlen;
		memcpy((char *)na + NLA_HDRLEN, RDS_DOCA_GENL_NAME, nlen);
		req.n.nlmsg_len += NLA_ALIGN(na->nla_len);
	}
	c->nl_objs = 0;
	if (send(c->nl, &req, req.n.nlmsg_len, 0) < 0)
		return -errno;

	for (;;) {
		ssize_t len = recv(c->nl, nlbuf, sizeof(nlbuf), 0);
		struct nlmsghdr *h;

		if (len < 0)
			return errno == EAGAIN ? -ETIME : -errno;
		for (h = (struct nlmsghdr *)nlbuf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&err, NLMSG_DATA(h),
					       sizeof(err));
				return err;
			}
			c->nl_objs++;
			if (type != GENL_ID_CTRL)
				continue;
			/* the family id */
			{
				int alen = h->nlmsg_len -
					   NLMSG_LENGTH(GENL_HDRLEN);

				na = (struct nlattr *)((char *)NLMSG_DATA(h) +
						       GENL_HDRLEN);
				for (; alen >= NLA_HDRLEN &&
				     na->nla_len >= NLA_HDRLEN &&
				     na->nla_len <= alen;
				     alen -= NLA_ALIGN(na->nla_len),
				     na = (struct nlattr *)((char *)na +
					     NLA_ALIGN(na->nla_len)))
					if (na->nla_type == CTRL_ATTR_FAMILY_ID)
						memcpy(&c->nl_family,
						       (char *)na + NLA_HDRLEN,
						       2);
			}
		}
	}
}

static int c_nl_family(struct ctx *c)
{
	return nl_request(c, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, false);
}

#define NL_CALL(name, cmd, dump)					\
static int c_nl_##name(struct ctx *c)					\
{									\
	return nl_request(c, c->nl_family, cmd, dump);			\
}
NL_CALL(conn, RDS_DOCA_CMD_CONN_GET, true)
NL_CALL(sock, RDS_DOCA_CMD_SOCK_GET, true)
NL_CALL(mr, RDS_DOCA_CMD_MR_GET, true)
NL_CALL(dev, RDS_DOCA_CMD_DEV_GET, true)
NL_CALL(info, RDS_DOCA_CMD_INFO_GET, false)
NL_CALL(stats, RDS_DOCA_CMD_STATS_GET, false)

/* ------------------------------------------------------------------ */
/* connections                                                         */
/* ------------------------------------------------------------------ */

/* Connections between @x and @y, either way, or -1. */
static int conn_count(struct in_addr x, struct in_addr y)
{
	struct rds_info_connection *ic;
	socklen_t len;
	int fd = rds_socket(), n = 0, r;
	size_t i;
	void *buf;

	if (fd < 0)
		return -1;
	r = info_get(fd, RDS_INFO_CONNECTIONS, &buf, &len);
	close(fd);
	if (r < 0)
		return -1;
	ic = buf;
	for (i = 0; r && i < len / r; i++) {
		ic = (struct rds_info_connection *)((char *)buf + i * r);
		if ((ic->laddr == x.s_addr && ic->faddr == y.s_addr) ||
		    (ic->laddr == y.s_addr && ic->faddr == x.s_addr))
			n++;
	}
	free(buf);
	return n;
}

/*
 * The first send to a new peer: over loopback a peer address of its own
 * for every case, over IB/RoCE the one connection freed first.
 */
static int begin_new_peer(struct ctx *c, unsigned int n)
{
	long long deadline = now_ms() + REAP_MS;
	int k;

	(void)n;
	if (!is_ib) {
		fresh_peer++;
		c->b_addr.s_addr = htonl(0x7fc80000u |
					 ((fresh_peer / 250) & 0xff) << 8 |
					 (fresh_peer % 250 + 1));
		return 0;
	}
	while ((k = conn_count(cfg.addr, cfg.peer)) > 0 && now_ms() < deadline)
		sleep_ms(100);
	return k == 0 ? 0 : k < 0 ? -EIO : -ETIME;
}

/* A peer address of its own over loopback; over IB/RoCE the usual one. */
static int begin_new_peer_loop(struct ctx *c, unsigned int n)
{
	return is_ib ? 0 : begin_new_peer(c, n);
}

/* ------------------------------------------------------------------ */
/* checks of a path's own                                              */
/* ------------------------------------------------------------------ */

/* The regions of the mr path work, and the one freed is gone. */
static void extra_mr(struct ctx *c)
{
	struct rdma_target t1 = target(&to_reg, reg);
	struct rdma_target t2 = target(&to_reg2, reg2);
	struct rdma_target t3 = target(&to_reg3, reg3);
	int r;

	if (c->cookie_freed) {
		errno = 0;
		if (free_mr(c->b, c->cookie, 0) != -1 || errno != EINVAL)
			problem("RDS_FREE_MR of the freed cookie again: %s, expected EINVAL",
				tap_errname(errno));
	} else if (c->cookie) {
		r = send_rdma(c, c->a, &c->b_sin, 'A', OP_WRITE, c->cookie,
			      loc, 0, &t1);
		if (r)
			problem("RDMA write to the RDS_GET_MR region: %s",
				tap_errname(-r));
	}
	if (c->cookie2) {
		r = send_rdma(c, c->a, &c->b_sin, 'A', OP_WRITE, c->cookie2,
			      loc, 0, &t2);
		if (r)
			problem("RDMA write to the RDS_GET_MR_FOR_DEST region: %s",
				tap_errname(-r));
	}
	if (c->cookie3) {
		r = send_rdma(c, c->a, &c->b_sin, 'A', OP_WRITE, c->cookie3,
			      loc, 0, &t3);
		if (r)
			problem("RDMA write to the RDS_DOCA_GET_MR_LIST region: %s",
				tap_errname(-r));
	}
}

/*
 * The region RDS_CMSG_RDMA_MAP made is B's to write, and A's to free;
 * one made for a send that failed names nothing.
 */
static void extra_map(struct ctx *c)
{
	struct rdma_target t = target(&to_map, map);
	unsigned int i;
	int r;

	for (i = 0; i < c->nmap_dead; i++) {
		errno = 0;
		if (free_mr(c->a, c->map_dead[i], 0) != -1 || errno != EINVAL)
			problem("the cookie RDS_CMSG_RDMA_MAP wrote for a send that failed names a region: RDS_FREE_MR %s, expected EINVAL",
				tap_errname(errno));
	}
	if (!c->map_sent)
		return;
	if (c->dest_cookie != c->map_cookie) {
		problem("B got RDS_CMSG_RDMA_DEST %#llx, A's cookie is %#llx",
			(unsigned long long)c->dest_cookie,
			(unsigned long long)c->map_cookie);
		return;
	}
	r = send_rdma(c, c->b, &c->a_sin, 'B', OP_WRITE, c->dest_cookie,
		      backbuf, 0, &t);
	if (r)
		problem("B's RDMA write to A's mapped region: %s",
			tap_errname(-r));
}

/*
 * A probe is answered at most once, and, when no failure was injected,
 * exactly once (a reply that found no memory is a lost one).
 */
static void check_pongs(struct ctx *c)
{
	if (c->pongs > c->probes)
		problem("%u replies to %u probes", c->pongs, c->probes);
	else if (!c->injected && c->pongs != c->probes)
		problem("%u replies to %u probes, no failure injected",
			c->pongs, c->probes);
}

/* The netlink requests work afterwards and see the path's objects. */
static void extra_netlink(struct ctx *c)
{
	static const struct {
		const char *what;
		int (*fn)(struct ctx *c);
		int min, min_ib;	/* objects in the answer */
	} req[] = {
		{ "family lookup", c_nl_family, 1, 1 },
		{ "CONN_GET dump", c_nl_conn, 1, 1 },
		{ "SOCK_GET dump", c_nl_sock, 2, 2 },
		{ "MR_GET dump", c_nl_mr, 1, 1 },
		{ "DEV_GET dump", c_nl_dev, 0, 1 },
		{ "INFO_GET", c_nl_info, 1, 1 },
		{ "STATS_GET", c_nl_stats, 1, 1 },
	};
	unsigned int i;
	int r, min;

	for (i = 0; i < ARRAY_SIZE(req); i++) {
		min = is_ib ? req[i].min_ib : req[i].min;
		r = req[i].fn(c);
		if (r)
			problem("%s afterwards: %s", req[i].what,
				tap_errname(-r));
		else if (c->nl_objs < min)
			problem("%s afterwards: %d objects, expected at least %d",
				req[i].what, c->nl_objs, min);
	}
}

/* ------------------------------------------------------------------ */
/* the generic checks                                                  */
/* ------------------------------------------------------------------ */

static void list_fmt(char *buf, size_t len, const uint32_t *v,
		     unsigned int n)
{
	size_t o = 0;
	unsigned int i;

	buf[0] = 0;
	for (i = 0; i < n && o + 12 < len; i++)
		o += snprintf(buf + o, len - o, "%s%u", i ? "," : "", v[i]);
}

/* B got every message sent, once, in order, and none that failed. */
static void check_messages(struct ctx *c)
{
	uint32_t want[MAX_MSGS];
	unsigned int i, j = 0, nw = 0, lost = 0;
	char a[200], b[200];

	for (i = 0; i < c->nout; i++) {
		const struct out_msg *o = &c->out[i];

		if (o->state == M_FAILED)
			continue;
		if (o->state == M_SENT)
			want[nw++] = o->seq;
		if (j < c->nin && c->in[j] == o->seq) {
			j++;
			continue;
		}
		if (o->state == M_SENT)
			lost++;
	}
	if (lost || j != c->nin) {
		list_fmt(a, sizeof(a), want, nw);
		list_fmt(b, sizeof(b), c->in, c->nin);
		problem("messages: sendmsg() succeeded for [%s], the receiver got [%s]",
			a, b);
	}
	for (i = 0; i < c->nout; i++) {
		if (c->out[i].state != M_FAILED)
			continue;
		for (j = 0; j < c->nin; j++)
			if (c->in[j] == c->out[i].seq)
				problem("message %u arrived though its sendmsg() failed",
					c->out[i].seq);
	}
	if (c->bad_payload)
		problem("%u messages arrived with a wrong payload",
			c->bad_payload);
	if (c->junk)
		problem("%u messages of unknown form arrived", c->junk);
}

static void check_bytes(const char *what, const char *p, size_t len,
			int seed)
{
	long at;

	if (seed < 0) {
		for (at = 0; at < (long)len; at++)
			if (p[at])
				break;
		if (at < (long)len)
			problem("%s: changed at byte %ld by an operation whose sendmsg() failed",
				what, at);
		return;
	}
	at = pattern_check(p, len, seed);
	if (at >= 0)
		problem("%s: wrong at byte %ld", what, at);
}

/* Did an operation that succeeded act on @t? */
static bool target_done(const struct ctx *c, const char *t)
{
	unsigned int i;

	for (i = 0; i < c->nops; i++)
		if (c->ops[i].target == t && c->ops[i].sent)
			return true;
	return false;
}

/* Each operation: its notice, and what it did or did not do. */
static void check_ops(struct ctx *c)
{
	bool atomics = false;
	unsigned int i;

	for (i = 0; i < c->nops; i++) {
		struct op *o = &c->ops[i];

		if (o->kind == OP_FADD || o->kind == OP_CSWP)
			atomics = true;
		else if (o->sent || !target_done(c, o->target))
			check_bytes(o->what, o->target, OP_LEN,
				    o->sent ? o->seed : -1);
		if (!o->sent) {
			if (o->notices)
				problem("%s %llu: a notice came though its sendmsg() failed",
					op_names[o->kind],
					(unsigned long long)o->token);
			continue;
		}
		if (o->notices != 1 || o->status != RDS_RDMA_SUCCESS) {
			problem("%s %llu: %u notices, status %s",
				op_names[o->kind],
				(unsigned long long)o->token, o->notices,
				o->notices ? rds_doca_status_name(o->status) :
				"-");
			continue;
		}
		if ((o->kind == OP_FADD || o->kind == OP_CSWP) &&
		    res[o->slot] != o->before)
			problem("%s %llu: fetched %llu, the word held %llu",
				op_names[o->kind],
				(unsigned long long)o->token,
				(unsigned long long)res[o->slot],
				(unsigned long long)o->before);
	}
	if (c->stray)
		problem("%u notices with a token no operation had", c->stray);
	if (atomics && word[0] != c->model)
		problem("the atomic word holds %llu, the successful operations make it %llu",
			(unsigned long long)word[0],
			(unsigned long long)c->model);
}

/* Bind @fd to @a:0 if it is not bound yet (a retried socket()). */
static void ensure_bound(int fd, struct in_addr a, const char *who)
{
	struct sockaddr_in sin = sin_make(a, 0);

	if (bound_port(fd))
		return;
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		problem("bind %s for the markers: %s", who,
			tap_errname(errno));
}

/*
 * After the path: the sockets work (a marker each way), every message and
 * notice arrived as it should, the operations did what they should.
 */
static void verify(struct ctx *c, const struct path *p)
{
	uint32_t ma, mb;
	int r;

	if (c->b < 0) {
		/* a closed receiver took its messages with it */
		c->nout = 0;
		c->nin = 0;
		c->b = new_bound(c->b_addr);
		c->b_setup = true;
		memset(&c->b_sin, 0, sizeof(c->b_sin));
	}
	if (c->a < 0) {
		/* a closed sender's messages are still delivered */
		c->a = new_bound(cfg.addr);
		c->a_setup = true;
		memset(&c->a_sin, 0, sizeof(c->a_sin));
	}
	if (c->a < 0 || c->b < 0) {
		problem("a new socket for the markers: %s",
			tap_errname(-(c->a < 0 ? c->a : c->b)));
		return;
	}
	ensure_bound(c->a, cfg.addr, "A");
	ensure_bound(c->b, c->b_addr, "B");
	ctx_learn(c);
	if (p->extra)
		p->extra(c);

	ma = c->seq++;
	r = send_msg(c->a, &c->b_sin, MAGIC_MARK, ma, SMALL_LEN, NULL);
	if (r)
		problem("marker A->B: sendmsg %s", tap_errname(-r));
	else if (!collect(c, c->b, 'B', ma))
		problem("marker A->B: not received within %d ms", RECV_MS);
	mb = c->seq++;
	r = send_msg(c->b, &c->a_sin, MAGIC_MARK, mb, SMALL_LEN, NULL);
	if (r)
		problem("marker B->A: sendmsg %s", tap_errname(-r));
	else if (!collect(c, c->a, 'A', mb))
		problem("marker B->A, notices: not all received within %d ms",
			RECV_MS);
	if (!collect(c, c->b, 'B', 0))
		problem("B's notices: not all received within %d ms", RECV_MS);
	check_messages(c);
	check_ops(c);
	check_pongs(c);
}

/* Close everything; the pinned pages must go. */
static void ctx_close(struct ctx *c)
{
	long v;

	if (c->a >= 0 && close(c->a))
		problem("close A: %s", tap_errname(errno));
	if (c->b >= 0 && close(c->b))
		problem("close B: %s", tap_errname(errno));
	if (c->nl >= 0 && close(c->nl))
		problem("close the netlink socket: %s", tap_errname(errno));
	c->a = c->b = c->nl = -1;
	v = vm_pin_settle(pin_base, false);
	if (v != pin_base) {
		problem("after closing every socket VmPin is %ld kB, %ld kB before",
			v, pin_base);
		pin_base = v;	/* one report, not one per case */
	}
}

/* ------------------------------------------------------------------ */
/* the paths                                                           */
/* ------------------------------------------------------------------ */

#define CALL(n, f, fl)		{ n, NULL, f, fl, T_ALL }
#define CALLW(n, p, f, fl)	{ n, p, f, fl, T_ALL }
#define CALL_IB(n, f, fl)	{ n, NULL, f, fl, T_IB }
#define W			C_WALK

#define SOCK_A		CALL("socket A", c_socket_a, 0)
#define BIND_A		CALL("bind A", c_bind_a, 0)
#define SOCK_B		CALL("socket B", c_socket_b, 0)
#define BIND_B		CALL("bind B", c_bind_b, 0)
#define SEND_WARM	CALL("sendmsg (set-up)", c_send_small, 0)
#define RECV_WARM	CALLW("recvmsg (set-up)", p_wait_b, c_recv_b, 0)

static const struct call calls_socket[] = {
	CALL("socket", c_socket_a, W),
};

static const struct call calls_bind[] = {
	SOCK_A,
	CALL("bind", c_bind_a, W),
};

static const struct call calls_sockopt[] = {
	SOCK_A,
	CALL("setsockopt SO_SNDBUF", c_sndbuf, W),
	CALL("setsockopt SO_RCVBUF", c_rcvbuf, W),
	CALL_IB("setsockopt SO_RDS_TRANSPORT", c_set_trans, W),
	BIND_A,
	CALL("getsockopt SO_RDS_TRANSPORT", c_get_trans, W),
};

static const struct call calls_connect[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B,
	CALL("sendmsg to a new peer", c_send_small, W),
};

static const struct call calls_send[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B, SEND_WARM,
	CALL("sendmsg 64 B", c_send_small, W),
	CALL("sendmsg 256 KiB", c_send_large, W),
	RECV_WARM,
	CALLW("recvmsg 64 B", p_wait_b, c_recv_b, W),
	CALLW("recvmsg 256 KiB", p_wait_b, c_recv_b, W),
};

static const struct call calls_mr[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B,
	CALL("RDS_GET_MR", c_get_mr, W),
	CALL("RDS_GET_MR_FOR_DEST", c_get_mr_dest, W),
	CALL("RDS_DOCA_GET_MR_LIST", c_get_mr_list, W),
	CALL("RDS_FREE_MR", c_free_mr, W),
};

static const struct call calls_rdma[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B, SEND_WARM,
	CALL("RDS_GET_MR", c_get_mr, 0),
	CALL("sendmsg RDMA write", c_rdma_write, W),
	CALL("sendmsg RDMA read", c_rdma_read, W),
	CALLW("recvmsg notices", p_wait_a, c_recv_a, W),
};

static const struct call calls_map[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B, SEND_WARM, RECV_WARM,
	CALL("sendmsg RDS_CMSG_RDMA_MAP", c_rdma_map, W),
	CALLW("recvmsg RDS_CMSG_RDMA_DEST", p_wait_b, c_recv_b, W),
};

static const struct call calls_atomic[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B, SEND_WARM,
	CALL("RDS_GET_MR", c_get_word_mr, 0),
	CALL("sendmsg ATOMIC_FADD", c_fadd, W),
	CALL("sendmsg ATOMIC_CSWP", c_cswp, W),
	CALLW("recvmsg notices", p_wait_a, c_recv_a, W),
};

static const struct call calls_info[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B, SEND_WARM,
	CALL("RDS_INFO_COUNTERS", c_info_counters, W),
	CALL("RDS_INFO_CONNECTIONS", c_info_conns, W),
	CALL("RDS_INFO_SEND_MESSAGES", c_info_send, W),
	CALL("RDS_INFO_RETRANS_MESSAGES", c_info_retrans, W),
	CALL("RDS_INFO_RECV_MESSAGES", c_info_recv, W),
	CALL("RDS_INFO_SOCKETS", c_info_socks, W),
	CALL("RDS_INFO_IB_CONNECTIONS", c_info_ib, W),
	CALL("RDS6_INFO_CONNECTIONS", c_info6_conns, W),
	CALL("RDS6_INFO_SEND_MESSAGES", c_info6_send, W),
	CALL("RDS6_INFO_RETRANS_MESSAGES", c_info6_retrans, W),
	CALL("RDS6_INFO_RECV_MESSAGES", c_info6_recv, W),
	CALL("RDS6_INFO_SOCKETS", c_info6_socks, W),
	CALL("RDS6_INFO_IB_CONNECTIONS", c_info6_ib, W),
};

static const struct call calls_cancel[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B, SEND_WARM,
	CALL("sendmsg", c_send_small, 0),
	CALL("sendmsg", c_send_large, 0),
	CALL("RDS_CANCEL_SENT_TO", c_cancel, W),
	CALL("sendmsg after", c_send_small, 0),
};

static const struct call calls_ping[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B,
	CALL("sendmsg probe to port 0", c_ping, W),
};

static const struct call calls_poll[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B, SEND_WARM,
	CALL("poll POLLIN", c_poll_b, W),
	CALL("poll POLLOUT", c_poll_a, W),
};

static const struct call calls_close_recv[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B, SEND_WARM,
	CALL("sendmsg", c_send_large, 0),
	CALL("close receiver with messages queued", c_close_b,
	     W | C_NORETRY),
};

static const struct call calls_close_send[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B, SEND_WARM,
	CALL("sendmsg", c_send_large, 0),
	CALL("sendmsg", c_send_small, 0),
	CALL("close sender with messages sent", c_close_a, W | C_NORETRY),
};

static const struct call calls_netlink[] = {
	SOCK_A, BIND_A, SOCK_B, BIND_B, SEND_WARM,
	CALL("RDS_GET_MR", c_get_mr, 0),
	CALL("netlink socket", c_nl_socket, 0),
	CALL("family lookup", c_nl_family, W | C_NETLINK),
	CALL("CONN_GET dump", c_nl_conn, W | C_NETLINK),
	CALL("SOCK_GET dump", c_nl_sock, W | C_NETLINK),
	CALL("MR_GET dump", c_nl_mr, W | C_NETLINK),
	CALL("DEV_GET dump", c_nl_dev, W | C_NETLINK),
	CALL("INFO_GET", c_nl_info, W | C_NETLINK),
	CALL("STATS_GET", c_nl_stats, W | C_NETLINK),
};

#define PATH(n, b, x, calls)	{ n, T_ALL, b, x, calls, ARRAY_SIZE(calls) }

static const struct path paths[] = {
	PATH("socket", NULL, NULL, calls_socket),
	PATH("bind", NULL, NULL, calls_bind),
	PATH("sockopt", NULL, NULL, calls_sockopt),
	PATH("connect", begin_new_peer, NULL, calls_connect),
	PATH("send", NULL, NULL, calls_send),
	PATH("mr", NULL, extra_mr, calls_mr),
	PATH("rdma", NULL, NULL, calls_rdma),
	PATH("map", NULL, extra_map, calls_map),
	PATH("atomic", NULL, NULL, calls_atomic),
	PATH("info", NULL, NULL, calls_info),
	PATH("cancel", NULL, NULL, calls_cancel),
	PATH("ping", begin_new_peer_loop, NULL, calls_ping),
	PATH("poll", NULL, NULL, calls_poll),
	PATH("close-recv", NULL, NULL, calls_close_recv),
	PATH("close-send", NULL, NULL, calls_close_send),
	PATH("netlink", NULL, extra_netlink, calls_netlink),
};

/* ------------------------------------------------------------------ */
/* the walk                                                            */
/* ------------------------------------------------------------------ */

static unsigned int here(void)
{
	return is_ib ? T_IB : T_LOOP;
}

static bool applies(const struct call *k)
{
	return k->where & here();
}

static bool errno_clean(const struct call *k, int e)
{
	if (k->flags & C_NETLINK)
		return e == EMSGSIZE || e == ENOMEM || e == ENOBUFS;
	return e == ENOMEM || e == ENOBUFS || e == EAGAIN || e == EFAULT ||
	       e == EINTR;
}

static int run_plain(struct ctx *c, const struct call *k)
{
	int r = 0;

	if (k->prep)
		r = k->prep(c);
	if (!r)
		r = k->fn(c);
	ctx_learn(c);
	return r;
}

/* Index of call @k in @p, for the reproduction line. */
static unsigned int call_index(const struct path *p, const struct call *k)
{
	return (unsigned int)(k - p->calls);
}

/*
 * One case: the path with call @ki made with fail-nth @n.  Returns
 * whether the failure was injected (the walk goes on).
 */
static bool one_case(const struct path *p, unsigned int ki, unsigned int n)
{
	const struct call *k = &p->calls[ki];
	bool injected = false;
	struct ctx c;
	unsigned int i;
	long left, pin0;
	int r, fd;

	cur->n = n;
	cur->case_bad = false;
	snprintf(running, sizeof(running), "%s: %s: n=%u", p->name, k->name,
		 n);
	alarm(CASE_ALARM_S);
	ctx_init(&c);
	if (p->begin) {
		r = p->begin(&c, n);
		if (r) {
			problem("set-up of the path: %s", tap_errname(-r));
			goto out;
		}
	}
	for (i = 0; i < ki; i++) {
		if (!applies(&p->calls[i]))
			continue;
		r = run_plain(&c, &p->calls[i]);
		if (r) {
			problem("%s, before the walked call: %s",
				p->calls[i].name, tap_errname(-r));
			goto out;
		}
	}

	pin0 = vm_pin_kb();
	r = k->prep ? k->prep(&c) : 0;
	if (r) {
		problem("%s: waiting before it: %s", k->name, tap_errname(-r));
		goto out;
	}
	fd = fail_arm(n);
	if (fd < 0) {
		problem("cannot arm /proc/thread-self/fail-nth: %s",
			tap_errname(errno));
		goto out;
	}
	r = k->fn(&c);
	left = fail_disarm(fd);
	ctx_learn(&c);
	if (left < 0) {
		problem("cannot read /proc/thread-self/fail-nth back");
		goto out;
	}
	injected = left == 0;
	c.injected = injected;
	if (!injected) {
		cur->finished = true;
		if (n - left != n - 1 && !cur->flaky++)
			tap_diag("%s: %s: this time %ld sites, %u before",
				 p->name, k->name, n - left, n - 1);
		cur->sites = n - 1;
		if (r)
			problem("%s failed without an injected failure: %s",
				k->name, tap_errname(-r));
	} else if (!r) {
		cur->succeeded++;
	} else {
		cur->errs[-r < 256 ? -r : 0]++;
		if (!errno_clean(k, -r))
			problem("%s failed with %s, not a clean errno",
				k->name, tap_errname(-r));
		/*
		 * the call's pages go at once; those of operations before
		 * it when they complete, so VmPin may go below
		 */
		if (pin0 >= 0 && vm_pin_settle(pin0, true) > pin0)
			problem("%s failed, yet VmPin went from %ld to %ld kB",
				k->name, pin0, vm_pin_kb());
		if (!(k->flags & C_NORETRY)) {
			r = run_plain(&c, k);
			if (r)
				problem("%s again, without injection: %s",
					k->name, tap_errname(-r));
		}
	}
	for (i = ki + 1; i < p->ncalls; i++) {
		if (!applies(&p->calls[i]))
			continue;
		r = run_plain(&c, &p->calls[i]);
		if (r)
			problem("%s, after the walked call: %s",
				p->calls[i].name, tap_errname(-r));
	}
	verify(&c, p);
out:
	ctx_close(&c);
	alarm(0);
	if (cur->case_bad)
		cur->cases_bad++;
	return injected;
}

static void outcomes_fmt(const struct walk *w, char *buf, size_t len)
{
	size_t o = 0;
	unsigned int e;

	buf[0] = 0;
	for (e = 0; e < ARRAY_SIZE(w->errs); e++)
		if (w->errs[e] && o + 24 < len)
			o += snprintf(buf + o, len - o, "%s%s %u",
				      o ? ", " : "", tap_errname(e),
				      w->errs[e]);
	if (w->succeeded && o + 24 < len)
		o += snprintf(buf + o, len - o, "%ssucceeded %u",
			      o ? ", " : "", w->succeeded);
	if (!o)
		snprintf(buf, len, "-");
}

/* Walk call @ki of @p from @from to the end, or the one case @from. */
static void walk_call(const struct path *p, unsigned int ki,
		      struct walk *w, unsigned int from, bool once)
{
	const struct call *k = &p->calls[ki];
	long long t0 = now_ms();
	char name[256], outc[160];
	unsigned int n, i;

	memset(w, 0, sizeof(*w));
	w->p = p;
	w->k = k;
	cur = w;
	for (n = from; once || n <= (unsigned int)cap; n++) {
		if (!one_case(p, ki, n) || once)
			break;
		if (w->cases_bad >= MAX_BAD_CASES)
			break;
	}
	if (!w->finished && !once && n > (unsigned int)cap)
		problem("no end after %d sites (--cap)", cap);
	w->ms = now_ms() - t0;
	cur = NULL;

	outcomes_fmt(w, outc, sizeof(outc));
	if (once)
		snprintf(name, sizeof(name), "%s: %s: case n=%u (%s), every failure clean, nothing lost",
			 p->name, k->name, from,
			 w->finished ? "not injected: the call ends first" :
			 outc);
	else
		snprintf(name, sizeof(name), "%s: %s: %u%s sites walked, every failure clean, nothing lost",
			 p->name, k->name, w->finished ? w->sites : n - 1,
			 w->finished ? "" : "+");
	if (tap_check(!w->nproblems, name, TAP_WHERE,
		      "%u problems in %u cases:", w->nproblems, w->cases_bad))
		return;
	for (i = 0; i < w->nproblems && i < MAX_PROBLEMS; i++)
		tap_diag("%s", w->problems[i]);
	if (w->nproblems > MAX_PROBLEMS)
		tap_diag("... and %u more", w->nproblems - MAX_PROBLEMS);
	tap_diag("outcomes of the failures: %s", outc);
	tap_diag("one case again: tests/fuzz/failnth.sh --ko KO%s --path %s --call %u --nth N",
		 is_ib ? " --transport ib" : "", p->name, call_index(p, k));
}

static bool path_selected(const struct path *p)
{
	struct selftest t = { p->name, NULL };

	if (!(p->where & here()))
		return false;
	if (only_path)
		return !strcmp(only_path, p->name);
	return selftest_by_filter(&t);
}

static bool call_selected(const struct path *p, const struct call *k)
{
	char idx[16];

	if (!(k->flags & C_WALK) || !applies(k))
		return false;
	if (!only_call)
		return true;
	snprintf(idx, sizeof(idx), "%u", call_index(p, k));
	return !strcmp(only_call, idx) || !strcmp(only_call, k->name);
}

/* The connect path over IB needs the module to free idle connections. */
static bool path_runnable(const struct path *p)
{
	if (p->begin != begin_new_peer || !is_ib)
		return true;
	if (conn_idle_secs > 0 && conn_idle_secs <= 5)
		return true;
	tap_diag("connect: skipped: over IB it needs rds_doca loaded with conn_idle_secs=1 (it is %d)",
		 conn_idle_secs);
	return false;
}

static struct walk walks[64];
static unsigned int nwalks;

static void table(void)
{
	char outc[160];
	unsigned int i, total = 0;

	tap_diag("sites walked per call over %s; outcomes of the injected failures: errno and count, or succeeded: the failure was absorbed (a retry or a fallback: the module's, or the kernel's own, e.g. kmemleak's metadata pool, an xarray node tried with GFP_NOWAIT first)",
		 is_ib ? "IB/RoCE" : "loopback");
	tap_diag("%-11s %-36s %5s %7s  %s", "path", "call", "sites", "ms",
		 "outcomes");
	for (i = 0; i < nwalks; i++) {
		outcomes_fmt(&walks[i], outc, sizeof(outc));
		tap_diag("%-11s %-36s %5u %7lld  %s", walks[i].p->name,
			 walks[i].k->name, walks[i].sites, walks[i].ms, outc);
		total += walks[i].sites;
	}
	tap_diag("%u sites over %u calls", total, nwalks);
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

enum { OPT_CAP = 0x100, OPT_PATH, OPT_CALL, OPT_NTH };

static int extra_opt(int opt, const char *arg)
{
	switch (opt) {
	case OPT_CAP:
		cap = atoi(arg);
		return cap > 0 ? 0 : -1;
	case OPT_PATH:
		only_path = arg;
		return 0;
	case OPT_CALL:
		only_call = arg;
		return 0;
	case OPT_NTH:
		only_nth = strtoul(arg, NULL, 0);
		return only_nth ? 0 : -1;
	}
	return -1;
}

static const struct option extra_opts[] = {
	{ "cap", required_argument, NULL, OPT_CAP },
	{ "path", required_argument, NULL, OPT_PATH },
	{ "call", required_argument, NULL, OPT_CALL },
	{ "nth", required_argument, NULL, OPT_NTH },
	{ NULL, 0, NULL, 0 },
};

static const char extra_usage[] =
	" [--cap N]\n"
	"          [--path NAME [--call NAME|K [--nth N]]]\n"
	"  --cap N      walk a call for at most N sites (default 500)\n"
	"  --path NAME  walk only this path; --call only this call of it (its\n"
	"               name or index, see --list); --nth only the case N\n"
	"  --list       list the paths and their walked calls\n"
	"  addresses default to 127.0.0.1 and 127.0.0.2, with --transport ib\n"
	"  to 192.0.2.1 and 192.0.2.2\n";

/* A setting of a fault attribute in debugfs, for the record. */
static void attr_diag(const char *attr)
{
	static const char *const files[] = {
		"require-start", "require-end", "reject-start", "reject-end",
		"stacktrace-depth", "verbose", "ignore-gfp-wait", "min-order",
	};
	char path[128], val[40], line[512];
	size_t o = 0, i;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", attr,
			 files[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(val, sizeof(val), f)) {
			val[strcspn(val, "\n")] = 0;
			o += snprintf(line + o, sizeof(line) - o, " %s=%s",
				      files[i], val);
		}
		fclose(f);
	}
	tap_diag("%s:%s", attr, o ? line : " not readable");
}

int main(int argc, char **argv)
{
	bool peer_given = false, addr_given = false;
	unsigned int i, j;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < (unsigned int)argc; i++) {
		peer_given |= !strncmp(argv[i], "--peer", 6);
		addr_given |= !strncmp(argv[i], "--addr", 6);
	}
	if (parse_common(argc, argv, extra_opts, extra_opt, extra_usage))
		return 2;
	if (only_nth && (!only_path || !only_call)) {
		fprintf(stderr, "--nth needs --path and --call\n");
		return 2;
	}
	is_ib = cfg.transport == RDS_TRANS_IB;
	if (is_ib && !addr_given)
		inet_pton(AF_INET, "192.0.2.1", &cfg.addr);
	if (!peer_given)
		inet_pton(AF_INET, is_ib ? "192.0.2.2" : "127.0.0.2",
			  &cfg.peer);

	if (cfg.list) {
		for (i = 0; i < ARRAY_SIZE(paths); i++) {
			if (!path_selected(&paths[i]))
				continue;
			for (j = 0; j < paths[i].ncalls; j++)
				if (call_selected(&paths[i], &paths[i].calls[j]))
					printf("%s %u %s\n", paths[i].name, j,
					       paths[i].calls[j].name);
		}
		return 0;
	}

	signal(SIGALRM, on_alarm);
	if (!selftest_start("rds_failnth"))
		return tap_finish();
	read_sysfs_int("/sys/module/rds_doca/parameters/conn_idle_secs",
		       &conn_idle_secs);
	fd = fail_arm(0);
	if (!ok_diag(fd >= 0, "/proc/thread-self/fail-nth can be written",
		     "%s: a kernel without CONFIG_FAULT_INJECTION?",
		     tap_errname(errno)))
		return tap_finish();
	fail_disarm(fd);
	if (!ok(buffers_make(), "buffers mapped"))
		return tap_finish();
	attr_diag("failslab");
	attr_diag("fail_page_alloc");
	attr_diag("fail_usercopy");
	pin_base = vm_pin_kb();

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		const struct path *p = &paths[i];
		long long t0 = now_ms();

		if (!path_selected(p) || !path_runnable(p))
			continue;
		for (j = 0; j < p->ncalls; j++) {
			if (!call_selected(p, &p->calls[j]) ||
			    nwalks >= ARRAY_SIZE(walks))
				continue;
			walk_call(p, j, &walks[nwalks++],
				  only_nth ? only_nth : 1, only_nth);
		}
		tap_diag("%s: %lld ms", p->name, now_ms() - t0);
	}
	if (!nwalks)
		ok(0, "something to walk: --path/--call/--filter matched no call");
	else if (!only_nth)
		table();
	return tap_finish();
}
