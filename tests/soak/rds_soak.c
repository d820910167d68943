// SPDX-License-Identifier: GPL-2.0
/*
 * The traffic of the two-host soak test: one process per host of a VM
 * pair (tests/soak/soak-guest.sh starts it and steers it).
 *
 * Each host binds --sockets sockets to its address, on the ports
 * --port-base onwards.  Socket i sends to the peer's sockets i + d for
 * each d of stream_offset[]: one stream per (socket, offset), every
 * message carrying the stream's sequence number, its sender's epoch (one
 * per set of sockets: the epoch grows when the host closes all its
 * sockets for a module reload and opens them again) and a payload
 * pattern.  Sizes run from 0 to 1 MiB, mostly small; a message shorter
 * than the header carries a pattern of its sequence number only.
 *
 * Every socket whose index is a multiple of OWNER_EVERY owns a region
 * and hands its cookie to the peer's sockets that send to it (an
 * announcement message, again after every new registration).  Those
 * send RDMA reads, writes (each read back once it completed) and
 * atomics into it with RDS_RDMA_NOTIFY_ME, one at a time per stream,
 * on sequenced messages, and check what the operations read, wrote and
 * returned.  A few receivers stop reading for a while now and then, so
 * their ports turn congested.
 *
 * Commands arrive on stdin, one per line, each answered by "# ack CMD":
 *
 *   go		start sending (both hosts are bound: the peer's epoch 0)
 *   pause	close every socket (the module is about to be reloaded)
 *   resume	open them again, as a new epoch
 *   rereg	register the regions again (the RDMA device came back)
 *   stop	stop sending; write what was sent to --ledger
 *   check F	F is the peer's ledger: wait (up to --drain seconds) for
 *		every message the peer sent from a socket that stayed open
 *		to a socket of ours that stayed open, then print the checks
 *		and exit
 *
 * A receiver checks every message at once: no duplicate, nothing out of
 * order, no gap, payload intact.  The ledger check at the end finds
 * what never came.  Output is TAP with a closing "N passed, N failed"
 * line, and a "# soak-stats: key=value ..." line for the summary.
 */
#include "rds_util.h"

#include <sys/mman.h>
#include <sys/resource.h>

#define ARRAY_SIZE(x)	(sizeof(x) / sizeof((x)[0]))

#define SOAK_MAGIC	0x534f414bu	/* "SOAK" */
#define WRITE_MAGIC	0x57524954u	/* "WRIT" */

enum { T_DATA = 1, T_ANN = 2 };
enum { OP_NONE, OP_READ, OP_WRITE, OP_READBACK, OP_FADD, OP_CSWP, OP_KINDS };

static const char *const op_name[OP_KINDS] = {
	"none", "read", "write", "readback", "fadd", "cswp",
};

/* Every message of HDR_LEN bytes or more starts with this. */
struct soak_hdr {
	uint32_t magic;
	uint16_t type;		/* T_DATA, T_ANN */
	uint16_t sport;		/* the sender's port */
	uint32_t epoch;		/* the sender's epoch */
	uint32_t len;		/* the whole message */
	uint64_t seq;		/* T_DATA: stream sequence; T_ANN: region gen */
	uint64_t arg;		/* T_DATA write: its number; T_ANN: cookie */
	uint32_t woff;		/* T_DATA write: region offset and length */
	uint32_t wlen;
	uint8_t op;		/* T_DATA: OP_* the message carries */
	uint8_t pad[7];
};

#define HDR_LEN		((uint32_t)sizeof(struct soak_hdr))
_Static_assert(sizeof(struct soak_hdr) == 48, "header layout");

/* The head and tail of an RDMA write in the region. */
struct write_mark {
	uint32_t magic;
	uint16_t port;
	uint16_t epoch;
	uint64_t wseq;
};

#define MAX_MSG		(1 << 20)
#define K_STREAMS	3
static const int stream_offset[K_STREAMS] = { 0, 1, 37 };

/* Regions: a read area, a write slot per source stream, atomic words. */
#define OWNER_EVERY	16
#define READ_SZ		(128 << 10)
#define SLOT_SZ		(64 << 10)
#define SUBSLOTS	4
#define SUB_SZ		(SLOT_SZ / SUBSLOTS)
#define WRITE_OFF	READ_SZ
#define ATOM_OFF	(WRITE_OFF + K_STREAMS * SLOT_SZ)
#define REGION_SZ	(ATOM_OFF + 4096)
#define MAX_RDMA	READ_SZ

/* Senders allowed messages above 64 KiB, and their send buffers. */
#define BIG_EVERY	16
#define BIG_SNDBUF	(2 << 20)
#define SNDBUF		(256 << 10)
/* A small receive buffer: a receiver that stops reading congests soon. */
#define RCVBUF		(8 << 10)

/* In an atomic's local word until the old value comes. */
#define FILLER		0xeeeeeeeeeeeeeeeeULL
static const uint64_t filler = FILLER;

/* Atomic values a dropped operation leaves possible. */
#define MAX_POSSIBLE	16

struct region {
	char *mem;
	uint64_t cookie;
	uint64_t gen;
	bool registered;
};

struct rdma_user {
	bool have;		/* a cookie of the owner */
	uint32_t oepoch;	/* the owner's epoch and region gen it is of */
	uint64_t ogen;
	uint64_t cookie;
	bool busy;		/* an operation waits for its notice */
	int op;
	uint64_t token;
	uint32_t op_oepoch;
	uint64_t op_ogen;
	char *buf;		/* its local memory */
	uint32_t off, len;
	uint64_t wseq;		/* the write (or the write read back) */
	uint64_t cmp, swp, add;
	/* a completed write to read back */
	bool rb;
	uint32_t rb_off, rb_len;
	uint64_t rb_wseq;
	/* what the atomic word may hold; npos < 0: anything */
	uint64_t pos[MAX_POSSIBLE];
	int npos;
	uint64_t next_wseq;
	uint64_t counter;
	uint64_t since_cookie;	/* operations sent since the cookie came */
	bool late;		/* look at an atomic's local word again */
	long long late_at;
};

struct tx_stream {
	uint64_t next;		/* the next sequence number */
	bool mark_set;		/* messages from mark on must reach the peer */
	uint64_t mark;		/* sockets of epoch mark_epoch */
	uint32_t mark_epoch;
	struct rdma_user *ru;	/* streams to an owner */
};

struct rx_stream {
	bool started;		/* a message with a header came */
	uint32_t epoch;		/* of the sender */
	uint64_t first, last;	/* first and last sequence numbers seen */
	uint64_t pending;	/* short messages after last (or before first) */
	uint64_t count;
};

struct sock {
	int fd;
	long long paused_until;
	struct region reg;	/* owners only */
	long long ann_at;	/* when to announce the cookie again */
};

/* A REMOTE_ERROR on a cookie not known to be stale yet. */
struct suspect {
	int stream;
	uint32_t oepoch;
	uint64_t ogen;
};

