/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What rds_doca's programs share: the module's address family, the names
 * of RDMA notice statuses, and a printable socket address.
 */
#ifndef _RDS_DOCA_USER_H
#define _RDS_DOCA_USER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>

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

#endif /* _RDS_DOCA_USER_H */
