// SPDX-License-Identifier: GPL-2.0
/*
 * rds_fuzz: a seeded, structured fuzzer of rds_doca's socket calls and of
 * its generic netlink family, meant to run unprivileged in a VM whose
 * kernel log is checked afterwards.
 *
 * Design
 *
 *   A supervisor forks --procs worker processes and restarts any that
 *   exits on purpose (the "exit" operation) or dies; each worker runs
 *   --threads fuzzing threads and, in its main thread, a watchdog.  The
 *   threads of a worker share a table of NSLOTS file descriptors (RDS
 *   sockets mostly, and whatever a stale number came to name since), two
 *   epoll instances and the worker's memory regions, so their calls race
 *   on the same sockets, regions and descriptors.  Every worker shares a
 *   pool of RDMA cookies with the others (memory mapped by the
 *   supervisor): real cookies that RDS_GET_MR and RDS_CMSG_RDMA_MAP wrote
 *   there, with the address of the socket that owns them, live or freed,
 *   and cookies that arrived as RDS_CMSG_RDMA_DEST.
 *
 *   Operation i of thread t of process p draws its kind and every random
 *   choice behind its arguments from a splitmix64 generator seeded from
 *   (seed, p, t, i) alone, never from the results of earlier operations,
 *   so the operations of a thread are the same whichever ran or were
 *   skipped before them (--skip, --max-op, --only-thread).  What they
 *   find in the shared tables (the descriptor in a slot, a live cookie)
 *   depends on what ran before and, between threads, on timing; with
 *   --only-thread a run is a single sequence.  The index of the next
 *   operation of each thread lives in shared memory: a restarted process
 *   goes on where its threads stopped, with the operations derived from
 *   the next indexes.  Fork children and children in namespaces of their
 *   own run a few operations derived from their parent's.
 *
 *   Arguments mix plausible values (addresses of --addr and --peer, a
 *   small set of ports that sockets bind to and send to, cookies of live
 *   regions with ranges inside them, local buffers that add up) with
 *   boundary values and garbage: unmapped, read-only, PROT_NONE and
 *   remapped memory, short and long lengths, unknown types and flags.
 *   Results are never checked: the kernel log is (by the VM harness), and
 *   the runner checks that the module unloads afterwards.  Results are
 *   counted, per kind of operation and errno, and printed at the end,
 *   with a few sanity checks that the fuzzer reached the module at all
 *   and that netlink's admin commands were refused to the unprivileged
 *   caller.  Output is TAP: diagnostics, checks, "N passed, N failed".
 *
 *   Nothing blocks for long: most calls are non-blocking, and the
 *   watchdog interrupts (SIGUSR1, no SA_RESTART) a call that runs longer
 *   than --op-timeout; an operation still running after --hang seconds
 *   is reported as a hang and ends the run.  Fork children have an
 *   alarm.  --time bounds the whole run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <dirent.h>
#include <linux/filter.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sockios.h>

#include <rds_doca_user.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

#define MAX_PROCS	16
#define MAX_THREADS	16
#define NSLOTS		16	/* descriptors shared by a process's threads */
#define NEPOLL		2
#define NCOOKIES	64	/* cookies shared by every process */
#define NPORTS		8	/* ports sockets bind to and send to */
#define PORT_BASE	4000
#define NERR		134	/* errno 1..133 counted each, others in [0] */
#define EXIT_RESTART	42	/* a worker's "exit" operation */
#define MAX_SKIP	256

#define CTL_SIZE	8192
#define BUF_SIZE	(256 << 10)
#define NLREQ_SIZE	16384
#define NLANS_SIZE	65536
#define VEC_MAX		1100
#define TRACE_SIZE	2048
#define MAX_CMSG_ARG	192

#define RW_SIZE		((2 << 20) + (64 << 10))
#define VOL_SIZE	(2 << 20)

#ifndef SO_TIMESTAMP_OLD
#define SO_TIMESTAMP_OLD	29
#endif
#ifndef SO_TIMESTAMPNS_OLD
#define SO_TIMESTAMPNS_OLD	35
#endif
#ifndef SO_TIMESTAMP_NEW
#define SO_TIMESTAMP_NEW	63
#endif
#ifndef SO_TIMESTAMPING_OLD
#define SO_TIMESTAMPING_OLD	37
#endif
#ifndef SO_RCVTIMEO_OLD
#define SO_RCVTIMEO_OLD		20
#endif
#ifndef SO_SNDTIMEO_OLD
#define SO_SNDTIMEO_OLD		21
#endif
#ifndef SO_RCVTIMEO_NEW
#define SO_RCVTIMEO_NEW		66
#endif
#ifndef SO_SNDTIMEO_NEW
#define SO_SNDTIMEO_NEW		67
#endif
#ifndef SO_TIMESTAMPING_NEW
#define SO_TIMESTAMPING_NEW	65
#endif
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY		60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY		0x4000000
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK		11
#endif
#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK	12
#endif
#ifndef CTRL_CMD_GETPOLICY
#define CTRL_CMD_GETPOLICY	10
#endif
#ifndef SIOCGSTAMP_OLD
#define SIOCGSTAMP_OLD		0x8906
#endif
#ifndef SIOCGSTAMPNS_OLD
#define SIOCGSTAMPNS_OLD	0x8907
#endif

/* ------------------------------------------------------------------ */
/* configuration and shared state                                      */
/* ------------------------------------------------------------------ */

struct skip_range {
	uint64_t lo, hi;
};

static struct config {
	int family;
	uint32_t addr, peer;		/* network order */
	uint64_t seed;
	uint64_t ops;			/* per thread */
	uint64_t max_op;		/* operations at or above are not run */
	int threads, procs;
	unsigned int time_s;		/* 0: no limit */
	int only_p, only_t;		/* -1: all */
	struct skip_range skip[MAX_SKIP];
	int nskip;
	uint64_t skip_kinds;		/* bit per kind */
	unsigned int op_timeout_ms;
	unsigned int hang_s;
	long memlock_kib;		/* -1: leave RLIMIT_MEMLOCK alone */
	bool trace;
	bool stray;			/* addresses nobody answers */
	bool minimising;		/* --skip, --max-op or --only-thread */
	int genl_id;			/* 0: not resolved */
	int genl_grp;			/* events group, 0: none */
	int tsfd;			/* holds the time-stamping key on */
	long pg;
	bool root;
} cfg;

enum {
	COOKIE_EMPTY,
	COOKIE_LIVE,
	COOKIE_FREED,
};

struct cookie_ent {
	uint64_t cookie;		/* written by the kernel */
	uint64_t len;
	uint32_t addr;			/* owner's address and port */
	uint16_t port;
	uint8_t state;
	int32_t pid, fd;		/* owner's process and descriptor */
};

/* Per thread counters beyond the per kind ones. */
enum {
	X_RDMA_SUCCESS,			/* RDS_CMSG_RDMA_STATUS by status */
	X_RDMA_REMOTE_ERROR,
	X_RDMA_CANCELED,
	X_RDMA_DROPPED,
	X_RDMA_OTHER_ERROR,
	X_RDMA_STATUS_UNKNOWN,
	X_CONG_UPDATE,
	X_RDMA_DEST_RX,
	X_MSGS_RX,
	X_COOKIES,
	X_NL_ANSWERS,
	X_ADMIN_OK_INIT,
	X_ADMIN_REFUSED,
	X_FORKS,
	X_NETNS_OK,
	X_NETNS_FAILED,
	X_NETNS_BUSY,
	X_KICKS,
	X_NR
};

static const char * const xnames[X_NR] = {
	"RDS_RDMA_SUCCESS notices", "RDS_RDMA_REMOTE_ERROR notices",
	"RDS_RDMA_CANCELED notices", "RDS_RDMA_DROPPED notices",
	"RDS_RDMA_OTHER_ERROR notices", "notices of unknown status",
	"RDS_CMSG_CONG_UPDATE", "RDS_CMSG_RDMA_DEST received",
	"messages received", "cookies registered", "netlink answers",
	"admin commands accepted (initial namespace)",
	"admin commands refused (EPERM)", "fork children",
	"namespace children", "namespace children refused",
	"namespace children not started (two running)",
	"watchdog interrupts",
};

enum op_kind {
	OP_SOCKET, OP_BIND, OP_CONNECT, OP_SENDMSG, OP_RECVMSG,
	OP_SETSOCKOPT_RDS, OP_GETSOCKOPT_RDS, OP_SETSOCKOPT_SOCK,
	OP_GETSOCKOPT_SOCK, OP_INFO, OP_GET_MR, OP_FREE_MR, OP_CANCEL,
	OP_POLL, OP_EPOLL, OP_IOCTL, OP_NL_DO, OP_NL_DUMP, OP_NL_ADMIN,
	OP_NL_RAW, OP_GETNAME, OP_OTHER, OP_CLOSE, OP_DUP, OP_MMAP,
	OP_FORK, OP_NETNS, OP_EXIT, NR_OPS
};

struct kstat {
	uint64_t calls, ok;
	uint32_t err[NERR];
};

struct tstate {
	uint64_t next_op;		/* next operation index to claim */
	uint64_t cur_op;
	uint64_t start_ns;		/* 0 between operations */
	uint64_t done;
	uint64_t max_ns, max_op;
	int32_t cur_kind, max_kind;
	int32_t tid;
	uint64_t x[X_NR];
};

#define NETNS_SLOTS	2	/* namespace children at a time */

struct shared {
	int stop;
	uint64_t exits;
	uint64_t netns_until[NETNS_SLOTS];	/* slot busy until (ns) */
	struct cookie_ent cookies[NCOOKIES];
};

static struct shared *sh;
static struct tstate *tstates;		/* [procs][threads] */
static struct kstat *kstats;		/* [procs][threads][NR_OPS] */

/* ------------------------------------------------------------------ */
/* randomness                                                          */
/* ------------------------------------------------------------------ */

struct rng {
	uint64_t s;
};

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* splitmix64 */
static uint64_t rnd(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return mix64(r->s);
}

static uint64_t derive(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = mix64(seed ^ 0x5244535f46555a5aULL);

	h = mix64(h ^ (a + 0x9e3779b97f4a7c15ULL));
	h = mix64(h ^ (b + 0xc2b2ae3d27d4eb4fULL));
	return mix64(h ^ (c + 0x165667b19e3779f9ULL));
}

static uint32_t below(struct rng *r, uint64_t n)
{
	return n ? rnd(r) % n : 0;
}

static bool chance(struct rng *r, unsigned int pct)
{
	return below(r, 100) < pct;
}

static uint64_t interesting64(struct rng *r)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 63, 64, 255, 256, 4095, 4096, 4097,
		65535, 65536, 1 << 20, (1 << 20) + 1, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000ULL, 0x7fffffffffffffffULL,
		0x8000000000000000ULL, ~0ULL, ~0ULL - 1, ~0ULL - 4095,
	};

	if (chance(r, 10))
		return rnd(r);
	return v[below(r, ARRAY_SIZE(v))];
}

static int interesting_int(struct rng *r)
{
	static const int v[] = {
		0, 1, 1, 1, -1, 2, 3, 4, 7, 8, 64, 255, 256, 1024, 2048, 4096,
		8192, 65536, 212992, 1 << 20, INT_MAX, INT_MIN,
	};

	if (chance(r, 10))
		return (int)rnd(r);
	return v[below(r, ARRAY_SIZE(v))];
}

static void fill_random(struct rng *r, void *p, size_t len)
{
	unsigned char *b = p;
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			v = rnd(r);
		b[i] = v;
		v >>= 8;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* per process and per thread state                                    */
/* ------------------------------------------------------------------ */

struct regions {
	char *rw;		/* RW_SIZE, read-write */
	char *ro;		/* 4 pages, read-only */
	char *none;		/* 1 page, PROT_NONE */
	char *hole;		/* 3 pages, the middle one unmapped */
	char *vol;		/* VOL_SIZE, remapped by the "mmap" operation */
};

struct proc {
	int p, gen;
	int slots[NSLOTS];
	int epfd[NEPOLL];
	struct regions mem;
};

struct ctx {
	struct rng r;
	struct proc *pr;
	int p, t;
	uint64_t op;
	int child_op;		/* operation in a fork child, -1 in a thread */
	int netns_slot;		/* namespace child: its slot, else -1 */
	bool child;		/* a fork child */
	bool netns;		/* a child in namespaces of its own */
	int nlfd;
	uint32_t nl_seq;
	char *ctl;		/* CTL_SIZE: control messages */
	char *buf;		/* BUF_SIZE: receive and option buffers */
	char *nlreq;		/* NLREQ_SIZE */
	char *nlans;		/* NLANS_SIZE */
	struct rds_iovec *vecs;	/* VEC_MAX */
	struct iovec *iov;	/* VEC_MAX */
	char *tr;		/* TRACE_SIZE */
	size_t trlen;
	struct tstate *ts;
	struct kstat *ks;	/* [NR_OPS] */
};

static struct tstate *tstate_of(int p, int t)
{
	return &tstates[p * cfg.threads + t];
}

static struct kstat *kstats_of(int p, int t)
{
	return &kstats[(p * cfg.threads + t) * NR_OPS];
}

static void xinc(struct ctx *c, int which)
{
	__atomic_fetch_add(&c->ts->x[which], 1, __ATOMIC_RELAXED);
}

/* Append to the trace line of the current operation (--trace). */
static void __printf(2, 3) tr(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!cfg.trace || c->trlen >= TRACE_SIZE - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(c->tr + c->trlen, TRACE_SIZE - c->trlen, fmt, ap);
	va_end(ap);
	if (n > 0)
		c->trlen += n;
	if (c->trlen > TRACE_SIZE - 1)
		c->trlen = TRACE_SIZE - 1;
}

/* write() a whole line, even from a fork child of a threaded process */
static void __printf(2, 3) out_line(int fd, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	if (n > 0 && write(fd, line, n) < 0)
		return;
}

static const char *ipstr(uint32_t a, char *b)
{
	return inet_ntop(AF_INET, &a, b, INET_ADDRSTRLEN) ? b : "?";
}

/* ------------------------------------------------------------------ */
/* argument builders                                                   */
/* ------------------------------------------------------------------ */

enum mem_kind {
	M_RW,
	M_RO,
	M_NONE,
	M_HOLE,
	M_VOL,
	M_NULL,
	M_KERN,
	M_WILD,
	M_NR
};

static const char * const mem_names[M_NR] = {
	"rw", "ro", "none", "hole", "vol", "null", "kern", "wild",
};

/* A memory kind: read-write with @pct_rw percent, else any other. */
static int pick_mem(struct ctx *c, unsigned int pct_rw)
{
	static const int other[] = {
		M_RO, M_RO, M_NONE, M_HOLE, M_HOLE, M_VOL, M_VOL, M_VOL,
		M_NULL, M_KERN, M_WILD,
	};

	if (chance(&c->r, pct_rw))
		return M_RW;
	return other[below(&c->r, ARRAY_SIZE(other))];
}

/*
 * A pointer of memory kind @kind for @len bytes.  Never a pointer into
 * the fuzzer's own state: wild pointers are small, kernel or
 * non-canonical addresses.
 */
static char *mem_ptr(struct ctx *c, int kind, uint64_t len)
{
	struct regions *m = &c->pr->mem;
	uint64_t off, room;

	switch (kind) {
	case M_RW:
		room = len < RW_SIZE ? RW_SIZE - len : 0;
		off = below(&c->r, room + 1);
		if (chance(&c->r, 40))
			off &= ~(uint64_t)(cfg.pg - 1);
		else if (chance(&c->r, 50))
			off &= ~7ULL;
		return m->rw + off;
	case M_RO:
		room = len < 4 * (uint64_t)cfg.pg ? 4 * cfg.pg - len : 0;
		return m->ro + (below(&c->r, room + 1) & ~7ULL);
	case M_NONE:
		return m->none + below(&c->r, cfg.pg);
	case M_HOLE:
		/* start in the first page so that the range reaches the hole */
		if (chance(&c->r, 20))
			return m->hole + cfg.pg + below(&c->r, cfg.pg);
		room = len < (uint64_t)cfg.pg ? len : (uint64_t)cfg.pg;
		return m->hole + cfg.pg - below(&c->r, room + 1);
	case M_VOL:
		room = len < VOL_SIZE ? VOL_SIZE - len : 0;
		off = below(&c->r, room + 1);
		if (chance(&c->r, 50))
			off &= ~(uint64_t)(cfg.pg - 1);
		return m->vol + off;
	case M_NULL:
		return NULL;
	case M_KERN:
		return (char *)(uintptr_t)(0xffff888000000000ULL +
					   below(&c->r, 1 << 30));
	default:
		switch (below(&c->r, 4)) {
		case 0:
			return (char *)(uintptr_t)below(&c->r, 65536);
		case 1:
			return (char *)(uintptr_t)0x8000000000000000ULL;
		case 2:
			return (char *)(uintptr_t)~0ULL;
		default:
			return (char *)(uintptr_t)(~0ULL - below(&c->r, 4096));
		}
	}
}

/*
 * An address: --addr and --peer mostly, loopback ones, refused ones, and
 * (unless --no-stray-dests) addresses that no host answers: over IB/RoCE
 * their connection attempts wait for an answer that never comes
 * (regress_ib_conn_memory.c).
 */
static uint32_t pick_ip(struct ctx *c)
{
	switch (below(&c->r, 24)) {
	case 0 ... 7:
		return cfg.addr;
	case 8 ... 15:
		return cfg.peer;
	case 16:
		return htonl(INADDR_LOOPBACK);
	case 17:
		return htonl(0x7f000002);
	case 18:
		return htonl(0x7f000000 | below(&c->r, 1 << 24));
	case 19:
		return htonl(INADDR_ANY);
	case 20:
		return htonl(INADDR_BROADCAST);
	case 21:
		return htonl(0xe0000001 + below(&c->r, 256));
	case 22:
		if (!cfg.stray)
			return htonl(0x7f000000 | below(&c->r, 1 << 24));
		return cfg.addr ^ htonl(0xff);
	default:
		if (!cfg.stray)
			return htonl(0x7f000000 | below(&c->r, 1 << 24));
		return rnd(&c->r);
	}
}

static uint16_t pick_port(struct ctx *c)
{
	uint32_t x = below(&c->r, 100);

	if (x < 78)
		return PORT_BASE + below(&c->r, NPORTS);
	if (x < 86)
		return 0;
	if (x < 90)
		return 1;
	if (x < 94)
		return 65535;
	return rnd(&c->r);
}

/*
 * An address argument in @ss: AF_INET mostly, sometimes another family;
 * returns the length to pass and sets *@ptr (NULL or bad at times).
 */
static socklen_t build_sa(struct ctx *c, struct sockaddr_storage *ss,
			  void **ptr)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	uint32_t x = below(&c->r, 100);
	socklen_t len = sizeof(*sin);
	char a[INET_ADDRSTRLEN];

	memset(ss, 0, sizeof(*ss));
	*ptr = ss;
	if (x < 86) {
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = pick_ip(c);
		sin->sin_port = htons(pick_port(c));
		if (chance(&c->r, 3))
			fill_random(&c->r, sin->sin_zero, 8);
	} else if (x < 91) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(pick_port(c));
		if (chance(&c->r, 50)) {
			sin6->sin6_addr.s6_addr[10] = 0xff;
			sin6->sin6_addr.s6_addr[11] = 0xff;
			memcpy(&sin6->sin6_addr.s6_addr[12], &cfg.peer, 4);
		} else {
			sin6->sin6_addr.s6_addr[15] = 1;
		}
		len = sizeof(*sin6);
	} else if (x < 94) {
		sin->sin_family = AF_UNSPEC;
	} else {
		fill_random(&c->r, ss, sizeof(*sin6));
	}
	x = below(&c->r, 100);
	if (x < 86) {
		;
	} else if (x < 90) {
		static const socklen_t short_len[] = { 0, 1, 2, 8, 15 };

		len = short_len[below(&c->r, 5)];
	} else if (x < 93) {
		len = sizeof(*sin6);
	} else if (x < 96) {
		len = sizeof(*ss);
	} else if (x < 97) {
		len = sizeof(*ss) + 1;
	} else if (x < 99) {
		*ptr = NULL;
	} else {
		*ptr = mem_ptr(c, chance(&c->r, 50) ? M_NONE : M_HOLE, len);
	}
	if (cfg.trace) {
		if (*ptr == ss && ss->ss_family == AF_INET)
			tr(c, " %s:%u/%u", ipstr(sin->sin_addr.s_addr, a),
			   ntohs(sin->sin_port), len);
		else
			tr(c, " sa(fam=%u,%p)/%u", ss->ss_family, *ptr, len);
	}
	return len;
}

