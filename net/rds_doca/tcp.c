// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca TCP transport: connections.
 *
 * Serves every address of a namespace that no RDMA device serves, in
 * every network namespace.  One kernel TCP connection carries one
 * rds_doca connection (a pair of addresses and a path): the frames are
 * the IB transport's headers (wire.h), each followed by its payload, in
 * one byte stream.  TCP orders and repairs the stream; the core's
 * sequence numbers and acknowledgments make delivery exactly once across
 * a reset, as over IB.
 *
 * Each namespace listens on the module parameter tcp_port, for IPv4 and
 * for IPv6 peers.  Either end may connect:
 *
 *            conn_connect / backoff timer
 *   DOWN -----------------------------------> ACTIVE (connect, then hello)
 *    ^  \                                        |
 *    |   \ a peer's hello accepted               | the peer's hello
 *    |    `---------------------------------->  UP
 *    |                                           |
 *    `------ reset: teardown, reconnect <--------' the socket closes or
 *            after a random, doubling delay        fails, a bad frame
 *
 * The first bytes each way are a hello (struct rdsd_tcp_hello): the
 * protocol, the path, the incarnations and what the sender delivered of
 * the other's stream, as in the IB private data.  The connecting end
 * sends its hello as soon as TCP is up; the accepting end reads it,
 * decides, and answers with its own.  When both ends connect at once, the
 * attempt of the lower address wins: the lower end closes the other
 * attempt, the higher end abandons its own and accepts.  A hello from a
 * peer whose connection is up here means the peer lost it: the old socket
 * goes and the new one takes its place.
 *
 * Accepted sockets wait for their hello on a per-namespace list, at most
 * RDSD_TCP_PENDING_MAX of them and for RDSD_TCP_HELLO_MS each; a peer
 * that says nothing, or too much at once, is closed.
 *
 * Locking: tp->cm_mutex serializes connecting, accepting and teardown of
 * one connection, and nests outside tp->tx_mutex.  A socket's callbacks
 * find the connection through sk_user_data under sk_callback_lock;
 * teardown detaches them under its write lock before it lets the socket
 * go, so no callback runs on a connection whose socket is gone.
 *
 * The stack reads a callback's pointer before the callback takes
 * sk_callback_lock, so a callback may run just after it was replaced and
 * find its successor's sk_user_data.  An accepted socket goes through
 * three owners: it is born with the listener's callbacks and the
 * namespace's part as sk_user_data, then is pending, then belongs to its
 * connection.  The listener's and the pending socket's callbacks check
 * under the lock that they are still the ones installed and otherwise
 * hand the event to the one that is; a connection's socket never changes
 * owner again, its callbacks only find it detached.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/in.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/inet_common.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <kunit/visibility.h>

#include "tcp.h"
#include "conn.h"
#include "recv.h"
#include "send.h"
#include "stats.h"
#include "transport.h"
#include "trace.h"

static ushort rdsd_tcp_port_param = RDSD_TCP_PORT_DEFAULT;
module_param_named(tcp_port, rdsd_tcp_port_param, ushort, 0444);
MODULE_PARM_DESC(tcp_port,
		 "TCP port the TCP transport listens on and connects to (default 18636; rds_tcp uses 16385)");

/* how long an attempt may wait for the peer's hello */
#define RDSD_TCP_ATTEMPT_MS	15000

/* ->listen_port */
static u16 rdsd_tcp_port(void)
{
	return rdsd_tcp_port_param;
}

/**
 * struct rdsd_tcp_net - the TCP transport's part of a namespace
 * @net: the namespace.
 * @listen: the listening sockets, IPv4 and IPv6 (IPv6 only), each with
 *	its own data-ready callback, put back at the exit; NULL if it could
 *	not be made.
 * @accept_work: accepts what the listener has.
 * @lock: protects @pending, @nr_pending and @stopping.
 * @pending: accepted sockets waiting for their hello.
 * @nr_pending: entries of @pending, at most RDSD_TCP_PENDING_MAX.
 * @busy: pending sockets taken off @pending whose work still runs.
 * @idle: woken when @busy drops to 0.
 * @stopping: the namespace or the module goes: accept nothing more.
 */
struct rdsd_tcp_net {
	struct net		*net;
	struct rdsd_tcp_listener {
		struct socket	*sock;
		void		(*orig_data_ready)(struct sock *sk);
	}			listen[2];
	struct work_struct	accept_work;
	spinlock_t		lock;	/* see above */
	struct list_head	pending;
	unsigned int		nr_pending;
	unsigned int		busy;
	wait_queue_head_t	idle;
	bool			stopping;
};

/**
 * struct rdsd_tcp_pending - an accepted socket before its hello
 * @item: on tn->pending.
 * @tn: the namespace's part.
 * @sock: the socket.
 * @work: reads the hello; also runs at the deadline.
 * @deadline: jiffies by which the hello must be whole.
 * @have: bytes of @hello read.
 * @hello: the peer's hello.
 * @orig_data_ready: the socket's own callbacks, put back by the detach.
 * @orig_state_change: as @orig_data_ready.
 *
 * Lifetime: made by the accept work; freed by whoever takes it off
 * tn->pending (its own work, or the namespace's exit).
 */
struct rdsd_tcp_pending {
	struct list_head	item;
	struct rdsd_tcp_net	*tn;
	struct socket		*sock;
	struct delayed_work	work;
	unsigned long		deadline;
	u32			have;
	struct rdsd_tcp_hello	hello;
	void			(*orig_data_ready)(struct sock *sk);
	void			(*orig_state_change)(struct sock *sk);
};

