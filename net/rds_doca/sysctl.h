/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca sysctl files (sysctl.c).
 */
#ifndef _RDSD_SYSCTL_H
#define _RDSD_SYSCTL_H

int rdsd_sysctl_init(void);
void rdsd_sysctl_exit(void);

#endif /* _RDSD_SYSCTL_H */
