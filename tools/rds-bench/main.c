// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rds-bench: command line.
 */
#include "bench.h"

struct shared *shm;
volatile sig_atomic_t interrupted;
int go_pipe[2] = { -1, -1 };
int report_pipe[2] = { -1, -1 };
uint8_t *pattern;	/* reference payload, cfg.size bytes (reqresp: and
			 * cfg.ack_size) */

struct config cfg = {
	.mode = M_NONE,
	.family = -1,
	.size = 64,
	.window = 16,
	.rdma_size = 64u << 10,
	.ack_size = 64,
	.duration = 2.0,
	.warmup = 0.5,
	.timeout = 10.0,
	.threads = 1,
	.sockets = 1,
	.label = "",
	.transport = -1,
	.busy_poll = -1,
	.sndbuf = 16u << 20,
	.rcvbuf = 16u << 20,
	.max_inflight_msgs = 65536,
	.retry_us = 1000,
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [OPTIONS] MODE\n"
"\n"
"Benchmark RDS-style reliable datagram sockets (Linux RDS or rds_doca).\n"
"\n"
"Modes:\n"
"  stream     --threads senders -> one receiver; msgs/s and MB/s counted by\n"
"             the receiver, plus the senders' ENOBUFS/EAGAIN retries\n"
"  pingpong   client(s) -> echo server; round trips/s, RTT p50/p99/p999\n"
"  probe      socket(), bind() and one message to itself; exit 0 if it works\n"
"  rdma-write, rdma-read\n"
"             --threads initiators keep --window RDMA writes (reads) of\n"
"             --size bytes (default 64k) outstanding on a region the target\n"
"             registered with RDS_GET_MR; operations/s and MB/s, counted\n"
"             from the RDS_CMSG_RDMA_STATUS notices\n"
"  atomic     the same with fetch-and-adds of 1 on an 8-byte word;\n"
"             operations/s\n"
"  reqresp    --threads clients keep --window requests (default 4) of --size\n"
"             bytes (default 4k) outstanding on one server, each mapping a\n"
"             --rdma-size buffer (RDS_CMSG_RDMA_MAP); the server answers each\n"
"             with an --ack-size response whose RDMA writes (--rr-op read:\n"
"             reads) the buffer, as rds-stress does; transactions/s, MB/s\n"
"             of RDMA, RTT p50/p99/p999\n"
"\n"
"Options:\n"
"  -f, --family N      address family (default: " RDS_DOCA_FAMILY_PARAM "\n"
"                      if readable, else %d = AF_INET_OFFLOAD; 21 = AF_RDS)\n"
"  -a, --addr A        local IPv4 address of both ends (default 127.0.0.1)\n"
"      --saddr A, --local A\n"
"                      address the sending/client end binds\n"
"      --daddr A, --peer A\n"
"                      address the receiving/server end binds, which the\n"
"                      sending/client end sends to\n"
"  -s, --size BYTES    message size, 1..1m, up to 64m for stream, pingpong\n"
"                      and probe (rds_doca: RDS_DOCA_MSG_MAX is raised;\n"
"                      give --sndbuf of the size, --rcvbuf of twice it)\n"
"                      suffixes k (1024), m (1048576)\n"
"                      (default 64; rdma-write and rdma-read: the size of\n"
"                      each operation, default 64k; atomic: always 8;\n"
"                      reqresp: the request's, 16..1m, default 4k)\n"
"  -W, --window N      RDMA modes: operations each initiator keeps\n"
"                      outstanding, 1..%d (default 16); reqresp: requests\n"
"                      each client keeps outstanding (default 4)\n"
"  -d, --duration T    measured time, seconds (or 500ms) (default 2)\n"
"  -n, --count N       measure N messages (stream), round trips (pingpong),\n"
"                      operations per initiator or transactions per client\n"
"                      (reqresp) instead of a duration\n"
"  -w, --warmup T      unmeasured time after the first message (default 0.5)\n"
"  -t, --threads N     senders (stream), clients (pingpong, reqresp) or\n"
"                      initiators, each with its own socket, 1..%d\n"
"                      (default 1)\n"
"      --sockets N     stream, pingpong: sockets of every sender / client,\n"
"                      1..%d (default 1); a sender sends on them in turn,\n"
"                      one message each; a client keeps a ping outstanding\n"
"                      on each\n"
"  -j, --json FILE     append one JSON object per result to FILE\n"
"  -l, --label TEXT    free text stored with the result\n"
"  -T, --transport N   setsockopt(SO_RDS_TRANSPORT, N) before bind\n"
"                      (Linux RDS: 0 IB, 2 TCP)\n"
"      --sndbuf BYTES  SO_SNDBUF for every socket (default 16m)\n"
"      --rcvbuf BYTES  SO_RCVBUF for every socket (default 16m)\n"
"      --busy-poll US  SO_BUSY_POLL for every socket: a blocking receive\n"
"                      spins that many microseconds before it sleeps\n"
"                      (0..1000000; default: leave it, net.core.busy_read)\n"
"      --timeout T     give up when the first message, an echo or further\n"
"                      traffic has not come for T seconds (default 10)\n"
"      --retry-us N    longest wait before retrying a send that failed with\n"
"                      ENOBUFS (default 1000)\n"
"      --max-inflight BYTES\n"
"                      stream: senders pause while more than this has been\n"
"                      sent but not yet received (default 2 x --rcvbuf;\n"
"                      0 = no limit).  Linux RDS applies no receive-side\n"
"                      congestion on loopback-bound sockets, so without it\n"
"                      a fast sender queues without bound in the receiver\n"
"      --max-inflight-msgs N\n"
"                      the same in messages (default 65536; 0 = no limit)\n"
"      --blocking      blocking sends (wait in the kernel for congestion to\n"
"                      clear) instead of MSG_DONTWAIT + poll + retry\n"
"      --netns-active NAME, --netns-passive NAME\n"
"                      run the sending/client (receiving/server) end in the\n"
"                      network namespace NAME (/run/netns/NAME, as made by\n"
"                      ip netns add): two hosts on one machine\n"
"      --inproc        run both ends as threads of one process instead of\n"
"                      two processes\n"
"      --verify        also compare every payload byte (costs CPU)\n"
"      --zerocopy      stream: SO_ZEROCOPY and MSG_ZEROCOPY sends; each sender\n"
"                      sends from a pool of buffers, taking one back when\n"
"                      its RDS_CMSG_ZCOPY_COMPLETION comes\n"
"      --silent        RDMA modes: RDS_RDMA_SILENT operations on empty\n"
"                      messages; nothing is delivered to the target, which\n"
"                      checks only its memory at the end\n"
"      --rdma-size BYTES\n"
"                      reqresp: bytes each response RDMA moves, 1..1m\n"
"                      (default 64k)\n"
"      --ack-size BYTES\n"
"                      reqresp: the response's size, 16..1m (default 64)\n"
"      --rr-op OP      reqresp: write (default) or read: the server writes\n"
"                      into the client's buffer, or reads it\n"
"      --notify        reqresp: RDS_RDMA_NOTIFY_ME on the server's RDMA; it\n"
"                      reaps the notices and counts failed operations\n"
"                      (implied by --verify, which then also checks the\n"
"                      bytes every RDMA moved)\n"
"  -h, --help          show this help\n"
"\n"
"Exit status: 0 ok, 1 run failed, 2 bad usage, 3 finished but bad messages\n"
"were seen (lost, damaged or out of sequence) or RDMA moved wrong data,\n"
"4 RDMA mode unsupported: the family or its transport has no RDMA (a result\n"
"line says so).\n",
		AF_INET_OFFLOAD, MAX_WINDOW, MAX_THREADS, MAX_SOCKETS);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	exit(2);
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

