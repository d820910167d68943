// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_conn: connection lifetime and limits.
 *
 * Each case gets a connection table of its own (rdsd_conn_net_init(), so
 * rdsd_conn_net_exit() can empty it) and connections over a test
 * transport that counts ->cong_changed calls and can say it still owes
 * the peer something (->conn_idle).  The cases check the per-namespace
 * limit (max_conns), the reaper's idea of idle (rdsd_conn_reap() with an
 * idle time of 0 or of an hour), that congestion maps are shared per
 * address, reach only their own connections and go with their last user,
 * and when a failed path parks (rdsd_conn_park()) and connects again;
 * and the table of attempts waiting for an answer (rdsd_attempt_get()).
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

#define CT_LADDR	(&TEST_IN6(htonl(0x7f4f0001)))	/* 127.79.0.1 */
#define CT_LADDR2	(&TEST_IN6(htonl(0x7f4f0002)))
#define CT_FADDR(n)	(&TEST_IN6(htonl(0x7f4f0100 + (n))))
#define CT_HOUR		(3600 * HZ)

/**
 * struct ct_tp - the test transport's state of a connection (conn->tp)
 * @busy: ->conn_idle says the peer is still owed something.
 * @cong_changed: ->cong_changed calls.
 * @connects: ->conn_connect calls.
 */
struct ct_tp {
	bool		busy;
	unsigned int	cong_changed;
	unsigned int	connects;
};

static int ct_laddr_check(struct net *net, const struct in6_addr *addr,
			  int scope)
{
	return -EADDRNOTAVAIL;
}

static int ct_conn_alloc(struct rdsd_conn *conn, gfp_t gfp)
{
	conn->tp = kzalloc(sizeof(struct ct_tp), gfp);
	return conn->tp ? 0 : -ENOMEM;
}

static void ct_conn_free(struct rdsd_conn *conn)
{
	kfree(conn->tp);
}

static int ct_conn_connect(struct rdsd_conn *conn)
{
	struct ct_tp *tp = conn->tp;

	tp->connects++;
	return 0;
}

static void ct_conn_shutdown(struct rdsd_conn *conn)
{
}

static int ct_xmit(struct rdsd_conn *conn, struct rdsd_msg *msg)
{
	return -EAGAIN;
}

static void ct_cong_changed(struct rdsd_conn *conn)
{
	struct ct_tp *tp = conn->tp;

	tp->cong_changed++;
}

static bool ct_conn_idle(struct rdsd_conn *conn)
{
	struct ct_tp *tp = conn->tp;

	return !READ_ONCE(tp->busy);
}

static const struct rdsd_transport_ops ct_transport = {
	.name		= "conn-test",
	.type		= -1,
	.laddr_check	= ct_laddr_check,
	.conn_alloc	= ct_conn_alloc,
	.conn_free	= ct_conn_free,
	.conn_connect	= ct_conn_connect,
	.conn_shutdown	= ct_conn_shutdown,
	.xmit		= ct_xmit,
	.max_msg	= RDSD_MAX_MSG_SIZE,
	.cong_changed	= ct_cong_changed,
	.conn_idle	= ct_conn_idle,
};

static int ct_init(struct kunit *test)
{
	struct rdsd_net *rn = test_net_alloc(test);

	if (!rn)
		return -ENOMEM;
	test->priv = rn;
	return 0;
}

static void ct_exit(struct kunit *test)
{
	struct rdsd_net *rn = test->priv;

	if (!rn)
		return;
	rdsd_conn_net_exit(rn);
	KUNIT_EXPECT_EQ(test, atomic_read(&rn->nr_conns), 0);
	KUNIT_EXPECT_EQ(test, rn->nr_cong_maps, 0U);
	test_net_free(rn);
}

static struct rdsd_conn *ct_conn(struct kunit *test,
				 const struct in6_addr *laddr, int n)
{
	struct rdsd_conn *conn;

	conn = rdsd_conn_find_create(test->priv, &ct_transport, laddr,
				     CT_FADDR(n), 0, 0, 0, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(conn));
	return conn;
}

