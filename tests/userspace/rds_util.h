/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the RDS socket selftests: option parsing, address
 * handling, message I/O with deadlines and payload patterns.
 */
#ifndef RDS_SELFTEST_UTIL_H
#define RDS_SELFTEST_UTIL_H

#include "tap.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <netinet/in.h>	/* before <linux/...>: glibc owns in6_addr */
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/rds_doca.h>

#include "rds_doca_user.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif

/* Internal to net/rds/rds.h; what SO_RDS_TRANSPORT reads on loopback. */
#define RDS_TRANS_LOOP 3

/* Wait this long for a message that must arrive. */
#define ARRIVE_MS 5000
/* Watch this long for a message that must not arrive. */
#define QUIET_MS 250

struct rds_cfg {
	int family;
	bool impl_doca;		/* false: the in-tree net/rds */
	struct in_addr addr;	/* local end */
	struct in_addr peer;	/* remote end (same host) */
	struct in6_addr addr6;	/* the IPv6 tests' local end (default ::1) */
	struct in6_addr peer6;	/* and their remote end (default: addr6) */
	int transport6;		/* the transport of addr6, -1: not checked */
	bool v6;		/* --ipv6: the helpers' sockets use addr6, peer6 */
	int transport;		/* SO_RDS_TRANSPORT expected once bound, -1: any */
	bool force_transport;	/* set it before every bind (--force-transport) */
	const char *filter;
	bool list;
};

/* The command line's configuration: defined in selftest.c. */
extern struct rds_cfg cfg;

static inline bool addr_is_loopback(struct in_addr a)
{
	return (ntohl(a.s_addr) >> 24) == IN_LOOPBACKNET;
}

/* Both ends of the helpers' sockets on the loopback transport. */
static inline bool cfg_loopback(void)
{
	if (cfg.v6)
		return IN6_IS_ADDR_LOOPBACK(&cfg.addr6) &&
		       IN6_IS_ADDR_LOOPBACK(&cfg.peer6);
	return addr_is_loopback(cfg.addr) && addr_is_loopback(cfg.peer);
}

/* The helpers' two ends are one address. */
static inline bool cfg_same_addr(void)
{
	if (cfg.v6)
		return !memcmp(&cfg.addr6, &cfg.peer6, sizeof(cfg.addr6));
	return cfg.addr.s_addr == cfg.peer.s_addr;
}

static inline int read_sysfs_int(const char *path, int *val)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d", val) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* SO_RDS_TRANSPORT number of a --transport name, -1 if unknown. */
static inline int transport_number(const char *name)
{
	if (!strcmp(name, "ib"))
		return RDS_TRANS_IB;
	if (!strcmp(name, "tcp"))
		return RDS_TRANS_TCP;
	if (!strcmp(name, "loop"))
		return RDS_TRANS_LOOP;
	return -1;
}


static inline void usage(const char *prog, const char *extra)
{
	fprintf(stderr,
		"usage: %s [--family N] [--impl doca|rds] [--addr A] [--peer B]\n"
		"          [--transport loop|ib|tcp [--force-transport]]\n"
		"          [--addr6 A6] [--peer6 B6] [--transport6 loop|ib|tcp]\n"
		"          [--ipv6] [--filter S[,S...]] [--list]%s\n"
		"  --family N   socket family under test (default: %s, else %d)\n"
		"  --impl       which implementation's documented behaviour to expect\n"
		"               (default: doca when rds_doca is loaded with family N,\n"
		"               rds for family %d otherwise)\n"
		"  --addr A     local address to bind (default 127.0.0.1)\n"
		"  --peer B     peer address on the same host (default: --addr)\n"
		"  --transport  transport the addresses are served by (default: loop\n"
		"               for 127.0.0.0/8, otherwise not checked)\n"
		"  --force-transport  select it with SO_RDS_TRANSPORT before every\n"
		"               bind of the helpers (over an RDMA device: TCP)\n"
		"  --addr6 A6, --peer6 B6, --transport6  the same for the IPv6\n"
		"               tests (default ::1, loop)\n"
		"  --ipv6       every test of either family runs over the IPv6\n"
		"               addresses; tests of IPv4 itself are left out\n"
		"  --filter     run the tests whose name contains one of the S\n",
		prog, extra ? extra : "", RDS_DOCA_FAMILY_PARAM, AF_INET_OFFLOAD,
		AF_RDS);
}

