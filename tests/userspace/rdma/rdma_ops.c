// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_*: RDMA reads and writes through RDS_CMSG_RDMA_ARGS: sizes and
 * offsets, local iovecs, silent operations, and the arguments refused.
 */
#include "rdma.h"

void test_rdma_write_read(void)
{
	static const struct {
		uint64_t size;
		uint64_t region_off;	/* of the region in its page */
		uint64_t raddr;		/* of the operation in the region */
		uint64_t local_off;
	} cases[] = {
		{ 1, 0, 0, 0 },
		{ 1, 4095, 0, 1 },
		{ 1, 7, 3, 0 },
		{ 4096, 0, 0, 0 },
		{ 4096, 1, 0, 3 },
		{ 4096, 100, 13, 5 },
		{ 65536, 0, 0, 0 },
		{ 65536, 4001, 1, 7 },
		{ RDS_DOCA_MAX_RDMA_SIZE, 0, 0, 0 },
		{ RDS_DOCA_MAX_RDMA_SIZE, 5, 0, 11 },
	};
	size_t maplen = RDS_DOCA_MAX_RDMA_SIZE + 4 * PAGE;
	struct rdma_fixture f;
	unsigned int i;

	if (!fixture_open(&f, maplen, maplen))
		goto out;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t sz = cases[i].size, raddr = cases[i].raddr;
		uint64_t rlen = sz + raddr;
		char *region = f.abuf + cases[i].region_off;
		char *local = f.bbuf + cases[i].local_off;
		uint64_t cookie = 0;
		char n[160];
		int st;

		snprintf(n, sizeof(n),
			 "size %llu, region at page offset %llu, remote addr %llu, local offset %llu",
			 (unsigned long long)sz,
			 (unsigned long long)cases[i].region_off,
			 (unsigned long long)raddr,
			 (unsigned long long)cases[i].local_off);
		memset(f.abuf, 0x5a, maplen);
		if (mr_too_big(region, rlen)) {
			is_err(get_mr(f.p.a, region, rlen, 0, &cookie),
			       EMSGSIZE,
			       "%s: GET_MR of more pages than the device maps (%lu) -> EMSGSIZE",
			       n, mr_pages);
			continue;
		}
		if (!is_ok(get_mr(f.p.a, region, rlen, 0, &cookie),
			   "%s: GET_MR", n))
			continue;
		pattern_fill(local, sz, i + 1);
		st = run_write(&f.p, cookie, raddr, local, sz, n);
		is_eq(st, RDS_RDMA_SUCCESS, "%s: write status", n);
		check_pattern(region + raddr, sz, i + 1,
			      "%s: written data in A's region", n);
		check_fill(f.abuf, region + raddr - f.abuf, 0x5a,
			   "%s: A's bytes before untouched", n);
		check_fill(region + raddr + sz, 64, 0x5a,
			   "%s: A's bytes after untouched", n);

		pattern_fill(region + raddr, sz, i + 100);
		memset(f.bbuf, 0xc3, maplen);
		st = run_read(&f.p, cookie, raddr, local, sz, n);
		is_eq(st, RDS_RDMA_SUCCESS, "%s: read status", n);
		check_pattern(local, sz, i + 100, "%s: read data in B's buffer",
			      n);
		check_fill(f.bbuf, local - f.bbuf, 0xc3,
			   "%s: B's bytes before untouched", n);
		check_fill(local + sz, 64, 0xc3,
			   "%s: B's bytes after untouched", n);
		is_ok(free_mr(f.p.a, cookie, 0), "%s: FREE_MR", n);
	}
out:
	fixture_close(&f);
}

