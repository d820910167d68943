// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suites for the protocol rules of the IB transport.
 *
 * rds_doca_ib_credits checks the credit accounting one call at a time,
 * then runs a model of two ends that exchange messages over rings of N
 * receive buffers: each end sends with rdsd_ib_credits_ok() and
 * rdsd_ib_credits_take() as ib_send.c does, a receiver reposts each
 * buffer and returns it as a credit on its next message or in an ack.
 * Random schedules (fixed seeds) must never send into a buffer that is
 * not posted, never lose or invent a credit, and never stop while a
 * message waits.  The same model with a rule that spends the last credit
 * freely must be caught deadlocking, which shows the model can fail.
 *
 * rds_doca_ib_proto checks the connection race (who keeps its attempt),
 * the validation of the rdma_cm private data, fragment reassembly, and
 * that a send holding a message or an operation is never left without a
 * completion to release it.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/prandom.h>
#include <linux/scatterlist.h>

#include "ib.h"
#include "conn.h"
#include "kunit_util.h"

/* ---- rds_doca_ib_credits: flow control by credits ---- */

struct credits_ok_case {
	const char	*name;
	u32		avail;
	u32		adv;
	u32		n;
	bool		ok;
};

static const struct credits_ok_case credits_ok_cases[] = {
	{ "last credit kept, nothing to return", 1, 0, 1, false },
	{ "last credit spent returning credits", 1, 1, 1, true },
	{ "one credit to spare", 2, 0, 1, true },
	{ "no credit", 0, 7, 1, false },
	{ "fragments leave the last credit", 5, 0, 4, true },
	{ "fragments would take the last credit", 4, 0, 4, false },
	{ "fragments take the last credit returning credits", 4, 2, 4, true },
	{ "more fragments than credits", 4, 2, 5, false },
	{ "largest message into a full ring", RDSD_IB_RECV_MAX, 0,
	  RDSD_IB_MAX_FRAGS, true },
	{ "whole ring, nothing to return", RDSD_IB_RECV_MAX, 0,
	  RDSD_IB_RECV_MAX, false },
};

