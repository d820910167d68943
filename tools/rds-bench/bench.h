/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
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
 *   reqresp   clients keep a window of requests outstanding on one server,
 *             each mapping a buffer (RDS_CMSG_RDMA_MAP); the server answers
 *             each with a short response that RDMA-writes (or reads) the
 *             buffer, as rds-stress does: transactions/s and RTTs.
 *
 * The two ends run as separate processes by default (--inproc: threads of
 * one process).  They bind to port 0, report their port to the controlling
 * process through a pipe and start together when it closes the "go" pipe.
 * Every wait is bounded (ppoll timeouts, a heartbeat watched by the
 * controller, SIGUSR1/SIGKILL for stuck ends), so a lost message or a stuck
 * socket ends a run with an error instead of hanging it.
 */
#ifndef RDS_BENCH_H
#define RDS_BENCH_H

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
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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
#define MAX_SOCKETS		64	/* per sender / client (--sockets) */
#define MAX_MSG			RDS_DOCA_MAX_MSG_SIZE	/* 1 MiB */
/* stream, pingpong and probe: rds_doca with RDS_DOCA_MSG_MAX raised */
#define MAX_MSG_LARGE		RDS_DOCA_MSG_SIZE_LIMIT	/* 64 MiB */
#define HDR_MAGIC		0x52445342u		/* "RDSB" */
#define NSEC			1000000000ull
#define MSEC			1000000ull
#define IDLE_SLICE		(100 * MSEC)	/* longest single wait */
#define STOP_GRACE		(3 * NSEC)	/* ends get this long to stop */

enum mode { M_NONE, M_STREAM, M_PINGPONG, M_PROBE, M_RDMA_WRITE, M_RDMA_READ,
	    M_ATOMIC, M_REQRESP };

struct config {
	enum mode mode;
	int family;
	char family_src[96];
	struct in_addr saddr, daddr;	/* sender/client side, receiver/server side */
	char saddr_s[INET_ADDRSTRLEN], daddr_s[INET_ADDRSTRLEN];
	uint32_t size;
	bool size_set;
	unsigned window;		/* RDMA modes: operations outstanding */
	bool window_set;
	uint32_t rdma_size;		/* reqresp: bytes each response moves */
	uint32_t ack_size;		/* reqresp: the response's length */
	bool rr_read;			/* reqresp: RDMA reads, not writes */
	bool notify;			/* reqresp: RDS_RDMA_NOTIFY_ME responses */
	double duration, warmup, timeout;
	uint64_t count;
	int threads;
	int sockets;			/* stream, pingpong: per thread */
	const char *json;
	const char *label;
	int transport;			/* -1: leave the default */
	int busy_poll;			/* SO_BUSY_POLL, -1: leave it */
	uint64_t sndbuf, rcvbuf;
	uint64_t max_inflight;		/* bytes, all senders; 0: no limit */
	uint64_t max_inflight_msgs;	/* messages, all senders; 0: no limit */
	bool inflight_set;
	unsigned retry_us;
	bool inproc, blocking, verify, silent;
	bool zerocopy;			/* stream: MSG_ZEROCOPY sends */
	const char *netns_active;	/* a named network namespace, or NULL */
	const char *netns_passive;
};

extern struct config cfg;

/* First bytes of every message (as much of it as fits). */
struct msg_hdr {
	uint64_t seq;
	uint32_t magic;
	uint32_t idx;
};

/*
 * reqresp: first bytes of a request and of its response (both at least
 * this long); the response echoes the request's seq, idx and slot.
 */