static struct {
	uint64_t sent, sent_bytes, recvd, recv_bytes;
	uint64_t held_cong, held_again, send_err, send_bad;
	uint64_t send_errno[134];
	uint64_t dup, gap, corrupt, foreign, lost, late_epoch;
	uint64_t ann_sent, ann_recvd;
	uint64_t ops[OP_KINDS];
	uint64_t st_success, st_dropped, st_stale, st_remote_live, st_canceled,
		 st_other, st_unknown;
	uint64_t notice_unexpected, op_send_held, op_send_err;
	uint64_t verified, wrong;
	uint64_t owner_verified, owner_skipped, owner_wrong;
	uint64_t pauses, reg_fail;
	uint64_t atomic_unwritten, atomic_late;
	uint64_t not_noticed;
} st;

static int opt_sockets = 512, opt_port_base = 20000, opt_rate = 300,
	   opt_rdma_rate = 40, opt_drain = 180;
static const char *opt_role = "a", *opt_ledger;
static char wrong_diag[4][256];
static int nwrong_diag;

static struct sock *socks;
static struct tx_stream *tx;
static struct rx_stream *rx;
static struct suspect *suspects;
static size_t nsuspects, suspects_cap;
static uint32_t my_epoch, peer_epoch;
static bool running, stopped, sockets_open;
static uint64_t rnd_state;
static char *buf, *sbuf;

/* ---- small helpers ---- */

static uint64_t rnd(void)
{
	uint64_t x = rnd_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rnd_state = x;
	return x;
}

static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Fill @len bytes with the pattern of @seed, word by word. */
static void fill64(void *p, size_t len, uint64_t seed)
{
	unsigned char *c = p;
	uint64_t w;
	size_t i;

	for (i = 0; i < len; i += 8) {
		w = mix64(seed + i);
		memcpy(c + i, &w, len - i < 8 ? len - i : 8);
	}
}

static bool check64(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *c = p;
	uint64_t w;
	size_t i;

	for (i = 0; i < len; i += 8) {
		w = mix64(seed + i);
		if (memcmp(c + i, &w, len - i < 8 ? len - i : 8))
			return false;
	}
	return true;
}

static void note_wrong(const char *fmt, ...)
{
	va_list ap;

	st.wrong++;
	if (nwrong_diag >= 4)
		return;
	va_start(ap, fmt);
	vsnprintf(wrong_diag[nwrong_diag++], sizeof(wrong_diag[0]), fmt, ap);
	va_end(ap);
	tap_diag("wrong: %s", wrong_diag[nwrong_diag - 1]);
}

static bool is_owner(int i)
{
	return i % OWNER_EVERY == 0;
}

static int peer_index(int i, int k)
{
	return (i + stream_offset[k]) % opt_sockets;
}

/* The stream k of the peer's socket @from to our socket @to, or -1. */
static int stream_k(int from, int to)
{
	int k, d = ((to - from) % opt_sockets + opt_sockets) % opt_sockets;

	for (k = 0; k < K_STREAMS; k++)
		if (stream_offset[k] % opt_sockets == d)
			return k;
	return -1;
}

static uint64_t data_seed(uint16_t port, uint32_t epoch, uint64_t seq)
{
	return mix64(((uint64_t)port << 48) ^ ((uint64_t)epoch << 32) ^
		     (seq * 0x9e3779b97f4a7c15ULL));
}

/* The read area's pattern of an owner. */
static uint64_t region_seed(bool peer, int idx, uint32_t epoch)
{
	const char *role = opt_role;

	if (peer)
		role = strcmp(opt_role, "a") ? "a" : "b";
	return mix64(((uint64_t)role[0] << 56) ^ ((uint64_t)idx << 32) ^ epoch);
}

static uint64_t write_seed(uint16_t port, uint32_t epoch, uint64_t wseq)
{
	return mix64(0x5752495445ULL ^ ((uint64_t)port << 40) ^
		     ((uint64_t)epoch << 24) ^ (wseq << 1));
}

static unsigned char tiny_byte(uint64_t seq, size_t i)
{
	return (unsigned char)(seq * 29 + i * 7 + 3);
}

static void sendmsg_errno(int err)
{
	if (err > 0 && err < (int)ARRAY_SIZE(st.send_errno))
		st.send_errno[err]++;
	if (err == EINVAL || err == EFAULT || err == EMSGSIZE || err == EBADF ||
	    err == ENOTSOCK || err == EOPNOTSUPP)
		st.send_bad++;
	else
		st.send_err++;
}

/* ---- regions ---- */

static void region_init(int i)
{
	struct region *r = &socks[i].reg;

	fill64(r->mem, READ_SZ, region_seed(false, i, my_epoch));
	memset(r->mem + WRITE_OFF, 0, REGION_SZ - WRITE_OFF);
}

static void region_register(int i)
{
	struct region *r = &socks[i].reg;
	uint64_t cookie = 0;

	if (r->registered) {
		/* after a device removal the region may be gone already */
		free_mr(socks[i].fd, r->cookie, 0);
		r->registered = false;
	}
	if (get_mr(socks[i].fd, r->mem, REGION_SZ, 0, &cookie)) {
		if (st.reg_fail++ < 3)
			tap_diag("RDS_GET_MR on port %d: %s",
				 opt_port_base + i, tap_errname(errno));
		return;
	}
	r->cookie = cookie;
	r->gen++;
	r->registered = true;
	socks[i].ann_at = 0;	/* announce at once */
}

/* ---- sending ---- */

static union rds_sa peer_sin(int idx)
{
	return sa_in(sin_make(cfg.peer, opt_port_base + idx));
}

static void build_data(struct soak_hdr *h, int i, uint64_t seq, size_t len)
{
	memset(h, 0, sizeof(*h));
	h->magic = SOAK_MAGIC;
	h->type = T_DATA;
	h->sport = opt_port_base + i;
	h->epoch = my_epoch;
	h->len = len;
	h->seq = seq;
}

static size_t pick_len(int i)
{
	uint64_t r = rnd() % 1000;

	if (r < 30)
		return 0;
	if (r < 100)
		return rnd_range(1, HDR_LEN - 1);
	if (r < 850)
		return rnd_range(HDR_LEN, 1024);
	if (r < 985)
		return rnd_range(1025, 64 << 10);
	if (i % BIG_EVERY)
		return rnd_range(HDR_LEN, 1024);
	if (r < 995)
		return rnd_range((64 << 10) + 1, 256 << 10);
	return rnd_range((256 << 10) + 1, MAX_MSG);
}

/* The payload of message @seq of socket @i, @len bytes, into sbuf. */
static void build_payload(int i, uint64_t seq, size_t len)
{
	size_t b;

	if (len < HDR_LEN) {
		for (b = 0; b < len; b++)
			sbuf[b] = tiny_byte(seq, b);
		return;
	}
	build_data((struct soak_hdr *)sbuf, i, seq, len);
	fill64(sbuf + HDR_LEN, len - HDR_LEN,
	       data_seed(opt_port_base + i, my_epoch, seq));
}

static void count_send_failure(int err, bool op)
{
	if (err == ENOBUFS) {
		st.held_cong++;
		if (op)
			st.op_send_held++;
	} else if (err == EAGAIN) {
		st.held_again++;
		if (op)
			st.op_send_held++;
	} else {
		sendmsg_errno(err);
		if (op)
			st.op_send_err++;
	}
}