static void credits_ok_desc(const struct credits_ok_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(credits_ok, credits_ok_cases, credits_ok_desc);

static void rdsd_ib_credits_ok_keeps_last_credit(struct kunit *test)
{
	const struct credits_ok_case *c = test->param_value;
	struct rdsd_ib_credits cr = { .avail = c->avail, .adv = c->adv };

	KUNIT_EXPECT_EQ(test, rdsd_ib_credits_ok(&cr, c->n), c->ok);
	/* asking changes nothing */
	KUNIT_EXPECT_EQ(test, cr.avail, c->avail);
	KUNIT_EXPECT_EQ(test, cr.adv, c->adv);
}

struct frags_room_case {
	const char	*name;
	u32		avail;
	u32		adv;
	u32		busy;	/* send slots holding work requests */
	u32		nwr;
	u32		room;
};

static const struct frags_room_case frags_room_cases[] = {
	{ "the last credit is kept", 10, 0, 0, 0, 9 },
	{ "unless fragments return credits", 10, 1, 0, 0, 10 },
	{ "no credit", 0, 5, 0, 0, 0 },
	{ "one credit, nothing to return", 1, 0, 0, 0, 0 },
	{ "a full ring of credits: a slot is kept", 254, 1, 0, 0,
	  RDSD_IB_SEND_SLOTS - 1 },
	{ "slots short", 100, 1, RDSD_IB_SEND_SLOTS - 5, 0, 4 },
	{ "behind an operation", 100, 1, RDSD_IB_SEND_SLOTS - 5, 3, 1 },
	{ "an operation fills the ring", 100, 1, RDSD_IB_SEND_SLOTS - 4, 3,
	  0 },
	{ "ring full", 100, 1, RDSD_IB_SEND_SLOTS, 0, 0 },
};

static void frags_room_desc(const struct frags_room_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(frags_room, frags_room_cases, frags_room_desc);

/*
 * What a message sent in pieces may post at a time: what the credits
 * allow without spending the last one on a message that returns none,
 * and the send ring holds with one slot left for the open pack.
 */
static void rdsd_ib_frags_room_bounds(struct kunit *test)
{
	const struct frags_room_case *c = test->param_value;
	struct rdsd_ib_conn *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tp);
	tp->credits.avail = c->avail;
	tp->credits.adv = c->adv;
	tp->send_tail = U32_MAX - 2;	/* free-running indices wrap */
	tp->send_head = tp->send_tail + c->busy;
	KUNIT_EXPECT_EQ(test, rdsd_ib_frags_room(tp, c->nwr), c->room);
	/* whatever it allows the credit rule allows too */
	if (c->room)
		KUNIT_EXPECT_TRUE(test, rdsd_ib_credits_ok(&tp->credits,
							   c->room));
}

struct credits_take_case {
	const char	*name;
	u32		avail;
	u32		adv;
	u32		n;
	u32		avail_after;
	u32		returned;
	u32		adv_after;
};

static const struct credits_take_case credits_take_cases[] = {
	{ "nothing to return", 5, 0, 1, 4, 0, 0 },
	{ "returns every reposted buffer", 5, 7, 2, 3, 7, 0 },
	{ "spends the last credit", 1, 1, 1, 0, 1, 0 },
	{ "as many as a header carries", 10, U16_MAX, 1, 9, U16_MAX, 0 },
	{ "one more than a header carries", 10, U16_MAX + 1, 1, 9, U16_MAX,
	  1 },
	{ "far more than a header carries", 10, 200000, 3, 7, U16_MAX,
	  200000 - U16_MAX },
	{ "counter at its top", 10, U32_MAX, 1, 9, U16_MAX,
	  U32_MAX - U16_MAX },
};

static void credits_take_desc(const struct credits_take_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(credits_take, credits_take_cases, credits_take_desc);

static void rdsd_ib_credits_take_caps_returned(struct kunit *test)
{
	const struct credits_take_case *c = test->param_value;
	struct rdsd_ib_credits cr = { .avail = c->avail, .adv = c->adv };
	u32 returned = 0xdead;

	rdsd_ib_credits_take(&cr, c->n, &returned);

	KUNIT_EXPECT_EQ(test, cr.avail, c->avail_after);
	KUNIT_EXPECT_EQ(test, returned, c->returned);
	KUNIT_EXPECT_EQ(test, cr.adv, c->adv_after);
}

static void rdsd_ib_credits_take_returns_all_over_several_headers(struct kunit *test)
{
	struct rdsd_ib_credits cr = { .avail = 100, .adv = 3 * U16_MAX + 5 };
	u32 returned, total = 0;
	int sends = 0;

	/* Act: send until nothing is left to return */
	while (cr.adv && sends < 10) {
		rdsd_ib_credits_take(&cr, 1, &returned);
		KUNIT_EXPECT_LE(test, returned, (u32)U16_MAX);
		total += returned;
		sends++;
	}

	/* Assert: every credit returned once, in as few headers as fit */
	KUNIT_EXPECT_EQ(test, total, 3 * U16_MAX + 5);
	KUNIT_EXPECT_EQ(test, sends, 4);
	KUNIT_EXPECT_EQ(test, cr.avail, 96U);
	rdsd_ib_credits_take(&cr, 1, &returned);
	KUNIT_EXPECT_EQ(test, returned, 0U);
}

struct credits_add_case {
	const char	*name;
	u32		avail;
	u32		max;
	u32		n;
	u32		avail_after;
};

static const struct credits_add_case credits_add_cases[] = {
	{ "first credits of a queue pair", 0, 256, 256, 256 },
	{ "returned within what was posted", 100, 256, 20, 120 },
	{ "returned up to what was posted", 100, 256, 156, 256 },
	{ "one more than was posted", 100, 256, 157, 256 },
	{ "a header's worth beyond", 250, 256, U16_MAX, 256 },
	{ "a whole buffer of packed headers", 0, 256, 256 * U16_MAX, 256 },
	{ "would wrap the counter", 10, U32_MAX, U32_MAX, U32_MAX },
	{ "nothing offered yet", 0, 0, 5, 0 },
};

static void credits_add_desc(const struct credits_add_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(credits_add, credits_add_cases, credits_add_desc);

static void rdsd_ib_credits_add_clamps_to_posted(struct kunit *test)
{
	const struct credits_add_case *c = test->param_value;
	struct rdsd_ib_credits cr = {
		.avail = c->avail, .adv = 7, .max = c->max,
	};

	rdsd_ib_credits_add(&cr, c->n);

	KUNIT_EXPECT_EQ(test, cr.avail, c->avail_after);
	KUNIT_EXPECT_EQ(test, cr.adv, 7U);
	KUNIT_EXPECT_EQ(test, cr.max, c->max);
}

/* One request for more buffers for each ring size the peer announces. */
static void rdsd_ib_credits_short_asks_once_per_size(struct kunit *test)
{
	struct rdsd_ib_credits c = {
		.avail = 1, .max = RDSD_IB_RECV_MAX,
		.peer_bufs = RDSD_IB_RECV_INIT,
	};

	rdsd_ib_credits_short(&c);
	KUNIT_EXPECT_TRUE(test, c.want);
	KUNIT_EXPECT_EQ(test, c.asked, (u32)RDSD_IB_RECV_INIT);

	c.want = false;			/* the request went */
	rdsd_ib_credits_short(&c);
	KUNIT_EXPECT_FALSE(test, c.want);

	c.peer_bufs = 2 * RDSD_IB_RECV_INIT;	/* the ring grew */
	rdsd_ib_credits_short(&c);
	KUNIT_EXPECT_TRUE(test, c.want);
	KUNIT_EXPECT_EQ(test, c.asked, 2U * RDSD_IB_RECV_INIT);

	c.want = false;
	c.peer_bufs = RDSD_IB_RECV_MAX;	/* as large as it goes */
	rdsd_ib_credits_short(&c);
	KUNIT_EXPECT_FALSE(test, c.want);

	c.peer_bufs = RDSD_IB_RECV_MAX + 5;	/* a peer saying too much */
	rdsd_ib_credits_short(&c);
	KUNIT_EXPECT_FALSE(test, c.want);
}

static void rdsd_ib_ack_credits_quarter_but_three(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rdsd_ib_ack_credits(RDSD_IB_RECV_MAX),
			(u32)RDSD_IB_RECV_MAX / 4);
	KUNIT_EXPECT_EQ(test, rdsd_ib_ack_credits(16), 4U);
	KUNIT_EXPECT_EQ(test, rdsd_ib_ack_credits(8), 3U);
	KUNIT_EXPECT_EQ(test, rdsd_ib_ack_credits(RDSD_IB_RECV_INIT), 3U);
	/* never the whole ring: a peer at its last credit gets the rest */
	KUNIT_EXPECT_EQ(test, rdsd_ib_ack_credits(3), 2U);
}

/*
 * The exchange model.  Each end has a ring of @init receive buffers,
 * which grows to @ring, and learns the peer's as its first credits
 * (rdsd_ib_tx_start()/rdsd_ib_tx_arm()).  An end whose next message finds
 * too few credits asks for more buffers (rdsd_ib_credits_short()) on its
 * next packet, an ack at once if it may send one (rdsd_ib_xmit()); the
 * peer doubles its ring some time later (rdsd_ib_grow_worker()) and
 * returns the new buffers in an ack.  Every packet says the size of its
 * sender's ring.  A message is one packet per
 * fragment (a SEND each); the first carries the credits
 * rdsd_ib_credits_take() returned.  An arrival completes a posted
 * receive and adds the credits it carries; a repost, some time later,
 * makes the buffer a credit to return (rdsd_ib_recv_done()), and an ack
 * goes out when a quarter of the ring waits to be returned
 * (rdsd_ib_ack_credits()).  When nothing else can happen, an end with
 * credits to return sends an ack (the ack timer).  The largest message
 * has @ring - 2 fragments, the least rdsd_ib_cm_data_check() accepts for
 * RDSD_IB_MAX_FRAGS.
 */
enum sim_action {
	SIM_SEND,	/* the next data message, if the credits allow */
	SIM_ARRIVE,	/* the oldest packet on the way reaches the peer */
	SIM_REPOST,	/* a completed receive buffer is posted again */
	SIM_ASK,	/* the next message is short: ask for buffers */
	SIM_GROW,	/* the ring grows as the peer asked */
	SIM_NR_ACTIONS,
};

enum sim_result {
	SIM_RUNNING,	/* not finished */
	SIM_DONE,	/* every message delivered */
	SIM_OVERRUN,	/* a packet would meet no posted receive */
	SIM_LOST,	/* credits were lost or made up */
	SIM_DEADLOCK,	/* messages wait, nothing can move */
	SIM_TOO_LONG,	/* no end after SIM_STEPS_MAX steps */
};

#define SIM_STEPS_MAX	1000000

struct sim_pkt {
	u32	credits;
	u32	bufs;		/* its sender's ring */
	bool	more;		/* asks for more buffers */
	bool	last;		/* last fragment of a data message */
};

/**
 * struct sim_end - one end of the modelled connection
 * @c: its credits, as rdsd_ib_conn.credits.
 * @posted: its receive ring, as rdsd_ib_conn.recv_nr.
 * @grow: the peer asked for more buffers.
 * @consumed: receive buffers completed and not yet posted again.
 * @to_send: data messages left to send.
 * @frags: fragments of the next one.
 * @delivered: data messages received whole.
 * @q: packets on their way to the other end, oldest at @q_head.
 * @q_head: index of the oldest.
 * @q_len: packets on the way.
 * @q_credits: credits they carry.
 */
struct sim_end {
	struct rdsd_ib_credits	c;
	u32			posted;
	bool			grow;
	u32			consumed;
	u32			to_send;
	u32			frags;
	u32			delivered;
	struct sim_pkt		*q;
	u32			q_head;
	u32			q_len;
	u64			q_credits;
};

struct sim {
	bool			(*ok)(const struct rdsd_ib_credits *c, u32 n);
	u32			ring;
	u32			weight[2][SIM_NR_ACTIONS];
	struct rnd_state	rnd;
	struct sim_end		end[2];
};

static u32 sim_rand(struct sim *s, u32 n)
{
	return prandom_u32_state(&s->rnd) % n;
}

/* Mostly one fragment, now and then up to the largest message. */
static u32 sim_next_frags(struct sim *s)
{
	if (sim_rand(s, 4))
		return 1;
	return 1 + sim_rand(s, s->ring - 2);
}

/* End @i sends @n packets: a data message of @n fragments, or an ack. */
static bool sim_post(struct sim *s, int i, u32 n, bool data)
{
	struct sim_end *e = &s->end[i];
	struct sim_end *peer = &s->end[!i];
	u32 adv, k;

	/* every packet on the way needs a receive posted at the peer */
	if (e->q_len + n > peer->posted - peer->consumed)
		return false;
	rdsd_ib_credits_take(&e->c, n, &adv);
	for (k = 0; k < n; k++) {
		struct sim_pkt *p = &e->q[(e->q_head + e->q_len) % s->ring];

		p->credits = k ? 0 : adv;
		p->bufs = e->posted;
		p->more = !k && e->c.want;
		p->last = data && k + 1 == n;
		e->q_len++;
	}
	e->c.want = false;
	e->q_credits += adv;
	return true;
}

static void sim_arrive(struct sim *s, int i)
{
	struct sim_end *e = &s->end[i];
	struct sim_end *peer = &s->end[!i];
	struct sim_pkt p = e->q[e->q_head];

	e->q_head = (e->q_head + 1) % s->ring;
	e->q_len--;
	e->q_credits -= p.credits;
	peer->consumed++;
	/* as ib_send.c: a correct peer is never clamped, which is checked */
	rdsd_ib_credits_add(&peer->c, p.credits);
	peer->c.peer_bufs = p.bufs;
	if (p.more)
		peer->grow = true;
	if (p.last)
		peer->delivered++;
}

/* An end may send an ack now: credits to return, or one to spare. */
static bool sim_may_ack(struct sim *s, int i)
{
	return s->ok(&s->end[i].c, 1);
}

/*
 * Every receive buffer of end @j is exactly one of: a credit of the other
 * end, taken by a packet on the way, completed and not reposted, owed
 * back by @j, or on its way back in a packet.
 */
static bool sim_conserved(const struct sim *s)
{
	int i;

	for (i = 0; i < 2; i++) {
		const struct sim_end *e = &s->end[i];
		const struct sim_end *peer = &s->end[!i];
		u64 sum = (u64)e->c.avail + e->q_len + peer->consumed +
			  peer->c.adv + peer->q_credits;

		if (sum != peer->posted)
			return false;
	}
	return true;
}

/* Nothing else can happen: the ack timer of the end owing more fires. */
static enum sim_result sim_idle(struct sim *s)
{
	int i = s->end[1].c.adv > s->end[0].c.adv;

	if (!s->end[0].to_send && !s->end[1].to_send)
		return SIM_DONE;
	if (!s->end[i].c.adv || !s->ok(&s->end[i].c, 1))
		i = !i;
	if (!s->end[i].c.adv || !s->ok(&s->end[i].c, 1))
		return SIM_DEADLOCK;
	return sim_post(s, i, 1, false) ? SIM_RUNNING : SIM_OVERRUN;
}

static enum sim_result sim_step(struct sim *s, int i, enum sim_action a)
{
	struct sim_end *e = &s->end[i];
	u32 n;

	switch (a) {
	case SIM_SEND:
		if (!sim_post(s, i, e->frags, true))
			return SIM_OVERRUN;
		e->to_send--;
		e->frags = sim_next_frags(s);
		break;
	case SIM_ARRIVE:
		sim_arrive(s, i);
		break;
	case SIM_REPOST:
		e->consumed--;
		e->c.adv++;
		if (e->c.adv >= rdsd_ib_ack_credits(e->posted) &&
		    sim_may_ack(s, i) && !sim_post(s, i, 1, false))
			return SIM_OVERRUN;
		break;
	case SIM_ASK:
		rdsd_ib_credits_short(&e->c);
		if (!sim_post(s, i, 1, false))
			return SIM_OVERRUN;
		break;
	case SIM_GROW:
	default:
		e->grow = false;
		n = min(2 * e->posted, s->ring) - e->posted;
		e->posted += n;
		e->c.adv += n;
		if (n && sim_may_ack(s, i) && !sim_post(s, i, 1, false))
			return SIM_OVERRUN;
		break;
	}
	return SIM_RUNNING;
}

static bool sim_enabled(struct sim *s, int i, enum sim_action a)
{
	struct sim_end *e = &s->end[i];

	switch (a) {
	case SIM_SEND:
		return e->to_send && s->ok(&e->c, e->frags);
	case SIM_ARRIVE:
		return e->q_len;
	case SIM_REPOST:
		return e->consumed;
	case SIM_ASK: {
		/* what rdsd_ib_credits_short() would ask, or asked already */
		bool asks = e->c.want || (e->c.peer_bufs < e->c.max &&
					  e->c.asked != e->c.peer_bufs);

		return e->to_send && !s->ok(&e->c, e->frags) && asks &&
		       sim_may_ack(s, i);
	}
	case SIM_GROW:
	default:
		return e->grow;
	}
}

/* Pick one of the possible actions, by weight; false if there is none. */
static bool sim_pick(struct sim *s, int *end, enum sim_action *action)
{
	u32 total = 0, pick;
	int i, a;

	for (i = 0; i < 2; i++)
		for (a = 0; a < SIM_NR_ACTIONS; a++)
			if (sim_enabled(s, i, a))
				total += s->weight[i][a];
	if (!total)
		return false;
	pick = sim_rand(s, total);
	for (i = 0; i < 2; i++) {
		for (a = 0; a < SIM_NR_ACTIONS; a++) {
			if (!sim_enabled(s, i, a))
				continue;
			if (pick < s->weight[i][a]) {
				*end = i;
				*action = a;
				return true;
			}
			pick -= s->weight[i][a];
		}
	}
	return false;
}

static enum sim_result sim_run(struct sim *s)
{
	enum sim_action a;
	enum sim_result r;
	long step;
	int i;

	for (step = 0; step < SIM_STEPS_MAX; step++) {
		if (sim_pick(s, &i, &a))
			r = sim_step(s, i, a);
		else
			r = sim_idle(s);
		if (r != SIM_RUNNING)
			return r;
		if (!sim_conserved(s))
			return SIM_LOST;
	}
	return SIM_TOO_LONG;
}

static void sim_init(struct kunit *test, struct sim *s, u32 init, u32 ring,
		     const u32 *msgs, u64 seed,
		     bool (*ok)(const struct rdsd_ib_credits *c, u32 n))
{
	int i, a;

	memset(s, 0, sizeof(*s));
	s->ok = ok;
	s->ring = ring;
	prandom_seed_state(&s->rnd, seed);
	/* each seed favours some actions: bursts, slow reposts, ... */
	for (i = 0; i < 2; i++)
		for (a = 0; a < SIM_NR_ACTIONS; a++)
			s->weight[i][a] = 1 + sim_rand(s, 8);
	for (i = 0; i < 2; i++) {
		struct sim_end *e = &s->end[i];

		e->posted = init;
		e->c.avail = init;
		e->c.peer_bufs = init;
		e->c.max = ring;
		e->to_send = msgs[i];
		e->frags = sim_next_frags(s);
		e->q = kunit_kcalloc(test, ring, sizeof(*e->q), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, e->q);
	}
}

struct sim_case {
	const char	*name;
	u32		init;
	u32		ring;
	u32		msgs[2];
	u32		seeds;
};

static const struct sim_case sim_cases[] = {
	{ "ring of 3, both ways", 3, 3, { 200, 200 }, 30 },
	{ "ring of 3, one way", 3, 3, { 300, 0 }, 30 },
	{ "ring of 4, both ways", 4, 4, { 200, 200 }, 30 },
	{ "ring of 4, one way", 4, 4, { 300, 0 }, 30 },
	{ "ring of 8, both ways", 8, 8, { 200, 200 }, 30 },
	{ "ring of 16, both ways", 16, 16, { 200, 200 }, 20 },
	{ "ring of 16, one way", 16, 16, { 0, 300 }, 20 },
	{ "ring of 64, both ways", 64, 64, { 200, 200 }, 10 },
	{ "3 growing to 16, both ways", 3, 16, { 200, 200 }, 30 },
	{ "3 growing to 16, one way", 3, 16, { 300, 0 }, 30 },
	{ "3 growing to 64, both ways", 3, 64, { 200, 200 }, 20 },
	{ "4 growing to 66, one way", 4, 66, { 0, 200 }, 20 },
	{ "transport's ring, both ways", RDSD_IB_RECV_INIT, RDSD_IB_RECV_MAX,
	  { 100, 100 }, 4 },
	{ "transport's ring, one way", RDSD_IB_RECV_INIT, RDSD_IB_RECV_MAX,
	  { 150, 0 }, 4 },
};

static void sim_desc(const struct sim_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sim, sim_cases, sim_desc);

static const char * const sim_result_names[] = {
	[SIM_RUNNING]	= "running",
	[SIM_DONE]	= "done",
	[SIM_OVERRUN]	= "receive queue overrun",
	[SIM_LOST]	= "credits lost or made up",
	[SIM_DEADLOCK]	= "deadlock",
	[SIM_TOO_LONG]	= "no end",
};

static void rdsd_ib_credits_exchange_never_overruns_or_deadlocks(struct kunit *test)
{
	const struct sim_case *c = test->param_value;
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u32 seed;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (seed = 1; seed <= c->seeds; seed++) {
		enum sim_result r;

		/* Arrange */
		sim_init(test, s, c->init, c->ring, c->msgs, seed,
			 rdsd_ib_credits_ok);

		/* Act */
		r = sim_run(s);

		/* Assert: all delivered, by the rules, to the end */
		KUNIT_EXPECT_EQ_MSG(test, r, SIM_DONE, "seed %u: %s", seed,
				    sim_result_names[r]);
		KUNIT_EXPECT_EQ_MSG(test, s->end[1].delivered, c->msgs[0],
				    "seed %u", seed);
		KUNIT_EXPECT_EQ_MSG(test, s->end[0].delivered, c->msgs[1],
				    "seed %u", seed);
		if (r != SIM_DONE)
			break;
	}
}

/* A rule that lets both ends spend their last credit on data. */
static bool naive_credits_ok(const struct rdsd_ib_credits *c, u32 n)
{
	return c->avail >= n;
}

static void rdsd_ib_credits_exchange_catches_spending_last_credit(struct kunit *test)
{
	static const u32 msgs[2] = { 200, 200 };
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	int deadlocks = 0, other = 0;
	u32 seed;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (seed = 1; seed <= 30; seed++) {
		enum sim_result r;

		sim_init(test, s, 4, 4, msgs, seed, naive_credits_ok);
		r = sim_run(s);
		if (r == SIM_DEADLOCK)
			deadlocks++;
		else if (r != SIM_DONE)
			other++;
	}

	/* the model finds what the rule in ib_send.c prevents */
	KUNIT_EXPECT_GT(test, deadlocks, 0);
	KUNIT_EXPECT_EQ(test, other, 0);
}

static struct kunit_case rdsd_ib_credits_cases[] = {
	KUNIT_CASE_PARAM(rdsd_ib_credits_ok_keeps_last_credit,
			 credits_ok_gen_params),
	KUNIT_CASE_PARAM(rdsd_ib_credits_take_caps_returned,
			 credits_take_gen_params),
	KUNIT_CASE(rdsd_ib_credits_take_returns_all_over_several_headers),
	KUNIT_CASE(rdsd_ib_credits_short_asks_once_per_size),
	KUNIT_CASE_PARAM(rdsd_ib_frags_room_bounds, frags_room_gen_params),
	KUNIT_CASE(rdsd_ib_ack_credits_quarter_but_three),
	KUNIT_CASE_PARAM(rdsd_ib_credits_add_clamps_to_posted,
			 credits_add_gen_params),
	KUNIT_CASE_PARAM(rdsd_ib_credits_exchange_never_overruns_or_deadlocks,
			 sim_gen_params),
	KUNIT_CASE(rdsd_ib_credits_exchange_catches_spending_last_credit),
	{}
};

static struct kunit_suite rdsd_ib_credits_suite = {
	.name = "rds_doca_ib_credits",
	.test_cases = rdsd_ib_credits_cases,
};

/* ---- rds_doca_ib_proto: connection race, private data, fragments ---- */

#define IP4(a, b, c, d)	\
	cpu_to_be32((u32)(a) << 24 | (b) << 16 | (c) << 8 | (d))

struct race_case {
	const char	*name;
	__be32		a;
	__be32		b;
	bool		a_keeps;	/* a keeps its attempt against b */
};

static const struct race_case race_cases[] = {
	{ "198.51.100.1 against 198.51.100.2", IP4(198, 51, 100, 1),
	  IP4(198, 51, 100, 2), true },
	{ "198.51.100.2 against 198.51.100.1", IP4(198, 51, 100, 2),
	  IP4(198, 51, 100, 1), false },
	/* as raw little-endian words the order of these pairs flips */
	{ "198.51.100.2 against 203.0.113.1", IP4(198, 51, 100, 2),
	  IP4(203, 0, 113, 1), true },
	{ "203.0.113.1 against 198.51.100.2", IP4(203, 0, 113, 1),
	  IP4(198, 51, 100, 2), false },
	{ "0.0.0.2 against 1.0.0.0", IP4(0, 0, 0, 2), IP4(1, 0, 0, 0), true },
	{ "127.0.0.255 against 127.0.1.0", IP4(127, 0, 0, 255),
	  IP4(127, 0, 1, 0), true },
	{ "203.0.113.1 against 192.0.2.1", IP4(203, 0, 113, 1),
	  IP4(192, 0, 2, 1), false },
	/* a signed comparison gets these wrong */
	{ "127.255.255.255 against 128.0.0.0", IP4(127, 255, 255, 255),
	  IP4(128, 0, 0, 0), true },
	{ "255.255.255.254 against 0.0.0.1", IP4(255, 255, 255, 254),
	  IP4(0, 0, 0, 1), false },
};

static void race_desc(const struct race_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(race, race_cases, race_desc);

/* rdsd_conn_lower_wins() of two IPv4 addresses, as the module keeps them */
static bool lower_wins4(__be32 a, __be32 b)
{
	return rdsd_conn_lower_wins(&TEST_IN6(a), &TEST_IN6(b));
}

static void rdsd_ib_lower_wins_by_address(struct kunit *test)
{
	const struct race_case *c = test->param_value;

	/* each end asks with itself as laddr: exactly one keeps its own */
	KUNIT_EXPECT_EQ(test, lower_wins4(c->a, c->b), c->a_keeps);
	KUNIT_EXPECT_EQ(test, lower_wins4(c->b, c->a), !c->a_keeps);
}

static __be32 random_addr(struct rnd_state *rnd)
{
	return (__force __be32)prandom_u32_state(rnd);
}

static void rdsd_ib_lower_wins_exactly_one_end_keeps(struct kunit *test)
{
	struct rnd_state rnd;
	int i, checked = 0;

	prandom_seed_state(&rnd, 635);
	for (i = 0; i < 20000; i++) {
		__be32 a = random_addr(&rnd), b = random_addr(&rnd);
		const u8 *pa = (const u8 *)&a, *pb = (const u8 *)&b;
		bool ab = lower_wins4(a, b);
		bool ba = lower_wins4(b, a);

		if (a == b)
			continue;
		checked++;
		KUNIT_EXPECT_NE_MSG(test, ab, ba, "%pI4 against %pI4", &a, &b);
		/* the first octet on the wire is the most significant */
		if (pa[0] != pb[0])
			KUNIT_EXPECT_EQ_MSG(test, ab, (bool)(pa[0] < pb[0]),
					    "%pI4 against %pI4", &a, &b);
		if (ab == ba)
			break;	/* one report is enough */
	}
	KUNIT_EXPECT_GT(test, checked, 19000);
}

static void rdsd_ib_lower_wins_one_winner_among_many(struct kunit *test)
{
	enum { N = 64 };
	__be32 *addr = kunit_kcalloc(test, N, sizeof(*addr), GFP_KERNEL);
	struct rnd_state rnd;
	int i, j, winners = 0;

	KUNIT_ASSERT_NOT_NULL(test, addr);
	prandom_seed_state(&rnd, 18635);
	/* addresses that differ in every octet position */
	for (i = 0; i < N; i++)
		addr[i] = IP4(10 + (i & 3), i & 7, 255 - i, i);

	/* one address keeps its attempt against every other: an order */
	for (i = 0; i < N; i++) {
		bool all = true;

		for (j = 0; j < N; j++)
			if (i != j && !lower_wins4(addr[i], addr[j]))
				all = false;
		winners += all;
	}
	KUNIT_EXPECT_EQ(test, winners, 1);

	/* and it is transitive */
	for (i = 0; i < 5000; i++) {
		__be32 a = addr[prandom_u32_state(&rnd) % N];
		__be32 b = addr[prandom_u32_state(&rnd) % N];
		__be32 c = addr[prandom_u32_state(&rnd) % N];

		if (lower_wins4(a, b) && lower_wins4(b, c))
			KUNIT_EXPECT_TRUE_MSG(test, lower_wins4(a, c),
					      "%pI4 %pI4 %pI4", &a, &b, &c);
	}
}

/* What rdsd_ib_cm_data_fill() sends: a peer with the default rings. */
static void good_cm_data(struct rdsd_ib_cm_data *d)
{
	memset(d, 0, sizeof(*d));
	d->magic = cpu_to_be32(RDSD_WIRE_MAGIC);
	d->version = RDSD_IB_CM_VERSION;
	d->credits = cpu_to_be32(RDSD_IB_RECV_INIT);
	d->recv_max = cpu_to_be32(RDSD_IB_RECV_MAX);
	d->frag_size = cpu_to_be32(RDSD_IB_FRAG_SIZE);
	d->max_msg = cpu_to_be32(RDSD_MAX_MSG_SIZE);
	d->paths = 1;
	d->incarnation = cpu_to_be64(0x0123456789abcdefULL);
}

struct cm_case {
	const char	*name;
	void		(*mutate)(struct rdsd_ib_cm_data *d, u8 *len);
	int		expected;
};

#define CM_MUTATOR(fn, body) \
	static void fn(struct rdsd_ib_cm_data *d, u8 *len) { body; }

CM_MUTATOR(cm_ok, (void)d)
CM_MUTATOR(cm_req_padding, *len = 64)
CM_MUTATOR(cm_short, *len = sizeof(*d) - 1)
CM_MUTATOR(cm_empty, *len = 0)
CM_MUTATOR(cm_magic, d->magic ^= htonl(0x100))
CM_MUTATOR(cm_magic_swapped,
	   d->magic = (__force __be32)swab32((__force u32)d->magic))
CM_MUTATOR(cm_version0, d->version = 0)
CM_MUTATOR(cm_version2, d->version = RDSD_IB_CM_VERSION + 1)
CM_MUTATOR(cm_version255, d->version = 255)
CM_MUTATOR(cm_foreign, d->magic = 0; d->version = 2)
CM_MUTATOR(cm_flags, d->flags = htons(1))
CM_MUTATOR(cm_flags_top, d->flags = htons(0x8000))
CM_MUTATOR(cm_no_incarnation, d->incarnation = 0)
CM_MUTATOR(cm_delivery_state,
	   d->peer_incarnation = cpu_to_be64(7);
	   d->rx_next = cpu_to_be64(U64_MAX))
CM_MUTATOR(cm_credits_min, d->credits = htonl(3))
CM_MUTATOR(cm_credits_short, d->credits = htonl(2))
CM_MUTATOR(cm_credits_zero, d->credits = 0)
CM_MUTATOR(cm_credits_huge,
	   d->credits = htonl(U32_MAX); d->recv_max = htonl(U32_MAX))
CM_MUTATOR(cm_credits_over_max, d->credits = htonl(RDSD_IB_RECV_MAX + 1))
CM_MUTATOR(cm_credits_all, d->credits = htonl(RDSD_IB_RECV_MAX))
CM_MUTATOR(cm_recv_max_min, d->recv_max = htonl(RDSD_IB_MAX_FRAGS + 2))
CM_MUTATOR(cm_recv_max_short, d->recv_max = htonl(RDSD_IB_MAX_FRAGS + 1))
CM_MUTATOR(cm_recv_max_zero, d->recv_max = 0)
CM_MUTATOR(cm_frag_short, d->frag_size = htonl(RDSD_IB_FRAG_SIZE - 1))
CM_MUTATOR(cm_frag_4k, d->frag_size = htonl(SZ_4K))
CM_MUTATOR(cm_frag_big, d->frag_size = htonl(SZ_64K))
CM_MUTATOR(cm_max_msg_short, d->max_msg = htonl(RDSD_MAX_MSG_SIZE - 1))
CM_MUTATOR(cm_max_msg_zero, d->max_msg = 0)
CM_MUTATOR(cm_max_msg_big, d->max_msg = htonl(SZ_2M))
CM_MUTATOR(cm_reserved, d->reserved[0] = 1)
CM_MUTATOR(cm_reserved_last, d->reserved[4] = 0x80)
CM_MUTATOR(cm_path_last, d->path = RDSD_MAX_PATHS - 1;
	   d->paths = RDSD_MAX_PATHS)
CM_MUTATOR(cm_path_beyond, d->path = RDSD_MAX_PATHS)
CM_MUTATOR(cm_path_255, d->path = 255)
CM_MUTATOR(cm_paths_zero, d->paths = 0)
CM_MUTATOR(cm_paths_beyond, d->paths = RDSD_MAX_PATHS + 1)

static const struct cm_case cm_cases[] = {
	{ "valid", cm_ok, 0 },
	{ "longer than ours", cm_req_padding, 0 },
	{ "one byte short", cm_short, -EPROTO },
	{ "no private data", cm_empty, -EPROTO },
	{ "bad magic", cm_magic, -EPROTO },
	{ "magic byte-swapped", cm_magic_swapped, -EPROTO },
	{ "version 0", cm_version0, -EPROTONOSUPPORT },
	{ "next version", cm_version2, -EPROTONOSUPPORT },
	{ "version 255", cm_version255, -EPROTONOSUPPORT },
	{ "not ours at all", cm_foreign, -EPROTO },
	{ "flag set", cm_flags, -EPROTO },
	{ "top flag set", cm_flags_top, -EPROTO },
	{ "zero incarnation", cm_no_incarnation, -EPROTO },
	{ "any delivery state", cm_delivery_state, 0 },
	{ "the least ring", cm_credits_min, 0 },
	{ "two credits", cm_credits_short, -ERANGE },
	{ "no credits", cm_credits_zero, -ERANGE },
	{ "most credits", cm_credits_huge, 0 },
	{ "more credits than the ring grows to", cm_credits_over_max, -ERANGE },
	{ "the whole ring posted", cm_credits_all, 0 },
	{ "ring grows to a largest message and an ack", cm_recv_max_min, 0 },
	{ "ring one short of a largest message", cm_recv_max_short, -ERANGE },
	{ "ring that does not say", cm_recv_max_zero, -ERANGE },
	{ "fragments one byte smaller", cm_frag_short, -ERANGE },
	{ "4 KiB fragments", cm_frag_4k, -ERANGE },
	{ "larger fragments", cm_frag_big, 0 },
	{ "messages one byte smaller", cm_max_msg_short, -ERANGE },
	{ "no messages", cm_max_msg_zero, -ERANGE },
	{ "larger messages", cm_max_msg_big, 0 },
	{ "reserved byte set", cm_reserved, -EPROTO },
	{ "last reserved bit set", cm_reserved_last, -EPROTO },
	{ "the last path of the most", cm_path_last, 0 },
	{ "a path beyond the most", cm_path_beyond, -ERANGE },
	{ "path 255", cm_path_255, -ERANGE },
	{ "no paths", cm_paths_zero, -ERANGE },
	{ "more paths than the most", cm_paths_beyond, -ERANGE },
};

static void cm_desc(const struct cm_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cm, cm_cases, cm_desc);

static void rdsd_ib_cm_data_check_validates(struct kunit *test)
{
	const struct cm_case *c = test->param_value;
	/* rdma_cm hands over up to 56 bytes; what follows ours is zero */
	u8 buf[64] __aligned(8) = { };
	struct rdsd_ib_cm_data *d = (struct rdsd_ib_cm_data *)buf;
	u8 len = sizeof(*d);

	/* Arrange: valid private data, then one thing changed */
	good_cm_data(d);
	c->mutate(d, &len);

	/* Act + Assert */
	KUNIT_EXPECT_EQ(test, rdsd_ib_cm_data_check(d, len), c->expected);
}

static void rdsd_ib_cm_data_check_without_data(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rdsd_ib_cm_data_check(NULL, 0), -EPROTO);
	KUNIT_EXPECT_EQ(test, rdsd_ib_cm_data_check(NULL, 56), -EPROTO);
}

struct frag_case {
	const char	*name;
	bool		active;		/* receiver state */
	u64		seq;
	u32		len;
	u32		off;
	u64		f_seq;		/* the fragment */
	u32		f_len;
	u32		f_off;
	int		expected;
	u32		f_frag;		/* its frag_len; 0: as a sender cuts it */
};

#define FRAG	RDSD_IB_FRAG_SIZE

static const struct frag_case frag_cases[] = {
	{ "first fragment", false, 0, 0, 0, 7, 3 * FRAG, 0, 0 },
	{ "whole message in one", false, 0, 0, 0, 7, 100, 0, 0 },
	{ "empty message", false, 0, 0, 0, 7, 0, 0, 0 },
	{ "first fragment not at 0", false, 0, 0, 0, 7, 3 * FRAG, FRAG,
	  -EPROTO },
	{ "last fragment alone", false, 0, 0, 0, 7, 3 * FRAG, 2 * FRAG,
	  -EPROTO },
	{ "next fragment", true, 7, 3 * FRAG, FRAG, 7, 3 * FRAG, FRAG, 0 },
	{ "last fragment", true, 7, 40000, 2 * FRAG, 7, 40000, 2 * FRAG, 0 },
	{ "fragment of another message", true, 7, 3 * FRAG, FRAG, 8, 3 * FRAG,
	  FRAG, -EPROTO },
	{ "another length", true, 7, 3 * FRAG, FRAG, 7, 4 * FRAG, FRAG,
	  -EPROTO },
	{ "fragment again", true, 7, 3 * FRAG, 2 * FRAG, 7, 3 * FRAG, FRAG,
	  -EPROTO },
	{ "fragment skipped", true, 7, 3 * FRAG, FRAG, 7, 3 * FRAG, 2 * FRAG,
	  -EPROTO },
	{ "next message before the last fragment", true, 7, 3 * FRAG, FRAG, 8,
	  100, 0, -EPROTO },
	{ "same message from the start", true, 7, 3 * FRAG, FRAG, 7, 3 * FRAG,
	  0, -EPROTO },
	{ "sequence differs above 32 bits", true, 5, 3 * FRAG, FRAG,
	  5 + (1ULL << 32), 3 * FRAG, FRAG, -EPROTO },
	{ "sequence numbers at the top", true, U64_MAX, 3 * FRAG, FRAG,
	  U64_MAX, 3 * FRAG, FRAG, 0 },
	{ "short fragment inside a message", false, 0, 0, 0, 7, 3 * FRAG, 0,
	  -EPROTO, 1000 },
	{ "long fragment inside a message", true, 7, 4 * FRAG, FRAG, 7,
	  4 * FRAG, FRAG, -EPROTO, 2 * FRAG },
	{ "short fragment after a whole one", true, 7, 3 * FRAG, FRAG, 7,
	  3 * FRAG, FRAG, -EPROTO, FRAG - 4096 },
};

static void frag_desc(const struct frag_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(frag, frag_cases, frag_desc);

static void rdsd_ib_frag_check_continues_message(struct kunit *test)
{
	const struct frag_case *c = test->param_value;
	struct rdsd_wire_info info = {
		.type = RDSD_WIRE_DATA,
		.seq = c->f_seq,
		.len = c->f_len,
		.frag_off = c->f_off,
	};

	if (c->f_frag)
		info.frag_len = c->f_frag;
	else if (c->f_off <= c->f_len)
		info.frag_len = min_t(u32, FRAG, c->f_len - c->f_off);

	KUNIT_EXPECT_EQ(test,
			rdsd_ib_frag_check(c->active, c->seq, c->len, c->off,
					   &info),
			c->expected);
}

/*
 * Receive the fragments of messages @lens (numbered from 1) as the
 * receive path does, leaving out fragment @skip (counted over the whole
 * stream; -1 for none).  Returns the index of the first fragment refused,
 * or -1.
 */
static int frag_walk(const u32 *lens, int n, int skip)
{
	bool active = false;
	u64 seq = 0;
	u32 len = 0, off = 0;
	int m, idx = 0;

	for (m = 0; m < n; m++) {
		u32 foff = 0;

		do {
			struct rdsd_wire_info info = {
				.type = RDSD_WIRE_DATA,
				.seq = m + 1,
				.len = lens[m],
				.frag_off = foff,
				.frag_len = min_t(u32, FRAG, lens[m] - foff),
			};

			foff += info.frag_len;
			if (idx++ == skip)
				continue;
			if (rdsd_ib_frag_check(active, seq, len, off, &info))
				return idx - 1;
			if (!active) {
				active = true;
				seq = info.seq;
				len = info.len;
				off = 0;
			}
			off += info.frag_len;
			if (off == len)
				active = false;
		} while (foff < lens[m]);
	}
	return -1;
}

static void rdsd_ib_frag_check_reassembles_stream(struct kunit *test)
{
	/* fragments: 1, 1, 2, 1, 64, 1 */
	static const u32 lens[] = {
		0, FRAG, FRAG + 1, 100, RDSD_MAX_MSG_SIZE, 1,
	};

	KUNIT_EXPECT_EQ(test, frag_walk(lens, ARRAY_SIZE(lens), -1), -1);
}

static void rdsd_ib_frag_check_refuses_lost_fragment(struct kunit *test)
{
	static const u32 lens[] = { FRAG + 1, 3 * FRAG, 100 };

	/* the tail of the first message: the next message is refused */
	KUNIT_EXPECT_EQ(test, frag_walk(lens, ARRAY_SIZE(lens), 1), 2);
	/* the middle of the second message: the fragment after it */
	KUNIT_EXPECT_EQ(test, frag_walk(lens, ARRAY_SIZE(lens), 3), 4);
	/* the last fragment of the second: the next message is refused */
	KUNIT_EXPECT_EQ(test, frag_walk(lens, ARRAY_SIZE(lens), 4), 5);
	/* the first fragment of the second: its continuation is refused */
	KUNIT_EXPECT_EQ(test, frag_walk(lens, ARRAY_SIZE(lens), 2), 3);
}

/* Every work completion status maps to the notice a user can act on. */
static void rdsd_ib_op_status_maps_completions(struct kunit *test)
{
	static const struct {
		enum ib_wc_status	wc;
		int			status;
	} map[] = {
		{ IB_WC_SUCCESS,	RDS_RDMA_SUCCESS },
		{ IB_WC_REM_ACCESS_ERR,	RDS_RDMA_REMOTE_ERROR },
		{ IB_WC_REM_INV_REQ_ERR, RDS_RDMA_REMOTE_ERROR },
		{ IB_WC_REM_OP_ERR,	RDS_RDMA_REMOTE_ERROR },
		{ IB_WC_WR_FLUSH_ERR,	RDS_RDMA_DROPPED },
		{ IB_WC_RETRY_EXC_ERR,	RDS_RDMA_OTHER_ERROR },
		{ IB_WC_LOC_PROT_ERR,	RDS_RDMA_OTHER_ERROR },
		{ IB_WC_GENERAL_ERR,	RDS_RDMA_OTHER_ERROR },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		KUNIT_EXPECT_EQ_MSG(test, rdsd_ib_op_status(map[i].wc),
				    map[i].status, "%s",
				    ib_wc_status_msg(map[i].wc));
}

/*
 * One send of a schedule: it holds a message (@msg) or nothing, asks for
 * a completion whatever the count (@force), or is the completion of the
 * oldest signaled send in flight (@complete); @stuck: only a signaled
 * ACK from the ack timer would release what the tail holds.
 */
struct tail_step {
	bool	msg;
	bool	force;
	bool	complete;
	bool	stuck;
};

/* Post or complete as ib_send.c does, on a connection's counters. */
static void tail_apply(struct rdsd_ib_conn *tp, struct rdsd_msg *msg,
		       const struct tail_step *st)
{
	struct rdsd_ib_send s = {};

	if (st->complete) {
		tp->sig_inflight--;
		return;
	}
	s.msg = st->msg ? msg : NULL;
	rdsd_ib_signal(tp, &s, st->force);
	if (s.wr.send_flags & IB_SEND_SIGNALED)
		tp->sig_inflight++;
	tp->send_head++;
}

static void rdsd_ib_tail_stuck_until_signaled(struct kunit *test)
{
	static const struct tail_step steps[] = {
		/* an idle connection sends a message: nothing retires it */
		{ .msg = true, .stuck = true },
		{ .msg = true, .stuck = true },
		/* the ack timer's signaled ACK */
		{ .force = true },
		{ .complete = true },
		/* control messages hold nothing */
		{},
		{},
		/* an operation (its last piece signaled), then its message */
		{ .msg = true, .force = true },
		{ .msg = true },
		/* that completion leaves the message behind it */
		{ .complete = true, .stuck = true },
		{ .force = true },
		{ .complete = true },
	};
	struct rdsd_ib_conn *tp;
	struct rdsd_msg *msg;
	unsigned int i;

	/* Arrange */
	tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	msg = kunit_kzalloc(test, sizeof(*msg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tp);
	KUNIT_ASSERT_NOT_NULL(test, msg);

	/* Act and Assert, step by step */
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		tail_apply(tp, msg, &steps[i]);
		KUNIT_EXPECT_EQ_MSG(test, rdsd_ib_tail_stuck(tp),
				    steps[i].stuck, "step %u", i);
	}
}

/* A busy ring asks for a completion every RDSD_IB_SIGNAL_EVERY sends. */
static void rdsd_ib_tail_stuck_not_while_signal_due(struct kunit *test)
{
	const struct tail_step send = { .msg = true };
	struct rdsd_ib_conn *tp;
	struct rdsd_msg *msg;
	unsigned int i;

	tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	msg = kunit_kzalloc(test, sizeof(*msg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tp);
	KUNIT_ASSERT_NOT_NULL(test, msg);

	for (i = 0; i < RDSD_IB_SIGNAL_EVERY; i++)
		tail_apply(tp, msg, &send);
	/* the last of them asked: its completion retires them all */
	KUNIT_EXPECT_EQ(test, tp->sig_inflight, 1);
	KUNIT_EXPECT_FALSE(test, rdsd_ib_tail_stuck(tp));
	tail_apply(tp, msg, &send);
	KUNIT_EXPECT_FALSE(test, rdsd_ib_tail_stuck(tp));
	tail_apply(tp, msg, &(struct tail_step){ .complete = true });
	KUNIT_EXPECT_TRUE(test, rdsd_ib_tail_stuck(tp));
}

/*
 * What a peer granted bounds every operation on its cookie: the owner's
 * port, the one asking port a RDS_GET_MR_FOR_DEST region names, the
 * range (counted from the cookie's high half) and the rights.
 */
static void rdsd_ib_grant_check_bounds_operations(struct kunit *test)
{
	const u64 cookie = ((u64)0xabcde064 << 32) | 0x1234;	/* offset 100 */
	const u64 base = 0xabcde064;
	struct rdsd_ib_grant g = {
		.cookie = cookie, .rkey = 7, .len = 1000,
		.dport = htons(5000), .sport = 0,
	};
	struct rdsd_op op = {
		.kind = RDSD_OP_WRITE, .cookie = cookie, .raddr = base,
		.bytes = 16,
	};
	const __be16 sp = htons(4000), dp = htons(5000);

	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, dp), 0);
	/* another owner port */
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, htons(5001)),
			-EACCES);
	/* the last byte, and one past it */
	op.raddr = base + 999;
	op.bytes = 1;
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, dp), 0);
	op.raddr = base + 1000;
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, dp), -EACCES);
	op.raddr = base + 992;
	op.bytes = 16;
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, dp), -EACCES);
	/* before the region, and a range whose end wraps */
	op.raddr = base - 1;
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, dp), -EACCES);
	op.raddr = ~0ULL - 7;
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, dp), -EACCES);
	op.raddr = base;
	op.bytes = 0;
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, dp), -EACCES);
	op.bytes = 8;
	/* read-only: reads go, writes and atomics do not */
	g.flags = RDSD_WIRE_F_MR_RO;
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, dp), -EACCES);
	op.kind = RDSD_OP_FADD;
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, dp), -EACCES);
	op.kind = RDSD_OP_READ;
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, dp), 0);
	/* a grant for one asking port */
	g.sport = htons(4001);
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, sp, dp), -EACCES);
	KUNIT_EXPECT_EQ(test, rdsd_ib_grant_check(&g, &op, htons(4001), dp), 0);
}

