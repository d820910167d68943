// SPDX-License-Identifier: GPL-2.0
/*
 * RDS between two hosts: one side of a check per process.
 *
 * Each mode plays one end; tests/userspace/cross_host.sh starts the two
 * ends on two hosts (--addr is this host's address, --peer the other's)
 * and starts a client only after its server printed "# ready":
 *
 *   echo         bind --addr:--port, send every message back to where it
 *                came from, until a "quit" message
 *   ping         round trips of several sizes, then a pipelined burst,
 *                against an echo server at --peer:--port
 *   stream-recv  bind --addr:--port, receive the sequenced messages
 *                0..--count-1 from --peer:--sport, each exactly once and
 *                in order, and acknowledge (a message "ack N" back to the
 *                sender) after message --ack-at - 1 and after the last
 *   stream-send  bind --addr:--port, send messages --from..--to-1 to
 *                --peer:--dport, wait for "ack --to", close
 *
 *   rdma-owner   bind --addr:--port, register memory for the peer that
 *                says "hello", hand it the cookies, check what the
 *                peer's operations did, free a region, until "quit"
 *   rdma-user    RDMA reads, writes and atomics through those cookies,
 *                against an rdma-owner at --peer:--port
 *   rdma-cong    both hosts at once: bind --addr:--port with a small
 *                receive buffer, register a region and swap cookies with
 *                --peer:--port, then send --count messages, each behind
 *                an RDMA write with RDS_RDMA_NOTIFY_ME into the peer's
 *                region, while reading the peer's messages slowly: each
 *                port turns congested and back again and again while
 *                the socket's own operations complete
 *
 * stream-send runs twice against one stream-recv, with the sending
 * host's module reloaded in between: the receiver, which stays up, must
 * see the restarted peer's messages as new ones.
 */
#include "rds_util.h"

#include <sys/mman.h>
#include <sys/uio.h>

#define STREAM_MAGIC 0x52445358u	/* "RDSX" */
#define QUIT "quit"
/* Socket buffers for the largest message (half of SO_SNDBUF is usable). */
#define BIG_BUF (4 << 20)
#define MAX_MSG (1 << 20)

struct stream_hdr {
	uint32_t magic;
	uint32_t seq;
	uint32_t len;		/* whole message */
	uint32_t body_sum;	/* fnv1a of the body */
};

static const char *opt_mode;
static int opt_port, opt_sport, opt_dport;
static long opt_count, opt_ack_at = -1, opt_from, opt_to;
static int opt_idle_timeout = 120;

static char buf[MAX_MSG + 64];
static char want[MAX_MSG + 64];

/* A socket bound to --addr:@port with big buffers, -1 after a failed check. */
static int open_bound(int port, const char *what)
{
	int fd = bound_socket_cfg(false, port, what);
	int sz = BIG_BUF;

	if (fd < 0)
		return -1;
	/* as root, past net.core.[rw]mem_max */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	return fd;
}

static int idle_ms(void)
{
	return opt_idle_timeout * 1000;
}

/* A server's socket: bound, then "# ready" for the script that waits. */
static int open_server(const char *what)
{
	int fd = open_bound(opt_port, what);

	if (fd >= 0)
		tap_diag("ready");
	return fd;
}

/* The next message on @fd, waiting up to --idle-timeout. */
static ssize_t next_msg(int fd, union rds_sa *from, int *flags)
{
	memset(from, 0, sizeof(*from));
	return recv_wait(fd, buf, sizeof(buf), from, flags, 0, idle_ms());
}

/* ---- echo / ping ---- */

static void mode_echo(void)
{
	union rds_sa from;
	long echoed = 0, foreign = 0, failed = 0;
	bool quit = false;
	int fd, flags;
	ssize_t n;

	fd = open_server("bind the echo socket");
	if (fd < 0)
		return;
	for (;;) {
		n = next_msg(fd, &from, &flags);
		if (n < 0)
			break;
		if (n == 0 && !(flags & MSG_TRUNC) && !sa_port(&from))
			continue;	/* a notification, not a message */
		{
			union rds_sa peer = cfg_sa(true, sa_port(&from));

			if (!sa_same(&from, &peer))
				foreign++;
		}
		if (n == (ssize_t)strlen(QUIT) && !memcmp(buf, QUIT, n)) {
			quit = true;
			break;
		}
		if (send_to(fd, &from, buf, n, 0) != n)
			failed++;
		else
			echoed++;
	}
	ok_diag(quit, "echo: the client said quit",
		"recvmsg: %s after %ld messages",
		errno == ETIME ? "nothing for --idle-timeout" : tap_errname(errno),
		echoed);
	is_eq(foreign, 0, "echo: every message came from the peer host");
	is_eq(failed, 0, "echo: every message was sent back");
	tap_diag("echo: %ld messages sent back", echoed);
	close(fd);
}

