/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca registered memory and RDMA operations.
 *
 * A cookie names a registered memory region to a peer.  It is a
 * capability: whoever holds it may use the region within the rights the
 * owner gave, and nobody else can find one by trying.  Its layout is
 * internal (programs treat cookies as opaque):
 *
 *   bits  0-31  the region's key: random, and no other region of the
 *               namespace has it
 *   bits 32-43  the offset of the region's byte 0 in its first page
 *   bits 44-63  random
 *
 * (with 4 KiB pages), so every cookie has 52 random bits
 * and is never 0 (a region registered with a device too: its device key
 * is not in the cookie, see ib_mr.c).  A peer addresses the region with remote addresses
 * counted from its byte 0; the kernel adds the cookie's high half to
 * them, so a remote address sits at the same offset in its page as the
 * byte it names, and alignment means what it means in memory.  An
 * operation reaches a region only through its whole cookie, and only when
 * it is addressed to the socket that owns the region (rdsd_mr_check()).
 */
#ifndef _RDSD_MR_H
#define _RDSD_MR_H

#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/sockptr.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/rds_doca.h>

struct mm_struct;
struct msghdr;
struct page;
struct rdsd_conn;
struct rdsd_msg;
struct rdsd_net;
struct rdsd_sock;
struct rdsd_transport_ops;

static inline u64 rdsd_cookie_make(u32 key, u32 offset)
{
	return key | ((u64)offset << 32);
}

static inline u32 rdsd_cookie_key(u64 cookie)
{
	return lower_32_bits(cookie);
}

static inline u32 rdsd_cookie_offset(u64 cookie)
{
	return upper_32_bits(cookie);
}

/* A new cookie high half for a region whose byte 0 is @pg_off into a page. */
static inline u32 rdsd_cookie_off_make(u32 pg_off)
{
	return (get_random_u32() & ~(u32)(PAGE_SIZE - 1)) | pg_off;
}

/*
 * Do @bytes at remote address @raddr lie in a region whose byte 0 is at
 * remote address @base and that holds @len bytes?  Sets *@idx to the
 * offset of the first one in the region.  Wrapping ranges never do.
 */
static inline bool rdsd_mr_range_ok(u64 base, u32 len, u64 raddr, u32 bytes,
				    u64 *idx)
{
	if (raddr < base)
		return false;
	*idx = raddr - base;
	return bytes && *idx <= len && bytes <= len - *idx;
}

/* Pages spanned by [addr, addr + len), len > 0. */
static inline unsigned int rdsd_span_pages(u64 addr, u64 len)
{
	return ((addr + len - 1) >> PAGE_SHIFT) - (addr >> PAGE_SHIFT) + 1;
}

/* rdsd_mr.flags */
#define RDSD_MR_USE_ONCE	BIT(0)	/* gone after one operation used it */
#define RDSD_MR_READ_ONLY	BIT(1)	/* peers may not write it */

/**
 * struct rdsd_mr - a registered memory region
 * @refs: the socket's table holds one while the region is registered;
 *	every operation using it holds one while it runs.
 * @rcu: the region is freed after lockless key lookups are done.
 * @free_work: releases the pages in process context after the last put.
 * @rn: namespace whose key table holds the region.
 * @owner: the socket that registered it (no reference: sockets are freed
 *	after an RCU grace period, and a closing socket frees its regions).
 * @owner_addr: @owner's bound address: operations must be addressed to it.
 * @owner_port: @owner's bound port.
 * @key: the key peers name it by: the cookie's low half.
 * @cookie_off: the cookie's high half: remote address of byte 0.
 * @pg_off: offset of byte 0 in the first page.
 * @len: bytes in the region.
 * @flags: RDSD_MR_* bits.
 * @dest_addr: with @dest_port, the only peer that may use the region
 *	(RDS_GET_MR_FOR_DEST), 0 for any.
 * @dest_port: the peer's port, 0 for any port of @dest_addr.
 * @dead: freed or invalidated: no new operation may use it.
 * @grants: how many times its device key was given to a peer host
 *	(ib_mr.c), which is told to forget it when the region goes; counted
 *	under that connection's send_lock.
 * @grantee: the connection the first grant went on; compared, never
 *	followed (it may be gone).
 * @used_via: the connection whose peer last said its operation used the
 *	region (which uses up a RDS_RDMA_USE_ONCE one); compared, never
 *	followed.
 * @pages: the pinned user pages.
 * @npages: how many.
 * @mm: address space charged (pinned_vm) for them, with a reference.
 * @trans: transport that registered it with a device, or NULL.
 * @tp: that transport's part, until the region is released.
 *
 * Created by RDS_GET_MR and friends; on the socket's and the namespace's
 * key tables until freed, used once, or the socket is closed.  The last
 * put unpins the pages.
 */