static void sin_to(struct sockaddr_in *sin, uint32_t addr, uint16_t port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = addr;
	sin->sin_port = htons(port);
}

/* A live cookie of the pool, or NULL; starts at a random entry. */
static struct cookie_ent *live_cookie(struct ctx *c)
{
	unsigned int s = below(&c->r, NCOOKIES), i;
	struct cookie_ent *e;

	for (i = 0; i < NCOOKIES; i++) {
		e = &sh->cookies[(s + i) % NCOOKIES];
		if (__atomic_load_n(&e->state, __ATOMIC_RELAXED) ==
		    COOKIE_LIVE)
			return e;
	}
	return NULL;
}

/* A cookie: of the pool (live, freed or never set) or garbage. */
static uint64_t pick_cookie(struct ctx *c)
{
	struct cookie_ent *e = &sh->cookies[below(&c->r, NCOOKIES)];
	uint64_t v = __atomic_load_n(&e->cookie, __ATOMIC_RELAXED);
	uint32_t x = below(&c->r, 100);

	if (x < 70)
		return v;
	if (x < 75)
		return v ^ (1ULL << below(&c->r, 64));
	if (x < 80)
		return (v & 0xffffffffULL) | (rnd(&c->r) << 32);
	if (x < 85)
		return 0;
	if (x < 90)
		return ~0ULL;
	return rnd(&c->r);
}

static uint64_t pick_rdma_flags(struct ctx *c)
{
	uint64_t f = 0;

	if (chance(&c->r, 50))
		f |= RDS_RDMA_READWRITE;
	if (chance(&c->r, 50))
		f |= RDS_RDMA_NOTIFY_ME;
	if (chance(&c->r, 15))
		f |= RDS_RDMA_FENCE;
	if (chance(&c->r, 10))
		f |= RDS_RDMA_SILENT;
	if (chance(&c->r, 5))
		f |= RDS_RDMA_INVALIDATE;
	if (chance(&c->r, 5))
		f |= RDS_RDMA_USE_ONCE;
	if (chance(&c->r, 5))
		f |= RDS_RDMA_DONTWAIT;
	if (chance(&c->r, 3))
		f |= RDS_DOCA_MR_REMOTE_READ_ONLY;
	if (chance(&c->r, 3))
		f |= 1ULL << below(&c->r, 64);
	return f;
}

static uint64_t pick_mr_flags(struct ctx *c)
{
	uint32_t x = below(&c->r, 100);
	uint64_t f = 0;

	if (x < 45)
		return 0;
	if (x < 60)
		f |= RDS_RDMA_USE_ONCE;
	else if (x < 70)
		f |= RDS_RDMA_INVALIDATE;
	else if (x < 85)
		f |= RDS_DOCA_MR_REMOTE_READ_ONLY;
	else if (x < 95)
		f |= pick_rdma_flags(c);
	else
		f = rnd(&c->r);
	if (chance(&c->r, 10))
		f |= RDS_DOCA_MR_REMOTE_READ_ONLY;
	return f;
}

/* A length for a region or an RDMA operation. */
static uint64_t pick_region_len(struct ctx *c)
{
	static const uint64_t v[] = {
		1, 8, 64, 4095, 4096, 4097, 8192, 65536, 262144, 1 << 20,
		(1 << 20) + 1, 3 << 20,
	};

	if (chance(&c->r, 60))
		return 1 + below(&c->r, 65536);
	return v[below(&c->r, ARRAY_SIZE(v))];
}

/*
 * A region for RDS_GET_MR and RDS_CMSG_RDMA_MAP: in the read-write area
 * mostly; the length in *@len.
 */
static struct rds_iovec pick_region(struct ctx *c, uint64_t *len)
{
	struct rds_iovec v;
	uint32_t x = below(&c->r, 100);
	int kind;

	v.bytes = pick_region_len(c);
	if (x < 78)
		kind = M_RW;
	else if (x < 85)
		kind = M_VOL;
	else if (x < 88)
		kind = M_RO;
	else if (x < 91)
		kind = M_HOLE;
	else if (x < 93)
		kind = M_NONE;
	else
		kind = M_NR;
	if (kind == M_RW && v.bytes > RW_SIZE)
		v.bytes = RW_SIZE;
	if (kind != M_NR) {
		v.addr = (uintptr_t)mem_ptr(c, kind, v.bytes);
	} else {
		switch (below(&c->r, 5)) {
		case 0:
			v.addr = 0;
			break;
		case 1:
			v.addr = (uintptr_t)mem_ptr(c, M_RW, 1);
			v.bytes = 0;
			break;
		case 2:
			v.addr = ~0ULL - below(&c->r, 8192);
			v.bytes = 8192;
			break;
		case 3:
			v.addr = (uintptr_t)mem_ptr(c, M_KERN, 0);
			break;
		default:
			v.addr = (uintptr_t)mem_ptr(c, M_RW, 1);
			v.bytes = interesting64(&c->r);
			break;
		}
	}
	*len = v.bytes;
	tr(c, " region=%s+%llu", kind < M_NR ? mem_names[kind] : "odd",
	   (unsigned long long)v.bytes);
	return v;
}

/* Where the kernel writes a cookie: a pool entry mostly (*@e). */
static uint64_t pick_cookie_addr(struct ctx *c, struct cookie_ent **e)
{
	uint32_t x = below(&c->r, 100);

	*e = &sh->cookies[below(&c->r, NCOOKIES)];
	if (x < 85)
		return (uintptr_t)&(*e)->cookie;
	*e = NULL;
	if (x < 88)
		return 0;
	if (x < 91)
		return (uintptr_t)mem_ptr(c, M_RO, 8);
	if (x < 94)
		return (uintptr_t)mem_ptr(c, M_NONE, 8);
	if (x < 97)
		return (uintptr_t)mem_ptr(c, M_RW, 8) | below(&c->r, 8);
	return (uintptr_t)mem_ptr(c, M_KERN, 8);
}

/* After a registration: the region's owner is @fd's bound address. */
static void note_owner(int fd, struct cookie_ent *e, uint64_t len)
{
	struct sockaddr_in sin;
	socklen_t l = sizeof(sin);

	if (!e)
		return;
	memset(&sin, 0, sizeof(sin));
	if (getsockname(fd, (struct sockaddr *)&sin, &l) ||
	    sin.sin_family != AF_INET)
		return;
	e->addr = sin.sin_addr.s_addr;
	e->port = ntohs(sin.sin_port);
	e->len = len;
	e->pid = getpid();
	e->fd = fd;
	__atomic_store_n(&e->state, COOKIE_LIVE, __ATOMIC_RELEASE);
}

/*
 * A live cookie whose owner is still there, as far as this process can
 * tell: one of its own sockets still bound where the region's owner was.
 * Else any live cookie, or NULL.
 */
static struct cookie_ent *owned_cookie(struct ctx *c)
{
	struct sockaddr_in sin;
	struct cookie_ent *e;
	unsigned int s = below(&c->r, NCOOKIES), i;
	socklen_t l;

	for (i = 0; i < NCOOKIES; i++) {
		e = &sh->cookies[(s + i) % NCOOKIES];
		if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) !=
		    COOKIE_LIVE || e->pid != getpid())
			continue;
		l = sizeof(sin);
		if (!getsockname(e->fd, (struct sockaddr *)&sin, &l) &&
		    sin.sin_addr.s_addr == e->addr &&
		    ntohs(sin.sin_port) == e->port)
			return e;
	}
	return live_cookie(c);
}

/*
 * The local buffers of an RDMA operation: an rds_iovec array at c->vecs
 * (or elsewhere) adding up to @bytes when @coherent, garbage otherwise.
 * Returns local_vec_addr, nr_local in *@nr.
 */
static uint64_t build_local_vecs(struct ctx *c, uint64_t bytes, bool coherent,
				 __u64 *nr)
{
	static const unsigned int counts[] = { 0, 1, 2, 3, 8, 64, 1024, 1025 };
	struct regions *m = &c->pr->mem;
	uint64_t left = bytes, piece;
	unsigned int n, i, k;
	uint32_t x;
	char *p;

	n = coherent ? 1 + below(&c->r, 4) : counts[below(&c->r, 8)];
	for (i = 0; i < n; i++) {
		struct rds_iovec *v = &c->vecs[i];

		if (coherent) {
			piece = i == n - 1 ? left : below(&c->r, left + 1);
			left -= piece;
			v->bytes = piece;
			if (i && chance(&c->r, 20)) {
				/* overlapping the previous buffer */
				v->addr = c->vecs[i - 1].addr;
			} else {
				p = mem_ptr(c, pick_mem(c, 85), piece);
				v->addr = (uintptr_t)p;
			}
		} else {
			v->bytes = chance(&c->r, 50) ? below(&c->r, 8192) :
				   interesting64(&c->r);
			v->addr = (uintptr_t)mem_ptr(c, pick_mem(c, 60),
						     v->bytes);
		}
	}
	*nr = n;
	if (chance(&c->r, 6))
		*nr = interesting64(&c->r);
	tr(c, " local=%u/%llu", n, (unsigned long long)*nr);
	x = below(&c->r, 100);
	if (x < 86)
		return (uintptr_t)c->vecs;
	if (x < 89) {
		tr(c, "@ro");
		return (uintptr_t)m->ro;	/* valid vectors, read-only */
	}
	if (x < 93) {
		/* the array runs into the hole */
		k = n < 4 ? n : 4;
		p = m->hole + cfg.pg - k * sizeof(struct rds_iovec);
		memcpy(p, c->vecs, k * sizeof(struct rds_iovec));
		tr(c, "@hole");
		return (uintptr_t)p;
	}
	tr(c, "@bad");
	return (uintptr_t)mem_ptr(c, pick_mem(c, 0), 16);
}

/* What sendmsg()'s control messages ask for. */
struct plan {
	bool coherent;		/* one operation on a live region, exactly */
	bool has_dest;
	uint32_t dest;
	uint16_t port;
	struct cookie_ent *map;	/* RDMA_MAP's cookie goes there */
	uint64_t map_len;
};

static void plan_dest(struct ctx *c, struct plan *pl, struct cookie_ent *e)
{
	if (pl->coherent || chance(&c->r, 85)) {
		pl->has_dest = true;
		pl->dest = e->addr;
		pl->port = e->port;
	}
}

static size_t build_rdma_args(struct ctx *c, void *out, struct plan *pl)
{
	struct rds_rdma_args a;
	struct cookie_ent *e = NULL;
	uint64_t len, off, bytes;

	memset(&a, 0, sizeof(a));
	if (pl->coherent)
		e = owned_cookie(c);
	else if (chance(&c->r, 50))
		e = live_cookie(c);
	if (e) {
		a.cookie = e->cookie;
		len = e->len ? e->len : 1;
		off = below(&c->r, len);
		bytes = 1 + below(&c->r, len - off < 65536 ? len - off : 65536);
		if (chance(&c->r, 5))
			bytes = len - off + 1;	/* one past the end */
		a.remote_vec.addr = off;
		a.remote_vec.bytes = bytes;
		a.local_vec_addr = pl->coherent ? (uintptr_t)c->vecs :
				   build_local_vecs(c, bytes, true,
						    &a.nr_local);
		if (pl->coherent) {
			c->vecs[0].addr = (uintptr_t)mem_ptr(c, M_RW, bytes);
			c->vecs[0].bytes = bytes;
			a.nr_local = 1;
		}
		plan_dest(c, pl, e);
	} else {
		a.cookie = pick_cookie(c);
		a.remote_vec.addr = chance(&c->r, 50) ? below(&c->r, 65536) :
				    interesting64(&c->r);
		a.remote_vec.bytes = chance(&c->r, 50) ?
				     1 + below(&c->r, 65536) :
				     interesting64(&c->r);
		a.local_vec_addr = build_local_vecs(c, a.remote_vec.bytes,
						    chance(&c->r, 50),
						    &a.nr_local);
	}
	a.flags = pick_rdma_flags(c);
	if (pl->coherent)
		a.flags &= RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME |
			   RDS_RDMA_FENCE | RDS_RDMA_SILENT;
	a.user_token = rnd(&c->r);
	tr(c, " cookie=%llx remote=%llu+%llu flags=%llx%s",
	   (unsigned long long)a.cookie,
	   (unsigned long long)a.remote_vec.addr,
	   (unsigned long long)a.remote_vec.bytes,
	   (unsigned long long)a.flags, e ? " live" : "");
	memcpy(out, &a, sizeof(a));
	return sizeof(a);
}

static size_t build_atomic_args(struct ctx *c, void *out, struct plan *pl)
{
	struct rds_atomic_args a;
	struct cookie_ent *e = NULL;
	uint32_t x;

	memset(&a, 0, sizeof(a));
	if (pl->coherent)
		e = owned_cookie(c);
	else if (chance(&c->r, 50))
		e = live_cookie(c);
	if (e) {
		a.cookie = e->cookie;
		a.remote_addr = below(&c->r, e->len / 8 ? e->len / 8 : 1) * 8;
		if (chance(&c->r, 8))
			a.remote_addr += 1 + below(&c->r, 7);
		else if (chance(&c->r, 4))
			a.remote_addr = e->len;
		plan_dest(c, pl, e);
	} else {
		a.cookie = pick_cookie(c);
		a.remote_addr = chance(&c->r, 50) ? below(&c->r, 512) * 8 :
				interesting64(&c->r);
	}
	x = pl->coherent ? 0 : below(&c->r, 100);
	if (x < 80)
		a.local_addr = (uintptr_t)mem_ptr(c, M_RW, 8) & ~7ULL;
	else if (x < 85)
		a.local_addr = ((uintptr_t)mem_ptr(c, M_RW, 16) & ~7ULL) + 3;
	else
		a.local_addr = (uintptr_t)mem_ptr(c, pick_mem(c, 0), 8);
	a.m_cswp.compare = chance(&c->r, 50) ? 0 : interesting64(&c->r);
	a.m_cswp.swap = rnd(&c->r);
	a.m_cswp.compare_mask = interesting64(&c->r);
	a.m_cswp.swap_mask = interesting64(&c->r);
	a.flags = pick_rdma_flags(c);
	if (pl->coherent)
		a.flags &= RDS_RDMA_NOTIFY_ME | RDS_RDMA_FENCE |
			   RDS_RDMA_SILENT;
	a.user_token = rnd(&c->r);
	tr(c, " cookie=%llx remote=%llu local=%llx flags=%llx%s",
	   (unsigned long long)a.cookie, (unsigned long long)a.remote_addr,
	   (unsigned long long)a.local_addr, (unsigned long long)a.flags,
	   e ? " live" : "");
	memcpy(out, &a, sizeof(a));
	return sizeof(a);
}

static size_t build_map_args(struct ctx *c, void *out, struct plan *pl)
{
	struct rds_get_mr_args a;
	struct cookie_ent *e;
	uint64_t len;

	memset(&a, 0, sizeof(a));
	a.vec = pick_region(c, &len);
	a.cookie_addr = pick_cookie_addr(c, &e);
	a.flags = pick_mr_flags(c);
	pl->map = e;
	pl->map_len = len;
	tr(c, " flags=%llx", (unsigned long long)a.flags);
	memcpy(out, &a, sizeof(a));
	return sizeof(a);
}

/* Table fds for SCM_RIGHTS, which rds_doca must ignore. */
static size_t build_fds(struct ctx *c, void *out)
{
	unsigned int n = 1 + below(&c->r, 4), i;
	int fds[4];

	for (i = 0; i < n; i++)
		fds[i] = c->pr->slots[below(&c->r, NSLOTS)];
	memcpy(out, fds, n * sizeof(int));
	return n * sizeof(int);
}

/*
 * Control messages for sendmsg() at c->ctl: one to six, of every SOL_RDS
 * type and others, lengths exact or wrong.  Returns the bytes used.
 */
