// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rds-bench: rdma and atomic operations.
 */
#include "bench.h"

/*
 * The passive end, the target, registers a region with RDS_GET_MR
 * (cfg.size bytes for rdma-write and rdma-read, one 8-byte word for
 * atomic) and sends its cookie to every initiator in a hello message.
 * Each initiator keeps cfg.window operations outstanding: an
 * RDS_CMSG_RDMA_ARGS (RDS_RDMA_READWRITE for a write) or an
 * RDS_CMSG_ATOMIC_FADD of 1, with RDS_RDMA_NOTIFY_ME, riding on an 8-byte
 * carrier message (the operation's sequence number) to the target's
 * socket.  An operation completes when its RDS_CMSG_RDMA_STATUS notice
 * comes back; any status but RDS_RDMA_SUCCESS fails the run.  The
 * initiators measure completions, with the same warm-up and window as
 * pingpong, then stop posting and wait for what is still outstanding.
 * The target drains and checks the carriers and, at the end, its region:
 * the pattern every write wrote, or the word the atomics counted up.
 */

#define HELLO_MAGIC		0x52445348u	/* "RDSH" */
#define CARRIER_LEN		sizeof(uint64_t)
#define TOKEN_SLOT_BITS		16	/* user_token: sequence << 16 | slot */
#define NOTICE_BATCH		64	/* notices one recvmsg() may return */

/* The target's cookie, in the first message it sends to an initiator. */
struct rdma_hello {
	uint32_t magic;
	uint32_t mode;
	uint64_t cookie;
	uint64_t bytes;		/* the region's length */
};

/* The target's region (there is one target per run). */
struct bench_region region;

bool rdma_mode(void)
{
	return cfg.mode == M_RDMA_WRITE || cfg.mode == M_RDMA_READ ||
	       cfg.mode == M_ATOMIC;
}

const char *mode_name(void)
{
	switch (cfg.mode) {
	case M_STREAM:
		return "stream";
	case M_PINGPONG:
		return "pingpong";
	case M_PROBE:
		return "probe";
	case M_RDMA_WRITE:
		return "rdma-write";
	case M_RDMA_READ:
		return "rdma-read";
	case M_ATOMIC:
		return "atomic";
	case M_REQRESP:
		return "reqresp";
	default:
		return "?";
	}
}

/* Errors that mean "no RDMA here" rather than "something went wrong". */
bool no_rdma_errno(int e)
{
	return e == EOPNOTSUPP || e == ENOPROTOOPT || e == ENODEV;
}

const char *rdma_hint(int e)
{
	switch (e) {
	case EOPNOTSUPP:
	case ENOPROTOOPT:
		return "the transport this socket is bound to offers no RDMA; "
		       "Linux RDS has none on 127.0.0.0/8, and rds_rdma refuses "
		       "RDS_GET_MR on Soft-RoCE";
	case ENODEV:
		return "no RDMA device that registers memory serves this "
		       "address; rds_rdma answers so on Soft-RoCE";
	case ENOMEM:
		return "pinned memory over RLIMIT_MEMLOCK: run as root or raise "
		       "ulimit -l";
	case EMSGSIZE:
		return "larger than the family allows (rds_doca: 1 MiB)";
	case ENOTCONN:
		return "socket not bound";
	default:
		return NULL;
	}
}

/*
 * The family or its transport has no RDMA: note why (the first reason
 * wins) and end the run; it then reports "unsupported" instead of a
 * result.
 */
void rdma_unsupported(const char *why)
{
	int expect = 0;

	if (atomic_compare_exchange_strong(&shm->unsupported, &expect, 2)) {
		snprintf(shm->unsup_msg, sizeof(shm->unsup_msg), "%s", why);
		atomic_store(&shm->unsupported, 1);
	}
	atomic_store(&shm->stop, 1);
}

/*
 * Register the target's region on fd.  Returns 0, or -1 with the reason
 * in err and *unsup telling whether the family simply has no RDMA.
 */