static unsigned int rdsd_tcp_net_id __read_mostly;

static struct rdsd_tcp_net *rdsd_tcp_net(const struct net *net)
{
	return net_generic(net, rdsd_tcp_net_id);
}

/* Protocol rules ----------------------------------------------------------- */

/**
 * rdsd_tcp_hello_check - is the peer's hello usable?
 * @h: the hello.
 *
 * Returns 0, -EPROTO if it is not ours, -EPROTONOSUPPORT for another
 * version, or -ERANGE for sizes or paths this end cannot work with.
 */
int rdsd_tcp_hello_check(const struct rdsd_tcp_hello *h)
{
	if (be32_to_cpu(h->magic) != RDSD_WIRE_MAGIC)
		return -EPROTO;
	if (h->version != RDSD_WIRE_VERSION)
		return -EPROTONOSUPPORT;
	if (h->flags || h->reserved1 || !h->incarnation ||
	    memchr_inv(h->reserved, 0, sizeof(h->reserved)))
		return -EPROTO;
	if (be32_to_cpu(h->max_msg) < RDSD_MAX_MSG_SIZE ||
	    h->path >= RDSD_MAX_PATHS || !h->paths ||
	    h->paths > RDSD_MAX_PATHS)
		return -ERANGE;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_tcp_hello_check);

/**
 * rdsd_tcp_hello_fill - our hello on @tp's connection
 * @tp: the connection.
 * @h: filled in.
 */
void rdsd_tcp_hello_fill(const struct rdsd_tcp_conn *tp,
			 struct rdsd_tcp_hello *h)
{
	memset(h, 0, sizeof(*h));
	h->magic = cpu_to_be32(RDSD_WIRE_MAGIC);
	h->version = RDSD_WIRE_VERSION;
	h->max_msg = cpu_to_be32(RDSD_MSG_SIZE_LIMIT);
	h->incarnation = cpu_to_be64(tp->incarnation);
	h->peer_incarnation = cpu_to_be64(tp->peer_incarnation);
	h->rx_next = cpu_to_be64(READ_ONCE(tp->conn->next_rx_seq));
	h->path = tp->conn->path;
	h->paths = 1;
	h->tos = tp->conn->tos;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_tcp_hello_fill);

/*
 * The peer's hello was accepted: a new incarnation of the peer numbers
 * its messages afresh.  Nothing is being received on the connection.
 */
void rdsd_tcp_peer_learn(struct rdsd_tcp_conn *tp,
			 const struct rdsd_tcp_hello *h)
{
	u64 inc = be64_to_cpu(h->incarnation);

	tp->peer_hello = *h;
	if (tp->peer_incarnation == inc)
		return;
	if (tp->peer_incarnation)
		pr_info("%s: peer restarted\n", tp->conn->name);
	tp->peer_incarnation = inc;
	WRITE_ONCE(tp->conn->next_rx_seq, 0);
}

/* Socket callbacks ---------------------------------------------------------- */

/* The connection a socket's callback is for, under sk_callback_lock. */
static struct rdsd_tcp_conn *rdsd_tcp_sk_conn(struct sock *sk)
{
	return sk->sk_user_data;
}

static void rdsd_tcp_state_change(struct sock *sk)
{
	struct rdsd_tcp_conn *tp;

	read_lock_bh(&sk->sk_callback_lock);
	tp = rdsd_tcp_sk_conn(sk);
	if (!tp)
		goto out;
	switch (sk->sk_state) {
	case TCP_ESTABLISHED:
		/* our connect went through: the hello goes */
		queue_work(rdsd_wq, &tp->tx_work);
		break;
	case TCP_SYN_SENT:
	case TCP_SYN_RECV:
		break;
	default:
		/* closing, closed or reset by the peer */
		rdsd_tcp_request_reset(tp, tp->gen);
		break;
	}
out:
	read_unlock_bh(&sk->sk_callback_lock);
}

/* Point @sock's callbacks at @tp; nothing runs for it before. */
static void rdsd_tcp_sk_attach(struct rdsd_tcp_conn *tp, struct socket *sock)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	tp->orig_data_ready = sk->sk_data_ready;
	tp->orig_write_space = sk->sk_write_space;
	tp->orig_state_change = sk->sk_state_change;
	sk->sk_user_data = tp;
	sk->sk_data_ready = rdsd_tcp_data_ready;
	sk->sk_write_space = rdsd_tcp_write_space;
	sk->sk_state_change = rdsd_tcp_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* Detach @sock's callbacks: once this returns none runs for @tp. */
static void rdsd_tcp_sk_detach(struct rdsd_tcp_conn *tp, struct socket *sock)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = tp->orig_data_ready;
	sk->sk_write_space = tp->orig_write_space;
	sk->sk_state_change = tp->orig_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Settings of every data socket: frames go out at once (no Nagle), in
 * the connection's lane: its type of service is the IP TOS byte, or the
 * IPv6 traffic class (their ECN bits stay TCP's).
 */
static void rdsd_tcp_sk_setup(struct socket *sock, u8 tos)
{
	struct sock *sk = sock->sk;

	tcp_sock_set_nodelay(sk);
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		lock_sock(sk);
		inet6_sk(sk)->tclass = (tos & ~INET_ECN_MASK) |
				       (inet6_sk(sk)->tclass & INET_ECN_MASK);
		release_sock(sk);
		return;
	}
#endif
	ip_sock_set_tos(sk, tos);
}

