// SPDX-License-Identifier: GPL-2.0
/*
 * What RDS tools written for Linux rely on, checked against rds_doca and,
 * with --impl rds, against Linux RDS itself:
 *
 *   counters  RDS_INFO_COUNTERS read as rds-info -c reads it (probe with a
 *             zero length, ENOSPC and the length needed, then the
 *             snapshot; the call returns the entry size): entries whole,
 *             names terminated and unique.  With --linux-names (drop-in
 *             mode, and Linux RDS) Linux's names are there, and for
 *             rds_doca before its own; under rds_doca's own family, only
 *             its own names.  Then traffic over the addresses under test
 *             (messages, and one to a port nobody is bound to) must move
 *             the counters that count it, under whichever names apply.
 *   tos       SIOCRDSGETTOS/SIOCRDSSETTOS with Linux's rules: ENOTTY
 *             without a transport and on loopback; over IB, set once
 *             before the first send, then EINVAL; remembered.
 *   limits    what the errno tables of Documentation/rds_doca.rst name
 *             that no other suite reaches: FIONREAD and SIOCOUTQ
 *             (ENOTTY), the largest message (RDS_DOCA_MAX_MSG_SIZE, one
 *             byte more is EMSGSIZE), SO_ZEROCOPY and MSG_ZEROCOPY.
 *
 * usage: rds_compat_test [common options] [--linux-names]
 */
#include "../userspace/tap.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>

#include "../userspace/rds_util.h"

static bool linux_names;

/* Linux's counters that rds_doca counts too (Documentation/rds_doca.rst) */
static const char *const linux_counted[] = {
	"recv_drop_old_seq", "recv_drop_no_sock", "recv_drop_dead_sock",
	"recv_queued", "recv_ping", "send_queue_full", "send_queued",
	"cong_update_received", "cong_send_error", "cong_send_blocked",
	"recv_bytes_added_to_sock", "conn_reset",
};

/* A few of rds_doca's own names, under both families. */
static const char *const doca_own[] = {
	"conn_created", "send_bytes", "recv_delivered", "send_cong_error",
	"copy_send_cpu_ops",
};

struct snapshot {
	struct rds_info_counter *c;
	size_t n;
};

static bool snap(int fd, struct snapshot *s, const char *what)
{
	socklen_t len;
	void *buf;
	int each = info_get(fd, RDS_INFO_COUNTERS, &buf, &len);

	s->c = buf;
	s->n = 0;
	if (!tap_check(each == (int)sizeof(struct rds_info_counter), what,
		       TAP_WHERE, "getsockopt(RDS_INFO_COUNTERS) returned %d (%s), want %zu",
		       each, each < 0 ? tap_errname(-each) : "entry size",
		       sizeof(struct rds_info_counter)))
		return false;
	s->n = len / sizeof(struct rds_info_counter);
	return tap_check(len % sizeof(struct rds_info_counter) == 0 && s->n,
			 "... of whole entries", TAP_WHERE,
			 "length %u", (unsigned int)len);
}

/* Index of counter @name, or -1. */
static long find(const struct snapshot *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strncmp((const char *)s->c[i].name, name,
			     sizeof(s->c[i].name)))
			return (long)i;
	return -1;
}

static uint64_t value(const struct snapshot *s, const char *name)
{
	long i = find(s, name);

	return i < 0 ? 0 : s->c[i].value;
}

