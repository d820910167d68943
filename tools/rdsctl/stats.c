// SPDX-License-Identifier: GPL-2.0-only
/* "rdsctl stats": show the module's counters, or reset them. */
#include <netlink/genl/genl.h>
#include <linux/rds_doca.h>

#include "rdsctl.h"

int cmd_stats(int argc, char **argv)
{
	static const char *const cmds[] = { "show", "list", "reset", NULL };
	bool reset;

	reset = get_command("stats", &argc, &argv, cmds) != CMD_SHOW;
	no_args(reset ? "stats reset" : "stats show", argc, argv);

	nl_open();
	if (reset)
		return request("stats reset", NULL,
			       genl_request(RDS_DOCA_CMD_STATS_RESET, 0),
			       NULL, NULL);
	return request("stats show", NULL,
		       genl_request(RDS_DOCA_CMD_STATS_GET, 0),
		       print_cb, print_stats);
}
