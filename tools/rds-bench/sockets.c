// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rds-bench: sockets.
 */
#include "bench.h"

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
int open_sock(struct in_addr addr, uint16_t *port, char *err,
	      size_t errlen, int *snd_eff, int *rcv_eff)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	char what[160];
	int fd, s, r, one = 1;

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
	if (cfg.busy_poll >= 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &cfg.busy_poll,
		       sizeof(cfg.busy_poll)) < 0) {
		int e = errno;

		snprintf(what, sizeof(what),
			 "setsockopt(SOL_SOCKET, SO_BUSY_POLL, %d)", cfg.busy_poll);
		describe(err, errlen, what, e,
			 e == EPERM ? "this kernel lets only CAP_NET_ADMIN raise it" :
			 NULL);
		close(fd);
		return -1;
	}
	/* SOL_RDS where the kernel keeps SOL_SOCKET to itself (6.1) */
	if (cfg.zerocopy &&
	    setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) < 0 &&
	    setsockopt(fd, SOL_RDS, SO_ZEROCOPY, &one, sizeof(one)) < 0) {
		describe(err, errlen, "setsockopt(SO_ZEROCOPY, 1)", errno, NULL);
		close(fd);
		return -1;
	}
	/* over Linux's 1 MiB: each end raises its own limit (rds_doca) */
	if (cfg.size > MAX_MSG &&
	    setsockopt(fd, SOL_RDS, RDS_DOCA_MSG_MAX, &cfg.size,
		       sizeof(cfg.size)) < 0) {
		int e = errno;

		snprintf(what, sizeof(what),
			 "setsockopt(SOL_RDS, RDS_DOCA_MSG_MAX, %u)", cfg.size);
		describe(err, errlen, what, e,
			 "messages over 1m need rds_doca (Linux RDS carries 1m)");
		close(fd);
		return -1;
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

void sock_dst(struct sockaddr_in *d, struct in_addr a, uint16_t port)
{
	memset(d, 0, sizeof(*d));
	d->sin_family = AF_INET;
	d->sin_addr = a;
	d->sin_port = htons(port);
}

int wait_fd(int fd, short events, uint64_t ns)
{
	struct pollfd p = { .fd = fd, .events = events };
	struct timespec ts = { (time_t)(ns / NSEC), (long)(ns % NSEC) };

	return ppoll(&p, 1, &ts, NULL);
}

/*
 * Send one whole message of @len bytes, with sendto() of @buf to @dst, or
 * with sendmsg() of @mh if not NULL, retrying on ENOBUFS (receiver
 * congested) and EAGAIN (our send buffer full).  Returns 0 when sent, 1
 * when the run is stopping or the deadline (0: none) passed, or -errno on
 * a hard error.
 */
static int send_any(int fd, const void *buf, size_t len,
		    const struct sockaddr_in *dst, const struct msghdr *mh,
		    int flags, struct end_stats *st, uint64_t *enobufs,
		    uint64_t *eagain, uint64_t deadline)
{
	if (!cfg.blocking)
		flags |= MSG_DONTWAIT;
	for (;;) {
		ssize_t n = mh ? sendmsg(fd, mh, flags) :
			    sendto(fd, buf, len, flags,
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

/* send_any() of @buf to @dst. */
int send_msg(int fd, const void *buf, size_t len,
	     const struct sockaddr_in *dst, struct end_stats *st,
	     uint64_t *enobufs, uint64_t *eagain, uint64_t deadline)
{
	return send_any(fd, buf, len, dst, NULL, 0, st, enobufs, eagain,
			deadline);
}

/*
 * send_msg() with MSG_ZEROCOPY and RDS_CMSG_ZCOPY_COOKIE @cookie: @buf
 * must stay as it is until zc_reap() returns the cookie.  A send that
 * finds the socket's completions full (ENOBUFS) waits like a congested
 * one; the caller reaps before it sends.
 */
int send_msg_zc(int fd, const void *buf, size_t len,
		const struct sockaddr_in *dst, struct end_stats *st,
		uint64_t *enobufs, uint64_t *eagain, uint32_t cookie)
{
	union {
		struct cmsghdr cm;
		char buf[CMSG_SPACE(sizeof(uint32_t))];
	} c;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = {
		.msg_name = (void *)dst,
		.msg_namelen = sizeof(*dst),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = c.buf,
		.msg_controllen = sizeof(c.buf),
	};

	memset(&c, 0, sizeof(c));
	c.cm.cmsg_level = SOL_RDS;
	c.cm.cmsg_type = RDS_CMSG_ZCOPY_COOKIE;
	c.cm.cmsg_len = CMSG_LEN(sizeof(cookie));
	memcpy(CMSG_DATA(&c.cm), &cookie, sizeof(cookie));
	return send_any(fd, buf, len, dst, &mh, MSG_ZEROCOPY, st, enobufs,
			eagain, 0);
}

/*
 * Read the zero-copy completions queued on a sending socket, at most
 * @room cookies (at least RDS_MAX_ZCOOKIES).  Returns how many, or
 * -errno; a message there is an error (senders receive none).
 */
int zc_reap(int fd, uint32_t *cookies, int room)
{
	union {
		struct cmsghdr cm;
		char buf[CMSG_SPACE(sizeof(struct rds_zcopy_cookies))];
	} c;
	struct rds_zcopy_cookies z;
	char data[16];
	int n = 0;

	while (n + RDS_MAX_ZCOOKIES <= room) {
		struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
		struct msghdr mh = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = c.buf,
			.msg_controllen = sizeof(c.buf),
		};
		struct cmsghdr *cm;
		ssize_t r = recvmsg(fd, &mh, MSG_DONTWAIT);

		if (r < 0)
			return errno == EAGAIN || errno == EINTR ? n : -errno;
		cm = CMSG_FIRSTHDR(&mh);
		if (r || !cm || cm->cmsg_level != SOL_RDS ||
		    cm->cmsg_type != RDS_CMSG_ZCOPY_COMPLETION)
			return -EPROTO;
		memcpy(&z, CMSG_DATA(cm), sizeof(z));
		if (z.num > RDS_MAX_ZCOOKIES)
			return -EPROTO;
		memcpy(cookies + n, z.cookies, z.num * sizeof(z.cookies[0]));
		n += z.num;
	}
	return n;
}

ssize_t recv_one(int fd, void *buf, size_t cap,
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
ssize_t recv_next(int fd, void *buf, size_t cap,
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
void put_hdr(uint8_t *buf, uint64_t seq, uint32_t idx)
{
	struct msg_hdr h = { .seq = seq, .magic = HDR_MAGIC, .idx = idx };
	size_t n = cfg.size < sizeof(h) ? cfg.size : sizeof(h);

	memcpy(buf, &h, n);
}

/* Check length, magic and (--verify) payload; hand back the sequence. */
int check_msg(const uint8_t *buf, ssize_t n, int mflags,
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

void on_int(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* SIGUSR1 only interrupts blocking calls (no SA_RESTART). */
void on_usr1(int sig)
{
	(void)sig;
}

/* Wait for the controller to close the go pipe; false if the run was called off. */
bool wait_go(void)
{
	char c;
	ssize_t r;

	do
		r = read(go_pipe[0], &c, 1);
	while (r > 0 || (r < 0 && errno == EINTR));
	return !atomic_load(&shm->abort);
}

void send_report(int who, int idx, int ok, uint16_t port, const char *msg)
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
