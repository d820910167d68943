/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca connections (conn.c): the table, the state a transport
 * reports, sending in order, and reaping.
 */
#ifndef _RDSD_CONN_H
#define _RDSD_CONN_H

#include <linux/gfp.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct rdsd_conn;
struct rdsd_net;
struct rdsd_transport_ops;

/*
 * Connection attempts of a transport that hold resources before the peer
 * answered (a queue pair and rings, a socket), in all and of the
 * connections one user's sends made; beyond either an attempt waits for
 * its next turn (the conn_attempt_wait counter).
 */
#define RDSD_MAX_ATTEMPTS	64
#define RDSD_USER_ATTEMPTS	16

/**
 * struct rdsd_attempts - a transport's attempts in flight, by user
 * @total: attempts held, at most RDSD_MAX_ATTEMPTS.
 * @users: a slot for each attempt that may be held, so a user always
 *	finds one: its uid and how many it holds (0: free).
 *
 * One per transport, zeroed (static); conn.c's rdsd_attempt_lock
 * protects every table.
 */
struct rdsd_attempts {
	unsigned int	total;
	struct {
		kuid_t		uid;
		unsigned int	held;
	} users[RDSD_MAX_ATTEMPTS];
};

/* Reconnect delays: random, doubling from the first failure on. */
#define RDSD_CONN_BACKOFF_MIN_MS	10
#define RDSD_CONN_BACKOFF_MAX_MS	2000

bool rdsd_conn_lower_wins(const struct in6_addr *laddr,
			  const struct in6_addr *faddr);
unsigned long rdsd_conn_backoff(unsigned int *backoff_ms);
bool rdsd_attempt_get(struct rdsd_attempts *at, struct rdsd_net *rn,
		      kuid_t uid, bool *held);
void rdsd_attempt_put(struct rdsd_attempts *at, kuid_t uid, bool *held);

struct rdsd_conn *rdsd_conn_get_outgoing(struct rdsd_net *rn,
					 const struct rdsd_transport_ops *bound,
					 const struct in6_addr *laddr,
					 const struct in6_addr *faddr,
					 int scope, u8 tos, u32 hash, gfp_t gfp);
struct rdsd_conn *rdsd_conn_find_create(struct rdsd_net *rn,
					const struct rdsd_transport_ops *trans,
					const struct in6_addr *laddr,
					const struct in6_addr *faddr,
					int scope, u8 path, u8 tos, gfp_t gfp);
u8 rdsd_conn_path_pick(u8 npaths, u32 hash);
void rdsd_conn_put(struct rdsd_conn *conn);
struct rdsd_conn *rdsd_conn_get_next(struct rdsd_net *rn, unsigned long *id);
void rdsd_conn_start(struct rdsd_conn *conn);
void rdsd_conn_want(struct rdsd_conn *conn);
bool rdsd_conn_park(struct rdsd_conn *conn);
void rdsd_conn_down(struct rdsd_conn *conn);
void rdsd_conn_requeue_unacked(struct rdsd_conn *conn);
void rdsd_conn_xmit(struct rdsd_conn *conn);
void rdsd_conn_kick(struct rdsd_conn *conn);
void rdsd_conn_send(struct rdsd_conn *conn);
void rdsd_conn_up(struct rdsd_conn *conn);
void rdsd_conn_net_init(struct rdsd_net *rn);
void rdsd_conn_net_exit(struct rdsd_net *rn);
unsigned int rdsd_conn_reap(struct rdsd_net *rn, unsigned long idle);
struct rdsd_conn *rdsd_conn_next_rcu(struct rdsd_net *rn,
				     struct rdsd_conn *conn);

#endif /* _RDSD_CONN_H */