/* Attempts ------------------------------------------------------------------- */

/**
 * rdsd_tcp_request_reset - tear the socket of generation @gen down
 * @tp: connection.
 * @gen: the generation the caller saw; an older one is ignored.
 *
 * Any context.
 */
void rdsd_tcp_request_reset(struct rdsd_tcp_conn *tp, u32 gen)
{
	WRITE_ONCE(tp->reset_gen, gen);
	queue_work(rdsd_wq, &tp->reset_work);
}

/*
 * Our attempts waiting for the peer's hello hold a socket each: at most
 * RDSD_USER_ATTEMPTS of one user's and RDSD_MAX_ATTEMPTS in all at once
 * (conn.c), whatever max_conns allows.  A place is taken before the
 * socket is made and given back when the path comes up or the attempt
 * goes (holds_attempt, under cm_mutex).
 */
static struct rdsd_attempts rdsd_tcp_attempts;

/*
 * Let the current socket go: no callback, worker or writer touches it
 * afterwards, what was half sent or half received is dropped, and the
 * core learns the path is down.  cm_mutex held.
 */
static void rdsd_tcp_teardown_locked(struct rdsd_tcp_conn *tp)
{
	struct socket *sock = tp->sock;

	lockdep_assert_held(&tp->cm_mutex);
	cancel_delayed_work(&tp->timeout_work);
	rdsd_attempt_put(&rdsd_tcp_attempts, tp->uid, &tp->holds_attempt);
	if (!sock) {
		tp->state = RDSD_TCP_DOWN;
		return;
	}
	rdsd_tcp_sk_detach(tp, sock);
	cancel_work_sync(&tp->rx_work);
	/* an up_work of this socket finds the state changed */
	WRITE_ONCE(tp->hello_heard, false);
	rdsd_tcp_tx_stop(tp);	/* tp->sock is NULL, tp->gen new */
	rdsd_tcp_rx_reset(tp);
	rdsd_tcp_rdma_reset(tp);
	tp->state = RDSD_TCP_DOWN;
	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
	rdsd_conn_down(tp->conn);
}

/* The next attempt, after a random, doubling delay; cm_mutex held. */
static void rdsd_tcp_schedule_connect(struct rdsd_tcp_conn *tp)
{
	lockdep_assert_held(&tp->cm_mutex);
	if (tp->dead)
		return;
	/* nothing waits for the path: the next message connects it */
	if (rdsd_conn_park(tp->conn))
		return;
	queue_delayed_work(rdsd_wq, &tp->connect_work,
			   rdsd_conn_backoff(&tp->backoff_ms));
}

static void rdsd_tcp_reset_worker(struct work_struct *work)
{
	struct rdsd_tcp_conn *tp = container_of(work, struct rdsd_tcp_conn,
						reset_work);

	mutex_lock(&tp->cm_mutex);
	if (READ_ONCE(tp->reset_gen) == tp->gen && tp->sock) {
		trace_rdsd_conn_reset(tp->conn, RDSD_RESET_CM);
		if (tp->state == RDSD_TCP_UP)
			rdsd_stat_inc(tp->conn->rn, conn_reset);
		rdsd_tcp_teardown_locked(tp);
		rdsd_tcp_schedule_connect(tp);
	}
	mutex_unlock(&tp->cm_mutex);
}

/* An attempt that did not come up in time goes, and another follows. */
static void rdsd_tcp_timeout_worker(struct work_struct *work)
{
	struct rdsd_tcp_conn *tp = container_of(to_delayed_work(work),
						struct rdsd_tcp_conn,
						timeout_work);

	mutex_lock(&tp->cm_mutex);
	if (tp->state == RDSD_TCP_ACTIVE) {
		WRITE_ONCE(tp->conn->last_error, -ETIMEDOUT);
		rdsd_tcp_teardown_locked(tp);
		rdsd_tcp_schedule_connect(tp);
	}
	mutex_unlock(&tp->cm_mutex);
}

/*
 * Both ends agree the connection is up: forget what the peer says it
 * delivered, send the rest again.  Returns 0, or -EPROTO when the peer
 * acknowledges a message never sent.  cm_mutex held.
 */
static int rdsd_tcp_established(struct rdsd_tcp_conn *tp)
{
	struct rdsd_conn *conn = tp->conn;
	u64 rx_next = be64_to_cpu(tp->peer_hello.rx_next);

	lockdep_assert_held(&tp->cm_mutex);
	if (be64_to_cpu(tp->peer_hello.peer_incarnation) == tp->incarnation &&
	    rx_next && rdsd_send_acked(conn, rx_next - 1)) {
		WRITE_ONCE(conn->last_error, -EPROTO);
		pr_info_ratelimited("%s: peer acknowledges %llu, never sent\n",
				    conn->name, rx_next - 1);
		return -EPROTO;
	}
	cancel_delayed_work(&tp->timeout_work);
	rdsd_attempt_put(&rdsd_tcp_attempts, tp->uid, &tp->holds_attempt);
	tp->state = RDSD_TCP_UP;
	tp->backoff_ms = 0;
	rdsd_conn_requeue_unacked(conn);
	rdsd_tcp_tx_start(tp);
	rdsd_conn_up(conn);
	return 0;
}

