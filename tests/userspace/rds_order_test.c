// SPDX-License-Identifier: GPL-2.0
/*
 * RDS ordering and exactly-once delivery under concurrency.
 *
 * Several sender sockets, each driven by one or more threads, send
 * sequenced messages of varying size to one or more receiver sockets,
 * each drained by its own thread.  Every (sender thread, receiver) pair
 * is a stream with its own sequence numbers; RDS delivers the messages
 * of one socket to one destination in the order they were sent, so
 * each receiver must see every stream's messages exactly once and in
 * order.  Each payload carries its stream, sequence number, length and
 * a checksum of its body, and the body is a pattern derived from them.
 *
 * Half of the sender threads use blocking sends; the other half use
 * MSG_DONTWAIT and, on EAGAIN (send queue full) or ENOBUFS (receiver
 * congested), wait and retry the same message.  The run fails, rather
 * than hangs, when nothing is received for --idle-timeout seconds.
 *
 * With --role, one process plays one side of the first phase only, for
 * streams between two hosts: "--role recv" binds the receivers to
 * --addr, ports --port + i, and expects the senders at --peer, ports
 * --port + 64 + i; "--role send" binds the senders there and sends to
 * the receivers.  Both sides take the same phase options.  The receiver
 * prints "# receivers ready" once bound (start the sender after that);
 * when it has everything, it sends a completion notice to each sender
 * socket, which the sender waits for before closing its sockets (closing
 * drops what is not delivered yet).
 */
#include "rds_msg.h"

#include <signal.h>
#include <sys/uio.h>

#define DONE_NOTICE "rds_order_test: all received"

enum { ROLE_BOTH, ROLE_SEND, ROLE_RECV };
/* --port + MAX_RECEIVERS + i: sender socket i of a split run */
#define MAX_RECEIVERS 64

struct phase {
	const char *name;
	int senders;		/* sockets */
	int threads;		/* threads per sender socket */
	int receivers;
	long messages;		/* total */
	int max_size;
	int rcvbuf;		/* SO_RCVBUF of the receivers, 0: default */
};

struct stream {
	int sock;		/* index of the sender socket */
	int blocking;
	long count;		/* messages to send */
	long sent;
	long eagain, enobufs;
	int err;		/* errno of a fatal send error */
	pthread_t tid;
};

struct receiver {
	int fd;
	union rds_sa addr;
	long expect;		/* messages planned for it */
	long got;
	long bytes;
	long dup, gap, corrupt, foreign, wrong_source;
	uint32_t *next;		/* next seq per stream */
	pthread_t tid;
};

static struct {
	const struct phase *ph;
	int nstreams;
	struct stream *st;
	struct receiver *rx;
	int *sfd;		/* sender sockets */
	union rds_sa *saddr;
	long **plan;		/* [stream][receiver] message counts */
	volatile int stop;
	long progress;		/* messages received (sent with --role send) */
	int senders_done;	/* sender threads that returned */
} run;

static int opt_role = ROLE_BOTH;
static int opt_port;
static int opt_idle_timeout = 20;
static long opt_messages = 100000;
static int opt_senders = 4;
static int opt_threads = 2;
static int opt_receivers = 2;
static int opt_max_size = 16384;
static int opt_rcvbuf;		/* receivers' SO_RCVBUF in every phase */

/* ---- deterministic message layout ---- */

static int msg_receiver(int stream, long gseq)
{
	return mix32(stream + 1000, (uint32_t)gseq) % run.ph->receivers;
}

static size_t msg_len(int stream, long gseq)
{
	uint32_t h = mix32(stream, (uint32_t)gseq * 3 + 1);
	size_t body, max = run.ph->max_size - sizeof(struct seq_hdr);

	switch (h % 20) {
	case 0:
		body = 0;
		break;
	case 1:
		body = max;		/* the largest */
		break;
	case 2: case 3:
		body = (h >> 8) % (max + 1);
		break;
	case 4: case 5: case 6: case 7:
		body = (h >> 8) % 4097;
		break;
	default:
		body = (h >> 8) % 257;
		break;
	}
	/* the small sizes too must fit a small --max-size */
	if (body > max)
		body = max;
	return sizeof(struct seq_hdr) + body;
}

static size_t msg_len_of(const struct seq_hdr *h)
{
	return msg_len(h->stream, h->gseq);
}

/* ---- senders ---- */

