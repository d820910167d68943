// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca memory registration.
 *
 * RDS_GET_MR pins the user's pages (FOLL_LONGTERM, charged to the caller's
 * pinned_vm against RLIMIT_MEMLOCK as RDMA's other pinning users charge
 * it), gives the region a key and hands the caller a cookie.  Every region
 * is on two tables: its socket's (by key, for RDS_FREE_MR and for closing)
 * and its namespace's (by key, for the operations that reach it without a
 * device: the loopback transport executes them in software, and for
 * RDS_RDMA_USE_ONCE).  A socket bound to an address of an RDMA device
 * registers the region with the device too (->mr_register); its device
 * key stays in the kernel (ib_mr.c).  Keys are random, and unique in the
 * namespace.
 *
 * Freeing, using up (RDS_RDMA_USE_ONCE) and closing take the region off
 * both tables and mark it dead under the socket's table lock: from then
 * on no new operation reaches it, and the operations already running
 * hold their own reference.  RDS_FREE_MR and close() also take the region
 * off its device at once (->mr_unregister), so a peer's operation that
 * comes later fails.  The last reference unregisters it (if that did not
 * happen yet) and unpins the pages: at
 * once when it is dropped in process context (RDS_FREE_MR, close()), else
 * from a work item, since unpinning may sleep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/mm.h>
#include <linux/rds_doca.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "rdsd.h"
#include "mr.h"
#include "transport.h"

/* Flags RDS_GET_MR accepts: every Linux RDS flag, and ours. */
#define RDSD_MR_USER_FLAGS	(0x7f | RDS_DOCA_MR_REMOTE_READ_ONLY)

/**
 * rdsd_pin_uncharge - give back what rdsd_pin_charge() charged
 * @mm: the address space.
 * @npages: pages charged.
 *
 * Any context.
 */
void rdsd_pin_uncharge(struct mm_struct *mm, unsigned long npages)
{
	atomic64_sub(npages, &mm->pinned_vm);
}

/**
 * rdsd_pin_charge - charge pinned pages to an address space
 * @mm: the address space whose pages they are.
 * @npages: how many.
 * @over: charge them even past the limit.
 *
 * Charges @mm's pinned_vm against the caller's RLIMIT_MEMLOCK, unless it
 * has CAP_IPC_LOCK, as ib_umem does.  Returns 0, or -ENOMEM if pinned_vm
 * goes past the limit: then the pages are not charged, unless @over (an
 * RDMA operation, which its socket's send buffer bounds instead, rdma.c).
 * Process context; rdsd_pin_uncharge() gives the charge back.
 */
int rdsd_pin_charge(struct mm_struct *mm, unsigned long npages, bool over)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 pinned;

	pinned = atomic64_add_return(npages, &mm->pinned_vm);
	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		if (!over)
			rdsd_pin_uncharge(mm, npages);
		return -ENOMEM;
	}
	return 0;
}

static void rdsd_mr_release(struct work_struct *work)
{
	struct rdsd_mr *mr = container_of(work, struct rdsd_mr, free_work);

	if (mr->trans)
		mr->trans->mr_release(mr);
	if (mr->npages) {
		unpin_user_pages_dirty_lock(mr->pages, mr->npages,
					    !(mr->flags & RDSD_MR_READ_ONLY));
		rdsd_pin_uncharge(mr->mm, mr->npages);
	}
	if (mr->mm)
		mmdrop(mr->mm);
	kvfree(mr->pages);
	kfree_rcu(mr, rcu);
}

/**
 * rdsd_mr_put - drop a reference to a region
 * @mr: region, may be NULL.
 *
 * Any context; the last reference releases the region from a work item.
 */
void rdsd_mr_put(struct rdsd_mr *mr)
{
	if (mr && refcount_dec_and_test(&mr->refs))
		queue_work(rdsd_wq, &mr->free_work);
}

/*
 * Drop a reference from process context: the last one releases the region
 * before returning, so a freed region's pages are uncharged by the time
 * RDS_FREE_MR or close() returns (unless an operation still holds it).
 */
static void rdsd_mr_put_sync(struct rdsd_mr *mr)
{
	might_sleep();
	if (mr && refcount_dec_and_test(&mr->refs))
		rdsd_mr_release(&mr->free_work);
}

