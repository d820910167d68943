// SPDX-License-Identifier: GPL-2.0
/*
 * Bounds on what an unprivileged user can make rds_doca queue, against
 * Documentation/rds_doca.rst ("Buffers", "Addresses"):
 *
 *  - probe replies count against the prober's receive buffer, and those
 *    that do not fit are dropped and counted in recv_ping_dropped;
 *  - completion notices count against the receive buffer: an operation
 *    that may owe one is refused (EAGAIN, or ETIMEDOUT after waiting)
 *    while there is no room, counted in notify_full, and every notice of
 *    an accepted operation arrives;
 *  - a region made by RDS_CMSG_RDMA_MAP for a send that is refused is
 *    freed before sendmsg() returns;
 *  - an RDMA operation's local pages are charged to the sender's VmPin
 *    while pinned, released when the operation completes (not when its
 *    message is read), and past RLIMIT_MEMLOCK bounded by the send buffer
 *    (Documentation/security.rst, "Resources");
 *  - MSG_ZEROCOPY sends in flight and completions unread are at most 1024
 *    a socket (ENOBUFS past them, counted in send_zcopy_full), and the
 *    pages of the sends in flight count against RLIMIT_MEMLOCK.
 *
 * Each flood runs in a child that drops to uid and gid 65534 first and
 * reports its numbers through a pipe; the checks are made here.  Counters
 * are read through RDS_INFO_COUNTERS.  Nothing is timed: waits are for
 * conditions, with generous deadlines.  Prints TAP (see tap.h).
 */
#include "rds_util.h"

#include <sys/mman.h>
#include <sys/resource.h>

/* Documentation/rds_doca.rst, "Buffers": what a reply or notice counts. */
#define MIN_CHARGE	256
/* SO_RCVBUF the flooding sockets set: half of the doubled value usable. */
#define FLOOD_RCVBUF	8192
/* 30 times and more what the buffers and rings under test admit */
#define FLOODS		1000
/* Wait this long for something that must happen. */
#define SETTLE_MS	60000

#define PAGE		4096UL
#define MIB		(1UL << 20)
/* RDMA operations of the pinning flood, each of one MiB. */
#define PIN_OPS		64
/*
 * /proc/vmstat sums per-CPU counters that are folded in batches, so the
 * pages pinned in the system read from it may be off by this many KiB
 * (VmPin is exact).
 */
#define PIN_SLACK_KB	1024

/* ------------------------------------------------------------------ */
/* helpers                                                             */
/* ------------------------------------------------------------------ */

/*
 * The usable receive (@opt SO_RCVBUF) or send (SO_SNDBUF) buffer of @fd:
 * half of what the option reports.
 */
static int buf_usable(int fd, int opt)
{
	int v = 0;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, opt, &v, &l))
		return -1;
	return v / 2;
}

/*
 * A socket bound to --addr (or @peer: --peer; --ipv6: theirs), port 0,
 * with SO_RCVBUF @rcvbuf (0: the default), or -1.
 */
static int buf_socket(bool peer, int rcvbuf)
{
	union rds_sa sin = cfg_sa(peer, 0);
	int fd = rds_socket();

	if (fd < 0)
		return -1;
	if (bind_sa(fd, &sin) ||
	    (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				  sizeof(rcvbuf)))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* buf_socket() with SO_RCVBUF FLOOD_RCVBUF. */
static int flood_socket(bool peer)
{
	return buf_socket(peer, FLOOD_RCVBUF);
}

/*
 * An RDMA write of @len bytes from @local to byte 0 of @cookie with
 * @flags, token @token, on an empty message; plus RDS_CMSG_RDMA_MAP of
 * @map if not NULL.
 */
static ssize_t send_write(int fd, const union rds_sa *to,
			  uint64_t cookie, void *local, uint64_t len,
			  uint64_t flags, uint64_t token,
			  const struct rds_get_mr_args *map, int sflags)
{
	struct rds_iovec lv = { (uintptr_t)local, len };
	struct rds_rdma_args ra;
	struct cm c;

	memset(&ra, 0, sizeof(ra));
	ra.cookie = cookie;
	ra.remote_vec.addr = 0;
	ra.remote_vec.bytes = len;
	ra.local_vec_addr = (uintptr_t)&lv;
	ra.nr_local = 1;
	ra.flags = RDS_RDMA_READWRITE | flags;
	ra.user_token = token;
	cm_init(&c);
	cm_add(&c, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	if (map)
		cm_add(&c, RDS_CMSG_RDMA_MAP, map, sizeof(*map));
	return cm_send(fd, to, NULL, 0, &c, sflags);
}

/* An RDS_RDMA_SILENT write of 8 bytes, as send_write() otherwise. */
static ssize_t send_write_op(int fd, const union rds_sa *to,
			     uint64_t cookie, void *local, uint64_t flags,
			     uint64_t token, const struct rds_get_mr_args *map,
			     int sflags)
{
	return send_write(fd, to, cookie, local, 8, RDS_RDMA_SILENT | flags,
			  token, map, sflags);
}

/*
 * Receive what is queued on @fd without waiting: notices (their tokens
 * to @seen, indexed by token, and statuses) and messages.  Returns the
 * number of notices; *msgs counts messages, *bad notices with an unknown
 * token, a repeated token or a status other than @want_success says.
 */
static unsigned int drain(int fd, unsigned char *seen, unsigned int nseen,
			  bool want_success, unsigned int *msgs,
			  unsigned int *bad)
{
	static union {
		char buf[CMSG_SPACE(sizeof(struct rds_rdma_notify)) * 64];
		struct cmsghdr align;
	} cbuf;
	unsigned int notes = 0;
	char data[64];

	for (;;) {
		struct iovec iov = { data, sizeof(data) };
		struct msghdr m = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = cbuf.buf,
			.msg_controllen = sizeof(cbuf.buf),
		};
		struct cmsghdr *h;
		bool note = false;

		if (recvmsg(fd, &m, MSG_DONTWAIT) < 0)
			return notes;
		for (h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
			struct rds_rdma_notify n;

			if (h->cmsg_level != SOL_RDS ||
			    h->cmsg_type != RDS_CMSG_RDMA_STATUS)
				continue;
			memcpy(&n, CMSG_DATA(h), sizeof(n));
			note = true;
			notes++;
			if (n.user_token >= nseen || seen[n.user_token] ||
			    (n.status == RDS_RDMA_SUCCESS) != want_success)
				(*bad)++;
			else
				seen[n.user_token] = 1;
		}
		if (!note)
			(*msgs)++;
	}
}

/* Wait up to @ms for @fd to be readable. */
static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) > 0;
}

