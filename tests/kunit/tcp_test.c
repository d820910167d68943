// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the TCP transport's protocol rules (tcp.c, tcp_recv.c,
 * tcp_rdma.c): which hellos, which frames and which answers to its
 * operations a peer may send; and its socket callbacks called after they
 * were replaced.
 */
#include <kunit/test.h>
#include <linux/net.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "rdsd.h"
#include "tcp.h"
#include "wire.h"

/* A hello the module takes: ours, as rdsd_tcp_hello_fill() makes it. */
static void good_hello(struct kunit *test, struct rdsd_tcp_hello *h)
{
	struct rdsd_conn *conn = kunit_kzalloc(test, sizeof(*conn), GFP_KERNEL);
	struct rdsd_tcp_conn *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, conn);
	KUNIT_ASSERT_NOT_NULL(test, tp);
	conn->next_rx_seq = 42;
	conn->tos = 9;
	tp->conn = conn;
	tp->incarnation = 0x1234567890abcdefULL;
	tp->peer_incarnation = 7;
	rdsd_tcp_hello_fill(tp, h);
}

struct hello_case {
	const char	*name;
	void		(*mutate)(struct rdsd_tcp_hello *h);
	int		expected;
};

#define HELLO_MUTATOR(fn, body)					\
	static void fn(struct rdsd_tcp_hello *h) { body; }

HELLO_MUTATOR(h_ok, (void)h)
HELLO_MUTATOR(h_magic, h->magic = cpu_to_be32(RDSD_WIRE_MAGIC + 1))
HELLO_MUTATOR(h_magic_swapped,
	      h->magic = (__force __be32)cpu_to_le32(RDSD_WIRE_MAGIC))
HELLO_MUTATOR(h_version_old, h->version = RDSD_WIRE_VERSION - 1)
HELLO_MUTATOR(h_version_next, h->version = RDSD_WIRE_VERSION + 1)
HELLO_MUTATOR(h_tos, h->tos = 255)
HELLO_MUTATOR(h_flags, h->flags = htons(0x8000))
HELLO_MUTATOR(h_reserved1, h->reserved1 = htonl(1))
HELLO_MUTATOR(h_reserved_last, h->reserved[5] = 0x80)
HELLO_MUTATOR(h_no_incarnation, h->incarnation = 0)
HELLO_MUTATOR(h_any_delivery, h->peer_incarnation = cpu_to_be64(1);
	      h->rx_next = cpu_to_be64(U64_MAX))
HELLO_MUTATOR(h_max_msg_short, h->max_msg = htonl(RDSD_MAX_MSG_SIZE - 1))
HELLO_MUTATOR(h_max_msg_big, h->max_msg = htonl(SZ_64M))
HELLO_MUTATOR(h_path_last, h->path = RDSD_MAX_PATHS - 1;
	      h->paths = RDSD_MAX_PATHS)
HELLO_MUTATOR(h_path_beyond, h->path = RDSD_MAX_PATHS)
HELLO_MUTATOR(h_paths_zero, h->paths = 0)
HELLO_MUTATOR(h_paths_beyond, h->paths = RDSD_MAX_PATHS + 1)

static const struct hello_case hello_cases[] = {
	{ "ours", h_ok, 0 },
	{ "bad magic", h_magic, -EPROTO },
	{ "magic byte-swapped", h_magic_swapped, -EPROTO },
	{ "the version before", h_version_old, -EPROTONOSUPPORT },
	{ "the next version", h_version_next, -EPROTONOSUPPORT },
	{ "any type of service", h_tos, 0 },
	{ "a flag", h_flags, -EPROTO },
	{ "second reserved word", h_reserved1, -EPROTO },
	{ "last reserved bit", h_reserved_last, -EPROTO },
	{ "incarnation 0", h_no_incarnation, -EPROTO },
	{ "any delivery state", h_any_delivery, 0 },
	{ "messages one byte smaller", h_max_msg_short, -ERANGE },
	{ "larger messages", h_max_msg_big, 0 },
	{ "the last path of the most", h_path_last, 0 },
	{ "a path beyond the most", h_path_beyond, -ERANGE },
	{ "no paths", h_paths_zero, -ERANGE },
	{ "more paths than the most", h_paths_beyond, -ERANGE },
};

static void hello_desc(const struct hello_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hello, hello_cases, hello_desc);

