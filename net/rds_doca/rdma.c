// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca RDMA and atomic operations.
 *
 * sendmsg() control messages become one operation riding on the message
 * (struct rdsd_op): RDS_CMSG_RDMA_ARGS a read or a write between the
 * caller's buffers and a peer's registered region, RDS_CMSG_ATOMIC_* an
 * atomic on an 8-byte word of it.  RDS_CMSG_RDMA_DEST and RDS_CMSG_RDMA_MAP
 * attach one of the caller's own cookies for the peer to see.  Everything
 * is checked, and the local pages pinned, before the message is queued: a
 * refused call leaves nothing behind.
 *
 * The transport executes the operation before it delivers the message, so
 * the receiver of the message sees what the operation did; an operation is
 * executed once at most, never again after a connection reset.  Its
 * outcome is final when rdsd_op_complete() runs, and the socket that asked
 * hears of it (RDS_CMSG_RDMA_STATUS) if it asked with RDS_RDMA_NOTIFY_ME or,
 * for a failure, if it had RDS_RECVERR set when it sent the operation.  The
 * notice is allocated with the operation, so completing never fails and
 * never notifies twice.
 *
 * Notices are bounded by the receive buffer: each counts
 * RDSD_RECV_MIN_CHARGE bytes in rs->notify_bytes, against rdsd_rcvbuf()
 * together with the queued messages' rs->rcv_bytes.  sendmsg() reserves
 * the room when it accepts an operation that may owe a notice
 * (rdsd_op_notice_reserve(), RDSD_OP_NOTICE), and refuses or waits while
 * there is none; the room passes to the notice when the operation
 * completes, and is given back when recvmsg() hands the notice out, when
 * the operation completes without one, when the send is refused after
 * all, or when the socket closes.  So a notice owed is never dropped, and
 * the notices a socket can be owed are bounded.  Notices do not mark the
 * port congested: congestion tells peers to stop sending messages, and a
 * notice is the socket's own doing, bounded by its own sends.
 *
 * Pinned pages are charged, and bounded, while they are pinned: sendmsg()
 * charges them to the caller's pinned_vm (rdsd_pin_charge(), as
 * RDS_GET_MR charges a region).  Within RLIMIT_MEMLOCK (or with
 * CAP_IPC_LOCK) that is all.  Past it the operation still goes, but its
 * pages count in the socket's send buffer too (op->sndbuf, in
 * rs->snd_bytes) until they are released, and the message waits for room
 * there, as any message does: EAGAIN, or a wait and ETIMEDOUT, never
 * ENOMEM.  So a process pins through operations at most its
 * RLIMIT_MEMLOCK, plus the send buffer of each socket (which the last
 * message may overshoot, by one operation of RDS_DOCA_MAX_RDMA_SIZE at
 * most), plus the operation of each sendmsg() that waits for room.
 *
 * Lifetime: an operation is allocated by sendmsg() and freed when both its
 * message and its work are gone (op->holds).  Its work (the local pages,
 * their charges, the send buffer bytes and the socket that asked) lasts
 * while op->refs has users: the message until the operation completes or
 * the message goes, whichever comes first, and each work request a
 * transport posted for it until the transport is done with the pages.  So
 * the pages are released once the operation is complete and no device
 * uses them, even while its message waits, unread, on a receive queue.
 * The last put of op->refs releases them from a work item; an operation
 * whose message goes without its having run completes as
 * RDS_RDMA_CANCELED then.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/rds_doca.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "rdsd.h"
#include "dma.h"
#include "message.h"
#include "mr.h"
#include "stats.h"
#include "transport.h"
#include "trace.h"

/* Flags an operation accepts: every Linux RDS flag. */
#define RDSD_OP_USER_FLAGS	0x7f

/* The message is gone, and the work: free @op.  Any context. */
static void rdsd_op_unhold(struct rdsd_op *op)
{
	if (refcount_dec_and_test(&op->holds)) {
		kfree(op->notifier);
		kfree(op);
	}
}

