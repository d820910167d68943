// SPDX-License-Identifier: GPL-2.0
/*
 * notify_*: the completion notices (RDS_CMSG_RDMA_STATUS): one per
 * operation asked for, for failures with RDS_RECVERR, one per recvmsg().
 */
#include "rdma.h"

static int set_int(int fd, int level, int opt, int val)
{
	return setsockopt(fd, level, opt, &val, sizeof(val));
}

void test_notify_tokens(void)
{
	enum { OPS = 50 };
	uint64_t first;
	unsigned int seen[OPS], got = 0, extra = 0, bad = 0, i, j;
	struct rdma_fixture f;
	struct rds_rdma_args ra;
	struct rds_iovec lv;
	struct rx rx;

	memset(seen, 0, sizeof(seen));
	if (!fixture_open_mr(&f, PAGE, PAGE, PAGE))
		goto out;
	first = next_token;
	for (i = 0; i < OPS; i++) {
		lv.addr = (uintptr_t)f.bbuf + i;
		lv.bytes = 16;
		mk_rdma(&ra, f.cookie, i * 8, 16, &lv, 1,
			RDS_RDMA_NOTIFY_ME | (i & 1 ? RDS_RDMA_READWRITE : 0));
		if (send_rdma(f.p.b, &f.p.sa, &ra) < 0)
			break;
	}
	if (!ok_diag(i == OPS, "sendmsg of 50 ops with NOTIFY_ME",
		     "op %u: %s", i, tap_errname(errno)))
		goto out;
	while (got < OPS) {
		if (rx_one(f.p.b, &rx, 0, WAIT_MS) < 0)
			break;
		for (j = 0; j < rx.nnotes && j < 256; j++) {
			uint64_t t = rx.notes[j].user_token - first;

			if (t >= OPS) {
				extra++;
				continue;
			}
			if (rx.notes[j].status != RDS_RDMA_SUCCESS)
				bad++;
			seen[t]++;
			got++;
		}
		if (!rx.nnotes)
			extra++;
	}
	is_eq(got, OPS, "50 notices collected");
	for (i = 0, j = 0; i < OPS; i++)
		j += seen[i] == 1;
	is_eq(j, OPS, "every token seen exactly once");
	is_eq(bad, 0, "every status is RDS_RDMA_SUCCESS");
	is_eq(extra, 0, "no unexpected tokens or messages");
	expect_quiet(f.p.b, QUIET_WAIT_MS, "no further notice");
	for (i = 0; i < OPS; i++)
		if (rx_one(f.p.a, &rx, 0, WAIT_MS) < 0 || rx.nnotes)
			break;
	is_eq(i, OPS, "A received the 50 messages");
out:
	fixture_close(&f);
}

/* Send a write of @len bytes without waiting; returns its token or 0. */
static uint64_t send_write(struct pair *p, uint64_t cookie, uint64_t raddr,
			   void *local, uint64_t len, uint64_t flags)
{
	struct rds_iovec lv = { (uintptr_t)local, len };
	struct rds_rdma_args ra;

	mk_rdma(&ra, cookie, raddr, len, &lv, 1, RDS_RDMA_READWRITE | flags);
	if (send_rdma(p->b, &p->sa, &ra) < 0) {
		ok_diag(0, "sendmsg", "%s", tap_errname(errno));
		return 0;
	}
	return ra.user_token;
}

