// SPDX-License-Identifier: GPL-2.0
/*
 * A hostile peer of rds_doca's IB transport, against
 * Documentation/security.rst ("Remote peers"): a userspace program that
 * speaks the wire protocol itself (librdmacm, libibverbs) and sends the
 * module frames no correct peer sends.
 *
 * Each case connects from an address of its own (--hostile, then the next
 * ones, added to --netdev as /32 addresses; with --ipv6, --peer6 with its
 * last two bytes 0x01 and those numbers, as /128) to the module's rdma_cm port
 * on --peer (--peer6) and checks what the module did:
 *
 *  - refusal: a request with wrong private data is refused with its
 *    reason, counted in recv_proto_error, and leaves no connection;
 *  - reset: connected with valid private data, once a valid message has
 *    reached a socket bound on --peer and the module shows the
 *    connection up, a crafted frame makes the module disconnect the
 *    queue pair, count the violation once in recv_proto_error, and
 *    deliver nothing of it;
 *  - drop: messages numbered below what was delivered are dropped and
 *    counted in recv_drop_old_seq, credits returned beyond those
 *    offered are clamped away, and requests for more receive buffers
 *    beyond the largest ring are ignored; the connection goes on.
 *
 * After every case a socket on --addr and one on --peer exchange messages
 * over their own connection, which must never be reset (its connects
 * count, read with --rdsctl, stays what it was): a peer disturbs only
 * its own connection.
 *
 * An address serves one case only: when the module loses a connection it
 * connects back to the peer's address, which is local here, so it ends
 * up connected to itself on that pair of addresses; a second hostile
 * connection from there would meet that one.  Those connections are
 * idle and reaped after conn_idle_secs.  So the module must be freshly
 * loaded for a run.  Nothing is timed: waits are for events, with
 * generous deadlines.  Prints TAP (see tap.h).
 */
#include "rds_util.h"

#include <endian.h>
#include <inttypes.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* The wire protocol, as net/rds_doca/wire.h and ib.h define it. */
#define WIRE_MAGIC	0x52445344	/* "RDSD" */
#define WIRE_VERSION	6
#define CM_VERSION	7
#define T_DATA		1
#define T_ACK		2
#define T_CONG		3
#define T_MR_REQ	6
#define T_MR_ANS	7
#define T_RDMA_REQ	10	/* the TCP transport's */
#define T_RDMA_RESP	11
#define F_ACK_REQ	0x0001
#define F_ACK_VALID	0x0002
#define F_LAST		0x0004
#define F_MORE		0x0008
#define F_MORE_BUFS	0x0200
#define RING_MAX	254		/* RDSD_IB_RECV_MAX */
#define FRAG		16384		/* RDSD_IB_FRAG_SIZE */
#define MAX_MSG		(1024 * 1024)	/* RDSD_MAX_MSG_SIZE */
#define MSG_LIMIT	(64 << 20)	/* RDSD_MSG_SIZE_LIMIT */
#define CONG_BYTES	(65536 / 8)	/* a congestion map */
#define IB_PORT_PARAM	"/sys/module/rds_doca/parameters/ib_port"

struct wire_hdr {
	uint32_t magic;
	uint8_t  version;
	uint8_t  type;
	uint16_t flags;
	uint64_t seq;
	uint64_t ack;
	uint32_t len;
	uint32_t frag_off;
	uint16_t sport;
	uint16_t dport;
	uint32_t frag_len;
	uint16_t credits;
	uint16_t bufs;
	uint8_t  reserved[4];
	uint64_t rdma_cookie;
	uint32_t rdma_key;
	uint32_t reserved2;
} __attribute__((packed));
#define HDR ((uint32_t)sizeof(struct wire_hdr))
_Static_assert(sizeof(struct wire_hdr) == 64, "struct rdsd_wire_hdr");

/*
 * Hostile addresses added from --hostile up (192.0.2.10, or 2001:db8:1::10a
 * for --peer6 2001:db8:1::2): more than the cases connecting.
 */
#define HOSTILE_ADDRS	64

struct cm_data {
	uint32_t magic;
	uint8_t  version;
	uint8_t  reason;
	uint16_t flags;
	uint32_t credits;
	uint32_t frag_size;
	uint32_t max_msg;
	uint32_t recv_max;
	uint64_t incarnation;
	uint64_t peer_incarnation;
	uint64_t rx_next;
	uint8_t  path;
	uint8_t  paths;
	uint8_t  tos;
	uint8_t  reserved[5];
} __attribute__((packed));
_Static_assert(sizeof(struct cm_data) == 56, "struct rdsd_ib_cm_data");

/*
 * Receives we post, and the credits we offer and say our ring grows to:
 * fewer, see credit_flood.
 */
#define RECVS		256
#define OFFER		66		/* RDSD_IB_MAX_FRAGS + 2, the least */
#define SLOT		(HDR + FRAG)
/* Room for the largest SEND a case makes: more than a receive holds. */
#define SEND_ROOM	(SLOT + 2 * HDR)
#define HP_SPORT	4242
/* Wait this long for the module to act. */
#define ACT_MS		15000

/* One header, in host order. */
struct hf {
	uint8_t  type;
	uint16_t flags;
	uint64_t seq;
	uint64_t ack;
	uint32_t len;
	uint32_t frag_off;
	uint32_t frag_len;
	uint16_t dport;
	uint16_t credits;
	uint64_t cookie;	/* rdma_cookie */
	bool	 no_sport;	/* source port 0 */
};

static struct {
	const char *netdev;
	const char *rdsctl;
	unsigned int next_host;	/* last byte of the next hostile address */
	uint16_t ib_port;
	int legit_a, legit_b;	/* sockets on --addr and --peer */
	int victim;		/* socket on --peer the hostile peer sends to */
	uint16_t victim_port;
	int connects;		/* of the legit pair, at the start */
	unsigned int round;
} hp;

/* One hostile connection. */
struct peer {
	union rds_sa addr;	/* ours, port 0 */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char *mem;	/* RECVS slots, then the send area */
	bool qp;
	bool down;		/* DISCONNECTED, or the queue pair failed */
	const char *how;	/* what showed it down */
	unsigned int frames;	/* SENDs received from the module */
	unsigned int data;	/* whole DATA messages in them */
	unsigned int bufs;	/* the module's receive ring, as it said */
	uint64_t last_seq;	/* of the last one */
	uint64_t next_seq;	/* of our next DATA message */
	unsigned int answers;	/* MR_ANS received */
	uint64_t ans_cookie;	/* the last one's cookie */
	uint32_t ans_key;	/* its device key, 0 for a refusal */
	uint32_t ans_len;	/* the region's length */
	int send_status;	/* of the last send */
};

/* ------------------------------------------------------------------ */
/* frames                                                              */
/* ------------------------------------------------------------------ */

static void hdr_put(void *p, const struct hf *f)
{
	struct wire_hdr h;

	memset(&h, 0, sizeof(h));
	h.magic = htobe32(WIRE_MAGIC);
	h.version = WIRE_VERSION;
	h.type = f->type;
	h.flags = htobe16(f->flags);
	h.seq = htobe64(f->seq);
	h.ack = htobe64(f->ack);
	h.len = htobe32(f->len);
	h.frag_off = htobe32(f->frag_off);
	h.frag_len = htobe32(f->frag_len);
	h.sport = htobe16(f->type == T_CONG || f->no_sport ? 0 : HP_SPORT);
	h.dport = htobe16(f->dport);
	h.credits = htobe16(f->credits);
	h.rdma_cookie = htobe64(f->cookie);
	memcpy(p, &h, sizeof(h));
}

/* A whole DATA message of @len bytes to the victim, header only. */
static struct hf data_hf(uint64_t seq, uint32_t len)
{
	return (struct hf){ .type = T_DATA, .flags = F_LAST, .seq = seq,
			    .len = len, .frag_len = len,
			    .dport = hp.victim_port };
}

/* ------------------------------------------------------------------ */
/* the hostile connection                                              */
/* ------------------------------------------------------------------ */

static unsigned char *send_area(struct peer *p)
{
	return p->mem + (size_t)RECVS * SLOT;
}

