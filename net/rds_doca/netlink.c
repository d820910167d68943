// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca generic netlink family: the control plane rdsctl speaks.
 *
 * Every command works on the caller's network namespace.  The GET
 * commands dump connections, sockets, registered regions and devices, or
 * answer with the module's settings and the namespace's counters; any
 * user may run them.  STATS_RESET and CONN_DROP change state and need
 * CAP_NET_ADMIN in the namespace's user namespace (GENL_UNS_ADMIN_PERM).
 * SET changes module-wide settings (the copy engine's) and needs
 * CAP_NET_ADMIN in the initial user namespace (GENL_ADMIN_PERM).
 *
 * Dumps resume by object id, never by list position: each object type
 * lives in an xarray indexed by its id (sockets and connections by ids
 * handed out cyclically, regions by key, devices by device index) and a
 * dump remembers in cb->ctx the id after the last one it sent.  An object
 * that exists for the whole dump is sent exactly once however many
 * objects come and go meanwhile.
 *
 * The "events" multicast group announces connections that come up or go
 * down (to the connection's namespace) and devices that are added or
 * removed (to every namespace).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rds_doca.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "rdsd.h"
#include "conn.h"
#include "dma.h"
#include "mr.h"
#include "netlink.h"
#include "stats.h"
#include "transport.h"
#include "wire.h"

static struct genl_family rdsd_nl_family;
/* the family is registered: events may be sent (read under RCU) */
static bool rdsd_nl_registered;

/**
 * struct rdsd_nl_dump_ctx - where a dump resumes, kept in cb->ctx
 * @next: the lowest object id not sent yet.
 * @trans: device dumps: the transport being walked (see rdsd_trans_next()),
 *	NULL before the first and after the last.
 * @started: device dumps: @trans was set.
 */
struct rdsd_nl_dump_ctx {
	unsigned long				next;
	const struct rdsd_transport_ops		*trans;
	bool					started;
};

static struct rdsd_nl_dump_ctx *rdsd_nl_ctx(struct netlink_callback *cb)
{
	static_assert(sizeof(struct rdsd_nl_dump_ctx) <=
		      sizeof_field(struct netlink_callback, ctx));
	return (struct rdsd_nl_dump_ctx *)cb->ctx;
}

/*
 * What a dump callback returns once it stopped with @err: the bytes it
 * put in @skb to be called again, 0 when done, or the error when even
 * the first object did not fit.
 */
static int rdsd_nl_dump_done(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}

/* Start a message of @cmd in @skb; NULL when even its header does not fit. */
static void *rdsd_nl_put_hdr(struct sk_buff *skb, u32 portid, u32 seq,
			     int flags, u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &rdsd_nl_family, flags, cmd);
}

/* Start the next message of dump @cb. */
static void *rdsd_nl_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb,
			      u8 cmd)
{
	return rdsd_nl_put_hdr(skb, NETLINK_CB(cb->skb).portid,
			       cb->nlh->nlmsg_seq, NLM_F_MULTI, cmd);
}

/*
 * Close the message @hdr started, given @err, what filling it returned:
 * end it, or take it back out of @skb.  Returns @err, or -EMSGSIZE when
 * there was no header.
 */
static int rdsd_nl_msg_finish(struct sk_buff *skb, void *hdr, int err)
{
	if (!hdr)
		return -EMSGSIZE;
	if (err)
		genlmsg_cancel(skb, hdr);
	else
		genlmsg_end(skb, hdr);
	return err;
}

/* Connections --------------------------------------------------------- */

static u8 rdsd_nl_conn_state(int state)
{
	switch (state) {
	case RDSD_CONN_UP:
		return RDS_DOCA_CONN_STATE_UP;
	case RDSD_CONN_CONNECTING:
		return RDS_DOCA_CONN_STATE_CONNECTING;
	default:
		return RDS_DOCA_CONN_STATE_DOWN;
	}
}

/*
 * An address attribute: 4 bytes for an IPv4 address, 16 for an IPv6 one;
 * its length says which.
 */
static int rdsd_nla_put_addr(struct sk_buff *skb, int type,
			     const struct in6_addr *addr)
{
	if (rdsd_addr_is4(addr))
		return nla_put_in_addr(skb, type, rdsd_addr4(addr));
	return nla_put_in6_addr(skb, type, addr);
}

/* Read one; the policy let only 4 or 16 bytes through. */
static void rdsd_nla_get_addr(const struct nlattr *nla, struct in6_addr *addr)
{
	if (nla_len(nla) == sizeof(__be32))
		ipv6_addr_set_v4mapped(nla_get_in_addr(nla), addr);
	else
		*addr = nla_get_in6_addr(nla);
}

