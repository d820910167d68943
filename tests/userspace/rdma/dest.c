// SPDX-License-Identifier: GPL-2.0
/*
 * dest_*: passing cookies in messages: RDS_CMSG_RDMA_DEST and
 * RDS_CMSG_RDMA_MAP, and the ones refused.
 */
#include "rdma.h"

/* A sends a message with @c to B. */
static ssize_t send_a_to_b(struct pair *p, const struct cm *c)
{
	static const char msg[] = "cookie";

	return send_cm(p->a, &p->sb, msg, sizeof(msg) - 1, c);
}

/* A sends B a message with one control message of @type carrying @data. */
static ssize_t send_one(struct pair *p, int type, const void *data, size_t len)
{
	struct cm cm;

	cm_init(&cm);
	cm_add(&cm, type, data, len);
	return send_a_to_b(p, &cm);
}

/* One check: the message @rx that B got carries cookie @c. */
static bool check_dest(const struct rx *rx, uint64_t c)
{
	return ok_diag(rx->has_dest && rx->dest == c,
		       "B gets the cookie in RDS_CMSG_RDMA_DEST",
		       "has_dest %d, 0x%llx, expected 0x%llx", rx->has_dest,
		       (unsigned long long)rx->dest, (unsigned long long)c);
}

void test_dest_live(void)
{
	struct rdma_fixture f;
	struct rx rx;
	int st;

	if (!fixture_open(&f, PAGE, PAGE) ||
	    !fixture_mr(&f, 8, 512, 0, "GET_MR"))
		goto out;
	is_ok(send_one(&f.p, RDS_CMSG_RDMA_DEST, &f.cookie, sizeof(f.cookie)),
	      "sendmsg with RDS_CMSG_RDMA_DEST");
	if (expect_msg(f.p.b, &rx, "B gets the message")) {
		check_dest(&rx, f.cookie);
		ok(rx.len == 6 && !memcmp(rx.data, "cookie", 6),
		   "with its payload");
	}
	pattern_fill(f.bbuf, 64, 101);
	st = run_write(&f.p, rx.dest, 0, f.bbuf, 64, "write through it");
	is_eq(st, RDS_RDMA_SUCCESS, "a write through the received cookie");
	check_pattern(f.abuf + 8, 64, 101, "it landed");
	/* a plain message carries no cookie */
	is_ok(send_to(f.p.a, &f.p.sb, "x", 1, 0), "plain message");
	if (expect_msg(f.p.b, &rx, "B gets it"))
		ok(!rx.has_dest, "a plain message carries no RDMA_DEST");
out:
	fixture_close(&f);
}

void test_dest_refused(void)
{
	struct rdma_fixture f;
	uint64_t c = 0, cb = 0, cf = 0, zero = 0;
	uint32_t small = 1;
	struct cm cm;

	if (!fixture_open(&f, PAGE, 0))
		goto out;
	if (!is_ok(get_mr(f.p.a, f.abuf, 512, 0, &c), "GET_MR") ||
	    !is_ok(get_mr(f.p.b, f.abuf, 512, 0, &cb), "GET_MR on B") ||
	    !is_ok(get_mr(f.p.a, f.abuf, 512, 0, &cf), "GET_MR to free") ||
	    !is_ok(free_mr(f.p.a, cf, 0), "FREE_MR"))
		goto out;
	is_err(send_one(&f.p, RDS_CMSG_RDMA_DEST, &cb, sizeof(cb)), EINVAL,
	       "another socket's cookie -> EINVAL");
	is_err(send_one(&f.p, RDS_CMSG_RDMA_DEST, &cf, sizeof(cf)), EINVAL,
	       "a freed cookie -> EINVAL");
	is_err(send_one(&f.p, RDS_CMSG_RDMA_DEST, &zero, sizeof(zero)),
	       EINVAL, "cookie 0 -> EINVAL");
	is_err(send_one(&f.p, RDS_CMSG_RDMA_DEST, &small, sizeof(small)),
	       EINVAL, "4-byte RDMA_DEST -> EINVAL");
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &c, sizeof(c));
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &c, sizeof(c));
	is_err(send_a_to_b(&f.p, &cm), EINVAL, "two RDMA_DEST -> EINVAL");
	expect_quiet(f.p.b, QUIET_WAIT_MS, "nothing reaches B");
	is_ok(send_one(&f.p, RDS_CMSG_RDMA_DEST, &c, sizeof(c)),
	      "A's own live cookie -> sent");
	expect_msg(f.p.b, NULL, "and received");
out:
	fixture_close(&f);
}

void test_dest_map(void)
{
	struct rdma_fixture f;
	struct rds_get_mr_args g;
	uint64_t c = 0, c2 = 0;
	struct cm cm;
	struct rx rx;
	int st;

	if (!fixture_open(&f, PAGE, PAGE))
		goto out;
	memset(&g, 0, sizeof(g));
	g.vec.addr = (uintptr_t)f.abuf + 200;
	g.vec.bytes = 1000;
	g.cookie_addr = (uintptr_t)&c;
	is_ok(send_one(&f.p, RDS_CMSG_RDMA_MAP, &g, sizeof(g)),
	      "sendmsg with RDS_CMSG_RDMA_MAP");
	ok(c != 0, "cookie written to cookie_addr");
	is_eq(cookie_off(c) & (PAGE - 1), 200, "cookie page offset 200");
	memset(&rx, 0, sizeof(rx));
	if (expect_msg(f.p.b, &rx, "B gets the message"))
		check_dest(&rx, c);
	pattern_fill(f.bbuf, 100, 111);
	st = run_write(&f.p, c, 900, f.bbuf, 100, "write through it");
	is_eq(st, RDS_RDMA_SUCCESS, "a write through the mapped cookie");
	check_pattern(f.abuf + 1100, 100, 111, "it landed");

	g.cookie_addr = (uintptr_t)&c2;
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_MAP, &g, sizeof(g));
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &c, sizeof(c));
	is_err(send_a_to_b(&f.p, &cm), EINVAL,
	       "RDMA_MAP + RDMA_DEST -> EINVAL");
	cm_init(&cm);
	cm_add(&cm, RDS_CMSG_RDMA_DEST, &c, sizeof(c));
	cm_add(&cm, RDS_CMSG_RDMA_MAP, &g, sizeof(g));
	is_err(send_a_to_b(&f.p, &cm), EINVAL,
	       "RDMA_DEST + RDMA_MAP -> EINVAL");
	g.vec.bytes = 0;
	is_err(send_one(&f.p, RDS_CMSG_RDMA_MAP, &g, sizeof(g)), EINVAL,
	       "RDMA_MAP of 0 bytes -> EINVAL");
	g.vec.bytes = 100;
	g.cookie_addr = (uintptr_t)unmapped_addr();
	is_err(send_one(&f.p, RDS_CMSG_RDMA_MAP, &g, sizeof(g)), EFAULT,
	       "RDMA_MAP with an unmapped cookie_addr -> EFAULT");
	is_err(send_one(&f.p, RDS_CMSG_RDMA_MAP, &g, sizeof(g) - 8), EINVAL,
	       "short RDMA_MAP -> EINVAL");
	expect_quiet(f.p.b, QUIET_WAIT_MS, "nothing reaches B");
	is_ok(free_mr(f.p.a, c, 0), "FREE_MR of the mapped region");
out:
	fixture_close(&f);
}