static void send_one(int s)
{
	int i = s / K_STREAMS, k = s % K_STREAMS;
	union rds_sa to = peer_sin(peer_index(i, k));
	struct tx_stream *t = &tx[s];
	size_t len = pick_len(i);

	if (socks[i].fd < 0)
		return;
	/* a stream starts with a header, which tells its epoch */
	if (!t->next && len < HDR_LEN)
		len = HDR_LEN;
	build_payload(i, t->next, len);
	if (send_to(socks[i].fd, &to, sbuf, len, MSG_DONTWAIT) != (ssize_t)len) {
		count_send_failure(errno, false);
		return;
	}
	t->next++;
	st.sent++;
	st.sent_bytes += len;
}

/* Start the next RDMA operation of stream @s, on a sequenced message. */
static void send_op(int s)
{
	int i = s / K_STREAMS, k = s % K_STREAMS;
	union rds_sa to = peer_sin(peer_index(i, k));
	struct tx_stream *t = &tx[s];
	struct rdma_user *u = t->ru;
	uint16_t port = opt_port_base + i;
	struct rds_iovec v;
	struct rds_rdma_args ra;
	struct rds_atomic_args aa;
	struct write_mark wm;
	struct soak_hdr *h;
	size_t len = rnd_range(HDR_LEN, 1024);
	uint64_t r = rnd() % 100;
	int op, type;
	const void *arg;
	size_t alen;

	if (u->rb) {
		op = OP_READBACK;
		u->off = u->rb_off;
		u->len = u->rb_len;
		u->wseq = u->rb_wseq;
	} else if (r < 35) {
		op = OP_READ;
		u->off = 8 * rnd_range(0, READ_SZ / 8 - 1);
		u->len = 8 * rnd_range(1, (READ_SZ - u->off) / 8);
	} else if (r < 70) {
		op = OP_WRITE;
		u->wseq = u->next_wseq;
		u->off = WRITE_OFF + k * SLOT_SZ + (u->wseq % SUBSLOTS) * SUB_SZ;
		u->len = 8 * rnd_range(2 * sizeof(wm) / 8, SUB_SZ / 8);
	} else if (r < 85) {
		op = OP_FADD;
	} else {
		op = OP_CSWP;
	}

	u->token = ((uint64_t)s << 32) | (++u->counter & 0xffffffffu);
	u->op = op;
	memset(&ra, 0, sizeof(ra));
	memset(&aa, 0, sizeof(aa));
	if (op == OP_FADD || op == OP_CSWP) {
		memcpy(u->buf, &filler, 8);
		aa.cookie = u->cookie;
		aa.local_addr = (uintptr_t)u->buf;
		aa.remote_addr = ATOM_OFF + k * 64;
		aa.flags = RDS_RDMA_NOTIFY_ME;
		aa.user_token = u->token;
		if (op == OP_FADD) {
			u->add = rnd_range(1, 1000);
			aa.fadd.add = u->add;
			type = RDS_CMSG_ATOMIC_FADD;
		} else {
			u->cmp = u->npos > 0 ? u->pos[rnd() % u->npos] : rnd();
			u->swp = rnd() >> 8;
			aa.cswp.compare = u->cmp;
			aa.cswp.swap = u->swp;
			type = RDS_CMSG_ATOMIC_CSWP;
		}
		arg = &aa;
		alen = sizeof(aa);
	} else {
		if (op == OP_WRITE) {
			wm.magic = WRITE_MAGIC;
			wm.port = port;
			wm.epoch = my_epoch;
			wm.wseq = u->wseq;
			memcpy(u->buf, &wm, sizeof(wm));
			fill64(u->buf + sizeof(wm), u->len - 2 * sizeof(wm),
			       write_seed(port, my_epoch, u->wseq));
			memcpy(u->buf + u->len - sizeof(wm), &wm, sizeof(wm));
		} else {
			memset(u->buf, 0xdd, u->len);
		}
		v.addr = (uintptr_t)u->buf;
		v.bytes = u->len;
		ra.cookie = u->cookie;
		ra.remote_vec.addr = u->off;
		ra.remote_vec.bytes = u->len;
		ra.local_vec_addr = (uintptr_t)&v;
		ra.nr_local = 1;
		ra.flags = RDS_RDMA_NOTIFY_ME |
			   (op == OP_WRITE ? RDS_RDMA_READWRITE : 0);
		ra.user_token = u->token;
		type = RDS_CMSG_RDMA_ARGS;
		arg = &ra;
		alen = sizeof(ra);
	}

	build_payload(i, t->next, len);
	h = (struct soak_hdr *)sbuf;
	h->op = op;
	if (op == OP_WRITE) {
		h->arg = u->wseq;
		h->woff = u->off;
		h->wlen = u->len;
	}
	if (rds_doca_send_cmsg(socks[i].fd, &to, sbuf, len, type, arg, alen,
			       MSG_DONTWAIT) != (ssize_t)len) {
		count_send_failure(errno, true);
		return;
	}
	t->next++;
	st.sent++;
	st.sent_bytes += len;
	st.ops[op]++;
	u->since_cookie++;
	u->busy = true;
	u->op_oepoch = u->oepoch;
	u->op_ogen = u->ogen;
	if (op == OP_WRITE)
		u->next_wseq++;
}

static void send_ann(int i)
{
	struct soak_hdr h;
	union rds_sa to;
	int k, sent = 0;

	memset(&h, 0, sizeof(h));
	h.magic = SOAK_MAGIC;
	h.type = T_ANN;
	h.sport = opt_port_base + i;
	h.epoch = my_epoch;
	h.len = HDR_LEN;
	h.seq = socks[i].reg.gen;
	h.arg = socks[i].reg.cookie;
	for (k = 0; k < K_STREAMS; k++) {
		/* to the peer's sockets whose stream k comes here */
		int src = ((i - stream_offset[k]) % opt_sockets + opt_sockets) %
			  opt_sockets;

		to = peer_sin(src);
		if (send_to(socks[i].fd, &to, &h, sizeof(h), MSG_DONTWAIT) ==
		    (ssize_t)sizeof(h))
			sent++;
	}
	st.ann_sent += sent;
	/* again in a while, sooner if one did not go */
	socks[i].ann_at = now_ms() + (sent == K_STREAMS ? 15000 : 500);
}

/* ---- receiving ---- */

static void learn_peer_epoch(uint32_t e)
{
	int s;

	if (e <= peer_epoch)
		return;
	tap_diag("peer epoch %u (was %u)", e, peer_epoch);
	peer_epoch = e;
	for (s = 0; s < opt_sockets * K_STREAMS; s++) {
		tx[s].mark_set = true;
		tx[s].mark = tx[s].next;
		tx[s].mark_epoch = e;
	}
}

static bool possible(const struct rdma_user *u, uint64_t v)
{
	int n;

	if (u->npos < 0)
		return true;
	for (n = 0; n < u->npos; n++)
		if (u->pos[n] == v)
			return true;
	return false;
}

static void add_possible(struct rdma_user *u, uint64_t v)
{
	if (u->npos < 0 || possible(u, v))
		return;
	if (u->npos == MAX_POSSIBLE) {
		u->npos = -1;
		return;
	}
	u->pos[u->npos++] = v;
}

