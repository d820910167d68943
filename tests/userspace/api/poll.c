// SPDX-License-Identifier: GPL-2.0
/*
 * poll(), select() and epoll on an RDS socket, and the waits they and a
 * blocked recv() end.
 */
#include "api.h"

#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/time.h>

/*
 * net/rds asserts POLLIN|POLLWRBAND once per socket after any congestion
 * map update in the system (rds_poll(), "for historical reasons"; the
 * loopback transport updates the maps when a connection comes up).  The
 * first poll of a socket may therefore see POLLIN with POLLWRBAND; it
 * resets the socket's congestion generation.
 */
static short poll_settled(int fd)
{
	struct pollfd p = { fd, POLLIN | POLLOUT | POLLWRBAND, 0 };

	poll(&p, 1, 0);
	if ((p.revents & POLLIN) && !(p.revents & POLLWRBAND))
		return p.revents;
	p.revents = 0;
	poll(&p, 1, 0);
	return p.revents;
}

void test_poll(void)
{
	struct pollfd p;
	fd_set rd, wr;
	struct timeval tv;
	char buf[16];
	int a, b;
	short ev;

	if (!make_pair(&a, &b))
		return;
	ev = poll_settled(b);
	ok(ev & POLLOUT, "idle socket: POLLOUT");
	ok(!(ev & POLLIN), "idle socket: no POLLIN (revents 0x%x)", ev);

	send_str(a, b, "poll-me");
	p.fd = b;
	p.events = POLLIN;
	p.revents = 0;
	is_eq(poll(&p, 1, ARRIVE_MS), 1, "poll wakes for a message");
	ok(p.revents & POLLIN, "POLLIN set");
	p.revents = 0;
	ok(poll(&p, 1, 0) == 1 && (p.revents & POLLIN),
	   "POLLIN stays set until read");

	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(b, &rd);
	FD_SET(b, &wr);
	tv.tv_sec = 0;
	tv.tv_usec = 0;
	ok(select(b + 1, &rd, &wr, NULL, &tv) == 2 && FD_ISSET(b, &rd) &&
	   FD_ISSET(b, &wr), "select: readable and writable");

	recv_expect(b, "poll-me", 7, a, "message read");
	ev = poll_settled(b);
	ok(!(ev & POLLIN), "no POLLIN once the queue is empty (0x%x)", ev);
	FD_ZERO(&rd);
	FD_SET(b, &rd);
	tv.tv_sec = 0;
	tv.tv_usec = 0;
	is_eq(select(b + 1, &rd, NULL, NULL, &tv), 0,
	      "select: not readable when empty");

	/* two messages: POLLIN remains after the first is read */
	send_str(a, b, "one");
	send_str(a, b, "two");
	recv_expect(b, "one", 3, a, "first of two read");
	p.revents = 0;
	ok(poll(&p, 1, ARRIVE_MS) == 1 && (p.revents & POLLIN),
	   "POLLIN while the second is queued");
	recv(b, buf, sizeof(buf), MSG_DONTWAIT);
	close(a);
	close(b);
}

struct waiter {
	int fd;		/* epoll fd or socket */
	int ret;
	int err;
	uint32_t events;
	char buf[32];
	long long woke_at;
};

static void *epoll_waiter(void *p)
{
	struct waiter *w = p;
	struct epoll_event ev;

	w->ret = epoll_wait(w->fd, &ev, 1, ARRIVE_MS);
	w->err = errno;
	w->events = w->ret == 1 ? ev.events : 0;
	w->woke_at = now_ms();
	return NULL;
}

static void *recv_waiter(void *p)
{
	struct waiter *w = p;

	w->ret = recv(w->fd, w->buf, sizeof(w->buf), 0);
	w->err = errno;
	w->woke_at = now_ms();
	return NULL;
}

void test_epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct waiter w;
	struct timeval tv = { ARRIVE_MS / 1000, 0 };
	long long sent_at;
	pthread_t t;
	int a, b, ep;

	if (!make_pair(&a, &b))
		return;
	ep = epoll_create1(0);
	poll_settled(b);
	is_ok(epoll_ctl(ep, EPOLL_CTL_ADD, b, &ev), "EPOLL_CTL_ADD");

	memset(&w, 0, sizeof(w));
	w.fd = ep;
	pthread_create(&t, NULL, epoll_waiter, &w);
	sleep_ms(200);
	sent_at = now_ms();
	send_str(a, b, "wake");
	pthread_join(t, NULL);
	ok(w.ret == 1 && (w.events & EPOLLIN),
	   "a blocked epoll_wait wakes with EPOLLIN");
	ok(w.woke_at >= sent_at, "only after the message was sent");
	recv_expect(b, "wake", 4, a, "the message is there");

	/* EPOLLOUT on an idle socket */
	ev.events = EPOLLOUT;
	epoll_ctl(ep, EPOLL_CTL_MOD, b, &ev);
	ok(epoll_wait(ep, &ev, 1, 0) == 1 && (ev.events & EPOLLOUT),
	   "EPOLLOUT on an idle socket");
	close(ep);

	/* a blocked recv() wakes up too */
	memset(&w, 0, sizeof(w));
	w.fd = b;
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	pthread_create(&t, NULL, recv_waiter, &w);
	sleep_ms(200);
	sent_at = now_ms();
	send_str(a, b, "wake-recv");
	pthread_join(t, NULL);
	ok(w.ret == 9 && !memcmp(w.buf, "wake-recv", 9) && w.woke_at >= sent_at,
	   "a blocked recv returns the message (ret %d %s)", w.ret,
	   w.ret < 0 ? tap_errname(w.err) : "");
	close(a);
	close(b);
}