static void rdsd_tcp_hello_check_validates(struct kunit *test)
{
	const struct hello_case *c = test->param_value;
	struct rdsd_tcp_hello h;

	/* Arrange: our own hello, then one thing changed */
	good_hello(test, &h);
	c->mutate(&h);

	/* Act + Assert */
	KUNIT_EXPECT_EQ(test, rdsd_tcp_hello_check(&h), c->expected);
}

static void rdsd_tcp_hello_fill_says_who(struct kunit *test)
{
	struct rdsd_tcp_hello h;

	good_hello(test, &h);

	KUNIT_EXPECT_EQ(test, sizeof(h), (size_t)48);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(h.incarnation),
			0x1234567890abcdefULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(h.peer_incarnation), 7ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(h.rx_next), 42ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(h.max_msg), (u32)RDSD_MSG_SIZE_LIMIT);
	KUNIT_EXPECT_EQ(test, h.paths, 1);
	/* the connection's lane: the acceptor finds the same one */
	KUNIT_EXPECT_EQ(test, h.tos, 9);
}

struct frame_case {
	const char		*name;
	struct rdsd_wire_info	info;
	int			expected;
};

#define LAST	RDSD_WIRE_F_LAST_FRAG

static const struct frame_case frame_cases[] = {
	{ "an empty message",
	  { .type = RDSD_WIRE_DATA, .flags = LAST }, 0 },
	{ "a whole message",
	  { .type = RDSD_WIRE_DATA, .flags = LAST, .len = 100,
	    .frag_len = 100 }, 0 },
	{ "1 MiB and one byte, whole",
	  { .type = RDSD_WIRE_DATA, .flags = LAST,
	    .len = RDSD_MAX_MSG_SIZE + 1,
	    .frag_len = RDSD_MAX_MSG_SIZE + 1 }, 0 },
	{ "the largest message, whole",
	  { .type = RDSD_WIRE_DATA, .flags = LAST, .len = RDSD_MSG_SIZE_LIMIT,
	    .frag_len = RDSD_MSG_SIZE_LIMIT }, 0 },
	{ "the largest message's first 1 MiB",
	  { .type = RDSD_WIRE_DATA, .len = RDSD_MSG_SIZE_LIMIT,
	    .frag_len = RDSD_MAX_MSG_SIZE }, -EPROTO },
	{ "the first half of a message",
	  { .type = RDSD_WIRE_DATA, .len = 200, .frag_len = 100 }, -EPROTO },
	{ "the second half of a message",
	  { .type = RDSD_WIRE_DATA, .flags = LAST, .len = 200,
	    .frag_off = 100, .frag_len = 100 }, -EPROTO },
	{ "a packed message",
	  { .type = RDSD_WIRE_DATA, .flags = LAST | RDSD_WIRE_F_MORE,
	    .len = 10, .frag_len = 10 }, -EPROTO },
	{ "an operation's region used",
	  { .type = RDSD_WIRE_DATA, .flags = LAST | RDSD_WIRE_F_RDMA_USED,
	    .rdma_key = 1 }, 0 },
	{ "a silent operation's message",
	  { .type = RDSD_WIRE_DATA, .flags = LAST | RDSD_WIRE_F_SILENT }, 0 },
	{ "an operation request",
	  { .type = RDSD_WIRE_RDMA_REQ, .len = 64, .frag_len = 64 }, 0 },
	{ "an operation answer",
	  { .type = RDSD_WIRE_RDMA_RESP, .len = 32, .frag_len = 32 }, 0 },
	{ "a cookie told",
	  { .type = RDSD_WIRE_DATA, .flags = LAST | RDSD_WIRE_F_RDMA_DEST,
	    .rdma_cookie = 5 }, 0 },
	{ "an ack", { .type = RDSD_WIRE_ACK }, 0 },
	{ "a congestion map",
	  { .type = RDSD_WIRE_CONG, .len = RDSD_NR_PORTS / 8,
	    .frag_len = RDSD_NR_PORTS / 8 }, 0 },
	{ "a ping", { .type = RDSD_WIRE_PING }, 0 },
	{ "a region request", { .type = RDSD_WIRE_MR_REQ }, -EPROTO },
	{ "a region answer", { .type = RDSD_WIRE_MR_ANS }, -EPROTO },
	{ "a key ahead", { .type = RDSD_WIRE_MR_GRANT }, -EPROTO },
	{ "a revocation", { .type = RDSD_WIRE_MR_REVOKE }, -EPROTO },
};

static void frame_desc(const struct frame_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(frame, frame_cases, frame_desc);

static void rdsd_tcp_frame_check_whole_messages(struct kunit *test)
{
	const struct frame_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rdsd_tcp_frame_check(&c->info), c->expected);
}

