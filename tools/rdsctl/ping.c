// SPDX-License-Identifier: GPL-2.0-only
/*
 * "rdsctl ping": round trips to the rds_doca module of a peer.
 *
 * A probe is an empty message to port 0 of the peer, which the peer's
 * module answers with an empty message from its port 0, as with Linux
 * RDS and rds-ping.  One probe is in flight at a time; its round trip is
 * the time from sendto() to the reply.  The socket is of the module's
 * address family, which its info gives.
 */
#define _GNU_SOURCE		/* ppoll */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/genl.h>
#include <linux/rds_doca.h>

#include "printer.h"
#include "rds_doca_user.h"
#include "rdsctl.h"

/* An IPv4 or IPv6 socket address. */
union ping_sa {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
};

struct ping_opts {
	const char *target;	/* as given */
	union ping_sa addr;	/* port 0 */
	union ping_sa laddr;	/* AF_UNSPEC: the route's source */
	unsigned long count;	/* 0: until interrupted */
	double interval;	/* seconds between probes */
	double timeout;		/* seconds to wait for each reply */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double parse_seconds(int opt, const char *arg, bool zero_ok)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0 && v <= 3600) ||
	    (!zero_ok && v == 0))
		usage_error("ping: -%c: invalid time \"%s\"", opt, arg);
	return v;
}

static socklen_t sa_len(const union ping_sa *a)
{
	return a->sa.sa_family == AF_INET6 ? sizeof(a->sin6) : sizeof(a->sin);
}

/* An address given as IPv4 or IPv6 text (a scope as "%IF"), or NULL. */
static bool parse_addr(const char *text, union ping_sa *a)
{
	struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST,
		.ai_socktype = SOCK_DGRAM,
	}, *res;

	if (getaddrinfo(text, NULL, &hints, &res))
		return false;
	memset(a, 0, sizeof(*a));
	memcpy(a, res->ai_addr, res->ai_addrlen < sizeof(*a) ?
	       res->ai_addrlen : sizeof(*a));
	freeaddrinfo(res);
	return a->sa.sa_family == AF_INET || a->sa.sa_family == AF_INET6;
}

static void resolve(const char *name, union ping_sa *a)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res;

	if (parse_addr(name, a))
		return;
	if (getaddrinfo(name, NULL, &hints, &res))
		usage_error("ping: unknown host \"%s\"", name);
	memset(a, 0, sizeof(*a));
	memcpy(a, res->ai_addr, res->ai_addrlen < sizeof(*a) ?
	       res->ai_addrlen : sizeof(*a));
	freeaddrinfo(res);
	a->sin.sin_port = 0;
}

/* The address of @a as text, with its scope if it has one. */
static const char *sa_text(const union ping_sa *a, char *buf, size_t size)
{
	char host[NI_MAXHOST];

	if (getnameinfo(&a->sa, sa_len(a), host, sizeof(host), NULL, 0,
			NI_NUMERICHOST))
		snprintf(host, sizeof(host), "?");
	snprintf(buf, size, "%s", host);
	return buf;
}

/* argv[0] is the first word after "ping". */
static void ping_parse(int argc, char **argv, struct ping_opts *po)
{
	unsigned long n;
	char *end;
	int c;

	memset(po, 0, sizeof(*po));
	po->interval = 1;
	po->timeout = 1;

	/* argv[-1] is "ping" itself, where getopt() expects a name. */
	optind = 0;
	opterr = 0;
	while ((c = getopt(argc + 1, argv - 1, ":c:i:I:W:")) != -1) {
		switch (c) {
		case 'c':
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !n ||
			    *optarg == '-')
				usage_error("ping: -c: invalid count \"%s\"",
					    optarg);
			po->count = n;
			break;
		case 'i':
			po->interval = parse_seconds(c, optarg, true);
			break;
		case 'W':
			po->timeout = parse_seconds(c, optarg, false);
			break;
		case 'I':
			if (!parse_addr(optarg, &po->laddr))
				usage_error("ping: -I: invalid address \"%s\"",
					    optarg);
			break;
		case ':':
			usage_error("ping: -%c needs a value", optopt);
		default:
			usage_error("ping: invalid option -- '%c'", optopt);
		}
	}
	if (optind > argc)
		usage_error("ping: no address given");
	if (optind < argc)
		usage_error("ping: unexpected argument \"%s\"",
			    argv[optind]);
	po->target = argv[optind - 1];
	resolve(po->target, &po->addr);
	if (po->laddr.sa.sa_family &&
	    po->laddr.sa.sa_family != po->addr.sa.sa_family)
		usage_error("ping: -I: not of the family of %s", po->target);
}

