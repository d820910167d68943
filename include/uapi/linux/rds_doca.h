/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * rds_doca: reliable, in-order datagram sockets over RDMA.
 *
 * This header is the whole user ABI of the rds_doca module.  Its first part
 * is the RDS socket ABI: every number, structure and layout there is that of
 * Linux's <linux/rds.h>, so a program written for Linux RDS builds against
 * either header and runs against rds_doca loaded with family=21.  If
 * <linux/rds.h> was included first, that part is skipped (the two agree);
 * if this header comes first, a later <linux/rds.h> is skipped.
 *
 * The second part holds what rds_doca adds: the address family number it
 * registers by default and the names of its generic netlink family.
 */
#ifndef _UAPI_LINUX_RDS_DOCA_H
#define _UAPI_LINUX_RDS_DOCA_H

#include <linux/types.h>
#include <linux/socket.h>	/* struct __kernel_sockaddr_storage */
#include <linux/in6.h>		/* struct in6_addr */

#ifndef _LINUX_RDS_H
#define _LINUX_RDS_H

#define RDS_IB_ABI_VERSION		0x301

/* Socket option level (setsockopt/getsockopt) and cmsg_level. */
#define SOL_RDS				276

/* SOL_RDS socket options. */
#define RDS_CANCEL_SENT_TO		1	/* struct sockaddr_in */
#define RDS_GET_MR			2	/* struct rds_get_mr_args */
#define RDS_FREE_MR			3	/* struct rds_free_mr_args */
/* 4 was RDS_BARRIER, never implemented */
#define RDS_RECVERR			5	/* int, boolean */
#define RDS_CONG_MONITOR		6	/* int, boolean */
#define RDS_GET_MR_FOR_DEST		7	/* struct rds_get_mr_for_dest_args */
#define SO_RDS_TRANSPORT		8	/* int, RDS_TRANS_* */
#define SO_RDS_MSG_RXPATH_LATENCY	10	/* struct rds_rx_trace_so */

/* Transport numbers for SO_RDS_TRANSPORT. */
#define RDS_TRANS_IB			0
#define RDS_TRANS_GAP			1
#define RDS_TRANS_TCP			2
#define RDS_TRANS_COUNT			3
#define RDS_TRANS_NONE			(~0)
#define RDS_TRANS_IWARP			RDS_TRANS_GAP

/* Type of service ioctls. */
#define SIOCRDSSETTOS			(SIOCPROTOPRIVATE)
#define SIOCRDSGETTOS			(SIOCPROTOPRIVATE + 1)

typedef __u8 rds_tos_t;

/* Control message types (cmsg_level SOL_RDS). */
#define RDS_CMSG_RDMA_ARGS		1	/* send: struct rds_rdma_args */
#define RDS_CMSG_RDMA_DEST		2	/* send/recv: rds_rdma_cookie_t */
#define RDS_CMSG_RDMA_MAP		3	/* send: struct rds_get_mr_args */
#define RDS_CMSG_RDMA_STATUS		4	/* recv: struct rds_rdma_notify */
#define RDS_CMSG_CONG_UPDATE		5	/* recv: __u64 port mask */
#define RDS_CMSG_ATOMIC_FADD		6	/* send: struct rds_atomic_args */
#define RDS_CMSG_ATOMIC_CSWP		7
#define RDS_CMSG_MASKED_ATOMIC_FADD	8
#define RDS_CMSG_MASKED_ATOMIC_CSWP	9
#define RDS_CMSG_RXPATH_LATENCY		11	/* recv: struct rds_cmsg_rx_trace */
#define RDS_CMSG_ZCOPY_COOKIE		12	/* send: __u32 */
#define RDS_CMSG_ZCOPY_COMPLETION	13	/* recv: struct rds_zcopy_cookies */

