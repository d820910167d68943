// SPDX-License-Identifier: GPL-2.0
/*
 * mr_*: registration with RDS_GET_MR, RDS_GET_MR_FOR_DEST and RDS_FREE_MR:
 * argument checks, cookies, freeing, and the RLIMIT_MEMLOCK charge.
 */
#include "rdma.h"

#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

/*
 * @len bytes followed by an inaccessible guard page; unmap both with
 * xunmap(p, len + PAGE).
 */
static void *xmap_guarded(size_t len)
{
	char *p = xmap(len + PAGE);

	if (p && mprotect(p + len, PAGE, PROT_NONE)) {
		tap_check(0, "setup: mprotect", TAP_WHERE, "%s",
			  tap_errname(errno));
		munmap(p, len + PAGE);
		return NULL;
	}
	return p;
}

void test_mr_errors(void)
{
	struct rds_get_mr_args g;
	uint64_t cookie = 0;
	char *buf = xmap_guarded(4 * PAGE), *big = xmap(2 * MIB);
	void *hole = unmapped_addr();
	int u = -1, b = -1;

	if (!buf || !big)
		goto out;
	u = rds_socket();
	if (!sys_ok(u, "socket"))
		goto out;
	b = bound_socket_cfg(false, 0, "setup: bind");
	if (b < 0)
		goto out;

	memset(&g, 0, sizeof(g));
	g.vec.addr = (uintptr_t)buf;
	g.vec.bytes = 100;
	g.cookie_addr = (uintptr_t)&cookie;

	/* optlen, then the arguments, then the binding */
	is_err(setsockopt(u, SOL_RDS, RDS_GET_MR, &g, sizeof(g) - 1), EINVAL,
	       "unbound, short optlen -> EINVAL (optlen first)");
	is_err(setsockopt(u, SOL_RDS, RDS_GET_MR, NULL, sizeof(g)), EFAULT,
	       "unbound, NULL optval -> EFAULT (before ENOTCONN)");
	is_err(setsockopt(u, SOL_RDS, RDS_GET_MR, &g, sizeof(g)), ENOTCONN,
	       "unbound -> ENOTCONN");
	g.flags = UNKNOWN_FLAG;
	is_err(setsockopt(u, SOL_RDS, RDS_GET_MR, &g, sizeof(g)), ENOTCONN,
	       "unbound with an unknown flag -> ENOTCONN (before flags)");
	g.flags = 0;

	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR, &g, sizeof(g) - 1), EINVAL,
	       "short optlen -> EINVAL");
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR, &g, sizeof(g) + 8), EINVAL,
	       "long optlen -> EINVAL");
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR, &g, 0), EINVAL,
	       "optlen 0 -> EINVAL");
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR, hole, sizeof(g)), EFAULT,
	       "unmapped optval -> EFAULT");

	is_err(get_mr(b, buf, 100, UNKNOWN_FLAG, &cookie), EINVAL,
	       "unknown flag -> EINVAL");
	is_err(get_mr(b, buf, 100, 0x80000000ULL << 32, &cookie), EINVAL,
	       "unknown high flag -> EINVAL");
	is_err(get_mr(b, buf, 0, 0, &cookie), EINVAL, "zero length -> EINVAL");
	is_err(get_mr(b, hole, 0, 0, &cookie), EINVAL,
	       "zero length of unmapped memory -> EINVAL (before EFAULT)");
	is_err(get_mr(b, (void *)(uintptr_t)(~0ULL - 99), 200, 0, &cookie),
	       EINVAL, "wrapping range -> EINVAL");
	is_err(get_mr(b, (void *)(uintptr_t)(~0ULL - 99), 2 * MIB, 0,
		      &cookie), EINVAL,
	       "wrapping range above the limit -> EINVAL (before EMSGSIZE)");
	is_err(get_mr(b, big, RDS_DOCA_MAX_MR_SIZE + 1ULL, 0, &cookie),
	       EMSGSIZE, "RDS_DOCA_MAX_MR_SIZE + 1 -> EMSGSIZE");
	is_err(get_mr(b, big, 2 * MIB, 0, &cookie), EMSGSIZE,
	       "2 MiB -> EMSGSIZE");
	is_err(get_mr(b, hole, RDS_DOCA_MAX_MR_SIZE + 1ULL, 0, &cookie),
	       EMSGSIZE, "too big and unmapped -> EMSGSIZE (before EFAULT)");
	is_err(get_mr(b, hole, 100, 0, &cookie), EFAULT,
	       "unmapped memory -> EFAULT");
	is_err(get_mr(b, buf + 4 * PAGE - 100, 200, 0, &cookie), EFAULT,
	       "range running into an inaccessible page -> EFAULT");
	is_err(get_mr(b, buf, 100, 0, hole), EFAULT,
	       "unmapped cookie_addr -> EFAULT");
	is_eq(cookie, 0, "no cookie written by the failed calls");

	is_ok(get_mr(b, big, RDS_DOCA_MAX_MR_SIZE, 0, &cookie),
	      "RDS_DOCA_MAX_MR_SIZE exactly -> 0");
	ok(cookie != 0, "a cookie was written");
	is_ok(free_mr(b, cookie, 0), "freeing it -> 0");
	cookie = 0;
	is_ok(get_mr(b, buf + 123, 1, 0, &cookie), "1 byte -> 0");
	is_eq(cookie_off(cookie) & (PAGE - 1), 123,
	      "the cookie keeps the page offset of byte 0");
	is_ok(free_mr(b, cookie, 0), "freeing it -> 0");
