/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca MSG_ZEROCOPY sends (zcopy.c): payloads left in the sender's
 * pages, and the completions that tell when those pages are free again.
 */
#ifndef _RDSD_ZCOPY_H
#define _RDSD_ZCOPY_H

#include <linux/sockptr.h>
#include <linux/types.h>

struct iov_iter;
struct msghdr;
struct rdsd_msg;
struct rdsd_sock;

struct rdsd_msg *rdsd_zcopy_msg_alloc(struct rdsd_sock *rs,
				      struct iov_iter *from, size_t len,
				      u32 cookie);
void rdsd_zcopy_unsent(struct rdsd_msg *msg);
void rdsd_zcopy_release(struct rdsd_msg *msg);
bool rdsd_zcopy_recv(struct rdsd_sock *rs, struct msghdr *m);
int rdsd_zcopy_set(struct rdsd_sock *rs, sockptr_t optval,
		   unsigned int optlen);

#endif /* _RDSD_ZCOPY_H */