/* Send @len bytes of pattern @seed to the echo server, expect them back. */
static bool round_trip(int fd, const union rds_sa *srv, size_t len,
		       uint32_t seed, const char *what)
{
	union rds_sa from;
	int flags = 0;
	ssize_t n;
	long bad;

	pattern_fill(want, len, seed);
	if (send_to(fd, srv, want, len, 0) != (ssize_t)len)
		return ok_diag(0, what, "sendmsg: %s", tap_errname(errno));
	n = recv_wait(fd, buf, sizeof(buf), &from, &flags, 0, idle_ms());
	if (n < 0)
		return ok_diag(0, what, "no echo: %s",
			       errno == ETIME ? "timed out" : tap_errname(errno));
	if ((size_t)n != len)
		return ok_diag(0, what, "%zd bytes back, sent %zu", n, len);
	bad = pattern_check(buf, len, seed);
	if (bad >= 0)
		return ok_diag(0, what, "payload differs at byte %ld", bad);
	if (flags)
		return ok_diag(0, what, "msg_flags 0x%x", flags);
	if (!sa_same(&from, srv))
		return ok_diag(0, what, "echo from another address or port");
	return ok_diag(1, what, NULL);
}

static void mode_ping(void)
{
	static const size_t sizes[] = { 0, 1, 1000, 9000, 65536, MAX_MSG };
	union rds_sa srv = cfg_sa(true, opt_port), from;
	const int burst = 200;
	long sent = 0, got = 0, wrong = 0;
	char name[128];
	unsigned int i;
	int fd;

	fd = open_bound(0, "bind the client socket");
	if (fd < 0)
		return;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(name, sizeof(name), "ping: round trip of %zu bytes",
			 sizes[i]);
		round_trip(fd, &srv, sizes[i], i + 1, name);
	}

	/* many in flight at once: back complete and in order */
	for (i = 0; i < (unsigned int)burst; i++) {
		size_t len = 1 + (i * 7919u) % 8192;

		pattern_fill(want, len, 1000 + i);
		if (send_to(fd, &srv, want, len, 0) != (ssize_t)len)
			break;
		sent++;
	}
	for (i = 0; i < sent; i++) {
		size_t len = 1 + (i * 7919u) % 8192;
		ssize_t n = recv_wait(fd, buf, sizeof(buf), &from, NULL, 0,
				      idle_ms());

		if (n < 0)
			break;
		got++;
		if ((size_t)n != len || pattern_check(buf, n, 1000 + i) >= 0 ||
		    !sa_same(&from, &srv))
			wrong++;
	}
	is_eq(sent, burst, "ping: %d pipelined messages sent", burst);
	is_eq(got, sent, "ping: every pipelined message came back");
	is_eq(wrong, 0, "ping: pipelined echoes complete and in order");

	/* a port nobody is bound to: dropped there, the sender not told */
	sa_set_port(&srv, opt_port + 1);
	is_eq(send_to(fd, &srv, "lost", 4, 0), 4,
	      "ping: a message to an unbound port on the peer is accepted");
	sa_set_port(&srv, opt_port);
	round_trip(fd, &srv, 100, 77, "ping: round trip after it");

	is_eq(send_to(fd, &srv, QUIT, strlen(QUIT), 0), (ssize_t)strlen(QUIT),
	      "ping: quit sent");
	/* the echo server reads it before it exits; keep the socket open */
	stays_quiet(fd, 1000, NULL);
	close(fd);
}

/* ---- sequenced streams across a module reload ---- */

static size_t stream_len(uint32_t seq)
{
	return sizeof(struct stream_hdr) + (seq * 2654435761u >> 8) % 2048;
}

static void send_ack(int fd, const union rds_sa *to, long n,
		     long *failed)
{
	char m[32];
	int len = snprintf(m, sizeof(m), "ack %ld", n);

	if (send_to(fd, to, m, len, 0) != len)
		(*failed)++;
}