static int post_recv(struct peer *p, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(p->mem + (size_t)i * SLOT),
		.length = SLOT,
		.lkey = p->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(p->id->qp, &wr, &bad);
}

/* Count what a SEND of the module carried: frames and DATA messages. */
static void got_frame(struct peer *p, const unsigned char *buf, uint32_t n)
{
	uint32_t pos = 0;

	p->frames++;
	while (pos + HDR <= n) {
		struct wire_hdr h;
		uint16_t flags;

		memcpy(&h, buf + pos, HDR);
		flags = be16toh(h.flags);
		if (be16toh(h.bufs) > p->bufs)
			p->bufs = be16toh(h.bufs);
		if (h.type == T_DATA && (flags & F_LAST)) {
			p->data++;
			p->last_seq = be64toh(h.seq);
		}
		if (h.type == T_MR_ANS) {
			p->answers++;
			p->ans_cookie = be64toh(h.rdma_cookie);
			p->ans_key = be32toh(h.rdma_key);
			p->ans_len = be32toh(h.len);
		}
		if (!(flags & F_MORE))
			break;
		pos += HDR + be32toh(h.frag_len);
	}
}

/*
 * Take completions for up to @ms.  Returns 1 when the send in flight
 * completed (its status in send_status), 0 otherwise.
 */
static int poll_cq(struct peer *p, int ms)
{
	long long deadline = now_ms() + ms;
	struct ibv_wc wc[16];
	int n, i, sent = 0;

	do {
		n = ibv_poll_cq(p->cq, 16, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].opcode & IBV_WC_RECV) {
				if (wc[i].status == IBV_WC_SUCCESS) {
					got_frame(p, p->mem + wc[i].wr_id * SLOT,
						  wc[i].byte_len);
				} else if (!p->down) {
					p->down = true;
					p->how = "receives flushed";
				}
			} else if (wc[i].wr_id == 1) {
				p->send_status = wc[i].status;
				sent = 1;
				if (wc[i].status != IBV_WC_SUCCESS &&
				    !p->down) {
					p->down = true;
					p->how = "send failed";
				}
			}
		}
		if (sent)
			return 1;
		if (!n && ms)
			sleep_ms(1);
	} while (now_ms() < deadline);
	return 0;
}

/* The next CM event within @ms, copied; false if none. */
static bool cm_event(struct peer *p, int ms, struct rdma_cm_event *out,
		     struct cm_data *pdata)
{
	struct pollfd pfd = { .fd = p->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) != 1 || rdma_get_cm_event(p->ch, &ev))
		return false;
	*out = *ev;
	if (pdata) {
		memset(pdata, 0, sizeof(*pdata));
		if (ev->param.conn.private_data &&
		    ev->param.conn.private_data_len >= sizeof(*pdata))
			memcpy(pdata, ev->param.conn.private_data,
			       sizeof(*pdata));
	}
	rdma_ack_cm_event(ev);
	return true;
}

/* Wait for CM event @want; false (with a diagnostic) on anything else. */
static bool cm_expect(struct peer *p, enum rdma_cm_event_type want,
		      struct cm_data *pdata)
{
	struct rdma_cm_event ev;

	if (!cm_event(p, ACT_MS, &ev, pdata)) {
		tap_diag("no %s within %d ms", rdma_event_str(want), ACT_MS);
		return false;
	}
	if (ev.event != want) {
		tap_diag("%s (status %d) instead of %s",
			 rdma_event_str(ev.event), ev.status,
			 rdma_event_str(want));
		return false;
	}
	return true;
}

static void peer_close(struct peer *p)
{
	if (p->id && p->qp && !p->down)
		rdma_disconnect(p->id);
	if (p->qp)
		rdma_destroy_qp(p->id);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->id)
		rdma_destroy_id(p->id);
	if (p->ch)
		rdma_destroy_event_channel(p->ch);
	free(p->mem);
	memset(p, 0, sizeof(*p));
}

/* Private data of a valid request. */
static void cm_req_valid(struct cm_data *req)
{
	memset(req, 0, sizeof(*req));
	req->magic = htobe32(WIRE_MAGIC);
	req->version = CM_VERSION;
	req->credits = htobe32(OFFER);
	req->recv_max = htobe32(OFFER);
	req->frag_size = htobe32(FRAG);
	req->max_msg = htobe32(MAX_MSG);
	req->paths = 1;
	req->incarnation = htobe64(((uint64_t)getpid() << 32) | hp.next_host);
}

/*
 * Hostile address @n (port 0): 192.0.2.@n, or over IPv6 --peer6 with
 * its last two bytes 0x01, @n.
 */
static union rds_sa hostile_sa(unsigned int n)
{
	union rds_sa a = cfg_sa(true, 0);

	if (cfg.v6) {
		a.sin6.sin6_addr.s6_addr[14] = 0x01;
		a.sin6.sin6_addr.s6_addr[15] = (uint8_t)n;
	} else {
		a.sin.sin_addr.s_addr = htonl(0xc0000200 | n);
	}
	return a;
}

/*
 * Resolve, build the queue pair, post the receives, send a request with
 * @len bytes of private data @req from the next hostile address, and
 * wait for CM event @want.  The private data of the module's answer goes
 * to @answer.
 */
static bool peer_connect(struct peer *p, const struct cm_data *req,
			 uint8_t len, enum rdma_cm_event_type want,
			 struct cm_data *answer)
{
	char a[64], b[64];
	union rds_sa dst = cfg_sa(true, hp.ib_port);
	struct ibv_qp_init_attr qa;
	struct rdma_conn_param cp;
	unsigned int i;
	size_t room = (size_t)RECVS * SLOT + SEND_ROOM;

	memset(p, 0, sizeof(*p));
	p->addr = hostile_sa(hp.next_host++);

	p->ch = rdma_create_event_channel();
	if (!p->ch || rdma_create_id(p->ch, &p->id, NULL, RDMA_PS_TCP)) {
		tap_diag("rdma_create_id: %s", strerror(errno));
		return false;
	}
	if (rdma_resolve_addr(p->id, &p->addr.sa, &dst.sa, 5000) ||
	    !cm_expect(p, RDMA_CM_EVENT_ADDR_RESOLVED, NULL) ||
	    rdma_resolve_route(p->id, 5000) ||
	    !cm_expect(p, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL)) {
		tap_diag("resolving %s -> %s failed",
			 sa_fmt(&p->addr, a, sizeof(a)),
			 sa_fmt(&dst, b, sizeof(b)));
		return false;
	}

	p->pd = ibv_alloc_pd(p->id->verbs);
	p->cq = p->pd ? ibv_create_cq(p->id->verbs, RECVS + 64, NULL, NULL, 0) :
		NULL;
	p->mem = aligned_alloc(4096, room);
	if (!p->cq || !p->mem) {
		tap_diag("pd, cq or memory: %s", strerror(errno));
		return false;
	}
	memset(p->mem, 0, room);
	p->mr = ibv_reg_mr(p->pd, p->mem, room, IBV_ACCESS_LOCAL_WRITE);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = p->cq;
	qa.recv_cq = p->cq;
	qa.cap.max_send_wr = 16;
	qa.cap.max_recv_wr = RECVS;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 1;
	if (!p->mr || rdma_create_qp(p->id, p->pd, &qa)) {
		tap_diag("memory region or queue pair: %s", strerror(errno));
		return false;
	}
	p->qp = true;
	for (i = 0; i < RECVS; i++)
		if (post_recv(p, i)) {
			tap_diag("ibv_post_recv: %s", strerror(errno));
			return false;
		}

	memset(&cp, 0, sizeof(cp));
	cp.private_data = req;
	cp.private_data_len = len;
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 3;
	cp.rnr_retry_count = 7;
	if (rdma_connect(p->id, &cp)) {
		tap_diag("rdma_connect: %s", strerror(errno));
		return false;
	}
	return cm_expect(p, want, answer);
}

