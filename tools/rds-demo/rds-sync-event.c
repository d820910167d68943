// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds-sync-event: a remote sync event built on rds_doca RDMA.
 *
 * A sync event is a 64-bit word in the memory of one socket, its owner.
 * The owner registers the word (RDS_GET_MR) and gives its cookie to a peer
 * in a message (RDS_CMSG_RDMA_DEST).  The peer then gets the word with an
 * 8-byte RDMA read, sets it with an 8-byte RDMA write and adds to it with
 * RDS_CMSG_ATOMIC_FADD, which also returns the previous value.  Each of
 * these is one sendmsg() with RDS_RDMA_NOTIFY_ME | RDS_RDMA_SILENT: no
 * message reaches the owner, and the call returns once the peer's notice
 * says the operation is done.  The owner watches the word in its own
 * memory with sync_event_wait_ge().
 *
 * These are the get, set, add and wait of DOCA's sync event, made of the
 * socket API alone; Documentation/sync-event.rst explains the choices.
 *
 * main() plays both sides in one process, on 127.0.0.1 unless told
 * otherwise, and checks every result, printing TAP lines:
 *
 *	rds-sync-event [--family N] [--addr OWNER] [--peer PEER]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/rds_doca.h>
#include "rds_doca_user.h"

/* ---- the sync event -------------------------------------------------- */

/**
 * struct sync_event_local - the owner's side of a sync event
 * @fd: the owner's socket, which registered the word.
 * @word: the event's value, alone on a page of its own.
 * @cookie: the word's cookie, to be handed to peers.
 */
struct sync_event_local {
	int fd;
	volatile uint64_t *word;
	rds_rdma_cookie_t cookie;
};

/**
 * struct sync_event_remote - a peer's handle on another socket's event
 * @fd: the peer's socket.  Waiting for a notice reads it: give the handle
 *	a socket that receives nothing else (see sync_event_wait_notice()).
 * @peer: the owner's address and port.
 * @cookie: the cookie the owner sent.
 */
struct sync_event_remote {
	int fd;
	struct sockaddr_in peer;
	rds_rdma_cookie_t cookie;
};

/*
 * Return values of the peer's calls (get, set, add): 0 once the operation
 * is done; the RDS_RDMA_* status (> 0) it completed with if it failed,
 * RDS_RDMA_REMOTE_ERROR for a cookie the owner has freed; or a negative
 * errno if it could not be sent (sendmsg()'s errors) or its notice did
 * not come within the timeout (-ETIMEDOUT).
 */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * sync_event_create - register a new event, of value 0, on a socket
 * @fd: the owner's socket, bound.
 *
 * The word gets a page of its own, so that registering it pins nothing
 * else and peers can reach nothing but the 8 registered bytes.  Returns
 * the event, or NULL with errno set (RDS_GET_MR's errors among them).
 */
struct sync_event_local *sync_event_create(int fd)
{
	struct rds_get_mr_args args = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	struct sync_event_local *ev;
	void *mem;
	int err;

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return NULL;
	mem = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		err = errno;
		free(ev);
		errno = err;
		return NULL;
	}
	ev->fd = fd;
	ev->word = mem;
	*ev->word = 0;

	args.vec.addr = (uintptr_t)mem;
	args.vec.bytes = sizeof(uint64_t);
	args.cookie_addr = (uintptr_t)&ev->cookie;
	if (setsockopt(fd, SOL_RDS, RDS_GET_MR, &args, sizeof(args))) {
		err = errno;
		munmap(mem, page);
		free(ev);
		errno = err;
		return NULL;
	}
	return ev;
}

/**
 * sync_event_destroy - unregister an event and free it
 * @ev: the event, may be NULL.
 *
 * From RDS_FREE_MR on, a peer's operation on the cookie fails with
 * RDS_RDMA_REMOTE_ERROR and does not touch the word.  Returns 0, or -errno
 * from RDS_FREE_MR (the event is freed all the same).
 */
