// SPDX-License-Identifier: GPL-2.0
/*
 * recvmsg(): source addresses, MSG_PEEK, MSG_TRUNC and the other flags,
 * timeouts and signals, timestamps, and message boundaries.
 */
#include "api.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <sys/time.h>

/* recvmsg(MSG_DONTWAIT) on @fd, waiting up to ARRIVE_MS for a message. */
static ssize_t recvmsg_wait(int fd, struct msghdr *msg)
{
	struct pollfd p = { fd, POLLIN, 0 };
	long long end = now_ms() + ARRIVE_MS;
	ssize_t r;

	do {
		poll(&p, 1, 100);
		r = recvmsg(fd, msg, MSG_DONTWAIT);
	} while (r < 0 && errno == EAGAIN && now_ms() < end);
	return r;
}

void test_recv_basic(void)
{
	static const char zero[sizeof(union rds_sa)];
	union rds_sa from, exp;
	struct msghdr msg;
	struct iovec iov;
	char buf[256], name[128];
	socklen_t nlen;
	int a, b;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;
	exp = sock_addr(a);
	nlen = sa_len(&exp);
	send_str(a, b, "payload-1");

	memset(name, 0xa5, sizeof(name));
	msg_init(&msg, &iov, buf, sizeof(buf));
	msg.msg_name = name;
	msg.msg_namelen = sizeof(name);
	msg.msg_flags = -1;
	r = recvmsg_wait(b, &msg);
	is_eq(r, 9, "recvmsg returns the message length");
	ok(!memcmp(buf, "payload-1", 9), "payload intact");
	is_eq(msg.msg_namelen, nlen, "msg_namelen is sizeof(sockaddr_in%s)",
	      cfg.v6 ? "6" : "");
	memcpy(&from, name, nlen);
	is_eq(from.sa.sa_family, cfg_af(), "source family AF_INET%s",
	      cfg.v6 ? "6" : "");
	is_eq(sa_port(&from), sa_port(&exp), "source port");
	ok(sa_same(&from, &exp), "source address");
	if (cfg.v6)
		ok(!from.sin6.sin6_flowinfo && !from.sin6.sin6_scope_id,
		   "no flow label, no scope id");
	else
		ok(!memcmp(from.sin.sin_zero, zero, 8), "sin_zero cleared");
	ok((unsigned char)name[nlen] == 0xa5,
	   "nothing written past the sockaddr_in%s", cfg.v6 ? "6" : "");
	is_eq(msg.msg_flags, 0, "msg_flags 0");

	/* a short name buffer: truncated copy, full length reported */
	send_str(a, b, "payload-2");
	memset(name, 0xa5, sizeof(name));
	msg.msg_namelen = 4;
	r = recvmsg_wait(b, &msg);
	is_eq(r, 9, "recvmsg with a 4-byte name buffer");
	memcpy(&from, name, nlen);
	ok(msg.msg_namelen == nlen && from.sa.sa_family == cfg_af() &&
	   sa_port(&from) == sa_port(&exp) &&
	   (unsigned char)name[4] == 0xa5 && (unsigned char)name[7] == 0xa5,
	   "4 bytes of the address copied, msg_namelen %u", nlen);

	/* recvfrom() with no address buffer at all */
	send_str(a, b, "payload-3");
	r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS);
	ok(r == 9 && !memcmp(buf, "payload-3", 9),
	   "recv without a name buffer");
	close(a);
	close(b);
}