static void mode_stream_recv(void)
{
	union rds_sa src = cfg_sa(true, opt_sport), from;
	long next = 0, dup = 0, gap = 0, corrupt = 0, wrong = 0, failed = 0;
	long got_at_ack = -1, got = 0;
	struct stream_hdr h;
	int fd, flags;
	ssize_t n;

	fd = open_server("stream: bind the receiver");
	if (fd < 0)
		return;
	while (next < opt_count) {
		n = next_msg(fd, &from, &flags);
		if (n < 0)
			break;
		if (n == 0 && !sa_port(&from))
			continue;	/* a notification */
		got++;
		if (!sa_same(&from, &src))
			wrong++;
		if (n < (ssize_t)sizeof(h)) {
			corrupt++;
			continue;
		}
		memcpy(&h, buf, sizeof(h));
		if (h.magic != STREAM_MAGIC ||
		    h.len != n || (size_t)n != stream_len(h.seq) ||
		    h.body_sum != fnv1a(buf + sizeof(h), n - sizeof(h)) ||
		    (flags & MSG_TRUNC)) {
			corrupt++;
			continue;
		}
		if (h.seq < next) {
			dup++;
			continue;
		}
		if (h.seq > next) {
			if (gap++ < 5)
				tap_diag("stream: message %u, expected %ld",
					 h.seq, next);
		}
		next = h.seq + 1;
		if (next == opt_ack_at) {
			got_at_ack = got;
			send_ack(fd, &src, next, &failed);
		}
	}
	if (next == opt_count)
		send_ack(fd, &src, next, &failed);
	else
		tap_diag("stream: nothing for %d s after message %ld",
			 opt_idle_timeout, next - 1);

	if (opt_ack_at > 0)
		is_eq(got_at_ack, opt_ack_at,
		      "stream: messages 0..%ld arrived, once each, before the reload",
		      opt_ack_at - 1);
	is_eq(next, opt_count, "stream: the stream reached message %ld",
	      opt_count - 1);
	is_eq(got, opt_count, "stream: %ld messages received in all",
	      opt_count);
	is_eq(dup, 0, "stream: no duplicated or reordered-back messages");
	is_eq(gap, 0, "stream: no missing or reordered-ahead messages");
	is_eq(corrupt, 0, "stream: no corrupted or truncated payloads");
	is_eq(wrong, 0, "stream: every message came from %s port %d",
	      "the peer's sender", opt_sport);
	is_eq(failed, 0, "stream: acknowledgements sent");
	ok_diag(stays_quiet(fd, QUIET_MS, NULL),
		"stream: nothing arrives after the last message", NULL);
	/* the sender closes once it has the last ack: let it get there */
	stays_quiet(fd, 1000, NULL);
	close(fd);
}

static void mode_stream_send(void)
{
	union rds_sa dst = cfg_sa(true, opt_dport), from;
	struct stream_hdr *h = (struct stream_hdr *)buf;
	char ack[32], m[32];
	long seq, sent = 0;
	int fd, len;
	ssize_t n;

	fd = open_bound(opt_port, "stream: bind the sender");
	if (fd < 0)
		return;
	for (seq = opt_from; seq < opt_to; seq++) {
		size_t l = stream_len(seq);

		h->magic = STREAM_MAGIC;
		h->seq = seq;
		h->len = l;
		pattern_fill(buf + sizeof(*h), l - sizeof(*h), seq);
		h->body_sum = fnv1a(buf + sizeof(*h), l - sizeof(*h));
		if (send_to(fd, &dst, buf, l, 0) != (ssize_t)l) {
			tap_diag("stream: sending message %ld: %s", seq,
				 tap_errname(errno));
			break;
		}
		sent++;
	}
	is_eq(sent, opt_to - opt_from, "stream: messages %ld..%ld sent",
	      opt_from, opt_to - 1);

	/*
	 * An earlier ack may come again: Linux RDS on the peer sends what
	 * this host had not acknowledged before its module was reloaded.
	 */
	len = snprintf(m, sizeof(m), "ack %ld", opt_to);
	for (;;) {
		memset(ack, 0, sizeof(ack));
		n = recv_wait(fd, ack, sizeof(ack) - 1, &from, NULL, 0,
			      idle_ms());
		if (n <= 0 || !sa_same(&from, &dst) ||
		    strncmp(ack, "ack ", 4) || atol(ack + 4) >= opt_to)
			break;
		tap_diag("stream: an earlier \"%s\" again", ack);
	}
	ok_diag(n == len && !memcmp(ack, m, len) && sa_same(&from, &dst),
		"stream: the receiver acknowledged them",
		"%s", n < 0 ? (errno == ETIME ? "no ack in time" :
			       tap_errname(errno)) : "unexpected reply");
	close(fd);
}

/* ---- options ---- */

#define USAGE								\
	" --mode MODE --port P\n"					\
	"          [--sport P] [--dport P] [--count N] [--ack-at N]\n"	\
	"          [--from N] [--to N] [--idle-timeout S]\n"		\
	"  MODE: echo, ping, stream-recv (--sport, --count, --ack-at),\n" \
	"        stream-send (--dport, --from, --to), rdma-owner, rdma-user,\n" \
	"        rdma-cong (--count)"

