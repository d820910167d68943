// SPDX-License-Identifier: GPL-2.0
/*
 * RDS delivery across connection resets.
 *
 * Sender sockets bound to --addr stream sequenced messages to receiver
 * sockets bound to --peer while the path between the two addresses is
 * broken and restored --resets times by two shell commands: --down, then
 * --up --down-ms later (a link taken down and up, an RDMA device deleted
 * and added back).  The faults are spread over the stream: the k-th one
 * starts once k / (resets + 1) of the messages have been accepted by
 * sendmsg(), so senders are always mid-stream when the path breaks, and
 * once a message sent after the previous repair has crossed the path, so
 * every fault breaks an established connection.  (Breaking a path while
 * rdma_cm's handshake is on it is a different fault, and one Soft-RoCE
 * does not survive: a connection manager message it cannot route moves
 * the device's GSI queue pair to the error state for good, so no
 * connection on that device can be made until it is re-created.)
 *
 * Every payload carries its sender, receiver, sequence number, length and
 * checksums.  The messages one socket sends to one destination must arrive
 * exactly once and in order, however often the connections under them were
 * torn down; each receiver counts, per source socket, what was lost,
 * duplicated, reordered or corrupted.
 *
 * Senders use blocking sendmsg() with SO_SNDTIMEO and send the same
 * message again after a transient failure (ETIMEDOUT, EAGAIN, ENOBUFS,
 * EINTR); any other errno is counted as a failure, and the message is
 * retried too.  Receivers use blocking recvmsg() with SO_RCVTIMEO.  While
 * the path is down, a socket blocked in recvmsg() must fail with ETIMEDOUT
 * when its SO_RCVTIMEO expires.  An overall --timeout and an --idle-timeout
 * (nothing received for that long) turn a hang into a failure.
 *
 * --probe only binds one socket on each address and exchanges a message
 * each way: a quick check that a transport serves both addresses.
 */
#include "rds_msg.h"

#include <signal.h>
#include <sys/wait.h>

/* A fault command that runs longer than this has hung. */
#define CMD_TIMEOUT_MS 60000
/* A recvmsg() that has not returned this long after its SO_RCVTIMEO hangs. */
#define HANG_MS 30000
/* The first message over a new connection may wait for its setup. */
#define PROBE_MS 30000

/* errno values seen, with counts */
struct errtab {
	pthread_mutex_t lock;
	int err[8];
	long count[8];
	long other;		/* more distinct values than slots */
};

struct sender {
	int fd;
	union rds_sa addr;
	long count;		/* messages to send */
	long sent;		/* accepted by sendmsg() */
	long timedout, eagain, enobufs, eintr;
	long failed;		/* sendmsg() failures with other errno */
	pthread_t tid;
};

/* What one receiver got from one sender. */
struct flow {
	long planned;
	uint8_t *seen;		/* one byte per sequence number */
	long unique, dup, reordered, gaps;
	long max_seq;		/* highest received, -1 for none */
};

struct receiver {
	int fd;
	union rds_sa addr;
	struct flow *flows;	/* per sender */
	long planned;
	long unique;		/* distinct messages received */
	long got, bytes;
	long corrupt, foreign, wrong_source, out_of_range;
	long timeouts;		/* recvmsg() timed out */
	long failed;		/* recvmsg() failures with other errno */
	pthread_t tid;
};

static struct {
	int nsend, nrecv;
	struct sender *tx;
	struct receiver *rx;
	long total;
	volatile int stop;
	struct errtab send_errs, recv_errs;
} run = {
	.send_errs.lock = PTHREAD_MUTEX_INITIALIZER,
	.recv_errs.lock = PTHREAD_MUTEX_INITIALIZER,
};

static int opt_messages = 50000;
static int opt_senders = 4;
static int opt_receivers = 2;
static int opt_max_size = 2048;
static int opt_resets = 3;
static int opt_down_ms = 2000;
static int opt_sndtimeo_ms = 5000;
static int opt_rcvtimeo_ms = 2000;
static int opt_timeout = 600;
static int opt_idle_timeout = 120;
static int opt_rcvbuf = 16 << 20;
static const char *opt_down;
static const char *opt_up;
static const char *opt_name;
static bool opt_probe;