/* getsockopt(SOL_RDS) information requests. */
#define RDS_INFO_FIRST			10000
#define RDS_INFO_COUNTERS		10000
#define RDS_INFO_CONNECTIONS		10001
/* 10002 was RDS_INFO_FLOWS */
#define RDS_INFO_SEND_MESSAGES		10003
#define RDS_INFO_RETRANS_MESSAGES	10004
#define RDS_INFO_RECV_MESSAGES		10005
#define RDS_INFO_SOCKETS		10006
#define RDS_INFO_TCP_SOCKETS		10007
#define RDS_INFO_IB_CONNECTIONS		10008
#define RDS_INFO_CONNECTION_STATS	10009
#define RDS_INFO_IWARP_CONNECTIONS	10010
#define RDS6_INFO_CONNECTIONS		10011
#define RDS6_INFO_SEND_MESSAGES		10012
#define RDS6_INFO_RETRANS_MESSAGES	10013
#define RDS6_INFO_RECV_MESSAGES		10014
#define RDS6_INFO_SOCKETS		10015
#define RDS6_INFO_TCP_SOCKETS		10016
#define RDS6_INFO_IB_CONNECTIONS	10017
#define RDS_INFO_LAST			10017

struct rds_info_counter {
	__u8	name[32];
	__u64	value;
} __attribute__((packed));

#define RDS_INFO_CONNECTION_FLAG_SENDING	0x01
#define RDS_INFO_CONNECTION_FLAG_CONNECTING	0x02
#define RDS_INFO_CONNECTION_FLAG_CONNECTED	0x04

#define TRANSNAMSIZ			16

struct rds_info_connection {
	__u64	next_tx_seq;
	__u64	next_rx_seq;
	__be32	laddr;
	__be32	faddr;
	__u8	transport[TRANSNAMSIZ];	/* NUL-terminated */
	__u8	flags;
	__u8	tos;
} __attribute__((packed));

struct rds6_info_connection {
	__u64		next_tx_seq;
	__u64		next_rx_seq;
	struct in6_addr	laddr;
	struct in6_addr	faddr;
	__u8		transport[TRANSNAMSIZ];	/* NUL-terminated */
	__u8		flags;
} __attribute__((packed));

#define RDS_INFO_MESSAGE_FLAG_ACK	0x01
#define RDS_INFO_MESSAGE_FLAG_FAST_ACK	0x02

struct rds_info_message {
	__u64	seq;
	__u32	len;
	__be32	laddr;
	__be32	faddr;
	__be16	lport;
	__be16	fport;
	__u8	flags;
	__u8	tos;
} __attribute__((packed));

struct rds6_info_message {
	__u64		seq;
	__u32		len;
	struct in6_addr	laddr;
	struct in6_addr	faddr;
	__be16		lport;
	__be16		fport;
	__u8		flags;
	__u8		tos;
} __attribute__((packed));

struct rds_info_socket {
	__u32	sndbuf;
	__be32	bound_addr;
	__be32	connected_addr;
	__be16	bound_port;
	__be16	connected_port;
	__u32	rcvbuf;
	__u64	inum;
} __attribute__((packed));

struct rds6_info_socket {
	__u32		sndbuf;
	struct in6_addr	bound_addr;
	struct in6_addr	connected_addr;
	__be16		bound_port;
	__be16		connected_port;
	__u32		rcvbuf;
	__u64		inum;
} __attribute__((packed));

struct rds_info_tcp_socket {
	__be32	local_addr;
	__be16	local_port;
	__be32	peer_addr;
	__be16	peer_port;
	__u64	hdr_rem;
	__u64	data_rem;
	__u32	last_sent_nxt;
	__u32	last_expected_una;
	__u32	last_seen_una;
	__u8	tos;
} __attribute__((packed));

struct rds6_info_tcp_socket {
	struct in6_addr	local_addr;
	__be16		local_port;
	struct in6_addr	peer_addr;
	__be16		peer_port;
	__u64		hdr_rem;
	__u64		data_rem;
	__u32		last_sent_nxt;
	__u32		last_expected_una;
	__u32		last_seen_una;
} __attribute__((packed));

#define RDS_IB_GID_LEN			16

struct rds_info_rdma_connection {
	__be32	src_addr;
	__be32	dst_addr;
	__u8	src_gid[RDS_IB_GID_LEN];
	__u8	dst_gid[RDS_IB_GID_LEN];
	__u32	max_send_wr;
	__u32	max_recv_wr;
	__u32	max_send_sge;
	__u32	rdma_mr_max;
	__u32	rdma_mr_size;
	__u8	tos;
	__u8	sl;
	__u32	cache_allocs;
};

struct rds6_info_rdma_connection {
	struct in6_addr	src_addr;
	struct in6_addr	dst_addr;
	__u8		src_gid[RDS_IB_GID_LEN];
	__u8		dst_gid[RDS_IB_GID_LEN];
	__u32		max_send_wr;
	__u32		max_recv_wr;
	__u32		max_send_sge;
	__u32		rdma_mr_max;
	__u32		rdma_mr_size;
	__u8		tos;
	__u8		sl;
	__u32		cache_allocs;
};

