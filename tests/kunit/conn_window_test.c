// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_conn_window (conn.c): the retransmit window across
 * a path reset.
 *
 * The IB transport loses its queue pair on any error and builds a new
 * one: teardown calls rdsd_conn_down(), and once the new path is
 * established it acknowledges what the peer's private data says was
 * delivered, then calls rdsd_conn_requeue_unacked() and rdsd_conn_up().
 * These cases drive that sequence on a real connection, created by
 * rdsd_conn_find_create() in a connection table of the test's own (so
 * rdsd_conn_net_exit() can destroy it), over a transport whose ->xmit
 * records the sequence numbers it is handed and can refuse one message
 * with -EAGAIN, resetting the path, bringing it back up or letting
 * another sender in while it does, be acknowledged while it is being
 * sent, or find its path replaced since the message was taken.  The
 * last cases check that every pass ends with one ->xmit_flush, and that
 * rdsd_conn_send() leaves the sending to the worker only on a batching
 * transport with messages in flight.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "rdsd.h"
#include "kunit_util.h"
#include "transport.h"
#include "stats.h"
#include "cong.h"
#include "conn.h"
#include "message.h"
#include "send.h"

#define WIN_LADDR	(&TEST_IN6(htonl(0x7f4e0001)))	/* 127.78.0.1 */
#define WIN_FADDR	(&TEST_IN6(htonl(0x7f4e0002)))
#define WIN_FADDR2	(&TEST_IN6(htonl(0x7f4e0003)))
#define WIN_LOG		64

/* What happened to a connection's transport state, kept by the case. */
struct win_counts {
	unsigned int	shutdowns;
	unsigned int	freed;
};

/**
 * struct win_tp - the test transport's state of a connection (conn->tp)
 * @sent: sequence numbers handed to ->xmit and accepted, in order.
 * @nsent: entries in @sent.
 * @overflow: more were accepted than @sent holds.
 * @refuse: refuse the message numbered @refuse_seq once.
 * @refuse_seq: see @refuse.
 * @reset_on_refuse: the path fails while that message is being sent:
 *	rdsd_conn_down() and rdsd_conn_requeue_unacked() before -EAGAIN.
 * @up_on_refuse: then the new path comes up, and the kick of
 *	rdsd_conn_up() runs before -EAGAIN is returned.  ->xmit sleeps for
 *	it, so only set it when the case itself calls rdsd_conn_xmit().
 * @send_on_refuse: another sender (a sendmsg) runs rdsd_conn_xmit()
 *	while the refusal is under way.
 * @done: ->xmit returns RDSD_XMIT_DONE for the message numbered
 *	@done_seq, which then holds nothing for the peer.
 * @done_seq: see @done.
 * @ack: while the message numbered @ack_seq is being sent, before
 *	anything else ->xmit does, the peer acknowledges it and everything
 *	before it, as a peer that lies or a very fast one may.
 * @ack_seq: see @ack.
 * @ack_ret: what rdsd_send_acked() returned then.
 * @ack_refs: the message's references right after that ack.
 * @ack_on_conn: RDSD_MSG_ON_CONN right after that ack.
 * @swap: the path fails and the next one comes up while the message
 *	numbered @swap_seq is on its way to ->xmit, before the transport
 *	looks at its path (the kick of rdsd_conn_up() finds the connection
 *	busy).  ->xmit waits for that kick, so only set it when the case
 *	itself calls rdsd_conn_xmit().
 * @swap_seq: see @swap.
 * @stale: messages ->xmit refused because they were taken for a path
 *	lost since (rdsd_conn_xmit_stale()), as the transports refuse them.
 * @counts: where ->conn_shutdown and ->conn_free are counted, if set.
 * @by_worker: the send of the same index in @sent came from the
 *	connection's worker, not from the caller.
 * @flushes: ->xmit_flush calls.
 * @flush_at: @nsent at the last of them.
 */