/*
 * Operations whose work is over wait here for rdsd_op_release_work, which
 * releases their pages in process context: one work item for all of them,
 * queued by the put that finds the list empty, so a window of completions
 * costs one wake-up rather than one each.  rdsd_wq is destroyed, and so
 * drained, when the module goes.
 */
static LLIST_HEAD(rdsd_op_release_list);

/*
 * Unpin @op's pages, give back their charges, pinned_vm and send buffer
 * bytes, and let go of the socket that asked.
 */
static void rdsd_op_release_pages(struct rdsd_op *op)
{
	struct rdsd_sock *rs = op->rs;

	if (op->npages)
		unpin_user_pages_dirty_lock(op->pages, op->npages, op->dirty);
	if (op->charged)
		rdsd_pin_uncharge(op->mm, op->charged);
	if (op->mm)
		mmdrop(op->mm);		/* grabbed by rdsd_op_pin() */
	kvfree(op->pages);
	kvfree(op->sg);
	op->pages = NULL;
	op->sg = NULL;
	if (test_bit(RDSD_OP_SNDBUF, &op->state)) {
		/* counted by rdsd_send_queue() */
		spin_lock_bh(&rs->lock);
		rs->snd_bytes -= op->sndbuf;
		spin_unlock_bh(&rs->lock);
		rs->sk.sk_write_space(&rs->sk);
	}
	sock_put(&rs->sk);		/* held by rdsd_op_alloc() */
}

static void rdsd_op_release_all(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&rdsd_op_release_list);
	struct rdsd_op *op, *tmp;

	llist_for_each_entry_safe(op, tmp, list, free_node) {
		rdsd_op_release_pages(op);
		rdsd_op_unhold(op);	/* the work's */
		cond_resched();
	}
}

static DECLARE_WORK(rdsd_op_release_work, rdsd_op_release_all);

/* The last user of @op's pages is gone. */
static void rdsd_op_release(struct kref *kref)
{
	struct rdsd_op *op = container_of(kref, struct rdsd_op, refs);

	/* the message went away without the operation running */
	rdsd_op_complete(op, RDS_RDMA_CANCELED);
	if (llist_add(&op->free_node, &rdsd_op_release_list))
		queue_work(rdsd_wq, &rdsd_op_release_work);
}

/**
 * rdsd_op_put - a user of an operation's pages is done with them
 * @op: operation, may be NULL.
 *
 * For each work request a transport posted (kref_get() of op->refs).
 * Any context.
 */
void rdsd_op_put(struct rdsd_op *op)
{
	if (op)
		kref_put(&op->refs, rdsd_op_release);
}

/* Drop the message's reference to @op's pages, once. */
static void rdsd_op_put_msg_ref(struct rdsd_op *op)
{
	if (test_and_clear_bit(RDSD_OP_MSG_REF, &op->state))
		rdsd_op_put(op);
}

/**
 * rdsd_op_detach - the message that carried an operation is freed
 * @op: its operation, may be NULL.
 *
 * An operation that did not run, and that no transport holds, completes
 * as RDS_RDMA_CANCELED.  Any context.
 */
void rdsd_op_detach(struct rdsd_op *op)
{
	if (!op)
		return;
	rdsd_op_put_msg_ref(op);
	rdsd_op_unhold(op);	/* the message's */
}

/* A notice comes off @rs: its room is free again; recv_lock held. */
static bool rdsd_notice_unqueued(struct rdsd_sock *rs)
{
	bool wake;

	lockdep_assert_held(&rs->recv_lock);
	if (rs->dead)	/* rdsd_notify_purge() cleared everything */
		return false;
	rs->notify_bytes -= RDSD_RECV_MIN_CHARGE;
	wake = rs->notice_wait;
	rs->notice_wait = false;
	return wake;
}

/*
 * Give back the room @op reserved for its notice, if it holds it; recv_lock
 * held.  Returns true if a sendmsg() waits for that room.
 */