/**
 * rdsd_nl_conn_fill - one connection as RDS_DOCA_A_CONN_* attributes
 * @skb: message being built.
 * @conn: connection, with a reference, or under RCU when !@ci.
 * @ci: what its transport says of it, or NULL to leave that out.
 *
 * Returns 0 or -EMSGSIZE.
 */
int rdsd_nl_conn_fill(struct sk_buff *skb, struct rdsd_conn *conn,
		      const struct rdsd_conn_info *ci)
{
	u32 send_queue = 0, retrans = 0, connects;
	struct rdsd_msg *msg;
	u64 next_tx;
	int state;

	spin_lock_bh(&conn->lock);
	state = conn->state;
	next_tx = conn->next_tx_seq;
	connects = conn->connects;
	list_for_each_entry(msg, &conn->send_queue, conn_item)
		send_queue++;
	list_for_each_entry(msg, &conn->retrans, conn_item)
		retrans++;
	spin_unlock_bh(&conn->lock);

	if (nla_put_u32(skb, RDS_DOCA_A_CONN_ID, conn->id) ||
	    rdsd_nla_put_addr(skb, RDS_DOCA_A_CONN_LADDR, &conn->laddr) ||
	    rdsd_nla_put_addr(skb, RDS_DOCA_A_CONN_PEER, &conn->faddr) ||
	    nla_put_string(skb, RDS_DOCA_A_CONN_TRANSPORT, conn->trans->name) ||
	    nla_put_u8(skb, RDS_DOCA_A_CONN_PATH, conn->path) ||
	    nla_put_u8(skb, RDS_DOCA_A_CONN_TOS, conn->tos) ||
	    nla_put_u8(skb, RDS_DOCA_A_CONN_STATE, rdsd_nl_conn_state(state)) ||
	    nla_put_u64_64bit(skb, RDS_DOCA_A_CONN_NEXT_TX_SEQ, next_tx,
			      RDS_DOCA_A_CONN_PAD) ||
	    nla_put_u64_64bit(skb, RDS_DOCA_A_CONN_NEXT_RX_SEQ,
			      READ_ONCE(conn->next_rx_seq),
			      RDS_DOCA_A_CONN_PAD) ||
	    nla_put_u64_64bit(skb, RDS_DOCA_A_CONN_LAST_ACKED,
			      READ_ONCE(conn->last_acked),
			      RDS_DOCA_A_CONN_PAD) ||
	    nla_put_u32(skb, RDS_DOCA_A_CONN_SEND_QUEUE, send_queue) ||
	    nla_put_u32(skb, RDS_DOCA_A_CONN_RETRANS, retrans) ||
	    nla_put_u32(skb, RDS_DOCA_A_CONN_CONNECTS, connects) ||
	    nla_put_u64_64bit(skb, RDS_DOCA_A_CONN_TX_MSGS,
			      READ_ONCE(conn->tx_msgs), RDS_DOCA_A_CONN_PAD) ||
	    nla_put_u64_64bit(skb, RDS_DOCA_A_CONN_TX_BYTES,
			      READ_ONCE(conn->tx_bytes), RDS_DOCA_A_CONN_PAD) ||
	    nla_put_u64_64bit(skb, RDS_DOCA_A_CONN_RX_MSGS,
			      READ_ONCE(conn->rx_msgs), RDS_DOCA_A_CONN_PAD) ||
	    nla_put_u64_64bit(skb, RDS_DOCA_A_CONN_RX_BYTES,
			      READ_ONCE(conn->rx_bytes), RDS_DOCA_A_CONN_PAD) ||
	    nla_put_s32(skb, RDS_DOCA_A_CONN_LAST_ERROR,
			READ_ONCE(conn->last_error)))
		return -EMSGSIZE;
	if (!ci)
		return 0;
	if ((ci->dev[0] &&
	     nla_put_string(skb, RDS_DOCA_A_CONN_DEV, ci->dev)) ||
	    (ci->port && nla_put_u8(skb, RDS_DOCA_A_CONN_PORT, ci->port)) ||
	    (ci->qpn && nla_put_u32(skb, RDS_DOCA_A_CONN_QPN, ci->qpn)) ||
	    (ci->has_credits &&
	     nla_put_u32(skb, RDS_DOCA_A_CONN_CREDITS, ci->credits)) ||
	    (ci->has_recv_bufs &&
	     nla_put_u32(skb, RDS_DOCA_A_CONN_RECV_BUFS, ci->recv_bufs)))
		return -EMSGSIZE;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_nl_conn_fill);

