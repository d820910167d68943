/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca IB/RoCE transport: shared declarations.
 *
 * ib.c follows devices; ib_cm.c manages connections (rdma_cm, queue
 * pairs, the state machine, reconnects); ib_send.c and ib_recv.c move
 * messages over a connected queue pair (credits, acknowledgments,
 * fragments, congestion updates) through the rings of ib_ring.c; ib_mr.c
 * registers regions and tells peers their keys.
 * Documentation/architecture.rst describes them.
 */
#ifndef _RDSD_IB_H
#define _RDSD_IB_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "rdsd.h"
#include "message.h"
#include "mr.h"
#include "transport.h"
#include "wire.h"

#define RDSD_IB_PORT_DEFAULT	18635	/* rds_rdma listens on 18634 */

/* Payload bytes of one fragment, the size of every receive buffer. */
#define RDSD_IB_FRAG_SIZE	SZ_16K
/*
 * Fragments of the largest message posted whole (RDSD_MAX_MSG_SIZE); a
 * larger one goes in pieces as credits return (ib_send.c).
 */
#define RDSD_IB_MAX_FRAGS	(RDSD_MAX_MSG_SIZE / RDSD_IB_FRAG_SIZE)
/*
 * Slots of each ring, indexed modulo a power of two.  The queue pair and
 * its completion queues are made one entry short of it, the entry
 * ib_drain_qp() posts included: a device rounds a queue up to a power of
 * two counting one entry more than asked (Soft-RoCE keeps one empty), so
 * 256 entries would cost it twice the memory of 255.
 */
#define RDSD_IB_SEND_RING	256
#define RDSD_IB_RECV_RING	256
#define RDSD_IB_QUEUE_WRS	(RDSD_IB_SEND_RING - 1)
/* Work requests in flight on each: all but the drain's. */
#define RDSD_IB_SEND_SLOTS	(RDSD_IB_SEND_RING - 2)

/*
 * iWARP: regions an RDMA read's sink is registered in (ib_send.c), per
 * connection, and pages each maps at most.
 */
#define RDSD_IB_SINKS		16
#define RDSD_IB_SINK_PAGES	256
#define RDSD_IB_RECV_MAX	(RDSD_IB_RECV_RING - 2)
/*
 * Receive buffers a connection posts when it comes up.  The ring doubles,
 * up to RDSD_IB_RECV_MAX, each time the peer says it was short of
 * credits (RDSD_WIRE_F_MORE_BUFS): an idle connection holds
 * RDSD_IB_RECV_INIT buffers, a busy one what its traffic needed.
 */
#define RDSD_IB_RECV_INIT	4
/* Scatter/gather entries of a send: the header and a fragment's pages. */
#define RDSD_IB_SEND_SGE	8
/* Header slots are cache-line aligned, so DMA never shares a line. */
#define RDSD_IB_HDR_STRIDE	L1_CACHE_ALIGN(sizeof(struct rdsd_wire_hdr))

/*
 * Messages up to this size may share one SEND (a pack) with others sent
 * while an earlier SEND is in flight; RDSD_IB_PACKS pack buffers of
 * RDSD_IB_FRAG_SIZE bytes serve a connection.
 */
#define RDSD_IB_PACK_MAX	512
#define RDSD_IB_PACKS		16
/* Pack buffers made with the rings; more come when all are in flight. */
#define RDSD_IB_PACKS_INIT	1
/* Small messages waiting for the completion of their operation. */
#define RDSD_IB_OP_WAIT		64
/*
 * A pack leaves at a completion that finds no message waiting for its
 * operation, or holding this many messages.
 */
#define RDSD_IB_PACK_BATCH	8

/*
 * Cookies a connection remembers the peer's answer for (direct-mapped),
 * and control messages (MR_REQ, MR_ANS, MR_GRANT, MR_REVOKE) waiting for a
 * credit.
 */
#define RDSD_IB_GRANTS		64
#define RDSD_IB_CTL_RING	16

/* Request a completion at least every this many sends. */
#define RDSD_IB_SIGNAL_EVERY	16
/* Ask for an ack at least every this many messages (rdsd_ib_ack_req()). */
#define RDSD_IB_ACK_REQ_EVERY	16
/* Acknowledge after this many messages without waiting for the timer. */
#define RDSD_IB_ACK_EVERY	32

/* How long rdma_cm may take to resolve an address or a route. */
#define RDSD_IB_RESOLVE_MS	5000
/* How often the reaper looks whether a down path came back. */
#define RDSD_IB_PARK_POLL_MS	100
/*
 * Memory regions a device keeps for reuse once invalidated, by capacity:
 * RDSD_IB_MR_CACHE of each power of two from RDSD_IB_MR_MIN_PAGES pages
 * up, RDSD_IB_MR_CLASSES of them (16 to 512 pages).
 */