static int send_one(int fd, const union rds_sa *to, const void *buf,
		    size_t len, struct stream *s)
{
	struct pollfd p = { fd, POLLOUT, 0 };

	for (;;) {
		ssize_t r;

		if (run.stop)
			return -1;
		r = send_to(fd, to, buf, len,
			       s->blocking ? 0 : MSG_DONTWAIT);
		if (r == (ssize_t)len)
			return 0;
		if (r >= 0) {
			s->err = EMSGSIZE;
			return -1;
		}
		switch (errno) {
		case EINTR:
			continue;
		case EAGAIN:
			/* send queue full: wait for room */
			s->eagain++;
			poll(&p, 1, 100);
			continue;
		case ENOBUFS:
			/* destination congested: wait, retry the same */
			s->enobufs++;
			sleep_ms(1);
			continue;
		default:
			s->err = errno;
			return -1;
		}
	}
}

static void *sender_main(void *arg)
{
	struct stream *s = arg;
	int idx = (int)(s - run.st);
	int fd = run.sfd[s->sock];
	uint32_t *seq = calloc(run.ph->receivers, sizeof(*seq));
	char *buf = malloc(run.ph->max_size);
	long g;

	for (g = 0; g < s->count && !run.stop; g++) {
		int r = msg_receiver(idx, g);
		size_t len = msg_len(idx, g);

		seq_msg_fill(buf, len, idx, r, seq[r]++, g);
		if (send_one(fd, &run.rx[r].addr, buf, len, s))
			break;
		s->sent++;
		if (opt_role == ROLE_SEND)
			__atomic_add_fetch(&run.progress, 1, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&run.senders_done, 1, __ATOMIC_RELAXED);
	free(seq);
	free(buf);
	return NULL;
}

/* ---- receivers ---- */

static void check_msg(struct receiver *rx, int ridx, const char *buf,
		      ssize_t n, const union rds_sa *from)
{
	struct seq_hdr h;

	if (!seq_msg_take(buf, n, run.nstreams, ridx, msg_len_of, &h,
			  &rx->foreign, &rx->corrupt))
		return;
	if (!sa_same(from, &run.saddr[run.st[h.stream].sock]))
		rx->wrong_source++;
	if (h.seq == rx->next[h.stream]) {
		rx->next[h.stream]++;
	} else if (h.seq < rx->next[h.stream]) {
		rx->dup++;
	} else {
		if (rx->gap < 5)
			tap_diag("receiver %d stream %u: seq %u, expected %u",
				 ridx, h.stream, h.seq, rx->next[h.stream]);
		rx->gap++;
		rx->next[h.stream] = h.seq + 1;
	}
}

static void *receiver_main(void *arg)
{
	struct receiver *rx = arg;
	int ridx = (int)(rx - run.rx);
	char *buf = malloc(run.ph->max_size + 1);

	while (!run.stop && rx->got < rx->expect) {
		struct pollfd p = { rx->fd, POLLIN, 0 };
		union rds_sa from;
		struct iovec iov = { buf, run.ph->max_size + 1 };
		struct msghdr m = { .msg_name = &from,
				    .msg_namelen = sizeof(from),
				    .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(rx->fd, &m, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				poll(&p, 1, 100);
				continue;
			}
			tap_diag("receiver %d: recvmsg: %s", ridx,
				 tap_errname(errno));
			break;
		}
		if (m.msg_flags & MSG_TRUNC)
			rx->corrupt++;
		if (n == 0 && m.msg_namelen == 0)
			continue;	/* a notification, not a message */
		rx->got++;
		rx->bytes += n;
		__atomic_add_fetch(&run.progress, 1, __ATOMIC_RELAXED);
		check_msg(rx, ridx, buf, n, &from);
	}
	free(buf);
	return NULL;
}

/* ---- split runs (--role) ---- */

/* Fixed ports with --port, so that each side knows the other's. */
static uint16_t rx_port(int i)
{
	return opt_port ? opt_port + i : 0;
}

static uint16_t tx_port(int i)
{
	return opt_port ? opt_port + MAX_RECEIVERS + i : 0;
}

/*
 * Receiver and sender socket @i's address.  With --role, --addr is this
 * host's end, whichever side it plays.
 */
static union rds_sa rx_sa(int i)
{
	return cfg_sa(opt_role != ROLE_RECV, rx_port(i));
}

static union rds_sa tx_sa(int i)
{
	return cfg_sa(opt_role == ROLE_RECV, tx_port(i));
}

/*
 * --role recv: tell every sender socket that everything arrived.  Linux
 * RDS drops what a closing socket has not transmitted yet, so keep the
 * socket open until each sender answered (or for --idle-timeout).
 */
static void send_done_notices(void)
{
	size_t len = strlen(DONE_NOTICE);
	int i, failed = 0;
	char buf[64];

	for (i = 0; i < run.ph->senders; i++)
		if (send_to(run.rx[0].fd, &run.saddr[i], DONE_NOTICE, len,
			       0) != (ssize_t)len)
			failed++;
	is_eq(failed, 0, "completion notice sent to every sender socket");
	for (i = 0; i < run.ph->senders; i++)
		if (recv_wait(run.rx[0].fd, buf, sizeof(buf), NULL, NULL, 0,
			      opt_idle_timeout * 1000) < 0)
			break;
}

/* --role send: wait for the receivers' notice on every sender socket. */
static void wait_done_notices(void)
{
	union rds_sa from, want = cfg_sa(true, rx_port(0));
	size_t len = strlen(DONE_NOTICE);
	int i, missing = 0;
	char buf[64];

	for (i = 0; i < run.ph->senders; i++) {
		ssize_t n = recv_wait(run.sfd[i], buf, sizeof(buf), &from,
				      NULL, 0, opt_idle_timeout * 1000);

		if (n != (ssize_t)len || memcmp(buf, DONE_NOTICE, len) ||
		    !sa_same(&from, &want))
			missing++;
		else	/* the answer the receiver waits for */
			send_to(run.sfd[i], &want, DONE_NOTICE, len, 0);
	}
	/* Linux RDS: give the answers time to leave before closing */
	stays_quiet(run.sfd[0], 1000, NULL);
	ok_diag(!missing, "the receivers' completion notice reached every sender socket",
		"%d of %d sockets got none within %d s", missing,
		run.ph->senders, opt_idle_timeout);
}

/* ---- one phase ---- */

static int run_phase(const struct phase *ph)
{
	long long start, last_change, elapsed;
	long last = -1, total_sent = 0, total_got = 0, bytes = 0;
	long dup = 0, gap = 0, corrupt = 0, foreign = 0, wrong = 0;
	long eagain = 0, enobufs = 0, incomplete = 0;
	int i, j, fatal = 0, setup_ok = 1, timed_out = 0;
	char name[128];

	memset(&run, 0, sizeof(run));
	run.ph = ph;
	run.nstreams = ph->senders * ph->threads;
	run.st = calloc(run.nstreams, sizeof(*run.st));
	run.rx = calloc(ph->receivers, sizeof(*run.rx));
	run.sfd = calloc(ph->senders, sizeof(*run.sfd));
	run.saddr = calloc(ph->senders, sizeof(*run.saddr));
	run.plan = calloc(run.nstreams, sizeof(*run.plan));

	tap_set_prefix(NULL);
	tap_diag("phase %s: %d sender sockets x %d threads -> %d receivers, "
		 "%ld messages of up to %d bytes%s", ph->name, ph->senders,
		 ph->threads, ph->receivers, ph->messages, ph->max_size,
		 opt_rcvbuf ? ", SO_RCVBUF from --rcvbuf" :
		 ph->rcvbuf ? ", small SO_RCVBUF" : "");
	snprintf(name, sizeof(name), "%s: ", ph->name);
	tap_set_prefix(name);

	for (i = 0; i < ph->receivers; i++) {
		struct receiver *rx = &run.rx[i];

		rx->addr = rx_sa(i);
		if (opt_role == ROLE_SEND) {
			rx->fd = -1;
			rx->next = calloc(run.nstreams, sizeof(*rx->next));
			continue;
		}
		rx->fd = bound_socket_sa(&rx->addr, "bind receiver");
		if (rx->fd < 0) {
			setup_ok = 0;
			continue;
		}
		if (opt_rcvbuf)
			setsockopt(rx->fd, SOL_SOCKET, SO_RCVBUFFORCE,
				   &opt_rcvbuf, sizeof(opt_rcvbuf));
		else if (ph->rcvbuf)
			setsockopt(rx->fd, SOL_SOCKET, SO_RCVBUF, &ph->rcvbuf,
				   sizeof(ph->rcvbuf));
		rx->addr = sock_addr(rx->fd);
		rx->next = calloc(run.nstreams, sizeof(*rx->next));
	}
	for (i = 0; i < ph->senders; i++) {
		int sb = 4 << 20;

		run.saddr[i] = tx_sa(i);
		if (opt_role == ROLE_RECV) {
			run.sfd[i] = -1;
			continue;
		}
		run.sfd[i] = bound_socket_sa(&run.saddr[i], "bind sender");
		if (run.sfd[i] < 0) {
			setup_ok = 0;
			continue;
		}
		setsockopt(run.sfd[i], SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
		run.saddr[i] = sock_addr(run.sfd[i]);
	}
	if (!setup_ok)
		return -1;
	if (opt_role == ROLE_RECV)
		tap_diag("receivers ready");

	/* the plan: how many messages each stream sends to each receiver */
	for (i = 0; i < run.nstreams; i++) {
		struct stream *s = &run.st[i];
		long g;

		s->sock = i / ph->threads;
		s->blocking = !(i & 1);
		s->count = ph->messages / run.nstreams +
			   (i < ph->messages % run.nstreams);
		run.plan[i] = calloc(ph->receivers, sizeof(long));
		for (g = 0; g < s->count; g++) {
			int r = msg_receiver(i, g);

			run.plan[i][r]++;
			run.rx[r].expect++;
		}
	}

	start = now_ms();
	for (i = 0; i < ph->receivers && opt_role != ROLE_SEND; i++)
		pthread_create(&run.rx[i].tid, NULL, receiver_main, &run.rx[i]);
	for (i = 0; i < run.nstreams && opt_role != ROLE_RECV; i++)
		pthread_create(&run.st[i].tid, NULL, sender_main, &run.st[i]);

	/* watchdog: fail instead of hanging when delivery stalls */
	last_change = now_ms();
	for (;;) {
		long p = __atomic_load_n(&run.progress, __ATOMIC_RELAXED);
		int done = 1;

		if (opt_role == ROLE_SEND)
			done = __atomic_load_n(&run.senders_done,
					       __ATOMIC_RELAXED) == run.nstreams;
		for (i = 0; i < ph->receivers && opt_role != ROLE_SEND; i++)
			if (__atomic_load_n(&run.rx[i].got, __ATOMIC_RELAXED) <
			    run.rx[i].expect)
				done = 0;
		if (done)
			break;
		if (p != last) {
			last = p;
			last_change = now_ms();
		} else if (now_ms() - last_change > opt_idle_timeout * 1000LL) {
			timed_out = 1;
			break;
		}
		sleep_ms(100);
	}
	elapsed = now_ms() - start;

	if (timed_out) {
		/*
		 * Threads may be stuck in the kernel; report what we have
		 * and leave the process to exit().
		 */
		run.stop = 1;
		for (i = 0; i < run.nstreams && opt_role != ROLE_RECV; i++)
			pthread_kill(run.st[i].tid, SIGUSR1);
		sleep_ms(500);
		ok_diag(0, "messages keep arriving",
			"nothing %s for %d s; %ld messages so far",
			opt_role == ROLE_SEND ? "sent" : "received",
			opt_idle_timeout, last);
		return -1;
	}
	for (i = 0; i < run.nstreams && opt_role != ROLE_RECV; i++)
		pthread_join(run.st[i].tid, NULL);
	for (i = 0; i < ph->receivers && opt_role != ROLE_SEND; i++)
		pthread_join(run.rx[i].tid, NULL);

	for (i = 0; i < run.nstreams; i++) {
		struct stream *s = &run.st[i];

		total_sent += s->sent;
		eagain += s->eagain;
		enobufs += s->enobufs;
		if (s->err) {
			if (fatal++ < 5)
				tap_diag("stream %d: send failed: %s", i,
					 tap_errname(s->err));
		}
		for (j = 0; j < ph->receivers; j++)
			if (run.rx[j].next[i] != run.plan[i][j])
				incomplete++;
	}
	for (j = 0; j < ph->receivers; j++) {
		struct receiver *rx = &run.rx[j];

		total_got += rx->got;
		bytes += rx->bytes;
		dup += rx->dup;
		gap += rx->gap;
		corrupt += rx->corrupt;
		foreign += rx->foreign;
		wrong += rx->wrong_source;
	}

	if (opt_role != ROLE_RECV)
		ok_diag(!fatal && total_sent == ph->messages,
			"every message was sent",
			"%ld of %ld sent, %d streams failed",
			total_sent, ph->messages, fatal);
	if (opt_role == ROLE_SEND) {
		wait_done_notices();
		goto out;
	}
	for (j = 0; j < ph->receivers; j++) {
		snprintf(name, sizeof(name),
			 "receiver %d got its %ld messages", j,
			 run.rx[j].expect);
		ok_diag(run.rx[j].got == run.rx[j].expect, name, "got %ld",
			run.rx[j].got);
	}
	is_eq(dup, 0, "no duplicated or reordered-back messages");
	is_eq(gap, 0, "no missing or reordered-ahead messages");
	is_eq(corrupt, 0, "no corrupted or truncated payloads");
	is_eq(foreign, 0, "no message delivered to the wrong receiver");
	is_eq(wrong, 0, "every source address is the sending socket's");
	is_eq(incomplete, 0, "every stream complete at every receiver");
	{
		int extra = 0;

		for (j = 0; j < ph->receivers; j++) {
			ssize_t got;

			if (!stays_quiet(run.rx[j].fd, QUIET_MS, &got))
				extra++;
		}
		is_eq(extra, 0, "nothing arrives after the last message");
	}
	if (opt_role == ROLE_RECV)
		send_done_notices();
	tap_diag("%s: %ld messages, %ld bytes in %lld ms (%.0f msg/s); "
		 "retries: %ld EAGAIN, %ld ENOBUFS", ph->name, total_got,
		 bytes, elapsed, elapsed ? total_got * 1000.0 / elapsed : 0.0,
		 eagain, enobufs);

out:
	for (i = 0; i < ph->senders; i++)
		close(run.sfd[i]);
	for (j = 0; j < ph->receivers; j++) {
		close(run.rx[j].fd);
		free(run.rx[j].next);
	}
	for (i = 0; i < run.nstreams; i++)
		free(run.plan[i]);
	free(run.plan);
	free(run.st);
	free(run.rx);
	free(run.sfd);
	free(run.saddr);
	return 0;
}

enum {
	OPT_MESSAGES = 0x100, OPT_SENDERS, OPT_THREADS, OPT_RECEIVERS,
	OPT_MAX_SIZE, OPT_IDLE, OPT_RCVBUF,
};
enum { OPT_ROLE = 0x180, OPT_PORT };

static const struct option extra_opts[] = {
	{ "role", required_argument, NULL, OPT_ROLE },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "messages", required_argument, NULL, OPT_MESSAGES },
	{ "senders", required_argument, NULL, OPT_SENDERS },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "receivers", required_argument, NULL, OPT_RECEIVERS },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE },
	{ "rcvbuf", required_argument, NULL, OPT_RCVBUF },
	{ NULL, 0, NULL, 0 },
};

