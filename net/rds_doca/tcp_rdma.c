// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca TCP transport: RDMA and atomic operations, in software.
 *
 * An operation riding on a message travels as an RDMA_REQ frame just
 * before the message's DATA frame (alone for an RDS_RDMA_SILENT operation
 * with nothing to deliver): a descriptor (the cookie, the remote address,
 * the length, the kind, an atomic's operands) and a write's data.  The
 * region's owner runs it when the frame arrives, in stream order, with
 * the checks of every software path (rdsd_mr_find(), rdsd_mr_check():
 * the whole cookie, the owner's address and port, the peer a region is
 * for, its rights and range), and answers with an RDMA_RESP frame: the
 * status, an atomic's old value, a read's data.  The answer completes
 * the operation on the asking side.
 *
 * What the frames' order gives:
 * - the message after an operation is delivered once the operation ran
 *   (every operation is fenced, RDS_RDMA_FENCE or not);
 * - the message of a read or an atomic goes once the answer came, as
 *   over IB: when the peer has the message, the asker's buffers hold
 *   what the operation read; no message goes before it meanwhile;
 * - a write's data goes from the socket straight into the region's
 *   pages, a read's from the stream straight into the asker's buffers;
 * - a read's data is copied out of the region when the request is run,
 *   before anything behind it is delivered: the copy engine makes that
 *   copy (dma.c), from the receive work, where it may sleep;
 * - an operation runs once at most: its request goes on one socket
 *   only (RDSD_OP_POSTED), and when the socket goes before the answer
 *   came, it completes as RDS_RDMA_DROPPED, as over IB.  The message
 *   then goes again alone.
 *
 * Bounds: the asker keeps at most RDSD_TCP_OPS_MAX requests unanswered
 * per connection, reads of at most RDSD_TCP_READ_WINDOW bytes among them,
 * and ->xmit waits (-EAGAIN) for answers past that; the owner counts the
 * same from its side (a request counts until its answer starts to be
 * written) and resets a peer that asks more.  So the answers an owner holds are
 * bounded per connection, and the read data they hold is bounded per
 * namespace too (rdsd_net.tcp_staged, RDSD_TCP_STAGE_MAX): past that a
 * read is answered RDS_RDMA_OTHER_ERROR rather than waited for, so two
 * hosts reading from each other never wait on each other.
 *
 * Locking: tp->op_lock guards the ring of unanswered operations, the
 * counts and the list of answers, between the writer (tx_mutex) and the
 * reader (the socket's lock, softirq or the receive work).  The reader
 * alone moves op_oldest, the writer alone op_next.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/rds_doca.h>
#include <linux/scatterlist.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "tcp.h"
#include "dma.h"
#include "stats.h"
#include "trace.h"

static_assert(RDSD_OP_READ == RDSD_WIRE_OP_READ);
static_assert(RDSD_OP_WRITE == RDSD_WIRE_OP_WRITE);
static_assert(RDSD_OP_FADD == RDSD_WIRE_OP_FADD);
static_assert(RDSD_OP_CSWP == RDSD_WIRE_OP_CSWP);
static_assert(RDSD_OP_MASKED_FADD == RDSD_WIRE_OP_MASKED_FADD);
static_assert(RDSD_OP_MASKED_CSWP == RDSD_WIRE_OP_MASKED_CSWP);
static_assert(RDS_DOCA_MAX_RDMA_SIZE <= RDSD_TCP_READ_WINDOW);

/**
 * rdsd_tcp_rdma_init - a new connection has no operation in flight
 * @tp: the connection, being allocated.
 */
void rdsd_tcp_rdma_init(struct rdsd_tcp_conn *tp)
{
	spin_lock_init(&tp->op_lock);
	INIT_LIST_HEAD(&tp->resp_list);
	tp->op_next = 1;
	tp->op_oldest = 1;
	tp->rq_next = 1;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_tcp_rdma_init);

/* The asking side ------------------------------------------------------- */

static u32 rdsd_tcp_read_bytes(int kind, u32 bytes)
{
	return kind == RDSD_OP_READ ? bytes : 0;
}

/**
 * rdsd_tcp_op_room - may @op's request go now?
 * @tp: the connection; tx_mutex held.
 * @op: the operation.
 *
 * Returns 0, or -EAGAIN while the window is full: the answer that frees
 * it queues the send work, which kicks the core.
 */
int rdsd_tcp_op_room(struct rdsd_tcp_conn *tp, const struct rdsd_op *op)
{
	u32 read = rdsd_tcp_read_bytes(op->kind, op->bytes);
	int ret = 0;

	spin_lock_bh(&tp->op_lock);
	if (tp->op_next - tp->op_oldest >= RDSD_TCP_OPS_MAX ||
	    tp->op_read_bytes + read > RDSD_TCP_READ_WINDOW) {
		tp->op_wait = true;
		ret = -EAGAIN;
	}
	spin_unlock_bh(&tp->op_lock);
	return ret;
}

/**
 * rdsd_tcp_op_req - @op's request goes: describe it
 * @tp: the connection; tx_mutex held, rdsd_tcp_op_room() said yes.
 * @op: the operation, not posted before.
 * @req: its descriptor, filled in.
 * @after: its message waits for the answer (rdsd_tcp_op_answered()).
 *
 * The operation waits for its answer in the ring, with a reference.
 * Returns its id.
 */
u64 rdsd_tcp_op_req(struct rdsd_tcp_conn *tp, struct rdsd_op *op,
		    struct rdsd_wire_rdma_req *req, bool after)
{
	unsigned int i;
	u64 id;

	kref_get(&op->refs);	/* the ring's: put by the answer or the reset */
	set_bit(RDSD_OP_POSTED, &op->state);
	trace_rdsd_op_post(op, 0);
	spin_lock_bh(&tp->op_lock);
	id = tp->op_next++;
	tp->op_ring[id % RDSD_TCP_OPS_MAX] = op;
	tp->op_read_bytes += rdsd_tcp_read_bytes(op->kind, op->bytes);
	if (after)
		tp->op_after = id;
	spin_unlock_bh(&tp->op_lock);

	memset(req, 0, sizeof(*req));
	req->id = cpu_to_be64(id);
	req->cookie = cpu_to_be64(op->cookie);
	req->raddr = cpu_to_be64(op->raddr);
	req->bytes = cpu_to_be32(op->bytes);
	req->kind = op->kind;
	if (rdsd_op_is_atomic(op->kind))
		for (i = 0; i < ARRAY_SIZE(req->args); i++)
			req->args[i] = cpu_to_be64(op->args[i]);
	return id;
}

/**
 * rdsd_tcp_op_answered - did the operation a message waits for end?
 * @tp: the connection; tx_mutex held.
 *
 * True once its answer came, or its socket went (the message then goes
 * on the next one, its operation dropped).
 */
bool rdsd_tcp_op_answered(struct rdsd_tcp_conn *tp)
{
	bool done;

	spin_lock_bh(&tp->op_lock);
	done = !tp->op_after;
	spin_unlock_bh(&tp->op_lock);
	return done;
}

/* The oldest operation unanswered; the reader's, which alone removes it. */
static struct rdsd_op *rdsd_tcp_op_oldest(struct rdsd_tcp_conn *tp)
{
	return tp->op_ring[tp->op_oldest % RDSD_TCP_OPS_MAX];
}

/**
 * rdsd_tcp_rx_resp - an RDMA_RESP's descriptor arrived
 * @tp: the connection; the socket's lock held.
 *
 * It must answer the oldest request, with a status the owner may give
 * and exactly the data the operation reads.  Returns 0 or -EPROTO.
 */
int rdsd_tcp_rx_resp(struct rdsd_tcp_conn *tp)
{
	const struct rdsd_wire_rdma_resp *d = &tp->rx_raw.resp;
	u32 data = tp->rx_info.frag_len - sizeof(*d);
	struct rdsd_op *op = NULL;
	bool ok;

	if (memchr_inv(d->reserved, 0, sizeof(d->reserved)))
		return -EPROTO;
	spin_lock_bh(&tp->op_lock);
	if (tp->op_oldest != tp->op_next &&
	    be64_to_cpu(d->id) == tp->op_oldest)
		op = rdsd_tcp_op_oldest(tp);
	spin_unlock_bh(&tp->op_lock);
	if (!op)
		return -EPROTO;	/* nothing asked, or not that */

	switch (d->status) {
	case RDS_RDMA_SUCCESS:
		ok = data == rdsd_tcp_read_bytes(op->kind, op->bytes) &&
		     (!d->value || rdsd_op_is_atomic(op->kind));
		break;
	case RDS_RDMA_REMOTE_ERROR:
	case RDS_RDMA_OTHER_ERROR:
		ok = !data && !d->value;
		break;
	default:
		ok = false;
		break;
	}
	if (!ok)
		return -EPROTO;
	tp->rx_off = sizeof(*d);
	if (data)
		WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_RDATA);
	else
		rdsd_tcp_rx_resp_end(tp);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_tcp_rx_resp);

/**
 * rdsd_tcp_rx_rdata - bytes of a read's answer: into the asker's buffers
 * @tp: the connection; the socket's lock held.
 * @skb: where they are.
 * @off: at what offset.
 * @n: how many; tp->rx_off says where in the answer they start.
 */
int rdsd_tcp_rx_rdata(struct rdsd_tcp_conn *tp, const struct sk_buff *skb,
		      unsigned int off, u32 n)
{
	struct rdsd_op *op = rdsd_tcp_op_oldest(tp);

	return rdsd_tcp_copy_to_sg(op->sg, op->nents,
				   tp->rx_off - sizeof(tp->rx_raw.resp), skb,
				   off, n);
}

/**
 * rdsd_tcp_rx_resp_end - an answer is whole: its operation completes
 * @tp: the connection; the socket's lock held.
 */
void rdsd_tcp_rx_resp_end(struct rdsd_tcp_conn *tp)
{
	const struct rdsd_wire_rdma_resp *d = &tp->rx_raw.resp;
	struct rdsd_op *op;
	bool wake;

	spin_lock_bh(&tp->op_lock);
	op = rdsd_tcp_op_oldest(tp);
	tp->op_ring[tp->op_oldest % RDSD_TCP_OPS_MAX] = NULL;
	tp->op_oldest++;
	tp->op_read_bytes -= rdsd_tcp_read_bytes(op->kind, op->bytes);
	wake = tp->op_wait;
	tp->op_wait = false;
	/* the message that waited for this answer may go */
	if (tp->op_after == tp->op_oldest - 1) {
		tp->op_after = 0;
		wake = true;
	}
	spin_unlock_bh(&tp->op_lock);

	if (d->status == RDS_RDMA_SUCCESS && rdsd_op_is_atomic(op->kind))
		rdsd_op_result(op, be64_to_cpu(d->value));
	rdsd_op_complete(op, d->status);
	rdsd_op_put(op);	/* the ring's */
	if (wake)
		queue_work(rdsd_wq, &tp->tx_work);
	tp->rx_have = 0;	/* the descriptor is used up */
	WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_HDR);
}

