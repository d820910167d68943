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
 * serialized by dev->reg_mutex and waited for.
 *
 * Keys: the device's remote key is not in the cookie, which carries the
 * random key the core gave the region (mr.h), and never leaves the
 * kernel but to a peer host that may use the region.  A peer kernel asks
 * for it once per cookie and connection (MR_REQ, ib_data.c), naming the
 * socket that asks and the one the operation is addressed to; the answer
 * (rdsd_ib_mr_grant()) gives the key only for a live region of this
 * device owned by the addressed socket, and only to the peer a
 * RDS_GET_MR_FOR_DEST region names.  The peer kernel then checks every
 * operation against the range, rights and ports it was told before it
 * posts one, so a wrong cookie never reaches a device.  Freeing the
 * region tells every peer host that was given the key to forget it
 * (MR_REVOKE), before the key is invalidated.  The low byte of the
 * device key, the part ib_update_fast_reg_key() sets, turns with every
 * registration on the device, so a key a peer still holds does not reach
 * a later region in the same slot of the device's table.
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
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "ib.h"
#include "mr.h"

/* Work requests on the registration queue pair: one at a time. */
#define RDSD_IB_REG_WRS		2

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

/* Destroy the registration queue pair; dev->reg_mutex held. */
static void rdsd_ib_reg_qp_destroy(struct rdsd_ib_dev *dev)
{
	lockdep_assert_held(&dev->reg_mutex);
	if (dev->reg_qp)
		ib_destroy_qp(dev->reg_qp);
	if (dev->reg_cq)
		ib_free_cq(dev->reg_cq);
	dev->reg_qp = NULL;
	dev->reg_cq = NULL;
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
	int ret;

	lockdep_assert_held(&dev->reg_mutex);
	if (!dev->reg_qp)
		return -EIO;
	init_completion(&w.done);
	w.cqe.done = rdsd_ib_reg_done;
	wr->wr_cqe = &w.cqe;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->next = NULL;
	ret = ib_post_send(dev->reg_qp, wr, NULL);
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
 * Take @imr off its device: invalidate, deregister, unmap.  An
 * invalidation that fails still ends with the memory region destroyed,
 * which a device refuses to reach.  dev->reg_mutex held.
 */
static void rdsd_ib_mr_drop(struct rdsd_ib_mr *imr)
{
	struct rdsd_ib_dev *dev = imr->dev;
	struct ib_send_wr inv = {};

	lockdep_assert_held(&dev->reg_mutex);
	WRITE_ONCE(imr->rkey, 0);	/* given to no peer from now on */
	if (imr->mr) {
		if (!list_empty(&imr->item)) {
			inv.opcode = IB_WR_LOCAL_INV;
			inv.ex.invalidate_rkey = imr->mr->rkey;
			rdsd_ib_reg_post(dev, &inv);
		}
		ib_dereg_mr(imr->mr);
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
	ib_update_fast_reg_key(imr->mr, dev->reg_key++);
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
	imr->mr = ib_alloc_mr(dev->pd, IB_MR_TYPE_MEM_REG, mr->npages);
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
	dev = rdsd_ib_dev_find(READ_ONCE(rs->bound_addr), &port);
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
	/* dead already: no new grant; peers forget the old ones first */
	if (revoke && READ_ONCE(mr->granted))
		rdsd_ib_dev_revoke(imr->dev, mr);

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
 * The caller marks the region granted and checks again that it is alive,
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
 * registration queue pair goes too.
 */
void rdsd_ib_mr_dev_remove(struct rdsd_ib_dev *dev)
{
	struct rdsd_ib_mr *imr, *tmp;

	mutex_lock(&dev->reg_mutex);
	list_for_each_entry_safe(imr, tmp, &dev->mrs, item)
		rdsd_ib_mr_drop(imr);
	rdsd_ib_reg_qp_destroy(dev);
	mutex_unlock(&dev->reg_mutex);
}