/* Receive path latency tracing (SO_RDS_MSG_RXPATH_LATENCY). */
enum rds_message_rxpath_latency {
	RDS_MSG_RX_HDR_TO_DGRAM_START = 0,
	RDS_MSG_RX_DGRAM_REASSEMBLE,
	RDS_MSG_RX_DGRAM_DELIVERED,
	RDS_MSG_RX_DGRAM_TRACE_MAX
};

struct rds_rx_trace_so {
	__u8 rx_traces;
	__u8 rx_trace_pos[RDS_MSG_RX_DGRAM_TRACE_MAX];
};

struct rds_cmsg_rx_trace {
	__u8 rx_traces;
	__u8 rx_trace_pos[RDS_MSG_RX_DGRAM_TRACE_MAX];
	__u64 rx_trace[RDS_MSG_RX_DGRAM_TRACE_MAX];
};

/* RDS_CMSG_CONG_UPDATE carries a mask of (port % 64) bits. */
#define RDS_CONG_MONITOR_SIZE		64
#define RDS_CONG_MONITOR_BIT(port)	(((unsigned int)port) % RDS_CONG_MONITOR_SIZE)
#define RDS_CONG_MONITOR_MASK(port)	(1ULL << RDS_CONG_MONITOR_BIT(port))

/* An RDMA cookie names a registered region: its key and an offset. */
typedef __u64 rds_rdma_cookie_t;

struct rds_iovec {
	__u64	addr;
	__u64	bytes;
};

struct rds_get_mr_args {
	struct rds_iovec	vec;
	__u64			cookie_addr;
	__u64			flags;
};

struct rds_get_mr_for_dest_args {
	struct __kernel_sockaddr_storage	dest_addr;
	struct rds_iovec			vec;
	__u64					cookie_addr;
	__u64					flags;
};

struct rds_free_mr_args {
	rds_rdma_cookie_t	cookie;
	__u64			flags;
};

struct rds_rdma_args {
	rds_rdma_cookie_t	cookie;
	struct rds_iovec	remote_vec;
	__u64			local_vec_addr;
	__u64			nr_local;
	__u64			flags;
	__u64			user_token;
};

struct rds_atomic_args {
	rds_rdma_cookie_t	cookie;
	__u64			local_addr;
	__u64			remote_addr;
	union {
		struct {
			__u64	compare;
			__u64	swap;
		} cswp;
		struct {
			__u64	add;
		} fadd;
		struct {
			__u64	compare;
			__u64	swap;
			__u64	compare_mask;
			__u64	swap_mask;
		} m_cswp;
		struct {
			__u64	add;
			__u64	nocarry_mask;
		} m_fadd;
	};
	__u64			flags;
	__u64			user_token;
};

struct rds_rdma_notify {
	__u64	user_token;
	__s32	status;
};

/* rds_rdma_notify.status */
#define RDS_RDMA_SUCCESS		0
#define RDS_RDMA_REMOTE_ERROR		1
#define RDS_RDMA_CANCELED		2
#define RDS_RDMA_DROPPED		3
#define RDS_RDMA_OTHER_ERROR		4

#define RDS_MAX_ZCOOKIES		8

struct rds_zcopy_cookies {
	__u32	num;
	__u32	cookies[RDS_MAX_ZCOOKIES];
};

/* Flags of rds_rdma_args, rds_atomic_args, rds_get_mr_args, rds_free_mr_args. */
#define RDS_RDMA_READWRITE		0x0001	/* write to the peer, else read */
#define RDS_RDMA_FENCE			0x0002	/* fence the message behind the op */
#define RDS_RDMA_INVALIDATE		0x0004	/* invalidate the key when freed */
#define RDS_RDMA_USE_ONCE		0x0008	/* free the region after one op */
#define RDS_RDMA_DONTWAIT		0x0010	/* unused */
#define RDS_RDMA_NOTIFY_ME		0x0020	/* post RDS_CMSG_RDMA_STATUS */
#define RDS_RDMA_SILENT			0x0040	/* no message to the peer */

#endif /* _LINUX_RDS_H */

/*
 * rds_doca's own part.
 */