/*
 * Parses the options common to all RDS selftests.  @extra_opts and
 * @extra_handler allow a program to add its own (long options only).
 * Returns 0, or -1 after printing usage.
 */
static inline int parse_common(int argc, char **argv,
			       const struct option *extra_opts,
			       int (*extra_handler)(int opt, const char *arg),
			       const char *extra_usage)
{
	struct option opts[32];
	const char *impl = NULL;
	bool peer_set = false, peer6_set = false;
	int n = 0, c, param;

	opts[n++] = (struct option){ "family", required_argument, NULL, 'f' };
	opts[n++] = (struct option){ "impl", required_argument, NULL, 'i' };
	opts[n++] = (struct option){ "addr", required_argument, NULL, 'a' };
	opts[n++] = (struct option){ "peer", required_argument, NULL, 'p' };
	opts[n++] = (struct option){ "transport", required_argument, NULL,
				     't' };
	opts[n++] = (struct option){ "force-transport", no_argument, NULL,
				     'T' };
	opts[n++] = (struct option){ "addr6", required_argument, NULL, '6' };
	opts[n++] = (struct option){ "peer6", required_argument, NULL, '7' };
	opts[n++] = (struct option){ "transport6", required_argument, NULL,
				     '8' };
	opts[n++] = (struct option){ "ipv6", no_argument, NULL, '9' };
	opts[n++] = (struct option){ "filter", required_argument, NULL, 'F' };
	opts[n++] = (struct option){ "list", no_argument, NULL, 'l' };
	opts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	for (; extra_opts && extra_opts->name && n < 31; extra_opts++)
		opts[n++] = *extra_opts;
	opts[n] = (struct option){ NULL, 0, NULL, 0 };

	cfg.family = -1;
	cfg.transport = -1;
	cfg.transport6 = -1;
	inet_pton(AF_INET, "127.0.0.1", &cfg.addr);
	cfg.addr6 = in6addr_loopback;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			cfg.family = atoi(optarg);
			break;
		case 'i':
			impl = optarg;
			break;
		case 'a':
			if (inet_pton(AF_INET, optarg, &cfg.addr) != 1) {
				fprintf(stderr, "bad --addr %s\n", optarg);
				return -1;
			}
			break;
		case 'p':
			if (inet_pton(AF_INET, optarg, &cfg.peer) != 1) {
				fprintf(stderr, "bad --peer %s\n", optarg);
				return -1;
			}
			peer_set = true;
			break;
		case '6':
		case '7':
			if (inet_pton(AF_INET6, optarg,
				      c == '6' ? &cfg.addr6 : &cfg.peer6) != 1) {
				fprintf(stderr, "bad --%s %s\n",
					c == '6' ? "addr6" : "peer6", optarg);
				return -1;
			}
			peer6_set |= c == '7';
			break;
		case '8':
			cfg.transport6 = transport_number(optarg);
			if (cfg.transport6 < 0) {
				fprintf(stderr, "bad --transport6 %s\n", optarg);
				return -1;
			}
			break;
		case 't':
			cfg.transport = transport_number(optarg);
			if (cfg.transport < 0) {
				fprintf(stderr, "bad --transport %s\n", optarg);
				return -1;
			}
			break;
		case 'T':
			cfg.force_transport = true;
			break;
		case '9':
			cfg.v6 = true;
			break;
		case 'F':
			cfg.filter = optarg;
			break;
		case 'l':
			cfg.list = true;
			break;
		default:
			if (c >= 0x100 && extra_handler &&
			    !extra_handler(c, optarg))
				break;
			usage(argv[0], extra_usage);
			return -1;
		}
	}
	if (optind != argc) {
		usage(argv[0], extra_usage);
		return -1;
	}
	if (!peer_set)
		cfg.peer = cfg.addr;
	if (!peer6_set)
		cfg.peer6 = cfg.addr6;
	if (cfg.transport6 < 0 && IN6_IS_ADDR_LOOPBACK(&cfg.addr6) &&
	    IN6_IS_ADDR_LOOPBACK(&cfg.peer6))
		cfg.transport6 = RDS_TRANS_LOOP;
	if (cfg.v6) {
		if (cfg.transport >= 0 && cfg.transport6 >= 0 &&
		    cfg.transport != cfg.transport6) {
			fprintf(stderr, "--ipv6: --transport and --transport6 differ\n");
			return -1;
		}
		if (cfg.transport < 0)
			cfg.transport = cfg.transport6;
	}
	if (cfg.force_transport && cfg.transport < 0) {
		fprintf(stderr, "--force-transport needs --transport\n");
		return -1;
	}
	if (cfg.transport < 0 && cfg_loopback())
		cfg.transport = RDS_TRANS_LOOP;

	param = rds_doca_family_param();
	if (cfg.family < 0)
		cfg.family = param >= 0 ? param : AF_INET_OFFLOAD;

	if (!impl) {
		cfg.impl_doca = cfg.family != AF_RDS || param == cfg.family;
	} else if (!strcmp(impl, "doca")) {
		cfg.impl_doca = true;
	} else if (!strcmp(impl, "rds")) {
		cfg.impl_doca = false;
	} else {
		fprintf(stderr, "bad --impl %s (doca or rds)\n", impl);
		return -1;
	}
	return 0;
}

