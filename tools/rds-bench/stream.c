// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rds-bench: stream.
 */
#include "bench.h"


/*
 * Which of our sending sockets has this source address (-1: none); socket
 * k of sender i is number i * cfg.sockets + k.  If the address is not one
 * of theirs but the header names a socket, trust the header (so the run
 * goes on) and flag the address as wrong.
 */
static int sender_of(const struct sockaddr_in *from, const uint8_t *buf,
		     ssize_t n, bool *addr_bad)
{
	int k, nsock = cfg.threads * cfg.sockets;
	struct msg_hdr h;

	*addr_bad = false;
	if (from->sin_addr.s_addr == cfg.saddr.s_addr)
		for (k = 0; k < nsock; k++)
			if (shm->sock_port[k] == ntohs(from->sin_port))
				return k;
	*addr_bad = true;
	if (n >= (ssize_t)sizeof(h)) {
		memcpy(&h, buf, sizeof(h));
		if (h.magic == HDR_MAGIC && h.idx < (uint32_t)nsock)
			return (int)h.idx;
	}
	return -1;
}

/*
 * The sources the receiver has seen, by address and port.  With --sockets
 * there may be thousands of them, and every message looks its source up:
 * an open-addressed table, at most half full, keeps that one probe or two
 * where a linear search would cost more than receiving the message.
 */
struct src_table {
	struct src_state *slot;
	uint32_t mask;		/* slots - 1, slots a power of two */
	int n, max;		/* sources held, and at most */
};

static void src_init(struct src_table *t)
{
	/* every sending socket twice over (strays too), and never less
	 * than the 2 x MAX_THREADS there was room for before --sockets */
	int max = 2 * (cfg.threads * cfg.sockets > MAX_THREADS ?
		       cfg.threads * cfg.sockets : MAX_THREADS);
	uint32_t slots = 16;

	while (slots < 2u * (uint32_t)max)
		slots *= 2;
	t->slot = xmalloc(slots * sizeof(*t->slot));
	memset(t->slot, 0, slots * sizeof(*t->slot));
	t->mask = slots - 1;
	t->n = 0;
	t->max = max;
}

/* The source of a message, added if new; NULL when the table is full. */
static struct src_state *src_find(struct src_table *t,
				  const struct sockaddr_in *from,
				  const uint8_t *buf, ssize_t n)
{
	uint32_t h = ((uint32_t)ntohs(from->sin_port) * 0x9e3779b1u) ^
		     ntohl(from->sin_addr.s_addr);
	uint32_t i = (h ^ (h >> 16)) & t->mask;
	struct src_state *sp;

	for (;; i = (i + 1) & t->mask) {
		sp = &t->slot[i];
		if (!sp->used)
			break;
		if (sp->port == from->sin_port &&
		    sp->addr == from->sin_addr.s_addr)
			return sp;
	}
	if (t->n >= t->max)
		return NULL;
	t->n++;
	sp->used = true;
	sp->addr = from->sin_addr.s_addr;
	sp->port = from->sin_port;
	sp->sidx = sender_of(from, buf, n, &sp->addr_bad);
	sp->next = 0;
	return sp;
}

/*
 * The receiver owns the measurement: the window opens `warmup` seconds
 * after the first message arrives and closes `duration` seconds later (or
 * after `count` good messages).  Only messages that pass check_msg() and
 * arrive inside the window count.
 */