out:
	if (u >= 0)
		close(u);
	if (b >= 0)
		close(b);
	xunmap(buf, 5 * PAGE);
	xunmap(big, 2 * MIB);
}

void test_mr_cookies(void)
{
	enum { CYCLES = 1000 };
	uint64_t c1 = 0, c2 = 0, c, *keys = calloc(CYCLES + 2, sizeof(*keys));
	struct rdma_fixture f;
	unsigned int i, n = 0, fails = 0;
	int st;

	if (!fixture_open(&f, PAGE, PAGE) || !keys)
		goto out;
	if (!is_ok(get_mr(f.p.a, f.abuf + 10, 100, 0, &c1), "first GET_MR") ||
	    !is_ok(get_mr(f.p.a, f.abuf + 10, 100, 0, &c2), "second GET_MR"))
		goto out;
	ok_diag(cookie_key(c1) != cookie_key(c2),
		"two registrations of one buffer get different keys",
		"cookies 0x%llx and 0x%llx", (unsigned long long)c1,
		(unsigned long long)c2);
	is_eq(cookie_off(c1) & (PAGE - 1), 10, "first cookie, page offset 10");
	is_eq(cookie_off(c2) & (PAGE - 1), 10, "second cookie, page offset 10");
	pattern_fill(f.bbuf, 100, 1);
	st = run_write(&f.p, c1, 0, f.bbuf, 100, "write through the first");
	is_eq(st, RDS_RDMA_SUCCESS, "write through the first cookie");
	memset(f.bbuf, 0, 100);
	st = run_read(&f.p, c2, 0, f.bbuf, 100, "read through the second");
	is_eq(st, RDS_RDMA_SUCCESS, "read through the second cookie");
	check_pattern(f.bbuf, 100, 1, "read back what was written");
	is_ok(free_mr(f.p.a, c1, 0), "free the first");
	st = run_read(&f.p, c2, 0, f.bbuf, 100, "second after freeing first");
	is_eq(st, RDS_RDMA_SUCCESS,
	      "the second still works after the first is freed");
	is_ok(free_mr(f.p.a, c2, 0), "free the second");
	keys[n++] = cookie_key(c1);
	keys[n++] = cookie_key(c2);

	for (i = 0; i < CYCLES; i++) {
		c = 0;
		if (get_mr(f.p.a, f.abuf, 64, 0, &c) || free_mr(f.p.a, c, 0)) {
			fails++;
			continue;
		}
		keys[n++] = cookie_key(c);
	}
	is_eq(fails, 0, "1000 register/free cycles succeed");
	is_eq(count_dups(keys, n), 0,
	      "no key handed out twice in %u registrations", n);
out:
	fixture_close(&f);
	free(keys);
}