static void test_counters_names(void)
{
	struct snapshot s;
	size_t i, j, bad = 0, dup = 0;
	long first_own = -1, last_linux = -1;
	int fd = rds_socket();

	if (!sys_ok(fd, "socket"))
		return;
	if (!snap(fd, &s, "RDS_INFO_COUNTERS as rds-info reads it"))
		goto out;
	for (i = 0; i < s.n; i++) {
		const char *n = (const char *)s.c[i].name;

		if (!memchr(n, 0, sizeof(s.c[i].name)) || !*n)
			bad++;
		for (j = 0; j < i; j++)
			if (!strncmp(n, (const char *)s.c[j].name,
				     sizeof(s.c[i].name)))
				dup++;
	}
	tap_diag("%zu counters", s.n);
	ok(bad == 0, "every name is terminated and not empty");
	ok(dup == 0, "no name twice");

	for (i = 0; i < sizeof(linux_counted) / sizeof(linux_counted[0]); i++) {
		long at = find(&s, linux_counted[i]);

		if (linux_names) {
			ok(at >= 0, "Linux's counter %s is listed",
			   linux_counted[i]);
			if (at > last_linux)
				last_linux = at;
		} else if (strcmp(linux_counted[i], "recv_drop_old_seq") &&
			   strcmp(linux_counted[i], "recv_drop_no_sock") &&
			   strcmp(linux_counted[i], "recv_drop_dead_sock") &&
			   strcmp(linux_counted[i], "recv_ping") &&
			   strcmp(linux_counted[i], "send_queue_full") &&
			   strcmp(linux_counted[i], "send_queued") &&
			   strcmp(linux_counted[i], "cong_update_received") &&
			   strcmp(linux_counted[i], "conn_reset")) {
			/* names only Linux uses */
			ok(at < 0, "own family: no Linux-only name %s",
			   linux_counted[i]);
		}
	}
	if (!cfg.impl_doca)
		goto out;
	for (i = 0; i < sizeof(doca_own) / sizeof(doca_own[0]); i++) {
		long at = find(&s, doca_own[i]);

		ok(at >= 0, "rds_doca's counter %s is listed", doca_own[i]);
		if (at >= 0 && (first_own < 0 || at < first_own))
			first_own = at;
	}
	if (linux_names)
		ok(last_linux >= 0 && first_own > last_linux,
		   "Linux's names come before rds_doca's own (last Linux %ld, first own %ld)",
		   last_linux, first_own);
out:
	free(s.c);
	close(fd);
}

static void test_counters_move(void)
{
	union rds_sa to, gone;
	struct snapshot a = {}, b = {};
	char buf[100], in[200];
	const char *queued, *added, *cong;
	int r = -1, s = -1, g = -1, i, got = 0;
	long long deadline;
	uint16_t port;

	r = bound_socket_at(cfg.addr, 0, "setup: receiver");
	s = bound_socket_at(cfg.peer, 0, "setup: sender");
	g = bound_socket_at(cfg.addr, 0, "setup: a port then freed");
	if (r < 0 || s < 0 || g < 0)
		goto out;
	port = bound_port(g);
	close(g);
	g = -1;
	gone = sa_in(sin_make(cfg.addr, port));
	to = sock_addr(r);
	/* a connection first, so the counted traffic is all ours */
	memset(buf, 'c', sizeof(buf));
	if (!sys_ok((int)send_to(s, &to, buf, sizeof(buf), 0), "setup: send") ||
	    !sys_ok((int)recv_wait(r, in, sizeof(in), NULL, NULL, 0, ARRIVE_MS),
		    "setup: receive"))
		goto out;
	if (!snap(s, &a, "snapshot before"))
		goto out;

	for (i = 0; i < 10; i++)
		if (send_to(s, &to, buf, sizeof(buf), 0) == sizeof(buf) &&
		    recv_wait(r, in, sizeof(in), NULL, NULL, 0, ARRIVE_MS) ==
		    sizeof(buf))
			got++;
	ok(got == 10, "10 messages of 100 bytes sent and received (%d)", got);
	is_ok(send_to(s, &gone, buf, sizeof(buf), 0),
	      "a message to a port nobody is bound to");

	queued = linux_names ? "recv_queued" : "recv_delivered";
	added = linux_names ? "recv_bytes_added_to_sock" : "recv_bytes";
	cong = linux_names ? "cong_send_error" : "send_cong_error";
	/* the drop is counted when the message arrives */
	deadline = now_ms() + ARRIVE_MS;
	do {
		free(b.c);
		b.c = NULL;
		if (!snap(s, &b, "snapshot after"))
			goto out;
		if (value(&b, "recv_drop_no_sock") > value(&a, "recv_drop_no_sock"))
			break;
		sleep_ms(50);
	} while (now_ms() < deadline);

#define DELTA(name) (value(&b, name) - value(&a, name))
	ok(DELTA("send_queued") >= 11, "send_queued moved by 11 or more (%llu)",
	   (unsigned long long)DELTA("send_queued"));
	ok(DELTA(queued) >= 10, "%s moved by 10 or more (%llu)", queued,
	   (unsigned long long)DELTA(queued));
	ok(DELTA(added) >= 1000, "%s moved by 1000 bytes or more (%llu)",
	   added, (unsigned long long)DELTA(added));
	ok(DELTA("recv_drop_no_sock") >= 1,
	   "recv_drop_no_sock moved by 1 or more (%llu)",
	   (unsigned long long)DELTA("recv_drop_no_sock"));
	ok(DELTA(cong) == 0, "%s did not move", cong);
#undef DELTA
	if (cfg.impl_doca && linux_names) {
		/* one counter, two names */
		ok(value(&b, "recv_queued") == value(&b, "recv_delivered") &&
		   value(&b, "recv_queued") > 0,
		   "recv_queued is rds_doca's recv_delivered (%llu, %llu)",
		   (unsigned long long)value(&b, "recv_queued"),
		   (unsigned long long)value(&b, "recv_delivered"));
		ok(value(&b, "recv_bytes_added_to_sock") == value(&b, "recv_bytes"),
		   "recv_bytes_added_to_sock is rds_doca's recv_bytes");
	}
out:
	free(a.c);
	free(b.c);
	if (r >= 0)
		close(r);
	if (s >= 0)
		close(s);
}

