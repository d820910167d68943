// SPDX-License-Identifier: GPL-2.0-only
/* "rdsctl conn": show the connections, or drop one. */
#include <netlink/genl/genl.h>
#include <linux/rds_doca.h>

#include "rdsctl.h"

static const struct filter_key conn_keys[] = {
	{ "peer",	RDS_DOCA_A_CONN_PEER,		FT_ADDR },
	{ "laddr",	RDS_DOCA_A_CONN_LADDR,		FT_ADDR },
	{ "transport",	RDS_DOCA_A_CONN_TRANSPORT,	FT_STR },
	{ "state",	RDS_DOCA_A_CONN_STATE,		FT_CONN_STATE },
	{ NULL }
};

/* conn drop: the attributes it sends, the first one required */
static const struct filter_key drop_keys[] = {
	{ "peer",	RDS_DOCA_A_CONN_PEER,		FT_ADDR },
	{ "laddr",	RDS_DOCA_A_CONN_LADDR,		FT_ADDR },
	{ "transport",	RDS_DOCA_A_CONN_TRANSPORT,	FT_STR },
	{ NULL }
};

static int conn_drop(int argc, char **argv)
{
	struct filters f;

	parse_filters("conn drop", argc, argv, drop_keys, &f);
	if (!f.val[0].set)
		usage_error("conn drop: peer ADDR is required");
	return send_filters("conn drop", "no such connection",
			    RDS_DOCA_CMD_CONN_DROP, &f);
}

int cmd_conn(int argc, char **argv)
{
	static const char *const cmds[] = { "show", "list", "drop", NULL };
	struct filters f;

	if (get_command("conn", &argc, &argv, cmds) != CMD_SHOW)
		return conn_drop(argc, argv);
	parse_filters("conn show", argc, argv, conn_keys, &f);
	return show("conn show", RDS_DOCA_CMD_CONN_GET, &conn_type, &f);
}
