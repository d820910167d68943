// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rds-bench: throughput and latency benchmark for RDS-style reliable
 * datagram sockets (Linux RDS, AF_RDS = 21, and rds_doca).
 *
 * Modes:
 *   stream    N senders -> one receiver; msgs/s and MB/s counted at the
 *             receiver (only messages whose length and sequence check out).
 *   pingpong  one echo server, client(s) send a message and wait for the
 *             echo; round trips/s and RTT percentiles.
 *   probe     socket() + bind() + one message to itself: tells whether a
 *             family works at all.
 *   rdma-write, rdma-read, atomic
 *             the passive end registers memory (RDS_GET_MR) and sends its
 *             cookie; the active end keeps a window of RDMA writes, reads
 *             or fetch-and-adds outstanding on it, each riding on a small
 *             message, and counts their RDS_CMSG_RDMA_STATUS notices:
 *             MB/s, or operations/s for atomic.
 *
 * The two ends run as separate processes by default (--inproc: threads of
 * one process).  They bind to port 0, report their port to the controlling
 * process through a pipe and start together when it closes the "go" pipe.
 * Every wait is bounded (ppoll timeouts, a heartbeat watched by the
 * controller, SIGUSR1/SIGKILL for stuck ends), so a lost message or a stuck
 * socket ends a run with an error instead of hanging it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <linux/rds_doca.h>
#include "rds_doca_user.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SO_SNDBUFFORCE
#define SO_SNDBUFFORCE 32
#endif
#ifndef SO_RCVBUFFORCE
#define SO_RCVBUFFORCE 33
#endif

#define PROG			"rds-bench"
#define MAX_THREADS		64
#define MAX_MSG			RDS_DOCA_MAX_MSG_SIZE	/* 1 MiB */
#define HDR_MAGIC		0x52445342u		/* "RDSB" */
#define NSEC			1000000000ull
#define MSEC			1000000ull
#define IDLE_SLICE		(100 * MSEC)	/* longest single wait */
#define STOP_GRACE		(3 * NSEC)	/* ends get this long to stop */

enum mode { M_NONE, M_STREAM, M_PINGPONG, M_PROBE, M_RDMA_WRITE, M_RDMA_READ,
	    M_ATOMIC };

static struct config {
	enum mode mode;
	int family;
	char family_src[96];
	struct in_addr saddr, daddr;	/* sender/client side, receiver/server side */
	char saddr_s[INET_ADDRSTRLEN], daddr_s[INET_ADDRSTRLEN];
	uint32_t size;
	bool size_set;
	unsigned window;		/* RDMA modes: operations outstanding */
	double duration, warmup, timeout;
	uint64_t count;
	int threads;
	const char *json;
	const char *label;
	int transport;			/* -1: leave the default */
	uint64_t sndbuf, rcvbuf;
	uint64_t max_inflight;		/* bytes, all senders; 0: no limit */
	uint64_t max_inflight_msgs;	/* messages, all senders; 0: no limit */
	bool inflight_set;
	unsigned retry_us;
	bool inproc, blocking, verify, silent;
} cfg = {
	.mode = M_NONE,
	.family = -1,
	.size = 64,
	.window = 16,
	.duration = 2.0,
	.warmup = 0.5,
	.timeout = 10.0,
	.threads = 1,
	.label = "",
	.transport = -1,
	.sndbuf = 16u << 20,
	.rcvbuf = 16u << 20,
	.max_inflight_msgs = 65536,
	.retry_us = 1000,
};

/* First bytes of every message (as much of it as fits). */
struct msg_hdr {
	uint64_t seq;
	uint32_t magic;
	uint32_t idx;
};

/* Per-thread counters of a sending end; one writer each, so plain stores. */
struct end_stats {
	_Atomic uint64_t msgs, bytes, enobufs, eagain, waits;
	_Atomic int done;
	uint16_t port;		/* the socket's bound port */
} __attribute__((aligned(64)));

/* What the stream receiver got from each sender so far (all phases). */
struct rx_seen {
	_Atomic uint64_t msgs, bytes;
} __attribute__((aligned(64)));

struct rx_result {
	uint64_t msgs, bytes, bad_len, bad_data, seq_err, unknown_src, bad_addr;
	double elapsed;
	int valid;
};

struct pp_result {
	uint64_t rtts, lost, stale, bad_len, bad_data;
	double elapsed, rate, p50, p99, p999, min, mean, max;	/* rate: rt/s; others µs */
	int valid;
};

/* RDMA modes: what the initiators measured, all of them together. */
struct rdma_result {
	uint64_t ops, bytes;		/* completed inside the windows */
	uint64_t issued, completed, enobufs, eagain, bad_data;
	double elapsed, rate;		/* rate: ops/s, summed over initiators */
	int valid;
};

/* RDMA modes: what the target saw. */
struct target_result {
	uint64_t carriers, bad_len, seq_err, unknown_src, bad_data;
	uint64_t word;			/* atomic: the word's final value */
	int word_valid;
};

/* Lives in a MAP_SHARED mapping, so both processes see it. */
struct shared {
	_Atomic int abort;		/* setup failed: do not run */
	_Atomic int stop;		/* run over (or failed): every end finishes */
	_Atomic int failed;
	_Atomic uint64_t heartbeat;	/* measuring end's last sign of life */
	struct end_stats snd[MAX_THREADS];	/* senders / ping clients */
	struct end_stats srv;			/* echo server */
	struct rx_seen seen[MAX_THREADS];	/* stream in-flight window */
	struct rx_result rx;
	struct pp_result pp;
	struct rdma_result rd;
	struct target_result tg;
	_Atomic int unsupported;	/* no RDMA: unsup_msg says why */
	char unsup_msg[400];
};

static struct shared *shm;
static volatile sig_atomic_t interrupted;
static int go_pipe[2] = { -1, -1 };
static int report_pipe[2] = { -1, -1 };
static uint8_t *pattern;	/* reference payload, cfg.size bytes */

struct report {
	int who;		/* 0: passive end, 1: active end */
	int idx;
	int ok;
	uint16_t port;
	char msg[400];
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static uint64_t sec2ns(double s)
{
	return (uint64_t)(s * 1e9);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / NSEC), (long)(ns % NSEC) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, PROG ": out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

static bool stopping(void)
{
	return atomic_load_explicit(&shm->stop, memory_order_relaxed);
}

static void beat(uint64_t now)
{
	atomic_store_explicit(&shm->heartbeat, now, memory_order_relaxed);
}

/* A failure during a run: print it, mark the run failed, stop every end. */
static void __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	char buf[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, PROG ": %s\n", buf);
	atomic_store(&shm->failed, 1);
	atomic_store(&shm->stop, 1);
}

static const char *family_name(int fam)
{
	switch (fam) {
	case AF_RDS:
		return "AF_RDS";
	case AF_INET_OFFLOAD:
		return "AF_INET_OFFLOAD";
	default:
		return "family";
	}
}

static const char *socket_hint(int e)
{
	switch (e) {
	case EAFNOSUPPORT:
		return "no module has registered this address family: load it first "
		       "(rds_doca: insmod rds_doca.ko [family=N]; Linux RDS: "
		       "modprobe rds rds_tcp), or pick another one with --family";
	case EPROTONOSUPPORT:
	case ESOCKTNOSUPPORT:
	case EINVAL:
		return "the family exists but refuses SOCK_SEQPACKET sockets: "
		       "it is probably not an RDS family";
	case EPERM:
	case EACCES:
		return "not permitted (run as root?)";
	default:
		return NULL;
	}
}

static const char *bind_hint(int e)
{
	switch (e) {
	case EADDRNOTAVAIL:
		return "no transport accepts this address: Linux RDS needs "
		       "'modprobe rds_tcp' for IP addresses (or an RDMA device "
		       "owning the address); rds_doca needs the address on a "
		       "device it serves";
	case EADDRINUSE:
		return "address and port already in use";
	case EINVAL:
		return "address refused (already bound, or not an IPv4 address "
		       "the family accepts)";
	case ENOPROTOOPT:
		return "the transport chosen with --transport is not loaded or "
		       "does not accept this address (Linux RDS: rds_rdma for 0, "
		       "rds_tcp for 2)";
	default:
		return NULL;
	}
}

static const char *send_hint(int e)
{
	switch (e) {
	case EMSGSIZE:
		return "message larger than the socket allows: RDS limits a message "
		       "to 1 MiB and to half of SO_SNDBUF; raise --sndbuf (needs "
		       "root or net.core.wmem_max)";
	case ENOTCONN:
		return "socket not bound";
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ECONNREFUSED:
	case ECONNRESET:
		return "no path to the destination (transport not loaded or "
		       "connection failed)";
	default:
		return NULL;
	}
}

static void describe(char *out, size_t len, const char *what, int e,
		     const char *hint)
{
	if (hint)
		snprintf(out, len, "%s: %s (%s)", what, strerror(e), hint);
	else
		snprintf(out, len, "%s: %s", what, strerror(e));
}

/* ------------------------------------------------------------------ */
/* Sockets                                                             */

/*
 * Set a socket buffer, as root beyond net.core.[rw]mem_max.  Returns the
 * value the kernel reports back (twice what was set, as Linux keeps it).
 */
static int set_buf(int fd, int force_opt, int opt, uint64_t want)
{
	int v = want > INT_MAX / 2 ? INT_MAX / 2 : (int)want;
	socklen_t l = sizeof(v);

	if (setsockopt(fd, SOL_SOCKET, force_opt, &v, sizeof(v)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, opt, &v, sizeof(v));
	if (getsockopt(fd, SOL_SOCKET, opt, &v, &l) < 0)
		return -1;
	return v;
}

/*
 * Create, configure and bind one socket.  On failure returns -1 with a
 * readable explanation in err.
 */
static int open_sock(struct in_addr addr, uint16_t *port, char *err,
		     size_t errlen, int *snd_eff, int *rcv_eff)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	char what[160];
	int fd, s, r;

	fd = socket(cfg.family, SOCK_SEQPACKET, 0);
	if (fd < 0) {
		int e = errno;

		snprintf(what, sizeof(what), "socket(%d /* %s */, SOCK_SEQPACKET, 0)",
			 cfg.family, family_name(cfg.family));
		describe(err, errlen, what, e, socket_hint(e));
		return -1;
	}
	s = set_buf(fd, SO_SNDBUFFORCE, SO_SNDBUF, cfg.sndbuf);
	r = set_buf(fd, SO_RCVBUFFORCE, SO_RCVBUF, cfg.rcvbuf);
	if (snd_eff)
		*snd_eff = s;
	if (rcv_eff)
		*rcv_eff = r;
	if (cfg.blocking) {
		/* Bounds waits for send-buffer space; congestion waits are
		 * interrupted with SIGUSR1 when the run ends. */
		struct timeval tv = { 0, 100000 };

		(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	if (cfg.transport >= 0 &&
	    setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &cfg.transport,
		       sizeof(cfg.transport)) < 0) {
		int e = errno;

		snprintf(what, sizeof(what),
			 "setsockopt(SOL_RDS, SO_RDS_TRANSPORT, %d)", cfg.transport);
		describe(err, errlen, what, e,
			 e == EINVAL ? "unknown transport number" :
			 e == ENOPROTOOPT || e == EOPNOTSUPP ?
			 "option not supported by this family" : NULL);
		close(fd);
		return -1;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr = addr;
	sin.sin_port = 0;
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		int e = errno;
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &addr, a, sizeof(a));
		snprintf(what, sizeof(what), "bind(%s:0) on family %d", a,
			 cfg.family);
		describe(err, errlen, what, e, bind_hint(e));
		close(fd);
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&sin, &sl) < 0) {
		describe(err, errlen, "getsockname", errno, NULL);
		close(fd);
		return -1;
	}
	if (ntohs(sin.sin_port) == 0) {
		snprintf(err, errlen, "bind picked no port (getsockname says 0)");
		close(fd);
		return -1;
	}
	*port = ntohs(sin.sin_port);
	return fd;
}

static void sock_dst(struct sockaddr_in *d, struct in_addr a, uint16_t port)
{
	memset(d, 0, sizeof(*d));
	d->sin_family = AF_INET;
	d->sin_addr = a;
	d->sin_port = htons(port);
}

static int wait_fd(int fd, short events, uint64_t ns)
{
	struct pollfd p = { .fd = fd, .events = events };
	struct timespec ts = { (time_t)(ns / NSEC), (long)(ns % NSEC) };

	return ppoll(&p, 1, &ts, NULL);
}

/*
 * Send one whole message, retrying on ENOBUFS (receiver congested) and
 * EAGAIN (our send buffer full).  Returns 0 when sent, 1 when the run is
 * stopping or the deadline (0: none) passed, or -errno on a hard error.
 */