static int rdsd_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rdsd_net *rn = rdsd_net(sock_net(skb->sk));
	struct rdsd_nl_dump_ctx *ctx = rdsd_nl_ctx(cb);
	struct rdsd_conn *conn;
	int err = 0;

	while ((conn = rdsd_conn_get_next(rn, &ctx->next))) {
		struct rdsd_conn_info ci = {};
		void *hdr;

		if (conn->trans->conn_info)
			conn->trans->conn_info(conn, &ci);
		hdr = rdsd_nl_dump_hdr(skb, cb, RDS_DOCA_CMD_CONN_GET);
		err = rdsd_nl_msg_finish(skb, hdr, hdr ?
					 rdsd_nl_conn_fill(skb, conn, &ci) : 0);
		rdsd_conn_put(conn);
		if (err)
			break;
		ctx->next++;
	}
	return rdsd_nl_dump_done(skb, err);
}

/**
 * rdsd_nl_conn_event - announce that a connection came up or went down
 * @conn: connection.
 * @up: which.
 *
 * Any context.  Goes to the "events" group of @conn's namespace.
 */
void rdsd_nl_conn_event(struct rdsd_conn *conn, bool up)
{
	struct net *net = conn->rn->net;
	struct sk_buff *skb;
	void *hdr;

	rcu_read_lock();
	if (!READ_ONCE(rdsd_nl_registered) ||
	    !genl_has_listeners(&rdsd_nl_family, net, 0))
		goto out;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!skb)
		goto out;
	hdr = rdsd_nl_put_hdr(skb, 0, 0, 0, up ? RDS_DOCA_CMD_CONN_UP_NTF :
			      RDS_DOCA_CMD_CONN_DOWN_NTF);
	if (rdsd_nl_msg_finish(skb, hdr, hdr ?
			       rdsd_nl_conn_fill(skb, conn, NULL) : 0)) {
		nlmsg_free(skb);
		goto out;
	}
	genlmsg_multicast_netns(&rdsd_nl_family, net, skb, 0, 0, GFP_ATOMIC);
out:
	rcu_read_unlock();
}

/* Sockets ------------------------------------------------------------- */

/**
 * rdsd_nl_sock_fill - one socket as RDS_DOCA_A_SOCK_* attributes
 * @skb: message being built.
 * @rs: socket, under RCU (it may be closing).
 * @uns: user namespace the owner's uid is shown in.
 *
 * Returns 0 or -EMSGSIZE.
 */
int rdsd_nl_sock_fill(struct sk_buff *skb, struct rdsd_sock *rs,
		      struct user_namespace *uns)
{
	const struct rdsd_transport_ops *trans = READ_ONCE(rs->trans);
	u32 snd_queued, rcv_queued, notify_bytes, mrs = 0;
	bool bound = rdsd_sk_bound(rs);
	struct in6_addr peer;
	__be16 peer_port;
	bool congested;
	unsigned long key;
	void *mr;

	spin_lock_bh(&rs->lock);
	snd_queued = rs->snd_bytes;
	peer = rs->conn_addr;
	peer_port = rs->conn_port;
	spin_unlock_bh(&rs->lock);
	spin_lock_bh(&rs->recv_lock);
	rcv_queued = rs->rcv_bytes;
	notify_bytes = rs->notify_bytes;
	congested = rs->congested;
	spin_unlock_bh(&rs->recv_lock);
	xa_for_each(&rs->mrs, key, mr)
		mrs++;