static void test_tos(void)
{
	union rds_sa to;
	rds_tos_t tos = 0x5a;
	char buf[16] = "tos";
	int fd, r, s;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	is_ok(ioctl(fd, SIOCRDSGETTOS, &tos), "SIOCRDSGETTOS on a new socket");
	is_eq(tos, 0, "... reads 0");
	tos = 3;
	is_err(ioctl(fd, SIOCRDSSETTOS, &tos), ENOTTY,
	       "SIOCRDSSETTOS without a transport -> ENOTTY");
	is_err(ioctl(fd, SIOCRDSSETTOS, (void *)8), EFAULT,
	       "SIOCRDSSETTOS from address 0x8 -> EFAULT");
	close(fd);

	r = bound_socket_at(cfg.peer, 0, "setup: receiver");
	fd = bound_socket_at(cfg.addr, 0, "setup: bound socket");
	if (r < 0 || fd < 0)
		goto out;
	to = sock_addr(r);
	tos = 5;
	if (cfg.transport != RDS_TRANS_IB) {
		is_err(ioctl(fd, SIOCRDSSETTOS, &tos), ENOTTY,
		       "SIOCRDSSETTOS on loopback -> ENOTTY, as Linux");
		tos = 0x5a;
		is_ok(ioctl(fd, SIOCRDSGETTOS, &tos), "SIOCRDSGETTOS");
		is_eq(tos, 0, "... still 0");
		goto out;
	}
	is_ok(ioctl(fd, SIOCRDSSETTOS, &tos), "SIOCRDSSETTOS 5 once bound");
	tos = 0;
	is_ok(ioctl(fd, SIOCRDSGETTOS, &tos), "SIOCRDSGETTOS");
	is_eq(tos, 5, "... reads 5");
	tos = 6;
	is_err(ioctl(fd, SIOCRDSSETTOS, &tos), EINVAL,
	       "SIOCRDSSETTOS again -> EINVAL");
	tos = 0;
	ioctl(fd, SIOCRDSGETTOS, &tos);
	is_eq(tos, 5, "... and the first value stays");
	is_eq(send_to(fd, &to, buf, sizeof(buf), 0), (ssize_t)sizeof(buf),
	      "a socket with a type of service sends");
	is_eq(recv_wait(r, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS),
	      (ssize_t)sizeof(buf), "... and the message arrives");
	close(fd);
	fd = -1;

	s = bound_socket_at(cfg.addr, 0, "setup: sender");
	if (s < 0)
		goto out;
	tos = 0;
	is_ok(ioctl(s, SIOCRDSSETTOS, &tos), "SIOCRDSSETTOS 0 leaves it settable");
	is_eq(send_to(s, &to, buf, sizeof(buf), 0), (ssize_t)sizeof(buf),
	      "setup: a send");
	recv_wait(r, buf, sizeof(buf), NULL, NULL, 0, ARRIVE_MS);
	tos = 7;
	is_err(ioctl(s, SIOCRDSSETTOS, &tos), EINVAL,
	       "SIOCRDSSETTOS after a send -> EINVAL");
	close(s);
out:
	if (fd >= 0)
		close(fd);
	if (r >= 0)
		close(r);
}

