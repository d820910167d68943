// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA and atomic operation tests for rds_doca over the loopback, IB
 * and TCP transports.
 *
 * Exercises, through the socket API only, memory registration
 * (RDS_GET_MR, RDS_GET_MR_FOR_DEST, RDS_DOCA_GET_MR_LIST, RDS_FREE_MR),
 * RDMA reads and writes (RDS_CMSG_RDMA_ARGS), the four atomics, the
 * completion notices (RDS_CMSG_RDMA_STATUS) and the passing of cookies
 * (RDS_CMSG_RDMA_DEST, RDS_CMSG_RDMA_MAP), against the contract in
 * Documentation/rds_doca.rst, section "RDMA and atomic operations".
 *
 * Every test uses two fresh sockets: A owns the registered memory and
 * B initiates the operations.  Prints TAP (see tap.h).
 *
 * This file holds the table of tests and main(); the tests are in the
 * files of their area (mr.c, rdma_ops.c, remote.c, notify.c, dest.c,
 * atomic.c, lifetime.c, mrlist.c, security.c), their helpers in helpers.c.
 */
#include "rdma.h"

static const struct selftest tests[] = {
	{ "mr_errors", test_mr_errors },
	{ "mr_cookies", test_mr_cookies },
	{ "mr_free", test_mr_free },
	{ "mr_memlock", test_mr_memlock },
	{ "mr_for_dest_family", test_mr_for_dest_family },
	{ "rdma_write_read", test_rdma_write_read },
	{ "rdma_iovecs", test_rdma_iovecs },
	{ "rdma_many_pieces", test_rdma_many_pieces },
	{ "rdma_read_pieces", test_rdma_read_pieces },
	{ "rdma_visible_on_delivery", test_rdma_visible_on_delivery },
	{ "rdma_silent", test_rdma_silent },
	{ "rdma_refused", test_rdma_refused },
	{ "rdma_resolve_once", test_rdma_resolve_once },
	{ "remote_errors", test_remote_errors },
	{ "remote_read_only", test_remote_read_only },
	{ "remote_for_dest", test_remote_for_dest },
	{ "remote_use_once", test_remote_use_once },
	{ "remote_revoke", test_remote_revoke },
	{ "silent_use_once", test_silent_use_once },
	{ "notify_tokens", test_notify_tokens },
	{ "notify_none_on_success", test_notify_none_on_success },
	{ "notify_recverr", test_notify_recverr },
	{ "notify_one_per_recv", test_notify_one_per_recv },
	{ "dest_live", test_dest_live },
	{ "dest_refused", test_dest_refused },
	{ "dest_map", test_dest_map },
	{ "atomic_fadd", test_atomic_fadd },
	{ "atomic_cswp", test_atomic_cswp },
	{ "atomic_masked_cswp", test_atomic_masked_cswp },
	{ "atomic_masked_fadd", test_atomic_masked_fadd },
	{ "atomic_refused", test_atomic_refused },
	{ "atomic_remote_errors", test_atomic_remote_errors },
	{ "atomic_concurrent", test_atomic_concurrent },
	{ "life_close_owner", test_life_close_owner },
	{ "life_close_initiator", test_life_close_initiator },
	{ "life_munmap_owner", test_life_munmap_owner },
	{ "life_munmap_local", test_life_munmap_local },
	{ "mrlist_basic", test_mrlist_basic },
	{ "mrlist_errors", test_mrlist_errors },
	{ "sec_cookie_owner", test_sec_cookie_owner },
	{ "sec_cookie_random", test_sec_cookie_random },
	{ "sec_refusals_throttled", test_sec_refusals_throttled },
};

/* With --impl rds: the cases that compare argument checks with net/rds. */
static const struct selftest rds_tests[] = {
	{ "rdma_refused", test_rdma_refused },
	{ "atomic_refused", test_atomic_refused },
};

static const struct option extra_opts[] = {
	{ "no-atomics", no_argument, NULL, 0x100 },
	{ "mr-pages", required_argument, NULL, 0x101 },
	{ "read-sinks", required_argument, NULL, 0x102 },
	{ NULL, 0, NULL, 0 },
};

static int extra_opt(int opt, const char *arg)
{
	char *end;

	switch (opt) {
	case 0x100:
		no_atomics = true;
		return 0;
	case 0x101:
	case 0x102:
		errno = 0;
		*(opt == 0x101 ? &mr_pages : &read_sinks) =
			strtoul(arg, &end, 10);
		return errno || end == arg || *end ? -1 : 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * --no-atomics: the device refuses atomics (iWARP): EOPNOTSUPP;
	 * --mr-pages N: it maps at most N pages a region: EMSGSIZE past them;
	 * --read-sinks N: a read lands in at most N of its regions (iWARP)
	 */
	if (parse_common(argc, argv, extra_opts, extra_opt,
			 " [--no-atomics] [--mr-pages N] [--read-sinks N]"))
		return 2;
	if (!cfg.impl_doca) {
		if (!cfg_loopback()) {
			fprintf(stderr,
				"%s: --impl rds runs the refused-input cases over the\n"
				"loopback transport only\n", argv[0]);
			return 2;
		}
		return run_selftests("rds_rdma_test", rds_tests,
				     selftest_by_filter);
	}
	if (cfg_loopback() ? cfg.transport != RDS_TRANS_LOOP :
			     cfg.transport != RDS_TRANS_IB &&
			     cfg.transport != RDS_TRANS_TCP) {
		fprintf(stderr,
			"%s: run over the loopback transport (--addr and --peer in\n"
			"127.0.0.0/8, --transport loop), over IB (--addr and --peer on\n"
			"an RDMA device, --transport ib) or over TCP (--transport tcp)\n",
			argv[0]);
		return 2;
	}
	return run_selftests("rds_rdma_test", tests, selftest_by_filter);
}