void test_rdma_iovecs(void)
{
	static const uint64_t sz[3] = { 7, 1001, 3333 };
	const uint64_t total = 7 + 1001 + 3333;
	struct rdma_fixture f;
	struct rds_rdma_notify n = { 0, 0 };
	struct rds_iovec lv[3];
	struct rds_rdma_args ra;
	uint64_t off;
	char *piece[3];
	unsigned int i;

	if (!fixture_open(&f, 2 * PAGE, 4 * PAGE))
		goto out;
	/* out of order in memory, at odd places */
	piece[0] = f.bbuf + 3 * PAGE + 5;
	piece[1] = f.bbuf + 1;
	piece[2] = f.bbuf + PAGE + 333;
	for (i = 0; i < 3; i++) {
		lv[i].addr = (uintptr_t)piece[i];
		lv[i].bytes = sz[i];
	}
	if (!fixture_mr(&f, 3, total + 10, 0, "GET_MR"))
		goto out;

	pattern_fill(f.abuf, 2 * PAGE, 9);
	for (i = 0; i < 3; i++)
		pattern_fill(piece[i], sz[i], 20 + i);
	mk_rdma(&ra, f.cookie, 5, total, lv, 3,
		RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(f.p.b, &f.p.sa, &ra), "write from 3 iovecs: sendmsg");
	if (get_notice(f.p.b, &n, "write from 3 iovecs: notice"))
		ok_diag(n.status == RDS_RDMA_SUCCESS &&
			n.user_token == ra.user_token,
			"write from 3 iovecs: notice",
			"status %d token %llu", n.status,
			(unsigned long long)n.user_token);
	expect_msg(f.p.a, NULL, "write from 3 iovecs: A gets the message");
	for (i = 0, off = 3 + 5; i < 3; off += sz[i], i++)
		check_pattern(f.abuf + off, sz[i], 20 + i,
			      "piece %u (%llu bytes) lands in order", i,
			      (unsigned long long)sz[i]);
	check_pattern(f.abuf, 8, 9, "bytes before untouched");
	{
		char *want = malloc(2 * PAGE);

		if (want) {
			pattern_fill(want, 2 * PAGE, 9);
			ok(!memcmp(f.abuf + 8 + total, want + 8 + total,
				   2 * PAGE - 8 - total),
			   "bytes after untouched");
			free(want);
		}
	}

	memset(f.bbuf, 0, 4 * PAGE);
	pattern_fill(f.abuf + 8, total, 33);
	mk_rdma(&ra, f.cookie, 5, total, lv, 3, RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(f.p.b, &f.p.sa, &ra), "read into 3 iovecs: sendmsg");
	expect_notice(f.p.b, ra.user_token, RDS_RDMA_SUCCESS,
		      "read into 3 iovecs: notice");
	expect_msg(f.p.a, NULL, "read into 3 iovecs: A gets the message");
	{
		char *want = malloc(total);

		if (want) {
			pattern_fill(want, total, 33);
			for (i = 0, off = 0; i < 3; off += sz[i], i++)
				ok_diag(!memcmp(piece[i], want + off, sz[i]),
					"read: piece", "piece %u differs", i);
			free(want);
		}
	}
	check_fill(f.bbuf + sz[1] + 1, PAGE + 333 - sz[1] - 1, 0,
		   "read: B's bytes between pieces untouched");
out:
	fixture_close(&f);
}

/*
 * An operation of 1,024 two-byte pieces, each across a page boundary: 2,048
 * page pieces.  The copy engine takes them all; over IB they are more work
 * requests than the send ring holds, so the operation fails alone
 * (RDS_RDMA_OTHER_ERROR, the region untouched) and neither its message
 * nor the next operation on the connection waits for it.
 */
void test_rdma_many_pieces(void)
{
	const unsigned int nr = RDS_DOCA_MAX_RDMA_IOVECS, total = 2 * nr;
	const int want = over_ib() ? RDS_RDMA_OTHER_ERROR : RDS_RDMA_SUCCESS;
	struct rdma_fixture f;
	struct rds_iovec *lv = calloc(nr, sizeof(*lv));
	struct rds_rdma_args ra;
	unsigned int i;
	bool same = true;

	if (!fixture_open(&f, PAGE, (nr + 1) * PAGE) || !lv)
		goto out;
	for (i = 0; i < nr; i++) {
		lv[i].addr = (uintptr_t)(f.bbuf + (i + 1) * PAGE - 1);
		lv[i].bytes = 2;
		f.bbuf[(i + 1) * PAGE - 1] = (char)i;
		f.bbuf[(i + 1) * PAGE] = (char)~i;
	}
	if (!fixture_mr(&f, 0, PAGE, 0, "GET_MR"))
		goto out;
	memset(f.abuf, 0x5a, PAGE);
	mk_rdma(&ra, f.cookie, 0, total, lv, nr,
		RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(f.p.b, &f.p.sa, &ra), "write of %u pieces: sendmsg",
	      nr);
	expect_notice(f.p.b, ra.user_token, want,
		      "write of %u pieces: notice status %d", nr, want);
	expect_msg(f.p.a, NULL, "write of %u pieces: A gets the message", nr);
	for (i = 0; i < nr; i++)
		same &= f.abuf[2 * i] == (char)i &&
			f.abuf[2 * i + 1] == (char)~i;
	if (over_ib())
		check_fill(f.abuf, PAGE, 0x5a,
			   "write of %u pieces: the region is untouched", nr);
	else
		ok(same, "write of %u pieces: every piece lands in order", nr);

	/* the connection is not held up: a plain write goes through */
	mk_rdma(&ra, f.cookie, 0, 2, lv, 1,
		RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(f.p.b, &f.p.sa, &ra), "then a 2-byte write: sendmsg");
	expect_notice(f.p.b, ra.user_token, RDS_RDMA_SUCCESS,
		      "then a 2-byte write: notice");
	expect_msg(f.p.a, NULL, "then a 2-byte write: A gets the message");
	ok(f.abuf[0] == 0 && f.abuf[1] == (char)~0,
	   "then a 2-byte write: it lands");
out:
	fixture_close(&f);
	free(lv);
}