void stream_receiver(int fd)
{
	uint8_t *buf = xmalloc((size_t)cfg.size + 1);
	struct src_table src;
	/* what came from each sender, all its sockets together */
	uint64_t got_m[MAX_THREADS] = { 0 }, got_b[MAX_THREADS] = { 0 };
	struct rx_result res = { 0 };
	uint64_t t0 = now_ns();
	uint64_t first_deadline = t0 + sec2ns(cfg.timeout);
	uint64_t warm_end = 0, t_start = 0, t_end = 0, t_stop = 0;
	uint64_t last_rx = t0, timeout = sec2ns(cfg.timeout), last_beat = t0;
	int phase = PH_FIRST;
	bool done = false;

	src_init(&src);
	beat(t0);
	while (!done) {
		struct sockaddr_in from = { 0 };
		int mflags = 0;
		ssize_t n;
		uint64_t now, wake;

		if (stopping())
			break;
		n = recv_one(fd, buf, (size_t)cfg.size + 1, &from, &mflags);
		now = now_ns();
		if (n >= 0) {
			uint64_t seq = 0;
			bool has_seq;
			int v = check_msg(buf, n, mflags, &seq, &has_seq);
			struct src_state *sp = src_find(&src, &from, buf, n);

			last_rx = now;
			if (sp && sp->addr_bad)
				res.bad_addr++;
			if (sp && sp->sidx >= 0) {
				/* feeds the senders' in-flight window */
				int th = sp->sidx / cfg.sockets;
				struct rx_seen *rs = &shm->seen[th];

				got_m[th]++;
				got_b[th] += cfg.size;
				atomic_store_explicit(&rs->msgs, got_m[th],
						      memory_order_relaxed);
				atomic_store_explicit(&rs->bytes, got_b[th],
						      memory_order_relaxed);
			}
			if (!sp || sp->sidx < 0) {
				res.unknown_src++;
				if (v == V_OK)
					v = V_DATA;
			} else if (v == V_LEN) {
				res.bad_len++;
			} else if (v == V_DATA) {
				res.bad_data++;
			} else if (has_seq) {
				if (seq != sp->next)
					res.seq_err++;
				sp->next = seq + 1;
			}

			switch (phase) {
			case PH_FIRST:
				phase = PH_WARM;
				warm_end = now + sec2ns(cfg.warmup);
				if (now >= warm_end) {
					phase = PH_MEAS;
					t_start = now;
					t_end = t_start + sec2ns(cfg.duration);
				}
				break;
			case PH_WARM:
				if (now >= warm_end) {
					phase = PH_MEAS;
					t_start = now;
					t_end = t_start + sec2ns(cfg.duration);
				}
				break;
			case PH_MEAS:
				if (!cfg.count && now >= t_end) {
					t_stop = now;
					done = true;
					break;
				}
				if (v == V_OK) {
					res.msgs++;
					res.bytes += (uint64_t)n;
				}
				if (cfg.count && res.msgs >= cfg.count) {
					t_stop = now;
					done = true;
				}
				break;
			}
			if (now - last_beat >= 20 * MSEC) {
				beat(now);
				last_beat = now;
			}
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			char m[300];

			describe(m, sizeof(m), "receiver: recvmsg", errno, NULL);
			fail("%s", m);
			break;
		}

		/* Nothing queued: move the clock on, then wait. */
		beat(now);
		if (phase == PH_FIRST && now >= first_deadline) {
			fail("receiver: no message arrived within %.1f s of the start "
			     "(see the senders' errors above, if any)", cfg.timeout);
			break;
		}
		if (phase == PH_WARM && now >= warm_end) {
			phase = PH_MEAS;
			t_start = now;
			t_end = t_start + sec2ns(cfg.duration);
		}
		if (phase == PH_MEAS && !cfg.count && now >= t_end) {
			t_stop = now;
			break;
		}
		if (phase != PH_FIRST && now - last_rx >= timeout) {
			fail("receiver: traffic stalled: no message for %.1f s "
			     "(%" PRIu64 " counted so far)", cfg.timeout, res.msgs);
			break;
		}
		wake = now + IDLE_SLICE;
		if (phase == PH_FIRST && first_deadline < wake)
			wake = first_deadline;
		if (phase == PH_WARM && warm_end < wake)
			wake = warm_end;
		if (phase == PH_MEAS && !cfg.count && t_end < wake)
			wake = t_end;
		if (last_rx + timeout < wake)
			wake = last_rx + timeout;
		wait_fd(fd, POLLIN, wake > now ? wake - now : 0);
	}
	if (t_stop) {
		res.elapsed = (double)(t_stop - t_start) / 1e9;
		res.valid = 1;
	}
	shm->rx = res;
	atomic_store(&shm->stop, 1);	/* tell the senders */
	free(src.slot);
	free(buf);
}


/*
 * In-flight window of one sender: is more than its share of
 * --max-inflight(-msgs) sent but not yet received?  *rm / *rb cache what
 * the receiver last reported; they only grow, so a cached "not full" is
 * always right and the shared counters are read only near the limit.
 */
static bool window_full(int idx, uint64_t sent, uint64_t sent_bytes,
			uint64_t *rm, uint64_t *rb)
{
	uint64_t lim_m = cfg.max_inflight_msgs / (uint64_t)cfg.threads;
	uint64_t lim_b = cfg.max_inflight / (uint64_t)cfg.threads;
	int pass;

	if (lim_m < 1 && cfg.max_inflight_msgs)
		lim_m = 1;
	if (lim_b < cfg.size && cfg.max_inflight)
		lim_b = cfg.size;
	for (pass = 0; pass < 2; pass++) {
		bool full = false;

		if (*rm < sent) {	/* something in flight */
			if (lim_m && sent - *rm >= lim_m)
				full = true;
			if (lim_b && sent_bytes - *rb + cfg.size > lim_b)
				full = true;
		}
		if (!full)
			return false;
		if (pass == 0) {
			*rm = atomic_load_explicit(&shm->seen[idx].msgs,
						   memory_order_relaxed);
			*rb = atomic_load_explicit(&shm->seen[idx].bytes,
						   memory_order_relaxed);
		}
	}
	return true;
}

/*
 * --zerocopy: a sender's buffers, each lent to the kernel from its send
 * until its completion comes back (the cookie is the buffer's number).
 */
struct zc_pool {
	uint8_t *bufs;
	uint32_t *free;		/* numbers of the buffers not lent */
	int nfree, n;
};