/*
 * The address family rds_doca registers unless loaded with family=N.  25 is
 * AF_WANPIPE, which no mainline kernel implements; loaded with family=21
 * (AF_RDS) rds_doca stands in for Linux RDS.  The number in use is in
 * /sys/module/rds_doca/parameters/family.
 */
#define AF_INET_OFFLOAD			25
#define PF_INET_OFFLOAD			AF_INET_OFFLOAD

/*
 * Largest message payload: RDS_DOCA_MAX_MSG_SIZE unless raised, as Linux
 * RDS.  setsockopt(SOL_RDS, RDS_DOCA_MSG_MAX) sets a socket's own limit
 * (an int, 1 to RDS_DOCA_MSG_SIZE_LIMIT bytes), the module parameter
 * max_msg_size the limit sockets start with.  A message is also never
 * larger than half the socket's SO_SNDBUF, nor than its transport carries
 * (RDS_DOCA_MSG_SIZE_LIMIT): past any of them sendmsg() fails with
 * EMSGSIZE.  A message over RDS_DOCA_MAX_MSG_SIZE is delivered only to a
 * socket whose own limit holds it; others drop it (recv_drop_large).
 */
#define RDS_DOCA_MAX_MSG_SIZE		(1U << 20)
#define RDS_DOCA_MSG_SIZE_LIMIT		(64U << 20)

/*
 * Paths (IB queue pairs) one pair of addresses may have: the ib_paths
 * module parameter, 1 by default; a sending socket's bound port picks
 * one (RDS_DOCA_A_CONN_PATH names it).
 */
#define RDS_DOCA_MAX_PATHS		8
#define RDS_DOCA_MSG_MAX		65	/* int, bytes */

/* Largest registered region, RDMA operation, and local iovec count. */
#define RDS_DOCA_MAX_MR_SIZE		(1U << 20)
#define RDS_DOCA_MAX_RDMA_SIZE		(1U << 20)
#define RDS_DOCA_MAX_RDMA_IOVECS	1024

/*
 * setsockopt(SOL_RDS, RDS_DOCA_GET_MR_LIST): register several buffers as
 * one region.  The region is zero-based: byte 0 is the first byte of
 * vecs[0], and each buffer follows the previous one.  Every buffer but
 * the first must start on a page boundary and every buffer but the last
 * must end on one (see Documentation/rds_doca.rst).  The cookie's offset
 * is 0.  Flags as for RDS_GET_MR.
 */
#define RDS_DOCA_GET_MR_LIST		64	/* struct rds_doca_get_mr_list_args */

struct rds_doca_get_mr_list_args {
	__u64	vecs_addr;	/* array of nr_vecs struct rds_iovec */
	__u64	nr_vecs;
	__u64	cookie_addr;
	__u64	flags;
};

/*
 * Registration flag: peers may read the region but not write it; an RDMA
 * write or atomic into it fails with RDS_RDMA_REMOTE_ERROR.
 */
#define RDS_DOCA_MR_REMOTE_READ_ONLY	0x1000

/*
 * Generic netlink family RDS_DOCA_GENL_NAME: the control plane rdsctl(8)
 * speaks.  Every object is that of the caller's network namespace.  The
 * GET commands are dumps (INFO and STATS answer a plain request) readable
 * by any user; STATS_RESET and CONN_DROP need CAP_NET_ADMIN in the
 * namespace's user namespace.  Each object has an attribute set of its
 * own; the type of each attribute is written next to it.  Addresses are
 * IPv4 addresses in network byte order, GIDs 16 raw bytes.  Readers must
 * ignore attributes they do not know.
 */
#define RDS_DOCA_GENL_NAME		"rds_doca"
#define RDS_DOCA_GENL_VERSION		1
#define RDS_DOCA_GENL_MCGRP_EVENTS	"events"

