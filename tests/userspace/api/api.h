/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rds_api_test: the flags of its table of tests, the helpers its subject
 * areas share (helpers.c) and the tests main.c runs.
 */
#ifndef RDS_API_TEST_H
#define RDS_API_TEST_H

#include "rds_util.h"

#define T_LOOPBACK	0x1	/* both ends on the loopback transport */
#define T_DOCA		0x2	/* rds_doca behaviour only */
#define T_RDS		0x4	/* net/rds behaviour only */
#define T_NOLOOPBACK	0x8	/* a transport other than loopback */
#define T_SAMEADDR	0x10	/* --addr and --peer are the same */
#define T_IB		0x20	/* --transport ib */
/* of addresses of its own family: the --ipv6 run leaves it out */
#define T_OWN_FAMILY	0x40
#define T_LINK_LOCAL	0x80	/* --link-local given */

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

extern const struct in6_addr in6_loopback;
/* --link-local IF: fe80::1 and fe80::2 are addresses of IF, or NULL */
extern const char *cfg_link_local;

/* The call a list of refused addresses is tried with. */
enum addr_call {
	CALL_BIND,
	CALL_CONNECT,
};

/* An address the call must refuse with @err: a check named @name. */
struct refusal {
	const char *addr;	/* IPv4, or IPv6 if it has a ':' */
	uint16_t port;
	int err;
	const char *name;
};

/* helpers.c */
bool make_pair(int *a, int *b);
bool make_trio(int *a, int *b, int *c, const char *what_c);
int set_int(int fd, int level, int opt, int val);
int get_int(int fd, int level, int opt, int *val);
struct sockaddr_in6 sin6_str(const char *a, uint16_t port);
int bind_in(int fd, struct sockaddr_in sin);
int bind_in6(int fd, struct sockaddr_in6 sin6);
int connect_in(int fd, struct sockaddr_in sin);
int connect_in6(int fd, struct sockaddr_in6 sin6);
int connect_sa(int fd, const union rds_sa *a);
int addr_call(int fd, enum addr_call call, const void *sa, socklen_t len);
void addr_lens_refused(int fd, enum addr_call call, struct sockaddr_in sin);
void addrs_refused(int fd, enum addr_call call, const struct refusal *r,
		   size_t n);
void family_refused(int fd, enum addr_call call, struct sockaddr_in sin,
		    int family, int err, const char *name);
bool recv_expect(int fd, const void *want, size_t len, int from_fd,
		 const char *what);
ssize_t send_str(int fd, int to_fd, const char *s);
bool marker(int a, int b, const char *what);
bool quiet(int fd, const char *what);
void msg_init(struct msghdr *msg, struct iovec *iov, void *buf, size_t len);
ssize_t send_recvmsg(int a, int b, const char *s, struct msghdr *msg,
		     void *ctl, size_t ctllen);
int cmsg_count(struct msghdr *msg, int level, int type, void *data,
	       size_t len);
bool in_init_netns(void);

/* socket.c */
void test_socket(void);
void test_unsupported_ops(void);

/* bind.c */
void test_bind_errors(void);
void test_bind_errors_ipv6(void);
void test_bind_port0(void);
void test_bind_inuse(void);
void test_bind_many(void);

/* connect.c */
void test_names(void);
void test_connect_errors(void);
void test_ipv6_from_ipv4(void);
void test_connect_errors_ipv6(void);
void test_ipv4_mapped(void);
void test_connect(void);

/* send.c */
void test_send_errors(void);
void test_send_sizes(void);
void test_send_large(void);
void test_send_largest(void);
void test_send_zero(void);
void test_send_no_listener(void);
void test_send_many_senders(void);

/* recv.c */
void test_recv_basic(void);
void test_recv_peek(void);
void test_recv_nonblock(void);
void test_recv_timeout(void);
void test_recv_eintr(void);
void test_recv_busy_poll(void);
void test_recv_trunc(void);
void test_recv_flags(void);
void test_recv_timestamp(void);
void test_recv_sizes(void);

/* poll.c */
void test_poll(void);
void test_epoll(void);

/* sockopt.c */
void test_sockopt_bufs(void);
void test_sockopt_generic(void);
void test_sockopt_recverr(void);
void test_sockopt_transport(void);
void test_transport_ib(void);
void test_sockopt_cancel(void);
void test_mr_refused(void);
void test_sockopt_cong_monitor(void);
void test_sockopt_rxpath_latency(void);

/* info.c */
void test_info(void);
void test_info_ib_conn(void);

/* ioctl.c */
void test_ioctl(void);
void test_tos_lanes(void);

/* close.c */
void test_close_pending(void);

/* cong.c */
void test_cong_loopback_none(void);
void test_cong_empty_messages(void);
void test_cong_enobufs(void);

/* delivery.c */
void test_delivery_close(void);

/* netns.c */
void test_netns(void);

/* ipv6.c */
void test_ipv6(void);
void test_ipv6_scope(void);
void test_ipv6_link_local(void);

/* zcopy.c */
void test_zcopy(void);

#endif /* RDS_API_TEST_H */
