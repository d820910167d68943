// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca loopback transport.
 *
 * Serves sockets bound to 127/8 and every connection whose two ends are the
 * same address.  There is no wire: transmitting a message delivers it to
 * the destination socket at once and acknowledges it in the same breath,
 * so the sender's buffer space returns before sendmsg() does.  The message
 * itself, not a copy, goes onto the receiver's queue.
 *
 * RDMA and atomic operations run in software (rdsd_op_exec_soft()) on the
 * regions' pinned pages, with the same cookies, checks and statuses as
 * over a device.
 *
 * The loopback transport implements the whole transport table and is
 * chosen by the same rules as any other; the core has no special case for
 * it.  A loopback connection is up as soon as it exists.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/rds_doca.h>

#include "rdsd.h"
#include "conn.h"
#include "message.h"
#include "mr.h"
#include "recv.h"
#include "send.h"
#include "transport.h"

static int rdsd_loop_laddr_check(struct net *net, const struct in6_addr *addr,
				 int scope)
{
	return rdsd_addr_loopback(addr) ? 0 : -EADDRNOTAVAIL;
}

static int rdsd_loop_conn_alloc(struct rdsd_conn *conn, gfp_t gfp)
{
	return 0;
}

static void rdsd_loop_conn_free(struct rdsd_conn *conn)
{
}

static int rdsd_loop_conn_connect(struct rdsd_conn *conn)
{
	rdsd_conn_up(conn);
	return 0;
}

static void rdsd_loop_conn_shutdown(struct rdsd_conn *conn)
{
}

/*
 * An RDMA or atomic operation runs first, in software on the pinned pages
 * of both ends; the message follows unless RDS_RDMA_SILENT says not, and
 * with nothing else in it is not even handed over.  The ack is of the
 * sequence number the core just handed out, which rdsd_send_acked()
 * always accepts: no peer speaks here, so there is nothing to distrust
 * and no path to reset.
 */
static int rdsd_loop_xmit(struct rdsd_conn *conn, struct rdsd_msg *msg)
{
	if (msg->op)
		rdsd_op_exec_soft(conn->rn, msg);
	if (rdsd_msg_op_only(msg))
		return RDSD_XMIT_DONE;
	if (msg->op && (msg->op->flags & RDS_RDMA_SILENT))
		set_bit(RDSD_MSG_SILENT, &msg->flags);
	rdsd_recv_incoming(conn, msg);
	WARN_ON_ONCE(rdsd_send_acked(conn, msg->seq));
	return 0;
}

const struct rdsd_transport_ops rdsd_loop_transport = {
	.name		= "loopback",
	.type		= RDSD_TRANS_LOOP,
	.laddr_check	= rdsd_loop_laddr_check,
	.conn_alloc	= rdsd_loop_conn_alloc,
	.conn_free	= rdsd_loop_conn_free,
	.conn_connect	= rdsd_loop_conn_connect,
	.conn_shutdown	= rdsd_loop_conn_shutdown,
	.xmit		= rdsd_loop_xmit,
	.max_msg	= RDSD_MSG_SIZE_LIMIT,
	.features	= RDSD_TRANS_F_RDMA | RDSD_TRANS_F_MASKED_ATOMICS,
};
EXPORT_SYMBOL_IF_KUNIT(rdsd_loop_transport);
