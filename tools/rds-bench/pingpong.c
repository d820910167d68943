// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rds-bench: pingpong.
 */
#include "bench.h"

void echo_server(int fd)
{
	uint8_t *buf = xmalloc((size_t)cfg.size + 1);
	struct end_stats *st = &shm->srv;
	uint64_t echoed = 0, enobufs = 0, eagain = 0;

	while (!stopping()) {
		struct sockaddr_in from = { 0 };
		int mflags, r;
		ssize_t n = recv_next(fd, buf, (size_t)cfg.size + 1, &from,
				      &mflags, "echo server: recvmsg");

		if (n < 0)
			break;
		if (from.sin_family != AF_INET && from.sin_family != 0)
			continue;
		from.sin_family = AF_INET;
		r = send_msg(fd, buf, (size_t)n, &from, st, &enobufs, &eagain, 0);
		if (r > 0)
			break;
		if (r < 0) {
			char m[400];

			describe(m, sizeof(m), "echo server: sendto", -r, send_hint(-r));
			fail("%s", m);
			break;
		}
		echoed++;
		atomic_store_explicit(&st->msgs, echoed, memory_order_relaxed);
	}
	atomic_store(&st->done, 1);
	free(buf);
}

void add_sample(struct active_arg *a, uint64_t v)
{
	if (a->nsamples == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 65536;
		uint64_t *p = realloc(a->samples, nc * sizeof(*p));

		if (!p) {
			fprintf(stderr, PROG ": out of memory for RTT samples\n");
			exit(1);
		}
		a->samples = p;
		a->cap = nc;
	}
	a->samples[a->nsamples++] = v;
}

/* "client 2", or with --sockets "client 2, socket 5" */
static void client_name(char *w, size_t len, int idx, int k)
{
	if (cfg.sockets > 1)
		snprintf(w, len, "client %d, socket %d", idx, k);
	else
		snprintf(w, len, "client %d", idx);
}

/* One socket of a client and its ping outstanding. */
struct ping_slot {
	uint64_t seq;		/* the ping's sequence number */
	uint64_t t0;		/* when it was sent */
	uint64_t deadline;	/* when its echo counts as lost */
};

/*
 * Send socket @k's next ping.  A send that is still refused at its
 * deadline (or at @t_end, if set) gives up: the ping then counts as lost,
 * or the window has closed.  Returns -1 after reporting a send error.
 */
static int ping_send(struct active_arg *a, int k, struct ping_slot *ps,
		     uint8_t *buf, uint64_t *enobufs, uint64_t *eagain,
		     uint64_t t_end)
{
	uint64_t deadline;
	int r;

	ps->seq++;
	put_hdr(buf, ps->seq, (uint32_t)a->idx);
	ps->t0 = now_ns();
	ps->deadline = ps->t0 + sec2ns(cfg.timeout);
	deadline = t_end && t_end < ps->deadline ? t_end : ps->deadline;
	r = send_msg(a->fds[k], buf, cfg.size, &a->dst, &shm->snd[a->idx],
		     enobufs, eagain, deadline);
	if (r < 0) {
		char m[400], w[64], c[40];

		client_name(c, sizeof(c), a->idx, k);
		snprintf(w, sizeof(w), "%s: sendto(%u bytes)", c, cfg.size);
		describe(m, sizeof(m), w, -r, send_hint(-r));
		fail("%s", m);
		return -1;
	}
	return 0;
}

/*
 * One client: every one of its cfg.sockets sockets sends a ping and waits
 * for the echo, over and over, so that cfg.sockets round trips are in
 * flight; the client takes whichever echo comes (poll over them all) and
 * sends that socket's next ping.  The first round trip (connection setup)
 * and `warmup` seconds after it are not measured.  A reply that doesn't
 * come within --timeout counts as lost; the socket then moves on (a late
 * echo with an old sequence number counts as stale).
 */
