// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca counters.
 *
 * Each namespace counts in per-CPU blocks of struct rdsd_stats, bumped
 * without locks on the data path and summed when read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/percpu.h>

#include "rdsd.h"
#include "dma.h"
#include "stats.h"

#define RDSD_STAT(f)	{ #f, offsetof(struct rdsd_stats, f) }
#define RDSD_COPY_STAT(name, d, p, what) \
	{ "copy_" name "_" #what, offsetof(struct rdsd_stats, copy[d][p].what) }

const struct rdsd_stat_desc rdsd_stat_descs[] = {
	RDSD_STAT(send_queued),
	RDSD_STAT(send_bytes),
	RDSD_STAT(send_queue_full),
	RDSD_STAT(send_cong_error),
	RDSD_STAT(send_cong_blocked),
	RDSD_STAT(xmit_retry),
	RDSD_STAT(xmit_op_only),
	RDSD_STAT(recv_delivered),
	RDSD_STAT(recv_bytes),
	RDSD_STAT(recv_drop_no_sock),
	RDSD_STAT(recv_drop_dead_sock),
	RDSD_STAT(recv_drop_old_seq),
	RDSD_STAT(recv_ping),
	RDSD_STAT(cong_update_received),
	RDSD_STAT(conn_created),
	RDSD_STAT(conn_reaped),
	RDSD_STAT(conn_limit),
	RDSD_STAT(recv_proto_error),
	RDSD_STAT(recv_ping_dropped),
	RDSD_STAT(rdma_refused),
	RDSD_STAT(rdma_throttled),
	RDSD_STAT(notify_full),
	RDSD_STAT(rdma_resolve),
	RDSD_STAT(conn_reset),
	RDSD_STAT(send_drop_closed),
	RDSD_STAT(conn_attempt_wait),
	RDSD_STAT(rdma_grant_ahead),
	RDSD_STAT(recv_busy_poll),
	RDSD_STAT(ib_recv_grow),
	RDSD_STAT(rdma_revoke),
	RDSD_STAT(rdma_revoke_spared),
	RDSD_STAT(send_zcopy),
	RDSD_STAT(send_zcopy_full),
	RDSD_STAT(recv_drop_large),
	/* copy_<send|recv|rdma>_<engine|cpu|fallback>_<ops|bytes> */
	RDSD_COPY_STAT("send_engine", RDSD_COPY_SEND, RDSD_COPY_ENGINE, ops),
	RDSD_COPY_STAT("send_engine", RDSD_COPY_SEND, RDSD_COPY_ENGINE, bytes),
	RDSD_COPY_STAT("send_cpu", RDSD_COPY_SEND, RDSD_COPY_CPU, ops),
	RDSD_COPY_STAT("send_cpu", RDSD_COPY_SEND, RDSD_COPY_CPU, bytes),
	RDSD_COPY_STAT("send_fallback", RDSD_COPY_SEND, RDSD_COPY_FALLBACK, ops),
	RDSD_COPY_STAT("send_fallback", RDSD_COPY_SEND, RDSD_COPY_FALLBACK, bytes),
	RDSD_COPY_STAT("recv_engine", RDSD_COPY_RECV, RDSD_COPY_ENGINE, ops),
	RDSD_COPY_STAT("recv_engine", RDSD_COPY_RECV, RDSD_COPY_ENGINE, bytes),
	RDSD_COPY_STAT("recv_cpu", RDSD_COPY_RECV, RDSD_COPY_CPU, ops),
	RDSD_COPY_STAT("recv_cpu", RDSD_COPY_RECV, RDSD_COPY_CPU, bytes),
	RDSD_COPY_STAT("recv_fallback", RDSD_COPY_RECV, RDSD_COPY_FALLBACK, ops),
	RDSD_COPY_STAT("recv_fallback", RDSD_COPY_RECV, RDSD_COPY_FALLBACK, bytes),
	RDSD_COPY_STAT("rdma_engine", RDSD_COPY_RDMA, RDSD_COPY_ENGINE, ops),
	RDSD_COPY_STAT("rdma_engine", RDSD_COPY_RDMA, RDSD_COPY_ENGINE, bytes),
	RDSD_COPY_STAT("rdma_cpu", RDSD_COPY_RDMA, RDSD_COPY_CPU, ops),
	RDSD_COPY_STAT("rdma_cpu", RDSD_COPY_RDMA, RDSD_COPY_CPU, bytes),
	RDSD_COPY_STAT("rdma_fallback", RDSD_COPY_RDMA, RDSD_COPY_FALLBACK, ops),
	RDSD_COPY_STAT("rdma_fallback", RDSD_COPY_RDMA, RDSD_COPY_FALLBACK, bytes),
};

const unsigned int rdsd_nr_stats = ARRAY_SIZE(rdsd_stat_descs);

static_assert(sizeof(struct rdsd_stats) ==
	      ARRAY_SIZE(rdsd_stat_descs) * sizeof(u64));

int rdsd_stats_net_init(struct rdsd_net *rn)
{
	rn->stats = alloc_percpu(struct rdsd_stats);
	return rn->stats ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_stats_net_init);

void rdsd_stats_net_exit(struct rdsd_net *rn)
{
	free_percpu(rn->stats);
	rn->stats = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_stats_net_exit);

/**
 * rdsd_stat_read - one counter of a namespace, summed over CPUs
 * @rn: namespace.
 * @offset: offsetof(struct rdsd_stats, field), see rdsd_stat_get().
 */
u64 rdsd_stat_read(struct rdsd_net *rn, size_t offset)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(u64 *)((char *)per_cpu_ptr(rn->stats, cpu) + offset);
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_stat_read);

/**
 * rdsd_stats_reset - zero every counter of a namespace
 * @rn: namespace.
 *
 * Process context.  A counter bumped on another CPU meanwhile may keep
 * that one event.
 */
void rdsd_stats_reset(struct rdsd_net *rn)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		u64 *c = (u64 *)per_cpu_ptr(rn->stats, cpu);
		unsigned int i;

		for (i = 0; i < sizeof(struct rdsd_stats) / sizeof(u64); i++)
			WRITE_ONCE(c[i], 0);
	}
}