struct win_tp {
	u64		sent[WIN_LOG];
	unsigned int	nsent;
	bool		overflow;
	bool		refuse;
	u64		refuse_seq;
	bool		reset_on_refuse;
	bool		up_on_refuse;
	bool		send_on_refuse;
	bool		done;
	u64		done_seq;
	bool		ack;
	u64		ack_seq;
	int		ack_ret;
	unsigned int	ack_refs;
	bool		ack_on_conn;
	bool		swap;
	u64		swap_seq;
	unsigned int	stale;
	struct win_counts *counts;
	bool		by_worker[WIN_LOG];
	unsigned int	flushes;
	unsigned int	flush_at;
};

static int win_laddr_check(struct net *net, const struct in6_addr *addr,
			   int scope)
{
	return -EADDRNOTAVAIL;
}

static int win_conn_alloc(struct rdsd_conn *conn, gfp_t gfp)
{
	struct win_tp *tp = kzalloc(sizeof(*tp), gfp);

	if (!tp)
		return -ENOMEM;
	conn->tp = tp;
	return 0;
}

static void win_conn_free(struct rdsd_conn *conn)
{
	struct win_tp *tp = conn->tp;

	if (tp->counts)
		tp->counts->freed++;
	kfree(tp);
}

static int win_conn_connect(struct rdsd_conn *conn)
{
	return 0;
}

static void win_conn_shutdown(struct rdsd_conn *conn)
{
	struct win_tp *tp = conn->tp;

	if (tp->counts)
		tp->counts->shutdowns++;
}

static int win_xmit(struct rdsd_conn *conn, struct rdsd_msg *msg)
{
	struct win_tp *tp = conn->tp;

	if (tp->ack && msg->seq == tp->ack_seq) {
		tp->ack = false;
		tp->ack_ret = rdsd_send_acked(conn, msg->seq);
		/* @msg must still be ours to look at */
		tp->ack_refs = refcount_read(&msg->refs);
		tp->ack_on_conn = test_bit(RDSD_MSG_ON_CONN, &msg->flags);
	}
	if (tp->swap && msg->seq == tp->swap_seq) {
		tp->swap = false;
		rdsd_conn_down(conn);
		rdsd_conn_requeue_unacked(conn);
		rdsd_conn_up(conn);
		flush_work(&conn->xmit_work);
	}
	/* as every transport does once it knows its path is up */
	if (rdsd_conn_xmit_stale(conn)) {
		tp->stale++;
		return -EAGAIN;
	}
	if (tp->refuse && msg->seq == tp->refuse_seq) {
		tp->refuse = false;
		if (tp->reset_on_refuse) {
			rdsd_conn_down(conn);
			rdsd_conn_requeue_unacked(conn);
		}
		/* these find the connection busy: they must not be lost */
		if (tp->up_on_refuse) {
			rdsd_conn_up(conn);
			flush_work(&conn->xmit_work);
		}
		if (tp->send_on_refuse)
			rdsd_conn_xmit(conn);
		return -EAGAIN;
	}
	if (tp->nsent == WIN_LOG) {
		tp->overflow = true;
		return 0;
	}
	tp->by_worker[tp->nsent] = current_work() == &conn->xmit_work;
	tp->sent[tp->nsent++] = msg->seq;
	if (tp->done && msg->seq == tp->done_seq)
		return RDSD_XMIT_DONE;
	return 0;
}

static void win_xmit_flush(struct rdsd_conn *conn)
{
	struct win_tp *tp = conn->tp;

	tp->flushes++;
	tp->flush_at = tp->nsent;
}

/* Everything but the name and the features, shared by both transports. */
#define WIN_OPS						\
	.type		= -1,				\
	.laddr_check	= win_laddr_check,		\
	.conn_alloc	= win_conn_alloc,		\
	.conn_free	= win_conn_free,		\
	.conn_connect	= win_conn_connect,		\
	.conn_shutdown	= win_conn_shutdown,		\
	.xmit		= win_xmit,			\
	.xmit_flush	= win_xmit_flush,		\
	.max_msg	= RDSD_MAX_MSG_SIZE

static const struct rdsd_transport_ops win_transport = {
	.name		= "kunit",
	WIN_OPS,
};