int target_register(int fd, char *err, size_t errlen, bool *unsup)
{
	size_t len = cfg.mode == M_ATOMIC ? sizeof(uint64_t) : cfg.size;
	struct rds_get_mr_args mr;
	char what[96];
	void *p = NULL;
	int e;

	*unsup = false;
	e = posix_memalign(&p, REGION_ALIGN, len);
	if (e) {
		describe(err, errlen, "target: region", e, NULL);
		return -1;
	}
	/* reads fetch the pattern; writes and atomics start from zero */
	if (cfg.mode == M_RDMA_READ)
		memcpy(p, pattern, len);
	else
		memset(p, 0, len);
	memset(&mr, 0, sizeof(mr));
	mr.vec.addr = (uintptr_t)p;
	mr.vec.bytes = len;
	mr.cookie_addr = (uintptr_t)&region.cookie;
	if (setsockopt(fd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr)) < 0) {
		e = errno;
		snprintf(what, sizeof(what),
			 "setsockopt(SOL_RDS, RDS_GET_MR, %zu bytes)", len);
		describe(err, errlen, what, e, rdma_hint(e));
		*unsup = no_rdma_errno(e);
		free(p);
		return -1;
	}
	region.buf = p;
	region.len = len;
	return 0;
}

/* Which initiator (reqresp: client) a message came from (-1: none of ours). */
int initiator_of(const struct sockaddr_in *from)
{
	int k;

	if (from->sin_addr.s_addr != cfg.saddr.s_addr)
		return -1;
	for (k = 0; k < cfg.threads; k++)
		if (shm->snd[k].port == ntohs(from->sin_port))
			return k;
	return -1;
}

/*
 * Target: send the cookie to every initiator, then drain and check the
 * carriers until the run ends; the region stays registered all along.
 */
void rdma_target(int fd)
{
	struct target_result res = { 0 };
	uint64_t next[MAX_THREADS] = { 0 };
	uint64_t e1 = 0, e2 = 0;
	uint8_t buf[64];
	int i;

	for (i = 0; i < cfg.threads; i++) {
		struct rdma_hello h = {
			.magic = HELLO_MAGIC,
			.mode = (uint32_t)cfg.mode,
			.cookie = region.cookie,
			.bytes = region.len,
		};
		struct sockaddr_in dst;
		int r;

		sock_dst(&dst, cfg.saddr, shm->snd[i].port);
		r = send_msg(fd, &h, sizeof(h), &dst, &shm->srv, &e1, &e2,
			     now_ns() + sec2ns(cfg.timeout));
		if (r > 0 && !stopping()) {
			fail("target: the cookie for initiator %d was still refused "
			     "after %.1f s", i, cfg.timeout);
			return;
		}
		if (r < 0) {
			char m[400];

			describe(m, sizeof(m), "target: sendto (cookie)", -r,
				 send_hint(-r));
			fail("%s", m);
			return;
		}
		if (r > 0)
			return;
	}
	while (!stopping()) {
		struct sockaddr_in from = { 0 };
		int mflags = 0, k;
		ssize_t n = recv_next(fd, buf, sizeof(buf), &from, &mflags,
				      "target: recvmsg");
		uint64_t seq;

		if (n < 0)
			break;
		k = initiator_of(&from);
		if (k < 0) {
			res.unknown_src++;
			continue;
		}
		if (n != (ssize_t)CARRIER_LEN || (mflags & MSG_TRUNC)) {
			res.bad_len++;
			continue;
		}
		memcpy(&seq, buf, sizeof(seq));
		if (seq != next[k])
			res.seq_err++;
		next[k] = seq + 1;
		res.carriers++;
		atomic_store_explicit(&shm->srv.msgs, res.carriers,
				      memory_order_relaxed);
	}
	/*
	 * A carrier arrives after its operation ran: once one came, every
	 * byte of a written region holds the pattern (--silent: none comes,
	 * but seconds of writes went before the end).  The word of atomic
	 * is checked against the initiators' count (report_rdma()).
	 */
	if ((res.carriers || cfg.silent) && cfg.mode == M_RDMA_WRITE &&
	    memcmp(region.buf, pattern, region.len))
		res.bad_data++;
	if (cfg.mode == M_ATOMIC) {
		res.word = __atomic_load_n((uint64_t *)region.buf, __ATOMIC_SEQ_CST);
		res.word_valid = 1;
	}
	shm->tg = res;
}