#define RDSD_IB_MR_MIN_PAGES	16
#define RDSD_IB_MR_CLASSES	6
#define RDSD_IB_MR_CACHE	8

/**
 * struct rdsd_ib_dev - one RDMA device the transport uses
 * @node: on rdsd_ib_devs (rdsd_ib_devs_mutex).
 * @kref: the device list's reference plus one per connection using it.
 * @ibdev: the device.
 * @pd: protection domain shared by every connection on the device.
 * @paths: connections using the device (rdsd_ib_devs_mutex).
 * @dying: being removed; no new connection or region may use it
 *	(rdsd_ib_devs_mutex; read under @reg_mutex too).
 * @max_send_sge: send scatter/gather entries per work request we use.
 * @max_rd_sge: the same for RDMA reads.
 * @max_frmr_pages: pages one fast registration may map.
 * @rd_atom: RDMA read / atomic depth offered to peers.
 * @iwarp: an iWARP device: no atomics, an RDMA read's sink is a region
 *	the peer may write (ib_send.c), registrations go on a queue pair
 *	rdma_cm connected (ib_mr.c).
 * @atomics: the device runs atomic operations.
 * @reg_mutex: serializes registrations: @reg_qp, @reg_cq, @reg_key, @mrs.
 * @reg_qp: queue pair connected to itself that carries the device's
 *	registrations and invalidations (ib_mr.c), NULL until first needed.
 * @reg_cq: its completion queue.
 * @reg_loop: iWARP: the connection to itself whose queue pair is @reg_qp
 *	(ib_mr.c); @loop_mutex, and @reg_mutex to change.
 * @loop_mutex: serializes making and destroying @reg_loop; taken before
 *	@reg_mutex.
 * @reg_key: key byte of the next registration.
 * @mrs: regions registered with the device (struct rdsd_ib_mr.item).
 * @mr_cache: invalidated memory regions kept for the next registrations,
 *	by capacity class (ib_mr.c); @reg_mutex.  Emptied when the device
 *	goes, before its protection domain.
 * @mr_cached: entries of each class of @mr_cache.
 * @mr_cache_key0: key byte of each cached region's first registration.
 * @parked: iWARP: queue pairs of abandoned attempts that wait for their
 *	rdma_cm ids to go before they do (ib_cm.c); the device's removal
 *	waits for them.
 */
struct rdsd_ib_reg_loop;

struct rdsd_ib_dev {
	struct list_head	node;
	struct kref		kref;
	struct ib_device	*ibdev;
	struct ib_pd		*pd;
	struct list_head	paths;
	bool			dying;
	u32			max_send_sge;
	u32			max_rd_sge;
	u32			max_frmr_pages;
	u8			rd_atom;
	bool			iwarp;
	bool			atomics;
	struct mutex		reg_mutex;	/* see above */
	struct ib_qp		*reg_qp;
	struct ib_cq		*reg_cq;
	struct rdsd_ib_reg_loop	*reg_loop;
	struct mutex		loop_mutex;	/* see above */
	u8			reg_key;
	struct list_head	mrs;
	struct ib_mr		*mr_cache[RDSD_IB_MR_CLASSES][RDSD_IB_MR_CACHE];
	u8			mr_cached[RDSD_IB_MR_CLASSES];
	u8			mr_cache_key0[RDSD_IB_MR_CLASSES][RDSD_IB_MR_CACHE];
	atomic_t		parked;
};

/**
 * struct rdsd_ib_mr - a region's registration with a device (rdsd_mr.tp)
 * @item: on @dev->mrs while registered (dev->reg_mutex).
 * @dev: the device, with a reference.
 * @mr: the fast registration memory region, NULL once invalidated.
 * @mr_class: its capacity class in dev->mr_cache, -1 for none.
 * @mr_key0: the key byte of @mr's first registration.
 * @rkey: its remote key, for good.
 * @revoked: peers were told to forget @rkey (dev->reg_mutex).
 * @sgt: the region's pages, mapped for DMA while @mapped.
 * @mapped: @sgt is mapped.
 *
 * Lifetime: from rdsd_ib_mr_register() to the region's release; the
 * device part (@mr, the mapping, @item) goes earlier when the region is
 * freed or the device removed.
 */
struct rdsd_ib_mr {
	struct list_head	item;
	struct rdsd_ib_dev	*dev;
	struct ib_mr		*mr;
	s8			mr_class;
	u8			mr_key0;
	u32			rkey;
	bool			revoked;
	struct sg_table		sgt;
	bool			mapped;
};