struct rdsd_mr {
	refcount_t		refs;
	struct rcu_head		rcu;
	struct work_struct	free_work;
	struct rdsd_net		*rn;
	struct rdsd_sock	*owner;
	struct in6_addr		owner_addr;
	__be16			owner_port;
	u32			key;
	u32			cookie_off;
	u32			pg_off;
	u32			len;
	u32			flags;
	struct in6_addr		dest_addr;
	__be16			dest_port;
	bool			dead;
	atomic_t		grants;
	const struct rdsd_conn	*grantee;
	const struct rdsd_conn	*used_via;
	struct page		**pages;
	unsigned int		npages;
	struct mm_struct	*mm;
	const struct rdsd_transport_ops *trans;
	void			*tp;
};

/* rdsd_op.kind */
enum rdsd_op_kind {
	RDSD_OP_READ,		/* remote region -> local buffers */
	RDSD_OP_WRITE,		/* local buffers -> remote region */
	RDSD_OP_FADD,
	RDSD_OP_CSWP,
	RDSD_OP_MASKED_FADD,
	RDSD_OP_MASKED_CSWP,
};

static inline bool rdsd_op_is_atomic(int kind)
{
	return kind >= RDSD_OP_FADD;
}

/* rdsd_op.state bits */
enum {
	RDSD_OP_DONE,		/* completed; its status is final */
	RDSD_OP_POSTED,		/* handed to a device: never posted again */
	RDSD_OP_NOTICE,		/* holds the receive buffer room of a notice */
	RDSD_OP_MSG_REF,	/* the message's reference in @refs is held */
	RDSD_OP_SNDBUF,		/* @sndbuf is counted in rs->snd_bytes */
};

/**
 * struct rdsd_notifier - one RDS_CMSG_RDMA_STATUS notice
 * @item: on the socket's notify queue (recv_lock).
 * @token: the user's token.
 * @status: RDS_RDMA_* status.
 */
struct rdsd_notifier {
	struct list_head	item;
	u64			token;
	int			status;
};

/**
 * struct rdsd_op - an RDMA or atomic operation riding on a message
 * @refs: users of the local pages: the message's until the operation
 *	completes or the message goes, whichever comes first
 *	(RDSD_OP_MSG_REF), and one for each work request a transport posted
 *	for it.  The last put releases the pages, the charges and @rs.
 * @holds: the message's, and one until the pages are released; the last
 *	frees the operation.
 * @free_node: on the list of operations whose pages rdsd_op_release_all()
 *	unpins, in process context, after the last put of @refs.
 * @rs: the socket that asked, with a reference until the pages are
 *	released: it hears the outcome, and its send buffer counts @sndbuf.
 * @kind: enum rdsd_op_kind.
 * @flags: the user's RDS_RDMA_* flags.
 * @state: RDSD_OP_* bits.
 * @status: RDS_RDMA_* outcome, valid once RDSD_OP_DONE is set.
 * @cookie: the cookie of the remote region.
 * @key: the cookie's low half, the region's key.
 * @rkey: the device's remote key the cookie resolved to (IB, send_lock).
 * @raddr: remote address: the cookie's high half plus the user's address.
 * @bytes: bytes moved (8 for atomics).
 * @token: the user's token for the notice.
 * @notifier: the notice, allocated up front so completion cannot fail.
 * @args: atomic operands: compare/add, swap, and the two masks.
 * @pages: pinned local pages.
 * @npages: how many.
 * @charged: pages charged to @mm's pinned_vm (rdsd_pin_charge()): all of
 *	them, pinned or about to be.
 * @sndbuf: bytes the operation counts in @rs's send buffer while its pages
 *	are pinned: those pages, if they went past RLIMIT_MEMLOCK; else 0.
 * @mm: address space charged for the pages, with a reference (mmgrab).
 * @dirty: the operation writes the local pages.
 * @nents: entries in @sg.
 * @sg: the local buffers, in order; for atomics the 8-byte result.
 * @dma_nents: entries of @sg mapped for a device, while it is posted.
 */
struct rdsd_op {
	struct kref		refs;
	refcount_t		holds;
	struct llist_node	free_node;
	struct rdsd_sock	*rs;
	int			kind;
	u32			flags;
	unsigned long		state;
	int			status;
	u64			cookie;
	u32			key;
	u32			rkey;
	u64			raddr;
	u32			bytes;
	u64			token;
	struct rdsd_notifier	*notifier;
	u64			args[4];
	struct page		**pages;
	unsigned int		npages;
	unsigned int		charged;
	u32			sndbuf;
	struct mm_struct	*mm;
	bool			dirty;
	unsigned int		nents;
	struct scatterlist	*sg;
	int			dma_nents;
};