	if (nla_put_u32(skb, RDS_DOCA_A_SOCK_ID, rs->id) ||
	    nla_put_u64_64bit(skb, RDS_DOCA_A_SOCK_INODE, sock_i_ino(&rs->sk),
			      RDS_DOCA_A_SOCK_PAD) ||
	    nla_put_u32(skb, RDS_DOCA_A_SOCK_UID,
			from_kuid_munged(uns, sock_i_uid(&rs->sk))) ||
	    (bound &&
	     (rdsd_nla_put_addr(skb, RDS_DOCA_A_SOCK_ADDR, &rs->bound_addr) ||
	      nla_put_u16(skb, RDS_DOCA_A_SOCK_PORT,
			  be16_to_cpu(rs->bound_port)))) ||
	    (!ipv6_addr_any(&peer) &&
	     (rdsd_nla_put_addr(skb, RDS_DOCA_A_SOCK_PEER, &peer) ||
	      nla_put_u16(skb, RDS_DOCA_A_SOCK_PEER_PORT,
			  be16_to_cpu(peer_port)))) ||
	    (trans &&
	     nla_put_string(skb, RDS_DOCA_A_SOCK_TRANSPORT, trans->name)) ||
	    nla_put_u32(skb, RDS_DOCA_A_SOCK_SNDBUF, rdsd_sndbuf(rs)) ||
	    nla_put_u32(skb, RDS_DOCA_A_SOCK_SND_QUEUED, snd_queued) ||
	    nla_put_u32(skb, RDS_DOCA_A_SOCK_RCVBUF, rdsd_rcvbuf(rs)) ||
	    nla_put_u32(skb, RDS_DOCA_A_SOCK_RCV_QUEUED, rcv_queued) ||
	    (congested && nla_put_flag(skb, RDS_DOCA_A_SOCK_CONGESTED)) ||
	    (READ_ONCE(rs->cong_monitor) &&
	     nla_put_flag(skb, RDS_DOCA_A_SOCK_CONG_MONITOR)) ||
	    nla_put_u32(skb, RDS_DOCA_A_SOCK_MRS, mrs) ||
	    nla_put_u32(skb, RDS_DOCA_A_SOCK_NOTIFY_BYTES, notify_bytes))
		return -EMSGSIZE;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_nl_sock_fill);

/**
 * rdsd_nl_sock_dump_from - put sockets in a dump message, resuming by id
 * @rn: namespace.
 * @skb: dump message being built.
 * @next: in, the lowest socket id to send; out, the one after the last
 *	sent.
 * @portid: netlink port of the requester.
 * @seq: its request's sequence number.
 * @uns: user namespace owners are shown in.
 *
 * Returns 0 when every socket from *@next on was sent, or -EMSGSIZE when
 * @skb is full (call again with a fresh one).
 */
int rdsd_nl_sock_dump_from(struct rdsd_net *rn, struct sk_buff *skb,
			   unsigned long *next, u32 portid, u32 seq,
			   struct user_namespace *uns)
{
	struct rdsd_sock *rs;
	unsigned long id;
	int err = 0;

	/* sockets are freed a grace period after they left the table */
	rcu_read_lock();
	xa_for_each_start(&rn->socks, id, rs, *next) {
		void *hdr = rdsd_nl_put_hdr(skb, portid, seq, NLM_F_MULTI,
					    RDS_DOCA_CMD_SOCK_GET);

		err = rdsd_nl_msg_finish(skb, hdr, hdr ?
					 rdsd_nl_sock_fill(skb, rs, uns) : 0);
		if (err)
			break;
		*next = id + 1;
	}
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_nl_sock_dump_from);

static int rdsd_nl_sock_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rdsd_nl_dump_ctx *ctx = rdsd_nl_ctx(cb);
	int err;

	err = rdsd_nl_sock_dump_from(rdsd_net(sock_net(skb->sk)), skb,
				     &ctx->next, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq,
				     sk_user_ns(NETLINK_CB(cb->skb).sk));
	return rdsd_nl_dump_done(skb, err);
}

/* Registered regions -------------------------------------------------- */

/*
 * One region as RDS_DOCA_A_MR_* attributes; under RCU.  Everything read
 * here is set before the region enters the key table and never changes.
 * A cookie is a capability: its key and cookie go only to a requester
 * with CAP_NET_ADMIN over the namespace, or with the owner's uid.
 */
static int rdsd_nl_mr_fill(struct sk_buff *skb, struct rdsd_mr *mr,
			   bool admin, kuid_t uid)
{
	struct rdsd_sock *owner = READ_ONCE(mr->owner);
	bool secret = admin || (owner && uid_eq(owner->sk.sk_uid, uid));

	if ((secret &&
	     (nla_put_u32(skb, RDS_DOCA_A_MR_KEY, mr->key) ||
	      nla_put_u64_64bit(skb, RDS_DOCA_A_MR_COOKIE,
				rdsd_cookie_make(mr->key, mr->cookie_off),
				RDS_DOCA_A_MR_PAD))) ||
	    nla_put_u64_64bit(skb, RDS_DOCA_A_MR_LEN, mr->len,
			      RDS_DOCA_A_MR_PAD) ||
	    nla_put_u32(skb, RDS_DOCA_A_MR_PAGES, mr->npages) ||
	    (owner && nla_put_u32(skb, RDS_DOCA_A_MR_SOCK_ID, owner->id)) ||
	    nla_put_string(skb, RDS_DOCA_A_MR_TRANSPORT,
			   mr->trans ? mr->trans->name : "software") ||
	    (!ipv6_addr_any(&mr->dest_addr) &&
	     (rdsd_nla_put_addr(skb, RDS_DOCA_A_MR_PEER, &mr->dest_addr) ||
	      nla_put_u16(skb, RDS_DOCA_A_MR_PEER_PORT,
			  be16_to_cpu(mr->dest_port)))) ||
	    ((mr->flags & RDSD_MR_USE_ONCE) &&
	     nla_put_flag(skb, RDS_DOCA_A_MR_USE_ONCE)) ||
	    ((mr->flags & RDSD_MR_READ_ONLY) &&
	     nla_put_flag(skb, RDS_DOCA_A_MR_READ_ONLY)))
		return -EMSGSIZE;
	return 0;
}

