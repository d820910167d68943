// SPDX-License-Identifier: GPL-2.0
/*
 * remote_*: operations the owner's side refuses: unknown, freed and
 * out-of-range cookies, read-only, per-destination and use-once regions.
 */
#include "rdma.h"

static int get_mr_dest(int fd, const union rds_sa *dest,
		       const void *addr, uint64_t len, uint64_t flags,
		       uint64_t *cookie)
{
	struct rds_get_mr_for_dest_args g;

	memset(&g, 0, sizeof(g));
	memcpy(&g.dest_addr, dest, sa_len(dest));
	g.vec.addr = (uintptr_t)addr;
	g.vec.bytes = len;
	g.cookie_addr = (uintptr_t)cookie;
	g.flags = flags;
	return setsockopt(fd, SOL_RDS, RDS_GET_MR_FOR_DEST, &g, sizeof(g));
}

/*
 * Every refusal below is made before a device sees the operation: over IB
 * the owner's kernel refuses the cookie, or the initiator's checks the
 * operation against what the owner granted.  The connection the pair
 * shares is never reset (conn_reset stays).
 */
void test_remote_errors(void)
{
	struct rdma_fixture f;
	uint64_t c = 0, c2 = 0, c3 = 0, key, resets = 0, resets2 = 0;
	struct pair q;
	struct rx rx;
	int st;

	if (!fixture_open(&f, 2 * PAGE, PAGE) ||
	    !counter_get(f.p.a, "conn_reset", &resets))
		goto out;
	/* the region: abuf[100, 1100), cookie offset 100 */
	if (!is_ok(get_mr(f.p.a, f.abuf + 100, 1000, 0, &c), "GET_MR") ||
	    !is_ok(get_mr(f.p.a, f.abuf + 2048, 100, 0, &c2), "GET_MR 2"))
		goto out;
	key = cookie_key(c);
	is_ok(free_mr(f.p.a, c2, 0), "FREE_MR 2");
	memset(f.abuf, 0x33, 2 * PAGE);
	pattern_fill(f.bbuf, PAGE, 61);

	/*
	 * No socket owns port 0: an operation addressed to A's address at
	 * port 0 is refused like the others, and over IB is not asked of
	 * A's kernel (the protocol has no request for port 0).  First, while
	 * B's kernel holds no grant for the cookie.
	 */
	q = f.p;
	sa_set_port(&q.sa, 0);
	st = run_rdma_msg(&q, c, 0, f.bbuf, 16,
			  RDS_RDMA_READWRITE | RDS_RDMA_SILENT, true,
			  "write addressed to port 0");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "write addressed to port 0 -> RDS_RDMA_REMOTE_ERROR");
	check_fill(f.abuf, 2 * PAGE, 0x33,
		   "write addressed to port 0: A's memory unchanged");