/**
 * struct rdsd_ib_grant - what a peer said a cookie of its own stands for
 * @cookie: the cookie, 0 for a free entry.
 * @rkey: the device key of the peer's region.
 * @len: the region's length.
 * @dport: the port of the region's owner: operations must go there.
 * @sport: the only local port that may use it, 0 for any.
 * @flags: RDSD_WIRE_F_MR_RO, RDSD_WIRE_F_MR_ONCE.
 */
struct rdsd_ib_grant {
	u64	cookie;
	u32	rkey;
	u32	len;
	__be16	dport;
	__be16	sport;
	u16	flags;
};

/* rdsd_ib_conn.state */
enum rdsd_ib_state {
	RDSD_IB_DOWN,		/* nothing allocated; a connect may be pending */
	RDSD_IB_ACTIVE,		/* our request: resolving or connecting */
	RDSD_IB_PASSIVE,	/* accepted the peer's request */
	RDSD_IB_UP,		/* established */
};

/**
 * struct rdsd_ib_send - one slot of the send ring
 * @cqe: completion entry of the work request.
 * @tp: owning connection.
 * @msg: message this work request carries a fragment of (a reference),
 *	or NULL for control messages and operations.
 * @op: operation this work request carries a piece of (a reference), or
 *	NULL.
 * @unmap: the last fragment: its completion unmaps @msg.
 * @op_last: the last piece of @op: its completion completes @op and
 *	unmaps its buffers.
 * @cong: a congestion map update.
 * @sink: iWARP: an RDMA read into sink region @sink - 1 of the
 *	connection, which its completion frees; 0 for none.
 * @pack: pack buffer this send carries, or -1.
 * @wr: the work request; @rdma and @atomic for operations, @reg for the
 *	registration of a read's sink.
 * @sge: its scatter/gather list.
 */
struct rdsd_ib_send {
	struct ib_cqe		cqe;
	struct rdsd_ib_conn	*tp;
	struct rdsd_msg		*msg;
	struct rdsd_op		*op;
	bool			unmap;
	bool			op_last;
	bool			cong;
	u8			sink;
	int			pack;
	union {
		struct ib_send_wr	wr;
		struct ib_rdma_wr	rdma;
		struct ib_atomic_wr	atomic;
		struct ib_reg_wr	reg;
	};
	struct ib_sge		sge[RDSD_IB_SEND_SGE];
};

/**
 * struct rdsd_ib_recv - one buffer of the receive ring
 * @cqe: completion entry of the work request.
 * @tp: owning connection.
 * @buf: payload buffer, RDSD_IB_FRAG_SIZE bytes.
 * @dma: its mapping.
 * @posted: on the queue pair's receive queue.
 */
struct rdsd_ib_recv {
	struct ib_cqe		cqe;
	struct rdsd_ib_conn	*tp;
	void			*buf;
	u64			dma;
	bool			posted;
};

/**
 * struct rdsd_ib_sg_cur - where the next fragment's bytes are in a message
 * @sg: mapped entry holding them.
 * @start: offset of @sg in the message.
 * @left: mapped entries from @sg on.
 */
struct rdsd_ib_sg_cur {
	struct scatterlist	*sg;
	u32			start;
	int			left;
};

/**
 * struct rdsd_ib_credits - send credits of one connection
 * @avail: receive buffers of the peer we may send into; at most @max.
 * @adv: receive buffers we posted and have not told the peer about.
 * @max: receive buffers the peer may grow its ring to, as its connection
 *	private data said (recv_max).
 * @peer_bufs: receive buffers the peer said it posted in all, in its
 *	private data and then in every header (bufs).
 * @asked: @peer_bufs when we last asked for more: one request per size,
 *	0 for none.
 * @want: ask for more buffers (RDSD_WIRE_F_MORE_BUFS) on the next header.
 *
 * All under rdsd_ib_conn.send_lock.
 */
struct rdsd_ib_credits {
	u32	avail;
	u32	adv;
	u32	max;
	u32	peer_bufs;
	u32	asked;
	bool	want;
};

/**
 * struct rdsd_ib_park - an iWARP attempt's queue pair, waiting for its id
 * @qp: the queue pair, drained; destroyed after the attempt's rdma_cm id
 *	(ib_cm.c, rdsd_ib_teardown_locked()), or NULL.
 * @send_cq: its send completion queue.
 * @recv_cq: its receive completion queue.
 * @dev: their device, with a reference counted in its @parked
 *	(rdsd_ib_dev_park()).
 */
