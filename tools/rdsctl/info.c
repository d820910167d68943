// SPDX-License-Identifier: GPL-2.0-only
/* "rdsctl info": show the module's information. */
#include <netlink/genl/genl.h>
#include <linux/rds_doca.h>

#include "rdsctl.h"

int cmd_info(int argc, char **argv)
{
	static const char *const cmds[] = { "show", "list", NULL };

	get_command("info", &argc, &argv, cmds);
	no_args("info", argc, argv);

	nl_open();
	return request("info", NULL, genl_request(RDS_DOCA_CMD_INFO_GET, 0),
		       print_cb, print_info);
}