/* 64, 4k, 64K, 1m, 1M (binary units). */
static bool parse_bytes(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v, mul = 1;

	if (!s || !*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	if (*end) {
		switch (*end) {
		case 'k': case 'K':
			mul = 1ull << 10;
			break;
		case 'm': case 'M':
			mul = 1ull << 20;
			break;
		case 'g': case 'G':
			mul = 1ull << 30;
			break;
		default:
			return false;
		}
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			return false;
	}
	if (v > (1ull << 40))
		return false;
	*out = v * mul;
	return true;
}

/* Seconds: 2, 1.5, 500ms, 2s. */
static bool parse_secs(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return false;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (*end && strcmp(end, "s"))
		return false;
	if (!(v >= 0 && v <= 86400))
		return false;
	*out = v;
	return true;
}

static void parse_addr(const char *opt, const char *s, struct in_addr *a,
		       char *txt)
{
	if (inet_pton(AF_INET, s, a) != 1)
		usage_error("invalid %s '%s': expected an IPv4 address such as "
			    "127.0.0.1", opt, s);
	inet_ntop(AF_INET, a, txt, INET_ADDRSTRLEN);
}

static void default_family(void)
{
	int fam = rds_doca_family_param();

	if (fam > 0) {
		cfg.family = fam;
		snprintf(cfg.family_src, sizeof(cfg.family_src),
			 "from " RDS_DOCA_FAMILY_PARAM);
	} else {
		cfg.family = AF_INET_OFFLOAD;
		snprintf(cfg.family_src, sizeof(cfg.family_src),
			 "default AF_INET_OFFLOAD");
	}
}

enum {
	O_SADDR = 256, O_DADDR, O_SNDBUF, O_RCVBUF, O_BUSY_POLL, O_TIMEOUT, O_RETRY,
	O_BLOCKING, O_INPROC, O_NETNS_A, O_NETNS_P, O_VERIFY, O_SILENT, O_INFLIGHT, O_INFLIGHT_MSGS,
	O_RDMA_SIZE, O_ACK_SIZE, O_RR_OP, O_NOTIFY, O_SOCKETS, O_ZEROCOPY,
};

static const struct {
	const char *name;
	enum mode mode;
} modes[] = {
	{ "stream", M_STREAM },
	{ "pingpong", M_PINGPONG },
	{ "probe", M_PROBE },
	{ "rdma-write", M_RDMA_WRITE },
	{ "rdma-read", M_RDMA_READ },
	{ "atomic", M_ATOMIC },
	{ "reqresp", M_REQRESP },
};
#define MODE_LIST	"stream, pingpong, probe, rdma-write, rdma-read, atomic " \
			"or reqresp"

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family",	required_argument, NULL, 'f' },
		{ "addr",	required_argument, NULL, 'a' },
		{ "saddr",	required_argument, NULL, O_SADDR },
		{ "daddr",	required_argument, NULL, O_DADDR },
		{ "local",	required_argument, NULL, O_SADDR },
		{ "peer",	required_argument, NULL, O_DADDR },
		{ "size",	required_argument, NULL, 's' },
		{ "duration",	required_argument, NULL, 'd' },
		{ "count",	required_argument, NULL, 'n' },
		{ "warmup",	required_argument, NULL, 'w' },
		{ "threads",	required_argument, NULL, 't' },
		{ "sockets",	required_argument, NULL, O_SOCKETS },
		{ "window",	required_argument, NULL, 'W' },
		{ "json",	required_argument, NULL, 'j' },
		{ "label",	required_argument, NULL, 'l' },
		{ "transport",	required_argument, NULL, 'T' },
		{ "sndbuf",	required_argument, NULL, O_SNDBUF },
		{ "rcvbuf",	required_argument, NULL, O_RCVBUF },
		{ "busy-poll",	required_argument, NULL, O_BUSY_POLL },
		{ "timeout",	required_argument, NULL, O_TIMEOUT },
		{ "retry-us",	required_argument, NULL, O_RETRY },
		{ "max-inflight", required_argument, NULL, O_INFLIGHT },
		{ "max-inflight-msgs", required_argument, NULL, O_INFLIGHT_MSGS },
		{ "blocking",	no_argument,	   NULL, O_BLOCKING },
		{ "inproc",	no_argument,	   NULL, O_INPROC },
		{ "netns-active", required_argument, NULL, O_NETNS_A },
		{ "netns-passive", required_argument, NULL, O_NETNS_P },
		{ "zerocopy",	no_argument,	   NULL, O_ZEROCOPY },
		{ "verify",	no_argument,	   NULL, O_VERIFY },
		{ "silent",	no_argument,	   NULL, O_SILENT },
		{ "rdma-size",	required_argument, NULL, O_RDMA_SIZE },
		{ "ack-size",	required_argument, NULL, O_ACK_SIZE },
		{ "rr-op",	required_argument, NULL, O_RR_OP },
		{ "notify",	no_argument,	   NULL, O_NOTIFY },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool saddr_set = false, daddr_set = false, addr_set = false;
	struct in_addr addr;
	char addr_s[INET_ADDRSTRLEN];
	uint64_t v;
	int c;

	opterr = 0;
	inet_pton(AF_INET, "127.0.0.1", &addr);
	while ((c = getopt_long(argc, argv, ":f:a:s:d:n:w:t:W:j:l:T:h", opts,
				NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!parse_u64(optarg, &v) || v < 1 || v > 255)
				usage_error("invalid --family '%s': expected a number "
					    "1..255 (21 = AF_RDS, 25 = AF_INET_OFFLOAD)",
					    optarg);
			cfg.family = (int)v;
			snprintf(cfg.family_src, sizeof(cfg.family_src),
				 "--family %d", cfg.family);
			break;
		case 'a':
			parse_addr("--addr", optarg, &addr, addr_s);
			addr_set = true;
			break;
		case O_SADDR:
			parse_addr("--saddr", optarg, &cfg.saddr, cfg.saddr_s);
			saddr_set = true;
			break;
		case O_DADDR:
			parse_addr("--daddr", optarg, &cfg.daddr, cfg.daddr_s);
			daddr_set = true;
			break;
		case 's':
			if (!parse_bytes(optarg, &v) || v < 1 ||
			    v > MAX_MSG_LARGE)
				usage_error("invalid --size '%s': expected 1..%u bytes, "
					    "optionally with a k or m suffix (64, 4k, "
					    "64k, 1m, 64m)", optarg, MAX_MSG_LARGE);
			cfg.size = (uint32_t)v;
			cfg.size_set = true;
			break;
		case 'd':
			if (!parse_secs(optarg, &cfg.duration) || cfg.duration <= 0)
				usage_error("invalid --duration '%s': expected seconds "
					    "> 0 (e.g. 2, 1.5, 500ms)", optarg);
			break;
		case 'n':
			if (!parse_u64(optarg, &cfg.count) || cfg.count < 1)
				usage_error("invalid --count '%s': expected a positive "
					    "integer", optarg);
			break;
		case 'w':
			if (!parse_secs(optarg, &cfg.warmup))
				usage_error("invalid --warmup '%s': expected seconds "
					    ">= 0 (e.g. 0.5, 200ms)", optarg);
			break;
		case 't':
			if (!parse_u64(optarg, &v) || v < 1 || v > MAX_THREADS)
				usage_error("invalid --threads '%s': expected 1..%d",
					    optarg, MAX_THREADS);
			cfg.threads = (int)v;
			break;
		case O_SOCKETS:
			if (!parse_u64(optarg, &v) || v < 1 || v > MAX_SOCKETS)
				usage_error("invalid --sockets '%s': expected 1..%d",
					    optarg, MAX_SOCKETS);
			cfg.sockets = (int)v;
			break;
		case 'W':
			if (!parse_u64(optarg, &v) || v < 1 || v > MAX_WINDOW)
				usage_error("invalid --window '%s': expected 1..%d "
					    "operations", optarg, MAX_WINDOW);
			cfg.window = (unsigned)v;
			cfg.window_set = true;
			break;
		case 'j':
			if (!*optarg)
				usage_error("--json needs a file name");
			cfg.json = optarg;
			break;
		case 'l':
			cfg.label = optarg;
			break;
		case 'T':
			if (!parse_u64(optarg, &v) || v > 255)
				usage_error("invalid --transport '%s': expected a "
					    "transport number (Linux RDS: 0 IB, 2 TCP)",
					    optarg);
			cfg.transport = (int)v;
			break;
		case O_SNDBUF:
		case O_RCVBUF:
			if (!parse_bytes(optarg, &v) || v < 1024 || v > (1ull << 30))
				usage_error("invalid --%s '%s': expected 1k..1g bytes",
					    c == O_SNDBUF ? "sndbuf" : "rcvbuf", optarg);
			if (c == O_SNDBUF)
				cfg.sndbuf = v;
			else
				cfg.rcvbuf = v;
			break;
		case O_BUSY_POLL:
			if (!parse_u64(optarg, &v) || v > 1000000)
				usage_error("invalid --busy-poll '%s': expected "
					    "0..1000000 microseconds", optarg);
			cfg.busy_poll = (int)v;
			break;
		case O_TIMEOUT:
			if (!parse_secs(optarg, &cfg.timeout) || cfg.timeout < 0.01)
				usage_error("invalid --timeout '%s': expected seconds "
					    ">= 0.01", optarg);
			break;
		case O_RETRY:
			if (!parse_u64(optarg, &v) || v < 1 || v > 1000000)
				usage_error("invalid --retry-us '%s': expected "
					    "1..1000000", optarg);
			cfg.retry_us = (unsigned)v;
			break;
		case O_INFLIGHT:
			if (!parse_bytes(optarg, &v) || v > (1ull << 40))
				usage_error("invalid --max-inflight '%s': expected bytes "
					    "(0 = no limit), e.g. 32m", optarg);
			cfg.max_inflight = v;
			cfg.inflight_set = true;
			break;
		case O_INFLIGHT_MSGS:
			if (!parse_u64(optarg, &cfg.max_inflight_msgs))
				usage_error("invalid --max-inflight-msgs '%s': expected "
					    "a count (0 = no limit)", optarg);
			break;
		case O_BLOCKING:
			cfg.blocking = true;
			break;
		case O_NETNS_A:
			cfg.netns_active = optarg;
			break;
		case O_NETNS_P:
			cfg.netns_passive = optarg;
			break;
		case O_INPROC:
			cfg.inproc = true;
			break;
		case O_VERIFY:
			cfg.verify = true;
			break;
		case O_ZEROCOPY:
			cfg.zerocopy = true;
			break;
		case O_SILENT:
			cfg.silent = true;
			break;
		case O_RDMA_SIZE:
			if (!parse_bytes(optarg, &v) || v < 1 ||
			    v > RDS_DOCA_MAX_RDMA_SIZE)
				usage_error("invalid --rdma-size '%s': expected 1..%u "
					    "bytes, optionally with a k or m suffix (4k, "
					    "64k, 1m)", optarg, RDS_DOCA_MAX_RDMA_SIZE);
			cfg.rdma_size = (uint32_t)v;
			break;
		case O_ACK_SIZE:
			/* the response echoes the request's header */
			if (!parse_bytes(optarg, &v) || v < sizeof(struct rr_hdr) ||
			    v > MAX_MSG)
				usage_error("invalid --ack-size '%s': expected %zu..%u "
					    "bytes (the response carries a %zu-byte "
					    "header)", optarg, sizeof(struct rr_hdr),
					    MAX_MSG, sizeof(struct rr_hdr));
			cfg.ack_size = (uint32_t)v;
			break;
		case O_RR_OP:
			if (!strcmp(optarg, "read"))
				cfg.rr_read = true;
			else if (!strcmp(optarg, "write"))
				cfg.rr_read = false;
			else
				usage_error("invalid --rr-op '%s': expected read or "
					    "write", optarg);
			break;
		case O_NOTIFY:
			cfg.notify = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage_error("no mode given: expected " MODE_LIST);
	if (optind + 1 < argc)
		usage_error("unexpected argument '%s' (only one mode)", argv[optind + 1]);
	for (c = 0; c < (int)(sizeof(modes) / sizeof(modes[0])); c++)
		if (!strcmp(argv[optind], modes[c].name))
			cfg.mode = modes[c].mode;
	if (cfg.mode == M_NONE)
		usage_error("unknown mode '%s': expected " MODE_LIST, argv[optind]);
	/* the other modes tell their peers apart by one socket each */
	if (cfg.sockets > 1 && cfg.mode != M_STREAM && cfg.mode != M_PINGPONG)
		usage_error("--sockets %d: only stream and pingpong run more than "
			    "one socket per thread, %s runs one", cfg.sockets,
			    argv[optind]);
	if (cfg.size > MAX_MSG && cfg.mode != M_STREAM &&
	    cfg.mode != M_PINGPONG && cfg.mode != M_PROBE)
		usage_error("--size %u: only stream, pingpong and probe send "
			    "messages over 1m (%u), %s sends at most 1m",
			    cfg.size, MAX_MSG, argv[optind]);
	if (cfg.inproc && (cfg.netns_active || cfg.netns_passive))
		usage_error("--netns-active/--netns-passive: each end needs its own "
			    "process; drop --inproc");
	if (cfg.zerocopy && cfg.mode != M_STREAM)
		usage_error("--zerocopy: only stream sends from its own pages, "
			    "%s copies", argv[optind]);
	if (cfg.mode == M_ATOMIC) {
		if (cfg.size_set && cfg.size != sizeof(uint64_t))
			usage_error("atomic works on 8-byte words: --size %u is not 8",
				    cfg.size);
		cfg.size = sizeof(uint64_t);
	} else if (rdma_mode() && !cfg.size_set) {
		cfg.size = 64u << 10;
	} else if (cfg.mode == M_REQRESP) {
		/* rds-stress -q 4096 -d 4 */
		if (!cfg.size_set)
			cfg.size = 4u << 10;
		if (cfg.size < sizeof(struct rr_hdr))
			usage_error("reqresp: --size %u cannot hold the %zu-byte "
				    "request header", cfg.size,
				    sizeof(struct rr_hdr));
		if (!cfg.window_set)
			cfg.window = 4;
	}

	if (!saddr_set) {
		cfg.saddr = addr;
		inet_ntop(AF_INET, &addr, cfg.saddr_s, sizeof(cfg.saddr_s));
	}
	if (!daddr_set) {
		cfg.daddr = addr;
		inet_ntop(AF_INET, &addr, cfg.daddr_s, sizeof(cfg.daddr_s));
	}
	(void)addr_set;
	if (cfg.family < 0)
		default_family();
	if (!cfg.inflight_set)
		cfg.max_inflight = 2 * cfg.rcvbuf;
	if (!rdma_mode() && cfg.sndbuf < cfg.size)
		usage_error("--sndbuf %" PRIu64 " is smaller than one %u-byte message",
			    cfg.sndbuf, cfg.size);
	if (cfg.mode == M_REQRESP && cfg.sndbuf < cfg.ack_size)
		usage_error("--sndbuf %" PRIu64 " is smaller than one %u-byte "
			    "response", cfg.sndbuf, cfg.ack_size);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	uint32_t i, plen;
	int rc;

	parse_args(argc, argv);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART: interrupts sends */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_int;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		fprintf(stderr, PROG ": mmap: %s\n", strerror(errno));
		return 1;
	}
	memset(shm, 0, sizeof(*shm));
	/* reqresp's responses take their payload from it too */
	plen = cfg.mode == M_REQRESP && cfg.ack_size > cfg.size ?
	       cfg.ack_size : cfg.size;
	pattern = xmalloc(plen);
	for (i = 0; i < plen; i++)
		pattern[i] = (uint8_t)(i * 131u + 7u);

	if (cfg.mode == M_PROBE)
		rc = run_probe();
	else
		rc = run_bench();
	return rc;
}
