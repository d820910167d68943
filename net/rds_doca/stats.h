/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca counters: per-CPU, per namespace (stats.c), shown by
 * RDS_INFO_COUNTERS and the netlink family under the names of
 * rdsd_stat_descs[].
 */
#ifndef _RDSD_STATS_H
#define _RDSD_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "dma.h"

struct rdsd_net;

/**
 * struct rdsd_stats - per-CPU counters of one namespace
 *
 * Summed over CPUs when read (rdsd_stat_get()).  @copy counts the copy
 * engine's copies (dma.c) by where they were made and who made them.
 */
struct rdsd_stats {
	u64	send_queued;
	u64	send_bytes;
	u64	send_queue_full;
	u64	send_cong_error;
	u64	send_cong_blocked;
	u64	xmit_retry;
	u64	xmit_op_only;
	u64	recv_delivered;
	u64	recv_bytes;
	u64	recv_drop_no_sock;
	u64	recv_drop_dead_sock;
	u64	recv_drop_old_seq;
	u64	recv_ping;
	u64	cong_update_received;
	u64	conn_created;
	u64	conn_reaped;
	u64	conn_limit;
	u64	recv_proto_error;
	u64	recv_ping_dropped;
	u64	rdma_refused;
	u64	rdma_throttled;
	u64	notify_full;
	u64	rdma_resolve;
	u64	conn_reset;
	u64	send_drop_closed;
	u64	conn_attempt_wait;
	u64	rdma_grant_ahead;
	u64	recv_busy_poll;
	u64	ib_recv_grow;
	u64	rdma_revoke;
	u64	rdma_revoke_spared;
	u64	send_zcopy;
	u64	send_zcopy_full;
	u64	recv_drop_large;
	struct {
		u64	ops;
		u64	bytes;
	} copy[RDSD_COPY_NR][RDSD_COPY_PATH_NR];
};

#define rdsd_stat_add(rn, field, n)	this_cpu_add((rn)->stats->field, (n))
#define rdsd_stat_inc(rn, field)	rdsd_stat_add(rn, field, 1)

int rdsd_stats_net_init(struct rdsd_net *rn);
void rdsd_stats_net_exit(struct rdsd_net *rn);
u64 rdsd_stat_read(struct rdsd_net *rn, size_t offset);
void rdsd_stats_reset(struct rdsd_net *rn);

/**
 * struct rdsd_stat_desc - name of a counter of struct rdsd_stats
 * @name: as RDS_INFO_COUNTERS and rdsctl show it.
 * @offset: offsetof(struct rdsd_stats, field).
 */
struct rdsd_stat_desc {
	const char	*name;
	size_t		offset;
};

extern const struct rdsd_stat_desc rdsd_stat_descs[];
extern const unsigned int rdsd_nr_stats;

/* rdsd_stat_get(rn, field): one counter, summed over CPUs */
#define RDSD_STAT_OFFSET(field)	offsetof(struct rdsd_stats, field)
#define rdsd_stat_get(rn, f)	rdsd_stat_read(rn, RDSD_STAT_OFFSET(f))

#endif /* _RDSD_STATS_H */
