/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca sending (send.c): sendmsg(), acknowledgments, drops and
 * RDS_CANCEL_SENT_TO.
 */
#ifndef _RDSD_SEND_H
#define _RDSD_SEND_H

#include <linux/sockptr.h>
#include <linux/types.h>

struct rdsd_wire_info;

struct msghdr;
struct rdsd_conn;
struct rdsd_msg;
struct rdsd_sock;
struct socket;

int rdsd_sendmsg(struct socket *sock, struct msghdr *msg, size_t len);
int rdsd_send_acked(struct rdsd_conn *conn, u64 seq);
bool rdsd_send_ack_req(u32 *unreq, u32 charge, u32 sndbuf);
void rdsd_send_drop(struct rdsd_conn *conn, struct rdsd_msg *msg);
void rdsd_send_drop_orphans(struct rdsd_conn *conn);
void rdsd_send_pong(struct rdsd_conn *conn, const struct rdsd_msg *probe);
void rdsd_msg_rdma_info(const struct rdsd_msg *msg, bool post_op,
			struct rdsd_wire_info *info);
int rdsd_cancel_sent_to(struct rdsd_sock *rs, sockptr_t optval,
			unsigned int optlen);

#if IS_ENABLED(CONFIG_KUNIT)
/* internals the KUnit suites reach */
struct rdsd_cmsgs;

int rdsd_cmsg_parse(struct msghdr *m, struct rdsd_cmsgs *cm);
#endif

#endif /* _RDSD_SEND_H */