void test_notify_none_on_success(void)
{
	struct rdma_fixture f;
	struct rds_atomic_args aa;
	uint64_t old = 0;

	if (!fixture_open_mr(&f, PAGE, PAGE, PAGE))
		goto out;
	pattern_fill(f.bbuf, 128, 3);
	if (!send_write(&f.p, f.cookie, 0, f.bbuf, 128, 0))
		goto out;
	expect_msg(f.p.a, NULL, "A gets the message");
	check_pattern(f.abuf, 128, 3, "the write landed");
	expect_quiet(f.p.b, QUIET_WAIT_MS, "no notice without NOTIFY_ME");

	is_ok(set_int(f.p.b, SOL_RDS, RDS_RECVERR, 1), "RDS_RECVERR on");
	pattern_fill(f.bbuf, 128, 4);
	if (!send_write(&f.p, f.cookie, 0, f.bbuf, 128, 0))
		goto out;
	expect_msg(f.p.a, NULL, "A gets the message");
	check_pattern(f.abuf, 128, 4, "the write landed");
	expect_quiet(f.p.b, QUIET_WAIT_MS,
		     "RDS_RECVERR: still no notice for a success");

	mk_atomic(&aa, f.cookie, 256, &old, 0);
	aa.fadd.add = 1;
	if (no_atomics) {
		is_err(send_atomic(f.p.b, &f.p.sa, RDS_CMSG_ATOMIC_FADD, &aa),
		       EOPNOTSUPP, "device without atomics: fetch-add -> EOPNOTSUPP");
		goto out;
	}
	is_ok(send_atomic(f.p.b, &f.p.sa, RDS_CMSG_ATOMIC_FADD, &aa),
	      "fetch-add without NOTIFY_ME");
	expect_msg(f.p.a, NULL, "A gets the message");
	expect_quiet(f.p.b, QUIET_WAIT_MS, "no notice for a successful atomic");
out:
	fixture_close(&f);
}

/*
 * A write past the end of the region with @flags, with RDS_RECVERR on:
 * its RDS_RDMA_REMOTE_ERROR notice (a check named @notice), its message
 * at A, and then no other notice (@quiet).  False if it was not sent.
 */
static bool failed_write(struct rdma_fixture *f, uint64_t flags,
			 const char *notice, const char *quiet)
{
	uint64_t t = send_write(&f->p, f->cookie, 250, f->bbuf, 16, flags);

	if (!t)
		return false;
	expect_notice(f->p.b, t, RDS_RDMA_REMOTE_ERROR, "%s", notice);
	expect_msg(f->p.a, NULL, "A gets the message");
	expect_quiet(f->p.b, QUIET_WAIT_MS, "%s", quiet);
	return true;
}

void test_notify_recverr(void)
{
	struct rdma_fixture f;
	struct rds_atomic_args aa;
	uint64_t old = 0;

	if (!fixture_open_mr(&f, PAGE, PAGE, 256))
		goto out;
	/* past the end: a failure */
	if (!send_write(&f.p, f.cookie, 250, f.bbuf, 16, 0))
		goto out;
	expect_msg(f.p.a, NULL,
		   "failed op without NOTIFY_ME: A gets the message");
	expect_quiet(f.p.b, QUIET_WAIT_MS,
		     "failure without NOTIFY_ME or RDS_RECVERR: no notice");

	is_ok(set_int(f.p.b, SOL_RDS, RDS_RECVERR, 1), "RDS_RECVERR on");
	if (!failed_write(&f, 0,
			  "failure with RDS_RECVERR: RDS_RDMA_REMOTE_ERROR notice",
			  "only one notice") ||
	    !failed_write(&f, RDS_RDMA_NOTIFY_ME,
			  "failure with RDS_RECVERR and NOTIFY_ME: a notice",
			  "only one notice for both reasons"))
		goto out;

	mk_atomic(&aa, f.cookie, 256, &old, 0);
	aa.fadd.add = 1;
	if (no_atomics) {
		is_err(send_atomic(f.p.b, &f.p.sa, RDS_CMSG_ATOMIC_FADD, &aa),
		       EOPNOTSUPP, "device without atomics: fetch-add -> EOPNOTSUPP");
		expect_quiet(f.p.b, QUIET_WAIT_MS,
			     "no notice for the refused atomic");
	} else {
		is_ok(send_atomic(f.p.b, &f.p.sa, RDS_CMSG_ATOMIC_FADD, &aa),
		      "failing fetch-add without NOTIFY_ME");
		expect_notice(f.p.b, aa.user_token, RDS_RDMA_REMOTE_ERROR,
			      "failed atomic with RDS_RECVERR: a notice");
		expect_msg(f.p.a, NULL, "A gets the message");
	}

	is_ok(set_int(f.p.b, SOL_RDS, RDS_RECVERR, 0), "RDS_RECVERR off");
	if (!send_write(&f.p, f.cookie, 250, f.bbuf, 16, 0))
		goto out;
	expect_msg(f.p.a, NULL, "A gets the message");
	expect_quiet(f.p.b, QUIET_WAIT_MS,
		     "RDS_RECVERR off again: no notice for a failure");
out:
	fixture_close(&f);
}