/* The same, writing in batches as the TCP transport does. */
static const struct rdsd_transport_ops win_batch_transport = {
	.name		= "kunit-batch",
	WIN_OPS,
	.features	= RDSD_TRANS_F_BATCH,
};

/**
 * struct win - one case's connection
 * @rn: a connection table and counters, as a namespace has them.
 * @conn: the connection, with the reference rdsd_conn_find_create() gave.
 * @tp: its transport state.
 * @counts: calls into the transport state.
 * @destroyed: the case destroyed the connection itself.
 */
struct win {
	struct rdsd_net		*rn;
	struct rdsd_conn	*conn;
	struct win_tp		*tp;
	struct win_counts	counts;
	bool			destroyed;
};

static int win_init(struct kunit *test)
{
	struct rdsd_conn *conn;
	struct rdsd_net *rn;
	struct win *w;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	test->priv = w;
	rn = test_net_alloc(test);
	if (!rn)
		return -ENOMEM;
	w->rn = rn;

	conn = rdsd_conn_find_create(rn, &win_transport, WIN_LADDR, WIN_FADDR,
				     0, 0, 0, GFP_KERNEL);
	if (IS_ERR(conn))
		return PTR_ERR(conn);
	w->conn = conn;
	w->tp = conn->tp;
	w->tp->counts = &w->counts;
	rdsd_conn_up(conn);	/* the first path; nothing to kick yet */
	return 0;
}

/* Destroy the connection as the namespace would, and check it is gone. */
static void win_destroy(struct kunit *test, struct win *w)
{
	rdsd_conn_put(w->conn);	/* rdsd_conn_find_create()'s */
	rdsd_conn_net_exit(w->rn);
	w->destroyed = true;
	KUNIT_EXPECT_GE(test, w->counts.shutdowns, 1U);
	KUNIT_EXPECT_EQ(test, w->counts.freed, 1U);
	KUNIT_EXPECT_EQ(test, w->rn->nr_cong_maps, 0U);
}

static void win_exit(struct kunit *test)
{
	struct win *w = test->priv;

	if (!w || !w->rn)
		return;
	if (w->conn && !w->destroyed)
		win_destroy(test, w);
	test_net_free(w->rn);
}

/* Queue @n messages as sendmsg() does. */
static void win_queue(struct kunit *test, struct rdsd_conn *conn, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct rdsd_msg *msg = rdsd_msg_alloc(32, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, msg);
		spin_lock_bh(&conn->lock);
		msg->conn = conn;
		msg->seq = conn->next_tx_seq++;
		list_add_tail(&msg->conn_item, &conn->send_queue);
		set_bit(RDSD_MSG_ON_CONN, &msg->flags);
		spin_unlock_bh(&conn->lock);
	}
}

/* Queue @n messages and send them, as sendmsg() does. */
static void win_send(struct kunit *test, struct rdsd_conn *conn, int n)
{
	win_queue(test, conn, n);
	rdsd_conn_xmit(conn);
}

/* Bring the path up and wait until what it kicked off has run. */
static void win_up(struct rdsd_conn *conn)
{
	rdsd_conn_up(conn);
	flush_work(&conn->xmit_work);
}

/* The path fails and comes back, as ib_cm.c goes through it. */
static void win_reset(struct rdsd_conn *conn, u64 peer_delivered_below)
{
	rdsd_conn_down(conn);
	if (peer_delivered_below)
		rdsd_send_acked(conn, peer_delivered_below - 1);
	rdsd_conn_requeue_unacked(conn);
	win_up(conn);
}

/* Expect the transport to have been handed @want since entry @from. */
static void win_expect_sent(struct kunit *test, struct win *w,
			    unsigned int from, const u64 *want,
			    unsigned int n)
{
	unsigned int i;

	KUNIT_EXPECT_FALSE(test, w->tp->overflow);
	KUNIT_ASSERT_EQ(test, w->tp->nsent - from, n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, w->tp->sent[from + i], want[i],
				    "send %u after entry %u", i, from);
}

