// SPDX-License-Identifier: GPL-2.0-only
/*
 * Objects that are dumped and shown: the show that conn shares, and the
 * sock, mr and dev objects, which only show.
 */
#include <stdio.h>

#include <netlink/genl/genl.h>
#include <linux/rds_doca.h>

#include "printer.h"
#include "rdsctl.h"

static const struct filter_key sock_keys[] = {
	{ "addr",	RDS_DOCA_A_SOCK_ADDR,		FT_ADDR },
	{ "port",	RDS_DOCA_A_SOCK_PORT,		FT_U16 },
	{ "transport",	RDS_DOCA_A_SOCK_TRANSPORT,	FT_STR },
	{ NULL }
};

static const struct filter_key mr_keys[] = {
	{ "sock",	RDS_DOCA_A_MR_SOCK_ID,		FT_U32 },
	{ NULL }
};

static const struct filter_key dev_keys[] = {
	{ "name",	RDS_DOCA_A_DEV_NAME,		FT_STR },
	{ NULL }
};

struct show_ctx {
	const struct object_type *type;
	const struct filters *filters;
};

static int show_cb(struct nl_msg *msg, void *arg)
{
	struct show_ctx *ctx = arg;
	struct nlattr *tb[RDSCTL_TB_SIZE];

	if (!ours(msg) || obj_parse(ctx->type, nlmsg_hdr(msg), tb) < 0)
		return NL_SKIP;
	if (filters_match(ctx->filters, tb))
		obj_print(ctx->type, nlmsg_hdr(msg), tb, opt.details);
	return NL_OK;
}

/* Dump every object of a type, print those the filters let through. */
int show(const char *what, uint8_t cmd, const struct object_type *type,
	 const struct filters *filters)
{
	struct show_ctx ctx = { type, filters };
	int err;

	nl_open();
	pr_list_start();
	err = request(what, NULL, genl_request(cmd, NLM_F_DUMP), show_cb,
		      &ctx);
	pr_list_end();
	return err;
}

/* OBJECT [show|list] [FILTERS] for an object that only shows. */
static int show_only(const char *object, int argc, char **argv, uint8_t cmd,
		     const struct object_type *type,
		     const struct filter_key *keys)
{
	static const char *const cmds[] = { "show", "list", NULL };
	char what[32];
	struct filters f;

	snprintf(what, sizeof(what), "%s show", object);
	get_command(object, &argc, &argv, cmds);
	parse_filters(what, argc, argv, keys, &f);
	return show(what, cmd, type, &f);
}

int cmd_sock(int argc, char **argv)
{
	return show_only("sock", argc, argv, RDS_DOCA_CMD_SOCK_GET, &sock_type,
			 sock_keys);
}

int cmd_mr(int argc, char **argv)
{
	return show_only("mr", argc, argv, RDS_DOCA_CMD_MR_GET, &mr_type,
			 mr_keys);
}

int cmd_dev(int argc, char **argv)
{
	return show_only("dev", argc, argv, RDS_DOCA_CMD_DEV_GET, &dev_type,
			 dev_keys);
}
