// SPDX-License-Identifier: GPL-2.0
/*
 * atomic_*: the four atomics (fetch-and-add, compare-and-swap and their
 * masked forms): results, the arguments refused, concurrency.
 */
#include "rdma.h"

/* The four atomics; the first atomic_types() of them are offered. */
static const int types[] = {
	RDS_CMSG_ATOMIC_FADD, RDS_CMSG_ATOMIC_CSWP,
	RDS_CMSG_MASKED_ATOMIC_FADD, RDS_CMSG_MASKED_ATOMIC_CSWP,
};

/* Atomic types the transport offers: no masked forms over IB. */
static unsigned int atomic_types(void)
{
	return over_ib() ? 2 : 4;
}

static uint64_t masked_cswp_ref(uint64_t old, uint64_t cmp, uint64_t swap,
				uint64_t cmp_mask, uint64_t swap_mask)
{
	if (((old ^ cmp) & cmp_mask) == 0)
		return (old & ~swap_mask) | (swap & swap_mask);
	return old;
}

static uint64_t masked_fadd_ref(uint64_t old, uint64_t add,
				uint64_t nocarry)
{
	uint64_t res = 0, carry = 0, s;
	int i;

	for (i = 0; i < 64; i++) {
		s = ((old >> i) & 1) + ((add >> i) & 1) + carry;
		res |= (s & 1) << i;
		carry = s >> 1;
		if ((nocarry >> i) & 1)
			carry = 0;
	}
	return res;
}

static uint64_t rnd64(uint32_t *s)
{
	uint64_t hi = xs32(s);

	return hi << 32 | xs32(s);
}

/* A region of 4 words at @words (8-aligned), and an aligned old-value slot. */
struct atomic_env {
	struct rdma_fixture f;
	uint64_t *words;	/* A's */
	uint64_t *old;		/* B's */
};

static bool atomic_env_open(struct atomic_env *e, uint64_t flags)
{
	e->words = NULL;
	e->old = NULL;
	if (!fixture_open(&e->f, PAGE, PAGE))
		return false;
	e->words = (uint64_t *)(e->f.abuf + 64);
	e->old = (uint64_t *)(e->f.bbuf + 128);
	return fixture_mr(&e->f, 64, 32, flags, "GET_MR of 4 words");
}

/*
 * Over IB: masked atomics are refused, and nothing reaches the region of
 * @e.  Returns whether it checked that, which is all the test does there.
 */
static bool masked_refused_over_ib(struct atomic_env *e, int type)
{
	struct rds_atomic_args aa;

	if (!over_ib())
		return false;
	e->words[0] = 0x1234;
	mk_atomic(&aa, e->f.cookie, 0, e->old, RDS_RDMA_NOTIFY_ME);
	aa.m_fadd.add = 1;
	aa.m_cswp.compare_mask = ~0ULL;
	aa.m_cswp.swap_mask = ~0ULL;
	is_err(send_atomic(e->f.p.b, &e->f.p.sa, type, &aa), EOPNOTSUPP,
	       "type %d over IB -> EOPNOTSUPP (no masked atomics)", type);
	expect_quiet(e->f.p.b, QUIET_WAIT_MS,
		     "no notice for the refused atomic");
	ok(e->words[0] == 0x1234, "the word is unchanged");
	return true;
}

/*
 * --no-atomics (an iWARP device): sendmsg() refuses each of the four
 * atomics with EOPNOTSUPP, sends nothing, and nothing reaches the region
 * of @e.  Returns whether it checked that, which is then all a test of
 * atomic results does.
 */
