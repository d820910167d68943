// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca MSG_ZEROCOPY sends, with Linux RDS's ABI.
 *
 * On a socket with SO_ZEROCOPY, sendmsg(MSG_ZEROCOPY) leaves the payload
 * in the sender's pages: the message's scatterlist points into them, and
 * every transport reads them where it would read pages of the message's
 * own (the IB transport maps them for the device, loopback's receiver
 * copies from them).  When the message's last reference goes, the pages
 * are let go and the socket reports the send's RDS_CMSG_ZCOPY_COOKIE in an
 * RDS_CMSG_ZCOPY_COMPLETION: from then on the sender may write to the
 * buffer again.  That is when no part of the kernel needs the pages any
 * more (acknowledged by the peer, read by a loopback receiver, or
 * dropped), not a report of delivery.
 *
 * Lifetime: struct rdsd_zcopy is made with its message by
 * rdsd_zcopy_msg_alloc() and freed with it, by rdsd_zcopy_release() from
 * rdsd_msg_put().  It holds the pages as the copy engine holds a user
 * buffer (rdsd_dma_sgl_pin(): pinned where the kernel can extract pages),
 * their charge against the sender's RLIMIT_MEMLOCK
 * (mm_account_pinned_pages(), as TCP's MSG_ZEROCOPY counts it), and a
 * reference on the sending socket, whose ring takes the cookie.  The ring
 * (rs->zc_ring) is made by the socket's first such send and freed with
 * the socket.
 *
 * Bounds: a send first reserves its cookie's place (rs->zc_busy), so a
 * completion always has room, and a socket has at most RDSD_ZCOPY_MAX
 * sends in flight and completions unread together: past that a send gets
 * ENOBUFS until completions are read.  The pages count against the send
 * buffer like any payload and against RLIMIT_MEMLOCK (ENOBUFS past it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/rds_doca.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uio.h>

#include "rdsd.h"
#include "dma.h"
#include "message.h"
#include "zcopy.h"

/**
 * struct rdsd_zcopy - a zero-copy message's hold on its sender
 * @rs: the sending socket (a reference), whose ring takes @cookie.
 * @user: the payload's pages; its entries were copied to the message's.
 * @pin: the pages' charge against the sender's locked memory.
 * @cookie: the send's RDS_CMSG_ZCOPY_COOKIE, 0 if it gave none.
 * @report: the message was queued, so its release is reported;
 *	rdsd_zcopy_unsent() clears it for a send that failed.
 */
struct rdsd_zcopy {
	struct rdsd_sock	*rs;
	struct rdsd_dma_sgl	user;
	struct mmpin		pin;
	u32			cookie;
	bool			report;
};

/* Take a place in @rs's ring for one send; make the ring first. */
static int rdsd_zcopy_reserve(struct rdsd_sock *rs)
{
	unsigned long flags;
	u32 *ring = NULL;
	int ret = 0;

	if (!READ_ONCE(rs->zc_ring)) {
		ring = kcalloc(RDSD_ZCOPY_MAX, sizeof(*ring),
			       GFP_KERNEL_ACCOUNT);
		if (!ring)
			return -ENOMEM;
	}
	spin_lock_irqsave(&rs->zc_lock, flags);
	if (!rs->zc_ring) {
		WRITE_ONCE(rs->zc_ring, ring);
		ring = NULL;
	}
	if (rs->zc_busy < RDSD_ZCOPY_MAX)
		rs->zc_busy++;
	else
		ret = -ENOBUFS;
	spin_unlock_irqrestore(&rs->zc_lock, flags);
	kfree(ring);	/* another send made it meanwhile */
	return ret;
}

static void rdsd_zcopy_unreserve(struct rdsd_sock *rs)
{
	unsigned long flags;

	spin_lock_irqsave(&rs->zc_lock, flags);
	rs->zc_busy--;
	spin_unlock_irqrestore(&rs->zc_lock, flags);
}

/**
 * rdsd_zcopy_msg_alloc - a message whose payload stays in the sender's pages
 * @rs: the sending socket, which SO_ZEROCOPY was set on.
 * @from: the payload; advanced past it.
 * @len: its length, non-zero.
 * @cookie: what the completion reports.
 *
 * Process context.  Returns the message with one reference, or ENOBUFS
 * when @rs has RDSD_ZCOPY_MAX sends and completions outstanding or the
 * pages would pass RLIMIT_MEMLOCK, ENOMEM, or EFAULT for a payload not in
 * user pages.
 */
struct rdsd_msg *rdsd_zcopy_msg_alloc(struct rdsd_sock *rs,
				      struct iov_iter *from, size_t len,
				      u32 cookie)
{
	struct rdsd_zcopy *zc;
	struct rdsd_msg *msg;
	int ret;

	ret = rdsd_zcopy_reserve(rs);
	if (ret)
		return ERR_PTR(ret);
	ret = -ENOMEM;
	zc = kzalloc(sizeof(*zc), GFP_KERNEL_ACCOUNT);
	if (!zc)
		goto out_unreserve;
	ret = mm_account_pinned_pages(&zc->pin, len);
	if (ret)
		goto out_zc;
	if (rdsd_dma_sgl_pin(&zc->user, from, len)) {
		ret = -EFAULT;
		goto out_charge;
	}
	ret = -ENOMEM;
	msg = rdsd_msg_alloc_sg(zc->user.nents, GFP_KERNEL_ACCOUNT);
	if (!msg)
		goto out_pages;

	/* the message's own entries: the side's are not needed past here */
	memcpy(msg->sg, zc->user.sg, zc->user.nents * sizeof(*msg->sg));
	msg->nents = zc->user.nents;
	msg->len = len;
	kvfree(zc->user.sg);
	zc->user.sg = NULL;
	zc->user.nents = 0;

	sock_hold(&rs->sk);	/* put by rdsd_zcopy_release() */
	zc->rs = rs;
	zc->cookie = cookie;
	zc->report = true;
	msg->zc = zc;
	return msg;

out_pages:
	rdsd_dma_sgl_release(&zc->user);
out_charge:
	mm_unaccount_pinned_pages(&zc->pin);
out_zc:
	kfree(zc);
out_unreserve:
	rdsd_zcopy_unreserve(rs);
	return ERR_PTR(ret);
}

/**
 * rdsd_zcopy_unsent - a send failed: its message's release is not reported
 * @msg: the message; nothing if it is not zero-copy.
 *
 * As Linux RDS: a send that returned an error has no completion.
 */
void rdsd_zcopy_unsent(struct rdsd_msg *msg)
{
	if (msg->zc)
		msg->zc->report = false;
}

/**
 * rdsd_zcopy_release - let go of a zero-copy message's pages and report it
 * @msg: the message, on its last reference.
 *
 * Any context.
 */
void rdsd_zcopy_release(struct rdsd_msg *msg)
{
	struct rdsd_zcopy *zc = msg->zc;
	struct rdsd_sock *rs = zc->rs;
	unsigned long flags;

	rdsd_dma_sgl_release(&zc->user);
	mm_unaccount_pinned_pages(&zc->pin);

	spin_lock_irqsave(&rs->zc_lock, flags);
	if (zc->report) {
		/* rdsd_zcopy_reserve() kept this place */
		rs->zc_ring[(rs->zc_head + rs->zc_ready) % RDSD_ZCOPY_MAX] =
			zc->cookie;
		WRITE_ONCE(rs->zc_ready, rs->zc_ready + 1);
	} else {
		rs->zc_busy--;
	}
	spin_unlock_irqrestore(&rs->zc_lock, flags);
	if (zc->report)
		rs->sk.sk_data_ready(&rs->sk);
	sock_put(&rs->sk);
	kfree(zc);
}

/**
 * rdsd_zcopy_recv - hand completions to a recvmsg() that has room
 * @rs: socket.
 * @m: the recvmsg() header.
 *
 * As Linux RDS: only on a socket with SO_ZEROCOPY, and only if the room
 * left in the control buffer holds a whole struct rds_zcopy_cookies, up
 * to RDS_MAX_ZCOOKIES cookies at a time.  Returns true if it added one.
 */
bool rdsd_zcopy_recv(struct rdsd_sock *rs, struct msghdr *m)
{
	struct rds_zcopy_cookies done;
	unsigned long flags;
	unsigned int i, n;
	bool added;

	if (!READ_ONCE(rs->zc_ready) || !sock_flag(&rs->sk, SOCK_ZEROCOPY) ||
	    !m->msg_control || m->msg_controllen < CMSG_SPACE(sizeof(done)))
		return false;

	memset(&done, 0, sizeof(done));
	/* one reader: the cookies are consumed only once they are out */
	mutex_lock(&rs->zc_read);
	spin_lock_irqsave(&rs->zc_lock, flags);
	n = min_t(unsigned int, rs->zc_ready, RDS_MAX_ZCOOKIES);
	for (i = 0; i < n; i++)
		done.cookies[i] =
			rs->zc_ring[(rs->zc_head + i) % RDSD_ZCOPY_MAX];
	spin_unlock_irqrestore(&rs->zc_lock, flags);
	done.num = n;

	added = n && !put_cmsg(m, SOL_RDS, RDS_CMSG_ZCOPY_COMPLETION,
			       sizeof(done), &done);
	if (added) {
		spin_lock_irqsave(&rs->zc_lock, flags);
		rs->zc_head = (rs->zc_head + n) % RDSD_ZCOPY_MAX;
		WRITE_ONCE(rs->zc_ready, rs->zc_ready - n);
		rs->zc_busy -= n;
		spin_unlock_irqrestore(&rs->zc_lock, flags);
	}
	mutex_unlock(&rs->zc_read);
	return added;
}

/**
 * rdsd_zcopy_set - SO_ZEROCOPY
 * @rs: socket.
 * @optval: an int, 0 or 1.
 * @optlen: its length.
 *
 * The socket core takes SO_ZEROCOPY only for its own families (PF_RDS
 * among them), so rds_doca takes it itself, at SOL_SOCKET where the kernel
 * lets a family do that, and at SOL_RDS everywhere.
 */
int rdsd_zcopy_set(struct rdsd_sock *rs, sockptr_t optval,
		   unsigned int optlen)
{
	int val, ret;

	ret = rdsd_sockopt_int(optval, optlen, &val);
	if (ret)
		return ret;
	if (val < 0 || val > 1)
		return -EINVAL;
	lock_sock(&rs->sk);
	sock_valbool_flag(&rs->sk, SOCK_ZEROCOPY, val);
	release_sock(&rs->sk);
	return 0;
}