static int send_msg(int fd, const void *buf, size_t len,
		    const struct sockaddr_in *dst, struct end_stats *st,
		    uint64_t *enobufs, uint64_t *eagain, uint64_t deadline)
{
	int flags = cfg.blocking ? 0 : MSG_DONTWAIT;

	for (;;) {
		ssize_t n = sendto(fd, buf, len, flags,
				   (const struct sockaddr *)dst, sizeof(*dst));
		int e;

		if (n == (ssize_t)len)
			return 0;
		if (n >= 0)
			return -EIO;	/* a datagram socket never sends part */
		e = errno;
		if (stopping() || (deadline && now_ns() >= deadline))
			return 1;
		switch (e) {
		case ENOBUFS:
			/* Destination port congested.  Linux RDS wakes
			 * POLLWRBAND pollers on congestion map updates;
			 * the timeout covers anything that doesn't. */
			(*enobufs)++;
			atomic_store_explicit(&st->enobufs, *enobufs,
					      memory_order_relaxed);
			wait_fd(fd, POLLWRBAND, cfg.retry_us * 1000ull);
			break;
		case EAGAIN:
		case ETIMEDOUT:	/* blocking send: SO_SNDTIMEO ran out */
			(*eagain)++;
			atomic_store_explicit(&st->eagain, *eagain,
					      memory_order_relaxed);
			wait_fd(fd, POLLOUT, 10 * MSEC);
			break;
		case EINTR:
			break;
		default:
			return -e;
		}
	}
}