static size_t build_cmsgs(struct ctx *c, struct plan *pl)
{
	struct cookie_ent *e;
	unsigned int n, i;
	size_t off = 0, sz, clen;
	uint32_t x;

	x = below(&c->r, 100);
	n = x < 62 || pl->coherent ? 1 : x < 87 ? 2 : 3 + below(&c->r, 4);
	memset(c->ctl, 0, CMSG_SPACE(MAX_CMSG_ARG) * n);
	for (i = 0; i < n; i++) {
		struct cmsghdr *cm = (struct cmsghdr *)(c->ctl + off);
		unsigned char *d = CMSG_DATA(cm);
		int level = SOL_RDS, type;

		x = below(&c->r, 100);
		if (pl->coherent)
			x = chance(&c->r, 50) ? 0 : 38;
		tr(c, " [cmsg");
		if (x < 20) {
			type = RDS_CMSG_RDMA_ARGS;
			sz = build_rdma_args(c, d, pl);
		} else if (x < 28) {
			type = RDS_CMSG_RDMA_DEST;
			sz = 8;
			e = chance(&c->r, 60) ? live_cookie(c) : NULL;
			*(uint64_t *)d = e ? e->cookie : pick_cookie(c);
			if (chance(&c->r, 5))
				sz = 4;
		} else if (x < 38) {
			type = RDS_CMSG_RDMA_MAP;
			sz = build_map_args(c, d, pl);
		} else if (x < 66) {
			static const int at[] = {
				RDS_CMSG_ATOMIC_FADD, RDS_CMSG_ATOMIC_CSWP,
				RDS_CMSG_MASKED_ATOMIC_FADD,
				RDS_CMSG_MASKED_ATOMIC_CSWP,
			};

			type = at[below(&c->r, 4)];
			sz = build_atomic_args(c, d, pl);
		} else if (x < 71) {
			type = RDS_CMSG_ZCOPY_COOKIE;
			sz = 4;
			*(uint32_t *)d = rnd(&c->r);
		} else if (x < 75) {
			type = RDS_CMSG_RXPATH_LATENCY;
			sz = sizeof(struct rds_cmsg_rx_trace);
			fill_random(&c->r, d, sz);
		} else if (x < 84) {
			static const int odd[] = {
				0, RDS_CMSG_RDMA_STATUS, RDS_CMSG_CONG_UPDATE,
				10, RDS_CMSG_ZCOPY_COMPLETION, 14, 255, -1,
			};

			type = odd[below(&c->r, 8)];
			sz = below(&c->r, 80);
			fill_random(&c->r, d, sz);
		} else if (x < 88) {
			level = SOL_SOCKET;
			type = SCM_RIGHTS;
			sz = build_fds(c, d);
		} else if (x < 91) {
			struct ucred cr = {
				.pid = getpid(), .uid = getuid(),
				.gid = getgid(),
			};

			level = SOL_SOCKET;
			type = SCM_CREDENTIALS;
			sz = sizeof(cr);
			memcpy(d, &cr, sz);
		} else {
			static const int lv[] = {
				SOL_IP, 0, SOL_RDS + 1, SOL_RDS - 1, -1,
			};

			level = lv[below(&c->r, 5)];
			type = below(&c->r, 16);
			sz = below(&c->r, 64);
			fill_random(&c->r, d, sz);
		}
		clen = CMSG_LEN(sz);
		x = pl->coherent ? 100 : below(&c->r, 100);
		if (x < 4 && sz)
			clen -= 1 + below(&c->r, sz);	/* too short */
		else if (x < 6)
			clen = below(&c->r, sizeof(struct cmsghdr));
		else if (x < 9)
			clen += 1 + below(&c->r, 64);	/* too long */
		else if (x < 10)
			clen = interesting64(&c->r);
		cm->cmsg_len = clen;
		cm->cmsg_level = level;
		cm->cmsg_type = type;
		tr(c, " %d/%d len=%zu]", level, type, clen);
		off += CMSG_SPACE(sz);
	}
	return off;
}

/* A payload length: small mostly, boundaries, past the limits. */
static uint64_t pick_payload(struct ctx *c)
{
	static const uint64_t edge[] = {
		0, 1, 255, 256, 257, 4095, 4096, 4097, 8192, 65535, 65536,
		106495, 106496, 106497, 212991, 212992, 212993, 1 << 20,
		(1 << 20) + 1, 2 << 20,
	};
	uint32_t x = below(&c->r, 100);

	if (x < 10)
		return 0;
	if (x < 45)
		return below(&c->r, 256);
	if (x < 70)
		return below(&c->r, 8192);
	if (x < 86)
		return below(&c->r, 65536);
	if (x < 90)
		return below(&c->r, 262144);
	return edge[below(&c->r, ARRAY_SIZE(edge))];
}

/*
 * An iovec array at c->iov for @total bytes; @recv picks buffers to
 * write to.  Returns the number of entries.
 */
static size_t build_iov(struct ctx *c, uint64_t total, bool recv)
{
	uint32_t x = below(&c->r, 100);
	size_t n, i;
	uint64_t left = total, piece;
	int kind;

	if (x < 6)
		n = 0;
	else if (x < 70)
		n = 1;
	else if (x < 96)
		n = 2 + below(&c->r, 7);
	else if (x < 98)
		n = 64;
	else
		n = 1025;	/* over UIO_MAXIOV */
	for (i = 0; i < n; i++) {
		piece = i == n - 1 ? left : below(&c->r, left + 1);
		if (n > 8)
			piece = i < left ? 1 : 0;
		left -= piece < left ? piece : left;
		if (recv && chance(&c->r, 80) && piece <= BUF_SIZE) {
			c->iov[i].iov_base = c->buf + below(&c->r,
						BUF_SIZE - piece + 1);
		} else {
			kind = pick_mem(c, recv ? 70 : 88);
			c->iov[i].iov_base = mem_ptr(c, kind, piece);
		}
		c->iov[i].iov_len = piece;
	}
	if (n && chance(&c->r, 2))
		c->iov[below(&c->r, n)].iov_len = interesting64(&c->r);
	tr(c, " iov=%zu/%llu", n, (unsigned long long)total);
	return n;
}

/* ------------------------------------------------------------------ */
/* the socket table                                                    */
/* ------------------------------------------------------------------ */

/* The descriptor of a random slot, or of the next one that holds one. */
static int slot_fd(struct ctx *c, int *slotp)
{
	unsigned int s = below(&c->r, NSLOTS), i;
	int fd = -1;

	for (i = 0; i < NSLOTS; i++) {
		fd = __atomic_load_n(&c->pr->slots[(s + i) % NSLOTS],
				     __ATOMIC_RELAXED);
		if (fd >= 0)
			break;
	}
	if (slotp)
		*slotp = (s + i) % NSLOTS;
	if (chance(&c->r, 1))
		fd = chance(&c->r, 50) ? -1 : 1000;
	tr(c, " fd=%d", fd);
	return fd;
}

static void slot_put(struct ctx *c, int slot, int fd)
{
	int old = __atomic_exchange_n(&c->pr->slots[slot], fd,
				      __ATOMIC_ACQ_REL);

	if (old > 2)
		close(old);
}

static int res(long ret)
{
	return ret < 0 ? -errno : (int)(ret > INT_MAX ? INT_MAX : ret);
}

/* ------------------------------------------------------------------ */
/* operations                                                          */
/* ------------------------------------------------------------------ */

static int op_socket(struct ctx *c)
{
	int type = SOCK_SEQPACKET, proto = 0, fd, slot = below(&c->r, NSLOTS);
	uint32_t x = below(&c->r, 100);
	struct sockaddr_in sin;
	char a[INET_ADDRSTRLEN];
	int v;

	if (x < 3)
		type = SOCK_DGRAM;
	else if (x < 5)
		type = SOCK_STREAM;
	else if (x < 6)
		type = below(&c->r, 16);
	if (chance(&c->r, 2))
		proto = chance(&c->r, 50) ? 1 : (int)rnd(&c->r);
	if (chance(&c->r, 20))
		type |= SOCK_NONBLOCK;
	if (chance(&c->r, 10))
		type |= SOCK_CLOEXEC;
	tr(c, " slot=%d type=%#x proto=%d", slot, type, proto);
	fd = socket(cfg.family, type, proto);
	if (fd < 0)
		return -errno;
	if (chance(&c->r, 30)) {
		v = 256 << below(&c->r, 6);
		tr(c, " rcvbuf=%d", v);
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	}
	if (chance(&c->r, 15)) {
		v = 1;
		tr(c, " cong_monitor");
		setsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &v, sizeof(v));
	}
	if (chance(&c->r, 10)) {
		v = 1;
		tr(c, " recverr");
		setsockopt(fd, SOL_RDS, RDS_RECVERR, &v, sizeof(v));
	}
	if (chance(&c->r, 60)) {
		x = below(&c->r, 10);
		sin_to(&sin, x < 4 ? cfg.addr : x < 8 ? cfg.peer :
		       htonl(0x7f000001 + below(&c->r, 2)),
		       chance(&c->r, 80) ? PORT_BASE + below(&c->r, NPORTS) :
		       0);
		tr(c, " bind=%s:%u", ipstr(sin.sin_addr.s_addr, a),
		   ntohs(sin.sin_port));
		bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	}
	slot_put(c, slot, fd);
	return fd;
}

static int op_bind(struct ctx *c)
{
	struct sockaddr_storage ss;
	int fd = slot_fd(c, NULL);
	void *p;
	socklen_t len = build_sa(c, &ss, &p);

	return res(bind(fd, p, len));
}

static int op_connect(struct ctx *c)
{
	struct sockaddr_storage ss;
	int fd = slot_fd(c, NULL);
	void *p;
	socklen_t len = build_sa(c, &ss, &p);

	return res(connect(fd, p, len));
}

static int pick_send_flags(struct ctx *c)
{
	static const int junk[] = {
		MSG_NOSIGNAL, MSG_MORE, MSG_OOB, MSG_EOR, MSG_CONFIRM,
		MSG_PEEK, MSG_TRUNC, MSG_WAITALL, MSG_CMSG_CLOEXEC,
		MSG_FASTOPEN, MSG_BATCH,
	};
	int f = chance(&c->r, 90) ? MSG_DONTWAIT : 0;

	if (chance(&c->r, 5))
		f |= MSG_ZEROCOPY;
	if (chance(&c->r, 4))
		f |= junk[below(&c->r, ARRAY_SIZE(junk))];
	if (chance(&c->r, 1))
		f |= 1 << below(&c->r, 31);
	return f;
}

static int op_sendmsg(struct ctx *c)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct plan pl = { 0 };
	struct msghdr mh;
	struct mmsghdr mm[4];
	size_t ctl_len = 0;
	uint64_t total;
	int fd = slot_fd(c, NULL), flags, ret, i, n;
	uint32_t x;
	char a[INET_ADDRSTRLEN];
	void *p;

	memset(&mh, 0, sizeof(mh));
	if (chance(&c->r, 60)) {
		pl.coherent = chance(&c->r, 30);
		if (pl.coherent)
			tr(c, " coherent");
		ctl_len = build_cmsgs(c, &pl);
	}
	x = below(&c->r, 100);
	if (pl.coherent && pl.has_dest)
		x = 0;
	if (pl.has_dest && x < 85) {
		sin_to(sin, pl.dest, pl.port);
		mh.msg_name = sin;
		mh.msg_namelen = sizeof(*sin);
		tr(c, " to %s:%u", ipstr(pl.dest, a), pl.port);
	} else if (x < 12) {
		tr(c, " to connected");
	} else {
		mh.msg_namelen = build_sa(c, &ss, &p);
		mh.msg_name = p;
	}
	total = pick_payload(c);
	if (pl.coherent && total > 8192)
		total = below(&c->r, 8192);
	mh.msg_iovlen = build_iov(c, total, false);
	mh.msg_iov = mh.msg_iovlen ? c->iov : NULL;
	if (ctl_len) {
		mh.msg_control = c->ctl;
		mh.msg_controllen = ctl_len;
		x = pl.coherent ? 100 : below(&c->r, 100);
		if (x < 5) {
			mh.msg_controllen -= below(&c->r, ctl_len < 16 ?
						   ctl_len + 1 : 17);
		} else if (x < 8) {
			mh.msg_controllen += 1 + below(&c->r, 64);
		} else if (x < 9) {
			mh.msg_control = NULL;
		} else if (x < 10) {
			mh.msg_control = mem_ptr(c, M_RW, 65536);
			mh.msg_controllen = below(&c->r, 65536);
		} else if (x < 11) {
			mh.msg_control = mem_ptr(c, pick_mem(c, 0),
						 mh.msg_controllen);
		}
		tr(c, " ctl=%zu", (size_t)mh.msg_controllen);
	} else if (chance(&c->r, 2)) {
		mh.msg_controllen = 16;		/* NULL with a length */
	}
	flags = pl.coherent ? MSG_DONTWAIT : pick_send_flags(c);
	tr(c, " flags=%#x", flags);
	x = pl.coherent ? 0 : below(&c->r, 100);
	if (x < 88) {
		ret = res(sendmsg(fd, &mh, flags));
	} else if (x < 93) {
		n = 2 + below(&c->r, 3);
		for (i = 0; i < n; i++) {
			mm[i].msg_hdr = mh;
			mm[i].msg_len = 0;
			if (i && chance(&c->r, 50))
				mm[i].msg_hdr.msg_control = NULL;
		}
		tr(c, " sendmmsg(%d)", n);
		ret = res(sendmmsg(fd, mm, n, flags));
	} else if (x < 97) {
		tr(c, " sendto");
		ret = res(sendto(fd, mh.msg_iovlen ? c->iov[0].iov_base : NULL,
				 mh.msg_iovlen ? c->iov[0].iov_len : 0, flags,
				 mh.msg_name, mh.msg_namelen));
	} else if (x < 99) {
		tr(c, " writev");
		ret = res(writev(fd, c->iov, mh.msg_iovlen));
	} else {
		tr(c, " write");
		ret = res(write(fd, c->buf, below(&c->r, 512)));
	}
	if (ret >= 0 && pl.map) {
		note_owner(fd, pl.map, pl.map_len);
		xinc(c, X_COOKIES);
	}
	return ret;
}

/* Note what the kernel put in c->ctl for us. */
static void parse_recv_cmsgs(struct ctx *c, struct msghdr *mh)
{
	struct sockaddr_in *from = mh->msg_name;
	struct rds_rdma_notify nt;
	struct cmsghdr *cm;
	struct cookie_ent *e;
	uint64_t v;

	if (mh->msg_control != c->ctl || mh->msg_controllen > CTL_SIZE)
		return;
	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level != SOL_RDS)
			continue;
		switch (cm->cmsg_type) {
		case RDS_CMSG_RDMA_STATUS:
			if (cm->cmsg_len < CMSG_LEN(sizeof(nt)))
				break;
			memcpy(&nt, CMSG_DATA(cm), sizeof(nt));
			xinc(c, nt.status >= 0 && nt.status <= 4 ?
			     X_RDMA_SUCCESS + nt.status :
			     X_RDMA_STATUS_UNKNOWN);
			break;
		case RDS_CMSG_CONG_UPDATE:
			xinc(c, X_CONG_UPDATE);
			break;
		case RDS_CMSG_RDMA_DEST:
			if (cm->cmsg_len < CMSG_LEN(8))
				break;
			xinc(c, X_RDMA_DEST_RX);
			if (!from || mh->msg_namelen < sizeof(*from))
				break;
			memcpy(&v, CMSG_DATA(cm), 8);
			e = &sh->cookies[v % NCOOKIES];
			e->cookie = v;
			e->addr = from->sin_addr.s_addr;
			e->port = ntohs(from->sin_port);
			e->len = 1 + below(&c->r, 65536);
			e->pid = 0;
			__atomic_store_n(&e->state, COOKIE_LIVE,
					 __ATOMIC_RELEASE);
			break;
		}
	}
}

static int pick_recv_flags(struct ctx *c)
{
	int f = below(&c->r, 1000) < 995 ? MSG_DONTWAIT : 0;

	if (chance(&c->r, 15))
		f |= MSG_PEEK;
	if (chance(&c->r, 15))
		f |= MSG_TRUNC;
	if (chance(&c->r, 3))
		f |= MSG_ERRQUEUE;
	if (chance(&c->r, 2))
		f |= MSG_OOB;
	if (chance(&c->r, 3))
		f |= MSG_WAITALL;
	if (chance(&c->r, 5))
		f |= MSG_CMSG_CLOEXEC;
	if (chance(&c->r, 2))
		f |= 1 << below(&c->r, 31);
	return f;
}

static size_t pick_recv_ctl(struct ctx *c)
{
	const size_t v[] = {
		0, 1, sizeof(struct cmsghdr) - 1, sizeof(struct cmsghdr),
		CMSG_SPACE(8) - 1, CMSG_SPACE(8), CMSG_SPACE(8) + 1,
		CMSG_SPACE(sizeof(struct rds_rdma_notify)) - 1,
		CMSG_SPACE(sizeof(struct rds_rdma_notify)),
		CMSG_SPACE(sizeof(struct rds_rdma_notify)) + 1,
		2 * CMSG_SPACE(sizeof(struct rds_rdma_notify)) - 1,
		CMSG_SPACE(sizeof(struct rds_cmsg_rx_trace)),
		CMSG_SPACE(16) + CMSG_SPACE(8) +
		CMSG_SPACE(sizeof(struct rds_cmsg_rx_trace)),
		256, 4096,
	};

	return v[below(&c->r, ARRAY_SIZE(v))];
}

static int op_recvmsg(struct ctx *c)
{
	struct sockaddr_storage ss;
	struct msghdr mh;
	struct mmsghdr mm[4];
	struct timespec to = { 0, 1000000 };
	int fd = slot_fd(c, NULL), flags, ret, n, i;
	uint64_t total;
	uint32_t x;

	memset(&mh, 0, sizeof(mh));
	x = below(&c->r, 100);
	if (x < 75) {
		mh.msg_name = &ss;
		mh.msg_namelen = sizeof(ss);
	} else if (x < 83) {
		mh.msg_name = &ss;
		mh.msg_namelen = below(&c->r, sizeof(struct sockaddr_in));
	} else if (x < 95) {
		;
	} else if (x < 98) {
		mh.msg_name = mem_ptr(c, M_RO, sizeof(ss));
		mh.msg_namelen = sizeof(ss);
	} else {
		mh.msg_namelen = sizeof(ss);
	}
	total = chance(&c->r, 80) ? 65536 : pick_payload(c);
	mh.msg_iovlen = build_iov(c, total, true);
	mh.msg_iov = mh.msg_iovlen ? c->iov : NULL;
	mh.msg_controllen = pick_recv_ctl(c);
	x = below(&c->r, 100);
	if (x < 85 || !mh.msg_controllen)
		mh.msg_control = mh.msg_controllen ? c->ctl : NULL;
	else if (x < 90)
		mh.msg_control = NULL;
	else
		mh.msg_control = mem_ptr(c, pick_mem(c, 0),
					 mh.msg_controllen);
	flags = pick_recv_flags(c);
	tr(c, " ctl=%zu flags=%#x", (size_t)mh.msg_controllen, flags);
	x = below(&c->r, 100);
	if (x < 88) {
		ret = res(recvmsg(fd, &mh, flags));
		if (ret >= 0) {
			xinc(c, X_MSGS_RX);
			parse_recv_cmsgs(c, &mh);
		}
	} else if (x < 93) {
		n = 2 + below(&c->r, 3);
		for (i = 0; i < n; i++) {
			mm[i].msg_hdr = mh;
			mm[i].msg_hdr.msg_name = NULL;
			mm[i].msg_hdr.msg_namelen = 0;
			mm[i].msg_hdr.msg_control = NULL;
			mm[i].msg_hdr.msg_controllen = 0;
		}
		tr(c, " recvmmsg(%d)", n);
		ret = res(recvmmsg(fd, mm, n, flags, chance(&c->r, 50) ?
				   &to : NULL));
	} else if (x < 97) {
		tr(c, " recvfrom");
		ret = res(recvfrom(fd, c->buf, below(&c->r, BUF_SIZE), flags,
				   NULL, NULL));
	} else {
		/* blocks on a blocking socket, until the watchdog */
		ret = fcntl(fd, F_GETFL);
		if (ret >= 0 && !(ret & O_NONBLOCK) && chance(&c->r, 90))
			return 0;
		tr(c, " readv");
		ret = res(readv(fd, c->iov, mh.msg_iovlen));
	}
	return ret;
}

