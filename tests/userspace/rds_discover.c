// SPDX-License-Identifier: GPL-2.0
/*
 * Find the RDS numbers the way historic RDS tools do, then use them.
 *
 * Tools written for RDS read the address family and the socket option
 * level from /proc/sys/net/rds/pf_rds and /proc/sys/net/rds/sol_rds when
 * those files exist and fall back to 21 (AF_RDS) and 276 (SOL_RDS).  This
 * program does the same, compares what it found with --expect-family,
 * and then proves the numbers reach a working socket family: a socket of
 * that family sends a message to itself over loopback, and an RDS_INFO
 * getsockopt at that level answers with Linux's length protocol.
 *
 * usage: rds_discover --expect-family N [--source rds|fallback]
 *   --source: where the numbers must come from: the sysctl files (rds)
 *   or the fallback because the files are absent (fallback).
 */
#include "rds_util.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "expect-family", required_argument, NULL, 'f' },
		{ "source", required_argument, NULL, 's' },
		{ }
	};
	const char *source = "rds";
	int expect = -1, pf = 21, sol = 276, from_files, c, fd;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sin);
	char buf[64];
	socklen_t len = 0;
	ssize_t n;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			expect = atoi(optarg);
			break;
		case 's':
			source = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s --expect-family N [--source rds|fallback]\n",
				argv[0]);
			return 2;
		}
	}

	/* the historic way */
	from_files = !read_sysfs_int("/proc/sys/net/rds/pf_rds", &pf) &&
		     !read_sysfs_int("/proc/sys/net/rds/sol_rds", &sol);
	if (!from_files) {
		pf = 21;
		sol = 276;
	}
	tap_diag("found family %d, level %d (%s)", pf, sol,
		 from_files ? "/proc/sys/net/rds" : "fallback");
	ok_diag(from_files == !strcmp(source, "rds"),
		"the numbers come from where they should", "from %s, wanted %s",
		from_files ? "the sysctl files" : "the fallback", source);
	ok_diag(pf == expect, "the family found is the one in use",
		"found %d, expected %d", pf, expect);
	ok_diag(sol == 276, "the level found is SOL_RDS", "found %d", sol);

	fd = socket(pf, SOCK_SEQPACKET, 0);
	if (!ok_diag(fd >= 0, "a socket of the family found", "errno %s",
		     tap_errname(errno)))
		return tap_finish();
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok_diag(!bind(fd, (struct sockaddr *)&sin, sizeof(sin)) &&
		!getsockname(fd, (struct sockaddr *)&sin, &slen),
		"it binds to 127.0.0.1", "errno %s", tap_errname(errno));
	ok_diag(sendto(fd, "found", 5, 0, (struct sockaddr *)&sin,
		       sizeof(sin)) == 5, "it sends to itself", "errno %s",
		tap_errname(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO,
		   &(struct timeval){ .tv_sec = 10 }, sizeof(struct timeval));
	n = recv(fd, buf, sizeof(buf), 0);
	ok_diag(n == 5 && !memcmp(buf, "found", 5), "and receives the message",
		"recv returned %zd, errno %s", n, tap_errname(errno));
	ok_diag(getsockopt(fd, sol, RDS_INFO_COUNTERS, NULL, &len) < 0 &&
		errno == ENOSPC && len > 0,
		"RDS_INFO_COUNTERS at the level found probes its length",
		"errno %s, length %u", tap_errname(errno), len);
	close(fd);
	return tap_finish();
}
