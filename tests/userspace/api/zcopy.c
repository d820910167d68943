// SPDX-License-Identifier: GPL-2.0
/*
 * MSG_ZEROCOPY sends (Documentation/rds_doca.rst, "Zero-copy sends"):
 * SO_ZEROCOPY, RDS_CMSG_ZCOPY_COOKIE, the completions that come back in
 * RDS_CMSG_ZCOPY_COMPLETION, and the sends they refuse.
 */
#include "api.h"

#include <sys/mman.h>

#define ZC_BIG		(60 * 1024)

/* Turn SO_ZEROCOPY on, at SOL_SOCKET where the kernel lets us. */
static bool zc_enable(int fd)
{
	int v = 0, r;

	r = set_int(fd, SOL_SOCKET, SO_ZEROCOPY, 1);
	if (cfg.family == AF_RDS || kernel_custom_sockopt()) {
		if (!sys_ok(r, "setsockopt(SOL_SOCKET, SO_ZEROCOPY, 1)"))
			return false;
	} else if (r) {
		is_err(set_int(fd, SOL_SOCKET, SO_ZEROCOPY, 1), EOPNOTSUPP,
		       "SOL_SOCKET SO_ZEROCOPY where the core keeps SOL_SOCKET -> EOPNOTSUPP");
		if (!sys_ok(set_int(fd, SOL_RDS, SO_ZEROCOPY, 1),
			    "setsockopt(SOL_RDS, SO_ZEROCOPY, 1)"))
			return false;
	}
	return is_eq(get_int(fd, SOL_SOCKET, SO_ZEROCOPY, &v), 0,
		     "getsockopt(SOL_SOCKET, SO_ZEROCOPY)") &&
	       is_eq(v, 1, "... reads 1") &&
	       is_eq(get_int(fd, SOL_RDS, SO_ZEROCOPY, &v), 0,
		     "getsockopt(SOL_RDS, SO_ZEROCOPY)") &&
	       is_eq(v, 1, "... reads 1");
}

/* sendmsg() of @iovcnt iovecs to @to with a cookie if @cookie >= 0. */
static ssize_t zc_send(int fd, const union rds_sa *to,
		       struct iovec *iov, int iovcnt, long long cookie,
		       int flags)
{
	union {
		struct cmsghdr cm;
		char buf[CMSG_SPACE(sizeof(uint32_t))];
	} c;
	struct msghdr m = {
		.msg_name = (void *)to,
		.msg_namelen = sa_len(to),
		.msg_iov = iov,
		.msg_iovlen = iovcnt,
	};

	if (cookie >= 0) {
		uint32_t v = cookie;

		memset(&c, 0, sizeof(c));
		c.cm.cmsg_level = SOL_RDS;
		c.cm.cmsg_type = RDS_CMSG_ZCOPY_COOKIE;
		c.cm.cmsg_len = CMSG_LEN(sizeof(v));
		memcpy(CMSG_DATA(&c.cm), &v, sizeof(v));
		m.msg_control = c.buf;
		m.msg_controllen = sizeof(c.buf);
	}
	return sendmsg(fd, &m, flags);
}

/*
 * One recvmsg(MSG_DONTWAIT) of @fd into @data with a control buffer of
 * @ctllen bytes; the completion's cookies are appended to @got (room for
 * @max, count in *@n).  Returns recvmsg()'s result; *@batch gets the
 * completion's num, -1 if there was none.
 */
static ssize_t zc_recv(int fd, void *data, size_t len, size_t ctllen,
		       uint32_t *got, unsigned int max, unsigned int *n,
		       int *batch)
{
	union {
		struct cmsghdr cm;
		char buf[256];
	} c;
	struct rds_zcopy_cookies z;
	struct iovec iov = { data, len };
	struct msghdr m;
	unsigned int i;
	ssize_t r;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = c.buf;
	m.msg_controllen = ctllen;
	*batch = -1;
	r = recvmsg(fd, &m, MSG_DONTWAIT);
	if (r < 0)
		return r;
	if (cmsg_count(&m, SOL_RDS, RDS_CMSG_ZCOPY_COMPLETION, &z,
		       sizeof(z)) == 1) {
		*batch = z.num;
		for (i = 0; i < z.num && i < RDS_MAX_ZCOOKIES && *n < max; i++)
			got[(*n)++] = z.cookies[i];
	}
	return r;
}

