/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca receiving (recv.c): delivery to sockets and recvmsg().
 */
#ifndef _RDSD_RECV_H
#define _RDSD_RECV_H

#include <linux/types.h>

struct msghdr;
struct rdsd_conn;
struct rdsd_msg;
struct rdsd_sock;
struct rdsd_wire_info;
struct socket;

int rdsd_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
		 int flags);
void rdsd_recv_incoming(struct rdsd_conn *conn, struct rdsd_msg *msg);
void rdsd_recv_purge(struct rdsd_sock *rs);
struct rdsd_sock *rdsd_recv_reserve(struct rdsd_conn *conn, __be16 dport,
				    u32 len);
void rdsd_recv_unreserve(struct rdsd_sock *rs, u32 len);
void rdsd_recv_rdma_used(struct rdsd_conn *conn,
			 const struct rdsd_wire_info *info);
void rdsd_recv_msg_init(struct rdsd_msg *msg, const struct rdsd_conn *conn,
			const struct rdsd_wire_info *info);
void rdsd_recv_skipped(struct rdsd_conn *conn, u64 seq);

#endif /* _RDSD_RECV_H */