static ssize_t recv_one(int fd, void *buf, size_t cap,
			struct sockaddr_in *from, int *mflags)
{
	char cbuf[256];
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr mh = {
		.msg_name = from,
		.msg_namelen = sizeof(*from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

	*mflags = mh.msg_flags;
	return n;
}

/*
 * recv_one(), waiting while nothing is queued: the message's length, or -1
 * once the run stops or after reporting a receive error as @who.
 */
static ssize_t recv_next(int fd, void *buf, size_t cap,
			 struct sockaddr_in *from, int *mflags, const char *who)
{
	char m[300];
	ssize_t n;

	while (!stopping()) {
		n = recv_one(fd, buf, cap, from, mflags);
		if (n >= 0)
			return n;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			wait_fd(fd, POLLIN, IDLE_SLICE);
			continue;
		}
		if (errno == EINTR)
			continue;
		describe(m, sizeof(m), who, errno, NULL);
		fail("%s", m);
		break;
	}
	return -1;
}

/* Put the header (whatever of it fits in cfg.size bytes) into buf. */
static void put_hdr(uint8_t *buf, uint64_t seq, uint32_t idx)
{
	struct msg_hdr h = { .seq = seq, .magic = HDR_MAGIC, .idx = idx };
	size_t n = cfg.size < sizeof(h) ? cfg.size : sizeof(h);

	memcpy(buf, &h, n);
}

enum { V_OK, V_LEN, V_DATA };

/* Check length, magic and (--verify) payload; hand back the sequence. */
static int check_msg(const uint8_t *buf, ssize_t n, int mflags,
		     uint64_t *seq, bool *has_seq)
{
	struct msg_hdr h = { 0 };

	*has_seq = false;
	if (n != (ssize_t)cfg.size || (mflags & MSG_TRUNC))
		return V_LEN;
	memcpy(&h, buf, cfg.size < sizeof(h) ? cfg.size : sizeof(h));
	if (cfg.size >= sizeof(h) && h.magic != HDR_MAGIC)
		return V_DATA;
	if (cfg.verify && cfg.size > sizeof(h) &&
	    memcmp(buf + sizeof(h), pattern + sizeof(h), cfg.size - sizeof(h)))
		return V_DATA;
	if (cfg.size >= sizeof(h.seq)) {
		*seq = h.seq;
		*has_seq = true;
	}
	return V_OK;
}

static void on_int(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* SIGUSR1 only interrupts blocking calls (no SA_RESTART). */
static void on_usr1(int sig)
{
	(void)sig;
}

/* Wait for the controller to close the go pipe; false if the run was called off. */
static bool wait_go(void)
{
	char c;
	ssize_t r;

	do
		r = read(go_pipe[0], &c, 1);
	while (r > 0 || (r < 0 && errno == EINTR));
	return !atomic_load(&shm->abort);
}

static void send_report(int who, int idx, int ok, uint16_t port, const char *msg)
{
	struct report r;
	ssize_t n;

	memset(&r, 0, sizeof(r));
	r.who = who;
	r.idx = idx;
	r.ok = ok;
	r.port = port;
	if (msg)
		snprintf(r.msg, sizeof(r.msg), "%s", msg);
	do
		n = write(report_pipe[1], &r, sizeof(r));
	while (n < 0 && errno == EINTR);
}

/* ------------------------------------------------------------------ */
/* Stream                                                              */

enum { PH_FIRST, PH_WARM, PH_MEAS };

struct src_state {
	uint32_t addr;
	uint16_t port;
	int sidx;		/* sender index, -1 if not one of ours */
	bool addr_bad;		/* recvmsg reported an address no sender has */
	uint64_t next;		/* expected sequence number */
	uint64_t msgs, bytes;	/* everything received from it */
};

/*
 * Which of our senders has this source address (-1: none).  If the
 * address is not one of theirs but the header names a sender, trust the
 * header (so the run goes on) and flag the address as wrong.
 */
static int sender_of(const struct sockaddr_in *from, const uint8_t *buf,
		     ssize_t n, bool *addr_bad)
{
	struct msg_hdr h;
	int k;

	*addr_bad = false;
	if (from->sin_addr.s_addr == cfg.saddr.s_addr)
		for (k = 0; k < cfg.threads; k++)
			if (shm->snd[k].port == ntohs(from->sin_port))
				return k;
	*addr_bad = true;
	if (n >= (ssize_t)sizeof(h)) {
		memcpy(&h, buf, sizeof(h));
		if (h.magic == HDR_MAGIC && h.idx < (uint32_t)cfg.threads)
			return (int)h.idx;
	}
	return -1;
}

/*
 * The receiver owns the measurement: the window opens `warmup` seconds
 * after the first message arrives and closes `duration` seconds later (or
 * after `count` good messages).  Only messages that pass check_msg() and
 * arrive inside the window count.
 */
static void stream_receiver(int fd)
{
	uint8_t *buf = xmalloc((size_t)cfg.size + 1);
	struct src_state src[2 * MAX_THREADS];
	int nsrc = 0;
	struct rx_result res = { 0 };
	uint64_t t0 = now_ns();
	uint64_t first_deadline = t0 + sec2ns(cfg.timeout);
	uint64_t warm_end = 0, t_start = 0, t_end = 0, t_stop = 0;
	uint64_t last_rx = t0, timeout = sec2ns(cfg.timeout), last_beat = t0;
	int phase = PH_FIRST;
	bool done = false;

	beat(t0);
	while (!done) {
		struct sockaddr_in from = { 0 };
		int mflags = 0;
		ssize_t n;
		uint64_t now, wake;

		if (stopping())
			break;
		n = recv_one(fd, buf, (size_t)cfg.size + 1, &from, &mflags);
		now = now_ns();
		if (n >= 0) {
			uint64_t seq = 0;
			bool has_seq;
			int v = check_msg(buf, n, mflags, &seq, &has_seq);

			struct src_state *sp = NULL;
			int i;

			last_rx = now;
			for (i = 0; i < nsrc; i++)
				if (src[i].port == from.sin_port &&
				    src[i].addr == from.sin_addr.s_addr)
					break;
			if (i == nsrc && nsrc < (int)(sizeof(src) / sizeof(src[0]))) {
				memset(&src[i], 0, sizeof(src[i]));
				src[i].addr = from.sin_addr.s_addr;
				src[i].port = from.sin_port;
				src[i].sidx = sender_of(&from, buf, n, &src[i].addr_bad);
				nsrc++;
			}
			if (i < nsrc)
				sp = &src[i];
			if (sp && sp->addr_bad)
				res.bad_addr++;
			if (sp && sp->sidx >= 0) {
				/* feeds the senders' in-flight window */
				struct rx_seen *rs = &shm->seen[sp->sidx];

				sp->msgs++;
				sp->bytes += cfg.size;
				atomic_store_explicit(&rs->msgs, sp->msgs,
						      memory_order_relaxed);
				atomic_store_explicit(&rs->bytes, sp->bytes,
						      memory_order_relaxed);
			}
			if (!sp || sp->sidx < 0) {
				res.unknown_src++;
				if (v == V_OK)
					v = V_DATA;
			} else if (v == V_LEN) {
				res.bad_len++;
			} else if (v == V_DATA) {
				res.bad_data++;
			} else if (has_seq) {
				if (seq != sp->next)
					res.seq_err++;
				sp->next = seq + 1;
			}

			switch (phase) {
			case PH_FIRST:
				phase = PH_WARM;
				warm_end = now + sec2ns(cfg.warmup);
				if (now >= warm_end) {
					phase = PH_MEAS;
					t_start = now;
					t_end = t_start + sec2ns(cfg.duration);
				}
				break;
			case PH_WARM:
				if (now >= warm_end) {
					phase = PH_MEAS;
					t_start = now;
					t_end = t_start + sec2ns(cfg.duration);
				}
				break;
			case PH_MEAS:
				if (!cfg.count && now >= t_end) {
					t_stop = now;
					done = true;
					break;
				}
				if (v == V_OK) {
					res.msgs++;
					res.bytes += (uint64_t)n;
				}
				if (cfg.count && res.msgs >= cfg.count) {
					t_stop = now;
					done = true;
				}
				break;
			}
			if (now - last_beat >= 20 * MSEC) {
				beat(now);
				last_beat = now;
			}
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			char m[300];

			describe(m, sizeof(m), "receiver: recvmsg", errno, NULL);
			fail("%s", m);
			break;
		}

		/* Nothing queued: move the clock on, then wait. */
		beat(now);
		if (phase == PH_FIRST && now >= first_deadline) {
			fail("receiver: no message arrived within %.1f s of the start "
			     "(see the senders' errors above, if any)", cfg.timeout);
			break;
		}
		if (phase == PH_WARM && now >= warm_end) {
			phase = PH_MEAS;
			t_start = now;
			t_end = t_start + sec2ns(cfg.duration);
		}
		if (phase == PH_MEAS && !cfg.count && now >= t_end) {
			t_stop = now;
			break;
		}
		if (phase != PH_FIRST && now - last_rx >= timeout) {
			fail("receiver: traffic stalled: no message for %.1f s "
			     "(%" PRIu64 " counted so far)", cfg.timeout, res.msgs);
			break;
		}
		wake = now + IDLE_SLICE;
		if (phase == PH_FIRST && first_deadline < wake)
			wake = first_deadline;
		if (phase == PH_WARM && warm_end < wake)
			wake = warm_end;
		if (phase == PH_MEAS && !cfg.count && t_end < wake)
			wake = t_end;
		if (last_rx + timeout < wake)
			wake = last_rx + timeout;
		wait_fd(fd, POLLIN, wake > now ? wake - now : 0);
	}
	if (t_stop) {
		res.elapsed = (double)(t_stop - t_start) / 1e9;
		res.valid = 1;
	}
	shm->rx = res;
	atomic_store(&shm->stop, 1);	/* tell the senders */
	free(buf);
}

struct active_arg {
	int idx;
	int fd;
	struct sockaddr_in dst;
	/* pingpong results */
	uint64_t *samples;
	size_t nsamples, cap;
	uint64_t lost, stale, bad_len, bad_data;
	uint64_t t_start, t_stop;
	bool measured;
	/* RDMA results (t_start, t_stop, measured and bad_data above too) */
	uint64_t ops, op_bytes, issued, completed, enobufs, eagain;
};

/*
 * In-flight window of one sender: is more than its share of
 * --max-inflight(-msgs) sent but not yet received?  *rm / *rb cache what
 * the receiver last reported; they only grow, so a cached "not full" is
 * always right and the shared counters are read only near the limit.
 */
static bool window_full(int idx, uint64_t sent, uint64_t sent_bytes,
			uint64_t *rm, uint64_t *rb)
{
	uint64_t lim_m = cfg.max_inflight_msgs / (uint64_t)cfg.threads;
	uint64_t lim_b = cfg.max_inflight / (uint64_t)cfg.threads;
	int pass;

	if (lim_m < 1 && cfg.max_inflight_msgs)
		lim_m = 1;
	if (lim_b < cfg.size && cfg.max_inflight)
		lim_b = cfg.size;
	for (pass = 0; pass < 2; pass++) {
		bool full = false;

		if (*rm < sent) {	/* something in flight */
			if (lim_m && sent - *rm >= lim_m)
				full = true;
			if (lim_b && sent_bytes - *rb + cfg.size > lim_b)
				full = true;
		}
		if (!full)
			return false;
		if (pass == 0) {
			*rm = atomic_load_explicit(&shm->seen[idx].msgs,
						   memory_order_relaxed);
			*rb = atomic_load_explicit(&shm->seen[idx].bytes,
						   memory_order_relaxed);
		}
	}
	return true;
}

static void *stream_sender(void *argp)
{
	struct active_arg *a = argp;
	struct end_stats *st = &shm->snd[a->idx];
	uint8_t *buf = xmalloc(cfg.size);
	uint64_t seq = 0, bytes = 0, enobufs = 0, eagain = 0, waits = 0;
	uint64_t rx_m = 0, rx_b = 0;

	memcpy(buf, pattern, cfg.size);
	if (wait_go()) {
		while (!stopping()) {
			int r;

			if (window_full(a->idx, seq, bytes, &rx_m, &rx_b)) {
				atomic_store_explicit(&st->waits, ++waits,
						      memory_order_relaxed);
				do
					sleep_ns(20000);
				while (!stopping() &&
				       window_full(a->idx, seq, bytes, &rx_m, &rx_b));
				continue;
			}
			put_hdr(buf, seq, (uint32_t)a->idx);
			r = send_msg(a->fd, buf, cfg.size, &a->dst, st,
				     &enobufs, &eagain, 0);
			if (r > 0)
				break;
			if (r < 0) {
				char m[400], w[64];

				snprintf(w, sizeof(w), "sender %d: sendto(%u bytes)",
					 a->idx, cfg.size);
				describe(m, sizeof(m), w, -r, send_hint(-r));
				fail("%s", m);
				break;
			}
			seq++;
			bytes += cfg.size;
			atomic_store_explicit(&st->msgs, seq, memory_order_relaxed);
			atomic_store_explicit(&st->bytes, bytes, memory_order_relaxed);
		}
	}
	atomic_store(&st->done, 1);
	free(buf);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Pingpong                                                            */

static void echo_server(int fd)
{
	uint8_t *buf = xmalloc((size_t)cfg.size + 1);
	struct end_stats *st = &shm->srv;
	uint64_t echoed = 0, enobufs = 0, eagain = 0;

	while (!stopping()) {
		struct sockaddr_in from = { 0 };
		int mflags, r;
		ssize_t n = recv_next(fd, buf, (size_t)cfg.size + 1, &from,
				      &mflags, "echo server: recvmsg");

		if (n < 0)
			break;
		if (from.sin_family != AF_INET && from.sin_family != 0)
			continue;
		from.sin_family = AF_INET;
		r = send_msg(fd, buf, (size_t)n, &from, st, &enobufs, &eagain, 0);
		if (r > 0)
			break;
		if (r < 0) {
			char m[400];

			describe(m, sizeof(m), "echo server: sendto", -r, send_hint(-r));
			fail("%s", m);
			break;
		}
		echoed++;
		atomic_store_explicit(&st->msgs, echoed, memory_order_relaxed);
	}
	atomic_store(&st->done, 1);
	free(buf);
}

static void add_sample(struct active_arg *a, uint64_t v)
{
	if (a->nsamples == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 65536;
		uint64_t *p = realloc(a->samples, nc * sizeof(*p));

		if (!p) {
			fprintf(stderr, PROG ": out of memory for RTT samples\n");
			exit(1);
		}
		a->samples = p;
		a->cap = nc;
	}
	a->samples[a->nsamples++] = v;
}

/*
 * One client: send, wait for the echo, repeat.  The first round trip
 * (connection setup) and `warmup` seconds after it are not measured.  A
 * reply that doesn't come within --timeout counts as lost; the client then
 * moves on (a late echo with an old sequence number counts as stale).
 */
static void *ping_client(void *argp)
{
	struct active_arg *a = argp;
	struct end_stats *st = &shm->snd[a->idx];
	uint8_t *buf = xmalloc(cfg.size);
	uint8_t *rbuf = xmalloc((size_t)cfg.size + 1);
	uint64_t seq = 0, enobufs = 0, eagain = 0, done_rt = 0;
	uint64_t timeout = sec2ns(cfg.timeout);
	uint64_t warm_end = 0, t_end = 0;
	int phase = PH_FIRST, lost_row = 0;

	memcpy(buf, pattern, cfg.size);
	if (!wait_go())
		goto out;
	beat(now_ns());
	while (!stopping()) {
		uint64_t t0, t1 = 0, deadline;
		bool got = false;
		int r;

		seq++;
		put_hdr(buf, seq, (uint32_t)a->idx);
		t0 = now_ns();
		deadline = t0 + timeout;
		if (phase == PH_MEAS && !cfg.count && t_end < deadline)
			deadline = t_end;
		r = send_msg(a->fd, buf, cfg.size, &a->dst, st, &enobufs,
			     &eagain, deadline);
		if (r < 0) {
			char m[400], w[64];

			snprintf(w, sizeof(w), "client %d: sendto(%u bytes)", a->idx,
				 cfg.size);
			describe(m, sizeof(m), w, -r, send_hint(-r));
			fail("%s", m);
			break;
		}
		while (r == 0) {
			struct sockaddr_in from = { 0 };
			int mflags;
			ssize_t n = recv_one(a->fd, rbuf, (size_t)cfg.size + 1,
					     &from, &mflags);
			uint64_t now;

			if (n >= 0) {
				uint64_t rs = 0;
				bool has_seq;
				int v = check_msg(rbuf, n, mflags, &rs, &has_seq);

				if (v == V_LEN) {
					a->bad_len++;
					continue;
				}
				if (v == V_DATA) {
					a->bad_data++;
					continue;
				}
				if (has_seq && rs != seq) {
					a->stale++;
					continue;
				}
				t1 = now_ns();
				got = true;
				break;
			}
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				char m[300], w[64];

				snprintf(w, sizeof(w), "client %d: recvmsg", a->idx);
				describe(m, sizeof(m), w, errno, NULL);
				fail("%s", m);
				goto out;
			}
			now = now_ns();
			beat(now);
			if (now >= deadline || stopping())
				break;
			wait_fd(a->fd, POLLIN,
				deadline - now < IDLE_SLICE ? deadline - now : IDLE_SLICE);
		}
		if (stopping())
			break;
		if (!got) {
			uint64_t now = now_ns();

			if (phase == PH_MEAS && !cfg.count && now >= t_end) {
				a->t_stop = now;	/* window closed while waiting */
				a->measured = true;
				break;
			}
			a->lost++;
			if (++lost_row >= 3 || phase == PH_FIRST) {
				fail("client %d: no echo within %.1f s (%d in a row%s)",
				     a->idx, cfg.timeout, lost_row,
				     phase == PH_FIRST ? ", first message" : "");
				break;
			}
			continue;
		}
		lost_row = 0;
		beat(t1);
		switch (phase) {
		case PH_FIRST:
			phase = PH_WARM;
			warm_end = t1 + sec2ns(cfg.warmup);
			if (t1 >= warm_end) {
				phase = PH_MEAS;
				a->t_start = t1;
				t_end = t1 + sec2ns(cfg.duration);
			}
			break;
		case PH_WARM:
			if (t1 >= warm_end) {
				phase = PH_MEAS;
				a->t_start = t1;
				t_end = t1 + sec2ns(cfg.duration);
			}
			break;
		case PH_MEAS:
			if (!cfg.count && t1 >= t_end) {
				a->t_stop = t1;
				a->measured = true;
				goto out;
			}
			add_sample(a, t1 - t0);
			done_rt++;
			if (cfg.count && done_rt >= cfg.count) {
				a->t_stop = t1;
				a->measured = true;
				goto out;
			}
			break;
		}
	}
out:
	atomic_store_explicit(&st->msgs, seq, memory_order_relaxed);
	atomic_store(&st->done, 1);
	free(buf);
	free(rbuf);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted samples, in µs. */
static double pct_us(const uint64_t *s, size_t n, double q)
{
	size_t rank;

	if (!n)
		return 0;
	rank = (size_t)(q * (double)n);
	if ((double)rank < q * (double)n)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return (double)s[rank - 1] / 1e3;
}

static void ping_summarize(struct active_arg *args, int n)
{
	struct pp_result res = { 0 };
	size_t total = 0, k = 0;
	uint64_t *all;
	double sum = 0;
	int i, measured = 0;

	for (i = 0; i < n; i++) {
		total += args[i].nsamples;
		res.lost += args[i].lost;
		res.stale += args[i].stale;
		res.bad_len += args[i].bad_len;
		res.bad_data += args[i].bad_data;
		if (args[i].measured && args[i].t_stop > args[i].t_start) {
			double el = (double)(args[i].t_stop - args[i].t_start) / 1e9;

			res.rate += (double)args[i].nsamples / el;
			if (el > res.elapsed)
				res.elapsed = el;
			measured++;
		}
	}
	all = xmalloc(total * sizeof(*all));
	for (i = 0; i < n; i++) {
		memcpy(all + k, args[i].samples, args[i].nsamples * sizeof(*all));
		k += args[i].nsamples;
	}
	qsort(all, total, sizeof(*all), cmp_u64);
	for (k = 0; k < total; k++)
		sum += (double)all[k];
	res.rtts = total;
	if (total) {
		res.p50 = pct_us(all, total, 0.50);
		res.p99 = pct_us(all, total, 0.99);
		res.p999 = pct_us(all, total, 0.999);
		res.min = (double)all[0] / 1e3;
		res.max = (double)all[total - 1] / 1e3;
		res.mean = sum / (double)total / 1e3;
	}
	res.valid = measured == n;
	shm->pp = res;
	free(all);
}

/* ------------------------------------------------------------------ */
/* RDMA and atomic operations                                          */

/*
 * The passive end, the target, registers a region with RDS_GET_MR
 * (cfg.size bytes for rdma-write and rdma-read, one 8-byte word for
 * atomic) and sends its cookie to every initiator in a hello message.
 * Each initiator keeps cfg.window operations outstanding: an
 * RDS_CMSG_RDMA_ARGS (RDS_RDMA_READWRITE for a write) or an
 * RDS_CMSG_ATOMIC_FADD of 1, with RDS_RDMA_NOTIFY_ME, riding on an 8-byte
 * carrier message (the operation's sequence number) to the target's
 * socket.  An operation completes when its RDS_CMSG_RDMA_STATUS notice
 * comes back; any status but RDS_RDMA_SUCCESS fails the run.  The
 * initiators measure completions, with the same warm-up and window as
 * pingpong, then stop posting and wait for what is still outstanding.
 * The target drains and checks the carriers and, at the end, its region:
 * the pattern every write wrote, or the word the atomics counted up.
 */

#define HELLO_MAGIC		0x52445348u	/* "RDSH" */
#define CARRIER_LEN		sizeof(uint64_t)
#define MAX_WINDOW		4096
#define TOKEN_SLOT_BITS		16	/* user_token: sequence << 16 | slot */
#define NOTICE_BATCH		64	/* notices one recvmsg() may return */
#define REGION_ALIGN		4096

/* The target's cookie, in the first message it sends to an initiator. */
struct rdma_hello {
	uint32_t magic;
	uint32_t mode;
	uint64_t cookie;
	uint64_t bytes;		/* the region's length */
};

/* The target's region (there is one target per run). */
static struct {
	uint8_t *buf;
	size_t len;
	uint64_t cookie;
} region;

static bool rdma_mode(void)
{
	return cfg.mode == M_RDMA_WRITE || cfg.mode == M_RDMA_READ ||
	       cfg.mode == M_ATOMIC;
}

static const char *mode_name(void)
{
	switch (cfg.mode) {
	case M_STREAM:
		return "stream";
	case M_PINGPONG:
		return "pingpong";
	case M_PROBE:
		return "probe";
	case M_RDMA_WRITE:
		return "rdma-write";
	case M_RDMA_READ:
		return "rdma-read";
	case M_ATOMIC:
		return "atomic";
	default:
		return "?";
	}
}

/* Errors that mean "no RDMA here" rather than "something went wrong". */
static bool no_rdma_errno(int e)
{
	return e == EOPNOTSUPP || e == ENOPROTOOPT || e == ENODEV;
}

static const char *rdma_hint(int e)
{
	switch (e) {
	case EOPNOTSUPP:
	case ENOPROTOOPT:
		return "the transport this socket is bound to offers no RDMA; "
		       "Linux RDS has none on 127.0.0.0/8, and rds_rdma refuses "
		       "RDS_GET_MR on Soft-RoCE";
	case ENODEV:
		return "no RDMA device that registers memory serves this "
		       "address; rds_rdma answers so on Soft-RoCE";
	case ENOMEM:
		return "pinned memory over RLIMIT_MEMLOCK: run as root or raise "
		       "ulimit -l";
	case EMSGSIZE:
		return "larger than the family allows (rds_doca: 1 MiB)";
	case ENOTCONN:
		return "socket not bound";
	default:
		return NULL;
	}
}

/*
 * The family or its transport has no RDMA: note why (the first reason
 * wins) and end the run; it then reports "unsupported" instead of a
 * result.
 */
static void rdma_unsupported(const char *why)
{
	int expect = 0;

	if (atomic_compare_exchange_strong(&shm->unsupported, &expect, 2)) {
		snprintf(shm->unsup_msg, sizeof(shm->unsup_msg), "%s", why);
		atomic_store(&shm->unsupported, 1);
	}
	atomic_store(&shm->stop, 1);
}

/*
 * Register the target's region on fd.  Returns 0, or -1 with the reason
 * in err and *unsup telling whether the family simply has no RDMA.
 */
static int target_register(int fd, char *err, size_t errlen, bool *unsup)
{
	size_t len = cfg.mode == M_ATOMIC ? sizeof(uint64_t) : cfg.size;
	struct rds_get_mr_args mr;
	char what[96];
	void *p = NULL;
	int e;

	*unsup = false;
	e = posix_memalign(&p, REGION_ALIGN, len);
	if (e) {
		describe(err, errlen, "target: region", e, NULL);
		return -1;
	}
	/* reads fetch the pattern; writes and atomics start from zero */
	if (cfg.mode == M_RDMA_READ)
		memcpy(p, pattern, len);
	else
		memset(p, 0, len);
	memset(&mr, 0, sizeof(mr));
	mr.vec.addr = (uintptr_t)p;
	mr.vec.bytes = len;
	mr.cookie_addr = (uintptr_t)&region.cookie;
	if (setsockopt(fd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr)) < 0) {
		e = errno;
		snprintf(what, sizeof(what),
			 "setsockopt(SOL_RDS, RDS_GET_MR, %zu bytes)", len);
		describe(err, errlen, what, e, rdma_hint(e));
		*unsup = no_rdma_errno(e);
		free(p);
		return -1;
	}
	region.buf = p;
	region.len = len;
	return 0;
}

/* Which initiator a carrier came from (-1: none of ours). */
static int initiator_of(const struct sockaddr_in *from)
{
	int k;

	if (from->sin_addr.s_addr != cfg.saddr.s_addr)
		return -1;
	for (k = 0; k < cfg.threads; k++)
		if (shm->snd[k].port == ntohs(from->sin_port))
			return k;
	return -1;
}

/*
 * Target: send the cookie to every initiator, then drain and check the
 * carriers until the run ends; the region stays registered all along.
 */
static void rdma_target(int fd)
{
	struct target_result res = { 0 };
	uint64_t next[MAX_THREADS] = { 0 };
	uint64_t e1 = 0, e2 = 0;
	uint8_t buf[64];
	int i;

	for (i = 0; i < cfg.threads; i++) {
		struct rdma_hello h = {
			.magic = HELLO_MAGIC,
			.mode = (uint32_t)cfg.mode,
			.cookie = region.cookie,
			.bytes = region.len,
		};
		struct sockaddr_in dst;
		int r;

		sock_dst(&dst, cfg.saddr, shm->snd[i].port);
		r = send_msg(fd, &h, sizeof(h), &dst, &shm->srv, &e1, &e2,
			     now_ns() + sec2ns(cfg.timeout));
		if (r > 0 && !stopping()) {
			fail("target: the cookie for initiator %d was still refused "
			     "after %.1f s", i, cfg.timeout);
			return;
		}
		if (r < 0) {
			char m[400];

			describe(m, sizeof(m), "target: sendto (cookie)", -r,
				 send_hint(-r));
			fail("%s", m);
			return;
		}
		if (r > 0)
			return;
	}
	while (!stopping()) {
		struct sockaddr_in from = { 0 };
		int mflags = 0, k;
		ssize_t n = recv_next(fd, buf, sizeof(buf), &from, &mflags,
				      "target: recvmsg");
		uint64_t seq;

		if (n < 0)
			break;
		k = initiator_of(&from);
		if (k < 0) {
			res.unknown_src++;
			continue;
		}
		if (n != (ssize_t)CARRIER_LEN || (mflags & MSG_TRUNC)) {
			res.bad_len++;
			continue;
		}
		memcpy(&seq, buf, sizeof(seq));
		if (seq != next[k])
			res.seq_err++;
		next[k] = seq + 1;
		res.carriers++;
		atomic_store_explicit(&shm->srv.msgs, res.carriers,
				      memory_order_relaxed);
	}
	/*
	 * A carrier arrives after its operation ran: once one came, every
	 * byte of a written region holds the pattern (--silent: none comes,
	 * but seconds of writes went before the end).  The word of atomic
	 * is checked against the initiators' count (report_rdma()).
	 */
	if ((res.carriers || cfg.silent) && cfg.mode == M_RDMA_WRITE &&
	    memcmp(region.buf, pattern, region.len))
		res.bad_data++;
	if (cfg.mode == M_ATOMIC) {
		res.word = __atomic_load_n((uint64_t *)region.buf, __ATOMIC_SEQ_CST);
		res.word_valid = 1;
	}
	shm->tg = res;
}

/* Wait for the target's cookie; false (run failed or over) without it. */
static bool rdma_hello_wait(struct active_arg *a, struct rdma_hello *h)
{
	uint64_t deadline = now_ns() + sec2ns(cfg.timeout);
	uint8_t buf[sizeof(*h) + 1];

	while (!stopping()) {
		struct sockaddr_in from = { 0 };
		int mflags = 0;
		ssize_t n = recv_one(a->fd, buf, sizeof(buf), &from, &mflags);
		uint64_t now;

		if (n >= 0) {
			if (n == (ssize_t)sizeof(*h) && !(mflags & MSG_TRUNC)) {
				memcpy(h, buf, sizeof(*h));
				if (h->magic == HELLO_MAGIC &&
				    h->mode == (uint32_t)cfg.mode &&
				    h->bytes >= (cfg.mode == M_ATOMIC ?
						 sizeof(uint64_t) : cfg.size))
					return true;
			}
			fail("initiator %d: the target's first message is not its "
			     "cookie (%zd bytes)", a->idx, n);
			return false;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			char m[300], w[64];

			snprintf(w, sizeof(w), "initiator %d: recvmsg", a->idx);
			describe(m, sizeof(m), w, errno, NULL);
			fail("%s", m);
			return false;
		}
		now = now_ns();
		beat(now);
		if (now >= deadline) {
			fail("initiator %d: the target's cookie did not come within "
			     "%.1f s", a->idx, cfg.timeout);
			return false;
		}
		wait_fd(a->fd, POLLIN,
			deadline - now < IDLE_SLICE ? deadline - now : IDLE_SLICE);
	}
	return false;
}

/*
 * Post one operation, riding on an 8-byte carrier holding seq.  Returns
 * 0, or -errno (EAGAIN and ENOBUFS: try again later).
 */
static int rdma_post(struct active_arg *a, const struct rdma_hello *h,
		     uint64_t seq, uint32_t slot, const struct rds_iovec *lv,
		     uint64_t *word)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct rds_atomic_args))];
	} cbuf;
	uint64_t carrier = seq;
	size_t len = cfg.silent ? 0 : CARRIER_LEN;
	struct iovec iov = { .iov_base = &carrier, .iov_len = len };
	struct msghdr mh = {
		.msg_name = &a->dst,
		.msg_namelen = sizeof(a->dst),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf.buf,
	};
	uint64_t token = seq << TOKEN_SLOT_BITS | slot;
	uint64_t silent = cfg.silent ? RDS_RDMA_SILENT : 0;
	struct cmsghdr *cm;
	ssize_t n;

	memset(&cbuf, 0, sizeof(cbuf));
	cm = (struct cmsghdr *)cbuf.buf;
	cm->cmsg_level = SOL_RDS;
	if (cfg.mode == M_ATOMIC) {
		struct rds_atomic_args at = {
			.cookie = h->cookie,
			.local_addr = (uintptr_t)word,
			.remote_addr = 0,
			.fadd.add = 1,
			.flags = RDS_RDMA_NOTIFY_ME | silent,
			.user_token = token,
		};

		cm->cmsg_type = RDS_CMSG_ATOMIC_FADD;
		cm->cmsg_len = CMSG_LEN(sizeof(at));
		memcpy(CMSG_DATA(cm), &at, sizeof(at));
		mh.msg_controllen = CMSG_SPACE(sizeof(at));
	} else {
		struct rds_rdma_args ra = {
			.cookie = h->cookie,
			.remote_vec = { .addr = 0, .bytes = cfg.size },
			.local_vec_addr = (uintptr_t)lv,
			.nr_local = 1,
			.flags = RDS_RDMA_NOTIFY_ME | silent |
				 (cfg.mode == M_RDMA_WRITE ? RDS_RDMA_READWRITE : 0),
			.user_token = token,
		};

		cm->cmsg_type = RDS_CMSG_RDMA_ARGS;
		cm->cmsg_len = CMSG_LEN(sizeof(ra));
		memcpy(CMSG_DATA(cm), &ra, sizeof(ra));
		mh.msg_controllen = CMSG_SPACE(sizeof(ra));
	}
	n = sendmsg(a->fd, &mh, cfg.blocking ? 0 : MSG_DONTWAIT);
	if (n == (ssize_t)len)
		return 0;
	if (n >= 0)
		return -EIO;
	return errno == ETIMEDOUT ? -EAGAIN : -errno;
}