/*
 * Expect the retransmit list (@sent) or the send queue to hold exactly
 * @want, in order, each with RDSD_MSG_SENT set on the retransmit list and
 * clear on the send queue.
 */
static void win_expect_list(struct kunit *test, struct win *w, bool sent,
			    const u64 *want, unsigned int n)
{
	struct list_head *list = sent ? &w->conn->retrans :
					&w->conn->send_queue;
	u64 seq[WIN_LOG];
	bool flag[WIN_LOG];
	struct rdsd_msg *msg;
	unsigned int i = 0, len;

	/* copied under the lock, checked outside it: a failure may sleep */
	spin_lock_bh(&w->conn->lock);
	list_for_each_entry(msg, list, conn_item) {
		if (i < WIN_LOG) {
			seq[i] = msg->seq;
			flag[i] = test_bit(RDSD_MSG_SENT, &msg->flags);
		}
		i++;
	}
	spin_unlock_bh(&w->conn->lock);

	KUNIT_ASSERT_EQ(test, i, n);
	len = min_t(unsigned int, n, WIN_LOG);
	for (i = 0; i < len; i++) {
		KUNIT_EXPECT_EQ_MSG(test, seq[i], want[i], "entry %u", i);
		KUNIT_EXPECT_EQ_MSG(test, flag[i], sent, "entry %u", i);
	}
}

#define WANT(...)	((const u64[]){ __VA_ARGS__ })
#define NWANT(...)	ARRAY_SIZE(WANT(__VA_ARGS__))
#define EXPECT_SENT_SINCE(test, w, from, ...) \
	win_expect_sent(test, w, from, WANT(__VA_ARGS__), NWANT(__VA_ARGS__))
#define EXPECT_QUEUE(test, w, ...) \
	win_expect_list(test, w, false, WANT(__VA_ARGS__), NWANT(__VA_ARGS__))
#define EXPECT_RETRANS(test, w, ...) \
	win_expect_list(test, w, true, WANT(__VA_ARGS__), NWANT(__VA_ARGS__))

static void rdsd_conn_xmit_sends_in_order(struct kunit *test)
{
	struct win *w = test->priv;

	win_send(test, w->conn, 5);

	EXPECT_SENT_SINCE(test, w, 0, 0, 1, 2, 3, 4);
	EXPECT_RETRANS(test, w, 0, 1, 2, 3, 4);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->send_queue));
}

static void rdsd_conn_xmit_done_completes_at_once(struct kunit *test)
{
	struct win *w = test->priv;

	/* Arrange: 2 holds nothing for the peer */
	w->tp->done = true;
	w->tp->done_seq = 2;

	/* Act */
	win_send(test, w->conn, 5);

	/* Assert: handed over once, in order, and not kept */
	EXPECT_SENT_SINCE(test, w, 0, 0, 1, 2, 3, 4);
	EXPECT_RETRANS(test, w, 0, 1, 3, 4);
	KUNIT_EXPECT_EQ(test, rdsd_stat_get(w->rn, xmit_op_only), 1ULL);
	/* a reset sends the others again, not it */
	win_reset(w->conn, 0);
	EXPECT_SENT_SINCE(test, w, 5, 0, 1, 3, 4);
	rdsd_send_acked(w->conn, 4);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->retrans));
}

static void rdsd_conn_reset_resends_only_unacked(struct kunit *test)
{
	struct win *w = test->priv;

	/* Arrange: 0..7 sent, 0..2 acknowledged, 8 and 9 queued meanwhile */
	win_send(test, w->conn, 8);
	rdsd_send_acked(w->conn, 2);
	rdsd_conn_down(w->conn);
	win_send(test, w->conn, 2);	/* the path is down: nothing goes */
	KUNIT_EXPECT_EQ(test, w->tp->nsent, 8U);

	/* Act */
	rdsd_conn_requeue_unacked(w->conn);
	EXPECT_QUEUE(test, w, 3, 4, 5, 6, 7, 8, 9);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->retrans));
	win_up(w->conn);

	/* Assert: the unacknowledged ones again, then the new ones */
	EXPECT_SENT_SINCE(test, w, 8, 3, 4, 5, 6, 7, 8, 9);
	EXPECT_RETRANS(test, w, 3, 4, 5, 6, 7, 8, 9);
	rdsd_send_acked(w->conn, 9);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->retrans));
}