/* An operation of stream @s completed with @status. */
static void op_done(int s, int status)
{
	struct rdma_user *u = tx[s].ru;
	uint16_t port = opt_port_base + s / K_STREAMS;
	bool current = u->op_oepoch == u->oepoch;
	uint64_t old, prev[MAX_POSSIBLE];
	int n, nprev;

	u->busy = false;
	switch (status) {
	case RDS_RDMA_SUCCESS:
		st.st_success++;
		break;
	case RDS_RDMA_DROPPED:
		st.st_dropped++;
		break;
	case RDS_RDMA_REMOTE_ERROR:
		if (u->op_oepoch < u->oepoch ||
		    (u->op_oepoch == u->oepoch && u->op_ogen < u->ogen)) {
			st.st_stale++;
		} else {
			/* stale only if a newer cookie comes later */
			if (nsuspects == suspects_cap) {
				suspects_cap = suspects_cap ? 2 * suspects_cap : 64;
				suspects = realloc(suspects,
						   suspects_cap * sizeof(*suspects));
			}
			suspects[nsuspects++] = (struct suspect){
				s, u->op_oepoch, u->op_ogen };
		}
		break;
	case RDS_RDMA_CANCELED:
		st.st_canceled++;
		break;
	case RDS_RDMA_OTHER_ERROR:
		st.st_other++;
		break;
	default:
		st.st_unknown++;
		break;
	}

	if (u->op == OP_WRITE) {
		if (status == RDS_RDMA_SUCCESS) {
			u->rb = true;
			u->rb_off = u->off;
			u->rb_len = u->len;
			u->rb_wseq = u->wseq;
		}
		return;
	}
	/* read back once, whatever came of it */
	if (u->op == OP_READBACK)
		u->rb = false;
	if (!current && (u->op == OP_FADD || u->op == OP_CSWP))
		return;		/* a word of the owner's earlier epoch */

	if (u->op == OP_READ && status == RDS_RDMA_SUCCESS) {
		uint64_t seed = region_seed(true, peer_index(s / K_STREAMS,
							    s % K_STREAMS),
					    u->op_oepoch);
		size_t w;
		bool good = true;

		for (w = 0; w < u->len; w += 8) {
			uint64_t want = mix64(seed + u->off + w);

			if (memcmp(u->buf + w, &want, 8)) {
				good = false;
				break;
			}
		}
		if (good)
			st.verified++;
		else
			note_wrong("port %u: RDMA read of %u bytes at %u: byte %zu differs",
				   port, u->len, u->off, w);
	} else if (u->op == OP_READBACK && status == RDS_RDMA_SUCCESS) {
		struct write_mark wm = {
			WRITE_MAGIC, port, (uint16_t)my_epoch, u->wseq,
		};

		if (!memcmp(u->buf, &wm, sizeof(wm)) &&
		    !memcmp(u->buf + u->len - sizeof(wm), &wm, sizeof(wm)) &&
		    check64(u->buf + sizeof(wm), u->len - 2 * sizeof(wm),
			    write_seed(port, my_epoch, u->wseq)))
			st.verified++;
		else
			note_wrong("port %u: RDMA write %llu of %u bytes at %u read back differently",
				   port, (unsigned long long)u->wseq, u->len,
				   u->off);
	} else if (u->op == OP_FADD || u->op == OP_CSWP) {
		memcpy(&old, u->buf, 8);
		if (status == RDS_RDMA_SUCCESS && old == FILLER) {
			/* look again in a while: late, or never written? */
			st.atomic_unwritten++;
			u->late = true;
			u->late_at = now_ms() + 200;
			note_wrong("port %u: %s %llu (token %#llx, %llu operations since the cookie came) succeeded, its old value not written to local_addr when the notice came",
				   port, op_name[u->op],
				   (unsigned long long)u->counter,
				   (unsigned long long)u->token,
				   (unsigned long long)u->since_cookie);
			u->npos = -1;
			return;
		}
		nprev = u->npos;
		if (nprev > 0)
			memcpy(prev, u->pos, nprev * sizeof(prev[0]));
		if (status == RDS_RDMA_SUCCESS) {
			if (!possible(u, old)) {
				note_wrong("port %u: %s returned %#llx, the word could only hold %d value(s), first %#llx",
					   port, op_name[u->op],
					   (unsigned long long)old, nprev,
					   (unsigned long long)prev[0]);
				u->npos = -1;
				return;
			}
			if (nprev >= 0)
				st.verified++;
			u->npos = 1;
			if (u->op == OP_FADD)
				u->pos[0] = old + u->add;
			else
				u->pos[0] = old == u->cmp ? u->swp : old;
		} else if (status == RDS_RDMA_DROPPED) {
			/* it may or may not have happened */
			for (n = 0; nprev > 0 && n < nprev; n++) {
				if (u->op == OP_FADD)
					add_possible(u, prev[n] + u->add);
				else if (prev[n] == u->cmp)
					add_possible(u, u->swp);
			}
		}
	}
}

/* An atomic's local word, a while after its notice said it was there. */
static void look_again(int s)
{
	struct rdma_user *u = tx[s].ru;
	uint64_t v;

	u->late = false;
	memcpy(&v, u->buf, 8);
	if (v != FILLER) {
		st.atomic_late++;
		tap_diag("port %d: ... its old value %#llx was there 200 ms later",
			 opt_port_base + s / K_STREAMS, (unsigned long long)v);
	} else {
		tap_diag("port %d: ... and still was not 200 ms later",
			 opt_port_base + s / K_STREAMS);
	}
}

static void take_notice(const struct rds_rdma_notify *n)
{
	uint64_t s = n->user_token >> 32;

	if (s >= (uint64_t)opt_sockets * K_STREAMS || !tx[s].ru ||
	    !tx[s].ru->busy || tx[s].ru->token != n->user_token) {
		st.notice_unexpected++;
		return;
	}
	op_done(s, n->status);
}

static void excuse_suspects(int s)
{
	struct rdma_user *u = tx[s].ru;
	size_t n = 0, m;

	for (m = 0; m < nsuspects; m++) {
		struct suspect *p = &suspects[m];

		if (p->stream == s &&
		    (p->oepoch < u->oepoch ||
		     (p->oepoch == u->oepoch && p->ogen < u->ogen)))
			st.st_stale++;
		else
			suspects[n++] = *p;
	}
	nsuspects = n;
}

static void take_ann(int j, const struct soak_hdr *h)
{
	int from = h->sport - opt_port_base, k = stream_k(j, from);
	struct rdma_user *u;

	st.ann_recvd++;
	/* the owner @from announces to us, @j, the source of stream k */
	if (k < 0 || !tx[j * K_STREAMS + k].ru) {
		st.foreign++;
		return;
	}
	u = tx[j * K_STREAMS + k].ru;
	if (u->have && (h->epoch < u->oepoch ||
			(h->epoch == u->oepoch && h->seq <= u->ogen)))
		return;
	if (!u->have || h->epoch != u->oepoch) {
		/* the owner's memory is new: its words are 0 */
		u->npos = 1;
		u->pos[0] = 0;
	}
	u->have = true;
	u->since_cookie = 0;
	u->oepoch = h->epoch;
	u->ogen = h->seq;
	u->cookie = h->arg;
	excuse_suspects(j * K_STREAMS + k);
}