/* The owning side -------------------------------------------------------- */

/* Count @bytes of read data staged in @rn, within RDSD_TCP_STAGE_MAX. */
static bool rdsd_tcp_stage_charge(struct rdsd_net *rn, u32 bytes)
{
	if (atomic_long_add_return(bytes, &rn->tcp_staged) <=
	    RDSD_TCP_STAGE_MAX)
		return true;
	atomic_long_sub(bytes, &rn->tcp_staged);
	return false;
}

/* Free @r's staged pages, and give their count back. */
static void rdsd_tcp_stage_free(struct rdsd_net *rn, struct rdsd_tcp_resp *r)
{
	unsigned int i;

	if (!r->sg)
		return;
	for (i = 0; i < r->nents; i++)
		__free_page(sg_page(&r->sg[i]));
	kvfree(r->sg);
	r->sg = NULL;
	atomic_long_sub(r->bytes, &rn->tcp_staged);
	r->bytes = 0;
}

/* @r's request no longer counts against the peer's window; op_lock held. */
static void rdsd_tcp_resp_uncount(struct rdsd_tcp_conn *tp,
				  struct rdsd_tcp_resp *r)
{
	lockdep_assert_held(&tp->op_lock);
	if (!r->counted)
		return;
	r->counted = false;
	tp->rq_out--;
	tp->rq_read_bytes -= r->asked;
}