/* A cookie that names no region: a key no region has, a random high half. */
static uint64_t bad_cookie(void)
{
	return 0x5a5a5000ULL << 32 | 0x7ffffff1ULL;
}

/* Wait up to SETTLE_MS for VmPin to be @kb; returns the last value. */
static long vm_pin_settle(long kb)
{
	long long deadline = now_ms() + SETTLE_MS;
	long v;

	while ((v = vm_pin_kb()) != kb && now_ms() < deadline)
		sleep_ms(5);
	return v;
}

/*
 * Pages pinned in the whole system (FOLL_PIN): what /proc/vmstat says was
 * pinned minus what was unpinned, charged or not; -1 if unknown.
 */
static long long pins_now(void)
{
	FILE *f = fopen("/proc/vmstat", "r");
	long long acq = -1, rel = -1, v;
	char name[64];

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", name, &v) == 2) {
		if (!strcmp(name, "nr_foll_pin_acquired"))
			acq = v;
		else if (!strcmp(name, "nr_foll_pin_released"))
			rel = v;
	}
	fclose(f);
	return acq < 0 || rel < 0 ? -1 : acq - rel;
}

/* ------------------------------------------------------------------ */
/* probe replies                                                       */
/* ------------------------------------------------------------------ */

struct probe_res {
	int err;		/* privilege drop */
	int setup_err;		/* socket, bind, SO_RCVBUF, counters */
	int usable;		/* half of SO_RCVBUF */
	unsigned int sent;
	int send_err;		/* errno of the first failed probe */
	bool settled;		/* every reply was queued or dropped */
	uint64_t delivered;	/* recv_delivered delta */
	uint64_t dropped;	/* recv_ping_dropped delta */
	unsigned int queued;	/* replies read back */
	unsigned int other;	/* messages from a port other than 0 */
};

static void probe_child(void *arg)
{
	struct probe_res *res = arg;
	union rds_sa to = cfg_sa(true, 0);
	uint64_t d0, p0, d1 = 0, p1 = 0;
	long long deadline;
	int fd;

	fd = flood_socket(false);
	if (fd < 0 || !counter_read(fd, "recv_delivered", &d0) ||
	    !counter_read(fd, "recv_ping_dropped", &p0)) {
		res->setup_err = errno ? errno : EINVAL;
		return;
	}
	res->usable = buf_usable(fd, SO_RCVBUF);
	for (res->sent = 0; res->sent < FLOODS; res->sent++) {
		if (send_to(fd, &to, NULL, 0, 0) < 0) {
			res->send_err = errno;
			break;
		}
	}
	/* every reply is either queued (delivered) or dropped, in time */
	deadline = now_ms() + SETTLE_MS;
	do {
		if (!counter_read(fd, "recv_delivered", &d1) ||
		    !counter_read(fd, "recv_ping_dropped", &p1))
			break;
		if ((d1 - d0) + (p1 - p0) >= res->sent) {
			res->settled = true;
			break;
		}
		sleep_ms(10);
	} while (now_ms() < deadline);
	res->delivered = d1 - d0;
	res->dropped = p1 - p0;

	for (;;) {
		union rds_sa from;
		char buf[16];
		ssize_t r = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from,
				     &(socklen_t){ sizeof(from) });

		if (r < 0)
			break;
		if (r == 0 && !sa_port(&from))
			res->queued++;
		else
			res->other++;
	}
	close(fd);
}

static void test_probe_flood(void)
{
	struct probe_res res;
	unsigned int limit;

	if (!run_as_nobody(probe_child, &res, sizeof(res)))
		return;
	if (!is_eq(res.setup_err, 0, "setup: socket, SO_RCVBUF %d, counters",
		   FLOOD_RCVBUF))
		return;
	limit = res.usable / MIN_CHARGE;
	tap_diag("probe_flood: %u probes, %u replies queued, %llu dropped (recv_ping_dropped), buffer %d bytes: %u replies",
		 res.sent, res.queued, (unsigned long long)res.dropped,
		 res.usable, limit);
	is_eq(res.usable, FLOOD_RCVBUF, "usable receive buffer is %d bytes",
	      FLOOD_RCVBUF);
	ok_diag(res.sent == FLOODS,
		"unprivileged: " TAP_STR(FLOODS) " probes sent",
		"sent %u, then %s", res.sent, tap_errname(res.send_err));
	ok_diag(res.settled, "every reply was queued or dropped",
		"recv_delivered +%llu, recv_ping_dropped +%llu for %u probes",
		(unsigned long long)res.delivered,
		(unsigned long long)res.dropped, res.sent);
	ok_diag(res.queued >= 1 && res.queued <= limit,
		"replies queued: at least 1, at most what the buffer admits",
		"%u queued, the buffer admits %u (%d / %d)", res.queued, limit,
		res.usable, MIN_CHARGE);
	is_eq(res.queued, res.delivered,
	      "the replies read are the ones delivered");
	is_eq(res.dropped, (uint64_t)res.sent - res.queued,
	      "recv_ping_dropped rose by the rest");
	is_eq(res.other, 0, "nothing but replies from port 0 queued");
}

/* ------------------------------------------------------------------ */
/* completion notices                                                  */
/* ------------------------------------------------------------------ */