struct rr_hdr {
	uint64_t seq;		/* per client, from 0 */
	uint32_t magic;		/* RR_REQ_MAGIC or RR_ACK_MAGIC */
	uint16_t idx;		/* the client's index */
	uint16_t slot;		/* the request's slot in the client's window */
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

/* reqresp: what the server saw. */
struct rr_result {
	uint64_t requests, responses, notices, rdma_failed;
	uint64_t bad_len, bad_data, seq_err, unknown_src, no_cookie;
	uint64_t rdma_bad;		/* reads that fetched wrong bytes */
};

/* Lives in a MAP_SHARED mapping, so both processes see it. */
struct shared {
	_Atomic int abort;		/* setup failed: do not run */
	_Atomic int stop;		/* run over (or failed): every end finishes */
	_Atomic int failed;
	_Atomic uint64_t heartbeat;	/* measuring end's last sign of life */
	struct end_stats snd[MAX_THREADS];	/* senders / ping clients */
	/* stream: the port of every sending socket, a sender's together */
	uint16_t sock_port[MAX_THREADS * MAX_SOCKETS];
	struct end_stats srv;			/* echo server */
	struct rx_seen seen[MAX_THREADS];	/* stream in-flight window */
	struct rx_result rx;
	struct pp_result pp;
	struct rdma_result rd;
	struct target_result tg;
	struct rr_result rr;
	_Atomic int unsupported;	/* no RDMA: unsup_msg says why */
	char unsup_msg[400];
};

extern struct shared *shm;
extern volatile sig_atomic_t interrupted;
extern int go_pipe[2];
extern int report_pipe[2];
extern uint8_t *pattern;	/* reference payload, cfg.size bytes (reqresp:
				 * and cfg.ack_size) */

struct report {
	int who;		/* 0: passive end, 1: active end */
	int idx;
	int ok;
	uint16_t port;
	char msg[400];
};

enum { PH_FIRST, PH_WARM, PH_MEAS };

struct src_state {
	bool used;		/* this slot of the table holds a source */
	uint32_t addr;
	uint16_t port;
	int sidx;		/* sending socket's index, -1 if not one of ours */
	bool addr_bad;		/* recvmsg reported an address no sender has */
	uint64_t next;		/* expected sequence number */
};

struct active_arg {
	int idx;
	int fds[MAX_SOCKETS];	/* --sockets of them (other modes: one) */
	struct sockaddr_in dst;
	/* pingpong results */
	uint64_t *samples;
	size_t nsamples, cap;
	uint64_t lost, stale, bad_len, bad_data;
	uint64_t t_start, t_stop;
	bool measured;
	/* RDMA results (t_start, t_stop, measured and bad_data above too) */
	uint64_t ops, op_bytes, issued, completed, enobufs, eagain;
	/* reqresp: RDMA'd bytes found wrong (bad_data: the responses) */
	uint64_t rdma_bad;
};

/*
 * Add @a's rate of @count things over its measured time to *@rate and
 * raise *@elapsed to that time.  False if @a measured nothing.
 */
static inline bool active_rate(const struct active_arg *a, uint64_t count,
			       double *rate, double *elapsed)
{
	double el;

	if (!a->measured || a->t_stop <= a->t_start)
		return false;
	el = (double)(a->t_stop - a->t_start) / 1e9;
	*rate += (double)count / el;
	if (el > *elapsed)
		*elapsed = el;
	return true;
}

struct end {
	const char *name;
	bool running;
	pid_t pid;		/* process mode */
	pthread_t th;		/* --inproc */
	uint16_t dport;
	int status;
};

/* check_msg(): what a received message is */
enum { V_OK, V_LEN, V_DATA };

/* RDMA modes: operations outstanding at most */
#define MAX_WINDOW		4096
/* alignment of every buffer registered for RDMA */
#define REGION_ALIGN		4096

/* The RDMA target's registered region (rdma.c) */
struct bench_region {
	uint8_t *buf;
	size_t len;
	uint64_t cookie;
};

extern struct bench_region region;

/* util.c: small helpers */
uint64_t now_ns(void);
uint64_t sec2ns(double s);
void sleep_ns(uint64_t ns);
void *xmalloc(size_t n);
bool stopping(void);
void beat(uint64_t now);
void __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...);
const char *family_name(int fam);
const char *socket_hint(int e);
const char *bind_hint(int e);
const char *send_hint(int e);
void describe(char *out, size_t len, const char *what, int e,
	      const char *hint);

/* sockets.c: sockets */
int open_sock(struct in_addr addr, uint16_t *port, char *err,
	      size_t errlen, int *snd_eff, int *rcv_eff);
void sock_dst(struct sockaddr_in *d, struct in_addr a, uint16_t port);
int wait_fd(int fd, short events, uint64_t ns);
int send_msg(int fd, const void *buf, size_t len,
	     const struct sockaddr_in *dst, struct end_stats *st,
	     uint64_t *enobufs, uint64_t *eagain, uint64_t deadline);
int send_msg_zc(int fd, const void *buf, size_t len,
		const struct sockaddr_in *dst, struct end_stats *st,
		uint64_t *enobufs, uint64_t *eagain, uint32_t cookie);
int zc_reap(int fd, uint32_t *cookies, int room);
ssize_t recv_one(int fd, void *buf, size_t cap,
		 struct sockaddr_in *from, int *mflags);
ssize_t recv_next(int fd, void *buf, size_t cap,
		  struct sockaddr_in *from, int *mflags, const char *who);
void put_hdr(uint8_t *buf, uint64_t seq, uint32_t idx);
int check_msg(const uint8_t *buf, ssize_t n, int mflags,
	      uint64_t *seq, bool *has_seq);
void on_int(int sig);
void on_usr1(int sig);
bool wait_go(void);
void send_report(int who, int idx, int ok, uint16_t port, const char *msg);

/* stream.c: stream */
void stream_receiver(int fd);
void *stream_sender(void *argp);

/* pingpong.c: pingpong */
void echo_server(int fd);
void *ping_client(void *argp);
void add_sample(struct active_arg *a, uint64_t v);
bool op_clock(struct active_arg *a, int *phase, uint64_t now,
	      uint64_t warm_end, uint64_t *t_end, bool *closing);
void op_account(struct active_arg *a, int *phase, uint64_t now, bool sample,
		uint64_t rtt, uint64_t bytes, uint64_t *warm_end,
		uint64_t *t_end, bool *closing);
void ping_summarize(struct active_arg *args, int n);

/* rdma.c: rdma and atomic operations */
bool rdma_mode(void);
const char *mode_name(void);
bool no_rdma_errno(int e);
const char *rdma_hint(int e);
void rdma_unsupported(const char *why);
int initiator_of(const struct sockaddr_in *from);
int target_register(int fd, char *err, size_t errlen, bool *unsup);
void rdma_target(int fd);
void *rdma_initiator(void *argp);
void rdma_summarize(struct active_arg *args, int n);

/* reqresp.c: requests and responses that carry RDMA */
void rr_server(int fd);
void *rr_client(void *argp);
void rr_summarize(struct active_arg *args, int n);

/* ends.c: the two ends */
void run_passive(void);
void run_active(uint16_t dport);

/* controller.c: controller */
int report_rdma(void);
int run_probe(void);
int run_bench(void);

#endif /* RDS_BENCH_H */
