/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca wire format.
 *
 * Every message that crosses a host boundary starts with struct
 * rdsd_wire_hdr: fixed size, big-endian, versioned, with reserved bytes
 * that must be zero.  A message larger than one receive buffer travels as
 * fragments, each with its own header repeating the message's sequence
 * number and total length and giving the fragment's offset.  Every field
 * is checked by rdsd_wire_validate() before anything else looks at it.
 *
 * Documentation/wire-protocol.rst has the same table for readers.
 */
#ifndef _RDSD_WIRE_H
#define _RDSD_WIRE_H

#include <linux/types.h>

#define RDSD_WIRE_MAGIC		0x52445344	/* "RDSD" */
#define RDSD_WIRE_VERSION	6

/* rdsd_wire_hdr.type */
enum rdsd_wire_type {
	RDSD_WIRE_DATA	= 1,	/* a fragment of a datagram */
	RDSD_WIRE_ACK	= 2,	/* acknowledgment and credits only */
	RDSD_WIRE_CONG	= 3,	/* congestion map update: payload is a map */
	RDSD_WIRE_PING	= 4,	/* probe; answered with RDSD_WIRE_PONG */
	RDSD_WIRE_PONG	= 5,
	RDSD_WIRE_MR_REQ = 6,	/* which device key does a cookie stand for? */
	RDSD_WIRE_MR_ANS = 7,	/* the answer: a key and the region's rights */
	RDSD_WIRE_MR_REVOKE = 8, /* forget what a cookie resolved to */
	RDSD_WIRE_MR_GRANT = 9,	/* an MR_ANS nobody asked for, ahead of a cookie */
	RDSD_WIRE_RDMA_REQ = 10, /* TCP: run an operation on a region of yours */
	RDSD_WIRE_RDMA_RESP = 11, /* TCP: its outcome, and what it read */
	__RDSD_WIRE_TYPE_MAX,
};

/* rdsd_wire_hdr.flags */
#define RDSD_WIRE_F_ACK_REQ	0x0001	/* the sender wants an ack soon */
#define RDSD_WIRE_F_ACK_VALID	0x0002	/* @ack carries an acknowledgment */
#define RDSD_WIRE_F_LAST_FRAG	0x0004	/* last fragment of the message */
#define RDSD_WIRE_F_MORE	0x0008	/* another header follows the payload */
#define RDSD_WIRE_F_RDMA_DEST	0x0010	/* @rdma_cookie names a sender's region */
#define RDSD_WIRE_F_RDMA_USED	0x0020	/* an operation used region @rdma_key */
#define RDSD_WIRE_F_SILENT	0x0040	/* counts, but is not delivered */
#define RDSD_WIRE_F_MR_RO	0x0080	/* MR_ANS, MR_GRANT: region is read-only */
#define RDSD_WIRE_F_MR_ONCE	0x0100	/* MR_ANS, MR_GRANT: good for one op */
#define RDSD_WIRE_F_MORE_BUFS	0x0200	/* short of credits: post more buffers */
#define RDSD_WIRE_F_ALL		0x03ff

/**
 * struct rdsd_wire_hdr - header of every message fragment (64 bytes)
 * @magic: RDSD_WIRE_MAGIC.
 * @version: RDSD_WIRE_VERSION.
 * @type: enum rdsd_wire_type.
 * @flags: RDSD_WIRE_F_* bits; unknown bits are refused.
 * @seq: sequence number of the message on its connection (DATA, CONG;
 *	never U64_MAX for DATA); zero for the other types.
 * @ack: highest sequence number the sender has delivered, valid with
 *	RDSD_WIRE_F_ACK_VALID.
 * @len: total payload length of the message, at most 1 MiB; in a granting
 *	MR_ANS and in MR_GRANT the region's length instead (no payload
 *	follows).
 * @frag_off: offset of this fragment's payload in the message.
 * @frag_len: payload bytes following this header.
 * @sport: source port; in MR_REQ the port of the socket that asks, in
 *	MR_ANS and MR_GRANT the only port the grant is good for, 0 for any.
 * @dport: destination port; in MR_REQ, MR_ANS and MR_GRANT the port the
 *	operation is addressed to, the region owner's.
 * @credits: receive buffers the sender posted since it last said so.
 * @bufs: receive buffers the sender has posted in all (its receive ring,
 *	which grows when the peer asks with RDSD_WIRE_F_MORE_BUFS).
 * @reserved: zero.
 * @rdma_cookie: DATA: with RDSD_WIRE_F_RDMA_DEST, a cookie of the sender's
 *	the receiver is told of (RDS_CMSG_RDMA_DEST); else zero.  MR_REQ,
 *	MR_ANS: the cookie asked about (never zero).  MR_GRANT: the cookie
 *	a DATA message that follows names (never zero).  MR_REVOKE: the cookie
 *	no longer good, or zero for every cookie the sender granted.
 * @rdma_key: DATA: with RDSD_WIRE_F_RDMA_USED, the cookie key of the
 *	receiver's region an RDMA or atomic operation riding on this message
 *	used before it: a RDS_RDMA_USE_ONCE region is freed on arrival.
 *	MR_ANS: the device's remote key of the region, zero for a refusal.
 *	MR_GRANT: the device's remote key of the region, never zero.
 *	Else zero.
 * @reserved2: zero.
 */
