// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rds-bench: reqresp.
 */
#include "bench.h"

/*
 * The transaction rds-stress measures (rds-stress -q 4096 -a 64 -D 65536
 * -d 4 -t 1).  Each client keeps cfg.window requests outstanding, one per
 * slot of its window, each slot with a cfg.rdma_size buffer of its own.
 * A request is a cfg.size message whose sendmsg() carries
 * RDS_CMSG_RDMA_MAP: the kernel registers the slot's buffer
 * (RDS_RDMA_USE_ONCE), writes the cookie into the slot and sends it along;
 * the server's recvmsg() returns it in an RDS_CMSG_RDMA_DEST control
 * message.  The server answers every request with a cfg.ack_size response
 * to the requesting socket, carrying RDS_CMSG_RDMA_ARGS on that cookie: an
 * RDMA write of cfg.rdma_size bytes of its own into the slot's buffer
 * (--rr-op read: a read of the slot's buffer into its own).  The operation
 * is done before its response is delivered, and the response's arrival
 * frees the use-once region, so a transaction -- request, RDMA, response
 * -- is over when the response comes.  The client counts it then, with
 * its round trip: from just before the request's sendmsg() to just after
 * the response's recvmsg(), queueing behind the rest of the window
 * included, as rds-stress reports it.
 *
 * The remote address is 0, not the client's virtual address: an RDMA
 * address counts from the region's first registered byte (rds_doca: user
 * address 0 is that byte; Linux RDS adds the byte's offset in its page,
 * which the cookie carries, to a zero-based mapping).
 *
 * --verify checks what every RDMA moved.  The bytes are derived from the
 * request (rr_fill()), so a missed, stale or damaged transfer shows: for
 * a write the server fills its source before responding and the client
 * checks its slot's buffer when the response comes; for a read the
 * client fills the slot's buffer before the request and the server checks
 * what it read when the operation's notice comes.  The server learns that
 * an operation is done only from its notice -- before which a read cannot
 * be checked, nor a write's source reused -- so --verify implies --notify,
 * and every operation in flight gets a server buffer of its own.
 */

#define RR_REQ_MAGIC		0x52445351u	/* "RDSQ" */
#define RR_ACK_MAGIC		0x52445341u	/* "RDSA" */
#define NOTICE_BATCH		64	/* notices one recvmsg() may return */
#define FINAL_NOTICES		(200 * MSEC)	/* the last ones, at most */

/* The i-th 8-byte word an RDMA for request seq of client idx moves. */
static inline uint64_t rr_word(uint64_t seq, uint32_t idx, size_t i)
{
	/* an odd multiplier keeps every (seq, idx) apart */
	return ((seq << 8 | idx) + 1) * 0x9e3779b97f4a7c15ull +
	       (uint64_t)i * 0xc2b2ae3d27d4eb4full;
}

static void rr_fill(uint8_t *buf, size_t len, uint64_t seq, uint32_t idx)
{
	size_t i;

	for (i = 0; i * 8 < len; i++) {
		uint64_t w = rr_word(seq, idx, i);

		memcpy(buf + i * 8, &w, len - i * 8 < 8 ? len - i * 8 : 8);
	}
}

static bool rr_check(const uint8_t *buf, size_t len, uint64_t seq,
		     uint32_t idx)
{
	size_t i;

	for (i = 0; i * 8 < len; i++) {
		uint64_t w = rr_word(seq, idx, i);

		if (memcmp(buf + i * 8, &w, len - i * 8 < 8 ? len - i * 8 : 8))
			return false;
	}
	return true;
}

static bool rr_notify(void)
{
	return cfg.notify || cfg.verify;
}

/*
 * --verify: the server's buffer of one operation in flight, given back
 * by the operation's notice.  Each is allocated on its own, so that the
 * iovec naming it stays put while the pool grows (the kernel reads it
 * only in sendmsg(), fake-rds.so again for a read's notice).
 */