/**
 * rdsd_tcp_resp_free - an answer is written, or its socket is gone
 * @tp: the connection.
 * @r: the answer, on no list; may be NULL.
 *
 * Any context.
 */
void rdsd_tcp_resp_free(struct rdsd_tcp_conn *tp, struct rdsd_tcp_resp *r)
{
	if (!r)
		return;
	spin_lock_bh(&tp->op_lock);
	rdsd_tcp_resp_uncount(tp, r);
	spin_unlock_bh(&tp->op_lock);
	rdsd_tcp_stage_free(tp->conn->rn, r);
	kfree(r);
}

/**
 * rdsd_tcp_resp_next - the next answer to write, off the list
 * @tp: the connection; tx_mutex held.
 *
 * Its request stops counting against the peer now, before a byte of the
 * answer is written: a peer on this host may read the answer, and send
 * its next request, before the write returns.
 */
struct rdsd_tcp_resp *rdsd_tcp_resp_next(struct rdsd_tcp_conn *tp)
{
	struct rdsd_tcp_resp *r;

	/* every send looks: the lock only when there is one (rx queues tx) */
	if (list_empty_careful(&tp->resp_list))
		return NULL;
	spin_lock_bh(&tp->op_lock);
	r = list_first_entry_or_null(&tp->resp_list, struct rdsd_tcp_resp,
				     item);
	if (r) {
		list_del(&r->item);
		rdsd_tcp_resp_uncount(tp, r);
	}
	spin_unlock_bh(&tp->op_lock);
	return r;
}