/* The owner's side of a write: what the message says landed there. */
static void check_write(int j, const struct soak_hdr *h)
{
	struct write_mark wm = {
		WRITE_MAGIC, h->sport, (uint16_t)h->epoch, h->arg,
	};
	const char *p = socks[j].reg.mem + h->woff;
	bool good;

	if (!is_owner(j) || h->wlen < 2 * sizeof(wm) ||
	    h->woff < WRITE_OFF || h->woff + h->wlen > ATOM_OFF) {
		st.owner_wrong++;
		return;
	}
	/*
	 * Only a complete write, not overwritten since: a later write to the
	 * same place, or a dropped one, changes the head first.
	 */
	if (memcmp(p, &wm, sizeof(wm)) ||
	    memcmp(p + h->wlen - sizeof(wm), &wm, sizeof(wm))) {
		st.owner_skipped++;
		return;
	}
	good = check64(p + sizeof(wm), h->wlen - 2 * sizeof(wm),
		       write_seed(h->sport, h->epoch, h->arg));
	__sync_synchronize();
	if (memcmp(p, &wm, sizeof(wm))) {
		st.owner_skipped++;
		return;
	}
	if (good) {
		st.owner_verified++;
	} else {
		st.owner_wrong++;
		note_wrong("port %d: the write %llu from port %u (%u bytes at %u) is not what landed",
			   opt_port_base + j, (unsigned long long)h->arg,
			   h->sport, h->wlen, h->woff);
	}
}

static void take_data(int j, const struct sockaddr_in *from, ssize_t n,
		      int flags)
{
	int src = ntohs(from->sin_port) - opt_port_base;
	int k = src >= 0 && src < opt_sockets ? stream_k(src, j) : -1;
	const struct soak_hdr *h = (const void *)buf;
	struct rx_stream *r;
	uint64_t exp;
	size_t b;

	st.recvd++;
	st.recv_bytes += n;
	if (from->sin_addr.s_addr != cfg.peer.s_addr) {
		st.foreign++;
		return;
	}
	if (n >= HDR_LEN && h->magic == SOAK_MAGIC && h->type == T_ANN) {
		st.recvd--;
		learn_peer_epoch(h->epoch);
		take_ann(j, h);
		return;
	}
	if (k < 0) {
		st.foreign++;
		return;
	}
	r = &rx[j * K_STREAMS + k];
	r->count++;
	if (flags & MSG_TRUNC) {
		st.corrupt++;
		return;
	}
	if (n < HDR_LEN) {
		if (r->started) {
			exp = r->last + r->pending + 1;
			for (b = 0; b < (size_t)n; b++)
				if ((unsigned char)buf[b] != tiny_byte(exp, b))
					break;
			if (b < (size_t)n && st.gap++ < 5)
				tap_diag("port %d from %u: a %zd-byte message is not number %llu",
					 opt_port_base + j, ntohs(from->sin_port),
					 n, (unsigned long long)exp);
		}
		r->pending++;
		return;
	}
	if (h->magic != SOAK_MAGIC || h->type != T_DATA || h->len != n ||
	    h->sport != ntohs(from->sin_port) ||
	    !check64(buf + HDR_LEN, n - HDR_LEN,
		     data_seed(h->sport, h->epoch, h->seq))) {
		if (st.corrupt++ < 5)
			tap_diag("port %d from %u: a corrupted %zd-byte message",
				 opt_port_base + j, ntohs(from->sin_port), n);
		return;
	}
	learn_peer_epoch(h->epoch);
	if (h->op == OP_WRITE)
		check_write(j, h);
	if (!r->started || h->epoch > r->epoch) {
		/*
		 * Short ones before a new epoch's first (a header always) were
		 * the old epoch's; before the first in a new socket, this one's.
		 */
		r->first = h->seq;
		if (!r->started && r->pending <= h->seq)
			r->first = h->seq - r->pending;
		r->started = true;
		r->epoch = h->epoch;
		r->last = h->seq;
		r->pending = 0;
		return;
	}
	if (h->epoch < r->epoch) {
		st.late_epoch++;
		return;
	}
	exp = r->last + r->pending + 1;
	if (h->seq < exp) {
		if (st.dup++ < 5)
			tap_diag("port %d from %u: message %llu again (expected %llu)",
				 opt_port_base + j, h->sport,
				 (unsigned long long)h->seq,
				 (unsigned long long)exp);
		return;
	}
	if (h->seq > exp && st.gap++ < 5)
		tap_diag("port %d from %u: message %llu, expected %llu",
			 opt_port_base + j, h->sport,
			 (unsigned long long)h->seq, (unsigned long long)exp);
	r->last = h->seq;
	r->pending = 0;
}

/* Read what socket @j has, a few messages at most. */
static void drain_socket(int j)
{
	union {
		char b[CMSG_SPACE(sizeof(struct rds_rdma_notify)) * 16 + 256];
		struct cmsghdr align;
	} ctl;
	struct rds_rdma_notify note;
	struct sockaddr_in from;
	struct iovec iov;
	struct msghdr m;
	struct cmsghdr *c;
	ssize_t n;
	int round;

	for (round = 0; round < 8 && socks[j].fd >= 0; round++) {
		memset(&m, 0, sizeof(m));
		memset(&from, 0, sizeof(from));
		iov.iov_base = buf;
		iov.iov_len = MAX_MSG + 64;
		m.msg_name = &from;
		m.msg_namelen = sizeof(from);
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = ctl.b;
		m.msg_controllen = sizeof(ctl.b);
		n = recvmsg(socks[j].fd, &m, MSG_DONTWAIT);
		if (n < 0)
			return;
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level != SOL_RDS ||
			    c->cmsg_type != RDS_CMSG_RDMA_STATUS)
				continue;
			memcpy(&note, CMSG_DATA(c), sizeof(note));
			take_notice(&note);
		}
		if (!from.sin_port)
			continue;	/* notices only */
		take_data(j, &from, n, m.msg_flags);
	}
}

/* ---- sockets ---- */

static void open_sockets(void)
{
	int i, s, sz, bad = 0;
	char name[128];

	for (i = 0; i < opt_sockets; i++) {
		struct sockaddr_in sin = sin_make(cfg.addr, opt_port_base + i);
		int fd = socket(cfg.family, SOCK_SEQPACKET, 0);

		if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
			if (bad++ < 3)
				tap_diag("socket/bind port %d: %s",
					 opt_port_base + i, tap_errname(errno));
			if (fd >= 0)
				close(fd);
			socks[i].fd = -1;
			continue;
		}
		sz = i % BIG_EVERY ? SNDBUF : BIG_SNDBUF;
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
			setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		sz = RCVBUF;
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
		socks[i].fd = fd;
		socks[i].paused_until = 0;
		if (is_owner(i)) {
			region_init(i);
			socks[i].reg.registered = false;
			socks[i].reg.gen = 0;
			region_register(i);
		}
	}
	for (s = 0; s < opt_sockets * K_STREAMS; s++) {
		tx[s].next = 0;
		tx[s].mark_set = true;	/* the peer's sockets are there */
		tx[s].mark = 0;
		tx[s].mark_epoch = peer_epoch;
		if (tx[s].ru) {
			tx[s].ru->busy = false;
			tx[s].ru->late = false;
			tx[s].ru->rb = false;
			tx[s].ru->npos = -1;	/* our earlier self used it */
		}
		memset(&rx[s], 0, sizeof(rx[s]));
	}
	sockets_open = true;
	snprintf(name, sizeof(name), "epoch %u: %d sockets bound to ports %d..%d",
		 my_epoch, opt_sockets, opt_port_base,
		 opt_port_base + opt_sockets - 1);
	ok_diag(bad == 0, name, "%d failed", bad);
}