/* An answer the asker checks against its oldest request (tcp_rdma.c). */
struct resp_case {
	const char	*name;
	int		kind;		/* of the request asked, -1 for none */
	u32		bytes;		/* its length */
	u64		id;		/* the answer's */
	u8		status;
	u32		data;		/* bytes after the descriptor */
	u64		value;
	u8		reserved;	/* written to its last reserved byte */
	int		expected;
};

static const struct resp_case resp_cases[] = {
	{ "a read's data, whole", RDSD_OP_READ, 4096, 1, RDS_RDMA_SUCCESS,
	  4096, 0, 0, 0 },
	{ "an answer to nothing asked", -1, 0, 1, RDS_RDMA_SUCCESS, 0, 0, 0,
	  -EPROTO },
	{ "another request's id", RDSD_OP_READ, 4096, 2, RDS_RDMA_SUCCESS,
	  4096, 0, 0, -EPROTO },
	{ "a read's data, short", RDSD_OP_READ, 4096, 1, RDS_RDMA_SUCCESS,
	  4095, 0, 0, -EPROTO },
	{ "a read's data, long", RDSD_OP_READ, 4096, 1, RDS_RDMA_SUCCESS,
	  4097, 0, 0, -EPROTO },
	{ "data after a refusal", RDSD_OP_READ, 4096, 1,
	  RDS_RDMA_REMOTE_ERROR, 4096, 0, 0, -EPROTO },
	{ "data for a write", RDSD_OP_WRITE, 4096, 1, RDS_RDMA_SUCCESS, 4096,
	  0, 0, -EPROTO },
	{ "data for an atomic", RDSD_OP_FADD, 8, 1, RDS_RDMA_SUCCESS, 8, 0, 0,
	  -EPROTO },
	{ "a value for a read", RDSD_OP_READ, 4096, 1, RDS_RDMA_SUCCESS, 4096,
	  5, 0, -EPROTO },
	{ "status dropped (the asker's own)", RDSD_OP_READ, 4096, 1,
	  RDS_RDMA_DROPPED, 0, 0, 0, -EPROTO },
	{ "status canceled (the asker's own)", RDSD_OP_READ, 4096, 1,
	  RDS_RDMA_CANCELED, 0, 0, 0, -EPROTO },
	{ "status 200", RDSD_OP_READ, 4096, 1, 200, 0, 0, 0, -EPROTO },
	{ "a reserved byte set", RDSD_OP_READ, 4096, 1, RDS_RDMA_SUCCESS,
	  4096, 0, 0x80, -EPROTO },
};

static void resp_desc(const struct resp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(resp, resp_cases, resp_desc);

static void rdsd_tcp_rx_resp_checks_answers(struct kunit *test)
{
	const struct resp_case *c = test->param_value;
	struct rdsd_tcp_conn *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	struct rdsd_op *op = kunit_kzalloc(test, sizeof(*op), GFP_KERNEL);
	struct rdsd_wire_rdma_resp *d;
	int ret;

	/* Arrange: request 1 unanswered (or none), its answer's header in */
	KUNIT_ASSERT_NOT_NULL(test, tp);
	KUNIT_ASSERT_NOT_NULL(test, op);
	rdsd_tcp_rdma_init(tp);
	if (c->kind >= 0) {
		op->kind = c->kind;
		op->bytes = c->bytes;
		tp->op_ring[1] = op;
		tp->op_next = 2;
	}
	tp->rx_state = RDSD_TCP_RX_RESP;
	tp->rx_info.type = RDSD_WIRE_RDMA_RESP;
	tp->rx_info.frag_len = sizeof(*d) + c->data;
	d = &tp->rx_raw.resp;
	d->id = cpu_to_be64(c->id);
	d->status = c->status;
	d->value = cpu_to_be64(c->value);
	d->reserved[sizeof(d->reserved) - 1] = c->reserved;

	/* Act */
	ret = rdsd_tcp_rx_resp(tp);

	/* Assert: refused, or the data goes to the operation next */
	KUNIT_EXPECT_EQ(test, ret, c->expected);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, tp->rx_state, RDSD_TCP_RX_RDATA);
		KUNIT_EXPECT_EQ(test, tp->rx_off, (u32)sizeof(*d));
	}
	/* nothing is answered before its data came */
	KUNIT_EXPECT_EQ(test, tp->op_oldest, 1ULL);
}

