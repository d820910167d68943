/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca transport contract.
 *
 * A transport moves messages of one connection between two hosts (or, for
 * the loopback transport, between two sockets of one host).  The core owns
 * sockets, messages, sequence numbers and acknowledgments; a transport
 * owns the wire.  The core never asks which transport it talks to: every
 * difference between loopback and RDMA lives behind this table.
 *
 * A transport acknowledges what its peer has delivered by calling
 * rdsd_send_acked(), which refuses (-EPROTO) an ack of a sequence number
 * never handed out: the transport then resets the connection as for any
 * protocol violation.  It hands received messages to the core with
 * rdsd_recv_incoming().  Everything a transport attaches to a connection
 * lives in conn->tp, allocated by ->conn_alloc and freed by ->conn_free.
 */
#ifndef _RDSD_TRANSPORT_H
#define _RDSD_TRANSPORT_H

#include <linux/bits.h>
#include <linux/types.h>

struct net;
struct rdsd_conn;
struct rdsd_conn_info;
struct rdsd_dev_info;
struct rdsd_mr;
struct rdsd_msg;
struct rdsd_sock;

/* Transport numbers as SO_RDS_TRANSPORT reports them (Linux values). */
#define RDSD_TRANS_IB		0	/* RDS_TRANS_IB */
#define RDSD_TRANS_TCP		2	/* RDS_TRANS_TCP */
#define RDSD_TRANS_LOOP		3	/* Linux's internal RDS_TRANS_LOOP */

/**
 * struct rdsd_transport_ops - what a transport implements
 * @name: short name shown to users ("loopback", "ib").
 * @type: number reported by getsockopt(SO_RDS_TRANSPORT).
 * @laddr_check: may a socket bind to @addr (on the link @scope if it is
 *	link-local) in @net with this transport?
 *	Process context, called with no lock held; it takes what its own
 *	lookups need (the IB transport holds rcu_read_lock() across its
 *	device lookup).  Returns 0 if it may, a negative errno otherwise.
 * @conn_alloc: attach transport state to a new connection (conn->tp).
 *	Process context, may sleep if @gfp allows.  Called once per
 *	connection object, before it is visible to anyone; two racing
 *	creators may each allocate one, and the loser is freed with
 *	@conn_shutdown and @conn_free without ever being connected.
 *	Returns 0 or a negative errno.
 * @conn_free: release conn->tp.  Process context, may sleep.  Called once,
 *	after the last reference to the connection is gone and after
 *	@conn_shutdown returned.
 * @conn_connect: start bringing the connection up.  Process context, may
 *	sleep; serialized per connection by the connection's state machine.
 *	The transport calls rdsd_conn_up() when the path can carry messages.
 *	Returns 0 if the attempt started, a negative errno otherwise.
 * @conn_shutdown: take the connection down and wait until the transport
 *	no longer touches any message it was given.  Process context, may
 *	sleep; serialized with @conn_connect by the state machine.  Must be
 *	safe to call on a connection that never came up.
 * @xmit: send @msg on @conn.  Called with the connection's xmit bit held
 *	(one caller per connection at a time), in process context; must not
 *	wait for room (the TCP transport sleeps only on its mutex and its
 *	socket's lock).  Returns 0 if the message is on its way (the core keeps it on
 *	the retransmit list until rdsd_send_acked() covers its sequence
 *	number), -EAGAIN if the transport has no room now (the core retries
 *	when the transport calls rdsd_conn_kick()) or its path is not up,
 *	or came up after the message was taken (rdsd_conn_xmit_stale(): the
 *	core retries when rdsd_conn_up() kicks), RDSD_XMIT_DONE if
 *	nothing of a rdsd_msg_op_only() message goes to the peer (its
 *	operation is posted or was: the core completes the message at once),
 *	or another negative errno for a message that can never be sent (the
 *	core drops it).  The core holds a reference to @msg from before the
 *	call until after it has dealt with the return, so @msg stays valid
 *	for the whole call even if an ack completes it meanwhile (it is on
 *	the retransmit list, and the peer's ack may come from any context):
 *	the transport must not rely on @msg staying on a connection list.
 *	A transport that keeps @msg after returning (in a work request, a
 *	waiting list) takes a reference of its own with rdsd_msg_get() and
 *	puts it when done.
 * @xmit_flush: optional: the core's pass over @conn's queue ends (it has
 *	called @xmit at least once since the last flush); send at once what
 *	@xmit held back to join the next message.  Process context, the
 *	xmit bit held, may sleep on the transport's locks.
 * @max_msg: the largest payload the transport carries; sendmsg() refuses
 *	a larger one with EMSGSIZE.
 * @features: RDSD_TRANS_F_* bits.
 * @op_check: optional: may an operation of @kind (enum rdsd_op_kind) go
 *	on @conn, whose transport has RDSD_TRANS_F_RDMA?  For a transport
 *	whose devices differ (atomics on iWARP).  Returns 0 or -EOPNOTSUPP.
 *	Process context, may sleep.
 * @cong_changed: optional: a port of @conn's local address changed its
 *	congestion state; a transport that crosses hosts tells the peer.
 *	Any context, must not sleep; called with the socket's
 *	rs->recv_lock held, so it takes none of the locks under which the
 *	transport completes operations (rdsd.h): the IB transport posts
 *	the update from a work item.
 * @mr_register: optional: make region @mr of socket @rs (its pages
 *	pinned, not yet on any table) reachable by the device that serves
 *	the socket's bound address.  The region's key, given by the core
 *	afterwards, is not the device's: the transport keeps that and hands
 *	it only to peers that present the whole cookie and may use the
 *	region.  Process context, may sleep.  Returns 0 or a negative errno,
 *	with nothing registered.  Without it only software reaches the
 *	region.
 * @mr_unregister: with @mr_register: after it returns no device reaches
 *	@mr's pages, and every peer host that was given the device key is
 *	told to forget it.  Process context, may sleep; may be called more
 *	than once.
 * @mr_release: with @mr_register: the region's last reference is gone;
 *	unregister it if that did not happen yet and free the transport's
 *	part.  Process context, may sleep.
 * @conn_info: optional: fill in what the transport knows of @conn (its
 *	device, queue pair, credits) for the control plane.  Process
 *	context, may sleep; the caller holds a reference.
 * @conn_drop: optional: drop @conn's path now, as a failure would; the
 *	transport reconnects.  Process context, may sleep.  Returns 0 or a
 *	negative errno.
 * @dev_describe: optional: describe the device with the lowest index not
 *	below *@index and set *@index to it.  Process context, may sleep.
 *	Returns 0, or -ENOENT when there is none.
 * @conn_idle: optional: may the core free @conn now that nothing is queued
 *	on it, nothing waits for the peer's acknowledgment and no user holds
 *	it?  True when the transport owes the peer nothing either: every
 *	message it delivered is acknowledged, so the peer will not send it
 *	again to a successor that would deliver it a second time.  Process
 *	context under rcu_read_lock(), must not sleep.  Without it the core
 *	takes the connection as idle.
 * @init: optional: set the transport up at module load, once the
 *	namespace state exists (a peer may connect at once).  Returns 0 or a
 *	negative errno.
 * @stop: optional: take no new peer; the first step of module unload.
 * @exit: optional: undo @init; no connection of the transport is left.
 * @listen_port: optional: the port the transport takes peers on.
 */
