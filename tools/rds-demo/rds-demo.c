// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds-demo: two sockets exchange a few messages and say what happened.
 *
 * Shows the life of an rds_doca datagram: bind two sockets (on the loopback
 * address, or on the two addresses given: "rds-demo ADDR_A ADDR_B", e.g.
 * two addresses of a Soft-RoCE interface), send a request from one to the
 * other, answer it, then show the
 * boundaries of messages of several sizes and what a receiver sees when
 * its buffer is too small.
 *
 * Then RDMA through a cookie: A registers a buffer and hands B its cookie
 * in a message; B writes into the buffer, reads it back and adds to a
 * counter in it, each time hearing the outcome from an RDS_CMSG_RDMA_STATUS
 * notice; once A has freed the buffer, B's next write is refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/rds_doca.h>
#include "rds_doca_user.h"

static int open_bound(int family, struct sockaddr_in *sin, const char *addr)
{
	struct in_addr a = { htonl(INADDR_LOOPBACK) };
	const char *failed;
	int fd;

	if (addr && !inet_aton(addr, &a)) {
		fprintf(stderr, "not an IPv4 address: %s\n", addr);
		exit(2);
	}
	fd = rds_doca_bound_socket(family, a, sin, &failed);
	if (fd < 0) {
		fprintf(stderr, "%s (family %d): %s\n", failed, family,
			strerror(errno));
		exit(1);
	}
	return fd;
}

static void check(int ok, const char *what)
{
	if (!ok) {
		fflush(stdout);
		fprintf(stderr, "rds-demo: %s failed: %s\n", what,
			strerror(errno));
		exit(1);
	}
}

/* An unexpected result that is not a failed call: say what, and stop. */
static __attribute__((format(printf, 1, 2), noreturn)) void
fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "rds-demo: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

/* How long to wait for anything that must arrive, and for nothing. */
#define TIMEOUT_MS	5000
#define QUIET_MS	200

/* Size of A's registered buffer, and where its counter lives in it. */
#define REGION_SIZE	8192
#define COUNTER_AT	4096

/* Wait until @fd has something to read: a message or a notice. */
static void wait_readable(int fd, const char *what)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	do {
		n = poll(&pfd, 1, TIMEOUT_MS);
	} while (n < 0 && errno == EINTR);
	check(n >= 0, "poll");
	if (!n)
		fail("no %s within %d ms", what, TIMEOUT_MS);
}

/*
 * Send @payload to @to with one SOL_RDS control message of @type carrying
 * the @len bytes at @arg.
 */
static void send_with(int fd, const struct sockaddr_in *to,
		      const char *payload, int type, const void *arg,
		      size_t len)
{
	ssize_t n = rds_doca_send_cmsg(fd, to, payload, strlen(payload), type,
				       arg, len, 0);

	check(n == (ssize_t)strlen(payload), "sendmsg with a control message");
}

/* What one recvmsg() returned. */
struct received {
	ssize_t len;			/* payload bytes, 0 for a notice */
	struct sockaddr_in from;
	int has_dest;			/* an RDS_CMSG_RDMA_DEST came */
	rds_rdma_cookie_t dest;
	int nr_notices;			/* RDS_CMSG_RDMA_STATUS notices */
	struct rds_rdma_notify notice;	/* the first of them */
};

/* Receive whatever comes next on @fd, waiting at most TIMEOUT_MS. */
static void receive(int fd, char *buf, size_t size, struct received *r,
		    const char *what)
{
	union {
		struct cmsghdr align;
		char buf[4 * CMSG_SPACE(sizeof(struct rds_rdma_notify)) +
			 CMSG_SPACE(sizeof(rds_rdma_cookie_t))];
	} cbuf;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr mh = {
		.msg_name = &r->from,
		.msg_namelen = sizeof(r->from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf.buf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;

	memset(r, 0, sizeof(*r));
	wait_readable(fd, what);
	r->len = recvmsg(fd, &mh, MSG_DONTWAIT);
	check(r->len >= 0, "recvmsg");
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		fail("%s: message or control data truncated", what);
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_RDS)
			continue;
		if (cm->cmsg_type == RDS_CMSG_RDMA_DEST &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(r->dest))) {
			memcpy(&r->dest, CMSG_DATA(cm), sizeof(r->dest));
			r->has_dest = 1;
		} else if (cm->cmsg_type == RDS_CMSG_RDMA_STATUS &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(r->notice))) {
			if (!r->nr_notices++)
				memcpy(&r->notice, CMSG_DATA(cm),
				       sizeof(r->notice));
		}
	}
}