/* Post one SEND of @len bytes of the send area; wait for its completion. */
static bool peer_send(struct peer *p, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)send_area(p),
		.length = len,
		.lkey = p->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = IBV_WR_SEND,
	};
	struct ibv_send_wr *bad;

	if (p->down || ibv_post_send(p->id->qp, &wr, &bad))
		return false;
	if (!poll_cq(p, ACT_MS)) {
		tap_diag("send of %u bytes: no completion", len);
		return false;
	}
	return p->send_status == IBV_WC_SUCCESS;
}

/* Send one frame: header @f and @f->frag_len bytes of payload. */
static bool peer_frame(struct peer *p, const struct hf *f)
{
	hdr_put(send_area(p), f);
	pattern_fill(send_area(p) + HDR, f->frag_len, (uint32_t)f->seq);
	return peer_send(p, HDR + f->frag_len);
}

/*
 * Wait for the module to drop the connection: a DISCONNECTED event, or
 * the queue pair failing.  The event is waited for even when the queue
 * pair failed first.
 */
static bool peer_wait_down(struct peer *p)
{
	long long deadline = now_ms() + ACT_MS;
	struct rdma_cm_event ev;

	while (now_ms() < deadline) {
		poll_cq(p, 0);
		if (cm_event(p, 50, &ev, NULL)) {
			if (ev.event == RDMA_CM_EVENT_DISCONNECTED) {
				if (!p->down)
					p->how = "DISCONNECTED";
				p->down = true;
				return true;
			}
			tap_diag("CM event %s", rdma_event_str(ev.event));
		}
	}
	return p->down;
}

/*
 * Flags of the module's connection from --peer to @p (RDS_INFO_CONNECTIONS
 * on its first lane, or RDS6_INFO_CONNECTIONS), -1 if there is none.
 */
static int conn_flags(const struct peer *p)
{
	union rds_sa l = cfg_sa(true, 0);
	socklen_t len;
	void *buf;
	int r, fl = -1;
	size_t i;

	if (cfg.v6) {
		struct rds6_info_connection *c;

		r = info_get(hp.victim, RDS6_INFO_CONNECTIONS, &buf, &len);
		if (r == (int)sizeof(*c))
			for (c = buf, i = 0; i < len / sizeof(*c); i++)
				if (!memcmp(&c[i].laddr, &l.sin6.sin6_addr,
					    sizeof(c[i].laddr)) &&
				    !memcmp(&c[i].faddr,
					    &p->addr.sin6.sin6_addr,
					    sizeof(c[i].faddr)))
					fl = c[i].flags;
	} else {
		struct rds_info_connection *c;

		r = info_get(hp.victim, RDS_INFO_CONNECTIONS, &buf, &len);
		if (r == (int)sizeof(*c))
			for (c = buf, i = 0; i < len / sizeof(*c); i++)
				if (c[i].laddr == l.sin.sin_addr.s_addr &&
				    c[i].faddr == p->addr.sin.sin_addr.s_addr &&
				    !c[i].tos)
					fl = c[i].flags;
	}
	free(buf);
	return fl;
}

/*
 * Connect, then prove the connection works: a valid message (sequence
 * number 0) reaches the victim socket, and the module shows it up.
 */
static bool peer_open(struct peer *p)
{
	struct cm_data req, rep;
	union rds_sa from, us;
	char buf[64];
	struct hf f = data_hf(0, 16);
	long long deadline;
	ssize_t n;

	cm_req_valid(&req);
	if (!ok_diag(peer_connect(p, &req, sizeof(req),
				 RDMA_CM_EVENT_ESTABLISHED, &rep),
		     "connect with valid private data", "see above"))
		return false;
	if (!ok_diag(be32toh(rep.magic) == WIRE_MAGIC &&
		     rep.version == CM_VERSION && rep.incarnation,
		     "the module accepts with its own private data",
		     "magic %08x version %u", be32toh(rep.magic), rep.version))
		return false;
	f.flags |= F_ACK_REQ;
	if (!peer_frame(p, &f))
		return ok_diag(0, "a valid message goes", "status %d",
			       p->send_status);
	n = recv_wait(hp.victim, buf, sizeof(buf), &from, NULL, 0, ARRIVE_MS);
	us = p->addr;
	sa_set_port(&us, HP_SPORT);
	if (!ok_diag(n == 16 && pattern_check(buf, 16, 0) < 0 &&
		     sa_same(&from, &us),
		     "a valid message is delivered", "recv: %zd (%s)", n,
		     n < 0 ? strerror(errno) : "wrong bytes or sender"))
		return false;
	p->next_seq = 1;
	/*
	 * The module's receive ring starts small: ask it to grow, one
	 * request per size as its own senders do, up to where it stops.
	 * The cases send more than a small ring holds without waiting.
	 */
	deadline = now_ms() + ACT_MS;
	while (p->bufs < RING_MAX && !p->down && now_ms() < deadline) {
		struct hf more = { .type = T_ACK, .flags = F_MORE_BUFS };
		unsigned int had = p->bufs;

		if (!peer_frame(p, &more))
			break;
		while (p->bufs == had && !p->down && now_ms() < deadline)
			poll_cq(p, 100);
	}
	if (!ok_diag(p->bufs == RING_MAX,
		     "the module's receive ring grows to its largest when asked",
		     "%u buffers", p->bufs))
		return false;
	deadline = now_ms() + ACT_MS;
	while (!(conn_flags(p) >= 0 &&
		 (conn_flags(p) &
		  RDS_INFO_CONNECTION_FLAG_CONNECTED)) &&
	       now_ms() < deadline)
		sleep_ms(10);
	return ok_diag(conn_flags(p) >= 0 &&
		       (conn_flags(p) &
			RDS_INFO_CONNECTION_FLAG_CONNECTED),
		       "the module shows the connection up", "flags %d",
		       conn_flags(p));
}

/* ------------------------------------------------------------------ */
/* the others                                                          */
/* ------------------------------------------------------------------ */

static bool counter(const char *name, uint64_t *v)
{
	return counter_read(hp.victim, name, v);
}

/* Connects of the module's --addr <-> --peer connections, or -1. */
static int legit_connects(void)
{
	char cmd[512], line[65536];
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], want[2][128];
	union rds_sa la = cfg_sa(false, 0), lb = cfg_sa(true, 0);
	int total = 0, found = 0, k;
	size_t n;
	FILE *f;
	char *o;

	if (cfg.v6) {
		inet_ntop(AF_INET6, &la.sin6.sin6_addr, a, sizeof(a));
		inet_ntop(AF_INET6, &lb.sin6.sin6_addr, b, sizeof(b));
	} else {
		inet_ntop(AF_INET, &la.sin.sin_addr, a, sizeof(a));
		inet_ntop(AF_INET, &lb.sin.sin_addr, b, sizeof(b));
	}
	snprintf(want[0], sizeof(want[0]), "\"laddr\":\"%s\",\"peer\":\"%s\"",
		 a, b);
	snprintf(want[1], sizeof(want[1]), "\"laddr\":\"%s\",\"peer\":\"%s\"",
		 b, a);
	snprintf(cmd, sizeof(cmd), "%s -j conn show", hp.rdsctl);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(line, 1, sizeof(line) - 1, f);
	line[n] = 0;
	if (pclose(f))
		return -1;
	/* one object per connection: {"id":N,"laddr":...,"connects":N,...} */
	for (o = strchr(line, '{'); o; o = strchr(o + 1, '{')) {
		char *end = strchr(o, '}'), *next = strchr(o + 1, '{'), *c;

		if (!end)
			break;
		if (next && next < end)
			continue;	/* an enclosing object */
		*end = 0;
		for (k = 0; k < 2; k++) {
			/* type of service 0: other lanes may be up */
			if (!strstr(o, want[k]) || !strstr(o, "\"tos\":0,"))
				continue;
			c = strstr(o, "\"connects\":");
			if (!c)
				return -1;
			total += atoi(c + strlen("\"connects\":"));
			found++;
		}
		*end = '}';
	}
	return found == 2 ? total : -1;
}