static void rdsd_conn_find_create_over_limit_fails(struct kunit *test)
{
	struct rdsd_net *rn = test->priv;
	struct rdsd_conn *a, *b, *c;

	/* Arrange */
	rn->max_conns = 2;
	a = ct_conn(test, CT_LADDR, 0);
	b = ct_conn(test, CT_LADDR, 1);

	/* Act */
	c = rdsd_conn_find_create(rn, &ct_transport, CT_LADDR, CT_FADDR(2), 0, 0,
				  0, GFP_KERNEL);

	/* Assert */
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(c), -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, rdsd_stat_get(rn, conn_limit), 1ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&rn->nr_conns), 2);
	/* an existing connection is still found at the limit */
	c = ct_conn(test, CT_LADDR, 1);
	KUNIT_EXPECT_PTR_EQ(test, c, b);
	rdsd_conn_put(c);

	/* once one is reaped there is room again */
	rdsd_conn_put(a);
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, 0), 1U);
	c = ct_conn(test, CT_LADDR, 2);
	rdsd_conn_put(c);
	rdsd_conn_put(b);
}

static void rdsd_conn_paths_are_distinct(struct kunit *test)
{
	struct rdsd_net *rn = test->priv;
	struct rdsd_conn *p0, *p1, *again;

	/* Act */
	p0 = rdsd_conn_find_create(rn, &ct_transport, CT_LADDR, CT_FADDR(0), 0, 0,
				   0, GFP_KERNEL);
	p1 = rdsd_conn_find_create(rn, &ct_transport, CT_LADDR, CT_FADDR(0), 0, 1,
				   0, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p0));
	KUNIT_ASSERT_FALSE(test, IS_ERR(p1));
	again = rdsd_conn_find_create(rn, &ct_transport, CT_LADDR, CT_FADDR(0), 0, 1, 0, GFP_KERNEL);

	/* Assert: two connections, each with its own sequence space */
	KUNIT_EXPECT_PTR_NE(test, p0, p1);
	KUNIT_EXPECT_PTR_EQ(test, again, p1);
	KUNIT_EXPECT_EQ(test, p0->path, 0);
	KUNIT_EXPECT_EQ(test, p1->path, 1);
	KUNIT_EXPECT_EQ(test, p0->npaths, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&rn->nr_conns), 2);
	/* no path beyond the protocol's */
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(rdsd_conn_find_create(rn,
			&ct_transport, CT_LADDR, CT_FADDR(0), 0, RDSD_MAX_PATHS,
			0, GFP_KERNEL)), -EINVAL);
	rdsd_conn_put(again);
	rdsd_conn_put(p1);
	rdsd_conn_put(p0);
}

/* Each type of service has connections of its own, found again by it. */
static void rdsd_conn_tos_lanes_are_distinct(struct kunit *test)
{
	struct rdsd_net *rn = test->priv;
	struct rdsd_conn *t0, *t5, *t255, *again;

	/* Act */
	t0 = rdsd_conn_find_create(rn, &ct_transport, CT_LADDR, CT_FADDR(0), 0, 0,
				   0, GFP_KERNEL);
	t5 = rdsd_conn_find_create(rn, &ct_transport, CT_LADDR, CT_FADDR(0), 0, 0,
				   5, GFP_KERNEL);
	t255 = rdsd_conn_find_create(rn, &ct_transport, CT_LADDR, CT_FADDR(0), 0, 0, 255, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t0));
	KUNIT_ASSERT_FALSE(test, IS_ERR(t5));
	KUNIT_ASSERT_FALSE(test, IS_ERR(t255));
	again = rdsd_conn_find_create(rn, &ct_transport, CT_LADDR, CT_FADDR(0), 0, 0, 5, GFP_KERNEL);

	/* Assert: three connections, the second found again by its lane */
	KUNIT_EXPECT_PTR_NE(test, t0, t5);
	KUNIT_EXPECT_PTR_NE(test, t5, t255);
	KUNIT_EXPECT_PTR_NE(test, t0, t255);
	KUNIT_EXPECT_PTR_EQ(test, again, t5);
	KUNIT_EXPECT_EQ(test, t0->tos, 0);
	KUNIT_EXPECT_EQ(test, t5->tos, 5);
	KUNIT_EXPECT_EQ(test, t255->tos, 255);
	KUNIT_EXPECT_EQ(test, atomic_read(&rn->nr_conns), 3);
	rdsd_conn_put(again);
	rdsd_conn_put(t255);
	rdsd_conn_put(t5);
	rdsd_conn_put(t0);
}