/* Wait for the target's cookie; false (run failed or over) without it. */
static bool rdma_hello_wait(struct active_arg *a, struct rdma_hello *h)
{
	uint64_t deadline = now_ns() + sec2ns(cfg.timeout);
	uint8_t buf[sizeof(*h) + 1];

	while (!stopping()) {
		struct sockaddr_in from = { 0 };
		int mflags = 0;
		ssize_t n = recv_one(a->fds[0], buf, sizeof(buf), &from, &mflags);
		uint64_t now;

		if (n >= 0) {
			if (n == (ssize_t)sizeof(*h) && !(mflags & MSG_TRUNC)) {
				memcpy(h, buf, sizeof(*h));
				if (h->magic == HELLO_MAGIC &&
				    h->mode == (uint32_t)cfg.mode &&
				    h->bytes >= (cfg.mode == M_ATOMIC ?
						 sizeof(uint64_t) : cfg.size))
					return true;
			}
			fail("initiator %d: the target's first message is not its "
			     "cookie (%zd bytes)", a->idx, n);
			return false;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			char m[300], w[64];

			snprintf(w, sizeof(w), "initiator %d: recvmsg", a->idx);
			describe(m, sizeof(m), w, errno, NULL);
			fail("%s", m);
			return false;
		}
		now = now_ns();
		beat(now);
		if (now >= deadline) {
			fail("initiator %d: the target's cookie did not come within "
			     "%.1f s", a->idx, cfg.timeout);
			return false;
		}
		wait_fd(a->fds[0], POLLIN,
			deadline - now < IDLE_SLICE ? deadline - now : IDLE_SLICE);
	}
	return false;
}

/*
 * Post one operation, riding on an 8-byte carrier holding seq.  Returns
 * 0, or -errno (EAGAIN and ENOBUFS: try again later).
 */
static int rdma_post(struct active_arg *a, const struct rdma_hello *h,
		     uint64_t seq, uint32_t slot, const struct rds_iovec *lv,
		     uint64_t *word)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct rds_atomic_args))];
	} cbuf;
	uint64_t carrier = seq;
	size_t len = cfg.silent ? 0 : CARRIER_LEN;
	struct iovec iov = { .iov_base = &carrier, .iov_len = len };
	struct msghdr mh = {
		.msg_name = &a->dst,
		.msg_namelen = sizeof(a->dst),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf.buf,
	};
	uint64_t token = seq << TOKEN_SLOT_BITS | slot;
	uint64_t silent = cfg.silent ? RDS_RDMA_SILENT : 0;
	struct cmsghdr *cm;
	ssize_t n;

	memset(&cbuf, 0, sizeof(cbuf));
	cm = (struct cmsghdr *)cbuf.buf;
	cm->cmsg_level = SOL_RDS;
	if (cfg.mode == M_ATOMIC) {
		struct rds_atomic_args at = {
			.cookie = h->cookie,
			.local_addr = (uintptr_t)word,
			.remote_addr = 0,
			.fadd.add = 1,
			.flags = RDS_RDMA_NOTIFY_ME | silent,
			.user_token = token,
		};

		cm->cmsg_type = RDS_CMSG_ATOMIC_FADD;
		cm->cmsg_len = CMSG_LEN(sizeof(at));
		memcpy(CMSG_DATA(cm), &at, sizeof(at));
		mh.msg_controllen = CMSG_SPACE(sizeof(at));
	} else {
		struct rds_rdma_args ra = {
			.cookie = h->cookie,
			.remote_vec = { .addr = 0, .bytes = cfg.size },
			.local_vec_addr = (uintptr_t)lv,
			.nr_local = 1,
			.flags = RDS_RDMA_NOTIFY_ME | silent |
				 (cfg.mode == M_RDMA_WRITE ? RDS_RDMA_READWRITE : 0),
			.user_token = token,
		};

		cm->cmsg_type = RDS_CMSG_RDMA_ARGS;
		cm->cmsg_len = CMSG_LEN(sizeof(ra));
		memcpy(CMSG_DATA(cm), &ra, sizeof(ra));
		mh.msg_controllen = CMSG_SPACE(sizeof(ra));
	}
	n = sendmsg(a->fds[0], &mh, cfg.blocking ? 0 : MSG_DONTWAIT);
	if (n == (ssize_t)len)
		return 0;
	if (n >= 0)
		return -EIO;
	return errno == ETIMEDOUT ? -EAGAIN : -errno;
}

/*
 * One recvmsg() on an initiator's socket: up to NOTICE_BATCH notices into
 * nv.  Returns their number (0 for a message that carried none, counted
 * in *stray), -EAGAIN if nothing was queued, or another -errno.
 */
