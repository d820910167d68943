// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the TCP transport's protocol rules (tcp.c, tcp_recv.c): which
 * hellos and which frames a peer may send.
 */
#include <kunit/test.h>

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

static struct kunit_case rdsd_tcp_proto_cases[] = {
	KUNIT_CASE_PARAM(rdsd_tcp_hello_check_validates, hello_gen_params),
	KUNIT_CASE(rdsd_tcp_hello_fill_says_who),
	KUNIT_CASE_PARAM(rdsd_tcp_frame_check_whole_messages,
			 frame_gen_params),
	{}
};

static struct kunit_suite rdsd_tcp_proto_suite = {
	.name = "rds_doca_tcp_proto",
	.test_cases = rdsd_tcp_proto_cases,
};

kunit_test_suites(&rdsd_tcp_proto_suite);