static inline void print_config(const char *prog)
{
	char a[INET6_ADDRSTRLEN], p[INET6_ADDRSTRLEN];

	if (cfg.v6) {
		inet_ntop(AF_INET6, &cfg.addr6, a, sizeof(a));
		inet_ntop(AF_INET6, &cfg.peer6, p, sizeof(p));
	} else {
		inet_ntop(AF_INET, &cfg.addr, a, sizeof(a));
		inet_ntop(AF_INET, &cfg.peer, p, sizeof(p));
	}
	tap_diag("%s: family %d, expecting %s behaviour, addr %s, peer %s, "
		 "transport %s", prog, cfg.family,
		 cfg.impl_doca ? "rds_doca" : "net/rds", a, p,
		 cfg.transport == RDS_TRANS_IB ? "ib" :
		 cfg.transport == RDS_TRANS_TCP ? "tcp" :
		 cfg.transport == RDS_TRANS_LOOP ? "loop" : "not checked");
}

static inline void sigusr1_handler(int sig)
{
	(void)sig;
}

/* SIGUSR1 interrupts system calls (no SA_RESTART). */
static inline void install_sigusr1(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigusr1_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

/*
 * The start of a selftest run: print the configuration, let SIGUSR1 wake
 * a thread blocked in a system call, ignore SIGPIPE, and check that the
 * family is registered.  Returns false if it is not.
 */
static inline bool selftest_start(const char *prog)
{
	int fd;

	print_config(prog);
	install_sigusr1();
	signal(SIGPIPE, SIG_IGN);
	fd = socket(cfg.family, SOCK_SEQPACKET, 0);
	if (!sys_ok(fd, "socket(%d, SOCK_SEQPACKET, 0): family registered",
		    cfg.family))
		return false;
	close(fd);
	return true;
}

/* ---- floods, run as an unprivileged user ---- */

/* The uid and gid a flood runs as. */
#define NOBODY		65534

/*
 * Run @fn(@res) in a child with uid and gid 65534 and no supplementary
 * groups; @res (of @len bytes, its first int set to the child's errno
 * of the privilege drop, 0 on success) comes back through a pipe.
 * Returns false after a failing check.
 */
static inline bool run_as_nobody(void (*fn)(void *res), void *res, size_t len)
{
	int pfd[2], status = 0;
	ssize_t r;
	pid_t pid;

	if (!sys_ok(pipe(pfd), "pipe"))
		return false;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* the child reports through the pipe only, never in TAP */
		int *err = res;

		close(pfd[0]);
		memset(res, 0, len);
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			*err = errno;
		else
			fn(res);
		if (write(pfd[1], res, len) != (ssize_t)len)
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	if (!sys_ok(pid, "fork")) {
		close(pfd[0]);
		return false;
	}
	r = read(pfd[0], res, len);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (!ok_diag(r == (ssize_t)len, "child reported",
		     "read %zd of %zu, child status 0x%x", r, len, status))
		return false;
	return is_eq(*(int *)res, 0,
		     "child runs as uid and gid %d, no groups", NOBODY);
}

/*
 * main()'s start in a program that floods rds_doca's own bounds: parse
 * the command line, and check that the module is rds_doca and that we
 * are root, to drop to NOBODY.  Says why not on stderr.
 */
static inline bool bounds_prog_start(int argc, char **argv)
{
	const char *prog = argv[0];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_common(argc, argv, NULL, NULL, NULL))
		return false;
	if (!cfg.impl_doca) {
		fprintf(stderr, "%s: --impl rds is not supported: these bounds are rds_doca's\n",
			prog);
		return false;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "%s: run as root: the floods drop to uid %d\n",
			prog, NOBODY);
		return false;
	}
	return true;
}