/* A live region by key, with a reference, or NULL.  Any context. */
static struct rdsd_mr *rdsd_mr_lookup(struct rdsd_net *rn, u32 key)
{
	struct rdsd_mr *mr;

	rcu_read_lock();
	mr = xa_load(&rn->mr_keys, key);
	if (mr && (READ_ONCE(mr->dead) || !refcount_inc_not_zero(&mr->refs)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/**
 * rdsd_mr_find - find a live region by its whole cookie
 * @rn: namespace.
 * @cookie: the cookie a peer named it by.
 *
 * Returns the region with a reference, or NULL if no live region has
 * exactly that cookie.  Any context.
 */
struct rdsd_mr *rdsd_mr_find(struct rdsd_net *rn, u64 cookie)
{
	struct rdsd_mr *mr = rdsd_mr_lookup(rn, rdsd_cookie_key(cookie));

	if (mr && mr->cookie_off != rdsd_cookie_offset(cookie)) {
		rdsd_mr_put(mr);
		mr = NULL;
	}
	return mr;
}

/**
 * rdsd_mr_key_claim - put a region on its namespace's table under @key
 * @mr: region being registered, on its device if it has one.
 * @key: a random key.
 *
 * Returns 0, or -EBUSY if another region has the key: the caller tries
 * another.
 */
static int rdsd_mr_key_claim(struct rdsd_mr *mr, u32 key)
{
	int ret;

	if (!key)
		return -EBUSY;
	ret = xa_insert_bh(&mr->rn->mr_keys, key, mr, GFP_KERNEL);
	if (!ret)
		mr->key = key;
	return ret;
}

/**
 * rdsd_mr_check - may this peer's operation touch this range?
 * @mr: region.
 * @peer: the asking socket, and where it sent the operation: the region
 *	is reached only through its owner's address and port.
 * @raddr: remote address of the first byte (cookie offset + user address).
 * @bytes: bytes the operation touches.
 * @write: it writes the region.
 * @off: set to the offset of the first byte from the first page's start.
 *
 * Returns 0 or -EACCES.  Any context.
 */
int rdsd_mr_check(const struct rdsd_mr *mr, const struct rdsd_mr_peer *peer,
		  u64 raddr, u32 bytes, bool write, u64 *off)
{
	u64 idx;

	if (READ_ONCE(mr->dead))
		return -EACCES;
	if (!ipv6_addr_equal(&mr->owner_addr, &peer->daddr) ||
	    mr->owner_port != peer->dport)
		return -EACCES;
	if (!ipv6_addr_any(&mr->dest_addr) &&
	    (!ipv6_addr_equal(&mr->dest_addr, &peer->saddr) ||
	     (mr->dest_port && mr->dest_port != peer->sport)))
		return -EACCES;
	if (write && (mr->flags & RDSD_MR_READ_ONLY))
		return -EACCES;
	if (!rdsd_mr_range_ok(mr->cookie_off, mr->len, raddr, bytes, &idx))
		return -EACCES;
	*off = mr->pg_off + idx;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_mr_check);

/*
 * Take @mr off its tables and mark it dead; the caller drops the table's
 * reference.  Returns false if someone else did first.  Any context.
 */
static bool rdsd_mr_unlink(struct rdsd_sock *rs, struct rdsd_mr *mr)
{
	bool mine;

	xa_lock_bh(&rs->mrs);
	mine = __xa_cmpxchg(&rs->mrs, mr->key, mr, NULL, GFP_ATOMIC) == mr;
	if (mine)
		WRITE_ONCE(mr->dead, true);
	xa_unlock_bh(&rs->mrs);
	/* dead already: a lookup that still finds it refuses it */
	if (mine)
		xa_cmpxchg_bh(&mr->rn->mr_keys, mr->key, mr, NULL, GFP_ATOMIC);
	return mine;
}

/**
 * rdsd_mr_used - an operation used a RDS_RDMA_USE_ONCE region
 * @mr: the region (a reference held by the caller).
 *
 * The region is freed.  Any context.
 */
void rdsd_mr_used(struct rdsd_mr *mr)
{
	struct rdsd_sock *rs;
	bool mine = false;

	if (!(mr->flags & RDSD_MR_USE_ONCE) || READ_ONCE(mr->dead))
		return;
	/* sockets are freed after a grace period: the owner may be closing */
	rcu_read_lock();
	rs = READ_ONCE(mr->owner);
	if (rs && refcount_inc_not_zero(&rs->sk.sk_refcnt)) {
		mine = rdsd_mr_unlink(rs, mr);
		sock_put(&rs->sk);
	}
	rcu_read_unlock();
	if (mine)
		rdsd_mr_put(mr);	/* the tables' */
}

/**
 * rdsd_mr_use_key - a peer says its operation used region @key
 * @rn: namespace.
 * @key: the region's key.
 * @peer: the peer, and the socket its message went to.
 * @via: the connection the peer's message came on.
 *
 * Frees the region if it is a RDS_RDMA_USE_ONCE one the peer may use
 * through the socket it addressed.  Any context.
 */
void rdsd_mr_use_key(struct rdsd_net *rn, u32 key,
		     const struct rdsd_mr_peer *peer,
		     const struct rdsd_conn *via)
{
	struct rdsd_mr *mr = rdsd_mr_lookup(rn, key);
	u64 off;

	if (!mr)
		return;
	if (!rdsd_mr_check(mr, peer, mr->cookie_off, mr->len, false, &off)) {
		WRITE_ONCE(mr->used_via, via);
		rdsd_mr_used(mr);
	}
	rdsd_mr_put(mr);
}

/**
 * rdsd_pin_pages - pin @n user pages from the one holding @addr
 * @addr: a user address.
 * @n: pages to pin.
 * @gup: FOLL_* flags.
 * @pages: where the pages go.
 *
 * All or nothing: returns 0, or a negative errno with nothing pinned.
 */
int rdsd_pin_pages(u64 addr, unsigned int n, unsigned int gup,
		   struct page **pages)
{
	unsigned int done = 0;
	int ret;

	while (done < n) {
		ret = pin_user_pages_fast((addr & PAGE_MASK) +
					  ((u64)done << PAGE_SHIFT), n - done,
					  gup, pages + done);
		if (ret <= 0) {
			unpin_user_pages(pages, done);
			return ret ? ret : -EFAULT;
		}
		done += ret;
	}
	return 0;
}

/*
 * Pin the buffers @vecs of a new region, in order, and charge them to
 * pinned_vm; the buffers meet on page boundaries, so their pages make one
 * list.  Byte 0 of the region is the first byte of vecs[0].
 */
static int rdsd_mr_pin(struct rdsd_mr *mr, const struct rds_iovec *vecs,
		       unsigned int nr)
{
	unsigned int gup = FOLL_LONGTERM |
			   (mr->flags & RDSD_MR_READ_ONLY ? 0 : FOLL_WRITE);
	unsigned int i, n, npages = 0, done = 0;
	int ret;

	for (i = 0; i < nr; i++)
		npages += rdsd_span_pages(vecs[i].addr, vecs[i].bytes);
	mr->pages = kvmalloc_array(npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	mr->mm = current->mm;
	mmgrab(mr->mm);		/* dropped by rdsd_mr_release() */
	ret = rdsd_pin_charge(mr->mm, npages, false);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++, done += n) {
		n = rdsd_span_pages(vecs[i].addr, vecs[i].bytes);
		ret = rdsd_pin_pages(vecs[i].addr, n, gup, mr->pages + done);
		if (ret) {
			unpin_user_pages(mr->pages, done);
			rdsd_pin_uncharge(mr->mm, npages);
			return ret;
		}
	}
	mr->npages = npages;
	mr->pg_off = offset_in_page(vecs[0].addr);
	return 0;
}

/*
 * Give a new region (pages pinned) its key and put it on the namespace's
 * and the socket's tables.  On failure the caller puts @mr.
 */
static int rdsd_mr_insert(struct rdsd_sock *rs, struct rdsd_mr *mr)
{
	const struct rdsd_transport_ops *trans = READ_ONCE(rs->trans);
	struct rdsd_net *rn = rdsd_sk_net(rs);
	int ret, tries;

	/* on the device first: a peer finds it on the table only after */
	if (trans->mr_register) {
		ret = trans->mr_register(rs, mr);
		if (ret)
			return ret;
		mr->trans = trans;	/* unregistered by rdsd_mr_release() */
	}
	/* a random key no other region of the namespace has */
	ret = -EBUSY;
	for (tries = 0; tries < 8 && ret == -EBUSY; tries++)
		ret = rdsd_mr_key_claim(mr, get_random_u32());
	if (ret)
		return ret;
	ret = xa_insert_bh(&rs->mrs, mr->key, mr, GFP_KERNEL);
	if (ret) {
		xa_erase_bh(&rn->mr_keys, mr->key);
		return ret;
	}
	return 0;
}

/*
 * Take a region that was just unlinked off its device now, rather than
 * when the last operation using it lets go.  Process context.
 */
static void rdsd_mr_invalidate(struct rdsd_mr *mr)
{
	might_sleep();
	if (mr->trans)
		mr->trans->mr_unregister(mr);
}

/* A new region, not yet on any table, with the tables' reference. */
static struct rdsd_mr *rdsd_mr_alloc(struct rdsd_sock *rs, u32 flags)
{
	struct rdsd_mr *mr;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return NULL;
	refcount_set(&mr->refs, 1);	/* the tables', put on unlink */
	INIT_WORK(&mr->free_work, rdsd_mr_release);
	mr->rn = rdsd_sk_net(rs);
	mr->owner = rs;
	/* bound before registering (rdsd_mr_allowed()), and for good */
	mr->owner_addr = rs->bound_addr;
	mr->owner_port = rs->bound_port;
	if (flags & RDS_RDMA_USE_ONCE)
		mr->flags |= RDSD_MR_USE_ONCE;
	if (flags & RDS_DOCA_MR_REMOTE_READ_ONLY)
		mr->flags |= RDSD_MR_READ_ONLY;
	return mr;
}

/* May @rs register memory at all? */
static int rdsd_mr_allowed(struct rdsd_sock *rs)
{
	const struct rdsd_transport_ops *trans;

	if (!rdsd_sk_bound(rs))
		return -ENOTCONN;
	/* bound: the transport is set for good */
	trans = READ_ONCE(rs->trans);
	if (!trans || !(trans->features & RDSD_TRANS_F_RDMA))
		return -EOPNOTSUPP;
	return 0;
}

/* Register [vec.addr, + vec.bytes) for @rs; returns the new region. */
static struct rdsd_mr *rdsd_mr_create(struct rdsd_sock *rs,
				      const struct rds_iovec *vec, u64 flags,
				      const struct in6_addr *dest_addr,
				      __be16 dest_port)
{
	struct rdsd_mr *mr;
	int ret;

	ret = rdsd_mr_allowed(rs);
	if (ret)
		return ERR_PTR(ret);
	if (flags & ~RDSD_MR_USER_FLAGS)
		return ERR_PTR(-EINVAL);
	if (!vec->bytes || vec->addr + vec->bytes < vec->addr)
		return ERR_PTR(-EINVAL);
	if (vec->bytes > RDS_DOCA_MAX_MR_SIZE)
		return ERR_PTR(-EMSGSIZE);

	mr = rdsd_mr_alloc(rs, flags);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->dest_addr = *dest_addr;
	mr->dest_port = dest_port;
	mr->len = vec->bytes;
	ret = rdsd_mr_pin(mr, vec, 1);
	if (!ret) {
		mr->cookie_off = rdsd_cookie_off_make(mr->pg_off);
		ret = rdsd_mr_insert(rs, mr);
	}
	if (ret) {
		rdsd_mr_put_sync(mr);
		return ERR_PTR(ret);
	}
	return mr;
}

/* Undo a registration whose cookie could not be handed out. */
static void rdsd_mr_revoke(struct rdsd_sock *rs, struct rdsd_mr *mr)
{
	if (rdsd_mr_unlink(rs, mr))
		rdsd_mr_put_sync(mr);
}

static int rdsd_mr_give_cookie(struct rdsd_sock *rs, struct rdsd_mr *mr,
			       u64 cookie_addr, u64 *cookie)
{
	u64 c = rdsd_cookie_make(mr->key, mr->cookie_off);

	if (cookie_addr &&
	    copy_to_user(u64_to_user_ptr(cookie_addr), &c, sizeof(c))) {
		rdsd_mr_revoke(rs, mr);
		return -EFAULT;
	}
	if (cookie)
		*cookie = c;
	return 0;
}

/**
 * rdsd_mr_map - register memory for an RDS_CMSG_RDMA_MAP control message
 * @rs: socket.
 * @args: the control message's arguments.
 * @cookie: set to the new cookie.
 */
int rdsd_mr_map(struct rdsd_sock *rs, const struct rds_get_mr_args *args,
		u64 *cookie)
{
	struct rdsd_mr *mr;

	mr = rdsd_mr_create(rs, &args->vec, args->flags, &in6addr_any, 0);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	return rdsd_mr_give_cookie(rs, mr, args->cookie_addr, cookie);
}

/*
 * Free @rs's region named by @cookie's key, as RDS_FREE_MR does; with
 * @exact, only if the rest of the cookie matches too.  Returns 0, or
 * -EINVAL if there is no such region.  Process context.
 */
static int rdsd_mr_free_cookie(struct rdsd_sock *rs, u64 cookie, bool exact)
{
	struct rdsd_mr *mr;

	xa_lock_bh(&rs->mrs);
	mr = xa_load(&rs->mrs, rdsd_cookie_key(cookie));
	if (mr && exact && mr->cookie_off != rdsd_cookie_offset(cookie))
		mr = NULL;
	if (mr)
		refcount_inc(&mr->refs);	/* put at the end of this call */
	xa_unlock_bh(&rs->mrs);
	if (!mr)
		return -EINVAL;
	if (rdsd_mr_unlink(rs, mr)) {
		rdsd_mr_invalidate(mr);
		rdsd_mr_put_sync(mr);	/* the tables' */
	}
	rdsd_mr_put_sync(mr);
	return 0;
}

/**
 * rdsd_mr_unmap - undo rdsd_mr_map() for a message that was not sent
 * @rs: socket.
 * @cookie: the cookie rdsd_mr_map() gave.
 *
 * Frees the region as RDS_FREE_MR does, if it is still there.  Process
 * context.
 */
void rdsd_mr_unmap(struct rdsd_sock *rs, u64 cookie)
{
	rdsd_mr_free_cookie(rs, cookie, true);
}

/* RDS_DOCA_GET_MR_LIST: several buffers, one zero-based region. */
static int rdsd_mr_get_list(struct rdsd_sock *rs,
			    const struct rds_doca_get_mr_list_args *args)
{
	struct rds_iovec *vecs;
	struct rdsd_mr *mr;
	u64 total = 0;
	unsigned int i;
	int ret;

	ret = rdsd_mr_allowed(rs);
	if (ret)
		return ret;
	if (args->flags & ~RDSD_MR_USER_FLAGS || !args->nr_vecs)
		return -EINVAL;
	if (args->nr_vecs > RDS_DOCA_MAX_MR_SIZE / PAGE_SIZE)
		return -EMSGSIZE;
	/* nr_vecs is small here: no overflow */
	vecs = memdup_user(u64_to_user_ptr(args->vecs_addr),
			   args->nr_vecs * sizeof(*vecs));
	if (IS_ERR(vecs))
		return PTR_ERR(vecs);

	ret = -EINVAL;
	for (i = 0; i < args->nr_vecs; i++) {
		const struct rds_iovec *v = &vecs[i];

		if (!v->bytes || v->addr + v->bytes < v->addr)
			goto out;
		/* pieces meet on page boundaries: one page list */
		if ((i > 0 && offset_in_page(v->addr)) ||
		    (i + 1 < args->nr_vecs &&
		     offset_in_page(v->addr + v->bytes)))
			goto out;
		total += v->bytes;
		if (total > RDS_DOCA_MAX_MR_SIZE) {
			ret = -EMSGSIZE;
			goto out;
		}
	}

	ret = -ENOMEM;
	mr = rdsd_mr_alloc(rs, args->flags);
	if (!mr)
		goto out;
	mr->len = total;
	ret = rdsd_mr_pin(mr, vecs, args->nr_vecs);
	if (ret)
		goto out_mr;
	mr->cookie_off = rdsd_cookie_off_make(0);
	ret = rdsd_mr_insert(rs, mr);
	if (ret)
		goto out_mr;
	ret = rdsd_mr_give_cookie(rs, mr, args->cookie_addr, NULL);
	goto out;

out_mr:
	rdsd_mr_put_sync(mr);
out:
	kfree(vecs);
	return ret;
}

/**
 * rdsd_mr_get - RDS_GET_MR, RDS_GET_MR_FOR_DEST and RDS_DOCA_GET_MR_LIST
 * @rs: socket.
 * @optname: which.
 * @optval: its arguments.
 * @optlen: their length, which must be exact.
 */
int rdsd_mr_get(struct rdsd_sock *rs, int optname, sockptr_t optval,
		unsigned int optlen)
{
	union {
		struct rds_get_mr_args get;
		struct rds_get_mr_for_dest_args dest;
		struct rds_doca_get_mr_list_args list;
	} args;
	struct in6_addr addr;
	struct rdsd_mr *mr;
	int ret, scope;
	__be16 port;
	size_t size;

	switch (optname) {
	case RDS_GET_MR:
		size = sizeof(args.get);
		break;
	case RDS_GET_MR_FOR_DEST:
		size = sizeof(args.dest);
		break;
	default:
		size = sizeof(args.list);
		break;
	}
	if (optlen != size)
		return -EINVAL;
	if (copy_from_sockptr(&args, optval, size))
		return -EFAULT;

	switch (optname) {
	case RDS_GET_MR:
		mr = rdsd_mr_create(rs, &args.get.vec, args.get.flags,
				    &in6addr_any, 0);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		return rdsd_mr_give_cookie(rs, mr, args.get.cookie_addr, NULL);
	case RDS_GET_MR_FOR_DEST:
		ret = rdsd_sockaddr_get((struct sockaddr *)&args.dest.dest_addr,
					sizeof(args.dest.dest_addr), &addr,
					&port, &scope);
		if (ret)
			return ret == -EAFNOSUPPORT ? ret : -EINVAL;
		/* 0.0.0.0, as RDS_GET_MR: any peer */
		if (rdsd_addr_is4(&addr) && !rdsd_addr4(&addr))
			addr = in6addr_any;
		mr = rdsd_mr_create(rs, &args.dest.vec, args.dest.flags,
				    &addr, port);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		return rdsd_mr_give_cookie(rs, mr, args.dest.cookie_addr, NULL);
	default:
		return rdsd_mr_get_list(rs, &args.list);
	}
}

/**
 * rdsd_mr_drop_all - free every region of a socket
 * @rs: socket; closing, or asked with cookie 0 and RDS_RDMA_INVALIDATE.
 */
void rdsd_mr_drop_all(struct rdsd_sock *rs)
{
	struct rdsd_mr *mr;
	unsigned long key;

	might_sleep();
	xa_for_each(&rs->mrs, key, mr) {
		if (rdsd_mr_unlink(rs, mr)) {
			rdsd_mr_invalidate(mr);
			rdsd_mr_put_sync(mr);
		}
	}
}

/**
 * rdsd_mr_free - RDS_FREE_MR
 * @rs: socket.
 * @optval: struct rds_free_mr_args.
 * @optlen: its length.
 *
 * Cookie 0 with RDS_RDMA_INVALIDATE frees every region of the socket;
 * cookie 0 alone does nothing, as in Linux.  The region is dead at once:
 * later operations on it fail at the target.
 */
int rdsd_mr_free(struct rdsd_sock *rs, sockptr_t optval, unsigned int optlen)
{
	struct rds_free_mr_args args;

	if (optlen != sizeof(args))
		return -EINVAL;
	if (copy_from_sockptr(&args, optval, sizeof(args)))
		return -EFAULT;
	if (args.flags & ~RDS_RDMA_INVALIDATE)
		return -EINVAL;
	if (!args.cookie) {
		if (args.flags & RDS_RDMA_INVALIDATE)
			rdsd_mr_drop_all(rs);
		return 0;
	}

	/* the key alone names it, as in Linux */
	return rdsd_mr_free_cookie(rs, args.cookie, false);
}

/**
 * rdsd_mr_owned - is @cookie a live region of @rs?
 * @rs: socket.
 * @cookie: cookie, as RDS_CMSG_RDMA_DEST names it.
 */
bool rdsd_mr_owned(struct rdsd_sock *rs, u64 cookie)
{
	struct rdsd_mr *mr;
	bool ok;

	xa_lock_bh(&rs->mrs);
	mr = xa_load(&rs->mrs, rdsd_cookie_key(cookie));
	ok = mr && !mr->dead;
	xa_unlock_bh(&rs->mrs);
	return ok;
}

void rdsd_mr_net_init(struct rdsd_net *rn)
{
	xa_init_flags(&rn->mr_keys, XA_FLAGS_LOCK_BH);
}

void rdsd_mr_net_exit(struct rdsd_net *rn)
{
	/* every socket of the namespace closed and dropped its regions */
	WARN_ON_ONCE(!xa_empty(&rn->mr_keys));
	xa_destroy(&rn->mr_keys);
}
