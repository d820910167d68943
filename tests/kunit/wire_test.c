// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite rds_doca_wire (wire.c): header encoding and validation.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/rds_doca.h>

#include "rdsd.h"
#include "wire.h"

/* A valid DATA fragment: bytes 100..1099 of a 3000-byte message. */
static void good_data(struct rdsd_wire_info *i)
{
	memset(i, 0, sizeof(*i));
	i->type = RDSD_WIRE_DATA;
	i->flags = RDSD_WIRE_F_ACK_VALID;
	i->seq = 0x0102030405060708ULL;
	i->ack = 42;
	i->len = 3000;
	i->frag_off = 100;
	i->frag_len = 1000;
	i->sport = htons(4000);
	i->dport = htons(5000);
	i->credits = 7;
	i->bufs = 0x0102;
}

static void rdsd_wire_encode_is_big_endian(struct kunit *test)
{
	struct rdsd_wire_hdr hdr;
	struct rdsd_wire_info i;
	const u8 *b = (const u8 *)&hdr;

	good_data(&i);
	memset(&hdr, 0xaa, sizeof(hdr));
	rdsd_wire_encode(&hdr, &i);
	KUNIT_EXPECT_EQ(test, b[0], (u8)'R');
	KUNIT_EXPECT_EQ(test, b[3], (u8)'D');
	KUNIT_EXPECT_EQ(test, b[4], (u8)RDSD_WIRE_VERSION);
	KUNIT_EXPECT_EQ(test, b[8], (u8)0x01);	/* seq, most significant */
	KUNIT_EXPECT_EQ(test, b[15], (u8)0x08);
	KUNIT_EXPECT_EQ(test, b[42], (u8)0x01);	/* bufs */
	KUNIT_EXPECT_EQ(test, b[43], (u8)0x02);
	KUNIT_EXPECT_NULL(test, memchr_inv(hdr.reserved, 0,
					   sizeof(hdr.reserved)));
}

static void rdsd_wire_round_trip(struct kunit *test)
{
	struct rdsd_wire_info in, out;
	struct rdsd_wire_hdr hdr;

	good_data(&in);
	rdsd_wire_encode(&hdr, &in);
	KUNIT_ASSERT_EQ(test, rdsd_wire_validate(&hdr, sizeof(hdr) + 1000, &out), 0);
	KUNIT_EXPECT_EQ(test, out.seq, in.seq);
	KUNIT_EXPECT_EQ(test, out.ack, in.ack);
	KUNIT_EXPECT_EQ(test, out.len, in.len);
	KUNIT_EXPECT_EQ(test, out.frag_off, in.frag_off);
	KUNIT_EXPECT_EQ(test, out.frag_len, in.frag_len);
	KUNIT_EXPECT_EQ(test, ntohs(out.sport), ntohs(in.sport));
	KUNIT_EXPECT_EQ(test, ntohs(out.dport), ntohs(in.dport));
	KUNIT_EXPECT_EQ(test, out.credits, in.credits);
	KUNIT_EXPECT_EQ(test, out.bufs, in.bufs);
	KUNIT_EXPECT_EQ(test, out.flags, in.flags);

	/* and the RDMA fields */
	in.flags |= RDSD_WIRE_F_RDMA_DEST | RDSD_WIRE_F_RDMA_USED;
	in.rdma_cookie = 0x0000012300abcdefULL;
	in.rdma_key = 0xfedcba98;
	rdsd_wire_encode(&hdr, &in);
	KUNIT_ASSERT_EQ(test, rdsd_wire_validate(&hdr, sizeof(hdr) + 1000, &out), 0);
	KUNIT_EXPECT_EQ(test, out.rdma_cookie, in.rdma_cookie);
	KUNIT_EXPECT_EQ(test, out.rdma_key, in.rdma_key);
	KUNIT_EXPECT_EQ(test, out.flags, in.flags);
}

struct wire_case {
	const char	*name;
	void		(*mutate)(struct rdsd_wire_hdr *hdr, size_t *received);
	int		expected;
};

#define WIRE_MUTATOR(fn, body) \
	static void fn(struct rdsd_wire_hdr *h, size_t *rcvd) { body; }

