// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca messages.
 *
 * A message is a header and a payload described by a scatterlist.  Small
 * payloads live in the same allocation as the message, right after the
 * scatterlist, so a small datagram costs one allocation; larger ones are
 * spread over page blocks of up to 32 KiB that the message owns, kept in
 * a small pool when freed.  A MSG_ZEROCOPY payload stays in the sender's
 * pages (zcopy.c).
 *
 * References: the sending socket's call holds one until sendmsg() returns;
 * the connection holds one while the message is on its send or retransmit
 * queue (RDSD_MSG_ON_CONN); rdsd_conn_xmit() holds one while the transport
 * works on the message (->xmit), as an ack may complete it and drop the
 * connection's at any moment once it is on the retransmit list; a
 * transport holds its own for as long as it keeps the message after
 * ->xmit returns (a send slot until the device is done with the pages, a
 * message waiting for its operation); a receiving socket holds one while
 * the message is on its receive queue; recvmsg() holds one while it
 * copies.  The last rdsd_msg_put() frees the pages (or gives a zero-copy
 * sender's back, rdsd_zcopy_release()) and the message, and
 * lets go of its RDMA operation (rdsd_op_detach()).  The operation's local
 * pages do not wait for that: they are released when it completes
 * (rdma.c), so a message that waits long on a receive queue pins nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "rdsd.h"
#include "dma.h"
#include "message.h"
#include "mr.h"
#include "zcopy.h"

/* Payloads up to this size are stored inline. */
#define RDSD_MSG_INLINE_MAX	1024

/*
 * Large payloads are carried in chunks of up to RDSD_MSG_CHUNK_ORDER pages,
 * fewer allocations and copies than single pages; where the allocator has
 * no such block at hand a chunk falls back to one page.  A chunk's order
 * is get_order() of its length, which is how rdsd_msg_put() frees it.
 */
#define RDSD_MSG_CHUNK_ORDER	3

/*
 * Freed blocks of RDSD_MSG_CHUNK_ORDER, kept for the next messages: a block
 * taken from here costs neither the page allocator nor its zeroing (the
 * distributions' init_on_alloc), which took a fifth of the CPU of a stream
 * of 64 KiB messages.  One pool for all CPUs, as blocks go from a sender's
 * CPU to its receiver's.  A block's old bytes are never read: a message is
 * filled whole before anyone reads it (sendmsg() copies its whole payload,
 * a transport all of its fragments, in order), and a message that could
 * not be filled is freed unread.  At most RDSD_MSG_POOL blocks (2 MiB);
 * rdsd_msg_pool_drain() frees them at unload.
 */
#define RDSD_MSG_POOL		64

static struct {
	spinlock_t	lock;	/* protects n and blocks */
	unsigned int	n;
	struct page	*blocks[RDSD_MSG_POOL];
} rdsd_msg_pool = {
	.lock = __SPIN_LOCK_UNLOCKED(rdsd_msg_pool.lock),
};

static struct page *rdsd_msg_pool_get(void)
{
	struct page *page = NULL;
	unsigned long flags;

	if (!READ_ONCE(rdsd_msg_pool.n))
		return NULL;
	spin_lock_irqsave(&rdsd_msg_pool.lock, flags);
	if (rdsd_msg_pool.n)
		page = rdsd_msg_pool.blocks[--rdsd_msg_pool.n];
	spin_unlock_irqrestore(&rdsd_msg_pool.lock, flags);
	return page;
}

/* Free a payload block of @order, into the pool if it is one of its kind. */
static void rdsd_msg_free_block(struct page *page, unsigned int order)
{
	unsigned long flags;

	/* only a block nobody else holds a reference to */
	if (order == RDSD_MSG_CHUNK_ORDER && page_ref_count(page) == 1) {
		spin_lock_irqsave(&rdsd_msg_pool.lock, flags);
		if (rdsd_msg_pool.n < RDSD_MSG_POOL) {
			rdsd_msg_pool.blocks[rdsd_msg_pool.n++] = page;
			page = NULL;
		}
		spin_unlock_irqrestore(&rdsd_msg_pool.lock, flags);
		if (!page)
			return;
	}
	__free_pages(page, order);
}

/**
 * rdsd_msg_pool_drain - free the kept payload blocks
 *
 * At unload, once no message is left.
 */
void rdsd_msg_pool_drain(void)
{
	while (rdsd_msg_pool.n)
		__free_pages(rdsd_msg_pool.blocks[--rdsd_msg_pool.n],
			     RDSD_MSG_CHUNK_ORDER);
}

/*
 * A payload block for up to *@chunk of the bytes still to place: a block of
 * RDSD_MSG_CHUNK_ORDER from the pool or the allocator, else a single page,
 * *@chunk cut down to it.  Returns the block or NULL.
 */
static struct page *rdsd_msg_block(size_t *chunk, gfp_t gfp)
{
	struct page *page = NULL;

	*chunk = min_t(size_t, *chunk, PAGE_SIZE << RDSD_MSG_CHUNK_ORDER);
	if (get_order(*chunk) == RDSD_MSG_CHUNK_ORDER)
		page = rdsd_msg_pool_get();
	if (!page && *chunk > PAGE_SIZE)
		page = alloc_pages(gfp | __GFP_NORETRY | __GFP_NOWARN,
				   get_order(*chunk));
	if (!page) {
		*chunk = min_t(size_t, *chunk, PAGE_SIZE);
		page = alloc_page(gfp);
	}
	return page;
}

static unsigned int rdsd_msg_alloc_chunks(struct rdsd_msg *msg, size_t len,
					  gfp_t gfp)
{
	unsigned int n = 0;
	size_t left = len;

	sg_init_table(msg->sg, DIV_ROUND_UP(len, PAGE_SIZE));
	while (left) {
		size_t chunk = left;
		struct page *page = rdsd_msg_block(&chunk, gfp);

		if (!page) {
			msg->nents = n;	/* what rdsd_msg_put() frees */
			return 0;
		}
		sg_set_page(&msg->sg[n++], page, chunk, 0);
		left -= chunk;
	}
	sg_mark_end(&msg->sg[n - 1]);
	return n;
}

/* A new message's one reference, on no list. */
static void rdsd_msg_init(struct rdsd_msg *msg)
{
	refcount_set(&msg->refs, 1);
	INIT_LIST_HEAD(&msg->conn_item);
	INIT_LIST_HEAD(&msg->sock_item);
	INIT_LIST_HEAD(&msg->recv_item);
}

/**
 * rdsd_msg_alloc - allocate a message able to carry @len payload bytes
 * @len: payload length, at most RDSD_MSG_SIZE_LIMIT.
 * @gfp: allocation flags.
 *
 * The scatterlist of a large payload may come from vmalloc (kvzalloc());
 * a caller that cannot sleep gets it from the slab or not at all.
 * Returns the message with one reference, or NULL.
 */
struct rdsd_msg *rdsd_msg_alloc(size_t len, gfp_t gfp)
{
	struct rdsd_msg *msg;
	unsigned int nents;

	if (WARN_ON_ONCE(len > RDSD_MSG_SIZE_LIMIT))
		return NULL;

	if (len <= RDSD_MSG_INLINE_MAX) {
		nents = len ? 1 : 0;
		msg = kmalloc(struct_size(msg, sg, nents) + len, gfp);
		if (!msg)
			return NULL;
		memset(msg, 0, struct_size(msg, sg, nents));
		if (nents) {
			sg_init_table(msg->sg, 1);
			sg_set_buf(msg->sg, &msg->sg[1], len);
		}
	} else {
		/* room for the worst case: every chunk a single page */
		msg = kvzalloc(struct_size(msg, sg, DIV_ROUND_UP(len, PAGE_SIZE)),
			       gfp);
		if (!msg)
			return NULL;
		refcount_set(&msg->refs, 1);
		nents = rdsd_msg_alloc_chunks(msg, len, gfp);
		if (!nents) {
			rdsd_msg_put(msg);
			return NULL;
		}
	}
	msg->nents = nents;
	msg->len = len;
	rdsd_msg_init(msg);
	return msg;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_msg_alloc);

/**
 * rdsd_msg_alloc_sg - allocate a message with room for @max entries
 * @max: payload entries the caller may fill, at least 1.
 * @gfp: allocation flags.
 *
 * For payloads of pages the message does not own (zcopy.c): the caller
 * fills @sg, sets nents and len, and gives the pages a way back before the
 * last reference goes.  Returns the message with one reference, or NULL.
 */
struct rdsd_msg *rdsd_msg_alloc_sg(unsigned int max, gfp_t gfp)
{
	struct rdsd_msg *msg;

	msg = kvzalloc(struct_size(msg, sg, max), gfp);
	if (!msg)
		return NULL;
	sg_init_table(msg->sg, max);
	rdsd_msg_init(msg);
	return msg;
}

/**
 * rdsd_msg_alloc_grow - allocate a message whose pages come as it fills
 * @len: payload length, at most RDSD_MSG_SIZE_LIMIT.
 * @gfp: allocation flags.
 * @f: the fill cursor, initialized here.
 *
 * For a transport that receives a large message in pieces: memory follows
 * the bytes received (rdsd_msg_fill()), not the length a header claims,
 * and no allocation needs more than a page (blocks of 32 KiB where the
 * allocator has them at hand), so it may be made in softirq context.
 * The scatterlist grows as a chain of tables: the first of
 * RDSD_MSG_GROW_SG entries in the message, then one page each.  Returns
 * the message with one reference and no pages, or NULL.
 */
struct rdsd_msg *rdsd_msg_alloc_grow(size_t len, gfp_t gfp,
				     struct rdsd_msg_fill *f)
{
	struct rdsd_msg *msg;

	if (!len || len > RDSD_MSG_SIZE_LIMIT)
		return NULL;
	msg = kzalloc(struct_size(msg, sg, RDSD_MSG_GROW_SG), gfp);
	if (!msg)
		return NULL;
	sg_init_table(msg->sg, RDSD_MSG_GROW_SG);
	msg->len = len;
	rdsd_msg_init(msg);
	*f = (struct rdsd_msg_fill) {};
	return msg;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_msg_alloc_grow);

/*
 * Add a payload block to a growing message, chaining another table of
 * entries when the current one is full.  The block and the table are
 * both allocated before either is linked, so a failure leaves the
 * message as it was, every table holding at least one entry.
 */
static int rdsd_msg_grow(struct rdsd_msg *msg, struct rdsd_msg_fill *f,
			 gfp_t gfp)
{
	size_t chunk = msg->len - f->alloc;
	struct scatterlist *sg, *tbl = NULL;
	struct page *page;

	page = rdsd_msg_block(&chunk, gfp);
	if (!page)
		return -ENOMEM;
	if (!f->sg) {
		sg = msg->sg;
		f->room = RDSD_MSG_GROW_SG - 2;
	} else if (f->room) {
		sg = f->sg + 1;
		f->room--;
	} else {
		tbl = kmalloc_array(SG_MAX_SINGLE_ALLOC, sizeof(*tbl), gfp);
		if (!tbl) {
			rdsd_msg_free_block(page, get_order(chunk));
			return -ENOMEM;
		}
		sg_init_table(tbl, SG_MAX_SINGLE_ALLOC);
		/* the slot after the last entry links the table */
		sg_chain(f->sg + 1, 1, tbl);
		sg = tbl;
		f->room = SG_MAX_SINGLE_ALLOC - 2;
	}
	sg_set_page(sg, page, chunk, 0);
	f->sg = sg;
	f->used = 0;
	f->alloc += chunk;
	msg->nents++;
	if (f->alloc == msg->len)
		sg_mark_end(sg);
	return 0;
}

/*
 * Where the next bytes of a growing message go: at most *@room bytes at
 * the returned address, a new block allocated if the last is full.
 * Returns NULL with -ENOMEM in *@err.
 */
static void *rdsd_msg_fill_at(struct rdsd_msg *msg, struct rdsd_msg_fill *f,
			      gfp_t gfp, u32 *room, int *err)
{
	if (!f->sg || f->used == f->sg->length) {
		*err = rdsd_msg_grow(msg, f, gfp);
		if (*err)
			return NULL;
	}
	*room = f->sg->length - f->used;
	return sg_virt(f->sg) + f->used;
}

/* @take bytes were written where rdsd_msg_fill_at() said. */
static void rdsd_msg_filled(struct rdsd_msg_fill *f, u32 take)
{
	f->used += take;
	f->filled += take;
}

/**
 * rdsd_msg_fill - append @n payload bytes to a growing message
 * @msg: from rdsd_msg_alloc_grow().
 * @f: its fill cursor.
 * @src: the bytes.
 * @n: how many; with what came before, at most msg->len.
 * @gfp: allocation flags.
 *
 * Returns 0, -EINVAL past msg->len, or -ENOMEM; the message stays
 * consistent (rdsd_msg_put() frees what it holds) either way.
 */
int rdsd_msg_fill(struct rdsd_msg *msg, struct rdsd_msg_fill *f,
		  const void *src, u32 n, gfp_t gfp)
{
	if (n > msg->len - f->filled)
		return -EINVAL;
	while (n) {
		u32 room, take;
		void *dst;
		int ret;

		dst = rdsd_msg_fill_at(msg, f, gfp, &room, &ret);
		if (!dst)
			return ret;
		take = min(n, room);
		memcpy(dst, src, take);
		rdsd_msg_filled(f, take);
		src += take;
		n -= take;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_msg_fill);

/**
 * rdsd_msg_fill_skb - append @n payload bytes from an skb
 * @msg: from rdsd_msg_alloc_grow().
 * @f: its fill cursor.
 * @skb: where the bytes are.
 * @off: at which offset of @skb.
 * @n: how many; with what came before, at most msg->len.
 * @gfp: allocation flags.
 *
 * As rdsd_msg_fill(); -EFAULT if @skb is shorter than @off + @n.
 */
int rdsd_msg_fill_skb(struct rdsd_msg *msg, struct rdsd_msg_fill *f,
		      const struct sk_buff *skb, unsigned int off, u32 n,
		      gfp_t gfp)
{
	if (n > msg->len - f->filled)
		return -EINVAL;
	while (n) {
		u32 room, take;
		void *dst;
		int ret;

		dst = rdsd_msg_fill_at(msg, f, gfp, &room, &ret);
		if (!dst)
			return ret;
		take = min(n, room);
		if (skb_copy_bits(skb, off, dst, take))
			return -EFAULT;
		rdsd_msg_filled(f, take);
		off += take;
		n -= take;
	}
	return 0;
}

static bool rdsd_msg_is_inline(struct rdsd_msg *msg)
{
	return msg->nents == 1 && sg_virt(msg->sg) == (void *)&msg->sg[1];
}

/**
 * rdsd_msg_copy_from_iter - fill the payload from @from
 * @rn: namespace whose copy counters count it, or NULL.
 * @msg: message of msg->len bytes.
 * @from: source; must hold at least msg->len bytes.
 *
 * Through the copy engine.  Process context.  Returns 0 or -EFAULT.
 */
int rdsd_msg_copy_from_iter(struct rdsd_net *rn, struct rdsd_msg *msg,
			    struct iov_iter *from)
{
	return rdsd_dma_from_iter(rn, msg->sg, msg->nents, from, msg->len);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_msg_copy_from_iter);

/**
 * rdsd_msg_copy_to_iter - copy the first @len payload bytes to @to
 * @rn: namespace whose copy counters count it, or NULL.
 * @msg: the message; only read, so several readers may copy at once.
 * @to: destination.
 * @len: bytes to copy, at most msg->len.
 *
 * Through the copy engine.  Process context.  Returns the number of bytes
 * copied or -EFAULT.
 */
int rdsd_msg_copy_to_iter(struct rdsd_net *rn, struct rdsd_msg *msg,
			  struct iov_iter *to, size_t len)
{
	return rdsd_dma_to_iter(rn, msg->sg, msg->nents, to, len);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_msg_copy_to_iter);

/*
 * Free the payload blocks of @msg, and the tables a growing message
 * chained (rdsd_msg_grow()): a table is let go once its link is read.
 */
static void rdsd_msg_free_blocks(struct rdsd_msg *msg)
{
	struct scatterlist *sg = msg->sg, *tbl = NULL;
	unsigned int i = 0;

	while (i < msg->nents) {
		if (sg_is_chain(sg)) {
			sg = sg_chain_ptr(sg);
			kfree(tbl);
			tbl = sg;
			continue;
		}
		rdsd_msg_free_block(sg_page(sg), get_order(sg->length));
		sg++;
		i++;
	}
	kfree(tbl);
}

/**
 * rdsd_msg_put - drop a reference; the last one frees the message
 * @msg: message, may be NULL.
 */
void rdsd_msg_put(struct rdsd_msg *msg)
{
	if (!msg || !refcount_dec_and_test(&msg->refs))
		return;

	WARN_ON_ONCE(test_bit(RDSD_MSG_ON_SOCK, &msg->flags));
	WARN_ON_ONCE(test_bit(RDSD_MSG_ON_CONN, &msg->flags));
	rdsd_op_detach(msg->op);
	if (msg->zc)
		rdsd_zcopy_release(msg);
	else if (!rdsd_msg_is_inline(msg))
		rdsd_msg_free_blocks(msg);
	kvfree(msg);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_msg_put);
