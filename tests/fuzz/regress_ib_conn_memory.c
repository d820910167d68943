// SPDX-License-Identifier: GPL-2.0
/*
 * Regression test for what rds_fuzz found over Soft-RoCE (seed 2,
 * --transport ib): a send from a socket bound to an address of the IB/RoCE
 * transport to an address that no host answers makes a connection whose
 * attempts hold the IB rings, 4 MiB of receive buffers and the rest,
 * about 4.6 MB of unreclaimable kernel memory, until the connection is
 * reaped once idle (conn_idle_secs, 60 s, and more).  An unprivileged user
 * makes up to max_conns (4096) of them per namespace: far more memory
 * than a machine has.  Fuzzing at a few thousand calls a second drove a
 * 2 GiB VM into "Kernel panic - not syncing: System is deadlocked on
 * memory" within 20 s.
 *
 * Documentation/rds_doca.rst, "Connections": "The memory of a connection
 * made by a send (the connection and the congestion map of a new
 * destination address, about 9 KiB) is charged to the sender's memory
 * cgroup", and "Limits": "over IB/RoCE each holds 4 MiB of receive
 * buffers while it is up".
 *
 * The sequence: one socket bound to --addr sends one byte, non-blocking,
 * to --count addresses of the /24 --net (a documentation range, RFC 5737:
 * 203.0.113.0/24 has no route in the one-VM topology, and 192.0.2.0/24
 * no other host), waits --settle seconds, then to --count more.  The
 * check: the second batch grew the kernel's unreclaimable slab and vmalloc
 * memory (/proc/meminfo SUnreclaim + VmallocUsed) by at most 64 KiB per
 * connection.  Only a bounded number
 * of attempts (RDSD_IB_MAX_ATTEMPTS, 64) may hold a queue pair and rings
 * while nobody answers, and the first batch, of more than that, took them
 * all; every further connection costs its own structures only.  And the
 * attempts that found no place waited, counted in conn_attempt_wait.
 * Prints TAP.
 *
 *   regress_ib_conn_memory --addr 192.0.2.1 [--net 203.0.113.0] [--count 126]
 *                          [--family N] [--settle S]
 *
 * Run as an unprivileged user in a VM with rds_doca loaded and the rxe
 * device of tests/userspace/run.sh (tests/fuzz/README).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdlib.h>

#include <rds_doca_user.h>
#include "regress.h"

#define LIMIT_KIB	64	/* per connection; the documented cost is 9 */

/* SUnreclaim + VmallocUsed, in KiB. */
static long kernel_kib(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long v, sum = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld", &v) == 1 ||
		    sscanf(line, "VmallocUsed: %ld", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

/* Send one byte to addresses .@from + 1 to .@from + @count of /24 @net. */
static int send_batch(int fd, struct in_addr addr, struct in_addr net,
		      int from, int count, int *err)
{
	struct sockaddr_in to;
	int i, sent = 0;

	for (i = from; i < from + count; i++) {
		memset(&to, 0, sizeof(to));
		to.sin_family = AF_INET;
		/* .1 to .254 of the net, ours skipped: at most 2 x 126 */
		to.sin_addr.s_addr = htonl((ntohl(net.s_addr) & ~0xffu) +
					   i + 1);
		if (to.sin_addr.s_addr == addr.s_addr)
			to.sin_addr.s_addr = htonl((ntohl(net.s_addr) & ~0xffu) +
						   254);
		to.sin_port = htons(4000);
		if (sendto(fd, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&to,
			   sizeof(to)) == 1)
			sent++;
		else if (!*err)
			*err = errno;
	}
	return sent;
}

int main(int argc, char **argv)
{
	struct in_addr addr = { 0 }, net = { htonl(0xcb007100) };
	int family = -1, count = 126, settle = 3, fd, err = 0;
	int sent1, sent2;
	char netname[INET_ADDRSTRLEN];
	struct sockaddr_in sin;
	const char *failed;
	long base, mid, after, per;
	long long wait0, wait1;
	bool ok, waited;
	const struct regress_opt opts[] = {
		{ .name = "--addr", .addr = &addr },
		{ .name = "--net", .addr = &net },
		{ .name = "--count", .num = &count },
		{ .name = "--family", .num = &family },
		{ .name = "--settle", .num = &settle },
		{}
	};

	if (!regress_opts(argc, argv, opts) || !addr.s_addr || count < 1 ||
	    count > 126) {
		fprintf(stderr, "usage: %s --addr A [--net N] [--count N]",
			argv[0]);
		fprintf(stderr, " [--family N] [--settle S]\n");
		return 2;
	}
	if (family < 0)
		family = rds_doca_family();
	printf("1..2\n");
	fd = rds_doca_bound_socket(family, addr, &sin, &failed);
	if (fd < 0) {
		printf("not ok 1 - regress_ib_conn_memory: %s: %s\n", failed,
		       strerror(errno));
		printf("0 passed, 2 failed\n");
		return 1;
	}
	wait0 = rds_doca_counter(fd, "conn_attempt_wait");
	base = kernel_kib();
	sent1 = send_batch(fd, addr, net, 0, count, &err);
	sleep(settle);
	mid = kernel_kib();
	sent2 = send_batch(fd, addr, net, count, count, &err);
	sleep(settle);
	after = kernel_kib();
	wait1 = rds_doca_counter(fd, "conn_attempt_wait");
	close(fd);
	per = sent2 ? (after - mid) / sent2 : 0;
	inet_ntop(AF_INET, &net, netname, sizeof(netname));
	printf("# 2 x %d sends from %s to %s and up, %d + %d accepted%s%s\n",
	       count, rds_doca_sin_name(&sin), netname, sent1, sent2,
	       err ? ", first error: " : "", err ? strerror(err) : "");
	printf("# SUnreclaim + VmallocUsed: %ld KiB, %ld KiB after the first",
	       base, mid);
	printf(" batch, %ld KiB after the second: %ld KiB per connection\n",
	       after, per);
	ok = sent1 && sent2 && per <= LIMIT_KIB;
	printf("%sok 1 - regress_ib_conn_memory: %d more connections to",
	       ok ? "" : "not ", sent2);
	printf(" peers that do not answer hold at most %d KiB each (%ld KiB)\n",
	       LIMIT_KIB, per);
	/* 256 connections, 16 places for this user: attempts waited */
	waited = wait0 >= 0 && wait1 > wait0;
	printf("%sok 2 - regress_ib_conn_memory: attempts beyond the user's",
	       waited ? "" : "not ");
	printf(" places waited, counted in conn_attempt_wait (%lld, then %lld)\n",
	       wait0, wait1);
	printf("%d passed, %d failed\n", ok + waited, !ok + !waited);
	return !ok || !waited;
}