void *ping_client(void *argp)
{
	struct active_arg *a = argp;
	struct end_stats *st = &shm->snd[a->idx];
	uint8_t *buf = xmalloc(cfg.size);
	uint8_t *rbuf = xmalloc((size_t)cfg.size + 1);
	struct ping_slot ps[MAX_SOCKETS];
	struct pollfd pfd[MAX_SOCKETS];
	uint64_t enobufs = 0, eagain = 0, done_rt = 0, sent = 0;
	/* send_end: the window's end once it is open (with --count, none):
	 * a send still refused then gives up */
	uint64_t warm_end = 0, t_end = 0, send_end = 0;
	int phase = PH_FIRST, lost_row = 0, k;

	memcpy(buf, pattern, cfg.size);
	memset(ps, 0, sizeof(ps));
	for (k = 0; k < cfg.sockets; k++) {
		pfd[k].fd = a->fds[k];
		pfd[k].events = POLLIN;
	}
	if (!wait_go())
		goto out;
	beat(now_ns());
	for (k = 0; k < cfg.sockets; k++)
		if (ping_send(a, k, &ps[k], buf, &enobufs, &eagain, 0) < 0)
			goto out;
	while (!stopping()) {
		uint64_t now, wake, ns;
		struct timespec ts;

		/*
		 * Take every echo queued.  Right after a socket's next ping
		 * is sent its echo is looked for at once, as a lone client
		 * always did, before waiting.
		 */
		for (k = 0; k < cfg.sockets; k++) {
			for (;;) {
				struct sockaddr_in from = { 0 };
				int mflags, v;
				ssize_t n = recv_one(a->fds[k], rbuf,
						     (size_t)cfg.size + 1, &from,
						     &mflags);
				uint64_t rs = 0, t1;
				bool has_seq;

				if (n < 0) {
					char m[300], w[64], c[40];
					int e = errno;

					if (e == EINTR)
						continue;
					if (e == EAGAIN || e == EWOULDBLOCK)
						break;
					client_name(c, sizeof(c), a->idx, k);
					snprintf(w, sizeof(w), "%s: recvmsg", c);
					describe(m, sizeof(m), w, e, NULL);
					fail("%s", m);
					goto out;
				}
				v = check_msg(rbuf, n, mflags, &rs, &has_seq);
				if (v == V_LEN) {
					a->bad_len++;
					continue;
				}
				if (v == V_DATA) {
					a->bad_data++;
					continue;
				}
				if (has_seq && rs != ps[k].seq) {
					a->stale++;
					continue;
				}
				t1 = now_ns();
				lost_row = 0;
				beat(t1);
				switch (phase) {
				case PH_FIRST:
					phase = PH_WARM;
					warm_end = t1 + sec2ns(cfg.warmup);
					/* fall through */
				case PH_WARM:
					if (t1 >= warm_end) {
						phase = PH_MEAS;
						a->t_start = t1;
						t_end = t1 + sec2ns(cfg.duration);
						send_end = cfg.count ? 0 : t_end;
					}
					break;
				case PH_MEAS:
					if (!cfg.count && t1 >= t_end) {
						a->t_stop = t1;
						a->measured = true;
						goto out;
					}
					add_sample(a, t1 - ps[k].t0);
					done_rt++;
					if (cfg.count && done_rt >= cfg.count) {
						a->t_stop = t1;
						a->measured = true;
						goto out;
					}
					break;
				}
				if (stopping())
					goto out;
				if (ping_send(a, k, &ps[k], buf, &enobufs, &eagain,
					      send_end) < 0)
					goto out;
			}
		}
		now = now_ns();
		beat(now);
		if (stopping())
			break;
		if (phase == PH_MEAS && !cfg.count && now >= t_end) {
			a->t_stop = now;	/* window closed while waiting */
			a->measured = true;
			break;
		}
		wake = now + IDLE_SLICE;
		for (k = 0; k < cfg.sockets; k++) {
			if (now >= ps[k].deadline) {
				char c[40];

				a->lost++;
				if (++lost_row >= 3 || phase == PH_FIRST) {
					client_name(c, sizeof(c), a->idx, k);
					fail("%s: no echo within %.1f s (%d in a row%s)",
					     c, cfg.timeout, lost_row,
					     phase == PH_FIRST ? ", first message" : "");
					goto out;
				}
				if (ping_send(a, k, &ps[k], buf, &enobufs, &eagain,
					      send_end) < 0)
					goto out;
			}
			if (ps[k].deadline < wake)
				wake = ps[k].deadline;
		}
		if (send_end && send_end < wake)
			wake = send_end;
		now = now_ns();
		ns = wake > now ? wake - now : 0;
		ts.tv_sec = (time_t)(ns / NSEC);
		ts.tv_nsec = (long)(ns % NSEC);
		ppoll(pfd, (nfds_t)cfg.sockets, &ts, NULL);
	}
out:
	for (k = 0; k < cfg.sockets; k++)
		sent += ps[k].seq;
	atomic_store_explicit(&st->msgs, sent, memory_order_relaxed);
	atomic_store(&st->done, 1);
	free(buf);
	free(rbuf);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted samples, in µs. */
static double pct_us(const uint64_t *s, size_t n, double q)
{
	size_t rank;

	if (!n)
		return 0;
	rank = (size_t)(q * (double)n);
	if ((double)rank < q * (double)n)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return (double)s[rank - 1] / 1e3;
}

void ping_summarize(struct active_arg *args, int n)
{
	struct pp_result res = { 0 };
	size_t total = 0, k = 0;
	uint64_t *all;
	double sum = 0;
	int i, measured = 0;

	for (i = 0; i < n; i++) {
		total += args[i].nsamples;
		res.lost += args[i].lost;
		res.stale += args[i].stale;
		res.bad_len += args[i].bad_len;
		res.bad_data += args[i].bad_data;
		if (active_rate(&args[i], args[i].nsamples, &res.rate,
				&res.elapsed))
			measured++;
	}
	all = xmalloc(total * sizeof(*all));
	for (i = 0; i < n; i++) {
		memcpy(all + k, args[i].samples, args[i].nsamples * sizeof(*all));
		k += args[i].nsamples;
	}
	qsort(all, total, sizeof(*all), cmp_u64);
	for (k = 0; k < total; k++)
		sum += (double)all[k];
	res.rtts = total;
	if (total) {
		res.p50 = pct_us(all, total, 0.50);
		res.p99 = pct_us(all, total, 0.99);
		res.p999 = pct_us(all, total, 0.999);
		res.min = (double)all[0] / 1e3;
		res.max = (double)all[total - 1] / 1e3;
		res.mean = sum / (double)total / 1e3;
	}
	res.valid = measured == n;
	shm->pp = res;
	free(all);
}