/*
 * Revocations wait while the peer returns no credit, and never fill the
 * control queue: two places stay for an answer and a question, and past
 * that one revocation of every grant is owed instead, after the rest.
 */
static void rdsd_ib_mr_revoke_bounded(struct kunit *test)
{
	struct rdsd_ib_conn *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	struct rdsd_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, tp);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	tp->dev = kunit_kzalloc(test, sizeof(*tp->dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tp->dev);
	spin_lock_init(&tp->send_lock);
	tp->tx_ready = true;		/* up, but no credit: nothing goes */
	for (i = 1; i <= 100; i++) {
		mr->key = i;
		rdsd_ib_mr_revoke(tp, mr);
	}
	KUNIT_EXPECT_EQ(test, tp->ctl_head - tp->ctl_tail,
			(u32)RDSD_IB_CTL_RING - 2);
	KUNIT_EXPECT_TRUE(test, tp->revoke_all);
	for (i = tp->ctl_tail; i != tp->ctl_head; i++) {
		KUNIT_EXPECT_EQ(test, tp->ctl[i % RDSD_IB_CTL_RING].type,
				(u8)RDSD_WIRE_MR_REVOKE);
		KUNIT_EXPECT_EQ(test,
				tp->ctl[i % RDSD_IB_CTL_RING].rdma_cookie,
				(u64)(i + 1));
	}
	/* a queue pair that is not up forgets everything anyway */
	tp->tx_ready = false;
	tp->revoke_all = false;
	i = tp->ctl_head;
	rdsd_ib_mr_revoke(tp, mr);
	KUNIT_EXPECT_EQ(test, tp->ctl_head, i);
	KUNIT_EXPECT_FALSE(test, tp->revoke_all);
}