static void rdsd_conn_path_pick_spreads_and_holds(struct kunit *test)
{
	unsigned int seen[RDSD_MAX_PATHS + 1] = {};
	u32 hash;
	u8 n, p;

	/* one path, or a count no peer may agree on: path 0 */
	for (hash = 0; hash < 256; hash++) {
		KUNIT_EXPECT_EQ(test, rdsd_conn_path_pick(1, hash), 0);
		KUNIT_EXPECT_EQ(test, rdsd_conn_path_pick(0, hash), 0);
		KUNIT_EXPECT_EQ(test,
				rdsd_conn_path_pick(RDSD_MAX_PATHS + 1, hash),
				0);
	}
	for (n = 2; n <= RDSD_MAX_PATHS; n++) {
		memset(seen, 0, sizeof(seen));
		for (hash = 1024; hash < 1024 + 64 * n; hash++) {
			p = rdsd_conn_path_pick(n, hash);
			KUNIT_ASSERT_LT(test, p, n);
			/* the same sender always takes the same path */
			KUNIT_EXPECT_EQ(test, rdsd_conn_path_pick(n, hash), p);
			seen[p]++;
		}
		/* consecutive ports use every path */
		for (p = 0; p < n; p++)
			KUNIT_EXPECT_GT_MSG(test, seen[p], 0U,
					    "%u paths: path %u unused", n, p);
	}
}

static void rdsd_conn_reap_frees_only_unused(struct kunit *test)
{
	struct rdsd_net *rn = test->priv;
	struct rdsd_conn *held, *unused, *again;

	/* Arrange: one a socket still caches, one nobody uses */
	held = ct_conn(test, CT_LADDR, 0);
	unused = ct_conn(test, CT_LADDR, 1);
	rdsd_conn_put(unused);

	/* Act */
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, 0), 1U);

	/* Assert */
	KUNIT_EXPECT_EQ(test, atomic_read(&rn->nr_conns), 1);
	KUNIT_EXPECT_EQ(test, rdsd_stat_get(rn, conn_reaped), 1ULL);
	again = ct_conn(test, CT_LADDR, 0);
	KUNIT_EXPECT_PTR_EQ(test, again, held);
	rdsd_conn_put(again);
	/* a reaped connection needed again is simply made again */
	again = ct_conn(test, CT_LADDR, 1);
	KUNIT_EXPECT_EQ(test, again->next_tx_seq, 0ULL);
	KUNIT_EXPECT_EQ(test, again->next_rx_seq, 0ULL);
	rdsd_conn_put(again);
	rdsd_conn_put(held);
}

/* Queue a message of no payload on @conn's send queue, as a send does. */
static struct rdsd_msg *ct_queue(struct kunit *test, struct rdsd_conn *conn)
{
	struct rdsd_msg *msg = rdsd_msg_alloc(0, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, msg);
	spin_lock_bh(&conn->lock);
	msg->conn = conn;
	msg->seq = conn->next_tx_seq++;
	set_bit(RDSD_MSG_ON_CONN, &msg->flags);
	list_add_tail(&msg->conn_item, &conn->send_queue);
	spin_unlock_bh(&conn->lock);
	return msg;
}

/* As its acknowledgment would: off the connection, reference dropped. */
static void ct_unqueue(struct rdsd_conn *conn, struct rdsd_msg *msg)
{
	spin_lock_bh(&conn->lock);
	list_del_init(&msg->conn_item);
	clear_bit(RDSD_MSG_ON_CONN, &msg->flags);
	spin_unlock_bh(&conn->lock);
	rdsd_msg_put(msg);
}

static void rdsd_conn_reap_keeps_queued_messages(struct kunit *test)
{
	struct rdsd_net *rn = test->priv;
	struct rdsd_conn *conn;
	struct rdsd_msg *msg;

	/* Arrange: a message waits on an otherwise unused connection */
	conn = ct_conn(test, CT_LADDR, 0);
	msg = ct_queue(test, conn);
	rdsd_conn_put(conn);

	/* Act, Assert: kept while queued */
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, 0), 0U);

	/* acknowledged: off the queues, then it may go (after its idle time) */
	ct_unqueue(conn, msg);
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, 0), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&rn->nr_conns), 0);
}