/*
 * A read into pieces that each cross a page boundary: each is a run of
 * its own for an iWARP device, which registers every run of a read's
 * sink (--read-sinks N: it has N regions for one read, and a read that
 * needs more fails with RDS_RDMA_OTHER_ERROR, its buffer untouched).
 * Elsewhere, and within N, the read lands piece by piece.
 */
static void read_pieces(struct rdma_fixture *f, struct rds_iovec *lv,
			unsigned int n)
{
	const int want = read_sinks && n > read_sinks ? RDS_RDMA_OTHER_ERROR :
				RDS_RDMA_SUCCESS;
	struct rds_rdma_args ra;
	unsigned int i;
	bool same = true;

	for (i = 0; i < n; i++) {
		f->bbuf[(i + 1) * PAGE - 1] = 0x5a;
		f->bbuf[(i + 1) * PAGE] = 0x5a;
	}
	mk_rdma(&ra, f->cookie, 0, 2 * n, lv, n, RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(f->p.b, &f->p.sa, &ra), "read into %u pieces: sendmsg",
	      n);
	expect_notice(f->p.b, ra.user_token, want,
		      "read into %u pieces: notice status %d", n, want);
	expect_msg(f->p.a, NULL, "read into %u pieces: A gets the message", n);
	for (i = 0; i < n; i++)
		same &= f->bbuf[(i + 1) * PAGE - 1] ==
			(want ? 0x5a : f->abuf[2 * i]) &&
			f->bbuf[(i + 1) * PAGE] ==
			(want ? 0x5a : f->abuf[2 * i + 1]);
	ok(same, "read into %u pieces: %s", n,
	   want ? "B's buffer untouched" : "every piece lands in order");
}

void test_rdma_read_pieces(void)
{
	const unsigned int nr = 17;
	struct rdma_fixture f;
	struct rds_iovec lv[17];
	unsigned int i;

	if (!fixture_open(&f, PAGE, (nr + 1) * PAGE))
		goto out;
	for (i = 0; i < nr; i++) {
		lv[i].addr = (uintptr_t)(f.bbuf + (i + 1) * PAGE - 1);
		lv[i].bytes = 2;
	}
	if (!fixture_mr(&f, 0, PAGE, 0, "GET_MR"))
		goto out;
	for (i = 0; i < PAGE; i++)
		f.abuf[i] = (char)(i * 7 + 1);
	read_pieces(&f, lv, nr);
	read_pieces(&f, lv, nr - 1);
out:
	fixture_close(&f);
}

