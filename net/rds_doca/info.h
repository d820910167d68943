/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca RDS_INFO_* getsockopt() probes (info.c).
 */
#ifndef _RDSD_INFO_H
#define _RDSD_INFO_H

#include <linux/compiler_types.h>

struct rdsd_sock;

int rdsd_info_getsockopt(struct rdsd_sock *rs, int optname,
			 char __user *optval, int __user *optlen);

#endif /* _RDSD_INFO_H */