static bool rdsd_op_notice_release(struct rdsd_sock *rs, struct rdsd_op *op)
{
	lockdep_assert_held(&rs->recv_lock);
	if (!test_and_clear_bit(RDSD_OP_NOTICE, &op->state))
		return false;
	return rdsd_notice_unqueued(rs);
}

/*
 * Refused operations (RDS_RDMA_REMOTE_ERROR: a wrong, guessed, freed or
 * foreign cookie, or a range or right the region does not give) a socket
 * may cause in one second; past that, its new operations are refused at
 * sendmsg() with EAGAIN until the second is over and counted in
 * rdma_throttled.  Nobody tries cookies at speed: at 64 a second, one
 * region among 2^52 cookies takes two million years to find.
 */
#define RDSD_REFUSED_PER_SEC	64

/* @rs caused a refusal; any context. */
static void rdsd_op_refused(struct rdsd_sock *rs)
{
	unsigned long now = jiffies;

	if (time_after(now, READ_ONCE(rs->refused_since) + HZ)) {
		WRITE_ONCE(rs->refused_since, now);
		atomic_set(&rs->refused, 0);
	}
	atomic_inc(&rs->refused);
}

/* Has @rs used up this second's refusals? */
static bool rdsd_op_throttled(struct rdsd_sock *rs)
{
	return atomic_read(&rs->refused) >= RDSD_REFUSED_PER_SEC &&
	       time_before_eq(jiffies, READ_ONCE(rs->refused_since) + HZ);
}

/* Queue @op's notice if it owes one; its room was reserved at sendmsg(). */
static void rdsd_op_notify(struct rdsd_op *op, int status)
{
	struct rdsd_sock *rs = op->rs;
	struct rdsd_notifier *n;
	bool queued = false, wake;

	/* no room reserved: sendmsg() found it owes no notice */
	if (!test_bit(RDSD_OP_NOTICE, &op->state))
		return;

	n = op->notifier;
	n->token = op->token;
	n->status = status;
	spin_lock_bh(&rs->recv_lock);
	if (!rs->dead && ((op->flags & RDS_RDMA_NOTIFY_ME) ||
			  status != RDS_RDMA_SUCCESS)) {
		list_add_tail(&n->item, &rs->notify_queue);
		op->notifier = NULL;	/* the socket's now */
		/* the reserved room is the notice's now */
		clear_bit(RDSD_OP_NOTICE, &op->state);
		queued = true;
	}
	wake = rdsd_op_notice_release(rs, op);
	spin_unlock_bh(&rs->recv_lock);
	if (queued)
		rs->sk.sk_data_ready(&rs->sk);
	if (wake)
		rs->sk.sk_write_space(&rs->sk);
}

/**
 * rdsd_op_complete - an operation's outcome is known
 * @op: the operation.
 * @status: RDS_RDMA_* status.
 *
 * The first call decides; later ones are ignored.  Queues the notice on
 * the asking socket if it wants one and is still open, and drops the
 * message's hold on the local pages: they are released as soon as no
 * transport holds them either.  Any context.
 */
void rdsd_op_complete(struct rdsd_op *op, int status)
{
	if (test_and_set_bit(RDSD_OP_DONE, &op->state))
		return;
	op->status = status;
	trace_rdsd_op_complete(op, status);
	if (status == RDS_RDMA_REMOTE_ERROR)
		rdsd_op_refused(op->rs);
	rdsd_op_notify(op, status);
	/* the pages go once no transport holds them either */
	rdsd_op_put_msg_ref(op);
}

/**
 * rdsd_op_notice_reserve - reserve receive buffer room for @op's notice
 * @rs: the sending socket.
 * @op: operation of the message sendmsg() is about to queue, or NULL.
 *
 * An operation may owe a notice if it asks for one (RDS_RDMA_NOTIFY_ME) or
 * if RDS_RECVERR is set now, at sendmsg(): a failure is then reported.
 * Returns true if @op owes none or holds its room (reserved now or by an
 * earlier call), false if the receive buffer has none left: the caller
 * refuses the send or waits, and a later release wakes the socket's
 * writers.  Process context.
 */