#define REFUSED(cookie, raddr, len, write, name) do {			\
	st = run_rdma(&f.p, cookie, raddr, f.bbuf, len,			\
		      (write) ? RDS_RDMA_READWRITE : 0, name);		\
	is_eq(st, RDS_RDMA_REMOTE_ERROR, "%s -> RDS_RDMA_REMOTE_ERROR",	\
	      name);							\
	check_fill(f.abuf, 2 * PAGE, 0x33, "%s: A's memory unchanged",	\
		   name);						\
} while (0)

	REFUSED(cookie_make(key ^ 0x40000000, 100), 0, 16, 1,
		"write with an unknown cookie");
	REFUSED(cookie_make(key ^ 0x40000000, 100), 0, 16, 0,
		"read with an unknown cookie");
	REFUSED(c2, 0, 16, 1, "write with a freed cookie");
	REFUSED(c2, 0, 16, 0, "read with a freed cookie");
	REFUSED(c, 1000 - 8, 16, 1, "write running past the end");
	REFUSED(c, 1000 - 8, 16, 0, "read running past the end");
	REFUSED(c, 1000, 1, 1, "write just past the end");
	REFUSED(c, 5000, 16, 1, "write far past the end");
	REFUSED(c, ~0ULL - 7, 16, 1, "write at a remote address that wraps");
	/* a cookie whose high half was changed names no region */
	REFUSED(cookie_make(key, cookie_off(c) - 50), 0, 16, 1,
		"write before the region (high half 50 lower)");
	REFUSED(cookie_make(key, cookie_off(c) - 50), 40, 16, 0,
		"read straddling the region's start (high half 50 lower)");
	REFUSED(cookie_make(key, cookie_off(c) & ~(PAGE - 1)), 0, 1000, 1,
		"write from the page start (high half at the page)");
	REFUSED(cookie_make(key, cookie_off(c) + 4096), 0, 16, 1,
		"write after the region (high half one page higher)");
	REFUSED(c ^ (1ULL << 63), 0, 16, 1,
		"write with the cookie's top bit flipped");

	/*
	 * A cookie used, then freed: once a message A sends after the free
	 * arrives, B's side has forgotten the region (over IB, MR_REVOKE).
	 */
	if (is_ok(get_mr(f.p.a, f.abuf + 2048, 100, 0, &c3), "GET_MR 3")) {
		st = run_write(&f.p, c3, 0, f.bbuf, 16, "write to region 3");
		is_eq(st, RDS_RDMA_SUCCESS, "a write to region 3 succeeds");
		is_ok(free_mr(f.p.a, c3, 0), "FREE_MR 3 after that write");
		memset(f.abuf, 0x33, 2 * PAGE);
		is_eq(send_to(f.p.a, &f.p.sb, "freed", 5, 0), 5,
		      "A tells B of the free");
		ok(rx_one(f.p.b, &rx, 0, WAIT_MS) == 5, "B hears of it");
		REFUSED(c3, 0, 16, 1, "write with a cookie freed after use");
		REFUSED(c3, 0, 16, 0, "read with a cookie freed after use");
	}
#undef REFUSED

	st = run_write(&f.p, c, 0, f.bbuf, 16, "region byte 0");
	is_eq(st, RDS_RDMA_SUCCESS, "write at remote address 0 succeeds");
	check_pattern(f.abuf + 100, 16, 61, "it landed at the region's start");
	st = run_write(&f.p, c, 999, f.bbuf, 1, "last byte");
	is_eq(st, RDS_RDMA_SUCCESS, "write of the region's last byte succeeds");
	ok(f.abuf[1099] == f.bbuf[0] && (unsigned char)f.abuf[1100] == 0x33,
	   "last byte written, the one after untouched");
	if (counter_get(f.p.a, "conn_reset", &resets2))
		ok_diag(resets2 == resets, "no refusal reset the connection",
			"conn_reset rose by %llu",
			(unsigned long long)(resets2 - resets));
out:
	fixture_close(&f);
}

void test_remote_read_only(void)
{
	struct rdma_fixture f;
	int st;

	if (!fixture_open(&f, PAGE, PAGE) ||
	    !fixture_mr(&f, 0, 512, RDS_DOCA_MR_REMOTE_READ_ONLY,
			"GET_MR with RDS_DOCA_MR_REMOTE_READ_ONLY"))
		goto out;
	pattern_fill(f.abuf, PAGE, 71);
	pattern_fill(f.bbuf, PAGE, 72);
	st = run_write(&f.p, f.cookie, 0, f.bbuf, 64,
		       "write into a read-only region");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "write into a read-only region -> RDS_RDMA_REMOTE_ERROR");
	check_pattern(f.abuf, PAGE, 71, "read-only region unchanged");
	memset(f.bbuf, 0, PAGE);
	st = run_read(&f.p, f.cookie, 0, f.bbuf, 512,
		      "read of a read-only region");
	is_eq(st, RDS_RDMA_SUCCESS, "read of a read-only region succeeds");
	check_pattern(f.bbuf, 512, 71, "read returns the region's bytes");
	is_ok(free_mr(f.p.a, f.cookie, 0), "FREE_MR");