void test_rdma_visible_on_delivery(void)
{
	enum { ROUNDS = 20, LEN = 65536 };
	struct rdma_fixture f;
	struct rds_iovec lv;
	struct rds_rdma_args ra;
	unsigned int i, bad = 0, lost = 0, payload = 0, notes = 0;
	struct rx rx;

	if (!fixture_open_mr(&f, LEN, LEN, LEN))
		goto out;
	lv.addr = (uintptr_t)f.bbuf;
	lv.bytes = LEN;
	for (i = 0; i < ROUNDS; i++) {
		pattern_fill(f.bbuf, LEN, 500 + i);
		mk_rdma(&ra, f.cookie, 0, LEN, &lv, 1,
			RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);
		if (send_rdma(f.p.b, &f.p.sa, &ra) < 0) {
			ok_diag(0, "sendmsg", "round %u: %s", i,
				tap_errname(errno));
			goto out;
		}
		/* A looks at its memory as soon as the message is there */
		if (rx_one(f.p.a, &rx, 0, WAIT_MS) < 0) {
			lost++;
			continue;
		}
		if (pattern_check(f.abuf, LEN, 500 + i) >= 0)
			bad++;
		if (rx.len != sizeof(op_payload) - 1 ||
		    memcmp(rx.data, op_payload, rx.len))
			payload++;
		if (rx_one(f.p.b, &rx, 0, WAIT_MS) == 0 && rx.nnotes == 1 &&
		    rx.notes[0].status == RDS_RDMA_SUCCESS)
			notes++;
	}
	is_eq(lost, 0, "A received all %u messages", ROUNDS);
	is_eq(bad, 0, "the written data was in A's memory when each arrived");
	is_eq(payload, 0, "each message carries its payload");
	is_eq(notes, ROUNDS, "B got a success notice for each");
out:
	fixture_close(&f);
}

void test_rdma_silent(void)
{
	struct rdma_fixture f;
	struct rds_iovec lv = { 0, 512 };
	struct rds_rdma_args ra;

	if (!fixture_open_mr(&f, PAGE, PAGE, PAGE))
		goto out;
	lv.addr = (uintptr_t)f.bbuf;
	pattern_fill(f.bbuf, 512, 41);
	mk_rdma(&ra, f.cookie, 100, 512, &lv, 1,
		RDS_RDMA_READWRITE | RDS_RDMA_SILENT | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(f.p.b, &f.p.sa, &ra), "silent write: sendmsg");
	expect_notice(f.p.b, ra.user_token, RDS_RDMA_SUCCESS,
		      "silent write: success notice");
	check_pattern(f.abuf + 100, 512, 41, "silent write: data landed");
	expect_quiet(f.p.a, QUIET_WAIT_MS,
		     "silent write: no message reaches A");

	memset(f.bbuf, 0, PAGE);
	pattern_fill(f.abuf, PAGE, 42);
	mk_rdma(&ra, f.cookie, 0, 512, &lv, 1,
		RDS_RDMA_SILENT | RDS_RDMA_NOTIFY_ME);
	is_ok(send_rdma(f.p.b, &f.p.sa, &ra), "silent read: sendmsg");
	expect_notice(f.p.b, ra.user_token, RDS_RDMA_SUCCESS,
		      "silent read: success notice");
	check_pattern(f.bbuf, 512, 42, "silent read: data read");
	expect_quiet(f.p.a, QUIET_WAIT_MS, "silent read: no message reaches A");

	/* a plain message afterwards still gets through */
	is_ok(send_to(f.p.b, &f.p.sa, "after", 5, 0),
	      "plain send after silent");
	expect_msg(f.p.a, NULL, "plain message after silent ops arrives");
out:
	fixture_close(&f);
}

