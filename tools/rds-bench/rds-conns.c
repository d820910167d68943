// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rds-conns: what a connection costs, and how fast they come up.
 *
 * --hubs sockets, on consecutive addresses from --hub, each send one
 * message to --peers sockets on consecutive addresses from --peer: one
 * connection per (hub, peer) pair of addresses, both ends on this host.
 * Then:
 *
 *   up     every message delivered: the set-up rate (connections/s);
 *          after --settle seconds (attempts that lost a connection race
 *          go away, acknowledgments go), the kernel memory per
 *          connection while idle;
 *   busy   each hub sends --msgs messages of --size bytes to every peer,
 *          all delivered: the memory per connection after traffic (none
 *          with --msgs 0);
 *   reap   every socket closed, and with --reap-wait the connections gone
 *          (RDS_INFO_CONNECTIONS counts none beyond those there before):
 *          the memory left per connection.
 *
 * Memory is /proc/meminfo's MemTotal - MemFree - Buffers - Cached -
 * SReclaimable after dropping the page cache, less what it was with the
 * sockets open and no connection yet: it counts everything the kernel
 * holds for the connections, the RDMA device's queues included.  Works
 * on Linux RDS (--family 21) as on rds_doca.  Run as root in a VM with
 * nothing else running; every address must be local, on one RDMA device.
 * Prints one line of JSON last.
 *
 *   rds-conns --family N --hub A [--hubs K] --peer B [--peers M]
 *             [--msgs N] [--size S] [--settle SEC] [--reap-wait SEC]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <linux/rds_doca.h>

#define MAX_SOCKS	4096
#define WAIT_MS		(600 * 1000)

static struct {
	int family;
	struct in_addr hub, peer;
	unsigned int hubs, peers, msgs, size, settle, reap_wait;
} cfg = { .hubs = 1, .peers = 1, .msgs = 64, .size = 16384, .settle = 10 };

static int hub_fd[MAX_SOCKS], peer_fd[MAX_SOCKS];
static struct sockaddr_in peer_sa[MAX_SOCKS];

static void die(const char *what)
{
	fprintf(stderr, "rds-conns: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Kernel memory in use, KiB, the page cache dropped. */
static long mem_used(void)
{
	long total = 0, free_ = 0, buffers = 0, cached = 0, srecl = 0, v;
	char line[128];
	FILE *f;

	f = fopen("/proc/sys/vm/drop_caches", "w");
	if (f) {
		fputs("3\n", f);
		fclose(f);
	}
	f = fopen("/proc/meminfo", "r");
	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemTotal: %ld", &v) == 1)
			total = v;
		else if (sscanf(line, "MemFree: %ld", &v) == 1)
			free_ = v;
		else if (sscanf(line, "Buffers: %ld", &v) == 1)
			buffers = v;
		else if (sscanf(line, "Cached: %ld", &v) == 1)
			cached = v;
		else if (sscanf(line, "SReclaimable: %ld", &v) == 1)
			srecl = v;
	}
	fclose(f);
	return total - free_ - buffers - cached - srecl;
}

/* Connections the family lists, or -1. */
static long conn_count(void)
{
	socklen_t len = 0;
	int fd = socket(cfg.family, SOCK_SEQPACKET, 0);
	long n = -1;

	if (fd < 0)
		return -1;
	if (getsockopt(fd, SOL_RDS, RDS_INFO_CONNECTIONS, NULL, &len) < 0 &&
	    errno != ENOSPC)
		goto out;
	n = len / sizeof(struct rds_info_connection);
out:
	close(fd);
	return n;
}

static struct in_addr addr_add(struct in_addr a, unsigned int i)
{
	a.s_addr = htonl(ntohl(a.s_addr) + i);
	return a;
}

static int sock_open(struct in_addr a, struct sockaddr_in *bound)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = a };
	socklen_t len = sizeof(sa);
	int buf = 4 << 20;
	int fd = socket(cfg.family, SOCK_SEQPACKET, 0);

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "rds-conns: bind %s: %s\n", inet_ntoa(a),
			strerror(errno));
		exit(1);
	}
	if (bound && getsockname(fd, (struct sockaddr *)bound, &len) < 0)
		die("getsockname");
	return fd;
}

/* Send @n messages of @size bytes from every hub to every peer. */
static void send_all(unsigned int n, unsigned int size, char *buf)
{
	unsigned int h, p, k;

	for (h = 0; h < cfg.hubs; h++)
		for (p = 0; p < cfg.peers; p++)
			for (k = 0; k < n; k++) {
				double end = now() + WAIT_MS / 1000.0;

				while (sendto(hub_fd[h], buf, size, 0,
					      (struct sockaddr *)&peer_sa[p],
					      sizeof(peer_sa[p])) < 0) {
					if ((errno != ENOBUFS &&
					     errno != EAGAIN) || now() > end)
						die("sendto");
					usleep(1000);
				}
			}
}

/*
 * Receive @n messages from every hub on every peer socket.  A hub's
 * sends may fill a send buffer while the receivers wait: called from a
 * second thread of control, the parent, while the child sends.
 */
