// SPDX-License-Identifier: GPL-2.0
/*
 * mrlist_*: RDS_DOCA_GET_MR_LIST, one region over several buffers: how
 * operations are spread over them, and the lists refused.
 */
#include "rdma.h"

static int get_mr_list(int fd, const struct rds_iovec *v, uint64_t n,
		       uint64_t flags, uint64_t *cookie)
{
	struct rds_doca_get_mr_list_args g;

	memset(&g, 0, sizeof(g));
	g.vecs_addr = (uintptr_t)v;
	g.nr_vecs = n;
	g.cookie_addr = (uintptr_t)cookie;
	g.flags = flags;
	return setsockopt(fd, SOL_RDS, RDS_DOCA_GET_MR_LIST, &g, sizeof(g));
}

void test_mrlist_basic(void)
{
	/* pages 0, 2-3 and 5 of a 7-page area: 1, 2, 1 pages, not adjacent */
	struct rdma_fixture f;
	struct rds_iovec v[3];
	uint64_t c = 0;
	char *want = malloc(16 * KIB);
	int st;

	if (!fixture_open(&f, 7 * PAGE, 5 * PAGE) || !want)
		goto out;
	v[0].addr = (uintptr_t)f.abuf;
	v[0].bytes = PAGE;
	v[1].addr = (uintptr_t)f.abuf + 2 * PAGE;
	v[1].bytes = 2 * PAGE;
	v[2].addr = (uintptr_t)f.abuf + 5 * PAGE;
	v[2].bytes = PAGE;
	memset(f.abuf, 0x3c, 7 * PAGE);
	if (!is_ok(get_mr_list(f.p.a, v, 3, 0, &c),
		   "GET_MR_LIST of 1, 2, 1 pages"))
		goto out;
	ok(c != 0, "a cookie was written");
	is_eq(cookie_off(c) & (PAGE - 1), 0,
	      "the cookie's page offset is 0 (zero-based)");

	pattern_fill(f.bbuf, 16 * KIB, 17);
	memcpy(want, f.bbuf, 16 * KIB);
	st = run_write(&f.p, c, 0, f.bbuf, 16 * KIB, "16 KiB write");
	is_eq(st, RDS_RDMA_SUCCESS, "a 16 KiB write succeeds");
	ok(!memcmp(f.abuf, want, PAGE), "bytes 0-4095 in buffer 1");
	ok(!memcmp(f.abuf + 2 * PAGE, want + PAGE, 2 * PAGE),
	   "bytes 4096-12287 in buffer 2");
	ok(!memcmp(f.abuf + 5 * PAGE, want + 3 * PAGE, PAGE),
	   "bytes 12288-16383 in buffer 3");
	check_fill(f.abuf + PAGE, PAGE, 0x3c,
		   "the gap after buffer 1 untouched");
	check_fill(f.abuf + 4 * PAGE, PAGE, 0x3c,
		   "the gap after buffer 2 untouched");
	check_fill(f.abuf + 6 * PAGE, PAGE, 0x3c, "the page after untouched");

	memset(f.bbuf, 0, 5 * PAGE);
	st = run_read(&f.p, c, 0, f.bbuf, 16 * KIB, "16 KiB read");
	is_eq(st, RDS_RDMA_SUCCESS, "a 16 KiB read succeeds");
	ok(!memcmp(f.bbuf, want, 16 * KIB), "it reads back the same bytes");

	pattern_fill(f.bbuf, 200, 18);
	st = run_write(&f.p, c, 12288 - 100, f.bbuf, 200,
		       "write across buffers 2 and 3");
	is_eq(st, RDS_RDMA_SUCCESS, "a write across buffers 2 and 3");
	pattern_fill(want, 200, 18);
	ok(!memcmp(f.abuf + 4 * PAGE - 100, want, 100) &&
	   !memcmp(f.abuf + 5 * PAGE, want + 100, 100),
	   "it is split at the buffer boundary");
	st = run_write(&f.p, c, 16 * KIB - 8, f.bbuf, 16, "past the end");
	is_eq(st, RDS_RDMA_REMOTE_ERROR, "past the end: RDS_RDMA_REMOTE_ERROR");
	is_ok(free_mr(f.p.a, c, 0), "FREE_MR");

	/* the first may start and the last may end anywhere */
	v[0].addr = (uintptr_t)f.abuf + 100;
	v[0].bytes = PAGE - 100;
	v[2].bytes = 1000;
	memset(f.abuf, 0x3c, 7 * PAGE);
	if (over_ib()) {
		/* a device maps byte 0 at its offset in the page */
		is_err(get_mr_list(f.p.a, v, 3, 0, &c), EINVAL,
		       "over IB: an unaligned first start -> EINVAL");
		goto out;
	}
	if (!is_ok(get_mr_list(f.p.a, v, 3, 0, &c),
		   "GET_MR_LIST with an unaligned first start and last end"))
		goto out;
	is_eq(cookie_off(c) & (PAGE - 1), 0,
	      "the cookie's page offset is 0 (zero-based)");
	pattern_fill(f.bbuf, PAGE - 100 + 2 * PAGE + 1000, 19);
	st = run_write(&f.p, c, 0, f.bbuf, PAGE - 100 + 2 * PAGE + 1000,
		       "write of the whole region");
	is_eq(st, RDS_RDMA_SUCCESS, "a write of the whole region");
	ok(!memcmp(f.abuf + 100, f.bbuf, PAGE - 100) &&
	   !memcmp(f.abuf + 2 * PAGE, f.bbuf + PAGE - 100, 2 * PAGE) &&
	   !memcmp(f.abuf + 5 * PAGE, f.bbuf + 3 * PAGE - 100, 1000),
	   "byte 0 is vecs[0]'s first byte, each buffer follows the previous");
	check_fill(f.abuf, 100, 0x3c, "bytes before vecs[0] untouched");
	check_fill(f.abuf + 5 * PAGE + 1000, PAGE - 1000, 0x3c,
		   "bytes after the last buffer untouched");
	st = run_write(&f.p, c, PAGE - 100 + 2 * PAGE + 1000 - 4, f.bbuf, 8,
		       "past the end");
	is_eq(st, RDS_RDMA_REMOTE_ERROR, "past the end: RDS_RDMA_REMOTE_ERROR");
	is_ok(free_mr(f.p.a, c, 0), "FREE_MR");
out:
	fixture_close(&f);
	free(want);
}

