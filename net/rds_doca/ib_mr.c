// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca IB transport: memory registration.
 *
 * A region (struct rdsd_mr) of a socket bound to an address of an RDMA
 * device is registered with that device by fast registration: its pinned
 * pages are mapped for DMA, described to a memory region allocated for
 * them (ib_alloc_mr(), ib_map_mr_sg()) and made reachable by an
 * IB_WR_REG_MR work request.  Freeing it posts IB_WR_LOCAL_INV before the
 * pages are unmapped, so a peer's operation that comes later fails with a
 * remote access error and never touches the pages.
 *
 * Registrations are local work requests, but a device takes them only on
 * a connected queue pair in the RTS state, and a socket may register
 * before it has any connection.  So every device has one queue pair of
 * its own, connected to itself, that carries nothing but registrations
 * and invalidations.  It is made when first needed; requests on it are
 * serialized by dev->reg_mutex and waited for.  On InfiniBand and RoCE
 * the queue pair is moved to RTS by hand, addressed to itself.  An iWARP
 * queue pair reaches RTS only through its connection manager (its stream
 * is a TCP connection), so there it is the active end of an rdma_cm
 * connection from the registering socket's address to a listener of our
 * own on the same address (struct rdsd_ib_reg_loop).
 *
 * Keys: the device's remote key is not in the cookie, which carries the
 * random key the core gave the region (mr.h), and never leaves the
 * kernel but to a peer host that may use the region.  A peer kernel asks
 * for it once per cookie and connection (MR_REQ, at the end of this file), naming the
 * socket that asks and the one the operation is addressed to; the answer
 * (rdsd_ib_mr_grant()) gives the key only for a live region of this
 * device owned by the addressed socket, and only to the peer a
 * RDS_GET_MR_FOR_DEST region names.  The peer kernel then checks every
 * operation against the range, rights and ports it was told before it
 * posts one, so a wrong cookie never reaches a device.  Freeing the
 * region tells every peer host that was given the key to forget it
 * (MR_REVOKE), before the key is invalidated.  The low byte of the
 * device key, the part ib_update_fast_reg_key() sets, turns with every
 * registration of the memory region, so a key a peer still holds does not
 * reach a later region through the same memory region: a memory region
 * the device keeps for reuse is destroyed once it went through its 256
 * key bytes (rdsd_ib_mr_alloc()), and a new one starts at the device's
 * next byte.
 *
 * Addresses: the device address of the region's byte 0 is the cookie's
 * offset, so a peer's remote address (cookie offset + its address) means
 * the same to the device as to the software path.  A device translates
 * addresses page by page, so byte 0 must sit at the same offset in its
 * page as in the device's address space: a zero-based list region
 * (RDS_DOCA_GET_MR_LIST) must start on a page boundary here.
 *
 * Lifetime: struct rdsd_ib_mr lives from rdsd_ib_mr_register() to the
 * region's release and holds a reference on the device.  Its device part
 * (the memory region, the DMA mapping, its place on dev->mrs) goes when
 * the region is freed, when the socket closes, or before the device is
 * removed, whichever comes first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <kunit/visibility.h>

#include "ib.h"
#include "mr.h"
#include "stats.h"
#include "trace.h"

/* Work requests on the registration queue pair: one at a time. */
#define RDSD_IB_REG_WRS		2

/**
 * struct rdsd_ib_reg_loop - an iWARP device's connection to itself
 * @dev: the device (no reference: the loop goes before the device).
 * @listen: our listener on @addr, on a port rdma_cm picked.
 * @active: the connecting end; its queue pair @aqp is the device's
 *	registration queue pair.
 * @passive: the end @listen accepted, NULL until then; set and cleared
 *	only by @listen's handler (rdma_cm serializes a listener's events
 *	under its handler mutex), read once @listen is destroyed.
 * @aqp: queue pair of @active.
 * @pqp: queue pair of @passive; nothing is posted on it.
 * @cq: completion queue of both.
 * @done: completed once @active is established or failed.
 * @status: -EINPROGRESS, then 0 or why the connection failed.
 * @broken: the connection or a request on it failed: the next
 *	registration makes a new loop.
 *
 * The queue pairs are ours (ib_create_qp()), not rdma_cm's, and are
 * destroyed after every rdma_cm id, when no event handler can run.
 * Lifetime: made by rdsd_ib_reg_loop_get() under dev->loop_mutex,
 * destroyed by it when broken or by rdsd_ib_reg_loop_put() when the
 * device goes.
 */
struct rdsd_ib_reg_loop {
	struct rdsd_ib_dev	*dev;
	struct rdma_cm_id	*listen;
	struct rdma_cm_id	*active;
	struct rdma_cm_id	*passive;
	struct ib_qp		*aqp;
	struct ib_qp		*pqp;
	struct ib_cq		*cq;
	struct completion	done;
	int			status;
	bool			broken;
};

/**
 * struct rdsd_ib_reg_wait - a registration request being waited for
 * @cqe: its completion entry.
 * @done: completed by the completion handler.
 * @status: the completion's status.
 */
struct rdsd_ib_reg_wait {
	struct ib_cqe		cqe;
	struct completion	done;
	enum ib_wc_status	status;
};

static void rdsd_ib_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdsd_ib_reg_wait *w = container_of(wc->wr_cqe,
						  struct rdsd_ib_reg_wait, cqe);

	w->status = wc->status;
	complete(&w->done);
}

/*
 * Destroy the registration queue pair; dev->reg_mutex held.  On iWARP the
 * queue pair belongs to the device's loop, which rdsd_ib_reg_loop_get()
 * or rdsd_ib_reg_loop_put() destroys outside reg_mutex: rdma_cm ids are
 * destroyed under their handler's mutex, and our connections' handlers
 * may free regions, which takes reg_mutex.
 */