static void rdsd_conn_reset_after_private_data_ack(struct kunit *test)
{
	struct win *w = test->priv;

	/* Arrange: 0..5 sent, nothing acknowledged before the reset */
	win_send(test, w->conn, 6);

	/* Act: the new path's private data says 0..3 were delivered */
	win_reset(w->conn, 4);

	/* Assert */
	EXPECT_SENT_SINCE(test, w, 6, 4, 5);
	EXPECT_RETRANS(test, w, 4, 5);
}

static void rdsd_conn_reset_everything_acked_sends_nothing(struct kunit *test)
{
	struct win *w = test->priv;

	win_send(test, w->conn, 4);
	rdsd_send_acked(w->conn, 3);

	win_reset(w->conn, 0);

	KUNIT_EXPECT_EQ(test, w->tp->nsent, 4U);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->retrans));
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->send_queue));
}

static void rdsd_conn_reset_twice_resends_again(struct kunit *test)
{
	struct win *w = test->priv;

	win_send(test, w->conn, 4);
	rdsd_send_acked(w->conn, 0);

	win_reset(w->conn, 0);
	EXPECT_SENT_SINCE(test, w, 4, 1, 2, 3);
	/* the new path fails before anything is acknowledged */
	win_reset(w->conn, 0);
	EXPECT_SENT_SINCE(test, w, 7, 1, 2, 3);
	/* and once more, with 1 delivered */
	win_reset(w->conn, 2);
	EXPECT_SENT_SINCE(test, w, 10, 2, 3);
	EXPECT_RETRANS(test, w, 2, 3);
}

static void rdsd_conn_refused_after_reset_stays_in_order(struct kunit *test)
{
	struct win *w = test->priv;

	/* Arrange: 0..5 sent, 0..1 acknowledged; 4 will be refused */
	win_send(test, w->conn, 6);
	rdsd_send_acked(w->conn, 1);
	w->tp->refuse = true;
	w->tp->refuse_seq = 4;

	/* Act: the resend stops at 4 (-EAGAIN, no room yet) */
	win_reset(w->conn, 0);

	/* Assert: 4 went back to the head, before 5 */
	EXPECT_SENT_SINCE(test, w, 6, 2, 3);
	EXPECT_RETRANS(test, w, 2, 3);
	EXPECT_QUEUE(test, w, 4, 5);

	/* room again: the transport kicks the connection */
	rdsd_conn_xmit(w->conn);
	EXPECT_SENT_SINCE(test, w, 6, 2, 3, 4, 5);
	EXPECT_RETRANS(test, w, 2, 3, 4, 5);
}

static void rdsd_conn_reset_during_xmit_sorts_refused(struct kunit *test)
{
	struct win *w = test->priv;

	/* Arrange: 0..2 sent, 0 acknowledged, 3..5 queued */
	win_send(test, w->conn, 3);
	rdsd_send_acked(w->conn, 0);
	win_queue(test, w->conn, 3);
	w->tp->refuse = true;
	w->tp->refuse_seq = 4;
	w->tp->reset_on_refuse = true;

	/*
	 * Act: 3 goes out; the path fails while 4 is being sent, which
	 * moves 1..4 back to the queue before 4 is refused.
	 */
	rdsd_conn_xmit(w->conn);

	/* Assert: 4 is put back between 3 and 5, not at the head */
	EXPECT_SENT_SINCE(test, w, 0, 0, 1, 2, 3);
	EXPECT_QUEUE(test, w, 1, 2, 3, 4, 5);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->retrans));

	/* the new path sends everything unacknowledged, in order */
	win_up(w->conn);
	EXPECT_SENT_SINCE(test, w, 4, 1, 2, 3, 4, 5);
	EXPECT_RETRANS(test, w, 1, 2, 3, 4, 5);
}