static const int rds_opts[] = {
	0, RDS_CANCEL_SENT_TO, RDS_GET_MR, RDS_FREE_MR, 4, RDS_RECVERR,
	RDS_CONG_MONITOR, RDS_GET_MR_FOR_DEST, SO_RDS_TRANSPORT, 9,
	SO_RDS_MSG_RXPATH_LATENCY, 11, SO_TIMESTAMP_OLD, SO_TIMESTAMPNS_OLD,
	SO_TIMESTAMP_NEW, RDS_DOCA_GET_MR_LIST, 65, RDS_INFO_COUNTERS,
	RDS_INFO_SOCKETS, RDS_INFO_LAST + 1,
};

static int pick_rds_opt(struct ctx *c)
{
	uint32_t x = below(&c->r, 100);

	if (x < 90)
		return rds_opts[below(&c->r, ARRAY_SIZE(rds_opts))];
	if (x < 95)
		return RDS_INFO_FIRST + below(&c->r, RDS_INFO_LAST -
					      RDS_INFO_FIRST + 1);
	return rnd(&c->r);
}

static int pick_optlen(struct ctx *c, int exact)
{
	static const int v[] = {
		0, 1, 3, 4, 5, 7, 8, 12, 16, 24, 64, 4096, 65536, -1,
	};
	uint32_t x = below(&c->r, 100);

	if (x < 75)
		return exact;
	if (x < 80)
		return exact - 1;
	if (x < 85)
		return exact + 1;
	return v[below(&c->r, ARRAY_SIZE(v))];
}

/* Option value in c->buf for SOL_RDS @opt; returns the natural length. */
static int build_rds_optval(struct ctx *c, int opt)
{
	union {
		struct rds_get_mr_args mr;
		struct rds_get_mr_for_dest_args d;
		struct rds_free_mr_args f;
		struct rds_doca_get_mr_list_args l;
		struct rds_rx_trace_so t;
		struct sockaddr_in sin;
		int i;
	} *u = (void *)c->buf;
	struct cookie_ent *e;
	uint64_t len;
	unsigned int i;

	fill_random(&c->r, c->buf, 256);
	switch (opt) {
	case RDS_RECVERR:
	case RDS_CONG_MONITOR:
	case SO_TIMESTAMP_OLD:
	case SO_TIMESTAMPNS_OLD:
	case SO_TIMESTAMP_NEW:
		u->i = chance(&c->r, 70) ? (int)below(&c->r, 2) :
		       interesting_int(&c->r);
		return sizeof(int);
	case SO_RDS_TRANSPORT:
		u->i = chance(&c->r, 70) ? (int)below(&c->r, 5) - 1 :
		       interesting_int(&c->r);
		return sizeof(int);
	case SO_RDS_MSG_RXPATH_LATENCY:
		u->t.rx_traces = below(&c->r, 5);
		for (i = 0; i < RDS_MSG_RX_DGRAM_TRACE_MAX; i++)
			u->t.rx_trace_pos[i] = below(&c->r, 5);
		return sizeof(u->t);
	case RDS_CANCEL_SENT_TO:
		sin_to(&u->sin, pick_ip(c), pick_port(c));
		return sizeof(u->sin);
	case RDS_GET_MR:
		u->mr.vec = pick_region(c, &len);
		u->mr.cookie_addr = (uintptr_t)(c->buf + 512);
		u->mr.flags = pick_mr_flags(c);
		return sizeof(u->mr);
	case RDS_GET_MR_FOR_DEST:
		memset(&u->d.dest_addr, 0, sizeof(u->d.dest_addr));
		sin_to((struct sockaddr_in *)&u->d.dest_addr, pick_ip(c),
		       pick_port(c));
		if (chance(&c->r, 10))
			u->d.dest_addr.ss_family = below(&c->r, 50);
		u->d.vec = pick_region(c, &len);
		u->d.cookie_addr = pick_cookie_addr(c, &e);
		u->d.flags = pick_mr_flags(c);
		return sizeof(u->d);
	case RDS_FREE_MR:
		u->f.cookie = pick_cookie(c);
		u->f.flags = chance(&c->r, 70) ? 0 : interesting64(&c->r);
		return sizeof(u->f);
	case RDS_DOCA_GET_MR_LIST:
		u->l.vecs_addr = build_local_vecs(c, 4096, false,
						  &u->l.nr_vecs);
		u->l.cookie_addr = pick_cookie_addr(c, &e);
		u->l.flags = pick_mr_flags(c);
		return sizeof(u->l);
	}
	return sizeof(int);
}

static void *pick_optval(struct ctx *c, int len)
{
	uint32_t x = below(&c->r, 100);

	if (x < 92)
		return c->buf;
	if (x < 94)
		return NULL;
	return mem_ptr(c, pick_mem(c, 0), len > 0 ? len : 0);
}

static int op_setsockopt_rds(struct ctx *c)
{
	int fd = slot_fd(c, NULL), opt = pick_rds_opt(c), len;
	int level = SOL_RDS;
	void *p;

	len = pick_optlen(c, build_rds_optval(c, opt));
	p = pick_optval(c, len);
	if (chance(&c->r, 3))
		level = chance(&c->r, 50) ? SOL_RDS + 1 : (int)rnd(&c->r);
	tr(c, " level=%d opt=%d len=%d", level, opt, len);
	return res(setsockopt(fd, level, opt, p, len));
}

static int op_getsockopt_rds(struct ctx *c)
{
	int fd = slot_fd(c, NULL), opt = pick_rds_opt(c);
	socklen_t len = pick_optlen(c, sizeof(int));
	socklen_t *lp = &len;
	void *p = pick_optval(c, len);

	if (chance(&c->r, 3))
		lp = chance(&c->r, 50) ? NULL :
		     (socklen_t *)mem_ptr(c, M_RO, 4);
	tr(c, " opt=%d len=%d", opt, (int)len);
	return res(getsockopt(fd, SOL_RDS, opt, p, lp));
}

/* SOL_SOCKET option values, per option where it matters. */
static int build_sock_optval(struct ctx *c, int opt)
{
	static struct sock_filter prog[2] = {
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	union {
		int i;
		struct linger l;
		struct timeval tv;
		struct sock_fprog f;
		char name[IFNAMSIZ + 8];
		uint32_t w[2];
	} *u = (void *)c->buf;
	static const char * const devs[] = { "lo", "d0", "", "eth0",
					     "0123456789abcdefgh" };
	static const int bufs[] = { 0, 1, 256, 2048, 4096, 8192, 65536,
				    212992, 1 << 20, INT_MAX, -1 };

	fill_random(&c->r, c->buf, 64);
	switch (opt) {
	case SO_LINGER:
		u->l.l_onoff = below(&c->r, 2);
		u->l.l_linger = chance(&c->r, 80) ? (int)below(&c->r, 2) :
				interesting_int(&c->r);
		return sizeof(u->l);
	case SO_RCVTIMEO_OLD:
	case SO_SNDTIMEO_OLD:
	case SO_RCVTIMEO_NEW:
	case SO_SNDTIMEO_NEW:
		u->tv.tv_sec = chance(&c->r, 85) ? 0 : interesting_int(&c->r);
		u->tv.tv_usec = chance(&c->r, 85) ? (int)below(&c->r, 200000) :
				interesting_int(&c->r);
		return sizeof(u->tv);
	case SO_ATTACH_FILTER:
	case SO_ATTACH_REUSEPORT_CBPF:
		u->f.len = 1 + below(&c->r, 2);
		u->f.filter = chance(&c->r, 90) ? prog + below(&c->r, 2) :
			      (struct sock_filter *)mem_ptr(c, pick_mem(c, 0),
							    16);
		return sizeof(u->f);
	case SO_BINDTODEVICE:
		snprintf(u->name, sizeof(u->name), "%s", devs[below(&c->r, 5)]);
		return strlen(u->name) + below(&c->r, 2);
	case SO_SNDBUF:
	case SO_RCVBUF:
	case SO_SNDBUFFORCE:
	case SO_RCVBUFFORCE:
		u->i = bufs[below(&c->r, ARRAY_SIZE(bufs))];
		return sizeof(int);
	case SO_TIMESTAMPING_OLD:
	case SO_TIMESTAMPING_NEW:
	case SO_TXTIME:
		u->w[0] = chance(&c->r, 50) ? (uint32_t)rnd(&c->r) :
			  1u << below(&c->r, 20);
		u->w[1] = below(&c->r, 4);
		return chance(&c->r, 50) ? 4 : 8;
	}
	u->i = chance(&c->r, 60) ? (int)below(&c->r, 2) :
	       interesting_int(&c->r);
	return sizeof(int);
}

static int op_setsockopt_sock(struct ctx *c)
{
	int fd = slot_fd(c, NULL), opt = 1 + below(&c->r, 80), len;
	void *p;

	len = pick_optlen(c, build_sock_optval(c, opt));
	p = pick_optval(c, len);
	tr(c, " opt=%d len=%d", opt, len);
	return res(setsockopt(fd, SOL_SOCKET, opt, p, len));
}

static int op_getsockopt_sock(struct ctx *c)
{
	int fd = slot_fd(c, NULL), opt = 1 + below(&c->r, 80);
	socklen_t len = pick_optlen(c, chance(&c->r, 50) ? 4 : 16);
	void *p = pick_optval(c, len);

	if (opt == 77)		/* SO_PEERPIDFD would hand us a descriptor */
		opt = SO_PEERCRED;
	tr(c, " opt=%d len=%d", opt, (int)len);
	return res(getsockopt(fd, SOL_SOCKET, opt, p, &len));
}

static int op_info(struct ctx *c)
{
	static const int sizes[] = {
		0, 1, 3, 4, 7, 8, 16,
		sizeof(struct rds_info_counter) - 1,
		sizeof(struct rds_info_counter),
		sizeof(struct rds_info_connection),
		sizeof(struct rds_info_message),
		sizeof(struct rds_info_socket),
		sizeof(struct rds6_info_socket),
		sizeof(struct rds_info_rdma_connection),
		4096, 65536, BUF_SIZE, 1 << 20, -1, INT_MIN,
	};
	int fd = slot_fd(c, NULL), opt, ret;
	socklen_t len, *lp = &len;
	uint32_t x = below(&c->r, 100);
	void *p = c->buf;

	if (x < 92)
		opt = RDS_INFO_FIRST + below(&c->r, RDS_INFO_LAST -
					     RDS_INFO_FIRST + 1);
	else if (x < 95)
		opt = RDS_INFO_FIRST - 1 - below(&c->r, 2);
	else
		opt = RDS_INFO_LAST + 1 + below(&c->r, 10);
	if (chance(&c->r, 35)) {
		/* the probe of rds-info, then a length from its answer */
		len = 0;
		ret = getsockopt(fd, SOL_RDS, opt,
				 chance(&c->r, 50) ? NULL : c->buf, &len);
		tr(c, " opt=%d probe=%d/%u", opt, ret < 0 ? -errno : ret, len);
		if (ret == 0 || errno != ENOSPC)
			return res(ret);
		x = below(&c->r, 100);
		if (x < 10 && len)
			len -= 1;
		else if (x < 20)
			len += below(&c->r, 256);
	} else {
		len = sizes[below(&c->r, ARRAY_SIZE(sizes))];
	}
	x = below(&c->r, 100);
	if ((int)len > BUF_SIZE || x >= 90)
		p = mem_ptr(c, x < 95 ? M_RW : pick_mem(c, 0),
			    (int)len > 0 ? len : 0);
	if (chance(&c->r, 2))
		lp = NULL;
	tr(c, " opt=%d len=%d", opt, (int)len);
	return res(getsockopt(fd, SOL_RDS, opt, p, lp));
}

static int op_get_mr(struct ctx *c)
{
	union {
		struct rds_get_mr_args a;
		struct rds_get_mr_for_dest_args d;
		struct rds_doca_get_mr_list_args l;
	} u;
	struct cookie_ent *e;
	int fd = slot_fd(c, NULL), opt, ret;
	uint64_t len = 0, off, piece;
	uint32_t x = below(&c->r, 100);
	unsigned int n, i;
	socklen_t olen;
	void *p = &u;

	memset(&u, 0, sizeof(u));
	if (x < 50) {
		opt = RDS_GET_MR;
		u.a.vec = pick_region(c, &len);
		u.a.cookie_addr = pick_cookie_addr(c, &e);
		u.a.flags = pick_mr_flags(c);
		olen = sizeof(u.a);
	} else if (x < 72) {
		opt = RDS_GET_MR_FOR_DEST;
		if (chance(&c->r, 90))
			sin_to((struct sockaddr_in *)&u.d.dest_addr,
			       pick_ip(c), pick_port(c));
		else
			fill_random(&c->r, &u.d.dest_addr,
				    sizeof(u.d.dest_addr));
		u.d.vec = pick_region(c, &len);
		u.d.cookie_addr = pick_cookie_addr(c, &e);
		u.d.flags = pick_mr_flags(c);
		olen = sizeof(u.d);
	} else {
		opt = RDS_DOCA_GET_MR_LIST;
		if (chance(&c->r, 75)) {
			/* buffers that meet on page boundaries */
			n = 1 + below(&c->r, 4);
			for (i = 0; i < n; i++) {
				piece = (1 + below(&c->r, 4)) * cfg.pg;
				off = below(&c->r, RW_SIZE / cfg.pg - 8) *
				      cfg.pg;
				if (i == 0 && chance(&c->r, 30)) {
					off += below(&c->r, cfg.pg);
					piece -= off % cfg.pg;
				}
				if (i == n - 1 && chance(&c->r, 50))
					piece -= below(&c->r, cfg.pg);
				c->vecs[i].addr = (uintptr_t)c->pr->mem.rw +
						  off;
				c->vecs[i].bytes = piece;
				len += piece;
			}
			u.l.vecs_addr = (uintptr_t)c->vecs;
			u.l.nr_vecs = n;
			if (chance(&c->r, 5))
				u.l.nr_vecs = interesting64(&c->r);
			tr(c, " list=%u/%llu", n, (unsigned long long)len);
		} else {
			u.l.vecs_addr = build_local_vecs(c, 8192, false,
							 &u.l.nr_vecs);
		}
		u.l.cookie_addr = pick_cookie_addr(c, &e);
		u.l.flags = pick_mr_flags(c);
		olen = sizeof(u.l);
	}
	if (chance(&c->r, 5))
		olen = pick_optlen(c, olen);
	if (chance(&c->r, 3))
		p = mem_ptr(c, pick_mem(c, 0), olen);
	tr(c, " opt=%d len=%u", opt, olen);
	ret = res(setsockopt(fd, SOL_RDS, opt, p, olen));
	if (ret == 0) {
		xinc(c, X_COOKIES);
		note_owner(fd, e, len);
	}
	return ret;
}

static int op_free_mr(struct ctx *c)
{
	struct cookie_ent *e = &sh->cookies[below(&c->r, NCOOKIES)];
	struct rds_free_mr_args a;
	int fd = slot_fd(c, NULL), ret;
	uint32_t x = below(&c->r, 100);
	socklen_t len = sizeof(a);

	memset(&a, 0, sizeof(a));
	if (x < 65)
		a.cookie = e->cookie;
	else if (x < 72)
		a.cookie = 0;
	else if (x < 80)
		a.cookie = e->cookie ^ (1ULL << (32 + below(&c->r, 32)));
	else
		a.cookie = pick_cookie(c);
	x = below(&c->r, 100);
	if (x < 70)
		a.flags = 0;
	else if (x < 92)
		a.flags = RDS_RDMA_INVALIDATE;
	else
		a.flags = interesting64(&c->r);
	if (chance(&c->r, 5))
		len = pick_optlen(c, len);
	tr(c, " cookie=%llx flags=%llx len=%u", (unsigned long long)a.cookie,
	   (unsigned long long)a.flags, len);
	ret = res(setsockopt(fd, SOL_RDS, RDS_FREE_MR, &a, len));
	if (ret == 0 && a.cookie == e->cookie && a.cookie)
		__atomic_store_n(&e->state, COOKIE_FREED, __ATOMIC_RELAXED);
	return ret;
}

static int op_cancel(struct ctx *c)
{
	struct sockaddr_storage ss;
	int fd = slot_fd(c, NULL);
	void *p;
	socklen_t len = build_sa(c, &ss, &p);

	return res(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, p, len));
}

static short pick_events(struct ctx *c)
{
	static const short ev[] = {
		POLLIN, POLLOUT, POLLIN | POLLOUT, POLLPRI, POLLRDNORM,
		POLLWRBAND, POLLIN | POLLOUT | POLLERR | POLLHUP,
	};

	if (chance(&c->r, 5))
		return rnd(&c->r);
	return ev[below(&c->r, ARRAY_SIZE(ev))];
}

static int op_poll(struct ctx *c)
{
	struct pollfd pfd[NSLOTS + 2];
	struct timespec ts = { 0, 0 };
	struct timeval tv = { 0, 0 };
	unsigned int n = 1 + below(&c->r, NSLOTS + 2), i;
	int tmo = chance(&c->r, 70) ? 0 : (int)below(&c->r, 5);
	fd_set rd, wr, ex;
	int maxfd = -1;
	sigset_t ss;

	for (i = 0; i < n; i++) {
		pfd[i].fd = c->pr->slots[below(&c->r, NSLOTS)];
		pfd[i].events = pick_events(c);
		pfd[i].revents = 0;
	}
	tr(c, " n=%u timeout=%d", n, tmo);
	switch (below(&c->r, 4)) {
	case 0:
	case 1:
		return res(poll(pfd, n, tmo));
	case 2:
		ts.tv_nsec = tmo * 1000000L;
		sigemptyset(&ss);
		return res(ppoll(pfd, n, &ts, &ss));
	default:
		FD_ZERO(&rd);
		FD_ZERO(&wr);
		FD_ZERO(&ex);
		for (i = 0; i < n; i++) {
			if (pfd[i].fd < 0 || pfd[i].fd >= FD_SETSIZE)
				continue;
			FD_SET(pfd[i].fd, &rd);
			if (pfd[i].events & POLLOUT)
				FD_SET(pfd[i].fd, &wr);
			if (pfd[i].events & POLLPRI)
				FD_SET(pfd[i].fd, &ex);
			if (pfd[i].fd > maxfd)
				maxfd = pfd[i].fd;
		}
		tv.tv_usec = tmo * 1000;
		return res(select(maxfd + 1, &rd, &wr, &ex, &tv));
	}
}

