/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca bound addresses (bind.c): bind() and the table that finds a
 * socket by address and port.
 */
#ifndef _RDSD_BIND_H
#define _RDSD_BIND_H

#include <linux/types.h>

struct rdsd_net;
struct rdsd_sock;
struct in6_addr;
struct socket;
struct sockaddr;

int rdsd_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len);
void rdsd_unbind(struct rdsd_sock *rs);
struct rdsd_sock *rdsd_find_bound(struct rdsd_net *rn,
				  const struct in6_addr *addr, __be16 port,
				  int scope);
void rdsd_bind_net_init(struct rdsd_net *rn);

#endif /* _RDSD_BIND_H */