struct rdsd_wire_hdr {
	__be32	magic;
	__u8	version;
	__u8	type;
	__be16	flags;
	__be64	seq;
	__be64	ack;
	__be32	len;
	__be32	frag_off;
	__be16	sport;
	__be16	dport;
	__be32	frag_len;
	__be16	credits;
	__be16	bufs;
	__u8	reserved[4];
	__be64	rdma_cookie;
	__be32	rdma_key;
	__be32	reserved2;
};

/* rdsd_wire_rdma_req.kind: enum rdsd_op_kind, fixed on the wire */
#define RDSD_WIRE_OP_READ		0
#define RDSD_WIRE_OP_WRITE		1
#define RDSD_WIRE_OP_FADD		2
#define RDSD_WIRE_OP_CSWP		3
#define RDSD_WIRE_OP_MASKED_FADD	4
#define RDSD_WIRE_OP_MASKED_CSWP	5

/**
 * struct rdsd_wire_rdma_req - what an RDMA_REQ frame asks (64 bytes)
 * @id: the request's number on this TCP connection: the first is 1, each
 *	next one is one more.
 * @cookie: the region's cookie, as the owner handed it out.
 * @raddr: remote address of the first byte: the cookie's high half plus
 *	the address the program gave.
 * @bytes: bytes the operation touches: 1 to RDS_DOCA_MAX_RDMA_SIZE for a
 *	read or a write, 8 for an atomic.
 * @kind: RDSD_WIRE_OP_*.
 * @reserved0: zero.
 * @reserved1: zero.
 * @args: an atomic's operands, as struct rdsd_op keeps them; zero else.
 *
 * The frame's header has no sequence number and no cookie; its ports are
 * the asking socket's (@sport) and the region owner's (@dport), its
 * @len and @frag_len the bytes that follow it: this descriptor, then a
 * write's @bytes of data.
 */
struct rdsd_wire_rdma_req {
	__be64	id;
	__be64	cookie;
	__be64	raddr;
	__be32	bytes;
	__u8	kind;
	__u8	reserved0;
	__be16	reserved1;
	__be64	args[4];
};

/**
 * struct rdsd_wire_rdma_resp - what an RDMA_RESP frame answers (32 bytes)
 * @id: the request answered: the oldest one not answered yet.
 * @value: an atomic's target word as it was before, on success.
 * @status: RDS_RDMA_SUCCESS, RDS_RDMA_REMOTE_ERROR (the region refused
 *	the operation) or RDS_RDMA_OTHER_ERROR (the owner had no memory
 *	for it).
 * @reserved: zero.
 *
 * The header's ports are zero; @len and @frag_len count this descriptor
 * and, for a read that succeeded, the @bytes it read.
 */
struct rdsd_wire_rdma_resp {
	__be64	id;
	__be64	value;
	__u8	status;
	__u8	reserved[15];
};

/**
 * struct rdsd_wire_info - a header in host order
 */
struct rdsd_wire_info {
	u8	type;
	u16	flags;
	u64	seq;
	u64	ack;
	u32	len;
	u32	frag_off;
	u32	frag_len;
	__be16	sport;
	__be16	dport;
	u16	credits;
	u16	bufs;
	u64	rdma_cookie;
	u32	rdma_key;
};

