/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What rds_doca's programs share: the module's address family, the names
 * of RDMA notice statuses, a printable socket address, a bound socket and
 * a message with one control message.
 */
#ifndef _RDS_DOCA_USER_H
#define _RDS_DOCA_USER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/rds_doca.h>

#define RDS_DOCA_FAMILY_PARAM	"/sys/module/rds_doca/parameters/family"

/* The family the loaded module registered, or -1 when it cannot be read. */
static inline int rds_doca_family_param(void)
{
	FILE *f = fopen(RDS_DOCA_FAMILY_PARAM, "r");
	int family = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &family) != 1 || family <= 0 || family >= 256)
		family = -1;
	fclose(f);
	return family;
}

/* The loaded module's family, else the default AF_INET_OFFLOAD. */
static inline int rds_doca_family(void)
{
	int family = rds_doca_family_param();

	return family > 0 ? family : AF_INET_OFFLOAD;
}

/* The name of an RDS_RDMA_* notice status. */
static inline const char *rds_doca_status_name(int status)
{
	switch (status) {
	case RDS_RDMA_SUCCESS:
		return "RDS_RDMA_SUCCESS";
	case RDS_RDMA_REMOTE_ERROR:
		return "RDS_RDMA_REMOTE_ERROR";
	case RDS_RDMA_CANCELED:
		return "RDS_RDMA_CANCELED";
	case RDS_RDMA_DROPPED:
		return "RDS_RDMA_DROPPED";
	case RDS_RDMA_OTHER_ERROR:
		return "RDS_RDMA_OTHER_ERROR";
	}
	return "unknown status";
}

/* "address:port"; two calls may be used in one printf(). */
static inline const char *rds_doca_sin_name(const struct sockaddr_in *sin)
{
	static char buf[2][32];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s:%u", inet_ntoa(sin->sin_addr),
		 ntohs(sin->sin_port));
	return buf[i];
}

/*
 * A socket of @family bound to @addr and a free port, its name in @sin.
 * Returns the socket, or -1 with errno set and the call that failed in
 * *@failed ("socket" or "bind").
 */
static inline int rds_doca_bound_socket(int family, struct in_addr addr,
					struct sockaddr_in *sin,
					const char **failed)
{
	socklen_t len = sizeof(*sin);
	int fd, err;

	*failed = "socket";
	fd = socket(family, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -1;
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr = addr;
	if (bind(fd, (struct sockaddr *)sin, sizeof(*sin)) ||
	    getsockname(fd, (struct sockaddr *)sin, &len)) {
		err = errno;
		*failed = "bind";
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* The largest control message rds_doca_send_cmsg() sends. */
#define RDS_DOCA_CMSG_MAX	128
_Static_assert(sizeof(struct rds_atomic_args) <= RDS_DOCA_CMSG_MAX,
	       "every RDS control message fits");

/*
 * Send @plen bytes of @payload to @to with one SOL_RDS control message
 * of @type and the @len bytes of @arg, and sendmsg() @flags.  Returns
 * what sendmsg() returns; -1 with EMSGSIZE for an @arg over
 * RDS_DOCA_CMSG_MAX bytes.
 */
static inline ssize_t rds_doca_send_cmsg(int fd, const void *to,
					 const void *payload, size_t plen,
					 int type, const void *arg, size_t len,
					 int flags)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(RDS_DOCA_CMSG_MAX)];
	} cbuf;
	struct iovec iov = { .iov_base = (void *)payload, .iov_len = plen };
	struct msghdr mh = {
		.msg_name = (void *)to,
		.msg_namelen = !to ? 0 :
			((const struct sockaddr *)to)->sa_family == AF_INET6 ?
			sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf.buf,
		.msg_controllen = CMSG_SPACE(len),
	};
	struct cmsghdr *cm;

	if (len > RDS_DOCA_CMSG_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	memset(&cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_RDS;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(cm), arg, len);
	return sendmsg(fd, &mh, flags);
}

/* The namespace counter @name (RDS_INFO_COUNTERS on @fd), or -1. */
static inline long long rds_doca_counter(int fd, const char *name)
{
	static char buf[65536];
	struct rds_info_counter *c;
	socklen_t len = sizeof(buf);
	int each;
	size_t i;

	each = getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len);
	if (each <= 0)
		return -1;
	for (i = 0; i + each <= len; i += each) {
		c = (struct rds_info_counter *)(buf + i);
		if (!strncmp((char *)c->name, name, sizeof(c->name)))
			return c->value;
	}
	return -1;
}

#endif /* _RDS_DOCA_USER_H */