static bool refused_without_atomics(struct atomic_env *e)
{
	struct rds_atomic_args aa;
	unsigned int i;

	if (!no_atomics)
		return false;
	for (i = 0; i < 4; i++) {
		e->words[0] = 0x1234;
		mk_atomic(&aa, e->f.cookie, 0, e->old, RDS_RDMA_NOTIFY_ME);
		aa.fadd.add = 1;
		aa.m_cswp.compare_mask = ~0ULL;
		aa.m_cswp.swap_mask = ~0ULL;
		is_err(send_atomic(e->f.p.b, &e->f.p.sa, types[i], &aa),
		       EOPNOTSUPP,
		       "type %d, device without atomics -> EOPNOTSUPP",
		       types[i]);
		expect_quiet(e->f.p.b, QUIET_WAIT_MS,
			     "no notice for the refused atomic");
		expect_quiet(e->f.p.a, QUIET_WAIT_MS,
			     "no message for the refused atomic");
		ok(e->words[0] == 0x1234, "the word is unchanged");
	}
	return true;
}

/* A test of atomic results on a device without them: the refusals. */
static bool atomics_absent(void)
{
	struct atomic_env e;

	if (!no_atomics)
		return false;
	if (atomic_env_open(&e, 0))
		refused_without_atomics(&e);
	fixture_close(&e.f);
	return true;
}

/*
 * Run one atomic of @type on word @idx and check its status, the old value
 * at local_addr and the new value.
 */
static void atomic_case(struct atomic_env *e, int type,
			struct rds_atomic_args *aa, unsigned int idx,
			uint64_t before, uint64_t after, const char *what)
{
	int st;

	e->words[idx] = before;
	*e->old = 0xdeadbeefdeadbeefULL;
	aa->cookie = e->f.cookie;
	aa->remote_addr = idx * 8;
	aa->local_addr = (uintptr_t)e->old;
	aa->user_token = next_token++;
	st = run_atomic(&e->f.p, type, aa, what);
	if (st < 0)
		return;
	ok_diag(st == RDS_RDMA_SUCCESS && *e->old == before &&
		e->words[idx] == after, what,
		"status %d, old 0x%llx (expected 0x%llx), word 0x%llx (expected 0x%llx)",
		st, (unsigned long long)*e->old, (unsigned long long)before,
		(unsigned long long)e->words[idx],
		(unsigned long long)after);
}

void test_atomic_fadd(void)
{
	struct rds_atomic_args aa;
	struct atomic_env e;

	if (!atomic_env_open(&e, 0))
		goto out;
	if (refused_without_atomics(&e))
		goto out;
	e.words[0] = e.words[2] = 0x1111111111111111ULL;
	memset(&aa, 0, sizeof(aa));
	aa.fadd.add = 5;
	atomic_case(&e, RDS_CMSG_ATOMIC_FADD, &aa, 1, 10, 15, "10 + 5 = 15");
	ok(e.words[0] == 0x1111111111111111ULL &&
	   e.words[2] == 0x1111111111111111ULL, "neighbouring words untouched");
	aa.fadd.add = ~0ULL;
	atomic_case(&e, RDS_CMSG_ATOMIC_FADD, &aa, 1, 15, 14, "15 + (-1) = 14");
	aa.fadd.add = 2;
	atomic_case(&e, RDS_CMSG_ATOMIC_FADD, &aa, 3, ~0ULL, 1,
		    "~0 + 2 wraps to 1 (last word)");
	aa.fadd.add = 0x100000000ULL;
	atomic_case(&e, RDS_CMSG_ATOMIC_FADD, &aa, 0, 0xffffffffULL,
		    0x1ffffffffULL, "carry crosses the 32-bit halves");
out:
	fixture_close(&e.f);
}

void test_atomic_cswp(void)
{
	struct rds_atomic_args aa;
	struct atomic_env e;

	if (!atomic_env_open(&e, 0))
		goto out;
	if (refused_without_atomics(&e))
		goto out;
	memset(&aa, 0, sizeof(aa));
	aa.cswp.compare = 100;
	aa.cswp.swap = 200;
	atomic_case(&e, RDS_CMSG_ATOMIC_CSWP, &aa, 1, 100, 200,
		    "equal: swapped");
	aa.cswp.compare = 100;
	aa.cswp.swap = 300;
	atomic_case(&e, RDS_CMSG_ATOMIC_CSWP, &aa, 1, 200, 200,
		    "not equal: unchanged, old value returned");
	aa.cswp.compare = 0x8000000000000001ULL;
	aa.cswp.swap = 0;
	atomic_case(&e, RDS_CMSG_ATOMIC_CSWP, &aa, 2, 0x8000000000000001ULL, 0,
		    "equal in all 64 bits: swapped");
	aa.cswp.compare = 0x0000000000000001ULL;
	aa.cswp.swap = 7;
	atomic_case(&e, RDS_CMSG_ATOMIC_CSWP, &aa, 2, 0x8000000000000001ULL,
		    0x8000000000000001ULL, "differs in the top bit only: unchanged");
out:
	fixture_close(&e.f);
}