/* Four messages each way between the legit sockets, all intact. */
static bool legit_exchange(void)
{
	union rds_sa to_b = sock_addr(hp.legit_b);
	union rds_sa to_a = sock_addr(hp.legit_a);
	char buf[2048];
	uint32_t seed;
	int i, bad = 0;

	for (i = 0; i < 4; i++) {
		seed = mix32(hp.round, i);
		pattern_fill(buf, 1000 + i, seed);
		if (send_to(hp.legit_a, &to_b, buf, 1000 + i, 0) != 1000 + i)
			bad++;
		pattern_fill(buf, 1500 + i, ~seed);
		if (send_to(hp.legit_b, &to_a, buf, 1500 + i, 0) != 1500 + i)
			bad++;
	}
	for (i = 0; i < 4; i++) {
		seed = mix32(hp.round, i);
		if (recv_wait(hp.legit_b, buf, sizeof(buf), NULL, NULL, 0,
			      ARRIVE_MS) != 1000 + i ||
		    pattern_check(buf, 1000 + i, seed) >= 0)
			bad++;
		if (recv_wait(hp.legit_a, buf, sizeof(buf), NULL, NULL, 0,
			      ARRIVE_MS) != 1500 + i ||
		    pattern_check(buf, 1500 + i, ~seed) >= 0)
			bad++;
	}
	hp.round++;
	return !bad;
}

/* ------------------------------------------------------------------ */
/* cases                                                               */
/* ------------------------------------------------------------------ */

/* What a case sends after the opening message, into @p. */
typedef bool (*send_fn)(struct peer *p);

/* What expect_reset() checks beyond the reset and the other sockets. */
#define QUIET	0x1	/* nothing reaches the victim socket */
#define COUNTED	0x2	/* recv_proto_error counts the violation once */

/*
 * Open a connection, run @fn, and check that the module reset it: the
 * queue pair is disconnected, and as @what says, recv_proto_error counts
 * the violation once and the victim gets nothing.  The legit pair still
 * talks.  What is not checked is reported.
 */
static void expect_reset(send_fn fn, unsigned int what)
{
	uint64_t e0 = 0, e1 = 0;
	struct peer p;
	ssize_t got;

	if (peer_open(&p)) {
		ok(counter("recv_proto_error", &e0), "read recv_proto_error");
		fn(&p);
		ok_diag(peer_wait_down(&p), "the module resets the connection",
			"still up after %d ms", ACT_MS);
		if (p.down)
			tap_diag("seen as: %s", p.how);
		ok(counter("recv_proto_error", &e1), "read recv_proto_error");
		if (what & COUNTED)
			is_eq(e1 - e0, 1, "recv_proto_error counts it once");
		else
			tap_diag("recv_proto_error moved by %" PRIu64, e1 - e0);
		if (what & QUIET)
			ok_diag(stays_quiet(hp.victim, QUIET_MS, &got),
				"nothing of it is delivered", "recv: %zd", got);
		else if (!stays_quiet(hp.victim, QUIET_MS, &got))
			tap_diag("its message was delivered (%zd bytes)", got);
	}
	peer_close(&p);
	ok(legit_exchange(), "the other sockets' messages all arrive");
}

/* Case helpers: one frame, built from the header and a payload size. */
static bool send_hf(struct peer *p, struct hf f)
{
	return peer_frame(p, &f);
}

/* The first fragment of a @len-byte message numbered @seq, then @next. */
static bool frag_then(struct peer *p, uint64_t seq, uint32_t len,
		      struct hf next)
{
	return send_hf(p, (struct hf){ .type = T_DATA, .seq = seq, .len = len,
				       .frag_len = FRAG,
				       .dport = hp.victim_port }) &&
	       send_hf(p, next);
}

/* Raw bytes, as they are. */
static bool send_raw(struct peer *p, const void *buf, uint32_t len)
{
	memcpy(send_area(p), buf, len);
	return peer_send(p, len);
}

/* A header patched at @off with @len bytes of @val, and @plen payload. */
static bool send_patched(struct peer *p, struct hf f, size_t off,
			 const void *val, size_t len)
{
	hdr_put(send_area(p), &f);
	memcpy(send_area(p) + off, val, len);
	return peer_send(p, HDR + f.frag_len);
}

/* -- acknowledgments -- */

/* The module sent nothing on this connection: any ack is forged. */
static bool ack_of_nothing(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_ACK, .flags = F_ACK_VALID,
				       .ack = 0 });
}

static bool ack_far_future(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_ACK, .flags = F_ACK_VALID,
				       .ack = 1ULL << 63 });
}

/* The module sends one message; its ack is fine, one more is not. */
static bool ack_one_ahead(struct peer *p)
{
	union rds_sa to = p->addr;
	long long deadline = now_ms() + ACT_MS;
	char buf[1000];

	sa_set_port(&to, HP_SPORT);
	pattern_fill(buf, sizeof(buf), 7);
	if (!ok(send_to(hp.victim, &to, buf, sizeof(buf), 0) == sizeof(buf),
		"the module sends us a message"))
		return false;
	while (!p->data && now_ms() < deadline)
		poll_cq(p, 10);
	if (!ok_diag(p->data == 1, "it arrives", "%u messages", p->data))
		return false;
	if (!send_hf(p, (struct hf){ .type = T_ACK, .flags = F_ACK_VALID,
				     .ack = p->last_seq }))
		return false;
	/* the valid ack changes nothing we can see: no reset */
	poll_cq(p, QUIET_MS);
	ok_diag(!p->down, "the ack of what it sent is taken", "%s", p->how);
	return send_hf(p, (struct hf){ .type = T_ACK, .flags = F_ACK_VALID,
				       .ack = p->last_seq + 1 });
}

static bool ack_without_flag(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_ACK, .ack = 5 });
}

/* -- sequence numbers -- */

static bool seq_max(struct peer *p)
{
	return send_hf(p, data_hf(UINT64_MAX, 100));
}

static bool seq_changes_mid_message(struct peer *p)
{
	return frag_then(p, 5, 2 * FRAG,
			 (struct hf){ .type = T_DATA, .flags = F_LAST,
				      .seq = 6, .len = 2 * FRAG,
				      .frag_off = FRAG, .frag_len = FRAG,
				      .dport = hp.victim_port });
}

static bool seq_in_ack(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_ACK, .seq = 3 });
}

/* -- fragments -- */

/* frag_len says 100, 50 bytes come. */
static bool frag_len_short(struct peer *p)
{
	struct hf f = data_hf(1, 100);

	hdr_put(send_area(p), &f);
	return peer_send(p, HDR + 50);
}

/* frag_len says 100, 200 bytes come. */
static bool frag_len_long(struct peer *p)
{
	struct hf f = data_hf(1, 100);

	hdr_put(send_area(p), &f);
	return peer_send(p, HDR + 200);
}

static bool frag_off_beyond_len(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_DATA, .flags = F_LAST,
				       .seq = 1, .len = 100, .frag_off = 200,
				       .dport = hp.victim_port });
}

/* The last fragment of a message that never started. */
static bool frag_first_not_at_zero(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_DATA, .flags = F_LAST,
				       .seq = 1, .len = 2 * FRAG,
				       .frag_off = FRAG, .frag_len = FRAG,
				       .dport = hp.victim_port });
}

/* A first fragment shorter than a receive buffer, more to come. */
static bool frag_short_middle(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_DATA, .seq = 1,
				       .len = 2 * FRAG, .frag_len = 1000,
				       .dport = hp.victim_port });
}

/* Fragments 0 and 2 of three. */
static bool frag_skips_one(struct peer *p)
{
	return frag_then(p, 1, 3 * FRAG,
			 (struct hf){ .type = T_DATA, .flags = F_LAST,
				      .seq = 1, .len = 3 * FRAG,
				      .frag_off = 2 * FRAG, .frag_len = FRAG,
				      .dport = hp.victim_port });
}

/* The second fragment says the message is longer. */
static bool frag_len_changes(struct peer *p)
{
	return frag_then(p, 1, 2 * FRAG,
			 (struct hf){ .type = T_DATA, .seq = 1,
				      .len = 3 * FRAG, .frag_off = FRAG,
				      .frag_len = FRAG,
				      .dport = hp.victim_port });
}