struct rdsd_ib_park {
	struct ib_qp		*qp;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct rdsd_ib_dev	*dev;
};

/**
 * struct rdsd_ib_conn - IB state of one connection (rdsd_conn.tp)
 *
 * Lifetime: allocated by ->conn_alloc with the connection, freed by
 * ->conn_free after ->conn_shutdown destroyed every rdma_cm id that points
 * here and stopped every work item.  Everything a connected queue pair
 * needs (the id, queue pair, completion queues, rings, the device
 * reference) is set up per connection attempt and released by
 * rdsd_ib_teardown_locked().
 *
 * @conn: the connection.
 * @cm_mutex: serializes the connection state machine: rdma_cm events,
 *	the connect, reset and shutdown paths, device removal.
 * @state: enum rdsd_ib_state (cm_mutex).
 * @dead: ->conn_shutdown ran; nothing is set up again (cm_mutex).
 * @gen: bumped for every attempt; a reset request for an older attempt
 *	is ignored.
 * @reset_gen: attempt a reset was requested for.
 * @cm_id: rdma_cm id of the current attempt (cm_mutex).
 * @old_ids: ids of abandoned attempts (struct rdsd_ib_old_id, cm_mutex),
 *	destroyed by @reap_work; on iWARP each with the queue pair and
 *	completion queues of its attempt.
 * @park: iWARP: what teardown left for the torn down attempt's id to
 *	take along (cm_mutex): the iWARP connection manager holds a queue
 *	pair until its id is destroyed or its connection closes, which may
 *	take the very work a destroy would wait in.
 * @dev: device of the current attempt, with a reference (cm_mutex).
 * @memcg: memory cgroup the rings are charged to: the sender's whose
 *	message made the connection, with a reference; NULL when a peer's
 *	request made it.
 * @uid: user whose send made the connection, INVALID_UID for a peer's
 *	request: whose RDSD_USER_ATTEMPTS its attempts count against.
 * @holds_attempt: the attempt counts against RDSD_MAX_ATTEMPTS and
 *	@uid's RDSD_USER_ATTEMPTS (cm_mutex).
 * @peer_stale: an established queue pair was torn down without a DREQ
 *	(the path was down): the peer may still think it up and wait for
 *	an acknowledgment or an answer, so the path is not parked until the
 *	peer is heard from again (cm_mutex).
 * @dev_item: on @dev->paths.
 * @qp: queue pair of the current attempt.
 * @send_cq: its send completion queue.
 * @sinks: iWARP: memory regions of RDMA read sinks, allocated with the
 *	rings of each attempt (ib_send.c).
 * @sinks_free: bit i set while @sinks[i] is free (@send_lock).
 * @sink_pages: pages each of @sinks maps at most.
 * @fence_next: iWARP: a read was posted last; the next work request
 *	is fenced behind it (rdsd_ib_post(), @send_lock).
 * @recv_cq: its receive completion queue.
 * @connect_work: starts an attempt, after the reconnect delay.
 * @reset_work: tears an attempt down after an error, then reconnects.
 * @reap_work: destroys @old_ids, or polls until the path allows it.
 * @ack_work: sends an acknowledgment nothing else carried, and retires
 *	the sends that hold references with no completion coming for them
 *	(@tail_refs).
 * @cong_work: sends the local congestion map after a change: a change
 *	comes under rs->recv_lock, which nests inside @send_lock (rdsd.h).
 * @grow_work: posts more receive buffers (@grow, RDSD_IB_GROW_RECV) or
 *	makes another pack buffer (RDSD_IB_GROW_PACK), in process context.
 * @grow: what @grow_work is to do (atomic bits).
 * @backoff_ms: next reconnect delay.
 * @attempts: connection attempts made.
 * @incarnation: ours, see struct rdsd_ib_cm_data.
 * @peer_incarnation: the peer's, as last heard.
 * @peer_local: the peer address is one of ours: the congestion map is
 *	shared and no updates travel.
 * @atomics: whether the device of our address runs atomics: 0 not known
 *	yet, 1 yes, -1 no (rdsd_ib_op_check(); set again by each attempt).
 * @peer: private data the peer sent for the current attempt.
 * @send_lock: protects the send ring, @credits, @tx_ready, @rx_stopped,
 *	@tx_wait_hello, @tx_blocked, the congestion and pack state, @op_wait,
 *	@grants, @ctl and the acknowledgment state.
 * @tx_ready: the queue pair takes sends.
 * @rx_stopped: the queue pair is being drained: a receive completion does
 *	not post its buffer again, so nothing is posted behind the drain's
 *	own request and every buffer is back when ib_drain_qp() returns.
 *	Cleared by rdsd_ib_rings_alloc() for the next attempt.
 * @tx_wait_hello: accepted side: sends start when the peer's first
 *	message shows it is ready to receive ours.
 * @tx_blocked: a send waited for credits or slots; kick when they return.
 * @cong_pending: a congestion map update is owed.
 * @cong_busy: a congestion map update is in flight.
 * @credits: send credits.
 * @send_head: next send slot to use (free running).
 * @send_tail: oldest send slot not completed (free running).
 * @unsignaled: sends posted since the last one that asked for a completion.
 * @tail_refs: one of those holds a message or an operation: until a
 *	later send asks for a completion, nothing releases it.
 * @sig_inflight: posted sends that asked for a completion, not completed:
 *	while there is one, small messages wait in the open pack for it.
 * @pack_open: small messages are collected for one SEND, not yet posted.
 *	While it is open one send slot stays free for it: whatever posts
 *	flushes it first or leaves that slot.
 * @pack_idx: its pack buffer.
 * @pack_hdr: its first header, copied to the slot when it is posted.
 * @pack_len: bytes in the pack buffer (the first header is in @pack_hdr).
 * @pack_last: offset of the last header in the pack buffer, or -1 when it
 *	is @pack_hdr.
 * @pack_msgs: messages in it.
 * @pack_busy: pack buffers in use (bit per buffer).
 * @pack_nr: pack buffers made, the first @pack_nr of @pack_buf.
 * @pack_buf: pack buffers, RDSD_IB_FRAG_SIZE bytes each.
 * @pack_dma: their mappings.
 * @op_wait: small messages whose operations were posted, oldest first,
 *	each with the send slot that follows its operation: a message goes
 *	to the pack once that slot's predecessors completed, so the peer
 *	gets it after the operation is done.  While one waits, every later
 *	message waits too (in this ring or in the connection's queue).
 * @op_wait_head: next free entry of @op_wait (free running).
 * @op_wait_tail: oldest waiting entry (free running).
 * @grants: the peer's answers to our MR_REQs on this queue pair, and the
 *	keys it sent ahead of its cookies (MR_GRANT), by hash of the
 *	cookie; each evicts the entry it lands on.
 * @ctl: control messages to send, oldest first: answers to the peer's
 *	MR_REQ (one at most: a correct peer waits for it), our MR_REQ (one
 *	at most), keys sent ahead (while half the entries stay free) and
 *	revocations (while two entries stay free).  Data waits until they
 *	went.
 * @ctl_head: next free entry of @ctl (free running).
 * @ctl_tail: oldest entry (free running).
 * @revoke_all: a revocation found @ctl full: after it drains, the peer is
 *	told to forget every grant.
 * @req_out: our MR_REQ for @req_cookie waits for its answer.
 * @req_cookie: the cookie asked about.
 * @req_dport: the port it was asked for.
 * @denied: a cookie the peer refused, for the operation that asked.
 * @tx_since_req: messages sent since the last ack request.
 * @rx_unacked: messages received since we last sent an acknowledgment.
 * @tx_big: a message of more than RDSD_IB_MAX_FRAGS fragments whose first
 *	went and whose rest goes as credits return (a reference), NULL when
 *	none; while there is one no other message is posted.  Its mapping
 *	goes with its last fragment's completion, or with the queue pair
 *	(rdsd_ib_big_drop()).
 * @tx_big_info: its header fields.
 * @tx_big_next: its next fragment to post.
 * @tx_big_nfrags: its fragments.
 * @tx_big_cur: where @tx_big_next's bytes are.
 * @sends: send ring.
 * @send_hdrs: header of every send slot, mapped at @send_hdrs_dma.
 * @cong_buf: snapshot of the local congestion map being sent.
 * @cong_dma: its mapping.
 * @recvs: receive ring, RDSD_IB_RECV_RING slots (RDSD_IB_RECV_MAX used).
 * @recv_nr: slots with a buffer, the first @recv_nr; each is posted but
 *	while its completion is handled.  Grows only, by @grow_work under
 *	cm_mutex and send_lock; read locklessly by receive completions.
 * @recv_hdrs: header of every receive slot, mapped at @recv_hdrs_dma.
 * @rx_msg: message being reassembled, NULL while @rx_skip or idle.
 * @rx_rs: the socket that room was reserved in for @rx_msg, a message of
 *	more than RDSD_MAX_MSG_SIZE bytes (rdsd_recv_reserve()), with a
 *	reference; NULL for a smaller one.
 * @rx_fill: where the next bytes of such a message go.
 * @rx_active: a message's fragments are arriving.
 * @rx_skip: the message being received was delivered before: drop it.
 * @rx_seq: sequence number of the message being received.
 * @rx_len: its length.
 * @rx_off: bytes of it received.
 */