/* An IPv4 or IPv6 socket address. */
union rds_sa {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
};

static inline socklen_t sa_len(const union rds_sa *a)
{
	return a->sa.sa_family == AF_INET6 ? sizeof(a->sin6) : sizeof(a->sin);
}

/* ---- control messages for sendmsg() ---- */

/* A list of SOL_RDS control messages, built by cm_add(). */
struct cm {
	union {
		char buf[8192];
		struct cmsghdr align;
	} u;
	size_t len;
};

static inline void cm_init(struct cm *c)
{
	memset(c, 0, sizeof(*c));
}

/* Append a SOL_RDS control message of @type carrying @dlen bytes. */
static inline void cm_add(struct cm *c, int type, const void *data,
			  size_t dlen)
{
	struct cmsghdr *h = (struct cmsghdr *)(c->u.buf + c->len);

	memset(h, 0, CMSG_SPACE(dlen));
	h->cmsg_level = SOL_RDS;
	h->cmsg_type = type;
	h->cmsg_len = CMSG_LEN(dlen);
	memcpy(CMSG_DATA(h), data, dlen);
	c->len += CMSG_SPACE(dlen);
}

/* sendmsg() of @payload with the control messages @c (or none) to @to. */
static inline ssize_t cm_send(int fd, const union rds_sa *to,
			      const void *payload, size_t plen,
			      const struct cm *c, int flags)
{
	struct iovec iov = { (void *)payload, plen };
	struct msghdr m = {
		.msg_name = (void *)to,
		.msg_namelen = sa_len(to),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = c && c->len ? (void *)c->u.buf : NULL,
		.msg_controllen = c ? c->len : 0,
	};

	return sendmsg(fd, &m, flags);
}

/* The VmPin line of /proc/self/status in KiB, or -1. */
static inline long vm_pin_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* ---- time ---- */

static inline long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- addresses ---- */

static inline struct sockaddr_in sin_make(struct in_addr a, uint16_t port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr = a;
	sin.sin_port = htons(port);
	return sin;
}

static inline struct sockaddr_in sin_str(const char *a, uint16_t port)
{
	struct in_addr ia;

	inet_pton(AF_INET, a, &ia);
	return sin_make(ia, port);
}

/* The configured local (or @peer) end: IPv4, or IPv6 if @v6. */
static inline union rds_sa sa_cfg(bool v6, bool peer, uint16_t port)
{
	union rds_sa a;

	memset(&a, 0, sizeof(a));
	if (v6) {
		a.sin6.sin6_family = AF_INET6;
		a.sin6.sin6_addr = peer ? cfg.peer6 : cfg.addr6;
		a.sin6.sin6_port = htons(port);
	} else {
		a.sin.sin_family = AF_INET;
		a.sin.sin_addr = peer ? cfg.peer : cfg.addr;
		a.sin.sin_port = htons(port);
	}
	return a;
}

/* Are @a and @b the same socket address (family, address, port)? */
static inline bool sa_same(const union rds_sa *a, const union rds_sa *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET6)
		return a->sin6.sin6_port == b->sin6.sin6_port &&
		       !memcmp(&a->sin6.sin6_addr, &b->sin6.sin6_addr,
			       sizeof(a->sin6.sin6_addr));
	return a->sa.sa_family == AF_INET &&
	       a->sin.sin_port == b->sin.sin_port &&
	       a->sin.sin_addr.s_addr == b->sin.sin_addr.s_addr;
}

static inline const char *sa_fmt(const union rds_sa *a, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN];

	if (a->sa.sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &a->sin6.sin6_addr, h, sizeof(h));
		snprintf(buf, len, "[%s]:%u", h, ntohs(a->sin6.sin6_port));
	} else {
		inet_ntop(AF_INET, &a->sin.sin_addr, h, sizeof(h));
		snprintf(buf, len, "%s:%u", h, ntohs(a->sin.sin_port));
	}
	return buf;
}

/* ---- sockets ---- */

static inline int rds_socket(void)
{
	return socket(cfg.family, SOCK_SEQPACKET, 0);
}

