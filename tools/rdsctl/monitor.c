// SPDX-License-Identifier: GPL-2.0-only
/* "rdsctl monitor": print the module's events as they come. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <linux/rds_doca.h>

#include "rdsctl.h"

static int event_cb(struct nl_msg *msg, void *arg)
{
	(void)arg;
	if (ours(msg))
		print_event(nlmsg_hdr(msg), opt.details);
	return NL_OK;
}

/* Print events until SIGINT or SIGTERM. */
int cmd_monitor(int argc, char **argv)
{
	struct pollfd pfd[2];
	struct nl_sock *sk;
	sigset_t mask;
	int grp, err;

	no_args("monitor", argc, argv);

	sk = nl_open();
	grp = genl_ctrl_resolve_grp(sk, RDS_DOCA_GENL_NAME,
				    RDS_DOCA_GENL_MCGRP_EVENTS);
	if (grp < 0) {
		fprintf(stderr, "rdsctl: monitor: no \"%s\" group: %s\n",
			RDS_DOCA_GENL_MCGRP_EVENTS, nl_geterror(grp));
		return 1;
	}
	err = nl_socket_add_membership(sk, grp);
	if (err < 0) {
		fprintf(stderr, "rdsctl: monitor: %s\n", nl_geterror(err));
		return 1;
	}
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, event_cb, NULL);
	nl_socket_set_nonblocking(sk);

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	pfd[0].fd = nl_socket_get_fd(sk);
	pfd[0].events = POLLIN;
	pfd[1].fd = signalfd(-1, &mask, SFD_CLOEXEC);
	pfd[1].events = POLLIN;
	if (pfd[1].fd < 0) {
		perror("rdsctl: monitor: signalfd");
		return 1;
	}

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("rdsctl: monitor: poll");
			return 1;
		}
		if (pfd[1].revents)
			return 0;
		if (!pfd[0].revents)
			continue;
		err = nl_recvmsgs_default(sk);
		if (err == -NLE_NOMEM) {
			/* ENOBUFS: the socket overflowed */
			fputs("rdsctl: monitor: events lost\n", stderr);
		} else if (err < 0 && err != -NLE_AGAIN) {
			fprintf(stderr, "rdsctl: monitor: %s\n",
				nl_geterror(err));
			return 1;
		}
	}
}