/**
 * struct rdsd_mr_peer - who asks to use a region
 * @saddr: the asking socket's address.
 * @daddr: the address the operation was sent to.
 * @sport: the asking socket's port.
 * @dport: the port the operation was sent to.
 */
struct rdsd_mr_peer {
	struct in6_addr	saddr;
	struct in6_addr	daddr;
	__be16		sport;
	__be16		dport;
};

/* mr.c */
int rdsd_pin_charge(struct mm_struct *mm, unsigned long npages, bool over);
void rdsd_pin_uncharge(struct mm_struct *mm, unsigned long npages);
int rdsd_pin_pages(u64 addr, unsigned int n, unsigned int gup,
		   struct page **pages);
int rdsd_mr_get(struct rdsd_sock *rs, int optname, sockptr_t optval,
		unsigned int optlen);
int rdsd_mr_free(struct rdsd_sock *rs, sockptr_t optval, unsigned int optlen);
int rdsd_mr_map(struct rdsd_sock *rs, const struct rds_get_mr_args *args,
		u64 *cookie);
void rdsd_mr_unmap(struct rdsd_sock *rs, u64 cookie);
bool rdsd_mr_owned(struct rdsd_sock *rs, u64 cookie);
void rdsd_mr_drop_all(struct rdsd_sock *rs);
struct rdsd_mr *rdsd_mr_find(struct rdsd_net *rn, u64 cookie);
void rdsd_mr_use_key(struct rdsd_net *rn, u32 key,
		     const struct rdsd_mr_peer *peer,
		     const struct rdsd_conn *via);
void rdsd_mr_put(struct rdsd_mr *mr);
void rdsd_mr_used(struct rdsd_mr *mr);
int rdsd_mr_check(const struct rdsd_mr *mr, const struct rdsd_mr_peer *peer,
		  u64 raddr, u32 bytes, bool write, u64 *off);
void rdsd_mr_net_init(struct rdsd_net *rn);
void rdsd_mr_net_exit(struct rdsd_net *rn);

/**
 * struct rdsd_cmsgs - the SOL_RDS control messages of one sendmsg()
 * @rdma: RDS_CMSG_RDMA_ARGS came, in @rdma_args.
 * @atomic: the RDS_CMSG_*ATOMIC_* type that came, in @atomic_args, or 0.
 * @map: RDS_CMSG_RDMA_MAP came, in @map_args.
 * @dest: RDS_CMSG_RDMA_DEST came, with @dest_cookie.
 * @zcookie: RDS_CMSG_ZCOPY_COOKIE came, with @zcopy_cookie.
 */
struct rdsd_cmsgs {
	bool			rdma;
	int			atomic;
	bool			map;
	bool			dest;
	bool			zcookie;
	u32			zcopy_cookie;
	u64			dest_cookie;
	struct rds_rdma_args	rdma_args;
	struct rds_atomic_args	atomic_args;
	struct rds_get_mr_args	map_args;
};

/* rdma.c */
int rdsd_op_parse(struct rdsd_sock *rs, struct rdsd_conn *conn,
		  const struct rdsd_cmsgs *cm, struct rdsd_msg *msg);
void rdsd_op_complete(struct rdsd_op *op, int status);
void rdsd_op_put(struct rdsd_op *op);
u64 rdsd_atomic_exec(struct rdsd_mr *mr, u64 off, int kind, const u64 *args);
void rdsd_op_result(struct rdsd_op *op, u64 old);
void rdsd_op_detach(struct rdsd_op *op);
void rdsd_op_unsent(struct rdsd_sock *rs, struct rdsd_op *op);
void rdsd_op_exec_soft(struct rdsd_net *rn, struct rdsd_msg *msg);
int rdsd_notify_recv(struct rdsd_sock *rs, struct msghdr *m);
void rdsd_notify_purge(struct rdsd_sock *rs);

#if IS_ENABLED(CONFIG_KUNIT)
bool rdsd_atomic_apply(int kind, const u64 *args, u64 old, u64 *new);
#endif

/* rdma.c: the receive buffer room of notices */
bool rdsd_op_notice_reserve(struct rdsd_sock *rs, struct rdsd_op *op);
void rdsd_op_notice_cancel(struct rdsd_sock *rs, struct rdsd_op *op);

#endif /* _RDSD_MR_H */