/* ---- iWARP read sinks: the runs one memory region maps ---- */

struct sink_piece {
	u32	off;
	u32	len;
};

struct sink_case {
	const char		*name;
	u32			sink_pages;
	const struct sink_piece	*pieces;
	u32			n;
	u32			runs;
};

static const struct sink_piece sink_whole[] = {
	{ 0, PAGE_SIZE }, { 0, PAGE_SIZE }, { 0, PAGE_SIZE }, { 0, PAGE_SIZE },
};

/* starts mid-page, ends mid-page, no gap between */
static const struct sink_piece sink_span[] = {
	{ 100, PAGE_SIZE - 100 }, { 0, PAGE_SIZE }, { 0, 200 },
};

/* the first piece ends mid-page: the second starts a new region */
static const struct sink_piece sink_short_end[] = {
	{ 0, 100 }, { 0, PAGE_SIZE },
};

/* a piece in the middle starts mid-page */
static const struct sink_piece sink_mid_start[] = {
	{ 0, PAGE_SIZE }, { 8, PAGE_SIZE - 8 }, { 0, PAGE_SIZE },
};

/* three pages where two fit one region */
static const struct sink_piece sink_three[] = {
	{ 0, PAGE_SIZE }, { 0, PAGE_SIZE }, { 0, PAGE_SIZE },
};