static void rdsd_conn_reap_asks_transport(struct kunit *test)
{
	struct rdsd_net *rn = test->priv;
	struct rdsd_conn *conn;
	struct ct_tp *tp;

	/* Arrange: the transport still owes the peer an acknowledgment */
	conn = ct_conn(test, CT_LADDR, 0);
	tp = conn->tp;
	WRITE_ONCE(tp->busy, true);
	rdsd_conn_put(conn);

	/* Act, Assert */
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, 0), 0U);
	WRITE_ONCE(tp->busy, false);
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, 0), 1U);
}

static void rdsd_conn_reap_waits_idle_time(struct kunit *test)
{
	struct rdsd_net *rn = test->priv;
	struct rdsd_conn *conn;

	/* Arrange: unused since its creation, a moment ago */
	conn = ct_conn(test, CT_LADDR, 0);
	rdsd_conn_put(conn);

	/* Act, Assert: not idle for an hour yet */
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, CT_HOUR), 0U);
	/* an hour later, as the reaper will see it */
	conn->idle_since -= CT_HOUR;
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, CT_HOUR), 1U);
}

static void rdsd_conn_reap_restarts_on_traffic(struct kunit *test)
{
	struct rdsd_net *rn = test->priv;
	struct rdsd_conn *conn;

	/* Arrange: long unused, but a message came in since the last look */
	conn = ct_conn(test, CT_LADDR, 0);
	rdsd_conn_put(conn);
	conn->idle_since -= CT_HOUR;
	WRITE_ONCE(conn->next_rx_seq, 1);

	/* Act, Assert: its idle time starts again */
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, CT_HOUR), 0U);
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, CT_HOUR), 0U);
	conn->idle_since -= CT_HOUR;
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, CT_HOUR), 1U);
}

static void rdsd_cong_change_reaches_only_map_users(struct kunit *test)
{
	struct rdsd_net *rn = test->priv;
	struct rdsd_conn *a, *b, *other;
	struct rdsd_cong_map *map;

	/* Arrange: two connections from one address, one from another */
	a = ct_conn(test, CT_LADDR, 0);
	b = ct_conn(test, CT_LADDR, 1);
	other = ct_conn(test, CT_LADDR2, 0);
	KUNIT_EXPECT_PTR_EQ(test, a->lcong, b->lcong);
	KUNIT_EXPECT_PTR_NE(test, a->lcong, other->lcong);
	/* CT_LADDR, CT_LADDR2, CT_FADDR(0) and CT_FADDR(1) */
	KUNIT_EXPECT_EQ(test, rn->nr_cong_maps, 4U);
	map = a->lcong;

	/* Act */
	rdsd_cong_set(rn, map, htons(4000));
	rdsd_cong_clear(rn, map, htons(4000));

	/* Assert */
	KUNIT_EXPECT_EQ(test, ((struct ct_tp *)a->tp)->cong_changed, 2U);
	KUNIT_EXPECT_EQ(test, ((struct ct_tp *)b->tp)->cong_changed, 2U);
	KUNIT_EXPECT_EQ(test, ((struct ct_tp *)other->tp)->cong_changed, 0U);

	/* maps go with their last user */
	rdsd_conn_put(a);
	rdsd_conn_put(b);
	rdsd_conn_put(other);
	KUNIT_EXPECT_EQ(test, rdsd_conn_reap(rn, 0), 3U);
	KUNIT_EXPECT_EQ(test, rn->nr_cong_maps, 0U);
}

static void rdsd_conn_park_only_when_nothing_waits(struct kunit *test)
{
	struct rdsd_conn *conn;
	struct rdsd_msg *msg;
	struct ct_tp *tp;

	/* Arrange: a connecting path with a message queued */
	conn = ct_conn(test, CT_LADDR, 0);
	tp = conn->tp;
	rdsd_conn_start(conn);
	KUNIT_ASSERT_EQ(test, tp->connects, 1U);
	KUNIT_ASSERT_EQ(test, conn->state, RDSD_CONN_CONNECTING);
	msg = ct_queue(test, conn);

	/* Act, Assert: a message waits, so the path keeps trying */
	KUNIT_EXPECT_FALSE(test, rdsd_conn_park(conn));
	KUNIT_EXPECT_EQ(test, conn->state, RDSD_CONN_CONNECTING);

	/* once it is acknowledged, nothing waits: parked */
	ct_unqueue(conn, msg);
	KUNIT_EXPECT_TRUE(test, rdsd_conn_park(conn));
	KUNIT_EXPECT_EQ(test, conn->state, RDSD_CONN_DOWN);

	/* an up connection is never parked */
	rdsd_conn_up(conn);
	KUNIT_EXPECT_FALSE(test, rdsd_conn_park(conn));
	KUNIT_EXPECT_EQ(test, conn->state, RDSD_CONN_UP);
	rdsd_conn_put(conn);
}

