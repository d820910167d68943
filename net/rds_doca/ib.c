// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca IB transport: devices, addresses, the operations table, and
 * module set-up.
 *
 * Devices.  An ib_client follows the RDMA devices that can run a
 * connection manager: the IB one (InfiniBand and RoCE ports) or the
 * iWARP one (iw_cm).  Each gets a struct
 * rdsd_ib_dev with a protection domain that every connection on it shares
 * by reference.  Removing a device resets every connection using it and
 * waits until they let go; they reconnect when a device serves their
 * addresses again.
 *
 * Addresses.  A socket may bind an address that rdma_cm binds to an RDMA
 * device: that of an IPoIB interface, or of the network device of a RoCE
 * or iWARP device.  Connections between two such addresses, on one host
 * or two, use this transport.
 *
 * Connections are managed in ib_cm.c, messages and operations move in
 * ib_send.c and ib_recv.c, regions are registered in ib_mr.c.  Lock order: a
 * connection's cm_mutex, then rdsd_ib_devs_mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/inetdevice.h>
#include <linux/random.h>
#include <linux/rds_doca.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <rdma/ib_cache.h>
#include <kunit/visibility.h>

#include "ib.h"
#include "mr.h"
#include "netlink.h"
#include "transport.h"

static unsigned short rdsd_ib_port = RDSD_IB_PORT_DEFAULT;
module_param_named(ib_port, rdsd_ib_port, ushort, 0444);
MODULE_PARM_DESC(ib_port,
		 "rdma_cm port the IB/RoCE transport listens on (default 18635)");

unsigned int rdsd_ib_nr_paths = 1;
module_param_named(ib_paths, rdsd_ib_nr_paths, uint, 0444);
MODULE_PARM_DESC(ib_paths,
		 "queue pairs (paths) to each peer address, 1..8; a sending socket's port picks one, and both ends use the smaller count (default 1)");

/* A 16 KiB fragment spans at most five page blocks of a message. */
#define RDSD_IB_MIN_SEND_SGE	6

static DEFINE_MUTEX(rdsd_ib_devs_mutex);
static LIST_HEAD(rdsd_ib_devs);
static DECLARE_WAIT_QUEUE_HEAD(rdsd_ib_devs_wq);
/* rdma_cm listeners: IPv4, and IPv6 (IPv6 only) if it could be made */
static struct rdma_cm_id *rdsd_ib_listen_id[2];

static int rdsd_ib_add_one(struct ib_device *ibdev);
static void rdsd_ib_remove_one(struct ib_device *ibdev, void *data);

static struct ib_client rdsd_ib_client = {
	.name	= "rds_doca",
	.add	= rdsd_ib_add_one,
	.remove	= rdsd_ib_remove_one,
};

/* Devices ---------------------------------------------------------------- */

/*
 * The device's resources are gone by now (rdsd_ib_remove_one()); regions
 * of sockets may have kept the structure a while longer.
 */
static void rdsd_ib_dev_release(struct kref *kref)
{
	struct rdsd_ib_dev *dev = container_of(kref, struct rdsd_ib_dev, kref);

	WARN_ON_ONCE(dev->pd || !list_empty(&dev->mrs));
	mutex_destroy(&dev->reg_mutex);
	mutex_destroy(&dev->loop_mutex);
	kfree(dev);
}

/**
 * rdsd_ib_dev_put - drop a reference to a device
 * @dev: the device.
 */
void rdsd_ib_dev_put(struct rdsd_ib_dev *dev)
{
	kref_put(&dev->kref, rdsd_ib_dev_release);
}

/*
 * Describe @dev for the control plane; process context.  The port shown
 * is the device's first one.
 */