/*
 * One recvmsg() on an initiator's socket: up to NOTICE_BATCH notices into
 * nv.  Returns their number (0 for a message that carried none, counted
 * in *stray), -EAGAIN if nothing was queued, or another -errno.
 */
static int rdma_notices(int fd, struct rds_rdma_notify *nv, uint64_t *stray)
{
	union {
		struct cmsghdr align;
		char buf[NOTICE_BATCH * CMSG_SPACE(sizeof(struct rds_rdma_notify))];
	} cbuf;
	uint8_t data[64];
	struct sockaddr_in from;
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr mh = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf.buf,
		.msg_controllen = sizeof(cbuf.buf),
	};
	struct cmsghdr *cm;
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
	int k = 0;

	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ?
		       -EAGAIN : -errno;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_RDS || cm->cmsg_type != RDS_CMSG_RDMA_STATUS ||
		    cm->cmsg_len < CMSG_LEN(sizeof(*nv)) || k >= NOTICE_BATCH)
			continue;
		memcpy(&nv[k++], CMSG_DATA(cm), sizeof(*nv));
	}
	if (!k)
		(*stray)++;
	return k;
}

/* Count one successful completion at time now into the measurement. */
static void rdma_account(struct active_arg *a, int *phase, uint64_t now,
			 uint64_t *warm_end, uint64_t *t_end, bool *closing)
{
	switch (*phase) {
	case PH_FIRST:
		*phase = PH_WARM;
		*warm_end = now + sec2ns(cfg.warmup);
		if (now < *warm_end)
			break;
		/* fall through */
	case PH_WARM:
		if (now >= *warm_end) {
			*phase = PH_MEAS;
			a->t_start = now;
			*t_end = now + sec2ns(cfg.duration);
		}
		break;
	case PH_MEAS:
		if (*closing)
			break;
		if (!cfg.count && now >= *t_end) {
			a->t_stop = now;
			a->measured = true;
			*closing = true;
			break;
		}
		a->ops++;
		a->op_bytes += cfg.size;
		if (cfg.count && a->ops >= cfg.count) {
			a->t_stop = now;
			a->measured = true;
			*closing = true;
		}
		break;
	}
}

/*
 * One initiator: window after window of operations on the target's
 * region, until its measurement is over and every operation it posted has
 * completed.  Its buffers are left allocated if operations may still be
 * outstanding when it gives up (they could still be written).
 */
