/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca messages (message.c): allocation, payload copies and
 * references.
 */
#ifndef _RDSD_MESSAGE_H
#define _RDSD_MESSAGE_H

#include <linux/gfp.h>
#include <linux/uio.h>

#include "rdsd.h"
#include "mr.h"

struct sk_buff;

/*
 * Entries of a growing message's first table (rdsd_msg_alloc_grow()): a
 * kilobyte in the message, enough for 1 MiB in blocks of 32 KiB.
 */
#define RDSD_MSG_GROW_SG	32

/**
 * struct rdsd_msg_fill - where the next bytes of a growing message go
 * @sg: the entry being filled, NULL before the first.
 * @room: entries left in @sg's table after it, its link slot not counted.
 * @used: bytes of @sg filled.
 * @alloc: payload bytes the message's blocks cover.
 * @filled: payload bytes filled.
 */
struct rdsd_msg_fill {
	struct scatterlist	*sg;
	u32			room;
	u32			used;
	u32			alloc;
	u32			filled;
};

struct rdsd_msg *rdsd_msg_alloc(size_t len, gfp_t gfp);
struct rdsd_msg *rdsd_msg_alloc_grow(size_t len, gfp_t gfp,
				     struct rdsd_msg_fill *f);
int rdsd_msg_fill(struct rdsd_msg *msg, struct rdsd_msg_fill *f,
		  const void *src, u32 n, gfp_t gfp);
int rdsd_msg_fill_skb(struct rdsd_msg *msg, struct rdsd_msg_fill *f,
		      const struct sk_buff *skb, unsigned int off, u32 n,
		      gfp_t gfp);
struct rdsd_msg *rdsd_msg_alloc_sg(unsigned int max, gfp_t gfp);
int rdsd_msg_copy_from_iter(struct rdsd_net *rn, struct rdsd_msg *msg,
			    struct iov_iter *from);
int rdsd_msg_copy_to_iter(struct rdsd_net *rn, struct rdsd_msg *msg,
			  struct iov_iter *to, size_t len);
void rdsd_msg_put(struct rdsd_msg *msg);
void rdsd_msg_pool_drain(void);

static inline void rdsd_msg_get(struct rdsd_msg *msg)
{
	refcount_inc(&msg->refs);
}

/*
 * Does @msg hold nothing for the peer?  An RDS_RDMA_SILENT operation on an
 * empty message that tells no cookie: as in Linux, the operation goes
 * alone, the peer hears nothing of it, and a RDS_RDMA_USE_ONCE region it
 * used stays registered.  Not with RDS_RDMA_FENCE, whose message keeps
 * the operation in order with the messages sent before it.  The transport
 * returns RDSD_XMIT_DONE for such a message.
 */
static inline bool rdsd_msg_op_only(const struct rdsd_msg *msg)
{
	return msg->op && !msg->len && !msg->rdma_dest &&
	       (msg->op->flags & (RDS_RDMA_SILENT | RDS_RDMA_FENCE)) ==
	       RDS_RDMA_SILENT;
}

/*
 * Is @msg's operation to be handed to the transport now?  Once at most: an
 * operation handed to an earlier path is final (completed, or dropped with
 * it).
 */
static inline bool rdsd_msg_op_pending(const struct rdsd_msg *msg)
{
	return msg->op && !test_bit(RDSD_OP_DONE, &msg->op->state) &&
	       !test_bit(RDSD_OP_POSTED, &msg->op->state);
}

#endif /* _RDSD_MESSAGE_H */