void test_atomic_masked_cswp(void)
{
	struct rds_atomic_args aa;
	struct atomic_env e;
	uint32_t seed = 12345;
	uint64_t old, want;
	unsigned int i, swapped = 0;
	char n[64];

	if (!atomic_env_open(&e, 0) ||
	    masked_refused_over_ib(&e, RDS_CMSG_MASKED_ATOMIC_CSWP))
		goto out;
	if (refused_without_atomics(&e))
		goto out;
	memset(&aa, 0, sizeof(aa));
	aa.m_cswp.compare = 0x00ff;
	aa.m_cswp.compare_mask = 0x00ff;
	aa.m_cswp.swap = 0xabcd0000;
	aa.m_cswp.swap_mask = 0xffff0000;
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_CSWP, &aa, 0, 0x123400ff,
		    0xabcd00ff, "masked bits equal: masked bits swapped");
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_CSWP, &aa, 0, 0x123401ff,
		    0xabcd01ff, "bits outside compare_mask ignored");
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_CSWP, &aa, 0, 0x123400fe,
		    0x123400fe, "masked bits differ: unchanged");
	for (i = 0; i < 24; i++) {
		old = rnd64(&seed);
		aa.m_cswp.compare_mask = rnd64(&seed);
		aa.m_cswp.swap_mask = rnd64(&seed);
		aa.m_cswp.swap = rnd64(&seed);
		/* half equal under the mask, half not (most likely) */
		aa.m_cswp.compare = i & 1 ? rnd64(&seed) :
			(old & aa.m_cswp.compare_mask) |
			(rnd64(&seed) & ~aa.m_cswp.compare_mask);
		want = masked_cswp_ref(old, aa.m_cswp.compare, aa.m_cswp.swap,
				       aa.m_cswp.compare_mask,
				       aa.m_cswp.swap_mask);
		swapped += want != old;
		snprintf(n, sizeof(n), "random case %u", i);
		atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_CSWP, &aa, i & 3, old,
			    want, n);
	}
	ok(swapped >= 6, "random cases include swaps (%u)", swapped);
out:
	fixture_close(&e.f);
}

void test_atomic_masked_fadd(void)
{
	struct rds_atomic_args aa;
	struct atomic_env e;
	uint32_t seed = 777;
	uint64_t old, want;
	unsigned int i;
	char n[64];

	if (!atomic_env_open(&e, 0) ||
	    masked_refused_over_ib(&e, RDS_CMSG_MASKED_ATOMIC_FADD))
		goto out;
	if (refused_without_atomics(&e))
		goto out;
	memset(&aa, 0, sizeof(aa));
	aa.m_fadd.add = 0x0000000100000001ULL;
	aa.m_fadd.nocarry_mask = 0;
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, 0,
		    0x00000000ffffffffULL, 0x0000000200000000ULL,
		    "nocarry_mask 0: a plain add");
	aa.m_fadd.nocarry_mask = 0x8000000080000000ULL;
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, 1,
		    0x00000000ffffffffULL, 0x0000000100000000ULL,
		    "two 32-bit fields: the low field wraps alone");
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, 1,
		    0xffffffff00000005ULL, 0x0000000000000006ULL,
		    "two 32-bit fields: the high field wraps alone");
	aa.m_fadd.add = 0x0101010101010101ULL;
	aa.m_fadd.nocarry_mask = 0x8080808080808080ULL;
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, 2,
		    0xff00ff7f80fe01ffULL, 0x0001008081ff0200ULL,
		    "eight byte-wide counters");
	aa.m_fadd.add = 1;
	aa.m_fadd.nocarry_mask = ~0ULL;
	atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, 3, 0xffULL, 0xfeULL,
		    "every bit its own field: xor");
	for (i = 0; i < 24; i++) {
		old = rnd64(&seed);
		aa.m_fadd.add = rnd64(&seed);
		aa.m_fadd.nocarry_mask = rnd64(&seed) & rnd64(&seed);
		want = masked_fadd_ref(old, aa.m_fadd.add,
				       aa.m_fadd.nocarry_mask);
		snprintf(n, sizeof(n), "random case %u", i);
		atomic_case(&e, RDS_CMSG_MASKED_ATOMIC_FADD, &aa, i & 3, old,
			    want, n);
	}
