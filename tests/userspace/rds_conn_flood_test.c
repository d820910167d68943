// SPDX-License-Identifier: GPL-2.0
/*
 * Connections an unprivileged user makes, against Documentation/rds_doca.rst
 * ("Connections", module parameters max_conns and conn_idle_secs):
 *
 *  - one socket of uid 65534 sends empty messages to FLOODS different 127/8
 *    addresses (the loopback transport serves them all), one connection
 *    each;
 *  - no more than max_conns connections exist at any time: a send that
 *    needs one more fails with EADDRNOTAVAIL, counted in conn_limit;
 *  - once the socket is closed, every connection is freed after
 *    conn_idle_secs (counted in conn_reaped), and so are their congestion
 *    maps.
 *
 * With --addr and --peer two addresses the TCP transport serves, the
 * flood is of type-of-service lanes instead (tos_flood): uid 65534 sends
 * to one peer from 256 sockets, one per type of service, each of which
 * gets connections of its own at both ends; they stay within max_conns,
 * are listed with their lanes, and are freed once idle.
 *
 * Load the module with a max_conns below FLOODS (run.sh uses 1000) and a
 * short conn_idle_secs (run.sh uses 2); with the defaults the limit checks
 * are skipped.  Connections are counted through RDS_INFO_CONNECTIONS,
 * memory through the Slab line of /proc/meminfo (reported, not checked:
 * other activity and debug allocators move it).  Nothing is timed: the
 * wait for the reaper has a generous deadline.  Prints TAP (see tap.h).
 */
#include "rds_util.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>


#define FLOODS		4000
#define PARAM_DIR	"/sys/module/rds_doca/parameters/"
/* What the reaper gets beyond conn_idle_secs before the check fails. */
#define REAP_SLACK_MS	20000

/* Connections of @fd's namespace, or -1. */
static long conn_count(int fd)
{
	socklen_t len;
	void *buf;
	int r = info_get(fd, RDS_INFO_CONNECTIONS, &buf, &len);

	free(buf);
	if (r < 0)
		return -1;
	if (!len)
		return 0;
	return r ? (long)(len / r) : -1;
}

/* The Slab line of /proc/meminfo in KiB, or -1. */
static long slab_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* What the flooding child reports. */
struct flood_res {
	int err;		/* first: errno of the privilege drop */
	int sock_err;		/* errno of socket() or bind(), 0 */
	int sent;		/* sends that succeeded */
	int refused;		/* sends that failed with EADDRNOTAVAIL */
	int other;		/* sends that failed otherwise */
	int other_errno;	/* the first such errno */
	long conns_open;	/* connections right after the flood */
	long slab_open;		/* Slab KiB then */
};

/* Destination @i of the flood: 127.100.0.1 on, one address each. */
static struct sockaddr_in flood_dest(int i)
{
	struct in_addr a = { htonl(0x7f640000u + 1 + i) };

	return sin_make(a, 4000);
}

static void flood(struct flood_res *res)
{
	struct sockaddr_in to, me = sin_make(cfg.addr, 0);
	int fd, i;

	fd = rds_socket();
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me))) {
		res->sock_err = errno ? errno : EINVAL;
		return;
	}
	for (i = 0; i < FLOODS; i++) {
		to = flood_dest(i);
		if (sendto(fd, NULL, 0, MSG_DONTWAIT, (struct sockaddr *)&to,
			   sizeof(to)) == 0) {
			res->sent++;
		} else if (errno == EADDRNOTAVAIL) {
			res->refused++;
		} else {
			if (!res->other++)
				res->other_errno = errno;
		}
	}
	res->conns_open = conn_count(fd);
	res->slab_open = slab_kib();
	close(fd);
}

static void flood_child(void *res)
{
	flood(res);
}

/* Run flood() in a child with uid and gid 65534 and no groups. */
static bool flood_as_nobody(struct flood_res *res)
{
	if (!run_as_nobody(flood_child, res, sizeof(*res)))
		return false;
	return is_eq(res->sock_err, 0, "child's socket bound to %s",
		     inet_ntoa(cfg.addr));
}

/* The module parameters max_conns and conn_idle_secs: one check. */
static bool read_params(int *max_conns, int *idle_secs)
{
	*max_conns = -1;
	*idle_secs = -1;
	read_sysfs_int(PARAM_DIR "max_conns", max_conns);
	read_sysfs_int(PARAM_DIR "conn_idle_secs", idle_secs);
	tap_diag("max_conns %d, conn_idle_secs %d", *max_conns, *idle_secs);
	return ok(*max_conns > 0 && *idle_secs > 0,
		  "module parameters max_conns and conn_idle_secs readable");
}