/*
 * Collect completions on @fd until @want cookies came or ARRIVE_MS went
 * by.  Returns false after a failing check (a recvmsg() that returned
 * anything but 0 with a completion, or a batch over RDS_MAX_ZCOOKIES).
 */
static bool zc_reap(int fd, uint32_t *got, unsigned int want,
		    unsigned int *n, const char *what)
{
	long long end = now_ms() + ARRIVE_MS;
	struct pollfd p = { fd, POLLIN, 0 };
	int batch, big = 0, calls = 0;
	char data[8], name[160];
	ssize_t r;

	while (*n < want && now_ms() < end) {
		poll(&p, 1, 100);
		r = zc_recv(fd, data, sizeof(data), 256, got, want, n, &batch);
		if (r < 0 && errno == EAGAIN)
			continue;
		calls++;
		snprintf(name, sizeof(name),
			 "%s: a recvmsg() of completions alone returns 0", what);
		if (!ok_diag(r == 0 && batch > 0, name,
			     "returned %zd (%s), completion of %d", r,
			     r < 0 ? tap_errname(errno) : "-", batch))
			return false;
		if (batch > big)
			big = batch;
	}
	tap_diag("%s: %u cookies in %d calls", what, *n, calls);
	snprintf(name, sizeof(name),
		 "%s: at most RDS_MAX_ZCOOKIES cookies a completion", what);
	return ok_diag(big <= RDS_MAX_ZCOOKIES, name, "a batch of %d", big);
}

/* Are @a and @b (@n each) the same set of cookies? */
static bool same_set(uint32_t *a, const uint32_t *b, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++)
			if (a[j] == b[i])
				break;
		if (j == n)
			return false;
		a[j] = ~a[j];	/* each counts once */
	}
	for (i = 0; i < n; i++)
		a[i] = ~a[i];
	return true;
}