out:
	fixture_close(&f);
}

/*
 * A's memory all 0x44, and a region of its first 256 bytes for @d, the
 * cookie in *@c: one check named @what.
 */
static bool dest_region(struct rdma_fixture *f, const union rds_sa *d,
			uint64_t *c, const char *what)
{
	memset(f->abuf, 0x44, PAGE);
	return is_ok(get_mr_dest(f->p.a, d, f->abuf, 256, 0, c), "%s", what);
}

void test_remote_for_dest(void)
{
	struct rdma_fixture f;
	struct pair q = { .a = -1, .b = -1 };
	union rds_sa d;
	uint64_t c = 0;
	int cfd = -1, st;

	if (!fixture_open(&f, PAGE, PAGE))
		goto out;
	cfd = bound_socket_cfg(true, 0, "setup: bind C");
	if (cfd < 0)
		goto out;
	/* C: a second initiator on another port of B's address */
	q = f.p;
	q.b = cfd;
	q.sb = sock_addr(cfd);
	pattern_fill(f.bbuf, PAGE, 81);

	d = q.sb;
	if (!dest_region(&f, &d, &c, "GET_MR_FOR_DEST naming C's port"))
		goto out;
	st = run_write(&f.p, c, 0, f.bbuf, 64, "write from B");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "write from B (another port) -> RDS_RDMA_REMOTE_ERROR");
	check_fill(f.abuf, PAGE, 0x44, "A's memory unchanged");
	st = run_read(&f.p, c, 0, f.bbuf, 64, "read from B");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "read from B (another port) -> RDS_RDMA_REMOTE_ERROR");
	st = run_write(&q, c, 0, f.bbuf, 64, "write from C");
	is_eq(st, RDS_RDMA_SUCCESS, "write from C (the named port) succeeds");
	check_pattern(f.abuf, 64, 81, "C's write landed");
	is_ok(free_mr(f.p.a, c, 0), "FREE_MR");

	sa_set_port(&d, 0);
	if (!dest_region(&f, &d, &c,
			 "GET_MR_FOR_DEST naming B's address, port 0"))
		goto out;
	st = run_write(&f.p, c, 0, f.bbuf, 64, "port 0: write from B");
	is_eq(st, RDS_RDMA_SUCCESS, "port 0: write from B succeeds");
	st = run_write(&q, c, 64, f.bbuf, 64, "port 0: write from C");
	is_eq(st, RDS_RDMA_SUCCESS, "port 0: write from C succeeds");
	is_ok(free_mr(f.p.a, c, 0), "FREE_MR");

	/* B's address with its last byte changed */
	d = f.p.sb;
	if (cfg.v6)
		d.sin6.sin6_addr.s6_addr[15] ^= 0x3;
	else
		d.sin.sin_addr.s_addr ^= htonl(0x3);
	if (!dest_region(&f, &d, &c,
			 "GET_MR_FOR_DEST naming another address, B's port"))
		goto out;
	st = run_write(&f.p, c, 0, f.bbuf, 64, "another address: write from B");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "another address: write from B -> RDS_RDMA_REMOTE_ERROR");
	check_fill(f.abuf, PAGE, 0x44, "A's memory unchanged");
	is_ok(free_mr(f.p.a, c, 0), "FREE_MR");
out:
	if (cfd >= 0)
		close(cfd);
	fixture_close(&f);
}

/* GET_MR of abuf's first 256 bytes with RDS_RDMA_USE_ONCE: one check. */
static bool use_once_mr(struct rdma_fixture *f, const char *what)
{
	return fixture_mr(f, 0, 256, RDS_RDMA_USE_ONCE, what);
}