/* A whole message without RDSD_WIRE_F_LAST_FRAG. */
static bool frag_last_flag_missing(struct peer *p)
{
	struct hf f = data_hf(1, 100);

	f.flags = 0;
	return send_hf(p, f);
}

/* -- lengths -- */

/* Over the 64 MiB any message may have (RDSD_MSG_SIZE_LIMIT). */
static bool len_over_max(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_DATA, .seq = 1,
				       .len = MSG_LIMIT + 1, .frag_len = FRAG,
				       .dport = hp.victim_port });
}

static bool len_u32_max(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_DATA, .flags = F_LAST,
				       .seq = 1, .len = UINT32_MAX,
				       .frag_off = UINT32_MAX - 100,
				       .frag_len = 100,
				       .dport = hp.victim_port });
}

/* frag_len of 4 GiB - 1 on a 100-byte SEND. */
static bool frag_len_u32_max(struct peer *p)
{
	struct hf f = data_hf(1, 100);

	f.frag_len = UINT32_MAX;
	hdr_put(send_area(p), &f);
	return peer_send(p, HDR + 100);
}

/* A SEND one header longer than a receive buffer holds. */
static bool send_over_buffer(struct peer *p)
{
	struct hf f = data_hf(1, FRAG);

	hdr_put(send_area(p), &f);
	return peer_send(p, SLOT + HDR);
}

/* The first fragment of a largest message, then garbage. */
static bool largest_message_abandoned(struct peer *p)
{
	static const unsigned char zero[HDR];

	if (!send_hf(p, (struct hf){ .type = T_DATA, .seq = 1,
				     .len = MAX_MSG, .frag_len = FRAG,
				     .dport = hp.victim_port }))
		return false;
	return send_raw(p, zero, sizeof(zero));
}

/*
 * The first fragment of an 8 MiB message for a socket that raised its
 * limit, then garbage: the receiver reserved room and took pages for it,
 * and the reset gives both back (KASAN and kmemleak watch the debug
 * kernel's run).
 */
static bool large_message_abandoned(struct peer *p)
{
	static const unsigned char zero[HDR];

	if (!send_hf(p, (struct hf){ .type = T_DATA, .seq = 1,
				     .len = 8 << 20, .frag_len = FRAG,
				     .dport = hp.victim_port }))
		return false;
	return send_raw(p, zero, sizeof(zero));
}

/* -- several messages in one SEND -- */

/*
 * A valid 10-byte message with RDSD_WIRE_F_MORE, then header @g, in a
 * SEND of @len bytes (the caller wrote what follows @g).  The valid
 * message is taken before the bad one is met; it goes to a port nobody
 * binds (the discard port).
 */
static bool send_packed(struct peer *p, const struct hf *g, uint32_t len)
{
	struct hf f = data_hf(1, 10);

	f.flags |= F_MORE;
	f.dport = 9;
	hdr_put(send_area(p), &f);
	hdr_put(send_area(p) + HDR + 10, g);
	return peer_send(p, len);
}

/* The second header claims more payload than the SEND has. */
static bool packed_len_lies(struct peer *p)
{
	struct hf g = data_hf(2, 5000);

	return send_packed(p, &g, 2 * HDR + 10 + 20);
}

/* RDSD_WIRE_F_MORE, and half a header follows. */
static bool packed_header_cut(struct peer *p)
{
	struct hf g = data_hf(2, 0);

	return send_packed(p, &g, HDR + 10 + HDR / 2);
}

/* A congestion map packed behind a message. */
static bool packed_cong(struct peer *p)
{
	struct hf g = { .type = T_CONG, .seq = 2, .len = CONG_BYTES,
			.frag_len = CONG_BYTES };

	memset(send_area(p) + 2 * HDR + 10, 0xff, CONG_BYTES);
	return send_packed(p, &g, 2 * HDR + 10 + CONG_BYTES);
}

static bool cong_wrong_len(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_CONG, .seq = 1, .len = 100,
				       .frag_len = 100 });
}

/* -- garbage -- */

static bool empty_send(struct peer *p)
{
	return peer_send(p, 0);
}

static bool short_send(struct peer *p)
{
	return send_raw(p, "RDSD garbage", 12);
}

static bool zero_header(struct peer *p)
{
	static const unsigned char zero[HDR + 100];

	return send_raw(p, zero, sizeof(zero));
}

static bool random_bytes(struct peer *p)
{
	pattern_fill(send_area(p), HDR + 1000, 0x5eed);
	return peer_send(p, HDR + 1000);
}

static bool bad_version(struct peer *p)
{
	uint8_t v = WIRE_VERSION + 1;

	return send_patched(p, data_hf(1, 10),
			    offsetof(struct wire_hdr, version), &v, 1);
}

static bool unknown_type(struct peer *p)
{
	uint8_t t = 9;

	return send_patched(p, data_hf(1, 10),
			    offsetof(struct wire_hdr, type), &t, 1);
}

/* The TCP transport's operation frames have no place over IB. */
static bool tcp_rdma_req(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_RDMA_REQ, .len = 64,
				       .frag_len = 64,
				       .dport = hp.victim_port });
}

static bool tcp_rdma_resp(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_RDMA_RESP, .len = 32,
				       .frag_len = 32, .no_sport = true });
}

static bool unknown_flag(struct peer *p)
{
	struct hf f = data_hf(1, 10);

	f.flags |= 0x8000;
	return send_hf(p, f);
}

static bool reserved_set(struct peer *p)
{
	uint8_t one = 1;

	return send_patched(p, data_hf(1, 10),
			    offsetof(struct wire_hdr, reserved) + 3, &one, 1);
}

static bool ack_with_payload(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_ACK, .len = 10,
				       .frag_len = 10 });
}

/*
 * A message with a forged ack: the ack resets the connection.  Whether
 * the message itself was delivered first is reported.
 */
static bool data_with_future_ack(struct peer *p)
{
	struct hf f = data_hf(1, 10);

	f.flags |= F_ACK_VALID;
	f.ack = 1ULL << 40;
	return send_hf(p, f);
}

/* ------------------------------------------------------------------ */
/* refusals of the connection request                                  */
/* ------------------------------------------------------------------ */

/* rdsd_ib_cm_data.reason of a REJ */
#define REJ_VERSION	1
#define REJ_LIMITS	2

/*
 * A request whose private data @mangle spoiled is refused with @reason,
 * counted once in recv_proto_error, and leaves no connection behind.
 */
static void expect_refusal(void (*mangle)(struct cm_data *d, uint8_t *len),
			   uint8_t reason)
{
	uint64_t e0 = 0, e1 = 0;
	struct cm_data req, rej;
	uint8_t len = sizeof(req);
	struct peer p;

	ok(counter("recv_proto_error", &e0), "read recv_proto_error");
	cm_req_valid(&req);
	mangle(&req, &len);
	if (ok_diag(peer_connect(&p, &req, len, RDMA_CM_EVENT_REJECTED, &rej),
		    "the request is refused", "see above"))
		ok_diag(be32toh(rej.magic) == WIRE_MAGIC && rej.reason == reason,
			"... saying why", "magic %08x reason %u, expected %u",
			be32toh(rej.magic), rej.reason, reason);
	ok(counter("recv_proto_error", &e1), "read recv_proto_error");
	is_eq(e1 - e0, 1, "recv_proto_error counts it once");
	is_eq(conn_flags(&p), -1, "no connection is made");
	peer_close(&p);
	ok(legit_exchange(), "the other sockets' messages all arrive");
}

static void cm_version_mangle(struct cm_data *d, uint8_t *len)
{
	(void)len;
	d->version = CM_VERSION + 1;
}

static void cm_magic_mangle(struct cm_data *d, uint8_t *len)
{
	(void)len;
	d->magic = 0;
}

static void cm_short_mangle(struct cm_data *d, uint8_t *len)
{
	(void)d;
	*len = offsetof(struct cm_data, incarnation);
}

static void cm_flags_mangle(struct cm_data *d, uint8_t *len)
{
	(void)len;
	d->flags = htobe16(1);
}