static void rdsd_conn_xmit_while_refusing_is_not_lost(struct kunit *test)
{
	struct win *w = test->priv;

	/* Arrange: 2 is refused, and room comes back at that moment */
	win_queue(test, w->conn, 5);
	w->tp->refuse = true;
	w->tp->refuse_seq = 2;
	w->tp->send_on_refuse = true;

	/* Act */
	rdsd_conn_xmit(w->conn);
	flush_work(&w->conn->xmit_work);

	/* Assert: the sender that found the connection busy was heard */
	EXPECT_SENT_SINCE(test, w, 0, 0, 1, 2, 3, 4);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->send_queue));
}

static void rdsd_conn_path_up_while_refusing_is_not_lost(struct kunit *test)
{
	struct win *w = test->priv;

	/*
	 * Arrange: 0..3 sent, 0 acknowledged; the path fails while 4 is
	 * being sent and the new one is up before 4 is refused, its kick
	 * finding the connection busy.
	 */
	win_send(test, w->conn, 4);
	rdsd_send_acked(w->conn, 0);
	win_queue(test, w->conn, 2);
	w->tp->refuse = true;
	w->tp->refuse_seq = 4;
	w->tp->reset_on_refuse = true;
	w->tp->up_on_refuse = true;

	/* Act */
	rdsd_conn_xmit(w->conn);
	flush_work(&w->conn->xmit_work);

	/* Assert */
	EXPECT_SENT_SINCE(test, w, 4, 1, 2, 3, 4, 5);
	EXPECT_RETRANS(test, w, 1, 2, 3, 4, 5);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->send_queue));
}

static void rdsd_conn_path_swap_before_xmit_keeps_order(struct kunit *test)
{
	struct win *w = test->priv;

	/*
	 * Arrange: 0..3 sent, 0 acknowledged; 4 is taken off the queue,
	 * then the path fails and the next one, up before 4 reaches the
	 * transport, has 1..3 back on the queue ahead of it.
	 */
	win_send(test, w->conn, 4);
	rdsd_send_acked(w->conn, 0);
	win_queue(test, w->conn, 2);
	w->tp->swap = true;
	w->tp->swap_seq = 4;

	/* Act */
	rdsd_conn_xmit(w->conn);
	flush_work(&w->conn->xmit_work);

	/*
	 * Assert: 4 waits for its turn; sent first, it would make the
	 * receiver take 1..3 for duplicates
	 */
	EXPECT_SENT_SINCE(test, w, 4, 1, 2, 3, 4, 5);
	KUNIT_EXPECT_EQ(test, w->tp->stale, 1U);
	EXPECT_RETRANS(test, w, 1, 2, 3, 4, 5);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->send_queue));
}

static void rdsd_conn_xmit_acked_while_sent_stays_valid(struct kunit *test)
{
	struct win *w = test->priv;

	/* Arrange: 1 is acknowledged, with 0, while ->xmit has it */
	w->tp->ack = true;
	w->tp->ack_seq = 1;

	/* Act */
	win_send(test, w->conn, 3);

	/* Assert: completed, and alive on the core's reference alone */
	KUNIT_EXPECT_EQ(test, w->tp->ack_ret, 0);
	KUNIT_EXPECT_EQ(test, w->tp->ack_refs, 1U);
	KUNIT_EXPECT_FALSE(test, w->tp->ack_on_conn);
	EXPECT_SENT_SINCE(test, w, 0, 0, 1, 2);
	EXPECT_RETRANS(test, w, 2);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->send_queue));
}

static void rdsd_conn_xmit_acked_while_refused_is_not_requeued(struct kunit *test)
{
	struct win *w = test->priv;

	/* Arrange: 1 is acknowledged while ->xmit has it, then refused */
	w->tp->ack = true;
	w->tp->ack_seq = 1;
	w->tp->refuse = true;
	w->tp->refuse_seq = 1;

	/* Act */
	win_send(test, w->conn, 3);

	/* Assert: the peer has 1, so it is not queued again; 2 waits */
	KUNIT_EXPECT_EQ(test, w->tp->ack_ret, 0);
	KUNIT_EXPECT_EQ(test, w->tp->ack_refs, 1U);
	KUNIT_EXPECT_FALSE(test, w->tp->ack_on_conn);
	EXPECT_SENT_SINCE(test, w, 0, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->retrans));
	EXPECT_QUEUE(test, w, 2);

	/* room again: only 2 goes */
	rdsd_conn_xmit(w->conn);
	EXPECT_SENT_SINCE(test, w, 1, 2);
	EXPECT_RETRANS(test, w, 2);
}