struct notify_res {
	int err;		/* privilege drop */
	int setup_err;
	int usable;
	unsigned int accepted;	/* sendmsg() took the operation */
	unsigned int eagain;	/* refused with EAGAIN */
	unsigned int other;	/* refused otherwise */
	int other_err;		/* its errno */
	uint64_t full;		/* notify_full delta over the flood */
	bool settled;		/* a notice for every accepted operation */
	unsigned int notices;
	unsigned int bad;	/* unknown, repeated or successful */
	unsigned int msgs;	/* messages instead of notices */
	int block_err;		/* errno of the blocking send when full */
	uint64_t block_full;	/* notify_full delta over it */
	int again_err;		/* errno of a send after draining, 0: sent */
	bool again_notice;	/* and its notice came */
};

static bool notify_recverr;

/*
 * The target of the operations: a socket on the peer address, and a
 * cookie naming nothing, so every operation fails there and owes a
 * notice with RDS_RDMA_NOTIFY_ME and with RDS_RECVERR alike.
 */
static bool op_target(union rds_sa *to, uint64_t *cookie, int *owner)
{
	union rds_sa sin = cfg_sa(true, 0);

	*owner = rds_socket();
	if (*owner < 0 || bind_sa(*owner, &sin))
		return false;
	*to = sock_addr(*owner);
	*cookie = bad_cookie();
	return true;
}

static void notify_child(void *arg)
{
	struct notify_res *res = arg;
	static unsigned char seen[FLOODS + 3];
	char *local = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t flags = notify_recverr ? 0 : RDS_RDMA_NOTIFY_ME;
	uint64_t cookie = 0, f0, f1 = 0;
	struct timeval tv = { 0, 200000 };
	union rds_sa to;
	long long deadline;
	int fd, owner = -1, one = 1;
	unsigned int i;
	ssize_t r;

	memset(seen, 0, sizeof(seen));
	fd = flood_socket(false);
	if (local == MAP_FAILED || fd < 0 ||
	    !op_target(&to, &cookie, &owner) ||
	    (notify_recverr &&
	     setsockopt(fd, SOL_RDS, RDS_RECVERR, &one, sizeof(one))) ||
	    !counter_read(fd, "notify_full", &f0)) {
		res->setup_err = errno ? errno : EINVAL;
		return;
	}
	res->usable = buf_usable(fd, SO_RCVBUF);

	/* tokens 1..FLOODS; nothing is read meanwhile */
	for (i = 1; i <= FLOODS; i++) {
		r = send_write_op(fd, &to, cookie, local, flags, i, NULL,
				  MSG_DONTWAIT);
		if (r >= 0)
			res->accepted++;
		else if (errno == EAGAIN)
			res->eagain++;
		else if (!res->other++)
			res->other_err = errno;
	}
	counter_read(fd, "notify_full", &f1);
	res->full = f1 - f0;

	/* still full: a blocking send waits SO_SNDTIMEO, then ETIMEDOUT */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == 0) {
		f0 = f1;
		r = send_write_op(fd, &to, cookie, local, flags, FLOODS + 1,
				  NULL, 0);
		res->block_err = r < 0 ? errno : 0;
		counter_read(fd, "notify_full", &f1);
		res->block_full = f1 - f0;
		if (r >= 0)
			res->accepted++;
	}

	deadline = now_ms() + SETTLE_MS;
	while (res->notices < res->accepted && now_ms() < deadline) {
		readable(fd, 100);
		res->notices += drain(fd, seen, sizeof(seen), false,
				      &res->msgs, &res->bad);
	}
	res->settled = res->notices == res->accepted;

	/* the room is back */
	r = send_write_op(fd, &to, cookie, local, flags, FLOODS + 2, NULL,
			  MSG_DONTWAIT);
	res->again_err = r < 0 ? errno : 0;
	deadline = now_ms() + SETTLE_MS;
	while (!r && !seen[FLOODS + 2] && now_ms() < deadline) {
		unsigned int bad = 0, msgs = 0;

		readable(fd, 100);
		drain(fd, seen, sizeof(seen), false, &msgs, &bad);
	}
	res->again_notice = seen[FLOODS + 2];
	close(fd);
	close(owner);
	munmap(local, PAGE);
}

static void notify_flood(bool recverr)
{
	struct notify_res res;
	unsigned int limit;

	notify_recverr = recverr;
	if (!run_as_nobody(notify_child, &res, sizeof(res)))
		return;
	if (!is_eq(res.setup_err, 0, "setup: sockets, SO_RCVBUF %d, target",
		   FLOOD_RCVBUF))
		return;
	limit = res.usable / MIN_CHARGE;
	tap_diag("%s: %u operations accepted, %u refused (EAGAIN), notify_full +%llu, %u notices read; room for %u",
		 recverr ? "notify_recverr_flood" : "notify_flood",
		 res.accepted, res.eagain, (unsigned long long)res.full,
		 res.notices, limit);
	ok_diag(res.accepted >= 1 && res.accepted <= limit,
		"operations accepted: at least 1, at most the notices the buffer admits",
		"%u accepted, the buffer admits %u (%d / %d)", res.accepted,
		limit, res.usable, MIN_CHARGE);
	ok_diag(res.other == 0, "no refusal but EAGAIN", "%u refused with %s",
		res.other, tap_errname(res.other_err));
	is_eq(res.eagain + res.accepted, FLOODS + (res.block_err ? 0 : 1),
	      "every operation accepted or refused with EAGAIN");
	is_eq(res.full, res.eagain, "notify_full counts each refusal");
	is_eq(res.block_err, ETIMEDOUT,
	      "blocking send with no room waits SO_SNDTIMEO -> ETIMEDOUT");
	ok(res.block_full >= 1, "notify_full counts the blocking refusal");
	ok_diag(res.settled && !res.bad && !res.msgs,
		"a notice for every accepted operation, each once, a failure",
		"%u notices for %u operations, %u bad, %u messages",
		res.notices, res.accepted, res.bad, res.msgs);
	is_eq(res.again_err, 0, "notices read: an operation is accepted again");
	ok(res.again_notice, "and its notice comes");
}

static void test_notify_flood(void)
{
	notify_flood(false);
}

static void test_notify_recverr_flood(void)
{
	notify_flood(true);
}

