// SPDX-License-Identifier: GPL-2.0
/*
 * sec_*: cookies as capabilities: bound to their owner, not guessable, and
 * refused operations rate-limited per socket.
 */
#include "rdma.h"

#include <grp.h>
#include <sys/wait.h>

/*
 * Cookies are capabilities bound to their owner.  Root registers a region
 * on socket V; user nobody, in a child, (1) uses V's cookie through its
 * own sockets, which must not reach V's region, and (2) guesses cookies
 * near V's, and sequential ones from 1, at V's own port: every attempt
 * ends in RDS_RDMA_REMOTE_ERROR, V's memory is unchanged, and each
 * refusal is counted.  Over IB the device checks the key, and the owner
 * check is not made there yet (Documentation/security.rst).
 */
enum {
	ISO_SETUID, ISO_OWN_READ, ISO_OWN_WRITE, ISO_GUESSES, ISO_GUESS_OK,
	ISO_GUESS_REFUSED, ISO_THROTTLED, ISO_FAILED_CHECKS, ISO_COUNT
};

/*
 * One silent operation with @cookie from p->b to p->sa, whose outcome only
 * the notice tells.  A socket whose operations were refused too often in
 * the last second gets EAGAIN (counted in *@throttled): wait and send it
 * again.  Returns the status, or -1 after a failing check.
 */
static int guess(struct pair *p, uint64_t cookie, void *buf, uint64_t flags,
		 int *throttled)
{
	struct rds_iovec lv = { (uintptr_t)buf, 64 };
	struct rds_rdma_args ra;
	struct cm c;

	mk_rdma(&ra, cookie, 0, 64, &lv, 1,
		flags | RDS_RDMA_SILENT | RDS_RDMA_NOTIFY_ME);
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	while (send_cm(p->b, &p->sa, op_payload, sizeof(op_payload) - 1,
		       &c) < 0) {
		if (errno != EAGAIN)
			return ok_diag(0, "guess", "sendmsg: %s",
				       tap_errname(errno)), -1;
		(*throttled)++;
		sleep_ms(50);
	}
	return op_outcome(p, ra.user_token, false, "guess");
}

static void iso_child(int wfd, uint64_t victim_cookie,
		      const union rds_sa *victim)
{
	char *buf = xmap(PAGE);
	struct pair q = { .a = -1, .b = -1 }, g;
	int res[ISO_COUNT] = { 0 }, st;
	uint64_t key = cookie_key(victim_cookie);
	uint64_t off = cookie_off(victim_cookie), c;
	unsigned int i, j;

	res[ISO_SETUID] = setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			  setresuid(65534, 65534, 65534) ? errno : 0;
	if (res[ISO_SETUID] || !buf || !pair_open(&q))
		goto out;
	res[ISO_OWN_READ] = run_read(&q, victim_cookie, 0, buf, 64,
				     "nobody: V's cookie through its own port");
	pattern_fill(buf, PAGE, 5);
	res[ISO_OWN_WRITE] = run_write(&q, victim_cookie, 0, buf, 64,
				       "nobody: V's cookie, write, own port");

	/* guesses sent to V itself: silent, so only the notice comes back */
	g = q;
	g.sa = *victim;
	for (i = 0; i < 600; i++) {
		j = i % 200 + 1;
		switch (i / 200) {
		case 0:		/* the keys next to V's */
			c = cookie_make((key + (i & 1 ? j : -j)) & 0xffffffff,
					off);
			break;
		case 1:		/* V's key, other high halves */
			c = cookie_make(key, off + (i & 1 ? j : -j) * PAGE);
			break;
		default:	/* keys handed out in sequence */
			c = cookie_make(j, off & (PAGE - 1));
			break;
		}
		st = guess(&g, c, buf, i & 2 ? RDS_RDMA_READWRITE : 0,
			   &res[ISO_THROTTLED]);
		res[ISO_GUESSES]++;
		res[ISO_GUESS_OK] += st == RDS_RDMA_SUCCESS;
		res[ISO_GUESS_REFUSED] += st == RDS_RDMA_REMOTE_ERROR;
	}
out:
	res[ISO_FAILED_CHECKS] = tap_failures();
	if (write(wfd, res, sizeof(res)) != sizeof(res))
		_exit(3);
	_exit(0);
}

void test_sec_cookie_owner(void)
{
	struct rdma_fixture f;
	uint64_t cv = 0, before = 0, after = 0;
	int res[ISO_COUNT], fds[2] = { -1, -1 }, status, st;
	pid_t pid;

	if (!fixture_open(&f, PAGE, PAGE))
		goto out;
	memset(f.abuf, 0x5a, PAGE);
	if (!is_ok(get_mr(f.p.a, f.abuf, PAGE, 0, &cv), "V: GET_MR") ||
	    !counter_get(f.p.a, "rdma_refused", &before) ||
	    !is_ok(pipe(fds), "pipe"))
		goto out;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		iso_child(fds[1], cv, &f.p.sa);
	}
	close(fds[1]);
	fds[1] = -1;
	memset(res, 0xff, sizeof(res));
	ok(pid > 0 && read(fds[0], res, sizeof(res)) == sizeof(res),
	   "the unprivileged child reported");
	if (pid > 0)
		waitpid(pid, &status, 0);
	is_eq(res[ISO_SETUID], 0, "the child runs as nobody");
	is_eq(res[ISO_FAILED_CHECKS], 0, "the child's own checks passed");
	is_eq(res[ISO_OWN_READ], RDS_RDMA_REMOTE_ERROR,
	      "V's cookie sent to another socket cannot read V's region");
	is_eq(res[ISO_OWN_WRITE], RDS_RDMA_REMOTE_ERROR,
	      "nor write it");
	is_eq(res[ISO_GUESSES], 600, "600 guessed cookies tried at V's port");
	is_eq(res[ISO_GUESS_OK], 0, "none of them reached a region");
	is_eq(res[ISO_GUESS_REFUSED], 600,
	      "each ended in RDS_RDMA_REMOTE_ERROR");
	tap_diag("sec_cookie_owner: sendmsg() refused %d times while throttled",
		 res[ISO_THROTTLED]);
	check_fill(f.abuf, PAGE, 0x5a, "V's memory is unchanged");
	if (counter_get(f.p.a, "rdma_refused", &after))
		ok_diag(after - before >= 602, "each refusal is counted",
			"rdma_refused rose by %llu",
			(unsigned long long)(after - before));

	/* handed over, the cookie works for anyone who sends it to V */
	pattern_fill(f.bbuf, PAGE, 77);
	st = run_write(&f.p, cv, 0, f.bbuf, 64, "a peer given V's cookie");
	is_eq(st, RDS_RDMA_SUCCESS,
	      "a peer given V's cookie writes V's region through V's port");
	check_pattern(f.abuf, 64, 77, "the write landed");
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	fixture_close(&f);
}

