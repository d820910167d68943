// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion: a receiver over its receive buffer stops its senders with
 * ENOBUFS or a blocking wait, and RDS_CONG_MONITOR reports the update.
 */
#include "api.h"

#include <signal.h>

#define CONG_MSG 1024

/*
 * net/rds: rds_recv_rcvbuf_delta() returns early for the loopback
 * transport, so a receiver that is over its SO_RCVBUF never congests a
 * loopback sender.
 */
void test_cong_loopback_none(void)
{
	union rds_sa to;
	char buf[CONG_MSG];
	int a, b, v = 0, i, n, sent = 0, enobufs = 0, good = 0;
	long long end;

	if (!make_pair(&a, &b))
		return;
	set_int(b, SOL_SOCKET, SO_RCVBUF, 4096);
	get_int(b, SOL_SOCKET, SO_RCVBUF, &v);
	set_int(a, SOL_RDS, RDS_CONG_MONITOR, 1);
	to = sock_addr(b);
	/* eight times the receive buffer */
	n = 8 * v / CONG_MSG;
	end = now_ms() + ARRIVE_MS;
	for (i = 0; i < n && now_ms() < end;) {
		pattern_fill(buf, sizeof(buf), i);
		if (send_to(a, &to, buf, sizeof(buf), MSG_DONTWAIT) ==
		    sizeof(buf)) {
			sent++;
			i++;
		} else if (errno == ENOBUFS) {
			enobufs++;
			break;
		} else if (errno == EAGAIN) {
			struct pollfd p = { a, POLLOUT, 0 };

			poll(&p, 1, 10);
		} else {
			break;
		}
	}
	is_eq(enobufs, 0, "no ENOBUFS while the receiver is over SO_RCVBUF");
	is_eq(sent, n, "%d x %d bytes sent to a %d-byte SO_RCVBUF", n,
	      CONG_MSG, v);
	for (i = 0; i < sent; i++) {
		ssize_t r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0,
				      ARRIVE_MS);

		if (r != CONG_MSG || pattern_check(buf, r, i) != -1)
			break;
		good++;
	}
	is_eq(good, sent, "all of them received in order");
	quiet(a, "no congestion notification");
	close(a);
	close(b);
}

struct blocked_send {
	int fd;
	union rds_sa to;
	char buf[CONG_MSG];
	volatile int done;
	ssize_t ret;
	int err;
};