/* Our attempt's hello was answered (tcp_recv.c saw it): the path is up. */
static void rdsd_tcp_up_worker(struct work_struct *work)
{
	struct rdsd_tcp_conn *tp = container_of(work, struct rdsd_tcp_conn,
						up_work);

	mutex_lock(&tp->cm_mutex);
	if (tp->state == RDSD_TCP_ACTIVE && READ_ONCE(tp->hello_heard) &&
	    rdsd_tcp_established(tp)) {
		rdsd_tcp_teardown_locked(tp);
		rdsd_tcp_schedule_connect(tp);
	}
	mutex_unlock(&tp->cm_mutex);
}

/**
 * rdsd_tcp_hello_heard - the peer answered our attempt's hello
 * @tp: connection, its socket's rx path.
 * @h: the peer's hello, checked.
 *
 * Softirq or process context, the socket locked.
 */
void rdsd_tcp_hello_heard(struct rdsd_tcp_conn *tp,
			  const struct rdsd_tcp_hello *h)
{
	rdsd_tcp_peer_learn(tp, h);
	WRITE_ONCE(tp->hello_heard, true);
	queue_work(rdsd_wq, &tp->up_work);
}

/* Open a socket to the peer; cm_mutex held, no socket. */
static int rdsd_tcp_connect_locked(struct rdsd_tcp_conn *tp)
{
	struct rdsd_conn *conn = tp->conn;
	struct sockaddr_storage src, dst;
	struct socket *sock;
	int ret, slen, dlen;

	slen = rdsd_sockaddr_put(&src, &conn->laddr, 0, conn->scope);
	dlen = rdsd_sockaddr_put(&dst, &conn->faddr,
				 htons(rdsd_tcp_port_param), conn->scope);
	ret = sock_create_kern(conn->rn->net, src.ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &sock);
	if (ret)
		return ret;
	rdsd_tcp_sk_setup(sock, tp->conn->tos);
	ret = kernel_bind(sock, (struct sockaddr *)&src, slen);
	if (ret)
		goto fail;

	tp->state = RDSD_TCP_ACTIVE;
	WRITE_ONCE(tp->hello_heard, false);
	tp->hello_due = true;
	tp->rx_state = RDSD_TCP_RX_HELLO;
	tp->rx_have = 0;
	mutex_lock(&tp->tx_mutex);
	tp->sock = sock;
	mutex_unlock(&tp->tx_mutex);
	rdsd_tcp_sk_attach(tp, sock);
	ret = kernel_connect(sock, (struct sockaddr *)&dst, dlen, O_NONBLOCK);
	if (ret && ret != -EINPROGRESS) {
		rdsd_tcp_teardown_locked(tp);
		return ret;
	}
	queue_delayed_work(rdsd_wq, &tp->timeout_work,
			   msecs_to_jiffies(RDSD_TCP_ATTEMPT_MS));
	return 0;

fail:
	sock_release(sock);
	return ret;
}

static void rdsd_tcp_connect_worker(struct work_struct *work)
{
	struct rdsd_tcp_conn *tp = container_of(to_delayed_work(work),
						struct rdsd_tcp_conn,
						connect_work);
	struct rdsd_conn *conn = tp->conn;
	int ret;

	mutex_lock(&tp->cm_mutex);
	if (tp->state != RDSD_TCP_DOWN || tp->dead)
		goto out;
	if (!rdsd_attempt_get(&rdsd_tcp_attempts, conn->rn, tp->uid,
			      &tp->holds_attempt)) {
		/*
		 * Too many wait for answers: try again later.  This counts as
		 * a failed attempt: what closed sockets left goes.
		 */
		rdsd_send_drop_orphans(conn);
		rdsd_tcp_schedule_connect(tp);
		goto out;
	}
	ret = rdsd_tcp_connect_locked(tp);
	if (ret) {
		rdsd_attempt_put(&rdsd_tcp_attempts, tp->uid,
				 &tp->holds_attempt);
		WRITE_ONCE(conn->last_error, ret);
		pr_info_ratelimited("%s: cannot connect: %d\n",
				    conn->name, ret);
		rdsd_tcp_schedule_connect(tp);
	}
out:
	mutex_unlock(&tp->cm_mutex);
}

/* Accepting -------------------------------------------------------------------- */

/*
 * Take @sock, whose peer said @h, for the connection it names: it wins a
 * race against our own attempt only if the peer's address is the lower.
 * Returns 0 with the socket taken, or a negative errno for the caller to
 * close it.
 */