static struct kunit_case rdsd_tcp_proto_cases[] = {
	KUNIT_CASE_PARAM(rdsd_tcp_hello_check_validates, hello_gen_params),
	KUNIT_CASE(rdsd_tcp_hello_fill_says_who),
	KUNIT_CASE_PARAM(rdsd_tcp_frame_check_whole_messages,
			 frame_gen_params),
	KUNIT_CASE_PARAM(rdsd_tcp_rx_resp_checks_answers, resp_gen_params),
	{}
};

static struct kunit_suite rdsd_tcp_proto_suite = {
	.name = "rds_doca_tcp_proto",
	.test_cases = rdsd_tcp_proto_cases,
};

/*
 * The stack reads a socket's callback before the callback takes
 * sk_callback_lock: a callback replaced meanwhile runs late and finds its
 * successor's sk_user_data.  An accepted socket is born with the
 * listener's callback, then is pending, then is its connection's.  A late
 * callback must leave the successor's object alone and hand the event to
 * the callback now installed.
 */
#define LATE_CANARY	0x5a
#define LATE_BYTES	1024

static int late_ready_calls, late_state_calls;

static void late_ready(struct sock *sk)
{
	late_ready_calls++;
}

static void late_state(struct sock *sk)
{
	late_state_calls++;
}

struct late_case {
	const char	*name;
	/* what the socket has installed when the late callback runs */
	void		(*data_ready)(struct sock *sk);
	void		(*state_change)(struct sock *sk);
	/* the late one */
	void		(*call)(struct sock *sk);
	int		ready_calls;
	int		state_calls;
};

static const struct late_case late_cases[] = {
	/* the accept work took it meanwhile, or its connection did */
	{ "listener's, on a socket taken since", late_ready, late_state,
	  rdsd_tcp_listen_data_ready, 1, 0 },
	/* still born: the accept work reads what came once it took it */
	{ "listener's, on a socket not yet accepted",
	  rdsd_tcp_listen_data_ready, late_state,
	  rdsd_tcp_listen_data_ready, 0, 0 },
	{ "pending data, on a connection's socket", late_ready, late_state,
	  rdsd_tcp_pending_data_ready, 1, 0 },
	{ "pending state, on a connection's socket", late_ready, late_state,
	  rdsd_tcp_pending_state_change, 0, 1 },
};

static void late_desc(const struct late_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(late, late_cases, late_desc);

static void rdsd_tcp_late_callback_passes_on(struct kunit *test)
{
	const struct late_case *c = test->param_value;
	void (*orig_ready)(struct sock *sk), (*orig_state)(struct sock *sk);
	struct socket *sock;
	struct sock *sk;
	u8 *owner;
	int i, changed = 0;

	/* Arrange: a socket not listening, owned by something else */
	owner = kunit_kmalloc(test, LATE_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	memset(owner, LATE_CANARY, LATE_BYTES);
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &sock), 0);
	sk = sock->sk;
	KUNIT_ASSERT_NE(test, (int)sk->sk_state, TCP_LISTEN);
	write_lock_bh(&sk->sk_callback_lock);
	orig_ready = sk->sk_data_ready;
	orig_state = sk->sk_state_change;
	sk->sk_user_data = owner;
	sk->sk_data_ready = c->data_ready;
	sk->sk_state_change = c->state_change;
	write_unlock_bh(&sk->sk_callback_lock);
	late_ready_calls = 0;
	late_state_calls = 0;

	/* Act */
	c->call(sk);

	/* Assert: the owner untouched, the event passed on once */
	for (i = 0; i < LATE_BYTES; i++)
		changed += owner[i] != LATE_CANARY;
	KUNIT_EXPECT_EQ(test, changed, 0);
	KUNIT_EXPECT_EQ(test, late_ready_calls, c->ready_calls);
	KUNIT_EXPECT_EQ(test, late_state_calls, c->state_calls);

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = orig_ready;
	sk->sk_state_change = orig_state;
	write_unlock_bh(&sk->sk_callback_lock);
	sock_release(sock);
}

static struct kunit_case rdsd_tcp_callback_cases[] = {
	KUNIT_CASE_PARAM(rdsd_tcp_late_callback_passes_on, late_gen_params),
	{}
};

static struct kunit_suite rdsd_tcp_callback_suite = {
	.name = "rds_doca_tcp_callbacks",
	.test_cases = rdsd_tcp_callback_cases,
};

kunit_test_suites(&rdsd_tcp_proto_suite, &rdsd_tcp_callback_suite);