/* ------------------------------------------------------------------ */
/* RDS_CMSG_RDMA_MAP of a refused send                                 */
/* ------------------------------------------------------------------ */

static void test_map_refused(void)
{
	static unsigned char seen[FLOODS + 2];
	char *local = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *area = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rds_get_mr_args map;
	union rds_sa to;
	uint64_t cookie = 0, mapped = 0, f0 = 0, f1 = 0;
	unsigned int i, n = 0, bad = 0, msgs = 0;
	int fd = -1, owner = -1, e = 0;
	long base, pin0, pin1, pin2;
	ssize_t r = 0;

	memset(seen, 0, sizeof(seen));
	if (!ok(local != MAP_FAILED && area != MAP_FAILED, "setup: mmap"))
		return;
	memset(area, 1, 16 * PAGE);
	fd = flood_socket(false);
	if (!sys_ok(fd, "setup: socket with SO_RCVBUF %d", FLOOD_RCVBUF) ||
	    !ok(op_target(&to, &cookie, &owner), "setup: target"))
		goto out;

	/* fill the room for notices */
	base = vm_pin_kb();
	for (i = 1; i < FLOODS; i++) {
		r = send_write_op(fd, &to, cookie, local, RDS_RDMA_NOTIFY_ME,
				  i, NULL, MSG_DONTWAIT);
		if (r < 0) {
			e = errno;
			break;
		}
	}
	if (!ok_diag(r < 0 && e == EAGAIN, "room for notices filled",
		     "after %u operations: %zd, %s", i - 1, r, tap_errname(e)))
		goto out;
	tap_diag("map_refused: room for notices filled by %u operations",
		 i - 1);

	memset(&map, 0, sizeof(map));
	map.vec.addr = (uintptr_t)area;
	map.vec.bytes = 16 * PAGE;
	map.cookie_addr = (uintptr_t)&mapped;
	/* the operations are done, their pages released soon after */
	pin0 = vm_pin_settle(base);
	ok_diag(pin0 == base, "the operations' pages are released (VmPin)",
		"VmPin %ld kB, %ld kB before them", pin0, base);
	counter_read(fd, "notify_full", &f0);
	is_err(send_write_op(fd, &to, cookie, local, RDS_RDMA_NOTIFY_ME,
			     FLOODS, &map, MSG_DONTWAIT), EAGAIN,
	       "RDS_CMSG_RDMA_MAP with an operation that finds no room -> EAGAIN");
	counter_read(fd, "notify_full", &f1);
	pin1 = vm_pin_kb();
	is_eq(f1 - f0, 1, "notify_full counts it");
	ok_diag(mapped != 0, "the region was made: its cookie was written",
		"cookie_addr still holds 0");
	if (mapped)
		is_err(free_mr(fd, mapped, 0), EINVAL,
		       "its cookie names nothing: RDS_FREE_MR -> EINVAL");
	ok_diag(pin0 >= 0 && pin1 == pin0, "its pages are unpinned (VmPin)",
		"VmPin %ld kB before, %ld kB after", pin0, pin1);

	/* the same send once there is room: the region stays */
	{
		long long deadline = now_ms() + SETTLE_MS;

		while (n < i - 1 && now_ms() < deadline) {
			readable(fd, 100);
			n += drain(fd, seen, sizeof(seen), false, &msgs,
				   &bad);
		}
	}
	is_eq(n, i - 1, "every notice of the accepted operations came");
	mapped = 0;
	is_ok(send_write_op(fd, &to, cookie, local, RDS_RDMA_NOTIFY_ME,
			    FLOODS, &map, MSG_DONTWAIT),
	      "with room: the same send is accepted");
	/* its operation's page goes when the operation is done */
	pin2 = vm_pin_settle(pin0 + (long)(16 * PAGE / 1024));
	ok_diag(pin2 == pin0 + (long)(16 * PAGE / 1024),
		"its region stays pinned (VmPin)", "VmPin %ld kB, %ld before",
		pin2, pin0);
	is_ok(free_mr(fd, mapped, 0), "and RDS_FREE_MR of its cookie -> 0");
out:
	if (fd >= 0)
		close(fd);
	if (owner >= 0)
		close(owner);
	if (local != MAP_FAILED)
		munmap(local, PAGE);
	if (area != MAP_FAILED)
		munmap(area, 16 * PAGE);
}

/* ------------------------------------------------------------------ */
/* pinned pages of RDMA operations                                     */
/* ------------------------------------------------------------------ */

/* Where the operations go: root's socket, and its region of 1 MiB. */
static union rds_sa pin_to;
static uint64_t pin_cookie;
static int pin_owner = -1;
/* the payload pattern the operations write */
#define PIN_SEED	41

struct pin_res {
	int err;		/* privilege drop */
	int setup_err;		/* setrlimit, mmap, sockets */
	int sndbuf;		/* the usable send buffer: half of SO_SNDBUF */
	uint16_t sport;		/* the flooding socket's port */
	unsigned int sent;	/* operations accepted */
	int send_err;		/* errno of the first one refused */
	long vmpin0;		/* VmPin before, kB */
	long vmpin_max;		/* the most VmPin seen after a send, kB */
	long long pins0;	/* pages pinned in the system before */
	long long pins_max;	/* the most seen after a send */
	long vmpin_end;		/* VmPin once settled, kB */
	long long pins_end;	/* pages pinned once settled */
	long long settle_ms;	/* how long after the last send */
	unsigned int notices;	/* success notices, one per token */
	unsigned int bad;	/* other or repeated notices */
	unsigned int msgs;	/* messages instead of notices */
	/* an operation that waits in sendmsg() for room for its notice */
	unsigned int room;	/* notices the small receive buffer admits */
	int wait_err;		/* its errno: ETIMEDOUT */
	long wait_vmpin;	/* the most VmPin seen while it waited, kB */
	long wait_after;	/* VmPin as soon as sendmsg() returned, kB */
};

struct pin_wait {
	int fd;
	void *local;
	int err;
	long after;
	bool done;		/* __atomic: the main thread polls it */
};