struct rr_buf {
	uint8_t *buf;
	struct rds_iovec lv;
	uint64_t seq;
	uint32_t idx;
	bool busy;
};

struct rr_pool {
	struct rr_buf **b;
	uint32_t *free;
	uint32_t n, cap, nfree;
};

/* A free buffer, its index in *token; NULL if out of memory. */
static struct rr_buf *rr_pool_get(struct rr_pool *pool, uint32_t *token)
{
	struct rr_buf *b;
	void *p = NULL;

	if (!pool->nfree) {
		if (pool->n == pool->cap) {
			uint32_t nc = pool->cap ? pool->cap * 2 : 16;
			struct rr_buf **nb = realloc(pool->b, nc * sizeof(*nb));
			uint32_t *nf;

			if (!nb)
				return NULL;
			pool->b = nb;
			nf = realloc(pool->free, nc * sizeof(*nf));
			if (!nf)
				return NULL;
			pool->free = nf;
			pool->cap = nc;
		}
		b = calloc(1, sizeof(*b));
		if (!b || posix_memalign(&p, REGION_ALIGN, cfg.rdma_size)) {
			free(b);
			return NULL;
		}
		b->buf = p;
		b->lv.addr = (uintptr_t)p;
		b->lv.bytes = cfg.rdma_size;
		pool->b[pool->n] = b;
		pool->free[pool->nfree++] = pool->n++;
	}
	*token = pool->free[--pool->nfree];
	b = pool->b[*token];
	b->busy = true;
	return b;
}

/* Free the pool; buffers still busy may still be written: kept. */
static void rr_pool_free(struct rr_pool *pool)
{
	uint32_t i;

	for (i = 0; i < pool->n; i++) {
		if (pool->b[i]->busy)
			continue;
		free(pool->b[i]->buf);
		free(pool->b[i]);
	}
	free(pool->b);
	free(pool->free);
}

/*
 * One recvmsg() on the server's socket: a request (its length, and the
 * cookie it brought in *cookie, *has_cookie true) or notices (0, *nn of
 * them in nv; RDS returns notices before any message, alone).  -1 with
 * errno as recvmsg() left it.
 */
static ssize_t rr_recv(int fd, uint8_t *buf, size_t cap,
		       struct sockaddr_in *from, int *mflags, uint64_t *cookie,
		       bool *has_cookie, struct rds_rdma_notify *nv, int *nn)
{
	union {
		struct cmsghdr align;
		char buf[NOTICE_BATCH * CMSG_SPACE(sizeof(struct rds_rdma_notify)) +
			 CMSG_SPACE(sizeof(uint64_t))];
	} cbuf;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr mh = {
		.msg_name = from,
		.msg_namelen = sizeof(*from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf.buf,
		.msg_controllen = sizeof(cbuf.buf),
	};
	struct cmsghdr *cm;
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

	*nn = 0;
	*has_cookie = false;
	if (n < 0)
		return n;
	*mflags = mh.msg_flags;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_RDS)
			continue;
		if (cm->cmsg_type == RDS_CMSG_RDMA_STATUS &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(*nv)) && *nn < NOTICE_BATCH) {
			memcpy(&nv[(*nn)++], CMSG_DATA(cm), sizeof(*nv));
		} else if (cm->cmsg_type == RDS_CMSG_RDMA_DEST &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(*cookie))) {
			memcpy(cookie, CMSG_DATA(cm), sizeof(*cookie));
			*has_cookie = true;
		}
	}
	return n;
}

/*
 * Count the server's notices; with --verify, check what each read
 * fetched and give its buffer back.  False (the run failed) for a notice
 * of an operation never posted.
 */