/* Wait until @fd's namespace holds no connection; the count, or -1. */
static long wait_no_conns(int fd, long long deadline)
{
	long n;

	for (;;) {
		n = conn_count(fd);
		if (n <= 0 || now_ms() >= deadline)
			return n;
		sleep_ms(200);
	}
}

static void test_conn_flood(void)
{
	uint64_t limit0 = 0, limit1 = 0, reaped0 = 0, reaped1 = 0;
	int max_conns = -1, idle_secs = -1;
	long before, after, slab_before, slab_after;
	long long t0, deadline;
	struct flood_res res;
	int fd;

	if (!read_params(&max_conns, &idle_secs))
		return;

	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	/* what earlier tests left behind goes first */
	before = wait_no_conns(fd, now_ms() + idle_secs * 1000LL +
				   REAP_SLACK_MS);
	slab_before = slab_kib();
	counter_read(fd, "conn_limit", &limit0);
	counter_read(fd, "conn_reaped", &reaped0);
	tap_diag("connections before: %ld, Slab %ld KiB", before,
		 slab_before);

	if (!flood_as_nobody(&res)) {
		close(fd);
		return;
	}
	tap_diag("uid %d sent to %d addresses: %d sent, %d EADDRNOTAVAIL, %d other (%s)",
		 NOBODY, FLOODS, res.sent, res.refused, res.other,
		 tap_errname(res.other_errno));
	tap_diag("connections after the flood: %ld, Slab %ld KiB (%+ld KiB)",
		 res.conns_open, res.slab_open, res.slab_open - slab_before);

	is_eq(res.other, 0, "every send succeeds or is refused for the limit");
	ok_diag(res.conns_open > 0 && res.conns_open <= max_conns,
		"connections after the flood within max_conns",
		"%ld connections, max_conns %d", res.conns_open, max_conns);
	if (max_conns < FLOODS) {
		ok_diag(res.refused > 0,
			"sends beyond max_conns fail with EADDRNOTAVAIL",
			"%d refused", res.refused);
		ok_diag(res.sent >= max_conns - (before > 0 ? before : 0),
			"sends up to max_conns succeed", "%d sent", res.sent);
		counter_read(fd, "conn_limit", &limit1);
		is_eq((long long)(limit1 - limit0), (long long)res.refused,
		      "conn_limit counts every refusal");
	} else {
		tap_diag("max_conns %d >= %d: limit not reached, not checked",
			 max_conns, FLOODS);
	}

	/* the socket is closed: everything goes after conn_idle_secs */
	t0 = now_ms();
	deadline = t0 + idle_secs * 1000LL + REAP_SLACK_MS;
	after = wait_no_conns(fd, deadline);
	slab_after = slab_kib();
	counter_read(fd, "conn_reaped", &reaped1);
	tap_diag("connections after close and %lld ms: %ld, Slab %ld KiB (%+ld KiB from before), %llu reaped",
		 now_ms() - t0, after, slab_after, slab_after - slab_before,
		 (unsigned long long)(reaped1 - reaped0));
	is_eq(after, 0L, "every connection freed within conn_idle_secs + %d s",
	      REAP_SLACK_MS / 1000);
	ok_diag(reaped1 - reaped0 >= (uint64_t)res.conns_open,
		"conn_reaped counts them", "%llu reaped, %ld were open",
		(unsigned long long)(reaped1 - reaped0), res.conns_open);

	/* a connection reaped and needed again is made again */
	{
		struct sockaddr_in to = flood_dest(0);
		int s = bound_socket_at(cfg.addr, 0, NULL);

		if (sys_ok(s, "socket for a second send")) {
			sys_ok(sendto(s, NULL, 0, MSG_DONTWAIT,
				      (struct sockaddr *)&to, sizeof(to)),
			       "send to a reaped connection's peer");
			is_eq(conn_count(fd), 1L, "its connection is back");
			close(s);
		}
	}
	close(fd);
}

/* Type-of-service lanes: one socket per value, all to one peer. */
#define LANES		256

/* What the lane-flooding child reports. */
struct lanes_res {
	int err;		/* first: errno of the privilege drop */
	int sock_err;		/* errno of socket(), bind() or the ioctl */
	int sent;		/* sends that succeeded */
	int refused;		/* sends that failed with EADDRNOTAVAIL */
	int other;		/* sends that failed otherwise */
	int other_errno;	/* the first such errno */
	long conns_open;	/* connections right after the flood */
	int lanes_open;		/* of them, cfg.addr -> cfg.peer lanes */
};