void test_remote_use_once(void)
{
	struct rdma_fixture f;
	int st;

	if (!fixture_open(&f, PAGE, PAGE) ||
	    !use_once_mr(&f, "GET_MR with RDS_RDMA_USE_ONCE"))
		goto out;
	pattern_fill(f.bbuf, PAGE, 91);
	st = run_write(&f.p, f.cookie, 0, f.bbuf, 64, "first write");
	is_eq(st, RDS_RDMA_SUCCESS, "first write succeeds");
	check_pattern(f.abuf, 64, 91, "first write landed");
	memset(f.abuf, 0x55, PAGE);
	st = run_write(&f.p, f.cookie, 0, f.bbuf, 64, "second write");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "second write -> RDS_RDMA_REMOTE_ERROR");
	check_fill(f.abuf, PAGE, 0x55, "second write did not land");
	is_err(free_mr(f.p.a, f.cookie, 0), EINVAL,
	       "FREE_MR of the used region -> EINVAL");

	if (!use_once_mr(&f, "GET_MR with RDS_RDMA_USE_ONCE again"))
		goto out;
	st = run_read(&f.p, f.cookie, 0, f.bbuf, 64, "first read");
	is_eq(st, RDS_RDMA_SUCCESS, "first read succeeds");
	check_fill(f.bbuf, 64, 0x55, "first read got the region's bytes");
	st = run_read(&f.p, f.cookie, 0, f.bbuf, 64, "second read");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "second read -> RDS_RDMA_REMOTE_ERROR");
	is_err(free_mr(f.p.a, f.cookie, 0), EINVAL,
	       "FREE_MR of the used region -> EINVAL");
out:
	fixture_close(&f);
}

/* Read the revocation counters of A's namespace, and its resets. */
static bool revoke_counts(struct rdma_fixture *f, uint64_t v[3])
{
	return counter_get(f->p.a, "rdma_revoke", &v[0]) &&
	       counter_get(f->p.a, "rdma_revoke_spared", &v[1]) &&
	       counter_get(f->p.a, "conn_reset", &v[2]);
}

/*
 * Wait (a region is taken off its device from a work item) until the
 * counters of @base rose by @want[0] and @want[1], or 10 s went by;
 * leaves the last reading in @now.
 */
static bool revoke_wait(struct rdma_fixture *f, const uint64_t base[3],
			const uint64_t want[2], uint64_t now[3])
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!revoke_counts(f, now))
			return false;
		if (now[0] - base[0] >= want[0] && now[1] - base[1] >= want[1])
			break;
		usleep(100 * 1000);
	}
	return true;
}

/*
 * Over IB, a region freed after A gave its device key to B's kernel
 * makes A tell B to forget the key (MR_REVOKE, counted in rdma_revoke),
 * unless it was a RDS_RDMA_USE_ONCE region that B used up: B forgot the
 * key when it posted the operation, so the message is spared (counted in
 * rdma_revoke_spared).  In software no key is given: neither counts.
 */
void test_remote_revoke(void)
{
	struct rdma_fixture f;
	uint64_t base[3], now[3], want[2] = { 0, over_ib() };
	int st;

	if (!fixture_open(&f, PAGE, PAGE) ||
	    !use_once_mr(&f, "GET_MR with RDS_RDMA_USE_ONCE") ||
	    !revoke_counts(&f, base))
		goto out;
	pattern_fill(f.bbuf, PAGE, 17);
	st = run_write(&f.p, f.cookie, 0, f.bbuf, 64, "a write");
	is_eq(st, RDS_RDMA_SUCCESS, "a write through a use-once region");
	if (!revoke_wait(&f, base, want, now))
		goto out;
	/* a reset may have taken a grant with it: then B asked again */
	ok_diag(now[2] != base[2] ?
		now[0] - base[0] + now[1] - base[1] <= 2 * want[1] :
		now[0] == base[0] && now[1] - base[1] == want[1],
		over_ib() ? "used up by the peer given its key: no MR_REVOKE" :
			    "in software: no key given, nothing revoked",
		"rdma_revoke +%llu, rdma_revoke_spared +%llu, conn_reset +%llu",
		(unsigned long long)(now[0] - base[0]),
		(unsigned long long)(now[1] - base[1]),
		(unsigned long long)(now[2] - base[2]));

	if (!fixture_mr(&f, 0, 256, 0, "GET_MR") || !revoke_counts(&f, base))
		goto out;
	st = run_write(&f.p, f.cookie, 0, f.bbuf, 64, "a write");
	is_eq(st, RDS_RDMA_SUCCESS, "a write through a region");
	is_ok(free_mr(f.p.a, f.cookie, 0), "FREE_MR of the region");
	want[0] = over_ib();
	want[1] = 0;
	if (!revoke_wait(&f, base, want, now))
		goto out;
	ok_diag(now[0] - base[0] == want[0] && now[1] == base[1],
		over_ib() ? "a region freed after its key was given: MR_REVOKE" :
			    "in software: nothing revoked",
		"rdma_revoke +%llu, rdma_revoke_spared +%llu",
		(unsigned long long)(now[0] - base[0]),
		(unsigned long long)(now[1] - base[1]));
out:
	fixture_close(&f);
}