bool rdsd_op_notice_reserve(struct rdsd_sock *rs, struct rdsd_op *op)
{
	bool ok;

	if (!op || test_bit(RDSD_OP_NOTICE, &op->state) ||
	    (!(op->flags & RDS_RDMA_NOTIFY_ME) && !READ_ONCE(rs->recverr)))
		return true;

	spin_lock_bh(&rs->recv_lock);
	ok = rs->rcv_bytes + rs->notify_bytes + RDSD_RECV_MIN_CHARGE <=
	     rdsd_rcvbuf(rs);
	if (ok) {
		rs->notify_bytes += RDSD_RECV_MIN_CHARGE;
		set_bit(RDSD_OP_NOTICE, &op->state);
	} else {
		rs->notice_wait = true;
	}
	spin_unlock_bh(&rs->recv_lock);
	return ok;
}

/**
 * rdsd_op_notice_cancel - sendmsg() did not queue @op after all
 * @rs: the sending socket.
 * @op: its operation, or NULL.
 *
 * Gives back the room rdsd_op_notice_reserve() reserved: a refused send
 * owes no notice.  Process context.
 */
void rdsd_op_notice_cancel(struct rdsd_sock *rs, struct rdsd_op *op)
{
	bool wake;

	if (!op || !test_bit(RDSD_OP_NOTICE, &op->state))
		return;
	spin_lock_bh(&rs->recv_lock);
	wake = rdsd_op_notice_release(rs, op);
	spin_unlock_bh(&rs->recv_lock);
	if (wake)
		rs->sk.sk_write_space(&rs->sk);
}

/* Release @op's pages at once, the work's part of rdsd_op_release_all(). */
static void rdsd_op_release_sync(struct kref *kref)
{
	struct rdsd_op *op = container_of(kref, struct rdsd_op, refs);

	rdsd_op_release_pages(op);
	rdsd_op_unhold(op);	/* the work's */
}

/**
 * rdsd_op_unsent - sendmsg() refuses the message that carries @op
 * @rs: the sending socket.
 * @op: the message's operation, or NULL.
 *
 * The operation never runs and owes no notice: its notice's room is given
 * back, and its pages are unpinned and their charges given back before
 * sendmsg() returns, so a refused send leaves nothing behind.  Process
 * context; the message, not queued, holds the only reference.
 */
void rdsd_op_unsent(struct rdsd_sock *rs, struct rdsd_op *op)
{
	if (!op)
		return;
	rdsd_op_notice_cancel(rs, op);
	set_bit(RDSD_OP_DONE, &op->state);
	if (test_and_clear_bit(RDSD_OP_MSG_REF, &op->state))
		kref_put(&op->refs, rdsd_op_release_sync);
}

/**
 * rdsd_notify_recv - hand queued notices to recvmsg()
 * @rs: socket.
 * @m: the caller's message header.
 *
 * As many notices as the control buffer holds, each an
 * RDS_CMSG_RDMA_STATUS, and at least one: as in Linux, a caller without
 * room for it gets MSG_CTRUNC and the notice is gone.  Returns 0, or
 * -EFAULT with the notice kept.
 */
