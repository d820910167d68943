/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca TCP transport: shared definitions (tcp.c, tcp_send.c,
 * tcp_recv.c).
 */
#ifndef _RDSD_TCP_H
#define _RDSD_TCP_H

#include <linux/bvec.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "rdsd.h"
#include "message.h"
#include "mr.h"
#include "wire.h"

#define RDSD_TCP_PORT_DEFAULT	18636	/* rds_tcp listens on 16385 */

/*
 * Ask the peer for an ack every so many messages, and acknowledge after
 * so many even when not asked: as over IB.
 */
#define RDSD_TCP_ACK_REQ_EVERY	16
#define RDSD_TCP_ACK_EVERY	32

/* Pieces of a frame handed to the socket at once. */
#define RDSD_TCP_TX_BVECS	64

/*
 * Operations over TCP (tcp_rdma.c): a requester keeps at most
 * RDSD_TCP_OPS_MAX requests unanswered on a connection, reads of at most
 * RDSD_TCP_READ_WINDOW bytes among them; the owner refuses a peer that
 * asks more (the connection resets).  The read data an owner holds
 * before it is written to the socket is bounded per namespace by
 * RDSD_TCP_STAGE_MAX: past it a read is answered RDS_RDMA_OTHER_ERROR.
 */
#define RDSD_TCP_OPS_MAX	64
#define RDSD_TCP_READ_WINDOW	(4U << 20)
#define RDSD_TCP_STAGE_MAX	(64L << 20)

/* Connections being accepted per namespace before their hello arrived. */
#define RDSD_TCP_PENDING_MAX	64
/* How long an accepted connection may take to say hello. */
#define RDSD_TCP_HELLO_MS	5000

/* rdsd_tcp_conn.state, under cm_mutex */
enum rdsd_tcp_state {
	RDSD_TCP_DOWN,		/* no socket */
	RDSD_TCP_ACTIVE,	/* our connect and hello are out */
	RDSD_TCP_UP,		/* both hellos exchanged */
};

/* what the receiver is in the middle of (softirq, under the socket lock) */
enum rdsd_tcp_rx_state {
	RDSD_TCP_RX_HELLO,	/* the peer's hello */
	RDSD_TCP_RX_HDR,	/* a frame header */
	RDSD_TCP_RX_DATA,	/* a DATA frame's payload, into rx_msg */
	RDSD_TCP_RX_SKIP,	/* a DATA frame's payload, dropped */
	RDSD_TCP_RX_CONG,	/* a CONG frame's map */
	RDSD_TCP_RX_REQ,	/* an RDMA_REQ's descriptor */
	RDSD_TCP_RX_WDATA,	/* a write's data, into the region or nowhere */
	RDSD_TCP_RX_RESP,	/* an RDMA_RESP's descriptor */
	RDSD_TCP_RX_RDATA,	/* a read's data, into the operation's buffers */
	RDSD_TCP_RX_DEAD,	/* broken: nothing more is read */
};

/**
 * struct rdsd_tcp_resp - the answer to a peer's RDMA_REQ, to be written
 * @item: on rdsd_tcp_conn.resp_list.
 * @desc: the answer's descriptor.
 * @asked: read bytes the request counts against the peer's window.
 * @counted: the request counts against the peer's window: until its
 *	answer starts to be written.
 * @bytes: read data in @sg, 0 for none.
 * @nents: entries of @sg, one page each.
 * @sg: the data read, staged in pages of our own, or NULL.
 *
 * Lifetime: made when the request's descriptor arrived, on resp_list
 * once the request ran, freed when its frame is written (or the socket
 * goes).  Its data counts in the namespace's staged bytes meanwhile.
 */
struct rdsd_tcp_resp {
	struct list_head		item;
	struct rdsd_wire_rdma_resp	desc;
	u32				asked;
	bool				counted;
	u32				bytes;
	unsigned int			nents;
	struct scatterlist		*sg;
};