/* A blocking 1 MiB write that finds no room for its notice. */
static void *pin_wait_thread(void *arg)
{
	struct pin_wait *w = arg;

	if (send_write(w->fd, &pin_to, pin_cookie, w->local, MIB,
		       RDS_RDMA_NOTIFY_ME, 0, NULL, 0) < 0)
		w->err = errno;
	w->after = vm_pin_kb();
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The pinning flood, as user nobody with RLIMIT_MEMLOCK 0: PIN_OPS writes
 * of 1 MiB on empty messages to root's socket, which reads nothing
 * meanwhile; then one write that waits for room for its notice.
 */
static void pin_child(void *arg)
{
	struct pin_res *res = arg;
	static unsigned char seen[PIN_OPS];
	struct timeval tv = { 30, 0 }, shortv = { 1, 0 };
	struct rlimit rl = { 0, 0 };
	struct pin_wait w = { .fd = -1 };
	long long deadline, t0;
	pthread_t th;
	char *local;
	int fd;

	memset(seen, 0, sizeof(seen));
	close(pin_owner);	/* root's, not the child's */
	local = mmap(NULL, MIB, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (setrlimit(RLIMIT_MEMLOCK, &rl) || local == MAP_FAILED) {
		res->setup_err = errno;
		return;
	}
	pattern_fill(local, MIB, PIN_SEED);
	/* the default receive buffer: room for every notice */
	fd = buf_socket(false, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
				 sizeof(tv))) {
		res->setup_err = errno ? errno : EINVAL;
		return;
	}
	res->sndbuf = buf_usable(fd, SO_SNDBUF);
	res->sport = bound_port(fd);

	res->vmpin0 = res->vmpin_max = vm_pin_kb();
	res->pins0 = res->pins_max = pins_now();
	for (res->sent = 0; res->sent < PIN_OPS; res->sent++) {
		long v;
		long long p;

		if (send_write(fd, &pin_to, pin_cookie, local, MIB,
			       RDS_RDMA_NOTIFY_ME, res->sent, NULL, 0) < 0) {
			res->send_err = errno;
			break;
		}
		v = vm_pin_kb();
		p = pins_now();
		if (v > res->vmpin_max)
			res->vmpin_max = v;
		if (p > res->pins_max)
			res->pins_max = p;
		/* read the notices as they come: only the receiver waits */
		res->notices += drain(fd, seen, sizeof(seen), true,
				      &res->msgs, &res->bad);
	}

	/* the operations are done: nothing stays pinned, nothing is read */
	t0 = now_ms();
	deadline = t0 + SETTLE_MS;
	do {
		res->vmpin_end = vm_pin_kb();
		res->pins_end = pins_now();
		if (res->vmpin_end == res->vmpin0 &&
		    llabs(res->pins_end - res->pins0) * 4 <= PIN_SLACK_KB)
			break;
		sleep_ms(1);
	} while (now_ms() < deadline);
	res->settle_ms = now_ms() - t0;
	deadline = now_ms() + SETTLE_MS;
	while (res->notices + res->bad < res->sent && now_ms() < deadline) {
		readable(fd, 100);
		res->notices += drain(fd, seen, sizeof(seen), true,
				      &res->msgs, &res->bad);
	}
	close(fd);

	/*
	 * A socket whose room for notices is full: a 1 MiB write waits in
	 * sendmsg() with its pages pinned, and charged, until SO_SNDTIMEO.
	 */
	w.fd = flood_socket(false);
	w.local = local;
	if (w.fd < 0 || setsockopt(w.fd, SOL_SOCKET, SO_SNDTIMEO, &shortv,
				   sizeof(shortv))) {
		res->setup_err = errno ? errno : EINVAL;
		return;
	}
	while (res->room <= FLOODS &&
	       send_write(w.fd, &pin_to, pin_cookie, local, 8,
			  RDS_RDMA_NOTIFY_ME, 0, NULL, 0) == 0)
		res->room++;
	w.err = errno;
	if (w.err != ETIMEDOUT) {
		res->wait_err = w.err;
		close(w.fd);
		return;
	}
	w.err = 0;
	res->wait_vmpin = vm_pin_kb();
	if (pthread_create(&th, NULL, pin_wait_thread, &w)) {
		res->setup_err = EAGAIN;
		close(w.fd);
		return;
	}
	while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) {
		long v = vm_pin_kb();

		if (v > res->wait_vmpin)
			res->wait_vmpin = v;
		sleep_ms(1);
	}
	pthread_join(th, NULL);
	res->wait_err = w.err;
	res->wait_after = w.after;
	close(w.fd);
	munmap(local, MIB);
}