/* As many buffers as keep 16 MiB in flight, 2 to 64 of them. */
static void zc_pool_init(struct zc_pool *p)
{
	int i;

	p->n = (int)((16u << 20) / cfg.size);
	p->n = p->n < 2 ? 2 : p->n > 64 ? 64 : p->n;
	p->bufs = xmalloc((size_t)p->n * cfg.size);
	p->free = xmalloc((size_t)p->n * sizeof(*p->free));
	for (i = 0; i < p->n; i++) {
		memcpy(p->bufs + (size_t)i * cfg.size, pattern, cfg.size);
		p->free[i] = (uint32_t)i;
	}
	p->nfree = p->n;
}

/*
 * A free buffer of @p, reaping the completions of @a's sockets until one
 * is (each wait counted in *@waits, as the window's); NULL when the run
 * stops or a socket fails (reported).
 */
static uint8_t *zc_take(struct zc_pool *p, struct active_arg *a, int k,
			uint32_t *cookie, uint64_t *waits)
{
	uint32_t got[64 + RDS_MAX_ZCOOKIES];
	int i, j, r;

	while (!p->nfree && !stopping()) {
		for (i = 0; i < cfg.sockets; i++) {
			r = zc_reap(a->fds[i], got, (int)(sizeof(got) / sizeof(got[0])));
			if (r < 0) {
				char m[300];

				describe(m, sizeof(m), "sender: reading zero-copy completions",
					 -r, r == -EPROTO ? "a sending socket got something "
					 "else than RDS_CMSG_ZCOPY_COMPLETION" : NULL);
				fail("%s", m);
				return NULL;
			}
			for (j = 0; j < r; j++) {
				if (got[j] >= (uint32_t)p->n || p->nfree == p->n) {
					fail("sender: zero-copy completion of cookie %u, "
					     "which no buffer in flight has", got[j]);
					return NULL;
				}
				p->free[p->nfree++] = got[j];
			}
		}
		if (!p->nfree) {
			atomic_store_explicit(&shm->snd[a->idx].waits, ++*waits,
					      memory_order_relaxed);
			wait_fd(a->fds[k], POLLIN, MSEC);
		}
	}
	if (!p->nfree)
		return NULL;
	*cookie = p->free[--p->nfree];
	return p->bufs + (size_t)*cookie * cfg.size;
}

/*
 * One sender: its cfg.sockets sockets take turns, one message each, every
 * socket with its own sequence; the in-flight window counts them together.
 */
void *stream_sender(void *argp)
{
	struct active_arg *a = argp;
	struct end_stats *st = &shm->snd[a->idx];
	uint8_t *own = xmalloc(cfg.size), *buf = own;
	uint64_t seq[MAX_SOCKETS] = { 0 };
	uint64_t sent = 0, bytes = 0, enobufs = 0, eagain = 0, waits = 0;
	uint64_t rx_m = 0, rx_b = 0;
	struct zc_pool zc = { 0 };
	uint32_t cookie = 0;
	int k = 0;

	memcpy(own, pattern, cfg.size);
	if (cfg.zerocopy)
		zc_pool_init(&zc);
	if (wait_go()) {
		while (!stopping()) {
			int r;

			if (window_full(a->idx, sent, bytes, &rx_m, &rx_b)) {
				atomic_store_explicit(&st->waits, ++waits,
						      memory_order_relaxed);
				do
					sleep_ns(20000);
				while (!stopping() &&
				       window_full(a->idx, sent, bytes, &rx_m, &rx_b));
				continue;
			}
			if (cfg.zerocopy) {
				buf = zc_take(&zc, a, k, &cookie, &waits);
				if (!buf)
					break;
			}
			put_hdr(buf, seq[k], (uint32_t)(a->idx * cfg.sockets + k));
			if (cfg.zerocopy)
				r = send_msg_zc(a->fds[k], buf, cfg.size, &a->dst, st,
						&enobufs, &eagain, cookie);
			else
				r = send_msg(a->fds[k], buf, cfg.size, &a->dst, st,
					     &enobufs, &eagain, 0);
			if (r > 0)
				break;
			if (r < 0) {
				char m[400], w[64];

				if (cfg.sockets > 1)
					snprintf(w, sizeof(w), "sender %d, socket %d: "
						 "sendto(%u bytes)", a->idx, k, cfg.size);
				else
					snprintf(w, sizeof(w), "sender %d: sendto(%u bytes)",
						 a->idx, cfg.size);
				describe(m, sizeof(m), w, -r, send_hint(-r));
				fail("%s", m);
				break;
			}
			seq[k]++;
			if (++k == cfg.sockets)
				k = 0;
			sent++;
			bytes += cfg.size;
			atomic_store_explicit(&st->msgs, sent, memory_order_relaxed);
			atomic_store_explicit(&st->bytes, bytes, memory_order_relaxed);
		}
	}
	atomic_store(&st->done, 1);
	/* lent buffers stay referenced by the kernel, not by this memory */
	free(zc.bufs);
	free(zc.free);
	free(own);
	return NULL;
}