/*
 * Wait for the notice of the operation sent with @token: recvmsg()
 * returns 0, with no payload, and an RDS_CMSG_RDMA_STATUS.
 */
static int wait_notice(int fd, uint64_t token, const char *who)
{
	struct received r;
	char buf[64];

	receive(fd, buf, sizeof(buf), &r, "RDS_CMSG_RDMA_STATUS notice");
	if (r.len || r.nr_notices != 1)
		fail("%s expected one notice, got %zd payload bytes and %d notices",
		     who, r.len, r.nr_notices);
	printf("%s: recvmsg() returned 0 with RDS_CMSG_RDMA_STATUS: status %s, user_token %" PRIu64 "\n",
	       who, rds_doca_status_name(r.notice.status), (uint64_t)r.notice.user_token);
	if (r.notice.user_token != token)
		fail("%s expected the notice of user_token %" PRIu64,
		     who, token);
	return r.notice.status;
}

/* B reads or writes @len bytes at byte @at of A's region. */
static void rdma(int fd, const struct sockaddr_in *to, rds_rdma_cookie_t cookie,
		 uint64_t at, void *local, size_t len, uint64_t flags,
		 uint64_t token, const char *payload)
{
	struct rds_iovec vec = {
		.addr = (uintptr_t)local,
		.bytes = len,
	};
	struct rds_rdma_args args = {
		.cookie = cookie,
		.remote_vec = { .addr = at, .bytes = len },
		.local_vec_addr = (uintptr_t)&vec,
		.nr_local = 1,
		.flags = flags,
		.user_token = token,
	};

	send_with(fd, to, payload, RDS_CMSG_RDMA_ARGS, &args, sizeof(args));
}

/* Expect @fd to receive the message @payload from B and nothing else. */
static void expect_message(int fd, const char *payload, const char *who)
{
	struct received r;
	char buf[64];

	receive(fd, buf, sizeof(buf), &r, "message");
	if (r.nr_notices || r.len != (ssize_t)strlen(payload) ||
	    memcmp(buf, payload, r.len))
		fail("%s expected the message \"%s\", got %zd bytes \"%.*s\" and %d notices",
		     who, payload, r.len, (int)r.len, buf, r.nr_notices);
	printf("%s: received \"%s\" from %s\n", who, payload, rds_doca_sin_name(&r.from));
}

/* A silent operation delivers nothing: @fd stays quiet for a while. */
static void expect_nothing(int fd, const char *who)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	do {
		n = poll(&pfd, 1, QUIET_MS);
	} while (n < 0 && errno == EINTR);
	check(n >= 0, "poll");
	if (n)
		fail("%s has something to read after a silent operation", who);
	printf("%s: nothing to read after %d ms\n", who, QUIET_MS);
}

/* The C string at the start of @region, within its bounds. */
static int shown(const char *region)
{
	return (int)strnlen(region, COUNTER_AT);
}