/**
 * struct rdsd_tcp_conn - the TCP transport's side of a connection
 * @conn: the core's connection.
 * @cm_mutex: serializes connecting, accepting and tearing down.
 * @state: enum rdsd_tcp_state, under @cm_mutex.
 * @gen: bumped by every teardown, under @cm_mutex and @tx_mutex; work
 *	queued for an older socket finds it changed and does nothing.
 * @incarnation: identity of our side of the connection (conn.c).
 * @peer_incarnation: the peer's, from its last hello; 0 before.
 * @peer_hello: the peer's hello of the current socket.
 * @backoff_ms: the delay before the next attempt; doubles, randomized.
 * @sock: the connected socket, or NULL; set under @cm_mutex and
 *	@tx_mutex, its callbacks point to us through sk_user_data.
 * @orig_data_ready: @sock's own callbacks, put back by the teardown.
 * @orig_write_space: as @orig_data_ready.
 * @orig_state_change: as @orig_data_ready.
 * @peer_local: the peer address is one of ours in the namespace: the
 *	congestion map is the same object at both ends, not sent.
 * @dead: ->conn_shutdown began: no attempt is made any more.
 * @reset_gen: the generation a reset was asked for (rdsd_tcp_request_reset()).
 * @hello_heard: the peer answered our attempt's hello (tcp_recv.c).
 * @connect_work: the next attempt (delayed by @backoff_ms).
 * @timeout_work: ends an attempt that did not come up in time.
 * @reset_work: tears the socket down and reconnects.
 * @up_work: finishes our attempt once the peer's hello came.
 * @tx_work: finishes a frame the socket had no room for, then sends
 *	what waits.
 * @ack_work: acknowledges what no DATA header carried.
 * @cong_work: sends the local congestion map after a change.
 * @rx_work: reads what the socket holds when softirq could not (memory).
 * @uid: the user whose send made the connection, INVALID_UID for one a
 *	peer's hello made: whose RDSD_USER_ATTEMPTS its attempts count
 *	against.
 * @holds_attempt: our attempt holds a place of rdsd_tcp_attempts
 *	(cm_mutex).
 * @tx_mutex: serializes writers of @sock: ->xmit, the workers.
 * @tx_ready: frames may be written: the peer's hello was taken.
 * @hello_due: our hello is the next thing to write.
 * @tx_blocked: ->xmit was refused for room; the core waits for a kick.
 * @tx_more: the frame being written is a message the core's pass
 *	follows with another (more are queued): its end goes with MSG_MORE.
 * @tx_held: the socket holds bytes written with MSG_MORE: the pass's
 *	flush (->xmit_flush) or the next frame without it sends them.
 * @tx_hdr: the header of the frame being written.
 * @tx_hello: our hello, while it is being written.
 * @tx_msg: the message whose frame is being written, with a reference;
 *	NULL for a frame of @tx_hdr alone or @tx_buf.
 * @tx_head: the frame's header (@tx_hdr, or @tx_hello), @tx_head_len bytes.
 * @tx_head_len: see @tx_head.
 * @tx_lin: a linear payload (@tx_buf), @tx_lin_len bytes, or NULL.
 * @tx_lin_len: see @tx_lin.
 * @tx_done: bytes of @tx_head and @tx_lin written.
 * @tx_sg: the entry of @tx_msg's payload to write next, or NULL.
 * @tx_sg_off: bytes of it written.
 * @tx_sg_left: payload bytes not written yet.
 * @tx_left: bytes of the frame not written yet; 0 when none is pending.
 * @tx_bvec: the pieces handed to the socket at once.
 * @tx_since_req: DATA frames sent since one asked for an ack.
 * @tx_acked: the ack value last written, in a header or a hello; kept
 *	across sockets, for ->conn_idle.
 * @tx_acked_valid: @tx_acked was written at all.
 * @cong_pending: the congestion map is to be sent.
 * @tx_buf: the congestion map's wire form, RDSD_NR_PORTS / 8 bytes.
 * @rx_state: enum rdsd_tcp_rx_state.
 * @rx_have: bytes of @rx_raw collected (hello, header, map).
 * @rx_raw: where a hello or a header is collected.
 * @rx_map: where a congestion map is collected (RDSD_NR_PORTS / 8 bytes),
 *	allocated at the first.
 * @rx_info: the frame being received, decoded.
 * @rx_off: payload bytes of it received.
 * @rx_msg: the message being filled, or NULL.
 * @rx_rs: the socket a message over RDSD_MAX_MSG_SIZE reserved room in.
 * @rx_fill: where the next bytes of a growing @rx_msg go.
 * @rx_unacked: messages delivered since an ack went.
 * @op_lock: guards the requester's and the owner's counts below, between
 *	the writers (tx_mutex) and the reader (the socket's lock).
 * @op_ring: operations whose request went and whose answer did not come,
 *	with a reference each; request id N is in slot N % RDSD_TCP_OPS_MAX.
 * @op_next: the id the next request gets (from 1 on every socket).
 * @op_oldest: the id of the oldest request unanswered.
 * @op_read_bytes: bytes of the unanswered reads.
 * @op_wait: ->xmit was refused for the window: an answer kicks the core.
 * @op_after: the id of the read or atomic whose message waits in
 *	@tx_after for its answer, 0 for none.
 * @rq_next: the id the peer's next request must have.
 * @rq_out: the peer's requests whose answer did not start to be written.
 * @rq_read_bytes: bytes of the reads among them.
 * @resp_list: answers ready to be written, in request order.
 * @rx_resp: the answer to the request being received.
 * @rx_mr: the region a write being received goes to, with a reference;
 *	NULL while its data is dropped.
 * @rx_moff: where in the region's pages the next byte goes.
 * @tx_op: the operation whose request frame is being written, with a
 *	reference of the frame's.
 * @tx_next: the message whose DATA frame follows that request frame,
 *	with a reference.
 * @tx_after: the message of a read or an atomic, with a reference: its
 *	DATA frame goes once the answer came (op_after is 0), and no
 *	message goes before it.
 * @tx_resp: the answer whose frame is being written.
 * @tx_desc: the descriptor of the request or answer being written.
 *
 * Lifetime: allocated by ->conn_alloc, freed by ->conn_free after
 * ->conn_shutdown, which releases the socket and cancels every work.
 */
