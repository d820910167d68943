// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdsctl's generic netlink plumbing: the socket to the rds_doca family,
 * its requests, and the one helper that sends a request, collects the
 * answers and says why it failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <linux/rds_doca.h>

#include "rdsctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

static struct nl_sock *sk;
static int family_id;
static char ack_msg[256];	/* extended ACK message of the last error */

/* The errno nearest a libnl error; its own text goes to ack_msg. */
static int nlerr_to_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_INTR:
		return -EINTR;
	default:
		snprintf(ack_msg, sizeof(ack_msg), "%s", nl_geterror(nlerr));
		return -EIO;
	}
}

static int finish_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int *err = arg, e = 0;

	/* A dump cut short carries its error in NLMSG_DONE. */
	if (nlmsg_datalen(nlh) >= (int)sizeof(e))
		memcpy(&e, nlmsg_data(nlh), sizeof(e));
	*err = e < 0 ? e : 0;
	return NL_STOP;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	int *err = arg;

	(void)msg;
	*err = 0;
	return NL_STOP;
}

/* Keep the errno, and the extended ACK message if there is one. */
static int error_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (void *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int *err = arg;
	int len, off;

	(void)nla;
	*err = e->error < 0 ? e->error : -EPROTO;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	len = nlh->nlmsg_len - NLMSG_HDRLEN;
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	if (off < len &&
	    !nla_parse(tb, NLMSGERR_ATTR_MAX, (void *)((char *)e + off),
		       len - off, NULL) &&
	    tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(ack_msg, tb[NLMSGERR_ATTR_MSG], sizeof(ack_msg));
	return NL_STOP;
}

/* Connect and find the family: exit 3 when the module is not loaded. */
struct nl_sock *nl_open(void)
{
	int one = 1, err;

	sk = nl_socket_alloc();
	if (!sk)
		oom();
	err = genl_connect(sk);
	if (err < 0) {
		fprintf(stderr, "rdsctl: netlink: %s\n", nl_geterror(err));
		exit(1);
	}
	/* Take messages of any size; ask for error messages. */
	nl_socket_enable_msg_peek(sk);
	nl_socket_disable_auto_ack(sk);
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));

	family_id = genl_ctrl_resolve(sk, RDS_DOCA_GENL_NAME);
	if (family_id < 0) {
		fputs("rds_doca module not loaded (modprobe rds_doca)\n",
		      stderr);
		exit(3);
	}
	return sk;
}

/* A dump ends with NLMSG_DONE, anything else with an ACK. */
struct nl_msg *genl_request(uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!(flags & NLM_F_DUMP))
		flags |= NLM_F_ACK;
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family_id,
				 0, flags, cmd, RDS_DOCA_GENL_VERSION))
		oom();
	return msg;
}

/* Send, and receive until the end of the dump or the ACK: 0 or -errno. */
static int send_and_wait(struct nl_msg *msg, nl_recvmsg_msg_cb_t valid,
			 void *arg)
{
	struct nl_cb *cb;
	int err = 1, ret;

	*ack_msg = '\0';
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		oom();
	if (valid)
		nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid, arg);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, finish_cb, &err);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, &err);
	nl_cb_err(cb, NL_CB_CUSTOM, error_cb, &err);

	ret = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		err = nlerr_to_errno(ret);
	while (err > 0) {
		ret = nl_recvmsgs(sk, cb);
		if (ret < 0 && err > 0)
			err = nlerr_to_errno(ret);
	}
	nl_cb_put(cb);
	return err;
}

/*
 * Send @msg (and free it), hand every answer to @valid with @arg, and wait
 * for the end of the dump or the ACK.  Returns 0, or 1 after saying why it
 * failed as "rdsctl: @what: ...": @enoent, when given, is what ENOENT
 * means; with @what NULL, nothing is said.
 */
int request(const char *what, const char *enoent, struct nl_msg *msg,
	    nl_recvmsg_msg_cb_t valid, void *arg)
{
	int err = send_and_wait(msg, valid, arg);

	if (!err)
		return 0;
	if (!what)
		return 1;
	if (err == -ENOENT && enoent) {
		fprintf(stderr, "rdsctl: %s: %s\n", what, enoent);
		return 1;
	}
	fprintf(stderr, "rdsctl: %s: %s", what, strerror(-err));
	if (*ack_msg)
		fprintf(stderr, " (%s)", ack_msg);
	else if (err == -EPERM)
		fputs(" (needs CAP_NET_ADMIN)", stderr);
	fputc('\n', stderr);
	return 1;
}

/* Is this a reply of our family? */
bool ours(struct nl_msg *msg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	return nlh->nlmsg_type == family_id && genlmsg_valid_hdr(nlh, 0);
}

/* An answer of ours goes to the printer in @arg. */
int print_cb(struct nl_msg *msg, void *arg)
{
	int (*print)(struct nlmsghdr *nlh) = arg;

	if (ours(msg))
		print(nlmsg_hdr(msg));
	return NL_OK;
}