/* One of the process's epoll instances, made on first use. */
static int ep_get(struct ctx *c, int i)
{
	int fd = __atomic_load_n(&c->pr->epfd[i], __ATOMIC_ACQUIRE), nfd;
	int expect = -1;

	if (fd >= 0)
		return fd;
	nfd = epoll_create1(EPOLL_CLOEXEC);
	if (nfd < 0)
		return -1;
	if (!__atomic_compare_exchange_n(&c->pr->epfd[i], &expect, nfd, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		close(nfd);
		return expect;
	}
	return nfd;
}

static int op_epoll(struct ctx *c)
{
	static const uint32_t ev[] = {
		EPOLLIN, EPOLLOUT, EPOLLIN | EPOLLOUT, EPOLLIN | EPOLLET,
		EPOLLIN | EPOLLONESHOT, EPOLLIN | EPOLLEXCLUSIVE,
		EPOLLIN | EPOLLRDHUP | EPOLLPRI, EPOLLOUT | EPOLLWAKEUP,
	};
	struct epoll_event e, *evs = (struct epoll_event *)c->buf;
	unsigned int i = below(&c->r, NEPOLL);
	int ep = ep_get(c, i), fd = slot_fd(c, NULL), old;
	uint32_t x = below(&c->r, 100);

	memset(&e, 0, sizeof(e));
	e.events = ev[below(&c->r, ARRAY_SIZE(ev))];
	e.data.u64 = rnd(&c->r);
	if (x < 40) {
		tr(c, " add ep=%d ev=%#x", ep, e.events);
		if (chance(&c->r, 3))
			fd = ep_get(c, !i);	/* nested epoll */
		return res(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e));
	}
	if (x < 52) {
		tr(c, " mod ep=%d ev=%#x", ep, e.events);
		return res(epoll_ctl(ep, EPOLL_CTL_MOD, fd, &e));
	}
	if (x < 67) {
		tr(c, " del ep=%d", ep);
		return res(epoll_ctl(ep, EPOLL_CTL_DEL, fd, &e));
	}
	if (x < 95) {
		tr(c, " wait ep=%d", ep);
		return res(epoll_wait(ep, evs, 1 + below(&c->r, 16),
				      below(&c->r, 4)));
	}
	old = __atomic_exchange_n(&c->pr->epfd[i], -1, __ATOMIC_ACQ_REL);
	tr(c, " close ep=%d", old);
	return old > 2 ? res(close(old)) : 0;
}

static int op_ioctl(struct ctx *c)
{
	static const unsigned long cmds[] = {
		SIOCINQ, SIOCOUTQ, SIOCRDSSETTOS, SIOCRDSSETTOS,
		SIOCRDSGETTOS, SIOCRDSGETTOS, FIONBIO, FIOASYNC, FIOCLEX,
		FIONCLEX, FIOSETOWN, FIOGETOWN, SIOCSPGRP, SIOCGPGRP,
		SIOCATMARK, SIOCGSTAMP_OLD, SIOCGSTAMPNS_OLD, SIOCGIFINDEX,
		SIOCGIFCONF, SIOCGIFFLAGS, SIOCGIFADDR, SIOCGIFMTU,
		SIOCSIFFLAGS, SIOCPROTOPRIVATE + 2, SIOCPROTOPRIVATE + 15,
		SIOCDEVPRIVATE, FIOQSIZE, TIOCOUTQ,
	};
	int fd = slot_fd(c, NULL);
	unsigned long cmd;
	uint32_t x = below(&c->r, 100);
	struct ifreq *ifr = (struct ifreq *)c->buf;
	struct ifconf *ifc = (struct ifconf *)c->buf;
	void *arg = c->buf;
	int *ip = (int *)c->buf;

	if (x < 90) {
		cmd = cmds[below(&c->r, ARRAY_SIZE(cmds))];
	} else {
		/* not the socket ioctls that load modules (0x89xx) */
		cmd = rnd(&c->r) & 0xffffffff;
		if (((cmd >> 8) & 0xff) == 0x89)
			cmd ^= 0x100;
	}
	fill_random(&c->r, c->buf, 64);
	switch (cmd) {
	case SIOCRDSSETTOS:
		c->buf[0] = chance(&c->r, 50) ? below(&c->r, 4) : rnd(&c->r);
		break;
	case FIONBIO:
	case FIOASYNC:
		*ip = below(&c->r, 2);
		break;
	case FIOSETOWN:
	case SIOCSPGRP:
		*ip = chance(&c->r, 50) ? getpid() :
		      chance(&c->r, 50) ? 0 : (int)syscall(SYS_gettid);
		break;
	case SIOCGIFCONF:
		ifc->ifc_len = chance(&c->r, 80) ? 1024 :
			       interesting_int(&c->r);
		ifc->ifc_buf = c->buf + 64;
		break;
	default:
		snprintf(ifr->ifr_name, IFNAMSIZ, "%s",
			 chance(&c->r, 50) ? "lo" : "d0");
		break;
	}
	x = below(&c->r, 100);
	if (x < 5)
		arg = NULL;
	else if (x < 10)
		arg = mem_ptr(c, pick_mem(c, 0), 64);
	else if (x < 13)
		arg = (void *)(uintptr_t)below(&c->r, 4);
	tr(c, " cmd=%#lx arg=%p", cmd, arg);
	return res(ioctl(fd, cmd, arg));
}

/* ------------------------------------------------------------------ */
/* generic netlink                                                     */
/* ------------------------------------------------------------------ */

static int nl_open(struct ctx *c)
{
	int fd, one = 1, v;

	if (c->nlfd >= 0)
		return c->nlfd;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	if (chance(&c->r, 50))
		setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (chance(&c->r, 30))
		setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one,
			   sizeof(one));
	if (chance(&c->r, 10)) {
		v = 4096;
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	}
	c->nlfd = fd;
	return fd;
}

static void nl_close(struct ctx *c)
{
	if (c->nlfd > 2)
		close(c->nlfd);
	c->nlfd = -1;
}

static size_t nl_attr(char *b, size_t off, size_t cap, uint16_t type,
		      const void *data, size_t len)
{
	struct nlattr *na = (struct nlattr *)(b + off);

	if (off + NLA_HDRLEN + NLA_ALIGN(len) > cap)
		return off;
	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy(b + off + NLA_HDRLEN, data, len);
	memset(b + off + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	return off + NLA_HDRLEN + NLA_ALIGN(len);
}

/* Attributes of the right and wrong types and lengths, and nests. */
static size_t nl_rand_attrs(struct ctx *c, char *b, size_t off, size_t cap,
			    int maxtype, int depth)
{
	static const char * const strs[] = {
		"loopback", "ib", "", "lo", "rxe0", "0123456789abcde",
		"0123456789abcdef", "a string far longer than any name here",
	};
	unsigned int n = below(&c->r, 6), i;
	unsigned char data[64];
	uint16_t type;
	size_t len, start;
	uint32_t x, v32;
	struct nlattr *na;

	for (i = 0; i < n && off + 128 < cap; i++) {
		x = below(&c->r, 100);
		type = x < 75 ? below(&c->r, maxtype + 1) :
		       x < 85 ? maxtype + 1 + below(&c->r, 4) : rnd(&c->r);
		if (chance(&c->r, 4))
			type |= NLA_F_NET_BYTEORDER;
		x = below(&c->r, 100);
		if (x < 12 && depth < 3) {
			start = off;
			off = nl_attr(b, off, cap, type |
				      (chance(&c->r, 50) ? NLA_F_NESTED : 0),
				      NULL, 0);
			if (off == start)
				break;
			off = nl_rand_attrs(c, b, off, cap, maxtype, depth + 1);
			na = (struct nlattr *)(b + start);
			na->nla_len = off - start;
			continue;
		}
		if (x < 30) {
			len = 4;
			v32 = chance(&c->r, 50) ? cfg.peer : cfg.addr;
			memcpy(data, &v32, 4);
		} else if (x < 50) {
			const char *s = strs[below(&c->r, 8)];

			len = strlen(s) + (chance(&c->r, 80) ? 1 : 0);
			memcpy(data, s, len);
		} else if (x < 80) {
			static const size_t lens[] = { 0, 1, 2, 4, 8, 16 };

			len = lens[below(&c->r, 6)];
			fill_random(&c->r, data, len);
			if (len && chance(&c->r, 50))
				memset(data, 0, len);
		} else {
			len = below(&c->r, sizeof(data));
			fill_random(&c->r, data, len);
		}
		start = off;
		off = nl_attr(b, off, cap, type, data, len);
		if (off != start && chance(&c->r, 3)) {
			/* a lying length */
			na = (struct nlattr *)(b + start);
			na->nla_len = chance(&c->r, 50) ?
				      below(&c->r, NLA_HDRLEN) :
				      na->nla_len + 1 + below(&c->r, 512);
			break;
		}
	}
	return off;
}

/*
 * Read what came back, without waiting more than a few tens of
 * milliseconds: 0 for an acknowledgment of our request (its echoed
 * header checked), 1 for answers, the error of our request, or -EAGAIN
 * when nothing answered.  Gives up halfway through a dump now and then.
 */
static int nl_drain(struct ctx *c, uint16_t type, uint32_t seq)
{
	int ret = -EAGAIN, polls = 0, reads;
	bool done = false, abandon = chance(&c->r, 15);
	struct pollfd pfd = { .fd = c->nlfd, .events = POLLIN };
	struct nlmsghdr *nh;
	struct nlmsgerr *e;
	ssize_t n;

	for (reads = 0; reads < 256 && !done; reads++) {
		n = recv(c->nlfd, c->nlans, NLANS_SIZE, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN || ++polls > 3)
				return ret == -EAGAIN && errno != EAGAIN ?
				       -errno : ret;
			poll(&pfd, 1, 10);
			continue;
		}
		for (nh = (struct nlmsghdr *)c->nlans; NLMSG_OK(nh, n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				e = NLMSG_DATA(nh);
				if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					continue;
				if (ret == -EAGAIN && (e->error ||
				    (e->msg.nlmsg_seq == seq &&
				     e->msg.nlmsg_type == type)))
					ret = e->error;
				done = true;
			} else if (nh->nlmsg_type == NLMSG_DONE) {
				if (ret == -EAGAIN)
					ret = 1;
				done = true;
			} else {
				xinc(c, X_NL_ANSWERS);
				if (ret == -EAGAIN)
					ret = 1;
				if (!(nh->nlmsg_flags & NLM_F_MULTI))
					done = true;
			}
		}
		if (abandon && reads)
			break;
	}
	return ret;
}

struct nl_req {
	uint16_t type;
	uint16_t flags;
	uint8_t cmd, version;
	int maxtype;		/* random attributes up to it, -1: none */
	int special;		/* NL_ADMIN_ATTRS or NL_CTRL_ATTRS instead */
	bool exact;		/* no lying lengths */
};

enum {
	NL_RANDOM_ATTRS,
	NL_ADMIN_ATTRS,		/* the attributes the admin command takes */
	NL_CTRL_ATTRS,		/* CTRL_ATTR_FAMILY_NAME "rds_doca" */
};

static int nl_send(struct ctx *c, struct nl_req *q)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr *nh = (struct nlmsghdr *)c->nlreq;
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN, slen;
	uint32_t v32, seq;
	uint8_t v8;
	int fd = nl_open(c), ret;
	uint32_t x;

	if (fd < 0)
		return -errno;
	memset(c->nlreq, 0, off);
	seq = ++c->nl_seq;
	nh->nlmsg_type = q->type;
	nh->nlmsg_flags = q->flags;
	nh->nlmsg_seq = seq;
	gh->cmd = q->cmd;
	gh->version = q->version;
	if (q->special == NL_CTRL_ATTRS) {
		off = nl_attr(c->nlreq, off, NLREQ_SIZE,
			      CTRL_ATTR_FAMILY_NAME, RDS_DOCA_GENL_NAME,
			      sizeof(RDS_DOCA_GENL_NAME));
		if (chance(&c->r, 30)) {
			v32 = below(&c->r, 16);
			off = nl_attr(c->nlreq, off, NLREQ_SIZE, CTRL_ATTR_OP,
				      &v32, 4);
		}
	} else if (q->special == NL_ADMIN_ATTRS &&
		   q->cmd == RDS_DOCA_CMD_CONN_DROP) {
		v32 = chance(&c->r, 50) ? cfg.peer : cfg.addr;
		off = nl_attr(c->nlreq, off, NLREQ_SIZE, RDS_DOCA_A_CONN_PEER,
			      &v32, 4);
		if (chance(&c->r, 50))
			off = nl_attr(c->nlreq, off, NLREQ_SIZE,
				      RDS_DOCA_A_CONN_LADDR, &cfg.addr, 4);
		if (chance(&c->r, 50))
			off = nl_attr(c->nlreq, off, NLREQ_SIZE,
				      RDS_DOCA_A_CONN_TRANSPORT,
				      chance(&c->r, 50) ? "loopback" : "ib",
				      chance(&c->r, 50) ? 9 : 3);
	} else if (q->special == NL_ADMIN_ATTRS &&
		   q->cmd == RDS_DOCA_CMD_SET) {
		v8 = below(&c->r, 3);
		off = nl_attr(c->nlreq, off, NLREQ_SIZE,
			      RDS_DOCA_A_INFO_DMA_MODE, &v8, 1);
		v32 = interesting64(&c->r);
		off = nl_attr(c->nlreq, off, NLREQ_SIZE,
			      RDS_DOCA_A_INFO_DMA_SEND_MIN +
			      below(&c->r, 3), &v32, 4);
	} else if (q->maxtype >= 0) {
		off = nl_rand_attrs(c, c->nlreq, off, NLREQ_SIZE, q->maxtype,
				    0);
	}
	nh->nlmsg_len = off;
	slen = off;
	x = below(&c->r, 100);
	if (!q->exact && x < 4) {
		nh->nlmsg_len = below(&c->r, off + 1);
	} else if (!q->exact && x < 7) {
		nh->nlmsg_len = off + 1 + below(&c->r, 64);
	} else if (!q->exact && x < 10 && off + off <= NLREQ_SIZE) {
		/* two requests in one datagram */
		memcpy(c->nlreq + off, c->nlreq, off);
		slen = 2 * off;
	} else if (!q->exact && x < 12) {
		slen += below(&c->r, 8);	/* trailing bytes */
	}
	tr(c, " nl type=%#x flags=%#x cmd=%u ver=%u len=%u/%zu", q->type,
	   q->flags, q->cmd, q->version, nh->nlmsg_len, slen);
	if (sendto(fd, c->nlreq, slen, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0) {
		ret = -errno;
		/* the number was closed under us, or names another file */
		if (ret == -EBADF || ret == -ENOTSOCK || ret == -EINVAL)
			c->nlfd = -1;
		return ret;
	}
	if (chance(&c->r, 3)) {
		/* gone with a dump running, or its answer unread */
		nl_close(c);
		return 2;
	}
	if (chance(&c->r, 5))
		return 2;	/* answer left for the next request */
	return nl_drain(c, q->type, seq);
}

static uint16_t nl_family(struct ctx *c)
{
	uint32_t x = below(&c->r, 100);

	if (x < 92 && cfg.genl_id)
		return cfg.genl_id;
	if (x < 95)
		return GENL_ID_CTRL;
	return chance(&c->r, 50) ? below(&c->r, 64) : rnd(&c->r);
}

static int nl_set_of(int cmd)
{
	switch (cmd) {
	case RDS_DOCA_CMD_CONN_GET:
	case RDS_DOCA_CMD_CONN_DROP:
		return RDS_DOCA_A_CONN_MAX;
	case RDS_DOCA_CMD_SOCK_GET:
		return RDS_DOCA_A_SOCK_MAX;
	case RDS_DOCA_CMD_MR_GET:
		return RDS_DOCA_A_MR_MAX;
	case RDS_DOCA_CMD_DEV_GET:
		return RDS_DOCA_A_DEV_MAX;
	case RDS_DOCA_CMD_STATS_GET:
		return RDS_DOCA_A_STATS_MAX;
	default:
		return RDS_DOCA_A_INFO_MAX;
	}
}

static int op_nl_do(struct ctx *c)
{
	static const uint8_t cmds[] = {
		RDS_DOCA_CMD_INFO_GET, RDS_DOCA_CMD_INFO_GET,
		RDS_DOCA_CMD_STATS_GET, RDS_DOCA_CMD_STATS_GET,
		RDS_DOCA_CMD_CONN_GET, RDS_DOCA_CMD_SOCK_GET,
		RDS_DOCA_CMD_MR_GET, RDS_DOCA_CMD_DEV_GET,
		RDS_DOCA_CMD_CONN_UP_NTF, RDS_DOCA_CMD_DEV_DEL_NTF,
		RDS_DOCA_CMD_UNSPEC, RDS_DOCA_CMD_MAX + 1, 255,
	};
	struct nl_req q = {
		.type = nl_family(c),
		.flags = NLM_F_REQUEST,
		.cmd = cmds[below(&c->r, ARRAY_SIZE(cmds))],
		.version = chance(&c->r, 90) ? RDS_DOCA_GENL_VERSION :
			   rnd(&c->r),
	};

	if (chance(&c->r, 40))
		q.flags |= NLM_F_ACK;
	if (chance(&c->r, 5))
		q.flags |= rnd(&c->r) & ~NLM_F_DUMP;
	q.maxtype = chance(&c->r, 50) ? nl_set_of(q.cmd) : -1;
	return nl_send(c, &q);
}

static int op_nl_dump(struct ctx *c)
{
	static const uint8_t cmds[] = {
		RDS_DOCA_CMD_CONN_GET, RDS_DOCA_CMD_SOCK_GET,
		RDS_DOCA_CMD_MR_GET, RDS_DOCA_CMD_DEV_GET,
		RDS_DOCA_CMD_INFO_GET, RDS_DOCA_CMD_STATS_GET,
		RDS_DOCA_CMD_STATS_RESET, 0, 77,
	};
	struct nl_req q = {
		.type = nl_family(c),
		.flags = NLM_F_REQUEST | NLM_F_DUMP,
		.version = RDS_DOCA_GENL_VERSION,
	};
	uint32_t x = below(&c->r, 100);

	q.cmd = cmds[below(&c->r, x < 85 ? 4 : ARRAY_SIZE(cmds))];
	if (chance(&c->r, 10))
		q.flags = NLM_F_REQUEST |
			  (chance(&c->r, 50) ? NLM_F_ROOT : NLM_F_MATCH);
	if (chance(&c->r, 20))
		q.flags |= NLM_F_ACK;
	q.maxtype = chance(&c->r, 25) ? nl_set_of(q.cmd) : -1;
	return nl_send(c, &q);
}

/*
 * The commands that need CAP_NET_ADMIN, always with NLM_F_ACK so that
 * an accepted one shows (an ack of 0).
 */
static int op_nl_admin(struct ctx *c)
{
	static const uint8_t cmds[] = {
		RDS_DOCA_CMD_STATS_RESET, RDS_DOCA_CMD_CONN_DROP,
		RDS_DOCA_CMD_SET,
	};
	struct nl_req q = {
		.type = cfg.genl_id,
		.flags = NLM_F_REQUEST | NLM_F_ACK,
		.cmd = cmds[below(&c->r, 3)],
		.version = RDS_DOCA_GENL_VERSION,
		.exact = true,
	};
	int ret;

	if (!cfg.genl_id)
		return -ENOENT;
	q.special = chance(&c->r, 60) ? NL_ADMIN_ATTRS : NL_RANDOM_ATTRS;
	q.maxtype = nl_set_of(q.cmd);
	ret = nl_send(c, &q);
	if (ret == 0 && !c->netns) {
		xinc(c, X_ADMIN_OK_INIT);
		out_line(2, "# ADMIN COMMAND ACCEPTED: %d.%d#%" PRIu64
			 " cmd %u\n", c->p, c->t, c->op, q.cmd);
	} else if (ret == -EPERM) {
		xinc(c, X_ADMIN_REFUSED);
	}
	return ret;
}