void test_mr_free(void)
{
	uint64_t c1 = 0, c2 = 0, c3 = 0, cb = 0;
	struct rdma_fixture f;
	int st;

	if (!fixture_open(&f, PAGE, PAGE))
		goto out;
	if (!is_ok(get_mr(f.p.a, f.abuf, 256, 0, &c1), "GET_MR") ||
	    !is_ok(get_mr(f.p.b, f.bbuf, 256, 0, &cb), "GET_MR on B"))
		goto out;
	is_err(free_mr(f.p.a, cookie_make(cookie_key(c1) ^ 0x40000000, 0), 0),
	       EINVAL, "unknown cookie -> EINVAL");
	is_err(free_mr(f.p.a, cb, 0), EINVAL,
	       "another socket's cookie -> EINVAL");
	is_ok(free_mr(f.p.b, cb, 0), "which its owner can still free");
	is_err(free_mr(f.p.a, c1, RDS_RDMA_USE_ONCE), EINVAL,
	       "flags RDS_RDMA_USE_ONCE -> EINVAL");
	is_err(free_mr(f.p.a, c1, UNKNOWN_FLAG), EINVAL,
	       "unknown flag -> EINVAL");
	is_err(free_mr(f.p.a, c1, RDS_RDMA_INVALIDATE | UNKNOWN_FLAG), EINVAL,
	       "RDS_RDMA_INVALIDATE | unknown flag -> EINVAL");
	st = run_write(&f.p, c1, 0, f.bbuf, 64, "after refused frees");
	is_eq(st, RDS_RDMA_SUCCESS, "region still usable after refused frees");
	is_ok(free_mr(f.p.a, cookie_make(cookie_key(c1), 77), 0),
	      "FREE_MR ignores the cookie's offset");
	is_err(free_mr(f.p.a, c1, 0), EINVAL, "double free -> EINVAL");
	memset(f.abuf, 0x11, PAGE);
	pattern_fill(f.bbuf, 64, 3);
	st = run_write(&f.p, c1, 0, f.bbuf, 64, "write to a freed region");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "write to a freed region -> RDS_RDMA_REMOTE_ERROR");
	check_fill(f.abuf, PAGE, 0x11, "freed region's memory unchanged");

	if (!is_ok(get_mr(f.p.a, f.abuf, 256, 0, &c2), "GET_MR 2") ||
	    !is_ok(get_mr(f.p.a, f.abuf + 1024, 256, RDS_RDMA_INVALIDATE, &c3),
		   "GET_MR 3 with RDS_RDMA_INVALIDATE"))
		goto out;
	is_ok(free_mr(f.p.a, 0, 0), "cookie 0 without flags -> 0");
	st = run_write(&f.p, c2, 0, f.bbuf, 64, "region 2 after cookie 0");
	is_eq(st, RDS_RDMA_SUCCESS, "region 2 still usable after cookie 0");
	st = run_write(&f.p, c3, 0, f.bbuf, 64, "region 3 after cookie 0");
	is_eq(st, RDS_RDMA_SUCCESS, "region 3 still usable after cookie 0");
	check_pattern(f.abuf + 1024, 64, 3, "region 3 written");

	is_ok(free_mr(f.p.a, 0, RDS_RDMA_INVALIDATE),
	      "cookie 0 with RDS_RDMA_INVALIDATE -> 0");
	memset(f.abuf, 0x22, PAGE);
	st = run_write(&f.p, c2, 0, f.bbuf, 64,
		       "region 2 after invalidate all");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "region 2 freed by cookie 0 + INVALIDATE: RDS_RDMA_REMOTE_ERROR");
	st = run_read(&f.p, c3, 0, f.bbuf, 64, "region 3 after invalidate all");
	is_eq(st, RDS_RDMA_REMOTE_ERROR,
	      "region 3 freed by cookie 0 + INVALIDATE: RDS_RDMA_REMOTE_ERROR");
	check_fill(f.abuf, PAGE, 0x22, "freed regions' memory unchanged");
	is_err(free_mr(f.p.a, c2, 0), EINVAL, "FREE_MR of region 2 -> EINVAL");
	is_err(free_mr(f.p.a, c3, 0), EINVAL, "FREE_MR of region 3 -> EINVAL");
	is_ok(free_mr(f.p.a, 0, RDS_RDMA_INVALIDATE),
	      "cookie 0 with RDS_RDMA_INVALIDATE and no regions -> 0");
out:
	fixture_close(&f);
}

/* Drop CAP_IPC_LOCK from the effective set, with the raw system calls. */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	return syscall(SYS_capset, &h, d);
}