struct rdsd_ib_conn {
	struct rdsd_conn	*conn;

	struct mutex		cm_mutex;	/* see above */
	int			state;
	bool			dead;
	u32			gen;
	u32			reset_gen;
	struct rdma_cm_id	*cm_id;
	struct list_head	old_ids;
	struct rdsd_ib_park	park;
	struct rdsd_ib_dev	*dev;
	struct mem_cgroup	*memcg;
	kuid_t			uid;
	bool			holds_attempt;
	bool			peer_stale;
	struct list_head	dev_item;
	struct ib_qp		*qp;
	struct ib_cq		*send_cq;
	struct ib_mr		*sinks[RDSD_IB_SINKS];
	unsigned long		sinks_free;
	u32			sink_pages;
	bool			fence_next;
	struct ib_cq		*recv_cq;
	struct delayed_work	connect_work;
	struct work_struct	reset_work;
	struct delayed_work	reap_work;
	struct delayed_work	ack_work;
	struct work_struct	cong_work;
	struct delayed_work	grow_work;
	unsigned long		grow;
	unsigned int		backoff_ms;
	u32			attempts;
	u64			incarnation;
	u64			peer_incarnation;
	bool			peer_local;
	s8			atomics;
	struct rdsd_ib_cm_data	peer;

	spinlock_t		send_lock;	/* see above */
	bool			tx_ready;
	bool			rx_stopped;
	bool			tx_wait_hello;
	bool			tx_blocked;
	bool			cong_pending;
	bool			cong_busy;
	struct rdsd_ib_credits	credits;
	u32			send_head;
	u32			send_tail;
	u32			unsignaled;
	bool			tail_refs;
	u32			sig_inflight;
	bool			pack_open;
	int			pack_idx;
	struct rdsd_wire_hdr	pack_hdr;
	u32			pack_len;
	int			pack_last;
	u32			pack_msgs;
	unsigned long		pack_busy;
	u32			pack_nr;
	void			*pack_buf[RDSD_IB_PACKS];
	u64			pack_dma[RDSD_IB_PACKS];
	struct {
		struct rdsd_msg	*msg;
		u32		end;
	}			op_wait[RDSD_IB_OP_WAIT];
	u32			op_wait_head;
	u32			op_wait_tail;
	u32			ctl_head;
	u32			ctl_tail;
	bool			revoke_all;
	bool			req_out;
	u64			req_cookie;
	__be16			req_dport;
	u64			denied;
	u32			tx_since_req;
	u32			rx_unacked;
	struct rdsd_msg		*tx_big;
	struct rdsd_wire_info	tx_big_info;
	u32			tx_big_next;
	u32			tx_big_nfrags;
	struct rdsd_ib_sg_cur	tx_big_cur;
	struct rdsd_ib_send	*sends;
	void			*send_hdrs;
	u64			send_hdrs_dma;
	void			*cong_buf;
	u64			cong_dma;

