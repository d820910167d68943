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

int rdsd_stats_net_init(struct rdsd_net *rn)
{
	rn->stats = alloc_percpu(struct rdsd_stats);
	return rn->stats ? 0 : -ENOMEM;
}

void rdsd_stats_net_exit(struct rdsd_net *rn)
{
	free_percpu(rn->stats);
	rn->stats = NULL;
}

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