int sync_event_destroy(struct sync_event_local *ev)
{
	struct rds_free_mr_args args = { 0 };
	int ret = 0;

	if (!ev)
		return 0;
	args.cookie = ev->cookie;
	if (setsockopt(ev->fd, SOL_RDS, RDS_FREE_MR, &args, sizeof(args)))
		ret = -errno;
	munmap((void *)ev->word, sysconf(_SC_PAGESIZE));
	free(ev);
	return ret;
}

/**
 * sync_event_wait_ge - wait until the event's value is at least @value
 * @ev: the owner's event.
 * @value: the value to wait for.
 * @timeout_ms: how long, in milliseconds.
 *
 * A local memory read of the word, repeated: the peers' operations are
 * silent, so nothing arrives on the socket to wake the owner.  This is
 * DOCA's wait_gt with >= in place of > (wait_ge(v) is wait_gt(v - 1)).
 * The load is an acquire: what the owner reads after it was not read
 * before it.  Returns 0, or -ETIMEDOUT.
 */
int sync_event_wait_ge(const struct sync_event_local *ev, uint64_t value,
		       int timeout_ms)
{
	const struct timespec pause = { .tv_nsec = 20000 };
	int64_t deadline = now_ms() + timeout_ms;

	for (;;) {
		if (__atomic_load_n(ev->word, __ATOMIC_ACQUIRE) >= value)
			return 0;
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
}

/* Tokens of this process's operations, to match notices with them. */
static uint64_t sync_event_tokens;

static uint64_t sync_event_token(void)
{
	return __atomic_add_fetch(&sync_event_tokens, 1, __ATOMIC_RELAXED);
}

/*
 * Wait until the notice of the operation @token comes to @fd, and return
 * its status, or -ETIMEDOUT (or another -errno from poll() or recvmsg()).
 *
 * A recvmsg() that finds notices queued returns them and no message; one
 * that finds none returns the next message instead, and that message is
 * consumed here and lost.  The handle's socket should therefore receive
 * nothing but notices.  Notices of other tokens (operations that timed
 * out earlier) are dropped.
 */
static int sync_event_wait_notice(int fd, uint64_t token, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	union {
		struct cmsghdr align;
		char buf[8 * CMSG_SPACE(sizeof(struct rds_rdma_notify))];
	} cbuf;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct msghdr mh = {
			.msg_control = cbuf.buf,
			.msg_controllen = sizeof(cbuf),
		};
		int64_t left = deadline - now_ms();
		struct rds_rdma_notify n;
		struct cmsghdr *cm;
		ssize_t got;
		int ret;

		if (left <= 0)
			return -ETIMEDOUT;
		ret = poll(&pfd, 1, left);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret <= 0)
			continue;
		got = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (got < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_RDS ||
			    cm->cmsg_type != RDS_CMSG_RDMA_STATUS ||
			    cm->cmsg_len < CMSG_LEN(sizeof(n)))
				continue;
			memcpy(&n, CMSG_DATA(cm), sizeof(n));
			if (n.user_token == token)
				return n.status;
		}
	}
}

/*
 * Send one silent operation to the owner and wait for its notice.
 *
 * @local is the operation's 8-byte local buffer, from sync_event_slot():
 * the value read or written, or the previous value of an atomic.  Once
 * the outcome is known its contents go to @out (if the operation
 * succeeded and @out is not NULL) and it is freed.  It is heap memory,
 * not the caller's stack, because an operation whose notice did not come
 * in time may still run later and use it: it is then left allocated.
 */
static int sync_event_op(const struct sync_event_remote *ev, int type,
			 const void *args, size_t len, uint64_t token,
			 uint64_t *local, uint64_t *out, int timeout_ms)
{
	int ret;

	/* an empty message: with RDS_RDMA_SILENT it is never delivered */
	if (rds_doca_send_cmsg(ev->fd, &ev->peer, NULL, 0, type, args, len,
			       0) < 0) {
		ret = -errno;
		free(local);		/* refused: nothing will run */
		return ret;
	}
	ret = sync_event_wait_notice(ev->fd, token, timeout_ms);
	if (ret < 0)
		return ret;		/* @local stays: the operation may run */
	if (ret == RDS_RDMA_SUCCESS && out)
		*out = __atomic_load_n(local, __ATOMIC_RELAXED);
	free(local);
	return ret;
}