enum {
	ML_DROP, ML_RLIMIT, ML_SOCKET,
	ML_16K_FIRST, ML_1MIB, ML_16K_AFTER_ENOMEM, ML_TOOBIG,
	ML_128K_UNMAPPED, ML_48K_AFTER_UNMAPPED,
	ML_BADCOOKIE0, ML_BADCOOKIE1, ML_BADCOOKIE2, ML_BADCOOKIE3,
	ML_48K_AFTER_BADCOOKIE, ML_16K, ML_RETRIES, ML_COUNT
};

static int ml_retries;

/*
 * RDS_GET_MR, retried for up to 2 s while it fails with ENOMEM: a freed
 * region's pages are released (and uncharged) by a work item, so the
 * charge of a region freed just before may still be there.  A charge
 * that is never dropped still fails.
 */
static int get_mr_settled(int fd, const void *addr, uint64_t len,
			  uint64_t *cookie)
{
	long long deadline = now_ms() + 2000;
	int r;

	for (;;) {
		r = get_mr(fd, addr, len, 0, cookie);
		if (r == 0 || errno != ENOMEM || now_ms() > deadline)
			return r;
		ml_retries++;
		sleep_ms(5);
	}
}

/*
 * The child of test_mr_memlock(): errno (0: success) of each step.  Each
 * successful registration but the last is freed at once, so every step
 * starts with nothing pinned.
 */
static void memlock_child(int wfd, char *buf)
{
	union rds_sa sin = cfg_sa(false, 0);
	struct rlimit rl = { 64 * KIB, 64 * KIB };
	int res[ML_COUNT], fd, i;
	uint64_t cookie = 0;

#define STEP(k, expr) (res[k] = (expr) < 0 ? errno : 0)
#define STEP_FREE(k, expr) do {						\
	cookie = 0;							\
	STEP(k, expr);							\
	if (!res[k] && free_mr(fd, cookie, 0))				\
		res[k] = 1000 + errno;					\
} while (0)
	for (i = 0; i < ML_COUNT; i++)
		res[i] = -1;
	STEP(ML_DROP, drop_ipc_lock());
	STEP(ML_RLIMIT, setrlimit(RLIMIT_MEMLOCK, &rl));
	fd = rds_socket();
	STEP(ML_SOCKET, fd < 0 ? -1 : bind_sa(fd, &sin));
	STEP_FREE(ML_16K_FIRST, get_mr(fd, buf, 16 * KIB, 0, &cookie));
	STEP_FREE(ML_1MIB, get_mr(fd, buf, MIB, 0, &cookie));
	STEP_FREE(ML_16K_AFTER_ENOMEM, get_mr_settled(fd, buf, 16 * KIB,
						      &cookie));
	STEP_FREE(ML_TOOBIG, get_mr(fd, buf, MIB + 1, 0, &cookie));
	STEP_FREE(ML_128K_UNMAPPED, get_mr(fd, unmapped_addr(), 128 * KIB, 0,
					   &cookie));
	STEP_FREE(ML_48K_AFTER_UNMAPPED, get_mr_settled(fd, buf, 48 * KIB,
							&cookie));
	for (i = 0; i < 4; i++)
		STEP_FREE(ML_BADCOOKIE0 + i,
			  get_mr_settled(fd, buf, 32 * KIB, unmapped_addr()));
	STEP_FREE(ML_48K_AFTER_BADCOOKIE, get_mr_settled(fd, buf, 48 * KIB,
							 &cookie));
	STEP(ML_16K, get_mr_settled(fd, buf + 64 * KIB, 16 * KIB, &cookie));
	res[ML_RETRIES] = ml_retries;
#undef STEP_FREE
#undef STEP
	if (write(wfd, res, sizeof(res)) != sizeof(res))
		_exit(3);
	_exit(0);
}