/* The name @fd is bound to, of its family (AF_UNSPEC when unbound). */
static inline union rds_sa sock_addr(int fd)
{
	union rds_sa a;
	socklen_t len = sizeof(a);

	memset(&a, 0, sizeof(a));
	getsockname(fd, &a.sa, &len);
	return a;
}

/* The port of @a in host order, 0 if it is of neither family. */
static inline uint16_t sa_port(const union rds_sa *a)
{
	if (a->sa.sa_family == AF_INET6)
		return ntohs(a->sin6.sin6_port);
	if (a->sa.sa_family == AF_INET)
		return ntohs(a->sin.sin_port);
	return 0;
}

static inline void sa_set_port(union rds_sa *a, uint16_t port)
{
	if (a->sa.sa_family == AF_INET6)
		a->sin6.sin6_port = htons(port);
	else
		a->sin.sin_port = htons(port);
}

/* Local port of a bound socket in host order, 0 on error. */
static inline uint16_t bound_port(int fd)
{
	union rds_sa a = sock_addr(fd);

	return sa_port(&a);
}

/* The IPv4 socket address @sin, as a union. */
static inline union rds_sa sa_in(struct sockaddr_in sin)
{
	union rds_sa a;

	memset(&a, 0, sizeof(a));
	a.sin = sin;
	return a;
}

/* The IPv4 or IPv6 socket address @s (a ':' makes it IPv6):@port. */
static inline union rds_sa sa_str(const char *s, uint16_t port)
{
	union rds_sa a;

	memset(&a, 0, sizeof(a));
	if (strchr(s, ':')) {
		a.sin6.sin6_family = AF_INET6;
		inet_pton(AF_INET6, s, &a.sin6.sin6_addr);
		a.sin6.sin6_port = htons(port);
	} else {
		a.sin = sin_str(s, port);
	}
	return a;
}

/*
 * The helpers' local (or @peer) end of the family under test (--ipv6):
 * every test of either family addresses its sockets through this.
 */
static inline union rds_sa cfg_sa(bool peer, uint16_t port)
{
	return sa_cfg(cfg.v6, peer, port);
}

/* The family of the helpers' sockets. */
static inline int cfg_af(void)
{
	return cfg.v6 ? AF_INET6 : AF_INET;
}

/*
 * A socket bound to @a, IPv4 or IPv6 (port 0: any free port).  On
 * failure a failing check named after @what is recorded and -1 returned.
 */