out:
	fixture_close(&e.f);
}

void test_atomic_refused(void)
{
	struct rdma_fixture f;
	char *ro = NULL;
	struct rds_atomic_args aa;
	uint64_t c0 = 0, c4 = 0, *old;
	unsigned int i;
	struct cm cm;
	char n[64];
	int st;

	if (!fixture_open(&f, PAGE, PAGE))
		goto out;
	old = (uint64_t *)(f.bbuf + 64);
	/* c0: abuf[0, 64), offset 0; c4: abuf[260, 324), offset 260 */
	if (!refused_cookie(f.p.a, f.abuf, 64, &c0) ||
	    !refused_cookie(f.p.a, f.abuf + 260, 64, &c4))
		goto out;
	if (!cfg.impl_doca)
		c4 = c0 + (260ULL << 32);	/* the offset 260 */
	memset(f.abuf, 0x66, PAGE);
	ro = map_read_only();

	for (i = 0; i < atomic_types(); i++) {
		snprintf(n, sizeof(n), "type %d", types[i]);
		mk_atomic(&aa, c0, 4, old, RDS_RDMA_NOTIFY_ME);
		is_err(send_atomic(f.p.b, &f.p.sa, types[i], &aa),
		       LX(EINVAL, EOPNOTSUPP),
		       "%s: remote_addr 4 at cookie offset 0 -> %s", n,
		       LX("EINVAL", "EOPNOTSUPP (net/rds: not checked)"));
		mk_atomic(&aa, c4, 0, old, RDS_RDMA_NOTIFY_ME);
		is_err(send_atomic(f.p.b, &f.p.sa, types[i], &aa),
		       LX(EINVAL, EOPNOTSUPP),
		       "%s: remote_addr 0 at cookie offset 260 -> %s", n,
		       LX("EINVAL", "EOPNOTSUPP (net/rds: not checked)"));
		mk_atomic(&aa, c4, 1, old, RDS_RDMA_NOTIFY_ME);
		is_err(send_atomic(f.p.b, &f.p.sa, types[i], &aa),
		       LX(EINVAL, EOPNOTSUPP),
		       "%s: remote_addr 1 at cookie offset 260 -> %s", n,
		       LX("EINVAL", "EOPNOTSUPP (net/rds: not checked)"));
		mk_atomic(&aa, c0, 8, (char *)old + 4, RDS_RDMA_NOTIFY_ME);
		is_err(send_atomic(f.p.b, &f.p.sa, types[i], &aa), EFAULT,
		       "%s: local_addr not 8-aligned -> EFAULT", n);
		mk_atomic(&aa, c0, 8, unmapped_addr(), RDS_RDMA_NOTIFY_ME);
		is_err(send_atomic(f.p.b, &f.p.sa, types[i], &aa), EFAULT,
		       "%s: unmapped local_addr -> EFAULT", n);
		if (ro) {
			mk_atomic(&aa, c0, 8, ro, RDS_RDMA_NOTIFY_ME);
			is_err(send_atomic(f.p.b, &f.p.sa, types[i], &aa),
			       EFAULT, "%s: read-only local_addr -> EFAULT", n);
		}
		mk_atomic(&aa, c0, 8, old, RDS_RDMA_NOTIFY_ME | UNKNOWN_FLAG);
		is_err(send_atomic(f.p.b, &f.p.sa, types[i], &aa),
		       LX(EINVAL, EOPNOTSUPP), "%s: unknown flag -> %s", n,
		       LX("EINVAL",
			  "EOPNOTSUPP (net/rds ignores unknown flags)"));
		mk_atomic(&aa, c0, 8, old, RDS_RDMA_NOTIFY_ME);
		cm_init(&cm);
		cm_add(&cm, types[i], &aa, 24);
		is_err(send_cm(f.p.b, &f.p.sa, op_payload, 7, &cm), EINVAL,
		       "%s: cmsg too short -> EINVAL", n);
	}
	expect_refused_quiet(&f.p, "atomic");
	check_fill(f.abuf, PAGE, 0x66, "A's memory untouched");

	/* cookie offset 260 + remote_addr 4 is aligned */
	mk_atomic(&aa, c4, 4, old, 0);
	aa.fadd.add = 1;
	if (no_atomics) {
		is_err(send_atomic(f.p.b, &f.p.sa, RDS_CMSG_ATOMIC_FADD, &aa),
		       EOPNOTSUPP,
		       "device without atomics: a valid atomic -> EOPNOTSUPP");
		goto out;
	}
	if (!cfg.impl_doca) {
		is_err(send_atomic(f.p.b, &f.p.sa, RDS_CMSG_ATOMIC_FADD, &aa),
		       EOPNOTSUPP, "net/rds loopback: a valid atomic -> EOPNOTSUPP");
		goto out;
	}
	st = run_atomic(&f.p, RDS_CMSG_ATOMIC_FADD, &aa,
			"cookie offset 260 + remote_addr 4");
	is_eq(st, RDS_RDMA_SUCCESS,
	      "cookie offset 260 + remote_addr 4 (aligned) succeeds");
	ok(*(uint64_t *)(f.abuf + 264) == 0x6666666666666667ULL &&
	   *old == 0x6666666666666666ULL, "it added to abuf[264]");
out:
	fixture_close(&f);
	if (ro)
		munmap(ro, PAGE);
}