static void close_sockets(void)
{
	int i, s;

	for (i = 0; i < opt_sockets; i++) {
		if (socks[i].fd >= 0)
			close(socks[i].fd);
		socks[i].fd = -1;
		socks[i].reg.registered = false;
	}
	for (s = 0; s < opt_sockets * K_STREAMS; s++) {
		if (!tx[s].ru)
			continue;
		tx[s].ru->busy = false;
		tx[s].ru->late = false;
		tx[s].ru->rb = false;
	}
	/* the suspects of these sockets go with them */
	nsuspects = 0;
	sockets_open = false;
}

static int open_count(void)
{
	int i, n = 0;

	for (i = 0; i < opt_sockets; i++)
		n += socks[i].fd >= 0;
	return n;
}

/* ---- the ledger ---- */

static bool write_ledger(void)
{
	char tmp[4096];
	FILE *f;
	int s;

	snprintf(tmp, sizeof(tmp), "%s.tmp", opt_ledger);
	f = fopen(tmp, "w");
	if (!f)
		return false;
	fprintf(f, "E %u %d %d\n", my_epoch, opt_sockets, opt_port_base);
	for (s = 0; s < opt_sockets * K_STREAMS; s++)
		fprintf(f, "S %d %d %u %llu %d %llu %u\n", s / K_STREAMS,
			s % K_STREAMS, my_epoch,
			(unsigned long long)tx[s].next, tx[s].mark_set,
			(unsigned long long)tx[s].mark, tx[s].mark_epoch);
	if (fclose(f))
		return false;
	return !rename(tmp, opt_ledger);
}

struct ledger_line {
	int i, k, ms;
	unsigned int epoch, mark_epoch;
	unsigned long long next, mark;
};

static struct ledger_line *peer_ledger;
static int peer_lines;
static unsigned int peer_final_epoch;

static bool read_ledger(const char *path)
{
	struct ledger_line l;
	char line[256];
	int n, ports, base;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "E %u %d %d", &peer_final_epoch, &ports, &base) != 3 ||
	    ports != opt_sockets || base != opt_port_base) {
		fclose(f);
		return false;
	}
	peer_ledger = calloc(opt_sockets * K_STREAMS, sizeof(*peer_ledger));
	for (n = 0; n < opt_sockets * K_STREAMS && fgets(line, sizeof(line), f);
	     n++) {
		if (sscanf(line, "S %d %d %u %llu %d %llu %u", &l.i, &l.k,
			   &l.epoch, &l.next, &l.ms, &l.mark,
			   &l.mark_epoch) != 7 ||
		    l.i < 0 || l.i >= opt_sockets || l.k < 0 ||
		    l.k >= K_STREAMS)
			break;
		peer_ledger[n] = l;
	}
	fclose(f);
	peer_lines = n;
	return n == opt_sockets * K_STREAMS;
}

/*
 * What is still missing of what the peer's surviving sockets sent to
 * ours; *@unknown counts streams whose sender never heard of our epoch.
 */
static uint64_t count_missing(uint64_t *unknown, bool print)
{
	uint64_t miss = 0, m, upto;
	int n, shown = 0;

	*unknown = 0;
	for (n = 0; n < peer_lines; n++) {
		const struct ledger_line *l = &peer_ledger[n];
		int j = peer_index(l->i, l->k);
		const struct rx_stream *r = &rx[j * K_STREAMS + l->k];

		if (!l->next)
			continue;
		if (!l->ms || l->mark_epoch != my_epoch) {
			(*unknown)++;
			continue;
		}
		if (l->next <= l->mark)
			continue;	/* nothing it must have */
		m = 0;
		if (!r->started && r->pending && r->pending <= l->next) {
			/* short ones only, so no number: the last ones sent */
			if (l->next - r->pending > l->mark)
				m = l->next - r->pending - l->mark;
		} else if (!r->started || r->epoch != l->epoch) {
			m = l->next - l->mark;
		} else {
			upto = r->last + r->pending;
			if (r->first > l->mark)
				m += r->first - l->mark;
			if (upto + 1 < l->next)
				m += l->next - 1 - upto;
		}
		if (m && print && shown++ < 5)
			tap_diag("port %d from %d: %llu of messages %llu..%llu missing (got %s%llu..%llu)",
				 opt_port_base + j, opt_port_base + l->i,
				 (unsigned long long)m, l->mark, l->next - 1,
				 r->started ? "" : "nothing, ",
				 (unsigned long long)r->first,
				 (unsigned long long)(r->last + r->pending));
		miss += m;
	}
	return miss;
}

static int busy_ops(void)
{
	int s, n = 0;

	for (s = 0; s < opt_sockets * K_STREAMS; s++)
		n += tx[s].ru && tx[s].ru->busy;
	return n;
}

/* ---- the main loop ---- */

static char ctl_line[4096];
static size_t ctl_len;

static void say_ack(const char *what)
{
	tap_diag("ack %s", what);
}