static void rdsd_conn_ack_beyond_sent_changes_nothing(struct kunit *test)
{
	struct win *w = test->priv;

	/* Arrange: 0..4 sent, 0..1 acknowledged, 5..6 queued, path down */
	win_send(test, w->conn, 5);
	KUNIT_ASSERT_EQ(test, rdsd_send_acked(w->conn, 1), 0);
	rdsd_conn_down(w->conn);
	win_queue(test, w->conn, 2);

	/* Act: acks of 7 (next_tx_seq) and 2^63, as a forged header says */
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(w->conn, 7), -EPROTO);
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(w->conn, 1ULL << 63), -EPROTO);

	/* Assert: both counted; every message where it was */
	KUNIT_EXPECT_EQ(test, rdsd_stat_get(w->rn, recv_proto_error), 2ULL);
	KUNIT_EXPECT_EQ(test, w->conn->last_acked, 1ULL);
	EXPECT_RETRANS(test, w, 2, 3, 4);
	EXPECT_QUEUE(test, w, 5, 6);

	/* the highest number handed out is a valid ack, after a reset too */
	win_reset(w->conn, 0);
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(w->conn, 6), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->retrans));
	KUNIT_EXPECT_TRUE(test, list_empty(&w->conn->send_queue));
	KUNIT_EXPECT_EQ(test, rdsd_stat_get(w->rn, recv_proto_error), 2ULL);
}

static void rdsd_conn_destroy_releases_every_message(struct kunit *test)
{
	struct win *w = test->priv;
	struct rdsd_msg *held[4];
	struct rdsd_msg *msg;
	int i = 0;

	/* Arrange: 0..1 sent and unacknowledged, 2..3 queued (path down) */
	win_send(test, w->conn, 2);
	rdsd_conn_down(w->conn);
	win_queue(test, w->conn, 2);
	spin_lock_bh(&w->conn->lock);
	list_for_each_entry(msg, &w->conn->retrans, conn_item)
		held[i++] = msg;
	list_for_each_entry(msg, &w->conn->send_queue, conn_item)
		held[i++] = msg;
	spin_unlock_bh(&w->conn->lock);
	KUNIT_ASSERT_EQ(test, i, 4);
	for (i = 0; i < 4; i++)
		rdsd_msg_get(held[i]);

	/* Act */
	win_destroy(test, w);

	/* Assert: only our references are left */
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, refcount_read(&held[i]->refs), 1);
		KUNIT_EXPECT_FALSE(test, test_bit(RDSD_MSG_ON_CONN,
						  &held[i]->flags));
		rdsd_msg_put(held[i]);
	}
}

/* One flush ends every pass that handed the transport something. */
static void rdsd_conn_xmit_flushes_once_per_pass(struct kunit *test)
{
	struct win *w = test->priv;

	/* Act: one pass over five messages */
	win_send(test, w->conn, 5);

	/* Assert: flushed once, after the last */
	EXPECT_SENT_SINCE(test, w, 0, 0, 1, 2, 3, 4);
	KUNIT_EXPECT_EQ(test, w->tp->flushes, 1U);
	KUNIT_EXPECT_EQ(test, w->tp->flush_at, 5U);

	/* Act: a pass with nothing to send */
	rdsd_conn_xmit(w->conn);

	/* Assert: nothing to flush */
	KUNIT_EXPECT_EQ(test, w->tp->flushes, 1U);
}

/*
 * A batching transport: the caller sends itself while nothing is in
 * flight; with messages unacknowledged the worker sends, and everything
 * queued meanwhile goes in its pass.
 */