static bool rr_notices(struct rr_result *res, struct rr_pool *pool,
		       const struct rds_rdma_notify *nv, int nn)
{
	int j;

	for (j = 0; j < nn; j++) {
		uint64_t tok = nv[j].user_token;
		struct rr_buf *b = NULL;

		res->notices++;
		if (cfg.verify) {
			if (tok >= pool->n || !pool->b[tok]->busy) {
				fail("server: a notice for an operation never posted "
				     "(user_token %#" PRIx64 ")", tok);
				return false;
			}
			b = pool->b[tok];
		}
		if (nv[j].status != RDS_RDMA_SUCCESS) {
			/* the first is named, the others counted */
			if (!res->rdma_failed++) {
				if (b)
					fprintf(stderr, PROG ": server: the RDMA %s "
						"for request %" PRIu64 " of client %u "
						"completed with status %d (%s)\n",
						cfg.rr_read ? "read" : "write", b->seq,
						b->idx, nv[j].status,
						rds_doca_status_name(nv[j].status));
				else
					fprintf(stderr, PROG ": server: an RDMA %s "
						"completed with status %d (%s)\n",
						cfg.rr_read ? "read" : "write",
						nv[j].status,
						rds_doca_status_name(nv[j].status));
			}
		} else if (b && cfg.rr_read &&
			   !rr_check(b->buf, cfg.rdma_size, b->seq, b->idx)) {
			res->rdma_bad++;
		}
		if (b) {
			b->busy = false;
			pool->free[pool->nfree++] = (uint32_t)tok;
		}
	}
	return true;
}

/*
 * Answer request rq from to: cfg.ack_size bytes (ack holds them), with
 * the RDMA on *cookie (none without a cookie) from or into lv.  Retries
 * as send_msg() does; returns 0, 1 (the run is stopping) or -errno.
 */
static int rr_respond(int fd, struct sockaddr_in *to, uint8_t *ack,
		      const struct rr_hdr *rq, const uint64_t *cookie,
		      const struct rds_iovec *lv, uint64_t token,
		      uint64_t *enobufs, uint64_t *eagain)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct rds_rdma_args))];
	} cbuf;
	struct rr_hdr h = {
		.seq = rq->seq,
		.magic = RR_ACK_MAGIC,
		.idx = rq->idx,
		.slot = rq->slot,
	};
	struct iovec iov = { .iov_base = ack, .iov_len = cfg.ack_size };
	struct msghdr mh = {
		.msg_name = to,
		.msg_namelen = sizeof(*to),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	struct end_stats *st = &shm->srv;
	int flags = cfg.blocking ? 0 : MSG_DONTWAIT;

	memcpy(ack, &h, sizeof(h));
	if (cookie) {
		struct rds_rdma_args ra = {
			.cookie = *cookie,
			.remote_vec = { .addr = 0, .bytes = cfg.rdma_size },
			.local_vec_addr = (uintptr_t)lv,
			.nr_local = 1,
			.flags = (cfg.rr_read ? 0 : RDS_RDMA_READWRITE) |
				 (rr_notify() ? RDS_RDMA_NOTIFY_ME : 0),
			.user_token = token,
		};
		struct cmsghdr *cm;

		memset(&cbuf, 0, sizeof(cbuf));
		cm = (struct cmsghdr *)cbuf.buf;
		cm->cmsg_level = SOL_RDS;
		cm->cmsg_type = RDS_CMSG_RDMA_ARGS;
		cm->cmsg_len = CMSG_LEN(sizeof(ra));
		memcpy(CMSG_DATA(cm), &ra, sizeof(ra));
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(ra));
	}
	for (;;) {
		ssize_t n = sendmsg(fd, &mh, flags);
		int e;

		if (n == (ssize_t)cfg.ack_size)
			return 0;
		if (n >= 0)
			return -EIO;
		e = errno;
		if (stopping())
			return 1;
		switch (e) {
		case ENOBUFS:
			/* the client's port is congested */
			(*enobufs)++;
			atomic_store_explicit(&st->enobufs, *enobufs,
					      memory_order_relaxed);
			wait_fd(fd, POLLWRBAND, cfg.retry_us * 1000ull);
			break;
		case EAGAIN:
		case ETIMEDOUT:
			/*
			 * Our send buffer is full, or (rds_doca, with a
			 * notice owed) our receive buffer has no room for
			 * the notice, which poll() does not report: retry.
			 */
			(*eagain)++;
			atomic_store_explicit(&st->eagain, *eagain,
					      memory_order_relaxed);
			wait_fd(fd, POLLOUT, 10 * MSEC);
			break;
		case EINTR:
			break;
		default:
			return -e;
		}
	}
}

