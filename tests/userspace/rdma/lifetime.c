// SPDX-License-Identifier: GPL-2.0
/*
 * life_*: what becomes of regions and operations when a socket is closed
 * or memory is unmapped under them.
 */
#include "rdma.h"

void test_life_close_owner(void)
{
	struct rdma_fixture f;
	struct rds_rdma_args ra;
	struct rds_iovec lv;
	uint64_t c1 = 0, c2 = 0;
	uint16_t aport;
	int a2 = -1, st;

	if (!fixture_open(&f, PAGE, PAGE))
		goto out;
	if (!is_ok(get_mr(f.p.a, f.abuf, 256, 0, &c1), "GET_MR 1") ||
	    !is_ok(get_mr(f.p.a, f.abuf + 1024, 256, 0, &c2), "GET_MR 2"))
		goto out;
	st = run_write(&f.p, c1, 0, f.bbuf, 64, "write before close");
	is_eq(st, RDS_RDMA_SUCCESS, "a write before A closes succeeds");
	aport = sa_port(&f.p.sa);
	close(f.p.a);
	f.p.a = -1;
	memset(f.abuf, 0x21, PAGE);
	pattern_fill(f.bbuf, 64, 5);

	/* nobody at A's port now: the notice still comes */
	lv.addr = (uintptr_t)f.bbuf;
	lv.bytes = 64;
	mk_rdma(&ra, c1, 0, 64, &lv, 1,
		RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(f.p.b, &f.p.sa, &ra),
	      "write to the closed port: sendmsg");
	expect_notice(f.p.b, ra.user_token, RDS_RDMA_REMOTE_ERROR,
		      "write to the closed owner's region -> RDS_RDMA_REMOTE_ERROR");
	check_fill(f.abuf, PAGE, 0x21, "A's old buffer unchanged");

	/* a new socket on A's port does not inherit the regions */
	a2 = bound_socket_cfg(false, aport, "setup: rebind A's port");
	if (a2 < 0)
		goto out;
	f.p.a = a2;
	st = run_write(&f.p, c1, 0, f.bbuf, 64, "region 1 via the new socket");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "region 1 at a new socket on A's port -> RDS_RDMA_REMOTE_ERROR");
	st = run_read(&f.p, c2, 0, f.bbuf, 64, "region 2 via the new socket");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "region 2 at a new socket on A's port -> RDS_RDMA_REMOTE_ERROR");
	check_fill(f.abuf, PAGE, 0x21, "A's old buffer still unchanged");
	is_err(free_mr(a2, c1, 0), EINVAL,
	       "the new socket cannot free the old region -> EINVAL");
out:
	fixture_close(&f);
}