int rdsd_notify_recv(struct rdsd_sock *rs, struct msghdr *m)
{
	struct rds_rdma_notify cmsg;
	struct rdsd_notifier *n;
	bool first = true, wake = false;
	int ret = 0;

	for (;; first = false) {
		if (!first && m->msg_controllen < CMSG_SPACE(sizeof(cmsg)))
			break;
		spin_lock_bh(&rs->recv_lock);
		n = list_first_entry_or_null(&rs->notify_queue,
					     struct rdsd_notifier, item);
		if (n) {
			list_del_init(&n->item);
			wake |= rdsd_notice_unqueued(rs);
		}
		spin_unlock_bh(&rs->recv_lock);
		if (!n)
			break;

		memset(&cmsg, 0, sizeof(cmsg));
		cmsg.user_token = n->token;
		cmsg.status = n->status;
		ret = put_cmsg(m, SOL_RDS, RDS_CMSG_RDMA_STATUS, sizeof(cmsg),
			       &cmsg);
		if (ret) {
			spin_lock_bh(&rs->recv_lock);
			if (!rs->dead) {
				list_add(&n->item, &rs->notify_queue);
				rs->notify_bytes += RDSD_RECV_MIN_CHARGE;
				n = NULL;
			}
			spin_unlock_bh(&rs->recv_lock);
			kfree(n);
			break;
		}
		kfree(n);
	}
	if (wake)
		rs->sk.sk_write_space(&rs->sk);
	return ret;
}

/**
 * rdsd_notify_purge - drop the notices of a closing socket
 * @rs: socket, already marked dead.
 *
 * Their room and what operations in flight reserved is gone with them:
 * once @rs is dead, nothing gives room back.
 */
void rdsd_notify_purge(struct rdsd_sock *rs)
{
	struct rdsd_notifier *n, *tmp;
	LIST_HEAD(list);

	spin_lock_bh(&rs->recv_lock);
	list_splice_init(&rs->notify_queue, &list);
	rs->notify_bytes = 0;
	spin_unlock_bh(&rs->recv_lock);
	list_for_each_entry_safe(n, tmp, &list, item)
		kfree(n);
}

static struct rdsd_op *rdsd_op_alloc(struct rdsd_sock *rs)
{
	struct rdsd_op *op;

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return NULL;
	op->notifier = kzalloc(sizeof(*op->notifier), GFP_KERNEL);
	if (!op->notifier) {
		kfree(op);
		return NULL;
	}
	INIT_LIST_HEAD(&op->notifier->item);
	/* the message's, put by rdsd_op_complete() or rdsd_op_detach() */
	kref_init(&op->refs);
	set_bit(RDSD_OP_MSG_REF, &op->state);
	/* the message's (rdsd_op_detach()) and the work's (release) */
	refcount_set(&op->holds, 2);
	sock_hold(&rs->sk);		/* put by rdsd_op_release_pages() */
	op->rs = rs;
	return op;
}

/*
 * Pin the local buffers @vecs of @op and describe them in op->sg, one entry
 * per page piece, in order.  The pages are charged to the caller's
 * pinned_vm first; past RLIMIT_MEMLOCK they count in the send buffer too
 * (op->sndbuf, see the top of this file).
 */
static int rdsd_op_pin(struct rdsd_op *op, const struct rds_iovec *vecs,
		       unsigned int nr, unsigned int npages)
{
	unsigned int gup = op->dirty ? FOLL_WRITE : 0;
	unsigned int i, p = 0;
	int ret;

	op->pages = kvmalloc_array(npages, sizeof(*op->pages), GFP_KERNEL);
	op->sg = kvmalloc_array(npages, sizeof(*op->sg), GFP_KERNEL);
	if (!op->pages || !op->sg)
		return -ENOMEM;
	sg_init_table(op->sg, npages);

	op->mm = current->mm;
	mmgrab(op->mm);			/* dropped by rdsd_op_release_pages() */
	if (rdsd_pin_charge(op->mm, npages, true))
		op->sndbuf = npages << PAGE_SHIFT;
	op->charged = npages;		/* given back with the pages */

	for (i = 0; i < nr; i++) {
		u64 addr = vecs[i].addr, left = vecs[i].bytes;
		unsigned int n = rdsd_span_pages(addr, left);

		ret = rdsd_pin_pages(addr, n, gup, op->pages + p);
		if (ret)
			return ret;	/* op->npages: what the free unpins */
		for (; n; n--, p++) {
			u32 off = offset_in_page(addr);
			u32 len = min_t(u64, left, PAGE_SIZE - off);

			sg_set_page(&op->sg[p], op->pages[p], len, off);
			addr += len;
			left -= len;
		}
		op->npages = p;
	}
	op->nents = p;
	sg_mark_end(&op->sg[p - 1]);
	return 0;
}