static void cm_no_incarnation_mangle(struct cm_data *d, uint8_t *len)
{
	(void)len;
	d->incarnation = 0;
}

/* A ring that never holds a largest message and an ack. */
static void cm_few_credits_mangle(struct cm_data *d, uint8_t *len)
{
	(void)len;
	d->credits = htobe32(OFFER - 1);
	d->recv_max = htobe32(OFFER - 1);
}

/* Two credits: fewer than the least ring. */
static void cm_two_credits_mangle(struct cm_data *d, uint8_t *len)
{
	(void)len;
	d->credits = htobe32(2);
}

static void cm_small_frags_mangle(struct cm_data *d, uint8_t *len)
{
	(void)len;
	d->frag_size = htobe32(FRAG / 4);
}

static void cm_reserved_mangle(struct cm_data *d, uint8_t *len)
{
	(void)len;
	d->reserved[4] = 1;
}

/* A path beyond the eight a pair of addresses may have. */
static void cm_path_beyond_mangle(struct cm_data *d, uint8_t *len)
{
	(void)len;
	d->path = 8;
}

static void cm_no_paths_mangle(struct cm_data *d, uint8_t *len)
{
	(void)len;
	d->paths = 0;
}

static void cm_many_paths_mangle(struct cm_data *d, uint8_t *len)
{
	(void)len;
	d->paths = 9;
}