/* Lanes cfg.addr -> cfg.peer that @fd's namespace lists, -1 on error. */
static int lanes_listed(int fd)
{
	struct rds_info_connection *c;
	bool seen[LANES] = { false };
	socklen_t len;
	void *buf;
	int r = info_get(fd, RDS_INFO_CONNECTIONS, &buf, &len);
	int n = 0;

	if (r < 0 || (len && r != (int)sizeof(*c))) {
		free(buf);
		return -1;
	}
	for (c = buf; (char *)(c + 1) <= (char *)buf + len; c++)
		if (c->laddr == cfg.addr.s_addr &&
		    c->faddr == cfg.peer.s_addr && !seen[c->tos]) {
			seen[c->tos] = true;
			n++;
		}
	free(buf);
	return n;
}

static void lanes_flood(struct lanes_res *res)
{
	struct sockaddr_in to = sin_make(cfg.peer, 4000);
	int fds[LANES], i, n;
	rds_tos_t tos;

	for (n = 0; n < LANES; n++) {
		fds[n] = bound_socket_at(cfg.addr, 0, NULL);
		tos = n;
		if (fds[n] < 0 || ioctl(fds[n], SIOCRDSSETTOS, &tos)) {
			res->sock_err = errno ? errno : EINVAL;
			if (fds[n] >= 0)
				close(fds[n]);
			break;
		}
		if (sendto(fds[n], NULL, 0, MSG_DONTWAIT,
			   (struct sockaddr *)&to, sizeof(to)) == 0) {
			res->sent++;
		} else if (errno == EADDRNOTAVAIL) {
			res->refused++;
		} else if (!res->other++) {
			res->other_errno = errno;
		}
	}
	if (n) {
		/* the peer's ends are made when the first messages arrive */
		long long deadline = now_ms() + ARRIVE_MS;

		do {
			res->lanes_open = lanes_listed(fds[0]);
			if (res->lanes_open >= res->sent)
				break;
			sleep_ms(100);
		} while (now_ms() < deadline);
		res->conns_open = conn_count(fds[0]);
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
}

static void lanes_child(void *res)
{
	lanes_flood(res);
}

static void test_tos_flood(void)
{
	int max_conns = -1, idle_secs = -1, fd;
	long after;
	struct lanes_res res;

	if (!read_params(&max_conns, &idle_secs))
		return;
	fd = rds_socket();
	if (!sys_ok(fd, "socket"))
		return;
	wait_no_conns(fd, now_ms() + idle_secs * 1000LL + REAP_SLACK_MS);
	if (!run_as_nobody(lanes_child, &res, sizeof(res)) ||
	    !is_eq(res.sock_err, 0, "child's %d sockets bound to %s, each its TOS",
		   LANES, inet_ntoa(cfg.addr))) {
		close(fd);
		return;
	}
	tap_diag("uid %d sent on %d lanes: %d sent, %d EADDRNOTAVAIL, %d other (%s); %ld connections, %d lanes listed",
		 NOBODY, LANES, res.sent, res.refused, res.other,
		 tap_errname(res.other_errno), res.conns_open,
		 res.lanes_open);
	is_eq(res.other, 0, "every send succeeds or is refused for the limit");
	ok_diag(res.conns_open > 0 && res.conns_open <= max_conns,
		"connections within max_conns", "%ld connections, max_conns %d",
		res.conns_open, max_conns);
	if (2 * LANES <= max_conns) {
		is_eq(res.sent, LANES, "each lane's first send succeeds");
		is_eq(res.lanes_open, LANES,
		      "a connection per lane, listed with its TOS");
	} else {
		ok_diag(res.refused > 0, "lanes beyond max_conns: EADDRNOTAVAIL",
			"%d refused", res.refused);
	}
	after = wait_no_conns(fd, now_ms() + idle_secs * 1000LL +
				  REAP_SLACK_MS);
	is_eq(after, 0L, "every lane freed within conn_idle_secs + %d s",
	      REAP_SLACK_MS / 1000);
	close(fd);
}

static const struct selftest tests[] = {
	{ "conn_flood", test_conn_flood },
};

static const struct selftest tcp_tests[] = {
	{ "tos_flood", test_tos_flood },
};

int main(int argc, char **argv)
{
	if (!bounds_prog_start(argc, argv))
		return 2;
	if (!addr_is_loopback(cfg.addr) && cfg.transport == RDS_TRANS_TCP &&
	    !addr_is_loopback(cfg.peer))
		return run_selftests("rds_conn_flood_test", tcp_tests,
				     selftest_by_filter);
	if (!addr_is_loopback(cfg.addr)) {
		fprintf(stderr, "%s: --addr must be a 127/8 address, or --addr and --peer two addresses of --transport tcp\n",
			argv[0]);
		return 2;
	}
	return run_selftests("rds_conn_flood_test", tests, selftest_by_filter);
}