void test_atomic_remote_errors(void)
{
	struct rdma_fixture f;
	struct rds_atomic_args aa;
	uint64_t cro = 0, c = 0, *old;
	unsigned int i;
	char n[64];
	int st;

	if (atomics_absent())
		return;
	if (!fixture_open(&f, PAGE, PAGE))
		goto out;
	old = (uint64_t *)f.bbuf;
	if (!is_ok(get_mr(f.p.a, f.abuf, 64, RDS_DOCA_MR_REMOTE_READ_ONLY,
			  &cro), "GET_MR read-only") ||
	    !is_ok(get_mr(f.p.a, f.abuf + 128, 16, 0, &c),
		   "GET_MR of 16 bytes"))
		goto out;
	memset(f.abuf, 0x12, PAGE);
	for (i = 0; i < atomic_types(); i++) {
		snprintf(n, sizeof(n), "type %d", types[i]);
		mk_atomic(&aa, cro, 8, old, 0);
		/* would change the word were it allowed */
		aa.m_cswp.compare = 0x1212121212121212ULL;
		aa.m_cswp.swap = 1;
		aa.m_cswp.compare_mask = 0;
		aa.m_cswp.swap_mask = ~0ULL;
		if (types[i] == RDS_CMSG_ATOMIC_FADD ||
		    types[i] == RDS_CMSG_MASKED_ATOMIC_FADD) {
			aa.fadd.add = 1;
			aa.m_fadd.nocarry_mask = 0;
		}
		st = run_atomic(&f.p, types[i], &aa, n);
		is_eq(st, RDS_RDMA_REMOTE_ERROR,
		      "%s: into a read-only region -> RDS_RDMA_REMOTE_ERROR", n);
		mk_atomic(&aa, c, 16, old, 0);
		aa.fadd.add = 1;
		st = run_atomic(&f.p, types[i], &aa, n);
		is_eq(st, RDS_RDMA_REMOTE_ERROR,
		      "%s: past the region's end -> RDS_RDMA_REMOTE_ERROR", n);
		mk_atomic(&aa, cookie_make(cookie_key(c) ^ 0x40000000, 0), 0,
			  old, 0);
		aa.fadd.add = 1;
		st = run_atomic(&f.p, types[i], &aa, n);
		is_eq(st, RDS_RDMA_REMOTE_ERROR,
		      "%s: unknown cookie -> RDS_RDMA_REMOTE_ERROR", n);
	}
	check_fill(f.abuf, PAGE, 0x12, "A's memory unchanged");
out:
	fixture_close(&f);
}