/*
 * @n writes of 64 bytes with NOTIFY_ME, their tokens in @t (0: not sent;
 * with @stop, the first of those ends it, false); A gets their messages,
 * and B's notices have time to queue up.
 */
static bool send_writes(struct rdma_fixture *f, uint64_t *t, unsigned int n,
			bool stop)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		t[i] = send_write(&f->p, f->cookie, i * 64, f->bbuf, 64,
				  RDS_RDMA_NOTIFY_ME);
		if (stop && !t[i])
			return false;
	}
	for (i = 0; i < n; i++)
		expect_msg(f->p.a, NULL, "A gets message %u", i + 1);
	sleep_ms(50);
	return true;
}

void test_notify_one_per_recv(void)
{
	struct rdma_fixture f;
	uint64_t t[3];
	unsigned int i, j, found;
	struct rx rx;
	ssize_t r;

	if (!fixture_open_mr(&f, PAGE, PAGE, PAGE) ||
	    !send_writes(&f, t, 3, true))
		goto out;
	found = 0;
	for (i = 0; i < 3; i++) {
		r = rx_one(f.p.b, &rx, NOTE_SPACE, WAIT_MS);
		if (!ok_diag(r == 0 && rx.nnotes == 1 &&
			     !(rx.msg_flags & MSG_CTRUNC),
			     "recvmsg with room for one notice returns one",
			     "call %u: returned %zd (%s), %u notices, flags 0x%x",
			     i + 1, r, r < 0 ? rx_err() : "-", rx.nnotes,
			     rx.msg_flags))
			continue;
		for (j = 0; j < 3; j++)
			if (rx.notes[0].user_token == t[j] &&
			    rx.notes[0].status == RDS_RDMA_SUCCESS)
				found |= 1u << j;
	}
	is_eq(found, 7, "the three calls return the three notices");
	expect_quiet(f.p.b, QUIET_WAIT_MS, "nothing more");

	/* room for two of three */
	send_writes(&f, t, 3, false);
	r = rx_one(f.p.b, &rx, 2 * NOTE_SPACE, WAIT_MS);
	ok_diag(r == 0 && rx.nnotes == 2, "room for two: two notices",
		"returned %zd, %u notices, flags 0x%x", r, rx.nnotes,
		rx.msg_flags);
	r = rx_one(f.p.b, &rx, 2 * NOTE_SPACE, WAIT_MS);
	ok_diag(r == 0 && rx.nnotes == 1, "then the third",
		"returned %zd, %u notices, flags 0x%x", r, rx.nnotes,
		rx.msg_flags);
	expect_quiet(f.p.b, QUIET_WAIT_MS, "nothing more");

	/* no room: MSG_CTRUNC, and that notice is gone */
	send_writes(&f, t, 2, false);
	r = rx_one(f.p.b, &rx, CMSG_LEN(sizeof(struct rds_rdma_notify)) - 4,
		   WAIT_MS);
	ok_diag(r == 0 && rx.nnotes == 0 && (rx.msg_flags & MSG_CTRUNC),
		"control buffer too small: returns 0 with MSG_CTRUNC",
		"returned %zd (%s), %u notices, flags 0x%x", r,
		r < 0 ? rx_err() : "-", rx.nnotes, rx.msg_flags);
	r = rx_one(f.p.b, &rx, NOTE_SPACE, WAIT_MS);
	ok_diag(r == 0 && rx.nnotes == 1 &&
		(rx.notes[0].user_token == t[0] ||
		 rx.notes[0].user_token == t[1]),
		"the next call returns the other notice",
		"returned %zd, %u notices", r, rx.nnotes);
	expect_quiet(f.p.b, QUIET_WAIT_MS, "the truncated notice is gone");
out:
	fixture_close(&f);
}