static int rdsd_nl_mr_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rdsd_net *rn = rdsd_net(sock_net(skb->sk));
	struct rdsd_nl_dump_ctx *ctx = rdsd_nl_ctx(cb);
	bool admin = netlink_net_capable(cb->skb, CAP_NET_ADMIN);
	kuid_t uid = sock_i_uid(NETLINK_CB(cb->skb).sk);
	struct rdsd_mr *mr;
	unsigned long key;
	int err = 0;

	/* regions are freed a grace period after they left the table */
	rcu_read_lock();
	xa_for_each_start(&rn->mr_keys, key, mr, ctx->next) {
		void *hdr;

		if (READ_ONCE(mr->dead)) {
			ctx->next = key + 1;
			continue;
		}
		hdr = rdsd_nl_dump_hdr(skb, cb, RDS_DOCA_CMD_MR_GET);
		err = rdsd_nl_msg_finish(skb, hdr, hdr ?
					 rdsd_nl_mr_fill(skb, mr, admin, uid) :
					 0);
		if (err)
			break;
		ctx->next = key + 1;
	}
	rcu_read_unlock();
	return rdsd_nl_dump_done(skb, err);
}

/* Devices ------------------------------------------------------------- */

static int rdsd_nl_dev_fill(struct sk_buff *skb,
			    const struct rdsd_dev_info *di)
{
	if (nla_put_u32(skb, RDS_DOCA_A_DEV_INDEX, di->index) ||
	    nla_put_string(skb, RDS_DOCA_A_DEV_NAME, di->name) ||
	    nla_put_u8(skb, RDS_DOCA_A_DEV_PORT, di->port) ||
	    nla_put_u8(skb, RDS_DOCA_A_DEV_STATE, di->state) ||
	    nla_put(skb, RDS_DOCA_A_DEV_GID, sizeof(di->gid), di->gid) ||
	    nla_put_u32(skb, RDS_DOCA_A_DEV_MAX_MSG, di->max_msg) ||
	    nla_put_u8(skb, RDS_DOCA_A_DEV_ATOMIC_CAP, di->atomic_cap) ||
	    nla_put_u8(skb, RDS_DOCA_A_DEV_MASKED_ATOMIC_CAP,
		       di->masked_atomic_cap) ||
	    nla_put_u32(skb, RDS_DOCA_A_DEV_FRWR_DEPTH, di->frwr_depth) ||
	    nla_put_u32(skb, RDS_DOCA_A_DEV_MAX_SGE, di->max_sge) ||
	    nla_put_u32(skb, RDS_DOCA_A_DEV_MAX_RD_SGE, di->max_rd_sge) ||
	    nla_put_u32(skb, RDS_DOCA_A_DEV_CAPS, di->caps) ||
	    nla_put_u32(skb, RDS_DOCA_A_DEV_CONNS, di->conns) ||
	    nla_put_u32(skb, RDS_DOCA_A_DEV_MRS, di->mrs) ||
	    nla_put_u8(skb, RDS_DOCA_A_DEV_PROTOCOL, di->protocol))
		return -EMSGSIZE;
	return 0;
}

static int rdsd_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rdsd_nl_dump_ctx *ctx = rdsd_nl_ctx(cb);
	struct rdsd_dev_info di;
	int err = 0;

	if (!ctx->started) {
		ctx->trans = rdsd_trans_next(NULL);
		ctx->started = true;
	}
	for (; ctx->trans; ctx->trans = rdsd_trans_next(ctx->trans),
	     ctx->next = 0) {
		if (!ctx->trans->dev_describe)
			continue;
		for (;;) {
			u32 index = min_t(unsigned long, ctx->next, U32_MAX);
			void *hdr;

			if (ctx->next > U32_MAX ||
			    ctx->trans->dev_describe(&index, &di))
				break;
			hdr = rdsd_nl_dump_hdr(skb, cb, RDS_DOCA_CMD_DEV_GET);
			err = rdsd_nl_msg_finish(skb, hdr, hdr ?
						 rdsd_nl_dev_fill(skb, &di) : 0);
			if (err)
				return rdsd_nl_dump_done(skb, err);
			ctx->next = (unsigned long)index + 1;
		}
	}
	return rdsd_nl_dump_done(skb, err);
}