/* The source address of the route to dst. */
static int route_source(const union ping_sa *dst, union ping_sa *src)
{
	union ping_sa to = *dst;
	socklen_t len = sizeof(*src);
	int fd, ret = -1, err;

	to.sin.sin_port = htons(9);
	fd = socket(dst->sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (!connect(fd, &to.sa, sa_len(&to)) &&
	    !getsockname(fd, &src->sa, &len)) {
		src->sin.sin_port = 0;
		ret = 0;
	}
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

static double elapsed(const struct timespec *from)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - from->tv_sec) +
	       (now.tv_nsec - from->tv_nsec) / 1e9;
}

static struct timespec to_timespec(double s)
{
	struct timespec ts;

	ts.tv_sec = s;
	ts.tv_nsec = (s - ts.tv_sec) * 1e9;
	return ts;
}

/*
 * Wait for the reply to the probe sent at t0, ignoring other messages.
 * Returns 1 (and the round trip in ms) on a reply, 0 on timeout or
 * signal, -1 on an error in errno.  Signals are blocked but while in
 * ppoll(), with mask.
 */
static bool from_peer(const union ping_sa *from, const union ping_sa *dst)
{
	if (from->sa.sa_family != dst->sa.sa_family)
		return false;
	if (from->sa.sa_family == AF_INET6)
		return !memcmp(&from->sin6.sin6_addr, &dst->sin6.sin6_addr,
			       sizeof(dst->sin6.sin6_addr)) &&
		       !from->sin6.sin6_port;
	return from->sin.sin_addr.s_addr == dst->sin.sin_addr.s_addr &&
	       !from->sin.sin_port;
}

static int wait_reply(int fd, const union ping_sa *dst,
		      const struct timespec *t0, double timeout,
		      const sigset_t *mask, double *rtt)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	union ping_sa from;
	struct timespec left;
	socklen_t len;
	char buf[64];
	double t;

	for (;;) {
		t = elapsed(t0);
		if (t >= timeout || stop)
			return 0;
		left = to_timespec(timeout - t);
		if (ppoll(&pfd, 1, &left, mask) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!pfd.revents)
			continue;
		len = sizeof(from);
		memset(&from, 0, sizeof(from));
		if (recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, &from.sa,
			     &len) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -1;
		}
		if (from_peer(&from, dst)) {
			*rtt = elapsed(t0) * 1e3;
			return 1;
		}
	}
}

/*
 * One probe: drop what a late reply to an earlier probe left, send, wait.
 * Returns as wait_reply() does; -1 also when the send fails.
 */
static int probe(int fd, const union ping_sa *dst,
		 const struct timespec *t0, double timeout,
		 const sigset_t *mask, double *rtt)
{
	char buf[64];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		;
	if (sendto(fd, "", 0, 0, &dst->sa, sa_len(dst)) < 0)
		return -1;
	return wait_reply(fd, dst, t0, timeout, mask, rtt);
}

/* Sleep until t0 + interval, or a signal. */
static void wait_until(const struct timespec *t0, double interval,
		       const sigset_t *mask)
{
	struct timespec left;
	double t;

	while (!stop && (t = elapsed(t0)) < interval) {
		left = to_timespec(interval - t);
		ppoll(NULL, 0, &left, mask);
	}
}