void test_recv_peek(void)
{
	char buf[64];
	int a, b, flags = 0;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;
	send_str(a, b, "peekaboo");
	send_str(a, b, "second");
	memset(buf, 0, sizeof(buf));
	r = recv_wait(b, buf, sizeof(buf), NULL, &flags, MSG_PEEK, ARRIVE_MS);
	ok(r == 8 && !memcmp(buf, "peekaboo", 8), "MSG_PEEK returns the message");
	memset(buf, 0, sizeof(buf));
	r = recv(b, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	ok(r == 8 && !memcmp(buf, "peekaboo", 8), "a second MSG_PEEK: same");
	recv_expect(b, "peekaboo", 8, a, "a normal read then gets it");
	recv_expect(b, "second", 6, a, "and then the next one");
	is_err(recv(b, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	       "queue is empty afterwards");

	/* peeking with a short buffer does not discard anything */
	send_str(a, b, "0123456789");
	r = recv_wait(b, buf, 4, NULL, &flags, MSG_PEEK, ARRIVE_MS);
	ok(r == 4 && (flags & MSG_TRUNC), "short MSG_PEEK: 4 bytes, MSG_TRUNC");
	/* the usual idiom to learn the length of the next message */
	r = recv(b, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
	is_eq(r, 10, "MSG_PEEK | MSG_TRUNC with no buffer returns the length");
	recv_expect(b, "0123456789", 10, a, "the whole message is still there");
	close(a);
	close(b);
}

void test_recv_nonblock(void)
{
	char buf[16];
	int b, on = 1;

	b = bound_socket_cfg(true, 0, "setup");
	if (b < 0)
		return;
	is_err(recv(b, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	       "MSG_DONTWAIT on an empty queue -> EAGAIN");
	is_ok(ioctl(b, FIONBIO, &on), "FIONBIO");
	is_err(recv(b, buf, sizeof(buf), 0), EAGAIN,
	       "O_NONBLOCK socket, empty queue -> EAGAIN");
	on = 0;
	ioctl(b, FIONBIO, &on);
	close(b);

	b = socket(cfg.family, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
	is_err(recv(b, buf, sizeof(buf), 0), EAGAIN,
	       "SOCK_NONBLOCK, unbound -> EAGAIN");
	close(b);
}

void test_recv_timeout(void)
{
	struct timeval tv = { 0, 100 * 1000 };
	char buf[16];
	int b, a;

	if (!make_pair(&a, &b))
		return;
	is_ok(setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)),
	      "SO_RCVTIMEO 100 ms");
	/*
	 * rds_recvmsg() turns an expired wait into -ETIMEDOUT, where
	 * UDP and TCP return EAGAIN.
	 */
	is_err(recv(b, buf, sizeof(buf), 0), ETIMEDOUT,
	       "blocking recv times out with ETIMEDOUT");

	/* and a message that is there is returned at once */
	tv.tv_sec = ARRIVE_MS / 1000;
	tv.tv_usec = 0;
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	send_str(a, b, "in-time");
	memset(buf, 0, sizeof(buf));
	ok(recv(b, buf, sizeof(buf), 0) == 7 && !memcmp(buf, "in-time", 7),
	   "blocking recv returns a message that arrives");
	close(a);
	close(b);
}

struct kill_arg {
	pthread_t target;
	int delay_ms;
};

static void *kill_later(void *p)
{
	struct kill_arg *k = p;

	sleep_ms(k->delay_ms);
	pthread_kill(k->target, SIGUSR1);
	return NULL;
}

void test_recv_eintr(void)
{
	struct timeval tv = { 5, 0 };
	struct kill_arg k = { pthread_self(), 200 };
	pthread_t t;
	char buf[16];
	int b;

	b = bound_socket_cfg(true, 0, "setup");
	if (b < 0)
		return;
	install_sigusr1();
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	pthread_create(&t, NULL, kill_later, &k);
	is_err(recv(b, buf, sizeof(buf), 0), EINTR,
	       "a signal interrupts a blocked recv with EINTR");
	pthread_join(t, NULL);
	close(b);
}

struct send_arg {
	int from, to, delay_ms;
};

static void *send_later(void *p)
{
	struct send_arg *s = p;

	sleep_ms(s->delay_ms);
	send_str(s->from, s->to, "spun");
	return NULL;
}

struct busy_res {
	int drop_err;	/* run_as_nobody() */
	int set_ret, set_err, val;
};

/* As nobody: raise SO_BUSY_POLL on a socket of our own. */
static void busy_poll_unprivileged(void *p)
{
	struct busy_res *r = p;
	int fd = rds_socket();

	r->set_ret = set_int(fd, SOL_SOCKET, SO_BUSY_POLL, 200000);
	r->set_err = errno;
	get_int(fd, SOL_SOCKET, SO_BUSY_POLL, &r->val);
	close(fd);
}

/*
 * SO_BUSY_POLL: a blocking recv spins for that long before it sleeps and
 * takes a message that comes meanwhile without sleeping, which
 * recv_busy_poll counts; the spin ends with the receive timeout or a
 * signal as a sleep would.
 */
void test_recv_busy_poll(void)
{
	struct timeval tv = { 5, 0 };
	struct kill_arg k = { pthread_self(), 20 };
	struct send_arg s;
	uint64_t c0 = 0, c1 = 0;
	pthread_t t;
	char buf[16];
	int a, b, v;
	long long t0;

	struct busy_res r;

	if (!make_pair(&a, &b))
		return;
	/*
	 * The socket core decides who may raise it (6.12: anybody, on
	 * sockets of their own; older kernels: CAP_NET_ADMIN); the socket
	 * keeps what it was told, or nothing.
	 */
	if (!geteuid() && run_as_nobody(busy_poll_unprivileged, &r, sizeof(r)))
		ok(r.set_ret == 0 ? r.val == 200000 :
		   r.set_err == EPERM && r.val == 0,
		   "as nobody, SO_BUSY_POLL is kept if set, else EPERM and 0");
	/* 200 ms of spinning, far longer than the message takes to come */
	is_ok(set_int(b, SOL_SOCKET, SO_BUSY_POLL, 200000), "SO_BUSY_POLL 200 ms");
	ok(get_int(b, SOL_SOCKET, SO_BUSY_POLL, &v) == 0 && v == 200000,
	   "getsockopt SO_BUSY_POLL returns it");
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ok(counter_read(b, "recv_busy_poll", &c0), "counter recv_busy_poll");
	s = (struct send_arg){ a, b, 20 };
	pthread_create(&t, NULL, send_later, &s);
	memset(buf, 0, sizeof(buf));
	ok(recv(b, buf, sizeof(buf), 0) == 4 && !memcmp(buf, "spun", 4),
	   "a blocking recv gets a message that comes while it spins");
	pthread_join(t, NULL);
	ok(counter_read(b, "recv_busy_poll", &c1) && c1 == c0 + 1,
	   "recv_busy_poll counts it (taken while spinning)");

	/* nothing comes: the receive timeout still ends the wait */
	tv = (struct timeval){ 0, 50 * 1000 };
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	t0 = now_ms();
	is_err(recv(b, buf, sizeof(buf), 0), ETIMEDOUT,
	       "spinning, then the timeout: ETIMEDOUT");
	ok(now_ms() - t0 < ARRIVE_MS, "the spin is bounded");

	/* a signal during the spin interrupts it */
	tv = (struct timeval){ 5, 0 };
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	install_sigusr1();
	pthread_create(&t, NULL, kill_later, &k);
	is_err(recv(b, buf, sizeof(buf), 0), EINTR,
	       "a signal interrupts a spinning recv with EINTR");
	pthread_join(t, NULL);
	close(a);
	close(b);
}

void test_recv_trunc(void)
{
	char msg[100], buf[200];
	int a, b, flags = 0;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;
	pattern_fill(msg, sizeof(msg), 3);
	{
		union rds_sa to = sock_addr(b);

		send_to(a, &to, msg, sizeof(msg), 0);
		send_to(a, &to, "next", 4, 0);
		send_to(a, &to, msg, sizeof(msg), 0);
		send_to(a, &to, msg, sizeof(msg), 0);
	}

	/* a short buffer: truncated, MSG_TRUNC, the rest is discarded */
	r = recv_wait(b, buf, 10, NULL, &flags, 0, ARRIVE_MS);
	is_eq(r, 10, "short buffer: 10 bytes returned");
	ok(flags & MSG_TRUNC, "MSG_TRUNC set in msg_flags");
	ok(!memcmp(buf, msg, 10), "the first 10 bytes are correct");
	recv_expect(b, "next", 4, a,
		    "the next recv gets the next message, not the rest");

	/* MSG_TRUNC in flags: the full length is returned */
	r = recv_wait(b, buf, 10, NULL, &flags, MSG_TRUNC, ARRIVE_MS);
	is_eq(r, sizeof(msg), "MSG_TRUNC flag: full length returned");
	ok(flags & MSG_TRUNC, "MSG_TRUNC set in msg_flags");
	ok(!memcmp(buf, msg, 10), "the first 10 bytes are correct");

	/* an exact fit is not truncated */
	r = recv_wait(b, buf, sizeof(msg), NULL, &flags, 0, ARRIVE_MS);
	ok(r == sizeof(msg) && !(flags & MSG_TRUNC) &&
	   !memcmp(buf, msg, sizeof(msg)), "exact-size buffer: no MSG_TRUNC");
	marker(a, b, "nothing left of the truncated messages");
	close(a);
	close(b);
}

void test_recv_flags(void)
{
	char buf[64];
	int a, b;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;
	send_str(a, b, "oob-test");
	/* wait for it without taking it */
	r = recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	ok(r == 8, "message queued");
	/*
	 * rds_recvmsg() returns 0 for MSG_OOB without looking at the
	 * queue (it jumps to the exit with ret = 0).
	 */
	memset(buf, 0, sizeof(buf));
	is_eq(recv(b, buf, sizeof(buf), MSG_OOB | MSG_DONTWAIT), 0,
	      "MSG_OOB returns 0");
	recv_expect(b, "oob-test", 8, a, "and leaves the message queued");

	/* sock_recv_errqueue() on an empty error queue */
	is_err(recv(b, buf, sizeof(buf), MSG_ERRQUEUE | MSG_DONTWAIT), EAGAIN,
	       "MSG_ERRQUEUE -> EAGAIN");

	/* a bad buffer fails the copy and keeps the message */
	send_str(a, b, "fault");
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	is_err(recv(b, (void *)8, 64, MSG_DONTWAIT), EFAULT,
	       "buffer pointer 0x8 -> EFAULT");
	{
		struct msghdr m = { .msg_iov = (struct iovec *)8,
				    .msg_iovlen = 1 };

		is_err(recvmsg(b, &m, MSG_DONTWAIT), EFAULT,
		       "msg_iov pointer 0x8 -> EFAULT");
	}
	/* rds_recvmsg() breaks out before dequeuing when the copy fails */
	recv_expect(b, "fault", 5, a, "the message survives the EFAULT");
	close(a);
	close(b);
}

void test_recv_timestamp(void)
{
	union {
		struct cmsghdr cm;
		char buf[CMSG_SPACE(sizeof(struct timeval)) + 64];
	} cb;
	struct timeval before, after, tv;
	struct cmsghdr *cm;
	struct msghdr msg;
	struct iovec iov;
	char buf[32];
	int a, b, found;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;

	/* rds_setsockopt(): SOL_RDS/SO_TIMESTAMP wants exactly an int */
	{
		int one = 1;

		is_err(setsockopt(b, SOL_RDS, SO_TIMESTAMP, &one, 2), EFAULT,
		       "SOL_RDS SO_TIMESTAMP with optlen 2 -> EFAULT");
	}
	is_ok(set_int(b, SOL_SOCKET, SO_TIMESTAMP, 1), "SO_TIMESTAMP on");

	gettimeofday(&before, NULL);
	send_str(a, b, "stamped");
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	gettimeofday(&after, NULL);

	msg_init(&msg, &iov, buf, sizeof(buf));
	msg.msg_control = &cb;
	msg.msg_controllen = sizeof(cb);
	r = recvmsg(b, &msg, MSG_DONTWAIT);
	is_eq(r, 7, "message received");
	found = cmsg_count(&msg, SOL_SOCKET, SCM_TIMESTAMP, &tv, sizeof(tv));
	ok(found == 1, "one SCM_TIMESTAMP cmsg");
	ok(!(msg.msg_flags & MSG_CTRUNC), "no MSG_CTRUNC");
	ok(found && tv.tv_usec >= 0 && tv.tv_usec < 1000000 &&
	   tv.tv_sec >= before.tv_sec - 1 && tv.tv_sec <= after.tv_sec + 1,
	   "timestamp taken between send and receive");

	/* no control buffer at all: MSG_CTRUNC (put_cmsg) */
	r = send_recvmsg(a, b, "stamped", &msg, NULL, 0);
	ok(r == 7 && !memcmp(buf, "stamped", 7),
	   "no control buffer: data still received");
	ok(msg.msg_flags & MSG_CTRUNC, "no control buffer: MSG_CTRUNC");

	/* a control buffer too small for the timestamp */
	r = send_recvmsg(a, b, "stamped", &msg, &cb,
			 sizeof(struct cmsghdr) + 4);
	ok(r == 7 && (msg.msg_flags & MSG_CTRUNC),
	   "20-byte control buffer: MSG_CTRUNC");

	/* off again: no cmsg */
	is_ok(set_int(b, SOL_SOCKET, SO_TIMESTAMP, 0), "SO_TIMESTAMP off");
	r = send_recvmsg(a, b, "plain", &msg, &cb, sizeof(cb));
	ok(r == 5 && msg.msg_controllen == 0 && !msg.msg_flags,
	   "SO_TIMESTAMP off: no control message");

	/* the SOL_RDS spelling of the option does the same */
	is_ok(set_int(b, SOL_RDS, SO_TIMESTAMP, 1), "SOL_RDS SO_TIMESTAMP on");
	r = send_recvmsg(a, b, "stamped", &msg, &cb, sizeof(cb));
	cm = CMSG_FIRSTHDR(&msg);
	ok(r == 7 && cm && cm->cmsg_level == SOL_SOCKET &&
	   cm->cmsg_type == SCM_TIMESTAMP, "and delivers SCM_TIMESTAMP");
	close(a);
	close(b);
}

void test_recv_sizes(void)
{
	static const size_t sizes[] = { 0, 1, 64, 4095, 4096, 4097, 65536,
					1 << 20, 3, 1 << 20, 0, 70000 };
	const int n = ARRAY_SIZE(sizes);
	static char tx[(1 << 20) + 1], rx[(1 << 20) + 1];
	union rds_sa to, from;
	int a, b, i, flags = 0, good = 0;
	ssize_t r;
	long bad;

	if (!make_pair(&a, &b))
		return;
	if (!is_ok(set_int(a, SOL_SOCKET, SO_SNDBUFFORCE, 8 << 20),
		   "SO_SNDBUFFORCE 8 MiB") ||
	    !is_ok(set_int(b, SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20),
		   "SO_RCVBUFFORCE 8 MiB"))
		goto out;
	to = sock_addr(b);
	for (i = 0; i < n; i++) {
		pattern_fill(tx, sizes[i], 100 + i);
		r = send_to(a, &to, tx, sizes[i], 0);
		if (r != (ssize_t)sizes[i]) {
			ok_diag(0, "send", "size %zu: %zd %s", sizes[i], r,
				tap_errname(errno));
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "message %d: %zu bytes intact", i,
			 sizes[i]);
		memset(rx, 0x5a, sizes[i] + 1);
		r = recv_wait(b, rx, sizeof(rx), &from, &flags, 0, ARRIVE_MS);
		bad = r == (ssize_t)sizes[i] ?
			pattern_check(rx, sizes[i], 100 + i) : -2;
		if (ok_diag(bad == -1 && !flags &&
			    sa_port(&from) == bound_port(a), name,
			    "recv %zd (%s) flags 0x%x, first bad byte %ld",
			    r, r < 0 ? tap_errname(errno) : "-", flags, bad))
			good++;
	}
	is_eq(good, n, "all boundaries preserved");

	/* scatter on send, gather on receive */
	{
		struct iovec siov[3] = { { tx, 1000 }, { tx + 1000, 1 },
					 { tx + 1001, 68999 } };
		struct iovec riov[2] = { { rx, 33333 }, { rx + 33333, 60000 } };
		struct msghdr sm = { .msg_name = &to, .msg_namelen = sa_len(&to),
				     .msg_iov = siov, .msg_iovlen = 3 };
		struct msghdr rm = { .msg_iov = riov, .msg_iovlen = 2 };

		pattern_fill(tx, 70000, 55);
		is_eq(sendmsg(a, &sm, 0), 70000, "3-iovec send of 70000 bytes");
		recv_wait(b, rx, 1, NULL, NULL, MSG_PEEK, ARRIVE_MS);
		memset(rx, 0, 70000);
		r = recvmsg(b, &rm, MSG_DONTWAIT);
		ok(r == 70000 && pattern_check(rx, 70000, 55) == -1 &&
		   !rm.msg_flags, "2-iovec receive reassembles it");
	}
out:
	close(a);
	close(b);
}