/* 8 bytes for an operation's local side, 8-byte aligned. */
static uint64_t *sync_event_slot(uint64_t value)
{
	uint64_t *slot = aligned_alloc(sizeof(uint64_t), sizeof(uint64_t));

	if (slot)
		*slot = value;
	return slot;
}

/* Read (into *@out) or write (@value) the word with RDS_CMSG_RDMA_ARGS. */
static int sync_event_rdma(const struct sync_event_remote *ev, bool write,
			   uint64_t value, uint64_t *out, int timeout_ms)
{
	uint64_t *slot = sync_event_slot(value);
	struct rds_iovec vec = { .addr = (uintptr_t)slot, .bytes = 8 };
	struct rds_rdma_args args = {
		.cookie = ev->cookie,
		.remote_vec = { .addr = 0, .bytes = 8 },
		.local_vec_addr = (uintptr_t)&vec,
		.nr_local = 1,
		.flags = RDS_RDMA_NOTIFY_ME | RDS_RDMA_SILENT |
			 (write ? RDS_RDMA_READWRITE : 0),
		.user_token = sync_event_token(),
	};

	if (!slot)
		return -ENOMEM;
	return sync_event_op(ev, RDS_CMSG_RDMA_ARGS, &args, sizeof(args),
			     args.user_token, slot, out, timeout_ms);
}

/**
 * sync_event_get - read the event's value
 * @ev: the peer's handle.
 * @value: set to the value, on success.
 * @timeout_ms: how long to wait for the notice.
 *
 * An 8-byte RDMA read.  Returns as described under "Return values".
 */
int sync_event_get(const struct sync_event_remote *ev, uint64_t *value,
		   int timeout_ms)
{
	return sync_event_rdma(ev, false, 0, value, timeout_ms);
}

/**
 * sync_event_set - set the event's value
 * @ev: the peer's handle.
 * @value: the new value.
 * @timeout_ms: how long to wait for the notice.
 *
 * An 8-byte RDMA write.  It is not atomic against other peers' operations
 * on the word (see Documentation/sync-event.rst).  Returns as described
 * under "Return values".
 */
int sync_event_set(const struct sync_event_remote *ev, uint64_t value,
		   int timeout_ms)
{
	return sync_event_rdma(ev, true, value, NULL, timeout_ms);
}

/**
 * sync_event_add - add to the event's value
 * @ev: the peer's handle.
 * @delta: what to add (modulo 2^64).
 * @prev: if not NULL, set to the value before the addition, on success.
 * @timeout_ms: how long to wait for the notice.
 *
 * RDS_CMSG_ATOMIC_FADD: atomic against every other atomic on the word.
 * Returns as described under "Return values".
 */
int sync_event_add(const struct sync_event_remote *ev, uint64_t delta,
		   uint64_t *prev, int timeout_ms)
{
	uint64_t *slot = sync_event_slot(0);
	struct rds_atomic_args args = { 0 };

	if (!slot)
		return -ENOMEM;
	args.cookie = ev->cookie;
	args.local_addr = (uintptr_t)slot;
	args.remote_addr = 0;
	args.fadd.add = delta;
	args.flags = RDS_RDMA_NOTIFY_ME | RDS_RDMA_SILENT;
	args.user_token = sync_event_token();
	return sync_event_op(ev, RDS_CMSG_ATOMIC_FADD, &args, sizeof(args),
			     args.user_token, slot, prev, timeout_ms);
}

/* ---- the example --------------------------------------------------- */

#define TIMEOUT_MS	5000	/* for anything that must happen */
#define QUIET_MS	200	/* watching for what must not */