#define REFUSAL_CASE(name) { #name, refuse_##name }
#define DEFINE_REFUSAL(name, reason) \
	static void refuse_##name(void) \
	{ expect_refusal(name##_mangle, reason); }

DEFINE_REFUSAL(cm_version, REJ_VERSION)
DEFINE_REFUSAL(cm_magic, REJ_VERSION)
DEFINE_REFUSAL(cm_short, REJ_VERSION)
DEFINE_REFUSAL(cm_flags, REJ_VERSION)
DEFINE_REFUSAL(cm_no_incarnation, REJ_VERSION)
DEFINE_REFUSAL(cm_few_credits, REJ_LIMITS)
DEFINE_REFUSAL(cm_two_credits, REJ_LIMITS)
DEFINE_REFUSAL(cm_small_frags, REJ_LIMITS)
DEFINE_REFUSAL(cm_reserved, REJ_VERSION)
DEFINE_REFUSAL(cm_path_beyond, REJ_LIMITS)
DEFINE_REFUSAL(cm_no_paths, REJ_LIMITS)
DEFINE_REFUSAL(cm_many_paths, REJ_LIMITS)

/* ------------------------------------------------------------------ */
/* refusals: the connection goes on                                    */
/* ------------------------------------------------------------------ */

/*
 * Messages numbered below what was delivered are dropped and counted
 * (recv_drop_old_seq), never delivered twice; numbers may jump ahead (a
 * message that carried only an operation leaves a gap), and then what
 * is behind the jump is old.
 */
static void seq_old_dropped(void)
{
	uint64_t d0 = 0, d1 = 0, e0 = 0, e1 = 0;
	char buf[256];
	struct peer p;
	ssize_t n, got;
	int i;
	static const struct { uint64_t seq; bool delivered; } steps[] = {
		{ 0, false },		/* the opening message again */
		{ 1000, true },		/* a jump ahead */
		{ 500, false },		/* behind it */
		{ 1000, false },	/* the jump again */
		{ 1001, true },
	};

	if (peer_open(&p)) {
		ok(counter("recv_drop_old_seq", &d0) &&
		   counter("recv_proto_error", &e0), "read the counters");
		for (i = 0; i < (int)(sizeof(steps) / sizeof(steps[0])); i++) {
			if (!ok(send_hf(&p, data_hf(steps[i].seq, 100)),
				"message %" PRIu64 " goes", steps[i].seq))
				break;
			if (steps[i].delivered) {
				n = recv_wait(hp.victim, buf, sizeof(buf), NULL,
					      NULL, 0, ARRIVE_MS);
				ok_diag(n == 100 &&
					pattern_check(buf, 100,
						      (uint32_t)steps[i].seq) < 0,
					"message %" PRIu64 " is delivered",
					"recv: %zd", n);
			} else {
				ok_diag(stays_quiet(hp.victim, QUIET_MS, &got),
					"message %" PRIu64 " is dropped",
					"recv: %zd", got);
			}
		}
		ok(counter("recv_drop_old_seq", &d1) &&
		   counter("recv_proto_error", &e1), "read the counters");
		is_eq(d1 - d0, 3, "recv_drop_old_seq counts the 3 old ones");
		is_eq(e1 - e0, 0, "no protocol error");
		poll_cq(&p, 0);
		ok_diag(!p.down, "the connection stays up", "%s", p.how);
	}
	peer_close(&p);
	ok(legit_exchange(), "the other sockets' messages all arrive");
}

/* A case whose connection goes on: no violation counted since @e0. */
static void goes_on(struct peer *p, uint64_t e0)
{
	uint64_t e1 = 0;

	ok(counter("recv_proto_error", &e1), "read recv_proto_error");
	is_eq(e1 - e0, 0, "no protocol error");
	poll_cq(p, 0);
	ok_diag(!p->down, "the connection stays up", "%s", p->how);
}

/*
 * Requests for more receive buffers beyond the largest ring are ignored:
 * the ring stays at its largest, the connection goes on.
 */
static void more_bufs_flood(void)
{
	const struct hf more = { .type = T_ACK, .flags = F_MORE_BUFS };
	uint64_t e0 = 0;
	unsigned int i;
	struct peer p;
	char buf[64];

	if (peer_open(&p)) {
		ok(counter("recv_proto_error", &e0), "read recv_proto_error");
		for (i = 0; i < 64; i++)
			if (!peer_frame(&p, &more))
				break;
		ok_diag(i == 64, "64 requests for more buffers go",
			"%u went, status %d", i, p.send_status);
		/* what answers them, if anything, says the ring's size */
		is_eq(send_hf(&p, data_hf(p.next_seq++, 16)), 1,
		      "a message follows them");
		is_eq(recv_wait(hp.victim, buf, sizeof(buf), NULL, NULL, 0,
				ARRIVE_MS), 16, "and is delivered");
		poll_cq(&p, 500);
		is_eq(p.bufs, RING_MAX, "the ring stays at its largest");
		goes_on(&p, e0);
	}
	peer_close(&p);
	ok(legit_exchange(), "the other sockets' messages all arrive");
}

/*
 * Credits beyond what we offered are clamped away: after a flood of
 * credit returns the module sends no more SENDs than the receives we
 * offered (we posted more, so an overrun would be seen), and once we
 * return credits for real every message arrives.
 */
static void credit_flood(void)
{
	union rds_sa to;
	uint64_t e0 = 0;
	unsigned int frames, frames0, i, sent = 0, last;
	char buf[1000];
	struct peer p;
	long long deadline;
	const unsigned int msgs = 2 * OFFER;

	if (peer_open(&p)) {
		ok(counter("recv_proto_error", &e0), "read recv_proto_error");
		poll_cq(&p, 500);
		frames0 = p.frames;
		for (i = 0; i < 32; i++)
			if (!send_hf(&p, (struct hf){ .type = T_ACK,
						      .credits = 0xffff }))
				break;
		ok_diag(i == 32, "32 acks returning 65535 credits each go",
			"%u went, status %d", i, p.send_status);
		/* larger than a pack: one SEND each */
		to = p.addr;
		sa_set_port(&to, HP_SPORT);
		for (i = 0; i < msgs; i++) {
			pattern_fill(buf, sizeof(buf), i);
			if (send_to(hp.victim, &to, buf, sizeof(buf),
				    MSG_DONTWAIT) == sizeof(buf))
				sent++;
		}
		ok_diag(sent > OFFER, "the module takes more messages for us than we offered credits",
			"%u of %u taken", sent, msgs);
		/* until nothing more comes */
		do {
			last = p.frames;
			poll_cq(&p, 1000);
		} while (p.frames != last);
		frames = p.frames - frames0;
		ok_diag(frames <= OFFER,
			"after them the module sends no more SENDs than the credits offered",
			"%u SENDs, %d credits offered", frames, OFFER);
		tap_diag("%u SENDs, %u messages before credits came back",
			 frames, p.data);
		/* now return them, and ack what came */
		deadline = now_ms() + 4 * ACT_MS;
		while (p.data < sent && !p.down && now_ms() < deadline) {
			struct hf f = { .type = T_ACK, .credits = OFFER };

			if (p.data) {
				f.flags = F_ACK_VALID;
				f.ack = p.last_seq;
			}
			if (!send_hf(&p, f))
				break;
			poll_cq(&p, 200);
		}
		is_eq(p.data, sent, "every message arrives once credits return");
		goes_on(&p, e0);
	}
	peer_close(&p);
	ok(legit_exchange(), "the other sockets' messages all arrive");
}

/*
 * Ask the module which device key @cookie of the victim's stands for and
 * wait for the answer (in p->ans_*).  Returns false if none came.
 */
static bool mr_ask(struct peer *p, uint64_t cookie)
{
	const struct hf f = { .type = T_MR_REQ, .cookie = cookie,
			      .dport = hp.victim_port };
	unsigned int before = p->answers;
	long long deadline = now_ms() + ACT_MS;

	if (!send_hf(p, f))
		return false;
	while (p->answers == before && !p->down && now_ms() < deadline)
		poll_cq(p, 10);
	return p->answers == before + 1 && p->ans_cookie == cookie;
}

/*
 * A peer host gets a region's device key only with the region's whole
 * cookie, and only if the region lets it: guessed cookies, a cookie one
 * bit off, and a RDS_GET_MR_FOR_DEST region naming another host are
 * refused (rdma_refused counts each), a plain region's cookie is granted
 * with its length, and the connection stays up through all of it.
 */
static void mr_requests(void)
{
	char *buf = aligned_alloc(4096, 8192);
	struct rds_get_mr_for_dest_args g;
	union rds_sa legit = cfg_sa(false, 0);	/* the legit host, not us */
	uint64_t r0 = 0, r1 = 0, e0 = 0, e1 = 0, c = 0, cd = 0, x;
	unsigned int i, refused = 0, answered = 0;
	struct peer p;

	if (!buf || !is_ok(get_mr(hp.victim, buf, 3000, 0, &c),
			   "the victim registers a region"))
		goto out;
	memset(&g, 0, sizeof(g));
	memcpy(&g.dest_addr, &legit, sa_len(&legit));
	g.vec.addr = (uintptr_t)buf + 4096;
	g.vec.bytes = 100;
	g.cookie_addr = (uintptr_t)&cd;
	if (!is_ok(setsockopt(hp.victim, SOL_RDS, RDS_GET_MR_FOR_DEST, &g,
			      sizeof(g)),
		   "and one for another host (RDS_GET_MR_FOR_DEST)"))
		goto out;
	if (peer_open(&p)) {
		ok(counter("rdma_refused", &r0) &&
		   counter("recv_proto_error", &e0), "read the counters");
		x = c;
		for (i = 0; i < 32; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			if (!x || x == c || x == cd)
				continue;
			answered += mr_ask(&p, x);
			refused += p.ans_key == 0;
		}
		is_eq(answered, 32, "32 guessed cookies are answered");
		is_eq(refused, 32, "each with a refusal");
		ok_diag(mr_ask(&p, c ^ 1) && !p.ans_key,
			"the region's cookie one bit off is refused",
			"answer key %u", p.ans_key);
		ok_diag(mr_ask(&p, cd) && !p.ans_key,
			"the region for another host is refused", "key %u",
			p.ans_key);
		ok_diag(mr_ask(&p, c) && p.ans_key && p.ans_len == 3000,
			"the region's cookie is granted with its length",
			"key %u length %u", p.ans_key, p.ans_len);
		ok(counter("rdma_refused", &r1) &&
		   counter("recv_proto_error", &e1), "read the counters");
		is_eq(r1 - r0, 34, "rdma_refused counts the 34 refusals");
		is_eq(e1 - e0, 0, "no protocol error");
		poll_cq(&p, 0);
		ok_diag(!p.down, "the connection stays up", "%s", p.how);
	}
	peer_close(&p);
	ok(legit_exchange(), "the other sockets' messages all arrive");
out:
	if (c)
		free_mr(hp.victim, c, 0);
	if (cd)
		free_mr(hp.victim, cd, 0);
	free(buf);
}

/* An answer to a question never asked. */
static bool answer_unasked(struct peer *p)
{
	return send_hf(p, (struct hf){ .type = T_MR_ANS, .cookie = 0x1234567,
				       .dport = hp.victim_port,
				       .no_sport = true });
}

/* ------------------------------------------------------------------ */

/* large_message_abandoned, to a victim whose limit holds the message */
static void large_raised_abandoned(void)
{
	int v = 64 << 20, def = 1 << 20;

	ok(setsockopt(hp.victim, SOL_SOCKET, SO_RCVBUFFORCE, &v,
		      sizeof(v)) == 0 &&
	   setsockopt(hp.victim, SOL_RDS, RDS_DOCA_MSG_MAX, &v,
		      sizeof(v)) == 0,
	   "the victim takes messages of up to 64 MiB");
	expect_reset(large_message_abandoned, QUIET | COUNTED);
	ok(setsockopt(hp.victim, SOL_RDS, RDS_DOCA_MSG_MAX, &def,
		      sizeof(def)) == 0, "and back to 1 MiB");
}

/*
 * A message over the max_msg the peer announced (ours says 1 MiB) never
 * reaches it: the module drops it, the next message goes, and the
 * connection stays up.  Sent in pieces, it would have stopped at our
 * credits and held the next one behind it.
 */
static void sent_over_peer_max(void)
{
	int limit = 4 << 20, sndbuf = 16 << 20, def = 1 << 20;
	union rds_sa to;
	unsigned char *tx = calloc(1, 2 << 20);
	unsigned int data0;
	long long deadline;
	struct peer p;

	if (peer_open(&p) && ok(tx != NULL, "a 2 MiB buffer") &&
	    ok(setsockopt(hp.victim, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf,
			  sizeof(sndbuf)) == 0 &&
	       setsockopt(hp.victim, SOL_RDS, RDS_DOCA_MSG_MAX, &limit,
			  sizeof(limit)) == 0,
	       "the victim sends messages of up to 4 MiB")) {
		to = p.addr;
		sa_set_port(&to, HP_SPORT);
		poll_cq(&p, 0);
		data0 = p.data;
		is_eq(send_to(hp.victim, &to, tx, 2 << 20, 0), 2 << 20,
		      "2 MiB to a peer that takes 1 MiB: sendmsg takes it");
		is_eq(send_to(hp.victim, &to, tx, 100, 0), 100,
		      "then 100 bytes");
		deadline = now_ms() + ACT_MS;
		while (p.data == data0 && !p.down && now_ms() < deadline)
			poll_cq(&p, 100);
		poll_cq(&p, QUIET_MS);
		is_eq(p.data - data0, 1,
		      "one whole message reaches the peer: the 100 bytes");
		poll_cq(&p, 0);
		ok_diag(!p.down, "the connection stays up", "%s", p.how);
		ok(setsockopt(hp.victim, SOL_RDS, RDS_DOCA_MSG_MAX, &def,
			      sizeof(def)) == 0, "the victim back to 1 MiB");
	}
	free(tx);
	peer_close(&p);
	ok(legit_exchange(), "the other sockets' messages all arrive");
}

#define RESET_CASE(fn) { #fn, reset_##fn }
#define DEFINE_RESET(fn) \
	static void reset_##fn(void) { expect_reset(fn, QUIET | COUNTED); }

DEFINE_RESET(ack_of_nothing)
DEFINE_RESET(answer_unasked)
DEFINE_RESET(ack_far_future)
DEFINE_RESET(ack_one_ahead)
DEFINE_RESET(ack_without_flag)
/* the message the ack came with is taken first: reported */
static void reset_data_with_future_ack(void)
{
	expect_reset(data_with_future_ack, COUNTED);
}
DEFINE_RESET(seq_max)
DEFINE_RESET(seq_changes_mid_message)
DEFINE_RESET(seq_in_ack)
DEFINE_RESET(frag_len_short)
DEFINE_RESET(frag_len_long)
DEFINE_RESET(frag_off_beyond_len)
DEFINE_RESET(frag_first_not_at_zero)
DEFINE_RESET(frag_short_middle)
DEFINE_RESET(frag_skips_one)
DEFINE_RESET(frag_len_changes)
DEFINE_RESET(frag_last_flag_missing)
DEFINE_RESET(len_over_max)
DEFINE_RESET(len_u32_max)
DEFINE_RESET(frag_len_u32_max)
/* the receive fails on the module's queue pair, not by a flush */
DEFINE_RESET(send_over_buffer)
DEFINE_RESET(largest_message_abandoned)
DEFINE_RESET(packed_len_lies)
DEFINE_RESET(packed_header_cut)
DEFINE_RESET(packed_cong)
DEFINE_RESET(cong_wrong_len)
DEFINE_RESET(empty_send)
DEFINE_RESET(short_send)
DEFINE_RESET(zero_header)
DEFINE_RESET(random_bytes)
DEFINE_RESET(bad_version)
DEFINE_RESET(unknown_type)
DEFINE_RESET(unknown_flag)
DEFINE_RESET(tcp_rdma_req)
DEFINE_RESET(tcp_rdma_resp)
DEFINE_RESET(reserved_set)
DEFINE_RESET(ack_with_payload)

/* Set up the sockets and addresses; checks the legit pair first. */
static void setup(void)
{
	unsigned int h;
	FILE *ip;
	int fail = 0, param = -1;

	if (!read_sysfs_int(IB_PORT_PARAM, &param) && param > 0)
		hp.ib_port = (uint16_t)param;
	ok_diag(hp.ib_port, "the module's rdma_cm port", "%s", IB_PORT_PARAM);
	hp.legit_a = bound_socket_cfg(false, 0, "bind the legit socket");
	hp.legit_b = bound_socket_cfg(true, 0, "bind the legit peer");
	hp.victim = bound_socket_cfg(true, 0, "bind the victim socket");
	hp.victim_port = hp.victim >= 0 ? bound_port(hp.victim) : 0;
	/* one address per case that connects, and room for more: one ip */
	ip = popen("ip -batch -", "w");
	fail = !ip;
	for (h = hp.next_host; ip && h < hp.next_host + HOSTILE_ADDRS; h++) {
		union rds_sa a = hostile_sa(h);
		char s[INET6_ADDRSTRLEN];

		if (cfg.v6)
			fail |= fprintf(ip, "addr replace %s/128 dev %s nodad\n",
					inet_ntop(AF_INET6, &a.sin6.sin6_addr,
						  s, sizeof(s)),
					hp.netdev) < 0;
		else
			fail |= fprintf(ip, "addr replace %s/32 dev %s\n",
					inet_ntop(AF_INET, &a.sin.sin_addr,
						  s, sizeof(s)),
					hp.netdev) < 0;
	}
	if (ip)
		fail |= pclose(ip) != 0;
	ok(!fail, "add the hostile addresses to %s", hp.netdev);
	ok(legit_exchange(), "the legit sockets talk");
	hp.connects = legit_connects();
	ok_diag(hp.connects > 0, "read the legit connections' connects",
		"%s -j conn show", hp.rdsctl);
}

/* The legit connections were never reset. */
static void legit_untouched(void)
{
	int c = legit_connects();

	is_eq(c, hp.connects, "the legit connections were never reset");
}

static const struct selftest tests[] = {
	{ "setup", setup },
	REFUSAL_CASE(cm_version),
	REFUSAL_CASE(cm_magic),
	REFUSAL_CASE(cm_short),
	REFUSAL_CASE(cm_flags),
	REFUSAL_CASE(cm_no_incarnation),
	REFUSAL_CASE(cm_few_credits),
	REFUSAL_CASE(cm_two_credits),
	REFUSAL_CASE(cm_small_frags),
	REFUSAL_CASE(cm_reserved),
	REFUSAL_CASE(cm_path_beyond),
	REFUSAL_CASE(cm_no_paths),
	REFUSAL_CASE(cm_many_paths),
	RESET_CASE(ack_of_nothing),
	RESET_CASE(ack_far_future),
	RESET_CASE(ack_one_ahead),
	RESET_CASE(ack_without_flag),
	RESET_CASE(data_with_future_ack),
	RESET_CASE(seq_max),
	RESET_CASE(seq_changes_mid_message),
	RESET_CASE(seq_in_ack),
	{ "seq_old_dropped", seq_old_dropped },
	RESET_CASE(frag_len_short),
	RESET_CASE(frag_len_long),
	RESET_CASE(frag_off_beyond_len),
	RESET_CASE(frag_first_not_at_zero),
	RESET_CASE(frag_short_middle),
	RESET_CASE(frag_skips_one),
	RESET_CASE(frag_len_changes),
	RESET_CASE(frag_last_flag_missing),
	RESET_CASE(len_over_max),
	{ "large_raised_abandoned", large_raised_abandoned },
	{ "sent_over_peer_max", sent_over_peer_max },
	RESET_CASE(len_u32_max),
	RESET_CASE(frag_len_u32_max),
	RESET_CASE(send_over_buffer),
	RESET_CASE(largest_message_abandoned),
	RESET_CASE(packed_len_lies),
	RESET_CASE(packed_header_cut),
	RESET_CASE(packed_cong),
	RESET_CASE(cong_wrong_len),
	{ "credit_flood", credit_flood },
	{ "more_bufs_flood", more_bufs_flood },
	RESET_CASE(empty_send),
	RESET_CASE(short_send),
	RESET_CASE(zero_header),
	RESET_CASE(random_bytes),
	RESET_CASE(bad_version),
	RESET_CASE(unknown_type),
	RESET_CASE(unknown_flag),
	RESET_CASE(tcp_rdma_req),
	RESET_CASE(tcp_rdma_resp),
	RESET_CASE(reserved_set),
	RESET_CASE(ack_with_payload),
	{ "mr_requests", mr_requests },
	RESET_CASE(answer_unasked),
	{ "legit_untouched", legit_untouched },
};

/* setup and the final check run whatever --filter says */
static bool pick(const struct selftest *t)
{
	return !strcmp(t->name, "setup") ||
	       !strcmp(t->name, "legit_untouched") || selftest_by_filter(t);
}

enum { OPT_NETDEV = 0x100, OPT_RDSCTL, OPT_HOSTILE };

static int extra(int opt, const char *arg)
{
	struct in_addr a;

	switch (opt) {
	case OPT_NETDEV:
		hp.netdev = arg;
		return 0;
	case OPT_RDSCTL:
		hp.rdsctl = arg;
		return 0;
	case OPT_HOSTILE:
		if (inet_pton(AF_INET, arg, &a) != 1 ||
		    (ntohl(a.s_addr) & 0xffffff00) != 0xc0000200 ||
		    (ntohl(a.s_addr) & 0xff) > 255 - HOSTILE_ADDRS)
			return -1;
		hp.next_host = ntohl(a.s_addr) & 0xff;
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netdev", required_argument, NULL, OPT_NETDEV },
		{ "rdsctl", required_argument, NULL, OPT_RDSCTL },
		{ "hostile", required_argument, NULL, OPT_HOSTILE },
		{ NULL, 0, NULL, 0 },
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	hp.netdev = "d0";
	hp.rdsctl = "rdsctl";
	hp.next_host = 10;
	if (parse_common(argc, argv, opts, extra,
			 "\n          [--netdev DEV] [--rdsctl PATH] [--hostile 192.0.2.N]"))
		return 2;
	if (!cfg.list && (!cfg.impl_doca || cfg_loopback() ||
			  cfg_same_addr())) {
		fprintf(stderr, "%s: needs rds_doca and two addresses of an RDMA device (--addr, --peer, or --ipv6 with --addr6, --peer6)\n",
			argv[0]);
		return 2;
	}
	return run_selftests("rds_hostile_peer", tests, pick);
}