struct fadd_thread {
	int fd;
	union rds_sa to;
	uint64_t cookie;
	uint64_t *olds;
	unsigned int n, sent;
	int err;
};

static void *fadd_sender(void *arg)
{
	struct fadd_thread *t = arg;
	struct rds_atomic_args aa;
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		memset(&aa, 0, sizeof(aa));
		aa.cookie = t->cookie;
		aa.remote_addr = 0;
		aa.local_addr = (uintptr_t)&t->olds[i];
		aa.fadd.add = 1;
		aa.user_token = i;
		if (send_atomic(t->fd, &t->to, RDS_CMSG_ATOMIC_FADD, &aa) < 0) {
			t->err = errno;
			break;
		}
		t->sent++;
	}
	return NULL;
}

void test_atomic_concurrent(void)
{
	enum { N = 1000 };
	const uint64_t start = 0x123456789ULL;
	struct fadd_thread t[2];
	pthread_t th[2];
	char *abuf = xmap(PAGE);
	uint64_t *olds = calloc(2 * N, sizeof(*olds)), c = 0;
	unsigned int i, got = 0, started = 0, dups = 0;
	int a = -1, b2 = -1, b1 = -1;
	struct rx rx;

	if (atomics_absent())
		goto out;
	if (!abuf || !olds)
		goto out;
	a = bound_socket_cfg(false, 0, "setup: bind A");
	b1 = bound_socket_cfg(true, 0, "setup: bind B1");
	b2 = bound_socket_cfg(true, 0, "setup: bind B2");
	if (a < 0 || b1 < 0 || b2 < 0)
		goto out;
	if (!is_ok(get_mr(a, abuf, 8, 0, &c), "GET_MR of one word"))
		goto out;
	*(uint64_t *)abuf = start;
	for (i = 0; i < 2; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].fd = i ? b2 : b1;
		t[i].to = sock_addr(a);
		t[i].cookie = c;
		t[i].olds = olds + i * N;
		t[i].n = N;
		if (pthread_create(&th[i], NULL, fadd_sender, &t[i]))
			break;
		started++;
	}
	for (got = 0; got < 2 * N; got++)
		if (rx_one(a, &rx, 0, WAIT_MS) < 0)
			break;
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	is_eq(started, 2, "two sender threads started");
	ok_diag(t[0].sent == N && t[1].sent == N, "2000 fetch-adds sent",
		"sent %u (%s) and %u (%s)", t[0].sent, tap_errname(t[0].err),
		t[1].sent, tap_errname(t[1].err));
	is_eq(got, 2 * N, "A received 2000 messages");
	is_eq(*(uint64_t *)abuf - start, 2 * N, "the word went up by 2000");
	sort_u64(olds, 2 * N);
	for (i = 0; i < 2 * N; i++)
		dups += olds[i] != start + i;
	is_eq(dups, 0, "the old values are start .. start + 1999, each once");
	expect_quiet(b1, 100, "no notices on B1");
	expect_quiet(b2, 100, "no notices on B2");
out:
	if (a >= 0)
		close(a);
	if (b1 >= 0)
		close(b1);
	if (b2 >= 0)
		close(b2);
	free(olds);
	xunmap(abuf, PAGE);
}