static void rdsd_ib_reg_qp_destroy(struct rdsd_ib_dev *dev)
{
	lockdep_assert_held(&dev->reg_mutex);
	if (dev->iwarp) {
		if (dev->reg_loop)
			WRITE_ONCE(dev->reg_loop->broken, true);
	} else {
		if (dev->reg_qp)
			ib_destroy_qp(dev->reg_qp);
		if (dev->reg_cq) {
			rdsd_ib_cq_quiesce();
			ib_free_cq(dev->reg_cq);
		}
	}
	dev->reg_qp = NULL;
	dev->reg_cq = NULL;
}

/* iWARP: the registration connection --------------------------------------- */

/* rdma_cm's address and route resolution, each, on our own address */
#define RDSD_IB_LOOP_RESOLVE_MS	2000
/* how long a registration waits for the connection to come up */
#define RDSD_IB_LOOP_WAIT	(20 * HZ)

/* Make a queue pair of the loop in *@qp; 0 or a negative errno. */
static int rdsd_ib_loop_qp(struct rdsd_ib_reg_loop *loop, struct ib_qp **qp)
{
	struct ib_qp_init_attr attr = {
		.send_cq	= loop->cq,
		.recv_cq	= loop->cq,
		.cap = {
			.max_send_wr	= RDSD_IB_REG_WRS,
			.max_recv_wr	= 1,
			.max_send_sge	= 1,
			.max_recv_sge	= 1,
		},
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.qp_type	= IB_QPT_RC,
	};

	struct ib_qp *q = ib_create_qp(loop->dev->pd, &attr);

	if (IS_ERR(q))
		return PTR_ERR(q);
	*qp = q;
	return 0;
}

static void rdsd_ib_loop_param(struct rdma_conn_param *p, struct ib_qp *qp)
{
	memset(p, 0, sizeof(*p));
	/* the stream's first message may be an RDMA read (MPA's RTR) */
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->qp_num = qp->qp_num;
}

/* The active end's attempt ended; its handler_mutex serializes us. */
static void rdsd_ib_loop_done(struct rdsd_ib_reg_loop *loop, int status)
{
	if (status)
		WRITE_ONCE(loop->broken, true);
	if (loop->status != -EINPROGRESS)
		return;
	loop->status = status;
	complete(&loop->done);
}

/* rdma_cm events of the loop's three ids; they share @loop as context. */
static int rdsd_ib_loop_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rdsd_ib_reg_loop *loop = id->context;
	struct rdma_conn_param p;
	int ret = 0;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		/* @id is new; returning non-zero makes rdma_cm destroy it */
		if (loop->passive)
			return 1;
		rdsd_ib_loop_param(&p, loop->pqp);
		if (rdma_accept(id, &p))
			return 1;
		loop->passive = id;
		return 0;
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, RDSD_IB_LOOP_RESOLVE_MS);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rdsd_ib_loop_param(&p, loop->aqp);
		ret = rdma_connect_locked(id, &p);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		break;
	default:
		/* any failure or disconnection, at either end */
		ret = -ECONNRESET;
		break;
	}
	if (id == loop->active)
		rdsd_ib_loop_done(loop, ret);
	else if (ret)
		WRITE_ONCE(loop->broken, true);
	return 0;
}

/* Take the loop down: the ids first, then the queue pairs. */
static void rdsd_ib_loop_free(struct rdsd_ib_reg_loop *loop)
{
	if (loop->active)
		rdma_destroy_id(loop->active);
	/* after this no handler of @listen runs: @passive is final */
	if (loop->listen)
		rdma_destroy_id(loop->listen);
	if (loop->passive)
		rdma_destroy_id(loop->passive);
	if (loop->aqp)
		ib_destroy_qp(loop->aqp);
	if (loop->pqp)
		ib_destroy_qp(loop->pqp);
	if (loop->cq) {
		rdsd_ib_cq_quiesce();
		ib_free_cq(loop->cq);
	}
	kfree(loop);
}

/* Make an rdma_cm id of the loop in *@id; 0 or a negative errno. */
static int rdsd_ib_loop_id(struct rdsd_ib_reg_loop *loop,
			   struct rdma_cm_id **id)
{
	struct rdma_cm_id *i = rdma_create_id(&init_net, rdsd_ib_loop_handler,
					      loop, RDMA_PS_TCP, IB_QPT_RC);

	if (IS_ERR(i))
		return PTR_ERR(i);
	*id = i;
	return 0;
}

/* Connect a new loop from @addr to itself; waits.  Returns it or ERR_PTR. */
static struct rdsd_ib_reg_loop *rdsd_ib_loop_make(struct rdsd_ib_dev *dev,
						  const struct in6_addr *addr,
						  int scope)
{
	struct sockaddr_storage sin, dst;
	struct rdsd_ib_reg_loop *loop;
	struct rdma_cm_id *id;
	int ret;

	rdsd_sockaddr_put(&sin, addr, 0, scope);
	loop = kzalloc(sizeof(*loop), GFP_KERNEL);
	if (!loop)
		return ERR_PTR(-ENOMEM);
	loop->dev = dev;
	init_completion(&loop->done);
	loop->status = -EINPROGRESS;

	loop->cq = ib_alloc_cq_any(dev->ibdev, dev, 2 * RDSD_IB_REG_WRS + 2,
				   IB_POLL_SOFTIRQ);
	if (IS_ERR(loop->cq)) {
		ret = PTR_ERR(loop->cq);
		loop->cq = NULL;
		goto err;
	}
	ret = rdsd_ib_loop_qp(loop, &loop->aqp) ?:
	      rdsd_ib_loop_qp(loop, &loop->pqp) ?:
	      rdsd_ib_loop_id(loop, &loop->listen);
	if (ret)
		goto err;
	id = loop->listen;
	ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(id, 1);
	if (ret)
		goto err;
	/* rdma_bind_addr() wrote the port it picked */
	memcpy(&dst, &id->route.addr.src_addr, sizeof(dst));
	if (id->device != dev->ibdev || dst.ss_family != sin.ss_family) {
		ret = -EADDRNOTAVAIL;
		goto err;
	}

	ret = rdsd_ib_loop_id(loop, &loop->active);
	if (ret)
		goto err;
	ret = rdma_resolve_addr(loop->active, (struct sockaddr *)&sin,
				(struct sockaddr *)&dst,
				RDSD_IB_LOOP_RESOLVE_MS);
	if (ret)
		goto err;
	if (!wait_for_completion_timeout(&loop->done, RDSD_IB_LOOP_WAIT))
		ret = -ETIMEDOUT;
	else
		ret = loop->status;
	if (ret)
		goto err;
	return loop;

err:
	pr_warn_ratelimited("%s: cannot connect the registration queue pair from %pISc: %d\n",
			    dev_name(&dev->ibdev->dev), &sin, ret);
	rdsd_ib_loop_free(loop);
	return ERR_PTR(ret);
}