static void test_op_pin_flood(void)
{
	char *region = mmap(NULL, MIB, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int msgs = 0;
	long long bound_kb, deadline;
	struct pin_res res;
	long bad_at;

	pin_cookie = 0;
	if (!ok(region != MAP_FAILED, "setup: mmap"))
		return;
	memset(region, 0, MIB);
	pin_owner = bound_socket_cfg(true, 0, "setup: receiving socket");
	if (pin_owner < 0 ||
	    !is_ok(get_mr(pin_owner, region, MIB, 0, &pin_cookie),
		   "setup: the receiver registers 1 MiB"))
		goto out;
	pin_to = sock_addr(pin_owner);

	if (!run_as_nobody(pin_child, &res, sizeof(res)) ||
	    !is_eq(res.setup_err, 0,
		   "setup: RLIMIT_MEMLOCK 0, mmap, sockets, SO_SNDTIMEO"))
		goto out;
	/* the last message may overshoot the send buffer by one operation */
	bound_kb = (res.sndbuf + MIB + PAGE) / 1024;
	tap_diag("op_pin_flood: uid %d, RLIMIT_MEMLOCK 0, send buffer %d bytes: %u writes of 1 MiB on empty messages, the receiver reading nothing",
		 NOBODY, res.sndbuf, res.sent);
	tap_diag("op_pin_flood: during the flood VmPin at most %ld kB (%ld before), pinned pages at most %lld kB over the %lld kB before",
		 res.vmpin_max, res.vmpin0, (res.pins_max - res.pins0) * 4,
		 res.pins0 * 4);
	tap_diag("op_pin_flood: %lld ms after the last send VmPin %ld kB, pinned pages %lld kB over before; %u success notices",
		 res.settle_ms, res.vmpin_end, (res.pins_end - res.pins0) * 4,
		 res.notices);
	tap_diag("op_pin_flood: a 1 MiB write waiting for room for its notice (%u notices filled it): VmPin %ld kB while it waited, %ld kB when sendmsg() returned %s",
		 res.room, res.wait_vmpin, res.wait_after,
		 tap_errname(res.wait_err));

	ok_diag(res.sent == PIN_OPS,
		"unprivileged, RLIMIT_MEMLOCK 0: " TAP_STR(PIN_OPS)
		" writes of 1 MiB accepted",
		"sent %u, then %s", res.sent, tap_errname(res.send_err));
	ok_diag(res.pins0 >= 0 &&
		(res.pins_max - res.pins0) * 4 <= bound_kb + PIN_SLACK_KB,
		"pinned pages stay within the send buffer plus one operation (vmstat)",
		"%lld kB over the %lld kB before, bound %lld kB + %d kB",
		(res.pins_max - res.pins0) * 4, res.pins0 * 4, bound_kb,
		PIN_SLACK_KB);
	ok_diag(res.vmpin0 >= 0 && res.vmpin_max - res.vmpin0 <= bound_kb,
		"VmPin stays within the send buffer plus one operation",
		"at most %ld kB, %ld before, bound %lld kB", res.vmpin_max,
		res.vmpin0, bound_kb);
	ok_diag(res.vmpin_end == res.vmpin0 &&
		llabs(res.pins_end - res.pins0) * 4 <= PIN_SLACK_KB,
		"every page unpinned and uncharged once the writes are done, the receiver reading nothing",
		"after %lld ms: VmPin %ld kB (%ld before), pinned pages %lld kB over before (vmstat)",
		res.settle_ms, res.vmpin_end, res.vmpin0,
		(res.pins_end - res.pins0) * 4);
	ok_diag(res.notices == res.sent && !res.bad && !res.msgs,
		"a success notice for every write, each once",
		"%u notices for %u writes, %u bad, %u messages", res.notices,
		res.sent, res.bad, res.msgs);
	is_eq(res.wait_err, ETIMEDOUT,
	      "a write with no room for its notice waits SO_SNDTIMEO -> ETIMEDOUT");
	ok_diag(res.wait_vmpin >= res.vmpin0 + (long)(MIB / 1024),
		"while it waits its pages are pinned and charged (VmPin)",
		"VmPin at most %ld kB, %ld before", res.wait_vmpin,
		res.vmpin0);
	is_eq(res.wait_after, res.vmpin0,
	      "refused: uncharged before sendmsg() returns (VmPin)");

	/* nothing was lost: every message is there, the data in place */
	deadline = now_ms() + SETTLE_MS;
	while (msgs < res.sent && now_ms() < deadline) {
		union rds_sa from;
		char buf[16];
		ssize_t r = recv_wait(pin_owner, buf, sizeof(buf), &from, NULL,
				      0, 100);

		/* the waiting socket's writes came from another port */
		if (r == 0 && sa_port(&from) == res.sport)
			msgs++;
	}
	is_eq(msgs, res.sent,
	      "the receiver then reads an empty message for every write");
	bad_at = pattern_check(region, MIB, PIN_SEED);
	ok_diag(bad_at < 0, "the region holds what the writes wrote",
		"differs at byte %ld", bad_at);
out:
	if (pin_cookie)
		free_mr(pin_owner, pin_cookie, 0);
	if (pin_owner >= 0)
		close(pin_owner);
	pin_owner = -1;
	munmap(region, MIB);
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* MSG_ZEROCOPY sends                                                  */
/* ------------------------------------------------------------------ */

/* Documentation/rds_doca.rst: sends in flight plus completions unread */
#define ZCOPY_MAX	1024
#define ZC_MEMLOCK	(64 * 1024)
#define ZC_BIG		(48 * 1024)
/* No host: what is sent there waits for a connection that never comes. */
#define ZC_NOBODY	"203.0.113.1"
#define ZC_NOBODY6	"2001:db8:ff::1"

struct zcopy_res {
	int err;		/* privilege drop */
	int setup_err;
	unsigned int accepted;	/* MSG_ZEROCOPY sends taken, ring full */
	int full_err;		/* errno of the send past them */
	uint64_t full;		/* send_zcopy_full delta for it */
	unsigned int cookies;	/* completions read back */
	unsigned int bad;	/* cookies not sent, or twice */
	ssize_t after;		/* a send once they were read */
	ssize_t big1, big2, big3;	/* 48 KiB sends, RLIMIT_MEMLOCK 64 KiB */
	int big2_err;
	unsigned int big_cookie;	/* the cookie that freed the room */
};

/* Read and drop whatever is queued on @fd. */
static void zc_drain(int fd)
{
	static char buf[ZC_BIG];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		;
}

/*
 * Read up to @want completions from @fd into @seen (a count per cookie),
 * waiting up to SETTLE_MS, draining @peer meanwhile.  Returns how many.
 */
static unsigned int zc_collect(int fd, int peer, unsigned char *seen,
			       unsigned int nseen, unsigned int want,
			       unsigned int *bad)
{
	long long deadline = now_ms() + SETTLE_MS;
	unsigned int got = 0, i;

	while (got < want && now_ms() < deadline) {
		union {
			struct cmsghdr cm;
			char buf[CMSG_SPACE(sizeof(struct rds_zcopy_cookies))];
		} c;
		struct rds_zcopy_cookies z;
		char data[8];
		struct iovec iov = { data, sizeof(data) };
		struct msghdr m = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = c.buf, .msg_controllen = sizeof(c.buf),
		};
		struct cmsghdr *h;

		zc_drain(peer);
		if (recvmsg(fd, &m, MSG_DONTWAIT) < 0) {
			readable(fd, 10);
			continue;
		}
		h = CMSG_FIRSTHDR(&m);
		if (!h || h->cmsg_level != SOL_RDS ||
		    h->cmsg_type != RDS_CMSG_ZCOPY_COMPLETION) {
			(*bad)++;
			continue;
		}
		memcpy(&z, CMSG_DATA(h), sizeof(z));
		for (i = 0; i < z.num && i < RDS_MAX_ZCOOKIES; i++, got++) {
			if (z.cookies[i] >= nseen || seen[z.cookies[i]]++)
				(*bad)++;
		}
	}
	return got;
}

/* A MSG_ZEROCOPY send of @len bytes of @buf with @cookie. */
static ssize_t zc_send(int fd, const union rds_sa *to, const void *buf,
		       size_t len, uint32_t cookie)
{
	struct cm c;

	cm_init(&c);
	cm_add(&c, RDS_CMSG_ZCOPY_COOKIE, &cookie, sizeof(cookie));
	return cm_send(fd, to, buf, len, &c, MSG_ZEROCOPY | MSG_DONTWAIT);
}

static void zcopy_child(void *arg)
{
	static unsigned char seen[ZCOPY_MAX + 2];
	static char area[ZC_BIG];
	struct rlimit rl = { ZC_MEMLOCK, ZC_MEMLOCK };
	struct zcopy_res *res = arg;
	union rds_sa to, held;
	uint64_t f0 = 0, f1 = 0, f;
	long long deadline;
	int a, b, on = 1;
	ssize_t r;

	a = buf_socket(false, 0);
	b = buf_socket(true, 0);
	if (a < 0 || b < 0 ||
	    setsockopt(a, SOL_RDS, SO_ZEROCOPY, &on, sizeof(on)) ||
	    !counter_read(a, "send_zcopy_full", &f0)) {
		res->setup_err = errno ? errno : EINVAL;
		return;
	}
	to = sock_addr(b);
	memset(area, 0x5a, sizeof(area));

	/*
	 * Fill the ring: every send is read by the peer, so it completes,
	 * and no completion is read.  A full send or receive buffer on
	 * the way (EAGAIN, or ENOBUFS of congestion, which does not count
	 * in send_zcopy_full) only waits.
	 */
	deadline = now_ms() + SETTLE_MS;
	while (res->accepted <= ZCOPY_MAX && now_ms() < deadline) {
		r = zc_send(a, &to, area, 64, res->accepted);
		if (r == 64) {
			res->accepted++;
			zc_drain(b);
			continue;
		}
		res->full_err = errno;
		f = f0;
		counter_read(a, "send_zcopy_full", &f);
		if (res->full_err == ENOBUFS && f != f0)
			break;
		zc_drain(b);
		sleep_ms(1);
	}
	counter_read(a, "send_zcopy_full", &f1);
	res->full = f1 - f0;

	res->cookies = zc_collect(a, b, seen, sizeof(seen), res->accepted,
				  &res->bad);
	res->after = zc_send(a, &to, area, 64, ZCOPY_MAX + 1);
	zc_collect(a, b, seen, sizeof(seen), 1, &res->bad);
	close(a);
	close(b);

	/* locked memory: the pages of sends in flight count */
	if (setrlimit(RLIMIT_MEMLOCK, &rl)) {
		res->setup_err = errno;
		return;
	}
	a = buf_socket(false, 0);
	b = buf_socket(true, 0);
	if (a < 0 || b < 0 ||
	    setsockopt(a, SOL_RDS, SO_ZEROCOPY, &on, sizeof(on))) {
		res->setup_err = errno ? errno : EINVAL;
		return;
	}
	to = sock_addr(b);
	/*
	 * The first must stay in flight.  On loopback it does until the
	 * receiver reads it; a peer across a transport acknowledges it at
	 * once, so there it goes to an address nobody answers, where it
	 * waits for the connection until it is cancelled.
	 */
	held = to;
	if (cfg.transport != RDS_TRANS_LOOP)
		held = sa_str(cfg.v6 ? ZC_NOBODY6 : ZC_NOBODY, sa_port(&to));
	memset(seen, 0, sizeof(seen));
	res->big1 = zc_send(a, &held, area, ZC_BIG, 1);
	res->big2 = zc_send(a, &to, area, ZC_BIG, 2);
	res->big2_err = errno;
	if (cfg.transport != RDS_TRANS_LOOP)
		setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &held,
			   sa_len(&held));
	if (zc_collect(a, b, seen, sizeof(seen), 1, &res->bad) == 1)
		res->big_cookie = seen[1] ? 1 : 0;
	res->big3 = zc_send(a, &to, area, ZC_BIG, 3);
	zc_collect(a, b, seen, sizeof(seen), 1, &res->bad);
	close(a);
	close(b);
}