/* small pieces that each end mid-page */
static const struct sink_piece sink_small[] = {
	{ 0, 64 }, { 0, 64 }, { 0, 64 }, { 0, 64 }, { 0, 64 },
};

static const struct sink_case sink_cases[] = {
	{ "whole pages: one region", 256, sink_whole, 4, 1 },
	{ "spanning pages, ragged ends: one region", 256, sink_span, 3, 1 },
	{ "a piece ending mid-page: two", 256, sink_short_end, 2, 2 },
	{ "a piece starting mid-page: two", 256, sink_mid_start, 3, 2 },
	{ "three pages, two per region: two", 2, sink_three, 3, 2 },
	{ "three pages, one per region: three", 1, sink_three, 3, 3 },
	{ "five small pieces: five", 256, sink_small, 5, 5 },
};

static void sink_desc(const struct sink_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sink, sink_cases, sink_desc);

/*
 * An iWARP read's buffer goes to the device in regions that each map a
 * run without gaps, of at most sink_pages pages: the count of runs is the
 * count of regions the read takes, and of the work requests it posts.
 */
static void rdsd_ib_sink_runs_split_at_gaps(struct kunit *test)
{
	const struct sink_case *c = test->param_value;
	struct rdsd_ib_conn *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	struct scatterlist *sg;
	struct page *page;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, tp);
	sg = kunit_kcalloc(test, c->n, sizeof(*sg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sg);
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	sg_init_table(sg, c->n);
	for (i = 0; i < c->n; i++)
		sg_set_page(&sg[i], page, c->pieces[i].len, c->pieces[i].off);
	tp->sink_pages = c->sink_pages;
	KUNIT_EXPECT_EQ(test, rdsd_ib_sink_runs(tp, sg, c->n, false), c->runs);
	/* a prefix never takes more regions than the whole */
	KUNIT_EXPECT_LE(test, rdsd_ib_sink_runs(tp, sg, c->n - 1, false),
			c->runs);
	__free_page(page);
}