void test_mrlist_errors(void)
{
	char *area = xmap(MIB + 4 * PAGE);
	struct rds_doca_get_mr_list_args g;
	struct rds_iovec v[3];
	uint64_t c = 0;
	int b = -1, u = -1;

	if (!area)
		goto out;
	b = bound_socket_cfg(false, 0, "setup: bind");
	u = rds_socket();
	if (b < 0 || !sys_ok(u, "socket"))
		goto out;
	v[0].addr = (uintptr_t)area;
	v[0].bytes = PAGE;
	v[1].addr = (uintptr_t)area + 2 * PAGE;
	v[1].bytes = 2 * PAGE;
	v[2].addr = (uintptr_t)area + 5 * PAGE;
	v[2].bytes = PAGE;
	memset(&g, 0, sizeof(g));
	g.vecs_addr = (uintptr_t)v;
	g.nr_vecs = 3;
	g.cookie_addr = (uintptr_t)&c;

	is_err(setsockopt(b, SOL_RDS, RDS_DOCA_GET_MR_LIST, &g, sizeof(g) - 1),
	       EINVAL, "short optlen -> EINVAL");
	is_err(setsockopt(u, SOL_RDS, RDS_DOCA_GET_MR_LIST, &g, sizeof(g)),
	       ENOTCONN, "unbound -> ENOTCONN");
	is_err(get_mr_list(b, v, 0, 0, &c), EINVAL, "nr_vecs 0 -> EINVAL");
	is_err(get_mr_list(b, v, 3, UNKNOWN_FLAG, &c), EINVAL,
	       "unknown flag -> EINVAL");
	is_err(get_mr_list(b, unmapped_addr(), 3, 0, &c), EFAULT,
	       "unmapped vecs_addr -> EFAULT");

	v[1].addr += 8;
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "middle buffer not starting on a page -> EINVAL");
	v[1].addr -= 8;
	v[1].bytes -= 8;
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "middle buffer not ending on a page -> EINVAL");
	v[1].bytes += 8;
	v[0].bytes -= 1;
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "first buffer not ending on a page -> EINVAL");
	v[0].bytes += 1;
	v[2].addr += 1;
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "last buffer not starting on a page -> EINVAL");
	v[2].addr -= 1;
	v[1].bytes = 0;
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "a zero-length buffer -> EINVAL");
	v[1].bytes = 2 * PAGE;
	v[1].addr = ~0ULL & ~(PAGE - 1);
	is_err(get_mr_list(b, v, 3, 0, &c), EINVAL,
	       "a buffer that wraps around -> EINVAL");
	v[1].addr = (uintptr_t)area + 2 * PAGE;
	is_eq(c, 0, "no cookie written so far");

	v[0].addr = (uintptr_t)area;
	v[0].bytes = MIB;
	v[1].addr = (uintptr_t)area + MIB;
	v[1].bytes = PAGE;
	is_err(get_mr_list(b, v, 2, 0, &c), EMSGSIZE,
	       "1 MiB + 4 KiB in all -> EMSGSIZE");
	v[0].bytes = MIB - PAGE;
	v[1].addr = (uintptr_t)area + MIB - PAGE;
	is_ok(get_mr_list(b, v, 2, 0, &c), "exactly 1 MiB in all -> 0");
	is_ok(free_mr(b, c, 0), "FREE_MR");
	v[1].addr = (uintptr_t)unmapped_addr();
	is_err(get_mr_list(b, v, 2, 0, &c), EFAULT,
	       "an unmapped buffer -> EFAULT");
	v[1].addr = (uintptr_t)area + MIB - PAGE;
	is_err(get_mr_list(b, v, 2, 0, unmapped_addr()), EFAULT,
	       "unmapped cookie_addr -> EFAULT");
out:
	if (b >= 0)
		close(b);
	if (u >= 0)
		close(u);
	xunmap(area, MIB + 4 * PAGE);
}