static void test_zcopy_flood(void)
{
	struct zcopy_res res;

	if (!run_as_nobody(zcopy_child, &res, sizeof(res)))
		return;
	if (!is_eq(res.setup_err, 0, "setup: sockets, SO_ZEROCOPY, counters"))
		return;
	tap_diag("zcopy_flood: %u sends taken, then %s; %u completions read",
		 res.accepted, tap_errname(res.full_err), res.cookies);
	is_eq(res.accepted, ZCOPY_MAX,
	      "unprivileged: %d MSG_ZEROCOPY sends taken while no completion is read",
	      ZCOPY_MAX);
	is_eq(res.full_err, ENOBUFS, "the next one -> ENOBUFS");
	is_eq(res.full, 1, "send_zcopy_full counts it");
	is_eq(res.cookies, ZCOPY_MAX, "all %d completions are read back",
	      ZCOPY_MAX);
	is_eq(res.bad, 0, "each cookie once, none unknown");
	is_eq(res.after, 64, "once they are read, a send is taken again");

	is_eq(res.big1, ZC_BIG,
	      "RLIMIT_MEMLOCK 64 KiB: a 48 KiB MSG_ZEROCOPY send is taken");
	ok_diag(res.big2 < 0 && res.big2_err == ENOBUFS,
		"a second while the first is in flight -> ENOBUFS (locked memory)",
		"%zd, %s", res.big2, tap_errname(res.big2_err));
	is_eq(res.big_cookie, 1,
	      "the first completes (read, or cancelled: RDS_CANCEL_SENT_TO)");
	is_eq(res.big3, ZC_BIG, "then a 48 KiB send is taken again");
}