static void rdsd_ib_dev_fill(struct rdsd_ib_dev *dev, struct rdsd_dev_info *di)
{
	struct ib_device *ibdev = dev->ibdev;
	const struct ib_device_attr *a = &ibdev->attrs;
	struct rdsd_ib_conn *tp;
	struct ib_port_attr pa;
	struct rdsd_ib_mr *mr;
	union ib_gid gid;

	memset(di, 0, sizeof(*di));
	di->index = ibdev->index;
	strscpy(di->name, dev_name(&ibdev->dev), sizeof(di->name));
	di->port = rdma_start_port(ibdev);
	if (!ib_query_port(ibdev, di->port, &pa))
		di->state = pa.state;
	if (!rdma_query_gid(ibdev, di->port, 0, &gid))
		memcpy(di->gid, gid.raw, sizeof(di->gid));
	di->max_msg = RDSD_MSG_SIZE_LIMIT;
	di->atomic_cap = a->atomic_cap;
	di->masked_atomic_cap = a->masked_atomic_cap;
	di->frwr_depth = dev->max_frmr_pages;
	di->max_sge = dev->max_send_sge;
	di->max_rd_sge = dev->max_rd_sge;
	/* masked atomics are not offered over this transport */
	di->caps = RDS_DOCA_DEV_CAP_SEND | RDS_DOCA_DEV_CAP_RDMA_WRITE |
		   RDS_DOCA_DEV_CAP_RDMA_READ | RDS_DOCA_DEV_CAP_MR_LIST;
	if (dev->atomics)
		di->caps |= RDS_DOCA_DEV_CAP_ATOMIC;
	if (dev->iwarp)
		di->protocol = RDS_DOCA_DEV_PROTO_IWARP;
	else if (rdma_protocol_roce(ibdev, di->port))
		di->protocol = RDS_DOCA_DEV_PROTO_ROCE;
	else
		di->protocol = RDS_DOCA_DEV_PROTO_IB;

	mutex_lock(&rdsd_ib_devs_mutex);
	list_for_each_entry(tp, &dev->paths, dev_item)
		di->conns++;
	mutex_unlock(&rdsd_ib_devs_mutex);
	mutex_lock(&dev->reg_mutex);
	list_for_each_entry(mr, &dev->mrs, item)
		di->mrs++;
	mutex_unlock(&dev->reg_mutex);
}

/**
 * rdsd_ib_dev_info - ->dev_describe of the IB transport
 * @index: in, the lowest device index wanted; out, the one described.
 * @di: filled in.
 *
 * Returns 0, or -ENOENT when no device has an index at or above *@index.
 */
int rdsd_ib_dev_info(u32 *index, struct rdsd_dev_info *di)
{
	struct rdsd_ib_dev *dev, *best = NULL;

	mutex_lock(&rdsd_ib_devs_mutex);
	list_for_each_entry(dev, &rdsd_ib_devs, node) {
		if (dev->dying || dev->ibdev->index < *index)
			continue;
		if (!best || dev->ibdev->index < best->ibdev->index)
			best = dev;
	}
	if (best)
		kref_get(&best->kref);
	mutex_unlock(&rdsd_ib_devs_mutex);
	if (!best)
		return -ENOENT;

	rdsd_ib_dev_fill(best, di);
	*index = di->index;
	rdsd_ib_dev_put(best);
	return 0;
}