static void *blocking_sender(void *p)
{
	struct blocked_send *s = p;

	s->ret = send_to(s->fd, &s->to, s->buf, sizeof(s->buf), 0);
	s->err = errno;
	__atomic_store_n(&s->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * How many CONG_MSG messages @a may send to a receiver with @limit usable
 * receive buffer before ENOBUFS must have come: over a network transport
 * the congestion update travels back to the sender while what its send
 * buffer holds is still in flight.
 */
static int congest_cap(int a, int limit)
{
	int sndbuf = 0;

	get_int(a, SOL_SOCKET, SO_SNDBUF, &sndbuf);
	return (4 * limit + sndbuf) / CONG_MSG + 64;
}

/*
 * Fill @b until a nonblocking send from @a fails with ENOBUFS.  Returns
 * the number of messages sent, -1 if ENOBUFS never came.
 */
static int congest(int a, int b, int limit, int seed0)
{
	union rds_sa to = sock_addr(b);
	char buf[CONG_MSG];
	int i, max = congest_cap(a, limit);
	long long end = now_ms() + ARRIVE_MS;

	for (i = 0; i < max && now_ms() < end;) {
		pattern_fill(buf, sizeof(buf), seed0 + i);
		if (send_to(a, &to, buf, sizeof(buf), MSG_DONTWAIT) ==
		    sizeof(buf)) {
			i++;
			continue;
		}
		if (errno == ENOBUFS)
			return i;
		if (errno != EAGAIN)
			return -1;
		/* the send queue is full: wait for it to drain */
		{
			struct pollfd p = { a, POLLOUT, 0 };

			poll(&p, 1, 10);
		}
	}
	return -1;
}

/*
 * rds_doca counts a queued message as at least its own size, so a receiver
 * that never reads cannot be filled without bound by empty messages.
 */
void test_cong_empty_messages(void)
{
	union rds_sa to;
	int a, b, i, v, limit, err = 0;
	long long end;
	char got[8];

	a = bound_socket_cfg(false, 0, "sender");
	b = bound_socket_cfg(true, 0, "receiver");
	if (a < 0 || b < 0)
		goto out;
	set_int(b, SOL_SOCKET, SO_RCVBUF, 8192);
	get_int(b, SOL_SOCKET, SO_RCVBUF, &v);
	limit = v / 2;
	to = sock_addr(b);
	end = now_ms() + ARRIVE_MS;
	for (i = 0; i < 100000 && now_ms() < end;) {
		if (send_to(a, &to, "", 0, MSG_DONTWAIT) == 0) {
			i++;
			continue;
		}
		err = errno;
		if (err != EAGAIN)
			break;
		/*
		 * Each empty message counts in the send buffer too: over a
		 * transport whose acknowledgments lag, it may fill before
		 * the congestion update comes back.  Wait for it to drain.
		 */
		poll(&(struct pollfd){ a, POLLOUT, 0 }, 1, 10);
	}
	ok_diag(err == ENOBUFS, "empty messages congest a receiver that never reads",
		"stopped after %d empty messages with errno %d", i, err);
	/*
	 * Only loopback congests the receiver before sendmsg() returns;
	 * elsewhere the messages in flight until the congestion update
	 * reaches the sender come on top.
	 */
	if (cfg.transport == RDS_TRANS_LOOP)
		ok_diag(i > 0 && i <= limit / 16,
			"each empty message counts for at least 16 bytes",
			"%d empty messages fit a %d-byte receive buffer", i,
			limit);
	else
		tap_diag("ENOBUFS after %d empty messages to a %d-byte "
			 "receive buffer", i, limit);
	is_eq(recv(b, got, sizeof(got), MSG_DONTWAIT), (ssize_t)0,
	       "an empty message reads as 0 bytes");
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

/* rds_doca: the loopback transport applies congestion like the others. */
void test_cong_enobufs(void)
{
	union {
		struct cmsghdr cm;
		char buf[CMSG_SPACE(sizeof(uint64_t)) + 32];
	} cb;
	struct blocked_send bs;
	union rds_sa to;
	struct pollfd p;
	struct msghdr msg;
	struct iovec iov;
	char buf[CONG_MSG];
	uint64_t mask = 0;
	uint16_t bport;
	pthread_t t;
	int a, b, v = 0, limit, sent, i, good, notified;
	ssize_t r;

	if (!make_pair(&a, &b))
		return;
	bport = bound_port(b);
	set_int(b, SOL_SOCKET, SO_RCVBUF, 8192);
	get_int(b, SOL_SOCKET, SO_RCVBUF, &v);
	/* rds_sk_rcvbuf(): half of sk_rcvbuf, i.e. the value set */
	limit = v / 2;
	is_ok(set_int(a, SOL_RDS, RDS_CONG_MONITOR, 1), "RDS_CONG_MONITOR on");

	sent = congest(a, b, limit, 0);
	ok_diag(sent >= 0, "nonblocking send to a full receiver -> ENOBUFS",
		"no ENOBUFS within %d ms and %d x %d bytes to a %d-byte "
		"receive buffer", ARRIVE_MS, congest_cap(a, limit), CONG_MSG,
		limit);
	if (sent < 0)
		goto out;
	/* congested only once more than rcvbuf bytes are queued */
	ok_diag(sent * CONG_MSG > limit,
		"ENOBUFS only after the queue exceeded the receive buffer",
		"ENOBUFS after %d x %d bytes, receive buffer %d", sent,
		CONG_MSG, limit);
	to = cfg_sa(true, bport);
	is_err(send_to(a, &to, "x", 1, MSG_DONTWAIT), ENOBUFS,
	       "still ENOBUFS while nothing is read");

	/* a blocking sender waits */
	memset(&bs, 0, sizeof(bs));
	bs.fd = a;
	bs.to = sock_addr(b);
	pattern_fill(bs.buf, sizeof(bs.buf), sent);
	pthread_create(&t, NULL, blocking_sender, &bs);
	sleep_ms(300);
	ok(!__atomic_load_n(&bs.done, __ATOMIC_SEQ_CST),
	   "a blocking send waits while the receiver is congested");

	/* drain: the blocked send proceeds, everything arrives in order */
	good = 0;
	for (i = 0; i <= sent; i++) {
		r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS);
		if (r != CONG_MSG || pattern_check(buf, r, i) != -1)
			break;
		good++;
	}
	is_eq(good, sent + 1,
	      "the receiver gets every message, the blocked one last");
	if (!__atomic_load_n(&bs.done, __ATOMIC_SEQ_CST)) {
		pthread_kill(t, SIGUSR1);
		sleep_ms(100);
	}
	pthread_join(t, NULL);
	is_eq(bs.ret, CONG_MSG, "the blocked send completed");

	/* RDS_CONG_MONITOR: a notification for the port */
	p.fd = a;
	p.events = POLLIN;
	p.revents = 0;
	ok(poll(&p, 1, ARRIVE_MS) == 1 && (p.revents & POLLIN),
	   "sender polls POLLIN for the congestion update");
	msg_init(&msg, &iov, buf, sizeof(buf));
	msg.msg_name = &(struct sockaddr_in){ 0 };
	msg.msg_namelen = sizeof(struct sockaddr_in);
	msg.msg_control = &cb;
	msg.msg_controllen = sizeof(cb);
	r = recvmsg(a, &msg, MSG_DONTWAIT);
	is_eq(r, 0, "recvmsg returns 0 for the notification");
	is_eq(msg.msg_namelen, 0, "with no source address");
	notified = cmsg_count(&msg, SOL_RDS, RDS_CMSG_CONG_UPDATE, &mask,
			      sizeof(mask));
	ok_diag(notified == 1 && (mask & RDS_CONG_MONITOR_MASK(bport)),
		"RDS_CMSG_CONG_UPDATE carries the receiver's port bit",
		"%d cmsgs, mask 0x%llx, port %u", notified,
		(unsigned long long)mask, bport);
	is_err(recv(a, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	       "the notification is consumed");

	/* again, reading the notification without a control buffer */
	sent = congest(a, b, limit, 1000);
	ok(sent >= 0, "congested again");
	for (i = 0; i < sent; i++)
		if (recv_wait(b, buf, sizeof(buf), NULL, NULL, 0,
			      ARRIVE_MS) != CONG_MSG)
			break;
	is_eq(i, sent, "drained again");
	p.revents = 0;
	poll(&p, 1, ARRIVE_MS);
	msg_init(&msg, &iov, buf, sizeof(buf));
	r = recvmsg(a, &msg, MSG_DONTWAIT);
	ok(r == 0 && (msg.msg_flags & MSG_CTRUNC),
	   "no control buffer: returns 0 with MSG_CTRUNC");
	is_err(recv(a, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	       "the truncated notification is consumed too");
out:
	close(a);
	close(b);
}