/*
 * Server: answer every request with its RDMA and response until the run
 * ends; count and check the requests and, with notices, the operations.
 */
void rr_server(int fd)
{
	struct rr_result res = { 0 };
	struct rr_pool pool = { 0 };
	struct rds_rdma_notify nv[NOTICE_BATCH];
	struct rds_iovec lv = { 0 };
	uint64_t next[MAX_THREADS] = { 0 };
	uint64_t enobufs = 0, eagain = 0, deadline;
	size_t cap = (size_t)cfg.size + 1;
	uint8_t *buf = xmalloc(cap);
	uint8_t *ack = xmalloc(cfg.ack_size);
	uint8_t *src = NULL;
	void *p = NULL;

	memcpy(ack, pattern, cfg.ack_size);
	if (!cfg.verify) {
		/* one buffer for every operation: nothing looks at it */
		if (posix_memalign(&p, REGION_ALIGN, cfg.rdma_size)) {
			fail("server: out of memory for a %u-byte buffer",
			     cfg.rdma_size);
			goto out;
		}
		src = p;
		rr_fill(src, cfg.rdma_size, 0, 0);
		lv.addr = (uintptr_t)src;
		lv.bytes = cfg.rdma_size;
	}
	while (!stopping()) {
		struct sockaddr_in from = { 0 };
		struct rr_hdr rq;
		struct rr_buf *b = NULL;
		const struct rds_iovec *v = &lv;
		uint64_t cookie = 0, token = res.responses;
		uint32_t t;
		bool has_cookie;
		int mflags = 0, nn, k, r;
		ssize_t n = rr_recv(fd, buf, cap, &from, &mflags, &cookie,
				    &has_cookie, nv, &nn);

		if (n < 0) {
			char m[300];

			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				wait_fd(fd, POLLIN, IDLE_SLICE);
				continue;
			}
			if (errno == EINTR)
				continue;
			describe(m, sizeof(m), "server: recvmsg", errno, NULL);
			fail("%s", m);
			break;
		}
		if (nn) {
			if (!rr_notices(&res, &pool, nv, nn))
				break;
			continue;
		}
		res.requests++;
		k = initiator_of(&from);
		if (k < 0) {
			res.unknown_src++;
			continue;
		}
		from.sin_family = AF_INET;	/* the reply goes there */
		if (n != (ssize_t)cfg.size || (mflags & MSG_TRUNC))
			res.bad_len++;
		/* without its header a request cannot be answered */
		if (n < (ssize_t)sizeof(rq))
			continue;
		memcpy(&rq, buf, sizeof(rq));
		if (rq.magic != RR_REQ_MAGIC || rq.idx != k) {
			res.bad_data++;
			continue;
		}
		if (cfg.verify && n == (ssize_t)cfg.size &&
		    memcmp(buf + sizeof(rq), pattern + sizeof(rq),
			   cfg.size - sizeof(rq)))
			res.bad_data++;
		if (rq.seq != next[k])
			res.seq_err++;
		next[k] = rq.seq + 1;
		if (!has_cookie)
			res.no_cookie++;	/* answered without RDMA */
		if (has_cookie && cfg.verify) {
			b = rr_pool_get(&pool, &t);
			if (!b) {
				fail("server: out of memory for %u-byte buffers",
				     cfg.rdma_size);
				break;
			}
			b->seq = rq.seq;
			b->idx = rq.idx;
			if (!cfg.rr_read)
				rr_fill(b->buf, cfg.rdma_size, rq.seq, rq.idx);
			v = &b->lv;
			token = t;
		}
		r = rr_respond(fd, &from, ack, &rq, has_cookie ? &cookie : NULL,
			       v, token, &enobufs, &eagain);
		if (r > 0)
			break;
		if (r < 0) {
			char m[400];

			describe(m, sizeof(m), has_cookie ?
				 "server: sendmsg(RDS_CMSG_RDMA_ARGS)" :
				 "server: sendmsg", -r,
				 no_rdma_errno(-r) ? rdma_hint(-r) : send_hint(-r));
			if (no_rdma_errno(-r) && !res.responses)
				rdma_unsupported(m);
			else
				fail("%s", m);
			break;
		}
		res.responses++;
		atomic_store_explicit(&shm->srv.msgs, res.responses,
				      memory_order_relaxed);
	}
	/*
	 * Every client has its last response (the run ends when they all
	 * are done), so the notices of the last operations are queued or
	 * about to be: take them, for a moment at most.
	 */
	deadline = now_ns() + FINAL_NOTICES;
	while (rr_notify() && !atomic_load(&shm->failed) &&
	       !atomic_load(&shm->unsupported) && res.notices < res.responses &&
	       now_ns() < deadline) {
		struct sockaddr_in from;
		uint64_t cookie;
		bool has_cookie;
		int mflags, nn;
		ssize_t n = rr_recv(fd, buf, cap, &from, &mflags, &cookie,
				    &has_cookie, nv, &nn);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			wait_fd(fd, POLLIN, 10 * MSEC);
		else if (n < 0 && errno != EINTR)
			break;
		else if (n >= 0 && nn && !rr_notices(&res, &pool, nv, nn))
			break;
	}
	shm->rr = res;