/**
 * rdsd_nl_dev_event - announce that a device was added or removed
 * @di: the device.
 * @add: which.
 *
 * Process context.  Devices serve every namespace: the event goes to the
 * "events" group of all of them.
 */
void rdsd_nl_dev_event(const struct rdsd_dev_info *di, bool add)
{
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = rdsd_nl_put_hdr(skb, 0, 0, 0, add ? RDS_DOCA_CMD_DEV_ADD_NTF :
			      RDS_DOCA_CMD_DEV_DEL_NTF);
	if (rdsd_nl_msg_finish(skb, hdr, hdr ? rdsd_nl_dev_fill(skb, di) : 0)) {
		nlmsg_free(skb);
		return;
	}
	rcu_read_lock();
	if (READ_ONCE(rdsd_nl_registered))
		genlmsg_multicast_allns(&rdsd_nl_family, skb, 0, 0);
	else
		nlmsg_free(skb);
	rcu_read_unlock();
}

/* Settings and counters ----------------------------------------------- */

static int rdsd_nl_reply(struct genl_info *info, u8 cmd,
			 int (*fill)(struct sk_buff *skb, struct genl_info *info))
{
	struct sk_buff *skb;
	void *hdr;
	int err;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put_reply(skb, info, &rdsd_nl_family, 0, cmd);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}
	err = fill(skb, info);
	if (err)
		goto err_free;
	genlmsg_end(skb, hdr);
	return genlmsg_reply(skb, info);

err_free:
	nlmsg_free(skb);
	return err;
}

/* The copy engine's mode, channels and thresholds. */
static int rdsd_nl_dma_fill(struct sk_buff *skb)
{
	struct rdsd_dma_state *st;
	int err = -EMSGSIZE;
	u32 i;

	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	rdsd_dma_get_state(st);
	if (nla_put_string(skb, RDS_DOCA_A_INFO_DMA, !st->enabled ? "off" :
			   st->nr ? "engine" : "cpu") ||
	    nla_put_u8(skb, RDS_DOCA_A_INFO_DMA_MODE, st->enabled ?
		       RDS_DOCA_DMA_AUTO : RDS_DOCA_DMA_OFF) ||
	    nla_put_u32(skb, RDS_DOCA_A_INFO_DMA_SEND_MIN,
			st->min[RDSD_COPY_SEND]) ||
	    nla_put_u32(skb, RDS_DOCA_A_INFO_DMA_RECV_MIN,
			st->min[RDSD_COPY_RECV]) ||
	    nla_put_u32(skb, RDS_DOCA_A_INFO_DMA_RDMA_MIN,
			st->min[RDSD_COPY_RDMA]))
		goto out;
	for (i = 0; i < st->nr; i++)
		if (nla_put_string(skb, RDS_DOCA_A_INFO_DMA_CHANNEL,
				   st->chans[i]))
			goto out;
	err = 0;
out:
	kfree(st);
	return err;
}

static int rdsd_nl_info_fill(struct sk_buff *skb, struct genl_info *info)
{
	const struct rdsd_transport_ops *t;

	if (nla_put_string(skb, RDS_DOCA_A_INFO_VERSION, RDSD_VERSION) ||
	    nla_put_u32(skb, RDS_DOCA_A_INFO_FAMILY, rdsd_family) ||
	    nla_put_u32(skb, RDS_DOCA_A_INFO_SOL, SOL_RDS) ||
	    nla_put_u16(skb, RDS_DOCA_A_INFO_IB_PORT,
			rdsd_trans_listen_port(RDS_TRANS_IB)) ||
	    nla_put_u16(skb, RDS_DOCA_A_INFO_TCP_PORT,
			rdsd_trans_listen_port(RDS_TRANS_TCP)) ||
	    nla_put_u32(skb, RDS_DOCA_A_INFO_WIRE_VERSION, RDSD_WIRE_VERSION))
		return -EMSGSIZE;
	for (t = rdsd_trans_next(NULL); t; t = rdsd_trans_next(t))
		if (nla_put_string(skb, RDS_DOCA_A_INFO_TRANSPORT, t->name))
			return -EMSGSIZE;
	return rdsd_nl_dma_fill(skb);
}