static void *rdma_initiator(void *argp)
{
	struct active_arg *a = argp;
	struct end_stats *st = &shm->snd[a->idx];
	struct rds_rdma_notify nv[NOTICE_BATCH];
	struct rds_iovec lv = { 0 };
	struct rdma_hello h;
	uint8_t *local = NULL;
	uint64_t *words = NULL;		/* atomic: a word per slot */
	uint32_t *free_slots = NULL, nfree = 0;
	uint64_t seq = 0, inflight = 0, stray = 0;
	uint64_t timeout = sec2ns(cfg.timeout), last_done, last_beat;
	uint64_t warm_end = 0, t_end = 0;
	int phase = PH_FIRST;
	bool closing = false;
	uint32_t i;

	if (!wait_go() || !rdma_hello_wait(a, &h))
		goto out;
	if (cfg.mode == M_ATOMIC) {
		words = calloc(cfg.window, sizeof(*words));
		free_slots = calloc(cfg.window, sizeof(*free_slots));
		if (!words || !free_slots) {
			fail("initiator %d: out of memory", a->idx);
			goto out;
		}
		for (i = 0; i < cfg.window; i++)
			free_slots[nfree++] = cfg.window - 1 - i;
	} else {
		void *p = NULL;

		if (posix_memalign(&p, REGION_ALIGN, cfg.size)) {
			fail("initiator %d: out of memory", a->idx);
			goto out;
		}
		local = p;
		if (cfg.mode == M_RDMA_WRITE)
			memcpy(local, pattern, cfg.size);
		else
			memset(local, 0, cfg.size);
		lv.addr = (uintptr_t)local;
		lv.bytes = cfg.size;
	}
	last_done = last_beat = now_ns();
	beat(last_done);

	while (!stopping()) {
		bool progress = false;
		short wait_for = POLLIN;
		uint64_t wait_ns = IDLE_SLICE, now;
		int k, j;

		/* keep the window full */
		while (!closing && inflight < cfg.window) {
			uint32_t slot = cfg.mode == M_ATOMIC ? free_slots[nfree - 1] : 0;
			int r = rdma_post(a, &h, seq, slot, &lv,
					  words ? &words[slot] : NULL);

			if (!r) {
				if (cfg.mode == M_ATOMIC)
					nfree--;
				seq++;
				inflight++;
				progress = true;
				continue;
			}
			if (r == -EAGAIN) {
				atomic_store_explicit(&st->eagain, ++a->eagain,
						      memory_order_relaxed);
				wait_for |= POLLOUT;
				wait_ns = 10 * MSEC;
			} else if (r == -ENOBUFS) {
				atomic_store_explicit(&st->enobufs, ++a->enobufs,
						      memory_order_relaxed);
				wait_for |= POLLWRBAND;
				wait_ns = cfg.retry_us * 1000ull;
			} else if (r != -EINTR) {
				char m[400], w[80];

				snprintf(w, sizeof(w), "initiator %d: sendmsg(%s)",
					 a->idx, cfg.mode == M_ATOMIC ?
					 "RDS_CMSG_ATOMIC_FADD" : "RDS_CMSG_RDMA_ARGS");
				describe(m, sizeof(m), w, -r,
					 no_rdma_errno(-r) ? rdma_hint(-r) : send_hint(-r));
				if (no_rdma_errno(-r) && !seq)
					rdma_unsupported(m);
				else
					fail("%s", m);
				goto out;
			}
			break;
		}
		a->issued = seq;
		atomic_store_explicit(&st->msgs, seq, memory_order_relaxed);

		/* collect what completed */
		k = rdma_notices(a->fd, nv, &stray);
		now = now_ns();
		if (k < 0 && k != -EAGAIN) {
			char m[300], w[64];

			snprintf(w, sizeof(w), "initiator %d: recvmsg", a->idx);
			describe(m, sizeof(m), w, -k, NULL);
			fail("%s", m);
			goto out;
		}
		for (j = 0; j < k; j++) {
			uint64_t tok = nv[j].user_token;
			uint32_t slot = (uint32_t)(tok & ((1u << TOKEN_SLOT_BITS) - 1));

			if (!inflight || tok >> TOKEN_SLOT_BITS >= seq ||
			    slot >= cfg.window) {
				fail("initiator %d: a notice for an operation never "
				     "posted (user_token %#" PRIx64 ")", a->idx, tok);
				goto out;
			}
			inflight--;
			a->completed++;
			if (cfg.mode == M_ATOMIC)
				free_slots[nfree++] = slot;
			if (nv[j].status != RDS_RDMA_SUCCESS) {
				fail("initiator %d: operation %" PRIu64 " completed with "
				     "status %d (%s)", a->idx, tok >> TOKEN_SLOT_BITS,
				     nv[j].status, rds_doca_status_name(nv[j].status));
				goto out;
			}
			rdma_account(a, &phase, now, &warm_end, &t_end, &closing);
		}
		if (k > 0) {
			last_done = now;
			progress = true;
		} else if (k == 0) {
			progress = true;	/* a message, not a notice */
		}
		if (now - last_beat >= 20 * MSEC || k > 0) {
			beat(now);
			last_beat = now;
		}
		if (closing && !inflight)
			break;
		if (progress)
			continue;

		/* nothing to do: move the clock on, then wait */
		if (phase == PH_WARM && now >= warm_end) {
			phase = PH_MEAS;
			a->t_start = now;
			t_end = now + sec2ns(cfg.duration);
		}
		if (phase == PH_MEAS && !cfg.count && !closing && now >= t_end) {
			a->t_stop = now;
			a->measured = true;
			closing = true;
			continue;
		}
		if (inflight && now - last_done >= timeout) {
			fail("initiator %d: no operation completed for %.1f s "
			     "(%" PRIu64 " outstanding, %" PRIu64 " completed%s)",
			     a->idx, cfg.timeout, inflight, a->completed,
			     phase == PH_FIRST ? ", none at all" : "");
			goto out;
		}
		if (phase == PH_WARM && warm_end - now < wait_ns)
			wait_ns = warm_end - now;
		if (phase == PH_MEAS && !cfg.count && !closing && t_end - now < wait_ns)
			wait_ns = t_end - now;
		if (inflight && last_done + timeout - now < wait_ns)
			wait_ns = last_done + timeout - now;
		wait_fd(a->fd, wait_for, wait_ns);
	}
	/* every read fetched the target's pattern */
	if (cfg.mode == M_RDMA_READ && closing && !inflight && a->completed &&
	    memcmp(local, pattern, cfg.size))
		a->bad_data++;
	if (stray)
		fprintf(stderr, PROG ": initiator %d: %" PRIu64 " messages other "
			"than notices arrived (ignored)\n", a->idx, stray);
out:
	a->issued = seq;
	if (!inflight) {
		free(local);
		free(words);
	}
	free(free_slots);
	atomic_store(&st->done, 1);
	return NULL;
}

static void rdma_summarize(struct active_arg *args, int n)
{
	struct rdma_result res = { 0 };
	int i, measured = 0;

	for (i = 0; i < n; i++) {
		res.ops += args[i].ops;
		res.bytes += args[i].op_bytes;
		res.issued += args[i].issued;
		res.completed += args[i].completed;
		res.enobufs += args[i].enobufs;
		res.eagain += args[i].eagain;
		res.bad_data += args[i].bad_data;
		if (args[i].measured && args[i].t_stop > args[i].t_start) {
			double el = (double)(args[i].t_stop - args[i].t_start) / 1e9;

			res.rate += (double)args[i].ops / el;
			if (el > res.elapsed)
				res.elapsed = el;
			measured++;
		}
	}
	res.valid = measured == n;
	shm->rd = res;
}

/* ------------------------------------------------------------------ */
/* The two ends                                                        */

/* Passive end: stream receiver, echo server or RDMA target (one socket). */
static void run_passive(void)
{
	char err[400];
	uint16_t port = 0;
	bool unsup;
	int fd = open_sock(cfg.daddr, &port, err, sizeof(err), NULL, NULL);

	if (fd < 0) {
		send_report(0, 0, 0, 0, err);
		return;
	}
	if (rdma_mode() && target_register(fd, err, sizeof(err), &unsup) < 0) {
		if (unsup)
			rdma_unsupported(err);
		send_report(0, 0, 0, 0, err);
		close(fd);
		return;
	}
	send_report(0, 0, 1, port, NULL);
	if (wait_go()) {
		if (cfg.mode == M_STREAM)
			stream_receiver(fd);
		else if (rdma_mode())
			rdma_target(fd);
		else
			echo_server(fd);
	}
	close(fd);		/* frees the region too */
	free(region.buf);
	region.buf = NULL;
}

/*
 * Active end: cfg.threads senders (stream), clients (pingpong) or
 * initiators (RDMA modes), each with its own socket.  While they run, this thread forwards the end of
 * the run to them as SIGUSR1 so that blocked sends give up.
 */
static void run_active(uint16_t dport)
{
	struct active_arg *args = calloc((size_t)cfg.threads, sizeof(*args));
	pthread_t *th = calloc((size_t)cfg.threads, sizeof(*th));
	bool *started = calloc((size_t)cfg.threads, sizeof(*started));
	int i, nopen = 0;

	if (!args || !th || !started) {
		send_report(1, 0, 0, 0, "out of memory");
		return;
	}
	for (i = 0; i < cfg.threads; i++) {
		char err[400];
		uint16_t port = 0;

		args[i].idx = i;
		args[i].fd = open_sock(cfg.saddr, &port, err, sizeof(err), NULL, NULL);
		if (args[i].fd < 0) {
			send_report(1, i, 0, 0, err);
			continue;
		}
		nopen++;
		shm->snd[i].port = port;
		sock_dst(&args[i].dst, cfg.daddr, dport);
		send_report(1, i, 1, port, NULL);
	}
	if (nopen == cfg.threads) {
		for (i = 0; i < cfg.threads; i++) {
			int e = pthread_create(&th[i], NULL,
					       cfg.mode == M_STREAM ? stream_sender :
					       rdma_mode() ? rdma_initiator :
					       ping_client, &args[i]);
			if (e) {
				fprintf(stderr, PROG ": pthread_create: %s\n", strerror(e));
				atomic_store(&shm->failed, 1);
				atomic_store(&shm->stop, 1);
				break;
			}
			started[i] = true;
		}
		for (;;) {
			bool all = true;

			for (i = 0; i < cfg.threads; i++)
				if (started[i] && !atomic_load(&shm->snd[i].done))
					all = false;
			if (all)
				break;
			if (stopping())
				for (i = 0; i < cfg.threads; i++)
					if (started[i] && !atomic_load(&shm->snd[i].done))
						pthread_kill(th[i], SIGUSR1);
			sleep_ns(10 * MSEC);
		}
		for (i = 0; i < cfg.threads; i++)
			if (started[i])
				pthread_join(th[i], NULL);
		/* the echo server must not mistake closed clients for errors */
		atomic_store(&shm->stop, 1);
		if (cfg.mode == M_PINGPONG && !atomic_load(&shm->failed))
			ping_summarize(args, cfg.threads);
		if (rdma_mode() && !atomic_load(&shm->failed))
			rdma_summarize(args, cfg.threads);
	}
	for (i = 0; i < cfg.threads; i++) {
		if (args[i].fd >= 0)
			close(args[i].fd);
		free(args[i].samples);
	}
	free(args);
	free(th);
	free(started);
}

/* ------------------------------------------------------------------ */
/* Controller                                                          */

struct end {
	const char *name;
	bool running;
	pid_t pid;		/* process mode */
	pthread_t th;		/* --inproc */
	uint16_t dport;
	int status;
};

static void *passive_thread(void *arg)
{
	(void)arg;
	run_passive();
	return NULL;
}

static void *active_thread(void *arg)
{
	struct end *e = arg;

	run_active(e->dport);
	return NULL;
}

static int start_end(struct end *e, bool active)
{
	e->running = false;
	if (cfg.inproc) {
		int r = pthread_create(&e->th, NULL,
				       active ? active_thread : passive_thread, e);
		if (r) {
			fprintf(stderr, PROG ": pthread_create: %s\n", strerror(r));
			return -1;
		}
		e->running = true;
		return 0;
	}
	fflush(NULL);
	e->pid = fork();
	if (e->pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		return -1;
	}
	if (e->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(go_pipe[1]);
		close(report_pipe[0]);
		if (active)
			run_active(e->dport);
		else
			run_passive();
		_exit(atomic_load(&shm->failed) ? 1 : 0);
	}
	e->running = true;
	return 0;
}

/* Has the end finished?  Reaps it if so. */
static bool end_finished(struct end *e)
{
	if (!e->running)
		return true;
	if (cfg.inproc) {
		if (pthread_tryjoin_np(e->th, NULL) == 0)
			e->running = false;
	} else {
		int st = 0;
		pid_t r = waitpid(e->pid, &st, WNOHANG);

		if (r == e->pid || (r < 0 && errno == ECHILD)) {
			e->running = false;
			e->status = st;
			if (r == e->pid && WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) {
				fprintf(stderr, PROG ": %s process killed by signal %d\n",
					e->name, WTERMSIG(st));
				atomic_store(&shm->failed, 1);
			}
		}
	}
	return !e->running;
}

static void end_signal(struct end *e, int sig)
{
	if (!e->running)
		return;
	if (cfg.inproc)
		pthread_kill(e->th, sig);
	else
		kill(e->pid, sig);
}