void test_rdma_refused(void)
{
	enum { NV = RDS_DOCA_MAX_RDMA_IOVECS + 1 };
	size_t biglen = 2 * MIB;
	struct rdma_fixture f;
	char *ro = NULL;
	struct rds_iovec *many = calloc(NV, sizeof(*many));
	struct rds_iovec lv[3];
	struct rds_rdma_args ra, ra2;
	struct rds_atomic_args aa;
	uint64_t cookie = 0, old = 0, one = 1;
	struct cm c;
	unsigned int i;
	const uint64_t F = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME;

	if (!fixture_open(&f, PAGE, biglen) || !many)
		goto out;
	if (!refused_cookie(f.p.a, f.abuf, PAGE, &cookie))
		goto out;
	memset(f.abuf, 0x77, PAGE);
	memset(f.bbuf, 0x99, biglen);
	lv[0].addr = (uintptr_t)f.bbuf;
	lv[0].bytes = 64;

	mk_rdma(&ra, cookie, 0, 64, lv, 1, F);
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra) - 8);
	is_err(send_cm(f.p.b, &f.p.sa, op_payload, 7, &c), EINVAL,
	       "RDMA_ARGS cmsg too short -> EINVAL");
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, 8);
	is_err(send_cm(f.p.b, &f.p.sa, op_payload, 7, &c), EINVAL,
	       "RDMA_ARGS cmsg of 8 bytes -> EINVAL");

	mk_rdma(&ra, cookie, 0, 64, lv, 0, F);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), EINVAL, "nr_local 0 -> EINVAL");

	for (i = 0; i < NV; i++) {
		many[i].addr = (uintptr_t)f.bbuf + i;
		many[i].bytes = 1;
	}
	mk_rdma(&ra, cookie, 0, NV, many, NV, F);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), EMSGSIZE,
	       "nr_local RDS_DOCA_MAX_RDMA_IOVECS + 1 -> EMSGSIZE");

	mk_rdma(&ra, cookie, 0, 64, unmapped_addr(), 1, F);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), EFAULT,
	       "unmapped local_vec_addr -> EFAULT");

	lv[0].addr = (uintptr_t)f.bbuf;
	lv[0].bytes = 10;
	lv[1].addr = (uintptr_t)f.bbuf + 100;
	lv[1].bytes = 0;
	lv[2].addr = (uintptr_t)f.bbuf + 200;
	lv[2].bytes = 10;
	mk_rdma(&ra, cookie, 0, 20, lv, 3, F);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), EINVAL,
	       "zero-length local iovec -> EINVAL");

	lv[0].addr = ~0ULL - 5;
	lv[0].bytes = 64;
	mk_rdma(&ra, cookie, 0, 64, lv, 1, F);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), EINVAL,
	       "wrapping local iovec -> EINVAL");

	lv[0].addr = (uintptr_t)f.bbuf;
	lv[0].bytes = 64;
	mk_rdma(&ra, cookie, 0, 65, lv, 1, F);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), LX(EINVAL, EOPNOTSUPP),
	       "local 64 bytes, remote 65 -> %s",
	       LX("EINVAL", "EOPNOTSUPP (net/rds: remote may be longer)"));
	mk_rdma(&ra, cookie, 0, 63, lv, 1, F);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), EINVAL,
	       "local 64 bytes, remote 63 -> EINVAL");

	lv[0].addr = (uintptr_t)f.bbuf;
	lv[0].bytes = 3 * MIB / 4;
	lv[1].addr = (uintptr_t)f.bbuf + MIB;
	lv[1].bytes = 3 * MIB / 4;
	mk_rdma(&ra, cookie, 0, 3 * MIB / 2, lv, 2, F);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), EMSGSIZE,
	       "1.5 MiB in two iovecs -> EMSGSIZE");
	lv[0].bytes = RDS_DOCA_MAX_RDMA_SIZE + 1ULL;
	mk_rdma(&ra, cookie, 0, RDS_DOCA_MAX_RDMA_SIZE + 1ULL, lv, 1, F);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), EMSGSIZE,
	       "RDS_DOCA_MAX_RDMA_SIZE + 1 -> EMSGSIZE");

	lv[0].bytes = 64;
	mk_rdma(&ra, cookie, 0, 64, lv, 1, F | UNKNOWN_FLAG);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), LX(EINVAL, EOPNOTSUPP),
	       "unknown flag -> %s",
	       LX("EINVAL", "EOPNOTSUPP (net/rds ignores unknown flags)"));

	lv[0].addr = (uintptr_t)unmapped_addr();
	mk_rdma(&ra, cookie, 0, 64, lv, 1, F);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), EFAULT,
	       "write from unmapped local memory -> EFAULT");
	mk_rdma(&ra, cookie, 0, 64, lv, 1, RDS_RDMA_NOTIFY_ME);
	is_err(send_rdma(f.p.b, &f.p.sa, &ra), EFAULT,
	       "read into unmapped local memory -> EFAULT");
	ro = map_read_only();
	if (ro) {
		lv[0].addr = (uintptr_t)ro;
		mk_rdma(&ra, cookie, 0, 64, lv, 1, RDS_RDMA_NOTIFY_ME);
		is_err(send_rdma(f.p.b, &f.p.sa, &ra), EFAULT,
		       "read into read-only local memory -> EFAULT");
	}

	lv[0].addr = (uintptr_t)f.bbuf;
	mk_rdma(&ra, cookie, 0, 64, lv, 1, F);
	mk_rdma(&ra2, cookie, 64, 64, lv, 1, F);
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra2, sizeof(ra2));
	is_err(send_cm(f.p.b, &f.p.sa, op_payload, 7, &c), EINVAL,
	       "two RDMA_ARGS in one sendmsg -> EINVAL");

	mk_atomic(&aa, cookie, 0, &old, RDS_RDMA_NOTIFY_ME);
	aa.fadd.add = 1;
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	cm_add(&c, RDS_CMSG_ATOMIC_FADD, &aa, sizeof(aa));
	is_err(send_cm(f.p.b, &f.p.sa, op_payload, 7, &c),
	       LX(EINVAL, EOPNOTSUPP), "RDMA_ARGS + ATOMIC_FADD -> %s",
	       LX("EINVAL", "EOPNOTSUPP (net/rds takes both)"));
	cm_init(&c);
	cm_add(&c, RDS_CMSG_ATOMIC_FADD, &aa, sizeof(aa));
	cm_add(&c, RDS_CMSG_ATOMIC_CSWP, &aa, sizeof(aa));
	is_err(send_cm(f.p.b, &f.p.sa, op_payload, 7, &c), EINVAL,
	       "ATOMIC_FADD + ATOMIC_CSWP -> EINVAL");

	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	cm_add(&c, 77, &one, sizeof(one));
	is_err(send_cm(f.p.b, &f.p.sa, op_payload, 7, &c), EINVAL,
	       "RDMA_ARGS + unknown SOL_RDS type 77 -> EINVAL");
	cm_init(&c);
	cm_add(&c, 77, &one, sizeof(one));
	is_err(send_cm(f.p.b, &f.p.sa, op_payload, 7, &c), EINVAL,
	       "unknown SOL_RDS type 77 alone -> EINVAL");
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_STATUS, &one, sizeof(one));
	is_err(send_cm(f.p.b, &f.p.sa, op_payload, 7, &c), EINVAL,
	       "receive-only type RDS_CMSG_RDMA_STATUS -> EINVAL");

	expect_refused_quiet(&f.p, "op");
	check_fill(f.abuf, PAGE, 0x77, "A's memory untouched");
	check_fill(f.bbuf, biglen, 0x99, "B's memory untouched");

	/* the socket still works */
	lv[0].addr = (uintptr_t)f.bbuf;
	lv[0].bytes = 64;
	if (cfg.impl_doca)
		is_eq(run_write(&f.p, cookie, 0, f.bbuf, 64,
				"a valid write afterwards"),
		      RDS_RDMA_SUCCESS, "a valid write afterwards succeeds");
	else
		is_err(send_rdma(f.p.b, &f.p.sa, &ra), EOPNOTSUPP,
		       "net/rds loopback: a valid write -> EOPNOTSUPP");
