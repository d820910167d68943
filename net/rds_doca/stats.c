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