static int rdsd_ib_add_one(struct ib_device *ibdev)
{
	const struct ib_device_attr *a = &ibdev->attrs;
	struct rdsd_dev_info di;
	struct rdsd_ib_dev *dev;
	bool cm = false;
	u32 port;

	rdma_for_each_port(ibdev, port)
		if (rdma_cap_ib_cm(ibdev, port) || rdma_cap_iw_cm(ibdev, port))
			cm = true;
	if (!cm || a->max_send_sge < RDSD_IB_MIN_SEND_SGE ||
	    a->max_recv_sge < 2 || a->max_qp_wr < RDSD_IB_QUEUE_WRS ||
	    a->max_cqe < RDSD_IB_QUEUE_WRS)
		return -EOPNOTSUPP;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(dev->pd)) {
		int ret = PTR_ERR(dev->pd);

		kfree(dev);
		return ret;
	}
	kref_init(&dev->kref);
	INIT_LIST_HEAD(&dev->paths);
	INIT_LIST_HEAD(&dev->mrs);
	mutex_init(&dev->reg_mutex);
	mutex_init(&dev->loop_mutex);
	dev->ibdev = ibdev;
	dev->max_send_sge = min_t(u32, a->max_send_sge, RDSD_IB_SEND_SGE);
	dev->max_rd_sge = min_t(u32, a->max_sge_rd ? a->max_sge_rd :
				a->max_send_sge, dev->max_send_sge);
	dev->max_frmr_pages = a->max_fast_reg_page_list_len;
	get_random_bytes(&dev->reg_key, sizeof(dev->reg_key));
	dev->rd_atom = min3(a->max_qp_rd_atom, a->max_qp_init_rd_atom, 16);
	dev->iwarp = rdma_protocol_iwarp(ibdev, rdma_start_port(ibdev));
	dev->atomics = a->atomic_cap != IB_ATOMIC_NONE;

	mutex_lock(&rdsd_ib_devs_mutex);
	list_add_tail(&dev->node, &rdsd_ib_devs);
	mutex_unlock(&rdsd_ib_devs_mutex);
	ib_set_client_data(ibdev, &rdsd_ib_client, dev);

	rdsd_ib_dev_fill(dev, &di);
	rdsd_nl_dev_event(&di, true);
	return 0;
}

/*
 * The device goes away: every connection on it is reset, and once the
 * last one let go, every region registered with it is taken off and the
 * protection domain freed.  The connections come back on whatever device
 * then serves their addresses.
 */
static void rdsd_ib_remove_one(struct ib_device *ibdev, void *data)
{
	struct rdsd_ib_dev *dev = data;
	struct rdsd_ib_conn *tp;
	struct rdsd_dev_info di;

	rdsd_ib_dev_fill(dev, &di);
	mutex_lock(&rdsd_ib_devs_mutex);
	dev->dying = true;
	list_del(&dev->node);
	list_for_each_entry(tp, &dev->paths, dev_item)
		rdsd_ib_request_reset(tp, RDSD_RESET_DEVICE);
	mutex_unlock(&rdsd_ib_devs_mutex);

	/*
	 * No sleeping lock in a wait condition: detach empties the list
	 * under the mutex, then wakes us; the unlocked look is enough.  The
	 * queue pairs iWARP attempts parked go with their ids: the reapers
	 * take those of a dying device at once (ib_cm.c).
	 */
	wait_event(rdsd_ib_devs_wq, list_empty_careful(&dev->paths) &&
		   !atomic_read(&dev->parked));
	rdsd_ib_mr_dev_remove(dev);
	ib_dealloc_pd(dev->pd);
	dev->pd = NULL;
	rdsd_ib_dev_put(dev);
	rdsd_nl_dev_event(&di, false);
}

/* An address lookup's rdma_cm id never connects: it has no events. */
static int rdsd_ib_addr_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;
}

/*
 * Bind a new rdma_cm id to local address @addr, as a connection would:
 * rdma_cm finds the RDMA device and port that serve it, whatever their
 * kind (the HCA of an IPoIB interface, the RoCE or iWARP device of an
 * Ethernet one).  Returns the id, which holds the device until the caller
 * destroys it, or NULL if no RDMA device serves the address (or memory
 * ran out).  Process context.
 */