WIRE_MUTATOR(w_ok, (void)h)
WIRE_MUTATOR(w_magic, h->magic ^= htonl(1))
WIRE_MUTATOR(w_version, h->version = RDSD_WIRE_VERSION + 1)
WIRE_MUTATOR(w_type0, h->type = 0)
WIRE_MUTATOR(w_type_big, h->type = __RDSD_WIRE_TYPE_MAX)
WIRE_MUTATOR(w_flags, h->flags |= htons(0x8000))
WIRE_MUTATOR(w_flag_next, h->flags |= htons(RDSD_WIRE_F_ALL + 1))
WIRE_MUTATOR(w_more_bufs, h->flags |= htons(RDSD_WIRE_F_MORE_BUFS))
WIRE_MUTATOR(w_reserved0, h->reserved[0] = 1)
WIRE_MUTATOR(w_reserved3, h->reserved[3] = 0x80)
WIRE_MUTATOR(w_short, *rcvd = sizeof(*h) - 1)
WIRE_MUTATOR(w_fewer_bytes, *rcvd -= 1)
WIRE_MUTATOR(w_more_bytes, *rcvd += 1)
WIRE_MUTATOR(w_len_big, h->len = htonl(RDSD_MSG_SIZE_LIMIT + 1))
WIRE_MUTATOR(w_off_past_len, h->frag_off = htonl(2500))
WIRE_MUTATOR(w_off_overflow, h->frag_off = htonl(0xfffffff0))
WIRE_MUTATOR(w_last_flag_early, h->flags |= htons(RDSD_WIRE_F_LAST_FRAG))
WIRE_MUTATOR(w_ack_without_flag, h->flags &= ~htons(RDSD_WIRE_F_ACK_VALID))
WIRE_MUTATOR(w_seq_max, h->seq = cpu_to_be64(U64_MAX))
WIRE_MUTATOR(w_seq_below_max, h->seq = cpu_to_be64(U64_MAX - 1))
WIRE_MUTATOR(w_last_frag_ok,
	     h->frag_off = htonl(2000);
	     h->flags |= htons(RDSD_WIRE_F_LAST_FRAG))
WIRE_MUTATOR(w_last_frag_unflagged, h->frag_off = htonl(2000))
WIRE_MUTATOR(w_ack_with_payload, h->type = RDSD_WIRE_ACK)
WIRE_MUTATOR(w_ack_ok,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h))
WIRE_MUTATOR(w_ack_with_seq,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; *rcvd = sizeof(*h))
WIRE_MUTATOR(w_ping_ok,
	     h->type = RDSD_WIRE_PING; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h))
WIRE_MUTATOR(w_cong_ok,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(RDSD_NR_PORTS / 8);
	     h->frag_off = 0; h->frag_len = h->len; h->sport = 0; h->dport = 0;
	     *rcvd = sizeof(*h) + RDSD_NR_PORTS / 8)
WIRE_MUTATOR(w_cong_short_map,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(1000); h->frag_off = 0;
	     h->frag_len = h->len; h->sport = 0; h->dport = 0;
	     *rcvd = sizeof(*h) + 1000)
WIRE_MUTATOR(w_cong_with_ports,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(RDSD_NR_PORTS / 8);
	     h->frag_off = 0; h->frag_len = h->len;
	     *rcvd = sizeof(*h) + RDSD_NR_PORTS / 8)