/* The controller about our family, memberships, raw garbage. */
static int op_nl_raw(struct ctx *c)
{
	struct nl_req q = {
		.flags = NLM_F_REQUEST,
		.version = 1,
		.maxtype = CTRL_ATTR_MAX,
	};
	int fd, grp;
	uint32_t x = below(&c->r, 100);

	if (x < 15) {
		fd = nl_open(c);
		grp = chance(&c->r, 80) && cfg.genl_grp ? cfg.genl_grp :
		      (int)below(&c->r, 64);
		tr(c, " membership %d", grp);
		return res(setsockopt(fd, SOL_NETLINK, chance(&c->r, 70) ?
				      NETLINK_ADD_MEMBERSHIP :
				      NETLINK_DROP_MEMBERSHIP,
				      &grp, sizeof(grp)));
	}
	if (x < 20) {
		tr(c, " reopen");
		nl_close(c);
		return nl_open(c) < 0 ? -errno : 0;
	}
	if (x < 50) {
		/* CTRL_CMD_GETFAMILY by name, or CTRL_CMD_GETPOLICY */
		q.type = GENL_ID_CTRL;
		q.cmd = chance(&c->r, 50) ? CTRL_CMD_GETFAMILY :
			CTRL_CMD_GETPOLICY;
		q.flags |= chance(&c->r, 50) ? NLM_F_DUMP : 0;
		q.special = NL_CTRL_ATTRS;
		q.exact = true;
		return nl_send(c, &q);
	}
	q.type = nl_family(c);
	q.cmd = rnd(&c->r);
	q.version = rnd(&c->r);
	q.flags = rnd(&c->r) | NLM_F_REQUEST;
	q.maxtype = 30;
	return nl_send(c, &q);
}

/* ------------------------------------------------------------------ */
/* descriptors, memory, processes                                      */
/* ------------------------------------------------------------------ */

static int op_getname(struct ctx *c)
{
	static const int lens[] = { 0, 1, 4, 16, 28, 128, -1 };
	int fd = slot_fd(c, NULL);
	socklen_t len = lens[below(&c->r, 7)], *lp = &len;
	void *p = chance(&c->r, 90) ? c->buf : mem_ptr(c, pick_mem(c, 0), 16);
	bool peer = chance(&c->r, 50);

	if (chance(&c->r, 3))
		lp = NULL;
	tr(c, " %s len=%d", peer ? "peer" : "sock", (int)len);
	return peer ? res(getpeername(fd, p, lp)) : res(getsockname(fd, p, lp));
}

static int op_other(struct ctx *c)
{
	int fd = slot_fd(c, NULL), sv[2], fl, ret;
	struct stat st;
	socklen_t len = 16;
	void *p;

	switch (below(&c->r, 12)) {
	case 0:
		tr(c, " listen");
		return res(listen(fd, interesting_int(&c->r)));
	case 1:
		tr(c, " accept4");
		return res(accept4(fd, (struct sockaddr *)c->buf, &len,
				   SOCK_NONBLOCK));
	case 2:
		tr(c, " shutdown");
		return res(shutdown(fd, below(&c->r, 4)));
	case 3:
		tr(c, " socketpair");
		ret = res(socketpair(cfg.family, SOCK_SEQPACKET, 0, sv));
		if (ret == 0) {
			slot_put(c, below(&c->r, NSLOTS), sv[0]);
			slot_put(c, below(&c->r, NSLOTS), sv[1]);
		}
		return ret;
	case 4:
		tr(c, " write");
		return res(write(fd, c->buf, below(&c->r, 256)));
	case 5:
		/* blocks on a blocking socket, until the watchdog */
		fl = fcntl(fd, F_GETFL);
		if (fl >= 0 && !(fl & O_NONBLOCK) && chance(&c->r, 80))
			return 0;
		tr(c, " read");
		return res(read(fd, c->buf, below(&c->r, 65536)));
	case 6:
		fl = fcntl(fd, F_GETFL);
		if (fl < 0)
			return -errno;
		fl ^= chance(&c->r, 70) ? O_NONBLOCK : O_ASYNC;
		tr(c, " setfl %#x", fl);
		return res(fcntl(fd, F_SETFL, fl));
	case 7:
		tr(c, " fstat");
		return res(fstat(fd, &st));
	case 8:
		tr(c, " mmap");
		p = mmap(NULL, cfg.pg, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return -errno;
		munmap(p, cfg.pg);
		return 0;
	case 9:
		tr(c, " send");
		return res(send(fd, c->buf, below(&c->r, 256),
				MSG_DONTWAIT | MSG_NOSIGNAL));
	case 10:
		tr(c, " getsockopt");
		len = sizeof(int);
		return res(getsockopt(fd, SOL_SOCKET, chance(&c->r, 50) ?
				      SO_DOMAIN : SO_PROTOCOL, c->buf, &len));
	default:
		tr(c, " fsync");
		return res(fsync(fd));
	}
}

static int op_close(struct ctx *c)
{
	unsigned int s = below(&c->r, NSLOTS);
	int fd;

	if (chance(&c->r, 10)) {
		/* close and leave the number: it names whatever comes next */
		fd = __atomic_load_n(&c->pr->slots[s], __ATOMIC_RELAXED);
		tr(c, " slot=%u fd=%d (stale)", s, fd);
	} else {
		fd = __atomic_exchange_n(&c->pr->slots[s], -1,
					 __ATOMIC_ACQ_REL);
		tr(c, " slot=%u fd=%d", s, fd);
	}
	return fd > 2 ? res(close(fd)) : -EBADF;
}

static int op_dup(struct ctx *c)
{
	int src = slot_fd(c, NULL), d = below(&c->r, NSLOTS), nfd, dfd;

	dfd = __atomic_load_n(&c->pr->slots[d], __ATOMIC_RELAXED);
	switch (below(&c->r, 4)) {
	case 0:
		tr(c, " dup slot=%d", d);
		nfd = dup(src);
		break;
	case 1:
		if (dfd <= 2) {
			nfd = dup(src);
			break;
		}
		tr(c, " dup2 onto %d", dfd);
		return res(dup2(src, dfd));
	case 2:
		if (dfd <= 2) {
			nfd = dup(src);
			break;
		}
		tr(c, " dup3 onto %d", dfd);
		return res(dup3(src, dfd, O_CLOEXEC));
	default:
		tr(c, " F_DUPFD_CLOEXEC slot=%d", d);
		nfd = fcntl(src, F_DUPFD_CLOEXEC, 3 + below(&c->r, 64));
		break;
	}
	if (nfd < 0)
		return -errno;
	slot_put(c, d, nfd);
	return nfd;
}

/* Remap, protect or drop pages of the volatile region under the calls. */
static int op_mmap(struct ctx *c)
{
	size_t npg = VOL_SIZE / cfg.pg, first = below(&c->r, npg);
	size_t n = 1 + below(&c->r, npg - first > 64 && chance(&c->r, 80) ?
			     64 : npg - first);
	char *a = c->pr->mem.vol + first * cfg.pg;
	size_t len = n * cfg.pg;
	void *p;
	int prot = PROT_READ | PROT_WRITE, flags = MAP_FIXED | MAP_ANONYMOUS;

	switch (below(&c->r, 10)) {
	case 0:
	case 1:
		flags |= MAP_PRIVATE;
		break;
	case 2:
		flags |= MAP_SHARED;
		break;
	case 3:
		flags |= MAP_PRIVATE;
		prot = PROT_NONE;
		break;
	case 4:
		tr(c, " mprotect ro %zu+%zu", first, n);
		return res(mprotect(a, len, PROT_READ));
	case 5:
		tr(c, " mprotect none %zu+%zu", first, n);
		return res(mprotect(a, len, PROT_NONE));
	case 6:
		tr(c, " mprotect rw %zu+%zu", first, n);
		return res(mprotect(a, len, PROT_READ | PROT_WRITE));
	case 7:
		tr(c, " dontneed %zu+%zu", first, n);
		return res(madvise(a, len, MADV_DONTNEED));
	case 8:
		tr(c, " hugepage");
		return res(madvise(c->pr->mem.vol, VOL_SIZE, MADV_HUGEPAGE));
	default:
		tr(c, " fill %zu+%zu", first, n);
		/* only through the kernel: the pages may be read-only */
		return res(mprotect(a, len, PROT_READ | PROT_WRITE));
	}
	tr(c, " mmap %s prot=%d %zu+%zu", flags & MAP_SHARED ? "shared" :
	   "private", prot, first, n);
	p = mmap(a, len, prot, flags, -1, 0);
	return p == MAP_FAILED ? -errno : 0;
}

static void run_child(struct ctx *c, uint64_t cseed, int nops);
static void stat_add(struct ctx *c, int kind, int ret);

/* A fork child is done: free its namespace slot, if any. */
static _Noreturn void child_exit(struct ctx *c)
{
	if (c->netns_slot >= 0)
		__atomic_store_n(&sh->netns_until[c->netns_slot], 0,
				 __ATOMIC_RELEASE);
	_exit(0);
}

static int op_fork(struct ctx *c)
{
	uint64_t cseed = rnd(&c->r);
	int nops = 1 + below(&c->r, 8);
	pid_t pid;

	if (c->child)
		return -ECHILD;
	tr(c, " ops=%d", nops);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		run_child(c, cseed, nops);
	xinc(c, X_FORKS);
	return 0;
}

/*
 * In a namespace of its own the child has CAP_NET_ADMIN: the admin
 * commands run, on the connection its first sockets made (127.0.0.2 to
 * 127.0.0.1), which the loopback transport cannot drop.
 */
static void netns_admin(struct ctx *c)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr *nh = (struct nlmsghdr *)c->nlreq;
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	uint32_t peer = htonl(INADDR_LOOPBACK), laddr = htonl(0x7f000002);
	int cmd, ret, fd = nl_open(c);
	size_t off;

	if (fd < 0 || !cfg.genl_id)
		return;
	for (cmd = RDS_DOCA_CMD_STATS_RESET; cmd <= RDS_DOCA_CMD_CONN_DROP;
	     cmd++) {
		off = NLMSG_HDRLEN + GENL_HDRLEN;
		memset(c->nlreq, 0, off);
		if (cmd == RDS_DOCA_CMD_CONN_DROP) {
			off = nl_attr(c->nlreq, off, NLREQ_SIZE,
				      RDS_DOCA_A_CONN_PEER, &peer, 4);
			off = nl_attr(c->nlreq, off, NLREQ_SIZE,
				      RDS_DOCA_A_CONN_LADDR, &laddr, 4);
			off = nl_attr(c->nlreq, off, NLREQ_SIZE,
				      RDS_DOCA_A_CONN_TRANSPORT, "loopback", 9);
		}
		nh->nlmsg_len = off;
		nh->nlmsg_type = cfg.genl_id;
		nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
		nh->nlmsg_seq = ++c->nl_seq;
		gh->cmd = cmd;
		gh->version = RDS_DOCA_GENL_VERSION;
		ret = sendto(fd, c->nlreq, off, 0, (struct sockaddr *)&kernel,
			     sizeof(kernel)) < 0 ? -errno :
		      nl_drain(c, cfg.genl_id, c->nl_seq);
		stat_add(c, OP_NL_ADMIN, ret);
	}
}

/*
 * A child in user and network namespaces of its own, where it is
 * CAP_NET_ADMIN: sockets on the loopback transport, a registration, the
 * admin commands, and the namespace's end while they are open.
 */
static int op_netns(struct ctx *c)
{
	uint64_t cseed = rnd(&c->r), now = now_ns(), until;
	int nops = 4 + below(&c->r, 13), fd, fd2, slot;
	struct sockaddr_in sin;
	struct rds_get_mr_args mr;
	uint64_t cookie;
	pid_t pid;

	if (c->child)
		return -ECHILD;
	/*
	 * A new namespace costs the kernel a copy of every RDMA device
	 * (ib_core's compat devices, one at a time): no more than
	 * NETNS_SLOTS children at a time, a slot freed by its child or 10 s
	 * after it was taken.
	 */
	for (slot = 0; slot < NETNS_SLOTS; slot++) {
		until = __atomic_load_n(&sh->netns_until[slot],
					__ATOMIC_ACQUIRE);
		if (until < now &&
		    __atomic_compare_exchange_n(&sh->netns_until[slot], &until,
						now + 10000000000ULL, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
	}
	if (slot == NETNS_SLOTS) {
		xinc(c, X_NETNS_BUSY);
		return -EBUSY;
	}
	tr(c, " ops=%d", nops);
	pid = fork();
	if (pid < 0) {
		__atomic_store_n(&sh->netns_until[slot], 0, __ATOMIC_RELEASE);
		return -errno;
	}
	if (pid)
		return 0;
	c->netns_slot = slot;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		xinc(c, X_NETNS_FAILED);
		child_exit(c);
	}
	xinc(c, X_NETNS_OK);
	c->netns = true;
	c->nlfd = -1;	/* the inherited one is of the initial namespace */
	fd = socket(cfg.family, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
	fd2 = socket(cfg.family, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
	sin_to(&sin, htonl(INADDR_LOOPBACK), PORT_BASE);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0) {
		sin_to(&sin, htonl(0x7f000002), 0);
		bind(fd2, (struct sockaddr *)&sin, sizeof(sin));
		sin_to(&sin, htonl(INADDR_LOOPBACK), PORT_BASE);
		sendto(fd2, c->buf, 100, MSG_DONTWAIT,
		       (struct sockaddr *)&sin, sizeof(sin));
		memset(&mr, 0, sizeof(mr));
		mr.vec.addr = (uintptr_t)c->pr->mem.rw;
		mr.vec.bytes = 8192;
		mr.cookie_addr = (uintptr_t)&cookie;
		setsockopt(fd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr));
	}
	if (fd >= 0)
		slot_put(c, below(&c->r, NSLOTS), fd);
	if (fd2 >= 0)
		slot_put(c, below(&c->r, NSLOTS), fd2);
	netns_admin(c);
	run_child(c, cseed, nops);
	return 0;
}

static int op_exit(struct ctx *c)
{
	if (c->child)
		child_exit(c);
	stat_add(c, OP_EXIT, 0);
	__atomic_fetch_add(&sh->exits, 1, __ATOMIC_RELAXED);
	if (cfg.trace) {
		tr(c, " = exit\n");
		if (write(2, c->tr, c->trlen) < 0)
			_exit(EXIT_RESTART);
	}
	_exit(EXIT_RESTART);
}

/* ------------------------------------------------------------------ */
/* the operation table                                                 */
/* ------------------------------------------------------------------ */

struct op_def {
	const char *name;
	int weight;		/* out of the sum of weights */
	int (*fn)(struct ctx *c);
	bool child_ok;		/* may run in a fork child */
};

static const struct op_def ops[NR_OPS] = {
	[OP_SOCKET]	= { "socket", 500, op_socket, true },
	[OP_BIND]	= { "bind", 500, op_bind, true },
	[OP_CONNECT]	= { "connect", 200, op_connect, true },
	[OP_SENDMSG]	= { "sendmsg", 2300, op_sendmsg, true },
	[OP_RECVMSG]	= { "recvmsg", 1400, op_recvmsg, true },
	[OP_SETSOCKOPT_RDS] = { "setsockopt_rds", 400, op_setsockopt_rds,
				true },
	[OP_GETSOCKOPT_RDS] = { "getsockopt_rds", 200, op_getsockopt_rds,
				true },
	[OP_SETSOCKOPT_SOCK] = { "setsockopt_sock", 300, op_setsockopt_sock,
				 true },
	[OP_GETSOCKOPT_SOCK] = { "getsockopt_sock", 200, op_getsockopt_sock,
				 true },
	[OP_INFO]	= { "rds_info", 250, op_info, true },
	[OP_GET_MR]	= { "get_mr", 500, op_get_mr, true },
	[OP_FREE_MR]	= { "free_mr", 250, op_free_mr, true },
	[OP_CANCEL]	= { "cancel_sent_to", 100, op_cancel, true },
	[OP_POLL]	= { "poll", 200, op_poll, true },
	[OP_EPOLL]	= { "epoll", 150, op_epoll, true },
	[OP_IOCTL]	= { "ioctl", 200, op_ioctl, true },
	[OP_NL_DO]	= { "nl_do", 150, op_nl_do, true },
	[OP_NL_DUMP]	= { "nl_dump", 150, op_nl_dump, true },
	[OP_NL_ADMIN]	= { "nl_admin", 80, op_nl_admin, true },
	[OP_NL_RAW]	= { "nl_raw", 100, op_nl_raw, true },
	[OP_GETNAME]	= { "getname", 100, op_getname, true },
	[OP_OTHER]	= { "other", 100, op_other, true },
	[OP_CLOSE]	= { "close", 350, op_close, true },
	[OP_DUP]	= { "dup", 200, op_dup, true },
	[OP_MMAP]	= { "mmap", 80, op_mmap, true },
	[OP_FORK]	= { "fork", 20, op_fork, false },
	[OP_NETNS]	= { "netns", 8, op_netns, false },
	[OP_EXIT]	= { "exit", 2, op_exit, false },
};

/* Sums of the weights, of every kind and of those children run. */
static uint32_t total_weight, child_weight;

static void sum_weights(void)
{
	int k;

	for (k = 0; k < NR_OPS; k++) {
		total_weight += ops[k].weight;
		if (ops[k].child_ok)
			child_weight += ops[k].weight;
	}
}

static int pick_kind(struct rng *r, bool child)
{
	uint32_t x = below(r, child ? child_weight : total_weight);
	int k;

	for (k = 0; k < NR_OPS; k++) {
		if (child && !ops[k].child_ok)
			continue;
		if (x < (uint32_t)ops[k].weight)
			return k;
		x -= ops[k].weight;
	}
	return OP_SENDMSG;
}

static void stat_add(struct ctx *c, int kind, int ret)
{
	struct kstat *k = &c->ks[kind];

	__atomic_fetch_add(&k->calls, 1, __ATOMIC_RELAXED);
	if (ret >= 0)
		__atomic_fetch_add(&k->ok, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&k->err[-ret < NERR ? -ret : 0], 1,
				   __ATOMIC_RELAXED);
}

static void run_one(struct ctx *c, int kind)
{
	char e[32];
	int ret;

	c->trlen = 0;
	if (c->child_op >= 0)
		tr(c, "# %d.%d#%" PRIu64 ".c%d %s:", c->p, c->t, c->op,
		   c->child_op, ops[kind].name);
	else
		tr(c, "# %d.%d#%" PRIu64 " %s:", c->p, c->t, c->op,
		   ops[kind].name);
	ret = ops[kind].fn(c);
	stat_add(c, kind, ret);
	if (!cfg.trace)
		return;
	if (ret < 0)
		snprintf(e, sizeof(e), "%s", strerrorname_np(-ret) ?: "?");
	else
		snprintf(e, sizeof(e), "%d", ret);
	tr(c, " = %s\n", e);
	if (c->trlen >= TRACE_SIZE - 1)
		c->tr[TRACE_SIZE - 2] = '\n';
	if (write(2, c->tr, c->trlen) < 0)
		return;
}

/* A fork child: a few operations on the copied table, then _exit(). */
static void run_child(struct ctx *c, uint64_t cseed, int nops)
{
	struct rng r = { cseed };
	int i, kind;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGALRM, SIG_DFL);
	alarm(c->netns ? 5 : 2);
	c->child = true;
	c->nl_seq = rnd(&r);	/* the parent goes on with the same socket */
	for (i = 0; i < nops; i++) {
		c->child_op = i;
		c->r.s = rnd(&r);
		kind = pick_kind(&c->r, true);
		if (!(cfg.skip_kinds & (1ULL << kind)))
			run_one(c, kind);
	}
	child_exit(c);
}