static inline int bound_socket_sa(const union rds_sa *a, const char *what)
{
	int fd, err;
	char b[64];

	fd = rds_socket();
	if (fd < 0) {
		err = errno;
		tap_check(0, what, TAP_WHERE, "socket(%d): %s", cfg.family,
			  tap_errname(err));
		return -1;
	}
	if (cfg.force_transport &&
	    setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &cfg.transport,
		       sizeof(cfg.transport))) {
		err = errno;
		tap_check(0, what, TAP_WHERE, "SO_RDS_TRANSPORT %d: %s",
			  cfg.transport, tap_errname(err));
		close(fd);
		return -1;
	}
	if (bind(fd, &a->sa, sa_len(a))) {
		err = errno;
		tap_check(0, what, TAP_WHERE, "bind(%s): %s",
			  sa_fmt(a, b, sizeof(b)), tap_errname(err));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A socket bound to @a:@port, IPv4 (0: any free port).  On failure a
 * failing check named after @what is recorded and -1 returned.
 */
static inline int bound_socket_at(struct in_addr a, uint16_t port,
				  const char *what)
{
	union rds_sa sa = sa_in(sin_make(a, port));

	return bound_socket_sa(&sa, what);
}

/* A socket bound to the helpers' local (or @peer) end, at @port. */
static inline int bound_socket_cfg(bool peer, uint16_t port, const char *what)
{
	union rds_sa sa = cfg_sa(peer, port);

	return bound_socket_sa(&sa, what);
}

/* bind() @fd to @a, of its own length. */
static inline int bind_sa(int fd, const union rds_sa *a)
{
	return bind(fd, &a->sa, sa_len(a));
}

/* sendmsg() of @len bytes at @buf to @to (NULL: no name). */
static inline ssize_t send_to(int fd, const union rds_sa *to,
			      const void *buf, size_t len, int flags)
{
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = {
		.msg_name = (void *)to,
		.msg_namelen = to ? sa_len(to) : 0,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};

	return sendmsg(fd, &msg, flags);
}

/*
 * Wait up to @timeout_ms for readability, then recvmsg(MSG_DONTWAIT |
 * @flags).  Returns what recvmsg returned; -1 with errno ETIME if nothing
 * came in time.  @from, @msg_flags may be NULL.
 */
static inline ssize_t recv_wait(int fd, void *buf, size_t len,
				union rds_sa *from, int *msg_flags,
				int flags, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	struct iovec iov = { buf, len };
	struct msghdr msg;
	struct pollfd pfd;
	ssize_t ret;
	int left;

	for (;;) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_name = from;
		msg.msg_namelen = from ? sizeof(*from) : 0;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		ret = recvmsg(fd, &msg, flags | MSG_DONTWAIT);
		if (ret >= 0) {
			if (msg_flags)
				*msg_flags = msg.msg_flags;
			return ret;
		}
		if (errno != EAGAIN)
			return ret;
		left = (int)(deadline - now_ms());
		if (left <= 0) {
			errno = ETIME;
			return -1;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		poll(&pfd, 1, left > 100 ? 100 : left);
	}
}

/* true if nothing is received on @fd within @ms. */
static inline bool stays_quiet(int fd, int ms, ssize_t *got)
{
	static char junk[65536];
	ssize_t r = recv_wait(fd, junk, sizeof(junk), NULL, NULL, 0, ms);

	if (got)
		*got = r;
	return r < 0 && errno == ETIME;
}

/* ---- memory registration ---- */

/* RDS_GET_MR of [@addr, @addr + @len); the cookie goes to @cookie. */
static inline int get_mr(int fd, const void *addr, uint64_t len,
			 uint64_t flags, uint64_t *cookie)
{
	struct rds_get_mr_args g;

	memset(&g, 0, sizeof(g));
	g.vec.addr = (uintptr_t)addr;
	g.vec.bytes = len;
	g.cookie_addr = (uintptr_t)cookie;
	g.flags = flags;
	return setsockopt(fd, SOL_RDS, RDS_GET_MR, &g, sizeof(g));
}

static inline int free_mr(int fd, uint64_t cookie, uint64_t flags)
{
	struct rds_free_mr_args f = { .cookie = cookie, .flags = flags };

	return setsockopt(fd, SOL_RDS, RDS_FREE_MR, &f, sizeof(f));
}

/* ---- payload patterns ---- */

static inline uint32_t xs32(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

static inline void pattern_fill(void *buf, size_t len, uint32_t seed)
{
	unsigned char *p = buf;
	uint32_t s = seed * 2654435761u + 0x9e3779b9u;
	size_t i;

	if (!s)
		s = 1;
	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(xs32(&s) >> 11);
}

/* Index of the first wrong byte, or -1. */
static inline long pattern_check(const void *buf, size_t len, uint32_t seed)
{
	const unsigned char *p = buf;
	uint32_t s = seed * 2654435761u + 0x9e3779b9u;
	size_t i;

	if (!s)
		s = 1;
	for (i = 0; i < len; i++)
		if (p[i] != (unsigned char)(xs32(&s) >> 11))
			return (long)i;
	return -1;
}

/* A 32-bit hash of two values, for deterministic message layouts. */
static inline uint32_t mix32(uint32_t a, uint32_t b)
{
	uint32_t h = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u);

	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* FNV-1a over @len bytes. */
static inline uint32_t fnv1a(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t h = 2166136261u;

	while (len--) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

/* One test of a program: run_selftests() runs those its @pick accepts. */
struct selftest {
	const char *name;
	void (*fn)(void);
};

/*
 * The tests whose name contains --filter, or one of its comma-separated
 * parts, or all without one.
 */
static inline bool selftest_by_filter(const struct selftest *t)
{
	const char *f = cfg.filter, *end;
	size_t n = strlen(t->name), len, i;

	if (!f)
		return true;
	for (;; f = end + 1) {
		end = strchrnul(f, ',');
		len = end - f;
		for (i = 0; len && i + len <= n; i++)
			if (!strncmp(t->name + i, f, len))
				return true;
		if (!*end)
			return false;
	}
}

/*
 * A test named in the environment's SKIP_TESTS (names separated by commas
 * or spaces): a run that covers its paths elsewhere leaves it out.  Says
 * so, and counts it neither passed nor failed.
 */
static inline bool selftest_skipped(const char *name)
{
	const char *s = getenv("SKIP_TESTS"), *end;
	size_t n = strlen(name);

	for (; s && *s; s = *end ? end + 1 : end) {
		end = s + strcspn(s, ", ");
		if ((size_t)(end - s) == n && !strncmp(s, name, n)) {
			tap_diag("%s: not run here (SKIP_TESTS)", name);
			return true;
		}
	}
	return false;
}

/* Seconds since @t0, for the duration a slow test reports. */
static inline double selftest_elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * main()'s end in a suite of named tests: with --list print the names of
 * the tests @pick selects, else run each, its name prefixing its checks,
 * and say how long those that took a second or more took (a diagnostic,
 * never a check).  @tests is an array of structures with .name and .fn.
 * Evaluates to the exit status.
 */
#define run_selftests(prog, tests, pick) ({				\
	char __prefix[64];						\
	unsigned int __i;						\
	int __rc = 0;							\
									\
	if (cfg.list) {							\
		for (__i = 0; __i < sizeof(tests) / sizeof((tests)[0]); __i++) \
			if (pick(&(tests)[__i]))			\
				printf("%s\n", (tests)[__i].name);	\
	} else {							\
		if (selftest_start(prog)) {				\
			for (__i = 0;					\
			     __i < sizeof(tests) / sizeof((tests)[0]);	\
			     __i++) {					\
				struct timespec __t0;			\
				double __s;				\
									\
				if (!pick(&(tests)[__i]) ||		\
				    selftest_skipped((tests)[__i].name)) \
					continue;			\
				snprintf(__prefix, sizeof(__prefix),	\
					 "%s: ", (tests)[__i].name);	\
				tap_set_prefix(__prefix);		\
				clock_gettime(CLOCK_MONOTONIC, &__t0);	\
				(tests)[__i].fn();			\
				__s = selftest_elapsed(&__t0);		\
				if (__s >= 1)				\
					tap_diag("%s took %.1f s",	\
						 (tests)[__i].name, __s); \
			}						\
			tap_set_prefix(NULL);				\
		}							\
		__rc = tap_finish();					\
	}								\
	__rc;								\
})

/*
 * Fetch an RDS_INFO_* snapshot the way rds-info does: probe with a zero
 * length (ENOSPC and the length needed, or an empty snapshot), then ask
 * with that much room.  Returns the entry size getsockopt() returned, or
 * -errno; *buf (to free) and *len describe the snapshot.
 */
static inline int info_get(int fd, int opt, void **buf, socklen_t *len)
{
	socklen_t l = 0;
	int r, tries;

	*buf = NULL;
	*len = 0;
	r = getsockopt(fd, SOL_RDS, opt, NULL, &l);
	if (r >= 0)
		return r;	/* nothing to show */
	if (errno != ENOSPC)
		return -errno;
	for (tries = 0; tries < 5; tries++) {
		socklen_t room = l + 4096;	/* it may grow meanwhile */

		*buf = calloc(1, room);
		if (!*buf)
			return -ENOMEM;
		l = room;
		r = getsockopt(fd, SOL_RDS, opt, *buf, &l);
		if (r >= 0) {
			*len = l;
			return r;
		}
		free(*buf);
		*buf = NULL;
		if (errno != ENOSPC)
			return -errno;
	}
	return -ENOSPC;
}

/* Counter @name of @fd's namespace, or false. */
static inline bool counter_read(int fd, const char *name, uint64_t *val)
{
	struct rds_info_counter *c;
	socklen_t len;
	size_t i;
	void *buf;
	bool found = false;
	int r = info_get(fd, RDS_INFO_COUNTERS, &buf, &len);

	if (r != (int)sizeof(*c)) {
		free(buf);
		return false;
	}
	c = buf;
	for (i = 0; i < len / sizeof(*c); i++) {
		if (!strncmp((const char *)c[i].name, name,
			     sizeof(c[i].name))) {
			*val = c[i].value;
			found = true;
			break;
		}
	}
	free(buf);
	return found;
}

/*
 * Must this kernel let a family take its SOL_SOCKET options, as rds_doca
 * does for SO_ZEROCOPY?  6.12 does, 6.1 does not; between them either is
 * accepted.
 */
static inline bool kernel_custom_sockopt(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return true;
	return major > 6 || (major == 6 && minor >= 12);
}

#endif /* RDS_SELFTEST_UTIL_H */