out:
	/* after a failure, operations may still be running on them */
	if (!atomic_load(&shm->failed)) {
		free(src);
		rr_pool_free(&pool);
	}
	free(buf);
	free(ack);
	atomic_store(&shm->srv.done, 1);
}

/* A client's slot: one request outstanding at most. */
struct rr_slot {
	uint8_t *buf;		/* cfg.rdma_size, registered by each request */
	uint64_t seq, t0;
	uint64_t cookie;	/* written by the kernel in sendmsg() */
	bool busy;
};

/*
 * Send request seq from slot: cfg.size bytes (req holds them) mapping the
 * slot's buffer for one operation.  Returns 0, or -errno (EAGAIN and
 * ENOBUFS: try again later).
 */
static int rr_request(struct active_arg *a, uint8_t *req, struct rr_slot *s,
		      uint32_t slot, uint64_t seq)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct rds_get_mr_args))];
	} cbuf;
	struct rr_hdr h = {
		.seq = seq,
		.magic = RR_REQ_MAGIC,
		.idx = (uint16_t)a->idx,
		.slot = (uint16_t)slot,
	};
	/* use-once: the response that used the region frees it */
	struct rds_get_mr_args mr = {
		.vec = { .addr = (uintptr_t)s->buf, .bytes = cfg.rdma_size },
		.cookie_addr = (uintptr_t)&s->cookie,
		.flags = RDS_RDMA_USE_ONCE,
	};
	struct iovec iov = { .iov_base = req, .iov_len = cfg.size };
	struct msghdr mh = {
		.msg_name = &a->dst,
		.msg_namelen = sizeof(a->dst),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf.buf,
		.msg_controllen = CMSG_SPACE(sizeof(mr)),
	};
	struct cmsghdr *cm;
	ssize_t n;

	memcpy(req, &h, sizeof(h));
	memset(&cbuf, 0, sizeof(cbuf));
	cm = (struct cmsghdr *)cbuf.buf;
	cm->cmsg_level = SOL_RDS;
	cm->cmsg_type = RDS_CMSG_RDMA_MAP;
	cm->cmsg_len = CMSG_LEN(sizeof(mr));
	memcpy(CMSG_DATA(cm), &mr, sizeof(mr));
	n = sendmsg(a->fds[0], &mh, cfg.blocking ? 0 : MSG_DONTWAIT);
	if (n == (ssize_t)cfg.size)
		return 0;
	if (n >= 0)
		return -EIO;
	return errno == ETIMEDOUT ? -EAGAIN : -errno;
}

