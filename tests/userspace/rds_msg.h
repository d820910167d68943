/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sequenced test messages, shared by the stream tests: a header naming
 * the sending stream, the receiver and the sequence numbers, with
 * checksums of itself and of the body, then a body whose byte pattern
 * follows from the header.  A receiver can tell a corrupted message from
 * one meant for another receiver, and verify every byte of the rest.
 */
#ifndef RDS_SELFTEST_MSG_H
#define RDS_SELFTEST_MSG_H

#include "rds_util.h"

#define SEQ_MAGIC 0x5244534fu	/* "RDSO" */

struct seq_hdr {
	uint32_t magic;
	uint16_t stream;	/* the sending stream */
	uint16_t receiver;
	uint32_t seq;		/* per (stream, receiver) */
	uint32_t len;		/* whole message */
	uint64_t gseq;		/* per stream */
	uint32_t body_sum;	/* fnv1a of the body */
	uint32_t hdr_sum;	/* fnv1a of the fields above */
};

static inline uint32_t seq_body_seed(unsigned int stream, uint64_t gseq)
{
	return mix32(stream * 7919 + 1, (uint32_t)gseq);
}

static inline uint32_t seq_hdr_sum(const struct seq_hdr *h)
{
	return fnv1a(h, offsetof(struct seq_hdr, hdr_sum));
}

/*
 * Make @buf, @len bytes (at least a header), message @gseq of @stream
 * and the @seq-th of those it sends to @receiver.
 */
static inline void seq_msg_fill(void *buf, size_t len, unsigned int stream,
				unsigned int receiver, uint32_t seq,
				uint64_t gseq)
{
	struct seq_hdr *h = buf;
	char *body = (char *)buf + sizeof(*h);

	pattern_fill(body, len - sizeof(*h), seq_body_seed(stream, gseq));
	h->magic = SEQ_MAGIC;
	h->stream = stream;
	h->receiver = receiver;
	h->seq = seq;
	h->len = len;
	h->gseq = gseq;
	h->body_sum = fnv1a(body, len - sizeof(*h));
	h->hdr_sum = seq_hdr_sum(h);
}

enum seq_verdict {
	SEQ_OK,
	SEQ_CORRUPT,	/* truncated, or a byte is wrong */
	SEQ_FOREIGN,	/* intact, but meant for another receiver */
};

/*
 * Check the @n bytes received in @buf by @receiver: an intact header
 * from a stream below @nstreams, of the length @len_of() gives for it,
 * and the body that goes with it.  The header is copied to @h.
 */
static inline enum seq_verdict
seq_msg_check(const void *buf, ssize_t n, unsigned int nstreams,
	      unsigned int receiver, size_t (*len_of)(const struct seq_hdr *),
	      struct seq_hdr *h)
{
	const char *body = (const char *)buf + sizeof(*h);

	if (n < (ssize_t)sizeof(*h))
		return SEQ_CORRUPT;
	memcpy(h, buf, sizeof(*h));
	if (h->magic != SEQ_MAGIC || h->hdr_sum != seq_hdr_sum(h) ||
	    h->stream >= nstreams || h->len != (uint32_t)n)
		return SEQ_CORRUPT;
	if (h->receiver != receiver)
		return SEQ_FOREIGN;
	if ((size_t)n != len_of(h) ||
	    h->body_sum != fnv1a(body, n - sizeof(*h)) ||
	    pattern_check(body, n - sizeof(*h),
			  seq_body_seed(h->stream, h->gseq)) != -1)
		return SEQ_CORRUPT;
	return SEQ_OK;
}

/*
 * seq_msg_check(), counting a message meant for another receiver in
 * *@foreign and a broken one in *@corrupt.  True for an intact message
 * of ours.
 */
static inline bool
seq_msg_take(const void *buf, ssize_t n, unsigned int nstreams,
	     unsigned int receiver, size_t (*len_of)(const struct seq_hdr *),
	     struct seq_hdr *h, long *foreign, long *corrupt)
{
	switch (seq_msg_check(buf, n, nstreams, receiver, len_of, h)) {
	case SEQ_OK:
		return true;
	case SEQ_FOREIGN:
		(*foreign)++;
		return false;
	default:
		(*corrupt)++;
		return false;
	}
}

#endif /* RDS_SELFTEST_MSG_H */