static unsigned int tests, failed;

static __attribute__((format(printf, 2, 3))) bool ok(bool pass,
						     const char *fmt, ...)
{
	va_list ap;

	printf("%sok %u - ", pass ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!pass)
		failed++;
	return pass;
}

static __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int finish(void)
{
	printf("%u passed, %u failed\n", tests - failed, failed);
	return failed || !tests;
}

/* What a sync_event_* return value means. */
static const char *result(int ret)
{
	if (ret == 0)
		return "done";
	if (ret == -ETIMEDOUT)
		return "timed out";
	return ret < 0 ? strerror(-ret) : rds_doca_status_name(ret);
}

/* A socket bound to @addr and a free port; -1 with a diagnostic if not. */
static int open_bound(int family, struct in_addr addr, struct sockaddr_in *sin)
{
	const char *failed;
	int fd = rds_doca_bound_socket(family, addr, sin, &failed);

	if (fd < 0)
		diag("%s (family %d, %s): %s", failed, family, inet_ntoa(addr),
		     strerror(errno));
	return fd;
}

/* The owner hands its cookie to @to in a message with RDS_CMSG_RDMA_DEST. */
static int publish(const struct sync_event_local *ev,
		   const struct sockaddr_in *to)
{
	static const char what[] = "sync event";

	return rds_doca_send_cmsg(ev->fd, to, what, strlen(what),
				  RDS_CMSG_RDMA_DEST, &ev->cookie,
				  sizeof(ev->cookie), 0) < 0 ? -errno : 0;
}

/*
 * The peer receives the owner's message and makes a handle from it: the
 * cookie from RDS_CMSG_RDMA_DEST, the owner's address from the sender's.
 */