enum {
	RDS_DOCA_CMD_UNSPEC,
	RDS_DOCA_CMD_INFO_GET,		/* do: RDS_DOCA_A_INFO_* */
	RDS_DOCA_CMD_CONN_GET,		/* dump: RDS_DOCA_A_CONN_* */
	RDS_DOCA_CMD_SOCK_GET,		/* dump: RDS_DOCA_A_SOCK_* */
	RDS_DOCA_CMD_MR_GET,		/* dump: RDS_DOCA_A_MR_* */
	RDS_DOCA_CMD_DEV_GET,		/* dump: RDS_DOCA_A_DEV_* */
	RDS_DOCA_CMD_STATS_GET,		/* do: RDS_DOCA_A_STATS_* */
	RDS_DOCA_CMD_STATS_RESET,	/* do, admin: no attributes */
	RDS_DOCA_CMD_CONN_DROP,		/* do, admin: A_CONN_PEER, optional
					 * A_CONN_LADDR and A_CONN_TRANSPORT;
					 * every match drops and reconnects
					 */
	RDS_DOCA_CMD_CONN_UP_NTF,	/* event: RDS_DOCA_A_CONN_* */
	RDS_DOCA_CMD_CONN_DOWN_NTF,	/* event: RDS_DOCA_A_CONN_* */
	RDS_DOCA_CMD_DEV_ADD_NTF,	/* event: RDS_DOCA_A_DEV_* */
	RDS_DOCA_CMD_DEV_DEL_NTF,	/* event: RDS_DOCA_A_DEV_* */
	RDS_DOCA_CMD_SET,		/* do, admin: module-wide settings,
					 * RDS_DOCA_A_INFO_DMA_MODE and
					 * RDS_DOCA_A_INFO_DMA_*_MIN; needs
					 * CAP_NET_ADMIN in the initial user
					 * namespace
					 */

	__RDS_DOCA_CMD_MAX,
	RDS_DOCA_CMD_MAX = __RDS_DOCA_CMD_MAX - 1
};

enum {
	RDS_DOCA_A_INFO_UNSPEC,
	RDS_DOCA_A_INFO_VERSION,	/* string: module version */
	RDS_DOCA_A_INFO_FAMILY,		/* u32: address family in use */
	RDS_DOCA_A_INFO_SOL,		/* u32: socket option level */
	RDS_DOCA_A_INFO_IB_PORT,	/* u16: rdma_cm listener port */
	RDS_DOCA_A_INFO_WIRE_VERSION,	/* u32: wire protocol version */
	RDS_DOCA_A_INFO_DMA,		/* string: copy engine state,
					 * "engine" (a channel is held), "cpu"
					 * (none is) or "off"
					 */
	RDS_DOCA_A_INFO_TRANSPORT,	/* string, repeated: transports */
	RDS_DOCA_A_INFO_DMA_MODE,	/* u8: RDS_DOCA_DMA_* */
	RDS_DOCA_A_INFO_DMA_CHANNEL,	/* string, repeated: channels held */
	RDS_DOCA_A_INFO_DMA_SEND_MIN,	/* u32: smallest sendmsg copy the
					 * engine makes, bytes
					 */
	RDS_DOCA_A_INFO_DMA_RECV_MIN,	/* u32: the same for recvmsg */
	RDS_DOCA_A_INFO_DMA_RDMA_MIN,	/* u32: the same for loopback RDMA */
	RDS_DOCA_A_INFO_TCP_PORT,	/* u16: TCP transport listener port */

	__RDS_DOCA_A_INFO_MAX,
	RDS_DOCA_A_INFO_MAX = __RDS_DOCA_A_INFO_MAX - 1
};

/* RDS_DOCA_A_INFO_DMA_MODE */
enum {
	RDS_DOCA_DMA_OFF,		/* every copy by the CPU, no channel */
	RDS_DOCA_DMA_AUTO,		/* DMA_MEMCPY channels when there are */
};

/* RDS_DOCA_A_CONN_STATE */
enum {
	RDS_DOCA_CONN_STATE_DOWN,
	RDS_DOCA_CONN_STATE_CONNECTING,
	RDS_DOCA_CONN_STATE_UP,
};