static void summary(const char *peer, const char *local, unsigned long sent,
		    const double *rtts, unsigned long received)
{
	double min = 0, max = 0, sum = 0;
	unsigned long i;

	if (pr_is_json()) {
		pr_obj_start(NULL);
		pr_str("peer", peer);
		pr_str("laddr", local);
		pr_u64("sent", sent);
		pr_u64("received", received);
		pr_u64("lost", sent - received);
		pr_array_start("rtt_ms");
		for (i = 0; i < received; i++)
			pr_float(NULL, rtts[i]);
		pr_array_end();
		pr_obj_end();
		return;
	}

	printf("--- %s ping statistics ---\n", peer);
	printf("sent %lu, received %lu, lost %lu%%\n",
	       sent, received, sent ? (sent - received) * 100 / sent : 0);
	for (i = 0; i < received; i++) {
		if (!i || rtts[i] < min)
			min = rtts[i];
		if (!i || rtts[i] > max)
			max = rtts[i];
		sum += rtts[i];
	}
	if (received)
		printf("rtt min/avg/max = %.3f/%.3f/%.3f ms\n",
		       min, sum / received, max);
}

static int ping_run(const struct ping_opts *po, int family)
{
	char peer[NI_MAXHOST], local[NI_MAXHOST];
	union ping_sa dst = po->addr, src = po->laddr;
	unsigned long seq, sent = 0, received = 0, cap = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	socklen_t len = sizeof(src);
	sigset_t block, mask;
	struct timespec t0;
	double *rtts = NULL, rtt;
	int fd, ret;

	sa_text(&dst, peer, sizeof(peer));
	if (!src.sa.sa_family && route_source(&dst, &src) < 0) {
		fprintf(stderr, "rdsctl: ping %s: %s\n", peer,
			strerror(errno));
		return 1;
	}
	sa_text(&src, local, sizeof(local));

	fd = socket(family, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "rdsctl: ping: socket (family %d): %s\n",
			family, strerror(errno));
		return 1;
	}
	if (bind(fd, &src.sa, sa_len(&src)) < 0 ||
	    getsockname(fd, &src.sa, &len) < 0) {
		fprintf(stderr, "rdsctl: ping: bind %s: %s\n", local,
			strerror(errno));
		close(fd);
		return 1;
	}

	/* SIGINT and SIGTERM end the run, with its summary. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	pr_text("PING %s from %s port %u\n", peer, local,
		ntohs(src.sa.sa_family == AF_INET6 ? src.sin6.sin6_port :
						     src.sin.sin_port));
	fflush(stdout);
	for (seq = 1; !stop && (!po->count || seq <= po->count); seq++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = probe(fd, &dst, &t0, po->timeout, &mask, &rtt);
		if (ret > 0) {
			if (received == cap) {
				cap = cap ? 2 * cap : 16;
				rtts = realloc(rtts, cap * sizeof(*rtts));
				if (!rtts) {
					fputs("rdsctl: out of memory\n", stderr);
					exit(1);
				}
			}
			rtts[received++] = rtt;
			pr_text("%lu: reply from %s: time=%.3f ms\n", seq,
				peer, rtt);
			fflush(stdout);
		} else if (ret < 0) {
			fprintf(stderr, "rdsctl: ping %s: %s\n", peer,
				strerror(errno));
		} else if (!stop) {
			fprintf(stderr, "rdsctl: ping %s: no reply within %.1f s\n",
				peer, po->timeout);
		}
		/* A probe cut short by a signal is not counted. */
		if (ret || !stop)
			sent++;
		if (!po->count || seq < po->count)
			wait_until(&t0, po->interval, &mask);
	}

	summary(peer, local, sent, rtts, received);
	free(rtts);
	close(fd);
	return sent && received == sent ? 0 : 1;
}

static int info_family_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RDSCTL_TB_SIZE];
	uint64_t v;

	if (ours(msg) && obj_parse(&info_type, nlmsg_hdr(msg), tb) >= 0 &&
	    attr_uint(tb[RDS_DOCA_A_INFO_FAMILY], FT_U32, &v) && v <= INT_MAX)
		*(int *)arg = v;
	return NL_OK;
}

/* The module's address family: from its info, else from sysfs. */
static int module_family(void)
{
	int family = -1;

	request(NULL, NULL, genl_request(RDS_DOCA_CMD_INFO_GET, 0),
		info_family_cb, &family);
	if (family > 0)
		return family;
	return rds_doca_family();
}

int cmd_ping(int argc, char **argv)
{
	struct ping_opts po;

	ping_parse(argc, argv, &po);
	nl_open();
	return ping_run(&po, module_family());
}