/*
 * iWARP: make sure the device has a working registration connection, from
 * @addr if a new one is needed, and make its queue pair the registration
 * queue pair.  Process context; takes dev->loop_mutex, then reg_mutex.
 * Returns 0 or a negative errno (-ENODEV once the device is going).
 */
static int rdsd_ib_reg_loop_get(struct rdsd_ib_dev *dev,
				const struct in6_addr *addr, int scope)
{
	struct rdsd_ib_reg_loop *old = NULL, *loop;
	int ret = 0;

	if (!dev->iwarp)
		return 0;
	mutex_lock(&dev->loop_mutex);
	if (READ_ONCE(dev->dying)) {
		ret = -ENODEV;
		goto out;
	}
	loop = dev->reg_loop;
	if (loop && !READ_ONCE(loop->broken))
		goto out;
	if (loop) {
		/* nobody posts on it once it is not the registration QP */
		mutex_lock(&dev->reg_mutex);
		dev->reg_qp = NULL;
		dev->reg_cq = NULL;
		dev->reg_loop = NULL;
		mutex_unlock(&dev->reg_mutex);
		old = loop;
	}
	loop = rdsd_ib_loop_make(dev, addr, scope);
	if (IS_ERR(loop)) {
		ret = PTR_ERR(loop);
		goto out;
	}
	mutex_lock(&dev->reg_mutex);
	dev->reg_loop = loop;
	dev->reg_qp = loop->aqp;
	dev->reg_cq = loop->cq;
	mutex_unlock(&dev->reg_mutex);
out:
	mutex_unlock(&dev->loop_mutex);
	if (old)
		rdsd_ib_loop_free(old);
	return ret;
}

/* iWARP: the device goes; its registrations are off.  Process context. */
static void rdsd_ib_reg_loop_put(struct rdsd_ib_dev *dev)
{
	struct rdsd_ib_reg_loop *loop;

	mutex_lock(&dev->loop_mutex);
	mutex_lock(&dev->reg_mutex);
	loop = dev->reg_loop;
	dev->reg_loop = NULL;
	dev->reg_qp = NULL;
	dev->reg_cq = NULL;
	mutex_unlock(&dev->reg_mutex);
	mutex_unlock(&dev->loop_mutex);
	if (loop)
		rdsd_ib_loop_free(loop);
}