static void test_limits(void)
{
	int big = 4 << 20, on = 1, fd, n = 0;
	union rds_sa self;
	size_t len = RDS_DOCA_MAX_MSG_SIZE;
	char *buf;

	fd = bound_socket_at(cfg.addr, 0, "setup");
	if (fd < 0)
		return;
	is_err(ioctl(fd, FIONREAD, &n), ENOTTY, "FIONREAD -> ENOTTY");
	is_err(ioctl(fd, SIOCOUTQ, &n), ENOTTY, "SIOCOUTQ -> ENOTTY");

	/* room for the largest message, so only its size is refused */
	buf = calloc(1, len + 1);
	self = sock_addr(fd);
	if (buf &&
	    is_ok(setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)),
		  "setup: SO_SNDBUFFORCE 4 MiB") &&
	    is_ok(setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)),
		  "setup: SO_RCVBUFFORCE 4 MiB")) {
		is_err(send_to(fd, &self, buf, len + 1, 0), EMSGSIZE,
		       "RDS_DOCA_MAX_MSG_SIZE + 1 bytes -> EMSGSIZE");
		is_eq(send_to(fd, &self, buf, len, 0), (ssize_t)len,
		      "RDS_DOCA_MAX_MSG_SIZE (1 MiB) bytes are sent");
		is_eq(recv_wait(fd, buf, len + 1, NULL, NULL, 0, ARRIVE_MS),
		      (ssize_t)len, "... and received whole");
	}
	free(buf);

	/*
	 * The core takes SO_ZEROCOPY itself on PF_RDS only; rds_doca takes
	 * it on its own family where the kernel lets a family take
	 * SOL_SOCKET options (6.12).  Linux RDS sends from user pages
	 * over TCP only.
	 */
	if (cfg.family == AF_RDS || (cfg.impl_doca && kernel_custom_sockopt())) {
		if (is_ok(setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &on, sizeof(on)),
			  "SO_ZEROCOPY on family %d", cfg.family)) {
			if (cfg.impl_doca)
				is_eq(send_to(fd, &self, "z", 1, MSG_ZEROCOPY), 1,
				      "... then MSG_ZEROCOPY sends");
			else if (cfg.transport != RDS_TRANS_TCP)
				is_err(send_to(fd, &self, "z", 1, MSG_ZEROCOPY),
				       EOPNOTSUPP,
				       "... then MSG_ZEROCOPY -> EOPNOTSUPP (not TCP)");
		}
	} else {
		is_err(setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &on, sizeof(on)),
		       EOPNOTSUPP, "SO_ZEROCOPY on family %d -> EOPNOTSUPP (the core)",
		       cfg.family);
	}
	close(fd);
}

static const struct selftest tests[] = {
	{ "counters-names", test_counters_names },
	{ "counters-move", test_counters_move },
	{ "tos", test_tos },
	{ "limits", test_limits },
};

static int extra(int opt, const char *arg)
{
	(void)arg;
	if (opt != 0x100)
		return -1;
	linux_names = true;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "linux-names", no_argument, NULL, 0x100 },
		{ NULL, 0, NULL, 0 },
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_common(argc, argv, opts, extra, " [--linux-names]"))
		return 2;
	return run_selftests("rds_compat_test", tests, selftest_by_filter);
}
