// SPDX-License-Identifier: GPL-2.0
/*
 * Regression test for what the two-host soak found (tests/soak): two ends
 * of an idle IB/RoCE connection revived each other forever.  One end's
 * reaper freed its connection, which disconnected the queue pair; the
 * other end reconnected at once although it had nothing to send, and the
 * new incarnation restarted the idle clocks of both ends.  The connection
 * count never went back to what it was, and a pair of hosts that had
 * talked once kept connecting every conn_idle_secs.  A path that fails
 * with nothing to send is now parked until a message is queued on it
 * (rdsd_conn_park()).
 *
 * The sequence: a socket bound to --addr sends one message to a socket
 * bound to --peer, which receives it and answers.  The --peer socket
 * closes, so its end of the path is reaped while the --addr socket keeps
 * the other end; then that socket closes too.  The checks: the
 * namespace's connection count (RDS_INFO_CONNECTIONS) settles at one
 * more than before, then back where it was, each time for three idle
 * periods (--idle, the module's conn_idle_secs), within --limit seconds;
 * a new message after that still arrives (the parked path connects
 * again).  On one host both ends of a path are in the same namespace;
 * reaping them together, when both sockets close at once, would hide the
 * fault.
 * Prints TAP.
 *
 *   regress_ib_idle_conns --addr 192.0.2.1 --peer 192.0.2.2 [--family N]
 *                         [--idle S] [--limit S]
 *
 * Run as an unprivileged user in a VM with rds_doca loaded with
 * conn_idle_secs=--idle and the rxe device of tests/userspace/run.sh
 * (tests/fuzz/README).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>

#include <rds_doca_user.h>
#include "regress.h"

/* Connections of the namespace, or -1. */
static int conn_count(int fd)
{
	static char buf[1 << 20];
	socklen_t len = sizeof(buf);
	int each;

	each = getsockopt(fd, SOL_RDS, RDS_INFO_CONNECTIONS, buf, &len);
	if (each <= 0)
		return -1;
	return len / each;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One message from @from to @to's address, received there; 0 or -1. */
static int exchange(int from, int to, const struct sockaddr_in *dst,
		    const char *text)
{
	struct pollfd pfd = { .fd = to, .events = POLLIN };
	char buf[64];
	ssize_t n;

	if (sendto(from, text, strlen(text), 0, (const struct sockaddr *)dst,
		   sizeof(*dst)) != (ssize_t)strlen(text))
		return -1;
	if (poll(&pfd, 1, 30000) != 1)
		return -1;
	n = recv(to, buf, sizeof(buf), MSG_DONTWAIT);
	return n == (ssize_t)strlen(text) && !memcmp(buf, text, n) ? 0 : -1;
}

/*
 * Check that the connection count reaches @want and stays there for three
 * idle periods, within @limit seconds.
 */
static void stable(int fd, int want, int idle, int limit, const char *when)
{
	double t0 = now(), since = t0;
	char detail[200], seen[120] = "";
	int conns = -1, last = -2;
	size_t off = 0;

	while (fd >= 0 && now() - t0 < limit) {
		conns = conn_count(fd);
		if (conns != last && off < sizeof(seen) - 12)
			off += snprintf(seen + off, sizeof(seen) - off, " %d",
					conns);
		last = conns;
		if (conns != want)
			since = now();
		if (now() - since >= 3 * idle)
			break;
		usleep(200000);
	}
	snprintf(detail, sizeof(detail),
		 "%s: %d of %d now, after %.0f s; counts seen:%s", when, conns,
		 want, now() - t0, seen);
	check(conns == want && now() - since >= 3 * idle,
	      "the connection count stays put for three idle periods",
	      detail);
}

int main(int argc, char **argv)
{
	int family = -1, idle = 2, limit = 0, conns0, a, b;
	struct in_addr addr = { 0 }, peer = { 0 };
	struct sockaddr_in sa, sb;
	const char *failed;
	char detail[200];
	bool ok;
	const struct regress_opt opts[] = {
		{ .name = "--addr", .addr = &addr },
		{ .name = "--peer", .addr = &peer },
		{ .name = "--family", .num = &family },
		{ .name = "--idle", .num = &idle },
		{ .name = "--limit", .num = &limit },
		{}
	};

	if (!regress_opts(argc, argv, opts) || !addr.s_addr || !peer.s_addr ||
	    idle < 1) {
		fprintf(stderr, "usage: %s --addr A --peer B [--family N]",
			argv[0]);
		fprintf(stderr, " [--idle S] [--limit S]\n");
		return 2;
	}
	if (!limit)
		limit = idle * 10 + 60;
	if (family < 0)
		family = rds_doca_family();
	printf("1..4\n");

	b = rds_doca_bound_socket(family, peer, &sb, &failed);
	a = b < 0 ? -1 : rds_doca_bound_socket(family, addr, &sa, &failed);
	if (a < 0) {
		snprintf(detail, sizeof(detail), "%s: %s", failed,
			 strerror(errno));
		check(false, "two sockets", detail);
		return check_finish();
	}
	conns0 = conn_count(a);
	ok = conns0 >= 0 && !exchange(a, b, &sb, "there") &&
	     !exchange(b, a, &sa, "back");
	snprintf(detail, sizeof(detail), "%s <-> %s, %d connections before",
		 rds_doca_sin_name(&sa), rds_doca_sin_name(&sb), conns0);
	check(ok, "a message each way", detail);
	/*
	 * --peer's socket goes: its end of the path is freed once idle, and
	 * the disconnection reaches --addr's end, which its socket keeps.
	 * That end has nothing to send: it must stay down, one connection.
	 */
	close(b);
	stable(a, conns0 + 1, idle, limit, "with one end kept by its socket");
	close(a);

	/* a socket of its own to count with: it makes no connection */
	a = socket(family, SOCK_SEQPACKET, 0);
	stable(a, conns0, idle, limit, "once both sockets closed");
	if (a >= 0)
		close(a);

	/* the parked or freed path still carries a new message */
	b = rds_doca_bound_socket(family, peer, &sb, &failed);
	a = b < 0 ? -1 : rds_doca_bound_socket(family, addr, &sa, &failed);
	ok = a >= 0 && !exchange(a, b, &sb, "later");
	check(ok, "a message afterwards arrives", "");
	close(a);
	close(b);
	return check_finish();
}