/* RDS_CMSG_RDMA_ARGS: a read or write of the peer's region. */
static int rdsd_op_rdma(struct rdsd_op *op, const struct rds_rdma_args *a)
{
	struct rds_iovec *vecs;
	unsigned int i, npages = 0;
	u64 total = 0;
	int ret;

	if (a->flags & ~RDSD_OP_USER_FLAGS)
		return -EINVAL;
	if (!a->nr_local)
		return -EINVAL;
	if (a->nr_local > RDS_DOCA_MAX_RDMA_IOVECS)
		return -EMSGSIZE;
	vecs = memdup_user(u64_to_user_ptr(a->local_vec_addr),
			   a->nr_local * sizeof(*vecs));
	if (IS_ERR(vecs))
		return PTR_ERR(vecs);

	ret = -EINVAL;
	for (i = 0; i < a->nr_local; i++) {
		if (!vecs[i].bytes ||
		    vecs[i].addr + vecs[i].bytes < vecs[i].addr)
			goto out;
		total += vecs[i].bytes;
		if (total > RDS_DOCA_MAX_RDMA_SIZE) {
			ret = -EMSGSIZE;
			goto out;
		}
		npages += rdsd_span_pages(vecs[i].addr, vecs[i].bytes);
	}
	if (total != a->remote_vec.bytes)
		goto out;

	op->kind = a->flags & RDS_RDMA_READWRITE ? RDSD_OP_WRITE : RDSD_OP_READ;
	op->dirty = op->kind == RDSD_OP_READ;
	op->flags = a->flags;
	op->cookie = a->cookie;
	op->key = rdsd_cookie_key(a->cookie);
	op->raddr = rdsd_cookie_offset(a->cookie) + a->remote_vec.addr;
	op->bytes = total;
	op->token = a->user_token;
	ret = rdsd_op_pin(op, vecs, a->nr_local, npages);
out:
	kfree(vecs);
	return ret;
}

/* RDS_CMSG_*ATOMIC_*: an atomic on an 8-byte word of the peer's region. */
static int rdsd_op_atomic(struct rdsd_op *op, int type,
			  const struct rds_atomic_args *a)
{
	struct rds_iovec vec = { .addr = a->local_addr, .bytes = 8 };

	if (a->flags & ~RDSD_OP_USER_FLAGS)
		return -EINVAL;
	op->raddr = rdsd_cookie_offset(a->cookie) + a->remote_addr;
	if (!IS_ALIGNED(op->raddr, 8))
		return -EINVAL;
	/* as Linux: the result cannot be written there */
	if (!IS_ALIGNED(a->local_addr, 8))
		return -EFAULT;

	switch (type) {
	case RDS_CMSG_ATOMIC_FADD:
		op->kind = RDSD_OP_FADD;
		op->args[0] = a->fadd.add;
		break;
	case RDS_CMSG_ATOMIC_CSWP:
		op->kind = RDSD_OP_CSWP;
		op->args[0] = a->cswp.compare;
		op->args[1] = a->cswp.swap;
		break;
	case RDS_CMSG_MASKED_ATOMIC_FADD:
		op->kind = RDSD_OP_MASKED_FADD;
		op->args[0] = a->m_fadd.add;
		op->args[1] = a->m_fadd.nocarry_mask;
		break;
	default:
		op->kind = RDSD_OP_MASKED_CSWP;
		op->args[0] = a->m_cswp.compare;
		op->args[1] = a->m_cswp.swap;
		op->args[2] = a->m_cswp.compare_mask;
		op->args[3] = a->m_cswp.swap_mask;
		break;
	}
	op->dirty = true;
	op->flags = a->flags;
	op->cookie = a->cookie;
	op->key = rdsd_cookie_key(a->cookie);
	op->bytes = 8;
	op->token = a->user_token;
	return rdsd_op_pin(op, &vec, 1, 1);
}

