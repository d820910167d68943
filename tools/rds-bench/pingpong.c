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

/*
 * One client: send, wait for the echo, repeat.  The first round trip
 * (connection setup) and `warmup` seconds after it are not measured.  A
 * reply that doesn't come within --timeout counts as lost; the client then
 * moves on (a late echo with an old sequence number counts as stale).
 */
void *ping_client(void *argp)
{
	struct active_arg *a = argp;
	struct end_stats *st = &shm->snd[a->idx];
	uint8_t *buf = xmalloc(cfg.size);
	uint8_t *rbuf = xmalloc((size_t)cfg.size + 1);
	uint64_t seq = 0, enobufs = 0, eagain = 0, done_rt = 0;
	uint64_t timeout = sec2ns(cfg.timeout);
	uint64_t warm_end = 0, t_end = 0;
	int phase = PH_FIRST, lost_row = 0;

	memcpy(buf, pattern, cfg.size);
	if (!wait_go())
		goto out;
	beat(now_ns());
	while (!stopping()) {
		uint64_t t0, t1 = 0, deadline;
		bool got = false;
		int r;

		seq++;
		put_hdr(buf, seq, (uint32_t)a->idx);
		t0 = now_ns();
		deadline = t0 + timeout;
		if (phase == PH_MEAS && !cfg.count && t_end < deadline)
			deadline = t_end;
		r = send_msg(a->fd, buf, cfg.size, &a->dst, st, &enobufs,
			     &eagain, deadline);
		if (r < 0) {
			char m[400], w[64];

			snprintf(w, sizeof(w), "client %d: sendto(%u bytes)", a->idx,
				 cfg.size);
			describe(m, sizeof(m), w, -r, send_hint(-r));
			fail("%s", m);
			break;
		}
		while (r == 0) {
			struct sockaddr_in from = { 0 };
			int mflags;
			ssize_t n = recv_one(a->fd, rbuf, (size_t)cfg.size + 1,
					     &from, &mflags);
			uint64_t now;

			if (n >= 0) {
				uint64_t rs = 0;
				bool has_seq;
				int v = check_msg(rbuf, n, mflags, &rs, &has_seq);

				if (v == V_LEN) {
					a->bad_len++;
					continue;
				}
				if (v == V_DATA) {
					a->bad_data++;
					continue;
				}
				if (has_seq && rs != seq) {
					a->stale++;
					continue;
				}
				t1 = now_ns();
				got = true;
				break;
			}
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				char m[300], w[64];

				snprintf(w, sizeof(w), "client %d: recvmsg", a->idx);
				describe(m, sizeof(m), w, errno, NULL);
				fail("%s", m);
				goto out;
			}
			now = now_ns();
			beat(now);
			if (now >= deadline || stopping())
				break;
			wait_fd(a->fd, POLLIN,
				deadline - now < IDLE_SLICE ? deadline - now : IDLE_SLICE);
		}
		if (stopping())
			break;
		if (!got) {
			uint64_t now = now_ns();

			if (phase == PH_MEAS && !cfg.count && now >= t_end) {
				a->t_stop = now;	/* window closed while waiting */
				a->measured = true;
				break;
			}
			a->lost++;
			if (++lost_row >= 3 || phase == PH_FIRST) {
				fail("client %d: no echo within %.1f s (%d in a row%s)",
				     a->idx, cfg.timeout, lost_row,
				     phase == PH_FIRST ? ", first message" : "");
				break;
			}
			continue;
		}
		lost_row = 0;
		beat(t1);
		switch (phase) {
		case PH_FIRST:
			phase = PH_WARM;
			warm_end = t1 + sec2ns(cfg.warmup);
			if (t1 >= warm_end) {
				phase = PH_MEAS;
				a->t_start = t1;
				t_end = t1 + sec2ns(cfg.duration);
			}
			break;
		case PH_WARM:
			if (t1 >= warm_end) {
				phase = PH_MEAS;
				a->t_start = t1;
				t_end = t1 + sec2ns(cfg.duration);
			}
			break;
		case PH_MEAS:
			if (!cfg.count && t1 >= t_end) {
				a->t_stop = t1;
				a->measured = true;
				goto out;
			}
			add_sample(a, t1 - t0);
			done_rt++;
			if (cfg.count && done_rt >= cfg.count) {
				a->t_stop = t1;
				a->measured = true;
				goto out;
			}
			break;
		}
	}
out:
	atomic_store_explicit(&st->msgs, seq, memory_order_relaxed);
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