struct rdsd_transport_ops {
	const char	*name;
	int		type;
	int		(*laddr_check)(struct net *net,
				       const struct in6_addr *addr, int scope);
	int		(*conn_alloc)(struct rdsd_conn *conn, gfp_t gfp);
	void		(*conn_free)(struct rdsd_conn *conn);
	int		(*conn_connect)(struct rdsd_conn *conn);
	void		(*conn_shutdown)(struct rdsd_conn *conn);
	int		(*xmit)(struct rdsd_conn *conn, struct rdsd_msg *msg);
	void		(*xmit_flush)(struct rdsd_conn *conn);
	u32		max_msg;
	unsigned int	features;
	int		(*op_check)(struct rdsd_conn *conn, u8 kind);
	void		(*cong_changed)(struct rdsd_conn *conn);
	int		(*mr_register)(struct rdsd_sock *rs, struct rdsd_mr *mr);
	void		(*mr_unregister)(struct rdsd_mr *mr);
	void		(*mr_release)(struct rdsd_mr *mr);
	void		(*conn_info)(struct rdsd_conn *conn,
				     struct rdsd_conn_info *ci);
	int		(*conn_drop)(struct rdsd_conn *conn);
	int		(*dev_describe)(u32 *index, struct rdsd_dev_info *di);
	bool		(*conn_idle)(struct rdsd_conn *conn);
	int		(*init)(void);
	void		(*stop)(void);
	void		(*exit)(void);
	u16		(*listen_port)(void);
};

/*
 * Why a transport tears its path down to reconnect (the rdsd_conn_reset
 * trace event).
 */
enum rdsd_reset_why {
	RDSD_RESET_DEVICE,	/* the device is going away */
	RDSD_RESET_QP_EVENT,	/* the device reported the queue pair broken */
	RDSD_RESET_PEER,	/* the peer connects again: it lost the path */
	RDSD_RESET_DROP,	/* asked for (rdsctl conn drop) */
	RDSD_RESET_POST,	/* the device took no more work */
	RDSD_RESET_SEND_ERROR,	/* a send completed in error */
	RDSD_RESET_RECV_ERROR,	/* a receive completed in error */
	RDSD_RESET_PROTOCOL,	/* the peer broke the wire protocol */
	RDSD_RESET_CM,		/* the connection manager lost the path */
};

#define RDSD_DEV_NAME_MAX	64	/* IB_DEVICE_NAME_MAX */