out:
	fixture_close(&f);
	free(many);
	if (ro)
		munmap(ro, PAGE);
}

/*
 * Over IB the initiating kernel asks the region's kernel for a cookie's
 * device key once per connection (rdma_resolve counts the questions):
 * twenty operations with one cookie ask once, plus once per reset of the
 * connection meanwhile.  In software (loopback, TCP) nothing is asked.
 */
void test_rdma_resolve_once(void)
{
	struct rdma_fixture f;
	uint64_t r0 = 0, r1 = 0, n0 = 0, n1 = 0, want;
	int i, good = 0;

	if (!fixture_open_mr(&f, PAGE, PAGE, PAGE) ||
	    !counter_get(f.p.a, "rdma_resolve", &r0) ||
	    !counter_get(f.p.a, "conn_reset", &n0))
		goto out;
	pattern_fill(f.bbuf, PAGE, 5);
	for (i = 0; i < 20; i++)
		good += run_write(&f.p, f.cookie, 8 * i, f.bbuf, 8,
				  "a write") == RDS_RDMA_SUCCESS;
	is_eq(good, 20, "20 writes with one cookie succeed");
	if (!counter_get(f.p.a, "rdma_resolve", &r1) ||
	    !counter_get(f.p.a, "conn_reset", &n1))
		goto out;
	want = over_ib() ? 1 : 0;
	ok_diag(r1 - r0 >= want && r1 - r0 <= want + (n1 - n0),
		over_ib() ? "the cookie was resolved once" :
			    "in software nothing is resolved",
		"rdma_resolve rose by %llu, conn_reset by %llu",
		(unsigned long long)(r1 - r0), (unsigned long long)(n1 - n0));
out:
	fixture_close(&f);
}
