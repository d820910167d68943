/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca RDMA cookies.
 *
 * A cookie names a registered memory region to a peer: the region's
 * remote key in the low 32 bits and a byte offset into the region in the
 * high 32 bits, the layout Linux RDS uses, so cookies look the same to
 * programs written for it.
 */
#ifndef _RDSD_MR_H
#define _RDSD_MR_H

#include <linux/types.h>

static inline u64 rdsd_cookie_make(u32 key, u32 offset)
{
	return key | ((u64)offset << 32);
}

static inline u32 rdsd_cookie_key(u64 cookie)
{
	return lower_32_bits(cookie);
}

static inline u32 rdsd_cookie_offset(u64 cookie)
{
	return upper_32_bits(cookie);
}

#endif /* _RDSD_MR_H */