/*
 * Stop an end: it has STOP_GRACE to notice shm->stop (nudged with SIGUSR1),
 * then a process gets SIGKILL.  Returns false if it could not be stopped.
 */
static bool end_stop(struct end *e)
{
	const char *name = e->name;
	uint64_t deadline = now_ns() + STOP_GRACE;

	atomic_store(&shm->stop, 1);
	while (!end_finished(e)) {
		if (now_ns() >= deadline) {
			if (cfg.inproc) {
				fprintf(stderr, PROG ": %s threads did not stop\n", name);
				return false;
			}
			fprintf(stderr, PROG ": %s process did not stop; killing it\n",
				name);
			kill(e->pid, SIGKILL);
			waitpid(e->pid, NULL, 0);
			e->running = false;
			return false;
		}
		end_signal(e, SIGUSR1);
		sleep_ns(20 * MSEC);
	}
	return true;
}

/* Read the setup reports of one end; false if any is an error. */
static bool collect_reports(struct end *e, int want, uint16_t *port)
{
	uint64_t deadline = now_ns() + sec2ns(cfg.timeout) + 5 * NSEC;
	int got = 0;
	bool ok = true;

	while (got < want) {
		struct report r;
		uint64_t now = now_ns();
		ssize_t n;

		if (interrupted)
			return false;
		if (now >= deadline) {
			fprintf(stderr, PROG ": %s end did not report its setup in time\n",
				e->name);
			return false;
		}
		if (wait_fd(report_pipe[0], POLLIN, 50 * MSEC) <= 0) {
			if (end_finished(e)) {
				/* it may have written before exiting */
				if (wait_fd(report_pipe[0], POLLIN, 0) > 0)
					continue;
				fprintf(stderr, PROG ": %s end exited during setup\n",
					e->name);
				return false;
			}
			continue;
		}
		n = read(report_pipe[0], &r, sizeof(r));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(r)) {
			fprintf(stderr, PROG ": setup report pipe broken\n");
			return false;
		}
		got++;
		if (!r.ok && !r.who && atomic_load(&shm->unsupported)) {
			ok = false;	/* reported as "unsupported" */
		} else if (!r.ok) {
			if (r.who && cfg.threads > 1)
				fprintf(stderr, PROG ": %s end, socket %d: %s\n",
					e->name, r.idx, r.msg);
			else
				fprintf(stderr, PROG ": %s end: %s\n", e->name, r.msg);
			ok = false;
		} else if (port) {
			*port = r.port;
		}
	}
	return ok;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_common(FILE *f, const char *mode)
{
	fprintf(f, "{\"tool\":\"rds-bench\",\"time\":%lld,\"label\":",
		(long long)time(NULL));
	json_str(f, cfg.label);
	fprintf(f, ",\"mode\":\"%s\",\"family\":%d,\"saddr\":\"%s\",\"daddr\":\"%s\","
		"\"size\":%u,\"threads\":%d,\"inproc\":%s,\"blocking\":%s,"
		"\"transport\":%d,\"duration_s\":%.3f,\"warmup_s\":%.3f,"
		"\"count\":%" PRIu64 ",\"sndbuf\":%" PRIu64 ",\"rcvbuf\":%" PRIu64
		",\"max_inflight\":%" PRIu64 ",\"max_inflight_msgs\":%" PRIu64,
		mode, cfg.family, cfg.saddr_s, cfg.daddr_s, cfg.size, cfg.threads,
		cfg.inproc ? "true" : "false", cfg.blocking ? "true" : "false",
		cfg.transport, cfg.duration, cfg.warmup, cfg.count, cfg.sndbuf,
		cfg.rcvbuf, cfg.max_inflight, cfg.max_inflight_msgs);
}

