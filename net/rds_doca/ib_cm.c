// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca IB transport: connection management.
 *
 * Connections.  rdma_cm listens on the module parameter ib_port.  Either
 * end may connect; each connection attempt builds a queue pair with its
 * completion queues and rings, and tears them all down when it ends:
 *
 *             conn_connect / backoff timer
 *   DOWN -----------------------------------> ACTIVE (resolve, REQ sent)
 *    ^  \                                        |
 *    |   \ peer's REQ accepted                   | REP: ESTABLISHED
 *    |    `------------------> PASSIVE           |
 *    |                           | ESTABLISHED   v
 *    |                           `----------->  UP
 *    |                                           |
 *    `------ reset: teardown, reconnect <--------' any error, REJ,
 *            after a random, doubling delay        DISCONNECTED, device
 *                                                  removal
 *
 * When both ends connect at once, the request from the lower address wins:
 * the lower end refuses the other request (RDSD_IB_REJ_RACE), the higher
 * end abandons its own attempt and accepts.  Both ends reach the same
 * answer without talking.
 *
 * The private data of REQ and REP (struct rdsd_ib_cm_data) carries the
 * protocol version, the credits and sizes each end offers, and what each
 * end delivered of the other's stream.  A sender forgets what the peer
 * says it delivered, and sends the rest again; a receiver that meets a new
 * incarnation of its peer (the module was reloaded there) starts counting
 * that peer's sequence numbers afresh.
 *
 * Locking: tp->cm_mutex serializes everything above for one connection.
 * An rdma_cm id is never destroyed while holding it, since its event
 * handler may be waiting for the mutex: teardown detaches the id and the
 * caller destroys it afterwards.  Lock order: cm_mutex, then
 * rdsd_ib_devs_mutex (ib.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/in.h>
#include <linux/memcontrol.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "ib.h"
#include "conn.h"
#include "send.h"
#include "stats.h"
#include "transport.h"
#include "trace.h"

/* Protocol rules ----------------------------------------------------------- */

/**
 * rdsd_ib_cm_data_check - is the peer's private data usable?
 * @d: private data, may be NULL.
 * @len: its length.
 *
 * Returns 0, -EPROTO if it is not ours, -EPROTONOSUPPORT for another
 * version, or -ERANGE for credits or sizes this end cannot work with.
 */
int rdsd_ib_cm_data_check(const struct rdsd_ib_cm_data *d, u8 len)
{
	if (!d || len < sizeof(*d) || be32_to_cpu(d->magic) != RDSD_WIRE_MAGIC)
		return -EPROTO;
	if (d->version != RDSD_IB_CM_VERSION)
		return -EPROTONOSUPPORT;
	if (d->flags || !d->incarnation ||
	    memchr_inv(d->reserved, 0, sizeof(d->reserved)))
		return -EPROTO;
	/*
	 * A ring of 3 now (rdsd_ib_ack_credits()), one that grows to hold
	 * the largest message and an ack; our fragments fit.
	 */
	if (be32_to_cpu(d->credits) < 3 ||
	    be32_to_cpu(d->recv_max) < be32_to_cpu(d->credits) ||
	    be32_to_cpu(d->recv_max) < RDSD_IB_MAX_FRAGS + 2 ||
	    be32_to_cpu(d->frag_size) < RDSD_IB_FRAG_SIZE ||
	    be32_to_cpu(d->max_msg) < RDSD_MAX_MSG_SIZE ||
	    d->path >= RDSD_MAX_PATHS || !d->paths ||
	    d->paths > RDSD_MAX_PATHS)
		return -ERANGE;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_cm_data_check);

/* What rdsd_ib_cm_data_check()'s @err says of the peer, for the log. */
static const char *rdsd_ib_cm_data_why(int err)
{
	switch (err) {
	case -EPROTONOSUPPORT:
		return "protocol version not spoken";
	case -ERANGE:
		return "credits or sizes too small";
	default:
		return "private data not of this protocol";
	}
}

static void rdsd_ib_cm_data_fill(struct rdsd_ib_conn *tp,
				 struct rdsd_ib_cm_data *d, u8 reason)
{
	memset(d, 0, sizeof(*d));
	d->magic = cpu_to_be32(RDSD_WIRE_MAGIC);
	d->version = RDSD_IB_CM_VERSION;
	d->reason = reason;
	d->credits = cpu_to_be32(RDSD_IB_RECV_INIT);
	d->recv_max = cpu_to_be32(RDSD_IB_RECV_MAX);
	d->frag_size = cpu_to_be32(RDSD_IB_FRAG_SIZE);
	d->max_msg = cpu_to_be32(RDSD_MSG_SIZE_LIMIT);
	d->paths = (u8)rdsd_ib_nr_paths;
	if (!tp)
		return;
	d->path = tp->conn->path;
	d->tos = tp->conn->tos;
	d->incarnation = cpu_to_be64(tp->incarnation);
	d->peer_incarnation = cpu_to_be64(tp->peer_incarnation);
	d->rx_next = cpu_to_be64(READ_ONCE(tp->conn->next_rx_seq));
}

/*
 * The peer's private data was accepted: a new incarnation of the peer
 * numbers its messages afresh.  Nothing is being received on the
 * connection at this point.
 */
static void rdsd_ib_peer_learn(struct rdsd_ib_conn *tp,
			       const struct rdsd_ib_cm_data *d)
{
	u64 inc = be64_to_cpu(d->incarnation);

	tp->peer = *d;
	/* the paths both ends use: path 0 tells the senders */
	if (!tp->conn->path)
		WRITE_ONCE(tp->conn->npaths, min_t(u8, d->paths,
						   rdsd_ib_nr_paths));
	if (tp->peer_incarnation == inc)
		return;
	if (tp->peer_incarnation)
		pr_info("%s: peer restarted\n", tp->conn->name);
	tp->peer_incarnation = inc;
	WRITE_ONCE(tp->conn->next_rx_seq, 0);
}

/* Connection attempts ------------------------------------------------------ */

/**
 * rdsd_ib_request_reset - tear the current attempt down and reconnect
 * @tp: connection.
 * @why: enum rdsd_reset_why, for the trace.
 *
 * Any context.
 */
void rdsd_ib_request_reset(struct rdsd_ib_conn *tp, int why)
{
	trace_rdsd_conn_reset(tp->conn, why);
	WRITE_ONCE(tp->reset_gen, READ_ONCE(tp->gen));
	queue_work(rdsd_wq, &tp->reset_work);
}

static void rdsd_ib_schedule_connect(struct rdsd_ib_conn *tp)
{
	lockdep_assert_held(&tp->cm_mutex);
	if (tp->dead)
		return;
	/* nothing waits for the path: the next message connects it */
	if (!tp->peer_stale && rdsd_conn_park(tp->conn))
		return;
	queue_delayed_work(rdsd_wq, &tp->connect_work,
			   rdsd_conn_backoff(&tp->backoff_ms));
}

static void rdsd_ib_qp_event(struct ib_event *ev, void *context)
{
	struct rdsd_ib_conn *tp = context;

	switch (ev->event) {
	case IB_EVENT_COMM_EST:
		/* a message arrived before the CM's RTU: tell rdma_cm */
		rdma_notify(READ_ONCE(tp->cm_id), IB_EVENT_COMM_EST);
		break;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_PATH_MIG_ERR:
		/*
		 * Events come asynchronously: one about the queue pair of an
		 * attempt already torn down (a peer's remote access error
		 * does that) must not reset the attempt that followed.
		 */
		if (ev->element.qp != READ_ONCE(tp->qp))
			break;
		WRITE_ONCE(tp->conn->last_error, -EIO);
		pr_info_ratelimited("%s: %s, reconnecting\n",
				    tp->conn->name,
				    ib_event_msg(ev->event));
		rdsd_ib_request_reset(tp, RDSD_RESET_QP_EVENT);
		break;
	default:
		break;
	}
}

/*
 * Attempts of ours that hold rings before anyone answered: a user sending
 * to addresses nobody answers then holds at most RDSD_USER_ATTEMPTS
 * queue pairs at once, whatever max_conns allows, and all users together
 * RDSD_MAX_ATTEMPTS (conn.c).  An attempt's place is taken on route
 * resolution and given back when the peer's answer arrives or the
 * attempt is torn down (holds_attempt, under cm_mutex).
 */
static struct rdsd_attempts rdsd_ib_attempts;

/* The peer is there: allocate the buffers and post every receive. */
static int rdsd_ib_recv_ready(struct rdsd_ib_conn *tp)
{
	int ret = rdsd_ib_bufs_alloc(tp);

	return ret ? ret : rdsd_ib_recv_post_all(tp);
}

/*
 * Build everything an attempt needs on @id's device: device reference,
 * completion queues, rings, queue pair, posted receives.  cm_mutex held;
 * on failure rdsd_ib_teardown_locked() releases what was built.
 */
static int rdsd_ib_setup(struct rdsd_ib_conn *tp, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr attr = {};
	struct ib_cq *cq;
	int ret;

	ret = rdsd_ib_dev_attach(tp, id->device);
	if (ret)
		return ret;
	WRITE_ONCE(tp->atomics, tp->dev->atomics ? 1 : -1);
	tp->peer_local = rdsd_addr_local(&init_net, &tp->conn->faddr, 0);

	cq = ib_alloc_cq_any(id->device, tp, RDSD_IB_QUEUE_WRS,
			     IB_POLL_SOFTIRQ);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	tp->send_cq = cq;
	cq = ib_alloc_cq_any(id->device, tp, RDSD_IB_QUEUE_WRS,
			     IB_POLL_SOFTIRQ);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	tp->recv_cq = cq;

	ret = rdsd_ib_rings_alloc(tp);
	if (ret)
		return ret;

	attr.event_handler = rdsd_ib_qp_event;
	attr.qp_context = tp;
	attr.send_cq = tp->send_cq;
	attr.recv_cq = tp->recv_cq;
	/* one more of each for ib_drain_qp() */
	attr.cap.max_send_wr = RDSD_IB_QUEUE_WRS;
	attr.cap.max_recv_wr = RDSD_IB_QUEUE_WRS;
	attr.cap.max_send_sge = tp->dev->max_send_sge;
	attr.cap.max_recv_sge = 2;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(id, tp->dev->pd, &attr);
	if (ret)
		return ret;
	WRITE_ONCE(tp->qp, id->qp);

	/* our request: the buffers wait for the answer */
	if (tp->state == RDSD_IB_ACTIVE)
		return 0;
	return rdsd_ib_recv_ready(tp);
}

/* Free an attempt's completion queues, once their last handlers returned. */
static void rdsd_ib_cqs_free(struct ib_cq *send_cq, struct ib_cq *recv_cq)
{
	if (send_cq || recv_cq)
		rdsd_ib_cq_quiesce();
	if (send_cq)
		ib_free_cq(send_cq);
	if (recv_cq)
		ib_free_cq(recv_cq);
}

/*
 * Destroy what teardown parked in @p, and empty @p, once iw_cm holds the
 * queue pair no more: its attempt's id is destroyed, or its accept
 * failed.
 */
static void rdsd_ib_park_free(struct rdsd_ib_park *p)
{
	if (p->qp)
		ib_destroy_qp(p->qp);
	rdsd_ib_cqs_free(p->send_cq, p->recv_cq);
	if (p->dev)
		rdsd_ib_dev_unpark(p->dev);
	*p = (struct rdsd_ib_park){};
}

/*
 * Tear the current attempt down.  The order matters and every step skips
 * what does not exist, so this runs on a half-built attempt and twice:
 *
 *  1. the core stops handing messages to the transport;
 *  2. nothing more is posted (tx_ready off, rx_stopped on: a receive
 *     completion racing with the drain keeps its buffer, which would
 *     otherwise be posted behind the drain's request and still be on
 *     the queue when ib_drain_qp() returns);
 *  3. an established queue pair is disconnected: the peer hears of it
 *     and the queue pair moves to the error state;
 *  4. ib_drain_qp(): every posted work request completes (flushed) and
 *     its completion handler has run;
 *  5. the queue pair, 6. the completion queues, once their last
 *     handlers returned (rdsd_ib_cq_quiesce()), 7. the rings (send slots
 *     no completion retired give their messages back), 8. the device
 *     reference are released.
 *
 * On iWARP steps 5 and 6 wait: the connection manager holds the queue
 * pair until the id is destroyed or its connection closed, which its own
 * ordered workqueue does, perhaps behind the very event handler tearing
 * down (a connection race) or behind one waiting for cm_mutex.  The queue
 * pair and its completion queues, drained and idle, are parked instead
 * and go with the id (rdsd_ib_retire_id(), rdsd_ib_old_free()).
 *
 * Messages stay on the connection's retransmit list: they are sent again
 * when the next attempt is up.  Returns the attempt's rdma_cm id, which
 * the caller destroys after dropping cm_mutex.
 */
static struct rdma_cm_id *rdsd_ib_teardown_locked(struct rdsd_ib_conn *tp)
{
	struct rdma_cm_id *id = tp->cm_id;

	lockdep_assert_held(&tp->cm_mutex);

	rdsd_attempt_put(&rdsd_ib_attempts, tp->uid, &tp->holds_attempt);
	rdsd_conn_down(tp->conn);
	rdsd_ib_tx_stop(tp);
	if (tp->qp) {
		/*
		 * The DREQ would cost a Soft-RoCE device its GSI QP.  Without
		 * it the peer may keep its end up, waiting for what we owed:
		 * we must reach it again, even with nothing to send.
		 */
		if (tp->state == RDSD_IB_UP) {
			if (rdsd_ib_path_usable(tp->conn))
				rdma_disconnect(id);
			else
				tp->peer_stale = true;
		}
		ib_drain_qp(tp->qp);
		if (tp->dev->iwarp && !WARN_ON_ONCE(tp->park.qp)) {
			tp->park = (struct rdsd_ib_park){
				.qp = tp->qp,
				.send_cq = tp->send_cq,
				.recv_cq = tp->recv_cq,
				.dev = tp->dev,
			};
			rdsd_ib_dev_park(tp->dev);
			tp->send_cq = NULL;
			tp->recv_cq = NULL;
		} else {
			rdma_destroy_qp(id);
		}
		WRITE_ONCE(tp->qp, NULL);
	}
	rdsd_ib_cqs_free(tp->send_cq, tp->recv_cq);
	tp->send_cq = NULL;
	tp->recv_cq = NULL;
	if (tp->dev) {
		rdsd_ib_rings_free(tp);
		rdsd_ib_dev_detach(tp);
	}
	WRITE_ONCE(tp->cm_id, NULL);
	tp->state = RDSD_IB_DOWN;
	return id;
}

/**
 * struct rdsd_ib_old_id - the rdma_cm id of an abandoned attempt
 * @node: on rdsd_ib_conn.old_ids (cm_mutex).
 * @id: the id; its context still points at the connection, so it is
 *	destroyed before the connection is freed; NULL when only @park is
 *	left.
 * @force: its device is going away: destroy it even if the path is down.
 * @park: iWARP: the attempt's queue pair and completion queues, destroyed
 *	after @id (see rdsd_ib_teardown_locked()).
 */
struct rdsd_ib_old_id {
	struct list_head	node;
	struct rdma_cm_id	*id;
	bool			force;
	struct rdsd_ib_park	park;
};

/* @id and what teardown parked, for rdsd_ib_old_free().  cm_mutex held. */
static struct rdsd_ib_old_id *rdsd_ib_old_new(struct rdsd_ib_conn *tp,
					      struct rdma_cm_id *id)
{
	struct rdsd_ib_old_id *old;

	lockdep_assert_held(&tp->cm_mutex);
	if (!id && !tp->park.qp)
		return NULL;
	old = kmalloc(sizeof(*old), GFP_KERNEL | __GFP_NOFAIL);
	old->id = id;
	old->force = false;
	old->park = tp->park;
	tp->park = (struct rdsd_ib_park){};
	return old;
}

/*
 * Destroy @old's id, then the queue pair and completion queues that
 * waited for it: no lock held, not in an event handler.
 */
static void rdsd_ib_old_free(struct rdsd_ib_old_id *old)
{
	if (!old)
		return;
	if (old->id)
		rdma_destroy_id(old->id);
	rdsd_ib_park_free(&old->park);
	kfree(old);
}

/* Have @id destroyed by the reaper: an event handler may be holding it. */
static void rdsd_ib_retire_id(struct rdsd_ib_conn *tp, struct rdma_cm_id *id)
{
	struct rdsd_ib_old_id *old = rdsd_ib_old_new(tp, id);

	if (!old)
		return;
	list_add_tail(&old->node, &tp->old_ids);
	mod_delayed_work(rdsd_wq, &tp->reap_work, 0);
}

/* @id's device goes away: the reaper must not keep it.  cm_mutex held. */
static void rdsd_ib_retire_now(struct rdsd_ib_conn *tp, struct rdma_cm_id *id)
{
	struct rdsd_ib_old_id *old;

	lockdep_assert_held(&tp->cm_mutex);
	list_for_each_entry(old, &tp->old_ids, node)
		if (old->id == id)
			old->force = true;
	mod_delayed_work(rdsd_wq, &tp->reap_work, 0);
}

/*
 * Destroy the ids of abandoned attempts; while the path is down (see
 * rdsd_ib_path_usable()) keep those whose device stays and look again
 * later, unless the connection is shutting down.
 */
static void rdsd_ib_reap(struct rdsd_ib_conn *tp)
{
	struct rdsd_ib_old_id *old, *tmp;
	bool all, kept = false;
	LIST_HEAD(list);

	mutex_lock(&tp->cm_mutex);
	all = tp->dead || rdsd_ib_path_usable(tp->conn);
	list_for_each_entry_safe(old, tmp, &tp->old_ids, node) {
		if (all || old->force ||
		    (old->park.dev && READ_ONCE(old->park.dev->dying)))
			list_move_tail(&old->node, &list);
		else
			kept = true;
	}
	if (kept)
		mod_delayed_work(rdsd_wq, &tp->reap_work,
				 msecs_to_jiffies(RDSD_IB_PARK_POLL_MS));
	mutex_unlock(&tp->cm_mutex);
	list_for_each_entry_safe(old, tmp, &list, node)
		rdsd_ib_old_free(old);
}

static void rdsd_ib_reap_worker(struct work_struct *work)
{
	rdsd_ib_reap(container_of(to_delayed_work(work), struct rdsd_ib_conn,
				  reap_work));
}

static void rdsd_ib_reset_worker(struct work_struct *work)
{
	struct rdsd_ib_conn *tp = container_of(work, struct rdsd_ib_conn,
					       reset_work);

	mutex_lock(&tp->cm_mutex);
	if (!tp->dead && READ_ONCE(tp->reset_gen) == tp->gen &&
	    tp->state != RDSD_IB_DOWN) {
		if (tp->state == RDSD_IB_UP)
			rdsd_stat_inc(tp->conn->rn, conn_reset);
		/* the reaper destroys the id once the path allows it */
		rdsd_ib_retire_id(tp, rdsd_ib_teardown_locked(tp));
		rdsd_ib_schedule_connect(tp);
	}
	mutex_unlock(&tp->cm_mutex);
}

static void rdsd_ib_connect_worker(struct work_struct *work)
{
	struct rdsd_ib_conn *tp = container_of(to_delayed_work(work),
					       struct rdsd_ib_conn,
					       connect_work);
	struct rdsd_conn *conn = tp->conn;
	struct sockaddr_storage src, dst;
	struct rdma_cm_id *id;
	int ret;

	rdsd_sockaddr_put(&src, &conn->laddr, 0, conn->scope);
	rdsd_sockaddr_put(&dst, &conn->faddr, htons(rdsd_ib_listen_port()),
			  conn->scope);
	mutex_lock(&tp->cm_mutex);
	if (tp->dead || tp->state != RDSD_IB_DOWN)
		goto out;
	if (!rdsd_ib_path_usable(conn)) {
		/* no attempt while it lasts: nothing waits for closed sockets */
		rdsd_send_drop_orphans(conn);
		rdsd_ib_schedule_connect(tp);
		goto out;
	}

	id = rdma_create_id(&init_net, rdsd_ib_cm_handler, tp, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		rdsd_ib_schedule_connect(tp);
		goto out;
	}
	tp->gen++;
	tp->attempts++;
	tp->state = RDSD_IB_ACTIVE;
	WRITE_ONCE(tp->cm_id, id);
	/*
	 * Bound first: a device removal that comes between binding and
	 * resolving then fails the resolution (-EINVAL) rather than tripping
	 * rdma_cm's check of the state it left the identifier in.
	 */
	ret = rdma_bind_addr(id, (struct sockaddr *)&src);
	if (!ret)
		ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
					RDSD_IB_RESOLVE_MS);
	if (ret) {
		rdsd_ib_retire_id(tp, rdsd_ib_teardown_locked(tp));
		rdsd_ib_schedule_connect(tp);
	}
out:
	mutex_unlock(&tp->cm_mutex);
}

static void rdsd_ib_conn_param(struct rdsd_ib_conn *tp,
			       struct rdma_conn_param *p,
			       struct rdsd_ib_cm_data *data)
{
	memset(p, 0, sizeof(*p));
	p->private_data = data;
	p->private_data_len = sizeof(*data);
	/* RDMA reads and atomics need both, in either direction */
	p->responder_resources = tp->dev->rd_atom;
	p->initiator_depth = tp->dev->rd_atom;
	p->retry_count = 7;
	/* credits keep receives ready; this only covers a slow peer CPU */
	p->rnr_retry_count = 7;
}

/* Route resolved: build the queue pair and send our request. */
static int rdsd_ib_connect_locked(struct rdsd_ib_conn *tp,
				  struct rdma_cm_id *id)
{
	struct rdsd_ib_cm_data data;
	struct rdma_conn_param p;
	int ret;

	ret = rdsd_ib_setup(tp, id);
	if (ret)
		return ret;
	rdsd_ib_cm_data_fill(tp, &data, RDSD_IB_REJ_NONE);
	rdsd_ib_conn_param(tp, &p, &data);
	return rdma_connect_locked(id, &p);
}

/*
 * Both ends agree the connection is up: resend what was not delivered.
 * Returns 0, or -EPROTO when the peer's private data acknowledges a
 * message never sent (rdsd_send_acked() counted it): the caller resets.
 */
static int rdsd_ib_established(struct rdsd_ib_conn *tp)
{
	struct rdsd_conn *conn = tp->conn;
	u64 rx_next = be64_to_cpu(tp->peer.rx_next);

	if (be64_to_cpu(tp->peer.peer_incarnation) == tp->incarnation &&
	    rx_next && rdsd_send_acked(conn, rx_next - 1)) {
		WRITE_ONCE(conn->last_error, -EPROTO);
		pr_info_ratelimited("%s: peer acknowledges %llu, never sent\n",
				    conn->name, rx_next - 1);
		return -EPROTO;
	}
	if (tp->state == RDSD_IB_ACTIVE) {
		/* the peer sends nothing before our first message */
		int ret = rdsd_ib_recv_ready(tp);

		if (ret)
			return ret;
		rdsd_attempt_put(&rdsd_ib_attempts, tp->uid,
				 &tp->holds_attempt);
		rdsd_ib_tx_start(tp, &tp->peer);
	}
	tp->state = RDSD_IB_UP;
	tp->backoff_ms = 0;
	rdsd_conn_requeue_unacked(conn);
	rdsd_conn_up(conn);
	return 0;
}

static void rdsd_ib_reject(struct rdma_cm_id *id, struct rdsd_ib_conn *tp,
			   u8 reason)
{
	struct rdsd_ib_cm_data data;

	rdsd_ib_cm_data_fill(tp, &data, reason);
	rdma_reject(id, &data, sizeof(data), IB_CM_REJ_CONSUMER_DEFINED);
}

/*
 * What to do with the peer's request on a connection in @tp's state:
 * RDSD_IB_REJ_NONE to accept, else the reason to refuse.  cm_mutex held.
 */
static u8 rdsd_ib_req_verdict(struct rdsd_ib_conn *tp)
{
	struct rdsd_conn *conn = tp->conn;

	if (tp->dead)
		return RDSD_IB_REJ_NOTREADY;
	switch (tp->state) {
	case RDSD_IB_DOWN:
		return RDSD_IB_REJ_NONE;
	case RDSD_IB_ACTIVE:
		return rdsd_conn_lower_wins(&conn->laddr, &conn->faddr) ?
			RDSD_IB_REJ_RACE : RDSD_IB_REJ_NONE;
	case RDSD_IB_UP:
		/* the peer lost the connection before we noticed */
		rdsd_ib_request_reset(tp, RDSD_RESET_PEER);
		return RDSD_IB_REJ_STALE;
	default:
		return RDSD_IB_REJ_STALE;
	}
}

/* A peer's connection request on the listener; @id is the new id. */
static int rdsd_ib_cm_req(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	const struct rdsd_ib_cm_data *d = ev->param.conn.private_data;
	struct in6_addr laddr, faddr;
	struct rdsd_ib_cm_data data;
	struct rdma_conn_param p;
	struct rdsd_ib_conn *tp;
	struct rdsd_conn *conn;
	int ret, scope;
	u8 reason;

	ret = rdsd_ib_cm_data_check(d, ev->param.conn.private_data_len);
	if (ret) {
		rdsd_stat_inc(rdsd_net(&init_net), recv_proto_error);
		pr_info_ratelimited("refusing a connection: %s\n",
				    rdsd_ib_cm_data_why(ret));
		rdsd_ib_reject(id, NULL, ret == -ERANGE ? RDSD_IB_REJ_LIMITS :
						      RDSD_IB_REJ_VERSION);
		return 1;	/* rdma_cm destroys @id */
	}
	/* the link of link-local addresses: the one the request came in on */
	if (rdsd_peer_addrs(&id->route.addr.src_addr,
			    &id->route.addr.dst_addr,
			    id->route.addr.dev_addr.bound_dev_if, &laddr,
			    &faddr, &scope)) {
		rdsd_ib_reject(id, NULL, RDSD_IB_REJ_NOTREADY);
		return 1;
	}

	/*
	 * Made for a peer: no user to charge.  Bounded by max_conns (beyond
	 * it find_create fails, counted in conn_limit, and we refuse) and
	 * freed by the reaper once idle.
	 */
	conn = rdsd_conn_find_create(rdsd_net(&init_net), &rdsd_ib_transport,
				     &laddr, &faddr, scope, d->path, d->tos,
				     GFP_KERNEL);
	if (IS_ERR(conn)) {
		rdsd_ib_reject(id, NULL, RDSD_IB_REJ_NOTREADY);
		return 1;
	}
	tp = conn->tp;

	mutex_lock(&tp->cm_mutex);
	reason = rdsd_ib_req_verdict(tp);
	if (reason) {
		rdsd_ib_reject(id, tp, reason);
		ret = 1;
		goto out;
	}
	/* we lost a connection race, or were idle: drop our own attempt */
	rdsd_ib_retire_id(tp, rdsd_ib_teardown_locked(tp));
	cancel_delayed_work(&tp->connect_work);
	tp->peer_stale = false;	/* it connects: it knows */

	tp->gen++;
	tp->state = RDSD_IB_PASSIVE;
	WRITE_ONCE(tp->cm_id, id);
	id->context = tp;
	ret = rdsd_ib_setup(tp, id);
	if (!ret) {
		rdsd_ib_peer_learn(tp, d);
		/* sends wait until the peer speaks: then it is ready */
		rdsd_ib_tx_arm(tp, d);
		rdsd_ib_cm_data_fill(tp, &data, RDSD_IB_REJ_NONE);
		rdsd_ib_conn_param(tp, &p, &data);
		p.responder_resources = min(p.responder_resources,
					    ev->param.conn.initiator_depth);
		p.initiator_depth = min(p.initiator_depth,
					ev->param.conn.responder_resources);
		ret = rdma_accept(id, &p);
	}
	if (ret) {
		pr_info_ratelimited("%s: cannot accept: %d\n",
				    conn->name, ret);
		rdsd_ib_teardown_locked(tp);
		/*
		 * rdma_cm destroys @id; a failed accept left the queue pair
		 * to us alone, so it goes here
		 */
		rdsd_ib_park_free(&tp->park);
		id->context = NULL;
		rdsd_ib_schedule_connect(tp);
		ret = 1;
	}
out:
	mutex_unlock(&tp->cm_mutex);
	rdsd_conn_put(conn);
	return ret;
}

/* The peer refused our request: why, as it said it, for the trace. */
static void rdsd_ib_trace_reject(struct rdsd_ib_conn *tp,
				 struct rdma_cm_id *id,
				 struct rdma_cm_event *ev)
{
	static const char * const why[] = {
		[RDSD_IB_REJ_VERSION]	= "protocol version not spoken",
		[RDSD_IB_REJ_LIMITS]	= "credits or sizes refused",
		[RDSD_IB_REJ_RACE]	= "connection race, the peer connects",
		[RDSD_IB_REJ_STALE]	= "peer still had a connection",
		[RDSD_IB_REJ_NOTREADY]	= "peer not ready",
	};
	const struct rdsd_ib_cm_data *d;
	u8 len = 0;

	d = rdma_consumer_reject_data(id, ev, &len);
	if (d && len >= offsetofend(struct rdsd_ib_cm_data, reason) &&
	    be32_to_cpu(d->magic) == RDSD_WIRE_MAGIC &&
	    d->reason < ARRAY_SIZE(why) && why[d->reason]) {
		trace_rdsd_ib_reject(tp->conn, why[d->reason]);
		return;
	}
	trace_rdsd_ib_reject(tp->conn, rdma_reject_msg(id, ev->status));
}

int rdsd_ib_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rdsd_ib_conn *tp = id->context;
	int ret = 0;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return rdsd_ib_cm_req(id, ev);
	if (!tp)
		return 0;	/* the listener */

	mutex_lock(&tp->cm_mutex);
	trace_rdsd_ib_cm_event(tp->conn, rdma_event_msg(ev->event), ev->status);
	if (id != tp->cm_id) {
		/* an abandoned attempt; the reaper has it */
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			rdsd_ib_retire_now(tp, id);
		goto out;
	}

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		/* the lane's service level (IB), traffic class (RoCE) */
		rdma_set_service_type(id, tp->conn->tos);
		ret = rdma_resolve_route(id, RDSD_IB_RESOLVE_MS);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		/* the REQ must not go out on a path that just went down */
		if (!rdsd_ib_path_usable(tp->conn)) {
			ret = -ENETUNREACH;
		} else if (!rdsd_attempt_get(&rdsd_ib_attempts, tp->conn->rn,
					     tp->uid, &tp->holds_attempt)) {
			/* too many wait for answers: try again later */
			rdsd_ib_retire_id(tp, rdsd_ib_teardown_locked(tp));
			rdsd_ib_schedule_connect(tp);
		} else {
			ret = rdsd_ib_connect_locked(tp, id);
		}
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (tp->state == RDSD_IB_ACTIVE) {
			const struct rdma_conn_param *c = &ev->param.conn;

			ret = rdsd_ib_cm_data_check(c->private_data,
						    c->private_data_len);
			/* the peer answers for the path and lane we asked */
			if (!ret && (((const struct rdsd_ib_cm_data *)
				      c->private_data)->path != tp->conn->path ||
				     ((const struct rdsd_ib_cm_data *)
				      c->private_data)->tos != tp->conn->tos))
				ret = -EPROTO;
			if (ret) {
				rdsd_stat_inc(tp->conn->rn, recv_proto_error);
				pr_info_ratelimited("%s: peer's answer refused: %s\n",
						    tp->conn->name,
						    rdsd_ib_cm_data_why(ret));
				break;
			}
			rdsd_ib_peer_learn(tp, c->private_data);
		}
		tp->peer_stale = false;
		ret = rdsd_ib_established(tp);
		break;
	case RDMA_CM_EVENT_REJECTED:
		/* the peer heard us: an end of its that was up is reset */
		tp->peer_stale = false;
		rdsd_ib_trace_reject(tp, id, ev);
		ret = -ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		ret = -ECONNRESET;
		break;
	default:
		break;
	}
	if (ret)
		rdsd_ib_request_reset(tp, RDSD_RESET_CM);
out:
	mutex_unlock(&tp->cm_mutex);
	return 0;	/* ids are ours to destroy */
}

/* Transport operations on connections ------------------------------------- */

int rdsd_ib_conn_alloc(struct rdsd_conn *conn, gfp_t gfp)
{
	struct rdsd_ib_conn *tp;

	tp = kzalloc(sizeof(*tp), gfp);
	if (!tp)
		return -ENOMEM;
	tp->conn = conn;
	/* a sender's connection: its rings are charged where it was */
	tp->uid = INVALID_UID;
	if (gfp & __GFP_ACCOUNT) {
		tp->memcg = get_mem_cgroup_from_mm(current->mm);
		tp->uid = current_uid();
	}
	mutex_init(&tp->cm_mutex);
	tp->state = RDSD_IB_DOWN;
	INIT_LIST_HEAD(&tp->old_ids);
	INIT_LIST_HEAD(&tp->dev_item);
	INIT_DELAYED_WORK(&tp->connect_work, rdsd_ib_connect_worker);
	INIT_WORK(&tp->reset_work, rdsd_ib_reset_worker);
	INIT_DELAYED_WORK(&tp->reap_work, rdsd_ib_reap_worker);
	INIT_DELAYED_WORK(&tp->ack_work, rdsd_ib_ack_worker);
	INIT_WORK(&tp->cong_work, rdsd_ib_cong_worker);
	INIT_DELAYED_WORK(&tp->grow_work, rdsd_ib_grow_worker);
	tp->incarnation = get_random_u64() | 1;
	spin_lock_init(&tp->send_lock);
	conn->tp = tp;
	return 0;
}

void rdsd_ib_conn_free(struct rdsd_conn *conn)
{
	struct rdsd_ib_conn *tp = conn->tp;

	WARN_ON_ONCE(tp->cm_id || tp->dev || tp->park.qp ||
		     !list_empty(&tp->old_ids));
	mutex_destroy(&tp->cm_mutex);
	mem_cgroup_put(tp->memcg);
	kfree(tp);
	conn->tp = NULL;
}

int rdsd_ib_conn_connect(struct rdsd_conn *conn)
{
	struct rdsd_ib_conn *tp = conn->tp;

	queue_delayed_work(rdsd_wq, &tp->connect_work, 0);
	return 0;
}

/*
 * ->conn_shutdown: no attempt survives and no work item runs afterwards.
 * Safe to call twice.
 */
void rdsd_ib_conn_shutdown(struct rdsd_conn *conn)
{
	struct rdsd_ib_conn *tp = conn->tp;
	struct rdsd_ib_old_id *old;

	mutex_lock(&tp->cm_mutex);
	tp->dead = true;
	old = rdsd_ib_old_new(tp, rdsd_ib_teardown_locked(tp));
	mutex_unlock(&tp->cm_mutex);
	rdsd_ib_old_free(old);

	cancel_work_sync(&tp->cong_work);	/* it may start a connect */
	cancel_delayed_work_sync(&tp->connect_work);
	cancel_work_sync(&tp->reset_work);
	cancel_delayed_work_sync(&tp->ack_work);
	cancel_delayed_work_sync(&tp->grow_work);
	cancel_delayed_work_sync(&tp->reap_work);
	rdsd_ib_reap(tp);	/* dead: every id goes */
}

/* ->conn_info: the device, port and queue pair of the current attempt. */
void rdsd_ib_conn_info(struct rdsd_conn *conn, struct rdsd_conn_info *ci)
{
	struct rdsd_ib_conn *tp = conn->tp;

	mutex_lock(&tp->cm_mutex);
	if (tp->dev)
		strscpy(ci->dev, dev_name(&tp->dev->ibdev->dev),
			sizeof(ci->dev));
	if (tp->cm_id && tp->qp)
		ci->port = tp->cm_id->port_num;
	if (tp->qp) {
		union ib_gid sgid, dgid;

		ci->qpn = tp->qp->qp_num;
		ci->max_send_wr = RDSD_IB_SEND_SLOTS;
		ci->max_recv_wr = RDSD_IB_RECV_MAX;
		ci->recv_bufs = tp->recv_nr;
		ci->has_recv_bufs = true;
		ci->max_send_sge = tp->dev->max_send_sge;
		ci->mr_max = tp->dev->ibdev->attrs.max_mr;
		ci->mr_size = tp->dev->max_frmr_pages;
		if (tp->cm_id) {
			rdma_read_gids(tp->cm_id, &sgid, &dgid);
			memcpy(ci->sgid, sgid.raw, sizeof(ci->sgid));
			memcpy(ci->dgid, dgid.raw, sizeof(ci->dgid));
			if (tp->cm_id->route.path_rec)
				ci->sl = tp->cm_id->route.path_rec->sl;
		}
	}
	mutex_unlock(&tp->cm_mutex);

	spin_lock_bh(&tp->send_lock);
	ci->credits = tp->credits.avail;
	spin_unlock_bh(&tp->send_lock);
	ci->has_credits = true;
}

/* ->conn_drop: reset the path as a failure would; it reconnects. */
int rdsd_ib_conn_drop(struct rdsd_conn *conn)
{
	WRITE_ONCE(conn->last_error, -ECONNRESET);
	rdsd_ib_request_reset(conn->tp, RDSD_RESET_DROP);
	return 0;
}

/*
 * ->conn_idle: every message delivered was acknowledged (an ack is posted
 * as soon as rx_unacked is non-zero, and the core waits conn_idle_secs
 * more before it frees the connection) and none is half received.  A path
 * that went down with messages unacknowledged keeps the connection: the
 * peer sends them again to it, and its reconnect handshake carries what
 * was delivered (rx_next), which a successor could not.
 */
bool rdsd_ib_conn_idle(struct rdsd_conn *conn)
{
	struct rdsd_ib_conn *tp = conn->tp;
	bool idle;

	spin_lock_bh(&tp->send_lock);
	idle = !tp->rx_unacked && !READ_ONCE(tp->rx_active);
	spin_unlock_bh(&tp->send_lock);
	return idle;
}