WIRE_MUTATOR(w_more_whole_ok,
	     h->len = htonl(1000); h->frag_off = 0;
	     h->flags |= htons(RDSD_WIRE_F_LAST_FRAG | RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_more_first_frag,
	     h->frag_off = 0; h->flags |= htons(RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_more_later_frag, h->flags |= htons(RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_more_on_ack,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h);
	     h->flags |= htons(RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_more_on_cong,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(RDSD_NR_PORTS / 8);
	     h->frag_off = 0; h->frag_len = h->len; h->sport = 0; h->dport = 0;
	     *rcvd = sizeof(*h) + RDSD_NR_PORTS / 8;
	     h->flags |= htons(RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_reserved2, h->reserved2 = htonl(1))
WIRE_MUTATOR(w_dest_ok,
	     h->flags |= htons(RDSD_WIRE_F_RDMA_DEST);
	     h->rdma_cookie = cpu_to_be64(0x1000000abcULL))
WIRE_MUTATOR(w_dest_no_cookie, h->flags |= htons(RDSD_WIRE_F_RDMA_DEST))
WIRE_MUTATOR(w_cookie_no_flag, h->rdma_cookie = cpu_to_be64(5))
WIRE_MUTATOR(w_used_ok,
	     h->flags |= htons(RDSD_WIRE_F_RDMA_USED);
	     h->rdma_key = htonl(0x1234))
WIRE_MUTATOR(w_used_no_key, h->flags |= htons(RDSD_WIRE_F_RDMA_USED))
WIRE_MUTATOR(w_key_no_flag, h->rdma_key = htonl(7))
WIRE_MUTATOR(w_silent_ok, h->flags |= htons(RDSD_WIRE_F_SILENT))
WIRE_MUTATOR(w_silent_on_cong,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(RDSD_NR_PORTS / 8);
	     h->frag_off = 0; h->frag_len = h->len; h->sport = 0; h->dport = 0;
	     *rcvd = sizeof(*h) + RDSD_NR_PORTS / 8;
	     h->flags |= htons(RDSD_WIRE_F_SILENT))
WIRE_MUTATOR(w_used_on_ack,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h);
	     h->flags |= htons(RDSD_WIRE_F_RDMA_USED);
	     h->rdma_key = htonl(0x1234))

/* region messages: no payload, a cookie, ports as the type wants */
static void mr_base(struct rdsd_wire_hdr *h, size_t *rcvd, u8 type)
{
	h->type = type;
	h->len = 0;
	h->frag_off = 0;
	h->frag_len = 0;
	h->seq = 0;
	*rcvd = sizeof(*h);
	h->rdma_cookie = cpu_to_be64(0x123456780abcULL);
	if (type == RDSD_WIRE_MR_ANS || type == RDSD_WIRE_MR_GRANT) {
		/* a grant by default */
		h->rdma_key = htonl(0x4321);
		h->len = htonl(4096);
	}
	if (type == RDSD_WIRE_MR_REVOKE) {
		h->sport = 0;
		h->dport = 0;
	}
}

/* a refusal: no key, length or port */
static void mr_deny(struct rdsd_wire_hdr *h, size_t *rcvd)
{
	mr_base(h, rcvd, RDSD_WIRE_MR_ANS);
	h->rdma_key = 0;
	h->len = 0;
	h->sport = 0;
}

#define MR_BASE(t)	mr_base(h, rcvd, (t))
#define MR_GRANT	mr_base(h, rcvd, RDSD_WIRE_MR_ANS)
#define MR_DENY		mr_deny(h, rcvd)
#define MR_REVOKE	mr_base(h, rcvd, RDSD_WIRE_MR_REVOKE)

WIRE_MUTATOR(w_mr_req_ok, MR_BASE(RDSD_WIRE_MR_REQ))
WIRE_MUTATOR(w_mr_req_no_cookie,
	     MR_BASE(RDSD_WIRE_MR_REQ); h->rdma_cookie = 0)
WIRE_MUTATOR(w_mr_req_key, MR_BASE(RDSD_WIRE_MR_REQ); h->rdma_key = htonl(1))
WIRE_MUTATOR(w_mr_req_no_sport, MR_BASE(RDSD_WIRE_MR_REQ); h->sport = 0)
WIRE_MUTATOR(w_mr_req_no_dport, MR_BASE(RDSD_WIRE_MR_REQ); h->dport = 0)
WIRE_MUTATOR(w_mr_req_len, MR_BASE(RDSD_WIRE_MR_REQ); h->len = htonl(8))
WIRE_MUTATOR(w_mr_req_payload,
	     MR_BASE(RDSD_WIRE_MR_REQ); h->frag_len = htonl(8); *rcvd += 8)
WIRE_MUTATOR(w_mr_req_seq, MR_BASE(RDSD_WIRE_MR_REQ); h->seq = cpu_to_be64(3))
WIRE_MUTATOR(w_mr_req_packed,
	     MR_BASE(RDSD_WIRE_MR_REQ); h->flags |= htons(RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_mr_req_ro,
	     MR_BASE(RDSD_WIRE_MR_REQ); h->flags |= htons(RDSD_WIRE_F_MR_RO))
WIRE_MUTATOR(w_mr_grant_ok,
	     MR_GRANT; h->flags |= htons(RDSD_WIRE_F_MR_RO |
					 RDSD_WIRE_F_MR_ONCE))
WIRE_MUTATOR(w_mr_grant_any_port, MR_GRANT; h->sport = 0)
WIRE_MUTATOR(w_mr_grant_no_len, MR_GRANT; h->len = 0)
WIRE_MUTATOR(w_mr_grant_huge, MR_GRANT; h->len = htonl((1 << 20) + 1))
WIRE_MUTATOR(w_mr_grant_max, MR_GRANT; h->len = htonl(1 << 20))
WIRE_MUTATOR(w_mr_grant_no_cookie, MR_GRANT; h->rdma_cookie = 0)
WIRE_MUTATOR(w_mr_ahead_ok,
	     MR_BASE(RDSD_WIRE_MR_GRANT); h->flags |= htons(RDSD_WIRE_F_MR_ONCE))
WIRE_MUTATOR(w_mr_ahead_ro,
	     MR_BASE(RDSD_WIRE_MR_GRANT); h->flags |= htons(RDSD_WIRE_F_MR_RO))
WIRE_MUTATOR(w_mr_ahead_no_key, MR_BASE(RDSD_WIRE_MR_GRANT); h->rdma_key = 0)
WIRE_MUTATOR(w_mr_ahead_refusal,
	     MR_BASE(RDSD_WIRE_MR_GRANT); h->rdma_key = 0; h->len = 0;
	     h->sport = 0)
WIRE_MUTATOR(w_mr_ahead_no_len, MR_BASE(RDSD_WIRE_MR_GRANT); h->len = 0)
WIRE_MUTATOR(w_mr_ahead_huge,
	     MR_BASE(RDSD_WIRE_MR_GRANT); h->len = htonl((1 << 20) + 1))
WIRE_MUTATOR(w_mr_ahead_no_cookie,
	     MR_BASE(RDSD_WIRE_MR_GRANT); h->rdma_cookie = 0)
WIRE_MUTATOR(w_mr_ahead_no_dport, MR_BASE(RDSD_WIRE_MR_GRANT); h->dport = 0)
WIRE_MUTATOR(w_mr_ahead_payload,
	     MR_BASE(RDSD_WIRE_MR_GRANT); h->frag_len = htonl(8); *rcvd += 8)
WIRE_MUTATOR(w_mr_ahead_seq,
	     MR_BASE(RDSD_WIRE_MR_GRANT); h->seq = cpu_to_be64(3))
WIRE_MUTATOR(w_mr_ahead_type,
	     MR_BASE(RDSD_WIRE_MR_GRANT); h->type = RDSD_WIRE_RDMA_RESP + 1)
WIRE_MUTATOR(w_mr_deny_ok, MR_DENY)
WIRE_MUTATOR(w_mr_deny_len, MR_DENY; h->len = htonl(5))
WIRE_MUTATOR(w_mr_deny_port, MR_DENY; h->sport = htons(7))
WIRE_MUTATOR(w_mr_deny_ro, MR_DENY; h->flags |= htons(RDSD_WIRE_F_MR_RO))
WIRE_MUTATOR(w_mr_revoke_ok, MR_REVOKE)
WIRE_MUTATOR(w_mr_revoke_all, MR_REVOKE; h->rdma_cookie = 0)
WIRE_MUTATOR(w_mr_revoke_port, MR_REVOKE; h->dport = htons(5))
WIRE_MUTATOR(w_mr_revoke_key, MR_REVOKE; h->rdma_key = htonl(5))
WIRE_MUTATOR(w_mr_ro_on_data, h->flags |= htons(RDSD_WIRE_F_MR_RO))
WIRE_MUTATOR(w_mr_once_on_ack,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h);
	     h->flags |= htons(RDSD_WIRE_F_MR_ONCE))
WIRE_MUTATOR(w_cookie_on_ack,
	     h->type = RDSD_WIRE_ACK; h->len = 0; h->frag_off = 0;
	     h->frag_len = 0; h->seq = 0; *rcvd = sizeof(*h);
	     h->rdma_cookie = cpu_to_be64(5))
WIRE_MUTATOR(w_key_on_cong,
	     h->type = RDSD_WIRE_CONG; h->len = htonl(RDSD_NR_PORTS / 8);
	     h->frag_off = 0; h->frag_len = h->len; h->sport = 0; h->dport = 0;
	     *rcvd = sizeof(*h) + RDSD_NR_PORTS / 8; h->rdma_key = htonl(9))

/* operation frames (TCP): a descriptor and data, whole, no sequence */
static void op_base(struct rdsd_wire_hdr *h, size_t *rcvd, u8 type, u32 data)
{
	u32 len = (type == RDSD_WIRE_RDMA_REQ ?
		   sizeof(struct rdsd_wire_rdma_req) :
		   sizeof(struct rdsd_wire_rdma_resp)) + data;

	h->type = type;
	h->flags = htons(RDSD_WIRE_F_ACK_VALID);
	h->seq = 0;
	h->len = htonl(len);
	h->frag_off = 0;
	h->frag_len = htonl(len);
	*rcvd = sizeof(*h) + len;
	if (type == RDSD_WIRE_RDMA_RESP) {
		h->sport = 0;
		h->dport = 0;
	}
}

#define OP_REQ(d)	op_base(h, rcvd, RDSD_WIRE_RDMA_REQ, (d))
#define OP_RESP(d)	op_base(h, rcvd, RDSD_WIRE_RDMA_RESP, (d))

WIRE_MUTATOR(w_op_req_ok, OP_REQ(0))
WIRE_MUTATOR(w_op_req_write, OP_REQ(RDS_DOCA_MAX_RDMA_SIZE))
WIRE_MUTATOR(w_op_req_big, OP_REQ(RDS_DOCA_MAX_RDMA_SIZE + 1))
WIRE_MUTATOR(w_op_req_short,
	     OP_REQ(0); h->len = htonl(63); h->frag_len = h->len; *rcvd -= 1)
WIRE_MUTATOR(w_op_req_frag,
	     OP_REQ(8); h->frag_len = htonl(64); *rcvd -= 8)
WIRE_MUTATOR(w_op_req_seq, OP_REQ(0); h->seq = cpu_to_be64(1))
WIRE_MUTATOR(w_op_req_last, OP_REQ(0); h->flags |= htons(RDSD_WIRE_F_LAST_FRAG))
WIRE_MUTATOR(w_op_req_packed, OP_REQ(0); h->flags |= htons(RDSD_WIRE_F_MORE))
WIRE_MUTATOR(w_op_req_silent,
	     OP_REQ(0); h->flags |= htons(RDSD_WIRE_F_SILENT))
WIRE_MUTATOR(w_op_req_cookie, OP_REQ(0); h->rdma_cookie = cpu_to_be64(9))
WIRE_MUTATOR(w_op_req_no_sport, OP_REQ(0); h->sport = 0)
WIRE_MUTATOR(w_op_req_no_dport, OP_REQ(0); h->dport = 0)
WIRE_MUTATOR(w_op_resp_ok, OP_RESP(0))
WIRE_MUTATOR(w_op_resp_read, OP_RESP(RDS_DOCA_MAX_RDMA_SIZE))
WIRE_MUTATOR(w_op_resp_big, OP_RESP(RDS_DOCA_MAX_RDMA_SIZE + 1))
WIRE_MUTATOR(w_op_resp_short,
	     OP_RESP(0); h->len = htonl(31); h->frag_len = h->len; *rcvd -= 1)
WIRE_MUTATOR(w_op_resp_port, OP_RESP(0); h->dport = htons(4000))
WIRE_MUTATOR(w_op_resp_key, OP_RESP(0); h->rdma_key = htonl(3))

static const struct wire_case wire_cases[] = {
	{ "operation request", w_op_req_ok, 0 },
	{ "write request of 1 MiB", w_op_req_write, 0 },
	{ "write request over 1 MiB", w_op_req_big, -EBADMSG },
	{ "request shorter than its descriptor", w_op_req_short, -EBADMSG },
	{ "request in pieces", w_op_req_frag, -EBADMSG },
	{ "request with a sequence number", w_op_req_seq, -EPROTO },
	{ "request flagged last fragment", w_op_req_last, -EPROTO },
	{ "packed request", w_op_req_packed, -EPROTO },
	{ "silent request", w_op_req_silent, -EPROTO },
	{ "request with a header cookie", w_op_req_cookie, -EPROTO },
	{ "request from port 0", w_op_req_no_sport, -EPROTO },
	{ "request to port 0 (the owner refuses it)", w_op_req_no_dport, 0 },
	{ "operation answer", w_op_resp_ok, 0 },
	{ "answer with 1 MiB read", w_op_resp_read, 0 },
	{ "answer over 1 MiB", w_op_resp_big, -EBADMSG },
	{ "answer shorter than its descriptor", w_op_resp_short, -EBADMSG },
	{ "answer naming a port", w_op_resp_port, -EPROTO },
	{ "answer with a key", w_op_resp_key, -EPROTO },
	{ "region request", w_mr_req_ok, 0 },
	{ "region request without a cookie", w_mr_req_no_cookie, -EPROTO },
	{ "region request with a key", w_mr_req_key, -EPROTO },
	{ "region request from port 0", w_mr_req_no_sport, -EPROTO },
	{ "region request to port 0", w_mr_req_no_dport, -EPROTO },
	{ "region request with a length", w_mr_req_len, -EPROTO },
	{ "region request with payload", w_mr_req_payload, -EBADMSG },
	{ "region request with a sequence number", w_mr_req_seq, -EPROTO },
	{ "packed region request", w_mr_req_packed, -EPROTO },
	{ "region request with a grant flag", w_mr_req_ro, -EPROTO },
	{ "grant", w_mr_grant_ok, 0 },
	{ "grant for any port", w_mr_grant_any_port, 0 },
	{ "grant of an empty region", w_mr_grant_no_len, -EPROTO },
	{ "grant over 1 MiB", w_mr_grant_huge, -EPROTO },
	{ "grant of 1 MiB", w_mr_grant_max, 0 },
	{ "grant without a cookie", w_mr_grant_no_cookie, -EPROTO },
	{ "key ahead of a cookie", w_mr_ahead_ok, 0 },
	{ "read-only key ahead", w_mr_ahead_ro, 0 },
	{ "key ahead without a key", w_mr_ahead_no_key, -EPROTO },
	{ "refusal ahead of a cookie", w_mr_ahead_refusal, -EPROTO },
	{ "key ahead of an empty region", w_mr_ahead_no_len, -EPROTO },
	{ "key ahead of a region over 1 MiB", w_mr_ahead_huge, -EPROTO },
	{ "key ahead without a cookie", w_mr_ahead_no_cookie, -EPROTO },
	{ "key ahead for port 0", w_mr_ahead_no_dport, -EPROTO },
	{ "key ahead with payload", w_mr_ahead_payload, -EBADMSG },
	{ "key ahead with a sequence number", w_mr_ahead_seq, -EPROTO },
	{ "type after the last", w_mr_ahead_type, -EPROTO },
	{ "refusal", w_mr_deny_ok, 0 },
	{ "refusal with a length", w_mr_deny_len, -EPROTO },
	{ "refusal naming a port", w_mr_deny_port, -EPROTO },
	{ "refusal with a grant flag", w_mr_deny_ro, -EPROTO },
	{ "revocation", w_mr_revoke_ok, 0 },
	{ "revocation of everything", w_mr_revoke_all, 0 },
	{ "revocation naming a port", w_mr_revoke_port, -EPROTO },
	{ "revocation with a key", w_mr_revoke_key, -EPROTO },
	{ "grant flag on data", w_mr_ro_on_data, -EPROTO },
	{ "grant flag on an ack", w_mr_once_on_ack, -EPROTO },
	{ "cookie on an ack", w_cookie_on_ack, -EPROTO },
	{ "key on a congestion map", w_key_on_cong, -EPROTO },
	{ "valid data fragment", w_ok, 0 },
	{ "bad magic", w_magic, -EPROTO },
	{ "unknown version", w_version, -EPROTO },
	{ "type 0", w_type0, -EPROTO },
	{ "type past the last", w_type_big, -EPROTO },
	{ "unknown flag", w_flags, -EPROTO },
	{ "first flag not spoken", w_flag_next, -EPROTO },
	{ "asks for more buffers", w_more_bufs, 0 },
	{ "reserved byte 0 set", w_reserved0, -EPROTO },
	{ "reserved byte 3 set", w_reserved3, -EPROTO },
	{ "shorter than a header", w_short, -EBADMSG },
	{ "fewer payload bytes than frag_len", w_fewer_bytes, -EBADMSG },
	{ "more payload bytes than frag_len", w_more_bytes, -EBADMSG },
	{ "message over 64 MiB", w_len_big, -EBADMSG },
	{ "fragment past the message", w_off_past_len, -EBADMSG },
	{ "fragment offset overflow", w_off_overflow, -EBADMSG },
	{ "last-fragment flag too early", w_last_flag_early, -EBADMSG },
	{ "ack without its flag", w_ack_without_flag, -EPROTO },
	{ "data numbered U64_MAX", w_seq_max, -EPROTO },
	{ "data numbered U64_MAX - 1", w_seq_below_max, 0 },
	{ "last fragment", w_last_frag_ok, 0 },
	{ "last fragment without its flag", w_last_frag_unflagged, -EBADMSG },
	{ "ack with payload", w_ack_with_payload, -EBADMSG },
	{ "bare ack", w_ack_ok, 0 },
	{ "ack with a sequence number", w_ack_with_seq, -EPROTO },
	{ "ping", w_ping_ok, 0 },
	{ "congestion map", w_cong_ok, 0 },
	{ "congestion map of the wrong size", w_cong_short_map, -EBADMSG },
	{ "congestion map with ports", w_cong_with_ports, -EPROTO },
	{ "packed whole message", w_more_whole_ok, 0 },
	{ "packed first fragment", w_more_first_frag, -EPROTO },
	{ "packed later fragment", w_more_later_frag, -EPROTO },
	{ "packed ack", w_more_on_ack, -EPROTO },
	{ "packed congestion map", w_more_on_cong, -EPROTO },
	{ "second reserved word set", w_reserved2, -EPROTO },
	{ "RDMA_DEST cookie", w_dest_ok, 0 },
	{ "RDMA_DEST flag without a cookie", w_dest_no_cookie, -EPROTO },
	{ "cookie without the RDMA_DEST flag", w_cookie_no_flag, -EPROTO },
	{ "used region key", w_used_ok, 0 },
	{ "used flag without a key", w_used_no_key, -EPROTO },
	{ "key without the used flag", w_key_no_flag, -EPROTO },
	{ "used region on an ack", w_used_on_ack, -EPROTO },
	{ "silent data", w_silent_ok, 0 },
	{ "silent congestion map", w_silent_on_cong, -EPROTO },
};

static void wire_case_desc(const struct wire_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(wire, wire_cases, wire_case_desc);

static void rdsd_wire_validate_rejects_malformed(struct kunit *test)
{
	const struct wire_case *c = test->param_value;
	struct rdsd_wire_info i, out;
	struct rdsd_wire_hdr hdr;
	size_t received;

	/* Arrange: a valid header, then one field broken */
	good_data(&i);
	rdsd_wire_encode(&hdr, &i);
	received = sizeof(hdr) + i.frag_len;
	c->mutate(&hdr, &received);

	/* Act + Assert */
	KUNIT_EXPECT_EQ(test, rdsd_wire_validate(&hdr, received, &out),
			c->expected);
}

static struct kunit_case rdsd_wire_cases[] = {
	KUNIT_CASE(rdsd_wire_encode_is_big_endian),
	KUNIT_CASE(rdsd_wire_round_trip),
	KUNIT_CASE_PARAM(rdsd_wire_validate_rejects_malformed, wire_gen_params),
	{}
};

static struct kunit_suite rdsd_wire_suite = {
	.name = "rds_doca_wire",
	.test_cases = rdsd_wire_cases,
};

kunit_test_suites(&rdsd_wire_suite);