	struct rdsd_ib_recv	*recvs;
	u32			recv_nr;
	void			*recv_hdrs;
	u64			recv_hdrs_dma;
	struct rdsd_msg		*rx_msg;
	bool			rx_active;
	bool			rx_skip;
	u64			rx_seq;
	u32			rx_len;
	u32			rx_off;
	struct rdsd_sock	*rx_rs;
	struct rdsd_msg_fill	rx_fill;

	/* cold, and large: after what every send and receive touches */
	struct rdsd_ib_grant	grants[RDSD_IB_GRANTS];
	struct rdsd_wire_info	ctl[RDSD_IB_CTL_RING];
};

/**
 * struct rdsd_ib_rx_sum - what one receive buffer said
 * @credits: credits returned.
 * @ack: highest acknowledgment, valid with @ack_valid.
 * @ack_valid: an acknowledgment came.
 * @ack_req: the peer asked for an ack.
 * @delivered: whole messages received.
 * @bufs: receive buffers the peer posted in all, as its last header said.
 * @more_bufs: the peer asks for more receive buffers.
 * @mr: an MR_REQ, MR_ANS or MR_REVOKE that came, or type 0.
 */
struct rdsd_ib_rx_sum {
	u32			credits;
	u64			ack;
	bool			ack_valid;
	bool			ack_req;
	u32			delivered;
	u32			bufs;
	bool			more_bufs;
	struct rdsd_wire_info	mr;
};