static void rdsd_conn_send_batches_only_in_flight(struct kunit *test)
{
	struct win *w = test->priv;
	struct rdsd_conn *conn;
	struct win_tp *tp;

	conn = rdsd_conn_find_create(w->rn, &win_batch_transport, WIN_LADDR,
				     WIN_FADDR2, 0, 0, 0, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(conn));
	tp = conn->tp;
	rdsd_conn_up(conn);
	flush_work(&conn->xmit_work);

	/* Act: one message on an idle connection */
	win_queue(test, conn, 1);
	rdsd_conn_send(conn);

	/* Assert: sent before rdsd_conn_send() returned, by the caller */
	KUNIT_EXPECT_EQ(test, tp->nsent, 1U);
	KUNIT_EXPECT_FALSE(test, tp->by_worker[0]);

	/* Act: three more while the first is unacknowledged */
	win_queue(test, conn, 3);
	rdsd_conn_send(conn);
	flush_work(&conn->xmit_work);

	/* Assert: the worker sent them, in order, in one flushed pass */
	KUNIT_ASSERT_EQ(test, tp->nsent, 4U);
	KUNIT_EXPECT_EQ(test, tp->sent[1], tp->sent[0] + 1);
	KUNIT_EXPECT_EQ(test, tp->sent[3], tp->sent[0] + 3);
	KUNIT_EXPECT_TRUE(test, tp->by_worker[1]);
	KUNIT_EXPECT_TRUE(test, tp->by_worker[3]);
	KUNIT_EXPECT_EQ(test, tp->flushes, 2U);
	KUNIT_EXPECT_EQ(test, tp->flush_at, 4U);

	/* Act: everything acknowledged, then one more */
	KUNIT_EXPECT_EQ(test, rdsd_send_acked(conn, tp->sent[3]), 0);
	win_queue(test, conn, 1);
	rdsd_conn_send(conn);

	/* Assert: the caller sends again */
	KUNIT_EXPECT_EQ(test, tp->nsent, 5U);
	KUNIT_EXPECT_FALSE(test, tp->by_worker[4]);
	flush_work(&conn->xmit_work);
	rdsd_conn_put(conn);	/* rdsd_conn_net_exit() destroys it */
}

static struct kunit_case rdsd_conn_window_cases[] = {
	KUNIT_CASE(rdsd_conn_xmit_sends_in_order),
	KUNIT_CASE(rdsd_conn_xmit_done_completes_at_once),
	KUNIT_CASE(rdsd_conn_reset_resends_only_unacked),
	KUNIT_CASE(rdsd_conn_reset_after_private_data_ack),
	KUNIT_CASE(rdsd_conn_reset_everything_acked_sends_nothing),
	KUNIT_CASE(rdsd_conn_reset_twice_resends_again),
	KUNIT_CASE(rdsd_conn_refused_after_reset_stays_in_order),
	KUNIT_CASE(rdsd_conn_reset_during_xmit_sorts_refused),
	KUNIT_CASE(rdsd_conn_xmit_while_refusing_is_not_lost),
	KUNIT_CASE(rdsd_conn_path_up_while_refusing_is_not_lost),
	KUNIT_CASE(rdsd_conn_path_swap_before_xmit_keeps_order),
	KUNIT_CASE(rdsd_conn_xmit_acked_while_sent_stays_valid),
	KUNIT_CASE(rdsd_conn_xmit_acked_while_refused_is_not_requeued),
	KUNIT_CASE(rdsd_conn_ack_beyond_sent_changes_nothing),
	KUNIT_CASE(rdsd_conn_destroy_releases_every_message),
	KUNIT_CASE(rdsd_conn_xmit_flushes_once_per_pass),
	KUNIT_CASE(rdsd_conn_send_batches_only_in_flight),
	{}
};

static struct kunit_suite rdsd_conn_window_suite = {
	.name = "rds_doca_conn_window",
	.init = win_init,
	.exit = win_exit,
	.test_cases = rdsd_conn_window_cases,
};

kunit_test_suites(&rdsd_conn_window_suite);