static int rdma_notices(int fd, struct rds_rdma_notify *nv, uint64_t *stray)
{
	union {
		struct cmsghdr align;
		char buf[NOTICE_BATCH * CMSG_SPACE(sizeof(struct rds_rdma_notify))];
	} cbuf;
	uint8_t data[64];
	struct sockaddr_in from;
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr mh = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf.buf,
		.msg_controllen = sizeof(cbuf.buf),
	};
	struct cmsghdr *cm;
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
	int k = 0;

	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ?
		       -EAGAIN : -errno;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_RDS || cm->cmsg_type != RDS_CMSG_RDMA_STATUS ||
		    cm->cmsg_len < CMSG_LEN(sizeof(*nv)) || k >= NOTICE_BATCH)
			continue;
		memcpy(&nv[k++], CMSG_DATA(cm), sizeof(*nv));
	}
	if (!k)
		(*stray)++;
	return k;
}

/*
 * No completion came: let time alone end the warm-up at @warm_end and,
 * without --count, the measurement.  True when the measurement just
 * ended.
 */
bool op_clock(struct active_arg *a, int *phase, uint64_t now,
	      uint64_t warm_end, uint64_t *t_end, bool *closing)
{
	if (*phase == PH_WARM && now >= warm_end) {
		*phase = PH_MEAS;
		a->t_start = now;
		*t_end = now + sec2ns(cfg.duration);
	}
	if (*phase == PH_MEAS && !cfg.count && !*closing && now >= *t_end) {
		a->t_stop = now;
		a->measured = true;
		*closing = true;
		return true;
	}
	return false;
}

/*
 * Count one operation of @bytes that completed at time @now into the
 * measurement, with its round trip @rtt if @sample (reqresp): the phases
 * first, warm-up, measured, shared by the RDMA modes and reqresp.
 */
void op_account(struct active_arg *a, int *phase, uint64_t now, bool sample,
		uint64_t rtt, uint64_t bytes, uint64_t *warm_end,
		uint64_t *t_end, bool *closing)
{
	switch (*phase) {
	case PH_FIRST:
		*phase = PH_WARM;
		*warm_end = now + sec2ns(cfg.warmup);
		if (now < *warm_end)
			break;
		/* fall through */
	case PH_WARM:
		if (now >= *warm_end) {
			*phase = PH_MEAS;
			a->t_start = now;
			*t_end = now + sec2ns(cfg.duration);
		}
		break;
	case PH_MEAS:
		if (*closing)
			break;
		if (!cfg.count && now >= *t_end) {
			a->t_stop = now;
			a->measured = true;
			*closing = true;
			break;
		}
		if (sample)
			add_sample(a, rtt);
		a->ops++;
		a->op_bytes += bytes;
		if (cfg.count && a->ops >= cfg.count) {
			a->t_stop = now;
			a->measured = true;
			*closing = true;
		}
		break;
	}
}

/*
 * One initiator: window after window of operations on the target's
 * region, until its measurement is over and every operation it posted has
 * completed.  Its buffers are left allocated if operations may still be
 * outstanding when it gives up (they could still be written).
 */