/*
 * Check a request's descriptor against the frame and the window, and
 * count it.  Returns 0, -ENOMEM, or -EPROTO for a peer that broke the
 * rules.
 */
static int rdsd_tcp_req_begin(struct rdsd_tcp_conn *tp, gfp_t gfp)
{
	const struct rdsd_wire_rdma_req *req = &tp->rx_raw.req;
	u32 data = tp->rx_info.frag_len - sizeof(*req);
	u32 bytes = be32_to_cpu(req->bytes);
	struct rdsd_tcp_resp *r;
	unsigned int i;
	bool over;
	u32 read;

	if (be64_to_cpu(req->id) != tp->rq_next || req->reserved0 ||
	    req->reserved1 || req->kind > RDSD_WIRE_OP_MASKED_CSWP)
		return -EPROTO;
	if (rdsd_op_is_atomic(req->kind)) {
		if (bytes != 8 || data)
			return -EPROTO;
	} else {
		if (!bytes || bytes > RDS_DOCA_MAX_RDMA_SIZE ||
		    data != (req->kind == RDSD_OP_WRITE ? bytes : 0))
			return -EPROTO;
		for (i = 0; i < ARRAY_SIZE(req->args); i++)
			if (req->args[i])
				return -EPROTO;
	}

	r = kzalloc(sizeof(*r), gfp);
	if (!r)
		return -ENOMEM;
	read = rdsd_tcp_read_bytes(req->kind, bytes);
	spin_lock_bh(&tp->op_lock);
	over = tp->rq_out >= RDSD_TCP_OPS_MAX ||
	       tp->rq_read_bytes + read > RDSD_TCP_READ_WINDOW;
	if (!over) {
		tp->rq_out++;
		tp->rq_read_bytes += read;
	}
	spin_unlock_bh(&tp->op_lock);
	if (over) {
		kfree(r);
		return -EPROTO;	/* more than its window */
	}
	INIT_LIST_HEAD(&r->item);
	r->desc.id = req->id;
	r->desc.status = RDS_RDMA_REMOTE_ERROR;
	r->asked = read;
	r->counted = true;
	tp->rx_resp = r;
	tp->rq_next++;
	return 0;
}

/*
 * The region a request names, if the peer may do this there; with a
 * reference, and *@off its first byte's place in the region's pages.
 */
static struct rdsd_mr *rdsd_tcp_req_mr(struct rdsd_tcp_conn *tp, u64 *off)
{
	const struct rdsd_wire_rdma_req *req = &tp->rx_raw.req;
	const struct rdsd_wire_info *info = &tp->rx_info;
	struct rdsd_conn *conn = tp->conn;
	const struct rdsd_mr_peer peer = {
		.saddr = conn->faddr, .sport = info->sport,
		.daddr = conn->laddr, .dport = info->dport,
	};
	struct rdsd_mr *mr;