/* ---- RDMA and atomics between hosts ---- */

#define RDMA_REGION	(64 * 1024)
#define RDMA_HALF	(RDMA_REGION / 2)
#define RDMA_FADDS	16
#define RDMA_WORD0	1000ULL
#define RDMA_SWAP	7777ULL

/* What the owner hands the user. */
struct rdma_cookies {
	uint64_t region;	/* RDMA_REGION bytes, first half patterned */
	uint64_t once;		/* 4 KiB, RDS_RDMA_USE_ONCE */
	uint64_t word;		/* an 8-byte word, RDMA_WORD0 */
};

/* Wait for the status notice of token @token; -1 if none came. */
static int wait_status(int fd, uint64_t token)
{
	long long deadline = now_ms() + idle_ms();
	union {
		char b[CMSG_SPACE(sizeof(struct rds_rdma_notify))];
		struct cmsghdr align;
	} ctl;
	struct rds_rdma_notify note;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m;
	struct cmsghdr *c;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (now_ms() < deadline) {
		memset(&m, 0, sizeof(m));
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = ctl.b;
		m.msg_controllen = sizeof(ctl.b);
		if (recvmsg(fd, &m, MSG_DONTWAIT) < 0) {
			if (errno != EAGAIN)
				return -1;
			poll(&pfd, 1, 100);
			continue;
		}
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level != SOL_RDS ||
			    c->cmsg_type != RDS_CMSG_RDMA_STATUS)
				continue;
			memcpy(&note, CMSG_DATA(c), sizeof(note));
			if (note.user_token == token)
				return note.status;
		}
	}
	return -1;
}