static int rdsd_nl_info_get(struct sk_buff *skb, struct genl_info *info)
{
	return rdsd_nl_reply(info, RDS_DOCA_CMD_INFO_GET, rdsd_nl_info_fill);
}

static int rdsd_nl_stats_fill(struct sk_buff *skb, struct genl_info *info)
{
	struct rdsd_net *rn = rdsd_net(genl_info_net(info));
	unsigned int i;

	for (i = 0; i < rdsd_nr_stats; i++) {
		struct nlattr *nest;

		nest = nla_nest_start(skb, RDS_DOCA_A_STATS_COUNTER);
		if (!nest ||
		    nla_put_string(skb, RDS_DOCA_A_COUNTER_NAME,
				   rdsd_stat_descs[i].name) ||
		    nla_put_u64_64bit(skb, RDS_DOCA_A_COUNTER_VALUE,
				      rdsd_stat_read(rn,
						     rdsd_stat_descs[i].offset),
				      RDS_DOCA_A_COUNTER_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int rdsd_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	return rdsd_nl_reply(info, RDS_DOCA_CMD_STATS_GET, rdsd_nl_stats_fill);
}

static int rdsd_nl_stats_reset(struct sk_buff *skb, struct genl_info *info)
{
	rdsd_stats_reset(rdsd_net(genl_info_net(info)));
	return 0;
}

/* Drop every connection CONN_DROP's attributes select. */
static int rdsd_nl_conn_drop(struct sk_buff *skb, struct genl_info *info)
{
	struct rdsd_net *rn = rdsd_net(genl_info_net(info));
	struct nlattr **tb = info->attrs;
	const char *trans = NULL;
	struct in6_addr peer, laddr = {};
	unsigned long id = 0;
	struct rdsd_conn *conn;
	int found = 0, err = 0;

	if (GENL_REQ_ATTR_CHECK(info, RDS_DOCA_A_CONN_PEER))
		return -EINVAL;
	rdsd_nla_get_addr(tb[RDS_DOCA_A_CONN_PEER], &peer);
	if (tb[RDS_DOCA_A_CONN_LADDR])
		rdsd_nla_get_addr(tb[RDS_DOCA_A_CONN_LADDR], &laddr);
	if (tb[RDS_DOCA_A_CONN_TRANSPORT])
		trans = nla_data(tb[RDS_DOCA_A_CONN_TRANSPORT]);

	while ((conn = rdsd_conn_get_next(rn, &id))) {
		if (ipv6_addr_equal(&conn->faddr, &peer) &&
		    (ipv6_addr_any(&laddr) ||
		     ipv6_addr_equal(&conn->laddr, &laddr)) &&
		    (!trans || !strcmp(trans, conn->trans->name))) {
			found++;
			if (conn->trans->conn_drop)
				err = conn->trans->conn_drop(conn);
			else
				err = -EOPNOTSUPP;
		}
		rdsd_conn_put(conn);
		if (err)
			break;
		id++;
	}
	if (err == -EOPNOTSUPP)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RDS_DOCA_A_CONN_PEER],
				    "its transport keeps no path to drop");
	else if (!err && !found) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RDS_DOCA_A_CONN_PEER],
				    "no connection to this peer");
		err = -ENOENT;
	}
	return err;
}

/* Module-wide settings: the copy engine's mode and thresholds. */
static int rdsd_nl_set(struct sk_buff *skb, struct genl_info *info)
{
	static const int attr[RDSD_COPY_NR] = {
		[RDSD_COPY_SEND] = RDS_DOCA_A_INFO_DMA_SEND_MIN,
		[RDSD_COPY_RECV] = RDS_DOCA_A_INFO_DMA_RECV_MIN,
		[RDSD_COPY_RDMA] = RDS_DOCA_A_INFO_DMA_RDMA_MIN,
	};
	struct nlattr **tb = info->attrs;
	s64 min[RDSD_COPY_NR];
	int mode = -1, i;
	bool any = false;

	for (i = 0; i < RDSD_COPY_NR; i++) {
		/* -1: unchanged (the s64 keeps it from becoming U32_MAX) */
		min[i] = tb[attr[i]] ? (s64)nla_get_u32(tb[attr[i]]) : -1;
		any |= !!tb[attr[i]];
	}
	if (tb[RDS_DOCA_A_INFO_DMA_MODE]) {
		mode = nla_get_u8(tb[RDS_DOCA_A_INFO_DMA_MODE]) ==
		       RDS_DOCA_DMA_AUTO;
		any = true;
	}
	if (!any) {
		NL_SET_ERR_MSG(info->extack, "nothing to set");
		return -EINVAL;
	}
	return rdsd_dma_set(mode, min);
}