	mr = rdsd_mr_find(conn->rn, be64_to_cpu(req->cookie));
	if (mr && !rdsd_mr_check(mr, &peer, be64_to_cpu(req->raddr),
				 be32_to_cpu(req->bytes),
				 req->kind != RDSD_OP_READ, off) &&
	    /* a list region's byte 0 need not be aligned in memory */
	    (!rdsd_op_is_atomic(req->kind) || IS_ALIGNED(*off, 8)))
		return mr;
	rdsd_mr_put(mr);
	rdsd_stat_inc(conn->rn, rdma_refused);
	return NULL;
}

/*
 * Copy @bytes of @mr from @off into pages of our own for the answer @r.
 * Returns an RDS_RDMA_* status.  Process context.
 */
static int rdsd_tcp_req_read(struct rdsd_tcp_conn *tp, struct rdsd_tcp_resp *r,
			     struct rdsd_mr *mr, u64 off, u32 bytes)
{
	struct rdsd_net *rn = tp->conn->rn;
	unsigned int n = DIV_ROUND_UP(bytes, PAGE_SIZE);
	struct page *page;

	if (!rdsd_tcp_stage_charge(rn, bytes))
		return RDS_RDMA_OTHER_ERROR;
	r->bytes = bytes;	/* what rdsd_tcp_stage_free() gives back */
	r->sg = kvmalloc_array(n, sizeof(*r->sg), GFP_KERNEL);
	if (!r->sg) {
		atomic_long_sub(bytes, &rn->tcp_staged);
		r->bytes = 0;
		return RDS_RDMA_OTHER_ERROR;
	}
	sg_init_table(r->sg, n);
	for (r->nents = 0; r->nents < n; r->nents++) {
		page = alloc_page(GFP_KERNEL | __GFP_NOWARN);
		if (!page) {
			rdsd_tcp_stage_free(rn, r);
			return RDS_RDMA_OTHER_ERROR;
		}
		sg_set_page(&r->sg[r->nents], page,
			    min_t(u32, PAGE_SIZE,
				  bytes - r->nents * PAGE_SIZE), 0);
	}
	rdsd_dma_copy_pages(rn, mr->pages, off, r->sg, n, bytes, false);
	return RDS_RDMA_SUCCESS;
}

/**
 * rdsd_tcp_rx_req - an RDMA_REQ's descriptor arrived: run the request
 * @tp: the connection; the socket's lock held.
 * @gfp: how the answer may be allocated.
 *
 * An atomic runs at once; a write's region is found, and its data goes
 * there as it arrives; a read waits for the receive work, where the copy
 * may sleep.  Returns 0, -ENOMEM or -EINPROGRESS (the descriptor stays,
 * the receive work runs it), or -EPROTO.
 */
int rdsd_tcp_rx_req(struct rdsd_tcp_conn *tp, gfp_t gfp)
{
	const struct rdsd_wire_rdma_req *req = &tp->rx_raw.req;
	struct rdsd_tcp_resp *r;
	struct rdsd_mr *mr;
	u64 off, args[4];
	unsigned int i;
	int ret;

	if (!tp->rx_resp) {
		ret = rdsd_tcp_req_begin(tp, gfp);
		if (ret)
			return ret;
	}
	r = tp->rx_resp;

	switch (req->kind) {
	case RDSD_OP_READ:
		if (!gfpflags_allow_blocking(gfp))
			return -EINPROGRESS;
		mr = rdsd_tcp_req_mr(tp, &off);
		if (mr)
			r->desc.status = rdsd_tcp_req_read(tp, r, mr, off,
							   be32_to_cpu(req->bytes));
		rdsd_mr_put(mr);
		break;
	case RDSD_OP_WRITE:
		/* refused: the data goes nowhere, and the answer says so */
		tp->rx_mr = rdsd_tcp_req_mr(tp, &tp->rx_moff);
		if (tp->rx_mr)
			r->desc.status = RDS_RDMA_SUCCESS;
		WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_WDATA);
		return 0;
	default:
		mr = rdsd_tcp_req_mr(tp, &off);
		if (mr) {
			for (i = 0; i < ARRAY_SIZE(args); i++)
				args[i] = be64_to_cpu(req->args[i]);
			r->desc.value = cpu_to_be64(rdsd_atomic_exec(mr, off,
								     req->kind,
								     args));
			r->desc.status = RDS_RDMA_SUCCESS;
		}
		rdsd_mr_put(mr);
		break;
	}
	rdsd_tcp_rx_req_end(tp);
	return 0;
}