/* Send an empty message to @to carrying one operation; its status. */
static int run_op(int fd, const union rds_sa *to, int type,
		  const void *args, size_t args_len, uint64_t token)
{
	union {
		char b[CMSG_SPACE(sizeof(struct rds_atomic_args))];
		struct cmsghdr align;
	} ctl;
	struct msghdr m = {
		.msg_name = (void *)to,
		.msg_namelen = sizeof(*to),
		.msg_control = ctl.b,
		.msg_controllen = CMSG_SPACE(args_len),
	};
	struct cmsghdr *c;

	memset(&ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(args_len);
	memcpy(CMSG_DATA(c), args, args_len);
	if (sendmsg(fd, &m, 0) < 0)
		return -1;
	return wait_status(fd, token);
}

static int rdma(int fd, const union rds_sa *to, uint64_t cookie,
		uint64_t raddr, void *local, uint64_t len, bool write,
		uint64_t token)
{
	struct rds_iovec v = { .addr = (uintptr_t)local, .bytes = len };
	struct rds_rdma_args a = {
		.cookie = cookie,
		.remote_vec = { .addr = raddr, .bytes = len },
		.local_vec_addr = (uintptr_t)&v,
		.nr_local = 1,
		.flags = RDS_RDMA_NOTIFY_ME | (write ? RDS_RDMA_READWRITE : 0),
		.user_token = token,
	};

	return run_op(fd, to, RDS_CMSG_RDMA_ARGS, &a, sizeof(a), token);
}

/* The next message, skipping notices; its length or -1. */
static ssize_t next_data(int fd, union rds_sa *from, uint64_t *dest)
{
	union {
		char b[256];
		struct cmsghdr align;
	} ctl;
	long long deadline = now_ms() + idle_ms();
	struct iovec iov = { buf, sizeof(buf) };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct msghdr m;
	struct cmsghdr *c;
	ssize_t n;

	while (now_ms() < deadline) {
		memset(&m, 0, sizeof(m));
		m.msg_name = from;
		m.msg_namelen = sizeof(*from);
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = ctl.b;
		m.msg_controllen = sizeof(ctl.b);
		n = recvmsg(fd, &m, MSG_DONTWAIT);
		if (n < 0) {
			if (errno != EAGAIN)
				return -1;
			poll(&pfd, 1, 100);
			continue;
		}
		if (!sa_port(from))
			continue;	/* notices only */
		for (c = CMSG_FIRSTHDR(&m); dest && c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_RDS &&
			    c->cmsg_type == RDS_CMSG_RDMA_DEST)
				memcpy(dest, CMSG_DATA(c), sizeof(*dest));
		return n;
	}
	errno = ETIME;
	return -1;
}

/* The next message with a payload (the operations' carriers are empty). */
static bool expect_word(int fd, union rds_sa *from, const char *word)
{
	ssize_t n;

	do
		n = next_data(fd, from, NULL);
	while (n == 0);

	return ok_diag(n == (ssize_t)strlen(word) && !memcmp(buf, word, n),
		       word, "got %zd bytes: %s", n,
		       n < 0 ? tap_errname(errno) : "another message");
}

static void mode_rdma_owner(void)
{
	char *mem = mmap(NULL, 3 * RDMA_REGION, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rdma_cookies ck = { 0 };
	union {
		char b[CMSG_SPACE(sizeof(uint64_t))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { &ck, sizeof(ck) };
	union rds_sa from;
	struct msghdr m;
	struct cmsghdr *c;
	volatile uint64_t *word;
	char *region, *once;
	int fd;

	if (!ok_diag(mem != MAP_FAILED, "rdma-owner: mmap", "%s",
		     tap_errname(errno)))
		return;
	region = mem;
	once = mem + RDMA_REGION;
	word = (uint64_t *)(mem + 2 * RDMA_REGION + 64);
	pattern_fill(region, RDMA_HALF, 5);
	memset(region + RDMA_HALF, 0, RDMA_HALF);
	memset(once, 0x11, 4096);
	*word = RDMA_WORD0;

	fd = open_server("bind the owner socket");
	if (fd < 0)
		goto out;
	if (!expect_word(fd, &from, "rdma-owner: hello"))
		goto out_fd;
	if (!is_ok(get_mr(fd, region, RDMA_REGION, 0, &ck.region),
		   "rdma-owner: RDS_GET_MR of 64 KiB") ||
	    !is_ok(get_mr(fd, once, 4096, RDS_RDMA_USE_ONCE, &ck.once),
		   "rdma-owner: RDS_GET_MR with RDS_RDMA_USE_ONCE") ||
	    !is_ok(get_mr(fd, (const void *)word, 8, 0, &ck.word),
		   "rdma-owner: RDS_GET_MR of a word"))
		goto out_fd;

	/* the cookies, and the region's as RDS_CMSG_RDMA_DEST */
	memset(&m, 0, sizeof(m));
	memset(&ctl, 0, sizeof(ctl));
	m.msg_name = &from;
	m.msg_namelen = sizeof(from);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl.b;
	m.msg_controllen = sizeof(ctl.b);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = RDS_CMSG_RDMA_DEST;
	c->cmsg_len = CMSG_LEN(sizeof(uint64_t));
	memcpy(CMSG_DATA(c), &ck.region, sizeof(uint64_t));
	is_eq(sendmsg(fd, &m, 0), (ssize_t)sizeof(ck),
	      "rdma-owner: cookies sent with RDS_CMSG_RDMA_DEST");

	if (!expect_word(fd, &from, "rdma-owner: done"))
		goto out_fd;
	ok(pattern_check(region + RDMA_HALF, RDMA_HALF, 6) < 0,
	   "rdma-owner: the peer's write landed in the second half");
	ok(pattern_check(region, RDMA_HALF, 5) < 0,
	   "rdma-owner: the first half, which the peer read, is unchanged");
	is_eq(*word, RDMA_SWAP,
	      "rdma-owner: %d fetch-and-adds then a compare-and-swap",
	      RDMA_FADDS);
	ok(once[0] == 0x22 && once[4095] == 0x22,
	   "rdma-owner: the write into the USE_ONCE region landed");
	is_err(free_mr(fd, ck.once, 0), EINVAL,
	       "rdma-owner: the USE_ONCE region is gone after its use");
	is_ok(free_mr(fd, ck.region, 0), "rdma-owner: RDS_FREE_MR of the region");
	memset(region, 0x33, RDMA_REGION);
	is_eq(send_to(fd, &from, "freed", 5, 0), 5, "rdma-owner: freed sent");
	expect_word(fd, &from, "quit");
	ok(region[0] == 0x33 && region[RDMA_REGION - 1] == 0x33,
	   "rdma-owner: nothing reached the freed region");
out_fd:
	close(fd);
out:
	munmap(mem, 3 * RDMA_REGION);
}

static void mode_rdma_user(void)
{
	union rds_sa srv = cfg_sa(true, opt_port), from;
	static char local[RDMA_REGION];
	struct rds_atomic_args aa;
	struct rdma_cookies ck;
	uint64_t dest = 0, old;
	uint64_t *oldp = (uint64_t *)(local + 64);
	unsigned int i, wrong = 0;
	ssize_t n;
	int fd, st;

	fd = open_bound(0, "bind the user socket");
	if (fd < 0)
		return;
	if (!is_eq(send_to(fd, &srv, "rdma-owner: hello", 17, 0), 17,
		   "rdma-user: hello sent"))
		goto out;
	n = next_data(fd, &from, &dest);
	if (!ok_diag(n == sizeof(ck), "rdma-user: the cookies came",
		     "got %zd bytes", n))
		goto out;
	memcpy(&ck, buf, sizeof(ck));
	is_eq(dest, ck.region, "rdma-user: with the region's cookie as RDS_CMSG_RDMA_DEST");

	memset(local, 0, sizeof(local));
	st = rdma(fd, &srv, ck.region, 0, local, RDMA_HALF, false, 1);
	is_eq(st, RDS_RDMA_SUCCESS, "rdma-user: RDMA read of 32 KiB");
	ok(pattern_check(local, RDMA_HALF, 5) < 0,
	   "rdma-user: it read the owner's pattern");
	pattern_fill(local, RDMA_HALF, 6);
	st = rdma(fd, &srv, ck.region, RDMA_HALF, local, RDMA_HALF, true, 2);
	is_eq(st, RDS_RDMA_SUCCESS, "rdma-user: RDMA write of 32 KiB");

	for (i = 0; i < RDMA_FADDS; i++) {
		memset(&aa, 0, sizeof(aa));
		aa.cookie = ck.word;
		aa.local_addr = (uintptr_t)oldp;
		aa.fadd.add = 3;
		aa.flags = RDS_RDMA_NOTIFY_ME;
		aa.user_token = 100 + i;
		*oldp = ~0ULL;
		st = run_op(fd, &srv, RDS_CMSG_ATOMIC_FADD, &aa, sizeof(aa),
			    100 + i);
		if (st != RDS_RDMA_SUCCESS || *oldp != RDMA_WORD0 + 3 * i)
			wrong++;
	}
	is_eq(wrong, 0, "rdma-user: %d fetch-and-adds, each saw the last",
	      RDMA_FADDS);
	old = RDMA_WORD0 + 3 * RDMA_FADDS;
	memset(&aa, 0, sizeof(aa));
	aa.cookie = ck.word;
	aa.local_addr = (uintptr_t)oldp;
	aa.cswp.compare = old;
	aa.cswp.swap = RDMA_SWAP;
	aa.flags = RDS_RDMA_NOTIFY_ME;
	aa.user_token = 200;
	st = run_op(fd, &srv, RDS_CMSG_ATOMIC_CSWP, &aa, sizeof(aa), 200);
	ok(st == RDS_RDMA_SUCCESS && *oldp == old,
	   "rdma-user: compare-and-swap");

	memset(local, 0x22, 4096);
	st = rdma(fd, &srv, ck.once, 0, local, 4096, true, 3);
	is_eq(st, RDS_RDMA_SUCCESS, "rdma-user: write into the USE_ONCE region");
	is_eq(send_to(fd, &srv, "rdma-owner: done", 16, 0), 16,
	      "rdma-user: done sent");
	if (!expect_word(fd, &from, "freed"))
		goto out;
	st = rdma(fd, &srv, ck.region, 0, local, 64, true, 4);
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "rdma-user: a write through the freed cookie -> RDS_RDMA_REMOTE_ERROR");
	st = rdma(fd, &srv, ck.once, 0, local, 64, true, 5);
	/* the reset after the failure before may take it along: again */
	if (st == RDS_RDMA_DROPPED)
		st = rdma(fd, &srv, ck.once, 0, local, 64, true, 6);
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "rdma-user: a second use of the USE_ONCE cookie -> RDS_RDMA_REMOTE_ERROR");
	is_eq(send_to(fd, &srv, QUIT, strlen(QUIT), 0), (ssize_t)strlen(QUIT),
	      "rdma-user: quit sent");
	stays_quiet(fd, 1000, NULL);
out:
	close(fd);
}

/* ---- congestion and RDMA notices at once, both ways ---- */

#define CONG_MAGIC	0x52444343u	/* "RDCC" */
#define CONG_SLOTS	16		/* operations in flight, region slots */
#define CONG_SLOT	4096
#define CONG_RCVBUF	4096		/* SO_RCVBUF: the kernel doubles it */
#define CONG_BURST	4		/* sends per read while not held back */

enum { CONG_HELLO = 1, CONG_DATA };

struct cong_msg {
	uint32_t magic;
	uint32_t type;
	uint64_t seq;		/* CONG_DATA: the message's number */
	uint64_t cookie;	/* CONG_HELLO: the sender's region */
	uint32_t have;		/* CONG_HELLO: the sender has our cookie */
	uint32_t pad;
};

/* Message @i's length: small ones (packed with their operations) and not. */
static size_t cong_len(uint64_t i)
{
	return i % 2 ? 2048 : 256;
}

/* Send message @i behind a 4 KiB RDMA write into slot i % CONG_SLOTS. */
static ssize_t cong_send(int fd, const union rds_sa *to,
			 uint64_t cookie, char *local, uint64_t i)
{
	char *l = local + (i % CONG_SLOTS) * CONG_SLOT;
	struct rds_iovec v = { .addr = (uintptr_t)l, .bytes = CONG_SLOT };
	struct rds_rdma_args a = {
		.cookie = cookie,
		.remote_vec = { .addr = (i % CONG_SLOTS) * CONG_SLOT,
				.bytes = CONG_SLOT },
		.local_vec_addr = (uintptr_t)&v,
		.nr_local = 1,
		.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME,
		.user_token = i + 1,
	};
	struct cong_msg *cm = (struct cong_msg *)want;

	memcpy(l, &i, sizeof(i));
	memset(want, 0, cong_len(i));
	cm->magic = CONG_MAGIC;
	cm->type = CONG_DATA;
	cm->seq = i;
	return rds_doca_send_cmsg(fd, to, want, cong_len(i), RDS_CMSG_RDMA_ARGS,
				  &a, sizeof(a), MSG_DONTWAIT);
}

static void mode_rdma_cong(void)
{
	const long n = opt_count;
	union rds_sa peer = cfg_sa(true, opt_port), from;
	size_t size = 2 * CONG_SLOTS * CONG_SLOT;
	char *mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	union {
		char b[CMSG_SPACE(sizeof(struct rds_rdma_notify)) * 8];
		struct cmsghdr align;
	} ctl;
	struct pollfd pfd = { .events = POLLIN };
	long sent = 0, recvd = 0, notified = 0, held = 0, bad_data = 0;
	long bad_status = 0, bad_token = 0, iter = 0;
	uint64_t mine = 0, theirs = 0;
	bool have = false, peer_has = false;
	long long last_hello = 0, idle_until;
	char *region, *local;
	int fd, sz = CONG_RCVBUF;

	if (!ok_diag(mem != MAP_FAILED, "rdma-cong: mmap", "%s",
		     tap_errname(errno)))
		return;
	region = mem;
	local = mem + CONG_SLOTS * CONG_SLOT;
	memset(mem, 0xff, size);
	fd = open_bound(opt_port, "rdma-cong: bind");
	if (fd < 0)
		goto out;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (!is_ok(get_mr(fd, region, CONG_SLOTS * CONG_SLOT, 0, &mine),
		   "rdma-cong: RDS_GET_MR of the region the peer writes"))
		goto out_fd;
	tap_diag("ready");
	pfd.fd = fd;

	idle_until = now_ms() + idle_ms();
	while ((sent < n || recvd < n || notified < n || !peer_has) &&
	       now_ms() < idle_until) {
		struct iovec iov = { buf, sizeof(buf) };
		const struct cong_msg *cm = (const void *)buf;
		struct rds_rdma_notify note;
		struct msghdr m;
		struct cmsghdr *c;
		ssize_t r;
		int burst;

		/* swap cookies until the peer shows it has ours */
		if (!peer_has && now_ms() - last_hello >= 100) {
			struct cong_msg h = {
				.magic = CONG_MAGIC, .type = CONG_HELLO,
				.cookie = mine, .have = have,
			};

			send_to(fd, &peer, &h, sizeof(h), MSG_DONTWAIT);
			last_hello = now_ms();
		}
		/* a burst of sends, while the peer's port and our room allow */
		for (burst = 0; have && burst < CONG_BURST && sent < n &&
		     sent - notified < CONG_SLOTS; burst++) {
			if (cong_send(fd, &peer, theirs, local, sent) >= 0) {
				sent++;
				idle_until = now_ms() + idle_ms();
				continue;
			}
			if (errno != ENOBUFS && errno != EAGAIN) {
				ok_diag(0, "rdma-cong: send with an RDMA write",
					"message %ld: %s", sent,
					tap_errname(errno));
				goto out_fd;
			}
			held++;
			break;
		}

		/* then one read, and a pause after data: a slow reader */
		memset(&m, 0, sizeof(m));
		memset(&from, 0, sizeof(from));
		m.msg_name = &from;
		m.msg_namelen = sizeof(from);
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = ctl.b;
		m.msg_controllen = sizeof(ctl.b);
		r = recvmsg(fd, &m, MSG_DONTWAIT);
		if (r < 0) {
			if (errno != EAGAIN) {
				ok_diag(0, "rdma-cong: recvmsg", "%s",
					tap_errname(errno));
				goto out_fd;
			}
			poll(&pfd, 1, 10);
			continue;
		}
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level != SOL_RDS ||
			    c->cmsg_type != RDS_CMSG_RDMA_STATUS)
				continue;
			memcpy(&note, CMSG_DATA(c), sizeof(note));
			if (note.status != RDS_RDMA_SUCCESS)
				bad_status++;
			if (note.user_token != (uint64_t)notified + 1)
				bad_token++;
			notified++;
			idle_until = now_ms() + idle_ms();
		}
		if (!sa_port(&from))
			continue;	/* notices only */
		if (r < (ssize_t)sizeof(*cm) || cm->magic != CONG_MAGIC) {
			bad_data++;
			continue;
		}
		if (cm->type == CONG_HELLO) {
			theirs = cm->cookie;
			have = true;
			peer_has |= cm->have;
			continue;
		}
		/* the peer sends data only once it has our cookie */
		peer_has = true;
		if (cm->seq != (uint64_t)recvd || r != (ssize_t)cong_len(recvd)) {
			bad_data++;
		} else {
			/* its write landed first; a later one may have too */
			uint64_t v;

			memcpy(&v, region + (recvd % CONG_SLOTS) * CONG_SLOT,
			       sizeof(v));
			if (v < (uint64_t)recvd || v >= (uint64_t)n ||
			    v % CONG_SLOTS != (uint64_t)recvd % CONG_SLOTS)
				bad_data++;
		}
		recvd++;
		idle_until = now_ms() + idle_ms();
		if (++iter % 2 == 0)
			usleep(500);
	}

	is_eq(sent, n, "rdma-cong: %ld messages sent behind RDMA writes", n);
	is_eq(notified, n, "rdma-cong: a notice for each of them");
	ok_diag(!bad_status && !bad_token, "rdma-cong: every notice in order, RDS_RDMA_SUCCESS",
		"%ld failed, %ld out of order", bad_status, bad_token);
	is_eq(recvd, n, "rdma-cong: %ld messages received from the peer", n);
	is_eq(bad_data, 0,
	      "rdma-cong: each in order, after the write that came with it");
	tap_diag("rdma-cong: the peer's port held %ld sends back", held);
	ok(held > 0, "rdma-cong: the peer's port was congested at times");
out_fd:
	close(fd);
out:
	munmap(mem, size);
}