enum {
	RDS_DOCA_A_CONN_UNSPEC,
	RDS_DOCA_A_CONN_PAD,
	RDS_DOCA_A_CONN_ID,		/* u32: connection id */
	RDS_DOCA_A_CONN_LADDR,		/* be32: local address */
	RDS_DOCA_A_CONN_PEER,		/* be32: peer address */
	RDS_DOCA_A_CONN_TRANSPORT,	/* string: "loopback", "ib" */
	RDS_DOCA_A_CONN_STATE,		/* u8: RDS_DOCA_CONN_STATE_* */
	RDS_DOCA_A_CONN_DEV,		/* string: RDMA device */
	RDS_DOCA_A_CONN_PORT,		/* u8: its port */
	RDS_DOCA_A_CONN_QPN,		/* u32: queue pair number */
	RDS_DOCA_A_CONN_CREDITS,	/* u32: send credits */
	RDS_DOCA_A_CONN_NEXT_TX_SEQ,	/* u64: next sequence number sent */
	RDS_DOCA_A_CONN_NEXT_RX_SEQ,	/* u64: next one expected */
	RDS_DOCA_A_CONN_LAST_ACKED,	/* u64: last acknowledged by the peer */
	RDS_DOCA_A_CONN_SEND_QUEUE,	/* u32: messages not yet sent */
	RDS_DOCA_A_CONN_RETRANS,	/* u32: messages sent, unacknowledged */
	RDS_DOCA_A_CONN_CONNECTS,	/* u32: times the connection came up */
	RDS_DOCA_A_CONN_TX_MSGS,	/* u64 */
	RDS_DOCA_A_CONN_TX_BYTES,	/* u64 */
	RDS_DOCA_A_CONN_RX_MSGS,	/* u64 */
	RDS_DOCA_A_CONN_RX_BYTES,	/* u64 */
	RDS_DOCA_A_CONN_LAST_ERROR,	/* s32: last errno that took it down */
	RDS_DOCA_A_CONN_RECV_BUFS,	/* u32: receive buffers posted */
	RDS_DOCA_A_CONN_PATH,		/* u8: which path between the two
					 * addresses (0 ..
					 * RDS_DOCA_MAX_PATHS - 1)
					 */
	RDS_DOCA_A_CONN_TOS,		/* u8: type of service of its
					 * sockets (SIOCRDSSETTOS)
					 */

	__RDS_DOCA_A_CONN_MAX,
	RDS_DOCA_A_CONN_MAX = __RDS_DOCA_A_CONN_MAX - 1
};

enum {
	RDS_DOCA_A_SOCK_UNSPEC,
	RDS_DOCA_A_SOCK_PAD,
	RDS_DOCA_A_SOCK_ID,		/* u32: socket id */
	RDS_DOCA_A_SOCK_INODE,		/* u64: inode number */
	RDS_DOCA_A_SOCK_UID,		/* u32: owner, in the caller's user ns */
	RDS_DOCA_A_SOCK_ADDR,		/* be32: bound address (absent: unbound) */
	RDS_DOCA_A_SOCK_PORT,		/* u16: bound port, host order */
	RDS_DOCA_A_SOCK_PEER,		/* be32: connect()ed address */
	RDS_DOCA_A_SOCK_PEER_PORT,	/* u16: its port, host order */
	RDS_DOCA_A_SOCK_TRANSPORT,	/* string */
	RDS_DOCA_A_SOCK_SNDBUF,		/* u32: send buffer bytes */
	RDS_DOCA_A_SOCK_SND_QUEUED,	/* u32: bytes sent, unacknowledged */
	RDS_DOCA_A_SOCK_RCVBUF,		/* u32: receive buffer bytes */
	RDS_DOCA_A_SOCK_RCV_QUEUED,	/* u32: bytes waiting for recvmsg() */
	RDS_DOCA_A_SOCK_CONGESTED,	/* flag: its port is congested */
	RDS_DOCA_A_SOCK_CONG_MONITOR,	/* flag: RDS_CONG_MONITOR set */
	RDS_DOCA_A_SOCK_MRS,		/* u32: registered regions */
	RDS_DOCA_A_SOCK_NOTIFY_BYTES,	/* u32: receive buffer bytes held for
					 * RDMA notices, queued or owed by
					 * operations in flight
					 */

	__RDS_DOCA_A_SOCK_MAX,
	RDS_DOCA_A_SOCK_MAX = __RDS_DOCA_A_SOCK_MAX - 1
};

enum {
	RDS_DOCA_A_MR_UNSPEC,
	RDS_DOCA_A_MR_PAD,
	RDS_DOCA_A_MR_KEY,		/* u32: region key (its id) */
	RDS_DOCA_A_MR_COOKIE,		/* u64: the cookie handed out */
	RDS_DOCA_A_MR_LEN,		/* u64: bytes */
	RDS_DOCA_A_MR_PAGES,		/* u32: pinned pages */
	RDS_DOCA_A_MR_SOCK_ID,		/* u32: owning socket */
	RDS_DOCA_A_MR_TRANSPORT,	/* string: where it is registered */
	RDS_DOCA_A_MR_PEER,		/* be32: RDS_GET_MR_FOR_DEST peer */
	RDS_DOCA_A_MR_PEER_PORT,	/* u16: its port, host order */
	RDS_DOCA_A_MR_USE_ONCE,		/* flag */
	RDS_DOCA_A_MR_READ_ONLY,	/* flag: RDS_DOCA_MR_REMOTE_READ_ONLY */