static void report(void)
{
	uint64_t unknown = 0, e;
	int i;
	char errs[512] = "";
	size_t off = 0;

	st.lost = count_missing(&unknown, true);
	st.not_noticed = busy_ops();
	for (e = 0; e < ARRAY_SIZE(st.send_errno); e++)
		if (st.send_errno[e] && off < sizeof(errs) - 64)
			off += snprintf(errs + off, sizeof(errs) - off, " %s:%llu",
					tap_errname(e),
					(unsigned long long)st.send_errno[e]);
	tap_diag("sends held back: %llu by congestion (ENOBUFS), %llu by a full buffer (EAGAIN); failed:%s",
		 (unsigned long long)st.held_cong,
		 (unsigned long long)st.held_again, off ? errs : " none");

	ok_diag(st.sent > 0 && st.recvd > 0, "messages went both ways",
		"sent %llu, received %llu", (unsigned long long)st.sent,
		(unsigned long long)st.recvd);
	is_eq(st.dup, 0, "no message arrived twice or after a later one");
	is_eq(st.gap, 0, "no message arrived before an earlier one of its stream");
	is_eq(st.corrupt, 0, "no message arrived corrupted or truncated");
	is_eq(st.late_epoch, 0, "no message of a closed socket after its successor's");
	is_eq(st.foreign, 0, "every message came from a stream of the peer's");
	is_eq(unknown, 0, "the peer's surviving sockets heard of our last epoch");
	is_eq(st.lost, 0,
	      "every message from a socket that stayed open to one that stayed open arrived");
	is_eq(st.send_bad, 0, "no send failed with EINVAL, EFAULT or EMSGSIZE");
	ok_diag(st.held_cong > 0, "receivers that stopped reading held senders back",
		"no ENOBUFS in %llu sends", (unsigned long long)st.sent);
	ok_diag(st.st_success > 0 && st.verified > 0,
		"RDMA operations and atomics succeeded and were checked",
		"%llu succeeded, %llu checked",
		(unsigned long long)st.st_success,
		(unsigned long long)st.verified);
	ok_diag(!st.st_canceled && !st.st_other && !st.st_unknown && !nsuspects,
		"every RDMA operation ended in RDS_RDMA_SUCCESS or RDS_RDMA_DROPPED (or REMOTE_ERROR on a cookie since replaced)",
		"canceled %llu, other error %llu, unknown %llu, remote error on a live cookie %zu",
		(unsigned long long)st.st_canceled,
		(unsigned long long)st.st_other,
		(unsigned long long)st.st_unknown, nsuspects);
	is_eq(st.atomic_unwritten, 0,
	      "every successful atomic's old value was at local_addr when its notice came");
	is_eq(st.wrong - st.atomic_unwritten, 0,
	      "what RDMA reads, writes and atomics read and wrote is right");
	is_eq(st.owner_wrong, 0, "the writes that landed in our regions are what the peer wrote");
	is_eq(st.not_noticed, 0, "every RDMA operation of a surviving socket got its notice");
	is_eq(st.notice_unexpected, 0, "no notice for an operation nobody waits for");
	is_eq(st.reg_fail, 0, "every region registration succeeded");
	for (i = 0; i < nwrong_diag; i++)
		tap_diag("wrong data: %s", wrong_diag[i]);

	printf("# soak-stats: sent=%llu sent_bytes=%llu received=%llu recv_bytes=%llu lost=%llu dup=%llu reordered=%llu corrupt=%llu held_cong=%llu held_again=%llu send_err=%llu rdma_ops=%llu rdma_success=%llu rdma_dropped=%llu rdma_stale=%llu rdma_bad=%llu rdma_checked=%llu rdma_wrong=%llu owner_checked=%llu owner_wrong=%llu atomic_unwritten=%llu epochs=%u\n",
	       (unsigned long long)st.sent, (unsigned long long)st.sent_bytes,
	       (unsigned long long)st.recvd, (unsigned long long)st.recv_bytes,
	       (unsigned long long)st.lost, (unsigned long long)st.dup,
	       (unsigned long long)st.gap, (unsigned long long)st.corrupt,
	       (unsigned long long)st.held_cong,
	       (unsigned long long)st.held_again,
	       (unsigned long long)(st.send_err + st.send_bad),
	       (unsigned long long)(st.ops[OP_READ] + st.ops[OP_WRITE] +
				    st.ops[OP_READBACK] + st.ops[OP_FADD] +
				    st.ops[OP_CSWP]),
	       (unsigned long long)st.st_success,
	       (unsigned long long)st.st_dropped,
	       (unsigned long long)st.st_stale,
	       (unsigned long long)(st.st_canceled + st.st_other +
				    st.st_unknown + nsuspects),
	       (unsigned long long)st.verified, (unsigned long long)st.wrong,
	       (unsigned long long)st.owner_verified,
	       (unsigned long long)st.owner_wrong,
	       (unsigned long long)st.atomic_unwritten, my_epoch + 1);
	tap_diag("RDMA: %llu reads, %llu writes, %llu read-backs, %llu fetch-and-adds, %llu compare-and-swaps; owner checks %llu, skipped %llu (overwritten or dropped); announcements %llu sent, %llu received",
		 (unsigned long long)st.ops[OP_READ],
		 (unsigned long long)st.ops[OP_WRITE],
		 (unsigned long long)st.ops[OP_READBACK],
		 (unsigned long long)st.ops[OP_FADD],
		 (unsigned long long)st.ops[OP_CSWP],
		 (unsigned long long)st.owner_verified,
		 (unsigned long long)st.owner_skipped,
		 (unsigned long long)st.ann_sent,
		 (unsigned long long)st.ann_recvd);
}

/* Returns true when the run is over. */
static bool do_command(char *line)
{
	static long long drain_until;
	bool known = true;
	int s, i;

	if (!strcmp(line, "go")) {
		running = true;
	} else if (!strcmp(line, "pause")) {
		close_sockets();
		st.pauses++;
	} else if (!strcmp(line, "resume")) {
		my_epoch++;
		open_sockets();
	} else if (!strcmp(line, "rereg")) {
		for (i = 0; i < opt_sockets; i += OWNER_EVERY)
			if (socks[i].fd >= 0)
				region_register(i);
	} else if (!strcmp(line, "stop")) {
		running = false;
		stopped = true;
		for (i = 0; i < opt_sockets; i++)
			socks[i].paused_until = 0;
		if (!ok_diag(opt_ledger && write_ledger(), "ledger written",
			     "%s: %s", opt_ledger ? opt_ledger : "no --ledger",
			     tap_errname(errno)))
			return true;
	} else if (strncmp(line, "check ", 6)) {
		known = false;
	} else {
		uint64_t unknown;
		long long t0 = now_ms();

		if (!ok_diag(read_ledger(line + 6), "the peer's ledger",
			     "%s: %d lines", line + 6, peer_lines))
			return true;
		drain_until = t0 + opt_drain * 1000LL;
		/* until nothing is missing and no notice is owed */
		for (;;) {
			for (i = 0; i < opt_sockets; i++)
				if (socks[i].fd >= 0)
					drain_socket(i);
			if ((!count_missing(&unknown, false) && !busy_ops()) ||
			    now_ms() > drain_until)
				break;
			sleep_ms(10);
		}
		/* a little longer, for anything that would come twice */
		for (s = 0; s < 200; s++) {
			for (i = 0; i < opt_sockets; i++)
				if (socks[i].fd >= 0)
					drain_socket(i);
			sleep_ms(10);
		}
		tap_diag("drained in %lld s", (now_ms() - t0) / 1000);
		report();
		close_sockets();
		say_ack(line);
		return true;
	}
	if (!known)
		tap_diag("unknown command '%s'", line);
	else
		say_ack(line);
	return false;
}

/* Read commands from stdin; true when the run is over. */
static bool read_commands(void)
{
	ssize_t n = read(0, ctl_line + ctl_len, sizeof(ctl_line) - 1 - ctl_len);
	char *nl;

	if (n <= 0) {
		tap_diag("stdin closed: stopping");
		ok_diag(0, "the run ended with a check command", NULL);
		return true;
	}
	ctl_len += n;
	ctl_line[ctl_len] = 0;
	while ((nl = strchr(ctl_line, '\n'))) {
		*nl = 0;
		if (do_command(ctl_line))
			return true;
		memmove(ctl_line, nl + 1, ctl_len - (nl + 1 - ctl_line) + 1);
		ctl_len -= nl + 1 - ctl_line;
	}
	return false;
}