/* rdsd_ib_conn.grow bits */
enum {
	RDSD_IB_GROW_RECV,
	RDSD_IB_GROW_PACK,
};

#define RDSD_IB_SEND_MASK	(RDSD_IB_SEND_RING - 1)
#define RDSD_IB_CONG_BYTES	(RDSD_NR_PORTS / 8)

/* Send slot @i (a free-running index). */
static inline struct rdsd_ib_send *rdsd_ib_slot(struct rdsd_ib_conn *tp, u32 i)
{
	return &tp->sends[i & RDSD_IB_SEND_MASK];
}

/* Send slots not holding a work request. */
static inline u32 rdsd_ib_send_free(const struct rdsd_ib_conn *tp)
{
	return RDSD_IB_SEND_SLOTS - (tp->send_head - tp->send_tail);
}

/* Header of send slot @i. */
static inline struct rdsd_wire_hdr *
rdsd_ib_slot_hdr(struct rdsd_ib_conn *tp, u32 i)
{
	return tp->send_hdrs + (i & RDSD_IB_SEND_MASK) * RDSD_IB_HDR_STRIDE;
}

/* DMA direction of an operation's local buffers. */
static inline enum dma_data_direction rdsd_ib_op_dir(const struct rdsd_op *op)
{
	return op->kind == RDSD_OP_WRITE ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
}

/* Index of receive buffer @r in its ring. */
static inline u32 rdsd_ib_recv_index(struct rdsd_ib_conn *tp,
				     struct rdsd_ib_recv *r)
{
	return r - tp->recvs;
}

extern const struct rdsd_transport_ops rdsd_ib_transport;

/* ib.c */
extern unsigned int rdsd_ib_nr_paths;
struct rdsd_ib_dev *rdsd_ib_dev_find(const struct in6_addr *addr, int scope,
				     u32 *port);
void rdsd_ib_cq_quiesce(void);
int rdsd_ib_op_check(struct rdsd_conn *conn, u8 kind);
void rdsd_ib_dev_put(struct rdsd_ib_dev *dev);
int rdsd_ib_dev_info(u32 *index, struct rdsd_dev_info *di);
int rdsd_ib_dev_attach(struct rdsd_ib_conn *tp, struct ib_device *ibdev);
void rdsd_ib_dev_detach(struct rdsd_ib_conn *tp);
void rdsd_ib_dev_park(struct rdsd_ib_dev *dev);
void rdsd_ib_dev_unpark(struct rdsd_ib_dev *dev);
void rdsd_ib_dev_revoke(struct rdsd_ib_dev *dev, struct rdsd_mr *mr);
bool rdsd_ib_path_usable(const struct rdsd_conn *conn);
u16 rdsd_ib_listen_port(void);
int rdsd_ib_init(void);
void rdsd_ib_stop_listening(void);
void rdsd_ib_exit(void);

/* ib_cm.c */
int rdsd_ib_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
void rdsd_ib_request_reset(struct rdsd_ib_conn *tp, int why);
int rdsd_ib_conn_alloc(struct rdsd_conn *conn, gfp_t gfp);
void rdsd_ib_conn_free(struct rdsd_conn *conn);
int rdsd_ib_conn_connect(struct rdsd_conn *conn);
void rdsd_ib_conn_shutdown(struct rdsd_conn *conn);
void rdsd_ib_conn_info(struct rdsd_conn *conn, struct rdsd_conn_info *ci);
int rdsd_ib_conn_drop(struct rdsd_conn *conn);
bool rdsd_ib_conn_idle(struct rdsd_conn *conn);

/* ib_ring.c: the send and receive rings; send_lock held */
int rdsd_ib_rings_alloc(struct rdsd_ib_conn *tp);
void rdsd_ib_rings_free(struct rdsd_ib_conn *tp);
int rdsd_ib_bufs_alloc(struct rdsd_ib_conn *tp);
int rdsd_ib_recv_post_all(struct rdsd_ib_conn *tp);
int rdsd_ib_recv_post(struct rdsd_ib_conn *tp, struct rdsd_ib_recv *r);
void rdsd_ib_grow(struct rdsd_ib_conn *tp, int what);
void rdsd_ib_grow_worker(struct work_struct *work);
void rdsd_ib_slot_prep(struct rdsd_ib_send *s);
void rdsd_ib_hdr_set(struct rdsd_ib_conn *tp, u32 i);
void rdsd_ib_hdr_prep(struct rdsd_ib_conn *tp, u32 i,
		      const struct rdsd_wire_info *info);
void rdsd_ib_slot_release(struct rdsd_ib_conn *tp, struct rdsd_ib_send *s,
			  int status);
