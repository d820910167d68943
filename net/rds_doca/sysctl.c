// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca sysctl files: where historic RDS tools find the numbers.
 *
 * Tools written for RDS (rds-info, rds-ping and others) read the address
 * family and the socket option level from /proc/sys/net/rds/pf_rds and
 * /proc/sys/net/rds/sol_rds when those files exist, and fall back to 21
 * and 276.  rds_doca publishes its own numbers there, so such tools reach
 * it on its default family without drop-in mode, but only while Linux's
 * rds.ko is not loaded: the files must not send rds.ko's users to us.  A
 * module notifier withdraws them when rds.ko comes and puts them back
 * when it is gone.  /proc/sys/net/rds_doca/{pf_rds,sol_rds} always hold
 * the same numbers.
 *
 * Lifetime: both tables are registered by rdsd_sysctl_init() and removed
 * by rdsd_sysctl_exit(); the net/rds one comes and goes in between, under
 * rdsd_sysctl_mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rds_doca.h>
#include <linux/sysctl.h>

#include "rdsd.h"
#include "sysctl.h"

/* A symbol rds.ko exports: found while rds.ko is loaded. */
#define RDSD_RDS_SYMBOL		"rds_conn_create"

static int rdsd_sol_rds = SOL_RDS;

static struct ctl_table rdsd_sysctl_table[] = {
	{
		.procname	= "pf_rds",
		.data		= &rdsd_family,
		.maxlen		= sizeof(int),
		.mode		= 0444,
		.proc_handler	= proc_dointvec,
	},
	{
		.procname	= "sol_rds",
		.data		= &rdsd_sol_rds,
		.maxlen		= sizeof(int),
		.mode		= 0444,
		.proc_handler	= proc_dointvec,
	},
#ifndef register_sysctl
	{ }	/* before register_sysctl_sz(), tables end with an empty entry */
#endif
};

static DEFINE_MUTEX(rdsd_sysctl_mutex);
/* under rdsd_sysctl_mutex */
static struct ctl_table_header *rdsd_sysctl_own;
static struct ctl_table_header *rdsd_sysctl_rds;
static bool rdsd_sysctl_rds_loaded;

/* Publish or withdraw net/rds as rds.ko's presence says; mutex held. */
static void rdsd_sysctl_rds_sync(void)
{
	if (rdsd_sysctl_rds_loaded && rdsd_sysctl_rds) {
		unregister_sysctl_table(rdsd_sysctl_rds);
		rdsd_sysctl_rds = NULL;
	} else if (!rdsd_sysctl_rds_loaded && !rdsd_sysctl_rds) {
		rdsd_sysctl_rds = register_sysctl("net/rds", rdsd_sysctl_table);
		if (!rdsd_sysctl_rds)
			pr_warn("cannot publish /proc/sys/net/rds/pf_rds\n");
	}
}

static int rdsd_sysctl_module_event(struct notifier_block *nb,
				    unsigned long action, void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, "rds"))
		return NOTIFY_DONE;
	mutex_lock(&rdsd_sysctl_mutex);
	switch (action) {
	case MODULE_STATE_COMING:
		rdsd_sysctl_rds_loaded = true;
		break;
	case MODULE_STATE_GOING:
		rdsd_sysctl_rds_loaded = false;
		break;
	}
	rdsd_sysctl_rds_sync();
	mutex_unlock(&rdsd_sysctl_mutex);
	return NOTIFY_OK;
}

static struct notifier_block rdsd_sysctl_nb = {
	.notifier_call	= rdsd_sysctl_module_event,
};

/**
 * rdsd_sysctl_init - publish the numbers
 *
 * Returns 0 or a negative errno, with nothing registered.
 */
int rdsd_sysctl_init(void)
{
	void *sym;
	int ret;

	rdsd_sysctl_own = register_sysctl("net/rds_doca", rdsd_sysctl_table);
	if (!rdsd_sysctl_own)
		return -ENOMEM;
	ret = register_module_notifier(&rdsd_sysctl_nb);
	if (ret) {
		unregister_sysctl_table(rdsd_sysctl_own);
		return ret;
	}

	sym = __symbol_get(RDSD_RDS_SYMBOL);
	if (sym)
		__symbol_put(RDSD_RDS_SYMBOL);
	mutex_lock(&rdsd_sysctl_mutex);
	rdsd_sysctl_rds_loaded = sym;
	rdsd_sysctl_rds_sync();
	mutex_unlock(&rdsd_sysctl_mutex);
	return 0;
}

/**
 * rdsd_sysctl_exit - withdraw them
 */
void rdsd_sysctl_exit(void)
{
	unregister_module_notifier(&rdsd_sysctl_nb);
	mutex_lock(&rdsd_sysctl_mutex);
	if (rdsd_sysctl_rds)
		unregister_sysctl_table(rdsd_sysctl_rds);
	rdsd_sysctl_rds = NULL;
	mutex_unlock(&rdsd_sysctl_mutex);
	unregister_sysctl_table(rdsd_sysctl_own);
}