/*
 * Refused operations are rate-limited per socket: a socket that keeps
 * sending operations with a wrong cookie soon gets EAGAIN from sendmsg()
 * (counted in rdma_throttled), while another socket is not held back and
 * a good cookie still works once the second is over.
 */
void test_sec_refusals_throttled(void)
{
	struct rdma_fixture f;
	uint64_t before = 0, after = 0;
	struct rds_iovec lv;
	struct rds_rdma_args ra;
	unsigned int sent = 0;
	int err = 0, other = -1, st;

	if (!fixture_open_mr(&f, PAGE, PAGE, PAGE) ||
	    !counter_get(f.p.a, "rdma_throttled", &before))
		goto out;
	lv.addr = (uintptr_t)f.bbuf;
	lv.bytes = 64;
	/* silent, on empty messages, no notice: only the refusals count */
	while (sent < 20000) {
		mk_rdma(&ra, f.cookie ^ (1ULL << 62), 0, 64, &lv, 1,
			RDS_RDMA_SILENT);
		if (send_rdma(f.p.b, &f.p.sa, &ra) < 0) {
			err = errno;
			break;
		}
		sent++;
	}
	tap_diag("sec_refusals_throttled: %u refused operations before the first refusal at sendmsg()",
		 sent);
	is_eq(err, EAGAIN, "a socket sending bad cookies soon gets EAGAIN");
	ok(sent >= 64, "but not before 64 refusals (%u)", sent);
	if (counter_get(f.p.a, "rdma_throttled", &after))
		ok(after > before, "rdma_throttled counts it");
	other = bound_socket_cfg(true, 0, "setup: another socket");
	if (other >= 0) {
		struct pair q = f.p;

		q.b = other;
		pattern_fill(f.bbuf, PAGE, 9);
		st = run_write(&q, f.cookie, 0, f.bbuf, 64, "another socket");
		is_eq(st, RDS_RDMA_SUCCESS,
		      "another socket of the same user is not held back");
		check_pattern(f.abuf, 64, 9, "its write landed");
	}
	sleep_ms(1100);
	st = run_write(&f.p, f.cookie, 64, f.bbuf, 64, "after a second");
	is_eq(st, RDS_RDMA_SUCCESS,
	      "a second later the throttled socket's good cookie works");
out:
	if (other >= 0)
		close(other);
	fixture_close(&f);
}

/*
 * Cookies cannot be guessed: over 1000 registrations no two share a key,
 * consecutive keys are not neighbours, and every random bit (0-31 and
 * 44-63, mr.h) takes both values about equally often, over IB too: the
 * device's key is not in the cookie.
 */
void test_sec_cookie_random(void)
{
	enum { N = 1000 };
	uint64_t *c = calloc(N, sizeof(*c)), keys[N];
	char *buf = xmap(PAGE);
	unsigned int i, b, fails = 0, near = 0, lopsided = 0;
	int fd = -1;

	if (!c || !buf)
		goto out;
	fd = bound_socket_cfg(false, 0, "setup: bind");
	if (fd < 0)
		goto out;
	for (i = 0; i < N; i++) {
		if (get_mr(fd, buf + 16, 64, 0, &c[i]) || free_mr(fd, c[i], 0))
			fails++;
		keys[i] = cookie_key(c[i]);
		if (i && (keys[i] - keys[i - 1] + 256) % (1ULL << 32) < 512)
			near++;
	}
	is_eq(fails, 0, "1000 register/free cycles succeed");
	is_eq(count_dups(keys, N), 0, "no key handed out twice");
	/* by chance: about 1000 * 512 / 2^32 */
	is_eq(near, 0, "no key lies within 256 of the one before");
	for (b = 0; b < 64; b++) {
		unsigned int ones = 0;

		if (b >= 32 && b < 44)
			continue;	/* the page offset */
		for (i = 0; i < N; i++)
			ones += (c[i] >> b) & 1;
		/* 300 and 700 are 12.6 standard deviations from 500 */
		if (ones < 300 || ones > 700)
			lopsided++;
	}
	is_eq(lopsided, 0, "each random bit is set in 30-70%% of cookies");
	ok(cookie_off(c[0]) % PAGE == 16, "the page offset is kept");
out:
	if (fd >= 0)
		close(fd);
	free(c);
	xunmap(buf, PAGE);
}