static struct kunit_case rdsd_ib_proto_cases[] = {
	KUNIT_CASE_PARAM(rdsd_ib_sink_runs_split_at_gaps, sink_gen_params),
	KUNIT_CASE(rdsd_ib_grant_check_bounds_operations),
	KUNIT_CASE(rdsd_ib_mr_revoke_bounded),
	KUNIT_CASE(rdsd_ib_op_status_maps_completions),
	KUNIT_CASE(rdsd_ib_tail_stuck_until_signaled),
	KUNIT_CASE(rdsd_ib_tail_stuck_not_while_signal_due),
	KUNIT_CASE_PARAM(rdsd_ib_lower_wins_by_address, race_gen_params),
	KUNIT_CASE(rdsd_ib_lower_wins_exactly_one_end_keeps),
	KUNIT_CASE(rdsd_ib_lower_wins_one_winner_among_many),
	KUNIT_CASE_PARAM(rdsd_ib_cm_data_check_validates, cm_gen_params),
	KUNIT_CASE(rdsd_ib_cm_data_check_without_data),
	KUNIT_CASE_PARAM(rdsd_ib_frag_check_continues_message,
			 frag_gen_params),
	KUNIT_CASE(rdsd_ib_frag_check_reassembles_stream),
	KUNIT_CASE(rdsd_ib_frag_check_refuses_lost_fragment),
	{}
};

static struct kunit_suite rdsd_ib_proto_suite = {
	.name = "rds_doca_ib_proto",
	.test_cases = rdsd_ib_proto_cases,
};

kunit_test_suites(&rdsd_ib_credits_suite, &rdsd_ib_proto_suite);