/*
 * An RDS_RDMA_SILENT operation on an empty message is all that goes: no
 * message follows it to A (xmit_op_only counts it), so, as in Linux, it
 * does not use up a RDS_RDMA_USE_ONCE region.  With RDS_RDMA_FENCE a
 * message goes, and does.
 */
void test_silent_use_once(void)
{
	struct rdma_fixture f;
	uint64_t n0 = 0, n1 = 0;
	int st, i;

	if (!fixture_open(&f, PAGE, PAGE) ||
	    !use_once_mr(&f, "GET_MR with RDS_RDMA_USE_ONCE") ||
	    !counter_get(f.p.b, "xmit_op_only", &n0))
		goto out;
	for (i = 0; i < 3; i++) {
		pattern_fill(f.bbuf, 64, 60 + i);
		st = run_rdma_msg(&f.p, f.cookie, 0, f.bbuf, 64,
				  RDS_RDMA_READWRITE | RDS_RDMA_SILENT, true,
				  "silent write");
		is_eq(st, RDS_RDMA_SUCCESS, "silent write %d succeeds", i + 1);
		check_pattern(f.abuf, 64, 60 + i, "silent write %d landed",
			      i + 1);
	}
	st = run_rdma_msg(&f.p, f.cookie, 0, f.bbuf, 64, RDS_RDMA_SILENT, true,
			  "silent read");
	is_eq(st, RDS_RDMA_SUCCESS, "silent read succeeds");
	check_pattern(f.bbuf, 64, 62, "silent read got the region's bytes");
	if (counter_get(f.p.b, "xmit_op_only", &n1))
		is_eq((long long)(n1 - n0), 4LL,
		      "xmit_op_only counts the four operations");
	/* what a message of theirs would have done comes before this one */
	is_eq(send_to(f.p.b, &f.p.sa, "after", 5, 0), 5,
	      "plain send after them");
	expect_msg(f.p.a, NULL,
		   "plain message after silent operations arrives");
	is_ok(free_mr(f.p.a, f.cookie, 0),
	      "FREE_MR: silent operations did not use the region up");

	if (!use_once_mr(&f, "GET_MR with RDS_RDMA_USE_ONCE again"))
		goto out;
	st = run_rdma_msg(&f.p, f.cookie, 0, f.bbuf, 64,
			  RDS_RDMA_READWRITE | RDS_RDMA_SILENT | RDS_RDMA_FENCE,
			  true, "silent fenced write");
	is_eq(st, RDS_RDMA_SUCCESS, "silent fenced write succeeds");
	is_eq(send_to(f.p.b, &f.p.sa, "after", 5, 0), 5, "plain send after it");
	expect_msg(f.p.a, NULL, "plain message after the fenced write arrives");
	is_err(free_mr(f.p.a, f.cookie, 0), EINVAL,
	       "FREE_MR: the fenced write's message used the region up");
	if (counter_get(f.p.b, "xmit_op_only", &n0))
		is_eq((long long)(n0 - n1), 0LL,
		      "xmit_op_only does not count the fenced write");
out:
	fixture_close(&f);
}