/* Family --------------------------------------------------------------- */

static const struct nla_policy rdsd_nl_set_policy[RDS_DOCA_A_INFO_MAX + 1] = {
	[RDS_DOCA_A_INFO_DMA_MODE]	= NLA_POLICY_MAX(NLA_U8,
							 RDS_DOCA_DMA_AUTO),
	[RDS_DOCA_A_INFO_DMA_SEND_MIN]	= { .type = NLA_U32 },
	[RDS_DOCA_A_INFO_DMA_RECV_MIN]	= { .type = NLA_U32 },
	[RDS_DOCA_A_INFO_DMA_RDMA_MIN]	= { .type = NLA_U32 },
};

/* An address attribute is 4 bytes (IPv4) or 16 (IPv6). */
static int rdsd_nla_addr_check(const struct nlattr *attr,
			       struct netlink_ext_ack *extack)
{
	if (nla_len(attr) == sizeof(__be32) ||
	    nla_len(attr) == sizeof(struct in6_addr))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "an address is 4 bytes (IPv4) or 16 (IPv6)");
	return -ERANGE;
}

static const struct nla_policy rdsd_nl_conn_drop_policy[RDS_DOCA_A_CONN_MAX + 1] = {
	[RDS_DOCA_A_CONN_PEER]		= NLA_POLICY_VALIDATE_FN(NLA_BINARY,
							 rdsd_nla_addr_check),
	[RDS_DOCA_A_CONN_LADDR]		= NLA_POLICY_VALIDATE_FN(NLA_BINARY,
							 rdsd_nla_addr_check),
	[RDS_DOCA_A_CONN_TRANSPORT]	= { .type = NLA_NUL_STRING,
					    .len = TRANSNAMSIZ - 1 },
};

static const struct genl_ops rdsd_nl_ops[] = {
	{
		.cmd	= RDS_DOCA_CMD_INFO_GET,
		.doit	= rdsd_nl_info_get,
	},
	{
		.cmd	= RDS_DOCA_CMD_CONN_GET,
		.dumpit	= rdsd_nl_conn_dump,
	},
	{
		.cmd	= RDS_DOCA_CMD_SOCK_GET,
		.dumpit	= rdsd_nl_sock_dump,
	},
	{
		.cmd	= RDS_DOCA_CMD_MR_GET,
		.dumpit	= rdsd_nl_mr_dump,
	},
	{
		.cmd	= RDS_DOCA_CMD_DEV_GET,
		.dumpit	= rdsd_nl_dev_dump,
	},
	{
		.cmd	= RDS_DOCA_CMD_STATS_GET,
		.doit	= rdsd_nl_stats_get,
	},
	{
		.cmd	= RDS_DOCA_CMD_STATS_RESET,
		.doit	= rdsd_nl_stats_reset,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= RDS_DOCA_CMD_CONN_DROP,
		.doit	= rdsd_nl_conn_drop,
		.policy	= rdsd_nl_conn_drop_policy,
		.maxattr = RDS_DOCA_A_CONN_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= RDS_DOCA_CMD_SET,
		.doit	= rdsd_nl_set,
		.policy	= rdsd_nl_set_policy,
		.maxattr = RDS_DOCA_A_INFO_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group rdsd_nl_mcgrps[] = {
	{ .name = RDS_DOCA_GENL_MCGRP_EVENTS },
};

static struct genl_family rdsd_nl_family __ro_after_init = {
	.name		= RDS_DOCA_GENL_NAME,
	.version	= RDS_DOCA_GENL_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= rdsd_nl_ops,
	.n_ops		= ARRAY_SIZE(rdsd_nl_ops),
	.mcgrps		= rdsd_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(rdsd_nl_mcgrps),
};

/**
 * rdsd_nl_init - register the family
 *
 * Called last by module init: the family is a user-visible entry point.
 */
int rdsd_nl_init(void)
{
	int ret = genl_register_family(&rdsd_nl_family);

	if (!ret)
		WRITE_ONCE(rdsd_nl_registered, true);
	return ret;
}

/**
 * rdsd_nl_exit - unregister the family; called first by module exit
 */
void rdsd_nl_exit(void)
{
	WRITE_ONCE(rdsd_nl_registered, false);
	synchronize_rcu();	/* no event is being sent */
	genl_unregister_family(&rdsd_nl_family);
}