/* ---- helpers ---- */

static long ld(const long *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void inc(long *p)
{
	__atomic_add_fetch(p, 1, __ATOMIC_RELAXED);
}

static void errtab_add(struct errtab *t, int err)
{
	int i;

	pthread_mutex_lock(&t->lock);
	for (i = 0; i < 8; i++) {
		if (t->count[i] && t->err[i] != err)
			continue;
		t->err[i] = err;
		t->count[i]++;
		break;
	}
	if (i == 8)
		t->other++;
	pthread_mutex_unlock(&t->lock);
}

/* "ENETUNREACH x 3, EIO x 1" */
static const char *errtab_fmt(struct errtab *t, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = 0;
	pthread_mutex_lock(&t->lock);
	for (i = 0; i < 8 && t->count[i] && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s x %ld",
				i ? ", " : "", tap_errname(t->err[i]),
				t->count[i]);
	if (t->other && off < len)
		snprintf(buf + off, len - off, ", %ld with other errno values",
			 t->other);
	pthread_mutex_unlock(&t->lock);
	return buf;
}

static int set_timeo(int fd, int opt, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	return setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

/* Message @g of a sender goes to receiver (sender + g) % nrecv. */
static int msg_receiver(int s, long g)
{
	return (int)((s + g) % run.nrecv);
}

static uint32_t msg_seq(long g)
{
	return (uint32_t)(g / run.nrecv);
}

/* Message @g of sender @s: mostly small, one in eight up to --max-size. */
static size_t msg_len(int s, long g)
{
	uint32_t h = mix32(s * 131, (uint32_t)g);
	size_t max = opt_max_size - sizeof(struct seq_hdr), body;

	body = (h >> 8) % (h % 8 ? 257 : max + 1);
	return sizeof(struct seq_hdr) + (body > max ? max : body);
}

static size_t msg_len_of(const struct seq_hdr *h)
{
	return msg_len(h->stream, h->gseq);
}

/*
 * Run @cmd with /bin/sh, its output on our stderr.  Returns its exit
 * status, or -1 if it could not be started or did not finish within
 * CMD_TIMEOUT_MS (it is left running: it may be stuck in the kernel).
 */
static int run_cmd(const char *cmd)
{
	long long end = now_ms() + CMD_TIMEOUT_MS;
	int status;
	pid_t pid, w;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(2, 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		if (w < 0 && errno != EINTR)
			return -1;
		if (now_ms() > end) {
			tap_diag("'%s' still runs after %d s", cmd,
				 CMD_TIMEOUT_MS / 1000);
			return -1;
		}
		sleep_ms(20);
	}
}

/* ---- senders ---- */

static void send_retrying(struct sender *s, const union rds_sa *to,
			  const void *buf, size_t len)
{
	while (!run.stop) {
		ssize_t r = send_to(s->fd, to, buf, len, 0);

		if (r == (ssize_t)len) {
			inc(&s->sent);
			return;
		}
		if (r >= 0)
			errno = EMSGSIZE;	/* a short send: never expected */
		switch (errno) {
		case ETIMEDOUT:
			/* SO_SNDTIMEO ran out waiting for room */
			inc(&s->timedout);
			break;
		case EAGAIN:
			inc(&s->eagain);
			sleep_ms(1);
			break;
		case ENOBUFS:
			/* destination congested */
			inc(&s->enobufs);
			sleep_ms(10);
			break;
		case EINTR:
			inc(&s->eintr);
			break;
		default:
			inc(&s->failed);
			errtab_add(&run.send_errs, errno);
			sleep_ms(100);
			break;
		}
	}
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	int idx = (int)(s - run.tx);
	char *buf = malloc(opt_max_size);
	long g;

	for (g = 0; g < s->count && !run.stop; g++) {
		int r = msg_receiver(idx, g);
		size_t len = msg_len(idx, g);

		seq_msg_fill(buf, len, idx, r, msg_seq(g), g);
		send_retrying(s, &run.rx[r].addr, buf, len);
	}
	free(buf);
	return NULL;
}

/* ---- receivers ---- */

static void check_msg(struct receiver *rx, int ridx, const char *buf,
		      ssize_t n, const union rds_sa *from)
{
	struct flow *f;
	struct seq_hdr h;

	if (!seq_msg_take(buf, n, run.nsend, ridx, msg_len_of, &h,
			  &rx->foreign, &rx->corrupt))
		return;
	if (!sa_same(from, &run.tx[h.stream].addr))
		rx->wrong_source++;
	f = &rx->flows[h.stream];
	if (h.seq >= f->planned) {
		rx->out_of_range++;
		return;
	}
	if (f->seen[h.seq]) {
		if (f->dup++ < 3)
			tap_diag("receiver %d, sender %u: seq %u again", ridx,
				 h.stream, h.seq);
		return;
	}
	f->seen[h.seq] = 1;
	f->unique++;
	if ((long)h.seq < f->max_seq) {
		if (f->reordered++ < 3)
			tap_diag("receiver %d, sender %u: seq %u after %ld",
				 ridx, h.stream, h.seq, f->max_seq);
	} else {
		if ((long)h.seq > f->max_seq + 1 && f->gaps++ < 3)
			tap_diag("receiver %d, sender %u: seq %u, expected %ld",
				 ridx, h.stream, h.seq, f->max_seq + 1);
		f->max_seq = h.seq;
	}
	__atomic_add_fetch(&rx->unique, 1, __ATOMIC_RELAXED);
}

static void *receiver_main(void *arg)
{
	struct receiver *rx = arg;
	int ridx = (int)(rx - run.rx);
	char *buf = malloc(opt_max_size + 1);

	while (!run.stop && ld(&rx->unique) < rx->planned) {
		union rds_sa from;
		struct iovec iov = { buf, opt_max_size + 1 };
		struct msghdr m = { .msg_name = &from,
				    .msg_namelen = sizeof(from),
				    .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(rx->fd, &m, 0);

		if (n < 0) {
			if (errno == ETIMEDOUT || errno == EAGAIN) {
				inc(&rx->timeouts);
			} else if (errno != EINTR) {
				inc(&rx->failed);
				errtab_add(&run.recv_errs, errno);
				sleep_ms(100);
			}
			continue;
		}
		if (n == 0 && m.msg_namelen == 0)
			continue;	/* a congestion notice */
		if (m.msg_flags & MSG_TRUNC)
			rx->corrupt++;
		rx->got++;
		rx->bytes += n;
		check_msg(rx, ridx, buf, n, &from);
	}
	free(buf);
	return NULL;
}

/* ---- a blocked recvmsg() while the path is down ---- */

struct blocked_recv {
	int fd;
	ssize_t ret;
	int err;
	long long took_ms;
};

static void *blocked_recv_main(void *arg)
{
	struct blocked_recv *b = arg;
	long long t0 = now_ms();
	char buf[64];

	b->ret = recv(b->fd, buf, sizeof(buf), 0);
	b->err = errno;
	b->took_ms = now_ms() - t0;
	return NULL;
}

/*
 * Block in recvmsg() on @fd, which nothing is sent to, with an
 * SO_RCVTIMEO of @ms.  Returns true if it failed with ETIMEDOUT; a call
 * that has not returned HANG_MS after its timeout is reported and left.
 */
static bool recv_times_out(int fd, int ms, int k)
{
	struct blocked_recv *b = calloc(1, sizeof(*b));
	struct timespec ts;
	pthread_t t;
	bool good;

	if (!b)
		return false;
	b->fd = fd;
	set_timeo(fd, SO_RCVTIMEO, ms);
	if (pthread_create(&t, NULL, blocked_recv_main, b)) {
		free(b);
		return false;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (ms + HANG_MS) / 1000;
	if (pthread_timedjoin_np(t, NULL, &ts)) {
		/* still blocked: @b stays with the thread */
		pthread_detach(t);
		tap_diag("fault %d: recvmsg() with SO_RCVTIMEO %d ms has not "
			 "returned after %d s", k, ms, (ms + HANG_MS) / 1000);
		return false;
	}
	good = b->ret == -1 && b->err == ETIMEDOUT;
	if (!good)
		tap_diag("fault %d: blocked recvmsg() returned %zd (%s) after "
			 "%lld ms", k, b->ret,
			 b->ret < 0 ? tap_errname(b->err) : "a message",
			 b->took_ms);
	free(b);
	return good;
}

/* ---- progress ---- */

static long total_sent(void)
{
	long n = 0;
	int i;

	for (i = 0; i < run.nsend; i++)
		n += ld(&run.tx[i].sent);
	return n;
}

static long total_received(void)
{
	long n = 0;
	int i;

	for (i = 0; i < run.nrecv; i++)
		n += ld(&run.rx[i].unique);
	return n;
}

static struct {
	long long start, deadline;
	long long last_change;	/* of total_received() */
	long last;
	const char *why;	/* set once the run is given up */
} watch;

/*
 * Whether the run can go on: false once --timeout has passed, or nothing
 * was received for --idle-timeout since the last change or the last
 * repair of the path (@since).
 */
static bool watch_ok(long long since)
{
	long got = total_received();
	long long now = now_ms(), ref;

	if (got != watch.last) {
		watch.last = got;
		watch.last_change = now;
	}
	ref = watch.last_change > since ? watch.last_change : since;
	if (now > watch.deadline)
		watch.why = "the overall --timeout ran out";
	else if (now - ref > opt_idle_timeout * 1000LL)
		watch.why = "nothing was received for --idle-timeout";
	return !watch.why;
}

/* ---- the run ---- */

static bool setup(void)
{
	int i, j, sb = 1 << 20;
	bool good = true;

	run.nsend = opt_senders;
	run.nrecv = opt_receivers;
	run.total = opt_messages;
	run.tx = calloc(run.nsend, sizeof(*run.tx));
	run.rx = calloc(run.nrecv, sizeof(*run.rx));

	for (i = 0; i < run.nrecv; i++) {
		struct receiver *rx = &run.rx[i];

		rx->fd = bound_socket_cfg(true, 0, "bind a receiver");
		if (rx->fd < 0) {
			good = false;
			continue;
		}
		if (setsockopt(rx->fd, SOL_SOCKET, SO_RCVBUFFORCE,
			       &opt_rcvbuf, sizeof(opt_rcvbuf)))
			setsockopt(rx->fd, SOL_SOCKET, SO_RCVBUF, &opt_rcvbuf,
				   sizeof(opt_rcvbuf));
		set_timeo(rx->fd, SO_RCVTIMEO, opt_rcvtimeo_ms);
		rx->addr = sock_addr(rx->fd);
		rx->flows = calloc(run.nsend, sizeof(*rx->flows));
	}
	for (i = 0; i < run.nsend; i++) {
		struct sender *s = &run.tx[i];

		s->fd = bound_socket_cfg(false, 0, "bind a sender");
		if (s->fd < 0) {
			good = false;
			continue;
		}
		setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
		set_timeo(s->fd, SO_SNDTIMEO, opt_sndtimeo_ms);
		s->addr = sock_addr(s->fd);
		s->count = run.total / run.nsend + (i < run.total % run.nsend);
	}
	if (!good)
		return false;
	for (j = 0; j < run.nrecv; j++) {
		for (i = 0; i < run.nsend; i++) {
			struct flow *f = &run.rx[j].flows[i];
			long g;

			for (g = 0; g < run.tx[i].count; g++)
				if (msg_receiver(i, g) == j)
					f->planned++;
			f->seen = calloc(f->planned + 1, 1);
			f->max_seq = -1;
			run.rx[j].planned += f->planned;
		}
	}
	if (cfg.transport >= 0) {
		int v = -2;
		socklen_t len = sizeof(v);

		getsockopt(run.tx[0].fd, SOL_RDS, SO_RDS_TRANSPORT, &v, &len);
		is_eq(v, cfg.transport,
		      "the senders use the transport given with --transport");
	}
	return true;
}

struct fault_log {
	int done;		/* faults whose both commands succeeded */
	int cmd_failed;
	int recv_ok;		/* blocked recvmsg() timed out as it should */
	int recv_tried;
};

/* Break and repair the path once; false if the run must stop. */
static bool fault(int k, int idle_fd, struct fault_log *log,
		  long long *repaired)
{
	int st, probe_ms = opt_down_ms / 2, failed = log->cmd_failed;

	tap_diag("fault %d: %ld messages accepted, %ld received; '%s'", k,
		 total_sent(), total_received(), opt_down);
	st = run_cmd(opt_down);
	if (st) {
		log->cmd_failed++;
		tap_diag("fault %d: '%s' exited with %d", k, opt_down, st);
		if (st < 0)
			return false;
	}
	/* while it is down, a blocked receive still times out */
	log->recv_tried++;
	if (recv_times_out(idle_fd, probe_ms < 100 ? 100 : probe_ms, k))
		log->recv_ok++;
	sleep_ms(opt_down_ms - probe_ms);
	st = run_cmd(opt_up);
	if (st) {
		log->cmd_failed++;
		tap_diag("fault %d: '%s' exited with %d", k, opt_up, st);
		return false;
	}
	*repaired = now_ms();
	if (log->cmd_failed == failed)
		log->done++;
	return true;
}

struct totals {
	long sent, got, bytes, lost, dup, reordered, gaps;
	long corrupt, foreign, wrong;
	long timedout, eagain, enobufs, sfail, rtimeouts, rfail;
};

/* Sums the counters; racy reads while threads still run are fine. */
static void sum_totals(struct totals *t)
{
	int i, j;

	memset(t, 0, sizeof(*t));
	t->sent = total_sent();
	t->got = total_received();
	for (i = 0; i < run.nsend; i++) {
		t->timedout += ld(&run.tx[i].timedout);
		t->eagain += ld(&run.tx[i].eagain);
		t->enobufs += ld(&run.tx[i].enobufs);
		t->sfail += ld(&run.tx[i].failed);
	}
	for (j = 0; j < run.nrecv; j++) {
		struct receiver *rx = &run.rx[j];

		for (i = 0; i < run.nsend; i++) {
			struct flow *f = &rx->flows[i];

			t->lost += f->planned - ld(&f->unique);
			t->dup += ld(&f->dup);
			t->reordered += ld(&f->reordered);
			t->gaps += ld(&f->gaps);
		}
		t->corrupt += ld(&rx->corrupt) + ld(&rx->out_of_range);
		t->foreign += ld(&rx->foreign);
		t->wrong += ld(&rx->wrong_source);
		t->rtimeouts += ld(&rx->timeouts);
		t->rfail += ld(&rx->failed);
		t->bytes += ld(&rx->bytes);
	}
}

/*
 * Wait until @done() or the watch gives up; after a repair, say how long
 * it took for messages to flow again.
 */
static void wait_for(bool (*done)(long), long arg, long long repaired,
		     int k)
{
	long at_repair = total_received();
	bool flowing = !repaired;

	while (!done(arg) && watch_ok(repaired)) {
		if (!flowing && total_received() != at_repair) {
			flowing = true;
			tap_diag("fault %d: messages flow again %lld ms after "
				 "the repair", k, now_ms() - repaired);
		}
		sleep_ms(20);
	}
}

/*
 * Before fault @k: wait until a message sent now crosses the path from
 * --addr to the idle socket at --peer, so the connection the previous
 * repair brought back is established.  False if the watch gave up.
 */
static bool path_carries(int k, int probe_fd, int idle_fd,
			 long long repaired)
{
	union rds_sa to = sock_addr(idle_fd);
	bool sent = false;
	char buf[16];

	while (watch_ok(repaired)) {
		if (!sent)
			sent = send_to(probe_fd, &to, "path", 4, 0) == 4;
		if (sent && recv_wait(idle_fd, buf, sizeof(buf), NULL, NULL, 0,
				      200) == 4) {
			tap_diag("fault %d: a message sent since crossed the "
				 "path %lld ms after the repair", k - 1,
				 now_ms() - repaired);
			return true;
		}
		if (!sent)
			sleep_ms(20);
	}
	return false;
}

static bool sent_reached(long target)
{
	return total_sent() >= target;
}

static bool all_received(long total)
{
	return total_received() >= total && total_sent() >= total;
}

static void report(const struct fault_log *log, bool finished,
		   long long elapsed)
{
	struct totals t;
	char eb[256];
	int i, j, extra = 0;

	sum_totals(&t);
	if (opt_resets) {
		ok_diag(log->cmd_failed == 0, "the fault commands succeeded",
			"%d commands failed", log->cmd_failed);
		ok_diag(log->done == opt_resets, "resets done",
			"%d of %d faults done", log->done, opt_resets);
		ok_diag(log->recv_tried && log->recv_ok == log->recv_tried,
			"a recvmsg() blocked while the path is down fails "
			"with ETIMEDOUT when SO_RCVTIMEO expires",
			"%d of %d did", log->recv_ok, log->recv_tried);
	}
	ok_diag(finished, "the stream completed", "%s after %lld s",
		watch.why, elapsed / 1000);
	if (finished) {
		for (j = 0; j < run.nrecv; j++)
			if (!stays_quiet(run.rx[j].fd, QUIET_MS, NULL))
				extra++;
		is_eq(t.sent, run.total,
		      "every message was accepted by sendmsg()");
		is_eq(t.got, t.sent, "every accepted message was received");
		is_eq(t.lost, 0, "lost: none");
	} else {
		/* what is missing may still be on its way: no verdict */
		for (j = 0; j < run.nrecv; j++)
			for (i = 0; i < run.nsend; i++)
				tap_diag("receiver %d from sender %d: %ld of "
					 "%ld", j, i,
					 ld(&run.rx[j].flows[i].unique),
					 run.rx[j].flows[i].planned);
	}
	ok_diag(!t.sfail, "sendmsg() failed only with ETIMEDOUT, EAGAIN, "
		"ENOBUFS or EINTR", "%ld failures: %s", t.sfail,
		errtab_fmt(&run.send_errs, eb, sizeof(eb)));
	ok_diag(!t.rfail, "recvmsg() failed only with ETIMEDOUT or EINTR",
		"%ld failures: %s", t.rfail,
		errtab_fmt(&run.recv_errs, eb, sizeof(eb)));
	is_eq(t.dup, 0, "duplicated: none");
	is_eq(t.reordered, 0, "reordered: none");
	is_eq(t.corrupt, 0, "no corrupted or truncated payloads");
	is_eq(t.foreign, 0, "no message delivered to the wrong receiver");
	is_eq(t.wrong, 0, "every source address is the sending socket's");
	if (finished)
		is_eq(extra, 0, "nothing arrives after the last message");

	tap_diag("%s: %ld of %ld messages accepted, %ld received (%ld bytes) "
		 "in %lld ms; %d resets; %s %ld, duplicated %ld, reordered %ld",
		 opt_name ? opt_name : "stream", t.sent, run.total, t.got,
		 t.bytes, elapsed, log->done,
		 finished ? "lost" : "not received", t.lost, t.dup,
		 t.reordered);
	tap_diag("send retries: %ld ETIMEDOUT, %ld EAGAIN, %ld ENOBUFS; "
		 "receive timeouts: %ld; sequence gaps seen: %ld",
		 t.timedout, t.eagain, t.enobufs, t.rtimeouts, t.gaps);
}

static int do_stream(void)
{
	struct fault_log log = { 0 };
	long long repaired = 0, elapsed;
	int i, j, k, idle_fd, probe_fd;
	bool finished;

	if (!setup())
		return -1;
	idle_fd = bound_socket_cfg(true, 0, "bind an idle socket");
	if (idle_fd < 0)
		return -1;
	probe_fd = bound_socket_cfg(false, 0, "bind a path probe");
	if (probe_fd < 0)
		return -1;
	set_timeo(probe_fd, SO_SNDTIMEO, opt_sndtimeo_ms);

	watch.start = now_ms();
	watch.deadline = watch.start + opt_timeout * 1000LL;
	watch.last_change = watch.start;
	watch.last = -1;
	for (j = 0; j < run.nrecv; j++)
		pthread_create(&run.rx[j].tid, NULL, receiver_main, &run.rx[j]);
	for (i = 0; i < run.nsend; i++)
		pthread_create(&run.tx[i].tid, NULL, sender_main, &run.tx[i]);

	for (k = 1; k <= opt_resets; k++) {
		wait_for(sent_reached, run.total * k / (opt_resets + 1),
			 repaired, k - 1);
		if (k > 1 && !watch.why)
			path_carries(k, probe_fd, idle_fd, repaired);
		if (watch.why) {
			tap_diag("fault %d not started: %s", k, watch.why);
			break;
		}
		if (!fault(k, idle_fd, &log, &repaired))
			break;
	}
	if (!watch.why)
		wait_for(all_received, run.total, repaired, k - 1);
	finished = !watch.why && all_received(run.total);
	elapsed = now_ms() - watch.start;
	run.stop = 1;

	if (finished) {
		for (i = 0; i < run.nsend; i++)
			pthread_join(run.tx[i].tid, NULL);
		for (j = 0; j < run.nrecv; j++)
			pthread_join(run.rx[j].tid, NULL);
	}
	report(&log, finished, elapsed);
	if (!finished)
		return -1;	/* threads may be stuck in the kernel */
	close(idle_fd);
	close(probe_fd);
	for (i = 0; i < run.nsend; i++)
		close(run.tx[i].fd);
	for (j = 0; j < run.nrecv; j++)
		close(run.rx[j].fd);
	return 0;
}

/* One socket on each address, one message each way. */
static void do_probe(void)
{
	char buf[64];
	int a, b, v;
	ssize_t r;

	a = bound_socket_cfg(false, 0, "bind a socket to --addr");
	b = bound_socket_cfg(true, 0, "bind a socket to --peer");
	if (a < 0 || b < 0)
		goto out;
	if (cfg.transport >= 0) {
		socklen_t len = sizeof(v);

		v = -2;
		getsockopt(a, SOL_RDS, SO_RDS_TRANSPORT, &v, &len);
		is_eq(v, cfg.transport, "the transport given with --transport");
	}
	{
		union rds_sa to = sock_addr(b);

		is_eq(send_to(a, &to, "probe", 5, 0), 5, "send to --peer");
		r = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0, PROBE_MS);
		ok_diag(r == 5 && !memcmp(buf, "probe", 5), "it arrives",
			"recv returned %zd (%s)", r,
			r < 0 ? tap_errname(errno) : "-");
	}
	{
		union rds_sa to = sock_addr(a);

		is_eq(send_to(b, &to, "reply", 5, 0), 5, "send back");
		r = recv_wait(a, buf, sizeof(buf), NULL, NULL, 0, PROBE_MS);
		ok_diag(r == 5 && !memcmp(buf, "reply", 5), "it arrives too",
			"recv returned %zd (%s)", r,
			r < 0 ? tap_errname(errno) : "-");
	}
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

enum {
	OPT_MESSAGES = 0x100, OPT_SENDERS, OPT_RECEIVERS, OPT_MAX_SIZE,
	OPT_RESETS, OPT_DOWN_MS, OPT_SNDTIMEO, OPT_RCVTIMEO, OPT_TIMEOUT,
	OPT_IDLE, OPT_RCVBUF, OPT_DOWN, OPT_UP, OPT_NAME, OPT_PROBE,
};

static const struct option extra_opts[] = {
	{ "messages", required_argument, NULL, OPT_MESSAGES },
	{ "senders", required_argument, NULL, OPT_SENDERS },
	{ "receivers", required_argument, NULL, OPT_RECEIVERS },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "resets", required_argument, NULL, OPT_RESETS },
	{ "down-ms", required_argument, NULL, OPT_DOWN_MS },
	{ "sndtimeo-ms", required_argument, NULL, OPT_SNDTIMEO },
	{ "rcvtimeo-ms", required_argument, NULL, OPT_RCVTIMEO },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE },
	{ "rcvbuf", required_argument, NULL, OPT_RCVBUF },
	{ "down", required_argument, NULL, OPT_DOWN },
	{ "up", required_argument, NULL, OPT_UP },
	{ "name", required_argument, NULL, OPT_NAME },	/* prefix of checks */
	{ "probe", no_argument, NULL, OPT_PROBE },
	{ NULL, 0, NULL, 0 },
};

/* The numeric options, in the order of the enum, with their ranges. */
static const struct {
	int *val;
	long min, max;
} num_opts[] = {
	[OPT_MESSAGES - 0x100] = { &opt_messages, 1, 1 << 30 },
	[OPT_SENDERS - 0x100] = { &opt_senders, 1, 64 },
	[OPT_RECEIVERS - 0x100] = { &opt_receivers, 1, 64 },
	[OPT_MAX_SIZE - 0x100] = { &opt_max_size, sizeof(struct seq_hdr), 1 << 20 },
	[OPT_RESETS - 0x100] = { &opt_resets, 0, 100 },
	[OPT_DOWN_MS - 0x100] = { &opt_down_ms, 200, 3600000 },
	[OPT_SNDTIMEO - 0x100] = { &opt_sndtimeo_ms, 1, 3600000 },
	[OPT_RCVTIMEO - 0x100] = { &opt_rcvtimeo_ms, 1, 3600000 },
	[OPT_TIMEOUT - 0x100] = { &opt_timeout, 1, 86400 },
	[OPT_IDLE - 0x100] = { &opt_idle_timeout, 1, 86400 },
	[OPT_RCVBUF - 0x100] = { &opt_rcvbuf, 1, 1 << 30 },
};

static int extra_opt(int opt, const char *arg)
{
	unsigned int i = opt - 0x100;
	char *end;
	long v;

	switch (opt) {
	case OPT_DOWN:
		opt_down = arg;
		return 0;
	case OPT_UP:
		opt_up = arg;
		return 0;
	case OPT_NAME:
		opt_name = arg;
		return 0;
	case OPT_PROBE:
		opt_probe = true;
		return 0;
	}
	if (i >= sizeof(num_opts) / sizeof(num_opts[0]) || !num_opts[i].val)
		return -1;
	v = strtol(arg, &end, 0);
	if (*end || v < num_opts[i].min || v > num_opts[i].max)
		return -1;
	*num_opts[i].val = v;
	return 0;
}

int main(int argc, char **argv)
{
	char prefix[64];
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_common(argc, argv, extra_opts, extra_opt,
			 " --probe | [--down CMD --up CMD] [--resets N]\n"
			 "          [--down-ms MS] [--name NAME] [--messages N] "
			 "[--senders N]\n"
			 "          [--receivers N] [--max-size N] "
			 "[--sndtimeo-ms MS] [--rcvtimeo-ms MS]\n"
			 "          [--timeout S] [--idle-timeout S] "
			 "[--rcvbuf BYTES]"))
		return 2;
	if (!opt_probe && opt_resets && (!opt_down || !opt_up)) {
		fprintf(stderr, "%s: --resets needs --down and --up\n",
			argv[0]);
		return 2;
	}
	if (cfg.list) {
		printf("%s\n", opt_probe ? "probe" :
		       opt_name ? opt_name : "stream");
		return 0;
	}
	if (!selftest_start("rds_stream_test"))
		return tap_finish();

	if (opt_probe) {
		tap_set_prefix("probe: ");
		do_probe();
		tap_set_prefix(NULL);
		return tap_finish();
	}
	tap_diag("%s: %d senders -> %d receivers, %d messages of up to %d "
		 "bytes, %d faults of %d ms: '%s', then '%s'",
		 opt_name ? opt_name : "stream", opt_senders, opt_receivers, opt_messages, opt_max_size,
		 opt_resets, opt_down_ms, opt_down ? opt_down : "",
		 opt_up ? opt_up : "");
	if (opt_name) {
		snprintf(prefix, sizeof(prefix), "%s: ", opt_name);
		tap_set_prefix(prefix);
	}
	ret = do_stream();
	tap_set_prefix(NULL);
	if (ret) {
		/* threads may still be blocked in the kernel */
		ret = tap_finish();
		fflush(stdout);
		_exit(ret ? ret : 1);
	}
	return tap_finish();
}