void test_mr_memlock(void)
{
	char *buf = xmap(MIB + PAGE);
	int pfd[2] = { -1, -1 }, res[ML_COUNT], status = 0;
	ssize_t r;
	pid_t pid;

	if (!buf || !sys_ok(pipe(pfd), "pipe"))
		goto out;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* the child reports through the pipe only, never in TAP */
		close(pfd[0]);
		memlock_child(pfd[1], buf);
	}
	if (!sys_ok(pid, "fork"))
		goto out;
	close(pfd[1]);
	pfd[1] = -1;
	r = read(pfd[0], res, sizeof(res));
	waitpid(pid, &status, 0);
	if (!ok_diag(r == sizeof(res), "child reported",
		     "read %zd, child status 0x%x", r, status))
		goto out;
	/* errno values; 1000 + errno: FREE_MR failed */
	is_eq(res[ML_DROP], 0, "capset: CAP_IPC_LOCK dropped");
	is_eq(res[ML_RLIMIT], 0, "setrlimit(RLIMIT_MEMLOCK, 64 KiB)");
	is_eq(res[ML_SOCKET], 0, "socket and bind");
	is_eq(res[ML_16K_FIRST], 0, "GET_MR of 16 KiB -> 0 (and freed)");
	is_eq(res[ML_1MIB], ENOMEM, "GET_MR of 1 MiB -> ENOMEM");
	is_eq(res[ML_16K_AFTER_ENOMEM], 0,
	      "GET_MR of 16 KiB after the ENOMEM -> 0 (and freed)");
	is_eq(res[ML_TOOBIG], EMSGSIZE,
	      "GET_MR of 1 MiB + 1 -> EMSGSIZE (before ENOMEM)");
	is_eq(res[ML_128K_UNMAPPED], ENOMEM,
	      "GET_MR of 128 KiB unmapped -> ENOMEM (before EFAULT)");
	is_eq(res[ML_48K_AFTER_UNMAPPED], 0,
	      "GET_MR of 48 KiB after that -> 0 (and freed)");
	is_eq(res[ML_BADCOOKIE0], EFAULT,
	      "GET_MR of 32 KiB, bad cookie_addr -> EFAULT");
	is_eq(res[ML_BADCOOKIE1], EFAULT, "again -> EFAULT");
	is_eq(res[ML_BADCOOKIE2], EFAULT,
	      "again -> EFAULT (not ENOMEM: nothing left pinned)");
	is_eq(res[ML_BADCOOKIE3], EFAULT, "again -> EFAULT");
	is_eq(res[ML_48K_AFTER_BADCOOKIE], 0,
	      "GET_MR of 48 KiB after them -> 0 (nothing left charged)");
	is_eq(res[ML_16K], 0, "GET_MR of 16 KiB at the end -> 0");
	if (res[ML_RETRIES])
		tap_diag("mr_memlock: %d ENOMEM retries (5 ms apart) while freed regions' charges were released",
			 res[ML_RETRIES]);
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	xunmap(buf, MIB + PAGE);
}

void test_mr_for_dest_family(void)
{
	struct rds_get_mr_for_dest_args g;
	char *buf = xmap(PAGE);
	uint64_t cookie = 0;
	int b;

	b = bound_socket_cfg(false, 0, "setup: bind");
	if (!buf || b < 0)
		goto out;
	memset(&g, 0, sizeof(g));
	g.vec.addr = (uintptr_t)buf;
	g.vec.bytes = 100;
	g.cookie_addr = (uintptr_t)&cookie;
	g.dest_addr.ss_family = AF_INET6;
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &g, sizeof(g)),
	       EINVAL, "AF_INET6 dest_addr -> EINVAL");
	g.dest_addr.ss_family = AF_UNSPEC;
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &g, sizeof(g)),
	       EINVAL, "AF_UNSPEC dest_addr -> EINVAL");
	g.dest_addr.ss_family = cfg.family;
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &g, sizeof(g)),
	       EINVAL, "dest_addr of the socket's own family -> EINVAL");
	is_eq(cookie, 0, "no cookie written");
	is_err(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &g,
			  sizeof(struct rds_get_mr_args)), EINVAL,
	       "optlen of struct rds_get_mr_args -> EINVAL");
	{
		union rds_sa peer = cfg_sa(true, 0);

		memcpy(&g.dest_addr, &peer, sa_len(&peer));
	}
	is_ok(setsockopt(b, SOL_RDS, RDS_GET_MR_FOR_DEST, &g, sizeof(g)),
	      "AF_INET%s dest_addr -> 0", cfg.v6 ? "6" : "");
	ok(cookie != 0, "cookie written");
	is_ok(free_mr(b, cookie, 0), "FREE_MR of it -> 0");
out:
	if (b >= 0)
		close(b);
	xunmap(buf, PAGE);
}