/* ------------------------------------------------------------------ */
/* threads and workers                                                 */
/* ------------------------------------------------------------------ */

static bool skipped(int kind, uint64_t i)
{
	int k;

	if (i >= cfg.max_op || (cfg.skip_kinds & (1ULL << kind)))
		return true;
	for (k = 0; k < cfg.nskip; k++)
		if (i >= cfg.skip[k].lo && i <= cfg.skip[k].hi)
			return true;
	return false;
}

static void *thread_main(void *arg)
{
	struct ctx *c = arg;
	struct tstate *ts = c->ts;
	char name[16];
	uint64_t i, t0, d;
	int kind;

	snprintf(name, sizeof(name), "fz%d.%dg%d", c->p, c->t, c->pr->gen);
	prctl(PR_SET_NAME, name);
	__atomic_store_n(&ts->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		i = ts->next_op;
		if (i >= cfg.ops)
			break;
		ts->next_op = i + 1;
		c->op = i;
		c->r.s = derive(cfg.seed, c->p, c->t, i);
		kind = pick_kind(&c->r, false);
		if (skipped(kind, i))
			continue;
		ts->cur_op = i;
		ts->cur_kind = kind;
		t0 = now_ns();
		__atomic_store_n(&ts->start_ns, t0, __ATOMIC_RELEASE);
		run_one(c, kind);
		__atomic_store_n(&ts->start_ns, 0, __ATOMIC_RELEASE);
		d = now_ns() - t0;
		if (d > ts->max_ns) {
			ts->max_ns = d;
			ts->max_op = i;
			ts->max_kind = kind;
		}
		ts->done++;
	}
	__atomic_store_n(&ts->tid, 0, __ATOMIC_RELEASE);
	return NULL;
}

static void on_sigusr1(int sig)
{
	(void)sig;
}

static void *map_anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int setup_regions(struct regions *m)
{
	struct rds_iovec *v;
	size_t i;
	char *p;

	m->rw = map_anon(RW_SIZE, PROT_READ | PROT_WRITE);
	m->ro = map_anon(4 * cfg.pg, PROT_READ | PROT_WRITE);
	m->none = map_anon(cfg.pg, PROT_NONE);
	m->hole = map_anon(3 * cfg.pg, PROT_READ | PROT_WRITE);
	/* 2 MiB aligned, so that it may get a huge page */
	p = map_anon(2 * VOL_SIZE, PROT_READ | PROT_WRITE);
	if (!m->rw || !m->ro || !m->none || !m->hole || !p)
		return -1;
	m->vol = (char *)(((uintptr_t)p + VOL_SIZE - 1) &
			  ~(uintptr_t)(VOL_SIZE - 1));
	if (m->vol > p)
		munmap(p, m->vol - p);
	munmap(m->vol + VOL_SIZE, p + VOL_SIZE - m->vol);
	for (i = 0; i < RW_SIZE; i += 8)
		*(uint64_t *)(m->rw + i) = 0x5244535f00000000ULL | i;
	/* valid iovec arrays and sockaddrs, read-only */
	v = (struct rds_iovec *)m->ro;
	for (i = 0; i < cfg.pg / sizeof(*v); i++) {
		v[i].addr = (uintptr_t)m->rw + i * 4096 % (RW_SIZE - 4096);
		v[i].bytes = i % 3 ? 512 : 4096;
	}
	for (i = 0; i < 3 * (size_t)cfg.pg; i += sizeof(struct sockaddr_in))
		sin_to((struct sockaddr_in *)(m->ro + cfg.pg + i), cfg.peer,
		       PORT_BASE);
	if (mprotect(m->ro, 4 * cfg.pg, PROT_READ) ||
	    munmap(m->hole + cfg.pg, cfg.pg))
		return -1;
	memset(m->vol, 0x5a, VOL_SIZE);
	return 0;
}

static struct ctx *new_ctx(struct proc *pr, int t)
{
	size_t len = sizeof(struct ctx) + CTL_SIZE + BUF_SIZE + NLREQ_SIZE +
		     NLANS_SIZE + 2 * VEC_MAX * 16 + TRACE_SIZE;
	char *m = map_anon(len, PROT_READ | PROT_WRITE);
	struct ctx *c = (struct ctx *)m;

	if (!m)
		return NULL;
	m += (sizeof(*c) + 63) & ~63UL;
	c->pr = pr;
	c->p = pr->p;
	c->t = t;
	c->child_op = -1;
	c->netns_slot = -1;
	c->nlfd = -1;
	c->nl_seq = derive(cfg.seed, pr->p, t, ~0ULL) & ~0xffffULL;
	c->ctl = m;
	c->buf = c->ctl + CTL_SIZE;
	c->nlreq = c->buf + BUF_SIZE;
	c->nlans = c->nlreq + NLREQ_SIZE;
	c->vecs = (struct rds_iovec *)(c->nlans + NLANS_SIZE);
	c->iov = (struct iovec *)(c->vecs + VEC_MAX);
	c->tr = (char *)(c->iov + VEC_MAX);
	c->ts = tstate_of(pr->p, t);
	c->ks = kstats_of(pr->p, t);
	return c;
}

/*
 * A worker: its regions, table and threads; its main thread interrupts
 * calls that run too long.  Exits 0 when its threads are done.
 */
static void worker(int p, int gen, pid_t super)
{
	struct proc pr = { .p = p, .gen = gen };
	struct sigaction sa;
	pthread_t th[MAX_THREADS];
	struct ctx *cx[MAX_THREADS];
	uint64_t kick_at[MAX_THREADS] = { 0 }, now, start, tmo;
	bool alive[MAX_THREADS] = { false };
	char line[256], name[16];
	struct tstate *ts;
	int t, n, live, len, tid;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != super)
		_exit(1);
	if (cfg.tsfd > 2)
		close(cfg.tsfd);	/* the supervisor's, out of reach */
	snprintf(name, sizeof(name), "fz%dwd", p);
	prctl(PR_SET_NAME, name);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;	/* no SA_RESTART: calls fail EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGCHLD, SIG_IGN);	/* fork children reap themselves */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGIO, SIG_IGN);
	signal(SIGURG, SIG_IGN);
	for (t = 0; t < NSLOTS; t++)
		pr.slots[t] = -1;
	for (t = 0; t < NEPOLL; t++)
		pr.epfd[t] = -1;
	if (setup_regions(&pr.mem))
		_exit(1);
	n = 0;
	for (t = 0; t < cfg.threads; t++) {
		if (cfg.only_t >= 0 && t != cfg.only_t)
			continue;
		cx[t] = new_ctx(&pr, t);
		if (!cx[t] || pthread_create(&th[t], NULL, thread_main, cx[t]))
			_exit(1);
		alive[t] = true;
		n++;
	}
	/* the thread ids, so that a kernel report's task names an op */
	len = snprintf(line, sizeof(line), "# proc %d gen %d: pid %d, tids",
		       p, gen, getpid());
	for (t = 0; t < cfg.threads; t++) {
		if (!alive[t])
			continue;
		ts = tstate_of(p, t);
		for (live = 0; live < 1000; live++) {
			tid = __atomic_load_n(&ts->tid, __ATOMIC_ACQUIRE);
			if (tid || ts->next_op >= cfg.ops)
				break;
			usleep(1000);
		}
		len += snprintf(line + len, sizeof(line) - len, " %d.%d=%d@%"
				PRIu64, p, t, tid, ts->next_op);
		if (len >= (int)sizeof(line))
			len = sizeof(line) - 1;
	}
	out_line(1, "%s\n", line);
	tmo = cfg.op_timeout_ms * 1000000ULL;
	for (;;) {
		live = 0;
		now = now_ns();
		for (t = 0; t < cfg.threads; t++) {
			if (!alive[t])
				continue;
			if (pthread_tryjoin_np(th[t], NULL) == 0) {
				alive[t] = false;
				continue;
			}
			live++;
			ts = tstate_of(p, t);
			start = __atomic_load_n(&ts->start_ns,
						__ATOMIC_ACQUIRE);
			tid = __atomic_load_n(&ts->tid, __ATOMIC_ACQUIRE);
			if (!start || !tid || now - start < tmo ||
			    now - kick_at[t] < tmo)
				continue;
			kick_at[t] = now;
			__atomic_fetch_add(&ts->x[X_KICKS], 1,
					   __ATOMIC_RELAXED);
			syscall(SYS_tgkill, getpid(), tid, SIGUSR1);
		}
		if (!live)
			break;
		usleep(5000);
	}
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* the supervisor                                                      */
/* ------------------------------------------------------------------ */

static int got_term;

static void on_term(int sig)
{
	__atomic_store_n(&got_term, sig, __ATOMIC_RELAXED);
}

/* Each attribute in the @len bytes at @head that fits in them. */
#define for_each_nla(na, head, len)					\
	for (na = (struct nlattr *)(head);				\
	     (char *)(na) + NLA_HDRLEN <= (char *)(head) + (len) &&	\
	     (na)->nla_len >= NLA_HDRLEN &&				\
	     (char *)(na) + (na)->nla_len <= (char *)(head) + (len);	\
	     na = (struct nlattr *)((char *)(na) + NLA_ALIGN((na)->nla_len)))

static void *nla_data(struct nlattr *na)
{
	return (char *)na + NLA_HDRLEN;
}

static int nla_len(struct nlattr *na)
{
	return na->nla_len - NLA_HDRLEN;
}

/* The id of the events group in CTRL_ATTR_MCAST_GROUPS, or 0. */
static int events_group(struct nlattr *groups)
{
	struct nlattr *g, *a;
	const char *name;
	int id;

	for_each_nla(g, nla_data(groups), nla_len(groups)) {
		name = NULL;
		id = 0;
		for_each_nla(a, nla_data(g), nla_len(g)) {
			if (a->nla_type == CTRL_ATTR_MCAST_GRP_ID &&
			    nla_len(a) >= 4)
				id = *(uint32_t *)nla_data(a);
			if (a->nla_type == CTRL_ATTR_MCAST_GRP_NAME)
				name = nla_data(a);
		}
		if (name && id && !strcmp(name, RDS_DOCA_GENL_MCGRP_EVENTS))
			return id;
	}
	return 0;
}

/* The family id of "rds_doca" and its events group, from the controller. */
static void resolve_genl(void)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr nh;
		struct genlmsghdr gh;
		char attrs[64];
	} req;
	static char ans[16384];
	struct timeval tv = { 2, 0 };
	struct nlmsghdr *nh;
	struct nlattr *na;
	size_t off;
	ssize_t n;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = GENL_ID_CTRL;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.gh.cmd = CTRL_CMD_GETFAMILY;
	req.gh.version = 1;
	off = nl_attr((char *)&req, NLMSG_HDRLEN + GENL_HDRLEN, sizeof(req),
		      CTRL_ATTR_FAMILY_NAME, RDS_DOCA_GENL_NAME,
		      sizeof(RDS_DOCA_GENL_NAME));
	req.nh.nlmsg_len = off;
	if (sendto(fd, &req, off, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0) {
		close(fd);
		return;
	}
	n = recv(fd, ans, sizeof(ans), 0);
	for (nh = (struct nlmsghdr *)ans; n > 0 && NLMSG_OK(nh, n);
	     nh = NLMSG_NEXT(nh, n)) {
		if (nh->nlmsg_type != GENL_ID_CTRL)
			continue;
		for_each_nla(na, (char *)NLMSG_DATA(nh) + GENL_HDRLEN,
			     nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN)) {
			if (na->nla_type == CTRL_ATTR_FAMILY_ID &&
			    nla_len(na) >= 2)
				cfg.genl_id = *(uint16_t *)nla_data(na);
			if (na->nla_type == CTRL_ATTR_MCAST_GROUPS)
				cfg.genl_grp = events_group(na);
		}
	}
	close(fd);
}

static pid_t spawn(int p, int gen)
{
	pid_t super = getpid(), pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		worker(p, gen, super);
	return pid;
}

/* What the supervisor saw. */
static struct {
	uint64_t restarts, deaths, setup_failures;
	bool hung, unkillable, interrupted, time_up, slow_exit, slow_stop;
	bool killed[MAX_PROCS];		/* by us, after the grace period */
	char lingering[8][200];		/* their tasks when they were */
	int nlingering;
	char hang[256];
	char straggler[4][200];		/* children slow to exit */
	uint64_t stragglers, drain_ms;
	char death[8][256];
	uint64_t elapsed_ns;
} sv;

/* The operations a process's threads were in, for a report. */
static void describe_ops(int p, char *b, size_t len)
{
	size_t off = 0;
	struct tstate *ts;
	int t;

	b[0] = 0;
	for (t = 0; t < cfg.threads && off < len; t++) {
		ts = tstate_of(p, t);
		if (!__atomic_load_n(&ts->start_ns, __ATOMIC_ACQUIRE))
			continue;
		off += snprintf(b + off, len - off, " %d.%d#%" PRIu64 " %s",
				p, t, ts->cur_op, ops[ts->cur_kind].name);
	}
}

static bool ops_left(int p)
{
	int t;

	for (t = 0; t < cfg.threads; t++)
		if ((cfg.only_t < 0 || t == cfg.only_t) &&
		    tstate_of(p, t)->next_op < cfg.ops)
			return true;
	return false;
}

/* A thread in one operation for longer than --hang: which, and where. */
static void note_hang(int p, pid_t pid, int t, uint64_t ns)
{
	struct tstate *ts = tstate_of(p, t);
	char path[64], wchan[64] = "?", state[256] = "", *s;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", pid, ts->tid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wchan, sizeof(wchan), f))
			wchan[0] = 0;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, ts->tid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(state, sizeof(state), f))
			state[0] = 0;
		fclose(f);
	}
	s = strrchr(state, ')');
	snprintf(sv.hang, sizeof(sv.hang),
		 "%d.%d#%" PRIu64 " %s (tid %d) for %" PRIu64
		 " s, state %.1s, wchan %s", p, t, ts->cur_op,
		 ops[ts->cur_kind].name, ts->tid, ns / 1000000000,
		 s && s[1] ? s + 2 : "?", wchan);
}

/* The tasks of worker @pid, with their state and wait channel. */
static void list_tasks(pid_t pid)
{
	char path[300], buf[256], wchan[64], *s;
	struct dirent *d;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)) && sv.nlingering < 8) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid,
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/wchan", pid,
			 d->d_name);
		f = fopen(path, "r");
		wchan[0] = 0;
		if (f) {
			if (!fgets(wchan, sizeof(wchan), f))
				wchan[0] = 0;
			fclose(f);
		}
		s = strrchr(buf, ')');
		snprintf(sv.lingering[sv.nlingering++], sizeof(sv.lingering[0]),
			 "%.*s state %c wchan %s", s ? (int)(s + 1 - buf) : 0,
			 buf, s && s[1] ? s[2] : '?', wchan);
	}
	closedir(dir);
}

/* A worker ended: count why; true if it is to be started again. */
static bool worker_ended(int p, int gen, int st)
{
	char ops_in[200];
	int t;

	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return false;
	describe_ops(p, ops_in, sizeof(ops_in));
	for (t = 0; t < cfg.threads; t++)
		tstate_of(p, t)->start_ns = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_RESTART) {
		sv.restarts++;
		return true;
	}
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && sv.killed[p])
		return false;	/* ours: counted as a slow stop */
	if (!WIFSIGNALED(st)) {
		sv.setup_failures++;
		return false;
	}
	if (sv.deaths < ARRAY_SIZE(sv.death))
		snprintf(sv.death[sv.deaths], sizeof(sv.death[0]),
			 "proc %d gen %d died of %s in:%s", p, gen,
			 strsignal(WTERMSIG(st)), ops_in);
	sv.deaths++;
	return true;
}

/*
 * The children of this process (orphans, reparented to us), as lines of
 * pid, stat and wait channel; returns how many.
 */