/**
 * rdsd_op_parse - turn sendmsg()'s RDMA control messages into @msg's parts
 * @rs: sending socket.
 * @conn: connection the message goes on.
 * @cm: the control messages, as rdsd_cmsg_parse() found them.
 * @msg: the new message: gets its operation and its RDMA_DEST cookie.
 *
 * Process context.  Returns 0 or a negative errno; on failure @msg may
 * hold a partly built operation, which the caller gives to
 * rdsd_op_unsent().
 */
int rdsd_op_parse(struct rdsd_sock *rs, struct rdsd_conn *conn,
		  const struct rdsd_cmsgs *cm, struct rdsd_msg *msg)
{
	const struct rdsd_transport_ops *trans = conn->trans;
	struct rdsd_op *op;
	int ret;

	if ((cm->rdma || cm->atomic || cm->map || cm->dest) &&
	    !(trans->features & RDSD_TRANS_F_RDMA))
		return -EOPNOTSUPP;
	if ((cm->atomic == RDS_CMSG_MASKED_ATOMIC_FADD ||
	     cm->atomic == RDS_CMSG_MASKED_ATOMIC_CSWP) &&
	    !(trans->features & RDSD_TRANS_F_MASKED_ATOMICS))
		return -EOPNOTSUPP;

	if (cm->dest) {
		if (!rdsd_mr_owned(rs, cm->dest_cookie))
			return -EINVAL;
		msg->rdma_dest = cm->dest_cookie;
	}
	if ((cm->rdma || cm->atomic) && rdsd_op_throttled(rs)) {
		rdsd_stat_inc(rdsd_sk_net(rs), rdma_throttled);
		return -EAGAIN;
	}
	if (cm->rdma || cm->atomic) {
		op = rdsd_op_alloc(rs);
		if (!op)
			return -ENOMEM;
		msg->op = op;
		if (cm->rdma)
			ret = rdsd_op_rdma(op, &cm->rdma_args);
		else
			ret = rdsd_op_atomic(op, cm->atomic, &cm->atomic_args);
		/* the arguments are good: can this connection's device run it? */
		if (!ret && trans->op_check)
			ret = trans->op_check(conn, op->kind);
		if (ret)
			return ret;	/* the caller calls rdsd_op_unsent() */
	}
	/* last: a registration is only made for a message that goes */
	if (cm->map) {
		ret = rdsd_mr_map(rs, &cm->map_args, &msg->rdma_dest);
		if (ret)
			return ret;
	}
	return 0;
}

/* Software execution ------------------------------------------------------ */

/**
 * rdsd_atomic_apply - the new value of an atomic's target word
 * @kind: enum rdsd_op_kind, an atomic.
 * @args: the operands (see struct rdsd_op).
 * @old: the word's current value.
 * @new: set to its new value.
 *
 * Returns false if the word stays as it is (a compare that failed).
 * Masked fetch-and-add adds fields on their own: a carry out of a bit set
 * in the mask is dropped, as InfiniBand defines it.
 */