/* A connection whose first attempt failed with nothing queued. */
static struct rdsd_conn *ct_parked(struct kunit *test)
{
	struct rdsd_conn *conn = ct_conn(test, CT_LADDR, 0);

	rdsd_conn_start(conn);
	KUNIT_ASSERT_TRUE(test, rdsd_conn_park(conn));
	return conn;
}

static void rdsd_conn_parked_connects_on_next_message(struct kunit *test)
{
	struct rdsd_conn *conn;
	struct rdsd_msg *msg;
	struct ct_tp *tp;

	/* Arrange: parked */
	conn = ct_parked(test);
	tp = conn->tp;

	/* Act: a sender queues a message, then starts the path */
	msg = ct_queue(test, conn);
	rdsd_conn_start(conn);

	/* Assert: one more attempt; a second start adds none */
	KUNIT_EXPECT_EQ(test, tp->connects, 2U);
	KUNIT_EXPECT_EQ(test, conn->state, RDSD_CONN_CONNECTING);
	rdsd_conn_start(conn);
	KUNIT_EXPECT_EQ(test, tp->connects, 2U);
	ct_unqueue(conn, msg);
	rdsd_conn_put(conn);
}

static void rdsd_conn_wanted_is_not_parked_until_up(struct kunit *test)
{
	struct rdsd_conn *conn;
	struct ct_tp *tp;

	/* Arrange: parked, nothing queued */
	conn = ct_parked(test);
	tp = conn->tp;

	/* Act: the transport needs the path (a congestion update) */
	rdsd_conn_want(conn);

	/* Assert: it connects and its failed attempts do not park it */
	KUNIT_EXPECT_EQ(test, tp->connects, 2U);
	KUNIT_EXPECT_FALSE(test, rdsd_conn_park(conn));
	KUNIT_EXPECT_FALSE(test, rdsd_conn_park(conn));
	/* up, then lost again with nothing to say: parked */
	rdsd_conn_up(conn);
	rdsd_conn_down(conn);
	KUNIT_EXPECT_TRUE(test, rdsd_conn_park(conn));
	rdsd_conn_put(conn);
}

/* One attempt's place: taken, or given back (each with a flag of its own). */
static bool ct_attempt_get(struct rdsd_attempts *at, struct rdsd_net *rn,
			   kuid_t uid)
{
	bool held;

	return rdsd_attempt_get(at, rn, uid, &held);
}

static void ct_attempt_put(struct rdsd_attempts *at, kuid_t uid)
{
	bool held = true;

	rdsd_attempt_put(at, uid, &held);
}

/*
 * Attempts waiting for an answer: 16 per user, 64 in all, a place given
 * back is found again; each refusal counted.
 */