static int list_children(char out[][200], int max)
{
	char path[64], buf[512], wchan[64], *s;
	int n = 0, pid, ppid;
	struct dirent *d;
	DIR *dir;
	FILE *f;

	dir = opendir("/proc");
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		pid = atoi(d->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		s = strrchr(buf, ')');
		if (!s || sscanf(s + 2, "%*c %d", &ppid) != 1 ||
		    ppid != getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
		f = fopen(path, "r");
		wchan[0] = 0;
		if (f) {
			if (!fgets(wchan, sizeof(wchan), f))
				wchan[0] = 0;
			fclose(f);
		}
		if (n < max)
			snprintf(out[n], sizeof(out[0]),
				 "pid %d %.40s state %c wchan %s", pid, buf,
				 s[2], wchan);
		n++;
	}
	closedir(dir);
	return n;
}

/*
 * Fork and namespace children of workers that ended are ours now (we are
 * their subreaper): they must be gone within seconds of their alarm.  A
 * child stuck in the kernel is noted, and one still there after --hang
 * seconds is a hang.
 */
static void drain_children(void)
{
	uint64_t t0 = now_ns(), waited;
	bool noted = false;
	int st, n;

	for (;;) {
		while (waitpid(-1, &st, WNOHANG) > 0)
			;
		n = list_children(sv.straggler, 4);
		if (!n)
			break;
		waited = (now_ns() - t0) / 1000000;
		if (waited > 10000 && !noted) {
			noted = true;
			sv.stragglers = n;
			sv.slow_exit = true;
		}
		if (waited > cfg.hang_s * 1000ULL) {
			sv.hung = true;
			snprintf(sv.hang, sizeof(sv.hang),
				 "%d children did not exit in %u s", n,
				 cfg.hang_s);
			break;
		}
		usleep(20000);
	}
	sv.drain_ms = (now_ns() - t0) / 1000000;
}

static void supervise(void)
{
	pid_t pid[MAX_PROCS] = { 0 };
	int gen[MAX_PROCS] = { 0 }, p, t, st, running;
	uint64_t t0 = now_ns(), now, s, stop_at = 0, grace;
	pid_t w;

	/*
	 * As long as an operation may run before it counts as hung: under
	 * KASAN a loaded VM takes seconds to end a process.
	 */
	grace = cfg.hang_s * 1000000000ULL;
	for (p = 0; p < cfg.procs; p++)
		if (cfg.only_p < 0 || p == cfg.only_p)
			pid[p] = spawn(p, 0);
	for (;;) {
		while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
			for (p = 0; p < cfg.procs && pid[p] != w; p++)
				;
			if (p == cfg.procs)
				continue;
			pid[p] = 0;
			if (!worker_ended(p, gen[p], st))
				continue;
			if (!stop_at && ops_left(p) && sv.restarts < 100000)
				pid[p] = spawn(p, ++gen[p]);
		}
		running = 0;
		for (p = 0; p < cfg.procs; p++)
			running += pid[p] > 0;
		if (!running)
			break;
		now = now_ns();
		if (!stop_at && __atomic_load_n(&got_term, __ATOMIC_RELAXED))
			sv.interrupted = true;
		if (!stop_at && cfg.time_s &&
		    now - t0 >= cfg.time_s * 1000000000ULL)
			sv.time_up = true;
		for (p = 0; p < cfg.procs && !sv.hung; p++) {
			for (t = 0; pid[p] > 0 && t < cfg.threads; t++) {
				s = __atomic_load_n(&tstate_of(p, t)->start_ns,
						    __ATOMIC_ACQUIRE);
				if (!s || s > now ||
				    now - s < cfg.hang_s * 1000000000ULL)
					continue;
				note_hang(p, pid[p], t, now - s);
				sv.hung = true;
				break;
			}
		}
		if (!stop_at && (sv.interrupted || sv.time_up || sv.hung)) {
			stop_at = now;
			__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
			if (sv.hung)
				stop_at -= grace;	/* no grace */
		}
		if (stop_at && now - stop_at > grace) {
			for (p = 0; p < cfg.procs; p++) {
				if (pid[p] <= 0 || sv.killed[p])
					continue;
				/* what its tasks do, then kill it */
				sv.slow_stop = true;
				sv.killed[p] = true;
				list_tasks(pid[p]);
				kill(pid[p], SIGKILL);
			}
		}
		if (stop_at && now - stop_at > grace + 20000000000ULL) {
			sv.unkillable = true;
			break;
		}
		usleep(20000);
	}
	sv.elapsed_ns = now_ns() - t0;
	drain_children();
}

static struct kstat ksum[NR_OPS];
static uint64_t xsum[X_NR];

static void print_stats(void)
{
	int p, t, k, e, best, shown;
	struct tstate *ts;
	struct kstat *ks;
	char line[1024];
	bool done[NERR];
	size_t len;

	for (p = 0; p < cfg.procs; p++) {
		for (t = 0; t < cfg.threads; t++) {
			ts = tstate_of(p, t);
			ks = kstats_of(p, t);
			for (k = 0; k < X_NR; k++)
				xsum[k] += ts->x[k];
			for (k = 0; k < NR_OPS; k++) {
				ksum[k].calls += ks[k].calls;
				ksum[k].ok += ks[k].ok;
				for (e = 0; e < NERR; e++)
					ksum[k].err[e] += ks[k].err[e];
			}
		}
	}
	printf("# %-16s %9s %9s  errors, most frequent first\n", "operation",
	       "calls", "ok");
	for (k = 0; k < NR_OPS; k++) {
		len = snprintf(line, sizeof(line), "# %-16s %9" PRIu64
			       " %9" PRIu64 " ", ops[k].name, ksum[k].calls,
			       ksum[k].ok);
		memset(done, 0, sizeof(done));
		for (shown = 0; shown < 12 && len < sizeof(line); shown++) {
			best = -1;
			for (e = 0; e < NERR; e++)
				if (!done[e] && ksum[k].err[e] &&
				    (best < 0 ||
				     ksum[k].err[e] > ksum[k].err[best]))
					best = e;
			if (best < 0)
				break;
			done[best] = true;
			len += snprintf(line + len, sizeof(line) - len,
					" %s:%u", best ?
					(strerrorname_np(best) ?: "?") :
					"other", ksum[k].err[best]);
		}
		printf("%s\n", line);
	}
	for (k = 0; k < X_NR; k++)
		printf("# %-44s %9" PRIu64 "\n", xnames[k], xsum[k]);
}

static int tap_n, tap_failed;

static void __printf(2, 3) check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - rds_fuzz: ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	tap_failed += !ok;
}

static void skip(const char *what, const char *why)
{
	printf("ok %d - rds_fuzz: %s # SKIP %s\n", ++tap_n, what, why);
}

static int report(void)
{
	uint64_t calls = 0, longest = 0, lop = 0;
	int p, t, k, lp = 0, lt = 0, lk = 0;
	double secs = sv.elapsed_ns / 1e9;
	char never[512] = "";
	bool reached;
	size_t off = 0;

	print_stats();
	for (k = 0; k < NR_OPS; k++) {
		calls += ksum[k].calls;
		if (!ksum[k].calls && off < sizeof(never))
			off += snprintf(never + off, sizeof(never) - off,
					" %s", ops[k].name);
	}
	for (p = 0; p < cfg.procs; p++) {
		for (t = 0; t < cfg.threads; t++) {
			struct tstate *ts = tstate_of(p, t);

			if (ts->max_ns > longest) {
				longest = ts->max_ns;
				lop = ts->max_op;
				lp = p;
				lt = t;
				lk = ts->max_kind;
			}
		}
	}
	printf("# %" PRIu64 " operations in %.1f s: %.0f a second; %" PRIu64
	       " exit operations, %" PRIu64 " restarts\n", calls, secs,
	       secs > 0 ? calls / secs : 0, sh->exits, sv.restarts);
	if (longest)
		printf("# longest operation: %d.%d#%" PRIu64 " %s, %.3f s\n",
		       lp, lt, lop, ops[lk].name, longest / 1e9);
	if (never[0])
		printf("# never ran:%s\n", never);
	for (k = 0; k < (int)sv.deaths && k < 8; k++)
		printf("# %s\n", sv.death[k]);
	if (sv.slow_exit) {
		printf("# %" PRIu64 " children left 10 s after the workers,",
		       sv.stragglers);
		printf(" %s after %.1f s:\n", sv.hung ? "not all gone" :
		       "all gone", sv.drain_ms / 1000.0);
		for (k = 0; k < (int)sv.stragglers && k < 4; k++)
			printf("#   %s\n", sv.straggler[k]);
	}
	if (sv.slow_stop) {
		printf("# workers still there %u s after the stop, killed:\n",
		       cfg.hang_s);
		for (k = 0; k < sv.nlingering; k++)
			printf("#   %s\n", sv.lingering[k]);
	}
	if (sv.hung)
		printf("# HANG: %s\n", sv.hang);

	check(!sv.interrupted && !sv.setup_failures && !sv.unkillable,
	      "seed %" PRIu64 ": %" PRIu64 " operations ran (%s)%s", cfg.seed,
	      calls, sv.interrupted ? "interrupted by a signal" :
	      sv.time_up ? "stopped by --time" : "every operation",
	      sv.unkillable ? "; workers did not die" :
	      sv.setup_failures ? "; a worker failed to set up" : "");
	check(!sv.deaths, "no worker process died of a signal (%" PRIu64 ")",
	      sv.deaths);
	check(!sv.hung, "no operation hung for %u s (longest %.3f s)",
	      cfg.hang_s, longest / 1e9);
	check(!sv.slow_stop, "workers stopped within %u s of the stop",
	      cfg.hang_s);
	check(sv.drain_ms <= cfg.hang_s * 1000ULL,
	      "children exited within %u s (%.1f s)", cfg.hang_s,
	      sv.drain_ms / 1000.0);
	reached = ksum[OP_SOCKET].ok && ksum[OP_SENDMSG].ok &&
		  xsum[X_MSGS_RX] && ksum[OP_GET_MR].ok &&
		  xsum[X_NL_ANSWERS];
	if (cfg.minimising || cfg.ops < 500 || sv.hung)
		skip("the fuzzer reached rds_doca", "short or minimising run");
	else
		check(reached, "the fuzzer reached rds_doca (%" PRIu64
		      " sockets, %" PRIu64 " sends, %" PRIu64
		      " receives, %" PRIu64 " registrations, %" PRIu64
		      " netlink answers)", ksum[OP_SOCKET].ok,
		      ksum[OP_SENDMSG].ok, xsum[X_MSGS_RX],
		      ksum[OP_GET_MR].ok, xsum[X_NL_ANSWERS]);
	if (cfg.root || !ksum[OP_NL_ADMIN].calls || !cfg.genl_id)
		skip("netlink admin commands refused", cfg.root ?
		     "run as root" : cfg.genl_id ? "none sent" :
		     "no rds_doca family");
	else
		check(!xsum[X_ADMIN_OK_INIT],
		      "netlink admin commands refused to nobody (%" PRIu64
		      " EPERM, %" PRIu64 " accepted)", xsum[X_ADMIN_REFUSED],
		      xsum[X_ADMIN_OK_INIT]);
	printf("%d passed, %d failed\n", tap_n - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* command line                                                        */
/* ------------------------------------------------------------------ */

static void print_usage(FILE *f)
{
	fprintf(f,
"usage: rds_fuzz [options]\n"
"  --family N        address family (default: the loaded module's)\n"
"  --addr A          local address to bind (default 127.0.0.1)\n"
"  --peer B          peer address to send to (default 127.0.0.2)\n"
"  --seed N          seed (default: random; printed first)\n"
"  --ops N           operations per thread (default 10000)\n"
"  --threads N       threads per process (default 4, at most %d)\n"
"  --procs N         processes (default 2, at most %d)\n"
"  --time S          stop after S seconds (default: no limit)\n"
"  --only-thread P.T run thread T of process P only\n"
"  --skip LIST       do not run these operations: indexes N, ranges N-M\n"
"                    and kinds (sendmsg, nl_dump...), comma separated\n"
"  --max-op K        run operations 0..K-1 of each thread only\n"
"  --op-timeout MS   interrupt a call after MS ms (default 100)\n"
"  --hang S          an operation running S s is a hang (default 60)\n"
"  --memlock KIB     lower RLIMIT_MEMLOCK to KIB first\n"
"  --no-stray-dests  send to no address that no host answers\n"
"  --trace           print every operation and its result (stderr)\n",
		MAX_THREADS, MAX_PROCS);
}

static uint64_t num(const char *opt, const char *s, uint64_t max)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "rds_fuzz: bad %s '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

static uint32_t ip(const char *opt, const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1) {
		fprintf(stderr, "rds_fuzz: bad %s '%s'\n", opt, s);
		exit(2);
	}
	return a.s_addr;
}

static void parse_skip(char *list)
{
	char *item, *save = NULL, *dash;
	int k;

	for (item = strtok_r(list, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < NR_OPS; k++)
			if (!strcmp(item, ops[k].name))
				break;
		if (k < NR_OPS) {
			cfg.skip_kinds |= 1ULL << k;
			continue;
		}
		if (cfg.nskip == MAX_SKIP) {
			fprintf(stderr, "rds_fuzz: too many --skip items\n");
			exit(2);
		}
		dash = strchr(item, '-');
		if (dash)
			*dash = 0;
		cfg.skip[cfg.nskip].lo = num("--skip", item, UINT64_MAX);
		cfg.skip[cfg.nskip].hi = dash ? num("--skip", dash + 1,
						    UINT64_MAX) :
					 cfg.skip[cfg.nskip].lo;
		cfg.nskip++;
	}
}

static char skip_arg[4096];

static void parse_args(int argc, char **argv)
{
	const char *a, *v;
	char *dot;
	bool seeded = false;
	int i;

	cfg.family = -1;
	cfg.addr = htonl(0x7f000001);
	cfg.peer = htonl(0x7f000002);
	cfg.ops = 10000;
	cfg.max_op = UINT64_MAX;
	cfg.threads = 4;
	cfg.procs = 2;
	cfg.only_p = -1;
	cfg.only_t = -1;
	cfg.op_timeout_ms = 100;
	cfg.hang_s = 60;
	cfg.stray = true;
	cfg.memlock_kib = -1;
	for (i = 1; i < argc; i++) {
		a = argv[i];
		if (!strcmp(a, "--trace")) {
			cfg.trace = true;
			continue;
		}
		if (!strcmp(a, "--no-stray-dests")) {
			cfg.stray = false;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_usage(stdout);
			exit(0);
		}
		if (i + 1 >= argc || strncmp(a, "--", 2)) {
			print_usage(stderr);
			exit(2);
		}
		v = argv[++i];
		if (!strcmp(a, "--family")) {
			cfg.family = num(a, v, 255);
		} else if (!strcmp(a, "--addr")) {
			cfg.addr = ip(a, v);
		} else if (!strcmp(a, "--peer")) {
			cfg.peer = ip(a, v);
		} else if (!strcmp(a, "--seed")) {
			cfg.seed = num(a, v, UINT64_MAX);
			seeded = true;
		} else if (!strcmp(a, "--ops")) {
			cfg.ops = num(a, v, UINT64_MAX / 2);
		} else if (!strcmp(a, "--threads")) {
			cfg.threads = num(a, v, MAX_THREADS);
		} else if (!strcmp(a, "--procs")) {
			cfg.procs = num(a, v, MAX_PROCS);
		} else if (!strcmp(a, "--time")) {
			cfg.time_s = num(a, v, 30 * 86400);
		} else if (!strcmp(a, "--only-thread")) {
			dot = strchr(v, '.');
			if (!dot) {
				print_usage(stderr);
				exit(2);
			}
			*dot = 0;
			cfg.only_p = num(a, v, MAX_PROCS - 1);
			cfg.only_t = num(a, dot + 1, MAX_THREADS - 1);
			*dot = '.';
			cfg.minimising = true;
		} else if (!strcmp(a, "--skip")) {
			snprintf(skip_arg, sizeof(skip_arg), "%s", v);
			parse_skip(argv[i]);
			cfg.minimising = true;
		} else if (!strcmp(a, "--max-op")) {
			cfg.max_op = num(a, v, UINT64_MAX);
			cfg.minimising = true;
		} else if (!strcmp(a, "--op-timeout")) {
			cfg.op_timeout_ms = num(a, v, 60000);
		} else if (!strcmp(a, "--hang")) {
			cfg.hang_s = num(a, v, 86400);
		} else if (!strcmp(a, "--memlock")) {
			cfg.memlock_kib = num(a, v, LONG_MAX / 1024);
		} else {
			print_usage(stderr);
			exit(2);
		}
	}
	if (!cfg.threads || !cfg.procs || !cfg.op_timeout_ms || !cfg.hang_s ||
	    (cfg.only_p >= cfg.procs) || (cfg.only_t >= cfg.threads)) {
		fprintf(stderr, "rds_fuzz: a bad count or --only-thread\n");
		exit(2);
	}
	if (!seeded) {
		if (getrandom(&cfg.seed, sizeof(cfg.seed), 0) !=
		    sizeof(cfg.seed))
			cfg.seed = now_ns() ^ getpid();
		cfg.seed &= (1ULL << 48) - 1;
	}
	if (cfg.family < 0)
		cfg.family = rds_doca_family_param();
}

static void print_rerun(const char *argv0)
{
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

	printf("# rerun: %s --family %d --addr %s --peer %s --seed %" PRIu64
	       " --ops %" PRIu64 " --threads %d --procs %d", argv0,
	       cfg.family, ipstr(cfg.addr, a), ipstr(cfg.peer, b), cfg.seed,
	       cfg.ops, cfg.threads, cfg.procs);
	if (cfg.time_s)
		printf(" --time %u", cfg.time_s);
	if (cfg.only_p >= 0)
		printf(" --only-thread %d.%d", cfg.only_p, cfg.only_t);
	if (skip_arg[0])
		printf(" --skip %s", skip_arg);
	if (cfg.max_op != UINT64_MAX)
		printf(" --max-op %" PRIu64, cfg.max_op);
	if (cfg.op_timeout_ms != 100)
		printf(" --op-timeout %u", cfg.op_timeout_ms);
	if (cfg.hang_s != 60)
		printf(" --hang %u", cfg.hang_s);
	if (cfg.memlock_kib >= 0)
		printf(" --memlock %ld", cfg.memlock_kib);
	printf("%s%s\n", cfg.stray ? "" : " --no-stray-dests",
	       cfg.trace ? " --trace" : "");
}

/*
 * Keep the kernel's receive time-stamping static key on for the whole
 * run.  The SO_TIMESTAMP* calls of the fuzzer would turn it on and off
 * again and again, and every change patches kernel text on the receive
 * path, which QEMU's TCG races with (tests/vm/README, "TCG and kernel text
 * patching"): a vCPU receiving a packet then hits a stale int3.
 */
static int hold_timestamps(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &one, sizeof(one));
	return fd;
}

static void *map_shared(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("rds_fuzz: mmap");
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];
	size_t n;

	sum_weights();
	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# rds_fuzz: seed %" PRIu64 "\n", cfg.seed);
	if (cfg.family <= 0) {
		printf("# rds_doca not loaded, no --family: using %d\n",
		       AF_INET_OFFLOAD);
		cfg.family = AF_INET_OFFLOAD;
	}
	print_rerun(argv[0]);
	cfg.pg = sysconf(_SC_PAGESIZE);
	cfg.root = geteuid() == 0;
	if (cfg.memlock_kib >= 0) {
		rl.rlim_cur = rl.rlim_max = cfg.memlock_kib * 1024;
		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			perror("rds_fuzz: RLIMIT_MEMLOCK");
	}
	getrlimit(RLIMIT_MEMLOCK, &rl);
	resolve_genl();
	printf("# family %d, %s and %s, %d processes of %d threads, %" PRIu64
	       " operations each%s\n", cfg.family, ipstr(cfg.addr, a),
	       ipstr(cfg.peer, b), cfg.procs, cfg.threads, cfg.ops,
	       cfg.time_s ? ", within --time" : "");
	printf("# uid %d, RLIMIT_MEMLOCK %lld KiB; generic netlink family %d",
	       (int)geteuid(), rl.rlim_cur == RLIM_INFINITY ? -1LL :
	       (long long)rl.rlim_cur / 1024, cfg.genl_id);
	printf(", events group %d\n", cfg.genl_grp);
	if (cfg.root)
		printf("# running as root: admin commands are not refused\n");
	sh = map_shared(sizeof(*sh));
	n = (size_t)cfg.procs * cfg.threads;
	tstates = map_shared(n * sizeof(*tstates));
	kstats = map_shared(n * NR_OPS * sizeof(*kstats));
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGIO, SIG_IGN);
	signal(SIGURG, SIG_IGN);
	prctl(PR_SET_NAME, "rds_fuzz");
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	cfg.tsfd = hold_timestamps();
	supervise();
	return report();
}
