// SPDX-License-Identifier: GPL-2.0-only
/* "rdsctl dma": show the copy engine's settings, or set them. */
#include <netlink/genl/genl.h>
#include <linux/rds_doca.h>

#include "rdsctl.h"

/* dma set: the settings it sends, at least one */
static const struct filter_key dma_set_keys[] = {
	{ "mode",	RDS_DOCA_A_INFO_DMA_MODE,	FT_DMA_MODE },
	{ "send-min",	RDS_DOCA_A_INFO_DMA_SEND_MIN,	FT_BYTES },
	{ "recv-min",	RDS_DOCA_A_INFO_DMA_RECV_MIN,	FT_BYTES },
	{ "rdma-min",	RDS_DOCA_A_INFO_DMA_RDMA_MIN,	FT_BYTES },
	{ NULL }
};

static int dma_set(int argc, char **argv)
{
	struct filters f;
	bool any = false;
	int i;

	parse_filters("dma set", argc, argv, dma_set_keys, &f);
	for (i = 0; dma_set_keys[i].name; i++)
		any |= f.val[i].set;
	if (!any)
		usage_error("dma set: one of mode, send-min, recv-min, rdma-min is required");
	return send_filters("dma set", NULL, RDS_DOCA_CMD_SET, &f);
}

int cmd_dma(int argc, char **argv)
{
	static const char *const cmds[] = { "show", "list", "set", NULL };

	if (get_command("dma", &argc, &argv, cmds) != CMD_SHOW)
		return dma_set(argc, argv);
	no_args("dma show", argc, argv);

	nl_open();
	return request("dma show", NULL,
		       genl_request(RDS_DOCA_CMD_INFO_GET, 0),
		       print_cb, print_dma);
}