/* Append the text of one JSON line with a single write (O_APPEND). */
static void json_emit(char *text, size_t len)
{
	int fd;

	if (!cfg.json)
		return;
	fd = open(cfg.json, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		fprintf(stderr, PROG ": cannot write %s: %s\n", cfg.json,
			strerror(errno));
	if (fd >= 0)
		close(fd);
}

static int report_stream(void)
{
	struct rx_result *rx = &shm->rx;
	uint64_t sent = 0, enobufs = 0, eagain = 0, waits = 0;
	double rate, mbps;
	char lbl[300] = "";
	int i, errs;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	for (i = 0; i < cfg.threads; i++) {
		sent += atomic_load(&shm->snd[i].msgs);
		enobufs += atomic_load(&shm->snd[i].enobufs);
		eagain += atomic_load(&shm->snd[i].eagain);
		waits += atomic_load(&shm->snd[i].waits);
	}
	if (!rx->valid || rx->elapsed <= 0) {
		fprintf(stderr, PROG ": stream: no measurement\n");
		return 1;
	}
	rate = (double)rx->msgs / rx->elapsed;
	mbps = (double)rx->bytes / rx->elapsed / 1e6;
	errs = rx->bad_len || rx->bad_data || rx->seq_err || rx->unknown_src ||
	       rx->bad_addr;
	if (cfg.label[0])
		snprintf(lbl, sizeof(lbl), "  [%s]", cfg.label);
	printf("stream   fam %-2d size %-7u thr %-2d %12.0f msgs/s %10.2f MB/s | "
	       "rx %" PRIu64 " msgs in %.3f s, tx %" PRIu64 ", ENOBUFS %" PRIu64
	       ", EAGAIN %" PRIu64 ", window %" PRIu64 ", bad len %" PRIu64
	       " data %" PRIu64 " seq %" PRIu64 "%s\n",
	       cfg.family, cfg.size, cfg.threads, rate, mbps, rx->msgs, rx->elapsed,
	       sent, enobufs, eagain, waits, rx->bad_len,
	       rx->bad_data + rx->unknown_src, rx->seq_err, lbl);
	fflush(stdout);
	if (rx->bad_len || rx->bad_data || rx->seq_err || rx->unknown_src)
		fprintf(stderr, PROG ": WARNING: the receiver saw bad messages "
			"(length %" PRIu64 ", content %" PRIu64 ", sequence %" PRIu64
			", unknown source %" PRIu64 "); only the good ones were "
			"counted\n", rx->bad_len, rx->bad_data, rx->seq_err,
			rx->unknown_src);
	if (rx->bad_addr)
		fprintf(stderr, PROG ": WARNING: recvmsg gave %" PRIu64 " messages a "
			"source address that is not the sender's (%s:port); they "
			"were matched to senders by their header\n", rx->bad_addr,
			cfg.saddr_s);

	if (cfg.json && (f = open_memstream(&text, &len))) {
		json_common(f, "stream");
		fprintf(f, ",\"ok\":%s,\"elapsed_s\":%.6f,\"msgs\":%" PRIu64
			",\"bytes\":%" PRIu64 ",\"msgs_per_s\":%.3f,\"mb_per_s\":%.6f,"
			"\"sent\":%" PRIu64 ",\"enobufs\":%" PRIu64 ",\"eagain\":%" PRIu64
			",\"window_waits\":%" PRIu64 ",\"bad_len\":%" PRIu64 ",\"bad_data\":%" PRIu64
			",\"seq_errors\":%" PRIu64 ",\"unknown_src\":%" PRIu64 ",\"bad_src_addr\":%" PRIu64
			"}\n",
			errs ? "false" : "true", rx->elapsed, rx->msgs, rx->bytes, rate,
			mbps, sent, enobufs, eagain, waits, rx->bad_len, rx->bad_data,
			rx->seq_err, rx->unknown_src, rx->bad_addr);
		fclose(f);
		json_emit(text, len);
		free(text);
	}
	return errs ? 3 : 0;
}

static int report_pingpong(void)
{
	struct pp_result *pp = &shm->pp;
	uint64_t enobufs = 0, eagain = 0;
	char lbl[300] = "";
	char *text = NULL;
	size_t len = 0;
	int i, errs;
	FILE *f;

	for (i = 0; i < cfg.threads; i++) {
		enobufs += atomic_load(&shm->snd[i].enobufs);
		eagain += atomic_load(&shm->snd[i].eagain);
	}
	enobufs += atomic_load(&shm->srv.enobufs);
	eagain += atomic_load(&shm->srv.eagain);
	if (!pp->valid || !pp->rtts) {
		fprintf(stderr, PROG ": pingpong: no measurement\n");
		return 1;
	}
	errs = pp->bad_len || pp->bad_data || pp->lost;
	if (cfg.label[0])
		snprintf(lbl, sizeof(lbl), "  [%s]", cfg.label);
	printf("pingpong fam %-2d size %-7u thr %-2d %12.0f rt/s   p50 %.1f p99 %.1f "
	       "p999 %.1f us | n %" PRIu64 " in %.3f s, min %.1f mean %.1f max %.1f us,"
	       " lost %" PRIu64 ", stale %" PRIu64 ", bad %" PRIu64 ", ENOBUFS %"
	       PRIu64 ", EAGAIN %" PRIu64 "%s\n",
	       cfg.family, cfg.size, cfg.threads, pp->rate, pp->p50, pp->p99,
	       pp->p999, pp->rtts, pp->elapsed, pp->min, pp->mean, pp->max,
	       pp->lost, pp->stale, pp->bad_len + pp->bad_data, enobufs, eagain, lbl);
	fflush(stdout);
	if (errs)
		fprintf(stderr, PROG ": WARNING: %" PRIu64 " echoes lost, %" PRIu64
			" with a bad length, %" PRIu64 " with bad content\n",
			pp->lost, pp->bad_len, pp->bad_data);

	if (cfg.json && (f = open_memstream(&text, &len))) {
		json_common(f, "pingpong");
		fprintf(f, ",\"ok\":%s,\"elapsed_s\":%.6f,\"round_trips\":%" PRIu64
			",\"rt_per_s\":%.3f,\"msgs_per_s\":%.3f,\"mb_per_s\":%.6f,"
			"\"rtt_p50_us\":%.3f,\"rtt_p99_us\":%.3f,\"rtt_p999_us\":%.3f,"
			"\"rtt_min_us\":%.3f,\"rtt_mean_us\":%.3f,\"rtt_max_us\":%.3f,"
			"\"lost\":%" PRIu64 ",\"stale\":%" PRIu64 ",\"bad_len\":%" PRIu64
			",\"bad_data\":%" PRIu64 ",\"enobufs\":%" PRIu64 ",\"eagain\":%"
			PRIu64 "}\n",
			errs ? "false" : "true", pp->elapsed, pp->rtts, pp->rate, pp->rate,
			pp->rate * cfg.size / 1e6, pp->p50, pp->p99, pp->p999, pp->min,
			pp->mean, pp->max, pp->lost, pp->stale, pp->bad_len, pp->bad_data,
			enobufs, eagain);
		fclose(f);
		json_emit(text, len);
		free(text);
	}
	return errs ? 3 : 0;
}

static int report_rdma(void)
{
	struct rdma_result *rd = &shm->rd;
	struct target_result *tg = &shm->tg;
	uint64_t word_bad = 0;
	char lbl[300] = "";
	char *text = NULL;
	size_t len = 0;
	double mbps;
	int errs;
	FILE *f;

	if (!rd->valid || rd->elapsed <= 0) {
		fprintf(stderr, PROG ": %s: no measurement\n", mode_name());
		return 1;
	}
	/* every fetch-and-add added 1, and every one of them completed */
	if (cfg.mode == M_ATOMIC && tg->word_valid && tg->word != rd->completed)
		word_bad = 1;
	mbps = rd->rate * cfg.size / 1e6;
	errs = rd->bad_data || tg->bad_len || tg->bad_data || tg->seq_err ||
	       tg->unknown_src || word_bad;
	if (cfg.label[0])
		snprintf(lbl, sizeof(lbl), "  [%s]", cfg.label);
	printf("%-10s fam %-2d size %-7u thr %-2d win %-4u %12.0f ops/s %10.2f MB/s | "
	       "n %" PRIu64 " in %.3f s, issued %" PRIu64 ", completed %" PRIu64
	       ", carriers %" PRIu64 ", ENOBUFS %" PRIu64 ", EAGAIN %" PRIu64
	       ", bad len %" PRIu64 " data %" PRIu64 " seq %" PRIu64 "%s\n",
	       mode_name(), cfg.family, cfg.size, cfg.threads, cfg.window, rd->rate,
	       mbps, rd->ops, rd->elapsed, rd->issued, rd->completed, tg->carriers,
	       rd->enobufs, rd->eagain, tg->bad_len + tg->unknown_src,
	       rd->bad_data + tg->bad_data + word_bad, tg->seq_err, lbl);
	fflush(stdout);
	if (rd->bad_data || tg->bad_data || word_bad)
		fprintf(stderr, PROG ": WARNING: wrong data: %s\n",
			cfg.mode == M_RDMA_READ ? "the buffer read does not hold the "
			"target's pattern" : cfg.mode == M_RDMA_WRITE ? "the target's "
			"region does not hold the pattern written" : "the target's "
			"word does not count every fetch-and-add");
	if (word_bad)
		fprintf(stderr, PROG ": WARNING: the word is %" PRIu64 " after %"
			PRIu64 " fetch-and-adds of 1\n", tg->word, rd->completed);
	if (tg->bad_len || tg->seq_err || tg->unknown_src)
		fprintf(stderr, PROG ": WARNING: the target saw bad carrier messages "
			"(length %" PRIu64 ", sequence %" PRIu64 ", unknown source %"
			PRIu64 ")\n", tg->bad_len, tg->seq_err, tg->unknown_src);

	if (cfg.json && (f = open_memstream(&text, &len))) {
		json_common(f, mode_name());
		fprintf(f, ",\"ok\":%s,\"supported\":true,\"elapsed_s\":%.6f,"
			"\"window\":%u,\"ops\":%" PRIu64 ",\"bytes\":%" PRIu64
			",\"ops_per_s\":%.3f,\"mb_per_s\":%.6f,\"issued\":%" PRIu64
			",\"completed\":%" PRIu64 ",\"carriers\":%" PRIu64
			",\"enobufs\":%" PRIu64 ",\"eagain\":%" PRIu64 ",\"bad_len\":%"
			PRIu64 ",\"bad_data\":%" PRIu64 ",\"seq_errors\":%" PRIu64
			",\"unknown_src\":%" PRIu64 "}\n",
			errs ? "false" : "true", rd->elapsed, cfg.window, rd->ops,
			rd->bytes, rd->rate, mbps, rd->issued, rd->completed,
			tg->carriers, rd->enobufs, rd->eagain, tg->bad_len,
			rd->bad_data + tg->bad_data + word_bad, tg->seq_err,
			tg->unknown_src);
		fclose(f);
		json_emit(text, len);
		free(text);
	}
	return errs ? 3 : 0;
}

/* No RDMA on this family or transport: a result that says so, exit 4. */
static int report_unsupported(void)
{
	char lbl[300] = "";
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (cfg.label[0])
		snprintf(lbl, sizeof(lbl), "  [%s]", cfg.label);
	printf("%-10s fam %-2d size %-7u unsupported: %s%s\n", mode_name(),
	       cfg.family, cfg.size, shm->unsup_msg, lbl);
	fflush(stdout);
	if (cfg.json && (f = open_memstream(&text, &len))) {
		json_common(f, mode_name());
		fprintf(f, ",\"ok\":false,\"supported\":false,\"window\":%u,"
			"\"reason\":", cfg.window);
		json_str(f, shm->unsup_msg);
		fprintf(f, "}\n");
		fclose(f);
		json_emit(text, len);
		free(text);
	}
	return 4;
}

/*
 * Check the family before starting anything: socket(), buffer sizes,
 * transport, bind on both addresses.  Returns 0 or 1 (error printed).
 */
static int preflight(bool verbose)
{
	char err[400];
	uint16_t port;
	int snd = 0, rcv = 0;
	int fd = open_sock(cfg.daddr, &port, err, sizeof(err), &snd, &rcv);

	if (fd < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	/* (the messages of the RDMA modes are 8-byte carriers) */
	if (!rdma_mode() && snd > 0 && (uint64_t)snd / 2 < cfg.size)
		fprintf(stderr, PROG ": WARNING: effective SO_SNDBUF is %d bytes; "
			"RDS refuses messages above half of it (%u requested): run as "
			"root or raise net.core.wmem_max\n", snd, cfg.size);
	else if (verbose && snd > 0 && (uint64_t)snd < cfg.sndbuf)
		fprintf(stderr, PROG ": note: SO_SNDBUF is %d, below the %" PRIu64
			" asked for\n", snd, cfg.sndbuf);
	if (!rdma_mode() && rcv > 0 && (uint64_t)rcv / 2 < cfg.size)
		fprintf(stderr, PROG ": WARNING: effective SO_RCVBUF is %d bytes, "
			"below one message: the receiver will be congested all the "
			"time; run as root or raise net.core.rmem_max\n", rcv);
	if (cfg.saddr.s_addr != cfg.daddr.s_addr) {
		int fd2 = open_sock(cfg.saddr, &port, err, sizeof(err), NULL, NULL);

		if (fd2 < 0) {
			fprintf(stderr, PROG ": %s\n", err);
			close(fd);
			return 1;
		}
		close(fd2);
	}
	close(fd);
	return 0;
}

/* probe: open both ends in this process and pass one message. */
static int run_probe(void)
{
	char err[400], m[500];
	uint16_t rport, sport;
	struct sockaddr_in dst, from;
	uint8_t *buf = xmalloc((size_t)cfg.size + 1);
	int rfd, sfd, mflags, r, rc = 1;
	uint64_t e1 = 0, e2 = 0, deadline;

	if (preflight(false))
		return 1;
	rfd = open_sock(cfg.daddr, &rport, err, sizeof(err), NULL, NULL);
	if (rfd < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	sfd = open_sock(cfg.saddr, &sport, err, sizeof(err), NULL, NULL);
	if (sfd < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		close(rfd);
		return 1;
	}
	memcpy(buf, pattern, cfg.size);
	put_hdr(buf, 0, 0);
	sock_dst(&dst, cfg.daddr, rport);
	deadline = now_ns() + sec2ns(cfg.timeout);
	r = send_msg(sfd, buf, cfg.size, &dst, &shm->snd[0], &e1, &e2, deadline);
	if (r) {
		if (r > 0)
			snprintf(m, sizeof(m), "sendto: still refused after %.1f s "
				 "(%" PRIu64 " ENOBUFS, %" PRIu64 " EAGAIN)",
				 cfg.timeout, e1, e2);
		else
			describe(m, sizeof(m), "sendto", -r, send_hint(-r));
		fprintf(stderr, PROG ": probe family %d: %s\n", cfg.family, m);
		goto out;
	}
	for (;;) {
		ssize_t n = recv_one(rfd, buf, (size_t)cfg.size + 1, &from, &mflags);
		uint64_t seq, now;
		bool hs;

		if (n >= 0) {
			if (check_msg(buf, n, mflags, &seq, &hs) != V_OK) {
				fprintf(stderr, PROG ": probe family %d: the message came "
					"back damaged (%zd bytes)\n", cfg.family, n);
				goto out;
			}
			break;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			describe(m, sizeof(m), "recvmsg", errno, NULL);
			fprintf(stderr, PROG ": probe family %d: %s\n", cfg.family, m);
			goto out;
		}
		now = now_ns();
		if (now >= deadline) {
			fprintf(stderr, PROG ": probe family %d: the message did not "
				"arrive within %.1f s\n", cfg.family, cfg.timeout);
			goto out;
		}
		wait_fd(rfd, POLLIN, deadline - now < IDLE_SLICE ? deadline - now
							  : IDLE_SLICE);
	}
	printf("probe    fam %-2d ok: %s:%u -> %s:%u, %u bytes (%s)\n", cfg.family,
	       cfg.saddr_s, sport, cfg.daddr_s, rport, cfg.size, cfg.family_src);
	rc = 0;
out:
	close(sfd);
	close(rfd);
	free(buf);
	return rc;
}

static int run_bench(void)
{
	bool stream = cfg.mode == M_STREAM;
	struct end passive = {
		.name = stream ? "receiving" : rdma_mode() ? "target" : "echo server",
	};
	struct end active = {
		.name = stream ? "sending" : rdma_mode() ? "initiator" : "client",
	};
	struct end *meas, *other;
	uint16_t dport = 0;
	uint64_t stall = sec2ns(cfg.timeout) + 5 * NSEC;
	int rc = 0;

	if (preflight(true))
		return 1;
	if (pipe(go_pipe) < 0 || pipe(report_pipe) < 0) {
		fprintf(stderr, PROG ": pipe: %s\n", strerror(errno));
		return 1;
	}
	if (start_end(&passive, false) < 0)
		return 1;
	if (!collect_reports(&passive, 1, &dport))
		goto abort;
	active.dport = dport;
	if (start_end(&active, true) < 0)
		goto abort;
	if (!collect_reports(&active, cfg.threads, NULL))
		goto abort;

	/* Go. */
	beat(now_ns());
	close(go_pipe[1]);
	go_pipe[1] = -1;

	meas = stream ? &passive : &active;
	other = stream ? &active : &passive;
	while (!end_finished(meas)) {
		uint64_t now = now_ns();
		uint64_t hb = atomic_load(&shm->heartbeat);

		if (interrupted) {
			fprintf(stderr, PROG ": interrupted\n");
			atomic_store(&shm->failed, 1);
			break;
		}
		if (now > hb && now - hb > stall) {
			fprintf(stderr, PROG ": the %s end shows no progress for "
				"%.0f s; stopping it\n", meas->name,
				(double)stall / 1e9);
			atomic_store(&shm->failed, 1);
			break;
		}
		(void)end_finished(other);	/* reaps it; a crash marks failure */
		if (atomic_load(&shm->failed))
			break;
		sleep_ns(10 * MSEC);
	}
	atomic_store(&shm->stop, 1);
	if (!end_stop(meas))
		atomic_store(&shm->failed, 1);
	if (!end_stop(other))
		atomic_store(&shm->failed, 1);
	if (interrupted)
		return 130;
	if (atomic_load(&shm->unsupported))
		return report_unsupported();
	if (atomic_load(&shm->failed))
		return 1;
	if (cfg.mode == M_STREAM)
		rc = report_stream();
	else if (rdma_mode())
		rc = report_rdma();
	else
		rc = report_pingpong();
	return rc;

abort:
	atomic_store(&shm->abort, 1);
	atomic_store(&shm->stop, 1);
	if (go_pipe[1] >= 0) {
		close(go_pipe[1]);
		go_pipe[1] = -1;
	}
	end_stop(&passive);
	end_stop(&active);
	if (interrupted)
		return 130;
	return atomic_load(&shm->unsupported) ? report_unsupported() : 1;
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [OPTIONS] MODE\n"
"\n"
"Benchmark RDS-style reliable datagram sockets (Linux RDS or rds_doca).\n"
"\n"
"Modes:\n"
"  stream     --threads senders -> one receiver; msgs/s and MB/s counted by\n"
"             the receiver, plus the senders' ENOBUFS/EAGAIN retries\n"
"  pingpong   client(s) -> echo server; round trips/s, RTT p50/p99/p999\n"
"  probe      socket(), bind() and one message to itself; exit 0 if it works\n"
"  rdma-write, rdma-read\n"
"             --threads initiators keep --window RDMA writes (reads) of\n"
"             --size bytes (default 64k) outstanding on a region the target\n"
"             registered with RDS_GET_MR; operations/s and MB/s, counted\n"
"             from the RDS_CMSG_RDMA_STATUS notices\n"
"  atomic     the same with fetch-and-adds of 1 on an 8-byte word;\n"
"             operations/s\n"
"\n"
"Options:\n"
"  -f, --family N      address family (default: " RDS_DOCA_FAMILY_PARAM "\n"
"                      if readable, else %d = AF_INET_OFFLOAD; 21 = AF_RDS)\n"
"  -a, --addr A        local IPv4 address of both ends (default 127.0.0.1)\n"
"      --saddr A, --local A\n"
"                      address the sending/client end binds\n"
"      --daddr A, --peer A\n"
"                      address the receiving/server end binds, which the\n"
"                      sending/client end sends to\n"
"  -s, --size BYTES    message size, 1..1m; suffixes k (1024), m (1048576)\n"
"                      (default 64; rdma-write and rdma-read: the size of\n"
"                      each operation, default 64k; atomic: always 8)\n"
"  -W, --window N      RDMA modes: operations each initiator keeps\n"
"                      outstanding, 1..%d (default 16)\n"
"  -d, --duration T    measured time, seconds (or 500ms) (default 2)\n"
"  -n, --count N       measure N messages (stream), round trips (pingpong)\n"
"                      or operations per initiator instead of a duration\n"
"  -w, --warmup T      unmeasured time after the first message (default 0.5)\n"
"  -t, --threads N     senders (stream), clients (pingpong) or initiators,\n"
"                      each with its own socket, 1..%d (default 1)\n"
"  -j, --json FILE     append one JSON object per result to FILE\n"
"  -l, --label TEXT    free text stored with the result\n"
"  -T, --transport N   setsockopt(SO_RDS_TRANSPORT, N) before bind\n"
"                      (Linux RDS: 0 IB, 2 TCP)\n"
"      --sndbuf BYTES  SO_SNDBUF for every socket (default 16m)\n"
"      --rcvbuf BYTES  SO_RCVBUF for every socket (default 16m)\n"
"      --timeout T     give up when the first message, an echo or further\n"
"                      traffic has not come for T seconds (default 10)\n"
"      --retry-us N    longest wait before retrying a send that failed with\n"
"                      ENOBUFS (default 1000)\n"
"      --max-inflight BYTES\n"
"                      stream: senders pause while more than this has been\n"
"                      sent but not yet received (default 2 x --rcvbuf;\n"
"                      0 = no limit).  Linux RDS applies no receive-side\n"
"                      congestion on loopback-bound sockets, so without it\n"
"                      a fast sender queues without bound in the receiver\n"
"      --max-inflight-msgs N\n"
"                      the same in messages (default 65536; 0 = no limit)\n"
"      --blocking      blocking sends (wait in the kernel for congestion to\n"
"                      clear) instead of MSG_DONTWAIT + poll + retry\n"
"      --inproc        run both ends as threads of one process instead of\n"
"                      two processes\n"
"      --verify        also compare every payload byte (costs CPU)\n"
"      --silent        RDMA modes: RDS_RDMA_SILENT operations on empty\n"
"                      messages; nothing is delivered to the target, which\n"
"                      checks only its memory at the end\n"
"  -h, --help          show this help\n"
"\n"
"Exit status: 0 ok, 1 run failed, 2 bad usage, 3 finished but bad messages\n"
"were seen (lost, damaged or out of sequence) or RDMA moved wrong data,\n"
"4 RDMA mode unsupported: the family or its transport has no RDMA (a result\n"
"line says so).\n",
		AF_INET_OFFLOAD, MAX_WINDOW, MAX_THREADS);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	exit(2);
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

/* 64, 4k, 64K, 1m, 1M (binary units). */
static bool parse_bytes(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v, mul = 1;

	if (!s || !*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	if (*end) {
		switch (*end) {
		case 'k': case 'K':
			mul = 1ull << 10;
			break;
		case 'm': case 'M':
			mul = 1ull << 20;
			break;
		case 'g': case 'G':
			mul = 1ull << 30;
			break;
		default:
			return false;
		}
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			return false;
	}
	if (v > (1ull << 40))
		return false;
	*out = v * mul;
	return true;
}

/* Seconds: 2, 1.5, 500ms, 2s. */
static bool parse_secs(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return false;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (*end && strcmp(end, "s"))
		return false;
	if (!(v >= 0 && v <= 86400))
		return false;
	*out = v;
	return true;
}

static void parse_addr(const char *opt, const char *s, struct in_addr *a,
		       char *txt)
{
	if (inet_pton(AF_INET, s, a) != 1)
		usage_error("invalid %s '%s': expected an IPv4 address such as "
			    "127.0.0.1", opt, s);
	inet_ntop(AF_INET, a, txt, INET_ADDRSTRLEN);
}

static void default_family(void)
{
	int fam = rds_doca_family_param();

	if (fam > 0) {
		cfg.family = fam;
		snprintf(cfg.family_src, sizeof(cfg.family_src),
			 "from " RDS_DOCA_FAMILY_PARAM);
	} else {
		cfg.family = AF_INET_OFFLOAD;
		snprintf(cfg.family_src, sizeof(cfg.family_src),
			 "default AF_INET_OFFLOAD");
	}
}

enum {
	O_SADDR = 256, O_DADDR, O_SNDBUF, O_RCVBUF, O_TIMEOUT, O_RETRY,
	O_BLOCKING, O_INPROC, O_VERIFY, O_SILENT, O_INFLIGHT, O_INFLIGHT_MSGS,
};

static const struct {
	const char *name;
	enum mode mode;
} modes[] = {
	{ "stream", M_STREAM },
	{ "pingpong", M_PINGPONG },
	{ "probe", M_PROBE },
	{ "rdma-write", M_RDMA_WRITE },
	{ "rdma-read", M_RDMA_READ },
	{ "atomic", M_ATOMIC },
};
#define MODE_LIST	"stream, pingpong, probe, rdma-write, rdma-read or atomic"

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family",	required_argument, NULL, 'f' },
		{ "addr",	required_argument, NULL, 'a' },
		{ "saddr",	required_argument, NULL, O_SADDR },
		{ "daddr",	required_argument, NULL, O_DADDR },
		{ "local",	required_argument, NULL, O_SADDR },
		{ "peer",	required_argument, NULL, O_DADDR },
		{ "size",	required_argument, NULL, 's' },
		{ "duration",	required_argument, NULL, 'd' },
		{ "count",	required_argument, NULL, 'n' },
		{ "warmup",	required_argument, NULL, 'w' },
		{ "threads",	required_argument, NULL, 't' },
		{ "window",	required_argument, NULL, 'W' },
		{ "json",	required_argument, NULL, 'j' },
		{ "label",	required_argument, NULL, 'l' },
		{ "transport",	required_argument, NULL, 'T' },
		{ "sndbuf",	required_argument, NULL, O_SNDBUF },
		{ "rcvbuf",	required_argument, NULL, O_RCVBUF },
		{ "timeout",	required_argument, NULL, O_TIMEOUT },
		{ "retry-us",	required_argument, NULL, O_RETRY },
		{ "max-inflight", required_argument, NULL, O_INFLIGHT },
		{ "max-inflight-msgs", required_argument, NULL, O_INFLIGHT_MSGS },
		{ "blocking",	no_argument,	   NULL, O_BLOCKING },
		{ "inproc",	no_argument,	   NULL, O_INPROC },
		{ "verify",	no_argument,	   NULL, O_VERIFY },
		{ "silent",	no_argument,	   NULL, O_SILENT },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool saddr_set = false, daddr_set = false, addr_set = false;
	struct in_addr addr;
	char addr_s[INET_ADDRSTRLEN];
	uint64_t v;
	int c;

	opterr = 0;
	inet_pton(AF_INET, "127.0.0.1", &addr);
	while ((c = getopt_long(argc, argv, ":f:a:s:d:n:w:t:W:j:l:T:h", opts,
				NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!parse_u64(optarg, &v) || v < 1 || v > 255)
				usage_error("invalid --family '%s': expected a number "
					    "1..255 (21 = AF_RDS, 25 = AF_INET_OFFLOAD)",
					    optarg);
			cfg.family = (int)v;
			snprintf(cfg.family_src, sizeof(cfg.family_src),
				 "--family %d", cfg.family);
			break;
		case 'a':
			parse_addr("--addr", optarg, &addr, addr_s);
			addr_set = true;
			break;
		case O_SADDR:
			parse_addr("--saddr", optarg, &cfg.saddr, cfg.saddr_s);
			saddr_set = true;
			break;
		case O_DADDR:
			parse_addr("--daddr", optarg, &cfg.daddr, cfg.daddr_s);
			daddr_set = true;
			break;
		case 's':
			if (!parse_bytes(optarg, &v) || v < 1 || v > MAX_MSG)
				usage_error("invalid --size '%s': expected 1..%u bytes, "
					    "optionally with a k or m suffix (64, 4k, "
					    "64k, 1m)", optarg, MAX_MSG);
			cfg.size = (uint32_t)v;
			cfg.size_set = true;
			break;
		case 'd':
			if (!parse_secs(optarg, &cfg.duration) || cfg.duration <= 0)
				usage_error("invalid --duration '%s': expected seconds "
					    "> 0 (e.g. 2, 1.5, 500ms)", optarg);
			break;
		case 'n':
			if (!parse_u64(optarg, &cfg.count) || cfg.count < 1)
				usage_error("invalid --count '%s': expected a positive "
					    "integer", optarg);
			break;
		case 'w':
			if (!parse_secs(optarg, &cfg.warmup))
				usage_error("invalid --warmup '%s': expected seconds "
					    ">= 0 (e.g. 0.5, 200ms)", optarg);
			break;
		case 't':
			if (!parse_u64(optarg, &v) || v < 1 || v > MAX_THREADS)
				usage_error("invalid --threads '%s': expected 1..%d",
					    optarg, MAX_THREADS);
			cfg.threads = (int)v;
			break;
		case 'W':
			if (!parse_u64(optarg, &v) || v < 1 || v > MAX_WINDOW)
				usage_error("invalid --window '%s': expected 1..%d "
					    "operations", optarg, MAX_WINDOW);
			cfg.window = (unsigned)v;
			break;
		case 'j':
			if (!*optarg)
				usage_error("--json needs a file name");
			cfg.json = optarg;
			break;
		case 'l':
			cfg.label = optarg;
			break;
		case 'T':
			if (!parse_u64(optarg, &v) || v > 255)
				usage_error("invalid --transport '%s': expected a "
					    "transport number (Linux RDS: 0 IB, 2 TCP)",
					    optarg);
			cfg.transport = (int)v;
			break;
		case O_SNDBUF:
		case O_RCVBUF:
			if (!parse_bytes(optarg, &v) || v < 1024 || v > (1ull << 30))
				usage_error("invalid --%s '%s': expected 1k..1g bytes",
					    c == O_SNDBUF ? "sndbuf" : "rcvbuf", optarg);
			if (c == O_SNDBUF)
				cfg.sndbuf = v;
			else
				cfg.rcvbuf = v;
			break;
		case O_TIMEOUT:
			if (!parse_secs(optarg, &cfg.timeout) || cfg.timeout < 0.01)
				usage_error("invalid --timeout '%s': expected seconds "
					    ">= 0.01", optarg);
			break;
		case O_RETRY:
			if (!parse_u64(optarg, &v) || v < 1 || v > 1000000)
				usage_error("invalid --retry-us '%s': expected "
					    "1..1000000", optarg);
			cfg.retry_us = (unsigned)v;
			break;
		case O_INFLIGHT:
			if (!parse_bytes(optarg, &v) || v > (1ull << 40))
				usage_error("invalid --max-inflight '%s': expected bytes "
					    "(0 = no limit), e.g. 32m", optarg);
			cfg.max_inflight = v;
			cfg.inflight_set = true;
			break;
		case O_INFLIGHT_MSGS:
			if (!parse_u64(optarg, &cfg.max_inflight_msgs))
				usage_error("invalid --max-inflight-msgs '%s': expected "
					    "a count (0 = no limit)", optarg);
			break;
		case O_BLOCKING:
			cfg.blocking = true;
			break;
		case O_INPROC:
			cfg.inproc = true;
			break;
		case O_VERIFY:
			cfg.verify = true;
			break;
		case O_SILENT:
			cfg.silent = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage_error("no mode given: expected " MODE_LIST);
	if (optind + 1 < argc)
		usage_error("unexpected argument '%s' (only one mode)", argv[optind + 1]);
	for (c = 0; c < (int)(sizeof(modes) / sizeof(modes[0])); c++)
		if (!strcmp(argv[optind], modes[c].name))
			cfg.mode = modes[c].mode;
	if (cfg.mode == M_NONE)
		usage_error("unknown mode '%s': expected " MODE_LIST, argv[optind]);
	if (cfg.mode == M_ATOMIC) {
		if (cfg.size_set && cfg.size != sizeof(uint64_t))
			usage_error("atomic works on 8-byte words: --size %u is not 8",
				    cfg.size);
		cfg.size = sizeof(uint64_t);
	} else if (rdma_mode() && !cfg.size_set) {
		cfg.size = 64u << 10;
	}

	if (!saddr_set) {
		cfg.saddr = addr;
		inet_ntop(AF_INET, &addr, cfg.saddr_s, sizeof(cfg.saddr_s));
	}
	if (!daddr_set) {
		cfg.daddr = addr;
		inet_ntop(AF_INET, &addr, cfg.daddr_s, sizeof(cfg.daddr_s));
	}
	(void)addr_set;
	if (cfg.family < 0)
		default_family();
	if (!cfg.inflight_set)
		cfg.max_inflight = 2 * cfg.rcvbuf;
	if (!rdma_mode() && cfg.sndbuf < cfg.size)
		usage_error("--sndbuf %" PRIu64 " is smaller than one %u-byte message",
			    cfg.sndbuf, cfg.size);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	uint32_t i;
	int rc;

	parse_args(argc, argv);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART: interrupts sends */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_int;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		fprintf(stderr, PROG ": mmap: %s\n", strerror(errno));
		return 1;
	}
	memset(shm, 0, sizeof(*shm));
	pattern = xmalloc(cfg.size);
	for (i = 0; i < cfg.size; i++)
		pattern[i] = (uint8_t)(i * 131u + 7u);

	if (cfg.mode == M_PROBE)
		rc = run_probe();
	else
		rc = run_bench();
	return rc;
}