static void rdsd_conn_attempts_bounded_per_user_and_host(struct kunit *test)
{
	struct rdsd_net *rn = test->priv;
	struct rdsd_attempts *at;
	kuid_t a = KUIDT_INIT(1000), late = KUIDT_INIT(1004);
	unsigned int i, u, got = 0;
	bool held = false;

	at = kunit_kzalloc(test, sizeof(*at), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, at);

	/* Act: one user asks for one more than its share */
	for (i = 0; i <= RDSD_USER_ATTEMPTS; i++)
		got += ct_attempt_get(at, rn, a);

	/* Assert: its share, one refusal counted */
	KUNIT_EXPECT_EQ(test, got, RDSD_USER_ATTEMPTS);
	KUNIT_EXPECT_EQ(test, rdsd_stat_get(rn, conn_attempt_wait), 1ULL);

	/* Act: three more users take theirs: the host's are all held */
	for (u = 1; u < RDSD_MAX_ATTEMPTS / RDSD_USER_ATTEMPTS; u++)
		for (i = 0; i < RDSD_USER_ATTEMPTS; i++)
			KUNIT_EXPECT_TRUE(test, ct_attempt_get(at, rn,
							KUIDT_INIT(1000 + u)));

	/* Assert: a fifth user finds none, until the first gives one back */
	KUNIT_EXPECT_EQ(test, at->total, RDSD_MAX_ATTEMPTS);
	KUNIT_EXPECT_FALSE(test, rdsd_attempt_get(at, rn, late, &held));
	KUNIT_EXPECT_FALSE(test, held);
	/* an attempt that holds no place gives none back */
	rdsd_attempt_put(at, a, &held);
	KUNIT_EXPECT_EQ(test, at->total, RDSD_MAX_ATTEMPTS);
	ct_attempt_put(at, a);
	KUNIT_EXPECT_TRUE(test, rdsd_attempt_get(at, rn, late, &held));
	KUNIT_EXPECT_TRUE(test, held);
	KUNIT_EXPECT_EQ(test, rdsd_stat_get(rn, conn_attempt_wait), 2ULL);

	/* Act: everything given back (a put of a user with none is a no-op) */
	rdsd_attempt_put(at, late, &held);
	KUNIT_EXPECT_FALSE(test, held);
	ct_attempt_put(at, KUIDT_INIT(2000));
	for (i = 0; i < RDSD_USER_ATTEMPTS - 1; i++)
		ct_attempt_put(at, a);
	for (u = 1; u < RDSD_MAX_ATTEMPTS / RDSD_USER_ATTEMPTS; u++)
		for (i = 0; i < RDSD_USER_ATTEMPTS; i++)
			ct_attempt_put(at, KUIDT_INIT(1000 + u));

	/* Assert: nothing held */
	KUNIT_EXPECT_EQ(test, at->total, 0U);
	for (i = 0; i < RDSD_MAX_ATTEMPTS; i++)
		KUNIT_EXPECT_EQ(test, at->users[i].held, 0U);
}

/* Reconnect delays: none at first, then random in [b/2, b], b doubling. */
static void rdsd_conn_backoff_doubles_to_its_cap(struct kunit *test)
{
	unsigned int b = 0, prev, i;
	unsigned long d;

	/* Act, Assert: the first attempt after a success waits nothing */
	KUNIT_EXPECT_EQ(test, rdsd_conn_backoff(&b), 0UL);
	KUNIT_EXPECT_EQ(test, b, RDSD_CONN_BACKOFF_MIN_MS);

	for (i = 0; i < 16; i++) {
		prev = b;
		d = rdsd_conn_backoff(&b);
		KUNIT_EXPECT_GE(test, d, msecs_to_jiffies(prev / 2) - 1);
		KUNIT_EXPECT_LE(test, d, msecs_to_jiffies(prev));
		KUNIT_EXPECT_EQ(test, b, min(prev * 2,
					     RDSD_CONN_BACKOFF_MAX_MS));
	}
	KUNIT_EXPECT_EQ(test, b, RDSD_CONN_BACKOFF_MAX_MS);
}

static struct kunit_case rdsd_conn_cases[] = {
	KUNIT_CASE(rdsd_conn_find_create_over_limit_fails),
	KUNIT_CASE(rdsd_conn_tos_lanes_are_distinct),
	KUNIT_CASE(rdsd_conn_paths_are_distinct),
	KUNIT_CASE(rdsd_conn_path_pick_spreads_and_holds),
	KUNIT_CASE(rdsd_conn_reap_frees_only_unused),
	KUNIT_CASE(rdsd_conn_reap_keeps_queued_messages),
	KUNIT_CASE(rdsd_conn_reap_asks_transport),
	KUNIT_CASE(rdsd_conn_reap_waits_idle_time),
	KUNIT_CASE(rdsd_conn_reap_restarts_on_traffic),
	KUNIT_CASE(rdsd_cong_change_reaches_only_map_users),
	KUNIT_CASE(rdsd_conn_park_only_when_nothing_waits),
	KUNIT_CASE(rdsd_conn_parked_connects_on_next_message),
	KUNIT_CASE(rdsd_conn_wanted_is_not_parked_until_up),
	KUNIT_CASE(rdsd_conn_attempts_bounded_per_user_and_host),
	KUNIT_CASE(rdsd_conn_backoff_doubles_to_its_cap),
	{}
};

static struct kunit_suite rdsd_conn_suite = {
	.name = "rds_doca_conn",
	.init = ct_init,
	.exit = ct_exit,
	.test_cases = rdsd_conn_cases,
};

kunit_test_suites(&rdsd_conn_suite);