void test_life_close_initiator(void)
{
	enum { ROUNDS = 20, LEN = 65536 };
	struct rdma_fixture f;
	struct rds_iovec lv = { 0, LEN };
	struct rds_rdma_args ra;
	unsigned int i, sent = 0, arrived = 0, landed = 0, quiet = 0;
	uint16_t bport;
	struct rx rx;
	int b2;

	if (!fixture_open_mr(&f, LEN, LEN, LEN))
		goto out;
	/*
	 * Over IB the reset after the failures of the case before may take
	 * the next connection too (run_rdma() sends again once): the rounds
	 * below must not meet it, their writes would be dropped.
	 */
	if (!is_eq(run_write(&f.p, f.cookie, 0, f.bbuf, 64,
			     "write before the rounds"),
		   RDS_RDMA_SUCCESS, "a write before the rounds succeeds"))
		goto out;
	lv.addr = (uintptr_t)f.bbuf;
	for (i = 0; i < ROUNDS; i++) {
		if (f.p.b < 0) {
			f.p.b = bound_socket_cfg(true, 0, "setup: bind B");
			if (f.p.b < 0)
				break;
		}
		bport = bound_port(f.p.b);
		pattern_fill(f.bbuf, LEN, 900 + i);
		mk_rdma(&ra, f.cookie, 0, LEN, &lv, 1,
			RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
		if (send_rdma(f.p.b, &f.p.sa, &ra) >= 0)
			sent++;
		close(f.p.b);
		f.p.b = -1;
		if (rx_one(f.p.a, &rx, 0, WAIT_MS) >= 0) {
			arrived++;
			/* the op completed all the same */
			landed += pattern_check(f.abuf, LEN, 900 + i) < 0;
		}
		b2 = bound_socket_cfg(true, bport,
				     "setup: rebind B's port");
		if (b2 < 0)
			continue;
		if (rx_one(b2, &rx, 0, i == ROUNDS - 1 ? QUIET_WAIT_MS : 20) < 0 &&
		    errno == ETIME)
			quiet++;
		close(b2);
	}
	is_eq(sent, ROUNDS, "sendmsg then close, %u times", ROUNDS);
	is_eq(arrived, ROUNDS, "A got every message");
	is_eq(landed, ROUNDS, "every write landed before its message");
	is_eq(quiet, ROUNDS, "no notice at a new socket on B's port");
out:
	fixture_close(&f);
}

void test_life_munmap_owner(void)
{
	struct rdma_fixture f;
	int st;

	if (!fixture_open(&f, 4 * PAGE, 4 * PAGE) ||
	    !fixture_mr(&f, 10, 3 * PAGE, 0, "GET_MR"))
		goto out;
	munmap(f.abuf, 4 * PAGE);
	f.abuf = NULL;
	pattern_fill(f.bbuf, 3 * PAGE, 8);
	st = run_write(&f.p, f.cookie, 0, f.bbuf, 3 * PAGE,
		       "write after munmap");
	ok_diag(st == RDS_RDMA_SUCCESS || st == RDS_RDMA_REMOTE_ERROR,
		"write to an unmapped region completes (SUCCESS or REMOTE_ERROR)",
		"status %d", st);
	memset(f.bbuf, 0, 4 * PAGE);
	st = run_read(&f.p, f.cookie, 0, f.bbuf, 3 * PAGE, "read after munmap");
	ok_diag(st == RDS_RDMA_SUCCESS || st == RDS_RDMA_REMOTE_ERROR,
		"read of an unmapped region completes (SUCCESS or REMOTE_ERROR)",
		"status %d", st);
	if (st == RDS_RDMA_SUCCESS)
		check_pattern(f.bbuf, 3 * PAGE, 8,
			      "the pinned pages still hold the written data");
	/* new memory at the same address is not the region */
	f.abuf = xmap(4 * PAGE);
	is_ok(free_mr(f.p.a, f.cookie, 0),
	      "FREE_MR of the unmapped region -> 0");
	st = run_write(&f.p, f.cookie, 0, f.bbuf, 64, "write after free");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "after FREE_MR: RDS_RDMA_REMOTE_ERROR");
out:
	fixture_close(&f);
}

void test_life_munmap_local(void)
{
	enum { LEN = 256 * 1024 };
	struct rdma_fixture f;
	char *bbuf;
	struct rds_iovec lv = { 0, LEN };
	struct rds_rdma_args ra;
	unsigned int i;

	if (!fixture_open_mr(&f, LEN, 0, LEN))
		goto out;
	pattern_fill(f.abuf, LEN, 13);
	for (i = 0; i < 2; i++) {
		const char *what = i ? "write" : "read";

		bbuf = xmap(LEN);
		if (!bbuf)
			break;
		pattern_fill(bbuf, LEN, 13);
		lv.addr = (uintptr_t)bbuf;
		mk_rdma(&ra, f.cookie, 0, LEN, &lv, 1,
			RDS_RDMA_NOTIFY_ME | (i ? RDS_RDMA_READWRITE : 0));
		is_ok(send_rdma(f.p.b, &f.p.sa, &ra), "%s: sendmsg", what);
		munmap(bbuf, LEN);
		expect_notice(f.p.b, ra.user_token, RDS_RDMA_SUCCESS,
			      "%s: B's buffer unmapped after sendmsg, the notice still comes",
			      what);
		expect_msg(f.p.a, NULL, "%s: A gets the message", what);
	}
	check_pattern(f.abuf, LEN, 13, "A's region intact");
out:
	fixture_close(&f);
}