/**
 * rdsd_tcp_rx_wdata - bytes of a write: into the region, or nowhere
 * @tp: the connection; the socket's lock held.
 * @skb: where they are.
 * @off: at what offset.
 * @n: how many.
 */
int rdsd_tcp_rx_wdata(struct rdsd_tcp_conn *tp, const struct sk_buff *skb,
		      unsigned int off, u32 n)
{
	struct rdsd_mr *mr = tp->rx_mr;
	struct page *page;
	void *p;
	u32 c;
	int ret;

	while (mr && n) {
		page = mr->pages[tp->rx_moff >> PAGE_SHIFT];
		c = min_t(u64, n, PAGE_SIZE - offset_in_page(tp->rx_moff));
		p = kmap_local_page(page);
		ret = skb_copy_bits(skb, off, p + offset_in_page(tp->rx_moff),
				    c);
		kunmap_local(p);
		flush_dcache_page(page);
		if (ret)
			return ret;
		tp->rx_moff += c;
		off += c;
		n -= c;
	}
	return 0;
}

/**
 * rdsd_tcp_rx_req_end - a request ran: its answer goes
 * @tp: the connection; the socket's lock held.
 */
void rdsd_tcp_rx_req_end(struct rdsd_tcp_conn *tp)
{
	struct rdsd_tcp_resp *r = tp->rx_resp;

	tp->rx_resp = NULL;
	rdsd_mr_put(tp->rx_mr);
	tp->rx_mr = NULL;
	spin_lock_bh(&tp->op_lock);
	list_add_tail(&r->item, &tp->resp_list);
	spin_unlock_bh(&tp->op_lock);
	queue_work(rdsd_wq, &tp->tx_work);
	tp->rx_have = 0;	/* the descriptor is used up */
	WRITE_ONCE(tp->rx_state, RDSD_TCP_RX_HDR);
}

/* Both sides -------------------------------------------------------------- */

/**
 * rdsd_tcp_rdma_reset - the socket is gone: so is every operation on it
 * @tp: the connection; nothing reads or writes the socket any more
 *	(rdsd_tcp_tx_stop() and rdsd_tcp_rx_reset() ran).
 *
 * Operations unanswered complete as RDS_RDMA_DROPPED; the peer's requests
 * not answered are forgotten (it drops them too).  The next socket
 * numbers requests from 1 again.
 */
void rdsd_tcp_rdma_reset(struct rdsd_tcp_conn *tp)
{
	struct rdsd_tcp_resp *r, *tmp;
	struct rdsd_op *op;
	LIST_HEAD(list);

	spin_lock_bh(&tp->op_lock);
	while (tp->op_oldest != tp->op_next) {
		op = rdsd_tcp_op_oldest(tp);
		tp->op_ring[tp->op_oldest % RDSD_TCP_OPS_MAX] = NULL;
		tp->op_oldest++;
		spin_unlock_bh(&tp->op_lock);
		rdsd_op_complete(op, RDS_RDMA_DROPPED);
		rdsd_op_put(op);	/* the ring's */
		spin_lock_bh(&tp->op_lock);
	}
	tp->op_next = 1;
	tp->op_oldest = 1;
	tp->op_read_bytes = 0;
	tp->op_wait = false;
	tp->op_after = 0;
	tp->rq_next = 1;
	list_splice_init(&tp->resp_list, &list);
	spin_unlock_bh(&tp->op_lock);

	list_for_each_entry_safe(r, tmp, &list, item)
		rdsd_tcp_resp_free(tp, r);
	rdsd_tcp_resp_free(tp, tp->rx_resp);
	tp->rx_resp = NULL;
	rdsd_mr_put(tp->rx_mr);
	tp->rx_mr = NULL;
	WARN_ON_ONCE(tp->rq_out || tp->rq_read_bytes);
}

/**
 * rdsd_tcp_rdma_idle - does nothing wait for an answer either way?
 * @tp: the connection.
 *
 * Any context.
 */
bool rdsd_tcp_rdma_idle(struct rdsd_tcp_conn *tp)
{
	bool idle;

	spin_lock_bh(&tp->op_lock);
	idle = tp->op_oldest == tp->op_next && !tp->rq_out;
	spin_unlock_bh(&tp->op_lock);
	return idle;
}