/* The send path: what is sent, what is refused, what completes. */
void test_zcopy(void)
{
	static const uint32_t want[] = { 11, 22, 33 };
	uint32_t got[64], twenty[20];
	uint64_t z0 = 0, z1 = 0;
	union rds_sa to, ta;
	struct iovec iov[3];
	unsigned int i, n = 0;
	char *area, *rbuf;
	bool same = true;
	int a, b, batch;
	ssize_t r;

	area = mmap(NULL, 3 * ZC_BIG, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	rbuf = malloc(ZC_BIG + 16);
	if (!ok(area != MAP_FAILED && rbuf, "setup: buffers"))
		goto out_mem;
	if (!make_pair(&a, &b))
		goto out_mem;
	to = sock_addr(b);
	ta = sock_addr(a);
	pattern_fill(area, 3 * ZC_BIG, 7);

	/* off: MSG_ZEROCOPY copies, and a cookie is refused */
	iov[0] = (struct iovec){ area, 100 };
	is_eq(zc_send(a, &to, iov, 1, -1, MSG_ZEROCOPY), 100,
	      "MSG_ZEROCOPY without SO_ZEROCOPY is an ordinary send");
	is_err(zc_send(a, &to, iov, 1, 5, MSG_ZEROCOPY), EINVAL,
	       "RDS_CMSG_ZCOPY_COOKIE without SO_ZEROCOPY -> EINVAL");
	is_eq(recv_wait(b, rbuf, ZC_BIG, NULL, NULL, 0, ARRIVE_MS), 100,
	      "setup: the ordinary send arrives");

	is_err(set_int(a, SOL_RDS, SO_ZEROCOPY, 2), EINVAL,
	       "SO_ZEROCOPY 2 -> EINVAL");
	is_err(setsockopt(a, SOL_RDS, SO_ZEROCOPY, "", 1), EINVAL,
	       "SO_ZEROCOPY of 1 byte -> EINVAL");
	if (!zc_enable(a))
		goto out;

	/* refused sends, which complete nothing */
	is_err(zc_send(a, &to, iov, 1, 5, 0), EINVAL,
	       "RDS_CMSG_ZCOPY_COOKIE without MSG_ZEROCOPY -> EINVAL");
	iov[0] = (struct iovec){ area, 0 };
	is_err(zc_send(a, &to, iov, 1, 5, MSG_ZEROCOPY), EINVAL,
	       "RDS_CMSG_ZCOPY_COOKIE on an empty MSG_ZEROCOPY send -> EINVAL");
	iov[0] = (struct iovec){ (void *)8, 100 };
	is_err(zc_send(a, &to, iov, 1, 5, MSG_ZEROCOPY), EFAULT,
	       "MSG_ZEROCOPY of an unmapped buffer -> EFAULT");
	{
		struct cm c;
		uint32_t v = 5;

		cm_init(&c);
		cm_add(&c, RDS_CMSG_ZCOPY_COOKIE, &v, sizeof(v));
		cm_add(&c, RDS_CMSG_ZCOPY_COOKIE, &v, sizeof(v));
		is_err(cm_send(a, &to, area, 100, &c, MSG_ZEROCOPY), EINVAL,
		       "two RDS_CMSG_ZCOPY_COOKIE -> EINVAL");
		cm_init(&c);
		cm_add(&c, RDS_CMSG_ZCOPY_COOKIE, &v, 2);
		is_err(cm_send(a, &to, area, 100, &c, MSG_ZEROCOPY), EINVAL,
		       "RDS_CMSG_ZCOPY_COOKIE of 2 bytes -> EINVAL");
	}
	is_err(zc_recv(a, rbuf, 8, 256, got, 64, &n, &batch), EAGAIN,
	       "refused sends complete nothing");

	/* three sends: small, across pages at an odd offset, three iovecs */
	counter_read(a, "send_zcopy", &z0);
	iov[0] = (struct iovec){ area, 100 };
	is_eq(zc_send(a, &to, iov, 1, want[0], MSG_ZEROCOPY), 100,
	      "MSG_ZEROCOPY of 100 bytes");
	iov[0] = (struct iovec){ area + 4001, 9000 };
	is_eq(zc_send(a, &to, iov, 1, want[1], MSG_ZEROCOPY), 9000,
	      "MSG_ZEROCOPY of 9000 bytes at offset 4001");
	iov[0] = (struct iovec){ area + ZC_BIG, 1000 };
	iov[1] = (struct iovec){ area + 2 * ZC_BIG + 3, ZC_BIG - 2000 };
	iov[2] = (struct iovec){ area + 5, 1000 };
	is_eq(zc_send(a, &to, iov, 3, want[2], MSG_ZEROCOPY), ZC_BIG,
	      "MSG_ZEROCOPY of %d bytes in 3 iovecs", ZC_BIG);
	counter_read(a, "send_zcopy", &z1);
	is_eq(z1 - z0, 3, "send_zcopy counts them");

	r = recv_wait(b, rbuf, ZC_BIG + 16, NULL, NULL, 0, ARRIVE_MS);
	ok(r == 100 && !memcmp(rbuf, area, 100), "the 100 bytes arrive");
	r = recv_wait(b, rbuf, ZC_BIG + 16, NULL, NULL, 0, ARRIVE_MS);
	ok(r == 9000 && !memcmp(rbuf, area + 4001, 9000),
	   "the 9000 bytes arrive");
	r = recv_wait(b, rbuf, ZC_BIG + 16, NULL, NULL, 0, ARRIVE_MS);
	ok(r == ZC_BIG && !memcmp(rbuf, area + ZC_BIG, 1000) &&
	   !memcmp(rbuf + 1000, area + 2 * ZC_BIG + 3, ZC_BIG - 2000) &&
	   !memcmp(rbuf + ZC_BIG - 1000, area + 5, 1000),
	   "the 3 iovecs arrive in order");

	if (zc_reap(a, got, 3, &n, "three sends"))
		ok_diag(n == 3 && same_set(got, want, 3),
			"their cookies 11, 22, 33 complete, each once",
			"%u cookies: %u %u %u", n, got[0], got[1], got[2]);
	is_err(zc_recv(a, rbuf, 8, 256, got, 64, &n, &batch), EAGAIN,
	       "nothing more completes");

	/* a control buffer one byte short gets nothing, and loses nothing */
	iov[0] = (struct iovec){ area, 10 };
	is_eq(zc_send(a, &to, iov, 1, 44, MSG_ZEROCOPY), 10,
	      "MSG_ZEROCOPY with cookie 44");
	is_eq(recv_wait(b, rbuf, 64, NULL, NULL, 0, ARRIVE_MS), 10,
	      "it arrives");
	{
		struct pollfd p = { a, POLLIN, 0 };

		ok(poll(&p, 1, ARRIVE_MS) == 1 && (p.revents & POLLIN),
		   "poll() reports the completion as POLLIN");
	}
	n = 0;
	is_err(zc_recv(a, rbuf, 8, CMSG_SPACE(sizeof(struct rds_zcopy_cookies)) - 1,
		       got, 64, &n, &batch), EAGAIN,
	       "a control buffer too small for a completion -> EAGAIN");
	r = zc_recv(a, rbuf, 8, 256, got, 64, &n, &batch);
	ok_diag(r == 0 && n == 1 && got[0] == 44,
		"... and a large enough one then gets cookie 44",
		"%zd, %u cookies, first %u", r, n, n ? got[0] : 0);

	/*
	 * A completion rides on a message to the sender.  Over loopback the
	 * send completes when the peer reads it, before the answer; over
	 * another transport when the peer's acknowledgment comes back,
	 * which may follow the answer.
	 */
	is_eq(zc_send(a, &to, iov, 1, 55, MSG_ZEROCOPY), 10,
	      "MSG_ZEROCOPY with cookie 55");
	is_eq(recv_wait(b, rbuf, 64, NULL, NULL, 0, ARRIVE_MS), 10,
	      "it arrives");
	is_eq(send_to(b, &ta, "back", 4, 0), 4, "the peer answers");
	{
		long long end = now_ms() + ARRIVE_MS;
		struct pollfd p = { a, POLLIN, 0 };
		unsigned int with = 0;

		n = 0;
		do {
			poll(&p, 1, 100);
			r = zc_recv(a, rbuf, 64, 256, got, 64, &n, &batch);
		} while (r != 4 && (r >= 0 || errno == EAGAIN) &&
			 now_ms() < end);
		with = n;
		is_eq(r, 4, "the answer arrives");
		if (cfg_loopback())
			ok_diag(with == 1 && got[0] == 55,
				"the completion of cookie 55 comes with it",
				"%u cookies with it", with);
		else if (n < 1)
			zc_reap(a, got, 1, &n, "cookie 55");
		ok_diag(n == 1 && got[0] == 55, "cookie 55 completes",
			"%u cookies, first %u", n, n ? got[0] : 0);
	}

	/* twenty completions come in batches of at most eight */
	for (i = 0; i < 20; i++) {
		twenty[i] = 1000 + i;
		iov[0] = (struct iovec){ area + i * 64, 64 };
		if (zc_send(a, &to, iov, 1, twenty[i], MSG_ZEROCOPY) != 64)
			same = false;
	}
	ok(same, "20 MSG_ZEROCOPY sends");
	for (i = 0; i < 20; i++)
		if (recv_wait(b, rbuf, 64, NULL, NULL, 0, ARRIVE_MS) != 64 ||
		    memcmp(rbuf, area + i * 64, 64))
			same = false;
	ok(same, "the 20 arrive in order, intact");
	n = 0;
	if (zc_reap(a, got, 20, &n, "twenty sends"))
		ok_diag(n == 20 && same_set(got, twenty, 20),
			"their 20 cookies complete, each once",
			"%u cookies", n);

	/* closing with zero-copy sends in flight: the test shows no leak */
	iov[0] = (struct iovec){ area, ZC_BIG };
	is_eq(zc_send(a, &to, iov, 1, 66, MSG_ZEROCOPY), ZC_BIG,
	      "a MSG_ZEROCOPY send, then close both ends");
out:
	close(a);
	close(b);
out_mem:
	if (area != MAP_FAILED)
		munmap(area, 3 * ZC_BIG);
	free(rbuf);
}