/* rdsd_ib_cm_data.reason: why a connection request was refused */
enum rdsd_ib_reject {
	RDSD_IB_REJ_NONE,
	RDSD_IB_REJ_VERSION,	/* protocol version not spoken */
	RDSD_IB_REJ_LIMITS,	/* offered credits or sizes unusable */
	RDSD_IB_REJ_RACE,	/* both ends connected; the lower address wins */
	RDSD_IB_REJ_STALE,	/* a connection is still up here; retry */
	RDSD_IB_REJ_NOTREADY,	/* no connection can be made now */
};

#define RDSD_IB_CM_VERSION	7

/**
 * struct rdsd_ib_cm_data - rdma_cm private data of REQ, REP and REJ
 * @magic: RDSD_WIRE_MAGIC.
 * @version: RDSD_IB_CM_VERSION.
 * @reason: enum rdsd_ib_reject in a REJ, else 0.
 * @flags: zero.
 * @credits: receive buffers the sender posted for this connection.
 * @frag_size: largest fragment payload the sender accepts.
 * @max_msg: largest message the sender accepts.
 * @recv_max: receive buffers the sender may grow its ring to.
 * @incarnation: identity of the sender's side of the connection, new
 *	every time it is created (module load, namespace).
 * @peer_incarnation: the peer incarnation @rx_next refers to, 0 if none.
 * @rx_next: next sequence number the sender expects from the peer.
 * @path: which of the paths between the two addresses this connection
 *	is, below RDSD_MAX_PATHS (8).
 * @paths: paths the sender would use, 1..RDSD_MAX_PATHS; both ends use
 *	the smaller of the two counts, which path 0 tells.
 * @tos: the type of service of the connection (SIOCRDSSETTOS): each has
 *	connections of its own; the answer repeats the request's.
 * @reserved: zero.
 *
 * 56 bytes: the room rdma_cm leaves in an IB CM REQ.  The IB/RoCE
 * transport's connection manager (ib_cm.c) sends and checks it.
 */
struct rdsd_ib_cm_data {
	__be32	magic;
	__u8	version;
	__u8	reason;
	__be16	flags;
	__be32	credits;
	__be32	frag_size;
	__be32	max_msg;
	__be32	recv_max;
	__be64	incarnation;
	__be64	peer_incarnation;
	__be64	rx_next;
	__u8	path;
	__u8	paths;
	__u8	tos;
	__u8	reserved[5];
};

/**
 * struct rdsd_tcp_hello - the first bytes each way of a TCP connection
 * @magic: RDSD_WIRE_MAGIC.
 * @version: RDSD_WIRE_VERSION, that of the frames that follow.
 * @tos: the type of service of the connection (SIOCRDSSETTOS): each has
 *	connections of its own; the answer repeats the connecting end's.
 * @flags: zero.
 * @max_msg: largest message the sender accepts.
 * @reserved1: zero.
 * @incarnation: identity of the sender's side of the connection, new
 *	every time it is created.
 * @peer_incarnation: the peer incarnation @rx_next refers to, 0 if none.
 * @rx_next: next sequence number the sender expects from the peer.
 * @path: which of the paths between the two addresses this connection
 *	is, below RDSD_MAX_PATHS.
 * @paths: paths the sender would use, 1..RDSD_MAX_PATHS.
 * @reserved: zero.
 *
 * 48 bytes.  The TCP transport (tcp.c) sends and checks it: the
 * connecting end first, the accepting end in answer.
 */
struct rdsd_tcp_hello {
	__be32	magic;
	__u8	version;
	__u8	tos;
	__be16	flags;
	__be32	max_msg;
	__be32	reserved1;
	__be64	incarnation;
	__be64	peer_incarnation;
	__be64	rx_next;
	__u8	path;
	__u8	paths;
	__u8	reserved[6];
};

void rdsd_wire_encode(struct rdsd_wire_hdr *hdr,
		      const struct rdsd_wire_info *info);
int rdsd_wire_validate(const struct rdsd_wire_hdr *hdr, size_t received,
		       struct rdsd_wire_info *info);

#endif /* _RDSD_WIRE_H */
