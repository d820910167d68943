/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca generic netlink family (netlink.c): dumps, commands and
 * events.
 */
#ifndef _RDSD_NETLINK_H
#define _RDSD_NETLINK_H

#include <linux/types.h>

struct rdsd_conn;
struct rdsd_conn_info;
struct rdsd_dev_info;
struct rdsd_net;
struct rdsd_sock;
struct sk_buff;
struct user_namespace;

int rdsd_nl_init(void);
void rdsd_nl_exit(void);
void rdsd_nl_conn_event(struct rdsd_conn *conn, bool up);
void rdsd_nl_dev_event(const struct rdsd_dev_info *di, bool add);
int rdsd_nl_conn_fill(struct sk_buff *skb, struct rdsd_conn *conn,
		      const struct rdsd_conn_info *ci);
int rdsd_nl_sock_fill(struct sk_buff *skb, struct rdsd_sock *rs,
		      struct user_namespace *uns);
int rdsd_nl_sock_dump_from(struct rdsd_net *rn, struct sk_buff *skb,
			   unsigned long *next, u32 portid, u32 seq,
			   struct user_namespace *uns);

#endif /* _RDSD_NETLINK_H */