static void loop(void)
{
	struct pollfd *p = calloc(opt_sockets + 1, sizeof(*p));
	long long now, last = now_ms(), last_pause = last, last_diag = last;
	double credit = 0, op_credit = 0;
	int i, s, tries;

	for (;;) {
		p[0].fd = 0;
		p[0].events = POLLIN;
		now = now_ms();
		for (i = 0; i < opt_sockets; i++) {
			p[i + 1].fd = socks[i].paused_until > now ? -1 :
				      socks[i].fd;
			p[i + 1].events = POLLIN;
			p[i + 1].revents = 0;
		}
		poll(p, opt_sockets + 1, 5);
		if ((p[0].revents & (POLLIN | POLLHUP)) && read_commands())
			break;
		now = now_ms();
		for (i = 0; i < opt_sockets; i++)
			if (p[i + 1].revents & POLLIN)
				drain_socket(i);
		if (!running || !sockets_open) {
			last = now;
			continue;
		}

		/* a few receivers stop reading for a while: congestion */
		if (now - last_pause >= 200) {
			last_pause = now;
			for (tries = 0; tries < opt_sockets / 50 + 1; tries++) {
				i = rnd() % opt_sockets;
				if (rnd() % 10 == 0)
					socks[i].paused_until = now +
						rnd_range(1000, 5000);
			}
		}
		for (i = 0; i < opt_sockets; i += OWNER_EVERY)
			if (socks[i].fd >= 0 && socks[i].reg.registered &&
			    now >= socks[i].ann_at)
				send_ann(i);

		credit += opt_rate * (now - last) / 1000.0;
		op_credit += opt_rdma_rate * (now - last) / 1000.0;
		last = now;
		if (credit > opt_rate / 10.0 + 1)
			credit = opt_rate / 10.0 + 1;
		if (op_credit > opt_rdma_rate / 10.0 + 1)
			op_credit = opt_rdma_rate / 10.0 + 1;
		while (credit >= 1) {
			credit--;
			send_one(rnd() % (opt_sockets * K_STREAMS));
		}
		for (tries = 0; op_credit >= 1 && tries < 64; tries++) {
			int src = rnd() % opt_sockets, k = rnd() % K_STREAMS;
			struct rdma_user *u;

			s = src * K_STREAMS + k;
			u = tx[s].ru;
			if (!u || !u->have || u->busy || u->late ||
			    socks[src].fd < 0 ||
			    socks[src].paused_until > now)
				continue;
			op_credit--;
			send_op(s);
		}
		for (s = 0; s < opt_sockets * K_STREAMS; s++)
			if (tx[s].ru && tx[s].ru->late && now >= tx[s].ru->late_at)
				look_again(s);
		if (now - last_diag >= 30000) {
			last_diag = now;
			tap_diag("sent %llu, received %llu, RDMA %llu ok %llu dropped %llu stale, held back %llu+%llu, %d sockets open",
				 (unsigned long long)st.sent,
				 (unsigned long long)st.recvd,
				 (unsigned long long)st.st_success,
				 (unsigned long long)st.st_dropped,
				 (unsigned long long)st.st_stale,
				 (unsigned long long)st.held_cong,
				 (unsigned long long)st.held_again,
				 open_count());
		}
	}
	free(p);
}

/* ---- options ---- */

#define USAGE								\
	" --role a|b [--sockets N] [--port-base P] [--rate MSGS/S]\n"	\
	"          [--rdma-rate OPS/S] [--ledger FILE] [--drain S]\n"	\
	"  commands on stdin: go, pause, resume, rereg, stop, check FILE"

enum {
	OPT_ROLE = 0x100, OPT_SOCKETS, OPT_PORT_BASE, OPT_RATE, OPT_RDMA_RATE,
	OPT_LEDGER, OPT_DRAIN,
};

static const struct option extra_opts[] = {
	{ "role", required_argument, NULL, OPT_ROLE },
	{ "sockets", required_argument, NULL, OPT_SOCKETS },
	{ "port-base", required_argument, NULL, OPT_PORT_BASE },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "rdma-rate", required_argument, NULL, OPT_RDMA_RATE },
	{ "ledger", required_argument, NULL, OPT_LEDGER },
	{ "drain", required_argument, NULL, OPT_DRAIN },
	{ NULL, 0, NULL, 0 },
};

static int extra_opt(int opt, const char *arg)
{
	long v = atol(arg);

	switch (opt) {
	case OPT_ROLE:
		opt_role = arg;
		return strcmp(arg, "a") && strcmp(arg, "b") ? -1 : 0;
	case OPT_SOCKETS:
		opt_sockets = v;
		return v >= 64 && v <= 8192 ? 0 : -1;
	case OPT_PORT_BASE:
		opt_port_base = v;
		return v >= 1024 && v <= 50000 ? 0 : -1;
	case OPT_RATE:
		opt_rate = v;
		return v > 0 ? 0 : -1;
	case OPT_RDMA_RATE:
		opt_rdma_rate = v;
		return v >= 0 ? 0 : -1;
	case OPT_LEDGER:
		opt_ledger = arg;
		return 0;
	case OPT_DRAIN:
		opt_drain = v;
		return v > 0 ? 0 : -1;
	}
	return -1;
}

static bool setup(void)
{
	struct rlimit rl;
	int i, s;

	rl.rlim_cur = rl.rlim_max = opt_sockets + 256;
	if (!is_ok(setrlimit(RLIMIT_NOFILE, &rl),
		   "RLIMIT_NOFILE raised to %d", opt_sockets + 256))
		return false;
	socks = calloc(opt_sockets, sizeof(*socks));
	tx = calloc(opt_sockets * K_STREAMS, sizeof(*tx));
	rx = calloc(opt_sockets * K_STREAMS, sizeof(*rx));
	buf = malloc(MAX_MSG + 64);
	sbuf = malloc(MAX_MSG + 64);
	if (!socks || !tx || !rx || !buf || !sbuf)
		return false;
	for (i = 0; i < opt_sockets; i++) {
		socks[i].fd = -1;
		if (is_owner(i)) {
			socks[i].reg.mem = mmap(NULL, REGION_SZ,
						PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS,
						-1, 0);
			if (socks[i].reg.mem == MAP_FAILED)
				return false;
		}
	}
	/* the streams that go to an owner of the peer's */
	for (s = 0; s < opt_sockets * K_STREAMS; s++) {
		if (!is_owner(peer_index(s / K_STREAMS, s % K_STREAMS)))
			continue;
		tx[s].ru = calloc(1, sizeof(*tx[s].ru));
		if (!tx[s].ru)
			return false;
		tx[s].ru->buf = aligned_alloc(4096, MAX_RDMA);
		if (!tx[s].ru->buf)
			return false;
		tx[s].ru->npos = -1;
	}
	return true;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_common(argc, argv, extra_opts, extra_opt, USAGE) ||
	    cfg.peer.s_addr == cfg.addr.s_addr) {
		usage(argv[0], USAGE);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	rnd_state = mix64((uint64_t)getpid() << 16 ^ (uint64_t)now_ms()) | 1;
	tap_diag("rds_soak on host %s: family %d, %d sockets from port %d, %d msgs/s, %d RDMA ops/s, seed %#llx",
		 opt_role, cfg.family, opt_sockets, opt_port_base, opt_rate,
		 opt_rdma_rate, (unsigned long long)rnd_state);
	if (!ok(setup(), "set up"))
		return tap_finish();
	open_sockets();
	tap_diag("ready");
	loop();
	return tap_finish();
}