static struct rdma_cm_id *rdsd_ib_addr_bind(const struct in6_addr *addr,
					    int scope)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;

	rdsd_sockaddr_put(&ss, addr, 0, scope);
	id = rdma_create_id(&init_net, rdsd_ib_addr_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return NULL;
	if (rdma_bind_addr(id, (struct sockaddr *)&ss) || !id->device) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

/**
 * rdsd_ib_dev_find - the device that serves a local address
 * @addr: an address of this host (initial namespace).
 * @scope: its link, if link-local.
 * @port: set to the device's port of that address.
 *
 * Returns the device with a reference, or NULL.  Process context.
 */
struct rdsd_ib_dev *rdsd_ib_dev_find(const struct in6_addr *addr, int scope,
				     u32 *port)
{
	struct rdsd_ib_dev *dev, *found = NULL;
	struct rdma_cm_id *id;

	id = rdsd_ib_addr_bind(addr, scope);
	if (!id)
		return NULL;
	*port = id->port_num;
	mutex_lock(&rdsd_ib_devs_mutex);
	list_for_each_entry(dev, &rdsd_ib_devs, node) {
		if (dev->ibdev == id->device && !dev->dying) {
			kref_get(&dev->kref);
			found = dev;
			break;
		}
	}
	mutex_unlock(&rdsd_ib_devs_mutex);
	rdma_destroy_id(id);
	return found;
}

/**
 * rdsd_ib_dev_revoke - tell peers a region's device key is no longer good
 * @dev: the device the region is registered with.
 * @mr: the region, dead, granted to a peer.
 *
 * Every connection of the device from the region's address tells its
 * peer (rdsd_ib_mr_revoke()).  Process context.
 */
void rdsd_ib_dev_revoke(struct rdsd_ib_dev *dev, struct rdsd_mr *mr)
{
	struct rdsd_ib_conn *tp;

	mutex_lock(&rdsd_ib_devs_mutex);
	list_for_each_entry(tp, &dev->paths, dev_item)
		if (ipv6_addr_equal(&tp->conn->laddr, &mr->owner_addr))
			rdsd_ib_mr_revoke(tp, mr);
	mutex_unlock(&rdsd_ib_devs_mutex);
}

/* Take a reference on the device behind @ibdev for @tp; cm_mutex held. */
int rdsd_ib_dev_attach(struct rdsd_ib_conn *tp, struct ib_device *ibdev)
{
	struct rdsd_ib_dev *dev;
	int ret = -ENODEV;

	mutex_lock(&rdsd_ib_devs_mutex);
	list_for_each_entry(dev, &rdsd_ib_devs, node) {
		if (dev->ibdev != ibdev || dev->dying)
			continue;
		kref_get(&dev->kref);
		list_add_tail(&tp->dev_item, &dev->paths);
		tp->dev = dev;
		ret = 0;
		break;
	}
	mutex_unlock(&rdsd_ib_devs_mutex);
	return ret;
}

void rdsd_ib_dev_detach(struct rdsd_ib_conn *tp)
{
	struct rdsd_ib_dev *dev = tp->dev;

	mutex_lock(&rdsd_ib_devs_mutex);
	list_del_init(&tp->dev_item);
	mutex_unlock(&rdsd_ib_devs_mutex);
	wake_up_all(&rdsd_ib_devs_wq);
	tp->dev = NULL;
	rdsd_ib_dev_put(dev);
}

/**
 * rdsd_ib_dev_park - a queue pair of @dev is parked (ib_cm.c)
 * @dev: the device, held by the caller; the parked queue pair gets a
 *	reference of its own, which rdsd_ib_dev_unpark() drops.
 */
void rdsd_ib_dev_park(struct rdsd_ib_dev *dev)
{
	kref_get(&dev->kref);
	atomic_inc(&dev->parked);
}

/**
 * rdsd_ib_dev_unpark - a parked queue pair of @dev is gone
 * @dev: the device; the parked queue pair's reference to it is dropped.
 */
void rdsd_ib_dev_unpark(struct rdsd_ib_dev *dev)
{
	atomic_dec(&dev->parked);
	wake_up_all(&rdsd_ib_devs_wq);
	rdsd_ib_dev_put(dev);
}

/*
 * ->laddr_check: rdma_cm must bind the address to an RDMA device this
 * transport uses, in the initial namespace (as Linux RDS over IB, which
 * asks the same of rdma_bind_addr()).  Process context.
 */
static int rdsd_ib_laddr_check(struct net *net, const struct in6_addr *addr,
			       int scope)
{
	struct rdsd_ib_dev *dev;
	u32 port;

	if (!net_eq(net, &init_net) || rdsd_addr_loopback(addr))
		return -EADDRNOTAVAIL;
	dev = rdsd_ib_dev_find(addr, scope, &port);
	if (!dev)
		return -EADDRNOTAVAIL;
	rdsd_ib_dev_put(dev);
	return 0;
}

/**
 * rdsd_ib_op_check - ->op_check of the IB transport
 * @conn: the connection an operation is to go on.
 * @kind: the operation's enum rdsd_op_kind.
 *
 * An iWARP device has no atomics: sendmsg() refuses them with EOPNOTSUPP
 * rather than fail them later.  The connection learns its device from
 * its attempts; before the first, from its address.  Returns 0 or
 * -EOPNOTSUPP.  Process context.
 */
int rdsd_ib_op_check(struct rdsd_conn *conn, u8 kind)
{
	struct rdsd_ib_conn *tp = conn->tp;
	struct rdsd_ib_dev *dev;
	s8 atomics;
	u32 port;

	if (!rdsd_op_is_atomic(kind))
		return 0;
	atomics = READ_ONCE(tp->atomics);
	if (!atomics) {
		dev = rdsd_ib_dev_find(&conn->laddr,
				       rdsd_addr_scope(&conn->laddr,
						       conn->scope), &port);
		if (!dev)
			return 0;	/* the connection fails anyway */
		atomics = dev->atomics ? 1 : -1;
		rdsd_ib_dev_put(dev);
		cmpxchg(&tp->atomics, 0, atomics);
	}
	return atomics < 0 ? -EOPNOTSUPP : 0;
}

/*
 * Can a packet from @conn's address reach its peer right now?  The same
 * question Soft-RoCE asks for every packet it sends: the local address's
 * device is up and has a route to the peer.
 *
 * Soft-RoCE (rdma_rxe) moves any queue pair whose packet it cannot route
 * to the error state, the GSI queue pair that carries connection manager
 * messages included, and nothing brings that one back: one such message
 * sent while the link is down leaves the device unable to connect until
 * it is re-created.  So while this says no, no attempt starts, an
 * established attempt is not disconnected and its id is not destroyed
 * (destroying it sends a DREQ): the reaper keeps it until the path is back.
 */
#if IS_ENABLED(CONFIG_IPV6)
static bool rdsd_ib_path6_usable(const struct rdsd_conn *conn)
{
	struct net_device *ndev;
	struct flowi6 fl = {};
	struct dst_entry *dst;
	bool ok = false;

	rcu_read_lock();
	ndev = ipv6_dev_find(&init_net, &conn->laddr, NULL);
	if (ndev && netif_running(ndev) && netif_carrier_ok(ndev)) {
		fl.flowi6_oif = ndev->ifindex;
		fl.saddr = conn->laddr;
		fl.daddr = conn->faddr;
		fl.flowi6_proto = IPPROTO_UDP;
		dst = ip6_route_output(&init_net, NULL, &fl);
		ok = !dst->error;
		dst_release(dst);
	}
	rcu_read_unlock();
	return ok;
}
#else
static bool rdsd_ib_path6_usable(const struct rdsd_conn *conn)
{
	return false;
}
#endif

bool rdsd_ib_path_usable(const struct rdsd_conn *conn)
{
	struct net_device *ndev;
	struct flowi4 fl = {};
	struct rtable *rt;
	bool ok = false;

	if (!rdsd_addr_is4(&conn->laddr))
		return rdsd_ib_path6_usable(conn);
	rcu_read_lock();
	ndev = __ip_dev_find(&init_net, rdsd_addr4(&conn->laddr), false);
	if (ndev && netif_running(ndev) && netif_carrier_ok(ndev)) {
		fl.flowi4_oif = ndev->ifindex;
		fl.saddr = rdsd_addr4(&conn->laddr);
		fl.daddr = rdsd_addr4(&conn->faddr);
		fl.flowi4_proto = IPPROTO_UDP;
		rt = ip_route_output_key(&init_net, &fl);
		if (!IS_ERR(rt)) {
			ip_rt_put(rt);
			ok = true;
		}
	}
	rcu_read_unlock();
	return ok;
}

/**
 * rdsd_ib_listen_port - the port rdma_cm listens on (module parameter)
 */
u16 rdsd_ib_listen_port(void)
{
	return rdsd_ib_port;
}

const struct rdsd_transport_ops rdsd_ib_transport = {
	.name		= "ib",
	.type		= RDSD_TRANS_IB,
	.laddr_check	= rdsd_ib_laddr_check,
	.conn_alloc	= rdsd_ib_conn_alloc,
	.conn_free	= rdsd_ib_conn_free,
	.conn_connect	= rdsd_ib_conn_connect,
	.conn_shutdown	= rdsd_ib_conn_shutdown,
	.xmit		= rdsd_ib_xmit,
	.max_msg	= RDSD_MSG_SIZE_LIMIT,
	.cong_changed	= rdsd_ib_cong_changed,
	.features	= RDSD_TRANS_F_RDMA,
	.op_check	= rdsd_ib_op_check,
	.mr_register	= rdsd_ib_mr_register,
	.mr_unregister	= rdsd_ib_mr_unregister,
	.mr_release	= rdsd_ib_mr_release,
	.conn_info	= rdsd_ib_conn_info,
	.conn_drop	= rdsd_ib_conn_drop,
	.dev_describe	= rdsd_ib_dev_info,
	.conn_idle	= rdsd_ib_conn_idle,
	.init		= rdsd_ib_init,
	.stop		= rdsd_ib_stop_listening,
	.exit		= rdsd_ib_exit,
	.listen_port	= rdsd_ib_listen_port,
};
EXPORT_SYMBOL_IF_KUNIT(rdsd_ib_transport);

/* Module ------------------------------------------------------------------- */

/* Listen on every address of family @i (0: IPv4, 1: IPv6) of the port. */
static int rdsd_ib_listen(unsigned int i)
{
	struct in6_addr any = {};
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int ret;

	if (!i)
		ipv6_addr_set_v4mapped(htonl(INADDR_ANY), &any);
	rdsd_sockaddr_put(&ss, &any, htons(rdsd_ib_port), 0);
	id = rdma_create_id(&init_net, rdsd_ib_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	/* an IPv4 request reaches the IPv4 listener */
	ret = i ? rdma_set_afonly(id, 1) : 0;
	if (!ret)
		ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (!ret)
		ret = rdma_listen(id, 128);
	if (ret) {
		rdma_destroy_id(id);
		return ret;
	}
	rdsd_ib_listen_id[i] = id;
	return 0;
}

/**
 * rdsd_ib_init - follow RDMA devices and listen for connections
 *
 * Called after the namespace state exists: a request may arrive at once.
 */
int rdsd_ib_init(void)
{
	int ret;

	if (!rdsd_ib_nr_paths || rdsd_ib_nr_paths > RDSD_MAX_PATHS) {
		pr_err("ib_paths=%u: the count of paths is 1..%d\n",
		       rdsd_ib_nr_paths, RDSD_MAX_PATHS);
		return -EINVAL;
	}
	ret = ib_register_client(&rdsd_ib_client);
	if (ret)
		return ret;

	ret = rdsd_ib_listen(0);
	if (ret) {
		pr_err("cannot listen on rdma_cm port %u: %d (ib_port= picks another)\n",
		       rdsd_ib_port, ret);
		goto err_client;
	}
	/* without IPv6, IPv4 peers still connect */
	if (IS_ENABLED(CONFIG_IPV6)) {
		ret = rdsd_ib_listen(1);
		if (ret)
			pr_warn("cannot listen on rdma_cm port %u for IPv6: %d; IPv6 peers cannot connect\n",
				rdsd_ib_port, ret);
	}
	return 0;

err_client:
	ib_unregister_client(&rdsd_ib_client);
	return ret;
}

/**
 * rdsd_ib_stop_listening - refuse new connections; first step of unload
 */
void rdsd_ib_stop_listening(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rdsd_ib_listen_id); i++) {
		if (rdsd_ib_listen_id[i])
			rdma_destroy_id(rdsd_ib_listen_id[i]);
		rdsd_ib_listen_id[i] = NULL;
	}
}

/**
 * rdsd_ib_exit - stop following devices; every connection is gone
 */
void rdsd_ib_exit(void)
{
	ib_unregister_client(&rdsd_ib_client);
}