static int rdsd_tcp_adopt(struct rdsd_tcp_net *tn, struct socket *sock,
			  const struct rdsd_tcp_hello *h)
{
	struct sockaddr_storage src = {}, dst = {};
	struct in6_addr laddr, faddr;
	struct rdsd_tcp_conn *tp;
	struct rdsd_conn *conn;
	int ret, scope;

	ret = kernel_getsockname(sock, (struct sockaddr *)&src);
	if (ret < 0)
		return ret;
	ret = kernel_getpeername(sock, (struct sockaddr *)&dst);
	if (ret < 0)
		return ret;
	ret = rdsd_peer_addrs(&src, &dst, 0, &laddr, &faddr, &scope);
	if (ret)
		return ret;
	/*
	 * Made for a peer: no user to charge.  Bounded by max_conns and
	 * freed by the reaper once idle, as over IB.
	 */
	conn = rdsd_conn_find_create(rdsd_net(tn->net), &rdsd_tcp_transport,
				     &laddr, &faddr, scope, h->path, h->tos,
				     GFP_KERNEL);
	if (IS_ERR(conn))
		return PTR_ERR(conn);
	tp = conn->tp;

	mutex_lock(&tp->cm_mutex);
	ret = -EBUSY;
	if (tp->dead)
		goto out;
	/* both ends connect: the lower address's attempt wins */
	if (tp->state == RDSD_TCP_ACTIVE &&
	    rdsd_conn_lower_wins(&conn->laddr, &conn->faddr))
		goto out;
	/* we lost the race, were idle, or the peer lost the old socket */
	rdsd_tcp_teardown_locked(tp);
	cancel_delayed_work(&tp->connect_work);

	rdsd_tcp_sk_setup(sock, tp->conn->tos);
	rdsd_tcp_peer_learn(tp, h);
	tp->rx_state = RDSD_TCP_RX_HDR;
	tp->rx_have = 0;
	tp->hello_due = true;
	mutex_lock(&tp->tx_mutex);
	tp->sock = sock;
	mutex_unlock(&tp->tx_mutex);
	rdsd_tcp_sk_attach(tp, sock);
	ret = rdsd_tcp_established(tp);
	if (ret) {
		/* the socket is ours now: it goes with the teardown */
		rdsd_tcp_teardown_locked(tp);
		rdsd_tcp_schedule_connect(tp);
		ret = 0;
		goto out;
	}
	/* the hello, then what waits; and what the peer sent meanwhile */
	queue_work(rdsd_wq, &tp->tx_work);
	queue_work(rdsd_wq, &tp->rx_work);
out:
	mutex_unlock(&tp->cm_mutex);
	rdsd_conn_put(conn);
	return ret;
}

/*
 * A pending socket's data and state callbacks: its work reads what came.
 * Called late, once the socket is its connection's or closed, they pass
 * the event to the callback now installed (see the locking rule above).
 */