void rdsd_ib_post(struct rdsd_ib_conn *tp, u32 n);
void rdsd_ib_signal(struct rdsd_ib_conn *tp, struct rdsd_ib_send *s,
		    bool force);
bool rdsd_ib_tail_stuck(const struct rdsd_ib_conn *tp);
void rdsd_ib_tail_check(struct rdsd_ib_conn *tp);

/* ib_send.c */
void rdsd_ib_tx_start(struct rdsd_ib_conn *tp,
		      const struct rdsd_ib_cm_data *peer);
void rdsd_ib_tx_arm(struct rdsd_ib_conn *tp,
		    const struct rdsd_ib_cm_data *peer);
void rdsd_ib_bufs_posted(struct rdsd_ib_conn *tp, u32 n);
void rdsd_ib_tx_stop(struct rdsd_ib_conn *tp);
int rdsd_ib_xmit(struct rdsd_conn *conn, struct rdsd_msg *msg);
void rdsd_ib_send_done(struct ib_cq *cq, struct ib_wc *wc);
bool rdsd_ib_tx_after_rx(struct rdsd_ib_conn *tp,
			 const struct rdsd_ib_rx_sum *sum,
			 struct rdsd_ib_recv *r, bool kick);
void rdsd_ib_cong_changed(struct rdsd_conn *conn);
void rdsd_ib_ack_worker(struct work_struct *work);
void rdsd_ib_cong_worker(struct work_struct *work);
void rdsd_ib_pack_drop(struct rdsd_ib_conn *tp);
void rdsd_ib_big_drop(struct rdsd_ib_conn *tp);
void rdsd_ib_send_ctl(struct rdsd_ib_conn *tp);
u32 rdsd_ib_ctl_count(const struct rdsd_ib_conn *tp, u8 type);
void rdsd_ib_ctl_push(struct rdsd_ib_conn *tp,
		      const struct rdsd_wire_info *info);

/* ib_recv.c */
void rdsd_ib_recv_done(struct ib_cq *cq, struct ib_wc *wc);
void rdsd_ib_rx_reset(struct rdsd_ib_conn *tp);

/* ib_mr.c */
int rdsd_ib_mr_register(struct rdsd_sock *rs, struct rdsd_mr *mr);
void rdsd_ib_mr_unregister(struct rdsd_mr *mr);
void rdsd_ib_mr_release(struct rdsd_mr *mr);
void rdsd_ib_mr_dev_remove(struct rdsd_ib_dev *dev);
bool rdsd_ib_mr_grant(struct rdsd_ib_conn *tp, struct rdsd_mr *mr,
		      const struct rdsd_mr_peer *peer,
		      struct rdsd_wire_info *ans);
int rdsd_ib_op_resolve(struct rdsd_ib_conn *tp, struct rdsd_msg *msg);
void rdsd_ib_grant_used(struct rdsd_ib_conn *tp, const struct rdsd_op *op);
void rdsd_ib_mr_revoke(struct rdsd_ib_conn *tp, struct rdsd_mr *mr);
void rdsd_ib_mr_grant_ahead(struct rdsd_ib_conn *tp, struct rdsd_msg *msg);
int rdsd_ib_mr_recv(struct rdsd_ib_conn *tp, const struct rdsd_wire_info *info,
		    bool *kick);

/* pure protocol rules, reached by the KUnit suites */
bool rdsd_ib_credits_ok(const struct rdsd_ib_credits *c, u32 n);
void rdsd_ib_credits_take(struct rdsd_ib_credits *c, u32 n, u32 *adv);
void rdsd_ib_credits_add(struct rdsd_ib_credits *c, u32 n);
void rdsd_ib_credits_short(struct rdsd_ib_credits *c);
u32 rdsd_ib_ack_credits(u32 recv_nr);
int rdsd_ib_cm_data_check(const struct rdsd_ib_cm_data *d, u8 len);
int rdsd_ib_op_status(enum ib_wc_status status);
int rdsd_ib_frag_check(bool active, u64 seq, u32 len, u32 off,
		       const struct rdsd_wire_info *info);
#if IS_ENABLED(CONFIG_KUNIT)
u32 rdsd_ib_frags_room(const struct rdsd_ib_conn *tp, u32 nwr);
u32 rdsd_ib_sink_runs(const struct rdsd_ib_conn *tp, struct scatterlist *sg,
		      u32 count, bool dma);
#endif
int rdsd_ib_grant_check(const struct rdsd_ib_grant *g,
			const struct rdsd_op *op, __be16 sport, __be16 dport);

#endif /* _RDSD_IB_H */