/**
 * struct rdsd_conn_info - a transport's view of a connection
 * @dev: device name, "" for none.
 * @port: device port, 0 for none.
 * @qpn: queue pair number, 0 for none.
 * @credits: send credits.
 * @has_credits: @credits means something.
 * @sgid: local GID of the path.
 * @dgid: peer's GID.
 * @sl: service level of the path.
 * @max_send_wr: send work requests the queue pair holds.
 * @max_recv_wr: receive work requests it holds.
 * @max_send_sge: scatter/gather entries per send.
 * @mr_max: regions the device can register.
 * @mr_size: pages one registration maps.
 * @recv_bufs: receive buffers posted, with @has_recv_bufs.
 * @has_recv_bufs: @recv_bufs means something.
 * @has_tcp: the TCP fields below mean something: the path has a socket.
 * @tcp_lport: the socket's local TCP port.
 * @tcp_fport: the peer's TCP port.
 * @tcp_hdr_rem: bytes of the frame header (or hello) being received
 *	still to come, 0 between frames.
 * @tcp_data_rem: bytes of the frame payload being received still to
 *	come.
 * @tcp_snd_nxt: the socket's next sequence number to send.
 * @tcp_write_seq: its sequence number after the last byte written to
 *	it: what the peer acknowledges once it has everything.
 * @tcp_snd_una: the oldest sequence number not acknowledged.
 *
 * The fields after @has_credits are those of RDS_INFO_IB_CONNECTIONS;
 * they stay zero while the path has no queue pair.
 */
struct rdsd_conn_info {
	char	dev[RDSD_DEV_NAME_MAX];
	u8	port;
	u32	qpn;
	u32	credits;
	bool	has_credits;
	u8	sgid[16];
	u8	dgid[16];
	u8	sl;
	u32	max_send_wr;
	u32	max_recv_wr;
	u32	max_send_sge;
	u32	mr_max;
	u32	mr_size;
	u32	recv_bufs;
	bool	has_recv_bufs;
	bool	has_tcp;
	__be16	tcp_lport;
	__be16	tcp_fport;
	u64	tcp_hdr_rem;
	u64	tcp_data_rem;
	u32	tcp_snd_nxt;
	u32	tcp_write_seq;
	u32	tcp_snd_una;
};

/**
 * struct rdsd_dev_info - a device as the control plane shows it
 * @index: device index.
 * @name: device name.
 * @port: port shown.
 * @state: its enum ib_port_state.
 * @gid: GID index 0 of that port.
 * @max_msg: largest message, bytes.
 * @atomic_cap: enum ib_atomic_cap.
 * @masked_atomic_cap: enum ib_atomic_cap of the masked forms.
 * @frwr_depth: pages one fast registration maps.
 * @max_sge: send scatter/gather entries used.
 * @max_rd_sge: RDMA read entries used.
 * @caps: RDS_DOCA_DEV_CAP_* bits.
 * @protocol: RDS_DOCA_DEV_PROTO_*.
 * @conns: connections over the device.
 * @mrs: regions registered on it.
 */
struct rdsd_dev_info {
	u32	index;
	char	name[RDSD_DEV_NAME_MAX];
	u8	port;
	u8	state;
	u8	gid[16];
	u32	max_msg;
	u8	atomic_cap;
	u8	masked_atomic_cap;
	u32	frwr_depth;
	u32	max_sge;
	u32	max_rd_sge;
	u32	caps;
	u8	protocol;
	u32	conns;
	u32	mrs;
};

/* rdsd_transport_ops.features */
#define RDSD_TRANS_F_RDMA		BIT(0)	/* RDMA and atomic operations */
#define RDSD_TRANS_F_MASKED_ATOMICS	BIT(1)	/* their masked forms too */
/*
 * Every write to the peer costs the same whatever it carries (a TCP
 * segment): while messages wait for the peer's acknowledgment a sender
 * leaves its message to the connection's worker, which sends what
 * gathered meanwhile together (rdsd_conn_send()).
 */
#define RDSD_TRANS_F_BATCH		BIT(2)

/* rdsd_transport_ops.xmit: nothing goes to the peer, complete the message */
#define RDSD_XMIT_DONE			1

extern const struct rdsd_transport_ops rdsd_loop_transport;
extern const struct rdsd_transport_ops rdsd_ib_transport;
extern const struct rdsd_transport_ops rdsd_tcp_transport;

const struct rdsd_transport_ops *rdsd_trans_for_bind(struct net *net,
						     const struct in6_addr *addr,
						     int scope,
						     int forced_type,
						     int *err);
const struct rdsd_transport_ops *rdsd_trans_for_conn(struct net *net,
						     const struct rdsd_transport_ops *bound,
						     const struct in6_addr *laddr,
						     const struct in6_addr *faddr);
int rdsd_trans_type_available(int type);
bool rdsd_addr_local(struct net *net, const struct in6_addr *a, int scope);
int rdsd_peer_addrs(const struct sockaddr_storage *local,
		    const struct sockaddr_storage *peer, int ifindex,
		    struct in6_addr *laddr, struct in6_addr *faddr, int *scope);
const struct rdsd_transport_ops *rdsd_trans_next(const struct rdsd_transport_ops *t);
const struct rdsd_transport_ops *rdsd_trans_by_type(int type);
int rdsd_trans_init(void);
void rdsd_trans_stop(void);
void rdsd_trans_exit(void);
u16 rdsd_trans_listen_port(int type);

#endif /* _RDSD_TRANSPORT_H */