/*
 * Large messages.  RDS_DOCA_MSG_MAX is only a ceiling a socket sets for
 * itself: the bytes a message holds count in its send buffer (half of
 * SO_SNDBUF, which wmem_max caps for an unprivileged user), and queued
 * unread in its receiver's (SO_RCVBUF, rmem_max), whose congestion stops
 * the sender.  An unprivileged user at the 64 MiB limit still sends no
 * message larger than its send buffer and holds no more than the two
 * buffers and one message in the kernel.
 */
#define LARGE_SNDBUF	(128 << 20)
#define LARGE_RCVBUF	(1 << 20)

struct large_res {
	int err;		/* privilege drop */
	int setup_err;
	int sndbuf, rcvbuf;	/* read back */
	ssize_t over;		/* a message of half SO_SNDBUF + 1 */
	int over_err;
	ssize_t at;		/* one of half SO_SNDBUF */
	unsigned int queued;	/* such messages taken while none is read */
	int stop_err;		/* what stopped them */
	unsigned int read;	/* then read back, intact */
};

static void large_child(void *arg)
{
	static unsigned char buf[(2 << 20) + 1];
	struct large_res *res = arg;
	int a, b, v = RDS_DOCA_MSG_SIZE_LIMIT, snd = LARGE_SNDBUF, flags;
	socklen_t l1 = sizeof(int), l2 = sizeof(int);
	union rds_sa to;
	size_t lim;
	ssize_t r;

	a = buf_socket(false, 0);
	b = buf_socket(true, LARGE_RCVBUF);
	if (a < 0 || b < 0 ||
	    setsockopt(a, SOL_RDS, RDS_DOCA_MSG_MAX, &v, sizeof(v)) ||
	    setsockopt(a, SOL_SOCKET, SO_SNDBUF, &snd, sizeof(snd)) ||
	    getsockopt(a, SOL_SOCKET, SO_SNDBUF, &res->sndbuf, &l1) ||
	    getsockopt(b, SOL_SOCKET, SO_RCVBUF, &res->rcvbuf, &l2)) {
		res->setup_err = errno ? errno : EINVAL;
		return;
	}
	to = sock_addr(b);
	lim = res->sndbuf / 2;
	if (lim + 1 > sizeof(buf)) {
		res->setup_err = E2BIG;	/* wmem_max raised past 4 MiB */
		return;
	}
	pattern_fill(buf, lim + 1, 5);
	res->over = send_to(a, &to, buf, lim + 1, MSG_DONTWAIT);
	res->over_err = errno;
	res->at = send_to(a, &to, buf, lim, MSG_DONTWAIT);
	if (res->at == (ssize_t)lim)
		res->queued = 1;
	while (res->queued < 1000) {
		if (send_to(a, &to, buf, lim, MSG_DONTWAIT) != (ssize_t)lim) {
			res->stop_err = errno;
			break;
		}
		res->queued++;
	}
	/* what was taken is all delivered */
	while (res->read < res->queued) {
		flags = 0;
		r = recv_wait(b, buf, sizeof(buf), NULL, &flags, 0, ARRIVE_MS);
		if (r != (ssize_t)lim || flags || pattern_check(buf, lim, 5) >= 0)
			break;
		res->read++;
	}
	close(a);
	close(b);
}

static void test_large_msg_bound(void)
{
	struct large_res res;
	unsigned int most;

	if (!run_as_nobody(large_child, &res, sizeof(res)))
		return;
	if (!is_eq(res.setup_err, 0,
		   "setup: RDS_DOCA_MSG_MAX 64 MiB, SO_SNDBUF, SO_RCVBUF"))
		return;
	tap_diag("large_msg_bound: SO_SNDBUF %d, SO_RCVBUF %d: %u messages of %d bytes taken, then %s",
		 res.sndbuf, res.rcvbuf, res.queued, res.sndbuf / 2,
		 tap_errname(res.stop_err));
	ok_diag(res.sndbuf < LARGE_SNDBUF * 2,
		"unprivileged: SO_SNDBUF stays capped (wmem_max)",
		"%d", res.sndbuf);
	ok_diag(res.over < 0 && res.over_err == EMSGSIZE,
		"at the 64 MiB limit, half SO_SNDBUF + 1 bytes -> EMSGSIZE",
		"%zd, %s", res.over, tap_errname(res.over_err));
	is_eq(res.at, (ssize_t)(res.sndbuf / 2), "half SO_SNDBUF is taken");
	/* both buffers' worth, one message over each, and one in flight */
	most = (res.sndbuf / 2 + res.rcvbuf / 2) / (res.sndbuf / 2) + 3;
	ok_diag(res.queued <= most && res.queued < 1000,
		"unread, the messages taken stop at the buffers",
		"%u taken, at most %u expected", res.queued, most);
	ok_diag(res.stop_err == EAGAIN || res.stop_err == ENOBUFS,
		"the next send -> EAGAIN or ENOBUFS", "%s",
		tap_errname(res.stop_err));
	is_eq(res.read, res.queued, "every message taken is read back intact");
}

static const struct selftest tests[] = {
	{ "probe_flood", test_probe_flood },
	{ "notify_flood", test_notify_flood },
	{ "notify_recverr_flood", test_notify_recverr_flood },
	{ "map_refused", test_map_refused },
	{ "op_pin_flood", test_op_pin_flood },
	{ "zcopy_flood", test_zcopy_flood },
	{ "large_msg_bound", test_large_msg_bound },
};

int main(int argc, char **argv)
{
	if (!bounds_prog_start(argc, argv))
		return 2;
	return run_selftests("rds_bounds_test", tests, selftest_by_filter);
}