/* Move the new registration queue pair to RTS, connected to itself. */
static int rdsd_ib_reg_qp_connect(struct rdsd_ib_dev *dev, u32 port)
{
	struct ib_device *ibdev = dev->ibdev;
	struct ib_qp *qp = dev->reg_qp;
	struct ib_qp_attr a = {};
	struct ib_port_attr pa;
	union ib_gid gid;
	int ret;

	a.qp_state = IB_QPS_INIT;
	a.port_num = port;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	ret = ib_query_port(ibdev, port, &pa);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = pa.active_mtu;
	a.dest_qp_num = qp->qp_num;
	a.min_rnr_timer = 12;
	a.ah_attr.type = rdma_ah_find_type(ibdev, port);
	rdma_ah_set_port_num(&a.ah_attr, port);
	if (a.ah_attr.type == RDMA_AH_ATTR_TYPE_IB) {
		rdma_ah_set_dlid(&a.ah_attr, pa.lid);
	} else {
		/* the port's default GID: nothing is ever sent to it */
		ret = rdma_query_gid(ibdev, port, 0, &gid);
		if (ret)
			return ret;
		rdma_ah_set_grh(&a.ah_attr, &gid, 0, 0, 1, 0);
	}
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/* Make the registration queue pair if there is none; dev->reg_mutex held. */
static int rdsd_ib_reg_qp_get(struct rdsd_ib_dev *dev, u32 port)
{
	struct ib_qp_init_attr attr = {};
	struct ib_qp *qp;
	struct ib_cq *cq;
	int ret;

	lockdep_assert_held(&dev->reg_mutex);
	if (dev->reg_qp)
		return 0;
	if (dev->iwarp)
		return -EIO;	/* rdsd_ib_reg_loop_get() failed */
	cq = ib_alloc_cq_any(dev->ibdev, dev, RDSD_IB_REG_WRS,
			     IB_POLL_SOFTIRQ);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	dev->reg_cq = cq;

	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.cap.max_send_wr = RDSD_IB_REG_WRS;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	qp = ib_create_qp(dev->pd, &attr);
	if (IS_ERR(qp)) {
		rdsd_ib_reg_qp_destroy(dev);
		return PTR_ERR(qp);
	}
	dev->reg_qp = qp;
	ret = rdsd_ib_reg_qp_connect(dev, port);
	if (ret) {
		pr_warn("%s: cannot set up the registration queue pair: %d\n",
			dev_name(&dev->ibdev->dev), ret);
		rdsd_ib_reg_qp_destroy(dev);
	}
	return ret;
}

/*
 * Post one local work request on the registration queue pair and wait for
 * it.  A failed request leaves the queue pair in the error state: it is
 * destroyed, and the next request makes a new one.  dev->reg_mutex held.
 */
static int rdsd_ib_reg_post(struct rdsd_ib_dev *dev, struct ib_send_wr *wr)
{
	struct rdsd_ib_reg_wait w;
	int ret, i;

	lockdep_assert_held(&dev->reg_mutex);
	if (!dev->reg_qp)
		return -EIO;
	init_completion(&w.done);
	w.cqe.done = rdsd_ib_reg_done;
	wr->wr_cqe = &w.cqe;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->next = NULL;
	ret = ib_post_send(dev->reg_qp, wr, NULL);
	/*
	 * Soft-iWARP refuses a post (ENOTCONN) while its state lock is
	 * taken, as it is for a moment after the connection came up; the
	 * queue pair is ours alone, so try again a little later.
	 */
	for (i = 0; ret == -ENOTCONN && dev->iwarp && i < 100; i++) {
		usleep_range(1000, 2000);
		ret = ib_post_send(dev->reg_qp, wr, NULL);
	}
	if (!ret) {
		/* the completion handler uses @w: always wait for it */
		wait_for_completion(&w.done);
		if (w.status != IB_WC_SUCCESS) {
			pr_warn_ratelimited("%s: %s failed: %s\n",
					    dev_name(&dev->ibdev->dev),
					    wr->opcode == IB_WR_REG_MR ?
					    "registration" : "invalidation",
					    ib_wc_status_msg(w.status));
			ret = -EIO;
		}
	}
	if (ret)
		rdsd_ib_reg_qp_destroy(dev);
	return ret;
}

/*
 * A memory region able to map @npages pages for @imr: one the device
 * keeps, else a new one.  Allocating and destroying a region costs more
 * than a registration on some devices (Soft-RoCE) and a region is
 * registered for every RDS_CMSG_RDMA_MAP, so invalidated regions are
 * kept, a few of each power-of-two capacity, and registered again under
 * the next key byte of their own (rdsd_ib_mr_post_reg()): a region's
 * remote key does not come back before its 256 key bytes were used, and
 * then the region is destroyed rather than kept (rdsd_ib_mr_recycle()),
 * so a key a peer kept past a free never reaches a later region through
 * the same memory region.  dev->reg_mutex held.
 */
static struct ib_mr *rdsd_ib_mr_alloc(struct rdsd_ib_dev *dev,
				      struct rdsd_ib_mr *imr, u32 npages)
{
	u32 pages = max_t(u32, roundup_pow_of_two(npages),
			  RDSD_IB_MR_MIN_PAGES);
	int c = ilog2(pages) - ilog2(RDSD_IB_MR_MIN_PAGES);
	struct ib_mr *mr;

	lockdep_assert_held(&dev->reg_mutex);
	if (c >= RDSD_IB_MR_CLASSES || pages > dev->max_frmr_pages) {
		c = -1;
		pages = npages;
	} else if (dev->mr_cached[c]) {
		u8 n = --dev->mr_cached[c];

		imr->mr_class = c;
		imr->mr_key0 = dev->mr_cache_key0[c][n];
		return dev->mr_cache[c][n];
	}
	imr->mr_class = c;
	imr->mr_key0 = dev->reg_key++;
	mr = ib_alloc_mr(dev->pd, IB_MR_TYPE_MEM_REG, pages);
	/* the byte before the first: every registration takes the next */
	if (!IS_ERR(mr))
		ib_update_fast_reg_key(mr, (u8)(imr->mr_key0 - 1));
	return mr;
}

/*
 * Done with @imr's memory region: keep it if it was invalidated (@clean),
 * has a key byte it did not use yet and its class has room, else destroy
 * it.  dev->reg_mutex held.
 */
static void rdsd_ib_mr_recycle(struct rdsd_ib_dev *dev, struct rdsd_ib_mr *imr,
			       bool clean)
{
	struct ib_mr *mr = imr->mr;
	int cls = imr->mr_class;
	u8 n;

	lockdep_assert_held(&dev->reg_mutex);
	if (clean && cls >= 0 && !READ_ONCE(dev->dying) &&
	    (u8)(ib_inc_rkey(mr->rkey) & 0xff) != imr->mr_key0 &&
	    dev->mr_cached[cls] < RDSD_IB_MR_CACHE) {
		n = dev->mr_cached[cls]++;
		dev->mr_cache[cls][n] = mr;
		dev->mr_cache_key0[cls][n] = imr->mr_key0;
		return;
	}
	ib_dereg_mr(mr);
}

/* Destroy the regions the device keeps; dev->reg_mutex held. */
static void rdsd_ib_mr_cache_drain(struct rdsd_ib_dev *dev)
{
	int c;

	lockdep_assert_held(&dev->reg_mutex);
	for (c = 0; c < RDSD_IB_MR_CLASSES; c++)
		while (dev->mr_cached[c])
			ib_dereg_mr(dev->mr_cache[c][--dev->mr_cached[c]]);
}

/*
 * Take @imr off its device: invalidate, unmap, and keep the memory region
 * for another registration or destroy it.  An invalidation that fails
 * still ends with the memory region destroyed, which a device refuses to
 * reach.  dev->reg_mutex held.
 */
static void rdsd_ib_mr_drop(struct rdsd_ib_mr *imr)
{
	struct rdsd_ib_dev *dev = imr->dev;
	struct ib_send_wr inv = {};

	lockdep_assert_held(&dev->reg_mutex);
	WRITE_ONCE(imr->rkey, 0);	/* given to no peer from now on */
	if (imr->mr) {
		bool clean = false;

		if (!list_empty(&imr->item)) {
			inv.opcode = IB_WR_LOCAL_INV;
			inv.ex.invalidate_rkey = imr->mr->rkey;
			clean = !rdsd_ib_reg_post(dev, &inv);
		}
		rdsd_ib_mr_recycle(dev, imr, clean);
		imr->mr = NULL;
	}
	list_del_init(&imr->item);
	if (imr->mapped)
		ib_dma_unmap_sgtable_attrs(dev->ibdev, &imr->sgt,
					   DMA_BIDIRECTIONAL, 0);
	imr->mapped = false;
}

/* Free what is left of @imr once it is off its device. */
static void rdsd_ib_mr_free(struct rdsd_ib_mr *imr)
{
	sg_free_table(&imr->sgt);
	rdsd_ib_dev_put(imr->dev);
	kfree(imr);
}

/* Register @imr's memory region under the device's next key. */
static int rdsd_ib_mr_post_reg(struct rdsd_ib_mr *imr, struct rdsd_mr *mr,
			       u32 port)
{
	struct rdsd_ib_dev *dev = imr->dev;
	struct ib_reg_wr reg = {};
	int ret;

	lockdep_assert_held(&dev->reg_mutex);
	ret = rdsd_ib_reg_qp_get(dev, port);
	if (ret)
		return ret;

	reg.wr.opcode = IB_WR_REG_MR;
	reg.mr = imr->mr;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	if (!(mr->flags & RDSD_MR_READ_ONLY))
		reg.access |= IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC;
	ib_update_fast_reg_key(imr->mr, ib_inc_rkey(imr->mr->rkey) & 0xff);
	reg.key = imr->mr->rkey;
	ret = rdsd_ib_reg_post(dev, &reg.wr);
	if (!ret)
		imr->rkey = imr->mr->rkey;
	return ret;
}

/* Map @mr's pages and register them with the device; reg_mutex held. */
static int rdsd_ib_mr_setup(struct rdsd_ib_mr *imr, struct rdsd_mr *mr,
			    u32 port)
{
	struct rdsd_ib_dev *dev = imr->dev;
	int ret, n;

	lockdep_assert_held(&dev->reg_mutex);
	ret = sg_alloc_table_from_pages(&imr->sgt, mr->pages, mr->npages,
					mr->pg_off, mr->len, GFP_KERNEL);
	if (ret)
		return ret;
	ret = ib_dma_map_sgtable_attrs(dev->ibdev, &imr->sgt,
				       DMA_BIDIRECTIONAL, 0);
	if (ret)
		return ret;
	imr->mapped = true;
	imr->mr = rdsd_ib_mr_alloc(dev, imr, mr->npages);
	if (IS_ERR(imr->mr)) {
		ret = PTR_ERR(imr->mr);
		imr->mr = NULL;
		return ret;
	}
	n = ib_map_mr_sg(imr->mr, imr->sgt.sgl, imr->sgt.nents, NULL,
			 PAGE_SIZE);
	if (n != imr->sgt.nents)
		return n < 0 ? n : -EINVAL;
	/* byte 0 at the cookie's offset, see above */
	imr->mr->iova = mr->cookie_off;
	return rdsd_ib_mr_post_reg(imr, mr, port);
}

/**
 * rdsd_ib_mr_register - ->mr_register of the IB transport
 * @rs: socket, bound to an address of an RDMA device.
 * @mr: region, its pages pinned.
 *
 * Everything that touches the device happens under its reg_mutex, so
 * device removal (rdsd_ib_mr_dev_remove()) finds every region.  Returns
 * 0; -ENODEV if no device serves the address any more; -EINVAL for a list
 * region that does not start on a page boundary; -EMSGSIZE for more
 * pages than the device maps at once; -ENOMEM; or -EIO if the device
 * refused the registration.
 */
int rdsd_ib_mr_register(struct rdsd_sock *rs, struct rdsd_mr *mr)
{
	struct rdsd_ib_dev *dev;
	struct rdsd_ib_mr *imr;
	u32 port;
	int ret;

	if (offset_in_page(mr->cookie_off) != mr->pg_off)
		return -EINVAL;
	dev = rdsd_ib_dev_find(&rs->bound_addr, rs->bound_scope, &port);
	if (!dev)
		return -ENODEV;
	if (mr->npages > dev->max_frmr_pages) {
		rdsd_ib_dev_put(dev);
		return -EMSGSIZE;
	}
	imr = kzalloc(sizeof(*imr), GFP_KERNEL);
	if (!imr) {
		rdsd_ib_dev_put(dev);
		return -ENOMEM;
	}
	INIT_LIST_HEAD(&imr->item);
	imr->dev = dev;		/* the reference, put by rdsd_ib_mr_free() */

	ret = rdsd_ib_reg_loop_get(dev, &rs->bound_addr, rs->bound_scope);
	if (ret) {
		rdsd_ib_mr_free(imr);
		return ret;
	}
	mutex_lock(&dev->reg_mutex);
	ret = READ_ONCE(dev->dying) ? -ENODEV :
	      rdsd_ib_mr_setup(imr, mr, port);
	if (!ret)
		list_add_tail(&imr->item, &dev->mrs);
	else
		rdsd_ib_mr_drop(imr);
	mutex_unlock(&dev->reg_mutex);
	if (ret) {
		rdsd_ib_mr_free(imr);
		return ret;
	}
	mr->tp = imr;
	return 0;
}

/*
 * Count a grant of @mr's device key on @tp's connection.  Returns false
 * if the region died meanwhile: either rdsd_ib_mr_unregister() sees this
 * grant, or we see the region dead.  send_lock held.
 */
static bool rdsd_ib_mr_granted(struct rdsd_ib_conn *tp, struct rdsd_mr *mr)
{
	/* fully ordered: pairs with the smp_mb() of rdsd_ib_mr_unregister() */
	if (atomic_inc_return(&mr->grants) == 1)
		WRITE_ONCE(mr->grantee, tp->conn);
	return !READ_ONCE(mr->dead);
}

/*
 * Did the one peer host given a RDS_RDMA_USE_ONCE region's key use the
 * region up?  A correct peer forgets a use-once key when it posts the
 * operation (rdsd_ib_grant_used()), so it needs no MR_REVOKE: that saves
 * a message for every request/response transaction.  A peer that keeps
 * the key gains nothing: the invalidation that follows is what stops the
 * device.  @mr is dead.
 */
static bool rdsd_ib_mr_consumed(const struct rdsd_mr *mr)
{
	const struct rdsd_conn *via = READ_ONCE(mr->used_via);

	return (mr->flags & RDSD_MR_USE_ONCE) && via &&
	       via == READ_ONCE(mr->grantee) && atomic_read(&mr->grants) == 1;
}

/**
 * rdsd_ib_mr_unregister - ->mr_unregister of the IB transport
 * @mr: region, dead: freed, used up, or its socket closing.
 *
 * Tells the peer hosts that were given the region's device key to forget
 * it, then takes the region off its device; idempotent.  Process context.
 */
void rdsd_ib_mr_unregister(struct rdsd_mr *mr)
{
	struct rdsd_ib_mr *imr = mr->tp;
	bool revoke;

	mutex_lock(&imr->dev->reg_mutex);
	revoke = !imr->revoked;
	imr->revoked = true;
	mutex_unlock(&imr->dev->reg_mutex);
	/*
	 * Dead already: no new grant; peers forget the old ones first,
	 * unless the one peer given the key used it up.
	 */
	smp_mb();	/* dead, then grants: pairs with rdsd_ib_mr_granted() */
	if (revoke && atomic_read(&mr->grants)) {
		if (rdsd_ib_mr_consumed(mr)) {
			rdsd_stat_inc(mr->rn, rdma_revoke_spared);
		} else {
			rdsd_stat_inc(mr->rn, rdma_revoke);
			rdsd_ib_dev_revoke(imr->dev, mr);
		}
	}

	mutex_lock(&imr->dev->reg_mutex);
	rdsd_ib_mr_drop(imr);
	mutex_unlock(&imr->dev->reg_mutex);
}

/**
 * rdsd_ib_mr_grant - may a peer host have a region's device key?
 * @tp: the connection the peer asked on; its queue pair is up.
 * @mr: the region its cookie names, with a reference.
 * @peer: the asking socket (the peer's address and the port it asked
 *	for) and the socket it addresses (ours).
 * @ans: the answer, filled in when the key is given: the key, the
 *	region's length and rights, and the one port the grant is good for
 *	if the region names one.
 *
 * Yes for a live region registered with the connection's device and
 * owned by the addressed socket, if the peer may use it (rdsd_mr_check()).
 * The caller counts the grant and checks again that the region is alive,
 * under send_lock (rdsd_ib_mr_revoke()).  Any context.
 */
bool rdsd_ib_mr_grant(struct rdsd_ib_conn *tp, struct rdsd_mr *mr,
		      const struct rdsd_mr_peer *peer,
		      struct rdsd_wire_info *ans)
{
	struct rdsd_ib_mr *imr = mr->tp;
	u64 off;

	if (mr->trans != &rdsd_ib_transport || !imr || imr->dev != tp->dev)
		return false;
	ans->rdma_key = READ_ONCE(imr->rkey);
	if (!ans->rdma_key)
		return false;
	if (rdsd_mr_check(mr, peer, mr->cookie_off, mr->len, false, &off))
		return false;
	ans->len = mr->len;
	ans->sport = mr->dest_port ? peer->sport : 0;
	if (mr->flags & RDSD_MR_READ_ONLY)
		ans->flags |= RDSD_WIRE_F_MR_RO;
	if (mr->flags & RDSD_MR_USE_ONCE)
		ans->flags |= RDSD_WIRE_F_MR_ONCE;
	return true;
}

/**
 * rdsd_ib_mr_release - ->mr_release of the IB transport
 * @mr: region whose last reference is gone.
 */
void rdsd_ib_mr_release(struct rdsd_mr *mr)
{
	struct rdsd_ib_mr *imr = mr->tp;

	rdsd_ib_mr_unregister(mr);
	mr->tp = NULL;
	rdsd_ib_mr_free(imr);
}

/**
 * rdsd_ib_mr_dev_remove - take every region off a device being removed
 * @dev: the device, marked dying.
 *
 * The regions stay with their sockets, out of the device's reach; the
 * memory regions kept for reuse and the registration queue pair go too.
 */
void rdsd_ib_mr_dev_remove(struct rdsd_ib_dev *dev)
{
	struct rdsd_ib_mr *imr, *tmp;

	mutex_lock(&dev->reg_mutex);
	list_for_each_entry_safe(imr, tmp, &dev->mrs, item)
		rdsd_ib_mr_drop(imr);
	rdsd_ib_mr_cache_drain(dev);
	rdsd_ib_reg_qp_destroy(dev);
	mutex_unlock(&dev->reg_mutex);
	if (dev->iwarp)
		rdsd_ib_reg_loop_put(dev);
}

static struct rdsd_ib_grant *rdsd_ib_grant_slot(struct rdsd_ib_conn *tp,
						u64 cookie)
{
	return &tp->grants[hash_64(cookie, ilog2(RDSD_IB_GRANTS))];
}

/**
 * rdsd_ib_grant_check - may this operation use what the peer granted?
 * @g: the peer's answer for the operation's cookie.
 * @op: the operation.
 * @sport: the port of the socket that sends it.
 * @dport: the port it is addressed to.
 *
 * The peer's kernel gave the device key for one owner, one range, its
 * rights, and perhaps one asking port; no operation that falls outside
 * reaches the device.  Returns 0 or -EACCES.
 */
int rdsd_ib_grant_check(const struct rdsd_ib_grant *g,
			const struct rdsd_op *op, __be16 sport, __be16 dport)
{
	u64 idx;

	if (g->dport != dport || (g->sport && g->sport != sport))
		return -EACCES;
	if (op->kind != RDSD_OP_READ && (g->flags & RDSD_WIRE_F_MR_RO))
		return -EACCES;
	/* the range rule of rdsd_mr_check(), on what the owner told */
	if (!rdsd_mr_range_ok(rdsd_cookie_offset(op->cookie), g->len,
			      op->raddr, op->bytes, &idx))
		return -EACCES;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_grant_check);

/*
 * Find the device key for @msg's operation: 0 with op->rkey set, -EAGAIN
 * while the peer is asked (its answer kicks the connection), or -EACCES
 * when the operation may not go: the peer refused the cookie (and counted
 * it), or the operation is addressed to port 0 or falls outside what the
 * peer granted (counted here).
 * send_lock held, the queue pair taking sends.
 */
int rdsd_ib_op_resolve(struct rdsd_ib_conn *tp, struct rdsd_msg *msg)
{
	struct rdsd_op *op = msg->op;
	struct rdsd_ib_grant *g = rdsd_ib_grant_slot(tp, op->cookie);
	struct rdsd_wire_info req = {
		.type = RDSD_WIRE_MR_REQ,
		.sport = msg->sport,
		.dport = msg->dport,
		.rdma_cookie = op->cookie,
	};

	if (g->cookie == op->cookie) {
		if (rdsd_ib_grant_check(g, op, msg->sport, msg->dport)) {
			rdsd_stat_inc(tp->conn->rn, rdma_refused);
			return -EACCES;
		}
		op->rkey = g->rkey;
		return 0;
	}
	if (tp->denied == op->cookie) {
		tp->denied = 0;
		return -EACCES;
	}
	/*
	 * No socket owns port 0, so no region answers to it: refused here,
	 * as its kernel would, and not asked for (the protocol has no
	 * request for port 0).
	 */
	if (!msg->dport) {
		rdsd_stat_inc(tp->conn->rn, rdma_refused);
		return -EACCES;
	}
	if (tp->req_out)
		return -EAGAIN;
	/* a cookie is never 0 */
	tp->req_out = true;
	tp->req_cookie = op->cookie;
	tp->req_dport = msg->dport;
	trace_rdsd_mr_request(tp->conn, op->cookie, ntohs(msg->dport), false);
	rdsd_ib_ctl_push(tp, &req);
	rdsd_stat_inc(tp->conn->rn, rdma_resolve);
	rdsd_ib_send_ctl(tp);
	return -EAGAIN;
}

/* @op was posted: a grant good for one operation is used up. */
void rdsd_ib_grant_used(struct rdsd_ib_conn *tp, const struct rdsd_op *op)
{
	struct rdsd_ib_grant *g = rdsd_ib_grant_slot(tp, op->cookie);

	if (g->cookie == op->cookie && (g->flags & RDSD_WIRE_F_MR_ONCE))
		g->cookie = 0;
}

/**
 * rdsd_ib_mr_revoke - tell the peer to forget a region's device key
 * @tp: a connection from the region's address.
 * @mr: the region, dead, granted to some peer.
 *
 * Queued behind any grant this connection gave, and before any message
 * sent after this call: a peer that learns of the free from a message has
 * forgotten the key by then.  When @ctl has no room (two entries stay
 * free for an answer and a request), one MR_REVOKE of cookie 0, sent
 * after everything queued, makes the peer forget every grant it had.
 * Any context but under send_lock.
 */
void rdsd_ib_mr_revoke(struct rdsd_ib_conn *tp, struct rdsd_mr *mr)
{
	const struct rdsd_wire_info info = {
		.type = RDSD_WIRE_MR_REVOKE,
		.rdma_cookie = rdsd_cookie_make(mr->key, mr->cookie_off),
	};

	spin_lock_bh(&tp->send_lock);
	/* a queue pair that is not up forgets every grant anyway */
	if (tp->tx_ready) {
		if (tp->ctl_head - tp->ctl_tail < RDSD_IB_CTL_RING - 2) {
			rdsd_ib_ctl_push(tp, &info);
			trace_rdsd_mr_revoke(tp->conn, info.rdma_cookie, 0,
					     false);
		} else {
			tp->revoke_all = true;
			trace_rdsd_mr_revoke(tp->conn, 0, 0, false);
		}
		rdsd_ib_send_ctl(tp);
	}
	spin_unlock_bh(&tp->send_lock);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_mr_revoke);

/*
 * The peer asks which device key cookie @req->rdma_cookie stands for:
 * answer, through @ctl, with the key if the region may be used by the
 * asking socket through the socket addressed (rdsd_ib_mr_grant()), else
 * with a refusal, counted in rdma_refused.  Returns 0, or -EPROTO if the
 * peer asked again before it had the answer.  Softirq.
 */
static int rdsd_ib_mr_answer(struct rdsd_ib_conn *tp,
			     const struct rdsd_wire_info *req)
{
	struct rdsd_conn *conn = tp->conn;
	const struct rdsd_mr_peer peer = {
		.saddr = conn->faddr, .sport = req->sport,
		.daddr = conn->laddr, .dport = req->dport,
	};
	struct rdsd_wire_info ans = {
		.type = RDSD_WIRE_MR_ANS,
		.rdma_cookie = req->rdma_cookie,
		.dport = req->dport,
	};
	struct rdsd_mr *mr = rdsd_mr_find(conn->rn, req->rdma_cookie);
	bool ok = mr && rdsd_ib_mr_grant(tp, mr, &peer, &ans);
	int ret = 0;

	spin_lock_bh(&tp->send_lock);
	if (rdsd_ib_ctl_count(tp, RDSD_WIRE_MR_ANS)) {
		ret = -EPROTO;
		goto out;
	}
	if (ok)
		ok = rdsd_ib_mr_granted(tp, mr);
	if (!ok) {
		ans.rdma_key = 0;
		ans.len = 0;
		ans.sport = 0;
		ans.flags = 0;
		rdsd_stat_inc(conn->rn, rdma_refused);
	}
	trace_rdsd_mr_answer(conn, req->rdma_cookie, ntohs(req->dport), ok);
	rdsd_ib_ctl_push(tp, &ans);
	rdsd_ib_send_ctl(tp);
out:
	spin_unlock_bh(&tp->send_lock);
	rdsd_mr_put(mr);
	return ret;
}

/**
 * rdsd_ib_mr_grant_ahead - send a cookie's device key ahead of its message
 * @tp: the connection @msg goes on.
 * @msg: a message that tells the peer of a region of its sender's
 *	(RDS_CMSG_RDMA_MAP or RDS_CMSG_RDMA_DEST).
 *
 * The peer's socket is told of the region to use it, most often at once,
 * in the operation of its answer: asking for the key then (MR_REQ) would
 * cost a round trip, with one request at a time, before the operation.
 * So the key goes first, in an MR_GRANT: the answer the peer would get for
 * the socket @msg is addressed to, given by the same rules
 * (rdsd_ib_mr_grant()), queued on @ctl like an answer and sent before the
 * message, and followed by any revocation as an answer is.  A region that
 * may not be granted so (another socket's cookie named by
 * RDS_CMSG_RDMA_DEST, a region on another device) is left to MR_REQ, and
 * so is everything while @ctl is half full.  Once per message: a queue
 * pair that comes after the grant's is asked.  Process or softirq
 * context, send_lock not held.
 */
void rdsd_ib_mr_grant_ahead(struct rdsd_ib_conn *tp, struct rdsd_msg *msg)
{
	struct rdsd_conn *conn = tp->conn;
	const struct rdsd_mr_peer peer = {
		.saddr = conn->faddr, .sport = msg->dport,
		.daddr = conn->laddr, .dport = msg->sport,
	};
	struct rdsd_wire_info ans = {
		.type = RDSD_WIRE_MR_GRANT,
		.rdma_cookie = msg->rdma_dest,
		.dport = msg->sport,
	};
	struct rdsd_mr *mr;

	if (!msg->rdma_dest || !msg->dport ||
	    test_and_set_bit(RDSD_MSG_GRANTED, &msg->flags))
		return;
	mr = rdsd_mr_find(conn->rn, msg->rdma_dest);
	if (!mr)
		return;
	if (rdsd_ib_mr_grant(tp, mr, &peer, &ans)) {
		spin_lock_bh(&tp->send_lock);
		if (tp->tx_ready &&
		    tp->ctl_head - tp->ctl_tail < RDSD_IB_CTL_RING / 2) {
			if (rdsd_ib_mr_granted(tp, mr)) {
				trace_rdsd_mr_answer(conn, ans.rdma_cookie,
						     ntohs(ans.dport), true);
				rdsd_ib_ctl_push(tp, &ans);
				rdsd_stat_inc(conn->rn, rdma_grant_ahead);
			}
		}
		spin_unlock_bh(&tp->send_lock);
	}
	rdsd_mr_put(mr);
}

/*
 * The peer answered our MR_REQ, sent a key ahead of a cookie, or revoked
 * grants: remember, or forget.
 * Returns 0, true in *@kick when an operation waits for the answer, or
 * -EPROTO for an answer nobody asked for.  send_lock held.
 */
static int rdsd_ib_mr_heard(struct rdsd_ib_conn *tp,
			    const struct rdsd_wire_info *info, bool *kick)
{
	struct rdsd_ib_grant *g;

	if (info->type == RDSD_WIRE_MR_REVOKE) {
		trace_rdsd_mr_revoked(tp->conn, info->rdma_cookie, 0, false);
		if (!info->rdma_cookie) {
			memset(tp->grants, 0, sizeof(tp->grants));
			return 0;
		}
		g = rdsd_ib_grant_slot(tp, info->rdma_cookie);
		if (g->cookie == info->rdma_cookie)
			g->cookie = 0;
		return 0;
	}
	if (info->type == RDSD_WIRE_MR_GRANT) {
		/*
		 * The peer's word on its own region: believed as an answer
		 * is, and it can only evict another entry of @grants.
		 */
		trace_rdsd_mr_answered(tp->conn, info->rdma_cookie,
				       ntohs(info->dport), info->rdma_key);
		goto remember;
	}
	if (!tp->req_out || info->rdma_cookie != tp->req_cookie ||
	    info->dport != tp->req_dport)
		return -EPROTO;
	tp->req_out = false;
	*kick = true;
	trace_rdsd_mr_answered(tp->conn, info->rdma_cookie, ntohs(info->dport),
			       info->rdma_key);
	if (!info->rdma_key) {
		tp->denied = info->rdma_cookie;
		return 0;
	}
remember:
	g = rdsd_ib_grant_slot(tp, info->rdma_cookie);
	*g = (struct rdsd_ib_grant) {
		.cookie = info->rdma_cookie,
		.rkey = info->rdma_key,
		.len = info->len,
		.dport = info->dport,
		.sport = info->sport,
		.flags = info->flags & (RDSD_WIRE_F_MR_RO | RDSD_WIRE_F_MR_ONCE),
	};
	return 0;
}

/*
 * An MR_REQ, MR_ANS, MR_GRANT or MR_REVOKE came; true in *@kick when an
 * operation waited for it.  Returns 0, or -EPROTO when the peer broke the
 * rules.  Softirq.
 */
int rdsd_ib_mr_recv(struct rdsd_ib_conn *tp, const struct rdsd_wire_info *info,
		    bool *kick)
{
	int ret;

	if (info->type == RDSD_WIRE_MR_REQ)
		return rdsd_ib_mr_answer(tp, info);
	spin_lock_bh(&tp->send_lock);
	ret = rdsd_ib_mr_heard(tp, info, kick);
	spin_unlock_bh(&tp->send_lock);
	return ret;
}