struct rdsd_tcp_conn {
	struct rdsd_conn	*conn;
	struct mutex		cm_mutex;	/* see above */
	int			state;
	u32			gen;
	u64			incarnation;
	u64			peer_incarnation;
	struct rdsd_tcp_hello	peer_hello;
	unsigned int		backoff_ms;
	struct socket		*sock;
	void			(*orig_data_ready)(struct sock *sk);
	void			(*orig_write_space)(struct sock *sk);
	void			(*orig_state_change)(struct sock *sk);
	bool			peer_local;
	bool			dead;
	u32			reset_gen;
	bool			hello_heard;
	kuid_t			uid;
	bool			holds_attempt;

	struct delayed_work	connect_work;
	struct delayed_work	timeout_work;
	struct work_struct	reset_work;
	struct work_struct	up_work;
	struct work_struct	tx_work;
	struct delayed_work	ack_work;
	struct work_struct	cong_work;
	struct work_struct	rx_work;

	struct mutex		tx_mutex;	/* see above */
	bool			tx_ready;
	bool			hello_due;
	bool			tx_blocked;
	bool			tx_more;
	bool			tx_held;
	struct rdsd_wire_hdr	tx_hdr __aligned(64);
	struct rdsd_tcp_hello	tx_hello __aligned(64);
	struct rdsd_msg		*tx_msg;
	const void		*tx_head;
	u32			tx_head_len;
	const void		*tx_lin;
	u32			tx_lin_len;
	u32			tx_done;
	struct scatterlist	*tx_sg;
	u32			tx_sg_off;
	u32			tx_sg_left;
	u32			tx_left;
	struct bio_vec		tx_bvec[RDSD_TCP_TX_BVECS];
	u32			tx_since_req;
	u64			tx_acked;
	bool			tx_acked_valid;
	bool			cong_pending;
	void			*tx_buf;

	int			rx_state;
	u32			rx_have;
	union {
		struct rdsd_tcp_hello	hello;
		struct rdsd_wire_hdr	hdr;
		struct rdsd_wire_rdma_req req;
		struct rdsd_wire_rdma_resp resp;
	} rx_raw;
	void			*rx_map;
	struct rdsd_wire_info	rx_info;
	u32			rx_off;
	struct rdsd_msg		*rx_msg;
	struct rdsd_sock	*rx_rs;
	struct rdsd_msg_fill	rx_fill;
	u32			rx_unacked;