/*
 * One client: keep the window of requests full until its measurement is
 * over, then wait for the responses still outstanding.  Slot buffers are
 * left allocated if requests may still be outstanding when it gives up
 * (the server could still write them).
 */
void *rr_client(void *argp)
{
	struct active_arg *a = argp;
	struct end_stats *st = &shm->snd[a->idx];
	struct rr_slot *slots = NULL;
	uint32_t *free_slots = NULL, nfree = 0;
	uint8_t *req = xmalloc(cfg.size);
	uint8_t *rbuf = xmalloc((size_t)cfg.ack_size + 1);
	uint64_t seq = 0, inflight = 0, stray = 0;
	uint64_t timeout = sec2ns(cfg.timeout), last_done, last_beat;
	uint64_t warm_end = 0, t_end = 0;
	int phase = PH_FIRST;
	bool closing = false;
	uint32_t i;

	memcpy(req, pattern, cfg.size);
	if (!wait_go())
		goto out;
	slots = calloc(cfg.window, sizeof(*slots));
	free_slots = calloc(cfg.window, sizeof(*free_slots));
	if (!slots || !free_slots) {
		fail("client %d: out of memory", a->idx);
		goto out;
	}
	for (i = 0; i < cfg.window; i++) {
		void *p = NULL;

		if (posix_memalign(&p, REGION_ALIGN, cfg.rdma_size)) {
			fail("client %d: out of memory for %u buffers of %u bytes",
			     a->idx, cfg.window, cfg.rdma_size);
			goto out;
		}
		slots[i].buf = p;
		/* reads without --verify fetch whatever is there */
		memset(p, 0, cfg.rdma_size);
		free_slots[nfree++] = cfg.window - 1 - i;
	}
	last_done = last_beat = now_ns();
	beat(last_done);

	while (!stopping()) {
		bool progress = false;
		short wait_for = POLLIN;
		uint64_t wait_ns = IDLE_SLICE, now;
		unsigned got = 0;

		/* keep the window full */
		while (!closing && nfree) {
			uint32_t slot = free_slots[nfree - 1];
			struct rr_slot *s = &slots[slot];
			int r;

			if (cfg.verify && cfg.rr_read)
				rr_fill(s->buf, cfg.rdma_size, seq, (uint32_t)a->idx);
			s->t0 = now_ns();
			r = rr_request(a, req, s, slot, seq);
			if (!r) {
				s->seq = seq;
				s->busy = true;
				nfree--;
				seq++;
				inflight++;
				progress = true;
				continue;
			}
			if (r == -EAGAIN) {
				atomic_store_explicit(&st->eagain, ++a->eagain,
						      memory_order_relaxed);
				wait_for |= POLLOUT;
				wait_ns = 10 * MSEC;
			} else if (r == -ENOBUFS) {
				atomic_store_explicit(&st->enobufs, ++a->enobufs,
						      memory_order_relaxed);
				wait_for |= POLLWRBAND;
				wait_ns = cfg.retry_us * 1000ull;
			} else if (r != -EINTR) {
				char m[400], w[96];

				snprintf(w, sizeof(w), "client %d: sendmsg(%u bytes, "
					 "RDS_CMSG_RDMA_MAP of %u)", a->idx, cfg.size,
					 cfg.rdma_size);
				describe(m, sizeof(m), w, -r,
					 -r != EMSGSIZE && rdma_hint(-r) ?
					 rdma_hint(-r) : send_hint(-r));
				if (no_rdma_errno(-r) && !seq)
					rdma_unsupported(m);
				else
					fail("%s", m);
				goto out;
			}
			break;
		}
		a->issued = seq;
		atomic_store_explicit(&st->msgs, seq, memory_order_relaxed);

		/* take the responses that came, a window's worth at most */
		while (got < cfg.window) {
			struct sockaddr_in from = { 0 };
			int mflags = 0;
			ssize_t n = recv_one(a->fds[0], rbuf, (size_t)cfg.ack_size + 1,
					     &from, &mflags);
			struct rr_slot *s;
			struct rr_hdr h;

			if (n < 0) {
				char m[300], w[64];

				if (errno == EAGAIN || errno == EWOULDBLOCK)
					break;
				if (errno == EINTR)
					continue;
				snprintf(w, sizeof(w), "client %d: recvmsg", a->idx);
				describe(m, sizeof(m), w, errno, NULL);
				fail("%s", m);
				goto out;
			}
			got++;
			progress = true;
			if (!n && !(mflags & MSG_TRUNC)) {
				stray++;	/* a notice, or a congestion update */
				continue;
			}
			if (n != (ssize_t)cfg.ack_size || (mflags & MSG_TRUNC)) {
				a->bad_len++;
				continue;
			}
			memcpy(&h, rbuf, sizeof(h));
			if (h.magic != RR_ACK_MAGIC || h.idx != a->idx) {
				a->bad_data++;
				continue;
			}
			if (h.slot >= cfg.window || !slots[h.slot].busy ||
			    slots[h.slot].seq != h.seq) {
				a->stale++;	/* no request of ours waits for it */
				continue;
			}
			now = now_ns();
			s = &slots[h.slot];
			if (cfg.verify &&
			    memcmp(rbuf + sizeof(h), pattern + sizeof(h),
				   cfg.ack_size - sizeof(h)))
				a->bad_data++;
			if (cfg.verify && !cfg.rr_read &&
			    !rr_check(s->buf, cfg.rdma_size, h.seq, (uint32_t)a->idx))
				a->rdma_bad++;
			s->busy = false;
			free_slots[nfree++] = h.slot;
			inflight--;
			a->completed++;
			last_done = now;
			op_account(a, &phase, now, true, now - s->t0,
				   cfg.rdma_size, &warm_end, &t_end, &closing);
		}
		now = now_ns();
		if (now - last_beat >= 20 * MSEC || got) {
			beat(now);
			last_beat = now;
		}
		if (closing && !inflight)
			break;
		if (progress)
			continue;

		/* nothing to do: move the clock on, then wait */
		if (op_clock(a, &phase, now, warm_end, &t_end, &closing))
			continue;
		if (inflight && now - last_done >= timeout) {
			fail("client %d: no response for %.1f s (%" PRIu64
			     " requests outstanding, %" PRIu64 " answered%s)",
			     a->idx, cfg.timeout, inflight, a->completed,
			     phase == PH_FIRST ? ", none at all" : "");
			goto out;
		}
		if (phase == PH_WARM && warm_end - now < wait_ns)
			wait_ns = warm_end - now;
		if (phase == PH_MEAS && !cfg.count && !closing && t_end - now < wait_ns)
			wait_ns = t_end - now;
		if (inflight && last_done + timeout - now < wait_ns)
			wait_ns = last_done + timeout - now;
		wait_fd(a->fds[0], wait_for, wait_ns);
	}
	if (stray)
		fprintf(stderr, PROG ": client %d: %" PRIu64 " messages other "
			"than responses arrived (ignored)\n", a->idx, stray);
out:
	a->issued = seq;
	if (slots && !inflight)
		for (i = 0; i < cfg.window; i++)
			free(slots[i].buf);
	free(slots);
	free(free_slots);
	free(req);
	free(rbuf);
	atomic_store(&st->done, 1);
	return NULL;
}

/*
 * The clients' results: transactions and round trips as pingpong's
 * (shm->pp), counts as the RDMA modes' (shm->rd, whose bad_data is the
 * RDMA'd bytes found wrong; pp.bad_data counts bad responses).
 */
void rr_summarize(struct active_arg *args, int n)
{
	uint64_t bad = 0;
	int i;

	ping_summarize(args, n);
	rdma_summarize(args, n);
	for (i = 0; i < n; i++)
		bad += args[i].rdma_bad;
	shm->rd.bad_data = bad;
}