static int subscribe(int fd, struct sync_event_remote *rev)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(rds_rdma_cookie_t)) + 64];
	} cbuf;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char payload[64];
	struct iovec iov = { .iov_base = payload, .iov_len = sizeof(payload) };
	struct msghdr mh = {
		.msg_name = &rev->peer,
		.msg_namelen = sizeof(rev->peer),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf.buf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int n;

	do {
		n = poll(&pfd, 1, TIMEOUT_MS);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n ? -errno : -ETIMEDOUT;
	if (recvmsg(fd, &mh, MSG_DONTWAIT) < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_RDS &&
		    cm->cmsg_type == RDS_CMSG_RDMA_DEST &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(rev->cookie))) {
			memcpy(&rev->cookie, CMSG_DATA(cm),
			       sizeof(rev->cookie));
			rev->fd = fd;
			return 0;
		}
	}
	return -ENOMSG;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [--family N] [--addr OWNER] [--peer PEER]\n"
		"  --family N    address family (default: from /sys/module/rds_doca/parameters/family)\n"
		"  --addr OWNER  the owner socket's address (default 127.0.0.1)\n"
		"  --peer PEER   the peer socket's address (default: OWNER)\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "addr", required_argument, NULL, 'a' },
		{ "peer", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct in_addr addr = { htonl(INADDR_LOOPBACK) }, paddr;
	struct sockaddr_in osin, psin;
	struct sync_event_remote rev = { 0 };
	struct sync_event_local *ev = NULL;
	int family = -1, owner, peer, c, ret;
	bool have_peer = false, all;
	struct pollfd pfd;
	uint64_t v, prev;
	unsigned int i;

	while ((c = getopt_long(argc, argv, "f:a:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			family = atoi(optarg);
			break;
		case 'a':
			if (!inet_aton(optarg, &addr)) {
				fprintf(stderr, "bad address: %s\n", optarg);
				return 2;
			}
			break;
		case 'p':
			if (!inet_aton(optarg, &paddr)) {
				fprintf(stderr, "bad address: %s\n", optarg);
				return 2;
			}
			have_peer = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr, argv[0]);
		return 2;
	}
	if (family < 0)
		family = rds_doca_family();
	if (!have_peer)
		paddr = addr;

	diag("rds-sync-event: address family %d", family);
	owner = open_bound(family, addr, &osin);
	peer = open_bound(family, paddr, &psin);
	if (!ok(owner >= 0 && peer >= 0, "owner and peer sockets bound"))
		return finish();
	diag("owner %s, peer %s", rds_doca_sin_name(&osin), rds_doca_sin_name(&psin));

	/* The owner's side: register the word and publish its cookie. */
	ev = sync_event_create(owner);
	if (!ok(ev != NULL, "owner registers the event word with RDS_GET_MR")) {
		diag("sync_event_create: %s", strerror(errno));
		return finish();
	}
	diag("cookie 0x%016" PRIx64 ", word at %p", (uint64_t)ev->cookie,
	     (void *)ev->word);
	ret = publish(ev, &psin);
	if (!ret)
		ret = subscribe(peer, &rev);
	if (!ok(!ret && rev.cookie == ev->cookie &&
		rev.peer.sin_port == osin.sin_port,
		"peer receives the cookie with RDS_CMSG_RDMA_DEST")) {
		diag("%s; cookie 0x%016" PRIx64 " from %s", result(ret),
		     (uint64_t)rev.cookie, rds_doca_sin_name(&rev.peer));
		sync_event_destroy(ev);
		return finish();
	}

	/* The peer's side. */
	ret = sync_event_set(&rev, 10, TIMEOUT_MS);
	ok(!ret, "set(10): %s", result(ret));

	ret = sync_event_wait_ge(ev, 10, TIMEOUT_MS);
	v = *ev->word;
	if (!ok(!ret && v == 10, "owner sees 10 with sync_event_wait_ge()"))
		diag("%s, word %" PRIu64, result(ret), v);

	prev = ~0ULL;
	ret = sync_event_add(&rev, 5, &prev, TIMEOUT_MS);
	if (!ok(!ret && prev == 10, "add(5) returns the previous value 10"))
		diag("%s, previous value %" PRIu64, result(ret), prev);

	v = ~0ULL;
	ret = sync_event_get(&rev, &v, TIMEOUT_MS);
	if (!ok(!ret && v == 15, "get() returns 15"))
		diag("%s, value %" PRIu64, result(ret), v);

	all = true;
	for (i = 0; i < 1000; i++) {
		prev = ~0ULL;
		ret = sync_event_add(&rev, 1, &prev, TIMEOUT_MS);
		if (ret || prev != 15 + i) {
			diag("add %u: %s, previous value %" PRIu64
			     ", expected %u", i + 1, result(ret), prev, 15 + i);
			all = false;
			break;
		}
	}
	ok(all, "1000 adds of 1, each returning the value before it");

	v = ~0ULL;
	ret = sync_event_get(&rev, &v, TIMEOUT_MS);
	if (!ok(!ret && v == 1015, "get() returns 1015"))
		diag("%s, value %" PRIu64, result(ret), v);

	ret = sync_event_wait_ge(ev, 1015, TIMEOUT_MS);
	v = *ev->word;
	if (!ok(!ret && v == 1015, "owner's word holds 1015"))
		diag("%s, word %" PRIu64, result(ret), v);

	/* RDS_RDMA_SILENT: not one message came to the owner. */
	pfd.fd = owner;
	pfd.events = POLLIN;
	do {
		ret = poll(&pfd, 1, QUIET_MS);
	} while (ret < 0 && errno == EINTR);
	ok(ret == 0, "no message reached the owner (RDS_RDMA_SILENT)");

	ret = sync_event_destroy(ev);
	if (!ok(!ret, "owner frees the event with RDS_FREE_MR"))
		diag("%s", result(ret));
	ret = sync_event_get(&rev, &v, TIMEOUT_MS);
	ok(ret == RDS_RDMA_REMOTE_ERROR,
	   "get() after sync_event_destroy(): %s", result(ret));

	close(owner);
	close(peer);
	return finish();
}