void *rdma_initiator(void *argp)
{
	struct active_arg *a = argp;
	struct end_stats *st = &shm->snd[a->idx];
	struct rds_rdma_notify nv[NOTICE_BATCH];
	struct rds_iovec lv = { 0 };
	struct rdma_hello h;
	uint8_t *local = NULL;
	uint64_t *words = NULL;		/* atomic: a word per slot */
	uint32_t *free_slots = NULL, nfree = 0;
	uint64_t seq = 0, inflight = 0, stray = 0;
	uint64_t timeout = sec2ns(cfg.timeout), last_done, last_beat;
	uint64_t warm_end = 0, t_end = 0;
	int phase = PH_FIRST;
	bool closing = false;
	uint32_t i;

	if (!wait_go() || !rdma_hello_wait(a, &h))
		goto out;
	if (cfg.mode == M_ATOMIC) {
		words = calloc(cfg.window, sizeof(*words));
		free_slots = calloc(cfg.window, sizeof(*free_slots));
		if (!words || !free_slots) {
			fail("initiator %d: out of memory", a->idx);
			goto out;
		}
		for (i = 0; i < cfg.window; i++)
			free_slots[nfree++] = cfg.window - 1 - i;
	} else {
		void *p = NULL;

		if (posix_memalign(&p, REGION_ALIGN, cfg.size)) {
			fail("initiator %d: out of memory", a->idx);
			goto out;
		}
		local = p;
		if (cfg.mode == M_RDMA_WRITE)
			memcpy(local, pattern, cfg.size);
		else
			memset(local, 0, cfg.size);
		lv.addr = (uintptr_t)local;
		lv.bytes = cfg.size;
	}
	last_done = last_beat = now_ns();
	beat(last_done);

	while (!stopping()) {
		bool progress = false;
		short wait_for = POLLIN;
		uint64_t wait_ns = IDLE_SLICE, now;
		int k, j;

		/* keep the window full */
		while (!closing && inflight < cfg.window) {
			uint32_t slot = cfg.mode == M_ATOMIC ? free_slots[nfree - 1] : 0;
			int r = rdma_post(a, &h, seq, slot, &lv,
					  words ? &words[slot] : NULL);

			if (!r) {
				if (cfg.mode == M_ATOMIC)
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
				char m[400], w[80];

				snprintf(w, sizeof(w), "initiator %d: sendmsg(%s)",
					 a->idx, cfg.mode == M_ATOMIC ?
					 "RDS_CMSG_ATOMIC_FADD" : "RDS_CMSG_RDMA_ARGS");
				describe(m, sizeof(m), w, -r,
					 no_rdma_errno(-r) ? rdma_hint(-r) : send_hint(-r));
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

		/* collect what completed */
		k = rdma_notices(a->fds[0], nv, &stray);
		now = now_ns();
		if (k < 0 && k != -EAGAIN) {
			char m[300], w[64];

			snprintf(w, sizeof(w), "initiator %d: recvmsg", a->idx);
			describe(m, sizeof(m), w, -k, NULL);
			fail("%s", m);
			goto out;
		}
		for (j = 0; j < k; j++) {
			uint64_t tok = nv[j].user_token;
			uint32_t slot = (uint32_t)(tok & ((1u << TOKEN_SLOT_BITS) - 1));

			if (!inflight || tok >> TOKEN_SLOT_BITS >= seq ||
			    slot >= cfg.window) {
				fail("initiator %d: a notice for an operation never "
				     "posted (user_token %#" PRIx64 ")", a->idx, tok);
				goto out;
			}
			inflight--;
			a->completed++;
			if (cfg.mode == M_ATOMIC)
				free_slots[nfree++] = slot;
			if (nv[j].status != RDS_RDMA_SUCCESS) {
				fail("initiator %d: operation %" PRIu64 " completed with "
				     "status %d (%s)", a->idx, tok >> TOKEN_SLOT_BITS,
				     nv[j].status, rds_doca_status_name(nv[j].status));
				goto out;
			}
			op_account(a, &phase, now, false, 0, cfg.size,
				   &warm_end, &t_end, &closing);
		}
		if (k > 0) {
			last_done = now;
			progress = true;
		} else if (k == 0) {
			progress = true;	/* a message, not a notice */
		}
		if (now - last_beat >= 20 * MSEC || k > 0) {
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
			fail("initiator %d: no operation completed for %.1f s "
			     "(%" PRIu64 " outstanding, %" PRIu64 " completed%s)",
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
	/* every read fetched the target's pattern */
	if (cfg.mode == M_RDMA_READ && closing && !inflight && a->completed &&
	    memcmp(local, pattern, cfg.size))
		a->bad_data++;
	if (stray)
		fprintf(stderr, PROG ": initiator %d: %" PRIu64 " messages other "
			"than notices arrived (ignored)\n", a->idx, stray);
out:
	a->issued = seq;
	if (!inflight) {
		free(local);
		free(words);
	}
	free(free_slots);
	atomic_store(&st->done, 1);
	return NULL;
}

void rdma_summarize(struct active_arg *args, int n)
{
	struct rdma_result res = { 0 };
	int i, measured = 0;

	for (i = 0; i < n; i++) {
		res.ops += args[i].ops;
		res.bytes += args[i].op_bytes;
		res.issued += args[i].issued;
		res.completed += args[i].completed;
		res.enobufs += args[i].enobufs;
		res.eagain += args[i].eagain;
		res.bad_data += args[i].bad_data;
		if (active_rate(&args[i], args[i].ops, &res.rate,
				&res.elapsed))
			measured++;
	}
	res.valid = measured == n;
	shm->rd = res;
}