	spinlock_t		op_lock;	/* see above */
	struct rdsd_op		*op_ring[RDSD_TCP_OPS_MAX];
	u64			op_next;
	u64			op_oldest;
	u32			op_read_bytes;
	bool			op_wait;
	u64			op_after;
	u64			rq_next;
	u32			rq_out;
	u32			rq_read_bytes;
	struct list_head	resp_list;
	struct rdsd_tcp_resp	*rx_resp;
	struct rdsd_mr		*rx_mr;
	u64			rx_moff;
	struct rdsd_op		*tx_op;
	struct rdsd_msg		*tx_next;
	struct rdsd_msg		*tx_after;
	struct rdsd_tcp_resp	*tx_resp;
	union {
		struct rdsd_wire_rdma_req	req;
		struct rdsd_wire_rdma_resp	resp;
	} tx_desc __aligned(64);
};

/* tcp.c */
int rdsd_tcp_hello_check(const struct rdsd_tcp_hello *h);
void rdsd_tcp_hello_fill(const struct rdsd_tcp_conn *tp,
			 struct rdsd_tcp_hello *h);
void rdsd_tcp_peer_learn(struct rdsd_tcp_conn *tp,
			 const struct rdsd_tcp_hello *h);
void rdsd_tcp_hello_heard(struct rdsd_tcp_conn *tp,
			  const struct rdsd_tcp_hello *h);
void rdsd_tcp_request_reset(struct rdsd_tcp_conn *tp, u32 gen);

/* tcp_send.c */
int rdsd_tcp_xmit(struct rdsd_conn *conn, struct rdsd_msg *msg);
void rdsd_tcp_xmit_flush(struct rdsd_conn *conn);
void rdsd_tcp_tx_worker(struct work_struct *work);
void rdsd_tcp_ack_worker(struct work_struct *work);
void rdsd_tcp_cong_worker(struct work_struct *work);
void rdsd_tcp_cong_changed(struct rdsd_conn *conn);
void rdsd_tcp_tx_start(struct rdsd_tcp_conn *tp);
void rdsd_tcp_tx_stop(struct rdsd_tcp_conn *tp);
void rdsd_tcp_write_space(struct sock *sk);

#if IS_ENABLED(CONFIG_KUNIT)
void rdsd_tcp_listen_data_ready(struct sock *sk);
void rdsd_tcp_pending_data_ready(struct sock *sk);
void rdsd_tcp_pending_state_change(struct sock *sk);
#endif

/* tcp_recv.c */
void rdsd_tcp_data_ready(struct sock *sk);
void rdsd_tcp_rx_worker(struct work_struct *work);
void rdsd_tcp_rx_reset(struct rdsd_tcp_conn *tp);
int rdsd_tcp_frame_check(const struct rdsd_wire_info *info);
int rdsd_tcp_copy_to_sg(struct scatterlist *sg, unsigned int nents, u32 to,
			const struct sk_buff *skb, unsigned int off, u32 n);

/* tcp_rdma.c */
void rdsd_tcp_rdma_init(struct rdsd_tcp_conn *tp);
int rdsd_tcp_op_room(struct rdsd_tcp_conn *tp, const struct rdsd_op *op);
u64 rdsd_tcp_op_req(struct rdsd_tcp_conn *tp, struct rdsd_op *op,
		    struct rdsd_wire_rdma_req *req, bool after);
bool rdsd_tcp_op_answered(struct rdsd_tcp_conn *tp);
int rdsd_tcp_rx_req(struct rdsd_tcp_conn *tp, gfp_t gfp);
int rdsd_tcp_rx_wdata(struct rdsd_tcp_conn *tp, const struct sk_buff *skb,
		      unsigned int off, u32 n);
void rdsd_tcp_rx_req_end(struct rdsd_tcp_conn *tp);
int rdsd_tcp_rx_resp(struct rdsd_tcp_conn *tp);
int rdsd_tcp_rx_rdata(struct rdsd_tcp_conn *tp, const struct sk_buff *skb,
		      unsigned int off, u32 n);
void rdsd_tcp_rx_resp_end(struct rdsd_tcp_conn *tp);
struct rdsd_tcp_resp *rdsd_tcp_resp_next(struct rdsd_tcp_conn *tp);
void rdsd_tcp_resp_free(struct rdsd_tcp_conn *tp, struct rdsd_tcp_resp *r);
void rdsd_tcp_rdma_reset(struct rdsd_tcp_conn *tp);
bool rdsd_tcp_rdma_idle(struct rdsd_tcp_conn *tp);

#endif /* _RDSD_TCP_H */