static void recv_all(unsigned int n, char *buf, size_t room)
{
	static struct pollfd pfd[MAX_SOCKS];
	unsigned long want = (unsigned long)n * cfg.hubs * cfg.peers, got = 0;
	double end = now() + WAIT_MS / 1000.0;
	unsigned int p;

	for (p = 0; p < cfg.peers; p++)
		pfd[p] = (struct pollfd){ .fd = peer_fd[p], .events = POLLIN };
	while (got < want) {
		if (now() > end) {
			fprintf(stderr, "rds-conns: %lu of %lu messages came\n",
				got, want);
			exit(1);
		}
		if (poll(pfd, cfg.peers, 1000) < 0)
			die("poll");
		for (p = 0; p < cfg.peers; p++)
			while (recv(peer_fd[p], buf, room, MSG_DONTWAIT) >= 0)
				got++;
	}
}

/* Both at once: the child sends, we receive. */
static void exchange(unsigned int n, unsigned int size, char *buf)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		die("fork");
	if (!pid) {
		send_all(n, size, buf);
		_exit(0);
	}
	recv_all(n, buf, size > 64 ? size : 64);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		exit(1);
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: rds-conns --family N --hub A [--hubs K] --peer B [--peers M]\n"
		"                 [--msgs N] [--size S] [--settle SEC] [--reap-wait SEC]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "hub", required_argument, NULL, 'a' },
		{ "hubs", required_argument, NULL, 'k' },
		{ "peer", required_argument, NULL, 'b' },
		{ "peers", required_argument, NULL, 'm' },
		{ "msgs", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "settle", required_argument, NULL, 't' },
		{ "reap-wait", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	long base, idle, busy, reaped = 0, conns0, conns;
	double t0, setup;
	unsigned int i;
	unsigned long nconn;
	char *buf;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			cfg.family = atoi(optarg);
			break;
		case 'a':
			if (!inet_aton(optarg, &cfg.hub))
				usage();
			break;
		case 'k':
			cfg.hubs = atoi(optarg);
			break;
		case 'b':
			if (!inet_aton(optarg, &cfg.peer))
				usage();
			break;
		case 'm':
			cfg.peers = atoi(optarg);
			break;
		case 'n':
			cfg.msgs = atoi(optarg);
			break;
		case 's':
			cfg.size = atoi(optarg);
			break;
		case 't':
			cfg.settle = atoi(optarg);
			break;
		case 'r':
			cfg.reap_wait = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (!cfg.family || !cfg.hub.s_addr || !cfg.peer.s_addr ||
	    !cfg.hubs || cfg.hubs > MAX_SOCKS || !cfg.peers ||
	    cfg.peers > MAX_SOCKS || !cfg.size || cfg.size > (1 << 20))
		usage();
	buf = calloc(1, cfg.size > 64 ? cfg.size : 64);
	if (!buf)
		die("calloc");
	nconn = (unsigned long)cfg.hubs * cfg.peers;

	conns0 = conn_count();
	for (i = 0; i < cfg.hubs; i++)
		hub_fd[i] = sock_open(addr_add(cfg.hub, i), NULL);
	for (i = 0; i < cfg.peers; i++)
		peer_fd[i] = sock_open(addr_add(cfg.peer, i), &peer_sa[i]);
	sleep(3);
	base = mem_used();

	t0 = now();
	exchange(1, 64, buf);
	setup = now() - t0;
	sleep(cfg.settle);
	idle = mem_used();
	conns = conn_count();
	printf("up: %lu connections (%ld listed) in %.2f s: %.1f/s; %.1f KiB each idle\n",
	       nconn, conns - conns0, setup, nconn / setup,
	       (double)(idle - base) / nconn);

	busy = idle;
	if (cfg.msgs) {
		exchange(cfg.msgs, cfg.size, buf);
		sleep(cfg.settle);
		busy = mem_used();
		printf("busy: %u x %u B to each: %.1f KiB each\n", cfg.msgs,
		       cfg.size, (double)(busy - base) / nconn);
	}

	for (i = 0; i < cfg.hubs; i++)
		close(hub_fd[i]);
	for (i = 0; i < cfg.peers; i++)
		close(peer_fd[i]);
	if (cfg.reap_wait) {
		double end = now() + cfg.reap_wait;

		while (conn_count() > conns0 && now() < end)
			sleep(1);
		sleep(2);
		reaped = mem_used();
		printf("reap: %ld left listed; %.1f KiB each left\n",
		       conn_count() - conns0,
		       (double)(reaped - base) / nconn);
	}
	printf("{\"family\":%d,\"conns\":%lu,\"setup_s\":%.3f,\"setup_per_s\":%.1f,"
	       "\"idle_kib\":%.1f,\"busy_kib\":%.1f,\"reap_left\":%ld,"
	       "\"reaped_kib\":%.1f,\"base_kib\":%ld}\n",
	       cfg.family, nconn, setup, nconn / setup,
	       (double)(idle - base) / nconn, (double)(busy - base) / nconn,
	       cfg.reap_wait ? conn_count() - conns0 : -1,
	       cfg.reap_wait ? (double)(reaped - base) / nconn : 0.0, base);
	return 0;
}