static void rdsd_tcp_pending_event(struct sock *sk, bool state,
				   void (*ours)(struct sock *sk))
{
	void (*now)(struct sock *sk);
	struct rdsd_tcp_pending *p;

	read_lock_bh(&sk->sk_callback_lock);
	now = state ? sk->sk_state_change : sk->sk_data_ready;
	if (now == ours) {
		p = sk->sk_user_data;
		mod_delayed_work(rdsd_wq, &p->work, 0);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (now != ours)
		now(sk);
}

VISIBLE_IF_KUNIT void rdsd_tcp_pending_data_ready(struct sock *sk)
{
	rdsd_tcp_pending_event(sk, false, rdsd_tcp_pending_data_ready);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_tcp_pending_data_ready);

VISIBLE_IF_KUNIT void rdsd_tcp_pending_state_change(struct sock *sk)
{
	rdsd_tcp_pending_event(sk, true, rdsd_tcp_pending_state_change);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_tcp_pending_state_change);

static void rdsd_tcp_pending_free(struct rdsd_tcp_pending *p, bool close)
{
	if (close) {
		kernel_sock_shutdown(p->sock, SHUT_RDWR);
		sock_release(p->sock);
	}
	kfree(p);
}

/* Detach @p's socket callbacks; it is off the list, and ours. */
static void rdsd_tcp_pending_detach(struct rdsd_tcp_pending *p)
{
	struct sock *sk = p->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = p->orig_data_ready;
	sk->sk_state_change = p->orig_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Read what is there of an accepted socket's hello; once it is whole,
 * give the socket to its connection.  A peer that closes, sends what is
 * not a hello or takes too long is closed.
 */
static void rdsd_tcp_pending_worker(struct work_struct *work)
{
	struct rdsd_tcp_pending *p = container_of(to_delayed_work(work),
						  struct rdsd_tcp_pending,
						  work);
	struct rdsd_tcp_net *tn = p->tn;
	struct rdsd_net *rn = rdsd_net(tn->net);
	struct kvec v = {
		.iov_base = (u8 *)&p->hello + p->have,
		.iov_len = sizeof(p->hello) - p->have,
	};
	struct msghdr m = { .msg_flags = MSG_DONTWAIT };
	bool done = false, mine;
	int ret;

	ret = kernel_recvmsg(p->sock, &m, &v, 1, v.iov_len, MSG_DONTWAIT);
	if (ret > 0) {
		p->have += ret;
		done = p->have == sizeof(p->hello);
	} else if (ret == -EAGAIN) {
		if (time_before(jiffies, p->deadline)) {
			queue_delayed_work(rdsd_wq, &p->work,
					   p->deadline - jiffies);
			return;
		}
		ret = -ETIMEDOUT;
	} else if (!ret) {
		ret = -ECONNRESET;
	}
	if (!done && ret > 0) {
		/* more to come, by the deadline */
		queue_delayed_work(rdsd_wq, &p->work,
				   time_before(jiffies, p->deadline) ?
				   p->deadline - jiffies : 0);
		return;
	}

	spin_lock_bh(&tn->lock);
	mine = !list_empty(&p->item);
	if (mine) {
		list_del_init(&p->item);
		tn->nr_pending--;
		tn->busy++;	/* the namespace's exit waits for us */
	}
	spin_unlock_bh(&tn->lock);
	if (!mine)
		return;	/* the namespace goes: its exit frees @p */
	rdsd_tcp_pending_detach(p);
	/* a wake-up queued before the detach must not run on freed @p */
	cancel_delayed_work(&p->work);

	if (done) {
		ret = rdsd_tcp_hello_check(&p->hello);
		if (ret) {
			rdsd_stat_inc(rn, recv_proto_error);
			pr_info_ratelimited("refusing a TCP connection: not a hello of this protocol (%d)\n",
					    ret);
		} else {
			ret = rdsd_tcp_adopt(tn, p->sock, &p->hello);
		}
	}
	rdsd_tcp_pending_free(p, ret != 0);

	spin_lock_bh(&tn->lock);
	if (!--tn->busy)
		wake_up(&tn->idle);
	spin_unlock_bh(&tn->lock);
}

/*
 * The listener has a connection to accept.  An accepted socket is born
 * with this callback and the listener's sk_user_data; until the accept
 * work replaces them, its own data waits for that work, which reads it.
 * Called late, after the replacement, it passes the event on.
 */
VISIBLE_IF_KUNIT void rdsd_tcp_listen_data_ready(struct sock *sk)
{
	void (*next)(struct sock *sk) = NULL;
	struct rdsd_tcp_net *tn;

	read_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_state == TCP_LISTEN) {
		tn = sk->sk_user_data;
		if (tn)
			queue_work(rdsd_wq, &tn->accept_work);
	} else if (sk->sk_data_ready != rdsd_tcp_listen_data_ready) {
		next = sk->sk_data_ready;
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (next)
		next(sk);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_tcp_listen_data_ready);

/* Take what the listener holds; each socket waits for its hello. */
static void rdsd_tcp_accept_worker(struct work_struct *work)
{
	struct rdsd_tcp_net *tn = container_of(work, struct rdsd_tcp_net,
					       accept_work);
	struct rdsd_tcp_pending *p;
	struct socket *sock;
	unsigned int i = 0;
	bool keep;

	for (;;) {
		/* each listener until it has nothing */
		while (i < ARRAY_SIZE(tn->listen) &&
		       (!tn->listen[i].sock ||
			kernel_accept(tn->listen[i].sock, &sock, O_NONBLOCK)))
			i++;
		if (i == ARRAY_SIZE(tn->listen))
			return;
		p = kzalloc(sizeof(*p), GFP_KERNEL);
		if (!p) {
			sock_release(sock);
			continue;
		}
		INIT_LIST_HEAD(&p->item);
		p->tn = tn;
		p->sock = sock;
		p->deadline = jiffies + msecs_to_jiffies(RDSD_TCP_HELLO_MS);
		INIT_DELAYED_WORK(&p->work, rdsd_tcp_pending_worker);

		spin_lock_bh(&tn->lock);
		keep = !tn->stopping && tn->nr_pending < RDSD_TCP_PENDING_MAX;
		if (keep) {
			list_add_tail(&p->item, &tn->pending);
			tn->nr_pending++;
		}
		spin_unlock_bh(&tn->lock);
		if (!keep) {
			rdsd_stat_inc(rdsd_net(tn->net), conn_limit);
			rdsd_tcp_pending_free(p, true);
			continue;
		}
		write_lock_bh(&sock->sk->sk_callback_lock);
		/* a child has its listener's callbacks: the stream's own */
		p->orig_data_ready = tn->listen[i].orig_data_ready;
		p->orig_state_change = sock->sk->sk_state_change;
		sock->sk->sk_user_data = p;
		sock->sk->sk_data_ready = rdsd_tcp_pending_data_ready;
		sock->sk->sk_state_change = rdsd_tcp_pending_state_change;
		write_unlock_bh(&sock->sk->sk_callback_lock);
		/* what arrived before the callbacks, or the deadline */
		mod_delayed_work(rdsd_wq, &p->work, 0);
	}
}

/* Namespaces ------------------------------------------------------------------- */

/* Listen on the port of every address of family @i (0: IPv4, 1: IPv6). */
static int rdsd_tcp_listen(struct rdsd_tcp_net *tn, unsigned int i)
{
	struct in6_addr any = {};
	struct sockaddr_storage ss;
	struct socket *sock;
	int ret, len;

	if (!i)
		ipv6_addr_set_v4mapped(htonl(INADDR_ANY), &any);
	len = rdsd_sockaddr_put(&ss, &any, htons(rdsd_tcp_port_param), 0);
	ret = sock_create_kern(tn->net, ss.ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &sock);
	if (ret)
		return ret;
	sock->sk->sk_reuse = SK_CAN_REUSE;
#if IS_ENABLED(CONFIG_IPV6)
	/* IPv4 peers reach the IPv4 listener */
	if (i)
		ip6_sock_set_v6only(sock->sk);
#endif
	ret = kernel_bind(sock, (struct sockaddr *)&ss, len);
	if (!ret)
		ret = kernel_listen(sock, 64);
	if (ret) {
		sock_release(sock);
		return ret;
	}
	write_lock_bh(&sock->sk->sk_callback_lock);
	tn->listen[i].orig_data_ready = sock->sk->sk_data_ready;
	sock->sk->sk_user_data = tn;
	sock->sk->sk_data_ready = rdsd_tcp_listen_data_ready;
	write_unlock_bh(&sock->sk->sk_callback_lock);
	tn->listen[i].sock = sock;
	return 0;
}

static int __net_init rdsd_tcp_net_init(struct net *net)
{
	struct rdsd_tcp_net *tn = rdsd_tcp_net(net);
	unsigned int i;
	int ret;

	tn->net = net;
	spin_lock_init(&tn->lock);
	INIT_LIST_HEAD(&tn->pending);
	init_waitqueue_head(&tn->idle);
	INIT_WORK(&tn->accept_work, rdsd_tcp_accept_worker);
	/*
	 * Without a listener the namespace still connects out; a peer's
	 * attempts fail until the port is free and the module reloaded.
	 */
	for (i = 0; i < ARRAY_SIZE(tn->listen); i++) {
		if (i && !IS_ENABLED(CONFIG_IPV6))
			break;
		ret = rdsd_tcp_listen(tn, i);
		if (ret)
			pr_warn("cannot listen on TCP port %u (%s) in a namespace: %d; peers cannot connect to it\n",
				rdsd_tcp_port_param, i ? "IPv6" : "IPv4",
				ret);
	}
	return 0;
}

static void __net_exit rdsd_tcp_net_exit(struct net *net)
{
	struct rdsd_tcp_net *tn = rdsd_tcp_net(net);
	struct rdsd_tcp_pending *p;
	struct sock *sk;
	unsigned int i;

	spin_lock_bh(&tn->lock);
	tn->stopping = true;
	spin_unlock_bh(&tn->lock);
	for (i = 0; i < ARRAY_SIZE(tn->listen); i++) {
		sk = tn->listen[i].sock ? tn->listen[i].sock->sk : NULL;
		if (!sk)
			continue;
		write_lock_bh(&sk->sk_callback_lock);
		sk->sk_user_data = NULL;
		sk->sk_data_ready = tn->listen[i].orig_data_ready;
		write_unlock_bh(&sk->sk_callback_lock);
	}
	cancel_work_sync(&tn->accept_work);
	for (i = 0; i < ARRAY_SIZE(tn->listen); i++) {
		if (tn->listen[i].sock)
			sock_release(tn->listen[i].sock);
		tn->listen[i].sock = NULL;
	}

	/* one at a time: a pending socket's own work may take it first */
	for (;;) {
		spin_lock_bh(&tn->lock);
		p = list_first_entry_or_null(&tn->pending,
					     struct rdsd_tcp_pending, item);
		if (p) {
			list_del_init(&p->item);
			tn->nr_pending--;
		}
		spin_unlock_bh(&tn->lock);
		if (!p)
			break;
		rdsd_tcp_pending_detach(p);
		cancel_delayed_work_sync(&p->work);
		rdsd_tcp_pending_free(p, true);
	}
	/* and those whose work took them finish with them */
	wait_event(tn->idle, !READ_ONCE(tn->busy));
}

static struct pernet_operations rdsd_tcp_net_ops = {
	.init	= rdsd_tcp_net_init,
	.exit	= rdsd_tcp_net_exit,
	.id	= &rdsd_tcp_net_id,
	.size	= sizeof(struct rdsd_tcp_net),
};

/* Transport operations ------------------------------------------------------------ */

/*
 * An address of one of the namespace's interfaces but 127/8, which is
 * the loopback transport's even when SO_RDS_TRANSPORT names this one.
 * An address with an RDMA device goes to IB first (transport.c).
 */
static int rdsd_tcp_laddr_check(struct net *net, const struct in6_addr *addr,
				int scope)
{
	if (rdsd_addr_loopback(addr))
		return -EADDRNOTAVAIL;
	return rdsd_addr_local(net, addr, scope) ? 0 : -EADDRNOTAVAIL;
}

static int rdsd_tcp_conn_alloc(struct rdsd_conn *conn, gfp_t gfp)
{
	struct rdsd_tcp_conn *tp;

	tp = kzalloc(sizeof(*tp), gfp);
	if (!tp)
		return -ENOMEM;
	tp->conn = conn;
	/* a sender's connection: its attempts count against its user */
	tp->uid = gfp & __GFP_ACCOUNT ? current_uid() : INVALID_UID;
	mutex_init(&tp->cm_mutex);
	mutex_init(&tp->tx_mutex);
	tp->state = RDSD_TCP_DOWN;
	tp->incarnation = get_random_u64() | 1;
	tp->peer_local = rdsd_addr_local(conn->rn->net, &conn->faddr, 0);
	INIT_DELAYED_WORK(&tp->connect_work, rdsd_tcp_connect_worker);
	INIT_DELAYED_WORK(&tp->timeout_work, rdsd_tcp_timeout_worker);
	INIT_WORK(&tp->reset_work, rdsd_tcp_reset_worker);
	INIT_WORK(&tp->up_work, rdsd_tcp_up_worker);
	INIT_WORK(&tp->tx_work, rdsd_tcp_tx_worker);
	INIT_DELAYED_WORK(&tp->ack_work, rdsd_tcp_ack_worker);
	INIT_WORK(&tp->cong_work, rdsd_tcp_cong_worker);
	INIT_WORK(&tp->rx_work, rdsd_tcp_rx_worker);
	rdsd_tcp_rdma_init(tp);
	conn->tp = tp;
	return 0;
}

static void rdsd_tcp_conn_free(struct rdsd_conn *conn)
{
	struct rdsd_tcp_conn *tp = conn->tp;

	WARN_ON_ONCE(tp->sock);
	mutex_destroy(&tp->tx_mutex);
	mutex_destroy(&tp->cm_mutex);
	kfree(tp->tx_buf);
	kfree(tp->rx_map);
	kfree(tp);
	conn->tp = NULL;
}

/* Any context: the worker looks at the state. */
static int rdsd_tcp_conn_connect(struct rdsd_conn *conn)
{
	struct rdsd_tcp_conn *tp = conn->tp;

	mod_delayed_work(rdsd_wq, &tp->connect_work, 0);
	return 0;
}

static void rdsd_tcp_conn_shutdown(struct rdsd_conn *conn)
{
	struct rdsd_tcp_conn *tp = conn->tp;

	mutex_lock(&tp->cm_mutex);
	tp->dead = true;
	rdsd_tcp_teardown_locked(tp);
	mutex_unlock(&tp->cm_mutex);
	/*
	 * The congestion work may queue the connect work, which comes
	 * after it; the rest find @tp dead or without a socket, and queue
	 * nothing.
	 */
	cancel_work_sync(&tp->cong_work);
	cancel_delayed_work_sync(&tp->connect_work);
	cancel_delayed_work_sync(&tp->timeout_work);
	cancel_work_sync(&tp->reset_work);
	cancel_work_sync(&tp->up_work);
	cancel_work_sync(&tp->tx_work);
	cancel_delayed_work_sync(&tp->ack_work);
	cancel_work_sync(&tp->rx_work);
}

/*
 * ->conn_idle: every message delivered was acknowledged and none is half
 * received; no operation waits for its answer, and the peer's requests
 * are all answered.
 */
static bool rdsd_tcp_conn_idle(struct rdsd_conn *conn)
{
	struct rdsd_tcp_conn *tp = conn->tp;
	u64 next = READ_ONCE(conn->next_rx_seq);

	if (READ_ONCE(tp->rx_msg) || READ_ONCE(tp->rx_state) ==
	    RDSD_TCP_RX_SKIP || !rdsd_tcp_rdma_idle(tp))
		return false;
	return !next || (READ_ONCE(tp->tx_acked_valid) &&
			 READ_ONCE(tp->tx_acked) == next - 1);
}

/*
 * ->conn_info: the path's socket, as RDS_INFO_TCP_SOCKETS lists it.
 * cm_mutex keeps the socket; its lock, the receive state.
 */
static void rdsd_tcp_conn_info(struct rdsd_conn *conn,
			       struct rdsd_conn_info *ci)
{
	struct rdsd_tcp_conn *tp = conn->tp;
	struct sock *sk;

	mutex_lock(&tp->cm_mutex);
	if (!tp->sock)
		goto out;
	sk = tp->sock->sk;
	lock_sock(sk);
	ci->has_tcp = true;
	ci->tcp_lport = inet_sk(sk)->inet_sport;
	ci->tcp_fport = inet_sk(sk)->inet_dport;
	ci->tcp_snd_nxt = tcp_sk(sk)->snd_nxt;
	ci->tcp_write_seq = tcp_sk(sk)->write_seq;
	ci->tcp_snd_una = tcp_sk(sk)->snd_una;
	switch (tp->rx_state) {
	case RDSD_TCP_RX_HELLO:
		ci->tcp_hdr_rem = sizeof(tp->rx_raw.hello) - tp->rx_have;
		break;
	case RDSD_TCP_RX_HDR:
		/* between frames nothing is owed */
		if (tp->rx_have)
			ci->tcp_hdr_rem = sizeof(tp->rx_raw.hdr) - tp->rx_have;
		break;
	case RDSD_TCP_RX_REQ:
	case RDSD_TCP_RX_RESP:
		ci->tcp_data_rem = tp->rx_info.frag_len - tp->rx_have;
		break;
	case RDSD_TCP_RX_DATA:
	case RDSD_TCP_RX_SKIP:
	case RDSD_TCP_RX_CONG:
	case RDSD_TCP_RX_WDATA:
	case RDSD_TCP_RX_RDATA:
		ci->tcp_data_rem = tp->rx_info.frag_len - tp->rx_off;
		break;
	default:
		break;
	}
	release_sock(sk);
out:
	mutex_unlock(&tp->cm_mutex);
}

static int rdsd_tcp_conn_drop(struct rdsd_conn *conn)
{
	struct rdsd_tcp_conn *tp = conn->tp;

	mutex_lock(&tp->cm_mutex);
	if (tp->sock) {
		trace_rdsd_conn_reset(conn, RDSD_RESET_DROP);
		rdsd_tcp_teardown_locked(tp);
		rdsd_tcp_schedule_connect(tp);
	}
	mutex_unlock(&tp->cm_mutex);
	return 0;
}

static int rdsd_tcp_init(void)
{
	return register_pernet_subsys(&rdsd_tcp_net_ops);
}

/* No new peer: the listeners and the sockets waiting for a hello go. */
static void rdsd_tcp_stop(void)
{
	unregister_pernet_subsys(&rdsd_tcp_net_ops);
}

const struct rdsd_transport_ops rdsd_tcp_transport = {
	.name		= "tcp",
	.type		= RDSD_TRANS_TCP,
	.laddr_check	= rdsd_tcp_laddr_check,
	.conn_alloc	= rdsd_tcp_conn_alloc,
	.conn_free	= rdsd_tcp_conn_free,
	.conn_connect	= rdsd_tcp_conn_connect,
	.conn_shutdown	= rdsd_tcp_conn_shutdown,
	.xmit		= rdsd_tcp_xmit,
	.xmit_flush	= rdsd_tcp_xmit_flush,
	.max_msg	= RDSD_MSG_SIZE_LIMIT,
	.features	= RDSD_TRANS_F_RDMA | RDSD_TRANS_F_MASKED_ATOMICS |
			  RDSD_TRANS_F_BATCH,
	.cong_changed	= rdsd_tcp_cong_changed,
	.conn_info	= rdsd_tcp_conn_info,
	.conn_drop	= rdsd_tcp_conn_drop,
	.conn_idle	= rdsd_tcp_conn_idle,
	.init		= rdsd_tcp_init,
	.stop		= rdsd_tcp_stop,
	.listen_port	= rdsd_tcp_port,
};
EXPORT_SYMBOL_IF_KUNIT(rdsd_tcp_transport);