enum {
	OPT_MODE = 0x100, OPT_PORT, OPT_SPORT, OPT_DPORT, OPT_COUNT,
	OPT_ACK_AT, OPT_FROM, OPT_TO, OPT_IDLE,
};

static const struct option extra_opts[] = {
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "sport", required_argument, NULL, OPT_SPORT },
	{ "dport", required_argument, NULL, OPT_DPORT },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "ack-at", required_argument, NULL, OPT_ACK_AT },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE },
	{ NULL, 0, NULL, 0 },
};

static int extra_opt(int opt, const char *arg)
{
	long v = atol(arg);

	switch (opt) {
	case OPT_MODE:
		opt_mode = arg;
		return 0;
	case OPT_PORT:
	case OPT_SPORT:
	case OPT_DPORT:
		if (v < 1 || v > 65534)
			return -1;
		*(opt == OPT_PORT ? &opt_port :
		  opt == OPT_SPORT ? &opt_sport : &opt_dport) = v;
		return 0;
	case OPT_COUNT:
		opt_count = v;
		return v > 0 ? 0 : -1;
	case OPT_ACK_AT:
		opt_ack_at = v;
		return v > 0 ? 0 : -1;
	case OPT_FROM:
		opt_from = v;
		return v >= 0 ? 0 : -1;
	case OPT_TO:
		opt_to = v;
		return v > 0 ? 0 : -1;
	case OPT_IDLE:
		opt_idle_timeout = v;
		return v > 0 ? 0 : -1;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} modes[] = {
		{ "echo", mode_echo },
		{ "ping", mode_ping },
		{ "stream-recv", mode_stream_recv },
		{ "stream-send", mode_stream_send },
		{ "rdma-owner", mode_rdma_owner },
		{ "rdma-user", mode_rdma_user },
		{ "rdma-cong", mode_rdma_cong },
	};
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_common(argc, argv, extra_opts, extra_opt, USAGE))
		return 2;
	for (i = 0; opt_mode && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(opt_mode, modes[i].name))
			break;
	if (!opt_mode || i == sizeof(modes) / sizeof(modes[0]) || !opt_port ||
	    (!strcmp(opt_mode, "stream-recv") && (!opt_sport || !opt_count)) ||
	    (!strcmp(opt_mode, "rdma-cong") && !opt_count) ||
	    (!strcmp(opt_mode, "stream-send") &&
	     (!opt_dport || opt_to <= opt_from))) {
		usage(argv[0], USAGE);
		return 2;
	}
	print_config("rds_xhost_test");
	modes[i].run();
	return tap_finish();
}