static void rdma_demo(int fa, const struct sockaddr_in *a, int fb,
		      const struct sockaddr_in *b)
{
	static const char written[] = "written by B with an RDMA write";
	static const char own[] = "A's own words";
	struct rds_get_mr_args mr = { 0 };
	struct rds_free_mr_args fr = { 0 };
	struct rds_atomic_args at = { 0 };
	rds_rdma_cookie_t cookie = 0, got;
	volatile uint64_t *counter;
	volatile uint64_t old = 0;
	char wbuf[sizeof(written)];
	char readback[64];
	struct received r;
	char buf[64];
	char *region;

	printf("\nRDMA through a cookie\n");
	region = aligned_alloc(4096, REGION_SIZE);
	if (!region)
		fail("no memory for A's buffer");
	memset(region, 0, REGION_SIZE);
	counter = (volatile uint64_t *)(region + COUNTER_AT);
	*counter = 42;

	mr.vec.addr = (uintptr_t)region;
	mr.vec.bytes = REGION_SIZE;
	mr.cookie_addr = (uintptr_t)&cookie;
	check(!setsockopt(fa, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr)),
	      "RDS_GET_MR");
	printf("A: RDS_GET_MR registered %d bytes at %p: cookie 0x%016" PRIx64 " (key %" PRIu64 ", offset %" PRIu64 ")\n",
	       REGION_SIZE, (void *)region, (uint64_t)cookie,
	       (uint64_t)(cookie & 0xffffffff), (uint64_t)(cookie >> 32));
	printf("A: its counter, at byte %d of the region, holds %" PRIu64 "\n",
	       COUNTER_AT, (uint64_t)*counter);

	/* A tells B about the region. */
	send_with(fa, b, "my buffer", RDS_CMSG_RDMA_DEST, &cookie,
		  sizeof(cookie));
	printf("A -> B: sent \"my buffer\" with RDS_CMSG_RDMA_DEST\n");
	receive(fb, buf, sizeof(buf), &r, "message with the cookie");
	if (!r.has_dest || r.nr_notices)
		fail("B expected a message with an RDS_CMSG_RDMA_DEST, got %zd bytes, %s cookie, %d notices",
		     r.len, r.has_dest ? "a" : "no", r.nr_notices);
	got = r.dest;
	printf("B: received \"%.*s\" from %s with RDS_CMSG_RDMA_DEST cookie 0x%016" PRIx64 "\n",
	       (int)r.len, buf, rds_doca_sin_name(&r.from), (uint64_t)got);
	if (got != cookie)
		fail("B got cookie 0x%016" PRIx64 ", A registered 0x%016" PRIx64,
		     (uint64_t)got, (uint64_t)cookie);

	/* An RDMA write riding on a message: A sees it when the message comes. */
	memcpy(wbuf, written, sizeof(wbuf));
	rdma(fb, a, got, 0, wbuf, sizeof(wbuf),
	     RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1, "look at your buffer");
	printf("B -> A: RDMA write of \"%s\" (%zu bytes) to byte 0 of A's region, riding on \"look at your buffer\"\n",
	       written, sizeof(written));
	if (wait_notice(fb, 1, "B") != RDS_RDMA_SUCCESS)
		fail("the RDMA write failed");
	expect_message(fa, "look at your buffer", "A");
	printf("A: its buffer now holds \"%.*s\"\n", shown(region), region);
	if (strcmp(region, written))
		fail("A's buffer does not hold what B wrote");

	/* An RDMA read, silent: no message reaches A. */
	memset(region, 0, sizeof(written));
	memcpy(region, own, sizeof(own));
	printf("A: wrote \"%s\" into its buffer itself\n", own);
	memset(readback, 0, sizeof(readback));
	rdma(fb, a, got, 0, readback, sizeof(readback),
	     RDS_RDMA_NOTIFY_ME | RDS_RDMA_SILENT, 2, "");
	printf("B -> A: RDMA read of %zu bytes at byte 0 of A's region, RDS_RDMA_SILENT (no message for A)\n",
	       sizeof(readback));
	if (wait_notice(fb, 2, "B") != RDS_RDMA_SUCCESS)
		fail("the RDMA read failed");
	printf("B: read \"%.*s\"\n", (int)strnlen(readback, sizeof(readback)),
	       readback);
	if (strcmp(readback, own))
		fail("B did not read what A wrote");
	expect_nothing(fa, "A");

	/* A fetch-and-add on the counter; the old value comes back to B. */
	at.cookie = got;
	at.local_addr = (uintptr_t)&old;
	at.remote_addr = COUNTER_AT;
	at.fadd.add = 5;
	at.flags = RDS_RDMA_NOTIFY_ME;
	at.user_token = 3;
	send_with(fb, a, "added 5 to your counter", RDS_CMSG_ATOMIC_FADD, &at,
		  sizeof(at));
	printf("B -> A: RDS_CMSG_ATOMIC_FADD of 5 on the word at byte %d, riding on \"added 5 to your counter\"\n",
	       COUNTER_AT);
	if (wait_notice(fb, 3, "B") != RDS_RDMA_SUCCESS)
		fail("the fetch-and-add failed");
	printf("B: the old value written to local_addr is %" PRIu64 "\n",
	       (uint64_t)old);
	expect_message(fa, "added 5 to your counter", "A");
	printf("A: its counter now holds %" PRIu64 "\n", (uint64_t)*counter);
	if (old != 42 || *counter != 47)
		fail("expected old value 42 and new value 47");

	/* Once A frees the region, B's operations are refused. */
	fr.cookie = cookie;
	check(!setsockopt(fa, SOL_RDS, RDS_FREE_MR, &fr, sizeof(fr)),
	      "RDS_FREE_MR");
	printf("A: RDS_FREE_MR freed the region\n");
	rdma(fb, a, got, 0, wbuf, sizeof(wbuf),
	     RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 4, "one more");
	printf("B -> A: RDMA write of \"%s\" again, riding on \"one more\"\n",
	       written);
	if (wait_notice(fb, 4, "B") != RDS_RDMA_REMOTE_ERROR)
		fail("the write to a freed region did not fail with RDS_RDMA_REMOTE_ERROR");
	expect_message(fa, "one more", "A");
	printf("A: the message still came; its buffer still holds \"%.*s\"\n",
	       shown(region), region);
	if (strcmp(region, own))
		fail("the refused write changed A's buffer");
	free(region);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 0, 64, 4096, 65536, 1 << 20 };
	size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
	struct sockaddr_in a, b, from;
	int family = rds_doca_family();
	socklen_t fromlen, optlen;
	static char buf[1 << 20];
	int fa, fb, bufsize = 4 << 20;
	ssize_t n;
	size_t i;

	if (argc != 1 && argc != 3) {
		fprintf(stderr, "usage: %s [ADDR_A ADDR_B]\n", argv[0]);
		return 2;
	}
	printf("rds_doca demo: address family %d\n", family);
	fa = open_bound(family, &a, argc == 3 ? argv[1] : NULL);
	fb = open_bound(family, &b, argc == 3 ? argv[2] : NULL);
	printf("socket A bound to %s, socket B bound to %s\n", rds_doca_sin_name(&a),
	       rds_doca_sin_name(&b));

	n = sendto(fa, "ping", 4, 0, (struct sockaddr *)&b, sizeof(b));
	check(n == 4, "send ping");
	printf("A -> B: sent \"ping\" (%zd bytes)\n", n);

	fromlen = sizeof(from);
	n = recvfrom(fb, buf, sizeof(buf), 0, (struct sockaddr *)&from,
		     &fromlen);
	check(n == 4, "receive ping");
	printf("B: received \"%.*s\" from %s\n", (int)n, buf, rds_doca_sin_name(&from));

	n = sendto(fb, "pong", 4, 0, (struct sockaddr *)&from, fromlen);
	check(n == 4, "send pong");
	fromlen = sizeof(from);
	n = recvfrom(fa, buf, sizeof(buf), 0, (struct sockaddr *)&from,
		     &fromlen);
	check(n == 4, "receive pong");
	printf("A: received \"%.*s\" from %s\n", (int)n, buf, rds_doca_sin_name(&from));

	/*
	 * Half of SO_SNDBUF is usable; a 1 MiB message needs more than the
	 * default limit (net.core.wmem_max), which root may exceed.
	 */
	if (setsockopt(fa, SOL_SOCKET, SO_SNDBUFFORCE, &bufsize, sizeof(bufsize)))
		check(!setsockopt(fa, SOL_SOCKET, SO_SNDBUF, &bufsize,
				  sizeof(bufsize)), "SO_SNDBUF");
	if (setsockopt(fb, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof(bufsize)))
		check(!setsockopt(fb, SOL_SOCKET, SO_RCVBUF, &bufsize,
				  sizeof(bufsize)), "SO_RCVBUF");
	optlen = sizeof(bufsize);
	check(!getsockopt(fa, SOL_SOCKET, SO_SNDBUF, &bufsize, &optlen),
	      "SO_SNDBUF");
	if ((size_t)bufsize / 2 < sizes[nsizes - 1]) {
		nsizes--;
		printf("(send buffer %d bytes: the 1 MiB message needs root)\n",
		       bufsize);
	}
	for (i = 0; i < nsizes; i++) {
		memset(buf, 'a' + (int)i, sizes[i]);
		n = sendto(fa, buf, sizes[i], 0, (struct sockaddr *)&b,
			   sizeof(b));
		check(n == (ssize_t)sizes[i], "send");
	}
	printf("A -> B: sent %zu messages of 0 to %zu bytes\n", i,
	       sizes[nsizes - 1]);
	for (i = 0; i < nsizes; i++) {
		n = recv(fb, buf, sizeof(buf), 0);
		check(n == (ssize_t)sizes[i], "receive");
		check(!n || (buf[0] == 'a' + (int)i && buf[n - 1] == buf[0]),
		      "payload check");
		printf("B: received a whole message of %zd bytes\n", n);
	}

	n = sendto(fa, "a message longer than the buffer", 32, 0,
		   (struct sockaddr *)&b, sizeof(b));
	check(n == 32, "send");
	{
		struct iovec iov = { .iov_base = buf, .iov_len = 9 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

		n = recvmsg(fb, &mh, 0);
		check(n == 9, "short receive");
		printf("B: read %zd of 32 bytes into a 9-byte buffer (\"%.9s\"), MSG_TRUNC %s; the rest is discarded\n",
		       n, buf, mh.msg_flags & MSG_TRUNC ? "set" : "not set");
	}

	rdma_demo(fa, &a, fb, &b);

	/* a look at the live sockets, e.g. with rdsctl */
	if (getenv("RDS_DEMO_SHOW")) {
		fflush(stdout);
		check(system(getenv("RDS_DEMO_SHOW")) == 0, "RDS_DEMO_SHOW");
	}

	close(fa);
	close(fb);
	printf("done\n");
	return 0;
}