VISIBLE_IF_KUNIT bool rdsd_atomic_apply(int kind, const u64 *args, u64 old,
					u64 *new)
{
	u64 sum = 0, carry = 0;
	int i;

	switch (kind) {
	case RDSD_OP_FADD:
		*new = old + args[0];
		return true;
	case RDSD_OP_CSWP:
		*new = args[1];
		return old == args[0];
	case RDSD_OP_MASKED_FADD:
		for (i = 0; i < 64; i++) {
			u64 a = (old >> i) & 1, b = (args[0] >> i) & 1;

			sum |= (a ^ b ^ carry) << i;
			carry = (a & b) | (a & carry) | (b & carry);
			if ((args[1] >> i) & 1)
				carry = 0;
		}
		*new = sum;
		return true;
	default:	/* RDSD_OP_MASKED_CSWP */
		*new = (old & ~args[3]) | (args[1] & args[3]);
		return !((old ^ args[0]) & args[2]);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_atomic_apply);

/**
 * rdsd_atomic_exec - run an atomic on a word of a region
 * @mr: the region, checked for the operation.
 * @off: byte of its first page where the word is, a multiple of 8.
 * @kind: enum rdsd_op_kind, an atomic.
 * @args: the operands (see struct rdsd_op).
 *
 * Returns the word's value before.  Any context.
 */
u64 rdsd_atomic_exec(struct rdsd_mr *mr, u64 off, int kind, const u64 *args)
{
	struct page *mp = mr->pages[off >> PAGE_SHIFT];
	u64 *word, old, new;

	word = kmap_local_page(mp) + offset_in_page(off);
	old = READ_ONCE(*word);
	for (;;) {
		if (!rdsd_atomic_apply(kind, args, old, &new))
			break;
		if (try_cmpxchg64(word, &old, new))
			break;
	}
	kunmap_local(word);
	flush_dcache_page(mp);
	return old;
}

/**
 * rdsd_op_result - store an atomic's result in its local word
 * @op: the operation, an atomic.
 * @old: the target word's value before.
 *
 * Any context.
 */
void rdsd_op_result(struct rdsd_op *op, u64 old)
{
	u8 *l = kmap_local_page(sg_page(op->sg));

	memcpy(l + op->sg->offset, &old, sizeof(old));
	kunmap_local(l);
	flush_dcache_page(sg_page(op->sg));
}

/**
 * rdsd_op_exec_soft - execute a message's operation without a device
 * @rn: namespace of the target region.
 * @msg: message whose operation is still to run.
 *
 * Looks the region up by its cookie, checks that the message went to the
 * region's owner and the peer's right to the range, and moves the data
 * through the copy engine (dma.c).  Completes the operation; a refusal
 * is counted in rdma_refused.  Process context: an engine copy sleeps.
 */
void rdsd_op_exec_soft(struct rdsd_net *rn, struct rdsd_msg *msg)
{
	const struct rdsd_mr_peer peer = {
		.saddr = msg->saddr, .sport = msg->sport,
		.daddr = msg->daddr, .dport = msg->dport,
	};
	struct rdsd_op *op = msg->op;
	int status = RDS_RDMA_REMOTE_ERROR;
	struct rdsd_mr *mr;
	bool write;
	u64 off;

	if (!op || test_bit(RDSD_OP_DONE, &op->state))
		return;
	trace_rdsd_op_post(op, 0);
	write = op->kind != RDSD_OP_READ;
	mr = rdsd_mr_find(rn, op->cookie);
	if (mr && !rdsd_mr_check(mr, &peer, op->raddr, op->bytes, write,
				 &off) &&
	    /* a list region's byte 0 need not be aligned in memory */
	    (!rdsd_op_is_atomic(op->kind) || IS_ALIGNED(off, 8))) {
		switch (op->kind) {
		case RDSD_OP_READ:
		case RDSD_OP_WRITE:
			rdsd_dma_copy_pages(rn, mr->pages, off, op->sg,
					    op->nents, op->bytes,
					    op->kind == RDSD_OP_WRITE);
			break;
		default:
			rdsd_op_result(op, rdsd_atomic_exec(mr, off, op->kind,
							    op->args));
			break;
		}
		status = RDS_RDMA_SUCCESS;
		/* the message arriving uses the region up, as over IB */
		if (!rdsd_msg_op_only(msg))
			rdsd_mr_used(mr);
	} else {
		rdsd_stat_inc(rn, rdma_refused);
	}
	rdsd_mr_put(mr);
	rdsd_op_complete(op, status);
}