static int extra_opt(int opt, const char *arg)
{
	long v = atol(arg);

	switch (opt) {
	case OPT_ROLE:
		opt_role = !strcmp(arg, "send") ? ROLE_SEND :
			   !strcmp(arg, "recv") ? ROLE_RECV : -1;
		return opt_role >= 0 ? 0 : -1;
	case OPT_PORT:
		opt_port = v;
		return v > 0 && v <= 65535 - 2 * MAX_RECEIVERS ? 0 : -1;
	case OPT_MESSAGES:
		opt_messages = v;
		return v > 0 ? 0 : -1;
	case OPT_SENDERS:
		opt_senders = v;
		return v > 0 && v <= 64 ? 0 : -1;
	case OPT_THREADS:
		opt_threads = v;
		return v > 0 && v <= 16 ? 0 : -1;
	case OPT_RECEIVERS:
		opt_receivers = v;
		return v > 0 && v <= 64 ? 0 : -1;
	case OPT_MAX_SIZE:
		opt_max_size = v;
		return v >= (long)sizeof(struct seq_hdr) && v <= (1 << 20) ? 0 : -1;
	case OPT_IDLE:
		opt_idle_timeout = v;
		return v > 0 ? 0 : -1;
	case OPT_RCVBUF:
		opt_rcvbuf = v;
		return v > 0 && v <= (1 << 30) ? 0 : -1;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct phase phases[2];
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_common(argc, argv, extra_opts, extra_opt,
			 " [--messages N] [--senders N] [--threads N]\n"
			 "          [--receivers N] [--max-size N] "
			 "[--idle-timeout S] [--rcvbuf BYTES]\n"
			 "          [--role send|recv --port P]"))
		return 2;
	if (opt_role != ROLE_BOTH && !opt_port) {
		fprintf(stderr, "--role needs --port\n");
		return 2;
	}

	/* many streams into a few receivers */
	phases[0] = (struct phase){ "order", opt_senders, opt_threads,
				    opt_receivers, opt_messages, opt_max_size,
				    0 };
	/* everybody into one receiver with a small buffer */
	phases[1] = (struct phase){ "order_one_receiver", opt_senders,
				    opt_threads, 1, opt_messages / 5 + 1,
				    opt_max_size, 64 * 1024 };
	if (cfg.list) {
		for (i = 0; i < 2; i++)
			printf("%s\n", phases[i].name);
		return 0;
	}
	if (!selftest_start("rds_order_test"))
		return tap_finish();

	for (i = 0; i < 2; i++) {
		/* a split run plays the first phase, shaped by the options */
		if (opt_role != ROLE_BOTH && i > 0)
			break;
		if (cfg.filter && !strstr(phases[i].name, cfg.filter))
			continue;
		if (run_phase(&phases[i]))
			break;
	}
	tap_set_prefix(NULL);
	return tap_finish();
}