	__RDS_DOCA_A_MR_MAX,
	RDS_DOCA_A_MR_MAX = __RDS_DOCA_A_MR_MAX - 1
};

/* RDS_DOCA_A_DEV_CAPS bits */
#define RDS_DOCA_DEV_CAP_SEND		0x01	/* messages */
#define RDS_DOCA_DEV_CAP_RDMA_WRITE	0x02
#define RDS_DOCA_DEV_CAP_RDMA_READ	0x04
#define RDS_DOCA_DEV_CAP_ATOMIC		0x08	/* FADD, CSWP */
#define RDS_DOCA_DEV_CAP_MASKED_ATOMIC	0x10	/* the masked forms */
#define RDS_DOCA_DEV_CAP_MR_LIST	0x20	/* RDS_DOCA_GET_MR_LIST */
#define RDS_DOCA_DEV_CAP_MR_SG_GAPS	0x40	/* a list needs no page alignment */

/* RDS_DOCA_A_DEV_PROTOCOL values: the device's port protocol */
enum {
	RDS_DOCA_DEV_PROTO_UNKNOWN,
	RDS_DOCA_DEV_PROTO_IB,		/* InfiniBand (IPoIB addresses) */
	RDS_DOCA_DEV_PROTO_ROCE,	/* RoCE */
	RDS_DOCA_DEV_PROTO_IWARP,	/* iWARP: no atomics */
};

enum {
	RDS_DOCA_A_DEV_UNSPEC,
	RDS_DOCA_A_DEV_INDEX,		/* u32: RDMA device index */
	RDS_DOCA_A_DEV_NAME,		/* string */
	RDS_DOCA_A_DEV_PORT,		/* u8: port shown */
	RDS_DOCA_A_DEV_STATE,		/* u8: enum ib_port_state */
	RDS_DOCA_A_DEV_GID,		/* binary, 16 bytes: GID index 0 */
	RDS_DOCA_A_DEV_MAX_MSG,		/* u32: largest message, bytes */
	RDS_DOCA_A_DEV_ATOMIC_CAP,	/* u8: enum ib_atomic_cap */
	RDS_DOCA_A_DEV_MASKED_ATOMIC_CAP, /* u8: enum ib_atomic_cap */
	RDS_DOCA_A_DEV_FRWR_DEPTH,	/* u32: pages per fast registration */
	RDS_DOCA_A_DEV_MAX_SGE,		/* u32: send scatter/gather entries */
	RDS_DOCA_A_DEV_MAX_RD_SGE,	/* u32: RDMA read entries */
	RDS_DOCA_A_DEV_CAPS,		/* u32: RDS_DOCA_DEV_CAP_* */
	RDS_DOCA_A_DEV_CONNS,		/* u32: connections over it */
	RDS_DOCA_A_DEV_MRS,		/* u32: regions registered on it */
	RDS_DOCA_A_DEV_PROTOCOL,	/* u8: RDS_DOCA_DEV_PROTO_* */

	__RDS_DOCA_A_DEV_MAX,
	RDS_DOCA_A_DEV_MAX = __RDS_DOCA_A_DEV_MAX - 1
};

enum {
	RDS_DOCA_A_STATS_UNSPEC,
	RDS_DOCA_A_STATS_COUNTER,	/* nest, repeated: RDS_DOCA_A_COUNTER_* */

	__RDS_DOCA_A_STATS_MAX,
	RDS_DOCA_A_STATS_MAX = __RDS_DOCA_A_STATS_MAX - 1
};

enum {
	RDS_DOCA_A_COUNTER_UNSPEC,
	RDS_DOCA_A_COUNTER_PAD,
	RDS_DOCA_A_COUNTER_NAME,	/* string */
	RDS_DOCA_A_COUNTER_VALUE,	/* u64: per namespace, summed over CPUs */

	__RDS_DOCA_A_COUNTER_MAX,
	RDS_DOCA_A_COUNTER_MAX = __RDS_DOCA_A_COUNTER_MAX - 1
};

#endif /* _UAPI_LINUX_RDS_DOCA_H */
